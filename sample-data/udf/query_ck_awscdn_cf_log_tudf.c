/*
 * query_ck_awscdn_cf_log_tudf.c - a sample user-defined C table function
 * against a real store: seed 004's query_ck_awscdn_cf_log_tudf(ips, domain,
 * window_end), built by the Makefile into build/udf/libjoinery_cdn_log_udf.so
 * (linked with libpq) and registered with
 *
 *   CREATE TEMPORARY FUNCTION query_ck_awscdn_cf_log_tudf
 *     AS 'query_ck_awscdn_cf_log_tudf' LANGUAGE C
 *     USING JAR 'build/udf/libjoinery_cdn_log_udf.so';
 *
 * The seed's function queries a log store (ClickHouse) for the AWS CDN and
 * Cloudflare edge logs of a window's IPs; this one queries a PostgreSQL
 * table of the same records:
 *
 *   CREATE TABLE cdn_log (log_time timestamp, ip text, source text,  -- 'aws' | 'cf'
 *                         domain text, status int);
 *
 * Configuration: the job parameter `cdn_log.conninfo`, a libpq connection
 * string or URI (SET 'pipeline.global-job-parameters' =
 * 'cdn_log.conninfo:host=db port=5432 dbname=logs user=reader password=...');
 * without it libpq's defaults apply (PGHOST, PGPORT, PGDATABASE, PGUSER,
 * PGPASSWORD, ~/.pgpass). Error messages name the store as
 * PostgreSQL host:port/database, never the password.
 *
 * Arguments: ips, a comma-separated list (the window's LISTAGG); domain, ''
 * for every domain; window_end, 'yyyy-MM-dd HH:mm:ss'. The records looked at
 * are those of the IPs (and domain) in the 3 minutes before window_end
 * (window_end - 3 min <= log_time < window_end), asked with one
 * parameterized statement (QUERY below; no SQL is built from the
 * arguments). Result: one row (aws_cdnlog_flag, cf_edge_log_flag) when
 * either source has a record, each flag 'CDN_NORMAL_DATA' when every record
 * of that source has a status below 400, 'CDN_ABNORMAL_DATA' when one has
 * 400 or more, NULL when the source has none; no row when neither has. A
 * window_end that does not parse and a store that cannot be reached or
 * fails the statement are errors (returned, never a crash).
 *
 * Two descriptors over the same query:
 * - query_ck_awscdn_cf_log_tudf: async (ABI 2's start / poll / descriptor):
 *   the instance's connection is in libpq's pipeline mode, each call one
 *   statement and Sync, the answers read back in order as the socket
 *   becomes readable, so up to 'table.exec.async-table.max-concurrent-
 *   operations' calls share the round trips.
 * - query_ck_awscdn_cf_log_tudf_sync: the same as a blocking table function.
 * Each instance (one per Correlate subtask) owns its connection, opened at
 * its first call (a blocking connect, once) and again after the server
 * dropped it; nothing is global, so the functions are reentrant.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "engine/udf/joinery_udf.h"

extern const JoineryUdfDescriptor query_ck_awscdn_cf_log_tudf, query_ck_awscdn_cf_log_tudf_sync;

enum { MESSAGE_SIZE = 512 };

/* Per source of the window's IPs: 1 when it has a record, the flag of its worst status. */
static const char QUERY[] =
    "SELECT source, max(CASE WHEN status >= 400 THEN 1 ELSE 0 END) FROM cdn_log"
    " WHERE ip = ANY (regexp_split_to_array($1, '\\s*,\\s*'))"
    " AND ($2 = '' OR domain = $2)"
    " AND log_time >= $3::timestamp - interval '3 minutes' AND log_time < $3::timestamp"
    " AND source IN ('aws', 'cf')"
    " GROUP BY source";

/* A call waiting for its answer (async): its request and what arrived so far. */
typedef struct Pending {
    uint64_t request;
    int found[2]; /* aws, cf: 0 no record, 1 normal, 2 abnormal */
    char error[MESSAGE_SIZE];
} Pending;

typedef struct Instance {
    char *conninfo; /* the job parameter's copy; "" for libpq's defaults */
    PGconn *connection;
    int async;
    int want_write;   /* output waits for the socket */
    Pending *pending; /* ring of calls in flight, oldest at head */
    uint32_t head, count, capacity;
} Instance;

static int fail(JoineryUdfContext *context, const char *message)
{
    context->set_error(context, message);
    return JOINERY_UDF_ERROR;
}

/* 'yyyy-MM-dd HH:mm:ss' exactly (PostgreSQL would also take 'yesterday'). */
static int window_end_valid(const JoineryUdfValue *end)
{
    static const char shape[] = "dddd-dd-dd dd:dd:dd";
    if (end->s.len != sizeof shape - 1)
        return 0;
    for (uint32_t i = 0; i < end->s.len; i++) {
        char c = end->s.ptr[i];
        if (shape[i] == 'd' ? (c < '0' || c > '9') : c != shape[i])
            return 0;
    }
    return 1;
}

/* "CDN log store PostgreSQL host:port/db: <libpq's message, one line>" */
static void store_error(const Instance *instance, const char *what, char *out, size_t size)
{
    const PGconn *connection = instance->connection;
    const char *host = connection ? PQhost(connection) : NULL;
    const char *port = connection ? PQport(connection) : NULL;
    const char *database = connection ? PQdb(connection) : NULL;
    int length =
        snprintf(out, size, "CDN log store PostgreSQL %s:%s/%s: ", host && *host ? host : "?",
                 port && *port ? port : "?", database && *database ? database : "?");
    if (length < 0 || (size_t)length >= size)
        return;
    snprintf(out + length, size - (size_t)length, "%s", what && *what ? what : "unknown error");
    for (char *c = out; *c; c++)
        if (*c == '\n' || *c == '\t')
            *c = c[1] ? ' ' : '\0';
}

/* Connects when there is no usable connection; 0, or -1 with the message in `error`. */
static int ensure_connected(Instance *instance, char *error, size_t size)
{
    if (instance->connection && PQstatus(instance->connection) == CONNECTION_OK)
        return 0;
    if (instance->connection)
        PQfinish(instance->connection);
    instance->want_write = 0;
    instance->connection = PQconnectdb(instance->conninfo);
    if (!instance->connection) {
        snprintf(error, size, "CDN log store PostgreSQL: out of memory");
        return -1;
    }
    if (PQstatus(instance->connection) != CONNECTION_OK) {
        store_error(instance, PQerrorMessage(instance->connection), error, size);
        PQfinish(instance->connection);
        instance->connection = NULL;
        return -1;
    }
    if (instance->async && (PQsetnonblocking(instance->connection, 1) != 0 ||
                            !PQenterPipelineMode(instance->connection))) {
        store_error(instance, PQerrorMessage(instance->connection), error, size);
        PQfinish(instance->connection);
        instance->connection = NULL;
        return -1;
    }
    return 0;
}

/* Folds one answer's rows (source, abnormal) into found[]. */
static void fold_rows(const PGresult *result, int found[2])
{
    for (int r = 0; r < PQntuples(result); r++) {
        const char *source = PQgetvalue(result, r, 0);
        int source_index = strcmp(source, "aws") == 0 ? 0 : strcmp(source, "cf") == 0 ? 1 : -1;
        if (source_index < 0)
            continue;
        int flag = strcmp(PQgetvalue(result, r, 1), "1") == 0 ? 2 : 1;
        if (flag > found[source_index])
            found[source_index] = flag;
    }
}

/* The call's row from found[]: 0 rows (neither source) or 1, into row[2]. */
static uint32_t result_row(const int found[2], JoineryUdfValue row[2])
{
    memset(row, 0, 2 * sizeof *row);
    for (int s = 0; s < 2; s++) {
        const char *flag = found[s] == 2 ? "CDN_ABNORMAL_DATA" : "CDN_NORMAL_DATA";
        row[s].is_null = found[s] == 0;
        row[s].s.ptr = flag;
        row[s].s.len = (uint32_t)strlen(flag);
    }
    return found[0] || found[1] ? 1 : 0;
}

/* The statement's three text parameters, NUL-terminated copies in `buffer`. */
static int parameters(JoineryUdfContext *context, const JoineryUdfValue *arguments,
                      const char *values[3])
{
    for (int i = 0; i < 3; i++) {
        char *copy = context->allocate(context, arguments[i].s.len + 1);
        if (!copy)
            return -1;
        if (arguments[i].s.len)
            memcpy(copy, arguments[i].s.ptr, arguments[i].s.len);
        copy[arguments[i].s.len] = '\0';
        values[i] = copy;
    }
    return 0;
}

/* ---------------------------------------------------------------- instances */

static int open_instance(JoineryUdfContext *context, void **state, int async)
{
    Instance *instance = calloc(1, sizeof *instance);
    const char *conninfo = context->job_parameter(context, "cdn_log.conninfo");
    if (!instance || !(instance->conninfo = strdup(conninfo ? conninfo : ""))) {
        free(instance);
        return fail(context, "out of memory");
    }
    instance->async = async;
    *state = instance;
    return JOINERY_UDF_OK;
}

static int open_async(JoineryUdfContext *context, void **state)
{
    return open_instance(context, state, 1);
}

static int open_sync(JoineryUdfContext *context, void **state)
{
    return open_instance(context, state, 0);
}

static void close_instance(void *state)
{
    Instance *instance = state;
    if (instance->connection)
        PQfinish(instance->connection);
    free(instance->pending);
    free(instance->conninfo);
    free(instance);
}

/* ---------------------------------------------------------------- sync */

static int query_sync(JoineryUdfContext *context, const JoineryUdfValue *arguments)
{
    Instance *instance = context->instance;
    char message[MESSAGE_SIZE];
    if (!window_end_valid(&arguments[2]))
        return fail(context, "window_end is not 'yyyy-MM-dd HH:mm:ss'");
    const char *values[3];
    if (parameters(context, arguments, values) != 0)
        return fail(context, "out of memory");
    for (int attempt = 0;; attempt++) {
        if (ensure_connected(instance, message, sizeof message) != 0)
            return fail(context, message);
        PGresult *result =
            PQexecParams(instance->connection, QUERY, 3, NULL, values, NULL, NULL, 0);
        if (PQresultStatus(result) == PGRES_TUPLES_OK) {
            int found[2] = {0, 0};
            fold_rows(result, found);
            PQclear(result);
            JoineryUdfValue row[2];
            return result_row(found, row) ? context->emit(context, row) : JOINERY_UDF_OK;
        }
        int broken = PQstatus(instance->connection) != CONNECTION_OK;
        store_error(instance,
                    broken ? PQerrorMessage(instance->connection) : PQresultErrorMessage(result),
                    message, sizeof message);
        PQclear(result);
        if (!broken || attempt > 0) /* a dropped connection is opened again once */
            return fail(context, message);
    }
}

/* ---------------------------------------------------------------- async */

static int flush(Instance *instance)
{
    int pending = PQflush(instance->connection);
    instance->want_write = pending > 0;
    return pending < 0 ? -1 : 0;
}

/* The server went away: every call in flight fails with the store's message. */
static int fail_all(JoineryUdfContext *context, Instance *instance)
{
    char message[MESSAGE_SIZE];
    store_error(instance, PQerrorMessage(instance->connection), message, sizeof message);
    PQfinish(instance->connection);
    instance->connection = NULL;
    instance->want_write = 0;
    int status = JOINERY_UDF_OK;
    while (instance->count > 0 && status == JOINERY_UDF_OK) {
        Pending *pending = &instance->pending[instance->head];
        instance->head = (instance->head + 1) % instance->capacity;
        instance->count--;
        status = context->complete(context, pending->request, NULL, 0, message);
    }
    return status;
}

static int query_start(JoineryUdfContext *context, const JoineryUdfValue *arguments,
                       uint64_t request)
{
    Instance *instance = context->instance;
    char message[MESSAGE_SIZE];
    if (!window_end_valid(&arguments[2]))
        return fail(context, "window_end is not 'yyyy-MM-dd HH:mm:ss'");
    const char *values[3];
    if (parameters(context, arguments, values) != 0)
        return fail(context, "out of memory");
    if (instance->count == 0 && ensure_connected(instance, message, sizeof message) != 0)
        return fail(context, message);
    if (!instance->connection) /* dropped with calls in flight: they fail in poll */
        return fail(context, "CDN log store PostgreSQL: the connection was lost");
    if (instance->count == instance->capacity) {
        uint32_t capacity = instance->capacity ? instance->capacity * 2 : 16;
        Pending *ring = calloc(capacity, sizeof *ring);
        if (!ring)
            return fail(context, "out of memory");
        for (uint32_t i = 0; i < instance->count; i++)
            ring[i] = instance->pending[(instance->head + i) % instance->capacity];
        free(instance->pending);
        instance->pending = ring;
        instance->head = 0;
        instance->capacity = capacity;
    }
    if (!PQsendQueryParams(instance->connection, QUERY, 3, NULL, values, NULL, NULL, 0) ||
        !PQpipelineSync(instance->connection) || flush(instance) != 0) {
        store_error(instance, PQerrorMessage(instance->connection), message, sizeof message);
        return fail(context, message);
    }
    Pending *pending = &instance->pending[(instance->head + instance->count) % instance->capacity];
    memset(pending, 0, sizeof *pending);
    pending->request = request;
    instance->count++;
    return JOINERY_UDF_OK;
}

static int query_poll(JoineryUdfContext *context)
{
    Instance *instance = context->instance;
    if (!instance->connection || instance->count == 0)
        return JOINERY_UDF_OK;
    if (flush(instance) != 0 || !PQconsumeInput(instance->connection))
        return fail_all(context, instance);
    while (instance->count > 0 && !PQisBusy(instance->connection)) {
        PGresult *result = PQgetResult(instance->connection);
        if (!result) {
            if (PQstatus(instance->connection) != CONNECTION_OK)
                return fail_all(context, instance);
            continue; /* the end of a statement's results: its Sync follows */
        }
        Pending *pending = &instance->pending[instance->head];
        ExecStatusType kind = PQresultStatus(result);
        if (kind == PGRES_TUPLES_OK) {
            fold_rows(result, pending->found);
        } else if (kind == PGRES_PIPELINE_SYNC) {
            instance->head = (instance->head + 1) % instance->capacity;
            instance->count--;
            JoineryUdfValue row[2];
            uint32_t rows = result_row(pending->found, row);
            int status = context->complete(context, pending->request, row, rows,
                                           pending->error[0] ? pending->error : NULL);
            if (status != JOINERY_UDF_OK) {
                PQclear(result);
                return status;
            }
        } else if (!pending->error[0]) {
            store_error(instance, PQresultErrorMessage(result), pending->error,
                        sizeof pending->error);
        }
        PQclear(result);
    }
    if (PQstatus(instance->connection) != CONNECTION_OK)
        return fail_all(context, instance);
    return JOINERY_UDF_OK;
}

static int query_descriptor(void *state, uint32_t *events)
{
    Instance *instance = state;
    if (!instance->connection)
        return -1;
    *events = instance->want_write ? JOINERY_UDF_WAIT_WRITE : 0;
    return PQsocket(instance->connection);
}

static const JoineryUdfType ARGUMENTS[] = {JOINERY_UDF_STRING, JOINERY_UDF_STRING,
                                           JOINERY_UDF_STRING};
static const JoineryUdfType RESULTS[] = {JOINERY_UDF_STRING, JOINERY_UDF_STRING};
static const char *const RESULT_NAMES[] = {"aws_cdnlog_flag", "cf_edge_log_flag"};

const JoineryUdfDescriptor query_ck_awscdn_cf_log_tudf = {
    .abi_version = JOINERY_UDF_ABI_VERSION,
    .kind = JOINERY_UDF_TABLE,
    .argument_count = 3,
    .argument_types = ARGUMENTS,
    .result_count = 2,
    .result_types = RESULTS,
    .result_names = RESULT_NAMES,
    .open = open_async,
    .close = close_instance,
    .start = query_start,
    .poll = query_poll,
    .descriptor = query_descriptor,
};

const JoineryUdfDescriptor query_ck_awscdn_cf_log_tudf_sync = {
    .abi_version = JOINERY_UDF_ABI_VERSION,
    .kind = JOINERY_UDF_TABLE,
    .argument_count = 3,
    .argument_types = ARGUMENTS,
    .result_count = 2,
    .result_types = RESULTS,
    .result_names = RESULT_NAMES,
    .table = query_sync,
    .open = open_sync,
    .close = close_instance,
};
