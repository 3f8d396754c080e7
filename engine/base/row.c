/*
 * row.c - binary rows: building, copying, hashing (see row.h).
 */
#include "engine/base/row.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

const char *row_kind_name(RowKind kind)
{
    static const char *const names[] = {"+I", "-U", "+U", "-D"};
    return (unsigned)kind < 4 ? names[kind] : "??";
}

Row *row_copy(Arena *arena, const Row *row)
{
    Row *copy = arena_alloc(arena, row->header.size);
    if (copy)
        memcpy(copy, row, row->header.size);
    return copy;
}

Row *row_copy_heap(const Row *row)
{
    Row *copy = malloc(row->header.size);
    if (copy)
        memcpy(copy, row, row->header.size);
    return copy;
}

bool row_content_equals(const Row *a, const Row *b)
{
    if (a->header.size != b->header.size || a->header.field_count != b->header.field_count)
        return false;
    size_t offset = sizeof(RowHeader);
    return memcmp((const uint8_t *)a + offset, (const uint8_t *)b + offset,
                  a->header.size - offset) == 0;
}

uint64_t row_content_hash(const Row *row)
{
    size_t offset = sizeof(RowHeader);
    return XXH3_64bits_withSeed((const uint8_t *)row + offset, row->header.size - offset,
                                row->header.field_count);
}

void row_builder_init(RowBuilder *builder)
{
    memset(builder, 0, sizeof *builder);
}

void row_builder_free(RowBuilder *builder)
{
    free(builder->buffer);
    memset(builder, 0, sizeof *builder);
}

static bool row_builder_reserve(RowBuilder *builder, uint32_t needed)
{
    if (needed <= builder->capacity)
        return true;
    uint32_t capacity = builder->capacity ? builder->capacity : 256;
    while (capacity < needed) {
        if (capacity > UINT32_MAX / 2) {
            builder->failed = true;
            return false;
        }
        capacity *= 2;
    }
    uint8_t *buffer = realloc(builder->buffer, capacity);
    if (!buffer) {
        builder->failed = true;
        return false;
    }
    builder->buffer = buffer;
    builder->capacity = capacity;
    return true;
}

static inline Row *row_builder_row(RowBuilder *builder)
{
    return (Row *)builder->buffer;
}

void row_builder_begin(RowBuilder *builder, uint32_t field_count, RowKind kind)
{
    uint32_t fixed = row_fixed_size(field_count);
    builder->failed = false;
    builder->field_count = field_count;
    builder->used = fixed;
    if (!row_builder_reserve(builder, fixed))
        return;
    memset(builder->buffer, 0, fixed);
    Row *row = row_builder_row(builder);
    row->header.field_count = (uint16_t)field_count;
    row->header.kind = (uint8_t)kind;
}

static inline uint64_t *row_builder_slots(RowBuilder *builder)
{
    Row *row = row_builder_row(builder);
    return row->words + row_bitmap_words(builder->field_count);
}

void row_builder_set_null(RowBuilder *builder, uint32_t field)
{
    if (builder->failed)
        return;
    Row *row = row_builder_row(builder);
    row->words[field / 64] |= (uint64_t)1 << (field % 64);
    row_builder_slots(builder)[field] = 0;
}

void row_builder_set_int64(RowBuilder *builder, uint32_t field, int64_t value)
{
    if (builder->failed)
        return;
    row_builder_slots(builder)[field] = (uint64_t)value;
}

void row_builder_set_double(RowBuilder *builder, uint32_t field, double value)
{
    if (builder->failed)
        return;
    if (value == 0.0)
        value = 0.0; /* normalise -0.0 so equal keys are equal bytes */
    uint64_t bits;
    memcpy(&bits, &value, sizeof bits);
    row_builder_slots(builder)[field] = bits;
}

void row_builder_set_string(RowBuilder *builder, uint32_t field, const char *text, uint32_t length)
{
    if (builder->failed)
        return;
    uint32_t offset = builder->used;
    if (!row_builder_reserve(builder, offset + length))
        return;
    if (length)
        memcpy(builder->buffer + offset, text, length);
    builder->used = offset + length;
    row_builder_slots(builder)[field] = ((uint64_t)offset << 32) | length;
}

void row_builder_copy_field(RowBuilder *builder, uint32_t field, const Row *source,
                            uint32_t source_field, bool variable_length)
{
    if (row_is_null(source, source_field)) {
        row_builder_set_null(builder, field);
    } else if (variable_length) {
        uint32_t length;
        const char *text = row_get_string(source, source_field, &length);
        row_builder_set_string(builder, field, text, length);
    } else {
        row_builder_set_int64(builder, field, row_get_int64(source, source_field));
    }
}

Row *row_builder_finish(RowBuilder *builder)
{
    if (builder->failed)
        return NULL;
    uint32_t size = (builder->used + 7u) & ~7u;
    if (!row_builder_reserve(builder, size))
        return NULL;
    memset(builder->buffer + builder->used, 0, size - builder->used);
    Row *row = row_builder_row(builder);
    row->header.size = size;
    return row;
}
