/*
 * value_lists.c - the retracting LISTAGG / FIRST_VALUE / LAST_VALUE values
 * of GroupAggregate (see value_lists.h): a SortedState ordered by the
 * group's arrival counter; removal of one entry is a range removal of its
 * order (orders are unique per key).
 */
#include "engine/exec/aggregate/value_lists.h"

#include <stdlib.h>
#include <string.h>

void value_lists_init(ValueLists *lists)
{
    *lists = (ValueLists){0};
    row_builder_init(&lists->value_builder);
}

bool value_lists_open(ValueLists *lists, StateStore *store)
{
    lists->lists = sorted_state_create(store);
    return lists->lists != NULL;
}

static const Row *value_lists_value_row(ValueLists *lists, DataType type, Value value)
{
    RowBuilder *builder = &lists->value_builder;
    row_builder_begin(builder, 1, ROW_KIND_INSERT);
    value_to_builder(builder, 0, type, value);
    return row_builder_finish(builder);
}

int value_lists_add(ValueLists *lists, const Row *key, int64_t order, DataType type, Value value)
{
    const Row *row = value_lists_value_row(lists, type, value);
    if (!row)
        return JOINERY_ERROR_NO_MEMORY;
    return sorted_state_add(lists->lists, key, row_content_hash(key), order, row, 0) == JOINERY_OK
               ? JOINERY_OK
               : JOINERY_ERROR;
}

int value_lists_remove(ValueLists *lists, const Row *key, DataType type, Value value, bool *found)
{
    *found = false;
    const Row *wanted = value_lists_value_row(lists, type, value);
    if (!wanted)
        return JOINERY_ERROR_NO_MEMORY;
    uint64_t hash = row_content_hash(key);
    SortedScan scan;
    int64_t order = 0;
    sorted_scan_begin(lists->lists, key, hash, INT64_MIN, INT64_MAX, &scan);
    for (const SortedEntry *entry; (entry = sorted_scan_next(&scan)) != NULL;) {
        if (row_content_equals(entry->row, wanted)) {
            order = entry->time;
            *found = true;
            break;
        }
    }
    sorted_scan_end(&scan);
    if (state_store_failed(lists->lists->store))
        return JOINERY_ERROR;
    if (!*found)
        return JOINERY_OK;
    return sorted_state_remove_range(lists->lists, key, hash, order, order, NULL) == JOINERY_OK
               ? JOINERY_OK
               : JOINERY_ERROR;
}

/* Copies `row` into `copy`; false on no memory. */
static bool value_lists_keep(ValueCopy *copy, const Row *row)
{
    uint32_t size = row_size(row);
    if (size > copy->capacity) {
        uint64_t *grown = realloc(copy->row, size);
        if (!grown)
            return false;
        copy->row = grown;
        copy->capacity = size;
    }
    memcpy(copy->row, row, size);
    return true;
}

int value_lists_end(ValueLists *lists, const Row *key, DataType type, bool first, ValueCopy *copy,
                    Value *result)
{
    *result = value_null();
    SortedScan scan;
    bool kept = false, failed = false;
    sorted_scan_begin(lists->lists, key, row_content_hash(key), INT64_MIN, INT64_MAX, &scan);
    for (const SortedEntry *entry; (entry = sorted_scan_next(&scan)) != NULL;) {
        /* the row is copied: a backend's scan may reuse the memory of the rows it returned */
        if (!value_lists_keep(copy, entry->row)) {
            failed = true;
            break;
        }
        kept = true;
        if (first)
            break;
    }
    sorted_scan_end(&scan);
    if (failed)
        return JOINERY_ERROR_NO_MEMORY;
    if (state_store_failed(lists->lists->store))
        return JOINERY_ERROR;
    if (kept)
        *result = value_from_row((const Row *)copy->row, 0, type);
    return JOINERY_OK;
}

int value_lists_join(ValueLists *lists, const Row *key, DataType type, Value separator,
                     StrBuf *text, Value *result)
{
    *result = value_null();
    strbuf_clear(text);
    SortedScan scan;
    bool any = false, failed = false;
    sorted_scan_begin(lists->lists, key, row_content_hash(key), INT64_MIN, INT64_MAX, &scan);
    for (const SortedEntry *entry; (entry = sorted_scan_next(&scan)) != NULL;) {
        Value value = value_from_row(entry->row, 0, type);
        if ((any && !separator.is_null && separator.s.len &&
             strbuf_append(text, separator.s.ptr, separator.s.len) != 0) ||
            (value.s.len && strbuf_append(text, value.s.ptr, value.s.len) != 0)) {
            failed = true;
            break;
        }
        any = true;
    }
    sorted_scan_end(&scan);
    if (failed || (any && !text->data && strbuf_reserve(text, 1) != 0))
        return JOINERY_ERROR_NO_MEMORY;
    if (state_store_failed(lists->lists->store))
        return JOINERY_ERROR;
    if (any) {
        result->is_null = false;
        result->s.ptr = text->data;
        result->s.len = (uint32_t)text->length;
    }
    return JOINERY_OK;
}

int value_lists_drop(ValueLists *lists, const Row *key)
{
    return sorted_state_remove_range(lists->lists, key, row_content_hash(key), INT64_MIN, INT64_MAX,
                                     NULL) == JOINERY_OK
               ? JOINERY_OK
               : JOINERY_ERROR;
}

StateCounters value_lists_counters(const ValueLists *lists)
{
    return lists->lists ? sorted_state_counters(lists->lists) : (StateCounters){0};
}

int value_lists_snapshot(ValueLists *lists, const StateWriter *writer, Diag *diag)
{
    return lists->lists ? sorted_state_snapshot(lists->lists, writer, diag) : JOINERY_OK;
}

int value_lists_restore(ValueLists *lists, const StateReader *reader, Diag *diag)
{
    return lists->lists ? sorted_state_restore(lists->lists, reader, diag) : JOINERY_OK;
}

void value_lists_free(ValueLists *lists)
{
    sorted_state_destroy(lists->lists);
    lists->lists = NULL;
    row_builder_free(&lists->value_builder);
}
