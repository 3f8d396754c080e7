/*
 * state.h - keyed state for stateful operators, behind backends.
 *
 * An operator keeps its state in state objects created from the StateStore
 * of the task (thread) that runs it. A store is one backend instance:
 *   hashmap - in-memory hash tables (state_hashmap_*.c), the default;
 *   lmdb    - one LMDB environment per task (state_lmdb_*.c): state may be
 *             larger than memory.
 * The shapes are the same on every backend:
 *
 *   MultisetState: key row -> per part, a multiset of rows {row, count,
 *       association_count, last_access}. A join side keeps its records here
 *       (a row with duplicates is stored once with a count; an outer side
 *       keeps how many rows of the other side each record matches); a
 *       MultiJoin keeps one part per input under the common key; aggregates
 *       keep per-group value counts (DISTINCT, MIN/MAX with retraction).
 *   ValueState: key row -> one value row (an aggregate's accumulators).
 *   SortedState: key row -> rows ordered by a timestamp {time, sequence,
 *       tag, row}: range scans by time and removal below a bound (interval
 *       joins, temporal joins, window buffers).
 *   TimerQueue: (timestamp, key row) pairs, deduplicated, taken in
 *       timestamp order (the timer service's event-time and processing-time
 *       timers).
 *
 * Keys and rows are canonical rows (row.h): their bytes compare with memcmp
 * and hash with row_content_hash, and they are the bytes every backend
 * stores. Stored rows have kind +I.
 *
 * Reading and writing: lookups return views (MultisetEntry, ValueEntry,
 * SortedEntry) that callers only read; every change goes through a function
 * of this header (so a backend can log, batch or persist it). A view
 * reflects the changes made through it. Validity:
 *   - a MultisetKey * (a key handle) is valid until its key is removed or
 *     the store commits;
 *   - an entry view is valid until the entry is removed, another entry of
 *     the same key part is added or removed, or the store commits; a view
 *     returned by a scan is valid until the scan's next call (LMDB refills
 *     its span of copies there) or the scan ends;
 *   - a ValueEntry * is valid until the next call on the same ValueState.
 * Callers never hold two views of one entry across a change made through
 * one of them (the other would be stale on a backend that copies).
 *
 * Units of work: a store groups the changes between two calls of
 * state_store_commit (the task loop commits after each batch, timer round
 * or mailbox message). LMDB runs one write transaction per unit; the
 * hashmap has nothing to do.
 *
 * TTL (processing time, ttl_millis 0 = forever; Flink's OnCreateAndWrite
 * and NeverReturnExpired): every write sets an entry's last_access to the
 * `now` passed. An entry with last_access + ttl <= now is expired: it is
 * invisible, dropped when its key is looked up, and by the incremental
 * *_cleanup functions operators call from a processing-time timer. Dropped
 * entries are counted (StateCounters.expired).
 *
 * Errors: functions that can fail return NULL or a JoineryStatus; the
 * store then describes the cause (state_store_error: out of memory, the
 * hashmap budget, an LMDB failure) and the state is unchanged. Nothing
 * fails on well-formed calls otherwise.
 */
#ifndef JOINERY_STATE_STATE_H
#define JOINERY_STATE_STATE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/base/byte_stream.h"
#include "engine/base/diag.h"
#include "engine/base/row.h"

/* ---- backends and stores ---------------------------------------------- */

typedef enum StateBackendKind {
    STATE_BACKEND_HASHMAP = 0,
    STATE_BACKEND_LMDB = 1,
} StateBackendKind;

enum { STATE_BACKEND_COUNT = 2 };

/*
 * The backend named by 'state.backend.type': "hashmap" and "memory" are the
 * hashmap, "lmdb" is LMDB and "rocksdb" (what Flink users write) runs on
 * LMDB too (*substituted set). False for other names.
 */
bool state_backend_parse(const char *name, StateBackendKind *kind, bool *substituted);
/* "hashmap" or "lmdb". */
const char *state_backend_name(StateBackendKind kind);

/*
 * A job-wide limit on the memory of hashmap state, shared by the job's
 * stores (threads): state that would grow past it fails with an error that
 * names the limit and the LMDB backend. used is changed atomically.
 */
typedef struct StateBudget {
    _Atomic uint64_t used; /* bytes the hashmap states hold */
    uint64_t limit;        /* 0 = none */
    char source[96];       /* where the limit comes from, for messages */
} StateBudget;

/*
 * Sets the budget's limit: `max_bytes` when positive (the option
 * 'state.backend.hashmap.max-bytes'), else the smallest of three quarters
 * of what the process may use as detected (cgroup memory limit, RLIMIT_AS,
 * RLIMIT_DATA: leaving room for everything that is not state) and half of
 * the physical memory (so a process without limits stops with an error, not
 * by the OOM killer); none only when nothing is known.
 */
void state_budget_init(StateBudget *budget, uint64_t max_bytes);

/*
 * The backend of jobs that do not set 'state.backend.type': the one named
 * by the environment variable JOINERY_STATE_BACKEND when it names one (so
 * a whole test run can use LMDB), else the hashmap.
 */
StateBackendKind state_backend_default(void);

typedef struct StateStoreConfig {
    StateBackendKind backend;
    /* LMDB: the folder of this store's environment, created if missing (its
       parent must exist), or NULL for a new temporary folder; the store's
       files (and a folder it created) are removed on close */
    const char *directory;
    StateBudget *budget; /* hashmap: the job's budget; NULL = unlimited */
} StateStoreConfig;

typedef struct StateStore StateStore;

/* Opens a store. JOINERY_OK, or an error with diag filled (e.g. LMDB cannot open its folder). */
int state_store_open(const StateStoreConfig *config, StateStore **store, Diag *diag);
/*
 * Ends the current unit of work: LMDB commits its write transaction (and
 * grows its map ahead of need). JOINERY_OK or an error with diag filled;
 * after an error the store's states are not to be used again.
 */
int state_store_commit(StateStore *store, Diag *diag);
/* The store's backend. */
StateBackendKind state_store_backend(const StateStore *store);
/* Why the last failing call on the store's states failed ("" when none did). */
const char *state_store_error(const StateStore *store);
/*
 * The status that failure stands for: JOINERY_ERROR_NO_MEMORY when state
 * could not grow (memory, the hashmap budget, the disk), else
 * JOINERY_ERROR_RUNTIME; JOINERY_OK when nothing failed.
 */
int state_store_error_status(const StateStore *store);
/*
 * True once a call failed in a way that leaves the store unusable (LMDB: the
 * unit of work is lost). A find that returns NULL on such a store failed;
 * on a store that is not failed, NULL means absent. The hashmap is never
 * failed: its calls fail one at a time through their results.
 */
bool state_store_failed(const StateStore *store);
/*
 * Closes the store: commits nothing (call state_store_commit first), frees
 * it and removes its files. Every state created from it must be destroyed
 * before. NULL is a no-op.
 */
void state_store_close(StateStore *store);

/* Figures for metrics (SHOW JOB METRICS, status line). */
typedef struct StateCounters {
    /* hashmap: the memory the state holds; LMDB: what its records hold (keys, values and
       LMDB's per-record overhead), exact as records are written and deleted; the LMDB
       file is larger (engine/state/README.md says how much) */
    uint64_t bytes;
    uint64_t keys;    /* distinct keys */
    uint64_t entries; /* entries (distinct rows; duplicates counted once) */
    uint64_t expired; /* entries dropped by TTL since creation */
} StateCounters;

/* True when an entry written at last_access has expired at `now`. */
static inline bool state_is_expired(int64_t ttl_millis, int64_t last_access, int64_t now)
{
    return ttl_millis > 0 && last_access <= now - ttl_millis;
}

/* ---- snapshots ---------------------------------------------------------- */

/*
 * Byte streams for snapshots of whole states. A snapshot is independent of
 * the backend that wrote it (state_snapshot.c): a state of any backend
 * restores it. write/read return JOINERY_OK or an error status; read
 * fails when fewer than `length` bytes remain.
 */
typedef ByteWriter StateWriter;
typedef ByteReader StateReader;

/* ---- checkpoints by environment copy (LMDB) ---------------------------- */

/*
 * On LMDB a checkpoint may copy the task's whole environment into one file
 * of the checkpoint (state_lmdb_checkpoint.c: mdb_env_copyfd2 with
 * compaction, off the task's thread) instead of walking every state: a
 * state snapshot taken between state_store_begin_snapshots(by_copy) and
 * state_store_end_snapshots then writes only a reference (the copy's file
 * and the state's DBI), when the state has not changed since the copy's
 * read transaction was fixed; else it is walked as always. Restoring a
 * reference (any backend: the copy is read through the LMDB backend and
 * its records streamed into the target state) needs the checkpoint's
 * folder (state_store_set_restore_folder). The hashmap never copies.
 */
enum { STATE_COPY_FILE_MAX = 48 };

typedef struct StateCopySink {
    /* On the task's thread, when the store starts its copy for checkpoint `id`: the path of
       the file to write (heap; the store frees it) with its name within the checkpoint in
       `file`, or NULL (no copy: the states are walked). */
    char *(*begin)(void *context, int64_t id, char file[STATE_COPY_FILE_MAX]);
    /* On the copy's thread once the file is written and synced (JOINERY_OK) or not (`error`
       says why): its size and XXH3-64. */
    void (*done)(void *context, int64_t id, const char *file, int status, uint64_t bytes,
                 uint64_t checksum, const char *error);
    void *context;
} StateCopySink;

/* Where the store's copies go (copied; NULL: none, states are always walked). */
void state_store_set_copy_sink(StateStore *store, const StateCopySink *sink);
/*
 * The snapshots taken until state_store_end_snapshots belong to checkpoint
 * `id`; by_copy: they may be references into its environment copy (a
 * checkpoint), else they are walked (a savepoint: portable).
 */
void state_store_begin_snapshots(StateStore *store, int64_t id, bool by_copy);
void state_store_end_snapshots(StateStore *store);
/* Waits until the store's copy in flight (if any) has ended and its sink was told. */
void state_store_wait_copy(StateStore *store);
/*
 * Resolves references in snapshots restored next against the checkpoint in
 * `folder` (whose copies the caller verified: size and checksum); NULL
 * ends that and closes the copies opened. JOINERY_OK or NO_MEMORY.
 */
int state_store_set_restore_folder(StateStore *store, const char *folder);
/* Snapshots taken as references and walked in copy mode, since the store opened. */
uint64_t state_store_copy_references(const StateStore *store);
uint64_t state_store_copy_walks(const StateStore *store);
/*
 * The commit gate (LMDB copies): unit splits it held until a copy's read
 * transaction began and the time it took; *deferred the units' commits it
 * deferred to the next round instead.
 */
uint64_t state_store_copy_gate_waits(const StateStore *store, uint64_t *nanos, uint64_t *deferred);

/* ---- multiset state --------------------------------------------------- */

/*
 * One stored row of a key part, as callers see it: 32 bytes. Counts are
 * 32-bit as in Flink's join state: multiset_count_can_add says whether a
 * count may grow.
 */
typedef struct MultisetEntry {
    const Row *row;            /* kind +I */
    int64_t association_count; /* free for the operator (join: matches on the other side) */
    int64_t last_access;       /* processing time of the last write */
    uint32_t hash;             /* low half of row_content_hash(row) */
    int32_t count;             /* how many times the row is present (> 0) */
} MultisetEntry;

enum { MULTISET_COUNT_MAX = 2147483647 };

/* True when `count` + `delta` (delta > 0) stays within MULTISET_COUNT_MAX. */
static inline bool multiset_count_can_add(int32_t count, int64_t delta)
{
    return delta <= (int64_t)MULTISET_COUNT_MAX - count;
}

/*
 * A key part, as callers see it (the backend's handle continues after it).
 * A state's keys have part_count parts (multiset_state_create_parts);
 * find / insert_key / remove_key / release_key take and return part 0,
 * which stands for the whole key, and multiset_key_part gives the others.
 */
typedef struct MultisetKey {
    uint32_t entry_count; /* entries of this part; read-only */
    uint8_t part;         /* which part of its key this is */
    uint8_t backend_byte; /* the backend's */
    uint16_t backend_short;
} MultisetKey;

enum { MULTISET_MAX_PARTS = 64 };

typedef struct MultisetState MultisetState;

/*
 * Grouping a part's rows (a MultiJoin input's rows by its own join key,
 * within the common key): `hash` maps a row of the part to its group hash
 * (equal rows of a group get equal hashes; `context` is passed through).
 * A group scan then visits only the rows with the group hash asked for, or
 * a superset of them; the caller still checks each row (hashes collide).
 */
typedef uint32_t (*MultisetGroupHash)(const Row *row, const void *context);

/* Prefetch levels, in the order an operator announces them for a row ahead. */
typedef enum MultisetPrefetch {
    MULTISET_PREFETCH_SLOT = 0,
    MULTISET_PREFETCH_KEY = 1,
    MULTISET_PREFETCH_ENTRIES = 2,
} MultisetPrefetch;

/*
 * A scan over the entries of one key part (multiset_scan_begin ..
 * multiset_scan_end). The part must not gain or lose entries while it is
 * scanned; counts may change (through the views returned). Entries come
 * in spans the backend fills; the fields are the backend's.
 *
 * Order, the same on every backend: a part's entries in the order they
 * were added, where removing an entry moves the part's last entry into its
 * place (swap-remove; TTL expiry removes the expired entries from the last
 * one down), so that output built from scans is identical byte for byte
 * whichever backend holds the state. The one exception is a group scan
 * (multiset_scan_begin_group) of a grouped part whose capacity has grown
 * past 8 rows (a part's capacity doubles when an add finds it full and
 * halves when a removal leaves it less than a quarter full, from 4 up; the
 * hashmap's vector): both backends then give exactly the rows of the
 * group, the hashmap in its group index's probe order, LMDB in the order
 * above - the same rows, possibly in another order. Up to 8, a group scan
 * gives every entry of the part in the order above on both. (With a TTL the
 * order also depends on when expired entries are dropped: the incremental
 * cleanup visits keys in each backend's own order, so a part whose expired
 * entries one backend drops in two steps, cleanup then a find, and the
 * other in one may keep its survivors in another order.)
 */
typedef struct MultisetScan {
    const MultisetEntry *span; /* entries ready to be returned */
    uint32_t span_count;
    uint32_t position; /* next in span */
    MultisetState *state;
    MultisetKey *key;
    uint32_t group_hash;
    bool grouped;         /* only rows of group_hash are asked for */
    uint64_t backend[10]; /* the backend's cursor */
} MultisetScan;

/*
 * Visits one key of a state (multiset_state_scan_keys): its key row (valid
 * during the call) and its handle (part 0). Returns JOINERY_OK to go on,
 * anything else to stop the walk with that status.
 */
typedef int (*MultisetKeyVisit)(void *context, const Row *key, MultisetKey *handle);

typedef struct MultisetStateOps MultisetStateOps;

/* What every backend's multiset state starts with. */
struct MultisetState {
    const MultisetStateOps *ops;
    StateStore *store;
    uint32_t part_count;
};

/*
 * Creates an empty state whose keys have `part_count` parts (1 to
 * MULTISET_MAX_PARTS), part p with TTL ttl_millis[p] (0 = forever;
 * ttl_millis NULL: no TTL). NULL when it cannot be created (the store says
 * why) or part_count is out of range.
 */
MultisetState *multiset_state_create_parts(StateStore *store, uint32_t part_count,
                                           const int64_t *ttl_millis);
/* A state of one part. */
MultisetState *multiset_state_create(StateStore *store, int64_t ttl_millis);

/*
 * The backend interface: every function of the multiset API below, in the
 * same order. A backend fills one of these; scan_refill is called when the
 * span is used up, and returns the next entry (setting a new span) or NULL.
 */
struct MultisetStateOps {
    void (*destroy)(MultisetState *state);
    void (*set_group_hash)(MultisetState *state, uint32_t part, MultisetGroupHash hash,
                           const void *context);
    MultisetKey *(*find)(MultisetState *state, const Row *key, uint64_t hash, int64_t now);
    MultisetKey *(*insert_key)(MultisetState *state, const Row *key, uint64_t hash, int64_t now);
    MultisetKey *(*key_part)(MultisetState *state, MultisetKey *key, uint32_t part);
    int (*remove_key)(MultisetState *state, MultisetKey *key);
    int (*release_key)(MultisetState *state, MultisetKey *key);
    const MultisetEntry *(*find_row)(MultisetState *state, MultisetKey *key, const Row *row,
                                     uint64_t hash);
    const MultisetEntry *(*add_row)(MultisetState *state, MultisetKey *key, const Row *row,
                                    uint64_t hash, int32_t count, int64_t association_count,
                                    int64_t now);
    int (*update)(MultisetState *state, MultisetKey *key, const MultisetEntry *entry, int32_t count,
                  int64_t association_count, int64_t now);
    int (*remove_entry)(MultisetState *state, MultisetKey *key, const MultisetEntry *entry);
    void (*scan_begin)(MultisetState *state, MultisetKey *key, MultisetScan *scan);
    const MultisetEntry *(*scan_refill)(MultisetScan *scan);
    void (*scan_end)(MultisetScan *scan); /* NULL: nothing to release */
    int (*scan_keys)(MultisetState *state, MultisetKeyVisit visit, void *context);
    uint64_t (*cleanup)(MultisetState *state, int64_t now, uint32_t max_keys);
    StateCounters (*counters)(const MultisetState *state);
    StateCounters (*part_counters)(const MultisetState *state, uint32_t part);
    /* NULL: the backend has nothing to prefetch */
    void (*prefetch)(const MultisetState *state, uint64_t hash, uint64_t row_hash,
                     MultisetPrefetch level);
};

/* Frees the state and everything in it. NULL is a no-op. */
static inline void multiset_state_destroy(MultisetState *state)
{
    if (state)
        state->ops->destroy(state);
}

/*
 * Groups part `part`'s rows by `hash` (see MultisetGroupHash). Set before
 * the first key is inserted (later calls are ignored).
 */
static inline void multiset_state_set_group_hash(MultisetState *state, uint32_t part,
                                                 MultisetGroupHash hash, const void *context)
{
    state->ops->set_group_hash(state, part, hash, context);
}

/*
 * The key `key` (hash = row_content_hash(key)), part 0, or NULL when it is
 * absent. Expired entries of the key are dropped first (a key left empty
 * is removed: NULL). NULL also when the backend fails (then
 * state_store_failed is true).
 */
static inline MultisetKey *multiset_state_find(MultisetState *state, const Row *key, uint64_t hash,
                                               int64_t now)
{
    return state->ops->find(state, key, hash, now);
}

/* The key, inserted with no entries when absent; NULL on failure (the store says why). */
static inline MultisetKey *multiset_state_insert_key(MultisetState *state, const Row *key,
                                                     uint64_t hash, int64_t now)
{
    return state->ops->insert_key(state, key, hash, now);
}

/* Part `part` of the key `key` (part 0, as find returns it). */
static inline MultisetKey *multiset_key_part(MultisetState *state, MultisetKey *key, uint32_t part)
{
    return state->ops->key_part(state, key, part);
}

/* Removes the key (part 0) with every entry of every part. */
static inline int multiset_state_remove_key(MultisetState *state, MultisetKey *key)
{
    return state->ops->remove_key(state, key);
}

/* Removes the key (part 0) when none of its parts has an entry left. */
static inline int multiset_state_release_key(MultisetState *state, MultisetKey *key)
{
    return state->ops->release_key(state, key);
}

/*
 * The entry of part `key` whose row equals `row` (hash = row_content_hash(row)),
 * or NULL (absent, or the backend failed: state_store_failed).
 */
static inline const MultisetEntry *multiset_key_find_row(MultisetState *state, MultisetKey *key,
                                                         const Row *row, uint64_t hash)
{
    return state->ops->find_row(state, key, row, hash);
}

/*
 * Adds an entry for `row` (copied, kind set to +I) to part `key` with the
 * counts given (count > 0) and last_access `now`. The row must not be in
 * the part yet. NULL on failure, or when the part already holds 2^26 rows.
 */
static inline const MultisetEntry *multiset_key_add_row(MultisetState *state, MultisetKey *key,
                                                        const Row *row, uint64_t hash,
                                                        int32_t count, int64_t association_count,
                                                        int64_t now)
{
    return state->ops->add_row(state, key, row, hash, count, association_count, now);
}

/*
 * Sets the counts of `entry` (a view of part `key`; count > 0) and its
 * last_access to `now`. JOINERY_OK or the backend's failure.
 */
static inline int multiset_entry_update(MultisetState *state, MultisetKey *key,
                                        const MultisetEntry *entry, int32_t count,
                                        int64_t association_count, int64_t now)
{
    return state->ops->update(state, key, entry, count, association_count, now);
}

/* Removes `entry` from part `key` (the key stays, maybe empty: see release_key). */
static inline int multiset_key_remove_entry(MultisetState *state, MultisetKey *key,
                                            const MultisetEntry *entry)
{
    return state->ops->remove_entry(state, key, entry);
}

/* Starts a scan of every entry of part `key` (NULL: an empty scan). */
static inline void multiset_scan_begin(MultisetState *state, MultisetKey *key, MultisetScan *scan)
{
    scan->span = NULL;
    scan->span_count = 0;
    scan->position = 0;
    scan->state = state;
    scan->key = key;
    scan->grouped = false;
    scan->group_hash = 0;
    if (key)
        state->ops->scan_begin(state, key, scan);
}

/*
 * Starts a scan of the rows of part `key` whose group hash is `group_hash`
 * (a superset of them when the part is small or not grouped: every entry;
 * the order is MultisetScan's).
 */
static inline void multiset_scan_begin_group(MultisetState *state, MultisetKey *key,
                                             uint32_t group_hash, MultisetScan *scan)
{
    scan->span = NULL;
    scan->span_count = 0;
    scan->position = 0;
    scan->state = state;
    scan->key = key;
    scan->grouped = true;
    scan->group_hash = group_hash;
    if (key)
        state->ops->scan_begin(state, key, scan);
}

/* The next entry of the scan, or NULL at its end (or on a failure: state_store_failed). */
static inline const MultisetEntry *multiset_scan_next(MultisetScan *scan)
{
    if (scan->position < scan->span_count)
        return &scan->span[scan->position++];
    if (!scan->key)
        return NULL;
    return scan->state->ops->scan_refill(scan);
}

/* Ends a scan (releases what the backend held for it). */
static inline void multiset_scan_end(MultisetScan *scan)
{
    if (scan->key && scan->state->ops->scan_end)
        scan->state->ops->scan_end(scan);
    scan->key = NULL;
    scan->span_count = 0;
}

/*
 * Calls `visit` for every key of the state, in no particular order (expired
 * entries are not skipped). The visitor may scan and update entries but
 * must not insert or remove keys or entries. Returns JOINERY_OK, the
 * visitor's status when it stopped the walk, or the backend's failure.
 */
static inline int multiset_state_scan_keys(MultisetState *state, MultisetKeyVisit visit,
                                           void *context)
{
    return state->ops->scan_keys(state, visit, context);
}

/*
 * Incremental TTL cleanup: examines up to `max_keys` keys from where the
 * previous call stopped, dropping expired entries and keys left empty.
 * Returns the number of entries dropped. No-op without TTL.
 */
static inline uint64_t multiset_state_cleanup(MultisetState *state, int64_t now, uint32_t max_keys)
{
    return state->ops->cleanup(state, now, max_keys);
}

/* Current figures (cheap). */
static inline StateCounters multiset_state_counters(const MultisetState *state)
{
    return state->ops->counters(state);
}

/*
 * Figures of one part: its keys (keys where it has entries), entries and
 * expired entries exactly; bytes are its rows plus a share of what the
 * parts hold in common in proportion to its keys, so the parts' bytes add
 * up to the state's.
 */
static inline StateCounters multiset_state_part_counters(const MultisetState *state, uint32_t part)
{
    return state->ops->part_counters(state, part);
}

/*
 * A hint: the operator will look up key `hash` (and row `row_hash` in it)
 * soon; levels are announced in order a few rows ahead, so that the cache
 * misses of several rows overlap. No effect on what is stored.
 */
static inline void multiset_state_prefetch(const MultisetState *state, uint64_t hash,
                                           uint64_t row_hash, MultisetPrefetch level)
{
    if (state->ops->prefetch)
        state->ops->prefetch(state, hash, row_hash, level);
}

/*
 * Writes every key and entry (counts, last_access) of the state to
 * `writer`; restore adds them to an empty state of the same part count
 * (any backend). JOINERY_OK or the failing status (diag filled).
 */
int multiset_state_snapshot(MultisetState *state, const StateWriter *writer, Diag *diag);
int multiset_state_restore(MultisetState *state, const StateReader *reader, Diag *diag);

/* ---- value state ------------------------------------------------------ */

/* A key's value, as callers see it (the backend's record continues after it). */
typedef struct ValueEntry {
    const Row *value; /* kind +I; NULL until value_state_set */
} ValueEntry;

typedef struct ValueState ValueState;
typedef struct ValueStateOps ValueStateOps;

struct ValueState {
    const ValueStateOps *ops;
    StateStore *store;
};

struct ValueStateOps {
    void (*destroy)(ValueState *state);
    const ValueEntry *(*find)(ValueState *state, const Row *key, uint64_t hash, int64_t now);
    const ValueEntry *(*insert)(ValueState *state, const Row *key, uint64_t hash, int64_t now);
    int (*set)(ValueState *state, const ValueEntry *entry, const Row *value, int64_t now);
    int (*remove)(ValueState *state, const ValueEntry *entry);
    int (*scan)(ValueState *state,
                int (*visit)(void *context, const Row *key, const Row *value, int64_t last_access),
                void *context);
    uint64_t (*cleanup)(ValueState *state, int64_t now, uint32_t max_keys);
    StateCounters (*counters)(const ValueState *state);
};

/* Creates an empty state; NULL on failure (the store says why). */
ValueState *value_state_create(StateStore *store, int64_t ttl_millis);

/* Frees the state and every key and value. NULL is a no-op. */
static inline void value_state_destroy(ValueState *state)
{
    if (state)
        state->ops->destroy(state);
}

/* The entry of `key`, or NULL (an expired entry is dropped and NULL returned; NULL on failure). */
static inline const ValueEntry *value_state_find(ValueState *state, const Row *key, uint64_t hash,
                                                 int64_t now)
{
    return state->ops->find(state, key, hash, now);
}

/* Inserts `key` (absent) with no value yet; NULL on failure. */
static inline const ValueEntry *value_state_insert(ValueState *state, const Row *key, uint64_t hash,
                                                   int64_t now)
{
    return state->ops->insert(state, key, hash, now);
}

/*
 * Stores a copy of `value` (kind set to +I) as the entry's value and
 * refreshes its TTL. `value` may be the entry's current value.
 * JOINERY_OK or the failure (entry unchanged).
 */
static inline int value_state_set(ValueState *state, const ValueEntry *entry, const Row *value,
                                  int64_t now)
{
    return state->ops->set(state, entry, value, now);
}

/* Removes the entry (key and value). */
static inline int value_state_remove(ValueState *state, const ValueEntry *entry)
{
    return state->ops->remove(state, entry);
}

/* Incremental TTL cleanup, as multiset_state_cleanup; returns entries dropped. */
static inline uint64_t value_state_cleanup(ValueState *state, int64_t now, uint32_t max_keys)
{
    return state->ops->cleanup(state, now, max_keys);
}

/* Current figures (cheap); entries == keys. */
static inline StateCounters value_state_counters(const ValueState *state)
{
    return state->ops->counters(state);
}

/* As multiset_state_snapshot / restore. */
int value_state_snapshot(ValueState *state, const StateWriter *writer, Diag *diag);
int value_state_restore(ValueState *state, const StateReader *reader, Diag *diag);

/* ---- sorted state ----------------------------------------------------- */

/*
 * A row of a key ordered by time, as callers see it. Entries of a key are
 * ordered by (time, sequence); sequence numbers are given by the state in
 * insertion order, so rows of one time keep their arrival order.
 */
typedef struct SortedEntry {
    const Row *row; /* kind +I */
    int64_t time;
    uint64_t sequence;
    int64_t tag; /* free for the operator (e.g. an outer row's match count) */
} SortedEntry;

typedef struct SortedState SortedState;
typedef struct SortedStateOps SortedStateOps;

struct SortedState {
    const SortedStateOps *ops;
    StateStore *store;
};

/* A scan over one key's entries with time in [from, to], in order. */
typedef struct SortedScan {
    const SortedEntry *span;
    uint32_t span_count;
    uint32_t position;
    SortedState *state;
    int64_t from, to;
    bool active;
    uint64_t backend[10];
} SortedScan;

struct SortedStateOps {
    void (*destroy)(SortedState *state);
    int (*add)(SortedState *state, const Row *key, uint64_t hash, int64_t time, const Row *row,
               int64_t tag);
    void (*scan_begin)(SortedState *state, const Row *key, uint64_t hash, SortedScan *scan);
    const SortedEntry *(*scan_refill)(SortedScan *scan);
    void (*scan_end)(SortedScan *scan);
    int (*set_tag)(SortedScan *scan, const SortedEntry *entry, int64_t tag);
    int (*remove_range)(SortedState *state, const Row *key, uint64_t hash, int64_t from, int64_t to,
                        uint64_t *removed);
    int (*scan_keys)(SortedState *state,
                     int (*visit)(void *context, const Row *key, uint64_t entry_count),
                     void *context);
    StateCounters (*counters)(const SortedState *state);
};

/* Creates an empty state; NULL on failure (the store says why). */
SortedState *sorted_state_create(StateStore *store);

static inline void sorted_state_destroy(SortedState *state)
{
    if (state)
        state->ops->destroy(state);
}

/* Adds `row` (copied) at `time` under `key`, after the key's other rows of that time. */
static inline int sorted_state_add(SortedState *state, const Row *key, uint64_t hash, int64_t time,
                                   const Row *row, int64_t tag)
{
    return state->ops->add(state, key, hash, time, row, tag);
}

/*
 * Starts a scan of `key`'s entries with from <= time <= to, in (time,
 * sequence) order. While it runs, entries may change tags (sorted_scan_set_tag)
 * but none may be added or removed under the key.
 */
static inline void sorted_scan_begin(SortedState *state, const Row *key, uint64_t hash,
                                     int64_t from, int64_t to, SortedScan *scan)
{
    scan->span = NULL;
    scan->span_count = 0;
    scan->position = 0;
    scan->state = state;
    scan->from = from;
    scan->to = to;
    scan->active = from <= to;
    if (scan->active)
        state->ops->scan_begin(state, key, hash, scan);
}

static inline const SortedEntry *sorted_scan_next(SortedScan *scan)
{
    if (scan->position < scan->span_count)
        return &scan->span[scan->position++];
    if (!scan->active)
        return NULL;
    return scan->state->ops->scan_refill(scan);
}

static inline void sorted_scan_end(SortedScan *scan)
{
    if (scan->active && scan->state->ops->scan_end)
        scan->state->ops->scan_end(scan);
    scan->active = false;
    scan->span_count = 0;
}

/* Sets the tag of `entry`, the scan's current entry. */
static inline int sorted_scan_set_tag(SortedScan *scan, const SortedEntry *entry, int64_t tag)
{
    return scan->state->ops->set_tag(scan, entry, tag);
}

/*
 * Removes `key`'s entries with from <= time <= to (the key goes when it has
 * none left); *removed (may be NULL) gets how many.
 */
static inline int sorted_state_remove_range(SortedState *state, const Row *key, uint64_t hash,
                                            int64_t from, int64_t to, uint64_t *removed)
{
    return state->ops->remove_range(state, key, hash, from, to, removed);
}

static inline StateCounters sorted_state_counters(const SortedState *state)
{
    return state->ops->counters(state);
}

int sorted_state_snapshot(SortedState *state, const StateWriter *writer, Diag *diag);
int sorted_state_restore(SortedState *state, const StateReader *reader, Diag *diag);

/* ---- timer queue ------------------------------------------------------ */

/*
 * Timers of one domain (event time or processing time) of one operator:
 * (timestamp, key row) pairs, each present at most once, taken in the
 * order (timestamp, row_content_hash(key), key row bytes) on every backend
 * (ties in this order: timer_key_order), so that timers of one timestamp
 * fire in the same sequence whichever backend holds them.
 */
typedef struct TimerQueue TimerQueue;
typedef struct TimerQueueOps TimerQueueOps;

/*
 * How the keys of two timers of one timestamp order (hash: their
 * row_content_hash): by hash, then by the key rows' bytes after their
 * headers (memcmp; of two rows where one is a prefix of the other, the
 * shorter first; then by field count). Negative, 0 (equal keys) or positive.
 */
int timer_key_order(const Row *a, uint64_t a_hash, const Row *b, uint64_t b_hash);

struct TimerQueue {
    const TimerQueueOps *ops;
    StateStore *store;
};

struct TimerQueueOps {
    void (*destroy)(TimerQueue *queue);
    int (*add)(TimerQueue *queue, int64_t time, const Row *key, bool *added);
    int (*remove)(TimerQueue *queue, int64_t time, const Row *key, bool *removed);
    /* the earliest timer: 1 and *time / *key (valid until the next call), or 0 when empty */
    int (*peek)(TimerQueue *queue, int64_t *time, const Row **key);
    int (*pop)(TimerQueue *queue);
    uint64_t (*count)(const TimerQueue *queue);
    int (*scan)(TimerQueue *queue, int (*visit)(void *context, int64_t time, const Row *key),
                void *context);
    uint64_t (*bytes)(const TimerQueue *queue);
};

/* Creates an empty queue; NULL on failure (the store says why). */
TimerQueue *timer_queue_create(StateStore *store);

static inline void timer_queue_destroy(TimerQueue *queue)
{
    if (queue)
        queue->ops->destroy(queue);
}

/* Adds the timer unless present (*added says which; may be NULL). */
static inline int timer_queue_add(TimerQueue *queue, int64_t time, const Row *key, bool *added)
{
    return queue->ops->add(queue, time, key, added);
}

/* Removes the timer if present (*removed says whether it was; may be NULL). */
static inline int timer_queue_remove(TimerQueue *queue, int64_t time, const Row *key, bool *removed)
{
    return queue->ops->remove(queue, time, key, removed);
}

/*
 * The earliest timer: returns 1 with *time and *key (valid until the next
 * call on the queue), 0 when the queue is empty, or a negative status.
 */
static inline int timer_queue_peek(TimerQueue *queue, int64_t *time, const Row **key)
{
    return queue->ops->peek(queue, time, key);
}

/* Removes the earliest timer (the queue must not be empty). */
static inline int timer_queue_pop(TimerQueue *queue)
{
    return queue->ops->pop(queue);
}

static inline uint64_t timer_queue_count(const TimerQueue *queue)
{
    return queue->ops->count(queue);
}

int timer_queue_snapshot(TimerQueue *queue, const StateWriter *writer, Diag *diag);
int timer_queue_restore(TimerQueue *queue, const StateReader *reader, Diag *diag);

/* ---- the store interface (backends) ------------------------------------ */

typedef struct StateStoreOps {
    int (*commit)(StateStore *store, Diag *diag);
    void (*close)(StateStore *store);
    MultisetState *(*create_multiset)(StateStore *store, uint32_t part_count,
                                      const int64_t *ttl_millis);
    ValueState *(*create_value)(StateStore *store, int64_t ttl_millis);
    SortedState *(*create_sorted)(StateStore *store);
    TimerQueue *(*create_timer_queue)(StateStore *store);
    /* Optional (checkpoints by environment copy): decides whether `state` (of `shape`,
       'm' 'v' 's' 't') is written as a reference into the current checkpoint's copy (may
       start the copy): *reference true with its DBI name and the copy's file, false to walk
       it; JOINERY_OK or the store's failure. */
    int (*snapshot_reference)(StateStore *store, void *state, char shape, char dbi[16],
                              char file[STATE_COPY_FILE_MAX], bool *reference);
    void (*wait_copy)(StateStore *store); /* optional: waits for the copy in flight */
} StateStoreOps;

/* What every backend's store starts with. */
struct StateStore {
    const StateStoreOps *ops;
    StateBackendKind backend;
    StateBudget *budget;
    int error_status; /* state_store_error_status */
    bool failed;      /* state_store_failed */
    char error[320];  /* state_store_error */
    /* checkpoints by environment copy (state_store_begin_snapshots and the others) */
    StateCopySink copy_sink;  /* begin NULL: none */
    int64_t snapshot_id;      /* the checkpoint being snapshotted, 0 between snapshots */
    bool snapshot_by_copy;    /* its states may be references */
    char *restore_folder;     /* where references are resolved (restore), or NULL */
    StateStore *restore_copy; /* the copy opened for them (LMDB, read-only) */
    char restore_copy_file[STATE_COPY_FILE_MAX];
    _Atomic uint64_t copy_references, copy_walks;
    _Atomic uint64_t copy_gate_waits, copy_gate_nanos; /* unit splits held by a copy's gate */
    _Atomic uint64_t copy_deferred_commits;            /* commits a copy's gate deferred */
};

/* Records why a call failed, and the status it stands for (backends). */
void state_store_set_error(StateStore *store, int status, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* The backends' openers (state.c dispatches on StateStoreConfig.backend). */
int state_hashmap_store_open(const StateStoreConfig *config, StateStore **store, Diag *diag);
int state_lmdb_store_open(const StateStoreConfig *config, StateStore **store, Diag *diag);
/*
 * Opens an environment copy (one file, as a checkpoint holds it) read-only
 * as an LMDB store whose states are created bound to existing DBIs
 * (state_lmdb_copy_adopt names the one the next state created binds to):
 * for walking them in a restore. Refuses a file shorter than its pages.
 */
int state_lmdb_copy_open(const char *path, StateStore **store, Diag *diag);
void state_lmdb_copy_adopt(StateStore *copy, const char *dbi);

#endif
