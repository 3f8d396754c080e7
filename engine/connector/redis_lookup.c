/*
 * redis_lookup.c - the redis connector's lookup function (lookup.h): GET,
 * HGET or HMGET of the key built from the lookup key (redis_internal.h).
 *
 * Synchronous lookups use a blocking hiredis connection. Asynchronous
 * requests use hiredis's redisAsyncContext with this file's event-loop
 * adapter: hiredis says through addRead / addWrite / delRead / delWrite
 * what it waits for, which becomes the function's descriptor (the
 * connection's socket) and wait_events; poll checks the socket without
 * waiting and hands hiredis what is ready (redisAsyncHandleRead / Write).
 * Commands are written as they are submitted, so requests in flight share
 * round trips (Redis pipelines), and Redis answers in order, which is the
 * order completions are reported in. A key with a NULL field completes
 * with no rows, in its turn, without a command.
 *
 * Broken connection (server restarted): every request not yet answered is
 * sent again on a new connection, after up to `lookup.max-retries`
 * (default 1, as jeff-zou's connector) blocking connection attempts,
 * 100 ms * attempt apart; then an error naming the table and the store
 * (lookup_request_queue.h: the queue, the order, the re-sending). Each
 * command carries its request's sequence number to the reply callback.
 * Invariant: the queue's requests `sent` and not `done` were written on
 * the current connection, in order.
 */
#include <hiredis/async.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/connector/lookup_request_queue.h"
#include "engine/connector/redis_internal.h"

typedef struct RedisLookup {
    LookupFunction base;
    RedisLayout layout;
    redisContext *sync;
    redisAsyncContext *async;
    bool want_read, want_write;
    LookupRequestQueue queue;
    int64_t max_retries;
    RowBuilder builder;
    RedisCommand command;
    Diag error; /* the first error a callback met; reported by poll */
} RedisLookup;

/* The event-loop adapter: hiredis tells what it waits for. */
static void adapter_add_read(void *data)
{
    ((RedisLookup *)data)->want_read = true;
}
static void adapter_del_read(void *data)
{
    ((RedisLookup *)data)->want_read = false;
}
static void adapter_add_write(void *data)
{
    ((RedisLookup *)data)->want_write = true;
}
static void adapter_del_write(void *data)
{
    ((RedisLookup *)data)->want_write = false;
}
static void adapter_cleanup(void *data)
{
    RedisLookup *lookup = data;
    lookup->want_read = lookup->want_write = false;
}

/* hiredis frees the context after this (a broken connection, or our redisAsyncFree). */
static void on_disconnect(const redisAsyncContext *context, int status)
{
    (void)status;
    RedisLookup *lookup = context->data;
    if (lookup && lookup->async == context) {
        lookup->async = NULL;
        lookup->want_read = lookup->want_write = false;
    }
}

static void on_setup_reply(redisAsyncContext *context, void *reply_pointer, void *data)
{
    (void)data;
    RedisLookup *lookup = context->data;
    redisReply *reply = reply_pointer;
    if (lookup && reply && reply->type == REDIS_REPLY_ERROR && lookup->error.status == JOINERY_OK)
        diag_error(&lookup->error, JOINERY_ERROR_RUNTIME,
                   "Table '%s': authentication to %s failed: %s", lookup->base.spec->table->name,
                   lookup->layout.store, reply->str);
}

static void on_reply(redisAsyncContext *context, void *reply_pointer, void *data)
{
    RedisLookup *lookup = context->data;
    redisReply *reply = reply_pointer;
    if (!lookup || !reply)
        return; /* the connection is gone: the request is sent again */
    LookupRequest *request = lookup_request_queue_find(&lookup->queue, (uint64_t)(uintptr_t)data);
    if (!request || request->done || lookup->error.status != JOINERY_OK)
        return;
    Row *row = NULL;
    Diag diag;
    diag_clear(&diag);
    if (redis_reply_to_row(lookup->base.spec, &lookup->layout, reply, request->key,
                           &lookup->builder, &row, &diag) != JOINERY_OK) {
        lookup->error = diag;
        return;
    }
    if (row) {
        Row *copy = row_copy_heap(row);
        if (!copy || lookup_request_add_row(request, copy, &diag) != JOINERY_OK) {
            diag_error(&lookup->error, JOINERY_ERROR_NO_MEMORY, "out of memory");
            return;
        }
    }
    request->done = true;
}

static void update_wait(RedisLookup *lookup)
{
    lookup->base.descriptor = lookup->async ? lookup->async->c.fd : -1;
    lookup->base.wait_events =
        (lookup->want_read ? LOOKUP_WAIT_READ : 0u) | (lookup->want_write ? LOOKUP_WAIT_WRITE : 0u);
}

static int send_request(RedisLookup *lookup, LookupRequest *request, Diag *diag)
{
    if (redis_lookup_command(lookup->base.spec, &lookup->layout, request->key, &lookup->command) !=
        0)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    if (redisAsyncCommandArgv(lookup->async, on_reply, (void *)(uintptr_t)request->sequence,
                              lookup->command.argc, lookup->command.argv,
                              lookup->command.lengths) != REDIS_OK)
        return diag_error(diag, JOINERY_ERROR_RUNTIME, "Table '%s': cannot send to %s: %s",
                          lookup->base.spec->table->name, lookup->layout.store,
                          lookup->async->errstr);
    request->sent = true;
    return JOINERY_OK;
}

/* A blocking connection that shows the server answers (it replaces the sync one). */
static int probe_server(void *context, Diag *diag)
{
    RedisLookup *lookup = context;
    redisContext *probe = redis_connect(lookup->base.spec->table, &lookup->layout, diag);
    if (!probe)
        return diag->status;
    if (lookup->sync)
        redisFree(lookup->sync);
    lookup->sync = probe;
    return JOINERY_OK;
}

/*
 * (Re)opens the asynchronous connection once a blocking connection shows
 * the server answers (up to max_retries attempts when `retrying`), then
 * sends every request not answered.
 */
static int open_async(RedisLookup *lookup, bool retrying, Diag *diag)
{
    if (retrying) {
        int status =
            lookup_reconnect(&lookup->base, lookup->max_retries, probe_server, lookup, diag);
        if (status != JOINERY_OK)
            return status;
    }
    redisAsyncContext *context = redisAsyncConnect(lookup->layout.host, lookup->layout.port);
    if (!context || context->err) {
        int status = diag_error(diag, JOINERY_ERROR_RUNTIME, "Table '%s': cannot connect to %s: %s",
                                lookup->base.spec->table->name, lookup->layout.store,
                                context ? context->errstr : "out of memory");
        if (context)
            redisAsyncFree(context);
        return status;
    }
    context->data = lookup;
    context->ev.data = lookup;
    context->ev.addRead = adapter_add_read;
    context->ev.delRead = adapter_del_read;
    context->ev.addWrite = adapter_add_write;
    context->ev.delWrite = adapter_del_write;
    context->ev.cleanup = adapter_cleanup;
    redisAsyncSetDisconnectCallback(context, on_disconnect);
    lookup->async = context;
    lookup->want_read = lookup->want_write = false;
    if (redis_async_prepare(context, lookup->base.spec->table, &lookup->layout, on_setup_reply,
                            NULL) != 0)
        return diag_error(diag, JOINERY_ERROR_RUNTIME, "Table '%s': cannot send to %s",
                          lookup->base.spec->table->name, lookup->layout.store);
    lookup_request_queue_restart(&lookup->queue);
    uint32_t length = lookup_request_queue_length(&lookup->queue);
    for (uint32_t i = 0; i < length; i++) {
        LookupRequest *request = lookup_request_queue_at(&lookup->queue, i);
        if (!lookup_request_pending(request))
            continue;
        int status = send_request(lookup, request, diag);
        if (status != JOINERY_OK)
            return status;
    }
    update_wait(lookup);
    return JOINERY_OK;
}

static int redis_lookup_sync(LookupFunction *base, const Row *key, RowBatch *out, Arena *arena,
                             Diag *diag)
{
    RedisLookup *lookup = base->impl;
    base->requests++;
    if (base->in_flight > 0)
        return diag_error(diag, JOINERY_ERROR, "synchronous lookup with requests in flight");
    for (uint32_t k = 0; k < base->spec->key_count; k++)
        if (row_is_null(key, k))
            return JOINERY_OK;
    if (redis_lookup_command(base->spec, &lookup->layout, key, &lookup->command) != 0)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    for (int64_t attempt = 0;; attempt++) {
        if (!lookup->sync) {
            lookup->sync = redis_connect(base->spec->table, &lookup->layout, diag);
            if (!lookup->sync) {
                if (attempt >= lookup->max_retries)
                    return diag->status;
                struct timespec pause = {0, 100000000L * (attempt < 9 ? attempt : 9)};
                nanosleep(&pause, NULL);
                continue;
            }
            if (attempt > 0)
                base->reconnects++;
        }
        redisReply *reply = redisCommandArgv(lookup->sync, lookup->command.argc,
                                             lookup->command.argv, lookup->command.lengths);
        if (!reply) {
            char reason[200];
            snprintf(reason, sizeof reason, "%s", lookup->sync->errstr);
            redisFree(lookup->sync);
            lookup->sync = NULL;
            if (attempt < lookup->max_retries)
                continue;
            return diag_error(diag, JOINERY_ERROR_RUNTIME,
                              "Table '%s': looking up in %s failed: %s", base->spec->table->name,
                              lookup->layout.store, reason);
        }
        Row *row = NULL;
        int status = redis_reply_to_row(base->spec, &lookup->layout, reply, key, &lookup->builder,
                                        &row, diag);
        freeReplyObject(reply);
        if (status != JOINERY_OK || !row)
            return status;
        if (out->count == out->capacity)
            return diag_error(diag, JOINERY_ERROR_RUNTIME,
                              "Table '%s': no room for the looked up row.",
                              base->spec->table->name);
        Row *copy = row_copy(arena, row);
        if (!copy)
            return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        out->rows[out->count++] = copy;
        return JOINERY_OK;
    }
}

static int redis_lookup_submit(LookupFunction *base, const Row *key, uint64_t request_id,
                               Diag *diag)
{
    RedisLookup *lookup = base->impl;
    LookupRequest *request;
    int status = lookup_request_queue_push(&lookup->queue, base, key, request_id, &request, diag);
    if (status != JOINERY_OK || request->null_key)
        return status;
    status = lookup->async ? send_request(lookup, request, diag) : open_async(lookup, true, diag);
    update_wait(lookup);
    return status;
}

/* Hands hiredis what the socket has ready now, without waiting. */
static void handle_ready(RedisLookup *lookup)
{
    if (!lookup->async || (!lookup->want_read && !lookup->want_write))
        return;
    struct pollfd fd = {
        .fd = lookup->async->c.fd,
        .events = (short)((lookup->want_read ? POLLIN : 0) | (lookup->want_write ? POLLOUT : 0))};
    if (poll(&fd, 1, 0) <= 0)
        return;
    if ((fd.revents & POLLOUT) && lookup->async)
        redisAsyncHandleWrite(lookup->async);
    if ((fd.revents & (POLLIN | POLLHUP | POLLERR)) && lookup->async)
        redisAsyncHandleRead(lookup->async);
}

static int redis_lookup_poll(LookupFunction *base, LookupCompletion completion, void *context,
                             Diag *diag)
{
    RedisLookup *lookup = base->impl;
    handle_ready(lookup);
    int status = JOINERY_OK;
    if (lookup->error.status != JOINERY_OK) {
        *diag = lookup->error;
        return diag->status;
    }
    if (!lookup->async && lookup_request_queue_first_pending(&lookup->queue))
        status = open_async(lookup, true, diag); /* the connection broke: send them again */
    if (status == JOINERY_OK)
        status = lookup_request_queue_complete(&lookup->queue, base, completion, context);
    update_wait(lookup);
    return status;
}

static void redis_lookup_close(LookupFunction *base)
{
    RedisLookup *lookup = base->impl;
    if (lookup->async) {
        redisAsyncContext *async = lookup->async;
        async->data = NULL; /* callbacks run by the free below find no lookup */
        lookup->async = NULL;
        redisAsyncFree(async);
    }
    lookup_request_queue_free(&lookup->queue);
    if (lookup->sync)
        redisFree(lookup->sync);
    row_builder_free(&lookup->builder);
    strbuf_free(&lookup->command.text);
    free(lookup);
}

static const LookupFunctionVtable REDIS_LOOKUP = {
    .lookup = redis_lookup_sync,
    .submit = redis_lookup_submit,
    .poll = redis_lookup_poll,
    .close = redis_lookup_close,
};

int redis_create_lookup(const LookupSpec *spec, LookupFunction **created, Diag *diag)
{
    const CatalogTable *table = spec->table;
    RedisLookup *lookup = calloc(1, sizeof *lookup);
    if (!lookup)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory creating a lookup");
    lookup->base.vtable = &REDIS_LOOKUP;
    lookup->base.spec = spec;
    lookup->base.impl = lookup;
    lookup->base.descriptor = -1;
    lookup_request_queue_init(&lookup->queue);
    row_builder_init(&lookup->builder);
    diag_clear(&lookup->error);
    int64_t retries = 1;
    const char *text = catalog_table_option(table, "lookup.max-retries");
    if (text)
        connector_parse_int64(text, &retries);
    lookup->max_retries = retries;
    int status = redis_layout(table, &lookup->layout, diag);
    bool keyed = spec->key_count == lookup->layout.key_columns;
    for (uint32_t k = 0; keyed && k < spec->key_count; k++)
        keyed = spec->key_columns[k] == k;
    if (status == JOINERY_OK && !keyed)
        status = diag_error(diag, JOINERY_ERROR_UNSUPPORTED,
                            "Table '%s': a redis table is looked up by its key column '%s'%s%s%s "
                            "(equality on %s).",
                            table->name, table->columns[0].name,
                            lookup->layout.key_columns == 2 ? " and its hash field column '" : "",
                            lookup->layout.key_columns == 2 ? table->columns[1].name : "",
                            lookup->layout.key_columns == 2 ? "'" : "",
                            lookup->layout.key_columns == 2 ? "both" : "it");
    if (status == JOINERY_OK) {
        lookup->sync = redis_connect(table, &lookup->layout, diag);
        status = lookup->sync ? JOINERY_OK : diag->status;
    }
    if (status == JOINERY_OK)
        status = open_async(lookup, false, diag);
    if (status != JOINERY_OK) {
        redis_lookup_close(&lookup->base);
        return status;
    }
    *created = &lookup->base;
    return JOINERY_OK;
}
