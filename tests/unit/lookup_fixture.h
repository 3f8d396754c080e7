/*
 * lookup_fixture.h - test support shared by the lookup suites
 * (check_jdbc_lookup.c, check_mysql_lookup.c, check_redis_lookup.c),
 * which drive a LookupFunction through lookup.h as the lookup join does:
 * a LookupSpec over a table's columns, integer keys (NULL included),
 * asynchronous requests submitted and drained by waiting on the function's
 * descriptor, completions checked to come in submission order, creation
 * errors checked for their text and for the password's absence, and the
 * test server started by a script printing `export NAME=value` lines.
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
    uint64_t next_id; /* ids arrive in submission order */
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
    ck_assert_uint_eq(request_id, completions->next_id);
    ck_assert_uint_lt(request_id, FIXTURE_MAX_REQUESTS);
    completions->next_id++;
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
