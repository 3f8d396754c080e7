/*
 * check_interval_join.c - Check suite for the interval join
 * (engine/exec/ops/op_interval_join.c), after the semantics of Flink's
 * RowTimeIntervalJoinTest and ProcTimeIntervalJoinTest: the exact output
 * and watermarks (held back by the larger relative size) for common and
 * negative bounds, LEFT/RIGHT/FULL padding on expiry and at once for late
 * rows, cleanup timers (rows kept, timers left), inclusive bounds at the
 * edges, an empty window, NULL keys and times, a residual condition,
 * processing time with a fake clock, the late-row counts, and a snapshot
 * restored into a fresh operator that then behaves the same.
 *
 * Both inputs are (time BIGINT, key STRING), keyed by the key, time field
 * 0; the output reads "+I(1,k1,2,k1)", watermarks "W(-19)".
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/exec/ops/op_interval_join.h"
#include "tests/unit/operator_harness.h"

static DataType side_types[2];
static DataType output_types[4];
static const uint32_t key_fields[1] = {1};

static void init_types(void)
{
    side_types[0] = type_make(TYPE_BIGINT, true);
    side_types[1] = type_make_varchar(TYPE_STRING_LENGTH, true);
    for (int i = 0; i < 4; i++)
        output_types[i] = side_types[i % 2];
}

static IntervalJoinOperatorSpec make_spec(JoinType type, int64_t lower, int64_t upper,
                                          int64_t min_cleanup)
{
    init_types();
    IntervalJoinOperatorSpec spec;
    memset(&spec, 0, sizeof spec);
    spec.join_type = type;
    spec.left_field_count = spec.right_field_count = 2;
    spec.left_types = spec.right_types = side_types;
    spec.left_keys = spec.right_keys = key_fields;
    spec.key_count = 1;
    spec.rowtime = true;
    spec.left_lower_bound = lower;
    spec.left_upper_bound = upper;
    spec.left_time_field = spec.right_time_field = 0;
    spec.min_cleanup_interval = min_cleanup;
    return spec;
}

static void open_join(Harness *h, const IntervalJoinOperatorSpec *spec)
{
    Diag diag;
    diag_clear(&diag);
    Operator *op = interval_join_operator_create(spec, &diag);
    ck_assert_msg(op != NULL, "%s", diag.message);
    harness_open(h, op, output_types, 4);
    h->collector.log_watermarks = true;
}

static void left(Harness *h, const char *text)
{
    push_text(h, 0, side_types, 2, text);
}

static void right(Harness *h, const char *text)
{
    push_text(h, 1, side_types, 2, text);
}

/* The same watermark on both inputs (the merged watermark moves to it). */
static void watermark(Harness *h, int64_t value)
{
    ck_assert_int_eq(operator_push_watermark(h->op, 0, 0, value), JOINERY_OK);
    ck_assert_int_eq(operator_push_watermark(h->op, 1, 1, value), JOINERY_OK);
    test_store_commit(h->context.state_store);
}

static uint64_t kept_rows(Harness *h)
{
    h->op->vtable->report_state(h->op);
    return h->op->metrics.state_rows;
}

static uint64_t event_timers(Harness *h)
{
    return h->op->timers ? timer_service_count(h->op->timers, TIMER_EVENT_TIME) : 0;
}

#define EXPECT(h, text) ck_assert_str_eq(harness_take(h), text)

/* l.time >= r.time - 10 AND l.time <= r.time + 20, cleanup delayed by 15. */
START_TEST(test_inner_common_bounds)
{
    Harness h;
    IntervalJoinOperatorSpec spec = make_spec(JOIN_TYPE_INNER, -10, 20, 15);
    open_join(&h, &spec);
    watermark(&h, 1);
    EXPECT(&h, "W(-19)");
    left(&h, "+I 1,k1"); /* behind the watermark, yet its range reaches past it: kept */
    ck_assert_uint_eq(event_timers(&h), 1);
    left(&h, "+I 2,k1");
    right(&h, "+I 2,k1");
    EXPECT(&h, "+I(1,k1,2,k1) +I(2,k1,2,k1)");
    ck_assert_uint_eq(event_timers(&h), 2);
    ck_assert_uint_eq(kept_rows(&h), 3);
    left(&h, "+I 5,k1");
    right(&h, "+I 15,k1");
    EXPECT(&h, "+I(5,k1,2,k1) +I(5,k1,15,k1)");
    watermark(&h, 20);
    EXPECT(&h, "W(0)");
    ck_assert_uint_eq(kept_rows(&h), 5);
    left(&h, "+I 35,k1");
    EXPECT(&h, "+I(35,k1,15,k1)");
    /* timers at 27 (left rows <= 27 go) and 38 (right rows <= 17 go) */
    watermark(&h, 38);
    EXPECT(&h, "W(18)");
    ck_assert_uint_eq(kept_rows(&h), 1);
    left(&h, "+I 40,k2");
    right(&h, "+I 39,k2");
    EXPECT(&h, "+I(40,k2,39,k2)");
    ck_assert_uint_eq(kept_rows(&h), 3);
    watermark(&h, 61); /* the left row at 35 goes */
    EXPECT(&h, "W(41)");
    ck_assert_uint_eq(kept_rows(&h), 2);
    ck_assert_uint_eq(interval_join_operator_side_metrics(h.op, 0).late, 0);
    ck_assert_uint_eq(interval_join_operator_side_metrics(h.op, 1).late, 0);
    /* the end of input frees everything */
    watermark(&h, INT64_MAX);
    EXPECT(&h, "W(9223372036854775807)");
    ck_assert_uint_eq(kept_rows(&h), 0);
    ck_assert_uint_eq(event_timers(&h), 0);
    harness_close(&h);
}
END_TEST

/* l.time >= r.time - 10 AND l.time <= r.time - 7: the right side's relative size is -7. */
START_TEST(test_inner_negative_bounds)
{
    Harness h;
    IntervalJoinOperatorSpec spec = make_spec(JOIN_TYPE_INNER, -10, -7, 0);
    open_join(&h, &spec);
    watermark(&h, 1);
    right(&h, "+I 2,k1"); /* could only meet left rows at -8..-5: behind the watermark */
    ck_assert_uint_eq(kept_rows(&h), 0);
    watermark(&h, 2);
    left(&h, "+I 3,k1");
    right(&h, "+I 3,k1");
    right(&h, "+I 13,k1"); /* 13 - 10 = 3: the lower edge */
    left(&h, "+I 6,k1");   /* 13 - 7 = 6: the upper edge */
    ck_assert_uint_eq(kept_rows(&h), 3);
    watermark(&h, 10); /* right rows <= 10 + 7 - 1 go */
    ck_assert_uint_eq(kept_rows(&h), 2);
    watermark(&h, 18);
    ck_assert_uint_eq(kept_rows(&h), 0);
    EXPECT(&h, "W(-9) W(-8) +I(3,k1,13,k1) +I(6,k1,13,k1) W(0) W(8)");
    /* the right row at 2 was not kept, but it was not behind the watermark: not late */
    ck_assert_uint_eq(interval_join_operator_side_metrics(h.op, 1).late, 0);
    harness_close(&h);
}
END_TEST

START_TEST(test_left_outer_realtime_cleanup)
{
    Harness h;
    IntervalJoinOperatorSpec spec = make_spec(JOIN_TYPE_LEFT, -5, 9, 0);
    open_join(&h, &spec);
    left(&h, "+I 1,k1");
    right(&h, "+I 1,k2");
    ck_assert_uint_eq(event_timers(&h), 2);
    ck_assert_uint_eq(kept_rows(&h), 2);
    watermark(&h, 7); /* 7 = 1 + 5 + 1: the left row is padded and freed */
    ck_assert_uint_eq(event_timers(&h), 1);
    ck_assert_uint_eq(kept_rows(&h), 1);
    EXPECT(&h, "+I(1,k1,NULL,NULL) W(-2)");
    harness_close(&h);
}
END_TEST

/* LEFT and RIGHT, cleanup delayed by 7 (half the window, Flink's default before 1.18). */
static void run_outer(JoinType type, const char *expected)
{
    Harness h;
    IntervalJoinOperatorSpec spec = make_spec(type, -5, 9, 7);
    open_join(&h, &spec);
    left(&h, "+I 1,k1");
    right(&h, "+I 1,k2");
    ck_assert_uint_eq(event_timers(&h), 2);
    watermark(&h, 14); /* 14 = 1 + 5 + 1 + 7: the left row goes */
    ck_assert_uint_eq(event_timers(&h), 1);
    ck_assert_uint_eq(kept_rows(&h), 1);
    watermark(&h, 18); /* 18 = 1 + 9 + 1 + 7: the right row goes */
    ck_assert_uint_eq(event_timers(&h), 0);
    ck_assert_uint_eq(kept_rows(&h), 0);
    left(&h, "+I 2,k1"); /* late: not kept, padded at once when outer */
    right(&h, "+I 2,k2");
    ck_assert_uint_eq(kept_rows(&h), 0);
    ck_assert_uint_eq(event_timers(&h), 0);
    left(&h, "+I 19,k1");
    left(&h, "+I 20,k1");
    right(&h, "+I 26,k1");
    right(&h, "+I 25,k1");
    left(&h, "+I 21,k1");
    right(&h, "+I 39,k2");
    right(&h, "+I 40,k2");
    left(&h, "+I 50,k2");
    left(&h, "+I 49,k2");
    right(&h, "+I 41,k2");
    watermark(&h, 100);
    EXPECT(&h, expected);
    ck_assert_uint_eq(interval_join_operator_side_metrics(h.op, 0).late, 1);
    ck_assert_uint_eq(interval_join_operator_side_metrics(h.op, 1).late, 1);
    harness_close(&h);
}

START_TEST(test_left_outer)
{
    run_outer(JOIN_TYPE_LEFT,
              "+I(1,k1,NULL,NULL) W(5) W(9) +I(2,k1,NULL,NULL) +I(20,k1,25,k1) +I(21,k1,25,k1) "
              "+I(21,k1,26,k1) +I(49,k2,40,k2) +I(49,k2,41,k2) +I(50,k2,41,k2) "
              "+I(19,k1,NULL,NULL) W(91)");
}
END_TEST

START_TEST(test_right_outer)
{
    run_outer(JOIN_TYPE_RIGHT,
              "W(5) +I(NULL,NULL,1,k2) W(9) +I(NULL,NULL,2,k2) +I(20,k1,25,k1) +I(21,k1,25,k1) "
              "+I(21,k1,26,k1) +I(49,k2,40,k2) +I(49,k2,41,k2) +I(50,k2,41,k2) "
              "+I(NULL,NULL,39,k2) W(91)");
}
END_TEST

START_TEST(test_full_outer)
{
    run_outer(JOIN_TYPE_FULL, "+I(1,k1,NULL,NULL) W(5) +I(NULL,NULL,1,k2) W(9) +I(2,k1,NULL,NULL) "
                              "+I(NULL,NULL,2,k2) +I(20,k1,25,k1) +I(21,k1,25,k1) +I(21,k1,26,k1) "
                              "+I(49,k2,40,k2) +I(49,k2,41,k2) +I(50,k2,41,k2) +I(19,k1,NULL,NULL) "
                              "+I(NULL,NULL,39,k2) W(91)");
}
END_TEST

/* Bounds are inclusive: [-3, 4] meets a right row at l - 4 and l + 3, not one beyond. */
START_TEST(test_bounds_inclusive_at_edges)
{
    Harness h;
    IntervalJoinOperatorSpec spec = make_spec(JOIN_TYPE_INNER, -3, 4, 0);
    open_join(&h, &spec);
    right(&h, "+I 5,k");
    right(&h, "+I 6,k");
    right(&h, "+I 13,k");
    right(&h, "+I 14,k");
    left(&h, "+I 10,k"); /* right rows at 6..13 */
    EXPECT(&h, "+I(10,k,6,k) +I(10,k,13,k)");
    left(&h, "+I 2,k"); /* right rows at -2..5 */
    EXPECT(&h, "+I(2,k,5,k)");
    /* and from the right: left rows at r - 3 .. r + 4 */
    left(&h, "+I 30,k");
    left(&h, "+I 37,k");
    right(&h, "+I 33,k");
    EXPECT(&h, "+I(30,k,33,k) +I(37,k,33,k)");
    right(&h, "+I 34,k");
    EXPECT(&h, "+I(37,k,34,k)");
    right(&h, "+I 26,k");
    EXPECT(&h, "+I(30,k,26,k)");
    harness_close(&h);
}
END_TEST

/* Upper bound below the lower bound: nothing matches, outer rows are padded at once. */
START_TEST(test_empty_window)
{
    Harness h;
    IntervalJoinOperatorSpec spec = make_spec(JOIN_TYPE_FULL, 5, 1, 0);
    open_join(&h, &spec);
    left(&h, "+I 10,k");
    right(&h, "+I 7,k");
    EXPECT(&h, "+I(10,k,NULL,NULL) +I(NULL,NULL,7,k)");
    ck_assert_uint_eq(kept_rows(&h), 0);
    watermark(&h, 50); /* no delay: Flink unions the padded inputs */
    EXPECT(&h, "W(50)");
    harness_close(&h);
    spec = make_spec(JOIN_TYPE_INNER, 5, 1, 0);
    open_join(&h, &spec);
    left(&h, "+I 10,k");
    right(&h, "+I 7,k");
    EXPECT(&h, "");
    harness_close(&h);
}
END_TEST

/* NULL keys match nothing (an outer row is padded on expiry); a NULL time is padded at once. */
START_TEST(test_null_key_and_time)
{
    Harness h;
    IntervalJoinOperatorSpec spec = make_spec(JOIN_TYPE_LEFT, -5, 5, 0);
    open_join(&h, &spec);
    right(&h, "+I 10,NULL");
    left(&h, "+I 10,NULL");
    EXPECT(&h, "");
    left(&h, "+I NULL,k");
    EXPECT(&h, "+I(NULL,k,NULL,NULL)");
    ck_assert_uint_eq(kept_rows(&h), 1); /* the outer left row with the NULL key */
    watermark(&h, 16);
    EXPECT(&h, "+I(10,NULL,NULL,NULL) W(11)");
    ck_assert_uint_eq(kept_rows(&h), 0);
    harness_close(&h);
}
END_TEST

/* A residual condition: rows in range that fail it do not match (an outer row stays padded). */
START_TEST(test_residual_condition)
{
    Harness h;
    IntervalJoinOperatorSpec spec = make_spec(JOIN_TYPE_LEFT, -10, 10, 0);
    /* left.time < right.time */
    Arena arena;
    arena_init(&arena, 1024);
    Expr *pair[2] = {expr_make_input_ref(&arena, 0, side_types[0]),
                     expr_make_input_ref(&arena, 2, side_types[0])};
    spec.residual = expr_make_call(&arena, FUNCTION_LESS, type_make(TYPE_BOOLEAN, true), pair, 2);
    open_join(&h, &spec);
    left(&h, "+I 10,k");
    right(&h, "+I 8,k");
    right(&h, "+I 12,k");
    EXPECT(&h, "+I(10,k,12,k)");
    left(&h, "+I 20,k"); /* right rows 10..30: 12 is in range but not after 20 */
    EXPECT(&h, "");
    watermark(&h, 40);
    EXPECT(&h, "+I(20,k,NULL,NULL) W(30)");
    harness_close(&h);
    arena_destroy(&arena);
}
END_TEST

/* Late rows join what the other side still holds and are counted per input. */
START_TEST(test_late_rows_join_what_is_held)
{
    Harness h;
    IntervalJoinOperatorSpec spec = make_spec(JOIN_TYPE_FULL, -2, 2, 0);
    open_join(&h, &spec);
    right(&h, "+I 10,k");
    watermark(&h, 11);  /* right rows <= 11 - 2 - 1 = 8 expire; the row at 10 is held */
    left(&h, "+I 9,k"); /* late (9 < 11, range reaches 11 only): joins 10, not kept */
    EXPECT(&h, "W(9) +I(9,k,10,k)");
    left(&h, "+I 3,k"); /* late: matches nothing, padded at once */
    EXPECT(&h, "+I(3,k,NULL,NULL)");
    ck_assert_uint_eq(interval_join_operator_side_metrics(h.op, 0).late, 2);
    ck_assert_uint_eq(interval_join_operator_side_metrics(h.op, 1).late, 0);
    watermark(&h, 13); /* the right row at 10 goes, matched: no padding */
    EXPECT(&h, "W(11)");
    ck_assert_uint_eq(kept_rows(&h), 0);
    harness_close(&h);
}
END_TEST

/* Processing time: rows take the clock's time; processing-time timers free them. */
START_TEST(test_processing_time)
{
    Harness h;
    IntervalJoinOperatorSpec spec = make_spec(JOIN_TYPE_LEFT, -10, 20, 0);
    spec.rowtime = false;
    open_join(&h, &spec);
    fake_now = 1;
    left(&h, "+I 0,k1");
    fake_now = 5;
    right(&h, "+I 0,k1");
    EXPECT(&h, "+I(0,k1,0,k1)");
    ck_assert_int_eq(operator_next_processing_timer(h.op), 12); /* 1 + 10 + 1 */
    left(&h, "+I 99,k2");
    ck_assert_int_eq(operator_advance_processing_time(h.op, 12), JOINERY_OK);
    ck_assert_uint_eq(kept_rows(&h), 2); /* the right row at 5, the left row of k2 */
    fake_now = 13;
    right(&h, "+I 0,k1"); /* the left row at 1 is gone */
    EXPECT(&h, "");
    fake_now = 14;
    left(&h, "+I 0,k1"); /* right rows at -6..24: both */
    EXPECT(&h, "+I(0,k1,0,k1) +I(0,k1,0,k1)");
    ck_assert_int_eq(operator_advance_processing_time(h.op, 16), JOINERY_OK);
    EXPECT(&h, "+I(99,k2,NULL,NULL)"); /* k2's left row at 5 expired at 5 + 10 + 1 */
    /* watermarks pass unchanged */
    watermark(&h, 77);
    EXPECT(&h, "W(77)");
    ck_assert_uint_eq(interval_join_operator_side_metrics(h.op, 0).late, 0);
    harness_close(&h);
    fake_now = 0;
}
END_TEST

/* Without equi keys every row shares the one empty key. */
START_TEST(test_no_equi_key)
{
    Harness h;
    IntervalJoinOperatorSpec spec = make_spec(JOIN_TYPE_INNER, 0, 0, 0);
    spec.key_count = 0;
    open_join(&h, &spec);
    left(&h, "+I 5,a");
    right(&h, "+I 5,b");
    right(&h, "+I 6,c");
    EXPECT(&h, "+I(5,a,5,b)");
    harness_close(&h);
}
END_TEST

/* A snapshot restored into a fresh operator continues exactly as the original. */
START_TEST(test_snapshot_restore)
{
    srand(77);
    IntervalJoinOperatorSpec spec = make_spec(JOIN_TYPE_FULL, -20, 10, 0);
    Harness original, restored;
    open_join(&original, &spec);
    int64_t clock = 100;
    char text[64];
    for (int step = 0; step < 400; step++) {
        if (step == 200) {
            Diag diag;
            diag_clear(&diag);
            Operator *fresh = interval_join_operator_create(&spec, &diag);
            ck_assert_msg(fresh != NULL, "%s", diag.message);
            harness_fork(&original, &restored, fresh, output_types, 4);
            restored.collector.log_watermarks = true;
            ck_assert_uint_eq(kept_rows(&restored), kept_rows(&original));
            watermark(&restored, clock - 15);
            harness_take(&restored);
        }
        Harness *harnesses[2] = {&original, &restored};
        int running = step >= 200 ? 2 : 1;
        int side = rand() % 2;
        clock += rand() % 4;
        snprintf(text, sizeof text, "+I %lld,k%d", (long long)(clock - rand() % 12), rand() % 4);
        bool advance = step % 9 == 0;
        char logs[2][sizeof original.taken];
        for (int i = 0; i < running; i++) {
            push_text(harnesses[i], (uint32_t)side, side_types, 2, text);
            if (advance)
                watermark(harnesses[i], clock - 15);
            snprintf(logs[i], sizeof logs[i], "%s", harness_take(harnesses[i]));
        }
        if (running == 2)
            ck_assert_msg(strcmp(logs[0], logs[1]) == 0, "step %d: %s vs %s", step, logs[0],
                          logs[1]);
    }
    ck_assert_uint_eq(kept_rows(&restored), kept_rows(&original));
    ck_assert_uint_gt(kept_rows(&original), 0);
    harness_close(&original);
    harness_close(&restored);
}
END_TEST

START_TEST(test_rejects_updates)
{
    Harness h;
    IntervalJoinOperatorSpec spec = make_spec(JOIN_TYPE_INNER, -1, 1, 0);
    open_join(&h, &spec);
    ck_assert_int_eq(push_text_status(&h, 0, side_types, 2, "-D 1,k"), JOINERY_ERROR_RUNTIME);
    ck_assert_ptr_nonnull(strstr(h.diag.message, "insert-only"));
    harness_close(&h);
}
END_TEST

static Suite *interval_join_suite(void)
{
    Suite *suite = suite_create("interval_join");
    TCase *core = tcase_create("core");
    tcase_add_test(core, test_inner_common_bounds);
    tcase_add_test(core, test_inner_negative_bounds);
    tcase_add_test(core, test_left_outer_realtime_cleanup);
    tcase_add_test(core, test_left_outer);
    tcase_add_test(core, test_right_outer);
    tcase_add_test(core, test_full_outer);
    tcase_add_test(core, test_bounds_inclusive_at_edges);
    tcase_add_test(core, test_empty_window);
    tcase_add_test(core, test_null_key_and_time);
    tcase_add_test(core, test_residual_condition);
    tcase_add_test(core, test_late_rows_join_what_is_held);
    tcase_add_test(core, test_processing_time);
    tcase_add_test(core, test_no_equi_key);
    tcase_add_test(core, test_snapshot_restore);
    tcase_add_test(core, test_rejects_updates);
    tcase_set_timeout(core, 60);
    suite_add_tcase(suite, core);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(interval_join_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
