/*
 * bind.c - the binder: queries and FROM clauses to a logical plan.
 *
 * Shape of what it builds (Flink's "Abstract Syntax Tree" section):
 *   table      LogicalTableScan [-> LogicalProject computed columns]
 *              [-> LogicalWatermarkAssigner]
 *   join       LogicalJoin(condition, joinType) over the two inputs; fields =
 *              left fields then right fields, duplicate names suffixed
 *   WHERE      LogicalFilter
 *   GROUP BY   LogicalProject(keys, aggregate arguments) -> LogicalAggregate
 *              [-> LogicalFilter HAVING]
 *   SELECT     LogicalProject (output names unique)
 *   UNION ALL  LogicalUnion (inputs cast to common types)
 * Views and WITH items are expanded in place. Anything a later issue brings
 * (windows, temporal and lookup joins, ORDER BY, LIMIT, ...) is rejected with
 * "not supported yet" at the offending position.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "engine/base/duration.h"
#include "engine/connector/connector.h"
#include "engine/plan/bind_internal.h"
#include "engine/sql/ast_depth.h"
#include "engine/sql/parser.h"

/*
 * Views nest at most 16 deep; queries and FROM items (counted together,
 * across views and WITH items, which are bound again at each use) at most
 * SQL_MAX_DEPTH, the parser's bound on one statement; a statement whose
 * expansion makes more than BIND_MAX_NODES plan nodes (a WITH item used twice
 * by the next, and so on: exponential) is refused rather than left to run out
 * of memory.
 */
enum { BIND_MAX_VIEW_DEPTH = 16, BIND_MAX_NODES = 100000 };

PlanNode *bind_new_node(Binder *binder, PlanKind kind, uint32_t input_count, uint32_t field_count)
{
    PlanNode *node = plan_node_new(binder->arena, kind, input_count, field_count);
    if (node)
        node->id = ++binder->context->next_node_id;
    else
        diag_error(binder->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    return node;
}

static int bind_no_memory(Binder *binder)
{
    return diag_error(binder->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
}

/* A scope listing a node's fields under one qualifier. */
static int bind_scope_of(Binder *binder, const PlanNode *node, const char *qualifier, Scope *scope)
{
    scope->count = node->field_count;
    scope->columns = arena_calloc(binder->arena, node->field_count + 1, sizeof(ScopeColumn));
    if (!scope->columns)
        return bind_no_memory(binder);
    for (uint32_t i = 0; i < node->field_count; i++) {
        scope->columns[i].qualifier = qualifier;
        scope->columns[i].name = node->fields[i].name;
        scope->columns[i].type = node->fields[i].type;
    }
    return JOINERY_OK;
}

/* ------------------------------------------------------------ tables */

static Scope bind_table_scope(Binder *binder, const CatalogTable *table, bool all_columns)
{
    Scope scope = {arena_calloc(binder->arena, table->column_count + 1, sizeof(ScopeColumn)), 0};
    for (size_t i = 0; i < table->column_count && scope.columns; i++) {
        const CatalogColumn *column = &table->columns[i];
        if (!all_columns && column->kind == CATALOG_COLUMN_COMPUTED)
            continue;
        scope.columns[scope.count].qualifier = table->name;
        scope.columns[scope.count].name = column->name;
        scope.columns[scope.count].type = column->type;
        if (!all_columns)
            scope.columns[scope.count].type.time_attribute = TIME_ATTRIBUTE_NONE;
        scope.count++;
    }
    return scope;
}

int plan_bind_table_expression(PlannerContext *context, const CatalogTable *table,
                               const AstExpr *expression, bool all_columns, Expr **result)
{
    Binder binder = {.context = context, .arena = context->arena, .diag = context->diag};
    Scope scope = bind_table_scope(&binder, table, all_columns);
    if (!scope.columns)
        return bind_no_memory(&binder);
    if (bind_contains_aggregate(&binder, expression))
        return bind_error(&binder, JOINERY_ERROR_VALIDATE, expression->position,
                          "Aggregate functions are not allowed in table definitions");
    return bind_expr(&binder, &scope, expression, result);
}

/* Parses "SELECT <text>" and returns its single select expression. */
static int bind_parse_expression_text(PlannerContext *context, const char *text,
                                      const AstExpr **result)
{
    char *statement_text = arena_printf(context->arena, "SELECT %s", text);
    if (!statement_text)
        return diag_error(context->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    AstStatement *statement = NULL;
    int status = sql_parse_statement(statement_text, strlen(statement_text), 1, 1, context->arena,
                                     &statement, context->diag);
    if (status != JOINERY_OK)
        return status;
    const AstSelectItem *item = statement->query->select.items.items[0];
    *result = item->expr;
    return JOINERY_OK;
}

int plan_bind_table_expression_text(PlannerContext *context, const CatalogTable *table,
                                    const char *text, bool all_columns, Expr **result)
{
    const AstExpr *expression = NULL;
    int status = bind_parse_expression_text(context, text, &expression);
    if (status != JOINERY_OK)
        return status;
    return plan_bind_table_expression(context, table, expression, all_columns, result);
}

/* LogicalTableScan [-> LogicalProject computed] [-> LogicalWatermarkAssigner] */
static int bind_table(Binder *binder, const CatalogTable *table, PlanNode **result)
{
    uint32_t physical = 0;
    bool has_computed = false;
    for (size_t i = 0; i < table->column_count; i++) {
        if (table->columns[i].kind == CATALOG_COLUMN_COMPUTED)
            has_computed = true;
        else
            physical++;
    }
    PlanNode *scan = bind_new_node(binder, PLAN_LOGICAL_TABLE_SCAN, 0, physical);
    if (!scan)
        return binder->diag->status;
    scan->scan.table = table;
    scan->scan.columns = arena_calloc(binder->arena, physical + 1, sizeof(uint32_t));
    scan->scan.column_count = physical;
    uint32_t field = 0;
    for (size_t i = 0; i < table->column_count; i++) {
        if (table->columns[i].kind == CATALOG_COLUMN_COMPUTED)
            continue;
        scan->scan.columns[field] = (uint32_t)i;
        scan->fields[field].name = table->columns[i].name;
        scan->fields[field].type = table->columns[i].type;
        scan->fields[field].type.time_attribute = TIME_ATTRIBUTE_NONE;
        field++;
    }
    PlanNode *node = scan;
    if (has_computed) {
        PlanNode *project =
            bind_new_node(binder, PLAN_LOGICAL_PROJECT, 1, (uint32_t)table->column_count);
        if (!project)
            return binder->diag->status;
        project->inputs[0] = scan;
        project->calc.project_count = (uint32_t)table->column_count;
        project->calc.projects = arena_calloc(binder->arena, table->column_count, sizeof(Expr *));
        field = 0;
        for (size_t i = 0; i < table->column_count; i++) {
            const CatalogColumn *column = &table->columns[i];
            Expr *expr;
            if (column->kind == CATALOG_COLUMN_COMPUTED) {
                int status = plan_bind_table_expression_text(binder->context, table,
                                                             column->expression, false, &expr);
                if (status != JOINERY_OK)
                    return status;
            } else {
                expr = expr_make_input_ref(binder->arena, field, scan->fields[field].type);
                field++;
            }
            project->calc.projects[i] = expr;
            project->fields[i].name = column->name;
            project->fields[i].type = expr->type;
        }
        node = project;
    }
    if (table->watermark_column) {
        int rowtime = catalog_table_column_index(table, table->watermark_column);
        Expr *watermark;
        int status = plan_bind_table_expression_text(binder->context, table,
                                                     table->watermark_expression, true, &watermark);
        if (status != JOINERY_OK)
            return status;
        PlanNode *assigner =
            bind_new_node(binder, PLAN_LOGICAL_WATERMARK_ASSIGNER, 1, node->field_count);
        if (!assigner)
            return binder->diag->status;
        assigner->inputs[0] = node;
        memcpy(assigner->fields, node->fields, node->field_count * sizeof(PlanField));
        assigner->fields[rowtime].type.time_attribute = TIME_ATTRIBUTE_ROWTIME;
        assigner->watermark.rowtime_field = (uint32_t)rowtime;
        assigner->watermark.watermark = watermark;
        node = assigner;
    }
    *result = node;
    return JOINERY_OK;
}

/* Renames a node's fields by wrapping it in a projection when names differ. */
static int bind_rename(Binder *binder, PlanNode *node, const char *const *names, uint32_t count,
                       PlanNode **result)
{
    bool same = true;
    for (uint32_t i = 0; i < count; i++)
        if (strcmp(node->fields[i].name, names[i]) != 0)
            same = false;
    if (same) {
        *result = node;
        return JOINERY_OK;
    }
    PlanNode *project = bind_new_node(binder, PLAN_LOGICAL_PROJECT, 1, count);
    if (!project)
        return binder->diag->status;
    project->inputs[0] = node;
    project->calc.project_count = count;
    project->calc.projects = arena_calloc(binder->arena, count, sizeof(Expr *));
    for (uint32_t i = 0; i < count; i++) {
        project->calc.projects[i] = expr_make_input_ref(binder->arena, i, node->fields[i].type);
        project->fields[i].name = arena_strdup(binder->arena, names[i]);
        project->fields[i].type = node->fields[i].type;
    }
    plan_uniquify_names(binder->arena, project->fields, count);
    *result = project;
    return JOINERY_OK;
}

static int bind_view(Binder *binder, const CatalogTable *view, SourcePosition position,
                     PlanNode **result)
{
    if (binder->view_depth >= BIND_MAX_VIEW_DEPTH)
        return bind_error(binder, JOINERY_ERROR_VALIDATE, position,
                          "View `%s` is nested too deeply (or refers to itself)", view->name);
    AstStatement *statement = NULL;
    Diag local;
    diag_clear(&local);
    int status = sql_parse_statement(view->view_query, strlen(view->view_query), 1, 1,
                                     binder->arena, &statement, &local);
    if (status != JOINERY_OK || statement->kind != AST_STMT_QUERY)
        return bind_error(binder, JOINERY_ERROR_VALIDATE, position,
                          "View `%s` cannot be expanded: %s", view->name, local.message);
    Binder inner = *binder;
    inner.aggregate = NULL;
    inner.state_ttl_hints = NULL;
    inner.ctes = NULL;
    inner.cte_count = 0;
    inner.view_depth = binder->view_depth + 1;
    inner.diag = &local;
    PlanNode *node = NULL;
    status = bind_query(&inner, statement->query, &node);
    if (status != JOINERY_OK)
        return bind_error(binder, local.status, position, "View `%s` is no longer valid: %s",
                          view->name, local.message);
    const char **names = arena_calloc(binder->arena, view->column_count + 1, sizeof(char *));
    if (node->field_count != view->column_count)
        return bind_error(binder, JOINERY_ERROR_VALIDATE, position,
                          "View `%s` is no longer valid: its query now has %u columns, not %zu",
                          view->name, node->field_count, view->column_count);
    for (size_t i = 0; i < view->column_count; i++)
        names[i] = view->columns[i].name;
    return bind_rename(binder, node, names, node->field_count, result);
}

/* ------------------------------------------------------------ FROM */

static int bind_from(Binder *binder, const AstTableRef *ref, BoundFrom *result);

static const CommonTableExpression *bind_find_cte(Binder *binder, const char *name)
{
    for (uint32_t i = binder->cte_count; i-- > 0;)
        if (strcmp(binder->ctes[i].name, name) == 0)
            return &binder->ctes[i];
    return NULL;
}

static int bind_table_name(Binder *binder, const AstTableRef *ref, bool versioned,
                           BoundFrom *result)
{
    const AstList *parts = &ref->table.parts;
    const char *name = parts->items[parts->count - 1];
    if (parts->count > 1) {
        const char *database = parts->items[parts->count - 2];
        const char *catalog_name = parts->count == 3 ? parts->items[0] : "default_catalog";
        if (strcmp(database, "default_database") != 0 ||
            strcmp(catalog_name, "default_catalog") != 0)
            return bind_error(binder, JOINERY_ERROR_VALIDATE, ref->position,
                              "Object '%s' not found within '%s.%s'", name, catalog_name, database);
    }
    if (ref->table.system_time && !versioned)
        return bind_error(binder, JOINERY_ERROR_UNSUPPORTED, ref->position,
                          "FOR SYSTEM_TIME AS OF is supported only on the right side of a JOIN "
                          "(a temporal join)");
    if (ref->hints.count) {
        const AstHint *hint = ref->hints.items[0];
        return bind_error(binder, JOINERY_ERROR_UNSUPPORTED, hint->position,
                          "Table hint '%s' is not supported yet", hint->name);
    }
    const char *qualifier = ref->alias ? ref->alias : name;
    PlanNode *node = NULL;
    const CommonTableExpression *cte = parts->count == 1 ? bind_find_cte(binder, name) : NULL;
    int status;
    if (cte) {
        Binder inner = *binder;
        inner.cte_count = (uint32_t)(cte - binder->ctes); /* earlier CTEs only */
        inner.aggregate = NULL;
        inner.state_ttl_hints = NULL;
        status = bind_query(&inner, cte->item->query, &node);
        if (status == JOINERY_OK && cte->item->column_names.count) {
            if (cte->item->column_names.count != node->field_count)
                return bind_error(binder, JOINERY_ERROR_VALIDATE, cte->item->position,
                                  "WITH item '%s' lists %zu columns but its query has %u", name,
                                  cte->item->column_names.count, node->field_count);
            status = bind_rename(binder, node, (const char *const *)cte->item->column_names.items,
                                 node->field_count, &node);
        }
    } else {
        CatalogTable *table = catalog_find(binder->context->catalog, name);
        if (!table) {
            const char *suggestion = catalog_suggest_table(binder->context->catalog, name);
            return bind_error(binder, JOINERY_ERROR_VALIDATE, ref->position,
                              "Object '%s' not found%s%s%s", name,
                              suggestion ? "; did you mean '" : "", suggestion ? suggestion : "",
                              catalog_suggestion_end(name, suggestion));
        }
        if (!table->is_view && binder->context->config && binder->context->config->batch_mode) {
            const Connector *connector = connector_find(catalog_table_option(table, "connector"));
            if (!connector || !connector->is_bounded || !connector->is_bounded(table))
                return bind_error(
                    binder, JOINERY_ERROR_VALIDATE, ref->position,
                    "Querying an unbounded table 'default_catalog.default_database.%s' in "
                    "batch mode is not allowed. "
                    "The table source is unbounded.",
                    table->name);
        }
        status = table->is_view ? bind_view(binder, table, ref->position, &node)
                                : bind_table(binder, table, &node);
        result->hint_name = table->name;
        result->table = table;
    }
    if (status != JOINERY_OK)
        return status;
    if (ref->column_aliases.count) {
        if (ref->column_aliases.count != node->field_count)
            return bind_error(binder, JOINERY_ERROR_VALIDATE, ref->position,
                              "List of column aliases must have same degree as table; table has "
                              "%u columns, the alias list has %zu",
                              node->field_count, ref->column_aliases.count);
        status = bind_rename(binder, node, (const char *const *)ref->column_aliases.items,
                             node->field_count, &node);
        if (status != JOINERY_OK)
            return status;
    }
    result->node = node;
    result->alias = qualifier;
    return bind_scope_of(binder, node, qualifier, &result->scope);
}

/* Looks up the STATE_TTL hint value for an input named `alias` or `table_name`. */
static int bind_state_ttl(Binder *binder, const BoundFrom *input, int64_t *ttl, bool *found)
{
    *found = false;
    if (!binder->state_ttl_hints)
        return JOINERY_OK;
    for (size_t h = 0; h < binder->state_ttl_hints->count; h++) {
        const AstHint *hint = binder->state_ttl_hints->items[h];
        for (size_t i = 0; i < hint->options.count; i++) {
            const AstOption *option = hint->options.items[i];
            bool matches = (input->alias && strcasecmp(option->key, input->alias) == 0) ||
                           (input->hint_name && strcasecmp(option->key, input->hint_name) == 0);
            if (!matches)
                continue;
            if (duration_parse_millis(option->value, ttl) != 0)
                return bind_error(binder, JOINERY_ERROR_VALIDATE, option->value_position,
                                  "Invalid STATE_TTL value '%s': expected a duration such as "
                                  "'1d', '12h' or '30 min'",
                                  option->value);
            *found = true;
        }
    }
    return JOINERY_OK;
}

/* "[STATE_TTL options:{o=1d, u=12h}]" for every STATE_TTL hint, as Flink's AST prints them. */
static const char *bind_state_ttl_text(Binder *binder)
{
    StrBuf text = STRBUF_INIT;
    for (size_t h = 0; h < binder->state_ttl_hints->count; h++) {
        const AstHint *hint = binder->state_ttl_hints->items[h];
        if (strcasecmp(hint->name, "STATE_TTL") != 0)
            continue;
        strbuf_printf(&text, "%s[STATE_TTL options:{", text.length ? ", " : "");
        for (size_t i = 0; i < hint->options.count; i++) {
            const AstOption *option = hint->options.items[i];
            strbuf_printf(&text, "%s%s=%s", i ? ", " : "", option->key, option->value);
        }
        strbuf_append_cstr(&text, "}]");
    }
    const char *result = arena_strdup(binder->arena, strbuf_cstr(&text));
    strbuf_free(&text);
    return result;
}

/* Adds field `field` to a sorted set of `*count` fields unless present. */
static void bind_add_field(uint32_t *fields, uint32_t *count, uint32_t field)
{
    uint32_t at = 0;
    while (at < *count && fields[at] < field)
        at++;
    if (at < *count && fields[at] == field)
        return;
    memmove(fields + at + 1, fields + at, (*count - at) * sizeof *fields);
    fields[at] = field;
    (*count)++;
}

static void bind_collect_left_fields(const Expr *expr, uint32_t left_count, uint32_t *fields,
                                     uint32_t *count, int depth)
{
    if (!expr || depth > 256)
        return;
    if (expr->kind == EXPR_INPUT_REF && expr->input_index < left_count)
        bind_add_field(fields, count, expr->input_index);
    if (expr->kind == EXPR_CALL)
        for (uint32_t i = 0; i < expr->call.arg_count; i++)
            bind_collect_left_fields(expr->call.args[i], left_count, fields, count, depth + 1);
}

/* The equalities of a condition (left field = right field), as Calcite's JoinInfo lists
   them: "amount=rate, currency=currency0". */
static void bind_collect_equalities(const Expr *expr, const PlanNode *join, uint32_t left_count,
                                    StrBuf *text, uint64_t *right_keys, int depth)
{
    if (!expr || depth > 256 || expr->kind != EXPR_CALL)
        return;
    if (expr->call.function == FUNCTION_AND) {
        for (uint32_t i = 0; i < expr->call.arg_count; i++)
            bind_collect_equalities(expr->call.args[i], join, left_count, text, right_keys,
                                    depth + 1);
        return;
    }
    if (expr->call.function != FUNCTION_EQUAL || expr->call.args[0]->kind != EXPR_INPUT_REF ||
        expr->call.args[1]->kind != EXPR_INPUT_REF)
        return;
    uint32_t a = expr->call.args[0]->input_index, b = expr->call.args[1]->input_index;
    if ((a < left_count) == (b < left_count))
        return;
    strbuf_printf(text, "%s%s=%s", text->length ? ", " : "", join->fields[a].name,
                  join->fields[b].name);
    uint32_t right = a < left_count ? b - left_count : a - left_count;
    if (right < 64)
        *right_keys |= (uint64_t)1 << right;
}

/*
 * The primary key of a versioned side, as Flink derives its unique key: a table's primary
 * key, kept through watermark assigners, filters and projections that pass its fields on
 * (a computed or dropped key field loses it). Fields of `node` in *fields; false when it
 * has none.
 */
static bool bind_versioned_key(const PlanNode *node, uint32_t *fields, uint32_t *count, int depth)
{
    if (depth > 64)
        return false;
    switch (node->kind) {
    case PLAN_LOGICAL_TABLE_SCAN: {
        const CatalogTable *table = node->scan.table;
        if (table->primary_key_count == 0)
            return false;
        *count = 0;
        for (size_t k = 0; k < table->primary_key_count; k++) {
            int column = catalog_table_column_index(table, table->primary_key[k]);
            int field = -1;
            for (uint32_t f = 0; f < node->scan.column_count && field < 0; f++)
                if ((int)node->scan.columns[f] == column)
                    field = (int)f;
            if (field < 0)
                return false;
            fields[(*count)++] = (uint32_t)field;
        }
        return true;
    }
    case PLAN_LOGICAL_FILTER: {
        /* WHERE rn = 1 over ROW_NUMBER() OVER (PARTITION BY k ...): k is the key */
        const PlanNode *rank = node->inputs[0];
        if (rank->kind == PLAN_LOGICAL_ROW_NUMBER &&
            plan_is_first_rank_condition(node->filter.condition, rank->rank.number_field)) {
            *count = 0;
            for (uint32_t k = 0; k < rank->rank.partition_count; k++) {
                int at = -1;
                for (uint32_t p = 0; p < rank->rank.project_count && at < 0; p++)
                    if (p != rank->rank.number_field &&
                        rank->rank.projects[p]->kind == EXPR_INPUT_REF &&
                        rank->rank.projects[p]->input_index == rank->rank.partition[k])
                        at = (int)p;
                if (at < 0)
                    return false;
                fields[(*count)++] = (uint32_t)at;
            }
            return *count > 0;
        }
        return bind_versioned_key(node->inputs[0], fields, count, depth + 1);
    }
    case PLAN_LOGICAL_WATERMARK_ASSIGNER:
        return bind_versioned_key(node->inputs[0], fields, count, depth + 1);
    case PLAN_LOGICAL_PROJECT: {
        uint32_t input_count = node->inputs[0]->field_count;
        uint32_t *below = calloc(input_count + 1, sizeof(uint32_t));
        bool found = below && bind_versioned_key(node->inputs[0], below, count, depth + 1);
        for (uint32_t k = 0; found && k < *count; k++) {
            int at = -1;
            for (uint32_t p = 0; p < node->calc.project_count && at < 0; p++)
                if (node->calc.projects[p]->kind == EXPR_INPUT_REF &&
                    node->calc.projects[p]->input_index == below[k])
                    at = (int)p;
            if (at < 0)
                found = false;
            else
                fields[k] = (uint32_t)at;
        }
        free(below);
        return found;
    }
    default:
        return false;
    }
}

/* The versioned table's primary key must be among the equalities of the ON condition. */
static int bind_check_temporal_key(Binder *binder, const AstTableRef *ref,
                                   const uint32_t *primary_key, uint32_t primary_key_count,
                                   const PlanNode *join, uint32_t left_count)
{
    StrBuf pairs = STRBUF_INIT, keys = STRBUF_INIT;
    uint64_t right_keys = 0;
    bind_collect_equalities(join->join.condition, join, left_count, &pairs, &right_keys, 0);
    bool covered = true;
    for (uint32_t k = 0; k < primary_key_count; k++) {
        uint32_t field = primary_key[k];
        strbuf_printf(&keys, "%s%s", k ? ", " : "", join->fields[left_count + field].name);
        if (field >= 64 || !((right_keys >> field) & 1))
            covered = false;
    }
    int status = JOINERY_OK;
    if (!covered)
        status = bind_error(binder, JOINERY_ERROR_VALIDATE, ref->join.condition->position,
                            "Temporal table's primary key [%s] must be included in the "
                            "equivalence condition of temporal join, but current temporal join "
                            "condition is [%s].",
                            strbuf_cstr(&keys), strbuf_cstr(&pairs));
    strbuf_free(&pairs);
    strbuf_free(&keys);
    return status;
}

/* What an event-time temporal join needs of its versioned side (Flink's checks). */
static int bind_event_time_checks(Binder *binder, const AstTableRef *ref, const PlanNode *logical,
                                  uint32_t *primary_key, uint32_t *primary_key_count,
                                  int *right_time_field)
{
    const AstTableRef *right_ref = ref->join.right;
    const PlanNode *versioned = logical->inputs[1];
    if (!bind_versioned_key(versioned, primary_key, primary_key_count, 0))
        return bind_error(binder, JOINERY_ERROR_VALIDATE, right_ref->position,
                          "Temporal Table Join requires primary key in versioned table, but no "
                          "primary key can be found.");
    for (uint32_t i = 0; i < versioned->field_count && *right_time_field < 0; i++)
        if (versioned->fields[i].type.time_attribute == TIME_ATTRIBUTE_ROWTIME)
            *right_time_field = (int)i;
    if (*right_time_field < 0)
        return bind_error(binder, JOINERY_ERROR_VALIDATE, right_ref->position,
                          "Event-Time Temporal Table Join requires both primary key and row time "
                          "attribute in versioned table, but no row time attribute can be "
                          "found.");
    int status = bind_check_temporal_key(binder, ref, primary_key, *primary_key_count, logical,
                                         logical->inputs[0]->field_count);
    if (status != JOINERY_OK)
        return status;
    if (binder->context->config && binder->context->config->state_ttl_millis > 0)
        return bind_error(binder, JOINERY_ERROR_UNSUPPORTED, ref->join.keyword_position,
                          "'table.exec.state.ttl' is not supported by the temporal join yet: its "
                          "state is freed by the watermark; reset the option for this query");
    return JOINERY_OK;
}

/*
 * `left JOIN versioned FOR SYSTEM_TIME AS OF left.t ON ...`, bound as a LogicalJoin in
 * *join, made what Calcite binds: LogicalCorrelate(left, LogicalFilter(ON,
 * LogicalSnapshot(versioned))). Checks what Flink checks when it plans one, with its
 * messages: the period is a time attribute of the left input, the join is INNER or LEFT,
 * and an event-time one has a versioned table with a primary key and a rowtime.
 */
static int bind_temporal_join(Binder *binder, const AstTableRef *ref, const BoundFrom *left,
                              const BoundFrom *right, PlanNode **join)
{
    const AstTableRef *right_ref = ref->join.right;
    const AstExpr *period_ast = right_ref->table.system_time;
    Expr *period = NULL;
    int status = bind_expr(binder, &left->scope, period_ast, &period);
    if (status != JOINERY_OK)
        return status;
    if (period->kind != EXPR_INPUT_REF || period->type.time_attribute == TIME_ATTRIBUTE_NONE)
        return bind_error(binder, JOINERY_ERROR_VALIDATE, period_ast->position,
                          "Temporal table join currently only supports 'FOR SYSTEM_TIME AS OF' "
                          "left table's time attribute field");
    PlanNode *logical = *join;
    JoinType type = logical->join.join_type;
    if (ref->join.kind == AST_JOIN_CROSS || !logical->join.condition)
        return bind_error(binder, JOINERY_ERROR_VALIDATE, ref->join.keyword_position,
                          "Temporal table join needs an ON condition with an equality on the "
                          "versioned table's primary key");
    if (type != JOIN_TYPE_INNER && type != JOIN_TYPE_LEFT)
        return bind_error(binder, JOINERY_ERROR_UNSUPPORTED, ref->join.keyword_position,
                          "Temporal table join currently only supports INNER JOIN and LEFT JOIN, "
                          "not %s JOIN",
                          type == JOIN_TYPE_RIGHT ? "RIGHT" : "FULL");
    PlanLookupOptions *lookup = NULL;
    if (period->type.time_attribute == TIME_ATTRIBUTE_PROCTIME) {
        /* a lookup join (Flink's LookupJoin) when the table can be looked up */
        if (!bind_table_can_lookup(right->table) || right_ref->column_aliases.count)
            return bind_error(binder, JOINERY_ERROR_UNSUPPORTED, period_ast->position,
                              "Processing-time temporal join is not supported yet.");
        status = bind_lookup_options(binder, right->table, right->alias, &lookup);
        if (status != JOINERY_OK)
            return status;
    }
    PlanNode *versioned = logical->inputs[1];
    uint32_t left_count = logical->inputs[0]->field_count;
    uint32_t *primary_key =
        arena_calloc(binder->arena, versioned->field_count + 1, sizeof(uint32_t));
    if (!primary_key)
        return bind_no_memory(binder);
    uint32_t primary_key_count = 0;
    int right_time_field = -1;
    if (!lookup) {
        status = bind_event_time_checks(binder, ref, logical, primary_key, &primary_key_count,
                                        &right_time_field);
        if (status != JOINERY_OK)
            return status;
    }
    const char **left_names = arena_calloc(binder->arena, left_count + 1, sizeof(char *));
    uint32_t *required = arena_calloc(binder->arena, left_count + 1, sizeof(uint32_t));
    PlanNode *snapshot = bind_new_node(binder, PLAN_LOGICAL_SNAPSHOT, 1, versioned->field_count);
    PlanNode *filter =
        bind_new_node(binder, PLAN_LOGICAL_CORRELATE_FILTER, 1, versioned->field_count);
    PlanNode *correlate = bind_new_node(binder, PLAN_LOGICAL_CORRELATE, 2, logical->field_count);
    if (!left_names || !required || !snapshot || !filter || !correlate)
        return bind_no_memory(binder);
    for (uint32_t i = 0; i < left_count; i++)
        left_names[i] = logical->inputs[0]->fields[i].name;
    uint32_t required_count = 0;
    bind_collect_left_fields(logical->join.condition, left_count, required, &required_count, 0);
    bind_add_field(required, &required_count, period->input_index);
    PlanNode *nodes[3] = {snapshot, filter, correlate};
    for (int n = 0; n < 3; n++) {
        nodes[n]->temporal.join_type = type;
        nodes[n]->temporal.condition = logical->join.condition;
        nodes[n]->temporal.period_field = period->input_index;
        nodes[n]->temporal.left_names = left_names;
        nodes[n]->temporal.left_count = left_count;
        nodes[n]->temporal.required = required;
        nodes[n]->temporal.required_count = required_count;
        nodes[n]->temporal.right_time_field = right_time_field < 0 ? 0 : (uint32_t)right_time_field;
        nodes[n]->temporal.lookup = lookup;
        nodes[n]->temporal.primary_key = primary_key;
        nodes[n]->temporal.primary_key_count = primary_key_count;
    }
    snapshot->inputs[0] = versioned;
    memcpy(snapshot->fields, versioned->fields, versioned->field_count * sizeof(PlanField));
    filter->inputs[0] = snapshot;
    memcpy(filter->fields, versioned->fields, versioned->field_count * sizeof(PlanField));
    correlate->inputs[0] = logical->inputs[0];
    correlate->inputs[1] = filter;
    memcpy(correlate->fields, logical->fields, logical->field_count * sizeof(PlanField));
    /* the versioned side's rowtime is a plain timestamp above the join (Flink) */
    for (uint32_t i = left_count; i < correlate->field_count; i++)
        correlate->fields[i].type.time_attribute = TIME_ATTRIBUTE_NONE;
    *join = correlate;
    return JOINERY_OK;
}

static int bind_join(Binder *binder, const AstTableRef *ref, BoundFrom *result)
{
    if (ref->join.natural)
        return bind_error(binder, JOINERY_ERROR_UNSUPPORTED, ref->join.keyword_position,
                          "NATURAL JOIN is not supported yet");
    if (ref->join.using_columns.count)
        return bind_error(binder, JOINERY_ERROR_UNSUPPORTED, ref->join.keyword_position,
                          "JOIN ... USING is not supported yet; write the ON condition");
    BoundFrom left = {0}, right = {0};
    const AstTableRef *right_ref = ref->join.right;
    bool temporal = right_ref->kind == AST_TABLE_NAME && right_ref->table.system_time;
    int status = bind_from(binder, ref->join.left, &left);
    if (status == JOINERY_OK && right_ref->kind == AST_TABLE_FUNCTION &&
        (right_ref->function.unnest ||
         !bind_is_window_function(right_ref->function.call->function.name)))
        return bind_correlate(binder, ref, &left, result);
    if (status == JOINERY_OK && temporal) {
        memset(&right, 0, sizeof right);
        status = bind_table_name(binder, right_ref, true, &right);
    } else if (status == JOINERY_OK) {
        status = bind_from(binder, right_ref, &right);
    }
    if (status != JOINERY_OK)
        return status;
    uint32_t count = left.node->field_count + right.node->field_count;
    PlanNode *join = bind_new_node(binder, PLAN_LOGICAL_JOIN, 2, count);
    if (!join)
        return binder->diag->status;
    join->inputs[0] = left.node;
    join->inputs[1] = right.node;
    for (uint32_t i = 0; i < left.node->field_count; i++)
        join->fields[i] = left.node->fields[i];
    for (uint32_t i = 0; i < right.node->field_count; i++)
        join->fields[left.node->field_count + i] = right.node->fields[i];
    switch (ref->join.kind) {
    case AST_JOIN_LEFT:
        join->join.join_type = JOIN_TYPE_LEFT;
        break;
    case AST_JOIN_RIGHT:
        join->join.join_type = JOIN_TYPE_RIGHT;
        break;
    case AST_JOIN_FULL:
        join->join.join_type = JOIN_TYPE_FULL;
        break;
    default:
        join->join.join_type = JOIN_TYPE_INNER;
        break;
    }
    /* outer joins make the other side's fields nullable */
    if (join_type_preserves_left(join->join.join_type))
        for (uint32_t i = 0; i < right.node->field_count; i++)
            join->fields[left.node->field_count + i].type.nullable = true;
    if (join_type_preserves_right(join->join.join_type))
        for (uint32_t i = 0; i < left.node->field_count; i++)
            join->fields[i].type.nullable = true;
    plan_uniquify_names(binder->arena, join->fields, count);
    Scope scope = {arena_calloc(binder->arena, count + 1, sizeof(ScopeColumn)), count};
    if (!scope.columns)
        return bind_no_memory(binder);
    memcpy(scope.columns, left.scope.columns, left.scope.count * sizeof(ScopeColumn));
    memcpy(scope.columns + left.scope.count, right.scope.columns,
           right.scope.count * sizeof(ScopeColumn));
    /* the NULL-padded side's columns are nullable above the join */
    for (uint32_t i = 0; i < count; i++)
        scope.columns[i].type.nullable = join->fields[i].type.nullable;
    if (ref->join.condition) {
        if (bind_contains_aggregate(binder, ref->join.condition))
            return bind_error(binder, JOINERY_ERROR_VALIDATE, ref->join.condition->position,
                              "Aggregate functions are not allowed in ON");
        AggregateBinding *aggregate = binder->aggregate;
        binder->aggregate = NULL;
        status = bind_expr(binder, &scope, ref->join.condition, &join->join.condition);
        binder->aggregate = aggregate;
        if (status != JOINERY_OK)
            return status;
        if (join->join.condition->type.id != TYPE_BOOLEAN)
            return bind_error(binder, JOINERY_ERROR_VALIDATE, ref->join.condition->position,
                              "ON condition must be a boolean expression");
    } else if (ref->join.kind != AST_JOIN_CROSS) {
        return bind_error(binder, JOINERY_ERROR_VALIDATE, ref->join.keyword_position,
                          "JOIN needs an ON condition");
    }
    /* STATE_TTL per side; -1 means the session default (table.exec.state.ttl) */
    bool left_found, right_found;
    int64_t left_ttl = -1, right_ttl = -1;
    status = bind_state_ttl(binder, &left, &left_ttl, &left_found);
    if (status == JOINERY_OK)
        status = bind_state_ttl(binder, &right, &right_ttl, &right_found);
    if (status != JOINERY_OK)
        return status;
    join->ttl_from_hint = left_found || right_found;
    if (join->ttl_from_hint)
        join->join.state_ttl_hint = bind_state_ttl_text(binder);
    join->state_ttl_millis = left_found ? left_ttl : -1;
    join->state_ttl_right_millis = right_found ? right_ttl : -1;
    join->join.left_hint_name = left.alias;
    join->join.right_hint_name = right.alias;
    if (temporal) {
        status = bind_temporal_join(binder, ref, &left, &right, &join);
        if (status != JOINERY_OK)
            return status;
        for (uint32_t i = left.node->field_count; i < count; i++)
            scope.columns[i].type.time_attribute = TIME_ATTRIBUTE_NONE;
    }
    result->node = join;
    result->scope = scope;
    result->hint_name = NULL;
    result->alias = NULL;
    return JOINERY_OK;
}

int bind_relation_name(Binder *binder, const AstList *parts, SourcePosition position,
                       PlanNode **result)
{
    AstTableRef ref = {.kind = AST_TABLE_NAME, .position = position};
    ref.table.parts = *parts;
    BoundFrom bound = {0};
    int status = bind_table_name(binder, &ref, false, &bound);
    if (status == JOINERY_OK)
        *result = bound.node;
    return status;
}

static int bind_from_item(Binder *binder, const AstTableRef *ref, BoundFrom *result)
{
    switch (ref->kind) {
    case AST_TABLE_NAME:
        return bind_table_name(binder, ref, false, result);
    case AST_TABLE_SUBQUERY: {
        Binder inner = *binder;
        inner.aggregate = NULL;
        inner.state_ttl_hints = NULL;
        PlanNode *node = NULL;
        int status = bind_query(&inner, ref->subquery.query, &node);
        if (status != JOINERY_OK)
            return status;
        if (ref->column_aliases.count) {
            if (ref->column_aliases.count != node->field_count)
                return bind_error(binder, JOINERY_ERROR_VALIDATE, ref->position,
                                  "List of column aliases must have same degree as table");
            status = bind_rename(binder, node, (const char *const *)ref->column_aliases.items,
                                 node->field_count, &node);
            if (status != JOINERY_OK)
                return status;
        }
        result->node = node;
        result->alias = ref->alias;
        return bind_scope_of(binder, node, ref->alias, &result->scope);
    }
    case AST_TABLE_JOIN:
        return bind_join(binder, ref, result);
    case AST_TABLE_FUNCTION: {
        if (ref->function.unnest || !bind_is_window_function(ref->function.call->function.name))
            return bind_table_function_alone(binder, ref, result);
        PlanNode *node = NULL;
        int status = bind_window_function(binder, ref->function.call, &node);
        if (status != JOINERY_OK)
            return status;
        if (ref->column_aliases.count) {
            if (ref->column_aliases.count != node->field_count)
                return bind_error(binder, JOINERY_ERROR_VALIDATE, ref->position,
                                  "List of column aliases must have same degree as table");
            status = bind_rename(binder, node, (const char *const *)ref->column_aliases.items,
                                 node->field_count, &node);
            if (status != JOINERY_OK)
                return status;
        }
        result->node = node;
        result->alias = ref->alias;
        return bind_scope_of(binder, node, ref->alias, &result->scope);
    }
    }
    return bind_error(binder, JOINERY_ERROR_UNSUPPORTED, ref->position,
                      "FROM item not supported yet");
}

static int bind_from(Binder *binder, const AstTableRef *ref, BoundFrom *result)
{
    memset(result, 0, sizeof *result);
    if (binder->depth >= SQL_MAX_DEPTH)
        return bind_error(binder, JOINERY_ERROR_VALIDATE, ref->position, SQL_DEPTH_MESSAGE,
                          SQL_MAX_DEPTH);
    if (binder->context->next_node_id > BIND_MAX_NODES)
        return bind_error(binder, JOINERY_ERROR_VALIDATE, ref->position,
                          "Statement too large: its plan has more than %d nodes (views and WITH "
                          "items are expanded at each use)",
                          BIND_MAX_NODES);
    binder->depth++;
    int status = bind_from_item(binder, ref, result);
    binder->depth--;
    return status;
}

int bind_from_clause(Binder *binder, const AstTableRef *ref, PlanNode **node, Scope *scope)
{
    BoundFrom from;
    int status = bind_from(binder, ref, &from);
    if (status != JOINERY_OK)
        return status;
    *node = from.node;
    *scope = from.scope;
    return JOINERY_OK;
}

/* ------------------------------------------------------------ SELECT */

static const char *bind_item_name(Binder *binder, const AstSelectItem *item, const Expr *expr,
                                  const Scope *scope, uint32_t position)
{
    if (item->alias)
        return item->alias;
    if (item->expr->kind == AST_EXPR_COLUMN) {
        if (expr->kind == EXPR_INPUT_REF && !binder->aggregate)
            return scope->columns[expr->input_index].name;
        return item->expr->column.name;
    }
    return arena_printf(binder->arena, "EXPR$%u", position);
}

static int select_list_add(Binder *binder, SelectList *list, Expr *expr, const char *name)
{
    if (list->count == list->capacity) {
        uint32_t capacity = list->capacity ? list->capacity * 2 : 16;
        Expr **exprs = arena_calloc(binder->arena, capacity, sizeof(Expr *));
        const char **names = arena_calloc(binder->arena, capacity, sizeof(char *));
        if (!exprs || !names)
            return bind_no_memory(binder);
        if (list->count) {
            memcpy(exprs, list->exprs, list->count * sizeof(Expr *));
            memcpy(names, list->names, list->count * sizeof(char *));
        }
        list->exprs = exprs;
        list->names = names;
        list->capacity = capacity;
    }
    list->exprs[list->count] = expr;
    list->names[list->count] = name;
    list->count++;
    return JOINERY_OK;
}

/* Expands * and t.* and binds the other items. */
int bind_select_items(Binder *binder, const AstQuery *query, const Scope *scope, SelectList *list,
                      int *over_position)
{
    const AstList *items = &query->select.items;
    for (size_t i = 0; i < items->count; i++) {
        const AstSelectItem *item = items->items[i];
        if (over_position && item->expr->kind == AST_EXPR_FUNCTION && item->expr->function.over &&
            !function_is_aggregate_name(item->expr->function.name) &&
            !bind_names_udf_aggregate(binder, item->expr->function.name)) {
            /* ROW_NUMBER() OVER: a place for it (bind_row_number) */
            if (*over_position >= 0)
                return bind_error(binder, JOINERY_ERROR_UNSUPPORTED, item->position,
                                  "Only one ROW_NUMBER() (RANK(), DENSE_RANK()) OVER per SELECT "
                                  "is supported yet");
            *over_position = (int)list->count;
            Expr *place =
                expr_make_literal(binder->arena, type_make(TYPE_BIGINT, false), value_int(1));
            const char *name =
                item->alias ? item->alias : arena_printf(binder->arena, "EXPR$%u", list->count);
            int status =
                place ? select_list_add(binder, list, place, name) : bind_no_memory(binder);
            if (status != JOINERY_OK)
                return status;
            continue;
        }
        if (item->expr->kind == AST_EXPR_STAR) {
            if (binder->aggregate)
                return bind_error(binder, JOINERY_ERROR_VALIDATE, item->position,
                                  "'*' is not allowed in a grouped query");
            const char *qualifier = item->expr->star.qualifier;
            bool any = false;
            for (uint32_t c = 0; c < scope->count; c++) {
                const ScopeColumn *column = &scope->columns[c];
                if (qualifier && (!column->qualifier || strcmp(column->qualifier, qualifier) != 0))
                    continue;
                Expr *ref = expr_make_input_ref(binder->arena, c, column->type);
                if (!ref || select_list_add(binder, list, ref, column->name) != JOINERY_OK)
                    return bind_no_memory(binder);
                any = true;
            }
            if (!any)
                return bind_error(binder, JOINERY_ERROR_VALIDATE, item->position,
                                  qualifier ? "Unknown identifier '%s'" : "No columns to select%s",
                                  qualifier ? qualifier : "");
            continue;
        }
        Expr *expr = NULL;
        int status = bind_expr(binder, scope, item->expr, &expr);
        if (status != JOINERY_OK)
            return status;
        if (expr->type.id == TYPE_NULL)
            return bind_error(binder, JOINERY_ERROR_VALIDATE, item->position,
                              "Illegal use of 'NULL': cast it to a type, e.g. CAST(NULL AS INT)");
        status = select_list_add(binder, list, expr,
                                 bind_item_name(binder, item, expr, scope, list->count));
        if (status != JOINERY_OK)
            return status;
    }
    return JOINERY_OK;
}

/*
 * ORDER BY of a query, resolved to fields of its output (BoundOrder.keys). A key is, in
 * Calcite's order: an ordinal (ORDER BY 2), the name of a select item, or an expression
 * over the FROM scope equal to a select item; any other expression of a SELECT is added
 * to its select list as an extra field (`extra` of them after the `visible` ones) that a
 * LogicalProject above the LogicalSort drops again.
 */
typedef struct BoundOrder {
    PlanSortKey *keys;
    uint32_t key_count;
    uint32_t visible; /* the query's own fields */
    uint32_t extra;   /* hidden sort fields after them */
} BoundOrder;

/* The value of an INTEGER literal (an ordinal or a row count). */
static bool bind_integer_literal(const AstExpr *ast, int64_t *value)
{
    if (ast->kind != AST_EXPR_LITERAL || ast->literal.kind != AST_LITERAL_INTEGER ||
        ast->literal.integer_overflow)
        return false;
    *value = strtoll(ast->literal.text, NULL, 10);
    return true;
}

/* The field named as the unqualified column `ast` among the first `count` names, or -1. */
static int bind_order_name(const char *const *names, uint32_t count, const AstExpr *ast)
{
    if (ast->kind != AST_EXPR_COLUMN || ast->column.qualifier)
        return -1;
    for (uint32_t i = 0; i < count; i++)
        if (names[i] && strcmp(names[i], ast->column.name) == 0)
            return (int)i;
    return -1;
}

static void bind_order_direction(const AstOrderItem *item, PlanSortKey *key)
{
    key->descending = item->descending;
    /* Flink's default null ordering: NULLs sort as the smallest values */
    key->nulls_first = item->nulls_first >= 0 ? item->nulls_first == 1 : !item->descending;
}

/* Ordinal or name of an output field for ORDER BY item `item`: true with *field set;
   false when it is neither (an error is set only for an ordinal out of range). */
static bool bind_order_output_field(Binder *binder, const AstOrderItem *item,
                                    const char *const *names, uint32_t count, uint32_t *field,
                                    int *status)
{
    int64_t ordinal;
    *status = JOINERY_OK;
    if (bind_integer_literal(item->expr, &ordinal)) {
        if (ordinal < 1 || ordinal > count) {
            *status = bind_error(binder, JOINERY_ERROR_VALIDATE, item->expr->position,
                                 "Ordinal out of range");
            return false;
        }
        *field = (uint32_t)(ordinal - 1);
        return true;
    }
    int named = bind_order_name(names, count, item->expr);
    if (named < 0)
        return false;
    *field = (uint32_t)named;
    return true;
}

/*
 * Resolves query->order_by against a SELECT's `list` (items bound over `scope`, in
 * aggregate mode when the binder is) and appends the extra fields to it; `distinct`:
 * no extra field may be added (SELECT DISTINCT orders by its items only).
 */
static int bind_order_of_select(Binder *binder, const AstQuery *query, const Scope *scope,
                                SelectList *list, bool distinct, BoundOrder *order)
{
    const AstList *items = &query->order_by;
    order->visible = list->count;
    order->key_count = (uint32_t)items->count;
    order->keys = arena_calloc(binder->arena, items->count + 1, sizeof(PlanSortKey));
    if (!order->keys)
        return bind_no_memory(binder);
    for (size_t k = 0; k < items->count; k++) {
        const AstOrderItem *item = items->items[k];
        PlanSortKey *key = &order->keys[k];
        bind_order_direction(item, key);
        int status;
        if (bind_order_output_field(binder, item, list->names, order->visible, &key->field,
                                    &status))
            continue;
        if (status != JOINERY_OK)
            return status;
        if (bind_contains_aggregate(binder, item->expr) && !binder->aggregate)
            return bind_error(binder, JOINERY_ERROR_VALIDATE, item->expr->position,
                              "Aggregate expression is illegal in ORDER BY clause of "
                              "non-aggregating SELECT");
        Expr *expr = NULL;
        status = bind_expr(binder, scope, item->expr, &expr);
        if (status != JOINERY_OK)
            return status;
        int found = -1;
        for (uint32_t i = 0; i < list->count && found < 0; i++)
            if (expr_equals(list->exprs[i], expr))
                found = (int)i;
        if (found >= 0) {
            key->field = (uint32_t)found;
            continue;
        }
        if (distinct)
            return bind_error(binder, JOINERY_ERROR_VALIDATE, item->expr->position,
                              "Expression '%.*s' is not in the select clause",
                              (int)item->expr->source_length, item->expr->source_text);
        const char *name = item->expr->kind == AST_EXPR_COLUMN && expr->kind == EXPR_INPUT_REF &&
                                   !binder->aggregate
                               ? scope->columns[expr->input_index].name
                               : arena_printf(binder->arena, "EXPR$%u", list->count);
        key->field = list->count;
        status = select_list_add(binder, list, expr, name);
        if (status != JOINERY_OK)
            return status;
        order->extra++;
    }
    return JOINERY_OK;
}

/* ORDER BY of a set operation or VALUES: ordinals and output names only. */
static int bind_order_of_fields(Binder *binder, const AstQuery *query, const PlanNode *node,
                                BoundOrder *order)
{
    const AstList *items = &query->order_by;
    const char *const *names = plan_field_names(binder->arena, node);
    order->visible = node->field_count;
    order->key_count = (uint32_t)items->count;
    order->keys = arena_calloc(binder->arena, items->count + 1, sizeof(PlanSortKey));
    if (!order->keys || !names)
        return bind_no_memory(binder);
    for (size_t k = 0; k < items->count; k++) {
        const AstOrderItem *item = items->items[k];
        bind_order_direction(item, &order->keys[k]);
        int status;
        if (bind_order_output_field(binder, item, names, node->field_count, &order->keys[k].field,
                                    &status))
            continue;
        if (status != JOINERY_OK)
            return status;
        return bind_error(binder, JOINERY_ERROR_UNSUPPORTED, item->expr->position,
                          "ORDER BY of a UNION or VALUES takes an output column's name or "
                          "ordinal only");
    }
    return JOINERY_OK;
}

/* A LIMIT / OFFSET / FETCH count: a non-negative integer literal. */
static int bind_row_count(Binder *binder, const AstExpr *ast, const char *what, int64_t *value)
{
    if (!ast) {
        *value = -1;
        return JOINERY_OK;
    }
    if (!bind_integer_literal(ast, value))
        return bind_error(binder, JOINERY_ERROR_VALIDATE, ast->position,
                          "%s takes a non-negative integer literal", what);
    return JOINERY_OK;
}

/*
 * The LogicalSort of a query's ORDER BY / LIMIT / OFFSET over *node (with `order`'s
 * keys), and the LogicalProject dropping order->extra hidden fields above it.
 */
static int bind_sort(Binder *binder, const AstQuery *query, const BoundOrder *order,
                     PlanNode **node)
{
    PlanNode *input = *node;
    PlanNode *sort = bind_new_node(binder, PLAN_LOGICAL_SORT, 1, input->field_count);
    if (!sort)
        return binder->diag->status;
    sort->inputs[0] = input;
    memcpy(sort->fields, input->fields, input->field_count * sizeof(PlanField));
    sort->sort.keys = order->keys;
    sort->sort.key_count = order->key_count;
    int status = bind_row_count(binder, query->limit, "LIMIT", &sort->sort.fetch);
    if (status == JOINERY_OK)
        status = bind_row_count(binder, query->offset, "OFFSET", &sort->sort.offset);
    if (status != JOINERY_OK)
        return status;
    SourcePosition at = query->order_by.count
                            ? ((const AstOrderItem *)query->order_by.items[0])->expr->position
                        : query->limit ? query->limit->position
                                       : query->offset->position;
    sort->sort.line = at.line;
    sort->sort.column = at.column;
    *node = sort;
    if (!order->extra)
        return JOINERY_OK;
    uint32_t count = order->visible;
    Expr **exprs = arena_calloc(binder->arena, count + 1, sizeof(Expr *));
    const char **names = arena_calloc(binder->arena, count + 1, sizeof(char *));
    if (!exprs || !names)
        return bind_no_memory(binder);
    for (uint32_t i = 0; i < count; i++) {
        exprs[i] = expr_make_input_ref(binder->arena, i, sort->fields[i].type);
        names[i] = sort->fields[i].name;
        if (!exprs[i])
            return bind_no_memory(binder);
    }
    *node = bind_project(binder, sort, exprs, names, count);
    return *node ? JOINERY_OK : binder->diag->status;
}

PlanNode *bind_project(Binder *binder, PlanNode *input, Expr **exprs, const char *const *names,
                       uint32_t count)
{
    PlanNode *project = bind_new_node(binder, PLAN_LOGICAL_PROJECT, 1, count);
    if (!project)
        return NULL;
    project->inputs[0] = input;
    project->calc.projects = exprs;
    project->calc.project_count = count;
    for (uint32_t i = 0; i < count; i++) {
        project->fields[i].name = arena_strdup(binder->arena, names[i]);
        project->fields[i].type = exprs[i]->type;
    }
    plan_uniquify_names(binder->arena, project->fields, count);
    return project;
}

/*
 * A SELECT whose item `position` is ROW_NUMBER() (RANK(), DENSE_RANK()) OVER (PARTITION
 * BY columns ORDER BY columns): one LogicalRowNumber node (nodes/node_deduplicate.c) over
 * *node.
 */
static int bind_row_number(Binder *binder, const AstQuery *query, const Scope *scope,
                           SelectList *list, uint32_t position, PlanNode **node)
{
    const AstSelectItem *item = NULL;
    for (size_t i = 0; i < query->select.items.count && !item; i++) {
        const AstSelectItem *candidate = query->select.items.items[i];
        if (candidate->expr->kind == AST_EXPR_FUNCTION && candidate->expr->function.over &&
            !function_is_aggregate_name(candidate->expr->function.name) &&
            !bind_names_udf_aggregate(binder, candidate->expr->function.name))
            item = candidate;
    }
    const AstOver *over = item->expr->function.over;
    if (strcasecmp(item->expr->function.name, "ROW_NUMBER") != 0 &&
        strcasecmp(item->expr->function.name, "RANK") != 0 &&
        strcasecmp(item->expr->function.name, "DENSE_RANK") != 0)
        return bind_error(binder, JOINERY_ERROR_UNSUPPORTED, over->position,
                          "%s() OVER is not supported yet", item->expr->function.name);
    if (over->name || over->has_frame)
        return bind_error(binder, JOINERY_ERROR_UNSUPPORTED, over->position,
                          over->name ? "A named window for %s() is not supported yet"
                                     : "Window frames in OVER are not supported yet for %s()",
                          item->expr->function.name);
    PlanRankFunction function = PLAN_RANK_ROW_NUMBER;
    if (strcasecmp(item->expr->function.name, "RANK") == 0)
        function = PLAN_RANK_RANK;
    else if (strcasecmp(item->expr->function.name, "DENSE_RANK") == 0)
        function = PLAN_RANK_DENSE_RANK;
    if (item->expr->function.args.count != 0)
        return bind_error(binder, JOINERY_ERROR_VALIDATE, item->position, "%s() takes no arguments",
                          item->expr->function.name);
    if (over->order_by.count == 0)
        return bind_error(binder, JOINERY_ERROR_VALIDATE, over->position,
                          "%s() OVER needs an ORDER BY (of the rows numbered in each partition)",
                          item->expr->function.name);
    uint32_t *partition =
        arena_calloc(binder->arena, over->partition_by.count + 1, sizeof(uint32_t));
    if (!partition)
        return bind_no_memory(binder);
    for (size_t k = 0; k < over->partition_by.count; k++) {
        const AstExpr *key_ast = over->partition_by.items[k];
        Expr *key = NULL;
        int status = bind_expr(binder, scope, key_ast, &key);
        if (status != JOINERY_OK)
            return status;
        if (key->kind != EXPR_INPUT_REF)
            return bind_error(binder, JOINERY_ERROR_UNSUPPORTED, key_ast->position,
                              "PARTITION BY an expression is not supported yet; use a column");
        partition[k] = key->input_index;
    }
    uint32_t order_count = (uint32_t)over->order_by.count;
    uint32_t *order_fields = arena_calloc(binder->arena, order_count, sizeof(uint32_t));
    bool *order_descending = arena_calloc(binder->arena, order_count, sizeof(bool));
    bool *order_nulls_first = arena_calloc(binder->arena, order_count, sizeof(bool));
    if (!order_fields || !order_descending || !order_nulls_first)
        return bind_no_memory(binder);
    for (uint32_t k = 0; k < order_count; k++) {
        const AstOrderItem *order = over->order_by.items[k];
        Expr *order_expr = NULL;
        int status = bind_expr(binder, scope, order->expr, &order_expr);
        if (status != JOINERY_OK)
            return status;
        if (order_expr->kind != EXPR_INPUT_REF)
            return bind_error(binder, JOINERY_ERROR_UNSUPPORTED, order->expr->position,
                              "ORDER BY an expression in OVER is not supported yet; use a column");
        order_fields[k] = order_expr->input_index;
        order_descending[k] = order->descending;
        /* Flink's default null order: NULLs are the smallest values */
        order_nulls_first[k] = order->nulls_first < 0 ? !order->descending : order->nulls_first;
    }
    PlanNode *rank = bind_new_node(binder, PLAN_LOGICAL_ROW_NUMBER, 1, list->count);
    if (!rank)
        return binder->diag->status;
    rank->inputs[0] = *node;
    rank->rank.projects = list->exprs;
    rank->rank.projects[position] = NULL;
    rank->rank.project_count = list->count;
    rank->rank.number_field = position;
    rank->rank.partition = partition;
    rank->rank.partition_count = (uint32_t)over->partition_by.count;
    rank->rank.function = function;
    rank->rank.order_fields = order_fields;
    rank->rank.order_descending = order_descending;
    rank->rank.order_nulls_first = order_nulls_first;
    rank->rank.order_count = order_count;
    rank->rank.order_field = order_fields[0];
    rank->rank.descending = order_descending[0];
    rank->rank.rank_start = 1;
    for (uint32_t i = 0; i < list->count; i++) {
        rank->fields[i].name = arena_strdup(binder->arena, list->names[i]);
        rank->fields[i].type = i == position ? type_make(TYPE_BIGINT, false) : list->exprs[i]->type;
    }
    plan_uniquify_names(binder->arena, rank->fields, list->count);
    *node = rank;
    return JOINERY_OK;
}

/* True when projecting `exprs` over `input` would only repeat it (Calcite drops such projects). */
static bool bind_project_is_trivial(const PlanNode *input, Expr *const *exprs,
                                    const char *const *names, uint32_t count)
{
    if (count != input->field_count)
        return false;
    for (uint32_t i = 0; i < count; i++)
        if (exprs[i]->kind != EXPR_INPUT_REF || exprs[i]->input_index != i ||
            (names && strcmp(names[i], input->fields[i].name) != 0))
            return false;
    return true;
}

PlanNode *bind_filter(Binder *binder, PlanNode *input, Expr *condition)
{
    PlanNode *filter = bind_new_node(binder, PLAN_LOGICAL_FILTER, 1, input->field_count);
    if (!filter)
        return NULL;
    filter->inputs[0] = input;
    filter->filter.condition = condition;
    memcpy(filter->fields, input->fields, input->field_count * sizeof(PlanField));
    return filter;
}

/* DISTINCT over all fields: an aggregate grouping by every field. */
static PlanNode *bind_distinct(Binder *binder, PlanNode *input)
{
    PlanNode *aggregate = bind_new_node(binder, PLAN_LOGICAL_AGGREGATE, 1, input->field_count);
    if (!aggregate)
        return NULL;
    aggregate->inputs[0] = input;
    aggregate->aggregate.group_key_count = input->field_count;
    aggregate->aggregate.group_keys =
        arena_calloc(binder->arena, input->field_count + 1, sizeof(uint32_t));
    for (uint32_t i = 0; i < input->field_count; i++) {
        aggregate->aggregate.group_keys[i] = i;
        aggregate->fields[i] = input->fields[i];
    }
    return aggregate;
}

static int bind_hints(Binder *binder, const AstQuery *query)
{
    const AstList *hints = &query->select.hints;
    binder->state_ttl_hints = NULL;
    binder->select_hints = hints;
    binder->lookup_hints_used = 0;
    for (size_t i = 0; i < hints->count; i++) {
        const AstHint *hint = hints->items[i];
        if (strcasecmp(hint->name, "LOOKUP") == 0) {
            if (hint->options.count == 0)
                return bind_error(binder, JOINERY_ERROR_VALIDATE, hint->position,
                                  "LOOKUP hint needs options such as 'table' = 'dim'");
            continue;
        }
        if (strcasecmp(hint->name, "STATE_TTL") == 0) {
            if (hint->options.count == 0)
                return bind_error(binder, JOINERY_ERROR_VALIDATE, hint->position,
                                  "STATE_TTL hint needs options such as 'orders' = '1d'");
            binder->state_ttl_hints = hints;
            continue;
        }
        if (strcasecmp(hint->name, "MULTI_JOIN") == 0) {
            if (hint->identifiers.count < 2)
                return bind_error(binder, JOINERY_ERROR_VALIDATE, hint->position,
                                  "MULTI_JOIN hint needs at least two table names, e.g. "
                                  "MULTI_JOIN(o, u, p)");
            binder->context->multi_join_hinted = true;
            continue;
        }
        return bind_error(binder, JOINERY_ERROR_UNSUPPORTED, hint->position,
                          "Hint '%s' is not supported yet", hint->name);
    }
    return JOINERY_OK;
}

/* Every STATE_TTL key must name an input of some join of this SELECT. */
static int bind_check_state_ttl_keys(Binder *binder, const PlanNode *node, const AstOption *option,
                                     bool *found)
{
    if (node->kind == PLAN_LOGICAL_JOIN) {
        const char *names[2] = {node->join.left_hint_name, node->join.right_hint_name};
        for (int i = 0; i < 2; i++)
            if (names[i] && strcasecmp(names[i], option->key) == 0)
                *found = true;
    }
    if (node->kind == PLAN_LOGICAL_TABLE_SCAN && node->scan.table &&
        strcasecmp(node->scan.table->name, option->key) == 0)
        *found = true;
    for (uint32_t i = 0; i < node->input_count && !*found; i++)
        bind_check_state_ttl_keys(binder, node->inputs[i], option, found);
    return JOINERY_OK;
}

/*
 * A STATE_TTL hint key naming the FROM item of a SELECT that groups (a table, view or
 * derived table; not a join, whose hint keys name its inputs) sets the TTL of that
 * SELECT's aggregate, as Flink 1.19+ does; `from` is NULL without FROM.
 */
static int bind_aggregate_state_ttl(Binder *binder, const BoundFrom *from, PlanNode *aggregate)
{
    if (!from || !binder->state_ttl_hints)
        return JOINERY_OK;
    int64_t ttl = -1;
    bool found = false;
    int status = bind_state_ttl(binder, from, &ttl, &found);
    if (status != JOINERY_OK || !found)
        return status;
    aggregate->ttl_from_hint = true;
    aggregate->state_ttl_millis = ttl;
    aggregate->aggregate.state_ttl_hint = bind_state_ttl_text(binder);
    return JOINERY_OK;
}

static int bind_select(Binder *binder, const AstQuery *query, BoundOrder *order, PlanNode **result)
{
    int status = bind_hints(binder, query);
    if (status != JOINERY_OK)
        return status;
    const AstList *hints = binder->state_ttl_hints;
    PlanNode *node;
    Scope scope = {NULL, 0};
    BoundFrom from;
    const BoundFrom *aggregate_from = NULL; /* for a STATE_TTL hint on the aggregate */
    if (query->select.from) {
        status = bind_from(binder, query->select.from, &from);
        if (status != JOINERY_OK)
            return status;
        node = from.node;
        scope = from.scope;
        aggregate_from = &from;
        status = bind_check_lookup_hints(binder, &query->select.hints);
        if (status != JOINERY_OK)
            return status;
        for (size_t h = 0; hints && h < hints->count; h++) {
            const AstHint *hint = hints->items[h];
            if (strcasecmp(hint->name, "STATE_TTL") != 0)
                continue;
            for (size_t i = 0; i < hint->options.count; i++) {
                const AstOption *option = hint->options.items[i];
                /* the FROM item itself (an aggregate's input), or an input of a join */
                bool found = (from.alias && strcasecmp(option->key, from.alias) == 0) ||
                             (from.hint_name && strcasecmp(option->key, from.hint_name) == 0);
                if (!found)
                    bind_check_state_ttl_keys(binder, node, option, &found);
                if (!found)
                    return bind_error(binder, JOINERY_ERROR_VALIDATE, hint->position,
                                      "The options of following hints cannot match the name of "
                                      "input tables or views: '%s' in STATE_TTL",
                                      ((AstOption *)hint->options.items[i])->key);
            }
        }
    } else {
        /* SELECT without FROM: one empty row */
        node = bind_new_node(binder, PLAN_LOGICAL_VALUES, 0, 0);
        if (!node)
            return binder->diag->status;
        node->values.row_count = 1;
        node->values.rows = arena_calloc(binder->arena, 1, sizeof(Expr **));
    }
    if (query->select.where) {
        /* a filter, and a semi / anti join per [NOT] IN / EXISTS conjunct (bind_subquery.c) */
        status = bind_where(binder, query->select.where, &scope, NULL, &node, NULL);
        if (status != JOINERY_OK)
            return status;
    }
    bool grouped = query->select.group_by.count > 0 || query->select.having;
    for (size_t i = 0; i < query->select.items.count && !grouped; i++) {
        const AstSelectItem *item = query->select.items.items[i];
        grouped = bind_contains_aggregate(binder, item->expr);
    }
    SelectList list = {0};
    if (!grouped) {
        int over_position = -1;
        OverBinding over = {.query = query, .input = node};
        bool over_aggregate = bind_query_has_over_aggregate(binder, query);
        /* a WINDOW clause no OVER aggregate uses changes nothing (Flink runs the query) */
        if (over_aggregate) {
            over.calls.group_count = scope.count;
            binder->over = &over;
        }
        status = bind_select_items(binder, query, &scope, &list, &over_position);
        if (status == JOINERY_OK && query->order_by.count)
            status =
                bind_order_of_select(binder, query, &scope, &list, query->select.distinct, order);
        binder->over = NULL;
        if (status == JOINERY_OK && over_aggregate && over_position >= 0)
            status = bind_error(binder, JOINERY_ERROR_UNSUPPORTED, query->position,
                                "ROW_NUMBER() (RANK(), DENSE_RANK()) OVER beside OVER aggregates "
                                "in one SELECT is not supported yet");
        if (status != JOINERY_OK)
            return status;
        if (over_aggregate)
            status = bind_over_select(binder, &over, &scope, &list, &node);
        else if (over_position >= 0)
            status = bind_row_number(binder, query, &scope, &list, (uint32_t)over_position, &node);
        else
            node = bind_project(binder, node, list.exprs, list.names, list.count);
        if (status != JOINERY_OK)
            return status;
    } else {
        AggregateBinding aggregate = {0};
        uint32_t group_count = (uint32_t)query->select.group_by.count;
        aggregate.group_exprs = arena_calloc(binder->arena, group_count + 1, sizeof(Expr *));
        uint32_t group_windows = 0;
        for (uint32_t i = 0; i < group_count; i++) {
            const AstExpr *group_ast = query->select.group_by.items[i];
            if (bind_contains_aggregate(binder, group_ast))
                return bind_error(binder, JOINERY_ERROR_VALIDATE, group_ast->position,
                                  "Aggregate functions are not allowed in GROUP BY");
            if (bind_is_group_window(group_ast)) {
                if (group_windows++)
                    return bind_error(binder, JOINERY_ERROR_VALIDATE, group_ast->position,
                                      "Only one group window (TUMBLE, HOP or SESSION) is "
                                      "allowed in GROUP BY");
                status = bind_group_window(binder, &scope, group_ast, &aggregate.group_exprs[i]);
            } else {
                status = bind_expr(binder, &scope, group_ast, &aggregate.group_exprs[i]);
            }
            if (status != JOINERY_OK)
                return status;
        }
        aggregate.group_count = group_count;
        binder->aggregate = &aggregate;
        binder->grouping = &aggregate;
        status = bind_select_items(binder, query, &scope, &list, NULL);
        if (status == JOINERY_OK && query->order_by.count)
            status =
                bind_order_of_select(binder, query, &scope, &list, query->select.distinct, order);
        Expr *having = NULL;
        if (status == JOINERY_OK && query->select.having) {
            status = bind_expr(binder, &scope, query->select.having, &having);
            if (status == JOINERY_OK && having->type.id != TYPE_BOOLEAN)
                status = bind_error(binder, JOINERY_ERROR_VALIDATE, query->select.having->position,
                                    "HAVING clause must be a condition");
        }
        binder->aggregate = NULL;
        binder->grouping = NULL;
        if (status != JOINERY_OK)
            return status;
        /* LogicalProject(group exprs, aggregate arguments) */
        uint32_t argument_count = 0;
        for (uint32_t i = 0; i < aggregate.call_count; i++)
            argument_count += (aggregate.calls[i].argument ? 1 : 0) +
                              (aggregate.calls[i].separator ? 1 : 0) +
                              (aggregate.calls[i].filter ? 1 : 0) + aggregate.calls[i].more_count;
        uint32_t pre_count = group_count + argument_count;
        Expr **pre_exprs = arena_calloc(binder->arena, pre_count + 1, sizeof(Expr *));
        const char **pre_names = arena_calloc(binder->arena, pre_count + 1, sizeof(char *));
        for (uint32_t i = 0; i < group_count; i++) {
            pre_exprs[i] = aggregate.group_exprs[i];
            pre_names[i] = aggregate.group_exprs[i]->kind == EXPR_INPUT_REF
                               ? scope.columns[aggregate.group_exprs[i]->input_index].name
                               : arena_printf(binder->arena, "$f%u", i);
        }
        uint32_t argument = group_count;
        PlanNode *aggregate_node =
            bind_new_node(binder, PLAN_LOGICAL_AGGREGATE, 1, group_count + aggregate.call_count);
        if (!aggregate_node)
            return binder->diag->status;
        aggregate_node->aggregate.calls =
            arena_calloc(binder->arena, aggregate.call_count + 1, sizeof(PlanAggregateCall));
        aggregate_node->aggregate.call_count = aggregate.call_count;
        aggregate_node->aggregate.group_window_properties = aggregate.group_window_properties;
        for (uint32_t i = 0; i < aggregate.call_count; i++) {
            BoundAggregate *call = &aggregate.calls[i];
            PlanAggregateCall *plan_call = &aggregate_node->aggregate.calls[i];
            plan_call->kind = call->kind;
            plan_call->distinct = call->distinct;
            plan_call->udf = call->udf;
            plan_call->result_type = call->result_type;
            plan_call->name = arena_printf(binder->arena, "$f%u", group_count + i);
            if (call->argument && !call->argument_last) {
                /* reuse a grouping key or an earlier argument with the same expression */
                uint32_t existing = argument;
                for (uint32_t j = 0; j < argument; j++)
                    if (expr_equals(pre_exprs[j], call->argument))
                        existing = j;
                if (existing < argument) {
                    plan_call->argument = existing;
                } else {
                    pre_exprs[argument] = call->argument;
                    pre_names[argument] = call->argument->kind == EXPR_INPUT_REF
                                              ? scope.columns[call->argument->input_index].name
                                              : arena_printf(binder->arena, "$f%u", argument);
                    plan_call->argument = argument++;
                }
            }
            if (call->separator) {
                /* LISTAGG's separator: a constant field of the projection (Calcite's $fN) */
                plan_call->has_separator = true;
                uint32_t existing = argument;
                for (uint32_t j = group_count; j < argument; j++)
                    if (expr_equals(pre_exprs[j], call->separator))
                        existing = j;
                if (existing < argument) {
                    plan_call->separator = existing;
                } else {
                    pre_exprs[argument] = call->separator;
                    /* a user-defined aggregate's second argument: named like the first */
                    pre_names[argument] = call->udf && call->separator->kind == EXPR_INPUT_REF
                                              ? scope.columns[call->separator->input_index].name
                                              : arena_printf(binder->arena, "$f%u", argument);
                    plan_call->separator = argument++;
                }
            }
            /* a user-defined aggregate's 3rd argument on: fields after its second */
            plan_call->more_argument_count = call->more_count;
            for (uint32_t m = 0; m < call->more_count; m++) {
                const Expr *more = call->more[m];
                uint32_t existing = argument;
                for (uint32_t j = group_count; j < argument; j++)
                    if (expr_equals(pre_exprs[j], more))
                        existing = j;
                if (existing < argument) {
                    plan_call->more_arguments[m] = existing;
                    continue;
                }
                pre_exprs[argument] = (Expr *)more;
                pre_names[argument] = more->kind == EXPR_INPUT_REF
                                          ? scope.columns[more->input_index].name
                                          : arena_printf(binder->arena, "$f%u", argument);
                plan_call->more_arguments[m] = argument++;
            }
            if (call->filter) {
                /* FILTER (WHERE c): a BOOLEAN field after the call's arguments, shared by
                   the calls with the same condition (Calcite's $fN) */
                plan_call->has_filter = true;
                uint32_t existing = argument;
                for (uint32_t j = 0; j < argument; j++)
                    if (expr_equals(pre_exprs[j], call->filter))
                        existing = j;
                if (existing < argument) {
                    plan_call->filter = existing;
                } else {
                    pre_exprs[argument] = call->filter;
                    pre_names[argument] = call->filter->kind == EXPR_INPUT_REF
                                              ? scope.columns[call->filter->input_index].name
                                              : arena_printf(binder->arena, "$f%u", argument);
                    plan_call->filter = argument++;
                }
            }
        }
        /* the arguments a reduction added (bind_variance.c's x * x) come after the query's
           own, as Calcite appends them to the aggregate's input */
        for (uint32_t i = 0; i < aggregate.call_count; i++) {
            BoundAggregate *call = &aggregate.calls[i];
            PlanAggregateCall *plan_call = &aggregate_node->aggregate.calls[i];
            if (!call->argument || !call->argument_last)
                continue;
            uint32_t existing = argument;
            for (uint32_t j = 0; j < argument; j++)
                if (expr_equals(pre_exprs[j], call->argument))
                    existing = j;
            if (existing < argument) {
                plan_call->argument = existing;
            } else {
                pre_exprs[argument] = call->argument;
                pre_names[argument] = call->argument->kind == EXPR_INPUT_REF
                                          ? scope.columns[call->argument->input_index].name
                                          : arena_printf(binder->arena, "$f%u", argument);
                plan_call->argument = argument++;
            }
        }
        pre_count = argument;
        /* an aggregate selected as such takes the item's name (Calcite's naming) */
        for (uint32_t i = 0; i < list.count; i++) {
            const Expr *expr = list.exprs[i];
            if (expr->kind != EXPR_INPUT_REF || expr->input_index < group_count)
                continue;
            const AstSelectItem *item = query->select.items.items[i];
            if (item->expr->kind == AST_EXPR_FUNCTION &&
                (function_is_aggregate_name(item->expr->function.name) ||
                 bind_is_udf_aggregate_call(binder, item->expr)))
                aggregate_node->aggregate.calls[expr->input_index - group_count].name =
                    arena_strdup(binder->arena, list.names[i]);
        }
        PlanNode *pre = bind_project(binder, node, pre_exprs, pre_names, pre_count);
        if (!pre)
            return binder->diag->status;
        aggregate_node->inputs[0] = pre;
        aggregate_node->aggregate.group_key_count = group_count;
        aggregate_node->aggregate.group_keys =
            arena_calloc(binder->arena, group_count + 1, sizeof(uint32_t));
        for (uint32_t i = 0; i < group_count; i++) {
            aggregate_node->aggregate.group_keys[i] = i;
            aggregate_node->fields[i] = pre->fields[i];
        }
        for (uint32_t i = 0; i < aggregate.call_count; i++) {
            aggregate_node->fields[group_count + i].name = aggregate_node->aggregate.calls[i].name;
            aggregate_node->fields[group_count + i].type =
                aggregate_node->aggregate.calls[i].result_type;
        }
        plan_uniquify_names(binder->arena, aggregate_node->fields, aggregate_node->field_count);
        status = bind_aggregate_state_ttl(binder, aggregate_from, aggregate_node);
        if (status != JOINERY_OK)
            return status;
        node = aggregate_node;
        if (having) {
            node = bind_filter(binder, node, having);
            if (!node)
                return binder->diag->status;
        }
        if (!bind_project_is_trivial(node, list.exprs, list.names, list.count))
            node = bind_project(binder, node, list.exprs, list.names, list.count);
    }
    if (!node)
        return binder->diag->status;
    if (query->select.distinct) {
        node = bind_distinct(binder, node);
        if (!node)
            return binder->diag->status;
        status = bind_aggregate_state_ttl(binder, aggregate_from, node);
        if (status != JOINERY_OK)
            return status;
    }
    *result = node;
    return JOINERY_OK;
}

/* ------------------------------------------------------------ set operations, VALUES */

static int bind_cast_to(Binder *binder, PlanNode *input, const PlanField *types, PlanNode **result)
{
    bool same = true;
    for (uint32_t i = 0; i < input->field_count; i++)
        if (!type_equals(input->fields[i].type, types[i].type))
            same = false;
    if (same) {
        *result = input;
        return JOINERY_OK;
    }
    Expr **exprs = arena_calloc(binder->arena, input->field_count, sizeof(Expr *));
    const char **names = arena_calloc(binder->arena, input->field_count, sizeof(char *));
    for (uint32_t i = 0; i < input->field_count; i++) {
        Expr *ref = expr_make_input_ref(binder->arena, i, input->fields[i].type);
        DataType target = types[i].type;
        target.nullable = input->fields[i].type.nullable;
        exprs[i] = expr_make_cast(binder->arena, ref, target);
        names[i] = input->fields[i].name;
    }
    *result = bind_project(binder, input, exprs, names, input->field_count);
    return *result ? JOINERY_OK : binder->diag->status;
}

static int bind_set_operation(Binder *binder, const AstQuery *query, PlanNode **result)
{
    if (query->set.op != AST_SET_UNION)
        return bind_error(binder, JOINERY_ERROR_UNSUPPORTED, query->position,
                          "%s is not supported yet",
                          query->set.op == AST_SET_INTERSECT ? "INTERSECT" : "EXCEPT");
    PlanNode *left, *right;
    int status = bind_query(binder, query->set.left, &left);
    if (status == JOINERY_OK)
        status = bind_query(binder, query->set.right, &right);
    if (status != JOINERY_OK)
        return status;
    if (left->field_count != right->field_count)
        return bind_error(binder, JOINERY_ERROR_VALIDATE, query->position,
                          "Column count mismatch in UNION: %u columns on the left, %u on the "
                          "right",
                          left->field_count, right->field_count);
    PlanNode *union_node = bind_new_node(binder, PLAN_LOGICAL_UNION, 2, left->field_count);
    if (!union_node)
        return binder->diag->status;
    for (uint32_t i = 0; i < left->field_count; i++) {
        DataType common;
        if (!type_common(left->fields[i].type, right->fields[i].type, &common)) {
            char a[64], b[64];
            return bind_error(binder, JOINERY_ERROR_VALIDATE, query->position,
                              "Type mismatch in column %u of UNION: %s and %s", i + 1,
                              type_format(left->fields[i].type, a, sizeof a),
                              type_format(right->fields[i].type, b, sizeof b));
        }
        common.time_attribute = TIME_ATTRIBUTE_NONE;
        union_node->fields[i].name = left->fields[i].name;
        union_node->fields[i].type = common;
    }
    status = bind_cast_to(binder, left, union_node->fields, &union_node->inputs[0]);
    if (status == JOINERY_OK)
        status = bind_cast_to(binder, right, union_node->fields, &union_node->inputs[1]);
    if (status != JOINERY_OK)
        return status;
    union_node->set.all = true;
    *result = query->set.all ? union_node : bind_distinct(binder, union_node);
    return *result ? JOINERY_OK : binder->diag->status;
}

static int bind_values(Binder *binder, const AstQuery *query, PlanNode **result)
{
    const AstList *rows = &query->values.rows;
    const AstList *first = rows->items[0];
    uint32_t width = (uint32_t)first->count;
    PlanNode *values = bind_new_node(binder, PLAN_LOGICAL_VALUES, 0, width);
    if (!values)
        return binder->diag->status;
    values->values.row_count = (uint32_t)rows->count;
    values->values.rows = arena_calloc(binder->arena, rows->count, sizeof(Expr **));
    Scope empty = {NULL, 0};
    for (size_t r = 0; r < rows->count; r++) {
        const AstList *row = rows->items[r];
        if (row->count != width)
            return bind_error(binder, JOINERY_ERROR_VALIDATE, query->position,
                              "Values passed to VALUES operator must have compatible types: "
                              "row %zu has %zu values, row 1 has %u",
                              r + 1, row->count, width);
        values->values.rows[r] = arena_calloc(binder->arena, width + 1, sizeof(Expr *));
        for (uint32_t c = 0; c < width; c++) {
            Expr *expr;
            int status = bind_expr(binder, &empty, row->items[c], &expr);
            if (status != JOINERY_OK)
                return status;
            if (!expr_is_constant(expr))
                return bind_error(binder, JOINERY_ERROR_VALIDATE,
                                  ((AstExpr *)row->items[c])->position,
                                  "VALUES takes constant expressions only");
            values->values.rows[r][c] = expr;
            DataType type = expr->type;
            if (r > 0 && !type_common(values->fields[c].type, expr->type, &type))
                return bind_error(binder, JOINERY_ERROR_VALIDATE,
                                  ((AstExpr *)row->items[c])->position,
                                  "Values passed to VALUES operator must have compatible types");
            values->fields[c].type = type;
            values->fields[c].name = arena_printf(binder->arena, "EXPR$%u", c);
        }
    }
    for (uint32_t c = 0; c < width; c++) {
        if (values->fields[c].type.id == TYPE_NULL)
            return bind_error(binder, JOINERY_ERROR_VALIDATE, query->position,
                              "Illegal use of 'NULL' in VALUES column %u", c + 1);
        if (values->fields[c].type.id == TYPE_CHAR)
            values->fields[c].type = type_make_varchar(values->fields[c].type.precision,
                                                       values->fields[c].type.nullable);
        for (uint32_t r = 0; r < values->values.row_count; r++)
            values->values.rows[r][c] =
                expr_make_cast(binder->arena, values->values.rows[r][c], values->fields[c].type);
    }
    *result = values;
    return JOINERY_OK;
}

static int bind_query_kind(Binder *binder, const AstQuery *query, PlanNode **result);

int bind_query(Binder *binder, const AstQuery *query, PlanNode **result)
{
    if (binder->depth >= SQL_MAX_DEPTH)
        return bind_error(binder, JOINERY_ERROR_VALIDATE, query->position, SQL_DEPTH_MESSAGE,
                          SQL_MAX_DEPTH);
    binder->depth++;
    int status = bind_query_kind(binder, query, result);
    binder->depth--;
    return status;
}

static int bind_query_kind(Binder *binder, const AstQuery *query, PlanNode **result)
{
    BoundOrder order = {0};
    CommonTableExpression *saved_ctes = binder->ctes;
    uint32_t saved_count = binder->cte_count;
    if (query->with_items.count) {
        uint32_t count = saved_count + (uint32_t)query->with_items.count;
        CommonTableExpression *ctes = arena_calloc(binder->arena, count, sizeof *ctes);
        if (!ctes)
            return bind_no_memory(binder);
        if (saved_count)
            memcpy(ctes, saved_ctes, saved_count * sizeof *ctes);
        for (size_t i = 0; i < query->with_items.count; i++) {
            const AstWithItem *item = query->with_items.items[i];
            ctes[saved_count + i].name = item->name;
            ctes[saved_count + i].item = item;
        }
        binder->ctes = ctes;
        binder->cte_count = count;
    }
    int status;
    switch (query->kind) {
    case AST_QUERY_SELECT:
        status = bind_select(binder, query, &order, result);
        break;
    case AST_QUERY_UNION:
        status = bind_set_operation(binder, query, result);
        break;
    default:
        status = bind_values(binder, query, result);
        break;
    }
    if (status == JOINERY_OK && query->kind != AST_QUERY_SELECT && query->order_by.count)
        status = bind_order_of_fields(binder, query, *result, &order);
    if (status == JOINERY_OK && (query->order_by.count || query->limit || query->offset))
        status = bind_sort(binder, query, &order, result);
    binder->ctes = saved_ctes;
    binder->cte_count = saved_count;
    return status;
}

int plan_bind_query(PlannerContext *context, const AstQuery *query, PlanNode **result)
{
    Binder binder = {.context = context, .arena = context->arena, .diag = context->diag};
    return bind_query(&binder, query, result);
}

/* ------------------------------------------------------------ INSERT */

/* A column an INSERT writes: physical, or METADATA that is not VIRTUAL. */
static bool bind_column_is_persisted(const CatalogColumn *column)
{
    return column->kind == CATALOG_COLUMN_PHYSICAL ||
           (column->kind == CATALOG_COLUMN_METADATA && !column->is_virtual);
}

static bool bind_sink_assignable(DataType from, DataType to)
{
    if (type_equals(from, to) || from.id == TYPE_NULL)
        return true;
    /* as Flink, exact numerics go into any DECIMAL column (values that do not fit fail) */
    if (to.id == TYPE_DECIMAL && (from.id == TYPE_DECIMAL || type_is_integer(from.id)))
        return true;
    DataType common;
    if (!type_common(from, to, &common))
        return false;
    /* implicit widening only: the common type must be the sink's */
    return common.id == to.id && (to.id != TYPE_DECIMAL ||
                                  (common.precision == to.precision && common.scale == to.scale));
}

int plan_bind_insert(PlannerContext *context, const AstInsert *insert, PlanNode **result)
{
    Binder binder = {.context = context, .arena = context->arena, .diag = context->diag};
    SourcePosition position = insert->query->position;
    if (insert->overwrite)
        return bind_error(&binder, JOINERY_ERROR_UNSUPPORTED, position,
                          "INSERT OVERWRITE is not supported in streaming mode");
    const AstList *parts = &insert->table_parts;
    const char *name = parts->items[parts->count - 1];
    CatalogTable *table = catalog_find(context->catalog, name);
    if (!table || table->is_view) {
        const char *suggestion = catalog_suggest_table(context->catalog, name);
        return diag_error(
            context->diag, JOINERY_ERROR_VALIDATE,
            "%s `default_catalog`.`default_database`.`%s` %s%s%s%s", table ? "View" : "Table", name,
            table ? "cannot be written to; INSERT needs a table" : "does not exist",
            suggestion && !table ? "; did you mean '" : "", suggestion && !table ? suggestion : "",
            !table ? catalog_suggestion_end(name, suggestion) : "");
    }
    PlanNode *query = NULL;
    int status = bind_query(&binder, insert->query, &query);
    if (status != JOINERY_OK)
        return status;
    /* the sink's persisted columns (physical, and METADATA not VIRTUAL: written by the
       connector, as Flink), and which query column feeds each */
    const Connector *connector = connector_find(catalog_table_option(table, "connector"));
    uint32_t sink_count = 0;
    for (size_t i = 0; i < table->column_count; i++) {
        const CatalogColumn *column = &table->columns[i];
        if (!bind_column_is_persisted(column))
            continue;
        const char *key = column->metadata_key ? column->metadata_key : column->name;
        if (column->kind == CATALOG_COLUMN_METADATA &&
            !(connector && connector_sink_writes_metadata(connector, key))) {
            char writable[128] = "";
            for (const char *const *k = connector ? connector->sink_metadata_keys : NULL; k && *k;
                 k++)
                snprintf(writable + strlen(writable), sizeof writable - strlen(writable), "%s'%s'",
                         writable[0] ? ", " : "", *k);
            return bind_error(&binder, JOINERY_ERROR_VALIDATE, position,
                              "Metadata column '%s' (key '%s') of table '%s' cannot be written: "
                              "connector '%s' writes %s%s; declare it VIRTUAL to only read it",
                              column->name, key, table->name,
                              catalog_table_option(table, "connector"),
                              writable[0] ? "only the metadata " : "no metadata", writable);
        }
        sink_count++;
    }
    int32_t *source_of = arena_calloc(context->arena, sink_count + 1, sizeof(int32_t));
    uint32_t *sink_columns = arena_calloc(context->arena, sink_count + 1, sizeof(uint32_t));
    uint32_t s = 0;
    for (size_t i = 0; i < table->column_count; i++)
        if (bind_column_is_persisted(&table->columns[i])) {
            sink_columns[s] = (uint32_t)i;
            source_of[s] = insert->columns.count ? -1 : (int32_t)s;
            s++;
        }
    if (insert->columns.count) {
        if (insert->columns.count != query->field_count)
            return bind_error(&binder, JOINERY_ERROR_VALIDATE, position,
                              "Column count mismatch: INSERT lists %zu columns, the query "
                              "produces %u",
                              insert->columns.count, query->field_count);
        for (size_t c = 0; c < insert->columns.count; c++) {
            int index = catalog_table_column_index(table, insert->columns.items[c]);
            int target = -1;
            for (uint32_t k = 0; k < sink_count; k++)
                if ((int)sink_columns[k] == index)
                    target = (int)k;
            if (target < 0)
                return bind_error(&binder, JOINERY_ERROR_VALIDATE, position,
                                  "Unknown target column '%s' of table '%s'",
                                  (const char *)insert->columns.items[c], table->name);
            source_of[target] = (int32_t)c;
        }
    } else if (query->field_count != sink_count) {
        return bind_error(&binder, JOINERY_ERROR_VALIDATE, position,
                          "Column types of query result and sink for "
                          "'default_catalog.default_database.%s' do not match: the query "
                          "produces %u columns, the sink has %u",
                          table->name, query->field_count, sink_count);
    }
    Expr **exprs = arena_calloc(context->arena, sink_count + 1, sizeof(Expr *));
    const char **names = arena_calloc(context->arena, sink_count + 1, sizeof(char *));
    for (uint32_t k = 0; k < sink_count; k++) {
        const CatalogColumn *column = &table->columns[sink_columns[k]];
        names[k] = column->name;
        DataType target = column->type;
        target.time_attribute = TIME_ATTRIBUTE_NONE;
        if (source_of[k] < 0) {
            if (!target.nullable)
                return bind_error(&binder, JOINERY_ERROR_VALIDATE, position,
                                  "Column '%s' is NOT NULL and needs a value", column->name);
            exprs[k] = expr_make_literal(context->arena, target, value_null());
            continue;
        }
        const PlanField *field = &query->fields[source_of[k]];
        if (!bind_sink_assignable(field->type, target)) {
            char from[64], to[64];
            return bind_error(&binder, JOINERY_ERROR_VALIDATE, position,
                              "Column types of query result and sink for "
                              "'default_catalog.default_database.%s' do not match: "
                              "column '%s' is %s, the sink column '%s' is %s",
                              table->name, field->name, type_format(field->type, from, sizeof from),
                              column->name, type_format(target, to, sizeof to));
        }
        Expr *ref = expr_make_input_ref(context->arena, (uint32_t)source_of[k], field->type);
        DataType cast_type = target;
        cast_type.nullable = field->type.nullable;
        exprs[k] = expr_make_cast(context->arena, ref, cast_type);
    }
    PlanNode *project = bind_project_is_trivial(query, exprs, NULL, sink_count)
                            ? query
                            : bind_project(&binder, query, exprs, names, sink_count);
    if (!project)
        return context->diag->status;
    PlanNode *sink = bind_new_node(&binder, PLAN_LOGICAL_SINK, 1, sink_count);
    if (!sink)
        return context->diag->status;
    sink->inputs[0] = project;
    for (uint32_t k = 0; k < sink_count; k++) {
        sink->fields[k].name = table->columns[sink_columns[k]].name;
        sink->fields[k].type = project->fields[k].type;
    }
    sink->sink.table = table;
    sink->sink.target_columns = sink_columns;
    *result = sink;
    return JOINERY_OK;
}
