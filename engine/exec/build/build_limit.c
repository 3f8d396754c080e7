/*
 * build_limit.c - Limit (see build.h): the streaming Limit over an
 * insert-only input; in batch mode over an updating input (sort.materialize)
 * the batch Sort without keys, which materialises the final rows and emits
 * the offset / fetch of them at the end of input.
 */
#include "engine/exec/build/build.h"
#include "engine/exec/ops/op_limit.h"
#include "engine/exec/ops/op_sort.h"

Operator *build_limit(BuildContext *context, const PlanNode *node)
{
    int64_t offset = node->sort.offset > 0 ? node->sort.offset : 0;
    if (node->sort.materialize) {
        SortSpec spec = {.keys = NULL, .key_count = 0, .offset = offset, .fetch = node->sort.fetch};
        return sort_operator_create(&spec, context->diag);
    }
    LimitSpec spec = {.offset = offset, .fetch = node->sort.fetch, .ends_job = node->sort.ends_job};
    return limit_operator_create(&spec, context->diag);
}
