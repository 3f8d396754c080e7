/*
 * checkpoint_store.h - how checkpoints lie on disk, as Flink lays them out:
 *
 *   <checkpoint dir>/<job id>/chk-<n>/
 *       op-<plan node id>-<subtask>   one operator's snapshot (snapshot.h bytes)
 *       _metadata                     the manifest, written last
 *
 * A folder without _metadata is an incomplete checkpoint (a crash while it
 * was taken) and is never restored from: every operator file is written and
 * synced first, then _metadata is written to _metadata.inprogress, synced,
 * renamed into place and the folder synced. So a crash at any instant
 * leaves the previous checkpoint and either a complete new one or an
 * incomplete folder.
 *
 * _metadata is text, a line per fact, its last line the XXH3-64 of every
 * byte before it:
 *
 *   joinery-checkpoint 1
 *   job <32 hex digits>
 *   checkpoint <n>
 *   timestamp <ms since the epoch>
 *   parallelism <p>
 *   operators <count>
 *   operator <node id> <subtask> <fingerprint hex> snapshot <file> <bytes> <xxh3 hex> <name>
 *   operator <node id> <subtask> <fingerprint hex> finished - 0 0 <name>
 *   copies <count>                       (only when there are copies)
 *   copy <task> <file> <bytes> <xxh3 hex>
 *   checksum <xxh3 hex>
 *
 * A copy is a task's LMDB environment copied at the checkpoint
 * (state.backend.lmdb.checkpoint-mode = copy: engine/state/state_lmdb_checkpoint.c),
 * lmdb-<task>; the operators' snapshots then hold references into it.
 *
 * The fingerprint is the operator's plan node (kind, attributes as EXPLAIN
 * prints them, field types): a restore refuses a job whose operators differ.
 * Reading checks the manifest's checksum and each file's size and checksum,
 * so a corrupt or truncated checkpoint is refused with the file it names.
 *
 * Thread safety: the functions touch only the paths they are given; files
 * of one checkpoint are written concurrently by the tasks.
 */
#ifndef JOINERY_EXEC_CHECKPOINT_STORE_H
#define JOINERY_EXEC_CHECKPOINT_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/base/diag.h"
#include "engine/exec/snapshot.h"

enum {
    CHECKPOINT_JOB_ID_LENGTH = 32,
    CHECKPOINT_NAME_MAX = 96,
    CHECKPOINT_FILE_MAX = 48,
};

typedef enum CheckpointEntryKind {
    CHECKPOINT_ENTRY_SNAPSHOT = 0, /* the operator's snapshot is in `file` */
    CHECKPOINT_ENTRY_FINISHED = 1, /* its input had ended: nothing to restore, it ends at once */
} CheckpointEntryKind;

/* One operator (subtask) of a checkpoint. */
typedef struct CheckpointEntry {
    int plan_node_id;
    int subtask;
    uint64_t fingerprint;
    CheckpointEntryKind kind;
    char file[CHECKPOINT_FILE_MAX]; /* within the checkpoint's folder */
    uint64_t bytes;
    uint64_t checksum;
    char name[CHECKPOINT_NAME_MAX]; /* the operator's name, for messages */
} CheckpointEntry;

/* One task's environment copy in a checkpoint. */
typedef struct CheckpointCopy {
    int task;
    char file[CHECKPOINT_FILE_MAX];
    uint64_t bytes;
    uint64_t checksum;
} CheckpointCopy;

typedef struct CheckpointManifest {
    char job_id[CHECKPOINT_JOB_ID_LENGTH + 1];
    int64_t checkpoint_id;
    int64_t timestamp;
    int parallelism;
    CheckpointEntry *entries; /* heap; checkpoint_manifest_free */
    uint32_t count;
    CheckpointCopy *copies; /* heap (read) or borrowed (written) */
    uint32_t copy_count;
} CheckpointManifest;

/* A new job id: 32 lowercase hex digits, as Flink prints a JobID. */
void checkpoint_store_new_job_id(char job_id[CHECKPOINT_JOB_ID_LENGTH + 1]);
/*
 * Creates <dir>/<job id>/chk-<n>/ (parents too) and returns its path (heap,
 * the caller frees). NULL with diag filled when it cannot.
 */
char *checkpoint_store_create_folder(const char *dir, const char *job_id, int64_t checkpoint_id,
                                     Diag *diag);
/*
 * Creates <dir>/savepoint-<first 6 digits of the job id>-<12 random hex
 * digits>/ (Flink's savepoint folder name; parents too) and returns its path
 * (heap). NULL with diag filled when it cannot. A savepoint holds what a
 * checkpoint holds, in the same layout (_metadata last).
 */
char *checkpoint_store_create_savepoint_folder(const char *dir, const char *job_id, Diag *diag);
/*
 * For a checkpoint folder .../<job id>/chk-<n>: the newest complete
 * checkpoint (with _metadata) of the same job older than n, as a path
 * (heap); NULL when there is none or `folder` is not a chk-<n> folder.
 */
char *checkpoint_store_previous(const char *folder);
/* The file name of operator (node, subtask) in a checkpoint folder. */
void checkpoint_store_file_name(int plan_node_id, int subtask, char name[CHECKPOINT_FILE_MAX]);
/*
 * Writes `length` bytes as <folder>/<name> and syncs it; *checksum gets
 * their XXH3-64. JOINERY_OK or JOINERY_ERROR_RUNTIME (diag names the file).
 */
int checkpoint_store_write_file(const char *folder, const char *name, const void *bytes,
                                size_t length, uint64_t *checksum, Diag *diag);
/*
 * Writes the manifest as <folder>/_metadata, last (above): after it returns
 * JOINERY_OK the checkpoint is complete and durable.
 */
int checkpoint_store_write_manifest(const char *folder, const CheckpointManifest *manifest,
                                    Diag *diag);
/*
 * Reads the manifest of a checkpoint: `path` is its folder or its _metadata
 * file. *folder gets the folder (heap). Errors (JOINERY_ERROR_RUNTIME, diag
 * says which): no such folder, no _metadata (an incomplete checkpoint), a
 * manifest whose checksum or syntax is wrong.
 */
int checkpoint_store_read_manifest(const char *path, CheckpointManifest *manifest, char **folder,
                                   Diag *diag);
/*
 * Reads the snapshot of `entry` into `buffer` (empty: {0}), checking its
 * size and checksum against the manifest. JOINERY_OK or JOINERY_ERROR_RUNTIME
 * naming the file (missing, truncated, corrupt).
 */
int checkpoint_store_read_file(const char *folder, const CheckpointEntry *entry,
                               SnapshotBuffer *buffer, Diag *diag);
/*
 * Checks a copy's file against the manifest (size, then its XXH3-64 read in
 * chunks: copies are large). JOINERY_OK or JOINERY_ERROR_RUNTIME naming the
 * file (missing, truncated, corrupt).
 */
int checkpoint_store_verify_copy(const char *folder, const CheckpointCopy *copy, Diag *diag);
/* Removes a checkpoint folder and everything in it (best effort). */
void checkpoint_store_remove(const char *folder);
/*
 * Adds an entry to a manifest (a copy). JOINERY_OK or JOINERY_ERROR_NO_MEMORY.
 */
int checkpoint_manifest_add(CheckpointManifest *manifest, const CheckpointEntry *entry);
/* Frees the entries; the manifest is empty again. */
void checkpoint_manifest_free(CheckpointManifest *manifest);

#endif
