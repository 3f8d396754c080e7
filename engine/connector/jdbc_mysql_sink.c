/*
 * jdbc_mysql_sink.c - the jdbc sink's MySQL / MariaDB dialect (the sink
 * itself, its changelog rules and buffering: jdbc_sink_batch.c). +I and
 * +U are `INSERT ... ON DUPLICATE KEY UPDATE` every column (a plain
 * `INSERT` without a primary key), -D is `DELETE ... WHERE` the key.
 *
 * A batch is written in one round trip: one query of several statements,
 * `START TRANSACTION; ...; COMMIT`, so it is written whole or, on an
 * error (the server runs no statement after a failed one), rolled back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/connector/jdbc_mysql.h"

typedef struct MysqlWriter {
    MYSQL *mysql;
    JdbcStatement insert;
    JdbcStatement delete;
    StrBuf sql;
} MysqlWriter;

static int write_failed(JdbcSink *sink, const char *reason, Diag *diag)
{
    return diag_error(diag, JOINERY_ERROR_RUNTIME, "Table '%s': writing to '%s' in %s failed: %s",
                      sink->base.spec->table->name, jdbc_sink_table_name(sink), sink->store,
                      reason);
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

/* Writes `rows` as one query and one transaction (JdbcSinkOps.write_rows). */
static int mysql_write_rows(JdbcSink *sink, Row *const *rows, uint32_t count, Diag *diag)
{
    MysqlWriter *writer = sink->connection;
    const SinkSpec *spec = sink->base.spec;
    StrBuf *sql = &writer->sql;
    strbuf_clear(sql);
    char error[512] = "";
    int failed = strbuf_append_cstr(sql, "START TRANSACTION");
    for (uint32_t i = 0; i < count && !failed; i++) {
        bool is_delete = row_kind(rows[i]) == ROW_KIND_DELETE;
        failed = strbuf_append_cstr(sql, ";\n") != 0 ||
                 jdbc_mysql_render(writer->mysql, is_delete ? &writer->delete : &writer->insert,
                                   rows[i], spec->types, sql, error, sizeof error) != 0;
    }
    failed |= !failed && strbuf_append_cstr(sql, ";\nCOMMIT") != 0;
    if (failed)
        return write_failed(sink, error, diag);
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
        return write_failed(sink, error, diag);
    }
    return JOINERY_OK;
}

static void mysql_writer_close(JdbcSink *sink)
{
    MysqlWriter *writer = sink->connection;
    if (!writer)
        return;
    jdbc_statement_free(&writer->insert);
    jdbc_statement_free(&writer->delete);
    strbuf_free(&writer->sql);
    if (writer->mysql)
        mysql_close(writer->mysql);
    free(writer);
    sink->connection = NULL;
}

static const JdbcSinkOps MYSQL_SINK = {
    .write_rows = mysql_write_rows,
    .close = mysql_writer_close,
};

int jdbc_mysql_create_sink(const SinkSpec *spec, SinkWriter **created, Diag *diag)
{
    const CatalogTable *table = spec->table;
    JdbcSink *sink;
    int status = jdbc_sink_create(spec, &MYSQL_SINK, &sink, diag);
    if (status != JOINERY_OK)
        return status;
    MysqlWriter *writer = calloc(1, sizeof *writer);
    sink->connection = writer;
    if (!writer)
        status = diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory creating a jdbc sink");
    if (status == JOINERY_OK) {
        writer->mysql = jdbc_mysql_connect(table, false, diag);
        if (!writer->mysql)
            status = diag->status;
    }
    if (status == JOINERY_OK)
        status = jdbc_mysql_check_columns(writer->mysql, table, spec->field_count, sink->columns,
                                          spec->types, diag);
    const JdbcDialect *dialect = sink->endpoint.dialect;
    if (status == JOINERY_OK &&
        (jdbc_statement_insert(&writer->insert, dialect, jdbc_sink_table_name(sink), spec->names,
                               spec->field_count, sink->key_fields,
                               sink->upsert ? sink->key_count : 0) != 0 ||
         jdbc_statement_delete(&writer->delete, dialect, jdbc_sink_table_name(sink), spec->names,
                               sink->key_fields, sink->key_count) != 0))
        status = diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    if (status != JOINERY_OK) {
        sink->base.vtable->close(&sink->base);
        return status;
    }
    *created = &sink->base;
    return JOINERY_OK;
}
