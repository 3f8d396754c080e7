/*
 * check_group_aggregate.c - Check suite for the group aggregate
 * (engine/exec/ops/op_group_aggregate.c): the exact changelog (+I, -U/+U,
 * -D) for every aggregate kind with retraction, suppression of unchanged
 * results, DISTINCT, MIN/MAX retraction of the current extreme, vanishing
 * groups, global aggregates, DECIMAL results and overflow, integer wrap,
 * TTL expiry with a fake clock and state bytes.
 *
 * Rows are written as text "a,10,NULL"; DECIMAL values are written and
 * printed unscaled (10.50 in DECIMAL(10,2) is 1050).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/strbuf.h"
#include "engine/exec/ops/op_group_aggregate.h"
#include "tests/unit/operator_harness.h"

/* ---- aggregate fixtures ---- */

#define EXPECT(h, text) ck_assert_str_eq(harness_take(h), text)

typedef struct AggregateTest {
    Harness harness;
    DataType input_types[8];
    uint32_t input_count;
    DataType output_types[16];
    uint32_t group_keys[4];
    AggregateCall calls[8];
    GroupAggregateSpec spec;
} AggregateTest;

static void test_init(AggregateTest *t, const DataType *input, uint32_t input_count)
{
    memset(t, 0, sizeof *t);
    memcpy(t->input_types, input, input_count * sizeof(DataType));
    t->input_count = input_count;
    t->spec.input_field_count = input_count;
    t->spec.input_types = t->input_types;
    t->spec.group_keys = t->group_keys;
    t->spec.calls = t->calls;
}

static void test_group_by(AggregateTest *t, uint32_t field)
{
    t->group_keys[t->spec.group_key_count++] = field;
}

static void test_call(AggregateTest *t, AggregateKind kind, uint32_t argument, bool distinct,
                      DataType result)
{
    AggregateCall *call = &t->calls[t->spec.call_count++];
    call->kind = kind;
    call->argument = argument;
    call->distinct = distinct;
    call->argument_type =
        kind == AGGREGATE_COUNT_STAR ? type_make(TYPE_BIGINT, false) : t->input_types[argument];
    call->result_type = result;
}

static void test_open(AggregateTest *t)
{
    uint32_t n = 0;
    for (uint32_t k = 0; k < t->spec.group_key_count; k++)
        t->output_types[n++] = t->input_types[t->group_keys[k]];
    for (uint32_t i = 0; i < t->spec.call_count; i++)
        t->output_types[n++] = t->calls[i].result_type;
    Diag diag;
    diag_clear(&diag);
    Operator *op = group_aggregate_operator_create(&t->spec, &diag);
    ck_assert_msg(op != NULL, "%s", diag.message);
    harness_open(&t->harness, op, t->output_types, n);
}

static void in(AggregateTest *t, const char *text)
{
    push_text(&t->harness, 0, t->input_types, t->input_count, text);
}

static DataType bigint(void)
{
    return type_make(TYPE_BIGINT, true);
}

static DataType bigint_not_null(void)
{
    return type_make(TYPE_BIGINT, false);
}

static DataType string_type(void)
{
    return type_make_varchar(TYPE_STRING_LENGTH, true);
}

/* input (k STRING, v BIGINT) */
static void init_key_value(AggregateTest *t)
{
    DataType input[2] = {string_type(), bigint()};
    test_init(t, input, 2);
}

START_TEST(test_insert_only_all_kinds)
{
    AggregateTest t;
    init_key_value(&t);
    test_group_by(&t, 0);
    test_call(&t, AGGREGATE_COUNT_STAR, 0, false, bigint_not_null());
    test_call(&t, AGGREGATE_COUNT, 1, false, bigint_not_null());
    test_call(&t, AGGREGATE_SUM, 1, false, bigint());
    test_call(&t, AGGREGATE_MIN, 1, false, bigint());
    test_call(&t, AGGREGATE_MAX, 1, false, bigint());
    test_call(&t, AGGREGATE_AVG, 1, false, bigint());
    test_open(&t);
    Harness *h = &t.harness;
    in(&t, "+I a,10");
    EXPECT(h, "+I(a,1,1,10,10,10,10)");
    in(&t, "+I a,NULL");
    EXPECT(h, "-U(a,1,1,10,10,10,10) +U(a,2,1,10,10,10,10)");
    in(&t, "+I a,5");
    EXPECT(h, "-U(a,2,1,10,10,10,10) +U(a,3,2,15,5,10,7)");
    in(&t, "+I b,-3");
    EXPECT(h, "+I(b,1,1,-3,-3,-3,-3)");
    in(&t, "+I b,-4");
    EXPECT(h, "-U(b,1,1,-3,-3,-3,-3) +U(b,2,2,-7,-4,-3,-3)"); /* AVG truncates toward zero */
    harness_close(h);
}
END_TEST

START_TEST(test_retraction_all_kinds)
{
    AggregateTest t;
    init_key_value(&t);
    t.spec.input_is_update = true;
    test_group_by(&t, 0);
    test_call(&t, AGGREGATE_COUNT_STAR, 0, false, bigint_not_null());
    test_call(&t, AGGREGATE_COUNT, 1, false, bigint_not_null());
    test_call(&t, AGGREGATE_SUM, 1, false, bigint());
    test_call(&t, AGGREGATE_MIN, 1, false, bigint());
    test_call(&t, AGGREGATE_MAX, 1, false, bigint());
    test_call(&t, AGGREGATE_AVG, 1, false, bigint());
    test_open(&t);
    Harness *h = &t.harness;
    in(&t, "+I a,10");
    in(&t, "+I a,20");
    in(&t, "+I a,20");
    in(&t, "+I a,5");
    in(&t, "+I a,NULL");
    harness_take(h);
    /* retract the current minimum: the next one is found */
    in(&t, "-D a,5");
    EXPECT(h, "-U(a,5,4,55,5,20,13) +U(a,4,3,50,10,20,16)");
    /* one copy of the maximum leaves: it stays */
    in(&t, "-U a,20");
    EXPECT(h, "-U(a,4,3,50,10,20,16) +U(a,3,2,30,10,20,15)");
    in(&t, "-D a,20");
    EXPECT(h, "-U(a,3,2,30,10,20,15) +U(a,2,1,10,10,10,10)");
    in(&t, "-D a,10");
    EXPECT(h, "-U(a,2,1,10,10,10,10) +U(a,1,0,NULL,NULL,NULL,NULL)");
    in(&t, "-D a,NULL");
    EXPECT(h, "-D(a,1,0,NULL,NULL,NULL,NULL)");
    /* the group is gone: a retraction is ignored, an insert starts over */
    in(&t, "-D a,1");
    EXPECT(h, "");
    ck_assert_uint_eq(h->op->metrics.skipped_rows, 1);
    in(&t, "+I a,7");
    EXPECT(h, "+I(a,1,1,7,7,7,7)");
    h->op->vtable->report_state(h->op);
    ck_assert_uint_eq(h->op->metrics.state_keys, 1);
    harness_close(h);
}
END_TEST

START_TEST(test_update_pairs_and_vanishing_groups)
{
    AggregateTest t;
    init_key_value(&t);
    t.spec.input_is_update = true;
    test_group_by(&t, 0);
    test_call(&t, AGGREGATE_SUM, 1, false, bigint());
    test_open(&t);
    Harness *h = &t.harness;
    in(&t, "+I a,1");
    in(&t, "+I b,2");
    EXPECT(h, "+I(a,1) +I(b,2)");
    in(&t, "-U a,1");
    EXPECT(h, "-D(a,1)");
    in(&t, "+U a,3");
    EXPECT(h, "+I(a,3)");
    h->op->vtable->report_state(h->op);
    uint64_t two_groups = h->op->metrics.state_bytes;
    in(&t, "-D b,2");
    EXPECT(h, "-D(b,2)");
    h->op->vtable->report_state(h->op);
    ck_assert_uint_eq(h->op->metrics.state_keys, 1);
    ck_assert_uint_lt(h->op->metrics.state_bytes, two_groups);
    harness_close(h);
}
END_TEST

START_TEST(test_unchanged_result_suppressed)
{
    AggregateTest t;
    init_key_value(&t);
    test_group_by(&t, 0);
    test_call(&t, AGGREGATE_SUM, 1, false, bigint());
    test_call(&t, AGGREGATE_MAX, 1, false, bigint());
    test_open(&t);
    Harness *h = &t.harness;
    in(&t, "+I a,5");
    EXPECT(h, "+I(a,5,5)");
    in(&t, "+I a,0");
    EXPECT(h, "");
    in(&t, "+I a,NULL");
    EXPECT(h, "");
    harness_close(h);

    /* with a TTL Flink emits the equal pair anyway */
    init_key_value(&t);
    t.spec.ttl_millis = 60000;
    test_group_by(&t, 0);
    test_call(&t, AGGREGATE_SUM, 1, false, bigint());
    test_open(&t);
    h = &t.harness;
    in(&t, "+I a,5");
    in(&t, "+I a,0");
    EXPECT(h, "+I(a,5) -U(a,5) +U(a,5)");
    harness_close(h);
}
END_TEST

START_TEST(test_distinct)
{
    AggregateTest t;
    init_key_value(&t);
    t.spec.input_is_update = true;
    test_group_by(&t, 0);
    test_call(&t, AGGREGATE_COUNT, 1, true, bigint_not_null());
    test_call(&t, AGGREGATE_SUM, 1, true, bigint());
    test_call(&t, AGGREGATE_COUNT, 1, false, bigint_not_null());
    test_call(&t, AGGREGATE_AVG, 1, true, bigint());
    test_open(&t);
    Harness *h = &t.harness;
    in(&t, "+I a,1");
    EXPECT(h, "+I(a,1,1,1,1)");
    in(&t, "+I a,1");
    EXPECT(h, "-U(a,1,1,1,1) +U(a,1,1,2,1)");
    in(&t, "+I a,4");
    EXPECT(h, "-U(a,1,1,2,1) +U(a,2,5,3,2)");
    in(&t, "+I a,NULL");
    EXPECT(h, "");
    in(&t, "-D a,1");
    EXPECT(h, "-U(a,2,5,3,2) +U(a,2,5,2,2)");
    in(&t, "-D a,1");
    EXPECT(h, "-U(a,2,5,2,2) +U(a,1,4,1,4)");
    in(&t, "-D a,4");
    EXPECT(h, "-U(a,1,4,1,4) +U(a,0,NULL,0,NULL)");
    in(&t, "-D a,NULL");
    EXPECT(h, "-D(a,0,NULL,0,NULL)");
    h->op->vtable->report_state(h->op);
    ck_assert_uint_eq(h->op->metrics.state_keys, 0);
    ck_assert_uint_eq(h->op->metrics.state_rows, 0);
    harness_close(h);
}
END_TEST

START_TEST(test_global_aggregate)
{
    AggregateTest t;
    init_key_value(&t);
    t.spec.input_is_update = true;
    test_call(&t, AGGREGATE_COUNT_STAR, 0, false, bigint_not_null());
    test_call(&t, AGGREGATE_SUM, 1, false, bigint());
    test_open(&t);
    Harness *h = &t.harness;
    ck_assert_int_eq(operator_end_input(h->op, 0), JOINERY_OK);
    EXPECT(h, ""); /* an empty input gives nothing */
    harness_close(h);

    init_key_value(&t);
    t.spec.input_is_update = true;
    test_call(&t, AGGREGATE_COUNT_STAR, 0, false, bigint_not_null());
    test_call(&t, AGGREGATE_SUM, 1, false, bigint());
    test_open(&t);
    h = &t.harness;
    in(&t, "+I a,1");
    in(&t, "+I b,2");
    EXPECT(h, "+I(1,1) -U(1,1) +U(2,3)");
    in(&t, "-D a,1");
    in(&t, "-D b,2");
    EXPECT(h, "-U(2,3) +U(1,2) -D(1,2)");
    harness_close(h);
}
END_TEST

START_TEST(test_sum_of_nulls)
{
    AggregateTest t;
    init_key_value(&t);
    test_group_by(&t, 0);
    test_call(&t, AGGREGATE_SUM, 1, false, bigint());
    test_call(&t, AGGREGATE_AVG, 1, false, bigint());
    test_call(&t, AGGREGATE_MIN, 1, false, bigint());
    test_call(&t, AGGREGATE_COUNT, 1, false, bigint_not_null());
    test_open(&t);
    Harness *h = &t.harness;
    in(&t, "+I a,NULL");
    EXPECT(h, "+I(a,NULL,NULL,NULL,0)");
    in(&t, "+I a,NULL");
    EXPECT(h, "");
    in(&t, "+I a,2");
    EXPECT(h, "-U(a,NULL,NULL,NULL,0) +U(a,2,2,2,1)");
    harness_close(h);
}
END_TEST

START_TEST(test_strings_min_max)
{
    AggregateTest t;
    DataType input[2] = {string_type(), string_type()};
    test_init(&t, input, 2);
    t.spec.input_is_update = true;
    test_group_by(&t, 0);
    test_call(&t, AGGREGATE_MIN, 1, false, string_type());
    test_call(&t, AGGREGATE_MAX, 1, false, string_type());
    test_open(&t);
    Harness *h = &t.harness;
    in(&t, "+I g,pear");
    in(&t, "+I g,apple");
    in(&t, "+I g,zoo");
    EXPECT(h, "+I(g,pear,pear) -U(g,pear,pear) +U(g,apple,pear) -U(g,apple,pear) "
              "+U(g,apple,zoo)");
    in(&t, "-D g,apple");
    EXPECT(h, "-U(g,apple,zoo) +U(g,pear,zoo)");
    in(&t, "-D g,zoo");
    EXPECT(h, "-U(g,pear,zoo) +U(g,pear,pear)");
    in(&t, "+I g,a-much-longer-string-value");
    EXPECT(h, "-U(g,pear,pear) +U(g,a-much-longer-string-value,pear)");
    harness_close(h);
}
END_TEST

/* LISTAGG / FIRST_VALUE / LAST_VALUE over an updating input keep their values (value_lists.h) */
START_TEST(test_retracting_listagg_first_last)
{
    AggregateTest t, copy;
    DataType input[2] = {string_type(), string_type()};
    test_init(&t, input, 2);
    t.spec.input_is_update = true;
    test_group_by(&t, 0);
    test_call(&t, AGGREGATE_LISTAGG, 1, false, string_type());
    test_call(&t, AGGREGATE_FIRST_VALUE, 1, false, string_type());
    test_call(&t, AGGREGATE_LAST_VALUE, 1, false, string_type());
    test_open(&t);
    Harness *h = &t.harness;
    in(&t, "+I g,a");
    in(&t, "+I g,b");
    in(&t, "+I g,a");
    EXPECT(h, "+I(g,a,a,a) -U(g,a,a,a) +U(g,a,b,a,b) -U(g,a,b,a,b) +U(g,a,b,a,a,a)");
    /* a snapshot here: the restored operator goes on from the same lists */
    copy = t;
    Diag diag;
    diag_clear(&diag);
    Operator *fresh = group_aggregate_operator_create(&copy.spec, &diag);
    ck_assert_msg(fresh != NULL, "%s", diag.message);
    harness_fork(&t.harness, &copy.harness, fresh, t.output_types, 4);
    h = &copy.harness;
    in(&copy, "-D g,a"); /* the earliest a goes: b is first, the later a stays last */
    EXPECT(h, "-U(g,a,b,a,a,a) +U(g,b,a,b,a)");
    in(&copy, "+I g,x");
    in(&copy, "+I g,NULL"); /* NULLs are not kept */
    in(&copy, "-D g,a");
    EXPECT(h, "-U(g,b,a,b,a) +U(g,b,a,x,b,x) -U(g,b,a,x,b,x) +U(g,b,x,b,x)");
    in(&copy, "-D g,NULL");
    in(&copy, "-D g,b");
    EXPECT(h, "-U(g,b,x,b,x) +U(g,x,x,x)");
    in(&copy, "-D g,x"); /* the group empties: -D, its lists go */
    EXPECT(h, "-D(g,x,x,x)");
    copy.harness.op->vtable->report_state(copy.harness.op);
    ck_assert_uint_eq(copy.harness.op->metrics.state_rows, 0);
    in(&copy, "+I g,c"); /* a new group starts from nothing */
    EXPECT(h, "+I(g,c,c,c)");
    harness_close(&t.harness);
    harness_close(&copy.harness);
}
END_TEST

START_TEST(test_retracting_listagg_refused_with_ttl)
{
    AggregateTest t;
    init_key_value(&t);
    t.input_types[1] = string_type();
    t.spec.input_is_update = true;
    t.spec.ttl_millis = 1000;
    test_group_by(&t, 0);
    test_call(&t, AGGREGATE_LISTAGG, 1, false, string_type());
    Diag diag;
    diag_clear(&diag);
    ck_assert_ptr_null(group_aggregate_operator_create(&t.spec, &diag));
    ck_assert_int_eq(diag.status, JOINERY_ERROR_UNSUPPORTED);
}
END_TEST

START_TEST(test_decimal_sum_avg)
{
    AggregateTest t;
    DataType input[2] = {string_type(), type_make_decimal(10, 2, true)};
    test_init(&t, input, 2);
    test_group_by(&t, 0);
    test_call(&t, AGGREGATE_SUM, 1, false, type_make_decimal(18, 2, true));
    test_call(&t, AGGREGATE_AVG, 1, false, type_make_decimal(18, 6, true));
    test_open(&t);
    Harness *h = &t.harness;
    in(&t, "+I a,1050");
    EXPECT(h, "+I(a,1050,10500000)");
    in(&t, "+I a,225");
    EXPECT(h, "-U(a,1050,10500000) +U(a,1275,6375000)");
    in(&t, "+I a,1");
    /* 12.76 / 3 = 4.253333... */
    EXPECT(h, "-U(a,1275,6375000) +U(a,1276,4253333)");
    in(&t, "+I b,-5");
    in(&t, "+I b,-6"); /* -0.055 rounds half up (away from zero) to -0.055000 */
    EXPECT(h, "+I(b,-5,-50000) -U(b,-5,-50000) +U(b,-11,-55000)");
    harness_close(h);

    /* a result that no longer fits its precision is a runtime error */
    test_init(&t, input, 2);
    test_group_by(&t, 0);
    test_call(&t, AGGREGATE_SUM, 1, false, type_make_decimal(4, 2, true));
    test_open(&t);
    h = &t.harness;
    in(&t, "+I a,9999");
    ck_assert_int_eq(push_text_status(h, 0, t.input_types, 2, "+I a,2"), JOINERY_ERROR_RUNTIME);
    ck_assert_int_eq(h->diag.status, JOINERY_ERROR_RUNTIME);
    harness_close(h);
}
END_TEST

START_TEST(test_integer_wrap_and_double)
{
    AggregateTest t;
    DataType input[3] = {string_type(), type_make(TYPE_INT, true), type_make(TYPE_DOUBLE, true)};
    test_init(&t, input, 3);
    test_group_by(&t, 0);
    test_call(&t, AGGREGATE_SUM, 1, false, type_make(TYPE_INT, true));
    test_call(&t, AGGREGATE_AVG, 2, false, type_make(TYPE_DOUBLE, true));
    test_call(&t, AGGREGATE_SUM, 2, false, type_make(TYPE_DOUBLE, true));
    test_open(&t);
    Harness *h = &t.harness;
    in(&t, "+I a,2147483647,1.5");
    EXPECT(h, "+I(a,2147483647,1.5,1.5)");
    in(&t, "+I a,1,2");
    EXPECT(h, "-U(a,2147483647,1.5,1.5) +U(a,-2147483648,1.75,3.5)");
    harness_close(h);
}
END_TEST

START_TEST(test_ttl_expiry)
{
    AggregateTest t;
    init_key_value(&t);
    t.spec.input_is_update = true;
    t.spec.ttl_millis = 1000;
    test_group_by(&t, 0);
    test_call(&t, AGGREGATE_COUNT, 1, true, bigint_not_null());
    test_open(&t);
    Harness *h = &t.harness;
    fake_now = 5000;
    in(&t, "+I a,1");
    EXPECT(h, "+I(a,1)");
    fake_now = 6000; /* expired: the retraction is ignored */
    in(&t, "-D a,1");
    EXPECT(h, "");
    in(&t, "+I a,2");
    EXPECT(h, "+I(a,1)");
    char text[64];
    for (int i = 0; i < 500; i++) {
        snprintf(text, sizeof text, "+I key%d,%d", i, i);
        in(&t, text);
    }
    harness_take(h);
    h->op->vtable->report_state(h->op);
    uint64_t full = h->op->metrics.state_bytes;
    ck_assert_uint_eq(h->op->metrics.state_keys, 501);
    fake_now = 10000;
    /* each cleanup round is a processing-time timer, due every interval */
    for (int tick = 0; tick < 4; tick++) {
        fake_now += OPERATOR_CLEANUP_INTERVAL_MILLIS;
        ck_assert_int_eq(operator_advance_processing_time(h->op, fake_now), JOINERY_OK);
    }
    h->op->vtable->report_state(h->op);
    ck_assert_uint_eq(h->op->metrics.state_keys, 0);
    ck_assert_uint_eq(h->op->metrics.state_rows, 0);
    ck_assert_uint_lt(h->op->metrics.state_bytes, full / 10);
    ck_assert_uint_ge(h->op->metrics.expired_rows, 501);
    harness_close(h);
    fake_now = 0;
}
END_TEST

/*
 * Snapshot mid-stream, restore into a fresh operator (its own store): the
 * rest of a random stream with retractions gives the same changelog.
 * DISTINCT and MIN/MAX over updates keep value counts, so both states (and
 * the TTL cleanup timer) are carried over.
 */
START_TEST(test_snapshot_restore_mid_stream)
{
    AggregateTest t, copy;
    init_key_value(&t);
    t.spec.input_is_update = true;
    t.spec.ttl_millis = 500;
    test_group_by(&t, 0);
    test_call(&t, AGGREGATE_COUNT_STAR, 0, false, bigint_not_null());
    test_call(&t, AGGREGATE_SUM, 1, true, bigint());
    test_call(&t, AGGREGATE_MIN, 1, false, bigint());
    test_call(&t, AGGREGATE_MAX, 1, false, bigint());
    fake_now = 1000;
    test_open(&t);
    copy = t;
    srand(77);
    enum { STEPS = 400, MAX_ROWS = 64 };
    char rows[MAX_ROWS][32];
    int count = 0;
    for (int step = 0; step < STEPS; step++) {
        if (step == STEPS / 2) {
            Diag diag;
            diag_clear(&diag);
            Operator *fresh = group_aggregate_operator_create(&copy.spec, &diag);
            ck_assert_msg(fresh != NULL, "%s", diag.message);
            uint32_t outputs = t.spec.group_key_count + t.spec.call_count;
            harness_fork(&t.harness, &copy.harness, fresh, t.output_types, outputs);
        }
        char text[40];
        if (count == 0 || (rand() % 10 < 6 && count < MAX_ROWS)) {
            snprintf(rows[count], sizeof rows[count], "%c,%d", 'a' + rand() % 4, rand() % 7);
            snprintf(text, sizeof text, "+I %s", rows[count++]);
        } else {
            int victim = rand() % count;
            snprintf(text, sizeof text, "-D %s", rows[victim]);
            memcpy(rows[victim], rows[--count], sizeof rows[victim]);
        }
        fake_now += 3;
        AggregateTest *tests[2] = {&t, &copy};
        int running = step >= STEPS / 2 ? 2 : 1;
        char logs[2][sizeof t.harness.taken];
        for (int i = 0; i < running; i++) {
            in(tests[i], text);
            if (step % 25 == 0)
                ck_assert_int_eq(operator_advance_processing_time(tests[i]->harness.op, fake_now),
                                 JOINERY_OK);
            snprintf(logs[i], sizeof logs[i], "%s", harness_take(&tests[i]->harness));
        }
        if (running == 2)
            ck_assert_msg(strcmp(logs[0], logs[1]) == 0, "step %d: %s vs %s", step, logs[0],
                          logs[1]);
    }
    harness_close(&t.harness);
    harness_close(&copy.harness);
    fake_now = 0;
}
END_TEST

static Suite *group_aggregate_suite(void)
{
    Suite *suite = suite_create("group_aggregate");
    TCase *core = tcase_create("core");
    tcase_add_test(core, test_insert_only_all_kinds);
    tcase_add_test(core, test_retraction_all_kinds);
    tcase_add_test(core, test_update_pairs_and_vanishing_groups);
    tcase_add_test(core, test_unchanged_result_suppressed);
    tcase_add_test(core, test_distinct);
    tcase_add_test(core, test_global_aggregate);
    tcase_add_test(core, test_sum_of_nulls);
    tcase_add_test(core, test_strings_min_max);
    tcase_add_test(core, test_retracting_listagg_first_last);
    tcase_add_test(core, test_retracting_listagg_refused_with_ttl);
    tcase_add_test(core, test_decimal_sum_avg);
    tcase_add_test(core, test_integer_wrap_and_double);
    tcase_add_test(core, test_ttl_expiry);
    tcase_add_test(core, test_snapshot_restore_mid_stream);
    suite_add_tcase(suite, core);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(group_aggregate_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
