/*
 * jdbc_postgres_sink.c - the jdbc sink's PostgreSQL dialect (the sink
 * itself, its changelog rules and buffering: jdbc_sink_batch.c). +I and
 * +U are `INSERT ... ON CONFLICT (key) DO UPDATE SET` the other columns
 * (DO NOTHING when every column is in the key; a plain `INSERT` without a
 * primary key), -D is `DELETE ... WHERE` the key.
 *
 * A batch is written in one round trip: libpq's pipeline mode sends every
 * statement of the batch and one Sync, so the batch is one implicit
 * transaction: all of it is written or, on an error, none of it.
 * Statements are prepared once, values are sent as text parameters.
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/value.h"
#include "engine/connector/jdbc_postgres.h"

typedef struct JdbcWriter {
    PGconn *connection;
    size_t *offsets;     /* [field_count]: where each parameter's text starts */
    const char **values; /* [field_count]: the parameters of one statement */
} JdbcWriter;

static int fail(JdbcSink *sink, const char *what, const char *message, Diag *diag)
{
    if (!message)
        message = "";
    if (strncmp(message, "ERROR:  ", 8) == 0)
        message += 8;
    return diag_error(diag, JOINERY_ERROR_RUNTIME, "Table '%s': %s '%s' in %s failed: %.*s",
                      sink->base.spec->table->name, what, jdbc_sink_table_name(sink), sink->store,
                      (int)strcspn(message, "\n"), message);
}

/* Sends what libpq buffered, reading results meanwhile so the server never blocks on us. */
static int flush_output(JdbcSink *sink, Diag *diag)
{
    JdbcWriter *writer = sink->connection;
    for (;;) {
        int pending = PQflush(writer->connection);
        if (pending == 0)
            return JOINERY_OK;
        if (pending < 0)
            return fail(sink, "writing to", PQerrorMessage(writer->connection), diag);
        struct pollfd fd = {.fd = PQsocket(writer->connection), .events = POLLIN | POLLOUT};
        if (poll(&fd, 1, -1) < 0)
            continue;
        if ((fd.revents & POLLIN) && !PQconsumeInput(writer->connection))
            return fail(sink, "writing to", PQerrorMessage(writer->connection), diag);
    }
}

/* Sends one buffered row's statement (pipeline mode). */
static int send_row(JdbcSink *sink, const Row *row, StrBuf *text, Diag *diag)
{
    JdbcWriter *writer = sink->connection;
    const SinkSpec *spec = sink->base.spec;
    bool is_delete = row_kind(row) == ROW_KIND_DELETE;
    uint32_t count = is_delete ? sink->key_count : spec->field_count;
    size_t *offsets = writer->offsets;
    const char **values = writer->values;
    strbuf_clear(text);
    for (uint32_t p = 0; p < count; p++) {
        uint32_t field = is_delete ? sink->key_fields[p] : p;
        offsets[p] = text->length;
        values[p] = row_is_null(row, field) ? NULL : "";
        if (values[p]) {
            Value value = value_from_row(row, field, spec->types[field]);
            if (type_is_string(spec->types[field].id) && memchr(value.s.ptr, '\0', value.s.len))
                return diag_error(diag, JOINERY_ERROR_RUNTIME,
                                  "Table '%s': column '%s' holds a NUL character, which "
                                  "PostgreSQL text cannot store.",
                                  spec->table->name, spec->names[field]);
            if (jdbc_postgres_value_to_text(spec->types[field], value, text) != 0)
                return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        }
        if (strbuf_append_char(text, '\0') != 0)
            return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    }
    for (uint32_t p = 0; p < count; p++)
        if (values[p])
            values[p] = text->data + offsets[p];
    if (!PQsendQueryPrepared(writer->connection, is_delete ? "joinery_delete" : "joinery_write",
                             (int)count, values, NULL, NULL, 0))
        return fail(sink, "writing to", PQerrorMessage(writer->connection), diag);
    return flush_output(sink, diag);
}

/* Writes `rows` as one pipeline and one implicit transaction (JdbcSinkOps.write_rows). */
static int postgres_write_rows(JdbcSink *sink, Row *const *rows, uint32_t count, Diag *diag)
{
    JdbcWriter *writer = sink->connection;
    PGconn *connection = writer->connection;
    if (!PQenterPipelineMode(connection) || PQsetnonblocking(connection, 1) != 0)
        return fail(sink, "writing to", PQerrorMessage(connection), diag);
    int status = JOINERY_OK;
    StrBuf text = STRBUF_INIT;
    for (uint32_t sent = 0; sent < count && status == JOINERY_OK; sent++)
        status = send_row(sink, rows[sent], &text, diag);
    strbuf_free(&text);
    if (!PQpipelineSync(connection) && status == JOINERY_OK)
        status = fail(sink, "writing to", PQerrorMessage(connection), diag);
    if (status == JOINERY_OK)
        status = flush_output(sink, diag);
    PQsetnonblocking(connection, 0);
    /* read every result up to the Sync, keeping the first error */
    char first_error[400] = "";
    for (;;) {
        PGresult *result = PQgetResult(connection);
        if (!result) {
            if (PQstatus(connection) != CONNECTION_OK) {
                if (!first_error[0])
                    snprintf(first_error, sizeof first_error, "%s", PQerrorMessage(connection));
                break;
            }
            continue; /* end of one statement's results */
        }
        ExecStatusType kind = PQresultStatus(result);
        if (kind == PGRES_FATAL_ERROR && !first_error[0])
            snprintf(first_error, sizeof first_error, "%s", PQresultErrorMessage(result));
        PQclear(result);
        if (kind == PGRES_PIPELINE_SYNC)
            break;
    }
    PQexitPipelineMode(connection);
    if (status == JOINERY_OK && first_error[0])
        status = fail(sink, "writing to", first_error, diag);
    return status;
}

static void postgres_writer_close(JdbcSink *sink)
{
    JdbcWriter *writer = sink->connection;
    if (!writer)
        return;
    free(writer->offsets);
    free(writer->values);
    if (writer->connection)
        PQfinish(writer->connection);
    free(writer);
    sink->connection = NULL;
}

static const JdbcSinkOps POSTGRES_SINK = {
    .write_rows = postgres_write_rows,
    .close = postgres_writer_close,
};

/* Prepares a statement built by jdbc_statement.c under `name`. */
static int prepare(JdbcSink *sink, const char *name, JdbcStatement *statement, bool built,
                   const char *what, Diag *diag)
{
    JdbcWriter *writer = sink->connection;
    char *sql = built ? jdbc_statement_numbered(statement) : NULL;
    jdbc_statement_free(statement);
    if (!sql)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    PGresult *result = PQprepare(writer->connection, name, sql, 0, NULL);
    free(sql);
    int status = PQresultStatus(result) == PGRES_COMMAND_OK
                     ? JOINERY_OK
                     : fail(sink, what, PQresultErrorMessage(result), diag);
    PQclear(result);
    return status;
}

/* Prepares the write (and, for upserts, delete) statement. */
static int prepare_statements(JdbcSink *sink, Diag *diag)
{
    const SinkSpec *spec = sink->base.spec;
    JdbcStatement statement;
    bool built = jdbc_statement_insert(&statement, &JDBC_DIALECT_POSTGRESQL,
                                       jdbc_sink_table_name(sink), spec->names, spec->field_count,
                                       sink->key_fields, sink->upsert ? sink->key_count : 0) == 0;
    int status = prepare(sink, "joinery_write", &statement, built, "preparing the write to", diag);
    if (status != JOINERY_OK || !sink->upsert)
        return status;
    built = jdbc_statement_delete(&statement, &JDBC_DIALECT_POSTGRESQL, jdbc_sink_table_name(sink),
                                  spec->names, sink->key_fields, sink->key_count) == 0;
    return prepare(sink, "joinery_delete", &statement, built, "preparing the delete from", diag);
}

int jdbc_postgres_create_sink(const SinkSpec *spec, SinkWriter **created, Diag *diag)
{
    const CatalogTable *table = spec->table;
    JdbcSink *sink;
    int status = jdbc_sink_create(spec, &POSTGRES_SINK, &sink, diag);
    if (status != JOINERY_OK)
        return status;
    JdbcWriter *writer = calloc(1, sizeof *writer);
    sink->connection = writer;
    if (writer) {
        writer->offsets = calloc(spec->field_count + 1, sizeof *writer->offsets);
        writer->values = calloc(spec->field_count + 1, sizeof *writer->values);
    }
    if (!writer || !writer->offsets || !writer->values)
        status = diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory creating a jdbc sink");
    if (status == JOINERY_OK) {
        writer->connection = jdbc_postgres_connect(table, diag);
        if (!writer->connection)
            status = diag->status;
    }
    if (status == JOINERY_OK)
        status = jdbc_postgres_check_columns(writer->connection, table, spec->field_count,
                                             sink->columns, spec->types, diag);
    if (status == JOINERY_OK)
        status = prepare_statements(sink, diag);
    if (status != JOINERY_OK) {
        sink->base.vtable->close(&sink->base);
        return status;
    }
    *created = &sink->base;
    return JOINERY_OK;
}
