/*
 * node_exchange.c - Exchange: rows routed to the subtasks of the keyed
 * operator above by the hash of its keys (hash[...]), or all to one
 * (single).
 */
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

const PlanKindInfo plan_kind_exchange = {
    .kind = PLAN_EXCHANGE,
    .name = "Exchange",
    .physical = true,
    .shuffles = true,
    .explain = explain_exchange,
    .forwards_changes = true,
    .derive = derive_forward,
};
