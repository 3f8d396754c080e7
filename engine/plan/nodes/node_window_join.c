/*
 * node_window_join.c - WindowJoin, Flink's StreamPhysicalWindowJoin: a join
 * of two windowed inputs whose condition equates both window_start and
 * window_end (plan_join_is_window_join), so that rows meet only within one
 * window. A LogicalJoin becomes it in its conversion (node_join.c calls
 * plan_convert_window_join); the MultiJoin rule never fuses it.
 *
 * Invariants: both inputs have the same window spec (else Flink's error);
 * the window equalities are not part of join.condition any more (Flink
 * prints where=[...] without them); the other equalities of plain fields of
 * both sides are the hash keys (Exchange(hash[keys]), single without any),
 * every other conjunct is the residual. Output: left ++ right fields (SEMI /
 * ANTI, from IN / EXISTS subqueries: the left fields), append-only; both
 * inputs must be append-only.
 */
#include <string.h>

#include "engine/plan/cost.h"
#include "engine/plan/nodes/nodes.h"
#include "engine/plan/window_properties.h"

static void explain_side_window(StrBuf *out, const char *label, const WindowSpec *spec,
                                const PlanNode *input, uint32_t start, uint32_t end)
{
    strbuf_printf(out, "%s=[%s(win_start=[%s], win_end=[%s]", label, window_kind_name(spec->kind),
                  input->fields[start].name, input->fields[end].name);
    window_spec_append_lengths(out, spec, true);
    strbuf_append_cstr(out, ")]");
}

static void explain_window_join(ExplainContext *context, const PlanNode *node)
{
    StrBuf *out = context->out;
    explain_side_window(out, "leftWindow", &node->window_join.left_window, node->inputs[0],
                        node->window_join.left_window_start, node->window_join.left_window_end);
    strbuf_append_cstr(out, ", ");
    explain_side_window(out, "rightWindow", &node->window_join.right_window, node->inputs[1],
                        node->window_join.right_window_start, node->window_join.right_window_end);
    strbuf_printf(out, ", joinType=[%s], where=[", join_type_name(node->window_join.join_type));
    if (node->window_join.condition)
        explain_expr(context, node->window_join.condition,
                     plan_join_input_names(context->arena, node));
    else
        strbuf_append_cstr(out, "true");
    strbuf_append_cstr(out, "], select=[");
    explain_field_list(context, node);
    strbuf_append_cstr(out, "]");
}

static double estimate_window_join(const PlanNode *node)
{
    double rows[2] = {cost_node_rows(node->inputs[0]), cost_node_rows(node->inputs[1])};
    double selectivity = cost_join_selectivity(node->window_join.condition, node->inputs, 2, rows);
    return cost_join_rows(node->window_join.join_type, rows[0], rows[1], selectivity);
}

static int derive_window_join(PlannerContext *context, PlanNode *node)
{
    for (uint32_t i = 0; i < 2; i++)
        if (node->inputs[i]->changelog_mode != CHANGELOG_INSERT)
            return diag_error(context->diag, JOINERY_ERROR_UNSUPPORTED,
                              "WindowJoin doesn't support consuming update and delete changes "
                              "which is produced by node %s",
                              plan_kind_name(node->inputs[i]->kind));
    node->changelog_mode = CHANGELOG_INSERT;
    node->row_count = cost_node_estimate(node);
    return JOINERY_OK;
}

static bool window_join_calls_current_watermark(const PlanNode *node)
{
    return expr_calls(node->window_join.condition, FUNCTION_CURRENT_WATERMARK);
}

/* "TUMBLE(size=[15 min])" for Flink's error naming both window table functions. */
static const char *window_text(Arena *arena, const WindowSpec *spec)
{
    StrBuf text = STRBUF_INIT;
    strbuf_printf(&text, "%s(", window_kind_name(spec->kind));
    window_spec_append_lengths(&text, spec, false);
    strbuf_append_char(&text, ')');
    const char *result = arena_strdup(arena, strbuf_cstr(&text));
    strbuf_free(&text);
    return result ? result : "?";
}

/* True when `conjunct` is the equality of the matched window bounds `left` and `right`. */
static bool is_bound_equality(const Expr *conjunct, uint32_t left, uint32_t right)
{
    if (conjunct->kind != EXPR_CALL || conjunct->call.function != FUNCTION_EQUAL ||
        conjunct->call.arg_count != 2)
        return false;
    const Expr *a = conjunct->call.args[0], *b = conjunct->call.args[1];
    if (a->kind != EXPR_INPUT_REF || b->kind != EXPR_INPUT_REF)
        return false;
    return (a->input_index == left && b->input_index == right) ||
           (a->input_index == right && b->input_index == left);
}

/* Key fields hash alike when they have one representation: the same type, scale aside. */
static bool same_key_type(DataType a, DataType b)
{
    return a.id == b.id && (a.id != TYPE_DECIMAL || a.scale == b.scale);
}

int plan_convert_window_join(PlannerContext *context, PlanNode *node, PlanNode **result)
{
    Arena *arena = context->arena;
    WindowJoinMatch match;
    plan_window_join_match(node, node->join.condition, &match);
    if (!window_spec_equal(match.left_spec, match.right_spec))
        return diag_error(context->diag, JOINERY_ERROR_UNSUPPORTED,
                          "Currently, window join doesn't support different window table "
                          "function of left and right inputs.\nThe left window table function "
                          "is %s, the right window table function is %s.",
                          window_text(arena, match.left_spec),
                          window_text(arena, match.right_spec));
    if (match.left_spec->kind == WINDOW_SESSION)
        return diag_error(context->diag, JOINERY_ERROR_UNSUPPORTED,
                          "A window join directly after a SESSION window table function is not "
                          "supported (as in Flink: the window table function has to be TUMBLE, "
                          "HOP or CUMULATE)");
    PlanNode *left, *right;
    int status = physical_convert(context, node->inputs[0], &left);
    if (status == JOINERY_OK)
        status = physical_convert(context, node->inputs[1], &right);
    if (status != JOINERY_OK)
        return status;
    uint32_t left_count = left->field_count, total = left_count + right->field_count;
    RuleConjuncts split = {0};
    if (rule_split_conjuncts(arena, node->join.condition, &split) != JOINERY_OK)
        return JOINERY_ERROR_NO_MEMORY;
    uint32_t *left_keys = arena_calloc(arena, split.count + 1, sizeof(uint32_t));
    uint32_t *right_keys = arena_calloc(arena, split.count + 1, sizeof(uint32_t));
    bool *null_safe = arena_calloc(arena, split.count + 1, sizeof(bool));
    Expr **residual = arena_calloc(arena, split.count + 1, sizeof(Expr *));
    Expr **printed = arena_calloc(arena, split.count + 1, sizeof(Expr *));
    if (!left_keys || !right_keys || !null_safe || !residual || !printed)
        return JOINERY_ERROR_NO_MEMORY;
    uint32_t key_count = 0, residual_count = 0, printed_count = 0;
    for (uint32_t i = 0; i < split.count; i++) {
        Expr *conjunct = split.items[i];
        if (is_bound_equality(conjunct, match.left_start, left_count + match.right_start) ||
            is_bound_equality(conjunct, match.left_end, left_count + match.right_end))
            continue;
        printed[printed_count++] = conjunct;
        bool equi = conjunct->kind == EXPR_CALL && conjunct->call.arg_count == 2 &&
                    (conjunct->call.function == FUNCTION_EQUAL ||
                     conjunct->call.function == FUNCTION_IS_NOT_DISTINCT_FROM) &&
                    conjunct->call.args[0]->kind == EXPR_INPUT_REF &&
                    conjunct->call.args[1]->kind == EXPR_INPUT_REF;
        if (equi) {
            uint32_t a = conjunct->call.args[0]->input_index;
            uint32_t b = conjunct->call.args[1]->input_index;
            if (a >= left_count && b < left_count) {
                uint32_t swap = a;
                a = b;
                b = swap;
            }
            /* keys hash alike only when both sides have the same type */
            if (a < left_count && b >= left_count &&
                same_key_type(left->fields[a].type, right->fields[b - left_count].type)) {
                left_keys[key_count] = a;
                right_keys[key_count] = b - left_count;
                null_safe[key_count] = conjunct->call.function == FUNCTION_IS_NOT_DISTINCT_FROM;
                key_count++;
                continue;
            }
        }
        residual[residual_count++] = conjunct;
    }
    /* a semi / anti window join emits the left input's fields only */
    uint32_t output_count = join_type_emits_right(node->join.join_type) ? total : left_count;
    PlanNode *join = physical_new_node(context, PLAN_WINDOW_JOIN, 2, output_count);
    if (!join)
        return JOINERY_ERROR_NO_MEMORY;
    memcpy(join->fields, node->fields, output_count * sizeof(PlanField));
    join->window_join.join_type = node->join.join_type;
    join->window_join.condition =
        printed_count ? expr_make_and(arena, printed, printed_count) : NULL;
    join->window_join.left_keys = left_keys;
    join->window_join.right_keys = right_keys;
    join->window_join.null_safe = null_safe;
    join->window_join.key_count = key_count;
    join->window_join.residual =
        residual_count ? expr_make_and(arena, residual, residual_count) : NULL;
    join->window_join.left_window = *match.left_spec;
    join->window_join.right_window = *match.right_spec;
    join->window_join.left_window_start = match.left_start;
    join->window_join.left_window_end = match.left_end;
    join->window_join.right_window_start = match.right_start;
    join->window_join.right_window_end = match.right_end;
    join->inputs[0] = plan_make_exchange(context, left, left_keys, key_count);
    join->inputs[1] = plan_make_exchange(context, right, right_keys, key_count);
    if (!join->inputs[0] || !join->inputs[1])
        return JOINERY_ERROR_NO_MEMORY;
    *result = join;
    return JOINERY_OK;
}

const PlanKindInfo plan_kind_window_join = {
    .kind = PLAN_WINDOW_JOIN,
    .name = "WindowJoin",
    .physical = true,
    .stateful = true,
    .explain = explain_window_join,
    .derive = derive_window_join,
    .calls_current_watermark = window_join_calls_current_watermark,
    .estimate = estimate_window_join,
    .trace_field = cost_trace_to_inputs,
};
