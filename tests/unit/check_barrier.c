/*
 * check_barrier.c - Check suite for checkpoint barriers (engine/exec/
 * snapshot.h, operator.h "Barriers"): alignment at an operator with two
 * channels through direct calls (rows on a blocked channel are kept and
 * replayed in order), subsumed and obsolete barriers, an ended channel
 * counting as delivered, alignment between threads through a mailbox (the
 * blocked channel's producer waits while the other flows), and whole jobs
 * at parallelism 1 and 2: a join fed at two speeds, barriers triggered
 * while it runs; every join snapshot holds exactly the rows its sources
 * sent before the barrier, and the output equals a run without barriers.
 *
 * The snapshot storage of the tests logs "S<id>:<operator>=<n>" where n is
 * what a Recorder counted (rows seen) or nothing for stateless operators.
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/base/type.h"
#include "engine/exec/job.h"
#include "engine/exec/job_internal.h" /* Job.drained */
#include "engine/exec/ops/op_channel.h"
#include "engine/exec/snapshot.h"
#include "tests/unit/operator_harness.h"
#include "tests/unit/planner_fixture.h"

/* ---- a two-input operator that counts rows and snapshots the count ---- */

typedef struct Recorder {
    Operator base;
    uint64_t rows;
} Recorder;

static int recorder_process(Operator *self, uint32_t input, const RowBatch *batch)
{
    (void)input;
    Recorder *recorder = self->impl;
    for (uint32_t r = 0; r < batch->count; r++) {
        recorder->rows++;
        int status = operator_emit(self, batch->rows[r], row_kind(batch->rows[r]));
        if (status != JOINERY_OK)
            return status;
    }
    return JOINERY_OK;
}

static int recorder_snapshot(Operator *self, const Barrier *barrier, const StateWriter *writer)
{
    (void)barrier;
    Recorder *recorder = self->impl;
    return writer->write(writer->context, &recorder->rows, sizeof recorder->rows);
}

static int recorder_restore(Operator *self, const StateReader *reader)
{
    Recorder *recorder = self->impl;
    return reader->read(reader->context, &recorder->rows, sizeof recorder->rows);
}

static const OperatorVtable RECORDER_VTABLE = {
    .process = recorder_process,
    .snapshot = recorder_snapshot,
    .restore = recorder_restore,
};

/* Logs every snapshot into a StrBuf: "S1:Recorder=3", "S1:Collector". */
static int log_snapshot(void *context, Operator *op, const Barrier *barrier, const void *bytes,
                        size_t length)
{
    StrBuf *log = context;
    if (log->length)
        strbuf_append_char(log, ' ');
    strbuf_printf(log, "S%lld:%s", (long long)barrier->checkpoint_id, op->name);
    if (length >= sizeof(uint64_t)) {
        uint64_t rows;
        memcpy(&rows, bytes, sizeof rows);
        strbuf_printf(log, "=%llu", (unsigned long long)rows);
    }
    return JOINERY_OK;
}

static DataType one_bigint[1];

typedef struct Aligned {
    Harness h;
    Recorder recorder;
    SnapshotStorage storage;
} Aligned;

static void aligned_open(Aligned *a)
{
    one_bigint[0] = type_make(TYPE_BIGINT, true);
    memset(&a->recorder, 0, sizeof a->recorder);
    operator_init(&a->recorder.base, &RECORDER_VTABLE, "Recorder", 2, &a->recorder);
    harness_open(&a->h, &a->recorder.base, one_bigint, 1);
    a->h.collector.log_watermarks = true;
    a->storage = (SnapshotStorage){.store = log_snapshot, .context = &a->h.collector.log};
    a->h.context.snapshots = &a->storage;
}

static void barrier_on(Aligned *a, uint32_t channel, int64_t id)
{
    Barrier barrier = {id, 1000 + id};
    ck_assert_int_eq(operator_push_barrier(a->h.op, channel, channel, &barrier), JOINERY_OK);
}

static void row_on(Aligned *a, uint32_t channel, const char *text)
{
    push_text(&a->h, channel, one_bigint, 1, text);
}

#define EXPECT(a, text) ck_assert_str_eq(harness_take(&(a)->h), text)

START_TEST(test_alignment_direct_calls)
{
    Aligned a;
    aligned_open(&a);
    row_on(&a, 0, "+I 1");
    row_on(&a, 1, "+I 2");
    EXPECT(&a, "+I(1) +I(2)");
    /* channel 0 delivered barrier 1: what follows on it waits, channel 1 flows */
    barrier_on(&a, 0, 1);
    ck_assert(operator_channel_blocked(a.h.op, 0));
    ck_assert(!operator_channel_blocked(a.h.op, 1));
    row_on(&a, 0, "+I 3");
    ck_assert_int_eq(operator_push_watermark(a.h.op, 0, 0, 10), JOINERY_OK);
    row_on(&a, 0, "+I 4");
    row_on(&a, 1, "+I 5");
    EXPECT(&a, "+I(5)");
    /* the last barrier: snapshot (rows 1, 2, 5), the barrier downstream, then what channel
       0 kept, in its order; channel 1 has no watermark yet, so W(10) is held in the valve */
    barrier_on(&a, 1, 1);
    EXPECT(&a, "S1:Recorder=3 S1:Collector +I(3) +I(4)");
    ck_assert(!operator_channel_blocked(a.h.op, 0));
    ck_assert_int_eq(operator_push_watermark(a.h.op, 1, 1, 20), JOINERY_OK);
    EXPECT(&a, "W(10)");
    ck_assert_uint_eq(a.recorder.rows, 5);
    harness_close(&a.h);
}
END_TEST

START_TEST(test_subsumed_and_obsolete_barriers)
{
    Aligned a;
    aligned_open(&a);
    barrier_on(&a, 0, 2);
    row_on(&a, 0, "+I 1");
    EXPECT(&a, "");
    /* barrier 3 before channel 1's barrier 2: checkpoint 2 is given up, channel 0 flows
       again (its kept row first), channel 1 waits for channel 0's barrier 3 */
    barrier_on(&a, 1, 3);
    EXPECT(&a, "+I(1)");
    ck_assert(!operator_channel_blocked(a.h.op, 0));
    ck_assert(operator_channel_blocked(a.h.op, 1));
    row_on(&a, 1, "+I 2");
    row_on(&a, 0, "+I 3");
    EXPECT(&a, "+I(3)");
    barrier_on(&a, 0, 3);
    EXPECT(&a, "S3:Recorder=2 S3:Collector +I(2)");
    /* obsolete: an aligned or given-up checkpoint's barriers change nothing */
    barrier_on(&a, 1, 2);
    barrier_on(&a, 0, 3);
    row_on(&a, 0, "+I 4");
    EXPECT(&a, "+I(4)");
    ck_assert(!operator_channel_blocked(a.h.op, 0) && !operator_channel_blocked(a.h.op, 1));
    harness_close(&a.h);
}
END_TEST

START_TEST(test_ended_channel_counts_as_delivered)
{
    Aligned a;
    aligned_open(&a);
    /* channel 1 ended before the barrier: channel 0's barrier alone aligns it */
    ck_assert_int_eq(operator_end_input(a.h.op, 1), JOINERY_OK);
    barrier_on(&a, 0, 1);
    EXPECT(&a, "S1:Recorder=0 S1:Collector");
    /* channel 1 ends while channel 0 waits at barrier 2: that completes it; channel 0's
       end, kept while it was blocked, comes after and ends the operator */
    harness_close(&a.h);
    aligned_open(&a);
    barrier_on(&a, 0, 2);
    ck_assert_int_eq(operator_end_input(a.h.op, 0), JOINERY_OK);
    ck_assert(!a.h.op->finished);
    row_on(&a, 1, "+I 7");
    ck_assert_int_eq(operator_end_input(a.h.op, 1), JOINERY_OK);
    EXPECT(&a, "+I(7) S2:Recorder=1 S2:Collector");
    ck_assert(a.h.op->finished);
    ck_assert_uint_eq(a.h.op->inputs_ended, 2);
    harness_close(&a.h);
}
END_TEST

/* ---- between threads: one mailbox, a queue per channel ---- */

enum { SLOW_CAPACITY = 4, FAST_ROWS_AFTER = 37 };

typedef struct Threads {
    Aligned a;
    Mailbox mailbox;
    volatile int stop;
    Operator *channels[2]; /* 0: the fast producer's, 1: the slow one's */
    _Atomic int fast_barrier_delivered;
    int consumer_status;
} Threads;

static void *threads_consume(void *argument)
{
    Threads *t = argument;
    uint32_t ends = 0;
    while (ends < 2) {
        MailboxMessage *message = mailbox_take(&t->mailbox, 50);
        if (!message)
            continue;
        StreamElementKind kind = message->kind;
        uint32_t channel = message->channel;
        int status = operator_deliver(message);
        free(message);
        if (status != JOINERY_OK)
            t->consumer_status = status;
        if (kind == STREAM_BARRIER && channel == 0)
            atomic_store(&t->fast_barrier_delivered, 1);
        if (kind == STREAM_END_OF_INPUT)
            ends++;
    }
    return NULL;
}

static void threads_push(Threads *t, uint32_t producer, int64_t value)
{
    char text[32];
    snprintf(text, sizeof text, "+I %lld", (long long)value);
    RowBuilder builder;
    row_builder_init(&builder);
    Row *row = (Row *)build_row(&builder, one_bigint, 1, text);
    RowBatch batch = {.rows = &row, .count = 1, .capacity = 1};
    ck_assert_int_eq(operator_push(t->channels[producer], 0, &batch), JOINERY_OK);
    row_builder_free(&builder);
}

static void *threads_fast(void *argument)
{
    Threads *t = argument;
    Barrier barrier = {1, 1};
    for (int i = 1; i <= 3; i++)
        threads_push(t, 0, i);
    ck_assert_int_eq(operator_push_barrier(t->channels[0], 0, 0, &barrier), JOINERY_OK);
    /* more than its queue holds: it waits until the slow producer's barrier arrives */
    for (int i = 0; i < FAST_ROWS_AFTER; i++)
        threads_push(t, 0, 100 + i);
    ck_assert_int_eq(operator_end_input(t->channels[0], 0), JOINERY_OK);
    return NULL;
}

static uint32_t queue_depth(Mailbox *mailbox, uint32_t queue)
{
    pthread_mutex_lock(&mailbox->lock);
    uint32_t depth = mailbox->queues[queue].depth;
    pthread_mutex_unlock(&mailbox->lock);
    return depth;
}

START_TEST(test_alignment_between_threads)
{
    Threads t;
    memset(&t, 0, sizeof t);
    aligned_open(&t.a);
    ck_assert_int_eq(mailbox_init(&t.mailbox, SLOW_CAPACITY, &t.stop, NULL), JOINERY_OK);
    for (uint32_t i = 0; i < 2; i++) {
        t.channels[i] = channel_operator_create(&t.mailbox, t.a.h.op, i, i, &t.a.h.diag);
        ck_assert_ptr_nonnull(t.channels[i]);
        ck_assert_int_eq(operator_open(t.channels[i], &t.a.h.context), JOINERY_OK);
    }
    pthread_t consumer, fast;
    ck_assert_int_eq(pthread_create(&consumer, NULL, threads_consume, &t), 0);
    ck_assert_int_eq(pthread_create(&fast, NULL, threads_fast, &t), 0);
    /* the slow producer (this thread) waits until the fast one's barrier was taken and its
       queue is full behind it: the fast producer now waits for room */
    while (!atomic_load(&t.fast_barrier_delivered) || queue_depth(&t.mailbox, 0) < SLOW_CAPACITY) {
        struct timespec pause = {0, 1000000};
        nanosleep(&pause, NULL);
    }
    /* the other channel still flows */
    threads_push(&t, 1, 50);
    threads_push(&t, 1, 51);
    Barrier barrier = {1, 1};
    ck_assert_int_eq(operator_push_barrier(t.channels[1], 0, 0, &barrier), JOINERY_OK);
    threads_push(&t, 1, 52);
    ck_assert_int_eq(operator_end_input(t.channels[1], 0), JOINERY_OK);
    ck_assert_int_eq(pthread_join(fast, NULL), 0);
    ck_assert_int_eq(pthread_join(consumer, NULL), 0);
    ck_assert_int_eq(t.consumer_status, JOINERY_OK);
    /* the snapshot holds the fast producer's 3 rows before its barrier and the slow one's
       2: none of the fast rows after its barrier, though they were waiting */
    const char *log = strbuf_cstr(&t.a.h.collector.log);
    const char *snapshot = strstr(log, "S1:Recorder=5 S1:Collector");
    ck_assert_msg(snapshot != NULL, "%s", log);
    ck_assert_ptr_null(strstr(snapshot + strlen("S1:Recorder=5 S1:Collector"), "S1:")); /* once */
    for (int i = 0; i < FAST_ROWS_AFTER; i++) {
        char row[32];
        snprintf(row, sizeof row, "+I(%d)", 100 + i);
        const char *found = strstr(log, row);
        ck_assert_msg(found != NULL && found > snapshot, "%s after the snapshot in %s", row, log);
    }
    ck_assert_ptr_nonnull(strstr(log, "+I(50)"));
    ck_assert(strstr(log, "+I(50)") < snapshot && strstr(log, "+I(52)") > snapshot);
    ck_assert_uint_eq(t.a.recorder.rows, 3 + FAST_ROWS_AFTER + 3);
    ck_assert_uint_gt(t.channels[0]->metrics.blocked_nanos, 0); /* it waited */
    ck_assert_uint_eq(t.mailbox.depth, 0);
    for (uint32_t i = 0; i < 2; i++)
        operator_close(t.channels[i]);
    mailbox_destroy(&t.mailbox);
    harness_close(&t.a.h);
}
END_TEST

/* ---- whole jobs: a join fed at two speeds, barriers while it runs ---- */

enum { SLOW_ROWS = 300, FAST_ROWS = 100000, MAX_BARRIERS = 64 };

/* What reached each barrier: per checkpoint, the scans' rows out and the joins' rows in. */
typedef struct Checkpoints {
    pthread_mutex_t lock;
    uint32_t scans[MAX_BARRIERS];     /* scan subtasks that started the barrier */
    uint64_t scan_rows[MAX_BARRIERS]; /* rows they had sent before it */
    uint32_t joins[MAX_BARRIERS];
    uint64_t join_rows[MAX_BARRIERS];  /* rows the join subtasks had processed */
    uint64_t state_rows[MAX_BARRIERS]; /* rows in the join snapshots */
    StateStore *store;                 /* to read snapshots back: a hashmap store, which any
                                          thread may use (LMDB's belongs to its thread) */
    int status;
} Checkpoints;

/* Rows in a join snapshot: its two multiset states read back (state.h). */
static uint64_t join_snapshot_rows(StateStore *store, const void *bytes, size_t length)
{
    SnapshotBuffer buffer = {(unsigned char *)bytes, length, length, 0};
    StateReader reader = snapshot_buffer_reader(&buffer);
    Diag diag;
    diag_clear(&diag);
    uint64_t rows = 0;
    for (int side = 0; side < 2; side++) {
        MultisetState *state = multiset_state_create(store, 0);
        ck_assert_ptr_nonnull(state);
        ck_assert_msg(multiset_state_restore(state, &reader, &diag) == JOINERY_OK, "%s",
                      diag.message);
        rows += multiset_state_counters(state).entries;
        multiset_state_destroy(state);
    }
    return rows;
}

static int record_checkpoint(void *context, Operator *op, const Barrier *barrier, const void *bytes,
                             size_t length)
{
    Checkpoints *checkpoints = context;
    int64_t id = barrier->checkpoint_id;
    if (id <= 0 || id >= MAX_BARRIERS)
        return JOINERY_OK;
    pthread_mutex_lock(&checkpoints->lock);
    if (strcmp(op->name, "TableSourceScan") == 0) {
        checkpoints->scans[id]++;
        checkpoints->scan_rows[id] += op->metrics.rows_out;
    } else if (strncmp(op->name, "Join", 4) == 0) {
        checkpoints->joins[id]++;
        checkpoints->join_rows[id] += op->metrics.rows_in;
        if (length == 0)
            checkpoints->status = JOINERY_ERROR;
        else
            checkpoints->state_rows[id] += join_snapshot_rows(checkpoints->store, bytes, length);
    }
    pthread_mutex_unlock(&checkpoints->lock);
    return JOINERY_OK;
}

typedef struct Output {
    uint32_t count;
    char **lines;
} Output;

static int collect_row(void *context, const Row *row)
{
    Output *output = context;
    char line[96];
    snprintf(line, sizeof line, "%s %lld %lld %lld", row_kind_name(row_kind(row)),
             (long long)row_get_int64(row, 0), (long long)row_get_int64(row, 1),
             (long long)row_get_int64(row, 2));
    output->lines = realloc(output->lines, (output->count + 1) * sizeof *output->lines);
    output->lines[output->count++] = strdup(line);
    return 0;
}

static int compare_lines(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

typedef struct Trigger {
    Job *job;
    _Atomic int done;
    int64_t next_id;
    int64_t cancel_after; /* Ctrl-C once this barrier was triggered; 0: never */
    volatile int *cancel;
} Trigger;

/* Triggers a barrier every 20 ms until the job is done. */
static void *trigger_barriers(void *argument)
{
    Trigger *trigger = argument;
    while (!atomic_load(&trigger->done) && trigger->next_id < MAX_BARRIERS) {
        struct timespec pause = {0, 20 * 1000000L};
        nanosleep(&pause, NULL);
        Diag diag;
        diag_clear(&diag);
        if (job_trigger_barrier(trigger->job, trigger->next_id, &diag) != JOINERY_OK)
            break;
        if (trigger->next_id++ == trigger->cancel_after)
            *trigger->cancel = 1;
    }
    return NULL;
}

static const char *const JOB_TABLES[] = {
    "CREATE TABLE slow (k BIGINT, v BIGINT) WITH ('connector' = 'datagen', "
    "'number-of-rows' = '300', 'rows-per-second' = '1000', 'fields.k.kind' = 'sequence', "
    "'fields.k.start' = '1', 'fields.k.end' = '300', 'fields.v.min' = '0', "
    "'fields.v.max' = '9')",
    "CREATE TABLE fast (k BIGINT, w BIGINT) WITH ('connector' = 'datagen', "
    "'number-of-rows' = '100000', 'rows-per-second' = '300000', 'fields.k.kind' = 'sequence', "
    "'fields.k.start' = '1', 'fields.k.end' = '100000', 'fields.w.min' = '0', "
    "'fields.w.max' = '9')",
};

/*
 * Runs the join at `parallelism`, with barriers when `checkpoints` is given
 * (and a Ctrl-C after barrier `cancel_after` unless 0); sorted output.
 */
static Output run_join(const char *parallelism, Checkpoints *checkpoints, int64_t cancel_after)
{
    Fixture f;
    fixture_open(&f, JOB_TABLES, 2);
    set_option(&f, "parallelism.default", parallelism);
    ck_assert_int_eq(bind(&f, "SELECT slow.k, slow.v, fast.w FROM slow JOIN fast ON slow.k = "
                              "fast.k"),
                     JOINERY_OK);
    ck_assert_msg(plan_optimize(&f.context, f.logical, &f.physical) == JOINERY_OK, "%s",
                  f.diag.message);
    JobConfig config;
    job_config_from_options(&f.options, &config);
    config.drain_limit_millis = 600000; /* a drain is not a race with the clock here */
    Output output = {0};
    JobOutput sink = {.context = &output, .row = collect_row};
    Diag diag;
    diag_clear(&diag);
    Job *job = NULL;
    ck_assert_msg(job_create(f.physical, &config, &sink, &job, &diag) == JOINERY_OK, "%s",
                  diag.message);
    volatile int cancel = 0;
    Trigger trigger = {job, 0, 2, cancel_after, &cancel};
    pthread_t thread;
    SnapshotStorage storage = {.store = record_checkpoint, .context = checkpoints};
    if (checkpoints) {
        job_set_snapshot_storage(job, &storage);
        /* the first one before the run: the sources start it in their first round */
        ck_assert_int_eq(job_trigger_barrier(job, 1, &diag), JOINERY_OK);
        ck_assert_int_ne(job_trigger_barrier(job, 1, &diag), JOINERY_OK); /* ids increase */
        diag_clear(&diag);
        ck_assert_int_eq(pthread_create(&thread, NULL, trigger_barriers, &trigger), 0);
    }
    int status = job_run(job, &cancel, &diag);
    if (checkpoints) {
        atomic_store(&trigger.done, 1);
        ck_assert_int_eq(pthread_join(thread, NULL), 0);
    }
    if (cancel_after) {
        /* the cancel drained (everything read went through, alignments included) rather
           than stopping hard after the drain limit */
        ck_assert_int_eq(status, JOINERY_CANCELLED);
        ck_assert(job->drained);
    } else {
        ck_assert_msg(status == JOINERY_OK, "%s", diag.message);
    }
    job_destroy(job);
    fixture_close(&f);
    qsort(output.lines, output.count, sizeof *output.lines, compare_lines);
    return output;
}

static void output_free(Output *output)
{
    for (uint32_t i = 0; i < output->count; i++)
        free(output->lines[i]);
    free(output->lines);
}

static void check_job_barriers(const char *parallelism, uint32_t subtasks)
{
    Output plain = run_join(parallelism, NULL, 0);
    ck_assert_uint_eq(plain.count, SLOW_ROWS);
    Checkpoints checkpoints;
    memset(&checkpoints, 0, sizeof checkpoints);
    pthread_mutex_init(&checkpoints.lock, NULL);
    checkpoints.store = test_store_open_backend(STATE_BACKEND_HASHMAP);
    Output barriers = run_join(parallelism, &checkpoints, 0);
    /* barriers change nothing in the output */
    ck_assert_uint_eq(barriers.count, plain.count);
    for (uint32_t i = 0; i < plain.count; i++)
        ck_assert_str_eq(barriers.lines[i], plain.lines[i]);
    /* every checkpoint every scan subtask started: each join subtask aligned it, and the
       joins had processed exactly the rows the scans sent before it, no row after it
       (sent by the fast input while the slow one's barrier was on its way) */
    ck_assert_int_eq(checkpoints.status, JOINERY_OK);
    uint32_t complete = 0;
    for (int id = 1; id < MAX_BARRIERS; id++) {
        if (checkpoints.scans[id] < 2 * subtasks)
            continue;
        complete++;
        ck_assert_uint_eq(checkpoints.joins[id], subtasks);
        ck_assert_msg(checkpoints.join_rows[id] == checkpoints.scan_rows[id],
                      "checkpoint %d: the joins processed %llu rows, the scans sent %llu", id,
                      (unsigned long long)checkpoints.join_rows[id],
                      (unsigned long long)checkpoints.scan_rows[id]);
        /* and the snapshots hold those rows (all distinct, inserts only) */
        ck_assert_uint_eq(checkpoints.state_rows[id], checkpoints.join_rows[id]);
    }
    ck_assert_uint_ge(complete, 1);
    fprintf(stderr, "parallelism %s: %u checkpoints aligned at every join while all scans ran\n",
            parallelism, complete);
    state_store_close(checkpoints.store);
    pthread_mutex_destroy(&checkpoints.lock);
    output_free(&plain);
    output_free(&barriers);
}

START_TEST(test_job_barriers_one_task)
{
    /* parallelism 1: one task, direct calls; the barrier starts at both scans in one loop
       round, so the join has it on both inputs before any later row */
    check_job_barriers("1", 1);
}
END_TEST

START_TEST(test_job_barriers_parallel)
{
    check_job_barriers("2", 2);
}
END_TEST

START_TEST(test_job_barriers_and_cancel)
{
    /* Ctrl-C while barriers are being aligned: the drain still completes cleanly */
    Checkpoints checkpoints;
    memset(&checkpoints, 0, sizeof checkpoints);
    pthread_mutex_init(&checkpoints.lock, NULL);
    checkpoints.store = test_store_open_backend(STATE_BACKEND_HASHMAP);
    Output output = run_join("2", &checkpoints, 4);
    ck_assert_uint_le(output.count, SLOW_ROWS);
    ck_assert_int_eq(checkpoints.status, JOINERY_OK);
    state_store_close(checkpoints.store);
    pthread_mutex_destroy(&checkpoints.lock);
    output_free(&output);
}
END_TEST

static Suite *barrier_suite(void)
{
    Suite *suite = suite_create("barrier");
    TCase *alignment = tcase_create("alignment");
    tcase_add_test(alignment, test_alignment_direct_calls);
    tcase_add_test(alignment, test_subsumed_and_obsolete_barriers);
    tcase_add_test(alignment, test_ended_channel_counts_as_delivered);
    suite_add_tcase(suite, alignment);
    TCase *threads = tcase_create("threads");
    tcase_set_timeout(threads, 60);
    tcase_add_test(threads, test_alignment_between_threads);
    tcase_add_test(threads, test_job_barriers_one_task);
    tcase_add_test(threads, test_job_barriers_parallel);
    tcase_add_test(threads, test_job_barriers_and_cancel);
    suite_add_tcase(suite, threads);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(barrier_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
