/*
 * distinct_values.h - the distinct values of the DISTINCT aggregate calls
 * of the window operators (WindowAggregate, GroupWindowAggregate): per
 * window state key and per DISTINCT call, each non-NULL value with how many
 * live rows of the window carry it (Flink keeps the same in a MapView per
 * window: the DistinctAggregateFunction's `distinct` view).
 *
 * A call's accumulator changes only when its set of values does: the first
 * occurrence of a value is added to it, the retraction of the last removes
 * it. The state is one MultisetState whose key is the window's state key
 * row ([window_start, window_end, group keys...]) and whose part d holds the
 * value rows (one field) of the d-th DISTINCT call, with their counts; the
 * window's key goes with all its parts when the window fires
 * (distinct_values_drop). Never subject to table.exec.state.ttl. Works on
 * every state backend (only engine/state/state.h is used).
 */
#ifndef JOINERY_EXEC_AGGREGATE_DISTINCT_VALUES_H
#define JOINERY_EXEC_AGGREGATE_DISTINCT_VALUES_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/base/diag.h"
#include "engine/base/row.h"
#include "engine/base/type.h"
#include "engine/base/value.h"
#include "engine/exec/aggregate/aggregate_function.h"
#include "engine/state/state.h"

enum { DISTINCT_VALUES_MAX_CALLS = MULTISET_MAX_PARTS };

typedef struct DistinctValues {
    MultisetState *counts; /* NULL when no call is DISTINCT */
    uint32_t distinct_count;
    int32_t *part_of_call;    /* per call: its part, or -1 for a call that is not DISTINCT */
    DataType *argument_types; /* per call */
    RowBuilder value_builder;
} DistinctValues;

/*
 * Sets up the distinct values of `calls` (borrowed for the helper's life):
 * a part per DISTINCT call, COUNT(*) excluded. No state yet. JOINERY_OK,
 * JOINERY_ERROR_UNSUPPORTED with more than DISTINCT_VALUES_MAX_CALLS
 * DISTINCT calls, or JOINERY_ERROR_NO_MEMORY (diag set).
 */
int distinct_values_init(DistinctValues *values, const AggregateCall *calls, uint32_t call_count,
                         Diag *diag);

/* True when some call is DISTINCT (the state is needed). */
static inline bool distinct_values_used(const DistinctValues *values)
{
    return values->distinct_count > 0;
}

/* True when call `call` is DISTINCT. */
static inline bool distinct_values_is_distinct(const DistinctValues *values, uint32_t call)
{
    return values->part_of_call && values->part_of_call[call] >= 0;
}

/* Creates the state on `store` when some call is DISTINCT. False when the store could not. */
bool distinct_values_open(DistinctValues *values, StateStore *store);

/*
 * Adds (add) or removes one occurrence of the non-NULL `value` of DISTINCT
 * call `call` in the window `window_key`. *changed: the value is new to
 * the window (add) or its last occurrence went (remove) — the call's
 * accumulator must then change. Removing a value the window does not hold
 * changes nothing. JOINERY_OK; JOINERY_ERROR_RUNTIME when a value would
 * exceed MULTISET_COUNT_MAX occurrences; JOINERY_ERROR_NO_MEMORY; or
 * JOINERY_ERROR when the backend failed (state_store_failed).
 */
int distinct_values_update(DistinctValues *values, uint32_t call, const Row *window_key,
                           Value value, bool add, bool *changed);

/*
 * distinct_values_update for every DISTINCT call of `calls` (those of init)
 * with its argument in `input`, NULLs left alone: skip[i] is set true for
 * a DISTINCT call whose accumulator must not change (NULL, or a value
 * already held / still held), false otherwise (aggregate_accumulator_apply_except).
 * The status is distinct_values_update's.
 */
int distinct_values_update_row(DistinctValues *values, const AggregateCall *calls,
                               uint32_t call_count, const Row *window_key, const Row *input,
                               bool add, bool *skip);

/*
 * Moves every distinct value of the window `from` into the window `to`
 * (counts added; `from`'s values go), as when a session window is merged
 * into another. JOINERY_OK, JOINERY_ERROR_RUNTIME (a count over
 * MULTISET_COUNT_MAX), JOINERY_ERROR_NO_MEMORY or JOINERY_ERROR (backend).
 */
int distinct_values_move(DistinctValues *values, const Row *from, const Row *to);

/*
 * Calls visit(context, value) for each distinct value of DISTINCT call
 * `call` in the window `key` (values valid during the call only; the state
 * must not change meanwhile). Returns JOINERY_OK, the visitor's first
 * non-OK status, or JOINERY_ERROR when the backend failed.
 */
int distinct_values_each(DistinctValues *values, uint32_t call, const Row *key,
                         int (*visit)(void *context, Value value), void *context);

/* Drops every distinct value of the window `window_key` (it fired). JOINERY_OK or the
   backend's failure. */
int distinct_values_drop(DistinctValues *values, const Row *window_key);

/* The state's figures (zero without a state). */
StateCounters distinct_values_counters(const DistinctValues *values);

/* Snapshot / restore of the state (nothing without DISTINCT calls). */
int distinct_values_snapshot(DistinctValues *values, const StateWriter *writer, Diag *diag);
int distinct_values_restore(DistinctValues *values, const StateReader *reader, Diag *diag);

/* Frees the state and the rest; safe on a zeroed helper. */
void distinct_values_free(DistinctValues *values);

#endif
