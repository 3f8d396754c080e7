/*
 * op_sort.h - Sort in batch mode (Flink's BatchExecSort): the final rows of
 * its input, sorted by the collation, emitted as +I once every input has
 * ended.
 *
 * The input may be updating (an aggregate's -U/+U, a join's -D): rows are
 * materialised in a MultisetState under the empty key (+I/+U add one, -U/-D
 * take one away), so at the end it holds the input's final table. finish
 * copies the rows out, sorts them (row_order.h: the keys, then the rows'
 * bytes, so ties come out the same on every backend) and emits them. One
 * subtask, under Exchange(single). With an offset and a fetch it emits only
 * those rows: the Limit of batch mode over an updating input
 * (build_limit.c).
 */
#ifndef JOINERY_EXEC_OP_SORT_H
#define JOINERY_EXEC_OP_SORT_H

#include "engine/exec/operator.h"
#include "engine/exec/row_order.h"

typedef struct SortSpec {
    const RowOrderKey *keys; /* borrowed for the operator's life */
    uint32_t key_count;      /* 0: the rows in their bytes' order (a batch LIMIT) */
    int64_t offset;          /* sorted rows skipped (0: none) */
    int64_t fetch;           /* rows emitted after them; -1: all */
} SortSpec;

/* Creates the operator; NULL with diag set on failure. */
Operator *sort_operator_create(const SortSpec *spec, Diag *diag);

#endif
