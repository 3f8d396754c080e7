/*
 * state_lmdb_sorted.c - the LMDB backend's sorted state (see state.h): per
 * key, a key record followed by its entries in (time, sequence) order, in
 * the state's DBI.
 *
 *   key record  [key id 10] -> [key row]
 *   entry       [key id 10][time 8 BE, sign bit flipped][sequence 8 BE] -> [tag i64][row]
 *
 * with key id = [masked row_content_hash(key) 8 BE][collision sequence 2 BE]
 * (lmdb_find_key tells colliding keys apart by their rows). LMDB's key
 * order is the entries' (time, sequence) order, so a range [from, to] is
 * one cursor walk and removal below a bound deletes a prefix of the key.
 * The sequence is the state's counter (in memory: a state is always
 * created empty, and the counter only grows, so sequences stay distinct
 * for the state's life and rows of one time keep their arrival order).
 * Scans decode up to LMDB_SCAN_CHUNK entries per refill into a buffer of
 * the state's pool and seek again from the last entry returned.
 *
 * Invariants: a key record exists exactly when its key has entries; keys
 * and entries are exact, lmdb.bytes is the records' lmdb_record_bytes;
 * every entry's sequence is below next_sequence.
 */
#include "engine/state/state_lmdb_internal.h"

#include <stdlib.h>

enum {
    SORTED_TIME_OFFSET = LMDB_KEY_ID_SIZE,           /* 10 */
    SORTED_SEQUENCE_OFFSET = SORTED_TIME_OFFSET + 8, /* 18 */
    SORTED_KEY_SIZE = SORTED_SEQUENCE_OFFSET + 8,    /* 26 */
    SORTED_HEADER_SIZE = 8,                          /* the tag */
};

_Static_assert((int)SORTED_KEY_SIZE <= (int)LMDB_MAX_RECORD_KEY, "entry keys fit a range walk");

typedef struct LmdbSorted {
    SortedState base; /* first: a SortedState * is an LmdbSorted * */
    LmdbState lmdb;
    uint64_t keys;
    uint64_t entries;
    uint64_t next_sequence;
    LmdbScanPool scans;
    uint64_t *key_copy; /* scan_keys: the visited key row */
    size_t key_capacity;
} LmdbSorted;

/* The scan's cursor in SortedScan.backend. */
typedef struct LmdbSortedCursor {
    LmdbScanBuffer *buffer;
    uint8_t last[SORTED_KEY_SIZE]; /* the key id, then the last entry returned */
    bool started;
    bool done;
} LmdbSortedCursor;

_Static_assert(sizeof(LmdbSortedCursor) <= sizeof(((SortedScan *)0)->backend),
               "the scan cursor fits");

static inline LmdbSorted *lmdb_sorted(SortedState *state)
{
    return (LmdbSorted *)state;
}

static void entry_key(uint8_t to[SORTED_KEY_SIZE], const uint8_t id[LMDB_KEY_ID_SIZE], int64_t time,
                      uint64_t sequence)
{
    memcpy(to, id, LMDB_KEY_ID_SIZE);
    lmdb_put_be64(to + SORTED_TIME_OFFSET, lmdb_time_key(time));
    lmdb_put_be64(to + SORTED_SEQUENCE_OFFSET, sequence);
}

/* The id of `key`: 1 found, 0 absent (*free_sequence set when asked), negative failed. */
static int sorted_find(LmdbSorted *state, const Row *key, uint64_t hash,
                       uint8_t id[LMDB_KEY_ID_SIZE], uint16_t *free_sequence)
{
    hash = lmdb_key_hash(state->lmdb.store, hash);
    uint16_t sequence;
    MDB_val record;
    int found =
        lmdb_find_key(&state->lmdb, hash, key, 0, &sequence, &record, free_sequence, NULL, NULL);
    lmdb_key_id(id, hash, found == 1 ? sequence : free_sequence ? *free_sequence : 0);
    return found;
}

static int lmdb_sorted_add(SortedState *base, const Row *key, uint64_t hash, int64_t time,
                           const Row *row, int64_t tag)
{
    LmdbSorted *state = lmdb_sorted(base);
    LmdbStore *store = state->lmdb.store;
    if (lmdb_failed(&state->lmdb))
        return store->base.error_status;
    size_t size = SORTED_HEADER_SIZE + row_size(row);
    uint64_t pages = lmdb_put_pages(store, SORTED_KEY_SIZE, size) +
                     lmdb_put_pages(store, LMDB_KEY_ID_SIZE, row_size(key));
    if (!lmdb_state_reserve(&state->lmdb, pages))
        return store->base.error_status;
    uint8_t id[LMDB_KEY_ID_SIZE];
    uint16_t free_sequence = 0;
    int found = sorted_find(state, key, hash, id, &free_sequence);
    if (found < 0)
        return found;
    MDB_txn *txn = lmdb_state_txn(&state->lmdb);
    if (!txn)
        return store->base.error_status;
    if (found == 0) {
        MDB_val record_key = {sizeof id, id}, record = {row_size(key), NULL};
        int rc = mdb_put(txn, state->lmdb.dbi, &record_key, &record, MDB_RESERVE);
        if (rc != MDB_SUCCESS)
            return lmdb_fail(store, rc, "put (sorted key)");
        lmdb_write_row(record.mv_data, key);
        state->lmdb.bytes += lmdb_record_bytes(sizeof id, row_size(key));
        state->keys++;
    }
    uint8_t record_key_bytes[SORTED_KEY_SIZE];
    entry_key(record_key_bytes, id, time, state->next_sequence);
    MDB_val record_key = {sizeof record_key_bytes, record_key_bytes}, record = {size, NULL};
    int rc = mdb_put(txn, state->lmdb.dbi, &record_key, &record, MDB_RESERVE);
    if (rc != MDB_SUCCESS)
        return lmdb_fail(store, rc, "put (sorted entry)");
    memcpy(record.mv_data, &tag, sizeof tag);
    lmdb_write_row((char *)record.mv_data + SORTED_HEADER_SIZE, row);
    state->lmdb.bytes += lmdb_record_bytes(sizeof record_key_bytes, size);
    state->next_sequence++;
    state->entries++;
    return JOINERY_OK;
}

static void lmdb_sorted_scan_begin(SortedState *base, const Row *key, uint64_t hash,
                                   SortedScan *scan)
{
    LmdbSorted *state = lmdb_sorted(base);
    LmdbSortedCursor *cursor = (LmdbSortedCursor *)scan->backend;
    cursor->buffer = NULL;
    cursor->started = false;
    cursor->done = true;
    if (lmdb_failed(&state->lmdb))
        return;
    uint8_t id[LMDB_KEY_ID_SIZE];
    if (sorted_find(state, key, hash, id, NULL) != 1)
        return;
    entry_key(cursor->last, id, scan->from, 0);
    cursor->done = false;
}

static const SortedEntry *lmdb_sorted_scan_refill(SortedScan *scan)
{
    LmdbSorted *state = lmdb_sorted(scan->state);
    LmdbStore *store = state->lmdb.store;
    LmdbSortedCursor *cursor = (LmdbSortedCursor *)scan->backend;
    if (cursor->done || lmdb_failed(&state->lmdb)) {
        cursor->done = true;
        return NULL;
    }
    if (!cursor->buffer && !(cursor->buffer = lmdb_scan_buffer_take(&state->scans))) {
        lmdb_fail_memory(store);
        return NULL;
    }
    LmdbScanBuffer *buffer = cursor->buffer;
    buffer->used = 0;
    MDB_cursor *lmdb_cursor = lmdb_state_cursor(&state->lmdb);
    if (!lmdb_cursor)
        return NULL;
    MDB_val record_key = {sizeof cursor->last, cursor->last}, record;
    int rc = mdb_cursor_get(lmdb_cursor, &record_key, &record, MDB_SET_RANGE);
    if (cursor->started && rc == MDB_SUCCESS && record_key.mv_size == sizeof cursor->last &&
        memcmp(record_key.mv_data, cursor->last, sizeof cursor->last) == 0)
        rc = mdb_cursor_get(lmdb_cursor, &record_key, &record, MDB_NEXT);
    cursor->started = true;
    uint32_t count = 0;
    SortedEntry *entries = buffer->entries.sorted;
    uint64_t to = lmdb_time_key(scan->to);
    while (rc == MDB_SUCCESS && count < LMDB_SCAN_CHUNK && buffer->used < LMDB_SCAN_CHUNK_BYTES) {
        const uint8_t *key_bytes = record_key.mv_data;
        if (record_key.mv_size != SORTED_KEY_SIZE ||
            memcmp(key_bytes, cursor->last, LMDB_KEY_ID_SIZE) != 0 ||
            lmdb_get_be64(key_bytes + SORTED_TIME_OFFSET) > to) {
            rc = MDB_NOTFOUND; /* past the key or the range */
            break;
        }
        const char *value = record.mv_data;
        uint32_t size = record.mv_size < SORTED_HEADER_SIZE
                            ? 0
                            : lmdb_stored_row_size(value + SORTED_HEADER_SIZE,
                                                   record.mv_size - SORTED_HEADER_SIZE);
        if (size == 0) {
            lmdb_fail_corrupt(store, "a sorted entry record is malformed");
            cursor->done = true;
            return NULL;
        }
        size_t offset = lmdb_scan_buffer_add_row(buffer, value + SORTED_HEADER_SIZE, size);
        if (offset == SIZE_MAX) {
            lmdb_fail_memory(store);
            cursor->done = true;
            return NULL;
        }
        SortedEntry *entry = &entries[count];
        entry->time = lmdb_time_of_key(lmdb_get_be64(key_bytes + SORTED_TIME_OFFSET));
        entry->sequence = lmdb_get_be64(key_bytes + SORTED_SEQUENCE_OFFSET);
        entry->tag = lmdb_get_i64(value);
        buffer->offsets[count] = (uint32_t)offset;
        memcpy(cursor->last, key_bytes, sizeof cursor->last);
        count++;
        rc = mdb_cursor_get(lmdb_cursor, &record_key, &record, MDB_NEXT);
    }
    if (rc != MDB_SUCCESS && rc != MDB_NOTFOUND) {
        lmdb_fail(store, rc, "cursor_get (sorted scan)");
        cursor->done = true;
        return NULL;
    }
    if (rc == MDB_NOTFOUND)
        cursor->done = true;
    if (count == 0)
        return NULL;
    for (uint32_t i = 0; i < count; i++)
        entries[i].row = lmdb_scan_buffer_row(buffer, buffer->offsets[i]);
    scan->span = entries;
    scan->span_count = count;
    scan->position = 1;
    return &entries[0];
}

static void lmdb_sorted_scan_end(SortedScan *scan)
{
    LmdbSortedCursor *cursor = (LmdbSortedCursor *)scan->backend;
    if (cursor->buffer)
        lmdb_scan_buffer_give(&lmdb_sorted(scan->state)->scans, cursor->buffer);
    cursor->buffer = NULL;
}

static int lmdb_sorted_set_tag(SortedScan *scan, const SortedEntry *entry, int64_t tag)
{
    LmdbSorted *state = lmdb_sorted(scan->state);
    LmdbStore *store = state->lmdb.store;
    LmdbSortedCursor *cursor = (LmdbSortedCursor *)scan->backend;
    if (lmdb_failed(&state->lmdb))
        return store->base.error_status;
    size_t size = SORTED_HEADER_SIZE + row_size(entry->row);
    if (!lmdb_state_reserve(&state->lmdb, lmdb_put_pages(store, SORTED_KEY_SIZE, size)))
        return store->base.error_status;
    MDB_txn *txn = lmdb_state_txn(&state->lmdb);
    if (!txn)
        return store->base.error_status;
    uint8_t key_bytes[SORTED_KEY_SIZE];
    entry_key(key_bytes, cursor->last, entry->time, entry->sequence);
    MDB_val record_key = {sizeof key_bytes, key_bytes}, record = {size, NULL};
    int rc = mdb_put(txn, state->lmdb.dbi, &record_key, &record, MDB_RESERVE);
    if (rc != MDB_SUCCESS)
        return lmdb_fail(store, rc, "put (sorted tag)");
    memcpy(record.mv_data, &tag, sizeof tag);
    lmdb_write_row((char *)record.mv_data + SORTED_HEADER_SIZE, entry->row);
    ((SortedEntry *)entry)->tag = tag; /* a view is the backend's copy */
    return JOINERY_OK;
}

static int lmdb_sorted_remove_range(SortedState *base, const Row *key, uint64_t hash, int64_t from,
                                    int64_t to, uint64_t *removed)
{
    LmdbSorted *state = lmdb_sorted(base);
    LmdbStore *store = state->lmdb.store;
    if (removed)
        *removed = 0;
    if (lmdb_failed(&state->lmdb))
        return store->base.error_status;
    if (from > to)
        return JOINERY_OK;
    uint8_t id[LMDB_KEY_ID_SIZE];
    int found = sorted_find(state, key, hash, id, NULL);
    if (found <= 0)
        return found;
    uint8_t start[SORTED_KEY_SIZE];
    entry_key(start, id, from, 0);
    LmdbRange range;
    lmdb_range_begin(&range, &state->lmdb, id, sizeof id, start, sizeof start);
    uint64_t gone = 0;
    uint64_t last_time = lmdb_time_key(to);
    while ((found = lmdb_range_next(&range)) == 1) {
        if (range.key.mv_size != SORTED_KEY_SIZE ||
            lmdb_get_be64((const uint8_t *)range.key.mv_data + SORTED_TIME_OFFSET) > last_time)
            break;
        uint64_t bytes = lmdb_record_bytes(range.key.mv_size, range.data.mv_size);
        if (lmdb_range_delete(&range) != JOINERY_OK)
            return store->base.error_status;
        state->lmdb.bytes -= bytes;
        gone++;
    }
    if (found < 0)
        return store->base.error_status;
    state->entries -= gone;
    if (removed)
        *removed = gone;
    if (gone == 0)
        return JOINERY_OK;
    /* the key goes with its last entry: is there an entry after its record? */
    lmdb_range_begin(&range, &state->lmdb, id, sizeof id, NULL, 0);
    int records = 0;
    while (records < 2 && (found = lmdb_range_next(&range)) == 1)
        records++;
    if (found < 0)
        return store->base.error_status;
    if (records == 1) {
        lmdb_range_begin(&range, &state->lmdb, id, sizeof id, NULL, 0);
        if (lmdb_range_next(&range) != 1)
            return store->base.error_status;
        uint64_t bytes = lmdb_record_bytes(range.key.mv_size, range.data.mv_size);
        if (lmdb_range_delete(&range) != JOINERY_OK)
            return store->base.error_status;
        state->lmdb.bytes -= bytes;
        state->keys--;
    }
    return JOINERY_OK;
}

static int lmdb_sorted_scan_keys(SortedState *base,
                                 int (*visit)(void *context, const Row *key, uint64_t entry_count),
                                 void *context)
{
    LmdbSorted *state = lmdb_sorted(base);
    LmdbStore *store = state->lmdb.store;
    if (lmdb_failed(&state->lmdb))
        return store->base.error_status;
    uint8_t position[LMDB_KEY_ID_SIZE];
    bool first = true;
    for (;;) {
        MDB_cursor *cursor = lmdb_state_cursor(&state->lmdb);
        if (!cursor)
            return store->base.error_status;
        MDB_val record_key = {sizeof position, position}, record;
        int rc = mdb_cursor_get(cursor, &record_key, &record, first ? MDB_FIRST : MDB_SET_RANGE);
        if (rc == MDB_NOTFOUND)
            return JOINERY_OK;
        if (rc != MDB_SUCCESS)
            return lmdb_fail(store, rc, "cursor_get (sorted keys)");
        uint32_t size = lmdb_stored_row_size(record.mv_data, record.mv_size);
        if (record_key.mv_size != LMDB_KEY_ID_SIZE || size == 0)
            return lmdb_fail_corrupt(store, "a sorted key record is malformed");
        memcpy(position, record_key.mv_data, sizeof position);
        if (size > state->key_capacity) {
            uint64_t *copy = realloc(state->key_copy, size);
            if (!copy)
                return lmdb_fail_memory(store);
            state->key_copy = copy;
            state->key_capacity = size;
        }
        memcpy(state->key_copy, record.mv_data, size);
        /* count the key's entries */
        uint64_t count = 0;
        while ((rc = mdb_cursor_get(cursor, &record_key, &record, MDB_NEXT)) == MDB_SUCCESS &&
               record_key.mv_size == SORTED_KEY_SIZE &&
               memcmp(record_key.mv_data, position, sizeof position) == 0)
            count++;
        if (rc != MDB_SUCCESS && rc != MDB_NOTFOUND)
            return lmdb_fail(store, rc, "cursor_get (sorted keys)");
        int status = visit(context, (const Row *)state->key_copy, count);
        if (status != JOINERY_OK)
            return status;
        if (lmdb_failed(&state->lmdb))
            return store->base.error_status;
        if (!lmdb_key_id_next(position))
            return JOINERY_OK;
        first = false;
    }
}

static StateCounters lmdb_sorted_counters(const SortedState *base)
{
    const LmdbSorted *state = (const LmdbSorted *)base;
    StateCounters counters;
    counters.bytes = state->lmdb.bytes;
    counters.keys = state->keys;
    counters.entries = state->entries;
    counters.expired = 0;
    return counters;
}

static void lmdb_sorted_destroy(SortedState *base)
{
    LmdbSorted *state = lmdb_sorted(base);
    lmdb_state_close(&state->lmdb);
    lmdb_scan_pool_free(&state->scans);
    free(state->key_copy);
    free(state);
}

static const SortedStateOps LMDB_SORTED_OPS = {
    .destroy = lmdb_sorted_destroy,
    .add = lmdb_sorted_add,
    .scan_begin = lmdb_sorted_scan_begin,
    .scan_refill = lmdb_sorted_scan_refill,
    .scan_end = lmdb_sorted_scan_end,
    .set_tag = lmdb_sorted_set_tag,
    .remove_range = lmdb_sorted_remove_range,
    .scan_keys = lmdb_sorted_scan_keys,
    .counters = lmdb_sorted_counters,
};

SortedState *state_lmdb_create_sorted(StateStore *base)
{
    LmdbStore *store = lmdb_store(base);
    if (base->failed)
        return NULL;
    LmdbSorted *state = calloc(1, sizeof *state);
    if (!state) {
        lmdb_fail_memory(store);
        return NULL;
    }
    state->base.ops = &LMDB_SORTED_OPS;
    state->base.store = base;
    if (!lmdb_state_open(store, &state->lmdb, 's', state)) {
        free(state);
        return NULL;
    }
    return &state->base;
}

LmdbState *state_lmdb_sorted_lmdb(SortedState *state)
{
    return &((LmdbSorted *)state)->lmdb;
}
