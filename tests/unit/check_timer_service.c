/*
 * check_timer_service.c - Check suite for the timer service
 * (engine/exec/timer_service.h) and the timers of the operator framework:
 * firing order, deduplication, deletion, event-time timers fired by the
 * merged watermark before it goes downstream, processing-time timers on a
 * fake clock, snapshot/restore of timers, and a job's task loop firing an
 * operator's recurring TTL cleanup timer. Stores are of the run's
 * default backend (test_store.h), so JOINERY_STATE_BACKEND=lmdb runs the
 * same tests on LMDB.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/type.h"
#include "engine/base/value.h"
#include "engine/exec/job.h"
#include "engine/exec/job_internal.h" /* the job's operators */
#include "engine/exec/snapshot.h"
#include "engine/exec/timer_service.h"
#include "tests/unit/operator_harness.h"
#include "tests/unit/planner_fixture.h"

/* ---- the service alone ---- */

static Row *key_row(RowBuilder *builder, int64_t value)
{
    row_builder_begin(builder, 1, ROW_KIND_INSERT);
    row_builder_set_int64(builder, 0, value);
    return row_copy_heap(row_builder_finish(builder));
}

/* Logs fired timers as "E5:k1" (domain, timestamp, key value; "-" for the empty key). */
typedef struct Fired {
    StrBuf log;
    TimerService *service;
    StateStore *store;
    RowBuilder builder;
} Fired;

static int log_fired(void *context, TimerDomain domain, int64_t timestamp, const Row *key)
{
    Fired *fired = context;
    if (fired->log.length)
        strbuf_append_char(&fired->log, ' ');
    strbuf_printf(&fired->log, "%c%lld:", domain == TIMER_EVENT_TIME ? 'E' : 'P',
                  (long long)timestamp);
    if (row_field_count(key) == 0) {
        strbuf_append_cstr(&fired->log, "-");
        return JOINERY_OK;
    }
    int64_t value = row_get_int64(key, 0);
    strbuf_printf(&fired->log, "k%lld", (long long)value);
    /* key 99 registers a timer for key 98 at the same time: it fires in the same advance */
    if (value == 99) {
        Row *next = key_row(&fired->builder, 98);
        int status = timer_service_register(fired->service, domain, timestamp, next);
        free(next);
        return status;
    }
    return JOINERY_OK;
}

/* A service on a store of its own, logging into `fired`. */
static void fired_open(Fired *fired)
{
    memset(fired, 0, sizeof *fired);
    fired->store = test_store_open();
    fired->service = timer_service_create(fired->store);
    ck_assert_ptr_nonnull(fired->service);
    row_builder_init(&fired->builder);
}

static void fired_close(Fired *fired)
{
    StateStore *store = fired->store;
    timer_service_destroy(fired->service);
    row_builder_free(&fired->builder);
    strbuf_free(&fired->log);
    state_store_close(store);
}

static const char *take(Fired *fired, char *buffer, size_t size)
{
    snprintf(buffer, size, "%s", strbuf_cstr(&fired->log));
    strbuf_clear(&fired->log);
    return buffer;
}

#define EXPECT_FIRED(fired, text)                                                                  \
    do {                                                                                           \
        char buffer_[512];                                                                         \
        ck_assert_str_eq(take(fired, buffer_, sizeof buffer_), text);                              \
    } while (0)

/* Registers (or, with `delete`, deletes) the timer of key value `key` (-1: the empty key). */
static void change(TimerService *service, bool delete, TimerDomain domain, int64_t timestamp,
                   int64_t key)
{
    RowBuilder builder;
    row_builder_init(&builder);
    Row *row = key < 0 ? NULL : key_row(&builder, key);
    int status = delete ? timer_service_delete(service, domain, timestamp, row)
                        : timer_service_register(service, domain, timestamp, row);
    ck_assert_int_eq(status, JOINERY_OK);
    free(row);
    row_builder_free(&builder);
}

static void reg(TimerService *service, TimerDomain domain, int64_t timestamp, int64_t key)
{
    change(service, false, domain, timestamp, key);
}

static void del(TimerService *service, TimerDomain domain, int64_t timestamp, int64_t key)
{
    change(service, true, domain, timestamp, key);
}

static int advance(Fired *fired, TimerDomain domain, int64_t time)
{
    return timer_service_advance(fired->service, domain, time, log_fired, fired);
}

START_TEST(test_order_dedup_delete)
{
    Fired fired;
    fired_open(&fired);
    TimerService *service = fired.service;
    ck_assert_int_eq(timer_service_next(service, TIMER_EVENT_TIME), INT64_MAX);
    ck_assert_int_eq(timer_service_time(service, TIMER_EVENT_TIME), INT64_MIN);
    /* registered out of order, some twice, the empty key among them */
    reg(service, TIMER_EVENT_TIME, 30, 1);
    reg(service, TIMER_EVENT_TIME, 10, 2);
    reg(service, TIMER_EVENT_TIME, 20, 1);
    reg(service, TIMER_EVENT_TIME, 10, 2); /* a duplicate: present once */
    reg(service, TIMER_EVENT_TIME, 40, -1);
    reg(service, TIMER_EVENT_TIME, 40, -1);
    reg(service, TIMER_EVENT_TIME, 50, 3);
    ck_assert_uint_eq(timer_service_count(service, TIMER_EVENT_TIME), 5);
    ck_assert_uint_eq(timer_service_count(service, TIMER_PROCESSING_TIME), 0);
    ck_assert_int_eq(timer_service_next(service, TIMER_EVENT_TIME), 10);
    /* deleting the earliest moves next; deleting an absent timer does nothing */
    del(service, TIMER_EVENT_TIME, 10, 2);
    del(service, TIMER_EVENT_TIME, 10, 2);
    del(service, TIMER_EVENT_TIME, 20, 7);
    ck_assert_int_eq(timer_service_next(service, TIMER_EVENT_TIME), 20);
    /* firing: timestamp <= time, in timestamp order, each once */
    ck_assert_int_eq(advance(&fired, TIMER_EVENT_TIME, 19), JOINERY_OK);
    EXPECT_FIRED(&fired, "");
    ck_assert_int_eq(advance(&fired, TIMER_EVENT_TIME, 40), JOINERY_OK);
    EXPECT_FIRED(&fired, "E20:k1 E30:k1 E40:-");
    ck_assert_int_eq(timer_service_time(service, TIMER_EVENT_TIME), 40);
    ck_assert_int_eq(advance(&fired, TIMER_EVENT_TIME, 40), JOINERY_OK);
    EXPECT_FIRED(&fired, "");
    /* time never goes back */
    ck_assert_int_eq(advance(&fired, TIMER_EVENT_TIME, 35), JOINERY_OK);
    ck_assert_int_eq(timer_service_time(service, TIMER_EVENT_TIME), 40);
    /* a timer registered at or before the time fires in the same advance */
    reg(service, TIMER_EVENT_TIME, 45, 99);
    ck_assert_int_eq(advance(&fired, TIMER_EVENT_TIME, 60), JOINERY_OK);
    EXPECT_FIRED(&fired, "E45:k99 E45:k98 E50:k3");
    ck_assert_uint_eq(timer_service_count(service, TIMER_EVENT_TIME), 0);
    ck_assert_int_eq(timer_service_next(service, TIMER_EVENT_TIME), INT64_MAX);
    /* the domains are apart: processing time has its own queue and time */
    reg(service, TIMER_PROCESSING_TIME, 1000, 1);
    reg(service, TIMER_EVENT_TIME, 1000, 1);
    ck_assert_int_eq(advance(&fired, TIMER_PROCESSING_TIME, 1000), JOINERY_OK);
    EXPECT_FIRED(&fired, "P1000:k1");
    ck_assert_uint_eq(timer_service_count(service, TIMER_EVENT_TIME), 1);
    fired_close(&fired);
}
END_TEST

START_TEST(test_many_timers_in_order)
{
    /* a few thousand timers over ninety keys, registered in a scrambled order */
    Fired fired;
    fired_open(&fired);
    for (int i = 0; i < 3000; i++)
        reg(fired.service, TIMER_PROCESSING_TIME, (i * 7919) % 3000, i % 90);
    ck_assert_uint_eq(timer_service_count(fired.service, TIMER_PROCESSING_TIME), 3000);
    ck_assert_int_eq(advance(&fired, TIMER_PROCESSING_TIME, 2999), JOINERY_OK);
    /* every timestamp once, ascending */
    const char *cursor = strbuf_cstr(&fired.log);
    for (int expected = 0; expected < 3000; expected++) {
        long long timestamp = -1;
        ck_assert_int_eq(sscanf(cursor, "P%lld:", &timestamp), 1);
        ck_assert_int_eq(timestamp, expected);
        const char *space = strchr(cursor, ' ');
        cursor = space ? space + 1 : cursor + strlen(cursor);
    }
    fired_close(&fired);
}
END_TEST

START_TEST(test_snapshot_and_restore)
{
    Fired fired, restored;
    fired_open(&fired);
    reg(fired.service, TIMER_EVENT_TIME, 5, 1);
    reg(fired.service, TIMER_EVENT_TIME, 3, 2);
    reg(fired.service, TIMER_EVENT_TIME, 9, -1);
    reg(fired.service, TIMER_PROCESSING_TIME, 700, 4);
    reg(fired.service, TIMER_PROCESSING_TIME, 600, -1);
    SnapshotBuffer buffer = {0};
    StateWriter writer = snapshot_buffer_writer(&buffer);
    Diag diag;
    diag_clear(&diag);
    ck_assert_int_eq(timer_service_snapshot(fired.service, &writer, &diag), JOINERY_OK);
    ck_assert_uint_gt(buffer.length, 0);
    /* a fresh service on another store, holding a timer of its own: the snapshot's
       timers replace it */
    fired_open(&restored);
    reg(restored.service, TIMER_PROCESSING_TIME, 1, 1);
    StateReader reader = snapshot_buffer_reader(&buffer);
    ck_assert_msg(timer_service_restore(restored.service, &reader, &diag) == JOINERY_OK, "%s",
                  diag.message);
    ck_assert_uint_eq(buffer.read_offset, buffer.length); /* read exactly */
    ck_assert_int_eq(timer_service_next(restored.service, TIMER_EVENT_TIME), 3);
    ck_assert_int_eq(timer_service_next(restored.service, TIMER_PROCESSING_TIME), 600);
    /* both fire the same timers in the same order */
    Fired *both[2] = {&fired, &restored};
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(advance(both[i], TIMER_EVENT_TIME, 100), JOINERY_OK);
        ck_assert_int_eq(advance(both[i], TIMER_PROCESSING_TIME, 1000), JOINERY_OK);
        EXPECT_FIRED(both[i], "E3:k2 E5:k1 E9:- P600:- P700:k4");
    }
    /* a damaged snapshot is refused */
    buffer.bytes[buffer.length / 2] ^= 0x5a;
    buffer.read_offset = 0;
    diag_clear(&diag);
    ck_assert_int_ne(timer_service_restore(restored.service, &reader, &diag), JOINERY_OK);
    ck_assert_int_ne(diag.status, JOINERY_OK);
    snapshot_buffer_free(&buffer);
    fired_close(&fired);
    fired_close(&restored);
}
END_TEST

/* ---- timers in the operator framework ---- */

/*
 * A two-input operator whose rows (key BIGINT, ts BIGINT) register timers:
 * input 0 event-time timers, input 1 processing-time ones; ts < 0 deletes
 * the timer at -ts instead. A due timer emits (key, timestamp, domain).
 */
typedef struct Timed {
    Operator base;
    RowBuilder builder;
    uint32_t fired;
} Timed;

static int timed_process(Operator *self, uint32_t input, const RowBatch *batch)
{
    Timed *timed = self->impl;
    TimerDomain domain = input == 0 ? TIMER_EVENT_TIME : TIMER_PROCESSING_TIME;
    for (uint32_t r = 0; r < batch->count; r++) {
        const Row *row = batch->rows[r];
        int64_t ts = row_get_int64(row, 1);
        Row *key = key_row(&timed->builder, row_get_int64(row, 0));
        int status = ts >= 0 ? operator_register_timer(self, domain, ts, key)
                             : operator_delete_timer(self, domain, -ts, key);
        free(key);
        if (status != JOINERY_OK)
            return status;
    }
    return JOINERY_OK;
}

static int timed_on_timer(Operator *self, TimerDomain domain, int64_t timestamp, const Row *key)
{
    Timed *timed = self->impl;
    timed->fired++;
    row_builder_begin(&timed->builder, 3, ROW_KIND_INSERT);
    row_builder_set_int64(&timed->builder, 0, row_get_int64(key, 0));
    row_builder_set_int64(&timed->builder, 1, timestamp);
    row_builder_set_int64(&timed->builder, 2, domain);
    return operator_emit(self, row_builder_finish(&timed->builder), ROW_KIND_INSERT);
}

static void timed_close(Operator *self)
{
    row_builder_free(&((Timed *)self->impl)->builder);
}

static const OperatorVtable TIMED_VTABLE = {
    .process = timed_process,
    .on_timer = timed_on_timer,
    .close = timed_close,
};

static DataType bigints[3];

static void timed_open(Harness *h, Timed *timed)
{
    for (int i = 0; i < 3; i++)
        bigints[i] = type_make(TYPE_BIGINT, true);
    memset(timed, 0, sizeof *timed);
    row_builder_init(&timed->builder);
    operator_init(&timed->base, &TIMED_VTABLE, "Timed", 2, timed);
    timed->base.uses_timers = true;
    harness_open(h, &timed->base, bigints, 3);
    h->collector.log_watermarks = true;
}

static void wm(Harness *h, uint32_t channel, int64_t watermark)
{
    ck_assert_int_eq(operator_push_watermark(h->op, channel, channel, watermark), JOINERY_OK);
}

START_TEST(test_event_timers_fire_before_the_watermark)
{
    Harness h;
    Timed timed;
    fake_now = 0;
    timed_open(&h, &timed);
    push_text(&h, 0, bigints, 2, "+I 1,10");
    push_text(&h, 0, bigints, 2, "+I 2,25");
    push_text(&h, 0, bigints, 2, "+I 3,20");
    push_text(&h, 0, bigints, 2, "+I 3,20"); /* the same (key, timestamp): once */
    push_text(&h, 0, bigints, 2, "+I 4,30");
    push_text(&h, 0, bigints, 2, "+I 4,-30"); /* deleted again */
    ck_assert_str_eq(harness_take(&h), "");
    /* channel 1 holds the merged watermark back: nothing fires yet */
    wm(&h, 0, 100);
    ck_assert_str_eq(harness_take(&h), "");
    wm(&h, 1, 20);
    /* merged watermark 20: timers <= 20 fire, in timestamp order, before W(20) */
    ck_assert_str_eq(harness_take(&h), "+I(1,10,0) +I(3,20,0) W(20)");
    wm(&h, 1, 24);
    ck_assert_str_eq(harness_take(&h), "W(24)");
    wm(&h, 1, 1000);
    ck_assert_str_eq(harness_take(&h), "+I(2,25,0) W(100)");
    ck_assert_uint_eq(timed.fired, 3);
    /* a timer behind the watermark fires with the next advance */
    push_text(&h, 0, bigints, 2, "+I 5,50");
    wm(&h, 0, 101);
    ck_assert_str_eq(harness_take(&h), "+I(5,50,0) W(101)");
    harness_close(&h);
}
END_TEST

START_TEST(test_processing_timers_on_a_fake_clock)
{
    Harness h;
    Timed timed;
    fake_now = 0;
    timed_open(&h, &timed);
    ck_assert_int_eq(operator_next_processing_timer(h.op), INT64_MAX);
    push_text(&h, 1, bigints, 2, "+I 1,300");
    push_text(&h, 1, bigints, 2, "+I 2,100");
    push_text(&h, 1, bigints, 2, "+I 2,100");
    push_text(&h, 1, bigints, 2, "+I 3,200");
    push_text(&h, 1, bigints, 2, "+I 3,-200");
    ck_assert_int_eq(operator_next_processing_timer(h.op), 100);
    ck_assert_int_eq(operator_advance_processing_time(h.op, 99), JOINERY_OK);
    ck_assert_str_eq(harness_take(&h), "");
    ck_assert_int_eq(operator_advance_processing_time(h.op, 150), JOINERY_OK);
    ck_assert_str_eq(harness_take(&h), "+I(2,100,1)");
    ck_assert_int_eq(operator_timer_now(h.op), 150);
    ck_assert_int_eq(operator_next_processing_timer(h.op), 300);
    /* watermarks do not fire processing-time timers */
    wm(&h, 0, 5000);
    wm(&h, 1, 5000);
    ck_assert_str_eq(harness_take(&h), "W(5000)");
    ck_assert_int_eq(operator_advance_processing_time(h.op, 1000), JOINERY_OK);
    ck_assert_str_eq(harness_take(&h), "+I(1,300,1)");
    ck_assert_int_eq(operator_next_processing_timer(h.op), INT64_MAX);
    harness_close(&h);
}
END_TEST

START_TEST(test_timers_need_a_store)
{
    /* an operator without a state store cannot register timers: a clear error */
    Harness h;
    Timed timed;
    timed_open(&h, &timed);
    StateStore *store = h.context.state_store;
    h.context.state_store = NULL;
    ck_assert_int_ne(push_text_status(&h, 0, bigints, 2, "+I 1,10"), JOINERY_OK);
    ck_assert_ptr_nonnull(strstr(h.diag.message, "state store"));
    h.context.state_store = store;
    harness_close(&h);
}
END_TEST

START_TEST(test_job_loop_fires_processing_timers)
{
    /* an aggregate with state TTL in a job of about 300 ms: the task loop fires its
       recurring cleanup timer (registered 100 ms ahead each time) while the job runs */
    static const char *const tables[] = {
        "CREATE TABLE slow (k BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '300', "
        "'rows-per-second' = '1000', 'fields.k.min' = '1', 'fields.k.max' = '5')"};
    Fixture f;
    fixture_open(&f, tables, 1);
    set_option(&f, "table.exec.state.ttl", "1 s");
    ck_assert_int_eq(bind(&f, "SELECT k, COUNT(*) FROM slow GROUP BY k"), JOINERY_OK);
    ck_assert_msg(plan_optimize(&f.context, f.logical, &f.physical) == JOINERY_OK, "%s",
                  f.diag.message);
    JobConfig config;
    job_config_from_options(&f.options, &config);
    JobOutput output = {0};
    Diag diag;
    diag_clear(&diag);
    Job *job = NULL;
    ck_assert_msg(job_create(f.physical, &config, &output, &job, &diag) == JOINERY_OK, "%s",
                  diag.message);
    int64_t start = datetime_now_millis();
    volatile int cancel = 0;
    ck_assert_msg(job_run(job, &cancel, &diag) == JOINERY_OK, "%s", diag.message);
    int64_t end = datetime_now_millis();
    const Operator *aggregate = NULL;
    for (uint32_t i = 0; i < job->operator_count; i++)
        if (strcmp(job->operators[i].op->name, "GroupAggregate") == 0)
            aggregate = job->operators[i].op;
    ck_assert_ptr_nonnull(aggregate);
    ck_assert_ptr_nonnull(aggregate->timers);
    int64_t advanced = timer_service_time(aggregate->timers, TIMER_PROCESSING_TIME);
    int64_t next = operator_next_processing_timer(aggregate);
    /* advanced by the loop, and rescheduled from there: it fired while the job ran */
    ck_assert_int_ge(advanced, start + OPERATOR_CLEANUP_INTERVAL_MILLIS);
    ck_assert_int_le(advanced, end);
    ck_assert_int_eq(next, advanced + OPERATOR_CLEANUP_INTERVAL_MILLIS);
    ck_assert_uint_eq(timer_service_count(aggregate->timers, TIMER_PROCESSING_TIME), 1);
    job_destroy(job);
    fixture_close(&f);
}
END_TEST

static Suite *timer_service_suite(void)
{
    Suite *suite = suite_create("timer_service");
    TCase *service = tcase_create("service");
    tcase_add_test(service, test_order_dedup_delete);
    tcase_add_test(service, test_many_timers_in_order);
    tcase_add_test(service, test_snapshot_and_restore);
    suite_add_tcase(suite, service);
    TCase *operators = tcase_create("operators");
    tcase_add_test(operators, test_event_timers_fire_before_the_watermark);
    tcase_add_test(operators, test_processing_timers_on_a_fake_clock);
    tcase_add_test(operators, test_timers_need_a_store);
    tcase_add_test(operators, test_job_loop_fires_processing_timers);
    suite_add_tcase(suite, operators);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(timer_service_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
