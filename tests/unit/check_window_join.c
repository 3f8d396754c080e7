/*
 * check_window_join.c - Check suite for the window join operator
 * (engine/exec/ops/op_window_join.h) and the window table function
 * operator (op_window_table_function.h).
 *
 * The join cases port Flink's WindowJoinTestPrograms: two sources of rows
 * (ts, id, num, name) with a watermark one second behind, out-of-order and
 * late rows, windowed by TUMBLE(5 s), HOP(5 s, 10 s) or CUMULATE(5 s,
 * 10 s) as the table function assigns them, joined ON name and the window
 * bounds, INNER, LEFT, RIGHT, FULL, SEMI and ANTI; halfway the operator is
 * snapshotted and restored into a fresh one (Flink's before / after
 * restore); the table function cases port WindowTableFunctionTestPrograms
 * (TUMBLE with offsets of +-6 s, HOP, CUMULATE, in Flink's output order), then the input ends
 * (final watermark). The outputs are compared as multisets with Flink's expected rows (Flink's test
 * compares them unordered too), and the late rows counted per side. Stores are of the run's default
 * backend (test_store.h): JOINERY_STATE_BACKEND=lmdb runs the same cases on LMDB.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/type.h"
#include "engine/exec/ops/op_window_join.h"
#include "engine/exec/ops/op_window_table_function.h"
#include "engine/exec/window/window_assigner.h"
#include "tests/unit/operator_harness.h"

/* ---- Flink's sources (seconds after 2020-10-10 00:00:00) ---- */

typedef struct SourceRow {
    int seconds;
    const char *id;
    int num;
    const char *name; /* NULL: a NULL name */
} SourceRow;

static const SourceRow LEFT_BEFORE[] = {
    {1, "L1", 1, "a"},   {2, "L2", 2, "c"},    {3, "L3", 2, "x"},   {4, "L7", 5, "a"},
    {7, "L8", 3, "b"},   {6, "L6", 6, "b"},    {8, "L9", 3, "a"},   {4, "L4", 5, "a"},
    {16, "L10", 4, "b"}, {32, "L11", 7, NULL}, {34, "L12", 1, "b"},
};
static const SourceRow RIGHT_BEFORE[] = {
    {1, "R1", 5, "a"},   {2, "R2", 7, "b"},    {3, "R3", 7, "f"},   {4, "R7", 3, "g"},
    {7, "R8", 8, "b"},   {6, "R6", 6, "b"},    {8, "R9", 3, "a"},   {4, "R4", 5, "a"},
    {17, "R17", 4, "k"}, {31, "R31", 7, NULL}, {33, "R33", 1, "b"},
};
static const SourceRow LEFT_AFTER[] = {
    {41, "L41", 10, "a"}, {42, "L42", 11, "d"}, {43, "L43", 12, "c"}, {44, "L44", 13, "d"}};
static const SourceRow RIGHT_AFTER[] = {
    {41, "R41", 10, "y"}, {42, "R42", 11, "c"}, {43, "R43", 12, "x"}, {44, "R44", 13, "z"}};

/* A windowed row: name, id, num, window_start, window_end (ms). */
static DataType side_types[5];
static DataType output_types[10];

static void init_types(void)
{
    side_types[0] = type_make(TYPE_VARCHAR, true);
    side_types[1] = type_make(TYPE_VARCHAR, true);
    side_types[2] = type_make(TYPE_INT, true);
    side_types[3] = type_make_timestamp(TYPE_TIMESTAMP, 3, false);
    side_types[4] = type_make_timestamp(TYPE_TIMESTAMP, 3, false);
    for (int i = 0; i < 10; i++)
        output_types[i] = side_types[i % 5];
}

typedef struct Run {
    Harness h;
    Harness restored;
    bool forked;
    WindowJoinOperatorSpec spec;
    WindowSpec window;
    int64_t watermarks[2];
} Run;

static const uint32_t KEYS[1] = {0};

static Operator *make_join(const Run *run)
{
    Diag diag;
    diag_clear(&diag);
    Operator *op = window_join_operator_create(&run->spec, &diag);
    ck_assert_msg(op != NULL, "%s", diag.message);
    return op;
}

static Harness *current(Run *run)
{
    return run->forked ? &run->restored : &run->h;
}

static uint32_t output_count(const Run *run)
{
    return run->spec.join_type == JOIN_TYPE_SEMI || run->spec.join_type == JOIN_TYPE_ANTI ? 5 : 10;
}

static void run_open(Run *run, JoinType type, WindowSpec window)
{
    init_types();
    memset(run, 0, sizeof *run);
    run->window = window;
    run->spec = (WindowJoinOperatorSpec){.join_type = type,
                                         .left_field_count = 5,
                                         .right_field_count = 5,
                                         .left_types = side_types,
                                         .right_types = side_types,
                                         .left_keys = KEYS,
                                         .right_keys = KEYS,
                                         .key_count = 1,
                                         .left_window_end = 4,
                                         .right_window_end = 4};
    run->watermarks[0] = run->watermarks[1] = INT64_MIN;
    harness_open(&run->h, make_join(run), output_types, output_count(run));
}

/* Pushes one source row through the window table function's assignment, then the
   source's watermark (its time - 1 s). */
static void run_row(Run *run, uint32_t side, const SourceRow *source)
{
    Harness *h = current(run);
    WindowBounds windows[8];
    int64_t time = source->seconds * INT64_C(1000);
    uint32_t count = window_assign(&run->window, time, windows, 8);
    for (uint32_t w = 0; w < count; w++) {
        char text[128];
        snprintf(text, sizeof text, "+I %s,%s,%d,%lld,%lld", source->name ? source->name : "NULL",
                 source->id, source->num, (long long)windows[w].start, (long long)windows[w].end);
        push_text(h, side, side_types, 5, text);
    }
    int64_t watermark = time - 1000;
    if (watermark > run->watermarks[side]) {
        run->watermarks[side] = watermark;
        ck_assert_int_eq(operator_push_watermark(h->op, side, side, watermark), JOINERY_OK);
        test_store_commit(h->context.state_store);
    }
}

/* Both sources row by row in turn (left i, right i), as two sources running side by side. */
static void run_rows(Run *run, const SourceRow *left, const SourceRow *right, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        run_row(run, 0, &left[i]);
        run_row(run, 1, &right[i]);
    }
}

/* The snapshot of the running operator restored into a fresh one, which runs on. */
static void run_restore(Run *run)
{
    harness_fork(&run->h, &run->restored, make_join(run), output_types, output_count(run));
    run->forked = true;
}

static void run_end(Run *run)
{
    Harness *h = current(run);
    for (uint32_t side = 0; side < 2; side++)
        ck_assert_int_eq(operator_push_watermark(h->op, side, side, INT64_MAX), JOINERY_OK);
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

/* "ws,we,name,L_id,L_num,R_id,R_num" in seconds, as Flink's sink row, for one logged row. */
static void sink_row(const char *logged, bool left_only, char *out, size_t size)
{
    char fields[10][32];
    int count = 0;
    const char *cursor = strchr(logged, '(') + 1;
    while (count < 10 && *cursor && *cursor != ')') {
        size_t length = strcspn(cursor, ",)");
        snprintf(fields[count++], sizeof fields[0], "%.*s", (int)length, cursor);
        cursor += length + (cursor[length] == ',');
    }
    char start[32], end[32];
    if (strcmp(fields[3], "NULL") == 0) {
        snprintf(start, sizeof start, "null");
        snprintf(end, sizeof end, "null");
    } else {
        snprintf(start, sizeof start, "%lld", strtoll(fields[3], NULL, 10) / 1000);
        snprintf(end, sizeof end, "%lld", strtoll(fields[4], NULL, 10) / 1000);
    }
    const char *left_name = strcmp(fields[0], "NULL") == 0 ? "null" : fields[0];
    if (left_only) {
        snprintf(out, size, "%s,%s,%s,%s,%s", start, end, left_name, fields[1], fields[2]);
        return;
    }
    snprintf(out, size, "%s,%s,%s,%s,%s,%s,%s", start, end, left_name,
             strcmp(fields[1], "NULL") == 0 ? "null" : fields[1],
             strcmp(fields[2], "NULL") == 0 ? "null" : fields[2],
             strcmp(fields[6], "NULL") == 0 ? "null" : fields[6],
             strcmp(fields[7], "NULL") == 0 ? "null" : fields[7]);
}

/* Checks the rows emitted since the last call against `expected`, as multisets. */
static void expect_rows(Run *run, const char *const *expected, size_t expected_count)
{
    const char *log = harness_take(current(run));
    char *copy = strdup(log);
    char *rows[256]; /* 256 bytes each: 7 fields of at most 32 */
    size_t count = 0;
    for (char *token = strtok(copy, " "); token && count < 256; token = strtok(NULL, " ")) {
        ck_assert_msg(strncmp(token, "+I(", 3) == 0, "not an insert: %s", token);
        rows[count] = malloc(256);
        sink_row(token, output_count(run) == 5, rows[count], 256);
        count++;
    }
    const char *wanted[256];
    for (size_t i = 0; i < expected_count; i++)
        wanted[i] = expected[i];
    qsort(rows, count, sizeof rows[0], compare_strings);
    qsort(wanted, expected_count, sizeof wanted[0], compare_strings);
    StrBuf got = STRBUF_INIT, want = STRBUF_INIT;
    for (size_t i = 0; i < count; i++)
        strbuf_printf(&got, "%s\n", rows[i]);
    for (size_t i = 0; i < expected_count; i++)
        strbuf_printf(&want, "%s\n", wanted[i]);
    ck_assert_msg(strcmp(strbuf_cstr(&got), strbuf_cstr(&want)) == 0, "got:\n%swanted:\n%s",
                  strbuf_cstr(&got), strbuf_cstr(&want));
    strbuf_free(&got);
    strbuf_free(&want);
    for (size_t i = 0; i < count; i++)
        free(rows[i]);
    free(copy);
}

#define EXPECT_ROWS(run, ...)                                                                      \
    do {                                                                                           \
        static const char *const rows_[] = {__VA_ARGS__};                                          \
        expect_rows(run, rows_, sizeof rows_ / sizeof rows_[0]);                                   \
    } while (0)
#define EXPECT_NO_ROWS(run) expect_rows(run, NULL, 0)

static const WindowSpec TUMBLE_5S = {.kind = WINDOW_TUMBLE, .size_millis = 5000};
static const WindowSpec HOP_5S_10S = {
    .kind = WINDOW_HOP, .size_millis = 10000, .slide_millis = 5000};
static const WindowSpec CUMULATE_5S_10S = {
    .kind = WINDOW_CUMULATE, .size_millis = 10000, .step_millis = 5000};

/* Runs Flink's program: before, restore, after, end. Checks the late counts (one row of
   each side, L4 / R4, is late for its 0-5 s window) and that no state is left. */
static void run_program(Run *run, JoinType type, WindowSpec window)
{
    run_open(run, type, window);
    run_rows(run, LEFT_BEFORE, RIGHT_BEFORE, sizeof LEFT_BEFORE / sizeof LEFT_BEFORE[0]);
}

static void finish_program(Run *run)
{
    run_restore(run);
    run_rows(run, LEFT_AFTER, RIGHT_AFTER, sizeof LEFT_AFTER / sizeof LEFT_AFTER[0]);
}

static void check_end(Run *run)
{
    Harness *h = current(run);
    /* the late rows are counted by the operator that saw them: before the restore */
    ck_assert_uint_eq(window_join_operator_late_rows(run->h.op, 0), 1);
    ck_assert_uint_eq(window_join_operator_late_rows(run->h.op, 1), 1);
    h->op->vtable->report_state(h->op);
    ck_assert_uint_eq(h->op->metrics.state_rows, 0);
    ck_assert_uint_eq(h->op->metrics.state_keys, 0);
    ck_assert_uint_eq(timer_service_count(h->op->timers, TIMER_EVENT_TIME), 0);
    run_close(run);
}

START_TEST(test_inner_tumble)
{
    Run run;
    run_program(&run, JOIN_TYPE_INNER, TUMBLE_5S);
    EXPECT_ROWS(&run, "0,5,a,L1,1,R1,5", "0,5,a,L7,5,R1,5", "5,10,b,L8,3,R8,8", "5,10,b,L8,3,R6,6",
                "5,10,b,L6,6,R8,8", "5,10,b,L6,6,R6,6", "5,10,a,L9,3,R9,3");
    finish_program(&run);
    EXPECT_ROWS(&run, "30,35,b,L12,1,R33,1"); /* fired by the watermark at 40 s */
    run_end(&run);
    EXPECT_ROWS(&run, "40,45,c,L43,12,R42,11");
    check_end(&run);
}
END_TEST

START_TEST(test_left_tumble)
{
    Run run;
    run_program(&run, JOIN_TYPE_LEFT, TUMBLE_5S);
    EXPECT_ROWS(&run, "0,5,a,L1,1,R1,5", "0,5,a,L7,5,R1,5", "0,5,x,L3,2,null,null",
                "0,5,c,L2,2,null,null", "5,10,b,L8,3,R8,8", "5,10,b,L8,3,R6,6", "5,10,b,L6,6,R8,8",
                "5,10,b,L6,6,R6,6", "5,10,a,L9,3,R9,3", "15,20,b,L10,4,null,null");
    finish_program(&run);
    run_end(&run);
    EXPECT_ROWS(&run, "30,35,b,L12,1,R33,1", "30,35,null,L11,7,null,null",
                "40,45,a,L41,10,null,null", "40,45,d,L42,11,null,null", "40,45,d,L44,13,null,null",
                "40,45,c,L43,12,R42,11");
    check_end(&run);
}
END_TEST

START_TEST(test_right_tumble)
{
    Run run;
    run_program(&run, JOIN_TYPE_RIGHT, TUMBLE_5S);
    EXPECT_ROWS(&run, "0,5,a,L1,1,R1,5", "0,5,a,L7,5,R1,5", "null,null,null,null,null,R7,3",
                "null,null,null,null,null,R2,7", "null,null,null,null,null,R3,7",
                "5,10,b,L8,3,R8,8", "5,10,b,L6,6,R8,8", "5,10,b,L8,3,R6,6", "5,10,b,L6,6,R6,6",
                "5,10,a,L9,3,R9,3", "null,null,null,null,null,R17,4");
    finish_program(&run);
    run_end(&run);
    EXPECT_ROWS(&run, "30,35,b,L12,1,R33,1", "null,null,null,null,null,R31,7",
                "null,null,null,null,null,R43,12", "null,null,null,null,null,R44,13",
                "null,null,null,null,null,R41,10", "40,45,c,L43,12,R42,11");
    check_end(&run);
}
END_TEST

START_TEST(test_full_tumble)
{
    Run run;
    run_program(&run, JOIN_TYPE_FULL, TUMBLE_5S);
    EXPECT_ROWS(&run, "0,5,a,L1,1,R1,5", "0,5,a,L7,5,R1,5", "0,5,x,L3,2,null,null",
                "null,null,null,null,null,R7,3", "0,5,c,L2,2,null,null",
                "null,null,null,null,null,R2,7", "null,null,null,null,null,R3,7",
                "5,10,b,L8,3,R8,8", "5,10,b,L8,3,R6,6", "5,10,b,L6,6,R8,8", "5,10,b,L6,6,R6,6",
                "5,10,a,L9,3,R9,3", "15,20,b,L10,4,null,null", "null,null,null,null,null,R17,4");
    finish_program(&run);
    run_end(&run);
    EXPECT_ROWS(&run, "30,35,b,L12,1,R33,1", "30,35,null,L11,7,null,null",
                "null,null,null,null,null,R31,7", "40,45,a,L41,10,null,null",
                "40,45,d,L42,11,null,null", "40,45,d,L44,13,null,null",
                "null,null,null,null,null,R43,12", "null,null,null,null,null,R44,13",
                "null,null,null,null,null,R41,10", "40,45,c,L43,12,R42,11");
    check_end(&run);
}
END_TEST

START_TEST(test_semi_tumble)
{
    Run run;
    run_program(&run, JOIN_TYPE_SEMI, TUMBLE_5S);
    EXPECT_ROWS(&run, "0,5,a,L1,1", "0,5,a,L7,5", "5,10,b,L8,3", "5,10,b,L6,6", "5,10,a,L9,3");
    finish_program(&run);
    run_end(&run);
    EXPECT_ROWS(&run, "30,35,b,L12,1", "40,45,c,L43,12");
    check_end(&run);
}
END_TEST

START_TEST(test_anti_tumble)
{
    Run run;
    run_program(&run, JOIN_TYPE_ANTI, TUMBLE_5S);
    EXPECT_ROWS(&run, "0,5,x,L3,2", "0,5,c,L2,2", "15,20,b,L10,4");
    finish_program(&run);
    run_end(&run);
    EXPECT_ROWS(&run, "30,35,null,L11,7", "40,45,a,L41,10", "40,45,d,L42,11", "40,45,d,L44,13");
    check_end(&run);
}
END_TEST

START_TEST(test_inner_hop)
{
    Run run;
    run_program(&run, JOIN_TYPE_INNER, HOP_5S_10S);
    EXPECT_ROWS(&run, "-5,5,a,L1,1,R1,5", "-5,5,a,L7,5,R1,5", "0,10,a,L1,1,R1,5",
                "0,10,a,L1,1,R9,3", "0,10,a,L1,1,R4,5", "0,10,a,L7,5,R1,5", "0,10,a,L7,5,R9,3",
                "0,10,a,L7,5,R4,5", "0,10,a,L9,3,R1,5", "0,10,a,L9,3,R9,3", "0,10,a,L9,3,R4,5",
                "0,10,a,L4,5,R1,5", "0,10,a,L4,5,R9,3", "0,10,a,L4,5,R4,5", "0,10,b,L8,3,R2,7",
                "0,10,b,L8,3,R8,8", "0,10,b,L8,3,R6,6", "0,10,b,L6,6,R2,7", "0,10,b,L6,6,R8,8",
                "0,10,b,L6,6,R6,6", "5,15,a,L9,3,R9,3", "5,15,b,L8,3,R8,8", "5,15,b,L8,3,R6,6",
                "5,15,b,L6,6,R8,8", "5,15,b,L6,6,R6,6");
    finish_program(&run);
    run_end(&run);
    EXPECT_ROWS(&run, "25,35,b,L12,1,R33,1", "30,40,b,L12,1,R33,1", "35,45,c,L43,12,R42,11",
                "40,50,c,L43,12,R42,11");
    check_end(&run);
}
END_TEST

START_TEST(test_inner_cumulate)
{
    Run run;
    run_program(&run, JOIN_TYPE_INNER, CUMULATE_5S_10S);
    EXPECT_ROWS(&run, "0,5,a,L1,1,R1,5", "0,5,a,L7,5,R1,5", "0,10,a,L1,1,R1,5", "0,10,a,L1,1,R9,3",
                "0,10,a,L1,1,R4,5", "0,10,a,L7,5,R1,5", "0,10,a,L7,5,R9,3", "0,10,a,L7,5,R4,5",
                "0,10,a,L9,3,R1,5", "0,10,a,L9,3,R9,3", "0,10,a,L9,3,R4,5", "0,10,a,L4,5,R1,5",
                "0,10,a,L4,5,R9,3", "0,10,a,L4,5,R4,5", "0,10,b,L8,3,R2,7", "0,10,b,L8,3,R8,8",
                "0,10,b,L8,3,R6,6", "0,10,b,L6,6,R2,7", "0,10,b,L6,6,R8,8", "0,10,b,L6,6,R6,6");
    finish_program(&run);
    run_end(&run);
    EXPECT_ROWS(&run, "30,35,b,L12,1,R33,1", "30,40,b,L12,1,R33,1", "40,45,c,L43,12,R42,11",
                "40,50,c,L43,12,R42,11");
    check_end(&run);
}
END_TEST

/* Emission waits for the watermark to pass window_end - 1; the row at the boundary is late. */
START_TEST(test_fires_at_window_end_and_drops_late_rows)
{
    Run run;
    run_open(&run, JOIN_TYPE_INNER, TUMBLE_5S);
    Harness *h = &run.h;
    push_text(h, 0, side_types, 5, "+I a,L1,1,0,5000");
    push_text(h, 1, side_types, 5, "+I a,R1,2,0,5000");
    ck_assert_int_eq(operator_push_watermark(h->op, 0, 0, 4998), JOINERY_OK);
    ck_assert_int_eq(operator_push_watermark(h->op, 1, 1, 4998), JOINERY_OK);
    EXPECT_NO_ROWS(&run);
    h->op->vtable->report_state(h->op);
    ck_assert_uint_eq(h->op->metrics.state_rows, 2);
    /* a row for the window still joins before it fires */
    push_text(h, 1, side_types, 5, "+I a,R2,3,0,5000");
    ck_assert_int_eq(operator_push_watermark(h->op, 0, 0, 4999), JOINERY_OK);
    EXPECT_NO_ROWS(&run); /* the merged watermark is still 4998 */
    ck_assert_int_eq(operator_push_watermark(h->op, 1, 1, 4999), JOINERY_OK);
    EXPECT_ROWS(&run, "0,5,a,L1,1,R1,2", "0,5,a,L1,1,R2,3");
    h->op->vtable->report_state(h->op);
    ck_assert_uint_eq(h->op->metrics.state_rows, 0);
    /* watermark 4999 = window_end - 1: the window has fired, its rows are late */
    push_text(h, 0, side_types, 5, "+I a,L2,1,0,5000");
    push_text(h, 1, side_types, 5, "+I a,R3,1,0,5000");
    push_text(h, 1, side_types, 5, "+I a,R4,1,0,5000");
    ck_assert_uint_eq(window_join_operator_late_rows(h->op, 0), 1);
    ck_assert_uint_eq(window_join_operator_late_rows(h->op, 1), 2);
    /* the next window is not late */
    push_text(h, 0, side_types, 5, "+I a,L3,1,5000,10000");
    push_text(h, 1, side_types, 5, "+I a,R5,1,5000,10000");
    run_end(&run);
    EXPECT_ROWS(&run, "5,10,a,L3,1,R5,1");
    ck_assert_uint_eq(window_join_operator_late_rows(h->op, 0), 1);
    run_close(&run);
}
END_TEST

/* A residual condition and keys that are NULL; no keys at all (one global key). */
START_TEST(test_residual_and_null_keys)
{
    Run run;
    run_open(&run, JOIN_TYPE_LEFT, TUMBLE_5S);
    harness_close(&run.h);
    /* ON L.num < R.num: over left ++ right, field 2 < field 7 */
    Arena arena;
    arena_init(&arena, 4096);
    Expr *args[2] = {expr_make_input_ref(&arena, 2, side_types[2]),
                     expr_make_input_ref(&arena, 7, side_types[2])};
    run.spec.residual =
        expr_make_call(&arena, FUNCTION_LESS, type_make(TYPE_BOOLEAN, true), args, 2);
    run.spec.key_count = 0;
    harness_open(&run.h, make_join(&run), output_types, 10);
    Harness *h = &run.h;
    push_text(h, 0, side_types, 5, "+I a,L1,1,0,5000");
    push_text(h, 0, side_types, 5, "+I NULL,L2,9,0,5000");
    push_text(h, 1, side_types, 5, "+I b,R1,5,0,5000");
    push_text(h, 1, side_types, 5, "+I NULL,R2,NULL,0,5000");
    run_end(&run);
    EXPECT_ROWS(&run, "0,5,a,L1,1,R1,5", "0,5,null,L2,9,null,null");
    run_close(&run);
    /* with the name as key, NULL names match nothing, even each other */
    run_open(&run, JOIN_TYPE_FULL, TUMBLE_5S);
    h = &run.h;
    push_text(h, 0, side_types, 5, "+I NULL,L1,1,0,5000");
    push_text(h, 1, side_types, 5, "+I NULL,R1,1,0,5000");
    push_text(h, 1, side_types, 5, "+I a,R2,1,0,5000");
    run_end(&run);
    EXPECT_ROWS(&run, "0,5,null,L1,1,null,null", "null,null,null,null,null,R1,1",
                "null,null,null,null,null,R2,1");
    run_close(&run);
    arena_destroy(&arena);
}
END_TEST

/* ---- the window table function ---- */

START_TEST(test_window_table_function_assigns)
{
    init_types();
    DataType in_types[2] = {type_make(TYPE_VARCHAR, true),
                            type_make_timestamp(TYPE_TIMESTAMP, 3, true)};
    DataType out_types[5] = {in_types[0], in_types[1], in_types[1], in_types[1], in_types[1]};
    WindowTableFunctionSpec spec = {
        .window = HOP_5S_10S, .time_field = 1, .input_field_count = 2, .input_types = in_types};
    Harness h;
    Diag diag;
    diag_clear(&diag);
    harness_open(&h, window_table_function_operator_create(&spec, &diag), out_types, 5);
    push_text(&h, 0, in_types, 2, "+I a,7000");
    push_text(&h, 0, in_types, 2, "+I b,NULL");
    push_text(&h, 0, in_types, 2, "+I c,-1");
    ck_assert_str_eq(harness_take(&h), "+I(a,7000,5000,15000,14999) +I(a,7000,0,10000,9999) "
                                       "+I(c,-1,-5000,5000,4999) +I(c,-1,-10000,0,-1)");
    ck_assert_uint_eq(h.op->metrics.skipped_rows, 1);
    harness_close(&h);
    /* SESSION windows are not assigned per row */
    WindowTableFunctionSpec session = spec;
    session.window = (WindowSpec){.kind = WINDOW_SESSION, .gap_millis = 1000};
    ck_assert_ptr_null(window_table_function_operator_create(&session, &diag));
}
END_TEST

/*
 * Flink's WindowTableFunctionTestPrograms: bids at 08:00:05 .. 08:00:27 (here seconds after
 * 08:00:00), each row's windows in the order Flink's sink receives them.
 */
static const char *program_windows(WindowSpec window)
{
    static const int bid_seconds[] = {5, 7, 9, 11, 13, 17, 21, 27};
    static const char *const items[] = {"C", "A", "D", "B", "E", "F", "A", "C"};
    init_types();
    DataType in_types[2] = {type_make(TYPE_VARCHAR, true),
                            type_make_timestamp(TYPE_TIMESTAMP, 3, true)};
    DataType out_types[5] = {in_types[0], in_types[1], in_types[1], in_types[1], in_types[1]};
    WindowTableFunctionSpec spec = {
        .window = window, .time_field = 1, .input_field_count = 2, .input_types = in_types};
    static Harness h;
    static char result[16384];
    Diag diag;
    diag_clear(&diag);
    harness_open(&h, window_table_function_operator_create(&spec, &diag), out_types, 5);
    for (int i = 0; i < 8; i++) {
        char text[64];
        snprintf(text, sizeof text, "+I %s,%d", items[i], bid_seconds[i] * 1000);
        push_text(&h, 0, in_types, 2, text);
    }
    snprintf(result, sizeof result, "%s", harness_take(&h));
    harness_close(&h);
    return result;
}

START_TEST(test_window_table_function_programs)
{
    ck_assert_str_eq(program_windows((WindowSpec){.kind = WINDOW_TUMBLE, .size_millis = 10000}),
                     "+I(C,5000,0,10000,9999) +I(A,7000,0,10000,9999) +I(D,9000,0,10000,9999) "
                     "+I(B,11000,10000,20000,19999) +I(E,13000,10000,20000,19999) "
                     "+I(F,17000,10000,20000,19999) +I(A,21000,20000,30000,29999) "
                     "+I(C,27000,20000,30000,29999)");
    /* offset 6 s: 07:59:56-08:00:06, 08:00:06-08:00:16, ... */
    ck_assert_str_eq(program_windows((WindowSpec){
                         .kind = WINDOW_TUMBLE, .size_millis = 10000, .offset_millis = 6000}),
                     "+I(C,5000,-4000,6000,5999) +I(A,7000,6000,16000,15999) "
                     "+I(D,9000,6000,16000,15999) +I(B,11000,6000,16000,15999) "
                     "+I(E,13000,6000,16000,15999) +I(F,17000,16000,26000,25999) "
                     "+I(A,21000,16000,26000,25999) +I(C,27000,26000,36000,35999)");
    /* offset -6 s: 08:00:04-08:00:14, ... */
    ck_assert_str_eq(program_windows((WindowSpec){
                         .kind = WINDOW_TUMBLE, .size_millis = 10000, .offset_millis = -6000}),
                     "+I(C,5000,4000,14000,13999) +I(A,7000,4000,14000,13999) "
                     "+I(D,9000,4000,14000,13999) +I(B,11000,4000,14000,13999) "
                     "+I(E,13000,4000,14000,13999) +I(F,17000,14000,24000,23999) "
                     "+I(A,21000,14000,24000,23999) +I(C,27000,24000,34000,33999)");
    ck_assert_str_eq(
        program_windows(HOP_5S_10S),
        "+I(C,5000,5000,15000,14999) +I(C,5000,0,10000,9999) +I(A,7000,5000,15000,14999) "
        "+I(A,7000,0,10000,9999) +I(D,9000,5000,15000,14999) +I(D,9000,0,10000,9999) "
        "+I(B,11000,10000,20000,19999) +I(B,11000,5000,15000,14999) "
        "+I(E,13000,10000,20000,19999) +I(E,13000,5000,15000,14999) "
        "+I(F,17000,15000,25000,24999) +I(F,17000,10000,20000,19999) "
        "+I(A,21000,20000,30000,29999) +I(A,21000,15000,25000,24999) "
        "+I(C,27000,25000,35000,34999) +I(C,27000,20000,30000,29999)");
    ck_assert_str_eq(program_windows(CUMULATE_5S_10S),
                     "+I(C,5000,0,10000,9999) +I(A,7000,0,10000,9999) +I(D,9000,0,10000,9999) "
                     "+I(B,11000,10000,15000,14999) +I(B,11000,10000,20000,19999) "
                     "+I(E,13000,10000,15000,14999) +I(E,13000,10000,20000,19999) "
                     "+I(F,17000,10000,20000,19999) +I(A,21000,20000,25000,24999) "
                     "+I(A,21000,20000,30000,29999) +I(C,27000,20000,30000,29999)");
}
END_TEST

static Suite *window_join_suite(void)
{
    Suite *suite = suite_create("window_join");
    TCase *programs = tcase_create("flink_programs");
    tcase_add_test(programs, test_inner_tumble);
    tcase_add_test(programs, test_left_tumble);
    tcase_add_test(programs, test_right_tumble);
    tcase_add_test(programs, test_full_tumble);
    tcase_add_test(programs, test_semi_tumble);
    tcase_add_test(programs, test_anti_tumble);
    tcase_add_test(programs, test_inner_hop);
    tcase_add_test(programs, test_inner_cumulate);
    suite_add_tcase(suite, programs);
    TCase *operator= tcase_create("operator");
    tcase_add_test(operator, test_fires_at_window_end_and_drops_late_rows);
    tcase_add_test(operator, test_residual_and_null_keys);
    tcase_add_test(operator, test_window_table_function_assigns);
    tcase_add_test(operator, test_window_table_function_programs);
    suite_add_tcase(suite, operator);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(window_join_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
