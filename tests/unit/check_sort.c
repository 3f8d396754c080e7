/*
 * check_sort.c - Check suite for the sorting operators and Limit
 * (engine/exec/ops/op_temporal_sort.c, op_sort.c, op_limit.c), as Flink's
 * RowTimeSortOperatorTest / ProcTimeSortOperatorTest and Limit tests assert:
 * event time releases the rows of each time when the watermark passes it,
 * sorted by the other keys, ties in arrival order, late rows dropped; the
 * batch Sort emits the final rows of an updating input sorted at the end of
 * input, with NULLs where the keys say; Limit passes offset..offset+fetch and
 * asks the job to end once it has them.
 *
 * Rows R(t BIGINT (the time), k STRING, v BIGINT).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "engine/exec/ops/op_limit.h"
#include "engine/exec/ops/op_sort.h"
#include "engine/exec/ops/op_temporal_sort.h"
#include "tests/unit/operator_harness.h"

static DataType types[3];
static RowOrderKey keys[3];

static void make_types(void)
{
    types[0] = type_make(TYPE_BIGINT, true);
    types[1] = type_make_varchar(TYPE_STRING_LENGTH, true);
    types[2] = type_make(TYPE_BIGINT, true);
}

static RowOrderKey key(uint32_t field, bool descending, bool nulls_first)
{
    RowOrderKey k = {field, types[field], descending, nulls_first};
    return k;
}

static void row(Harness *h, const char *text)
{
    push_text(h, 0, types, 3, text);
}

static void watermark(Harness *h, int64_t value)
{
    ck_assert_int_eq(operator_push_watermark(h->op, 0, 0, value), JOINERY_OK);
}

static void end_input(Harness *h)
{
    ck_assert_int_eq(operator_end_input(h->op, 0), JOINERY_OK);
}

#define EXPECT(h, text) ck_assert_str_eq(harness_take(h), text)

static void open_temporal(Harness *h, uint32_t key_count, bool rowtime)
{
    Diag diag;
    diag_clear(&diag);
    TemporalSortSpec spec = {keys, key_count, rowtime};
    Operator *op = temporal_sort_operator_create(&spec, &diag);
    ck_assert_msg(op != NULL, "%s", diag.message);
    harness_open(h, op, types, 3);
}

START_TEST(test_rowtime_release_and_late_rows)
{
    make_types();
    keys[0] = key(0, false, true);
    keys[1] = key(2, true, false); /* v DESC NULLS LAST */
    Harness h;
    open_temporal(&h, 2, true);
    row(&h, "+I 3,a,1");
    row(&h, "+I 1,b,5");
    row(&h, "+I 3,c,NULL");
    row(&h, "+I 3,d,7");
    row(&h, "+I 2,e,2");
    EXPECT(&h, "");
    watermark(&h, 2);
    EXPECT(&h, "+I(1,b,5) +I(2,e,2)");
    row(&h, "+I 2,late,9"); /* its time was released: dropped */
    row(&h, "+I 1,late,9");
    row(&h, "+I 4,f,0");
    watermark(&h, 3);
    EXPECT(&h, "+I(3,d,7) +I(3,a,1) +I(3,c,NULL)");
    watermark(&h, INT64_MAX); /* a bounded input ends with +infinity */
    end_input(&h);
    EXPECT(&h, "+I(4,f,0)");
    harness_close(&h);
}
END_TEST

START_TEST(test_rowtime_ties_keep_arrival_order)
{
    make_types();
    keys[0] = key(0, false, true);
    Harness h;
    open_temporal(&h, 1, true);
    row(&h, "+I 5,x,1");
    row(&h, "+I 5,a,2");
    row(&h, "+I 5,m,3");
    watermark(&h, 10);
    EXPECT(&h, "+I(5,x,1) +I(5,a,2) +I(5,m,3)");
    ck_assert_int_eq(push_text_status(&h, 0, types, 3, "-D 6,x,1"), JOINERY_ERROR_RUNTIME);
    harness_close(&h);
}
END_TEST

START_TEST(test_proctime_release)
{
    make_types();
    keys[0] = key(0, false, true);
    keys[1] = key(1, false, true); /* k ASC */
    fake_now = 1000;
    Harness h;
    open_temporal(&h, 2, false);
    row(&h, "+I 0,c,1");
    row(&h, "+I 0,a,2");
    row(&h, "+I 0,b,3");
    EXPECT(&h, "");
    ck_assert_int_eq(operator_advance_processing_time(h.op, 1001), JOINERY_OK);
    EXPECT(&h, "+I(0,a,2) +I(0,b,3) +I(0,c,1)");
    row(&h, "+I 0,z,4");
    end_input(&h); /* what is buffered at the end of input is released */
    EXPECT(&h, "+I(0,z,4)");
    harness_close(&h);
}
END_TEST

static void open_sort(Harness *h, uint32_t key_count, int64_t offset, int64_t fetch)
{
    Diag diag;
    diag_clear(&diag);
    SortSpec spec = {keys, key_count, offset, fetch};
    Operator *op = sort_operator_create(&spec, &diag);
    ck_assert_msg(op != NULL, "%s", diag.message);
    harness_open(h, op, types, 3);
}

START_TEST(test_batch_sort_final_rows)
{
    make_types();
    keys[0] = key(2, true, false); /* v DESC NULLS LAST */
    keys[1] = key(1, false, true); /* k ASC */
    Harness h;
    open_sort(&h, 2, 0, -1);
    row(&h, "+I 0,a,1");
    row(&h, "+I 0,b,NULL");
    row(&h, "-U 0,a,1");
    row(&h, "+U 0,a,3");
    row(&h, "+I 0,c,3");
    row(&h, "+I 0,c,3");
    row(&h, "-D 0,zz,9"); /* never received: dropped */
    row(&h, "+I 0,d,2");
    row(&h, "-D 0,d,2");
    EXPECT(&h, "");
    end_input(&h);
    EXPECT(&h, "+I(0,a,3) +I(0,c,3) +I(0,c,3) +I(0,b,NULL)");
    harness_close(&h);
}
END_TEST

START_TEST(test_batch_sort_offset_fetch)
{
    make_types();
    keys[0] = key(2, false, true); /* v ASC NULLS FIRST */
    Harness h;
    open_sort(&h, 1, 1, 2);
    row(&h, "+I 0,a,5");
    row(&h, "+I 0,b,NULL");
    row(&h, "+I 0,c,1");
    row(&h, "+I 0,d,3");
    end_input(&h);
    EXPECT(&h, "+I(0,c,1) +I(0,d,3)");
    harness_close(&h);
}
END_TEST

START_TEST(test_limit)
{
    make_types();
    Diag diag;
    diag_clear(&diag);
    LimitSpec spec = {.offset = 2, .fetch = 3, .ends_job = true};
    Operator *op = limit_operator_create(&spec, &diag);
    Harness h;
    harness_open(&h, op, types, 3);
    volatile int end_requested = 0;
    h.context.end_requested = &end_requested;
    row(&h, "+I 1,a,1");
    row(&h, "+I 2,b,2");
    row(&h, "+I 3,c,3");
    EXPECT(&h, "+I(3,c,3)");
    ck_assert_int_eq(end_requested, 0);
    row(&h, "+I 4,d,4");
    row(&h, "+I 5,e,5");
    ck_assert_int_eq(end_requested, 1);
    row(&h, "+I 6,f,6");
    EXPECT(&h, "+I(4,d,4) +I(5,e,5)");
    ck_assert_int_eq(push_text_status(&h, 0, types, 3, "-U 7,g,7"), JOINERY_OK); /* past it */
    harness_close(&h);

    LimitSpec unlimited = {.offset = 1, .fetch = -1, .ends_job = true};
    op = limit_operator_create(&unlimited, &diag);
    harness_open(&h, op, types, 3);
    end_requested = 0;
    h.context.end_requested = &end_requested;
    row(&h, "+I 1,a,1");
    row(&h, "+I 2,b,2");
    ck_assert_int_eq(push_text_status(&h, 0, types, 3, "-D 2,b,2"), JOINERY_ERROR_RUNTIME);
    EXPECT(&h, "+I(2,b,2)");
    ck_assert_int_eq(end_requested, 0);
    harness_close(&h);
}
END_TEST

static Suite *sort_suite(void)
{
    Suite *suite = suite_create("sort");
    TCase *core = tcase_create("core");
    tcase_add_test(core, test_rowtime_release_and_late_rows);
    tcase_add_test(core, test_rowtime_ties_keep_arrival_order);
    tcase_add_test(core, test_proctime_release);
    tcase_add_test(core, test_batch_sort_final_rows);
    tcase_add_test(core, test_batch_sort_offset_fetch);
    tcase_add_test(core, test_limit);
    suite_add_tcase(suite, core);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(sort_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
