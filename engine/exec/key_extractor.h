/*
 * key_extractor.h - the key of a row: some of its fields, as a canonical row.
 *
 * Stateful operators and exchanges key rows by a projection of their
 * fields (join keys, group keys, the MultiJoin common key, primary keys).
 * A KeyExtractor builds that projection as the canonical row a RowBuilder
 * would build (so keys hash and compare bytewise, row.h), with a fast path
 * when every key field is fixed-width: header, NULL bitmap and slots are
 * written directly, no builder.
 *
 * NULL handling: key fields may be NULL (the key row then has the NULL
 * bit). `has_null` reports whether a field that is not null-safe is NULL,
 * which for joins means the row can match nothing; callers that group by
 * NULL like any value ignore it.
 */
#ifndef JOINERY_EXEC_KEY_EXTRACTOR_H
#define JOINERY_EXEC_KEY_EXTRACTOR_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/base/row.h"
#include "engine/base/type.h"

typedef struct KeyExtractor {
    uint32_t field_count;   /* key fields */
    uint32_t *fields;       /* owned: input field of each key field */
    bool *variable_length;  /* owned: per key field */
    bool *null_safe;        /* owned: per key field (IS NOT DISTINCT FROM) */
    bool fixed_width;       /* every key field is fixed-width */
    uint32_t fixed_words;   /* size of a fixed-width key row, in 8-byte words */
    uint64_t *fixed_buffer; /* owned: fixed_words words (fixed_width only) */
    RowBuilder builder;     /* variable-width keys */
} KeyExtractor;

/*
 * Sets up an extractor of fields[0..count-1] of rows whose field types are
 * `types` (indexed by input field). null_safe may be NULL (no field is
 * null-safe). count may be 0 (the empty key). Returns false when memory is
 * exhausted, also when fields or types is NULL for a non-empty key (an
 * allocation of the caller's failed); the extractor is then freed and may
 * be freed again.
 */
bool key_extractor_init(KeyExtractor *extractor, uint32_t count, const uint32_t *fields,
                        const DataType *types, const bool *null_safe);
/* Frees what the extractor owns. Safe on a zeroed or already freed extractor. */
void key_extractor_free(KeyExtractor *extractor);

/*
 * The key row of `row` (kind +I), valid until the next build; NULL when
 * memory is exhausted. *has_null (may be NULL) is set when a key field that
 * is not null-safe is NULL.
 */
const Row *key_extractor_build(KeyExtractor *extractor, const Row *row, bool *has_null);

/*
 * Fixed-width extractors only: writes the key row of `row` at `out`
 * (fixed_words words, 8-byte aligned). Returns whether a key field that is
 * not null-safe is NULL. Never fails.
 */
bool key_extractor_write_fixed(const KeyExtractor *extractor, const Row *row, uint64_t *out);

#endif
