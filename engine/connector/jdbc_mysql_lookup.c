/*
 * jdbc_mysql_lookup.c - the jdbc connector's lookup function (lookup.h)
 * for MySQL / MariaDB: `SELECT <produced columns> FROM <table-name> WHERE
 * k1 = <literal> AND ...`.
 *
 * Synchronous lookups run the statement and wait. Asynchronous requests
 * go through the MariaDB connector's non-blocking API
 * (mysql_real_query_start / _cont, mysql_store_result_start / _cont,
 * mysql_next_result_start / _cont) on the connection's socket, which is
 * the function's descriptor while a query is on the wire (-1 otherwise):
 * submit only queues a request; poll, when the connection is free, sends
 * the requests waiting as one query of several SELECTs (at most
 * BATCH_LIMIT), so requests in flight share round trips, and their result
 * sets come back in order, which is the order completions are reported
 * in. A poll that reads a query's last answer does not send the next
 * query: it hands the completions over and asks to be polled again (the
 * free socket, watched for writing), so the requests the caller submits
 * on those completions go out with the ones that waited. (Sending at once
 * sent the waiting ones alone and left the new ones a round trip behind:
 * at capacity 2 every lookup took two round trips.) A key with a NULL field
 * completes with no rows, in its turn, without a statement.
 *
 * Broken connection (server restarted, network): reconnect and re-send
 * every request not yet complete, up to `lookup.max-retries` (default 3)
 * attempts per failure, 100 ms * attempt apart; then an error naming the
 * table and the store (lookup_request_queue.h: the queue, the order, the
 * re-sending). Invariant: while a query is out, the queue's first `batch`
 * pending requests are the ones it holds.
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/connector/jdbc_mysql.h"
#include "engine/connector/lookup_request_queue.h"

enum { BATCH_LIMIT = 256 };

typedef enum MysqlPhase {
    PHASE_IDLE,  /* nothing on the wire */
    PHASE_QUERY, /* mysql_real_query_cont to call */
    PHASE_STORE, /* mysql_store_result_cont to call */
    PHASE_NEXT,  /* mysql_next_result_cont to call */
} MysqlPhase;

typedef struct MysqlLookup {
    LookupFunction base;
    MYSQL *mysql;
    char store[600];
    JdbcStatement select;
    int64_t max_retries;
    RowBuilder builder;
    StrBuf sql;
    LookupRequestQueue queue;
    uint32_t batch; /* requests of the query on the wire not yet given their rows */
    MysqlPhase phase;
    int wait_status;   /* MYSQL_WAIT_* of the last _start / _cont; 0: the step is complete */
    int query_error;   /* outcome of PHASE_QUERY's step */
    int next_status;   /* outcome of PHASE_NEXT's step (0 more, -1 none, >0 error) */
    MYSQL_RES *result; /* outcome of PHASE_STORE's step */
} MysqlLookup;

static int store_error(MysqlLookup *lookup, const char *reason, Diag *diag)
{
    return diag_error(diag, JOINERY_ERROR_RUNTIME, "Table '%s': looking up '%s' in %s failed: %s",
                      lookup->base.spec->table->name,
                      catalog_table_option(lookup->base.spec->table, "table-name"), lookup->store,
                      reason);
}

static void close_connection(MysqlLookup *lookup)
{
    if (lookup->result)
        mysql_free_result(lookup->result);
    lookup->result = NULL;
    lookup->wait_status = 0;
    if (lookup->mysql)
        mysql_close(lookup->mysql);
    lookup->mysql = NULL;
    lookup->phase = PHASE_IDLE;
    lookup->batch = 0;
    lookup->base.descriptor = -1;
    lookup->base.wait_events = 0;
}

static int connect_again(void *context, Diag *diag)
{
    MysqlLookup *lookup = context;
    lookup->mysql = jdbc_mysql_connect(lookup->base.spec->table, true, diag);
    return lookup->mysql ? JOINERY_OK : diag->status;
}

/*
 * Reconnects after a failure, retrying (at least once); the last
 * failure's message when all fail. Every request not answered goes out
 * again with the next batch.
 */
static int reconnect(MysqlLookup *lookup, Diag *diag)
{
    close_connection(lookup);
    lookup_request_queue_restart(&lookup->queue);
    return lookup_reconnect(&lookup->base, lookup->max_retries > 0 ? lookup->max_retries : 1,
                            connect_again, lookup, diag);
}

/* Builds result row `values` into a heap copy; NULL with diag set on a bad value. */
static Row *result_row(MysqlLookup *lookup, MYSQL_ROW values, const unsigned long *lengths,
                       Diag *diag)
{
    const LookupSpec *spec = lookup->base.spec;
    row_builder_begin(&lookup->builder, spec->field_count, ROW_KIND_INSERT);
    for (uint32_t f = 0; f < spec->field_count; f++) {
        if (!values[f]) {
            row_builder_set_null(&lookup->builder, f);
            continue;
        }
        char error[160];
        if (jdbc_mysql_text_to_field(&lookup->builder, f, spec->types[f], values[f],
                                     (uint32_t)lengths[f], error, sizeof error) != 0) {
            diag_error(diag, JOINERY_ERROR_RUNTIME, "Table '%s': column '%s' looked up in %s: %s",
                       spec->table->name, spec->table->columns[spec->columns[f]].name,
                       lookup->store, error);
            return NULL;
        }
    }
    Row *row = row_builder_finish(&lookup->builder);
    Row *copy = row ? row_copy_heap(row) : NULL;
    if (!copy)
        diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    return copy;
}

/* Appends the SELECT of `key` (a statement ending the query or followed by ';'). */
static int append_select(MysqlLookup *lookup, const Row *key, Diag *diag)
{
    char error[160];
    if (jdbc_mysql_render(lookup->mysql, &lookup->select, key, lookup->base.spec->key_types,
                          &lookup->sql, error, sizeof error) != 0)
        return diag_error(diag, JOINERY_ERROR_RUNTIME, "Table '%s': a lookup key: %s",
                          lookup->base.spec->table->name, error);
    return JOINERY_OK;
}

static int mysql_lookup_sync(LookupFunction *base, const Row *key, RowBatch *out, Arena *arena,
                             Diag *diag)
{
    MysqlLookup *lookup = base->impl;
    base->requests++;
    if (base->in_flight > 0)
        return diag_error(diag, JOINERY_ERROR, "synchronous lookup with requests in flight");
    for (uint32_t k = 0; k < base->spec->key_count; k++)
        if (row_is_null(key, k))
            return JOINERY_OK;
    for (int64_t attempt = 0;; attempt++) {
        if (!lookup->mysql) {
            int status = reconnect(lookup, diag);
            if (status != JOINERY_OK)
                return status;
        }
        strbuf_clear(&lookup->sql);
        int status = append_select(lookup, key, diag);
        if (status != JOINERY_OK)
            return status;
        MYSQL_RES *result = NULL;
        if (mysql_real_query(lookup->mysql, lookup->sql.data, lookup->sql.length) == 0)
            result = mysql_store_result(lookup->mysql);
        if (!result) {
            unsigned int error = mysql_errno(lookup->mysql);
            if (jdbc_mysql_connection_lost(error) && attempt < lookup->max_retries) {
                close_connection(lookup);
                continue;
            }
            return store_error(lookup, mysql_error(lookup->mysql), diag);
        }
        uint64_t rows = mysql_num_rows(result);
        if (rows > out->capacity - out->count) {
            mysql_free_result(result);
            return diag_error(diag, JOINERY_ERROR_RUNTIME,
                              "Table '%s': a lookup matched %llu rows, more than %u at a time.",
                              base->spec->table->name, (unsigned long long)rows,
                              out->capacity - out->count);
        }
        MYSQL_ROW values;
        while (status == JOINERY_OK && (values = mysql_fetch_row(result))) {
            Row *row = result_row(lookup, values, mysql_fetch_lengths(result), diag);
            Row *copy = row ? row_copy(arena, row) : NULL;
            free(row);
            if (!copy)
                status =
                    row ? diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory") : diag->status;
            else
                out->rows[out->count++] = copy;
        }
        mysql_free_result(result);
        return status;
    }
}

/* Sets the descriptor and the events to wait for after a _start / _cont. */
static void set_wait(MysqlLookup *lookup, int wait_status)
{
    lookup->wait_status = wait_status;
    lookup->base.descriptor = (int)mysql_get_socket(lookup->mysql);
    lookup->base.wait_events = ((wait_status & MYSQL_WAIT_READ) ? LOOKUP_WAIT_READ : 0u) |
                               ((wait_status & MYSQL_WAIT_WRITE) ? LOOKUP_WAIT_WRITE : 0u);
}

/* Builds the query of the requests waiting (connection free); batch: how many. */
static int build_batch(MysqlLookup *lookup, Diag *diag)
{
    strbuf_clear(&lookup->sql);
    lookup->batch = 0;
    uint32_t length = lookup_request_queue_length(&lookup->queue);
    for (uint32_t i = 0; i < length && lookup->batch < BATCH_LIMIT; i++) {
        LookupRequest *request = lookup_request_queue_at(&lookup->queue, i);
        if (!lookup_request_pending(request))
            continue;
        if (lookup->batch > 0 && strbuf_append_cstr(&lookup->sql, ";\n") != 0)
            return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        int status = append_select(lookup, request->key, diag);
        if (status != JOINERY_OK)
            return status;
        request->sent = true;
        lookup->batch++;
    }
    return JOINERY_OK;
}

/* Rows of a stored result set for the current request, which is then done. */
static int take_result(MysqlLookup *lookup, MYSQL_RES *result, Diag *diag)
{
    LookupRequest *request = lookup_request_queue_first_pending(&lookup->queue);
    int status =
        request ? JOINERY_OK : store_error(lookup, "more result sets than statements", diag);
    MYSQL_ROW values;
    while (status == JOINERY_OK && (values = mysql_fetch_row(result))) {
        Row *row = result_row(lookup, values, mysql_fetch_lengths(result), diag);
        status = row ? lookup_request_add_row(request, row, diag) : diag->status;
    }
    mysql_free_result(result);
    if (status == JOINERY_OK) {
        request->done = true;
        lookup->batch--;
    }
    return status;
}

/* The events that are ready on the socket now (MYSQL_WAIT_*), without waiting. */
static int ready_events(const MysqlLookup *lookup)
{
    short events = (short)(((lookup->wait_status & MYSQL_WAIT_READ) ? POLLIN : 0) |
                           ((lookup->wait_status & MYSQL_WAIT_WRITE) ? POLLOUT : 0));
    struct pollfd fd = {.fd = lookup->base.descriptor, .events = events};
    if (poll(&fd, 1, 0) <= 0)
        return 0;
    return ((fd.revents & (POLLIN | POLLHUP | POLLERR)) ? MYSQL_WAIT_READ : 0) |
           ((fd.revents & POLLOUT) ? MYSQL_WAIT_WRITE : 0);
}

/*
 * Advances the query on the wire as far as it goes without blocking, and
 * sends the next batch when the connection is free. A step that fails
 * because the connection is gone reconnects and sends every request not
 * done again (up to lookup.max-retries times in a row); any other failure
 * is the store's error.
 */
static int drive(MysqlLookup *lookup, Diag *diag)
{
    int64_t failures = 0;
    bool answered = false; /* a query's last result set was taken in this call */
    for (;;) {
        if (!lookup->mysql) {
            int status = reconnect(lookup, diag);
            if (status != JOINERY_OK)
                return status;
        }
        bool failed = false;
        int wait = 0;
        if (lookup->wait_status != 0) { /* a step under way */
            int ready = ready_events(lookup);
            if (ready == 0)
                return JOINERY_OK; /* the caller waits on the descriptor */
            if (lookup->phase == PHASE_QUERY)
                wait = mysql_real_query_cont(&lookup->query_error, lookup->mysql, ready);
            else if (lookup->phase == PHASE_STORE)
                wait = mysql_store_result_cont(&lookup->result, lookup->mysql, ready);
            else
                wait = mysql_next_result_cont(&lookup->next_status, lookup->mysql, ready);
            set_wait(lookup, wait);
            continue;
        }
        /* the step of `phase` is complete (or none ran): the next one */
        switch (lookup->phase) {
        case PHASE_IDLE: {
            if (answered && lookup_request_queue_first_pending(&lookup->queue)) {
                /* the next query waits for the next poll, so that the requests the caller
                   submits on these completions go in it too (sent now, the ones waiting
                   would go alone and the next ones wait a round trip); the free socket
                   is writable, so a caller watching it polls again at once */
                lookup->base.descriptor = (int)mysql_get_socket(lookup->mysql);
                lookup->base.wait_events = LOOKUP_WAIT_WRITE;
                return JOINERY_OK;
            }
            int status = build_batch(lookup, diag);
            if (status != JOINERY_OK)
                return status;
            if (lookup->batch == 0) {
                lookup->base.descriptor = -1;
                lookup->base.wait_events = 0;
                return JOINERY_OK;
            }
            lookup->phase = PHASE_QUERY;
            lookup->query_error = 0;
            wait = mysql_real_query_start(&lookup->query_error, lookup->mysql, lookup->sql.data,
                                          (unsigned long)lookup->sql.length);
            break;
        }
        case PHASE_QUERY:
        case PHASE_NEXT:
            if ((lookup->phase == PHASE_QUERY && lookup->query_error != 0) ||
                (lookup->phase == PHASE_NEXT && lookup->next_status > 0)) {
                failed = true;
                break;
            }
            if (lookup->phase == PHASE_NEXT && lookup->next_status < 0)
                return store_error(lookup, "fewer result sets than statements", diag);
            lookup->phase = PHASE_STORE;
            lookup->result = NULL;
            wait = mysql_store_result_start(&lookup->result, lookup->mysql);
            break;
        case PHASE_STORE: {
            if (!lookup->result) {
                failed = true;
                break;
            }
            MYSQL_RES *result = lookup->result;
            lookup->result = NULL;
            int status = take_result(lookup, result, diag);
            if (status != JOINERY_OK)
                return status;
            if (lookup->batch == 0) {
                lookup->phase = PHASE_IDLE; /* the query's last result set */
                answered = true;
                continue;
            }
            lookup->phase = PHASE_NEXT;
            lookup->next_status = 0;
            wait = mysql_next_result_start(&lookup->next_status, lookup->mysql);
            break;
        }
        }
        if (failed) {
            unsigned int error = mysql_errno(lookup->mysql);
            if (!jdbc_mysql_connection_lost(error) || ++failures > lookup->max_retries)
                return store_error(lookup,
                                   error ? mysql_error(lookup->mysql)
                                         : "a statement returned no result set",
                                   diag);
            int status = reconnect(lookup, diag); /* phase idle: the requests go out again */
            if (status != JOINERY_OK)
                return status;
            continue;
        }
        set_wait(lookup, wait);
    }
}

static int mysql_lookup_submit(LookupFunction *base, const Row *key, uint64_t request_id,
                               Diag *diag)
{
    MysqlLookup *lookup = base->impl;
    /* completes in its turn (a NULL key) / goes out with the next poll's batch */
    return lookup_request_queue_push(&lookup->queue, base, key, request_id, NULL, diag);
}

static int mysql_lookup_poll(LookupFunction *base, LookupCompletion completion, void *context,
                             Diag *diag)
{
    MysqlLookup *lookup = base->impl;
    int status = drive(lookup, diag);
    if (status == JOINERY_OK)
        status = lookup_request_queue_complete(&lookup->queue, base, completion, context);
    return status;
}

static void mysql_lookup_close(LookupFunction *base)
{
    MysqlLookup *lookup = base->impl;
    lookup_request_queue_free(&lookup->queue);
    close_connection(lookup);
    row_builder_free(&lookup->builder);
    strbuf_free(&lookup->sql);
    jdbc_statement_free(&lookup->select);
    free(lookup);
}

static const LookupFunctionVtable MYSQL_LOOKUP = {
    .lookup = mysql_lookup_sync,
    .submit = mysql_lookup_submit,
    .poll = mysql_lookup_poll,
    .close = mysql_lookup_close,
};

int jdbc_mysql_create_lookup(const LookupSpec *spec, LookupFunction **created, Diag *diag)
{
    const CatalogTable *table = spec->table;
    MysqlLookup *lookup = calloc(1, sizeof *lookup);
    if (!lookup)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory creating a lookup");
    lookup->base.vtable = &MYSQL_LOOKUP;
    lookup->base.spec = spec;
    lookup->base.impl = lookup;
    lookup->base.descriptor = -1;
    lookup_request_queue_init(&lookup->queue);
    row_builder_init(&lookup->builder);
    lookup->max_retries = jdbc_option_int(table, "lookup.max-retries", 3);
    JdbcEndpoint endpoint;
    int status = jdbc_table_endpoint(table, &endpoint, diag);
    if (status == JOINERY_OK &&
        jdbc_statement_select(&lookup->select, endpoint.dialect, table, spec->field_count,
                              spec->columns, spec->key_count, spec->key_columns) != 0)
        status = diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    if (status == JOINERY_OK) {
        jdbc_store_name(&endpoint, lookup->store, sizeof lookup->store);
        lookup->mysql = jdbc_mysql_connect(table, true, diag);
        status = lookup->mysql ? JOINERY_OK : diag->status;
    }
    if (status == JOINERY_OK)
        status = jdbc_mysql_check_columns(lookup->mysql, table, spec->field_count, spec->columns,
                                          spec->types, diag);
    if (status == JOINERY_OK)
        status = jdbc_mysql_check_columns(lookup->mysql, table, spec->key_count, spec->key_columns,
                                          spec->key_types, diag);
    if (status != JOINERY_OK) {
        mysql_lookup_close(&lookup->base);
        return status;
    }
    *created = &lookup->base;
    return JOINERY_OK;
}
