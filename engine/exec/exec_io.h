/*
 * exec_io.h - what a task waits on, and the seam of asynchronous I/O
 * (Flink's MailboxProcessor waiting for mail, and the completions of
 * AsyncWaitOperator's requests).
 *
 * Each task has one ExecIo (ExecContext.io): a poll set of the file
 * descriptors its operators watch plus the eventfd its mailbox signals on
 * a put (op_channel.h). The task loop (job_run.c) waits in exec_io_wait
 * for the first of: a message for it, a watched descriptor becoming
 * ready, its sources' next due time or its earliest processing-time
 * timer (at most 50 ms, so Ctrl-C is noticed). Callbacks run on the task's
 * own thread, so operators need no locks; after a callback the framework
 * flushes the operator's output downstream.
 *
 * Bounded requests in flight: an operator whose request queue is full
 * waits inside process with exec_wait_io, which runs only that operator's
 * callbacks (never new input, nor other operators' callbacks, which could
 * re-enter it through the pipeline), so upstream stays blocked and
 * backpressure is exact. Ordered or unordered emission is the operator's
 * own: a callback may emit (operator_emit) or only record a completion for
 * the operator to emit in order later. At the end of input an operator
 * waits in finish until its requests are done.
 */
#ifndef JOINERY_EXEC_EXEC_IO_H
#define JOINERY_EXEC_EXEC_IO_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/exec/operator.h"

/* Readiness a watch asks for, and what a callback is told. */
enum {
    EXEC_FD_READ = 1u,
    EXEC_FD_WRITE = 2u,
    EXEC_FD_ERROR = 4u, /* error or hang-up: always reported */
};

/*
 * A watched descriptor is ready: `events` says how (EXEC_FD_*). Level
 * triggered: it is called again while the descriptor stays ready, so the
 * callback reads what is there (or unwatches). May watch and unwatch
 * descriptors, its own included. Returns JOINERY_OK or an error (op's diag
 * filled), which fails the task.
 */
typedef int (*ExecFdCallback)(Operator *op, int fd, uint32_t events);

/* An empty wait set; NULL on no memory. */
ExecIo *exec_io_create(void);
/* Frees it (the watched descriptors stay open: their operators own them). NULL is a no-op. */
void exec_io_destroy(ExecIo *io);
/*
 * The descriptor (an eventfd) whose readiness only ends a wait: it is read
 * to clear it and no callback runs. -1: none.
 */
void exec_io_set_wake_fd(ExecIo *io, int fd);
/* Descriptors watched now. */
uint32_t exec_io_watch_count(const ExecIo *io);
/*
 * Waits up to timeout_millis (0: only looks) until a watched descriptor
 * (of operator `only`, or of any when NULL) or the wake descriptor is
 * ready, then runs the callbacks of the ready ones. *woken (may be NULL):
 * the wake descriptor was ready. JOINERY_OK or the first failing
 * callback's status.
 */
int exec_io_wait(ExecIo *io, int64_t timeout_millis, const Operator *only, bool *woken);

/*
 * Watches `fd` for `events` (EXEC_FD_READ / EXEC_FD_WRITE) on the task of
 * `op` (context->io): `callback` runs on that task's thread when it is
 * ready. A descriptor is watched once. JOINERY_OK or an error (op failed).
 */
int exec_watch_fd(ExecContext *context, int fd, uint32_t events, ExecFdCallback callback,
                  Operator *op);
/* Stops watching `fd` (before closing it). Unknown descriptors are ignored. */
int exec_unwatch_fd(ExecContext *context, int fd);
/*
 * For an operator inside process or finish whose requests in flight are at
 * their bound: waits up to timeout_millis for one of its own descriptors
 * and runs its callbacks only (exec_io_wait with only = op).
 */
int exec_wait_io(Operator *op, int64_t timeout_millis);

#endif
