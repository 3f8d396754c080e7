/*
 * distinct_values.c - the window operators' DISTINCT value counts (see
 * distinct_values.h): one MultisetState, key = the window's state key, part
 * d = the d-th DISTINCT call's values.
 */
#include "engine/exec/aggregate/distinct_values.h"

#include <stdlib.h>
#include <string.h>

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
        if (value.is_null || aggregate_call_skips_row(&calls[i], input)) {
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

/* Adds `count` occurrences of the value row `row` to part `held`. */
static int distinct_values_add_count(MultisetState *counts, MultisetKey *held, const Row *row,
                                     int32_t count)
{
    uint64_t hash = row_content_hash(row);
    const MultisetEntry *entry = multiset_key_find_row(counts, held, row, hash);
    if (entry) {
        if (!multiset_count_can_add(entry->count, count))
            return JOINERY_ERROR_RUNTIME;
        return multiset_entry_update(counts, held, entry, entry->count + count, 0, 0);
    }
    if (state_store_failed(counts->store))
        return JOINERY_ERROR;
    return multiset_key_add_row(counts, held, row, hash, count, 0, 0) ? JOINERY_OK : JOINERY_ERROR;
}

int distinct_values_move(DistinctValues *values, const Row *from, const Row *to)
{
    MultisetState *counts = values->counts;
    if (!counts)
        return JOINERY_OK;
    MultisetKey *source = multiset_state_find(counts, from, row_content_hash(from), 0);
    if (!source)
        return state_store_failed(counts->store) ? JOINERY_ERROR : JOINERY_OK;
    /* the source's rows are copied out first: the target gains entries while they are read */
    uint64_t *copies = NULL;
    size_t used = 0, capacity = 0;
    uint32_t *parts = NULL, *offsets = NULL;
    int32_t *occurrences = NULL;
    size_t entries = 0, entry_capacity = 0;
    int status = JOINERY_OK;
    for (uint32_t d = 0; d < values->distinct_count && status == JOINERY_OK; d++) {
        MultisetScan scan;
        multiset_scan_begin(counts, multiset_key_part(counts, source, d), &scan);
        for (const MultisetEntry *entry; (entry = multiset_scan_next(&scan)) != NULL;) {
            size_t words = row_size(entry->row) / sizeof(uint64_t);
            if (used + words > capacity || entries == entry_capacity) {
                size_t grown_capacity = (used + words) * 2 + 16;
                size_t grown_entries = entry_capacity * 2 + 8;
                uint64_t *grown = realloc(copies, grown_capacity * sizeof *grown);
                uint32_t *grown_parts = realloc(parts, grown_entries * sizeof *grown_parts);
                uint32_t *grown_offsets = realloc(offsets, grown_entries * sizeof *grown_offsets);
                int32_t *grown_counts = realloc(occurrences, grown_entries * sizeof *grown_counts);
                if (grown)
                    copies = grown;
                if (grown_parts)
                    parts = grown_parts;
                if (grown_offsets)
                    offsets = grown_offsets;
                if (grown_counts)
                    occurrences = grown_counts;
                if (!grown || !grown_parts || !grown_offsets || !grown_counts) {
                    status = JOINERY_ERROR_NO_MEMORY;
                    break;
                }
                capacity = grown_capacity;
                entry_capacity = grown_entries;
            }
            memcpy(copies + used, entry->row, words * sizeof(uint64_t));
            parts[entries] = d;
            offsets[entries] = (uint32_t)used;
            occurrences[entries] = entry->count;
            entries++;
            used += words;
        }
        multiset_scan_end(&scan);
    }
    if (status == JOINERY_OK && state_store_failed(counts->store))
        status = JOINERY_ERROR;
    if (status == JOINERY_OK) {
        source = multiset_state_find(counts, from, row_content_hash(from), 0);
        status = source && multiset_state_remove_key(counts, source) == JOINERY_OK ? JOINERY_OK
                                                                                   : JOINERY_ERROR;
    }
    MultisetKey *target = NULL;
    if (status == JOINERY_OK && entries) {
        target = multiset_state_insert_key(counts, to, row_content_hash(to), 0);
        if (!target)
            status = JOINERY_ERROR;
    }
    for (size_t e = 0; status == JOINERY_OK && e < entries; e++)
        status = distinct_values_add_count(counts, multiset_key_part(counts, target, parts[e]),
                                           (const Row *)(copies + offsets[e]), occurrences[e]);
    free(copies);
    free(parts);
    free(offsets);
    free(occurrences);
    return status;
}

int distinct_values_each(DistinctValues *values, uint32_t call, const Row *key,
                         int (*visit)(void *context, Value value), void *context)
{
    MultisetState *counts = values->counts;
    MultisetKey *found = multiset_state_find(counts, key, row_content_hash(key), 0);
    if (!found)
        return state_store_failed(counts->store) ? JOINERY_ERROR : JOINERY_OK;
    MultisetScan scan;
    multiset_scan_begin(
        counts, multiset_key_part(counts, found, (uint32_t)values->part_of_call[call]), &scan);
    int status = JOINERY_OK;
    for (const MultisetEntry *entry; status == JOINERY_OK && (entry = multiset_scan_next(&scan));)
        status = visit(context, value_from_row(entry->row, 0, values->argument_types[call]));
    multiset_scan_end(&scan);
    if (status == JOINERY_OK && state_store_failed(counts->store))
        status = JOINERY_ERROR;
    return status;
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
