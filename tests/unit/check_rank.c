/*
 * check_rank.c - Check suite for the Top-N operator (engine/exec/ops/op_rank.c),
 * each test on both state backends (hashmap, LMDB). The changelogs are the
 * ones Flink's TopNFunctionTestBase, RetractableTopNFunctionTest and
 * UpdatableTopNFunction assert: rows entering the top N shift the ranks
 * below them (-U/+U per rank, +I for a rank newly filled, -D of the row
 * pushed out when the rank number is not output), retractions move rows up
 * and bring the next row in, updates by a unique key move a row up,
 * update-before rows only when asked for, the rank range filters what is
 * emitted, and the state survives a snapshot and expires with a TTL.
 *
 * Rows R(k STRING, id BIGINT, v BIGINT); partition k, ORDER BY v ASC
 * (NULLS FIRST) unless a test says otherwise; unique key id.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "engine/exec/ops/op_rank.h"
#include "tests/unit/operator_harness.h"

static DataType types[4];
static const uint32_t partition_fields[1] = {0};
static const uint32_t unique_key_fields[1] = {1};
static RowOrderKey sort_fields[1];

static RankSpec make_spec(RankStrategy strategy, int64_t start, int64_t end, bool number,
                          bool update_before)
{
    types[0] = type_make_varchar(TYPE_STRING_LENGTH, true);
    types[1] = type_make(TYPE_BIGINT, true);
    types[2] = type_make(TYPE_BIGINT, true);
    types[3] = type_make(TYPE_BIGINT, false);
    sort_fields[0] = (RowOrderKey){.field = 2, .nulls_first = true};
    RankSpec spec;
    memset(&spec, 0, sizeof spec);
    spec.field_count = 3;
    spec.types = types;
    spec.partition_fields = partition_fields;
    spec.partition_count = 1;
    spec.sort_fields = sort_fields;
    spec.sort_count = 1;
    spec.rank_start = start;
    spec.rank_end = end;
    spec.output_rank_number = number;
    spec.strategy = strategy;
    spec.unique_key_fields = unique_key_fields;
    spec.unique_key_count = 1;
    spec.generate_update_before = update_before;
    return spec;
}

/* The loop index of a test picks the backend. */
static void use_backend(int index)
{
    setenv("JOINERY_STATE_BACKEND", index ? "lmdb" : "hashmap", 1);
}

static void open_rank(Harness *h, const RankSpec *spec)
{
    Diag diag;
    diag_clear(&diag);
    Operator *op = rank_operator_create(spec, &diag);
    ck_assert_msg(op != NULL, "%s", diag.message);
    harness_open(h, op, types, spec->output_rank_number ? 4 : 3);
}

static void row(Harness *h, const char *text)
{
    push_text(h, 0, types, 3, text);
}

#define EXPECT(h, text) ck_assert_str_eq(harness_take(h), text)

/* TopNFunctionTestBase.testOutputRankNumberWithConstantRankRange (append-only input) */
START_TEST(test_append_with_rank_number)
{
    use_backend(_i);
    Harness h;
    RankSpec spec = make_spec(RANK_STRATEGY_APPEND_FAST, 1, 2, true, true);
    open_rank(&h, &spec);
    row(&h, "+I book,1,12");
    row(&h, "+I book,2,19");
    EXPECT(&h, "+I(book,1,12,1) +I(book,2,19,2)");
    row(&h, "+I book,4,11");
    EXPECT(&h, "-U(book,1,12,1) +U(book,4,11,1) -U(book,2,19,2) +U(book,1,12,2)");
    row(&h, "+I book,5,11"); /* ties with 4: after it */
    EXPECT(&h, "-U(book,1,12,2) +U(book,5,11,2)");
    row(&h, "+I book,6,11"); /* ties with the last of a full top 2: does not enter */
    EXPECT(&h, "");
    row(&h, "+I fruit,4,33");
    row(&h, "+I fruit,3,44");
    row(&h, "+I fruit,5,22");
    EXPECT(&h, "+I(fruit,4,33,1) +I(fruit,3,44,2) -U(fruit,4,33,1) +U(fruit,5,22,1) "
               "-U(fruit,3,44,2) +U(fruit,4,33,2)");
    h.op->vtable->report_state(h.op);
    ck_assert_uint_eq(h.op->metrics.state_keys, 2);
    ck_assert_uint_eq(h.op->metrics.state_rows, 4); /* only the top 2 of each are kept */
    harness_close(&h);
}
END_TEST

/* TopNFunctionTestBase.testDisableGenerateUpdateBefore: without the rank number, -D and +I */
START_TEST(test_append_without_rank_number)
{
    use_backend(_i);
    Harness h;
    RankSpec spec = make_spec(RANK_STRATEGY_APPEND_FAST, 1, 2, false, false);
    open_rank(&h, &spec);
    row(&h, "+I book,1,12");
    row(&h, "+I book,2,19");
    row(&h, "+I book,3,19");
    row(&h, "+I book,4,11");
    row(&h, "+I book,5,11");
    EXPECT(&h, "+I(book,1,12) +I(book,2,19) -D(book,2,19) +I(book,4,11) -D(book,1,12) "
               "+I(book,5,11)");
    harness_close(&h);
}
END_TEST

/* testDisableGenerateUpdateBeforeAndOutputRankNumber: no -U rows at all */
START_TEST(test_append_without_update_before)
{
    use_backend(_i);
    Harness h;
    RankSpec spec = make_spec(RANK_STRATEGY_APPEND_FAST, 1, 2, true, false);
    open_rank(&h, &spec);
    row(&h, "+I book,1,12");
    row(&h, "+I book,2,19");
    row(&h, "+I book,4,11");
    row(&h, "+I book,5,11");
    EXPECT(&h, "+I(book,1,12,1) +I(book,2,19,2) +U(book,4,11,1) +U(book,1,12,2) "
               "+U(book,5,11,2)");
    harness_close(&h);
}
END_TEST

/* testConstantRankRangeWithOffset: rank 2 only; rows at rank 1 are not emitted */
START_TEST(test_rank_range_with_offset)
{
    use_backend(_i);
    Harness h;
    RankSpec spec = make_spec(RANK_STRATEGY_APPEND_FAST, 2, 2, false, true);
    open_rank(&h, &spec);
    row(&h, "+I book,1,12");
    EXPECT(&h, "");
    row(&h, "+I book,2,19");
    EXPECT(&h, "+I(book,2,19)");
    row(&h, "+I book,4,11");
    EXPECT(&h, "-U(book,2,19) +U(book,1,12)");
    harness_close(&h);
}
END_TEST

/* RetractableTopNFunctionTest.testProcessRetractMessageWithGenerateUpdateBefore */
START_TEST(test_retract_with_rank_number)
{
    use_backend(_i);
    Harness h;
    RankSpec spec = make_spec(RANK_STRATEGY_RETRACT, 1, 2, true, true);
    open_rank(&h, &spec);
    row(&h, "+I book,1,12");
    row(&h, "+I book,2,19");
    row(&h, "+I book,4,11");
    harness_take(&h);
    row(&h, "-U book,1,12"); /* rank 2 leaves: 19, beyond the top 2, moves up */
    EXPECT(&h, "-U(book,1,12,2) +U(book,2,19,2)");
    row(&h, "+I book,5,11");
    EXPECT(&h, "-U(book,2,19,2) +U(book,5,11,2)");
    row(&h, "-D book,4,11"); /* rank 1 leaves: every rank below moves up */
    EXPECT(&h, "-U(book,4,11,1) +U(book,5,11,1) -U(book,5,11,2) +U(book,2,19,2)");
    row(&h, "-D book,5,11");
    row(&h, "-D book,2,19"); /* the last row: its rank is deleted */
    EXPECT(&h, "-U(book,5,11,1) +U(book,2,19,1) -D(book,2,19,2) -D(book,2,19,1)");
    h.op->vtable->report_state(h.op);
    ck_assert_uint_eq(h.op->metrics.state_keys, 0);
    harness_close(&h);
}
END_TEST

/* Without the rank number: -D of the row leaving, +I of the row moving up to rank_end. */
START_TEST(test_retract_without_rank_number)
{
    use_backend(_i);
    Harness h;
    RankSpec spec = make_spec(RANK_STRATEGY_RETRACT, 1, 2, false, true);
    open_rank(&h, &spec);
    row(&h, "+I book,1,12");
    row(&h, "+I book,2,19");
    row(&h, "+I book,4,11");
    EXPECT(&h, "+I(book,1,12) +I(book,2,19) -D(book,2,19) +I(book,4,11)");
    row(&h, "-U book,1,12");
    EXPECT(&h, "-D(book,1,12) +I(book,2,19)");
    row(&h, "+U book,1,30"); /* beyond the top 2: stored, nothing emitted */
    EXPECT(&h, "");
    row(&h, "-D book,1,30");
    EXPECT(&h, "");
    row(&h, "-D book,4,11");
    EXPECT(&h, "-D(book,4,11)");
    harness_close(&h);
}
END_TEST

/* Duplicates are rows of their own; a retraction of a row never stored is dropped, counted. */
START_TEST(test_retract_duplicates_and_unknown_rows)
{
    use_backend(_i);
    Harness h;
    RankSpec spec = make_spec(RANK_STRATEGY_RETRACT, 1, 3, true, true);
    open_rank(&h, &spec);
    row(&h, "+I a,1,5");
    row(&h, "+I a,2,5");
    row(&h, "+I a,1,5");
    EXPECT(&h, "+I(a,1,5,1) +I(a,2,5,2) +I(a,1,5,3)");
    row(&h, "-D a,1,5"); /* the first of the two equal rows leaves */
    EXPECT(&h, "-U(a,1,5,1) +U(a,2,5,1) -U(a,2,5,2) +U(a,1,5,2) -D(a,1,5,3)");
    row(&h, "-D a,9,9");
    EXPECT(&h, "");
    ck_assert_uint_eq(h.op->metrics.skipped_rows, 1);
    harness_close(&h);
}
END_TEST

/* UpdateFastStrategy: upserts by the unique key (id) whose order only improves. */
START_TEST(test_update_fast_with_rank_number)
{
    use_backend(_i);
    Harness h;
    RankSpec spec = make_spec(RANK_STRATEGY_UPDATE_FAST, 1, 3, true, true);
    open_rank(&h, &spec);
    row(&h, "+I a,1,30");
    row(&h, "+I a,2,20");
    EXPECT(&h, "+I(a,1,30,1) -U(a,1,30,1) +U(a,2,20,1) +I(a,1,30,2)");
    row(&h, "+I a,3,10");
    harness_take(&h);
    row(&h, "-U a,1,30"); /* ignored: the upsert follows */
    row(&h, "+U a,1,5");  /* rank 3 -> 1 */
    EXPECT(&h, "-U(a,3,10,1) -U(a,1,30,3) +U(a,1,5,1) -U(a,2,20,2) +U(a,3,10,2) "
               "+U(a,2,20,3)");
    row(&h, "+U a,2,20"); /* same order: the same rank, new content */
    EXPECT(&h, "-U(a,2,20,3) +U(a,2,20,3)");
    row(&h, "+U a,2,10"); /* ties with id 3 at rank 2: after it, so it stays at 3 */
    EXPECT(&h, "-U(a,2,20,3) +U(a,2,10,3)");
    row(&h, "+I a,4,40"); /* not better than the last of a full top 3 */
    EXPECT(&h, "");
    row(&h, "+I a,5,1");
    EXPECT(&h, "-U(a,1,5,1) +U(a,5,1,1) -U(a,3,10,2) +U(a,1,5,2) -U(a,2,10,3) +U(a,3,10,3)");
    h.op->vtable->report_state(h.op);
    ck_assert_uint_eq(h.op->metrics.state_rows, 3);
    row(&h, "+U a,2,3"); /* evicted before: a new row again */
    EXPECT(&h, "-U(a,1,5,2) +U(a,2,3,2) -U(a,3,10,3) +U(a,1,5,3)");
    row(&h, "+U a,5,20"); /* worse (not monotonic): re-ranked leniently */
    EXPECT(&h, "-U(a,5,1,1) -U(a,2,3,2) +U(a,2,3,1) -U(a,1,5,3) +U(a,1,5,2) +U(a,5,20,3)");
    ck_assert_int_eq(push_text_status(&h, 0, types, 3, "-D a,5,20"), JOINERY_ERROR_RUNTIME);
    ck_assert_ptr_nonnull(strstr(h.diag.message, "UpdateFastStrategy"));
    harness_close(&h);
}
END_TEST

START_TEST(test_update_fast_without_rank_number)
{
    use_backend(_i);
    Harness h;
    RankSpec spec = make_spec(RANK_STRATEGY_UPDATE_FAST, 1, 2, false, true);
    open_rank(&h, &spec);
    row(&h, "+I a,1,30");
    row(&h, "+I a,2,20");
    row(&h, "+I a,3,10");
    EXPECT(&h, "+I(a,1,30) +I(a,2,20) -D(a,1,30) +I(a,3,10)");
    row(&h, "+U a,2,5");
    EXPECT(&h, "-U(a,2,20) +U(a,2,5)");
    harness_close(&h);
}
END_TEST

/* Append-only input only; ORDER BY v DESC NULLS LAST, a NULL ranks last. */
START_TEST(test_append_refuses_updates_and_orders_nulls)
{
    use_backend(_i);
    Harness h;
    RankSpec spec = make_spec(RANK_STRATEGY_APPEND_FAST, 1, 3, true, true);
    sort_fields[0] = (RowOrderKey){.field = 2, .descending = true};
    open_rank(&h, &spec);
    row(&h, "+I a,1,NULL");
    row(&h, "+I a,2,7");
    EXPECT(&h, "+I(a,1,NULL,1) -U(a,1,NULL,1) +U(a,2,7,1) +I(a,1,NULL,2)");
    ck_assert_int_eq(push_text_status(&h, 0, types, 3, "-D a,2,7"), JOINERY_ERROR_RUNTIME);
    ck_assert_ptr_nonnull(strstr(h.diag.message, "append-only"));
    harness_close(&h);
}
END_TEST

/* testConstantRankRangeWithoutOffsetWithRowNumber: state carried over a snapshot. */
START_TEST(test_snapshot_restore)
{
    use_backend(_i);
    Harness original, restored;
    RankSpec spec = make_spec(RANK_STRATEGY_RETRACT, 1, 2, true, true);
    open_rank(&original, &spec);
    row(&original, "+I book,1,12");
    row(&original, "+I book,2,19");
    row(&original, "+I book,4,11");
    harness_take(&original);
    Diag diag;
    diag_clear(&diag);
    Operator *fresh = rank_operator_create(&spec, &diag);
    ck_assert_ptr_nonnull(fresh);
    harness_fork(&original, &restored, fresh, types, 4);
    Harness *both[2] = {&original, &restored};
    for (int i = 0; i < 2; i++) {
        row(both[i], "+I book,1,10");
        EXPECT(both[i], "-U(book,4,11,1) +U(book,1,10,1) -U(book,1,12,2) +U(book,4,11,2)");
        row(both[i], "-D book,1,10");
        EXPECT(both[i], "-U(book,1,10,1) +U(book,4,11,1) -U(book,4,11,2) +U(book,1,12,2)");
    }
    harness_close(&original);
    harness_close(&restored);
}
END_TEST

/* State TTL: rows expire; a retraction of an expired row is dropped. */
START_TEST(test_state_ttl)
{
    use_backend(_i);
    Harness h;
    RankSpec spec = make_spec(RANK_STRATEGY_RETRACT, 1, 2, true, true);
    spec.ttl_millis = 1000;
    fake_now = 0;
    open_rank(&h, &spec);
    row(&h, "+I a,1,5");
    fake_now = 600;
    row(&h, "+I a,2,6");
    EXPECT(&h, "+I(a,1,5,1) +I(a,2,6,2)");
    fake_now = 1200; /* the first row expired */
    row(&h, "-D a,1,5");
    EXPECT(&h, "");
    ck_assert_uint_eq(h.op->metrics.skipped_rows, 1);
    row(&h, "+I a,3,4");
    EXPECT(&h, "-U(a,2,6,1) +U(a,3,4,1) +I(a,2,6,2)");
    harness_close(&h);
    fake_now = 0;
}
END_TEST

static Suite *rank_suite(void)
{
    Suite *suite = suite_create("rank");
    TCase *core = tcase_create("core");
    tcase_add_loop_test(core, test_append_with_rank_number, 0, 2);
    tcase_add_loop_test(core, test_append_without_rank_number, 0, 2);
    tcase_add_loop_test(core, test_append_without_update_before, 0, 2);
    tcase_add_loop_test(core, test_rank_range_with_offset, 0, 2);
    tcase_add_loop_test(core, test_retract_with_rank_number, 0, 2);
    tcase_add_loop_test(core, test_retract_without_rank_number, 0, 2);
    tcase_add_loop_test(core, test_retract_duplicates_and_unknown_rows, 0, 2);
    tcase_add_loop_test(core, test_update_fast_with_rank_number, 0, 2);
    tcase_add_loop_test(core, test_update_fast_without_rank_number, 0, 2);
    tcase_add_loop_test(core, test_append_refuses_updates_and_orders_nulls, 0, 2);
    tcase_add_loop_test(core, test_snapshot_restore, 0, 2);
    tcase_add_loop_test(core, test_state_ttl, 0, 2);
    suite_add_tcase(suite, core);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(rank_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
