/*
 * check_limits.c - Check suite for the bounds on long and deep statements
 * and on state memory (engine/sql/ast_depth.c, engine/plan/bind.c,
 * expr_fits in engine/plan/expr.c, plan_uniquify_names in
 * engine/plan/plan.c, state_budget_init in engine/state/state.c).
 *
 * The statements are built here in C and run through the engine API in the
 * test's process, on its main thread's default stack:
 * - chains past SQL_MAX_DEPTH (10,000 to 30,000 terms of `+`, AND, OR, `||`,
 *   UNION ALL, JOIN, comma joins, a WITH chain of 20,000) and nestings past
 *   the parser's limit (parentheses, subqueries, CASE, function calls, MAP
 *   types) fail with a clear error at line and column, never a crash;
 * - the same chains just inside the limit give the right answer, a
 *   1,000-table join chain plans (EXPLAIN) and runs, and 15 views of 1,900
 *   `+` terms each give the right sum (their Calcs stay apart);
 * - WITH items that each use the previous one twice (an exponential plan)
 *   are refused by the node budget;
 * - a JSON record nested deeper than Jackson's 1,000 is a malformed record;
 * - duplicate field names get Calcite's spellings (name0, name1, the first
 *   suffix no field holds), also for 2,000 duplicates of one name;
 * - the default hashmap budget is never more than half the physical memory.
 * No assertion depends on time; the test case timeout is only a hang guard.
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/base/arena.h"
#include "engine/base/strbuf.h"
#include "engine/engine.h"
#include "engine/plan/plan.h"
#include "engine/sql/ast_depth.h"
#include "engine/state/state.h"

/* ---- harness: one session, results captured as text ---- */

typedef struct Capture {
    StrBuf rows; /* "+I a|b" per line */
    StrBuf text; /* EXPLAIN output */
    StrBuf columns;
    JoineryError error;
} Capture;

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
    static const char *const KINDS[] = {"+I", "-U", "+U", "-D"};
    Capture *capture = context;
    strbuf_printf(&capture->rows, "%s ", KINDS[kind]);
    for (size_t i = 0; i < column_count; i++)
        strbuf_printf(&capture->rows, "%s%s", i ? "|" : "", values[i] ? values[i] : "NULL");
    strbuf_append_cstr(&capture->rows, "\n");
    return 0;
}

static int capture_text(void *context, const char *text)
{
    Capture *capture = context;
    strbuf_printf(&capture->text, "%s\n", text);
    return 0;
}

static void capture_free(Capture *capture)
{
    strbuf_free(&capture->rows);
    strbuf_free(&capture->text);
    strbuf_free(&capture->columns);
}

/* Runs sql in session; returns the status, with rows, text and error in *capture. */
static int run(JoinerySession *session, const char *sql, Capture *capture)
{
    strbuf_clear(&capture->rows);
    strbuf_clear(&capture->text);
    strbuf_clear(&capture->columns);
    memset(&capture->error, 0, sizeof capture->error);
    JoineryResultHandler handler = {
        .context = capture, .begin = capture_begin, .row = capture_row, .text = capture_text};
    return joinery_session_execute(session, sql, strlen(sql), 1, 1, &handler, &capture->error);
}

static void run_ok(JoinerySession *session, const char *sql, Capture *capture)
{
    int status = run(session, sql, capture);
    ck_assert_msg(status == 0, "statement failed: %s", capture->error.message);
}

static const char *const TABLE_T =
    "CREATE TABLE t (a INT, b INT) WITH ('connector' = 'datagen', 'number-of-rows' = '1', "
    "'fields.a.kind' = 'sequence', 'fields.a.start' = '7', 'fields.a.end' = '7')";

/* "prefix item sep item sep ... item suffix" with item i written by format (one %d, or none). */
static char *build_chain(const char *prefix, const char *item_format, const char *separator,
                         int count, const char *suffix)
{
    StrBuf out = STRBUF_INIT;
    strbuf_append_cstr(&out, prefix);
    for (int i = 0; i < count; i++) {
        if (i)
            strbuf_append_cstr(&out, separator);
        strbuf_printf(&out, item_format, i);
    }
    strbuf_append_cstr(&out, suffix);
    char *text = strdup(strbuf_cstr(&out));
    strbuf_free(&out);
    ck_assert_ptr_nonnull(text);
    return text;
}

/* "prefix open*count middle close*count suffix" */
static char *build_nesting(const char *prefix, const char *open, const char *middle,
                           const char *close, int count, const char *suffix)
{
    StrBuf out = STRBUF_INIT;
    strbuf_append_cstr(&out, prefix);
    for (int i = 0; i < count; i++)
        strbuf_append_cstr(&out, open);
    strbuf_append_cstr(&out, middle);
    for (int i = 0; i < count; i++)
        strbuf_append_cstr(&out, close);
    strbuf_append_cstr(&out, suffix);
    char *text = strdup(strbuf_cstr(&out));
    strbuf_free(&out);
    ck_assert_ptr_nonnull(text);
    return text;
}

/* A FROM list of `count` copies of t joined on a (JOIN ... ON, or commas). */
static char *build_join_chain(const char *select, int count, bool comma)
{
    StrBuf out = STRBUF_INIT;
    strbuf_printf(&out, "%s FROM t t0", select);
    for (int i = 1; i < count; i++) {
        if (comma)
            strbuf_printf(&out, ", t t%d", i);
        else
            strbuf_printf(&out, " JOIN t t%d ON t%d.a = t%d.a", i, i - 1, i);
    }
    char *text = strdup(strbuf_cstr(&out));
    strbuf_free(&out);
    ck_assert_ptr_nonnull(text);
    return text;
}

/* A WITH list of `count` items, each reading the one before, and a SELECT of the last. */
static char *build_with_chain(int count)
{
    StrBuf out = STRBUF_INIT;
    strbuf_append_cstr(&out, "WITH w0 AS (SELECT 1 AS x)");
    for (int i = 1; i < count; i++)
        strbuf_printf(&out, ", w%d AS (SELECT x FROM w%d)", i, i - 1);
    strbuf_printf(&out, " SELECT x FROM w%d", count - 1);
    char *text = strdup(strbuf_cstr(&out));
    strbuf_free(&out);
    ck_assert_ptr_nonnull(text);
    return text;
}

/* The statement fails with the depth error at line 1, column `column`. */
static void assert_too_deep(JoinerySession *session, const char *sql, int column,
                            const char *message)
{
    Capture capture = {0};
    int status = run(session, sql, &capture);
    ck_assert_int_ne(status, 0);
    ck_assert_msg(strstr(capture.error.message, message) != NULL, "unexpected error: %s",
                  capture.error.message);
    ck_assert_int_eq(capture.error.line, 1);
    ck_assert_int_eq(capture.error.column, column);
    capture_free(&capture);
}

static const char *const TOO_DEEP = "Statement too deeply nested or too long: more than 2000";
static const char *const NESTS_TOO_DEEPLY = "Syntax error: statement nests too deeply";

/* ---- chains past the limit: an error at the chain's start ---- */

START_TEST(test_long_chains_fail_cleanly)
{
    JoinerySession *session = joinery_session_open();
    Capture capture = {0};
    run_ok(session, TABLE_T, &capture);
    struct {
        const char *prefix, *item, *separator;
        int count;
        const char *suffix;
        int column;
    } chains[] = {
        {"SELECT ", "1", "+", 10000, "", 8},
        {"SELECT ", "1", " * ", 10000, "", 8},
        {"SELECT ", "TRUE", " AND ", 20000, "", 8},
        {"SELECT ", "FALSE", " OR ", 20000, "", 8},
        {"SELECT ", "'a'", " || ", 20000, "", 8},
        {"SELECT a FROM t WHERE ", "a = %d", " OR ", 20000, "", 23},
        {"", "SELECT 1", " UNION ALL ", 10000, "", 1},
        {"", "SELECT a FROM t", " UNION ", 10000, "", 1},
    };
    for (size_t i = 0; i < sizeof chains / sizeof chains[0]; i++) {
        char *sql = build_chain(chains[i].prefix, chains[i].item, chains[i].separator,
                                chains[i].count, chains[i].suffix);
        assert_too_deep(session, sql, chains[i].column, TOO_DEEP);
        free(sql);
    }
    char *join = build_join_chain("SELECT t0.a", 30000, false);
    assert_too_deep(session, join, 18, TOO_DEEP);
    free(join);
    char *comma = build_join_chain("SELECT t0.a", 30000, true);
    assert_too_deep(session, comma, 18, TOO_DEEP);
    free(comma);
    /* the WITH list is flat; its items nest when the binder expands them */
    char *with = build_with_chain(20000);
    run(session, with, &capture);
    ck_assert_ptr_nonnull(strstr(capture.error.message, TOO_DEEP));
    ck_assert_int_eq(capture.error.line, 1);
    ck_assert_int_gt(capture.error.column, 0);
    free(with);
    /* the session still works */
    run_ok(session, "SELECT a FROM t", &capture);
    ck_assert_str_eq(strbuf_cstr(&capture.rows), "+I 7\n");
    capture_free(&capture);
    joinery_session_close(session);
}
END_TEST

START_TEST(test_deep_nesting_fails_cleanly)
{
    JoinerySession *session = joinery_session_open();
    Capture capture = {0};
    run_ok(session, TABLE_T, &capture);
    struct {
        const char *prefix, *open, *middle, *close;
        int count;
        const char *suffix;
    } nestings[] = {
        {"SELECT ", "(", "1", ")", 10000, ""},
        {"SELECT ", "- ", "1", "", 100000, ""},
        {"SELECT ", "NOT ", "TRUE", "", 100000, ""},
        {"SELECT ", "ABS(", "1", ")", 10000, ""},
        {"SELECT ", "CAST(", "1", " AS INT)", 10000, ""},
        {"SELECT ", "CASE WHEN TRUE THEN ", "1", " END", 10000, ""},
        {"SELECT * FROM ", "(SELECT * FROM ", "t", ") AS x", 10000, ""},
        {"SELECT ", "(SELECT ", "1", ")", 10000, ""},
        {"", "(", "SELECT 1", ")", 10000, ""},
        {"CREATE TABLE m (a ", "MAP<INT, ", "INT", ">", 100000, ") WITH ('connector' = 'datagen')"},
    };
    for (size_t i = 0; i < sizeof nestings / sizeof nestings[0]; i++) {
        char *sql = build_nesting(nestings[i].prefix, nestings[i].open, nestings[i].middle,
                                  nestings[i].close, nestings[i].count, nestings[i].suffix);
        int status = run(session, sql, &capture);
        ck_assert_int_ne(status, 0);
        ck_assert_msg(strstr(capture.error.message, NESTS_TOO_DEEPLY) != NULL,
                      "nesting %zu: unexpected error: %s", i, capture.error.message);
        ck_assert_int_eq(capture.error.line, 1);
        ck_assert_int_gt(capture.error.column, (int)strlen(nestings[i].prefix));
        free(sql);
    }
    capture_free(&capture);
    joinery_session_close(session);
}
END_TEST

/* ---- just inside the limit: the right answer ---- */

START_TEST(test_chains_inside_the_limit_run)
{
    JoinerySession *session = joinery_session_open();
    Capture capture = {0};
    run_ok(session, TABLE_T, &capture);
    char *sum = build_chain("SELECT ", "1", "+", 1990, "");
    run_ok(session, sum, &capture);
    ck_assert_str_eq(strbuf_cstr(&capture.rows), "+I 1990\n");
    free(sum);
    char *all = build_chain("SELECT ", "a > %d", " AND ", 1990, " FROM t");
    run_ok(session, all, &capture);
    ck_assert_str_eq(strbuf_cstr(&capture.rows), "+I FALSE\n");
    free(all);
    char *any = build_chain("SELECT a FROM t WHERE ", "a = %d", " OR ", 1990, "");
    run_ok(session, any, &capture);
    ck_assert_str_eq(strbuf_cstr(&capture.rows), "+I 7\n");
    free(any);
    char *text = build_chain("SELECT CHAR_LENGTH(", "'ab'", " || ", 1990, ")");
    run_ok(session, text, &capture);
    ck_assert_str_eq(strbuf_cstr(&capture.rows), "+I 3980\n");
    free(text);
    char *branches =
        build_chain("SELECT COUNT(*) FROM (", "SELECT a FROM t", " UNION ALL ", 1000, ")");
    run_ok(session, branches, &capture);
    ck_assert_ptr_nonnull(strstr(strbuf_cstr(&capture.rows), "+U 1000\n"));
    free(branches);
    char *with = build_with_chain(900);
    run_ok(session, with, &capture);
    ck_assert_str_eq(strbuf_cstr(&capture.rows), "+I 1\n");
    free(with);
    capture_free(&capture);
    joinery_session_close(session);
}
END_TEST

START_TEST(test_thousand_table_join_plans_and_runs)
{
    JoinerySession *session = joinery_session_open();
    Capture capture = {0};
    run_ok(session, TABLE_T, &capture);
    /* on LMDB the 2,000 join states of one task pass the environment's 1,024 named
       databases (a clean error, state/README.md): this case is about planning */
    run_ok(session, "SET 'state.backend.type' = 'hashmap'", &capture);
    char *query = build_join_chain("SELECT t0.a, t999.a", 1000, false);
    run_ok(session, query, &capture);
    ck_assert_str_eq(strbuf_cstr(&capture.rows), "+I 7|7\n");
    /* every t's a and b, uniquified as Calcite does: a, b, a0, b0, ... a998, b998 */
    StrBuf explain = STRBUF_INIT;
    strbuf_printf(&explain, "EXPLAIN %s", query);
    run_ok(session, strbuf_cstr(&explain), &capture);
    const char *plan = strbuf_cstr(&capture.text);
    ck_assert_ptr_nonnull(strstr(plan, "== Optimized Execution Plan =="));
    ck_assert_ptr_nonnull(strstr(plan, "where=[(a997 = a998)], select=[a, a0, "));
    ck_assert_ptr_nonnull(strstr(plan, ", a997, a998]"));
    strbuf_free(&explain);
    free(query);
    char *comma = build_join_chain("SELECT COUNT(*)", 1000, true);
    run_ok(session, comma, &capture);
    ck_assert_ptr_nonnull(strstr(strbuf_cstr(&capture.rows), "+I 1\n"));
    free(comma);
    capture_free(&capture);
    joinery_session_close(session);
}
END_TEST

START_TEST(test_stacked_views_keep_calcs_apart)
{
    JoinerySession *session = joinery_session_open();
    Capture capture = {0};
    run_ok(session, TABLE_T, &capture);
    run_ok(session, "CREATE VIEW v0 AS SELECT a FROM t", &capture);
    for (int i = 1; i < 16; i++) {
        char prefix[64];
        snprintf(prefix, sizeof prefix, "CREATE VIEW v%d AS SELECT a+", i);
        char suffix[64];
        snprintf(suffix, sizeof suffix, " AS a FROM v%d", i - 1);
        char *view = build_chain(prefix, "1", "+", 1900, suffix);
        run_ok(session, view, &capture);
        free(view);
    }
    /* 7 + 15 x 1,900: one merged Calc would be 28,500 levels deep */
    run_ok(session, "SELECT a FROM v15", &capture);
    ck_assert_str_eq(strbuf_cstr(&capture.rows), "+I 28507\n");
    run_ok(session, "SELECT a FROM v15 WHERE a > 5", &capture);
    ck_assert_str_eq(strbuf_cstr(&capture.rows), "+I 28507\n");
    run_ok(session, "EXPLAIN SELECT a FROM v15", &capture);
    ck_assert_ptr_nonnull(strstr(strbuf_cstr(&capture.text), "TableSourceScan"));
    capture_free(&capture);
    joinery_session_close(session);
}
END_TEST

START_TEST(test_exponential_with_is_refused)
{
    JoinerySession *session = joinery_session_open();
    Capture capture = {0};
    StrBuf sql = STRBUF_INIT;
    strbuf_append_cstr(&sql, "WITH w0 AS (SELECT 1 AS x)");
    for (int i = 1; i < 40; i++)
        strbuf_printf(&sql, ", w%d AS (SELECT x FROM w%d UNION ALL SELECT x FROM w%d)", i, i - 1,
                      i - 1);
    strbuf_append_cstr(&sql, " SELECT COUNT(*) FROM w39");
    ck_assert_int_ne(run(session, strbuf_cstr(&sql), &capture), 0);
    ck_assert_ptr_nonnull(
        strstr(capture.error.message, "Statement too large: its plan has more than 100000 nodes"));
    ck_assert_int_eq(capture.error.line, 1);
    ck_assert_int_gt(capture.error.column, 1);
    strbuf_free(&sql);
    capture_free(&capture);
    joinery_session_close(session);
}
END_TEST

/* ---- records ---- */

START_TEST(test_json_nesting_bounded)
{
    /* 100,000 nested arrays (quadratic in jsmn: minutes) and one within Jackson's 1,000 */
    char path[] = "/tmp/joinery-limits-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *file = fdopen(fd, "w");
    ck_assert_ptr_nonnull(file);
    fputs("{\"a\": 1, \"b\": ", file);
    for (int i = 0; i < 100000; i++)
        fputc('[', file);
    for (int i = 0; i < 100000; i++)
        fputc(']', file);
    fputs("}\n{\"a\": 2, \"b\": ", file);
    for (int i = 0; i < 999; i++)
        fputc('[', file);
    for (int i = 0; i < 999; i++)
        fputc(']', file);
    fputs("}\n", file);
    fclose(file);
    JoinerySession *session = joinery_session_open();
    Capture capture = {0};
    StrBuf ddl = STRBUF_INIT;
    strbuf_printf(&ddl,
                  "CREATE TABLE j (a INT, b STRING) WITH ('connector' = 'filesystem', 'path' = "
                  "'%s', 'format' = 'json')",
                  path);
    run_ok(session, strbuf_cstr(&ddl), &capture);
    ck_assert_int_ne(run(session, "SELECT a, CHAR_LENGTH(b) FROM j", &capture), 0);
    ck_assert_ptr_nonnull(strstr(capture.error.message, ":1: malformed JSON at byte 1014: "
                                                        "nesting depth exceeds the maximum "
                                                        "allowed (1000)"));
    /* skipped as a malformed record when the table ignores parse errors */
    strbuf_clear(&ddl);
    strbuf_printf(&ddl,
                  "CREATE TABLE k (a INT, b STRING) WITH ('connector' = 'filesystem', 'path' = "
                  "'%s', 'format' = 'json', 'json.ignore-parse-errors' = 'true')",
                  path);
    run_ok(session, strbuf_cstr(&ddl), &capture);
    run_ok(session, "SELECT a, CHAR_LENGTH(b) FROM k", &capture);
    ck_assert_str_eq(strbuf_cstr(&capture.rows), "+I 2|1998\n");
    strbuf_free(&ddl);
    capture_free(&capture);
    joinery_session_close(session);
    unlink(path);
}
END_TEST

/* ---- field names ---- */

static void assert_uniquified(const char *const *names, const char *const *expected, uint32_t count)
{
    Arena arena;
    arena_init(&arena, 0);
    PlanField *fields = calloc(count, sizeof *fields);
    for (uint32_t i = 0; i < count; i++)
        fields[i].name = (char *)names[i];
    plan_uniquify_names(&arena, fields, count);
    for (uint32_t i = 0; i < count; i++)
        ck_assert_str_eq(fields[i].name, expected[i]);
    free(fields);
    arena_destroy(&arena);
}

START_TEST(test_uniquify_names_as_calcite)
{
    const char *plain[] = {"a", "a", "a0", "a"};
    const char *plain_expected[] = {"a", "a1", "a0", "a2"};
    assert_uniquified(plain, plain_expected, 4);
    /* x1 is held, so the third x skips it; the second x1 finds x10 held by the last field */
    const char *digits[] = {"x", "x1", "x", "x", "x1", "x10"};
    const char *digits_expected[] = {"x", "x1", "x0", "x2", "x11", "x10"};
    assert_uniquified(digits, digits_expected, 6);
    /* a leading zero is no suffix: a01 does not take suffix 1 */
    const char *zeros[] = {"a", "a01", "a", "a"};
    const char *zeros_expected[] = {"a", "a01", "a0", "a1"};
    assert_uniquified(zeros, zeros_expected, 4);
    /* case matters, as in Calcite's SqlValidatorUtil.uniquify with its default */
    const char *cases[] = {"A", "a", "A"};
    const char *cases_expected[] = {"A", "a", "A0"};
    assert_uniquified(cases, cases_expected, 3);
}
END_TEST

START_TEST(test_group_by_many_duplicates)
{
    JoinerySession *session = joinery_session_open();
    Capture capture = {0};
    run_ok(session, TABLE_T, &capture);
    char *query = build_chain("SELECT a FROM t GROUP BY ", "a", ", ", 2000, "");
    run_ok(session, query, &capture);
    ck_assert_str_eq(strbuf_cstr(&capture.rows), "+I 7\n");
    free(query);
    char *items = build_chain("SELECT ", "a", ", ", 2000, " FROM t");
    run_ok(session, items, &capture);
    const char *columns = strbuf_cstr(&capture.columns);
    ck_assert_int_eq(strncmp(columns, "a,a0,a1,a2,", 11), 0);
    ck_assert_ptr_nonnull(strstr(columns, ",a1997,a1998"));
    free(items);
    capture_free(&capture);
    joinery_session_close(session);
}
END_TEST

/* ---- memory ---- */

START_TEST(test_default_budget_bounded_by_physical_memory)
{
    long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGESIZE);
    ck_assert_int_gt(pages, 0);
    StateBudget budget;
    state_budget_init(&budget, 0);
    ck_assert_uint_gt(budget.limit, 0);
    ck_assert_uint_le(budget.limit, (uint64_t)pages * (uint64_t)page_size / 2);
    ck_assert_uint_gt(strlen(budget.source), 0);
    state_budget_init(&budget, 12345);
    ck_assert_uint_eq(budget.limit, 12345);
    ck_assert_str_eq(budget.source, "state.backend.hashmap.max-bytes");
}
END_TEST

START_TEST(test_budget_error_names_operator)
{
    JoinerySession *session = joinery_session_open();
    Capture capture = {0};
    run_ok(session, "SET 'state.backend.type' = 'hashmap'", &capture); /* the budget's backend */
    run_ok(session, "SET 'state.backend.hashmap.max-bytes' = '1mb'", &capture);
    run_ok(session,
           "CREATE TABLE g (k BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = "
           "'100000', 'fields.k.kind' = 'sequence', 'fields.k.start' = '1', 'fields.k.end' = "
           "'100000')",
           &capture);
    run_ok(session, "CREATE TABLE out (k BIGINT, c BIGINT) WITH ('connector' = 'blackhole')",
           &capture);
    const char *const queries[][2] = {
        {"INSERT INTO out SELECT k, COUNT(*) FROM g GROUP BY k", "GroupAggregate holds "},
        {"INSERT INTO out SELECT a.k, b.k FROM g a JOIN g b ON a.k = b.k",
         "Join(joinType=[InnerJoin]) holds "},
    };
    for (size_t i = 0; i < 2; i++) {
        ck_assert_int_ne(run(session, queries[i][0], &capture), 0);
        const char *message = capture.error.message;
        ck_assert_msg(strstr(message, queries[i][1]) == message, "unexpected error: %s", message);
        ck_assert_ptr_nonnull(strstr(message, "MiB of "));
        ck_assert_ptr_nonnull(strstr(message, "state.backend.hashmap.max-bytes"));
        ck_assert_ptr_nonnull(strstr(message, "'state.backend.type' = 'lmdb'"));
        ck_assert_ptr_nonnull(strstr(message, "'table.exec.state.ttl'"));
    }
    capture_free(&capture);
    joinery_session_close(session);
}
END_TEST

static Suite *limits_suite(void)
{
    Suite *suite = suite_create("limits");
    TCase *depth = tcase_create("depth");
    /* a hang guard only: the big statements take well under a second each */
    tcase_set_timeout(depth, 120);
    tcase_add_test(depth, test_long_chains_fail_cleanly);
    tcase_add_test(depth, test_deep_nesting_fails_cleanly);
    tcase_add_test(depth, test_chains_inside_the_limit_run);
    tcase_add_test(depth, test_thousand_table_join_plans_and_runs);
    tcase_add_test(depth, test_stacked_views_keep_calcs_apart);
    tcase_add_test(depth, test_exponential_with_is_refused);
    suite_add_tcase(suite, depth);
    TCase *records = tcase_create("records");
    tcase_set_timeout(records, 120);
    tcase_add_test(records, test_json_nesting_bounded);
    suite_add_tcase(suite, records);
    TCase *names = tcase_create("names");
    tcase_set_timeout(names, 120);
    tcase_add_test(names, test_uniquify_names_as_calcite);
    tcase_add_test(names, test_group_by_many_duplicates);
    suite_add_tcase(suite, names);
    TCase *memory = tcase_create("memory");
    tcase_set_timeout(memory, 120);
    tcase_add_test(memory, test_default_budget_bounded_by_physical_memory);
    tcase_add_test(memory, test_budget_error_names_operator);
    suite_add_tcase(suite, memory);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(limits_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? 0 : 1;
}
