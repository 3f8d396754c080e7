/*
 * prune_fields.c - projection pruning: every node keeps only the fields
 * something above it reads, down to the table scan, whose produced columns
 * become project=[...].
 *
 * rule_prune_fields_of(node, used) returns a node whose fields are the
 * `used` fields of the original (plus any the node itself cannot drop), in
 * their original order, and mapping[old field] = new index or -1. The walk
 * is here; how a node drops fields is its kind's prune_fields hook (nodes/):
 * a kind without one keeps every field and asks all of its inputs'.
 */
#include <string.h>

#include "engine/plan/nodes/nodes.h"

int32_t *rule_identity_mapping(Arena *arena, uint32_t count)
{
    int32_t *mapping = arena_calloc(arena, count + 1, sizeof(int32_t));
    for (uint32_t i = 0; mapping && i < count; i++)
        mapping[i] = (int32_t)i;
    return mapping;
}

void rule_compact_fields(const PlanField *from, uint32_t count, const int32_t *mapping,
                         PlanField *to)
{
    for (uint32_t i = 0; i < count; i++)
        if (mapping[i] >= 0)
            to[mapping[i]] = from[i];
}

int rule_project_used(PlannerContext *context, PlanNode *node, uint32_t original_count,
                      const uint64_t *used, const int32_t *mapping, RulePruned *result)
{
    Arena *arena = context->arena;
    uint32_t count = 0;
    for (uint32_t i = 0; i < original_count; i++)
        count += rule_fields_has(used, i);
    if (count == node->field_count) {
        result->node = node;
        result->mapping = (int32_t *)mapping;
        return JOINERY_OK;
    }
    PlanNode *project = plan_node_new(arena, PLAN_LOGICAL_PROJECT, 1, count);
    int32_t *new_mapping = arena_calloc(arena, original_count + 1, sizeof(int32_t));
    if (!project || !new_mapping)
        return JOINERY_ERROR_NO_MEMORY;
    project->id = ++context->next_node_id;
    project->inputs[0] = node;
    project->calc.project_count = count;
    project->calc.projects = arena_calloc(arena, count + 1, sizeof(Expr *));
    if (!project->calc.projects)
        return JOINERY_ERROR_NO_MEMORY;
    uint32_t next = 0;
    for (uint32_t i = 0; i < original_count; i++) {
        new_mapping[i] = -1;
        if (!rule_fields_has(used, i))
            continue;
        int32_t from = mapping[i];
        project->calc.projects[next] =
            expr_make_input_ref(arena, (uint32_t)from, node->fields[from].type);
        project->fields[next] = node->fields[from];
        new_mapping[i] = (int32_t)next++;
    }
    result->node = project;
    result->mapping = new_mapping;
    return JOINERY_OK;
}

int rule_prune_input(PlannerContext *context, const PlanNode *node, uint64_t *input_used,
                     PlanNode **copy, RulePruned *input)
{
    int status = rule_prune_fields_of(context, node->inputs[0], input_used, input);
    if (status != JOINERY_OK)
        return status;
    *copy = plan_node_copy(context->arena, node);
    if (!*copy)
        return JOINERY_ERROR_NO_MEMORY;
    (*copy)->inputs[0] = input->node;
    return JOINERY_OK;
}

/* Keeps every field: prunes the inputs as each needs and remaps nothing. */
static int prune_keep_all(PlannerContext *context, PlanNode *node, RulePruned *result)
{
    PlanNode *copy = plan_node_copy(context->arena, node);
    if (!copy)
        return JOINERY_ERROR_NO_MEMORY;
    for (uint32_t i = 0; i < node->input_count; i++) {
        uint64_t *all = rule_fields_copy(context->arena, NULL, node->inputs[i]->field_count);
        if (!all)
            return JOINERY_ERROR_NO_MEMORY;
        RulePruned input;
        int status = rule_prune_fields_of(context, node->inputs[i], all, &input);
        if (status != JOINERY_OK)
            return status;
        copy->inputs[i] = input.node;
    }
    result->node = copy;
    result->mapping = rule_identity_mapping(context->arena, node->field_count);
    return result->mapping ? JOINERY_OK : JOINERY_ERROR_NO_MEMORY;
}

int rule_prune_fields_of(PlannerContext *context, PlanNode *node, uint64_t *used,
                         RulePruned *result)
{
    const PlanKindInfo *info = plan_kind_info(node->kind);
    if (info->prune_fields)
        return info->prune_fields(context, node, used, result);
    return prune_keep_all(context, node, result);
}

int rule_prune_fields(PlannerContext *context, PlanNode *node, PlanNode **result)
{
    uint64_t *all = rule_fields_copy(context->arena, NULL, node->field_count);
    if (!all)
        return diag_error(context->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    RulePruned pruned;
    int status = rule_prune_fields_of(context, node, all, &pruned);
    if (status != JOINERY_OK)
        return diag_error(context->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    *result = pruned.node;
    return JOINERY_OK;
}
