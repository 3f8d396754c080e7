/*
 * op_temporal_sort.h - TemporalSort (Flink's StreamExecTemporalSort): a
 * streaming ORDER BY whose first key is a time attribute ascending.
 *
 * Event time (Flink's RowTimeSortOperator): a row is buffered in a
 * SortedState at its rowtime with an event-time timer there; when the
 * watermark passes that time the timer releases the rows of that time,
 * sorted by the other keys (ties keep their arrival order), before the
 * watermark goes downstream. A row at or before the last time released is
 * late and dropped, as Flink drops it. The last time released is kept in a
 * ValueState.
 *
 * Processing time (Flink's ProcTimeSortOperator): rows are buffered in
 * arrival order and a processing-time timer at now + 1 ms releases all of
 * them, sorted by the other keys; at the end of input (a bounded source)
 * what is still buffered is released too, where Flink would drop it with
 * the pending timer.
 *
 * Insert-only input; one subtask under Exchange(single).
 */
#ifndef JOINERY_EXEC_OP_TEMPORAL_SORT_H
#define JOINERY_EXEC_OP_TEMPORAL_SORT_H

#include "engine/exec/operator.h"
#include "engine/exec/row_order.h"

typedef struct TemporalSortSpec {
    const RowOrderKey *keys; /* keys[0] is the time attribute; borrowed */
    uint32_t key_count;      /* >= 1 */
    bool rowtime;            /* event time, else processing time */
} TemporalSortSpec;

/* Creates the operator; NULL with diag set on failure. */
Operator *temporal_sort_operator_create(const TemporalSortSpec *spec, Diag *diag);

#endif
