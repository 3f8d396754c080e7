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
 * members' sums after every call.
 */
#include <errno.h>
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
} PoolMember;

typedef struct LookupPool {
    LookupFunction base;
    PoolMember *members;
    uint32_t count;
    int epoll_fd;
} LookupPool;

uint32_t lookup_pool_default_connections(uint32_t capacity)
{
    if (capacity <= 16)
        return 1;
    uint32_t connections = (capacity + 24) / 25; /* about 25 requests in flight each */
    return connections > 4 ? 4 : connections;
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
    uint32_t i = (uint32_t)(row_content_hash(key) % pool->count);
    LookupFunction *member = pool->members[i].function;
    int status = member->vtable->submit(member, key, request_id, diag);
    if (status == JOINERY_OK)
        status = register_member(pool, i, diag);
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
        status = member->vtable->poll(member, completion, context, diag);
        if (status == JOINERY_OK)
            status = register_member(pool, i, diag);
    }
    refresh(pool);
    return status;
}

static void pool_close(LookupFunction *base)
{
    LookupPool *pool = base->impl;
    for (uint32_t i = 0; i < pool->count; i++)
        if (pool->members[i].function)
            pool->members[i].function->vtable->close(pool->members[i].function);
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
