/*
 * check_session_window.c - Check suite for the SESSION window table function
 * operator (engine/exec/ops/op_session_window_table_function.h), after the
 * semantics of Flink's UnalignedWindowTableFunctionOperator: a row's window
 * [t, t + gap) merges the sessions of its partition key it intersects (ends
 * included), a session's rows go out in arrival order when the watermark
 * reaches its end - 1, late rows are dropped and counted, a row merging into
 * an open session is not late, NULL times are skipped, snapshot / restore
 * carries sessions, rows and timers, and nothing is left in state at the
 * end. Rows: (name, time ms); output: name, time, window_start, window_end,
 * window_time. Stores are of the run's default backend (test_store.h).
 */
#include <check.h>
#include <stdlib.h>

#include "engine/exec/ops/op_session_window_table_function.h"
#include "tests/unit/operator_harness.h"

static DataType in_types[2];
static DataType out_types[5];
static const uint32_t NAME_KEY[1] = {0};

static void init_types(void)
{
    in_types[0] = type_make(TYPE_VARCHAR, true);
    in_types[1] = type_make_timestamp(TYPE_TIMESTAMP, 3, true);
    out_types[0] = in_types[0];
    for (int i = 1; i < 5; i++)
        out_types[i] = in_types[1];
}

static Operator *make_session(int64_t gap, bool partitioned)
{
    init_types();
    SessionWindowSpec spec = {.gap_millis = gap,
                              .time_field = 1,
                              .input_field_count = 2,
                              .input_types = in_types,
                              .partition_keys = partitioned ? NAME_KEY : NULL,
                              .partition_key_count = partitioned ? 1 : 0};
    Diag diag;
    diag_clear(&diag);
    Operator *op = session_window_operator_create(&spec, &diag);
    ck_assert_msg(op != NULL, "%s", diag.message);
    return op;
}

static void watermark(Harness *h, int64_t value)
{
    ck_assert_int_eq(operator_push_watermark(h->op, 0, 0, value), JOINERY_OK);
    test_store_commit(h->context.state_store);
}

static void check_released(Harness *h)
{
    h->op->vtable->report_state(h->op);
    ck_assert_uint_eq(h->op->metrics.state_rows, 0);
    ck_assert_uint_eq(h->op->metrics.state_keys, 0);
    ck_assert_uint_eq(timer_service_count(h->op->timers, TIMER_EVENT_TIME), 0);
}

START_TEST(test_sessions_merge_and_fire_at_their_end)
{
    Harness h;
    harness_open(&h, make_session(10, true), out_types, 5);
    push_text(&h, 0, in_types, 2, "+I a,100");
    push_text(&h, 0, in_types, 2, "+I b,103");
    push_text(&h, 0, in_types, 2, "+I a,125"); /* a second session of a: [125, 135) */
    push_text(&h, 0, in_types, 2, "+I a,105"); /* extends the first: [100, 115) */
    watermark(&h, 112);
    ck_assert_str_eq(harness_take(&h), "+I(b,103,103,113,112)");
    /* [115, 125) touches both sessions of a: one session [100, 135), rows in arrival order */
    push_text(&h, 0, in_types, 2, "+I a,115");
    watermark(&h, 133);
    ck_assert_str_eq(harness_take(&h), "");
    watermark(&h, 134);
    ck_assert_str_eq(harness_take(&h), "+I(a,100,100,135,134) +I(a,125,100,135,134) "
                                       "+I(a,105,100,135,134) +I(a,115,100,135,134)");
    check_released(&h);
    ck_assert_uint_eq(session_window_operator_late_rows(h.op), 0);
    harness_close(&h);
}
END_TEST

START_TEST(test_late_rows_dropped_unless_they_join_an_open_session)
{
    Harness h;
    harness_open(&h, make_session(10, true), out_types, 5);
    push_text(&h, 0, in_types, 2, "+I a,100");
    watermark(&h, 105);
    /* [90, 100) ends at 99 <= 105: late */
    push_text(&h, 0, in_types, 2, "+I b,90");
    /* [96, 106) would end at 105 <= watermark 105 (Flink's isWindowLate: end - 1 <= wm) */
    push_text(&h, 0, in_types, 2, "+I b,96");
    ck_assert_uint_eq(session_window_operator_late_rows(h.op), 2);
    /* behind the watermark but merging into a's open session [100, 110): kept */
    push_text(&h, 0, in_types, 2, "+I a,95");
    ck_assert_uint_eq(session_window_operator_late_rows(h.op), 2);
    watermark(&h, 109);
    ck_assert_str_eq(harness_take(&h), "+I(a,100,95,110,109) +I(a,95,95,110,109)");
    /* a NULL time is skipped, not late */
    push_text(&h, 0, in_types, 2, "+I a,NULL");
    ck_assert_uint_eq(h.op->metrics.skipped_rows, 1);
    check_released(&h);
    harness_close(&h);
}
END_TEST

START_TEST(test_without_partition_keys_and_null_keys)
{
    Harness h;
    harness_open(&h, make_session(5, false), out_types, 5);
    push_text(&h, 0, in_types, 2, "+I a,10");
    push_text(&h, 0, in_types, 2, "+I b,12");
    push_text(&h, 0, in_types, 2, "+I NULL,30");
    watermark(&h, INT64_MAX);
    ck_assert_str_eq(harness_take(&h), "+I(a,10,10,17,16) +I(b,12,10,17,16) +I(NULL,30,30,35,34)");
    check_released(&h);
    harness_close(&h);
    /* partitioned: NULL is a key like any other */
    harness_open(&h, make_session(5, true), out_types, 5);
    push_text(&h, 0, in_types, 2, "+I NULL,10");
    push_text(&h, 0, in_types, 2, "+I NULL,13");
    push_text(&h, 0, in_types, 2, "+I a,11");
    watermark(&h, 15);
    ck_assert_str_eq(harness_take(&h), "+I(a,11,11,16,15)");
    watermark(&h, 17);
    ck_assert_str_eq(harness_take(&h), "+I(NULL,10,10,18,17) +I(NULL,13,10,18,17)");
    harness_close(&h);
}
END_TEST

START_TEST(test_snapshot_and_restore)
{
    Harness h, restored;
    harness_open(&h, make_session(10, true), out_types, 5);
    push_text(&h, 0, in_types, 2, "+I a,100");
    push_text(&h, 0, in_types, 2, "+I a,130");
    push_text(&h, 0, in_types, 2, "+I b,101");
    watermark(&h, 50);
    harness_fork(&h, &restored, make_session(10, true), out_types, 5);
    harness_close(&h);
    /* the restored operator carries both keys' sessions, rows, counters and timers */
    push_text(&restored, 0, in_types, 2, "+I a,112"); /* [112, 122): apart from both */
    push_text(&restored, 0, in_types, 2, "+I a,121"); /* [121,131) joins [112,122) and [130,140) */
    watermark(&restored, 110);
    ck_assert_str_eq(harness_take(&restored), "+I(a,100,100,110,109) +I(b,101,101,111,110)");
    watermark(&restored, 139);
    ck_assert_str_eq(harness_take(&restored),
                     "+I(a,130,112,140,139) +I(a,112,112,140,139) +I(a,121,112,140,139)");
    check_released(&restored);
    harness_close(&restored);
}
END_TEST

static Suite *session_window_suite(void)
{
    Suite *suite = suite_create("session_window");
    TCase *cases = tcase_create("session");
    tcase_add_test(cases, test_sessions_merge_and_fire_at_their_end);
    tcase_add_test(cases, test_late_rows_dropped_unless_they_join_an_open_session);
    tcase_add_test(cases, test_without_partition_keys_and_null_keys);
    tcase_add_test(cases, test_snapshot_and_restore);
    suite_add_tcase(suite, cases);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(session_window_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
