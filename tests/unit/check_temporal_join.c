/*
 * check_temporal_join.c - Check suite for the event-time temporal join
 * (engine/exec/ops/op_temporal_join.c), porting what Flink's
 * TemporalJoinITCase and the rowtime temporal join operator's tests assert:
 * each probe row joins the version valid at its time once the watermark has
 * passed it, versions arriving out of order, deletes ending a version, probe
 * rows before any version, LEFT padding, the probe row's kind kept, version
 * cleanup as the watermark moves (the latest one at or before it kept),
 * late probe rows, NULL keys, NULL times failing the job, snapshot and restore.
 *
 * Probe rows P(id BIGINT, cur STRING, amount BIGINT, t BIGINT), versions
 * V(cur STRING, rate BIGINT, t BIGINT); times are plain numbers (seconds of
 * Flink's test data: 2020-08-15T00:00:01 is 1, 2020-08-16T00:01:00 is 86460).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/exec/ops/op_temporal_join.h"
#include "tests/unit/operator_harness.h"

static DataType probe_types[4];
static DataType version_types[3];
static DataType output_types[7];
static const uint32_t probe_keys[1] = {1};
static const uint32_t version_keys[1] = {0};

static void init_types(void)
{
    probe_types[0] = type_make(TYPE_BIGINT, true);
    probe_types[1] = type_make_varchar(TYPE_STRING_LENGTH, true);
    probe_types[2] = type_make(TYPE_BIGINT, true);
    probe_types[3] = type_make(TYPE_BIGINT, true);
    version_types[0] = type_make_varchar(TYPE_STRING_LENGTH, true);
    version_types[1] = type_make(TYPE_BIGINT, true);
    version_types[2] = type_make(TYPE_BIGINT, true);
    memcpy(output_types, probe_types, sizeof probe_types);
    memcpy(output_types + 4, version_types, sizeof version_types);
}

static TemporalJoinSpec make_spec(JoinType type)
{
    init_types();
    TemporalJoinSpec spec;
    memset(&spec, 0, sizeof spec);
    spec.join_type = type;
    spec.left_field_count = 4;
    spec.right_field_count = 3;
    spec.left_types = probe_types;
    spec.right_types = version_types;
    spec.left_keys = probe_keys;
    spec.right_keys = version_keys;
    spec.key_count = 1;
    spec.left_time_field = 3;
    spec.right_time_field = 2;
    return spec;
}

static void open_join(Harness *h, const TemporalJoinSpec *spec)
{
    Diag diag;
    diag_clear(&diag);
    Operator *op = temporal_join_operator_create(spec, &diag);
    ck_assert_msg(op != NULL, "%s", diag.message);
    harness_open(h, op, output_types, 7);
}

static void probe(Harness *h, const char *text)
{
    push_text(h, 0, probe_types, 4, text);
}

static void version(Harness *h, const char *text)
{
    push_text(h, 1, version_types, 3, text);
}

/* The watermark of both inputs moves to `watermark`. */
static void watermark(Harness *h, int64_t watermark)
{
    ck_assert_int_eq(operator_push_watermark(h->op, 0, 0, watermark), JOINERY_OK);
    ck_assert_int_eq(operator_push_watermark(h->op, 1, 1, watermark), JOINERY_OK);
    test_store_commit(h->context.state_store);
}

static uint64_t state_rows(Harness *h)
{
    h->op->vtable->report_state(h->op);
    return h->op->metrics.state_rows;
}

#define EXPECT(h, text) ck_assert_str_eq(harness_take(h), text)

/* Flink's TemporalJoinITCase data: orders (a changelog) and currency versions whose
   updates carry the time they happened ("UsingMetaTime"). */
static void push_orders(Harness *h)
{
    probe(h, "+I 1,Euro,12,60");
    probe(h, "+I 2,US Dollar,1,120");
    probe(h, "+I 3,RMB,40,180");
    probe(h, "+I 4,Euro,14,86640");
    probe(h, "-U 2,US Dollar,1,86580");
    probe(h, "+U 2,US Dollar,18,86580");
    probe(h, "+I 5,RMB,40,86580");
    probe(h, "+I 6,RMB,40,86640");
    probe(h, "-D 6,RMB,40,86640");
}

static void push_currencies_meta_time(Harness *h)
{
    version(h, "+I Euro,114,1");
    version(h, "+I US Dollar,102,2");
    version(h, "+I Yen,1,3");
    version(h, "+I RMB,702,4");
    version(h, "-U Euro,114,86460");
    version(h, "+U Euro,118,86460");
    version(h, "-U US Dollar,102,86520");
    version(h, "+U US Dollar,106,86520");
    version(h, "-D RMB,708,86520");
}

START_TEST(test_itcase_inner)
{
    Harness h;
    TemporalJoinSpec spec = make_spec(JOIN_TYPE_INNER);
    open_join(&h, &spec);
    push_orders(&h);
    push_currencies_meta_time(&h);
    EXPECT(&h, ""); /* nothing before the watermark passes the probe rows */
    watermark(&h, INT64_MAX);
    /* keys in the order of their timers (Euro's first row is at 1, US Dollar's at 2, ...),
       each key's rows in arrival order; the probe row's kind is kept; RMB is deleted at
       86520, so orders 5 and 6 find no version */
    EXPECT(&h, "+I(1,Euro,12,60,Euro,114,1) +I(4,Euro,14,86640,Euro,118,86460) "
               "+I(2,US Dollar,1,120,US Dollar,102,2) "
               "-U(2,US Dollar,1,86580,US Dollar,106,86520) "
               "+U(2,US Dollar,18,86580,US Dollar,106,86520) +I(3,RMB,40,180,RMB,702,4)");
    harness_close(&h);
}
END_TEST

START_TEST(test_itcase_left)
{
    Harness h;
    TemporalJoinSpec spec = make_spec(JOIN_TYPE_LEFT);
    open_join(&h, &spec);
    push_orders(&h);
    push_currencies_meta_time(&h);
    watermark(&h, INT64_MAX);
    EXPECT(&h, "+I(1,Euro,12,60,Euro,114,1) +I(4,Euro,14,86640,Euro,118,86460) "
               "+I(2,US Dollar,1,120,US Dollar,102,2) "
               "-U(2,US Dollar,1,86580,US Dollar,106,86520) "
               "+U(2,US Dollar,18,86580,US Dollar,106,86520) +I(3,RMB,40,180,RMB,702,4) "
               "+I(5,RMB,40,86580,NULL,NULL,NULL) +I(6,RMB,40,86640,NULL,NULL,NULL) "
               "-D(6,RMB,40,86640,NULL,NULL,NULL)");
    harness_close(&h);
}
END_TEST

/* Upsert versions (Flink's upsert_currency): a delete carrying an older time replaces the
   version of that time, so order 3 finds the delete and is padded. */
START_TEST(test_itcase_upsert_delete_with_old_time)
{
    Harness h;
    TemporalJoinSpec spec = make_spec(JOIN_TYPE_LEFT);
    open_join(&h, &spec);
    push_orders(&h);
    version(&h, "+U Euro,114,1");
    version(&h, "+U US Dollar,102,2");
    version(&h, "+U Yen,1,3");
    version(&h, "+U RMB,702,4");
    version(&h, "+U Euro,118,86460");
    version(&h, "+U US Dollar,104,86520");
    version(&h, "-D RMB,702,4");
    watermark(&h, INT64_MAX);
    EXPECT(&h, "+I(1,Euro,12,60,Euro,114,1) +I(4,Euro,14,86640,Euro,118,86460) "
               "+I(2,US Dollar,1,120,US Dollar,102,2) "
               "-U(2,US Dollar,1,86580,US Dollar,104,86520) "
               "+U(2,US Dollar,18,86580,US Dollar,104,86520) +I(3,RMB,40,180,NULL,NULL,NULL) "
               "+I(5,RMB,40,86580,NULL,NULL,NULL) +I(6,RMB,40,86640,NULL,NULL,NULL) "
               "-D(6,RMB,40,86640,NULL,NULL,NULL)");
    harness_close(&h);
}
END_TEST

/* Versions arrive out of order; rows wait for the watermark and are emitted as it passes
   them, each with the version valid at its time. */
START_TEST(test_out_of_order_versions_and_watermark_steps)
{
    Harness h;
    TemporalJoinSpec spec = make_spec(JOIN_TYPE_INNER);
    open_join(&h, &spec);
    version(&h, "+I Euro,30,30");
    version(&h, "+I Euro,10,10");
    version(&h, "+I Euro,20,20");
    probe(&h, "+I 1,Euro,1,25");
    probe(&h, "+I 2,Euro,1,15");
    probe(&h, "+I 3,Euro,1,35");
    probe(&h, "+I 4,Euro,1,5"); /* before any version: no match */
    watermark(&h, 20);
    EXPECT(&h, "+I(2,Euro,1,15,Euro,10,10)");
    /* cleanup kept the version at 20 (the latest at or before 20) and later ones */
    ck_assert_uint_eq(state_rows(&h), 2 + 2);
    watermark(&h, 30);
    EXPECT(&h, "+I(1,Euro,1,25,Euro,20,20)");
    ck_assert_uint_eq(state_rows(&h), 1 + 1);
    watermark(&h, 40);
    EXPECT(&h, "+I(3,Euro,1,35,Euro,30,30)");
    ck_assert_uint_eq(state_rows(&h), 1); /* the last version stays */
    harness_close(&h);
}
END_TEST

/* A row is emitted only once the watermark of both inputs has passed it. */
START_TEST(test_waits_for_both_watermarks)
{
    Harness h;
    TemporalJoinSpec spec = make_spec(JOIN_TYPE_LEFT);
    open_join(&h, &spec);
    probe(&h, "+I 1,Euro,1,10");
    ck_assert_int_eq(operator_push_watermark(h.op, 0, 0, 100), JOINERY_OK);
    EXPECT(&h, "");
    version(&h, "+I Euro,7,8");
    ck_assert_int_eq(operator_push_watermark(h.op, 1, 1, 9), JOINERY_OK);
    EXPECT(&h, "");
    ck_assert_int_eq(operator_push_watermark(h.op, 1, 1, 10), JOINERY_OK);
    EXPECT(&h, "+I(1,Euro,1,10,Euro,7,8)");
    harness_close(&h);
}
END_TEST

/* A delete ends a version; a later insert starts a new one. */
START_TEST(test_delete_ends_version)
{
    Harness h;
    TemporalJoinSpec spec = make_spec(JOIN_TYPE_LEFT);
    open_join(&h, &spec);
    version(&h, "+I Euro,1,10");
    version(&h, "-D Euro,1,20");
    version(&h, "+I Euro,3,30");
    probe(&h, "+I 1,Euro,1,15");
    probe(&h, "+I 2,Euro,1,25");
    probe(&h, "+I 3,Euro,1,30");
    watermark(&h, 50);
    EXPECT(&h, "+I(1,Euro,1,15,Euro,1,10) +I(2,Euro,1,25,NULL,NULL,NULL) "
               "+I(3,Euro,1,30,Euro,3,30)");
    harness_close(&h);
}
END_TEST

/* A late probe row (behind the watermark) waits for the next watermark and joins what the
   versioned side still holds: older versions are gone, the one kept stands for them. */
START_TEST(test_late_probe_row)
{
    Harness h;
    TemporalJoinSpec spec = make_spec(JOIN_TYPE_LEFT);
    open_join(&h, &spec);
    version(&h, "+I Euro,1,10");
    version(&h, "+I Euro,2,20");
    probe(&h, "+I 1,Euro,1,25");
    watermark(&h, 30);
    EXPECT(&h, "+I(1,Euro,1,25,Euro,2,20)");
    probe(&h, "+I 2,Euro,1,12"); /* late: the version at 10 was dropped */
    probe(&h, "+I 3,Euro,1,5");  /* late and before every version kept */
    EXPECT(&h, "");
    watermark(&h, 31);
    EXPECT(&h, "+I(2,Euro,1,12,NULL,NULL,NULL) +I(3,Euro,1,5,NULL,NULL,NULL)");
    harness_close(&h);
}
END_TEST

START_TEST(test_residual_and_null_keys)
{
    Arena arena;
    arena_init(&arena, 0);
    Harness h;
    TemporalJoinSpec spec = make_spec(JOIN_TYPE_LEFT);
    /* rate > 10: rate is field 5 of left ++ right */
    Expr *args[2] = {expr_make_input_ref(&arena, 5, version_types[1]),
                     expr_make_literal(&arena, type_make(TYPE_BIGINT, false), value_int(10))};
    spec.residual =
        expr_make_call(&arena, FUNCTION_GREATER, type_make(TYPE_BOOLEAN, true), args, 2);
    open_join(&h, &spec);
    version(&h, "+I Euro,5,10");
    version(&h, "+I Euro,50,20");
    version(&h, "+I NULL,50,1");
    probe(&h, "+I 1,Euro,1,15");
    probe(&h, "+I 2,Euro,1,25");
    probe(&h, "+I 3,NULL,1,25");
    watermark(&h, 100);
    /* the NULL key's timer is at 1 (its version), Euro's at 10 */
    EXPECT(&h, "+I(3,NULL,1,25,NULL,NULL,NULL) +I(1,Euro,1,15,NULL,NULL,NULL) "
               "+I(2,Euro,1,25,Euro,50,20)");
    harness_close(&h);
    arena_destroy(&arena);
}
END_TEST

/* A row without a time fails the job (Flink fails at its watermark generator). */
START_TEST(test_null_time_fails)
{
    Harness h;
    TemporalJoinSpec spec = make_spec(JOIN_TYPE_LEFT);
    open_join(&h, &spec);
    ck_assert_int_eq(push_text_status(&h, 1, version_types, 3, "-D Euro,NULL,NULL"),
                     JOINERY_ERROR_RUNTIME);
    ck_assert_ptr_nonnull(strstr(h.diag.message, "METADATA FROM 'timestamp'"));
    harness_close(&h);
    open_join(&h, &spec);
    ck_assert_int_eq(push_text_status(&h, 0, probe_types, 4, "+I 4,Euro,1,NULL"),
                     JOINERY_ERROR_RUNTIME);
    ck_assert_ptr_nonnull(strstr(h.diag.message, "probe side"));
    harness_close(&h);
}
END_TEST

/* Many probe rows per key: the state is freed as the watermark moves, and only the last
   version of each key remains. */
START_TEST(test_state_cleanup)
{
    Harness h;
    TemporalJoinSpec spec = make_spec(JOIN_TYPE_INNER);
    open_join(&h, &spec);
    char text[64];
    for (int t = 0; t < 200; t++) {
        snprintf(text, sizeof text, "+I K%d,%d,%d", t % 4, t, t);
        version(&h, text);
        snprintf(text, sizeof text, "+I %d,K%d,1,%d", t, t % 4, t);
        probe(&h, text);
        if (t % 10 == 9)
            watermark(&h, t);
    }
    harness_take(&h);
    ck_assert_uint_eq(state_rows(&h), 4);
    harness_close(&h);
}
END_TEST

START_TEST(test_snapshot_restore)
{
    Harness original, restored;
    TemporalJoinSpec spec = make_spec(JOIN_TYPE_LEFT);
    open_join(&original, &spec);
    version(&original, "+I Euro,1,10");
    version(&original, "+I Euro,2,20");
    probe(&original, "+I 1,Euro,1,15");
    probe(&original, "+I 2,Euro,1,25");
    watermark(&original, 16);
    EXPECT(&original, "+I(1,Euro,1,15,Euro,1,10)");
    Diag diag;
    diag_clear(&diag);
    Operator *fresh = temporal_join_operator_create(&spec, &diag);
    ck_assert_ptr_nonnull(fresh);
    harness_fork(&original, &restored, fresh, output_types, 7);
    Harness *both[2] = {&original, &restored};
    for (int i = 0; i < 2; i++) {
        version(both[i], "+I Euro,3,24");
        watermark(both[i], 100);
        EXPECT(both[i], "+I(2,Euro,1,25,Euro,3,24)");
    }
    harness_close(&original);
    harness_close(&restored);
}
END_TEST

START_TEST(test_rejects_right_and_full)
{
    Diag diag;
    diag_clear(&diag);
    TemporalJoinSpec spec = make_spec(JOIN_TYPE_RIGHT);
    ck_assert_ptr_null(temporal_join_operator_create(&spec, &diag));
    ck_assert_int_eq(diag.status, JOINERY_ERROR_VALIDATE);
}
END_TEST

static Suite *temporal_join_suite(void)
{
    Suite *suite = suite_create("temporal_join");
    TCase *core = tcase_create("core");
    tcase_add_test(core, test_itcase_inner);
    tcase_add_test(core, test_itcase_left);
    tcase_add_test(core, test_itcase_upsert_delete_with_old_time);
    tcase_add_test(core, test_out_of_order_versions_and_watermark_steps);
    tcase_add_test(core, test_waits_for_both_watermarks);
    tcase_add_test(core, test_delete_ends_version);
    tcase_add_test(core, test_late_probe_row);
    tcase_add_test(core, test_residual_and_null_keys);
    tcase_add_test(core, test_null_time_fails);
    tcase_add_test(core, test_state_cleanup);
    tcase_add_test(core, test_snapshot_restore);
    tcase_add_test(core, test_rejects_right_and_full);
    suite_add_tcase(suite, core);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(temporal_join_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
