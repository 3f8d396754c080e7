/*
 * timer_service.c - see timer_service.h. One TimerQueue per domain; the
 * earliest timestamp of each is cached (INT64_MAX: empty) so that the task
 * loop can ask every operator for its next processing-time timer each
 * round without touching the store. The cache is refreshed from the queue
 * after every change that can raise it (a delete of the earliest, a pop).
 */
#include "engine/exec/timer_service.h"

#include <stdlib.h>
#include <string.h>

struct TimerService {
    StateStore *store;
    TimerQueue *queues[TIMER_DOMAIN_COUNT];
    int64_t next[TIMER_DOMAIN_COUNT]; /* earliest timestamp; INT64_MAX when empty */
    int64_t time[TIMER_DOMAIN_COUNT]; /* watermark / processing time advanced to */
    Row *empty_key;                   /* the key of operator-wide timers */
    uint64_t *fired_key;              /* copy of the key of the timer being fired */
    size_t fired_capacity;            /* in words */
};

static int timer_service_refresh(TimerService *service, TimerDomain domain)
{
    int64_t time;
    const Row *key;
    int found = timer_queue_peek(service->queues[domain], &time, &key);
    if (found < 0)
        return found;
    service->next[domain] = found ? time : INT64_MAX;
    return JOINERY_OK;
}

static bool timer_service_queues_create(TimerService *service)
{
    for (int d = 0; d < TIMER_DOMAIN_COUNT; d++) {
        service->queues[d] = timer_queue_create(service->store);
        service->next[d] = INT64_MAX;
        if (!service->queues[d])
            return false;
    }
    return true;
}

static void timer_service_queues_destroy(TimerService *service)
{
    for (int d = 0; d < TIMER_DOMAIN_COUNT; d++) {
        timer_queue_destroy(service->queues[d]);
        service->queues[d] = NULL;
    }
}

TimerService *timer_service_create(StateStore *store)
{
    TimerService *service = calloc(1, sizeof *service);
    if (!service) {
        state_store_set_error(store, JOINERY_ERROR_NO_MEMORY, "out of memory");
        return NULL;
    }
    service->store = store;
    for (int d = 0; d < TIMER_DOMAIN_COUNT; d++)
        service->time[d] = INT64_MIN;
    RowBuilder builder;
    row_builder_init(&builder);
    row_builder_begin(&builder, 0, ROW_KIND_INSERT);
    Row *empty = row_builder_finish(&builder);
    service->empty_key = empty ? row_copy_heap(empty) : NULL;
    row_builder_free(&builder);
    if (!service->empty_key) {
        state_store_set_error(store, JOINERY_ERROR_NO_MEMORY, "out of memory");
        timer_service_destroy(service);
        return NULL;
    }
    if (!timer_service_queues_create(service)) {
        timer_service_destroy(service);
        return NULL;
    }
    return service;
}

void timer_service_destroy(TimerService *service)
{
    if (!service)
        return;
    timer_service_queues_destroy(service);
    free(service->empty_key);
    free(service->fired_key);
    free(service);
}

int timer_service_register(TimerService *service, TimerDomain domain, int64_t timestamp,
                           const Row *key)
{
    int status =
        timer_queue_add(service->queues[domain], timestamp, key ? key : service->empty_key, NULL);
    if (status == JOINERY_OK && timestamp < service->next[domain])
        service->next[domain] = timestamp;
    return status;
}

int timer_service_delete(TimerService *service, TimerDomain domain, int64_t timestamp,
                         const Row *key)
{
    bool removed = false;
    int status = timer_queue_remove(service->queues[domain], timestamp,
                                    key ? key : service->empty_key, &removed);
    if (status == JOINERY_OK && removed && timestamp == service->next[domain])
        status = timer_service_refresh(service, domain);
    return status;
}

int64_t timer_service_next(const TimerService *service, TimerDomain domain)
{
    return service->next[domain];
}

uint64_t timer_service_count(const TimerService *service, TimerDomain domain)
{
    return timer_queue_count(service->queues[domain]);
}

int64_t timer_service_time(const TimerService *service, TimerDomain domain)
{
    return service->time[domain];
}

/* Copies `key` into the service's buffer: the queue's view ends with the pop. */
static const Row *timer_service_keep_key(TimerService *service, const Row *key)
{
    size_t words = row_size(key) / 8;
    if (words > service->fired_capacity) {
        uint64_t *grown = realloc(service->fired_key, words * 8);
        if (!grown)
            return NULL;
        service->fired_key = grown;
        service->fired_capacity = words;
    }
    memcpy(service->fired_key, key, row_size(key));
    return (const Row *)service->fired_key;
}

int timer_service_advance(TimerService *service, TimerDomain domain, int64_t time, TimerFire fire,
                          void *context)
{
    if (time > service->time[domain])
        service->time[domain] = time;
    TimerQueue *queue = service->queues[domain];
    while (service->next[domain] <= time) {
        int64_t timestamp;
        const Row *key;
        int found = timer_queue_peek(queue, &timestamp, &key);
        if (found <= 0) {
            service->next[domain] = INT64_MAX;
            return found;
        }
        const Row *kept = timer_service_keep_key(service, key);
        if (!kept) {
            state_store_set_error(service->store, JOINERY_ERROR_NO_MEMORY, "out of memory");
            return JOINERY_ERROR_NO_MEMORY;
        }
        int status = timer_queue_pop(queue);
        if (status == JOINERY_OK)
            status = timer_service_refresh(service, domain);
        if (status == JOINERY_OK)
            status = fire(context, domain, timestamp, kept);
        if (status != JOINERY_OK)
            return status;
    }
    return JOINERY_OK;
}

int timer_service_snapshot(TimerService *service, const StateWriter *writer, Diag *diag)
{
    int status = JOINERY_OK;
    for (int d = 0; d < TIMER_DOMAIN_COUNT && status == JOINERY_OK; d++)
        status = timer_queue_snapshot(service->queues[d], writer, diag);
    return status;
}

int timer_service_restore(TimerService *service, const StateReader *reader, Diag *diag)
{
    /* the snapshot's timers replace the ones registered since open */
    timer_service_queues_destroy(service);
    if (!timer_service_queues_create(service))
        return diag_error(diag, state_store_error_status(service->store),
                          "could not create timers to restore: %s",
                          state_store_error(service->store));
    int status = JOINERY_OK;
    for (int d = 0; d < TIMER_DOMAIN_COUNT && status == JOINERY_OK; d++) {
        status = timer_queue_restore(service->queues[d], reader, diag);
        if (status == JOINERY_OK)
            status = timer_service_refresh(service, (TimerDomain)d);
    }
    return status;
}
