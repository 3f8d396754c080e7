/*
 * check_parser.c - Check suite for the SQL parser (engine/sql/parser.c) and
 * the AST printer: the seed statements verbatim, every statement kind, every
 * type, expression precedence, hints, source texts, error messages and
 * positions (multi-line, script offsets), and a small fuzz over prefixes and
 * random bytes that must never crash, hang or leak.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/sql/ast_print.h"
#include "engine/sql/parser.h"

static Arena test_arena;

static void setup(void)
{
    arena_init(&test_arena, 0);
}

static void teardown(void)
{
    arena_destroy(&test_arena);
}

/* Parses sql (at 1:1); returns the statement or NULL with *diag filled. */
static AstStatement *parse(const char *sql, Diag *diag)
{
    AstStatement *statement = NULL;
    diag_clear(diag);
    int status = sql_parse_statement(sql, strlen(sql), 1, 1, &test_arena, &statement, diag);
    ck_assert_int_eq(status, diag->status);
    ck_assert(status == JOINERY_OK ? statement != NULL : statement == NULL);
    return statement;
}

/* Parses sql and checks its dump. */
#define assert_parses_as(sql, expected)                                                            \
    do {                                                                                           \
        Diag assert_diag;                                                                          \
        AstStatement *assert_statement = parse((sql), &assert_diag);                               \
        ck_assert_msg(assert_statement != NULL, "parse failed at %d:%d: %s", assert_diag.line,     \
                      assert_diag.column, assert_diag.message);                                    \
        StrBuf assert_out = STRBUF_INIT;                                                           \
        ck_assert_int_eq(ast_print_statement(assert_statement, &assert_out), 0);                   \
        ck_assert_str_eq(strbuf_cstr(&assert_out), (expected));                                    \
        strbuf_free(&assert_out);                                                                  \
    } while (0)

/* Parses sql and checks that it fails with status at line:column with message. */
#define assert_fails(sql, expected_status, expected_line, expected_column, expected_message)       \
    do {                                                                                           \
        Diag assert_diag;                                                                          \
        AstStatement *assert_statement = parse((sql), &assert_diag);                               \
        ck_assert_msg(assert_statement == NULL, "parsed unexpectedly: %s", (sql));                 \
        ck_assert_str_eq(assert_diag.message, (expected_message));                                 \
        ck_assert_int_eq(assert_diag.status, (expected_status));                                   \
        ck_assert_int_eq(assert_diag.line, (expected_line));                                       \
        ck_assert_int_eq(assert_diag.column, (expected_column));                                   \
    } while (0)

/* The first select expression of "SELECT <expr>" as dumped. */
#define assert_expression(expr_text, expected)                                                     \
    assert_parses_as("SELECT " expr_text, "(select " expected ")")

/* ---------------------------------------------------------------- seeds */

static const char *const SEEDS[] = {
    "CREATE TABLE orders ( order_id BIGINT, user_id BIGINT, product_id BIGINT, amount DECIMAL(10, "
    "2), order_time TIMESTAMP(3), WATERMARK FOR order_time AS order_time - INTERVAL '5' SECONDS, "
    "PRIMARY KEY (order_id) NOT ENFORCED ) WITH ( 'connector' = 'kafka', 'topic' = 'orders', "
    "'properties.bootstrap.servers' = 'localhost:9092', 'properties.group.id' = 'flink-demo', "
    "'format' = 'json', 'scan.startup.mode' = 'earliest-offset' );",
    "SELECT o.order_id, u.user_name, p.product_name, p.category, o.amount FROM orders AS o LEFT "
    "JOIN "
    "users AS u ON o.user_id = u.user_id LEFT JOIN products AS p ON o.product_id = p.product_id "
    "WHERE o.amount > 10 AND p.category = 'electronics';",
    "SELECT o.order_id, o.amount, p.pay_time FROM orders AS o JOIN payments AS p ON o.order_id = "
    "p.order_id AND p.pay_time BETWEEN o.order_time AND o.order_time + INTERVAL '10' MINUTE;",
    "SET 'table.exec.state.ttl' = '1 h';",
    "EXPLAIN SELECT o.order_id, u.user_name FROM orders AS o LEFT JOIN users AS u ON o.user_id = "
    "u.user_id WHERE o.amount > 10;",
    "CREATE TABLE datagen1 (id int, f1 int, PRIMARY KEY (id) NOT ENFORCED) WITH ( 'connector' = "
    "'datagen', 'rows-per-second' = '1' );",
    "CREATE TABLE print (id int, f1 int, f2 int, f3 int, f5 int, f6 int) WITH ('connector' = "
    "'print');",
    "insert into print select datagen1.id, datagen1.f1, datagen2.f2, datagen3.f3, datagen5.f5, "
    "datagen6.f6 from datagen1 left join datagen2 on datagen1.id = datagen2.id and datagen2.id > 2 "
    "join datagen3 on datagen1.id = datagen3.id and datagen3.id > 3 right join datagen5 on "
    "datagen1.id = datagen5.id and datagen5.id > 5 full outer join datagen6 on datagen1.id = "
    "datagen6.id and datagen6.id > 6 and datagen1.id > 1;",
    "SELECT /*+ STATE_TTL('o' = '1d', 'u' = '12h') */ o.order_id FROM orders o JOIN users u ON "
    "o.user_id = u.user_id;",
};

static const char *const SEED_DUMPS[] = {
    "(create-table orders (column order_id BIGINT) (column user_id BIGINT) (column product_id "
    "BIGINT) (column amount DECIMAL(10, 2)) (column order_time TIMESTAMP(3)) (watermark order_time "
    "(- order_time (interval '5' SECOND))) (primary-key order_id) (with ('connector' 'kafka') "
    "('topic' 'orders') ('properties.bootstrap.servers' 'localhost:9092') ('properties.group.id' "
    "'flink-demo') ('format' 'json') ('scan.startup.mode' 'earliest-offset')))",
    "(select o.order_id u.user_name p.product_name p.category o.amount (from (left-join (left-join "
    "(table orders (as o)) (table users (as u)) (on (= o.user_id u.user_id))) (table products (as "
    "p)) (on (= o.product_id p.product_id)))) (where (AND (> o.amount 10) (= p.category "
    "'electronics'))))",
    "(select o.order_id o.amount p.pay_time (from (inner-join (table orders (as o)) (table "
    "payments "
    "(as p)) (on (AND (= o.order_id p.order_id) (between p.pay_time o.order_time (+ o.order_time "
    "(interval '10' MINUTE))))))))",
    "(set 'table.exec.state.ttl' '1 h')",
    "(explain (select o.order_id u.user_name (from (left-join (table orders (as o)) (table users "
    "(as "
    "u)) (on (= o.user_id u.user_id)))) (where (> o.amount 10))))",
    "(create-table datagen1 (column id INT) (column f1 INT) (primary-key id) (with ('connector' "
    "'datagen') ('rows-per-second' '1')))",
    "(create-table print (column id INT) (column f1 INT) (column f2 INT) (column f3 INT) (column "
    "f5 "
    "INT) (column f6 INT) (with ('connector' 'print')))",
    "(insert print (select datagen1.id datagen1.f1 datagen2.f2 datagen3.f3 datagen5.f5 datagen6.f6 "
    "(from (full-join (right-join (inner-join (left-join (table datagen1) (table datagen2) (on "
    "(AND "
    "(= datagen1.id datagen2.id) (> datagen2.id 2)))) (table datagen3) (on (AND (= datagen1.id "
    "datagen3.id) (> datagen3.id 3)))) (table datagen5) (on (AND (= datagen1.id datagen5.id) (> "
    "datagen5.id 5)))) (table datagen6) (on (AND (AND (= datagen1.id datagen6.id) (> datagen6.id "
    "6)) (> datagen1.id 1)))))))",
    "(select (hint STATE_TTL ('o' '1d') ('u' '12h')) o.order_id (from (inner-join (table orders "
    "(as "
    "o)) (table users (as u)) (on (= o.user_id u.user_id)))))",
};

/* Other SQL found in the seed articles (some reformatted to one statement each). */
static const char *const SEED_EXTRAS[] = {
    "CREATE TABLE users ( user_id BIGINT, user_name STRING, region_id BIGINT, PRIMARY KEY "
    "(user_id) "
    "NOT ENFORCED ) WITH ( 'connector' = 'kafka', 'topic' = 'users', "
    "'properties.bootstrap.servers' = 'localhost:9092', 'format' = 'json', 'scan.startup.mode' = "
    "'earliest-offset' );",
    "SET 'table.exec.mini-batch.allow-latency' = '5 s';",
    "EXPLAIN SELECT o.order_id, u.user_name, p.product_name, p.category FROM orders AS o LEFT JOIN "
    "users AS u ON o.user_id = u.user_id LEFT JOIN products AS p ON o.product_id = p.product_id "
    "WHERE o.amount > 10;",
    "SELECT /*+ LOOKUP('table' = 'products', 'async' = 'true', 'cache' = 'LRU', 'cache-size' = "
    "'10000', 'cache-ttl' = '60s') */\n  o.order_id, o.amount, p.product_name\nFROM orders o\nJOIN "
    "products FOR SYSTEM_TIME AS OF o.proctime AS p\n  ON o.product_id = p.id;",
    "SELECT /*+ STATE_TTL('orders' = '7d', 'customers' = '30d') */\n  o.order_id, "
    "c.customer_name\nFROM orders o\nJOIN customers c ON o.customer_id = c.id;",
    "SELECT window_start, window_end, SUM(amount)\nFROM TABLE(\n  TUMBLE(TABLE orders, "
    "DESCRIPTOR(order_time), INTERVAL '1' HOUR)\n)\nGROUP BY window_start, window_end;",
    "CREATE TABLE datagen2 (id int, f2 int, PRIMARY KEY (id) NOT ENFORCED)\nWITH\n  (\n    "
    "'connector' = 'datagen',\n    'rows-per-second' = '1'\n  );",
    "insert into\n  print\nselect\n  datagen1.id,\n  datagen1.f1\nfrom\n  datagen1\n  left join "
    "datagen2 on datagen1.id = datagen2.id\n  and datagen2.id > 2\n  full outer join datagen6 on "
    "datagen1.id = datagen6.id\n  and datagen6.id > 6\n  and datagen1.id > 1;",
    "SELECT *\nFROM orders o\nRIGHT JOIN users u\nON o.user_id = u.user_id;",
    "SELECT *\nFROM a\nCROSS JOIN b;",
    "SELECT\n    o.order_id,\n    p.pay_id\nFROM orders o\nJOIN payments p\nON o.order_id = "
    "p.order_id\nAND p.rowtime BETWEEN o.rowtime - INTERVAL '10' MINUTE\n                  AND "
    "o.rowtime + INTERVAL '5' MINUTE;",
    "SELECT\n    o.window_start,\n    o.window_end,\n    o.order_id,\n    p.pay_id\nFROM TABLE(\n  "
    "  "
    "TUMBLE(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)\n) o\nJOIN TABLE(\n    "
    "TUMBLE(TABLE payments, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)\n) p\nON o.order_id = "
    "p.order_id\nAND o.window_start = p.window_start\nAND o.window_end = p.window_end;",
    "SELECT\n    o.order_id,\n    o.product_id,\n    o.order_time,\n    p.price\nFROM orders "
    "o\nJOIN "
    "product_price p\nFOR SYSTEM_TIME AS OF o.order_time\nON o.product_id = p.product_id;",
    "SELECT\n    o.order_id,\n    o.user_id,\n    d.user_name,\n    d.user_level\nFROM orders "
    "o\nLEFT JOIN dim_user FOR SYSTEM_TIME AS OF o.proc_time AS d\nON o.user_id = d.user_id;",
    "CREATE TABLE orders (\n    order_id STRING,\n    user_id STRING,\n    amount DECIMAL(10, "
    "2),\n  "
    "  ts TIMESTAMP(3),\n    proc_time AS PROCTIME()\n) WITH ('connector' = 'datagen');",
    "-- 1. 数据源过滤预处理视图\nDROP TEMPORARY VIEW IF EXISTS preprocessed_event_data ;",
    "CREATE TEMPORARY VIEW preprocessed_event_data AS\nSELECT *\nFROM "
    "src_event_point_log_p8001\nWHERE event_code IN (21001, 11001, 21003)\n  AND `uuid` IS NOT "
    "NULL\n  AND CHAR_LENGTH(`uuid`) > 1 ;",
    "CREATE TEMPORARY VIEW windowed_event_data AS\nSELECT\n    uuid,\n    LISTAGG(DISTINCT ip, "
    "',') "
    "as historical_ips_str,\n    MAX(ts) as latest_ts,\n    COLLECT(\n        ROW(`id`, `version`, "
    "`uuid`, `event_code`, `rowtime`)\n    ) as events,\n    TUMBLE_END(rowtime, INTERVAL '3' "
    "MINUTE) as window_end\nFROM preprocessed_event_data\nGROUP BY\n    uuid,\n    TUMBLE(rowtime, "
    "INTERVAL '3' MINUTE);",
    "CREATE TEMPORARY VIEW enriched_windowed_data AS\nSELECT\n    w.uuid,\n    "
    "w.historical_ips_str,\n    w.window_end,\n    w.events,\n    COALESCE(b.aws_cdnlog_flag, "
    "'CDN_NOT_FOUND') as aws_cdnlog_flag,\n    COALESCE(b.cf_edge_log_flag, 'CF_NOT_FOUND') as "
    "cf_edge_log_flag\nFROM windowed_event_data w\nLEFT JOIN LATERAL TABLE(\n    "
    "query_ck_awscdn_cf_log_tudf(w.historical_ips_str, '', DATE_FORMAT(window_end, 'yyyy-MM-dd "
    "HH:mm:ss'))\n) AS b(aws_cdnlog_flag, cf_edge_log_flag) ON TRUE\nWHERE b.aws_cdnlog_flag <> "
    "'CDN_NORMAL_DATA'\n  AND b.cf_edge_log_flag <> 'CDN_NORMAL_DATA' ;",
    "-- 开启 MiniBatch\nSET 'table.exec.mini-batch.enabled' = 'true';",
};

START_TEST(test_seed_statements)
{
    for (size_t i = 0; i < sizeof SEEDS / sizeof SEEDS[0]; i++)
        assert_parses_as(SEEDS[i], SEED_DUMPS[i]);
}
END_TEST

START_TEST(test_seed_extras)
{
    for (size_t i = 0; i < sizeof SEED_EXTRAS / sizeof SEED_EXTRAS[0]; i++) {
        Diag diag;
        AstStatement *statement = parse(SEED_EXTRAS[i], &diag);
        ck_assert_msg(statement != NULL, "seed extra %zu failed at %d:%d: %s", i, diag.line,
                      diag.column, diag.message);
    }
    assert_parses_as(
        SEED_EXTRAS[12],
        "(select o.order_id o.product_id o.order_time p.price (from (inner-join (table "
        "orders (as o)) (table product_price (as p) (system-time o.order_time)) (on (= "
        "o.product_id p.product_id)))))");
    assert_parses_as(
        SEED_EXTRAS[5],
        "(select window_start window_end (call SUM amount) (from (table-function (call "
        "TUMBLE (table orders) (call DESCRIPTOR order_time) (interval '1' HOUR)))) "
        "(group-by window_start window_end))");
    assert_parses_as(
        SEED_EXTRAS[18],
        "(create-view temporary enriched_windowed_data (select w.uuid "
        "w.historical_ips_str w.window_end w.events (as (call COALESCE "
        "b.aws_cdnlog_flag 'CDN_NOT_FOUND') aws_cdnlog_flag) (as (call COALESCE "
        "b.cf_edge_log_flag 'CF_NOT_FOUND') cf_edge_log_flag) (from (left-join (table "
        "windowed_event_data (as w)) (table-function (call query_ck_awscdn_cf_log_tudf "
        "w.historical_ips_str '' (call DATE_FORMAT window_end 'yyyy-MM-dd HH:mm:ss')) "
        "(as b aws_cdnlog_flag cf_edge_log_flag)) (on TRUE))) (where (AND (<> "
        "b.aws_cdnlog_flag 'CDN_NORMAL_DATA') (<> b.cf_edge_log_flag "
        "'CDN_NORMAL_DATA')))))");
}
END_TEST

/* ---------------------------------------------------------------- statements */

START_TEST(test_query_statements)
{
    assert_parses_as("SELECT 1", "(select 1)");
    assert_parses_as("select distinct a, b AS x, c y FROM t",
                     "(select distinct a (as b x) (as c y) (from (table t)))");
    assert_parses_as("SELECT ALL * FROM cat.db.t", "(select * (from (table cat.db.t)))");
    assert_parses_as("WITH a AS (SELECT 1), b (x) AS (SELECT 2) SELECT * FROM a, b",
                     "(with (a (select 1)) (b (columns x) (select 2)) (select * (from (cross-join "
                     "comma (table a) (table b)))))");
    assert_parses_as("VALUES (1, 'a'), (2, 'b')", "(values (row 1 'a') (row 2 'b'))");
    assert_parses_as("SELECT a FROM t UNION ALL SELECT b FROM u UNION SELECT c FROM v",
                     "(union (union all (select a (from (table t))) (select b (from (table u)))) "
                     "(select c (from (table v))))");
    assert_parses_as("SELECT 1 UNION SELECT 2 INTERSECT SELECT 3 EXCEPT SELECT 4",
                     "(except (union (select 1) (intersect (select 2) (select 3))) (select 4))");
    assert_parses_as("(SELECT 1) UNION (SELECT 2) ORDER BY 1 DESC NULLS LAST, 2 LIMIT 10",
                     "(union (select 1) (select 2) (order-by (1 desc nulls-last) 2) (limit 10))");
    assert_parses_as(
        "SELECT a, COUNT(*) FROM t WHERE b > 1 GROUP BY a HAVING COUNT(*) > 2 ORDER "
        "BY a ASC NULLS FIRST",
        "(select a (call COUNT *) (from (table t)) (where (> b 1)) (group-by a) (having "
        "(> (call COUNT *) 2)) (order-by (a nulls-first)))");
    assert_parses_as("((SELECT 1))", "(select 1)");
    assert_parses_as("SELECT * FROM (SELECT a FROM t) AS s (x)",
                     "(select * (from (derived (select a (from (table t))) (as s x))))");
    assert_parses_as("SELECT * FROM (SELECT a FROM t) s",
                     "(select * (from (derived (select a (from "
                     "(table t))) (as s))))");
}
END_TEST

START_TEST(test_joins)
{
    assert_parses_as("SELECT * FROM a INNER JOIN b USING (x, y) NATURAL JOIN c CROSS JOIN d",
                     "(select * (from (cross-join (natural-inner-join (inner-join (table a) (table "
                     "b) (using x y)) (table c)) (table d))))");
    assert_parses_as("SELECT * FROM a LEFT OUTER JOIN b ON a.x = b.x RIGHT OUTER JOIN c ON TRUE",
                     "(select * (from (right-join (left-join (table a) (table b) (on (= a.x b.x))) "
                     "(table c) (on TRUE))))");
    assert_parses_as("SELECT * FROM a JOIN (b JOIN c ON b.x = c.x) ON a.x = b.x",
                     "(select * (from (inner-join (table a) (inner-join (table b) (table c) (on (= "
                     "b.x c.x))) (on (= a.x b.x)))))");
    assert_parses_as("SELECT * FROM a, b, c", "(select * (from (cross-join comma (cross-join comma "
                                              "(table a) (table b)) (table c))))");
    assert_parses_as("SELECT * FROM a NATURAL LEFT JOIN b",
                     "(select * (from (natural-left-join (table a) (table b))))");
    assert_parses_as("SELECT * FROM t CROSS JOIN LATERAL TABLE(split(t.s)) AS x(w)",
                     "(select * (from (cross-join (table t) (table-function (call split t.s) (as x "
                     "w)))))");
    assert_parses_as("SELECT * FROM t CROSS JOIN UNNEST(t.a) WITH ORDINALITY AS u(x, n)",
                     "(select * (from (cross-join (table t) (table-function (call UNNEST t.a) "
                     "with-ordinality (as u x n)))))");
    Diag diag;
    AstStatement *statement = parse("SELECT *\nFROM a\n  LEFT JOIN b ON TRUE", &diag);
    ck_assert_ptr_nonnull(statement);
    AstTableRef *join = statement->query->select.from;
    ck_assert_int_eq(join->kind, AST_TABLE_JOIN);
    ck_assert_int_eq(join->position.line, 2);
    ck_assert_int_eq(join->position.column, 6);
    ck_assert_int_eq(join->join.keyword_position.line, 3);
    ck_assert_int_eq(join->join.keyword_position.column, 3);
    ck_assert_int_eq(join->join.right->position.column, 13);
}
END_TEST

START_TEST(test_insert)
{
    assert_parses_as("INSERT INTO cat.db.t (a, b) SELECT x, y FROM s",
                     "(insert cat.db.t (columns a b) (select x y (from (table s))))");
    assert_parses_as("INSERT OVERWRITE t SELECT 1", "(insert-overwrite t (select 1))");
    assert_parses_as("INSERT INTO t VALUES (1)", "(insert t (values (row 1)))");
    assert_parses_as("INSERT INTO t (SELECT 1)", "(insert t (select 1))");
}
END_TEST

START_TEST(test_create_table)
{
    assert_parses_as(
        "CREATE TEMPORARY TABLE IF NOT EXISTS db.t (\n"
        "  id BIGINT NOT NULL PRIMARY KEY NOT ENFORCED COMMENT 'the id',\n"
        "  total AS price * quantity COMMENT 'computed',\n"
        "  ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp' VIRTUAL,\n"
        "  part INT METADATA,\n"
        "  `comment` STRING,\n"
        "  name STRING,\n"
        "  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND\n"
        ") COMMENT 'table' PARTITIONED BY (part) WITH ('connector' = 'kafka') LIKE base (INCLUDING "
        "ALL)",
        "(create-table temporary if-not-exists db.t (column id BIGINT NOT NULL primary-key "
        "(comment "
        "'the id')) (column total (computed (* price quantity)) (comment 'computed')) (column ts "
        "TIMESTAMP_LTZ(3) (metadata 'timestamp' virtual)) (column part INT (metadata)) (column "
        "comment STRING) (column name STRING) (watermark ts (- ts (interval '5' SECOND))) "
        "(primary-key id) (comment 'table') (partitioned-by part) (with ('connector' 'kafka')) "
        "(like "
        "base))");
    assert_parses_as("CREATE TABLE t (a INT, CONSTRAINT pk PRIMARY KEY (a, b))",
                     "(create-table t (column a INT) (primary-key a b enforced))");
    assert_parses_as("CREATE TABLE t (a INT CONSTRAINT pk PRIMARY KEY)",
                     "(create-table t (column a INT primary-key) (primary-key a enforced))");
    Diag diag;
    AstStatement *statement =
        parse("CREATE TABLE t (\n a INT,\n PRIMARY KEY (a) NOT ENFORCED\n)", &diag);
    ck_assert_ptr_nonnull(statement);
    ck_assert(!statement->create_table.primary_key_enforced);
    ck_assert_int_eq(statement->create_table.primary_key_position.line, 3);
    ck_assert_int_eq(statement->create_table.primary_key_position.column, 2);
    AstColumnDef *column = statement->create_table.columns.items[0];
    ck_assert_int_eq(column->position.line, 2);
    ck_assert_int_eq(column->position.column, 2);
    statement = parse("CREATE TABLE t (a INT, WATERMARK FOR a AS a)", &diag);
    ck_assert_int_eq(statement->create_table.watermark_position.column, 24);
    ck_assert_str_eq(statement->create_table.watermark_expr->source_text, "a)");
    assert_fails("CREATE TABLE t (a INT, PRIMARY KEY (a), PRIMARY KEY (a))", JOINERY_ERROR_PARSE, 1,
                 41, "Syntax error: a table can have only one PRIMARY KEY");
    assert_fails("CREATE TABLE t AS SELECT 1", JOINERY_ERROR_UNSUPPORTED, 1, 16,
                 "CREATE TABLE ... AS SELECT is not supported yet");
    assert_fails("CREATE TABLE t (a INT) WITH (connector = 'x')", JOINERY_ERROR_PARSE, 1, 30,
                 "Syntax error: unexpected 'connector'; expected ')' or option key string");
}
END_TEST

START_TEST(test_create_view)
{
    const char *sql = "CREATE VIEW IF NOT EXISTS v (a, b) AS\n  SELECT x, y FROM t  ;  ";
    assert_parses_as(sql, "(create-view if-not-exists v (columns a b) (select x y (from (table "
                          "t))))");
    Diag diag;
    AstStatement *statement = parse(sql, &diag);
    ck_assert_uint_eq(statement->create_view.query_length, strlen("SELECT x, y FROM t"));
    ck_assert(strncmp(statement->create_view.query_text, "SELECT x, y FROM t",
                      statement->create_view.query_length) == 0);
    assert_parses_as("CREATE TEMPORARY VIEW v COMMENT 'c' AS VALUES (1)",
                     "(create-view temporary v (values (row 1)))");
}
END_TEST

START_TEST(test_other_statements)
{
    assert_parses_as("DROP TABLE t", "(drop-table t)");
    assert_parses_as("DROP TEMPORARY TABLE IF EXISTS c.d.t;",
                     "(drop-table temporary if-exists c.d.t)");
    assert_parses_as("DROP VIEW v", "(drop-view v)");
    assert_parses_as("DROP TEMPORARY SYSTEM FUNCTION IF EXISTS f",
                     "(drop-function temporary system if-exists f)");
    assert_parses_as("CREATE FUNCTION f AS 'sym' LANGUAGE C USING JAR '/x/lib.so'",
                     "(create-function f 'sym' language C using-jar '/x/lib.so')");
    assert_parses_as("create temporary system function if not exists c.d.f as 'com.F'",
                     "(create-function temporary system if-not-exists c.d.f 'com.F')");
    assert_parses_as("SET", "(set)");
    assert_parses_as("SET;", "(set)");
    assert_parses_as("SET 'k'='v'", "(set 'k' 'v')");
    assert_parses_as("SET table.exec.state.ttl = '1 h'", "(set 'table.exec.state.ttl' '1 h')");
    assert_parses_as("SET table.exec.mini-batch.enabled = true;",
                     "(set 'table.exec.mini-batch.enabled' 'true')");
    assert_parses_as("SET 'parallelism.default' = 2", "(set 'parallelism.default' '2')");
    assert_parses_as("RESET", "(reset)");
    assert_parses_as("RESET 'table.exec.state.ttl';", "(reset 'table.exec.state.ttl')");
    assert_parses_as("RESET table.exec.state.ttl", "(reset 'table.exec.state.ttl')");
    assert_parses_as("SHOW TABLES", "(show-tables)");
    assert_parses_as("show views;", "(show-views)");
    assert_parses_as("SHOW FUNCTIONS", "(show-functions)");
    assert_parses_as("SHOW CATALOGS", "(show-catalogs)");
    assert_parses_as("SHOW DATABASES", "(show-databases)");
    assert_parses_as("SHOW JOBS", "(show-jobs)");
    assert_parses_as("SHOW JOB METRICS", "(show-job-metrics)");
    assert_parses_as("SHOW CREATE TABLE db.t", "(show-create-table db.t)");
    assert_parses_as("SHOW CREATE VIEW v", "(show-create-view v)");
    assert_parses_as("SHOW COLUMNS FROM t", "(show-columns t)");
    assert_parses_as("show columns in db.t not like '%r'", "(show-columns db.t not-like '%r')");
    assert_parses_as("SHOW TABLES FROM default_database LIKE 'o%'",
                     "(show-tables default_database like 'o%')");
    assert_parses_as("SHOW DATABASES NOT ILIKE 'D%'", "(show-databases not-ilike 'D%')");
    assert_parses_as("SHOW USER FUNCTIONS", "(show-user-functions)");
    assert_parses_as("SHOW FUNCTIONS LIKE 'c%'", "(show-functions like 'c%')");
    assert_parses_as("SHOW CURRENT CATALOG", "(show-current-catalog)");
    assert_parses_as("show current database", "(show-current-database)");
    assert_parses_as("SHOW MODULES", "(show-modules)");
    assert_parses_as("SHOW FULL MODULES", "(show-full-modules)");
    assert_parses_as("SHOW JARS", "(show-jars)");
    assert_parses_as("EXPLAIN FORMAT DOT SELECT 1", "(explain format-dot (select 1))");
    assert_parses_as("DESCRIBE orders", "(describe orders)");
    assert_parses_as("DESC c.d.orders;", "(describe c.d.orders)");
    assert_parses_as("EXPLAIN PLAN FOR SELECT 1", "(explain (select 1))");
    assert_parses_as("EXPLAIN CHANGELOG_MODE, ESTIMATED_COST, PLAN_ADVICE, JSON_EXECUTION_PLAN "
                     "INSERT INTO t SELECT 1",
                     "(explain estimated-cost changelog-mode plan-advice json-execution-plan "
                     "(insert t (select 1)))");
    assert_parses_as("EXPLAIN PLAN_ADVICE WITH a AS (SELECT 1) SELECT * FROM a",
                     "(explain plan-advice (with (a (select 1)) (select * (from (table a)))))");
    assert_parses_as("HELP;", "(help)");
    assert_parses_as("QUIT", "(quit)");
    assert_parses_as("exit;", "(quit)");
    assert_parses_as("ANALYZE TABLE t COMPUTE STATISTICS", "(analyze t)");
    assert_parses_as("ANALYZE TABLE db.t COMPUTE STATISTICS FOR ALL COLUMNS;",
                     "(analyze db.t all-columns)");
    assert_parses_as("USE CATALOG default_catalog", "(use-catalog default_catalog)");
    assert_parses_as("USE default_database", "(use default_database)");
    assert_parses_as("USE catalog", "(use catalog)");
    Diag diag;
    AstStatement *statement = parse("  \n  SET 'a' = 'b'", &diag);
    ck_assert_int_eq(statement->kind, AST_STMT_SET);
    ck_assert_int_eq(statement->position.line, 2);
    ck_assert_int_eq(statement->position.column, 3);
    ck_assert_int_eq(statement->set.key_position.column, 7);
    statement = parse("EXPLAIN SELECT 1", &diag);
    ck_assert_int_eq(statement->explain.statement->kind, AST_STMT_QUERY);
    ck_assert_uint_eq(statement->explain.details, 0);
}
END_TEST

/* ---------------------------------------------------------------- types */

/* Dumps the type of "CREATE TABLE t (c <type>)". */
#define assert_type(type_text, expected)                                                           \
    assert_parses_as("CREATE TABLE t (c " type_text ")", "(create-table t (column c " expected ")" \
                                                         ")")

START_TEST(test_types)
{
    assert_type("BOOLEAN", "BOOLEAN");
    assert_type("TINYINT", "TINYINT");
    assert_type("SMALLINT", "SMALLINT");
    assert_type("INT", "INT");
    assert_type("integer", "INT");
    assert_type("BIGINT NOT NULL", "BIGINT NOT NULL");
    assert_type("FLOAT", "FLOAT");
    assert_type("REAL", "FLOAT");
    assert_type("DOUBLE", "DOUBLE");
    assert_type("DOUBLE PRECISION NULL", "DOUBLE");
    assert_type("DECIMAL", "DECIMAL(10, 0)");
    assert_type("DEC(5)", "DECIMAL(5, 0)");
    assert_type("NUMERIC(18, 4)", "DECIMAL(18, 4)");
    assert_type("CHAR", "CHAR(1)");
    assert_type("CHAR(3)", "CHAR(3)");
    assert_type("VARCHAR(20)", "VARCHAR(20)");
    assert_type("VARCHAR", "VARCHAR(1)");
    assert_type("STRING", "STRING");
    assert_type("DATE", "DATE");
    assert_type("TIME", "TIME(0)");
    assert_type("TIME(3) WITHOUT TIME ZONE", "TIME(3)");
    assert_type("TIMESTAMP", "TIMESTAMP(6)");
    assert_type("TIMESTAMP(3) WITHOUT TIME ZONE", "TIMESTAMP(3)");
    assert_type("TIMESTAMP(3) WITH LOCAL TIME ZONE", "TIMESTAMP_LTZ(3)");
    assert_type("TIMESTAMP WITH LOCAL TIME ZONE NOT NULL", "TIMESTAMP_LTZ(6) NOT NULL");
    assert_type("TIMESTAMP_LTZ", "TIMESTAMP_LTZ(6)");
    assert_type("TIMESTAMP_LTZ(0)", "TIMESTAMP_LTZ(0)");
    assert_type("BYTES", "BYTES");
    assert_type("BINARY", "BINARY(1)");
    assert_type("BINARY(16) NOT NULL", "BINARY(16) NOT NULL");
    assert_type("VARBINARY", "VARBINARY(1)");
    assert_type("VARBINARY(100)", "VARBINARY(100)");
    assert_type("MAP<STRING, BYTES>", "MAP<STRING, BYTES>");
    assert_type("MAP<INT NOT NULL, DECIMAL(10, 2)> NOT NULL",
                "MAP<INT NOT NULL, DECIMAL(10, 2)> NOT NULL");
    Diag diag;
    AstStatement *statement = parse("CREATE TABLE t (c DECIMAL(12, 3) NOT NULL)", &diag);
    AstColumnDef *column = statement->create_table.columns.items[0];
    ck_assert_int_eq(column->type.id, TYPE_DECIMAL);
    ck_assert_int_eq(column->type.precision, 12);
    ck_assert_int_eq(column->type.scale, 3);
    ck_assert(!column->type.nullable);
    statement = parse("CREATE TABLE t (c STRING)", &diag);
    column = statement->create_table.columns.items[0];
    ck_assert(column->type.nullable);
    ck_assert_int_eq(column->type.precision, TYPE_STRING_LENGTH);

    assert_type("ARRAY<INT>", "ARRAY<INT>");
    assert_type("ARRAY<INT NOT NULL> NOT NULL", "ARRAY<INT NOT NULL> NOT NULL");
    assert_type("MULTISET<STRING>", "MULTISET<STRING>");
    assert_type("ROW<a INT, `b c` STRING NOT NULL>", "ROW<`a` INT, `b c` STRING NOT NULL>");
    assert_type("ROW(a INT, b ARRAY<ROW<c DOUBLE>>)", "ROW<`a` INT, `b` ARRAY<ROW<`c` DOUBLE>>>");
    assert_type("MAP<STRING, ARRAY<INT>>", "MAP<STRING, ARRAY<INT>>");
    assert_fails("CREATE TABLE t (\n  c RAW<INT>)", JOINERY_ERROR_UNSUPPORTED, 2, 5,
                 "type RAW is not supported yet");
    assert_fails("CREATE TABLE t (c ROW<a INT, a STRING>)", JOINERY_ERROR_PARSE, 1, 30,
                 "Field names must be unique. Found duplicates: [a]");
    assert_fails("CREATE TABLE t (c ARRAY<INT)", JOINERY_ERROR_PARSE, 1, 28,
                 "Syntax error: unexpected ')'; expected NULL or '>'");
    assert_fails("CREATE TABLE t (c MAP<STRING, MAP<STRING, INT>>)", JOINERY_ERROR_UNSUPPORTED, 1,
                 31, "a MAP inside a MAP is not supported yet");
    assert_fails("CREATE TABLE t (c MAP<STRING>)", JOINERY_ERROR_PARSE, 1, 29,
                 "Syntax error: unexpected '>'; expected NULL or ','");
    assert_fails("CREATE TABLE t (c DECIMAL(19, 2))", JOINERY_ERROR_UNSUPPORTED, 1, 27,
                 "DECIMAL precision above 18 is not supported yet");
    assert_fails("CREATE TABLE t (c DECIMAL(39))", JOINERY_ERROR_PARSE, 1, 27,
                 "Syntax error: DECIMAL precision must be between 1 and 38");
    assert_fails("CREATE TABLE t (c DECIMAL(5, 6))", JOINERY_ERROR_PARSE, 1, 30,
                 "Syntax error: DECIMAL scale must not exceed its precision");
    assert_fails("CREATE TABLE t (c TIMESTAMP(10))", JOINERY_ERROR_PARSE, 1, 29,
                 "Syntax error: time precision must be between 0 and 9");
    assert_fails("CREATE TABLE t (c VARCHAR(0))", JOINERY_ERROR_PARSE, 1, 27,
                 "Syntax error: length must be at least 1");
    assert_fails("CREATE TABLE t (c TIMESTAMP WITH TIME ZONE)", JOINERY_ERROR_UNSUPPORTED, 1, 29,
                 "type WITH TIME ZONE is not supported yet");
    assert_fails("CREATE TABLE t (c FOO)", JOINERY_ERROR_PARSE, 1, 19,
                 "Syntax error: unknown type 'FOO'");
    assert_fails("CREATE TABLE t (c YEAR)", JOINERY_ERROR_PARSE, 1, 19,
                 "Syntax error: unknown type 'YEAR'");
    assert_fails("CREATE TABLE t (c SELECT)", JOINERY_ERROR_PARSE, 1, 19,
                 "Syntax error: unexpected 'SELECT'; expected AS or type");
    assert_parses_as("SELECT CAST(a AS VARCHAR(5)), CAST(b AS TIMESTAMP(3)), TRY_CAST(c AS DOUBLE)",
                     "(select (cast a VARCHAR(5)) (cast b TIMESTAMP(3)) (try_cast c DOUBLE))");
}
END_TEST

/* ---------------------------------------------------------------- expressions */

START_TEST(test_precedence)
{
    assert_expression("1 + 2 * 3", "(+ 1 (* 2 3))");
    assert_expression("(1 + 2) * 3", "(* (+ 1 2) 3)");
    assert_expression("1 - 2 - 3", "(- (- 1 2) 3)");
    assert_expression("a / b % c", "(% (/ a b) c)");
    assert_expression("-a * b", "(* (- a) b)");
    assert_expression("+a - -b", "(- (+ a) (- b))");
    assert_expression("a || b + c", "(+ (|| a b) c)");
    assert_expression("a OR b AND c", "(OR a (AND b c))");
    assert_expression("a AND b OR c AND d", "(OR (AND a b) (AND c d))");
    assert_expression("NOT a AND b", "(AND (NOT a) b)");
    assert_expression("NOT a = b", "(NOT (= a b))");
    assert_expression("NOT NOT a", "(NOT (NOT a))");
    assert_expression("a = b + 1", "(= a (+ b 1))");
    assert_expression("a < b = c", "(= (< a b) c)");
    assert_expression("a <> b AND c != d AND e <= f AND g >= h",
                      "(AND (AND (AND (<> a b) (<> c d)) (<= e f)) (>= g h))");
    assert_expression("a BETWEEN 1 AND 2 AND b", "(AND (between a 1 2) b)");
    assert_expression("a NOT BETWEEN b + 1 AND c * 2", "(not-between a (+ b 1) (* c 2))");
    assert_expression("a BETWEEN SYMMETRIC 1 AND 2", "(between-symmetric a 1 2)");
    assert_expression("a BETWEEN ASYMMETRIC 1 AND 2", "(between a 1 2)");
    assert_expression("a + 1 IS NULL", "(is-null (+ a 1))");
    assert_expression("a IS NOT NULL OR b IS NULL", "(OR (is-not-null a) (is-null b))");
    assert_expression("a IS TRUE AND b IS NOT FALSE AND c IS UNKNOWN",
                      "(AND (AND (is-true a) (is-not-false b)) (is-unknown c))");
    assert_expression("a IS DISTINCT FROM b", "(is-distinct a b)");
    assert_expression("a IS NOT DISTINCT FROM b + 1", "(is-not-distinct a (+ b 1))");
    assert_expression("a IN (1, 2, 3)", "(in a 1 2 3)");
    assert_expression("a NOT IN ('x')", "(not-in a 'x')");
    assert_expression("a IN (SELECT b FROM t)", "(in a (subquery (select b (from (table t)))))");
    assert_expression("NOT EXISTS (SELECT b FROM t)", "(NOT (exists (select b (from (table t)))))");
    assert_expression("a LIKE 'x%'", "(like a 'x%')");
    assert_expression("a NOT LIKE 'x!%' ESCAPE '!'", "(not-like a 'x!%' (escape '!'))");
    assert_expression("NOT a LIKE b", "(NOT (like a b))");
}
END_TEST

START_TEST(test_primaries)
{
    assert_expression("NULL, TRUE, false", "NULL TRUE FALSE");
    assert_expression("42, 12.50, 1.5E3, .5", "42 12.50 1.5E3 .5");
    assert_expression("9223372036854775807, 9223372036854775808, 000009223372036854775807",
                      "9223372036854775807 9223372036854775808!overflow 000009223372036854775807");
    assert_expression("'it''s'", "'it''s'");
    assert_expression("DATE '2024-01-01', TIME '10:00:00', TIMESTAMP '2024-01-01 10:00:00'",
                      "(date '2024-01-01') (time '10:00:00') (timestamp '2024-01-01 10:00:00')");
    assert_expression("a, t.a, c.d.t.a, `quoted name`, `t`.`select`",
                      "a t.a c.d.t.a quoted name t.select");
    assert_expression("*", "*");
    assert_expression("t.*, db.t.*", "t.* db.t.*");
    assert_expression("COUNT(*), count(DISTINCT x), SUM(ALL y), f(), g(1, 'a', h(b))",
                      "(call COUNT *) (call count distinct x) (call SUM y) (call f) (call g 1 'a' "
                      "(call h b))");
    assert_expression("CURRENT_TIMESTAMP, CURRENT_DATE, CURRENT_TIME, LOCALTIMESTAMP, "
                      "CURRENT_ROW_TIMESTAMP(), current_row_timestamp",
                      "(call CURRENT_TIMESTAMP) (call CURRENT_DATE) (call CURRENT_TIME) (call "
                      "LOCALTIMESTAMP) (call CURRENT_ROW_TIMESTAMP) (call current_row_timestamp)");
    assert_expression(
        "PROCTIME(), LEFT(s, 2), RIGHT(s, 1), IF(a, 1, 2), ROW(a, b)",
        "(call PROCTIME) (call LEFT s 2) (call RIGHT s 1) (call IF a 1 2) (call ROW a "
        "b)");
    assert_expression("CAST(a AS INT), TRY_CAST(b AS DECIMAL(5, 2) NOT NULL)",
                      "(cast a INT) (try_cast b DECIMAL(5, 2) NOT NULL)");
    assert_expression("CASE WHEN a > 1 THEN 'x' WHEN a > 0 THEN 'y' ELSE 'z' END",
                      "(case (when (> a 1) 'x') (when (> a 0) 'y') (else 'z'))");
    assert_expression("CASE a WHEN 1 THEN 2 END", "(case a (when 1 2))");
    assert_expression(
        "INTERVAL '5' SECOND, INTERVAL '5' SECONDS, INTERVAL '10' MINUTE, INTERVAL "
        "'1' HOUR, INTERVAL '2' DAY, INTERVAL '1' YEAR, INTERVAL '3' MONTH",
        "(interval '5' SECOND) (interval '5' SECOND) (interval '10' MINUTE) (interval "
        "'1' HOUR) (interval '2' DAY) (interval '1' YEAR) (interval '3' MONTH)");
    assert_expression(
        "INTERVAL '1 02:00' DAY TO MINUTE, INTERVAL '1-2' YEAR TO MONTH, INTERVAL -'5' "
        "MINUTES, INTERVAL '10' SECOND(3), INTERVAL '5' HOURS, INTERVAL '5' DAYS",
        "(interval '1 02:00' DAY TO MINUTE) (interval '1-2' YEAR TO MONTH) (interval "
        "-'5' MINUTE) (interval '10' SECOND) (interval '5' HOUR) (interval '5' DAY)");
    assert_expression("(SELECT MAX(a) FROM t)",
                      "(subquery (select (call MAX a) (from (table t))))");
    assert_expression("TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '1' MINUTE)",
                      "(call TUMBLE (table orders) (call DESCRIPTOR ts) (interval '1' MINUTE))");
    assert_expression("value, name, data, type, status, comment, count, year, key, `timestamp`",
                      "value name data type status comment count year key timestamp");
}
END_TEST

START_TEST(test_expression_source_text)
{
    Diag diag;
    AstStatement *statement =
        parse("SELECT  (a + b) * c AS x,\n  f(1, 2)   , 'it''s' FROM t", &diag);
    AstSelectItem *item = statement->query->select.items.items[0];
    ck_assert_int_eq(item->position.column, 9);
    AstExpr *expr = item->expr;
    ck_assert_int_eq(expr->kind, AST_EXPR_BINARY);
    ck_assert_uint_eq(expr->source_length, strlen("(a + b) * c"));
    ck_assert(strncmp(expr->source_text, "(a + b) * c", expr->source_length) == 0);
    ck_assert_int_eq(expr->position.line, 1);
    ck_assert_int_eq(expr->position.column, 9);
    AstExpr *right = expr->binary.right;
    ck_assert_int_eq(right->position.column, 19);
    ck_assert_uint_eq(right->source_length, 1);
    AstExpr *call = ((AstSelectItem *)statement->query->select.items.items[1])->expr;
    ck_assert_int_eq(call->position.line, 2);
    ck_assert_int_eq(call->position.column, 3);
    ck_assert_uint_eq(call->source_length, strlen("f(1, 2)"));
    AstExpr *text = ((AstSelectItem *)statement->query->select.items.items[2])->expr;
    ck_assert_uint_eq(text->source_length, strlen("'it''s'"));
    ck_assert_str_eq(text->literal.text, "it's");
    statement = parse("SELECT t.a FROM t", &diag);
    AstExpr *column = ((AstSelectItem *)statement->query->select.items.items[0])->expr;
    ck_assert_str_eq(column->column.qualifier, "t");
    ck_assert_str_eq(column->column.name, "a");
    ck_assert_int_eq(column->column.name_position.column, 10);
    ck_assert_uint_eq(column->source_length, 3);
}
END_TEST

/* ---------------------------------------------------------------- hints */

START_TEST(test_hints)
{
    assert_parses_as("SELECT /*+ MULTI_JOIN(t1, t2), state_ttl('t1' = '1d') */ * FROM t1",
                     "(select (hint MULTI_JOIN t1 t2) (hint STATE_TTL ('t1' '1d')) * (from (table "
                     "t1)))");
    assert_parses_as(
        "SELECT * FROM orders /*+ OPTIONS('scan.startup.mode' = 'latest-offset') */ AS "
        "o JOIN p /*+ OPTIONS('a'='b') */ ON TRUE",
        "(select * (from (inner-join (table orders (as o) (hint OPTIONS "
        "('scan.startup.mode' 'latest-offset'))) (table p (hint OPTIONS ('a' 'b'))) (on "
        "TRUE))))");
    assert_parses_as("SELECT /*+ BROADCAST */ /*+ SHUFFLE_HASH(db.t) */ 1",
                     "(select (hint BROADCAST) (hint SHUFFLE_HASH db.t) 1)");
    assert_parses_as("SELECT /*+ NO_ARGS() */ 1", "(select (hint NO_ARGS) 1)");
    /* a hint comment elsewhere is ignored like a comment */
    assert_parses_as("/*+ IGNORED */ SELECT 1 /*+ ALSO(x) */", "(select 1)");
    Diag diag;
    AstStatement *statement = parse("SELECT\n  /*+ STATE_TTL('o' = '1d') */ 1", &diag);
    AstHint *hint = statement->query->select.hints.items[0];
    ck_assert_int_eq(hint->position.line, 2);
    ck_assert_int_eq(hint->position.column, 7);
    AstOption *option = hint->options.items[0];
    ck_assert_int_eq(option->position.column, 17);
    ck_assert_int_eq(option->value_position.column, 23);
    assert_fails("SELECT\n  /*+ STATE_TTL('o' = ) */ 1", JOINERY_ERROR_PARSE, 2, 23,
                 "Syntax error: unexpected ')'; expected option value string");
    assert_fails("SELECT /*+ */ 1", JOINERY_ERROR_PARSE, 1, 12,
                 "Syntax error: unexpected end of statement; expected hint name");
    assert_fails("SELECT /*+ A B */ 1", JOINERY_ERROR_PARSE, 1, 14,
                 "Syntax error: unexpected 'B'; expected '(', ',' or end of hint");
    assert_fails("SELECT /*+ A('x) */ 1", JOINERY_ERROR_PARSE, 1, 14,
                 "Syntax error: unterminated string literal");
}
END_TEST

/* ---------------------------------------------------------------- errors */

START_TEST(test_error_messages)
{
    assert_fails("SELECT a FROM t WHERE", JOINERY_ERROR_PARSE, 1, 22,
                 "Syntax error: unexpected end of statement; expected expression");
    assert_fails("SELECT a b c", JOINERY_ERROR_PARSE, 1, 12,
                 "Syntax error: unexpected 'c'; expected ',', FROM, WHERE, GROUP, HAVING, UNION, "
                 "ORDER, LIMIT or end of statement");
    assert_fails("SELECT 'abc", JOINERY_ERROR_PARSE, 1, 8,
                 "Syntax error: unterminated string literal");
    assert_fails("SELECT (a + b FROM t", JOINERY_ERROR_PARSE, 1, 15,
                 "Syntax error: unexpected 'FROM'; expected ')'");
    assert_fails("SELECT f(a, b FROM t", JOINERY_ERROR_PARSE, 1, 15,
                 "Syntax error: unexpected 'FROM'; expected ',' or ')'");
    assert_fails("SELECT 1; SELECT 2", JOINERY_ERROR_PARSE, 1, 11,
                 "Syntax error: unexpected 'SELECT'; expected end of statement");
    assert_fails(
        "SELECT 1 garbage more", JOINERY_ERROR_PARSE, 1, 18,
        "Syntax error: unexpected 'more'; expected ',', FROM, WHERE, GROUP, HAVING, UNION, "
        "ORDER, LIMIT or end of statement");
    assert_fails("SELEC 1", JOINERY_ERROR_PARSE, 1, 1,
                 "Syntax error: unexpected 'SELEC'; expected SELECT, INSERT, CREATE, DROP, SET, "
                 "RESET, SHOW, DESCRIBE, EXPLAIN, USE, WITH or VALUES");
    assert_fails("", JOINERY_ERROR_PARSE, 1, 1, "Syntax error: empty statement");
    assert_fails("  -- only a comment\n ;", JOINERY_ERROR_PARSE, 2, 2,
                 "Syntax error: empty statement");
    assert_fails("SELECT * FROM a JOIN b", JOINERY_ERROR_PARSE, 1, 23,
                 "Syntax error: unexpected end of statement; expected AS, alias, ON or USING");
    assert_fails("SELECT * FROM a NATURAL b", JOINERY_ERROR_PARSE, 1, 25,
                 "Syntax error: unexpected 'b'; expected JOIN");
    assert_fails("SELECT * FROM", JOINERY_ERROR_PARSE, 1, 14,
                 "Syntax error: unexpected end of statement; expected table name");
    assert_parses_as("SELECT a.b.c.d.e FROM t", "(select a.b.c.d.e (from (table t)))");
    assert_fails("SELECT a. FROM t", JOINERY_ERROR_PARSE, 1, 11,
                 "Syntax error: unexpected 'FROM'; expected '*' or column name");
    assert_fails("SELECT * FROM a.b.c.d", JOINERY_ERROR_PARSE, 1, 19,
                 "Syntax error: a name has at most 3 parts");
    assert_fails("SELECT CASE WHEN a THEN 1", JOINERY_ERROR_PARSE, 1, 26,
                 "Syntax error: unexpected end of statement; expected WHEN, ELSE or END");
    assert_fails("SELECT a IS b", JOINERY_ERROR_PARSE, 1, 13,
                 "Syntax error: unexpected 'b'; expected NOT, NULL, DISTINCT, TRUE, FALSE or "
                 "UNKNOWN");
    assert_fails("SELECT INTERVAL '5' WEEKS", JOINERY_ERROR_PARSE, 1, 21,
                 "Syntax error: unexpected 'WEEKS'; expected YEAR, MONTH, DAY, HOUR, MINUTE or "
                 "SECOND");
    assert_fails("SELECT INTERVAL 5 SECOND", JOINERY_ERROR_PARSE, 1, 17,
                 "Syntax error: unexpected '5'; expected '-', '+' or interval string");
    assert_fails("SELECT SUM(a) OVER (ORDER BY a ROWS 2) FROM t", JOINERY_ERROR_PARSE, 1, 38,
                 "Syntax error: unexpected ')'; expected PRECEDING or FOLLOWING");
    assert_fails("SELECT SUM(a) OVER (ORDER BY a ROWS UNBOUNDED ROW) FROM t", JOINERY_ERROR_PARSE,
                 1, 47, "Syntax error: unexpected 'ROW'; expected PRECEDING or FOLLOWING");
    assert_fails("SELECT * FROM TABLE(a + 1)", JOINERY_ERROR_PARSE, 1, 21,
                 "Syntax error: TABLE(...) expects a function call");
    assert_fails("CREATE FUNCTION f AS 'x' USING JAR", JOINERY_ERROR_PARSE, 1, 35,
                 "Syntax error: unexpected end of statement; expected library path string");
    assert_fails("CREATE FUNCTION f AS x", JOINERY_ERROR_PARSE, 1, 22,
                 "Syntax error: unexpected 'x'; expected function identifier string");
    assert_fails("DROP TEMPORARY SYSTEM VIEW v", JOINERY_ERROR_PARSE, 1, 23,
                 "Syntax error: unexpected 'VIEW'; expected FUNCTION");
    assert_fails("SELECT * FROM t CROSS JOIN UNNEST(a, b) AS u(x, y)", JOINERY_ERROR_UNSUPPORTED, 1,
                 28, "UNNEST takes one ARRAY, MULTISET or MAP argument");
    assert_fails("ALTER TABLE t RENAME TO u", JOINERY_ERROR_UNSUPPORTED, 1, 1,
                 "ALTER TABLE is not supported yet");
    assert_fails("SHOW COLUMNS t", JOINERY_ERROR_PARSE, 1, 14,
                 "Syntax error: unexpected 't'; expected FROM or IN");
    assert_fails("SHOW COLUMNS FROM t LIKE", JOINERY_ERROR_PARSE, 1, 25,
                 "Syntax error: unexpected end of statement; expected pattern");
    assert_fails("SHOW STUFF", JOINERY_ERROR_PARSE, 1, 6,
                 "Syntax error: unexpected 'STUFF'; expected TABLES, VIEWS, FUNCTIONS, CATALOGS, "
                 "DATABASES, COLUMNS, CURRENT, MODULES, JARS, JOBS, JOB or CREATE");
    assert_fails("EXPLAIN DROP TABLE t", JOINERY_ERROR_PARSE, 1, 9,
                 "Syntax error: unexpected 'DROP'; expected PLAN, ESTIMATED_COST, CHANGELOG_MODE, "
                 "PLAN_ADVICE, JSON_EXECUTION_PLAN, SELECT or INSERT");
    assert_fails("SET 'k' 'v'", JOINERY_ERROR_PARSE, 1, 9,
                 "Syntax error: unexpected ''v''; expected '='");
    assert_fails("SET 'k' =", JOINERY_ERROR_PARSE, 1, 10,
                 "Syntax error: unexpected end of statement; expected value");
    assert_fails("SELECT `timestamp`, timestamp FROM t", JOINERY_ERROR_PARSE, 1, 21,
                 "Syntax error: unexpected 'timestamp'; expected expression");
    assert_fails("SELECT select", JOINERY_ERROR_PARSE, 1, 8,
                 "Syntax error: unexpected 'select'; expected DISTINCT, ALL or expression");
    assert_fails("SELECT 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' x y",
                 JOINERY_ERROR_PARSE, 1, 71,
                 "Syntax error: unexpected 'y'; expected ',', FROM, WHERE, GROUP, HAVING, UNION, "
                 "ORDER, LIMIT or end of statement");
    assert_fails("SELECT 1 x 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'",
                 JOINERY_ERROR_PARSE, 1, 12,
                 "Syntax error: unexpected ''aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...'; expected "
                 "',', FROM, WHERE, GROUP, HAVING, UNION, ORDER, LIMIT or end of statement");
}
END_TEST

START_TEST(test_error_positions)
{
    /* multi-line statement: line and column of the offending token */
    assert_fails("SELECT a,\n       b\n  FORM t\n WHERE x", JOINERY_ERROR_PARSE, 3, 8,
                 "Syntax error: unexpected 't'; expected ',', FROM, WHERE, GROUP, HAVING, UNION, "
                 "ORDER, LIMIT or end of statement");
    assert_fails("SELECT a\nFROM t\nWHERE a = 'never\nclosed", JOINERY_ERROR_PARSE, 3, 11,
                 "Syntax error: unterminated string literal");
    assert_fails("SELECT a /* open\n comment", JOINERY_ERROR_PARSE, 1, 10,
                 "Syntax error: unterminated comment");
    /* a syntax error before a lexical error is reported first */
    assert_fails("SELECT , 'open", JOINERY_ERROR_PARSE, 1, 8,
                 "Syntax error: unexpected ','; expected DISTINCT, ALL or expression");

    /* the statement starts at line 5, column 10 of the script */
    const char *sql = "SELECT a\n  FROM t WHERE (a = 1";
    Diag diag;
    AstStatement *statement = NULL;
    diag_clear(&diag);
    int status = sql_parse_statement(sql, strlen(sql), 5, 10, &test_arena, &statement, &diag);
    ck_assert_int_eq(status, JOINERY_ERROR_PARSE);
    ck_assert_ptr_null(statement);
    ck_assert_int_eq(diag.line, 6);
    ck_assert_int_eq(diag.column, 22);
    ck_assert_str_eq(diag.message, "Syntax error: unexpected end of statement; expected ')'");
    diag_clear(&diag);
    status = sql_parse_statement("SELECT 'x", 9, 3, 20, &test_arena, &statement, &diag);
    ck_assert_int_eq(diag.line, 3);
    ck_assert_int_eq(diag.column, 27);
    /* positions of a successful parse follow the offset too */
    diag_clear(&diag);
    status = sql_parse_statement("SELECT a,\n b FROM t", 19, 7, 4, &test_arena, &statement, &diag);
    ck_assert_int_eq(status, JOINERY_OK);
    ck_assert_int_eq(statement->position.line, 7);
    ck_assert_int_eq(statement->position.column, 4);
    AstSelectItem *first = statement->query->select.items.items[0];
    ck_assert_int_eq(first->position.column, 11);
    AstSelectItem *second = statement->query->select.items.items[1];
    ck_assert_int_eq(second->position.line, 8);
    ck_assert_int_eq(second->position.column, 2);
    /* only `length` bytes are parsed */
    diag_clear(&diag);
    status = sql_parse_statement("SELECT 1; garbage", 9, 1, 1, &test_arena, &statement, &diag);
    ck_assert_int_eq(status, JOINERY_OK);
}
END_TEST

START_TEST(test_deep_nesting)
{
    enum { DEPTH = 5000 };
    char *sql = malloc(DEPTH * 2 + 16);
    ck_assert_ptr_nonnull(sql);
    strcpy(sql, "SELECT ");
    size_t used = strlen(sql);
    for (int i = 0; i < DEPTH; i++)
        sql[used++] = '(';
    sql[used++] = '1';
    for (int i = 0; i < DEPTH; i++)
        sql[used++] = ')';
    sql[used] = '\0';
    Diag diag;
    ck_assert_ptr_null(parse(sql, &diag));
    ck_assert_str_eq(diag.message, "Syntax error: statement nests too deeply");
    strcpy(sql, "SELECT ");
    used = strlen(sql);
    for (int i = 0; i < DEPTH; i++) {
        sql[used++] = '-';
        sql[used++] = ' ';
    }
    sql[used++] = '1';
    sql[used] = '\0';
    ck_assert_ptr_null(parse(sql, &diag));
    ck_assert_str_eq(diag.message, "Syntax error: statement nests too deeply");
    free(sql);
    assert_expression("((((1))))", "1");
}
END_TEST

/* Builds prefix x count, middle, suffix x count into a new string (the caller frees). */
static char *repeat_around(const char *prefix, const char *middle, const char *suffix, int count)
{
    size_t size = (strlen(prefix) + strlen(suffix)) * (size_t)count + strlen(middle) + 16;
    char *sql = malloc(size);
    ck_assert_ptr_nonnull(sql);
    strcpy(sql, "SELECT ");
    for (int i = 0; i < count; i++)
        strcat(sql, prefix);
    strcat(sql, middle);
    for (int i = 0; i < count; i++)
        strcat(sql, suffix);
    return sql;
}

/*
 * The readings the parser retries (a parenthesised FROM item, POSITION, SUBSTRING)
 * nest without redoing the inner levels: at 60 levels a retry that redid them would
 * take 2^60 steps, so these finish only if the work is replayed (hang guard: the
 * suite's timeout). The first is the fuzz finding that took two minutes at 15 levels.
 */
START_TEST(test_backtracking_is_not_exponential)
{
    Diag diag;
    char *sql = repeat_around("(", "SELECT x FROM (((t", "", 60);
    memmove(sql, sql + strlen("SELECT "), strlen(sql) - strlen("SELECT ") + 1);
    char *statement = malloc(strlen(sql) + 32);
    ck_assert_ptr_nonnull(statement);
    sprintf(statement, "SELECT 1 FROM %s", sql);
    ck_assert_ptr_null(parse(statement, &diag));
    ck_assert_msg(strstr(diag.message, "Syntax error: unexpected end of statement") != NULL, "%s",
                  diag.message);
    free(statement);
    free(sql);
    sql = repeat_around("POSITION(", "'a'", ", 'b')", 60);
    ck_assert_ptr_nonnull(parse(sql, &diag));
    free(sql);
    sql = repeat_around("SUBSTRING(", "'abc'", ", 1)", 60);
    ck_assert_ptr_nonnull(parse(sql, &diag));
    free(sql);
    sql = repeat_around("SUBSTRING(", "'abc'", " FROM 1 FOR 2)", 60);
    ck_assert_ptr_nonnull(parse(sql, &diag));
    free(sql);
    assert_expression("POSITION(POSITION('a', 'b') IN 'c')",
                      "(call POSITION (call POSITION 'a' 'b') 'c')");
}
END_TEST

START_TEST(test_keywords_list)
{
    const char *const *keywords = sql_keywords();
    size_t count = 0;
    bool has_select = false, has_watermark = false;
    for (; keywords[count]; count++) {
        for (const char *c = keywords[count]; *c; c++)
            ck_assert(!(*c >= 'a' && *c <= 'z'));
        has_select |= strcmp(keywords[count], "SELECT") == 0;
        has_watermark |= strcmp(keywords[count], "WATERMARK") == 0;
    }
    ck_assert(count > 100);
    ck_assert(has_select && has_watermark);
}
END_TEST

/* ---------------------------------------------------------------- fuzz */

/* Parses every prefix of text in a fresh arena; only crashes, hangs and leaks can fail this. */
static void parse_prefixes(const char *text)
{
    size_t length = strlen(text);
    for (size_t prefix = 0; prefix <= length; prefix++) {
        char *copy = malloc(prefix ? prefix : 1); /* exact size: valgrind sees over-reads */
        memcpy(copy, text, prefix);
        Arena arena;
        arena_init(&arena, 4096);
        AstStatement *statement = NULL;
        Diag diag;
        diag_clear(&diag);
        int status = sql_parse_statement(copy, prefix, 1, 1, &arena, &statement, &diag);
        if (status == JOINERY_OK) {
            StrBuf out = STRBUF_INIT;
            ck_assert_int_eq(ast_print_statement(statement, &out), 0);
            strbuf_free(&out);
        } else {
            ck_assert(diag.message[0] != '\0');
            ck_assert(diag.line >= 1 && diag.column >= 1);
        }
        arena_destroy(&arena);
        free(copy);
    }
}

START_TEST(test_fuzz_prefixes)
{
    for (size_t i = 0; i < sizeof SEEDS / sizeof SEEDS[0]; i++)
        parse_prefixes(SEEDS[i]);
    for (size_t i = 0; i < sizeof SEED_EXTRAS / sizeof SEED_EXTRAS[0]; i++)
        parse_prefixes(SEED_EXTRAS[i]);
    parse_prefixes(
        "CREATE TEMPORARY TABLE IF NOT EXISTS t (a INT NOT NULL PRIMARY KEY NOT ENFORCED "
        "COMMENT 'x', b AS a + 1, c TIMESTAMP(3) WITH LOCAL TIME ZONE METADATA FROM 'k' "
        "VIRTUAL, CONSTRAINT p PRIMARY KEY (a) NOT ENFORCED) COMMENT 'c' PARTITIONED BY "
        "(a) WITH ('a' = 'b') LIKE s (INCLUDING ALL)");
    parse_prefixes(
        "WITH w (x) AS (SELECT DISTINCT CASE a WHEN 1 THEN CAST(b AS DECIMAL(5, 2)) ELSE "
        "TRY_CAST(c AS INT) END FROM t /*+ OPTIONS('k'='v') */ AS u (a) WHERE a NOT "
        "BETWEEN SYMMETRIC 1 AND 2 OR b NOT IN (1, 2) AND c NOT LIKE 'x' ESCAPE 'y' AND d "
        "IS NOT DISTINCT FROM e AND f IS NOT TRUE) SELECT * FROM w UNION ALL VALUES (1) "
        "ORDER BY 1 DESC NULLS FIRST LIMIT 5;");
    parse_prefixes("EXPLAIN ESTIMATED_COST, CHANGELOG_MODE INSERT OVERWRITE c.d.t (a) SELECT "
                   "INTERVAL -'1 02:00' DAY TO MINUTE, DATE '2024-01-01', `q`.* FROM a NATURAL "
                   "LEFT OUTER JOIN b USING (x) CROSS JOIN LATERAL TABLE(f(1)) AS z(y), (SELECT 1) "
                   "s;");
    parse_prefixes("SET table.exec.mini-batch.enabled = true; -- trailing comment");
}
END_TEST

START_TEST(test_fuzz_random_bytes)
{
    /* deterministic pseudo-random statements from a small alphabet of fragments and bytes */
    static const char *const FRAGMENTS[] = {
        "SELECT ",  "FROM ",    "WHERE ",
        "(",        ")",        ",",
        "'",        "`",        "a",
        "1",        ".",        "*",
        "/*+ ",     "*/",       "/*",
        "--",       "\n",       "JOIN ",
        "ON ",      "AND ",     "NOT ",
        "IN ",      "BETWEEN ", "CASE ",
        "WHEN ",    "END ",     "CAST(",
        " AS ",     "INT",      "INTERVAL ",
        "'5' ",     "SECOND",   "CREATE TABLE ",
        "WITH ",    "=",        ";",
        "\xc3\xa9", "\xff",     "TABLE(",
        "OPTIONS(", "IS ",      "NULL ",
        "-",        "||",       "e",
    };
    unsigned state = 12345;
    char buffer[256];
    for (int round = 0; round < 4000; round++) {
        size_t used = 0;
        int pieces = 1 + (int)(state % 24);
        for (int i = 0; i < pieces; i++) {
            state = state * 1103515245u + 12345u;
            const char *fragment =
                FRAGMENTS[(state >> 16) % (sizeof FRAGMENTS / sizeof FRAGMENTS[0])];
            size_t length = strlen(fragment);
            if (used + length >= sizeof buffer)
                break;
            memcpy(buffer + used, fragment, length);
            used += length;
        }
        state = state * 1103515245u + 12345u;
        if (state % 7 == 0 && used > 0)
            buffer[(state >> 8) % used] = (char)(state >> 20);
        char *copy = malloc(used ? used : 1);
        memcpy(copy, buffer, used);
        Arena arena;
        arena_init(&arena, 4096);
        AstStatement *statement = NULL;
        Diag diag;
        diag_clear(&diag);
        int status = sql_parse_statement(copy, used, 1, 1, &arena, &statement, &diag);
        if (status == JOINERY_OK) {
            StrBuf out = STRBUF_INIT;
            ast_print_statement(statement, &out);
            strbuf_free(&out);
        } else {
            ck_assert(diag.message[0] != '\0');
        }
        arena_destroy(&arena);
        free(copy);
    }
}
END_TEST

static Suite *parser_suite(void)
{
    Suite *suite = suite_create("parser");
    TCase *core = tcase_create("core");
    tcase_add_checked_fixture(core, setup, teardown);
    tcase_add_test(core, test_seed_statements);
    tcase_add_test(core, test_seed_extras);
    tcase_add_test(core, test_query_statements);
    tcase_add_test(core, test_joins);
    tcase_add_test(core, test_insert);
    tcase_add_test(core, test_create_table);
    tcase_add_test(core, test_create_view);
    tcase_add_test(core, test_other_statements);
    tcase_add_test(core, test_types);
    tcase_add_test(core, test_precedence);
    tcase_add_test(core, test_primaries);
    tcase_add_test(core, test_expression_source_text);
    tcase_add_test(core, test_hints);
    tcase_add_test(core, test_error_messages);
    tcase_add_test(core, test_error_positions);
    tcase_add_test(core, test_deep_nesting);
    tcase_add_test(core, test_backtracking_is_not_exponential);
    tcase_add_test(core, test_keywords_list);
    suite_add_tcase(suite, core);
    TCase *fuzz = tcase_create("fuzz");
    tcase_set_timeout(fuzz, 120);
    tcase_add_test(fuzz, test_fuzz_prefixes);
    tcase_add_test(fuzz, test_fuzz_random_bytes);
    suite_add_tcase(suite, fuzz);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(parser_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
