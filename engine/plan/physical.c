/*
 * physical.c - logical plan to physical (stream) plan.
 *
 *   LogicalTableScan          -> TableSourceScan
 *   LogicalProject / Filter   -> Calc (adjacent ones merged; identity removed)
 *   LogicalJoin               -> Join over Exchange(hash[keys]) inputs; equi
 *                                keys extracted from the condition (computed
 *                                keys get a Calc below), the rest is residual
 *   LogicalAggregate          -> GroupAggregate over Exchange(hash[keys] | single)
 *   LogicalUnion / Values / WatermarkAssigner / Sink -> their physical twins
 */
#include <string.h>

#include "engine/plan/physical.h"
#include "engine/plan/rules/rules.h"

static PlanNode *new_node(PlannerContext *context, PlanKind kind, uint32_t inputs, uint32_t fields)
{
    PlanNode *node = plan_node_new(context->arena, kind, inputs, fields);
    if (node)
        node->id = ++context->next_node_id;
    return node;
}

static bool calc_is_identity(const PlanNode *calc, const PlanNode *input)
{
    if (calc->calc.condition || calc->calc.project_count != input->field_count)
        return false;
    for (uint32_t i = 0; i < calc->calc.project_count; i++) {
        const Expr *expr = calc->calc.projects[i];
        if (expr->kind != EXPR_INPUT_REF || expr->input_index != i ||
            strcmp(calc->fields[i].name, input->fields[i].name) != 0)
            return false;
    }
    return true;
}

static bool exprs_deterministic(Expr *const *exprs, uint32_t count)
{
    for (uint32_t i = 0; i < count; i++)
        if (!expr_is_deterministic(exprs[i]))
            return false;
    return true;
}

/* Builds Calc(projects, condition) over input, merging into an input Calc. */
static PlanNode *make_calc(PlannerContext *context, PlanNode *input, Expr **projects,
                           uint32_t count, const PlanField *fields, Expr *condition)
{
    Arena *arena = context->arena;
    if (input->kind == PLAN_CALC &&
        exprs_deterministic(input->calc.projects, input->calc.project_count)) {
        Expr **merged = arena_calloc(arena, count + 1, sizeof(Expr *));
        if (!merged)
            return NULL;
        for (uint32_t i = 0; i < count; i++) {
            merged[i] = expr_substitute_inputs(arena, projects[i], input->calc.projects);
            if (!merged[i])
                return NULL;
        }
        Expr *merged_condition = input->calc.condition;
        if (condition) {
            Expr *substituted = expr_substitute_inputs(arena, condition, input->calc.projects);
            if (!substituted)
                return NULL;
            if (merged_condition) {
                Expr *both[2] = {merged_condition, substituted};
                merged_condition = expr_make_and(arena, both, 2);
            } else {
                merged_condition = substituted;
            }
        }
        return make_calc(context, input->inputs[0], merged, count, fields, merged_condition);
    }
    PlanNode *calc = new_node(context, PLAN_CALC, 1, count);
    if (!calc)
        return NULL;
    calc->inputs[0] = input;
    calc->calc.projects = projects;
    calc->calc.project_count = count;
    calc->calc.condition = condition;
    memcpy(calc->fields, fields, count * sizeof(PlanField));
    if (calc_is_identity(calc, input))
        return input;
    return calc;
}

static Expr **identity_projects(Arena *arena, const PlanNode *input)
{
    Expr **projects = arena_calloc(arena, input->field_count + 1, sizeof(Expr *));
    for (uint32_t i = 0; projects && i < input->field_count; i++)
        projects[i] = expr_make_input_ref(arena, i, input->fields[i].type);
    return projects;
}

static PlanNode *make_exchange(PlannerContext *context, PlanNode *input, const uint32_t *keys,
                               uint32_t key_count)
{
    PlanNode *exchange = new_node(context, PLAN_EXCHANGE, 1, input->field_count);
    if (!exchange)
        return NULL;
    exchange->inputs[0] = input;
    memcpy(exchange->fields, input->fields, input->field_count * sizeof(PlanField));
    exchange->exchange.distribution = key_count ? PLAN_DISTRIBUTION_HASH : PLAN_DISTRIBUTION_SINGLE;
    exchange->exchange.key_count = key_count;
    exchange->exchange.keys = arena_calloc(context->arena, key_count + 1, sizeof(uint32_t));
    if (!exchange->exchange.keys)
        return NULL;
    if (key_count)
        memcpy(exchange->exchange.keys, keys, key_count * sizeof(uint32_t));
    return exchange;
}

static int convert(PlannerContext *context, PlanNode *node, PlanNode **result);

/* Sets *rowtime / *proctime when `expr` reads a time attribute of the given side. */
static void collect_time_attributes(const Expr *expr, uint32_t left_count, bool left, bool *found,
                                    TimeAttribute *attribute)
{
    if (expr->kind == EXPR_INPUT_REF) {
        bool is_left = expr->input_index < left_count;
        if (is_left == left && expr->type.time_attribute != TIME_ATTRIBUTE_NONE) {
            *found = true;
            *attribute = expr->type.time_attribute;
        }
        return;
    }
    if (expr->kind == EXPR_CALL)
        for (uint32_t i = 0; i < expr->call.arg_count; i++)
            collect_time_attributes(expr->call.args[i], left_count, left, found, attribute);
}

/* "rowtime" or "proctime" when the conjunct compares time attributes of both sides. */
static const char *join_interval_kind(const Expr *conjunct, uint32_t left_count)
{
    if (conjunct->kind != EXPR_CALL)
        return NULL;
    switch (function_info(conjunct->call.function)->order) {
    case FUNCTION_ORDER_LESS:
    case FUNCTION_ORDER_LESS_EQUAL:
    case FUNCTION_ORDER_GREATER:
    case FUNCTION_ORDER_GREATER_EQUAL:
    case FUNCTION_ORDER_EQUAL:
        break;
    case FUNCTION_ORDER_NOT_EQUAL:
    case FUNCTION_ORDER_NONE:
        return NULL;
    }
    bool left = false, right = false;
    TimeAttribute left_attribute = TIME_ATTRIBUTE_NONE, right_attribute = TIME_ATTRIBUTE_NONE;
    collect_time_attributes(conjunct, left_count, true, &left, &left_attribute);
    collect_time_attributes(conjunct, left_count, false, &right, &right_attribute);
    if (!left || !right || left_attribute != right_attribute)
        return NULL;
    return left_attribute == TIME_ATTRIBUTE_ROWTIME ? "rowtime" : "proctime";
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
    return make_calc(context, input, projects, total, fields, NULL);
}

static int convert_join(PlannerContext *context, PlanNode *node, PlanNode **result)
{
    Arena *arena = context->arena;
    PlanNode *left, *right;
    int status = convert(context, node->inputs[0], &left);
    if (status == JOINERY_OK)
        status = convert(context, node->inputs[1], &right);
    if (status != JOINERY_OK)
        return status;
    uint32_t left_count = left->field_count;
    uint32_t right_count = right->field_count;
    uint32_t total = left_count + right_count;
    Expr **conjuncts = NULL;
    uint32_t conjunct_count = 0, capacity = 0;
    if (rule_split_conjuncts(arena, node->join.condition, &conjuncts, &conjunct_count, &capacity) !=
        JOINERY_OK)
        return JOINERY_ERROR_NO_MEMORY;
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
    uint32_t key_count = 0, residual_count = 0;
    for (uint32_t i = 0; i < conjunct_count; i++) {
        Expr *conjunct = conjuncts[i];
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
                key_count++;
                continue;
            }
        }
        residual[residual_count++] = conjunct;
    }
    /* a time-bounded condition between the time attributes of both sides is an interval
       join in Flink: different semantics (append-only output, state bounded by time) */
    for (uint32_t i = 0; i < residual_count; i++) {
        const char *kind = join_interval_kind(residual[i], left_count);
        if (kind)
            return diag_error(context->diag, JOINERY_ERROR_UNSUPPORTED,
                              "Interval joins (a join condition bounding the %s attributes of "
                              "both inputs) are not supported yet; a later release runs them as "
                              "Flink's IntervalJoin",
                              kind);
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
    PlanNode *join = new_node(context, PLAN_JOIN, 2, new_total);
    if (!join)
        return JOINERY_ERROR_NO_MEMORY;
    join->join = node->join;
    join->state_ttl_millis = node->state_ttl_millis;
    join->state_ttl_right_millis = node->state_ttl_right_millis;
    join->ttl_from_hint = node->ttl_from_hint;
    join->join.left_keys = left_fields;
    join->join.right_keys = right_fields;
    join->join.null_safe = null_safe;
    join->join.key_count = key_count;
    join->join.residual = residual_count ? expr_make_and(arena, residual, residual_count) : NULL;
    /* the full condition over the widened row, for printing */
    Expr **all = arena_calloc(arena, key_count + residual_count + 1, sizeof(Expr *));
    if (!all)
        return JOINERY_ERROR_NO_MEMORY;
    for (uint32_t k = 0; k < key_count; k++) {
        Expr *pair[2] = {
            expr_make_input_ref(arena, left_fields[k], left->fields[left_fields[k]].type),
            expr_make_input_ref(arena, new_left + right_fields[k],
                                right->fields[right_fields[k]].type)};
        all[k] =
            expr_make_call(arena, null_safe[k] ? FUNCTION_IS_NOT_DISTINCT_FROM : FUNCTION_EQUAL,
                           type_make(TYPE_BOOLEAN, false), pair, 2);
    }
    for (uint32_t i = 0; i < residual_count; i++)
        all[key_count + i] = residual[i];
    join->join.condition =
        key_count + residual_count ? expr_make_and(arena, all, key_count + residual_count) : NULL;
    bool left_nullable = join_type_preserves_right(node->join.join_type);
    bool right_nullable = join_type_preserves_left(node->join.join_type);
    for (uint32_t i = 0; i < new_total; i++) {
        join->fields[i] = i < new_left ? left->fields[i] : right->fields[i - new_left];
        bool nullable = i < new_left ? left_nullable : right_nullable;
        join->fields[i].type.nullable = join->fields[i].type.nullable || nullable;
    }
    plan_uniquify_names(arena, join->fields, new_total);
    join->inputs[0] = make_exchange(context, left, left_fields, key_count);
    join->inputs[1] = make_exchange(context, right, right_fields, key_count);
    if (!join->inputs[0] || !join->inputs[1])
        return JOINERY_ERROR_NO_MEMORY;
    if (!left_extra_count && !right_extra_count) {
        /* keep the logical names (they were uniquified over the same fields) */
        for (uint32_t i = 0; i < new_total && i < node->field_count; i++)
            join->fields[i].name = node->fields[i].name;
        *result = join;
        return JOINERY_OK;
    }
    /* drop the appended key fields again */
    Expr **projects = arena_calloc(arena, total + 1, sizeof(Expr *));
    if (!projects)
        return JOINERY_ERROR_NO_MEMORY;
    for (uint32_t i = 0; i < total; i++) {
        uint32_t from = (uint32_t)shift[i];
        projects[i] = expr_make_input_ref(arena, from, join->fields[from].type);
    }
    PlanField *fields = arena_calloc(arena, total + 1, sizeof(PlanField));
    if (!fields)
        return JOINERY_ERROR_NO_MEMORY;
    for (uint32_t i = 0; i < total; i++) {
        fields[i] = node->fields[i];
        fields[i].type = join->fields[shift[i]].type;
    }
    *result = make_calc(context, join, projects, total, fields, NULL);
    return *result ? JOINERY_OK : JOINERY_ERROR_NO_MEMORY;
}

static int convert_simple(PlannerContext *context, PlanNode *node, PlanKind kind, PlanNode **result)
{
    PlanNode *copy = plan_node_copy(context->arena, node);
    if (!copy)
        return JOINERY_ERROR_NO_MEMORY;
    copy->kind = kind;
    copy->id = ++context->next_node_id;
    for (uint32_t i = 0; i < node->input_count; i++) {
        int status = convert(context, node->inputs[i], &copy->inputs[i]);
        if (status != JOINERY_OK)
            return status;
    }
    *result = copy;
    return JOINERY_OK;
}

static int convert(PlannerContext *context, PlanNode *node, PlanNode **result)
{
    Arena *arena = context->arena;
    PlanNode *input = NULL;
    int status;
    switch (node->kind) {
    case PLAN_LOGICAL_TABLE_SCAN: {
        status = convert_simple(context, node, PLAN_TABLE_SOURCE_SCAN, result);
        if (status != JOINERY_OK || !plan_table_is_upsert_source(node->scan.table))
            return status;
        /* an upsert source: Exchange(hash[pk]) -> ChangelogNormalize(key=[pk]) */
        const CatalogTable *table = node->scan.table;
        uint32_t *keys = arena_calloc(arena, table->primary_key_count + 1, sizeof(uint32_t));
        if (!keys)
            return JOINERY_ERROR_NO_MEMORY;
        for (size_t k = 0; k < table->primary_key_count; k++) {
            int field = plan_scan_field_of_column(
                *result, catalog_table_column_index(table, table->primary_key[k]));
            if (field < 0)
                return diag_error(context->diag, JOINERY_ERROR_VALIDATE,
                                  "The primary key of upsert table `%s` is not read", table->name);
            keys[k] = (uint32_t)field;
        }
        PlanNode *exchange =
            make_exchange(context, *result, keys, (uint32_t)table->primary_key_count);
        PlanNode *normalize =
            exchange ? new_node(context, PLAN_CHANGELOG_NORMALIZE, 1, exchange->field_count) : NULL;
        if (!normalize)
            return JOINERY_ERROR_NO_MEMORY;
        normalize->inputs[0] = exchange;
        memcpy(normalize->fields, exchange->fields, exchange->field_count * sizeof(PlanField));
        normalize->exchange.keys = keys;
        normalize->exchange.key_count = (uint32_t)table->primary_key_count;
        *result = normalize;
        return JOINERY_OK;
    }
    case PLAN_LOGICAL_WATERMARK_ASSIGNER:
        return convert_simple(context, node, PLAN_WATERMARK_ASSIGNER, result);
    case PLAN_LOGICAL_UNION:
        return convert_simple(context, node, PLAN_UNION, result);
    case PLAN_LOGICAL_VALUES:
        return convert_simple(context, node, PLAN_VALUES, result);
    case PLAN_LOGICAL_SINK:
        return convert_simple(context, node, PLAN_SINK, result);
    case PLAN_LOGICAL_PROJECT:
        status = convert(context, node->inputs[0], &input);
        if (status != JOINERY_OK)
            return status;
        *result = make_calc(context, input, node->calc.projects, node->calc.project_count,
                            node->fields, NULL);
        return *result ? JOINERY_OK : JOINERY_ERROR_NO_MEMORY;
    case PLAN_LOGICAL_FILTER:
        status = convert(context, node->inputs[0], &input);
        if (status != JOINERY_OK)
            return status;
        *result = make_calc(context, input, identity_projects(arena, input), input->field_count,
                            input->fields, node->filter.condition);
        return *result ? JOINERY_OK : JOINERY_ERROR_NO_MEMORY;
    case PLAN_LOGICAL_JOIN:
        return convert_join(context, node, result);
    case PLAN_LOGICAL_MULTI_JOIN: {
        PlanNode *fused = plan_node_copy(arena, node);
        if (!fused)
            return JOINERY_ERROR_NO_MEMORY;
        fused->kind = PLAN_MULTI_JOIN;
        fused->id = ++context->next_node_id;
        for (uint32_t i = 0; i < node->input_count; i++) {
            status = convert(context, node->inputs[i], &input);
            if (status != JOINERY_OK)
                return status;
            fused->inputs[i] = make_exchange(context, input, node->multi_join.key_fields[i],
                                             node->multi_join.common_key_count);
            if (!fused->inputs[i])
                return JOINERY_ERROR_NO_MEMORY;
        }
        *result = fused;
        return JOINERY_OK;
    }
    case PLAN_LOGICAL_AGGREGATE: {
        status = convert(context, node->inputs[0], &input);
        if (status != JOINERY_OK)
            return status;
        PlanNode *aggregate = plan_node_copy(arena, node);
        if (!aggregate)
            return JOINERY_ERROR_NO_MEMORY;
        aggregate->kind = PLAN_GROUP_AGGREGATE;
        aggregate->id = ++context->next_node_id;
        aggregate->inputs[0] = make_exchange(context, input, node->aggregate.group_keys,
                                             node->aggregate.group_key_count);
        if (!aggregate->inputs[0])
            return JOINERY_ERROR_NO_MEMORY;
        *result = aggregate;
        return JOINERY_OK;
    }
    default:
        return diag_error(context->diag, JOINERY_ERROR_UNSUPPORTED,
                          "Plan node %s cannot be converted", plan_kind_name(node->kind));
    }
}

/*
 * CURRENT_WATERMARK runs in Calc only (a projection or a filter), where the
 * operator's input watermark is known; anywhere else it is rejected.
 */
static int check_current_watermark(PlannerContext *context, const PlanNode *node)
{
    bool found = false;
    switch (node->kind) {
    case PLAN_JOIN:
        found = expr_calls(node->join.condition, FUNCTION_CURRENT_WATERMARK) ||
                expr_calls(node->join.residual, FUNCTION_CURRENT_WATERMARK);
        break;
    case PLAN_MULTI_JOIN:
        for (uint32_t i = 1; i < node->input_count; i++)
            found = found || expr_calls(node->multi_join.conditions[i], FUNCTION_CURRENT_WATERMARK);
        break;
    case PLAN_TABLE_SOURCE_SCAN:
        found = expr_calls(node->scan.filter, FUNCTION_CURRENT_WATERMARK) ||
                expr_calls(node->scan.watermark, FUNCTION_CURRENT_WATERMARK);
        break;
    case PLAN_WATERMARK_ASSIGNER:
        found = expr_calls(node->watermark.watermark, FUNCTION_CURRENT_WATERMARK);
        break;
    default:
        break;
    }
    if (found)
        return diag_error(context->diag, JOINERY_ERROR_UNSUPPORTED,
                          "CURRENT_WATERMARK is supported in SELECT and WHERE only, not in %s",
                          plan_kind_name(node->kind));
    for (uint32_t i = 0; i < node->input_count; i++) {
        int status = check_current_watermark(context, node->inputs[i]);
        if (status != JOINERY_OK)
            return status;
    }
    return JOINERY_OK;
}

int plan_to_physical(PlannerContext *context, PlanNode *logical, PlanNode **physical)
{
    int status = convert(context, logical, physical);
    if (status == JOINERY_ERROR_NO_MEMORY)
        return diag_error(context->diag, status, "out of memory");
    if (status == JOINERY_OK)
        status = check_current_watermark(context, *physical);
    return status;
}
