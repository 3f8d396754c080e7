/* build_sort.c - the batch Sort, one subtask under Exchange(single) (see build.h). */
#include "engine/exec/build/build.h"
#include "engine/exec/ops/op_sort.h"
#include "engine/exec/row_order.h"

struct RowOrderKey *build_order_keys(BuildContext *context, const PlanNode *node)
{
    RowOrderKey *keys = arena_calloc(context->arena, node->sort.key_count + 1, sizeof *keys);
    if (!keys)
        return NULL;
    for (uint32_t k = 0; k < node->sort.key_count; k++) {
        const PlanSortKey *key = &node->sort.keys[k];
        keys[k].field = key->field;
        keys[k].type = node->fields[key->field].type;
        keys[k].descending = key->descending;
        keys[k].nulls_first = key->nulls_first;
    }
    return keys;
}

Operator *build_sort(BuildContext *context, const PlanNode *node)
{
    SortSpec spec = {.keys = build_order_keys(context, node),
                     .key_count = node->sort.key_count,
                     .offset = 0,
                     .fetch = -1};
    return spec.keys ? sort_operator_create(&spec, context->diag) : NULL;
}
