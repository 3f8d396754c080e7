/*
 * op_multi_join.h - the MultiJoin operator (Flink 2.1's
 * StreamingMultiJoinOperator, FLIP-516): one N-input operator that runs a
 * left-deep chain of regular joins (((in0 J1 in1) J2 in2) ...) sharing a
 * common join key, keeping only the raw inputs in state - never the
 * intermediate join results a chain of binary joins keeps.
 *
 * Join types per step: INNER and LEFT (as Flink), RIGHT and FULL OUTER (as
 * Huawei MRS). Inputs may be updating (+I, -U, +U, -D).
 *
 * Guarantee: the materialized output (+I/+U insert, -U/-D delete) always
 * equals the left-deep chain of binary joins with the same types and
 * conditions over the current inputs, and no retraction is emitted for a
 * row that was not emitted before (without TTL; see op_multi_join.c for
 * what TTL expiry does). An all-INNER chain forwards the input's kind
 * (+I/-U/+U/-D); a chain with an outer step emits +I and -D only.
 * In mini-batch mode (MultiJoinSpec.mini_batch_size) the same holds at every
 * batch's end.
 */
#ifndef JOINERY_EXEC_OPS_OP_MULTI_JOIN_H
#define JOINERY_EXEC_OPS_OP_MULTI_JOIN_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/base/diag.h"
#include "engine/base/type.h"
#include "engine/exec/operator.h"
#include "engine/plan/expr.h"
#include "engine/plan/join_type.h"

typedef struct MultiJoinInputSpec {
    uint32_t field_count;
    const DataType *types;
    /* this input's fields forming the common join key, one per key class, same order and
       types for every input */
    const uint32_t *common_key_fields;
    int64_t ttl_millis; /* 0 = keep forever */
    /* rows with a unique key may be stored once, like Flink (accepted; every input uses the
       counted multiset layout, which gives the same output for a well-formed changelog) */
    bool has_unique_key;
    const uint32_t *unique_key_fields;
    uint32_t unique_key_count;
    /* an upsert stream keyed by the common key (no ChangelogNormalize below): at most one
       row per key; each +I/+U first retracts the row it replaces (-U), each -D retracts the
       stored row, so the output is a complete changelog */
    bool upsert;
} MultiJoinInputSpec;

typedef struct MultiJoinSpec {
    uint32_t input_count; /* 2..64 */
    const MultiJoinInputSpec *inputs;
    uint32_t common_key_count;
    /* join_types[i], i >= 1: how input i joins the result of inputs 0..i-1 (join_types[0]
       unused); the chain is left-deep: (((in0 J1 in1) J2 in2) ...) */
    const JoinType *join_types;
    /* conditions[i], i >= 1: the whole ON condition of step i (equi parts included) over the
       concatenated fields of inputs 0..i; NULL = true. conditions[0] is unused. */
    const Expr *const *conditions;
    /* skip walking inputs whose state holds nothing for the key
       (table.optimizer.multi-join.empty-result-pruning.enabled); same output either way */
    bool empty_result_pruning;
    /* > 0: mini-batch mode (joinery's extension; Flink's MultiJoin has no mini-batch form):
       rows are buffered per input until this many are buffered, a watermark of the
       MiniBatchAssigner, a barrier or the end of input; then each input's batch is folded
       (mini_batch_fold.h) and run, the last input first and input 0 last, so a row of an
       earlier input meets the batch's rows of the later ones instead of being emitted
       padded and then retracted. Not with upsert inputs. Same materialized output. */
    int64_t mini_batch_size;
} MultiJoinSpec;

/*
 * Creates the operator (operator_init inside). Input i of the operator is
 * spec input i. Output rows: the fields of all inputs concatenated
 * (NULL-padded where an outer step had no match). Returns NULL with diag
 * set on failure: JOINERY_ERROR_NO_MEMORY; JOINERY_ERROR_VALIDATE for an
 * inconsistent spec (input count outside 2..64, key field out of range,
 * key types stored differently between inputs, a condition reading a field
 * of a later input, more than 65535 output fields);
 * JOINERY_ERROR_UNSUPPORTED when the condition of a step uses
 * IS NOT DISTINCT FROM after an outer step (a NULL-padded key could then
 * match across common-key partitions: plan binary joins instead). The
 * spec's arrays and conditions are borrowed for the operator's life. Free
 * with operator_close (which frees the operator).
 *
 * Metrics: state_bytes/state_keys/state_rows summed over the inputs,
 * expired_rows (TTL), skipped_rows (retractions of rows not in state:
 * ignored). With TTL, a processing-time timer every 100 ms runs incremental
 * TTL cleanup of every input.
 */
Operator *multi_join_operator_create(const MultiJoinSpec *spec, Diag *diag);

/*
 * State figures of one input (for SHOW JOB METRICS): bytes, distinct
 * common-key values, and distinct rows held. Zeroes for an input out of
 * range. `op` must come from multi_join_operator_create. Any of the output
 * pointers may be NULL.
 */
/* Rows the mini-batch fold cancelled before they reached the state (0 row by row, or when
   `op` is not a MultiJoin). */
uint64_t multi_join_operator_folded_rows(const Operator *op);
void multi_join_operator_input_state(const Operator *op, uint32_t input, uint64_t *bytes,
                                     uint64_t *keys, uint64_t *rows);

#endif
