/*
 * bind_over.c - OVER aggregates in a SELECT list (Flink's OverAggregate):
 * `agg(...) OVER (PARTITION BY k ORDER BY time ROWS | RANGE ...)`, inline or
 * named in the WINDOW clause (`OVER w`).
 *
 * Every call of one SELECT must use the same window (Flink runs one window
 * group per OverAggregate: "All aggregates must be computed on the same
 * window."); the window is ordered by one time attribute ascending and its
 * frame ends at CURRENT ROW, starting UNBOUNDED or n rows / an interval
 * PRECEDING; without a frame it is RANGE BETWEEN UNBOUNDED PRECEDING AND
 * CURRENT ROW (the SQL default with ORDER BY). PARTITION BY and ORDER BY name
 * columns of the FROM scope.
 *
 * The plan: LogicalProject(the columns the query reads, in their order, then
 * the aggregate arguments that are expressions) when that is not the whole
 * input, LogicalOverAggregate(input fields ++ w0$o0, w0$o1, ...) and a
 * LogicalProject of the SELECT items over it (plan/nodes/node_over_aggregate.c).
 */
#include <string.h>
#include <strings.h>

#include "engine/plan/bind_internal.h"
#include "engine/plan/nodes/nodes.h"
#include "engine/sql/ast_depth.h"

static bool bind_item_has_over(const AstExpr *ast, int depth)
{
    if (!ast || depth > SQL_MAX_DEPTH)
        return false;
    switch (ast->kind) {
    case AST_EXPR_FUNCTION:
        if (ast->function.over && function_is_aggregate_name(ast->function.name))
            return true;
        for (size_t i = 0; i < ast->function.args.count; i++)
            if (bind_item_has_over(ast->function.args.items[i], depth + 1))
                return true;
        return false;
    case AST_EXPR_UNARY:
        return bind_item_has_over(ast->unary.operand, depth + 1);
    case AST_EXPR_BINARY:
        return bind_item_has_over(ast->binary.left, depth + 1) ||
               bind_item_has_over(ast->binary.right, depth + 1);
    case AST_EXPR_CAST:
        return bind_item_has_over(ast->cast.operand, depth + 1);
    case AST_EXPR_CASE:
        if (bind_item_has_over(ast->case_expr.operand, depth + 1) ||
            bind_item_has_over(ast->case_expr.else_result, depth + 1))
            return true;
        for (size_t i = 0; i < ast->case_expr.conditions.count; i++)
            if (bind_item_has_over(ast->case_expr.conditions.items[i], depth + 1) ||
                bind_item_has_over(ast->case_expr.results.items[i], depth + 1))
                return true;
        return false;
    case AST_EXPR_IS_NULL:
        return bind_item_has_over(ast->is_null.operand, depth + 1);
    default:
        return false;
    }
}

bool bind_query_has_over_aggregate(const AstQuery *query)
{
    for (size_t i = 0; i < query->select.items.count; i++) {
        const AstSelectItem *item = query->select.items.items[i];
        if (bind_item_has_over(item->expr, 0))
            return true;
    }
    return false;
}

/* The column of the FROM scope a PARTITION BY / ORDER BY expression names, or an error. */
static int bind_over_column(Binder *binder, const Scope *scope, const AstExpr *ast, uint32_t *field)
{
    Expr *expr = NULL;
    int status = bind_expr(binder, scope, ast, &expr);
    if (status != JOINERY_OK)
        return status;
    if (expr->kind != EXPR_INPUT_REF)
        return bind_error(binder, JOINERY_ERROR_UNSUPPORTED, ast->position,
                          "PARTITION BY and ORDER BY of an OVER window take columns yet; "
                          "compute the expression in a subquery");
    *field = expr->input_index;
    return JOINERY_OK;
}

/* The offset of `n PRECEDING`: a row count for ROWS, an interval (ms) for RANGE. */
static int bind_over_offset(Binder *binder, const Scope *scope, const AstFrameBound *bound,
                            bool rows, int64_t *offset)
{
    Expr *expr = NULL;
    int status = bind_expr(binder, scope, bound->offset, &expr);
    if (status != JOINERY_OK)
        return status;
    bool literal = expr->kind == EXPR_LITERAL && !expr->literal.is_null;
    if (rows) {
        if (!literal || !type_is_integer(expr->type.id) || expr->literal.i < 0)
            return bind_error(binder, JOINERY_ERROR_VALIDATE, bound->position,
                              "ROWS value must be a non-negative integral constant");
        *offset = expr->literal.i;
        return JOINERY_OK;
    }
    if (!literal || expr->type.id != TYPE_INTERVAL_DAY_TIME || expr->literal.i < 0)
        return bind_error(binder, JOINERY_ERROR_VALIDATE, bound->position,
                          "RANGE value of an OVER window on a time attribute must be a "
                          "non-negative day-time INTERVAL constant");
    *offset = expr->literal.i;
    return JOINERY_OK;
}

static const AstOver *bind_over_named(Binder *binder, const AstOver *window)
{
    const AstList *windows = &binder->over->query->select.windows;
    for (size_t i = 0; i < windows->count; i++) {
        const AstWindowDefinition *definition = windows->items[i];
        if (strcasecmp(definition->name, window->name) == 0)
            return definition->over;
    }
    bind_error(binder, JOINERY_ERROR_VALIDATE, window->position, "Window '%s' not found",
               window->name);
    return NULL;
}

int bind_over_window(Binder *binder, const Scope *scope, const AstOver *window)
{
    OverBinding *over = binder->over;
    SourcePosition position = window->position;
    if (window->name && !(window = bind_over_named(binder, window)))
        return binder->diag->status;
    if (window->base_name)
        return bind_error(binder, JOINERY_ERROR_UNSUPPORTED, position,
                          "A window that refines a named window is not supported yet");
    /* resolve it, binder->over out of the way (the offsets and keys are plain) */
    binder->over = NULL;
    uint32_t partition_count = (uint32_t)window->partition_by.count;
    uint32_t *partition = arena_calloc(binder->arena, partition_count + 1, sizeof(uint32_t));
    int status = partition ? JOINERY_OK : JOINERY_ERROR_NO_MEMORY;
    for (uint32_t k = 0; status == JOINERY_OK && k < partition_count; k++)
        status = bind_over_column(binder, scope, window->partition_by.items[k], &partition[k]);
    uint32_t order_field = 0;
    const AstOrderItem *order =
        window->order_by.count ? (const AstOrderItem *)window->order_by.items[0] : NULL;
    if (status == JOINERY_OK && window->order_by.count != 1)
        status = bind_error(binder, JOINERY_ERROR_UNSUPPORTED, position,
                            "The window can only be ordered by a single time column.");
    if (status == JOINERY_OK)
        status = bind_over_column(binder, scope, order->expr, &order_field);
    if (status == JOINERY_OK && order->descending)
        status = bind_error(binder, JOINERY_ERROR_UNSUPPORTED, order->expr->position,
                            "The window can only be ordered in ASCENDING mode.");
    if (status == JOINERY_OK &&
        scope->columns[order_field].type.time_attribute == TIME_ATTRIBUTE_NONE)
        status = bind_error(binder, JOINERY_ERROR_UNSUPPORTED, order->expr->position,
                            "OVER windows' ordering in stream mode must be defined on a time "
                            "attribute.");
    bool rows = window->has_frame && window->rows;
    int64_t preceding = -1;
    if (status == JOINERY_OK && window->has_frame) {
        if (window->upper.kind != AST_FRAME_CURRENT_ROW ||
            (window->lower.kind != AST_FRAME_UNBOUNDED_PRECEDING &&
             window->lower.kind != AST_FRAME_PRECEDING))
            status =
                bind_error(binder, JOINERY_ERROR_UNSUPPORTED,
                           window->upper.kind != AST_FRAME_CURRENT_ROW ? window->upper.position
                                                                       : window->lower.position,
                           "OVER RANGE FOLLOWING windows are not supported yet.");
        else if (window->lower.kind == AST_FRAME_PRECEDING)
            status = bind_over_offset(binder, scope, &window->lower, rows, &preceding);
    }
    binder->over = over;
    if (status != JOINERY_OK)
        return status == JOINERY_ERROR_NO_MEMORY
                   ? bind_error(binder, status, position, "out of memory")
                   : status;
    if (!over->resolved) {
        over->resolved = true;
        over->partition = partition;
        over->partition_count = partition_count;
        over->order_field = order_field;
        over->rows = rows;
        over->preceding = preceding;
        return JOINERY_OK;
    }
    bool same = over->partition_count == partition_count && over->order_field == order_field &&
                over->rows == rows && over->preceding == preceding;
    for (uint32_t k = 0; same && k < partition_count; k++)
        same = over->partition[k] == partition[k];
    if (!same)
        return bind_error(binder, JOINERY_ERROR_UNSUPPORTED, position,
                          "All aggregates must be computed on the same window.");
    return JOINERY_OK;
}

static void bind_over_mark(uint64_t *used, uint32_t field)
{
    used[field / 64] |= (uint64_t)1 << (field % 64);
}

static bool bind_over_marked(const uint64_t *used, uint32_t field)
{
    return (used[field / 64] >> (field % 64)) & 1;
}

int bind_over_select(Binder *binder, OverBinding *over, const Scope *scope, SelectList *list,
                     PlanNode **node)
{
    Arena *arena = binder->arena;
    uint32_t input_count = scope->count;
    uint32_t call_count = over->calls.call_count;
    uint32_t words = (input_count + call_count) / 64 + 1;
    uint64_t *used = arena_calloc(arena, words, sizeof(uint64_t));
    int32_t *mapping = arena_calloc(arena, input_count + call_count + 1, sizeof(int32_t));
    Expr **pre_exprs = arena_calloc(arena, input_count + call_count + 1, sizeof(Expr *));
    const char **pre_names = arena_calloc(arena, input_count + call_count + 1, sizeof(char *));
    uint32_t *arguments = arena_calloc(arena, call_count + 1, sizeof(uint32_t));
    if (!used || !mapping || !pre_exprs || !pre_names || !arguments)
        return bind_error(binder, JOINERY_ERROR_NO_MEMORY, (SourcePosition){0}, "out of memory");
    /* the columns read: SELECT items, the window's keys, the calls' column arguments */
    for (uint32_t i = 0; i < list->count; i++)
        expr_collect_inputs(list->exprs[i], used);
    for (uint32_t k = 0; k < over->partition_count; k++)
        bind_over_mark(used, over->partition[k]);
    bind_over_mark(used, over->order_field);
    for (uint32_t i = 0; i < call_count; i++) {
        const Expr *argument = over->calls.calls[i].argument;
        if (argument && argument->kind == EXPR_INPUT_REF)
            bind_over_mark(used, argument->input_index);
        else if (argument)
            expr_collect_inputs(argument, used);
    }
    uint32_t pre_count = 0;
    for (uint32_t f = 0; f < input_count; f++) {
        mapping[f] = -1;
        if (f >= 64 * words || !bind_over_marked(used, f))
            continue;
        mapping[f] = (int32_t)pre_count;
        pre_exprs[pre_count] = expr_make_input_ref(arena, f, scope->columns[f].type);
        pre_names[pre_count++] = scope->columns[f].name;
    }
    uint32_t read_count = pre_count;
    for (uint32_t i = 0; i < call_count; i++) {
        Expr *argument = over->calls.calls[i].argument;
        if (!argument)
            continue;
        if (argument->kind == EXPR_INPUT_REF) {
            arguments[i] = (uint32_t)mapping[argument->input_index];
            continue;
        }
        arguments[i] = pre_count;
        pre_exprs[pre_count] = argument;
        pre_names[pre_count] = arena_printf(arena, "$f%u", pre_count);
        pre_count++;
    }
    PlanNode *input = *node;
    if (pre_count != input_count || read_count != input_count) {
        input = bind_project(binder, input, pre_exprs, pre_names, pre_count);
        if (!input)
            return binder->diag->status;
    }
    PlanNode *window =
        bind_new_node(binder, PLAN_LOGICAL_OVER_AGGREGATE, 1, pre_count + call_count);
    if (!window)
        return binder->diag->status;
    window->inputs[0] = input;
    memcpy(window->fields, input->fields, pre_count * sizeof(PlanField));
    window->aggregate.group_keys = arena_calloc(arena, over->partition_count + 1, sizeof(uint32_t));
    window->aggregate.calls = arena_calloc(arena, call_count + 1, sizeof(PlanAggregateCall));
    if (!window->aggregate.group_keys || !window->aggregate.calls)
        return bind_error(binder, JOINERY_ERROR_NO_MEMORY, (SourcePosition){0}, "out of memory");
    for (uint32_t k = 0; k < over->partition_count; k++)
        window->aggregate.group_keys[k] = (uint32_t)mapping[over->partition[k]];
    window->aggregate.group_key_count = over->partition_count;
    window->aggregate.time_field = (uint32_t)mapping[over->order_field];
    window->aggregate.proctime =
        input->fields[window->aggregate.time_field].type.time_attribute == TIME_ATTRIBUTE_PROCTIME;
    window->aggregate.over_rows = over->rows;
    window->aggregate.over_preceding = over->preceding;
    window->aggregate.call_count = call_count;
    for (uint32_t i = 0; i < call_count; i++) {
        const BoundAggregate *call = &over->calls.calls[i];
        PlanAggregateCall *plan_call = &window->aggregate.calls[i];
        plan_call->kind = call->kind;
        plan_call->distinct = call->distinct;
        plan_call->argument = arguments[i];
        plan_call->result_type = call->result_type;
        plan_call->name = arena_printf(arena, "w0$o%u", i);
        if (call->separator) {
            /* LISTAGG's constant separator: not a column here yet */
            return bind_error(binder, JOINERY_ERROR_UNSUPPORTED, (SourcePosition){0},
                              "LISTAGG with a separator in an OVER window is not supported yet");
        }
        window->fields[pre_count + i].name = plan_call->name;
        window->fields[pre_count + i].type = call->result_type;
        mapping[input_count + i] = (int32_t)(pre_count + i);
    }
    for (uint32_t i = 0; i < list->count; i++) {
        list->exprs[i] = expr_remap_inputs(arena, list->exprs[i], mapping);
        if (!list->exprs[i])
            return bind_error(binder, JOINERY_ERROR_NO_MEMORY, (SourcePosition){0},
                              "out of memory");
    }
    *node = bind_project(binder, window, list->exprs, list->names, list->count);
    return *node ? JOINERY_OK : binder->diag->status;
}
