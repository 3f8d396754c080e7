/*
 * op_group_aggregate.c - group aggregation with retraction (see
 * op_group_aggregate.h), after Flink's GroupAggFunction; with
 * spec.merges_partials the GlobalGroupAggregate of a two-phase aggregation
 * (Flink's MiniBatchGlobalGroupAggFunction), which merges the partial
 * accumulators of LocalGroupAggregates per batch instead of applying rows.
 *
 * State:
 * - accumulators: ValueState, group key row -> accumulator row
 *     [row_count BIGINT, then per call: value, count BIGINT]
 *   where `value` is the running SUM (BIGINT for integers and DECIMAL, kept
 *   at the argument's scale; DOUBLE for FLOAT/DOUBLE), the current MIN/MAX
 *   (argument type), the collection of COLLECT / ARRAY_AGG
 *   (collection_aggregate.h), a user-defined aggregate's accumulator bytes
 *   (VARBINARY of its accumulator_size: copied into an aligned buffer for
 *   init / accumulate / retract / get_value, engine/udf/udf.h; `count` its
 *   rows), unused (NULL) for COUNT; `count` is the number
 *   of non-NULL values aggregated (distinct values for DISTINCT calls; every
 *   element for ARRAY_AGG).
 * - value counts: MultisetState, key [call index BIGINT, group key fields...]
 *   -> entries (value row of one field, count), for DISTINCT calls and for
 *   MIN/MAX over an updating input (to find the next extreme when the
 *   current one is retracted).
 * - value lists: SortedState, the same key -> the live values in arrival
 *   order, for LISTAGG, FIRST_VALUE and LAST_VALUE over an updating input
 *   (exec/aggregate/value_lists.h, Flink's retracting forms); their
 *   accumulator `count` is then the group's arrival counter for the call.
 *
 * Invariants: a group is in state iff its row_count > 0; its value-count
 * keys hold exactly the non-NULL values of the group's live rows (with
 * multiplicity) for each call that keeps them.
 *
 * Per row: build the group key (reusable RowBuilder), one lookup, decode
 * the accumulator into working Values (strings point into the stored
 * accumulator, the input row or a copy of the value-count row a MIN/MAX
 * rescan chose, all alive until the new accumulator is encoded), apply,
 * encode, emit the change.
 *
 * State (created in open from the task's store): a ValueState of
 * accumulators by group key, and a MultisetState of value counts by (call,
 * group key) for DISTINCT and for MIN/MAX over updates.
 */
#include "engine/exec/ops/op_group_aggregate.h"

#include <stdlib.h>
#include <string.h>

#include "engine/base/value.h"
#include "engine/exec/aggregate/collection_aggregate.h"
#include "engine/exec/aggregate/value_lists.h"
#include "engine/exec/key_extractor.h"
#include "engine/exec/mini_batch_buffer.h"
#include "engine/state/state.h"
#include "engine/exec/aggregate/user_defined_aggregate.h"
#include "engine/udf/udf.h"

enum { AGGREGATE_CLEANUP_SLOTS_PER_TIMER = 4096 };

typedef struct AggregateSlot {
    AggregateCall call;
    DataType value_type; /* type of the accumulator's value field */
    bool keeps_value_counts;
    bool keeps_value_list; /* LISTAGG / FIRST_VALUE / LAST_VALUE over an updating input */
    ValueCopy kept;        /* FIRST_VALUE / LAST_VALUE: a copy of the value a list gave */
    uint64_t *extreme_row; /* MIN/MAX rescans: a copy of the chosen value-count row */
    uint32_t extreme_capacity;
    StrBuf text;          /* LISTAGG: its text while it grows (the working value points into it) */
    StrBuf collection[2]; /* COLLECT, ARRAY_AGG: the working collection and a spare */
    /* a user-defined aggregate: its accumulator's working and scratch bytes (the working
       value points into them; exec/aggregate/user_defined_aggregate.h) */
    UserDefinedAggregate user_defined;
} AggregateSlot;

typedef struct GroupAggregateOperator {
    Operator base; /* first: the Operator * is the GroupAggregateOperator * */
    GroupAggregateSpec spec;
    AggregateSlot *slots;
    bool *key_variable_length; /* per group key */
    bool has_value_counts;
    bool has_value_lists;
    ValueState *accumulators;
    MultisetState *value_counts;
    ValueLists value_lists;
    /* working accumulator */
    int64_t row_count;
    Value *values;
    int64_t *counts;
    MiniBatchBuffer batch; /* mini-batch mode: the rows of the open batch */
    Arena udf_arena;       /* user-defined aggregates' strings, reset per group */
    uint64_t state_reads;  /* accumulator lookups (one per group per row, or per batch) */
    uint64_t state_writes; /* accumulator writes and removals */
    /* reusable builders */
    KeyExtractor group_key; /* the group key of input rows */
    RowBuilder count_key_builder;
    RowBuilder value_builder;
    RowBuilder accumulator_builder;
    RowBuilder previous_builder;
    RowBuilder result_builder;
} GroupAggregateOperator;

static inline uint32_t accumulator_value_field(uint32_t call)
{
    return 1 + 2 * call;
}

static inline uint32_t accumulator_count_field(uint32_t call)
{
    return 2 + 2 * call;
}

/* ---- value counts ---- */

/* Key of call `call`'s value counts for the group `group_key`. */
static const Row *aggregate_count_key(GroupAggregateOperator *agg, uint32_t call,
                                      const Row *group_key)
{
    RowBuilder *builder = &agg->count_key_builder;
    uint32_t key_count = agg->spec.group_key_count;
    row_builder_begin(builder, key_count + 1, ROW_KIND_INSERT);
    row_builder_set_int64(builder, 0, (int64_t)call);
    for (uint32_t k = 0; k < key_count; k++)
        row_builder_copy_field(builder, k + 1, group_key, k, agg->key_variable_length[k]);
    return row_builder_finish(builder);
}

static int aggregate_drop_value_counts(GroupAggregateOperator *agg, const Row *group_key,
                                       int64_t now)
{
    for (uint32_t i = 0; i < agg->spec.call_count; i++) {
        if (agg->slots[i].keeps_value_list) {
            const Row *key = aggregate_count_key(agg, i, group_key);
            if (!key || value_lists_drop(&agg->value_lists, key) != JOINERY_OK)
                return operator_fail_state(&agg->base, "aggregate state");
        }
        if (!agg->slots[i].keeps_value_counts)
            continue;
        const Row *key = aggregate_count_key(agg, i, group_key);
        if (!key)
            continue;
        MultisetKey *found =
            multiset_state_find(agg->value_counts, key, row_content_hash(key), now);
        if ((found && multiset_state_remove_key(agg->value_counts, found) != JOINERY_OK) ||
            state_store_failed(agg->value_counts->store))
            return operator_fail_state(&agg->base, "aggregate state");
    }
    return JOINERY_OK;
}

/*
 * Adds (delta +1) or removes (-1) one occurrence of `value` from call i's
 * value counts. *remaining is the value's count afterwards; -1 when a
 * removal found no such value (an inconsistent input: ignored).
 */
static int aggregate_count_value(GroupAggregateOperator *agg, uint32_t call, const Row *group_key,
                                 Value value, int delta, int64_t now, int64_t *remaining)
{
    const Row *key = aggregate_count_key(agg, call, group_key);
    RowBuilder *value_builder = &agg->value_builder;
    row_builder_begin(value_builder, 1, ROW_KIND_INSERT);
    value_to_builder(value_builder, 0, agg->slots[call].call.argument_type, value);
    const Row *value_row = row_builder_finish(value_builder);
    if (!key || !value_row)
        return operator_fail(&agg->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
    uint64_t key_hash = row_content_hash(key);
    uint64_t value_hash = row_content_hash(value_row);
    MultisetState *counts = agg->value_counts;
    int status = JOINERY_OK;
    if (delta > 0) {
        MultisetKey *found = multiset_state_insert_key(counts, key, key_hash, now);
        if (!found)
            return operator_fail_state(&agg->base, "aggregate state");
        const MultisetEntry *entry = multiset_key_find_row(counts, found, value_row, value_hash);
        if (entry) {
            if (!multiset_count_can_add(entry->count, 1))
                return operator_fail(&agg->base, JOINERY_ERROR_RUNTIME,
                                     "more than %d copies of one value in a group",
                                     MULTISET_COUNT_MAX);
            *remaining = entry->count + 1;
            status = multiset_entry_update(counts, found, entry, entry->count + 1, 0, now);
        } else if (!state_store_failed(counts->store)) {
            *remaining = 1;
            if (!multiset_key_add_row(counts, found, value_row, value_hash, 1, 0, now)) {
                if (found->entry_count == 0)
                    (void)multiset_state_remove_key(counts, found);
                status = JOINERY_ERROR_NO_MEMORY;
            }
        } else {
            status = JOINERY_ERROR_NO_MEMORY;
        }
        return status == JOINERY_OK ? JOINERY_OK
                                    : operator_fail_state(&agg->base, "aggregate state");
    }
    MultisetKey *found = multiset_state_find(counts, key, key_hash, now);
    const MultisetEntry *entry =
        found ? multiset_key_find_row(counts, found, value_row, value_hash) : NULL;
    if (!entry) {
        if (state_store_failed(counts->store))
            return operator_fail_state(&agg->base, "aggregate state");
        *remaining = -1;
        return JOINERY_OK;
    }
    *remaining = entry->count - 1;
    if (entry->count == 1) {
        status = multiset_key_remove_entry(counts, found, entry);
        if (status == JOINERY_OK && found->entry_count == 0)
            status = multiset_state_remove_key(counts, found);
    } else {
        status = multiset_entry_update(counts, found, entry, entry->count - 1, 0, now);
    }
    return status == JOINERY_OK ? JOINERY_OK : operator_fail_state(&agg->base, "aggregate state");
}

/*
 * Sets *best to the smallest (MIN) or largest (MAX) value left in call i's
 * value counts, or NULL. JOINERY_OK or an error (reported).
 */
static int aggregate_rescan_extreme(GroupAggregateOperator *agg, uint32_t call,
                                    const Row *group_key, int64_t now, Value *result)
{
    const AggregateSlot *slot = &agg->slots[call];
    Value best = value_null();
    *result = best;
    const Row *key = aggregate_count_key(agg, call, group_key);
    if (!key)
        return operator_fail(&agg->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
    MultisetKey *found = multiset_state_find(agg->value_counts, key, row_content_hash(key), now);
    if (!found)
        return state_store_failed(agg->value_counts->store)
                   ? operator_fail_state(&agg->base, "aggregate state")
                   : JOINERY_OK;
    int direction = slot->call.kind == AGGREGATE_MIN ? -1 : 1;
    /* the best row is copied: a backend's scan may reuse the memory of the rows it returned */
    AggregateSlot *chosen = &agg->slots[call];
    MultisetScan scan;
    multiset_scan_begin(agg->value_counts, found, &scan);
    for (const MultisetEntry *entry; (entry = multiset_scan_next(&scan)) != NULL;) {
        Value candidate = value_from_row(entry->row, 0, slot->call.argument_type);
        if (candidate.is_null)
            continue;
        if (best.is_null ||
            value_compare(slot->call.argument_type, candidate, best) * direction > 0) {
            uint32_t size = row_size(entry->row);
            if (size > chosen->extreme_capacity) {
                uint64_t *grown = realloc(chosen->extreme_row, size);
                if (!grown) {
                    multiset_scan_end(&scan);
                    return operator_fail(&agg->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
                }
                chosen->extreme_row = grown;
                chosen->extreme_capacity = size;
            }
            memcpy(chosen->extreme_row, entry->row, size);
            best = value_from_row((const Row *)chosen->extreme_row, 0, slot->call.argument_type);
        }
    }
    multiset_scan_end(&scan);
    if (state_store_failed(agg->value_counts->store))
        return operator_fail_state(&agg->base, "aggregate state");
    *result = best;
    return JOINERY_OK;
}

/* ---- applying one row ---- */

/*
 * LISTAGG / FIRST_VALUE / LAST_VALUE over an updating input (Flink's
 * retracting forms): the non-NULL `value` is appended to call i's value list
 * (order: the call's arrival counter, kept in its accumulator count) or its
 * earliest equal entry removed; the result follows the list.
 */
static int aggregate_apply_listed(GroupAggregateOperator *agg, uint32_t i, const Row *input,
                                  const Row *group_key, bool accumulate, Value value)
{
    AggregateSlot *slot = &agg->slots[i];
    const AggregateCall *call = &slot->call;
    const Row *key = aggregate_count_key(agg, i, group_key);
    if (!key)
        return operator_fail(&agg->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
    Value *current = &agg->values[i];
    Value separator = call->has_separator
                          ? value_from_row(input, call->separator, call->argument_type)
                          : (Value){.s = {",", 1}};
    int status;
    if (accumulate) {
        status =
            value_lists_add(&agg->value_lists, key, agg->counts[i] + 1, call->argument_type, value);
        if (status == JOINERY_OK) {
            agg->counts[i]++;
            if (call->kind == AGGREGATE_LAST_VALUE ||
                (call->kind == AGGREGATE_FIRST_VALUE && current->is_null)) {
                *current = value;
            } else if (call->kind == AGGREGATE_LISTAGG) {
                int64_t joined = current->is_null ? 0 : 1;
                status =
                    aggregate_function_add_text(value, separator, current, &joined, &slot->text);
            }
        }
    } else {
        bool found;
        status = value_lists_remove(&agg->value_lists, key, call->argument_type, value, &found);
        if (status == JOINERY_OK && found) {
            if (call->kind == AGGREGATE_LISTAGG)
                status = value_lists_join(&agg->value_lists, key, call->argument_type, separator,
                                          &slot->text, current);
            else if (current->is_null || value_compare(call->argument_type, value, *current) == 0)
                status = value_lists_end(&agg->value_lists, key, call->argument_type,
                                         call->kind == AGGREGATE_FIRST_VALUE, &slot->kept, current);
        }
    }
    if (status == JOINERY_ERROR_NO_MEMORY)
        return operator_fail(&agg->base, status, "out of memory");
    return status == JOINERY_OK ? JOINERY_OK : operator_fail_state(&agg->base, "aggregate state");
}

static int aggregate_overflow(GroupAggregateOperator *agg)
{
    return operator_fail(&agg->base, JOINERY_ERROR_RUNTIME, "%s",
                         aggregate_function_overflow_message());
}

/* A user-defined aggregate's udf error (diag `local`) as the job's. */
static int aggregate_udf_failed(GroupAggregateOperator *agg, int status, const Diag *local)
{
    if (local->status == JOINERY_OK)
        return operator_fail(&agg->base, status, "out of memory");
    return operator_fail(&agg->base, local->status, "%s", local->message);
}

/* A user-defined aggregate call i folds the row in (exec/aggregate/user_defined_aggregate.h). */
static int aggregate_apply_user_defined(GroupAggregateOperator *agg, uint32_t i, const Row *input,
                                        bool accumulate)
{
    Diag local;
    diag_clear(&local);
    int status =
        user_defined_aggregate_apply(&agg->slots[i].user_defined, input, accumulate,
                                     &agg->values[i], &agg->counts[i], &agg->udf_arena, &local);
    return status == JOINERY_OK ? JOINERY_OK : aggregate_udf_failed(agg, status, &local);
}

static int aggregate_apply_call(GroupAggregateOperator *agg, uint32_t i, const Row *input,
                                const Row *group_key, bool accumulate, int64_t now)
{
    const AggregateSlot *slot = &agg->slots[i];
    const AggregateCall *call = &slot->call;
    if (call->kind == AGGREGATE_COUNT_STAR || aggregate_call_skips_row(call, input))
        return JOINERY_OK; /* COUNT(*): the result is row_count */
    if (call->kind == AGGREGATE_USER_DEFINED && !call->distinct)
        return aggregate_apply_user_defined(agg, i, input, accumulate);
    Value value = value_from_row(input, call->argument, call->argument_type);
    if (value.is_null && !collection_aggregate_takes_nulls(call))
        return JOINERY_OK;

    int64_t remaining = 0;
    if (slot->keeps_value_counts) {
        int status =
            aggregate_count_value(agg, i, group_key, value, accumulate ? 1 : -1, now, &remaining);
        if (status != JOINERY_OK)
            return status;
        if (remaining < 0)
            return JOINERY_OK; /* retraction of a value never counted */
        if (call->distinct && (accumulate ? remaining > 1 : remaining > 0))
            return JOINERY_OK; /* the set of distinct values did not change */
    }

    if (call->kind == AGGREGATE_USER_DEFINED) /* DISTINCT: a value entered or left the set */
        return aggregate_apply_user_defined(agg, i, input, accumulate);
    if (slot->keeps_value_list)
        return aggregate_apply_listed(agg, i, input, group_key, accumulate, value);
    Value *current = &agg->values[i];
    int64_t *count = &agg->counts[i];
    if (collection_aggregate_is(call->kind)) {
        AggregateSlot *held = &agg->slots[i];
        return collection_aggregate_apply(call, value, accumulate, current, count,
                                          &held->collection[0], &held->collection[1]) == JOINERY_OK
                   ? JOINERY_OK
                   : operator_fail(&agg->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
    }
    if (call->kind == AGGREGATE_LISTAGG && accumulate) {
        Value separator = call->has_separator
                              ? value_from_row(input, call->separator, call->argument_type)
                              : (Value){.s = {",", 1}};
        AggregateSlot *text_slot = &agg->slots[i];
        return aggregate_function_add_text(value, separator, current, count, &text_slot->text) ==
                       JOINERY_OK
                   ? JOINERY_OK
                   : operator_fail(&agg->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
    }
    int status = accumulate
                     ? aggregate_function_add(call, slot->value_type, value, current, count)
                     : aggregate_function_retract(call, slot->value_type, value, current, count);
    if (status != JOINERY_OK)
        return aggregate_overflow(agg);
    /* the extreme itself was retracted and other values remain: find the next one */
    if (!accumulate && (call->kind == AGGREGATE_MIN || call->kind == AGGREGATE_MAX) && *count > 0 &&
        slot->keeps_value_counts && remaining == 0 && !current->is_null &&
        value_compare(call->argument_type, value, *current) == 0)
        return aggregate_rescan_extreme(agg, i, group_key, now, current);
    return JOINERY_OK;
}

/* ---- encoding ---- */

static void aggregate_decode(GroupAggregateOperator *agg, const Row *accumulator)
{
    agg->row_count = row_get_int64(accumulator, 0);
    for (uint32_t i = 0; i < agg->spec.call_count; i++) {
        agg->values[i] =
            value_from_row(accumulator, accumulator_value_field(i), agg->slots[i].value_type);
        agg->counts[i] = row_get_int64(accumulator, accumulator_count_field(i));
    }
}

static void aggregate_reset(GroupAggregateOperator *agg)
{
    agg->row_count = 0;
    for (uint32_t i = 0; i < agg->spec.call_count; i++) {
        agg->values[i] = value_null();
        agg->counts[i] = 0;
    }
}

static const Row *aggregate_encode(GroupAggregateOperator *agg)
{
    RowBuilder *builder = &agg->accumulator_builder;
    row_builder_begin(builder, 1 + 2 * agg->spec.call_count, ROW_KIND_INSERT);
    row_builder_set_int64(builder, 0, agg->row_count);
    for (uint32_t i = 0; i < agg->spec.call_count; i++) {
        value_to_builder(builder, accumulator_value_field(i), agg->slots[i].value_type,
                         agg->values[i]);
        row_builder_set_int64(builder, accumulator_count_field(i), agg->counts[i]);
    }
    return row_builder_finish(builder);
}

/* The result value of call i from an accumulator row (aggregate_function_result). */
static int aggregate_result(GroupAggregateOperator *agg, uint32_t i, const Row *accumulator,
                            Value *result)
{
    const AggregateSlot *slot = &agg->slots[i];
    Value value = value_from_row(accumulator, accumulator_value_field(i), slot->value_type);
    if (slot->call.kind == AGGREGATE_USER_DEFINED) {
        Diag local;
        diag_clear(&local);
        AggregateSlot *held = &agg->slots[i];
        int status = user_defined_aggregate_result(&held->user_defined, value, &agg->udf_arena,
                                                   result, &local);
        return status == JOINERY_OK ? JOINERY_OK : aggregate_udf_failed(agg, status, &local);
    }
    int status = aggregate_function_result(
        &slot->call, slot->value_type, row_get_int64(accumulator, 0), value,
        row_get_int64(accumulator, accumulator_count_field(i)), result);
    return status == JOINERY_OK ? JOINERY_OK : aggregate_overflow(agg);
}

/* Builds group key ++ results from an accumulator row into `builder`. */
static int aggregate_build_output(GroupAggregateOperator *agg, RowBuilder *builder,
                                  const Row *group_key, const Row *accumulator, const Row **out)
{
    uint32_t key_count = agg->spec.group_key_count;
    row_builder_begin(builder, key_count + agg->spec.call_count, ROW_KIND_INSERT);
    for (uint32_t k = 0; k < key_count; k++)
        row_builder_copy_field(builder, k, group_key, k, agg->key_variable_length[k]);
    for (uint32_t i = 0; i < agg->spec.call_count; i++) {
        Value value;
        int status = aggregate_result(agg, i, accumulator, &value);
        if (status != JOINERY_OK)
            return status;
        value_to_builder(builder, key_count + i, agg->slots[i].call.result_type, value);
    }
    *out = row_builder_finish(builder);
    if (!*out)
        return operator_fail(&agg->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
    return JOINERY_OK;
}

/*
 * One group's change, row by row or over a mini-batch: aggregate_group_begin
 * looks the group up once and decodes it into the working accumulator,
 * aggregate_group_apply folds rows into it in order with the per-row
 * semantics (a retraction for an absent group is skipped; the group is
 * absent again once its row count drops to 0), aggregate_group_end writes
 * the state once and emits one change: +I, -U/+U (nothing when unchanged
 * and no TTL), -D, or nothing for a group that came and went.
 */
typedef struct AggregateGroup {
    const Row *key;
    uint64_t hash;
    const ValueEntry *entry; /* the group's state entry when the batch began; NULL: none */
    const Row *previous;     /* its result then (previous_builder); NULL: none */
    bool present;            /* the working accumulator holds a live group */
} AggregateGroup;

static int aggregate_group_begin(GroupAggregateOperator *agg, AggregateGroup *group, const Row *key,
                                 uint64_t hash, int64_t now)
{
    *group = (AggregateGroup){.key = key, .hash = hash};
    arena_reset(&agg->udf_arena); /* the previous group's result strings were copied */
    agg->state_reads++;
    group->entry = value_state_find(agg->accumulators, key, hash, now);
    if (!group->entry && state_store_failed(agg->accumulators->store))
        return operator_fail_state(&agg->base, "aggregate state");
    aggregate_reset(agg);
    if (!group->entry)
        return JOINERY_OK;
    int status = aggregate_build_output(agg, &agg->previous_builder, key, group->entry->value,
                                        &group->previous);
    if (status != JOINERY_OK)
        return status;
    aggregate_decode(agg, group->entry->value);
    group->present = true;
    return JOINERY_OK;
}

static int aggregate_group_apply(GroupAggregateOperator *agg, AggregateGroup *group,
                                 const Row *input, int64_t now)
{
    bool accumulate = row_kind_is_accumulate(row_kind(input));
    int status;
    if (!group->present) {
        if (!accumulate) {
            agg->base.metrics.skipped_rows++;
            return JOINERY_OK;
        }
        aggregate_reset(agg);
        /* value counts can only be left over when the group's accumulator expired */
        if ((agg->has_value_counts || agg->has_value_lists) && agg->spec.ttl_millis > 0 &&
            !group->entry) {
            status = aggregate_drop_value_counts(agg, group->key, now);
            if (status != JOINERY_OK)
                return status;
        }
        group->present = true;
    }
    agg->row_count += accumulate ? 1 : -1;
    for (uint32_t i = 0; i < agg->spec.call_count; i++) {
        status = aggregate_apply_call(agg, i, input, group->key, accumulate, now);
        if (status != JOINERY_OK)
            return status;
    }
    if (agg->row_count <= 0) {
        /* the last row of the group was retracted */
        group->present = false;
        if (agg->has_value_counts || agg->has_value_lists) {
            status = aggregate_drop_value_counts(agg, group->key, now);
            if (status != JOINERY_OK)
                return status;
        }
    }
    return JOINERY_OK;
}

/* GlobalGroupAggregate: merges one partial accumulator (spec.merges_partials) into the
   working accumulator, with the same presence rules as aggregate_group_apply. */
static int aggregate_group_merge(GroupAggregateOperator *agg, AggregateGroup *group,
                                 const Row *partial)
{
    uint32_t base = agg->spec.group_key_count;
    int64_t rows = row_get_int64(partial, base);
    if (!group->present) {
        if (rows < 0) {
            agg->base.metrics.skipped_rows++; /* retractions of rows never counted */
            return JOINERY_OK;
        }
        aggregate_reset(agg);
        group->present = true;
    }
    agg->row_count += rows;
    for (uint32_t i = 0; i < agg->spec.call_count; i++) {
        const AggregateSlot *slot = &agg->slots[i];
        if (slot->call.kind == AGGREGATE_COUNT_STAR)
            continue; /* the result is row_count */
        Value value = value_from_row(partial, base + 1 + 2 * i, slot->value_type);
        int64_t count = row_get_int64(partial, base + 2 + 2 * i);
        if (slot->call.kind == AGGREGATE_USER_DEFINED) {
            Diag local;
            diag_clear(&local);
            AggregateSlot *held = &agg->slots[i];
            int status =
                user_defined_aggregate_merge(&held->user_defined, value, count, &agg->values[i],
                                             &agg->counts[i], &agg->udf_arena, &local);
            if (status != JOINERY_OK)
                return aggregate_udf_failed(agg, status, &local);
            continue;
        }
        if (aggregate_function_merge(&slot->call, slot->value_type, value, count, &agg->values[i],
                                     &agg->counts[i]) != JOINERY_OK)
            return aggregate_overflow(agg);
    }
    if (agg->row_count <= 0)
        group->present = false;
    return JOINERY_OK;
}

static int aggregate_group_end(GroupAggregateOperator *agg, AggregateGroup *group, int64_t now)
{
    const ValueEntry *entry = group->entry;
    int status;
    if (!group->present) {
        if (!entry)
            return JOINERY_OK; /* nothing was there and nothing is */
        status = operator_emit(&agg->base, group->previous, ROW_KIND_DELETE);
        agg->state_writes++;
        if (status == JOINERY_OK && value_state_remove(agg->accumulators, entry) != JOINERY_OK)
            status = operator_fail_state(&agg->base, "aggregate state");
        return status;
    }
    const Row *accumulator = aggregate_encode(agg);
    if (!accumulator)
        return operator_fail(&agg->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
    const Row *current;
    status = aggregate_build_output(agg, &agg->result_builder, group->key, accumulator, &current);
    if (status != JOINERY_OK)
        return status;
    bool first = entry == NULL;
    agg->state_writes++;
    if (first) {
        entry = value_state_insert(agg->accumulators, group->key, group->hash, now);
        if (!entry)
            return operator_fail_state(&agg->base, "aggregate state");
    }
    if (value_state_set(agg->accumulators, entry, accumulator, now) != JOINERY_OK) {
        status = operator_fail_state(&agg->base, "aggregate state");
        if (first)
            (void)value_state_remove(agg->accumulators, entry);
        return status;
    }
    if (first)
        return operator_emit(&agg->base, current, ROW_KIND_INSERT);
    if (agg->spec.ttl_millis <= 0 && row_content_equals(group->previous, current))
        return JOINERY_OK; /* unchanged: nothing to say */
    status = operator_emit(&agg->base, group->previous, ROW_KIND_UPDATE_BEFORE);
    if (status != JOINERY_OK)
        return status;
    return operator_emit(&agg->base, current, ROW_KIND_UPDATE_AFTER);
}

static int aggregate_process_row(GroupAggregateOperator *agg, const Row *input, int64_t now)
{
    const Row *group_key = key_extractor_build(&agg->group_key, input, NULL);
    if (!group_key)
        return operator_fail(&agg->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
    AggregateGroup group;
    int status = aggregate_group_begin(agg, &group, group_key, row_content_hash(group_key), now);
    if (status == JOINERY_OK)
        status = aggregate_group_apply(agg, &group, input, now);
    if (status == JOINERY_OK)
        status = aggregate_group_end(agg, &group, now);
    return status;
}

/* Folds the buffered mini-batch: each key once, its rows in arrival order (Flink's
   MiniBatchGroupAggFunction.finishBundle). */
static int aggregate_flush_batch(GroupAggregateOperator *agg)
{
    MiniBatchBuffer *buffer = &agg->batch;
    if (!buffer->row_count)
        return JOINERY_OK;
    int64_t now = agg->spec.ttl_millis > 0 ? operator_now_millis(&agg->base) : 0;
    int status = JOINERY_OK;
    for (uint32_t k = 0; k < buffer->key_count && status == JOINERY_OK; k++) {
        const MiniBatchKey *key = &buffer->keys[k];
        AggregateGroup group;
        status = aggregate_group_begin(agg, &group, key->key, key->hash, now);
        for (uint32_t r = key->first; status == JOINERY_OK && r != UINT32_MAX;
             r = buffer->rows[r].next)
            status = agg->spec.merges_partials
                         ? aggregate_group_merge(agg, &group, buffer->rows[r].row)
                         : aggregate_group_apply(agg, &group, buffer->rows[r].row, now);
        if (status == JOINERY_OK)
            status = aggregate_group_end(agg, &group, now);
    }
    mini_batch_buffer_clear(buffer);
    return status;
}

static int aggregate_process(Operator *self, uint32_t input, const RowBatch *batch)
{
    (void)input;
    GroupAggregateOperator *agg = (GroupAggregateOperator *)self;
    if (agg->spec.mini_batch_size > 0) {
        for (uint32_t i = 0; i < batch->count; i++) {
            const Row *key = key_extractor_build(&agg->group_key, batch->rows[i], NULL);
            if (!key ||
                mini_batch_buffer_add(&agg->batch, key, row_content_hash(key), batch->rows[i]) != 0)
                return operator_fail(self, JOINERY_ERROR_NO_MEMORY, "out of memory");
            if ((int64_t)agg->batch.row_count >= agg->spec.mini_batch_size) {
                int status = aggregate_flush_batch(agg);
                if (status != JOINERY_OK)
                    return status;
            }
        }
        return JOINERY_OK;
    }
    int64_t now = agg->spec.ttl_millis > 0 ? operator_now_millis(self) : 0;
    for (uint32_t i = 0; i < batch->count; i++) {
        int status = aggregate_process_row(agg, batch->rows[i], now);
        if (status != JOINERY_OK)
            return status;
    }
    return JOINERY_OK;
}

/* A watermark ends the mini-batch (MiniBatchAssigner): fold it, then forward the watermark. */
static int aggregate_on_watermark(Operator *self, int64_t watermark)
{
    int status = aggregate_flush_batch((GroupAggregateOperator *)self);
    return status == JOINERY_OK ? operator_emit_watermark(self, watermark) : status;
}

static int aggregate_finish(Operator *self)
{
    return aggregate_flush_batch((GroupAggregateOperator *)self);
}

static void aggregate_report_state(Operator *self)
{
    GroupAggregateOperator *agg = (GroupAggregateOperator *)self;
    if (!agg->accumulators || !agg->value_counts)
        return;
    StateCounters groups = value_state_counters(agg->accumulators);
    StateCounters values = multiset_state_counters(agg->value_counts);
    StateCounters lists = value_lists_counters(&agg->value_lists);
    self->metrics.state_bytes = groups.bytes + values.bytes + lists.bytes;
    self->metrics.state_keys = groups.keys;
    self->metrics.state_rows = groups.entries + values.entries + lists.entries;
    self->metrics.expired_rows = groups.expired + values.expired;
}

/* The recurring TTL cleanup timer (the only timer an aggregate registers). */
static int aggregate_on_timer(Operator *self, TimerDomain domain, int64_t timestamp, const Row *key)
{
    (void)domain;
    (void)timestamp;
    (void)key;
    GroupAggregateOperator *agg = (GroupAggregateOperator *)self;
    int64_t now = operator_timer_now(self);
    value_state_cleanup(agg->accumulators, now, AGGREGATE_CLEANUP_SLOTS_PER_TIMER);
    multiset_state_cleanup(agg->value_counts, now, AGGREGATE_CLEANUP_SLOTS_PER_TIMER);
    aggregate_report_state(self);
    return operator_schedule_cleanup(self);
}

/* The snapshot: the accumulators, then the value counts. */
static int aggregate_snapshot(Operator *self, const Barrier *barrier, const StateWriter *writer)
{
    (void)barrier;
    GroupAggregateOperator *agg = (GroupAggregateOperator *)self;
    /* the buffered batch is folded first: its changes go out before the barrier (Flink's
       prepareSnapshotPreBarrier) and the snapshot holds no buffered rows */
    int status = aggregate_flush_batch(agg);
    if (status == JOINERY_OK)
        status = value_state_snapshot(agg->accumulators, writer, self->context->diag);
    if (status == JOINERY_OK)
        status = multiset_state_snapshot(agg->value_counts, writer, self->context->diag);
    if (status == JOINERY_OK)
        status = value_lists_snapshot(&agg->value_lists, writer, self->context->diag);
    return status;
}

static int aggregate_restore(Operator *self, const StateReader *reader)
{
    GroupAggregateOperator *agg = (GroupAggregateOperator *)self;
    int status = value_state_restore(agg->accumulators, reader, self->context->diag);
    if (status == JOINERY_OK)
        status = multiset_state_restore(agg->value_counts, reader, self->context->diag);
    if (status == JOINERY_OK)
        status = value_lists_restore(&agg->value_lists, reader, self->context->diag);
    return status;
}

static void aggregate_close(Operator *self)
{
    GroupAggregateOperator *agg = (GroupAggregateOperator *)self;
    value_state_destroy(agg->accumulators);
    agg->accumulators = NULL;
    multiset_state_destroy(agg->value_counts);
    agg->value_counts = NULL;
    value_lists_free(&agg->value_lists);
    for (uint32_t i = 0; agg->slots && i < agg->spec.call_count; i++) {
        free(agg->slots[i].extreme_row);
        free(agg->slots[i].kept.row);
        strbuf_free(&agg->slots[i].text);
        strbuf_free(&agg->slots[i].collection[0]);
        strbuf_free(&agg->slots[i].collection[1]);
        user_defined_aggregate_free(&agg->slots[i].user_defined);
    }
    free(agg->slots);
    agg->slots = NULL;
    free(agg->key_variable_length);
    agg->key_variable_length = NULL;
    free(agg->values);
    agg->values = NULL;
    free(agg->counts);
    agg->counts = NULL;
    key_extractor_free(&agg->group_key);
    mini_batch_buffer_free(&agg->batch);
    arena_destroy(&agg->udf_arena);
    row_builder_free(&agg->count_key_builder);
    row_builder_free(&agg->value_builder);
    row_builder_free(&agg->accumulator_builder);
    row_builder_free(&agg->previous_builder);
    row_builder_free(&agg->result_builder);
    free(agg);
}

static int aggregate_open(Operator *self, ExecContext *context)
{
    GroupAggregateOperator *agg = (GroupAggregateOperator *)self;
    if (!context->state_store)
        return operator_fail(self, JOINERY_ERROR, "aggregate: no state store");
    agg->accumulators = value_state_create(context->state_store, agg->spec.ttl_millis);
    agg->value_counts = agg->accumulators
                            ? multiset_state_create(context->state_store, agg->spec.ttl_millis)
                            : NULL;
    if (!agg->value_counts ||
        (agg->has_value_lists && !value_lists_open(&agg->value_lists, context->state_store)))
        return operator_fail_state(self, "aggregate state");
    return agg->spec.ttl_millis > 0 ? operator_schedule_cleanup(self) : JOINERY_OK;
}

static const OperatorVtable GROUP_AGGREGATE_VTABLE = {
    .open = aggregate_open,
    .process = aggregate_process,
    .on_watermark = NULL, /* forwards the merged watermark */
    .on_timer = aggregate_on_timer,
    .snapshot = aggregate_snapshot,
    .restore = aggregate_restore,
    .finish = NULL,
    .report_state = aggregate_report_state,
    .close = aggregate_close,
};

/* The mini-batch variant (spec.mini_batch_size > 0): batches end at watermarks and at the end. */
static const OperatorVtable GROUP_AGGREGATE_MINI_BATCH_VTABLE = {
    .open = aggregate_open,
    .process = aggregate_process,
    .on_watermark = aggregate_on_watermark,
    .on_timer = aggregate_on_timer,
    .snapshot = aggregate_snapshot,
    .restore = aggregate_restore,
    .finish = aggregate_finish,
    .report_state = aggregate_report_state,
    .close = aggregate_close,
};

/* Checks a call and picks its accumulator value type; JOINERY_OK or an error in diag. */
static int aggregate_check_call(const GroupAggregateSpec *spec, uint32_t i, AggregateSlot *slot,
                                Diag *diag)
{
    const AggregateCall *call = &spec->calls[i];
    slot->call = *call;
    if (call->kind == AGGREGATE_USER_DEFINED) {
        int status = user_defined_aggregate_init(&slot->user_defined, &slot->call,
                                                 spec->input_field_count, &slot->value_type, diag);
        if (status != JOINERY_OK)
            return status;
        const UdfFunction *udf = call->udf;
        if (spec->merges_partials && !udf->descriptor->merge)
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "Function '%s' does not implement at least one method named "
                              "'merge', which a two-phase aggregate requires",
                              udf->name);
        if (spec->input_is_update && !udf->descriptor->retract)
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "Function '%s' does not implement at least one method named "
                              "'retract', which an aggregate over an updating input requires",
                              udf->name);
        slot->keeps_value_counts = call->distinct; /* one argument, NULLs skipped */
        return JOINERY_OK;
    }
    int status = aggregate_function_check(call, spec->input_field_count, &slot->value_type, diag);
    if (status != JOINERY_OK)
        return status;
    slot->keeps_value_counts =
        call->kind != AGGREGATE_COUNT_STAR &&
        (call->distinct ||
         (spec->input_is_update && (call->kind == AGGREGATE_MIN || call->kind == AGGREGATE_MAX)));
    slot->keeps_value_list = spec->input_is_update && aggregate_function_is_append_only(call->kind);
    if (slot->keeps_value_list && spec->ttl_millis > 0)
        return diag_error(diag, JOINERY_ERROR_UNSUPPORTED,
                          "LISTAGG, FIRST_VALUE and LAST_VALUE over an updating input with a "
                          "state TTL are not supported yet");
    return JOINERY_OK;
}

Operator *group_aggregate_operator_create(const GroupAggregateSpec *spec, Diag *diag)
{
    if (spec->group_key_count + spec->call_count > UINT16_MAX / 2 ||
        (spec->group_key_count && !spec->group_keys) || (spec->call_count && !spec->calls)) {
        diag_error(diag, JOINERY_ERROR_VALIDATE, "aggregate: inconsistent spec");
        return NULL;
    }
    for (uint32_t k = 0; k < spec->group_key_count; k++) {
        if (spec->group_keys[k] >= spec->input_field_count) {
            diag_error(diag, JOINERY_ERROR_VALIDATE, "aggregate: group key out of range");
            return NULL;
        }
    }
    if (spec->merges_partials && spec->mini_batch_size <= 0) {
        diag_error(diag, JOINERY_ERROR_VALIDATE, "global aggregate: needs a mini-batch size");
        return NULL;
    }
    for (uint32_t i = 0; spec->merges_partials && i < spec->call_count; i++)
        if (spec->calls[i].distinct) {
            diag_error(diag, JOINERY_ERROR_VALIDATE, "global aggregate: a DISTINCT call");
            return NULL;
        }
    GroupAggregateOperator *agg = calloc(1, sizeof *agg);
    if (!agg) {
        diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        return NULL;
    }
    agg->spec = *spec;
    mini_batch_buffer_init(&agg->batch);
    arena_init(&agg->udf_arena, 4096);
    value_lists_init(&agg->value_lists);
    operator_init(&agg->base,
                  spec->mini_batch_size > 0 ? &GROUP_AGGREGATE_MINI_BATCH_VTABLE
                                            : &GROUP_AGGREGATE_VTABLE,
                  spec->merges_partials ? "GlobalGroupAggregate" : "GroupAggregate", 1, agg);
    agg->base.uses_timers = spec->ttl_millis > 0;
    uint32_t calls = spec->call_count ? spec->call_count : 1;
    uint32_t keys = spec->group_key_count ? spec->group_key_count : 1;
    agg->slots = calloc(calls, sizeof(AggregateSlot));
    agg->values = calloc(calls, sizeof(Value));
    agg->counts = calloc(calls, sizeof(int64_t));
    agg->key_variable_length = calloc(keys, sizeof(bool));
    bool key_ready = key_extractor_init(&agg->group_key, spec->group_key_count, spec->group_keys,
                                        spec->input_types, NULL);
    if (!agg->slots || !agg->values || !agg->counts || !agg->key_variable_length || !key_ready) {
        diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        goto failed;
    }
    for (uint32_t k = 0; k < spec->group_key_count; k++)
        agg->key_variable_length[k] =
            type_is_variable_length(spec->input_types[spec->group_keys[k]].id);
    for (uint32_t i = 0; i < spec->call_count; i++) {
        if (aggregate_check_call(spec, i, &agg->slots[i], diag) != JOINERY_OK)
            goto failed;
        agg->has_value_counts = agg->has_value_counts || agg->slots[i].keeps_value_counts;
        agg->has_value_lists = agg->has_value_lists || agg->slots[i].keeps_value_list;
    }
    row_builder_init(&agg->count_key_builder);
    row_builder_init(&agg->value_builder);
    row_builder_init(&agg->accumulator_builder);
    row_builder_init(&agg->previous_builder);
    row_builder_init(&agg->result_builder);
    return &agg->base;

failed:
    operator_close(&agg->base);
    return NULL;
}

void group_aggregate_state_accesses(const Operator *op, uint64_t *reads, uint64_t *writes)
{
    const GroupAggregateOperator *agg = (const GroupAggregateOperator *)op;
    *reads = agg->state_reads;
    *writes = agg->state_writes;
}
