/*
 * check_state.c - Check suite for the keyed state (engine/state/state.h,
 * state_memory.c): multiset keys and entries (small vectors and the per-key
 * index), removal with backward shift under many keys, value state reuse,
 * TTL (lazy on find, incremental cleanup), counters returning to their
 * empty figures, and the state configuration check.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/state/state.h"

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

START_TEST(test_config)
{
    Diag diag;
    StateConfig config;
    state_config_init(&config);
    diag_clear(&diag);
    ck_assert_int_eq(state_config_validate(&config, &diag), JOINERY_OK);
    config.backend = "lmdb";
    ck_assert_int_eq(state_config_validate(&config, &diag), JOINERY_ERROR_UNSUPPORTED);
    diag_clear(&diag);
    config.backend = "bogus";
    ck_assert_int_eq(state_config_validate(&config, &diag), JOINERY_ERROR_VALIDATE);
    diag_clear(&diag);
    config.backend = NULL;
    config.ttl_millis = -1;
    ck_assert_int_eq(state_config_validate(&config, &diag), JOINERY_ERROR_VALIDATE);
}
END_TEST

START_TEST(test_multiset_entries_and_index)
{
    MultisetState *state = multiset_state_create(0);
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
        ck_assert_ptr_null(multiset_key_find_row(found, row, hash));
        MultisetEntry *entry = multiset_key_add_row(state, found, row, hash, 0);
        ck_assert_ptr_nonnull(entry);
        entry->count = i + 1;
        ck_assert_int_eq(row_kind(entry->row), ROW_KIND_INSERT); /* stored kind-less */
    }
    ck_assert_uint_eq(found->entry_count, ROWS);
    ck_assert_ptr_nonnull(found->index);
    /* every row is found with its count; remove the even ones */
    for (int i = 0; i < ROWS; i++) {
        snprintf(text, sizeof text, "row-%d", i);
        const Row *row = pair_row(&row_builder, i, text);
        MultisetEntry *entry = multiset_key_find_row(found, row, row_content_hash(row));
        ck_assert_ptr_nonnull(entry);
        ck_assert_int_eq(entry->count, i + 1);
        if (i % 2 == 0)
            multiset_key_remove_entry(state, found, entry);
    }
    ck_assert_uint_eq(found->entry_count, ROWS / 2);
    for (int i = 0; i < ROWS; i++) {
        snprintf(text, sizeof text, "row-%d", i);
        const Row *row = pair_row(&row_builder, i, text);
        MultisetEntry *entry = multiset_key_find_row(found, row, row_content_hash(row));
        if (i % 2 == 0) {
            ck_assert_ptr_null(entry);
        } else {
            ck_assert_ptr_nonnull(entry);
            ck_assert_int_eq(entry->count, i + 1);
        }
    }
    /* remove the rest one by one down to the small (unindexed) vector */
    while (found->entry_count > 0)
        multiset_key_remove_entry(state, found, &found->entries[found->entry_count / 2]);
    ck_assert_ptr_null(found->index);
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
    MultisetEntry entry = {.count = 1};
    ck_assert(multiset_entry_add_count(&entry, 5));
    ck_assert_int_eq(entry.count, 6);
    entry.count = MULTISET_COUNT_MAX - 1;
    ck_assert(multiset_entry_add_count(&entry, 1));
    ck_assert_int_eq(entry.count, MULTISET_COUNT_MAX);
    ck_assert(!multiset_entry_add_count(&entry, 1)); /* refused, unchanged */
    ck_assert_int_eq(entry.count, MULTISET_COUNT_MAX);
    ck_assert_uint_eq(sizeof(MultisetEntry), 32);
    ck_assert_uint_eq(sizeof(MultisetKey), 32);
}
END_TEST

START_TEST(test_multiset_parts)
{
    /* three parts: part 1 with a 100 ms TTL, the others forever */
    int64_t ttl[3] = {0, 100, 0};
    MultisetState *state = multiset_state_create_parts(3, ttl);
    ck_assert_ptr_nonnull(state);
    ck_assert_ptr_null(multiset_state_create_parts(0, NULL));
    ck_assert_ptr_null(multiset_state_create_parts(MULTISET_MAX_PARTS + 1, NULL));
    RowBuilder key_builder, row_builder;
    row_builder_init(&key_builder);
    row_builder_init(&row_builder);
    const Row *key = int_row(&key_builder, 7);
    uint64_t key_hash = row_content_hash(key);

    MultisetKey *group = multiset_state_insert_key(state, key, key_hash, 1000);
    ck_assert_ptr_nonnull(group);
    MultisetKey *parts[3];
    for (uint32_t p = 0; p < 3; p++) {
        parts[p] = multiset_key_part(group, p);
        ck_assert_uint_eq(parts[p]->part, p);
        ck_assert_uint_eq(parts[p]->entry_count, 0);
    }
    ck_assert_ptr_eq(parts[0], group);
    /* part 0: 20 rows (a vector with an index); part 1: one row; part 2: none */
    for (int i = 0; i < 20; i++) {
        const Row *row = pair_row(&row_builder, i, "zero");
        MultisetEntry *entry =
            multiset_key_add_row(state, parts[0], row, row_content_hash(row), 1000);
        ck_assert_ptr_nonnull(entry);
        entry->count = 1;
    }
    const Row *one = pair_row(&row_builder, 1, "one");
    MultisetEntry *entry = multiset_key_add_row(state, parts[1], one, row_content_hash(one), 1000);
    ck_assert_ptr_nonnull(entry);
    entry->count = 1;
    ck_assert_ptr_nonnull(multiset_key_find_row(parts[1], one, row_content_hash(one)));
    ck_assert_ptr_null(multiset_key_find_row(parts[2], one, row_content_hash(one)));
    ck_assert_ptr_nonnull(parts[0]->index);

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
    ck_assert_uint_eq(multiset_key_part(group, 1)->entry_count, 0);
    ck_assert_uint_eq(multiset_key_part(group, 0)->entry_count, 20);
    ck_assert_uint_eq(multiset_state_part_counters(state, 1).expired, 1);
    ck_assert_uint_eq(multiset_state_part_counters(state, 1).keys, 0);

    /* emptying part 0 and releasing removes the key */
    while (group->entry_count)
        multiset_key_remove_entry(state, group, &group->entries[group->entry_count - 1]);
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

static uint32_t scan_count(const MultisetState *state, const MultisetKey *key, uint32_t tag,
                           bool *only_tag)
{
    MultisetGroupScan scan;
    multiset_key_group_scan_begin(state, key, tag, &scan);
    uint32_t count = 0;
    *only_tag = true;
    for (MultisetEntry *entry; (entry = multiset_key_group_scan_next(&scan)) != NULL; count++)
        if (test_group_hash(entry->row, NULL) != tag)
            *only_tag = false;
    return count;
}

START_TEST(test_multiset_group_scan)
{
    MultisetState *state = multiset_state_create_parts(2, NULL);
    ck_assert_ptr_nonnull(state);
    multiset_state_set_group_hash(state, 1, test_group_hash, NULL);
    RowBuilder key_builder, row_builder;
    row_builder_init(&key_builder);
    row_builder_init(&row_builder);
    const Row *key = int_row(&key_builder, 1);
    uint64_t key_hash = row_content_hash(key);
    MultisetKey *group = multiset_state_insert_key(state, key, key_hash, 0);
    MultisetKey *part = multiset_key_part(group, 1);
    /* few rows: no index, a scan visits them all */
    for (int i = 0; i < 4; i++) {
        const Row *row = pair_row(&row_builder, i, "x");
        ck_assert_ptr_nonnull(multiset_key_add_row(state, part, row, row_content_hash(row), 0));
    }
    bool only_tag;
    ck_assert_uint_eq(scan_count(state, part, 3, &only_tag), 4);
    /* many rows: the group index gives exactly the group */
    for (int i = 4; i < 100; i++) {
        const Row *row = pair_row(&row_builder, i, "x");
        ck_assert_ptr_nonnull(multiset_key_add_row(state, part, row, row_content_hash(row), 0));
    }
    ck_assert_uint_eq(scan_count(state, part, 3, &only_tag), 20);
    ck_assert(only_tag);
    ck_assert_uint_eq(scan_count(state, part, 7, &only_tag), 0);
    /* removals (the last entry moves into each hole) keep both indexes right */
    for (int i = 0; i < 100; i += 2) {
        const Row *row = pair_row(&row_builder, i, "x");
        MultisetEntry *entry = multiset_key_find_row(part, row, row_content_hash(row));
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
        ck_assert_ptr_nonnull(multiset_key_find_row(part, row, row_content_hash(row)));
    }
    /* part 0 is not grouped: its scans visit every row */
    MultisetKey *plain = multiset_key_part(group, 0);
    for (int i = 0; i < 20; i++) {
        const Row *row = pair_row(&row_builder, i, "y");
        ck_assert_ptr_nonnull(multiset_key_add_row(state, plain, row, row_content_hash(row), 0));
    }
    ck_assert_uint_eq(scan_count(state, plain, 1, &only_tag), 20);
    row_builder_free(&key_builder);
    row_builder_free(&row_builder);
    multiset_state_destroy(state);
}
END_TEST

START_TEST(test_multiset_many_keys)
{
    MultisetState *state = multiset_state_create(0);
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
        MultisetEntry *entry = multiset_key_add_row(state, found, row, row_content_hash(row), 0);
        entry->count = 1;
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
            ck_assert_int_eq(row_get_int64(found->entries[0].row, 0), i);
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
    MultisetState *state = multiset_state_create(100);
    RowBuilder key_builder, row_builder;
    row_builder_init(&key_builder);
    row_builder_init(&row_builder);
    const Row *key = int_row(&key_builder, 1);
    uint64_t key_hash = row_content_hash(key);
    MultisetKey *found = multiset_state_insert_key(state, key, key_hash, 1000);
    const Row *row = int_row(&row_builder, 10);
    multiset_key_add_row(state, found, row, row_content_hash(row), 1000)->count = 1;
    row = int_row(&row_builder, 11);
    multiset_key_add_row(state, found, row, row_content_hash(row), 1050)->count = 1;
    /* a write refreshes the entry */
    found = multiset_state_find(state, key, key_hash, 1099);
    ck_assert_uint_eq(found->entry_count, 2);
    found = multiset_state_find(state, key, key_hash, 1100); /* the first expired */
    ck_assert_uint_eq(found->entry_count, 1);
    multiset_entry_touch(&found->entries[0], 1100);
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
        multiset_key_add_row(state, found, row, row_content_hash(row), 2000 + i % 2)->count = 1;
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
    ValueState *state = value_state_create(1000);
    StateCounters empty = value_state_counters(state);
    RowBuilder key_builder, value_builder;
    row_builder_init(&key_builder);
    row_builder_init(&value_builder);
    const Row *key = int_row(&key_builder, 5);
    uint64_t hash = row_content_hash(key);
    ck_assert_ptr_null(value_state_find(state, key, hash, 0));
    ValueEntry *entry = value_state_insert(state, key, hash, 0);
    ck_assert_ptr_nonnull(entry);
    ck_assert_ptr_null(entry->value);
    ck_assert_int_eq(value_state_set(state, entry, pair_row(&value_builder, 1, "abc"), 0),
                     JOINERY_OK);
    Row *memory = entry->value;
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
    tcase_add_test(core, test_config);
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
