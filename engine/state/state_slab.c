/*
 * state_slab.c - memory of the hashmap backend: accounting against the
 * job's budget, large (huge-page) blocks, and the per-state slab allocator
 * (see state_hashmap_internal.h).
 *
 * Slab: size classes every 8 bytes up to 256, every 32 up to 1024; larger
 * blocks are state_large_alloc'd. Chunks grow from 4 KiB to 2 MiB per
 * class; 2 MiB chunks are huge-page aligned and advised (MADV_HUGEPAGE),
 * which cuts page faults and TLB misses while state grows. Freed blocks go
 * to their class's free list and are reused by the next block of the class;
 * a class with no live block left gives its chunks back, so an emptied
 * state returns to its initial size.
 *
 * Budget: chunks, large blocks and table slot arrays are reserved in the
 * job's StateBudget before they are allocated (one atomic add per chunk,
 * not per row), so the budget's `used` is what hashmap state holds.
 *
 * Invariants: class `live` counts its blocks handed out and not freed;
 * chunk_bytes is the sum of the chunks' sizes, heap_bytes of the large
 * blocks'.
 */
#include "engine/state/state_hashmap_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

enum { SLAB_FIRST_CHUNK = 4096 };

struct SlabChunk {
    struct SlabChunk *next;
    size_t size; /* bytes, header included */
};

enum { SLAB_CHUNK_HEADER = (sizeof(SlabChunk) + 15) & ~(size_t)15 };

/* ---- accounting -------------------------------------------------------- */

static void state_format_mib(char *out, size_t size, uint64_t bytes)
{
    snprintf(out, size, "%.1f MiB", (double)bytes / (1024.0 * 1024.0));
}

bool state_memory_take(const StateMemory *memory, uint64_t bytes)
{
    StateBudget *budget = memory->budget;
    if (!budget)
        return true;
    uint64_t used = atomic_fetch_add(&budget->used, bytes) + bytes;
    if (!budget->limit || used <= budget->limit)
        return true;
    atomic_fetch_sub(&budget->used, bytes);
    if (memory->store) {
        char limit[32];
        state_format_mib(limit, sizeof limit, budget->limit);
        state_store_set_error(memory->store, JOINERY_ERROR_NO_MEMORY,
                              "the job's hashmap state reached its limit of %s (%s); set "
                              "'state.backend.type' = 'lmdb' for state larger than memory, or "
                              "bound the state with 'table.exec.state.ttl' or a time-bounded join",
                              limit, budget->source);
    }
    return false;
}

void state_memory_give(const StateMemory *memory, uint64_t bytes)
{
    if (memory->budget)
        atomic_fetch_sub(&memory->budget->used, bytes);
}

void state_memory_exhausted(const StateMemory *memory)
{
    if (memory->store)
        state_store_set_error(memory->store, JOINERY_ERROR_NO_MEMORY, "out of memory");
}

/* ---- large blocks ------------------------------------------------------ */

static size_t state_large_rounded(size_t size)
{
    if (size < HUGE_PAGE_SIZE)
        return size;
    return (size + HUGE_PAGE_SIZE - 1) & ~(size_t)(HUGE_PAGE_SIZE - 1);
}

void *state_large_alloc(const StateMemory *memory, size_t size)
{
    size_t rounded = state_large_rounded(size);
    if (!state_memory_take(memory, rounded))
        return NULL;
    void *block;
    if (size < HUGE_PAGE_SIZE) {
        block = malloc(size);
    } else {
        block = aligned_alloc(HUGE_PAGE_SIZE, rounded);
#ifdef MADV_HUGEPAGE
        if (block)
            (void)madvise(block, rounded, MADV_HUGEPAGE); /* a hint: failure changes nothing */
#endif
    }
    if (!block) {
        state_memory_give(memory, rounded);
        state_memory_exhausted(memory);
    }
    return block;
}

void *state_large_calloc(const StateMemory *memory, size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size)
        return NULL;
    size_t bytes = count * size;
    if (bytes < HUGE_PAGE_SIZE) {
        if (!state_memory_take(memory, bytes))
            return NULL;
        void *block = calloc(count, size);
        if (!block) {
            state_memory_give(memory, bytes);
            state_memory_exhausted(memory);
        }
        return block;
    }
    void *block = state_large_alloc(memory, bytes);
    if (block)
        memset(block, 0, bytes);
    return block;
}

void state_large_free(const StateMemory *memory, void *block, size_t size)
{
    if (!block)
        return;
    free(block);
    state_memory_give(memory, state_large_rounded(size));
}

/* ---- slab -------------------------------------------------------------- */

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

void slab_init(Slab *slab, const StateMemory *memory)
{
    memset(slab, 0, sizeof *slab);
    slab->memory = *memory;
}

static void slab_class_release(Slab *slab, SlabClass *class_)
{
    SlabChunk *chunk = class_->chunks;
    while (chunk) {
        SlabChunk *next = chunk->next;
        slab->chunk_bytes -= chunk->size;
        state_large_free(&slab->memory, chunk, chunk->size);
        chunk = next;
    }
    memset(class_, 0, sizeof *class_);
}

void slab_release_all(Slab *slab)
{
    for (uint32_t i = 0; i < SLAB_CLASS_COUNT; i++)
        slab_class_release(slab, &slab->classes[i]);
}

void *slab_alloc(Slab *slab, uint32_t size)
{
    if (size > SLAB_MAX_BLOCK) {
        void *block = state_large_alloc(&slab->memory, size);
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
        SlabChunk *chunk = state_large_alloc(&slab->memory, chunk_size);
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

void slab_free(Slab *slab, void *block, uint32_t size)
{
    if (!block)
        return;
    if (size > SLAB_MAX_BLOCK) {
        slab->heap_bytes -= size;
        state_large_free(&slab->memory, block, size);
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

void *slab_realloc_large(Slab *slab, void *block, uint32_t old_size, uint32_t size)
{
    size_t old_rounded = state_large_rounded(old_size);
    size_t rounded = state_large_rounded(size);
    if (rounded > old_rounded && !state_memory_take(&slab->memory, rounded - old_rounded))
        return NULL;
    void *grown = realloc(block, size);
    if (!grown) {
        if (rounded > old_rounded)
            state_memory_give(&slab->memory, rounded - old_rounded);
        state_memory_exhausted(&slab->memory);
        return NULL;
    }
    if (rounded < old_rounded)
        state_memory_give(&slab->memory, old_rounded - rounded);
    slab->heap_bytes += size;
    slab->heap_bytes -= old_size;
    return grown;
}

Row *slab_copy_row(Slab *slab, const Row *row)
{
    Row *copy = slab_alloc(slab, row_size(row));
    if (copy) {
        memcpy(copy, row, row_size(row));
        row_set_kind(copy, ROW_KIND_INSERT);
    }
    return copy;
}
