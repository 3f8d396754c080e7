/*
 * check_jdbc_lookup.c - the jdbc connector's lookup function (lookup.h)
 * against a real PostgreSQL server: tests/jdbc/postgres.sh starts one for
 * the suite (or JOINERY_PG_URL / PGPORT name a running one). When
 * PostgreSQL cannot be installed the suite says so on one line and passes
 * without running (nothing is mocked).
 *
 * Covered: the cases every store runs (lookup_fixture.h: sync, async in
 * flight, restarts, no server, wrong password) over a table where key 7
 * has three rows, and errors naming table, store and column (missing
 * table, type mismatch, a table dropped under a running lookup), never
 * the password; the requests submitted between two polls sent as one
 * group with one Sync (one server transaction), and a statement failing
 * inside a group.
 */
#include <check.h>
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/lookup_fixture.h"

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

/* Table dim (k INT, name STRING, price DECIMAL(10, 2)) over `table_name` (LookupStore.dim_table).
 */
static CatalogTable *dim_table(const char *table_name, const char *max_retries,
                               const char *password, const char *port)
{
    char url[300];
    if (port)
        snprintf(url, sizeof url, "jdbc:postgresql://127.0.0.1:%s/joinery", port);
    else
        snprintf(url, sizeof url, "%s", pg_url);
    TestColumn columns[] = {
        {"k", type_make(TYPE_INT, true), NULL},
        {"name", type_make_varchar(TYPE_STRING_LENGTH, true), NULL},
        {"price", type_make_decimal(10, 2, true), NULL},
    };
    const char *options[] = {"connector",          "jdbc",     "url",     url,        "table-name",
                             table_name,           "username", "joinery", "password", password,
                             "lookup.max-retries", max_retries};
    CatalogTable *table = make_table("dim", columns, 3, options, 6);
    Diag diag;
    diag_clear(&diag);
    ck_assert_msg(connector_validate_table(table, &diag) == JOINERY_OK, "%s", diag.message);
    return table;
}

/* The rows of a dim table: keys 1..500 once, key 7 twice more, key 0 never. */
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

static void expect_row(const Row *row, int64_t key, uint32_t count)
{
    ck_assert_int_eq(row_get_int64(row, 0), key);
    if (count != 1)
        return;
    char name[32];
    snprintf(name, sizeof name, "item-%lld", (long long)key);
    uint32_t length;
    const char *text = row_get_string(row, 1, &length);
    ck_assert_int_eq(length, strlen(name));
    ck_assert(memcmp(text, name, length) == 0);
    ck_assert_int_eq(row_get_int64(row, 2), key * 50); /* key * 0.5, scaled by 100 */
}

static uint32_t expected_count(int64_t key, bool is_null)
{
    if (is_null || key < 1 || key > 500)
        return 0;
    return key == 7 ? 3 : 1;
}

static void restart_server(void)
{
    ck_assert_int_eq(run_command("tests/jdbc/postgres.sh restart %s", pg_dir), 0);
}

static void expect_table_error(CatalogTable *table, const char *expected)
{
    TestLookup test;
    make_lookup_spec(&test, table, 1);
    expect_create_error(&test, expected, PASSWORD);
    catalog_table_free(table);
}

START_TEST(test_errors)
{
    char store[300];
    snprintf(store, sizeof store, "PostgreSQL at 127.0.0.1:%s/joinery", pg_port);
    char expected[512];
    snprintf(expected, sizeof expected, "Table 'dim': table 'no_such' does not exist in %s", store);
    expect_table_error(dim_table("no_such", "3", PASSWORD, NULL), expected);
    admin_sql("DROP TABLE IF EXISTS dim_types; CREATE TABLE dim_types (k int, name text, price "
              "double precision)");
    snprintf(expected, sizeof expected,
             "Table 'dim': column 'price' is declared DECIMAL(10, 2) but is double precision in "
             "table 'dim_types' of %s",
             store);
    expect_table_error(dim_table("dim_types", "3", PASSWORD, NULL), expected);
    /* a table dropped under a running lookup: the request's error, naming table and store */
    create_dim("dim_dropped");
    CatalogTable *table = dim_table("dim_dropped", "3", PASSWORD, NULL);
    TestLookup test;
    make_lookup_spec(&test, table, 1);
    LookupFunction *function = create_lookup(&test);
    admin_sql("DROP TABLE dim_dropped");
    RowBuilder builder;
    row_builder_init(&builder);
    Diag diag;
    diag_clear(&diag);
    Row *key = int_key(&builder, 3, false);
    Completions *completions = calloc(1, sizeof *completions);
    int status = function->vtable->submit(function, key, 0, &diag); /* may already fail */
    if (status == JOINERY_OK)
        status = poll_until_error(function, completions, &diag);
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

/* The name column of each completed request, by request id (test_one_sync_per_poll). */
typedef struct Names {
    char text[64][64];
    uint32_t done;
} Names;

static int record_name(void *context, uint64_t request_id, Row *const *rows, uint32_t count)
{
    Names *names = context;
    ck_assert_uint_eq(request_id, names->done);
    ck_assert_uint_eq(count, 1);
    uint32_t length;
    const char *text = row_get_string(rows[0], 1, &length);
    ck_assert_uint_lt(length, sizeof names->text[0]);
    memcpy(names->text[names->done], text, length);
    names->text[names->done][length] = '\0';
    names->done++;
    return JOINERY_OK;
}

/* Submits keys first..first+count (no poll between), then polls until all are done. */
static void lookup_batch(LookupFunction *function, RowBuilder *builder, Names *names,
                         uint32_t first, uint32_t count)
{
    Diag diag;
    diag_clear(&diag);
    for (uint32_t i = 0; i < count; i++) {
        Row *key = int_key(builder, first + i, false);
        ck_assert_msg(function->vtable->submit(function, key, names->done + i, &diag) == JOINERY_OK,
                      "%s", diag.message);
        free(key);
    }
    for (int rounds = 0; function->in_flight > 0; rounds++) {
        ck_assert_int_lt(rounds, 10000);
        if (function->descriptor >= 0) {
            struct pollfd fd = {.fd = function->descriptor, .events = POLLIN};
            if (function->wait_events & LOOKUP_WAIT_WRITE)
                fd.events |= POLLOUT;
            poll(&fd, 1, 1000);
        }
        ck_assert_msg(function->vtable->poll(function, record_name, names, &diag) == JOINERY_OK,
                      "%s", diag.message);
    }
}

/*
 * The requests submitted between two polls go to the server as one group
 * ended by one Sync: one transaction, so now() (the transaction's start) is
 * the same for all of them, and differs in the next group.
 */
START_TEST(test_one_sync_per_poll)
{
    admin_sql("DROP VIEW IF EXISTS dim_now; CREATE VIEW dim_now AS SELECT k, "
              "to_char(now(), 'HH24:MI:SS.US') AS name, 0::numeric(10,2) AS price "
              "FROM generate_series(1, 100) k");
    CatalogTable *table = dim_table("dim_now", "3", PASSWORD, NULL);
    TestLookup test;
    make_lookup_spec(&test, table, 1);
    LookupFunction *function = create_lookup(&test);
    RowBuilder builder;
    row_builder_init(&builder);
    Names *names = calloc(1, sizeof *names);
    lookup_batch(function, &builder, names, 1, 20);
    lookup_batch(function, &builder, names, 41, 20);
    ck_assert_uint_eq(names->done, 40);
    for (uint32_t i = 1; i < 20; i++) {
        ck_assert_str_eq(names->text[i], names->text[0]);
        ck_assert_str_eq(names->text[20 + i], names->text[20]);
    }
    ck_assert_str_ne(names->text[0], names->text[20]);
    free(names);
    function->vtable->close(function);
    row_builder_free(&builder);
    catalog_table_free(table);
}
END_TEST

/*
 * A statement failing in the middle of a group (division by zero for key
 * 13): the poll fails with that request's error, naming table and store;
 * the aborted statements after it do not hang the function.
 */
START_TEST(test_error_in_sync_group)
{
    admin_sql("DROP VIEW IF EXISTS dim_div; CREATE VIEW dim_div AS SELECT k, "
              "(100 / (k - 13))::text AS name, 0::numeric(10,2) AS price "
              "FROM generate_series(1, 30) k");
    CatalogTable *table = dim_table("dim_div", "3", PASSWORD, NULL);
    TestLookup test;
    make_lookup_spec(&test, table, 1);
    LookupFunction *function = create_lookup(&test);
    RowBuilder builder;
    row_builder_init(&builder);
    Diag diag;
    diag_clear(&diag);
    for (uint32_t i = 0; i < 10; i++) {
        Row *key = int_key(&builder, 9 + i, false);
        ck_assert_int_eq(function->vtable->submit(function, key, i, &diag), JOINERY_OK);
        free(key);
    }
    Names *names = calloc(1, sizeof *names);
    int status = JOINERY_OK;
    for (int rounds = 0; status == JOINERY_OK && function->in_flight > 0 && rounds < 1000;
         rounds++) {
        if (function->descriptor >= 0) {
            struct pollfd fd = {.fd = function->descriptor, .events = POLLIN};
            poll(&fd, 1, 1000);
        }
        status = function->vtable->poll(function, record_name, names, &diag);
    }
    ck_assert_int_eq(status, JOINERY_ERROR_RUNTIME);
    ck_assert_msg(strstr(diag.message, "Table 'dim': looking up 'dim_div' in PostgreSQL at") &&
                      strstr(diag.message, "division by zero"),
                  "got: %s", diag.message);
    ck_assert_uint_le(names->done, 4); /* keys 9..12 at most: none from 13 on */
    free(names);
    function->vtable->close(function);
    row_builder_free(&builder);
    catalog_table_free(table);
}
END_TEST

static const LookupStore POSTGRESQL = {
    .load_dim = create_dim,
    .dim_table = dim_table,
    .check_row = expect_row,
    .expected_count = expected_count,
    .store_format = "PostgreSQL at 127.0.0.1:%s/joinery",
    .port = pg_port,
    .password = PASSWORD,
    .wrong_password = "Table 'dim': cannot connect to %s: ", /* libpq's reason follows */
};

static Suite *jdbc_lookup_suite(void)
{
    Suite *suite = suite_create("jdbc_lookup");
    TCase *tcase = tcase_create("postgresql");
    tcase_set_timeout(tcase, 60);
    static LookupStore store;
    store = POSTGRESQL;
    store.restart = pg_dir[0] ? restart_server : NULL;
    lookup_fixture_add_cases(tcase, &store);
    tcase_add_test(tcase, test_errors);
    tcase_add_test(tcase, test_one_sync_per_poll);
    tcase_add_test(tcase, test_error_in_sync_group);
    suite_add_tcase(suite, tcase);
    return suite;
}

int main(void)
{
    const char *url = getenv("JOINERY_PG_URL");
    const char *port = getenv("PGPORT");
    if (url && port) {
        snprintf(pg_url, sizeof pg_url, "%s", url);
        snprintf(pg_port, sizeof pg_port, "%s", port);
    } else {
        ServerEnv env;
        int started = server_start("tests/jdbc/postgres.sh start", &env);
        if (started == 2) {
            printf("check_jdbc_lookup: skipped, PostgreSQL cannot be installed\n");
            return EXIT_SUCCESS;
        }
        if (started != 0 || !server_env(&env, "JOINERY_PG_DIR")) {
            printf("check_jdbc_lookup: tests/jdbc/postgres.sh start failed\n");
            return EXIT_FAILURE;
        }
        snprintf(pg_dir, sizeof pg_dir, "%s", server_env(&env, "JOINERY_PG_DIR"));
        snprintf(pg_url, sizeof pg_url, "%s", server_env(&env, "JOINERY_PG_URL"));
        snprintf(pg_port, sizeof pg_port, "%s", server_env(&env, "PGPORT"));
    }
    int failed = run_suite(jdbc_lookup_suite());
    if (pg_dir[0] && run_command("tests/jdbc/postgres.sh stop %s", pg_dir) != 0)
        failed++;
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
