/*
 * jdbc_mysql_sink.c - writes rows into a MySQL / MariaDB table (the jdbc
 * connector's sink). With a PRIMARY KEY it is an upsert sink as Flink's:
 * +I and +U are `INSERT ... ON DUPLICATE KEY UPDATE` every column, -D is
 * `DELETE ... WHERE` the key, -U is dropped; without one it appends
 * (`INSERT`) and takes +I only (the planner rejects updating input).
 *
 * Rows are buffered (heap copies, in arrival order) and written
 * `sink.buffer-flush.max-rows` at a time (default 100, as Flink) in one
 * round trip: one query of several statements, `START TRANSACTION; ...;
 * COMMIT`, so a batch is written whole or, on an error (the server runs
 * no statement after a failed one), rolled back. What is left of a
 * RowBatch is written before write returns, so no row waits for later
 * input. A failed batch fails the job (no `sink.max-retries`).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "engine/connector/jdbc_mysql.h"

typedef struct MysqlWriter {
    SinkWriter base;
    MYSQL *mysql;
    char store[600];
    bool upsert;
    uint32_t *key_fields;
    uint32_t key_count;
    JdbcStatement insert;
    JdbcStatement delete;
    Row **buffer;
    uint32_t buffered;
    uint32_t capacity;
    uint64_t batches_written;
    StrBuf sql;
} MysqlWriter;

static const char *table_name(const MysqlWriter *writer)
{
    return catalog_table_option(writer->base.spec->table, "table-name");
}

static int write_failed(MysqlWriter *writer, const char *reason, Diag *diag)
{
    return diag_error(diag, JOINERY_ERROR_RUNTIME, "Table '%s': writing to '%s' in %s failed: %s",
                      writer->base.spec->table->name, table_name(writer), writer->store, reason);
}

/* Reads every result of the query just sent; the first error's text in `error` ("" none). */
static void read_results(MYSQL *mysql, char *error, size_t size)
{
    error[0] = '\0';
    for (;;) {
        MYSQL_RES *result = mysql_store_result(mysql);
        if (result)
            mysql_free_result(result);
        else if (mysql_errno(mysql) != 0) {
            snprintf(error, size, "%s", mysql_error(mysql));
            return;
        }
        int next = mysql_next_result(mysql);
        if (next < 0)
            return;
        if (next > 0) {
            snprintf(error, size, "%s", mysql_error(mysql));
            return;
        }
    }
}

/* Writes the buffered rows as one query and one transaction. */
static int flush_buffer(MysqlWriter *writer, Diag *diag)
{
    if (writer->buffered == 0)
        return JOINERY_OK;
    const SinkSpec *spec = writer->base.spec;
    StrBuf *sql = &writer->sql;
    strbuf_clear(sql);
    char error[512] = "";
    int failed = strbuf_append_cstr(sql, "START TRANSACTION");
    for (uint32_t i = 0; i < writer->buffered && !failed; i++) {
        const Row *row = writer->buffer[i];
        bool is_delete = row_kind(row) == ROW_KIND_DELETE;
        failed = strbuf_append_cstr(sql, ";\n") != 0 ||
                 jdbc_mysql_render(writer->mysql, is_delete ? &writer->delete : &writer->insert,
                                   row, spec->types, sql, error, sizeof error) != 0;
    }
    failed |= !failed && strbuf_append_cstr(sql, ";\nCOMMIT") != 0;
    for (uint32_t i = 0; i < writer->buffered; i++)
        free(writer->buffer[i]);
    uint32_t rows = writer->buffered;
    writer->buffered = 0;
    if (failed)
        return write_failed(writer, error, diag);
    if (mysql_real_query(writer->mysql, sql->data, sql->length) != 0)
        snprintf(error, sizeof error, "%s", mysql_error(writer->mysql));
    else
        read_results(writer->mysql, error, sizeof error);
    if (error[0]) {
        /* a statement failed: the ones after it did not run, the transaction is open */
        if (!jdbc_mysql_connection_lost(mysql_errno(writer->mysql)) &&
            mysql_query(writer->mysql, "ROLLBACK") == 0) {
            char ignored[8];
            read_results(writer->mysql, ignored, sizeof ignored);
        }
        return write_failed(writer, error, diag);
    }
    writer->base.rows_written += rows;
    writer->batches_written++;
    return JOINERY_OK;
}

static int mysql_sink_write(SinkWriter *base, const RowBatch *batch, Diag *diag)
{
    MysqlWriter *writer = base->impl;
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

static int mysql_sink_finish(SinkWriter *base, Diag *diag)
{
    return flush_buffer(base->impl, diag);
}

static void mysql_sink_abort(SinkWriter *base, StrBuf *note)
{
    MysqlWriter *writer = base->impl;
    for (uint32_t i = 0; i < writer->buffered; i++)
        free(writer->buffer[i]);
    writer->buffered = 0;
    strbuf_printf(note,
                  "table '%s' in %s keeps the %llu rows written before the failure (%llu "
                  "batches, each one transaction); the rest was not written.",
                  table_name(writer), writer->store, (unsigned long long)base->rows_written,
                  (unsigned long long)writer->batches_written);
}

static void mysql_sink_close(SinkWriter *base)
{
    MysqlWriter *writer = base->impl;
    for (uint32_t i = 0; i < writer->buffered; i++)
        free(writer->buffer[i]);
    free(writer->buffer);
    free(writer->key_fields);
    jdbc_statement_free(&writer->insert);
    jdbc_statement_free(&writer->delete);
    strbuf_free(&writer->sql);
    if (writer->mysql)
        mysql_close(writer->mysql);
    free(writer);
}

static const SinkWriterVtable MYSQL_WRITER = {
    .write = mysql_sink_write,
    .finish = mysql_sink_finish,
    .abort = mysql_sink_abort,
    .close = mysql_sink_close,
};

int jdbc_mysql_create_sink(const SinkSpec *spec, SinkWriter **created, Diag *diag)
{
    const CatalogTable *table = spec->table;
    MysqlWriter *writer = calloc(1, sizeof *writer);
    if (!writer)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory creating a jdbc sink");
    writer->base.vtable = &MYSQL_WRITER;
    writer->base.spec = spec;
    writer->base.impl = writer;
    int64_t capacity = jdbc_option_int(table, "sink.buffer-flush.max-rows", 100);
    writer->capacity = capacity > 0 ? (uint32_t)capacity : 1;
    writer->buffer = calloc(writer->capacity, sizeof *writer->buffer);
    writer->upsert = table->primary_key_count > 0;
    writer->key_fields = calloc(table->primary_key_count + 1, sizeof *writer->key_fields);
    uint32_t *columns = calloc(spec->field_count + 1, sizeof *columns);
    if (!writer->buffer || !writer->key_fields || !columns) {
        free(columns);
        mysql_sink_close(&writer->base);
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
        writer->mysql = jdbc_mysql_connect(table, false, diag);
        if (!writer->mysql)
            status = diag->status;
    }
    if (status == JOINERY_OK)
        status = jdbc_mysql_check_columns(writer->mysql, table, spec->field_count, columns,
                                          spec->types, diag);
    free(columns);
    if (status == JOINERY_OK &&
        (jdbc_statement_insert(&writer->insert, endpoint.dialect, table_name(writer), spec->names,
                               spec->field_count, writer->key_fields,
                               writer->upsert ? writer->key_count : 0) != 0 ||
         jdbc_statement_delete(&writer->delete, endpoint.dialect, table_name(writer), spec->names,
                               writer->key_fields, writer->key_count) != 0))
        status = diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    if (status != JOINERY_OK) {
        mysql_sink_close(&writer->base);
        return status;
    }
    *created = &writer->base;
    return JOINERY_OK;
}
