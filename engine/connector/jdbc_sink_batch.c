/*
 * jdbc_sink_batch.c - the dialect-independent part of the jdbc sink
 * (contract in jdbc_internal.h): the changelog rules, the row buffer and
 * the batch-per-transaction loop. A dialect (jdbc_postgres_sink.c,
 * jdbc_mysql_sink.c) supplies only how one batch is written. Invariant:
 * buffer[0..buffered) are heap copies of +I, +U or -D rows not yet
 * written, buffered < capacity between calls.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "engine/connector/jdbc_internal.h"

const char *jdbc_sink_table_name(const JdbcSink *sink)
{
    return catalog_table_option(sink->base.spec->table, "table-name");
}

static void discard_buffer(JdbcSink *sink)
{
    for (uint32_t i = 0; i < sink->buffered; i++)
        free(sink->buffer[i]);
    sink->buffered = 0;
}

/* Writes the buffered rows as one transaction; the buffer is empty afterwards either way. */
static int flush_buffer(JdbcSink *sink, Diag *diag)
{
    if (sink->buffered == 0)
        return JOINERY_OK;
    uint32_t rows = sink->buffered;
    int status = sink->ops->write_rows(sink, sink->buffer, rows, diag);
    discard_buffer(sink);
    if (status == JOINERY_OK) {
        sink->base.rows_written += rows;
        sink->batches_written++;
    }
    return status;
}

static int jdbc_sink_write(SinkWriter *base, const RowBatch *batch, Diag *diag)
{
    JdbcSink *sink = base->impl;
    for (uint32_t i = 0; i < batch->count; i++) {
        const Row *row = batch->rows[i];
        RowKind kind = row_kind(row);
        if (kind == ROW_KIND_UPDATE_BEFORE)
            continue; /* upsert: the +U that follows replaces the row */
        if (!sink->upsert && kind != ROW_KIND_INSERT)
            return diag_error(diag, JOINERY_ERROR_RUNTIME,
                              "Table '%s': a %s row reached a jdbc sink without a primary key "
                              "(append only).",
                              base->spec->table->name, row_kind_name(kind));
        Row *copy = row_copy_heap(row);
        if (!copy)
            return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        sink->buffer[sink->buffered++] = copy;
        if (sink->buffered == sink->capacity) {
            int status = flush_buffer(sink, diag);
            if (status != JOINERY_OK)
                return status;
        }
    }
    return flush_buffer(sink, diag);
}

static int jdbc_sink_finish(SinkWriter *base, Diag *diag)
{
    return flush_buffer(base->impl, diag);
}

static void jdbc_sink_abort(SinkWriter *base, StrBuf *note)
{
    JdbcSink *sink = base->impl;
    discard_buffer(sink);
    strbuf_printf(note,
                  "table '%s' in %s keeps the %llu rows written before the failure (%llu "
                  "batches, each one transaction); the rest was not written.",
                  jdbc_sink_table_name(sink), sink->store, (unsigned long long)base->rows_written,
                  (unsigned long long)sink->batches_written);
}

static void jdbc_sink_close(SinkWriter *base)
{
    JdbcSink *sink = base->impl;
    if (sink->ops->close)
        sink->ops->close(sink);
    if (sink->buffer)
        discard_buffer(sink);
    free(sink->buffer);
    free(sink->key_fields);
    free(sink->columns);
    free(sink);
}

static const SinkWriterVtable JDBC_SINK = {
    .write = jdbc_sink_write,
    .finish = jdbc_sink_finish,
    .abort = jdbc_sink_abort,
    .close = jdbc_sink_close,
};

/* Finds the key fields and the catalog column of every sink field. */
static int map_fields(JdbcSink *sink, Diag *diag)
{
    const SinkSpec *spec = sink->base.spec;
    const CatalogTable *table = spec->table;
    for (size_t k = 0; k < table->primary_key_count; k++)
        for (uint32_t f = 0; f < spec->field_count; f++)
            if (strcasecmp(spec->names[f], table->primary_key[k]) == 0)
                sink->key_fields[sink->key_count++] = f;
    if (sink->key_count != table->primary_key_count)
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Table '%s': a primary key column is not among the sink's columns.",
                          table->name);
    for (uint32_t f = 0; f < spec->field_count; f++) {
        size_t c = 0;
        while (c < table->column_count && strcasecmp(table->columns[c].name, spec->names[f]) != 0)
            c++;
        if (c == table->column_count)
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "Table '%s': sink column '%s' is not a column of the table.",
                              table->name, spec->names[f]);
        sink->columns[f] = (uint32_t)c;
    }
    return JOINERY_OK;
}

int jdbc_sink_create(const SinkSpec *spec, const JdbcSinkOps *ops, JdbcSink **created, Diag *diag)
{
    const CatalogTable *table = spec->table;
    JdbcSink *sink = calloc(1, sizeof *sink);
    if (!sink)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory creating a jdbc sink");
    sink->base.vtable = &JDBC_SINK;
    sink->base.spec = spec;
    sink->base.impl = sink;
    sink->ops = ops;
    int64_t capacity = jdbc_option_int(table, "sink.buffer-flush.max-rows", 100);
    sink->capacity = capacity > 0 ? (uint32_t)capacity : 1;
    sink->buffer = calloc(sink->capacity, sizeof *sink->buffer);
    sink->upsert = table->primary_key_count > 0;
    sink->key_fields = calloc(table->primary_key_count + 1, sizeof *sink->key_fields);
    sink->columns = calloc(spec->field_count + 1, sizeof *sink->columns);
    int status =
        sink->buffer && sink->key_fields && sink->columns
            ? JOINERY_OK
            : diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory creating a jdbc sink");
    if (status == JOINERY_OK)
        status = map_fields(sink, diag);
    if (status == JOINERY_OK)
        status = jdbc_table_endpoint(table, &sink->endpoint, diag);
    if (status != JOINERY_OK) {
        jdbc_sink_close(&sink->base);
        return status;
    }
    jdbc_store_name(&sink->endpoint, sink->store, sizeof sink->store);
    *created = sink;
    return JOINERY_OK;
}
