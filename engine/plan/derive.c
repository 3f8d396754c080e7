/*
 * derive.c - physical plan properties, bottom-up: changelog mode, unique
 * keys (and the join input specs Flink prints), boundedness, row-count
 * estimates and the effective state TTL of stateful nodes; sinks check
 * that they can consume the changes their input produces.
 *
 * The walk is here; what a node derives is its descriptor's derive hook
 * (nodes/), with the helpers below.
 */
#include "engine/plan/nodes/nodes.h"
#include "engine/plan/physical.h"

void derive_add_unique_key(Arena *arena, PlanNode *node, const uint32_t *fields, uint32_t count)
{
    if (node->unique_key_count >= PLAN_MAX_UNIQUE_KEYS)
        return;
    PlanKey *key = &node->unique_keys[node->unique_key_count];
    key->fields = arena_calloc(arena, count + 1, sizeof(uint32_t));
    if (!key->fields)
        return;
    /* sorted ascending */
    for (uint32_t i = 0; i < count; i++) {
        uint32_t value = fields[i], j = i;
        while (j > 0 && key->fields[j - 1] > value) {
            key->fields[j] = key->fields[j - 1];
            j--;
        }
        key->fields[j] = value;
    }
    key->count = count;
    node->unique_key_count++;
}

int derive_forward(PlannerContext *context, PlanNode *node)
{
    const PlanNode *input = node->inputs[0];
    node->changelog_mode = input->changelog_mode;
    node->row_count = input->row_count;
    for (uint32_t k = 0; k < input->unique_key_count; k++)
        derive_add_unique_key(context->arena, node, input->unique_keys[k].fields,
                              input->unique_keys[k].count);
    return JOINERY_OK;
}

static int derive(PlannerContext *context, PlanNode *node)
{
    for (uint32_t i = 0; i < node->input_count; i++) {
        int status = derive(context, node->inputs[i]);
        if (status != JOINERY_OK)
            return status;
    }
    node->unique_key_count = 0;
    node->bounded = true;
    for (uint32_t i = 0; i < node->input_count; i++)
        node->bounded = node->bounded && node->inputs[i]->bounded;
    const PlanKindInfo *info = plan_kind_info(node->kind);
    return info->derive ? info->derive(context, node) : JOINERY_OK;
}

int plan_derive_properties(PlannerContext *context, PlanNode *physical)
{
    return derive(context, physical);
}
