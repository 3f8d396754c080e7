/*
 * check_upsert_materializer.c - the sink's upsert materializer
 * (engine/exec/upsert_materializer.h) against a model of Flink's
 * SinkUpsertMaterializer (a list of rows per key: add at the end, remove the
 * first equal one, write the latest), on both backends: random changes of a
 * few keys with repeated rows, a snapshot and restore midway, TTL.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "engine/exec/snapshot.h"
#include "engine/exec/upsert_materializer.h"
#include "test_store.h"

enum { KEYS = 4, VALUES = 5, STEPS = 4000, MAX_LIST = 4096 };

/* Flink's list per key. */
typedef struct Model {
    int64_t values[KEYS][MAX_LIST];
    uint32_t count[KEYS];
} Model;

typedef struct Expected {
    RowKind kind;
    int64_t key, value;
} Expected;

/* What the model writes for one change; returns how many rows (0 or 1), *skipped on a
   retraction of a row the key does not hold. */
static int model_apply(Model *model, RowKind kind, int64_t key, int64_t value, Expected *out,
                       bool *skipped)
{
    int64_t *list = model->values[key];
    uint32_t *count = &model->count[key];
    *skipped = false;
    if (kind == ROW_KIND_INSERT || kind == ROW_KIND_UPDATE_AFTER) {
        ck_assert_uint_lt(*count, MAX_LIST);
        *out = (Expected){*count == 0 ? ROW_KIND_INSERT : ROW_KIND_UPDATE_AFTER, key, value};
        list[(*count)++] = value;
        return 1;
    }
    uint32_t index = 0;
    while (index < *count && list[index] != value)
        index++;
    if (index == *count) {
        *skipped = true;
        return 0;
    }
    bool last = index == *count - 1;
    memmove(&list[index], &list[index + 1], (*count - index - 1) * sizeof *list);
    (*count)--;
    if (*count == 0) {
        *out = (Expected){ROW_KIND_DELETE, key, value};
        return 1;
    }
    if (last) {
        *out = (Expected){ROW_KIND_UPDATE_AFTER, key, list[*count - 1]};
        return 1;
    }
    return 0;
}

static const uint32_t KEY_FIELDS[] = {0};
static DataType TYPES[2];

static UpsertMaterializer *materializer_open(StateStore *store, int64_t ttl_millis)
{
    TYPES[0] = type_make(TYPE_BIGINT, true);
    TYPES[1] = type_make(TYPE_BIGINT, true);
    UpsertMaterializerSpec spec = {1, KEY_FIELDS, TYPES, ttl_millis};
    Diag diag;
    diag_clear(&diag);
    UpsertMaterializer *materializer = upsert_materializer_create(&spec, store, &diag);
    ck_assert_msg(materializer != NULL, "%s", diag.message);
    return materializer;
}

START_TEST(test_matches_flink_list_model)
{
    StateBackendKind backend = _i == 0 ? STATE_BACKEND_HASHMAP : STATE_BACKEND_LMDB;
    StateStore *store = test_store_open_backend(backend);
    UpsertMaterializer *materializer = materializer_open(store, 0);
    Model *model = calloc(1, sizeof *model);
    ck_assert_ptr_nonnull(model);
    RowBuilder builder;
    row_builder_init(&builder);
    srand(7);
    uint64_t model_skipped = 0, written = 0;
    Row *rows[8];
    for (int step = 0; step < STEPS;) {
        uint32_t batch_size = 1 + (uint32_t)(rand() % 5);
        Expected expected[8];
        uint32_t expected_count = 0;
        for (uint32_t r = 0; r < batch_size; r++, step++) {
            int64_t key = rand() % KEYS, value = rand() % VALUES;
            int pick = rand() % 10;
            RowKind kind = pick < 3   ? ROW_KIND_INSERT
                           : pick < 6 ? ROW_KIND_UPDATE_AFTER
                           : pick < 8 ? ROW_KIND_UPDATE_BEFORE
                                      : ROW_KIND_DELETE;
            /* retractions mostly of rows held, some of rows not */
            if ((kind == ROW_KIND_UPDATE_BEFORE || kind == ROW_KIND_DELETE) &&
                model->count[key] > 0 && rand() % 4)
                value = model->values[key][rand() % model->count[key]];
            bool skipped;
            expected_count +=
                (uint32_t)model_apply(model, kind, key, value, &expected[expected_count], &skipped);
            model_skipped += skipped;
            row_builder_begin(&builder, 2, kind);
            row_builder_set_int64(&builder, 0, key);
            row_builder_set_int64(&builder, 1, value);
            rows[r] = row_copy_heap(row_builder_finish(&builder));
        }
        RowBatch batch = {rows, batch_size, batch_size};
        const RowBatch *out = NULL;
        ck_assert_int_eq(upsert_materializer_apply(materializer, &batch, 0, &out), JOINERY_OK);
        ck_assert_uint_eq(out->count, expected_count);
        for (uint32_t i = 0; i < out->count; i++) {
            ck_assert_int_eq(row_kind(out->rows[i]), expected[i].kind);
            ck_assert_int_eq(row_get_int64(out->rows[i], 0), expected[i].key);
            ck_assert_int_eq(row_get_int64(out->rows[i], 1), expected[i].value);
        }
        written += out->count;
        for (uint32_t r = 0; r < batch_size; r++)
            free(rows[r]);
        test_store_commit(store);
        if (step >= STEPS / 2 && step < STEPS / 2 + 5) {
            /* a snapshot, then a new materializer on a new store restored from it */
            SnapshotBuffer buffer = {0};
            StateWriter writer = snapshot_buffer_writer(&buffer);
            Diag diag;
            diag_clear(&diag);
            ck_assert_int_eq(upsert_materializer_snapshot(materializer, &writer, &diag),
                             JOINERY_OK);
            upsert_materializer_destroy(materializer);
            state_store_close(store);
            store = test_store_open_backend(backend);
            materializer = materializer_open(store, 0);
            StateReader reader = snapshot_buffer_reader(&buffer);
            ck_assert_msg(upsert_materializer_restore(materializer, &reader, &diag) == JOINERY_OK,
                          "%s", diag.message);
            snapshot_buffer_free(&buffer);
            step += 5;
        }
    }
    ck_assert_uint_gt(written, STEPS / 4);
    ck_assert_uint_gt(model_skipped, 0);
    /* skipped counts only what the restored materializer saw: at most the model's */
    ck_assert_uint_le(upsert_materializer_skipped(materializer), model_skipped);
    StateCounters counters = upsert_materializer_counters(materializer);
    uint32_t held_keys = 0;
    for (int k = 0; k < KEYS; k++)
        held_keys += model->count[k] > 0;
    ck_assert_uint_eq(counters.keys, held_keys);
    row_builder_free(&builder);
    free(model);
    upsert_materializer_destroy(materializer);
    state_store_close(store);
}
END_TEST

/* Rows expire after the TTL without a write: a retraction of an expired row is skipped. */
START_TEST(test_ttl_expires_rows)
{
    StateBackendKind backend = _i == 0 ? STATE_BACKEND_HASHMAP : STATE_BACKEND_LMDB;
    StateStore *store = test_store_open_backend(backend);
    UpsertMaterializer *materializer = materializer_open(store, 1000);
    RowBuilder builder;
    row_builder_init(&builder);
    row_builder_begin(&builder, 2, ROW_KIND_INSERT);
    row_builder_set_int64(&builder, 0, 1);
    row_builder_set_int64(&builder, 1, 10);
    Row *insert = row_copy_heap(row_builder_finish(&builder));
    row_builder_begin(&builder, 2, ROW_KIND_DELETE);
    row_builder_set_int64(&builder, 0, 1);
    row_builder_set_int64(&builder, 1, 10);
    Row *delete_row = row_copy_heap(row_builder_finish(&builder));
    RowBatch batch = {&insert, 1, 1};
    const RowBatch *out = NULL;
    ck_assert_int_eq(upsert_materializer_apply(materializer, &batch, 0, &out), JOINERY_OK);
    ck_assert_uint_eq(out->count, 1);
    test_store_commit(store);
    ck_assert_uint_eq(upsert_materializer_cleanup(materializer, 5000, 100), 1);
    test_store_commit(store);
    batch.rows = &delete_row;
    ck_assert_int_eq(upsert_materializer_apply(materializer, &batch, 5000, &out), JOINERY_OK);
    ck_assert_uint_eq(out->count, 0);
    ck_assert_uint_eq(upsert_materializer_skipped(materializer), 1);
    free(insert);
    free(delete_row);
    row_builder_free(&builder);
    upsert_materializer_destroy(materializer);
    state_store_close(store);
}
END_TEST

static Suite *upsert_materializer_suite(void)
{
    Suite *suite = suite_create("upsert_materializer");
    TCase *core = tcase_create("core");
    tcase_set_timeout(core, 60);
    tcase_add_loop_test(core, test_matches_flink_list_model, 0, 2);
    tcase_add_loop_test(core, test_ttl_expires_rows, 0, 2);
    suite_add_tcase(suite, core);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(upsert_materializer_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
