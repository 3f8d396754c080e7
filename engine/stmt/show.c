/*
 * show.c - SHOW TABLES / VIEWS, SHOW CREATE TABLE / VIEW, DESCRIBE, the SET
 * listing and SHOW JOB METRICS: table-style results (no op column).
 */
#define _POSIX_C_SOURCE 200809L
#include "engine/stmt/show.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/sensitive.h"
#include "engine/base/strbuf.h"
#include "engine/stmt/options.h"

int show_tables(StatementContext *context, bool views)
{
    Catalog *catalog = context->session->catalog;
    size_t count = catalog_count(catalog);
    const char **cells = arena_calloc(context->arena, count ? count : 1, sizeof(char *));
    size_t rows = 0;
    for (size_t i = 0; i < count; i++) {
        CatalogTable *table = catalog_at(catalog, i);
        /* Flink lists views under SHOW TABLES too */
        if (!views || table->is_view)
            cells[rows++] = table->name;
    }
    const char *column = views ? "view name" : "table name";
    return statement_emit_table(context, &column, 1, cells, rows);
}

static CatalogTable *show_find(StatementContext *context, const AstList *parts,
                               SourcePosition position)
{
    const char *name = statement_object_name(context, parts, position);
    if (!name)
        return NULL;
    CatalogTable *table = catalog_find(context->session->catalog, name);
    if (!table) {
        const char *suggestion = catalog_suggest_table(context->session->catalog, name);
        diag_error_at(context->diag, JOINERY_ERROR_VALIDATE, position.line, position.column,
                      "Table or view `default_catalog`.`default_database`.`%s` does not "
                      "exist%s%s%s",
                      name, suggestion ? "; did you mean '" : "", suggestion ? suggestion : "",
                      suggestion ? "'?" : "");
    }
    return table;
}

static void show_type(DataType type, char *buffer, size_t size)
{
    DataType plain = type;
    plain.time_attribute = TIME_ATTRIBUTE_NONE;
    type_format(plain, buffer, size);
}

static void show_quote_string(StrBuf *out, const char *text)
{
    strbuf_append_char(out, '\'');
    for (const char *p = text; *p; p++) {
        if (*p == '\'')
            strbuf_append_char(out, '\'');
        strbuf_append_char(out, *p);
    }
    strbuf_append_char(out, '\'');
}

/* DDL that parses again; sensitive options (engine/base/sensitive.h) are masked. */
static void show_create_table_text(const CatalogTable *table, StrBuf *out)
{
    strbuf_printf(out, "CREATE %sTABLE `default_catalog`.`default_database`.`%s` (\n",
                  table->temporary ? "TEMPORARY " : "", table->name);
    char type[200];
    for (size_t i = 0; i < table->column_count; i++) {
        const CatalogColumn *column = &table->columns[i];
        if (column->kind == CATALOG_COLUMN_COMPUTED) {
            strbuf_printf(out, "  `%s` AS %s", column->name, column->expression);
        } else if (column->kind == CATALOG_COLUMN_METADATA) {
            show_type(column->type, type, sizeof type);
            strbuf_printf(out, "  `%s` %s METADATA", column->name, type);
            if (column->metadata_key) {
                strbuf_append_cstr(out, " FROM ");
                show_quote_string(out, column->metadata_key);
            }
            if (column->is_virtual)
                strbuf_append_cstr(out, " VIRTUAL");
        } else {
            show_type(column->type, type, sizeof type);
            strbuf_printf(out, "  `%s` %s", column->name, type);
        }
        if (column->comment) {
            strbuf_append_cstr(out, " COMMENT ");
            show_quote_string(out, column->comment);
        }
        bool more =
            i + 1 < table->column_count || table->watermark_column || table->primary_key_count;
        strbuf_append_cstr(out, more ? ",\n" : "\n");
    }
    if (table->watermark_column)
        strbuf_printf(out, "  WATERMARK FOR `%s` AS %s%s\n", table->watermark_column,
                      table->watermark_expression, table->primary_key_count ? "," : "");
    if (table->primary_key_count) {
        strbuf_append_cstr(out, "  CONSTRAINT `PK_");
        for (size_t i = 0; i < table->primary_key_count; i++)
            strbuf_printf(out, "%s%s", i ? "_" : "", table->primary_key[i]);
        strbuf_append_cstr(out, "` PRIMARY KEY (");
        for (size_t i = 0; i < table->primary_key_count; i++)
            strbuf_printf(out, "%s`%s`", i ? ", " : "", table->primary_key[i]);
        strbuf_append_cstr(out, ") NOT ENFORCED\n");
    }
    /* as Flink's SHOW CREATE TABLE: ")", then COMMENT and WITH on lines of their own */
    strbuf_append_cstr(out, ")");
    if (table->comment) {
        strbuf_append_cstr(out, "\nCOMMENT ");
        show_quote_string(out, table->comment);
    }
    if (table->option_count) {
        strbuf_append_cstr(out, "\nWITH (\n");
        for (size_t i = 0; i < table->option_count; i++) {
            strbuf_append_cstr(out, "  ");
            show_quote_string(out, table->options[i].key);
            strbuf_append_cstr(out, " = ");
            show_quote_string(
                out, sensitive_option_shown(table->options[i].key, table->options[i].value));
            strbuf_append_cstr(out, i + 1 < table->option_count ? ",\n" : "\n");
        }
        strbuf_append_cstr(out, ")");
    }
    strbuf_append_cstr(out, "\n");
}

int show_create(StatementContext *context, const AstStatement *statement)
{
    CatalogTable *table =
        show_find(context, &statement->show_create.name_parts, statement->position);
    if (!table)
        return context->diag->status;
    if (table->is_view != statement->show_create.is_view)
        return diag_error_at(context->diag, JOINERY_ERROR_VALIDATE, statement->position.line,
                             statement->position.column,
                             "SHOW CREATE %s is only supported for %s; `%s` is a %s",
                             table->is_view ? "TABLE" : "VIEW", table->is_view ? "tables" : "views",
                             table->name, table->is_view ? "view" : "table");
    StrBuf out = STRBUF_INIT;
    if (table->is_view)
        strbuf_printf(&out, "CREATE %sVIEW `default_catalog`.`default_database`.`%s` AS\n%s\n",
                      table->temporary ? "TEMPORARY " : "", table->name, table->view_query);
    else
        show_create_table_text(table, &out);
    int status = JOINERY_OK;
    if (context->handler && context->handler->text)
        context->handler->text(context->handler->context, strbuf_cstr(&out));
    strbuf_free(&out);
    return status;
}

int show_describe(StatementContext *context, const AstStatement *statement)
{
    CatalogTable *table = show_find(context, &statement->describe.name_parts, statement->position);
    if (!table)
        return context->diag->status;
    const char *columns[] = {"name", "type", "null", "key", "extras", "watermark"};
    size_t count = table->column_count;
    const char **cells = arena_calloc(context->arena, count * 6 + 1, sizeof(char *));
    for (size_t i = 0; i < count; i++) {
        const CatalogColumn *column = &table->columns[i];
        char type[200];
        /* DESCRIBE shows nullability in its own column (a MAP's key and value keep theirs) */
        DataType shown = column->type;
        shown.nullable = true;
        type_format(shown, type, sizeof type);
        bool key = false;
        for (size_t k = 0; k < table->primary_key_count; k++)
            if (strcmp(table->primary_key[k], column->name) == 0)
                key = true;
        const char **row = cells + i * 6;
        row[0] = column->name;
        row[1] = arena_strdup(context->arena, type);
        row[2] = column->type.nullable ? "TRUE" : "FALSE";
        row[3] = key ? arena_printf(context->arena, "PRI(%s)", column->name) : NULL;
        row[4] = column->kind == CATALOG_COLUMN_COMPUTED
                     ? arena_printf(context->arena, "AS %s", column->expression)
                 : column->kind == CATALOG_COLUMN_METADATA
                     ? arena_printf(context->arena, "METADATA%s%s%s%s",
                                    column->metadata_key ? " FROM '" : "",
                                    column->metadata_key ? column->metadata_key : "",
                                    column->metadata_key ? "'" : "",
                                    column->is_virtual ? " VIRTUAL" : "")
                     : NULL;
        row[5] = table->watermark_column && strcmp(table->watermark_column, column->name) == 0
                     ? table->watermark_expression
                     : NULL;
    }
    return statement_emit_table(context, columns, 6, cells, count);
}

int show_options(StatementContext *context)
{
    size_t spec_count;
    const OptionSpec *specs = options_specs(&spec_count);
    const char **cells = arena_calloc(context->arena, spec_count * 2 + 1, sizeof(char *));
    size_t rows = 0;
    for (size_t i = 0; i < spec_count; i++) {
        const char *value = options_get(&context->session->options, specs[i].key);
        if (!value)
            continue;
        cells[rows * 2] = specs[i].key;
        cells[rows * 2 + 1] = value;
        rows++;
    }
    const char *columns[] = {"key", "value"};
    return statement_emit_table(context, columns, 2, cells, rows);
}

int show_job_metrics(StatementContext *context)
{
    JoinerySession *session = context->session;
    if (!session->last_job_name)
        return diag_error(context->diag, JOINERY_ERROR_VALIDATE,
                          "No job has run in this session yet");
    if (context->handler && context->handler->text) {
        StrBuf out = STRBUF_INIT;
        strbuf_printf(&out, "Job: %s\n%s", session->last_job_name,
                      strbuf_cstr(&session->last_job_metrics));
        context->handler->text(context->handler->context, strbuf_cstr(&out));
        strbuf_free(&out);
    }
    return JOINERY_OK;
}
