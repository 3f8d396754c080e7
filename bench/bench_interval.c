/*
 * bench_interval.c - the long run of an interval join against the same
 * join as a regular join: state over hours of event time.
 *
 * Generated streams (deterministic, fixed seed), over --hours of simulated
 * event time second by second: --rate orders a second (order_id unique and
 * increasing, amount, order_time) and, for 90% of the orders, a payment
 * (order_id, pay_amount, pay_time) 0 to 10 minutes after its order, emitted
 * in the second of its pay time. Each simulated second pushes that
 * second's orders (left) and payments (right) to both operators, then the
 * watermark (the second's end - 5 s) to the interval join, and commits the
 * store as a task does. The two operators run the seed 000 query
 *     ON o.order_id = p.order_id
 *     AND p.pay_time BETWEEN o.order_time AND o.order_time + INTERVAL '10' MINUTE
 * as an IntervalJoin (bounds -600000 / 0 ms) and as a regular Join (the
 * time predicate as its residual condition, no TTL), each into a blackhole.
 *
 * Output: a line every --every simulated minutes: event time, input rows so
 * far, output rows of each, state rows and bytes of each (as the operators
 * report them). The interval join's state stays flat at about 10 minutes of
 * orders; the regular join's grows with every row. Both emit the same rows
 * (checked at the end: the exit status is non-zero when they differ).
 * Benchmarks never fail on a time threshold.
 *
 * Usage: bench_interval [--hours N] [--rate N] [--every MINUTES]
 *                       [--backend hashmap|lmdb]
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/exec/ops/op_interval_join.h"
#include "engine/exec/ops/op_join.h"
#include "engine/state/state.h"

enum {
    PAY_WINDOW_SECONDS = 600,
    BUCKETS = PAY_WINDOW_SECONDS + 2,
    WATERMARK_DELAY_MILLIS = 5000,
};

static const int64_t BASE_MILLIS = 1717200000000LL; /* 2024-06-01 00:00:00 UTC */

typedef struct Blackhole {
    Operator base;
    uint64_t rows;
    uint64_t checksum; /* order_id + pay_time of every row: both joins must agree */
} Blackhole;

static int blackhole_process(Operator *self, uint32_t input, const RowBatch *batch)
{
    (void)input;
    Blackhole *blackhole = (Blackhole *)self;
    for (uint32_t i = 0; i < batch->count; i++)
        blackhole->checksum += (uint64_t)row_get_slot(batch->rows[i], 0) * 31 +
                               (uint64_t)row_get_slot(batch->rows[i], 5);
    blackhole->rows += batch->count;
    return JOINERY_OK;
}

static const OperatorVtable BLACKHOLE_VTABLE = {.process = blackhole_process};

static int64_t bench_clock(void *context)
{
    (void)context;
    return 0;
}

static uint64_t random_next(uint64_t *seed)
{
    uint64_t z = (*seed += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Payments waiting for the second of their pay time: a ring of per-second lists. */
typedef struct Bucket {
    int64_t *order_ids;
    int64_t *times;
    uint32_t count, capacity;
} Bucket;

static int bucket_add(Bucket *bucket, int64_t order_id, int64_t time)
{
    if (bucket->count == bucket->capacity) {
        uint32_t capacity = bucket->capacity ? bucket->capacity * 2 : 64;
        int64_t *ids = realloc(bucket->order_ids, capacity * sizeof *ids);
        if (!ids)
            return -1;
        bucket->order_ids = ids;
        int64_t *times = realloc(bucket->times, capacity * sizeof *times);
        if (!times)
            return -1;
        bucket->times = times;
        bucket->capacity = capacity;
    }
    bucket->order_ids[bucket->count] = order_id;
    bucket->times[bucket->count] = time;
    bucket->count++;
    return 0;
}

/* A batch of rows (order_id, amount, time) built into `arena`. */
typedef struct Batch {
    RowBatch rows;
    Arena arena;
    RowBuilder builder;
} Batch;

static int batch_add(Batch *batch, int64_t order_id, int64_t amount, int64_t time)
{
    if (batch->rows.count == batch->rows.capacity) {
        uint32_t capacity = batch->rows.capacity ? batch->rows.capacity * 2 : 256;
        Row **rows = realloc(batch->rows.rows, capacity * sizeof *rows);
        if (!rows)
            return -1;
        batch->rows.rows = rows;
        batch->rows.capacity = capacity;
    }
    row_builder_begin(&batch->builder, 3, ROW_KIND_INSERT);
    row_builder_set_int64(&batch->builder, 0, order_id);
    row_builder_set_int64(&batch->builder, 1, amount);
    row_builder_set_int64(&batch->builder, 2, time);
    const Row *row = row_builder_finish(&batch->builder);
    if (!row)
        return -1;
    Row *copy = arena_alloc(&batch->arena, row_size(row));
    if (!copy)
        return -1;
    memcpy(copy, row, row_size(row));
    batch->rows.rows[batch->rows.count++] = copy;
    return 0;
}

static void batch_clear(Batch *batch)
{
    batch->rows.count = 0;
    arena_reset(&batch->arena);
}

typedef struct Options {
    int hours;
    int rate;
    int every_minutes;
    StateBackendKind backend;
} Options;

static int options_parse(Options *options, int argc, char **argv)
{
    *options = (Options){4, 50, 30, STATE_BACKEND_HASHMAP};
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--hours") == 0)
            options->hours = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--rate") == 0)
            options->rate = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--every") == 0)
            options->every_minutes = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--backend") == 0 && strcmp(argv[i + 1], "lmdb") == 0)
            options->backend = STATE_BACKEND_LMDB;
        else if (strcmp(argv[i], "--backend") == 0 && strcmp(argv[i + 1], "hashmap") == 0)
            options->backend = STATE_BACKEND_HASHMAP;
        else
            return -1;
    }
    if (argc % 2 == 0 || options->hours < 1 || options->rate < 1 || options->every_minutes < 1)
        return -1;
    return 0;
}

int main(int argc, char **argv)
{
    Options options;
    if (options_parse(&options, argc, argv) != 0) {
        fprintf(stderr, "usage: bench_interval [--hours N] [--rate N] [--every MINUTES] "
                        "[--backend hashmap|lmdb]\n");
        return 2;
    }
    DataType types[3] = {type_make(TYPE_BIGINT, false), type_make(TYPE_BIGINT, false),
                         type_make_timestamp(TYPE_TIMESTAMP, 3, false)};
    static const uint32_t keys[1] = {0};
    Diag diag;
    diag_clear(&diag);
    StateStoreConfig config = {options.backend, NULL, NULL};
    StateStore *store = NULL;
    if (state_store_open(&config, &store, &diag) != JOINERY_OK) {
        fprintf(stderr, "bench_interval: %s\n", diag.message);
        return 1;
    }
    ExecContext context = {
        .diag = &diag, .now_millis = bench_clock, .parallelism = 1, .state_store = store};

    IntervalJoinOperatorSpec interval_spec;
    memset(&interval_spec, 0, sizeof interval_spec);
    interval_spec.join_type = JOIN_TYPE_INNER;
    interval_spec.left_field_count = interval_spec.right_field_count = 3;
    interval_spec.left_types = interval_spec.right_types = types;
    interval_spec.left_keys = interval_spec.right_keys = keys;
    interval_spec.key_count = 1;
    interval_spec.rowtime = true;
    interval_spec.left_lower_bound = -600000;
    interval_spec.left_upper_bound = 0;
    interval_spec.left_time_field = interval_spec.right_time_field = 2;

    /* the regular join's residual: p.pay_time BETWEEN o.order_time AND o.order_time + 10 min */
    Arena expr_arena;
    arena_init(&expr_arena, 4096);
    DataType interval_type = type_make(TYPE_INTERVAL_DAY_TIME, false);
    Expr *order_time = expr_make_input_ref(&expr_arena, 2, types[2]);
    Expr *pay_time = expr_make_input_ref(&expr_arena, 5, types[2]);
    Expr *ten_minutes = expr_make_literal(&expr_arena, interval_type, value_int(600000));
    Expr *sum_args[2] = {order_time, ten_minutes};
    Expr *upper = expr_make_call(&expr_arena, FUNCTION_PLUS, types[2], sum_args, 2);
    Expr *low_args[2] = {pay_time, order_time};
    Expr *high_args[2] = {pay_time, upper};
    DataType boolean = type_make(TYPE_BOOLEAN, false);
    Expr *parts[2] = {expr_make_call(&expr_arena, FUNCTION_GREATER_EQUAL, boolean, low_args, 2),
                      expr_make_call(&expr_arena, FUNCTION_LESS_EQUAL, boolean, high_args, 2)};
    JoinOperatorSpec join_spec;
    memset(&join_spec, 0, sizeof join_spec);
    join_spec.join_type = JOIN_TYPE_INNER;
    join_spec.left_field_count = join_spec.right_field_count = 3;
    join_spec.left_types = join_spec.right_types = types;
    join_spec.left_keys = join_spec.right_keys = keys;
    join_spec.key_count = 1;
    join_spec.residual = expr_make_and(&expr_arena, parts, 2);

    Operator *joins[2] = {interval_join_operator_create(&interval_spec, &diag),
                          join_operator_create(&join_spec, &diag)};
    if (!joins[0] || !joins[1] || !join_spec.residual) {
        fprintf(stderr, "bench_interval: %s\n", diag.message);
        return 1;
    }
    Blackhole sinks[2];
    int status = JOINERY_OK;
    for (int j = 0; j < 2; j++) {
        operator_init(&sinks[j].base, &BLACKHOLE_VTABLE, "Blackhole", 1, &sinks[j]);
        sinks[j].rows = sinks[j].checksum = 0;
        operator_connect(joins[j], &sinks[j].base, 0);
        if (status == JOINERY_OK)
            status = operator_open(&sinks[j].base, &context);
        if (status == JOINERY_OK)
            status = operator_open(joins[j], &context);
    }

    printf("interval join vs regular join, seed 000's orders/payments (payments 0-10 min after "
           "their order), %d orders/s of event time, %s state\n",
           options.rate, state_backend_name(options.backend));
    printf("%8s %12s | %12s %10s %14s | %12s %10s %14s\n", "event", "input rows", "interval out",
           "state rows", "state bytes", "regular out", "state rows", "state bytes");

    Bucket buckets[BUCKETS];
    memset(buckets, 0, sizeof buckets);
    Batch orders, payments;
    memset(&orders, 0, sizeof orders);
    memset(&payments, 0, sizeof payments);
    arena_init(&orders.arena, 64 * 1024);
    arena_init(&payments.arena, 64 * 1024);
    row_builder_init(&orders.builder);
    row_builder_init(&payments.builder);
    uint64_t seed = 20240601, input_rows = 0;
    int64_t next_order = 1;
    int64_t seconds = (int64_t)options.hours * 3600;
    for (int64_t second = 0; status == JOINERY_OK && second < seconds; second++) {
        int64_t start = BASE_MILLIS + second * 1000;
        batch_clear(&orders);
        batch_clear(&payments);
        for (int i = 0; i < options.rate && status == JOINERY_OK; i++) {
            int64_t time = start + (int64_t)(random_next(&seed) % 1000);
            int64_t amount = (int64_t)(random_next(&seed) % 100000);
            if (batch_add(&orders, next_order, amount, time) != 0)
                status = JOINERY_ERROR_NO_MEMORY;
            if (random_next(&seed) % 10 < 9) {
                int64_t pay = time + (int64_t)(random_next(&seed) % (PAY_WINDOW_SECONDS * 1000));
                int64_t due = (pay - BASE_MILLIS) / 1000;
                if (bucket_add(&buckets[due % BUCKETS], next_order, pay) != 0)
                    status = JOINERY_ERROR_NO_MEMORY;
            }
            next_order++;
        }
        Bucket *due = &buckets[second % BUCKETS];
        for (uint32_t i = 0; i < due->count && status == JOINERY_OK; i++)
            if (batch_add(&payments, due->order_ids[i], 100, due->times[i]) != 0)
                status = JOINERY_ERROR_NO_MEMORY;
        due->count = 0;
        input_rows += orders.rows.count + payments.rows.count;
        for (int j = 0; j < 2 && status == JOINERY_OK; j++) {
            status = operator_push(joins[j], 0, &orders.rows);
            if (status == JOINERY_OK)
                status = operator_push(joins[j], 1, &payments.rows);
        }
        int64_t watermark = start + 999 - WATERMARK_DELAY_MILLIS;
        if (status == JOINERY_OK)
            status = operator_push_watermark(joins[0], 0, 0, watermark);
        if (status == JOINERY_OK)
            status = operator_push_watermark(joins[0], 1, 1, watermark);
        if (status == JOINERY_OK)
            status = state_store_commit(store, &diag);
        if (status == JOINERY_OK && (second + 1) % ((int64_t)options.every_minutes * 60) == 0) {
            for (int j = 0; j < 2; j++)
                joins[j]->vtable->report_state(joins[j]);
            printf("%5lld:%02lld %12llu | %12llu %10llu %14llu | %12llu %10llu %14llu\n",
                   (long long)((second + 1) / 3600), (long long)((second + 1) / 60 % 60),
                   (unsigned long long)input_rows, (unsigned long long)sinks[0].rows,
                   (unsigned long long)joins[0]->metrics.state_rows,
                   (unsigned long long)joins[0]->metrics.state_bytes,
                   (unsigned long long)sinks[1].rows,
                   (unsigned long long)joins[1]->metrics.state_rows,
                   (unsigned long long)joins[1]->metrics.state_bytes);
            fflush(stdout);
        }
    }
    /* the end of input: the payments still due, then the final watermark */
    for (int64_t second = seconds; status == JOINERY_OK && second < seconds + BUCKETS; second++) {
        Bucket *due = &buckets[second % BUCKETS];
        batch_clear(&payments);
        for (uint32_t i = 0; i < due->count && status == JOINERY_OK; i++)
            if (batch_add(&payments, due->order_ids[i], 100, due->times[i]) != 0)
                status = JOINERY_ERROR_NO_MEMORY;
        due->count = 0;
        for (int j = 0; j < 2 && status == JOINERY_OK && payments.rows.count; j++)
            status = operator_push(joins[j], 1, &payments.rows);
    }
    for (uint32_t input = 0; status == JOINERY_OK && input < 2; input++)
        status = operator_push_watermark(joins[0], input, input, INT64_MAX);
    if (status == JOINERY_OK)
        status = state_store_commit(store, &diag);
    int exit_status = 0;
    if (status != JOINERY_OK) {
        fprintf(stderr, "bench_interval: %s\n", diag.message);
        exit_status = 1;
    } else {
        printf("end: interval join %llu rows out, regular join %llu rows out: %s\n",
               (unsigned long long)sinks[0].rows, (unsigned long long)sinks[1].rows,
               sinks[0].rows == sinks[1].rows && sinks[0].checksum == sinks[1].checksum
                   ? "the same rows"
                   : "DIFFERENT ROWS");
        if (sinks[0].rows != sinks[1].rows || sinks[0].checksum != sinks[1].checksum)
            exit_status = 1;
    }
    for (int j = 0; j < 2; j++) {
        operator_close(joins[j]);
        operator_close(&sinks[j].base);
    }
    for (int b = 0; b < BUCKETS; b++) {
        free(buckets[b].order_ids);
        free(buckets[b].times);
    }
    free(orders.rows.rows);
    free(payments.rows.rows);
    arena_destroy(&orders.arena);
    arena_destroy(&payments.arena);
    row_builder_free(&orders.builder);
    row_builder_free(&payments.builder);
    arena_destroy(&expr_arena);
    state_store_close(store);
    return exit_status;
}
