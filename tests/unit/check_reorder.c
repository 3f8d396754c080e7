/*
 * check_reorder.c - Check suite for cost-based join reordering
 * (engine/plan/rules/reorder_joins.c, engine/plan/cost.c) and ANALYZE TABLE
 * (engine/stmt/analyze.c).
 *
 * - The cost model on hand-built graphs: the state-lean order of a huge
 *   fact table and small dimensions wins, longer TTLs weigh more, with
 *   MultiJoin on an order that puts same-key joins next to each other
 *   wins (and ties without it), cross products are counted.
 * - The planner through the engine API over small JSON files in a fresh
 *   temporary directory: the order EXPLAIN shows (selective inputs first,
 *   no cross product, same-key joins fused), every condition kept, and the
 *   result columns unchanged.
 * - Results: queries run with reordering off and on (and with MultiJoin)
 *   must give identical final materialized rows (+I/+U add a row, -U/-D
 *   remove one) and identical column names.
 * - ANALYZE: exact row, distinct and null counts of a small file; an
 *   unbounded datagen table is sampled. No assertion depends on time.
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/base/strbuf.h"
#include "engine/engine.h"
#include "engine/plan/cost.h"

/* ---- harness: a session over JSON files in a temporary directory ---- */

typedef struct Capture {
    StrBuf text; /* EXPLAIN output and [INFO] lines */
    char **rows; /* materialized result rows ("a|b|c"), unsorted */
    size_t row_count;
    size_t row_capacity;
    StrBuf columns; /* column names of the last result, "a,b,c" */
} Capture;

static char directory[256];

static void capture_reset(Capture *capture)
{
    strbuf_clear(&capture->text);
    strbuf_clear(&capture->columns);
    for (size_t i = 0; i < capture->row_count; i++)
        free(capture->rows[i]);
    capture->row_count = 0;
}

static void capture_free(Capture *capture)
{
    capture_reset(capture);
    free(capture->rows);
    strbuf_free(&capture->text);
    strbuf_free(&capture->columns);
}

static int capture_begin(void *context, JoineryResultKind kind, const JoineryColumn *columns,
                         size_t column_count)
{
    (void)kind;
    Capture *capture = context;
    strbuf_clear(&capture->columns);
    for (size_t i = 0; i < column_count; i++)
        strbuf_printf(&capture->columns, "%s%s", i ? "," : "", columns[i].name);
    return 0;
}

static int capture_row(void *context, JoineryRowKind kind, const char *const *values,
                       size_t column_count)
{
    Capture *capture = context;
    StrBuf line = STRBUF_INIT;
    for (size_t i = 0; i < column_count; i++)
        strbuf_printf(&line, "%s%s", i ? "|" : "", values[i] ? values[i] : "<NULL>");
    const char *text = strbuf_cstr(&line);
    if (kind == JOINERY_ROW_INSERT || kind == JOINERY_ROW_UPDATE_AFTER) {
        if (capture->row_count == capture->row_capacity) {
            capture->row_capacity = capture->row_capacity ? capture->row_capacity * 2 : 64;
            capture->rows = realloc(capture->rows, capture->row_capacity * sizeof(char *));
            ck_assert_ptr_nonnull(capture->rows);
        }
        capture->rows[capture->row_count++] = strdup(text);
    } else {
        bool removed = false;
        for (size_t i = 0; i < capture->row_count && !removed; i++)
            if (strcmp(capture->rows[i], text) == 0) {
                free(capture->rows[i]);
                capture->rows[i] = capture->rows[--capture->row_count];
                removed = true;
            }
        ck_assert_msg(removed, "retraction of a row never emitted: %s", text);
    }
    strbuf_free(&line);
    return 0;
}

static int capture_text(void *context, const char *text)
{
    Capture *capture = context;
    strbuf_printf(&capture->text, "%s\n", text);
    return 0;
}

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The materialized rows, sorted, one per line (caller frees). */
static char *capture_rows_sorted(Capture *capture)
{
    qsort(capture->rows, capture->row_count, sizeof(char *), compare_strings);
    StrBuf out = STRBUF_INIT;
    for (size_t i = 0; i < capture->row_count; i++)
        strbuf_printf(&out, "%s\n", capture->rows[i]);
    char *result = strdup(strbuf_cstr(&out));
    strbuf_free(&out);
    return result;
}

static void execute(JoinerySession *session, Capture *capture, const char *sql)
{
    JoineryResultHandler handler = {.context = capture,
                                    .begin = capture_begin,
                                    .row = capture_row,
                                    .text = capture_text,
                                    .info = capture_text};
    JoineryError error;
    int status = joinery_session_execute(session, sql, strlen(sql), 1, 1, &handler, &error);
    ck_assert_msg(status == 0, "%s failed: %s", sql, error.message);
}

static void write_file(const char *name, const char *content)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", directory, name);
    FILE *file = fopen(path, "w");
    ck_assert_ptr_nonnull(file);
    fputs(content, file);
    fclose(file);
}

static void create_table(JoinerySession *session, Capture *capture, const char *name,
                         const char *columns)
{
    char sql[1024];
    snprintf(sql, sizeof sql,
             "CREATE TABLE %s (%s) WITH ('connector' = 'filesystem', 'path' = '%s/%s.json', "
             "'format' = 'json')",
             name, columns, directory, name);
    execute(session, capture, sql);
}

/*
 * Shop tables: fact (2000 rows: id, a, b, c, amount; some NULL keys),
 * da (10 rows, a_id, name), db (200 rows, b_id, label), dc (40 rows, c_id,
 * kind), all with duplicates of some keys so joins multiply rows.
 */
static void write_shop(void)
{
    StrBuf text = STRBUF_INIT;
    for (int i = 0; i < 2000; i++) {
        if (i % 97 == 0)
            strbuf_printf(&text, "{\"id\":%d,\"a\":null,\"b\":%d,\"c\":%d,\"amount\":%d}\n", i,
                          i % 230, i % 45, i % 50);
        else
            strbuf_printf(&text, "{\"id\":%d,\"a\":%d,\"b\":%d,\"c\":%d,\"amount\":%d}\n", i,
                          i % 12, i % 230, i % 45, i % 50);
    }
    write_file("fact.json", strbuf_cstr(&text));
    strbuf_clear(&text);
    for (int i = 0; i < 10; i++)
        strbuf_printf(&text, "{\"a_id\":%d,\"name\":\"n%d\"}\n", i, i % 3);
    strbuf_printf(&text, "{\"a_id\":2,\"name\":\"dup\"}\n");
    write_file("da.json", strbuf_cstr(&text));
    strbuf_clear(&text);
    for (int i = 0; i < 200; i++)
        strbuf_printf(&text, "{\"b_id\":%d,\"label\":\"l%d\"}\n", i, i % 7);
    write_file("db.json", strbuf_cstr(&text));
    strbuf_clear(&text);
    for (int i = 0; i < 40; i++)
        strbuf_printf(&text, "{\"c_id\":%d,\"kind\":\"k%d\",\"a_ref\":%d}\n", i, i % 4, i % 10);
    write_file("dc.json", strbuf_cstr(&text));
    strbuf_free(&text);
}

static JoinerySession *open_shop(Capture *capture)
{
    JoinerySession *session = joinery_session_open();
    ck_assert_ptr_nonnull(session);
    create_table(session, capture, "fact", "id INT, a INT, b INT, c INT, amount INT");
    create_table(session, capture, "da", "a_id INT, name STRING");
    create_table(session, capture, "db", "b_id INT, label STRING");
    create_table(session, capture, "dc", "c_id INT, kind STRING, a_ref INT");
    return session;
}

static void setup(void)
{
    snprintf(directory, sizeof directory, "/tmp/check_reorder_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(directory));
    write_shop();
}

static void teardown(void)
{
    const char *names[] = {"fact.json", "da.json", "db.json", "dc.json", "small.json"};
    char path[512];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", directory, names[i]);
        unlink(path);
    }
    rmdir(directory);
}

/* The optimized physical plan of EXPLAIN `query` (caller frees). */
static char *physical_plan(JoinerySession *session, Capture *capture, const char *query)
{
    capture_reset(capture);
    char sql[4096];
    snprintf(sql, sizeof sql, "EXPLAIN %s", query);
    execute(session, capture, sql);
    const char *text = strbuf_cstr(&capture->text);
    const char *start = strstr(text, "== Optimized Physical Plan ==");
    ck_assert_ptr_nonnull(start);
    const char *end = strstr(start, "== Optimized Execution Plan ==");
    ck_assert_ptr_nonnull(end);
    return strndup(start, (size_t)(end - start));
}

/* Where table `name`'s scan appears in the plan (its left-deep position). */
static long scan_position(const char *plan, const char *name)
{
    char needle[128];
    snprintf(needle, sizeof needle, "default_database, %s", name);
    const char *found = strstr(plan, needle);
    ck_assert_msg(found != NULL, "no scan of %s in\n%s", name, plan);
    return found - plan;
}

static size_t count_occurrences(const char *text, const char *needle)
{
    size_t count = 0;
    for (const char *at = strstr(text, needle); at; at = strstr(at + 1, needle))
        count++;
    return count;
}

/* ---- the cost model on hand-built graphs ---- */

/* Fact (0) with dimension d1 (1, selective) and d2 (2): star on fields. */
static CostGraph star_graph(CostLeaf *leaves, CostConjunct *conjuncts)
{
    /* fields: fact 0..3, d1 4..5, d2 6..7 */
    leaves[0] = (CostLeaf){1e6, 48, 1, 0, 4};
    leaves[1] = (CostLeaf){10, 32, 1, 4, 2};
    leaves[2] = (CostLeaf){1000, 32, 1, 6, 2};
    conjuncts[0] = (CostConjunct){(1u << 0) | (1u << 1), 1.0 / 1000, 1, 4}; /* keeps 1% */
    conjuncts[1] = (CostConjunct){(1u << 0) | (1u << 2), 1.0 / 1000, 2, 6}; /* FK join */
    CostGraph graph = {leaves, 3, conjuncts, 2, 8, 1, false};
    return graph;
}

START_TEST(test_cost_state_lean_order_wins)
{
    CostLeaf leaves[3];
    CostConjunct conjuncts[2];
    CostGraph graph = star_graph(leaves, conjuncts);
    uint32_t scratch[32];
    CostEstimate selective_first, selective_last;
    uint32_t good[] = {0, 1, 2}, bad[] = {0, 2, 1};
    cost_join_order(&graph, good, 3, scratch, &selective_first);
    cost_join_order(&graph, bad, 3, scratch, &selective_last);
    /* same result rows, but the intermediate result and its state are 100x smaller */
    ck_assert_double_eq_tol(selective_first.rows, selective_last.rows, 1e-6);
    ck_assert_double_eq_tol(selective_first.rows, 1e4, 1e-6);
    ck_assert(selective_first.state_bytes < selective_last.state_bytes);
    ck_assert(selective_first.total < selective_last.total);
    ck_assert_uint_eq(selective_first.cross_products, 0);
    /* joining the two dimensions first is a cross product */
    uint32_t cross[] = {1, 2, 0};
    CostEstimate crossed;
    cost_join_order(&graph, cross, 3, scratch, &crossed);
    ck_assert_uint_eq(crossed.cross_products, 1);
}
END_TEST

START_TEST(test_cost_ttl_weighs_state)
{
    CostLeaf leaves[3];
    CostConjunct conjuncts[2];
    CostGraph graph = star_graph(leaves, conjuncts);
    uint32_t scratch[32], order[] = {0, 1, 2};
    CostEstimate short_ttl, long_ttl;
    cost_join_order(&graph, order, 3, scratch, &short_ttl);
    leaves[2].state_hours = cost_state_hours(0); /* forever */
    cost_join_order(&graph, order, 3, scratch, &long_ttl);
    ck_assert_double_eq_tol(short_ttl.state_bytes, long_ttl.state_bytes, 1e-6);
    ck_assert(long_ttl.state_cost > short_ttl.state_cost);
    ck_assert_double_eq_tol(cost_state_hours(3600000), 1.0, 1e-9);
    ck_assert_double_eq_tol(cost_state_hours(0), COST_FOREVER_HOURS, 1e-9);
}
END_TEST

START_TEST(test_cost_multi_join_prefers_shared_keys)
{
    /* A(k, j) joins B on k, C on j, D on k: fields A 0..1, B 2, C 3, D 4 */
    CostLeaf leaves[4] = {
        {1000, 32, 1, 0, 2}, {1000, 24, 1, 2, 1}, {1000, 24, 1, 3, 1}, {1000, 24, 1, 4, 1}};
    CostConjunct conjuncts[3] = {
        {(1u << 0) | (1u << 1), 1.0 / 1000, 0, 2},
        {(1u << 0) | (1u << 2), 1.0 / 1000, 1, 3},
        {(1u << 0) | (1u << 3), 1.0 / 1000, 0, 4},
    };
    CostGraph graph = {leaves, 4, conjuncts, 3, 5, 1, true};
    uint32_t scratch[32], split[] = {0, 1, 2, 3}, adjacent[] = {0, 1, 3, 2};
    CostEstimate split_cost, adjacent_cost;
    cost_join_order(&graph, split, 4, scratch, &split_cost);
    cost_join_order(&graph, adjacent, 4, scratch, &adjacent_cost);
    ck_assert_uint_eq(split_cost.fused_steps, 0);
    ck_assert_uint_eq(adjacent_cost.fused_steps, 1);
    ck_assert(adjacent_cost.total < split_cost.total);
    /* without MultiJoin the two orders cost the same */
    graph.multi_join = false;
    cost_join_order(&graph, split, 4, scratch, &split_cost);
    cost_join_order(&graph, adjacent, 4, scratch, &adjacent_cost);
    ck_assert_double_eq_tol(adjacent_cost.total, split_cost.total, split_cost.total * 1e-12);
}
END_TEST

/* ---- the planner through the engine ---- */

static const char *const STAR_QUERY =
    "SELECT f.id, da.name, db.label, dc.kind FROM fact AS f JOIN db ON f.b = db.b_id "
    "JOIN dc ON f.c = dc.c_id JOIN da ON f.a = da.a_id WHERE da.name = 'n1'";

START_TEST(test_plan_selective_inputs_first)
{
    Capture capture = {0};
    JoinerySession *session = open_shop(&capture);
    execute(session, &capture, "ANALYZE TABLE fact COMPUTE STATISTICS FOR ALL COLUMNS");
    execute(session, &capture, "ANALYZE TABLE da COMPUTE STATISTICS FOR ALL COLUMNS");
    execute(session, &capture, "ANALYZE TABLE db COMPUTE STATISTICS FOR ALL COLUMNS");
    execute(session, &capture, "ANALYZE TABLE dc COMPUTE STATISTICS FOR ALL COLUMNS");
    char *off = physical_plan(session, &capture, STAR_QUERY);
    execute(session, &capture, "SET 'table.optimizer.join-reorder-enabled' = 'true'");
    char *on = physical_plan(session, &capture, STAR_QUERY);
    /* written order: db before da; the filtered da (1 in 3 names) must now come first */
    ck_assert(scan_position(off, "db") < scan_position(off, "da"));
    ck_assert_msg(scan_position(on, "da") < scan_position(on, "db"), "%s", on);
    ck_assert_msg(scan_position(on, "da") < scan_position(on, "dc"), "%s", on);
    /* every join condition is still there, and no cross product */
    ck_assert_uint_eq(count_occurrences(on, "Join(joinType=[InnerJoin]"), 3);
    ck_assert_ptr_null(strstr(on, "where=[true]"));
    ck_assert_uint_eq(count_occurrences(on, "=(a, a_id)") + count_occurrences(on, "=(a_id, a)"), 1);
    ck_assert_uint_eq(count_occurrences(on, "=(b, b_id)") + count_occurrences(on, "=(b_id, b)"), 1);
    ck_assert_uint_eq(count_occurrences(on, "=(c, c_id)") + count_occurrences(on, "=(c_id, c)"), 1);
    /* the estimates behind the choice are shown */
    capture_reset(&capture);
    char sql[2048];
    snprintf(sql, sizeof sql, "EXPLAIN ESTIMATED_COST %s", STAR_QUERY);
    execute(session, &capture, sql);
    ck_assert_ptr_nonnull(strstr(strbuf_cstr(&capture.text), "rowcount = "));
    free(off);
    free(on);
    capture_free(&capture);
    joinery_session_close(session);
}
END_TEST

START_TEST(test_plan_avoids_cross_products)
{
    Capture capture = {0};
    JoinerySession *session = open_shop(&capture);
    /* written as (da x db) first: a cross product the reordering removes */
    const char *query = "SELECT da.name, db.label, f.id FROM da, db, fact AS f "
                        "WHERE f.a = da.a_id AND f.b = db.b_id";
    char *off = physical_plan(session, &capture, query);
    ck_assert_ptr_nonnull(strstr(off, "where=[true]"));
    execute(session, &capture, "SET 'table.optimizer.join-reorder-enabled' = 'true'");
    char *on = physical_plan(session, &capture, query);
    ck_assert_msg(strstr(on, "where=[true]") == NULL, "%s", on);
    free(off);
    free(on);
    capture_free(&capture);
    joinery_session_close(session);
}
END_TEST

START_TEST(test_plan_multi_join_fuses_same_key)
{
    Capture capture = {0};
    JoinerySession *session = open_shop(&capture);
    /* da and dc both join on fact.a; written with db (on b) between them */
    const char *query = "SELECT f.id, da.name, db.label, dc.kind FROM fact AS f "
                        "JOIN da ON f.a = da.a_id JOIN db ON f.b = db.b_id "
                        "JOIN dc ON f.a = dc.a_ref";
    execute(session, &capture, "SET 'table.optimizer.multi-join.enabled' = 'true'");
    char *off = physical_plan(session, &capture, query);
    execute(session, &capture, "SET 'table.optimizer.join-reorder-enabled' = 'true'");
    char *on = physical_plan(session, &capture, query);
    /* off: three two-input groups; on: fact, da and dc fused on a */
    ck_assert_uint_eq(count_occurrences(off, "joinTypes=[INNER, INNER]"), 0);
    ck_assert_msg(strstr(on, "commonJoinKey=[a], joinTypes=[INNER, INNER]") != NULL, "%s", on);
    free(off);
    free(on);
    capture_free(&capture);
    joinery_session_close(session);
}
END_TEST

/* ---- identical results with reordering off and on ---- */

static const char *const RESULT_QUERIES[] = {
    "SELECT f.id, da.name, db.label, dc.kind FROM fact AS f JOIN db ON f.b = db.b_id "
    "JOIN dc ON f.c = dc.c_id JOIN da ON f.a = da.a_id WHERE da.name = 'n1'",
    "SELECT da.name, db.label, f.id FROM da, db, fact AS f WHERE f.a = da.a_id AND f.b = db.b_id "
    "AND f.amount < 10",
    "SELECT * FROM fact AS f JOIN da ON f.a = da.a_id JOIN dc ON dc.a_ref = da.a_id "
    "AND dc.c_id > f.c JOIN db ON db.b_id = f.b + 1",
    "SELECT da.name, COUNT(*) AS n, SUM(f.amount) AS total FROM fact AS f JOIN db ON f.b = db.b_id "
    "JOIN da ON f.a = da.a_id JOIN dc ON f.c = dc.c_id AND dc.kind <> 'k2' GROUP BY da.name",
    "SELECT x.id, x.name, dc.kind FROM (SELECT f.id, f.c, da.name FROM fact AS f JOIN da "
    "ON f.a = da.a_id JOIN db ON f.b = db.b_id WHERE db.label = 'l3') AS x JOIN dc ON x.c = "
    "dc.c_id "
    "LEFT JOIN da AS d2 ON d2.a_id = dc.a_ref JOIN db AS b2 ON b2.b_id = x.id",
    "SELECT f.id, a1.name, a2.name FROM fact AS f JOIN da AS a1 ON f.a = a1.a_id "
    "JOIN da AS a2 ON a2.a_id = a1.a_id JOIN dc ON dc.a_ref = a2.a_id AND dc.c_id = f.c",
};

static void run_query(JoinerySession *session, Capture *capture, const char *query, char **rows,
                      char **columns)
{
    capture_reset(capture);
    execute(session, capture, query);
    *rows = capture_rows_sorted(capture);
    *columns = strdup(strbuf_cstr(&capture->columns));
}

/* Runs every query off, on, and on after ANALYZE; returns how many plans changed. */
static size_t check_identical(const char *setting)
{
    size_t reordered = 0;
    for (size_t q = 0; q < sizeof RESULT_QUERIES / sizeof RESULT_QUERIES[0]; q++) {
        Capture capture = {0};
        JoinerySession *session = open_shop(&capture);
        if (setting)
            execute(session, &capture, setting);
        char *rows_off, *columns_off, *rows_on, *columns_on;
        run_query(session, &capture, RESULT_QUERIES[q], &rows_off, &columns_off);
        char *plan_off = physical_plan(session, &capture, RESULT_QUERIES[q]);
        execute(session, &capture, "SET 'table.optimizer.join-reorder-enabled' = 'true'");
        run_query(session, &capture, RESULT_QUERIES[q], &rows_on, &columns_on);
        char *plan_on = physical_plan(session, &capture, RESULT_QUERIES[q]);
        reordered += strcmp(plan_off, plan_on) != 0;
        free(plan_off);
        free(plan_on);
        execute(session, &capture, "ANALYZE TABLE fact COMPUTE STATISTICS FOR ALL COLUMNS");
        execute(session, &capture, "ANALYZE TABLE da COMPUTE STATISTICS FOR ALL COLUMNS");
        char *rows_analyzed, *columns_analyzed;
        run_query(session, &capture, RESULT_QUERIES[q], &rows_analyzed, &columns_analyzed);
        ck_assert_msg(strlen(rows_off) > 0, "query %zu has no rows", q);
        ck_assert_str_eq(columns_off, columns_on);
        ck_assert_str_eq(columns_off, columns_analyzed);
        ck_assert_msg(strcmp(rows_off, rows_on) == 0, "query %zu differs with reordering", q);
        ck_assert_msg(strcmp(rows_off, rows_analyzed) == 0, "query %zu differs after ANALYZE", q);
        free(rows_off);
        free(rows_on);
        free(rows_analyzed);
        free(columns_off);
        free(columns_on);
        free(columns_analyzed);
        capture_free(&capture);
        joinery_session_close(session);
    }
    return reordered;
}

START_TEST(test_results_identical)
{
    size_t reordered = check_identical(NULL);
    /* most of the queries are written in an order the model changes */
    ck_assert_msg(reordered >= 4, "only %zu of the queries were reordered", reordered);
}
END_TEST

START_TEST(test_results_identical_multi_join)
{
    ck_assert_uint_ge(check_identical("SET 'table.optimizer.multi-join.enabled' = 'true'"), 4);
}
END_TEST

START_TEST(test_results_identical_parallel)
{
    ck_assert_uint_ge(check_identical("SET 'parallelism.default' = '2'"), 4);
}
END_TEST

/* ---- ANALYZE TABLE ---- */

START_TEST(test_analyze_exact_counts)
{
    write_file("small.json", "{\"k\":1,\"s\":\"a\"}\n{\"k\":1,\"s\":null}\n{\"k\":2,\"s\":\"b\"}\n"
                             "{\"k\":null,\"s\":\"a\"}\n{\"k\":3,\"s\":\"c\"}\n");
    Capture capture = {0};
    JoinerySession *session = joinery_session_open();
    create_table(session, &capture, "small", "k INT, s STRING");
    capture_reset(&capture);
    execute(session, &capture, "ANALYZE TABLE small COMPUTE STATISTICS");
    ck_assert_uint_eq(capture.row_count, 0);
    ck_assert_ptr_nonnull(strstr(strbuf_cstr(&capture.text), "5 rows (read fully)"));
    capture_reset(&capture);
    execute(session, &capture, "ANALYZE TABLE small COMPUTE STATISTICS FOR ALL COLUMNS");
    ck_assert_str_eq(strbuf_cstr(&capture.columns), "column,type,ndv,nulls");
    char *rows = capture_rows_sorted(&capture);
    ck_assert_str_eq(rows, "k|INT|3|1\ns|STRING|3|1\n");
    free(rows);
    /* the estimate now comes from the statistics */
    capture_reset(&capture);
    execute(session, &capture, "EXPLAIN ESTIMATED_COST SELECT * FROM small WHERE k = 2");
    ck_assert_ptr_nonnull(strstr(strbuf_cstr(&capture.text), "rowcount = 1.7"));
    capture_reset(&capture);
    JoineryResultHandler handler = {.context = &capture,
                                    .text = capture_text,
                                    .info = capture_text};
    JoineryError error;
    const char *missing = "ANALYZE TABLE nowhere COMPUTE STATISTICS";
    ck_assert_int_ne(
        joinery_session_execute(session, missing, strlen(missing), 1, 1, &handler, &error), 0);
    ck_assert_ptr_nonnull(strstr(error.message, "not found"));
    capture_free(&capture);
    joinery_session_close(session);
}
END_TEST

START_TEST(test_analyze_samples_unbounded)
{
    Capture capture = {0};
    JoinerySession *session = joinery_session_open();
    execute(session, &capture,
            "CREATE TABLE endless (id INT, v INT) WITH ('connector' = 'datagen', "
            "'rows-per-second' = '1000000', 'fields.id.min' = '1', 'fields.id.max' = '20', "
            "'fields.v.min' = '1', 'fields.v.max' = '5')");
    execute(session, &capture,
            "CREATE TABLE bounded (id INT) WITH ('connector' = 'datagen', "
            "'number-of-rows' = '500', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', "
            "'fields.id.end' = '500')");
    capture_reset(&capture);
    execute(session, &capture, "ANALYZE TABLE endless COMPUTE STATISTICS FOR ALL COLUMNS");
    ck_assert_ptr_nonnull(strstr(strbuf_cstr(&capture.text), "(sampled: "));
    char *rows = capture_rows_sorted(&capture);
    ck_assert_str_eq(rows, "id|INT|20|0\nv|INT|5|0\n");
    free(rows);
    capture_reset(&capture);
    execute(session, &capture, "ANALYZE TABLE bounded COMPUTE STATISTICS FOR ALL COLUMNS");
    ck_assert_ptr_nonnull(strstr(strbuf_cstr(&capture.text), "500 rows (read fully)"));
    rows = capture_rows_sorted(&capture);
    ck_assert_str_eq(rows, "id|INT|500|0\n");
    free(rows);
    capture_free(&capture);
    joinery_session_close(session);
}
END_TEST

static Suite *reorder_suite(void)
{
    Suite *suite = suite_create("reorder");
    TCase *model = tcase_create("cost model");
    tcase_add_test(model, test_cost_state_lean_order_wins);
    tcase_add_test(model, test_cost_ttl_weighs_state);
    tcase_add_test(model, test_cost_multi_join_prefers_shared_keys);
    suite_add_tcase(suite, model);
    TCase *plans = tcase_create("plans");
    tcase_add_checked_fixture(plans, setup, teardown);
    tcase_set_timeout(plans, 120);
    tcase_add_test(plans, test_plan_selective_inputs_first);
    tcase_add_test(plans, test_plan_avoids_cross_products);
    tcase_add_test(plans, test_plan_multi_join_fuses_same_key);
    tcase_add_test(plans, test_results_identical);
    tcase_add_test(plans, test_results_identical_multi_join);
    tcase_add_test(plans, test_results_identical_parallel);
    suite_add_tcase(suite, plans);
    TCase *analyze = tcase_create("analyze");
    tcase_add_checked_fixture(analyze, setup, teardown);
    tcase_set_timeout(analyze, 120);
    tcase_add_test(analyze, test_analyze_exact_counts);
    tcase_add_test(analyze, test_analyze_samples_unbounded);
    suite_add_tcase(suite, analyze);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(reorder_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? 0 : 1;
}
