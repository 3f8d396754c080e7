/* build_session_window_table_function.c - the SESSION window table function and its SHOW JOB
   METRICS line (see build.h). */
#include "engine/exec/build/build.h"
#include "engine/exec/ops/op_session_window_table_function.h"

Operator *build_session_window_table_function(BuildContext *context, const PlanNode *node)
{
    SessionWindowSpec *spec = arena_calloc(context->arena, 1, sizeof *spec);
    if (!spec)
        return NULL;
    spec->gap_millis = node->window.spec.gap_millis;
    spec->time_field = node->window.time_field;
    spec->input_field_count = node->inputs[0]->field_count;
    spec->input_types = build_field_types(context->arena, node->inputs[0]);
    if (!spec->input_types)
        return NULL;
    spec->partition_keys = node->window.partition_keys;
    spec->partition_key_count = node->window.partition_key_count;
    return session_window_operator_create(spec, context->diag);
}

void build_session_window_metrics(const PlanNode *node, Operator *const *subtasks, uint32_t count,
                                  StrBuf *out)
{
    (void)node;
    uint64_t late = 0;
    for (uint32_t i = 0; i < count; i++)
        late += session_window_operator_late_rows(subtasks[i]);
    strbuf_printf(out, "%-4s   numLateRecordsDropped %llu\n", "", (unsigned long long)late);
}
