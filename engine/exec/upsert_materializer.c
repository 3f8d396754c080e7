/*
 * upsert_materializer.c - a sink's rows per primary key (see
 * upsert_materializer.h for the rules and the state's layout).
 */
#include "engine/exec/upsert_materializer.h"

#include <stdlib.h>

#include "engine/base/arena.h"
#include "engine/base/byte_stream.h"
#include "engine/exec/key_extractor.h"

struct UpsertMaterializer {
    MultisetState *state;
    KeyExtractor key;
    int64_t sequence; /* of the latest arrival */
    Arena arena;      /* the rows handed out by the last apply */
    RowBatch out;
    uint64_t skipped;
};

UpsertMaterializer *upsert_materializer_create(const UpsertMaterializerSpec *spec,
                                               StateStore *store, Diag *diag)
{
    UpsertMaterializer *materializer = calloc(1, sizeof *materializer);
    if (!materializer || !key_extractor_init(&materializer->key, spec->key_count, spec->key_fields,
                                             spec->types, NULL)) {
        free(materializer);
        diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        return NULL;
    }
    arena_init(&materializer->arena, 4096);
    materializer->state = multiset_state_create(store, spec->ttl_millis);
    if (!materializer->state) {
        diag_error(diag,
                   state_store_error_status(store) ? state_store_error_status(store)
                                                   : JOINERY_ERROR_NO_MEMORY,
                   "Sink: the upsert materializer's state could not be created: %s",
                   state_store_error(store));
        upsert_materializer_destroy(materializer);
        return NULL;
    }
    return materializer;
}

/* Appends a copy of `row` of kind `kind` to the rows handed out. */
static int hand_out(UpsertMaterializer *materializer, const Row *row, RowKind kind)
{
    RowBatch *out = &materializer->out;
    if (out->count == out->capacity) {
        uint32_t capacity = out->capacity ? out->capacity * 2 : 64;
        Row **rows = realloc(out->rows, capacity * sizeof *rows);
        if (!rows)
            return JOINERY_ERROR_NO_MEMORY;
        out->rows = rows;
        out->capacity = capacity;
    }
    Row *copy = row_copy(&materializer->arena, row);
    if (!copy)
        return JOINERY_ERROR_NO_MEMORY;
    row_set_kind(copy, kind);
    out->rows[out->count++] = copy;
    return JOINERY_OK;
}

/*
 * The sequence number of the key's latest row (its entry with the highest
 * one; 0: none), and with `row` non-NULL a copy of that row in the arena
 * (entries are views valid only during the scan); *row NULL on no memory.
 */
static int64_t scan_latest(UpsertMaterializer *materializer, MultisetKey *key, const Row **row)
{
    MultisetScan scan;
    multiset_scan_begin(materializer->state, key, &scan);
    int64_t latest = 0;
    const MultisetEntry *entry;
    while ((entry = multiset_scan_next(&scan)))
        if (entry->association_count > latest) {
            latest = entry->association_count;
            if (row)
                *row = row_copy(&materializer->arena, entry->row);
        }
    multiset_scan_end(&scan);
    return latest;
}

/* Hands out the key's latest row (after a removal) as +U. */
static int hand_out_latest(UpsertMaterializer *materializer, MultisetKey *key)
{
    const Row *latest = NULL;
    scan_latest(materializer, key, &latest);
    return latest ? hand_out(materializer, latest, ROW_KIND_UPDATE_AFTER) : JOINERY_ERROR_NO_MEMORY;
}

static int add_row(UpsertMaterializer *materializer, const Row *row, const Row *key,
                   uint64_t key_hash, int64_t now)
{
    MultisetState *state = materializer->state;
    MultisetKey *part = multiset_state_find(state, key, key_hash, now);
    if (!part && state_store_failed(state->store))
        return JOINERY_ERROR_NO_MEMORY;
    if (!part)
        part = multiset_state_insert_key(state, key, key_hash, now);
    if (!part)
        return JOINERY_ERROR_NO_MEMORY;
    bool empty = part->entry_count == 0;
    uint64_t row_hash = row_content_hash(row);
    const MultisetEntry *entry = multiset_key_find_row(state, part, row, row_hash);
    int64_t sequence = ++materializer->sequence;
    if (entry) {
        if (!multiset_count_can_add(entry->count, 1) ||
            multiset_entry_update(state, part, entry, entry->count + 1, sequence, now) !=
                JOINERY_OK)
            return JOINERY_ERROR_NO_MEMORY;
    } else if (state_store_failed(state->store) ||
               !multiset_key_add_row(state, part, row, row_hash, 1, sequence, now)) {
        return JOINERY_ERROR_NO_MEMORY;
    }
    return hand_out(materializer, row, empty ? ROW_KIND_INSERT : ROW_KIND_UPDATE_AFTER);
}

static int remove_row(UpsertMaterializer *materializer, const Row *row, const Row *key,
                      uint64_t key_hash, int64_t now)
{
    MultisetState *state = materializer->state;
    MultisetKey *part = multiset_state_find(state, key, key_hash, now);
    if (!part && state_store_failed(state->store))
        return JOINERY_ERROR_NO_MEMORY;
    const MultisetEntry *entry =
        part ? multiset_key_find_row(state, part, row, row_content_hash(row)) : NULL;
    if (!entry) {
        if (state_store_failed(state->store))
            return JOINERY_ERROR_NO_MEMORY;
        materializer->skipped++;
        return JOINERY_OK;
    }
    if (entry->count > 1) /* its last copy stays: the order does not change */
        return multiset_entry_update(state, part, entry, entry->count - 1, entry->association_count,
                                     now) == JOINERY_OK
                   ? JOINERY_OK
                   : JOINERY_ERROR_NO_MEMORY;
    int64_t removed = entry->association_count;
    bool was_latest = scan_latest(materializer, part, NULL) == removed;
    /* the latest scan ended: find the entry again before removing it */
    entry = multiset_key_find_row(state, part, row, row_content_hash(row));
    if (!entry || multiset_key_remove_entry(state, part, entry) != JOINERY_OK)
        return JOINERY_ERROR_NO_MEMORY;
    if (part->entry_count == 0) {
        if (multiset_state_release_key(state, part) != JOINERY_OK)
            return JOINERY_ERROR_NO_MEMORY;
        return hand_out(materializer, row, ROW_KIND_DELETE);
    }
    return was_latest ? hand_out_latest(materializer, part) : JOINERY_OK;
}

int upsert_materializer_apply(UpsertMaterializer *materializer, const RowBatch *batch, int64_t now,
                              const RowBatch **out)
{
    arena_reset(&materializer->arena);
    materializer->out.count = 0;
    *out = &materializer->out;
    for (uint32_t r = 0; r < batch->count; r++) {
        const Row *row = batch->rows[r];
        const Row *key = key_extractor_build(&materializer->key, row, NULL);
        if (!key)
            return JOINERY_ERROR_NO_MEMORY;
        uint64_t hash = row_content_hash(key);
        RowKind kind = row_kind(row);
        int status = kind == ROW_KIND_INSERT || kind == ROW_KIND_UPDATE_AFTER
                         ? add_row(materializer, row, key, hash, now)
                         : remove_row(materializer, row, key, hash, now);
        if (status != JOINERY_OK)
            return status;
    }
    return JOINERY_OK;
}

uint64_t upsert_materializer_skipped(const UpsertMaterializer *materializer)
{
    return materializer->skipped;
}

uint64_t upsert_materializer_cleanup(UpsertMaterializer *materializer, int64_t now,
                                     uint32_t max_keys)
{
    return multiset_state_cleanup(materializer->state, now, max_keys);
}

StateCounters upsert_materializer_counters(const UpsertMaterializer *materializer)
{
    return multiset_state_counters(materializer->state);
}

int upsert_materializer_snapshot(UpsertMaterializer *materializer, const StateWriter *writer,
                                 Diag *diag)
{
    if (byte_write_int64(writer, materializer->sequence) != JOINERY_OK)
        return diag_error(diag, JOINERY_ERROR, "could not write a state snapshot");
    return multiset_state_snapshot(materializer->state, writer, diag);
}

int upsert_materializer_restore(UpsertMaterializer *materializer, const StateReader *reader,
                                Diag *diag)
{
    if (byte_read_int64(reader, &materializer->sequence) != JOINERY_OK)
        return diag_error(diag, JOINERY_ERROR,
                          "the state snapshot of the sink's upsert materializer is cut short");
    return multiset_state_restore(materializer->state, reader, diag);
}

void upsert_materializer_destroy(UpsertMaterializer *materializer)
{
    if (!materializer)
        return;
    multiset_state_destroy(materializer->state);
    key_extractor_free(&materializer->key);
    arena_destroy(&materializer->arena);
    free(materializer->out.rows);
    free(materializer);
}
