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
#include "engine/connector/connector.h"
#include "engine/plan/nodes/nodes.h"
#include "engine/plan/physical.h"
#include "engine/sql/ast_depth.h"

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

/* Every TableSourceScan reads a table whose connector is a source. */
static int check_scans_readable(PlannerContext *context, const PlanNode *node, int depth)
{
    if (depth > SQL_MAX_DEPTH)
        return diag_error(context->diag, JOINERY_ERROR_UNSUPPORTED,
                          "The plan is nested too deeply (more than %d levels)", SQL_MAX_DEPTH);
    if (node->kind == PLAN_TABLE_SOURCE_SCAN) {
        const CatalogTable *table = node->scan.table;
        const char *name = catalog_table_option(table, "connector");
        const Connector *connector = connector_find(name);
        if (!connector || !connector->create_source)
            return diag_error(
                context->diag, JOINERY_ERROR_VALIDATE,
                "Cannot generate a valid execution plan for the given query: table `%s` cannot "
                "be read: connector '%s' is not a source%s%s%s",
                table->name, name ? name : "",
                connector && connector->create_lookup
                    ? "; it can only be looked up, as the dimension table of a lookup join "
                      "(JOIN "
                : connector && connector->create_sink ? "; it can only be written to"
                                                      : "",
                connector && connector->create_lookup ? table->name : "",
                connector && connector->create_lookup
                    ? " FOR SYSTEM_TIME AS OF <probe side>.<proctime> ON <its key> = ...)"
                    : "");
    }
    for (uint32_t i = 0; i < node->input_count; i++) {
        int status = check_scans_readable(context, node->inputs[i], depth + 1);
        if (status != JOINERY_OK)
            return status;
    }
    return JOINERY_OK;
}

int plan_to_physical(PlannerContext *context, PlanNode *logical, PlanNode **physical)
{
    int status = physical_convert(context, logical, physical);
    if (status == JOINERY_ERROR_NO_MEMORY)
        return diag_error(context->diag, status, "out of memory");
    if (status == JOINERY_OK)
        status = check_current_watermark(context, *physical);
    if (status == JOINERY_OK)
        status = check_scans_readable(context, *physical, 0);
    if (status == JOINERY_OK)
        plan_mark_final_limit(*physical);
    return status;
}
