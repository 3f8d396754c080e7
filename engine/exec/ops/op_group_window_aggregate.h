/*
 * op_group_window_aggregate.h - aggregation per window that Flink runs
 * with its merging WindowOperator: the legacy group windows
 * (GroupWindowAggregate: GROUP BY TUMBLE/HOP/SESSION(time, ...) on a
 * rowtime or proctime attribute) and window TVF aggregation over SESSION
 * windows (WindowAggregate with window=[SESSION(...)]).
 *
 * Semantics (Flink's WindowOperator / AggregateWindowOperator):
 * - A row's windows: TUMBLE and HOP from its time (window_assign); SESSION:
 *   [t, t + gap) merged with every session of its group key it intersects
 *   (touching ends included), their accumulators folded into one. Event
 *   time reads the time field; processing time is the clock when the row
 *   arrives.
 * - Event time: a window whose end - 1 <= the watermark has fired and takes
 *   no more rows (the row still goes to its other HOP windows); a row no
 *   window takes is late, dropped and counted; so is a NULL time. A
 *   session the row's window would start is late the same way, unless the
 *   row merges into a live session.
 * - A window fires on its timer (end - 1, event or processing time): when
 *   its row count is > 0 it emits group keys ++ results ++ the properties
 *   asked for (start, end, rowtime = end - 1, proctime = the time it
 *   fires) as +I, then its state goes. Never subject to state TTL.
 * - Input rows +I/+U accumulate, -U/-D retract (TUMBLE and HOP: COUNT,
 *   SUM, AVG retract exactly; the planner refuses MIN/MAX and SESSION over
 *   updating input). Output is append-only.
 * - A DISTINCT call sees each non-NULL value once per window: applied when
 *   a value enters the window, retracted when its last occurrence leaves;
 *   merging sessions joins their values (counts added) and rebuilds the
 *   DISTINCT calls of the merged window from them.
 * State: ValueState [start, end, group keys...] -> accumulator row
 * (exec/aggregate/aggregate_accumulator.h); SESSION adds a ValueState
 * [group keys...] -> [start0, end0, start1, end1, ...], the key's live
 * sessions; DISTINCT calls add a MultisetState under the window's key, a
 * part per DISTINCT call (exec/aggregate/distinct_values.h), dropped when
 * the window fires. Timers are (end - 1, [start, end, keys...]); a merged-away
 * window's timer is deleted. Snapshot: the states (timers by the framework).
 */
#ifndef JOINERY_EXEC_OPS_OP_GROUP_WINDOW_AGGREGATE_H
#define JOINERY_EXEC_OPS_OP_GROUP_WINDOW_AGGREGATE_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/base/diag.h"
#include "engine/base/type.h"
#include "engine/exec/aggregate/aggregate_function.h"
#include "engine/exec/operator.h"
#include "engine/plan/window_spec.h"

typedef enum WindowProperty {
    WINDOW_PROPERTY_START,
    WINDOW_PROPERTY_END,
    WINDOW_PROPERTY_ROWTIME,  /* end - 1 */
    WINDOW_PROPERTY_PROCTIME, /* the processing time the window fired at */
} WindowProperty;

enum { GROUP_WINDOW_MAX_PROPERTIES = 4 };

typedef struct GroupWindowAggregateSpec {
    uint32_t input_field_count;
    const DataType *input_types;
    const uint32_t *group_keys; /* input fields; may be 0 of them */
    uint32_t group_key_count;
    const AggregateCall *calls;
    uint32_t call_count;
    WindowSpec window;   /* TUMBLE, HOP or SESSION */
    uint32_t time_field; /* event time: the rowtime field; processing time: unused */
    bool proctime;       /* processing-time windows */
    WindowProperty properties[GROUP_WINDOW_MAX_PROPERTIES]; /* after the results */
    uint32_t property_count;
    const char *name; /* the operator's name in metrics; NULL: "GroupWindowAggregate" */
} GroupWindowAggregateSpec;

/*
 * Creates the operator (one input). Output: group key fields, one field per
 * call of its result_type, then the properties (BIGINT millis as
 * timestamps are). The spec's arrays are borrowed for the operator's life.
 * NULL with diag set on no memory or an inconsistent spec.
 */
Operator *group_window_aggregate_operator_create(const GroupWindowAggregateSpec *spec, Diag *diag);

/* Rows dropped as late; 0 when `op` is not this operator. */
uint64_t group_window_aggregate_operator_late_rows(const Operator *op);

#endif
