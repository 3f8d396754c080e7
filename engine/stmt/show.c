/*
 * show.c - SHOW TABLES / VIEWS, SHOW CREATE TABLE / VIEW, DESCRIBE, the SET
 * listing and SHOW JOB METRICS: table-style results (no op column).
 */
#define _POSIX_C_SOURCE 200809L
#include "engine/stmt/show.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/sensitive.h"
#include "engine/base/strbuf.h"
#include "engine/plan/expr.h"
#include "engine/stmt/options.h"

/*
 * SQL LIKE as Flink's SHOW ... LIKE reads it: '%' any run, '_' any one
 * character (a UTF-8 sequence counts as one), '\' escapes the next one;
 * ignore_case for ILIKE (ASCII letters). Iterative with one backtrack
 * point, so no recursion and linear space.
 */
static bool show_like_text(const char *pattern, const char *text, bool ignore_case)
{
    const char *star_pattern = NULL, *star_text = NULL;
    for (;;) {
        if (*pattern == '%') {
            while (*pattern == '%')
                pattern++;
            star_pattern = pattern;
            star_text = text;
            continue;
        }
        if (*text == '\0') {
            if (*pattern == '\0')
                return true;
        } else if (*pattern != '\0') {
            const char *literal = pattern;
            if (*literal == '\\' && literal[1])
                literal++;
            size_t text_length = 1;
            while ((text[text_length] & 0xC0) == 0x80)
                text_length++;
            bool same;
            size_t pattern_length = 1;
            if (*pattern == '_') {
                same = true;
            } else {
                while ((literal[pattern_length] & 0xC0) == 0x80)
                    pattern_length++;
                same = pattern_length == text_length &&
                       (ignore_case && text_length == 1
                            ? tolower((unsigned char)*literal) == tolower((unsigned char)*text)
                            : memcmp(literal, text, text_length) == 0);
            }
            if (same) {
                pattern = literal + pattern_length;
                text += text_length;
                continue;
            }
        }
        if (!star_pattern || *star_text == '\0')
            return false;
        do
            star_text++;
        while ((*star_text & 0xC0) == 0x80);
        pattern = star_pattern;
        text = star_text;
    }
}

static bool show_like_matches(const AstShowLike *like, const char *name)
{
    if (!like->pattern)
        return true;
    return show_like_text(like->pattern, name, like->ignore_case) != like->negated;
}

/*
 * The FROM|IN qualifier of SHOW TABLES / VIEWS / FUNCTIONS (a database,
 * [catalog.]database) or SHOW DATABASES (a catalog): only the defaults
 * exist; another name fails as Flink's catalog manager does.
 */
static int show_check_qualifier(StatementContext *context, const AstStatement *statement,
                                bool catalog_only)
{
    const AstList *parts = &statement->show.name_parts;
    SourcePosition position = statement->position;
    if (parts->count == 0)
        return JOINERY_OK;
    if (catalog_only) {
        if (parts->count > 1)
            return diag_error_at(context->diag, JOINERY_ERROR_PARSE, position.line, position.column,
                                 "Show databases from/in identifier [ %s.%s ] format error, "
                                 "catalog must be a single part identifier.",
                                 (const char *)parts->items[0], (const char *)parts->items[1]);
        if (strcmp(parts->items[0], "default_catalog") != 0)
            return diag_error_at(context->diag, JOINERY_ERROR_VALIDATE, position.line,
                                 position.column, "Catalog %s does not exist",
                                 (const char *)parts->items[0]);
        return JOINERY_OK;
    }
    const char *catalog_name = parts->count >= 2 ? parts->items[parts->count - 2] : NULL;
    const char *database_name = parts->items[parts->count - 1];
    if (parts->count > 2)
        return diag_error_at(context->diag, JOINERY_ERROR_PARSE, position.line, position.column,
                             "Show from/in identifier format error: a database is written "
                             "[catalog.]database");
    if (catalog_name && strcmp(catalog_name, "default_catalog") != 0)
        return diag_error_at(context->diag, JOINERY_ERROR_VALIDATE, position.line, position.column,
                             "Catalog %s does not exist", catalog_name);
    if (strcmp(database_name, "default_database") != 0)
        return diag_error_at(context->diag, JOINERY_ERROR_VALIDATE, position.line, position.column,
                             "Database %s.%s does not exist",
                             catalog_name ? catalog_name : "default_catalog", database_name);
    return JOINERY_OK;
}

/* A one-column result of the names that pass the statement's LIKE filter. */
static int show_names(StatementContext *context, const AstStatement *statement, const char *column,
                      const char *const *names, size_t count)
{
    const char **cells = arena_calloc(context->arena, count ? count : 1, sizeof(char *));
    if (!cells)
        return diag_error(context->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    size_t rows = 0;
    for (size_t i = 0; i < count; i++)
        if (!statement || show_like_matches(&statement->show.like, names[i]))
            cells[rows++] = names[i];
    return statement_emit_table(context, &column, 1, cells, rows);
}

int show_tables(StatementContext *context, const AstStatement *statement)
{
    bool views = statement->kind == AST_STMT_SHOW_VIEWS;
    int status = show_check_qualifier(context, statement, false);
    if (status != JOINERY_OK)
        return status;
    Catalog *catalog = context->session->catalog;
    size_t count = catalog_count(catalog);
    const char **names = arena_calloc(context->arena, count ? count : 1, sizeof(char *));
    if (!names)
        return diag_error(context->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    size_t rows = 0;
    for (size_t i = 0; i < count; i++) {
        CatalogTable *table = catalog_at(catalog, i);
        /* Flink lists views under SHOW TABLES too */
        if (!views || table->is_view)
            names[rows++] = table->name;
    }
    return show_names(context, statement, views ? "view name" : "table name", names, rows);
}

static int show_compare_names(const void *left, const void *right)
{
    return strcmp(*(const char *const *)left, *(const char *const *)right);
}

typedef struct ShowNameList {
    StatementContext *context;
    const char **names;
    size_t count;
    size_t capacity;
    bool failed;
} ShowNameList;

static void show_collect_name(void *context, const char *name)
{
    ShowNameList *list = context;
    if (list->failed)
        return;
    if (list->count == list->capacity) {
        size_t capacity = list->capacity ? list->capacity * 2 : 64;
        const char **grown = arena_calloc(list->context->arena, capacity, sizeof(char *));
        if (!grown) {
            list->failed = true;
            return;
        }
        if (list->count)
            memcpy(grown, list->names, list->count * sizeof(char *));
        list->names = grown;
        list->capacity = capacity;
    }
    list->names[list->count++] = name;
}

int show_functions(StatementContext *context, const AstStatement *statement)
{
    int status = show_check_qualifier(context, statement, false);
    if (status != JOINERY_OK)
        return status;
    ShowNameList list = {context, NULL, 0, 0, false};
    /* SHOW USER FUNCTIONS: the catalog's only */
    if (!statement->show.user)
        function_list_names(show_collect_name, &list);
    const Catalog *catalog = context->session->catalog;
    for (size_t i = 0; i < catalog_function_count(catalog); i++)
        show_collect_name(&list, catalog_function_at(catalog, i)->name);
    if (list.failed)
        return diag_error(context->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    if (list.count)
        qsort(list.names, list.count, sizeof(char *), show_compare_names);
    size_t unique = 0;
    for (size_t i = 0; i < list.count; i++)
        if (unique == 0 || strcmp(list.names[unique - 1], list.names[i]) != 0)
            list.names[unique++] = list.names[i];
    return show_names(context, statement, "function name", list.names, unique);
}

int show_catalog_objects(StatementContext *context, const AstStatement *statement)
{
    static const char *const CATALOGS[] = {"default_catalog"};
    static const char *const DATABASES[] = {"default_database"};
    static const char *const MODULES[] = {"core"};
    switch (statement->kind) {
    case AST_STMT_SHOW_CATALOGS:
        return show_names(context, statement, "catalog name", CATALOGS, 1);
    case AST_STMT_SHOW_DATABASES: {
        int status = show_check_qualifier(context, statement, true);
        if (status != JOINERY_OK)
            return status;
        return show_names(context, statement, "database name", DATABASES, 1);
    }
    case AST_STMT_SHOW_CURRENT_CATALOG:
        return show_names(context, NULL, "current catalog name", CATALOGS, 1);
    case AST_STMT_SHOW_CURRENT_DATABASE:
        return show_names(context, NULL, "current database name", DATABASES, 1);
    case AST_STMT_SHOW_MODULES:
        if (statement->show.full) {
            const char *columns[] = {"module name", "used"};
            const char *cells[] = {"core", "true"};
            return statement_emit_table(context, columns, 2, cells, 1);
        }
        return show_names(context, NULL, "module name", MODULES, 1);
    case AST_STMT_SHOW_JARS:
        /* no ADD JAR in joinery: Flink's answer with no jar added */
        return show_names(context, NULL, "jars", NULL, 0);
    default:
        return diag_error(context->diag, JOINERY_ERROR_VALIDATE, "not a catalog listing");
    }
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
                      "Tables or views with the identifier "
                      "'default_catalog.default_database.%s' doesn't exist.%s%s%s",
                      name, suggestion ? " Did you mean '" : "", suggestion ? suggestion : "",
                      catalog_suggestion_end(name, suggestion));
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
    if (table->partition_key_count) {
        strbuf_append_cstr(out, "\nPARTITIONED BY (");
        for (size_t i = 0; i < table->partition_key_count; i++)
            strbuf_printf(out, "%s`%s`", i ? ", " : "", table->partition_keys[i]);
        strbuf_append_cstr(out, ")");
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
        return diag_error_at(
            context->diag, JOINERY_ERROR_VALIDATE, statement->position.line,
            statement->position.column,
            "SHOW CREATE %s is only supported for %s, but "
            "`default_catalog`.`default_database`.`%s` is a %s. Please use SHOW CREATE %s "
            "instead.",
            table->is_view ? "TABLE" : "VIEW", table->is_view ? "tables" : "views", table->name,
            table->is_view ? "view" : "table", table->is_view ? "VIEW" : "TABLE");
    StrBuf out = STRBUF_INIT;
    if (table->is_view) {
        /* Flink's layout: the column list, then AS and the query (here as written) */
        strbuf_printf(&out, "CREATE %sVIEW `default_catalog`.`default_database`.`%s` (\n",
                      table->temporary ? "TEMPORARY " : "", table->name);
        for (size_t i = 0; i < table->column_count; i++)
            strbuf_printf(&out, "  `%s`%s\n", table->columns[i].name,
                          i + 1 < table->column_count ? "," : "");
        strbuf_printf(&out, ")\nAS %s\n", table->view_query);
    } else
        show_create_table_text(table, &out);
    int status = JOINERY_OK;
    if (context->handler && context->handler->text)
        context->handler->text(context->handler->context, strbuf_cstr(&out));
    strbuf_free(&out);
    return status;
}

int show_describe(StatementContext *context, const AstStatement *statement)
{
    bool show_columns = statement->kind == AST_STMT_SHOW_COLUMNS;
    const AstList *parts =
        show_columns ? &statement->show.name_parts : &statement->describe.name_parts;
    CatalogTable *table = show_find(context, parts, statement->position);
    if (!table)
        return context->diag->status;
    const char *columns[] = {"name", "type", "null", "key", "extras", "watermark"};
    size_t count = 0;
    const char **cells = arena_calloc(context->arena, table->column_count * 6 + 1, sizeof(char *));
    if (!cells)
        return diag_error(context->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    for (size_t i = 0; i < table->column_count; i++) {
        const CatalogColumn *column = &table->columns[i];
        if (show_columns && !show_like_matches(&statement->show.like, column->name))
            continue;
        char type[200];
        /* DESCRIBE shows nullability in its own column (a MAP's key and value keep theirs) */
        DataType shown = column->type;
        shown.nullable = true;
        type_format(shown, type, sizeof type);
        bool key = false;
        for (size_t k = 0; k < table->primary_key_count; k++)
            if (strcmp(table->primary_key[k], column->name) == 0)
                key = true;
        const char **row = cells + count++ * 6;
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
    const SessionOptions *options = &context->session->options;
    size_t cluster_count = options_cluster_settings(options, NULL, NULL);
    const char **cells =
        arena_calloc(context->arena, (spec_count + cluster_count) * 2 + 1, sizeof(char *));
    const char **cluster_keys = arena_calloc(context->arena, cluster_count + 1, sizeof(char *));
    const char **cluster_values = arena_calloc(context->arena, cluster_count + 1, sizeof(char *));
    if (!cells || !cluster_keys || !cluster_values)
        return diag_error(context->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    size_t rows = 0;
    for (size_t i = 0; i < spec_count; i++) {
        const char *value = options_get(options, specs[i].key);
        if (!value)
            continue;
        cells[rows * 2] = specs[i].key;
        /* pipeline.global-job-parameters may carry a function's password */
        cells[rows * 2 + 1] = sensitive_option_shown(specs[i].key, value);
        rows++;
    }
    /* then the cluster settings SET kept (options.c's CLUSTER_KEYS), as they were set */
    options_cluster_settings(options, cluster_keys, cluster_values);
    for (size_t i = 0; i < cluster_count; i++, rows++) {
        cells[rows * 2] = cluster_keys[i];
        cells[rows * 2 + 1] = sensitive_option_shown(cluster_keys[i], cluster_values[i]);
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
