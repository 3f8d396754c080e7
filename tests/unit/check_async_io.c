/*
 * check_async_io.c - Check suite for a task's wait set and asynchronous
 * I/O (engine/exec/exec_io.h): a put into the mailbox ends a wait, watched
 * descriptors run their callbacks on the waiting thread, exec_wait_io runs
 * only the waiting operator's callbacks, and an operator with a bounded
 * number of requests in flight (fake latency: a timerfd per request, as a
 * lookup join's async client would give) keeps at most `capacity` of them
 * and so runs at capacity / latency. Assertions are on counts and order,
 * never on wall-clock time; the measured rate is printed.
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "engine/base/type.h"
#include "engine/base/value.h"
#include "engine/exec/exec_io.h"
#include "engine/exec/ops/op_channel.h"
#include "tests/unit/operator_harness.h"

static DataType one_bigint[1];

static void sleep_millis(long millis)
{
    struct timespec pause = {millis / 1000, (millis % 1000) * 1000000L};
    nanosleep(&pause, NULL);
}

/* ---- waking on a put, callbacks of watched descriptors ---- */

typedef struct Putter {
    Operator *channel;
    long delay_millis;
} Putter;

static void *put_later(void *argument)
{
    Putter *putter = argument;
    sleep_millis(putter->delay_millis);
    ck_assert_int_eq(operator_push_watermark(putter->channel, 0, 0, 42), JOINERY_OK);
    return NULL;
}

START_TEST(test_put_ends_a_wait)
{
    Diag diag;
    diag_clear(&diag);
    ExecContext context = {.diag = &diag, .parallelism = 1};
    volatile int stop = 0;
    Mailbox mailbox;
    ck_assert_int_eq(mailbox_init(&mailbox, 4, &stop, NULL), JOINERY_OK);
    ck_assert_int_ge(mailbox.wake_fd, 0);
    Operator target;
    operator_init(&target, NULL, "Target", 1, NULL);
    Operator *channel = channel_operator_create(&mailbox, &target, 0, 0, &diag);
    ck_assert_int_eq(operator_open(channel, &context), JOINERY_OK);
    ExecIo *io = exec_io_create();
    exec_io_set_wake_fd(io, mailbox.wake_fd);
    /* empty: the consumer may wait; another thread's put ends the wait */
    ck_assert(mailbox_prepare_wait(&mailbox));
    Putter putter = {channel, 30};
    pthread_t thread;
    ck_assert_int_eq(pthread_create(&thread, NULL, put_later, &putter), 0);
    bool woken = false;
    for (int round = 0; round < 100 && !woken; round++) /* 100 x 10 s: only a lost wake ends */
        ck_assert_int_eq(exec_io_wait(io, 10000, NULL, &woken), JOINERY_OK);
    ck_assert(woken);
    ck_assert_int_eq(pthread_join(thread, NULL), 0);
    /* a message is there: no wait */
    ck_assert(!mailbox_prepare_wait(&mailbox));
    MailboxMessage *message = mailbox_take(&mailbox, 0);
    ck_assert_ptr_nonnull(message);
    ck_assert_int_eq(message->kind, STREAM_WATERMARK);
    ck_assert_int_eq(message->watermark, 42);
    free(message);
    /* the wake was cleared: a wait now times out without waking */
    ck_assert_int_eq(exec_io_wait(io, 1, NULL, &woken), JOINERY_OK);
    ck_assert(!woken);
    exec_io_destroy(io);
    operator_close(channel);
    operator_close(&target);
    mailbox_destroy(&mailbox);
}
END_TEST

typedef struct Reader {
    Operator base;
    int calls;
    char seen[16];
} Reader;

static int reader_ready(Operator *op, int fd, uint32_t events)
{
    Reader *reader = op->impl;
    ck_assert(events & EXEC_FD_READ);
    char byte;
    ck_assert_int_eq(read(fd, &byte, 1), 1);
    reader->seen[reader->calls++] = byte;
    return JOINERY_OK;
}

typedef struct Writer {
    int fd;
    char byte;
    long delay_millis;
} Writer;

static void *write_later(void *argument)
{
    Writer *writer = argument;
    sleep_millis(writer->delay_millis);
    ck_assert_int_eq(write(writer->fd, &writer->byte, 1), 1);
    return NULL;
}

START_TEST(test_watched_descriptors)
{
    Diag diag;
    diag_clear(&diag);
    ExecContext context = {.diag = &diag, .parallelism = 1, .io = exec_io_create()};
    static const OperatorVtable READER_VTABLE = {0};
    Reader readers[2];
    int pipes[2][2];
    for (int i = 0; i < 2; i++) {
        memset(&readers[i], 0, sizeof readers[i]);
        operator_init(&readers[i].base, &READER_VTABLE, "Reader", 1, &readers[i]);
        ck_assert_int_eq(operator_open(&readers[i].base, &context), JOINERY_OK);
        ck_assert_int_eq(pipe(pipes[i]), 0);
        ck_assert_int_eq(
            exec_watch_fd(&context, pipes[i][0], EXEC_FD_READ, reader_ready, &readers[i].base),
            JOINERY_OK);
    }
    ck_assert_uint_eq(exec_io_watch_count(context.io), 2);
    /* a descriptor is watched once */
    ck_assert_int_ne(
        exec_watch_fd(&context, pipes[0][0], EXEC_FD_READ, reader_ready, &readers[0].base),
        JOINERY_OK);
    diag_clear(&diag);
    /* nothing ready: the wait times out */
    ck_assert_int_eq(exec_io_wait(context.io, 1, NULL, NULL), JOINERY_OK);
    ck_assert_int_eq(readers[0].calls + readers[1].calls, 0);
    /* another thread writes later: the waiting thread runs the callback */
    Writer writer = {pipes[1][1], 'x', 30};
    pthread_t thread;
    ck_assert_int_eq(pthread_create(&thread, NULL, write_later, &writer), 0);
    while (readers[1].calls == 0)
        ck_assert_int_eq(exec_io_wait(context.io, 10000, NULL, NULL), JOINERY_OK);
    ck_assert_int_eq(pthread_join(thread, NULL), 0);
    ck_assert_int_eq(readers[1].seen[0], 'x');
    /* both ready: exec_wait_io of reader 0 runs reader 0's callback only */
    ck_assert_int_eq(write(pipes[0][1], "a", 1), 1);
    ck_assert_int_eq(write(pipes[1][1], "b", 1), 1);
    ck_assert_int_eq(exec_wait_io(&readers[0].base, 1000), JOINERY_OK);
    ck_assert_int_eq(readers[0].calls, 1);
    ck_assert_int_eq(readers[1].calls, 1);
    ck_assert_int_eq(exec_io_wait(context.io, 1000, NULL, NULL), JOINERY_OK);
    ck_assert_int_eq(readers[1].calls, 2);
    ck_assert_int_eq(readers[1].seen[1], 'b');
    /* unwatched: no more callbacks */
    ck_assert_int_eq(exec_unwatch_fd(&context, pipes[0][0]), JOINERY_OK);
    ck_assert_int_eq(write(pipes[0][1], "c", 1), 1);
    ck_assert_int_eq(exec_io_wait(context.io, 1, NULL, NULL), JOINERY_OK);
    ck_assert_int_eq(readers[0].calls, 1);
    ck_assert_uint_eq(exec_io_watch_count(context.io), 1);
    for (int i = 0; i < 2; i++) {
        exec_unwatch_fd(&context, pipes[i][0]);
        close(pipes[i][0]);
        close(pipes[i][1]);
        operator_close(&readers[i].base);
    }
    exec_io_destroy(context.io);
}
END_TEST

/* ---- an operator with a bounded number of requests in flight ---- */

/*
 * AsyncLookup: for each row, a request answered after a fake latency (a
 * timerfd armed per request, watched on the task's wait set); at most
 * `capacity` requests are queued (in flight, or done but not yet emitted in
 * order). Unordered: a row is emitted when its request completes; ordered:
 * in input order.
 */
typedef struct Request {
    int fd; /* -1: a free slot */
    uint64_t sequence;
    bool done;
    Row *row;
} Request;

typedef struct AsyncLookup {
    Operator base;
    uint32_t capacity;
    bool ordered;
    long latency_micros;    /* each request's latency... */
    long latency_variation; /* ... plus sequence * 7919 % variation */
    Request *requests;
    uint32_t queued;
    uint32_t max_queued;
    uint64_t next_sequence;
    uint64_t next_emit; /* ordered: the sequence emitted next */
    uint64_t waits;     /* times process waited for room */
} AsyncLookup;

static int lookup_emit(AsyncLookup *lookup, Request *request)
{
    int status = operator_emit(&lookup->base, request->row, ROW_KIND_INSERT);
    free(request->row);
    request->row = NULL;
    request->fd = -1;
    request->done = false;
    lookup->queued--;
    return status;
}

/* Ordered: emits completed requests from the oldest on, up to the first pending one. */
static int lookup_emit_in_order(AsyncLookup *lookup)
{
    for (bool found = true; found;) {
        found = false;
        for (uint32_t i = 0; i < lookup->capacity; i++) {
            Request *request = &lookup->requests[i];
            if (request->row && request->done && request->sequence == lookup->next_emit) {
                lookup->next_emit++;
                found = true;
                int status = lookup_emit(lookup, request);
                if (status != JOINERY_OK)
                    return status;
            }
        }
    }
    return JOINERY_OK;
}

static int lookup_complete(Operator *op, int fd, uint32_t events)
{
    (void)events;
    AsyncLookup *lookup = op->impl;
    uint64_t expirations;
    ck_assert_int_eq(read(fd, &expirations, sizeof expirations), sizeof expirations);
    exec_unwatch_fd(op->context, fd);
    close(fd);
    for (uint32_t i = 0; i < lookup->capacity; i++) {
        Request *request = &lookup->requests[i];
        if (request->row && request->fd == fd && !request->done) {
            request->done = true;
            return lookup->ordered ? lookup_emit_in_order(lookup) : lookup_emit(lookup, request);
        }
    }
    return operator_fail(op, JOINERY_ERROR, "a completion of no request");
}

static int lookup_start(AsyncLookup *lookup, const Row *row)
{
    Request *request = NULL;
    for (uint32_t i = 0; i < lookup->capacity && !request; i++)
        if (!lookup->requests[i].row)
            request = &lookup->requests[i];
    ck_assert_ptr_nonnull(request);
    long micros = lookup->latency_micros;
    if (lookup->latency_variation)
        micros += (long)(lookup->next_sequence * 7919 % (uint64_t)lookup->latency_variation);
    int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    ck_assert_int_ge(fd, 0);
    struct itimerspec when = {{0, 0}, {micros / 1000000, (micros % 1000000) * 1000}};
    ck_assert_int_eq(timerfd_settime(fd, 0, &when, NULL), 0);
    request->fd = fd;
    request->sequence = lookup->next_sequence++;
    request->done = false;
    request->row = row_copy_heap(row);
    if (++lookup->queued > lookup->max_queued)
        lookup->max_queued = lookup->queued;
    return exec_watch_fd(lookup->base.context, fd, EXEC_FD_READ, lookup_complete, &lookup->base);
}

static int lookup_process(Operator *self, uint32_t input, const RowBatch *batch)
{
    (void)input;
    AsyncLookup *lookup = self->impl;
    for (uint32_t r = 0; r < batch->count; r++) {
        /* full: wait here for completions (only ours run); the caller, and so every
           upstream operator and producer, waits with us */
        while (lookup->queued == lookup->capacity) {
            lookup->waits++;
            int status = exec_wait_io(self, 1000);
            if (status != JOINERY_OK)
                return status;
        }
        int status = lookup_start(lookup, batch->rows[r]);
        if (status != JOINERY_OK)
            return status;
    }
    return JOINERY_OK;
}

static int lookup_finish(Operator *self)
{
    AsyncLookup *lookup = self->impl;
    while (lookup->queued > 0) {
        int status = exec_wait_io(self, 1000);
        if (status != JOINERY_OK)
            return status;
    }
    return JOINERY_OK;
}

static void lookup_close(Operator *self)
{
    AsyncLookup *lookup = self->impl;
    for (uint32_t i = 0; i < lookup->capacity; i++) {
        if (lookup->requests[i].row && !lookup->requests[i].done) {
            exec_unwatch_fd(self->context, lookup->requests[i].fd);
            close(lookup->requests[i].fd);
        }
        free(lookup->requests[i].row);
    }
    free(lookup->requests);
}

static const OperatorVtable LOOKUP_VTABLE = {
    .process = lookup_process,
    .finish = lookup_finish,
    .close = lookup_close,
};

/* Feeds `rows` rows through a lookup in batches of 16; returns the seconds it took. */
static double run_lookup(AsyncLookup *lookup, Harness *h, uint32_t rows)
{
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (uint32_t sent = 0; sent < rows;) {
        Row *batch_rows[16];
        RowBuilder builders[16];
        uint32_t n = 0;
        for (; n < 16 && sent < rows; n++, sent++) {
            row_builder_init(&builders[n]);
            row_builder_begin(&builders[n], 1, ROW_KIND_INSERT);
            row_builder_set_int64(&builders[n], 0, sent);
            batch_rows[n] = row_builder_finish(&builders[n]);
        }
        RowBatch batch = {.rows = batch_rows, .count = n, .capacity = n};
        ck_assert_int_eq(operator_push(h->op, 0, &batch), JOINERY_OK);
        ck_assert_uint_le(lookup->queued, lookup->capacity);
        for (uint32_t i = 0; i < n; i++)
            row_builder_free(&builders[i]);
    }
    ck_assert_int_eq(operator_end_input(h->op, 0), JOINERY_OK);
    clock_gettime(CLOCK_MONOTONIC, &end);
    return (double)(end.tv_sec - start.tv_sec) + (double)(end.tv_nsec - start.tv_nsec) / 1e9;
}

static void lookup_open(Harness *h, AsyncLookup *lookup, uint32_t capacity, bool ordered)
{
    one_bigint[0] = type_make(TYPE_BIGINT, false);
    memset(lookup, 0, sizeof *lookup);
    lookup->capacity = capacity;
    lookup->ordered = ordered;
    lookup->requests = calloc(capacity, sizeof *lookup->requests);
    operator_init(&lookup->base, &LOOKUP_VTABLE, "AsyncLookup", 1, lookup);
    harness_open(h, &lookup->base, one_bigint, 1);
    h->context.io = exec_io_create();
}

static void lookup_close_harness(Harness *h)
{
    ExecIo *io = h->context.io;
    harness_close(h);
    exec_io_destroy(io);
}

/* Counts the rows of a log "+I(0) +I(3) ..." and checks each of 0..rows-1 is there once. */
static void check_every_row_once(const char *log, uint32_t rows, bool in_order)
{
    char *seen = calloc(rows, 1);
    uint32_t count = 0;
    long previous = -1;
    for (const char *cursor = strstr(log, "+I("); cursor; cursor = strstr(cursor + 1, "+I(")) {
        long value = strtol(cursor + 3, NULL, 10);
        ck_assert(value >= 0 && value < (long)rows && !seen[value]);
        if (in_order)
            ck_assert_int_eq(value, previous + 1);
        previous = value;
        seen[value] = 1;
        count++;
    }
    ck_assert_uint_eq(count, rows);
    free(seen);
}

START_TEST(test_bounded_requests_in_flight)
{
    enum { CAPACITY = 10, ROWS = 200, LATENCY_MILLIS = 20 };
    Harness h;
    AsyncLookup lookup;
    lookup_open(&h, &lookup, CAPACITY, false);
    lookup.latency_micros = LATENCY_MILLIS * 1000;
    double seconds = run_lookup(&lookup, &h, ROWS);
    /* every request answered once, never more than CAPACITY at a time, and the queue was
       full (so the rate is set by capacity and latency) */
    check_every_row_once(harness_take(&h), ROWS, false);
    ck_assert_uint_eq(lookup.queued, 0);
    ck_assert_uint_eq(lookup.max_queued, CAPACITY);
    ck_assert_uint_ge(lookup.waits, (ROWS - CAPACITY) / CAPACITY); /* a wait per wave at least */
    ck_assert_uint_eq(exec_io_watch_count(h.context.io), 0);
    double rate = ROWS / seconds;
    double bound = CAPACITY / (LATENCY_MILLIS / 1000.0);
    fprintf(stderr,
            "async lookups: %d requests, capacity %d, latency %d ms: %.0f requests/s "
            "(capacity / latency = %.0f/s)\n",
            ROWS, CAPACITY, LATENCY_MILLIS, rate, bound);
    lookup_close_harness(&h);
}
END_TEST

START_TEST(test_ordered_emission)
{
    /* latencies vary per request (5 to 25 ms), so completions come out of order; the
       operator emits in input order, a completed request keeping its place in the queue */
    enum { CAPACITY = 6, ROWS = 90 };
    Harness h;
    AsyncLookup lookup;
    lookup_open(&h, &lookup, CAPACITY, true);
    lookup.latency_micros = 5000;
    lookup.latency_variation = 20000;
    run_lookup(&lookup, &h, ROWS);
    check_every_row_once(harness_take(&h), ROWS, true);
    ck_assert_uint_le(lookup.max_queued, CAPACITY);
    ck_assert_uint_eq(lookup.queued, 0);
    lookup_close_harness(&h);
}
END_TEST

static Suite *async_io_suite(void)
{
    Suite *suite = suite_create("async_io");
    TCase *io = tcase_create("io");
    tcase_set_timeout(io, 60);
    tcase_add_test(io, test_put_ends_a_wait);
    tcase_add_test(io, test_watched_descriptors);
    tcase_add_test(io, test_bounded_requests_in_flight);
    tcase_add_test(io, test_ordered_emission);
    suite_add_tcase(suite, io);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(async_io_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
