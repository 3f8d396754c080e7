/* build_calc.c - Calc and the builders' shared helper (see build.h). */
#include "engine/exec/build/build.h"
#include "engine/exec/ops/op_calc.h"

DataType *build_field_types(Arena *arena, const PlanNode *node)
{
    DataType *types = arena_calloc(arena, node->field_count + 1, sizeof(DataType));
    for (uint32_t i = 0; types && i < node->field_count; i++)
        types[i] = node->fields[i].type;
    return types;
}

Operator *build_calc(BuildContext *context, const PlanNode *node)
{
    CalcSpec *spec = arena_calloc(context->arena, 1, sizeof *spec);
    if (!spec)
        return NULL;
    spec->input_field_count = node->inputs[0]->field_count;
    spec->projects = node->calc.projects;
    spec->project_count = node->calc.project_count;
    spec->output_types = build_field_types(context->arena, node);
    spec->condition = node->calc.condition;
    if (!spec->output_types)
        return NULL;
    return calc_operator_create(spec, context->diag);
}
