/*
 * jdbc_mysql_source.c - a bounded scan of a MySQL / MariaDB table (the
 * jdbc connector's source): one SELECT of the produced columns, its rows
 * streamed from the server (mysql_use_result, so the table is never held
 * in memory) and handed out as the polls ask for them.
 *
 * The table is read by one reader (subtask 0) as Flink's JDBC source does
 * without scan.partition.*; other subtasks end at once. Columns and types
 * are checked against information_schema when the reader is created, so
 * a missing table, a missing column or a type mismatch fails the job at
 * its start. Values arrive as text (session time zone UTC).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/connector/jdbc_mysql.h"

typedef struct MysqlReader {
    SourceReader base;
    MYSQL *mysql;
    MYSQL_RES *result;
    RowBuilder builder;
    uint64_t rows_read;
    bool done;
    char store[600];
} MysqlReader;

static int read_failed(MysqlReader *reader, Diag *diag)
{
    return diag_error(diag, JOINERY_ERROR_RUNTIME, "Table '%s': reading '%s' from %s failed: %s",
                      reader->base.spec->table->name,
                      catalog_table_option(reader->base.spec->table, "table-name"), reader->store,
                      mysql_error(reader->mysql));
}

static int mysql_source_poll(SourceReader *base, RowBatch *out, Arena *arena, uint32_t max_rows,
                             int64_t now_millis, int64_t *next_poll_millis, Diag *diag)
{
    (void)now_millis;
    (void)next_poll_millis;
    MysqlReader *reader = base->impl;
    if (reader->done)
        return SOURCE_POLL_END;
    const SourceSpec *spec = base->spec;
    uint32_t room = out->capacity - out->count;
    if (room > max_rows)
        room = max_rows;
    for (uint32_t n = 0; n < room; n++) {
        MYSQL_ROW values = mysql_fetch_row(reader->result);
        if (!values) {
            if (mysql_errno(reader->mysql) != 0)
                return read_failed(reader, diag);
            reader->done = true;
            return out->count > 0 ? SOURCE_POLL_ROWS : SOURCE_POLL_END;
        }
        unsigned long *lengths = mysql_fetch_lengths(reader->result);
        row_builder_begin(&reader->builder, spec->field_count, ROW_KIND_INSERT);
        for (uint32_t f = 0; f < spec->field_count; f++) {
            if (!values[f]) {
                row_builder_set_null(&reader->builder, f);
                continue;
            }
            char error[160];
            if (jdbc_mysql_text_to_field(&reader->builder, f, spec->types[f], values[f],
                                         (uint32_t)lengths[f], error, sizeof error) != 0)
                return diag_error(diag, JOINERY_ERROR_RUNTIME,
                                  "Table '%s': column '%s' of row %llu read from %s: %s",
                                  spec->table->name, spec->table->columns[spec->columns[f]].name,
                                  (unsigned long long)(reader->rows_read + 1), reader->store,
                                  error);
        }
        Row *row = row_builder_finish(&reader->builder);
        Row *copy = row ? row_copy(arena, row) : NULL;
        if (!copy)
            return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory reading table '%s'",
                              spec->table->name);
        out->rows[out->count++] = copy;
        reader->rows_read++;
    }
    return SOURCE_POLL_ROWS;
}

static void mysql_source_close(SourceReader *base)
{
    MysqlReader *reader = base->impl;
    if (reader->result)
        mysql_free_result(reader->result); /* reads what is left of an unfinished scan */
    if (reader->mysql)
        mysql_close(reader->mysql);
    row_builder_free(&reader->builder);
    strbuf_free(&base->warnings);
    strbuf_free(&base->skip_report);
    free(reader);
}

static const SourceReaderVtable MYSQL_READER = {
    .poll = mysql_source_poll,
    .close = mysql_source_close,
};

int jdbc_mysql_create_source(const SourceSpec *spec, SourceReader **created, Diag *diag)
{
    const CatalogTable *table = spec->table;
    MysqlReader *reader = calloc(1, sizeof *reader);
    if (!reader)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory creating a jdbc source");
    reader->base.vtable = &MYSQL_READER;
    reader->base.spec = spec;
    reader->base.impl = reader;
    row_builder_init(&reader->builder);
    JdbcEndpoint endpoint;
    int status = jdbc_table_endpoint(table, &endpoint, diag);
    if (status != JOINERY_OK) {
        mysql_source_close(&reader->base);
        return status;
    }
    jdbc_store_name(&endpoint, reader->store, sizeof reader->store);
    if (spec->subtask_index != 0) { /* one split: subtask 0 reads the table */
        reader->done = true;
        *created = &reader->base;
        return JOINERY_OK;
    }
    reader->mysql = jdbc_mysql_connect(table, false, diag);
    if (!reader->mysql) {
        mysql_source_close(&reader->base);
        return diag->status;
    }
    status = jdbc_mysql_check_columns(reader->mysql, table, spec->field_count, spec->columns,
                                      spec->types, diag);
    JdbcStatement select;
    if (status == JOINERY_OK &&
        jdbc_statement_select(&select, endpoint.dialect, table, spec->field_count, spec->columns, 0,
                              NULL) != 0)
        status = diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    if (status == JOINERY_OK) {
        if (mysql_real_query(reader->mysql, select.text.data, select.text.length) != 0 ||
            !(reader->result = mysql_use_result(reader->mysql)))
            status = read_failed(reader, diag);
        jdbc_statement_free(&select);
    }
    if (status != JOINERY_OK) {
        mysql_source_close(&reader->base);
        return status;
    }
    *created = &reader->base;
    return JOINERY_OK;
}
