/*
 * check_udf.c - user-defined C functions: the loader's error paths (missing
 * library, missing symbol, bad ABI version, unknown type code, missing entry
 * point), calls of scalar and table functions (NULL handling, strings, errors
 * the function returns, a result out of range, a sink error stopping a
 * call), the Correlate operator over a table function (INNER and LEFT, a
 * retraction retracting its rows, a function error failing the batch), and
 * through a session: CREATE FUNCTION's errors and a call with a wrong argument
 * type at planning; ABI 2: job parameters parsed, an async function's calls
 * completed newest first and emitted in input order by the Correlate (a
 * batch wider than its capacity, the rest drained at finish), a sync
 * function's instance state. The functions are tests/udf/test_udfs.c, built by the
 * Makefile into build/udf/ (the suite runs from the repository root).
 */
#include <check.h>
#include <string.h>

#include "engine/engine.h"
#include "engine/exec/ops/op_correlate.h"
#include "engine/exec/ops/op_group_aggregate.h"
#include "engine/exec/ops/op_window_aggregate.h"
#include "engine/udf/job_parameters.h"
#include "engine/udf/udf.h"
#include "tests/unit/operator_harness.h"

#define TEST_LIBRARY "build/udf/libjoinery_test_udf.so"

static const UdfFunction *load_ok(const char *symbol)
{
    Diag diag;
    diag_clear(&diag);
    const UdfFunction *function = NULL;
    ck_assert_msg(udf_load(symbol, TEST_LIBRARY, symbol, &function, &diag) == JOINERY_OK, "%s",
                  diag.message);
    ck_assert_ptr_nonnull(function);
    return function;
}

static void expect_load_error(const char *library, const char *symbol, const char *message)
{
    Diag diag;
    diag_clear(&diag);
    const UdfFunction *function = NULL;
    ck_assert_int_eq(udf_load("f", library, symbol, &function, &diag), JOINERY_ERROR_VALIDATE);
    ck_assert_msg(strstr(diag.message, message), "'%s' not in '%s'", message, diag.message);
}

START_TEST(test_load_errors)
{
    expect_load_error("build/udf/no_such_library.so", "plus_one",
                      "Cannot load library 'build/udf/no_such_library.so'");
    expect_load_error(TEST_LIBRARY, "no_such_symbol",
                      "Symbol 'no_such_symbol' not found in library '" TEST_LIBRARY "'");
    expect_load_error(TEST_LIBRARY, "bad_abi",
                      "has ABI version 99; this joinery loads versions 1 to 2");
    expect_load_error(TEST_LIBRARY, "bad_type", "declares argument 1 with unknown type code 42");
    expect_load_error(TEST_LIBRARY, "no_entry", "a table function has no table entry point");
}
END_TEST

START_TEST(test_load_twice_is_one_function)
{
    const UdfFunction *first = load_ok("plus_one");
    const UdfFunction *second = load_ok("plus_one");
    ck_assert_ptr_eq(first, second);
    ck_assert(!first->table);
    ck_assert_uint_eq(first->argument_count, 1);
    ck_assert_int_eq(first->argument_types[0].id, TYPE_BIGINT);
    ck_assert_int_eq(first->result_types[0].id, TYPE_BIGINT);
    const UdfFunction *split = load_ok("split_words");
    ck_assert(split->table);
    ck_assert_uint_eq(split->result_count, 2);
    ck_assert_str_eq(split->result_names[0], "word");
    ck_assert_str_eq(split->result_names[1], "pos");
    const UdfFunction *repeat = load_ok("repeat_row");
    ck_assert_str_eq(repeat->result_names[0], "EXPR$0"); /* no names declared: Flink's */
}
END_TEST

START_TEST(test_scalar_calls)
{
    Arena arena;
    arena_init(&arena, 1024);
    Diag diag;
    diag_clear(&diag);
    Value result;
    Value argument = value_int(41);
    ck_assert_int_eq(udf_call_scalar(load_ok("plus_one"), &argument, &arena, &result, &diag),
                     JOINERY_OK);
    ck_assert(!result.is_null);
    ck_assert_int_eq(result.i, 42);
    /* NULL input: not called, NULL */
    argument = value_null();
    ck_assert_int_eq(udf_call_scalar(load_ok("plus_one"), &argument, &arena, &result, &diag),
                     JOINERY_OK);
    ck_assert(result.is_null);
    /* called on NULL input */
    ck_assert_int_eq(udf_call_scalar(load_ok("null_label"), &argument, &arena, &result, &diag),
                     JOINERY_OK);
    ck_assert_int_eq(result.s.len, 4);
    ck_assert(memcmp(result.s.ptr, "null", 4) == 0);
    /* a string built in the call's memory, copied into the arena */
    argument = value_string("abc", 3);
    ck_assert_int_eq(udf_call_scalar(load_ok("greet"), &argument, &arena, &result, &diag),
                     JOINERY_OK);
    ck_assert_int_eq(result.s.len, 10);
    ck_assert(memcmp(result.s.ptr, "hello, abc", 10) == 0);
    /* an error the function returns */
    argument = value_int(-5);
    ck_assert_int_eq(udf_call_scalar(load_ok("fail_negative"), &argument, &arena, &result, &diag),
                     JOINERY_ERROR_RUNTIME);
    ck_assert_str_eq(diag.message,
                     "Function 'fail_negative' failed on arguments (-5): negative input");
    /* a result that does not fit its declared type */
    diag_clear(&diag);
    argument = value_int(3000000000LL);
    ck_assert_int_eq(udf_call_scalar(load_ok("bad_int"), &argument, &arena, &result, &diag),
                     JOINERY_ERROR_RUNTIME);
    ck_assert_str_eq(diag.message, "Function 'bad_int' failed on arguments (3000000000): returned "
                                   "3000000000, out of range for INT");
    arena_destroy(&arena);
}
END_TEST

typedef struct Rows {
    StrBuf text;
    int stop_after; /* > 0: the sink fails at that row */
    int seen;
} Rows;

static int collect_row(void *context, const Value *fields)
{
    Rows *rows = context;
    if (rows->stop_after && ++rows->seen >= rows->stop_after)
        return JOINERY_ERROR_NO_MEMORY;
    strbuf_printf(&rows->text, "(%.*s,%lld)", (int)fields[0].s.len, fields[0].s.ptr,
                  (long long)fields[1].i);
    return JOINERY_OK;
}

START_TEST(test_table_calls)
{
    Arena arena;
    arena_init(&arena, 1024);
    Diag diag;
    diag_clear(&diag);
    Rows rows = {STRBUF_INIT, 0, 0};
    Value argument = value_string("to be  or", 9);
    ck_assert_int_eq(
        udf_call_table(load_ok("split_words"), &argument, &arena, collect_row, &rows, &diag),
        JOINERY_OK);
    ck_assert_str_eq(strbuf_cstr(&rows.text), "(to,1)(be,2)(or,3)");
    /* the sink's error stops the call and is its result */
    strbuf_clear(&rows.text);
    rows.stop_after = 2;
    ck_assert_int_eq(
        udf_call_table(load_ok("split_words"), &argument, &arena, collect_row, &rows, &diag),
        JOINERY_ERROR_NO_MEMORY);
    ck_assert_str_eq(strbuf_cstr(&rows.text), "(to,1)");
    /* the function's error */
    Value arguments[2] = {value_string("x", 1), value_int(-1)};
    rows.stop_after = 0;
    ck_assert_int_eq(
        udf_call_table(load_ok("repeat_row"), arguments, &arena, collect_row, &rows, &diag),
        JOINERY_ERROR_RUNTIME);
    ck_assert_str_eq(diag.message,
                     "Function 'repeat_row' failed on arguments ('x', -1): negative count");
    strbuf_free(&rows.text);
    arena_destroy(&arena);
}
END_TEST

/* ---- the Correlate operator over split_words(s) of rows (id INT, s STRING) ---- */

static DataType correlate_types[4];

static Operator *make_correlate(Arena *arena, bool left)
{
    correlate_types[0] = type_make(TYPE_INT, true);
    correlate_types[1] = type_make_varchar(TYPE_STRING_LENGTH, true);
    correlate_types[2] = type_make_varchar(TYPE_STRING_LENGTH, true);
    correlate_types[3] = type_make(TYPE_INT, true);
    Expr **arguments = arena_calloc(arena, 1, sizeof(Expr *));
    arguments[0] = expr_make_input_ref(arena, 1, correlate_types[1]);
    CorrelateSpec spec = {
        .input_field_count = 2,
        .input_types = correlate_types,
        .arguments = arguments,
        .argument_count = 1,
        .function = load_ok("split_words"),
        .function_types = correlate_types + 2,
        .function_field_count = 2,
        .left = left,
    };
    Diag diag;
    diag_clear(&diag);
    Operator *op = correlate_operator_create(&spec, &diag);
    ck_assert_ptr_nonnull(op);
    return op;
}

START_TEST(test_correlate_inner_and_retraction)
{
    Arena arena;
    arena_init(&arena, 1024);
    Harness h;
    harness_open(&h, make_correlate(&arena, false), correlate_types, 4);
    push_text(&h, 0, correlate_types, 2, "+I 1,a b");
    ck_assert_str_eq(harness_take(&h), "+I(1,a b,a,1) +I(1,a b,b,2)");
    push_text(&h, 0, correlate_types, 2, "+I 2,NULL");
    ck_assert_str_eq(harness_take(&h), "");
    push_text(&h, 0, correlate_types, 2, "-U 1,a b");
    push_text(&h, 0, correlate_types, 2, "+U 1,c");
    ck_assert_str_eq(harness_take(&h), "-U(1,a b,a,1) -U(1,a b,b,2) +U(1,c,c,1)");
    push_text(&h, 0, correlate_types, 2, "-D 1,c");
    ck_assert_str_eq(harness_take(&h), "-D(1,c,c,1)");
    harness_close(&h);
    arena_destroy(&arena);
}
END_TEST

START_TEST(test_correlate_left)
{
    Arena arena;
    arena_init(&arena, 1024);
    Harness h;
    harness_open(&h, make_correlate(&arena, true), correlate_types, 4);
    push_text(&h, 0, correlate_types, 2, "+I 1,x");
    push_text(&h, 0, correlate_types, 2, "+I 2,NULL");
    push_text(&h, 0, correlate_types, 2, "+I 3,  ");
    push_text(&h, 0, correlate_types, 2, "-D 2,NULL");
    ck_assert_str_eq(harness_take(&h), "+I(1,x,x,1) +I(2,NULL,NULL,NULL) +I(3,  ,NULL,NULL) "
                                       "-D(2,NULL,NULL,NULL)");
    harness_close(&h);
    arena_destroy(&arena);
}
END_TEST

START_TEST(test_correlate_function_error)
{
    Arena arena;
    arena_init(&arena, 1024);
    DataType types[3] = {type_make(TYPE_INT, true), type_make(TYPE_INT, true),
                         type_make_varchar(TYPE_STRING_LENGTH, true)};
    Expr **arguments = arena_calloc(&arena, 2, sizeof(Expr *));
    arguments[0] = expr_make_literal(&arena, types[2], value_string("r", 1));
    arguments[1] = expr_make_input_ref(&arena, 1, types[1]);
    CorrelateSpec spec = {.input_field_count = 2,
                          .input_types = types,
                          .arguments = arguments,
                          .argument_count = 2,
                          .function = load_ok("repeat_row"),
                          .function_types = types + 2,
                          .function_field_count = 1};
    Diag diag;
    diag_clear(&diag);
    Harness h;
    harness_open(&h, correlate_operator_create(&spec, &diag), types, 3);
    push_text(&h, 0, types, 2, "+I 1,2");
    ck_assert_str_eq(harness_take(&h), "+I(1,2,r) +I(1,2,r)");
    ck_assert_int_eq(push_text_status(&h, 0, types, 2, "+I 2,-1"), JOINERY_ERROR_RUNTIME);
    ck_assert_str_eq(h.diag.message,
                     "Function 'repeat_row' failed on arguments ('r', -1): negative count");
    harness_close(&h);
    arena_destroy(&arena);
}
END_TEST

/* ---- through a session ---- */

static int session_run(JoinerySession *session, const char *sql, JoineryError *error)
{
    static const JoineryResultHandler handler = {0};
    memset(error, 0, sizeof *error);
    return joinery_session_execute(session, sql, strlen(sql), 1, 1, &handler, error);
}

START_TEST(test_session_errors)
{
    JoinerySession *session = joinery_session_open();
    ck_assert_ptr_nonnull(session);
    JoineryError error;
    ck_assert_int_ne(session_run(session,
                                 "CREATE FUNCTION f AS 'x' LANGUAGE C USING JAR "
                                 "'build/udf/no_such_library.so'",
                                 &error),
                     0);
    ck_assert_int_eq(error.status, JOINERY_ERROR_VALIDATE);
    ck_assert_msg(strstr(error.message, "Cannot load library"), "%s", error.message);
    ck_assert_int_eq(error.column, 22);
    ck_assert_int_ne(session_run(session, "CREATE FUNCTION f AS 'F' LANGUAGE SCALA", &error), 0);
    ck_assert_int_eq(error.status, JOINERY_ERROR_UNSUPPORTED);
    ck_assert_msg(strstr(error.message, "LANGUAGE SCALA is not supported"), "%s", error.message);
    ck_assert_int_eq(
        session_run(session,
                    "CREATE FUNCTION str_len AS 'str_len' LANGUAGE C USING JAR '" TEST_LIBRARY "'",
                    &error),
        0);
    /* type mismatch at planning, at the call */
    ck_assert_int_ne(session_run(session, "SELECT 1 + str_len(42)", &error), 0);
    ck_assert_int_eq(error.status, JOINERY_ERROR_VALIDATE);
    ck_assert_str_eq(error.message, "Invalid argument 1 of function 'str_len': INT NOT NULL where "
                                    "the function takes STRING (its signature: str_len(STRING))");
    ck_assert_int_eq(error.column, 12);
    ck_assert_int_eq(session_run(session, "DROP FUNCTION str_len", &error), 0);
    ck_assert_int_ne(session_run(session, "SELECT str_len('a')", &error), 0);
    ck_assert_msg(strstr(error.message, "No match found for function signature str_len"), "%s",
                  error.message);
    joinery_session_close(session);
}
END_TEST

/* ---- ABI 2 ---- */

START_TEST(test_job_parameters)
{
    Diag diag;
    diag_clear(&diag);
    JobParameters parameters;
    ck_assert_int_eq(
        job_parameters_parse(" a : 1 ,b:x=y z, \"c:d\":\"e,\"\"f\"\"\" ,a:2", &parameters, &diag),
        JOINERY_OK);
    ck_assert_uint_eq(parameters.count, 3);
    ck_assert_str_eq(job_parameters_get(&parameters, "a"), "2"); /* the later entry */
    ck_assert_str_eq(job_parameters_get(&parameters, "b"), "x=y z");
    ck_assert_str_eq(job_parameters_get(&parameters, "c:d"), "e,\"f\"");
    ck_assert_ptr_null(job_parameters_get(&parameters, "z"));
    job_parameters_free(&parameters);
    ck_assert_int_eq(job_parameters_parse("", &parameters, &diag), JOINERY_OK);
    ck_assert_uint_eq(parameters.count, 0);
    job_parameters_free(&parameters);
    const char *bad[] = {"a", "a:1,b", ":1", "a:\"x", "a:\"x\"y"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_int_eq(job_parameters_parse(bad[i], &parameters, &diag), JOINERY_ERROR_VALIDATE);
        job_parameters_free(&parameters);
    }
}
END_TEST

static DataType async_types[3];

static Operator *make_async_correlate(Arena *arena, uint32_t capacity, const char *parameters)
{
    async_types[0] = type_make(TYPE_BIGINT, true);
    async_types[1] = type_make(TYPE_BIGINT, true);
    async_types[2] = type_make(TYPE_INT, true);
    Expr **arguments = arena_calloc(arena, 1, sizeof(Expr *));
    arguments[0] = expr_make_input_ref(arena, 0, async_types[0]);
    CorrelateSpec spec = {
        .input_field_count = 1,
        .input_types = async_types,
        .arguments = arguments,
        .argument_count = 1,
        .function = load_ok("async_rows"),
        .function_types = async_types + 1,
        .function_field_count = 2,
        .left = true,
        .job_parameters = parameters,
        .async_capacity = capacity,
        .async_timeout_millis = 60000,
    };
    ck_assert(spec.function->async);
    Diag diag;
    diag_clear(&diag);
    Operator *op = correlate_operator_create(&spec, &diag);
    ck_assert_ptr_nonnull(op);
    return op;
}

/* Pushes rows x = from .. to as one batch. */
static int push_range(Harness *h, int64_t from, int64_t to)
{
    RowBuilder builder;
    row_builder_init(&builder);
    Row *rows[16];
    uint32_t count = 0;
    for (int64_t x = from; x <= to; x++) {
        row_builder_begin(&builder, 1, ROW_KIND_INSERT);
        row_builder_set_int64(&builder, 0, x);
        rows[count++] = row_copy_heap(row_builder_finish(&builder));
    }
    RowBatch batch = {.rows = rows, .count = count, .capacity = 16};
    int status = operator_push(h->op, 0, &batch);
    for (uint32_t i = 0; i < count; i++)
        free(rows[i]);
    row_builder_free(&builder);
    return status;
}

START_TEST(test_async_correlate_order)
{
    Arena arena;
    arena_init(&arena, 1024);
    Harness h;
    /* capacity 2 under a batch of 6: process waits for its own completions, newest first */
    harness_open(&h, make_async_correlate(&arena, 2, "test.offset:1000"), async_types, 3);
    ck_assert_int_eq(push_range(&h, 1, 6), JOINERY_OK);
    ck_assert_int_eq(push_range(&h, 7, 8), JOINERY_OK);
    ck_assert_int_eq(h.op->vtable->finish(h.op), JOINERY_OK);
    ck_assert_int_eq(operator_flush(h.op), JOINERY_OK);
    ck_assert_str_eq(harness_take(&h),
                     "+I(1,1010,0) +I(2,1020,0) +I(2,1021,1) +I(3,NULL,NULL) +I(4,1040,0) "
                     "+I(5,1050,0) +I(5,1051,1) +I(6,NULL,NULL) +I(7,1070,0) +I(8,1080,0) "
                     "+I(8,1081,1)");
    harness_close(&h);
    /* calls that complete only at a later poll: still waiting after the batch, emitted in
       order before a barrier's snapshot returns (Flink snapshots them; joinery drains) */
    harness_open(&h, make_async_correlate(&arena, 4, "test.delay-polls:2"), async_types, 3);
    ck_assert_int_eq(push_range(&h, 1, 2), JOINERY_OK);
    ck_assert_str_eq(harness_take(&h), "");
    Barrier barrier = {.checkpoint_id = 1, .timestamp = 0};
    ck_assert_int_eq(h.op->vtable->snapshot(h.op, &barrier, NULL), JOINERY_OK);
    ck_assert_int_eq(operator_flush(h.op), JOINERY_OK);
    ck_assert_str_eq(harness_take(&h), "+I(1,10,0) +I(2,20,0) +I(2,21,1)");
    ck_assert_int_eq(push_range(&h, 3, 4), JOINERY_OK);
    ck_assert_int_eq(h.op->vtable->finish(h.op), JOINERY_OK);
    ck_assert_int_eq(operator_flush(h.op), JOINERY_OK);
    ck_assert_str_eq(harness_take(&h), "+I(3,NULL,NULL) +I(4,40,0)");
    harness_close(&h);
    /* a failed call fails the batch naming its arguments */
    harness_open(&h, make_async_correlate(&arena, 4, NULL), async_types, 3);
    ck_assert_int_eq(push_range(&h, -1, 0), JOINERY_ERROR_RUNTIME);
    ck_assert_str_eq(h.diag.message, "Function 'async_rows' failed on arguments (-1): negative "
                                     "argument");
    harness_close(&h);
    arena_destroy(&arena);
}
END_TEST

/* ---- aggregate functions ---- */

static DataType aggregate_types[3];  /* k STRING, v BIGINT, w INT */
static DataType aggregate_output[2]; /* k, weighted_avg BIGINT */

/* GroupAggregate(k; weighted_avg(v, w)) over an updating input. */
static Operator *make_weighted_avg(AggregateCall *call, GroupAggregateSpec *spec,
                                   uint32_t *group_key)
{
    aggregate_types[0] = type_make_varchar(10, true);
    aggregate_types[1] = type_make(TYPE_BIGINT, true);
    aggregate_types[2] = type_make(TYPE_INT, true);
    aggregate_output[0] = aggregate_types[0];
    aggregate_output[1] = type_make(TYPE_BIGINT, true);
    *group_key = 0;
    *call = (AggregateCall){.kind = AGGREGATE_USER_DEFINED,
                            .argument = 1,
                            .argument_type = aggregate_types[1],
                            .has_separator = true,
                            .separator = 2,
                            .separator_type = aggregate_types[2],
                            .result_type = aggregate_output[1],
                            .udf = load_ok("weighted_avg")};
    *spec = (GroupAggregateSpec){.input_field_count = 3,
                                 .input_types = aggregate_types,
                                 .group_keys = group_key,
                                 .group_key_count = 1,
                                 .calls = call,
                                 .call_count = 1,
                                 .input_is_update = true};
    Diag diag;
    diag_clear(&diag);
    Operator *op = group_aggregate_operator_create(spec, &diag);
    ck_assert_msg(op != NULL, "%s", diag.message);
    return op;
}

/* The accumulator bytes are the aggregate's state: a snapshot restored into a fresh operator
   (its own store) retracts from the same sum and weight. */
START_TEST(test_aggregate_snapshot_restore)
{
    AggregateCall call, copy_call;
    GroupAggregateSpec spec, copy_spec;
    uint32_t key, copy_key;
    Harness h, copy;
    harness_open(&h, make_weighted_avg(&call, &spec, &key), aggregate_output, 2);
    push_text(&h, 0, aggregate_types, 3, "+I a,10,1");
    push_text(&h, 0, aggregate_types, 3, "+I a,20,3");
    push_text(&h, 0, aggregate_types, 3, "+I b,NULL,2");
    ck_assert_str_eq(harness_take(&h), "+I(a,10) -U(a,10) +U(a,17) +I(b,NULL)");
    harness_fork(&h, &copy, make_weighted_avg(&copy_call, &copy_spec, &copy_key), aggregate_output,
                 2);
    Harness *both[2] = {&h, &copy};
    for (int i = 0; i < 2; i++) {
        push_text(both[i], 0, aggregate_types, 3, "-D a,20,3");
        push_text(both[i], 0, aggregate_types, 3, "+I a,40,1");
        push_text(both[i], 0, aggregate_types, 3, "-D b,NULL,2");
        ck_assert_str_eq(harness_take(both[i]), "-U(a,17) +U(a,10) -U(a,10) +U(a,25) -D(b,NULL)");
    }
    /* an error of the function fails the operator with its message, no crash */
    ck_assert_int_eq(push_text_status(&copy, 0, aggregate_types, 3, "+I a,1,-1"),
                     JOINERY_ERROR_RUNTIME);
    ck_assert_str_eq(copy.diag.message,
                     "Function 'weighted_avg' failed on arguments (1, -1): negative weight");
    harness_close(&h);
    harness_close(&copy);
}
END_TEST

/* A WindowAggregate keeps the function's bytes per (window, key) through the shared
   accumulator: a snapshot halfway, restored into a fresh operator (its own store), fires the
   window with both halves' rows (a's 10 s window: (10*1 + 20*3 + 40*1) / 5 = 22; 40 when the
   restored bytes are lost, 17 without the rows after the restore). */
START_TEST(test_window_aggregate_snapshot_restore)
{
    static DataType input[4]; /* k STRING, v BIGINT, w INT, ts TIMESTAMP(3) */
    static DataType output[4];
    input[0] = type_make_varchar(10, true);
    input[1] = type_make(TYPE_BIGINT, true);
    input[2] = type_make(TYPE_INT, true);
    input[3] = type_make_timestamp(TYPE_TIMESTAMP, 3, true);
    output[0] = input[0];
    output[1] = type_make(TYPE_BIGINT, true);
    output[2] = output[3] = type_make_timestamp(TYPE_TIMESTAMP, 3, false);
    static const uint32_t keys[1] = {0};
    static AggregateCall call;
    call = (AggregateCall){.kind = AGGREGATE_USER_DEFINED,
                           .argument = 1,
                           .argument_type = input[1],
                           .has_separator = true,
                           .separator = 2,
                           .separator_type = input[2],
                           .result_type = output[1],
                           .udf = load_ok("weighted_avg")};
    WindowAggregateOperatorSpec spec = {.input_field_count = 4,
                                        .input_types = input,
                                        .group_keys = keys,
                                        .group_key_count = 1,
                                        .calls = &call,
                                        .call_count = 1,
                                        .window = {.kind = WINDOW_TUMBLE, .size_millis = 10000},
                                        .time_field = 3};
    Diag diag;
    diag_clear(&diag);
    Harness h, restored;
    Operator *op = window_aggregate_operator_create(&spec, &diag);
    ck_assert_msg(op != NULL, "%s", diag.message);
    harness_open(&h, op, output, 4);
    push_text(&h, 0, input, 4, "+I a,10,1,1000");
    push_text(&h, 0, input, 4, "+I a,20,3,2000");
    push_text(&h, 0, input, 4, "+I b,7,2,3000");
    harness_fork(&h, &restored, window_aggregate_operator_create(&spec, &diag), output, 4);
    push_text(&restored, 0, input, 4, "+I a,40,1,4000");
    push_text(&restored, 0, input, 4, "+I b,NULL,5,5000"); /* skipped: a NULL argument */
    ck_assert_int_eq(operator_push_watermark(restored.op, 0, 0, INT64_MAX), JOINERY_OK);
    test_store_commit(restored.context.state_store);
    ck_assert_str_eq(harness_take(&restored), "+I(a,22,0,10000) +I(b,7,0,10000)");
    harness_close(&h);
    harness_close(&restored);
}
END_TEST

START_TEST(test_aggregate_descriptor_errors)
{
    expect_load_error(TEST_LIBRARY, "aggregate_no_value",
                      "an aggregate function needs init, accumulate and get_value");
    const UdfFunction *function = load_ok("count_nulls");
    ck_assert(function->aggregate);
    ck_assert(!function->table);
}
END_TEST

static Suite *udf_suite(void)
{
    Suite *suite = suite_create("udf");
    TCase *loader = tcase_create("loader");
    tcase_add_test(loader, test_load_errors);
    tcase_add_test(loader, test_load_twice_is_one_function);
    suite_add_tcase(suite, loader);
    TCase *calls = tcase_create("calls");
    tcase_add_test(calls, test_scalar_calls);
    tcase_add_test(calls, test_table_calls);
    suite_add_tcase(suite, calls);
    TCase *correlate = tcase_create("correlate");
    tcase_add_test(correlate, test_correlate_inner_and_retraction);
    tcase_add_test(correlate, test_correlate_left);
    tcase_add_test(correlate, test_correlate_function_error);
    suite_add_tcase(suite, correlate);
    TCase *abi2 = tcase_create("abi2");
    tcase_add_test(abi2, test_job_parameters);
    tcase_add_test(abi2, test_async_correlate_order);
    tcase_add_test(abi2, test_aggregate_snapshot_restore);
    tcase_add_test(abi2, test_window_aggregate_snapshot_restore);
    tcase_add_test(abi2, test_aggregate_descriptor_errors);
    suite_add_tcase(suite, abi2);
    TCase *session = tcase_create("session");
    tcase_add_test(session, test_session_errors);
    suite_add_tcase(suite, session);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(udf_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed ? 1 : 0;
}
