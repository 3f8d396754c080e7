/*
 * state_lmdb_internal.h - what the LMDB backend's files share: the store
 * (one LMDB environment, its unit-of-work transaction, map growth), the
 * per-state part every LMDB state starts with (its DBI and cursor), error
 * handling, byte-order helpers for record keys, the collision-tolerant key
 * lookup, range walks that survive a split unit, and the scan buffers.
 * Nothing outside engine/state/state_lmdb*.c includes this header, except
 * tests/unit/check_state_backends.c for the test seams at the end.
 *
 * Record keys are big-endian so that LMDB's memcmp order is numeric order;
 * record values are in host order (the files never leave the machine and
 * are never reopened). Every state has one named DBI of its own.
 *
 * The rules every LMDB state follows:
 * - pointers LMDB returns (MDB_val) die on the next write in the unit and
 *   when the unit is split: they are copied out before anything else is
 *   done, and never handed to callers;
 * - before a write, lmdb_state_reserve is called (it may commit the unit's
 *   transaction and begin a new one when the map could fill: a split);
 *   after it, cursors and MDB_vals are fetched again;
 * - after a failure (lmdb_fail) every call fails fast: the store is failed.
 */
#ifndef JOINERY_STATE_LMDB_INTERNAL_H
#define JOINERY_STATE_LMDB_INTERNAL_H

#include <limits.h>
#include <lmdb.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "engine/state/state.h"

enum {
    LMDB_KEY_ID_SIZE = 10,         /* [key hash 8 BE][collision sequence 2 BE] */
    LMDB_MAX_RECORD_KEY = 32,      /* every record key of this backend is shorter */
    LMDB_SCAN_CHUNK = 32,          /* entries decoded per scan refill */
    LMDB_SCAN_CHUNK_BYTES = 65536, /* row bytes a refill stops adding entries after */
};

typedef struct LmdbState LmdbState;
typedef struct LmdbCopy LmdbCopy; /* a copy in flight (state_lmdb_checkpoint.c) */

/* The store: StateStore first (a StateStore * of this backend is an LmdbStore *). */
typedef struct LmdbStore {
    StateStore base;
    MDB_env *env;
    MDB_txn *txn;        /* the unit's write transaction, or NULL between units */
    uint64_t generation; /* bumped whenever a transaction begins or ends */
    size_t map_size;
    uint32_t page_size;
    uint64_t used_pages;    /* pages of the file in use when the transaction began */
    uint64_t unit_pages;    /* upper estimate of the pages the transaction has written */
    uint64_t key_hash_mask; /* test seam: key hashes are masked with it (~0) */
    uint64_t splits;        /* units split because the map could have filled */
    uint32_t next_dbi;      /* names of DBIs: a letter and this counter */
    LmdbState *states;      /* every open state, for commit */
    MDB_dbi *dead;          /* DBIs of destroyed states, dropped at the next unit */
    uint32_t dead_count, dead_capacity;
    bool created_directory;
    bool read_only;        /* an environment copy opened for a restore (state_lmdb_copy_open) */
    const char *adopt_dbi; /* read_only: the DBI the next state opened binds to */
    LmdbCopy *copy;        /* the last copy started (its threads joined by lmdb_copy_wait_ended) */
    int64_t copy_decided;  /* the checkpoint whose copy was decided (started or not) */
    int64_t copy_started;  /* the checkpoint whose copy runs or ran */
    bool copy_disabled;    /* a copy failed: checkpoints walk the states from then on */
    unsigned copy_delay_millis; /* test seam: the copy waits this long before it begins */
    bool files_known;           /* the inodes below are those of this store's files */
    uint64_t data_device, data_inode, lock_device, lock_inode;
    char directory[PATH_MAX];
} LmdbStore;

/* What every LMDB state keeps of its own (inside its state struct). */
struct LmdbState {
    LmdbStore *store;
    MDB_dbi dbi;
    MDB_cursor *cursor; /* valid while cursor_generation == store->generation */
    uint64_t cursor_generation;
    uint64_t bytes;                          /* what its records hold (lmdb_record_bytes), live */
    bool touched;                            /* used in the current unit */
    bool changed_since_copy;                 /* used since the last copy's commit */
    char name[16];                           /* the DBI's name */
    void *owner;                             /* the state struct, for the hooks */
    void (*before_commit)(LmdbState *state); /* NULL: nothing to write back */
    void (*after_commit)(LmdbState *state);  /* NULL: no per-unit memory */
    LmdbState *prev, *next;
};

static inline LmdbStore *lmdb_store(StateStore *store)
{
    return (LmdbStore *)store;
}

/*
 * Opens a fresh DBI for a state (kind: a letter naming the shape) in the
 * current unit and links the state into the store. False when the store
 * failed (the error is set).
 */
bool lmdb_state_open(LmdbStore *store, LmdbState *state, char kind, void *owner);
/* Unlinks the state; its DBI is dropped at the beginning of the next unit. */
void lmdb_state_close(LmdbState *state);

/* The state's cursor in the current unit (begun when needed); NULL when the store failed. */
MDB_cursor *lmdb_state_cursor(LmdbState *state);
/* The unit's transaction (begun when needed); NULL when the store failed. */
MDB_txn *lmdb_state_txn(LmdbState *state);
/*
 * Announces that the caller is about to write up to `pages` pages: may
 * split the unit (commit, grow the map, begin again) so that the map
 * cannot fill. Cursors and MDB_vals fetched before are invalid after it.
 * False when the store failed.
 */
bool lmdb_state_reserve(LmdbState *state, uint64_t pages);
/*
 * Deletes the record `record_key` of the state's DBI, which must be there
 * (reserving the pages first; `what` names the call in the error).
 * JOINERY_OK or the failure (a missing record fails the store as corrupt).
 */
int lmdb_state_delete(LmdbState *state, const void *record_key, size_t key_size, const char *what);
/* An upper estimate of the pages a put of a record of these sizes writes. */
uint64_t lmdb_put_pages(const LmdbStore *store, size_t key_size, size_t data_size);
enum { LMDB_DELETE_PAGES = 2 };

/*
 * The bytes a record of these sizes holds in the file, as a state's
 * figures count them (StateCounters.bytes): its key and value, LMDB's
 * 8-byte leaf node header, the node padded to an even size, and the node's
 * 2-byte slot in its page's index. Each state adds this when it writes a
 * record and subtracts it when it deletes one, so its bytes are exact at
 * all times. Not counted: the free room in pages, branch pages, a large
 * value's overflow pages beyond its size, and pages copied on write or
 * free in the file (the README says how much that is).
 */
static inline uint64_t lmdb_record_bytes(size_t key_size, size_t data_size)
{
    return ((8 + key_size + data_size + 1) & ~(uint64_t)1) + 2;
}

static inline bool lmdb_failed(const LmdbState *state)
{
    return state->store->base.failed;
}

/*
 * Fails the store after LMDB returned `rc` from `what`: the unit is lost
 * (its transaction aborted), the error is "LMDB <what>: <mdb_strerror>"
 * and every later call fails. Returns the status (JOINERY_ERROR_NO_MEMORY
 * for a full map, disk or memory, else JOINERY_ERROR_RUNTIME).
 */
int lmdb_fail(LmdbStore *store, int rc, const char *what);
/* Fails the store because memory ran out (as lmdb_fail). */
int lmdb_fail_memory(LmdbStore *store);
/* Fails the store because a record does not have the layout it must have. */
int lmdb_fail_corrupt(LmdbStore *store, const char *what);

/* The hash a key is stored under (the test seam may mask it). */
static inline uint64_t lmdb_key_hash(const LmdbStore *store, uint64_t hash)
{
    return hash & store->key_hash_mask;
}

/* The 32-bit row hash a multiset entry is stored under (masked likewise). */
static inline uint32_t lmdb_row_hash(const LmdbStore *store, uint64_t hash)
{
    return (uint32_t)(hash & store->key_hash_mask);
}

/* ---- byte order ---------------------------------------------------------- */

static inline void lmdb_put_be16(uint8_t *to, uint16_t value)
{
    to[0] = (uint8_t)(value >> 8);
    to[1] = (uint8_t)value;
}

static inline void lmdb_put_be32(uint8_t *to, uint32_t value)
{
    for (int i = 3; i >= 0; i--, value >>= 8)
        to[i] = (uint8_t)value;
}

static inline void lmdb_put_be64(uint8_t *to, uint64_t value)
{
    for (int i = 7; i >= 0; i--, value >>= 8)
        to[i] = (uint8_t)value;
}

static inline uint16_t lmdb_get_be16(const uint8_t *from)
{
    return (uint16_t)(from[0] << 8 | from[1]);
}

static inline uint32_t lmdb_get_be32(const uint8_t *from)
{
    return (uint32_t)from[0] << 24 | (uint32_t)from[1] << 16 | (uint32_t)from[2] << 8 | from[3];
}

static inline uint64_t lmdb_get_be64(const uint8_t *from)
{
    uint64_t value = 0;
    for (int i = 0; i < 8; i++)
        value = value << 8 | from[i];
    return value;
}

/* A time as an order-preserving unsigned key (the sign bit flipped). */
static inline uint64_t lmdb_time_key(int64_t time)
{
    return (uint64_t)time ^ (UINT64_C(1) << 63);
}

static inline int64_t lmdb_time_of_key(uint64_t key)
{
    return (int64_t)(key ^ (UINT64_C(1) << 63));
}

static inline void lmdb_key_id(uint8_t id[LMDB_KEY_ID_SIZE], uint64_t hash, uint16_t sequence)
{
    lmdb_put_be64(id, hash);
    lmdb_put_be16(id + 8, sequence);
}

/* The next key id in order (id + 1 as a big-endian number); false past the last. */
static inline bool lmdb_key_id_next(uint8_t id[LMDB_KEY_ID_SIZE])
{
    for (int i = LMDB_KEY_ID_SIZE - 1; i >= 0; i--)
        if (++id[i] != 0)
            return true;
    return false;
}

/* Host-order fields of record values (possibly unaligned). */
static inline int64_t lmdb_get_i64(const void *from)
{
    int64_t value;
    memcpy(&value, from, sizeof value);
    return value;
}

static inline uint32_t lmdb_get_u32(const void *from)
{
    uint32_t value;
    memcpy(&value, from, sizeof value);
    return value;
}

/* ---- rows in records ----------------------------------------------------- */

/* The size of the row stored at `bytes` (`available` bytes there), or 0 when it does not fit. */
static inline uint32_t lmdb_stored_row_size(const void *bytes, size_t available)
{
    if (available < sizeof(RowHeader))
        return 0;
    RowHeader header;
    memcpy(&header, bytes, sizeof header);
    if (header.size < sizeof(RowHeader) || header.size > available || header.size % 8 != 0 ||
        row_fixed_size(header.field_count) > header.size)
        return 0;
    return header.size;
}

/* True when the row stored at `bytes` has the content of `row` (the kind is ignored). */
static inline bool lmdb_row_matches(const void *bytes, size_t available, const Row *row)
{
    uint32_t size = lmdb_stored_row_size(bytes, available);
    if (size != row_size(row))
        return false;
    RowHeader header;
    memcpy(&header, bytes, sizeof header);
    return header.field_count == row->header.field_count &&
           memcmp((const char *)bytes + sizeof(RowHeader), (const char *)row + sizeof(RowHeader),
                  size - sizeof(RowHeader)) == 0;
}

/* Writes `row` at `to` (LMDB memory: maybe unaligned) with kind +I, as every stored row has. */
static inline void lmdb_write_row(void *to, const Row *row)
{
    memcpy(to, row, row_size(row));
    ((unsigned char *)to)[offsetof(RowHeader, kind)] = ROW_KIND_INSERT;
}

/* ---- keys: [hash][sequence] records, collisions resolved by the key row ---- */

/*
 * Says whether a collision sequence of `hash` is taken by a key that is
 * not (yet) in LMDB (the multiset's write-back cache); NULL: none is.
 */
typedef bool (*LmdbSequenceTaken)(void *context, uint64_t hash, uint16_t sequence);

/*
 * Looks up the key record of `key` under `hash` (already masked): records
 * [hash][sequence] whose value holds the key row at `row_offset`. A record
 * under [hash] whose key is longer than an id (an entry of a key whose
 * record is not written yet) takes its sequence. Returns 1 and *sequence,
 * *data when found, 0 when absent (then *free_sequence, when asked for,
 * is the smallest sequence neither in LMDB nor `taken`), or a negative
 * status when the store failed (also when 2^16 keys share the hash).
 */
int lmdb_find_key(LmdbState *state, uint64_t hash, const Row *key, size_t row_offset,
                  uint16_t *sequence, MDB_val *data, uint16_t *free_sequence,
                  LmdbSequenceTaken taken, void *context);

/* ---- range walks --------------------------------------------------------- */

/*
 * A walk over the records whose key starts with `prefix`, from `start` on,
 * that tolerates deleting the current record and the unit being split
 * between steps (it then seeks again from the last key it returned). Uses
 * the state's cursor: no other call on the state between steps.
 */
typedef struct LmdbRange {
    LmdbState *state;
    uint8_t prefix[LMDB_MAX_RECORD_KEY];
    uint8_t last[LMDB_MAX_RECORD_KEY];
    uint32_t prefix_size;
    uint32_t last_size;
    uint64_t generation; /* the store's when the cursor was last positioned */
    bool started;
    bool deleted; /* the current record was deleted */
    MDB_val key, data;
} LmdbRange;

/* `start` may be NULL (the prefix itself); start_size <= LMDB_MAX_RECORD_KEY. */
void lmdb_range_begin(LmdbRange *range, LmdbState *state, const void *prefix, uint32_t prefix_size,
                      const void *start, uint32_t start_size);
/* The next record: 1 (range->key, range->data valid until the next call), 0 at the end, -1 failed.
 */
int lmdb_range_next(LmdbRange *range);
/* Deletes the current record (may split the unit first). JOINERY_OK or the failure. */
int lmdb_range_delete(LmdbRange *range);

/* ---- scan buffers -------------------------------------------------------- */

/*
 * What a scan decodes one chunk into: up to LMDB_SCAN_CHUNK entries and
 * their rows copied out of LMDB. Buffers are kept per state (a free list)
 * so scans do not allocate each time.
 */
typedef struct LmdbScanBuffer {
    struct LmdbScanBuffer *next_free;
    struct LmdbScanBuffer *next_all;
    union {
        MultisetEntry multiset[LMDB_SCAN_CHUNK];
        SortedEntry sorted[LMDB_SCAN_CHUNK];
    } entries;
    uint32_t offsets[LMDB_SCAN_CHUNK]; /* of each entry's row in bytes */
    uint64_t *bytes;
    size_t capacity; /* of bytes */
    size_t used;
} LmdbScanBuffer;

typedef struct LmdbScanPool {
    LmdbScanBuffer *free;
    LmdbScanBuffer *all;
} LmdbScanPool;

/* A buffer from the pool (emptied); NULL when memory ran out. */
LmdbScanBuffer *lmdb_scan_buffer_take(LmdbScanPool *pool);
/* Returns a buffer to the pool. */
void lmdb_scan_buffer_give(LmdbScanPool *pool, LmdbScanBuffer *buffer);
/* Copies `size` row bytes into the buffer (kind +I): the offset, or SIZE_MAX without memory. */
size_t lmdb_scan_buffer_add_row(LmdbScanBuffer *buffer, const void *row, size_t size);
/* As lmdb_scan_buffer_add_row, the word `tag` right before the row's copy. */
size_t lmdb_scan_buffer_add_tagged_row(LmdbScanBuffer *buffer, uint64_t tag, const void *row,
                                       size_t size);
static inline const Row *lmdb_scan_buffer_row(const LmdbScanBuffer *buffer, size_t offset)
{
    return (const Row *)((const char *)buffer->bytes + offset);
}
/* Frees every buffer of the pool. */
void lmdb_scan_pool_free(LmdbScanPool *pool);

/* ---- the backend's states ------------------------------------------------ */

MultisetState *state_lmdb_create_multiset(StateStore *store, uint32_t part_count,
                                          const int64_t *ttl_millis);
ValueState *state_lmdb_create_value(StateStore *store, int64_t ttl_millis);
SortedState *state_lmdb_create_sorted(StateStore *store);
TimerQueue *state_lmdb_create_timer_queue(StateStore *store);

/* ---- checkpoints by environment copy (state_lmdb_checkpoint.c) ------------ */

/* Marks the state used in this unit (and since the last copy's commit). */
static inline void lmdb_state_touch(LmdbState *state)
{
    state->touched = true;
    state->changed_since_copy = true;
}
/*
 * The commit gate: a store must not commit while a copy's read
 * transaction has not begun (the copy would hold the later commit). Waits
 * for it (before a unit split's mdb_txn_commit).
 */
void lmdb_copy_wait_begun(LmdbStore *store);
/* True (and counted) when a copy's read transaction has not begun yet: the unit's commit
   is deferred (its transaction stays open into the next round). */
bool lmdb_copy_holds_commits(LmdbStore *store);
/* Waits until the copy in flight ended (before mdb_env_set_mapsize and close). */
void lmdb_copy_wait_ended(LmdbStore *store);
/* StateStoreOps.snapshot_reference / wait_copy of the LMDB store. */
int lmdb_store_snapshot_reference(StateStore *base, void *state, char shape, char dbi[16],
                                  char file[STATE_COPY_FILE_MAX], bool *reference);
void lmdb_store_wait_copy(StateStore *base);
/* Ends the unit's transaction for a copy: write-backs, commit; caches and handles stay. */
int lmdb_commit_for_copy(LmdbStore *store);
/* Each shape's LmdbState, from its state (shape 'm' 'v' 's' 't'). */
LmdbState *state_lmdb_multiset_lmdb(MultisetState *state);
LmdbState *state_lmdb_value_lmdb(ValueState *state);
LmdbState *state_lmdb_sorted_lmdb(SortedState *state);
LmdbState *state_lmdb_timers_lmdb(TimerQueue *queue);
/* Test seam: the store's copies wait `millis` before they begin (their read transaction). */
void state_lmdb_set_copy_delay(StateStore *store, unsigned millis);

/* ---- test seams (tests/unit/check_state_backends.c) ----------------------- */

/*
 * Masks every hash the store's states store keys and multiset rows under
 * (default ~0): a test sets e.g. 0x3 so that distinct key rows share their
 * 8-byte hashes, and rows of one key part their 32-bit hashes, and the
 * collision sequences are exercised. Set before creating states.
 */
void state_lmdb_set_key_hash_mask(StateStore *store, uint64_t mask);
/* The store's current map size in bytes, and how many units were split. */
size_t state_lmdb_map_size(const StateStore *store);
uint64_t state_lmdb_unit_splits(const StateStore *store);

#endif
