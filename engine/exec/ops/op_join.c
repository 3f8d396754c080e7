/*
 * op_join.c - the regular streaming join (see op_join.h), after Flink's
 * StreamingJoinOperator (newest form: outputs interleaved per matching row).
 *
 * State: one MultisetState per side (created in open from the task's
 * store, so on any backend), keyed by the equi-join key row (built
 * from the key fields into a reusable RowBuilder; a cross join uses the
 * empty row as its one key). Each entry is a distinct input row (kind +I)
 * with its count (duplicates) and, on outer sides, its association count:
 * how many rows of the other side (with multiplicity) it matches now.
 *
 * Per input row (own side S, other side O):
 *   accumulate (+I/+U): for each copy of each matching O row: if O is outer
 *     and the row had no association, emit -D[O padded]; emit the joined row
 *     (+I if either side is outer, else the input kind); O's association
 *     count grows by one. If S is outer and nothing matched, emit
 *     +I[S padded]. Store the row (count + 1, associations = matches).
 *   retract (-U/-D): a row not in S's state is skipped (counted in
 *     metrics.skipped_rows, nothing emitted: joinery never retracts what it
 *     did not emit). Otherwise remove one copy, then for each copy of each
 *     matching O row emit the joined row (-D if S is outer, else the input
 *     kind) and, when O is outer and this was its last association, +I[O
 *     padded]. If S is outer and nothing matched, emit -D[S padded] - unless
 *     the row still had associations recorded (its matches expired by TTL),
 *     since then no padded row was ever emitted.
 *
 * Rows whose key has a NULL in a non-null-safe position never match: on an
 * inner side they are neither stored nor emitted; on an outer side they are
 * stored (so their retraction can be checked) and emitted padded.
 *
 * Input specs (unique keys) are accepted but every side uses the multiset
 * layout: for a well-formed changelog the output is the same.
 *
 * An upsert input (spec.upsert_input, join_process_upsert_row) keeps one row
 * per key: each change first retracts the stored row, then an upsert goes in
 * as +U (+I when nothing was stored), through the same per-row path.
 *
 * Batches run in two passes: the first builds every row's key into one
 * buffer and hashes keys and rows; the second processes the rows in order,
 * announcing the state lookups of the rows a few places ahead
 * (multiset_state_prefetch: slot, then key block, then entries), so the
 * cache misses of several rows overlap instead of following one another.
 * Keys made only of fixed-width fields are written directly (no
 * RowBuilder); the bytes are the same canonical key row.
 *
 * SEMI / ANTI (join_process_semi_anti_row): the left side keeps association
 * counts as an outer side does, the output is the left row itself.
 *
 * Mini-batch mode (spec.mini_batch_size > 0, JOIN_MINI_BATCH_VTABLE): rows
 * are buffered per side and, when the batch ends, folded and run as one
 * batch per side (mini_batch_fold.h says how and why the output is the same).
 */
#include "engine/exec/ops/op_join.h"

#include "engine/exec/key_extractor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/exec/expr_eval.h"
#include "engine/exec/mini_batch_buffer.h"
#include "engine/exec/mini_batch_fold.h"
#include "engine/exec/upsert_input.h"
#include "engine/state/state.h"

enum {
    JOIN_CLEANUP_SLOTS_PER_TIMER = 4096,
    JOIN_PREFETCH_DISTANCE = 8, /* rows between prefetch levels (slot, key block, entries) */
};

/* What the first pass works out for one row of the batch. */
typedef struct JoinRowPlan {
    uint64_t key_hash;
    uint64_t row_hash;
    uint32_t key_offset; /* of the key row in key_rows, in words */
    bool never_matches;  /* a non-null-safe key field is NULL */
} JoinRowPlan;

typedef struct JoinSide {
    MultisetState *state;
    KeyExtractor key; /* the join key of the side's rows (NULL: never matches unless null-safe) */
    uint32_t field_count;
    bool outer;
    bool *variable_length; /* per field of the side's rows */
} JoinSide;

typedef struct JoinOperator {
    Operator base; /* first: the Operator * is the JoinOperator * */
    JoinOperatorSpec spec;
    JoinSide sides[2];
    bool ttl_enabled;
    bool semi_anti;           /* SEMI or ANTI: output rows are the left rows */
    bool keys_fixed_width;    /* every key field is fixed-width: keys are written directly */
    uint32_t fixed_key_words; /* size of such a key row, in words */
    JoinRowPlan *plans;       /* per row of the current batch */
    uint32_t plan_capacity;
    uint64_t *key_rows;       /* the batch's key rows, back to back */
    size_t key_rows_capacity; /* in words */
    RowBuilder output_builder;
    /* mini-batch mode (spec.mini_batch_size > 0): each side's rows of the open batch */
    MiniBatchBuffer batches[2];
    MiniBatchFold fold;      /* cancels a side's pairs before they reach the state */
    uint64_t state_accesses; /* key lookups and inserts on the two states */
    Arena eval_arena;        /* strings made by the residual; reset per batch */
    Arena upsert_arena;      /* an upsert input's row copies; reset per row */
    ExprEvalContext eval_context;
    char name[64];
} JoinOperator;

/* ---- residual condition ---- */

/*
 * True when the pair (left, right) satisfies the residual condition. A NULL
 * or FALSE result is no match; a runtime error sets eval_context.failed
 * (the diag holds it).
 */
static inline bool join_residual_accepts(JoinOperator *join, const Row *left, const Row *right)
{
    return expr_eval_predicate(join->spec.residual, left, join->spec.left_field_count, right,
                               &join->eval_context);
}

/* ---- output ---- */

/* Builds left ++ right into the output builder; a NULL side is padded with NULLs. */
static const Row *join_build_output(JoinOperator *join, const Row *left, const Row *right)
{
    RowBuilder *builder = &join->output_builder;
    uint32_t left_count = join->sides[0].field_count;
    uint32_t right_count = join->sides[1].field_count;
    row_builder_begin(builder, left_count + right_count, ROW_KIND_INSERT);
    const bool *left_variable = join->sides[0].variable_length;
    const bool *right_variable = join->sides[1].variable_length;
    for (uint32_t i = 0; i < left_count; i++) {
        if (left)
            row_builder_copy_field(builder, i, left, i, left_variable[i]);
        else
            row_builder_set_null(builder, i);
    }
    for (uint32_t i = 0; i < right_count; i++) {
        if (right)
            row_builder_copy_field(builder, left_count + i, right, i, right_variable[i]);
        else
            row_builder_set_null(builder, left_count + i);
    }
    return row_builder_finish(builder);
}

static int join_emit(JoinOperator *join, const Row *left, const Row *right, RowKind kind)
{
    const Row *row = join_build_output(join, left, right);
    if (!row)
        return operator_fail(&join->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
    return operator_emit(&join->base, row, kind);
}

/* Emits own ++ other in the right order for the own side `input`. */
static inline int join_emit_pair(JoinOperator *join, uint32_t input, const Row *own,
                                 const Row *other, RowKind kind)
{
    return input == 0 ? join_emit(join, own, other, kind) : join_emit(join, other, own, kind);
}

/* Emits a row of side `side` padded with NULLs for the other side. */
static inline int join_emit_padded(JoinOperator *join, uint32_t side, const Row *row, RowKind kind)
{
    return side == 0 ? join_emit(join, row, NULL, kind) : join_emit(join, NULL, row, kind);
}

/* ---- key extraction ---- */

/* Makes room for `words` more words of key rows after `used`; false on no memory. */
static bool join_reserve_key_words(JoinOperator *join, size_t used, size_t words)
{
    if (used + words <= join->key_rows_capacity)
        return true;
    size_t capacity = join->key_rows_capacity ? join->key_rows_capacity : 1024;
    while (capacity < used + words)
        capacity *= 2;
    uint64_t *rows = realloc(join->key_rows, capacity * sizeof(uint64_t));
    if (!rows)
        return false;
    join->key_rows = rows;
    join->key_rows_capacity = capacity;
    return true;
}

/*
 * First pass over a batch: every row's key (into key_rows), key hash, row
 * hash and NULL-key flag. JOINERY_OK or JOINERY_ERROR_NO_MEMORY (reported).
 */
static int join_plan_batch(JoinOperator *join, uint32_t input, const RowBatch *batch)
{
    if (batch->count > join->plan_capacity) {
        JoinRowPlan *plans = realloc(join->plans, batch->count * sizeof *plans);
        if (!plans)
            return operator_fail(&join->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
        join->plans = plans;
        join->plan_capacity = batch->count;
    }
    JoinSide *side = &join->sides[input];
    size_t used = 0;
    if (join->keys_fixed_width &&
        !join_reserve_key_words(join, 0, (size_t)batch->count * join->fixed_key_words))
        return operator_fail(&join->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
    for (uint32_t i = 0; i < batch->count; i++) {
        const Row *row = batch->rows[i];
        JoinRowPlan *plan = &join->plans[i];
        const Row *key;
        if (join->keys_fixed_width) {
            uint64_t *out = join->key_rows + used;
            plan->never_matches = key_extractor_write_fixed(&side->key, row, out);
            key = (const Row *)out;
        } else {
            const Row *built = key_extractor_build(&side->key, row, &plan->never_matches);
            if (!built || !join_reserve_key_words(join, used, row_size(built) / 8))
                return operator_fail(&join->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
            memcpy(join->key_rows + used, built, row_size(built));
            key = (const Row *)(join->key_rows + used);
        }
        plan->key_offset = (uint32_t)used;
        used += row_size(key) / 8;
        plan->key_hash = row_content_hash(key);
        plan->row_hash = plan->never_matches && !side->outer ? 0 : row_content_hash(row);
    }
    return JOINERY_OK;
}

/* ---- processing ---- */

/* True when a lookup on the side's state came back empty because the backend failed. */
static inline bool join_state_failed(const JoinOperator *join, const JoinSide *side)
{
    (void)join;
    return state_store_failed(side->state->store);
}

static int join_process_row(JoinOperator *join, uint32_t input, const Row *row,
                            const JoinRowPlan *plan, int64_t now)
{
    JoinSide *own = &join->sides[input];
    uint32_t other_input = 1 - input;
    JoinSide *other = &join->sides[other_input];
    RowKind kind = row_kind(row);
    bool accumulate = row_kind_is_accumulate(kind);

    bool never_matches = plan->never_matches;
    if (never_matches && !own->outer)
        return JOINERY_OK; /* can neither match nor be emitted padded */
    const Row *key = (const Row *)(join->key_rows + plan->key_offset);
    uint64_t key_hash = plan->key_hash;
    uint64_t row_hash = plan->row_hash;

    int64_t stored_associations = 0;
    if (!accumulate) {
        join->state_accesses++;
        MultisetKey *own_key = multiset_state_find(own->state, key, key_hash, now);
        const MultisetEntry *entry =
            own_key ? multiset_key_find_row(own->state, own_key, row, row_hash) : NULL;
        if (!entry) {
            if (join_state_failed(join, own))
                return operator_fail_state(&join->base, "join state");
            join->base.metrics.skipped_rows++;
            return JOINERY_OK;
        }
        stored_associations = entry->association_count;
        int status;
        if (entry->count == 1) {
            status = multiset_key_remove_entry(own->state, own_key, entry);
            if (status == JOINERY_OK && own_key->entry_count == 0)
                status = multiset_state_remove_key(own->state, own_key);
        } else {
            status = multiset_entry_update(own->state, own_key, entry, entry->count - 1,
                                           entry->association_count, now);
        }
        if (status != JOINERY_OK)
            return operator_fail_state(&join->base, "join state");
    }

    bool any_outer = own->outer || other->outer;
    RowKind joined_kind;
    if (accumulate)
        joined_kind = any_outer ? ROW_KIND_INSERT : kind;
    else
        joined_kind = own->outer ? ROW_KIND_DELETE : kind;

    int64_t matches = 0;
    MultisetKey *other_key =
        never_matches ? NULL : multiset_state_find(other->state, key, key_hash, now);
    join->state_accesses += never_matches ? 0 : 1;
    if (!other_key && join_state_failed(join, other))
        return operator_fail_state(&join->base, "join state");
    MultisetScan scan;
    multiset_scan_begin(other->state, other_key, &scan);
    int status = JOINERY_OK;
    const Expr *residual = join->spec.residual;
    for (const MultisetEntry *entry; status == JOINERY_OK && (entry = multiset_scan_next(&scan));) {
        if (residual) {
            const Row *left = input == 0 ? row : entry->row;
            const Row *right = input == 0 ? entry->row : row;
            if (!join_residual_accepts(join, left, right)) {
                if (join->eval_context.failed)
                    status = operator_fail(&join->base, JOINERY_ERROR_RUNTIME,
                                           "join condition failed to evaluate");
                continue;
            }
        }
        matches += entry->count;
        for (int64_t copy = 0; copy < entry->count && status == JOINERY_OK; copy++) {
            if (accumulate) {
                if (other->outer && entry->association_count == 0)
                    status = join_emit_padded(join, other_input, entry->row, ROW_KIND_DELETE);
                if (status == JOINERY_OK)
                    status = join_emit_pair(join, input, row, entry->row, joined_kind);
            } else {
                status = join_emit_pair(join, input, row, entry->row, joined_kind);
                if (status == JOINERY_OK && other->outer && entry->association_count == 1)
                    status = join_emit_padded(join, other_input, entry->row, ROW_KIND_INSERT);
            }
        }
        if (status == JOINERY_OK && other->outer) {
            int64_t associations = entry->association_count;
            if (accumulate)
                associations++;
            else if (associations > 0)
                associations--;
            if (multiset_entry_update(other->state, other_key, entry, entry->count, associations,
                                      now) != JOINERY_OK)
                status = operator_fail_state(&join->base, "join state");
        }
    }
    multiset_scan_end(&scan);
    if (status == JOINERY_OK && join_state_failed(join, other))
        status = operator_fail_state(&join->base, "join state");
    if (status != JOINERY_OK)
        return status;

    if (!accumulate) {
        if (own->outer && matches == 0 && stored_associations == 0)
            return join_emit_padded(join, input, row, ROW_KIND_DELETE);
        return JOINERY_OK;
    }

    if (own->outer && matches == 0) {
        status = join_emit_padded(join, input, row, ROW_KIND_INSERT);
        if (status != JOINERY_OK)
            return status;
    }
    /* store the row (the key row stays in key_rows until the next batch) */
    join->state_accesses++;
    MultisetKey *own_key = multiset_state_insert_key(own->state, key, key_hash, now);
    if (!own_key)
        return operator_fail_state(&join->base, "join state");
    int64_t associations = own->outer ? matches : 0;
    const MultisetEntry *entry = multiset_key_find_row(own->state, own_key, row, row_hash);
    if (entry) {
        if (!multiset_count_can_add(entry->count, 1))
            return operator_fail(&join->base, JOINERY_ERROR_RUNTIME,
                                 "more than %d copies of one row in the join state",
                                 MULTISET_COUNT_MAX);
        status = multiset_entry_update(own->state, own_key, entry, entry->count + 1,
                                       own->outer ? associations : entry->association_count, now);
    } else if (!join_state_failed(join, own)) {
        entry = multiset_key_add_row(own->state, own_key, row, row_hash, 1, associations, now);
        if (!entry) {
            if (own_key->entry_count == 0)
                (void)multiset_state_remove_key(own->state, own_key);
            status = JOINERY_ERROR_NO_MEMORY;
        }
    } else {
        status = JOINERY_ERROR_NO_MEMORY;
    }
    return status == JOINERY_OK ? JOINERY_OK : operator_fail_state(&join->base, "join state");
}

/* ---- semi / anti joins (Flink's StreamingSemiAntiJoinOperator) ---- */

/*
 * Removes one copy of `row` from the side's state. *found false (and the row counted in
 * skipped_rows) when it is not there; *associations: the copy's association count.
 */
static int join_remove_copy(JoinOperator *join, JoinSide *side, const Row *key, uint64_t key_hash,
                            const Row *row, uint64_t row_hash, int64_t now, bool *found,
                            int64_t *associations)
{
    *found = false;
    join->state_accesses++;
    MultisetKey *own_key = multiset_state_find(side->state, key, key_hash, now);
    const MultisetEntry *entry =
        own_key ? multiset_key_find_row(side->state, own_key, row, row_hash) : NULL;
    if (!entry) {
        if (join_state_failed(join, side))
            return operator_fail_state(&join->base, "join state");
        join->base.metrics.skipped_rows++;
        return JOINERY_OK;
    }
    *found = true;
    *associations = entry->association_count;
    int status;
    if (entry->count == 1) {
        status = multiset_key_remove_entry(side->state, own_key, entry);
        if (status == JOINERY_OK && own_key->entry_count == 0)
            status = multiset_state_remove_key(side->state, own_key);
    } else {
        status = multiset_entry_update(side->state, own_key, entry, entry->count - 1,
                                       entry->association_count, now);
    }
    return status == JOINERY_OK ? JOINERY_OK : operator_fail_state(&join->base, "join state");
}

/* Adds one copy of `row` to the side's state; a new entry gets `associations`, an existing
   one keeps its own. */
static int join_add_copy(JoinOperator *join, JoinSide *side, const Row *key, uint64_t key_hash,
                         const Row *row, uint64_t row_hash, int64_t associations, int64_t now)
{
    join->state_accesses++;
    MultisetKey *own_key = multiset_state_insert_key(side->state, key, key_hash, now);
    if (!own_key)
        return operator_fail_state(&join->base, "join state");
    const MultisetEntry *entry = multiset_key_find_row(side->state, own_key, row, row_hash);
    int status = JOINERY_OK;
    if (entry) {
        if (!multiset_count_can_add(entry->count, 1))
            return operator_fail(&join->base, JOINERY_ERROR_RUNTIME,
                                 "more than %d copies of one row in the join state",
                                 MULTISET_COUNT_MAX);
        status = multiset_entry_update(side->state, own_key, entry, entry->count + 1,
                                       entry->association_count, now);
    } else if (!join_state_failed(join, side)) {
        entry = multiset_key_add_row(side->state, own_key, row, row_hash, 1, associations, now);
        if (!entry) {
            if (own_key->entry_count == 0)
                (void)multiset_state_remove_key(side->state, own_key);
            status = JOINERY_ERROR_NO_MEMORY;
        }
    } else {
        status = JOINERY_ERROR_NO_MEMORY;
    }
    return status == JOINERY_OK ? JOINERY_OK : operator_fail_state(&join->base, "join state");
}

/*
 * One row of a semi / anti join. The left state keeps each left row with its association
 * count (the right rows, with multiplicity, it matches); the right state keeps the right
 * rows. A left row is emitted, with its own kind, while it has a match (SEMI) or none
 * (ANTI): on arrival when it does, on retraction when it did (a retraction of a row not in
 * the state is skipped and counted). A right row's arrival gives each matching left row
 * its next association; a row's first one emits it (SEMI, the right row's kind: +I/+U) or
 * deletes it (ANTI, -D). A right row's retraction takes one away; a row's last one
 * retracts it (SEMI, the right row's kind: -U/-D) or re-emits it (ANTI, +I). Left rows
 * whose key has a NULL never match: SEMI drops them, ANTI emits and keeps them; such right
 * rows are dropped.
 */
static int join_process_semi_anti_row(JoinOperator *join, uint32_t input, const Row *row,
                                      const JoinRowPlan *plan, int64_t now)
{
    bool anti = join->spec.join_type == JOIN_TYPE_ANTI;
    JoinSide *own = &join->sides[input];
    JoinSide *other = &join->sides[1 - input];
    RowKind kind = row_kind(row);
    bool accumulate = row_kind_is_accumulate(kind);
    const Row *key = (const Row *)(join->key_rows + plan->key_offset);
    if (plan->never_matches && (input == 1 || !anti))
        return JOINERY_OK;
    if (input == 0) {
        int64_t matches = 0;
        if (accumulate && !plan->never_matches) {
            join->state_accesses++;
            MultisetKey *other_key = multiset_state_find(other->state, key, plan->key_hash, now);
            if (!other_key && join_state_failed(join, other))
                return operator_fail_state(&join->base, "join state");
            MultisetScan scan;
            multiset_scan_begin(other->state, other_key, &scan);
            for (const MultisetEntry *entry; (entry = multiset_scan_next(&scan));) {
                if (join->spec.residual && !join_residual_accepts(join, row, entry->row)) {
                    if (join->eval_context.failed)
                        break;
                    continue;
                }
                matches += entry->count;
            }
            multiset_scan_end(&scan);
            if (join->eval_context.failed)
                return operator_fail(&join->base, JOINERY_ERROR_RUNTIME,
                                     "join condition failed to evaluate");
            if (join_state_failed(join, other))
                return operator_fail_state(&join->base, "join state");
        }
        int status;
        if (accumulate) {
            status =
                join_add_copy(join, own, key, plan->key_hash, row, plan->row_hash, matches, now);
        } else {
            bool found;
            status = join_remove_copy(join, own, key, plan->key_hash, row, plan->row_hash, now,
                                      &found, &matches);
            if (status != JOINERY_OK || !found)
                return status;
        }
        if (status != JOINERY_OK)
            return status;
        return (matches > 0) != anti ? operator_emit(&join->base, row, kind) : JOINERY_OK;
    }
    int status;
    if (accumulate) {
        status = join_add_copy(join, own, key, plan->key_hash, row, plan->row_hash, 0, now);
    } else {
        bool found;
        int64_t unused;
        status = join_remove_copy(join, own, key, plan->key_hash, row, plan->row_hash, now, &found,
                                  &unused);
        if (status != JOINERY_OK || !found)
            return status;
    }
    if (status != JOINERY_OK)
        return status;
    /* the left rows this right row matches gain or lose one association */
    join->state_accesses++;
    MultisetKey *other_key = multiset_state_find(other->state, key, plan->key_hash, now);
    if (!other_key)
        return join_state_failed(join, other) ? operator_fail_state(&join->base, "join state")
                                              : JOINERY_OK;
    RowKind emitted;
    if (accumulate)
        emitted = anti ? ROW_KIND_DELETE : kind;
    else
        emitted = anti ? ROW_KIND_INSERT : kind;
    MultisetScan scan;
    multiset_scan_begin(other->state, other_key, &scan);
    for (const MultisetEntry *entry; status == JOINERY_OK && (entry = multiset_scan_next(&scan));) {
        if (join->spec.residual && !join_residual_accepts(join, entry->row, row)) {
            if (join->eval_context.failed)
                status = operator_fail(&join->base, JOINERY_ERROR_RUNTIME,
                                       "join condition failed to evaluate");
            continue;
        }
        int64_t associations = entry->association_count;
        bool changes = accumulate ? associations == 0 : associations == 1;
        for (int64_t copy = 0; changes && copy < entry->count && status == JOINERY_OK; copy++)
            status = operator_emit(&join->base, entry->row, emitted);
        if (accumulate)
            associations++;
        else if (associations > 0)
            associations--;
        if (status == JOINERY_OK &&
            multiset_entry_update(other->state, other_key, entry, entry->count, associations,
                                  now) != JOINERY_OK)
            status = operator_fail_state(&join->base, "join state");
    }
    multiset_scan_end(&scan);
    if (status == JOINERY_OK && join_state_failed(join, other))
        status = operator_fail_state(&join->base, "join state");
    return status;
}

/* Announces the state lookups of row `i` at prefetch level `level`. */
static inline void join_prefetch_row(const JoinOperator *join, uint32_t input, uint32_t i,
                                     MultisetPrefetch level)
{
    const JoinRowPlan *plan = &join->plans[i];
    if (plan->never_matches)
        return;
    multiset_state_prefetch(join->sides[1 - input].state, plan->key_hash, 0, level);
    multiset_state_prefetch(join->sides[input].state, plan->key_hash, plan->row_hash, level);
}

/* join_process_upsert_row's step: one row of the upsert change through join_process_row. */
typedef struct JoinUpsertStep {
    JoinOperator *join;
    uint32_t input;
    const JoinRowPlan *plan;
    int64_t now;
} JoinUpsertStep;

static int join_upsert_step(void *context, const Row *row)
{
    JoinUpsertStep *step = context;
    JoinRowPlan plan = *step->plan;
    plan.row_hash = row_content_hash(row); /* the stored row's, or the change's again */
    return join_process_row(step->join, step->input, row, &plan, step->now);
}

/* An upsert input's row (spec.upsert_input): applied as upsert_input.h says, each row
   through join_process_row, so the output is what a ChangelogNormalize below the join
   made the join emit. */
static int join_process_upsert_row(JoinOperator *join, uint32_t input, const Row *row,
                                   const JoinRowPlan *plan, int64_t now)
{
    JoinSide *own = &join->sides[input];
    if (plan->never_matches && !own->outer)
        return JOINERY_OK;
    const Row *key = (const Row *)(join->key_rows + plan->key_offset);
    arena_reset(&join->upsert_arena);
    join->state_accesses++;
    MultisetKey *own_key = multiset_state_find(own->state, key, plan->key_hash, now);
    if (!own_key && join_state_failed(join, own))
        return operator_fail_state(&join->base, "join state");
    JoinUpsertStep step = {.join = join, .input = input, .plan = plan, .now = now};
    int status =
        upsert_input_apply(own->state, own_key, row, &join->upsert_arena, join_upsert_step, &step);
    if (status == JOINERY_ERROR_NO_MEMORY)
        return operator_fail(&join->base, status, "out of memory");
    return status;
}

static int join_process(Operator *self, uint32_t input, const RowBatch *batch)
{
    JoinOperator *join = (JoinOperator *)self;
    if (input > 1)
        return operator_fail(self, JOINERY_ERROR, "join has no input %u", input);
    int64_t now = join->ttl_enabled ? operator_now_millis(self) : 0;
    if (join->spec.residual) {
        arena_reset(&join->eval_arena);
        join->eval_context.now_millis = join->ttl_enabled ? now : operator_now_millis(self);
    }
    int status = join_plan_batch(join, input, batch);
    if (status != JOINERY_OK)
        return status;
    uint32_t count = batch->count;
    const uint32_t distance = JOIN_PREFETCH_DISTANCE;
    /* warm up: the first rows get their levels now */
    for (uint32_t i = 0; i < count && i < 3 * distance; i++)
        join_prefetch_row(join, input, i, MULTISET_PREFETCH_SLOT);
    for (uint32_t i = 0; i < count && i < 2 * distance; i++)
        join_prefetch_row(join, input, i, MULTISET_PREFETCH_KEY);
    for (uint32_t i = 0; i < count && i < distance; i++)
        join_prefetch_row(join, input, i, MULTISET_PREFETCH_ENTRIES);
    for (uint32_t i = 0; i < count; i++) {
        if (i + 3 * distance < count)
            join_prefetch_row(join, input, i + 3 * distance, MULTISET_PREFETCH_SLOT);
        if (i + 2 * distance < count)
            join_prefetch_row(join, input, i + 2 * distance, MULTISET_PREFETCH_KEY);
        if (i + distance < count)
            join_prefetch_row(join, input, i + distance, MULTISET_PREFETCH_ENTRIES);
        if (join->semi_anti)
            status = join_process_semi_anti_row(join, input, batch->rows[i], &join->plans[i], now);
        else if (join->spec.upsert_input[input])
            status = join_process_upsert_row(join, input, batch->rows[i], &join->plans[i], now);
        else
            status = join_process_row(join, input, batch->rows[i], &join->plans[i], now);
        if (status != JOINERY_OK)
            return status;
    }
    return JOINERY_OK;
}

static int join_open(Operator *self, ExecContext *context)
{
    JoinOperator *join = (JoinOperator *)self;
    join->eval_context.arena = &join->eval_arena;
    join->eval_context.diag = context->diag;
    join->eval_context.failed = false;
    if (!context->state_store)
        return operator_fail(self, JOINERY_ERROR, "join: no state store");
    join->sides[0].state = multiset_state_create(context->state_store, join->spec.left_ttl_millis);
    join->sides[1].state = join->sides[0].state ? multiset_state_create(context->state_store,
                                                                        join->spec.right_ttl_millis)
                                                : NULL;
    if (!join->sides[1].state)
        return operator_fail_state(self, "join state");
    return join->ttl_enabled ? operator_schedule_cleanup(self) : JOINERY_OK;
}

static void join_report_state(Operator *self)
{
    JoinOperator *join = (JoinOperator *)self;
    if (!join->sides[0].state || !join->sides[1].state)
        return;
    StateCounters left = multiset_state_counters(join->sides[0].state);
    StateCounters right = multiset_state_counters(join->sides[1].state);
    self->metrics.state_bytes = left.bytes + right.bytes;
    self->metrics.state_keys = left.keys + right.keys;
    self->metrics.state_rows = left.entries + right.entries;
    self->metrics.expired_rows = left.expired + right.expired;
}

/* The recurring TTL cleanup timer (the only timer a join registers). */
static int join_on_timer(Operator *self, TimerDomain domain, int64_t timestamp, const Row *key)
{
    (void)domain;
    (void)timestamp;
    (void)key;
    JoinOperator *join = (JoinOperator *)self;
    int64_t now = operator_timer_now(self);
    for (int side = 0; side < 2; side++)
        multiset_state_cleanup(join->sides[side].state, now, JOIN_CLEANUP_SLOTS_PER_TIMER);
    join_report_state(self);
    return operator_schedule_cleanup(self);
}

/* The snapshot: the left side's state, then the right side's. */
static int join_snapshot(Operator *self, const Barrier *barrier, const StateWriter *writer)
{
    (void)barrier;
    JoinOperator *join = (JoinOperator *)self;
    int status = JOINERY_OK;
    for (int side = 0; side < 2 && status == JOINERY_OK; side++)
        status = multiset_state_snapshot(join->sides[side].state, writer, self->context->diag);
    return status;
}

static int join_restore(Operator *self, const StateReader *reader)
{
    JoinOperator *join = (JoinOperator *)self;
    int status = JOINERY_OK;
    for (int side = 0; side < 2 && status == JOINERY_OK; side++)
        status = multiset_state_restore(join->sides[side].state, reader, self->context->diag);
    return status;
}

static void join_close(Operator *self)
{
    JoinOperator *join = (JoinOperator *)self;
    for (int side = 0; side < 2; side++) {
        multiset_state_destroy(join->sides[side].state);
        join->sides[side].state = NULL;
        free(join->sides[side].variable_length);
        join->sides[side].variable_length = NULL;
        key_extractor_free(&join->sides[side].key);
    }
    free(join->plans);
    join->plans = NULL;
    for (int side = 0; side < 2; side++)
        mini_batch_buffer_free(&join->batches[side]);
    mini_batch_fold_free(&join->fold);
    free(join->key_rows);
    join->key_rows = NULL;
    row_builder_free(&join->output_builder);
    arena_destroy(&join->eval_arena);
    arena_destroy(&join->upsert_arena);
    free(join);
}

/* ---- mini-batch (Flink 1.19's MiniBatchStreamingJoinOperator, FLIP-415) ---- */

static int join_buffer_rows(JoinOperator *join, uint32_t input, const RowBatch *batch);

/* Folds one side's buffered rows (mini_batch_fold.h says how, and why the output is the
   same) and runs what remains through the join, in arrival order. */
static int join_flush_side(JoinOperator *join, uint32_t input)
{
    MiniBatchBuffer *buffer = &join->batches[input];
    RowBatch survivors;
    if (mini_batch_fold_rows(&join->fold, buffer, &survivors) != JOINERY_OK)
        return operator_fail(&join->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
    int status = survivors.count ? join_process(&join->base, input, &survivors) : JOINERY_OK;
    mini_batch_buffer_clear(buffer);
    return status;
}

/* Ends the batch. As Flink, the side whose rows are never padded goes first (the left side
   of a RIGHT join, else the right side): its rows are in the state before the preserved
   side's rows look for matches, so fewer padded rows are emitted and retracted. */
static int join_flush_batch(JoinOperator *join)
{
    uint32_t first = join->spec.join_type == JOIN_TYPE_RIGHT ? 0 : 1;
    int status = join_flush_side(join, first);
    return status == JOINERY_OK ? join_flush_side(join, 1 - first) : status;
}

static int join_mini_batch_process(Operator *self, uint32_t input, const RowBatch *batch)
{
    JoinOperator *join = (JoinOperator *)self;
    if (input > 1)
        return operator_fail(self, JOINERY_ERROR, "join has no input %u", input);
    return join_buffer_rows(join, input, batch);
}

static int join_buffer_rows(JoinOperator *join, uint32_t input, const RowBatch *batch)
{
    for (uint32_t i = 0; i < batch->count; i++) {
        const Row *row = batch->rows[i];
        if (mini_batch_buffer_add(&join->batches[input], row, row_content_hash(row), row) != 0)
            return operator_fail(&join->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
        if ((int64_t)(join->batches[0].row_count + join->batches[1].row_count) >=
            join->spec.mini_batch_size) {
            int status = join_flush_batch(join);
            if (status != JOINERY_OK)
                return status;
        }
    }
    return JOINERY_OK;
}

/* A watermark ends the mini-batch (MiniBatchAssigner): fold it, then forward the watermark. */
static int join_mini_batch_on_watermark(Operator *self, int64_t watermark)
{
    int status = join_flush_batch((JoinOperator *)self);
    return status == JOINERY_OK ? operator_emit_watermark(self, watermark) : status;
}

static int join_mini_batch_finish(Operator *self)
{
    return join_flush_batch((JoinOperator *)self);
}

/* The open batch is folded first: its changes go out before the barrier. */
static int join_mini_batch_snapshot(Operator *self, const Barrier *barrier,
                                    const StateWriter *writer)
{
    int status = join_flush_batch((JoinOperator *)self);
    return status == JOINERY_OK ? join_snapshot(self, barrier, writer) : status;
}

static const OperatorVtable JOIN_MINI_BATCH_VTABLE = {
    .open = join_open,
    .process = join_mini_batch_process,
    .on_watermark = join_mini_batch_on_watermark,
    .on_timer = join_on_timer,
    .snapshot = join_mini_batch_snapshot,
    .restore = join_restore,
    .finish = join_mini_batch_finish,
    .report_state = join_report_state,
    .close = join_close,
};

static const OperatorVtable JOIN_VTABLE = {
    .open = join_open,
    .process = join_process,
    .on_watermark = NULL, /* forwards the merged watermark */
    .on_timer = join_on_timer,
    .snapshot = join_snapshot,
    .restore = join_restore,
    .finish = NULL,
    .report_state = join_report_state,
    .close = join_close,
};

void join_operator_side_state(const Operator *op, uint32_t side, uint64_t *bytes, uint64_t *keys,
                              uint64_t *rows)
{
    StateCounters counters = {0, 0, 0, 0};
    if (op && (op->vtable == &JOIN_VTABLE || op->vtable == &JOIN_MINI_BATCH_VTABLE) && side < 2 &&
        ((const JoinOperator *)op)->sides[side].state)
        counters = multiset_state_counters(((const JoinOperator *)op)->sides[side].state);
    if (bytes)
        *bytes = counters.bytes;
    if (keys)
        *keys = counters.keys;
    if (rows)
        *rows = counters.entries;
}

static bool *join_variable_flags(const DataType *types, uint32_t count)
{
    bool *flags = calloc(count ? count : 1, sizeof(bool));
    if (flags)
        for (uint32_t i = 0; i < count; i++)
            flags[i] = type_is_variable_length(types[i].id);
    return flags;
}

Operator *join_operator_create(const JoinOperatorSpec *spec, Diag *diag)
{
    bool semi_anti = spec->join_type == JOIN_TYPE_SEMI || spec->join_type == JOIN_TYPE_ANTI;
    if (semi_anti && spec->mini_batch_size > 0) {
        diag_error(diag, JOINERY_ERROR_VALIDATE,
                   "join: a semi / anti join runs row by row (no mini-batch form, as in Flink)");
        return NULL;
    }
    if ((spec->upsert_input[0] || spec->upsert_input[1]) &&
        (semi_anti || spec->mini_batch_size > 0 || spec->key_count == 0)) {
        diag_error(diag, JOINERY_ERROR_VALIDATE,
                   "join: an upsert input needs an equi-join row by row (not semi / anti)");
        return NULL;
    }
    if (spec->key_count > 0 && (!spec->left_keys || !spec->right_keys)) {
        diag_error(diag, JOINERY_ERROR_VALIDATE, "join: key indexes missing");
        return NULL;
    }
    for (uint32_t k = 0; k < spec->key_count; k++) {
        if (spec->left_keys[k] >= spec->left_field_count ||
            spec->right_keys[k] >= spec->right_field_count) {
            diag_error(diag, JOINERY_ERROR_VALIDATE, "join: key field out of range");
            return NULL;
        }
    }
    if (spec->left_field_count + spec->right_field_count > UINT16_MAX) {
        diag_error(diag, JOINERY_ERROR_VALIDATE, "join: too many fields");
        return NULL;
    }
    JoinOperator *join = calloc(1, sizeof *join);
    if (!join) {
        diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        return NULL;
    }
    join->spec = *spec;
    bool left_outer = join_type_preserves_left(spec->join_type);
    bool right_outer = join_type_preserves_right(spec->join_type);
    join->sides[0] = (JoinSide){.field_count = spec->left_field_count, .outer = left_outer};
    join->sides[1] = (JoinSide){.field_count = spec->right_field_count, .outer = right_outer};
    join->semi_anti = semi_anti;
    /* an anti join's left rows with a NULL key are emitted, so kept (and hashed) as an outer
       side's are */
    join->sides[0].outer = left_outer || spec->join_type == JOIN_TYPE_ANTI;
    bool keys_ready = key_extractor_init(&join->sides[0].key, spec->key_count, spec->left_keys,
                                         spec->left_types, spec->null_safe_keys) &&
                      key_extractor_init(&join->sides[1].key, spec->key_count, spec->right_keys,
                                         spec->right_types, spec->null_safe_keys);
    join->sides[0].variable_length = join_variable_flags(spec->left_types, spec->left_field_count);
    join->sides[1].variable_length =
        join_variable_flags(spec->right_types, spec->right_field_count);
    join->ttl_enabled = spec->left_ttl_millis > 0 || spec->right_ttl_millis > 0;
    row_builder_init(&join->output_builder);
    arena_init(&join->eval_arena, 4096);
    arena_init(&join->upsert_arena, 1024);
    snprintf(join->name, sizeof join->name, "Join(joinType=[%s])", join_type_name(spec->join_type));
    mini_batch_buffer_init(&join->batches[0]);
    mini_batch_buffer_init(&join->batches[1]);
    operator_init(&join->base, spec->mini_batch_size > 0 ? &JOIN_MINI_BATCH_VTABLE : &JOIN_VTABLE,
                  join->name, 2, join);
    join->base.uses_timers = join->ttl_enabled;
    if (!join->sides[0].variable_length || !join->sides[1].variable_length || !keys_ready) {
        operator_close(&join->base);
        diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        return NULL;
    }
    /* both sides' keys have the same types; written directly when all are fixed-width */
    join->keys_fixed_width = join->sides[0].key.fixed_width && join->sides[1].key.fixed_width;
    join->fixed_key_words = row_fixed_size(spec->key_count) / 8;
    return &join->base;
}

void join_operator_mini_batch_counts(const Operator *op, uint64_t *state_accesses,
                                     uint64_t *folded_rows)
{
    const JoinOperator *join = (const JoinOperator *)op;
    *state_accesses = join->state_accesses;
    *folded_rows = join->fold.folded_rows;
}
