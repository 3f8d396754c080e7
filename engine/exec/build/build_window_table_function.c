/* build_window_table_function.c - WindowTableFunction (see build.h). */
#include "engine/exec/build/build.h"
#include "engine/exec/ops/op_window_table_function.h"

Operator *build_window_table_function(BuildContext *context, const PlanNode *node)
{
    WindowTableFunctionSpec *spec = arena_calloc(context->arena, 1, sizeof *spec);
    if (!spec)
        return NULL;
    spec->window = node->window.spec;
    spec->time_field = node->window.time_field;
    spec->input_field_count = node->inputs[0]->field_count;
    spec->input_types = build_field_types(context->arena, node->inputs[0]);
    if (!spec->input_types)
        return NULL;
    return window_table_function_operator_create(spec, context->diag);
}
