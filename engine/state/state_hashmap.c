/*
 * state_hashmap.c - the hashmap backend's store (see state.h): in-memory
 * states, counted against the job's budget. A unit of work needs nothing
 * (changes are in place), so commit has nothing to do.
 */
#include "engine/state/state_hashmap_internal.h"

#include <stdlib.h>

typedef struct HashmapStore {
    StateStore base; /* first: a StateStore * is a HashmapStore * */
} HashmapStore;

static void hashmap_store_close(StateStore *store)
{
    free(store);
}

static const StateStoreOps HASHMAP_STORE_OPS = {
    .commit = NULL,
    .close = hashmap_store_close,
    .create_multiset = state_hashmap_create_multiset,
    .create_value = state_hashmap_create_value,
    .create_sorted = state_hashmap_create_sorted,
    .create_timer_queue = state_hashmap_create_timer_queue,
};

int state_hashmap_store_open(const StateStoreConfig *config, StateStore **store, Diag *diag)
{
    HashmapStore *hashmap = calloc(1, sizeof *hashmap);
    if (!hashmap)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    hashmap->base.ops = &HASHMAP_STORE_OPS;
    hashmap->base.backend = STATE_BACKEND_HASHMAP;
    hashmap->base.budget = config->budget;
    *store = &hashmap->base;
    return JOINERY_OK;
}

StateMemory state_hashmap_memory(StateStore *store)
{
    StateMemory memory = {store, store ? store->budget : NULL};
    return memory;
}
