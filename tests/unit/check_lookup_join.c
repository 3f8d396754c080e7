/*
 * check_lookup_join.c - Check suite for the lookup join's cache
 * (engine/exec/lookup/lookup_cache.h) and operator
 * (engine/exec/ops/op_lookup_join.h) over a real table: a csv file looked
 * up through the FULL cache the operator loads with the filesystem source
 * (the PostgreSQL lookups, sync and async, are tests/lookup/run.sh's).
 *
 * Covered: LRU eviction past max-rows (the least recently read goes),
 * expire-after-write and expire-after-access at given times, cached misses,
 * FULL append; the operator: several rows per key, a missing and a NULL key,
 * INNER and LEFT, a constant key, `where` on the looked-up rows and the
 * join condition, row kinds of an updating input passed on, and the FULL
 * cache reloaded after its interval (the file rewritten in between).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/exec/lookup/lookup_cache.h"
#include "engine/exec/ops/op_lookup_join.h"
#include "tests/unit/connector_fixture.h"
#include "tests/unit/operator_harness.h"

static Row *int_row(int64_t a, int64_t b)
{
    RowBuilder builder;
    row_builder_init(&builder);
    row_builder_begin(&builder, 2, ROW_KIND_INSERT);
    row_builder_set_int64(&builder, 0, a);
    row_builder_set_int64(&builder, 1, b);
    Row *row = row_copy_heap(row_builder_finish(&builder));
    row_builder_free(&builder);
    return row;
}

START_TEST(test_cache_lru)
{
    LookupCache *cache = lookup_cache_create((LookupCacheLimits){2, 0, 0});
    Row *keys[3] = {int_row(1, 0), int_row(2, 0), int_row(3, 0)};
    Row *value = int_row(10, 11);
    Row *const *rows;
    uint32_t count;
    ck_assert(lookup_cache_put(cache, keys[0], &value, 1, 0));
    ck_assert(lookup_cache_put(cache, keys[1], NULL, 0, 0));       /* a cached miss */
    ck_assert(lookup_cache_get(cache, keys[0], 1, &rows, &count)); /* 1 is now the newest */
    ck_assert_uint_eq(count, 1);
    ck_assert_int_eq(row_get_int64(rows[0], 1), 11);
    ck_assert(lookup_cache_put(cache, keys[2], &value, 1, 2)); /* evicts 2, the oldest read */
    ck_assert_uint_eq(lookup_cache_keys(cache), 2);
    ck_assert(!lookup_cache_get(cache, keys[1], 3, &rows, &count));
    ck_assert(lookup_cache_get(cache, keys[0], 3, &rows, &count));
    ck_assert(lookup_cache_get(cache, keys[2], 3, &rows, &count));
    ck_assert_uint_eq(lookup_cache_rows(cache), 2);
    lookup_cache_destroy(cache);
    for (int i = 0; i < 3; i++)
        free(keys[i]);
    free(value);
}
END_TEST

START_TEST(test_cache_expiry)
{
    Row *key = int_row(1, 0), *value = int_row(5, 6);
    Row *const *rows;
    uint32_t count;
    LookupCache *written = lookup_cache_create((LookupCacheLimits){0, 100, 0});
    ck_assert(lookup_cache_put(written, key, &value, 1, 1000));
    ck_assert(lookup_cache_get(written, key, 1099, &rows, &count)); /* reads do not extend it */
    ck_assert(!lookup_cache_get(written, key, 1100, &rows, &count));
    ck_assert_uint_eq(lookup_cache_keys(written), 0);
    lookup_cache_destroy(written);
    LookupCache *accessed = lookup_cache_create((LookupCacheLimits){0, 0, 100});
    ck_assert(lookup_cache_put(accessed, key, &value, 1, 1000));
    ck_assert(lookup_cache_get(accessed, key, 1090, &rows, &count));
    ck_assert(lookup_cache_get(accessed, key, 1180, &rows, &count)); /* 90 since the last read */
    ck_assert(!lookup_cache_get(accessed, key, 1280, &rows, &count));
    lookup_cache_destroy(accessed);
    LookupCache *full = lookup_cache_create((LookupCacheLimits){0, 0, 0});
    ck_assert(lookup_cache_append(full, key, value, 0));
    ck_assert(lookup_cache_append(full, key, value, 0));
    ck_assert(lookup_cache_get(full, key, 1000000, &rows, &count));
    ck_assert_uint_eq(count, 2);
    lookup_cache_destroy(full);
    free(key);
    free(value);
}
END_TEST

/* ---- the operator over a csv table in a FULL cache ---- */

static char dim_path[64];
static DataType input_types[2]; /* id, amount */
static DataType right_types[3]; /* k, name, weight */
static DataType output_types[5];
static uint32_t columns[3] = {0, 1, 2};
static Arena arena;
static PlanLookupOptions options;

static void write_dim(const char *text)
{
    FILE *file = fopen(dim_path, "w");
    ck_assert_ptr_nonnull(file);
    fputs(text, file);
    fclose(file);
}

static void setup(void)
{
    snprintf(dim_path, sizeof dim_path, "/tmp/joinery-lookup-%d.csv", (int)getpid());
    write_dim("1,apple,3\n2,pear,5\n2,pear-b,7\n4,,1\n");
    input_types[0] = type_make(TYPE_INT, true);
    input_types[1] = type_make(TYPE_INT, true);
    right_types[0] = type_make(TYPE_INT, true);
    right_types[1] = type_make_varchar(TYPE_STRING_LENGTH, true);
    right_types[2] = type_make(TYPE_INT, true);
    memcpy(output_types, input_types, sizeof input_types);
    memcpy(output_types + 2, right_types, sizeof right_types);
    arena_init(&arena, 4096);
    memset(&options, 0, sizeof options);
    options.cache.kind = LOOKUP_CACHE_FULL;
    options.full_cache_from_files = true;
    options.capacity = 1;
    options.timeout_millis = 1000;
    fake_now = 1000;
}

static void teardown(void)
{
    arena_destroy(&arena);
    unlink(dim_path);
}

static CatalogTable *dim_table(void)
{
    TestColumn table_columns[] = {
        {"k", right_types[0], NULL},
        {"name", right_types[1], NULL},
        {"weight", right_types[2], NULL},
    };
    const char *table_options[] = {"connector", "filesystem", "path", dim_path, "format", "csv"};
    return make_table("dim", table_columns, 3, table_options, 3);
}

static Expr *ref(uint32_t field, DataType type)
{
    return expr_make_input_ref(&arena, field, type);
}

static Expr *compare(FunctionId function, Expr *a, Expr *b)
{
    Expr *args[2] = {a, b};
    return expr_make_call(&arena, function, type_make(TYPE_BOOLEAN, true), args, 2);
}

typedef struct Case {
    LookupJoinSpec spec;
    uint32_t key_fields[2];
    Expr *key_values[2];
    CatalogTable *table;
} Case;

static void make_case(Case *c, JoinType type)
{
    memset(c, 0, sizeof *c);
    c->table = dim_table();
    c->key_fields[0] = 0; /* dim.k = input.id */
    c->key_values[0] = ref(0, input_types[0]);
    c->spec = (LookupJoinSpec){
        .join_type = type,
        .input_field_count = 2,
        .right_field_count = 3,
        .input_types = input_types,
        .right_types = right_types,
        .table = c->table,
        .columns = columns,
        .key_count = 1,
        .key_fields = c->key_fields,
        .key_values = c->key_values,
        .options = &options,
        .ordered = true,
        .table_path = "default_catalog.default_database.dim",
    };
}

static void push(Harness *h, const char *text)
{
    push_text(h, 0, input_types, 2, text);
}

#define EXPECT(h, text) ck_assert_str_eq(harness_take(h), text)

START_TEST(test_inner_and_left)
{
    for (int left = 0; left < 2; left++) {
        Case c;
        make_case(&c, left ? JOIN_TYPE_LEFT : JOIN_TYPE_INNER);
        Harness h;
        harness_open(&h, lookup_join_operator_create(&c.spec, &h.diag), output_types, 5);
        push(&h, "+I 2,10");
        EXPECT(&h, "+I(2,10,2,pear,5) +I(2,10,2,pear-b,7)");
        push(&h, "+I 3,10");
        EXPECT(&h, left ? "+I(3,10,NULL,NULL,NULL)" : "");
        push(&h, "+I NULL,10");
        EXPECT(&h, left ? "+I(NULL,10,NULL,NULL,NULL)" : "");
        push(&h, "+I 4,1");
        EXPECT(&h, "+I(4,1,4,,1)");
        /* an updating input's kinds are kept */
        push(&h, "-U 1,7");
        EXPECT(&h, "-U(1,7,1,apple,3)");
        push(&h, "+U 1,8");
        EXPECT(&h, "+U(1,8,1,apple,3)");
        push(&h, "-D 3,8");
        EXPECT(&h, left ? "-D(3,8,NULL,NULL,NULL)" : "");
        LookupJoinFigures figures;
        lookup_join_operator_figures(h.op, &figures);
        ck_assert_uint_eq(figures.requests, 0); /* the FULL cache asks no store */
        ck_assert_uint_eq(figures.cache_keys, 3);
        ck_assert_uint_eq(figures.cache_rows, 4);
        ck_assert_uint_eq(figures.reloads, 1);
        harness_close(&h);
        catalog_table_free(c.table);
    }
}
END_TEST

START_TEST(test_conditions_and_constant_key)
{
    Case c;
    make_case(&c, JOIN_TYPE_LEFT);
    /* where: weight > 5 over the dim row; condition: amount < weight over input ++ dim */
    Expr *five = expr_make_literal(&arena, type_make(TYPE_INT, false), value_int(5));
    c.spec.where = compare(FUNCTION_GREATER, ref(2, right_types[2]), five);
    Harness h;
    harness_open(&h, lookup_join_operator_create(&c.spec, &h.diag), output_types, 5);
    push(&h, "+I 2,0");
    EXPECT(&h, "+I(2,0,2,pear-b,7)");
    push(&h, "+I 1,0"); /* apple's weight 3 fails where: padded */
    EXPECT(&h, "+I(1,0,NULL,NULL,NULL)");
    harness_close(&h);
    catalog_table_free(c.table);

    make_case(&c, JOIN_TYPE_INNER);
    c.spec.condition = compare(FUNCTION_LESS, ref(1, input_types[1]), ref(4, right_types[2]));
    harness_open(&h, lookup_join_operator_create(&c.spec, &h.diag), output_types, 5);
    push(&h, "+I 2,6");
    EXPECT(&h, "+I(2,6,2,pear-b,7)");
    push(&h, "+I 2,9");
    EXPECT(&h, "");
    harness_close(&h);
    catalog_table_free(c.table);

    /* dim.k = 2 (a constant) and dim.weight = input.amount */
    make_case(&c, JOIN_TYPE_INNER);
    c.spec.key_count = 2;
    c.key_values[0] = expr_make_literal(&arena, type_make(TYPE_INT, false), value_int(2));
    c.key_fields[1] = 2;
    c.key_values[1] = ref(1, input_types[1]);
    harness_open(&h, lookup_join_operator_create(&c.spec, &h.diag), output_types, 5);
    push(&h, "+I 9,7");
    EXPECT(&h, "+I(9,7,2,pear-b,7)");
    push(&h, "+I 9,3");
    EXPECT(&h, "");
    harness_close(&h);
    catalog_table_free(c.table);
}
END_TEST

START_TEST(test_full_cache_reload)
{
    Case c;
    make_case(&c, JOIN_TYPE_INNER);
    options.cache.reload_interval_millis = 500;
    Harness h;
    harness_open(&h, lookup_join_operator_create(&c.spec, &h.diag), output_types, 5);
    push(&h, "+I 1,0");
    EXPECT(&h, "+I(1,0,1,apple,3)");
    write_dim("1,quince,9\n");
    fake_now = 1400; /* before the interval: the image loaded at open */
    push(&h, "+I 1,0");
    EXPECT(&h, "+I(1,0,1,apple,3)");
    fake_now = 1500; /* the interval passed: loaded again before the row */
    push(&h, "+I 1,0");
    EXPECT(&h, "+I(1,0,1,quince,9)");
    push(&h, "+I 2,0");
    EXPECT(&h, "");
    LookupJoinFigures figures;
    lookup_join_operator_figures(h.op, &figures);
    ck_assert_uint_eq(figures.reloads, 2);
    harness_close(&h);
    catalog_table_free(c.table);
}
END_TEST

static Suite *lookup_join_suite(void)
{
    Suite *suite = suite_create("lookup_join");
    TCase *cache = tcase_create("cache");
    tcase_add_test(cache, test_cache_lru);
    tcase_add_test(cache, test_cache_expiry);
    suite_add_tcase(suite, cache);
    TCase *op = tcase_create("operator");
    tcase_add_checked_fixture(op, setup, teardown);
    tcase_add_test(op, test_inner_and_left);
    tcase_add_test(op, test_conditions_and_constant_key);
    tcase_add_test(op, test_full_cache_reload);
    suite_add_tcase(suite, op);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(lookup_join_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
