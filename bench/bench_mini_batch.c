/*
 * bench_mini_batch.c - mini-batch on and off, measured: state accesses per
 * input row and output rows per input row of the operators, driving them
 * directly (no planner, no sources), with the materialized outputs compared.
 *
 * Case "aggregate": COUNT(*), SUM(v) GROUP BY k over an updating stream:
 * --rows inserts spread over --keys keys, then --updates updates (-U old,
 * +U new value of a random live row). Batch ends: the batch size only (as
 * with a long allow-latency), and the end of input.
 *
 * Case "cascade" (FLIP-415's example): --joins cascaded LEFT joins, each
 * join's right input the join before it: J1 = T1 LEFT JOIN T0, J2 = T2
 * LEFT JOIN J1, ..., all on one key, one row per table; after loading, one
 * update (-U/+U) of T0's row. Without mini-batch every join doubles the
 * records (a right-side change retracts the joined row, emits the padded
 * one, takes that back and emits the new join); with mini-batch each join
 * folds the padded row its input emitted and took back in the same batch.
 * Batch ends: a watermark after the load and one after the update.
 *
 * State accesses: the aggregate's accumulator lookups and writes
 * (group_aggregate_state_accesses), the joins' key lookups and inserts on
 * their two states (join_operator_mini_batch_counts), summed. Output
 * equality: each side's materialized output summarized by the row count and
 * an order-independent sum of content hashes (+ for +I/+U, - for -U/-D).
 * Exit status: 0, 1 when outputs differ or an operator failed, 2 on bad usage.
 *
 * Case "multi-join": T0 LEFT JOIN T1 LEFT JOIN T2 on k as one MultiJoin
 * (joinery's mini-batch MultiJoin against row by row): --keys inserts into
 * each input, then --updates updates of T1 / T2 rows; state accesses:
 * one lookup and one write per row that reaches the state.
 *
 * Case "two-phase" (--phases 2, alone): COUNT(*), SUM(v) GROUP BY k over
 * --rows inserts, --hot percent of them on one key: one mini-batch
 * GroupAggregate against LocalGroupAggregate -> GlobalGroupAggregate at each
 * size: the keyed state's accesses, the rows entering the exchange and the
 * output changes per input row, and their two/one ratios; the final rows
 * must be equal.
 *
 * Usage: bench_mini_batch [--rows R] [--keys K] [--updates U] [--size S[,S...]]
 *                         [--joins N] [--hot PERCENT] [--phases 2]
 */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/base/row.h"
#include "engine/exec/operator.h"
#include "engine/exec/ops/op_group_aggregate.h"
#include "engine/exec/ops/op_join.h"
#include "engine/exec/ops/op_local_group_aggregate.h"
#include "engine/exec/ops/op_multi_join.h"
#include "engine/state/state.h"

enum { BENCH_MAX_SIZES = 8, BENCH_MAX_JOINS = 20, BENCH_BATCH_ROWS = 256 };

typedef struct BenchOptions {
    uint32_t rows, keys, updates, joins;
    uint32_t hot_percent; /* two-phase case: the share of rows on the hot key */
    uint32_t phases_only; /* --phases 2: only the two-phase case */
    int64_t sizes[BENCH_MAX_SIZES];
    uint32_t size_count;
} BenchOptions;

/* ---- a sink that summarizes the materialized output ---- */

typedef struct SummarySink {
    Operator base;
    int64_t row_count;
    uint64_t hash_sum;
    uint64_t changes_seen;
} SummarySink;

static int summary_sink_process(Operator *self, uint32_t input, const RowBatch *batch)
{
    (void)input;
    SummarySink *sink = (SummarySink *)self;
    for (uint32_t i = 0; i < batch->count; i++) {
        const Row *row = batch->rows[i];
        bool accumulate = row_kind_is_accumulate(row_kind(row));
        sink->row_count += accumulate ? 1 : -1;
        sink->hash_sum += accumulate ? row_content_hash(row) : -row_content_hash(row);
    }
    sink->changes_seen += batch->count;
    return JOINERY_OK;
}

static const OperatorVtable SUMMARY_SINK_VTABLE = {.process = summary_sink_process};

typedef struct BenchResult {
    uint64_t input_rows;
    uint64_t state_accesses;
    uint64_t output_changes; /* of the last operator */
    int64_t output_rows;     /* materialized */
    uint64_t output_hash;
    double cpu_seconds;
} BenchResult;

static double bench_cpu_seconds(void)
{
    struct timespec now;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

static uint64_t bench_random_state = 0x9e3779b97f4a7c15ull;

static uint64_t bench_random(void)
{
    uint64_t x = bench_random_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return bench_random_state = x;
}

/* Pushes one row (k, v) of `kind` into input `input` of op. */
static int bench_push(Operator *op, uint32_t input, RowBuilder *builder, RowKind kind, int64_t k,
                      int64_t v)
{
    row_builder_begin(builder, 2, kind);
    row_builder_set_int64(builder, 0, k);
    row_builder_set_int64(builder, 1, v);
    Row *row = (Row *)row_builder_finish(builder);
    if (!row)
        return JOINERY_ERROR_NO_MEMORY;
    RowBatch batch = {.rows = &row, .count = 1, .capacity = 1};
    return operator_push(op, input, &batch);
}

static const DataType BIGINT_NULLABLE = {.id = TYPE_BIGINT, .nullable = true};
static const DataType BIGINT_NOT_NULL = {.id = TYPE_BIGINT, .nullable = false};

/* ---- case aggregate ---- */

static bool bench_aggregate(const BenchOptions *options, int64_t size, StateStore *store,
                            BenchResult *result)
{
    Diag diag;
    diag_clear(&diag);
    static DataType types[2];
    types[0] = BIGINT_NULLABLE;
    types[1] = BIGINT_NULLABLE;
    static const uint32_t keys[1] = {0};
    AggregateCall calls[2] = {
        {.kind = AGGREGATE_COUNT_STAR,
         .argument_type = BIGINT_NOT_NULL,
         .result_type = BIGINT_NOT_NULL},
        {.kind = AGGREGATE_SUM,
         .argument = 1,
         .argument_type = BIGINT_NULLABLE,
         .result_type = BIGINT_NULLABLE},
    };
    GroupAggregateSpec spec = {.input_field_count = 2,
                               .input_types = types,
                               .group_keys = keys,
                               .group_key_count = 1,
                               .calls = calls,
                               .call_count = 2,
                               .input_is_update = true,
                               .mini_batch_size = size};
    ExecContext context = {.diag = &diag, .parallelism = 1, .state_store = store};
    Operator *agg = group_aggregate_operator_create(&spec, &diag);
    SummarySink sink;
    memset(&sink, 0, sizeof sink);
    operator_init(&sink.base, &SUMMARY_SINK_VTABLE, "Sink", 1, &sink);
    if (!agg || operator_open(&sink.base, &context) != JOINERY_OK) {
        fprintf(stderr, "bench_mini_batch: %s\n", diag.message);
        return false;
    }
    operator_connect(agg, &sink.base, 0);
    int64_t *values = calloc(options->rows, sizeof *values);
    RowBuilder builder;
    row_builder_init(&builder);
    bool ok = values && operator_open(agg, &context) == JOINERY_OK;
    bench_random_state = 0x9e3779b97f4a7c15ull;
    double start = bench_cpu_seconds();
    for (uint32_t i = 0; ok && i < options->rows; i++) {
        values[i] = (int64_t)(bench_random() % 1000);
        ok = bench_push(agg, 0, &builder, ROW_KIND_INSERT, i % options->keys, values[i]) ==
             JOINERY_OK;
        if (ok && i % 4096 == 0)
            ok = state_store_commit(store, &diag) == JOINERY_OK;
    }
    for (uint32_t u = 0; ok && u < options->updates; u++) {
        uint32_t i = (uint32_t)(bench_random() % options->rows);
        int64_t fresh = (int64_t)(bench_random() % 1000);
        ok = bench_push(agg, 0, &builder, ROW_KIND_UPDATE_BEFORE, i % options->keys, values[i]) ==
                 JOINERY_OK &&
             bench_push(agg, 0, &builder, ROW_KIND_UPDATE_AFTER, i % options->keys, fresh) ==
                 JOINERY_OK;
        values[i] = fresh;
        if (ok && u % 4096 == 0)
            ok = state_store_commit(store, &diag) == JOINERY_OK;
    }
    ok = ok && operator_end_input(agg, 0) == JOINERY_OK;
    result->cpu_seconds = bench_cpu_seconds() - start;
    if (!ok)
        fprintf(stderr, "bench_mini_batch: %s\n", diag.message[0] ? diag.message : "failed");
    uint64_t reads = 0, writes = 0;
    if (agg)
        group_aggregate_state_accesses(agg, &reads, &writes);
    result->input_rows = (uint64_t)options->rows + 2ull * options->updates;
    result->state_accesses = reads + writes;
    result->output_changes = sink.changes_seen;
    result->output_rows = sink.row_count;
    result->output_hash = sink.hash_sum;
    row_builder_free(&builder);
    free(values);
    if (agg)
        operator_close(agg);
    operator_close(&sink.base);
    return ok;
}

/* ---- case two-phase: one GroupAggregate, or LocalGroupAggregate -> GlobalGroupAggregate ---- */

/* Counts the rows that would cross the exchange, passing them on. */
typedef struct ExchangeCounter {
    Operator base;
    uint64_t rows;
} ExchangeCounter;

static int exchange_counter_process(Operator *self, uint32_t input, const RowBatch *batch)
{
    (void)input;
    ExchangeCounter *counter = (ExchangeCounter *)self;
    counter->rows += batch->count;
    for (uint32_t i = 0; i < batch->count; i++) {
        int status = operator_emit(self, batch->rows[i], row_kind(batch->rows[i]));
        if (status != JOINERY_OK)
            return status;
    }
    return JOINERY_OK;
}

static const OperatorVtable EXCHANGE_COUNTER_VTABLE = {.process = exchange_counter_process};

/*
 * COUNT(*), SUM(v) GROUP BY k over --rows inserts whose key is the hot key 0
 * for --hot percent of them and uniform over --keys keys otherwise (a Nexmark
 * bid stream's hot auctions). two_phase false: Exchange -> GroupAggregate
 * (mini-batch `size`); true: LocalGroupAggregate -> Exchange ->
 * GlobalGroupAggregate (both mini-batch `size`). The state accesses are the
 * keyed aggregate's; exchanged rows those entering the exchange.
 */
static bool bench_phases(const BenchOptions *options, int64_t size, bool two_phase,
                         StateStore *store, BenchResult *result, uint64_t *exchanged)
{
    Diag diag;
    diag_clear(&diag);
    static DataType types[2];
    types[0] = BIGINT_NULLABLE;
    types[1] = BIGINT_NULLABLE;
    static DataType partial_types[6];
    for (int f = 0; f < 6; f++)
        partial_types[f] = BIGINT_NULLABLE;
    static const uint32_t keys[1] = {0};
    AggregateCall calls[2] = {
        {.kind = AGGREGATE_COUNT_STAR,
         .argument_type = BIGINT_NOT_NULL,
         .result_type = BIGINT_NOT_NULL},
        {.kind = AGGREGATE_SUM,
         .argument = 1,
         .argument_type = BIGINT_NULLABLE,
         .result_type = BIGINT_NULLABLE},
    };
    /* the global phase reads each call's partial value at key + 1 + 2 * call */
    AggregateCall global_calls[2] = {calls[0], calls[1]};
    global_calls[0].argument = 2;
    global_calls[1].argument = 4;
    LocalGroupAggregateSpec local_spec = {.input_field_count = 2,
                                          .input_types = types,
                                          .group_keys = keys,
                                          .group_key_count = 1,
                                          .calls = calls,
                                          .call_count = 2,
                                          .mini_batch_size = size};
    GroupAggregateSpec spec = {.input_field_count = two_phase ? 6 : 2,
                               .input_types = two_phase ? partial_types : types,
                               .group_keys = keys,
                               .group_key_count = 1,
                               .calls = two_phase ? global_calls : calls,
                               .call_count = 2,
                               .mini_batch_size = size,
                               .merges_partials = two_phase};
    ExecContext context = {.diag = &diag, .parallelism = 1, .state_store = store};
    Operator *local = two_phase ? local_group_aggregate_operator_create(&local_spec, &diag) : NULL;
    Operator *agg = group_aggregate_operator_create(&spec, &diag);
    ExchangeCounter exchange;
    memset(&exchange, 0, sizeof exchange);
    operator_init(&exchange.base, &EXCHANGE_COUNTER_VTABLE, "Exchange", 1, &exchange);
    SummarySink sink;
    memset(&sink, 0, sizeof sink);
    operator_init(&sink.base, &SUMMARY_SINK_VTABLE, "Sink", 1, &sink);
    bool ok = agg && (local || !two_phase) && operator_open(&sink.base, &context) == JOINERY_OK &&
              operator_open(&exchange.base, &context) == JOINERY_OK &&
              operator_open(agg, &context) == JOINERY_OK &&
              (!local || operator_open(local, &context) == JOINERY_OK);
    if (!ok) {
        fprintf(stderr, "bench_mini_batch: %s\n", diag.message);
        if (agg)
            operator_close(agg);
        if (local)
            operator_close(local);
        return false;
    }
    if (local)
        operator_connect(local, &exchange.base, 0);
    operator_connect(&exchange.base, agg, 0);
    operator_connect(agg, &sink.base, 0);
    Operator *first = local ? local : &exchange.base;
    RowBuilder builder;
    row_builder_init(&builder);
    bench_random_state = 0x9e3779b97f4a7c15ull;
    double start = bench_cpu_seconds();
    for (uint32_t i = 0; ok && i < options->rows; i++) {
        bool hot = bench_random() % 100 < options->hot_percent;
        int64_t key = hot ? 0 : (int64_t)(1 + bench_random() % options->keys);
        ok = bench_push(first, 0, &builder, ROW_KIND_INSERT, key,
                        (int64_t)(bench_random() % 1000)) == JOINERY_OK;
        if (ok && i % 4096 == 0)
            ok = state_store_commit(store, &diag) == JOINERY_OK;
    }
    ok = ok && operator_end_input(first, 0) == JOINERY_OK;
    result->cpu_seconds = bench_cpu_seconds() - start;
    if (!ok)
        fprintf(stderr, "bench_mini_batch: %s\n", diag.message[0] ? diag.message : "failed");
    uint64_t reads = 0, writes = 0;
    group_aggregate_state_accesses(agg, &reads, &writes);
    result->input_rows = options->rows;
    result->state_accesses = reads + writes;
    result->output_changes = sink.changes_seen;
    result->output_rows = sink.row_count;
    result->output_hash = sink.hash_sum;
    *exchanged = exchange.rows;
    row_builder_free(&builder);
    if (local)
        operator_close(local);
    operator_close(agg);
    operator_close(&exchange.base);
    operator_close(&sink.base);
    return ok;
}

/* One phase and two phases at each size, side by side, with the ratios. */
static int bench_run_phases(const BenchOptions *options)
{
    printf("two-phase: COUNT(*), SUM(v) GROUP BY k, %u inserts, %u%% on one hot key, the rest "
           "over %u keys\n",
           options->rows, options->hot_percent, options->keys);
    printf("  %-12s %-8s %14s %14s %14s %10s\n", "mini-batch", "phases", "state acc/row",
           "exchanged/row", "output/row", "cpu s");
    int failed = 0;
    for (uint32_t s = 0; s < options->size_count; s++) {
        BenchResult results[2];
        uint64_t exchanged[2] = {0, 0};
        bool ok[2];
        for (int phases = 0; phases < 2; phases++) {
            Diag diag;
            diag_clear(&diag);
            StateStoreConfig config = {STATE_BACKEND_HASHMAP, NULL, NULL};
            StateStore *store = NULL;
            if (state_store_open(&config, &store, &diag) != JOINERY_OK) {
                fprintf(stderr, "bench_mini_batch: %s\n", diag.message);
                return 1;
            }
            memset(&results[phases], 0, sizeof results[phases]);
            ok[phases] = bench_phases(options, options->sizes[s], phases == 1, store,
                                      &results[phases], &exchanged[phases]);
            state_store_close(store);
            const BenchResult *r = &results[phases];
            printf("  size %-7lld %-8s %14.4f %14.4f %14.4f %10.3f%s\n",
                   (long long)options->sizes[s], phases ? "two" : "one",
                   (double)r->state_accesses / (double)r->input_rows,
                   (double)exchanged[phases] / (double)r->input_rows,
                   (double)r->output_changes / (double)r->input_rows, r->cpu_seconds,
                   ok[phases] ? "" : "  FAILED");
        }
        bool same = results[0].output_rows == results[1].output_rows &&
                    results[0].output_hash == results[1].output_hash;
        printf("  size %-7lld two/one: state accesses %.3f, exchanged %.3f, output %.3f; final "
               "rows %s\n",
               (long long)options->sizes[s],
               (double)results[1].state_accesses / (double)results[0].state_accesses,
               (double)exchanged[1] / (double)exchanged[0],
               (double)results[1].output_changes / (double)results[0].output_changes,
               same ? "equal" : "DIFFER");
        if (!ok[0] || !ok[1] || !same)
            failed = 1;
    }
    return failed;
}

/* ---- case cascade ---- */

typedef struct Cascade {
    Operator *joins[BENCH_MAX_JOINS];
    DataType *types[BENCH_MAX_JOINS]; /* right input types of each join */
    uint32_t count;
    SummarySink sink;
} Cascade;

static const uint32_t CASCADE_KEYS[1] = {0};

/* Pushes watermark `mark` into every input the bench feeds (each join's left, J1's right). */
static int cascade_watermark(Cascade *cascade, int64_t mark)
{
    int status = operator_push_watermark(cascade->joins[0], 1, 1, mark);
    for (uint32_t j = 0; status == JOINERY_OK && j < cascade->count; j++)
        status = operator_push_watermark(cascade->joins[j], 0, 0, mark);
    return status;
}

static bool bench_cascade(const BenchOptions *options, int64_t size, StateStore *store,
                          BenchResult *result)
{
    Diag diag;
    diag_clear(&diag);
    ExecContext context = {.diag = &diag, .parallelism = 1, .state_store = store};
    Cascade cascade;
    memset(&cascade, 0, sizeof cascade);
    cascade.count = options->joins;
    static DataType left_types[2] = {{.id = TYPE_BIGINT, .nullable = true},
                                     {.id = TYPE_BIGINT, .nullable = true}};
    bool ok = true;
    for (uint32_t j = 0; ok && j < cascade.count; j++) {
        uint32_t right_fields = 2 + 2 * j; /* J1's right is T0 (2 fields), Jn's is J(n-1) */
        cascade.types[j] = calloc(right_fields, sizeof(DataType));
        if (!cascade.types[j]) {
            ok = false;
            break;
        }
        for (uint32_t f = 0; f < right_fields; f++)
            cascade.types[j][f] = BIGINT_NULLABLE;
        JoinOperatorSpec spec = {.join_type = JOIN_TYPE_LEFT,
                                 .left_field_count = 2,
                                 .right_field_count = right_fields,
                                 .left_types = left_types,
                                 .right_types = cascade.types[j],
                                 .left_keys = CASCADE_KEYS,
                                 .right_keys = CASCADE_KEYS,
                                 .key_count = 1,
                                 .mini_batch_size = size};
        cascade.joins[j] = join_operator_create(&spec, &diag);
        ok = cascade.joins[j] != NULL;
    }
    operator_init(&cascade.sink.base, &SUMMARY_SINK_VTABLE, "Sink", 1, &cascade.sink);
    for (uint32_t j = 0; ok && j < cascade.count; j++) {
        if (j + 1 < cascade.count)
            operator_connect(cascade.joins[j], cascade.joins[j + 1], 1);
        else
            operator_connect(cascade.joins[j], &cascade.sink.base, 0);
    }
    ok = ok && operator_open(&cascade.sink.base, &context) == JOINERY_OK;
    for (uint32_t j = 0; ok && j < cascade.count; j++)
        ok = operator_open(cascade.joins[j], &context) == JOINERY_OK;
    RowBuilder builder;
    row_builder_init(&builder);
    /* load: T0's row into J1's right input, Tn's row into Jn's left input */
    ok = ok && bench_push(cascade.joins[0], 1, &builder, ROW_KIND_INSERT, 1, 0) == JOINERY_OK;
    for (uint32_t j = 0; ok && j < cascade.count; j++)
        ok = bench_push(cascade.joins[j], 0, &builder, ROW_KIND_INSERT, 1, (int64_t)j + 1) ==
             JOINERY_OK;
    ok = ok && cascade_watermark(&cascade, 1) == JOINERY_OK;
    uint64_t changes_after_load = cascade.sink.changes_seen;
    uint64_t accesses_after_load = 0;
    for (uint32_t j = 0; ok && j < cascade.count; j++) {
        uint64_t accesses, folded;
        join_operator_mini_batch_counts(cascade.joins[j], &accesses, &folded);
        accesses_after_load += accesses;
    }
    /* the update, then the end of the batch */
    double start = bench_cpu_seconds();
    ok = ok &&
         bench_push(cascade.joins[0], 1, &builder, ROW_KIND_UPDATE_BEFORE, 1, 0) == JOINERY_OK &&
         bench_push(cascade.joins[0], 1, &builder, ROW_KIND_UPDATE_AFTER, 1, 100) == JOINERY_OK &&
         cascade_watermark(&cascade, 2) == JOINERY_OK;
    result->cpu_seconds = bench_cpu_seconds() - start;
    if (!ok)
        fprintf(stderr, "bench_mini_batch: %s\n", diag.message[0] ? diag.message : "failed");
    uint64_t accesses_total = 0;
    for (uint32_t j = 0; j < cascade.count; j++) {
        uint64_t accesses = 0, folded = 0;
        if (cascade.joins[j])
            join_operator_mini_batch_counts(cascade.joins[j], &accesses, &folded);
        accesses_total += accesses;
    }
    result->input_rows = 2;
    result->state_accesses = accesses_total - accesses_after_load;
    result->output_changes = cascade.sink.changes_seen - changes_after_load;
    result->output_rows = cascade.sink.row_count;
    result->output_hash = cascade.sink.hash_sum;
    row_builder_free(&builder);
    for (uint32_t j = 0; j < cascade.count; j++) {
        if (cascade.joins[j])
            operator_close(cascade.joins[j]);
        free(cascade.types[j]);
    }
    operator_close(&cascade.sink.base);
    return ok;
}

/* ---- case multi-join ---- */

enum { MULTI_JOIN_BENCH_INPUTS = 3 };

/*
 * T0 LEFT JOIN T1 LEFT JOIN T2 on k as one MultiJoin (op_multi_join.h's
 * mini-batch mode against row by row): --rows inserts spread over the three
 * inputs and --keys keys, then --updates updates (-U old, +U new value) of
 * random live rows of T1 and T2. State accesses: a row that reaches the
 * state looks its key up once and writes once (the fold's cancelled pairs
 * never do).
 */
static bool bench_multi_join_case(const BenchOptions *options, int64_t size, StateStore *store,
                                  BenchResult *result)
{
    Diag diag;
    diag_clear(&diag);
    ExecContext context = {.diag = &diag, .parallelism = 1, .state_store = store};
    static const DataType types[2] = {{.id = TYPE_BIGINT, .nullable = true},
                                      {.id = TYPE_BIGINT, .nullable = true}};
    static const uint32_t key_fields[1] = {0};
    static const JoinType join_types[MULTI_JOIN_BENCH_INPUTS] = {JOIN_TYPE_INNER, JOIN_TYPE_LEFT,
                                                                 JOIN_TYPE_LEFT};
    MultiJoinInputSpec inputs[MULTI_JOIN_BENCH_INPUTS];
    for (uint32_t i = 0; i < MULTI_JOIN_BENCH_INPUTS; i++)
        inputs[i] =
            (MultiJoinInputSpec){.field_count = 2, .types = types, .common_key_fields = key_fields};
    MultiJoinSpec spec = {.input_count = MULTI_JOIN_BENCH_INPUTS,
                          .inputs = inputs,
                          .common_key_count = 1,
                          .join_types = join_types,
                          .mini_batch_size = size};
    SummarySink sink;
    memset(&sink, 0, sizeof sink);
    operator_init(&sink.base, &SUMMARY_SINK_VTABLE, "Sink", 1, &sink);
    Operator *join = multi_join_operator_create(&spec, &diag);
    bool ok = join != NULL;
    if (ok)
        operator_connect(join, &sink.base, 0);
    ok = ok && operator_open(&sink.base, &context) == JOINERY_OK &&
         operator_open(join, &context) == JOINERY_OK;
    /* one row per key and input on average: the join's output stays near the input's size */
    uint32_t per_input = options->keys;
    int64_t *live[MULTI_JOIN_BENCH_INPUTS]; /* (k, v) pairs */
    uint32_t live_count[MULTI_JOIN_BENCH_INPUTS] = {0};
    for (uint32_t i = 0; i < MULTI_JOIN_BENCH_INPUTS; i++) {
        live[i] = malloc((size_t)per_input * 2 * sizeof(int64_t));
        ok = ok && live[i] != NULL;
    }
    RowBuilder builder;
    row_builder_init(&builder);
    bench_random_state = 0x9e3779b97f4a7c15ull;
    double start = bench_cpu_seconds();
    uint64_t pushed = 0;
    for (uint32_t r = 0; ok && r < per_input * MULTI_JOIN_BENCH_INPUTS; r++) {
        uint32_t input = r % MULTI_JOIN_BENCH_INPUTS;
        int64_t k = (int64_t)(bench_random() % options->keys);
        int64_t v = (int64_t)(bench_random() % 1000);
        live[input][2 * live_count[input]] = k;
        live[input][2 * live_count[input] + 1] = v;
        live_count[input]++;
        ok = bench_push(join, input, &builder, ROW_KIND_INSERT, k, v) == JOINERY_OK;
        pushed++;
    }
    for (uint32_t u = 0; ok && u < options->updates; u++) {
        uint32_t input = 1 + (uint32_t)(bench_random() % 2);
        if (!live_count[input])
            continue;
        uint32_t victim = (uint32_t)(bench_random() % live_count[input]);
        int64_t k = live[input][2 * victim];
        int64_t v = live[input][2 * victim + 1];
        int64_t next = (int64_t)(bench_random() % 1000);
        ok = bench_push(join, input, &builder, ROW_KIND_UPDATE_BEFORE, k, v) == JOINERY_OK &&
             bench_push(join, input, &builder, ROW_KIND_UPDATE_AFTER, k, next) == JOINERY_OK;
        live[input][2 * victim + 1] = next;
        pushed += 2;
    }
    for (uint32_t i = 0; ok && i < MULTI_JOIN_BENCH_INPUTS; i++)
        ok = operator_end_input(join, i) == JOINERY_OK;
    result->cpu_seconds = bench_cpu_seconds() - start;
    if (!ok)
        fprintf(stderr, "bench_mini_batch: %s\n", diag.message[0] ? diag.message : "failed");
    result->input_rows = pushed;
    result->state_accesses = 2 * (pushed - multi_join_operator_folded_rows(join));
    result->output_changes = sink.changes_seen;
    result->output_rows = sink.row_count;
    result->output_hash = sink.hash_sum;
    row_builder_free(&builder);
    for (uint32_t i = 0; i < MULTI_JOIN_BENCH_INPUTS; i++)
        free(live[i]);
    if (join)
        operator_close(join);
    operator_close(&sink.base);
    return ok;
}

/* ---- driver ---- */

typedef bool (*BenchCase)(const BenchOptions *options, int64_t size, StateStore *store,
                          BenchResult *result);

static int bench_run(const char *title, BenchCase run, const BenchOptions *options)
{
    printf("%s\n", title);
    printf("  %-16s %12s %14s %14s %12s %10s\n", "mini-batch", "input rows", "state acc/row",
           "output/row", "output rows", "cpu s");
    BenchResult baseline;
    memset(&baseline, 0, sizeof baseline);
    int failed = 0;
    for (uint32_t s = 0; s <= options->size_count; s++) {
        int64_t size = s == 0 ? 0 : options->sizes[s - 1];
        Diag diag;
        diag_clear(&diag);
        StateStoreConfig config = {STATE_BACKEND_HASHMAP, NULL, NULL};
        StateStore *store = NULL;
        if (state_store_open(&config, &store, &diag) != JOINERY_OK) {
            fprintf(stderr, "bench_mini_batch: %s\n", diag.message);
            return 1;
        }
        BenchResult result;
        memset(&result, 0, sizeof result);
        bool ok = run(options, size, store, &result);
        state_store_close(store);
        char label[32];
        if (size == 0)
            snprintf(label, sizeof label, "off");
        else
            snprintf(label, sizeof label, "size %lld", (long long)size);
        printf("  %-16s %12llu %14.3f %14.3f %12llu %10.3f%s\n", label,
               (unsigned long long)result.input_rows,
               (double)result.state_accesses / (double)result.input_rows,
               (double)result.output_changes / (double)result.input_rows,
               (unsigned long long)result.output_changes, result.cpu_seconds,
               !ok ? "  FAILED"
               : s > 0 && (result.output_rows != baseline.output_rows ||
                           result.output_hash != baseline.output_hash)
                   ? "  OUTPUT DIFFERS"
                   : "");
        if (!ok || (s > 0 && (result.output_rows != baseline.output_rows ||
                              result.output_hash != baseline.output_hash)))
            failed = 1;
        if (s == 0)
            baseline = result;
    }
    printf("  materialized output: %lld rows, equal in every run%s\n",
           (long long)baseline.output_rows, failed ? " - NO" : "");
    return failed;
}

static bool parse_u32(const char *text, uint32_t *out)
{
    char *end;
    unsigned long value = strtoul(text, &end, 10);
    if (*end || value == 0 || value > UINT32_MAX)
        return false;
    *out = (uint32_t)value;
    return true;
}

int main(int argc, char **argv)
{
    BenchOptions options = {
        .rows = 200000, .keys = 10000, .updates = 200000, .joins = 10, .hot_percent = 50};
    for (int i = 1; i < argc; i++) {
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        bool good = value != NULL;
        if (good && strcmp(argv[i], "--rows") == 0)
            good = parse_u32(value, &options.rows);
        else if (good && strcmp(argv[i], "--keys") == 0)
            good = parse_u32(value, &options.keys);
        else if (good && strcmp(argv[i], "--updates") == 0)
            good = parse_u32(value, &options.updates);
        else if (good && strcmp(argv[i], "--hot") == 0)
            good = parse_u32(value, &options.hot_percent) && options.hot_percent <= 100;
        else if (good && strcmp(argv[i], "--phases") == 0)
            good = parse_u32(value, &options.phases_only) && options.phases_only == 2;
        else if (good && strcmp(argv[i], "--joins") == 0)
            good = parse_u32(value, &options.joins) && options.joins <= BENCH_MAX_JOINS;
        else if (good && strcmp(argv[i], "--size") == 0) {
            char *copy = strdup(value);
            for (char *save = NULL, *item = strtok_r(copy, ",", &save); good && item;
                 item = strtok_r(NULL, ",", &save)) {
                uint32_t size;
                good = options.size_count < BENCH_MAX_SIZES && parse_u32(item, &size);
                if (good)
                    options.sizes[options.size_count++] = size;
            }
            free(copy);
        } else
            good = false;
        if (!good) {
            fprintf(stderr, "usage: bench_mini_batch [--rows R] [--keys K] [--updates U] "
                            "[--size S[,S...]] [--joins N] [--hot PERCENT] [--phases 2]\n");
            return 2;
        }
        i++;
    }
    if (!options.size_count) {
        options.sizes[0] = 100;
        options.sizes[1] = 1000;
        options.sizes[2] = 10000;
        options.size_count = 3;
    }
    if (options.phases_only)
        return bench_run_phases(&options);
    char title[160];
    snprintf(title, sizeof title,
             "aggregate: COUNT(*), SUM(v) GROUP BY k, %u inserts over %u keys then %u updates",
             options.rows, options.keys, options.updates);
    int failed = bench_run(title, bench_aggregate, &options);
    snprintf(title, sizeof title,
             "cascade (FLIP-415): one update (-U/+U) through %u cascaded LEFT joins",
             options.joins);
    failed |= bench_run(title, bench_cascade, &options);
    snprintf(title, sizeof title,
             "multi-join: T0 LEFT JOIN T1 LEFT JOIN T2 on k (one MultiJoin), %u inserts an input "
             "over %u keys then %u updates of T1 / T2",
             options.keys, options.keys, options.updates);
    failed |= bench_run(title, bench_multi_join_case, &options);
    return failed;
}
