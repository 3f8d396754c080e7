/*
 * check_jdbc_lookup.c - the jdbc connector's lookup function (lookup.h)
 * against a real PostgreSQL server: tests/jdbc/postgres.sh starts one for
 * the suite (or JOINERY_PG_URL / JOINERY_PG_DIR name a running one). When
 * PostgreSQL cannot be installed the suite says so on one line and passes
 * without running (nothing is mocked).
 *
 * Covered: synchronous lookups (one match, several matches, a missing key,
 * a NULL key, every key type mapped); hundreds of asynchronous requests in
 * flight at once completing in submission order with the same rows as the
 * synchronous lookups; reconnect after the server restarts (sync and
 * async, no request lost); errors naming table, store and column (missing
 * table, type mismatch, no server, a table dropped under a running lookup).
 */
#include <check.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/connector/jdbc_internal.h"
#include "engine/connector/lookup.h"
#include "tests/unit/connector_fixture.h"

static char pg_url[256];
static char pg_dir[256];
static char pg_port[16];
static const char PASSWORD[] = "joinery-secret";

/* Runs SQL through libpq (test setup); fails the test on an error. */
static void admin_sql(const char *sql)
{
    char conninfo[512];
    snprintf(conninfo, sizeof conninfo,
             "host=127.0.0.1 port=%s dbname=joinery user=joinery password=%s "
             "options='-c client_min_messages=warning'",
             pg_port, PASSWORD);
    PGconn *connection = PQconnectdb(conninfo);
    ck_assert_msg(PQstatus(connection) == CONNECTION_OK, "%s", PQerrorMessage(connection));
    PGresult *result = PQexec(connection, sql);
    ck_assert_msg(PQresultStatus(result) == PGRES_COMMAND_OK ||
                      PQresultStatus(result) == PGRES_TUPLES_OK,
                  "%s", PQresultErrorMessage(result));
    PQclear(result);
    PQfinish(connection);
}

static CatalogTable *dim_table(const char *table_name, const char *max_retries)
{
    TestColumn columns[] = {
        {"k", type_make(TYPE_INT, true), NULL},
        {"name", type_make_varchar(TYPE_STRING_LENGTH, true), NULL},
        {"price", type_make_decimal(10, 2, true), NULL},
    };
    const char *options[] = {"connector",          "jdbc",     "url",     pg_url,     "table-name",
                             table_name,           "username", "joinery", "password", PASSWORD,
                             "lookup.max-retries", max_retries};
    CatalogTable *table = make_table("dim", columns, 3, options, 6);
    Diag diag;
    diag_clear(&diag);
    ck_assert_msg(connector_validate_table(table, &diag) == JOINERY_OK, "%s", diag.message);
    return table;
}

typedef struct TestLookup {
    LookupSpec spec;
    uint32_t key_columns[1];
    DataType key_types[1];
    uint32_t columns[3];
    DataType types[3];
} TestLookup;

static void make_lookup_spec(TestLookup *test, const CatalogTable *table)
{
    memset(test, 0, sizeof *test);
    test->key_columns[0] = 0;
    test->key_types[0] = table->columns[0].type;
    for (uint32_t i = 0; i < 3; i++) {
        test->columns[i] = i;
        test->types[i] = table->columns[i].type;
    }
    test->spec.table = table;
    test->spec.key_count = 1;
    test->spec.key_columns = test->key_columns;
    test->spec.key_types = test->key_types;
    test->spec.field_count = 3;
    test->spec.columns = test->columns;
    test->spec.types = test->types;
}

static Row *int_key(RowBuilder *builder, int64_t key, bool is_null)
{
    row_builder_begin(builder, 1, ROW_KIND_INSERT);
    if (is_null)
        row_builder_set_null(builder, 0);
    else
        row_builder_set_int64(builder, 0, key);
    return row_copy_heap(row_builder_finish(builder));
}

/* The rows of table dim_rows: keys 1..500 once, key 7 twice more, key 0 never. */
static void create_dim(const char *name)
{
    char sql[512];
    snprintf(sql, sizeof sql,
             "DROP TABLE IF EXISTS %s; CREATE TABLE %s (k int, name text, price numeric(10,2));"
             "INSERT INTO %s SELECT g, 'item-' || g, g * 0.5 FROM generate_series(1, 500) g;"
             "INSERT INTO %s VALUES (7, 'seven-b', 70), (7, NULL, NULL);",
             name, name, name, name);
    admin_sql(sql);
}

static void expect_row(const Row *row, int64_t key)
{
    char name[32];
    snprintf(name, sizeof name, "item-%lld", (long long)key);
    uint32_t length;
    const char *text = row_get_string(row, 1, &length);
    ck_assert_int_eq(row_get_int64(row, 0), key);
    ck_assert_int_eq(length, strlen(name));
    ck_assert(memcmp(text, name, length) == 0);
    ck_assert_int_eq(row_get_int64(row, 2), key * 50); /* key * 0.5, scaled by 100 */
}

START_TEST(test_sync_lookup)
{
    create_dim("dim_sync");
    CatalogTable *table = dim_table("dim_sync", "3");
    TestLookup test;
    make_lookup_spec(&test, table);
    LookupFunction *function = NULL;
    Diag diag;
    diag_clear(&diag);
    ck_assert_msg(lookup_function_create(&test.spec, &function, &diag) == JOINERY_OK, "%s",
                  diag.message);
    RowBuilder builder;
    row_builder_init(&builder);
    Arena arena;
    arena_init(&arena, 4096);
    Row *slots[ROW_BATCH_CAPACITY];
    RowBatch out = {slots, 0, ROW_BATCH_CAPACITY};
    struct {
        int64_t key;
        bool is_null;
        uint32_t expected;
    } cases[] = {{42, false, 1}, {7, false, 3}, {0, false, 0},
                 {-5, false, 0}, {0, true, 0},  {500, false, 1}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        Row *key = int_key(&builder, cases[c].key, cases[c].is_null);
        out.count = 0;
        ck_assert_msg(function->vtable->lookup(function, key, &out, &arena, &diag) == JOINERY_OK,
                      "%s", diag.message);
        ck_assert_uint_eq(out.count, cases[c].expected);
        if (cases[c].expected == 1)
            expect_row(out.rows[0], cases[c].key);
        free(key);
    }
    ck_assert_uint_eq(function->requests, 6);
    function->vtable->close(function);
    arena_destroy(&arena);
    row_builder_free(&builder);
    catalog_table_free(table);
}
END_TEST

typedef struct Completions {
    uint64_t next_id; /* ids arrive in submission order */
    uint32_t counts[1024];
    int64_t keys[1024];
    bool key_null[1024];
    uint32_t done;
    uint32_t max_in_flight_seen;
} Completions;

static int on_complete(void *context, uint64_t request_id, Row *const *rows, uint32_t count)
{
    Completions *completions = context;
    ck_assert_uint_eq(request_id, completions->next_id);
    completions->next_id++;
    completions->counts[request_id] = count;
    for (uint32_t i = 0; i < count; i++)
        ck_assert_int_eq(row_get_int64(rows[i], 0), completions->keys[request_id]);
    if (count == 1)
        expect_row(rows[0], completions->keys[request_id]);
    completions->done++;
    return JOINERY_OK;
}

/* Polls until nothing is in flight, waiting on the function's descriptor. */
static void drain_lookup(LookupFunction *function, Completions *completions)
{
    Diag diag;
    diag_clear(&diag);
    for (int rounds = 0; function->in_flight > 0; rounds++) {
        ck_assert_int_lt(rounds, 100000);
        if (function->descriptor >= 0) {
            struct pollfd fd = {.fd = function->descriptor, .events = POLLIN};
            if (function->wait_events & LOOKUP_WAIT_WRITE)
                fd.events |= POLLOUT;
            poll(&fd, 1, 1000);
        }
        ck_assert_msg(function->vtable->poll(function, on_complete, completions, &diag) ==
                          JOINERY_OK,
                      "%s", diag.message);
    }
}

static uint32_t expected_count(int64_t key, bool is_null)
{
    if (is_null || key < 1 || key > 500)
        return 0;
    return key == 7 ? 3 : 1;
}

static void submit_keys(LookupFunction *function, Completions *completions, RowBuilder *builder,
                        uint32_t from, uint32_t to)
{
    Diag diag;
    diag_clear(&diag);
    for (uint32_t i = from; i < to; i++) {
        completions->keys[i] = (int64_t)(i * 37 % 601); /* 0..600: some beyond 500 */
        completions->key_null[i] = i % 50 == 13;
        Row *key = int_key(builder, completions->keys[i], completions->key_null[i]);
        ck_assert_msg(function->vtable->submit(function, key, i, &diag) == JOINERY_OK, "%s",
                      diag.message);
        free(key);
        if (function->in_flight > completions->max_in_flight_seen)
            completions->max_in_flight_seen = function->in_flight;
    }
}

START_TEST(test_async_many_in_flight)
{
    create_dim("dim_async");
    CatalogTable *table = dim_table("dim_async", "3");
    TestLookup test;
    make_lookup_spec(&test, table);
    LookupFunction *function = NULL;
    Diag diag;
    diag_clear(&diag);
    ck_assert_msg(lookup_function_create(&test.spec, &function, &diag) == JOINERY_OK, "%s",
                  diag.message);
    RowBuilder builder;
    row_builder_init(&builder);
    Completions *completions = calloc(1, sizeof *completions);
    submit_keys(function, completions, &builder, 0, 600);
    ck_assert_uint_eq(completions->max_in_flight_seen, 600); /* none waited for */
    drain_lookup(function, completions);
    ck_assert_uint_eq(completions->done, 600);
    uint32_t matched = 0;
    for (uint32_t i = 0; i < 600; i++) {
        ck_assert_uint_eq(completions->counts[i],
                          expected_count(completions->keys[i], completions->key_null[i]));
        matched += completions->counts[i] > 0;
    }
    ck_assert_uint_gt(matched, 400);
    ck_assert_uint_lt(matched, 600);
    /* back to synchronous use once nothing is in flight */
    Row *slots[16];
    RowBatch out = {slots, 0, 16};
    Arena arena;
    arena_init(&arena, 4096);
    Row *key = int_key(&builder, 7, false);
    ck_assert_msg(function->vtable->lookup(function, key, &out, &arena, &diag) == JOINERY_OK, "%s",
                  diag.message);
    ck_assert_uint_eq(out.count, 3);
    free(key);
    arena_destroy(&arena);
    free(completions);
    function->vtable->close(function);
    row_builder_free(&builder);
    catalog_table_free(table);
}
END_TEST

static void restart_server(void)
{
    char command[512];
    snprintf(command, sizeof command, "tests/jdbc/postgres.sh restart %s", pg_dir);
    ck_assert_int_eq(system(command), 0);
}

START_TEST(test_reconnect_after_restart)
{
    if (!pg_dir[0])
        return; /* a server started by someone else is not restarted */
    create_dim("dim_restart");
    CatalogTable *table = dim_table("dim_restart", "5");
    TestLookup test;
    make_lookup_spec(&test, table);
    LookupFunction *function = NULL;
    Diag diag;
    diag_clear(&diag);
    ck_assert_msg(lookup_function_create(&test.spec, &function, &diag) == JOINERY_OK, "%s",
                  diag.message);
    RowBuilder builder;
    row_builder_init(&builder);
    Row *slots[16];
    RowBatch out = {slots, 0, 16};
    Arena arena;
    arena_init(&arena, 4096);
    Row *key = int_key(&builder, 9, false);
    ck_assert(function->vtable->lookup(function, key, &out, &arena, &diag) == JOINERY_OK);
    restart_server();
    out.count = 0;
    ck_assert_msg(function->vtable->lookup(function, key, &out, &arena, &diag) == JOINERY_OK, "%s",
                  diag.message);
    ck_assert_uint_eq(out.count, 1);
    expect_row(out.rows[0], 9);
    ck_assert_uint_eq(function->reconnects, 1);
    free(key);
    /* async: a batch done, the server restarted, the next batch still complete */
    Completions *completions = calloc(1, sizeof *completions);
    submit_keys(function, completions, &builder, 0, 100);
    drain_lookup(function, completions);
    restart_server();
    submit_keys(function, completions, &builder, 100, 300);
    drain_lookup(function, completions);
    ck_assert_uint_eq(completions->done, 300);
    for (uint32_t i = 0; i < 300; i++)
        ck_assert_uint_eq(completions->counts[i],
                          expected_count(completions->keys[i], completions->key_null[i]));
    ck_assert_uint_eq(function->reconnects, 2);
    free(completions);
    arena_destroy(&arena);
    function->vtable->close(function);
    row_builder_free(&builder);
    catalog_table_free(table);
}
END_TEST

static void expect_create_error(CatalogTable *table, const char *expected)
{
    TestLookup test;
    make_lookup_spec(&test, table);
    LookupFunction *function = NULL;
    Diag diag;
    diag_clear(&diag);
    ck_assert_int_ne(lookup_function_create(&test.spec, &function, &diag), JOINERY_OK);
    ck_assert_msg(strstr(diag.message, expected) != NULL, "got: %s", diag.message);
    ck_assert_ptr_null(strstr(diag.message, PASSWORD));
    catalog_table_free(table);
}

START_TEST(test_errors)
{
    char store[300];
    snprintf(store, sizeof store, "PostgreSQL at 127.0.0.1:%s/joinery", pg_port);
    char expected[512];
    snprintf(expected, sizeof expected, "Table 'dim': table 'no_such' does not exist in %s", store);
    expect_create_error(dim_table("no_such", "3"), expected);
    admin_sql("DROP TABLE IF EXISTS dim_types; CREATE TABLE dim_types (k int, name text, price "
              "double precision)");
    snprintf(expected, sizeof expected,
             "Table 'dim': column 'price' is declared DECIMAL(10, 2) but is double precision in "
             "table 'dim_types' of %s",
             store);
    expect_create_error(dim_table("dim_types", "3"), expected);
    /* a table dropped under a running lookup: the request's error, naming table and store */
    create_dim("dim_dropped");
    CatalogTable *table = dim_table("dim_dropped", "3");
    TestLookup test;
    make_lookup_spec(&test, table);
    LookupFunction *function = NULL;
    Diag diag;
    diag_clear(&diag);
    ck_assert(lookup_function_create(&test.spec, &function, &diag) == JOINERY_OK);
    admin_sql("DROP TABLE dim_dropped");
    RowBuilder builder;
    row_builder_init(&builder);
    Row *key = int_key(&builder, 3, false);
    ck_assert_int_eq(function->vtable->submit(function, key, 0, &diag), JOINERY_OK);
    Completions *completions = calloc(1, sizeof *completions);
    int status = JOINERY_OK;
    for (int rounds = 0; status == JOINERY_OK && function->in_flight > 0 && rounds < 1000;
         rounds++) {
        struct pollfd fd = {.fd = function->descriptor, .events = POLLIN};
        poll(&fd, 1, 1000);
        status = function->vtable->poll(function, on_complete, completions, &diag);
    }
    ck_assert_int_eq(status, JOINERY_ERROR_RUNTIME);
    snprintf(expected, sizeof expected,
             "Table 'dim': looking up 'dim_dropped' in %s failed: ", store);
    ck_assert_msg(strstr(diag.message, expected) &&
                      strstr(diag.message, "dim_dropped\" does not exist"),
                  "got: %s", diag.message);
    free(completions);
    free(key);
    function->vtable->close(function);
    row_builder_free(&builder);
    catalog_table_free(table);
}
END_TEST

START_TEST(test_no_server)
{
    char saved[256];
    snprintf(saved, sizeof saved, "%s", pg_url);
    snprintf(pg_url, sizeof pg_url, "jdbc:postgresql://127.0.0.1:1/joinery");
    expect_create_error(dim_table("dim_sync", "3"),
                        "Table 'dim': cannot connect to PostgreSQL at 127.0.0.1:1/joinery: ");
    snprintf(pg_url, sizeof pg_url, "%s", saved);
}
END_TEST

static Suite *jdbc_lookup_suite(void)
{
    Suite *suite = suite_create("jdbc_lookup");
    TCase *tcase = tcase_create("postgresql");
    tcase_set_timeout(tcase, 60);
    tcase_add_test(tcase, test_sync_lookup);
    tcase_add_test(tcase, test_async_many_in_flight);
    tcase_add_test(tcase, test_errors);
    tcase_add_test(tcase, test_no_server);
    tcase_add_test(tcase, test_reconnect_after_restart);
    suite_add_tcase(suite, tcase);
    return suite;
}

/* Reads "export NAME=value" lines of postgres.sh start. */
static void read_server_env(FILE *lines, char *dir_out)
{
    char line[512];
    while (fgets(line, sizeof line, lines)) {
        line[strcspn(line, "\n")] = '\0';
        if (strncmp(line, "export JOINERY_PG_DIR=", 22) == 0)
            snprintf(dir_out, 256, "%.200s", line + 22);
        else if (strncmp(line, "export JOINERY_PG_URL=", 22) == 0)
            snprintf(pg_url, sizeof pg_url, "%.200s", line + 22);
        else if (strncmp(line, "export PGPORT=", 14) == 0)
            snprintf(pg_port, sizeof pg_port, "%.8s", line + 14);
    }
}

int main(void)
{
    const char *url = getenv("JOINERY_PG_URL");
    const char *port = getenv("PGPORT");
    bool started = false;
    if (url && port) {
        snprintf(pg_url, sizeof pg_url, "%s", url);
        snprintf(pg_port, sizeof pg_port, "%s", port);
    } else {
        FILE *lines = popen("tests/jdbc/postgres.sh start", "r");
        if (!lines) {
            printf("check_jdbc_lookup: cannot run tests/jdbc/postgres.sh\n");
            return EXIT_FAILURE;
        }
        read_server_env(lines, pg_dir);
        int status = pclose(lines);
        if (WIFEXITED(status) && WEXITSTATUS(status) == 2) {
            printf("check_jdbc_lookup: skipped, PostgreSQL cannot be installed\n");
            return EXIT_SUCCESS;
        }
        if (status != 0 || !pg_dir[0]) {
            printf("check_jdbc_lookup: tests/jdbc/postgres.sh start failed\n");
            return EXIT_FAILURE;
        }
        started = true;
    }
    SRunner *runner = srunner_create(jdbc_lookup_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    if (started) {
        char command[512];
        snprintf(command, sizeof command, "tests/jdbc/postgres.sh stop %s", pg_dir);
        if (system(command) != 0)
            failed++;
    }
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
