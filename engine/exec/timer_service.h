/*
 * timer_service.h - one operator's timers (Flink's InternalTimerService):
 * event-time and processing-time timers keyed by (key row, timestamp).
 *
 * Each domain is a TimerQueue created from the task's StateStore
 * (state.h), so timers are state on every backend and a snapshot carries
 * them. A timer is present at most once: registering (key, timestamp)
 * again does nothing; deleting an absent one does nothing. An operator-wide
 * timer (a cleanup cadence, an idleness check) uses the empty key (key
 * NULL).
 *
 * Firing (timer_service_advance): the domain's time moves to `time` (never
 * backwards) and every timer with timestamp <= time is taken out, earliest
 * first, and handed to the callback with a copy of its key (valid during
 * the call). A callback may register and delete timers; a timer it
 * registers at or before `time` fires in the same advance. The operator
 * framework (operator.c) advances event time with each merged watermark,
 * before the watermark goes downstream, and processing time from the task
 * loop (job_run.c), which waits for the earliest processing-time timer of
 * its operators (timer_service_next).
 *
 * Ownership: the service owns its queues; destroy it before the store is
 * closed. Not thread-safe: only the task's thread touches it.
 */
#ifndef JOINERY_EXEC_TIMER_SERVICE_H
#define JOINERY_EXEC_TIMER_SERVICE_H

#include <stdint.h>

#include "engine/base/diag.h"
#include "engine/base/row.h"
#include "engine/state/state.h"

typedef enum TimerDomain {
    TIMER_EVENT_TIME = 0,      /* fired by the merged input watermark */
    TIMER_PROCESSING_TIME = 1, /* fired by the processing-time clock */
} TimerDomain;

enum { TIMER_DOMAIN_COUNT = 2 };

typedef struct TimerService TimerService;

/* Fires one timer; a status other than JOINERY_OK stops the advance and is returned. */
typedef int (*TimerFire)(void *context, TimerDomain domain, int64_t timestamp, const Row *key);

/* An empty service on `store`; NULL when a queue cannot be created (the store says why). */
TimerService *timer_service_create(StateStore *store);
/* Frees the service and its queues. NULL is a no-op. */
void timer_service_destroy(TimerService *service);

/*
 * Registers the timer (key NULL: the empty key) unless present.
 * JOINERY_OK or the store's failure.
 */
int timer_service_register(TimerService *service, TimerDomain domain, int64_t timestamp,
                           const Row *key);
/* Deletes the timer if present. JOINERY_OK or the store's failure. */
int timer_service_delete(TimerService *service, TimerDomain domain, int64_t timestamp,
                         const Row *key);
/* The earliest timer of the domain, INT64_MAX when there is none (cheap: kept up to date). */
int64_t timer_service_next(const TimerService *service, TimerDomain domain);
/* Timers registered in the domain. */
uint64_t timer_service_count(const TimerService *service, TimerDomain domain);
/* The domain's time: the last watermark / processing time advanced to (INT64_MIN at first). */
int64_t timer_service_time(const TimerService *service, TimerDomain domain);

/*
 * Moves the domain's time to `time` (if later) and fires every timer due
 * at it, in timestamp order, through `fire`. JOINERY_OK, the callback's
 * status, or the store's failure.
 */
int timer_service_advance(TimerService *service, TimerDomain domain, int64_t time, TimerFire fire,
                          void *context);

/*
 * Writes the event-time then the processing-time timers (timer_queue_snapshot);
 * restore replaces the service's timers with a snapshot's (any backend).
 * JOINERY_OK or the failing status (diag filled).
 */
int timer_service_snapshot(TimerService *service, const StateWriter *writer, Diag *diag);
int timer_service_restore(TimerService *service, const StateReader *reader, Diag *diag);

#endif
