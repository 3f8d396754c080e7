/*
 * jdbc_postgres_source.c - a bounded scan of a PostgreSQL table (the jdbc
 * connector's source): SELECT of the produced columns through a cursor in
 * one read-only transaction, FETCHed `scan.fetch-size` rows at a time
 * (0 or unset: 1000, at most what the poll asks for).
 *
 * The table is read by one reader (subtask 0) as Flink's JDBC source does
 * without scan.partition.*; other subtasks end at once. Columns and types
 * are checked against the database when the reader is created, so a
 * missing table, a missing column or a type mismatch fails the job at its
 * start. Values arrive in PostgreSQL's text form (session time zone UTC).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/connector/jdbc_postgres.h"

typedef struct JdbcReader {
    SourceReader base;
    PGconn *connection;
    RowBuilder builder;
    int64_t fetch_size;
    uint64_t rows_read;
    bool done;
    char store[600];
} JdbcReader;

/* Runs a statement that returns no rows; on failure fills diag naming the table and store. */
static int run_command(JdbcReader *reader, const char *sql, Diag *diag)
{
    PGresult *result = PQexec(reader->connection, sql);
    ExecStatusType status = PQresultStatus(result);
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) {
        PQclear(result);
        return JOINERY_OK;
    }
    char reason[400];
    const char *message = PQresultErrorMessage(result);
    if (strncmp(message, "ERROR:  ", 8) == 0)
        message += 8;
    snprintf(reason, sizeof reason, "%.*s", (int)strcspn(message, "\n"), message);
    PQclear(result);
    return diag_error(diag, JOINERY_ERROR_RUNTIME, "Table '%s': reading '%s' from %s failed: %s",
                      reader->base.spec->table->name,
                      catalog_table_option(reader->base.spec->table, "table-name"), reader->store,
                      reason);
}

static int jdbc_source_poll(SourceReader *base, RowBatch *out, Arena *arena, uint32_t max_rows,
                            int64_t now_millis, int64_t *next_poll_millis, Diag *diag)
{
    (void)now_millis;
    (void)next_poll_millis;
    JdbcReader *reader = base->impl;
    if (reader->done)
        return SOURCE_POLL_END;
    int64_t count = reader->fetch_size;
    if (count > (int64_t)max_rows)
        count = max_rows;
    if (count > (int64_t)(out->capacity - out->count))
        count = out->capacity - out->count;
    if (count <= 0)
        return SOURCE_POLL_ROWS;
    char sql[64];
    snprintf(sql, sizeof sql, "FETCH FORWARD %lld FROM joinery_scan", (long long)count);
    PGresult *result = PQexec(reader->connection, sql);
    if (PQresultStatus(result) != PGRES_TUPLES_OK) {
        PQclear(result);
        return run_command(reader, sql, diag);
    }
    const SourceSpec *spec = base->spec;
    int rows = PQntuples(result);
    for (int r = 0; r < rows; r++) {
        row_builder_begin(&reader->builder, spec->field_count, ROW_KIND_INSERT);
        for (uint32_t f = 0; f < spec->field_count; f++) {
            if (PQgetisnull(result, r, (int)f)) {
                row_builder_set_null(&reader->builder, f);
                continue;
            }
            char error[160];
            if (jdbc_postgres_text_to_field(
                    &reader->builder, f, spec->types[f], PQgetvalue(result, r, (int)f),
                    (uint32_t)PQgetlength(result, r, (int)f), error, sizeof error) != 0) {
                PQclear(result);
                return diag_error(diag, JOINERY_ERROR_RUNTIME,
                                  "Table '%s': column '%s' of row %llu read from "
                                  "%s: %s",
                                  spec->table->name, spec->table->columns[spec->columns[f]].name,
                                  (unsigned long long)(reader->rows_read + (uint64_t)r + 1),
                                  reader->store, error);
            }
        }
        Row *row = row_builder_finish(&reader->builder);
        Row *copy = row ? row_copy(arena, row) : NULL;
        if (!copy) {
            PQclear(result);
            return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory reading table '%s'",
                              spec->table->name);
        }
        out->rows[out->count++] = copy;
    }
    PQclear(result);
    reader->rows_read += (uint64_t)rows;
    if (rows == 0) {
        reader->done = true;
        int status = run_command(reader, "COMMIT", diag);
        return status == JOINERY_OK ? SOURCE_POLL_END : status;
    }
    return SOURCE_POLL_ROWS;
}

static void jdbc_source_close(SourceReader *base)
{
    JdbcReader *reader = base->impl;
    if (reader->connection)
        PQfinish(reader->connection);
    row_builder_free(&reader->builder);
    strbuf_free(&base->warnings);
    strbuf_free(&base->skip_report);
    free(reader);
}

static const SourceReaderVtable JDBC_READER = {
    .poll = jdbc_source_poll,
    .close = jdbc_source_close,
};

int jdbc_postgres_create_source(const SourceSpec *spec, SourceReader **created, Diag *diag)
{
    const CatalogTable *table = spec->table;
    JdbcReader *reader = calloc(1, sizeof *reader);
    if (!reader)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory creating a jdbc source");
    reader->base.vtable = &JDBC_READER;
    reader->base.spec = spec;
    reader->base.impl = reader;
    row_builder_init(&reader->builder);
    reader->fetch_size = jdbc_option_int(table, "scan.fetch-size", 0);
    if (reader->fetch_size <= 0)
        reader->fetch_size = 1000;
    JdbcEndpoint endpoint;
    int status = jdbc_table_endpoint(table, &endpoint, diag);
    if (status != JOINERY_OK) {
        jdbc_source_close(&reader->base);
        return status;
    }
    jdbc_store_name(&endpoint, reader->store, sizeof reader->store);
    if (spec->subtask_index != 0) { /* one split: subtask 0 reads the table */
        reader->done = true;
        *created = &reader->base;
        return JOINERY_OK;
    }
    reader->connection = jdbc_postgres_connect(table, diag);
    if (!reader->connection) {
        jdbc_source_close(&reader->base);
        return diag->status;
    }
    status = jdbc_postgres_check_columns(reader->connection, table, spec->field_count,
                                         spec->columns, spec->types, diag);
    StrBuf sql = STRBUF_INIT;
    if (status == JOINERY_OK) {
        JdbcStatement select;
        int failed = jdbc_statement_select(&select, &JDBC_DIALECT_POSTGRESQL, table,
                                           spec->field_count, spec->columns, 0, NULL);
        failed |= strbuf_append_cstr(&sql, "DECLARE joinery_scan NO SCROLL CURSOR FOR ");
        failed |= strbuf_append(&sql, select.text.data, select.text.length);
        jdbc_statement_free(&select);
        if (failed)
            status = diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    }
    if (status == JOINERY_OK)
        status = run_command(reader, "BEGIN TRANSACTION READ ONLY", diag);
    if (status == JOINERY_OK)
        status = run_command(reader, strbuf_cstr(&sql), diag);
    strbuf_free(&sql);
    if (status != JOINERY_OK) {
        jdbc_source_close(&reader->base);
        return status;
    }
    *created = &reader->base;
    return JOINERY_OK;
}
