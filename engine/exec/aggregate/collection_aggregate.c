/*
 * collection_aggregate.c - COLLECT and ARRAY_AGG accumulators (see
 * collection_aggregate.h).
 */
#include "engine/exec/aggregate/collection_aggregate.h"

#include <stdlib.h>

#include "engine/base/composite.h"

bool collection_aggregate_is(AggregateKind kind)
{
    return kind == AGGREGATE_COLLECT || kind == AGGREGATE_ARRAY_AGG;
}

bool collection_aggregate_takes_nulls(const AggregateCall *call)
{
    return call->kind == AGGREGATE_ARRAY_AGG && !call->distinct;
}

/* Two elements equal as Java's equals (NULL equals NULL). */
static bool element_equals(DataType type, Value a, Value b)
{
    if (a.is_null || b.is_null)
        return a.is_null && b.is_null;
    return value_compare(type, a, b) == 0;
}

static void swap_buffers(StrBuf *held, StrBuf *spare)
{
    StrBuf swapped = *held;
    *held = *spare;
    *spare = swapped;
}

int collection_aggregate_apply(const AggregateCall *call, Value value, bool accumulate,
                               Value *current, int64_t *count, StrBuf *held, StrBuf *spare)
{
    DataType type = call->result_type;
    DataType element_type = type_element(type);
    CollectionReader reader;
    uint32_t entries = 0;
    bool have =
        !current->is_null && collection_reader_init(&reader, type, current->s.ptr, current->s.len);
    if (have)
        entries = reader.remaining;
    MultisetElement *parts = malloc((entries + 1) * sizeof *parts);
    Value *elements = malloc((entries + 1) * sizeof *elements);
    if (!parts || !elements) {
        free(parts);
        free(elements);
        return JOINERY_ERROR_NO_MEMORY;
    }
    uint32_t used = 0;
    bool removed = false;
    while (have && used < entries &&
           collection_reader_next(&reader, &parts[used].element, &parts[used].count)) {
        bool match = !removed && element_equals(element_type, parts[used].element, value);
        if (match && !accumulate) {
            removed = true;
            if (call->kind == AGGREGATE_ARRAY_AGG)
                continue; /* the first equal element goes */
            parts[used].count--;
        } else if (match && call->kind == AGGREGATE_COLLECT) {
            parts[used].count++;
            removed = true; /* counted */
        }
        elements[used] = parts[used].element;
        used++;
    }
    if (accumulate && (call->kind == AGGREGATE_ARRAY_AGG || !removed)) {
        parts[used].element = value;
        parts[used].count = 1;
        elements[used] = value;
        used++;
    }
    int64_t total = *count;
    if (accumulate)
        total++;
    else if (removed)
        total--;
    strbuf_clear(spare);
    int status = call->kind == AGGREGATE_ARRAY_AGG ? array_encode(type, elements, used, spare)
                                                   : multiset_encode(type, parts, used, spare);
    free(parts);
    free(elements);
    if (status != 0)
        return JOINERY_ERROR_NO_MEMORY;
    swap_buffers(held, spare);
    *count = total;
    *current = value_string(held->data, (uint32_t)held->length);
    return JOINERY_OK;
}

Value collection_aggregate_result(const AggregateCall *call, Value value, int64_t count)
{
    static const char empty[4] = {0, 0, 0, 0}; /* a collection of no elements */
    if (call->kind == AGGREGATE_ARRAY_AGG)
        return count > 0 ? value : value_null();
    if (count <= 0 || value.is_null)
        return value_string(empty, sizeof empty);
    return value;
}
