/*
 * push_watermark.c - watermark push-down into sources that generate
 * watermarks themselves (Flink's PushWatermarkIntoTableSourceScanRule and
 * its AcrossCalc variant, for connectors with SupportsWatermarkPushDown:
 * kafka and upsert-kafka, Connector.supports_watermark_push_down).
 *
 *   LogicalWatermarkAssigner(wm)                 -> LogicalTableScan(watermark=wm)
 *   +- LogicalTableScan
 *
 *   LogicalWatermarkAssigner(wm)                 -> LogicalProject(computed)
 *   +- LogicalProject(computed, deterministic)      +- LogicalTableScan(watermark=wm')
 *      +- LogicalTableScan
 *
 * where wm' is wm with the computed columns it reads replaced by their
 * expressions over the scan's fields. The node that replaces the assigner
 * keeps its row type, rowtime attribute included. The scan also takes the
 * session's idle timeout (table.exec.source.idle-timeout) and emit interval
 * (pipeline.auto-watermark-interval), as Flink's WatermarkPushDownSpec does.
 * Sources without the ability (datagen, filesystem) keep the assigner.
 *
 * Runs after projection pruning, so the scan already reads what the
 * watermark needs; other nodes are copied only when an input changed.
 */
#include <string.h>

#include "engine/connector/connector.h"
#include "engine/plan/rules/rules.h"

static bool scan_can_take_watermark(const PlanNode *scan)
{
    if (scan->kind != PLAN_LOGICAL_TABLE_SCAN || scan->scan.watermark)
        return false;
    const Connector *connector =
        connector_find(catalog_table_option(scan->scan.table, "connector"));
    return connector && connector->supports_watermark_push_down;
}

/* A copy of `node` with its own field array, the rowtime field marked. */
static PlanNode *copy_with_rowtime(Arena *arena, const PlanNode *node, uint32_t rowtime)
{
    PlanNode *copy = plan_node_copy(arena, node);
    PlanField *fields = copy ? arena_calloc(arena, node->field_count + 1, sizeof(PlanField)) : NULL;
    if (!fields)
        return NULL;
    memcpy(fields, node->fields, node->field_count * sizeof(PlanField));
    fields[rowtime].type.time_attribute = TIME_ATTRIBUTE_ROWTIME;
    copy->fields = fields;
    return copy;
}

/* The scan with `watermark` (over its fields) pushed in; NULL on no memory. */
static PlanNode *scan_with_watermark(PlannerContext *context, const PlanNode *scan, Expr *watermark,
                                     const uint32_t *rowtime)
{
    PlanNode *copy = rowtime ? copy_with_rowtime(context->arena, scan, *rowtime)
                             : plan_node_copy(context->arena, scan);
    if (!copy)
        return NULL;
    copy->scan.watermark = watermark;
    copy->scan.idle_timeout_millis = context->config->source_idle_timeout_millis;
    copy->scan.watermark_interval_millis = context->config->watermark_interval_millis;
    return copy;
}

/* The replacement of assigner `node` (inputs already rewritten), or node itself. */
static int push_into(PlannerContext *context, PlanNode *node, PlanNode **result)
{
    *result = node;
    PlanNode *input = node->inputs[0];
    uint32_t rowtime = node->watermark.rowtime_field;
    if (scan_can_take_watermark(input)) {
        *result = scan_with_watermark(context, input, node->watermark.watermark, &rowtime);
        return *result ? JOINERY_OK : JOINERY_ERROR_NO_MEMORY;
    }
    if (input->kind != PLAN_LOGICAL_PROJECT || !scan_can_take_watermark(input->inputs[0]))
        return JOINERY_OK;
    for (uint32_t i = 0; i < input->calc.project_count; i++)
        if (!expr_is_deterministic(input->calc.projects[i]))
            return JOINERY_OK;
    Expr *watermark =
        expr_substitute_inputs(context->arena, node->watermark.watermark, input->calc.projects);
    if (watermark && !expr_fits(watermark))
        return JOINERY_OK; /* too deep or too large through the projection: stays above */
    PlanNode *scan =
        watermark ? scan_with_watermark(context, input->inputs[0], watermark, NULL) : NULL;
    PlanNode *project = scan ? copy_with_rowtime(context->arena, input, rowtime) : NULL;
    if (!project)
        return JOINERY_ERROR_NO_MEMORY;
    project->inputs[0] = scan;
    *result = project;
    return JOINERY_OK;
}

static int push(PlannerContext *context, PlanNode *node, PlanNode **result)
{
    *result = node;
    PlanNode *copy = NULL;
    for (uint32_t i = 0; i < node->input_count; i++) {
        PlanNode *input;
        int status = push(context, node->inputs[i], &input);
        if (status != JOINERY_OK)
            return status;
        if (input == node->inputs[i])
            continue;
        if (!copy && !(copy = plan_node_copy(context->arena, node)))
            return JOINERY_ERROR_NO_MEMORY;
        copy->inputs[i] = input;
    }
    if (copy)
        node = *result = copy;
    if (node->kind == PLAN_LOGICAL_WATERMARK_ASSIGNER)
        return push_into(context, node, result);
    return JOINERY_OK;
}

int rule_push_watermark(PlannerContext *context, PlanNode *node, PlanNode **result)
{
    int status = push(context, node, result);
    if (status == JOINERY_ERROR_NO_MEMORY)
        return diag_error(context->diag, status, "out of memory");
    return status;
}
