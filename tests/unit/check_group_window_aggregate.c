/*
 * check_group_window_aggregate.c - Check suite for the merging window
 * aggregate operator (engine/exec/ops/op_group_window_aggregate.h), the
 * runner of Flink's legacy group windows.
 *
 * Input rows (name, a_int, rowtime millis); GROUP BY name with COUNT(*) and
 * SUM(a_int). Cases: session windows merging as rows arrive (a row bridging
 * two sessions folds both accumulators into one, and the absorbed windows'
 * timers fire nothing), late rows (a late row that starts no live session
 * is dropped and counted, one that joins a live session is taken), TUMBLE
 * and HOP with retractions (-D / -U subtract; a window whose rows were all
 * retracted emits nothing), the properties start / end / rowtime, a
 * snapshot and restore in the middle of open sessions, and processing-time
 * windows fired by the clock with proctime = the firing time; DISTINCT calls
 * (COUNT(DISTINCT a_int), SUM(DISTINCT a_int)) under retractions, across a
 * snapshot, per HOP window, and in SESSION windows whose merges join their
 * distinct values (a value in both counted once). Stores are of
 * the run's default backend (test_store.h): JOINERY_STATE_BACKEND=lmdb runs
 * the same cases on LMDB.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/type.h"
#include "engine/exec/ops/op_group_window_aggregate.h"
#include "tests/unit/operator_harness.h"

static DataType input_types[3];
static DataType output_types[7];
static AggregateCall calls[2];
static const uint32_t KEYS[1] = {0};

static void init_types(void)
{
    input_types[0] = type_make(TYPE_VARCHAR, true);
    input_types[1] = type_make(TYPE_INT, true);
    input_types[2] = type_make_timestamp(TYPE_TIMESTAMP, 3, true);
    output_types[0] = input_types[0];
    output_types[1] = type_make(TYPE_BIGINT, false);
    output_types[2] = type_make(TYPE_INT, true);
    for (int p = 3; p < 7; p++)
        output_types[p] = type_make_timestamp(TYPE_TIMESTAMP, 3, false);
    calls[0] = (AggregateCall){.kind = AGGREGATE_COUNT_STAR,
                               .argument_type = type_make(TYPE_BIGINT, false),
                               .result_type = output_types[1]};
    calls[1] = (AggregateCall){.kind = AGGREGATE_SUM,
                               .argument = 1,
                               .argument_type = input_types[1],
                               .result_type = output_types[2]};
}

static GroupWindowAggregateSpec make_spec(WindowSpec window, bool proctime)
{
    init_types();
    GroupWindowAggregateSpec spec = {.input_field_count = 3,
                                     .input_types = input_types,
                                     .group_keys = KEYS,
                                     .group_key_count = 1,
                                     .calls = calls,
                                     .call_count = 2,
                                     .window = window,
                                     .time_field = 2,
                                     .proctime = proctime};
    spec.properties[spec.property_count++] = WINDOW_PROPERTY_START;
    spec.properties[spec.property_count++] = WINDOW_PROPERTY_END;
    spec.properties[spec.property_count++] =
        proctime ? WINDOW_PROPERTY_PROCTIME : WINDOW_PROPERTY_ROWTIME;
    return spec;
}

static Operator *make_operator(const GroupWindowAggregateSpec *spec)
{
    Diag diag;
    diag_clear(&diag);
    Operator *op = group_window_aggregate_operator_create(spec, &diag);
    ck_assert_msg(op != NULL, "%s", diag.message);
    return op;
}

static void open_harness(Harness *h, const GroupWindowAggregateSpec *spec)
{
    harness_open(h, make_operator(spec), output_types, 3 + spec->property_count);
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

static const WindowSpec SESSION_3S = {.kind = WINDOW_SESSION, .gap_millis = 3000};
static const WindowSpec TUMBLE_10S = {.kind = WINDOW_TUMBLE, .size_millis = 10000};
static const WindowSpec HOP_5S_10S = {
    .kind = WINDOW_HOP, .size_millis = 10000, .slide_millis = 5000};

START_TEST(test_session_merges)
{
    GroupWindowAggregateSpec spec = make_spec(SESSION_3S, false);
    Harness h;
    open_harness(&h, &spec);
    row(&h, "+I a,1,1000");
    row(&h, "+I a,2,5000"); /* [5, 8): apart from [1, 4) */
    row(&h, "+I b,7,2000"); /* another key: its own session */
    watermark(&h, 3000);    /* nothing ended yet */
    ck_assert_str_eq(harness_take(&h), "");
    row(&h, "+I a,4,3500"); /* [3.5, 6.5) bridges [1, 4) and [5, 8) */
    watermark(&h, 4998);    /* b fires at 4999: not yet */
    ck_assert_str_eq(harness_take(&h), "");
    watermark(&h, 4999);
    ck_assert_str_eq(harness_take(&h), "+I(b,1,7,2000,5000,4999)");
    watermark(&h, 7000); /* the absorbed [1, 4)'s timer (3999) passed: nothing */
    ck_assert_str_eq(harness_take(&h), "");
    watermark(&h, 7999);
    ck_assert_str_eq(harness_take(&h), "+I(a,3,7,1000,8000,7999)");
    watermark(&h, INT64_MAX);
    ck_assert_str_eq(harness_take(&h), "");
    ck_assert_uint_eq(group_window_aggregate_operator_late_rows(h.op), 0);
    harness_close(&h);
}
END_TEST

START_TEST(test_session_late_rows)
{
    GroupWindowAggregateSpec spec = make_spec(SESSION_3S, false);
    Harness h;
    open_harness(&h, &spec);
    row(&h, "+I a,1,10000"); /* [10, 13) */
    watermark(&h, 9000);
    row(&h, "+I a,2,5000"); /* [5, 8): late, touches no live session */
    row(&h, "+I a,3,7500"); /* [7.5, 10.5): late alone, but joins [10, 13) */
    row(&h, "+I b,4,NULL"); /* no time: dropped */
    watermark(&h, INT64_MAX);
    ck_assert_str_eq(harness_take(&h), "+I(a,2,4,7500,13000,12999)");
    ck_assert_uint_eq(group_window_aggregate_operator_late_rows(h.op), 2);
    harness_close(&h);
}
END_TEST

START_TEST(test_tumble_retractions)
{
    GroupWindowAggregateSpec spec = make_spec(TUMBLE_10S, false);
    Harness h;
    open_harness(&h, &spec);
    row(&h, "+I a,5,1000");
    row(&h, "+I a,3,2000");
    row(&h, "-D a,5,1000");
    row(&h, "+I b,9,4000");
    row(&h, "-U b,9,4000"); /* b's window has no rows left */
    row(&h, "-D c,1,4000"); /* never accumulated: skipped */
    row(&h, "+I a,6,12000");
    row(&h, "+U a,8,13000");
    watermark(&h, 9999);
    ck_assert_str_eq(harness_take(&h), "+I(a,1,3,0,10000,9999)");
    watermark(&h, INT64_MAX);
    ck_assert_str_eq(harness_take(&h), "+I(a,2,14,10000,20000,19999)");
    ck_assert_uint_eq(h.op->metrics.skipped_rows, 1);
    harness_close(&h);
}
END_TEST

START_TEST(test_hop_late_window)
{
    GroupWindowAggregateSpec spec = make_spec(HOP_5S_10S, false);
    Harness h;
    open_harness(&h, &spec);
    row(&h, "+I a,1,7000"); /* [0, 10) and [5, 15) */
    watermark(&h, 9999);
    ck_assert_str_eq(harness_take(&h), "+I(a,1,1,0,10000,9999)");
    row(&h, "+I a,2,8000"); /* [0, 10) fired: only [5, 15) takes it */
    row(&h, "-D a,1,7000"); /* retracted from [5, 15) only */
    watermark(&h, INT64_MAX);
    ck_assert_str_eq(harness_take(&h), "+I(a,1,2,5000,15000,14999)");
    ck_assert_uint_eq(group_window_aggregate_operator_late_rows(h.op), 0);
    harness_close(&h);
}
END_TEST

START_TEST(test_session_restore)
{
    GroupWindowAggregateSpec spec = make_spec(SESSION_3S, false);
    Harness h, restored;
    open_harness(&h, &spec);
    row(&h, "+I a,1,1000");
    row(&h, "+I a,2,5000");
    row(&h, "+I b,7,2000");
    harness_fork(&h, &restored, make_operator(&spec), output_types, 6);
    row(&restored, "+I a,4,3500"); /* merges the two restored sessions */
    watermark(&restored, INT64_MAX);
    ck_assert_str_eq(harness_take(&restored), "+I(b,1,7,2000,5000,4999) +I(a,3,7,1000,8000,7999)");
    harness_close(&h);
    harness_close(&restored);
}
END_TEST

START_TEST(test_proctime_tumble)
{
    GroupWindowAggregateSpec spec = make_spec(TUMBLE_10S, true);
    Harness h;
    open_harness(&h, &spec);
    fake_now = 21000;
    row(&h, "+I a,1,NULL"); /* the time field is not read: the clock says 21 s */
    fake_now = 25000;
    row(&h, "+I a,2,NULL");
    row(&h, "+I b,3,NULL");
    ck_assert_int_eq(operator_advance_processing_time(h.op, 29998), JOINERY_OK);
    ck_assert_str_eq(harness_take(&h), "");
    ck_assert_int_eq(operator_advance_processing_time(h.op, 30005), JOINERY_OK);
    ck_assert_str_eq(harness_take(&h), "+I(b,1,3,20000,30000,30005) +I(a,2,3,20000,30000,30005)");
    harness_close(&h);
}
END_TEST

/* GROUP BY name: COUNT(*), COUNT(DISTINCT a_int), SUM(DISTINCT a_int), SUM(a_int) */
static AggregateCall distinct_calls[4];
static DataType distinct_output[8];

static GroupWindowAggregateSpec make_distinct_spec(WindowSpec window)
{
    GroupWindowAggregateSpec spec = make_spec(window, false);
    distinct_calls[0] = calls[0];
    distinct_calls[1] = (AggregateCall){.kind = AGGREGATE_COUNT,
                                        .argument = 1,
                                        .distinct = true,
                                        .argument_type = input_types[1],
                                        .result_type = type_make(TYPE_BIGINT, false)};
    distinct_calls[2] = calls[1];
    distinct_calls[2].distinct = true;
    distinct_calls[3] = calls[1];
    distinct_output[0] = output_types[0];
    distinct_output[1] = output_types[1];
    distinct_output[2] = output_types[1];
    distinct_output[3] = output_types[2];
    distinct_output[4] = output_types[2];
    for (int p = 5; p < 8; p++)
        distinct_output[p] = output_types[3];
    spec.calls = distinct_calls;
    spec.call_count = 4;
    return spec;
}

START_TEST(test_tumble_distinct_retractions)
{
    GroupWindowAggregateSpec spec = make_distinct_spec(TUMBLE_10S);
    Harness h;
    harness_open(&h, make_operator(&spec), distinct_output, 8);
    row(&h, "+I a,5,1000");
    row(&h, "+I a,5,2000");
    row(&h, "+I a,3,3000");
    row(&h, "+I a,NULL,3500"); /* counted by COUNT(*) only */
    row(&h, "-D a,5,1000");    /* one 5 is left: the distinct sets keep it */
    row(&h, "+I b,9,4000");
    row(&h, "-U b,9,4000"); /* the last 9 went */
    row(&h, "+U b,7,4500");
    row(&h, "-D c,4,4000"); /* never accumulated: nothing */
    watermark(&h, 9999);
    ck_assert_str_eq(harness_take(&h), "+I(a,3,2,8,8,0,10000,9999) +I(b,1,1,7,7,0,10000,9999)");
    row(&h, "+I a,5,12000"); /* a new window: its own distinct values */
    row(&h, "+I a,5,13000");
    row(&h, "-D a,5,12000");
    row(&h, "-D a,5,13000"); /* no 5 left */
    row(&h, "+I a,2,14000");
    watermark(&h, INT64_MAX);
    ck_assert_str_eq(harness_take(&h), "+I(a,1,1,2,2,10000,20000,19999)");
    /* every window fired: no distinct value is left in state */
    h.op->vtable->report_state(h.op);
    ck_assert_uint_eq(h.op->metrics.state_rows, 0);
    harness_close(&h);
}
END_TEST

START_TEST(test_hop_distinct_restore)
{
    GroupWindowAggregateSpec spec = make_distinct_spec(HOP_5S_10S);
    Harness h, restored;
    harness_open(&h, make_operator(&spec), distinct_output, 8);
    row(&h, "+I a,1,4000"); /* [-5, 5) and [0, 10) */
    row(&h, "+I a,1,7000"); /* [0, 10) and [5, 15) */
    harness_fork(&h, &restored, make_operator(&spec), distinct_output, 8);
    row(&restored, "+I a,2,8000");
    row(&restored, "+I a,1,9000");
    watermark(&restored, INT64_MAX);
    ck_assert_str_eq(harness_take(&restored), "+I(a,1,1,1,1,-5000,5000,4999) "
                                              "+I(a,4,2,3,5,0,10000,9999) "
                                              "+I(a,3,2,3,4,5000,15000,14999)");
    harness_close(&h);
    harness_close(&restored);
}
END_TEST

START_TEST(test_session_distinct_merges)
{
    GroupWindowAggregateSpec spec = make_distinct_spec(SESSION_3S);
    Harness h, restored;
    harness_open(&h, make_operator(&spec), distinct_output, 8);
    row(&h, "+I a,1,1000"); /* [1, 4) */
    row(&h, "+I a,1,5000"); /* [5, 8) */
    row(&h, "+I a,2,5500");
    row(&h, "+I b,4,1000");
    harness_fork(&h, &restored, make_operator(&spec), distinct_output, 8);
    /* [3.5, 6.5) bridges [1, 4) and [5, 8): 1 is in both, counted once */
    row(&restored, "+I a,2,3500");
    row(&restored, "+I a,NULL,3600");
    row(&restored, "+I a,3,7000"); /* inside the merged session */
    watermark(&restored, INT64_MAX);
    ck_assert_str_eq(harness_take(&restored),
                     "+I(b,1,1,4,4,1000,4000,3999) +I(a,6,3,6,9,1000,10000,9999)");
    restored.op->vtable->report_state(restored.op);
    ck_assert_uint_eq(restored.op->metrics.state_rows, 0);
    harness_close(&h);
    harness_close(&restored);
}
END_TEST

static Suite *group_window_aggregate_suite(void)
{
    Suite *suite = suite_create("group_window_aggregate");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_session_merges);
    tcase_add_test(tc, test_session_late_rows);
    tcase_add_test(tc, test_tumble_retractions);
    tcase_add_test(tc, test_hop_late_window);
    tcase_add_test(tc, test_session_restore);
    tcase_add_test(tc, test_proctime_tumble);
    tcase_add_test(tc, test_tumble_distinct_retractions);
    tcase_add_test(tc, test_hop_distinct_restore);
    tcase_add_test(tc, test_session_distinct_merges);
    suite_add_tcase(suite, tc);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(group_window_aggregate_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
