/*
 * check_state.c - Check suite for the hashmap state backend's own
 * behaviour (engine/state/state_hashmap_*.c): multiset keys and entries
 * (small vectors and the per-key index), removal with backward shift under
 * many keys, value state memory reuse, TTL (lazy on find, incremental
 * cleanup), memory figures returning to their empty values, the job's
 * memory budget, and backend names. What every backend must do alike is
 * in check_state_backends.c.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/state/state.h"

/* The hashmap store of the running test (each test opens and closes its own). */
static StateStore *store;

static void store_open(void)
{
    Diag diag;
    diag_clear(&diag);
    StateStoreConfig config = {STATE_BACKEND_HASHMAP, NULL, NULL};
    ck_assert_int_eq(state_store_open(&config, &store, &diag), JOINERY_OK);
}

static void store_close(void)
{
    state_store_close(store);
    store = NULL;
}

/* Adds `row` to part `key` with count 1; the entry. */
static const MultisetEntry *add_one(MultisetState *state, MultisetKey *key, const Row *row,
                                    int64_t now)
{
    const MultisetEntry *entry =
        multiset_key_add_row(state, key, row, row_content_hash(row), 1, 0, now);
    ck_assert_ptr_nonnull(entry);
    return entry;
}

/* The n-th entry of part `key` in scan order. */
static const MultisetEntry *entry_at(MultisetState *state, MultisetKey *key, uint32_t n)
{
    MultisetScan scan;
    multiset_scan_begin(state, key, &scan);
    const MultisetEntry *entry = NULL;
    for (uint32_t i = 0; i <= n; i++)
        entry = multiset_scan_next(&scan);
    multiset_scan_end(&scan);
    ck_assert_ptr_nonnull(entry);
    return entry;
}

/* A one-BIGINT-field row (key or entry) in a caller-owned builder. */
static const Row *int_row(RowBuilder *builder, int64_t value)
{
    row_builder_begin(builder, 1, ROW_KIND_INSERT);
    row_builder_set_int64(builder, 0, value);
    return row_builder_finish(builder);
}

/* A (BIGINT, STRING) row. */
static const Row *pair_row(RowBuilder *builder, int64_t value, const char *text)
{
    row_builder_begin(builder, 2, ROW_KIND_UPDATE_AFTER);
    row_builder_set_int64(builder, 0, value);
    row_builder_set_string(builder, 1, text, (uint32_t)strlen(text));
    return row_builder_finish(builder);
}

START_TEST(test_backend_names)
{
    StateBackendKind kind;
    bool substituted;
    ck_assert(state_backend_parse("hashmap", &kind, &substituted));
    ck_assert_int_eq(kind, STATE_BACKEND_HASHMAP);
    ck_assert(!substituted);
    ck_assert(state_backend_parse("memory", &kind, &substituted));
    ck_assert_int_eq(kind, STATE_BACKEND_HASHMAP);
    ck_assert(state_backend_parse("lmdb", &kind, &substituted));
    ck_assert_int_eq(kind, STATE_BACKEND_LMDB);
    ck_assert(!substituted);
    ck_assert(state_backend_parse("RocksDB", &kind, &substituted));
    ck_assert_int_eq(kind, STATE_BACKEND_LMDB);
    ck_assert(substituted);
    ck_assert(!state_backend_parse("bogus", &kind, &substituted));
    ck_assert_str_eq(state_backend_name(STATE_BACKEND_LMDB), "lmdb");
    ck_assert_str_eq(state_backend_name(STATE_BACKEND_HASHMAP), "hashmap");
}
END_TEST

START_TEST(test_budget)
{
    /* a 1 MiB budget: a state that grows past it fails with a message naming the cure */
    store_close(); /* this test's store has a budget */
    StateBudget budget;
    state_budget_init(&budget, 1 << 20);
    ck_assert_uint_eq(budget.limit, 1 << 20);
    Diag diag;
    diag_clear(&diag);
    StateStoreConfig config = {STATE_BACKEND_HASHMAP, NULL, &budget};
    ck_assert_int_eq(state_store_open(&config, &store, &diag), JOINERY_OK);
    MultisetState *state = multiset_state_create(store, 0);
    ck_assert_ptr_nonnull(state);
    RowBuilder key_builder, row_builder;
    row_builder_init(&key_builder);
    row_builder_init(&row_builder);
    bool failed = false;
    int i = 0;
    for (; i < 1000000 && !failed; i++) {
        const Row *key = int_row(&key_builder, i);
        MultisetKey *found = multiset_state_insert_key(state, key, row_content_hash(key), 0);
        const Row *row = pair_row(&row_builder, i, "some text to take room");
        failed = !found || !multiset_key_add_row(state, found, row, row_content_hash(row), 1, 0, 0);
    }
    ck_assert(failed);
    ck_assert(i > 1000); /* it held rows up to the limit */
    ck_assert(atomic_load(&budget.used) <= budget.limit);
    ck_assert_ptr_nonnull(strstr(state_store_error(store), "1.0 MiB"));
    ck_assert_ptr_nonnull(strstr(state_store_error(store), "state.backend.hashmap.max-bytes"));
    ck_assert_ptr_nonnull(strstr(state_store_error(store), "'lmdb'"));
    ck_assert_int_eq(state_store_error_status(store), JOINERY_ERROR_NO_MEMORY);
    ck_assert(!state_store_failed(store)); /* the hashmap fails call by call */
    ck_assert(multiset_state_counters(state).bytes <= budget.limit);
    /* what the state gives back returns to the budget */
    multiset_state_destroy(state);
    ck_assert_uint_eq(atomic_load(&budget.used), 0);
    store_close();
    row_builder_free(&key_builder);
    row_builder_free(&row_builder);
}
END_TEST

START_TEST(test_multiset_entries_and_index)
{
    MultisetState *state = multiset_state_create(store, 0);
    ck_assert_ptr_nonnull(state);
    StateCounters empty = multiset_state_counters(state);
    RowBuilder key_builder, row_builder;
    row_builder_init(&key_builder);
    row_builder_init(&row_builder);
    const Row *key = int_row(&key_builder, 42);
    uint64_t key_hash = row_content_hash(key);
    ck_assert_ptr_null(multiset_state_find(state, key, key_hash, 0));
    MultisetKey *found = multiset_state_insert_key(state, key, key_hash, 0);
    ck_assert_ptr_nonnull(found);
    enum { ROWS = 300 };
    char text[32];
    for (int i = 0; i < ROWS; i++) {
        snprintf(text, sizeof text, "row-%d", i);
        const Row *row = pair_row(&row_builder, i, text);
        uint64_t hash = row_content_hash(row);
        ck_assert_ptr_null(multiset_key_find_row(state, found, row, hash));
        const MultisetEntry *entry = multiset_key_add_row(state, found, row, hash, i + 1, 0, 0);
        ck_assert_ptr_nonnull(entry);
        ck_assert_int_eq(row_kind(entry->row), ROW_KIND_INSERT); /* stored kind-less */
    }
    ck_assert_uint_eq(found->entry_count, ROWS);
    /* every row is found with its count; remove the even ones */
    for (int i = 0; i < ROWS; i++) {
        snprintf(text, sizeof text, "row-%d", i);
        const Row *row = pair_row(&row_builder, i, text);
        const MultisetEntry *entry =
            multiset_key_find_row(state, found, row, row_content_hash(row));
        ck_assert_ptr_nonnull(entry);
        ck_assert_int_eq(entry->count, i + 1);
        if (i % 2 == 0)
            multiset_key_remove_entry(state, found, entry);
    }
    ck_assert_uint_eq(found->entry_count, ROWS / 2);
    for (int i = 0; i < ROWS; i++) {
        snprintf(text, sizeof text, "row-%d", i);
        const Row *row = pair_row(&row_builder, i, text);
        const MultisetEntry *entry =
            multiset_key_find_row(state, found, row, row_content_hash(row));
        if (i % 2 == 0) {
            ck_assert_ptr_null(entry);
        } else {
            ck_assert_ptr_nonnull(entry);
            ck_assert_int_eq(entry->count, i + 1);
        }
    }
    /* remove the rest one by one down to the small (unindexed) vector */
    while (found->entry_count > 0)
        multiset_key_remove_entry(state, found, entry_at(state, found, found->entry_count / 2));
    multiset_state_remove_key(state, found);
    StateCounters after = multiset_state_counters(state);
    ck_assert_uint_eq(after.keys, 0);
    ck_assert_uint_eq(after.entries, 0);
    ck_assert_uint_eq(after.bytes, empty.bytes);
    multiset_state_destroy(state);
    row_builder_free(&key_builder);
    row_builder_free(&row_builder);
}
END_TEST

START_TEST(test_multiset_entry_count_limit)
{
    ck_assert(multiset_count_can_add(1, 5));
    ck_assert(multiset_count_can_add(MULTISET_COUNT_MAX - 1, 1));
    ck_assert(!multiset_count_can_add(MULTISET_COUNT_MAX, 1));
    ck_assert(!multiset_count_can_add(MULTISET_COUNT_MAX - 1, 2));
    ck_assert_uint_eq(sizeof(MultisetEntry), 32);
    ck_assert_uint_eq(sizeof(MultisetKey), 8);
}
END_TEST

START_TEST(test_multiset_parts)
{
    /* three parts: part 1 with a 100 ms TTL, the others forever */
    int64_t ttl[3] = {0, 100, 0};
    MultisetState *state = multiset_state_create_parts(store, 3, ttl);
    ck_assert_ptr_nonnull(state);
    ck_assert_ptr_null(multiset_state_create_parts(store, 0, NULL));
    ck_assert_ptr_null(multiset_state_create_parts(store, MULTISET_MAX_PARTS + 1, NULL));
    RowBuilder key_builder, row_builder;
    row_builder_init(&key_builder);
    row_builder_init(&row_builder);
    const Row *key = int_row(&key_builder, 7);
    uint64_t key_hash = row_content_hash(key);

    MultisetKey *group = multiset_state_insert_key(state, key, key_hash, 1000);
    ck_assert_ptr_nonnull(group);
    MultisetKey *parts[3];
    for (uint32_t p = 0; p < 3; p++) {
        parts[p] = multiset_key_part(state, group, p);
        ck_assert_uint_eq(parts[p]->part, p);
        ck_assert_uint_eq(parts[p]->entry_count, 0);
    }
    ck_assert_ptr_eq(parts[0], group);
    /* part 0: 20 rows (a vector with an index); part 1: one row; part 2: none */
    for (int i = 0; i < 20; i++) {
        const Row *row = pair_row(&row_builder, i, "zero");
        add_one(state, parts[0], row, 1000);
    }
    const Row *one = pair_row(&row_builder, 1, "one");
    add_one(state, parts[1], one, 1000);
    ck_assert_ptr_nonnull(multiset_key_find_row(state, parts[1], one, row_content_hash(one)));
    ck_assert_ptr_null(multiset_key_find_row(state, parts[2], one, row_content_hash(one)));

    StateCounters total = multiset_state_counters(state);
    ck_assert_uint_eq(total.keys, 1);
    ck_assert_uint_eq(total.entries, 21);
    StateCounters figures[3];
    uint64_t bytes = 0;
    for (uint32_t p = 0; p < 3; p++) {
        figures[p] = multiset_state_part_counters(state, p);
        bytes += figures[p].bytes;
    }
    ck_assert_uint_eq(figures[0].entries, 20);
    ck_assert_uint_eq(figures[1].entries, 1);
    ck_assert_uint_eq(figures[2].entries, 0);
    ck_assert_uint_eq(figures[0].keys, 1);
    ck_assert_uint_eq(figures[2].keys, 0);
    ck_assert_uint_eq(figures[2].bytes, 0);
    ck_assert(figures[0].bytes > figures[1].bytes);
    ck_assert(bytes <= total.bytes && bytes + 3 >= total.bytes); /* shares add up */

    /* the key stays while a part has rows: release keeps it */
    multiset_state_release_key(state, group);
    ck_assert_ptr_nonnull(multiset_state_find(state, key, key_hash, 1050));

    /* part 1 expires on its own TTL; part 0 keeps the key alive */
    group = multiset_state_find(state, key, key_hash, 1200);
    ck_assert_ptr_nonnull(group);
    ck_assert_uint_eq(multiset_key_part(state, group, 1)->entry_count, 0);
    ck_assert_uint_eq(multiset_key_part(state, group, 0)->entry_count, 20);
    ck_assert_uint_eq(multiset_state_part_counters(state, 1).expired, 1);
    ck_assert_uint_eq(multiset_state_part_counters(state, 1).keys, 0);

    /* emptying part 0 and releasing removes the key */
    while (group->entry_count)
        multiset_key_remove_entry(state, group, entry_at(state, group, group->entry_count - 1));
    multiset_state_release_key(state, group);
    ck_assert_ptr_null(multiset_state_find(state, key, key_hash, 1300));
    total = multiset_state_counters(state);
    ck_assert_uint_eq(total.keys, 0);
    ck_assert_uint_eq(total.entries, 0);
    /* with no keys left, what remains (the table) is reported once, on part 0 */
    ck_assert_uint_eq(multiset_state_part_counters(state, 1).bytes, 0);
    ck_assert_uint_eq(multiset_state_part_counters(state, 0).bytes, total.bytes);

    row_builder_free(&key_builder);
    row_builder_free(&row_builder);
    multiset_state_destroy(state);
}
END_TEST

/* Group hash for the test: the BIGINT first field modulo 5. */
static uint32_t test_group_hash(const Row *row, const void *context)
{
    (void)context;
    return (uint32_t)(row_get_int64(row, 0) % 5);
}

static uint32_t scan_count(MultisetState *state, MultisetKey *key, uint32_t tag, bool *only_tag)
{
    MultisetScan scan;
    multiset_scan_begin_group(state, key, tag, &scan);
    uint32_t count = 0;
    *only_tag = true;
    for (const MultisetEntry *entry; (entry = multiset_scan_next(&scan)) != NULL; count++)
        if (test_group_hash(entry->row, NULL) != tag)
            *only_tag = false;
    multiset_scan_end(&scan);
    return count;
}

START_TEST(test_multiset_group_scan)
{
    MultisetState *state = multiset_state_create_parts(store, 2, NULL);
    ck_assert_ptr_nonnull(state);
    multiset_state_set_group_hash(state, 1, test_group_hash, NULL);
    RowBuilder key_builder, row_builder;
    row_builder_init(&key_builder);
    row_builder_init(&row_builder);
    const Row *key = int_row(&key_builder, 1);
    uint64_t key_hash = row_content_hash(key);
    MultisetKey *group = multiset_state_insert_key(state, key, key_hash, 0);
    MultisetKey *part = multiset_key_part(state, group, 1);
    /* few rows: no index, a scan visits them all */
    for (int i = 0; i < 4; i++) {
        const Row *row = pair_row(&row_builder, i, "x");
        add_one(state, part, row, 0);
    }
    bool only_tag;
    ck_assert_uint_eq(scan_count(state, part, 3, &only_tag), 4);
    /* many rows: the group index gives exactly the group */
    for (int i = 4; i < 100; i++) {
        const Row *row = pair_row(&row_builder, i, "x");
        add_one(state, part, row, 0);
    }
    ck_assert_uint_eq(scan_count(state, part, 3, &only_tag), 20);
    ck_assert(only_tag);
    ck_assert_uint_eq(scan_count(state, part, 7, &only_tag), 0);
    /* removals (the last entry moves into each hole) keep both indexes right */
    for (int i = 0; i < 100; i += 2) {
        const Row *row = pair_row(&row_builder, i, "x");
        const MultisetEntry *entry = multiset_key_find_row(state, part, row, row_content_hash(row));
        ck_assert_ptr_nonnull(entry);
        multiset_key_remove_entry(state, part, entry);
    }
    ck_assert_uint_eq(part->entry_count, 50);
    for (uint32_t tag = 0; tag < 5; tag++) {
        ck_assert_uint_eq(scan_count(state, part, tag, &only_tag), 10);
        ck_assert(only_tag);
    }
    for (int i = 1; i < 100; i += 2) {
        const Row *row = pair_row(&row_builder, i, "x");
        ck_assert_ptr_nonnull(multiset_key_find_row(state, part, row, row_content_hash(row)));
    }
    /* part 0 is not grouped: its scans visit every row */
    MultisetKey *plain = multiset_key_part(state, group, 0);
    for (int i = 0; i < 20; i++) {
        const Row *row = pair_row(&row_builder, i, "y");
        add_one(state, plain, row, 0);
    }
    ck_assert_uint_eq(scan_count(state, plain, 1, &only_tag), 20);
    row_builder_free(&key_builder);
    row_builder_free(&row_builder);
    multiset_state_destroy(state);
}
END_TEST

START_TEST(test_multiset_many_keys)
{
    MultisetState *state = multiset_state_create(store, 0);
    StateCounters empty = multiset_state_counters(state);
    RowBuilder key_builder, row_builder;
    row_builder_init(&key_builder);
    row_builder_init(&row_builder);
    enum { KEYS = 5000 };
    for (int i = 0; i < KEYS; i++) {
        const Row *key = int_row(&key_builder, i * 7);
        MultisetKey *found = multiset_state_insert_key(state, key, row_content_hash(key), 0);
        ck_assert_ptr_nonnull(found);
        const Row *row = int_row(&row_builder, i);
        add_one(state, found, row, 0);
    }
    StateCounters full = multiset_state_counters(state);
    ck_assert_uint_eq(full.keys, KEYS);
    ck_assert_uint_eq(full.entries, KEYS);
    /* remove every third key; the others stay findable (backward shift) */
    for (int i = 0; i < KEYS; i += 3) {
        const Row *key = int_row(&key_builder, i * 7);
        MultisetKey *found = multiset_state_find(state, key, row_content_hash(key), 0);
        ck_assert_ptr_nonnull(found);
        multiset_state_remove_key(state, found);
    }
    for (int i = 0; i < KEYS; i++) {
        const Row *key = int_row(&key_builder, i * 7);
        MultisetKey *found = multiset_state_find(state, key, row_content_hash(key), 0);
        if (i % 3 == 0) {
            ck_assert_ptr_null(found);
        } else {
            ck_assert_ptr_nonnull(found);
            ck_assert_uint_eq(found->entry_count, 1);
            ck_assert_int_eq(row_get_int64(entry_at(state, found, 0)->row, 0), i);
        }
    }
    for (int i = 0; i < KEYS; i++) {
        const Row *key = int_row(&key_builder, i * 7);
        MultisetKey *found = multiset_state_find(state, key, row_content_hash(key), 0);
        if (found)
            multiset_state_remove_key(state, found);
    }
    StateCounters after = multiset_state_counters(state);
    ck_assert_uint_eq(after.keys, 0);
    ck_assert_uint_eq(after.bytes, empty.bytes); /* the table shrank back */
    multiset_state_destroy(state);
    row_builder_free(&key_builder);
    row_builder_free(&row_builder);
}
END_TEST

START_TEST(test_multiset_ttl)
{
    MultisetState *state = multiset_state_create(store, 100);
    RowBuilder key_builder, row_builder;
    row_builder_init(&key_builder);
    row_builder_init(&row_builder);
    const Row *key = int_row(&key_builder, 1);
    uint64_t key_hash = row_content_hash(key);
    MultisetKey *found = multiset_state_insert_key(state, key, key_hash, 1000);
    const Row *row = int_row(&row_builder, 10);
    add_one(state, found, row, 1000);
    row = int_row(&row_builder, 11);
    add_one(state, found, row, 1050);
    /* a write refreshes the entry */
    found = multiset_state_find(state, key, key_hash, 1099);
    ck_assert_uint_eq(found->entry_count, 2);
    found = multiset_state_find(state, key, key_hash, 1100); /* the first expired */
    ck_assert_uint_eq(found->entry_count, 1);
    const MultisetEntry *left = entry_at(state, found, 0);
    ck_assert_int_eq(multiset_entry_update(state, found, left, left->count, 0, 1100), JOINERY_OK);
    found = multiset_state_find(state, key, key_hash, 1199);
    ck_assert_ptr_nonnull(found);
    ck_assert_ptr_null(multiset_state_find(state, key, key_hash, 1200));
    StateCounters counters = multiset_state_counters(state);
    ck_assert_uint_eq(counters.keys, 0);
    ck_assert_uint_eq(counters.expired, 2);

    /* cleanup reaches keys that are never looked up again */
    for (int i = 0; i < 1000; i++) {
        key = int_row(&key_builder, i);
        found = multiset_state_insert_key(state, key, row_content_hash(key), 2000 + i % 2);
        row = int_row(&row_builder, i);
        add_one(state, found, row, 2000 + i % 2);
    }
    ck_assert_uint_eq(multiset_state_cleanup(state, 2100, 1u << 20), 500);
    ck_assert_uint_eq(multiset_state_counters(state).keys, 500);
    uint64_t dropped = 0;
    for (int tick = 0; tick < 100; tick++)
        dropped += multiset_state_cleanup(state, 2101, 64); /* small steps */
    ck_assert_uint_eq(dropped, 500);
    ck_assert_uint_eq(multiset_state_counters(state).keys, 0);
    multiset_state_destroy(state);
    row_builder_free(&key_builder);
    row_builder_free(&row_builder);
}
END_TEST

START_TEST(test_value_state)
{
    ValueState *state = value_state_create(store, 1000);
    StateCounters empty = value_state_counters(state);
    RowBuilder key_builder, value_builder;
    row_builder_init(&key_builder);
    row_builder_init(&value_builder);
    const Row *key = int_row(&key_builder, 5);
    uint64_t hash = row_content_hash(key);
    ck_assert_ptr_null(value_state_find(state, key, hash, 0));
    const ValueEntry *entry = value_state_insert(state, key, hash, 0);
    ck_assert_ptr_nonnull(entry);
    ck_assert_ptr_null(entry->value);
    ck_assert_int_eq(value_state_set(state, entry, pair_row(&value_builder, 1, "abc"), 0),
                     JOINERY_OK);
    const Row *memory = entry->value;
    ck_assert_int_eq(value_state_set(state, entry, pair_row(&value_builder, 2, "xyz"), 500),
                     JOINERY_OK);
    ck_assert_ptr_eq(entry->value, memory); /* same size: reused */
    entry = value_state_find(state, key, hash, 1499);
    ck_assert_ptr_nonnull(entry);
    ck_assert_int_eq(row_get_int64(entry->value, 0), 2);
    ck_assert_int_eq(row_kind(entry->value), ROW_KIND_INSERT);
    ck_assert_ptr_null(value_state_find(state, key, hash, 1500));
    ck_assert_uint_eq(value_state_counters(state).expired, 1);
    for (int i = 0; i < 300; i++) {
        key = int_row(&key_builder, i);
        entry = value_state_insert(state, key, row_content_hash(key), 0);
        value_state_set(state, entry, pair_row(&value_builder, i, "value"), 0);
    }
    ck_assert_uint_eq(value_state_counters(state).keys, 300);
    ck_assert_uint_eq(value_state_cleanup(state, 5000, 1u << 20), 300);
    StateCounters after = value_state_counters(state);
    ck_assert_uint_eq(after.keys, 0);
    ck_assert_uint_eq(after.bytes, empty.bytes);
    value_state_destroy(state);
    row_builder_free(&key_builder);
    row_builder_free(&value_builder);
}
END_TEST

static Suite *state_suite(void)
{
    Suite *suite = suite_create("state");
    TCase *core = tcase_create("core");
    tcase_add_checked_fixture(core, store_open, store_close);
    tcase_add_test(core, test_backend_names);
    tcase_add_test(core, test_budget);
    tcase_add_test(core, test_multiset_entries_and_index);
    tcase_add_test(core, test_multiset_entry_count_limit);
    tcase_add_test(core, test_multiset_parts);
    tcase_add_test(core, test_multiset_group_scan);
    tcase_add_test(core, test_multiset_many_keys);
    tcase_add_test(core, test_multiset_ttl);
    tcase_add_test(core, test_value_state);
    suite_add_tcase(suite, core);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(state_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
