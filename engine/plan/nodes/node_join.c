/*
 * node_join.c - LogicalJoin and Join: the regular streaming join of two
 * inputs (Flink's StreamingJoinOperator), keyed by its equi keys, and the
 * semi / anti join of IN / EXISTS subqueries (Flink's
 * StreamingSemiAntiJoinOperator, printed Join(joinType=[LeftSemiJoin |
 * LeftAntiJoin])). A semi / anti join's fields are its left input's; its
 * condition reads the left input's fields, then the right input's.
 */
#include <string.h>

#include <stdio.h>

#include "engine/plan/cost.h"
#include "engine/plan/interval_bounds.h"
#include "engine/plan/nodes/nodes.h"
#include "engine/plan/physical.h"
#include "engine/plan/rules/rules.h"
#include "engine/plan/window_properties.h"

static void explain_logical_join(ExplainContext *context, const PlanNode *node)
{
    strbuf_append_cstr(context->out, "condition=[");
    if (node->join.condition)
        explain_expr(context, node->join.condition, explain_input_names(context, node));
    else
        strbuf_append_cstr(context->out, "true");
    strbuf_printf(context->out, "], joinType=[%s]", join_type_logical_name(node->join.join_type));
    if (node->join.state_ttl_hint)
        strbuf_printf(context->out, ", stateTtlHints=[[%s]]", node->join.state_ttl_hint);
}

static void explain_join(ExplainContext *context, const PlanNode *node)
{
    StrBuf *out = context->out;
    strbuf_printf(out, "joinType=[%s], where=[", join_type_name(node->join.join_type));
    if (node->join.condition)
        explain_expr(context, node->join.condition, plan_join_input_names(context->arena, node));
    else
        strbuf_append_cstr(out, "true");
    strbuf_append_cstr(out, "], select=[");
    explain_field_list(context, node);
    strbuf_printf(out, "], leftInputSpec=[%s], rightInputSpec=[%s]",
                  join_input_spec_name(node->join.left_spec),
                  join_input_spec_name(node->join.right_spec));
    explain_ttl(context, node->state_ttl_millis, node->state_ttl_right_millis);
}

static JoinInputSpec input_spec(const PlanNode *input, const uint32_t *keys, uint32_t key_count)
{
    if (input->unique_key_count == 0)
        return JOIN_INPUT_NO_UNIQUE_KEY;
    for (uint32_t i = 0; i < input->unique_key_count; i++)
        if (plan_key_within(&input->unique_keys[i], keys, key_count))
            return JOIN_INPUT_JOIN_KEY_CONTAINS_UNIQUE_KEY;
    return JOIN_INPUT_HAS_UNIQUE_KEY;
}

static double estimate_join(const PlanNode *node)
{
    double rows[2] = {cost_node_rows(node->inputs[0]), cost_node_rows(node->inputs[1])};
    double selectivity = cost_join_selectivity(node->join.condition, node->inputs, 2, rows);
    return cost_join_rows(node->join.join_type, rows[0], rows[1], selectivity);
}

static int derive_join(PlannerContext *context, PlanNode *node)
{
    Arena *arena = context->arena;
    int64_t default_ttl = context->config->state_ttl_millis;
    PlanNode *left = node->inputs[0], *right = node->inputs[1];
    uint32_t left_count = left->field_count;
    node->join.left_spec = input_spec(left, node->join.left_keys, node->join.key_count);
    node->join.right_spec = input_spec(right, node->join.right_keys, node->join.key_count);
    /* an inner join forwards its inputs' row kinds; an outer join updates its
       NULL-padded rows, which Flink declares as [I,UB,UA,D] */
    bool semi_anti = !join_type_emits_right(node->join.join_type);
    node->changelog_mode = CHANGELOG_INSERT | left->changelog_mode | right->changelog_mode;
    if (node->join.join_type == JOIN_TYPE_SEMI)
        /* left rows with their kinds, and with the right row's kind when its match comes
           or goes */
        ;
    else if (node->join.join_type == JOIN_TYPE_ANTI)
        /* a right row's arrival deletes the left rows it matches first */
        node->changelog_mode |= CHANGELOG_DELETE;
    else if (node->join.join_type != JOIN_TYPE_INNER)
        node->changelog_mode |= CHANGELOG_UPDATE_BEFORE | CHANGELOG_UPDATE_AFTER | CHANGELOG_DELETE;
    /* an upsert input's change goes out as the retraction of the row it replaces and the
       new row (rules/drop_changelog_normalize.c) */
    if (node->join.upsert_left || node->join.upsert_right)
        node->changelog_mode |= CHANGELOG_UPDATE_BEFORE | CHANGELOG_UPDATE_AFTER | CHANGELOG_DELETE;
    node->row_count = cost_node_estimate(node);
    /* unique keys: each side's key survives when the other side's join key is unique */
    bool right_unique_on_key = node->join.right_spec == JOIN_INPUT_JOIN_KEY_CONTAINS_UNIQUE_KEY;
    bool left_unique_on_key = node->join.left_spec == JOIN_INPUT_JOIN_KEY_CONTAINS_UNIQUE_KEY;
    if ((right_unique_on_key || semi_anti) && !join_type_preserves_right(node->join.join_type))
        /* a semi / anti join emits each left row at most once per copy */
        for (uint32_t k = 0; k < left->unique_key_count; k++)
            derive_add_unique_key(arena, node, left->unique_keys[k].fields,
                                  left->unique_keys[k].count);
    if (left_unique_on_key && !semi_anti && !join_type_preserves_left(node->join.join_type))
        for (uint32_t k = 0; k < right->unique_key_count; k++) {
            uint32_t fields[64];
            uint32_t count = right->unique_keys[k].count < 64 ? right->unique_keys[k].count : 64;
            for (uint32_t f = 0; f < count; f++)
                fields[f] = left_count + right->unique_keys[k].fields[f];
            derive_add_unique_key(arena, node, fields, count);
        }
    if (!node->ttl_from_hint)
        node->state_ttl_millis = node->state_ttl_right_millis = -1;
    if (node->state_ttl_millis < 0)
        node->state_ttl_millis = default_ttl;
    if (node->state_ttl_right_millis < 0)
        node->state_ttl_right_millis = default_ttl;
    return JOINERY_OK;
}

/* "TIMESTAMP(3) *ROWTIME*" as Flink's messages write a rowtime type. */
static const char *rowtime_type_text(DataType type, char *buffer, size_t size)
{
    snprintf(buffer, size, "%s(%d) *ROWTIME*",
             type.id == TYPE_TIMESTAMP_LTZ ? "TIMESTAMP_LTZ" : "TIMESTAMP", (int)type.precision);
    return buffer;
}

/*
 * Whether a join whose condition has interval bounds runs as an interval join: its inputs
 * must be insert-only, else it is a regular join with the time predicates in its condition
 * (Flink 2.1+, FLINK-37403; the inputs' properties are derived here for that), and its time
 * attributes must not come through a regular join (they are plain TIMESTAMPs there).
 * Rowtime attributes of different types are Flink's error.
 */
static int interval_join_applies(PlannerContext *context, PlanNode *left, PlanNode *right,
                                 const PlanIntervalBounds *bounds, bool *applies)
{
    *applies = false;
    int status = plan_derive_properties(context, left);
    if (status == JOINERY_OK)
        status = plan_derive_properties(context, right);
    if (status != JOINERY_OK)
        return status;
    if (left->changelog_mode != CHANGELOG_INSERT || right->changelog_mode != CHANGELOG_INSERT)
        return JOINERY_OK;
    if (interval_time_materialized(context->arena, left, bounds->left_time) ||
        interval_time_materialized(context->arena, right, bounds->right_time))
        return JOINERY_OK;
    DataType left_type = left->fields[bounds->left_time].type;
    DataType right_type = right->fields[bounds->right_time].type;
    if (bounds->rowtime && left_type.id != right_type.id) {
        char a[64], b[64];
        return diag_error(context->diag, JOINERY_ERROR_VALIDATE,
                          "Interval join with rowtime attribute requires same rowtime types, but "
                          "the types are %s and %s",
                          rowtime_type_text(left_type, a, sizeof a),
                          rowtime_type_text(right_type, b, sizeof b));
    }
    *applies = true;
    return JOINERY_OK;
}

/* Appends computed key expressions to a side as a Calc; returns the new input. */
static PlanNode *append_keys(PlannerContext *context, PlanNode *input, Expr **keys, uint32_t count)
{
    Arena *arena = context->arena;
    uint32_t total = input->field_count + count;
    Expr **projects = arena_calloc(arena, total + 1, sizeof(Expr *));
    PlanField *fields = arena_calloc(arena, total + 1, sizeof(PlanField));
    if (!projects || !fields)
        return NULL;
    for (uint32_t i = 0; i < input->field_count; i++) {
        projects[i] = expr_make_input_ref(arena, i, input->fields[i].type);
        fields[i] = input->fields[i];
    }
    for (uint32_t i = 0; i < count; i++) {
        projects[input->field_count + i] = keys[i];
        fields[input->field_count + i].name = arena_printf(arena, "$f%u", input->field_count + i);
        fields[input->field_count + i].type = keys[i]->type;
    }
    plan_uniquify_names(arena, fields, total);
    return plan_make_calc(context, input, projects, total, fields, NULL);
}

int plan_check_join_type(PlannerContext *context, JoinType type)
{
    if (join_type_emits_right(type))
        return JOINERY_OK;
    return diag_error(context->diag, JOINERY_ERROR_UNSUPPORTED, "Join type %s is not supported yet",
                      join_type_name(type));
}

static int convert_join(PlannerContext *context, PlanNode *node, PlanNode **result)
{
    Arena *arena = context->arena;
    PlanNode *left, *right;
    if (plan_join_is_window_join(node))
        return plan_convert_window_join(context, node, result);
    bool semi_anti = !join_type_emits_right(node->join.join_type);
    int status = physical_convert(context, node->inputs[0], &left);
    if (status == JOINERY_OK)
        status = physical_convert(context, node->inputs[1], &right);
    if (status != JOINERY_OK)
        return status;
    uint32_t left_count = left->field_count;
    uint32_t right_count = right->field_count;
    uint32_t total = left_count + right_count;
    RuleConjuncts split = {0};
    if (rule_split_conjuncts(arena, node->join.condition, &split) != JOINERY_OK)
        return JOINERY_ERROR_NO_MEMORY;
    Expr **conjuncts = split.items;
    uint32_t conjunct_count = split.count;
    /* key expressions per side (over that side's fields), and the residual */
    Expr **left_keys = arena_calloc(arena, conjunct_count + 1, sizeof(Expr *));
    Expr **right_keys = arena_calloc(arena, conjunct_count + 1, sizeof(Expr *));
    bool *null_safe = arena_calloc(arena, conjunct_count + 1, sizeof(bool));
    Expr **residual = arena_calloc(arena, conjunct_count + 1, sizeof(Expr *));
    int32_t *to_right = arena_calloc(arena, total + 1, sizeof(int32_t));
    if (!left_keys || !right_keys || !null_safe || !residual || !to_right)
        return JOINERY_ERROR_NO_MEMORY;
    for (uint32_t i = 0; i < total; i++)
        to_right[i] = i < left_count ? -1 : (int32_t)(i - left_count);
    /* a time-bounded condition between the time attributes of both inputs makes an
       interval join (Flink's IntervalJoin): its time predicates become the bounds */
    bool *time_predicate = arena_calloc(arena, conjunct_count + 1, sizeof(bool));
    int32_t *key_of = arena_calloc(arena, conjunct_count + 1, sizeof(int32_t));
    if (!time_predicate || !key_of)
        return JOINERY_ERROR_NO_MEMORY;
    PlanIntervalBounds bounds = {0};
    /* a semi / anti join is a regular join whatever its bounds (Flink has no interval form) */
    bool interval = !semi_anti && interval_bounds_find(conjuncts, conjunct_count, left_count,
                                                       &bounds, time_predicate);
    if (interval) {
        status = interval_join_applies(context, left, right, &bounds, &interval);
        if (status != JOINERY_OK)
            return status;
    }
    uint32_t key_count = 0, residual_count = 0;
    for (uint32_t i = 0; i < conjunct_count; i++) {
        Expr *conjunct = conjuncts[i];
        key_of[i] = -1;
        if (interval && time_predicate[i])
            continue;
        bool equi = conjunct->kind == EXPR_CALL && conjunct->call.arg_count == 2 &&
                    (conjunct->call.function == FUNCTION_EQUAL ||
                     conjunct->call.function == FUNCTION_IS_NOT_DISTINCT_FROM) &&
                    expr_is_deterministic(conjunct);
        if (equi) {
            Expr *a = conjunct->call.args[0], *b = conjunct->call.args[1];
            uint64_t used_a[16] = {0}, used_b[16] = {0};
            bool a_left = true, a_right = true, b_left = true, b_right = true;
            if (total <= 64 * 16) {
                expr_collect_inputs(a, used_a);
                expr_collect_inputs(b, used_b);
                bool a_any = false, b_any = false;
                for (uint32_t f = 0; f < total; f++) {
                    bool in_a = (used_a[f / 64] >> (f % 64)) & 1;
                    bool in_b = (used_b[f / 64] >> (f % 64)) & 1;
                    a_any |= in_a;
                    b_any |= in_b;
                    if (in_a && f < left_count)
                        a_right = false;
                    if (in_a && f >= left_count)
                        a_left = false;
                    if (in_b && f < left_count)
                        b_right = false;
                    if (in_b && f >= left_count)
                        b_left = false;
                }
                if (!a_any || !b_any)
                    equi = false;
            } else {
                equi = false;
            }
            if (equi && a_left && b_right) {
                left_keys[key_count] = a;
                right_keys[key_count] = expr_remap_inputs(arena, b, to_right);
            } else if (equi && b_left && a_right) {
                left_keys[key_count] = b;
                right_keys[key_count] = expr_remap_inputs(arena, a, to_right);
            } else {
                equi = false;
            }
            if (equi) {
                null_safe[key_count] = conjunct->call.function == FUNCTION_IS_NOT_DISTINCT_FROM;
                key_of[i] = (int32_t)key_count;
                key_count++;
                continue;
            }
        }
        residual[residual_count++] = conjunct;
    }
    /* computed keys: append them to their side with a Calc */
    uint32_t *left_fields = arena_calloc(arena, key_count + 1, sizeof(uint32_t));
    uint32_t *right_fields = arena_calloc(arena, key_count + 1, sizeof(uint32_t));
    Expr **left_extra = arena_calloc(arena, key_count + 1, sizeof(Expr *));
    Expr **right_extra = arena_calloc(arena, key_count + 1, sizeof(Expr *));
    if (!left_fields || !right_fields || !left_extra || !right_extra)
        return JOINERY_ERROR_NO_MEMORY;
    uint32_t left_extra_count = 0, right_extra_count = 0;
    for (uint32_t k = 0; k < key_count; k++) {
        if (left_keys[k]->kind == EXPR_INPUT_REF) {
            left_fields[k] = left_keys[k]->input_index;
        } else {
            left_fields[k] = left_count + left_extra_count;
            left_extra[left_extra_count++] = left_keys[k];
        }
        if (right_keys[k]->kind == EXPR_INPUT_REF) {
            right_fields[k] = right_keys[k]->input_index;
        } else {
            right_fields[k] = right_count + right_extra_count;
            right_extra[right_extra_count++] = right_keys[k];
        }
    }
    if (left_extra_count) {
        left = append_keys(context, left, left_extra, left_extra_count);
        if (!left)
            return JOINERY_ERROR_NO_MEMORY;
    }
    if (right_extra_count) {
        right = append_keys(context, right, right_extra, right_extra_count);
        if (!right)
            return JOINERY_ERROR_NO_MEMORY;
    }
    uint32_t new_left = left->field_count, new_total = left->field_count + right->field_count;
    /* the join's fields: both inputs', or (semi / anti) the left input's */
    uint32_t output_count = semi_anti ? new_left : new_total;
    uint32_t logical_count = semi_anti ? left_count : total;
    /* residual over the widened combined row: right refs shift by left_extra_count */
    int32_t *shift = arena_calloc(arena, total + 1, sizeof(int32_t));
    if (!shift)
        return JOINERY_ERROR_NO_MEMORY;
    for (uint32_t i = 0; i < total; i++)
        shift[i] = i < left_count ? (int32_t)i : (int32_t)(i + left_extra_count);
    for (uint32_t i = 0; i < residual_count; i++) {
        residual[i] = expr_remap_inputs(arena, residual[i], shift);
        if (!residual[i])
            return JOINERY_ERROR_NO_MEMORY;
    }
    PlanNode *join =
        physical_new_node(context, interval ? PLAN_INTERVAL_JOIN : PLAN_JOIN, 2, output_count);
    if (!join)
        return JOINERY_ERROR_NO_MEMORY;
    join->join = node->join;
    join->join.interval = bounds;
    join->join.interval.min_cleanup_millis = context->config->interval_join_min_cleanup_millis;
    join->state_ttl_millis = node->state_ttl_millis;
    join->state_ttl_right_millis = node->state_ttl_right_millis;
    join->ttl_from_hint = node->ttl_from_hint;
    join->join.left_keys = left_fields;
    join->join.right_keys = right_fields;
    join->join.null_safe = null_safe;
    join->join.key_count = key_count;
    join->join.residual = residual_count ? expr_make_and(arena, residual, residual_count) : NULL;
    /* the full condition over the widened row, for printing: a regular join's keys first,
       an interval or semi / anti join's conjuncts in their order (as Flink prints them) */
    Expr **all = arena_calloc(arena, conjunct_count + key_count + 1, sizeof(Expr *));
    Expr **key_equalities = arena_calloc(arena, key_count + 1, sizeof(Expr *));
    if (!all || !key_equalities)
        return JOINERY_ERROR_NO_MEMORY;
    for (uint32_t k = 0; k < key_count; k++) {
        Expr *pair[2] = {
            expr_make_input_ref(arena, left_fields[k], left->fields[left_fields[k]].type),
            expr_make_input_ref(arena, new_left + right_fields[k],
                                right->fields[right_fields[k]].type)};
        key_equalities[k] =
            expr_make_call(arena, null_safe[k] ? FUNCTION_IS_NOT_DISTINCT_FROM : FUNCTION_EQUAL,
                           type_make(TYPE_BOOLEAN, false), pair, 2);
    }
    uint32_t printed = 0;
    if (interval || semi_anti) {
        for (uint32_t i = 0, r = 0; i < conjunct_count; i++) {
            int32_t k = key_of[i];
            if (k >= 0 && semi_anti && left_keys[k]->kind == EXPR_INPUT_REF &&
                right_keys[k]->kind == EXPR_INPUT_REF)
                /* as written (Flink prints a decorrelated condition so) */
                all[printed++] = expr_remap_inputs(arena, conjuncts[i], shift);
            else if (k >= 0)
                all[printed++] = key_equalities[k];
            else if (time_predicate[i])
                all[printed++] = expr_remap_inputs(arena, conjuncts[i], shift);
            else
                all[printed++] = residual[r++];
            if (!all[printed - 1])
                return JOINERY_ERROR_NO_MEMORY;
        }
    } else {
        for (uint32_t k = 0; k < key_count; k++)
            all[printed++] = key_equalities[k];
        for (uint32_t i = 0; i < residual_count; i++)
            all[printed++] = residual[i];
    }
    join->join.condition = printed ? expr_make_and(arena, all, printed) : NULL;
    bool left_nullable = join_type_preserves_right(node->join.join_type);
    bool right_nullable = join_type_preserves_left(node->join.join_type);
    for (uint32_t i = 0; i < output_count; i++) {
        join->fields[i] = i < new_left ? left->fields[i] : right->fields[i - new_left];
        bool nullable = i < new_left ? left_nullable : right_nullable;
        join->fields[i].type.nullable = join->fields[i].type.nullable || nullable;
    }
    plan_uniquify_names(arena, join->fields, output_count);
    join->inputs[0] = plan_make_exchange(context, left, left_fields, key_count);
    join->inputs[1] = plan_make_exchange(context, right, right_fields, key_count);
    if (!join->inputs[0] || !join->inputs[1])
        return JOINERY_ERROR_NO_MEMORY;
    if (!left_extra_count && !right_extra_count) {
        /* keep the logical names (they were uniquified over the same fields) */
        for (uint32_t i = 0; i < output_count && i < node->field_count; i++)
            join->fields[i].name = node->fields[i].name;
        *result = join;
        return JOINERY_OK;
    }
    /* drop the appended key fields again */
    Expr **projects = arena_calloc(arena, logical_count + 1, sizeof(Expr *));
    if (!projects)
        return JOINERY_ERROR_NO_MEMORY;
    for (uint32_t i = 0; i < logical_count; i++) {
        uint32_t from = (uint32_t)shift[i];
        projects[i] = expr_make_input_ref(arena, from, join->fields[from].type);
    }
    PlanField *fields = arena_calloc(arena, logical_count + 1, sizeof(PlanField));
    if (!fields)
        return JOINERY_ERROR_NO_MEMORY;
    for (uint32_t i = 0; i < logical_count; i++) {
        fields[i] = node->fields[i];
        fields[i].type = join->fields[shift[i]].type;
    }
    *result = plan_make_calc(context, join, projects, logical_count, fields, NULL);
    return *result ? JOINERY_OK : JOINERY_ERROR_NO_MEMORY;
}

static bool join_calls_current_watermark(const PlanNode *node)
{
    return expr_calls(node->join.condition, FUNCTION_CURRENT_WATERMARK) ||
           expr_calls(node->join.residual, FUNCTION_CURRENT_WATERMARK);
}

/* Which inputs a conjunct reads: bit 0 = left fields, bit 1 = right fields. */
static unsigned conjunct_sides(const Expr *expr, uint32_t left_count, uint32_t total)
{
    uint64_t used[16] = {0};
    if (total > 64 * 16)
        return 3;
    expr_collect_inputs(expr, used);
    unsigned sides = 0;
    for (uint32_t i = 0; i < total; i++)
        if ((used[i / 64] >> (i % 64)) & 1)
            sides |= i < left_count ? 1u : 2u;
    return sides;
}

static bool fields_null_rejected(const Expr *expr, uint32_t from, uint32_t to)
{
    uint64_t fields[16] = {0};
    if (to > 64 * 16)
        return false;
    for (uint32_t i = from; i < to; i++)
        fields[i / 64] |= (uint64_t)1 << (i % 64);
    return expr_is_null_rejecting(expr, fields);
}

static int push_join(PlannerContext *context, PlanNode *node, RuleConjuncts *conjuncts,
                     PlanNode **result)
{
    Arena *arena = context->arena;
    PlanNode *join = plan_node_copy(context->arena, node);
    if (!join)
        return JOINERY_ERROR_NO_MEMORY;
    uint32_t left_count = node->inputs[0]->field_count;
    /* the condition's row: both inputs' fields (a semi / anti join emits only the left's) */
    uint32_t total = left_count + node->inputs[1]->field_count;
    bool semi = node->join.join_type == JOIN_TYPE_SEMI;
    bool semi_anti = !join_type_emits_right(node->join.join_type);
    /* outer-join simplification from the WHERE conjuncts */
    for (uint32_t i = 0; i < conjuncts->count; i++) {
        Expr *conjunct = conjuncts->items[i];
        bool rejects_right = fields_null_rejected(conjunct, left_count, total);
        bool rejects_left = fields_null_rejected(conjunct, 0, left_count);
        if (rejects_right) {
            if (join->join.join_type == JOIN_TYPE_LEFT)
                join->join.join_type = JOIN_TYPE_INNER;
            else if (join->join.join_type == JOIN_TYPE_FULL)
                join->join.join_type = JOIN_TYPE_RIGHT;
        }
        if (rejects_left) {
            if (join->join.join_type == JOIN_TYPE_RIGHT)
                join->join.join_type = JOIN_TYPE_INNER;
            else if (join->join.join_type == JOIN_TYPE_FULL)
                join->join.join_type = JOIN_TYPE_LEFT;
        }
    }
    if (join->join.join_type != node->join.join_type) {
        /* the fields of a side that is no longer NULL-generating keep their nullability
           from the input */
        join->fields = arena_calloc(arena, total, sizeof(PlanField));
        if (!join->fields)
            return JOINERY_ERROR_NO_MEMORY;
        memcpy(join->fields, node->fields, total * sizeof(PlanField));
        bool left_nullable = join_type_preserves_right(join->join.join_type);
        bool right_nullable = join_type_preserves_left(join->join.join_type);
        for (uint32_t i = 0; i < total; i++) {
            const PlanNode *input = i < left_count ? node->inputs[0] : node->inputs[1];
            uint32_t index = i < left_count ? i : i - left_count;
            bool nullable = i < left_count ? left_nullable : right_nullable;
            join->fields[i].type.nullable = input->fields[index].type.nullable || nullable;
        }
    }
    JoinType type = join->join.join_type;
    bool left_preserved_only = type == JOIN_TYPE_LEFT;   /* right side is NULL-generating */
    bool right_preserved_only = type == JOIN_TYPE_RIGHT; /* left side is NULL-generating */
    RuleConjuncts left = {0}, right = {0}, above = {0}, on = {0}, on_from_where = {0};
    int status = JOINERY_OK;
    /* WHERE conjuncts (those that join the inputs follow the ON conjuncts, as Calcite's
       FilterJoinRule appends them) */
    for (uint32_t i = 0; i < conjuncts->count && status == JOINERY_OK; i++) {
        Expr *conjunct = conjuncts->items[i];
        unsigned sides = conjunct_sides(conjunct, left_count, total);
        bool deterministic = expr_is_deterministic(conjunct);
        if (sides == 1 && deterministic &&
            (type == JOIN_TYPE_INNER || left_preserved_only || semi_anti))
            status = rule_conjuncts_add(arena, &left, conjunct);
        else if (sides == 2 && deterministic && (type == JOIN_TYPE_INNER || right_preserved_only))
            status = rule_conjuncts_add(arena, &right, conjunct);
        else if (type == JOIN_TYPE_INNER && sides == 3 && deterministic)
            status = rule_conjuncts_add(arena, &on_from_where, conjunct);
        else
            status = rule_conjuncts_add(arena, &above, conjunct);
    }
    /* ON conjuncts */
    RuleConjuncts existing = {0};
    if (status == JOINERY_OK)
        status = rule_split_conjuncts(arena, node->join.condition, &existing);
    for (uint32_t i = 0; i < existing.count && status == JOINERY_OK; i++) {
        Expr *conjunct = existing.items[i];
        unsigned sides = conjunct_sides(conjunct, left_count, total);
        bool deterministic = expr_is_deterministic(conjunct);
        /* a left-only condition of a semi join filters its left rows, a right-only one its
           right rows; an anti join keeps both in its condition, as Flink (the left rows a
           left-only one rejects are kept; NOT EXISTS's where=[$f0]) */
        if (sides == 1 && deterministic &&
            (type == JOIN_TYPE_INNER || right_preserved_only || semi))
            status = rule_conjuncts_add(arena, &left, conjunct);
        else if (sides == 2 && deterministic &&
                 (type == JOIN_TYPE_INNER || left_preserved_only || semi))
            status = rule_conjuncts_add(arena, &right, conjunct);
        else
            status = rule_conjuncts_add(arena, &on, conjunct);
    }
    for (uint32_t i = 0; i < on_from_where.count && status == JOINERY_OK; i++)
        status = rule_conjuncts_add(arena, &on, on_from_where.items[i]);
    if (status != JOINERY_OK)
        return status;
    /* right conjuncts are over the combined row: shift them to the right input */
    int32_t *shift = arena_calloc(arena, total + 1, sizeof(int32_t));
    if (!shift)
        return JOINERY_ERROR_NO_MEMORY;
    for (uint32_t i = 0; i < total; i++)
        shift[i] = i < left_count ? -1 : (int32_t)(i - left_count);
    for (uint32_t i = 0; i < right.count; i++) {
        right.items[i] = expr_remap_inputs(arena, right.items[i], shift);
        if (!right.items[i])
            return JOINERY_ERROR_NO_MEMORY;
    }
    status = rule_push_filters_into(context, node->inputs[0], &left, &join->inputs[0]);
    if (status == JOINERY_OK)
        status = rule_push_filters_into(context, node->inputs[1], &right, &join->inputs[1]);
    if (status != JOINERY_OK)
        return status;
    join->join.condition = on.count ? expr_make_and(arena, on.items, on.count) : NULL;
    *result = rule_filter_above(context, join, &above);
    return *result ? JOINERY_OK : JOINERY_ERROR_NO_MEMORY;
}

static uint64_t *join_input_fields_used(Arena *arena, const PlanNode *node, uint32_t input,
                                        const uint64_t *used)
{
    /* the condition reads both inputs' fields, also when the join emits the left's only */
    uint32_t total = node->inputs[0]->field_count + node->inputs[1]->field_count;
    uint64_t *all = rule_fields_new(arena, total);
    if (!all)
        return NULL;
    for (uint32_t i = 0; i < node->field_count; i++)
        if (!used || rule_fields_has(used, i))
            rule_fields_add(all, i);
    rule_fields_add_expr(all, node->join.condition);
    uint32_t from = input == 0 ? 0 : node->inputs[0]->field_count;
    return rule_fields_slice(arena, all, from, node->inputs[input]->field_count);
}

static int prune_join(PlannerContext *context, PlanNode *node, uint64_t *used, RulePruned *result)
{
    Arena *arena = context->arena;
    uint32_t left_count = node->inputs[0]->field_count;
    uint32_t right_count = node->inputs[1]->field_count;
    uint64_t *left_used = join_input_fields_used(arena, node, 0, used);
    uint64_t *right_used = join_input_fields_used(arena, node, 1, used);
    if (!left_used || !right_used)
        return JOINERY_ERROR_NO_MEMORY;
    RulePruned left, right;
    int status = rule_prune_fields_of(context, node->inputs[0], left_used, &left);
    if (status == JOINERY_OK)
        status = rule_prune_fields_of(context, node->inputs[1], right_used, &right);
    if (status != JOINERY_OK)
        return status;
    uint32_t new_left = left.node->field_count;
    /* a semi / anti join's fields are its left input's */
    uint32_t new_count =
        join_type_emits_right(node->join.join_type) ? new_left + right.node->field_count : new_left;
    /* over both inputs' fields (the condition's row); the join's own are its first ones */
    int32_t *mapping = arena_calloc(arena, left_count + right_count + 1, sizeof(int32_t));
    PlanNode *join = plan_node_copy(context->arena, node);
    if (!mapping || !join)
        return JOINERY_ERROR_NO_MEMORY;
    for (uint32_t i = 0; i < left_count; i++)
        mapping[i] = left.mapping[i];
    for (uint32_t i = 0; i < right_count; i++)
        mapping[left_count + i] = right.mapping[i] < 0 ? -1 : (int32_t)new_left + right.mapping[i];
    join->inputs[0] = left.node;
    join->inputs[1] = right.node;
    join->fields = arena_calloc(arena, new_count + 1, sizeof(PlanField));
    if (!join->fields)
        return JOINERY_ERROR_NO_MEMORY;
    rule_compact_fields(node->fields, node->field_count, mapping, join->fields);
    join->field_count = new_count;
    if (node->join.condition) {
        join->join.condition = expr_remap_inputs(arena, node->join.condition, mapping);
        if (!join->join.condition)
            return JOINERY_ERROR_NO_MEMORY;
    }
    result->node = join;
    result->mapping = mapping;
    return JOINERY_OK;
}

const PlanKindInfo plan_kind_logical_join = {
    .kind = PLAN_LOGICAL_JOIN,
    .name = "LogicalJoin",
    .explain = explain_logical_join,
    .convert = convert_join,
    .estimate = estimate_join,
    .trace_field = cost_trace_to_inputs,
    .push_filters = push_join,
    .prune_fields = prune_join,
    .input_fields_used = join_input_fields_used,
};

const PlanKindInfo plan_kind_join = {
    .kind = PLAN_JOIN,
    .name = "Join",
    .physical = true,
    .stateful = true,
    .explain = explain_join,
    .derive = derive_join,
    .calls_current_watermark = join_calls_current_watermark,
    .estimate = estimate_join,
    .trace_field = cost_trace_to_inputs,
};
