-- Async C table functions (joinery_udf.h ABI 2: open / start / poll / descriptor) in the
-- Correlate, Flink's AsyncCorrelate: the test function async_rows (tests/udf/test_udfs.c)
-- completes its calls newest first, all at each poll, so every result below in input order
-- is the operator's reordering; x % 3 rows per x (v = x * 10 + k + the job parameter
-- 'test.offset'), x < 0 fails, x = 999 never completes. Also the ABI-2 sync instance
-- (counted_rows), an ABI-1 library still loading, and malformed ABI-2 descriptors.
CREATE TEMPORARY FUNCTION async_rows AS 'async_rows' LANGUAGE C USING JAR 'build/udf/libjoinery_test_udf.so';
CREATE TEMPORARY FUNCTION counted_rows AS 'counted_rows' LANGUAGE C USING JAR 'build/udf/libjoinery_test_udf.so';
CREATE TEMPORARY FUNCTION legacy_plus_one AS 'legacy_plus_one' LANGUAGE C USING JAR 'build/udf/libjoinery_test_udf.so';
CREATE TEMPORARY VIEW xs AS SELECT * FROM (VALUES (1), (2), (3), (4), (5), (CAST(NULL AS BIGINT)), (7), (8), (9), (10), (11)) AS t(x);
EXPLAIN SELECT x, v, k FROM xs, LATERAL TABLE(async_rows(x));
-- INNER: x % 3 rows each, in input order (10 calls in flight at most, Flink's default)
SELECT x, v, k FROM xs, LATERAL TABLE(async_rows(x));
-- LEFT: the x with no rows (3, 9, NULL: not called) padded, in their places
SELECT x, v, k FROM xs LEFT JOIN LATERAL TABLE(async_rows(x)) AS r(v, k) ON TRUE;
-- one call in flight, then three: the same rows
SET 'table.exec.async-table.max-concurrent-operations' = '1';
SELECT x, v, k FROM xs LEFT JOIN LATERAL TABLE(async_rows(x)) AS r(v, k) ON TRUE;
SET 'table.exec.async-table.max-concurrent-operations' = '3';
SELECT x, v, k FROM xs LEFT JOIN LATERAL TABLE(async_rows(x)) AS r(v, k) ON TRUE;
RESET 'table.exec.async-table.max-concurrent-operations';
-- a function with no descriptor to watch: polled on a timer, the same rows
CREATE TEMPORARY FUNCTION async_rows_no_fd AS 'async_rows_no_fd' LANGUAGE C USING JAR 'build/udf/libjoinery_test_udf.so';
SELECT x, v, k FROM xs LEFT JOIN LATERAL TABLE(async_rows_no_fd(x)) AS r(v, k) ON TRUE;
-- a residual condition of an INNER join, and the job parameter the function's open reads
SET 'pipeline.global-job-parameters' = 'other:1,test.offset:1000';
SELECT x, v, k FROM xs, LATERAL TABLE(async_rows(x)) AS r(v, k) WHERE k = 1;
RESET 'pipeline.global-job-parameters';
-- two subtasks: the same rows (counted and summed in batch mode, so the subtasks'
-- interleaving is not shown): 12 + 10 rows (x = 1..11 and 101..111, 6 and 106 NULL), v 744 +
-- 10564, k 4 + 4
SET 'parallelism.default' = '2';
SET 'execution.runtime-mode' = 'batch';
SELECT COUNT(*) AS n, SUM(v) AS sum_v, SUM(k) AS sum_k FROM (SELECT * FROM xs UNION ALL SELECT x + 100 FROM xs) AS u, LATERAL TABLE(async_rows(x));
RESET 'execution.runtime-mode';
RESET 'parallelism.default';
-- an updating input: each +I / -U / +U / -D expanded with its kind, in order
SELECT c, v, k FROM (SELECT COUNT(*) AS c FROM xs) AS counts, LATERAL TABLE(async_rows(c));
-- a call that fails: the job fails naming the function and the call's arguments
SELECT x, v FROM (VALUES (CAST(1 AS BIGINT)), (-5)) AS t(x), LATERAL TABLE(async_rows(x));
-- a call that never completes, past the timeout
SET 'table.exec.async-table.timeout' = '200 ms';
SELECT x, v FROM (VALUES (CAST(1 AS BIGINT)), (999)) AS t(x), LATERAL TABLE(async_rows(x));
RESET 'table.exec.async-table.timeout';
-- a flaky store (Flink's table.exec.async-table.retry-strategy FIXED_DELAY, the default:
-- retry-delay 100 ms, max-retries 3): each x's first two calls fail, the third answers, so
-- the rows are those of a store that never failed, in input order
SET 'pipeline.global-job-parameters' = 'test.fail-first:2';
SELECT x, v, k FROM xs LEFT JOIN LATERAL TABLE(async_rows(x)) AS r(v, k) ON TRUE;
-- ... also when the call's start fails (three times: within the three retries)
SET 'pipeline.global-job-parameters' = 'test.fail-first-start:3';
SELECT x, v, k FROM (VALUES (CAST(1 AS BIGINT)), (2), (4)) AS t(x), LATERAL TABLE(async_rows(x));
-- one retry only: the second failure fails the job, naming the attempts
SET 'pipeline.global-job-parameters' = 'test.fail-first:2';
SET 'table.exec.async-table.max-retries' = '1';
SELECT x, v FROM (VALUES (CAST(2 AS BIGINT))) AS t(x), LATERAL TABLE(async_rows(x));
-- NO_RETRY: the first failure fails the job
RESET 'table.exec.async-table.max-retries';
SET 'table.exec.async-table.retry-strategy' = 'NO_RETRY';
SELECT x, v FROM (VALUES (CAST(2 AS BIGINT))) AS t(x), LATERAL TABLE(async_rows(x));
RESET 'table.exec.async-table.retry-strategy';
-- the timeout counts the retries: a retry due after it is never started
SET 'table.exec.async-table.retry-delay' = '10 s';
SET 'table.exec.async-table.timeout' = '300 ms';
SELECT x, v FROM (VALUES (CAST(2 AS BIGINT))) AS t(x), LATERAL TABLE(async_rows(x));
RESET 'table.exec.async-table.retry-delay';
RESET 'table.exec.async-table.timeout';
RESET 'pipeline.global-job-parameters';
-- Flink's docs name max-retries 'max-attempts': the same key; a negative count is refused
SET 'table.exec.async-table.max-attempts' = '5';
SET 'table.exec.async-table.max-retries' = '-1';
SET 'table.exec.async-table.retry-strategy' = 'EXPONENTIAL_DELAY';
RESET 'table.exec.async-table.max-retries';
SET 'table.exec.async-table.max-concurrent-operations' = '0';
SET 'table.exec.async-table.timeout' = '0 ms';
SET 'pipeline.global-job-parameters' = 'a:"unclosed';
-- a sync function with an instance: its calls counted per instance (each query a new one)
SELECT x, v, calls FROM (VALUES (CAST(5 AS BIGINT)), (6), (7)) AS t(x), LATERAL TABLE(counted_rows(x));
SELECT x, v, calls FROM (VALUES (CAST(8 AS BIGINT))) AS t(x), LATERAL TABLE(counted_rows(x));
-- an ABI-1 library: loaded and called as before
SELECT legacy_plus_one(CAST(41 AS BIGINT)) AS answer;
-- malformed ABI-2 descriptors
CREATE TEMPORARY FUNCTION async_no_open AS 'async_no_open' LANGUAGE C USING JAR 'build/udf/libjoinery_test_udf.so';
CREATE TEMPORARY FUNCTION scalar_with_open AS 'scalar_with_open' LANGUAGE C USING JAR 'build/udf/libjoinery_test_udf.so';
