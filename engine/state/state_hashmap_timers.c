/*
 * state_hashmap_timers.c - the hashmap backend's timer queue (see state.h),
 * after Flink's HeapPriorityQueueSet: a binary min-heap in timer order
 * (timestamp, key hash, key row bytes: timer_key_order) for taking timers
 * in order, and a key table for deduplication.
 *
 * A StateTable of key blocks holds, per key row, its timers' slots
 * {time, position in the heap}; a heap node is {time, key hash, block,
 * slot in the block} (the hash kept so that ties rarely touch the blocks).
 * Adding looks the key up and its few timestamps through; removing a timer
 * anywhere in the heap is O(log n) because each slot knows its heap
 * position. A key whose last timer goes is removed from the table.
 *
 * Invariants: no node at 2i+1 or 2i+2 orders before heap[i] (heap_before);
 * for every node n at i, n.block->slots[n.slot] = {n.time, i} and n.hash is
 * row_content_hash of n.block's key; a stored block has at least one slot;
 * no two slots of a block have the same time.
 */
#include "engine/state/state_hashmap_internal.h"

#include <stdlib.h>

typedef struct TimerSlot {
    int64_t time;
    uint32_t heap_index;
    uint32_t reserved;
} TimerSlot;

typedef struct TimerBlock {
    TimerSlot *slots;
    uint32_t count;
    uint32_t capacity;
    /* the key row follows */
} TimerBlock;

typedef struct HeapNode {
    int64_t time;
    uint64_t hash; /* row_content_hash of the block's key */
    TimerBlock *block;
    uint32_t slot;
    uint32_t reserved;
} HeapNode;

typedef struct HashTimerQueue {
    TimerQueue base; /* first: a TimerQueue * is a HashTimerQueue * */
    StateTable table;
    HeapNode *heap;
    uint32_t heap_count;
    uint32_t heap_capacity;
    Slab slab;
} HashTimerQueue;

_Static_assert(sizeof(TimerBlock) % 8 == 0, "key rows stay 8-byte aligned");

static inline HashTimerQueue *hash_timers(TimerQueue *queue)
{
    return (HashTimerQueue *)queue;
}

static inline const Row *timer_block_key(const TimerBlock *block)
{
    return (const Row *)(block + 1);
}

static inline uint32_t timer_slots_size(uint32_t capacity)
{
    return capacity * (uint32_t)sizeof(TimerSlot);
}

static void timer_block_free(HashTimerQueue *queue, TimerBlock *block)
{
    slab_free(&queue->slab, block->slots, timer_slots_size(block->capacity));
    slab_free(&queue->slab, block, (uint32_t)sizeof *block + row_size(timer_block_key(block)));
}

static void hash_timers_destroy(TimerQueue *base)
{
    HashTimerQueue *queue = hash_timers(base);
    for (uint32_t i = 0; i < queue->table.capacity; i++)
        if (queue->table.slots[i].block)
            timer_block_free(queue, queue->table.slots[i].block);
    state_large_free(&queue->table.memory, queue->heap,
                     (size_t)queue->heap_capacity * sizeof(HeapNode));
    slab_release_all(&queue->slab);
    state_table_free(&queue->table);
    free(queue);
}

/* ---- the heap ---------------------------------------------------------- */

/* True when timer `a` comes before timer `b` (state.h's order; distinct timers never tie). */
static inline bool heap_before(const HeapNode *a, const HeapNode *b)
{
    if (a->time != b->time)
        return a->time < b->time;
    if (a->hash != b->hash)
        return a->hash < b->hash;
    return timer_key_order(timer_block_key(a->block), a->hash, timer_block_key(b->block), b->hash) <
           0;
}

static inline void heap_place(HashTimerQueue *queue, uint32_t index, HeapNode node)
{
    queue->heap[index] = node;
    node.block->slots[node.slot].heap_index = index;
}

static void heap_sift_up(HashTimerQueue *queue, uint32_t index)
{
    HeapNode node = queue->heap[index];
    while (index > 0) {
        uint32_t parent = (index - 1) / 2;
        if (!heap_before(&node, &queue->heap[parent]))
            break;
        heap_place(queue, index, queue->heap[parent]);
        index = parent;
    }
    heap_place(queue, index, node);
}

static void heap_sift_down(HashTimerQueue *queue, uint32_t index)
{
    HeapNode node = queue->heap[index];
    uint32_t count = queue->heap_count;
    for (;;) {
        uint32_t child = 2 * index + 1;
        if (child >= count)
            break;
        if (child + 1 < count && heap_before(&queue->heap[child + 1], &queue->heap[child]))
            child++;
        if (!heap_before(&queue->heap[child], &node))
            break;
        heap_place(queue, index, queue->heap[child]);
        index = child;
    }
    heap_place(queue, index, node);
}

/* Takes node `index` out of the heap (its block slot is the caller's to remove). */
static void heap_remove(HashTimerQueue *queue, uint32_t index)
{
    uint32_t last = --queue->heap_count;
    if (index == last)
        return;
    heap_place(queue, index, queue->heap[last]);
    if (index > 0 && heap_before(&queue->heap[index], &queue->heap[(index - 1) / 2]))
        heap_sift_up(queue, index);
    else
        heap_sift_down(queue, index);
}

static bool heap_reserve(HashTimerQueue *queue)
{
    if (queue->heap_count < queue->heap_capacity)
        return true;
    uint32_t capacity = queue->heap_capacity ? queue->heap_capacity * 2 : 64;
    if (capacity > (1u << 30)) {
        state_store_set_error(queue->base.store, JOINERY_ERROR_NO_MEMORY,
                              "more than 2^30 timers in one operator");
        return false;
    }
    HeapNode *heap = state_large_alloc(&queue->table.memory, (size_t)capacity * sizeof(HeapNode));
    if (!heap)
        return false;
    if (queue->heap_count) /* the first heap has nothing to copy (memcpy from NULL is undefined) */
        memcpy(heap, queue->heap, (size_t)queue->heap_count * sizeof(HeapNode));
    state_large_free(&queue->table.memory, queue->heap,
                     (size_t)queue->heap_capacity * sizeof(HeapNode));
    queue->heap = heap;
    queue->heap_capacity = capacity;
    return true;
}

/* ---- blocks ------------------------------------------------------------ */

/* Removes slot `slot` of `block` (the last slot moves into it); the block goes when empty. */
static void timer_block_remove_slot(HashTimerQueue *queue, TimerBlock *block, uint32_t slot)
{
    uint32_t last = --block->count;
    if (slot != last) {
        block->slots[slot] = block->slots[last];
        queue->heap[block->slots[slot].heap_index].slot = slot;
    }
    if (block->count > 0)
        return;
    const Row *key = timer_block_key(block);
    uint32_t table_slot = state_table_slot_of(&queue->table, block, row_content_hash(key));
    timer_block_free(queue, block);
    state_table_remove_slot(&queue->table, table_slot);
    state_table_maybe_shrink(&queue->table);
}

static int hash_timers_add(TimerQueue *base, int64_t time, const Row *key, bool *added)
{
    HashTimerQueue *queue = hash_timers(base);
    if (added)
        *added = false;
    uint64_t hash = row_content_hash(key);
    uint32_t table_slot = state_table_probe(&queue->table, key, hash);
    TimerBlock *block = queue->table.slots[table_slot].block;
    if (block)
        for (uint32_t i = 0; i < block->count; i++)
            if (block->slots[i].time == time)
                return JOINERY_OK;
    if (!heap_reserve(queue))
        return JOINERY_ERROR_NO_MEMORY;
    bool fresh = !block;
    if (fresh) {
        if (!state_table_reserve(&queue->table))
            return JOINERY_ERROR_NO_MEMORY;
        block = slab_alloc(&queue->slab, (uint32_t)sizeof *block + row_size(key));
        if (!block)
            return JOINERY_ERROR_NO_MEMORY;
        memset(block, 0, sizeof *block);
        Row *key_copy = (Row *)(block + 1);
        memcpy(key_copy, key, row_size(key));
        row_set_kind(key_copy, ROW_KIND_INSERT);
    }
    if (block->count == block->capacity) {
        uint32_t capacity = block->capacity ? block->capacity * 2 : 1;
        TimerSlot *slots = slab_alloc(&queue->slab, timer_slots_size(capacity));
        if (!slots) {
            if (fresh)
                slab_free(&queue->slab, block, (uint32_t)sizeof *block + row_size(key));
            return JOINERY_ERROR_NO_MEMORY;
        }
        if (block->count) /* a new key has no slots yet */
            memcpy(slots, block->slots, (size_t)block->count * sizeof *slots);
        slab_free(&queue->slab, block->slots, timer_slots_size(block->capacity));
        block->slots = slots;
        block->capacity = capacity;
    }
    if (fresh)
        state_table_fill(&queue->table, state_table_probe(&queue->table, key, hash), hash, block);
    uint32_t slot = block->count++;
    block->slots[slot].time = time;
    uint32_t index = queue->heap_count++;
    heap_place(queue, index, (HeapNode){.time = time, .hash = hash, .block = block, .slot = slot});
    heap_sift_up(queue, index);
    if (added)
        *added = true;
    return JOINERY_OK;
}

static int hash_timers_remove(TimerQueue *base, int64_t time, const Row *key, bool *removed)
{
    HashTimerQueue *queue = hash_timers(base);
    if (removed)
        *removed = false;
    uint64_t hash = row_content_hash(key);
    TimerBlock *block = queue->table.slots[state_table_probe(&queue->table, key, hash)].block;
    if (!block)
        return JOINERY_OK;
    for (uint32_t i = 0; i < block->count; i++) {
        if (block->slots[i].time != time)
            continue;
        heap_remove(queue, block->slots[i].heap_index);
        timer_block_remove_slot(queue, block, i);
        if (removed)
            *removed = true;
        return JOINERY_OK;
    }
    return JOINERY_OK;
}

static int hash_timers_peek(TimerQueue *base, int64_t *time, const Row **key)
{
    HashTimerQueue *queue = hash_timers(base);
    if (queue->heap_count == 0)
        return 0;
    *time = queue->heap[0].time;
    *key = timer_block_key(queue->heap[0].block);
    return 1;
}

static int hash_timers_pop(TimerQueue *base)
{
    HashTimerQueue *queue = hash_timers(base);
    if (queue->heap_count == 0)
        return JOINERY_OK;
    HeapNode top = queue->heap[0];
    heap_remove(queue, 0);
    timer_block_remove_slot(queue, top.block, top.slot);
    return JOINERY_OK;
}

static uint64_t hash_timers_count(const TimerQueue *base)
{
    return ((const HashTimerQueue *)base)->heap_count;
}

static int hash_timers_scan(TimerQueue *base,
                            int (*visit)(void *context, int64_t time, const Row *key),
                            void *context)
{
    HashTimerQueue *queue = hash_timers(base);
    for (uint32_t i = 0; i < queue->heap_count; i++) {
        int status = visit(context, queue->heap[i].time, timer_block_key(queue->heap[i].block));
        if (status != JOINERY_OK)
            return status;
    }
    return JOINERY_OK;
}

static uint64_t hash_timers_bytes(const TimerQueue *base)
{
    const HashTimerQueue *queue = (const HashTimerQueue *)base;
    return sizeof *queue + state_table_bytes(&queue->table) + queue->slab.chunk_bytes +
           queue->slab.heap_bytes + (uint64_t)queue->heap_capacity * sizeof(HeapNode);
}

static const TimerQueueOps HASH_TIMER_OPS = {
    .destroy = hash_timers_destroy,
    .add = hash_timers_add,
    .remove = hash_timers_remove,
    .peek = hash_timers_peek,
    .pop = hash_timers_pop,
    .count = hash_timers_count,
    .scan = hash_timers_scan,
    .bytes = hash_timers_bytes,
};

TimerQueue *state_hashmap_create_timer_queue(StateStore *store)
{
    StateMemory memory = state_hashmap_memory(store);
    HashTimerQueue *queue = calloc(1, sizeof *queue);
    if (!queue) {
        state_memory_exhausted(&memory);
        return NULL;
    }
    queue->base.ops = &HASH_TIMER_OPS;
    queue->base.store = store;
    slab_init(&queue->slab, &memory);
    if (!state_table_init(&queue->table, (uint32_t)sizeof(TimerBlock), &memory)) {
        free(queue);
        return NULL;
    }
    return &queue->base;
}
