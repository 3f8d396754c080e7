/*
 * state_memory.c - the in-memory keyed-state backend (see state.h).
 *
 * Multiset tables: open addressing over 16-byte slots {hash, key block},
 * linear probing, capacity a power of two, load at most 3/4, backward-shift
 * deletion (no tombstones; probe chains stay short after deletes); they
 * shrink when 1/8 full. A probe compares full 64-bit hashes in the slot
 * array and touches a key block only on a hash match, so a lookup costs one
 * miss on the (small) slot array and one on the key block.
 *
 * Key block (one allocation per key): for each of the state's parts a
 * MultisetKey and storage for one entry (entries points there while the
 * part's capacity is 1, so a part with one row needs no vector), then the
 * key row's bytes. Key blocks never move while their key is stored: slots
 * point to them. Per part the state counts keys, entries, expired entries
 * and payload bytes (rows, vectors, indexes) for per-input metrics.
 *
 * Memory: key blocks, entry rows, entry vectors and indexes come from a
 * per-state slab (size classes every 8 bytes up to 256, every 32 up to
 * 1024; larger blocks use malloc/realloc): no malloc per stored row or
 * small vector, no malloc bookkeeping to chase (glibc's free-chunk
 * consolidation cost ~20% with vectors on malloc at 1M keys). Freed blocks
 * go to their class's free list and are reused by the next block of the
 * class (outgrown vectors wait for other keys' vectors to grow into them);
 * when a class has no live block left its chunks are released, so an
 * emptied state goes back to its initial size. Chunks grow from 4 KiB to
 * 2 MiB per class; 2 MiB chunks (and large slot arrays) are huge-page
 * aligned and advised (MADV_HUGEPAGE), which cuts page faults and TLB
 * misses while state grows. Destroying a state frees chunks wholesale.
 *
 * Per-key index (when the capacity > INDEX_THRESHOLD): 2 * capacity slots
 * of two uint32 words {position + 1, the entry's 32-bit hash}; a probe
 * compares the tag without touching the entry vector.
 *
 * Invariants:
 * - every stored row (key, entry row, value) is a canonical row with kind
 *   +I, owned by the state;
 * - bytes (counters) = the state struct + slot array + slab chunks + blocks
 *   malloc'd above the slab's largest class: exactly what the state holds,
 *   apart from malloc's own bookkeeping;
 * - slab class `live` counts its blocks handed out and not freed;
 * - some part of a stored key has entries, except transiently between
 *   insert_key and the first add_row, or after the operator emptied a part
 *   and before it releases the key (release_key / remove_key);
 * - a part's entries == its inline entry iff its capacity is 1;
 * - key->index is NULL when the capacity <= INDEX_THRESHOLD (or when
 *   memory for it ran out: lookups then scan); when present it holds
 *   exactly one slot per entry;
 * - key->oldest_access <= last_access of every entry of the key.
 */
#include "engine/state/state.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

enum {
    TABLE_INITIAL_CAPACITY = 16,
    INDEX_THRESHOLD = 8,        /* entries before a key gets a hash index */
    KEY_MAX_CAPACITY = 1 << 26, /* entries of one key part: vector and index under 2^31 bytes */
    MALLOC_OVERHEAD = 16,       /* value state: estimated bytes of bookkeeping per malloc block */
    SLAB_FINE_LIMIT = 256,      /* size classes every 8 bytes up to here */
    SLAB_MAX_BLOCK = 1024,      /* size classes every 32 bytes up to here; larger: malloc */
    SLAB_CLASS_COUNT = SLAB_FINE_LIMIT / 8 + (SLAB_MAX_BLOCK - SLAB_FINE_LIMIT) / 32,
    SLAB_FIRST_CHUNK = 4096,
    HUGE_PAGE_SIZE = 2 << 20, /* also the largest slab chunk */
};

/* ---- configuration ---------------------------------------------------- */

void state_config_init(StateConfig *config)
{
    config->ttl_millis = 0;
    config->backend = "memory";
}

int state_config_validate(const StateConfig *config, Diag *diag)
{
    if (config->ttl_millis < 0)
        return diag_error(diag, JOINERY_ERROR_VALIDATE, "State TTL must not be negative: %lld ms",
                          (long long)config->ttl_millis);
    const char *backend = config->backend ? config->backend : "memory";
    if (strcmp(backend, "memory") == 0 || strcmp(backend, "hashmap") == 0)
        return JOINERY_OK;
    if (strcmp(backend, "lmdb") == 0 || strcmp(backend, "rocksdb") == 0)
        return diag_error(diag, JOINERY_ERROR_UNSUPPORTED,
                          "State backend '%s' is not supported yet; use 'memory'", backend);
    return diag_error(diag, JOINERY_ERROR_VALIDATE,
                      "Unknown state backend '%s' (supported: 'memory')", backend);
}

static inline uint64_t row_bytes(const Row *row)
{
    return (uint64_t)row_size(row) + MALLOC_OVERHEAD;
}

static Row *row_store_copy(const Row *row)
{
    Row *copy = row_copy_heap(row);
    if (copy)
        row_set_kind(copy, ROW_KIND_INSERT);
    return copy;
}

/* row_content_equals, inlined: small rows compare word by word. */
static inline bool state_row_equals(const Row *a, const Row *b)
{
    if (a->header.size != b->header.size || a->header.field_count != b->header.field_count)
        return false;
    uint32_t words = (a->header.size - (uint32_t)sizeof(RowHeader)) / 8;
    if (words > 8)
        return memcmp(a->words, b->words, (size_t)words * 8) == 0;
    for (uint32_t i = 0; i < words; i++)
        if (a->words[i] != b->words[i])
            return false;
    return true;
}

/* ---- large memory: huge-page backed when big enough ------------------- */

/* Allocates `size` bytes; sizes of a huge page or more are huge-page aligned and advised. */
static void *state_large_alloc(size_t size)
{
    if (size < HUGE_PAGE_SIZE)
        return malloc(size);
    size_t rounded = (size + HUGE_PAGE_SIZE - 1) & ~(size_t)(HUGE_PAGE_SIZE - 1);
    void *memory = aligned_alloc(HUGE_PAGE_SIZE, rounded);
#ifdef MADV_HUGEPAGE
    if (memory)
        (void)madvise(memory, rounded, MADV_HUGEPAGE); /* a hint: failure changes nothing */
#endif
    return memory;
}

/* Zeroed state_large_alloc. */
static void *state_large_calloc(size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size)
        return NULL;
    if (count * size < HUGE_PAGE_SIZE)
        return calloc(count, size);
    void *memory = state_large_alloc(count * size);
    if (memory)
        memset(memory, 0, count * size);
    return memory;
}

/* ---- slab: size-class allocator of state blocks ----------------------- */

typedef struct SlabChunk {
    struct SlabChunk *next;
    size_t size; /* bytes, header included */
} SlabChunk;

typedef struct SlabClass {
    void *free_list; /* freed blocks, linked through their first word */
    char *bump;      /* unused tail of the newest chunk */
    char *bump_end;
    SlabChunk *chunks;
    uint64_t live; /* blocks handed out and not freed */
    uint32_t next_chunk_size;
} SlabClass;

typedef struct Slab {
    SlabClass classes[SLAB_CLASS_COUNT];
    uint64_t chunk_bytes; /* all chunks of all classes */
    uint64_t heap_bytes;  /* blocks above SLAB_MAX_BLOCK (malloc'd) */
} Slab;

enum { SLAB_CHUNK_HEADER = (sizeof(SlabChunk) + 15) & ~(size_t)15 };

static inline uint32_t slab_class_of(uint32_t size)
{
    if (size <= SLAB_FINE_LIMIT)
        return size ? (size + 7) / 8 - 1 : 0;
    return SLAB_FINE_LIMIT / 8 + (size - SLAB_FINE_LIMIT + 31) / 32 - 1;
}

static inline uint32_t slab_class_size(uint32_t class_index)
{
    if (class_index < SLAB_FINE_LIMIT / 8)
        return (class_index + 1) * 8;
    return SLAB_FINE_LIMIT + (class_index - SLAB_FINE_LIMIT / 8 + 1) * 32;
}

static void slab_class_release(Slab *slab, SlabClass *class_)
{
    SlabChunk *chunk = class_->chunks;
    while (chunk) {
        SlabChunk *next = chunk->next;
        slab->chunk_bytes -= chunk->size;
        free(chunk);
        chunk = next;
    }
    memset(class_, 0, sizeof *class_);
}

/* Frees every chunk (blocks above SLAB_MAX_BLOCK are the caller's to free). */
static void slab_release_all(Slab *slab)
{
    for (uint32_t i = 0; i < SLAB_CLASS_COUNT; i++)
        slab_class_release(slab, &slab->classes[i]);
}

/* `size` bytes, 8-byte aligned; NULL when memory is exhausted. */
static void *slab_alloc(Slab *slab, uint32_t size)
{
    if (size > SLAB_MAX_BLOCK) {
        void *block = state_large_alloc(size);
        if (block)
            slab->heap_bytes += size;
        return block;
    }
    uint32_t class_index = slab_class_of(size);
    SlabClass *class_ = &slab->classes[class_index];
    void *block = class_->free_list;
    if (block) {
        memcpy(&class_->free_list, block, sizeof(void *));
        class_->live++;
        return block;
    }
    uint32_t block_size = slab_class_size(class_index);
    if ((size_t)(class_->bump_end - class_->bump) < block_size) {
        uint32_t chunk_size = class_->next_chunk_size ? class_->next_chunk_size : SLAB_FIRST_CHUNK;
        SlabChunk *chunk = state_large_alloc(chunk_size);
        if (!chunk)
            return NULL;
        chunk->next = class_->chunks;
        chunk->size = chunk_size;
        class_->chunks = chunk;
        class_->bump = (char *)chunk + SLAB_CHUNK_HEADER;
        class_->bump_end = (char *)chunk + chunk_size;
        class_->next_chunk_size = chunk_size < HUGE_PAGE_SIZE ? chunk_size * 2 : chunk_size;
        slab->chunk_bytes += chunk_size;
    }
    block = class_->bump;
    class_->bump += block_size;
    class_->live++;
    return block;
}

/* Gives back a block of `size` bytes (the size it was allocated with). */
static void slab_free(Slab *slab, void *block, uint32_t size)
{
    if (!block)
        return;
    if (size > SLAB_MAX_BLOCK) {
        slab->heap_bytes -= size;
        free(block);
        return;
    }
    SlabClass *class_ = &slab->classes[slab_class_of(size)];
    if (--class_->live == 0) {
        slab_class_release(slab, class_);
        return;
    }
    memcpy(block, &class_->free_list, sizeof(void *));
    class_->free_list = block;
}

/* A copy of `row` with kind +I in slab memory; NULL when memory is exhausted. */
static Row *slab_copy_row(Slab *slab, const Row *row)
{
    Row *copy = slab_alloc(slab, row_size(row));
    if (copy) {
        memcpy(copy, row, row_size(row));
        row_set_kind(copy, ROW_KIND_INSERT);
    }
    return copy;
}

static inline void slab_free_row(Slab *slab, Row *row)
{
    slab_free(slab, row, row_size(row));
}

/* ---- multiset state --------------------------------------------------- */

/* One part of a key: its header and room for one entry (64 bytes, MULTISET_PART_BYTES). */
typedef struct KeyPart {
    MultisetKey key;
    MultisetEntry inline_entry; /* the entries while the capacity is 1 */
} KeyPart;

/* A key's block: part_count KeyParts, then the key row's bytes. */
typedef struct KeyBlock {
    KeyPart parts[1]; /* part_count of them; a MultisetKey * of part 0 is its KeyBlock * */
} KeyBlock;

typedef struct MultisetSlot {
    uint64_t hash;   /* the key's row_content_hash */
    KeyBlock *block; /* NULL: empty slot */
} MultisetSlot;

/* What the state keeps per part of its keys. */
typedef struct PartFigures {
    int64_t ttl_millis;
    MultisetGroupHash group_hash; /* NULL: the part's rows are not grouped */
    const void *group_context;
    uint64_t keys;          /* keys with at least one entry in the part */
    uint64_t entries;       /* entries of the part */
    uint64_t expired;       /* entries of the part dropped by TTL */
    uint64_t payload_bytes; /* rows, vectors and indexes of the part */
} PartFigures;

struct MultisetState {
    MultisetSlot *slots;
    uint32_t capacity; /* power of two */
    uint32_t key_count;
    uint64_t entry_count;
    uint64_t expired;
    bool ttl_enabled; /* some part has a TTL */
    uint32_t part_count;
    uint32_t key_row_offset; /* bytes of the parts in a key block */
    uint32_t cleanup_cursor;
    Slab slab;
    PartFigures parts[]; /* part_count */
};

_Static_assert(sizeof(KeyPart) == MULTISET_PART_BYTES, "a key part is MULTISET_PART_BYTES");
_Static_assert(sizeof(MultisetKey) == 32 && sizeof(MultisetEntry) == 32, "compact state");

static inline KeyBlock *key_block_of(MultisetKey *key)
{
    return (KeyBlock *)key;
}

static inline const Row *block_key_row(const MultisetState *state, const KeyBlock *block)
{
    return (const Row *)((const char *)block + state->key_row_offset);
}

static inline uint32_t key_capacity(const MultisetKey *key)
{
    return 1u << key->capacity_log2;
}

/* The entry room inside the key part. */
static inline MultisetEntry *key_inline_entry(MultisetKey *key)
{
    return &((KeyPart *)key)->inline_entry;
}

/* Slots of the key's index (a power of two; valid while key->index is set). */
static inline uint32_t key_index_slots(const MultisetKey *key)
{
    return key_capacity(key) * 2;
}

static inline uint32_t key_block_size(const MultisetState *state, const Row *key_row)
{
    return state->key_row_offset + row_size(key_row);
}

static inline uint32_t entry_vector_size(uint32_t capacity)
{
    return capacity * (uint32_t)sizeof(MultisetEntry);
}

/* Bytes of a part's index of `slots` slots: the row index, then the group index if any. */
static inline uint32_t key_index_size(const MultisetState *state, const MultisetKey *key,
                                      uint32_t slots)
{
    uint32_t regions = state->parts[key->part].group_hash ? 2 : 1;
    return regions * slots * 2 * (uint32_t)sizeof(uint32_t);
}

static inline uint32_t capacity_log2_of(uint32_t capacity)
{
    return (uint32_t)__builtin_ctz(capacity);
}

MultisetState *multiset_state_create_parts(uint32_t part_count, const int64_t *ttl_millis)
{
    if (part_count == 0 || part_count > MULTISET_MAX_PARTS)
        return NULL;
    MultisetState *state = calloc(1, sizeof *state + part_count * sizeof(PartFigures));
    if (!state)
        return NULL;
    state->slots = calloc(TABLE_INITIAL_CAPACITY, sizeof(MultisetSlot));
    if (!state->slots) {
        free(state);
        return NULL;
    }
    state->capacity = TABLE_INITIAL_CAPACITY;
    state->part_count = part_count;
    state->key_row_offset = part_count * (uint32_t)sizeof(KeyPart);
    for (uint32_t p = 0; p < part_count; p++) {
        state->parts[p].ttl_millis = ttl_millis && ttl_millis[p] > 0 ? ttl_millis[p] : 0;
        if (state->parts[p].ttl_millis > 0)
            state->ttl_enabled = true;
    }
    return state;
}

MultisetState *multiset_state_create(int64_t ttl_millis)
{
    return multiset_state_create_parts(1, &ttl_millis);
}

/* Frees the part's vector and index (not its rows). */
static void multiset_key_free_vectors(MultisetState *state, MultisetKey *key)
{
    PartFigures *part = &state->parts[key->part];
    if (key_capacity(key) > 1) {
        slab_free(&state->slab, key->entries, entry_vector_size(key_capacity(key)));
        part->payload_bytes -= entry_vector_size(key_capacity(key));
    }
    if (key->index) {
        slab_free(&state->slab, key->index, key_index_size(state, key, key_index_slots(key)));
        part->payload_bytes -= key_index_size(state, key, key_index_slots(key));
    }
}

/* Frees every part's rows, vectors and indexes, and the block; updates the figures. */
static void multiset_key_free(MultisetState *state, KeyBlock *block)
{
    for (uint32_t p = 0; p < state->part_count; p++) {
        MultisetKey *key = &block->parts[p].key;
        PartFigures *part = &state->parts[p];
        for (uint32_t i = 0; i < key->entry_count; i++) {
            part->payload_bytes -= row_size(key->entries[i].row);
            slab_free_row(&state->slab, key->entries[i].row);
        }
        if (key->entry_count) {
            part->keys--;
            part->entries -= key->entry_count;
            state->entry_count -= key->entry_count;
        }
        multiset_key_free_vectors(state, key);
    }
    slab_free(&state->slab, block, key_block_size(state, block_key_row(state, block)));
}

void multiset_state_destroy(MultisetState *state)
{
    if (!state)
        return;
    /* slab chunks go wholesale; only blocks above the largest class are freed one by one */
    for (uint32_t i = 0; i < state->capacity; i++) {
        KeyBlock *block = state->slots[i].block;
        if (!block)
            continue;
        for (uint32_t p = 0; p < state->part_count; p++) {
            MultisetKey *key = &block->parts[p].key;
            for (uint32_t e = 0; e < key->entry_count; e++)
                if (row_size(key->entries[e].row) > SLAB_MAX_BLOCK)
                    free(key->entries[e].row);
            if (key_capacity(key) > 1 && entry_vector_size(key_capacity(key)) > SLAB_MAX_BLOCK)
                free(key->entries);
            if (key->index && key_index_size(state, key, key_index_slots(key)) > SLAB_MAX_BLOCK)
                free(key->index);
        }
        if (key_block_size(state, block_key_row(state, block)) > SLAB_MAX_BLOCK)
            free(block);
    }
    slab_release_all(&state->slab);
    free(state->slots);
    free(state);
}

/* Slot of the key, or of the empty slot where it would go. */
static inline uint32_t multiset_probe(const MultisetState *state, const Row *key, uint64_t hash)
{
    uint32_t mask = state->capacity - 1;
    uint32_t i = (uint32_t)hash & mask;
    for (;;) {
        const MultisetSlot *slot = &state->slots[i];
        if (!slot->block ||
            (slot->hash == hash && state_row_equals(block_key_row(state, slot->block), key)))
            return i;
        i = (i + 1) & mask;
    }
}

void multiset_state_prefetch(const MultisetState *state, uint64_t hash, uint64_t row_hash,
                             MultisetPrefetch level)
{
    uint32_t mask = state->capacity - 1;
    uint32_t i = (uint32_t)hash & mask;
    const MultisetSlot *slot = &state->slots[i];
    if (level == MULTISET_PREFETCH_SLOT) {
        __builtin_prefetch(slot);
        return;
    }
    /* the slot is in cache by now: find the key block by hash alone */
    for (uint32_t step = 0; step < 4 && slot->block; step++) {
        if (slot->hash == hash) {
            const KeyBlock *block = slot->block;
            if (level == MULTISET_PREFETCH_KEY) {
                __builtin_prefetch(block);
                __builtin_prefetch((const char *)block + 64);
                __builtin_prefetch((const char *)block_key_row(state, block));
                return;
            }
            const MultisetKey *key = &block->parts[0].key;
            if (key_capacity(key) == 1) {
                __builtin_prefetch(key->entries[0].row); /* the entry is in the block */
            } else {
                /* a small vector is scanned whole; a large one is reached through its index */
                const char *start = (const char *)key->entries;
                const char *end = (const char *)&key->entries[key->entry_count];
                if (!key->index)
                    for (const char *line = start; line < end; line += 64)
                        __builtin_prefetch(line);
                else
                    __builtin_prefetch(start);
                __builtin_prefetch(end); /* where add_row appends */
            }
            if (key->index)
                __builtin_prefetch(
                    &key->index[2 * ((uint32_t)row_hash & (key_index_slots(key) - 1))]);
            return;
        }
        i = (i + 1) & mask;
        slot = &state->slots[i];
    }
}

static bool multiset_resize(MultisetState *state, uint32_t capacity)
{
    MultisetSlot *slots = state_large_calloc(capacity, sizeof(MultisetSlot));
    if (!slots)
        return false;
    uint32_t mask = capacity - 1;
    for (uint32_t i = 0; i < state->capacity; i++) {
        const MultisetSlot *old = &state->slots[i];
        if (!old->block)
            continue;
        uint32_t j = (uint32_t)old->hash & mask;
        while (slots[j].block)
            j = (j + 1) & mask;
        slots[j] = *old;
    }
    free(state->slots);
    state->slots = slots;
    state->capacity = capacity;
    state->cleanup_cursor = 0;
    return true;
}

/* Removes the key in `slot` with backward-shift deletion; no shrinking. */
static void multiset_remove_slot(MultisetState *state, uint32_t slot)
{
    multiset_key_free(state, state->slots[slot].block);
    state->key_count--;

    uint32_t mask = state->capacity - 1;
    uint32_t hole = slot;
    uint32_t next = slot;
    for (;;) {
        next = (next + 1) & mask;
        MultisetSlot *candidate = &state->slots[next];
        if (!candidate->block)
            break;
        uint32_t home = (uint32_t)candidate->hash & mask;
        /* move it into the hole unless its home lies cyclically in (hole, next] */
        bool stays = hole <= next ? (home > hole && home <= next) : (home > hole || home <= next);
        if (!stays) {
            state->slots[hole] = *candidate;
            hole = next;
        }
    }
    state->slots[hole].block = NULL;
    state->slots[hole].hash = 0;
}

static void multiset_maybe_shrink(MultisetState *state)
{
    if (state->capacity <= TABLE_INITIAL_CAPACITY ||
        (uint64_t)state->key_count * 8 >= state->capacity)
        return;
    uint32_t capacity = state->capacity;
    while (capacity > TABLE_INITIAL_CAPACITY && (uint64_t)state->key_count * 4 < capacity / 2)
        capacity /= 2;
    (void)multiset_resize(state, capacity); /* failure: keep the larger table */
}

/* ---- the entries of one key part ---- */

/*
 * An index region: `slots` pairs {position + 1, tag} (0: empty) with linear
 * probing from tag & (slots - 1) and backward-shift deletion by the stored
 * tags. The row index's tags are the entries' hashes; the group index's
 * (grouped parts, right after the row index) the rows' group hashes, and a
 * tag may repeat there: a probe visits every slot up to the next empty one.
 */
static void index_insert(uint32_t *index, uint32_t slots, uint32_t tag, uint32_t position)
{
    uint32_t mask = slots - 1;
    uint32_t i = tag & mask;
    while (index[2 * i])
        i = (i + 1) & mask;
    index[2 * i] = position + 1;
    index[2 * i + 1] = tag;
}

static uint32_t index_slot_of(const uint32_t *index, uint32_t slots, uint32_t tag,
                              uint32_t position)
{
    uint32_t mask = slots - 1;
    uint32_t i = tag & mask;
    while (index[2 * i] != position + 1)
        i = (i + 1) & mask;
    return i;
}

static void index_delete_slot(uint32_t *index, uint32_t slots, uint32_t slot)
{
    uint32_t mask = slots - 1;
    uint32_t hole = slot;
    uint32_t next = slot;
    for (;;) {
        next = (next + 1) & mask;
        uint32_t value = index[2 * next];
        if (!value)
            break;
        uint32_t home = index[2 * next + 1] & mask;
        bool stays = hole <= next ? (home > hole && home <= next) : (home > hole || home <= next);
        if (!stays) {
            index[2 * hole] = value;
            index[2 * hole + 1] = index[2 * next + 1];
            hole = next;
        }
    }
    index[2 * hole] = 0;
    index[2 * hole + 1] = 0;
}

/* The group index of a grouped part with an index (after the row index), else NULL. */
static inline uint32_t *key_group_index(const MultisetState *state, const MultisetKey *key)
{
    if (!key->index || !state->parts[key->part].group_hash)
        return NULL;
    return key->index + 2 * key_index_slots(key);
}

static inline uint32_t key_group_tag(const MultisetState *state, const MultisetKey *key,
                                     const Row *row)
{
    const PartFigures *part = &state->parts[key->part];
    return part->group_hash(row, part->group_context);
}

/* Enters entry `position` into the part's indexes. */
static void key_index_add(const MultisetState *state, MultisetKey *key, uint32_t position)
{
    uint32_t slots = key_index_slots(key);
    index_insert(key->index, slots, key->entries[position].hash, position);
    uint32_t *group = key_group_index(state, key);
    if (group)
        index_insert(group, slots, key_group_tag(state, key, key->entries[position].row), position);
}

/* Takes entry `position` out of the part's indexes and renumbers `last` to `position`. */
static void key_index_remove(const MultisetState *state, MultisetKey *key, uint32_t position,
                             uint32_t last)
{
    uint32_t slots = key_index_slots(key);
    const MultisetEntry *entries = key->entries;
    index_delete_slot(key->index, slots,
                      index_slot_of(key->index, slots, entries[position].hash, position));
    if (position != last)
        key->index[2 * index_slot_of(key->index, slots, entries[last].hash, last)] = position + 1;
    uint32_t *group = key_group_index(state, key);
    if (!group)
        return;
    index_delete_slot(
        group, slots,
        index_slot_of(group, slots, key_group_tag(state, key, entries[position].row), position));
    if (position != last)
        group[2 * index_slot_of(group, slots, key_group_tag(state, key, entries[last].row), last)] =
            position + 1;
}

/*
 * Rebuilds (or drops) the index for the current capacity; the old index,
 * if any, had `old_slots` slots.
 */
static bool key_index_rebuild(MultisetState *state, MultisetKey *key, uint32_t old_slots)
{
    PartFigures *part = &state->parts[key->part];
    if (key->index) {
        slab_free(&state->slab, key->index, key_index_size(state, key, old_slots));
        part->payload_bytes -= key_index_size(state, key, old_slots);
        key->index = NULL;
    }
    if (key_capacity(key) <= INDEX_THRESHOLD)
        return true;
    uint32_t slots = key_index_slots(key);
    uint32_t bytes = key_index_size(state, key, slots);
    uint32_t *index = slab_alloc(&state->slab, bytes);
    if (!index)
        return false;
    memset(index, 0, bytes);
    part->payload_bytes += bytes;
    key->index = index;
    for (uint32_t i = 0; i < key->entry_count; i++)
        key_index_add(state, key, i);
    return true;
}

/* Moves the entries into a vector of `capacity` (1: the inline entry) and rebuilds the index. */
static bool key_set_capacity(MultisetState *state, MultisetKey *key, uint32_t capacity)
{
    PartFigures *part = &state->parts[key->part];
    uint32_t old_capacity = key_capacity(key);
    uint32_t old_index_slots = key_index_slots(key);
    MultisetEntry *entries;
    if (capacity == 1) {
        entries = key_inline_entry(key);
    } else if (old_capacity > 1 && entry_vector_size(old_capacity) > SLAB_MAX_BLOCK &&
               entry_vector_size(capacity) > SLAB_MAX_BLOCK) {
        entries = realloc(key->entries, entry_vector_size(capacity));
        if (!entries)
            return false;
        state->slab.heap_bytes += entry_vector_size(capacity);
        state->slab.heap_bytes -= entry_vector_size(old_capacity);
        part->payload_bytes += entry_vector_size(capacity);
        part->payload_bytes -= entry_vector_size(old_capacity);
        key->entries = entries;
        key->capacity_log2 = (uint8_t)capacity_log2_of(capacity);
        (void)key_index_rebuild(state, key, old_index_slots); /* no memory: linear search */
        return true;
    } else {
        entries = slab_alloc(&state->slab, entry_vector_size(capacity));
        if (!entries)
            return false;
        part->payload_bytes += entry_vector_size(capacity);
    }
    if (entries != key->entries) {
        memcpy(entries, key->entries, (size_t)key->entry_count * sizeof(MultisetEntry));
        if (old_capacity > 1) {
            slab_free(&state->slab, key->entries, entry_vector_size(old_capacity));
            part->payload_bytes -= entry_vector_size(old_capacity);
        }
    }
    key->entries = entries;
    key->capacity_log2 = (uint8_t)capacity_log2_of(capacity);
    (void)key_index_rebuild(state, key, old_index_slots); /* no memory: linear search */
    return true;
}

MultisetEntry *multiset_key_find_row(const MultisetKey *key, const Row *row, uint64_t hash)
{
    uint32_t tag = (uint32_t)hash; /* what entries keep of the hash */
    if (key->index) {
        uint32_t mask = key_index_slots(key) - 1;
        uint32_t i = tag & mask;
        for (uint32_t value; (value = key->index[2 * i]) != 0; i = (i + 1) & mask) {
            if (key->index[2 * i + 1] != tag)
                continue;
            MultisetEntry *entry = &key->entries[value - 1];
            if (state_row_equals(entry->row, row))
                return entry;
        }
        return NULL;
    }
    for (uint32_t i = 0; i < key->entry_count; i++) {
        MultisetEntry *entry = &key->entries[i];
        if (entry->hash == tag && state_row_equals(entry->row, row))
            return entry;
    }
    return NULL;
}

void multiset_state_set_group_hash(MultisetState *state, uint32_t part, MultisetGroupHash hash,
                                   const void *context)
{
    if (part >= state->part_count || state->key_count > 0)
        return;
    state->parts[part].group_hash = hash;
    state->parts[part].group_context = context;
}

void multiset_key_group_scan_begin(const MultisetState *state, const MultisetKey *key,
                                   uint32_t group_hash, MultisetGroupScan *scan)
{
    scan->key = key;
    scan->group = key_group_index(state, key);
    scan->tag = group_hash;
    scan->slots = key_index_slots(key);
    scan->position = scan->group ? group_hash & (scan->slots - 1) : 0;
}

MultisetEntry *multiset_key_group_scan_next(MultisetGroupScan *scan)
{
    const MultisetKey *key = scan->key;
    if (!scan->group) /* a small part: every entry is a candidate */
        return scan->position < key->entry_count ? &key->entries[scan->position++] : NULL;
    uint32_t mask = scan->slots - 1;
    for (;;) {
        uint32_t i = scan->position;
        uint32_t value = scan->group[2 * i];
        if (!value)
            return NULL;
        scan->position = (i + 1) & mask;
        if (scan->group[2 * i + 1] == scan->tag)
            return &key->entries[value - 1];
    }
}

MultisetEntry *multiset_key_add_row(MultisetState *state, MultisetKey *key, const Row *row,
                                    uint64_t hash, int64_t now)
{
    if (key->entry_count == key_capacity(key)) {
        uint32_t capacity = key_capacity(key) * 2;
        /* vectors and indexes stay below 2^32 bytes (32-bit sizes): at most 2^26 entries */
        if (capacity > KEY_MAX_CAPACITY || !key_set_capacity(state, key, capacity))
            return NULL;
    }
    Row *copy = slab_copy_row(&state->slab, row);
    if (!copy)
        return NULL;
    PartFigures *part = &state->parts[key->part];
    uint32_t position = key->entry_count++;
    MultisetEntry *entry = &key->entries[position];
    entry->row = copy;
    entry->hash = (uint32_t)hash;
    entry->count = 0;
    entry->association_count = 0;
    entry->last_access = now;
    if (key->index)
        key_index_add(state, key, position);
    if (now < key->oldest_access || key->entry_count == 1)
        key->oldest_access = now;
    if (key->entry_count == 1)
        part->keys++;
    part->entries++;
    part->payload_bytes += row_size(copy);
    state->entry_count++;
    return entry;
}

void multiset_key_remove_entry(MultisetState *state, MultisetKey *key, MultisetEntry *entry)
{
    PartFigures *part = &state->parts[key->part];
    uint32_t position = (uint32_t)(entry - key->entries);
    uint32_t last = key->entry_count - 1;
    if (key->index)
        key_index_remove(state, key, position, last);
    part->payload_bytes -= row_size(entry->row);
    slab_free_row(&state->slab, entry->row);
    if (position != last)
        key->entries[position] = key->entries[last];
    key->entry_count--;
    part->entries--;
    if (key->entry_count == 0)
        part->keys--;
    state->entry_count--;
    /* give memory back when the vector is mostly empty */
    if (key_capacity(key) > 4 && key->entry_count * 4 < key_capacity(key))
        (void)key_set_capacity(state, key, key_capacity(key) / 2);
}

/* Drops the expired entries of a key part; returns how many. */
static uint64_t multiset_key_expire(MultisetState *state, MultisetKey *key, int64_t now)
{
    PartFigures *part = &state->parts[key->part];
    uint64_t dropped = 0;
    int64_t oldest = INT64_MAX;
    for (uint32_t i = key->entry_count; i-- > 0;) {
        MultisetEntry *entry = &key->entries[i];
        if (state_is_expired(part->ttl_millis, entry->last_access, now)) {
            multiset_key_remove_entry(state, key, entry);
            dropped++;
        }
    }
    for (uint32_t i = 0; i < key->entry_count; i++)
        if (key->entries[i].last_access < oldest)
            oldest = key->entries[i].last_access;
    key->oldest_access = oldest;
    part->expired += dropped;
    state->expired += dropped;
    return dropped;
}

/*
 * Expires the parts of the block whose oldest entry is due; returns the
 * entries dropped and sets *empty when no part has an entry left.
 */
static uint64_t multiset_block_expire(MultisetState *state, KeyBlock *block, int64_t now,
                                      bool *empty)
{
    uint64_t dropped = 0;
    bool any = false;
    for (uint32_t p = 0; p < state->part_count; p++) {
        MultisetKey *key = &block->parts[p].key;
        if (key->entry_count &&
            state_is_expired(state->parts[p].ttl_millis, key->oldest_access, now))
            dropped += multiset_key_expire(state, key, now);
        if (key->entry_count)
            any = true;
    }
    *empty = !any;
    return dropped;
}

MultisetKey *multiset_state_find(MultisetState *state, const Row *key, uint64_t hash, int64_t now)
{
    uint32_t slot = multiset_probe(state, key, hash);
    KeyBlock *block = state->slots[slot].block;
    if (!block)
        return NULL;
    if (state->ttl_enabled) {
        bool empty;
        if (multiset_block_expire(state, block, now, &empty) > 0 && empty) {
            multiset_remove_slot(state, slot);
            multiset_maybe_shrink(state);
            return NULL;
        }
    }
    return &block->parts[0].key;
}

MultisetKey *multiset_state_insert_key(MultisetState *state, const Row *key, uint64_t hash,
                                       int64_t now)
{
    MultisetKey *found = multiset_state_find(state, key, hash, now);
    if (found)
        return found;
    if ((uint64_t)(state->key_count + 1) * 4 > (uint64_t)state->capacity * 3) {
        if (state->capacity >= (1u << 31) || !multiset_resize(state, state->capacity * 2))
            return NULL;
    }
    KeyBlock *block = slab_alloc(&state->slab, key_block_size(state, key));
    if (!block)
        return NULL;
    memset(block, 0, state->key_row_offset);
    Row *key_copy = (Row *)((char *)block + state->key_row_offset);
    memcpy(key_copy, key, row_size(key));
    row_set_kind(key_copy, ROW_KIND_INSERT);
    for (uint32_t p = 0; p < state->part_count; p++) {
        MultisetKey *part = &block->parts[p].key;
        part->entries = key_inline_entry(part);
        part->capacity_log2 = 0;
        part->part = (uint8_t)p;
        part->oldest_access = now;
    }
    uint32_t slot = multiset_probe(state, key, hash);
    state->slots[slot].hash = hash;
    state->slots[slot].block = block;
    state->key_count++;
    return &block->parts[0].key;
}

MultisetKey *multiset_key_part(MultisetKey *key, uint32_t part)
{
    return &((KeyPart *)key)[part].key;
}

void multiset_state_remove_key(MultisetState *state, MultisetKey *key)
{
    KeyBlock *block = key_block_of(key);
    uint32_t mask = state->capacity - 1;
    uint32_t slot = (uint32_t)row_content_hash(block_key_row(state, block)) & mask;
    while (state->slots[slot].block != block)
        slot = (slot + 1) & mask;
    multiset_remove_slot(state, slot);
    multiset_maybe_shrink(state);
}

void multiset_state_release_key(MultisetState *state, MultisetKey *key)
{
    KeyBlock *block = key_block_of(key);
    for (uint32_t p = 0; p < state->part_count; p++)
        if (block->parts[p].key.entry_count)
            return;
    multiset_state_remove_key(state, key);
}

uint64_t multiset_state_cleanup(MultisetState *state, int64_t now, uint32_t max_keys)
{
    if (!state->ttl_enabled)
        return 0;
    uint64_t dropped = 0;
    uint32_t examined = 0;
    uint32_t slot = state->cleanup_cursor & (state->capacity - 1);
    while (examined < max_keys && examined < state->capacity) {
        examined++;
        KeyBlock *block = state->slots[slot].block;
        if (block) {
            bool empty;
            dropped += multiset_block_expire(state, block, now, &empty);
            if (empty) {
                multiset_remove_slot(state, slot);
                examined--; /* another key may have shifted into this slot: look again */
                continue;
            }
        }
        slot = (slot + 1) & (state->capacity - 1);
    }
    state->cleanup_cursor = slot;
    multiset_maybe_shrink(state);
    return dropped;
}

StateCounters multiset_state_counters(const MultisetState *state)
{
    StateCounters counters;
    counters.bytes = sizeof *state + state->part_count * sizeof(PartFigures) +
                     (uint64_t)state->capacity * sizeof(MultisetSlot) + state->slab.chunk_bytes +
                     state->slab.heap_bytes;
    counters.keys = state->key_count;
    counters.entries = state->entry_count;
    counters.expired = state->expired;
    return counters;
}

StateCounters multiset_state_part_counters(const MultisetState *state, uint32_t part)
{
    StateCounters counters = {0, 0, 0, 0};
    if (part >= state->part_count)
        return counters;
    const PartFigures *figures = &state->parts[part];
    counters.keys = figures->keys;
    counters.entries = figures->entries;
    counters.expired = figures->expired;
    /* the part's own payload, plus a share of what its keys have in common (table, key
       blocks, slab slack) in proportion to the keys it is present in */
    StateCounters total = multiset_state_counters(state);
    uint64_t payload = 0, keys = 0;
    for (uint32_t p = 0; p < state->part_count; p++) {
        payload += state->parts[p].payload_bytes;
        keys += state->parts[p].keys;
    }
    uint64_t shared = total.bytes > payload ? total.bytes - payload : 0;
    counters.bytes = figures->payload_bytes +
                     (keys ? (uint64_t)((double)shared * (double)figures->keys / (double)keys)
                           : (part == 0 ? shared : 0));
    return counters;
}

/* ---- value state ------------------------------------------------------ */

struct ValueState {
    ValueEntry *slots;
    uint32_t capacity;
    uint32_t key_count;
    uint64_t payload_bytes;
    uint64_t expired;
    int64_t ttl_millis;
    uint32_t cleanup_cursor;
};

ValueState *value_state_create(int64_t ttl_millis)
{
    ValueState *state = calloc(1, sizeof *state);
    if (!state)
        return NULL;
    state->slots = calloc(TABLE_INITIAL_CAPACITY, sizeof(ValueEntry));
    if (!state->slots) {
        free(state);
        return NULL;
    }
    state->capacity = TABLE_INITIAL_CAPACITY;
    state->ttl_millis = ttl_millis > 0 ? ttl_millis : 0;
    return state;
}

void value_state_destroy(ValueState *state)
{
    if (!state)
        return;
    for (uint32_t i = 0; i < state->capacity; i++) {
        free(state->slots[i].key);
        free(state->slots[i].value);
    }
    free(state->slots);
    free(state);
}

static uint64_t value_entry_bytes(const ValueEntry *entry)
{
    uint64_t bytes = row_bytes(entry->key);
    if (entry->value)
        bytes += (uint64_t)entry->value_capacity + MALLOC_OVERHEAD;
    return bytes;
}

static uint32_t value_probe(const ValueState *state, const Row *key, uint64_t hash)
{
    uint32_t mask = state->capacity - 1;
    uint32_t i = (uint32_t)hash & mask;
    for (;;) {
        const ValueEntry *slot = &state->slots[i];
        if (!slot->key || (slot->hash == hash && row_content_equals(slot->key, key)))
            return i;
        i = (i + 1) & mask;
    }
}

static bool value_resize(ValueState *state, uint32_t capacity)
{
    ValueEntry *slots = calloc(capacity, sizeof(ValueEntry));
    if (!slots)
        return false;
    uint32_t mask = capacity - 1;
    for (uint32_t i = 0; i < state->capacity; i++) {
        ValueEntry *old = &state->slots[i];
        if (!old->key)
            continue;
        uint32_t j = (uint32_t)old->hash & mask;
        while (slots[j].key)
            j = (j + 1) & mask;
        slots[j] = *old;
    }
    free(state->slots);
    state->slots = slots;
    state->capacity = capacity;
    state->cleanup_cursor = 0;
    return true;
}

static void value_remove_slot(ValueState *state, uint32_t slot)
{
    ValueEntry *entry = &state->slots[slot];
    state->payload_bytes -= value_entry_bytes(entry);
    free(entry->key);
    free(entry->value);
    state->key_count--;
    uint32_t mask = state->capacity - 1;
    uint32_t hole = slot;
    uint32_t next = slot;
    for (;;) {
        next = (next + 1) & mask;
        ValueEntry *candidate = &state->slots[next];
        if (!candidate->key)
            break;
        uint32_t home = (uint32_t)candidate->hash & mask;
        bool stays = hole <= next ? (home > hole && home <= next) : (home > hole || home <= next);
        if (!stays) {
            state->slots[hole] = *candidate;
            hole = next;
        }
    }
    memset(&state->slots[hole], 0, sizeof(ValueEntry));
}

static void value_maybe_shrink(ValueState *state)
{
    if (state->capacity <= TABLE_INITIAL_CAPACITY ||
        (uint64_t)state->key_count * 8 >= state->capacity)
        return;
    uint32_t capacity = state->capacity;
    while (capacity > TABLE_INITIAL_CAPACITY && (uint64_t)state->key_count * 4 < capacity / 2)
        capacity /= 2;
    (void)value_resize(state, capacity); /* failure: keep the larger table */
}

ValueEntry *value_state_find(ValueState *state, const Row *key, uint64_t hash, int64_t now)
{
    uint32_t slot = value_probe(state, key, hash);
    ValueEntry *found = &state->slots[slot];
    if (!found->key)
        return NULL;
    if (state_is_expired(state->ttl_millis, found->last_access, now)) {
        state->expired++;
        value_remove_slot(state, slot);
        value_maybe_shrink(state);
        return NULL;
    }
    return found;
}

ValueEntry *value_state_insert(ValueState *state, const Row *key, uint64_t hash, int64_t now)
{
    if ((uint64_t)(state->key_count + 1) * 4 > (uint64_t)state->capacity * 3) {
        if (state->capacity >= (1u << 31) || !value_resize(state, state->capacity * 2))
            return NULL;
    }
    Row *copy = row_store_copy(key);
    if (!copy)
        return NULL;
    uint32_t slot = value_probe(state, key, hash);
    ValueEntry *entry = &state->slots[slot];
    memset(entry, 0, sizeof *entry);
    entry->key = copy;
    entry->hash = hash;
    entry->last_access = now;
    state->key_count++;
    state->payload_bytes += value_entry_bytes(entry);
    return entry;
}

int value_state_set(ValueState *state, ValueEntry *entry, const Row *value, int64_t now)
{
    uint32_t size = row_size(value);
    if (!entry->value || entry->value_capacity < size || entry->value_capacity > size * 2) {
        Row *copy = malloc(size);
        if (!copy)
            return JOINERY_ERROR_NO_MEMORY;
        state->payload_bytes -= value_entry_bytes(entry);
        free(entry->value);
        entry->value = copy;
        entry->value_capacity = size;
        state->payload_bytes += value_entry_bytes(entry);
    }
    memcpy(entry->value, value, size);
    row_set_kind(entry->value, ROW_KIND_INSERT);
    entry->last_access = now;
    return JOINERY_OK;
}

void value_state_remove(ValueState *state, ValueEntry *entry)
{
    value_remove_slot(state, (uint32_t)(entry - state->slots));
    value_maybe_shrink(state);
}

uint64_t value_state_cleanup(ValueState *state, int64_t now, uint32_t max_keys)
{
    if (state->ttl_millis <= 0)
        return 0;
    uint64_t dropped = 0;
    uint32_t examined = 0;
    uint32_t slot = state->cleanup_cursor & (state->capacity - 1);
    while (examined < max_keys && examined < state->capacity) {
        examined++;
        ValueEntry *entry = &state->slots[slot];
        if (entry->key && state_is_expired(state->ttl_millis, entry->last_access, now)) {
            value_remove_slot(state, slot);
            dropped++;
            examined--; /* another key may have shifted into this slot: look again */
            continue;
        }
        slot = (slot + 1) & (state->capacity - 1);
    }
    state->cleanup_cursor = slot;
    state->expired += dropped;
    value_maybe_shrink(state);
    return dropped;
}

StateCounters value_state_counters(const ValueState *state)
{
    StateCounters counters;
    counters.bytes =
        state->payload_bytes + (uint64_t)state->capacity * sizeof(ValueEntry) + sizeof *state;
    counters.keys = state->key_count;
    counters.entries = state->key_count;
    counters.expired = state->expired;
    return counters;
}
