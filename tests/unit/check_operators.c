/*
 * check_operators.c - Check suite for the stateless and small operators of
 * engine/exec/ops/: Calc, Exchange, Union, WatermarkAssigner, the Values and
 * scan sources (a filesystem SourceReader over a temporary file), the sink
 * collector, ChangelogNormalize (with TTL on a fake clock) and the channel
 * and mailbox between two threads.
 *
 * Operators are driven as check_join.c does: a collecting operator
 * downstream records "+I(1,a) -U(2,NULL)" for rows, "W(5)" for watermarks,
 * "IDLE" / "ACTIVE" for watermark status changes and "END" when its input
 * ends. No assertion depends on wall-clock time.
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/base/strbuf.h"
#include "tests/unit/test_store.h"
#include "engine/exec/ops/op_calc.h"
#include "engine/exec/ops/op_changelog_normalize.h"
#include "engine/exec/ops/op_channel.h"
#include "engine/exec/ops/op_exchange.h"
#include "engine/exec/ops/op_sink.h"
#include "engine/exec/ops/op_source.h"
#include "engine/exec/ops/op_union.h"
#include "engine/exec/ops/op_watermark_assigner.h"
#include "engine/exec/snapshot.h"
#include "engine/exec/split_watermarks.h"

/* ---- harness: fake clock, collecting operator, row helpers ---- */

static int64_t fake_now;

static int64_t fake_clock(void *context)
{
    (void)context;
    return fake_now;
}

typedef struct Collector {
    Operator base;
    const DataType *types;
    uint32_t field_count;
    StrBuf log;
    uint32_t rows;
    uint32_t ended; /* times finish ran */
} Collector;

static void format_row(StrBuf *out, const Row *row, const DataType *types, uint32_t count)
{
    strbuf_printf(out, "%s(", row_kind_name(row_kind(row)));
    for (uint32_t i = 0; i < count; i++) {
        if (i)
            strbuf_append_char(out, ',');
        if (row_is_null(row, i)) {
            strbuf_append_cstr(out, "NULL");
        } else if (type_is_variable_length(types[i].id)) {
            uint32_t length;
            const char *text = row_get_string(row, i, &length);
            strbuf_append(out, text, length);
        } else if (types[i].id == TYPE_DOUBLE) {
            strbuf_printf(out, "%g", row_get_double(row, i));
        } else {
            strbuf_printf(out, "%lld", (long long)row_get_int64(row, i));
        }
    }
    strbuf_append_char(out, ')');
}

static void collector_log(Collector *collector, const char *text)
{
    if (collector->log.length)
        strbuf_append_char(&collector->log, ' ');
    strbuf_append_cstr(&collector->log, text);
}

static int collector_process(Operator *self, uint32_t input, const RowBatch *batch)
{
    (void)input;
    Collector *collector = (Collector *)self;
    for (uint32_t i = 0; i < batch->count; i++) {
        if (collector->log.length)
            strbuf_append_char(&collector->log, ' ');
        format_row(&collector->log, batch->rows[i], collector->types, collector->field_count);
        collector->rows++;
    }
    return JOINERY_OK;
}

static int collector_watermark(Operator *self, uint32_t input, int64_t watermark)
{
    (void)input;
    Collector *collector = (Collector *)self;
    char text[48];
    if (watermark == INT64_MAX)
        snprintf(text, sizeof text, "W(MAX)");
    else
        snprintf(text, sizeof text, "W(%lld)", (long long)watermark);
    collector_log(collector, text);
    self->current_watermark = watermark;
    return JOINERY_OK;
}

static int collector_watermark_status(Operator *self, uint32_t input, WatermarkStatus status)
{
    (void)input;
    collector_log((Collector *)self, status == WATERMARK_STATUS_IDLE ? "IDLE" : "ACTIVE");
    return JOINERY_OK;
}

static int collector_finish(Operator *self)
{
    Collector *collector = (Collector *)self;
    collector->ended++;
    collector_log(collector, "END");
    return JOINERY_OK;
}

static const OperatorVtable COLLECTOR_VTABLE = {
    .process = collector_process,
    .watermark = collector_watermark,
    .watermark_status = collector_watermark_status,
    .finish = collector_finish,
};

typedef struct Harness {
    Diag diag;
    ExecContext context;
    Arena arena; /* expressions */
    Collector collector;
    Operator *op;
    char taken[16384];
} Harness;

static void harness_init(Harness *h, const DataType *out_types, uint32_t out_count)
{
    memset(h, 0, sizeof *h);
    diag_clear(&h->diag);
    h->context.diag = &h->diag;
    h->context.now_millis = fake_clock;
    h->context.parallelism = 1;
    h->context.state_store = test_store_open();
    fake_now = 0;
    arena_init(&h->arena, 0);
    operator_init(&h->collector.base, &COLLECTOR_VTABLE, "Collector", 1, &h->collector);
    h->collector.types = out_types;
    h->collector.field_count = out_count;
    ck_assert_int_eq(operator_open(&h->collector.base, &h->context), JOINERY_OK);
}

/* Connects `op` to the collector and opens it. */
static void harness_open(Harness *h, Operator *op)
{
    ck_assert_ptr_nonnull(op);
    h->op = op;
    operator_connect(op, &h->collector.base, 0);
    ck_assert_int_eq(operator_open(op, &h->context), JOINERY_OK);
}

static void harness_close(Harness *h)
{
    test_store_commit(h->context.state_store);
    if (h->op)
        operator_close(h->op);
    operator_close(&h->collector.base);
    strbuf_free(&h->collector.log);
    arena_destroy(&h->arena);
    state_store_close(h->context.state_store);
}

/* Returns what the collector logged since the last call, and forgets it. */
static const char *take_log(Collector *collector, char *buffer, size_t size)
{
    snprintf(buffer, size, "%s", strbuf_cstr(&collector->log));
    strbuf_clear(&collector->log);
    return buffer;
}

static const char *harness_take(Harness *h)
{
    return take_log(&h->collector, h->taken, sizeof h->taken);
}

/* Builds a row from "kind values" text, e.g. "+I 1,a,NULL". */
static Row *build_row(RowBuilder *builder, const DataType *types, uint32_t count, const char *text)
{
    static const char *const kinds[] = {"+I", "-U", "+U", "-D"};
    RowKind kind = ROW_KIND_INSERT;
    for (int k = 0; k < 4; k++)
        if (strncmp(text, kinds[k], 2) == 0)
            kind = (RowKind)k;
    const char *cursor = text + 3;
    row_builder_begin(builder, count, kind);
    for (uint32_t i = 0; i < count; i++) {
        const char *end = strchr(cursor, ',');
        size_t length = end ? (size_t)(end - cursor) : strlen(cursor);
        if (length == 4 && strncmp(cursor, "NULL", 4) == 0)
            row_builder_set_null(builder, i);
        else if (type_is_variable_length(types[i].id))
            row_builder_set_string(builder, i, cursor, (uint32_t)length);
        else
            row_builder_set_int64(builder, i, strtoll(cursor, NULL, 10));
        cursor = end ? end + 1 : cursor + length;
    }
    return row_builder_finish(builder);
}

/* Pushes one batch of rows written "+I 1,a;-D 2,b" into input `input` of `op`. */
static int push_rows(Operator *op, uint32_t input, const DataType *types, uint32_t count,
                     const char *text)
{
    RowBuilder builder;
    row_builder_init(&builder);
    Row *rows[64];
    uint32_t n = 0;
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", text);
    for (char *part = strtok(copy, ";"); part && n < 64; part = strtok(NULL, ";")) {
        while (*part == ' ')
            part++;
        rows[n] = row_copy_heap(build_row(&builder, types, count, part));
        ck_assert_ptr_nonnull(rows[n]);
        n++;
    }
    RowBatch batch = {.rows = rows, .count = n, .capacity = n};
    int status = operator_push(op, input, &batch);
    for (uint32_t i = 0; i < n; i++)
        free(rows[i]);
    row_builder_free(&builder);
    return status;
}

#define PUSH(h, types, count, text)                                                                \
    ck_assert_int_eq(push_rows((h)->op, 0, types, count, text), JOINERY_OK)
#define EXPECT(h, text) ck_assert_str_eq(harness_take(h), text)

static DataType t_bigint(void)
{
    return type_make(TYPE_BIGINT, true);
}

static DataType t_string(void)
{
    return type_make(TYPE_VARCHAR, true);
}

/* A typed call through the function catalogue (as the binder builds them). */
static Expr *call(Arena *arena, const char *name, FunctionId function, Expr *a, Expr *b)
{
    Expr *args[2] = {a, b};
    Diag diag;
    diag_clear(&diag);
    Expr *expr = function_resolve(arena, name, function, args, b ? 2 : 1, &diag);
    ck_assert_msg(expr != NULL, "%s", diag.message);
    return expr;
}

static Expr *literal(Arena *arena, int64_t value)
{
    return expr_make_literal(arena, type_make(TYPE_BIGINT, false), value_int(value));
}

/* ---- Calc ---- */

/* input (id BIGINT, name STRING, score BIGINT) */
static DataType calc_in[3];
static DataType calc_out[3];

START_TEST(test_calc_project_and_filter)
{
    calc_in[0] = t_bigint();
    calc_in[1] = t_string();
    calc_in[2] = t_bigint();
    Harness h;
    harness_init(&h, calc_out, 3);
    Arena *arena = &h.arena;
    /* SELECT name, id * 10, UPPER(name) WHERE score > 5 */
    Expr *projects[3] = {
        expr_make_input_ref(arena, 1, calc_in[1]),
        call(arena, NULL, FUNCTION_MULTIPLY, expr_make_input_ref(arena, 0, calc_in[0]),
             literal(arena, 10)),
        call(arena, "UPPER", FUNCTION_UPPER, expr_make_input_ref(arena, 1, calc_in[1]), NULL),
    };
    for (int i = 0; i < 3; i++)
        calc_out[i] = projects[i]->type;
    Expr *condition = call(arena, NULL, FUNCTION_GREATER, expr_make_input_ref(arena, 2, calc_in[2]),
                           literal(arena, 5));
    CalcSpec spec = {3, projects, calc_out, 3, condition};
    harness_open(&h, calc_operator_create(&spec, &h.diag));
    /* kinds pass through; a NULL condition drops the row like FALSE */
    PUSH(&h, calc_in, 3, "+I 1,abc,10;-U 2,b,3;+U 3,NULL,7;-D NULL,c,NULL;-D 4,dd,6");
    EXPECT(&h, "+I(abc,10,ABC) +U(NULL,30,NULL) -D(dd,40,DD)");
    ck_assert_uint_eq(h.op->metrics.rows_in, 5);
    ck_assert_uint_eq(h.op->metrics.rows_out, 3);
    /* a batch where nothing passes emits nothing */
    PUSH(&h, calc_in, 3, "+I 5,x,1");
    EXPECT(&h, "");
    /* long strings survive the copy into the output batch */
    char text[600];
    memset(text, 'q', sizeof text);
    memcpy(text, "+I 9,", 5);
    snprintf(text + 505, sizeof text - 505, ",99");
    PUSH(&h, calc_in, 3, text);
    ck_assert_uint_eq(strlen(harness_take(&h)), strlen("+I(,90,)") + 2 * 500);
    ck_assert_int_eq(operator_end_input(h.op, 0), JOINERY_OK);
    EXPECT(&h, "END");
    harness_close(&h);
}
END_TEST

START_TEST(test_calc_without_condition_and_many_rows)
{
    calc_in[0] = t_bigint();
    calc_in[1] = t_string();
    calc_in[2] = t_bigint();
    Harness h;
    harness_init(&h, calc_out, 1);
    Expr *projects[1] = {expr_make_input_ref(&h.arena, 2, calc_in[2])};
    calc_out[0] = calc_in[2];
    CalcSpec spec = {3, projects, calc_out, 1, NULL};
    harness_open(&h, calc_operator_create(&spec, &h.diag));
    /* more rows than one output batch: all arrive, in order */
    RowBuilder builder;
    row_builder_init(&builder);
    uint32_t total = ROW_BATCH_CAPACITY + 10;
    Row **rows = calloc(total, sizeof(Row *));
    for (uint32_t i = 0; i < total; i++) {
        char line[64];
        snprintf(line, sizeof line, "+I %u,x,%u", i, i);
        rows[i] = row_copy_heap(build_row(&builder, calc_in, 3, line));
    }
    RowBatch batch = {rows, total, total};
    ck_assert_int_eq(operator_push(h.op, 0, &batch), JOINERY_OK);
    ck_assert_uint_eq(h.collector.rows, total);
    const char *log = harness_take(&h);
    ck_assert(strncmp(log, "+I(0) +I(1) +I(2)", 17) == 0);
    char last[32];
    snprintf(last, sizeof last, "+I(%u)", total - 1);
    ck_assert_str_eq(log + strlen(log) - strlen(last), last);
    for (uint32_t i = 0; i < total; i++)
        free(rows[i]);
    free(rows);
    row_builder_free(&builder);
    harness_close(&h);
}
END_TEST

/* ---- Exchange ---- */

static DataType pair_types[2];

static void init_pair_types(void)
{
    pair_types[0] = t_bigint();
    pair_types[1] = t_string();
}

/* An exchange over `count` collectors (subtasks), keyed by `keys`. */
typedef struct Fanout {
    Diag diag;
    ExecContext context;
    Collector collectors[4];
    OperatorTarget targets[4];
    uint32_t count;
    Operator *exchange;
} Fanout;

static void fanout_open(Fanout *fanout, uint32_t count, const uint32_t *keys, uint32_t key_count)
{
    memset(fanout, 0, sizeof *fanout);
    init_pair_types();
    diag_clear(&fanout->diag);
    fanout->context.diag = &fanout->diag;
    fanout->context.now_millis = fake_clock;
    fanout->context.parallelism = (int)count;
    fanout->count = count;
    for (uint32_t i = 0; i < count; i++) {
        Collector *collector = &fanout->collectors[i];
        operator_init(&collector->base, &COLLECTOR_VTABLE, "Collector", 1, collector);
        collector->types = pair_types;
        collector->field_count = 2;
        ck_assert_int_eq(operator_open(&collector->base, &fanout->context), JOINERY_OK);
        fanout->targets[i].op = &collector->base;
        fanout->targets[i].input = 0;
    }
    ExchangeSpec spec = {keys, key_count, pair_types};
    fanout->exchange = exchange_operator_create(&spec, &fanout->diag);
    ck_assert_ptr_nonnull(fanout->exchange);
    fanout->exchange->broadcast = fanout->targets;
    fanout->exchange->broadcast_count = count;
    ck_assert_int_eq(operator_open(fanout->exchange, &fanout->context), JOINERY_OK);
}

static void fanout_close(Fanout *fanout)
{
    operator_close(fanout->exchange);
    for (uint32_t i = 0; i < fanout->count; i++) {
        operator_close(&fanout->collectors[i].base);
        strbuf_free(&fanout->collectors[i].log);
    }
}

/* The subtask a row with this (id, name) key goes to, computed independently. */
static uint32_t expected_subtask(const char *id, const char *name, uint32_t key_count,
                                 uint32_t parallelism)
{
    RowBuilder builder;
    row_builder_init(&builder);
    row_builder_begin(&builder, key_count, ROW_KIND_INSERT);
    if (strcmp(id, "NULL") == 0)
        row_builder_set_null(&builder, 0);
    else
        row_builder_set_int64(&builder, 0, strtoll(id, NULL, 10));
    if (key_count == 2)
        row_builder_set_string(&builder, 1, name, (uint32_t)strlen(name));
    uint32_t subtask = exchange_route(row_builder_finish(&builder), parallelism);
    row_builder_free(&builder);
    return subtask;
}

START_TEST(test_exchange_routes_by_key_hash)
{
    static const uint32_t keys[1] = {0};
    Fanout fanout;
    fanout_open(&fanout, 3, keys, 1);
    /* many keys, each twice with different payloads and kinds */
    StrBuf expected[3] = {STRBUF_INIT, STRBUF_INIT, STRBUF_INIT};
    StrBuf batch = STRBUF_INIT;
    for (int round = 0; round < 2; round++) {
        strbuf_clear(&batch);
        for (int id = 0; id < 60; id++) {
            const char *kind = round ? "-D" : "+I";
            strbuf_printf(&batch, "%s%s %d,p%d", batch.length ? ";" : "", kind, id, round);
            char number[16];
            snprintf(number, sizeof number, "%d", id);
            uint32_t subtask = expected_subtask(number, "", 1, 3);
            strbuf_printf(&expected[subtask], "%s%s(%d,p%d)", expected[subtask].length ? " " : "",
                          kind, id, round);
        }
        ck_assert_int_eq(push_rows(fanout.exchange, 0, pair_types, 2, strbuf_cstr(&batch)),
                         JOINERY_OK);
    }
    /* NULL keys are routed too, always to the same subtask */
    ck_assert_int_eq(push_rows(fanout.exchange, 0, pair_types, 2, "+I NULL,a;+I NULL,b"),
                     JOINERY_OK);
    uint32_t null_subtask = expected_subtask("NULL", "", 1, 3);
    strbuf_printf(&expected[null_subtask], " +I(NULL,a) +I(NULL,b)");
    uint32_t used = 0;
    for (uint32_t i = 0; i < 3; i++) {
        char buffer[8192];
        ck_assert_str_eq(take_log(&fanout.collectors[i], buffer, sizeof buffer),
                         strbuf_cstr(&expected[i]));
        used += fanout.collectors[i].rows > 0;
    }
    ck_assert_uint_eq(used, 3); /* 60 keys spread over every subtask */
    ck_assert_uint_eq(fanout.exchange->metrics.rows_out, 122);
    /* watermarks and end of input go to every subtask */
    ck_assert_int_eq(operator_push_watermark(fanout.exchange, 0, 0, 42), JOINERY_OK);
    ck_assert_int_eq(operator_end_input(fanout.exchange, 0), JOINERY_OK);
    for (uint32_t i = 0; i < 3; i++) {
        char buffer[64];
        ck_assert_str_eq(take_log(&fanout.collectors[i], buffer, sizeof buffer), "W(42) END");
        strbuf_free(&expected[i]);
    }
    strbuf_free(&batch);
    fanout_close(&fanout);
}
END_TEST

START_TEST(test_exchange_composite_keys_and_determinism)
{
    static const uint32_t keys[2] = {0, 1};
    Fanout first, second;
    fanout_open(&first, 4, keys, 2);
    fanout_open(&second, 4, keys, 2);
    const char *rows = "+I 1,a;+I 1,b;+I 2,a;+I 1,a;+U 7,zz;+I 7,zz;-D 2,a";
    ck_assert_int_eq(push_rows(first.exchange, 0, pair_types, 2, rows), JOINERY_OK);
    ck_assert_int_eq(push_rows(second.exchange, 0, pair_types, 2, rows), JOINERY_OK);
    for (uint32_t i = 0; i < 4; i++) {
        char a[1024], b[1024];
        /* two exchanges route identically; equal keys land on the same subtask */
        ck_assert_str_eq(take_log(&first.collectors[i], a, sizeof a),
                         take_log(&second.collectors[i], b, sizeof b));
        if (strstr(a, "(1,a)")) {
            ck_assert_uint_eq(i, expected_subtask("1", "a", 2, 4));
            ck_assert_ptr_nonnull(strstr(strstr(a, "(1,a)") + 1, "(1,a)"));
        }
        if (strstr(a, "(2,a)"))
            ck_assert_ptr_nonnull(strstr(a, "+I(2,a)") && strstr(a, "-D(2,a)") ? a : NULL);
        if (strstr(a, "7,zz"))
            ck_assert_ptr_nonnull(strstr(a, "+U(7,zz) +I(7,zz)"));
    }
    fanout_close(&first);
    fanout_close(&second);
    /* routing is a pure function of the key bytes */
    ck_assert_uint_eq(expected_subtask("12345", "x", 2, 8), expected_subtask("12345", "x", 2, 8));
    ck_assert_uint_lt(expected_subtask("12345", "x", 2, 8), 8);
    ck_assert_uint_eq(expected_subtask("12345", "x", 2, 1), 0);
}
END_TEST

START_TEST(test_exchange_single_distribution)
{
    Fanout fanout;
    fanout_open(&fanout, 3, NULL, 0);
    ck_assert_int_eq(push_rows(fanout.exchange, 0, pair_types, 2, "+I 1,a;+I 2,b;-D 3,c"),
                     JOINERY_OK);
    char buffer[256];
    ck_assert_str_eq(take_log(&fanout.collectors[0], buffer, sizeof buffer),
                     "+I(1,a) +I(2,b) -D(3,c)");
    ck_assert_str_eq(take_log(&fanout.collectors[1], buffer, sizeof buffer), "");
    ck_assert_str_eq(take_log(&fanout.collectors[2], buffer, sizeof buffer), "");
    fanout_close(&fanout);
}
END_TEST

/* ---- Union ---- */

START_TEST(test_union_forwards_and_merges)
{
    init_pair_types();
    Harness h;
    harness_init(&h, pair_types, 2);
    harness_open(&h, union_operator_create(2, &h.diag));
    ck_assert_int_eq(push_rows(h.op, 0, pair_types, 2, "+I 1,a;-U 1,a"), JOINERY_OK);
    ck_assert_int_eq(push_rows(h.op, 1, pair_types, 2, "+U 2,NULL"), JOINERY_OK);
    EXPECT(&h, "+I(1,a) -U(1,a) +U(2,NULL)");
    /* the watermark is the minimum over the inputs */
    ck_assert_int_eq(operator_push_watermark(h.op, 0, 0, 10), JOINERY_OK);
    EXPECT(&h, "");
    ck_assert_int_eq(operator_push_watermark(h.op, 1, 1, 5), JOINERY_OK);
    EXPECT(&h, "W(5)");
    ck_assert_int_eq(operator_push_watermark(h.op, 1, 1, 20), JOINERY_OK);
    EXPECT(&h, "W(10)");
    ck_assert_int_eq(operator_push_watermark(h.op, 1, 1, 15), JOINERY_OK); /* never backwards */
    EXPECT(&h, "");
    /* the end arrives only when both inputs ended */
    ck_assert_int_eq(operator_end_input(h.op, 0), JOINERY_OK);
    EXPECT(&h, "");
    ck_assert_int_eq(push_rows(h.op, 1, pair_types, 2, "+I 3,c"), JOINERY_OK);
    ck_assert_int_eq(operator_end_input(h.op, 1), JOINERY_OK);
    EXPECT(&h, "+I(3,c) END");
    ck_assert_uint_eq(h.collector.ended, 1);
    harness_close(&h);
}
END_TEST

/* ---- watermark status (idleness) in the default watermark handling ---- */

/* Sends status or watermark `text` ("I", "A" or a number) on channel `channel` of h.op. */
static int push_event(Harness *h, uint32_t channel, const char *text)
{
    if (strcmp(text, "I") == 0)
        return operator_push_watermark_status(h->op, channel, channel, WATERMARK_STATUS_IDLE);
    if (strcmp(text, "A") == 0)
        return operator_push_watermark_status(h->op, channel, channel, WATERMARK_STATUS_ACTIVE);
    return operator_push_watermark(h->op, channel, channel, strtoll(text, NULL, 10));
}
#define EVENT(h, channel, text) ck_assert_int_eq(push_event(h, channel, text), JOINERY_OK)

START_TEST(test_default_watermark_skips_idle_inputs)
{
    init_pair_types();
    Harness h;
    harness_init(&h, pair_types, 2);
    harness_open(&h, union_operator_create(3, &h.diag));
    EVENT(&h, 0, "10");
    EVENT(&h, 1, "5");
    EXPECT(&h, ""); /* input 2 has sent nothing: it holds the minimum back */
    EVENT(&h, 2, "I");
    EXPECT(&h, "W(5)"); /* idle: the minimum is over inputs 0 and 1 */
    EVENT(&h, 1, "I");
    EXPECT(&h, "W(10)"); /* input 1 held the minimum */
    ck_assert_int_eq(h.op->watermark_status, WATERMARK_STATUS_ACTIVE);
    /* a watermark on an idle input makes it active again; behind the output (10) it is
       left out until it catches up, so the output never goes back */
    EVENT(&h, 1, "7");
    EXPECT(&h, "");
    ck_assert(!h.op->channel_watermarks[1].idle);
    EVENT(&h, 0, "20");
    EXPECT(&h, "W(20)");
    EVENT(&h, 1, "25"); /* caught up: counts again */
    EXPECT(&h, "");
    EVENT(&h, 0, "30");
    EXPECT(&h, "W(25)");
    EVENT(&h, 0, "28"); /* never backwards per input */
    EXPECT(&h, "");
    ck_assert_int_eq(h.op->current_watermark, 25);
    harness_close(&h);
}
END_TEST

START_TEST(test_default_watermark_all_idle_and_back)
{
    init_pair_types();
    Harness h;
    harness_init(&h, pair_types, 2);
    harness_open(&h, union_operator_create(2, &h.diag));
    EVENT(&h, 0, "30");
    EVENT(&h, 1, "25");
    EXPECT(&h, "W(25)");
    EVENT(&h, 0, "I");
    EXPECT(&h, "");
    /* the last active input goes idle while holding the output: the output moves to the
       largest input watermark, then the operator announces itself idle, once */
    EVENT(&h, 1, "I");
    EXPECT(&h, "W(30) IDLE");
    ck_assert_int_eq(h.op->watermark_status, WATERMARK_STATUS_IDLE);
    EVENT(&h, 1, "I");
    EXPECT(&h, "");
    /* rows while idle pass (a producer announces ACTIVE first; rows carry no status) */
    ck_assert_int_eq(push_rows(h.op, 0, pair_types, 2, "+I 1,a"), JOINERY_OK);
    EXPECT(&h, "+I(1,a)");
    /* reactivation: announced at once; input 1 is behind (25 < 30), so it does not count
       until it catches up, and the output stays at 30 */
    EVENT(&h, 1, "A");
    EXPECT(&h, "ACTIVE");
    EVENT(&h, 1, "28");
    EXPECT(&h, "");
    EVENT(&h, 1, "35");
    EXPECT(&h, "W(35)"); /* input 0 is still idle */
    /* input 0 comes back with a watermark, ahead: it counts at once */
    EVENT(&h, 0, "40");
    EXPECT(&h, "");
    EVENT(&h, 1, "50");
    EXPECT(&h, "W(40)");
    /* all idle again, the last one not holding the output: no jump, just idle */
    EVENT(&h, 0, "I");
    EXPECT(&h, "W(50)"); /* input 0 held it: input 1 alone decides */
    EVENT(&h, 1, "I");
    EXPECT(&h, "IDLE");
    /* a watermark on an idle input: active first, then the watermark when it is ahead */
    EVENT(&h, 0, "45");
    EXPECT(&h, "ACTIVE");
    EVENT(&h, 0, "60");
    EXPECT(&h, "W(60)");
    ck_assert_int_eq(h.op->current_watermark, 60);
    harness_close(&h);
}
END_TEST

START_TEST(test_default_watermark_per_channel)
{
    /* two inputs from two upstream subtasks each (channels 0,1: input 0; 2,3: input 1),
       as behind exchanges at parallelism 2: the minimum is over every channel */
    init_pair_types();
    Harness h;
    harness_init(&h, pair_types, 2);
    harness_open(&h, union_operator_create(2, &h.diag));
    h.op->channel_count = 4;
    ck_assert_int_eq(operator_push_watermark(h.op, 0, 0, 100), JOINERY_OK);
    ck_assert_int_eq(operator_push_watermark(h.op, 1, 2, 100), JOINERY_OK);
    ck_assert_int_eq(operator_push_watermark(h.op, 1, 3, 100), JOINERY_OK);
    EXPECT(&h, ""); /* channel 1 (input 0, subtask 1) has nothing yet */
    ck_assert_int_eq(operator_push_watermark(h.op, 0, 1, 50), JOINERY_OK);
    EXPECT(&h, "W(50)");
    /* one subtask of input 0 idle (a reader without records): the other decides */
    ck_assert_int_eq(operator_push_watermark_status(h.op, 0, 1, WATERMARK_STATUS_IDLE), JOINERY_OK);
    EXPECT(&h, "W(100)");
    /* both channels of input 1 idle: input 0 alone; the operator stays active */
    ck_assert_int_eq(operator_push_watermark_status(h.op, 1, 2, WATERMARK_STATUS_IDLE), JOINERY_OK);
    ck_assert_int_eq(operator_push_watermark_status(h.op, 1, 3, WATERMARK_STATUS_IDLE), JOINERY_OK);
    ck_assert_int_eq(operator_push_watermark(h.op, 0, 0, 200), JOINERY_OK);
    EXPECT(&h, "W(200)");
    ck_assert_int_eq(operator_push_watermark_status(h.op, 0, 0, WATERMARK_STATUS_IDLE), JOINERY_OK);
    EXPECT(&h, "IDLE");
    harness_close(&h);
}
END_TEST

/* A two-input operator reacting to watermarks: logs each merged watermark it is given as
   "M(x)" and forwards x - 5 (holds watermarks back, as an operator with buffered rows). */
typedef struct Reactor {
    Operator base;
    Collector *log;
} Reactor;

static int reactor_process(Operator *self, uint32_t input, const RowBatch *batch)
{
    (void)self;
    (void)input;
    (void)batch;
    return JOINERY_OK;
}

static int reactor_on_watermark(Operator *self, int64_t watermark)
{
    Reactor *reactor = self->impl;
    char text[48];
    snprintf(text, sizeof text, "M(%lld)", (long long)watermark);
    collector_log(reactor->log, text);
    return operator_emit_watermark(self, watermark - 5);
}

static const OperatorVtable REACTOR_VTABLE = {
    .process = reactor_process,
    .on_watermark = reactor_on_watermark,
};

START_TEST(test_on_watermark_after_the_valve)
{
    /* the valve merges the channels (and idleness) and calls on_watermark once per
       advance of the merged watermark; what the operator forwards is its own business */
    init_pair_types();
    Harness h;
    harness_init(&h, pair_types, 2);
    Reactor reactor = {.log = &h.collector};
    operator_init(&reactor.base, &REACTOR_VTABLE, "Reactor", 2, &reactor);
    operator_connect(&reactor.base, &h.collector.base, 0);
    ck_assert_int_eq(operator_open(&reactor.base, &h.context), JOINERY_OK);
    h.op = &reactor.base;
    EVENT(&h, 0, "10");
    EXPECT(&h, ""); /* channel 1 has sent nothing */
    EVENT(&h, 1, "20");
    EXPECT(&h, "M(10) W(5)");
    EVENT(&h, 0, "30");
    EXPECT(&h, "M(20) W(15)");
    EVENT(&h, 0, "40");
    EXPECT(&h, ""); /* channel 1 still holds it at 20 */
    ck_assert_int_eq(h.op->input_watermark, 20);
    ck_assert_int_eq(h.op->current_watermark, 15);
    /* idleness is the valve's too: channel 1 idle, channel 0 decides */
    EVENT(&h, 1, "I");
    EXPECT(&h, "M(40) W(35)");
    /* the merged watermark, not the forwarded one, decides who is behind: channel 1
       coming back at 38 (ahead of 35 sent, behind 40 merged) does not count yet */
    EVENT(&h, 1, "38");
    EXPECT(&h, "");
    EVENT(&h, 1, "50");
    EVENT(&h, 0, "45");
    EXPECT(&h, "M(45) W(40)");
    harness_close(&h);
}
END_TEST

START_TEST(test_status_through_calc_and_exchange)
{
    /* single-input operators forward the status of their input; an exchange tells every
       downstream subtask */
    static const uint32_t keys[1] = {0};
    Fanout fanout;
    fanout_open(&fanout, 2, keys, 1);
    ck_assert_int_eq(operator_push_watermark(fanout.exchange, 0, 0, 5), JOINERY_OK);
    ck_assert_int_eq(operator_push_watermark_status(fanout.exchange, 0, 0, WATERMARK_STATUS_IDLE),
                     JOINERY_OK);
    ck_assert_int_eq(operator_push_watermark_status(fanout.exchange, 0, 0, WATERMARK_STATUS_ACTIVE),
                     JOINERY_OK);
    ck_assert_int_eq(operator_push_watermark(fanout.exchange, 0, 0, 9), JOINERY_OK);
    for (uint32_t i = 0; i < 2; i++) {
        char buffer[64];
        ck_assert_str_eq(take_log(&fanout.collectors[i], buffer, sizeof buffer),
                         "W(5) IDLE ACTIVE W(9)");
    }
    fanout_close(&fanout);
}
END_TEST

/* ---- WatermarkAssigner ---- */

START_TEST(test_watermark_assigner)
{
    /* (id BIGINT, ts TIMESTAMP(3)), watermark ts - INTERVAL '5' SECOND */
    DataType types[2] = {t_bigint(), type_make_timestamp(TYPE_TIMESTAMP, 3, true)};
    Harness h;
    harness_init(&h, types, 2);
    DataType interval = type_make(TYPE_INTERVAL_DAY_TIME, false);
    Expr *watermark =
        call(&h.arena, NULL, FUNCTION_MINUS, expr_make_input_ref(&h.arena, 1, types[1]),
             expr_make_literal(&h.arena, interval, value_int(5000)));
    harness_open(&h, watermark_assigner_operator_create(watermark, 2, 0, &h.diag));
    /* rows pass unchanged; the watermark follows the maximum, after the batch */
    ck_assert_int_eq(push_rows(h.op, 0, types, 2, "+I 1,10000;+I 2,12000;-D 3,11000"), JOINERY_OK);
    EXPECT(&h, "+I(1,10000) +I(2,12000) -D(3,11000) W(7000)");
    /* late rows and NULL timestamps do not move it */
    ck_assert_int_eq(push_rows(h.op, 0, types, 2, "+I 4,9000;+I 5,NULL"), JOINERY_OK);
    EXPECT(&h, "+I(4,9000) +I(5,NULL)");
    ck_assert_int_eq(push_rows(h.op, 0, types, 2, "+I 6,20000"), JOINERY_OK);
    EXPECT(&h, "+I(6,20000) W(15000)");
    ck_assert_int_eq(h.collector.base.current_watermark, 15000);
    /* end of input: +infinity, then the end */
    ck_assert_int_eq(operator_end_input(h.op, 0), JOINERY_OK);
    EXPECT(&h, "W(MAX) END");
    harness_close(&h);
}
END_TEST

START_TEST(test_watermark_assigner_idle_timeout)
{
    /* table.exec.source.idle-timeout = 1000 ms on the fake clock */
    DataType types[2] = {t_bigint(), type_make_timestamp(TYPE_TIMESTAMP, 3, true)};
    Harness h;
    harness_init(&h, types, 2);
    fake_now = 100; /* opened at 100: the first timeout counts from there */
    harness_open(&h, watermark_assigner_operator_create(expr_make_input_ref(&h.arena, 1, types[1]),
                                                        2, 1000, &h.diag));
    ck_assert_int_eq(operator_advance_processing_time(h.op, 1099), JOINERY_OK);
    EXPECT(&h, "");
    ck_assert_int_eq(operator_advance_processing_time(h.op, 1100), JOINERY_OK);
    EXPECT(&h, "IDLE"); /* no row at all for the timeout */
    ck_assert_int_eq(operator_advance_processing_time(h.op, 1200), JOINERY_OK);
    EXPECT(&h, ""); /* announced once */
    /* the next row: active first, then the row, then the watermark */
    fake_now = 1500;
    ck_assert_int_eq(push_rows(h.op, 0, types, 2, "+I 1,8000"), JOINERY_OK);
    EXPECT(&h, "ACTIVE +I(1,8000) W(8000)");
    ck_assert_int_eq(operator_advance_processing_time(h.op, 2499), JOINERY_OK);
    EXPECT(&h, "");
    fake_now = 2000;
    ck_assert_int_eq(push_rows(h.op, 0, types, 2, "+I 2,9000"), JOINERY_OK);
    EXPECT(&h, "+I(2,9000) W(9000)");
    ck_assert_int_eq(operator_advance_processing_time(h.op, 2999),
                     JOINERY_OK); /* counted from the last row */
    EXPECT(&h, "");
    ck_assert_int_eq(operator_advance_processing_time(h.op, 3000), JOINERY_OK);
    EXPECT(&h, "IDLE");
    /* a late row after idleness: active again, the watermark does not move back */
    fake_now = 4000;
    ck_assert_int_eq(push_rows(h.op, 0, types, 2, "+I 3,1000"), JOINERY_OK);
    EXPECT(&h, "ACTIVE +I(3,1000)");
    ck_assert_int_eq(operator_advance_processing_time(h.op, 5000), JOINERY_OK);
    EXPECT(&h, "IDLE");
    /* end of input while idle: active, +infinity, end */
    ck_assert_int_eq(operator_end_input(h.op, 0), JOINERY_OK);
    EXPECT(&h, "ACTIVE W(MAX) END");
    harness_close(&h);
    /* without a timeout it never goes idle */
    harness_init(&h, types, 2);
    harness_open(&h, watermark_assigner_operator_create(expr_make_input_ref(&h.arena, 1, types[1]),
                                                        2, 0, &h.diag));
    ck_assert_int_eq(operator_advance_processing_time(h.op, 1000000), JOINERY_OK);
    EXPECT(&h, "");
    harness_close(&h);
}
END_TEST

/* ---- sources ---- */

START_TEST(test_values_source)
{
    DataType types[2] = {type_make(TYPE_INT, false), type_make_varchar(3, false)};
    Harness h;
    harness_init(&h, types, 2);
    Expr **rows[2];
    for (int r = 0; r < 2; r++) {
        rows[r] = arena_calloc(&h.arena, 2, sizeof(Expr *));
        rows[r][0] = expr_make_literal(&h.arena, types[0], value_int(r + 1));
        rows[r][1] =
            expr_make_literal(&h.arena, types[1], value_string(r ? "yes" : "no", r ? 3 : 2));
    }
    harness_open(&h, values_operator_create(rows, 2, types, 2, &h.diag));
    SourceState state = SOURCE_STATE_ACTIVE;
    int64_t next = 0;
    for (int polls = 0; polls < 10 && state != SOURCE_STATE_ENDED; polls++)
        ck_assert_int_eq(source_operator_poll(h.op, 0, &state, &next), JOINERY_OK);
    ck_assert_int_eq(state, SOURCE_STATE_ENDED);
    EXPECT(&h, "+I(1,no) +I(2,yes) END");
    ck_assert_uint_eq(source_operator_skipped_rows(h.op), 0);
    harness_close(&h);
}
END_TEST

START_TEST(test_scan_source_over_a_file)
{
    char directory[] = "/tmp/check_operators_XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(directory));
    char path[256];
    snprintf(path, sizeof path, "%s/t.json", directory);
    FILE *file = fopen(path, "w");
    ck_assert_ptr_nonnull(file);
    fputs("{\"id\":1,\"name\":\"a\",\"score\":10}\n"
          "{\"id\":2,\"name\":\"b\",\"score\":1}\n"
          "not json\n"
          "{\"id\":3,\"name\":null,\"score\":7}\n",
          file);
    fclose(file);
    CatalogTable *table = catalog_table_new("t", false);
    DataType column_types[3] = {t_bigint(), t_string(), t_bigint()};
    const char *names[3] = {"id", "name", "score"};
    table->column_count = 3;
    table->columns = arena_calloc(&table->arena, 3, sizeof(CatalogColumn));
    for (int i = 0; i < 3; i++) {
        table->columns[i].name = arena_strdup(&table->arena, names[i]);
        table->columns[i].type = column_types[i];
    }
    const char *options[] = {
        "connector", "filesystem", "path", path, "format", "json", "json.ignore-parse-errors",
        "true"};
    table->option_count = 4;
    table->options = arena_calloc(&table->arena, 4, sizeof(CatalogOption));
    for (int i = 0; i < 4; i++) {
        table->options[i].key = arena_strdup(&table->arena, options[2 * i]);
        table->options[i].value = arena_strdup(&table->arena, options[2 * i + 1]);
    }
    /* read (name, id, score); emit (name, id); filter score > 5 */
    static const uint32_t columns[3] = {1, 0, 2};
    DataType read_types[3] = {t_string(), t_bigint(), t_bigint()};
    Harness h;
    harness_init(&h, read_types, 2);
    ScanSpec spec;
    memset(&spec, 0, sizeof spec);
    spec.source.table = table;
    spec.source.field_count = 3;
    spec.source.columns = columns;
    spec.source.types = read_types;
    spec.source.subtask_index = 0;
    spec.source.parallelism = 1;
    spec.output_count = 2;
    spec.filter = call(&h.arena, NULL, FUNCTION_GREATER,
                       expr_make_input_ref(&h.arena, 2, read_types[2]), literal(&h.arena, 5));
    SourceReader *reader = NULL;
    ck_assert_int_eq(connector_find("filesystem")->create_source(&spec.source, &reader, &h.diag),
                     JOINERY_OK);
    harness_open(&h, scan_operator_create(&spec, reader, &h.diag));
    SourceState state = SOURCE_STATE_ACTIVE;
    int64_t next = 0;
    for (int polls = 0; polls < 100 && state != SOURCE_STATE_ENDED; polls++)
        ck_assert_msg(source_operator_poll(h.op, 0, &state, &next) == JOINERY_OK, "%s",
                      h.diag.message);
    ck_assert_int_eq(state, SOURCE_STATE_ENDED);
    EXPECT(&h, "+I(a,1) +I(NULL,3) END");
    ck_assert_uint_eq(source_operator_skipped_rows(h.op), 1);
    harness_close(&h);
    catalog_table_free(table);
    unlink(path);
    rmdir(directory);
}
END_TEST

/* ---- sink collector ---- */

typedef struct Collected {
    StrBuf text;
    int stop_after; /* stop the job after this many rows; 0: never */
    int seen;
} Collected;

static int collect(void *context, const Row *row)
{
    Collected *collected = context;
    DataType types[2] = {t_bigint(), t_string()};
    if (collected->text.length)
        strbuf_append_char(&collected->text, ' ');
    format_row(&collected->text, row, types, 2);
    collected->seen++;
    return collected->stop_after && collected->seen >= collected->stop_after ? 1 : 0;
}

START_TEST(test_sink_collector)
{
    init_pair_types();
    Diag diag;
    diag_clear(&diag);
    ExecContext context = {.diag = &diag, .now_millis = fake_clock, .parallelism = 1};
    Collected collected = {STRBUF_INIT, 0, 0};
    Operator *sink = sink_operator_create_collector(collect, &collected, &diag);
    ck_assert_ptr_nonnull(sink);
    ck_assert_int_eq(operator_open(sink, &context), JOINERY_OK);
    ck_assert_int_eq(push_rows(sink, 0, pair_types, 2, "+I 1,a;-U 1,a;+U 1,b;-D 2,NULL"),
                     JOINERY_OK);
    ck_assert_str_eq(strbuf_cstr(&collected.text), "+I(1,a) -U(1,a) +U(1,b) -D(2,NULL)");
    ck_assert_uint_eq(sink_operator_rows(sink), 4);
    ck_assert(!sink_operator_stopped(sink));
    ck_assert_int_eq(operator_end_input(sink, 0), JOINERY_OK);
    operator_close(sink);
    /* the client asks to stop: the push reports it and no later row is handed over */
    strbuf_clear(&collected.text);
    collected.stop_after = 2;
    collected.seen = 0;
    sink = sink_operator_create_collector(collect, &collected, &diag);
    ck_assert_int_eq(operator_open(sink, &context), JOINERY_OK);
    ck_assert_int_eq(push_rows(sink, 0, pair_types, 2, "+I 1,a;+I 2,b;+I 3,c"), JOINERY_CANCELLED);
    ck_assert(sink_operator_stopped(sink));
    ck_assert_str_eq(strbuf_cstr(&collected.text), "+I(1,a) +I(2,b)");
    operator_close(sink);
    strbuf_free(&collected.text);
}
END_TEST

/* ---- ChangelogNormalize ---- */

static Operator *normalize_create_mini_batch(Harness *h, int64_t ttl, int64_t mini_batch_size)
{
    static const uint32_t key[1] = {0};
    ChangelogNormalizeSpec spec = {.field_count = 2,
                                   .types = pair_types,
                                   .key_fields = key,
                                   .key_count = 1,
                                   .ttl_millis = ttl,
                                   .mini_batch_size = mini_batch_size};
    return changelog_normalize_operator_create(&spec, &h->diag);
}

static Operator *normalize_create(Harness *h, int64_t ttl)
{
    return normalize_create_mini_batch(h, ttl, 0);
}

/* Mini-batch (Flink's ProcTimeMiniBatchDeduplicateKeepLastRowFunction): each key's last row
   of a batch goes through the row-by-row step, keys in the order of their first row; a
   watermark, the size or the end of input ends a batch. */
START_TEST(test_changelog_normalize_mini_batch)
{
    init_pair_types();
    Harness h;
    harness_init(&h, pair_types, 2);
    harness_open(&h, normalize_create_mini_batch(&h, 0, 100));
    PUSH(&h, pair_types, 2, "+I 1,a;+U 2,x;+U 1,b;+U 1,c");
    EXPECT(&h, ""); /* buffered */
    ck_assert_int_eq(operator_push_watermark(h.op, 0, 0, 1000), JOINERY_OK);
    EXPECT(&h, "+I(1,c) +I(2,x) W(1000)");
    /* against the state: a change is -U/+U once however often it changed in the batch, an
       unchanged last row nothing, a delete after an update retracts the stored row */
    PUSH(&h, pair_types, 2, "+U 1,d;+U 1,e;+U 2,y;+U 2,x;+U 3,p;-D 3,p;-D 1,whatever");
    ck_assert_int_eq(operator_push_watermark(h.op, 0, 0, 2000), JOINERY_OK);
    EXPECT(&h, "-D(1,c) W(2000)");
    ck_assert_uint_eq(h.op->metrics.skipped_rows, 1); /* key 3: inserted and deleted */
    harness_close(&h);
    /* the batch size ends a batch too, and so does the end of input */
    harness_init(&h, pair_types, 2);
    harness_open(&h, normalize_create_mini_batch(&h, 0, 3));
    PUSH(&h, pair_types, 2, "+I 7,a;+U 7,b;+U 8,c");
    EXPECT(&h, "+I(7,b) +I(8,c)");
    PUSH(&h, pair_types, 2, "+U 7,z");
    EXPECT(&h, "");
    ck_assert_int_eq(operator_end_input(h.op, 0), JOINERY_OK);
    EXPECT(&h, "-U(7,b) +U(7,z) END");
    harness_close(&h);
}
END_TEST

START_TEST(test_changelog_normalize)
{
    init_pair_types();
    Harness h;
    harness_init(&h, pair_types, 2);
    harness_open(&h, normalize_create(&h, 0));
    PUSH(&h, pair_types, 2, "+I 1,a");
    EXPECT(&h, "+I(1,a)");
    /* upserts: a change becomes -U/+U, an unchanged row nothing */
    PUSH(&h, pair_types, 2, "+U 1,b");
    EXPECT(&h, "-U(1,a) +U(1,b)");
    PUSH(&h, pair_types, 2, "+U 1,b");
    EXPECT(&h, "");
    PUSH(&h, pair_types, 2, "+I 1,b");
    EXPECT(&h, "");
    /* NULL fields are content too */
    PUSH(&h, pair_types, 2, "+U 1,NULL");
    EXPECT(&h, "-U(1,b) +U(1,NULL)");
    /* a new key is an insert even when written +U */
    PUSH(&h, pair_types, 2, "+U 2,x");
    EXPECT(&h, "+I(2,x)");
    PUSH(&h, pair_types, 2, "+U 1,c");
    EXPECT(&h, "-U(1,NULL) +U(1,c)");
    /* -D carries only the key: the stored row is retracted */
    PUSH(&h, pair_types, 2, "-D 1,whatever");
    EXPECT(&h, "-D(1,c)");
    /* -D of an unknown (or already deleted) key is dropped and counted */
    PUSH(&h, pair_types, 2, "-D 1,NULL;-D 3,c");
    EXPECT(&h, "");
    ck_assert_uint_eq(h.op->metrics.skipped_rows, 2);
    /* after a delete the key starts over with +I */
    PUSH(&h, pair_types, 2, "+U 1,again");
    EXPECT(&h, "+I(1,again)");
    /* several rows of one key in one batch */
    PUSH(&h, pair_types, 2, "+U 5,p;+U 5,q;-D 5,q;+U 5,r");
    EXPECT(&h, "+I(5,p) -U(5,p) +U(5,q) -D(5,q) +I(5,r)");
    /* a NULL key is a key like any other */
    PUSH(&h, pair_types, 2, "+I NULL,n;+U NULL,m");
    EXPECT(&h, "+I(NULL,n) -U(NULL,n) +U(NULL,m)");
    h.op->vtable->report_state(h.op);
    ck_assert_uint_eq(h.op->metrics.state_keys, 4); /* 1, 2, 5, NULL */
    ck_assert_int_eq(operator_end_input(h.op, 0), JOINERY_OK);
    EXPECT(&h, "END");
    harness_close(&h);
}
END_TEST

START_TEST(test_changelog_normalize_ttl)
{
    init_pair_types();
    Harness h;
    harness_init(&h, pair_types, 2);
    harness_open(&h, normalize_create(&h, 1000));
    fake_now = 10000;
    PUSH(&h, pair_types, 2, "+I 1,a;+I 2,b");
    EXPECT(&h, "+I(1,a) +I(2,b)");
    /* an unchanged upsert refreshes the key's TTL */
    fake_now = 10800;
    PUSH(&h, pair_types, 2, "+U 1,a");
    EXPECT(&h, "");
    /* key 2 expired (written at 10000), key 1 did not (touched at 10800) */
    fake_now = 11500;
    PUSH(&h, pair_types, 2, "+U 2,c;+U 1,z");
    EXPECT(&h, "+I(2,c) -U(1,a) +U(1,z)");
    /* an expired key's delete is unknown */
    fake_now = 20000;
    PUSH(&h, pair_types, 2, "-D 1,z");
    EXPECT(&h, "");
    ck_assert_uint_eq(h.op->metrics.skipped_rows, 1);
    /* the timer drops expired keys from state */
    ck_assert_int_eq(operator_advance_processing_time(h.op, 20000), JOINERY_OK);
    h.op->vtable->report_state(h.op);
    ck_assert_uint_eq(h.op->metrics.state_keys, 0);
    ck_assert_uint_ge(h.op->metrics.expired_rows, 1);
    EXPECT(&h, "");
    harness_close(&h);
}
END_TEST

START_TEST(test_changelog_normalize_snapshot_restore)
{
    /* the last row per key (and its TTL) carried into a fresh operator on its own store */
    init_pair_types();
    Harness a, b;
    harness_init(&a, pair_types, 2);
    harness_open(&a, normalize_create(&a, 1000));
    fake_now = 10000;
    PUSH(&a, pair_types, 2, "+I 1,a;+I 2,b;+I 3,c");
    fake_now = 10500;
    PUSH(&a, pair_types, 2, "+U 2,b2;-D 3,c");
    harness_take(&a);
    SnapshotBuffer buffer = {0};
    StateWriter writer = snapshot_buffer_writer(&buffer);
    Barrier barrier = {7, 0};
    ck_assert_int_eq(operator_snapshot(a.op, &barrier, &writer), JOINERY_OK);
    int64_t now = fake_now;
    harness_init(&b, pair_types, 2);
    fake_now = now;
    harness_open(&b, normalize_create(&b, 1000));
    StateReader reader = snapshot_buffer_reader(&buffer);
    ck_assert_msg(operator_restore(b.op, &reader) == JOINERY_OK, "%s", b.diag.message);
    ck_assert_uint_eq(buffer.read_offset, buffer.length);
    snapshot_buffer_free(&buffer);
    /* key 1 (written at 10000) has expired at 11200, key 2 (10500) has not */
    fake_now = 11200;
    Harness *both[2] = {&a, &b};
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(push_rows(both[i]->op, 0, pair_types, 2, "+U 1,x;+U 2,y;+U 3,z"),
                         JOINERY_OK);
        EXPECT(both[i], "+I(1,x) -U(2,b2) +U(2,y) +I(3,z)");
    }
    /* a stateless operator has no snapshot to restore */
    Operator *stateless = union_operator_create(1, &b.diag);
    reader = snapshot_buffer_reader(&buffer);
    ExecContext context = {.diag = &b.diag, .now_millis = fake_clock, .parallelism = 1};
    ck_assert_int_eq(operator_open(stateless, &context), JOINERY_OK);
    ck_assert_int_ne(operator_restore(stateless, &reader), JOINERY_OK);
    operator_close(stateless);
    harness_close(&a);
    harness_close(&b);
}
END_TEST

/* ---- Channel and Mailbox ---- */

typedef struct Consumer {
    Mailbox *mailbox;
    uint32_t max_depth; /* the deepest the mailbox was seen */
    uint32_t messages;
    int status;
    uint32_t ends_left; /* END_OF_INPUT messages before it returns; 0 counts as 1 */
} Consumer;

/* Drains the mailbox into the messages' targets until the last END_OF_INPUT. */
static void *consume(void *argument)
{
    Consumer *consumer = argument;
    for (;;) {
        pthread_mutex_lock(&consumer->mailbox->lock);
        if (consumer->mailbox->depth > consumer->max_depth)
            consumer->max_depth = consumer->mailbox->depth;
        pthread_mutex_unlock(&consumer->mailbox->lock);
        MailboxMessage *message = mailbox_take(consumer->mailbox, 50);
        if (!message)
            continue;
        consumer->messages++;
        StreamElementKind kind = message->kind;
        int status = operator_deliver(message);
        free(message);
        if (status != JOINERY_OK)
            consumer->status = status;
        if (kind == STREAM_END_OF_INPUT && consumer->ends_left <= 1)
            return NULL;
        if (kind == STREAM_END_OF_INPUT)
            consumer->ends_left--;
    }
}

START_TEST(test_channel_to_another_thread)
{
    init_pair_types();
    Harness h;
    harness_init(&h, pair_types, 2);
    volatile int stop = 0;
    Mailbox mailbox;
    ck_assert_int_eq(mailbox_init(&mailbox, 2, &stop, NULL), JOINERY_OK);
    ck_assert_ptr_null(mailbox_take(&mailbox, 0)); /* empty: no wait */
    Operator *channel = channel_operator_create(&mailbox, &h.collector.base, 0, 0, &h.diag);
    ck_assert_ptr_nonnull(channel);
    ck_assert_int_eq(operator_open(channel, &h.context), JOINERY_OK);
    Consumer consumer = {&mailbox, 0, 0, JOINERY_OK, 1};
    pthread_t thread;
    ck_assert_int_eq(pthread_create(&thread, NULL, consume, &consumer), 0);
    /* 40 batches into a mailbox of 2: the producer waits for the consumer */
    StrBuf expected = STRBUF_INIT;
    for (int i = 0; i < 40; i++) {
        char rows[128];
        snprintf(rows, sizeof rows, "+I %d,r%d;-D %d,s%d", i, i, i, i);
        ck_assert_int_eq(push_rows(channel, 0, pair_types, 2, rows), JOINERY_OK);
        strbuf_printf(&expected, "%s+I(%d,r%d) -D(%d,s%d)", i ? " " : "", i, i, i, i);
        if (i == 20) {
            ck_assert_int_eq(operator_push_watermark(channel, 0, 0, 77), JOINERY_OK);
            strbuf_append_cstr(&expected, " W(77)");
        }
        if (i == 30 || i == 31) { /* the status crosses too, in order */
            WatermarkStatus status = i == 30 ? WATERMARK_STATUS_IDLE : WATERMARK_STATUS_ACTIVE;
            ck_assert_int_eq(operator_push_watermark_status(channel, 0, 0, status), JOINERY_OK);
            strbuf_append_cstr(&expected, i == 30 ? " IDLE" : " ACTIVE");
        }
    }
    ck_assert_int_eq(operator_end_input(channel, 0), JOINERY_OK);
    strbuf_append_cstr(&expected, " END");
    ck_assert_int_eq(pthread_join(thread, NULL), 0);
    ck_assert_int_eq(consumer.status, JOINERY_OK);
    ck_assert_uint_eq(consumer.messages, 44);
    ck_assert_uint_le(consumer.max_depth, 2);
    /* order preserved, rows intact, the end delivered once */
    ck_assert_str_eq(harness_take(&h), strbuf_cstr(&expected));
    ck_assert_uint_eq(h.collector.ended, 1);
    ck_assert_uint_eq(channel->metrics.rows_out, 80);
    ck_assert_uint_eq(mailbox.depth, 0);
    strbuf_free(&expected);
    operator_close(channel);
    mailbox_destroy(&mailbox);
    harness_close(&h);
}
END_TEST

START_TEST(test_status_between_threads_into_a_union)
{
    /* two producer threads' channels (channel 0: input 0, channel 1: input 1) into the
       mailbox of a Union on another thread, which combines status and watermarks */
    init_pair_types();
    Harness h;
    harness_init(&h, pair_types, 2);
    harness_open(&h, union_operator_create(2, &h.diag));
    volatile int stop = 0;
    Mailbox mailbox;
    ck_assert_int_eq(mailbox_init(&mailbox, 4, &stop, NULL), JOINERY_OK);
    Operator *channels[2];
    for (uint32_t i = 0; i < 2; i++) {
        channels[i] = channel_operator_create(&mailbox, h.op, i, i, &h.diag);
        ck_assert_ptr_nonnull(channels[i]);
        ck_assert_int_eq(operator_open(channels[i], &h.context), JOINERY_OK);
    }
    Consumer consumer = {&mailbox, 0, 0, JOINERY_OK, 2};
    pthread_t thread;
    ck_assert_int_eq(pthread_create(&thread, NULL, consume, &consumer), 0);
    ck_assert_int_eq(operator_push_watermark(channels[0], 0, 0, 10), JOINERY_OK);
    ck_assert_int_eq(operator_push_watermark(channels[1], 0, 0, 20), JOINERY_OK);
    ck_assert_int_eq(operator_push_watermark_status(channels[0], 0, 0, WATERMARK_STATUS_IDLE),
                     JOINERY_OK);
    ck_assert_int_eq(operator_push_watermark_status(channels[1], 0, 0, WATERMARK_STATUS_IDLE),
                     JOINERY_OK);
    ck_assert_int_eq(push_rows(channels[1], 0, pair_types, 2, "+I 1,a"), JOINERY_OK);
    ck_assert_int_eq(operator_push_watermark_status(channels[1], 0, 0, WATERMARK_STATUS_ACTIVE),
                     JOINERY_OK);
    ck_assert_int_eq(operator_push_watermark(channels[1], 0, 0, 30), JOINERY_OK);
    ck_assert_int_eq(operator_end_input(channels[0], 0), JOINERY_OK);
    ck_assert_int_eq(operator_end_input(channels[1], 0), JOINERY_OK);
    ck_assert_int_eq(pthread_join(thread, NULL), 0);
    ck_assert_int_eq(consumer.status, JOINERY_OK);
    ck_assert_uint_eq(consumer.messages, 9);
    /* input 0 idle: input 1 (20) decides; both idle: idle; back: active, 30 */
    ck_assert_str_eq(harness_take(&h), "W(10) W(20) IDLE +I(1,a) ACTIVE W(30) END");
    for (uint32_t i = 0; i < 2; i++)
        operator_close(channels[i]);
    mailbox_destroy(&mailbox);
    harness_close(&h);
}
END_TEST

START_TEST(test_mailbox_bounded_and_stop)
{
    init_pair_types();
    Harness h;
    harness_init(&h, pair_types, 2);
    volatile int stop = 0;
    Mailbox mailbox;
    ck_assert_int_eq(mailbox_init(&mailbox, 2, &stop, NULL), JOINERY_OK);
    Operator *channel = channel_operator_create(&mailbox, &h.collector.base, 3, 3, &h.diag);
    ck_assert_int_eq(operator_open(channel, &h.context), JOINERY_OK);
    ck_assert_int_eq(push_rows(channel, 0, pair_types, 2, "+I 1,a"), JOINERY_OK);
    ck_assert_int_eq(push_rows(channel, 0, pair_types, 2, "+I 2,b;+I 3,c"), JOINERY_OK);
    ck_assert_uint_eq(mailbox.depth, 2);
    /* the rows were copied: the message outlives the producer's batch */
    MailboxMessage *message = mailbox_take(&mailbox, 0);
    ck_assert_ptr_nonnull(message);
    ck_assert_int_eq(message->kind, STREAM_BATCH);
    ck_assert_ptr_eq(message->target, &h.collector.base);
    ck_assert_uint_eq(message->input, 3);
    ck_assert_uint_eq(message->channel, 3);
    ck_assert_uint_eq(message->batch.count, 1);
    ck_assert_int_eq(row_get_int64(message->batch.rows[0], 0), 1);
    ck_assert_uint_eq((uintptr_t)message->batch.rows[0] % 8, 0);
    free(message);
    ck_assert_int_eq(push_rows(channel, 0, pair_types, 2, "+I 4,d"), JOINERY_OK);
    ck_assert_uint_eq(mailbox.depth, 2);
    /* full and the job stopping: the producer gives up instead of waiting */
    stop = 1;
    ck_assert_int_eq(push_rows(channel, 0, pair_types, 2, "+I 5,e"), JOINERY_CANCELLED);
    ck_assert_uint_eq(mailbox.depth, 2);
    message = mailbox_take(&mailbox, 0);
    ck_assert_uint_eq(message->batch.count, 2);
    ck_assert_int_eq(row_get_int64(message->batch.rows[1], 0), 3);
    uint32_t length;
    const char *text = row_get_string(message->batch.rows[1], 1, &length);
    ck_assert(length == 1 && text[0] == 'c');
    free(message);
    /* the queued message is freed by destroy */
    operator_close(channel);
    mailbox_destroy(&mailbox);
    harness_close(&h);
}
END_TEST

/* ---- per-split watermarks (Kafka partitions) ---- */

START_TEST(test_split_watermarks_combination)
{
    SplitWatermarks w;
    int64_t watermark = 0;
    /* two splits, idle after 1000 ms without records; assigned at t=0 */
    ck_assert(split_watermarks_init(&w, 2, 1000, 0));
    /* split 1 has no record yet: it holds the watermark back */
    split_watermarks_observe(&w, 0, 5000, 10);
    ck_assert(!split_watermarks_update(&w, 20, &watermark));
    ck_assert_int_eq(w.current, INT64_MIN);
    /* the minimum over the splits */
    split_watermarks_observe(&w, 1, 3000, 30);
    ck_assert(split_watermarks_update(&w, 40, &watermark));
    ck_assert_int_eq(watermark, 3000);
    split_watermarks_observe(&w, 0, 9000, 50);
    split_watermarks_observe(&w, 1, 4000, 60);
    ck_assert(split_watermarks_update(&w, 70, &watermark));
    ck_assert_int_eq(watermark, 4000);
    /* a smaller record value (late record) does not lower its split */
    split_watermarks_observe(&w, 1, 1000, 80);
    ck_assert(!split_watermarks_update(&w, 90, &watermark));
    /* split 1 silent for the timeout: idle, released; split 0 alone decides */
    split_watermarks_observe(&w, 0, 9500, 1050);
    ck_assert(!split_watermarks_update(&w, 1079, &watermark)); /* 999 ms: not yet */
    ck_assert(split_watermarks_update(&w, 1080, &watermark));
    ck_assert_int_eq(watermark, 9500);
    ck_assert(!split_watermarks_all_idle(&w));
    /* split 1 reactivated by a record: it holds back again, but never backwards */
    split_watermarks_observe(&w, 1, 6000, 1100);
    ck_assert(!split_watermarks_update(&w, 1110, &watermark));
    ck_assert_int_eq(w.current, 9500);
    split_watermarks_observe(&w, 1, 12000, 1200);
    split_watermarks_observe(&w, 0, 11000, 1200);
    ck_assert(split_watermarks_update(&w, 1210, &watermark));
    ck_assert_int_eq(watermark, 11000);
    /* every split idle: the source is idle and the watermark stays */
    ck_assert(!split_watermarks_update(&w, 5000, &watermark));
    ck_assert(split_watermarks_all_idle(&w));
    ck_assert_int_eq(w.current, 11000);
    /* a finished split no longer holds back */
    split_watermarks_observe(&w, 0, 20000, 6000);
    split_watermarks_observe(&w, 1, 15000, 6000);
    ck_assert(split_watermarks_update(&w, 6001, &watermark));
    ck_assert_int_eq(watermark, 15000);
    split_watermarks_finish(&w, 1);
    ck_assert(split_watermarks_update(&w, 6002, &watermark));
    ck_assert_int_eq(watermark, 20000);
    split_watermarks_free(&w);
    /* without an idle timeout a split without records holds back forever */
    ck_assert(split_watermarks_init(&w, 2, 0, 0));
    split_watermarks_observe(&w, 0, 5000, 10);
    ck_assert(!split_watermarks_update(&w, 1000000, &watermark));
    split_watermarks_free(&w);
}
END_TEST

/* A reader handing out scripted batches of (id, ts) rows, each with its split. */
typedef struct ScriptReader {
    SourceReader base;
    const char *batches[8]; /* "split:id,ts;split:id,ts", NULL: idle poll */
    int next;
    int count;
    uint32_t splits[64];
    bool finished[2];
} ScriptReader;

static int script_poll(SourceReader *base, RowBatch *out, Arena *arena, uint32_t max_rows,
                       int64_t now_millis, int64_t *next_poll_millis, Diag *diag)
{
    (void)max_rows;
    (void)diag;
    ScriptReader *reader = (ScriptReader *)base;
    if (reader->next >= reader->count)
        return SOURCE_POLL_END;
    const char *batch = reader->batches[reader->next++];
    if (!batch) {
        *next_poll_millis = now_millis + 10;
        return SOURCE_POLL_IDLE;
    }
    char copy[512];
    snprintf(copy, sizeof copy, "%s", batch);
    RowBuilder builder;
    row_builder_init(&builder);
    for (char *part = strtok(copy, ";"); part; part = strtok(NULL, ";")) {
        uint32_t split = (uint32_t)strtoul(part, &part, 10);
        long long id = strtoll(part + 1, &part, 10);
        long long ts = strtoll(part + 1, NULL, 10);
        row_builder_begin(&builder, 2, ROW_KIND_INSERT);
        row_builder_set_int64(&builder, 0, id);
        row_builder_set_int64(&builder, 1, ts);
        reader->splits[out->count] = split;
        out->rows[out->count++] = row_copy(arena, row_builder_finish(&builder));
    }
    row_builder_free(&builder);
    return SOURCE_POLL_ROWS;
}

static void script_close(SourceReader *base)
{
    (void)base;
}

static const SourceReaderVtable SCRIPT_READER = {.poll = script_poll, .close = script_close};

START_TEST(test_scan_watermark_per_split)
{
    /* (id BIGINT, ts TIMESTAMP(3)) read from two splits, WATERMARK FOR ts AS ts */
    DataType types[2] = {t_bigint(), type_make_timestamp(TYPE_TIMESTAMP, 3, true)};
    Harness h;
    harness_init(&h, types, 2);
    ScriptReader reader = {0};
    reader.base.vtable = &SCRIPT_READER;
    reader.base.split_count = 2;
    reader.base.row_splits = reader.splits;
    reader.base.split_finished = reader.finished;
    reader.batches[0] = "0:1,1000;0:2,3000"; /* split 1 silent: holds back */
    reader.batches[1] = NULL;                /* idle poll at 500 ms: nothing yet */
    reader.batches[2] = "1:3,2000";          /* minimum of 3000 and 2000 */
    reader.batches[3] = "0:4,8000";          /* split 1 still at 2000 */
    reader.batches[4] = NULL;                /* 1 s later split 1 is idle: 8000 */
    reader.batches[5] = "1:5,6000;0:6,9000"; /* reactivated; never backwards */
    reader.count = 6;
    ScanSpec spec = {0};
    spec.source.field_count = 2;
    spec.source.types = types;
    spec.output_count = 2;
    spec.watermark = expr_make_input_ref(&h.arena, 1, types[1]);
    spec.idle_timeout_millis = 1000;
    spec.watermark_interval_millis = 200;
    harness_open(&h, scan_operator_create(&spec, &reader.base, &h.diag));
    SourceState state;
    int64_t next = 0;
    fake_now = 0;
    ck_assert_int_eq(source_operator_poll(h.op, fake_now, &state, &next), JOINERY_OK);
    EXPECT(&h, "+I(1,1000) +I(2,3000)");
    fake_now = 500;
    ck_assert_int_eq(source_operator_poll(h.op, fake_now, &state, &next), JOINERY_OK);
    ck_assert_int_eq(state, SOURCE_STATE_IDLE);
    EXPECT(&h, "");
    fake_now = 600;
    ck_assert_int_eq(source_operator_poll(h.op, fake_now, &state, &next), JOINERY_OK);
    EXPECT(&h, "+I(3,2000) W(2000)");
    fake_now = 700;
    ck_assert_int_eq(source_operator_poll(h.op, fake_now, &state, &next), JOINERY_OK);
    EXPECT(&h, "+I(4,8000)");
    fake_now = 1600; /* split 1's last record was at 600 */
    ck_assert_int_eq(source_operator_poll(h.op, fake_now, &state, &next), JOINERY_OK);
    EXPECT(&h, "W(8000)");
    ck_assert_int_eq(source_operator_watermark(h.op), 8000);
    fake_now = 1700;
    ck_assert_int_eq(source_operator_poll(h.op, fake_now, &state, &next), JOINERY_OK);
    EXPECT(&h, "+I(5,6000) +I(6,9000)");
    /* end of the bounded input: +infinity, then the end */
    ck_assert_int_eq(source_operator_poll(h.op, fake_now, &state, &next), JOINERY_OK);
    ck_assert_int_eq(state, SOURCE_STATE_ENDED);
    EXPECT(&h, "W(MAX) END");
    harness_close(&h);
}
END_TEST

/* Polls h.op at `now` and returns what reached the collector. */
static const char *poll_at(Harness *h, int64_t now)
{
    SourceState state;
    int64_t next = 0;
    fake_now = now;
    ck_assert_int_eq(source_operator_poll(h->op, now, &state, &next), JOINERY_OK);
    return harness_take(h);
}

START_TEST(test_scan_announces_idle)
{
    DataType types[2] = {t_bigint(), type_make_timestamp(TYPE_TIMESTAMP, 3, true)};
    Harness h;
    harness_init(&h, types, 2);
    ScriptReader reader = {0};
    reader.base.vtable = &SCRIPT_READER;
    reader.base.split_count = 2;
    reader.base.row_splits = reader.splits;
    reader.base.split_finished = reader.finished;
    const char *script[] = {"0:1,1000;1:2,2000", NULL, NULL, NULL, "1:3,5000", NULL};
    for (int i = 0; i < 6; i++)
        reader.batches[i] = script[i];
    reader.count = 6;
    ScanSpec spec = {0};
    spec.source.field_count = 2;
    spec.source.types = types;
    spec.output_count = 2;
    spec.watermark = expr_make_input_ref(&h.arena, 1, types[1]);
    spec.idle_timeout_millis = 1000;
    spec.watermark_interval_millis = 200;
    harness_open(&h, scan_operator_create(&spec, &reader.base, &h.diag));
    ck_assert_str_eq(poll_at(&h, 0), "+I(1,1000) +I(2,2000) W(1000)");
    ck_assert_str_eq(poll_at(&h, 500), "");
    /* both partitions without records for 1 s: the scan announces idle, once */
    ck_assert_str_eq(poll_at(&h, 1000), "IDLE");
    ck_assert_int_eq(h.op->watermark_status, WATERMARK_STATUS_IDLE);
    ck_assert_str_eq(poll_at(&h, 1300), "");
    /* a record: active before its row; partition 0 is still idle, so 5000 */
    ck_assert_str_eq(poll_at(&h, 1400), "ACTIVE +I(3,5000) W(5000)");
    ck_assert_str_eq(poll_at(&h, 2400), "IDLE");
    ck_assert_int_eq(h.op->current_watermark, 5000);
    ck_assert_str_eq(poll_at(&h, 2500), "ACTIVE W(MAX) END");
    harness_close(&h);

    /* a reader without partitions (more subtasks than partitions) is idle once the
       timeout passed; without a timeout it holds the watermark back, as in Flink */
    for (int timeout = 0; timeout <= 1000; timeout += 1000) {
        harness_init(&h, types, 2);
        ScriptReader empty = {0};
        empty.base.vtable = &SCRIPT_READER;
        empty.base.split_count = 0;
        empty.base.row_splits = empty.splits;
        empty.count = 4; /* idle polls */
        spec.idle_timeout_millis = timeout;
        harness_open(&h, scan_operator_create(&spec, &empty.base, &h.diag));
        ck_assert_str_eq(poll_at(&h, 0), "");
        ck_assert_str_eq(poll_at(&h, 999), "");
        ck_assert_str_eq(poll_at(&h, 1199), timeout ? "IDLE" : ""); /* the next check */
        ck_assert_str_eq(poll_at(&h, 5000), "");
        harness_close(&h);
    }
}
END_TEST

START_TEST(test_calc_current_watermark)
{
    /* SELECT id, CURRENT_WATERMARK(ts) WHERE ts > CURRENT_WATERMARK(ts) OR it IS NULL */
    DataType types[2] = {t_bigint(), type_make_timestamp(TYPE_TIMESTAMP, 3, true)};
    DataType rowtime = types[1];
    rowtime.time_attribute = TIME_ATTRIBUTE_ROWTIME;
    static DataType out[2];
    Harness h;
    harness_init(&h, out, 2);
    Arena *arena = &h.arena;
    Expr *watermark = call(arena, "CURRENT_WATERMARK", FUNCTION_CURRENT_WATERMARK,
                           expr_make_input_ref(arena, 1, rowtime), NULL);
    ck_assert_int_eq(watermark->type.id, TYPE_TIMESTAMP);
    ck_assert(watermark->type.nullable);
    Expr *projects[2] = {expr_make_input_ref(arena, 0, types[0]), watermark};
    out[0] = types[0];
    out[1] = watermark->type;
    Expr *late =
        call(arena, NULL, FUNCTION_GREATER, expr_make_input_ref(arena, 1, rowtime), watermark);
    Expr *none = call(arena, NULL, FUNCTION_IS_NULL, watermark, NULL);
    Expr *condition = call(arena, NULL, FUNCTION_OR, late, none);
    CalcSpec spec = {2, projects, out, 2, condition};
    harness_open(&h, calc_operator_create(&spec, &h.diag));
    PUSH(&h, types, 2, "+I 1,5000;+I 2,1000");
    EXPECT(&h, "+I(1,NULL) +I(2,NULL)"); /* no watermark yet: NULL */
    ck_assert_int_eq(operator_push_watermark(h.op, 0, 0, 4000), JOINERY_OK);
    EXPECT(&h, "W(4000)");
    PUSH(&h, types, 2, "+I 3,3000;+I 4,4000;+I 5,4001");
    EXPECT(&h, "+I(5,4000)"); /* rows at or behind the watermark are dropped */
    harness_close(&h);
    /* CURRENT_WATERMARK needs a rowtime attribute */
    Arena scratch;
    arena_init(&scratch, 1024);
    Expr *args[1] = {expr_make_input_ref(&scratch, 1, types[1])};
    Diag diag;
    diag_clear(&diag);
    ck_assert_ptr_null(function_resolve(&scratch, "CURRENT_WATERMARK", FUNCTION_CURRENT_WATERMARK,
                                        args, 1, &diag));
    ck_assert_ptr_nonnull(strstr(diag.message, "rowtime attribute"));
    arena_destroy(&scratch);
}
END_TEST

static Suite *operators_suite(void)
{
    Suite *suite = suite_create("operators");
    TCase *stateless = tcase_create("stateless");
    tcase_add_test(stateless, test_calc_project_and_filter);
    tcase_add_test(stateless, test_calc_without_condition_and_many_rows);
    tcase_add_test(stateless, test_exchange_routes_by_key_hash);
    tcase_add_test(stateless, test_exchange_composite_keys_and_determinism);
    tcase_add_test(stateless, test_exchange_single_distribution);
    tcase_add_test(stateless, test_union_forwards_and_merges);
    tcase_add_test(stateless, test_default_watermark_skips_idle_inputs);
    tcase_add_test(stateless, test_default_watermark_all_idle_and_back);
    tcase_add_test(stateless, test_default_watermark_per_channel);
    tcase_add_test(stateless, test_on_watermark_after_the_valve);
    tcase_add_test(stateless, test_status_through_calc_and_exchange);
    tcase_add_test(stateless, test_watermark_assigner);
    tcase_add_test(stateless, test_watermark_assigner_idle_timeout);
    tcase_add_test(stateless, test_split_watermarks_combination);
    tcase_add_test(stateless, test_scan_watermark_per_split);
    tcase_add_test(stateless, test_scan_announces_idle);
    tcase_add_test(stateless, test_calc_current_watermark);
    suite_add_tcase(suite, stateless);
    TCase *ends = tcase_create("sources and sinks");
    tcase_add_test(ends, test_values_source);
    tcase_add_test(ends, test_scan_source_over_a_file);
    tcase_add_test(ends, test_sink_collector);
    suite_add_tcase(suite, ends);
    TCase *normalize = tcase_create("changelog normalize");
    tcase_add_test(normalize, test_changelog_normalize);
    tcase_add_test(normalize, test_changelog_normalize_ttl);
    tcase_add_test(normalize, test_changelog_normalize_mini_batch);
    tcase_add_test(normalize, test_changelog_normalize_snapshot_restore);
    suite_add_tcase(suite, normalize);
    TCase *channels = tcase_create("channels");
    tcase_set_timeout(channels, 30);
    tcase_add_test(channels, test_channel_to_another_thread);
    tcase_add_test(channels, test_status_between_threads_into_a_union);
    tcase_add_test(channels, test_mailbox_bounded_and_stop);
    suite_add_tcase(suite, channels);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(operators_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? 0 : 1;
}
