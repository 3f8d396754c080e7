/*
 * state.h - keyed state for stateful operators (joins, aggregates).
 *
 * Two shapes of state, both keyed by a canonical Row (row.h) whose bytes are
 * the key, exactly the bytes an LMDB backend would store:
 *
 *   MultisetState: key row -> vector of entries {row, count,
 *       association_count, last_access}. A join side keeps its records here
 *       (rows with duplicates are stored once with a count; outer sides keep
 *       how many rows of the other side each record matches). Aggregates keep
 *       per-group value counts here (DISTINCT, MIN/MAX with retraction).
 *       A key may have several parts, each such a vector: a MultiJoin keeps
 *       every input's rows under one common key.
 *   ValueState: key row -> one value row (an aggregate's accumulators).
 *
 * In-memory backend (state_memory.c): open-addressing hash tables with
 * linear probing and backward-shift deletion (no tombstones), keyed by
 * row_content_hash and compared bytewise. A multiset key lives in one block
 * with its key row and room for one entry (the table's slots are {hash,
 * block} pairs); entry rows, vectors and indexes come from a per-state slab
 * allocator with size classes and free lists, so stored rows cost no malloc
 * and memory freed by deletes is reused (and returned once a size class
 * empties). A key's entries sit in a compact vector; beyond a few entries
 * the vector gets its own small hash index, so finding a row inside a key
 * is O(1). Lookups never allocate.
 *
 * Pointer validity: a MultisetKey * stays valid until its key is removed
 * (remove_key, a find that expires the whole key, cleanup); a ValueEntry *
 * points into the table and stays valid until the next call that inserts or
 * removes a key of the same state. A MultisetEntry * stays valid until the
 * next add/remove of an entry of the same key. Entry rows themselves never
 * move while stored.
 *
 * TTL (processing time, ttl_millis 0 = forever): each entry has a
 * last_access time set on write (Flink's OnCreateAndWrite update type). An
 * entry with last_access + ttl <= now is expired: it is invisible and it is
 * dropped lazily when its key is looked up, and by the incremental
 * *_cleanup functions that operators call from their timer. Expired entries
 * are counted (state_counters.expired).
 *
 * Errors: functions that allocate return NULL / JOINERY_ERROR_NO_MEMORY on
 * exhaustion, leaving the state unchanged; nothing else fails.
 */
#ifndef JOINERY_STATE_STATE_H
#define JOINERY_STATE_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/base/diag.h"
#include "engine/base/row.h"

/* ---- configuration ---------------------------------------------------- */

typedef struct StateConfig {
    int64_t ttl_millis;  /* 0 = keep forever (table.exec.state.ttl) */
    const char *backend; /* "memory" (default; NULL means memory) or "lmdb" */
} StateConfig;

/* Fills the defaults: memory backend, no TTL. */
void state_config_init(StateConfig *config);
/*
 * Checks the configuration: negative TTL is JOINERY_ERROR_VALIDATE, "lmdb"
 * is JOINERY_ERROR_UNSUPPORTED for now, other names JOINERY_ERROR_VALIDATE.
 * Returns JOINERY_OK or the status with diag filled.
 */
int state_config_validate(const StateConfig *config, Diag *diag);

/* Figures for metrics (SHOW JOB METRICS, status line). */
typedef struct StateCounters {
    uint64_t bytes;   /* keys + values + table/vector overhead estimate */
    uint64_t keys;    /* distinct keys */
    uint64_t entries; /* entries (distinct rows; duplicates counted once) */
    uint64_t expired; /* entries dropped by TTL since creation */
} StateCounters;

/* True when an entry written at last_access has expired at `now`. */
static inline bool state_is_expired(int64_t ttl_millis, int64_t last_access, int64_t now)
{
    return ttl_millis > 0 && last_access <= now - ttl_millis;
}

/* ---- multiset state --------------------------------------------------- */

/*
 * One stored row of a key: 32 bytes. Counts are 32-bit as in Flink's join
 * state; the operator raises them with multiset_entry_add_count, which
 * refuses to pass MULTISET_COUNT_MAX.
 */
typedef struct MultisetEntry {
    Row *row;                  /* owned copy, kind +I */
    int64_t association_count; /* free for the operator (join: matches on the other side) */
    int64_t last_access;       /* processing time of the last write */
    uint32_t hash;             /* low half of row_content_hash(row) */
    int32_t count;             /* how many times the row is present (> 0) */
} MultisetEntry;

enum { MULTISET_COUNT_MAX = 2147483647 };

/*
 * A key of a multiset state: 32 bytes. A state may give each key several
 * parts (multiset_state_create_parts: a MultiJoin keeps one part per input
 * under the common key, so one lookup finds every input's rows); each part
 * is a MultisetKey with its own entries and TTL. Functions taking a
 * MultisetKey * work on one part; find / insert_key / remove_key /
 * release_key take and return part 0, which stands for the whole key.
 * Each part is followed in the key's block by room for one entry; after
 * the parts the block holds the key row (which the state keeps; callers
 * never need it: they hold the key row they looked up with).
 */
typedef struct MultisetKey {
    MultisetEntry *entries; /* entry_count entries, in no particular order */
    uint32_t entry_count;
    uint8_t capacity_log2; /* entries has room for 1 << capacity_log2 */
    uint8_t part;          /* which part of its key this is */
    uint16_t reserved;
    uint32_t *index;       /* hash index over entries ({entry + 1, hash} pairs, twice the
                              capacity of them), or NULL */
    int64_t oldest_access; /* lower bound of the entries' last_access */
} MultisetKey;

/* Bytes between consecutive parts of a key; parts per key at most. */
enum { MULTISET_PART_BYTES = 64, MULTISET_MAX_PARTS = 64 };

/*
 * Adds `delta` (> 0) to the entry's count. False, with the count unchanged,
 * when it would pass MULTISET_COUNT_MAX (the operator reports an error).
 */
static inline bool multiset_entry_add_count(MultisetEntry *entry, int64_t delta)
{
    if (delta > (int64_t)MULTISET_COUNT_MAX - entry->count)
        return false;
    entry->count += (int32_t)delta;
    return true;
}

typedef struct MultisetState MultisetState;

/* Creates an empty state (one part per key); NULL when memory is exhausted. */
MultisetState *multiset_state_create(int64_t ttl_millis);
/*
 * Creates an empty state whose keys have `part_count` parts (1 to
 * MULTISET_MAX_PARTS), part p with TTL ttl_millis[p] (0 = forever;
 * ttl_millis NULL: no TTL). NULL when memory is exhausted or part_count is
 * out of range.
 */
MultisetState *multiset_state_create_parts(uint32_t part_count, const int64_t *ttl_millis);
/* Part `part` of the key `key` (part 0, as find returns it). */
MultisetKey *multiset_key_part(MultisetKey *key, uint32_t part);
/* Frees the state and every key and row in it. NULL is allowed. */
void multiset_state_destroy(MultisetState *state);

/*
 * The key equal to `key` (hash = row_content_hash(key); part 0), or NULL.
 * With a TTL, expired entries of the key's parts are dropped first (now =
 * processing time); a key left with no entry in any part is removed and
 * NULL returned. A key found may have parts without entries.
 */
MultisetKey *multiset_state_find(MultisetState *state, const Row *key, uint64_t hash, int64_t now);
/* Like find, but inserts the key (copied, no entries) when absent; NULL on no memory. */
MultisetKey *multiset_state_insert_key(MultisetState *state, const Row *key, uint64_t hash,
                                       int64_t now);
/*
 * Prefetch hints for a coming find/insert_key of the key with `hash`: a
 * batch of lookups runs faster when each is announced a few rows ahead,
 * level by level (the slot first, the key block a little later, its entries
 * last; each level reads what the previous one brought in). `row_hash`
 * (ENTRIES level; 0 when none) is the hash of a row about to be looked up
 * in the key: its slot of the key's index is prefetched too. Hints never
 * fail, allocate or change the state.
 */
typedef enum MultisetPrefetch {
    MULTISET_PREFETCH_SLOT,    /* the table slot of the hash */
    MULTISET_PREFETCH_KEY,     /* the key block the slot points to */
    MULTISET_PREFETCH_ENTRIES, /* the key's entry vector (its end too) and first row */
} MultisetPrefetch;
void multiset_state_prefetch(const MultisetState *state, uint64_t hash, uint64_t row_hash,
                             MultisetPrefetch level);
/* Removes the key (part 0) with all its entries (frees their rows). */
void multiset_state_remove_key(MultisetState *state, MultisetKey *key);
/* Removes the key (part 0) when none of its parts has an entry left. */
void multiset_state_release_key(MultisetState *state, MultisetKey *key);

/* The entry of `key` whose row equals `row` (hash = row_content_hash(row)), or NULL. */
MultisetEntry *multiset_key_find_row(const MultisetKey *key, const Row *row, uint64_t hash);
/*
 * Adds an entry for `row` (copied, kind set to +I) with count 0,
 * association_count 0 and last_access `now`; the caller sets the counts.
 * The row must not be in the key yet. NULL when memory is exhausted or the
 * key part already holds 2^26 rows (its vector and index would pass 2 GiB).
 */
MultisetEntry *multiset_key_add_row(MultisetState *state, MultisetKey *key, const Row *row,
                                    uint64_t hash, int64_t now);
/*
 * Grouping a part's rows (a MultiJoin input's rows by its own join key,
 * within the common key): `hash` maps a row of the part to its group hash
 * (equal rows of a group must get equal hashes; `context` is passed
 * through). Parts with more than a few rows then keep a second index by
 * group hash, and a group scan visits only the rows whose group hash is
 * the one asked for; on small parts it visits every row. Either way the
 * caller still checks each row it gets (hashes collide). Set before the
 * first key is inserted (later calls are ignored).
 */
typedef uint32_t (*MultisetGroupHash)(const Row *row, const void *context);
void multiset_state_set_group_hash(MultisetState *state, uint32_t part, MultisetGroupHash hash,
                                   const void *context);

typedef struct MultisetGroupScan {
    const MultisetKey *key;
    const uint32_t *group; /* the part's group index, or NULL: scan every entry */
    uint32_t tag;
    uint32_t slots;
    uint32_t position; /* next entry (linear) or next index slot */
} MultisetGroupScan;

/*
 * Starts a scan of part `key`'s rows with group hash `group_hash` (a
 * superset of them without a group index). The part must not gain or lose
 * entries while scanned; counts may change.
 */
void multiset_key_group_scan_begin(const MultisetState *state, const MultisetKey *key,
                                   uint32_t group_hash, MultisetGroupScan *scan);
/* The next candidate entry, or NULL at the end. */
MultisetEntry *multiset_key_group_scan_next(MultisetGroupScan *scan);

/* Removes entry `entry` (a pointer into key->entries) and frees its row; moves the last entry. */
void multiset_key_remove_entry(MultisetState *state, MultisetKey *key, MultisetEntry *entry);
/* Records a write of the entry at `now` (refreshes its TTL). */
static inline void multiset_entry_touch(MultisetEntry *entry, int64_t now)
{
    entry->last_access = now;
}

/*
 * Incremental TTL cleanup: examines up to `max_keys` table slots from where
 * the previous call stopped, dropping expired entries and keys left empty.
 * Returns the number of entries dropped. No-op without TTL.
 */
uint64_t multiset_state_cleanup(MultisetState *state, int64_t now, uint32_t max_keys);
/* Current figures (O(1)). */
StateCounters multiset_state_counters(const MultisetState *state);
/*
 * Figures of one part: its keys (keys where it has entries), entries and
 * expired entries exactly; bytes are its rows, vectors and indexes plus a
 * share of what the parts hold in common (table, key blocks) in proportion
 * to its keys, so the parts' bytes add up to the state's. O(parts).
 */
StateCounters multiset_state_part_counters(const MultisetState *state, uint32_t part);

/* ---- value state ------------------------------------------------------ */

typedef struct ValueEntry {
    Row *key;                /* owned copy; NULL marks an empty table slot */
    uint64_t hash;           /* row_content_hash(key) */
    Row *value;              /* owned; NULL until value_state_set */
    uint32_t value_capacity; /* bytes allocated for value */
    int64_t last_access;     /* processing time of the last write */
} ValueEntry;

typedef struct ValueState ValueState;

/* Creates an empty state; NULL when memory is exhausted. */
ValueState *value_state_create(int64_t ttl_millis);
/* Frees the state and every key and value. NULL is allowed. */
void value_state_destroy(ValueState *state);

/* The entry of `key`, or NULL (an expired entry is dropped and NULL returned). */
ValueEntry *value_state_find(ValueState *state, const Row *key, uint64_t hash, int64_t now);
/* Inserts `key` (absent) with no value yet; NULL when memory is exhausted. */
ValueEntry *value_state_insert(ValueState *state, const Row *key, uint64_t hash, int64_t now);
/*
 * Stores a copy of `value` (kind set to +I) in the entry and refreshes its
 * TTL. Reuses the old value's memory when it is large enough. `value` must
 * not point into the entry's current value. JOINERY_OK or
 * JOINERY_ERROR_NO_MEMORY (entry unchanged).
 */
int value_state_set(ValueState *state, ValueEntry *entry, const Row *value, int64_t now);
/* Removes the entry (frees key and value). */
void value_state_remove(ValueState *state, ValueEntry *entry);
/* Incremental TTL cleanup, as multiset_state_cleanup; returns entries dropped. */
uint64_t value_state_cleanup(ValueState *state, int64_t now, uint32_t max_keys);
/* Current figures (O(1)); entries == keys. */
StateCounters value_state_counters(const ValueState *state);

#endif
