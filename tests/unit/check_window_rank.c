/*
 * check_window_rank.c - Check suite for window Top-N and window
 * deduplication (engine/exec/ops/op_window_rank.c), each test on both state
 * backends, as Flink's WindowRankOperatorTest asserts: nothing is emitted
 * before the watermark passes window_end - 1, then each window's top rows
 * per key as +I (with the rank number or not, a rank range), the window's
 * rows freed; rows of a window that has fired are late (dropped, counted);
 * deduplication keeps the first or the last row by rowtime; the state
 * survives a snapshot.
 *
 * Rows R(k STRING, v BIGINT, t BIGINT, window_end BIGINT); partition k.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "engine/exec/ops/op_window_rank.h"
#include "tests/unit/operator_harness.h"

static DataType types[5];
static const uint32_t partition_fields[1] = {0};
static RowOrderKey sort_fields[1];

static WindowRankSpec make_spec(int64_t start, int64_t end, bool number)
{
    types[0] = type_make_varchar(TYPE_STRING_LENGTH, true);
    types[1] = type_make(TYPE_BIGINT, true);
    types[2] = type_make(TYPE_BIGINT, true);
    types[3] = type_make(TYPE_BIGINT, true);
    types[4] = type_make(TYPE_BIGINT, false);
    sort_fields[0] = (RowOrderKey){.field = 1, .descending = true}; /* v DESC */
    WindowRankSpec spec;
    memset(&spec, 0, sizeof spec);
    spec.field_count = 4;
    spec.types = types;
    spec.partition_fields = partition_fields;
    spec.partition_count = 1;
    spec.window_end_field = 3;
    spec.sort_fields = sort_fields;
    spec.sort_count = 1;
    spec.rank_start = start;
    spec.rank_end = end;
    spec.output_rank_number = number;
    return spec;
}

static void use_backend(int index)
{
    setenv("JOINERY_STATE_BACKEND", index ? "lmdb" : "hashmap", 1);
}

static void open_rank(Harness *h, const WindowRankSpec *spec)
{
    Diag diag;
    diag_clear(&diag);
    Operator *op = window_rank_operator_create(spec, &diag);
    ck_assert_msg(op != NULL, "%s", diag.message);
    harness_open(h, op, types, spec->output_rank_number ? 5 : 4);
}

static void row(Harness *h, const char *text)
{
    push_text(h, 0, types, 4, text);
}

static void watermark(Harness *h, int64_t value)
{
    ck_assert_int_eq(operator_push_watermark(h->op, 0, 0, value), JOINERY_OK);
    test_store_commit(h->context.state_store);
}

#define EXPECT(h, text) ck_assert_str_eq(harness_take(h), text)

START_TEST(test_top2_per_window_and_key)
{
    use_backend(_i);
    Harness h;
    WindowRankSpec spec = make_spec(1, 2, true);
    open_rank(&h, &spec);
    row(&h, "+I a,5,1,10");
    row(&h, "+I a,9,2,10");
    row(&h, "+I b,3,3,10");
    row(&h, "+I a,7,4,10");
    row(&h, "+I a,8,11,20"); /* the next window */
    EXPECT(&h, "");          /* nothing before the watermark */
    watermark(&h, 8);
    EXPECT(&h, "");
    watermark(&h, 9); /* window_end - 1; the keys' timers fire in the timer queue's order */
    EXPECT(&h, "+I(b,3,3,10,1) +I(a,9,2,10,1) +I(a,7,4,10,2)");
    h.op->vtable->report_state(h.op);
    ck_assert_uint_eq(h.op->metrics.state_rows, 1); /* only the window ending at 20 */
    row(&h, "+I a,100,5,10");                       /* its window fired: late */
    ck_assert_uint_eq(window_rank_operator_late_rows(h.op), 1);
    row(&h, "+I b,1,12,20");
    watermark(&h, 100);
    EXPECT(&h, "+I(b,1,12,20,1) +I(a,8,11,20,1)");
    h.op->vtable->report_state(h.op);
    ck_assert_uint_eq(h.op->metrics.state_rows, 0);
    ck_assert_uint_eq(h.op->metrics.state_keys, 0);
    harness_close(&h);
}
END_TEST

/* A range with an offset, without the rank number; ties in arrival order. */
START_TEST(test_rank_range_and_ties)
{
    use_backend(_i);
    Harness h;
    WindowRankSpec spec = make_spec(2, 3, false);
    open_rank(&h, &spec);
    row(&h, "+I a,5,1,10");
    row(&h, "+I a,5,2,10");
    row(&h, "+I a,6,3,10");
    row(&h, "+I a,5,4,10");
    row(&h, "+I a,NULL,5,10"); /* DESC NULLS LAST */
    row(&h, "+I a,1,6,NULL");  /* no window: dropped, counted */
    watermark(&h, INT64_MAX);
    EXPECT(&h, "+I(a,5,1,10) +I(a,5,2,10)");
    ck_assert_uint_eq(window_rank_operator_late_rows(h.op), 1);
    harness_close(&h);
}
END_TEST

/* WindowDeduplicate: rank 1 by rowtime, FirstRow keeps the earliest arrival of the smallest
   time, LastRow the latest arrival of the largest. */
START_TEST(test_deduplicate_first_and_last_row)
{
    use_backend(_i);
    for (int last = 0; last < 2; last++) {
        Harness h;
        WindowRankSpec spec = make_spec(1, 1, false);
        sort_fields[0] =
            (RowOrderKey){.field = 2, .descending = last == 1, .nulls_first = last == 0};
        spec.ties_latest_first = last == 1;
        open_rank(&h, &spec);
        row(&h, "+I a,1,5,10");
        row(&h, "+I a,2,3,10");
        row(&h, "+I a,3,7,10");
        row(&h, "+I a,4,3,10");
        row(&h, "+I a,5,7,10");
        watermark(&h, 9);
        EXPECT(&h, last ? "+I(a,5,7,10)" : "+I(a,2,3,10)");
        harness_close(&h);
    }
}
END_TEST

START_TEST(test_refuses_updates)
{
    use_backend(_i);
    Harness h;
    WindowRankSpec spec = make_spec(1, 2, true);
    open_rank(&h, &spec);
    ck_assert_int_eq(push_text_status(&h, 0, types, 4, "-D a,1,1,10"), JOINERY_ERROR_RUNTIME);
    ck_assert_ptr_nonnull(strstr(h.diag.message, "append-only"));
    harness_close(&h);
}
END_TEST

START_TEST(test_snapshot_restore)
{
    use_backend(_i);
    Harness original, restored;
    WindowRankSpec spec = make_spec(1, 2, true);
    open_rank(&original, &spec);
    row(&original, "+I a,5,1,10");
    row(&original, "+I a,9,2,10");
    Diag diag;
    diag_clear(&diag);
    Operator *fresh = window_rank_operator_create(&spec, &diag);
    ck_assert_ptr_nonnull(fresh);
    harness_fork(&original, &restored, fresh, types, 5);
    Harness *both[2] = {&original, &restored};
    for (int i = 0; i < 2; i++) {
        row(both[i], "+I a,7,3,10");
        watermark(both[i], 9);
        EXPECT(both[i], "+I(a,9,2,10,1) +I(a,7,3,10,2)");
    }
    harness_close(&original);
    harness_close(&restored);
}
END_TEST

static Suite *window_rank_suite(void)
{
    Suite *suite = suite_create("window_rank");
    TCase *core = tcase_create("core");
    tcase_add_loop_test(core, test_top2_per_window_and_key, 0, 2);
    tcase_add_loop_test(core, test_rank_range_and_ties, 0, 2);
    tcase_add_loop_test(core, test_deduplicate_first_and_last_row, 0, 2);
    tcase_add_loop_test(core, test_refuses_updates, 0, 2);
    tcase_add_loop_test(core, test_snapshot_restore, 0, 2);
    suite_add_tcase(suite, core);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(window_rank_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
