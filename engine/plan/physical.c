/*
 * physical.c - logical plan to physical (stream) plan: the walk, each
 * node's conversion being its descriptor's convert hook (nodes/):
 *
 *   LogicalTableScan          -> TableSourceScan (of an upsert table: with
 *                                Exchange(hash[pk]) and ChangelogNormalize)
 *   LogicalProject / Filter   -> Calc (adjacent ones merged; identity removed)
 *   LogicalJoin               -> Join over Exchange(hash[keys]) inputs; equi
 *                                keys extracted from the condition (computed
 *                                keys get a Calc below), the rest is residual
 *   LogicalMultiJoin          -> MultiJoin over Exchange(hash[common key]) inputs
 *   LogicalAggregate          -> GroupAggregate over Exchange(hash[keys] | single)
 *   LogicalUnion / Values / WatermarkAssigner / Sink -> their physical twins
 *
 * Then CURRENT_WATERMARK outside a Calc is rejected, and so is a scan of a
 * table whose connector cannot be read (redis: looked up only; print,
 * blackhole: written only), at planning as Flink ("Cannot generate a valid
 * execution plan"), so EXPLAIN refuses it too. A lookup join's dimension
 * table is not a scan of the physical plan (node_lookup_join.c).
 */
#include <stdlib.h>

#include "engine/connector/connector.h"
#include "engine/plan/nodes/nodes.h"
#include "engine/plan/physical.h"

PlanNode *physical_new_node(PlannerContext *context, PlanKind kind, uint32_t inputs,
                            uint32_t fields)
{
    PlanNode *node = plan_node_new(context->arena, kind, inputs, fields);
    if (node)
        node->id = ++context->next_node_id;
    return node;
}

PlanNode *physical_copy_as(PlannerContext *context, const PlanNode *node, PlanKind kind)
{
    PlanNode *copy = plan_node_copy(context->arena, node);
    if (!copy)
        return NULL;
    copy->kind = kind;
    copy->id = ++context->next_node_id;
    return copy;
}

int physical_convert_twin(PlannerContext *context, PlanNode *node, PlanKind kind, PlanNode **result)
{
    PlanNode *copy = physical_copy_as(context, node, kind);
    if (!copy)
        return JOINERY_ERROR_NO_MEMORY;
    for (uint32_t i = 0; i < node->input_count; i++) {
        int status = physical_convert(context, node->inputs[i], &copy->inputs[i]);
        if (status != JOINERY_OK)
            return status;
    }
    *result = copy;
    return JOINERY_OK;
}

int physical_convert(PlannerContext *context, PlanNode *node, PlanNode **result)
{
    const PlanKindInfo *info = plan_kind_info(node->kind);
    if (info->convert)
        return info->convert(context, node, result);
    if (info->twin)
        return physical_convert_twin(context, node, info->twin->kind, result);
    return diag_error(context->diag, JOINERY_ERROR_UNSUPPORTED, "Plan node %s cannot be converted",
                      info->name);
}

/*
 * CURRENT_WATERMARK runs in Calc only (a projection or a filter), where the
 * operator's input watermark is known; anywhere else it is rejected.
 */
static int check_current_watermark(PlannerContext *context, const PlanNode *node)
{
    const PlanKindInfo *info = plan_kind_info(node->kind);
    if (info->calls_current_watermark && info->calls_current_watermark(node))
        return diag_error(context->diag, JOINERY_ERROR_UNSUPPORTED,
                          "CURRENT_WATERMARK is supported in SELECT and WHERE only, not in %s",
                          info->name);
    for (uint32_t i = 0; i < node->input_count; i++) {
        int status = check_current_watermark(context, node->inputs[i]);
        if (status != JOINERY_OK)
            return status;
    }
    return JOINERY_OK;
}

/* The refusal of a scan of `table`, whose connector cannot be read. */
static int refuse_scan(PlannerContext *context, const CatalogTable *table)
{
    const char *name = catalog_table_option(table, "connector");
    const Connector *connector = connector_find(name);
    bool lookup = connector && connector->create_lookup;
    return diag_error(context->diag, JOINERY_ERROR_VALIDATE,
                      "Cannot generate a valid execution plan for the given query: table `%s` "
                      "cannot be read: connector '%s' is not a source%s%s%s",
                      table->name, name ? name : "",
                      lookup ? "; it can only be looked up, as the dimension table of a lookup "
                               "join (JOIN "
                      : connector && connector->create_sink ? "; it can only be written to"
                                                            : "",
                      lookup ? table->name : "",
                      lookup ? " FOR SYSTEM_TIME AS OF <probe side>.<proctime> ON <its key> = ...)"
                             : "");
}

/*
 * Every TableSourceScan reads a table whose connector is a source. An
 * explicit stack, not recursion: a plan of a thousand joins is deeper than
 * the C stack should carry.
 */
static int check_scans_readable(PlannerContext *context, const PlanNode *root)
{
    size_t capacity = 64, count = 0;
    const PlanNode **stack = malloc(capacity * sizeof *stack);
    if (!stack)
        return diag_error(context->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    stack[count++] = root;
    int status = JOINERY_OK;
    while (count > 0 && status == JOINERY_OK) {
        const PlanNode *node = stack[--count];
        if (node->kind == PLAN_TABLE_SOURCE_SCAN) {
            const Connector *connector =
                connector_find(catalog_table_option(node->scan.table, "connector"));
            if (!connector || !connector->create_source)
                status = refuse_scan(context, node->scan.table);
        }
        if (count + node->input_count > capacity) {
            capacity = (count + node->input_count) * 2;
            const PlanNode **grown = realloc(stack, capacity * sizeof *grown);
            if (!grown) {
                status = diag_error(context->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
                break;
            }
            stack = grown;
        }
        for (uint32_t i = 0; i < node->input_count; i++)
            stack[count++] = node->inputs[i];
    }
    free(stack);
    return status;
}

int plan_to_physical(PlannerContext *context, PlanNode *logical, PlanNode **physical)
{
    int status = physical_convert(context, logical, physical);
    if (status == JOINERY_ERROR_NO_MEMORY)
        return diag_error(context->diag, status, "out of memory");
    if (status == JOINERY_OK)
        status = check_current_watermark(context, *physical);
    if (status == JOINERY_OK)
        status = check_scans_readable(context, *physical);
    if (status == JOINERY_OK)
        plan_mark_final_limit(*physical);
    return status;
}
