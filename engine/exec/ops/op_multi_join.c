/*
 * op_multi_join.c - the MultiJoin operator (see op_multi_join.h), after
 * Flink's StreamingMultiJoinOperator: a depth-first walk over the inputs'
 * states, extended from INNER/LEFT to RIGHT and FULL OUTER steps.
 *
 * Notation: S_i is input i's state for one common-key value k; J_0 = S_0
 * and J_i = J_(i-1) <type_i, condition_i> S_i, so J_(n-1) is the output for
 * k. The walk's current path is components[0..i]: one row of each input
 * (NULL where padded) standing for one row of J_i; rows of J_i are never
 * materialized except the output rows (built once each, O(fields)). A
 * step's condition that reads this input and one earlier input is
 * remapped at creation to (that input ++ this input) and evaluated on the
 * two component rows; a condition reading several earlier inputs gets the
 * path concatenated into the level's RowBuilder once per path, not per
 * candidate.
 *
 * State: one MultisetState keyed by the common key row (built by the
 * input's KeyExtractor from its common_key_fields), with one part per
 * input: part i of key k is S_i, so one lookup finds every input's rows for
 * k and the key row, table slot and block are stored once per key, not
 * once per input. An entry is a distinct input row with its count
 * (duplicates). Within k, the rows of an input whose step also equates
 * other fields with its partner (a.k = b.k AND a.x = b.y) are grouped by
 * that own join key (b.y): the state indexes them by its hash, and a path
 * visits only the group of its partner's a.x (the condition is still
 * checked on each candidate). When step i preserves
 * the right side (RIGHT/FULL), the entries of S_i keep in
 * association_count how many rows of J_(i-1) (with multiplicity) match
 * them: the NULL-padded row (NULLs ++ s) is in the output exactly while
 * that count is 0. Nothing else is stored: rows of J_i are recomputed.
 *
 * Partitioning: every step's condition implies equality of the common key
 * between the new input and an earlier one, so all non-padded parts of a
 * joined row share one non-NULL key value and the join decomposes by key.
 * A row whose key has a NULL never matches; it can only appear as the one
 * non-padded part of an output row, when its input is preserved to the end
 * (input 0 or a RIGHT/FULL step, followed only by LEFT/FULL steps). Such
 * rows are stored (so their retraction can be checked) and emitted padded
 * without any walk; rows of other inputs with a NULL key are dropped.
 * With IS NOT DISTINCT FROM in a condition, NULL keys are a partition like
 * any other (allowed only where no outer step precedes it, see the header).
 *
 * A change (sign +1 for +I/+U, -1 for -U/-D) of row r on input m, key k:
 *   1. Enumerate J_(m-1) for k (unchanged by the change): its rows start at
 *      level 0 (rows of S_0) or at a right-preserving level j < m (padded
 *      rows NULLs ++ s for entries with association_count 0) and are
 *      extended level by level with the matching entries (or padding on a
 *      left-preserving step without match).
 *   2. For each such row l matching r under condition_m: l ++ r is a delta
 *      of J_m with the change's sign. On a left-preserving step, if l had
 *      no other match in S_m, the padded l ++ NULLs is retracted before an
 *      insertion (or re-inserted after a retraction). The count of matching
 *      l is r's association count.
 *   3. On a right-preserving step, r ++ NULLs-left is inserted/retracted
 *      when r has no association.
 *   4. Every delta of J_(j-1) (signed, with a multiplicity) is propagated
 *      through step j with S_j fixed: joined with each matching entry,
 *      padded on a left-preserving step without match, and on a
 *      right-preserving step the matching entries' association counts move
 *      by the delta, retracting the entry's padded row on 0 -> positive and
 *      re-inserting it on positive -> 0. Deltas of J_(n-1) are emitted.
 *   5. The row is stored (count + 1, association count from step 2) or
 *      removed (count - 1) from S_m.
 * Deltas are applied one after another, each a valid change of the level it
 * belongs to, so every emitted retraction removes a row that is in the
 * output at that point. The walk's order is the state's entry order, which
 * depends only on the sequence of changes: the output is deterministic.
 *
 * Empty-result pruning (spec.empty_result_pruning): before walking, the
 * states for k are looked up; when J_(m-1) is provably empty (an INNER or
 * RIGHT step whose input has nothing for k, or input 0 empty, not rescued
 * by a preserving step), step 1 is skipped, and when a later INNER/RIGHT
 * input has nothing for k and no association count could change on the
 * way, the whole walk is skipped. The output is the same either way.
 *
 * TTL (per input, processing time, refreshed on writes and association
 * changes): expired rows silently leave the state, as in Flink; the joined
 * rows emitted with them are not retracted. Association counts then may be
 * too high, so a padded row of a right-preserving input is not re-emitted
 * when its last visible match leaves. A left-preserving step has no stored
 * count: after its match expired, retracting the left row retracts a padded
 * row that was never emitted (Flink does the same). Without TTL the output
 * is exact.
 *
 * Per-row cost: no malloc beyond state (the path, prefix, key and output
 * builders are reused; condition strings go to an arena reset per batch).
 */
#include "engine/exec/ops/op_multi_join.h"

#include "engine/exec/key_extractor.h"
#include "engine/exec/mini_batch_buffer.h"
#include "engine/exec/mini_batch_fold.h"
#include "engine/exec/upsert_input.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "engine/exec/expr_eval.h"
#include "engine/state/state.h"

enum {
    MULTI_JOIN_CLEANUP_SLOTS_PER_TIMER = 4096,
    MULTI_JOIN_PREFETCH_DISTANCE = 8, /* rows between prefetching a slot, its key block, the row */
};

/* How a step's condition is evaluated. */
typedef enum MultiJoinConditionMode {
    MULTI_JOIN_CONDITION_NONE, /* no condition: true */
    MULTI_JOIN_CONDITION_PAIR, /* reads one earlier input and this one: remapped, no prefix row */
    MULTI_JOIN_CONDITION_GENERAL, /* reads several earlier inputs: over a built prefix row */
} MultiJoinConditionMode;

typedef struct MultiJoinInput {
    KeyExtractor key; /* the common key of the input's rows */
    uint32_t field_count;
    uint32_t prefix_offset; /* output fields before this input's */
    MultiJoinConditionMode condition_mode;
    const Expr *condition; /* GENERAL: the spec's; PAIR: remapped to partner ++ this input */
    uint32_t partner;      /* PAIR: the one earlier input the condition reads */
    /* a common-key equality with the partner was dropped from the condition: it holds on
       every path where the partner has a row, and fails where the partner is padded */
    bool partner_required;
    /* PAIR steps whose condition has equalities partner.a = this.b beyond the common key:
       the input's rows are grouped by its own join key (b...), and a path looks up the
       group of its partner's (a...) instead of scanning every row of the common key */
    uint32_t group_field_count;
    uint32_t *group_own_fields;     /* b: fields of this input */
    uint32_t *group_partner_fields; /* a: fields of the partner, same order and types */
    bool *group_variable;           /* per group field: variable-length */
    bool preserves_left;  /* step is LEFT/FULL: rows of J_(i-1) without match are padded */
    bool preserves_right; /* step is RIGHT/FULL: entries keep association counts */
    /* a row with a NULL key can appear in the output (padded): input 0 or right-preserving,
       and every later step preserves the left side */
    bool null_key_reaches_output;
    RowBuilder prefix_builder; /* GENERAL: the current row of J_(i-1), built once per prefix */
    const Row *prefix_row;
    const Row **saved_components; /* i slots: the path saved while a padded row is walked */
    MultisetKey *current_key;     /* during a change: this input's entries for the key, or NULL */
} MultiJoinInput;

typedef struct MultiJoinOperator {
    Operator base; /* first: the Operator * is the MultiJoinOperator * */
    MultiJoinSpec spec;
    MultiJoinInput *inputs;
    uint32_t input_count;
    uint32_t output_field_count;
    bool *output_variable_length; /* per output field */
    bool all_inner;               /* forward input kinds */
    bool null_safe;               /* a condition uses IS NOT DISTINCT FROM */
    bool ttl_enabled;
    MultisetState *state; /* every input's rows: part i of a key is input i's */
    uint64_t *key_hashes; /* the current batch's key hashes (prefetching) */
    uint32_t hash_capacity;
    /* the current path of the walk: components[i] is input i's row (NULL = padded) */
    const Row **components;
    RowBuilder output_builder;
    Arena expr_arena;   /* remapped conditions */
    Arena eval_arena;   /* strings made by conditions; reset per batch */
    Arena upsert_arena; /* an upsert input's row copies; reset per row */
    ExprEvalContext eval_context;
    /* the change being processed */
    uint32_t change_input;
    const Row *change_row;
    int change_sign;
    RowKind accumulate_kind, retract_kind; /* kinds emitted for sign +1 / -1 */
    int64_t change_matches;                /* rows of J_(m-1) matching the changed row */
    int64_t now;
    /* mini-batch mode (spec.mini_batch_size > 0): each input's rows of the open batch */
    MiniBatchBuffer *batches; /* input_count buffers */
    uint64_t buffered_rows;   /* in every input's buffer */
    MiniBatchFold fold;
    char name[160];
} MultiJoinOperator;

/* ---- conditions, the current path, output ---- */

/*
 * Builds components[0..count-1] concatenated (NULLs where padded) into
 * `builder`. NULL when memory is exhausted (the diag is set).
 */
static const Row *multi_join_build_components(MultiJoinOperator *join, RowBuilder *builder,
                                              uint32_t count)
{
    uint32_t field_total =
        count < join->input_count ? join->inputs[count].prefix_offset : join->output_field_count;
    const bool *variable = join->output_variable_length;
    row_builder_begin(builder, field_total, ROW_KIND_INSERT);
    for (uint32_t i = 0; i < count; i++) {
        const MultiJoinInput *input = &join->inputs[i];
        const Row *row = join->components[i];
        uint32_t offset = input->prefix_offset;
        for (uint32_t f = 0; f < input->field_count; f++) {
            if (row)
                row_builder_copy_field(builder, offset + f, row, f, variable[offset + f]);
            else
                row_builder_set_null(builder, offset + f);
        }
    }
    const Row *built = row_builder_finish(builder);
    if (!built)
        operator_fail(&join->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
    return built;
}

/* Hash of the given fields of `row` (equal values, equal types: equal hashes). */
static uint32_t multi_join_fields_hash(const Row *row, const uint32_t *fields, const bool *variable,
                                       uint32_t count)
{
    uint64_t hash = 0x9e3779b97f4a7c15ull;
    for (uint32_t k = 0; k < count; k++) {
        uint64_t value;
        if (row_is_null(row, fields[k])) {
            value = 0x5bd1e995u;
        } else if (variable[k]) {
            uint32_t length;
            const char *bytes = row_get_string(row, fields[k], &length);
            value = XXH3_64bits(bytes, length);
        } else {
            value = row_get_slot(row, fields[k]);
        }
        hash = (hash ^ value) * 0xff51afd7ed558ccdull;
        hash ^= hash >> 32;
    }
    return (uint32_t)hash;
}

/* The state's group hash of a row of a grouped input (context: its MultiJoinInput). */
static uint32_t multi_join_row_group_hash(const Row *row, const void *context)
{
    const MultiJoinInput *input = context;
    return multi_join_fields_hash(row, input->group_own_fields, input->group_variable,
                                  input->group_field_count);
}

/*
 * Starts a scan of the rows of S_level that may match the current path:
 * the group of the partner's join key when the input is grouped, else
 * every row. False when nothing can match (a grouped step's partner is
 * padded: its equalities are NULL).
 */
static bool multi_join_scan_begin(MultiJoinOperator *join, uint32_t level, MultisetKey *key,
                                  MultisetScan *scan)
{
    const MultiJoinInput *input = &join->inputs[level];
    if (!key || (input->partner_required && !join->components[input->partner])) {
        multiset_scan_begin(join->state, NULL, scan);
        return false;
    }
    if (input->group_field_count) {
        const Row *partner = join->components[input->partner];
        if (!partner) {
            multiset_scan_begin(join->state, NULL, scan);
            return false;
        }
        uint32_t tag = multi_join_fields_hash(partner, input->group_partner_fields,
                                              input->group_variable, input->group_field_count);
        multiset_scan_begin_group(join->state, key, tag, scan);
        return true;
    }
    multiset_scan_begin(join->state, key, scan);
    return true;
}

/*
 * Prepares evaluating step `level`'s condition for the current path
 * components[0..level-1]: a GENERAL condition needs the path as one row.
 * Call again whenever the path below `level` changes.
 */
static int multi_join_prepare_level(MultiJoinOperator *join, uint32_t level)
{
    MultiJoinInput *input = &join->inputs[level];
    if (input->condition_mode != MULTI_JOIN_CONDITION_GENERAL)
        return JOINERY_OK;
    input->prefix_row = multi_join_build_components(join, &input->prefix_builder, level);
    return input->prefix_row ? JOINERY_OK : JOINERY_ERROR_NO_MEMORY;
}

/*
 * Evaluates the condition of step `level` over the current path ++ row.
 * Sets *match; returns JOINERY_OK or the runtime error.
 */
static inline int multi_join_condition_check(MultiJoinOperator *join, uint32_t level,
                                             const Row *row, bool *match)
{
    const MultiJoinInput *input = &join->inputs[level];
    *match = false;
    if (input->partner_required && !join->components[input->partner])
        return JOINERY_OK;
    switch (input->condition_mode) {
    case MULTI_JOIN_CONDITION_NONE:
        *match = true;
        return JOINERY_OK;
    case MULTI_JOIN_CONDITION_PAIR:
        *match =
            expr_eval_predicate(input->condition, join->components[input->partner],
                                join->inputs[input->partner].field_count, row, &join->eval_context);
        break;
    case MULTI_JOIN_CONDITION_GENERAL:
        *match = expr_eval_predicate(input->condition, input->prefix_row, input->prefix_offset, row,
                                     &join->eval_context);
        break;
    }
    if (join->eval_context.failed)
        return operator_fail(&join->base, JOINERY_ERROR_RUNTIME,
                             "multi-join condition failed to evaluate");
    return JOINERY_OK;
}

/*
 * The next row of a scan of S_level (multi_join_scan_begin) that matches
 * the current path (multi_join_prepare_level has run), or NULL at the end
 * or on an error (*status set: evaluation, or the state backend failed).
 */
static const MultisetEntry *multi_join_next_match(MultiJoinOperator *join, uint32_t level,
                                                  MultisetScan *scan, int *status)
{
    for (const MultisetEntry *entry; (entry = multiset_scan_next(scan)) != NULL;) {
        bool match;
        *status = multi_join_condition_check(join, level, entry->row, &match);
        if (*status != JOINERY_OK)
            return NULL;
        if (match)
            return entry;
    }
    if (state_store_failed(join->state->store))
        *status = operator_fail_state(&join->base, "multi-join state");
    return NULL;
}

/* Emits `weight` copies of the current (complete) path with the kind for `sign`. */
static int multi_join_emit(MultiJoinOperator *join, int sign, int64_t weight)
{
    const Row *row = multi_join_build_components(join, &join->output_builder, join->input_count);
    if (!row)
        return JOINERY_ERROR_NO_MEMORY;
    RowKind kind = sign > 0 ? join->accumulate_kind : join->retract_kind;
    for (int64_t copy = 0; copy < weight; copy++) {
        int status = operator_emit(&join->base, row, kind);
        if (status != JOINERY_OK)
            return status;
    }
    return JOINERY_OK;
}

/* ---- step 4: propagating a delta of J_(level-1) through the later steps ---- */

static int multi_join_propagate(MultiJoinOperator *join, uint32_t level, int sign, int64_t weight);

/*
 * Propagates the row NULLs ++ `row` of J_level (a right-preserved row with
 * no match) to the next level, keeping the current path intact.
 */
static int multi_join_propagate_right_padded(MultiJoinOperator *join, uint32_t level,
                                             const Row *row, int sign, int64_t weight)
{
    MultiJoinInput *input = &join->inputs[level];
    size_t path_bytes = level * sizeof(const Row *);
    memcpy(input->saved_components, join->components, path_bytes);
    memset(join->components, 0, path_bytes);
    const Row *own = join->components[level];
    join->components[level] = row;
    int status = multi_join_propagate(join, level + 1, sign, weight);
    memcpy(join->components, input->saved_components, path_bytes);
    join->components[level] = own;
    return status;
}

/*
 * The current path components[0..level-1] (weight copies) enters or leaves
 * J_(level-1): applies it to J_level and beyond, updating association
 * counts of right-preserving inputs, and emits the deltas of the output.
 */
static int multi_join_propagate(MultiJoinOperator *join, uint32_t level, int sign, int64_t weight)
{
    if (level == join->input_count)
        return multi_join_emit(join, sign, weight);
    MultiJoinInput *input = &join->inputs[level];
    MultisetKey *key = input->current_key;
    int64_t matches = 0;
    MultisetScan scan;
    bool scanning = multi_join_scan_begin(join, level, key, &scan);
    int status = scanning ? multi_join_prepare_level(join, level) : JOINERY_OK;
    for (const MultisetEntry *entry;
         scanning && status == JOINERY_OK &&
         (entry = multi_join_next_match(join, level, &scan, &status));) {
        matches += entry->count;
        if (input->preserves_right && sign > 0 && entry->association_count == 0)
            status = multi_join_propagate_right_padded(join, level, entry->row, -1, entry->count);
        if (status == JOINERY_OK) {
            join->components[level] = entry->row;
            status = multi_join_propagate(join, level + 1, sign, weight * entry->count);
        }
        if (status != JOINERY_OK || !input->preserves_right)
            continue;
        int64_t associations = entry->association_count;
        bool unmatched = false;
        if (sign > 0) {
            associations += weight;
        } else if (associations > 0) {
            associations -= weight;
            if (associations <= 0) {
                associations = 0;
                unmatched = true;
            }
        }
        if (multiset_entry_update(join->state, key, entry, entry->count, associations,
                                  join->ttl_enabled ? join->now : entry->last_access) != JOINERY_OK)
            status = operator_fail_state(&join->base, "multi-join state");
        else if (unmatched)
            status = multi_join_propagate_right_padded(join, level, entry->row, 1, entry->count);
    }
    multiset_scan_end(&scan);
    if (status == JOINERY_OK && input->preserves_left && matches == 0) {
        join->components[level] = NULL;
        status = multi_join_propagate(join, level + 1, sign, weight);
    }
    return status;
}

/* ---- steps 1 to 3: the changed row against J_(m-1) ---- */

/*
 * True when the current path (a row of J_(m-1)) has no match in S_m other
 * than the changed row's copy: on a retraction that copy is still stored
 * and not counted. multi_join_prepare_level(m) has run.
 */
static int multi_join_has_no_other_match(MultiJoinOperator *join, bool *none)
{
    uint32_t level = join->change_input;
    MultisetKey *key = join->inputs[level].current_key;
    int64_t allowed = join->change_sign < 0 ? 1 : 0;
    int64_t matches = 0;
    MultisetScan scan;
    bool scanning = multi_join_scan_begin(join, level, key, &scan);
    int status = JOINERY_OK;
    for (const MultisetEntry *entry; scanning && matches <= allowed &&
                                     (entry = multi_join_next_match(join, level, &scan, &status));)
        matches += entry->count;
    multiset_scan_end(&scan);
    *none = matches <= allowed;
    return status;
}

/* The current path (weight copies) is a row of J_(m-1): joins it with the changed row. */
static int multi_join_apply_change(MultiJoinOperator *join, int64_t weight)
{
    uint32_t level = join->change_input;
    int sign = join->change_sign;
    bool match;
    int status = multi_join_prepare_level(join, level);
    if (status == JOINERY_OK)
        status = multi_join_condition_check(join, level, join->change_row, &match);
    if (status != JOINERY_OK || !match)
        return status;
    join->change_matches += weight;
    bool padded_changes = false;
    if (join->inputs[level].preserves_left) {
        status = multi_join_has_no_other_match(join, &padded_changes);
        if (status != JOINERY_OK)
            return status;
    }
    if (padded_changes && sign > 0) {
        join->components[level] = NULL;
        status = multi_join_propagate(join, level + 1, -1, weight);
    }
    if (status == JOINERY_OK) {
        join->components[level] = join->change_row;
        status = multi_join_propagate(join, level + 1, sign, weight);
    }
    if (status == JOINERY_OK && padded_changes && sign < 0) {
        join->components[level] = NULL;
        status = multi_join_propagate(join, level + 1, 1, weight);
    }
    return status;
}

/*
 * The current path (weight copies) is a row of J_(level-1), level <= m:
 * extends it through the unchanged steps up to m, then applies the change.
 */
static int multi_join_walk_prefix(MultiJoinOperator *join, uint32_t level, int64_t weight)
{
    if (level == join->change_input)
        return multi_join_apply_change(join, weight);
    MultiJoinInput *input = &join->inputs[level];
    MultisetKey *key = input->current_key;
    int64_t matches = 0;
    MultisetScan scan;
    bool scanning = multi_join_scan_begin(join, level, key, &scan);
    int status = scanning ? multi_join_prepare_level(join, level) : JOINERY_OK;
    for (const MultisetEntry *entry;
         scanning && status == JOINERY_OK &&
         (entry = multi_join_next_match(join, level, &scan, &status));) {
        matches += entry->count;
        join->components[level] = entry->row;
        status = multi_join_walk_prefix(join, level + 1, weight * entry->count);
    }
    multiset_scan_end(&scan);
    if (status == JOINERY_OK && input->preserves_left && matches == 0) {
        join->components[level] = NULL;
        status = multi_join_walk_prefix(join, level + 1, weight);
    }
    return status;
}

/* Enumerates J_(m-1) by where its rows start (level 0, or padded at a RIGHT/FULL step). */
static int multi_join_walk_sources(MultiJoinOperator *join)
{
    uint32_t change_input = join->change_input;
    int status = JOINERY_OK;
    for (uint32_t level = 0; level < change_input && status == JOINERY_OK; level++) {
        MultiJoinInput *input = &join->inputs[level];
        MultisetKey *key = input->current_key;
        if (level > 0 && !input->preserves_right)
            continue;
        memset(join->components, 0, level * sizeof(const Row *));
        MultisetScan scan;
        multiset_scan_begin(join->state, key, &scan);
        for (const MultisetEntry *entry;
             status == JOINERY_OK && (entry = multiset_scan_next(&scan)) != NULL;) {
            if (level > 0 && entry->association_count != 0)
                continue;
            join->components[level] = entry->row;
            status = multi_join_walk_prefix(join, level + 1, entry->count);
        }
        multiset_scan_end(&scan);
        if (status == JOINERY_OK && state_store_failed(join->state->store))
            status = operator_fail_state(&join->base, "multi-join state");
    }
    return status;
}

/* ---- empty-result pruning ---- */

/* True when the states show that J_(m-1) has no row for the key. */
static bool multi_join_prefix_is_empty(const MultiJoinOperator *join)
{
    bool empty = join->inputs[0].current_key == NULL;
    for (uint32_t level = 1; level < join->change_input; level++) {
        const MultiJoinInput *input = &join->inputs[level];
        bool input_empty = input->current_key == NULL;
        bool left_survives = !empty && (input->preserves_left || !input_empty);
        bool right_survives = input->preserves_right && !input_empty;
        empty = !left_survives && !right_survives;
    }
    return empty;
}

/*
 * True when a change on m has no effect beyond S_m: a later INNER/RIGHT
 * input has nothing for the key and no association count on the way (nor
 * the changed row's own) depends on the walk.
 */
static bool multi_join_change_is_unobservable(const MultiJoinOperator *join)
{
    if (join->inputs[join->change_input].preserves_right)
        return false;
    for (uint32_t level = join->change_input + 1; level < join->input_count; level++) {
        const MultiJoinInput *input = &join->inputs[level];
        if (input->preserves_right)
            return false;
        if (!input->preserves_left && input->current_key == NULL)
            return true;
    }
    return false;
}

/* ---- processing ---- */

/* Runs steps 1 to 4 for the change set up in join->change_*. */
static int multi_join_walk(MultiJoinOperator *join)
{
    uint32_t change_input = join->change_input;
    MultiJoinInput *input = &join->inputs[change_input];
    int status = JOINERY_OK;
    if (change_input == 0) {
        join->components[0] = join->change_row;
        return multi_join_propagate(join, 1, join->change_sign, 1);
    }
    bool prune = join->spec.empty_result_pruning;
    if (!(prune && multi_join_prefix_is_empty(join)))
        status = multi_join_walk_sources(join);
    if (status != JOINERY_OK || !input->preserves_right)
        return status;
    /* step 3: the padded row of the changed row, present while it has no association */
    const MultisetEntry *stored = NULL;
    if (input->current_key)
        stored = multiset_key_find_row(join->state, input->current_key, join->change_row,
                                       row_content_hash(join->change_row));
    if (!stored && state_store_failed(join->state->store))
        return operator_fail_state(&join->base, "multi-join state");
    int64_t associations = stored ? stored->association_count : join->change_matches;
    if (associations == 0) {
        memset(join->components, 0, change_input * sizeof(const Row *));
        join->components[change_input] = join->change_row;
        status = multi_join_propagate(join, change_input + 1, join->change_sign, 1);
    }
    return status;
}

static int multi_join_process_row(MultiJoinOperator *join, uint32_t change_input, const Row *row,
                                  uint64_t key_hash)
{
    MultiJoinInput *input = &join->inputs[change_input];
    RowKind kind = row_kind(row);
    bool accumulate = row_kind_is_accumulate(kind);
    int64_t now = join->now;

    bool null_key;
    const Row *key = key_extractor_build(&input->key, row, &null_key);
    if (!key)
        return operator_fail(&join->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
    bool alone = null_key && !join->null_safe; /* can match nothing */
    if (alone && !input->null_key_reaches_output)
        return JOINERY_OK;
    uint64_t row_hash = row_content_hash(row);

    /* a retraction of a row not in state is skipped */
    MultisetKey *group = multiset_state_find(join->state, key, key_hash, now);
    MultisetKey *own_key = group ? multiset_key_part(join->state, group, change_input) : NULL;
    const MultisetEntry *entry =
        own_key ? multiset_key_find_row(join->state, own_key, row, row_hash) : NULL;
    if (!entry && state_store_failed(join->state->store))
        return operator_fail_state(&join->base, "multi-join state");
    if (!accumulate && !entry) {
        join->base.metrics.skipped_rows++;
        return JOINERY_OK;
    }

    join->change_input = change_input;
    join->change_row = row;
    join->change_sign = accumulate ? 1 : -1;
    join->change_matches = 0;
    if (join->all_inner) {
        join->accumulate_kind = kind;
        join->retract_kind = kind;
    }
    int status = JOINERY_OK;
    if (alone) {
        /* the row padded with NULLs on every other input */
        memset(join->components, 0, join->input_count * sizeof(const Row *));
        join->components[change_input] = row;
        status = multi_join_emit(join, join->change_sign, 1);
    } else {
        /* one lookup for every input; no state inserts or removes until the walk ends */
        for (uint32_t i = 0; i < join->input_count; i++) {
            MultisetKey *part = group ? multiset_key_part(join->state, group, i) : NULL;
            join->inputs[i].current_key = part && part->entry_count ? part : NULL;
        }
        if (!(join->spec.empty_result_pruning && multi_join_change_is_unobservable(join)))
            status = multi_join_walk(join);
        for (uint32_t i = 0; i < join->input_count; i++)
            join->inputs[i].current_key = NULL;
    }
    if (status != JOINERY_OK)
        return status;

    /* step 5: store or remove the row (the key row is still in the input's extractor) */
    if (!accumulate) {
        if (entry->count == 1) {
            status = multiset_key_remove_entry(join->state, own_key, entry);
            if (status == JOINERY_OK && own_key->entry_count == 0)
                status = multiset_state_release_key(join->state, group);
        } else {
            status = multiset_entry_update(join->state, own_key, entry, entry->count - 1,
                                           entry->association_count,
                                           join->ttl_enabled ? now : entry->last_access);
        }
        return status == JOINERY_OK ? JOINERY_OK
                                    : operator_fail_state(&join->base, "multi-join state");
    }
    if (!group) /* the walk adds and removes no keys: the group found above is still valid */
        group = multiset_state_insert_key(join->state, key, key_hash, now);
    if (!group)
        return operator_fail_state(&join->base, "multi-join state");
    own_key = multiset_key_part(join->state, group, change_input);
    entry = multiset_key_find_row(join->state, own_key, row, row_hash);
    if (entry) {
        if (!multiset_count_can_add(entry->count, 1))
            return operator_fail(&join->base, JOINERY_ERROR_RUNTIME,
                                 "more than %d copies of one row in the multi-join state",
                                 MULTISET_COUNT_MAX);
        status = multiset_entry_update(join->state, own_key, entry, entry->count + 1,
                                       entry->association_count, now);
    } else if (state_store_failed(join->state->store)) {
        status = JOINERY_ERROR_NO_MEMORY;
    } else {
        int64_t associations = input->preserves_right && !alone ? join->change_matches : 0;
        entry = multiset_key_add_row(join->state, own_key, row, row_hash, 1, associations, now);
        if (!entry) {
            (void)multiset_state_release_key(join->state, group);
            status = JOINERY_ERROR_NO_MEMORY;
        }
    }
    return status == JOINERY_OK ? JOINERY_OK : operator_fail_state(&join->base, "multi-join state");
}

/* multi_join_process_upsert_row's step: one row of the upsert change. */
typedef struct MultiJoinUpsertStep {
    MultiJoinOperator *join;
    uint32_t input;
    uint64_t key_hash;
} MultiJoinUpsertStep;

static int multi_join_upsert_step(void *context, const Row *row)
{
    MultiJoinUpsertStep *step = context;
    return multi_join_process_row(step->join, step->input, row, step->key_hash);
}

/* An upsert input's row (MultiJoinInputSpec.upsert): applied as upsert_input.h says, each
   row through multi_join_process_row. */
static int multi_join_process_upsert_row(MultiJoinOperator *join, uint32_t change_input,
                                         const Row *row, uint64_t key_hash)
{
    MultiJoinInput *input = &join->inputs[change_input];
    bool null_key;
    const Row *key = key_extractor_build(&input->key, row, &null_key);
    if (!key)
        return operator_fail(&join->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
    arena_reset(&join->upsert_arena);
    MultisetKey *group = multiset_state_find(join->state, key, key_hash, join->now);
    if (!group && state_store_failed(join->state->store))
        return operator_fail_state(&join->base, "multi-join state");
    MultisetKey *part = group ? multiset_key_part(join->state, group, change_input) : NULL;
    MultiJoinUpsertStep step = {.join = join, .input = change_input, .key_hash = key_hash};
    int status = upsert_input_apply(join->state, part, row, &join->upsert_arena,
                                    multi_join_upsert_step, &step);
    if (status == JOINERY_ERROR_NO_MEMORY)
        return operator_fail(&join->base, status, "out of memory");
    return status;
}

static int multi_join_process(Operator *self, uint32_t input, const RowBatch *batch)
{
    MultiJoinOperator *join = (MultiJoinOperator *)self;
    if (input >= join->input_count)
        return operator_fail(self, JOINERY_ERROR, "multi-join has no input %u", input);
    join->now = join->ttl_enabled ? operator_now_millis(self) : 0;
    arena_reset(&join->eval_arena);
    join->eval_context.now_millis = join->ttl_enabled ? join->now : operator_now_millis(self);
    /* the rows' key hashes first, so that each row's table slot and key block can be
       fetched from memory a few rows before it is processed */
    if (batch->count > join->hash_capacity) {
        uint64_t *hashes = realloc(join->key_hashes, batch->count * sizeof *hashes);
        if (!hashes)
            return operator_fail(self, JOINERY_ERROR_NO_MEMORY, "out of memory");
        join->key_hashes = hashes;
        join->hash_capacity = batch->count;
    }
    KeyExtractor *extractor = &join->inputs[input].key;
    for (uint32_t i = 0; i < batch->count; i++) {
        const Row *key = key_extractor_build(extractor, batch->rows[i], NULL);
        if (!key)
            return operator_fail(self, JOINERY_ERROR_NO_MEMORY, "out of memory");
        join->key_hashes[i] = row_content_hash(key);
    }
    const uint32_t distance = MULTI_JOIN_PREFETCH_DISTANCE;
    for (uint32_t i = 0; i < batch->count; i++) {
        if (i + 2 * distance < batch->count)
            multiset_state_prefetch(join->state, join->key_hashes[i + 2 * distance], 0,
                                    MULTISET_PREFETCH_SLOT);
        if (i + distance < batch->count)
            multiset_state_prefetch(join->state, join->key_hashes[i + distance], 0,
                                    MULTISET_PREFETCH_KEY);
        int status =
            join->spec.inputs[input].upsert
                ? multi_join_process_upsert_row(join, input, batch->rows[i], join->key_hashes[i])
                : multi_join_process_row(join, input, batch->rows[i], join->key_hashes[i]);
        if (status != JOINERY_OK)
            return status;
    }
    return JOINERY_OK;
}

static int multi_join_open(Operator *self, ExecContext *context)
{
    MultiJoinOperator *join = (MultiJoinOperator *)self;
    join->eval_context.arena = &join->eval_arena;
    join->eval_context.diag = context->diag;
    join->eval_context.failed = false;
    if (!context->state_store)
        return operator_fail(self, JOINERY_ERROR, "multi-join: no state store");
    int64_t ttl_millis[MULTISET_MAX_PARTS];
    for (uint32_t i = 0; i < join->input_count; i++)
        ttl_millis[i] = join->spec.inputs[i].ttl_millis;
    join->state = multiset_state_create_parts(context->state_store, join->input_count, ttl_millis);
    if (!join->state)
        return operator_fail_state(self, "multi-join state");
    for (uint32_t i = 0; i < join->input_count; i++)
        if (join->inputs[i].group_field_count)
            multiset_state_set_group_hash(join->state, i, multi_join_row_group_hash,
                                          &join->inputs[i]);
    return join->ttl_enabled ? operator_schedule_cleanup(self) : JOINERY_OK;
}

static void multi_join_report_state(Operator *self)
{
    MultiJoinOperator *join = (MultiJoinOperator *)self;
    if (!join->state)
        return;
    StateCounters total = multiset_state_counters(join->state); /* keys: common-key values */
    self->metrics.state_bytes = total.bytes;
    self->metrics.state_keys = total.keys;
    self->metrics.state_rows = total.entries;
    self->metrics.expired_rows = total.expired;
}

/* The recurring TTL cleanup timer (the only timer a multi-join registers). */
static int multi_join_on_timer(Operator *self, TimerDomain domain, int64_t timestamp,
                               const Row *key)
{
    (void)domain;
    (void)timestamp;
    (void)key;
    MultiJoinOperator *join = (MultiJoinOperator *)self;
    multiset_state_cleanup(join->state, operator_timer_now(self),
                           MULTI_JOIN_CLEANUP_SLOTS_PER_TIMER);
    multi_join_report_state(self);
    return operator_schedule_cleanup(self);
}

/* The snapshot: the one state (every input's rows, a part each). */
static int multi_join_snapshot(Operator *self, const Barrier *barrier, const StateWriter *writer)
{
    (void)barrier;
    MultiJoinOperator *join = (MultiJoinOperator *)self;
    return multiset_state_snapshot(join->state, writer, self->context->diag);
}

static int multi_join_restore(Operator *self, const StateReader *reader)
{
    MultiJoinOperator *join = (MultiJoinOperator *)self;
    return multiset_state_restore(join->state, reader, self->context->diag);
}

static void multi_join_close(Operator *self)
{
    MultiJoinOperator *join = (MultiJoinOperator *)self;
    multiset_state_destroy(join->state);
    free(join->key_hashes);
    for (uint32_t i = 0; join->inputs && i < join->input_count; i++) {
        row_builder_free(&join->inputs[i].prefix_builder);
        key_extractor_free(&join->inputs[i].key);
        free(join->inputs[i].group_own_fields);
        free(join->inputs[i].group_partner_fields);
        free(join->inputs[i].group_variable);
        free(join->inputs[i].saved_components);
    }
    free(join->inputs);
    free(join->components);
    free(join->output_variable_length);
    row_builder_free(&join->output_builder);
    arena_destroy(&join->expr_arena);
    arena_destroy(&join->eval_arena);
    arena_destroy(&join->upsert_arena);
    for (uint32_t i = 0; join->batches && i < join->input_count; i++)
        mini_batch_buffer_free(&join->batches[i]);
    free(join->batches);
    mini_batch_fold_free(&join->fold);
    free(join);
}

static const OperatorVtable MULTI_JOIN_VTABLE = {
    .open = multi_join_open,
    .process = multi_join_process,
    .on_watermark = NULL, /* forwards the merged watermark */
    .on_timer = multi_join_on_timer,
    .snapshot = multi_join_snapshot,
    .restore = multi_join_restore,
    .finish = NULL,
    .report_state = multi_join_report_state,
    .close = multi_join_close,
};

/* ---- mini-batch mode (MultiJoinSpec.mini_batch_size) ---- */

/* Ends the batch: each input's rows folded and run, the last input first. */
static int multi_join_flush_batch(MultiJoinOperator *join)
{
    for (uint32_t i = join->input_count; i-- > 0;) {
        MiniBatchBuffer *buffer = &join->batches[i];
        RowBatch survivors;
        if (mini_batch_fold_rows(&join->fold, buffer, &survivors) != JOINERY_OK)
            return operator_fail(&join->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
        /* the operator's batches hold at most ROW_BATCH_CAPACITY rows (the key hashes) */
        for (uint32_t start = 0; start < survivors.count; start += ROW_BATCH_CAPACITY) {
            uint32_t count = survivors.count - start;
            RowBatch part = {.rows = survivors.rows + start,
                             .count = count < ROW_BATCH_CAPACITY ? count : ROW_BATCH_CAPACITY,
                             .capacity = ROW_BATCH_CAPACITY};
            int status = multi_join_process(&join->base, i, &part);
            if (status != JOINERY_OK)
                return status;
        }
        mini_batch_buffer_clear(buffer);
    }
    join->buffered_rows = 0;
    return JOINERY_OK;
}

static int multi_join_mini_batch_process(Operator *self, uint32_t input, const RowBatch *batch)
{
    MultiJoinOperator *join = (MultiJoinOperator *)self;
    if (input >= join->input_count)
        return operator_fail(self, JOINERY_ERROR, "multi-join has no input %u", input);
    for (uint32_t i = 0; i < batch->count; i++) {
        const Row *row = batch->rows[i];
        if (mini_batch_buffer_add(&join->batches[input], row, row_content_hash(row), row) != 0)
            return operator_fail(self, JOINERY_ERROR_NO_MEMORY, "out of memory");
        if ((int64_t)++join->buffered_rows >= join->spec.mini_batch_size) {
            int status = multi_join_flush_batch(join);
            if (status != JOINERY_OK)
                return status;
        }
    }
    return JOINERY_OK;
}

/* A watermark ends the mini-batch (MiniBatchAssigner): run it, then forward the watermark. */
static int multi_join_mini_batch_on_watermark(Operator *self, int64_t watermark)
{
    int status = multi_join_flush_batch((MultiJoinOperator *)self);
    return status == JOINERY_OK ? operator_emit_watermark(self, watermark) : status;
}

static int multi_join_mini_batch_finish(Operator *self)
{
    return multi_join_flush_batch((MultiJoinOperator *)self);
}

/* The open batch runs first: its changes go out before the barrier. */
static int multi_join_mini_batch_snapshot(Operator *self, const Barrier *barrier,
                                          const StateWriter *writer)
{
    int status = multi_join_flush_batch((MultiJoinOperator *)self);
    return status == JOINERY_OK ? multi_join_snapshot(self, barrier, writer) : status;
}

static const OperatorVtable MULTI_JOIN_MINI_BATCH_VTABLE = {
    .open = multi_join_open,
    .process = multi_join_mini_batch_process,
    .on_watermark = multi_join_mini_batch_on_watermark,
    .on_timer = multi_join_on_timer,
    .snapshot = multi_join_mini_batch_snapshot,
    .restore = multi_join_restore,
    .finish = multi_join_mini_batch_finish,
    .report_state = multi_join_report_state,
    .close = multi_join_close,
};

static bool multi_join_is_operator(const Operator *op)
{
    return op && (op->vtable == &MULTI_JOIN_VTABLE || op->vtable == &MULTI_JOIN_MINI_BATCH_VTABLE);
}

uint64_t multi_join_operator_folded_rows(const Operator *op)
{
    return multi_join_is_operator(op) ? ((const MultiJoinOperator *)op)->fold.folded_rows : 0;
}

void multi_join_operator_input_state(const Operator *op, uint32_t input, uint64_t *bytes,
                                     uint64_t *keys, uint64_t *rows)
{
    const MultiJoinOperator *join = (const MultiJoinOperator *)op;
    StateCounters counters = {0, 0, 0, 0};
    if (multi_join_is_operator(op) && input < join->input_count && join->state)
        counters = multiset_state_part_counters(join->state, input);
    if (bytes)
        *bytes = counters.bytes;
    if (keys)
        *keys = counters.keys;
    if (rows)
        *rows = counters.entries;
}

/* ---- construction ---- */

/*
 * True when equal values of the two key types have equal bytes in a row
 * (keys are compared by their bytes): integer widths may differ, storage
 * classes and decimal scales may not.
 */
static bool multi_join_key_types_compatible(DataType a, DataType b)
{
    if (type_is_integer(a.id) && type_is_integer(b.id))
        return true;
    if (type_is_variable_length(a.id) && type_is_variable_length(b.id))
        return true;
    return type_equals(a, b);
}

/* True when every input reference of expr is below field_count. */
static bool multi_join_expr_refs_below(const Expr *expr, uint32_t field_count)
{
    if (!expr)
        return true;
    if (expr->kind == EXPR_INPUT_REF)
        return expr->input_index < field_count;
    if (expr->kind != EXPR_CALL)
        return true;
    for (uint32_t i = 0; i < expr->call.arg_count; i++)
        if (!multi_join_expr_refs_below(expr->call.args[i], field_count))
            return false;
    return true;
}

/* Checks the spec; JOINERY_OK or the status with diag set. */
static int multi_join_validate_spec(const MultiJoinSpec *spec, Diag *diag)
{
    if (spec->input_count < 2 || spec->input_count > OPERATOR_MAX_INPUTS || !spec->inputs ||
        !spec->join_types)
        return diag_error(diag, JOINERY_ERROR_VALIDATE, "multi-join: needs 2 to %d inputs",
                          OPERATOR_MAX_INPUTS);
    uint64_t total_fields = 0;
    bool outer_seen = false;
    for (uint32_t i = 0; i < spec->input_count; i++) {
        const MultiJoinInputSpec *input = &spec->inputs[i];
        total_fields += input->field_count;
        if (input->upsert && spec->mini_batch_size > 0)
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "multi-join: an upsert input (%u) runs row by row, not in "
                              "mini-batches",
                              i);
        if (spec->common_key_count > 0 && !input->common_key_fields)
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "multi-join: input %u has no common key fields", i);
        for (uint32_t k = 0; k < spec->common_key_count; k++) {
            uint32_t field = input->common_key_fields[k];
            if (field >= input->field_count)
                return diag_error(diag, JOINERY_ERROR_VALIDATE,
                                  "multi-join: key field %u of input %u out of range", field, i);
            DataType first = spec->inputs[0].types[spec->inputs[0].common_key_fields[k]];
            if (!multi_join_key_types_compatible(input->types[field], first))
                return diag_error(diag, JOINERY_ERROR_VALIDATE,
                                  "multi-join: key %u of input %u has another type", k, i);
        }
        if (i == 0)
            continue;
        JoinType type = spec->join_types[i];
        if (!join_type_emits_right(type))
            return diag_error(diag, JOINERY_ERROR_UNSUPPORTED,
                              "multi-join: join type %s (step %u) is not supported yet",
                              join_type_name(type), i);
        const Expr *condition = spec->conditions ? spec->conditions[i] : NULL;
        if (!multi_join_expr_refs_below(condition, (uint32_t)total_fields))
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "multi-join: the condition of step %u reads a field of a later "
                              "input",
                              i);
        if (outer_seen && expr_calls(condition, FUNCTION_IS_NOT_DISTINCT_FROM))
            return diag_error(diag, JOINERY_ERROR_UNSUPPORTED,
                              "multi-join: IS NOT DISTINCT FROM in the condition of step %u "
                              "after an outer join step",
                              i);
        if (type != JOIN_TYPE_INNER)
            outer_seen = true;
    }
    if (total_fields > UINT16_MAX)
        return diag_error(diag, JOINERY_ERROR_VALIDATE, "multi-join: too many fields");
    return JOINERY_OK;
}

/* True when `field` is one of the input's common key fields. */
static bool multi_join_is_common_key(const MultiJoinSpec *spec, uint32_t input, uint32_t field)
{
    for (uint32_t k = 0; k < spec->common_key_count; k++)
        if (spec->inputs[input].common_key_fields[k] == field)
            return true;
    return false;
}

/*
 * Collects the conjuncts partner.a = this.b of a PAIR condition (plain
 * field references of one type; not the common key) into the input's
 * group fields. Returns false when memory is exhausted.
 */
static bool multi_join_collect_groups(MultiJoinOperator *join, uint32_t level, const Expr *expr)
{
    MultiJoinInput *input = &join->inputs[level];
    if (expr->kind != EXPR_CALL)
        return true;
    if (expr->call.function == FUNCTION_AND) {
        for (uint32_t i = 0; i < expr->call.arg_count; i++)
            if (!multi_join_collect_groups(join, level, expr->call.args[i]))
                return false;
        return true;
    }
    if (expr->call.function != FUNCTION_EQUAL || expr->call.arg_count != 2)
        return true;
    const Expr *left = expr->call.args[0], *right = expr->call.args[1];
    if (left->kind != EXPR_INPUT_REF || right->kind != EXPR_INPUT_REF)
        return true;
    uint32_t partner_fields = join->inputs[input->partner].field_count;
    uint32_t a = left->input_index, b = right->input_index;
    if (a >= partner_fields) {
        uint32_t swap = a;
        a = b;
        b = swap;
    }
    if (a >= partner_fields || b < partner_fields)
        return true; /* not partner = this */
    b -= partner_fields;
    const DataType *own_type = &join->spec.inputs[level].types[b];
    const DataType *partner_type = &join->spec.inputs[input->partner].types[a];
    if (own_type->id != partner_type->id || own_type->precision != partner_type->precision ||
        own_type->scale != partner_type->scale)
        return true; /* values of different types may be equal with different encodings */
    if (multi_join_is_common_key(&join->spec, level, b) &&
        multi_join_is_common_key(&join->spec, input->partner, a))
        return true; /* the common key: equal on every path already */
    uint32_t count = input->group_field_count;
    uint32_t *own = realloc(input->group_own_fields, (count + 1) * sizeof *own);
    if (own)
        input->group_own_fields = own;
    uint32_t *partner = realloc(input->group_partner_fields, (count + 1) * sizeof *partner);
    if (partner)
        input->group_partner_fields = partner;
    bool *variable = realloc(input->group_variable, (count + 1) * sizeof *variable);
    if (variable)
        input->group_variable = variable;
    if (!own || !partner || !variable)
        return false;
    own[count] = b;
    partner[count] = a;
    variable[count] = type_is_variable_length(own_type->id);
    input->group_field_count = count + 1;
    return true;
}

/*
 * True when `expr` equates the partner's and this input's common key field
 * (plain references, in the PAIR numbering): true on every path of a key,
 * since the walk only combines rows of one common-key value. `=` is so only
 * while NULL keys are never walked (no null-safe condition in the join).
 */
static bool multi_join_is_common_key_equality(const MultiJoinOperator *join, uint32_t level,
                                              const Expr *expr)
{
    const MultiJoinInput *input = &join->inputs[level];
    if (expr->kind != EXPR_CALL || expr->call.arg_count != 2)
        return false;
    bool null_safe = expr->call.function == FUNCTION_IS_NOT_DISTINCT_FROM;
    if (!null_safe && (expr->call.function != FUNCTION_EQUAL || join->null_safe))
        return false;
    const Expr *left = expr->call.args[0], *right = expr->call.args[1];
    if (left->kind != EXPR_INPUT_REF || right->kind != EXPR_INPUT_REF)
        return false;
    uint32_t partner_fields = join->inputs[input->partner].field_count;
    uint32_t a = left->input_index, b = right->input_index;
    if (a >= partner_fields) {
        uint32_t swap = a;
        a = b;
        b = swap;
    }
    if (a >= partner_fields || b < partner_fields)
        return false;
    b -= partner_fields;
    for (uint32_t k = 0; k < join->spec.common_key_count; k++)
        if (join->spec.inputs[input->partner].common_key_fields[k] == a &&
            join->spec.inputs[level].common_key_fields[k] == b)
            return true;
    return false;
}

/* Appends the conjuncts of `expr` that are not common-key equalities to `kept`. */
static void multi_join_keep_conjuncts(const MultiJoinOperator *join, uint32_t level, Expr *expr,
                                      Expr **kept, uint32_t *count)
{
    if (expr->kind == EXPR_CALL && expr->call.function == FUNCTION_AND) {
        for (uint32_t i = 0; i < expr->call.arg_count; i++)
            multi_join_keep_conjuncts(join, level, expr->call.args[i], kept, count);
        return;
    }
    if (!multi_join_is_common_key_equality(join, level, expr))
        kept[(*count)++] = expr;
}

/* Counts the conjuncts of `expr` (the leaves of its AND tree). */
static uint32_t multi_join_count_conjuncts(const Expr *expr)
{
    if (expr->kind != EXPR_CALL || expr->call.function != FUNCTION_AND)
        return 1;
    uint32_t count = 0;
    for (uint32_t i = 0; i < expr->call.arg_count; i++)
        count += multi_join_count_conjuncts(expr->call.args[i]);
    return count;
}

/*
 * Drops the PAIR condition's common-key equalities, which hold on every
 * path (the binary join does not check its key either); a condition left
 * empty is no condition. Returns false when memory is exhausted.
 */
static bool multi_join_drop_key_equalities(MultiJoinOperator *join, uint32_t level)
{
    MultiJoinInput *input = &join->inputs[level];
    Expr *condition = (Expr *)input->condition;
    uint32_t total = multi_join_count_conjuncts(condition);
    Expr **kept = arena_alloc(&join->expr_arena, total * sizeof *kept);
    if (!kept)
        return false;
    uint32_t count = 0;
    multi_join_keep_conjuncts(join, level, condition, kept, &count);
    if (count == total)
        return true;
    input->partner_required = true;
    if (count == 0) {
        input->condition_mode = MULTI_JOIN_CONDITION_NONE;
        input->condition = NULL;
        return true;
    }
    input->condition = expr_make_and(&join->expr_arena, kept, count);
    return input->condition != NULL;
}

/* Groups the rows of PAIR step `level` by its own join key when it has one. */
static bool multi_join_plan_groups(MultiJoinOperator *join, uint32_t level)
{
    return multi_join_collect_groups(join, level, join->inputs[level].condition);
}

/*
 * Chooses how step `level`'s condition is evaluated: a condition reading
 * this input and at most one earlier input is remapped to partner ++ this
 * input (no prefix row is built per path); others read the built prefix.
 * Needs the inputs' offsets up to `level`. False when memory is exhausted.
 */
static bool multi_join_plan_condition(MultiJoinOperator *join, uint32_t level,
                                      const Expr *condition)
{
    MultiJoinInput *input = &join->inputs[level];
    if (!condition) {
        input->condition_mode = MULTI_JOIN_CONDITION_NONE;
        return true;
    }
    input->condition_mode = MULTI_JOIN_CONDITION_GENERAL;
    input->condition = condition;
    uint32_t field_total = input->prefix_offset + input->field_count;
    uint32_t words = (field_total + 63) / 64;
    uint64_t *used = calloc(words ? words : 1, sizeof(uint64_t));
    int32_t *mapping = calloc(field_total ? field_total : 1, sizeof(int32_t));
    if (!used || !mapping) {
        free(used);
        free(mapping);
        return false;
    }
    expr_collect_inputs(condition, used);
    uint32_t partner = 0;
    uint32_t partners_seen = 0;
    for (uint32_t i = 0; i < level; i++) {
        const MultiJoinInput *earlier = &join->inputs[i];
        bool reads = false;
        for (uint32_t f = 0; f < earlier->field_count && !reads; f++) {
            uint32_t field = earlier->prefix_offset + f;
            reads = (used[field / 64] >> (field % 64)) & 1u;
        }
        if (reads) {
            partner = i;
            partners_seen++;
        }
    }
    bool ok = true;
    uint32_t partner_fields = join->inputs[partner].field_count;
    if (partners_seen <= 1 && partner_fields > 0) {
        for (uint32_t f = 0; f < field_total; f++)
            mapping[f] = -1;
        uint32_t partner_offset = join->inputs[partner].prefix_offset;
        for (uint32_t f = 0; f < partner_fields; f++)
            mapping[partner_offset + f] = (int32_t)f;
        for (uint32_t f = 0; f < input->field_count; f++)
            mapping[input->prefix_offset + f] = (int32_t)(partner_fields + f);
        Expr *remapped = expr_remap_inputs(&join->expr_arena, condition, mapping);
        ok = remapped != NULL;
        if (ok) {
            input->condition_mode = MULTI_JOIN_CONDITION_PAIR;
            input->condition = remapped;
            input->partner = partner;
            ok = multi_join_plan_groups(join, level) && multi_join_drop_key_equalities(join, level);
        }
    }
    free(used);
    free(mapping);
    return ok;
}

Operator *multi_join_operator_create(const MultiJoinSpec *spec, Diag *diag)
{
    if (multi_join_validate_spec(spec, diag) != JOINERY_OK)
        return NULL;
    MultiJoinOperator *join = calloc(1, sizeof *join);
    if (!join) {
        diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        return NULL;
    }
    join->spec = *spec;
    join->input_count = spec->input_count;
    row_builder_init(&join->output_builder);
    arena_init(&join->expr_arena, 4096);
    arena_init(&join->eval_arena, 4096);
    arena_init(&join->upsert_arena, 1024);
    join->accumulate_kind = ROW_KIND_INSERT;
    join->retract_kind = ROW_KIND_DELETE;
    join->all_inner = true;

    size_t length = (size_t)snprintf(join->name, sizeof join->name, "MultiJoin(joinTypes=[");
    for (uint32_t i = 1; i < spec->input_count && length < sizeof join->name; i++)
        length +=
            (size_t)snprintf(join->name + length, sizeof join->name - length, "%s%s",
                             i > 1 ? ", " : "", join_type_multi_join_name(spec->join_types[i]));
    if (length < sizeof join->name)
        snprintf(join->name + length, sizeof join->name - length, "])");
    operator_init(&join->base,
                  spec->mini_batch_size > 0 ? &MULTI_JOIN_MINI_BATCH_VTABLE : &MULTI_JOIN_VTABLE,
                  join->name, spec->input_count, join);

    join->inputs = calloc(spec->input_count, sizeof *join->inputs);
    join->components = calloc(spec->input_count, sizeof *join->components);
    for (uint32_t i = 0; join->inputs && i < spec->input_count; i++)
        join->output_field_count += spec->inputs[i].field_count;
    join->output_variable_length =
        calloc(join->output_field_count ? join->output_field_count : 1, sizeof(bool));
    bool ok = join->inputs && join->components && join->output_variable_length;
    if (ok && spec->mini_batch_size > 0) {
        join->batches = calloc(spec->input_count, sizeof *join->batches);
        for (uint32_t i = 0; join->batches && i < spec->input_count; i++)
            mini_batch_buffer_init(&join->batches[i]);
        ok = join->batches != NULL;
    }
    /* known before the conditions are planned: it decides which key equalities are implied */
    for (uint32_t i = 1; spec->conditions && i < spec->input_count; i++)
        if (expr_calls(spec->conditions[i], FUNCTION_IS_NOT_DISTINCT_FROM))
            join->null_safe = true;
    uint32_t offset = 0;
    for (uint32_t i = 0; ok && i < spec->input_count; i++) {
        const MultiJoinInputSpec *input_spec = &spec->inputs[i];
        MultiJoinInput *input = &join->inputs[i];
        row_builder_init(&input->prefix_builder);
        input->saved_components = calloc(i ? i : 1, sizeof(const Row *));
        ok = input->saved_components != NULL &&
             key_extractor_init(&input->key, spec->common_key_count, input_spec->common_key_fields,
                                input_spec->types, NULL);
        input->field_count = input_spec->field_count;
        input->prefix_offset = offset;
        for (uint32_t f = 0; f < input_spec->field_count; f++)
            join->output_variable_length[offset + f] =
                type_is_variable_length(input_spec->types[f].id);
        offset += input_spec->field_count;
        if (input_spec->ttl_millis > 0)
            join->ttl_enabled = join->base.uses_timers = true;
        if (i == 0)
            continue;
        JoinType type = spec->join_types[i];
        const Expr *condition = spec->conditions ? spec->conditions[i] : NULL;
        ok = multi_join_plan_condition(join, i, condition);
        input->preserves_left = join_type_preserves_left(type);
        input->preserves_right = join_type_preserves_right(type);
        if (type != JOIN_TYPE_INNER)
            join->all_inner = false;
    }
    if (!ok) {
        operator_close(&join->base);
        diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        return NULL;
    }
    /* a NULL-key row reaches the output when every later step preserves the left side */
    bool later_preserve_left = true;
    for (uint32_t i = spec->input_count; i-- > 0;) {
        MultiJoinInput *input = &join->inputs[i];
        input->null_key_reaches_output = later_preserve_left && (i == 0 || input->preserves_right);
        if (i > 0 && !input->preserves_left)
            later_preserve_left = false;
    }
    return &join->base;
}
