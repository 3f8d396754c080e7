/*
 * row.h - the one binary row format used everywhere (operators, state, keys).
 *
 * Layout of a row of n fields, all in one contiguous block:
 *
 *   [RowHeader: 8 bytes][null bitmap: 8 * ceil(n/64) bytes][n slots of 8 bytes][tail]
 *
 * - RowHeader.size is the total byte size, header and tail included.
 * - Bit i of the bitmap is set when field i is NULL; its slot is then 0.
 * - Fixed-width values sit in their slot (see type.h for each type's
 *   encoding). A variable-length value (string) has slot
 *   (offset << 32 | length), offset counted from the start of the row and
 *   pointing into the tail.
 * - Canonical form (what RowBuilder produces): tail values appear in field
 *   order, with no gaps and no padding bytes except zeroes up to the next
 *   8-byte boundary at the end; NULL slots are zero; doubles are stored with
 *   -0.0 normalised to 0.0. Two canonical rows with the same kind-less
 *   content are therefore byte-identical, so keys hash and compare with
 *   memcmp (row_key_equals / row_key_hash ignore the kind byte).
 * - The row kind (+I -U +U -D) is in the header.
 *
 * Rows are immutable once built, except for their kind (row_set_kind).
 */
#ifndef JOINERY_BASE_ROW_H
#define JOINERY_BASE_ROW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/base/arena.h"

typedef enum RowKind {
    ROW_KIND_INSERT = 0,        /* +I */
    ROW_KIND_UPDATE_BEFORE = 1, /* -U */
    ROW_KIND_UPDATE_AFTER = 2,  /* +U */
    ROW_KIND_DELETE = 3,        /* -D */
} RowKind;

/* "+I", "-U", "+U", "-D" */
const char *row_kind_name(RowKind kind);
/* +I and +U add a row to the materialised result; -U and -D remove one. */
static inline bool row_kind_is_accumulate(RowKind kind)
{
    return kind == ROW_KIND_INSERT || kind == ROW_KIND_UPDATE_AFTER;
}

typedef struct RowHeader {
    uint32_t size;
    uint16_t field_count;
    uint8_t kind;
    uint8_t reserved; /* always 0 */
} RowHeader;

/* A row is a pointer to its first byte; it is always 8-byte aligned. */
typedef struct Row {
    RowHeader header;
    uint64_t words[]; /* bitmap words, then slots, then tail */
} Row;

static inline uint32_t row_bitmap_words(uint32_t field_count)
{
    return (field_count + 63) / 64;
}

static inline uint32_t row_fixed_size(uint32_t field_count)
{
    return (uint32_t)sizeof(RowHeader) + 8 * (row_bitmap_words(field_count) + field_count);
}

static inline uint32_t row_size(const Row *row)
{
    return row->header.size;
}

static inline uint32_t row_field_count(const Row *row)
{
    return row->header.field_count;
}

static inline RowKind row_kind(const Row *row)
{
    return (RowKind)row->header.kind;
}

static inline void row_set_kind(Row *row, RowKind kind)
{
    row->header.kind = (uint8_t)kind;
}

static inline bool row_is_null(const Row *row, uint32_t field)
{
    return (row->words[field / 64] >> (field % 64)) & 1u;
}

static inline const uint64_t *row_slots(const Row *row)
{
    return row->words + row_bitmap_words(row->header.field_count);
}

static inline int64_t row_get_int64(const Row *row, uint32_t field)
{
    return (int64_t)row_slots(row)[field];
}

static inline double row_get_double(const Row *row, uint32_t field)
{
    double value;
    uint64_t bits = row_slots(row)[field];
    __builtin_memcpy(&value, &bits, sizeof value);
    return value;
}

/* Returns a pointer into the row (not NUL-terminated) and its length. */
static inline const char *row_get_string(const Row *row, uint32_t field, uint32_t *length)
{
    uint64_t slot = row_slots(row)[field];
    *length = (uint32_t)(slot & 0xffffffffu);
    return (const char *)row + (slot >> 32);
}

/* Raw slot (for copying a field of any fixed-width type). */
static inline uint64_t row_get_slot(const Row *row, uint32_t field)
{
    return row_slots(row)[field];
}

/* Copies the row into arena memory; NULL when memory is exhausted. */
Row *row_copy(Arena *arena, const Row *row);
/* Copies the row with malloc (caller frees); NULL when memory is exhausted. */
Row *row_copy_heap(const Row *row);
/* Content equality ignoring the kind byte (canonical rows only). */
bool row_content_equals(const Row *a, const Row *b);
/* Hash of the content ignoring the kind byte (canonical rows only). */
uint64_t row_content_hash(const Row *row);

/*
 * RowBuilder - writes one canonical row at a time into a reusable buffer.
 *
 * Usage: row_builder_begin(b, n); set every field 0..n-1 in ascending order
 * (set_null / set_int64 / set_double / set_string); row_builder_finish()
 * returns the row, valid until the next begin. Copy it with row_copy to keep
 * it. Memory is grown with realloc; on exhaustion finish returns NULL.
 */
typedef struct RowBuilder {
    uint8_t *buffer;
    uint32_t capacity;
    uint32_t used; /* bytes written so far (fixed part + tail) */
    uint32_t field_count;
    bool failed; /* memory exhausted during this row */
} RowBuilder;

void row_builder_init(RowBuilder *builder);
void row_builder_free(RowBuilder *builder);
void row_builder_begin(RowBuilder *builder, uint32_t field_count, RowKind kind);
void row_builder_set_null(RowBuilder *builder, uint32_t field);
void row_builder_set_int64(RowBuilder *builder, uint32_t field, int64_t value);
void row_builder_set_double(RowBuilder *builder, uint32_t field, double value);
void row_builder_set_string(RowBuilder *builder, uint32_t field, const char *text, uint32_t length);
/* Copies field source_field of source (any type, NULL included) into field. */
void row_builder_copy_field(RowBuilder *builder, uint32_t field, const Row *source,
                            uint32_t source_field, bool variable_length);
/* Finishes the row; NULL when memory ran out while building. */
Row *row_builder_finish(RowBuilder *builder);

#endif
