/*
 * window_properties.c - window fields and window join conditions (see
 * window_properties.h).
 */
#include "engine/plan/window_properties.h"

enum { WINDOW_TRACE_MAX_DEPTH = 512 };

WindowFieldRole plan_window_field(const PlanNode *node, uint32_t field, const WindowSpec **spec)
{
    for (int depth = 0; node && depth < WINDOW_TRACE_MAX_DEPTH; depth++) {
        if (field >= node->field_count)
            return WINDOW_FIELD_NONE;
        switch (node->kind) {
        case PLAN_LOGICAL_TABLE_FUNCTION_SCAN:
        case PLAN_WINDOW_TABLE_FUNCTION:
        case PLAN_SESSION_WINDOW_TABLE_FUNCTION: {
            uint32_t inputs = node->inputs[0]->field_count;
            if (field < inputs) {
                node = node->inputs[0];
                continue;
            }
            *spec = &node->window.spec;
            return (WindowFieldRole)(WINDOW_FIELD_START + (field - inputs));
        }
        case PLAN_LOGICAL_PROJECT:
        case PLAN_CALC: {
            const Expr *project = node->calc.projects[field];
            if (project->kind != EXPR_INPUT_REF)
                return WINDOW_FIELD_NONE;
            field = project->input_index;
            node = node->inputs[0];
            continue;
        }
        case PLAN_WINDOW_AGGREGATE: {
            /* group keys, calls, then window_start, window_end [, window_time] */
            uint32_t first = node->aggregate.group_key_count + node->aggregate.call_count;
            if (field < first)
                return WINDOW_FIELD_NONE;
            *spec = &node->aggregate.window;
            return (WindowFieldRole)(WINDOW_FIELD_START + (field - first));
        }
        case PLAN_WINDOW_RANK:
        case PLAN_WINDOW_DEDUPLICATE:
            if (field >= node->inputs[0]->field_count)
                return WINDOW_FIELD_NONE; /* the rank number */
            node = node->inputs[0];
            continue;
        case PLAN_LOGICAL_FILTER:
        case PLAN_LOGICAL_WATERMARK_ASSIGNER:
        case PLAN_WATERMARK_ASSIGNER:
        case PLAN_EXCHANGE:
            node = node->inputs[0];
            continue;
        case PLAN_LOGICAL_JOIN:
            /* a window join's output keeps both inputs' window columns (a window join can
               follow a window join, as in Flink) */
            if (!plan_join_is_window_join(node))
                return WINDOW_FIELD_NONE;
            /* fall through */
        case PLAN_WINDOW_JOIN: {
            uint32_t left = node->inputs[0]->field_count;
            if (field < left) {
                node = node->inputs[0];
            } else {
                field -= left;
                node = node->inputs[1];
            }
            continue;
        }
        default:
            return WINDOW_FIELD_NONE;
        }
    }
    return WINDOW_FIELD_NONE;
}

/* Records `conjunct` when it is =(left bound, right bound) of the same role. */
static void match_conjunct(const PlanNode *join, const Expr *conjunct, WindowJoinMatch *match)
{
    if (conjunct->kind != EXPR_CALL || conjunct->call.function != FUNCTION_EQUAL ||
        conjunct->call.arg_count != 2)
        return;
    const Expr *a = conjunct->call.args[0], *b = conjunct->call.args[1];
    if (a->kind != EXPR_INPUT_REF || b->kind != EXPR_INPUT_REF)
        return;
    uint32_t left_count = join->inputs[0]->field_count;
    uint32_t x = a->input_index, y = b->input_index;
    if (x >= left_count && y < left_count) {
        uint32_t swap = x;
        x = y;
        y = swap;
    }
    if (!(x < left_count && y >= left_count))
        return;
    const WindowSpec *left_spec = NULL, *right_spec = NULL;
    WindowFieldRole left = plan_window_field(join->inputs[0], x, &left_spec);
    WindowFieldRole right = plan_window_field(join->inputs[1], y - left_count, &right_spec);
    if (left != right)
        return;
    if (left == WINDOW_FIELD_START && !match->starts_equal) {
        match->starts_equal = true;
        match->left_start = x;
        match->right_start = y - left_count;
        match->left_spec = left_spec;
        match->right_spec = right_spec;
    } else if (left == WINDOW_FIELD_END && !match->ends_equal) {
        match->ends_equal = true;
        match->left_end = x;
        match->right_end = y - left_count;
        if (!match->left_spec) {
            match->left_spec = left_spec;
            match->right_spec = right_spec;
        }
    }
}

static void match_condition(const PlanNode *join, const Expr *condition, WindowJoinMatch *match,
                            int depth)
{
    if (!condition || depth > WINDOW_TRACE_MAX_DEPTH)
        return;
    if (condition->kind == EXPR_CALL && condition->call.function == FUNCTION_AND) {
        for (uint32_t i = 0; i < condition->call.arg_count; i++)
            match_condition(join, condition->call.args[i], match, depth + 1);
        return;
    }
    match_conjunct(join, condition, match);
}

void plan_window_join_match(const PlanNode *join, const Expr *condition, WindowJoinMatch *match)
{
    *match = (WindowJoinMatch){0};
    match_condition(join, condition, match, 0);
}

bool plan_join_is_window_join(const PlanNode *join)
{
    if (join->kind != PLAN_LOGICAL_JOIN)
        return false;
    WindowJoinMatch match;
    plan_window_join_match(join, join->join.condition, &match);
    return match.starts_equal && match.ends_equal;
}
