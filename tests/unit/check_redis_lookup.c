/*
 * check_redis_lookup.c - the redis connector's lookup function (lookup.h)
 * against a real Redis server: tests/redis/redis.sh starts one for the
 * suite (with a password and an ACL user). When Redis cannot be installed
 * the suite says so on one line and passes without running (nothing is
 * mocked).
 *
 * Covered: the cases every store runs (lookup_fixture.h: sync, async in
 * flight, the server restarted between batches and with requests on the
 * wire, connection refused, wrong password) for the string layout ('get',
 * a value column); the row layout (the value is every column joined by
 * '\x01'), the hash layout ('hget': key and field) and the hash-row layout
 * ('hmget': fields are columns), sync and async; errors at start naming
 * the table and the store (no password, lookup not by the key) and at
 * lookup (a key of another data type), never the password; the ACL user.
 */
#include <check.h>
#include <hiredis/hiredis.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/lookup_fixture.h"

static char redis_dir[256];
static char redis_port[16];
static const char PASSWORD[] = "joinery-secret";

/* Runs one command on the server (test setup); fails the test on an error reply. */
static void admin(const char *format, ...) __attribute__((format(printf, 1, 2)));
static void admin(const char *format, ...)
{
    static redisContext *context; /* one per test process (Check forks each test) */
    redisReply *reply = NULL;
    for (int attempt = 0; attempt < 2 && !reply; attempt++) {
        if (context && context->err) { /* the server was restarted (CK_FORK=no runs) */
            redisFree(context);
            context = NULL;
        }
        if (!context) {
            context = redisConnect("127.0.0.1", atoi(redis_port));
            ck_assert_msg(context && !context->err, "connect: %s", context ? context->errstr : "");
            redisReply *auth = redisCommand(context, "AUTH %s", PASSWORD);
            ck_assert(auth && auth->type != REDIS_REPLY_ERROR);
            freeReplyObject(auth);
        }
        va_list args;
        va_start(args, format);
        reply = redisvCommand(context, format, args);
        va_end(args);
    }
    ck_assert_msg(reply && reply->type != REDIS_REPLY_ERROR, "%s", reply ? reply->str : "");
    freeReplyObject(reply);
}

/* keys 1..500 in each layout; key 0 and 501.. never. */
static void load_data(void)
{
    admin("FLUSHALL");
    for (int k = 1; k <= 500; k++) {
        admin("SET %d item-%d", k, k);
        admin("SET row:%d row:%d\x01item-%d\x01%d.50", k, k, k, k);
        admin("HSET h%d name item-%d", k % 10, k);
        admin("HSET %d name item-%d score %d.25", k + 1000, k, k);
    }
    admin("HSET 1007 name seven");
    admin("HDEL 1007 score"); /* a hash without one of its fields */
    admin("HSET wrongtype f v");
}

static CatalogTable *redis_table(const char *name, const TestColumn *columns, size_t count,
                                 const char *command, const char *structure, const char *password,
                                 const char *port, const char *max_retries)
{
    const char *options[14] = {"connector",
                               "redis",
                               "host",
                               "127.0.0.1",
                               "port",
                               port,
                               "command",
                               command,
                               "value.data.structure",
                               structure,
                               "lookup.max-retries",
                               max_retries,
                               "password",
                               password};
    CatalogTable *table = make_table(name, columns, count, options, password ? 7 : 6);
    Diag diag;
    diag_clear(&diag);
    ck_assert_msg(connector_validate_table(table, &diag) == JOINERY_OK, "%s", diag.message);
    return table;
}

/* Table dim (k INT, name STRING): 'get' of key <k> (LookupStore.dim_table; one keyspace). */
static CatalogTable *string_table(const char *data, const char *max_retries, const char *password,
                                  const char *port)
{
    (void)data;
    TestColumn columns[] = {
        {"k", type_make(TYPE_INT, true), NULL},
        {"name", type_make_varchar(TYPE_STRING_LENGTH, true), NULL},
    };
    return redis_table("dim", columns, 2, "get", "column", password, port ? port : redis_port,
                       max_retries);
}

static void load_dim(const char *name)
{
    (void)name;
    load_data();
}

static void expect_string_row(const Row *row, int64_t key, uint32_t count)
{
    ck_assert_uint_eq(count, 1);
    ck_assert_int_eq(row_get_int64(row, 0), key);
    char name[32];
    snprintf(name, sizeof name, "item-%lld", (long long)key);
    uint32_t length;
    const char *text = row_get_string(row, 1, &length);
    ck_assert_int_eq(length, strlen(name));
    ck_assert(memcmp(text, name, length) == 0);
}

static uint32_t expected_count(int64_t key, bool is_null)
{
    return !is_null && key >= 1 && key <= 500 ? 1 : 0;
}

/* The row layout: 'row:<k>' holds "row:<k>\x01item-<k>\x01<k>.50". */
START_TEST(test_row_layout)
{
    load_data();
    TestColumn columns[] = {
        {"k", type_make_varchar(TYPE_STRING_LENGTH, true), NULL},
        {"name", type_make_varchar(TYPE_STRING_LENGTH, true), NULL},
        {"price", type_make_decimal(10, 2, true), NULL},
    };
    CatalogTable *table = redis_table("rows", columns, 3, "get", "row", PASSWORD, redis_port, "5");
    TestLookup test;
    make_lookup_spec(&test, table, 1);
    LookupFunction *function = create_lookup(&test);
    RowBuilder builder;
    row_builder_init(&builder);
    Diag diag;
    diag_clear(&diag);
    Completions *completions = calloc(1, sizeof *completions);
    const char *keys[] = {"row:3", "row:777", NULL, "row:500"};
    for (uint32_t i = 0; i < 4; i++) {
        Row *key = string_key(&builder, keys[i]);
        ck_assert_msg(function->vtable->submit(function, key, i, &diag) == JOINERY_OK, "%s",
                      diag.message);
        free(key);
    }
    drain_lookup(function, completions);
    ck_assert_uint_eq(completions->counts[0], 1);
    ck_assert_uint_eq(completions->counts[1], 0);
    ck_assert_uint_eq(completions->counts[2], 0);
    ck_assert_uint_eq(completions->counts[3], 1);
    /* the values, synchronously */
    Arena arena;
    arena_init(&arena, 4096);
    Row *slots[2];
    RowBatch out = {slots, 0, 2};
    Row *key = string_key(&builder, "row:500");
    ck_assert_msg(function->vtable->lookup(function, key, &out, &arena, &diag) == JOINERY_OK, "%s",
                  diag.message);
    ck_assert_uint_eq(out.count, 1);
    uint32_t length;
    const char *text = row_get_string(out.rows[0], 1, &length);
    ck_assert(length == 8 && memcmp(text, "item-500", 8) == 0);
    ck_assert_int_eq(row_get_int64(out.rows[0], 2), 50050);
    free(key);
    /* a value with the wrong number of fields is an error naming the key */
    admin("SET row:bad only\x01two");
    key = string_key(&builder, "row:bad");
    out.count = 0;
    ck_assert_int_ne(function->vtable->lookup(function, key, &out, &arena, &diag), JOINERY_OK);
    ck_assert_msg(strstr(diag.message, "the value of key 'row:bad' in Redis at 127.0.0.1:") &&
                      strstr(diag.message, "has 2 fields"),
                  "%s", diag.message);
    free(key);
    arena_destroy(&arena);
    free(completions);
    function->vtable->close(function);
    row_builder_free(&builder);
    catalog_table_free(table);
}
END_TEST

/* hget: key h<k % 10>, field 'name' holds item-<last k>; hmget: hash <k + 1000>. */
START_TEST(test_hash_layouts)
{
    load_data();
    TestColumn hash_columns[] = {
        {"key", type_make_varchar(TYPE_STRING_LENGTH, true), NULL},
        {"field", type_make_varchar(TYPE_STRING_LENGTH, true), NULL},
        {"value", type_make_varchar(TYPE_STRING_LENGTH, true), NULL},
    };
    CatalogTable *table =
        redis_table("fields", hash_columns, 3, "hget", "column", PASSWORD, redis_port, "5");
    TestLookup test;
    make_lookup_spec(&test, table, 2);
    LookupFunction *function = create_lookup(&test);
    RowBuilder builder;
    row_builder_init(&builder);
    Arena arena;
    arena_init(&arena, 4096);
    Row *slots[2];
    RowBatch out = {slots, 0, 2};
    Diag diag;
    diag_clear(&diag);
    row_builder_begin(&builder, 2, ROW_KIND_INSERT);
    row_builder_set_string(&builder, 0, "h3", 2);
    row_builder_set_string(&builder, 1, "name", 4);
    Row *key = row_copy_heap(row_builder_finish(&builder));
    ck_assert_msg(function->vtable->lookup(function, key, &out, &arena, &diag) == JOINERY_OK, "%s",
                  diag.message);
    ck_assert_uint_eq(out.count, 1);
    uint32_t length;
    const char *text = row_get_string(out.rows[0], 2, &length);
    ck_assert(length == 8 && memcmp(text, "item-493", 8) == 0);
    free(key);
    function->vtable->close(function);
    catalog_table_free(table);
    /* looked up by the key alone: rejected */
    table = redis_table("fields", hash_columns, 3, "hget", "column", PASSWORD, redis_port, "5");
    make_lookup_spec(&test, table, 1);
    expect_create_error(&test,
                        "a redis table is looked up by its key column 'key' and its hash "
                        "field column 'field'",
                        PASSWORD);
    catalog_table_free(table);
    /* hmget: id, then the fields name and score */
    TestColumn row_columns[] = {
        {"id", type_make(TYPE_BIGINT, true), NULL},
        {"name", type_make_varchar(TYPE_STRING_LENGTH, true), NULL},
        {"score", type_make(TYPE_DOUBLE, true), NULL},
    };
    table = redis_table("people", row_columns, 3, "hmget", "column", PASSWORD, redis_port, "5");
    make_lookup_spec(&test, table, 1);
    function = create_lookup(&test);
    Completions *completions = calloc(1, sizeof *completions);
    for (uint32_t i = 0; i < 600; i++) {
        completions->keys[i] = 1000 + (int64_t)(i * 37 % 601);
        Row *id = int_key(&builder, completions->keys[i], false);
        ck_assert(function->vtable->submit(function, id, i, &diag) == JOINERY_OK);
        free(id);
    }
    drain_lookup(function, completions);
    for (uint32_t i = 0; i < 600; i++)
        ck_assert_uint_eq(completions->counts[i],
                          completions->keys[i] >= 1001 && completions->keys[i] <= 1500);
    Row *id = int_key(&builder, 1007, false);
    out.count = 0;
    ck_assert(function->vtable->lookup(function, id, &out, &arena, &diag) == JOINERY_OK);
    ck_assert_uint_eq(out.count, 1);
    text = row_get_string(out.rows[0], 1, &length);
    ck_assert(length == 5 && memcmp(text, "seven", 5) == 0);
    ck_assert(row_is_null(out.rows[0], 2)); /* the field that is not there */
    free(id);
    id = int_key(&builder, 1012, false);
    out.count = 0;
    ck_assert(function->vtable->lookup(function, id, &out, &arena, &diag) == JOINERY_OK);
    ck_assert_uint_eq(out.count, 1);
    ck_assert(row_get_double(out.rows[0], 2) == 12.25);
    free(id);
    free(completions);
    function->vtable->close(function);
    catalog_table_free(table);
    arena_destroy(&arena);
    row_builder_free(&builder);
}
END_TEST

START_TEST(test_errors)
{
    load_data();
    char store[128];
    snprintf(store, sizeof store, "Redis at 127.0.0.1:%s/0", redis_port);
    char expected[256];
    TestLookup test;
    /* no password (a wrong one: the shared cases) */
    CatalogTable *table = string_table("dim", "5", NULL, NULL);
    make_lookup_spec(&test, table, 1);
    snprintf(expected, sizeof expected, "Table 'dim': cannot use %s: NOAUTH", store);
    expect_create_error(&test, expected, PASSWORD);
    catalog_table_free(table);
    /* a key holding a hash, read as a string: sync and async */
    TestColumn columns[] = {
        {"k", type_make_varchar(TYPE_STRING_LENGTH, true), NULL},
        {"v", type_make_varchar(TYPE_STRING_LENGTH, true), NULL},
    };
    table = redis_table("dim", columns, 2, "get", "column", PASSWORD, redis_port, "5");
    make_lookup_spec(&test, table, 1);
    LookupFunction *function = create_lookup(&test);
    RowBuilder builder;
    row_builder_init(&builder);
    Arena arena;
    arena_init(&arena, 4096);
    Row *slots[2];
    RowBatch out = {slots, 0, 2};
    Diag diag;
    diag_clear(&diag);
    Row *key = string_key(&builder, "wrongtype");
    ck_assert_int_ne(function->vtable->lookup(function, key, &out, &arena, &diag), JOINERY_OK);
    snprintf(expected, sizeof expected,
             "Table 'dim': looking up key 'wrongtype' in %s failed: WRONGTYPE", store);
    ck_assert_msg(strstr(diag.message, expected), "%s", diag.message);
    Completions *completions = calloc(1, sizeof *completions);
    ck_assert(function->vtable->submit(function, key, 0, &diag) == JOINERY_OK);
    ck_assert_int_eq(poll_until_error(function, completions, &diag), JOINERY_ERROR_RUNTIME);
    ck_assert_msg(strstr(diag.message, expected), "%s", diag.message);
    ck_assert_ptr_null(strstr(diag.message, PASSWORD));
    free(completions);
    free(key);
    function->vtable->close(function);
    arena_destroy(&arena);
    row_builder_free(&builder);
    catalog_table_free(table);
}
END_TEST

START_TEST(test_acl_user)
{
    load_data();
    TestColumn columns[] = {
        {"k", type_make(TYPE_INT, true), NULL},
        {"name", type_make_varchar(TYPE_STRING_LENGTH, true), NULL},
    };
    const char *options[] = {"connector", "redis",    "host",     "127.0.0.1",
                             "port",      redis_port, "command",  "get",
                             "username",  "joiner",   "password", "joiner-secret"};
    CatalogTable *table = make_table("dim", columns, 2, options, 6);
    TestLookup test;
    make_lookup_spec(&test, table, 1);
    LookupFunction *function = create_lookup(&test);
    RowBuilder builder;
    row_builder_init(&builder);
    Completions *completions = calloc(1, sizeof *completions);
    completions->check_row = expect_string_row;
    submit_keys(function, completions, &builder, 0, 50);
    drain_lookup(function, completions);
    expect_counts(completions, 0, 50);
    free(completions);
    function->vtable->close(function);
    catalog_table_free(table);
    /* the same user with the wrong password */
    options[11] = "wrong-secret";
    table = make_table("dim", columns, 2, options, 6);
    make_lookup_spec(&test, table, 1);
    expect_create_error(&test, "Table 'dim': authentication to Redis at", "wrong-secret");
    catalog_table_free(table);
    row_builder_free(&builder);
}
END_TEST

static void restart_server(void)
{
    ck_assert_int_eq(run_command("tests/redis/redis.sh restart %s", redis_dir), 0);
}

static const LookupStore REDIS = {
    .load_dim = load_dim,
    .dim_table = string_table,
    .check_row = expect_string_row,
    .expected_count = expected_count,
    .restart = restart_server,
    .store_format = "Redis at 127.0.0.1:%s/0",
    .port = redis_port,
    .password = PASSWORD,
    .wrong_password = "Table 'dim': authentication to %s failed: WRONGPASS",
};

static Suite *redis_lookup_suite(void)
{
    Suite *suite = suite_create("redis_lookup");
    TCase *tcase = tcase_create("redis");
    tcase_set_timeout(tcase, 60);
    lookup_fixture_add_cases(tcase, &REDIS);
    tcase_add_test(tcase, test_row_layout);
    tcase_add_test(tcase, test_hash_layouts);
    tcase_add_test(tcase, test_errors);
    tcase_add_test(tcase, test_acl_user);
    suite_add_tcase(suite, tcase);
    return suite;
}

int main(void)
{
    ServerEnv env;
    int started = server_start("tests/redis/redis.sh start", &env);
    if (started == 2) {
        printf("check_redis_lookup: skipped, Redis cannot be installed\n");
        return EXIT_SUCCESS;
    }
    if (started != 0 || !server_env(&env, "JOINERY_REDIS_DIR")) {
        printf("check_redis_lookup: tests/redis/redis.sh start failed\n");
        return EXIT_FAILURE;
    }
    snprintf(redis_dir, sizeof redis_dir, "%s", server_env(&env, "JOINERY_REDIS_DIR"));
    snprintf(redis_port, sizeof redis_port, "%s", server_env(&env, "JOINERY_REDIS_PORT"));
    int failed = run_suite(redis_lookup_suite());
    if (run_command("tests/redis/redis.sh stop %s", redis_dir) != 0)
        failed++;
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
