/*
 * op_window_rank.h - window Top-N and window deduplication (Flink's
 * WindowRankOperator and RowTimeWindowDeduplicateOperator): ROW_NUMBER()
 * OVER (PARTITION BY window_start, window_end [, keys] ORDER BY s) kept
 * within [rank_start, rank_end] per window and key, over the rows of a
 * window table function or a window aggregate (append-only input).
 *
 * Per row: a row whose window has fired (window_end - 1 <= the watermark)
 * is late: dropped and counted (window_rank_operator_late_rows, Flink's
 * numLateRecordsDropped); a row whose window_end is NULL is dropped and
 * counted the same way. Otherwise it is kept under its partition key
 * (SortedState, ordered by window_end, rows of one window in arrival
 * order) and an event-time timer is registered at window_end - 1.
 *
 * When the timer fires (the watermark passed window_end - 1), the rows of
 * that window and key are sorted by the sort fields (ties: earlier arrival
 * first, or later first for a LastRow deduplication, as Flink keeps the
 * last of the rows with the latest time) and the ranks rank_start to
 * rank_end are emitted as +I, with the rank number appended when
 * output_rank_number; then they are removed from state. Output is
 * append-only; rows come before the watermark that fired them.
 */
#ifndef JOINERY_EXEC_OPS_OP_WINDOW_RANK_H
#define JOINERY_EXEC_OPS_OP_WINDOW_RANK_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/base/diag.h"
#include "engine/base/type.h"
#include "engine/exec/operator.h"
#include "engine/exec/row_order.h"

typedef struct WindowRankSpec {
    uint32_t field_count; /* input fields */
    const DataType *types;
    const uint32_t *partition_fields; /* without the window bounds; may be none */
    uint32_t partition_count;
    uint32_t window_end_field;      /* the input's window_end */
    const RowOrderKey *sort_fields; /* their types are taken from `types` */
    uint32_t sort_count;
    int64_t rank_start, rank_end; /* 1 <= rank_start <= rank_end */
    bool output_rank_number;
    bool ties_latest_first; /* LastRow deduplication */
} WindowRankSpec;

/* Creates the operator; the spec's arrays are borrowed. NULL with diag set on failure. */
Operator *window_rank_operator_create(const WindowRankSpec *spec, Diag *diag);

/* Rows dropped as late; 0 when `op` is not a window rank. */
uint64_t window_rank_operator_late_rows(const Operator *op);

#endif
