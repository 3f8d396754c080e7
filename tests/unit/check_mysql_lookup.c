/*
 * check_mysql_lookup.c - the jdbc connector's lookup function (lookup.h)
 * for MySQL / MariaDB against a real MariaDB server: tests/jdbc/mariadb.sh
 * starts one for the suite (or JOINERY_MYSQL_URL / JOINERY_MYSQL_PORT name
 * a running one). When MariaDB cannot be installed the suite says so on
 * one line and passes without running (nothing is mocked).
 *
 * Covered: the cases every store runs (lookup_fixture.h: sync, async in
 * flight, restarts with requests on the wire and waiting for the
 * connection, no server, wrong password) over a table where key 7 has
 * three rows; the key types of Flink's MySQL mapping and the
 * jdbc:mariadb:// url; errors naming table, store and column (missing
 * table, type mismatch, a table dropped under a running lookup), never
 * the password.
 */
#include <check.h>
#include <mysql.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/lookup_fixture.h"

static char my_url[256];
static char my_dir[256];
static char my_port[16];
static const char PASSWORD[] = "joinery-secret";

/* Runs SQL (several statements) as user joinery (test setup); fails the test on an error. */
static void admin_sql(const char *sql)
{
    MYSQL *mysql = mysql_init(NULL);
    unsigned int protocol = MYSQL_PROTOCOL_TCP;
    mysql_optionsv(mysql, MYSQL_OPT_PROTOCOL, &protocol);
    ck_assert_msg(mysql_real_connect(mysql, "127.0.0.1", "joinery", PASSWORD, "joinery",
                                     (unsigned int)atoi(my_port), NULL, CLIENT_MULTI_STATEMENTS),
                  "%s", mysql_error(mysql));
    ck_assert_msg(mysql_query(mysql, sql) == 0, "%s", mysql_error(mysql));
    int next;
    do {
        MYSQL_RES *result = mysql_store_result(mysql);
        if (result)
            mysql_free_result(result);
        ck_assert_msg(mysql_errno(mysql) == 0, "%s", mysql_error(mysql));
        next = mysql_next_result(mysql);
        ck_assert_msg(next <= 0, "%s", mysql_error(mysql));
    } while (next == 0);
    mysql_close(mysql);
}

/* Table dim (k INT, name STRING, price DECIMAL(10, 2)) over `table_name` (LookupStore.dim_table).
 */
static CatalogTable *dim_table(const char *table_name, const char *max_retries,
                               const char *password, const char *port)
{
    char url[300];
    if (port)
        snprintf(url, sizeof url, "jdbc:mysql://127.0.0.1:%s/joinery", port);
    else
        snprintf(url, sizeof url, "%s", my_url);
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
             "DROP TABLE IF EXISTS %s; CREATE TABLE %s (k int, name text, price decimal(10,2), "
             "KEY (k)); INSERT INTO %s SELECT seq, CONCAT('item-', seq), seq * 0.5 FROM "
             "seq_1_to_500; INSERT INTO %s VALUES (7, 'seven-b', 70), (7, NULL, NULL);",
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
    ck_assert_int_eq(run_command("tests/jdbc/mariadb.sh restart %s", my_dir), 0);
}

/* A composite key of other types: (code VARCHAR, flag BOOLEAN) -> (amount BIGINT, at TIMESTAMP). */
START_TEST(test_composite_key_types)
{
    admin_sql("DROP TABLE IF EXISTS dim_codes; CREATE TABLE dim_codes (code varchar(20), flag "
              "boolean, amount int unsigned, at datetime(3)); INSERT INTO dim_codes VALUES "
              "('it''s', TRUE, 4294967295, '2024-05-01 10:00:00.250'), ('it''s', FALSE, 1, "
              "NULL), ('back\\\\slash', TRUE, 2, '1970-01-01 00:00:00'), ('naïve', TRUE, 3, "
              "NULL)");
    TestColumn columns[] = {
        {"code", type_make_varchar(20, true), NULL},
        {"flag", type_make(TYPE_BOOLEAN, true), NULL},
        {"amount", type_make(TYPE_BIGINT, true), NULL},
        {"at", type_make_timestamp(TYPE_TIMESTAMP, 3, true), NULL},
    };
    char url[300];
    snprintf(url, sizeof url, "jdbc:mariadb://127.0.0.1:%s/joinery", my_port);
    const char *options[] = {"connector", "jdbc",     "url",     url,        "table-name",
                             "dim_codes", "username", "joinery", "password", PASSWORD};
    CatalogTable *table = make_table("codes", columns, 4, options, 5);
    Diag diag;
    diag_clear(&diag);
    ck_assert_msg(connector_validate_table(table, &diag) == JOINERY_OK, "%s", diag.message);
    TestLookup test;
    make_lookup_spec(&test, table, 2);
    LookupFunction *function = create_lookup(&test);
    RowBuilder builder;
    row_builder_init(&builder);
    Arena arena;
    arena_init(&arena, 4096);
    Row *slots[8];
    RowBatch out = {slots, 0, 8};
    struct {
        const char *code;
        bool flag;
        int64_t amount; /* -1: no match */
        int64_t at;     /* -2: NULL */
    } cases[] = {{"it's", true, 4294967295LL, 1714557600250LL},
                 {"it's", false, 1, -2},
                 {"back\\slash", true, 2, 0},
                 {"naïve", true, 3, -2},
                 {"naïve", false, -1, 0},
                 {"missing", true, -1, 0}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        row_builder_begin(&builder, 2, ROW_KIND_INSERT);
        row_builder_set_string(&builder, 0, cases[c].code, (uint32_t)strlen(cases[c].code));
        row_builder_set_int64(&builder, 1, cases[c].flag);
        Row *key = row_copy_heap(row_builder_finish(&builder));
        out.count = 0;
        ck_assert_msg(function->vtable->lookup(function, key, &out, &arena, &diag) == JOINERY_OK,
                      "%s", diag.message);
        ck_assert_uint_eq(out.count, cases[c].amount < 0 ? 0 : 1);
        if (out.count == 1) {
            ck_assert_int_eq(row_get_int64(out.rows[0], 2), cases[c].amount);
            if (cases[c].at == -2)
                ck_assert(row_is_null(out.rows[0], 3));
            else
                ck_assert_int_eq(row_get_int64(out.rows[0], 3), cases[c].at);
        }
        free(key);
    }
    function->vtable->close(function);
    arena_destroy(&arena);
    row_builder_free(&builder);
    catalog_table_free(table);
}
END_TEST

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
    snprintf(store, sizeof store, "MySQL at 127.0.0.1:%s/joinery", my_port);
    char expected[512];
    snprintf(expected, sizeof expected, "Table 'dim': table 'no_such' does not exist in %s", store);
    expect_table_error(dim_table("no_such", "3", PASSWORD, NULL), expected);
    admin_sql("DROP TABLE IF EXISTS dim_types; CREATE TABLE dim_types (k int, name text, price "
              "double)");
    snprintf(expected, sizeof expected,
             "Table 'dim': column 'price' is declared DECIMAL(10, 2) but is double in "
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
                      strstr(diag.message, "dim_dropped' doesn't exist"),
                  "got: %s", diag.message);
    free(completions);
    free(key);
    function->vtable->close(function);
    row_builder_free(&builder);
    catalog_table_free(table);
}
END_TEST

static const LookupStore MARIADB = {
    .load_dim = create_dim,
    .dim_table = dim_table,
    .check_row = expect_row,
    .expected_count = expected_count,
    .store_format = "MySQL at 127.0.0.1:%s/joinery",
    .port = my_port,
    .password = PASSWORD,
    .wrong_password = "Table 'dim': cannot connect to %s: ", /* the server's reason follows */
};

static Suite *mysql_lookup_suite(void)
{
    Suite *suite = suite_create("mysql_lookup");
    TCase *tcase = tcase_create("mariadb");
    tcase_set_timeout(tcase, 60);
    static LookupStore store;
    store = MARIADB;
    store.restart = my_dir[0] ? restart_server : NULL;
    lookup_fixture_add_cases(tcase, &store);
    tcase_add_test(tcase, test_errors);
    tcase_add_test(tcase, test_composite_key_types);
    suite_add_tcase(suite, tcase);
    return suite;
}

int main(void)
{
    const char *url = getenv("JOINERY_MYSQL_URL");
    const char *port = getenv("JOINERY_MYSQL_PORT");
    if (url && port) {
        snprintf(my_url, sizeof my_url, "%s", url);
        snprintf(my_port, sizeof my_port, "%s", port);
    } else {
        ServerEnv env;
        int started = server_start("tests/jdbc/mariadb.sh start", &env);
        if (started == 2) {
            printf("check_mysql_lookup: skipped, MariaDB cannot be installed\n");
            return EXIT_SUCCESS;
        }
        if (started != 0 || !server_env(&env, "JOINERY_MYSQL_DIR")) {
            printf("check_mysql_lookup: tests/jdbc/mariadb.sh start failed\n");
            return EXIT_FAILURE;
        }
        snprintf(my_dir, sizeof my_dir, "%s", server_env(&env, "JOINERY_MYSQL_DIR"));
        snprintf(my_url, sizeof my_url, "%s", server_env(&env, "JOINERY_MYSQL_URL"));
        snprintf(my_port, sizeof my_port, "%s", server_env(&env, "JOINERY_MYSQL_PORT"));
    }
    int failed = run_suite(mysql_lookup_suite());
    if (my_dir[0] && run_command("tests/jdbc/mariadb.sh stop %s", my_dir) != 0)
        failed++;
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
