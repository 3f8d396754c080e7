/*
 * node_changelog_normalize.c - ChangelogNormalize: an upsert source's
 * changes (UA, D by primary key) made a full changelog (I, UB, UA, D) by
 * keeping the last row per key; keyed by the primary key (exchange.keys).
 * Made by the conversion of an upsert table's scan (node_scan.c).
 */
#include "engine/plan/nodes/nodes.h"

static void explain_changelog_normalize(ExplainContext *context, const PlanNode *node)
{
    strbuf_append_cstr(context->out, "key=[");
    for (uint32_t k = 0; k < node->exchange.key_count; k++)
        strbuf_printf(context->out, "%s%s", k ? ", " : "",
                      node->fields[node->exchange.keys[k]].name);
    strbuf_append_cstr(context->out, "]");
    explain_ttl(context, node->state_ttl_millis, node->state_ttl_millis);
}

static int derive_changelog_normalize(PlannerContext *context, PlanNode *node)
{
    node->changelog_mode =
        CHANGELOG_INSERT | CHANGELOG_UPDATE_BEFORE | CHANGELOG_UPDATE_AFTER | CHANGELOG_DELETE;
    node->row_count = node->inputs[0]->row_count;
    derive_add_unique_key(context->arena, node, node->exchange.keys, node->exchange.key_count);
    node->state_ttl_millis = context->config->state_ttl_millis;
    return JOINERY_OK;
}

const PlanKindInfo plan_kind_changelog_normalize = {
    .kind = PLAN_CHANGELOG_NORMALIZE,
    .name = "ChangelogNormalize",
    .physical = true,
    .stateful = true,
    .explain = explain_changelog_normalize,
    .derive = derive_changelog_normalize,
};
