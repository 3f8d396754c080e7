/*
 * node_aggregate.c - LogicalAggregate and GroupAggregate: GROUP BY with
 * COUNT, SUM, MIN, MAX and AVG, keyed by the grouping keys (one subtask
 * without keys).
 */
#include <string.h>

#include "engine/plan/cost.h"
#include "engine/plan/nodes/nodes.h"
#include "engine/udf/udf.h"
#include "engine/plan/window_properties.h"

static const char *aggregate_name(PlanAggregateKind kind)
{
    switch (kind) {
    case PLAN_AGGREGATE_COUNT_STAR:
    case PLAN_AGGREGATE_COUNT:
        return "COUNT";
    case PLAN_AGGREGATE_SUM:
        return "SUM";
    case PLAN_AGGREGATE_MIN:
        return "MIN";
    case PLAN_AGGREGATE_MAX:
        return "MAX";
    case PLAN_AGGREGATE_AVG:
        return "AVG";
    case PLAN_AGGREGATE_LISTAGG:
        return "LISTAGG";
    case PLAN_AGGREGATE_FIRST_VALUE:
        return "FIRST_VALUE";
    case PLAN_AGGREGATE_LAST_VALUE:
        return "LAST_VALUE";
    case PLAN_AGGREGATE_COLLECT:
        return "COLLECT";
    case PLAN_AGGREGATE_ARRAY_AGG:
        return "ARRAY_AGG";
    case PLAN_AGGREGATE_SUM0:
        return "$SUM0";
    case PLAN_AGGREGATE_USER_DEFINED:
        return "?"; /* call_name prints its function's name */
    }
    return "?";
}

/* A call's function as plans print it: a user-defined aggregate by its name. */
static const char *call_name(const PlanAggregateCall *call)
{
    return call->udf ? call->udf->name : aggregate_name(call->kind);
}

const char *plan_aggregate_name(PlanAggregateKind kind)
{
    return aggregate_name(kind);
}

const char *plan_aggregate_call_name(const PlanAggregateCall *call)
{
    return call_name(call);
}

static void explain_logical_aggregate(ExplainContext *context, const PlanNode *node)
{
    StrBuf *out = context->out;
    strbuf_append_cstr(out, "group=[{");
    for (uint32_t i = 0; i < node->aggregate.group_key_count; i++)
        strbuf_printf(out, "%s%u", i ? ", " : "", node->aggregate.group_keys[i]);
    strbuf_append_cstr(out, "}]");
    uint32_t group_count = node->aggregate.group_key_count;
    for (uint32_t i = 0; i < node->aggregate.call_count; i++) {
        const PlanAggregateCall *call = &node->aggregate.calls[i];
        strbuf_printf(out, ", %s=[%s(%s", node->fields[group_count + i].name, call_name(call),
                      call->distinct ? "DISTINCT " : "");
        if (call->kind != PLAN_AGGREGATE_COUNT_STAR)
            strbuf_printf(out, "$%u", call->argument);
        if (call->has_separator)
            strbuf_printf(out, ", $%u", call->separator);
        for (uint32_t m = 0; m < call->more_argument_count; m++)
            strbuf_printf(out, ", $%u", call->more_arguments[m]);
        strbuf_append_cstr(out, ")");
        if (call->has_filter)
            strbuf_printf(out, " FILTER $%u", call->filter);
        strbuf_append_cstr(out, "]");
    }
    if (node->aggregate.state_ttl_hint)
        strbuf_printf(out, ", stateTtlHints=[[%s]]", node->aggregate.state_ttl_hint);
}

void explain_aggregate_calls(ExplainContext *context, const PlanNode *node,
                             const char *const *names)
{
    uint32_t group_count = node->aggregate.group_key_count;
    for (uint32_t i = 0; i < node->aggregate.call_count; i++) {
        const PlanAggregateCall *call = &node->aggregate.calls[i];
        strbuf_printf(context->out, ", %s(%s", call_name(call), call->distinct ? "DISTINCT " : "");
        /* Flink's physical plans print COUNT(*) (the AST prints COUNT()) */
        strbuf_append_cstr(context->out,
                           call->kind == PLAN_AGGREGATE_COUNT_STAR ? "*" : names[call->argument]);
        if (call->has_separator)
            strbuf_printf(context->out, ", %s", names[call->separator]);
        for (uint32_t m = 0; m < call->more_argument_count; m++)
            strbuf_printf(context->out, ", %s", names[call->more_arguments[m]]);
        strbuf_append_cstr(context->out, ")");
        if (call->has_filter)
            strbuf_printf(context->out, " FILTER %s", names[call->filter]);
        strbuf_printf(context->out, " AS %s", node->fields[group_count + i].name);
    }
}

void explain_partial_final(ExplainContext *context, const PlanNode *node)
{
    if (node->aggregate.partial_final != PLAN_PARTIAL_FINAL_NONE)
        strbuf_printf(context->out, "partialFinalType=[%s], ",
                      node->aggregate.partial_final == PLAN_PARTIAL_FINAL_PARTIAL ? "PARTIAL"
                                                                                  : "FINAL");
}

static void explain_group_aggregate(ExplainContext *context, const PlanNode *node)
{
    StrBuf *out = context->out;
    const char *const *names = explain_input_names(context, node);
    if (node->aggregate.group_key_count) {
        strbuf_append_cstr(out, "groupBy=[");
        for (uint32_t i = 0; i < node->aggregate.group_key_count; i++)
            strbuf_printf(out, "%s%s", i ? ", " : "", names[node->aggregate.group_keys[i]]);
        strbuf_append_cstr(out, "], ");
    }
    explain_partial_final(context, node);
    strbuf_append_cstr(out, "select=[");
    for (uint32_t i = 0; i < node->aggregate.group_key_count; i++)
        strbuf_printf(out, "%s%s", i ? ", " : "", names[node->aggregate.group_keys[i]]);
    size_t before = out->length;
    explain_aggregate_calls(context, node, names);
    if (node->aggregate.group_key_count == 0 && out->length > before) {
        /* no keys: drop the leading ", " */
        memmove(out->data + before, out->data + before + 2, out->length - before - 1);
        out->length -= 2;
    }
    strbuf_append_cstr(out, "]");
    explain_ttl(context, node->state_ttl_millis, node->state_ttl_millis);
}

static double estimate_aggregate(const PlanNode *node)
{
    return node->aggregate.group_key_count ? cost_node_rows(node->inputs[0]) * 0.1 : 1;
}

/* The grouping keys come from the input; the aggregate values are computed. */
static const PlanNode *trace_aggregate(const PlanNode *node, uint32_t *field)
{
    if (*field >= node->aggregate.group_key_count)
        return NULL;
    *field = node->aggregate.group_keys[*field];
    return node->inputs[0];
}

/* LISTAGG, FIRST_VALUE and LAST_VALUE: over an updating input they keep every live value
   in state (Flink's retracting forms; exec/aggregate/value_lists.h), which GroupAggregate
   does and the window operators do not. */
bool plan_aggregate_is_append_only(PlanAggregateKind kind)
{
    return kind == PLAN_AGGREGATE_LISTAGG || kind == PLAN_AGGREGATE_FIRST_VALUE ||
           kind == PLAN_AGGREGATE_LAST_VALUE;
}

int plan_aggregate_check_user_defined(PlannerContext *context, const PlanNode *node,
                                      const char *merging, const char *retracting)
{
    for (uint32_t c = 0; c < node->aggregate.call_count; c++) {
        const struct UdfFunction *udf = node->aggregate.calls[c].udf;
        if (!udf)
            continue;
        if (merging && !udf->descriptor->merge)
            return diag_error(context->diag, JOINERY_ERROR_VALIDATE,
                              "Function '%s' does not implement at least one method named "
                              "'merge' (its descriptor's merge is NULL), which %s requires",
                              udf->name, merging);
        if (retracting && !udf->descriptor->retract)
            return diag_error(context->diag, JOINERY_ERROR_VALIDATE,
                              "Function '%s' does not implement at least one method named "
                              "'retract' (its descriptor's retract is NULL), which %s requires",
                              udf->name, retracting);
    }
    return JOINERY_OK;
}

static int derive_group_aggregate(PlannerContext *context, PlanNode *node)
{
    const PlanNode *input = node->inputs[0];
    int64_t ttl = node->ttl_from_hint ? node->state_ttl_millis : context->config->state_ttl_millis;
    for (uint32_t c = 0;
         input->changelog_mode != CHANGELOG_INSERT && ttl > 0 && c < node->aggregate.call_count;
         c++)
        if (plan_aggregate_is_append_only(node->aggregate.calls[c].kind))
            return diag_error(context->diag, JOINERY_ERROR_UNSUPPORTED,
                              "%s over an updating input (produced by node %s) with a state TTL "
                              "is not supported yet",
                              aggregate_name(node->aggregate.calls[c].kind),
                              plan_kind_name(input->kind == PLAN_EXCHANGE ? input->inputs[0]->kind
                                                                          : input->kind));
    for (uint32_t c = 0;
         input->changelog_mode != CHANGELOG_INSERT && c < node->aggregate.call_count; c++) {
        const struct UdfFunction *udf = node->aggregate.calls[c].udf;
        if (udf && !udf->descriptor->retract)
            return diag_error(context->diag, JOINERY_ERROR_VALIDATE,
                              "Function '%s' does not implement at least one method named "
                              "'retract' (its descriptor's retract is NULL), which an aggregate "
                              "over an updating input (produced by node %s) requires",
                              udf->name,
                              plan_kind_name(input->kind == PLAN_EXCHANGE ? input->inputs[0]->kind
                                                                          : input->kind));
    }
    node->changelog_mode = CHANGELOG_INSERT | CHANGELOG_UPDATE_BEFORE | CHANGELOG_UPDATE_AFTER;
    if (input->changelog_mode != CHANGELOG_INSERT)
        node->changelog_mode |= CHANGELOG_DELETE;
    node->row_count = node->aggregate.group_key_count ? input->row_count * 0.1 : 1;
    if (node->aggregate.group_key_count) {
        uint32_t fields[64];
        uint32_t count =
            node->aggregate.group_key_count < 64 ? node->aggregate.group_key_count : 64;
        for (uint32_t f = 0; f < count; f++)
            fields[f] = f;
        derive_add_unique_key(context->arena, node, fields, count);
    }
    if (!node->ttl_from_hint) /* a STATE_TTL hint wins over table.exec.state.ttl */
        node->state_ttl_millis = context->config->state_ttl_millis;
    return JOINERY_OK;
}

/*
 * True when the group keys hold window_start and window_end of one window table
 * function: Flink runs that as a WindowAggregate (one final row per window), not as a
 * GroupAggregate (updates as rows arrive), so it must not plan as one.
 */
static bool groups_by_window(const PlanNode *node)
{
    const WindowSpec *start_spec = NULL, *end_spec = NULL;
    for (uint32_t i = 0; i < node->aggregate.group_key_count; i++) {
        const WindowSpec *spec = NULL;
        WindowFieldRole role =
            plan_window_field(node->inputs[0], node->aggregate.group_keys[i], &spec);
        if (role == WINDOW_FIELD_START)
            start_spec = spec;
        else if (role == WINDOW_FIELD_END)
            end_spec = spec;
    }
    return start_spec && end_spec && start_spec == end_spec;
}

bool plan_aggregate_is_windowed(const PlanNode *node)
{
    return plan_group_window_key(node) >= 0 || groups_by_window(node);
}

static int convert_aggregate(PlannerContext *context, PlanNode *node, PlanNode **result)
{
    if (plan_group_window_key(node) >= 0)
        return plan_convert_group_window_aggregate(context, node, result);
    if (groups_by_window(node))
        return plan_convert_window_aggregate(context, node, result);
    PlanNode *input = NULL;
    int status = physical_convert(context, node->inputs[0], &input);
    if (status != JOINERY_OK)
        return status;
    PlanNode *aggregate = physical_copy_as(context, node, PLAN_GROUP_AGGREGATE);
    if (!aggregate)
        return JOINERY_ERROR_NO_MEMORY;
    aggregate->inputs[0] = plan_make_exchange(context, input, node->aggregate.group_keys,
                                              node->aggregate.group_key_count);
    if (!aggregate->inputs[0])
        return JOINERY_ERROR_NO_MEMORY;
    *result = aggregate;
    return JOINERY_OK;
}

static int push_aggregate(PlannerContext *context, PlanNode *node, RuleConjuncts *conjuncts,
                          PlanNode **result)
{
    Arena *arena = context->arena;
    uint32_t group_count = node->aggregate.group_key_count;
    int32_t *mapping = arena_calloc(arena, node->field_count + 1, sizeof(int32_t));
    if (!mapping)
        return JOINERY_ERROR_NO_MEMORY;
    int window_key = plan_group_window_key(node);
    for (uint32_t i = 0; i < node->field_count; i++)
        mapping[i] = i < group_count ? (int32_t)node->aggregate.group_keys[i] : -1;
    /* a group window key is not a value below the aggregate: conditions on it stay above */
    if (window_key >= 0)
        mapping[window_key] = -1;
    RuleConjuncts below = {0}, above = {0};
    for (uint32_t i = 0; i < conjuncts->count; i++) {
        Expr *conjunct = conjuncts->items[i];
        uint64_t used[16] = {0};
        bool only_keys = node->field_count <= 64 * 16 && expr_is_deterministic(conjunct);
        if (only_keys) {
            expr_collect_inputs(conjunct, used);
            for (uint32_t f = group_count; f < node->field_count; f++)
                if ((used[f / 64] >> (f % 64)) & 1)
                    only_keys = false;
            if (window_key >= 0 && ((used[window_key / 64] >> (window_key % 64)) & 1))
                only_keys = false;
        }
        /* a global aggregate emits a row even for empty input: keep filters above */
        if (only_keys && group_count > 0) {
            Expr *remapped = expr_remap_inputs(arena, conjunct, mapping);
            if (!remapped || rule_conjuncts_add(arena, &below, remapped) != JOINERY_OK)
                return JOINERY_ERROR_NO_MEMORY;
        } else if (rule_conjuncts_add(arena, &above, conjunct) != JOINERY_OK) {
            return JOINERY_ERROR_NO_MEMORY;
        }
    }
    return rule_push_through(context, node, &below, &above, result);
}

static uint64_t *aggregate_input_fields_used(Arena *arena, const PlanNode *node, uint32_t input,
                                             const uint64_t *used)
{
    (void)used;
    uint64_t *fields = rule_fields_new(arena, node->inputs[input]->field_count);
    for (uint32_t k = 0; fields && k < node->aggregate.group_key_count; k++)
        rule_fields_add(fields, node->aggregate.group_keys[k]);
    for (uint32_t c = 0; fields && c < node->aggregate.call_count; c++) {
        if (node->aggregate.calls[c].kind != PLAN_AGGREGATE_COUNT_STAR) {
            rule_fields_add(fields, node->aggregate.calls[c].argument);
            if (node->aggregate.calls[c].has_separator)
                rule_fields_add(fields, node->aggregate.calls[c].separator);
            for (uint32_t m = 0; m < node->aggregate.calls[c].more_argument_count; m++)
                rule_fields_add(fields, node->aggregate.calls[c].more_arguments[m]);
        }
        if (node->aggregate.calls[c].has_filter)
            rule_fields_add(fields, node->aggregate.calls[c].filter);
    }
    return fields;
}

/* A copy of the LogicalAggregate `node` without the calls nothing reads (Calcite's field
   trimming, as Flink prints it: `SELECT a FROM (SELECT a, COUNT(b) FROM t GROUP BY a)` is
   GroupAggregate(groupBy=[a], select=[a])); the first call stays when neither a key nor a
   call would (as Calcite's RelFieldTrimmer). *mapping: the old field -> the new one, -1 for a
   pruned call. */
static PlanNode *aggregate_without_unused_calls(Arena *arena, const PlanNode *node,
                                                const uint64_t *used, int32_t **mapping)
{
    uint32_t keys = node->aggregate.group_key_count;
    uint32_t kept = 0;
    *mapping = arena_calloc(arena, node->field_count + 1, sizeof(int32_t));
    PlanNode *copy = arena_alloc(arena, sizeof(PlanNode));
    PlanAggregateCall *calls =
        arena_calloc(arena, node->aggregate.call_count + 1, sizeof(PlanAggregateCall));
    PlanField *fields = arena_calloc(arena, node->field_count + 1, sizeof(PlanField));
    if (!*mapping || !copy || !calls || !fields)
        return NULL;
    *copy = *node;
    for (uint32_t k = 0; k < keys; k++) {
        (*mapping)[k] = (int32_t)k;
        fields[k] = node->fields[k];
    }
    bool any_read = keys > 0;
    for (uint32_t c = 0; c < node->aggregate.call_count; c++)
        any_read = any_read || rule_fields_has(used, keys + c);
    for (uint32_t c = 0; c < node->aggregate.call_count; c++) {
        bool read = rule_fields_has(used, keys + c) || (c == 0 && !any_read);
        (*mapping)[keys + c] = read ? (int32_t)(keys + kept) : -1;
        if (!read)
            continue;
        calls[kept] = node->aggregate.calls[c];
        fields[keys + kept] = node->fields[keys + c];
        kept++;
    }
    copy->aggregate.calls = calls;
    copy->aggregate.call_count = kept;
    copy->fields = fields;
    copy->field_count = keys + kept;
    return copy;
}

static int prune_aggregate(PlannerContext *context, PlanNode *node, uint64_t *used,
                           RulePruned *result)
{
    Arena *arena = context->arena;
    int32_t *mapping = NULL;
    if (node->field_count == node->aggregate.group_key_count + node->aggregate.call_count &&
        !plan_aggregate_is_windowed(node)) {
        node = aggregate_without_unused_calls(arena, node, used, &mapping);
        if (!node)
            return JOINERY_ERROR_NO_MEMORY;
    }
    uint64_t *input_used = aggregate_input_fields_used(arena, node, 0, used);
    if (!input_used)
        return JOINERY_ERROR_NO_MEMORY;
    RulePruned input;
    PlanNode *aggregate;
    int status = rule_prune_input(context, node, input_used, &aggregate, &input);
    if (status != JOINERY_OK)
        return status;
    aggregate->aggregate.group_keys =
        arena_calloc(arena, node->aggregate.group_key_count + 1, sizeof(uint32_t));
    aggregate->aggregate.calls =
        arena_calloc(arena, node->aggregate.call_count + 1, sizeof(PlanAggregateCall));
    if (!aggregate->aggregate.group_keys || !aggregate->aggregate.calls)
        return JOINERY_ERROR_NO_MEMORY;
    for (uint32_t i = 0; i < node->aggregate.group_key_count; i++)
        aggregate->aggregate.group_keys[i] = (uint32_t)input.mapping[node->aggregate.group_keys[i]];
    for (uint32_t i = 0; i < node->aggregate.call_count; i++) {
        aggregate->aggregate.calls[i] = node->aggregate.calls[i];
        if (node->aggregate.calls[i].kind != PLAN_AGGREGATE_COUNT_STAR) {
            aggregate->aggregate.calls[i].argument =
                (uint32_t)input.mapping[node->aggregate.calls[i].argument];
            if (node->aggregate.calls[i].has_separator)
                aggregate->aggregate.calls[i].separator =
                    (uint32_t)input.mapping[node->aggregate.calls[i].separator];
            for (uint32_t m = 0; m < node->aggregate.calls[i].more_argument_count; m++)
                aggregate->aggregate.calls[i].more_arguments[m] =
                    (uint32_t)input.mapping[node->aggregate.calls[i].more_arguments[m]];
        }
        if (node->aggregate.calls[i].has_filter)
            aggregate->aggregate.calls[i].filter =
                (uint32_t)input.mapping[node->aggregate.calls[i].filter];
    }
    result->node = aggregate;
    result->mapping = mapping ? mapping : rule_identity_mapping(arena, node->field_count);
    return result->mapping ? JOINERY_OK : JOINERY_ERROR_NO_MEMORY;
}

const PlanKindInfo plan_kind_logical_aggregate = {
    .kind = PLAN_LOGICAL_AGGREGATE,
    .name = "LogicalAggregate",
    .explain = explain_logical_aggregate,
    .convert = convert_aggregate,
    .estimate = estimate_aggregate,
    .trace_field = trace_aggregate,
    .push_filters = push_aggregate,
    .prune_fields = prune_aggregate,
    .input_fields_used = aggregate_input_fields_used,
};

const PlanKindInfo plan_kind_group_aggregate = {
    .kind = PLAN_GROUP_AGGREGATE,
    .name = "GroupAggregate",
    .physical = true,
    .stateful = true,
    .explain = explain_group_aggregate,
    .derive = derive_group_aggregate,
    .estimate = estimate_aggregate,
    .trace_field = trace_aggregate,
};
