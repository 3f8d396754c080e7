/*
 * state_lmdb_timers.c - the LMDB backend's timer queue (see state.h): one
 * record per timer in the queue's DBI, in timestamp order.
 *
 *   [time 8 BE, sign bit flipped][masked row_content_hash(key) 8 BE][sequence 2 BE] -> [key row]
 *
 * The earliest timer is the DBI's first record; a timer is found (to
 * deduplicate or remove it) among the records with its [time][hash]
 * prefix by comparing key rows. Ties of one timestamp come in hash order,
 * and the keys of one [time][hash] (64-bit hashes that collide, or hashes
 * masked by the test seam) in timer_key_order of their rows: a timer added
 * where others share its prefix renumbers them all, in that order, from
 * sequence 0. So the order of the records is state.h's timer order
 * (timestamp, row_content_hash(key), key row bytes); under the test seam
 * it is (timestamp, masked hash, row_content_hash, key row bytes).
 *
 * Invariants: no two records of one [time][hash] hold equal key rows, and
 * their sequences increase in timer_key_order of their rows; count is the
 * number of records and lmdb.bytes their lmdb_record_bytes; peek's key is a copy (LMDB memory dies
 * on the next write) valid until the next call on the queue.
 */
#include "engine/state/state_lmdb_internal.h"

#include <stdlib.h>

enum {
    TIMER_HASH_OFFSET = 8,
    TIMER_SEQUENCE_OFFSET = 16,
    TIMER_KEY_SIZE = 18,
};

typedef struct LmdbTimers {
    TimerQueue base; /* first: a TimerQueue * is an LmdbTimers * */
    LmdbState lmdb;
    uint64_t count;
    uint64_t *key_copy; /* peek and scan: the key row handed out */
    size_t key_capacity;
} LmdbTimers;

static inline LmdbTimers *lmdb_timers(TimerQueue *queue)
{
    return (LmdbTimers *)queue;
}

/* Copies a stored key row into the queue's buffer; NULL (store failed) when malformed or no memory.
 */
static const Row *timers_copy_key(LmdbTimers *queue, const MDB_val *record)
{
    uint32_t size = lmdb_stored_row_size(record->mv_data, record->mv_size);
    if (size == 0) {
        lmdb_fail_corrupt(queue->lmdb.store, "a timer record is malformed");
        return NULL;
    }
    if (size > queue->key_capacity) {
        uint64_t *copy = realloc(queue->key_copy, size);
        if (!copy) {
            lmdb_fail_memory(queue->lmdb.store);
            return NULL;
        }
        queue->key_copy = copy;
        queue->key_capacity = size;
    }
    memcpy(queue->key_copy, record->mv_data, size);
    return (const Row *)queue->key_copy;
}

/*
 * Looks for timer (time, key) among its [time][hash] records: 1 found (the
 * range is on it), 0 absent (*members: how many records share the prefix),
 * -1 failed.
 */
static int timers_locate(LmdbTimers *queue, int64_t time, const Row *key, LmdbRange *range,
                         uint8_t record_key[TIMER_KEY_SIZE], uint32_t *members)
{
    lmdb_put_be64(record_key, lmdb_time_key(time));
    lmdb_put_be64(record_key + TIMER_HASH_OFFSET,
                  lmdb_key_hash(queue->lmdb.store, row_content_hash(key)));
    lmdb_range_begin(range, &queue->lmdb, record_key, TIMER_SEQUENCE_OFFSET, NULL, 0);
    uint32_t count = 0;
    int found;
    while ((found = lmdb_range_next(range)) == 1) {
        if (range->key.mv_size != TIMER_KEY_SIZE)
            continue;
        if (lmdb_row_matches(range->data.mv_data, range->data.mv_size, key))
            return 1;
        count++;
    }
    *members = count;
    return found;
}

/* A timer's key row in memory of its own, for sorting the records of one [time][hash]. */
typedef struct TimerMember {
    Row *key;
    uint64_t hash; /* row_content_hash(key), unmasked */
} TimerMember;

static int timer_member_order(const void *a, const void *b)
{
    const TimerMember *x = a, *y = b;
    return timer_key_order(x->key, x->hash, y->key, y->hash);
}

/* Writes record `record_key` holding `key`; JOINERY_OK or the failure. */
static int timers_put(LmdbTimers *queue, const uint8_t record_key[TIMER_KEY_SIZE], const Row *key)
{
    LmdbStore *store = queue->lmdb.store;
    if (!lmdb_state_reserve(&queue->lmdb, lmdb_put_pages(store, TIMER_KEY_SIZE, row_size(key))))
        return store->base.error_status;
    MDB_txn *txn = lmdb_state_txn(&queue->lmdb);
    if (!txn)
        return store->base.error_status;
    MDB_val lmdb_key = {TIMER_KEY_SIZE, (void *)record_key}, record = {row_size(key), NULL};
    int rc = mdb_put(txn, queue->lmdb.dbi, &lmdb_key, &record, MDB_RESERVE);
    if (rc != MDB_SUCCESS)
        return lmdb_fail(store, rc, "put (timer)");
    lmdb_write_row(record.mv_data, key);
    queue->lmdb.bytes += lmdb_record_bytes(TIMER_KEY_SIZE, row_size(key));
    return JOINERY_OK;
}

/*
 * Adds `key` to the `members` records of its [time][hash] (record_key's
 * prefix): they are read out, deleted and written again with `key` among
 * them, sequences 0.. in timer_key_order. Only keys whose (masked) hashes
 * collide get here. JOINERY_OK or the failure.
 */
static int timers_add_among(LmdbTimers *queue, uint8_t record_key[TIMER_KEY_SIZE], const Row *key,
                            uint32_t members)
{
    LmdbStore *store = queue->lmdb.store;
    if (members > UINT16_MAX) {
        state_store_set_error(&store->base, JOINERY_ERROR_RUNTIME,
                              "LMDB state: more than 65536 timer keys share a hash");
        return JOINERY_ERROR_RUNTIME;
    }
    TimerMember *all = calloc((size_t)members + 1, sizeof *all);
    if (!all)
        return lmdb_fail_memory(store);
    int status = JOINERY_OK;
    uint32_t count = 0;
    LmdbRange range;
    lmdb_range_begin(&range, &queue->lmdb, record_key, TIMER_SEQUENCE_OFFSET, NULL, 0);
    int found = 0;
    while (status == JOINERY_OK && (found = lmdb_range_next(&range)) == 1) {
        if (range.key.mv_size != TIMER_KEY_SIZE)
            continue;
        uint32_t size = lmdb_stored_row_size(range.data.mv_data, range.data.mv_size);
        if (size == 0 || count == members) {
            status = lmdb_fail_corrupt(store, "a timer record is malformed");
            break;
        }
        Row *copy = malloc(size);
        if (!copy) {
            status = lmdb_fail_memory(store);
            break;
        }
        memcpy(copy, range.data.mv_data, size);
        all[count].key = copy;
        all[count].hash = row_content_hash(copy);
        count++;
        uint64_t bytes = lmdb_record_bytes(range.key.mv_size, range.data.mv_size);
        status = lmdb_range_delete(&range);
        if (status == JOINERY_OK)
            queue->lmdb.bytes -= bytes;
    }
    if (status == JOINERY_OK && found < 0)
        status = store->base.error_status;
    if (status == JOINERY_OK) {
        all[count].key = (Row *)key; /* only read */
        all[count].hash = row_content_hash(key);
        count++;
        qsort(all, count, sizeof *all, timer_member_order);
        for (uint32_t i = 0; i < count && status == JOINERY_OK; i++) {
            lmdb_put_be16(record_key + TIMER_SEQUENCE_OFFSET, (uint16_t)i);
            status = timers_put(queue, record_key, all[i].key);
        }
    }
    for (uint32_t i = 0; i < count; i++)
        if (all[i].key != key)
            free(all[i].key);
    free(all);
    return status;
}

static int lmdb_timers_add(TimerQueue *base, int64_t time, const Row *key, bool *added)
{
    LmdbTimers *queue = lmdb_timers(base);
    LmdbStore *store = queue->lmdb.store;
    if (added)
        *added = false;
    if (lmdb_failed(&queue->lmdb))
        return store->base.error_status;
    uint8_t record_key[TIMER_KEY_SIZE];
    LmdbRange range;
    uint32_t members = 0;
    int found = timers_locate(queue, time, key, &range, record_key, &members);
    if (found < 0)
        return store->base.error_status;
    if (found == 1)
        return JOINERY_OK;
    int status;
    if (members == 0) {
        lmdb_put_be16(record_key + TIMER_SEQUENCE_OFFSET, 0);
        status = timers_put(queue, record_key, key);
    } else {
        status = timers_add_among(queue, record_key, key, members);
    }
    if (status != JOINERY_OK)
        return status;
    queue->count++;
    if (added)
        *added = true;
    return JOINERY_OK;
}

static int lmdb_timers_remove(TimerQueue *base, int64_t time, const Row *key, bool *removed)
{
    LmdbTimers *queue = lmdb_timers(base);
    LmdbStore *store = queue->lmdb.store;
    if (removed)
        *removed = false;
    if (lmdb_failed(&queue->lmdb))
        return store->base.error_status;
    uint8_t record_key[TIMER_KEY_SIZE];
    LmdbRange range;
    uint32_t members;
    int found = timers_locate(queue, time, key, &range, record_key, &members);
    if (found < 0)
        return store->base.error_status;
    if (found == 0)
        return JOINERY_OK;
    uint64_t bytes = lmdb_record_bytes(range.key.mv_size, range.data.mv_size);
    if (lmdb_range_delete(&range) != JOINERY_OK)
        return store->base.error_status;
    queue->lmdb.bytes -= bytes;
    queue->count--;
    if (removed)
        *removed = true;
    return JOINERY_OK;
}

static int lmdb_timers_peek(TimerQueue *base, int64_t *time, const Row **key)
{
    LmdbTimers *queue = lmdb_timers(base);
    LmdbStore *store = queue->lmdb.store;
    if (lmdb_failed(&queue->lmdb))
        return store->base.error_status;
    if (queue->count == 0)
        return 0;
    MDB_cursor *cursor = lmdb_state_cursor(&queue->lmdb);
    if (!cursor)
        return store->base.error_status;
    MDB_val record_key, record;
    int rc = mdb_cursor_get(cursor, &record_key, &record, MDB_FIRST);
    if (rc == MDB_NOTFOUND)
        return lmdb_fail_corrupt(store, "the timer count is wrong");
    if (rc != MDB_SUCCESS)
        return lmdb_fail(store, rc, "cursor_get (timer peek)");
    if (record_key.mv_size != TIMER_KEY_SIZE)
        return lmdb_fail_corrupt(store, "a timer record key is malformed");
    *time = lmdb_time_of_key(lmdb_get_be64(record_key.mv_data));
    *key = timers_copy_key(queue, &record);
    return *key ? 1 : store->base.error_status;
}

static int lmdb_timers_pop(TimerQueue *base)
{
    LmdbTimers *queue = lmdb_timers(base);
    LmdbStore *store = queue->lmdb.store;
    if (lmdb_failed(&queue->lmdb))
        return store->base.error_status;
    if (queue->count == 0)
        return JOINERY_OK;
    LmdbRange range;
    lmdb_range_begin(&range, &queue->lmdb, NULL, 0, NULL, 0);
    int found = lmdb_range_next(&range);
    if (found < 0)
        return store->base.error_status;
    if (found == 0)
        return lmdb_fail_corrupt(store, "the timer count is wrong");
    uint64_t bytes = lmdb_record_bytes(range.key.mv_size, range.data.mv_size);
    if (lmdb_range_delete(&range) != JOINERY_OK)
        return store->base.error_status;
    queue->lmdb.bytes -= bytes;
    queue->count--;
    return JOINERY_OK;
}

static uint64_t lmdb_timers_count(const TimerQueue *base)
{
    return ((const LmdbTimers *)base)->count;
}

static int lmdb_timers_scan(TimerQueue *base,
                            int (*visit)(void *context, int64_t time, const Row *key),
                            void *context)
{
    LmdbTimers *queue = lmdb_timers(base);
    LmdbStore *store = queue->lmdb.store;
    if (lmdb_failed(&queue->lmdb))
        return store->base.error_status;
    uint8_t position[TIMER_KEY_SIZE];
    bool first = true;
    for (;;) {
        MDB_cursor *cursor = lmdb_state_cursor(&queue->lmdb);
        if (!cursor)
            return store->base.error_status;
        MDB_val record_key = {sizeof position, position}, record;
        int rc = mdb_cursor_get(cursor, &record_key, &record, first ? MDB_FIRST : MDB_SET_RANGE);
        if (!first && rc == MDB_SUCCESS && record_key.mv_size == sizeof position &&
            memcmp(record_key.mv_data, position, sizeof position) == 0)
            rc = mdb_cursor_get(cursor, &record_key, &record, MDB_NEXT);
        if (rc == MDB_NOTFOUND)
            return JOINERY_OK;
        if (rc != MDB_SUCCESS)
            return lmdb_fail(store, rc, "cursor_get (timer scan)");
        if (record_key.mv_size != TIMER_KEY_SIZE)
            return lmdb_fail_corrupt(store, "a timer record key is malformed");
        memcpy(position, record_key.mv_data, sizeof position);
        int64_t time = lmdb_time_of_key(lmdb_get_be64(position));
        const Row *key = timers_copy_key(queue, &record);
        if (!key)
            return store->base.error_status;
        int status = visit(context, time, key);
        if (status != JOINERY_OK)
            return status;
        first = false;
    }
}

static uint64_t lmdb_timers_bytes(const TimerQueue *base)
{
    return ((const LmdbTimers *)base)->lmdb.bytes;
}

static void lmdb_timers_destroy(TimerQueue *base)
{
    LmdbTimers *queue = lmdb_timers(base);
    lmdb_state_close(&queue->lmdb);
    free(queue->key_copy);
    free(queue);
}

static const TimerQueueOps LMDB_TIMER_OPS = {
    .destroy = lmdb_timers_destroy,
    .add = lmdb_timers_add,
    .remove = lmdb_timers_remove,
    .peek = lmdb_timers_peek,
    .pop = lmdb_timers_pop,
    .count = lmdb_timers_count,
    .scan = lmdb_timers_scan,
    .bytes = lmdb_timers_bytes,
};

TimerQueue *state_lmdb_create_timer_queue(StateStore *base)
{
    LmdbStore *store = lmdb_store(base);
    if (base->failed)
        return NULL;
    LmdbTimers *queue = calloc(1, sizeof *queue);
    if (!queue) {
        lmdb_fail_memory(store);
        return NULL;
    }
    queue->base.ops = &LMDB_TIMER_OPS;
    queue->base.store = base;
    if (!lmdb_state_open(store, &queue->lmdb, 't', queue)) {
        free(queue);
        return NULL;
    }
    return &queue->base;
}

LmdbState *state_lmdb_timers_lmdb(TimerQueue *queue)
{
    return &((LmdbTimers *)queue)->lmdb;
}
