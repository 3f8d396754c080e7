/*
 * check_state_backends.c - one Check suite for the keyed state
 * (engine/state/state.h) that runs every case against both backends: each
 * case is a loop test whose index is the StateBackendKind (0 hashmap,
 * 1 LMDB), so the same code checks both.
 *
 * Cases: multiset entries beyond the hashmap's index threshold, duplicate
 * and association counts, remove and re-add, many keys with removal,
 * grouped parts and group scans, per-part counters, TTL (lazy on find,
 * incremental cleanup, expired counts), key and row hash collisions (on
 * LMDB forced through the hash-mask seam of state_lmdb_internal.h), long
 * key rows (> 511 bytes) and long rows (> 4 KiB: LMDB overflow pages),
 * value state, sorted state, timer queue, the firing order of timers of
 * one timestamp (the same sequence on both, also through LMDB's collision
 * path), bytes that fall as state goes, snapshots taken on one backend and
 * restored on the other, units of work (handles found again after a
 * commit), LMDB map growth past 64 MiB, corrupted snapshots, a randomized
 * differential run (the same adds, retractions, removals that move the
 * last entry, drains, group scans and TTL expiry on a hashmap and an LMDB
 * store, compared after each unit: every scan by its sequence, group scans
 * of parts grown past 8 rows by their set), and LMDB's folders and failure
 * path. Big cases print their timings on stderr.
 */
#include <check.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "engine/state/state.h"
#include "engine/state/state_lmdb_internal.h"

/* ---- helpers ---------------------------------------------------------------- */

static StateStore *open_store(int backend)
{
    StateStoreConfig config = {
        .backend = (StateBackendKind)backend, .directory = NULL, .budget = NULL};
    StateStore *store = NULL;
    Diag diag;
    diag_clear(&diag);
    int status = state_store_open(&config, &store, &diag);
    ck_assert_msg(status == JOINERY_OK, "open: %s", diag.message);
    ck_assert_int_eq(state_store_backend(store), backend);
    return store;
}

static void commit(StateStore *store)
{
    Diag diag;
    diag_clear(&diag);
    int status = state_store_commit(store, &diag);
    ck_assert_msg(status == JOINERY_OK, "commit: %s", diag.message);
}

/* Destroys a state of each shape (any may be NULL) and closes their store. */
static void close_shapes(StateStore *store, MultisetState *multiset, ValueState *values,
                         SortedState *sorted, TimerQueue *timers)
{
    multiset_state_destroy(multiset);
    value_state_destroy(values);
    sorted_state_destroy(sorted);
    timer_queue_destroy(timers);
    state_store_close(store);
}

static double seconds_now(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

static const char *backend_label(int backend)
{
    return state_backend_name((StateBackendKind)backend);
}

/* A one-BIGINT row. */
static const Row *int_row(RowBuilder *builder, int64_t value)
{
    row_builder_begin(builder, 1, ROW_KIND_INSERT);
    row_builder_set_int64(builder, 0, value);
    return row_builder_finish(builder);
}

/* A (BIGINT, STRING) row of kind +U (stored rows must come back +I). */
static const Row *pair_row(RowBuilder *builder, int64_t value, const char *text)
{
    row_builder_begin(builder, 2, ROW_KIND_UPDATE_AFTER);
    row_builder_set_int64(builder, 0, value);
    row_builder_set_string(builder, 1, text, (uint32_t)strlen(text));
    return row_builder_finish(builder);
}

/* A (BIGINT, STRING of `length` bytes) row whose text depends on value. */
static const Row *long_row(RowBuilder *builder, int64_t value, size_t length)
{
    char *text = malloc(length + 1);
    ck_assert_ptr_nonnull(text);
    for (size_t i = 0; i < length; i++)
        text[i] = (char)('a' + (char)((value * 7 + (int64_t)i) % 26));
    row_builder_begin(builder, 2, ROW_KIND_INSERT);
    row_builder_set_int64(builder, 0, value);
    row_builder_set_string(builder, 1, text, (uint32_t)length);
    free(text);
    return row_builder_finish(builder);
}

static uint64_t hash_of(const Row *row)
{
    return row_content_hash(row);
}

static bool rows_equal(const Row *a, const Row *b)
{
    return row_content_equals(a, b);
}

/* Adds one copy of `row` to a key part, as the join does. */
static const MultisetEntry *add_one(MultisetState *state, MultisetKey *part, const Row *row,
                                    int64_t association_count, int64_t now)
{
    uint64_t hash = hash_of(row);
    const MultisetEntry *entry = multiset_key_find_row(state, part, row, hash);
    if (entry) {
        ck_assert_int_eq(
            multiset_entry_update(state, part, entry, entry->count + 1, association_count, now),
            JOINERY_OK);
        return entry;
    }
    ck_assert(!state_store_failed(state->store));
    return multiset_key_add_row(state, part, row, hash, 1, association_count, now);
}

/* Sum of counts and number of entries of a part, by a full scan. */
static uint64_t scan_count(MultisetState *state, MultisetKey *part, uint64_t *sum)
{
    MultisetScan scan;
    multiset_scan_begin(state, part, &scan);
    uint64_t entries = 0;
    *sum = 0;
    for (const MultisetEntry *entry; (entry = multiset_scan_next(&scan)) != NULL;) {
        entries++;
        *sum += (uint64_t)entry->count;
        ck_assert_int_eq(row_kind(entry->row), ROW_KIND_INSERT);
    }
    multiset_scan_end(&scan);
    ck_assert(!state_store_failed(state->store));
    return entries;
}

/* ---- lines: canonical dumps of states, compared as sorted sets ------------------ */

typedef struct Lines {
    char **items;
    size_t count;
    size_t capacity;
} Lines;

static void lines_add(Lines *lines, const char *format, ...) __attribute__((format(printf, 2, 3)));
static void lines_add(Lines *lines, const char *format, ...)
{
    if (lines->count == lines->capacity) {
        lines->capacity = lines->capacity ? lines->capacity * 2 : 64;
        lines->items = realloc(lines->items, lines->capacity * sizeof *lines->items);
        ck_assert_ptr_nonnull(lines->items);
    }
    va_list args;
    va_start(args, format);
    char *line = NULL;
    ck_assert_int_ge(vasprintf(&line, format, args), 0);
    va_end(args);
    lines->items[lines->count++] = line;
}

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void lines_sort(Lines *lines)
{
    if (lines->count)
        qsort(lines->items, lines->count, sizeof *lines->items, compare_strings);
}

static void lines_free(Lines *lines)
{
    for (size_t i = 0; i < lines->count; i++)
        free(lines->items[i]);
    free(lines->items);
    memset(lines, 0, sizeof *lines);
}

static void lines_assert_equal(Lines *a, Lines *b, const char *what)
{
    lines_sort(a);
    lines_sort(b);
    for (size_t i = 0; i < a->count && i < b->count; i++)
        ck_assert_msg(strcmp(a->items[i], b->items[i]) == 0, "%s differ at %zu:\n%.300s\n%.300s",
                      what, i, a->items[i], b->items[i]);
    ck_assert_msg(a->count == b->count, "%s: %zu against %zu lines", what, a->count, b->count);
}

/* Hex of a row's bytes (kind included: stored rows are +I). */
static char *row_hex(const Row *row)
{
    static const char digits[] = "0123456789abcdef";
    uint32_t size = row_size(row);
    char *text = malloc((size_t)size * 2 + 1);
    ck_assert_ptr_nonnull(text);
    const unsigned char *bytes = (const unsigned char *)row;
    for (uint32_t i = 0; i < size; i++) {
        text[2 * i] = digits[bytes[i] >> 4];
        text[2 * i + 1] = digits[bytes[i] & 15];
    }
    text[2 * size] = '\0';
    return text;
}

/*
 * A multiset's dump: per key and part, one line per entry with its index in
 * the part's scan (both backends give a part's entries in one sequence, so
 * lines compared as sets compare the sequences). With group_part set, also
 * per group hash 0 .. groups-1 the group scan of that part: every entry in
 * sequence while the part's capacity (backend_byte: both backends keep the
 * hashmap's vector capacity there) is at most 8, beyond only the group's
 * rows, whose order may differ between the backends: those lines carry no
 * index (compared as a set), and on LMDB they must come in the part's scan
 * order (`order`: the part's rows as its scan gave them).
 */
typedef struct MultisetDump {
    MultisetState *state;
    Lines *lines;
    uint64_t keys;
    MultisetGroupHash group_hash; /* NULL: no group scans */
    uint32_t group_part;
    uint32_t groups;
} MultisetDump;

static void dump_group_scans(MultisetDump *dump, const char *key_text, MultisetKey *part,
                             const Lines *order)
{
    uint32_t capacity = 1u << part->backend_byte;
    bool lmdb = state_store_backend(dump->state->store) == STATE_BACKEND_LMDB;
    lines_add(dump->lines, "K%s p%u capacity %u", key_text, part->part, capacity);
    for (uint32_t g = 0; g < dump->groups; g++) {
        MultisetScan scan;
        multiset_scan_begin_group(dump->state, part, g, &scan);
        uint32_t seen = 0, in_group = 0;
        size_t next = 0; /* in `order` */
        for (const MultisetEntry *entry; (entry = multiset_scan_next(&scan)) != NULL; seen++) {
            bool member = dump->group_hash(entry->row, NULL) == g;
            in_group += member;
            char *row_text = row_hex(entry->row);
            if (lmdb && capacity > 8) { /* the group's rows in the part's order */
                while (next < order->count && strcmp(order->items[next], row_text) != 0)
                    next++;
                ck_assert_msg(next < order->count, "an LMDB group scan is out of position order");
                next++;
            }
            if (capacity <= 8)
                lines_add(dump->lines, "K%s p%u g%u #%04u R%s c%d", key_text, part->part, g, seen,
                          row_text, entry->count);
            else if (member)
                lines_add(dump->lines, "K%s p%u g%u R%s c%d", key_text, part->part, g, row_text,
                          entry->count);
            else
                ck_abort_msg("a group scan of a large part gave a row of another group");
            free(row_text);
        }
        multiset_scan_end(&scan);
        if (capacity <= 8)
            ck_assert_uint_eq(seen, part->entry_count);
        (void)in_group;
    }
}

static int dump_multiset_key(void *context, const Row *key, MultisetKey *handle)
{
    MultisetDump *dump = context;
    dump->keys++;
    char *key_text = row_hex(key);
    for (uint32_t p = 0; p < dump->state->part_count; p++) {
        MultisetKey *part = multiset_key_part(dump->state, handle, p);
        MultisetScan scan;
        multiset_scan_begin(dump->state, part, &scan);
        uint32_t seen = 0;
        Lines order = {0};
        for (const MultisetEntry *entry; (entry = multiset_scan_next(&scan)) != NULL;) {
            char *row_text = row_hex(entry->row);
            lines_add(dump->lines, "K%s p%u #%04u R%s c%d a%lld t%lld h%08x", key_text, p, seen,
                      row_text, entry->count, (long long)entry->association_count,
                      (long long)entry->last_access, entry->hash);
            ck_assert_uint_eq(entry->hash, (uint32_t)hash_of(entry->row));
            lines_add(&order, "%s", row_text);
            free(row_text);
            seen++;
        }
        multiset_scan_end(&scan);
        ck_assert_uint_eq(seen, part->entry_count);
        if (dump->group_hash && p == dump->group_part)
            dump_group_scans(dump, key_text, part, &order);
        lines_free(&order);
    }
    free(key_text);
    return JOINERY_OK;
}

static void dump_multiset_groups(MultisetState *state, Lines *lines, MultisetGroupHash group_hash,
                                 uint32_t group_part, uint32_t groups)
{
    MultisetDump dump = {state, lines, 0, group_hash, group_part, groups};
    ck_assert_int_eq(multiset_state_scan_keys(state, dump_multiset_key, &dump), JOINERY_OK);
    ck_assert_uint_eq(dump.keys, multiset_state_counters(state).keys);
}

static void dump_multiset(MultisetState *state, Lines *lines)
{
    dump_multiset_groups(state, lines, NULL, 0, 0);
}

static int dump_value_entry(void *context, const Row *key, const Row *value, int64_t last_access)
{
    char *key_text = row_hex(key);
    char *value_text = value ? row_hex(value) : NULL;
    lines_add(context, "K%s V%s t%lld", key_text, value_text ? value_text : "-",
              (long long)last_access);
    free(key_text);
    free(value_text);
    return JOINERY_OK;
}

static void dump_value(ValueState *state, Lines *lines)
{
    ck_assert_int_eq(state->ops->scan(state, dump_value_entry, lines), JOINERY_OK);
}

typedef struct SortedDump {
    SortedState *state;
    Lines *lines;
    bool sequences; /* include sequence numbers (same operation history only) */
} SortedDump;

static int dump_sorted_key(void *context, const Row *key, uint64_t entry_count)
{
    SortedDump *dump = context;
    char *key_text = row_hex(key);
    SortedScan scan;
    sorted_scan_begin(dump->state, key, hash_of(key), INT64_MIN, INT64_MAX, &scan);
    uint64_t seen = 0;
    int64_t previous_time = INT64_MIN;
    uint64_t previous_sequence = 0;
    for (const SortedEntry *entry; (entry = sorted_scan_next(&scan)) != NULL;) {
        ck_assert(seen == 0 || entry->time > previous_time ||
                  (entry->time == previous_time && entry->sequence > previous_sequence));
        previous_time = entry->time;
        previous_sequence = entry->sequence;
        char *row_text = row_hex(entry->row);
        /* the position within the key keeps the order of equal times */
        lines_add(dump->lines, "K%s #%06llu t%lld g%lld s%llu R%s", key_text,
                  (unsigned long long)seen, (long long)entry->time, (long long)entry->tag,
                  dump->sequences ? (unsigned long long)entry->sequence : 0ull, row_text);
        free(row_text);
        seen++;
    }
    sorted_scan_end(&scan);
    ck_assert_uint_eq(seen, entry_count);
    free(key_text);
    return JOINERY_OK;
}

static void dump_sorted(SortedState *state, Lines *lines, bool sequences)
{
    SortedDump dump = {state, lines, sequences};
    ck_assert_int_eq(state->ops->scan_keys(state, dump_sorted_key, &dump), JOINERY_OK);
}

static int dump_timer(void *context, int64_t time, const Row *key)
{
    char *key_text = row_hex(key);
    lines_add(context, "T%020lld K%s", (long long)time, key_text);
    free(key_text);
    return JOINERY_OK;
}

static void dump_timers(TimerQueue *queue, Lines *lines)
{
    ck_assert_int_eq(queue->ops->scan(queue, dump_timer, lines), JOINERY_OK);
    ck_assert_uint_eq(lines->count, timer_queue_count(queue));
}

/* ---- snapshot streams in memory ------------------------------------------------- */

typedef struct Buffer {
    unsigned char *bytes;
    size_t size;
    size_t capacity;
    size_t read;
} Buffer;

static int buffer_write(void *context, const void *bytes, size_t length)
{
    Buffer *buffer = context;
    if (buffer->size + length > buffer->capacity) {
        size_t capacity = buffer->capacity ? buffer->capacity : 4096;
        while (capacity < buffer->size + length)
            capacity *= 2;
        unsigned char *grown = realloc(buffer->bytes, capacity);
        if (!grown)
            return JOINERY_ERROR_NO_MEMORY;
        buffer->bytes = grown;
        buffer->capacity = capacity;
    }
    memcpy(buffer->bytes + buffer->size, bytes, length);
    buffer->size += length;
    return JOINERY_OK;
}

static int buffer_read(void *context, void *bytes, size_t length)
{
    Buffer *buffer = context;
    if (buffer->read + length > buffer->size)
        return JOINERY_ERROR;
    memcpy(bytes, buffer->bytes + buffer->read, length);
    buffer->read += length;
    return JOINERY_OK;
}

/* ---- multiset: entries, counts, remove and re-add --------------------------------- */

START_TEST(test_multiset_entries)
{
    StateStore *store = open_store(_i);
    MultisetState *state = multiset_state_create(store, 0);
    ck_assert_ptr_nonnull(state);
    RowBuilder key_builder, row_builder;
    row_builder_init(&key_builder);
    row_builder_init(&row_builder);
    const Row *key = int_row(&key_builder, 42);
    uint64_t key_hash = hash_of(key);
    ck_assert_ptr_null(multiset_state_find(state, key, key_hash, 0));
    ck_assert(!state_store_failed(store));
    MultisetKey *handle = multiset_state_insert_key(state, key, key_hash, 0);
    ck_assert_ptr_nonnull(handle);
    ck_assert_ptr_eq(multiset_state_find(state, key, key_hash, 0), handle); /* one handle a unit */
    ck_assert_ptr_eq(multiset_state_insert_key(state, key, key_hash, 0), handle);
    enum { ROWS = 300 };
    char text[32];
    for (int i = 0; i < ROWS; i++) {
        snprintf(text, sizeof text, "row-%d", i);
        const Row *row = pair_row(&row_builder, i, text);
        uint64_t hash = hash_of(row);
        ck_assert_ptr_null(multiset_key_find_row(state, handle, row, hash));
        const MultisetEntry *entry =
            multiset_key_add_row(state, handle, row, hash, i + 1, 1000 + i, 5);
        ck_assert_ptr_nonnull(entry);
        ck_assert_int_eq(entry->count, i + 1);
        ck_assert_int_eq(entry->association_count, 1000 + i);
        ck_assert_int_eq(entry->last_access, 5);
        ck_assert_uint_eq(entry->hash, (uint32_t)hash);
        ck_assert_int_eq(row_kind(entry->row), ROW_KIND_INSERT); /* stored kind-less */
        ck_assert(rows_equal(entry->row, row));
    }
    ck_assert_uint_eq(handle->entry_count, ROWS);
    StateCounters counters = multiset_state_counters(state);
    ck_assert_uint_eq(counters.keys, 1);
    ck_assert_uint_eq(counters.entries, ROWS);
    commit(store);
    if (_i == STATE_BACKEND_LMDB)
        ck_assert_uint_gt(multiset_state_counters(state).bytes, 0);

    /* after the commit: the handle is found again; every row with its counts */
    handle = multiset_state_find(state, key, key_hash, 10);
    ck_assert_ptr_nonnull(handle);
    ck_assert_uint_eq(handle->entry_count, ROWS);
    for (int i = 0; i < ROWS; i++) {
        snprintf(text, sizeof text, "row-%d", i);
        const Row *row = pair_row(&row_builder, i, text);
        const MultisetEntry *entry = multiset_key_find_row(state, handle, row, hash_of(row));
        ck_assert_ptr_nonnull(entry);
        ck_assert_int_eq(entry->count, i + 1);
        ck_assert_int_eq(entry->association_count, 1000 + i);
        /* duplicates: one more copy, associations changed */
        ck_assert(multiset_count_can_add(entry->count, 1));
        ck_assert_int_eq(multiset_entry_update(state, handle, entry, entry->count + 1, 7, 11),
                         JOINERY_OK);
        ck_assert_int_eq(entry->count, i + 2); /* the view reflects the change */
        ck_assert_int_eq(entry->last_access, 11);
    }
    /* remove the even rows */
    for (int i = 0; i < ROWS; i += 2) {
        snprintf(text, sizeof text, "row-%d", i);
        const Row *row = pair_row(&row_builder, i, text);
        const MultisetEntry *entry = multiset_key_find_row(state, handle, row, hash_of(row));
        ck_assert_ptr_nonnull(entry);
        ck_assert_int_eq(multiset_key_remove_entry(state, handle, entry), JOINERY_OK);
        ck_assert_ptr_null(multiset_key_find_row(state, handle, row, hash_of(row)));
    }
    ck_assert_uint_eq(handle->entry_count, ROWS / 2);
    uint64_t sum;
    ck_assert_uint_eq(scan_count(state, handle, &sum), ROWS / 2);
    uint64_t expected = 0;
    for (int i = 1; i < ROWS; i += 2)
        expected += (uint64_t)i + 2;
    ck_assert_uint_eq(sum, expected);
    /* re-add them with new counts */
    for (int i = 0; i < ROWS; i += 2) {
        snprintf(text, sizeof text, "row-%d", i);
        const Row *row = pair_row(&row_builder, i, text);
        ck_assert_ptr_nonnull(multiset_key_add_row(state, handle, row, hash_of(row), 3, 0, 12));
    }
    ck_assert_uint_eq(handle->entry_count, ROWS);
    /* associations through a scan's views */
    MultisetScan scan;
    multiset_scan_begin(state, handle, &scan);
    uint32_t seen = 0;
    for (const MultisetEntry *entry; (entry = multiset_scan_next(&scan)) != NULL; seen++)
        ck_assert_int_eq(multiset_entry_update(state, handle, entry, entry->count,
                                               entry->association_count + 100, 13),
                         JOINERY_OK);
    multiset_scan_end(&scan);
    ck_assert_uint_eq(seen, ROWS);
    commit(store);
    handle = multiset_state_find(state, key, key_hash, 20);
    ck_assert_ptr_nonnull(handle);
    for (int i = 0; i < ROWS; i++) {
        snprintf(text, sizeof text, "row-%d", i);
        const Row *row = pair_row(&row_builder, i, text);
        const MultisetEntry *entry = multiset_key_find_row(state, handle, row, hash_of(row));
        ck_assert_ptr_nonnull(entry);
        ck_assert_int_eq(entry->count, i % 2 ? i + 2 : 3);
        ck_assert_int_eq(entry->association_count, i % 2 ? 107 : 100);
        ck_assert_int_eq(entry->last_access, 13);
    }
    counters = multiset_state_counters(state);
    ck_assert_uint_eq(counters.entries, ROWS);
    /* the whole key */
    ck_assert_int_eq(multiset_state_remove_key(state, handle), JOINERY_OK);
    ck_assert_ptr_null(multiset_state_find(state, key, key_hash, 20));
    counters = multiset_state_counters(state);
    ck_assert_uint_eq(counters.keys, 0);
    ck_assert_uint_eq(counters.entries, 0);
    commit(store);
    ck_assert_ptr_null(multiset_state_find(state, key, key_hash, 20));
    multiset_state_destroy(state);
    state_store_close(store);
    row_builder_free(&key_builder);
    row_builder_free(&row_builder);
}
END_TEST

/* ---- multiset: many keys, removal ------------------------------------------------- */

START_TEST(test_multiset_many_keys)
{
    StateStore *store = open_store(_i);
    MultisetState *state = multiset_state_create(store, 0);
    RowBuilder key_builder, row_builder;
    row_builder_init(&key_builder);
    row_builder_init(&row_builder);
    enum { KEYS = 20000 };
    double start = seconds_now();
    for (int k = 0; k < KEYS; k++) {
        const Row *key = int_row(&key_builder, k);
        MultisetKey *handle = multiset_state_insert_key(state, key, hash_of(key), 0);
        ck_assert_ptr_nonnull(handle);
        for (int r = 0; r <= k % 3; r++)
            ck_assert_ptr_nonnull(add_one(state, handle, int_row(&row_builder, k * 10 + r), 0, 0));
        if (k % 1000 == 999)
            commit(store);
    }
    commit(store);
    double inserted = seconds_now();
    StateCounters counters = multiset_state_counters(state);
    ck_assert_uint_eq(counters.keys, KEYS);
    /* remove every other key: half entry by entry and release, half whole */
    for (int k = 0; k < KEYS; k += 2) {
        const Row *key = int_row(&key_builder, k);
        MultisetKey *handle = multiset_state_find(state, key, hash_of(key), 0);
        ck_assert_ptr_nonnull(handle);
        ck_assert_uint_eq(handle->entry_count, (uint32_t)(k % 3 + 1));
        if (k % 4 == 0) {
            ck_assert_int_eq(multiset_state_remove_key(state, handle), JOINERY_OK);
            continue;
        }
        for (int r = 0; r <= k % 3; r++) {
            const Row *row = int_row(&row_builder, k * 10 + r);
            const MultisetEntry *entry = multiset_key_find_row(state, handle, row, hash_of(row));
            ck_assert_ptr_nonnull(entry);
            ck_assert_int_eq(multiset_key_remove_entry(state, handle, entry), JOINERY_OK);
            ck_assert_int_eq(multiset_state_release_key(state, handle), JOINERY_OK);
        }
        if (k % 2000 == 0)
            commit(store);
    }
    commit(store);
    double removed = seconds_now();
    uint64_t entries = 0;
    for (int k = 0; k < KEYS; k++) {
        const Row *key = int_row(&key_builder, k);
        MultisetKey *handle = multiset_state_find(state, key, hash_of(key), 0);
        if (k % 2 == 0) {
            ck_assert_ptr_null(handle);
            continue;
        }
        ck_assert_ptr_nonnull(handle);
        ck_assert_uint_eq(handle->entry_count, (uint32_t)(k % 3 + 1));
        entries += handle->entry_count;
        const Row *row = int_row(&row_builder, k * 10);
        ck_assert_ptr_nonnull(multiset_key_find_row(state, handle, row, hash_of(row)));
    }
    double found = seconds_now();
    counters = multiset_state_counters(state);
    ck_assert_uint_eq(counters.keys, KEYS / 2);
    ck_assert_uint_eq(counters.entries, entries);
    fprintf(stderr,
            "[%s] many keys: %d keys, %llu rows: insert %.3f s, remove %.3f s, find %.3f s\n",
            backend_label(_i), KEYS, (unsigned long long)(entries * 2), inserted - start,
            removed - inserted, found - removed);
    multiset_state_destroy(state);
    state_store_close(store);
    row_builder_free(&key_builder);
    row_builder_free(&row_builder);
}
END_TEST

/* ---- multiset: parts and groups --------------------------------------------------- */

static uint32_t group_by_first(const Row *row, const void *context)
{
    (void)context;
    return (uint32_t)(row_get_int64(row, 0) % 5) * 2654435761u;
}

START_TEST(test_multiset_parts_groups)
{
    StateStore *store = open_store(_i);
    MultisetState *state = multiset_state_create_parts(store, 3, NULL);
    ck_assert_ptr_nonnull(state);
    multiset_state_set_group_hash(state, 1, group_by_first, NULL);
    RowBuilder key_builder, row_builder;
    row_builder_init(&key_builder);
    row_builder_init(&row_builder);
    enum { KEYS = 10, GROUPED_ROWS = 50 };
    for (int k = 0; k < KEYS; k++) {
        const Row *key = int_row(&key_builder, k);
        MultisetKey *handle = multiset_state_insert_key(state, key, hash_of(key), 0);
        ck_assert_ptr_nonnull(handle);
        ck_assert_uint_eq(handle->part, 0);
        MultisetKey *part1 = multiset_key_part(state, handle, 1);
        MultisetKey *part2 = multiset_key_part(state, handle, 2);
        ck_assert_uint_eq(part1->part, 1);
        for (int r = 0; r < 3; r++)
            ck_assert_ptr_nonnull(add_one(state, handle, pair_row(&row_builder, r, "zero"), 0, 0));
        for (int r = 0; r < GROUPED_ROWS; r++)
            ck_assert_ptr_nonnull(add_one(state, part1, pair_row(&row_builder, r, "one"), 0, 0));
        if (k % 2 == 0)
            ck_assert_ptr_nonnull(add_one(state, part2, pair_row(&row_builder, k, "two"), 0, 0));
    }
    for (int round = 0; round < 2; round++) {
        /* per-part counters add up */
        StateCounters total = multiset_state_counters(state);
        StateCounters parts[3];
        uint64_t keys = 0, entries = 0, bytes = 0;
        for (uint32_t p = 0; p < 3; p++) {
            parts[p] = multiset_state_part_counters(state, p);
            keys += parts[p].keys;
            entries += parts[p].entries;
            bytes += parts[p].bytes;
        }
        ck_assert_uint_eq(parts[0].keys, KEYS);
        ck_assert_uint_eq(parts[1].keys, KEYS);
        ck_assert_uint_eq(parts[2].keys, KEYS / 2);
        ck_assert_uint_eq(parts[0].entries, KEYS * 3);
        ck_assert_uint_eq(parts[1].entries, KEYS * GROUPED_ROWS);
        ck_assert_uint_eq(entries, total.entries);
        ck_assert_uint_eq(total.keys, KEYS);
        ck_assert_uint_le(bytes, total.bytes);
        ck_assert_uint_ge(bytes + 3, total.bytes); /* shares round down */
        (void)keys;
        commit(store);
    }
    /* group scans: every row of the group asked for (others may come too) */
    for (int k = 0; k < KEYS; k++) {
        const Row *key = int_row(&key_builder, k);
        MultisetKey *handle = multiset_state_find(state, key, hash_of(key), 0);
        ck_assert_ptr_nonnull(handle);
        MultisetKey *part1 = multiset_key_part(state, handle, 1);
        for (int g = 0; g < 5; g++) {
            uint32_t group = (uint32_t)g * 2654435761u;
            MultisetScan scan;
            multiset_scan_begin_group(state, part1, group, &scan);
            bool seen[GROUPED_ROWS] = {false};
            for (const MultisetEntry *entry; (entry = multiset_scan_next(&scan)) != NULL;) {
                int64_t r = row_get_int64(entry->row, 0);
                ck_assert(r >= 0 && r < GROUPED_ROWS);
                seen[r] = true;
                if (_i == STATE_BACKEND_LMDB) /* exact on LMDB */
                    ck_assert_uint_eq(group_by_first(entry->row, NULL), group);
            }
            multiset_scan_end(&scan);
            for (int r = g; r < GROUPED_ROWS; r += 5)
                ck_assert_msg(seen[r], "row %d of group %d missing", r, g);
        }
        /* a grouped scan of an ungrouped part is a full scan */
        MultisetScan scan;
        multiset_scan_begin_group(state, handle, 12345, &scan);
        uint32_t count = 0;
        while (multiset_scan_next(&scan))
            count++;
        multiset_scan_end(&scan);
        ck_assert_uint_eq(count, 3);
        /* emptying part 0 keeps the key (other parts have entries) */
        for (int r = 0; r < 3; r++) {
            const Row *row = pair_row(&row_builder, r, "zero");
            const MultisetEntry *entry = multiset_key_find_row(state, handle, row, hash_of(row));
            ck_assert_ptr_nonnull(entry);
            ck_assert_int_eq(multiset_key_remove_entry(state, handle, entry), JOINERY_OK);
        }
        ck_assert_int_eq(multiset_state_release_key(state, handle), JOINERY_OK);
        ck_assert_ptr_eq(multiset_state_find(state, key, hash_of(key), 0), handle);
    }
    commit(store);
    ck_assert_uint_eq(multiset_state_part_counters(state, 0).keys, 0);
    ck_assert_uint_eq(multiset_state_part_counters(state, 0).entries, 0);
    ck_assert_uint_eq(multiset_state_counters(state).keys, KEYS);
    /* emptying the other parts and releasing removes the keys */
    for (int k = 0; k < KEYS; k++) {
        const Row *key = int_row(&key_builder, k);
        MultisetKey *handle = multiset_state_find(state, key, hash_of(key), 0);
        ck_assert_ptr_nonnull(handle);
        for (uint32_t p = 1; p < 3; p++) {
            MultisetKey *part = multiset_key_part(state, handle, p);
            for (;;) {
                MultisetScan scan;
                multiset_scan_begin(state, part, &scan);
                const MultisetEntry *entry = multiset_scan_next(&scan);
                if (!entry) {
                    multiset_scan_end(&scan);
                    break;
                }
                /* the view dies at the scan's end on a copying backend: find the row again */
                uint64_t *copy = malloc(row_size(entry->row));
                memcpy(copy, entry->row, row_size(entry->row));
                multiset_scan_end(&scan);
                const Row *row = (const Row *)copy;
                const MultisetEntry *found = multiset_key_find_row(state, part, row, hash_of(row));
                ck_assert_ptr_nonnull(found);
                ck_assert_int_eq(multiset_key_remove_entry(state, part, found), JOINERY_OK);
                free(copy);
            }
            ck_assert_uint_eq(part->entry_count, 0);
        }
        ck_assert_int_eq(multiset_state_release_key(state, handle), JOINERY_OK);
        ck_assert_ptr_null(multiset_state_find(state, key, hash_of(key), 0));
    }
    StateCounters counters = multiset_state_counters(state);
    ck_assert_uint_eq(counters.keys, 0);
    ck_assert_uint_eq(counters.entries, 0);
    for (uint32_t p = 0; p < 3; p++)
        ck_assert_uint_eq(multiset_state_part_counters(state, p).keys, 0);
    commit(store);
    multiset_state_destroy(state);
    state_store_close(store);
    row_builder_free(&key_builder);
    row_builder_free(&row_builder);
}
END_TEST

/* ---- multiset: TTL ---------------------------------------------------------------- */

START_TEST(test_multiset_ttl)
{
    StateStore *store = open_store(_i);
    int64_t ttls[2] = {100, 0};
    MultisetState *state = multiset_state_create_parts(store, 2, ttls);
    RowBuilder key_builder, row_builder;
    row_builder_init(&key_builder);
    row_builder_init(&row_builder);
    enum { KEYS = 100 };
    for (int k = 0; k < KEYS; k++) {
        const Row *key = int_row(&key_builder, k);
        MultisetKey *handle = multiset_state_insert_key(state, key, hash_of(key), 0);
        ck_assert_ptr_nonnull(add_one(state, handle, int_row(&row_builder, 1), 0, 0));
        ck_assert_ptr_nonnull(add_one(state, handle, int_row(&row_builder, 2), 0, 60));
        if (k % 10 == 0) /* part 1 never expires */
            ck_assert_ptr_nonnull(add_one(state, multiset_key_part(state, handle, 1),
                                          int_row(&row_builder, 3), 0, 0));
    }
    commit(store);
    /* at 99 nothing has expired; at 100 the rows written at 0 have */
    const Row *key = int_row(&key_builder, 1);
    MultisetKey *handle = multiset_state_find(state, key, hash_of(key), 99);
    ck_assert_uint_eq(handle->entry_count, 2);
    commit(store);
    handle = multiset_state_find(state, key, hash_of(key), 100);
    ck_assert_ptr_nonnull(handle);
    ck_assert_uint_eq(handle->entry_count, 1);
    const Row *row = int_row(&row_builder, 1);
    ck_assert_ptr_null(multiset_key_find_row(state, handle, row, hash_of(row)));
    ck_assert_uint_eq(multiset_state_counters(state).expired, 1);
    ck_assert_uint_eq(multiset_state_part_counters(state, 0).expired, 1);
    /* a write refreshes: key 2's row 2 written again at 100 */
    key = int_row(&key_builder, 2);
    handle = multiset_state_find(state, key, hash_of(key), 100);
    ck_assert_ptr_nonnull(add_one(state, handle, int_row(&row_builder, 2), 0, 100));
    commit(store);
    /* at 170 every row of part 0 written before 70 has expired: keys without part 1 go */
    key = int_row(&key_builder, 1);
    ck_assert_ptr_null(multiset_state_find(state, key, hash_of(key), 170));
    ck_assert(!state_store_failed(store));
    key = int_row(&key_builder, 10); /* keeps its part 1 row */
    handle = multiset_state_find(state, key, hash_of(key), 170);
    ck_assert_ptr_nonnull(handle);
    ck_assert_uint_eq(handle->entry_count, 0);
    ck_assert_uint_eq(multiset_key_part(state, handle, 1)->entry_count, 1);
    key = int_row(&key_builder, 2);
    handle = multiset_state_find(state, key, hash_of(key), 170);
    ck_assert_ptr_nonnull(handle);
    ck_assert_uint_eq(handle->entry_count, 1);
    uint64_t expired_before = multiset_state_counters(state).expired;
    ck_assert_uint_eq(expired_before, 1 + 1 + 1 + 2);
    commit(store);
    /* incremental cleanup: a few keys per call, everything eventually */
    uint64_t dropped = 0;
    int calls = 0;
    for (; calls < 1000; calls++) {
        uint64_t now_dropped = multiset_state_cleanup(state, 170, 7);
        ck_assert_uint_le(now_dropped, 14);
        dropped += now_dropped;
        if (calls % 3 == 0)
            commit(store);
        if (multiset_state_counters(state).expired == KEYS * 2 - 1)
            break;
    }
    commit(store);
    ck_assert_uint_gt(calls, 5);
    StateCounters counters = multiset_state_counters(state);
    ck_assert_uint_eq(counters.expired, KEYS * 2 - 1); /* key 2's refreshed row stays */
    ck_assert_uint_eq(dropped, counters.expired - expired_before);
    ck_assert_uint_eq(counters.keys, KEYS / 10 + 1);
    ck_assert_uint_eq(counters.entries, KEYS / 10 + 1);
    ck_assert_uint_eq(multiset_state_part_counters(state, 1).entries, KEYS / 10);
    ck_assert_uint_eq(multiset_state_part_counters(state, 0).entries, 1);
    /* nothing more to do */
    ck_assert_uint_eq(multiset_state_cleanup(state, 170, 1000), 0);
    /* no TTL: cleanup is a no-op */
    MultisetState *forever = multiset_state_create(store, 0);
    key = int_row(&key_builder, 5);
    handle = multiset_state_insert_key(forever, key, hash_of(key), 0);
    ck_assert_ptr_nonnull(add_one(forever, handle, int_row(&row_builder, 5), 0, 0));
    ck_assert_uint_eq(multiset_state_cleanup(forever, INT64_MAX / 2, 100), 0);
    ck_assert_ptr_nonnull(multiset_state_find(forever, key, hash_of(key), INT64_MAX / 2));
    commit(store);
    multiset_state_destroy(forever);
    multiset_state_destroy(state);
    state_store_close(store);
    row_builder_free(&key_builder);
    row_builder_free(&row_builder);
}
END_TEST

/* ---- collisions ------------------------------------------------------------------- */

START_TEST(test_collisions)
{
    StateStore *store = open_store(_i);
    if (_i == STATE_BACKEND_LMDB)
        state_lmdb_set_key_hash_mask(store, 0x3); /* 4 hashes for every key and row */
    MultisetState *state = multiset_state_create(store, 0);
    ValueState *values = value_state_create(store, 0);
    SortedState *sorted = sorted_state_create(store);
    TimerQueue *timers = timer_queue_create(store);
    RowBuilder key_builder, row_builder;
    row_builder_init(&key_builder);
    row_builder_init(&row_builder);
    enum { KEYS = 300, ROWS = 40 };
    /* keys of one unit (the multiset's records are written at commit) */
    for (int k = 0; k < KEYS; k++) {
        const Row *key = int_row(&key_builder, k);
        MultisetKey *handle = multiset_state_insert_key(state, key, hash_of(key), 0);
        ck_assert_ptr_nonnull(handle);
        ck_assert_ptr_nonnull(add_one(state, handle, int_row(&row_builder, k), 0, 0));
        const ValueEntry *entry = value_state_insert(values, key, hash_of(key), 0);
        ck_assert_ptr_nonnull(entry);
        ck_assert_int_eq(value_state_set(values, entry, int_row(&row_builder, k * 2), 0),
                         JOINERY_OK);
        ck_assert_int_eq(
            sorted_state_add(sorted, key, hash_of(key), k % 7, int_row(&row_builder, k), k),
            JOINERY_OK);
        bool added = false;
        ck_assert_int_eq(timer_queue_add(timers, 50, key, &added), JOINERY_OK);
        ck_assert(added);
    }
    for (int k = 0; k < KEYS; k++) {
        const Row *key = int_row(&key_builder, k);
        MultisetKey *handle = multiset_state_find(state, key, hash_of(key), 0);
        ck_assert_ptr_nonnull(handle);
        ck_assert_uint_eq(handle->entry_count, 1);
        const Row *row = int_row(&row_builder, k);
        ck_assert_ptr_nonnull(multiset_key_find_row(state, handle, row, hash_of(row)));
        bool added = true;
        ck_assert_int_eq(timer_queue_add(timers, 50, key, &added), JOINERY_OK);
        ck_assert(!added);
    }
    commit(store);
    /* many rows of one key sharing 4 row hashes */
    const Row *big_key = int_row(&key_builder, 1000000);
    MultisetKey *big = multiset_state_insert_key(state, big_key, hash_of(big_key), 0);
    for (int r = 0; r < ROWS; r++)
        ck_assert_ptr_nonnull(add_one(state, big, int_row(&row_builder, r), r, 0));
    commit(store);
    big = multiset_state_find(state, big_key, hash_of(big_key), 0);
    for (int r = 0; r < ROWS; r += 3) {
        const Row *row = int_row(&row_builder, r);
        const MultisetEntry *entry = multiset_key_find_row(state, big, row, hash_of(row));
        ck_assert_ptr_nonnull(entry);
        ck_assert_int_eq(entry->association_count, r);
        ck_assert_int_eq(multiset_key_remove_entry(state, big, entry), JOINERY_OK);
    }
    for (int r = 0; r < ROWS; r++) {
        const Row *row = int_row(&row_builder, r);
        const MultisetEntry *entry = multiset_key_find_row(state, big, row, hash_of(row));
        if (r % 3 == 0) {
            ck_assert_ptr_null(entry);
            ck_assert_ptr_nonnull(multiset_key_add_row(state, big, row, hash_of(row), 2, -r, 0));
        } else {
            ck_assert_ptr_nonnull(entry);
            ck_assert_int_eq(
                multiset_entry_update(state, big, entry, 5, entry->association_count, 0),
                JOINERY_OK);
        }
    }
    commit(store);
    big = multiset_state_find(state, big_key, hash_of(big_key), 0);
    for (int r = 0; r < ROWS; r++) {
        const Row *row = int_row(&row_builder, r);
        const MultisetEntry *entry = multiset_key_find_row(state, big, row, hash_of(row));
        ck_assert_ptr_nonnull(entry);
        ck_assert_int_eq(entry->count, r % 3 == 0 ? 2 : 5);
        ck_assert_int_eq(entry->association_count, r % 3 == 0 ? -r : r);
    }
    ck_assert_int_eq(multiset_state_remove_key(state, big), JOINERY_OK);
    /* remove every third key of each shape, then the others are intact */
    for (int k = 0; k < KEYS; k += 3) {
        const Row *key = int_row(&key_builder, k);
        MultisetKey *handle = multiset_state_find(state, key, hash_of(key), 0);
        ck_assert_ptr_nonnull(handle);
        ck_assert_int_eq(multiset_state_remove_key(state, handle), JOINERY_OK);
        const ValueEntry *entry = value_state_find(values, key, hash_of(key), 0);
        ck_assert_ptr_nonnull(entry);
        ck_assert_int_eq(value_state_remove(values, entry), JOINERY_OK);
        uint64_t removed = 0;
        ck_assert_int_eq(
            sorted_state_remove_range(sorted, key, hash_of(key), INT64_MIN, INT64_MAX, &removed),
            JOINERY_OK);
        ck_assert_uint_eq(removed, 1);
        bool was = false;
        ck_assert_int_eq(timer_queue_remove(timers, 50, key, &was), JOINERY_OK);
        ck_assert(was);
    }
    commit(store);
    for (int k = 0; k < KEYS; k++) {
        const Row *key = int_row(&key_builder, k);
        MultisetKey *handle = multiset_state_find(state, key, hash_of(key), 0);
        const ValueEntry *entry = value_state_find(values, key, hash_of(key), 0);
        SortedScan scan;
        sorted_scan_begin(sorted, key, hash_of(key), INT64_MIN, INT64_MAX, &scan);
        const SortedEntry *sorted_entry = sorted_scan_next(&scan);
        if (k % 3 == 0) {
            ck_assert_ptr_null(handle);
            ck_assert_ptr_null(entry);
            ck_assert_ptr_null(sorted_entry);
        } else {
            ck_assert_ptr_nonnull(handle);
            const Row *row = int_row(&row_builder, k);
            ck_assert_ptr_nonnull(multiset_key_find_row(state, handle, row, hash_of(row)));
            ck_assert_ptr_nonnull(entry);
            ck_assert_int_eq(row_get_int64(entry->value, 0), k * 2);
            ck_assert_ptr_nonnull(sorted_entry);
            ck_assert_int_eq(sorted_entry->tag, k);
            ck_assert_ptr_null(sorted_scan_next(&scan));
        }
        sorted_scan_end(&scan);
    }
    /* re-insert the removed keys: they take free sequences again */
    for (int k = 0; k < KEYS; k += 3) {
        const Row *key = int_row(&key_builder, k);
        MultisetKey *handle = multiset_state_insert_key(state, key, hash_of(key), 0);
        ck_assert_ptr_nonnull(add_one(state, handle, int_row(&row_builder, -k), 0, 0));
        ck_assert_int_eq(timer_queue_add(timers, 50, key, NULL), JOINERY_OK);
    }
    commit(store);
    ck_assert_uint_eq(multiset_state_counters(state).keys, KEYS);
    ck_assert_uint_eq(multiset_state_counters(state).entries, KEYS);
    ck_assert_uint_eq(value_state_counters(values).keys, KEYS - KEYS / 3);
    ck_assert_uint_eq(sorted_state_counters(sorted).keys, KEYS - KEYS / 3);
    ck_assert_uint_eq(timer_queue_count(timers), KEYS);
    Lines lines = {0};
    dump_multiset(state, &lines);
    ck_assert_uint_eq(lines.count, KEYS);
    lines_free(&lines);
    /* the timers come out, each once */
    bool *popped = calloc(KEYS, sizeof *popped);
    for (int i = 0; i < KEYS; i++) {
        int64_t time;
        const Row *key;
        ck_assert_int_eq(timer_queue_peek(timers, &time, &key), 1);
        ck_assert_int_eq(time, 50);
        int64_t k = row_get_int64(key, 0);
        ck_assert(k >= 0 && k < KEYS && !popped[k]);
        popped[k] = true;
        ck_assert_int_eq(timer_queue_pop(timers), JOINERY_OK);
    }
    free(popped);
    int64_t time;
    const Row *key;
    ck_assert_int_eq(timer_queue_peek(timers, &time, &key), 0);
    commit(store);
    close_shapes(store, state, values, sorted, timers);
    row_builder_free(&key_builder);
    row_builder_free(&row_builder);
}
END_TEST

/* ---- long keys and rows ----------------------------------------------------------- */

START_TEST(test_long_rows)
{
    StateStore *store = open_store(_i);
    MultisetState *state = multiset_state_create(store, 0);
    ValueState *values = value_state_create(store, 0);
    SortedState *sorted = sorted_state_create(store);
    TimerQueue *timers = timer_queue_create(store);
    RowBuilder key_builder, row_builder, other_builder;
    row_builder_init(&key_builder);
    row_builder_init(&row_builder);
    row_builder_init(&other_builder);
    static const size_t KEY_LENGTHS[] = {600, 3000};
    static const size_t ROW_LENGTHS[] = {10, 5000, 100000};
    for (size_t k = 0; k < 2; k++) {
        const Row *key = long_row(&key_builder, (int64_t)k, KEY_LENGTHS[k]);
        ck_assert_uint_gt(row_size(key), 511);
        MultisetKey *handle = multiset_state_insert_key(state, key, hash_of(key), 0);
        ck_assert_ptr_nonnull(handle);
        for (size_t r = 0; r < 3; r++) {
            const Row *row = long_row(&row_builder, (int64_t)(k * 10 + r), ROW_LENGTHS[r]);
            ck_assert_ptr_nonnull(add_one(state, handle, row, (int64_t)r, 1));
            ck_assert_int_eq(
                sorted_state_add(sorted, key, hash_of(key), (int64_t)(10 - r), row, (int64_t)r),
                JOINERY_OK);
        }
        const ValueEntry *entry = value_state_insert(values, key, hash_of(key), 0);
        ck_assert_ptr_nonnull(entry);
        const Row *value = long_row(&row_builder, 7, 20000);
        ck_assert_int_eq(value_state_set(values, entry, value, 0), JOINERY_OK);
        ck_assert(rows_equal(entry->value, value));
        ck_assert_int_eq(timer_queue_add(timers, 3, key, NULL), JOINERY_OK);
    }
    commit(store);
    for (size_t k = 0; k < 2; k++) {
        const Row *key = long_row(&key_builder, (int64_t)k, KEY_LENGTHS[k]);
        MultisetKey *handle = multiset_state_find(state, key, hash_of(key), 0);
        ck_assert_ptr_nonnull(handle);
        ck_assert_uint_eq(handle->entry_count, 3);
        for (size_t r = 0; r < 3; r++) {
            const Row *row = long_row(&row_builder, (int64_t)(k * 10 + r), ROW_LENGTHS[r]);
            const MultisetEntry *entry = multiset_key_find_row(state, handle, row, hash_of(row));
            ck_assert_ptr_nonnull(entry);
            ck_assert(rows_equal(entry->row, row));
            ck_assert_int_eq(entry->association_count, (int64_t)r);
            ck_assert_int_eq(multiset_entry_update(state, handle, entry, 9, 99, 2), JOINERY_OK);
        }
        /* a scan copies them out whole */
        MultisetScan scan;
        multiset_scan_begin(state, handle, &scan);
        uint32_t seen = 0;
        for (const MultisetEntry *entry; (entry = multiset_scan_next(&scan)) != NULL; seen++) {
            int64_t r = row_get_int64(entry->row, 0) - (int64_t)k * 10;
            ck_assert(r >= 0 && r < 3);
            ck_assert(rows_equal(entry->row,
                                 long_row(&other_builder, (int64_t)k * 10 + r, ROW_LENGTHS[r])));
            ck_assert_int_eq(entry->count, 9);
            ck_assert_int_eq(entry->association_count, 99);
        }
        multiset_scan_end(&scan);
        ck_assert_uint_eq(seen, 3);
        /* value: replace the long value by a shorter one and a longer one */
        const ValueEntry *entry = value_state_find(values, key, hash_of(key), 0);
        ck_assert_ptr_nonnull(entry);
        ck_assert(rows_equal(entry->value, long_row(&row_builder, 7, 20000)));
        ck_assert_int_eq(value_state_set(values, entry, int_row(&row_builder, 1), 0), JOINERY_OK);
        ck_assert_int_eq(value_state_set(values, entry, long_row(&row_builder, 8, 50000), 0),
                         JOINERY_OK);
        /* sorted: in time order */
        SortedScan sorted_scan;
        sorted_scan_begin(sorted, key, hash_of(key), INT64_MIN, INT64_MAX, &sorted_scan);
        for (size_t r = 3; r-- > 0;) {
            const SortedEntry *sorted_entry = sorted_scan_next(&sorted_scan);
            ck_assert_ptr_nonnull(sorted_entry);
            ck_assert_int_eq(sorted_entry->time, (int64_t)(10 - r));
            ck_assert(rows_equal(sorted_entry->row,
                                 long_row(&row_builder, (int64_t)(k * 10 + r), ROW_LENGTHS[r])));
        }
        ck_assert_ptr_null(sorted_scan_next(&sorted_scan));
        sorted_scan_end(&sorted_scan);
    }
    commit(store);
    for (size_t k = 0; k < 2; k++) {
        const Row *key = long_row(&key_builder, (int64_t)k, KEY_LENGTHS[k]);
        const ValueEntry *entry = value_state_find(values, key, hash_of(key), 0);
        ck_assert(rows_equal(entry->value, long_row(&row_builder, 8, 50000)));
        bool removed = false;
        ck_assert_int_eq(timer_queue_remove(timers, 3, key, &removed), JOINERY_OK);
        ck_assert(removed);
        MultisetKey *handle = multiset_state_find(state, key, hash_of(key), 0);
        ck_assert_int_eq(multiset_state_remove_key(state, handle), JOINERY_OK);
    }
    commit(store);
    ck_assert_uint_eq(multiset_state_counters(state).keys, 0);
    ck_assert_uint_eq(timer_queue_count(timers), 0);
    close_shapes(store, state, values, sorted, timers);
    row_builder_free(&key_builder);
    row_builder_free(&row_builder);
    row_builder_free(&other_builder);
}
END_TEST

/* ---- value state ------------------------------------------------------------------ */

START_TEST(test_value_state)
{
    StateStore *store = open_store(_i);
    ValueState *state = value_state_create(store, 0);
    RowBuilder key_builder, value_builder;
    row_builder_init(&key_builder);
    row_builder_init(&value_builder);
    const Row *key = int_row(&key_builder, 1);
    ck_assert_ptr_null(value_state_find(state, key, hash_of(key), 0));
    ck_assert(!state_store_failed(store));
    const ValueEntry *entry = value_state_insert(state, key, hash_of(key), 0);
    ck_assert_ptr_nonnull(entry);
    ck_assert_ptr_null(entry->value);
    commit(store);
    entry = value_state_find(state, key, hash_of(key), 0);
    ck_assert_ptr_nonnull(entry);
    ck_assert_ptr_null(entry->value);
    ck_assert_int_eq(value_state_set(state, entry, pair_row(&value_builder, 5, "five"), 0),
                     JOINERY_OK);
    ck_assert_int_eq(row_kind(entry->value), ROW_KIND_INSERT);
    ck_assert_int_eq(row_get_int64(entry->value, 0), 5);
    /* replace: larger, smaller, itself */
    ck_assert_int_eq(
        value_state_set(state, entry, pair_row(&value_builder, 6, "a much longer text value"), 0),
        JOINERY_OK);
    ck_assert_int_eq(value_state_set(state, entry, int_row(&value_builder, 7), 0), JOINERY_OK);
    ck_assert_int_eq(value_state_set(state, entry, entry->value, 3), JOINERY_OK);
    ck_assert_int_eq(row_get_int64(entry->value, 0), 7);
    commit(store);
    entry = value_state_find(state, key, hash_of(key), 0);
    ck_assert_int_eq(row_field_count(entry->value), 1);
    ck_assert_int_eq(row_get_int64(entry->value, 0), 7);
    StateCounters counters = value_state_counters(state);
    ck_assert_uint_eq(counters.keys, 1);
    ck_assert_uint_eq(counters.entries, 1);
    ck_assert_int_eq(value_state_remove(state, entry), JOINERY_OK);
    ck_assert_ptr_null(value_state_find(state, key, hash_of(key), 0));
    ck_assert_uint_eq(value_state_counters(state).keys, 0);
    commit(store);
    value_state_destroy(state);

    /* TTL: lazy on find, incremental cleanup */
    state = value_state_create(store, 100);
    enum { KEYS = 500 };
    for (int k = 0; k < KEYS; k++) {
        key = int_row(&key_builder, k);
        entry = value_state_insert(state, key, hash_of(key), k % 2 ? 50 : 0);
        ck_assert_int_eq(value_state_set(state, entry, int_row(&value_builder, k), k % 2 ? 50 : 0),
                         JOINERY_OK);
    }
    commit(store);
    key = int_row(&key_builder, 0);
    ck_assert_ptr_nonnull(value_state_find(state, key, hash_of(key), 99));
    ck_assert_ptr_null(value_state_find(state, key, hash_of(key), 100));
    ck_assert_uint_eq(value_state_counters(state).expired, 1);
    key = int_row(&key_builder, 1);
    ck_assert_ptr_nonnull(value_state_find(state, key, hash_of(key), 100));
    commit(store);
    uint64_t dropped = 0;
    int calls = 0;
    while (value_state_counters(state).expired < KEYS / 2 && calls++ < 1000) {
        uint64_t now_dropped = value_state_cleanup(state, 120, 16);
        ck_assert_uint_le(now_dropped, 16);
        dropped += now_dropped;
        commit(store);
    }
    ck_assert_uint_gt(calls, 10);
    ck_assert_uint_eq(dropped, KEYS / 2 - 1);
    counters = value_state_counters(state);
    ck_assert_uint_eq(counters.keys, KEYS / 2);
    ck_assert_uint_eq(counters.expired, KEYS / 2);
    for (int k = 0; k < KEYS; k++) {
        key = int_row(&key_builder, k);
        entry = value_state_find(state, key, hash_of(key), 120);
        if (k % 2) {
            ck_assert_ptr_nonnull(entry);
            ck_assert_int_eq(row_get_int64(entry->value, 0), k);
        } else {
            ck_assert_ptr_null(entry);
        }
    }
    ck_assert_uint_eq(value_state_cleanup(state, 150, 1u << 20), KEYS / 2);
    ck_assert_uint_eq(value_state_counters(state).keys, 0);
    commit(store);
    value_state_destroy(state);
    state_store_close(store);
    row_builder_free(&key_builder);
    row_builder_free(&value_builder);
}
END_TEST

/* ---- sorted state ----------------------------------------------------------------- */

START_TEST(test_sorted_state)
{
    StateStore *store = open_store(_i);
    SortedState *state = sorted_state_create(store);
    RowBuilder key_builder, row_builder;
    row_builder_init(&key_builder);
    row_builder_init(&row_builder);
    const Row *key = int_row(&key_builder, 9);
    uint64_t hash = hash_of(key);
    static const int64_t TIMES[] = {5, 3, 9, 3, -1, 7, 3, -40};
    enum { ADDS = sizeof TIMES / sizeof TIMES[0] };
    for (int i = 0; i < ADDS; i++)
        ck_assert_int_eq(sorted_state_add(state, key, hash, TIMES[i], int_row(&row_builder, i), i),
                         JOINERY_OK);
    commit(store);
    /* time order; equal times in arrival order */
    static const int EXPECTED[] = {7, 4, 1, 3, 6, 0, 5, 2};
    SortedScan scan;
    sorted_scan_begin(state, key, hash, INT64_MIN, INT64_MAX, &scan);
    for (int i = 0; i < ADDS; i++) {
        const SortedEntry *entry = sorted_scan_next(&scan);
        ck_assert_ptr_nonnull(entry);
        ck_assert_int_eq(row_get_int64(entry->row, 0), EXPECTED[i]);
        ck_assert_int_eq(entry->time, TIMES[EXPECTED[i]]);
        ck_assert_int_eq(entry->tag, EXPECTED[i]);
        ck_assert_int_eq(row_kind(entry->row), ROW_KIND_INSERT);
        ck_assert_int_eq(sorted_scan_set_tag(&scan, entry, entry->tag * 10), JOINERY_OK);
        ck_assert_int_eq(entry->tag, EXPECTED[i] * 10);
    }
    ck_assert_ptr_null(sorted_scan_next(&scan));
    sorted_scan_end(&scan);
    /* a range */
    sorted_scan_begin(state, key, hash, 3, 7, &scan);
    int count = 0;
    for (const SortedEntry *entry; (entry = sorted_scan_next(&scan)) != NULL; count++) {
        ck_assert(entry->time >= 3 && entry->time <= 7);
        ck_assert_int_eq(entry->tag, row_get_int64(entry->row, 0) * 10);
    }
    sorted_scan_end(&scan);
    ck_assert_int_eq(count, 5);
    sorted_scan_begin(state, key, hash, 8, 4, &scan); /* empty range */
    ck_assert_ptr_null(sorted_scan_next(&scan));
    sorted_scan_end(&scan);
    const Row *other = int_row(&key_builder, 10);
    sorted_scan_begin(state, other, hash_of(other), INT64_MIN, INT64_MAX, &scan); /* no key */
    ck_assert_ptr_null(sorted_scan_next(&scan));
    sorted_scan_end(&scan);
    key = int_row(&key_builder, 9);
    /* remove below a bound */
    uint64_t removed = 0;
    ck_assert_int_eq(sorted_state_remove_range(state, key, hash, INT64_MIN, 3, &removed),
                     JOINERY_OK);
    ck_assert_uint_eq(removed, 5);
    StateCounters counters = sorted_state_counters(state);
    ck_assert_uint_eq(counters.keys, 1);
    ck_assert_uint_eq(counters.entries, 3);
    /* many entries (beyond a scan chunk), out of order */
    enum { MANY = 1000 };
    for (int i = 0; i < MANY; i++)
        ck_assert_int_eq(sorted_state_add(state, key, hash, (i * 7919) % 500 + 100,
                                          int_row(&row_builder, 100 + i), 0),
                         JOINERY_OK);
    commit(store);
    Lines lines = {0};
    dump_sorted(state, &lines, false); /* checks order and counts */
    ck_assert_uint_eq(lines.count, MANY + 3);
    lines_free(&lines);
    sorted_scan_begin(state, key, hash, 200, 299, &scan);
    count = 0;
    for (const SortedEntry *entry; (entry = sorted_scan_next(&scan)) != NULL; count++)
        ck_assert(entry->time >= 200 && entry->time <= 299);
    sorted_scan_end(&scan);
    ck_assert_int_eq(count, 200);
    ck_assert_int_eq(sorted_state_remove_range(state, key, hash, 150, 449, &removed), JOINERY_OK);
    ck_assert_uint_eq(removed, 600);
    ck_assert_int_eq(sorted_state_remove_range(state, key, hash, 9, 8, &removed), JOINERY_OK);
    ck_assert_uint_eq(removed, 0);
    ck_assert_uint_eq(sorted_state_counters(state).entries, MANY + 3 - 600);
    /* removing the rest removes the key */
    ck_assert_int_eq(sorted_state_remove_range(state, key, hash, INT64_MIN, INT64_MAX, &removed),
                     JOINERY_OK);
    ck_assert_uint_eq(removed, MANY + 3 - 600);
    counters = sorted_state_counters(state);
    ck_assert_uint_eq(counters.keys, 0);
    ck_assert_uint_eq(counters.entries, 0);
    /* several keys */
    for (int k = 0; k < 50; k++) {
        key = int_row(&key_builder, k);
        for (int i = 0; i <= k % 4; i++)
            ck_assert_int_eq(
                sorted_state_add(state, key, hash_of(key), i, int_row(&row_builder, i), 0),
                JOINERY_OK);
    }
    commit(store);
    dump_sorted(state, &lines, false);
    ck_assert_uint_eq(lines.count, sorted_state_counters(state).entries);
    ck_assert_uint_eq(sorted_state_counters(state).keys, 50);
    lines_free(&lines);
    sorted_state_destroy(state);
    state_store_close(store);
    row_builder_free(&key_builder);
    row_builder_free(&row_builder);
}
END_TEST

/* ---- timer queue ------------------------------------------------------------------ */

START_TEST(test_timer_queue)
{
    StateStore *store = open_store(_i);
    TimerQueue *queue = timer_queue_create(store);
    RowBuilder builder;
    row_builder_init(&builder);
    bool added = false;
    ck_assert_int_eq(timer_queue_add(queue, 5, int_row(&builder, 1), &added), JOINERY_OK);
    ck_assert(added);
    ck_assert_int_eq(timer_queue_add(queue, 5, int_row(&builder, 1), &added), JOINERY_OK);
    ck_assert(!added);
    ck_assert_int_eq(timer_queue_add(queue, 5, int_row(&builder, 2), &added), JOINERY_OK);
    ck_assert(added);
    ck_assert_int_eq(timer_queue_add(queue, 3, int_row(&builder, 1), &added), JOINERY_OK);
    ck_assert(added);
    ck_assert_int_eq(timer_queue_add(queue, -2, int_row(&builder, 3), NULL), JOINERY_OK);
    ck_assert_uint_eq(timer_queue_count(queue), 4);
    int64_t time;
    const Row *key;
    ck_assert_int_eq(timer_queue_peek(queue, &time, &key), 1);
    ck_assert_int_eq(time, -2);
    ck_assert_int_eq(row_get_int64(key, 0), 3);
    bool removed = false;
    ck_assert_int_eq(timer_queue_remove(queue, 5, int_row(&builder, 1), &removed), JOINERY_OK);
    ck_assert(removed);
    ck_assert_int_eq(timer_queue_remove(queue, 5, int_row(&builder, 1), &removed), JOINERY_OK);
    ck_assert(!removed);
    commit(store);
    static const int64_t ORDER[][2] = {{-2, 3}, {3, 1}, {5, 2}};
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(timer_queue_peek(queue, &time, &key), 1);
        ck_assert_int_eq(time, ORDER[i][0]);
        ck_assert_int_eq(row_get_int64(key, 0), ORDER[i][1]);
        ck_assert_int_eq(timer_queue_pop(queue), JOINERY_OK);
    }
    ck_assert_int_eq(timer_queue_peek(queue, &time, &key), 0);
    ck_assert_uint_eq(timer_queue_count(queue), 0);
    /* many timers against a reference */
    enum { TIMES = 300, KEYS = 40, ADDS = 12000 };
    bool *present = calloc((size_t)TIMES * KEYS, sizeof *present);
    uint64_t expected = 0;
    uint64_t seed = 12345;
    double start = seconds_now();
    for (int i = 0; i < ADDS; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        int t = (int)((seed >> 33) % TIMES);
        int k = (int)((seed >> 20) % KEYS);
        ck_assert_int_eq(timer_queue_add(queue, t - 100, int_row(&builder, k), &added), JOINERY_OK);
        ck_assert(added == !present[t * KEYS + k]);
        if (added) {
            present[t * KEYS + k] = true;
            expected++;
        }
        if (i % 7 == 0) { /* remove another */
            int rt = (int)((seed >> 10) % TIMES), rk = (int)((seed >> 45) % KEYS);
            ck_assert_int_eq(timer_queue_remove(queue, rt - 100, int_row(&builder, rk), &removed),
                             JOINERY_OK);
            ck_assert(removed == present[rt * KEYS + rk]);
            if (removed) {
                present[rt * KEYS + rk] = false;
                expected--;
            }
        }
        if (i % 1000 == 0)
            commit(store);
    }
    ck_assert_uint_eq(timer_queue_count(queue), expected);
    Lines lines = {0};
    dump_timers(queue, &lines);
    lines_free(&lines);
    int64_t previous = INT64_MIN;
    for (uint64_t i = 0; i < expected; i++) {
        ck_assert_int_eq(timer_queue_peek(queue, &time, &key), 1);
        ck_assert_int_ge(time, previous);
        int k = (int)row_get_int64(key, 0);
        ck_assert(present[(time + 100) * KEYS + k]);
        present[(time + 100) * KEYS + k] = false;
        previous = time;
        ck_assert_int_eq(timer_queue_pop(queue), JOINERY_OK);
    }
    double done = seconds_now();
    fprintf(stderr, "[%s] timers: %d adds, %llu pops: %.3f s\n", backend_label(_i), ADDS,
            (unsigned long long)expected, done - start);
    ck_assert_int_eq(timer_queue_peek(queue, &time, &key), 0);
    commit(store);
    free(present);
    timer_queue_destroy(queue);
    state_store_close(store);
    row_builder_free(&builder);
}
END_TEST

/*
 * Timers of few timestamps and many keys on the hashmap, on LMDB, and on LMDB
 * with every key hash masked to 0 (all keys of a timestamp share one prefix:
 * the collision path orders them): every peek agrees, and they all fire in
 * state.h's order (timestamp, row_content_hash(key), key bytes), checked
 * against a sort with timer_key_order. With the mask 0x3 the order is by the
 * masked hash first (state_lmdb_timers.c), the same timers otherwise.
 */
typedef struct TimerTie {
    int64_t time;
    uint64_t hash;
    Row *key;
} TimerTie;

static int timer_tie_order(const void *a, const void *b)
{
    const TimerTie *x = a, *y = b;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return timer_key_order(x->key, x->hash, y->key, y->hash);
}

START_TEST(test_timer_ties)
{
    enum { QUEUES = 4, TIMES = 4, KEYS = 150, STEPS = 1500 };
    static const uint64_t masks[QUEUES] = {0, UINT64_MAX, 0, 0x3};
    StateStore *stores[QUEUES];
    TimerQueue *queues[QUEUES];
    for (int q = 0; q < QUEUES; q++) {
        stores[q] = open_store(q == 0 ? STATE_BACKEND_HASHMAP : STATE_BACKEND_LMDB);
        if (q > 0)
            state_lmdb_set_key_hash_mask(stores[q], masks[q]);
        queues[q] = timer_queue_create(stores[q]);
        ck_assert_ptr_nonnull(queues[q]);
    }
    RowBuilder builder;
    row_builder_init(&builder);
    bool *present = calloc((size_t)TIMES * KEYS, sizeof *present);
    ck_assert_ptr_nonnull(present);
    uint64_t seed = 99;
    uint64_t count = 0;
    for (int step = 0; step < STEPS; step++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        int t = (int)((seed >> 33) % TIMES), k = (int)((seed >> 17) % KEYS);
        int op = (int)((seed >> 50) % 10);
        char text[32];
        snprintf(text, sizeof text, "key-%d", k * 7919 % 1000);
        const Row *key = pair_row(&builder, k % 3, text);
        if (op < 7) {
            for (int q = 0; q < QUEUES; q++) {
                bool added = false;
                ck_assert_int_eq(timer_queue_add(queues[q], t * 10, key, &added), JOINERY_OK);
                ck_assert(added == !present[t * KEYS + k]);
            }
            count += !present[t * KEYS + k];
            present[t * KEYS + k] = true;
        } else if (op < 9) {
            for (int q = 0; q < QUEUES; q++) {
                bool removed = false;
                ck_assert_int_eq(timer_queue_remove(queues[q], t * 10, key, &removed), JOINERY_OK);
                ck_assert(removed == present[t * KEYS + k]);
            }
            count -= present[t * KEYS + k];
            present[t * KEYS + k] = false;
        } else if (count > 0) { /* the earliest timer is the same one on the first three */
            int64_t times[QUEUES];
            const Row *keys[QUEUES];
            char *texts[QUEUES];
            for (int q = 0; q < 3; q++) {
                ck_assert_int_eq(timer_queue_peek(queues[q], &times[q], &keys[q]), 1);
                texts[q] = row_hex(keys[q]);
            }
            for (int q = 1; q < 3; q++) {
                ck_assert_int_eq(times[q], times[0]);
                ck_assert_str_eq(texts[q], texts[0]);
            }
            int popped_k = -1;
            for (int i = 0; i < KEYS && popped_k < 0; i++) {
                snprintf(text, sizeof text, "key-%d", i * 7919 % 1000);
                if (rows_equal(keys[0], pair_row(&builder, i % 3, text)))
                    popped_k = i;
            }
            ck_assert_int_ge(popped_k, 0);
            present[(times[0] / 10) * KEYS + popped_k] = false;
            count--;
            for (int q = 0; q < 3; q++) {
                free(texts[q]);
                ck_assert_int_eq(timer_queue_pop(queues[q]), JOINERY_OK);
            }
            snprintf(text, sizeof text, "key-%d", popped_k * 7919 % 1000);
            bool removed = false;
            ck_assert_int_eq(timer_queue_remove(queues[3], times[0],
                                                pair_row(&builder, popped_k % 3, text), &removed),
                             JOINERY_OK);
            ck_assert(removed);
        }
        if (step % 100 == 99)
            for (int q = 0; q < QUEUES; q++)
                commit(stores[q]);
    }
    /* what is left, in the promised order */
    TimerTie *expected = calloc(count ? count : 1, sizeof *expected);
    ck_assert_ptr_nonnull(expected);
    uint64_t n = 0;
    for (int t = 0; t < TIMES; t++)
        for (int k = 0; k < KEYS; k++) {
            if (!present[t * KEYS + k])
                continue;
            char text[32];
            snprintf(text, sizeof text, "key-%d", k * 7919 % 1000);
            expected[n].time = t * 10;
            expected[n].key = row_copy_heap(pair_row(&builder, k % 3, text));
            row_set_kind(expected[n].key, ROW_KIND_INSERT);
            expected[n].hash = hash_of(expected[n].key);
            n++;
        }
    ck_assert_uint_eq(n, count);
    ck_assert_uint_gt(count, KEYS);
    qsort(expected, n, sizeof *expected, timer_tie_order);
    for (int q = 0; q < QUEUES; q++) {
        ck_assert_uint_eq(timer_queue_count(queues[q]), count);
        uint64_t previous_masked = 0;
        int64_t previous_time = INT64_MIN;
        bool *seen = calloc(count, sizeof *seen);
        ck_assert_ptr_nonnull(seen);
        for (uint64_t i = 0; i < count; i++) {
            int64_t time;
            const Row *key;
            ck_assert_int_eq(timer_queue_peek(queues[q], &time, &key), 1);
            if (q < 3) { /* exactly the promised sequence */
                ck_assert_int_eq(time, expected[i].time);
                ck_assert_msg(rows_equal(key, expected[i].key), "queue %d differs at %llu", q,
                              (unsigned long long)i);
            } else { /* by timestamp and masked hash; the same timers */
                uint64_t masked = hash_of(key) & masks[q];
                ck_assert(time > previous_time ||
                          (time == previous_time && masked >= previous_masked));
                previous_time = time;
                previous_masked = masked;
                uint64_t j = 0;
                while (j < count && (expected[j].time != time || !rows_equal(expected[j].key, key)))
                    j++;
                ck_assert(j < count && !seen[j]);
                seen[j] = true;
            }
            ck_assert_int_eq(timer_queue_pop(queues[q]), JOINERY_OK);
        }
        int64_t time;
        const Row *key;
        ck_assert_int_eq(timer_queue_peek(queues[q], &time, &key), 0);
        free(seen);
    }
    fprintf(stderr, "timer ties: %llu timers of %d timestamps fired in the same order\n",
            (unsigned long long)count, TIMES);
    for (uint64_t i = 0; i < n; i++)
        free(expected[i].key);
    free(expected);
    free(present);
    for (int q = 0; q < QUEUES; q++) {
        commit(stores[q]);
        timer_queue_destroy(queues[q]);
        state_store_close(stores[q]);
    }
    row_builder_free(&builder);
}
END_TEST

/*
 * The bytes a state reports fall as its state goes, within the unit (no
 * commit between): on LMDB they are its records' exact size, so any removal
 * lowers them and an emptied state reports 0; the hashmap keeps free-listed
 * memory for the next inserts (and may take a chunk when a vector shrinks),
 * so only its emptied multiset is back at its empty size exactly, and the
 * other shapes do not grow as they empty (a timer queue's heap keeps its
 * capacity).
 */
START_TEST(test_bytes_fall)
{
    bool lmdb = _i == STATE_BACKEND_LMDB;
    StateStore *store = open_store(_i);
    RowBuilder key_builder, row_builder;
    row_builder_init(&key_builder);
    row_builder_init(&row_builder);
    enum { KEYS = 200, ROWS = 12 };
    /* multiset: rows past the hashmap's index threshold, in two parts */
    MultisetState *multiset = multiset_state_create_parts(store, 2, NULL);
    uint64_t empty = multiset_state_counters(multiset).bytes;
    if (lmdb)
        ck_assert_uint_eq(empty, 0);
    for (int k = 0; k < KEYS; k++) {
        const Row *key = int_row(&key_builder, k);
        MultisetKey *handle = multiset_state_insert_key(multiset, key, hash_of(key), 0);
        for (int r = 0; r < ROWS; r++)
            ck_assert_ptr_nonnull(add_one(multiset, multiset_key_part(multiset, handle, r % 2),
                                          long_row(&row_builder, k * ROWS + r, 40), 0, 0));
    }
    commit(store);
    uint64_t full = multiset_state_counters(multiset).bytes;
    ck_assert_uint_gt(full, empty + (uint64_t)KEYS * ROWS * 64);
    uint64_t previous = full;
    for (int k = 0; k < KEYS; k++) {
        const Row *key = int_row(&key_builder, k);
        MultisetKey *handle = multiset_state_find(multiset, key, hash_of(key), 0);
        for (int r = 0; r < ROWS; r += 2) { /* every other row of part 0 */
            const Row *row = long_row(&row_builder, k * ROWS + r, 40);
            const MultisetEntry *entry = multiset_key_find_row(multiset, handle, row, hash_of(row));
            ck_assert_ptr_nonnull(entry);
            ck_assert_int_eq(multiset_key_remove_entry(multiset, handle, entry), JOINERY_OK);
            uint64_t now_bytes = multiset_state_counters(multiset).bytes;
            if (lmdb)
                ck_assert_uint_lt(now_bytes, previous);
            previous = now_bytes;
        }
    }
    StateCounters part0 = multiset_state_part_counters(multiset, 0);
    StateCounters part1 = multiset_state_part_counters(multiset, 1);
    ck_assert_uint_eq(part0.entries, 0);
    ck_assert_uint_le(part0.bytes + part1.bytes, previous + 2); /* shares round down */
    ck_assert_uint_ge(part0.bytes + part1.bytes + 2, previous);
    if (lmdb) /* (the hashmap's shrunk vectors may take a new slab chunk) */
        ck_assert_uint_lt(previous, full);
    for (int k = 0; k < KEYS; k++) {
        const Row *key = int_row(&key_builder, k);
        MultisetKey *handle = multiset_state_find(multiset, key, hash_of(key), 0);
        ck_assert_int_eq(multiset_state_remove_key(multiset, handle), JOINERY_OK);
    }
    ck_assert_uint_eq(multiset_state_counters(multiset).bytes, empty);
    commit(store);
    ck_assert_uint_eq(multiset_state_counters(multiset).bytes, empty);
    /* value state: every removal lowers the bytes on both */
    ValueState *values = value_state_create(store, 0);
    empty = value_state_counters(values).bytes;
    for (int k = 0; k < KEYS; k++) {
        const Row *key = int_row(&key_builder, k);
        const ValueEntry *entry = value_state_insert(values, key, hash_of(key), 0);
        ck_assert_int_eq(value_state_set(values, entry, long_row(&row_builder, k, 30), 0),
                         JOINERY_OK);
        entry = value_state_find(values, key, hash_of(key), 0);
        ck_assert_int_eq(value_state_set(values, entry, long_row(&row_builder, k, 60), 0),
                         JOINERY_OK); /* rewritten larger */
    }
    full = value_state_counters(values).bytes;
    if (lmdb)
        ck_assert_uint_eq(full,
                          KEYS * lmdb_record_bytes(LMDB_KEY_ID_SIZE,
                                                   16 + row_size(int_row(&key_builder, 0)) +
                                                       row_size(long_row(&row_builder, 0, 60))));
    previous = full;
    for (int k = 0; k < KEYS; k++) {
        const Row *key = int_row(&key_builder, k);
        const ValueEntry *entry = value_state_find(values, key, hash_of(key), 0);
        ck_assert_int_eq(value_state_remove(values, entry), JOINERY_OK);
        uint64_t now_bytes = value_state_counters(values).bytes;
        ck_assert_uint_le(now_bytes, previous);
        if (lmdb)
            ck_assert_uint_lt(now_bytes, previous);
        previous = now_bytes;
    }
    ck_assert_uint_lt(previous, full);
    if (lmdb)
        ck_assert_uint_eq(previous, empty);
    /* sorted state */
    SortedState *sorted = sorted_state_create(store);
    empty = sorted_state_counters(sorted).bytes;
    for (int k = 0; k < KEYS; k++) {
        const Row *key = int_row(&key_builder, k);
        for (int r = 0; r < ROWS; r++)
            ck_assert_int_eq(
                sorted_state_add(sorted, key, hash_of(key), r, long_row(&row_builder, r, 40), 0),
                JOINERY_OK);
    }
    full = sorted_state_counters(sorted).bytes;
    for (int k = 0; k < KEYS; k++) {
        const Row *key = int_row(&key_builder, k);
        ck_assert_int_eq(
            sorted_state_remove_range(sorted, key, hash_of(key), 0, ROWS / 2 - 1, NULL),
            JOINERY_OK);
    }
    uint64_t half = sorted_state_counters(sorted).bytes;
    ck_assert_uint_le(half, full);
    if (lmdb)
        ck_assert_uint_lt(half, full);
    for (int k = 0; k < KEYS; k++) {
        const Row *key = int_row(&key_builder, k);
        ck_assert_int_eq(
            sorted_state_remove_range(sorted, key, hash_of(key), INT64_MIN, INT64_MAX, NULL),
            JOINERY_OK);
    }
    ck_assert_uint_lt(sorted_state_counters(sorted).bytes, full);
    if (lmdb)
        ck_assert_uint_eq(sorted_state_counters(sorted).bytes, empty);
    /* timers */
    TimerQueue *timers = timer_queue_create(store);
    empty = timers->ops->bytes(timers);
    const Row *one = int_row(&key_builder, 7);
    ck_assert_int_eq(timer_queue_add(timers, 1, one, NULL), JOINERY_OK);
    if (lmdb)
        ck_assert_uint_eq(timers->ops->bytes(timers), lmdb_record_bytes(18, row_size(one)));
    for (int k = 0; k < KEYS * ROWS; k++)
        ck_assert_int_eq(timer_queue_add(timers, k % 50, int_row(&key_builder, k), NULL),
                         JOINERY_OK);
    full = timers->ops->bytes(timers);
    previous = full;
    while (timer_queue_count(timers) > 0) {
        ck_assert_int_eq(timer_queue_pop(timers), JOINERY_OK);
        uint64_t now_bytes = timers->ops->bytes(timers);
        ck_assert_uint_le(now_bytes, previous);
        if (lmdb)
            ck_assert_uint_lt(now_bytes, previous);
        previous = now_bytes;
    }
    if (lmdb)
        ck_assert_uint_eq(previous, empty);
    commit(store);
    close_shapes(store, multiset, values, sorted, timers);
    row_builder_free(&key_builder);
    row_builder_free(&row_builder);
}
END_TEST

/* ---- snapshots across backends ---------------------------------------------------- */

static void fill_shapes(StateStore *store, MultisetState *multiset, ValueState *values,
                        SortedState *sorted, TimerQueue *timers)
{
    RowBuilder key_builder, row_builder;
    row_builder_init(&key_builder);
    row_builder_init(&row_builder);
    char text[64];
    for (int k = 0; k < 200; k++) {
        const Row *key = k % 50 == 0 ? long_row(&key_builder, k, 700) : int_row(&key_builder, k);
        uint64_t hash = hash_of(key);
        MultisetKey *handle = multiset_state_insert_key(multiset, key, hash, k);
        for (int r = 0; r < k % 5 + 1; r++) {
            snprintf(text, sizeof text, "r%d", r);
            const Row *row =
                r == 4 ? long_row(&row_builder, k, 6000) : pair_row(&row_builder, r, text);
            ck_assert_ptr_nonnull(
                multiset_key_add_row(multiset, handle, row, hash_of(row), r + 1, k * r, k + r));
        }
        if (k % 3 == 0)
            ck_assert_ptr_nonnull(multiset_key_add_row(
                multiset, multiset_key_part(multiset, handle, 1), int_row(&row_builder, k),
                hash_of(int_row(&row_builder, k)), 1, 0, 5));
        const ValueEntry *entry = value_state_insert(values, key, hash, k);
        if (k % 4)
            ck_assert_int_eq(
                value_state_set(values, entry, pair_row(&row_builder, k, "value"), k + 1),
                JOINERY_OK);
        for (int i = 0; i < k % 3 + 1; i++)
            ck_assert_int_eq(sorted_state_add(sorted, key, hash, (k * 31 + i * 17) % 40 - 20,
                                              i == 2 ? long_row(&row_builder, i, 5000)
                                                     : int_row(&row_builder, i),
                                              k + i),
                             JOINERY_OK);
        ck_assert_int_eq(timer_queue_add(timers, k % 17, key, NULL), JOINERY_OK);
        ck_assert_int_eq(timer_queue_add(timers, -k, key, NULL), JOINERY_OK);
        if (k % 40 == 0)
            commit(store);
    }
    commit(store);
    row_builder_free(&key_builder);
    row_builder_free(&row_builder);
}

START_TEST(test_snapshot_across)
{
    int source_backend = _i, target_backend = 1 - _i;
    StateStore *source = open_store(source_backend);
    StateStore *target = open_store(target_backend);
    int64_t ttls[2] = {1000, 0};
    MultisetState *multiset[2] = {multiset_state_create_parts(source, 2, ttls),
                                  multiset_state_create_parts(target, 2, ttls)};
    ValueState *values[2] = {value_state_create(source, 0), value_state_create(target, 0)};
    SortedState *sorted[2] = {sorted_state_create(source), sorted_state_create(target)};
    TimerQueue *timers[2] = {timer_queue_create(source), timer_queue_create(target)};
    fill_shapes(source, multiset[0], values[0], sorted[0], timers[0]);
    Diag diag;
    diag_clear(&diag);
    Buffer buffers[4] = {{0}};
    StateWriter writers[4];
    StateReader readers[4];
    for (int s = 0; s < 4; s++) {
        writers[s] = (StateWriter){buffer_write, &buffers[s]};
        readers[s] = (StateReader){buffer_read, &buffers[s]};
    }
    ck_assert_int_eq(multiset_state_snapshot(multiset[0], &writers[0], &diag), JOINERY_OK);
    ck_assert_int_eq(value_state_snapshot(values[0], &writers[1], &diag), JOINERY_OK);
    ck_assert_int_eq(sorted_state_snapshot(sorted[0], &writers[2], &diag), JOINERY_OK);
    ck_assert_int_eq(timer_queue_snapshot(timers[0], &writers[3], &diag), JOINERY_OK);
    ck_assert_msg(multiset_state_restore(multiset[1], &readers[0], &diag) == JOINERY_OK, "%s",
                  diag.message);
    ck_assert_int_eq(value_state_restore(values[1], &readers[1], &diag), JOINERY_OK);
    ck_assert_int_eq(sorted_state_restore(sorted[1], &readers[2], &diag), JOINERY_OK);
    ck_assert_int_eq(timer_queue_restore(timers[1], &readers[3], &diag), JOINERY_OK);
    for (int round = 0; round < 2; round++) {
        Lines a = {0}, b = {0};
        dump_multiset(multiset[0], &a);
        dump_multiset(multiset[1], &b);
        ck_assert_uint_gt(a.count, 500);
        lines_assert_equal(&a, &b, "multiset");
        lines_free(&a);
        lines_free(&b);
        dump_value(values[0], &a);
        dump_value(values[1], &b);
        ck_assert_uint_eq(a.count, 200);
        lines_assert_equal(&a, &b, "value");
        lines_free(&a);
        lines_free(&b);
        dump_sorted(sorted[0], &a, false);
        dump_sorted(sorted[1], &b, false);
        lines_assert_equal(&a, &b, "sorted");
        lines_free(&a);
        lines_free(&b);
        dump_timers(timers[0], &a);
        dump_timers(timers[1], &b);
        ck_assert_uint_eq(a.count, 399);
        lines_assert_equal(&a, &b, "timers");
        lines_free(&a);
        lines_free(&b);
        for (uint32_t p = 0; p < 2; p++) {
            StateCounters x = multiset_state_part_counters(multiset[0], p);
            StateCounters y = multiset_state_part_counters(multiset[1], p);
            ck_assert_uint_eq(x.keys, y.keys);
            ck_assert_uint_eq(x.entries, y.entries);
        }
        commit(target); /* and again after the restoring unit is committed */
    }
    for (int s = 0; s < 4; s++)
        free(buffers[s].bytes);
    close_shapes(source, multiset[0], values[0], sorted[0], timers[0]);
    close_shapes(target, multiset[1], values[1], sorted[1], timers[1]);
}
END_TEST

START_TEST(test_snapshot_corrupt)
{
    StateStore *store = open_store(_i);
    MultisetState *multiset = multiset_state_create_parts(store, 2, NULL);
    ValueState *values = value_state_create(store, 0);
    SortedState *sorted = sorted_state_create(store);
    TimerQueue *timers = timer_queue_create(store);
    fill_shapes(store, multiset, values, sorted, timers);
    Diag diag;
    diag_clear(&diag);
    Buffer buffer = {0};
    StateWriter writer = {buffer_write, &buffer};
    ck_assert_int_eq(multiset_state_snapshot(multiset, &writer, &diag), JOINERY_OK);
    StateReader reader = {buffer_read, &buffer};
    /* a flipped byte in the middle: the checksum (or a row's shape) says so */
    for (int attempt = 0; attempt < 3; attempt++) {
        size_t at = buffer.size / 4 * (size_t)(attempt + 1);
        buffer.bytes[at] ^= 0x40;
        buffer.read = 0;
        MultisetState *restored = multiset_state_create_parts(store, 2, NULL);
        diag_clear(&diag);
        ck_assert_int_eq(multiset_state_restore(restored, &reader, &diag), JOINERY_ERROR_VALIDATE);
        ck_assert_msg(strstr(diag.message, "damaged") != NULL, "%s", diag.message);
        ck_assert(!state_store_failed(store));
        multiset_state_destroy(restored);
        buffer.bytes[at] ^= 0x40;
    }
    /* truncated */
    size_t size = buffer.size;
    buffer.size = size - 9;
    buffer.read = 0;
    MultisetState *restored = multiset_state_create_parts(store, 2, NULL);
    diag_clear(&diag);
    ck_assert_int_eq(multiset_state_restore(restored, &reader, &diag), JOINERY_ERROR_VALIDATE);
    multiset_state_destroy(restored);
    /* another part count, another shape */
    buffer.size = size;
    buffer.read = 0;
    restored = multiset_state_create(store, 0);
    diag_clear(&diag);
    ck_assert_int_eq(multiset_state_restore(restored, &reader, &diag), JOINERY_ERROR_VALIDATE);
    multiset_state_destroy(restored);
    buffer.read = 0;
    ValueState *wrong = value_state_create(store, 0);
    diag_clear(&diag);
    ck_assert_int_eq(value_state_restore(wrong, &reader, &diag), JOINERY_ERROR_VALIDATE);
    value_state_destroy(wrong);
    /* intact: restores */
    buffer.read = 0;
    restored = multiset_state_create_parts(store, 2, NULL);
    diag_clear(&diag);
    ck_assert_int_eq(multiset_state_restore(restored, &reader, &diag), JOINERY_OK);
    ck_assert_uint_eq(multiset_state_counters(restored).entries,
                      multiset_state_counters(multiset).entries);
    commit(store);
    multiset_state_destroy(restored);
    free(buffer.bytes);
    close_shapes(store, multiset, values, sorted, timers);
}
END_TEST

/* ---- units of work ---------------------------------------------------------------- */

START_TEST(test_units_of_work)
{
    StateStore *store = open_store(_i);
    MultisetState *state = multiset_state_create_parts(store, 2, NULL);
    RowBuilder key_builder, row_builder;
    row_builder_init(&key_builder);
    row_builder_init(&row_builder);
    for (int unit = 0; unit < 50; unit++) {
        for (int k = 0; k < 20; k++) {
            const Row *key = int_row(&key_builder, k);
            MultisetKey *first = multiset_state_insert_key(state, key, hash_of(key), unit);
            MultisetKey *second = multiset_state_find(state, key, hash_of(key), unit);
            ck_assert_ptr_eq(first, second);
            MultisetKey *part = multiset_key_part(state, second, unit % 2);
            uint32_t before = part->entry_count;
            ck_assert_ptr_nonnull(add_one(state, part, int_row(&row_builder, unit), k, unit));
            ck_assert_uint_eq(multiset_key_part(state, first, unit % 2)->entry_count, before + 1);
            /* a find_row view, changed, then found again: the change shows */
            const Row *row = int_row(&row_builder, unit);
            const MultisetEntry *entry = multiset_key_find_row(state, part, row, hash_of(row));
            ck_assert_int_eq(multiset_entry_update(state, part, entry, 4, unit * 2, unit),
                             JOINERY_OK);
            entry = multiset_key_find_row(state, part, row, hash_of(row));
            ck_assert_int_eq(entry->count, 4);
            ck_assert_int_eq(entry->association_count, unit * 2);
            /* an older row goes in this unit */
            if (unit >= 4) {
                MultisetKey *old_part = multiset_key_part(state, first, (unit - 4) % 2);
                const Row *old = int_row(&row_builder, unit - 4);
                entry = multiset_key_find_row(state, old_part, old, hash_of(old));
                ck_assert_ptr_nonnull(entry);
                ck_assert_int_eq(entry->count, 4);
                ck_assert_int_eq(multiset_key_remove_entry(state, old_part, entry), JOINERY_OK);
            }
        }
        if (unit % 5 != 4)
            commit(store);
    }
    commit(store);
    for (int k = 0; k < 20; k++) {
        const Row *key = int_row(&key_builder, k);
        MultisetKey *handle = multiset_state_find(state, key, hash_of(key), 0);
        ck_assert_ptr_nonnull(handle);
        ck_assert_uint_eq(handle->entry_count, 2);
        ck_assert_uint_eq(multiset_key_part(state, handle, 1)->entry_count, 2);
    }
    StateCounters counters = multiset_state_counters(state);
    ck_assert_uint_eq(counters.keys, 20);
    ck_assert_uint_eq(counters.entries, 80);
    commit(store);
    multiset_state_destroy(state);
    state_store_close(store);
    row_builder_free(&key_builder);
    row_builder_free(&row_builder);
}
END_TEST

/* ---- map growth ------------------------------------------------------------------- */

START_TEST(test_map_growth)
{
    StateStore *store = open_store(_i);
    MultisetState *state = multiset_state_create(store, 0);
    RowBuilder key_builder, row_builder;
    row_builder_init(&key_builder);
    row_builder_init(&row_builder);
    enum { ROW_TEXT = 3900, ROWS = 38400, UNITS = 10, KEYS = 997 }; /* ~150 MiB of rows */
    double start = seconds_now();
    for (int i = 0; i < ROWS; i++) {
        const Row *key = int_row(&key_builder, i % KEYS);
        MultisetKey *handle = multiset_state_insert_key(state, key, hash_of(key), 0);
        ck_assert_ptr_nonnull(handle);
        ck_assert_ptr_nonnull(add_one(state, handle, long_row(&row_builder, i, ROW_TEXT), 0, 0));
        if (i % (ROWS / UNITS) == ROWS / UNITS - 1)
            commit(store);
    }
    commit(store);
    double written = seconds_now();
    StateCounters counters = multiset_state_counters(state);
    ck_assert_uint_eq(counters.entries, ROWS);
    if (_i == STATE_BACKEND_LMDB) {
        ck_assert_uint_gt(state_lmdb_map_size(store), (size_t)128 << 20);
        /* the records' exact size: the rows, and less than 128 bytes a row besides */
        uint64_t rows_bytes = (uint64_t)ROWS * row_size(long_row(&row_builder, 0, ROW_TEXT));
        ck_assert_uint_gt(counters.bytes, rows_bytes);
        ck_assert_uint_lt(counters.bytes, rows_bytes + (uint64_t)ROWS * 128);
    }
    /* one unit of ~50 MiB more (split on LMDB: past 64 MiB of estimated pages) */
    uint64_t splits = _i == STATE_BACKEND_LMDB ? state_lmdb_unit_splits(store) : 0;
    for (int i = ROWS; i < ROWS + ROWS / 3; i++) {
        const Row *key = int_row(&key_builder, i % KEYS);
        MultisetKey *handle = multiset_state_insert_key(state, key, hash_of(key), 0);
        ck_assert_ptr_nonnull(add_one(state, handle, long_row(&row_builder, i, ROW_TEXT), 0, 0));
    }
    commit(store);
    if (_i == STATE_BACKEND_LMDB)
        ck_assert_uint_gt(state_lmdb_unit_splits(store), splits);
    double big_unit = seconds_now();
    uint64_t entries = 0, sum;
    for (int k = 0; k < KEYS; k++) {
        const Row *key = int_row(&key_builder, k);
        MultisetKey *handle = multiset_state_find(state, key, hash_of(key), 0);
        ck_assert_ptr_nonnull(handle);
        entries += scan_count(state, handle, &sum);
    }
    ck_assert_uint_eq(entries, ROWS + ROWS / 3);
    double scanned = seconds_now();
    fprintf(stderr,
            "[%s] map growth: %d rows of %d B in %d units %.3f s, %d more in one unit %.3f s, "
            "scan %.3f s; bytes %llu MiB, map %zu MiB, splits %llu\n",
            backend_label(_i), ROWS, (int)row_size(long_row(&row_builder, 0, ROW_TEXT)), UNITS,
            written - start, ROWS / 3, big_unit - written, scanned - big_unit,
            (unsigned long long)(multiset_state_counters(state).bytes >> 20),
            _i == STATE_BACKEND_LMDB ? state_lmdb_map_size(store) >> 20 : 0,
            _i == STATE_BACKEND_LMDB ? (unsigned long long)state_lmdb_unit_splits(store) : 0ull);
    multiset_state_destroy(state);
    state_store_close(store);
    row_builder_free(&key_builder);
    row_builder_free(&row_builder);
}
END_TEST

/* ---- randomized differential: hashmap against LMDB --------------------------------- */

typedef struct Twin {
    StateStore *stores[2];
    MultisetState *multiset[2];
    ValueState *values[2];
    SortedState *sorted[2];
    TimerQueue *timers[2];
    RowBuilder key_builder, row_builder;
    uint64_t seed;
    int64_t now;
    bool masked;        /* LMDB's hashes masked by the test seam */
    uint32_t row_range; /* rows of a part: 0 .. row_range - 1 */
    uint32_t key_range; /* multiset keys: 0 .. key_range - 1 */
} Twin;

static uint32_t twin_random(Twin *twin, uint32_t below)
{
    twin->seed = twin->seed * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)((twin->seed >> 33) % below);
}

static uint32_t group_by_first_mod3(const Row *row, const void *context)
{
    (void)context;
    return (uint32_t)(row_get_int64(row, 0) % 3);
}

/* Part p of `key` in `state`, the key inserted when absent. */
static MultisetKey *twin_insert_part(MultisetState *state, const Row *key, uint64_t hash,
                                     int64_t now, uint32_t p)
{
    MultisetKey *handle = multiset_state_insert_key(state, key, hash, now);
    ck_assert_ptr_nonnull(handle);
    return multiset_key_part(state, handle, p);
}

static void twin_multiset_step(Twin *twin)
{
    int op = (int)twin_random(twin, 100);
    const Row *key = int_row(&twin->key_builder, twin_random(twin, twin->key_range));
    uint32_t p = twin_random(twin, 2);
    const Row *row = int_row(&twin->row_builder, twin_random(twin, twin->row_range));
    uint64_t key_hash = hash_of(key), row_hash = hash_of(row);
    int64_t now = twin->now;
    if (op < 3 && twin->row_range > 32) { /* a run of new rows: parts past 32 rows */
        uint32_t first = twin_random(twin, twin->row_range);
        for (uint32_t i = 0; i < 24; i++) {
            const Row *added =
                int_row(&twin->row_builder, (int64_t)((first + i * 7) % twin->row_range));
            uint64_t added_hash = hash_of(added);
            bool fresh[2];
            for (int b = 0; b < 2; b++) {
                MultisetState *state = twin->multiset[b];
                MultisetKey *part = twin_insert_part(state, key, key_hash, now, p);
                fresh[b] = multiset_key_find_row(state, part, added, added_hash) == NULL;
                if (fresh[b])
                    ck_assert_ptr_nonnull(
                        multiset_key_add_row(state, part, added, added_hash, 1, i, now));
            }
            ck_assert_int_eq(fresh[0], fresh[1]);
        }
    } else if (op < 45) { /* add a copy */
        int32_t counts[2];
        for (int b = 0; b < 2; b++) {
            MultisetState *state = twin->multiset[b];
            MultisetKey *part = twin_insert_part(state, key, key_hash, now, p);
            const MultisetEntry *entry = multiset_key_find_row(state, part, row, row_hash);
            if (entry) {
                counts[b] = entry->count + 1;
                ck_assert_int_eq(multiset_entry_update(state, part, entry, entry->count + 1,
                                                       entry->association_count, now),
                                 JOINERY_OK);
            } else {
                counts[b] = 1;
                ck_assert_ptr_nonnull(multiset_key_add_row(state, part, row, row_hash, 1,
                                                           (int64_t)twin->seed % 5, now));
            }
        }
        ck_assert_int_eq(counts[0], counts[1]);
    } else if (op < 75) { /* retract a copy */
        int found[2];
        for (int b = 0; b < 2; b++) {
            MultisetState *state = twin->multiset[b];
            MultisetKey *handle = multiset_state_find(state, key, key_hash, now);
            MultisetKey *part = handle ? multiset_key_part(state, handle, p) : NULL;
            const MultisetEntry *entry =
                part ? multiset_key_find_row(state, part, row, row_hash) : NULL;
            found[b] = entry ? entry->count : 0;
            if (!entry)
                continue;
            if (entry->count == 1) {
                ck_assert_int_eq(multiset_key_remove_entry(state, part, entry), JOINERY_OK);
                ck_assert_int_eq(multiset_state_release_key(state, handle), JOINERY_OK);
            } else {
                ck_assert_int_eq(multiset_entry_update(state, part, entry, entry->count - 1,
                                                       entry->association_count, now),
                                 JOINERY_OK);
            }
        }
        ck_assert_int_eq(found[0], found[1]);
    } else if (op < 90) { /* associations through a (group) scan, as MultiJoin does */
        uint32_t group = twin_random(twin, 3);
        Lines touched[2] = {{0}, {0}};
        uint32_t capacity[2] = {0, 0};
        for (int b = 0; b < 2; b++) {
            MultisetState *state = twin->multiset[b];
            MultisetKey *handle = multiset_state_find(state, key, key_hash, now);
            MultisetKey *part = handle ? multiset_key_part(state, handle, 1) : NULL;
            capacity[b] = part ? 1u << part->backend_byte : 0;
            MultisetScan scan;
            multiset_scan_begin_group(state, part, group, &scan);
            uint32_t index = 0;
            for (const MultisetEntry *entry; (entry = multiset_scan_next(&scan)) != NULL;) {
                if (group_by_first_mod3(entry->row, NULL) != group)
                    continue;
                /* in sequence where the hashmap scans every entry, else as a set */
                lines_add(&touched[b], "#%04u %lld c%d a%lld", capacity[b] <= 8 ? index : 0,
                          (long long)row_get_int64(entry->row, 0), entry->count,
                          (long long)entry->association_count);
                index++;
                ck_assert_int_eq(multiset_entry_update(state, part, entry, entry->count,
                                                       entry->association_count + 1, now),
                                 JOINERY_OK);
            }
            multiset_scan_end(&scan);
        }
        ck_assert_uint_eq(capacity[0], capacity[1]);
        lines_assert_equal(&touched[0], &touched[1], "group scan");
        lines_free(&touched[0]);
        lines_free(&touched[1]);
    } else if (op < 93) { /* drain a part down to a few rows, in a random order */
        Lines rows = {0};
        MultisetState *first = twin->multiset[0];
        MultisetKey *handle = multiset_state_find(first, key, key_hash, now);
        MultisetKey *part = handle ? multiset_key_part(first, handle, p) : NULL;
        MultisetScan scan;
        multiset_scan_begin(first, part, &scan);
        for (const MultisetEntry *entry; (entry = multiset_scan_next(&scan)) != NULL;)
            lines_add(&rows, "%lld", (long long)row_get_int64(entry->row, 0));
        multiset_scan_end(&scan);
        uint32_t keep = twin_random(twin, 4);
        while (rows.count > keep) {
            uint32_t pick = twin_random(twin, (uint32_t)rows.count);
            const Row *gone = int_row(&twin->row_builder, strtoll(rows.items[pick], NULL, 10));
            for (int b = 0; b < 2; b++) {
                MultisetState *state = twin->multiset[b];
                MultisetKey *found = multiset_state_find(state, key, key_hash, now);
                ck_assert_ptr_nonnull(found);
                MultisetKey *found_part = multiset_key_part(state, found, p);
                const MultisetEntry *entry =
                    multiset_key_find_row(state, found_part, gone, hash_of(gone));
                ck_assert_ptr_nonnull(entry);
                ck_assert_int_eq(multiset_key_remove_entry(state, found_part, entry), JOINERY_OK);
            }
            free(rows.items[pick]);
            rows.items[pick] = rows.items[--rows.count];
        }
        lines_free(&rows);
        for (int b = 0; b < 2; b++) {
            MultisetKey *found = multiset_state_find(twin->multiset[b], key, key_hash, now);
            if (found)
                ck_assert_int_eq(multiset_state_release_key(twin->multiset[b], found), JOINERY_OK);
        }
    } else if (op < 95) { /* remove the key */
        bool found[2];
        for (int b = 0; b < 2; b++) {
            MultisetKey *handle = multiset_state_find(twin->multiset[b], key, key_hash, now);
            found[b] = handle != NULL;
            if (handle)
                ck_assert_int_eq(multiset_state_remove_key(twin->multiset[b], handle), JOINERY_OK);
        }
        ck_assert_int_eq(found[0], found[1]);
    } else { /* cleanup everything (twice: a hashmap pass may miss a shifted key) */
        uint64_t dropped[2];
        for (int b = 0; b < 2; b++) {
            dropped[b] = multiset_state_cleanup(twin->multiset[b], now, 1u << 30);
            dropped[b] += multiset_state_cleanup(twin->multiset[b], now, 1u << 30);
        }
        ck_assert_uint_eq(dropped[0], dropped[1]);
    }
}

static void twin_value_step(Twin *twin)
{
    const Row *key = int_row(&twin->key_builder, twin_random(twin, 40));
    uint64_t hash = hash_of(key);
    int op = (int)twin_random(twin, 10);
    const Row *value = pair_row(&twin->row_builder, twin_random(twin, 1000), "v");
    int64_t found[2];
    for (int b = 0; b < 2; b++) {
        ValueState *state = twin->values[b];
        const ValueEntry *entry = value_state_find(state, key, hash, twin->now);
        found[b] = entry ? (entry->value ? row_get_int64(entry->value, 0) : -1) : -2;
        if (entry && op < 3) {
            ck_assert_int_eq(value_state_remove(state, entry), JOINERY_OK);
            continue;
        }
        if (!entry)
            entry = value_state_insert(state, key, hash, twin->now);
        ck_assert_ptr_nonnull(entry);
        if (op != 9)
            ck_assert_int_eq(value_state_set(state, entry, value, twin->now), JOINERY_OK);
    }
    ck_assert_int_eq(found[0], found[1]);
    if (twin_random(twin, 50) == 0) {
        uint64_t dropped[2];
        for (int b = 0; b < 2; b++) {
            dropped[b] = value_state_cleanup(twin->values[b], twin->now, 1u << 30);
            dropped[b] += value_state_cleanup(twin->values[b], twin->now, 1u << 30);
        }
        ck_assert_uint_eq(dropped[0], dropped[1]);
    }
}

static void twin_sorted_step(Twin *twin)
{
    const Row *key = int_row(&twin->key_builder, twin_random(twin, 15));
    uint64_t hash = hash_of(key);
    int op = (int)twin_random(twin, 10);
    if (op < 6) {
        int64_t time = (int64_t)twin_random(twin, 100) - 50;
        const Row *row = int_row(&twin->row_builder, twin_random(twin, 100));
        for (int b = 0; b < 2; b++)
            ck_assert_int_eq(sorted_state_add(twin->sorted[b], key, hash, time, row, op),
                             JOINERY_OK);
    } else if (op < 8) {
        int64_t from = (int64_t)twin_random(twin, 100) - 50;
        int64_t to = from + (int64_t)twin_random(twin, 40);
        uint64_t removed[2];
        for (int b = 0; b < 2; b++)
            ck_assert_int_eq(
                sorted_state_remove_range(twin->sorted[b], key, hash, from, to, &removed[b]),
                JOINERY_OK);
        ck_assert_uint_eq(removed[0], removed[1]);
    } else {
        int64_t from = (int64_t)twin_random(twin, 100) - 50;
        int64_t to = from + (int64_t)twin_random(twin, 60);
        int64_t sums[2] = {0, 0};
        for (int b = 0; b < 2; b++) {
            SortedScan scan;
            sorted_scan_begin(twin->sorted[b], key, hash, from, to, &scan);
            for (const SortedEntry *entry; (entry = sorted_scan_next(&scan)) != NULL;) {
                sums[b] += entry->time * 3 + entry->tag + (int64_t)entry->sequence;
                ck_assert_int_eq(sorted_scan_set_tag(&scan, entry, entry->tag + 1), JOINERY_OK);
            }
            sorted_scan_end(&scan);
        }
        ck_assert_int_eq(sums[0], sums[1]);
    }
}

static void twin_timer_step(Twin *twin)
{
    int op = (int)twin_random(twin, 10);
    const Row *key = int_row(&twin->key_builder, twin_random(twin, 20));
    int64_t time = (int64_t)twin_random(twin, 50);
    if (op < 6) {
        bool added[2];
        for (int b = 0; b < 2; b++)
            ck_assert_int_eq(timer_queue_add(twin->timers[b], time, key, &added[b]), JOINERY_OK);
        ck_assert_int_eq(added[0], added[1]);
    } else if (op < 8) {
        bool removed[2];
        for (int b = 0; b < 2; b++)
            ck_assert_int_eq(timer_queue_remove(twin->timers[b], time, key, &removed[b]),
                             JOINERY_OK);
        ck_assert_int_eq(removed[0], removed[1]);
    } else {
        /* the earliest: the same timer on both (under the hash mask ties come in the
           masked hash's order on LMDB); take the LMDB one's key out of both */
        int64_t times[2];
        const Row *keys[2];
        int peeked[2];
        for (int b = 0; b < 2; b++)
            peeked[b] = timer_queue_peek(twin->timers[b], &times[b], &keys[b]);
        ck_assert_int_eq(peeked[0], peeked[1]);
        if (peeked[0] != 1)
            return;
        ck_assert_int_eq(times[0], times[1]);
        if (!twin->masked)
            ck_assert(rows_equal(keys[0], keys[1]));
        uint64_t copy[4];
        ck_assert_uint_le(row_size(keys[1]), sizeof copy);
        memcpy(copy, keys[1], row_size(keys[1]));
        for (int b = 0; b < 2; b++) {
            bool removed = false;
            ck_assert_int_eq(
                timer_queue_remove(twin->timers[b], times[1], (const Row *)copy, &removed),
                JOINERY_OK);
            ck_assert(removed);
        }
    }
}

static void twin_compare(Twin *twin)
{
    Lines a = {0}, b = {0};
    dump_multiset_groups(twin->multiset[0], &a, group_by_first_mod3, 1, 3);
    dump_multiset_groups(twin->multiset[1], &b, group_by_first_mod3, 1, 3);
    lines_assert_equal(&a, &b, "multiset");
    lines_free(&a);
    lines_free(&b);
    StateCounters x = multiset_state_counters(twin->multiset[0]);
    StateCounters y = multiset_state_counters(twin->multiset[1]);
    ck_assert_uint_eq(x.keys, y.keys);
    ck_assert_uint_eq(x.entries, y.entries);
    ck_assert_uint_eq(x.expired, y.expired);
    for (uint32_t p = 0; p < 2; p++) {
        x = multiset_state_part_counters(twin->multiset[0], p);
        y = multiset_state_part_counters(twin->multiset[1], p);
        ck_assert_uint_eq(x.keys, y.keys);
        ck_assert_uint_eq(x.entries, y.entries);
        ck_assert_uint_eq(x.expired, y.expired);
    }
    dump_value(twin->values[0], &a);
    dump_value(twin->values[1], &b);
    lines_assert_equal(&a, &b, "value");
    lines_free(&a);
    lines_free(&b);
    x = value_state_counters(twin->values[0]);
    y = value_state_counters(twin->values[1]);
    ck_assert_uint_eq(x.keys, y.keys);
    ck_assert_uint_eq(x.expired, y.expired);
    dump_sorted(twin->sorted[0], &a, true);
    dump_sorted(twin->sorted[1], &b, true);
    lines_assert_equal(&a, &b, "sorted");
    lines_free(&a);
    lines_free(&b);
    x = sorted_state_counters(twin->sorted[0]);
    y = sorted_state_counters(twin->sorted[1]);
    ck_assert_uint_eq(x.keys, y.keys);
    ck_assert_uint_eq(x.entries, y.entries);
    dump_timers(twin->timers[0], &a);
    dump_timers(twin->timers[1], &b);
    lines_assert_equal(&a, &b, "timers");
    lines_free(&a);
    lines_free(&b);
}

START_TEST(test_differential)
{
    Twin twin;
    memset(&twin, 0, sizeof twin);
    twin.seed = 0x9e3779b97f4a7c15ull * (uint64_t)(_i + 1);
    /* parts past the hashmap's index threshold (8) and LMDB's (32), and back */
    twin.row_range = _i < 2 ? 12 : 80;
    twin.key_range = _i < 2 ? 30 : 6;
    int64_t ttls[2] = {400, 0};
    for (int b = 0; b < 2; b++) {
        twin.stores[b] = open_store(b);
        if (b == STATE_BACKEND_LMDB && _i % 2) {
            state_lmdb_set_key_hash_mask(twin.stores[b], 0xf); /* colliding keys too */
            twin.masked = true;
        }
        twin.multiset[b] = multiset_state_create_parts(twin.stores[b], 2, ttls);
        multiset_state_set_group_hash(twin.multiset[b], 1, group_by_first_mod3, NULL);
        twin.values[b] = value_state_create(twin.stores[b], 300);
        twin.sorted[b] = sorted_state_create(twin.stores[b]);
        twin.timers[b] = timer_queue_create(twin.stores[b]);
    }
    row_builder_init(&twin.key_builder);
    row_builder_init(&twin.row_builder);
    double start = seconds_now();
    enum { UNITS = 150, STEPS = 60 };
    for (int unit = 0; unit < UNITS; unit++) {
        for (int step = 0; step < STEPS; step++) {
            twin.now += twin_random(&twin, 4);
            switch (twin_random(&twin, 4)) {
            case 0:
            case 1:
                twin_multiset_step(&twin);
                break;
            case 2:
                twin_value_step(&twin);
                twin_sorted_step(&twin);
                break;
            default:
                twin_timer_step(&twin);
                break;
            }
        }
        for (int b = 0; b < 2; b++)
            commit(twin.stores[b]);
        twin_compare(&twin);
    }
    fprintf(stderr, "[differential %d] %d units of %d steps on both backends: %.3f s\n", _i, UNITS,
            STEPS, seconds_now() - start);
    for (int b = 0; b < 2; b++)
        close_shapes(twin.stores[b], twin.multiset[b], twin.values[b], twin.sorted[b],
                     twin.timers[b]);
    row_builder_free(&twin.key_builder);
    row_builder_free(&twin.row_builder);
}
END_TEST

/* ---- LMDB: folders and failures ------------------------------------------------------ */

static bool path_exists(const char *path)
{
    struct stat info;
    return stat(path, &info) == 0;
}

START_TEST(test_lmdb_folders)
{
    char base[] = "/tmp/joinery-check-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(base));
    char folder[sizeof base + 32], file[sizeof base + 64];
    snprintf(folder, sizeof folder, "%s/task-0", base);
    /* a folder that does not exist is created, and removed on close */
    StateStoreConfig config = {.backend = STATE_BACKEND_LMDB, .directory = folder, .budget = NULL};
    StateStore *store = NULL;
    Diag diag;
    diag_clear(&diag);
    ck_assert_int_eq(state_store_open(&config, &store, &diag), JOINERY_OK);
    snprintf(file, sizeof file, "%s/data.mdb", folder);
    ck_assert(path_exists(file));
    MultisetState *state = multiset_state_create(store, 0);
    RowBuilder builder;
    row_builder_init(&builder);
    const Row *key = int_row(&builder, 1);
    ck_assert_ptr_nonnull(multiset_state_insert_key(state, key, hash_of(key), 0));
    commit(store);
    multiset_state_destroy(state);
    state_store_close(store);
    ck_assert(!path_exists(folder));
    /* an existing folder stays; the store's files go (stale ones at open too) */
    ck_assert_int_eq(mkdir(folder, 0700), 0);
    FILE *stale = fopen(file, "w");
    ck_assert_ptr_nonnull(stale);
    fputs("not an LMDB file", stale);
    fclose(stale);
    diag_clear(&diag);
    ck_assert_msg(state_store_open(&config, &store, &diag) == JOINERY_OK, "%s", diag.message);
    state = multiset_state_create(store, 0);
    ck_assert_ptr_nonnull(multiset_state_insert_key(state, key, hash_of(key), 0));
    commit(store);
    multiset_state_destroy(state);
    state_store_close(store);
    ck_assert(path_exists(folder));
    ck_assert(!path_exists(file));
    snprintf(file, sizeof file, "%s/lock.mdb", folder);
    ck_assert(!path_exists(file));
    ck_assert_int_eq(rmdir(folder), 0);
    /* a temporary folder is removed on close */
    store = open_store(STATE_BACKEND_LMDB);
    char temporary[PATH_MAX];
    snprintf(temporary, sizeof temporary, "%s", lmdb_store(store)->directory);
    ck_assert(path_exists(temporary));
    state_store_close(store);
    ck_assert(!path_exists(temporary));
    /* a folder that cannot be made */
    snprintf(folder, sizeof folder, "%s/missing/task-0", base);
    diag_clear(&diag);
    ck_assert_int_ne(state_store_open(&config, &store, &diag), JOINERY_OK);
    ck_assert_ptr_null(store);
    ck_assert_msg(strstr(diag.message, "missing") != NULL, "%s", diag.message);
    ck_assert_int_eq(rmdir(base), 0);
    row_builder_free(&builder);
}
END_TEST

START_TEST(test_lmdb_failure)
{
    StateStore *store = open_store(STATE_BACKEND_LMDB);
    MultisetState *state = multiset_state_create(store, 0);
    ValueState *values = value_state_create(store, 0);
    RowBuilder builder;
    row_builder_init(&builder);
    const Row *key = int_row(&builder, 1);
    MultisetKey *handle = multiset_state_insert_key(state, key, hash_of(key), 0);
    ck_assert_ptr_nonnull(add_one(state, handle, int_row(&builder, 2), 0, 0));
    key = int_row(&builder, 1);
    commit(store);
    ck_assert(!state_store_failed(store));
    ck_assert_str_eq(state_store_error(store), "");
    ck_assert_int_eq(state_store_error_status(store), JOINERY_OK);
    /* what a put returning MDB_MAP_FULL does: the unit is lost */
    handle = multiset_state_find(state, key, hash_of(key), 0);
    ck_assert_ptr_nonnull(handle);
    lmdb_fail(lmdb_store(store), MDB_MAP_FULL, "put (multiset entry)");
    ck_assert(state_store_failed(store));
    ck_assert_int_eq(state_store_error_status(store), JOINERY_ERROR_NO_MEMORY);
    ck_assert_msg(strstr(state_store_error(store), "LMDB put (multiset entry)") &&
                      strstr(state_store_error(store), "map size 64 MiB") &&
                      strstr(state_store_error(store), lmdb_store(store)->directory),
                  "%s", state_store_error(store));
    /* every call fails fast */
    ck_assert_ptr_null(multiset_state_find(state, key, hash_of(key), 0));
    ck_assert_ptr_null(multiset_state_insert_key(state, key, hash_of(key), 0));
    ck_assert_ptr_null(multiset_key_add_row(state, handle, key, hash_of(key), 1, 0, 0));
    ck_assert_int_ne(multiset_state_remove_key(state, handle), JOINERY_OK);
    ck_assert_ptr_null(value_state_find(values, key, hash_of(key), 0));
    ck_assert_ptr_null(value_state_insert(values, key, hash_of(key), 0));
    ck_assert_ptr_null(sorted_state_create(store));
    Diag diag;
    diag_clear(&diag);
    ck_assert_int_eq(state_store_commit(store, &diag), JOINERY_ERROR_NO_MEMORY);
    ck_assert_msg(strstr(diag.message, "map size") != NULL, "%s", diag.message);
    ck_assert_uint_eq(multiset_state_counters(state).entries, 1); /* counters still answer */
    multiset_state_destroy(state);
    value_state_destroy(values);
    state_store_close(store);
    row_builder_free(&builder);
}
END_TEST

/* ---- the suite -------------------------------------------------------------------- */

/* ---- checkpoints by environment copy (state_lmdb_checkpoint.c) ------------------ */

typedef struct CopyTarget {
    char folder[256];
    int calls;
    int status;
    uint64_t bytes, checksum;
    char error[256];
} CopyTarget;

static char *copy_target_begin(void *context, int64_t id, char file[STATE_COPY_FILE_MAX])
{
    CopyTarget *target = context;
    snprintf(file, STATE_COPY_FILE_MAX, "lmdb-%lld", (long long)id);
    char *path = malloc(512);
    snprintf(path, 512, "%s/%s", target->folder, file);
    return path;
}

static void copy_target_done(void *context, int64_t id, const char *file, int status,
                             uint64_t bytes, uint64_t checksum, const char *error)
{
    (void)id;
    (void)file;
    CopyTarget *target = context;
    target->calls++;
    target->status = status;
    target->bytes = bytes;
    target->checksum = checksum;
    snprintf(target->error, sizeof target->error, "%s", error);
}

/* All four shapes dumped, a list of lines each. */
static void dump_shapes(MultisetState *multiset, ValueState *values, SortedState *sorted,
                        TimerQueue *timers, Lines lines[4])
{
    dump_multiset(multiset, &lines[0]);
    dump_value(values, &lines[1]);
    dump_sorted(sorted, &lines[2], false);
    dump_timers(timers, &lines[3]);
}

static void lines_free_4(Lines lines[4])
{
    for (int s = 0; s < 4; s++)
        lines_free(&lines[s]);
}

/*
 * An LMDB store checkpointed by copy restores, into either backend (the
 * loop index), the state at the barrier: writes committed right after it
 * (while the copy is made to wait before its read transaction) are not in
 * the copy - the commit gate defers that commit (without it the test
 * fails). A state used after the copy began is walked instead. A
 * truncated copy is refused.
 */
START_TEST(test_copy_checkpoint)
{
    CopyTarget target = {0};
    snprintf(target.folder, sizeof target.folder, "%s/joinery-copy-XXXXXX",
             getenv("TMPDIR") && getenv("TMPDIR")[0] ? getenv("TMPDIR") : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(target.folder));
    StateStore *source = open_store(STATE_BACKEND_LMDB);
    StateCopySink sink = {copy_target_begin, copy_target_done, &target};
    state_store_set_copy_sink(source, &sink);
    state_lmdb_set_copy_delay(source, 200);
    MultisetState *multiset = multiset_state_create_parts(source, 2, NULL);
    ValueState *values = value_state_create(source, 0);
    SortedState *sorted = sorted_state_create(source);
    TimerQueue *timers = timer_queue_create(source);
    fill_shapes(source, multiset, values, sorted, timers);
    /* the barrier's unit is not committed yet: the copy commits it */
    RowBuilder builder;
    row_builder_init(&builder);
    const Row *key = pair_row(&builder, 5000, "before");
    ck_assert_int_eq(timer_queue_add(timers, 77, key, NULL), JOINERY_OK);
    Lines expected[4] = {{0}};
    dump_shapes(multiset, values, sorted, timers, expected);

    Diag diag;
    diag_clear(&diag);
    Buffer buffers[4] = {{0}};
    StateWriter writers[4];
    for (int s = 0; s < 4; s++)
        writers[s] = (StateWriter){buffer_write, &buffers[s]};
    state_store_begin_snapshots(source, 1, true);
    ck_assert_int_eq(multiset_state_snapshot(multiset, &writers[0], &diag), JOINERY_OK);
    ck_assert_int_eq(value_state_snapshot(values, &writers[1], &diag), JOINERY_OK);
    ck_assert_int_eq(sorted_state_snapshot(sorted, &writers[2], &diag), JOINERY_OK);
    ck_assert_int_eq(timer_queue_snapshot(timers, &writers[3], &diag), JOINERY_OK);
    state_store_end_snapshots(source);
    for (int s = 0; s < 4; s++) {
        ck_assert_msg(memcmp(buffers[s].bytes, "JNYC", 4) == 0, "state %d is a reference", s);
        ck_assert_uint_lt(buffers[s].size, 128);
    }
    ck_assert_uint_eq(state_store_copy_references(source), 4);

    /* after the barrier: a change to every shape, committed at once */
    const Row *after = pair_row(&builder, 6000, "after");
    uint64_t hash = hash_of(after);
    MultisetKey *handle = multiset_state_insert_key(multiset, after, hash, 1);
    ck_assert_ptr_nonnull(multiset_key_add_row(multiset, handle, after, hash, 1, 0, 1));
    const ValueEntry *entry = value_state_insert(values, after, hash, 1);
    ck_assert_int_eq(value_state_set(values, entry, after, 1), JOINERY_OK);
    ck_assert_int_eq(sorted_state_add(sorted, after, hash, 3, after, 0), JOINERY_OK);
    ck_assert_int_eq(timer_queue_add(timers, 99, after, NULL), JOINERY_OK);
    ck_assert_int_eq(timer_queue_pop(timers), JOINERY_OK);
    commit(source);
    state_store_wait_copy(source);
    ck_assert_int_eq(target.calls, 1);
    ck_assert_msg(target.status == JOINERY_OK, "%s", target.error);
    char path[512];
    snprintf(path, sizeof path, "%s/lmdb-1", target.folder);
    struct stat info;
    ck_assert_int_eq(stat(path, &info), 0);
    ck_assert_uint_eq((uint64_t)info.st_size, target.bytes);
    Lines live[4] = {{0}};
    dump_shapes(multiset, values, sorted, timers, live);
    for (int s = 0; s < 4; s++) /* the writes after the barrier are there */
        ck_assert_uint_ne(live[s].count + (s == 3), expected[s].count);
    lines_free_4(live);

    /* restored into the backend of the loop: the state at the barrier */
    StateStore *restored = open_store(_i);
    ck_assert_int_eq(state_store_set_restore_folder(restored, target.folder), JOINERY_OK);
    MultisetState *multiset2 = multiset_state_create_parts(restored, 2, NULL);
    ValueState *values2 = value_state_create(restored, 0);
    SortedState *sorted2 = sorted_state_create(restored);
    TimerQueue *timers2 = timer_queue_create(restored);
    StateReader readers[4];
    for (int s = 0; s < 4; s++)
        readers[s] = (StateReader){buffer_read, &buffers[s]};
    ck_assert_msg(multiset_state_restore(multiset2, &readers[0], &diag) == JOINERY_OK, "%s",
                  diag.message);
    ck_assert_msg(value_state_restore(values2, &readers[1], &diag) == JOINERY_OK, "%s",
                  diag.message);
    ck_assert_msg(sorted_state_restore(sorted2, &readers[2], &diag) == JOINERY_OK, "%s",
                  diag.message);
    ck_assert_msg(timer_queue_restore(timers2, &readers[3], &diag) == JOINERY_OK, "%s",
                  diag.message);
    ck_assert_int_eq(state_store_set_restore_folder(restored, NULL), JOINERY_OK);
    commit(restored);
    Lines got[4] = {{0}};
    dump_shapes(multiset2, values2, sorted2, timers2, got);
    const char *names[4] = {"multiset", "value", "sorted", "timers"};
    for (int s = 0; s < 4; s++)
        lines_assert_equal(&expected[s], &got[s], names[s]);
    lines_free_4(got);

    /* checkpoint 2: a state used after the copy began (its barrier came later) is walked */
    for (int s = 0; s < 4; s++) {
        free(buffers[s].bytes);
        buffers[s] = (Buffer){0};
    }
    state_store_begin_snapshots(source, 2, true);
    ck_assert_int_eq(multiset_state_snapshot(multiset, &writers[0], &diag), JOINERY_OK);
    state_store_end_snapshots(source);
    entry = value_state_find(values, after, hash, 2);
    ck_assert_ptr_nonnull(entry);
    state_store_begin_snapshots(source, 2, true);
    ck_assert_int_eq(value_state_snapshot(values, &writers[1], &diag), JOINERY_OK);
    state_store_end_snapshots(source);
    ck_assert(memcmp(buffers[0].bytes, "JNYC", 4) == 0);
    ck_assert(memcmp(buffers[1].bytes, "JNYS", 4) == 0);
    ck_assert_uint_eq(state_store_copy_walks(source), 1);
    state_store_wait_copy(source);
    ck_assert_int_eq(target.status, JOINERY_OK);

    /* a truncated copy is refused with a clear message */
    snprintf(path, sizeof path, "%s/lmdb-2", target.folder);
    ck_assert_int_eq(stat(path, &info), 0);
    ck_assert_int_eq(truncate(path, info.st_size / 2), 0);
    MultisetState *multiset3 = multiset_state_create_parts(restored, 2, NULL);
    ck_assert_int_eq(state_store_set_restore_folder(restored, target.folder), JOINERY_OK);
    buffers[0].read = 0;
    ck_assert_int_ne(multiset_state_restore(multiset3, &readers[0], &diag), JOINERY_OK);
    ck_assert_msg(strstr(diag.message, "truncated") != NULL, "%s", diag.message);
    ck_assert_int_eq(state_store_set_restore_folder(restored, NULL), JOINERY_OK);
    multiset_state_destroy(multiset3);

    for (int s = 0; s < 4; s++)
        free(buffers[s].bytes);
    lines_free_4(expected);
    row_builder_free(&builder);
    close_shapes(restored, multiset2, values2, sorted2, timers2);
    close_shapes(source, multiset, values, sorted, timers);
    snprintf(path, sizeof path, "%s/lmdb-1", target.folder);
    unlink(path);
    snprintf(path, sizeof path, "%s/lmdb-2", target.folder);
    unlink(path);
    rmdir(target.folder);
}
END_TEST

static Suite *state_backends_suite(void)
{
    Suite *suite = suite_create("state_backends");
    struct {
        const char *name;
        const TTest *test;
        int timeout;
    } cases[] = {
        {"multiset_entries", test_multiset_entries, 60},
        {"multiset_many_keys", test_multiset_many_keys, 300},
        {"multiset_parts_groups", test_multiset_parts_groups, 60},
        {"multiset_ttl", test_multiset_ttl, 60},
        {"collisions", test_collisions, 120},
        {"long_rows", test_long_rows, 60},
        {"value_state", test_value_state, 60},
        {"sorted_state", test_sorted_state, 60},
        {"timer_queue", test_timer_queue, 300},
        {"snapshot_across", test_snapshot_across, 120},
        {"snapshot_corrupt", test_snapshot_corrupt, 120},
        {"units_of_work", test_units_of_work, 60},
        {"map_growth", test_map_growth, 1200},
        {"bytes_fall", test_bytes_fall, 60},
        {"copy_checkpoint", test_copy_checkpoint, 60},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        TCase *tcase = tcase_create(cases[i].name);
        tcase_set_timeout(tcase, cases[i].timeout);
        /* the loop index is the backend: 0 hashmap, 1 LMDB */
        tcase_add_loop_test(tcase, cases[i].test, STATE_BACKEND_HASHMAP, STATE_BACKEND_COUNT);
        suite_add_tcase(suite, tcase);
    }
    TCase *differential = tcase_create("differential");
    tcase_set_timeout(differential, 600);
    /* the loop index is the seed; odd seeds also force LMDB key collisions */
    tcase_add_loop_test(differential, test_differential, 0, 4);
    suite_add_tcase(suite, differential);
    TCase *timer_ties = tcase_create("timer_ties");
    tcase_set_timeout(timer_ties, 120);
    tcase_add_test(timer_ties, test_timer_ties);
    suite_add_tcase(suite, timer_ties);
    TCase *lmdb = tcase_create("lmdb");
    tcase_set_timeout(lmdb, 60);
    tcase_add_test(lmdb, test_lmdb_folders);
    tcase_add_test(lmdb, test_lmdb_failure);
    suite_add_tcase(suite, lmdb);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(state_backends_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
