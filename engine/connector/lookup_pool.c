/*
 * lookup_pool.c - several connections behind one asynchronous lookup
 * function (contract in lookup_pool.h).
 *
 * Invariants: members[i].fd is the descriptor registered for member i in
 * the epoll set (-1: none), with members[i].events, while the member had
 * requests in flight and that descriptor at its last call; members[i].
 * reconnects is the member's reconnect count when it was registered (a
 * reconnect may hand back the same descriptor number for a new socket,
 * whose registration the kernel dropped with the old one). A descriptor
 * number is recorded by at most one member. The pool's counters are the
 * members' sums after every call. members[i].ring holds the key hashes of
 * member i's requests in flight in its submission order (= its completion
 * order); keys[] counts each key hash in flight with the member it is on,
 * so a key's next request follows the ones before it (equal hashes of
 * different keys share a member: still correct, only less spread).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "engine/connector/lookup_pool.h"

const char LOOKUP_POOL_OPTION[] = "lookup.async.connections";

typedef struct PoolMember {
    LookupFunction *function;
    int fd;
    uint32_t events;
    uint64_t reconnects;
    /* the key hashes of its requests not yet completed, in submission order (its
       completions come in that order): ring[head..tail) modulo capacity */
    uint64_t *ring;
    uint32_t head, tail, capacity;
} PoolMember;

/* A key with requests in flight: on which member, how many (0: an empty entry). */
typedef struct KeyInFlight {
    uint64_t hash;
    uint32_t member;
    uint32_t count;
} KeyInFlight;

typedef struct LookupPool {
    LookupFunction base;
    PoolMember *members;
    uint32_t count;
    int epoll_fd;
    KeyInFlight *keys; /* open addressing, linear probing; size a power of two */
    uint32_t key_slots, key_count;
    uint32_t polling; /* the member whose poll runs (the completion trampoline's) */
    LookupCompletion completion;
    void *context;
} LookupPool;

uint32_t lookup_pool_default_connections(uint32_t capacity)
{
    /* bench/README.md: on 2 shared cores 4 and 8 connections were no better than 2 for
       PostgreSQL and Redis (their servers' CPU is the limit), MariaDB gained more */
    return capacity <= 16 ? 1 : 2;
}

int lookup_pool_read_connections(const CatalogTable *table, uint32_t *connections, Diag *diag)
{
    *connections = 0;
    const char *text = catalog_table_option(table, LOOKUP_POOL_OPTION);
    if (!text)
        return JOINERY_OK;
    int64_t value = 0;
    if (!connector_parse_int64(text, &value) || value < 1 || value > LOOKUP_POOL_MAX_CONNECTIONS)
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Table '%s': option '%s' must be a number of connections from 1 to %d, "
                          "not '%s'.",
                          table->name, LOOKUP_POOL_OPTION, LOOKUP_POOL_MAX_CONNECTIONS, text);
    *connections = (uint32_t)value;
    return JOINERY_OK;
}

/* The pool's counters and descriptor from its members'. */
static void refresh(LookupPool *pool)
{
    LookupFunction *base = &pool->base;
    base->in_flight = 0;
    base->requests = base->reconnects = 0;
    base->descriptor = pool->epoll_fd;
    for (uint32_t i = 0; i < pool->count; i++) {
        const LookupFunction *member = pool->members[i].function;
        base->in_flight += member->in_flight;
        base->requests += member->requests;
        base->reconnects += member->reconnects;
        if (member->in_flight > 0 && member->descriptor < 0)
            base->descriptor = -1; /* nothing to wait on for it: the caller polls again soon */
    }
}

/* Whether another member has `fd` registered (then it is that member's socket now). */
static bool fd_taken(const LookupPool *pool, uint32_t self, int fd)
{
    for (uint32_t i = 0; i < pool->count; i++)
        if (i != self && pool->members[i].fd == fd)
            return true;
    return false;
}

/* Registers member i's descriptor as it wants now (after each call of it). */
static int register_member(LookupPool *pool, uint32_t i, Diag *diag)
{
    PoolMember *member = &pool->members[i];
    const LookupFunction *function = member->function;
    int fd = function->in_flight > 0 ? function->descriptor : -1;
    uint32_t events = EPOLLIN | ((function->wait_events & LOOKUP_WAIT_WRITE) ? EPOLLOUT : 0u);
    if (fd == member->fd &&
        (fd < 0 || (events == member->events && function->reconnects == member->reconnects)))
        return JOINERY_OK;
    struct epoll_event event = {.events = events, .data.u32 = i};
    if (fd >= 0 && fd == member->fd && function->reconnects == member->reconnects) {
        if (epoll_ctl(pool->epoll_fd, EPOLL_CTL_MOD, fd, &event) == 0) {
            member->events = events;
            return JOINERY_OK;
        }
    }
    if (member->fd >= 0 && !fd_taken(pool, i, member->fd))
        epoll_ctl(pool->epoll_fd, EPOLL_CTL_DEL, member->fd, NULL); /* gone with its socket: ok */
    member->fd = -1;
    if (fd < 0)
        return JOINERY_OK;
    int added = epoll_ctl(pool->epoll_fd, EPOLL_CTL_ADD, fd, &event);
    if (added != 0 && errno == EEXIST)
        added = epoll_ctl(pool->epoll_fd, EPOLL_CTL_MOD, fd, &event);
    if (added != 0)
        return diag_error(diag, JOINERY_ERROR_RUNTIME,
                          "Table '%s': cannot watch a lookup connection: %s",
                          pool->base.spec->table->name, strerror(errno));
    member->fd = fd;
    member->events = events;
    member->reconnects = function->reconnects;
    return JOINERY_OK;
}

/* The entry of `hash`, or the empty one where it would go. */
static KeyInFlight *key_slot(const LookupPool *pool, uint64_t hash)
{
    uint32_t mask = pool->key_slots - 1;
    for (uint32_t i = (uint32_t)hash & mask;; i = (i + 1) & mask) {
        KeyInFlight *entry = &pool->keys[i];
        if (entry->count == 0 || entry->hash == hash)
            return entry;
    }
}

/* Doubles the key table (64 at first) when it would be over half full. */
static int keys_reserve(LookupPool *pool, Diag *diag)
{
    if ((pool->key_count + 1) * 2 <= pool->key_slots)
        return JOINERY_OK;
    uint32_t slots = pool->key_slots ? pool->key_slots * 2 : 64;
    KeyInFlight *old = pool->keys;
    uint32_t old_slots = pool->key_slots;
    pool->keys = calloc(slots, sizeof *pool->keys);
    if (!pool->keys) {
        pool->keys = old;
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    }
    pool->key_slots = slots;
    for (uint32_t i = 0; i < old_slots; i++)
        if (old[i].count > 0)
            *key_slot(pool, old[i].hash) = old[i];
    free(old);
    return JOINERY_OK;
}

/* One request of `hash` completed: its count down, the entry removed at 0 (backward shift). */
static void key_release(LookupPool *pool, uint64_t hash)
{
    KeyInFlight *entry = key_slot(pool, hash);
    if (entry->count == 0 || --entry->count > 0)
        return;
    pool->key_count--;
    uint32_t mask = pool->key_slots - 1;
    uint32_t hole = (uint32_t)(entry - pool->keys);
    for (uint32_t i = (hole + 1) & mask; pool->keys[i].count > 0; i = (i + 1) & mask) {
        uint32_t home = (uint32_t)pool->keys[i].hash & mask;
        /* move entry i into the hole unless its home lies cyclically in (hole, i] */
        bool stays = hole <= i ? (home > hole && home <= i) : (home > hole || home <= i);
        if (stays)
            continue;
        pool->keys[hole] = pool->keys[i];
        pool->keys[i].count = 0;
        hole = i;
    }
}

/* Appends `hash` to member's ring of requests in flight. */
static int ring_push(PoolMember *member, uint64_t hash, Diag *diag)
{
    if (member->tail - member->head == member->capacity) {
        uint32_t capacity = member->capacity ? member->capacity * 2 : 64;
        uint64_t *ring = malloc(capacity * sizeof *ring);
        if (!ring)
            return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        for (uint32_t i = member->head; i < member->tail; i++)
            ring[i - member->head] = member->ring[i % member->capacity];
        free(member->ring);
        member->ring = ring;
        member->tail -= member->head;
        member->head = 0;
        member->capacity = capacity;
    }
    member->ring[member->tail++ % member->capacity] = hash;
    return JOINERY_OK;
}

/*
 * The member for a key: the one its requests in flight are on (so one
 * key's lookups stay in order), else the one with the fewest requests in
 * flight (an idle connection first: MySQL's has one query out at a time).
 */
static uint32_t choose_member(const LookupPool *pool, uint64_t hash)
{
    const KeyInFlight *entry = key_slot(pool, hash);
    if (entry->count > 0)
        return entry->member;
    uint32_t best = (uint32_t)(hash % pool->count); /* ties: spread by the key */
    for (uint32_t n = 1; n < pool->count; n++) {
        uint32_t i = (uint32_t)((hash + n) % pool->count);
        if (pool->members[i].function->in_flight < pool->members[best].function->in_flight)
            best = i;
    }
    return best;
}

/* The completion trampoline: releases the request's key, then the caller's callback. */
static int pool_complete(void *context, uint64_t request_id, Row *const *rows, uint32_t count)
{
    LookupPool *pool = context;
    PoolMember *member = &pool->members[pool->polling];
    if (member->head < member->tail)
        key_release(pool, member->ring[member->head++ % member->capacity]);
    return pool->completion(pool->context, request_id, rows, count);
}

static int pool_lookup(LookupFunction *base, const Row *key, RowBatch *out, Arena *arena,
                       Diag *diag)
{
    LookupPool *pool = base->impl;
    if (base->in_flight > 0)
        return diag_error(diag, JOINERY_ERROR, "synchronous lookup with requests in flight");
    LookupFunction *member = pool->members[0].function;
    int status = member->vtable->lookup(member, key, out, arena, diag);
    refresh(pool);
    return status;
}

static int pool_submit(LookupFunction *base, const Row *key, uint64_t request_id, Diag *diag)
{
    LookupPool *pool = base->impl;
    uint64_t hash = row_content_hash(key);
    int status = keys_reserve(pool, diag);
    if (status != JOINERY_OK)
        return status;
    uint32_t i = choose_member(pool, hash);
    PoolMember *chosen = &pool->members[i];
    status = ring_push(chosen, hash, diag);
    if (status != JOINERY_OK)
        return status;
    KeyInFlight *entry = key_slot(pool, hash);
    if (entry->count == 0) {
        *entry = (KeyInFlight){hash, i, 0};
        pool->key_count++;
    }
    entry->count++;
    uint32_t before = chosen->function->in_flight;
    status = chosen->function->vtable->submit(chosen->function, key, request_id, diag);
    if (status == JOINERY_OK)
        status = register_member(pool, i, diag);
    if (chosen->function->in_flight == before) { /* not queued: take it back */
        chosen->tail--;
        key_release(pool, hash);
    }
    refresh(pool);
    return status;
}

static int pool_poll(LookupFunction *base, LookupCompletion completion, void *context, Diag *diag)
{
    LookupPool *pool = base->impl;
    int status = JOINERY_OK;
    for (uint32_t i = 0; i < pool->count && status == JOINERY_OK; i++) {
        LookupFunction *member = pool->members[i].function;
        if (member->in_flight == 0)
            continue;
        pool->polling = i;
        pool->completion = completion;
        pool->context = context;
        status = member->vtable->poll(member, pool_complete, pool, diag);
        if (status == JOINERY_OK)
            status = register_member(pool, i, diag);
    }
    refresh(pool);
    return status;
}

static void pool_close(LookupFunction *base)
{
    LookupPool *pool = base->impl;
    for (uint32_t i = 0; i < pool->count; i++) {
        if (pool->members[i].function)
            pool->members[i].function->vtable->close(pool->members[i].function);
        free(pool->members[i].ring);
    }
    free(pool->keys);
    if (pool->epoll_fd >= 0)
        close(pool->epoll_fd);
    free(pool->members);
    free(pool);
}

static const LookupFunctionVtable LOOKUP_POOL = {
    .lookup = pool_lookup,
    .submit = pool_submit,
    .poll = pool_poll,
    .close = pool_close,
};

int lookup_pool_create(const LookupSpec *spec, uint32_t connections, LookupCreate create,
                       LookupFunction **created, Diag *diag)
{
    LookupPool *pool = calloc(1, sizeof *pool);
    PoolMember *members = calloc(connections, sizeof *members);
    if (!pool || !members) {
        free(pool);
        free(members);
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory creating a lookup");
    }
    pool->base.vtable = &LOOKUP_POOL;
    pool->base.spec = spec;
    pool->base.impl = pool;
    pool->base.connections = connections;
    pool->base.wait_events = LOOKUP_WAIT_READ;
    pool->members = members;
    for (uint32_t i = 0; i < connections; i++)
        members[i].fd = -1;
    pool->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    if (pool->epoll_fd < 0) {
        int status = diag_error(diag, JOINERY_ERROR_RUNTIME,
                                "Table '%s': cannot create a lookup's wait set: %s",
                                spec->table->name, strerror(errno));
        pool_close(&pool->base);
        return status;
    }
    for (uint32_t i = 0; i < connections; i++) {
        int status = create(spec, &members[i].function, diag);
        if (status != JOINERY_OK) {
            pool_close(&pool->base);
            return status;
        }
        members[i].function->connections = 1;
        pool->count++;
    }
    refresh(pool);
    *created = &pool->base;
    return JOINERY_OK;
}
