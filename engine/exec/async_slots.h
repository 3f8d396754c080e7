/*
 * async_slots.h - the bookkeeping of an operator's asynchronous requests
 * (Flink's AsyncWaitOperator queue): a fixed number of slots, the order
 * the slots were taken in, and request ids that tell a stale completion
 * from the current one. The slots' payload (input row, results) is the
 * operator's own array, indexed by the slot numbers handed out here;
 * AsyncCorrelate and the async LookupJoin share this.
 *
 * Invariants: `used` slots are taken, the others are on the free stack
 * free_slots[0 .. free_count), and used + free_count == capacity. The ring
 * order[order_head .. order_head + used) (mod capacity) is the taken slots
 * in the order they were taken, as long as every slot is released as the
 * oldest (async_slots_pop_oldest, then async_slots_release); an owner that
 * releases slots in completion order (unordered output) never reads the
 * ring. A request id is generation << 32 | slot, the generation counting
 * every acquisition, so an id names one use of a slot.
 *
 * Ownership: the struct is the caller's; its arrays are freed by
 * async_slots_free. Single-threaded, like the operator owning it.
 */
#ifndef JOINERY_EXEC_ASYNC_SLOTS_H
#define JOINERY_EXEC_ASYNC_SLOTS_H

#include <stdbool.h>
#include <stdint.h>

typedef struct AsyncSlots {
    uint32_t capacity;   /* slots 0 .. capacity) */
    uint32_t used;       /* slots taken */
    uint32_t generation; /* of the latest acquisition */
    uint32_t order_head; /* the oldest taken slot is order[order_head] */
    uint32_t free_count;
    uint32_t *order;      /* ring of taken slots in the order taken */
    uint32_t *free_slots; /* stack of free slots; slot 0 on top at first */
} AsyncSlots;

/* Sets up `capacity` (>= 1) free slots. JOINERY_OK or JOINERY_ERROR_NO_MEMORY
 * (then nothing is held: async_slots_free is still safe). */
int async_slots_init(AsyncSlots *slots, uint32_t capacity);

/* Frees the arrays; safe on a zeroed or failed-init struct. */
void async_slots_free(AsyncSlots *slots);

static inline bool async_slots_full(const AsyncSlots *slots)
{
    return slots->used >= slots->capacity;
}

/* Takes a free slot (the caller checked !async_slots_full), appends it to
 * the order and returns it; *request_id names this use of it. */
uint32_t async_slots_acquire(AsyncSlots *slots, uint64_t *request_id);

/* The slot a request id names; false when the id is out of range (a
 * caller still compares the slot's current id with it). */
bool async_slots_index(const AsyncSlots *slots, uint64_t request_id, uint32_t *slot);

/* The oldest taken slot; false when none is taken. */
bool async_slots_oldest(const AsyncSlots *slots, uint32_t *slot);

/* Removes the oldest taken slot from the order (it stays taken until
 * async_slots_release). Precondition: a slot is taken. */
void async_slots_pop_oldest(AsyncSlots *slots);

/* Puts a taken slot back on the free stack. */
void async_slots_release(AsyncSlots *slots, uint32_t slot);

#endif
