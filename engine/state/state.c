/*
 * state.c - what the state backends share (see state.h): backend names,
 * the hashmap budget and its detected default, opening a store of the
 * configured backend, the store's error text, the creation of states
 * through the store's interface, and the order of timers of one timestamp.
 */
#define _POSIX_C_SOURCE 200809L
#include "engine/state/state.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <unistd.h>

bool state_backend_parse(const char *name, StateBackendKind *kind, bool *substituted)
{
    bool rocksdb = name && strcasecmp(name, "rocksdb") == 0;
    if (substituted)
        *substituted = rocksdb;
    if (!name || strcasecmp(name, "hashmap") == 0 || strcasecmp(name, "memory") == 0) {
        *kind = STATE_BACKEND_HASHMAP;
        return true;
    }
    if (strcasecmp(name, "lmdb") == 0 || rocksdb) {
        *kind = STATE_BACKEND_LMDB;
        return true;
    }
    return false;
}

const char *state_backend_name(StateBackendKind kind)
{
    switch (kind) {
    case STATE_BACKEND_HASHMAP:
        return "hashmap";
    case STATE_BACKEND_LMDB:
        return "lmdb";
    }
    return "hashmap";
}

/* ---- the order of timers ---------------------------------------------- */

int timer_key_order(const Row *a, uint64_t a_hash, const Row *b, uint64_t b_hash)
{
    if (a_hash != b_hash)
        return a_hash < b_hash ? -1 : 1;
    uint32_t a_size = row_size(a) - (uint32_t)sizeof(RowHeader);
    uint32_t b_size = row_size(b) - (uint32_t)sizeof(RowHeader);
    int order = memcmp(a->words, b->words, a_size < b_size ? a_size : b_size);
    if (order != 0)
        return order < 0 ? -1 : 1;
    if (a_size != b_size)
        return a_size < b_size ? -1 : 1;
    if (a->header.field_count != b->header.field_count)
        return a->header.field_count < b->header.field_count ? -1 : 1;
    return 0;
}

/* ---- the hashmap budget ---------------------------------------------- */

/* The number in a one-line file (cgroup limits), or 0 when absent or "max". */
static uint64_t state_read_limit_file(const char *path)
{
    FILE *file = fopen(path, "r");
    if (!file)
        return 0;
    unsigned long long value = 0;
    int read = fscanf(file, "%llu", &value);
    fclose(file);
    /* cgroup v1 writes a huge number for "no limit" */
    if (read != 1 || value >= (1ull << 60))
        return 0;
    return value;
}

/* This process's cgroup memory limit (v2 memory.max, else v1 memory.limit_in_bytes), or 0. */
static uint64_t state_cgroup_limit(void)
{
    FILE *file = fopen("/proc/self/cgroup", "r");
    if (!file)
        return 0;
    char line[512];
    uint64_t limit = 0;
    while (fgets(line, sizeof line, file)) {
        line[strcspn(line, "\n")] = '\0';
        /* "0::/path" (v2) or "N:memory:/path" (v1) */
        char *first = strchr(line, ':');
        char *second = first ? strchr(first + 1, ':') : NULL;
        if (!second)
            continue;
        *second = '\0';
        const char *controllers = first + 1;
        const char *path = second + 1;
        char file_path[1024];
        uint64_t found = 0;
        if (controllers[0] == '\0') {
            snprintf(file_path, sizeof file_path, "/sys/fs/cgroup%s/memory.max", path);
            found = state_read_limit_file(file_path);
            if (!found) {
                snprintf(file_path, sizeof file_path, "/sys/fs/cgroup/unified%s/memory.max", path);
                found = state_read_limit_file(file_path);
            }
        } else if (strstr(controllers, "memory")) {
            snprintf(file_path, sizeof file_path, "/sys/fs/cgroup/memory%s/memory.limit_in_bytes",
                     path);
            found = state_read_limit_file(file_path);
        }
        if (found && (!limit || found < limit))
            limit = found;
    }
    fclose(file);
    return limit;
}

/* The machine's physical memory in bytes; 0 when unknown. */
static uint64_t state_physical_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES);
    long page_size = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page_size <= 0)
        return 0;
    return (uint64_t)pages * (uint64_t)page_size;
}

static uint64_t state_rlimit(int resource)
{
    struct rlimit limit;
    if (getrlimit(resource, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY)
        return 0;
    return (uint64_t)limit.rlim_cur;
}

void state_budget_init(StateBudget *budget, uint64_t max_bytes)
{
    atomic_store(&budget->used, 0);
    budget->limit = 0;
    budget->source[0] = '\0';
    if (max_bytes > 0) {
        budget->limit = max_bytes;
        snprintf(budget->source, sizeof budget->source, "state.backend.hashmap.max-bytes");
        return;
    }
    /*
     * The smallest share of: three quarters of a limit the process has (the
     * rest of the process, code, buffers and output, needs room too), and
     * half of the machine's physical memory, so that without any limit a
     * growing state stops with an error naming its operator before the
     * kernel's OOM killer ends the process.
     */
    struct {
        uint64_t bytes;
        uint64_t share_quarters;
        const char *name;
    } limits[] = {
        {state_cgroup_limit(), 3, "three quarters of the cgroup memory limit"},
        {state_rlimit(RLIMIT_AS), 3, "three quarters of the address-space limit (RLIMIT_AS)"},
        {state_rlimit(RLIMIT_DATA), 3, "three quarters of the data limit (RLIMIT_DATA)"},
        {state_physical_memory(), 2, "half of the physical memory"},
    };
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++) {
        uint64_t share = limits[i].bytes / 4 * limits[i].share_quarters;
        if (!share || (budget->limit && share >= budget->limit))
            continue;
        budget->limit = share;
        snprintf(budget->source, sizeof budget->source, "%s", limits[i].name);
    }
}

StateBackendKind state_backend_default(void)
{
    StateBackendKind kind = STATE_BACKEND_HASHMAP;
    const char *name = getenv("JOINERY_STATE_BACKEND");
    if (name && name[0] && !state_backend_parse(name, &kind, NULL))
        kind = STATE_BACKEND_HASHMAP;
    return kind;
}

/* ---- stores ------------------------------------------------------------ */

int state_store_open(const StateStoreConfig *config, StateStore **store, Diag *diag)
{
    *store = NULL;
    switch (config->backend) {
    case STATE_BACKEND_HASHMAP:
        return state_hashmap_store_open(config, store, diag);
    case STATE_BACKEND_LMDB:
        return state_lmdb_store_open(config, store, diag);
    }
    return diag_error(diag, JOINERY_ERROR_VALIDATE, "unknown state backend");
}

int state_store_commit(StateStore *store, Diag *diag)
{
    return store->ops->commit ? store->ops->commit(store, diag) : JOINERY_OK;
}

StateBackendKind state_store_backend(const StateStore *store)
{
    return store->backend;
}

const char *state_store_error(const StateStore *store)
{
    return store->error;
}

void state_store_close(StateStore *store)
{
    if (!store)
        return;
    (void)state_store_set_restore_folder(store, NULL);
    store->ops->close(store);
}

/* ---- checkpoints by environment copy ------------------------------------ */

void state_store_set_copy_sink(StateStore *store, const StateCopySink *sink)
{
    if (sink)
        store->copy_sink = *sink;
    else
        memset(&store->copy_sink, 0, sizeof store->copy_sink);
}

void state_store_begin_snapshots(StateStore *store, int64_t id, bool by_copy)
{
    store->snapshot_id = id;
    store->snapshot_by_copy = by_copy && store->copy_sink.begin && store->ops->snapshot_reference;
}

void state_store_end_snapshots(StateStore *store)
{
    store->snapshot_id = 0;
    store->snapshot_by_copy = false;
}

void state_store_wait_copy(StateStore *store)
{
    if (store && store->ops->wait_copy)
        store->ops->wait_copy(store);
}

int state_store_set_restore_folder(StateStore *store, const char *folder)
{
    if (store->restore_copy) {
        state_store_close(store->restore_copy);
        store->restore_copy = NULL;
        store->restore_copy_file[0] = '\0';
    }
    free(store->restore_folder);
    store->restore_folder = NULL;
    if (!folder)
        return JOINERY_OK;
    store->restore_folder = strdup(folder);
    return store->restore_folder ? JOINERY_OK : JOINERY_ERROR_NO_MEMORY;
}

uint64_t state_store_copy_references(const StateStore *store)
{
    return atomic_load(&((StateStore *)store)->copy_references);
}

uint64_t state_store_copy_walks(const StateStore *store)
{
    return atomic_load(&((StateStore *)store)->copy_walks);
}

int state_store_error_status(const StateStore *store)
{
    return store->error_status;
}

bool state_store_failed(const StateStore *store)
{
    return store->failed;
}

void state_store_set_error(StateStore *store, int status, const char *format, ...)
{
    store->error_status = status;
    va_list args;
    va_start(args, format);
    vsnprintf(store->error, sizeof store->error, format, args);
    va_end(args);
}

/* ---- creating states --------------------------------------------------- */

MultisetState *multiset_state_create_parts(StateStore *store, uint32_t part_count,
                                           const int64_t *ttl_millis)
{
    if (part_count == 0 || part_count > MULTISET_MAX_PARTS) {
        state_store_set_error(store, JOINERY_ERROR_RUNTIME,
                              "a multiset state has 1 to %d parts, not %u", MULTISET_MAX_PARTS,
                              part_count);
        return NULL;
    }
    return store->ops->create_multiset(store, part_count, ttl_millis);
}

MultisetState *multiset_state_create(StateStore *store, int64_t ttl_millis)
{
    return multiset_state_create_parts(store, 1, &ttl_millis);
}

ValueState *value_state_create(StateStore *store, int64_t ttl_millis)
{
    return store->ops->create_value(store, ttl_millis > 0 ? ttl_millis : 0);
}

SortedState *sorted_state_create(StateStore *store)
{
    return store->ops->create_sorted(store);
}

TimerQueue *timer_queue_create(StateStore *store)
{
    return store->ops->create_timer_queue(store);
}

uint64_t state_store_copy_gate_waits(const StateStore *store, uint64_t *nanos, uint64_t *deferred)
{
    *nanos = atomic_load(&((StateStore *)store)->copy_gate_nanos);
    *deferred = atomic_load(&((StateStore *)store)->copy_deferred_commits);
    return atomic_load(&((StateStore *)store)->copy_gate_waits);
}
