/*
 * check_key_extractor.c - key rows built from row fields (engine/exec/key_extractor.h):
 * the fixed-width fast path writes exactly what a RowBuilder builds, NULL
 * flags honour null-safe fields, variable-width keys copy their strings.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "engine/exec/key_extractor.h"

/* (id BIGINT, name STRING, score DOUBLE, flag BOOLEAN), any field may be NULL */
static const Row *sample_row(RowBuilder *builder, const int64_t *id, const char *name,
                             const double *score)
{
    row_builder_begin(builder, 4, ROW_KIND_UPDATE_AFTER);
    if (id)
        row_builder_set_int64(builder, 0, *id);
    else
        row_builder_set_null(builder, 0);
    if (name)
        row_builder_set_string(builder, 1, name, (uint32_t)strlen(name));
    else
        row_builder_set_null(builder, 1);
    if (score)
        row_builder_set_double(builder, 2, *score);
    else
        row_builder_set_null(builder, 2);
    row_builder_set_int64(builder, 3, 1);
    return row_builder_finish(builder);
}

static DataType SAMPLE_TYPES[4];

static void sample_types(void)
{
    SAMPLE_TYPES[0] = type_make(TYPE_BIGINT, true);
    SAMPLE_TYPES[1] = type_make_varchar(TYPE_STRING_LENGTH, true);
    SAMPLE_TYPES[2] = type_make(TYPE_DOUBLE, true);
    SAMPLE_TYPES[3] = type_make(TYPE_BOOLEAN, false);
}

/* The key a RowBuilder builds from `fields` of `row`: the reference. */
static const Row *reference_key(RowBuilder *builder, const Row *row, const uint32_t *fields,
                                uint32_t count)
{
    row_builder_begin(builder, count, ROW_KIND_INSERT);
    for (uint32_t k = 0; k < count; k++)
        row_builder_copy_field(builder, k, row, fields[k],
                               type_is_variable_length(SAMPLE_TYPES[fields[k]].id));
    return row_builder_finish(builder);
}

START_TEST(test_fixed_width_keys_equal_built_keys)
{
    sample_types();
    uint32_t fields[2] = {2, 0}; /* score, id: both fixed-width */
    bool null_safe[2] = {false, true};
    KeyExtractor extractor;
    ck_assert(key_extractor_init(&extractor, 2, fields, SAMPLE_TYPES, null_safe));
    ck_assert(extractor.fixed_width);
    RowBuilder rows, reference;
    row_builder_init(&rows);
    row_builder_init(&reference);
    int64_t id = 42;
    double score = 2.5;
    const Row *row = sample_row(&rows, &id, "a", &score);
    bool has_null = true;
    const Row *key = key_extractor_build(&extractor, row, &has_null);
    const Row *expected = reference_key(&reference, row, fields, 2);
    ck_assert(!has_null);
    ck_assert_uint_eq(row_size(key), row_size(expected));
    ck_assert(memcmp(key, expected, row_size(key)) == 0);
    ck_assert_uint_eq(row_content_hash(key), row_content_hash(expected));

    /* id is null-safe: a NULL there is a value; a NULL score makes has_null */
    row = sample_row(&rows, NULL, "a", &score);
    key = key_extractor_build(&extractor, row, &has_null);
    expected = reference_key(&reference, row, fields, 2);
    ck_assert(!has_null);
    ck_assert(memcmp(key, expected, row_size(key)) == 0);
    row = sample_row(&rows, &id, "a", NULL);
    key = key_extractor_build(&extractor, row, &has_null);
    expected = reference_key(&reference, row, fields, 2);
    ck_assert(has_null);
    ck_assert(row_is_null(key, 0) && !row_is_null(key, 1));
    ck_assert(memcmp(key, expected, row_size(key)) == 0);

    /* write_fixed gives the same bytes anywhere */
    uint64_t out[8];
    ck_assert(key_extractor_write_fixed(&extractor, row, out));
    ck_assert(memcmp(out, expected, row_size(expected)) == 0);

    key_extractor_free(&extractor);
    key_extractor_free(&extractor); /* freeing twice is safe */
    row_builder_free(&rows);
    row_builder_free(&reference);
}
END_TEST

START_TEST(test_variable_width_keys)
{
    sample_types();
    uint32_t fields[2] = {1, 0}; /* name, id */
    KeyExtractor extractor;
    ck_assert(key_extractor_init(&extractor, 2, fields, SAMPLE_TYPES, NULL));
    ck_assert(!extractor.fixed_width);
    RowBuilder rows, reference;
    row_builder_init(&rows);
    row_builder_init(&reference);
    int64_t id = 7;
    const Row *row = sample_row(&rows, &id, "a longer name than one word", NULL);
    bool has_null = true;
    const Row *key = key_extractor_build(&extractor, row, &has_null);
    const Row *expected = reference_key(&reference, row, fields, 2);
    ck_assert(!has_null);
    ck_assert_uint_eq(row_size(key), row_size(expected));
    ck_assert(memcmp(key, expected, row_size(key)) == 0);
    row = sample_row(&rows, &id, NULL, NULL);
    key = key_extractor_build(&extractor, row, &has_null);
    ck_assert(has_null);
    ck_assert(row_is_null(key, 0));
    key_extractor_free(&extractor);

    /* the empty key: one row for all */
    ck_assert(key_extractor_init(&extractor, 0, NULL, SAMPLE_TYPES, NULL));
    key = key_extractor_build(&extractor, row, NULL);
    ck_assert_uint_eq(row_field_count(key), 0);
    key_extractor_free(&extractor);
    row_builder_free(&rows);
    row_builder_free(&reference);
}
END_TEST

static Suite *key_extractor_suite(void)
{
    Suite *suite = suite_create("key_extractor");
    TCase *core = tcase_create("core");
    tcase_add_test(core, test_fixed_width_keys_equal_built_keys);
    tcase_add_test(core, test_variable_width_keys);
    suite_add_tcase(suite, core);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(key_extractor_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
