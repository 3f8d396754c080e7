/*
 * op_join.h - the regular (unbounded) streaming join, Flink's
 * StreamingJoinOperator: both inputs are kept in keyed state, every arriving
 * row is joined against the other side's rows with the same key.
 *
 * Changelog semantics (as Flink): inputs may carry +I, -U, +U, -D. An inner
 * join forwards the input's kind on each joined row; outer joins emit +I/-D
 * on outer sides, and keep per-row association counts so that a NULL-padded
 * row is emitted while a row has no match and retracted when the first match
 * arrives (and re-emitted when the last match leaves).
 *
 * SEMI / ANTI (IN / EXISTS subqueries, Flink's StreamingSemiAntiJoinOperator):
 * output rows are the left rows. A left row is emitted while it has >= 1
 * match (SEMI) / no match (ANTI): a left row with its own kind on arrival or
 * retraction (a retraction only when it was emitted); when a right row gives
 * a left row its first match, SEMI emits the left row with the right row's
 * kind (+I/+U) and ANTI emits -D[left]; when a right retraction takes the
 * last match away, SEMI emits it with the right row's kind (-U/-D) and ANTI
 * emits +I[left]. A left row with a NULL key (not null-safe) never matches:
 * SEMI drops it, ANTI emits it. No mini-batch form (as Flink).
 */
#ifndef JOINERY_EXEC_OPS_OP_JOIN_H
#define JOINERY_EXEC_OPS_OP_JOIN_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/base/diag.h"
#include "engine/base/type.h"
#include "engine/exec/operator.h"
#include "engine/plan/expr.h"
#include "engine/plan/join_type.h"

typedef struct JoinOperatorSpec {
    JoinType join_type; /* CROSS = INNER with key_count 0 */
    uint32_t left_field_count, right_field_count;
    const DataType *left_types, *right_types;
    /* equi-join key field indexes; same count; key types are already equal (the planner casts) */
    const uint32_t *left_keys, *right_keys;
    uint32_t key_count; /* 0 = cross join: everything matches (one global key) */
    /* per key: true for IS NOT DISTINCT FROM (NULL = NULL matches); NULL array = all false */
    const bool *null_safe_keys;
    const Expr
        *residual; /* non-equi part of ON over left fields then right fields; NULL when none */
    JoinInputSpec left_input_spec, right_input_spec;
    int64_t left_ttl_millis, right_ttl_millis; /* 0 = keep forever */
    /* > 0: Flink 1.19's mini-batch join (FLIP-415): each side's rows are buffered, at most
       this many in all, and when the batch ends (full, a watermark, a barrier, the end of
       input) a retraction cancels an earlier accumulation of the same row in the batch
       before either touches the state; what remains runs as below, the right side's
       rows first (the left side's for a RIGHT join), as Flink. 0: row by row. */
    int64_t mini_batch_size;
    /* [side]: an upsert stream keyed by its join key (no ChangelogNormalize below): the
       side holds at most one row per key, and each +I/+U first retracts the row it
       replaces (-U), each -D retracts the stored row (whatever the -D row's non-key fields
       hold), so the output is a complete changelog. Not with mini_batch_size > 0. */
    bool upsert_input[2];
} JoinOperatorSpec;

/*
 * Creates the operator (operator_init inside); input 0 = left, 1 = right.
 * Output rows: left fields then right fields (NULL-padded for outer sides);
 * SEMI / ANTI: the left fields. A SEMI / ANTI spec with mini_batch_size > 0
 * is JOINERY_ERROR_VALIDATE.
 * Returns NULL with diag set on failure (JOINERY_ERROR_NO_MEMORY, or
 * JOINERY_ERROR_VALIDATE for an inconsistent spec). The spec's arrays and
 * the residual are borrowed for the operator's life. Free with
 * operator_close and then free(op).
 *
 * Metrics: state_bytes/state_keys/state_rows (both sides), expired_rows
 * (TTL), skipped_rows (retractions of rows not in state: ignored).
 * With TTL, a processing-time timer every 100 ms runs incremental TTL
 * cleanup of both sides.
 */
Operator *join_operator_create(const JoinOperatorSpec *spec, Diag *diag);

/*
 * State figures of one side (0 left, 1 right) of a join operator; zeros
 * when `op` is not one. Any output pointer may be NULL.
 */
void join_operator_side_state(const Operator *op, uint32_t side, uint64_t *bytes, uint64_t *keys,
                              uint64_t *rows);

/* The join's key lookups and inserts on its two states so far, and the rows its mini-batch
   fold cancelled. For benchmarks and tests. */
void join_operator_mini_batch_counts(const Operator *op, uint64_t *state_accesses,
                                     uint64_t *folded_rows);

#endif
