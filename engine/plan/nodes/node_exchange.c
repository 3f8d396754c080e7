/*
 * node_exchange.c - Exchange: rows routed to the subtasks of the keyed
 * operator above by the hash of its keys (hash[...]), or all to one
 * (single).
 */
#include <string.h>

#include "engine/plan/nodes/nodes.h"

static void explain_exchange(ExplainContext *context, const PlanNode *node)
{
    StrBuf *out = context->out;
    if (node->exchange.distribution == PLAN_DISTRIBUTION_SINGLE) {
        strbuf_append_cstr(out, "distribution=[single]");
        return;
    }
    strbuf_append_cstr(out, "distribution=[hash[");
    for (uint32_t i = 0; i < node->exchange.key_count; i++)
        strbuf_printf(out, "%s%s", i ? ", " : "", node->fields[node->exchange.keys[i]].name);
    strbuf_append_cstr(out, "]]");
}

PlanNode *plan_make_exchange(PlannerContext *context, PlanNode *input, const uint32_t *keys,
                             uint32_t key_count)
{
    PlanNode *exchange = physical_new_node(context, PLAN_EXCHANGE, 1, input->field_count);
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

const PlanKindInfo plan_kind_exchange = {
    .kind = PLAN_EXCHANGE,
    .name = "Exchange",
    .physical = true,
    .shuffles = true,
    .explain = explain_exchange,
    .forwards_changes = true,
    .derive = derive_forward,
    .trace_field = cost_trace_to_input,
};
