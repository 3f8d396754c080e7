/*
 * jdbc_postgres_sink.c - writes rows into a PostgreSQL table (the jdbc connector's
 * sink). With a PRIMARY KEY it is an upsert sink as Flink's: +I and +U
 * are `INSERT ... ON CONFLICT (key) DO UPDATE SET` the other columns
 * (DO NOTHING when every column is in the key), -D is `DELETE ... WHERE`
 * the key, -U is dropped; without one it appends (`INSERT`) and takes +I
 * only (the planner rejects updating input, see sink_changelog).
 *
 * Rows are buffered (heap copies, in arrival order) and written
 * `sink.buffer-flush.max-rows` at a time (default 100, as Flink) in one
 * round trip: libpq's pipeline mode sends every statement of the batch
 * and one Sync, so the batch is one implicit transaction: all of it is
 * written or, on an error, none of it. What is left of a RowBatch is
 * written before write returns, so no row waits for later input (an
 * unbounded job's rows reach the table as they come; Flink's
 * `sink.buffer-flush.interval` never has to fire). A failed batch fails
 * the job (no `sink.max-retries`).
 * Statements are prepared once, values are sent as text parameters.
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "engine/base/value.h"
#include "engine/connector/jdbc_postgres.h"

typedef struct JdbcWriter {
    SinkWriter base;
    PGconn *connection;
    char store[600];
    bool upsert;          /* a primary key is declared */
    uint32_t *key_fields; /* sink fields of the key, in key order */
    uint32_t key_count;
    Row **buffer;
    uint32_t buffered;
    uint32_t capacity;
    uint64_t batches_written;
    size_t *offsets;     /* [field_count]: where each parameter's text starts */
    const char **values; /* [field_count]: the parameters of one statement */
} JdbcWriter;

static const char *table_name(const JdbcWriter *writer)
{
    return catalog_table_option(writer->base.spec->table, "table-name");
}

static int fail(JdbcWriter *writer, const char *what, const char *message, Diag *diag)
{
    if (!message)
        message = "";
    if (strncmp(message, "ERROR:  ", 8) == 0)
        message += 8;
    return diag_error(diag, JOINERY_ERROR_RUNTIME, "Table '%s': %s '%s' in %s failed: %.*s",
                      writer->base.spec->table->name, what, table_name(writer), writer->store,
                      (int)strcspn(message, "\n"), message);
}

/* Sends what libpq buffered, reading results meanwhile so the server never blocks on us. */
static int flush_output(JdbcWriter *writer, Diag *diag)
{
    for (;;) {
        int pending = PQflush(writer->connection);
        if (pending == 0)
            return JOINERY_OK;
        if (pending < 0)
            return fail(writer, "writing to", PQerrorMessage(writer->connection), diag);
        struct pollfd fd = {.fd = PQsocket(writer->connection), .events = POLLIN | POLLOUT};
        if (poll(&fd, 1, -1) < 0)
            continue;
        if ((fd.revents & POLLIN) && !PQconsumeInput(writer->connection))
            return fail(writer, "writing to", PQerrorMessage(writer->connection), diag);
    }
}

/* Sends one buffered row's statement (pipeline mode). */
static int send_row(JdbcWriter *writer, const Row *row, StrBuf *text, Diag *diag)
{
    const SinkSpec *spec = writer->base.spec;
    bool is_delete = row_kind(row) == ROW_KIND_DELETE;
    uint32_t count = is_delete ? writer->key_count : spec->field_count;
    size_t *offsets = writer->offsets;
    const char **values = writer->values;
    strbuf_clear(text);
    for (uint32_t p = 0; p < count; p++) {
        uint32_t field = is_delete ? writer->key_fields[p] : p;
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
        return fail(writer, "writing to", PQerrorMessage(writer->connection), diag);
    return flush_output(writer, diag);
}

/* Writes the buffered rows as one pipeline and one implicit transaction. */
static int flush_buffer(JdbcWriter *writer, Diag *diag)
{
    if (writer->buffered == 0)
        return JOINERY_OK;
    PGconn *connection = writer->connection;
    if (!PQenterPipelineMode(connection) || PQsetnonblocking(connection, 1) != 0)
        return fail(writer, "writing to", PQerrorMessage(connection), diag);
    int status = JOINERY_OK;
    StrBuf text = STRBUF_INIT;
    uint32_t sent = 0;
    for (; sent < writer->buffered && status == JOINERY_OK; sent++)
        status = send_row(writer, writer->buffer[sent], &text, diag);
    strbuf_free(&text);
    if (!PQpipelineSync(connection) && status == JOINERY_OK)
        status = fail(writer, "writing to", PQerrorMessage(connection), diag);
    if (status == JOINERY_OK)
        status = flush_output(writer, diag);
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
        status = fail(writer, "writing to", first_error, diag);
    if (status == JOINERY_OK) {
        writer->base.rows_written += writer->buffered;
        writer->batches_written++;
    }
    for (uint32_t i = 0; i < writer->buffered; i++)
        free(writer->buffer[i]);
    writer->buffered = 0;
    return status;
}

static int jdbc_sink_write(SinkWriter *base, const RowBatch *batch, Diag *diag)
{
    JdbcWriter *writer = base->impl;
    for (uint32_t i = 0; i < batch->count; i++) {
        const Row *row = batch->rows[i];
        RowKind kind = row_kind(row);
        if (kind == ROW_KIND_UPDATE_BEFORE)
            continue; /* upsert: the +U that follows replaces the row */
        if (!writer->upsert && kind != ROW_KIND_INSERT)
            return diag_error(diag, JOINERY_ERROR_RUNTIME,
                              "Table '%s': a %s row reached a jdbc sink without a primary key "
                              "(append only).",
                              base->spec->table->name, row_kind_name(kind));
        Row *copy = row_copy_heap(row);
        if (!copy)
            return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        writer->buffer[writer->buffered++] = copy;
        if (writer->buffered == writer->capacity) {
            int status = flush_buffer(writer, diag);
            if (status != JOINERY_OK)
                return status;
        }
    }
    return flush_buffer(writer, diag);
}

static int jdbc_sink_finish(SinkWriter *base, Diag *diag)
{
    return flush_buffer(base->impl, diag);
}

static void jdbc_sink_abort(SinkWriter *base, StrBuf *note)
{
    JdbcWriter *writer = base->impl;
    for (uint32_t i = 0; i < writer->buffered; i++)
        free(writer->buffer[i]);
    writer->buffered = 0;
    strbuf_printf(note,
                  "PostgreSQL table '%s' keeps the %llu rows written before the failure (%llu "
                  "batches, each one transaction); the rest was not written.",
                  table_name(writer), (unsigned long long)base->rows_written,
                  (unsigned long long)writer->batches_written);
}

static void jdbc_sink_close(SinkWriter *base)
{
    JdbcWriter *writer = base->impl;
    for (uint32_t i = 0; i < writer->buffered; i++)
        free(writer->buffer[i]);
    free(writer->buffer);
    free(writer->key_fields);
    free(writer->offsets);
    free(writer->values);
    if (writer->connection)
        PQfinish(writer->connection);
    free(writer);
}

static const SinkWriterVtable JDBC_WRITER = {
    .write = jdbc_sink_write,
    .finish = jdbc_sink_finish,
    .abort = jdbc_sink_abort,
    .close = jdbc_sink_close,
};

/* Prepares a statement built by jdbc_statement.c under `name`. */
static int prepare(JdbcWriter *writer, const char *name, JdbcStatement *statement, bool built,
                   const char *what, Diag *diag)
{
    char *sql = built ? jdbc_statement_numbered(statement) : NULL;
    jdbc_statement_free(statement);
    if (!sql)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    PGresult *result = PQprepare(writer->connection, name, sql, 0, NULL);
    free(sql);
    int status = PQresultStatus(result) == PGRES_COMMAND_OK
                     ? JOINERY_OK
                     : fail(writer, what, PQresultErrorMessage(result), diag);
    PQclear(result);
    return status;
}

/* Prepares the write (and, for upserts, delete) statement. */
static int prepare_statements(JdbcWriter *writer, Diag *diag)
{
    const SinkSpec *spec = writer->base.spec;
    JdbcStatement statement;
    bool built = jdbc_statement_insert(&statement, &JDBC_DIALECT_POSTGRESQL, table_name(writer),
                                       spec->names, spec->field_count, writer->key_fields,
                                       writer->upsert ? writer->key_count : 0) == 0;
    int status =
        prepare(writer, "joinery_write", &statement, built, "preparing the write to", diag);
    if (status != JOINERY_OK || !writer->upsert)
        return status;
    built = jdbc_statement_delete(&statement, &JDBC_DIALECT_POSTGRESQL, table_name(writer),
                                  spec->names, writer->key_fields, writer->key_count) == 0;
    return prepare(writer, "joinery_delete", &statement, built, "preparing the delete from", diag);
}

int jdbc_postgres_create_sink(const SinkSpec *spec, SinkWriter **created, Diag *diag)
{
    const CatalogTable *table = spec->table;
    JdbcWriter *writer = calloc(1, sizeof *writer);
    if (!writer)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory creating a jdbc sink");
    writer->base.vtable = &JDBC_WRITER;
    writer->base.spec = spec;
    writer->base.impl = writer;
    int64_t capacity = jdbc_option_int(table, "sink.buffer-flush.max-rows", 100);
    writer->capacity = capacity > 0 ? (uint32_t)capacity : 1;
    writer->buffer = calloc(writer->capacity, sizeof *writer->buffer);
    writer->upsert = table->primary_key_count > 0;
    writer->key_fields = calloc(table->primary_key_count + 1, sizeof *writer->key_fields);
    uint32_t *columns = calloc(spec->field_count + 1, sizeof *columns);
    writer->offsets = calloc(spec->field_count + 1, sizeof *writer->offsets);
    writer->values = calloc(spec->field_count + 1, sizeof *writer->values);
    if (!writer->offsets || !writer->values || !writer->buffer || !writer->key_fields || !columns) {
        free(columns);
        jdbc_sink_close(&writer->base);
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory creating a jdbc sink");
    }
    int status = JOINERY_OK;
    for (size_t k = 0; k < table->primary_key_count; k++)
        for (uint32_t f = 0; f < spec->field_count; f++)
            if (strcasecmp(spec->names[f], table->primary_key[k]) == 0)
                writer->key_fields[writer->key_count++] = f;
    if (writer->key_count != table->primary_key_count)
        status = diag_error(diag, JOINERY_ERROR_VALIDATE,
                            "Table '%s': a primary key column is not among the sink's columns.",
                            table->name);
    for (uint32_t f = 0; f < spec->field_count && status == JOINERY_OK; f++) {
        size_t c = 0;
        while (c < table->column_count && strcasecmp(table->columns[c].name, spec->names[f]) != 0)
            c++;
        if (c == table->column_count)
            status = diag_error(diag, JOINERY_ERROR_VALIDATE,
                                "Table '%s': sink column '%s' is not a column of the table.",
                                table->name, spec->names[f]);
        columns[f] = (uint32_t)c;
    }
    JdbcEndpoint endpoint;
    if (status == JOINERY_OK)
        status = jdbc_table_endpoint(table, &endpoint, diag);
    if (status == JOINERY_OK) {
        jdbc_store_name(&endpoint, writer->store, sizeof writer->store);
        writer->connection = jdbc_postgres_connect(table, diag);
        if (!writer->connection)
            status = diag->status;
    }
    if (status == JOINERY_OK)
        status = jdbc_postgres_check_columns(writer->connection, table, spec->field_count, columns,
                                             spec->types, diag);
    free(columns);
    if (status == JOINERY_OK)
        status = prepare_statements(writer, diag);
    if (status != JOINERY_OK) {
        jdbc_sink_close(&writer->base);
        return status;
    }
    *created = &writer->base;
    return JOINERY_OK;
}
