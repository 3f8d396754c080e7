/*
 * jdbc_postgres_lookup.c - the jdbc connector's lookup function (lookup.h) for
 * PostgreSQL: `SELECT <produced columns> FROM <table-name> WHERE k1 = $1
 * AND ...`, prepared once per connection.
 *
 * Synchronous lookups run the statement and wait. Asynchronous requests
 * use libpq's pipeline mode on a non-blocking connection: submit queues
 * each request's prepared statement in libpq's buffer, and poll ends the
 * requests queued since the last one with a single Sync and sends them
 * (one write, and one transaction and one flush in the server, for the
 * lot: a Sync per request costs the server a transaction end and a send
 * each, which halved what one connection could answer). Requests in
 * flight share round trips; results come back in submission order, which
 * is the order completions are reported in: a request is done at the end
 * of its statement's results. A failing statement fails the job (the
 * statements after it in its Sync group are aborted by the server, and
 * their results never read). A key with a NULL field completes with no
 * rows, in its turn, without a statement.
 *
 * Broken connection (server restarted, network): reconnect, prepare
 * again, re-send every request not yet complete (their partial rows
 * dropped), up to `lookup.max-retries` (default 3) attempts per failure,
 * waiting 100 ms * attempt between attempts; then an error naming the
 * table and the store (lookup_request_queue.h: the queue, the order, the
 * re-sending). Invariants: `awaiting` of the queue's requests were sent
 * and their statement's results have not all been read, and they are its
 * first `awaiting` pending ones; the last `unsynced` of them have no Sync
 * after them yet; `syncs` Syncs were sent and their results not yet read;
 * `result_open`: a result of the first pending request was read, its end
 * not yet.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/connector/jdbc_postgres.h"
#include "engine/connector/lookup_request_queue.h"

typedef struct JdbcLookup {
    LookupFunction base;
    PGconn *connection;
    bool pipeline; /* in pipeline mode, non-blocking */
    char store[600];
    char *sql;
    int64_t max_retries;
    RowBuilder builder;
    StrBuf text;
    size_t *offsets;
    const char **values;
    LookupRequestQueue queue;
    uint32_t awaiting, unsynced, syncs;
    bool result_open;
} JdbcLookup;

static int store_error(JdbcLookup *lookup, const char *message, Diag *diag)
{
    if (!message)
        message = "";
    if (strncmp(message, "ERROR:  ", 8) == 0 || strncmp(message, "FATAL:  ", 8) == 0)
        message += 8;
    return diag_error(diag, JOINERY_ERROR_RUNTIME, "Table '%s': looking up '%s' in %s failed: %.*s",
                      lookup->base.spec->table->name,
                      catalog_table_option(lookup->base.spec->table, "table-name"), lookup->store,
                      (int)strcspn(message, "\n"), message);
}

/* Opens the connection and prepares the statement (blocking mode). */
static int open_connection(JdbcLookup *lookup, Diag *diag)
{
    if (lookup->connection)
        PQfinish(lookup->connection);
    lookup->pipeline = false;
    lookup->awaiting = lookup->unsynced = lookup->syncs = 0;
    lookup->result_open = false;
    lookup->base.descriptor = -1;
    lookup->connection = jdbc_postgres_connect(lookup->base.spec->table, diag);
    if (!lookup->connection)
        return diag->status;
    PGresult *result = PQprepare(lookup->connection, "joinery_lookup", lookup->sql, 0, NULL);
    int status = PQresultStatus(result) == PGRES_COMMAND_OK
                     ? JOINERY_OK
                     : store_error(lookup, PQresultErrorMessage(result), diag);
    PQclear(result);
    if (status == JOINERY_OK)
        lookup->base.descriptor = PQsocket(lookup->connection);
    return status;
}

static bool connection_broken(const JdbcLookup *lookup)
{
    return !lookup->connection || PQstatus(lookup->connection) != CONNECTION_OK;
}

static int connect_again(void *context, Diag *diag)
{
    return open_connection(context, diag);
}

/*
 * True for an error the server sends as it closes the connection
 * (SQLSTATE class 57P: shutdown, crash, not accepting connections; class
 * 08: connection exception): reported before libpq sees the connection
 * end, it is a broken connection, not the request's error.
 */
static bool server_going_away(const PGresult *result)
{
    const char *state = PQresultErrorField(result, PG_DIAG_SQLSTATE);
    return state && (strncmp(state, "57P", 3) == 0 || strncmp(state, "08", 2) == 0);
}

/* Reconnects after a failure, retrying (at least once); the last failure's message when all fail.
 */
static int reconnect(JdbcLookup *lookup, Diag *diag)
{
    return lookup_reconnect(&lookup->base, lookup->max_retries > 0 ? lookup->max_retries : 1,
                            connect_again, lookup, diag);
}

/* The key's parameters as text; false when a key field is NULL. */
static int key_parameters(JdbcLookup *lookup, const Row *key, bool *null_key, Diag *diag)
{
    const LookupSpec *spec = lookup->base.spec;
    strbuf_clear(&lookup->text);
    *null_key = false;
    for (uint32_t k = 0; k < spec->key_count; k++) {
        if (row_is_null(key, k)) {
            *null_key = true;
            return JOINERY_OK;
        }
        lookup->offsets[k] = lookup->text.length;
        if (jdbc_postgres_value_to_text(spec->key_types[k],
                                        value_from_row(key, k, spec->key_types[k]),
                                        &lookup->text) != 0 ||
            strbuf_append_char(&lookup->text, '\0') != 0)
            return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    }
    for (uint32_t k = 0; k < spec->key_count; k++)
        lookup->values[k] = lookup->text.data + lookup->offsets[k];
    return JOINERY_OK;
}

/* Builds result row r into the builder; NULL with diag set on a bad value. */
static Row *result_row(JdbcLookup *lookup, PGresult *result, int r, Diag *diag)
{
    const LookupSpec *spec = lookup->base.spec;
    row_builder_begin(&lookup->builder, spec->field_count, ROW_KIND_INSERT);
    for (uint32_t f = 0; f < spec->field_count; f++) {
        if (PQgetisnull(result, r, (int)f)) {
            row_builder_set_null(&lookup->builder, f);
            continue;
        }
        char error[160];
        if (jdbc_postgres_text_to_field(
                &lookup->builder, f, spec->types[f], PQgetvalue(result, r, (int)f),
                (uint32_t)PQgetlength(result, r, (int)f), error, sizeof error) != 0) {
            diag_error(diag, JOINERY_ERROR_RUNTIME, "Table '%s': column '%s' looked up in %s: %s",
                       spec->table->name, spec->table->columns[spec->columns[f]].name,
                       lookup->store, error);
            return NULL;
        }
    }
    Row *row = row_builder_finish(&lookup->builder);
    if (!row)
        diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    return row;
}

/* Leaves pipeline mode (nothing in flight), first reading the results of the Syncs sent. */
static int leave_pipeline(JdbcLookup *lookup, Diag *diag)
{
    if (!lookup->pipeline)
        return JOINERY_OK;
    /* two NULLs in a row: libpq has nothing more queued (a lost count must not hang here) */
    for (int nulls = 0; lookup->syncs > 0 && nulls < 2 && !connection_broken(lookup);) {
        PGresult *result = PQgetResult(lookup->connection); /* waits for it */
        nulls = result ? 0 : nulls + 1;
        if (result && PQresultStatus(result) == PGRES_PIPELINE_SYNC)
            lookup->syncs--;
        PQclear(result);
    }
    lookup->syncs = 0;
    if (!PQexitPipelineMode(lookup->connection) || PQsetnonblocking(lookup->connection, 0) != 0)
        return store_error(lookup, PQerrorMessage(lookup->connection), diag);
    lookup->pipeline = false;
    return JOINERY_OK;
}

static int jdbc_lookup_sync(LookupFunction *base, const Row *key, RowBatch *out, Arena *arena,
                            Diag *diag)
{
    JdbcLookup *lookup = base->impl;
    base->requests++;
    if (base->in_flight > 0)
        return diag_error(diag, JOINERY_ERROR, "synchronous lookup with requests in flight");
    bool null_key;
    int status = key_parameters(lookup, key, &null_key, diag);
    if (status != JOINERY_OK || null_key)
        return status;
    bool reopen = false;
    for (int64_t attempt = 0;; attempt++) {
        if (reopen || connection_broken(lookup)) {
            reopen = false;
            status = reconnect(lookup, diag);
            if (status != JOINERY_OK)
                return status;
            status = key_parameters(lookup, key, &null_key, diag);
            if (status != JOINERY_OK)
                return status;
        }
        status = leave_pipeline(lookup, diag);
        if (status != JOINERY_OK)
            return status;
        PGresult *result =
            PQexecPrepared(lookup->connection, "joinery_lookup", (int)base->spec->key_count,
                           lookup->values, NULL, NULL, 0);
        if (PQresultStatus(result) != PGRES_TUPLES_OK) {
            bool broken = connection_broken(lookup) || server_going_away(result);
            if (broken && attempt < lookup->max_retries) {
                PQclear(result);
                reopen = true;
                continue;
            }
            status = store_error(
                lookup, broken ? PQerrorMessage(lookup->connection) : PQresultErrorMessage(result),
                diag);
            PQclear(result);
            return status;
        }
        int rows = PQntuples(result);
        if ((uint32_t)rows > out->capacity - out->count) {
            PQclear(result);
            return diag_error(diag, JOINERY_ERROR_RUNTIME,
                              "Table '%s': a lookup matched %d rows, more than %u at a time.",
                              base->spec->table->name, rows, out->capacity - out->count);
        }
        for (int r = 0; r < rows && status == JOINERY_OK; r++) {
            Row *row = result_row(lookup, result, r, diag);
            Row *copy = row ? row_copy(arena, row) : NULL;
            if (!copy)
                status =
                    row ? diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory") : diag->status;
            else
                out->rows[out->count++] = copy;
        }
        PQclear(result);
        return status;
    }
}

/* Sends buffered output; sets the events to wait for. */
static int flush(JdbcLookup *lookup, Diag *diag)
{
    int pending = PQflush(lookup->connection);
    if (pending < 0)
        return store_error(lookup, PQerrorMessage(lookup->connection), diag);
    lookup->base.wait_events = LOOKUP_WAIT_READ | (pending ? LOOKUP_WAIT_WRITE : 0u);
    return JOINERY_OK;
}

static int enter_pipeline(JdbcLookup *lookup, Diag *diag)
{
    if (lookup->pipeline)
        return JOINERY_OK;
    if (PQsetnonblocking(lookup->connection, 1) != 0 || !PQenterPipelineMode(lookup->connection))
        return store_error(lookup, PQerrorMessage(lookup->connection), diag);
    lookup->pipeline = true;
    return JOINERY_OK;
}

/* Queues the statement of one request (pipeline mode). False: the connection broke. */
static bool send_request(JdbcLookup *lookup, LookupRequest *request, Diag *diag, int *status)
{
    bool null_key;
    *status = key_parameters(lookup, request->key, &null_key, diag);
    if (*status != JOINERY_OK)
        return true;
    if (!PQsendQueryPrepared(lookup->connection, "joinery_lookup",
                             (int)lookup->base.spec->key_count, lookup->values, NULL, NULL, 0))
        return false;
    request->sent = true;
    lookup->awaiting++;
    lookup->unsynced++;
    return true;
}

/* Ends the statements queued since the last Sync with one. False: the connection broke. */
static bool send_sync(JdbcLookup *lookup)
{
    if (lookup->unsynced == 0)
        return true;
    if (!PQpipelineSync(lookup->connection))
        return false;
    lookup->unsynced = 0;
    lookup->syncs++;
    return true;
}

/* After a broken connection: reconnect and re-send every request not done. */
static int recover(JdbcLookup *lookup, Diag *diag)
{
    for (int64_t attempt = 0;; attempt++) {
        int status = reconnect(lookup, diag);
        if (status != JOINERY_OK)
            return status;
        status = enter_pipeline(lookup, diag);
        if (status != JOINERY_OK)
            return status;
        lookup->awaiting = lookup->unsynced = lookup->syncs = 0;
        lookup->result_open = false;
        lookup_request_queue_restart(&lookup->queue);
        bool sent = true;
        uint32_t length = lookup_request_queue_length(&lookup->queue);
        for (uint32_t i = 0; i < length && sent && status == JOINERY_OK; i++) {
            LookupRequest *request = lookup_request_queue_at(&lookup->queue, i);
            if (lookup_request_pending(request))
                sent = send_request(lookup, request, diag, &status);
        }
        if (status != JOINERY_OK)
            return status;
        if (sent && send_sync(lookup) && flush(lookup, diag) == JOINERY_OK)
            return JOINERY_OK;
        if (attempt >= lookup->max_retries)
            return store_error(lookup, PQerrorMessage(lookup->connection), diag);
    }
}

static int jdbc_lookup_submit(LookupFunction *base, const Row *key, uint64_t request_id, Diag *diag)
{
    JdbcLookup *lookup = base->impl;
    LookupRequest *request;
    int status = lookup_request_queue_push(&lookup->queue, base, key, request_id, &request, diag);
    if (status != JOINERY_OK)
        return status;
    if (request->null_key)
        return JOINERY_OK; /* completes in its turn, in poll */
    if (connection_broken(lookup))
        return recover(lookup, diag);
    status = enter_pipeline(lookup, diag);
    if (status != JOINERY_OK)
        return status;
    if (!send_request(lookup, request, diag, &status))
        return recover(lookup, diag);
    return status; /* sent with its Sync by the next poll */
}

static int add_rows(JdbcLookup *lookup, LookupRequest *request, PGresult *result, Diag *diag)
{
    int rows = PQntuples(result);
    for (int r = 0; r < rows; r++) {
        Row *row = result_row(lookup, result, r, diag);
        Row *copy = row ? row_copy_heap(row) : NULL;
        if (!copy)
            return row ? diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory") : diag->status;
        int status = lookup_request_add_row(request, copy, diag);
        if (status != JOINERY_OK)
            return status;
    }
    return JOINERY_OK;
}

/* Reads every complete result now available. */
static int read_results(JdbcLookup *lookup, Diag *diag)
{
    if (!PQconsumeInput(lookup->connection))
        return recover(lookup, diag);
    while ((lookup->awaiting > 0 || lookup->syncs > 0) && !PQisBusy(lookup->connection)) {
        PGresult *result = PQgetResult(lookup->connection);
        LookupRequest *request = lookup_request_queue_first_pending(&lookup->queue);
        if (!result) {
            if (connection_broken(lookup))
                return recover(lookup, diag);
            if (lookup->result_open && request) { /* the end of its statement's results */
                request->done = true;
                lookup->awaiting--;
                lookup->result_open = false;
            }
            continue;
        }
        ExecStatusType kind = PQresultStatus(result);
        int status = JOINERY_OK;
        if (kind == PGRES_TUPLES_OK && request) {
            status = add_rows(lookup, request, result, diag);
            lookup->result_open = true;
        } else if (kind == PGRES_PIPELINE_SYNC) {
            if (lookup->syncs > 0)
                lookup->syncs--;
        } else if (kind == PGRES_FATAL_ERROR) {
            if (server_going_away(result)) {
                PQclear(result);
                return recover(lookup, diag);
            }
            status = connection_broken(lookup)
                         ? JOINERY_OK
                         : store_error(lookup, PQresultErrorMessage(result), diag);
        }
        PQclear(result);
        if (status != JOINERY_OK)
            return status;
        if (connection_broken(lookup))
            return recover(lookup, diag);
    }
    if (connection_broken(lookup))
        return recover(lookup, diag);
    return flush(lookup, diag);
}

static int jdbc_lookup_poll(LookupFunction *base, LookupCompletion completion, void *context,
                            Diag *diag)
{
    JdbcLookup *lookup = base->impl;
    int status = JOINERY_OK;
    if (lookup->unsynced > 0) {
        status = send_sync(lookup) && flush(lookup, diag) == JOINERY_OK ? JOINERY_OK
                                                                        : recover(lookup, diag);
    }
    if (status == JOINERY_OK && (lookup->awaiting > 0 || lookup->syncs > 0))
        status = read_results(lookup, diag);
    if (status == JOINERY_OK)
        status = lookup_request_queue_complete(&lookup->queue, base, completion, context);
    if (status == JOINERY_OK && base->in_flight == 0 && lookup->pipeline && lookup->awaiting == 0 &&
        lookup->syncs == 0)
        status = leave_pipeline(lookup, diag);
    return status;
}

static void jdbc_lookup_close(LookupFunction *base)
{
    JdbcLookup *lookup = base->impl;
    lookup_request_queue_free(&lookup->queue);
    if (lookup->connection)
        PQfinish(lookup->connection);
    row_builder_free(&lookup->builder);
    strbuf_free(&lookup->text);
    free(lookup->offsets);
    free(lookup->values);
    free(lookup->sql);
    free(lookup);
}

static const LookupFunctionVtable JDBC_LOOKUP = {
    .lookup = jdbc_lookup_sync,
    .submit = jdbc_lookup_submit,
    .poll = jdbc_lookup_poll,
    .close = jdbc_lookup_close,
};

int jdbc_postgres_create_lookup(const LookupSpec *spec, LookupFunction **created, Diag *diag)
{
    const CatalogTable *table = spec->table;
    JdbcLookup *lookup = calloc(1, sizeof *lookup);
    if (!lookup)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory creating a lookup");
    lookup->base.vtable = &JDBC_LOOKUP;
    lookup->base.spec = spec;
    lookup->base.impl = lookup;
    lookup->base.descriptor = -1;
    lookup_request_queue_init(&lookup->queue);
    row_builder_init(&lookup->builder);
    lookup->max_retries = jdbc_option_int(table, "lookup.max-retries", 3);
    lookup->offsets = calloc(spec->key_count + 1, sizeof *lookup->offsets);
    lookup->values = calloc(spec->key_count + 1, sizeof *lookup->values);
    JdbcStatement statement;
    int failed =
        jdbc_statement_select(&statement, &JDBC_DIALECT_POSTGRESQL, table, spec->field_count,
                              spec->columns, spec->key_count, spec->key_columns);
    lookup->sql = failed ? NULL : jdbc_statement_numbered(&statement);
    jdbc_statement_free(&statement);
    if (!lookup->sql || !lookup->offsets || !lookup->values) {
        jdbc_lookup_close(&lookup->base);
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    }
    JdbcEndpoint endpoint;
    int status = jdbc_table_endpoint(table, &endpoint, diag);
    if (status == JOINERY_OK) {
        jdbc_store_name(&endpoint, lookup->store, sizeof lookup->store);
        lookup->connection = jdbc_postgres_connect(table, diag);
        status = lookup->connection ? JOINERY_OK : diag->status;
    }
    if (status == JOINERY_OK)
        status = jdbc_postgres_check_columns(lookup->connection, table, spec->field_count,
                                             spec->columns, spec->types, diag);
    if (status == JOINERY_OK)
        status = jdbc_postgres_check_columns(lookup->connection, table, spec->key_count,
                                             spec->key_columns, spec->key_types, diag);
    if (status == JOINERY_OK) {
        PQfinish(lookup->connection);
        lookup->connection = NULL;
        status = open_connection(lookup, diag);
    }
    if (status != JOINERY_OK) {
        jdbc_lookup_close(&lookup->base);
        return status;
    }
    *created = &lookup->base;
    return JOINERY_OK;
}
