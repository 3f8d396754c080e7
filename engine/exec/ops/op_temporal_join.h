/*
 * op_temporal_join.h - the event-time temporal join, Flink's
 * TemporalRowTimeJoinOperator: `left JOIN versioned FOR SYSTEM_TIME AS OF
 * left.rowtime ON left.k = versioned.k`.
 *
 * Semantics (as Flink's operator):
 * - Input 1 (the versioned side) is a changelog keyed by the join key (which
 *   contains its primary key): each row is a version of its key valid from
 *   its time on. Versions are kept per key ordered by time, one per time (a
 *   later row of the same time replaces the earlier one, whatever its kind).
 *   A retraction (-U, -D) at time t is a version too: it says the key has no
 *   valid row from t on.
 * - Input 0 (the probe side) is kept per key until the watermark (the
 *   minimum of both inputs') passes its time; then, in arrival order, each
 *   such row joins the version with the largest time <= its own time when
 *   that version is +I/+U and the residual condition accepts the pair; else
 *   an INNER join emits nothing and a LEFT join emits the row padded with
 *   NULLs. The output row has the probe row's kind (an append-only probe
 *   side gives an append-only output). A probe row whose key has a NULL
 *   field never matches.
 * - After emitting, the versions of the key older than the latest version at
 *   or before the watermark are dropped (that one is kept: a later probe row
 *   may still need it).
 * - Timers: one event-time timer per key (ValueState keeps which), at the
 *   smallest time a row of that key waits for, as Flink registers it. A
 *   late probe row (time <= watermark) waits for the next watermark and
 *   joins what the versioned side still holds.
 * - A row whose time attribute is NULL cannot be placed in time: the job fails
 *   (Flink fails it earlier, at the watermark generator).
 * State: the probe rows and the versions in SortedState (tag = row kind),
 * the registered timer per key in ValueState; snapshot writes the three in
 * this order (the framework adds the timers).
 */
#ifndef JOINERY_EXEC_OPS_OP_TEMPORAL_JOIN_H
#define JOINERY_EXEC_OPS_OP_TEMPORAL_JOIN_H

#include <stdint.h>

#include "engine/base/diag.h"
#include "engine/base/type.h"
#include "engine/exec/operator.h"
#include "engine/plan/expr.h"
#include "engine/plan/join_type.h"

typedef struct TemporalJoinSpec {
    JoinType join_type; /* JOIN_TYPE_INNER or JOIN_TYPE_LEFT */
    uint32_t left_field_count, right_field_count;
    const DataType *left_types, *right_types;
    /* equi keys (same count, equal types); the right keys contain the versioned primary key */
    const uint32_t *left_keys, *right_keys;
    uint32_t key_count;
    uint32_t left_time_field;  /* the probe side's rowtime (FOR SYSTEM_TIME AS OF) */
    uint32_t right_time_field; /* the versioned side's rowtime */
    const Expr *residual;      /* non-equi ON part over left then right fields; NULL when none */
} TemporalJoinSpec;

/*
 * Creates the operator; input 0 = probe side, 1 = versioned side. Output:
 * left fields then right fields. The spec's arrays and residual are
 * borrowed for the operator's life. NULL with diag set on failure
 * (JOINERY_ERROR_NO_MEMORY; JOINERY_ERROR_VALIDATE for a join type other
 * than INNER or LEFT).
 */
Operator *temporal_join_operator_create(const TemporalJoinSpec *spec, Diag *diag);

/*
 * State figures of one side (0: the probe rows waiting for the watermark, 1: the versions
 * kept) of a temporal join operator; zeros when `op` is not one. Outputs may be NULL.
 */
void temporal_join_operator_side_state(const Operator *op, uint32_t side, uint64_t *bytes,
                                       uint64_t *keys, uint64_t *rows);

#endif
