/*
 * check_over_aggregate.c - Check suite for the OverAggregate operator
 * (engine/exec/ops/op_over_aggregate.h).
 *
 * Input rows (name, a_int, time millis); PARTITION BY name with COUNT(*),
 * SUM(a_int) and MIN(a_int). Cases: event-time ROWS 1 PRECEDING (rows out of
 * order wait for the watermark and leave in time order; a row not after its
 * key's last computed time (0 before the first) is late, dropped and
 * counted; the rows no later
 * frame reaches are freed), event-time RANGE UNBOUNDED (rows of one time
 * share their values; a row not after the watermark is late), event-time
 * RANGE 1 s (older rows leave the frame and the state), a snapshot and
 * restore with rows still waiting for the watermark, processing-time ROWS
 * (computed on arrival) and processing-time RANGE (rows of one millisecond
 * computed together by the timer 1 ms later), and the TTL forgetting an
 * idle key's UNBOUNDED accumulator and ROWS frame (put off while event-time
 * rows wait for the watermark). Stores are of the run's default backend
 * (test_store.h): JOINERY_STATE_BACKEND=lmdb runs the same cases on LMDB.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/type.h"
#include "engine/exec/ops/op_over_aggregate.h"
#include "tests/unit/operator_harness.h"

static DataType input_types[3];
static DataType output_types[6];
static AggregateCall calls[3];
static const uint32_t KEYS[1] = {0};

static OverAggregateSpec make_spec(bool rowtime, bool rows, int64_t preceding)
{
    input_types[0] = type_make(TYPE_VARCHAR, true);
    input_types[1] = type_make(TYPE_INT, true);
    input_types[2] = type_make(TYPE_BIGINT, false);
    memcpy(output_types, input_types, sizeof input_types);
    output_types[3] = type_make(TYPE_BIGINT, false);
    output_types[4] = type_make(TYPE_INT, true);
    output_types[5] = type_make(TYPE_INT, true);
    calls[0] = (AggregateCall){.kind = AGGREGATE_COUNT_STAR,
                               .argument_type = type_make(TYPE_BIGINT, false),
                               .result_type = output_types[3]};
    calls[1] = (AggregateCall){.kind = AGGREGATE_SUM,
                               .argument = 1,
                               .argument_type = input_types[1],
                               .result_type = output_types[4]};
    calls[2] = (AggregateCall){.kind = AGGREGATE_MIN,
                               .argument = 1,
                               .argument_type = input_types[1],
                               .result_type = output_types[5]};
    return (OverAggregateSpec){.input_field_count = 3,
                               .input_types = input_types,
                               .partition_keys = KEYS,
                               .partition_key_count = 1,
                               .time_field = 2,
                               .rowtime = rowtime,
                               .rows = rows,
                               .preceding = preceding,
                               .calls = calls,
                               .call_count = 3};
}

static Operator *make_operator(const OverAggregateSpec *spec)
{
    Diag diag;
    diag_clear(&diag);
    Operator *op = over_aggregate_operator_create(spec, &diag);
    ck_assert_msg(op != NULL, "%s", diag.message);
    return op;
}

static void row(Harness *h, const char *text)
{
    push_text(h, 0, input_types, 3, text);
}

static void watermark(Harness *h, int64_t value)
{
    ck_assert_int_eq(operator_push_watermark(h->op, 0, 0, value), JOINERY_OK);
    test_store_commit(h->context.state_store);
}

static uint64_t state_rows(Harness *h)
{
    h->op->vtable->report_state(h->op);
    return h->op->metrics.state_rows;
}

START_TEST(test_rowtime_rows_bounded)
{
    OverAggregateSpec spec = make_spec(true, true, 1);
    Harness h;
    harness_open(&h, make_operator(&spec), output_types, 6);
    row(&h, "+I a,3,3000");
    row(&h, "+I a,1,1000");
    row(&h, "+I b,7,2000");
    row(&h, "+I a,2,2000");
    ck_assert_str_eq(harness_take(&h), ""); /* waiting for the watermark */
    watermark(&h, 2000);
    ck_assert_str_eq(harness_take(&h), "+I(a,1,1000,1,1,1) +I(b,7,2000,1,7,7) +I(a,2,2000,2,3,1)");
    /* a's last computed time is 2000: a row at 2000 is late; b's is 2000 too */
    row(&h, "+I a,9,2000");
    row(&h, "+I b,9,1500");
    ck_assert_uint_eq(over_aggregate_operator_late_rows(h.op), 2);
    /* the 1000 row left a's frame and the state: a keeps 2000 and 3000 (pending) */
    ck_assert_uint_eq(state_rows(&h), 3 + 2); /* a: 2 rows, b: 1 row; 2 last-times */
    watermark(&h, INT64_MAX);
    ck_assert_str_eq(harness_take(&h), "+I(a,3,3000,2,5,2)");
    harness_close(&h);
}
END_TEST

START_TEST(test_rowtime_range_unbounded)
{
    OverAggregateSpec spec = make_spec(true, false, -1);
    Harness h;
    harness_open(&h, make_operator(&spec), output_types, 6);
    row(&h, "+I a,5,1000");
    row(&h, "+I a,2,1000");
    row(&h, "+I a,4,2000");
    watermark(&h, 1500);
    /* the rows of one time share their values */
    ck_assert_str_eq(harness_take(&h), "+I(a,5,1000,2,7,2) +I(a,2,1000,2,7,2)");
    row(&h, "+I a,1,1500"); /* not after the watermark: late */
    row(&h, "+I b,1,1400"); /* another key, still late (UNBOUNDED compares the watermark) */
    ck_assert_uint_eq(over_aggregate_operator_late_rows(h.op), 2);
    row(&h, "+I a,3,2000");
    watermark(&h, 3000);
    ck_assert_str_eq(harness_take(&h), "+I(a,4,2000,4,14,2) +I(a,3,2000,4,14,2)");
    ck_assert_uint_eq(state_rows(&h), 1); /* the accumulator only */
    harness_close(&h);
}
END_TEST

START_TEST(test_rowtime_range_bounded)
{
    OverAggregateSpec spec = make_spec(true, false, 1000);
    Harness h;
    harness_open(&h, make_operator(&spec), output_types, 6);
    row(&h, "+I a,7,0"); /* at the epoch: late, as Flink's lastTriggeringTs starts at 0 */
    ck_assert_uint_eq(over_aggregate_operator_late_rows(h.op), 1);
    row(&h, "+I a,1,1000");
    row(&h, "+I a,2,1500");
    row(&h, "+I a,3,2000");
    row(&h, "+I a,4,3500");
    watermark(&h, INT64_MAX);
    /* frames [t - 1000, t]: {1}, {1,2}, {1,2,3}, {4} */
    ck_assert_str_eq(harness_take(&h), "+I(a,1,1000,1,1,1) +I(a,2,1500,2,3,1) "
                                       "+I(a,3,2000,3,6,1) +I(a,4,3500,1,4,4)");
    ck_assert_uint_eq(state_rows(&h), 1 + 1); /* the 3500 row and a's last time */
    harness_close(&h);
}
END_TEST

START_TEST(test_snapshot_restore)
{
    OverAggregateSpec spec = make_spec(true, true, -1);
    Harness h;
    harness_open(&h, make_operator(&spec), output_types, 6);
    row(&h, "+I a,1,1000");
    watermark(&h, 1000);
    ck_assert_str_eq(harness_take(&h), "+I(a,1,1000,1,1,1)");
    row(&h, "+I a,2,3000"); /* waits for the watermark */
    Harness copy;
    harness_fork(&h, &copy, make_operator(&spec), output_types, 6);
    harness_close(&h);
    row(&copy, "+I a,3,2000");
    watermark(&copy, INT64_MAX);
    ck_assert_str_eq(harness_take(&copy), "+I(a,3,2000,2,4,1) +I(a,2,3000,3,6,1)");
    harness_close(&copy);
}
END_TEST

START_TEST(test_proctime_rows_and_range)
{
    OverAggregateSpec spec = make_spec(false, true, 1);
    Harness h;
    fake_now = 10000;
    harness_open(&h, make_operator(&spec), output_types, 6);
    row(&h, "+I a,1,0");
    row(&h, "+I a,2,0");
    row(&h, "+I a,3,0");
    ck_assert_str_eq(harness_take(&h), "+I(a,1,0,1,1,1) +I(a,2,0,2,3,1) +I(a,3,0,2,5,2)");
    harness_close(&h);

    spec = make_spec(false, false, 1000);
    harness_open(&h, make_operator(&spec), output_types, 6);
    fake_now = 20000;
    row(&h, "+I a,1,0");
    row(&h, "+I a,2,0");
    ck_assert_str_eq(harness_take(&h), ""); /* computed by the timer at 20001 */
    fake_now = 20500;
    ck_assert_int_eq(operator_advance_processing_time(h.op, 20500), JOINERY_OK);
    ck_assert_str_eq(harness_take(&h), "+I(a,1,0,2,3,1) +I(a,2,0,2,3,1)");
    row(&h, "+I a,5,0");
    fake_now = 21200; /* the 20000 rows are more than 1 s before 21200 - 1... */
    ck_assert_int_eq(operator_advance_processing_time(h.op, 21200), JOINERY_OK);
    /* ...but not before 20500: frame [19500, 20500] */
    ck_assert_str_eq(harness_take(&h), "+I(a,5,0,3,8,1)");
    row(&h, "+I a,7,0");
    fake_now = 21700;
    ck_assert_int_eq(operator_advance_processing_time(h.op, 21700), JOINERY_OK);
    /* frame [20200, 21200]: 5 and 7; the 20000 rows are freed */
    ck_assert_str_eq(harness_take(&h), "+I(a,7,0,2,12,5)");
    ck_assert_uint_eq(state_rows(&h), 2);
    harness_close(&h);
}
END_TEST

START_TEST(test_ttl_forgets_idle_keys)
{
    OverAggregateSpec spec = make_spec(false, true, -1);
    spec.ttl_millis = 1000;
    Harness h;
    fake_now = 50000;
    harness_open(&h, make_operator(&spec), output_types, 6);
    row(&h, "+I a,1,0");
    row(&h, "+I a,2,0");
    ck_assert_str_eq(harness_take(&h), "+I(a,1,0,1,1,1) +I(a,2,0,2,3,1)");
    fake_now = 52000; /* a idle for more than the TTL */
    ck_assert_int_eq(operator_advance_processing_time(h.op, 52000), JOINERY_OK);
    row(&h, "+I a,4,0");
    ck_assert_str_eq(harness_take(&h), "+I(a,4,0,1,4,4)");
    harness_close(&h);
}
END_TEST

START_TEST(test_ttl_rows_bounded)
{
    /* processing time: a key idle for the TTL starts a fresh frame */
    OverAggregateSpec spec = make_spec(false, true, 1);
    spec.ttl_millis = 1000;
    Harness h;
    fake_now = 10000;
    harness_open(&h, make_operator(&spec), output_types, 6);
    row(&h, "+I a,1,0");
    row(&h, "+I a,2,0");
    ck_assert_str_eq(harness_take(&h), "+I(a,1,0,1,1,1) +I(a,2,0,2,3,1)");
    fake_now = 11000;
    ck_assert_int_eq(operator_advance_processing_time(h.op, 11000), JOINERY_OK);
    row(&h, "+I a,3,0"); /* not idle yet: the frame goes on */
    ck_assert_str_eq(harness_take(&h), "+I(a,3,0,2,5,2)");
    fake_now = 14000; /* cleanup due at 11000 + 1500 */
    ck_assert_int_eq(operator_advance_processing_time(h.op, 14000), JOINERY_OK);
    ck_assert_uint_eq(state_rows(&h), 0);
    row(&h, "+I a,4,0");
    ck_assert_str_eq(harness_take(&h), "+I(a,4,0,1,4,4)");
    harness_close(&h);

    /* event time: rows waiting for the watermark put the cleanup off */
    spec = make_spec(true, true, 1);
    spec.ttl_millis = 1000;
    fake_now = 20000;
    harness_open(&h, make_operator(&spec), output_types, 6);
    row(&h, "+I a,1,1000");
    watermark(&h, 1000);
    ck_assert_str_eq(harness_take(&h), "+I(a,1,1000,1,1,1)");
    row(&h, "+I a,2,2000");
    fake_now = 30000;
    ck_assert_int_eq(operator_advance_processing_time(h.op, 30000), JOINERY_OK);
    watermark(&h, 2000);
    ck_assert_str_eq(harness_take(&h), "+I(a,2,2000,2,3,1)"); /* the 1000 row still there */
    fake_now = 40000;
    ck_assert_int_eq(operator_advance_processing_time(h.op, 40000), JOINERY_OK);
    ck_assert_uint_eq(state_rows(&h), 0);
    row(&h, "+I a,3,1500"); /* the last computed time went too: not late any more */
    watermark(&h, INT64_MAX);
    ck_assert_str_eq(harness_take(&h), "+I(a,3,1500,1,3,3)");
    harness_close(&h);
}
END_TEST

static Suite *over_aggregate_suite(void)
{
    Suite *suite = suite_create("over_aggregate");
    TCase *core = tcase_create("core");
    tcase_add_test(core, test_rowtime_rows_bounded);
    tcase_add_test(core, test_rowtime_range_unbounded);
    tcase_add_test(core, test_rowtime_range_bounded);
    tcase_add_test(core, test_snapshot_restore);
    tcase_add_test(core, test_proctime_rows_and_range);
    tcase_add_test(core, test_ttl_forgets_idle_keys);
    tcase_add_test(core, test_ttl_rows_bounded);
    suite_add_tcase(suite, core);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(over_aggregate_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
