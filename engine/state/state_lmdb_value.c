/*
 * state_lmdb_value.c - the LMDB backend's value state (see state.h): one
 * record per key in the state's DBI.
 *
 *   [key id 10] -> [last_access i64][has_value u8][0 x7][key row][value row]
 *
 * with key id = [masked row_content_hash(key) 8 BE][collision sequence 2 BE]
 * (colliding keys are told apart by the stored key rows: lmdb_find_key).
 * Every call writes through: there is no cache, so nothing is kept per
 * unit. The ValueEntry a call returns is the state's one view (valid until
 * the next call on the state, as the contract says): a copy of the key
 * row, the value row and the key id, in memory the state keeps.
 *
 * Invariants: keys and expired are exact, lmdb.bytes is the records'
 * lmdb_record_bytes; the view's id names the record its key and value
 * were copied from (and it holds what the record holds, so its size is
 * the record's); cleanup_position is the id of the last record cleanup
 * examined.
 */
#include "engine/state/state_lmdb_internal.h"

#include <stddef.h>
#include <stdlib.h>

enum {
    VALUE_HEADER_SIZE = 16, /* last_access, has_value, padding */
};

typedef struct ValueView {
    ValueEntry pub; /* first: a ValueEntry * is the view */
    uint64_t hash;  /* masked */
    uint16_t sequence;
    int64_t last_access;
    uint64_t *bytes; /* key row, then value row */
    size_t capacity;
} ValueView;

typedef struct LmdbValue {
    ValueState base; /* first: a ValueState * is an LmdbValue * */
    LmdbState lmdb;
    int64_t ttl_millis;
    uint64_t keys;
    uint64_t expired;
    ValueView view;
    uint8_t cleanup_position[LMDB_KEY_ID_SIZE];
    bool cleanup_started;
} LmdbValue;

_Static_assert(offsetof(ValueView, pub) == 0, "a ValueEntry * is its view");

static inline LmdbValue *lmdb_value(ValueState *state)
{
    return (LmdbValue *)state;
}

static inline const Row *view_key(const ValueView *view)
{
    return (const Row *)view->bytes;
}

/* Makes room for `size` bytes in the view, keeping the first `keep`; false without memory. */
static bool view_reserve(LmdbValue *state, size_t size, size_t keep)
{
    ValueView *view = &state->view;
    if (size <= view->capacity)
        return true;
    size_t capacity = view->capacity ? view->capacity : 256;
    while (capacity < size)
        capacity *= 2;
    uint64_t *bytes = malloc(capacity);
    if (!bytes) {
        lmdb_fail_memory(state->lmdb.store);
        return false;
    }
    if (keep)
        memcpy(bytes, view->bytes, keep);
    free(view->bytes);
    view->bytes = bytes;
    view->capacity = capacity;
    view->pub.value = NULL;
    return true;
}

/* Fills the view from a record (copied out of LMDB); NULL (store failed) when malformed. */
static const ValueEntry *view_fill(LmdbValue *state, uint64_t hash, uint16_t sequence,
                                   const MDB_val *record)
{
    const char *bytes = record->mv_data;
    if (record->mv_size < VALUE_HEADER_SIZE) {
        lmdb_fail_corrupt(state->lmdb.store, "a value record is malformed");
        return NULL;
    }
    size_t available = record->mv_size - VALUE_HEADER_SIZE;
    uint32_t key_size = lmdb_stored_row_size(bytes + VALUE_HEADER_SIZE, available);
    bool has_value = bytes[8] != 0;
    uint32_t value_size =
        has_value && key_size
            ? lmdb_stored_row_size(bytes + VALUE_HEADER_SIZE + key_size, available - key_size)
            : 0;
    if (key_size == 0 || (has_value && value_size == 0)) {
        lmdb_fail_corrupt(state->lmdb.store, "a value record is malformed");
        return NULL;
    }
    if (!view_reserve(state, (size_t)key_size + value_size, 0))
        return NULL;
    ValueView *view = &state->view;
    memcpy(view->bytes, bytes + VALUE_HEADER_SIZE, (size_t)key_size + value_size);
    view->hash = hash;
    view->sequence = sequence;
    view->last_access = lmdb_get_i64(bytes);
    view->pub.value = has_value ? (const Row *)((const char *)view->bytes + key_size) : NULL;
    return &view->pub;
}

/* The size of the record the view was copied from (or written as). */
static size_t view_record_size(const ValueView *view)
{
    return VALUE_HEADER_SIZE + row_size(view_key(view)) +
           (view->pub.value ? row_size(view->pub.value) : 0);
}

/*
 * Writes the record of the view's key with `value` (NULL: none) and
 * `last_access`, in place of one of `old_size` bytes (0: a new record).
 */
static int record_write(LmdbValue *state, const Row *value, int64_t last_access, size_t old_size)
{
    LmdbStore *store = state->lmdb.store;
    ValueView *view = &state->view;
    const Row *key = view_key(view);
    size_t size = VALUE_HEADER_SIZE + row_size(key) + (value ? row_size(value) : 0);
    if (!lmdb_state_reserve(&state->lmdb, lmdb_put_pages(store, LMDB_KEY_ID_SIZE, size)))
        return store->base.error_status;
    MDB_cursor *cursor = lmdb_state_cursor(&state->lmdb);
    if (!cursor)
        return store->base.error_status;
    uint8_t id[LMDB_KEY_ID_SIZE];
    lmdb_key_id(id, view->hash, view->sequence);
    /* after a find the cursor is usually still on the record: no second seek */
    MDB_val record_key, record;
    unsigned flags = MDB_RESERVE;
    if (mdb_cursor_get(cursor, &record_key, &record, MDB_GET_CURRENT) == MDB_SUCCESS &&
        record_key.mv_size == sizeof id && memcmp(record_key.mv_data, id, sizeof id) == 0)
        flags |= MDB_CURRENT;
    record_key = (MDB_val){sizeof id, id};
    record = (MDB_val){size, NULL};
    int rc = mdb_cursor_put(cursor, &record_key, &record, flags);
    if (rc != MDB_SUCCESS)
        return lmdb_fail(store, rc, "put (value)");
    char *bytes = record.mv_data;
    memset(bytes, 0, VALUE_HEADER_SIZE);
    memcpy(bytes, &last_access, sizeof last_access);
    bytes[8] = value ? 1 : 0;
    lmdb_write_row(bytes + VALUE_HEADER_SIZE, key);
    if (value)
        lmdb_write_row(bytes + VALUE_HEADER_SIZE + row_size(key), value);
    state->lmdb.bytes += lmdb_record_bytes(LMDB_KEY_ID_SIZE, size);
    if (old_size)
        state->lmdb.bytes -= lmdb_record_bytes(LMDB_KEY_ID_SIZE, old_size);
    return JOINERY_OK;
}

/* Deletes the record `id` (of `size` bytes). */
static int record_delete(LmdbValue *state, const uint8_t id[LMDB_KEY_ID_SIZE], size_t size)
{
    int status = lmdb_state_delete(&state->lmdb, id, LMDB_KEY_ID_SIZE, "del (value)");
    if (status == JOINERY_OK)
        state->lmdb.bytes -= lmdb_record_bytes(LMDB_KEY_ID_SIZE, size);
    return status;
}

static const ValueEntry *lmdb_value_find(ValueState *base, const Row *key, uint64_t hash,
                                         int64_t now)
{
    LmdbValue *state = lmdb_value(base);
    if (lmdb_failed(&state->lmdb))
        return NULL;
    hash = lmdb_key_hash(state->lmdb.store, hash);
    uint16_t sequence;
    MDB_val record;
    int found = lmdb_find_key(&state->lmdb, hash, key, VALUE_HEADER_SIZE, &sequence, &record, NULL,
                              NULL, NULL);
    if (found != 1)
        return NULL;
    if (record.mv_size >= VALUE_HEADER_SIZE &&
        state_is_expired(state->ttl_millis, lmdb_get_i64(record.mv_data), now)) {
        uint8_t id[LMDB_KEY_ID_SIZE];
        lmdb_key_id(id, hash, sequence);
        if (record_delete(state, id, record.mv_size) == JOINERY_OK) {
            state->keys--;
            state->expired++;
        }
        return NULL;
    }
    return view_fill(state, hash, sequence, &record);
}

static const ValueEntry *lmdb_value_insert(ValueState *base, const Row *key, uint64_t hash,
                                           int64_t now)
{
    LmdbValue *state = lmdb_value(base);
    if (lmdb_failed(&state->lmdb))
        return NULL;
    hash = lmdb_key_hash(state->lmdb.store, hash);
    uint16_t sequence, free_sequence = 0;
    MDB_val record;
    int found = lmdb_find_key(&state->lmdb, hash, key, VALUE_HEADER_SIZE, &sequence, &record,
                              &free_sequence, NULL, NULL);
    if (found < 0)
        return NULL;
    if (found == 1) /* the contract says absent; keep what is there */
        return view_fill(state, hash, sequence, &record);
    if (!view_reserve(state, row_size(key), 0))
        return NULL;
    ValueView *view = &state->view;
    lmdb_write_row(view->bytes, key);
    view->hash = hash;
    view->sequence = free_sequence;
    view->last_access = now;
    view->pub.value = NULL;
    if (record_write(state, NULL, now, 0) != JOINERY_OK)
        return NULL;
    state->keys++;
    return &view->pub;
}

static int lmdb_value_set(ValueState *base, const ValueEntry *entry, const Row *value, int64_t now)
{
    LmdbValue *state = lmdb_value(base);
    ValueView *view = &state->view;
    if (lmdb_failed(&state->lmdb))
        return state->lmdb.store->base.error_status;
    if (entry != &view->pub)
        return lmdb_fail_corrupt(state->lmdb.store, "a value entry is not the state's last");
    /* `value` may be the view's own value: write the record before touching the view */
    int status = record_write(state, value, now, view_record_size(view));
    if (status != JOINERY_OK)
        return status;
    uint32_t key_size = row_size(view_key(view));
    uint32_t value_size = row_size(value);
    if ((size_t)key_size + value_size > view->capacity) {
        uint64_t *bytes = malloc((size_t)key_size + value_size);
        if (!bytes)
            return lmdb_fail_memory(state->lmdb.store);
        memcpy(bytes, view->bytes, key_size);
        memcpy((char *)bytes + key_size, value, value_size);
        free(view->bytes);
        view->bytes = bytes;
        view->capacity = (size_t)key_size + value_size;
    } else {
        memmove((char *)view->bytes + key_size, value, value_size);
    }
    Row *stored = (Row *)((char *)view->bytes + key_size);
    row_set_kind(stored, ROW_KIND_INSERT);
    view->pub.value = stored;
    view->last_access = now;
    return JOINERY_OK;
}

static int lmdb_value_remove(ValueState *base, const ValueEntry *entry)
{
    LmdbValue *state = lmdb_value(base);
    ValueView *view = &state->view;
    if (lmdb_failed(&state->lmdb))
        return state->lmdb.store->base.error_status;
    if (entry != &view->pub)
        return lmdb_fail_corrupt(state->lmdb.store, "a value entry is not the state's last");
    uint8_t id[LMDB_KEY_ID_SIZE];
    lmdb_key_id(id, view->hash, view->sequence);
    int status = record_delete(state, id, view_record_size(view));
    if (status == JOINERY_OK)
        state->keys--;
    view->pub.value = NULL;
    return status;
}

static int lmdb_value_scan(ValueState *base,
                           int (*visit)(void *context, const Row *key, const Row *value,
                                        int64_t last_access),
                           void *context)
{
    LmdbValue *state = lmdb_value(base);
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
            return lmdb_fail(store, rc, "cursor_get (value scan)");
        if (record_key.mv_size != LMDB_KEY_ID_SIZE)
            return lmdb_fail_corrupt(store, "a value record key is malformed");
        memcpy(position, record_key.mv_data, sizeof position);
        /* the copy is the view: the visitor reads it during the call */
        if (!view_fill(state, lmdb_get_be64(position), lmdb_get_be16(position + 8), &record))
            return store->base.error_status;
        int status =
            visit(context, view_key(&state->view), state->view.pub.value, state->view.last_access);
        if (status != JOINERY_OK)
            return status;
        if (!lmdb_key_id_next(position))
            return JOINERY_OK;
        first = false;
    }
}

static uint64_t lmdb_value_cleanup(ValueState *base, int64_t now, uint32_t max_keys)
{
    LmdbValue *state = lmdb_value(base);
    if (state->ttl_millis <= 0 || lmdb_failed(&state->lmdb))
        return 0;
    LmdbStore *store = state->lmdb.store;
    uint64_t dropped = 0;
    uint32_t examined = 0;
    bool wrapped = false;
    uint8_t position[LMDB_KEY_ID_SIZE];
    bool from_start = !state->cleanup_started;
    if (!from_start) {
        memcpy(position, state->cleanup_position, sizeof position);
        from_start = !lmdb_key_id_next(position);
    }
    uint64_t keys = state->keys; /* each key at most once a call */
    while (examined < max_keys && examined < keys) {
        MDB_cursor *cursor = lmdb_state_cursor(&state->lmdb);
        if (!cursor)
            break;
        MDB_val record_key = {sizeof position, position}, record;
        int rc =
            mdb_cursor_get(cursor, &record_key, &record, from_start ? MDB_FIRST : MDB_SET_RANGE);
        if (rc == MDB_NOTFOUND) {
            if (wrapped)
                break;
            wrapped = true;
            from_start = true;
            continue;
        }
        if (rc != MDB_SUCCESS) {
            lmdb_fail(store, rc, "cursor_get (value cleanup)");
            break;
        }
        if (record_key.mv_size != LMDB_KEY_ID_SIZE || record.mv_size < VALUE_HEADER_SIZE) {
            lmdb_fail_corrupt(store, "a value record is malformed");
            break;
        }
        uint8_t id[LMDB_KEY_ID_SIZE];
        memcpy(id, record_key.mv_data, sizeof id);
        examined++;
        if (state_is_expired(state->ttl_millis, lmdb_get_i64(record.mv_data), now)) {
            if (record_delete(state, id, record.mv_size) != JOINERY_OK)
                break;
            state->keys--;
            state->expired++;
            dropped++;
        }
        memcpy(state->cleanup_position, id, sizeof id);
        state->cleanup_started = true;
        memcpy(position, id, sizeof position);
        from_start = !lmdb_key_id_next(position);
        if (from_start) {
            if (wrapped)
                break;
            wrapped = true;
        }
    }
    return dropped;
}

static StateCounters lmdb_value_counters(const ValueState *base)
{
    const LmdbValue *state = (const LmdbValue *)base;
    StateCounters counters;
    counters.bytes = state->lmdb.bytes;
    counters.keys = state->keys;
    counters.entries = state->keys;
    counters.expired = state->expired;
    return counters;
}

static void lmdb_value_destroy(ValueState *base)
{
    LmdbValue *state = lmdb_value(base);
    lmdb_state_close(&state->lmdb);
    free(state->view.bytes);
    free(state);
}

static const ValueStateOps LMDB_VALUE_OPS = {
    .destroy = lmdb_value_destroy,
    .find = lmdb_value_find,
    .insert = lmdb_value_insert,
    .set = lmdb_value_set,
    .remove = lmdb_value_remove,
    .scan = lmdb_value_scan,
    .cleanup = lmdb_value_cleanup,
    .counters = lmdb_value_counters,
};

ValueState *state_lmdb_create_value(StateStore *base, int64_t ttl_millis)
{
    LmdbStore *store = lmdb_store(base);
    if (base->failed)
        return NULL;
    LmdbValue *state = calloc(1, sizeof *state);
    if (!state) {
        lmdb_fail_memory(store);
        return NULL;
    }
    state->base.ops = &LMDB_VALUE_OPS;
    state->base.store = base;
    state->ttl_millis = ttl_millis > 0 ? ttl_millis : 0;
    if (!lmdb_state_open(store, &state->lmdb, 'v', state)) {
        free(state);
        return NULL;
    }
    return &state->base;
}

LmdbState *state_lmdb_value_lmdb(ValueState *state)
{
    return &((LmdbValue *)state)->lmdb;
}
