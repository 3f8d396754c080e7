/*
 * state_lmdb.c - the LMDB backend's store (see state.h): one LMDB
 * environment per StateStore, in its own folder, and what every LMDB state
 * shares (state_lmdb_internal.h): units of work, map growth, errors, key
 * lookup with collision sequences, range walks and scan buffers.
 *
 * One environment per store (per task thread): LMDB has one writer per
 * environment, so threads sharing one would serialise on it, and a
 * producer holding the write lock while blocked on a full mailbox would
 * deadlock its consumer. Flags: MDB_NOSYNC | MDB_NOMETASYNC (state is
 * rebuilt from checkpoints, never recovered from these files), MDB_NOTLS,
 * MDB_NORDAHEAD; not MDB_WRITEMAP, so the map stays read-only and clean
 * pages remain reclaimable under a cgroup memory limit.
 *
 * Folders: StateStoreConfig.directory NULL makes a fresh temporary folder
 * (mkdtemp under $TMPDIR or /tmp) removed on close; a given folder is
 * created when missing. Stale data.mdb / lock.mdb found there at open are
 * removed (they can only be left by a store that did not close: their
 * content is never reused). On close the store removes its two files (if
 * they are still the ones it created: same inode) and the folder if it
 * created it.
 *
 * Units of work: the first state call after a commit begins a write
 * transaction (lmdb_state_cursor / lmdb_state_txn / lmdb_state_reserve);
 * state_store_commit lets the states write back what they cache
 * (before_commit), commits, then lets the states free their per-unit
 * memory (after_commit). States count their own bytes as they write and
 * delete records (lmdb_record_bytes), so commit has no figures to take. The
 * states open no read transactions: every call runs in the unit's write
 * transaction, so counters never need one (the only reader is a
 * checkpoint's environment copy, state_lmdb_checkpoint.c, on threads of
 * its own; while one has not begun, lmdb_commit defers the unit's commit -
 * the commit gate - and a split waits; a remap waits for the copy's end).
 *
 * A store opened by state_lmdb_copy_open is an environment copy, read-only
 * (MDB_RDONLY transactions, no map growth, no drops): its states are bound
 * to the copy's DBIs by name, for a restore to walk them.
 *
 * Map growth: the map starts at 64 MiB; before a transaction begins it is
 * doubled while the file's used pages exceed half of it (set_mapsize is
 * only legal with no transaction open). A unit that writes a lot could
 * still fill the map: every write announces an upper estimate of the pages
 * it writes (lmdb_state_reserve), and when the used pages plus the unit's
 * estimate would pass three quarters of the map, or the estimate passes
 * LMDB_UNIT_MAX_PAGES (LMDB keeps the pages of its largest transaction
 * allocated), the unit is split - the transaction is committed, the map
 * grown, a new one begun. That is
 * invisible to callers (handles and views are the backend's own memory,
 * and no LMDB pointer or cursor is kept across a reserve); atomicity of a
 * unit is not needed because these files are never recovered from. If a
 * write still returns MDB_MAP_FULL, the unit is lost: the store fails.
 *
 * Invariants: txn != NULL only between the first call of a unit and its
 * commit (or a failure); generation changes whenever a transaction begins
 * or ends, so a state's cached cursor is used only in the transaction it
 * was opened in; once base.failed is set, txn is NULL and stays NULL.
 */
#define _POSIX_C_SOURCE 200809L
#include "engine/state/state_lmdb_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

enum {
    /*
     * Named DBIs per environment: one per state, so a task running a long join
     * chain needs thousands (a 1,000-table chain of binary joins: ~2,000). LMDB
     * sizes a few per-environment arrays by it (~100 bytes an entry, ~1.6 MiB
     * per task); opening a DBI scans the open ones, and a commit walks them.
     */
    LMDB_MAX_DBS = 16384,
    /*
     * A unit whose estimate passes this many pages (64 MiB) is split too:
     * LMDB keeps every page a transaction dirtied on a free list of its
     * own until the environment closes, so the largest transaction sets
     * the anonymous memory a store holds for good.
     */
    LMDB_UNIT_MAX_PAGES = 16384,
};

static const size_t LMDB_INITIAL_MAP = (size_t)64 << 20;

/* ---- errors ---------------------------------------------------------------- */

static void lmdb_end_txn(LmdbStore *store)
{
    if (store->txn) {
        mdb_txn_abort(store->txn);
        store->txn = NULL;
    }
    store->generation++;
}

int lmdb_fail(LmdbStore *store, int rc, const char *what)
{
    if (store->base.failed)
        return store->base.error_status;
    int status = rc == MDB_MAP_FULL || rc == ENOSPC || rc == ENOMEM ? JOINERY_ERROR_NO_MEMORY
                                                                    : JOINERY_ERROR_RUNTIME;
    if (rc == MDB_MAP_FULL)
        state_store_set_error(&store->base, status,
                              "LMDB %s: %s (the unit of work is lost; map size %zu MiB, folder %s)",
                              what, mdb_strerror(rc), store->map_size >> 20, store->directory);
    else
        state_store_set_error(&store->base, status, "LMDB %s: %s (folder %s)", what,
                              mdb_strerror(rc), store->directory);
    store->base.failed = true;
    lmdb_end_txn(store);
    return status;
}

int lmdb_fail_memory(LmdbStore *store)
{
    return lmdb_fail(store, ENOMEM, "state memory");
}

int lmdb_fail_corrupt(LmdbStore *store, const char *what)
{
    if (store->base.failed)
        return store->base.error_status;
    state_store_set_error(&store->base, JOINERY_ERROR_RUNTIME, "LMDB state is inconsistent: %s",
                          what);
    store->base.failed = true;
    lmdb_end_txn(store);
    return JOINERY_ERROR_RUNTIME;
}

/* ---- units of work ----------------------------------------------------------- */

/*
 * Grows the map (no transaction open) until the used pages are at most
 * half of it and the used pages plus `need` at most three quarters.
 */
static bool lmdb_grow_map(LmdbStore *store, uint64_t need)
{
    if (store->read_only)
        return true;
    MDB_envinfo info;
    int rc = mdb_env_info(store->env, &info);
    if (rc != MDB_SUCCESS) {
        lmdb_fail(store, rc, "env_info");
        return false;
    }
    uint64_t used = (uint64_t)info.me_last_pgno + 1;
    store->used_pages = used;
    size_t size = store->map_size;
    while (used * store->page_size > size / 2 || (used + need) * store->page_size > size / 4 * 3) {
        if (size > SIZE_MAX / 2) {
            lmdb_fail(store, MDB_MAP_FULL, "map growth");
            return false;
        }
        size *= 2;
    }
    if (size != store->map_size) {
        /* remapping under a copy's read transaction would pull the map from under it */
        lmdb_copy_wait_ended(store);
        rc = mdb_env_set_mapsize(store->env, size);
        if (rc != MDB_SUCCESS) {
            lmdb_fail(store, rc, "set_mapsize");
            return false;
        }
        store->map_size = size;
    }
    return true;
}

/* Begins the unit's transaction (growing the map first); drops destroyed states' DBIs. */
static bool lmdb_begin(LmdbStore *store, uint64_t need)
{
    if (store->base.failed)
        return false;
    if (!lmdb_grow_map(store, need))
        return false;
    int rc = mdb_txn_begin(store->env, NULL, store->read_only ? MDB_RDONLY : 0, &store->txn);
    if (rc != MDB_SUCCESS) {
        store->txn = NULL;
        lmdb_fail(store, rc, "txn_begin");
        return false;
    }
    store->generation++;
    store->unit_pages = 0;
    while (store->dead_count > 0) {
        rc = mdb_drop(store->txn, store->dead[store->dead_count - 1], 1);
        if (rc != MDB_SUCCESS) {
            lmdb_fail(store, rc, "drop");
            return false;
        }
        store->dead_count--;
    }
    return true;
}

static bool lmdb_ensure_txn(LmdbStore *store)
{
    if (store->base.failed)
        return false;
    return store->txn || lmdb_begin(store, 0);
}

MDB_txn *lmdb_state_txn(LmdbState *state)
{
    if (!lmdb_ensure_txn(state->store))
        return NULL;
    lmdb_state_touch(state);
    return state->store->txn;
}

MDB_cursor *lmdb_state_cursor(LmdbState *state)
{
    LmdbStore *store = state->store;
    if (!lmdb_ensure_txn(store))
        return NULL;
    lmdb_state_touch(state);
    if (state->cursor && state->cursor_generation == store->generation)
        return state->cursor;
    /* a cursor of an ended transaction was freed with it */
    state->cursor = NULL;
    int rc = mdb_cursor_open(store->txn, state->dbi, &state->cursor);
    if (rc != MDB_SUCCESS) {
        state->cursor = NULL;
        lmdb_fail(store, rc, "cursor_open");
        return NULL;
    }
    state->cursor_generation = store->generation;
    return state->cursor;
}

uint64_t lmdb_put_pages(const LmdbStore *store, size_t key_size, size_t data_size)
{
    /* a leaf page and one more for splits and branch pages; a large value goes to
       overflow pages of its own */
    uint64_t pages = 2;
    if (key_size + data_size + 16 > store->page_size / 2)
        pages += (data_size + 16 + store->page_size - 1) / store->page_size;
    return pages;
}

bool lmdb_state_reserve(LmdbState *state, uint64_t pages)
{
    LmdbStore *store = state->store;
    if (!lmdb_ensure_txn(store))
        return false;
    lmdb_state_touch(state);
    store->unit_pages += pages;
    if ((store->used_pages + store->unit_pages) * store->page_size <= store->map_size / 4 * 3 &&
        (store->unit_pages <= LMDB_UNIT_MAX_PAGES || store->unit_pages == pages))
        return true;
    /* the map could fill, or the transaction holds much memory: split the unit */
    lmdb_copy_wait_begun(store);
    int rc = mdb_txn_commit(store->txn);
    store->txn = NULL;
    store->generation++;
    if (rc != MDB_SUCCESS) {
        lmdb_fail(store, rc, "commit (splitting a unit)");
        return false;
    }
    store->splits++;
    if (!lmdb_begin(store, pages))
        return false;
    store->unit_pages = pages;
    return true;
}

int lmdb_state_delete(LmdbState *state, const void *record_key, size_t key_size, const char *what)
{
    LmdbStore *store = state->store;
    if (!lmdb_state_reserve(state, LMDB_DELETE_PAGES))
        return store->base.error_status;
    MDB_txn *txn = lmdb_state_txn(state);
    if (!txn)
        return store->base.error_status;
    MDB_val lmdb_key = {key_size, (void *)record_key};
    int rc = mdb_del(txn, state->dbi, &lmdb_key, NULL);
    if (rc == MDB_NOTFOUND)
        return lmdb_fail_corrupt(store, "a record to delete is missing");
    if (rc != MDB_SUCCESS)
        return lmdb_fail(store, rc, what);
    return JOINERY_OK;
}

/* ---- states ------------------------------------------------------------------ */

bool lmdb_state_open(LmdbStore *store, LmdbState *state, char kind, void *owner)
{
    memset(state, 0, sizeof *state);
    state->store = store;
    state->owner = owner;
    if (!lmdb_ensure_txn(store))
        return false;
    if (store->read_only) {
        /* a state of an environment copy: bound to the DBI it had (state_lmdb_copy_adopt) */
        if (!store->adopt_dbi || store->adopt_dbi[0] != kind) {
            state_store_set_error(&store->base, JOINERY_ERROR_VALIDATE,
                                  "the state snapshot names no state of this kind in the copy %s",
                                  store->directory);
            return false;
        }
        snprintf(state->name, sizeof state->name, "%s", store->adopt_dbi);
        store->adopt_dbi = NULL;
        int rc = mdb_dbi_open(store->txn, state->name, 0, &state->dbi);
        if (rc != MDB_SUCCESS) {
            state_store_set_error(&store->base, JOINERY_ERROR_VALIDATE,
                                  "the environment copy %s has no state %s: %s", store->directory,
                                  state->name, mdb_strerror(rc));
            return false;
        }
    } else {
        snprintf(state->name, sizeof state->name, "%c%u", kind, store->next_dbi++);
        int rc = mdb_dbi_open(store->txn, state->name, MDB_CREATE, &state->dbi);
        if (rc != MDB_SUCCESS) {
            lmdb_fail(store, rc, "dbi_open");
            return false;
        }
    }
    lmdb_state_touch(state);
    state->next = store->states;
    if (store->states)
        store->states->prev = state;
    store->states = state;
    return true;
}

void lmdb_state_close(LmdbState *state)
{
    LmdbStore *store = state->store;
    if (state->prev)
        state->prev->next = state->next;
    else if (store->states == state)
        store->states = state->next;
    if (state->next)
        state->next->prev = state->prev;
    state->prev = state->next = NULL;
    if (store->base.failed)
        return;
    if (store->txn && state->cursor && state->cursor_generation == store->generation)
        mdb_cursor_close(state->cursor);
    state->cursor = NULL;
    if (store->read_only)
        return; /* a copy's DBIs stay as they are */
    /* dropping walks the tree: not now (a job ends by destroying its states and closing
       the store, which deletes the file), but at the next unit if the store goes on */
    if (store->dead_count == store->dead_capacity) {
        uint32_t capacity = store->dead_capacity ? store->dead_capacity * 2 : 8;
        MDB_dbi *dead = realloc(store->dead, capacity * sizeof *dead);
        if (!dead)
            return; /* the DBI's pages stay in the file until it is removed */
        store->dead = dead;
        store->dead_capacity = capacity;
    }
    store->dead[store->dead_count++] = state->dbi;
}

/* ---- the store ---------------------------------------------------------------- */

static int lmdb_commit(StateStore *base, Diag *diag)
{
    LmdbStore *store = lmdb_store(base);
    if (base->failed)
        return diag_error(diag, base->error_status, "%s", base->error);
    if (store->txn && store->read_only) {
        mdb_txn_abort(store->txn);
        store->txn = NULL;
        store->generation++;
    }
    /* the commit gate: a copy's read transaction has not begun, so this unit goes on */
    if (store->txn && lmdb_copy_holds_commits(store))
        return JOINERY_OK;
    if (store->txn) {
        for (LmdbState *state = store->states; state && !base->failed; state = state->next)
            if (state->touched && state->before_commit)
                state->before_commit(state);
        if (base->failed)
            return diag_error(diag, base->error_status, "%s", base->error);
        int rc = mdb_txn_commit(store->txn);
        store->txn = NULL;
        store->generation++;
        if (rc != MDB_SUCCESS) {
            lmdb_fail(store, rc, "commit");
            return diag_error(diag, base->error_status, "%s", base->error);
        }
    }
    /* (without a transaction: the unit's writes were committed for a copy, its caches kept) */
    for (LmdbState *state = store->states; state; state = state->next) {
        if (state->touched && state->after_commit)
            state->after_commit(state);
        state->touched = false;
    }
    /* grow ahead of the next unit */
    if (!lmdb_grow_map(store, 0))
        return diag_error(diag, base->error_status, "%s", base->error);
    return JOINERY_OK;
}

/* Removes `path` if it is still the file (device, inode) the store created. */
static void lmdb_remove_file(const char *path, uint64_t device, uint64_t inode)
{
    struct stat info;
    if (stat(path, &info) == 0 && (uint64_t)info.st_dev == device && (uint64_t)info.st_ino == inode)
        (void)unlink(path);
}

static void lmdb_file_path(char *path, size_t size, const char *directory, const char *name)
{
    snprintf(path, size, "%s/%s", directory, name);
}

int lmdb_commit_for_copy(LmdbStore *store)
{
    StateStore *base = &store->base;
    if (base->failed)
        return base->error_status;
    if (!store->txn)
        return JOINERY_OK;
    for (LmdbState *state = store->states; state && !base->failed; state = state->next)
        if (state->touched && state->before_commit)
            state->before_commit(state);
    if (base->failed)
        return base->error_status;
    int rc = mdb_txn_commit(store->txn);
    store->txn = NULL;
    store->generation++;
    if (rc != MDB_SUCCESS)
        return lmdb_fail(store, rc, "commit (for a checkpoint's copy)");
    return JOINERY_OK;
}

static void lmdb_close(StateStore *base)
{
    LmdbStore *store = lmdb_store(base);
    lmdb_copy_wait_ended(store);
    if (store->txn)
        mdb_txn_abort(store->txn);
    store->txn = NULL;
    if (store->env)
        mdb_env_close(store->env);
    char path[PATH_MAX + 16];
    if (store->files_known) {
        lmdb_file_path(path, sizeof path, store->directory, "data.mdb");
        lmdb_remove_file(path, store->data_device, store->data_inode);
        lmdb_file_path(path, sizeof path, store->directory, "lock.mdb");
        lmdb_remove_file(path, store->lock_device, store->lock_inode);
    }
    if (store->created_directory)
        (void)rmdir(store->directory);
    free(store->dead);
    free(store);
}

static const StateStoreOps LMDB_STORE_OPS = {
    .commit = lmdb_commit,
    .close = lmdb_close,
    .create_multiset = state_lmdb_create_multiset,
    .create_value = state_lmdb_create_value,
    .create_sorted = state_lmdb_create_sorted,
    .create_timer_queue = state_lmdb_create_timer_queue,
    .snapshot_reference = lmdb_store_snapshot_reference,
    .wait_copy = lmdb_store_wait_copy,
};

/* Makes or creates the store's folder; JOINERY_OK or the error in diag. */
static int lmdb_prepare_directory(LmdbStore *store, const char *directory, Diag *diag)
{
    if (!directory) {
        const char *tmp = getenv("TMPDIR");
        if (!tmp || !tmp[0])
            tmp = "/tmp";
        int length =
            snprintf(store->directory, sizeof store->directory, "%s/joinery-state-XXXXXX", tmp);
        if (length < 0 || (size_t)length >= sizeof store->directory)
            return diag_error(diag, JOINERY_ERROR_RUNTIME, "LMDB state: TMPDIR is too long");
        if (!mkdtemp(store->directory))
            return diag_error(diag, JOINERY_ERROR_RUNTIME,
                              "LMDB state: cannot create a temporary folder under %s: %s", tmp,
                              strerror(errno));
        store->created_directory = true;
        return JOINERY_OK;
    }
    size_t length = strlen(directory);
    if (length == 0 || length >= sizeof store->directory - 16)
        return diag_error(diag, JOINERY_ERROR_VALIDATE, "LMDB state folder '%s' is not usable",
                          directory);
    memcpy(store->directory, directory, length + 1);
    if (mkdir(directory, 0700) == 0) {
        store->created_directory = true;
        return JOINERY_OK;
    }
    struct stat info;
    if (errno == EEXIST && stat(directory, &info) == 0 && S_ISDIR(info.st_mode))
        return JOINERY_OK;
    return diag_error(diag, JOINERY_ERROR_RUNTIME, "LMDB state: cannot create folder %s: %s",
                      directory, strerror(errno));
}

static int lmdb_open_fail(LmdbStore *store, Diag *diag, int rc, const char *what)
{
    int status = rc == ENOSPC || rc == ENOMEM ? JOINERY_ERROR_NO_MEMORY : JOINERY_ERROR_RUNTIME;
    diag_error(diag, status, "LMDB %s: %s (folder %s)", what, mdb_strerror(rc), store->directory);
    lmdb_close(&store->base);
    return status;
}

/* A store with no environment yet; NULL on no memory. */
static LmdbStore *lmdb_store_new(void)
{
    LmdbStore *store = calloc(1, sizeof *store);
    if (!store)
        return NULL;
    store->base.ops = &LMDB_STORE_OPS;
    store->base.backend = STATE_BACKEND_LMDB;
    store->key_hash_mask = UINT64_MAX;
    return store;
}

/* Creates the store's environment with room for LMDB_MAX_DBS states; `what` names the store
   in an error (the store is closed then). */
static int lmdb_env_create(LmdbStore *store, Diag *diag, const char *what)
{
    int rc = mdb_env_create(&store->env);
    if (rc != MDB_SUCCESS) {
        store->env = NULL;
        return lmdb_open_fail(store, diag, rc, what);
    }
    if ((rc = mdb_env_set_maxdbs(store->env, LMDB_MAX_DBS)) != MDB_SUCCESS)
        return lmdb_open_fail(store, diag, rc, "set_maxdbs");
    return JOINERY_OK;
}

int state_lmdb_store_open(const StateStoreConfig *config, StateStore **result, Diag *diag)
{
    *result = NULL;
    LmdbStore *store = lmdb_store_new();
    if (!store)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    store->base.budget = config->budget; /* not applied: LMDB state lives on disk */
    store->map_size = LMDB_INITIAL_MAP;
    int status = lmdb_prepare_directory(store, config->directory, diag);
    if (status != JOINERY_OK) {
        free(store);
        return status;
    }
    char path[PATH_MAX + 16];
    if (!store->created_directory) {
        /* left by a store that did not close: never reused */
        lmdb_file_path(path, sizeof path, store->directory, "data.mdb");
        (void)unlink(path);
        lmdb_file_path(path, sizeof path, store->directory, "lock.mdb");
        (void)unlink(path);
    }
    status = lmdb_env_create(store, diag, "env_create");
    if (status != JOINERY_OK)
        return status;
    int rc;
    if ((rc = mdb_env_set_mapsize(store->env, store->map_size)) != MDB_SUCCESS)
        return lmdb_open_fail(store, diag, rc, "set_mapsize");
    rc = mdb_env_open(store->env, store->directory,
                      MDB_NOSYNC | MDB_NOMETASYNC | MDB_NOTLS | MDB_NORDAHEAD, 0600);
    if (rc != MDB_SUCCESS)
        return lmdb_open_fail(store, diag, rc, "env_open");
    struct stat data_info, lock_info;
    char lock_path[PATH_MAX + 16];
    lmdb_file_path(path, sizeof path, store->directory, "data.mdb");
    lmdb_file_path(lock_path, sizeof lock_path, store->directory, "lock.mdb");
    if (stat(path, &data_info) == 0 && stat(lock_path, &lock_info) == 0) {
        store->files_known = true;
        store->data_device = (uint64_t)data_info.st_dev;
        store->data_inode = (uint64_t)data_info.st_ino;
        store->lock_device = (uint64_t)lock_info.st_dev;
        store->lock_inode = (uint64_t)lock_info.st_ino;
    }
    MDB_stat stat;
    if ((rc = mdb_env_stat(store->env, &stat)) != MDB_SUCCESS)
        return lmdb_open_fail(store, diag, rc, "env_stat");
    store->page_size = stat.ms_psize;
    _Static_assert(LMDB_MAX_RECORD_KEY <= 511, "record keys fit LMDB's key size");
    if (mdb_env_get_maxkeysize(store->env) < LMDB_MAX_RECORD_KEY)
        return lmdb_open_fail(store, diag, MDB_BAD_VALSIZE, "maxkeysize");
    *result = &store->base;
    return JOINERY_OK;
}

int state_lmdb_copy_open(const char *path, StateStore **result, Diag *diag)
{
    *result = NULL;
    LmdbStore *store = lmdb_store_new();
    if (!store)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    store->read_only = true;
    snprintf(store->directory, sizeof store->directory, "%s", path);
    struct stat file_info;
    if (stat(path, &file_info) != 0) {
        free(store);
        return diag_error(diag, JOINERY_ERROR_RUNTIME, "Cannot open the state copy '%s': %s", path,
                          strerror(errno));
    }
    int status = lmdb_env_create(store, diag, "env_create (a state copy)");
    if (status != JOINERY_OK)
        return status;
    /* one file, opened by nobody else: no lock file next to it */
    int rc = mdb_env_open(store->env, path,
                          MDB_NOSUBDIR | MDB_RDONLY | MDB_NOLOCK | MDB_NOTLS | MDB_NORDAHEAD, 0400);
    if (rc != MDB_SUCCESS)
        return lmdb_open_fail(store, diag, rc, "env_open (a state copy)");
    MDB_stat stat;
    MDB_envinfo info;
    if ((rc = mdb_env_stat(store->env, &stat)) != MDB_SUCCESS ||
        (rc = mdb_env_info(store->env, &info)) != MDB_SUCCESS)
        return lmdb_open_fail(store, diag, rc, "env_stat (a state copy)");
    store->page_size = stat.ms_psize;
    store->map_size = info.me_mapsize;
    /* reading a page past the end of the file would be a SIGBUS, not an error */
    if (((uint64_t)info.me_last_pgno + 1) * stat.ms_psize > (uint64_t)file_info.st_size) {
        diag_error(diag, JOINERY_ERROR_RUNTIME,
                   "Cannot restore from the state copy '%s': it is truncated (%lld bytes, its "
                   "pages need %llu)",
                   path, (long long)file_info.st_size,
                   (unsigned long long)(((uint64_t)info.me_last_pgno + 1) * stat.ms_psize));
        lmdb_close(&store->base);
        return JOINERY_ERROR_RUNTIME;
    }
    *result = &store->base;
    return JOINERY_OK;
}

void state_lmdb_copy_adopt(StateStore *copy, const char *dbi)
{
    lmdb_store(copy)->adopt_dbi = dbi;
}

void state_lmdb_set_key_hash_mask(StateStore *store, uint64_t mask)
{
    lmdb_store(store)->key_hash_mask = mask;
}

size_t state_lmdb_map_size(const StateStore *store)
{
    return ((const LmdbStore *)store)->map_size;
}

uint64_t state_lmdb_unit_splits(const StateStore *store)
{
    return ((const LmdbStore *)store)->splits;
}

/* ---- key lookup ----------------------------------------------------------------- */

/* The smallest sequence >= `from` that `taken` does not claim (UINT32_MAX: none is left). */
static uint32_t lmdb_untaken(uint32_t from, uint32_t below, uint64_t hash, LmdbSequenceTaken taken,
                             void *context)
{
    for (uint32_t sequence = from; sequence < below; sequence++)
        if (!taken || !taken(context, hash, (uint16_t)sequence))
            return sequence;
    return UINT32_MAX;
}

int lmdb_find_key(LmdbState *state, uint64_t hash, const Row *key, size_t row_offset,
                  uint16_t *sequence, MDB_val *data, uint16_t *free_sequence,
                  LmdbSequenceTaken taken, void *context)
{
    LmdbStore *store = state->store;
    MDB_cursor *cursor = lmdb_state_cursor(state);
    if (!cursor)
        return store->base.error_status;
    uint32_t next_free = 0; /* every sequence below is taken */
    uint32_t free_found = UINT32_MAX;
    uint32_t from = 0;
    while (from <= UINT16_MAX) {
        uint8_t id[LMDB_KEY_ID_SIZE];
        lmdb_key_id(id, hash, (uint16_t)from);
        MDB_val record_key = {sizeof id, id}, record;
        int rc = mdb_cursor_get(cursor, &record_key, &record, MDB_SET_RANGE);
        if (rc == MDB_NOTFOUND)
            break;
        if (rc != MDB_SUCCESS)
            return lmdb_fail(store, rc, "cursor_get");
        if (record_key.mv_size < LMDB_KEY_ID_SIZE || memcmp(record_key.mv_data, id, 8) != 0)
            break;
        uint16_t at = lmdb_get_be16((const uint8_t *)record_key.mv_data + 8);
        if (free_sequence && free_found == UINT32_MAX) {
            uint32_t candidate = lmdb_untaken(next_free, at, hash, taken, context);
            if (candidate != UINT32_MAX)
                free_found = candidate;
            next_free = (uint32_t)at + 1;
        }
        if (record_key.mv_size == LMDB_KEY_ID_SIZE && record.mv_size >= row_offset &&
            lmdb_row_matches((const char *)record.mv_data + row_offset, record.mv_size - row_offset,
                             key)) {
            *sequence = at;
            *data = record;
            return 1;
        }
        from = (uint32_t)at + 1;
    }
    if (free_sequence) {
        if (free_found == UINT32_MAX)
            free_found = lmdb_untaken(next_free, UINT16_MAX + 1u, hash, taken, context);
        if (free_found == UINT32_MAX) {
            state_store_set_error(&store->base, JOINERY_ERROR_RUNTIME,
                                  "LMDB state: more than 65536 keys share one 64-bit hash");
            return JOINERY_ERROR_RUNTIME;
        }
        *free_sequence = (uint16_t)free_found;
    }
    return 0;
}

/* ---- range walks ------------------------------------------------------------------ */

void lmdb_range_begin(LmdbRange *range, LmdbState *state, const void *prefix, uint32_t prefix_size,
                      const void *start, uint32_t start_size)
{
    range->state = state;
    range->prefix_size = prefix_size;
    if (prefix_size)
        memcpy(range->prefix, prefix, prefix_size);
    if (!start) {
        start = prefix;
        start_size = prefix_size;
    }
    range->last_size = start_size;
    if (start_size)
        memcpy(range->last, start, start_size);
    range->started = false;
    range->deleted = false;
    range->generation = 0;
}

int lmdb_range_next(LmdbRange *range)
{
    LmdbState *state = range->state;
    LmdbStore *store = state->store;
    MDB_cursor *cursor = lmdb_state_cursor(state);
    if (!cursor)
        return -1;
    int rc;
    MDB_val key = {range->last_size, range->last}, data;
    if (!range->started) {
        rc = range->last_size ? mdb_cursor_get(cursor, &key, &data, MDB_SET_RANGE)
                              : mdb_cursor_get(cursor, &key, &data, MDB_FIRST);
        range->started = true;
    } else if (range->generation == store->generation) {
        /* after mdb_cursor_del the cursor already points at the next record, and
           MDB_NEXT returns it */
        rc = mdb_cursor_get(cursor, &key, &data, MDB_NEXT);
    } else {
        /* the unit was split (or the cursor reopened): seek again */
        rc = mdb_cursor_get(cursor, &key, &data, MDB_SET_RANGE);
        if (rc == MDB_SUCCESS && !range->deleted && key.mv_size == range->last_size &&
            memcmp(key.mv_data, range->last, range->last_size) == 0)
            rc = mdb_cursor_get(cursor, &key, &data, MDB_NEXT);
    }
    range->deleted = false;
    if (rc == MDB_NOTFOUND)
        return 0;
    if (rc != MDB_SUCCESS) {
        lmdb_fail(store, rc, "cursor_get");
        return -1;
    }
    if (key.mv_size < range->prefix_size || key.mv_size > LMDB_MAX_RECORD_KEY ||
        memcmp(key.mv_data, range->prefix, range->prefix_size) != 0)
        return 0;
    range->last_size = (uint32_t)key.mv_size;
    memcpy(range->last, key.mv_data, key.mv_size);
    range->generation = store->generation;
    range->key = key;
    range->data = data;
    return 1;
}

int lmdb_range_delete(LmdbRange *range)
{
    LmdbState *state = range->state;
    LmdbStore *store = state->store;
    if (!lmdb_state_reserve(state, LMDB_DELETE_PAGES))
        return store->base.error_status;
    MDB_cursor *cursor = lmdb_state_cursor(state);
    if (!cursor)
        return store->base.error_status;
    if (range->generation != store->generation) {
        MDB_val key = {range->last_size, range->last}, data;
        int rc = mdb_cursor_get(cursor, &key, &data, MDB_SET);
        if (rc != MDB_SUCCESS)
            return lmdb_fail(store, rc, "cursor_get (deleting)");
        range->generation = store->generation;
    }
    int rc = mdb_cursor_del(cursor, 0);
    if (rc != MDB_SUCCESS)
        return lmdb_fail(store, rc, "cursor_del");
    range->deleted = true;
    return JOINERY_OK;
}

/* ---- scan buffers ---------------------------------------------------------------- */

enum { LMDB_SCAN_INITIAL_BYTES = 4096, LMDB_SCAN_KEEP_BYTES = 1 << 20 };

LmdbScanBuffer *lmdb_scan_buffer_take(LmdbScanPool *pool)
{
    LmdbScanBuffer *buffer = pool->free;
    if (buffer) {
        pool->free = buffer->next_free;
    } else {
        buffer = calloc(1, sizeof *buffer);
        if (!buffer)
            return NULL;
        buffer->next_all = pool->all;
        pool->all = buffer;
    }
    buffer->next_free = NULL;
    buffer->used = 0;
    return buffer;
}

void lmdb_scan_buffer_give(LmdbScanPool *pool, LmdbScanBuffer *buffer)
{
    if (buffer->capacity > LMDB_SCAN_KEEP_BYTES) { /* a scan of huge rows: do not keep that */
        free(buffer->bytes);
        buffer->bytes = NULL;
        buffer->capacity = 0;
    }
    buffer->next_free = pool->free;
    pool->free = buffer;
}

/* Makes room for `size` more bytes; false without memory. */
static bool lmdb_scan_buffer_grow(LmdbScanBuffer *buffer, size_t size)
{
    if (buffer->used + size <= buffer->capacity)
        return true;
    size_t capacity = buffer->capacity ? buffer->capacity : LMDB_SCAN_INITIAL_BYTES;
    while (capacity < buffer->used + size)
        capacity *= 2;
    uint64_t *bytes = realloc(buffer->bytes, capacity);
    if (!bytes)
        return false;
    buffer->bytes = bytes;
    buffer->capacity = capacity;
    return true;
}

size_t lmdb_scan_buffer_add_row(LmdbScanBuffer *buffer, const void *row, size_t size)
{
    if (!lmdb_scan_buffer_grow(buffer, size))
        return SIZE_MAX;
    size_t offset = buffer->used;
    memcpy((char *)buffer->bytes + offset, row, size);
    ((RowHeader *)((char *)buffer->bytes + offset))->kind = ROW_KIND_INSERT;
    buffer->used += size; /* rows are multiples of 8 bytes: the next stays aligned */
    return offset;
}

size_t lmdb_scan_buffer_add_tagged_row(LmdbScanBuffer *buffer, uint64_t tag, const void *row,
                                       size_t size)
{
    if (!lmdb_scan_buffer_grow(buffer, sizeof tag + size))
        return SIZE_MAX;
    memcpy((char *)buffer->bytes + buffer->used, &tag, sizeof tag);
    buffer->used += sizeof tag;
    return lmdb_scan_buffer_add_row(buffer, row, size);
}

void lmdb_scan_pool_free(LmdbScanPool *pool)
{
    for (LmdbScanBuffer *buffer = pool->all, *next; buffer; buffer = next) {
        next = buffer->next_all;
        free(buffer->bytes);
        free(buffer);
    }
    pool->all = pool->free = NULL;
}
