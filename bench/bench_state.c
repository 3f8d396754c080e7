/*
 * bench_state.c - micro-benchmark of keyed state and the regular join
 * operator, driven directly (no parser, planner, connector or format): the
 * figures say what the state and the operator cost per input row.
 *
 * Cases (--case NAME, or all of them):
 *   join-dim     a fact stream joined to a dimension (orders JOIN users):
 *                the right side gets --keys user rows (user_id unique,
 *                user_name STRING of 11 characters, region_id), then the
 *                left side gets --rows order rows (order_id, user_id uniform
 *                in [1, keys], amount). Every order is stored and matched
 *                exactly once. Input rows = keys + rows.
 *   join-unique  a 1:1 join: --rows rows split over both sides, every key
 *                appearing once per side, the sides' batches interleaved and
 *                the keys shuffled (key cardinality = rows / 2; --keys is
 *                ignored).
 *   state        MultisetState alone: --rows rows of (k, v) with k uniform
 *                in [1, keys] inserted (find or insert the key, add the row),
 *                then every row looked up again (find the key, find the row).
 * Inputs are generated before the clock starts, deterministically (fixed
 * seed), in batches of --batch rows (default 1024, as ROW_BATCH_CAPACITY).
 * The downstream of the join is a blackhole operator that counts rows and
 * reads one field of each (as a sink would).
 *
 * Output: one line per case and run: input rows, seconds, input rows per
 * second (wall clock, and per CPU second of this process: the second figure
 * is steadier when other processes share the machine), output rows, state bytes (as the operator
 * reports them) and bytes per stored row, and the process's peak RSS so far. Benchmarks never fail
 * on a time threshold; the exit status is non-zero only when the benchmark could not run.
 *
 * Every case runs on the state backends --backend names (hashmap, lmdb or
 * both, the default: the two lines of a case side by side); the store
 * commits after every input batch, as a job's task does.
 *
 * Usage: bench_state [--case join-dim|join-unique|state|all] [--rows N]
 *                    [--keys N] [--batch N] [--runs N] [--backend hashmap|lmdb|both]
 * Example: bench_state --case join-dim --rows 10000000 --keys 100000
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "engine/exec/ops/op_join.h"
#include "engine/state/state.h"

typedef struct BenchOptions {
    const char *case_name;
    uint64_t rows;
    uint64_t keys;
    uint32_t batch_size;
    int runs;
    StateBackendKind backend; /* of the case being run */
} BenchOptions;

/* A store of the case's backend (LMDB in a temporary folder); NULL with a message on failure. */
static StateStore *bench_store_open(const BenchOptions *options)
{
    Diag diag;
    diag_clear(&diag);
    StateStoreConfig config = {options->backend, NULL, NULL};
    StateStore *store = NULL;
    if (state_store_open(&config, &store, &diag) != JOINERY_OK)
        fprintf(stderr, "bench_state: %s\n", diag.message);
    return store;
}

static int bench_commit(StateStore *store, Diag *diag)
{
    return state_store_commit(store, diag);
}

/* ---- deterministic generator ---- */

static uint64_t bench_random_next(uint64_t *seed)
{
    uint64_t z = (*seed += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A permutation of 1..count (Fisher-Yates); NULL when memory is exhausted. */
static int64_t *bench_make_permutation(uint64_t count, uint64_t *seed)
{
    int64_t *values = malloc((count ? count : 1) * sizeof *values);
    if (!values)
        return NULL;
    for (uint64_t i = 0; i < count; i++)
        values[i] = (int64_t)i + 1;
    for (uint64_t i = count; i > 1; i--) {
        uint64_t j = bench_random_next(seed) % i;
        int64_t swap = values[i - 1];
        values[i - 1] = values[j];
        values[j] = swap;
    }
    return values;
}

/* ---- input: rows in arena memory, cut into batches ---- */

typedef struct BenchInput {
    uint32_t side; /* join input: 0 left, 1 right */
    RowBatch batch;
} BenchInput;

typedef struct BenchStream {
    Arena arena; /* rows and row arrays */
    BenchInput *inputs;
    uint64_t input_count;
    uint64_t input_capacity;
    uint64_t row_count;
} BenchStream;

static void bench_stream_init(BenchStream *stream)
{
    memset(stream, 0, sizeof *stream);
    arena_init(&stream->arena, 16u << 20);
}

static void bench_stream_free(BenchStream *stream)
{
    free(stream->inputs);
    arena_destroy(&stream->arena);
}

/* Appends the row to the last batch of `side` (a new batch when full); false on no memory. */
static bool bench_stream_add(BenchStream *stream, uint32_t side, const Row *row,
                             uint32_t batch_size)
{
    BenchInput *last = stream->input_count ? &stream->inputs[stream->input_count - 1] : NULL;
    if (!last || last->side != side || last->batch.count == batch_size) {
        if (stream->input_count == stream->input_capacity) {
            uint64_t capacity = stream->input_capacity ? stream->input_capacity * 2 : 1024;
            BenchInput *inputs = realloc(stream->inputs, capacity * sizeof *inputs);
            if (!inputs)
                return false;
            stream->inputs = inputs;
            stream->input_capacity = capacity;
        }
        last = &stream->inputs[stream->input_count++];
        last->side = side;
        last->batch.rows = arena_alloc(&stream->arena, batch_size * sizeof(Row *));
        last->batch.count = 0;
        last->batch.capacity = batch_size;
        if (!last->batch.rows)
            return false;
    }
    Row *copy = row_copy(&stream->arena, row);
    if (!copy)
        return false;
    last->batch.rows[last->batch.count++] = copy;
    stream->row_count++;
    return true;
}

static const Row *bench_order_row(RowBuilder *builder, int64_t order_id, int64_t user_id)
{
    row_builder_begin(builder, 3, ROW_KIND_INSERT);
    row_builder_set_int64(builder, 0, order_id);
    row_builder_set_int64(builder, 1, user_id);
    row_builder_set_int64(builder, 2, order_id % 100000);
    return row_builder_finish(builder);
}

static const Row *bench_user_row(RowBuilder *builder, int64_t user_id)
{
    char name[16];
    snprintf(name, sizeof name, "u%010lld", (long long)user_id);
    row_builder_begin(builder, 3, ROW_KIND_INSERT);
    row_builder_set_int64(builder, 0, user_id);
    row_builder_set_string(builder, 1, name, 11);
    row_builder_set_int64(builder, 2, user_id % 100);
    return row_builder_finish(builder);
}

/* join-dim: users (right) first, then orders (left). */
static bool bench_make_dim_stream(BenchStream *stream, const BenchOptions *options)
{
    uint64_t seed = 42;
    RowBuilder builder;
    row_builder_init(&builder);
    bool ok = true;
    int64_t *users = bench_make_permutation(options->keys, &seed);
    ok = users != NULL;
    for (uint64_t i = 0; ok && i < options->keys; i++) {
        const Row *row = bench_user_row(&builder, users[i]);
        ok = row && bench_stream_add(stream, 1, row, options->batch_size);
    }
    for (uint64_t i = 0; ok && i < options->rows; i++) {
        int64_t user = (int64_t)(bench_random_next(&seed) % options->keys) + 1;
        const Row *row = bench_order_row(&builder, (int64_t)i + 1, user);
        ok = row && bench_stream_add(stream, 0, row, options->batch_size);
    }
    free(users);
    row_builder_free(&builder);
    return ok;
}

/* join-unique: rows/2 keys on each side, batches alternating between the sides. */
static bool bench_make_unique_stream(BenchStream *stream, const BenchOptions *options)
{
    uint64_t seed = 7;
    uint64_t keys = options->rows / 2;
    RowBuilder builder;
    row_builder_init(&builder);
    int64_t *left = bench_make_permutation(keys, &seed);
    int64_t *right = bench_make_permutation(keys, &seed);
    bool ok = left && right;
    for (uint64_t start = 0; ok && start < keys; start += options->batch_size) {
        uint64_t end = start + options->batch_size < keys ? start + options->batch_size : keys;
        for (uint64_t i = start; ok && i < end; i++) {
            const Row *row = bench_order_row(&builder, (int64_t)i + 1, left[i]);
            ok = row && bench_stream_add(stream, 0, row, options->batch_size);
        }
        for (uint64_t i = start; ok && i < end; i++) {
            const Row *row = bench_user_row(&builder, right[i]);
            ok = row && bench_stream_add(stream, 1, row, options->batch_size);
        }
    }
    free(left);
    free(right);
    row_builder_free(&builder);
    return ok;
}

/* ---- blackhole downstream ---- */

typedef struct Blackhole {
    Operator base;
    uint64_t rows;
    uint64_t checksum; /* first slot of every row: the rows are really read */
} Blackhole;

static int blackhole_process(Operator *self, uint32_t input, const RowBatch *batch)
{
    (void)input;
    Blackhole *blackhole = (Blackhole *)self;
    for (uint32_t i = 0; i < batch->count; i++)
        blackhole->checksum += row_get_slot(batch->rows[i], 0);
    blackhole->rows += batch->count;
    return JOINERY_OK;
}

static const OperatorVtable BLACKHOLE_VTABLE = {.process = blackhole_process};

/* ---- measurement ---- */

static double bench_now_seconds(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

static double bench_cpu_seconds(void)
{
    struct timespec now;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

static long bench_peak_rss_mib(void)
{
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss / 1024;
}

static void bench_report(const char *name, const BenchOptions *options, uint64_t input_rows,
                         double seconds, double cpu_seconds, uint64_t output_rows,
                         uint64_t state_bytes, uint64_t state_rows)
{
    printf("%-11s %-7s rows=%-9llu keys=%-8llu input=%-9llu %7.3f s %7.3f M rows/s (cpu %7.3f "
           "M/s)  output=%-9llu state=%7.1f MiB (%5.1f B/row)  peak_rss=%ld MiB\n",
           name, state_backend_name(options->backend), (unsigned long long)options->rows,
           (unsigned long long)options->keys, (unsigned long long)input_rows, seconds,
           (double)input_rows / seconds / 1e6, (double)input_rows / cpu_seconds / 1e6,
           (unsigned long long)output_rows, (double)state_bytes / (1024.0 * 1024.0),
           state_rows ? (double)state_bytes / (double)state_rows : 0.0, bench_peak_rss_mib());
    fflush(stdout);
}

static int64_t bench_clock(void *context)
{
    (void)context;
    return 0;
}

/* Runs the join over the stream once; returns 0, or 1 when it failed. */
static int bench_run_join(const char *name, const BenchStream *stream, const BenchOptions *options)
{
    static const uint32_t left_keys[1] = {1};
    static const uint32_t right_keys[1] = {0};
    DataType left_types[3] = {type_make(TYPE_BIGINT, false), type_make(TYPE_BIGINT, true),
                              type_make(TYPE_BIGINT, true)};
    DataType right_types[3] = {type_make(TYPE_BIGINT, false),
                               type_make_varchar(TYPE_STRING_LENGTH, true),
                               type_make(TYPE_BIGINT, true)};
    JoinOperatorSpec spec;
    memset(&spec, 0, sizeof spec);
    spec.join_type = JOIN_TYPE_INNER;
    spec.left_field_count = 3;
    spec.right_field_count = 3;
    spec.left_types = left_types;
    spec.right_types = right_types;
    spec.left_keys = left_keys;
    spec.right_keys = right_keys;
    spec.key_count = 1;

    Diag diag;
    diag_clear(&diag);
    StateStore *store = bench_store_open(options);
    if (!store)
        return 1;
    ExecContext context = {
        .diag = &diag, .now_millis = bench_clock, .parallelism = 1, .state_store = store};
    Operator *join = join_operator_create(&spec, &diag);
    if (!join) {
        fprintf(stderr, "bench_state: %s\n", diag.message);
        state_store_close(store);
        return 1;
    }
    Blackhole blackhole;
    operator_init(&blackhole.base, &BLACKHOLE_VTABLE, "Blackhole", 1, &blackhole);
    blackhole.rows = 0;
    blackhole.checksum = 0;
    operator_connect(join, &blackhole.base, 0);
    int status = operator_open(&blackhole.base, &context);
    if (status == JOINERY_OK)
        status = operator_open(join, &context);

    double start = bench_now_seconds();
    double cpu_start = bench_cpu_seconds();
    for (uint64_t i = 0; status == JOINERY_OK && i < stream->input_count; i++) {
        status = operator_push(join, stream->inputs[i].side, &stream->inputs[i].batch);
        if (status == JOINERY_OK)
            status = bench_commit(store, &diag);
    }
    for (uint32_t input = 0; status == JOINERY_OK && input < 2; input++)
        status = operator_end_input(join, input);
    if (status == JOINERY_OK)
        status = bench_commit(store, &diag);
    double seconds = bench_now_seconds() - start;
    double cpu_seconds = bench_cpu_seconds() - cpu_start;

    if (status == JOINERY_OK) {
        join->vtable->report_state(join);
        bench_report(name, options, stream->row_count, seconds, cpu_seconds, blackhole.rows,
                     join->metrics.state_bytes, join->metrics.state_rows);
    } else {
        fprintf(stderr, "bench_state: %s\n", diag.message);
    }
    double close_start = bench_now_seconds();
    operator_close(join);
    operator_close(&blackhole.base);
    state_store_close(store);
    if (status == JOINERY_OK)
        printf("%-11s   (freeing the state: %.3f s; checksum %llu)\n", "",
               bench_now_seconds() - close_start, (unsigned long long)blackhole.checksum);
    return status == JOINERY_OK ? 0 : 1;
}

static int bench_case_join(const BenchOptions *options, bool dimension)
{
    BenchStream stream;
    bench_stream_init(&stream);
    bool ok = dimension ? bench_make_dim_stream(&stream, options)
                        : bench_make_unique_stream(&stream, options);
    if (!ok) {
        fprintf(stderr, "bench_state: out of memory generating the input\n");
        bench_stream_free(&stream);
        return 1;
    }
    int failed = 0;
    for (int run = 0; run < options->runs && !failed; run++)
        failed = bench_run_join(dimension ? "join-dim" : "join-unique", &stream, options);
    bench_stream_free(&stream);
    return failed;
}

/* The state case: insert every row under its key, then look every row up again. */
static int bench_case_state(const BenchOptions *options)
{
    BenchStream stream;
    bench_stream_init(&stream);
    RowBuilder builder;
    row_builder_init(&builder);
    uint64_t seed = 3;
    bool ok = true;
    for (uint64_t i = 0; ok && i < options->rows; i++) {
        row_builder_begin(&builder, 2, ROW_KIND_INSERT);
        row_builder_set_int64(&builder, 0, (int64_t)(bench_random_next(&seed) % options->keys));
        row_builder_set_int64(&builder, 1, (int64_t)i);
        const Row *row = row_builder_finish(&builder);
        ok = row && bench_stream_add(&stream, 0, row, options->batch_size);
    }
    int failed = ok ? 0 : 1;
    for (int run = 0; run < options->runs && !failed; run++) {
        StateStore *store = bench_store_open(options);
        MultisetState *state = store ? multiset_state_create(store, 0) : NULL;
        failed = state == NULL;
        Diag diag;
        diag_clear(&diag);
        double start = bench_now_seconds();
        double cpu_start = bench_cpu_seconds();
        for (int phase = 0; phase < 2 && !failed; phase++) {
            for (uint64_t b = 0; b < stream.input_count && !failed; b++) {
                const RowBatch *batch = &stream.inputs[b].batch;
                for (uint32_t r = 0; r < batch->count && !failed; r++) {
                    const Row *row = batch->rows[r];
                    row_builder_begin(&builder, 1, ROW_KIND_INSERT);
                    row_builder_set_int64(&builder, 0, row_get_int64(row, 0));
                    const Row *key = row_builder_finish(&builder);
                    uint64_t key_hash = row_content_hash(key);
                    uint64_t row_hash = row_content_hash(row);
                    if (phase == 0) {
                        MultisetKey *found = multiset_state_insert_key(state, key, key_hash, 0);
                        failed =
                            !found || !multiset_key_add_row(state, found, row, row_hash, 1, 0, 0);
                    } else {
                        MultisetKey *found = multiset_state_find(state, key, key_hash, 0);
                        failed = !found || !multiset_key_find_row(state, found, row, row_hash);
                    }
                }
                failed = failed || bench_commit(store, &diag) != JOINERY_OK;
            }
        }
        double seconds = bench_now_seconds() - start;
        double cpu_seconds = bench_cpu_seconds() - cpu_start;
        if (!failed) {
            StateCounters counters = multiset_state_counters(state);
            bench_report("state", options, 2 * stream.row_count, seconds, cpu_seconds, 0,
                         counters.bytes, counters.entries);
        } else {
            fprintf(stderr, "bench_state: state case failed (out of memory or lost row)\n");
        }
        multiset_state_destroy(state);
        state_store_close(store);
    }
    row_builder_free(&builder);
    bench_stream_free(&stream);
    return failed;
}

static bool bench_parse_count(const char *text, uint64_t *value)
{
    char *end;
    unsigned long long parsed = strtoull(text, &end, 10);
    if (end == text || *end || parsed == 0)
        return false;
    *value = parsed;
    return true;
}

int main(int argc, char **argv)
{
    BenchOptions options = {
        .case_name = "all", .rows = 2000000, .keys = 100000, .batch_size = 1024, .runs = 1};
    StateBackendKind backends[2] = {STATE_BACKEND_HASHMAP, STATE_BACKEND_LMDB};
    int backend_count = 2;
    for (int i = 1; i < argc; i++) {
        uint64_t value = 0;
        bool has_value = i + 1 < argc;
        if (strcmp(argv[i], "--case") == 0 && has_value) {
            options.case_name = argv[++i];
        } else if (strcmp(argv[i], "--rows") == 0 && has_value &&
                   bench_parse_count(argv[++i], &value)) {
            options.rows = value;
        } else if (strcmp(argv[i], "--keys") == 0 && has_value &&
                   bench_parse_count(argv[++i], &value)) {
            options.keys = value;
        } else if (strcmp(argv[i], "--batch") == 0 && has_value &&
                   bench_parse_count(argv[++i], &value) && value <= 65536) {
            options.batch_size = (uint32_t)value;
        } else if (strcmp(argv[i], "--runs") == 0 && has_value &&
                   bench_parse_count(argv[++i], &value) && value <= 100) {
            options.runs = (int)value;
        } else if (strcmp(argv[i], "--backend") == 0 && has_value &&
                   (strcmp(argv[i + 1], "both") == 0 ||
                    state_backend_parse(argv[i + 1], &backends[0], NULL))) {
            backend_count = strcmp(argv[++i], "both") == 0 ? 2 : 1;
            if (backend_count == 2)
                backends[0] = STATE_BACKEND_HASHMAP;
        } else {
            fprintf(stderr, "usage: bench_state [--case join-dim|join-unique|state|all] [--rows N] "
                            "[--keys N] [--batch N] [--runs N] [--backend hashmap|lmdb|both]\n");
            return 2;
        }
    }
    bool all = strcmp(options.case_name, "all") == 0;
    int failed = 0;
    bool known = false;
    /* each case on each backend, one after the other: their lines stand side by side */
    for (int b = 0; b < backend_count; b++) {
        options.backend = backends[b];
        if (all || strcmp(options.case_name, "join-dim") == 0) {
            known = true;
            failed |= bench_case_join(&options, true);
        }
    }
    for (int b = 0; b < backend_count; b++) {
        options.backend = backends[b];
        if (all || strcmp(options.case_name, "join-unique") == 0) {
            known = true;
            failed |= bench_case_join(&options, false);
        }
    }
    for (int b = 0; b < backend_count; b++) {
        options.backend = backends[b];
        if (all || strcmp(options.case_name, "state") == 0) {
            known = true;
            failed |= bench_case_state(&options);
        }
    }
    if (!known) {
        fprintf(stderr, "bench_state: unknown case '%s'\n", options.case_name);
        return 2;
    }
    return failed;
}
