/*
 * jdbc_statement.c - the jdbc connector's SQL statements, built once for
 * both databases through the dialect: the SELECT of a scan or a lookup,
 * the INSERT (an upsert by the primary key when there is one) and the
 * DELETE of the sink. Parameters are left out and their places recorded
 * (JdbcStatement), so PostgreSQL can number them ($1) and MySQL can write
 * literals in.
 *
 * Invariant: `table-name` is written as the user wrote it (it may name a
 * schema or database), columns through dialect->append_column.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/connector/jdbc_internal.h"

static int add_parameter(JdbcStatement *statement, uint32_t field)
{
    size_t *slots = realloc(statement->slots, (statement->count + 1) * sizeof *slots);
    if (!slots)
        return -1;
    statement->slots = slots;
    uint32_t *fields = realloc(statement->fields, (statement->count + 1) * sizeof *fields);
    if (!fields)
        return -1;
    statement->fields = fields;
    statement->slots[statement->count] = statement->text.length;
    statement->fields[statement->count] = field;
    statement->count++;
    return 0;
}

static void statement_init(JdbcStatement *statement)
{
    memset(statement, 0, sizeof *statement);
    statement->text = (StrBuf)STRBUF_INIT;
}

int jdbc_statement_select(JdbcStatement *statement, const JdbcDialect *dialect,
                          const CatalogTable *table, uint32_t count, const uint32_t *columns,
                          uint32_t key_count, const uint32_t *key_columns)
{
    statement_init(statement);
    StrBuf *sql = &statement->text;
    int failed = strbuf_append_cstr(sql, "SELECT ");
    for (uint32_t f = 0; f < count; f++) {
        failed |= f ? strbuf_append_cstr(sql, ", ") : 0;
        failed |= dialect->append_column(sql, table->columns[columns[f]].name);
    }
    if (count == 0)
        failed |= strbuf_append_cstr(sql, "1");
    failed |= strbuf_printf(sql, " FROM %s", catalog_table_option(table, "table-name"));
    for (uint32_t k = 0; k < key_count; k++) {
        failed |= strbuf_append_cstr(sql, k ? " AND " : " WHERE ");
        failed |= dialect->append_column(sql, table->columns[key_columns[k]].name);
        failed |= strbuf_append_cstr(sql, " = ");
        failed |= add_parameter(statement, k);
    }
    return failed ? -1 : 0;
}

int jdbc_statement_insert(JdbcStatement *statement, const JdbcDialect *dialect,
                          const char *table_name, const char *const *names, uint32_t count,
                          const uint32_t *key_fields, uint32_t key_count)
{
    statement_init(statement);
    StrBuf *sql = &statement->text;
    int failed = strbuf_printf(sql, "INSERT INTO %s (", table_name);
    for (uint32_t f = 0; f < count; f++) {
        failed |= f ? strbuf_append_cstr(sql, ", ") : 0;
        failed |= dialect->append_column(sql, names[f]);
    }
    failed |= strbuf_append_cstr(sql, ") VALUES (");
    for (uint32_t f = 0; f < count; f++) {
        failed |= f ? strbuf_append_cstr(sql, ", ") : 0;
        failed |= add_parameter(statement, f);
    }
    failed |= strbuf_append_cstr(sql, ")");
    if (key_count > 0)
        failed |= dialect->append_upsert(sql, names, count, key_fields, key_count);
    return failed ? -1 : 0;
}

int jdbc_statement_delete(JdbcStatement *statement, const JdbcDialect *dialect,
                          const char *table_name, const char *const *names,
                          const uint32_t *key_fields, uint32_t key_count)
{
    statement_init(statement);
    StrBuf *sql = &statement->text;
    int failed = strbuf_printf(sql, "DELETE FROM %s", table_name);
    for (uint32_t k = 0; k < key_count; k++) {
        failed |= strbuf_append_cstr(sql, k ? " AND " : " WHERE ");
        failed |= dialect->append_column(sql, names[key_fields[k]]);
        failed |= strbuf_append_cstr(sql, " = ");
        failed |= add_parameter(statement, key_fields[k]);
    }
    return failed ? -1 : 0;
}

char *jdbc_statement_numbered(const JdbcStatement *statement)
{
    StrBuf out = STRBUF_INIT;
    size_t from = 0;
    int failed = 0;
    for (uint32_t i = 0; i < statement->count; i++) {
        failed |= strbuf_append(&out, statement->text.data + from, statement->slots[i] - from);
        failed |= strbuf_printf(&out, "$%u", i + 1);
        from = statement->slots[i];
    }
    failed |= strbuf_append(&out, statement->text.data + from, statement->text.length - from);
    if (failed) {
        strbuf_free(&out);
        return NULL;
    }
    return strbuf_detach(&out);
}

void jdbc_statement_free(JdbcStatement *statement)
{
    strbuf_free(&statement->text);
    free(statement->slots);
    free(statement->fields);
    memset(statement, 0, sizeof *statement);
}
