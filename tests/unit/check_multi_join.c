/*
 * check_multi_join.c - Check suite for the MultiJoin operator
 * (engine/exec/ops/op_multi_join.c): exact changelogs for INNER, LEFT,
 * RIGHT and FULL chains, duplicates, NULL keys, skipped retractions, TTL
 * expiry with a fake clock and per-input state figures, and randomized
 * checks (many seeds, chains of 3 to 5 inputs, mixed join types, extra
 * non-equi conditions, updates and deletes on every input) that compare the
 * materialized output with
 *   - a nested-loop evaluation of the left-deep chain over the final inputs,
 *   - a chain of binary join operators (join_operator_create) fed the same
 *     changelog,
 * and the changelog with empty-result pruning on and off (identical).
 * A retraction of a row absent from the materialized output fails a test.
 *
 * Every input has the fields (k BIGINT, v BIGINT[, tag STRING]); k is the
 * common key. Rows are written "1,10" or "1,10,x"; the collected changelog
 * reads "+I(1,10,NULL,NULL) -D(...)".
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/strbuf.h"
#include "tests/unit/test_store.h"
#include "engine/exec/expr_eval.h"
#include "engine/exec/ops/op_join.h"
#include "engine/exec/ops/op_multi_join.h"
#include "engine/exec/snapshot.h"

enum { MAX_INPUTS = 6, MAX_FIELDS = 3 * MAX_INPUTS };

/* ---- harness: fake clock, collecting operator ---- */

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
} Collector;

static void format_fields(StrBuf *out, const Row *row, const DataType *types, uint32_t count)
{
    strbuf_append_char(out, '(');
    for (uint32_t i = 0; i < count; i++) {
        if (i)
            strbuf_append_char(out, ',');
        if (row_is_null(row, i)) {
            strbuf_append_cstr(out, "NULL");
        } else if (type_is_variable_length(types[i].id)) {
            uint32_t length;
            const char *text = row_get_string(row, i, &length);
            strbuf_append(out, text, length);
        } else {
            strbuf_printf(out, "%lld", (long long)row_get_int64(row, i));
        }
    }
    strbuf_append_char(out, ')');
}

static int collector_process(Operator *self, uint32_t input, const RowBatch *batch)
{
    (void)input;
    Collector *collector = (Collector *)self;
    for (uint32_t i = 0; i < batch->count; i++) {
        if (collector->log.length)
            strbuf_append_char(&collector->log, ' ');
        strbuf_append_cstr(&collector->log, row_kind_name(row_kind(batch->rows[i])));
        format_fields(&collector->log, batch->rows[i], collector->types, collector->field_count);
    }
    return JOINERY_OK;
}

static const OperatorVtable COLLECTOR_VTABLE = {.process = collector_process};

/* ---- fixture: a chain of inputs, its conditions, and the operators running it ---- */

typedef enum ExtraCondition {
    EXTRA_NONE,
    EXTRA_VALUE_POSITIVE,     /* in_i.v > 0 */
    EXTRA_VALUE_AT_LEAST,     /* in_i.v >= in_partner.v */
    EXTRA_FIRST_VALUE_DIFFER, /* in_0.v <> in_i.v */
    EXTRA_KEY_ABOVE,          /* in_i.k > param */
    EXTRA_BOTH_KEYS_ABOVE,    /* in_i.k > param AND in_0.k > 1 (seed 002's FULL step) */
    EXTRA_VALUE_EQUAL,        /* in_partner.v = in_i.v: rows grouped by v within the key */
    EXTRA_TAG_EQUAL,          /* in_i.tag = in_partner.tag: grouped by a string */
} ExtraCondition;

typedef struct ChainConfig {
    uint32_t input_count;
    uint32_t fields_per_input; /* 2 (k, v) or 3 (k, v, tag) */
    JoinType types[MAX_INPUTS];
    uint32_t partner[MAX_INPUTS]; /* step i's key equality: in_partner.k = in_i.k */
    ExtraCondition extra[MAX_INPUTS];
    int64_t extra_param[MAX_INPUTS];
    bool null_safe[MAX_INPUTS]; /* IS NOT DISTINCT FROM for the key equality */
    int64_t ttl_millis;
    bool pruning;
} ChainConfig;

typedef struct Fixture {
    ChainConfig config;
    Arena arena; /* expressions */
    DataType types[MAX_FIELDS];
    uint32_t field_count;
    uint32_t key_fields[MAX_INPUTS][1];
    MultiJoinInputSpec inputs[MAX_INPUTS];
    MultiJoinSpec spec;
    const Expr *conditions[MAX_INPUTS];
    /* binary chain */
    JoinOperatorSpec join_specs[MAX_INPUTS];
    uint32_t join_left_keys[MAX_INPUTS][1];
    bool join_null_safe[MAX_INPUTS][1];
} Fixture;

static uint32_t fixture_offset(const Fixture *f, uint32_t input)
{
    return input * f->config.fields_per_input;
}

static Expr *fixture_ref(Fixture *f, uint32_t input, uint32_t field)
{
    uint32_t index = fixture_offset(f, input) + field;
    return expr_make_input_ref(&f->arena, index, f->types[index]);
}

static Expr *fixture_call(Fixture *f, FunctionId function, Expr *a, Expr *b)
{
    Expr *args[2] = {a, b};
    return expr_make_call(&f->arena, function, type_make(TYPE_BOOLEAN, true), args, 2);
}

static Expr *fixture_literal(Fixture *f, int64_t value)
{
    return expr_make_literal(&f->arena, type_make(TYPE_BIGINT, false), value_int(value));
}

static void fixture_init(Fixture *f, const ChainConfig *config)
{
    memset(f, 0, sizeof *f);
    f->config = *config;
    arena_init(&f->arena, 0);
    uint32_t per = config->fields_per_input;
    for (uint32_t i = 0; i < config->input_count; i++) {
        f->types[i * per] = type_make(TYPE_BIGINT, true);
        f->types[i * per + 1] = type_make(TYPE_BIGINT, true);
        if (per == 3)
            f->types[i * per + 2] = type_make_varchar(TYPE_STRING_LENGTH, true);
    }
    f->field_count = per * config->input_count;
    for (uint32_t i = 0; i < config->input_count; i++) {
        f->key_fields[i][0] = 0;
        f->inputs[i] = (MultiJoinInputSpec){.field_count = per,
                                            .types = &f->types[i * per],
                                            .common_key_fields = f->key_fields[i],
                                            .ttl_millis = config->ttl_millis};
        if (i == 0)
            continue;
        uint32_t partner = config->partner[i];
        Expr *equality =
            fixture_call(f, config->null_safe[i] ? FUNCTION_IS_NOT_DISTINCT_FROM : FUNCTION_EQUAL,
                         fixture_ref(f, partner, 0), fixture_ref(f, i, 0));
        Expr *extra = NULL;
        int64_t param = config->extra_param[i];
        switch (config->extra[i]) {
        case EXTRA_NONE:
            break;
        case EXTRA_VALUE_POSITIVE:
            extra = fixture_call(f, FUNCTION_GREATER, fixture_ref(f, i, 1), fixture_literal(f, 0));
            break;
        case EXTRA_VALUE_AT_LEAST:
            extra = fixture_call(f, FUNCTION_GREATER_EQUAL, fixture_ref(f, i, 1),
                                 fixture_ref(f, partner, 1));
            break;
        case EXTRA_FIRST_VALUE_DIFFER:
            extra = fixture_call(f, FUNCTION_NOT_EQUAL, fixture_ref(f, 0, 1), fixture_ref(f, i, 1));
            break;
        case EXTRA_KEY_ABOVE:
            extra =
                fixture_call(f, FUNCTION_GREATER, fixture_ref(f, i, 0), fixture_literal(f, param));
            break;
        case EXTRA_BOTH_KEYS_ABOVE: {
            Expr *mine =
                fixture_call(f, FUNCTION_GREATER, fixture_ref(f, i, 0), fixture_literal(f, param));
            Expr *first =
                fixture_call(f, FUNCTION_GREATER, fixture_ref(f, 0, 0), fixture_literal(f, 1));
            extra = fixture_call(f, FUNCTION_AND, mine, first);
            break;
        }
        case EXTRA_VALUE_EQUAL:
            extra =
                fixture_call(f, FUNCTION_EQUAL, fixture_ref(f, partner, 1), fixture_ref(f, i, 1));
            break;
        case EXTRA_TAG_EQUAL:
            extra = per == 3 ? fixture_call(f, FUNCTION_EQUAL, fixture_ref(f, i, 2),
                                            fixture_ref(f, partner, 2))
                             : NULL;
            break;
        }
        f->conditions[i] = extra ? fixture_call(f, FUNCTION_AND, equality, extra) : equality;
        ck_assert_ptr_nonnull(f->conditions[i]);

        JoinOperatorSpec *join = &f->join_specs[i];
        f->join_left_keys[i][0] = fixture_offset(f, partner);
        f->join_null_safe[i][0] = config->null_safe[i];
        *join = (JoinOperatorSpec){.join_type = config->types[i],
                                   .left_field_count = fixture_offset(f, i),
                                   .right_field_count = per,
                                   .left_types = f->types,
                                   .right_types = &f->types[i * per],
                                   .left_keys = f->join_left_keys[i],
                                   .right_keys = f->key_fields[i],
                                   .key_count = 1,
                                   .null_safe_keys = f->join_null_safe[i],
                                   .residual = f->conditions[i],
                                   .left_ttl_millis = config->ttl_millis,
                                   .right_ttl_millis = config->ttl_millis};
    }
    f->spec = (MultiJoinSpec){.input_count = config->input_count,
                              .inputs = f->inputs,
                              .common_key_count = 1,
                              .join_types = config->types,
                              .conditions = f->conditions,
                              .empty_result_pruning = config->pruning};
}

static void fixture_free(Fixture *f)
{
    arena_destroy(&f->arena);
}

/* The operators under test: one MultiJoin or a chain of binary joins, then a collector. */
typedef struct Harness {
    Diag diag;
    ExecContext context;
    Collector collector;
    Operator *operators[MAX_INPUTS]; /* MultiJoin: [0]; binary chain: [1..n-1] */
    uint32_t operator_count;
    Operator *entry[MAX_INPUTS]; /* where input i goes */
    uint32_t entry_port[MAX_INPUTS];
    Operator *op; /* the MultiJoin, or the last binary join */
    StrBuf taken; /* the last harness_take */
} Harness;

static void harness_start(Harness *h, const Fixture *f)
{
    memset(h, 0, sizeof *h);
    diag_clear(&h->diag);
    h->context.diag = &h->diag;
    h->context.now_millis = fake_clock;
    h->context.parallelism = 1;
    h->context.state_store = test_store_open();
    operator_init(&h->collector.base, &COLLECTOR_VTABLE, "Collector", 1, &h->collector);
    h->collector.types = f->types;
    h->collector.field_count = f->field_count;
    ck_assert_int_eq(operator_open(&h->collector.base, &h->context), JOINERY_OK);
}

static void harness_open_multi(Harness *h, const Fixture *f)
{
    harness_start(h, f);
    Diag diag;
    diag_clear(&diag);
    Operator *op = multi_join_operator_create(&f->spec, &diag);
    ck_assert_msg(op != NULL, "%s", diag.message);
    h->operators[0] = op;
    h->operator_count = 1;
    h->op = op;
    for (uint32_t i = 0; i < f->config.input_count; i++) {
        h->entry[i] = op;
        h->entry_port[i] = i;
    }
    operator_connect(op, &h->collector.base, 0);
    ck_assert_int_eq(operator_open(op, &h->context), JOINERY_OK);
}

static void harness_open_binary(Harness *h, const Fixture *f)
{
    harness_start(h, f);
    uint32_t n = f->config.input_count;
    for (uint32_t i = 1; i < n; i++) {
        Diag diag;
        diag_clear(&diag);
        Operator *op = join_operator_create(&f->join_specs[i], &diag);
        ck_assert_msg(op != NULL, "%s", diag.message);
        h->operators[h->operator_count++] = op;
        ck_assert_int_eq(operator_open(op, &h->context), JOINERY_OK);
        h->entry[i] = op;
        h->entry_port[i] = 1;
        if (i == 1) {
            h->entry[0] = op;
            h->entry_port[0] = 0;
        } else {
            operator_connect(h->operators[h->operator_count - 2], op, 0);
        }
    }
    h->op = h->operators[h->operator_count - 1];
    operator_connect(h->op, &h->collector.base, 0);
}

static void harness_close(Harness *h)
{
    test_store_commit(h->context.state_store);
    for (uint32_t i = 0; i < h->operator_count; i++)
        operator_close(h->operators[i]);
    operator_close(&h->collector.base);
    strbuf_free(&h->collector.log);
    strbuf_free(&h->taken);
    state_store_close(h->context.state_store);
}

/* Returns the changelog collected since the last call, and forgets it. */
static const char *harness_take(Harness *h)
{
    strbuf_clear(&h->taken);
    strbuf_append(&h->taken, strbuf_cstr(&h->collector.log), h->collector.log.length);
    strbuf_clear(&h->collector.log);
    return strbuf_cstr(&h->taken);
}

/* ---- building and pushing rows ---- */

typedef struct TestRow {
    int64_t key; /* -1 = NULL */
    int64_t value;
    int tag;
} TestRow;

static const Row *build_test_row(RowBuilder *builder, uint32_t fields, RowKind kind, TestRow row)
{
    row_builder_begin(builder, fields, kind);
    if (row.key < 0)
        row_builder_set_null(builder, 0);
    else
        row_builder_set_int64(builder, 0, row.key);
    row_builder_set_int64(builder, 1, row.value);
    if (fields == 3) {
        char tag[16];
        int length = snprintf(tag, sizeof tag, "t%d", row.tag);
        row_builder_set_string(builder, 2, tag, (uint32_t)length);
    }
    return row_builder_finish(builder);
}

/* Pushes one row written "+I 1,10" ("NULL" for a NULL key) to input `input`. */
static void push(Harness *h, uint32_t input, const char *text)
{
    static const char *const kinds[] = {"+I", "-U", "+U", "-D"};
    RowKind kind = ROW_KIND_INSERT;
    for (int k = 0; k < 4; k++)
        if (strncmp(text, kinds[k], 2) == 0)
            kind = (RowKind)k;
    TestRow row = {0, 0, 0};
    const char *cursor = text + 3;
    row.key = strncmp(cursor, "NULL", 4) == 0 ? -1 : strtoll(cursor, NULL, 10);
    cursor = strchr(cursor, ',') + 1;
    row.value = strtoll(cursor, NULL, 10);
    RowBuilder builder;
    row_builder_init(&builder);
    Row *built = (Row *)build_test_row(&builder, 2, kind, row);
    RowBatch batch = {.rows = &built, .count = 1, .capacity = 1};
    ck_assert_int_eq(operator_push(h->entry[input], h->entry_port[input], &batch), JOINERY_OK);
    test_store_commit(h->context.state_store);
    row_builder_free(&builder);
}

#define EXPECT(h, text) ck_assert_str_eq(harness_take(h), text)

static ChainConfig chain_config(uint32_t input_count, const JoinType *types)
{
    ChainConfig config;
    memset(&config, 0, sizeof config);
    config.input_count = input_count;
    config.fields_per_input = 2;
    config.pruning = true;
    for (uint32_t i = 0; i < input_count; i++) {
        config.types[i] = types[i];
        config.partner[i] = i > 0 ? i - 1 : 0;
    }
    return config;
}

/* ---- exact changelogs ---- */

START_TEST(test_inner_chain)
{
    static const JoinType types[] = {JOIN_TYPE_INNER, JOIN_TYPE_INNER, JOIN_TYPE_INNER};
    ChainConfig config = chain_config(3, types);
    Fixture f;
    fixture_init(&f, &config);
    Harness h;
    harness_open_multi(&h, &f);
    push(&h, 0, "+I 1,10");
    push(&h, 1, "+I 1,20");
    EXPECT(&h, "");
    push(&h, 2, "+I 1,30");
    EXPECT(&h, "+I(1,10,1,20,1,30)");
    push(&h, 2, "+I 1,31");
    EXPECT(&h, "+I(1,10,1,20,1,31)");
    push(&h, 2, "+I 2,32");
    EXPECT(&h, "");
    /* an all-INNER chain forwards the input's kind */
    push(&h, 1, "-U 1,20");
    EXPECT(&h, "-U(1,10,1,20,1,30) -U(1,10,1,20,1,31)");
    push(&h, 1, "+U 1,21");
    EXPECT(&h, "+U(1,10,1,21,1,30) +U(1,10,1,21,1,31)");
    push(&h, 0, "+I 1,11");
    EXPECT(&h, "+I(1,11,1,21,1,30) +I(1,11,1,21,1,31)");
    push(&h, 0, "-D 1,10");
    EXPECT(&h, "-D(1,10,1,21,1,30) -D(1,10,1,21,1,31)");
    push(&h, 2, "-D 1,30");
    EXPECT(&h, "-D(1,11,1,21,1,30)");
    push(&h, 0, "-D 1,99"); /* never inserted */
    EXPECT(&h, "");
    ck_assert_uint_eq(h.op->metrics.skipped_rows, 1);
    harness_close(&h);
    fixture_free(&f);
}
END_TEST

START_TEST(test_left_chain)
{
    static const JoinType types[] = {JOIN_TYPE_INNER, JOIN_TYPE_LEFT, JOIN_TYPE_LEFT};
    ChainConfig config = chain_config(3, types);
    config.partner[2] = 0; /* A.k = C.k */
    Fixture f;
    fixture_init(&f, &config);
    Harness h;
    harness_open_multi(&h, &f);
    push(&h, 0, "+I 1,10");
    EXPECT(&h, "+I(1,10,NULL,NULL,NULL,NULL)");
    push(&h, 2, "+I 1,30");
    EXPECT(&h, "-D(1,10,NULL,NULL,NULL,NULL) +I(1,10,NULL,NULL,1,30)");
    push(&h, 1, "+I 1,20");
    EXPECT(&h, "-D(1,10,NULL,NULL,1,30) +I(1,10,1,20,1,30)");
    push(&h, 1, "+I 1,21");
    EXPECT(&h, "+I(1,10,1,21,1,30)");
    push(&h, 1, "-D 1,20");
    EXPECT(&h, "-D(1,10,1,20,1,30)");
    /* an update of the last match brings the padding back, then takes it away */
    push(&h, 1, "-U 1,21");
    EXPECT(&h, "-D(1,10,1,21,1,30) +I(1,10,NULL,NULL,1,30)");
    push(&h, 1, "+U 1,22");
    EXPECT(&h, "-D(1,10,NULL,NULL,1,30) +I(1,10,1,22,1,30)");
    push(&h, 2, "-D 1,30");
    EXPECT(&h, "-D(1,10,1,22,1,30) +I(1,10,1,22,NULL,NULL)");
    push(&h, 0, "-D 1,10");
    EXPECT(&h, "-D(1,10,1,22,NULL,NULL)");
    harness_close(&h);
    fixture_free(&f);
}
END_TEST

/* The same chain in mini-batch mode: the batch's later inputs run first, so the first
   input's row meets them instead of being emitted padded; pairs that come and go within a
   batch never reach the state. */
START_TEST(test_left_chain_mini_batch)
{
    static const JoinType types[] = {JOIN_TYPE_INNER, JOIN_TYPE_LEFT, JOIN_TYPE_LEFT};
    ChainConfig config = chain_config(3, types);
    config.partner[2] = 0; /* A.k = C.k */
    Fixture f;
    fixture_init(&f, &config);
    f.spec.mini_batch_size = 100;
    Harness h;
    harness_open_multi(&h, &f);
    push(&h, 0, "+I 1,10");
    push(&h, 2, "+I 1,30");
    push(&h, 1, "+I 1,20");
    push(&h, 1, "+I 1,21");
    push(&h, 1, "-D 1,20");
    EXPECT(&h, ""); /* buffered */
    for (uint32_t i = 0; i < 3; i++)
        ck_assert_int_eq(operator_push_watermark(h.op, i, i, 1), JOINERY_OK);
    /* row by row: seven changes, three of them padded rows taken back */
    EXPECT(&h, "+I(1,10,1,21,1,30)");
    ck_assert_uint_eq(multi_join_operator_folded_rows(h.op), 2);
    /* the next batch: an update of input 1 that comes and goes, input 2's row replaced */
    push(&h, 1, "-U 1,21");
    push(&h, 1, "+U 1,21");
    push(&h, 2, "-D 1,30");
    push(&h, 2, "+I 1,31");
    push(&h, 0, "+I 2,40");
    push(&h, 0, "-D 2,40");
    for (uint32_t i = 0; i < 3; i++)
        ck_assert_int_eq(operator_end_input(h.op, i), JOINERY_OK);
    /* input 2 first, then input 1: -U 1,21 retracts a row of the previous batch and has
       nothing to cancel (a retraction cancels only an earlier accumulation of the batch, as
       in Flink: the row it names might never have been stored), so it and +U 1,21 run */
    EXPECT(&h, "-D(1,10,1,21,1,30) +I(1,10,1,21,NULL,NULL) -D(1,10,1,21,NULL,NULL) "
               "+I(1,10,1,21,1,31) -D(1,10,1,21,1,31) +I(1,10,NULL,NULL,1,31) "
               "-D(1,10,NULL,NULL,1,31) +I(1,10,1,21,1,31)");
    ck_assert_uint_eq(multi_join_operator_folded_rows(h.op), 4);
    harness_close(&h);
    fixture_free(&f);
}
END_TEST

START_TEST(test_right_chain)
{
    static const JoinType types[] = {JOIN_TYPE_INNER, JOIN_TYPE_RIGHT, JOIN_TYPE_RIGHT};
    ChainConfig config = chain_config(3, types);
    Fixture f;
    fixture_init(&f, &config);
    Harness h;
    harness_open_multi(&h, &f);
    push(&h, 2, "+I 1,30");
    EXPECT(&h, "+I(NULL,NULL,NULL,NULL,1,30)");
    push(&h, 1, "+I 1,20");
    EXPECT(&h, "-D(NULL,NULL,NULL,NULL,1,30) +I(NULL,NULL,1,20,1,30)");
    push(&h, 0, "+I 1,10");
    EXPECT(&h, "-D(NULL,NULL,1,20,1,30) +I(NULL,NULL,NULL,NULL,1,30) "
               "-D(NULL,NULL,NULL,NULL,1,30) +I(1,10,1,20,1,30)");
    push(&h, 0, "-D 1,10");
    EXPECT(&h, "-D(1,10,1,20,1,30) +I(NULL,NULL,NULL,NULL,1,30) "
               "-D(NULL,NULL,NULL,NULL,1,30) +I(NULL,NULL,1,20,1,30)");
    push(&h, 2, "-D 1,30");
    EXPECT(&h, "-D(NULL,NULL,1,20,1,30)");
    push(&h, 1, "-D 1,20");
    EXPECT(&h, "");
    harness_close(&h);
    fixture_free(&f);
}
END_TEST

START_TEST(test_full_chain)
{
    static const JoinType types[] = {JOIN_TYPE_INNER, JOIN_TYPE_FULL, JOIN_TYPE_FULL};
    ChainConfig config = chain_config(3, types);
    Fixture f;
    fixture_init(&f, &config);
    Harness h;
    harness_open_multi(&h, &f);
    push(&h, 0, "+I 1,10");
    EXPECT(&h, "+I(1,10,NULL,NULL,NULL,NULL)");
    push(&h, 2, "+I 1,30");
    /* B.k = C.k: the padded (A, NULL) row does not match C */
    EXPECT(&h, "+I(NULL,NULL,NULL,NULL,1,30)");
    push(&h, 1, "+I 1,20");
    EXPECT(&h, "-D(1,10,NULL,NULL,NULL,NULL) -D(NULL,NULL,NULL,NULL,1,30) "
               "+I(1,10,1,20,1,30)");
    /* (A, B) leaves J_1 first, (NULL, B) joins it next: C is padded in between */
    push(&h, 0, "-D 1,10");
    EXPECT(&h, "-D(1,10,1,20,1,30) +I(NULL,NULL,NULL,NULL,1,30) "
               "-D(NULL,NULL,NULL,NULL,1,30) +I(NULL,NULL,1,20,1,30)");
    push(&h, 1, "-D 1,20");
    EXPECT(&h, "-D(NULL,NULL,1,20,1,30) +I(NULL,NULL,NULL,NULL,1,30)");
    push(&h, 2, "-D 1,30");
    EXPECT(&h, "-D(NULL,NULL,NULL,NULL,1,30)");
    h.op->vtable->report_state(h.op);
    ck_assert_uint_eq(h.op->metrics.state_rows, 0);
    ck_assert_uint_eq(h.op->metrics.state_keys, 0);
    harness_close(&h);
    fixture_free(&f);
}
END_TEST

START_TEST(test_duplicates)
{
    static const JoinType types[] = {JOIN_TYPE_INNER, JOIN_TYPE_LEFT, JOIN_TYPE_INNER};
    ChainConfig config = chain_config(3, types);
    config.partner[2] = 0;
    Fixture f;
    fixture_init(&f, &config);
    Harness h;
    harness_open_multi(&h, &f);
    push(&h, 0, "+I 1,10");
    push(&h, 0, "+I 1,10");
    push(&h, 2, "+I 1,30");
    EXPECT(&h, "+I(1,10,NULL,NULL,1,30) +I(1,10,NULL,NULL,1,30)");
    push(&h, 1, "+I 1,20");
    EXPECT(&h, "-D(1,10,NULL,NULL,1,30) -D(1,10,NULL,NULL,1,30) "
               "+I(1,10,1,20,1,30) +I(1,10,1,20,1,30)");
    push(&h, 1, "+I 1,20");
    EXPECT(&h, "+I(1,10,1,20,1,30) +I(1,10,1,20,1,30)");
    push(&h, 1, "-D 1,20");
    EXPECT(&h, "-D(1,10,1,20,1,30) -D(1,10,1,20,1,30)");
    push(&h, 0, "-D 1,10");
    EXPECT(&h, "-D(1,10,1,20,1,30)");
    push(&h, 1, "-D 1,20");
    EXPECT(&h, "-D(1,10,1,20,1,30) +I(1,10,NULL,NULL,1,30)");
    push(&h, 1, "-D 1,20");
    EXPECT(&h, "");
    ck_assert_uint_eq(h.op->metrics.skipped_rows, 1);
    harness_close(&h);
    fixture_free(&f);
}
END_TEST

START_TEST(test_null_keys)
{
    /* inner chain: NULL-key rows are neither stored nor emitted */
    static const JoinType inner[] = {JOIN_TYPE_INNER, JOIN_TYPE_INNER, JOIN_TYPE_INNER};
    ChainConfig config = chain_config(3, inner);
    Fixture f;
    fixture_init(&f, &config);
    Harness h;
    harness_open_multi(&h, &f);
    push(&h, 0, "+I NULL,10");
    push(&h, 1, "+I NULL,20");
    push(&h, 2, "+I NULL,30");
    push(&h, 1, "-D NULL,20");
    EXPECT(&h, "");
    h.op->vtable->report_state(h.op);
    ck_assert_uint_eq(h.op->metrics.state_rows, 0);
    harness_close(&h);
    fixture_free(&f);

    /* A FULL B LEFT C: NULL-key rows of A and B appear padded, C's never */
    static const JoinType outer[] = {JOIN_TYPE_INNER, JOIN_TYPE_FULL, JOIN_TYPE_LEFT};
    config = chain_config(3, outer);
    fixture_init(&f, &config);
    harness_open_multi(&h, &f);
    push(&h, 0, "+I NULL,10");
    EXPECT(&h, "+I(NULL,10,NULL,NULL,NULL,NULL)");
    push(&h, 1, "+I NULL,20");
    EXPECT(&h, "+I(NULL,NULL,NULL,20,NULL,NULL)");
    push(&h, 2, "+I NULL,30");
    EXPECT(&h, "");
    push(&h, 0, "-D NULL,10");
    EXPECT(&h, "-D(NULL,10,NULL,NULL,NULL,NULL)");
    push(&h, 0, "-D NULL,10");
    EXPECT(&h, "");
    ck_assert_uint_eq(h.op->metrics.skipped_rows, 1);
    h.op->vtable->report_state(h.op);
    ck_assert_uint_eq(h.op->metrics.state_rows, 1);
    harness_close(&h);
    fixture_free(&f);

    /* IS NOT DISTINCT FROM: NULL keys match */
    config = chain_config(3, inner);
    config.null_safe[1] = config.null_safe[2] = true;
    fixture_init(&f, &config);
    harness_open_multi(&h, &f);
    push(&h, 0, "+I NULL,10");
    push(&h, 1, "+I NULL,20");
    push(&h, 2, "+I NULL,30");
    EXPECT(&h, "+I(NULL,10,NULL,20,NULL,30)");
    harness_close(&h);
    fixture_free(&f);

    /* ... which a chain with an outer step before it cannot partition */
    config = chain_config(3, outer);
    config.null_safe[2] = true;
    fixture_init(&f, &config);
    Diag diag;
    diag_clear(&diag);
    ck_assert_ptr_null(multi_join_operator_create(&f.spec, &diag));
    ck_assert_int_eq(diag.status, JOINERY_ERROR_UNSUPPORTED);
    fixture_free(&f);
}
END_TEST

START_TEST(test_invalid_spec)
{
    static const JoinType types[] = {JOIN_TYPE_INNER, JOIN_TYPE_INNER, JOIN_TYPE_INNER};
    ChainConfig config = chain_config(3, types);
    Fixture f;
    fixture_init(&f, &config);
    Diag diag;
    diag_clear(&diag);
    f.spec.input_count = 1;
    ck_assert_ptr_null(multi_join_operator_create(&f.spec, &diag));
    ck_assert_int_eq(diag.status, JOINERY_ERROR_VALIDATE);
    f.spec.input_count = 3;
    f.key_fields[1][0] = 7;
    diag_clear(&diag);
    ck_assert_ptr_null(multi_join_operator_create(&f.spec, &diag));
    ck_assert_int_eq(diag.status, JOINERY_ERROR_VALIDATE);
    f.key_fields[1][0] = 0;
    f.types[2] = type_make_varchar(10, true); /* input 1's key is a string */
    diag_clear(&diag);
    ck_assert_ptr_null(multi_join_operator_create(&f.spec, &diag));
    ck_assert_int_eq(diag.status, JOINERY_ERROR_VALIDATE);
    f.types[2] = f.types[0];
    config.types[2] = JOIN_TYPE_ANTI; /* semi and anti joins: not supported yet */
    diag_clear(&diag);
    ck_assert_ptr_null(multi_join_operator_create(&f.spec, &diag));
    ck_assert_int_eq(diag.status, JOINERY_ERROR_UNSUPPORTED);
    ck_assert_str_eq(diag.message,
                     "multi-join: join type LeftAntiJoin (step 2) is not supported yet");
    config.types[2] = JOIN_TYPE_INNER;
    f.conditions[1] = f.conditions[2]; /* reads input 2 at step 1 */
    diag_clear(&diag);
    ck_assert_ptr_null(multi_join_operator_create(&f.spec, &diag));
    ck_assert_int_eq(diag.status, JOINERY_ERROR_VALIDATE);
    fixture_free(&f);
}
END_TEST

START_TEST(test_ttl_expiry)
{
    static const JoinType types[] = {JOIN_TYPE_INNER, JOIN_TYPE_INNER, JOIN_TYPE_INNER};
    ChainConfig config = chain_config(3, types);
    config.ttl_millis = 1000;
    Fixture f;
    fixture_init(&f, &config);
    Harness h;
    fake_now = 10000;
    harness_open_multi(&h, &f);
    push(&h, 0, "+I 1,10");
    fake_now = 10500;
    push(&h, 1, "+I 1,20");
    push(&h, 2, "+I 1,30");
    EXPECT(&h, "+I(1,10,1,20,1,30)");
    fake_now = 11000; /* A's row, written at 10000, has expired */
    push(&h, 2, "+I 1,31");
    EXPECT(&h, "");
    push(&h, 0, "-D 1,10");
    EXPECT(&h, "");
    ck_assert_uint_eq(h.op->metrics.skipped_rows, 1);
    h.op->vtable->report_state(h.op);
    ck_assert_uint_eq(h.op->metrics.expired_rows, 1);

    char text[64];
    for (int i = 100; i < 1100; i++) {
        snprintf(text, sizeof text, "+I %d,%d", i, i);
        push(&h, (uint32_t)(i % 3), text);
    }
    h.op->vtable->report_state(h.op);
    uint64_t full = h.op->metrics.state_bytes;
    ck_assert_uint_ge(h.op->metrics.state_keys, 1000);
    uint64_t bytes, keys, rows;
    multi_join_operator_input_state(h.op, 1, &bytes, &keys, &rows);
    ck_assert_uint_eq(keys, 335); /* key 1, and i % 3 == 1 for 100..1099 */
    ck_assert_uint_eq(rows, 335);
    ck_assert_uint_gt(bytes, 0);
    multi_join_operator_input_state(h.op, 3, &bytes, &keys, &rows);
    ck_assert_uint_eq(bytes + keys + rows, 0);
    fake_now = 20000;
    /* each cleanup round is a processing-time timer, due every interval */
    for (int tick = 0; tick < 8; tick++) {
        fake_now += OPERATOR_CLEANUP_INTERVAL_MILLIS;
        ck_assert_int_eq(operator_advance_processing_time(h.op, fake_now), JOINERY_OK);
    }
    h.op->vtable->report_state(h.op);
    ck_assert_uint_eq(h.op->metrics.state_keys, 0);
    ck_assert_uint_eq(h.op->metrics.state_rows, 0);
    ck_assert_uint_lt(h.op->metrics.state_bytes, full / 10);
    ck_assert_uint_ge(h.op->metrics.expired_rows, 1003);
    harness_close(&h);
    fixture_free(&f);
    fake_now = 0;
}
END_TEST

START_TEST(test_state_only_raw_inputs)
{
    /* a 4-way LEFT chain on one key: state holds the input rows, nothing more */
    static const JoinType types[] = {JOIN_TYPE_INNER, JOIN_TYPE_LEFT, JOIN_TYPE_LEFT,
                                     JOIN_TYPE_LEFT};
    ChainConfig config = chain_config(4, types);
    Fixture f;
    fixture_init(&f, &config);
    Harness h;
    harness_open_multi(&h, &f);
    h.op->vtable->report_state(h.op);
    uint64_t empty = h.op->metrics.state_bytes;
    char text[64];
    for (int i = 0; i < 400; i++) {
        snprintf(text, sizeof text, "+I %d,%d", i % 20, i);
        push(&h, (uint32_t)(i % 4), text);
    }
    h.op->vtable->report_state(h.op);
    ck_assert_uint_eq(h.op->metrics.state_rows, 400);
    ck_assert_uint_eq(h.op->metrics.state_keys, 4 * 5); /* each input sees 5 of the 20 keys */
    for (int i = 0; i < 400; i++) {
        snprintf(text, sizeof text, "-D %d,%d", i % 20, i);
        push(&h, (uint32_t)(i % 4), text);
    }
    h.op->vtable->report_state(h.op);
    ck_assert_uint_eq(h.op->metrics.state_rows, 0);
    ck_assert_uint_eq(h.op->metrics.state_bytes, empty);
    ck_assert_uint_eq(h.op->metrics.skipped_rows, 0);
    harness_close(&h);
    fixture_free(&f);
}
END_TEST

/* ---- randomized checks ---- */

typedef struct TextBag {
    char **items;
    size_t count;
    size_t capacity;
} TextBag;

static void bag_add(TextBag *bag, const char *text, size_t length)
{
    if (bag->count == bag->capacity) {
        bag->capacity = bag->capacity ? bag->capacity * 2 : 64;
        bag->items = realloc(bag->items, bag->capacity * sizeof(char *));
        ck_assert_ptr_nonnull(bag->items);
    }
    bag->items[bag->count++] = strndup(text, length);
}

static int compare_text(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void bag_free(TextBag *bag)
{
    for (size_t i = 0; i < bag->count; i++)
        free(bag->items[i]);
    free(bag->items);
    memset(bag, 0, sizeof *bag);
}

/*
 * Applies a changelog ("+I(..) -D(..)") to the bag: insertions are added,
 * retractions must find their row. Sorted on return.
 */
static void bag_apply_changelog(TextBag *bag, const char *log, const char *what)
{
    const char *cursor = log;
    while (*cursor) {
        const char *end = strchr(cursor, ' ');
        size_t length = end ? (size_t)(end - cursor) : strlen(cursor);
        if (cursor[0] == '+') {
            bag_add(bag, cursor + 2, length - 2);
        } else {
            size_t i = 0;
            while (i < bag->count && !(strlen(bag->items[i]) == length - 2 &&
                                       memcmp(bag->items[i], cursor + 2, length - 2) == 0))
                i++;
            ck_assert_msg(i < bag->count, "%s: retraction of absent row %.*s", what, (int)length,
                          cursor);
            free(bag->items[i]);
            bag->items[i] = bag->items[--bag->count];
        }
        cursor += length;
        while (*cursor == ' ')
            cursor++;
    }
}

static void bag_assert_equal(TextBag *actual, TextBag *expected, const char *what, unsigned seed)
{
    if (actual->count) /* qsort must not see a NULL array, even empty */
        qsort(actual->items, actual->count, sizeof(char *), compare_text);
    if (expected->count)
        qsort(expected->items, expected->count, sizeof(char *), compare_text);
    size_t i = 0;
    while (i < actual->count && i < expected->count &&
           strcmp(actual->items[i], expected->items[i]) == 0)
        i++;
    ck_assert_msg(i == actual->count && i == expected->count,
                  "%s (seed %u): %zu rows vs %zu expected; first difference at %zu: %s vs %s", what,
                  seed, actual->count, expected->count, i,
                  i < actual->count ? actual->items[i] : "(end)",
                  i < expected->count ? expected->items[i] : "(end)");
}

/* One generated change: a batch of one row, or of an update pair (-U then +U). */
typedef struct Change {
    uint32_t input;
    RowKind kinds[2];
    TestRow rows[2];
    uint32_t count;
} Change;

typedef struct Workload {
    Change *changes;
    uint32_t change_count;
    TestRow *current[MAX_INPUTS]; /* final rows of each input */
    uint32_t current_count[MAX_INPUTS];
    uint32_t absent_retractions;
} Workload;

static TestRow random_test_row(int key_range)
{
    TestRow row;
    row.key = rand() % 6 == 0 ? -1 : rand() % key_range;
    row.value = rand() % 4 - 1;
    row.tag = rand() % 3;
    return row;
}

static void workload_generate(Workload *w, const ChainConfig *config, uint32_t steps, int key_range)
{
    enum { MAX_ROWS = 400 };
    memset(w, 0, sizeof *w);
    w->changes = calloc(steps, sizeof *w->changes);
    for (uint32_t i = 0; i < config->input_count; i++)
        w->current[i] = calloc(MAX_ROWS, sizeof(TestRow));
    for (uint32_t step = 0; step < steps; step++) {
        Change *change = &w->changes[w->change_count];
        uint32_t input = (uint32_t)rand() % config->input_count;
        TestRow *rows = w->current[input];
        uint32_t *count = &w->current_count[input];
        int action = rand() % 20;
        change->input = input;
        if (action < 11 || *count == 0) {
            if (*count == MAX_ROWS)
                continue;
            TestRow row = random_test_row(key_range);
            if (*count > 0 && rand() % 4 == 0)
                row = rows[rand() % *count]; /* a duplicate */
            rows[(*count)++] = row;
            change->kinds[0] = rand() % 2 ? ROW_KIND_INSERT : ROW_KIND_UPDATE_AFTER;
            change->rows[0] = row;
            change->count = 1;
        } else if (action < 16) {
            uint32_t victim = (uint32_t)rand() % *count;
            change->kinds[0] = rand() % 2 ? ROW_KIND_DELETE : ROW_KIND_UPDATE_BEFORE;
            change->rows[0] = rows[victim];
            change->count = 1;
            rows[victim] = rows[--*count];
        } else if (action < 19) {
            uint32_t victim = (uint32_t)rand() % *count;
            TestRow after = rows[victim];
            after.value = rand() % 4 - 1;
            if (rand() % 3 == 0)
                after.tag = rand() % 3;
            change->kinds[0] = ROW_KIND_UPDATE_BEFORE;
            change->rows[0] = rows[victim];
            change->kinds[1] = ROW_KIND_UPDATE_AFTER;
            change->rows[1] = after;
            change->count = 2;
            rows[victim] = after;
        } else {
            /* a retraction of a row that is not there (value 99 is never generated) */
            TestRow row = random_test_row(key_range);
            row.key = rand() % key_range; /* NULL-key rows may be dropped uncounted */
            row.value = 99;
            change->kinds[0] = ROW_KIND_DELETE;
            change->rows[0] = row;
            change->count = 1;
            w->absent_retractions++;
        }
        w->change_count++;
    }
}

static void workload_free(Workload *w)
{
    free(w->changes);
    for (uint32_t i = 0; i < MAX_INPUTS; i++)
        free(w->current[i]);
}

/* Feeds the workload; returns the materialized output (fails on a bad retraction). */
static void workload_run(const Workload *w, Harness *h, uint32_t fields, TextBag *result,
                         StrBuf *full_log, const char *what)
{
    RowBuilder builders[2];
    row_builder_init(&builders[0]);
    row_builder_init(&builders[1]);
    for (uint32_t c = 0; c < w->change_count; c++) {
        const Change *change = &w->changes[c];
        Row *rows[2];
        for (uint32_t r = 0; r < change->count; r++)
            rows[r] =
                (Row *)build_test_row(&builders[r], fields, change->kinds[r], change->rows[r]);
        RowBatch batch = {.rows = rows, .count = change->count, .capacity = change->count};
        ck_assert_int_eq(
            operator_push(h->entry[change->input], h->entry_port[change->input], &batch),
            JOINERY_OK);
        test_store_commit(h->context.state_store);
        const char *log = harness_take(h);
        if (full_log) {
            strbuf_append_cstr(full_log, log);
            strbuf_append_char(full_log, '|');
        }
        bag_apply_changelog(result, log, what);
    }
    row_builder_free(&builders[0]);
    row_builder_free(&builders[1]);
}

/* Ends every input of a MultiJoin harness (a mini-batch MultiJoin runs its open batch) and
   applies what comes out. */
static void workload_finish(uint32_t input_count, Harness *h, TextBag *result, const char *what)
{
    for (uint32_t i = 0; i < input_count; i++)
        ck_assert_int_eq(operator_end_input(h->entry[i], h->entry_port[i]), JOINERY_OK);
    bag_apply_changelog(result, harness_take(h), what);
}

/* Nested-loop evaluation of the left-deep chain over the final inputs. */
static void oracle_evaluate(const Fixture *f, const Workload *w, TextBag *expected)
{
    const ChainConfig *config = &f->config;
    uint32_t per = config->fields_per_input;
    Arena scratch;
    arena_init(&scratch, 0);
    Diag diag;
    diag_clear(&diag);
    ExprEvalContext eval = {.arena = &scratch, .diag = &diag, .now_millis = 0, .failed = false};
    RowBuilder builder;
    row_builder_init(&builder);

    /* current rows of level i as heap rows */
    Row **level = calloc(w->current_count[0] + 1, sizeof(Row *));
    size_t level_count = 0;
    for (uint32_t r = 0; r < w->current_count[0]; r++)
        level[level_count++] =
            row_copy_heap(build_test_row(&builder, per, ROW_KIND_INSERT, w->current[0][r]));
    for (uint32_t i = 1; i < config->input_count; i++) {
        uint32_t right_count = w->current_count[i];
        Row **right = calloc(right_count + 1, sizeof(Row *));
        bool *right_matched = calloc(right_count + 1, sizeof(bool));
        for (uint32_t r = 0; r < right_count; r++)
            right[r] =
                row_copy_heap(build_test_row(&builder, per, ROW_KIND_INSERT, w->current[i][r]));
        size_t next_capacity = level_count * (right_count + 1) + right_count + 1;
        Row **next = calloc(next_capacity, sizeof(Row *));
        size_t next_count = 0;
        uint32_t left_fields = i * per;
        bool preserve_left =
            config->types[i] == JOIN_TYPE_LEFT || config->types[i] == JOIN_TYPE_FULL;
        bool preserve_right =
            config->types[i] == JOIN_TYPE_RIGHT || config->types[i] == JOIN_TYPE_FULL;
        for (size_t l = 0; l <= level_count; l++) {
            const Row *left_row = l < level_count ? level[l] : NULL;
            bool matched = false;
            for (uint32_t r = 0; r <= right_count; r++) {
                const Row *right_row = r < right_count ? right[r] : NULL;
                bool take;
                if (left_row && right_row) {
                    take = expr_eval_predicate(f->conditions[i], left_row, left_fields, right_row,
                                               &eval);
                    ck_assert(!eval.failed);
                    if (take) {
                        matched = true;
                        right_matched[r] = true;
                    }
                } else if (left_row) {
                    take = !matched && preserve_left; /* after all right rows */
                } else {
                    take = right_row && preserve_right && !right_matched[r];
                }
                if (!take)
                    continue;
                row_builder_begin(&builder, left_fields + per, ROW_KIND_INSERT);
                for (uint32_t x = 0; x < left_fields; x++) {
                    if (left_row)
                        row_builder_copy_field(&builder, x, left_row, x,
                                               type_is_variable_length(f->types[x].id));
                    else
                        row_builder_set_null(&builder, x);
                }
                for (uint32_t x = 0; x < per; x++) {
                    if (right_row)
                        row_builder_copy_field(&builder, left_fields + x, right_row, x,
                                               type_is_variable_length(f->types[x].id));
                    else
                        row_builder_set_null(&builder, left_fields + x);
                }
                next[next_count++] = row_copy_heap(row_builder_finish(&builder));
            }
        }
        for (size_t l = 0; l < level_count; l++)
            free(level[l]);
        free(level);
        for (uint32_t r = 0; r < right_count; r++)
            free(right[r]);
        free(right);
        free(right_matched);
        level = next;
        level_count = next_count;
    }
    StrBuf text;
    memset(&text, 0, sizeof text);
    for (size_t l = 0; l < level_count; l++) {
        strbuf_clear(&text);
        format_fields(&text, level[l], f->types, f->field_count);
        bag_add(expected, strbuf_cstr(&text), text.length);
        free(level[l]);
    }
    free(level);
    strbuf_free(&text);
    row_builder_free(&builder);
    arena_destroy(&scratch);
}

/*
 * Runs one workload through MultiJoin (pruning on and off) and the binary
 * chain, and checks all three against the nested-loop oracle.
 */
static void check_chain(const ChainConfig *config, unsigned seed, uint32_t steps, int key_range)
{
    srand(seed);
    Workload w;
    workload_generate(&w, config, steps, key_range);
    TextBag expected = {0};
    Fixture f;
    fixture_init(&f, config);
    oracle_evaluate(&f, &w, &expected);

    StrBuf logs[2];
    memset(logs, 0, sizeof logs);
    for (int pruning = 0; pruning < 2; pruning++) {
        f.spec.empty_result_pruning = pruning == 1;
        Harness h;
        harness_open_multi(&h, &f);
        TextBag result = {0};
        workload_run(&w, &h, config->fields_per_input, &result, &logs[pruning], "multi-join");
        ck_assert_uint_eq(h.op->metrics.skipped_rows, w.absent_retractions);
        bag_assert_equal(&result, &expected, "multi-join vs nested loop", seed);
        /* state holds the raw inputs only */
        uint64_t rows = 0;
        for (uint32_t i = 0; i < config->input_count; i++) {
            uint64_t input_rows;
            multi_join_operator_input_state(h.op, i, NULL, NULL, &input_rows);
            rows += input_rows;
        }
        uint64_t current = 0;
        for (uint32_t i = 0; i < config->input_count; i++)
            current += w.current_count[i];
        ck_assert_uint_le(rows, current);
        bag_free(&result);
        harness_close(&h);
    }
    ck_assert_msg(strcmp(strbuf_cstr(&logs[0]), strbuf_cstr(&logs[1])) == 0,
                  "seed %u: pruning changed the changelog", seed);
    strbuf_free(&logs[0]);
    strbuf_free(&logs[1]);

    /* mini-batch mode (batches of 3 rows, or of all rows, by the seed's parity): the same
       result at the end */
    {
        f.spec.mini_batch_size = seed % 2 ? 3 : 100000;
        Harness h;
        harness_open_multi(&h, &f);
        TextBag result = {0};
        workload_run(&w, &h, config->fields_per_input, &result, NULL, "mini-batch multi-join");
        workload_finish(config->input_count, &h, &result, "mini-batch multi-join");
        bag_assert_equal(&result, &expected, "mini-batch multi-join vs nested loop", seed);
        bag_free(&result);
        harness_close(&h);
    }
    f.spec.mini_batch_size = 0;

    Harness h;
    harness_open_binary(&h, &f);
    TextBag binary = {0};
    workload_run(&w, &h, config->fields_per_input, &binary, NULL, "binary chain");
    bag_assert_equal(&binary, &expected, "binary chain vs nested loop", seed);
    bag_free(&binary);
    harness_close(&h);

    bag_free(&expected);
    fixture_free(&f);
    workload_free(&w);
}

static ChainConfig random_config(uint32_t input_count, int type_mode)
{
    ChainConfig config;
    memset(&config, 0, sizeof config);
    config.input_count = input_count;
    config.fields_per_input = 3;
    bool outer_seen = false;
    for (uint32_t i = 1; i < input_count; i++) {
        config.types[i] = type_mode < 4 ? (JoinType)type_mode : (JoinType)(rand() % 4);
        config.partner[i] = rand() % 2 ? i - 1 : (uint32_t)rand() % i;
        int extra = rand() % 9;
        config.extra[i] = extra <= 3   ? (ExtraCondition)extra
                          : extra == 4 ? EXTRA_VALUE_EQUAL
                          : extra == 5 ? EXTRA_TAG_EQUAL
                                       : EXTRA_NONE;
        /* null-safe keys only where no outer step precedes */
        config.null_safe[i] = !outer_seen && rand() % 4 == 0;
        if (config.types[i] != JOIN_TYPE_INNER)
            outer_seen = true;
    }
    return config;
}

START_TEST(test_random_chains)
{
    /* type_mode 0..3: all steps INNER/LEFT/RIGHT/FULL; 4: mixed */
    unsigned seed = 1000u + (unsigned)_i;
    srand(seed);
    int type_mode = _i % 5;
    uint32_t input_count = 3 + (uint32_t)(_i / 5) % 3;
    ChainConfig config = random_config(input_count, type_mode);
    check_chain(&config, seed, input_count >= 5 ? 220 : 300, 3);
}
END_TEST

START_TEST(test_grouped_inputs)
{
    /* every step equates a non-key field too: rows are grouped by it within the key
       (tens of rows per key and input, so the state's group index is used) */
    unsigned seed = 7000u + (unsigned)_i;
    srand(seed);
    ChainConfig config = random_config(3 + (uint32_t)_i % 2, 4);
    for (uint32_t i = 1; i < config.input_count; i++)
        config.extra[i] = i % 2 ? EXTRA_VALUE_EQUAL : EXTRA_TAG_EQUAL;
    check_chain(&config, seed, 400, 2);
}
END_TEST

START_TEST(test_seed_002_shape)
{
    /* datagen1 LEFT datagen2 (id > 2) JOIN datagen3 (id > 3) RIGHT datagen5 (id > 5)
       FULL datagen6 (id > 6 AND datagen1.id > 1), every condition on datagen1.id */
    ChainConfig config;
    memset(&config, 0, sizeof config);
    config.input_count = 5;
    config.fields_per_input = 2;
    static const JoinType types[] = {JOIN_TYPE_INNER, JOIN_TYPE_LEFT, JOIN_TYPE_INNER,
                                     JOIN_TYPE_RIGHT, JOIN_TYPE_FULL};
    static const int64_t bounds[] = {0, 2, 3, 5, 6};
    for (uint32_t i = 0; i < 5; i++) {
        config.types[i] = types[i];
        config.partner[i] = 0;
        config.extra[i] = i == 4 ? EXTRA_BOTH_KEYS_ABOVE : EXTRA_KEY_ABOVE;
        config.extra_param[i] = bounds[i];
    }
    for (unsigned seed = 1; seed <= 25; seed++)
        check_chain(&config, seed, 300, 9);
}
END_TEST

/*
 * A four-input MultiJoin (outer steps, one input grouped by a value, TTL
 * and its cleanup timer) snapshotted halfway through a random workload and
 * restored into a fresh operator on a store of its own: the second half
 * gives both the same changelog.
 */
START_TEST(test_snapshot_restore_mid_stream)
{
    srand(5151);
    ChainConfig config = random_config(4, 4);
    config.types[1] = JOIN_TYPE_FULL;
    config.extra[2] = EXTRA_VALUE_EQUAL;
    config.ttl_millis = 2000;
    Workload w;
    workload_generate(&w, &config, 300, 3);
    Fixture f;
    fixture_init(&f, &config);
    fake_now = 1000;
    Harness original, restored;
    harness_open_multi(&original, &f);
    Workload first = w, second = w;
    first.change_count = w.change_count / 2;
    second.changes += first.change_count;
    second.change_count -= first.change_count;
    TextBag bags[2] = {{0}, {0}};
    workload_run(&first, &original, config.fields_per_input, &bags[0], NULL, "first half");
    fake_now += 1500; /* within the TTL: what the first half stored still counts */
    SnapshotBuffer buffer = {0};
    StateWriter writer = snapshot_buffer_writer(&buffer);
    Barrier barrier = {1, 0};
    ck_assert_int_eq(operator_snapshot(original.op, &barrier, &writer), JOINERY_OK);
    harness_open_multi(&restored, &f);
    StateReader reader = snapshot_buffer_reader(&buffer);
    ck_assert_msg(operator_restore(restored.op, &reader) == JOINERY_OK, "%s",
                  restored.diag.message);
    ck_assert_uint_eq(buffer.read_offset, buffer.length);
    snapshot_buffer_free(&buffer);
    for (size_t i = 0; i < bags[0].count; i++)
        bag_add(&bags[1], bags[0].items[i], strlen(bags[0].items[i]));
    StrBuf logs[2] = {STRBUF_INIT, STRBUF_INIT};
    Harness *harnesses[2] = {&original, &restored};
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(operator_advance_processing_time(harnesses[i]->op, fake_now), JOINERY_OK);
        workload_run(&second, harnesses[i], config.fields_per_input, &bags[i], &logs[i],
                     "second half");
    }
    ck_assert_uint_gt(logs[0].length, second.change_count);
    ck_assert_str_eq(strbuf_cstr(&logs[1]), strbuf_cstr(&logs[0]));
    bag_assert_equal(&bags[1], &bags[0], "restored vs original", 5151);
    for (int i = 0; i < 2; i++) {
        strbuf_free(&logs[i]);
        bag_free(&bags[i]);
        harness_close(harnesses[i]);
    }
    fixture_free(&f);
    workload_free(&w);
    fake_now = 0;
}
END_TEST

static Suite *multi_join_suite(void)
{
    Suite *suite = suite_create("multi_join");
    TCase *core = tcase_create("core");
    tcase_add_test(core, test_inner_chain);
    tcase_add_test(core, test_left_chain);
    tcase_add_test(core, test_left_chain_mini_batch);
    tcase_add_test(core, test_right_chain);
    tcase_add_test(core, test_full_chain);
    tcase_add_test(core, test_duplicates);
    tcase_add_test(core, test_null_keys);
    tcase_add_test(core, test_invalid_spec);
    tcase_add_test(core, test_ttl_expiry);
    tcase_add_test(core, test_state_only_raw_inputs);
    suite_add_tcase(suite, core);
    TCase *random = tcase_create("random");
    tcase_add_loop_test(random, test_random_chains, 0, 90);
    tcase_add_test(random, test_seed_002_shape);
    tcase_add_loop_test(random, test_grouped_inputs, 0, 10);
    tcase_add_test(random, test_snapshot_restore_mid_stream);
    tcase_set_timeout(random, 300);
    suite_add_tcase(suite, random);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(multi_join_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
