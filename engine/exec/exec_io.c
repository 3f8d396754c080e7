/*
 * exec_io.c - a task's wait set over poll(2) (see exec_io.h).
 *
 * Watches live in slots; a slot freed by exec_unwatch_fd may be reused, so
 * each carries a generation and a wait dispatches a ready descriptor only
 * when its slot still holds the watch the poll set was built from (a
 * callback may unwatch or replace other watches while a wait dispatches).
 */
#define _POSIX_C_SOURCE 200809L
#include "engine/exec/exec_io.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "engine/base/value.h"

typedef struct ExecWatch {
    int fd; /* -1: a free slot */
    uint32_t events;
    uint32_t generation;
    ExecFdCallback callback;
    Operator *op;
} ExecWatch;

typedef struct ExecPolled {
    uint32_t slot; /* UINT32_MAX: the wake descriptor */
    uint32_t generation;
} ExecPolled;

struct ExecIo {
    int wake_fd;
    ExecWatch *watches;
    uint32_t watch_capacity;
    uint32_t watch_count;
    struct pollfd *polls; /* the wait's poll set, rebuilt each wait */
    ExecPolled *polled;   /* what each entry of it is */
    uint32_t poll_capacity;
};

ExecIo *exec_io_create(void)
{
    ExecIo *io = calloc(1, sizeof *io);
    if (io)
        io->wake_fd = -1;
    return io;
}

void exec_io_destroy(ExecIo *io)
{
    if (!io)
        return;
    free(io->watches);
    free(io->polls);
    free(io->polled);
    free(io);
}

void exec_io_set_wake_fd(ExecIo *io, int fd)
{
    io->wake_fd = fd;
}

uint32_t exec_io_watch_count(const ExecIo *io)
{
    return io ? io->watch_count : 0;
}

int exec_watch_fd(ExecContext *context, int fd, uint32_t events, ExecFdCallback callback,
                  Operator *op)
{
    ExecIo *io = context->io;
    if (!io)
        return operator_fail(op, JOINERY_ERROR, "%s: its task cannot watch descriptors", op->name);
    uint32_t free_slot = UINT32_MAX;
    for (uint32_t i = 0; i < io->watch_capacity; i++) {
        if (io->watches[i].fd == fd)
            return operator_fail(op, JOINERY_ERROR, "%s: descriptor %d is watched already",
                                 op->name, fd);
        if (io->watches[i].fd < 0 && free_slot == UINT32_MAX)
            free_slot = i;
    }
    if (free_slot == UINT32_MAX) {
        uint32_t capacity = io->watch_capacity ? io->watch_capacity * 2 : 8;
        ExecWatch *grown = realloc(io->watches, capacity * sizeof *grown);
        if (!grown)
            return operator_fail(op, JOINERY_ERROR_NO_MEMORY, "out of memory");
        for (uint32_t i = io->watch_capacity; i < capacity; i++)
            grown[i] = (ExecWatch){.fd = -1};
        free_slot = io->watch_capacity;
        io->watches = grown;
        io->watch_capacity = capacity;
    }
    ExecWatch *watch = &io->watches[free_slot];
    watch->fd = fd;
    watch->events = events;
    watch->generation++;
    watch->callback = callback;
    watch->op = op;
    io->watch_count++;
    return JOINERY_OK;
}

int exec_unwatch_fd(ExecContext *context, int fd)
{
    ExecIo *io = context->io;
    for (uint32_t i = 0; io && i < io->watch_capacity; i++)
        if (io->watches[i].fd == fd) {
            io->watches[i].fd = -1;
            io->watches[i].generation++;
            io->watch_count--;
            break;
        }
    return JOINERY_OK;
}

/* Builds the poll set: the wake descriptor (when there is one) and the watches of `only`. */
static bool exec_io_poll_set(ExecIo *io, const Operator *only, uint32_t *count)
{
    uint32_t needed = io->watch_count + 1;
    if (needed > io->poll_capacity) {
        struct pollfd *polls = realloc(io->polls, needed * sizeof *polls);
        if (polls)
            io->polls = polls;
        ExecPolled *polled = polls ? realloc(io->polled, needed * sizeof *polled) : NULL;
        if (!polled)
            return false;
        io->polled = polled;
        io->poll_capacity = needed;
    }
    uint32_t n = 0;
    if (io->wake_fd >= 0 && !only) {
        io->polls[n] = (struct pollfd){.fd = io->wake_fd, .events = POLLIN};
        io->polled[n++] = (ExecPolled){UINT32_MAX, 0};
    }
    for (uint32_t i = 0; i < io->watch_capacity; i++) {
        const ExecWatch *watch = &io->watches[i];
        if (watch->fd < 0 || (only && watch->op != only))
            continue;
        short events = (short)(((watch->events & EXEC_FD_READ) ? POLLIN : 0) |
                               ((watch->events & EXEC_FD_WRITE) ? POLLOUT : 0));
        io->polls[n] = (struct pollfd){.fd = watch->fd, .events = events};
        io->polled[n++] = (ExecPolled){i, watch->generation};
    }
    *count = n;
    return true;
}

/* Runs the callback of a ready watch, timed as its operator's work, then flushes it. */
static int exec_io_dispatch(ExecWatch *watch, short revents)
{
    uint32_t events = ((revents & POLLIN) ? EXEC_FD_READ : 0) |
                      ((revents & POLLOUT) ? EXEC_FD_WRITE : 0) |
                      ((revents & (POLLERR | POLLHUP | POLLNVAL)) ? EXEC_FD_ERROR : 0);
    Operator *op = watch->op;
    int64_t start = datetime_monotonic_nanos();
    int status = watch->callback(op, watch->fd, events);
    op->metrics.busy_nanos += (uint64_t)(datetime_monotonic_nanos() - start);
    return status == JOINERY_OK ? operator_flush(op) : status;
}

int exec_io_wait(ExecIo *io, int64_t timeout_millis, const Operator *only, bool *woken)
{
    if (woken)
        *woken = false;
    uint32_t count = 0;
    if (!exec_io_poll_set(io, only, &count))
        return JOINERY_ERROR_NO_MEMORY;
    int timeout = timeout_millis <= 0 ? 0 : timeout_millis > 60000 ? 60000 : (int)timeout_millis;
    int ready = poll(io->polls, count, timeout);
    if (ready <= 0)
        return JOINERY_OK; /* timed out, or a signal (EINTR): the caller looks again */
    for (uint32_t i = 0; i < count; i++) {
        short revents = io->polls[i].revents;
        if (!revents)
            continue;
        const ExecPolled *what = &io->polled[i];
        if (what->slot == UINT32_MAX) {
            uint64_t value;
            ssize_t length = read(io->wake_fd, &value, sizeof value); /* clears it */
            (void)length;
            if (woken)
                *woken = true;
            continue;
        }
        ExecWatch *watch = &io->watches[what->slot];
        if (watch->fd < 0 || watch->generation != what->generation)
            continue; /* unwatched (or replaced) by an earlier callback of this wait */
        int status = exec_io_dispatch(watch, revents);
        if (status != JOINERY_OK)
            return status;
    }
    return JOINERY_OK;
}

int exec_wait_io(Operator *op, int64_t timeout_millis)
{
    if (!op->context || !op->context->io)
        return operator_fail(op, JOINERY_ERROR, "%s: its task cannot watch descriptors", op->name);
    return exec_io_wait(op->context->io, timeout_millis, op, NULL);
}
