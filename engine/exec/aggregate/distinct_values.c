/*
 * distinct_values.c - the window operators' DISTINCT value counts (see
 * distinct_values.h): one MultisetState, key = the window's state key, part
 * d = the d-th DISTINCT call's values.
 */
#include "engine/exec/aggregate/distinct_values.h"

#include <stdlib.h>

int distinct_values_init(DistinctValues *values, const AggregateCall *calls, uint32_t call_count,
                         Diag *diag)
{
    *values = (DistinctValues){0};
    row_builder_init(&values->value_builder);
    values->part_of_call = calloc(call_count ? call_count : 1, sizeof(int32_t));
    values->argument_types = calloc(call_count ? call_count : 1, sizeof(DataType));
    if (!values->part_of_call || !values->argument_types) {
        distinct_values_free(values);
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    }
    for (uint32_t i = 0; i < call_count; i++) {
        values->argument_types[i] = calls[i].argument_type;
        values->part_of_call[i] = -1;
        if (!calls[i].distinct || calls[i].kind == AGGREGATE_COUNT_STAR)
            continue;
        if (values->distinct_count == DISTINCT_VALUES_MAX_CALLS) {
            distinct_values_free(values);
            return diag_error(diag, JOINERY_ERROR_UNSUPPORTED,
                              "more than %d DISTINCT aggregates in one window aggregate are "
                              "not supported",
                              DISTINCT_VALUES_MAX_CALLS);
        }
        values->part_of_call[i] = (int32_t)values->distinct_count++;
    }
    return JOINERY_OK;
}

bool distinct_values_open(DistinctValues *values, StateStore *store)
{
    if (!values->distinct_count)
        return true;
    /* never subject to table.exec.state.ttl: a window's values go when it fires */
    values->counts = multiset_state_create_parts(store, values->distinct_count, NULL);
    return values->counts != NULL;
}

int distinct_values_update(DistinctValues *values, uint32_t call, const Row *window_key,
                           Value value, bool add, bool *changed)
{
    *changed = false;
    MultisetState *counts = values->counts;
    int32_t part = values->part_of_call[call];
    RowBuilder *builder = &values->value_builder;
    row_builder_begin(builder, 1, ROW_KIND_INSERT);
    value_to_builder(builder, 0, values->argument_types[call], value);
    const Row *value_row = row_builder_finish(builder);
    if (!value_row)
        return JOINERY_ERROR_NO_MEMORY;
    uint64_t key_hash = row_content_hash(window_key);
    uint64_t value_hash = row_content_hash(value_row);
    if (add) {
        MultisetKey *key = multiset_state_insert_key(counts, window_key, key_hash, 0);
        if (!key)
            return JOINERY_ERROR;
        MultisetKey *held = multiset_key_part(counts, key, (uint32_t)part);
        const MultisetEntry *entry = multiset_key_find_row(counts, held, value_row, value_hash);
        if (entry) {
            if (!multiset_count_can_add(entry->count, 1))
                return JOINERY_ERROR_RUNTIME;
            return multiset_entry_update(counts, held, entry, entry->count + 1, 0, 0);
        }
        if (state_store_failed(counts->store))
            return JOINERY_ERROR;
        if (!multiset_key_add_row(counts, held, value_row, value_hash, 1, 0, 0))
            return JOINERY_ERROR;
        *changed = true;
        return JOINERY_OK;
    }
    MultisetKey *key = multiset_state_find(counts, window_key, key_hash, 0);
    if (!key)
        return state_store_failed(counts->store) ? JOINERY_ERROR : JOINERY_OK;
    MultisetKey *held = multiset_key_part(counts, key, (uint32_t)part);
    const MultisetEntry *entry = multiset_key_find_row(counts, held, value_row, value_hash);
    if (!entry)
        return state_store_failed(counts->store) ? JOINERY_ERROR : JOINERY_OK;
    if (entry->count > 1)
        return multiset_entry_update(counts, held, entry, entry->count - 1, 0, 0);
    *changed = true;
    int status = multiset_key_remove_entry(counts, held, entry);
    if (status == JOINERY_OK)
        status = multiset_state_release_key(counts, key);
    return status;
}

int distinct_values_update_row(DistinctValues *values, const AggregateCall *calls,
                               uint32_t call_count, const Row *window_key, const Row *input,
                               bool add, bool *skip)
{
    for (uint32_t i = 0; i < call_count; i++) {
        skip[i] = false;
        if (!distinct_values_is_distinct(values, i))
            continue;
        Value value = value_from_row(input, calls[i].argument, calls[i].argument_type);
        if (value.is_null) {
            skip[i] = true;
            continue;
        }
        bool changed;
        int status = distinct_values_update(values, i, window_key, value, add, &changed);
        if (status != JOINERY_OK)
            return status;
        skip[i] = !changed;
    }
    return JOINERY_OK;
}

int distinct_values_drop(DistinctValues *values, const Row *window_key)
{
    if (!values->counts)
        return JOINERY_OK;
    MultisetKey *key =
        multiset_state_find(values->counts, window_key, row_content_hash(window_key), 0);
    if (!key)
        return state_store_failed(values->counts->store) ? JOINERY_ERROR : JOINERY_OK;
    return multiset_state_remove_key(values->counts, key);
}

StateCounters distinct_values_counters(const DistinctValues *values)
{
    return values->counts ? multiset_state_counters(values->counts) : (StateCounters){0};
}

int distinct_values_snapshot(DistinctValues *values, const StateWriter *writer, Diag *diag)
{
    return values->counts ? multiset_state_snapshot(values->counts, writer, diag) : JOINERY_OK;
}

int distinct_values_restore(DistinctValues *values, const StateReader *reader, Diag *diag)
{
    return values->counts ? multiset_state_restore(values->counts, reader, diag) : JOINERY_OK;
}

void distinct_values_free(DistinctValues *values)
{
    multiset_state_destroy(values->counts);
    values->counts = NULL;
    free(values->part_of_call);
    values->part_of_call = NULL;
    free(values->argument_types);
    values->argument_types = NULL;
    row_builder_free(&values->value_builder);
}
