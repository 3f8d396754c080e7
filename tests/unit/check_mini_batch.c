/*
 * check_mini_batch.c - Check suite for mini-batch execution: the
 * MiniBatchAssigner (engine/exec/ops/op_mini_batch_assigner.c) in both
 * modes, and the GroupAggregate in mini-batch mode
 * (op_group_aggregate.c with spec.mini_batch_size, after Flink's
 * MiniBatchGroupAggFunction and its MiniBatchGroupAggFunctionTest /
 * MiniBatchIntervalInferTest expectations): batch ends at the size, a
 * watermark, a barrier and the end of input; one state lookup and at most
 * one change per key per batch; unchanged results and groups that come and
 * go within a batch emit nothing; and on a random updating stream the
 * materialized result equals the row-by-row operator's. The mini-batch
 * regular join (op_join.c with spec.mini_batch_size, Flink 1.19's
 * MiniBatchStreamingJoinOperator): a row inserted and retracted within a
 * batch never reaches the state nor the output, the right side's rows run
 * first (the left side's for a RIGHT join), and on random changelogs of both sides (every
 * join type) the materialized result equals the row-by-row join's.
 * Two phases (op_local_group_aggregate.c, then op_group_aggregate.c with
 * spec.merges_partials): one partial row per key and batch, negative for
 * retractions; local + global over a random updating stream materialize
 * what the row-by-row aggregate does.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/strbuf.h"
#include "engine/exec/ops/op_group_aggregate.h"
#include "engine/exec/ops/op_join.h"
#include "engine/exec/ops/op_local_group_aggregate.h"
#include "engine/exec/ops/op_mini_batch_assigner.h"
#include "tests/unit/operator_harness.h"

#define EXPECT(h, text) ck_assert_str_eq(harness_take(h), text)

static DataType bigint(void)
{
    return type_make(TYPE_BIGINT, true);
}

static DataType bigint_not_null(void)
{
    return type_make(TYPE_BIGINT, false);
}

/* ---- MiniBatchAssigner ---- */

static void open_assigner(Harness *h, bool rowtime, int64_t interval, const DataType *types)
{
    Diag diag;
    diag_clear(&diag);
    Operator *op = mini_batch_assigner_operator_create(rowtime, interval, &diag);
    ck_assert_msg(op != NULL, "%s", diag.message);
    harness_open(h, op, types, 1);
    h->collector.log_watermarks = true;
}

START_TEST(test_assigner_proctime)
{
    DataType types[1] = {bigint()};
    Harness h;
    fake_now = 10500;
    open_assigner(&h, false, 1000, types);
    push_text(&h, 0, types, 1, "+I 1");
    EXPECT(&h, "+I(1)"); /* the interval the job started in is the first batch */
    ck_assert_int_eq(operator_push_watermark(h.op, 0, 0, 10900), JOINERY_OK);
    EXPECT(&h, ""); /* upstream watermarks do not end batches in ProcTime mode */
    fake_now = 11200;
    push_text(&h, 0, types, 1, "+I 2");
    EXPECT(&h, "W(11000) +I(2)"); /* a new interval: its start, before its first row */
    push_text(&h, 0, types, 1, "+I 3");
    EXPECT(&h, "+I(3)");
    /* nothing arrives: the timer closes the batch on time */
    ck_assert_int_eq(operator_advance_processing_time(h.op, 12000), JOINERY_OK);
    EXPECT(&h, "W(12000)");
    ck_assert_int_eq(operator_advance_processing_time(h.op, 14500), JOINERY_OK);
    EXPECT(&h, "W(14000)"); /* one watermark for the intervals that passed */
    ck_assert_int_eq(operator_push_watermark(h.op, 0, 0, INT64_MAX), JOINERY_OK);
    EXPECT(&h, "W(9223372036854775807)"); /* the end of input passes */
    harness_close(&h);
}
END_TEST

START_TEST(test_assigner_rowtime)
{
    DataType types[1] = {bigint()};
    Harness h;
    fake_now = 0;
    open_assigner(&h, true, 1000, types);
    int64_t marks[] = {100, 998, 999, 1500, 1999, 2500, 5100};
    for (size_t i = 0; i < sizeof marks / sizeof marks[0]; i++)
        ck_assert_int_eq(operator_push_watermark(h.op, 0, 0, marks[i]), JOINERY_OK);
    /* forwarded only at the end of each interval of event time */
    EXPECT(&h, "W(999) W(1999) W(5100)");
    push_text(&h, 0, types, 1, "+I 7");
    ck_assert_int_eq(operator_push_watermark(h.op, 0, 0, 5999), JOINERY_OK);
    ck_assert_int_eq(operator_push_watermark(h.op, 0, 0, INT64_MAX), JOINERY_OK);
    EXPECT(&h, "+I(7) W(5999) W(9223372036854775807)");
    harness_close(&h);
}
END_TEST

START_TEST(test_assigner_rejects_zero_interval)
{
    Diag diag;
    diag_clear(&diag);
    ck_assert_ptr_null(mini_batch_assigner_operator_create(false, 0, &diag));
    ck_assert_str_eq(diag.message, "MiniBatch Latency must be greater than 0 ms.");
}
END_TEST

/* ---- mini-batch GroupAggregate: input (k BIGINT, v BIGINT), COUNT(*), SUM(v) by k ---- */

typedef struct BatchTest {
    Harness harness;
    DataType input[2];
    DataType output[3];
    uint32_t keys[1];
    AggregateCall calls[2];
    GroupAggregateSpec spec;
} BatchTest;

static void batch_open(BatchTest *t, int64_t size, bool update)
{
    memset(t, 0, sizeof *t);
    t->input[0] = bigint();
    t->input[1] = bigint();
    t->keys[0] = 0;
    t->calls[0] = (AggregateCall){.kind = AGGREGATE_COUNT_STAR,
                                  .argument_type = bigint_not_null(),
                                  .result_type = bigint_not_null()};
    t->calls[1] = (AggregateCall){
        .kind = AGGREGATE_SUM, .argument = 1, .argument_type = bigint(), .result_type = bigint()};
    t->spec = (GroupAggregateSpec){.input_field_count = 2,
                                   .input_types = t->input,
                                   .group_keys = t->keys,
                                   .group_key_count = 1,
                                   .calls = t->calls,
                                   .call_count = 2,
                                   .input_is_update = update,
                                   .mini_batch_size = size};
    t->output[0] = bigint();
    t->output[1] = bigint_not_null();
    t->output[2] = bigint();
    Diag diag;
    diag_clear(&diag);
    Operator *op = group_aggregate_operator_create(&t->spec, &diag);
    ck_assert_msg(op != NULL, "%s", diag.message);
    harness_open(&t->harness, op, t->output, 3);
}

static void batch_in(BatchTest *t, const char *text)
{
    push_text(&t->harness, 0, t->input, 2, text);
}

START_TEST(test_batch_folds_per_key)
{
    BatchTest t;
    batch_open(&t, 4, false);
    Harness *h = &t.harness;
    batch_in(&t, "+I 1,10");
    batch_in(&t, "+I 2,5");
    batch_in(&t, "+I 1,20");
    EXPECT(h, ""); /* buffered */
    batch_in(&t, "+I 1,30");
    /* full at 4 rows: one change per key, keys in the order they first came */
    EXPECT(h, "+I(1,3,60) +I(2,1,5)");
    uint64_t reads, writes;
    group_aggregate_state_accesses(h->op, &reads, &writes);
    ck_assert_uint_eq(reads, 2);
    ck_assert_uint_eq(writes, 2);
    batch_in(&t, "+I 2,1");
    batch_in(&t, "+I 2,2");
    ck_assert_int_eq(operator_push_watermark(h->op, 0, 0, 100), JOINERY_OK);
    EXPECT(h, "-U(2,1,5) +U(2,3,8)"); /* the watermark ended the batch */
    batch_in(&t, "+I 3,7");
    ck_assert_int_eq(operator_end_input(h->op, 0), JOINERY_OK);
    EXPECT(h, "+I(3,1,7)"); /* and the end of input */
    group_aggregate_state_accesses(h->op, &reads, &writes);
    ck_assert_uint_eq(reads, 4);
    harness_close(h);
}
END_TEST

START_TEST(test_batch_suppresses_unchanged_and_transient)
{
    BatchTest t;
    batch_open(&t, 100, true);
    Harness *h = &t.harness;
    batch_in(&t, "+I 1,10");
    batch_in(&t, "+I 2,10");
    ck_assert_int_eq(operator_push_watermark(h->op, 0, 0, 1), JOINERY_OK);
    EXPECT(h, "+I(1,1,10) +I(2,1,10)");
    /* key 1 updated back to what it was; key 3 comes and goes; key 4 retracted unseen */
    batch_in(&t, "-U 1,10");
    batch_in(&t, "+U 1,10");
    batch_in(&t, "+I 3,1");
    batch_in(&t, "-D 3,1");
    batch_in(&t, "-D 4,1");
    batch_in(&t, "-D 2,10");
    ck_assert_int_eq(operator_push_watermark(h->op, 0, 0, 2), JOINERY_OK);
    EXPECT(h, "-D(2,1,10)");
    ck_assert_uint_eq(h->op->metrics.skipped_rows, 1);
    /* a group emptied and refilled within a batch is one update */
    batch_in(&t, "-D 1,10");
    batch_in(&t, "+I 1,4");
    ck_assert_int_eq(operator_end_input(h->op, 0), JOINERY_OK);
    EXPECT(h, "-U(1,1,10) +U(1,1,4)");
    harness_close(h);
}
END_TEST

START_TEST(test_batch_flushed_at_snapshot)
{
    BatchTest t;
    batch_open(&t, 100, false);
    Harness *h = &t.harness;
    batch_in(&t, "+I 1,10");
    batch_in(&t, "+I 1,1");
    BatchTest restored;
    memset(&restored, 0, sizeof restored);
    restored.spec = t.spec;
    Diag diag;
    diag_clear(&diag);
    Operator *fresh = group_aggregate_operator_create(&t.spec, &diag);
    ck_assert_ptr_nonnull(fresh);
    harness_fork(h, &restored.harness, fresh, t.output, 3);
    ck_assert_int_eq(operator_flush(h->op), JOINERY_OK); /* as the barrier going out does */
    EXPECT(h, "+I(1,2,11)");                             /* folded before the barrier */
    push_text(&restored.harness, 0, t.input, 2, "+I 1,5");
    ck_assert_int_eq(operator_end_input(fresh, 0), JOINERY_OK);
    EXPECT(&restored.harness, "-U(1,2,11) +U(1,3,16)"); /* the restored state has the batch */
    harness_close(&restored.harness);
    harness_close(h);
}
END_TEST

/* ---- equivalence with the row-by-row operator ---- */

typedef struct Materialized {
    char **rows;
    int *counts;
    size_t count;
} Materialized;

/* Applies a collected changelog ("+I(1,2,3) -U(...)") to a multiset of row texts. */
static void materialize(Materialized *m, const char *log)
{
    char *copy = strdup(log);
    for (char *save = NULL, *token = strtok_r(copy, " ", &save); token;
         token = strtok_r(NULL, " ", &save)) {
        int delta = (token[0] == '+') ? 1 : -1;
        const char *row = token + 2;
        size_t i = 0;
        while (i < m->count && strcmp(m->rows[i], row) != 0)
            i++;
        if (i == m->count) {
            m->rows = realloc(m->rows, (m->count + 1) * sizeof *m->rows);
            m->counts = realloc(m->counts, (m->count + 1) * sizeof *m->counts);
            m->rows[i] = strdup(row);
            m->counts[i] = 0;
            m->count++;
        }
        m->counts[i] += delta;
        ck_assert_int_ge(m->counts[i], 0);
    }
    free(copy);
}

static int materialized_total(const Materialized *m)
{
    int total = 0;
    for (size_t i = 0; i < m->count; i++)
        total += m->counts[i];
    return total;
}

/* Both multisets hold the same rows the same number of times. */
static void materialized_assert_equal(const Materialized *a, const Materialized *b)
{
    ck_assert_int_eq(materialized_total(a), materialized_total(b));
    for (size_t i = 0; i < a->count; i++) {
        if (!a->counts[i])
            continue;
        size_t j = 0;
        while (j < b->count && strcmp(b->rows[j], a->rows[i]) != 0)
            j++;
        ck_assert_msg(j < b->count && b->counts[j] == a->counts[i], "row %s differs", a->rows[i]);
    }
}

static void materialized_free(Materialized *m)
{
    for (size_t i = 0; i < m->count; i++)
        free(m->rows[i]);
    free(m->rows);
    free(m->counts);
}

START_TEST(test_batch_equals_row_by_row)
{
    static const int64_t sizes[] = {1, 3, 64};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        BatchTest plain, batched;
        batch_open(&plain, 0, true);
        batch_open(&batched, sizes[s], true);
        Materialized a = {0}, b = {0};
        /* live rows per key, so retractions are of rows that exist (plus some that do not) */
        int64_t live[8][64];
        int live_count[8] = {0};
        unsigned seed = 12345u + (unsigned)s;
        uint64_t outputs_plain = 0, outputs_batched = 0;
        for (int step = 0; step < 2000; step++) {
            seed = seed * 1103515245u + 12345u;
            int key = (int)((seed >> 16) % 8);
            seed = seed * 1103515245u + 12345u;
            int64_t value = (int64_t)((seed >> 16) % 50);
            char text[64];
            if (live_count[key] > 0 && value % 3 == 0) {
                int victim = (int)(value % live_count[key]);
                snprintf(text, sizeof text, "-U %d,%lld", key, (long long)live[key][victim]);
                live[key][victim] = live[key][--live_count[key]];
            } else if (value == 49) {
                snprintf(text, sizeof text, "-D %d,999", key); /* never inserted */
            } else if (live_count[key] < 64) {
                snprintf(text, sizeof text, "+I %d,%lld", key, (long long)value);
                live[key][live_count[key]++] = value;
            } else {
                continue;
            }
            batch_in(&plain, text);
            batch_in(&batched, text);
            if (step % 97 == 0)
                ck_assert_int_eq(operator_push_watermark(batched.harness.op, 0, 0, step),
                                 JOINERY_OK);
            materialize(&a, harness_take(&plain.harness));
            materialize(&b, harness_take(&batched.harness));
        }
        ck_assert_int_eq(operator_end_input(plain.harness.op, 0), JOINERY_OK);
        ck_assert_int_eq(operator_end_input(batched.harness.op, 0), JOINERY_OK);
        outputs_plain = plain.harness.op->metrics.rows_out;
        outputs_batched = batched.harness.op->metrics.rows_out;
        materialize(&a, harness_take(&plain.harness));
        materialize(&b, harness_take(&batched.harness));
        materialized_assert_equal(&a, &b);
        materialized_assert_equal(&b, &a);
        if (sizes[s] == 1)
            ck_assert_uint_eq(outputs_batched, outputs_plain); /* batches of one row */
        else
            ck_assert_uint_lt(outputs_batched, outputs_plain);
        materialized_free(&a);
        materialized_free(&b);
        harness_close(&plain.harness);
        harness_close(&batched.harness);
    }
}
END_TEST

/* ---- two phases: LocalGroupAggregate, then GroupAggregate merging its partials ---- */

/* The local phase of batch_open's aggregate: output [k, row_count, NULL, 0, sum, count]. */
static void local_open(Harness *h, BatchTest *t, int64_t size)
{
    batch_open(t, 0, true); /* for its types and calls only */
    harness_close(&t->harness);
    static DataType partial[6];
    for (int f = 0; f < 6; f++)
        partial[f] = bigint();
    LocalGroupAggregateSpec spec = {.input_field_count = 2,
                                    .input_types = t->input,
                                    .group_keys = t->keys,
                                    .group_key_count = 1,
                                    .calls = t->calls,
                                    .call_count = 2,
                                    .mini_batch_size = size};
    Diag diag;
    diag_clear(&diag);
    Operator *op = local_group_aggregate_operator_create(&spec, &diag);
    ck_assert_msg(op != NULL, "%s", diag.message);
    harness_open(h, op, partial, 6);
}

START_TEST(test_local_folds_partials)
{
    BatchTest t;
    Harness h;
    local_open(&h, &t, 4);
    push_text(&h, 0, t.input, 2, "+I 1,10");
    push_text(&h, 0, t.input, 2, "+I 2,5");
    push_text(&h, 0, t.input, 2, "-U 1,10");
    EXPECT(&h, ""); /* buffered */
    push_text(&h, 0, t.input, 2, "+U 1,30");
    /* one +I per key: row count, COUNT(*)'s unused pair, the sum and its count */
    EXPECT(&h, "+I(1,1,NULL,0,30,1) +I(2,1,NULL,0,5,1)");
    /* a batch of retractions only: negative counts and sums, never dropped here */
    push_text(&h, 0, t.input, 2, "-D 2,5");
    push_text(&h, 0, t.input, 2, "+I 3,1");
    push_text(&h, 0, t.input, 2, "-D 3,1");
    ck_assert_int_eq(operator_push_watermark(h.op, 0, 0, 7), JOINERY_OK);
    EXPECT(&h, "+I(2,-1,NULL,0,-5,-1) +I(3,0,NULL,0,0,0)"); /* then the watermark */
    push_text(&h, 0, t.input, 2, "+I 4,8");
    ck_assert_int_eq(operator_end_input(h.op, 0), JOINERY_OK);
    EXPECT(&h, "+I(4,1,NULL,0,8,1)");
    harness_close(&h);
}
END_TEST

/* "+I(1,2,3) -U(...)" -> the rows as push_text writes them, one at a time. */
static void forward_log(const char *log, Harness *to, const DataType *types, uint32_t count)
{
    char *copy = strdup(log);
    for (char *save = NULL, *token = strtok_r(copy, " ", &save); token;
         token = strtok_r(NULL, " ", &save)) {
        char row[256];
        size_t length = strlen(token);
        ck_assert(length > 4 && length < sizeof row);
        snprintf(row, sizeof row, "%.2s %.*s", token, (int)(length - 4), token + 3);
        push_text(to, 0, types, count, row);
    }
    free(copy);
}

START_TEST(test_two_phase_equals_one_phase)
{
    static const int64_t sizes[] = {1, 3, 64};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        BatchTest plain, partials;
        Harness local;
        batch_open(&plain, 0, true);
        local_open(&local, &partials, sizes[s]);
        /* the global phase: keys first, each call's partial value at 2 + 2 * call */
        static DataType partial[6];
        for (int f = 0; f < 6; f++)
            partial[f] = bigint();
        static AggregateCall global_calls[2];
        global_calls[0] = plain.calls[0];
        global_calls[1] = plain.calls[1];
        global_calls[0].argument = 2;
        global_calls[1].argument = 4;
        GroupAggregateSpec spec = {.input_field_count = 6,
                                   .input_types = partial,
                                   .group_keys = plain.keys,
                                   .group_key_count = 1,
                                   .calls = global_calls,
                                   .call_count = 2,
                                   .mini_batch_size = sizes[s],
                                   .merges_partials = true};
        Diag diag;
        diag_clear(&diag);
        Operator *op = group_aggregate_operator_create(&spec, &diag);
        ck_assert_msg(op != NULL, "%s", diag.message);
        Harness global;
        harness_open(&global, op, plain.output, 3);
        Materialized a = {0}, b = {0};
        int64_t live[8][64];
        int live_count[8] = {0};
        unsigned seed = 777u + (unsigned)s;
        for (int step = 0; step < 2000; step++) {
            seed = seed * 1103515245u + 12345u;
            int key = (int)((seed >> 16) % 8);
            seed = seed * 1103515245u + 12345u;
            int64_t value = (int64_t)((seed >> 16) % 50);
            char text[64];
            if (live_count[key] > 0 && value % 3 == 0) {
                int victim = (int)(value % live_count[key]);
                snprintf(text, sizeof text, "-U %d,%lld", key, (long long)live[key][victim]);
                live[key][victim] = live[key][--live_count[key]];
            } else if (live_count[key] < 64) {
                snprintf(text, sizeof text, "+I %d,%lld", key, (long long)value);
                live[key][live_count[key]++] = value;
            } else {
                continue;
            }
            batch_in(&plain, text);
            push_text(&local, 0, plain.input, 2, text);
            forward_log(harness_take(&local), &global, partial, 6);
            if (step % 97 == 0) {
                ck_assert_int_eq(operator_push_watermark(local.op, 0, 0, step), JOINERY_OK);
                forward_log(harness_take(&local), &global, partial, 6);
                ck_assert_int_eq(operator_push_watermark(global.op, 0, 0, step), JOINERY_OK);
            }
            materialize(&a, harness_take(&plain.harness));
            materialize(&b, harness_take(&global));
        }
        ck_assert_int_eq(operator_end_input(plain.harness.op, 0), JOINERY_OK);
        ck_assert_int_eq(operator_end_input(local.op, 0), JOINERY_OK);
        forward_log(harness_take(&local), &global, partial, 6);
        ck_assert_int_eq(operator_end_input(global.op, 0), JOINERY_OK);
        materialize(&a, harness_take(&plain.harness));
        materialize(&b, harness_take(&global));
        materialized_assert_equal(&a, &b);
        materialized_assert_equal(&b, &a);
        ck_assert_int_gt(materialized_total(&a), 0);
        materialized_free(&a);
        materialized_free(&b);
        harness_close(&plain.harness);
        harness_close(&local);
        harness_close(&global);
    }
}
END_TEST

/* ---- mini-batch join: L(k BIGINT, v BIGINT) JOIN R(k BIGINT, w BIGINT) ON k ---- */

static DataType join_types[4];
static const uint32_t join_keys[1] = {0};

static JoinOperatorSpec join_spec(JoinType type, int64_t size)
{
    for (int i = 0; i < 4; i++)
        join_types[i] = bigint();
    JoinOperatorSpec spec;
    memset(&spec, 0, sizeof spec);
    spec.join_type = type;
    spec.left_field_count = 2;
    spec.right_field_count = 2;
    spec.left_types = join_types;
    spec.right_types = join_types;
    spec.left_keys = join_keys;
    spec.right_keys = join_keys;
    spec.key_count = 1;
    spec.mini_batch_size = size;
    return spec;
}

static void open_join(Harness *h, JoinType type, int64_t size)
{
    JoinOperatorSpec spec = join_spec(type, size);
    Diag diag;
    diag_clear(&diag);
    Operator *op = join_operator_create(&spec, &diag);
    ck_assert_msg(op != NULL, "%s", diag.message);
    harness_open(h, op, join_types, 4);
}

START_TEST(test_join_folds_within_batch)
{
    Harness h;
    open_join(&h, JOIN_TYPE_LEFT, 100);
    push_text(&h, 1, join_types, 2, "+I 1,10");
    push_text(&h, 0, join_types, 2, "+I 1,5");
    push_text(&h, 0, join_types, 2, "+I 2,6");
    EXPECT(&h, ""); /* buffered */
    ck_assert_int_eq(operator_push_watermark(h.op, 0, 0, 1), JOINERY_OK);
    ck_assert_int_eq(operator_push_watermark(h.op, 1, 1, 1), JOINERY_OK);
    /* the right row first (Flink's order for a LEFT join): key 1 matches at once, no
       padded row to take back */
    EXPECT(&h, "+I(1,5,1,10) +I(2,6,NULL,NULL)");
    uint64_t accesses, folded;
    join_operator_mini_batch_counts(h.op, &accesses, &folded);
    ck_assert_uint_eq(accesses, 6); /* 3 rows, each its own side and the other side */
    /* key 2's row replaced by itself plus a row that comes and goes: only the net change */
    push_text(&h, 0, join_types, 2, "+I 3,7");
    push_text(&h, 0, join_types, 2, "-D 3,7");
    push_text(&h, 1, join_types, 2, "+I 2,20");
    push_text(&h, 1, join_types, 2, "-D 2,20");
    push_text(&h, 1, join_types, 2, "+I 2,21");
    ck_assert_int_eq(operator_end_input(h.op, 0), JOINERY_OK);
    ck_assert_int_eq(operator_end_input(h.op, 1), JOINERY_OK);
    EXPECT(&h, "-D(2,6,NULL,NULL) +I(2,6,2,21)");
    join_operator_mini_batch_counts(h.op, &accesses, &folded);
    ck_assert_uint_eq(folded, 4);
    ck_assert_uint_eq(accesses, 8); /* only +I 2,21 reached the state */
    harness_close(&h);
}
END_TEST

/* Random changelogs of both sides: the batched join's materialized output equals the
   row-by-row join's, for every join type and batch size. */
START_TEST(test_join_equals_row_by_row)
{
    static const JoinType types[] = {JOIN_TYPE_INNER, JOIN_TYPE_LEFT, JOIN_TYPE_RIGHT,
                                     JOIN_TYPE_FULL};
    static const int64_t sizes[] = {1, 7, 1000};
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            Harness plain, batched;
            open_join(&plain, types[t], 0);
            open_join(&batched, types[t], sizes[s]);
            Materialized a = {0}, b = {0};
            int64_t live[2][4][32];
            int live_count[2][4] = {{0}};
            unsigned seed = 777u + (unsigned)(t * 10 + s);
            for (int step = 0; step < 800; step++) {
                seed = seed * 1103515245u + 12345u;
                uint32_t side = (seed >> 16) & 1;
                seed = seed * 1103515245u + 12345u;
                int key = (int)((seed >> 16) % 4);
                seed = seed * 1103515245u + 12345u;
                int64_t value = (int64_t)((seed >> 16) % 6);
                char text[64];
                int *count = &live_count[side][key];
                if (*count > 0 && value < 3) {
                    int victim = (int)(value % *count);
                    snprintf(text, sizeof text, "%s %d,%lld", value == 0 ? "-D" : "-U", key,
                             (long long)live[side][key][victim]);
                    live[side][key][victim] = live[side][key][--*count];
                } else if (*count < 32) {
                    snprintf(text, sizeof text, "%s %d,%lld", value == 5 ? "+U" : "+I", key,
                             (long long)value);
                    live[side][key][(*count)++] = value;
                } else {
                    continue;
                }
                push_text(&plain, side, join_types, 2, text);
                push_text(&batched, side, join_types, 2, text);
                if (step % 101 == 0) {
                    ck_assert_int_eq(operator_push_watermark(batched.op, 0, 0, step), JOINERY_OK);
                    ck_assert_int_eq(operator_push_watermark(batched.op, 1, 1, step), JOINERY_OK);
                }
                materialize(&a, harness_take(&plain));
                materialize(&b, harness_take(&batched));
            }
            for (uint32_t input = 0; input < 2; input++) {
                ck_assert_int_eq(operator_end_input(plain.op, input), JOINERY_OK);
                ck_assert_int_eq(operator_end_input(batched.op, input), JOINERY_OK);
            }
            materialize(&a, harness_take(&plain));
            materialize(&b, harness_take(&batched));
            materialized_assert_equal(&a, &b);
            materialized_assert_equal(&b, &a);
            materialized_free(&a);
            materialized_free(&b);
            harness_close(&plain);
            harness_close(&batched);
        }
    }
}
END_TEST

static Suite *mini_batch_suite(void)
{
    Suite *suite = suite_create("mini_batch");
    TCase *core = tcase_create("core");
    tcase_add_test(core, test_assigner_proctime);
    tcase_add_test(core, test_assigner_rowtime);
    tcase_add_test(core, test_assigner_rejects_zero_interval);
    tcase_add_test(core, test_batch_folds_per_key);
    tcase_add_test(core, test_batch_suppresses_unchanged_and_transient);
    tcase_add_test(core, test_batch_flushed_at_snapshot);
    tcase_add_test(core, test_batch_equals_row_by_row);
    tcase_add_test(core, test_local_folds_partials);
    tcase_add_test(core, test_two_phase_equals_one_phase);
    tcase_add_test(core, test_join_folds_within_batch);
    tcase_add_test(core, test_join_equals_row_by_row);
    tcase_set_timeout(core, 60); /* the random runs, under sanitizers and on LMDB */
    suite_add_tcase(suite, core);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(mini_batch_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
