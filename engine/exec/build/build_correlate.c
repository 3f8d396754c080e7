/* build_correlate.c - Correlate (op_correlate.h) from a CORRELATE node. */
#include "engine/exec/build/build.h"
#include "engine/exec/ops/op_correlate.h"

Operator *build_correlate(BuildContext *context, const PlanNode *node)
{
    CorrelateSpec *spec = arena_calloc(context->arena, 1, sizeof *spec);
    DataType *types = build_field_types(context->arena, node);
    if (!spec || !types)
        return NULL;
    uint32_t left_count = node->inputs[0]->field_count;
    spec->input_field_count = left_count;
    spec->input_types = types;
    spec->arguments = node->correlate.arguments;
    spec->argument_count = node->correlate.argument_count;
    spec->function = node->correlate.function;
    spec->function_types = types + left_count;
    spec->function_field_count = node->field_count - left_count;
    spec->left = node->correlate.join_type == JOIN_TYPE_LEFT;
    spec->with_ordinality = node->correlate.with_ordinality;
    spec->condition = node->correlate.condition;
    spec->job_parameters = context->job_parameters;
    spec->async_capacity =
        context->async_table.capacity > 0 ? (uint32_t)context->async_table.capacity : 10;
    spec->async_timeout_millis = context->async_table.timeout_millis;
    spec->async_max_retries = (uint32_t)context->async_table.max_retries;
    spec->async_retry_delay_millis = context->async_table.retry_delay_millis;
    return correlate_operator_create(spec, context->diag);
}
