/*
 * check_join.c - Check suite for the regular streaming join
 * (engine/exec/ops/op_join.c): the exact changelog for inner, left, right,
 * full and cross joins with updates, deletes, duplicates, NULL and
 * null-safe keys, residual conditions, skipped retractions, TTL expiry with a fake clock, state
 * metrics, and a randomized comparison of the materialized output against
 * a nested-loop join of the final inputs.
 *
 * Rows are written as text "1,a,NULL" (fields by the side's types); the
 * collected changelog reads "+I(1,a,1,10) -D(1,a,NULL,NULL)".
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/strbuf.h"
#include "engine/exec/ops/op_join.h"
#include "tests/unit/operator_harness.h"

/* ---- join fixtures: L(id BIGINT, name STRING), R(id BIGINT, val BIGINT) ---- */

static DataType left_types[2];
static DataType right_types[2];
static DataType output_types[4];
static const uint32_t left_keys[1] = {0};
static const uint32_t right_keys[1] = {0};

static void init_types(void)
{
    left_types[0] = type_make(TYPE_BIGINT, true);
    left_types[1] = type_make_varchar(TYPE_STRING_LENGTH, true);
    right_types[0] = type_make(TYPE_BIGINT, true);
    right_types[1] = type_make(TYPE_BIGINT, true);
    output_types[0] = left_types[0];
    output_types[1] = left_types[1];
    output_types[2] = right_types[0];
    output_types[3] = right_types[1];
}

static JoinOperatorSpec make_spec(JoinType type)
{
    init_types();
    JoinOperatorSpec spec;
    memset(&spec, 0, sizeof spec);
    spec.join_type = type;
    spec.left_field_count = 2;
    spec.right_field_count = 2;
    spec.left_types = left_types;
    spec.right_types = right_types;
    spec.left_keys = left_keys;
    spec.right_keys = right_keys;
    spec.key_count = 1;
    return spec;
}

static void open_join(Harness *h, const JoinOperatorSpec *spec)
{
    Diag diag;
    diag_clear(&diag);
    Operator *op = join_operator_create(spec, &diag);
    ck_assert_msg(op != NULL, "%s", diag.message);
    /* a semi / anti join emits the left rows */
    harness_open(h, op, output_types, join_type_emits_right(spec->join_type) ? 4 : 2);
}

static void left(Harness *h, const char *text)
{
    push_text(h, 0, left_types, 2, text);
}

static void right(Harness *h, const char *text)
{
    push_text(h, 1, right_types, 2, text);
}

#define EXPECT(h, text) ck_assert_str_eq(harness_take(h), text)

START_TEST(test_inner_join_basic)
{
    Harness h;
    JoinOperatorSpec spec = make_spec(JOIN_TYPE_INNER);
    open_join(&h, &spec);
    left(&h, "+I 1,a");
    EXPECT(&h, "");
    right(&h, "+I 1,10");
    EXPECT(&h, "+I(1,a,1,10)");
    right(&h, "+I 1,20");
    EXPECT(&h, "+I(1,a,1,20)");
    right(&h, "+I 2,30");
    EXPECT(&h, "");
    left(&h, "+I 2,b");
    EXPECT(&h, "+I(2,b,2,30)");
    /* inner joins forward the input's kind */
    left(&h, "-U 1,a");
    EXPECT(&h, "-U(1,a,1,10) -U(1,a,1,20)");
    left(&h, "+U 1,c");
    EXPECT(&h, "+U(1,c,1,10) +U(1,c,1,20)");
    right(&h, "-D 1,10");
    EXPECT(&h, "-D(1,c,1,10)");
    right(&h, "-U 2,30");
    EXPECT(&h, "-U(2,b,2,30)");
    right(&h, "+U 2,31");
    EXPECT(&h, "+U(2,b,2,31)");
    ck_assert_uint_eq(h.op->metrics.skipped_rows, 0);
    harness_close(&h);
}
END_TEST

START_TEST(test_left_join)
{
    Harness h;
    JoinOperatorSpec spec = make_spec(JOIN_TYPE_LEFT);
    open_join(&h, &spec);
    left(&h, "+I 1,a");
    EXPECT(&h, "+I(1,a,NULL,NULL)");
    right(&h, "+I 1,10");
    EXPECT(&h, "-D(1,a,NULL,NULL) +I(1,a,1,10)");
    right(&h, "+I 1,20");
    EXPECT(&h, "+I(1,a,1,20)");
    right(&h, "-D 1,10");
    EXPECT(&h, "-D(1,a,1,10)");
    /* the inner side's retraction keeps its kind; the padding comes back */
    right(&h, "-U 1,20");
    EXPECT(&h, "-U(1,a,1,20) +I(1,a,NULL,NULL)");
    right(&h, "+U 1,21");
    EXPECT(&h, "-D(1,a,NULL,NULL) +I(1,a,1,21)");
    /* an update of the outer side: -D/+I */
    left(&h, "-U 1,a");
    EXPECT(&h, "-D(1,a,1,21)");
    left(&h, "+U 1,b");
    EXPECT(&h, "+I(1,b,1,21)");
    right(&h, "+I 3,30");
    EXPECT(&h, "");
    left(&h, "-D 1,b");
    EXPECT(&h, "-D(1,b,1,21)");
    right(&h, "-D 1,21");
    EXPECT(&h, "");
    left(&h, "+I 5,e");
    left(&h, "-D 5,e");
    EXPECT(&h, "+I(5,e,NULL,NULL) -D(5,e,NULL,NULL)");
    harness_close(&h);
}
END_TEST

START_TEST(test_right_join)
{
    Harness h;
    JoinOperatorSpec spec = make_spec(JOIN_TYPE_RIGHT);
    open_join(&h, &spec);
    right(&h, "+I 1,10");
    EXPECT(&h, "+I(NULL,NULL,1,10)");
    left(&h, "+I 1,a");
    EXPECT(&h, "-D(NULL,NULL,1,10) +I(1,a,1,10)");
    left(&h, "+I 1,b");
    EXPECT(&h, "+I(1,b,1,10)");
    left(&h, "-D 1,a");
    EXPECT(&h, "-D(1,a,1,10)");
    left(&h, "-D 1,b");
    EXPECT(&h, "-D(1,b,1,10) +I(NULL,NULL,1,10)");
    right(&h, "-U 1,10");
    EXPECT(&h, "-D(NULL,NULL,1,10)");
    left(&h, "+I 2,x");
    EXPECT(&h, "");
    right(&h, "+U 2,11");
    EXPECT(&h, "+I(2,x,2,11)");
    harness_close(&h);
}
END_TEST

START_TEST(test_full_join)
{
    Harness h;
    JoinOperatorSpec spec = make_spec(JOIN_TYPE_FULL);
    open_join(&h, &spec);
    left(&h, "+I 1,a");
    EXPECT(&h, "+I(1,a,NULL,NULL)");
    right(&h, "+I 2,20");
    EXPECT(&h, "+I(NULL,NULL,2,20)");
    right(&h, "+I 1,10");
    EXPECT(&h, "-D(1,a,NULL,NULL) +I(1,a,1,10)");
    left(&h, "+I 2,b");
    EXPECT(&h, "-D(NULL,NULL,2,20) +I(2,b,2,20)");
    left(&h, "+I 1,c");
    EXPECT(&h, "+I(1,c,1,10)");
    right(&h, "-D 1,10");
    EXPECT(&h, "-D(1,a,1,10) +I(1,a,NULL,NULL) -D(1,c,1,10) +I(1,c,NULL,NULL)");
    left(&h, "-U 2,b");
    EXPECT(&h, "-D(2,b,2,20) +I(NULL,NULL,2,20)");
    left(&h, "-D 1,a");
    EXPECT(&h, "-D(1,a,NULL,NULL)");
    right(&h, "-D 2,20");
    EXPECT(&h, "-D(NULL,NULL,2,20)");
    harness_close(&h);
}
END_TEST

START_TEST(test_duplicates)
{
    Harness h;
    JoinOperatorSpec spec = make_spec(JOIN_TYPE_LEFT);
    open_join(&h, &spec);
    left(&h, "+I 1,a");
    left(&h, "+I 1,a");
    EXPECT(&h, "+I(1,a,NULL,NULL) +I(1,a,NULL,NULL)");
    right(&h, "+I 1,10");
    EXPECT(&h, "-D(1,a,NULL,NULL) +I(1,a,1,10) -D(1,a,NULL,NULL) +I(1,a,1,10)");
    right(&h, "+I 1,10");
    EXPECT(&h, "+I(1,a,1,10) +I(1,a,1,10)");
    right(&h, "-D 1,10");
    EXPECT(&h, "-D(1,a,1,10) -D(1,a,1,10)");
    left(&h, "-D 1,a");
    EXPECT(&h, "-D(1,a,1,10)");
    right(&h, "-D 1,10");
    EXPECT(&h, "-D(1,a,1,10) +I(1,a,NULL,NULL)");
    left(&h, "-D 1,a");
    EXPECT(&h, "-D(1,a,NULL,NULL)");
    left(&h, "-D 1,a");
    EXPECT(&h, "");
    ck_assert_uint_eq(h.op->metrics.skipped_rows, 1);
    h.op->vtable->report_state(h.op);
    ck_assert_uint_eq(h.op->metrics.state_rows, 0);
    ck_assert_uint_eq(h.op->metrics.state_keys, 0);
    harness_close(&h);
}
END_TEST

START_TEST(test_null_keys)
{
    Harness h;
    JoinOperatorSpec spec = make_spec(JOIN_TYPE_INNER);
    open_join(&h, &spec);
    left(&h, "+I NULL,a");
    right(&h, "+I NULL,10");
    left(&h, "-D NULL,a");
    EXPECT(&h, "");
    ck_assert_uint_eq(h.op->metrics.skipped_rows, 0);
    h.op->vtable->report_state(h.op);
    ck_assert_uint_eq(h.op->metrics.state_rows, 0);
    harness_close(&h);

    spec = make_spec(JOIN_TYPE_FULL);
    open_join(&h, &spec);
    left(&h, "+I NULL,a");
    EXPECT(&h, "+I(NULL,a,NULL,NULL)");
    right(&h, "+I NULL,10");
    EXPECT(&h, "+I(NULL,NULL,NULL,10)");
    left(&h, "-D NULL,a");
    EXPECT(&h, "-D(NULL,a,NULL,NULL)");
    left(&h, "-D NULL,a");
    EXPECT(&h, "");
    ck_assert_uint_eq(h.op->metrics.skipped_rows, 1);
    harness_close(&h);
}
END_TEST

START_TEST(test_null_safe_keys)
{
    static const bool null_safe[1] = {true};
    Harness h;
    JoinOperatorSpec spec = make_spec(JOIN_TYPE_LEFT);
    spec.null_safe_keys = null_safe;
    open_join(&h, &spec);
    left(&h, "+I NULL,a");
    EXPECT(&h, "+I(NULL,a,NULL,NULL)");
    right(&h, "+I NULL,10");
    EXPECT(&h, "-D(NULL,a,NULL,NULL) +I(NULL,a,NULL,10)");
    right(&h, "+I 1,11");
    EXPECT(&h, "");
    right(&h, "-D NULL,10");
    EXPECT(&h, "-D(NULL,a,NULL,10) +I(NULL,a,NULL,NULL)");
    harness_close(&h);
}
END_TEST

START_TEST(test_cross_join)
{
    Harness h;
    JoinOperatorSpec spec = make_spec(JOIN_TYPE_INNER);
    spec.key_count = 0;
    spec.left_keys = NULL;
    spec.right_keys = NULL;
    open_join(&h, &spec);
    left(&h, "+I 1,a");
    right(&h, "+I 2,20");
    EXPECT(&h, "+I(1,a,2,20)");
    right(&h, "+I NULL,30");
    EXPECT(&h, "+I(1,a,NULL,30)");
    left(&h, "+I 5,b");
    EXPECT(&h, "+I(5,b,2,20) +I(5,b,NULL,30)");
    right(&h, "-D 2,20");
    EXPECT(&h, "-D(1,a,2,20) -D(5,b,2,20)");
    harness_close(&h);
}
END_TEST

START_TEST(test_skipped_retraction)
{
    Harness h;
    JoinOperatorSpec spec = make_spec(JOIN_TYPE_INNER);
    open_join(&h, &spec);
    right(&h, "+I 1,10");
    left(&h, "-D 1,a"); /* never inserted: Flink would emit -D(1,a,1,10) */
    EXPECT(&h, "");
    left(&h, "+I 1,a");
    left(&h, "-D 1,b"); /* same key, other row */
    EXPECT(&h, "+I(1,a,1,10)");
    ck_assert_uint_eq(h.op->metrics.skipped_rows, 2);
    harness_close(&h);
}
END_TEST

START_TEST(test_ttl_expiry)
{
    Harness h;
    JoinOperatorSpec spec = make_spec(JOIN_TYPE_INNER);
    spec.left_ttl_millis = 1000;
    spec.right_ttl_millis = 1000;
    fake_now = 10000;
    open_join(&h, &spec);
    left(&h, "+I 1,a");
    fake_now = 10500;
    right(&h, "+I 1,10");
    EXPECT(&h, "+I(1,a,1,10)");
    fake_now = 10999;
    right(&h, "+I 1,11");
    EXPECT(&h, "+I(1,a,1,11)");
    fake_now = 11000; /* left row written at 10000: expired now */
    right(&h, "+I 1,12");
    EXPECT(&h, "");
    h.op->vtable->report_state(h.op);
    ck_assert_uint_eq(h.op->metrics.expired_rows, 1);
    /* its retraction is skipped: it is no longer in state */
    left(&h, "-D 1,a");
    EXPECT(&h, "");
    ck_assert_uint_eq(h.op->metrics.skipped_rows, 1);

    /* many keys; the timer's cleanup drops them and the bytes go down */
    for (int i = 100; i < 1100; i++) {
        char text[64];
        snprintf(text, sizeof text, "+I %d,name%d", i, i);
        left(&h, text);
    }
    h.op->vtable->report_state(h.op);
    uint64_t full = h.op->metrics.state_bytes;
    ck_assert_uint_ge(h.op->metrics.state_keys, 1000);
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
    fake_now = 0;
}
END_TEST

START_TEST(test_outer_ttl_no_spurious_padding)
{
    Harness h;
    JoinOperatorSpec spec = make_spec(JOIN_TYPE_LEFT);
    spec.right_ttl_millis = 100;
    fake_now = 1000;
    open_join(&h, &spec);
    left(&h, "+I 1,a");
    right(&h, "+I 1,10");
    EXPECT(&h, "+I(1,a,NULL,NULL) -D(1,a,NULL,NULL) +I(1,a,1,10)");
    fake_now = 2000; /* the right row expired; the left row still counts it */
    left(&h, "-D 1,a");
    EXPECT(&h, ""); /* no -D of a padded row that was never emitted */
    harness_close(&h);
    fake_now = 0;
}
END_TEST

START_TEST(test_state_bytes_after_deletes)
{
    Harness h;
    JoinOperatorSpec spec = make_spec(JOIN_TYPE_INNER);
    open_join(&h, &spec);
    h.op->vtable->report_state(h.op);
    uint64_t empty = h.op->metrics.state_bytes;
    char text[64];
    for (int i = 0; i < 2000; i++) {
        snprintf(text, sizeof text, "+I %d,some-longer-name-%d", i % 50, i);
        left(&h, text);
    }
    h.op->vtable->report_state(h.op);
    ck_assert_uint_eq(h.op->metrics.state_keys, 50);
    ck_assert_uint_eq(h.op->metrics.state_rows, 2000);
    uint64_t full = h.op->metrics.state_bytes;
    ck_assert_uint_gt(full, empty + 2000 * 32);
    for (int i = 0; i < 2000; i++) {
        snprintf(text, sizeof text, "-D %d,some-longer-name-%d", i % 50, i);
        left(&h, text);
    }
    h.op->vtable->report_state(h.op);
    ck_assert_uint_eq(h.op->metrics.state_keys, 0);
    ck_assert_uint_eq(h.op->metrics.state_rows, 0);
    ck_assert_uint_eq(h.op->metrics.state_bytes, empty);
    ck_assert_uint_eq(h.op->metrics.skipped_rows, 0);
    harness_close(&h);
}
END_TEST

/* ---- residual (non-equi) conditions ---- */

/* R.val > bound, over left fields then right fields (val is field 3). */
static Expr *make_residual(Arena *arena, int64_t bound)
{
    Expr *args[2];
    args[0] = expr_make_input_ref(arena, 3, right_types[1]);
    args[1] = expr_make_literal(arena, type_make(TYPE_BIGINT, false), value_int(bound));
    return expr_make_call(arena, FUNCTION_GREATER, type_make(TYPE_BOOLEAN, true), args, 2);
}

START_TEST(test_residual_inner)
{
    Arena arena;
    arena_init(&arena, 0);
    Harness h;
    JoinOperatorSpec spec = make_spec(JOIN_TYPE_INNER);
    spec.residual = make_residual(&arena, 10);
    open_join(&h, &spec);
    left(&h, "+I 1,a");
    right(&h, "+I 1,5");
    EXPECT(&h, "");
    right(&h, "+I 1,20");
    EXPECT(&h, "+I(1,a,1,20)");
    right(&h, "+I 1,NULL"); /* NULL > 10 is unknown: no match */
    EXPECT(&h, "");
    left(&h, "-D 1,a");
    EXPECT(&h, "-D(1,a,1,20)");
    harness_close(&h);
    arena_destroy(&arena);
}
END_TEST

START_TEST(test_residual_outer)
{
    Arena arena;
    arena_init(&arena, 0);
    Harness h;
    JoinOperatorSpec spec = make_spec(JOIN_TYPE_FULL);
    spec.residual = make_residual(&arena, 10);
    open_join(&h, &spec);
    left(&h, "+I 1,a");
    EXPECT(&h, "+I(1,a,NULL,NULL)");
    /* same key, residual fails: both sides stay padded */
    right(&h, "+I 1,5");
    EXPECT(&h, "+I(NULL,NULL,1,5)");
    right(&h, "+I 1,20");
    EXPECT(&h, "-D(1,a,NULL,NULL) +I(1,a,1,20)");
    left(&h, "+I 1,b");
    EXPECT(&h, "+I(1,b,1,20)");
    right(&h, "-D 1,20");
    EXPECT(&h, "-D(1,a,1,20) +I(1,a,NULL,NULL) -D(1,b,1,20) +I(1,b,NULL,NULL)");
    right(&h, "-D 1,5");
    EXPECT(&h, "-D(NULL,NULL,1,5)");
    left(&h, "-D 1,a");
    EXPECT(&h, "-D(1,a,NULL,NULL)");
    harness_close(&h);
    arena_destroy(&arena);
}
END_TEST

/* ---- randomized check against a nested-loop join ---- */

typedef struct TextBag {
    char **items;
    size_t count;
    size_t capacity;
} TextBag;

static void bag_add(TextBag *bag, const char *text)
{
    if (bag->count == bag->capacity) {
        bag->capacity = bag->capacity ? bag->capacity * 2 : 64;
        bag->items = realloc(bag->items, bag->capacity * sizeof(char *));
    }
    bag->items[bag->count++] = strdup(text);
}

static bool bag_remove(TextBag *bag, const char *text)
{
    for (size_t i = 0; i < bag->count; i++) {
        if (strcmp(bag->items[i], text) == 0) {
            free(bag->items[i]);
            bag->items[i] = bag->items[--bag->count];
            return true;
        }
    }
    return false;
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

/* Applies a changelog text ("+I(..) -D(..)") to the bag; fails on a delete of an absent row. */
static void bag_apply_changelog(TextBag *bag, const char *log)
{
    char *copy = strdup(log);
    for (char *token = strtok(copy, " "); token; token = strtok(NULL, " ")) {
        bool accumulate = token[0] == '+';
        const char *row = token + 2;
        if (accumulate)
            bag_add(bag, row);
        else
            ck_assert_msg(bag_remove(bag, row), "retraction of absent row %s", token);
    }
    free(copy);
}

typedef struct RandomRow {
    int key; /* -1 = NULL */
    int value;
} RandomRow;

static void random_row_text(char *out, size_t size, const char *kind, int side, RandomRow row)
{
    char key[16];
    if (row.key < 0)
        snprintf(key, sizeof key, "NULL");
    else
        snprintf(key, sizeof key, "%d", row.key);
    if (side == 0)
        snprintf(out, size, "%s %s,v%d", kind, key, row.value);
    else
        snprintf(out, size, "%s %s,%d", kind, key, row.value);
}

static void join_text(char *out, size_t size, const RandomRow *l, const RandomRow *r)
{
    char lk[16] = "NULL", lv[16] = "NULL", rk[16] = "NULL", rv[16] = "NULL";
    if (l) {
        if (l->key >= 0)
            snprintf(lk, sizeof lk, "%d", l->key);
        snprintf(lv, sizeof lv, "v%d", l->value);
    }
    if (r) {
        if (r->key >= 0)
            snprintf(rk, sizeof rk, "%d", r->key);
        snprintf(rv, sizeof rv, "%d", r->value);
    }
    snprintf(out, size, "(%s,%s,%s,%s)", lk, lv, rk, rv);
}

static bool random_keys_match(RandomRow a, RandomRow b, bool null_safe, bool residual)
{
    if (residual && !(b.value > 0))
        return false;
    if (a.key < 0 || b.key < 0)
        return null_safe && a.key < 0 && b.key < 0;
    return a.key == b.key;
}

static void run_random_join(JoinType type, bool null_safe, bool residual, unsigned seed)
{
    Arena arena;
    arena_init(&arena, 0);
    static const bool null_safe_true[1] = {true};
    srand(seed);
    Harness h;
    JoinOperatorSpec spec = make_spec(type);
    if (null_safe)
        spec.null_safe_keys = null_safe_true;
    if (residual)
        spec.residual = make_residual(&arena, 0);
    open_join(&h, &spec);
    enum { MAX_ROWS = 200 };
    RandomRow rows[2][MAX_ROWS];
    int counts[2] = {0, 0};
    TextBag result = {0};
    char text[128];
    for (int step = 0; step < 400; step++) {
        int side = rand() % 2;
        int action = rand() % 10;
        if (action < 6 || counts[side] == 0) {
            if (counts[side] == MAX_ROWS)
                continue;
            RandomRow row = {rand() % 5 - 1, rand() % 3};
            if (counts[side] > 0 && rand() % 4 == 0)
                row = rows[side][rand() % counts[side]]; /* a duplicate */
            rows[side][counts[side]++] = row;
            random_row_text(text, sizeof text, rand() % 2 ? "+I" : "+U", side, row);
            push_text(&h, (uint32_t)side, side ? right_types : left_types, 2, text);
        } else if (action < 9) {
            int victim = rand() % counts[side];
            RandomRow row = rows[side][victim];
            rows[side][victim] = rows[side][--counts[side]];
            random_row_text(text, sizeof text, rand() % 2 ? "-D" : "-U", side, row);
            push_text(&h, (uint32_t)side, side ? right_types : left_types, 2, text);
        } else {
            /* update: -U old, +U new value, in one batch */
            int victim = rand() % counts[side];
            RandomRow before = rows[side][victim];
            RandomRow after = {before.key, rand() % 3};
            rows[side][victim] = after;
            RowBuilder builders[2];
            Row *batch_rows[2];
            const DataType *types = side ? right_types : left_types;
            random_row_text(text, sizeof text, "-U", side, before);
            row_builder_init(&builders[0]);
            batch_rows[0] = (Row *)build_row(&builders[0], types, 2, text);
            random_row_text(text, sizeof text, "+U", side, after);
            row_builder_init(&builders[1]);
            batch_rows[1] = (Row *)build_row(&builders[1], types, 2, text);
            RowBatch batch = {.rows = batch_rows, .count = 2, .capacity = 2};
            ck_assert_int_eq(operator_push(h.op, (uint32_t)side, &batch), JOINERY_OK);
            test_store_commit(h.context.state_store);
            row_builder_free(&builders[0]);
            row_builder_free(&builders[1]);
        }
        bag_apply_changelog(&result, harness_take(&h));
    }
    ck_assert_uint_eq(h.op->metrics.skipped_rows, 0);

    /* nested-loop join over the final inputs */
    TextBag expected = {0};
    bool left_outer = type == JOIN_TYPE_LEFT || type == JOIN_TYPE_FULL;
    bool right_outer = type == JOIN_TYPE_RIGHT || type == JOIN_TYPE_FULL;
    for (int i = 0; i < counts[0]; i++) {
        bool matched = false;
        for (int j = 0; j < counts[1]; j++) {
            if (random_keys_match(rows[0][i], rows[1][j], null_safe, residual)) {
                join_text(text, sizeof text, &rows[0][i], &rows[1][j]);
                if (join_type_emits_right(type))
                    bag_add(&expected, text);
                matched = true;
            }
        }
        if (!matched && left_outer) {
            join_text(text, sizeof text, &rows[0][i], NULL);
            bag_add(&expected, text);
        }
        if ((type == JOIN_TYPE_SEMI && matched) || (type == JOIN_TYPE_ANTI && !matched)) {
            /* the left row alone */
            char key[16] = "NULL";
            if (rows[0][i].key >= 0)
                snprintf(key, sizeof key, "%d", rows[0][i].key);
            snprintf(text, sizeof text, "(%s,v%d)", key, rows[0][i].value);
            bag_add(&expected, text);
        }
    }
    for (int j = 0; j < counts[1] && right_outer; j++) {
        bool matched = false;
        for (int i = 0; i < counts[0]; i++)
            matched = matched || random_keys_match(rows[0][i], rows[1][j], null_safe, residual);
        if (!matched) {
            join_text(text, sizeof text, NULL, &rows[1][j]);
            bag_add(&expected, text);
        }
    }
    /* (a semi / anti case can end empty: no array to sort) */
    if (result.count)
        qsort(result.items, result.count, sizeof(char *), compare_text);
    if (expected.count)
        qsort(expected.items, expected.count, sizeof(char *), compare_text);
    ck_assert_uint_eq(result.count, expected.count);
    for (size_t i = 0; i < result.count; i++)
        ck_assert_str_eq(result.items[i], expected.items[i]);
    bag_free(&result);
    bag_free(&expected);
    harness_close(&h);
    arena_destroy(&arena);
}

START_TEST(test_random_against_nested_loop)
{
    static const JoinType types[] = {JOIN_TYPE_INNER, JOIN_TYPE_LEFT, JOIN_TYPE_RIGHT,
                                     JOIN_TYPE_FULL,  JOIN_TYPE_SEMI, JOIN_TYPE_ANTI};
    for (unsigned seed = 1; seed <= 12; seed++)
        for (int t = 0; t < 6; t++)
            run_random_join(types[t], seed % 3 == 0, seed % 2 == 0, seed * 7919u + (unsigned)t);
}
END_TEST

/* ---- semi / anti joins (Flink's StreamingSemiAntiJoinOperator) ---- */

START_TEST(test_semi_join_row_kinds)
{
    Harness h;
    JoinOperatorSpec spec = make_spec(JOIN_TYPE_SEMI);
    open_join(&h, &spec);
    left(&h, "+I 1,a");
    EXPECT(&h, ""); /* no match yet */
    right(&h, "+I 1,10");
    EXPECT(&h, "+I(1,a)"); /* its first match: emitted with the right row's kind */
    right(&h, "+I 1,11");
    EXPECT(&h, ""); /* a second match changes nothing */
    left(&h, "+I 1,b");
    EXPECT(&h, "+I(1,b)"); /* arrives matched: emitted with its own kind */
    right(&h, "-D 1,10");
    EXPECT(&h, "");
    right(&h, "-U 1,11");
    EXPECT(&h, "-U(1,a) -U(1,b)"); /* the last match left: retracted with its kind */
    right(&h, "+U 1,12");
    EXPECT(&h, "+U(1,a) +U(1,b)");
    left(&h, "-U 1,a");
    EXPECT(&h, "-U(1,a)");
    left(&h, "+U 1,c");
    EXPECT(&h, "+U(1,c)");
    left(&h, "-D 1,zz"); /* never stored: skipped, not forwarded */
    EXPECT(&h, "");
    ck_assert_uint_eq(h.op->metrics.skipped_rows, 1);
    /* duplicates: each copy is emitted */
    left(&h, "+I 2,d");
    left(&h, "+I 2,d");
    EXPECT(&h, "");
    right(&h, "+I 2,20");
    EXPECT(&h, "+I(2,d) +I(2,d)");
    left(&h, "-D 2,d");
    EXPECT(&h, "-D(2,d)");
    right(&h, "-D 2,20");
    EXPECT(&h, "-D(2,d)");
    /* NULL keys never match and are not kept */
    left(&h, "+I NULL,n");
    right(&h, "+I NULL,5");
    left(&h, "-D NULL,n");
    EXPECT(&h, "");
    ck_assert_uint_eq(h.op->metrics.skipped_rows, 1);
    harness_close(&h);
}
END_TEST

START_TEST(test_anti_join_row_kinds)
{
    Harness h;
    JoinOperatorSpec spec = make_spec(JOIN_TYPE_ANTI);
    open_join(&h, &spec);
    left(&h, "+I 1,a");
    EXPECT(&h, "+I(1,a)"); /* no match: emitted */
    right(&h, "+I 1,10");
    EXPECT(&h, "-D(1,a)"); /* its first match deletes it */
    right(&h, "+U 1,11");
    EXPECT(&h, "");
    right(&h, "-D 1,10");
    EXPECT(&h, "");
    right(&h, "-U 1,11");
    EXPECT(&h, "+I(1,a)"); /* the last match left: inserted again */
    left(&h, "-U 1,a");
    EXPECT(&h, "-U(1,a)");
    left(&h, "+U 1,b");
    EXPECT(&h, "+U(1,b)");
    right(&h, "+I 1,12");
    EXPECT(&h, "-D(1,b)");
    left(&h, "-D 1,b"); /* matched, so not emitted: nothing to retract */
    EXPECT(&h, "");
    right(&h, "-D 1,12");
    EXPECT(&h, ""); /* (1,b) is gone */
    /* NULL keys never match: the left row stays emitted, its retraction is checked */
    left(&h, "+I NULL,n");
    EXPECT(&h, "+I(NULL,n)");
    right(&h, "+I NULL,5");
    EXPECT(&h, "");
    left(&h, "-D NULL,n");
    EXPECT(&h, "-D(NULL,n)");
    left(&h, "-D NULL,n");
    EXPECT(&h, "");
    ck_assert_uint_eq(h.op->metrics.skipped_rows, 1);
    right(&h, "-D 7,70"); /* never stored */
    EXPECT(&h, "");
    ck_assert_uint_eq(h.op->metrics.skipped_rows, 2);
    h.op->vtable->report_state(h.op);
    ck_assert_uint_eq(h.op->metrics.state_rows, 0); /* the NULL-keyed right row was not kept */
    harness_close(&h);
}
END_TEST

START_TEST(test_semi_anti_residual)
{
    Arena arena;
    arena_init(&arena, 0);
    Harness h;
    JoinOperatorSpec spec = make_spec(JOIN_TYPE_SEMI);
    spec.residual = make_residual(&arena, 10);
    open_join(&h, &spec);
    left(&h, "+I 1,a");
    right(&h, "+I 1,5"); /* same key, residual fails */
    right(&h, "+I 1,NULL");
    EXPECT(&h, "");
    right(&h, "+I 1,20");
    EXPECT(&h, "+I(1,a)");
    right(&h, "-D 1,5");
    EXPECT(&h, "");
    right(&h, "-D 1,20");
    EXPECT(&h, "-D(1,a)");
    harness_close(&h);

    spec = make_spec(JOIN_TYPE_ANTI);
    spec.residual = make_residual(&arena, 10);
    open_join(&h, &spec);
    right(&h, "+I 1,5");
    left(&h, "+I 1,a");
    EXPECT(&h, "+I(1,a)");
    right(&h, "+I 1,30");
    EXPECT(&h, "-D(1,a)");
    harness_close(&h);
    arena_destroy(&arena);
}
END_TEST

START_TEST(test_semi_anti_ttl)
{
    Harness h;
    JoinOperatorSpec spec = make_spec(JOIN_TYPE_ANTI);
    spec.left_ttl_millis = 1000;
    spec.right_ttl_millis = 1000;
    fake_now = 10000;
    open_join(&h, &spec);
    right(&h, "+I 1,10");
    left(&h, "+I 1,a");
    EXPECT(&h, "");
    fake_now = 11000; /* the right row expired: a new left row has no match */
    left(&h, "+I 1,b");
    EXPECT(&h, "+I(1,b)");
    h.op->vtable->report_state(h.op);
    ck_assert_uint_eq(h.op->metrics.expired_rows, 2); /* (1,10) and (1,a) */
    harness_close(&h);
    fake_now = 0;
}
END_TEST

START_TEST(test_semi_anti_no_mini_batch)
{
    JoinOperatorSpec spec = make_spec(JOIN_TYPE_SEMI);
    spec.mini_batch_size = 100;
    Diag diag;
    diag_clear(&diag);
    ck_assert_ptr_null(join_operator_create(&spec, &diag));
    ck_assert_int_eq(diag.status, JOINERY_ERROR_VALIDATE);
}
END_TEST

/*
 * A FULL join with TTL on one side (so association counts, last-access times
 * and the cleanup timer are all state) snapshotted mid-stream and restored
 * into a fresh operator on a store of its own: for the rest of the stream
 * both give the same changelog, the same state and the same expirations.
 */
START_TEST(test_snapshot_restore_mid_stream)
{
    srand(4242);
    JoinOperatorSpec spec = make_spec(JOIN_TYPE_FULL);
    spec.left_ttl_millis = 300;
    fake_now = 1000;
    Harness original, restored;
    open_join(&original, &spec);
    enum { STEPS = 600, MAX_ROWS = 100 };
    RandomRow rows[2][MAX_ROWS];
    int counts[2] = {0, 0};
    char text[128];
    uint64_t skipped_at_fork = 0, expired_at_fork = 0;
    for (int step = 0; step < STEPS; step++) {
        if (step == STEPS / 2) {
            original.op->vtable->report_state(original.op);
            skipped_at_fork = original.op->metrics.skipped_rows;
            expired_at_fork = original.op->metrics.expired_rows;
            Diag diag;
            diag_clear(&diag);
            Operator *fresh = join_operator_create(&spec, &diag);
            ck_assert_msg(fresh != NULL, "%s", diag.message);
            harness_fork(&original, &restored, fresh, output_types, 4);
            ck_assert_uint_gt(operator_next_processing_timer(restored.op), 0);
            ck_assert_int_eq(operator_next_processing_timer(restored.op),
                             operator_next_processing_timer(original.op));
        }
        int side = rand() % 2;
        bool insert = rand() % 10 < 6 || counts[side] == 0;
        if (insert && counts[side] == MAX_ROWS)
            continue;
        RandomRow row;
        if (insert) {
            row = (RandomRow){rand() % 6 - 1, rand() % 3};
            rows[side][counts[side]++] = row;
        } else {
            int victim = rand() % counts[side];
            row = rows[side][victim];
            rows[side][victim] = rows[side][--counts[side]];
        }
        random_row_text(text, sizeof text, insert ? "+I" : "-D", side, row);
        fake_now += 7;
        Harness *harnesses[2] = {&original, &restored};
        int running = step >= STEPS / 2 ? 2 : 1;
        char logs[2][sizeof original.taken];
        for (int i = 0; i < running; i++) {
            push_text(harnesses[i], (uint32_t)side, side ? right_types : left_types, 2, text);
            if (step % 20 == 0)
                ck_assert_int_eq(operator_advance_processing_time(harnesses[i]->op, fake_now),
                                 JOINERY_OK);
            snprintf(logs[i], sizeof logs[i], "%s", harness_take(harnesses[i]));
        }
        if (running == 2)
            ck_assert_msg(strcmp(logs[0], logs[1]) == 0, "step %d: %s vs %s", step, logs[0],
                          logs[1]);
    }
    original.op->vtable->report_state(original.op);
    restored.op->vtable->report_state(restored.op);
    ck_assert_uint_eq(restored.op->metrics.state_rows, original.op->metrics.state_rows);
    ck_assert_uint_eq(restored.op->metrics.state_keys, original.op->metrics.state_keys);
    /* the counters are not state: they count from the fork in the restored operator */
    ck_assert_uint_gt(restored.op->metrics.expired_rows, 0);
    ck_assert_uint_eq(restored.op->metrics.expired_rows,
                      original.op->metrics.expired_rows - expired_at_fork);
    ck_assert_uint_eq(restored.op->metrics.skipped_rows,
                      original.op->metrics.skipped_rows - skipped_at_fork);
    harness_close(&original);
    harness_close(&restored);
    fake_now = 0;
}
END_TEST

static Suite *join_suite(void)
{
    Suite *suite = suite_create("join");
    TCase *core = tcase_create("core");
    tcase_add_test(core, test_inner_join_basic);
    tcase_add_test(core, test_left_join);
    tcase_add_test(core, test_right_join);
    tcase_add_test(core, test_full_join);
    tcase_add_test(core, test_duplicates);
    tcase_add_test(core, test_null_keys);
    tcase_add_test(core, test_null_safe_keys);
    tcase_add_test(core, test_cross_join);
    tcase_add_test(core, test_skipped_retraction);
    tcase_add_test(core, test_ttl_expiry);
    tcase_add_test(core, test_outer_ttl_no_spurious_padding);
    tcase_add_test(core, test_state_bytes_after_deletes);
    tcase_add_test(core, test_residual_inner);
    tcase_add_test(core, test_residual_outer);
    tcase_add_test(core, test_random_against_nested_loop);
    tcase_add_test(core, test_semi_join_row_kinds);
    tcase_add_test(core, test_anti_join_row_kinds);
    tcase_add_test(core, test_semi_anti_residual);
    tcase_add_test(core, test_semi_anti_ttl);
    tcase_add_test(core, test_semi_anti_no_mini_batch);
    tcase_add_test(core, test_snapshot_restore_mid_stream);
    tcase_set_timeout(core, 60);
    suite_add_tcase(suite, core);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(join_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
