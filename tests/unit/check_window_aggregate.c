/*
 * check_window_aggregate.c - Check suite for the window aggregate operator
 * (engine/exec/ops/op_window_aggregate.h).
 *
 * The program cases port Flink's WindowAggregateTestPrograms: rows (ts,
 * a_int, name, comment) with a watermark one second behind, one out-of-order
 * row and one late row, GROUP BY name, window_start, window_end with
 * COUNT(*), SUM(a_int) and COUNT(DISTINCT comment) over TUMBLE(5 s) with and without a 1 s offset,
 * HOP(5 s, 10 s) with and without it and CUMULATE(5 s, 15 s); halfway the operator is snapshotted
 * and restored into a fresh one (Flink's before / after restore), and each half's output is
 * compared, unordered as Flink's test compares it, with Flink's expected rows, COUNT(DISTINCT
 * comment) included (the comment NULL in some rows, repeated in others). Times are seconds after
 * 2020-10-10 00:00:00 written as seconds after the epoch (both are multiples of every window's
 * period). The operator cases check firing at window_end - 1, late rows, NULL times, window_time,
 * MIN/MAX/AVG and DISTINCT calls per window across a restore. Stores are of
 * the run's default backend (test_store.h): JOINERY_STATE_BACKEND=lmdb runs
 * the same cases on LMDB.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/type.h"
#include "engine/exec/ops/op_window_aggregate.h"
#include "tests/unit/operator_harness.h"

typedef struct SourceRow {
    int seconds;
    int a_int;
    const char *name;    /* NULL: a NULL name */
    const char *comment; /* NULL: a NULL comment */
} SourceRow;

static const SourceRow BEFORE[] = {
    {1, 1, "a", "Hi"},    {2, 2, "a", "Comment#1"}, {3, 2, "a", "Comment#1"},  {4, 5, "a", NULL},
    {7, 3, "b", "Hello"}, {6, 6, "b", "Hi"},        {8, 3, "a", "Comment#2"},  {4, 5, "a", "Hi"},
    {16, 4, "b", "Hi"},   {32, 7, NULL, NULL},      {34, 1, "b", "Comment#3"},
};
static const SourceRow AFTER[] = {{40, 10, "a", "Comment#4"},
                                  {42, 11, "d", "Comment#5"},
                                  {43, 12, "c", "Comment#6"},
                                  {44, 13, "d", "Comment#7"}};

/* input: name, a_int, rowtime, comment; output: name, cnt, sum_int, distinct_comments,
   window_start, window_end [, window_time] */
static DataType input_types[4];
static DataType output_types[7];
static DataType timestamp_type;
static AggregateCall calls[3];
static const uint32_t KEYS[1] = {0};

static void init_types(void)
{
    input_types[0] = type_make(TYPE_VARCHAR, true);
    input_types[1] = type_make(TYPE_INT, true);
    input_types[2] = type_make_timestamp(TYPE_TIMESTAMP, 3, true);
    input_types[3] = type_make(TYPE_VARCHAR, true);
    timestamp_type = type_make_timestamp(TYPE_TIMESTAMP, 3, false);
    output_types[0] = input_types[0];
    output_types[1] = type_make(TYPE_BIGINT, false);
    output_types[2] = type_make(TYPE_INT, true);
    output_types[3] = type_make(TYPE_BIGINT, false);
    output_types[4] = timestamp_type;
    output_types[5] = timestamp_type;
    output_types[6] = timestamp_type;
    calls[0] = (AggregateCall){.kind = AGGREGATE_COUNT_STAR,
                               .argument_type = type_make(TYPE_BIGINT, false),
                               .result_type = output_types[1]};
    calls[1] = (AggregateCall){.kind = AGGREGATE_SUM,
                               .argument = 1,
                               .argument_type = input_types[1],
                               .result_type = output_types[2]};
    calls[2] = (AggregateCall){.kind = AGGREGATE_COUNT,
                               .argument = 3,
                               .distinct = true,
                               .argument_type = input_types[3],
                               .result_type = output_types[3]};
}

typedef struct Run {
    Harness h, restored;
    bool forked;
    WindowAggregateOperatorSpec spec;
    int64_t watermark;
} Run;

static Operator *make_aggregate(const Run *run)
{
    Diag diag;
    diag_clear(&diag);
    Operator *op = window_aggregate_operator_create(&run->spec, &diag);
    ck_assert_msg(op != NULL, "%s", diag.message);
    return op;
}

static Harness *current(Run *run)
{
    return run->forked ? &run->restored : &run->h;
}

static uint32_t output_count(const Run *run)
{
    return run->spec.emits_window_time ? 7 : 6;
}

static void run_open(Run *run, WindowSpec window)
{
    init_types();
    memset(run, 0, sizeof *run);
    run->spec = (WindowAggregateOperatorSpec){.input_field_count = 4,
                                              .input_types = input_types,
                                              .group_keys = KEYS,
                                              .group_key_count = 1,
                                              .calls = calls,
                                              .call_count = 3,
                                              .window = window,
                                              .time_field = 2};
    run->watermark = INT64_MIN;
    harness_open(&run->h, make_aggregate(run), output_types, output_count(run));
}

/* One source row, then the source's watermark (its time - 1 s) when it advances. */
static void run_row(Run *run, const SourceRow *source)
{
    Harness *h = current(run);
    char text[128];
    int64_t time = source->seconds * INT64_C(1000);
    snprintf(text, sizeof text, "+I %s,%d,%lld,%s", source->name ? source->name : "NULL",
             source->a_int, (long long)time, source->comment ? source->comment : "NULL");
    push_text(h, 0, input_types, 4, text);
    if (time - 1000 > run->watermark) {
        run->watermark = time - 1000;
        ck_assert_int_eq(operator_push_watermark(h->op, 0, 0, run->watermark), JOINERY_OK);
        test_store_commit(h->context.state_store);
    }
}

static void run_rows(Run *run, const SourceRow *rows, size_t count)
{
    for (size_t i = 0; i < count; i++)
        run_row(run, &rows[i]);
}

static void run_restore(Run *run)
{
    harness_fork(&run->h, &run->restored, make_aggregate(run), output_types, output_count(run));
    run->forked = true;
}

static void run_end(Run *run)
{
    Harness *h = current(run);
    ck_assert_int_eq(operator_push_watermark(h->op, 0, 0, INT64_MAX), JOINERY_OK);
    test_store_commit(h->context.state_store);
}

static void run_close(Run *run)
{
    harness_close(&run->h);
    if (run->forked)
        harness_close(&run->restored);
}

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "name,ws,we,cnt,sum,distinct" (seconds; Flink's sink order) of a logged
   "+I(name,cnt,sum,distinct,ws,we)". */
static void sink_row(const char *logged, char *out, size_t size)
{
    char fields[7][32];
    int count = 0;
    const char *cursor = strchr(logged, '(') + 1;
    while (count < 7 && *cursor && *cursor != ')') {
        size_t length = strcspn(cursor, ",)");
        snprintf(fields[count++], sizeof fields[0], "%.*s", (int)length, cursor);
        cursor += length + (cursor[length] == ',');
    }
    ck_assert_int_ge(count, 6);
    snprintf(out, size, "%s,%lld,%lld,%s,%s,%s",
             strcmp(fields[0], "NULL") == 0 ? "null" : fields[0],
             strtoll(fields[4], NULL, 10) / 1000, strtoll(fields[5], NULL, 10) / 1000, fields[1],
             fields[2], fields[3]);
}

/* The output since the last check equals `expected` as a multiset; every row is +I. */
static void check_output(Run *run, const char *const *expected, size_t expected_count)
{
    char *log = strdup(harness_take(current(run)));
    char *rows[64];
    char converted[64][256];
    size_t count = 0;
    for (char *line = strtok(log, " "); line; line = strtok(NULL, " ")) {
        ck_assert_msg(strncmp(line, "+I(", 3) == 0, "not an insert: %s", line);
        ck_assert_uint_lt(count, 64);
        sink_row(line, converted[count], sizeof converted[0]);
        rows[count] = converted[count];
        count++;
    }
    const char *wanted[64];
    memcpy(wanted, expected, expected_count * sizeof *expected);
    qsort(rows, count, sizeof rows[0], compare_strings);
    qsort(wanted, expected_count, sizeof wanted[0], compare_strings);
    ck_assert_uint_eq(count, expected_count);
    for (size_t i = 0; i < count; i++)
        ck_assert_str_eq(rows[i], wanted[i]);
    free(log);
}

static void run_program(WindowSpec window, const char *const *before, size_t before_count,
                        const char *const *after, size_t after_count, uint64_t late)
{
    Run run;
    run_open(&run, window);
    run_rows(&run, BEFORE, sizeof BEFORE / sizeof BEFORE[0]);
    check_output(&run, before, before_count);
    ck_assert_uint_eq(window_aggregate_operator_late_rows(run.h.op), late);
    run_restore(&run);
    run_rows(&run, AFTER, sizeof AFTER / sizeof AFTER[0]);
    run_end(&run);
    check_output(&run, after, after_count);
    run_close(&run);
}

#define COUNT_OF(array) (sizeof(array) / sizeof((array)[0]))

static WindowSpec tumble(int64_t size, int64_t offset)
{
    return (WindowSpec){.kind = WINDOW_TUMBLE, .size_millis = size, .offset_millis = offset};
}

START_TEST(test_tumble)
{
    static const char *const before[] = {"a,0,5,4,10,2", "a,5,10,1,3,1", "b,5,10,2,9,2",
                                         "b,15,20,1,4,1"};
    static const char *const after[] = {"b,30,35,1,1,1", "null,30,35,1,7,0", "a,40,45,1,10,1",
                                        "c,40,45,1,12,1", "d,40,45,2,24,2"};
    /* the second row at 4 s arrives after the watermark 7 s: its only window has fired */
    run_program(tumble(5000, 0), before, COUNT_OF(before), after, COUNT_OF(after), 1);
}
END_TEST

START_TEST(test_tumble_offset)
{
    static const char *const before[] = {"a,1,6,4,10,2", "b,6,11,2,9,2", "a,6,11,1,3,1",
                                         "b,16,21,1,4,1"};
    static const char *const after[] = {"b,31,36,1,1,1", "null,31,36,1,7,0", "a,36,41,1,10,1",
                                        "c,41,46,1,12,1", "d,41,46,2,24,2"};
    run_program(tumble(5000, 1000), before, COUNT_OF(before), after, COUNT_OF(after), 1);
}
END_TEST

START_TEST(test_hop)
{
    static const char *const before[] = {"a,-5,5,4,10,2", "b,0,10,2,9,2", "a,0,10,6,18,3",
                                         "b,5,15,2,9,2",  "a,5,15,1,3,1", "b,10,20,1,4,1",
                                         "b,15,25,1,4,1"};
    static const char *const after[] = {"b,25,35,1,1,1",    "null,25,35,1,7,0", "b,30,40,1,1,1",
                                        "null,30,40,1,7,0", "c,35,45,1,12,1",   "d,35,45,2,24,2",
                                        "a,35,45,1,10,1",   "d,40,50,2,24,2",   "a,40,50,1,10,1",
                                        "c,40,50,1,12,1"};
    WindowSpec hop = {.kind = WINDOW_HOP, .size_millis = 10000, .slide_millis = 5000};
    /* the late row still enters [0 s, 10 s), which has not fired: nothing is dropped */
    run_program(hop, before, COUNT_OF(before), after, COUNT_OF(after), 0);
}
END_TEST

START_TEST(test_hop_offset)
{
    static const char *const before[] = {"a,-4,6,4,10,2", "b,1,11,2,9,2", "a,1,11,6,18,3",
                                         "b,6,16,2,9,2",  "a,6,16,1,3,1", "b,11,21,1,4,1",
                                         "b,16,26,1,4,1"};
    static const char *const after[] = {"b,26,36,1,1,1",  "null,26,36,1,7,0", "a,31,41,1,10,1",
                                        "b,31,41,1,1,1",  "null,31,41,1,7,0", "c,36,46,1,12,1",
                                        "d,36,46,2,24,2", "a,36,46,1,10,1",   "d,41,51,2,24,2",
                                        "c,41,51,1,12,1"};
    WindowSpec hop = {
        .kind = WINDOW_HOP, .size_millis = 10000, .slide_millis = 5000, .offset_millis = 1000};
    run_program(hop, before, COUNT_OF(before), after, COUNT_OF(after), 0);
}
END_TEST

START_TEST(test_cumulate)
{
    static const char *const before[] = {"a,0,5,4,10,2",  "b,0,10,2,9,2",  "a,0,10,6,18,3",
                                         "b,0,15,2,9,2",  "a,0,15,6,18,3", "b,15,20,1,4,1",
                                         "b,15,25,1,4,1", "b,15,30,1,4,1"};
    static const char *const after[] = {"b,30,35,1,1,1",    "null,30,35,1,7,0", "b,30,40,1,1,1",
                                        "null,30,40,1,7,0", "b,30,45,1,1,1",    "c,30,45,1,12,1",
                                        "d,30,45,2,24,2",   "a,30,45,1,10,1",   "null,30,45,1,7,0"};
    WindowSpec cumulate = {.kind = WINDOW_CUMULATE, .size_millis = 15000, .step_millis = 5000};
    run_program(cumulate, before, COUNT_OF(before), after, COUNT_OF(after), 0);
}
END_TEST

START_TEST(test_fires_at_window_end_minus_one)
{
    Run run;
    run_open(&run, tumble(5000, 0));
    push_text(&run.h, 0, input_types, 4, "+I a,1,1000,x");
    push_text(&run.h, 0, input_types, 4, "+I a,2,4999,x");
    push_text(&run.h, 0, input_types, 4, "+I b,NULL,2000,NULL");
    push_text(&run.h, 0, input_types, 4, "+I a,5,NULL,y"); /* no time: dropped */
    ck_assert_int_eq(operator_push_watermark(run.h.op, 0, 0, 4998), JOINERY_OK);
    ck_assert_str_eq(harness_take(&run.h), "");
    ck_assert_int_eq(operator_push_watermark(run.h.op, 0, 0, 4999), JOINERY_OK);
    test_store_commit(run.h.context.state_store);
    char *fired = strdup(harness_take(&run.h));
    /* SUM over only NULLs is NULL; COUNT(*) counts the row */
    ck_assert_msg(strstr(fired, "+I(a,2,3,1,0,5000)") != NULL, "%s", fired);
    ck_assert_msg(strstr(fired, "+I(b,1,NULL,0,0,5000)") != NULL, "%s", fired);
    free(fired);
    /* its state went: nothing left, and a row for the fired window is late */
    Operator *op = run.h.op;
    op->vtable->report_state(op);
    ck_assert_uint_eq(op->metrics.state_rows, 0);
    push_text(&run.h, 0, input_types, 4, "+I a,7,3000,z");
    ck_assert_uint_eq(window_aggregate_operator_late_rows(op), 2);
    ck_assert_int_eq(operator_push_watermark(run.h.op, 0, 0, INT64_MAX), JOINERY_OK);
    ck_assert_str_eq(harness_take(&run.h), "");
    run_close(&run);
}
END_TEST

START_TEST(test_window_time_and_extremes)
{
    init_types();
    static AggregateCall extremes[3];
    extremes[0] = (AggregateCall){.kind = AGGREGATE_MIN,
                                  .argument = 1,
                                  .argument_type = input_types[1],
                                  .result_type = input_types[1]};
    extremes[1] = extremes[0];
    extremes[1].kind = AGGREGATE_MAX;
    extremes[2] = extremes[0];
    extremes[2].kind = AGGREGATE_AVG;
    static DataType types[6];
    types[0] = types[1] = types[2] = input_types[1];
    types[3] = types[4] = types[5] = timestamp_type;
    WindowAggregateOperatorSpec spec = {.input_field_count = 3,
                                        .input_types = input_types,
                                        .group_key_count = 0,
                                        .calls = extremes,
                                        .call_count = 3,
                                        .window = tumble(10000, 0),
                                        .time_field = 2,
                                        .emits_window_time = true};
    Diag diag;
    diag_clear(&diag);
    Harness h;
    harness_open(&h, window_aggregate_operator_create(&spec, &diag), types, 6);
    push_text(&h, 0, input_types, 3, "+I a,7,1000");
    push_text(&h, 0, input_types, 3, "+I b,-2,2000");
    push_text(&h, 0, input_types, 3, "+I c,4,12000");
    ck_assert_int_eq(operator_push_watermark(h.op, 0, 0, INT64_MAX), JOINERY_OK);
    test_store_commit(h.context.state_store);
    /* windows fire in time order; AVG of integers truncates (5 / 2 = 2) */
    ck_assert_str_eq(harness_take(&h), "+I(-2,7,2,0,10000,9999) +I(4,4,4,10000,20000,19999)");
    harness_close(&h);
}
END_TEST

START_TEST(test_distinct_per_window)
{
    init_types();
    /* COUNT(DISTINCT a_int), SUM(DISTINCT a_int), SUM(a_int) per TUMBLE(5 s) and HOP */
    static AggregateCall distinct[3];
    distinct[0] = (AggregateCall){.kind = AGGREGATE_COUNT,
                                  .argument = 1,
                                  .distinct = true,
                                  .argument_type = input_types[1],
                                  .result_type = output_types[1]};
    distinct[1] = calls[1];
    distinct[1].distinct = true;
    distinct[2] = calls[1];
    static DataType types[5];
    types[0] = output_types[1];
    types[1] = types[2] = output_types[2];
    types[3] = types[4] = timestamp_type;
    WindowAggregateOperatorSpec spec = {.input_field_count = 3,
                                        .input_types = input_types,
                                        .calls = distinct,
                                        .call_count = 3,
                                        .window = tumble(5000, 0),
                                        .time_field = 2};
    Diag diag;
    diag_clear(&diag);
    Harness h, restored;
    harness_open(&h, window_aggregate_operator_create(&spec, &diag), types, 5);
    push_text(&h, 0, input_types, 3, "+I a,2,1000");
    push_text(&h, 0, input_types, 3, "+I b,2,2000");
    push_text(&h, 0, input_types, 3, "+I c,NULL,2500");
    harness_fork(&h, &restored, window_aggregate_operator_create(&spec, &diag), types, 5);
    push_text(&restored, 0, input_types, 3, "+I d,3,3000");
    push_text(&restored, 0, input_types, 3, "+I e,2,4000");
    push_text(&restored, 0, input_types, 3, "+I f,2,6000"); /* the next window: 2 is new there */
    ck_assert_int_eq(operator_push_watermark(restored.op, 0, 0, INT64_MAX), JOINERY_OK);
    test_store_commit(restored.context.state_store);
    ck_assert_str_eq(harness_take(&restored), "+I(2,5,9,0,5000) +I(1,2,2,5000,10000)");
    /* the windows fired: their distinct values went with them */
    restored.op->vtable->report_state(restored.op);
    ck_assert_uint_eq(restored.op->metrics.state_rows, 0);
    harness_close(&h);
    harness_close(&restored);
}
END_TEST

START_TEST(test_refuses_unfused_session)
{
    init_types();
    WindowAggregateOperatorSpec spec = {.input_field_count = 3,
                                        .input_types = input_types,
                                        .calls = calls,
                                        .call_count = 2,
                                        .window = {.kind = WINDOW_SESSION, .gap_millis = 1000},
                                        .time_field = 2};
    Diag diag;
    diag_clear(&diag);
    ck_assert_ptr_null(window_aggregate_operator_create(&spec, &diag));
    ck_assert_int_eq(diag.status, JOINERY_ERROR_UNSUPPORTED);
}
END_TEST

static Suite *window_aggregate_suite(void)
{
    Suite *suite = suite_create("window_aggregate");
    TCase *programs = tcase_create("flink_programs");
    tcase_add_test(programs, test_tumble);
    tcase_add_test(programs, test_tumble_offset);
    tcase_add_test(programs, test_hop);
    tcase_add_test(programs, test_hop_offset);
    tcase_add_test(programs, test_cumulate);
    suite_add_tcase(suite, programs);
    TCase *operator= tcase_create("operator");
    tcase_add_test(operator, test_fires_at_window_end_minus_one);
    tcase_add_test(operator, test_window_time_and_extremes);
    tcase_add_test(operator, test_distinct_per_window);
    tcase_add_test(operator, test_refuses_unfused_session);
    suite_add_tcase(suite, operator);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(window_aggregate_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
