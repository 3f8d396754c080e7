/*
 * check_deduplicate.c - Check suite for Deduplicate on a rowtime attribute
 * (engine/exec/ops/op_deduplicate.c), as Flink's RowTimeDeduplicateFunction
 * tests assert: keep the last row per key (a row of the same time replaces,
 * an older one is dropped) or the first (only an older row replaces), with
 * and without update-before rows, NULL times skipped, a non-insert input
 * refused, state per key, snapshot and restore. On processing time (Flink's
 * ProcTimeDeduplicateKeepFirstRow/KeepLastRowFunction tests): arrival order
 * whatever the time field holds, keep first inserts once per key, keep last
 * replaces on every row, and a key's state expires with the TTL (fake
 * clock), on both backends.
 *
 * Rows R(k STRING, v BIGINT, t BIGINT); the key is k, the time t.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "engine/exec/ops/op_deduplicate.h"
#include "tests/unit/operator_harness.h"

static DataType types[3];
static const uint32_t key_fields[1] = {0};

static DeduplicateSpec make_spec(bool keep_last, bool update_before)
{
    types[0] = type_make_varchar(TYPE_STRING_LENGTH, true);
    types[1] = type_make(TYPE_BIGINT, true);
    types[2] = type_make(TYPE_BIGINT, true);
    DeduplicateSpec spec;
    memset(&spec, 0, sizeof spec);
    spec.field_count = 3;
    spec.types = types;
    spec.key_fields = key_fields;
    spec.key_count = 1;
    spec.time_field = 2;
    spec.keep_last = keep_last;
    spec.generate_update_before = update_before;
    return spec;
}

static void open_dedup(Harness *h, const DeduplicateSpec *spec)
{
    Diag diag;
    diag_clear(&diag);
    Operator *op = deduplicate_operator_create(spec, &diag);
    ck_assert_msg(op != NULL, "%s", diag.message);
    harness_open(h, op, types, 3);
}

static void row(Harness *h, const char *text)
{
    push_text(h, 0, types, 3, text);
}

#define EXPECT(h, text) ck_assert_str_eq(harness_take(h), text)

START_TEST(test_keep_last_row)
{
    Harness h;
    DeduplicateSpec spec = make_spec(true, true);
    open_dedup(&h, &spec);
    row(&h, "+I a,1,10");
    EXPECT(&h, "+I(a,1,10)");
    row(&h, "+I a,2,20");
    EXPECT(&h, "-U(a,1,10) +U(a,2,20)");
    row(&h, "+I a,3,15"); /* older than the row kept: dropped */
    EXPECT(&h, "");
    row(&h, "+I a,4,20"); /* the same time replaces */
    EXPECT(&h, "-U(a,2,20) +U(a,4,20)");
    row(&h, "+I b,5,1");
    EXPECT(&h, "+I(b,5,1)");
    h.op->vtable->report_state(h.op);
    ck_assert_uint_eq(h.op->metrics.state_keys, 2);
    harness_close(&h);
}
END_TEST

START_TEST(test_keep_last_row_without_update_before)
{
    Harness h;
    DeduplicateSpec spec = make_spec(true, false);
    open_dedup(&h, &spec);
    row(&h, "+I a,1,10");
    row(&h, "+I a,2,20");
    row(&h, "+I a,3,5");
    EXPECT(&h, "+I(a,1,10) +U(a,2,20)");
    harness_close(&h);
}
END_TEST

START_TEST(test_keep_first_row)
{
    Harness h;
    DeduplicateSpec spec = make_spec(false, true);
    open_dedup(&h, &spec);
    row(&h, "+I a,1,10");
    row(&h, "+I a,2,20"); /* later: the first row stays */
    row(&h, "+I a,3,10"); /* the same time: stays too */
    EXPECT(&h, "+I(a,1,10)");
    row(&h, "+I a,4,5"); /* earlier: it is the first row now */
    EXPECT(&h, "-U(a,1,10) +U(a,4,5)");
    harness_close(&h);
}
END_TEST

START_TEST(test_null_time_and_updating_input)
{
    Harness h;
    DeduplicateSpec spec = make_spec(true, true);
    open_dedup(&h, &spec);
    row(&h, "+I a,1,NULL");
    EXPECT(&h, "");
    ck_assert_uint_eq(h.op->metrics.skipped_rows, 1);
    ck_assert_int_eq(push_text_status(&h, 0, types, 3, "-D a,1,10"), JOINERY_ERROR_RUNTIME);
    ck_assert_ptr_nonnull(strstr(h.diag.message, "append-only"));
    harness_close(&h);
}
END_TEST

START_TEST(test_snapshot_restore)
{
    Harness original, restored;
    DeduplicateSpec spec = make_spec(true, true);
    open_dedup(&original, &spec);
    row(&original, "+I a,1,10");
    row(&original, "+I b,2,10");
    harness_take(&original);
    Diag diag;
    diag_clear(&diag);
    Operator *fresh = deduplicate_operator_create(&spec, &diag);
    ck_assert_ptr_nonnull(fresh);
    harness_fork(&original, &restored, fresh, types, 3);
    Harness *both[2] = {&original, &restored};
    for (int i = 0; i < 2; i++) {
        row(both[i], "+I a,3,5");
        row(both[i], "+I a,4,11");
        EXPECT(both[i], "-U(a,1,10) +U(a,4,11)");
    }
    harness_close(&original);
    harness_close(&restored);
}
END_TEST

static void use_backend(int index)
{
    setenv("JOINERY_STATE_BACKEND", index ? "lmdb" : "hashmap", 1);
}

START_TEST(test_proctime_keep_first_row)
{
    use_backend(_i);
    Harness h;
    DeduplicateSpec spec = make_spec(false, true);
    spec.processing_time = true;
    spec.ttl_millis = 1000;
    fake_now = 0;
    open_dedup(&h, &spec);
    row(&h, "+I a,1,10");
    row(&h, "+I a,2,5");    /* an earlier time does not matter: arrival order */
    row(&h, "+I b,3,NULL"); /* nor does a NULL time */
    row(&h, "+I a,4,1");
    EXPECT(&h, "+I(a,1,10) +I(b,3,NULL)");
    fake_now = 600;
    row(&h, "+I a,5,1"); /* dropped, and the state is not written: its TTL runs from 0 */
    EXPECT(&h, "");
    fake_now = 1000; /* a's first row expired: the next row is a first row again */
    row(&h, "+I a,6,1");
    EXPECT(&h, "+I(a,6,1)");
    h.op->vtable->report_state(h.op);
    ck_assert_uint_eq(h.op->metrics.state_keys, 2);
    harness_close(&h);
    fake_now = 0;
}
END_TEST

START_TEST(test_proctime_keep_last_row)
{
    use_backend(_i);
    Harness h;
    DeduplicateSpec spec = make_spec(true, true);
    spec.processing_time = true;
    spec.ttl_millis = 1000;
    fake_now = 0;
    open_dedup(&h, &spec);
    row(&h, "+I a,1,10");
    row(&h, "+I a,2,5"); /* older by time, newer by arrival: it replaces */
    row(&h, "+I b,3,NULL");
    row(&h, "+I b,4,NULL");
    EXPECT(&h, "+I(a,1,10) -U(a,1,10) +U(a,2,5) +I(b,3,NULL) -U(b,3,NULL) +U(b,4,NULL)");
    fake_now = 900;
    row(&h, "+I a,5,0"); /* a write refreshes a's TTL */
    EXPECT(&h, "-U(a,2,5) +U(a,5,0)");
    fake_now = 1500; /* b expired (written at 0), a not (written at 900) */
    row(&h, "+I b,6,0");
    row(&h, "+I a,7,0");
    EXPECT(&h, "+I(b,6,0) -U(a,5,0) +U(a,7,0)");
    harness_close(&h);
    fake_now = 0;
}
END_TEST

START_TEST(test_proctime_keep_last_row_without_update_before)
{
    Harness h;
    DeduplicateSpec spec = make_spec(true, false);
    spec.processing_time = true;
    open_dedup(&h, &spec);
    row(&h, "+I a,1,10");
    row(&h, "+I a,2,5");
    EXPECT(&h, "+I(a,1,10) +U(a,2,5)");
    harness_close(&h);
}
END_TEST

/* Mini-batch: the batch's rows grouped by key (first-row order); processing time applies
   each key's first (keep first) or last (keep last) row, event time each of its rows. */
START_TEST(test_mini_batch)
{
    use_backend(_i);
    Harness h;
    DeduplicateSpec spec = make_spec(false, true);
    spec.processing_time = true;
    spec.mini_batch_size = 100;
    open_dedup(&h, &spec);
    row(&h, "+I a,1,10");
    row(&h, "+I a,2,5");
    row(&h, "+I b,3,NULL");
    row(&h, "+I a,4,1");
    EXPECT(&h, ""); /* buffered until the batch ends */
    ck_assert_int_eq(operator_push_watermark(h.op, 0, 0, 1000), JOINERY_OK);
    EXPECT(&h, "+I(a,1,10) +I(b,3,NULL)");
    row(&h, "+I a,5,1");
    row(&h, "+I c,6,1");
    ck_assert_int_eq(operator_push_watermark(h.op, 0, 0, 2000), JOINERY_OK);
    EXPECT(&h, "+I(c,6,1)"); /* a's first row is in the state already */
    harness_close(&h);

    spec = make_spec(true, true);
    spec.processing_time = true;
    spec.mini_batch_size = 100;
    open_dedup(&h, &spec);
    row(&h, "+I a,1,10");
    row(&h, "+I b,3,NULL");
    row(&h, "+I a,2,5");
    row(&h, "+I b,4,NULL");
    ck_assert_int_eq(operator_push_watermark(h.op, 0, 0, 1000), JOINERY_OK);
    EXPECT(&h, "+I(a,2,5) +I(b,4,NULL)");
    row(&h, "+I a,5,0");
    row(&h, "+I a,7,0");
    ck_assert_int_eq(operator_end_input(h.op, 0), JOINERY_OK);
    EXPECT(&h, "-U(a,2,5) +U(a,7,0)");
    harness_close(&h);

    spec = make_spec(true, true); /* event time, keep last: every row, key by key */
    spec.mini_batch_size = 100;
    open_dedup(&h, &spec);
    row(&h, "+I a,1,10");
    row(&h, "+I b,2,5");
    row(&h, "+I a,3,5"); /* older than a's kept row: dropped */
    row(&h, "+I a,4,20");
    ck_assert_int_eq(operator_push_watermark(h.op, 0, 0, 1000), JOINERY_OK);
    EXPECT(&h, "+I(a,1,10) -U(a,1,10) +U(a,4,20) +I(b,2,5)");
    harness_close(&h);

    spec = make_spec(false, true); /* event time, keep first, batches of two rows */
    spec.mini_batch_size = 2;
    open_dedup(&h, &spec);
    row(&h, "+I a,1,10");
    row(&h, "+I a,2,5");
    EXPECT(&h, "+I(a,1,10) -U(a,1,10) +U(a,2,5)");
    row(&h, "+I a,3,7");
    EXPECT(&h, "");
    ck_assert_int_eq(operator_end_input(h.op, 0), JOINERY_OK);
    EXPECT(&h, "");
    harness_close(&h);
}
END_TEST

static Suite *deduplicate_suite(void)
{
    Suite *suite = suite_create("deduplicate");
    TCase *core = tcase_create("core");
    tcase_add_test(core, test_keep_last_row);
    tcase_add_test(core, test_keep_last_row_without_update_before);
    tcase_add_test(core, test_keep_first_row);
    tcase_add_test(core, test_null_time_and_updating_input);
    tcase_add_test(core, test_snapshot_restore);
    tcase_add_loop_test(core, test_proctime_keep_first_row, 0, 2);
    tcase_add_loop_test(core, test_proctime_keep_last_row, 0, 2);
    tcase_add_test(core, test_proctime_keep_last_row_without_update_before);
    tcase_add_loop_test(core, test_mini_batch, 0, 2);
    suite_add_tcase(suite, core);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(deduplicate_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
