/*
 * planner_fixture.h - test support shared by the planner suites
 * (check_binder.c, check_rules.c): a catalog filled from CREATE TABLE / VIEW
 * text the way DDL stores it, session options, and helpers that bind,
 * optimize and explain a statement and cut one section out of EXPLAIN.
 * Header-only (static inline) so each suite stays one translation unit.
 */
#ifndef JOINERY_TESTS_PLANNER_FIXTURE_H
#define JOINERY_TESTS_PLANNER_FIXTURE_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/strbuf.h"
#include "engine/plan/planner.h"
#include "engine/sql/parser.h"
#include "engine/stmt/options.h"

typedef struct Fixture {
    Catalog *catalog;
    SessionOptions options;
    PlannerConfig config; /* built from options by fixture_reset_context, as per statement */
    Arena arena;
    Diag diag;
    PlannerContext context;
    PlanNode *logical;
    PlanNode *physical;
    StrBuf text;
} Fixture;

static inline void fixture_reset_context(Fixture *f)
{
    memset(&f->context, 0, sizeof f->context);
    f->context.arena = &f->arena;
    f->context.catalog = f->catalog;
    planner_config_from_options(&f->options, &f->config);
    f->context.config = &f->config;
    f->context.diag = &f->diag;
    diag_clear(&f->diag);
    f->logical = f->physical = NULL;
    strbuf_clear(&f->text);
}

static inline AstStatement *parse(Fixture *f, const char *sql)
{
    AstStatement *statement = NULL;
    diag_clear(&f->diag);
    int status = sql_parse_statement(sql, strlen(sql), 1, 1, &f->arena, &statement, &f->diag);
    ck_assert_msg(status == JOINERY_OK, "parse of '%s' failed: %s", sql, f->diag.message);
    return statement;
}

/* Adds a table (CREATE TABLE) or view (CREATE VIEW) the way DDL stores it. */
static inline void define(Fixture *f, const char *ddl)
{
    fixture_reset_context(f);
    AstStatement *statement = parse(f, ddl);
    if (statement->kind == AST_STMT_CREATE_VIEW) {
        const AstCreateView *create = &statement->create_view;
        PlanNode *logical = NULL;
        int status = plan_bind_query(&f->context, create->query, &logical);
        ck_assert_msg(status == JOINERY_OK, "view: %s", f->diag.message);
        const char *name = create->name_parts.items[create->name_parts.count - 1];
        CatalogTable *view = catalog_table_new(name, true);
        view->view_query = arena_strndup(&view->arena, create->query_text, create->query_length);
        view->column_count = logical->field_count;
        view->columns = arena_calloc(&view->arena, logical->field_count + 1, sizeof(CatalogColumn));
        for (uint32_t i = 0; i < logical->field_count; i++) {
            view->columns[i].name = arena_strdup(&view->arena, logical->fields[i].name);
            view->columns[i].type = logical->fields[i].type;
        }
        ck_assert_int_eq(catalog_add(f->catalog, view, false, &f->diag), JOINERY_OK);
        return;
    }
    ck_assert_int_eq(statement->kind, AST_STMT_CREATE_TABLE);
    const AstCreateTable *create = &statement->create_table;
    const char *name = create->name_parts.items[create->name_parts.count - 1];
    CatalogTable *table = catalog_table_new(name, false);
    ck_assert_ptr_nonnull(table);
    table->column_count = create->columns.count;
    table->columns = arena_calloc(&table->arena, create->columns.count + 1, sizeof(CatalogColumn));
    for (size_t i = 0; i < create->columns.count; i++) {
        const AstColumnDef *definition = create->columns.items[i];
        CatalogColumn *column = &table->columns[i];
        column->name = arena_strdup(&table->arena, definition->name);
        column->type = definition->type;
        column->kind = definition->kind == AST_COLUMN_COMPUTED   ? CATALOG_COLUMN_COMPUTED
                       : definition->kind == AST_COLUMN_METADATA ? CATALOG_COLUMN_METADATA
                                                                 : CATALOG_COLUMN_PHYSICAL;
        if (definition->kind == AST_COLUMN_COMPUTED)
            column->expression = arena_strndup(&table->arena, definition->expr->source_text,
                                               definition->expr->source_length);
        if (definition->primary_key) {
            table->primary_key = arena_calloc(&table->arena, 1, sizeof(char *));
            table->primary_key[0] = column->name;
            table->primary_key_count = 1;
            column->type.nullable = false;
        }
    }
    if (create->primary_key.count) {
        table->primary_key_count = create->primary_key.count;
        table->primary_key = arena_calloc(&table->arena, create->primary_key.count, sizeof(char *));
        for (size_t k = 0; k < create->primary_key.count; k++) {
            int index = catalog_table_column_index(table, create->primary_key.items[k]);
            ck_assert_int_ge(index, 0);
            table->primary_key[k] = table->columns[index].name;
            table->columns[index].type.nullable = false;
        }
    }
    /* computed columns get the type the binder infers */
    for (size_t i = 0; i < table->column_count; i++) {
        if (table->columns[i].kind != CATALOG_COLUMN_COMPUTED)
            continue;
        Expr *expr = NULL;
        int status = plan_bind_table_expression_text(&f->context, table,
                                                     table->columns[i].expression, false, &expr);
        ck_assert_msg(status == JOINERY_OK, "computed column: %s", f->diag.message);
        table->columns[i].type = expr->type;
    }
    if (create->watermark_column) {
        table->watermark_column = arena_strdup(&table->arena, create->watermark_column);
        table->watermark_expression =
            arena_strndup(&table->arena, create->watermark_expr->source_text,
                          create->watermark_expr->source_length);
    }
    table->option_count = create->options.count;
    table->options = arena_calloc(&table->arena, create->options.count + 1, sizeof(CatalogOption));
    for (size_t i = 0; i < create->options.count; i++) {
        const AstOption *option = create->options.items[i];
        table->options[i].key = arena_strdup(&table->arena, option->key);
        table->options[i].value = arena_strdup(&table->arena, option->value);
    }
    ck_assert_int_eq(catalog_add(f->catalog, table, false, &f->diag), JOINERY_OK);
}

static inline void fixture_open(Fixture *f, const char *const *tables, size_t table_count)
{
    memset(f, 0, sizeof *f);
    f->catalog = catalog_create();
    ck_assert_ptr_nonnull(f->catalog);
    options_init(&f->options);
    arena_init(&f->arena, 0);
    for (size_t i = 0; i < table_count; i++)
        define(f, tables[i]);
    fixture_reset_context(f);
}

static inline void fixture_close(Fixture *f)
{
    catalog_destroy(f->catalog);
    options_free(&f->options);
    arena_destroy(&f->arena);
    strbuf_free(&f->text);
}

static inline void set_option(Fixture *f, const char *key, const char *value)
{
    ck_assert_msg(options_set(&f->options, key, value, &f->diag) == JOINERY_OK, "%s",
                  f->diag.message);
}

/* Binds a query or INSERT; returns the status (the error is in f->diag). */
static inline int bind(Fixture *f, const char *sql)
{
    fixture_reset_context(f);
    AstStatement *statement = parse(f, sql);
    if (statement->kind == AST_STMT_INSERT)
        return plan_bind_insert(&f->context, &statement->insert, &f->logical);
    ck_assert_int_eq(statement->kind, AST_STMT_QUERY);
    return plan_bind_query(&f->context, statement->query, &f->logical);
}

/* Binds, optimizes and explains (details: AST_EXPLAIN_* bits); asserts success. */
static inline const char *explain(Fixture *f, const char *sql, unsigned details)
{
    int status = bind(f, sql);
    ck_assert_msg(status == JOINERY_OK, "bind of '%s' failed: %s", sql, f->diag.message);
    status = plan_optimize(&f->context, f->logical, &f->physical);
    ck_assert_msg(status == JOINERY_OK, "optimize of '%s' failed: %s", sql, f->diag.message);
    status = plan_explain(&f->context, f->logical, f->physical, details, &f->text);
    ck_assert_msg(status == JOINERY_OK, "explain failed: %s", f->diag.message);
    return strbuf_cstr(&f->text);
}

/* One section of the last explain ("Abstract Syntax Tree", "Optimized Physical Plan"). */
static inline const char *section(Fixture *f, const char *title)
{
    static char buffer[16384];
    char header[96];
    snprintf(header, sizeof header, "== %s ==\n", title);
    const char *start = strstr(strbuf_cstr(&f->text), header);
    ck_assert_msg(start != NULL, "no section %s in\n%s", title, strbuf_cstr(&f->text));
    start += strlen(header);
    const char *end = strstr(start, "\n\n");
    size_t length = end ? (size_t)(end - start) + 1 : strlen(start);
    ck_assert_uint_lt(length, sizeof buffer);
    memcpy(buffer, start, length);
    buffer[length] = '\0';
    return buffer;
}

#endif
