/*
 * node_local_group_aggregate.c - LocalGroupAggregate, the first phase of a
 * two-phase group aggregation (rules/split_two_phase_aggregate.c): below
 * the hash exchange, without state, it folds each mini-batch per group key
 * into partial accumulators. EXPLAIN as Flink's TwoStageAggregateTest:
 * `LocalGroupAggregate(groupBy=[b], select=[b, COUNT(a) AS count$0,
 * AVG(c) AS (sum$1, count$2)])`; over an input with retractions the calls
 * print _RETRACT and, without a COUNT(*), `COUNT_RETRACT(*) AS count1$n`
 * closes the list (the row count that tells the global phase when a group
 * is empty).
 *
 * Fields: the group keys, then the partial accumulator as the operators
 * lay it out (aggregate_accumulator.h): row count, then per call its value
 * (SUM / AVG: BIGINT, or DOUBLE for FLOAT / DOUBLE arguments; MIN / MAX:
 * the argument's type; COUNT: unused) and count. Output: insert-only.
 */
#include <string.h>

#include "engine/plan/cost.h"
#include "engine/plan/nodes/nodes.h"
#include "engine/udf/udf.h"

bool plan_aggregate_can_merge(const PlanNode *node, bool input_is_update)
{
    for (uint32_t i = 0; i < node->aggregate.call_count; i++) {
        const PlanAggregateCall *call = &node->aggregate.calls[i];
        if (call->distinct)
            return false;
        switch (call->kind) {
        case PLAN_AGGREGATE_COUNT_STAR:
        case PLAN_AGGREGATE_COUNT:
        case PLAN_AGGREGATE_SUM:
        case PLAN_AGGREGATE_SUM0:
        case PLAN_AGGREGATE_AVG:
            break;
        case PLAN_AGGREGATE_MIN:
        case PLAN_AGGREGATE_MAX:
            /* the next extreme after a retraction needs every value (one phase) */
            if (input_is_update)
                return false;
            break;
        case PLAN_AGGREGATE_USER_DEFINED:
            /* the local accumulator's bytes, merged in the global phase by its merge */
            if (!call->udf || !call->udf->descriptor->merge)
                return false;
            break;
        default:
            return false;
        }
    }
    return true;
}

void plan_explain_accumulator(StrBuf *out, const PlanAggregateCall *call, bool retract,
                              uint32_t *index)
{
    uint32_t i = *index;
    if (call->udf) {
        /* Flink's name of an AggregateFunction's accumulator: its name in lower case */
        for (const char *c = call->udf->name; *c; c++)
            strbuf_append_char(out, (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c));
        strbuf_printf(out, "$%u", i);
        *index = i + 1;
        return;
    }
    switch (call->kind) {
    case PLAN_AGGREGATE_COUNT_STAR:
        strbuf_printf(out, "count1$%u", i);
        *index = i + 1;
        return;
    case PLAN_AGGREGATE_COUNT:
        strbuf_printf(out, "count$%u", i);
        *index = i + 1;
        return;
    case PLAN_AGGREGATE_SUM0:
        strbuf_printf(out, "sum$%u", i);
        *index = i + 1;
        return;
    case PLAN_AGGREGATE_SUM:
        if (!retract) {
            strbuf_printf(out, "sum$%u", i);
            *index = i + 1;
            return;
        }
        strbuf_printf(out, "(sum$%u, count$%u)", i, i + 1);
        *index = i + 2;
        return;
    case PLAN_AGGREGATE_AVG:
        strbuf_printf(out, "(sum$%u, count$%u)", i, i + 1);
        *index = i + 2;
        return;
    case PLAN_AGGREGATE_MIN:
        strbuf_printf(out, "min$%u", i);
        *index = i + 1;
        return;
    case PLAN_AGGREGATE_MAX:
        strbuf_printf(out, "max$%u", i);
        *index = i + 1;
        return;
    default:
        strbuf_printf(out, "acc$%u", i); /* not planned in two phases */
        *index = i + 1;
        return;
    }
}

/* A COUNT(*) without FILTER: it counts the group's rows (Flink's count-star index). */
static bool has_count_star(const PlanNode *node)
{
    for (uint32_t i = 0; i < node->aggregate.call_count; i++)
        if (node->aggregate.calls[i].kind == PLAN_AGGREGATE_COUNT_STAR &&
            !node->aggregate.calls[i].has_filter)
            return true;
    return false;
}

static void explain_local_group_aggregate(ExplainContext *context, const PlanNode *node)
{
    StrBuf *out = context->out;
    const char *const *names = explain_input_names(context, node);
    bool retract = node->inputs[0]->changelog_mode != CHANGELOG_INSERT;
    uint32_t key_count = node->aggregate.group_key_count;
    if (key_count) {
        strbuf_append_cstr(out, "groupBy=[");
        for (uint32_t i = 0; i < key_count; i++)
            strbuf_printf(out, "%s%s", i ? ", " : "", names[node->aggregate.group_keys[i]]);
        strbuf_append_cstr(out, "], ");
    }
    explain_partial_final(context, node);
    strbuf_append_cstr(out, "select=[");
    bool first = true;
    for (uint32_t i = 0; i < key_count; i++, first = false)
        strbuf_printf(out, "%s%s", i ? ", " : "", names[node->aggregate.group_keys[i]]);
    uint32_t index = 0;
    for (uint32_t i = 0; i < node->aggregate.call_count; i++, first = false) {
        const PlanAggregateCall *call = &node->aggregate.calls[i];
        strbuf_printf(out, "%s%s%s(%s", first ? "" : ", ", plan_aggregate_call_name(call),
                      retract && !call->udf ? "_RETRACT" : "",
                      call->kind == PLAN_AGGREGATE_COUNT_STAR ? "*" : names[call->argument]);
        if (call->udf && call->has_separator)
            strbuf_printf(out, ", %s", names[call->separator]);
        for (uint32_t m = 0; m < call->more_argument_count; m++)
            strbuf_printf(out, ", %s", names[call->more_arguments[m]]);
        strbuf_append_cstr(out, ")");
        if (call->has_filter)
            strbuf_printf(out, " FILTER %s", names[call->filter]);
        strbuf_append_cstr(out, " AS ");
        plan_explain_accumulator(out, call, retract, &index);
    }
    if (retract && !has_count_star(node))
        strbuf_printf(out, "%sCOUNT_RETRACT(*) AS count1$%u", first ? "" : ", ", index);
    strbuf_append_cstr(out, "]");
}

/* One partial accumulator per key and batch: at most the input's rows, insert-only. */
static int derive_local_group_aggregate(PlannerContext *context, PlanNode *node)
{
    (void)context;
    node->changelog_mode = CHANGELOG_INSERT;
    node->row_count = node->inputs[0]->row_count;
    return JOINERY_OK;
}

static double estimate_local_group_aggregate(const PlanNode *node)
{
    return cost_node_rows(node->inputs[0]);
}

/* The grouping keys come from the input; the accumulators are computed. */
static const PlanNode *trace_local_group_aggregate(const PlanNode *node, uint32_t *field)
{
    if (*field >= node->aggregate.group_key_count)
        return NULL;
    *field = node->aggregate.group_keys[*field];
    return node->inputs[0];
}

const PlanKindInfo plan_kind_local_group_aggregate = {
    .kind = PLAN_LOCAL_GROUP_AGGREGATE,
    .name = "LocalGroupAggregate",
    .physical = true,
    .explain = explain_local_group_aggregate,
    .derive = derive_local_group_aggregate,
    .estimate = estimate_local_group_aggregate,
    .trace_field = trace_local_group_aggregate,
};
