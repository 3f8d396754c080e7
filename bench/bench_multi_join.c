/*
 * bench_multi_join.c - a chain of binary streaming joins next to one
 * MultiJoin operator on the same changelog, driving the operators directly
 * (no planner, no sources): state bytes, input rows per second and output
 * equality.
 *
 * Shape (Flink's tuning-guide benchmark): N inputs (4 and 10 by default)
 * joined as in0 LEFT JOIN in1 ON in0.k = in1.k LEFT JOIN in2 ON in0.k =
 * in2.k ..., every input (id BIGINT, k BIGINT, v BIGINT, name STRING) with
 * --rows rows spread over --keys join keys, so each key has rows/keys rows
 * per input. The changelog first inserts every row (inputs interleaved in
 * runs of up to 64 rows, one batch per run), then applies --updates updates
 * (-U old, +U new value of a random row of a random input) in batches.
 *
 * Both sides get exactly the same batches. Output equality: each side's
 * materialized output is summarized by the row count and an
 * order-independent sum of content hashes (+ for +I/+U, - for -U/-D), so
 * equal summaries mean equal multisets (up to hash collisions). State bytes
 * are the operators' state after the run (binary: all joins summed).
 * Rows per second are input rows over the CPU time of the run (the thread's
 * CPU clock: robust on a shared machine); wall time is printed too.
 *
 * Benchmarks print figures; they never fail on a time threshold. Exit
 * status: 0, or 1 when the outputs differ or an operator failed, 2 on bad
 * usage.
 *
 * With --fanout F the driving input 0 has F rows per key (keys x F rows)
 * and the other inputs --rows rows each: one user with many events joined
 * to per-user dimension tables, the case where a binary chain repeats each
 * dimension row in every intermediate result.
 *
 * Usage: bench_multi_join [--inputs N[,N...]] [--rows R] [--keys K] [--updates U]
 *                         [--fanout F] [--seed S]
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/exec/ops/op_join.h"
#include "engine/exec/ops/op_multi_join.h"
#include "engine/state/state.h"

enum { BENCH_MAX_INPUTS = 16, BENCH_FIELDS = 4, BENCH_RUN_MAX = 64 };

typedef struct BenchOptions {
    uint32_t input_counts[8];
    uint32_t input_count_count;
    uint32_t rows;
    uint32_t keys;
    uint32_t updates;
    uint32_t fanout; /* rows per key of input 0 (the driving input); 0: --rows like the others */
    unsigned seed;
} BenchOptions;

/* Rows of input `input`: the driving input 0 has `fanout` rows per key when set. */
static uint32_t bench_input_rows(const BenchOptions *options, uint32_t input)
{
    return input == 0 && options->fanout ? options->keys * options->fanout : options->rows;
}

/* ---- a sink that summarizes the materialized output ---- */

typedef struct SummarySink {
    Operator base;
    int64_t row_count;     /* materialized rows */
    uint64_t hash_sum;     /* sum of content hashes of materialized rows (mod 2^64) */
    uint64_t changes_seen; /* rows received */
} SummarySink;

static int summary_sink_process(Operator *self, uint32_t input, const RowBatch *batch)
{
    (void)input;
    SummarySink *sink = (SummarySink *)self;
    for (uint32_t i = 0; i < batch->count; i++) {
        const Row *row = batch->rows[i];
        uint64_t hash = row_content_hash(row);
        if (row_kind_is_accumulate(row_kind(row))) {
            sink->row_count++;
            sink->hash_sum += hash;
        } else {
            sink->row_count--;
            sink->hash_sum -= hash;
        }
    }
    sink->changes_seen += batch->count;
    return JOINERY_OK;
}

static const OperatorVtable SUMMARY_SINK_VTABLE = {.process = summary_sink_process};

/* ---- the changelog ---- */

typedef struct BenchBatch {
    uint32_t input;
    uint32_t first; /* index into the row arrays */
    uint32_t count;
} BenchBatch;

typedef struct Changelog {
    Row **rows;
    uint32_t row_count, row_capacity;
    BenchBatch *batches;
    uint32_t batch_count, batch_capacity;
} Changelog;

static uint64_t bench_random_state;

static uint64_t bench_random(void)
{
    /* xorshift64*: deterministic across platforms */
    bench_random_state ^= bench_random_state >> 12;
    bench_random_state ^= bench_random_state << 25;
    bench_random_state ^= bench_random_state >> 27;
    return bench_random_state * 2685821657736338717ull;
}

static bool changelog_add_row(Changelog *log, RowBuilder *builder, RowKind kind, int64_t id,
                              int64_t key, int64_t value)
{
    if (log->row_count == log->row_capacity) {
        uint32_t capacity = log->row_capacity ? log->row_capacity * 2 : 4096;
        Row **rows = realloc(log->rows, capacity * sizeof *rows);
        if (!rows)
            return false;
        log->rows = rows;
        log->row_capacity = capacity;
    }
    char name[32];
    int length = snprintf(name, sizeof name, "name-%lld", (long long)(id % 100000));
    row_builder_begin(builder, BENCH_FIELDS, kind);
    row_builder_set_int64(builder, 0, id);
    row_builder_set_int64(builder, 1, key);
    row_builder_set_int64(builder, 2, value);
    row_builder_set_string(builder, 3, name, (uint32_t)length);
    Row *row = row_copy_heap(row_builder_finish(builder));
    if (!row)
        return false;
    log->rows[log->row_count++] = row;
    return true;
}

static bool changelog_add_batch(Changelog *log, uint32_t input, uint32_t first)
{
    if (log->batch_count == log->batch_capacity) {
        uint32_t capacity = log->batch_capacity ? log->batch_capacity * 2 : 1024;
        BenchBatch *batches = realloc(log->batches, capacity * sizeof *batches);
        if (!batches)
            return false;
        log->batches = batches;
        log->batch_capacity = capacity;
    }
    log->batches[log->batch_count++] =
        (BenchBatch){.input = input, .first = first, .count = log->row_count - first};
    return true;
}

static void changelog_free(Changelog *log)
{
    for (uint32_t i = 0; i < log->row_count; i++)
        free(log->rows[i]);
    free(log->rows);
    free(log->batches);
    memset(log, 0, sizeof *log);
}

/* Inserts every row, then applies updates; false when memory ran out. */
static bool changelog_generate(Changelog *log, uint32_t inputs, const BenchOptions *options)
{
    RowBuilder builder;
    row_builder_init(&builder);
    bool ok = true;
    uint32_t rows =
        bench_input_rows(options, 0) > options->rows ? bench_input_rows(options, 0) : options->rows;
    int64_t *values = calloc((size_t)inputs * rows, sizeof(int64_t));
    uint32_t *inserted = calloc(inputs, sizeof(uint32_t));
    ok = values && inserted;
    uint64_t remaining = 0;
    for (uint32_t i = 0; i < inputs; i++)
        remaining += bench_input_rows(options, i);
    while (ok && remaining > 0) {
        uint32_t input = (uint32_t)(bench_random() % inputs);
        uint32_t input_rows = bench_input_rows(options, input);
        if (inserted[input] == input_rows)
            continue;
        uint32_t run = 1 + (uint32_t)(bench_random() % BENCH_RUN_MAX);
        uint32_t first = log->row_count;
        for (uint32_t r = 0; ok && r < run && inserted[input] < input_rows; r++) {
            uint32_t id = inserted[input]++;
            int64_t value = (int64_t)(bench_random() % 1000);
            values[(size_t)input * rows + id] = value;
            ok = changelog_add_row(log, &builder, ROW_KIND_INSERT, id, id % options->keys, value);
            remaining--;
        }
        ok = ok && changelog_add_batch(log, input, first);
    }
    uint32_t updates = 0;
    while (ok && updates < options->updates) {
        uint32_t input = (uint32_t)(bench_random() % inputs);
        uint32_t run = 1 + (uint32_t)(bench_random() % (BENCH_RUN_MAX / 2));
        uint32_t first = log->row_count;
        for (uint32_t r = 0; ok && r < run && updates < options->updates; r++, updates++) {
            uint32_t id = (uint32_t)(bench_random() % bench_input_rows(options, input));
            int64_t *value = &values[(size_t)input * rows + id];
            int64_t next = (int64_t)(bench_random() % 1000);
            ok = changelog_add_row(log, &builder, ROW_KIND_UPDATE_BEFORE, id, id % options->keys,
                                   *value) &&
                 changelog_add_row(log, &builder, ROW_KIND_UPDATE_AFTER, id, id % options->keys,
                                   next);
            *value = next;
        }
        ok = ok && changelog_add_batch(log, input, first);
    }
    free(values);
    free(inserted);
    row_builder_free(&builder);
    return ok;
}

/* ---- the two pipelines ---- */

typedef struct Pipeline {
    Operator *operators[BENCH_MAX_INPUTS];
    uint32_t operator_count;
    Operator *entry[BENCH_MAX_INPUTS];
    uint32_t entry_port[BENCH_MAX_INPUTS];
    SummarySink sink;
} Pipeline;

typedef struct ChainSpec {
    DataType types[BENCH_MAX_INPUTS * BENCH_FIELDS];
    uint32_t key_field[1];
    uint32_t left_key[1];
    MultiJoinInputSpec inputs[BENCH_MAX_INPUTS];
    JoinType join_types[BENCH_MAX_INPUTS];
    const Expr *conditions[BENCH_MAX_INPUTS];
    JoinOperatorSpec joins[BENCH_MAX_INPUTS];
    uint32_t unique_key[1];
    Arena arena;
} ChainSpec;

static bool chain_spec_init(ChainSpec *chain, uint32_t inputs)
{
    memset(chain, 0, sizeof *chain);
    arena_init(&chain->arena, 0);
    for (uint32_t i = 0; i < inputs; i++) {
        DataType *types = &chain->types[i * BENCH_FIELDS];
        types[0] = type_make(TYPE_BIGINT, false);
        types[1] = type_make(TYPE_BIGINT, false);
        types[2] = type_make(TYPE_BIGINT, true);
        types[3] = type_make_varchar(TYPE_STRING_LENGTH, true);
    }
    chain->key_field[0] = 1;
    chain->left_key[0] = 1; /* in0.k */
    chain->unique_key[0] = 0;
    for (uint32_t i = 0; i < inputs; i++) {
        chain->inputs[i] = (MultiJoinInputSpec){.field_count = BENCH_FIELDS,
                                                .types = &chain->types[i * BENCH_FIELDS],
                                                .common_key_fields = chain->key_field,
                                                .has_unique_key = true,
                                                .unique_key_fields = chain->unique_key,
                                                .unique_key_count = 1};
        chain->join_types[i] = JOIN_TYPE_LEFT;
        if (i == 0)
            continue;
        Expr *args[2];
        args[0] = expr_make_input_ref(&chain->arena, 1, chain->types[1]);
        args[1] = expr_make_input_ref(&chain->arena, i * BENCH_FIELDS + 1, chain->types[1]);
        chain->conditions[i] =
            expr_make_call(&chain->arena, FUNCTION_EQUAL, type_make(TYPE_BOOLEAN, false), args, 2);
        if (!chain->conditions[i])
            return false;
        chain->joins[i] = (JoinOperatorSpec){.join_type = JOIN_TYPE_LEFT,
                                             .left_field_count = i * BENCH_FIELDS,
                                             .right_field_count = BENCH_FIELDS,
                                             .left_types = chain->types,
                                             .right_types = &chain->types[i * BENCH_FIELDS],
                                             .left_keys = chain->left_key,
                                             .right_keys = chain->key_field,
                                             .key_count = 1,
                                             .left_input_spec = JOIN_INPUT_NO_UNIQUE_KEY,
                                             .right_input_spec = JOIN_INPUT_HAS_UNIQUE_KEY};
    }
    return true;
}

static bool pipeline_open(Pipeline *pipeline, ChainSpec *chain, uint32_t inputs, bool fused,
                          ExecContext *context)
{
    memset(pipeline, 0, sizeof *pipeline);
    operator_init(&pipeline->sink.base, &SUMMARY_SINK_VTABLE, "Sink", 1, &pipeline->sink);
    if (operator_open(&pipeline->sink.base, context) != JOINERY_OK)
        return false;
    if (fused) {
        MultiJoinSpec spec = {.input_count = inputs,
                              .inputs = chain->inputs,
                              .common_key_count = 1,
                              .join_types = chain->join_types,
                              .conditions = chain->conditions,
                              .empty_result_pruning = true};
        Operator *op = multi_join_operator_create(&spec, context->diag);
        if (!op)
            return false;
        pipeline->operators[pipeline->operator_count++] = op;
        for (uint32_t i = 0; i < inputs; i++) {
            pipeline->entry[i] = op;
            pipeline->entry_port[i] = i;
        }
    } else {
        for (uint32_t i = 1; i < inputs; i++) {
            Operator *op = join_operator_create(&chain->joins[i], context->diag);
            if (!op)
                return false;
            pipeline->operators[pipeline->operator_count++] = op;
            pipeline->entry[i] = op;
            pipeline->entry_port[i] = 1;
            if (i == 1) {
                pipeline->entry[0] = op;
                pipeline->entry_port[0] = 0;
            } else {
                operator_connect(pipeline->operators[pipeline->operator_count - 2], op, 0);
            }
        }
    }
    for (uint32_t i = 0; i < pipeline->operator_count; i++)
        if (operator_open(pipeline->operators[i], context) != JOINERY_OK)
            return false;
    operator_connect(pipeline->operators[pipeline->operator_count - 1], &pipeline->sink.base, 0);
    return true;
}

static void pipeline_close(Pipeline *pipeline)
{
    for (uint32_t i = 0; i < pipeline->operator_count; i++)
        operator_close(pipeline->operators[i]);
    operator_close(&pipeline->sink.base);
}

static uint64_t pipeline_state_bytes(Pipeline *pipeline, uint64_t *rows)
{
    uint64_t bytes = 0;
    *rows = 0;
    for (uint32_t i = 0; i < pipeline->operator_count; i++) {
        Operator *op = pipeline->operators[i];
        op->vtable->report_state(op);
        bytes += op->metrics.state_bytes;
        *rows += op->metrics.state_rows;
    }
    return bytes;
}

static double bench_seconds(clockid_t clock)
{
    struct timespec now;
    clock_gettime(clock, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

typedef struct RunResult {
    double seconds; /* CPU time of the run (the machine may be shared) */
    double wall_seconds;
    uint64_t state_bytes, state_rows;
    int64_t output_rows;
    uint64_t output_hash;
    uint64_t changes_out;
} RunResult;

static bool pipeline_run(Pipeline *pipeline, const Changelog *log, RunResult *result)
{
    double start = bench_seconds(CLOCK_THREAD_CPUTIME_ID);
    double wall_start = bench_seconds(CLOCK_MONOTONIC);
    for (uint32_t b = 0; b < log->batch_count; b++) {
        const BenchBatch *batch = &log->batches[b];
        RowBatch rows = {
            .rows = &log->rows[batch->first], .count = batch->count, .capacity = batch->count};
        if (operator_push(pipeline->entry[batch->input], pipeline->entry_port[batch->input],
                          &rows) != JOINERY_OK)
            return false;
    }
    result->seconds = bench_seconds(CLOCK_THREAD_CPUTIME_ID) - start;
    result->wall_seconds = bench_seconds(CLOCK_MONOTONIC) - wall_start;
    result->state_bytes = pipeline_state_bytes(pipeline, &result->state_rows);
    result->output_rows = pipeline->sink.row_count;
    result->output_hash = pipeline->sink.hash_sum;
    result->changes_out = pipeline->sink.changes_seen;
    return true;
}

static int bench_chain(uint32_t inputs, const BenchOptions *options)
{
    Diag diag;
    diag_clear(&diag);
    StateStoreConfig store_config = {STATE_BACKEND_HASHMAP, NULL, NULL};
    StateStore *store = NULL;
    if (state_store_open(&store_config, &store, &diag) != JOINERY_OK) {
        fprintf(stderr, "bench_multi_join: %s\n", diag.message);
        return 1;
    }
    ExecContext context = {.diag = &diag, .parallelism = 1, .state_store = store};
    bench_random_state = 0x9e3779b97f4a7c15ull ^ options->seed;
    Changelog log;
    memset(&log, 0, sizeof log);
    ChainSpec chain;
    if (!chain_spec_init(&chain, inputs) || !changelog_generate(&log, inputs, options)) {
        fprintf(stderr, "bench_multi_join: out of memory\n");
        changelog_free(&log);
        arena_destroy(&chain.arena);
        state_store_close(store);
        return 1;
    }
    RunResult results[2];
    memset(results, 0, sizeof results);
    int status = 0;
    for (int fused = 0; fused < 2 && status == 0; fused++) {
        Pipeline pipeline;
        if (!pipeline_open(&pipeline, &chain, inputs, fused == 1, &context) ||
            !pipeline_run(&pipeline, &log, &results[fused])) {
            fprintf(stderr, "bench_multi_join: %s\n", diag.message);
            status = 1;
        }
        pipeline_close(&pipeline);
    }
    if (status == 0) {
        const char *names[2] = {"binary chain", "MultiJoin"};
        if (options->fanout)
            printf("%u-way LEFT chain on one key: %u input rows (input 0: %u rows per key, "
                   "inputs 1-%u: %u rows; %u keys, %u updates)\n",
                   inputs, log.row_count, options->fanout, inputs - 1, options->rows, options->keys,
                   options->updates);
        else
            printf("%u-way LEFT chain on one key: %u input rows (%u rows x %u inputs, %u keys, "
                   "%u updates)\n",
                   inputs, log.row_count, options->rows, inputs, options->keys, options->updates);
        for (int side = 0; side < 2; side++) {
            const RunResult *r = &results[side];
            printf("  %-12s  %8.3f s cpu (%.3f s wall)  %11.0f rows/s  state %10.1f MiB (%llu "
                   "rows)  output %lld rows (%llu changes)\n",
                   names[side], r->seconds, r->wall_seconds, (double)log.row_count / r->seconds,
                   (double)r->state_bytes / (1024.0 * 1024.0), (unsigned long long)r->state_rows,
                   (long long)r->output_rows, (unsigned long long)r->changes_out);
        }
        bool equal = results[0].output_rows == results[1].output_rows &&
                     results[0].output_hash == results[1].output_hash;
        printf("  state: MultiJoin %.1fx smaller; throughput: MultiJoin %.2fx; outputs %s\n",
               (double)results[0].state_bytes / (double)(results[1].state_bytes + 1),
               results[0].seconds / results[1].seconds, equal ? "equal" : "DIFFER");
        if (!equal)
            status = 1;
    }
    changelog_free(&log);
    arena_destroy(&chain.arena);
    state_store_close(store);
    return status;
}

static bool parse_count(const char *text, uint32_t *out)
{
    char *end;
    unsigned long value = strtoul(text, &end, 10);
    if (*end != '\0' || value == 0 || value > 100000000ul)
        return false;
    *out = (uint32_t)value;
    return true;
}

int main(int argc, char **argv)
{
    BenchOptions options = {.input_counts = {4, 10},
                            .input_count_count = 2,
                            .rows = 100000,
                            .keys = 50000,
                            .updates = 100000,
                            .seed = 1};
    for (int i = 1; i < argc; i++) {
        bool ok = i + 1 < argc;
        const char *value = ok ? argv[i + 1] : "";
        if (ok && strcmp(argv[i], "--inputs") == 0) {
            options.input_count_count = 0;
            char *copy = strdup(value);
            for (char *part = strtok(copy, ","); ok && part; part = strtok(NULL, ",")) {
                uint32_t count = 0;
                ok = options.input_count_count < 8 && parse_count(part, &count) && count >= 2 &&
                     count <= BENCH_MAX_INPUTS;
                if (ok)
                    options.input_counts[options.input_count_count++] = count;
            }
            free(copy);
        } else if (ok && strcmp(argv[i], "--rows") == 0) {
            ok = parse_count(value, &options.rows);
        } else if (ok && strcmp(argv[i], "--keys") == 0) {
            ok = parse_count(value, &options.keys);
        } else if (ok && strcmp(argv[i], "--updates") == 0) {
            ok = strcmp(value, "0") == 0 ? (options.updates = 0, true)
                                         : parse_count(value, &options.updates);
        } else if (ok && strcmp(argv[i], "--fanout") == 0) {
            ok = parse_count(value, &options.fanout);
        } else if (ok && strcmp(argv[i], "--seed") == 0) {
            options.seed = (unsigned)strtoul(value, NULL, 10);
        } else {
            ok = false;
        }
        if (!ok) {
            fprintf(stderr, "usage: bench_multi_join [--inputs N[,N...]] [--rows R] [--keys K] "
                            "[--updates U] [--fanout F] [--seed S]\n");
            return 2;
        }
        i++;
    }
    if ((uint64_t)options.fanout * options.keys > 100000000ull) {
        fprintf(stderr, "bench_multi_join: --fanout x --keys is limited to 100000000 rows\n");
        return 2;
    }
    int status = 0;
    for (uint32_t i = 0; i < options.input_count_count && status == 0; i++)
        status = bench_chain(options.input_counts[i], &options);
    return status;
}
