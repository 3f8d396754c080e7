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
 * CURRENT ROW (the SQL default with ORDER BY). PARTITION BY takes columns or
 * expressions, ORDER BY a column or a time-attribute expression (PROCTIME()).
 *
 * The plan: one LogicalOverAggregate over the FROM (and WHERE) with the SELECT
 * items over its input fields and the calls' results (w0$o0, w0$o1, ...),
 * printed as the LogicalProject Flink's AST shows; its conversion adds the
 * Calcs and the Exchange (plan/nodes/node_over_aggregate.c).
 */
#include <string.h>
#include <strings.h>

#include "engine/plan/bind_internal.h"
#include "engine/plan/interval_bounds.h"
#include "engine/plan/nodes/nodes.h"
#include "engine/sql/ast_depth.h"
#include "engine/udf/udf.h"

static bool bind_item_has_over(Binder *binder, const AstExpr *ast, int depth)
{
    if (!ast || depth > SQL_MAX_DEPTH)
        return false;
    switch (ast->kind) {
    case AST_EXPR_FUNCTION:
        if (ast->function.over && (function_is_aggregate_name(ast->function.name) ||
                                   bind_names_udf_aggregate(binder, ast->function.name)))
            return true;
        for (size_t i = 0; i < ast->function.args.count; i++)
            if (bind_item_has_over(binder, ast->function.args.items[i], depth + 1))
                return true;
        return false;
    case AST_EXPR_UNARY:
        return bind_item_has_over(binder, ast->unary.operand, depth + 1);
    case AST_EXPR_BINARY:
        return bind_item_has_over(binder, ast->binary.left, depth + 1) ||
               bind_item_has_over(binder, ast->binary.right, depth + 1);
    case AST_EXPR_CAST:
        return bind_item_has_over(binder, ast->cast.operand, depth + 1);
    case AST_EXPR_CASE:
        if (bind_item_has_over(binder, ast->case_expr.operand, depth + 1) ||
            bind_item_has_over(binder, ast->case_expr.else_result, depth + 1))
            return true;
        for (size_t i = 0; i < ast->case_expr.conditions.count; i++)
            if (bind_item_has_over(binder, ast->case_expr.conditions.items[i], depth + 1) ||
                bind_item_has_over(binder, ast->case_expr.results.items[i], depth + 1))
                return true;
        return false;
    case AST_EXPR_IS_NULL:
        return bind_item_has_over(binder, ast->is_null.operand, depth + 1);
    default:
        return false;
    }
}

bool bind_query_has_over_aggregate(Binder *binder, const AstQuery *query)
{
    for (size_t i = 0; i < query->select.items.count; i++) {
        const AstSelectItem *item = query->select.items.items[i];
        if (bind_item_has_over(binder, item->expr, 0))
            return true;
    }
    return false;
}

/* The offset of `n PRECEDING`: a row count for ROWS, an interval (ms) for RANGE. */
static int bind_over_offset(Binder *binder, const Scope *scope, const AstFrameBound *bound,
                            bool rows, int64_t *offset, Expr **written)
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
        *written = expr;
        return JOINERY_OK;
    }
    if (!literal || expr->type.id != TYPE_INTERVAL_DAY_TIME || expr->literal.i < 0)
        return bind_error(binder, JOINERY_ERROR_VALIDATE, bound->position,
                          "RANGE value of an OVER window on a time attribute must be a "
                          "non-negative day-time INTERVAL constant");
    *offset = expr->literal.i;
    *written = expr;
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
    Expr **partition_exprs = arena_calloc(binder->arena, partition_count + 1, sizeof(Expr *));
    int status = partition && partition_exprs ? JOINERY_OK : JOINERY_ERROR_NO_MEMORY;
    for (uint32_t k = 0; status == JOINERY_OK && k < partition_count; k++) {
        /* a column, or an expression computed below the exchange */
        status = bind_expr(binder, scope, window->partition_by.items[k], &partition_exprs[k]);
        if (status == JOINERY_OK && partition_exprs[k]->kind == EXPR_INPUT_REF) {
            partition[k] = partition_exprs[k]->input_index;
            partition_exprs[k] = NULL;
        }
    }
    uint32_t order_field = 0;
    const AstOrderItem *order =
        window->order_by.count ? (const AstOrderItem *)window->order_by.items[0] : NULL;
    if (status == JOINERY_OK && window->order_by.count != 1)
        status = bind_error(binder, JOINERY_ERROR_UNSUPPORTED, position,
                            "The window can only be ordered by a single time column.");
    /* a column, or an expression that is a time attribute (PROCTIME()) */
    Expr *order_expr = NULL;
    if (status == JOINERY_OK)
        status = bind_expr(binder, scope, order->expr, &order_expr);
    if (status == JOINERY_OK && order->descending)
        status = bind_error(binder, JOINERY_ERROR_UNSUPPORTED, order->expr->position,
                            "The window can only be ordered in ASCENDING mode.");
    /* a time attribute that came through a regular join is a plain TIMESTAMP there (Flink
       materializes it), so it orders no OVER window */
    bool materialized =
        status == JOINERY_OK && order_expr->kind == EXPR_INPUT_REF &&
        order_expr->type.time_attribute != TIME_ATTRIBUTE_NONE && over->input &&
        interval_time_materialized(binder->arena, over->input, order_expr->input_index);
    if (status == JOINERY_OK &&
        (order_expr->type.time_attribute == TIME_ATTRIBUTE_NONE || materialized))
        status = bind_error(binder, JOINERY_ERROR_UNSUPPORTED, order->expr->position,
                            "OVER windows' ordering in stream mode must be defined on a time "
                            "attribute.");
    if (status == JOINERY_OK && order_expr->kind == EXPR_INPUT_REF) {
        order_field = order_expr->input_index;
        order_expr = NULL;
    }
    bool rows = window->has_frame && window->rows;
    int64_t preceding = -1;
    Expr *offset = NULL;
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
            status = bind_over_offset(binder, scope, &window->lower, rows, &preceding, &offset);
    }
    binder->over = over;
    if (status != JOINERY_OK)
        return status == JOINERY_ERROR_NO_MEMORY
                   ? bind_error(binder, status, position, "out of memory")
                   : status;
    if (!over->resolved) {
        over->resolved = true;
        over->partition = partition;
        over->partition_exprs = partition_exprs;
        over->partition_count = partition_count;
        over->order_field = order_field;
        over->order_expr = order_expr;
        over->rows = rows;
        over->preceding = preceding;
        over->offset = offset;
        return JOINERY_OK;
    }
    bool same = over->partition_count == partition_count && over->order_field == order_field &&
                (over->order_expr == NULL) == (order_expr == NULL) &&
                (!order_expr || expr_equals(over->order_expr, order_expr)) && over->rows == rows &&
                over->preceding == preceding;
    for (uint32_t k = 0; same && k < partition_count; k++)
        same = over->partition_exprs[k] || partition_exprs[k]
                   ? over->partition_exprs[k] && partition_exprs[k] &&
                         expr_equals(over->partition_exprs[k], partition_exprs[k])
                   : over->partition[k] == partition[k];
    if (!same)
        return bind_error(binder, JOINERY_ERROR_UNSUPPORTED, position,
                          "All aggregates must be computed on the same window.");
    return JOINERY_OK;
}

int bind_over_select(Binder *binder, OverBinding *over, const Scope *scope, SelectList *list,
                     PlanNode **node)
{
    (void)scope;
    Arena *arena = binder->arena;
    uint32_t call_count = over->calls.call_count;
    PlanNode *window = bind_new_node(binder, PLAN_LOGICAL_OVER_AGGREGATE, 1, list->count);
    if (!window)
        return binder->diag->status;
    window->inputs[0] = *node;
    for (uint32_t i = 0; i < list->count; i++) {
        window->fields[i].name = arena_strdup(arena, list->names[i]);
        window->fields[i].type = list->exprs[i]->type;
    }
    plan_uniquify_names(arena, window->fields, list->count);
    window->aggregate.over_projects = list->exprs;
    window->aggregate.group_keys = over->partition;
    window->aggregate.group_key_count = over->partition_count;
    window->aggregate.over_partition = over->partition_exprs;
    window->aggregate.time_field = over->order_field;
    window->aggregate.over_order = over->order_expr;
    window->aggregate.proctime =
        (over->order_expr ? over->order_expr->type : (*node)->fields[over->order_field].type)
            .time_attribute == TIME_ATTRIBUTE_PROCTIME;
    window->aggregate.over_rows = over->rows;
    window->aggregate.over_preceding = over->preceding;
    window->aggregate.over_offset = over->offset;
    window->aggregate.call_count = call_count;
    window->aggregate.calls = arena_calloc(arena, call_count + 1, sizeof(PlanAggregateCall));
    window->aggregate.over_arguments = arena_calloc(arena, call_count + 1, sizeof(Expr *));
    window->aggregate.over_separators = arena_calloc(arena, call_count + 1, sizeof(Expr *));
    window->aggregate.over_more = arena_calloc(arena, call_count + 1, sizeof(Expr **));
    if (!window->aggregate.calls || !window->aggregate.over_arguments ||
        !window->aggregate.over_separators || !window->aggregate.over_more)
        return bind_error(binder, JOINERY_ERROR_NO_MEMORY, (SourcePosition){0}, "out of memory");
    for (uint32_t i = 0; i < call_count; i++) {
        const BoundAggregate *call = &over->calls.calls[i];
        PlanAggregateCall *plan_call = &window->aggregate.calls[i];
        plan_call->kind = call->kind;
        plan_call->distinct = call->distinct;
        plan_call->result_type = call->result_type;
        plan_call->name = arena_printf(arena, "w0$o%u", i);
        window->aggregate.over_arguments[i] = call->argument;
        window->aggregate.over_separators[i] = call->separator;
        plan_call->has_separator = call->separator != NULL;
        plan_call->udf = call->udf;
        plan_call->more_argument_count = call->more_count;
        window->aggregate.over_more[i] = call->more;
    }
    *node = window;
    return JOINERY_OK;
}
