/*
 * state_lmdb_checkpoint.c - checkpoints by environment copy on the LMDB
 * backend (state.h: "checkpoints by environment copy"): at a barrier the
 * task's whole environment is copied into one file of the checkpoint with
 * mdb_env_copyfd2(MDB_CP_COMPACT) on threads of its own, and the states'
 * snapshots hold only references into it.
 *
 * How a copy runs: the first state snapshot of checkpoint n in copy mode
 * (lmdb_store_snapshot_reference) asks the sink for the file, commits the
 * unit (write-backs and commit, caches and handles kept:
 * lmdb_commit_for_copy), clears every state's changed_since_copy and starts
 * two threads: the relay starts the producer, which runs mdb_env_copyfd2
 * into the write end of a pipe, and reads the pipe, hashes (XXH3 streaming), writes and
 * syncs the file and tells the sink (size, checksum, or the error).
 *
 * The invariant (consistency): the copy holds the environment as of the
 * copy's commit. LMDB 0.9.24's mdb_env_copyfd2 opens its own read
 * transaction when it starts, so the copy holds whatever is committed then:
 * between the copy's commit and the beginning of that read transaction the
 * store commits nothing (the commit gate). The task's periodic commit
 * (lmdb_commit) is deferred instead (lmdb_copy_holds_commits: the unit
 * goes on into the next round, its transaction open, so the task never
 * waits); a unit split, which must commit, waits (lmdb_copy_wait_begun). `begun` is set by the
 * relay at the first bytes on the pipe (in compact mode LMDB begins the transaction before it
 * writes anything) or at its end (a copy that failed before writing). A remap (mdb_env_set_mapsize)
 * waits for the whole copy (lmdb_copy_wait_ended): the copy reads pages through the map.
 *
 * Which states are references: a state is written as a reference when it
 * has not been used (lmdb_state_touch) since the copy's commit: its records
 * in the copy are then exactly its state at its own barrier. Operators of
 * one task usually take their snapshots in one go (the barrier passes down
 * a chain synchronously); an operator that processed input between the
 * copy's commit and its own barrier (its barrier came later, through
 * another channel) is walked instead (counted in copy_walks), so every
 * snapshot is exact whatever the alignment. A copy that fails fails its
 * checkpoint (the sink is told) and turns copies off for the store: later
 * checkpoints walk the states.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#include "engine/state/state_lmdb_internal.h"

enum { COPY_RELAY_BYTES = 1 << 20 };

struct LmdbCopy {
    LmdbStore *store;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    bool begun; /* the copy's read transaction has begun (or the copy ended) */
    bool ended; /* the sink was told */
    pthread_t producer, relay;
    int pipe_read, pipe_write, file;
    int producer_rc;
    unsigned delay_millis;
    int64_t id;
    char file_name[STATE_COPY_FILE_MAX];
    char *path;
    StateCopySink sink;
};

static void copy_set(LmdbCopy *copy, bool *flag)
{
    pthread_mutex_lock(&copy->lock);
    *flag = true;
    pthread_cond_broadcast(&copy->changed);
    pthread_mutex_unlock(&copy->lock);
}

static void *copy_produce(void *argument)
{
    LmdbCopy *copy = argument;
    if (copy->delay_millis) {
        struct timespec pause = {copy->delay_millis / 1000,
                                 (long)(copy->delay_millis % 1000) * 1000000L};
        nanosleep(&pause, NULL);
    }
    copy->producer_rc = mdb_env_copyfd2(copy->store->env, copy->pipe_write, MDB_CP_COMPACT);
    close(copy->pipe_write);
    copy->pipe_write = -1;
    return NULL;
}

/* Writes all of `length` bytes; 0 or errno. */
static int copy_write_all(int fd, const unsigned char *bytes, size_t length)
{
    while (length) {
        ssize_t written = write(fd, bytes, length);
        if (written < 0 && errno == EINTR)
            continue;
        if (written <= 0)
            return written < 0 ? errno : EIO;
        bytes += written;
        length -= (size_t)written;
    }
    return 0;
}

static void *copy_relay(void *argument)
{
    LmdbCopy *copy = argument;
    unsigned char *chunk = malloc(COPY_RELAY_BYTES);
    XXH3_state_t *hash = XXH3_createState();
    int error = !chunk || !hash || XXH3_64bits_reset(hash) != XXH_OK ? ENOMEM : 0;
    uint64_t bytes = 0;
    bool produced = pthread_create(&copy->producer, NULL, copy_produce, copy) == 0;
    if (!produced) {
        copy->producer_rc = EAGAIN;
        close(copy->pipe_write);
        copy->pipe_write = -1;
    }
    for (;;) {
        ssize_t got = read(copy->pipe_read, chunk ? chunk : (unsigned char *)&bytes,
                           chunk ? COPY_RELAY_BYTES : 1);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            if (got < 0 && !error)
                error = errno;
            break;
        }
        if (!copy->begun)
            copy_set(copy, &copy->begun); /* LMDB's read transaction is open: commits may go */
        if (error || !chunk)
            continue; /* drained, so that LMDB ends */
        (void)XXH3_64bits_update(hash, chunk, (size_t)got);
        error = copy_write_all(copy->file, chunk, (size_t)got);
        bytes += (uint64_t)got;
    }
    copy_set(copy, &copy->begun);
    if (produced)
        pthread_join(copy->producer, NULL);
    close(copy->pipe_read);
    copy->pipe_read = -1;
    if (!error && fsync(copy->file) != 0)
        error = errno;
    if (close(copy->file) != 0 && !error)
        error = errno;
    copy->file = -1;
    char message[256] = "";
    int status = JOINERY_OK;
    if (copy->producer_rc != MDB_SUCCESS) {
        status = JOINERY_ERROR_RUNTIME;
        snprintf(message, sizeof message, "LMDB copy of the state into '%s': %s", copy->path,
                 mdb_strerror(copy->producer_rc));
    } else if (error) {
        status = JOINERY_ERROR_RUNTIME;
        snprintf(message, sizeof message, "Cannot write checkpoint file '%s': %s", copy->path,
                 strerror(error));
    }
    uint64_t checksum = hash ? XXH3_64bits_digest(hash) : 0;
    XXH3_freeState(hash);
    free(chunk);
    if (status != JOINERY_OK)
        copy->store->copy_disabled = true; /* read by the task only after the join */
    copy->sink.done(copy->sink.context, copy->id, copy->file_name, status, bytes, checksum,
                    message);
    copy_set(copy, &copy->ended);
    return NULL;
}

void lmdb_copy_wait_begun(LmdbStore *store)
{
    LmdbCopy *copy = store->copy;
    if (!copy)
        return;
    pthread_mutex_lock(&copy->lock);
    if (!copy->begun) {
        struct timespec from, to;
        clock_gettime(CLOCK_MONOTONIC, &from);
        while (!copy->begun)
            pthread_cond_wait(&copy->changed, &copy->lock);
        clock_gettime(CLOCK_MONOTONIC, &to);
        atomic_fetch_add(&store->base.copy_gate_waits, 1);
        atomic_fetch_add(
            &store->base.copy_gate_nanos,
            (uint64_t)((to.tv_sec - from.tv_sec) * 1000000000LL + (to.tv_nsec - from.tv_nsec)));
    }
    pthread_mutex_unlock(&copy->lock);
}

bool lmdb_copy_holds_commits(LmdbStore *store)
{
    LmdbCopy *copy = store->copy;
    if (!copy)
        return false;
    pthread_mutex_lock(&copy->lock);
    bool holds = !copy->begun;
    pthread_mutex_unlock(&copy->lock);
    if (holds)
        atomic_fetch_add(&store->base.copy_deferred_commits, 1);
    return holds;
}

void lmdb_copy_wait_ended(LmdbStore *store)
{
    LmdbCopy *copy = store->copy;
    if (!copy)
        return;
    pthread_join(copy->relay, NULL);
    pthread_mutex_destroy(&copy->lock);
    pthread_cond_destroy(&copy->changed);
    free(copy->path);
    free(copy);
    store->copy = NULL;
}

void lmdb_store_wait_copy(StateStore *base)
{
    lmdb_copy_wait_ended(lmdb_store(base));
}

/* Starts the copy for checkpoint `id` into `path` (taken over); false when it could not. */
static bool copy_start(LmdbStore *store, int64_t id, const char *file_name, char *path)
{
    LmdbCopy *copy = calloc(1, sizeof *copy);
    if (!copy) {
        free(path);
        return false;
    }
    copy->store = store;
    copy->id = id;
    copy->path = path;
    copy->sink = store->base.copy_sink;
    copy->delay_millis = store->copy_delay_millis;
    copy->pipe_read = copy->pipe_write = copy->file = -1;
    snprintf(copy->file_name, sizeof copy->file_name, "%s", file_name);
    int pipe_ends[2];
    bool locks = pthread_mutex_init(&copy->lock, NULL) == 0;
    bool cond = locks && pthread_cond_init(&copy->changed, NULL) == 0;
    bool piped = cond && pipe(pipe_ends) == 0;
    if (piped) {
        copy->pipe_read = pipe_ends[0];
        copy->pipe_write = pipe_ends[1];
        copy->file = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    }
    if (copy->file < 0 || pthread_create(&copy->relay, NULL, copy_relay, copy) != 0) {
        if (copy->file >= 0)
            close(copy->file);
        if (piped) {
            close(copy->pipe_read);
            close(copy->pipe_write);
        }
        if (cond)
            pthread_cond_destroy(&copy->changed);
        if (locks)
            pthread_mutex_destroy(&copy->lock);
        free(copy->path);
        free(copy);
        return false;
    }
    store->copy = copy;
    return true;
}

static LmdbState *lmdb_state_of(void *state, char shape)
{
    switch (shape) {
    case 'm':
        return state_lmdb_multiset_lmdb(state);
    case 'v':
        return state_lmdb_value_lmdb(state);
    case 's':
        return state_lmdb_sorted_lmdb(state);
    case 't':
        return state_lmdb_timers_lmdb(state);
    }
    return NULL;
}

int lmdb_store_snapshot_reference(StateStore *base, void *state_object, char shape, char dbi[16],
                                  char file[STATE_COPY_FILE_MAX], bool *reference)
{
    *reference = false;
    LmdbStore *store = lmdb_store(base);
    int64_t id = base->snapshot_id;
    if (!base->snapshot_by_copy || id <= 0 || store->read_only || !base->copy_sink.begin)
        return JOINERY_OK;
    if (base->failed)
        return base->error_status;
    if (store->copy_decided != id) {
        /* the first state of this checkpoint in this store: the copy starts here */
        store->copy_decided = id;
        lmdb_copy_wait_ended(store); /* a copy of a given-up checkpoint still running */
        if (store->copy_disabled)
            return JOINERY_OK;
        char name[STATE_COPY_FILE_MAX] = "";
        char *path = base->copy_sink.begin(base->copy_sink.context, id, name);
        if (!path)
            return JOINERY_OK;
        int status = lmdb_commit_for_copy(store);
        if (status != JOINERY_OK) {
            free(path);
            return status;
        }
        for (LmdbState *state = store->states; state; state = state->next)
            state->changed_since_copy = false;
        if (!copy_start(store, id, name, path)) {
            base->copy_sink.done(base->copy_sink.context, id, name, JOINERY_ERROR_RUNTIME, 0, 0,
                                 "could not start the copy of the state (threads, pipe or file)");
            return JOINERY_OK;
        }
        store->copy_started = id;
        snprintf(file, STATE_COPY_FILE_MAX, "%s", name);
    }
    LmdbState *lmdb = lmdb_state_of(state_object, shape);
    if (store->copy_started != id || !store->copy || !lmdb)
        return JOINERY_OK;
    if (lmdb->changed_since_copy) {
        atomic_fetch_add(&base->copy_walks, 1);
        return JOINERY_OK;
    }
    snprintf(file, STATE_COPY_FILE_MAX, "%s", store->copy->file_name);
    snprintf(dbi, 16, "%s", lmdb->name);
    atomic_fetch_add(&base->copy_references, 1);
    *reference = true;
    return JOINERY_OK;
}

void state_lmdb_set_copy_delay(StateStore *store, unsigned millis)
{
    lmdb_store(store)->copy_delay_millis = millis;
}
