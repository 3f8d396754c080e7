/*
 * lookup_fixture.h - test support shared by the lookup suites
 * (check_jdbc_lookup.c, check_mysql_lookup.c, check_redis_lookup.c),
 * which drive a LookupFunction through lookup.h as the lookup join does:
 * a LookupSpec over a table's columns, integer keys (NULL included),
 * asynchronous requests submitted and drained by waiting on the function's
 * descriptor, completions checked to come in submission order, creation
 * errors checked for their text and for the password's absence, and the
 * test server started by a script printing `export NAME=value` lines.
 *
 * The cases every store runs (lookup_fixture_add_cases): synchronous
 * lookups (hits, several rows for a key where the store can hold them, a
 * missing key, a negative key, a NULL key); 600 asynchronous requests in
 * flight at once completing in submission order with the rows the store
 * holds, then synchronous use again; the server restarted under a running
 * lookup (sync; async between batches; async with requests on the wire:
 * none lost, none twice); no server; a wrong password (never in the
 * message). Each suite describes its store in a LookupStore (how the
 * "dim" data is loaded and declared, what a key matches) and adds its own
 * store-specific cases.
 * Header-only (static inline) so each suite stays one translation unit.
 */
#ifndef JOINERY_TESTS_LOOKUP_FIXTURE_H
#define JOINERY_TESTS_LOOKUP_FIXTURE_H

#include <check.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "engine/connector/lookup.h"
#include "engine/connector/lookup_pool.h"
#include "tests/unit/connector_fixture.h"

enum { FIXTURE_MAX_FIELDS = 16, FIXTURE_MAX_REQUESTS = 4096 };

typedef struct TestLookup {
    LookupSpec spec;
    uint32_t key_columns[FIXTURE_MAX_FIELDS];
    DataType key_types[FIXTURE_MAX_FIELDS];
    uint32_t columns[FIXTURE_MAX_FIELDS];
    DataType types[FIXTURE_MAX_FIELDS];
} TestLookup;

/* A spec producing every column of `table`, looked up by the first `key_count` columns. */
static inline void make_lookup_spec(TestLookup *test, const CatalogTable *table, uint32_t key_count)
{
    memset(test, 0, sizeof *test);
    ck_assert_uint_le(table->column_count, FIXTURE_MAX_FIELDS);
    for (uint32_t k = 0; k < key_count; k++) {
        test->key_columns[k] = k;
        test->key_types[k] = table->columns[k].type;
    }
    for (uint32_t i = 0; i < table->column_count; i++) {
        test->columns[i] = i;
        test->types[i] = table->columns[i].type;
    }
    test->spec.table = table;
    test->spec.key_count = key_count;
    test->spec.key_columns = test->key_columns;
    test->spec.key_types = test->key_types;
    test->spec.field_count = (uint32_t)table->column_count;
    test->spec.columns = test->columns;
    test->spec.types = test->types;
}

/* A one-field key row (heap; the caller frees it): an integer of the key's type, or NULL. */
static inline Row *int_key(RowBuilder *builder, int64_t key, bool is_null)
{
    row_builder_begin(builder, 1, ROW_KIND_INSERT);
    if (is_null)
        row_builder_set_null(builder, 0);
    else
        row_builder_set_int64(builder, 0, key);
    return row_copy_heap(row_builder_finish(builder));
}

/* A one-field key row holding a string. */
static inline Row *string_key(RowBuilder *builder, const char *key)
{
    row_builder_begin(builder, 1, ROW_KIND_INSERT);
    if (key)
        row_builder_set_string(builder, 0, key, (uint32_t)strlen(key));
    else
        row_builder_set_null(builder, 0);
    return row_copy_heap(row_builder_finish(builder));
}

/* What each asynchronous request got; `check_row` checks one row against its key. */
typedef struct Completions {
    uint64_t next_id;      /* ids arrive in submission order (any_order: the next id expected) */
    bool any_order;        /* a pool: ids in any order, each once */
    uint32_t out_of_order; /* completions (any_order) of an id below one completed before */
    uint64_t highest_done;
    bool seen[FIXTURE_MAX_REQUESTS];
    uint64_t last_of_key[FIXTURE_MAX_REQUESTS]; /* any_order: 1 + the last id of a key done */
    uint32_t counts[FIXTURE_MAX_REQUESTS];
    int64_t keys[FIXTURE_MAX_REQUESTS];
    bool key_null[FIXTURE_MAX_REQUESTS];
    uint32_t done;
    uint32_t max_in_flight_seen;
    void (*check_row)(const Row *row, int64_t key, uint32_t count);
} Completions;

static inline int fixture_on_complete(void *context, uint64_t request_id, Row *const *rows,
                                      uint32_t count)
{
    Completions *completions = context;
    ck_assert_uint_lt(request_id, FIXTURE_MAX_REQUESTS);
    if (completions->any_order) {
        ck_assert_msg(!completions->seen[request_id], "request %llu completed twice",
                      (unsigned long long)request_id);
        if (completions->done > 0 && request_id < completions->highest_done)
            completions->out_of_order++;
        if (request_id > completions->highest_done)
            completions->highest_done = request_id;
        int64_t key = completions->keys[request_id];
        if (!completions->key_null[request_id] && key >= 0 && key < FIXTURE_MAX_REQUESTS) {
            ck_assert_msg(completions->last_of_key[key] < request_id + 1,
                          "key %lld: request %llu completed after a later one", (long long)key,
                          (unsigned long long)request_id);
            completions->last_of_key[key] = request_id + 1;
        }
    } else {
        ck_assert_uint_eq(request_id, completions->next_id);
        completions->next_id++;
    }
    completions->seen[request_id] = true;
    completions->counts[request_id] = count;
    for (uint32_t i = 0; i < count && completions->check_row; i++)
        completions->check_row(rows[i], completions->keys[request_id], count);
    completions->done++;
    return JOINERY_OK;
}

/* One wait on the descriptor (when there is one) and one poll; the poll's status. */
static inline int poll_once(LookupFunction *function, Completions *completions, Diag *diag)
{
    if (function->descriptor >= 0) {
        struct pollfd fd = {.fd = function->descriptor, .events = 0};
        if (function->wait_events & LOOKUP_WAIT_READ)
            fd.events |= POLLIN;
        if (function->wait_events & LOOKUP_WAIT_WRITE)
            fd.events |= POLLOUT;
        poll(&fd, 1, 1000);
    }
    return function->vtable->poll(function, fixture_on_complete, completions, diag);
}

/* Polls until nothing is in flight, waiting on the function's descriptor. */
static inline void drain_lookup(LookupFunction *function, Completions *completions)
{
    Diag diag;
    diag_clear(&diag);
    for (int rounds = 0; function->in_flight > 0; rounds++) {
        ck_assert_int_lt(rounds, 100000);
        ck_assert_msg(poll_once(function, completions, &diag) == JOINERY_OK, "%s", diag.message);
    }
}

/*
 * Submits requests from..to with keys i * 37 % 601 (0..600: some beyond
 * the tables' 1..500), every 50th from 13 a NULL key.
 */
static inline void submit_keys(LookupFunction *function, Completions *completions,
                               RowBuilder *builder, uint32_t from, uint32_t to)
{
    Diag diag;
    diag_clear(&diag);
    for (uint32_t i = from; i < to; i++) {
        completions->keys[i] = (int64_t)(i * 37 % 601);
        completions->key_null[i] = i % 50 == 13;
        Row *key = int_key(builder, completions->keys[i], completions->key_null[i]);
        ck_assert_msg(function->vtable->submit(function, key, i, &diag) == JOINERY_OK, "%s",
                      diag.message);
        free(key);
        if (function->in_flight > completions->max_in_flight_seen)
            completions->max_in_flight_seen = function->in_flight;
    }
}

/* One poll without waiting: what submit queued goes on the wire (PostgreSQL, MySQL send in poll).
 */
static inline void send_submitted(LookupFunction *function, Completions *completions)
{
    Diag diag;
    diag_clear(&diag);
    ck_assert_msg(function->vtable->poll(function, fixture_on_complete, completions, &diag) ==
                      JOINERY_OK,
                  "%s", diag.message);
}

/* Creating the lookup fails with a message containing `expected` and not `password`. */
static inline void expect_create_error(TestLookup *test, const char *expected, const char *password)
{
    LookupFunction *function = NULL;
    Diag diag;
    diag_clear(&diag);
    ck_assert_int_ne(lookup_function_create(&test->spec, &function, &diag), JOINERY_OK);
    ck_assert_msg(strstr(diag.message, expected) != NULL, "got: %s\nwant: %s", diag.message,
                  expected);
    ck_assert_ptr_null(strstr(diag.message, password));
}

/* Creates the lookup of `test`, failing the test with the message on an error. */
static inline LookupFunction *create_lookup(TestLookup *test)
{
    LookupFunction *function = NULL;
    Diag diag;
    diag_clear(&diag);
    ck_assert_msg(lookup_function_create(&test->spec, &function, &diag) == JOINERY_OK, "%s",
                  diag.message);
    return function;
}

/* Polls until the function fails (or 1000 rounds pass); the failing status, diag filled. */
static inline int poll_until_error(LookupFunction *function, Completions *completions, Diag *diag)
{
    int status = JOINERY_OK;
    for (int rounds = 0; status == JOINERY_OK && function->in_flight > 0 && rounds < 1000; rounds++)
        status = poll_once(function, completions, diag);
    return status;
}

/* The `export NAME=value` lines a server script printed (at most 16). */
typedef struct ServerEnv {
    char names[16][64];
    char values[16][256];
    int count;
} ServerEnv;

static inline const char *server_env(const ServerEnv *env, const char *name)
{
    for (int i = 0; i < env->count; i++)
        if (strcmp(env->names[i], name) == 0)
            return env->values[i];
    return NULL;
}

/*
 * Runs `command` (a server script's start) and reads its export lines.
 * Returns 0 started, 2 the script said the server cannot be installed
 * (the suite skips), 1 failed.
 */
static inline int server_start(const char *command, ServerEnv *env)
{
    memset(env, 0, sizeof *env);
    FILE *lines = popen(command, "r");
    if (!lines)
        return 1;
    char line[512];
    while (fgets(line, sizeof line, lines)) {
        line[strcspn(line, "\n")] = '\0';
        char *equals = strchr(line, '=');
        if (strncmp(line, "export ", 7) != 0 || !equals || env->count == 16)
            continue;
        *equals = '\0';
        snprintf(env->names[env->count], sizeof env->names[0], "%.60s", line + 7);
        snprintf(env->values[env->count], sizeof env->values[0], "%.250s", equals + 1);
        env->count++;
    }
    int status = pclose(lines);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 2)
        return 2;
    return status == 0 && env->count > 0 ? 0 : 1;
}

/* Runs a shell command built from `format`; its exit status. */
static inline int run_command(const char *format, const char *argument)
{
    char command[1024];
    snprintf(command, sizeof command, format, argument);
    return system(command);
}

/*
 * A store the shared cases run against. Its "dim" data: keys 1..500, key k
 * with name 'item-<k>' (and whatever else the store's check_row checks);
 * keys 0, negative and above 500 match nothing.
 */
typedef struct LookupStore {
    /* Loads the dim data under `name` (a table, or ignored by a store without tables). */
    void (*load_dim)(const char *name);
    /*
     * Declares table 'dim' over the data `name`: lookup.max-retries
     * `max_retries`, password `password`, at `port` (NULL: the test
     * server's), validated.
     */
    CatalogTable *(*dim_table)(const char *name, const char *max_retries, const char *password,
                               const char *port);
    void (*check_row)(const Row *row, int64_t key, uint32_t count);
    uint32_t (*expected_count)(int64_t key, bool is_null);
    /* Restarts the test server; NULL when the suite did not start it (the case skips). */
    void (*restart)(void);
    const char *store_format;   /* the store's name in messages, %s the port */
    const char *port;           /* the test server's */
    const char *password;       /* the right one */
    const char *wrong_password; /* what a wrong password's error begins with, %s the store */
} LookupStore;

/* Set by the suite's main before the suite runs (Check forks each test from it). */
static const LookupStore *fixture_store;

/* Every request of completions[from..to) got the rows of its key. */
static inline void expect_counts(const Completions *completions, uint32_t from, uint32_t to)
{
    for (uint32_t i = from; i < to; i++)
        ck_assert_uint_eq(
            completions->counts[i],
            fixture_store->expected_count(completions->keys[i], completions->key_null[i]));
}

/* A synchronous lookup of `key` (an int key, or NULL) with rows checked; the row count. */
static inline uint32_t sync_lookup_checked(LookupFunction *function, RowBuilder *builder,
                                           int64_t key, bool is_null)
{
    Arena arena;
    arena_init(&arena, 4096);
    Row *slots[ROW_BATCH_CAPACITY];
    RowBatch out = {slots, 0, ROW_BATCH_CAPACITY};
    Diag diag;
    diag_clear(&diag);
    Row *key_row = int_key(builder, key, is_null);
    ck_assert_msg(function->vtable->lookup(function, key_row, &out, &arena, &diag) == JOINERY_OK,
                  "%s", diag.message);
    ck_assert_uint_eq(out.count, fixture_store->expected_count(key, is_null));
    for (uint32_t r = 0; r < out.count; r++)
        fixture_store->check_row(out.rows[r], key, out.count);
    free(key_row);
    arena_destroy(&arena);
    return out.count;
}

/* What a shared case opens: the store's dim data and table, the lookup, a key builder. */
typedef struct LookupCase {
    CatalogTable *table;
    TestLookup test;
    LookupFunction *function;
    RowBuilder builder;
} LookupCase;

/* Loads dim data `name` and opens its lookup (lookup.max-retries `max_retries`). */
static inline void lookup_case_open(LookupCase *c, const char *name, const char *max_retries)
{
    fixture_store->load_dim(name);
    c->table = fixture_store->dim_table(name, max_retries, fixture_store->password, NULL);
    make_lookup_spec(&c->test, c->table, 1);
    c->function = create_lookup(&c->test);
    row_builder_init(&c->builder);
}

static inline void lookup_case_close(LookupCase *c)
{
    c->function->vtable->close(c->function);
    row_builder_free(&c->builder);
    catalog_table_free(c->table);
}

START_TEST(lookup_case_sync)
{
    LookupCase c;
    lookup_case_open(&c, "dim_sync", "3");
    LookupFunction *function = c.function;
    struct {
        int64_t key;
        bool is_null;
    } cases[] = {{42, false}, {7, false},   {1, false}, {0, false},
                 {-5, false}, {501, false}, {0, true},  {500, false}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        sync_lookup_checked(function, &c.builder, cases[i].key, cases[i].is_null);
    ck_assert_uint_eq(function->requests, 8);
    ck_assert_uint_eq(function->reconnects, 0);
    lookup_case_close(&c);
}
END_TEST

START_TEST(lookup_case_async_many_in_flight)
{
    const LookupStore *store = fixture_store;
    LookupCase c;
    lookup_case_open(&c, "dim_async", "3");
    LookupFunction *function = c.function;
    Completions *completions = calloc(1, sizeof *completions);
    completions->check_row = store->check_row;
    submit_keys(function, completions, &c.builder, 0, 600);
    ck_assert_uint_eq(completions->max_in_flight_seen, 600); /* none waited for */
    drain_lookup(function, completions);
    ck_assert_uint_eq(completions->done, 600);
    expect_counts(completions, 0, 600);
    uint32_t matched = 0;
    for (uint32_t i = 0; i < 600; i++)
        matched += completions->counts[i] > 0;
    ck_assert_uint_gt(matched, 400);
    ck_assert_uint_lt(matched, 600);
    /* back to synchronous use once nothing is in flight */
    sync_lookup_checked(function, &c.builder, 7, false);
    free(completions);
    lookup_case_close(&c);
}
END_TEST

START_TEST(lookup_case_reconnect_after_restart)
{
    const LookupStore *store = fixture_store;
    if (!store->restart)
        return; /* a server started by someone else is not restarted */
    LookupCase c;
    lookup_case_open(&c, "dim_restart", "5");
    LookupFunction *function = c.function;
    /* sync: the connection found broken at the next lookup */
    ck_assert_uint_eq(sync_lookup_checked(function, &c.builder, 9, false), 1);
    store->restart();
    ck_assert_uint_eq(sync_lookup_checked(function, &c.builder, 9, false), 1);
    ck_assert_uint_eq(function->reconnects, 1);
    /* async: a batch done, the server restarted, the next batch still complete */
    Completions *completions = calloc(1, sizeof *completions);
    completions->check_row = store->check_row;
    submit_keys(function, completions, &c.builder, 0, 100);
    drain_lookup(function, completions);
    uint64_t reconnects = function->reconnects;
    store->restart();
    submit_keys(function, completions, &c.builder, 100, 300);
    drain_lookup(function, completions);
    ck_assert_uint_gt(function->reconnects, reconnects);
    /* async with requests on the wire (or waiting for the connection) */
    submit_keys(function, completions, &c.builder, 300, 700);
    send_submitted(function, completions);
    store->restart();
    drain_lookup(function, completions);
    ck_assert_uint_eq(completions->done, 700);
    expect_counts(completions, 0, 700);
    ck_assert_uint_ge(function->reconnects, 2);
    free(completions);
    lookup_case_close(&c);
}
END_TEST

/* Opens the lookup of dim data `name` for asynchronous use with `capacity` in flight. */
static inline void lookup_case_open_async(LookupCase *c, const char *name, const char *max_retries,
                                          uint32_t capacity)
{
    fixture_store->load_dim(name);
    c->table = fixture_store->dim_table(name, max_retries, fixture_store->password, NULL);
    make_lookup_spec(&c->test, c->table, 1);
    c->test.spec.async_capacity = capacity;
    c->function = create_lookup(&c->test);
    row_builder_init(&c->builder);
}

/* Each of completions[from..to) came exactly once. */
static inline void expect_each_once(const Completions *completions, uint32_t from, uint32_t to)
{
    for (uint32_t i = from; i < to; i++)
        ck_assert_msg(completions->seen[i], "request %u never completed", i);
    ck_assert_uint_eq(completions->done, to - from);
}

/*
 * An async lookup with capacity 200: the default pool (several
 * connections); 600 requests at once each complete once with its key's
 * rows, in another order than submitted (the connections answer apart);
 * capacity 10: one connection, completions in submission order.
 */
START_TEST(lookup_case_pool_async)
{
    const LookupStore *store = fixture_store;
    LookupCase c;
    lookup_case_open_async(&c, "dim_pool", "3", 200);
    LookupFunction *function = c.function;
    ck_assert_uint_eq(function->connections, lookup_pool_default_connections(200));
    ck_assert_uint_ge(function->connections, 2);
    Completions *completions = calloc(1, sizeof *completions);
    completions->check_row = store->check_row;
    completions->any_order = true;
    submit_keys(function, completions, &c.builder, 0, 600);
    ck_assert_uint_eq(completions->max_in_flight_seen, 600);
    drain_lookup(function, completions);
    expect_each_once(completions, 0, 600);
    expect_counts(completions, 0, 600);
    ck_assert_uint_gt(completions->out_of_order, 0);
    ck_assert_uint_eq(function->requests, 600);
    /* 300 requests over 7 keys, ~43 of each in flight at once: each key's in order */
    Diag diag;
    diag_clear(&diag);
    for (uint32_t i = 600; i < 900; i++) {
        completions->keys[i] = (int64_t)(i % 7 + 1);
        Row *key = int_key(&c.builder, completions->keys[i], false);
        ck_assert_msg(function->vtable->submit(function, key, i, &diag) == JOINERY_OK, "%s",
                      diag.message);
        free(key);
    }
    drain_lookup(function, completions); /* asserts each key's order */
    expect_each_once(completions, 0, 900);
    expect_counts(completions, 600, 900);
    sync_lookup_checked(function, &c.builder, 7, false); /* the first connection, in sync use */
    free(completions);
    lookup_case_close(&c);

    lookup_case_open_async(&c, "dim_pool", "3", 10);
    ck_assert_uint_eq(c.function->connections, 1);
    completions = calloc(1, sizeof *completions);
    completions->check_row = store->check_row;
    submit_keys(c.function, completions, &c.builder, 0, 100);
    drain_lookup(c.function, completions); /* asserts submission order */
    expect_counts(completions, 0, 100);
    free(completions);
    lookup_case_close(&c);
}
END_TEST

/*
 * A pool's server restarted between requests: every connection
 * reconnects; restarted again with requests on the wire: every request
 * completes once with its rows.
 */
START_TEST(lookup_case_pool_restart)
{
    const LookupStore *store = fixture_store;
    if (!store->restart)
        return;
    LookupCase c;
    lookup_case_open_async(&c, "dim_pool_restart", "5", 200);
    LookupFunction *function = c.function;
    Completions *completions = calloc(1, sizeof *completions);
    completions->check_row = store->check_row;
    completions->any_order = true;
    submit_keys(function, completions, &c.builder, 0, 100);
    drain_lookup(function, completions);
    ck_assert_uint_eq(function->reconnects, 0);
    store->restart(); /* every connection broken: each finds it out and reconnects */
    submit_keys(function, completions, &c.builder, 100, 500);
    drain_lookup(function, completions);
    ck_assert_uint_ge(function->reconnects, function->connections);
    submit_keys(function, completions, &c.builder, 500, 700); /* on the wire at the restart */
    send_submitted(function, completions);
    store->restart();
    drain_lookup(function, completions);
    expect_each_once(completions, 0, 700);
    expect_counts(completions, 0, 700);
    free(completions);
    lookup_case_close(&c);
}
END_TEST

START_TEST(lookup_case_no_server)
{
    const LookupStore *store = fixture_store;
    CatalogTable *table = store->dim_table("dim_sync", "3", store->password, "1");
    TestLookup test;
    make_lookup_spec(&test, table, 1);
    char store_name[128], expected[256];
    snprintf(store_name, sizeof store_name, store->store_format, "1");
    snprintf(expected, sizeof expected, "Table 'dim': cannot connect to %s: ", store_name);
    expect_create_error(&test, expected, store->password);
    catalog_table_free(table);
}
END_TEST

START_TEST(lookup_case_wrong_password)
{
    const LookupStore *store = fixture_store;
    store->load_dim("dim_sync");
    const char *wrong = "not-the-joinery-secret";
    CatalogTable *table = store->dim_table("dim_sync", "3", wrong, NULL);
    TestLookup test;
    make_lookup_spec(&test, table, 1);
    char store_name[128], expected[256];
    snprintf(store_name, sizeof store_name, store->store_format, store->port);
    snprintf(expected, sizeof expected, store->wrong_password, store_name);
    expect_create_error(&test, expected, wrong);
    catalog_table_free(table);
}
END_TEST

/* Adds the cases every store runs, against `store` (kept: a static of the suite). */
static inline void lookup_fixture_add_cases(TCase *tcase, const LookupStore *store)
{
    fixture_store = store;
    tcase_add_test(tcase, lookup_case_sync);
    tcase_add_test(tcase, lookup_case_async_many_in_flight);
    tcase_add_test(tcase, lookup_case_no_server);
    tcase_add_test(tcase, lookup_case_wrong_password);
    tcase_add_test(tcase, lookup_case_reconnect_after_restart);
    tcase_add_test(tcase, lookup_case_pool_async);
    tcase_add_test(tcase, lookup_case_pool_restart);
}

/* Runs the suite; returns the process exit status. */
static inline int run_suite(Suite *suite)
{
    SRunner *runner = srunner_create(suite);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed;
}

#endif
