/* build_temporal_sort.c - TemporalSort, one subtask under Exchange(single) (see build.h). */
#include "engine/exec/build/build.h"
#include "engine/exec/ops/op_temporal_sort.h"
#include "engine/exec/row_order.h"

Operator *build_temporal_sort(BuildContext *context, const PlanNode *node)
{
    TemporalSortSpec spec = {
        .keys = build_order_keys(context, node),
        .key_count = node->sort.key_count,
        .rowtime =
            node->fields[node->sort.keys[0].field].type.time_attribute == TIME_ATTRIBUTE_ROWTIME,
    };
    return spec.keys ? temporal_sort_operator_create(&spec, context->diag) : NULL;
}
