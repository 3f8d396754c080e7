/*
 * key_extractor.c - key rows from row fields (see key_extractor.h).
 *
 * Invariant: a fixed-width key row is byte-identical to what RowBuilder
 * produces for the same fields (header, zeroed bitmap words with NULL bits,
 * slots with NULL slots 0, no tail), so both paths give the same hashes.
 */
#include "engine/exec/key_extractor.h"

#include <stdlib.h>
#include <string.h>

bool key_extractor_init(KeyExtractor *extractor, uint32_t count, const uint32_t *fields,
                        const DataType *types, const bool *null_safe)
{
    memset(extractor, 0, sizeof *extractor);
    row_builder_init(&extractor->builder);
    /* a builder whose types array could not be allocated passes NULL: out of memory */
    if (count > 0 && (!fields || !types))
        return false;
    size_t slots = count ? count : 1;
    extractor->field_count = count;
    extractor->fields = calloc(slots, sizeof(uint32_t));
    extractor->variable_length = calloc(slots, sizeof(bool));
    extractor->null_safe = calloc(slots, sizeof(bool));
    extractor->fixed_words = row_fixed_size(count) / 8;
    extractor->fixed_buffer = calloc(extractor->fixed_words, sizeof(uint64_t));
    if (!extractor->fields || !extractor->variable_length || !extractor->null_safe ||
        !extractor->fixed_buffer) {
        key_extractor_free(extractor);
        return false;
    }
    extractor->fixed_width = true;
    for (uint32_t k = 0; k < count; k++) {
        extractor->fields[k] = fields[k];
        extractor->variable_length[k] = type_is_variable_length(types[fields[k]].id);
        extractor->null_safe[k] = null_safe ? null_safe[k] : false;
        if (extractor->variable_length[k])
            extractor->fixed_width = false;
    }
    return true;
}

void key_extractor_free(KeyExtractor *extractor)
{
    free(extractor->fields);
    free(extractor->variable_length);
    free(extractor->null_safe);
    free(extractor->fixed_buffer);
    row_builder_free(&extractor->builder);
    extractor->fields = NULL;
    extractor->variable_length = NULL;
    extractor->null_safe = NULL;
    extractor->fixed_buffer = NULL;
}

bool key_extractor_write_fixed(const KeyExtractor *extractor, const Row *row, uint64_t *out)
{
    uint32_t count = extractor->field_count;
    uint32_t bitmap_words = row_bitmap_words(count);
    RowHeader header = {.size = extractor->fixed_words * 8,
                        .field_count = (uint16_t)count,
                        .kind = ROW_KIND_INSERT,
                        .reserved = 0};
    memcpy(out, &header, sizeof header);
    uint64_t *bitmap = out + 1;
    uint64_t *slots = bitmap + bitmap_words;
    for (uint32_t w = 0; w < bitmap_words; w++)
        bitmap[w] = 0;
    bool has_null = false;
    for (uint32_t k = 0; k < count; k++) {
        uint32_t field = extractor->fields[k];
        if (row_is_null(row, field)) {
            bitmap[k / 64] |= (uint64_t)1 << (k % 64);
            slots[k] = 0;
            if (!extractor->null_safe[k])
                has_null = true;
        } else {
            slots[k] = row_get_slot(row, field);
        }
    }
    return has_null;
}

const Row *key_extractor_build(KeyExtractor *extractor, const Row *row, bool *has_null)
{
    if (extractor->fixed_width) {
        bool null_found = key_extractor_write_fixed(extractor, row, extractor->fixed_buffer);
        if (has_null)
            *has_null = null_found;
        return (const Row *)extractor->fixed_buffer;
    }
    RowBuilder *builder = &extractor->builder;
    bool null_found = false;
    row_builder_begin(builder, extractor->field_count, ROW_KIND_INSERT);
    for (uint32_t k = 0; k < extractor->field_count; k++) {
        uint32_t field = extractor->fields[k];
        if (!extractor->null_safe[k] && row_is_null(row, field))
            null_found = true;
        row_builder_copy_field(builder, k, row, field, extractor->variable_length[k]);
    }
    if (has_null)
        *has_null = null_found;
    return row_builder_finish(builder);
}
