/*
 * job_checkpoint.c - the job's checkpoints (Flink's CheckpointCoordinator)
 * and restores; the layout on disk is checkpoint_store.c's.
 *
 * Taking one: every `interval` the sink's task (job_checkpoints_tick)
 * creates <dir>/<job id>/chk-<n>/ and triggers barrier n at every source
 * (job_trigger_barrier). Each operator that aligns it stores its snapshot
 * (snapshot.h: the SnapshotStorage here): its task serialises it into a
 * buffer and goes on; the job's writer thread writes and syncs the file and
 * then counts the operator under the lock (Flink's asynchronous phase).
 * An operator whose input ended before the barrier reached it is counted as
 * finished (SnapshotStorage.finished). The thread that counts the last
 * operator writes _metadata - the checkpoint is then complete - and removes
 * the completed checkpoints beyond `num-retained`, oldest first. The sink's
 * task, at its next round, tells the sink (op_sink.h: commit), which makes
 * the output of that checkpoint visible. One checkpoint is in flight at a
 * time; one not complete after `timeout` is given up (its folder removed,
 * late snapshots ignored) and the next is triggered on schedule.
 *
 * LMDB tasks in copy mode (state.backend.lmdb.checkpoint-mode = copy, the
 * default; not for savepoints, which stay portable record streams): the
 * first state snapshot of a checkpoint in a task starts the copy of the
 * task's environment (engine/state/state_lmdb_checkpoint.c) into
 * chk-<n>/lmdb-<task> through the StateCopySink here; the operators'
 * snapshots then hold references into it. A copy running keeps the
 * checkpoint from completing (copies_running); its size and checksum go
 * into _metadata with the operators' files; a failed copy fails the
 * checkpoint.
 *
 * At the sink's end of input a last checkpoint holds the sink's pending
 * output with every other operator finished (snapshot.h: final_id), so a
 * crash after the output became visible restores to "nothing left to do".
 *
 * Restoring (job_checkpoints_restore, in job_create after the operators
 * opened, on the caller's thread): the manifest is read and checked (its
 * checksum; the same parallelism; every operator of the job, by plan node
 * and subtask, with the fingerprint of its plan node), then every
 * operator's file (size, checksum) is read into it with operator_restore;
 * sources the checkpoint saw ended end at their task's first round. The
 * job's checkpoints go on from the restored id + 1, under a new job id.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <xxhash.h>

#include "engine/base/value.h"
#include "engine/exec/checkpoint_store.h"
#include "engine/exec/job_internal.h"
#include "engine/exec/ops/op_sink.h"
#include "engine/exec/ops/op_source.h"
#include "engine/plan/nodes/nodes.h"

/* A task's environment copy for the pending checkpoint (the StateCopySink's context). */
typedef struct JobStateCopy {
    Job *job;
    uint32_t task;
    uint8_t state; /* 0 none, 1 running, 2 written (copy holds its figures) */
    CheckpointCopy copy;
} JobStateCopy;

/* The index of `op` in job->operators; -1 when it is not one (a channel). */
static int job_operator_index(const Job *job, const Operator *op)
{
    for (uint32_t i = 0; i < job->operator_count; i++)
        if (job->operators[i].op == op)
            return (int)i;
    return -1;
}

/* The fingerprint of a plan node: kind, attributes as EXPLAIN prints them, field types. */
static uint64_t job_node_fingerprint(Job *job, const PlanNode *node)
{
    if (!node)
        return 0x5e1ec7ull; /* the collector of a SELECT */
    StrBuf text = STRBUF_INIT;
    const PlanKindInfo *info = plan_kind_info(node->kind);
    strbuf_printf(&text, "%s(", info && info->name ? info->name : "?");
    if (info && info->explain) {
        ExplainContext explain = {&job->arena, &text, EXPR_STYLE_PREFIX, false, 0, NULL, 0};
        info->explain(&explain, node);
    }
    strbuf_printf(&text, ")[%u]", node->field_count);
    for (uint32_t i = 0; i < node->field_count; i++) {
        char type[96];
        strbuf_printf(&text, " %s", type_format(node->fields[i].type, type, sizeof type));
    }
    uint64_t fingerprint = XXH3_64bits(text.data ? text.data : "", text.length);
    strbuf_free(&text);
    return fingerprint;
}

/* Ends the pending checkpoint without completing it (lock held). */
static void checkpoints_drop_pending(JobCheckpoints *checkpoints, bool failed)
{
    if (!checkpoints->pending_id)
        return;
    if (checkpoints->pending_folder)
        checkpoint_store_remove(checkpoints->pending_folder);
    free(checkpoints->pending_folder);
    checkpoints->pending_folder = NULL;
    if (checkpoints->pending_savepoint)
        checkpoints->savepoint_failed_id = checkpoints->pending_id;
    checkpoints->pending_savepoint = false;
    checkpoints->pending_id = 0;
    checkpoints->copies_running = 0; /* copies still running report to nobody */
    if (failed)
        checkpoints->failed++;
}

/* Removes completed checkpoints beyond the retained count, oldest first (lock held). */
static void checkpoints_retain(JobCheckpoints *checkpoints)
{
    while (checkpoints->completed_count > (uint32_t)checkpoints->retained) {
        checkpoint_store_remove(checkpoints->completed_folders[0]);
        free(checkpoints->completed_folders[0]);
        memmove(checkpoints->completed_folders, checkpoints->completed_folders + 1,
                (checkpoints->completed_count - 1) * sizeof *checkpoints->completed_folders);
        checkpoints->completed_count--;
    }
}

/* Writes the manifest of the pending checkpoint: it is complete (lock held). */
static int checkpoints_complete(Job *job, Diag *diag)
{
    JobCheckpoints *checkpoints = &job->checkpoints;
    CheckpointManifest manifest = {0};
    memcpy(manifest.job_id, checkpoints->job_id, sizeof manifest.job_id);
    manifest.checkpoint_id = checkpoints->pending_id;
    manifest.timestamp = checkpoints->pending_timestamp;
    manifest.parallelism = job->parallelism;
    manifest.entries = checkpoints->entries;
    manifest.count = job->operator_count;
    CheckpointCopy *written = NULL;
    if (checkpoints->copies) {
        written = calloc(job->task_count ? job->task_count : 1, sizeof *written);
        if (!written) {
            checkpoints_drop_pending(checkpoints, true);
            return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        }
        for (uint32_t t = 0; t < job->task_count; t++)
            if (checkpoints->copies[t].state == 2)
                written[manifest.copy_count++] = checkpoints->copies[t].copy;
        manifest.copies = written;
    }
    int status = checkpoint_store_write_manifest(checkpoints->pending_folder, &manifest, diag);
    uint64_t bytes = 0;
    for (uint32_t i = 0; i < manifest.copy_count; i++)
        bytes += manifest.copies[i].bytes;
    free(written);
    if (status != JOINERY_OK) {
        checkpoints_drop_pending(checkpoints, true);
        return status;
    }
    for (uint32_t i = 0; i < job->operator_count; i++)
        bytes += checkpoints->entries[i].bytes;
    checkpoints->last_bytes = bytes;
    checkpoints->last_duration_millis = datetime_now_millis() - checkpoints->pending_started;
    if (checkpoints->history_count == 8)
        memmove(checkpoints->history, checkpoints->history + 1, 7 * sizeof checkpoints->history[0]);
    else
        checkpoints->history_count++;
    int64_t *record = checkpoints->history[checkpoints->history_count - 1];
    record[0] = checkpoints->pending_id;
    record[1] = checkpoints->last_duration_millis;
    record[2] = (int64_t)bytes;
    record[3] = checkpoints->pending_alignment_nanos / 1000000;
    if (checkpoints->pending_savepoint) {
        /* a savepoint is the user's: kept, outside the retained count */
        free(checkpoints->savepoint_path);
        checkpoints->savepoint_path = checkpoints->pending_folder;
        checkpoints->pending_savepoint = false;
    } else {
        checkpoints->completed_folders[checkpoints->completed_count++] =
            checkpoints->pending_folder;
    }
    checkpoints->pending_folder = NULL;
    atomic_store(&checkpoints->completed_id, checkpoints->pending_id);
    checkpoints->completed++;
    checkpoints->pending_id = 0;
    checkpoints_retain(checkpoints);
    return JOINERY_OK;
}

/* Counts operator `index` done for the pending checkpoint; completes it after the last. */
static int checkpoints_count(Job *job, uint32_t index, Diag *diag)
{
    JobCheckpoints *checkpoints = &job->checkpoints;
    if (checkpoints->done[index])
        return JOINERY_OK;
    checkpoints->done[index] = 1;
    if (++checkpoints->done_count < job->operator_count || checkpoints->copies_running)
        return JOINERY_OK;
    return checkpoints_complete(job, diag);
}

/* StateCopySink.begin: on the task's thread, when its store starts copying for checkpoint id. */
static char *checkpoints_copy_begin(void *context, int64_t id, char file[STATE_COPY_FILE_MAX])
{
    JobStateCopy *copy = context;
    JobCheckpoints *checkpoints = &copy->job->checkpoints;
    char *path = NULL;
    pthread_mutex_lock(&checkpoints->lock);
    if (id == checkpoints->pending_id && checkpoints->pending_folder &&
        !checkpoints->pending_savepoint && copy->state == 0) {
        snprintf(file, STATE_COPY_FILE_MAX, "lmdb-%u", copy->task);
        size_t size = strlen(checkpoints->pending_folder) + strlen(file) + 2;
        path = malloc(size);
        if (path) {
            snprintf(path, size, "%s/%s", checkpoints->pending_folder, file);
            copy->state = 1;
            memset(&copy->copy, 0, sizeof copy->copy);
            copy->copy.task = (int)copy->task;
            snprintf(copy->copy.file, sizeof copy->copy.file, "%s", file);
            checkpoints->copies_running++;
        }
    }
    pthread_mutex_unlock(&checkpoints->lock);
    return path;
}

/* StateCopySink.done: on the copy's thread. A failed copy fails its checkpoint. */
static void checkpoints_copy_done(void *context, int64_t id, const char *file, int status,
                                  uint64_t bytes, uint64_t checksum, const char *error)
{
    (void)file;
    (void)error;
    JobStateCopy *copy = context;
    Job *job = copy->job;
    JobCheckpoints *checkpoints = &job->checkpoints;
    pthread_mutex_lock(&checkpoints->lock);
    if (id == checkpoints->pending_id && copy->state == 1) {
        checkpoints->copies_running--;
        if (status != JOINERY_OK) {
            copy->state = 0;
            checkpoints_drop_pending(checkpoints, true);
        } else {
            copy->state = 2;
            copy->copy.bytes = bytes;
            copy->copy.checksum = checksum;
            Diag ignored = {0};
            if (!checkpoints->copies_running && checkpoints->done_count == job->operator_count)
                checkpoints_complete(job, &ignored);
        }
    }
    pthread_mutex_unlock(&checkpoints->lock);
}

/* SnapshotStorage.states_by_copy: checkpoints in copy mode; never savepoints. */
static bool checkpoints_states_by_copy(void *context, const Barrier *barrier)
{
    Job *job = context;
    JobCheckpoints *checkpoints = &job->checkpoints;
    if (!checkpoints->copy_states)
        return false;
    pthread_mutex_lock(&checkpoints->lock);
    bool yes = barrier->checkpoint_id == checkpoints->pending_id && !checkpoints->pending_savepoint;
    pthread_mutex_unlock(&checkpoints->lock);
    return yes;
}

/* The entry of operator `index` (its identity; the caller sets the kind and file). */
static CheckpointEntry checkpoints_entry(const Job *job, uint32_t index)
{
    CheckpointEntry entry;
    memset(&entry, 0, sizeof entry);
    const Operator *op = job->operators[index].op;
    entry.plan_node_id = op->plan_node_id;
    entry.subtask = op->subtask_index;
    entry.fingerprint = job->checkpoints.fingerprints[index];
    snprintf(entry.name, sizeof entry.name, "%s", op->name ? op->name : "?");
    snprintf(entry.file, sizeof entry.file, "-");
    return entry;
}

/* The checkpoint's alignment time: its operators' longest (lock held). */
static void checkpoints_note_alignment(JobCheckpoints *checkpoints, const Operator *op,
                                       const Barrier *barrier)
{
    if (barrier->checkpoint_id == checkpoints->pending_id &&
        op->last_alignment_nanos > checkpoints->pending_alignment_nanos)
        checkpoints->pending_alignment_nanos = op->last_alignment_nanos;
}

/* SnapshotStorage.store: on the operator's task thread. */
static int checkpoints_store(void *context, Operator *op, const Barrier *barrier, const void *bytes,
                             size_t length)
{
    Job *job = context;
    JobCheckpoints *checkpoints = &job->checkpoints;
    Diag *diag = op->context->diag;
    int index = job_operator_index(job, op);
    if (index < 0)
        return JOINERY_OK;
    pthread_mutex_lock(&checkpoints->lock);
    checkpoints_note_alignment(checkpoints, op, barrier);
    char *folder = barrier->checkpoint_id == checkpoints->pending_id && checkpoints->pending_folder
                       ? strdup(checkpoints->pending_folder)
                       : NULL;
    pthread_mutex_unlock(&checkpoints->lock);
    if (!folder)
        return JOINERY_OK; /* given up (timed out), or out of memory: it will not complete */
    CheckpointEntry entry = checkpoints_entry(job, (uint32_t)index);
    int status = JOINERY_OK;
    if (length) {
        checkpoint_store_file_name(op->plan_node_id, op->subtask_index, entry.file);
        entry.bytes = length;
        status =
            checkpoint_store_write_file(folder, entry.file, bytes, length, &entry.checksum, diag);
    }
    free(folder);
    if (status != JOINERY_OK)
        return status;
    pthread_mutex_lock(&checkpoints->lock);
    if (barrier->checkpoint_id == checkpoints->pending_id) {
        checkpoints->entries[index] = entry;
        status = checkpoints_count(job, (uint32_t)index, diag);
    }
    pthread_mutex_unlock(&checkpoints->lock);
    return status;
}

/* A snapshot waiting for the writer thread. */
typedef struct CheckpointWrite {
    int64_t checkpoint_id;
    uint32_t index; /* the job operator */
    SnapshotBuffer buffer;
    struct CheckpointWrite *next;
} CheckpointWrite;

/* SnapshotStorage.store_buffer: on the operator's task thread; the file is the writer's. */
static int checkpoints_store_buffer(void *context, Operator *op, const Barrier *barrier,
                                    SnapshotBuffer *buffer)
{
    Job *job = context;
    JobCheckpoints *checkpoints = &job->checkpoints;
    if (buffer->length == 0) /* a stateless operator: counted now */
        return checkpoints_store(context, op, barrier, NULL, 0);
    pthread_mutex_lock(&checkpoints->lock);
    checkpoints_note_alignment(checkpoints, op, barrier);
    pthread_mutex_unlock(&checkpoints->lock);
    int index = job_operator_index(job, op);
    CheckpointWrite *write = index >= 0 ? calloc(1, sizeof *write) : NULL;
    if (!write) {
        snapshot_buffer_free(buffer);
        return index < 0 ? JOINERY_OK : operator_fail(op, JOINERY_ERROR_NO_MEMORY, "out of memory");
    }
    write->checkpoint_id = barrier->checkpoint_id;
    write->index = (uint32_t)index;
    write->buffer = *buffer;
    memset(buffer, 0, sizeof *buffer);
    pthread_mutex_lock(&checkpoints->lock);
    if (barrier->checkpoint_id != checkpoints->pending_id) {
        pthread_mutex_unlock(&checkpoints->lock);
        snapshot_buffer_free(&write->buffer);
        free(write);
        return JOINERY_OK; /* given up already */
    }
    if (checkpoints->writes_tail)
        checkpoints->writes_tail->next = write;
    else
        checkpoints->writes_head = write;
    checkpoints->writes_tail = write;
    pthread_cond_signal(&checkpoints->writes_ready);
    pthread_mutex_unlock(&checkpoints->lock);
    return JOINERY_OK;
}

/*
 * The writer thread: writes and syncs each queued snapshot of the pending
 * checkpoint, then counts its operator (the last one completes it). A file
 * that cannot be written fails that checkpoint (counted in `failed`); the
 * job goes on and the next checkpoint tries again.
 */
static void *checkpoints_writer(void *argument)
{
    Job *job = argument;
    JobCheckpoints *checkpoints = &job->checkpoints;
    pthread_mutex_lock(&checkpoints->lock);
    for (;;) {
        while (!checkpoints->writer_stopping && !checkpoints->writes_head)
            pthread_cond_wait(&checkpoints->writes_ready, &checkpoints->lock);
        CheckpointWrite *write = checkpoints->writes_head;
        if (!write)
            break; /* stopping, nothing queued */
        checkpoints->writes_head = write->next;
        if (!checkpoints->writes_head)
            checkpoints->writes_tail = NULL;
        char *folder = !checkpoints->writer_stopping &&
                               write->checkpoint_id == checkpoints->pending_id &&
                               checkpoints->pending_folder
                           ? strdup(checkpoints->pending_folder)
                           : NULL;
        pthread_mutex_unlock(&checkpoints->lock);
        CheckpointEntry entry = checkpoints_entry(job, write->index);
        Diag diag = {0};
        int status = JOINERY_ERROR;
        if (folder) {
            const Operator *op = job->operators[write->index].op;
            checkpoint_store_file_name(op->plan_node_id, op->subtask_index, entry.file);
            entry.bytes = write->buffer.length;
            status = checkpoint_store_write_file(folder, entry.file, write->buffer.bytes,
                                                 write->buffer.length, &entry.checksum, &diag);
        }
        free(folder);
        snapshot_buffer_free(&write->buffer);
        pthread_mutex_lock(&checkpoints->lock);
        if (folder && write->checkpoint_id == checkpoints->pending_id) {
            if (status == JOINERY_OK) {
                checkpoints->entries[write->index] = entry;
                checkpoints_count(job, write->index, &diag);
            } else {
                checkpoints_drop_pending(checkpoints, true);
            }
        }
        free(write);
    }
    pthread_mutex_unlock(&checkpoints->lock);
    return NULL;
}

/* SnapshotStorage.finished: on the operator's task thread. */
static void checkpoints_finished(void *context, Operator *op)
{
    Job *job = context;
    JobCheckpoints *checkpoints = &job->checkpoints;
    int index = job_operator_index(job, op);
    if (index < 0)
        return;
    pthread_mutex_lock(&checkpoints->lock);
    checkpoints->finished[index] = 1;
    if (checkpoints->pending_id && !checkpoints->done[index]) {
        checkpoints->entries[index] = checkpoints_entry(job, (uint32_t)index);
        checkpoints->entries[index].kind = CHECKPOINT_ENTRY_FINISHED;
        /* a failure to write the manifest fails this checkpoint; the next one may succeed */
        Diag ignored = {0};
        checkpoints_count(job, (uint32_t)index, &ignored);
    }
    pthread_mutex_unlock(&checkpoints->lock);
}

/* SnapshotStorage.final_id: the sink's end of input, on its thread. */
static int64_t checkpoints_final_id(void *context)
{
    Job *job = context;
    JobCheckpoints *checkpoints = &job->checkpoints;
    pthread_mutex_lock(&checkpoints->lock);
    checkpoints_drop_pending(checkpoints, false); /* superseded by the final one */
    int64_t id = checkpoints->next_id++;
    pthread_mutex_unlock(&checkpoints->lock);
    return id;
}

/* SnapshotStorage.store_final: the sink's snapshot, every other operator finished. */
static int checkpoints_store_final(void *context, Operator *op, const Barrier *barrier,
                                   const void *bytes, size_t length)
{
    Job *job = context;
    JobCheckpoints *checkpoints = &job->checkpoints;
    Diag *diag = op->context->diag;
    int index = job_operator_index(job, op);
    if (index < 0)
        return JOINERY_OK;
    char *folder = checkpoint_store_create_folder(checkpoints->dir, checkpoints->job_id,
                                                  barrier->checkpoint_id, diag);
    if (!folder)
        return diag->status;
    pthread_mutex_lock(&checkpoints->lock);
    checkpoints_drop_pending(checkpoints, false);
    checkpoints->pending_id = barrier->checkpoint_id;
    checkpoints->pending_folder = folder;
    checkpoints->pending_started = datetime_now_millis();
    checkpoints->pending_alignment_nanos = 0;
    checkpoints->pending_timestamp = barrier->timestamp;
    for (uint32_t i = 0; i < job->operator_count; i++) {
        checkpoints->entries[i] = checkpoints_entry(job, i);
        checkpoints->entries[i].kind = CHECKPOINT_ENTRY_FINISHED;
        checkpoints->done[i] = 0;
    }
    checkpoints->done_count = 0;
    checkpoints->copies_running = 0;
    for (uint32_t t = 0; checkpoints->copies && t < job->task_count; t++)
        checkpoints->copies[t].state = 0;
    CheckpointEntry entry = checkpoints_entry(job, (uint32_t)index);
    checkpoint_store_file_name(op->plan_node_id, op->subtask_index, entry.file);
    entry.bytes = length;
    int status =
        checkpoint_store_write_file(folder, entry.file, bytes, length, &entry.checksum, diag);
    if (status == JOINERY_OK) {
        checkpoints->entries[index] = entry;
        checkpoints->done_count = job->operator_count - 1;
        checkpoints->done[index] = 0;
        status = checkpoints_count(job, (uint32_t)index, diag);
    } else {
        checkpoints_drop_pending(checkpoints, true);
    }
    pthread_mutex_unlock(&checkpoints->lock);
    return status;
}

/*
 * Why the job's snapshots could not be restored (a source that cannot
 * resume, a state without a snapshot, a sink that refuses): written into
 * `reason`; false when there is nothing against it.
 */
static bool checkpoints_refusal(Job *job, char *reason, size_t size)
{
    for (uint32_t i = 0; i < job->source_count; i++) {
        const char *table = source_operator_cannot_resume(job->sources[i]);
        if (table) {
            snprintf(reason, size,
                     "Table '%s' cannot take part in checkpoints: its connector cannot resume "
                     "from a position yet",
                     table);
            return true;
        }
    }
    /* a stateful operator without a snapshot entry would restore empty: refused */
    for (uint32_t i = 0; i < job->operator_count; i++) {
        const PlanNode *node = job->operators[i].node;
        if (node && plan_node_is_stateful(node) && !job->operators[i].op->vtable->snapshot) {
            snprintf(reason, size,
                     "%s cannot take part in checkpoints yet: it keeps state it cannot snapshot",
                     plan_kind_name(node->kind));
            return true;
        }
    }
    const char *refusal = job->sink ? sink_operator_checkpoint_refusal(job->sink) : NULL;
    if (refusal) {
        const PlanNode *sink_node = NULL;
        for (uint32_t i = 0; i < job->operator_count; i++)
            if (job->operators[i].op == job->sink)
                sink_node = job->operators[i].node;
        const char *set_table = sink_operator_refusing_table(job->sink);
        snprintf(reason, size, "Table '%s' cannot take part in checkpoints: %s",
                 set_table                                   ? set_table
                 : sink_node && sink_node->kind == PLAN_SINK ? sink_node->sink.table->name
                                                             : "?",
                 refusal);
        return true;
    }
    return false;
}

int job_checkpoints_open(Job *job, const JobConfig *config)
{
    JobCheckpoints *checkpoints = &job->checkpoints;
    checkpoints->next_id = 1;
    bool periodic = config->checkpoint_interval_millis > 0;
    if (!periodic && !config->restore_path && !config->savepoints)
        return JOINERY_OK;
    uint32_t count = job->operator_count ? job->operator_count : 1;
    checkpoints->fingerprints = calloc(count, sizeof *checkpoints->fingerprints);
    checkpoints->entries = calloc(count, sizeof *checkpoints->entries);
    checkpoints->done = calloc(count, 1);
    checkpoints->finished = calloc(count, 1);
    if (!checkpoints->fingerprints || !checkpoints->entries || !checkpoints->done ||
        !checkpoints->finished)
        return diag_error(job->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    if (pthread_mutex_init(&checkpoints->lock, NULL) != 0)
        return diag_error(job->diag, JOINERY_ERROR, "could not create a lock for the job");
    checkpoints->lock_ready = true;
    for (uint32_t i = 0; i < job->operator_count; i++)
        checkpoints->fingerprints[i] = job_node_fingerprint(job, job->operators[i].node);
    if (config->job_id && strlen(config->job_id) == CHECKPOINT_JOB_ID_LENGTH)
        memcpy(checkpoints->job_id, config->job_id, CHECKPOINT_JOB_ID_LENGTH + 1);
    else
        checkpoint_store_new_job_id(checkpoints->job_id);
    if (!periodic && !config->savepoints)
        return JOINERY_OK;
    if (periodic && (!config->checkpoint_dir || !*config->checkpoint_dir))
        return diag_error(job->diag, JOINERY_ERROR_VALIDATE,
                          "Checkpoints ('execution.checkpointing.interval') need a folder: set "
                          "'execution.checkpointing.dir' (or 'state.checkpoints.dir')");
    char reason[512];
    if (checkpoints_refusal(job, reason, sizeof reason)) {
        if (periodic)
            return diag_error(job->diag, JOINERY_ERROR_UNSUPPORTED,
                              "%s (unset 'execution.checkpointing.interval')", reason);
        /* a job that may stop with a savepoint runs; STOP JOB ... WITH SAVEPOINT says why not */
        checkpoints->savepoint_refusal = strdup(reason);
        return checkpoints->savepoint_refusal
                   ? JOINERY_OK
                   : diag_error(job->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    }
    checkpoints->enabled = periodic;
    checkpoints->interval_millis = config->checkpoint_interval_millis;
    checkpoints->timeout_millis =
        config->checkpoint_timeout_millis > 0 ? config->checkpoint_timeout_millis : 600000;
    checkpoints->retained = config->checkpoint_retained > 0 ? config->checkpoint_retained : 1;
    checkpoints->completed_folders =
        calloc((size_t)checkpoints->retained + 1, sizeof *checkpoints->completed_folders);
    checkpoints->dir = strdup(periodic ? config->checkpoint_dir : "");
    if (!checkpoints->completed_folders || !checkpoints->dir)
        return diag_error(job->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    if (pthread_cond_init(&checkpoints->writes_ready, NULL) != 0)
        return diag_error(job->diag, JOINERY_ERROR, "could not create a lock for the job");
    checkpoints->writes_ready_made = true;
    if (pthread_create(&checkpoints->writer, NULL, checkpoints_writer, job) != 0)
        return diag_error(job->diag, JOINERY_ERROR, "could not start a thread for checkpoints");
    checkpoints->writer_started = true;
    checkpoints->storage = (SnapshotStorage){
        .store = checkpoints_store,
        .store_buffer = checkpoints_store_buffer,
        .context = job,
        .finished = checkpoints_finished,
        /* the last checkpoint at the sink's end needs the checkpoint folder */
        .final_id = periodic && sink_operator_exactly_once(job->sink) ? checkpoints_final_id : NULL,
        .store_final = checkpoints_store_final,
        .states_by_copy = checkpoints_states_by_copy,
    };
    if (periodic && job->state_backend == STATE_BACKEND_LMDB && !config->lmdb_checkpoint_records) {
        checkpoints->copies =
            calloc(job->task_count ? job->task_count : 1, sizeof *checkpoints->copies);
        if (!checkpoints->copies)
            return diag_error(job->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        for (uint32_t t = 0; t < job->task_count; t++) {
            checkpoints->copies[t].job = job;
            checkpoints->copies[t].task = t;
            StateStore *store = job->tasks[t]->state_store;
            if (!store)
                continue;
            StateCopySink sink = {checkpoints_copy_begin, checkpoints_copy_done,
                                  &checkpoints->copies[t]};
            state_store_set_copy_sink(store, &sink);
        }
        checkpoints->copy_states = true;
    }
    checkpoints->storage_ready = true;
    job_set_snapshot_storage(job, &checkpoints->storage);
    return JOINERY_OK;
}

/* The job operator of (node, subtask); -1 when none. */
static int job_find_operator(const Job *job, int plan_node_id, int subtask)
{
    for (uint32_t i = 0; i < job->operator_count; i++) {
        const Operator *op = job->operators[i].op;
        if (op->plan_node_id == plan_node_id && op->subtask_index == subtask)
            return (int)i;
    }
    return -1;
}

/* Checks that the checkpoint is one of this query at this parallelism. */
static int checkpoints_check_match(Job *job, const CheckpointManifest *manifest, const char *folder)
{
    if (manifest->parallelism != job->parallelism)
        return diag_error(job->diag, JOINERY_ERROR_VALIDATE,
                          "Cannot restore from '%s': it was taken at parallelism %d and this "
                          "job runs at parallelism %d (joinery cannot redistribute state yet)",
                          folder, manifest->parallelism, job->parallelism);
    for (uint32_t i = 0; i < manifest->count; i++) {
        const CheckpointEntry *entry = &manifest->entries[i];
        int index = job_find_operator(job, entry->plan_node_id, entry->subtask);
        if (index < 0 || job->checkpoints.fingerprints[index] != entry->fingerprint)
            return diag_error(job->diag, JOINERY_ERROR_VALIDATE,
                              "Cannot restore from '%s': the query does not match its state "
                              "(the checkpoint's operator %d, %s, subtask %d, %s this job); "
                              "restore it into the query that took it",
                              folder, entry->plan_node_id, entry->name, entry->subtask,
                              index < 0 ? "is not in" : "differs in");
    }
    for (uint32_t i = 0; i < job->operator_count; i++) {
        const Operator *op = job->operators[i].op;
        bool found = false;
        for (uint32_t e = 0; e < manifest->count && !found; e++)
            found = manifest->entries[e].plan_node_id == op->plan_node_id &&
                    manifest->entries[e].subtask == op->subtask_index;
        if (!found)
            return diag_error(job->diag, JOINERY_ERROR_VALIDATE,
                              "Cannot restore from '%s': the query does not match its state "
                              "(operator %d, %s, has no state in the checkpoint); restore it "
                              "into the query that took it",
                              folder, op->plan_node_id, op->name);
    }
    return JOINERY_OK;
}

/* Reads one operator's snapshot into it. */
static int checkpoints_restore_entry(Job *job, const CheckpointEntry *entry, const char *folder)
{
    int index = job_find_operator(job, entry->plan_node_id, entry->subtask);
    Operator *op = job->operators[index].op;
    if (entry->kind == CHECKPOINT_ENTRY_FINISHED) {
        if (op->input_count == 0 && op->vtable->snapshot) /* a source */
            job->checkpoints.finished[index] = 2;         /* ends at its task's first round */
        return JOINERY_OK;
    }
    if (entry->bytes == 0)
        return JOINERY_OK; /* a stateless operator */
    SnapshotBuffer buffer = {0};
    int status = checkpoint_store_read_file(folder, entry, &buffer, job->diag);
    if (status == JOINERY_OK) {
        StateReader reader = snapshot_buffer_reader(&buffer);
        status = operator_restore(op, &reader);
        if (status != JOINERY_OK && op->context->diag != job->diag &&
            job->diag->status == JOINERY_OK)
            *job->diag = *op->context->diag;
        if (status == JOINERY_OK && buffer.read_offset != buffer.length)
            status = diag_error(job->diag, JOINERY_ERROR_VALIDATE,
                                "Cannot restore from '%s': the state of %s does not match "
                                "its operator (%zu bytes left over)",
                                folder, op->name, buffer.length - buffer.read_offset);
    }
    snapshot_buffer_free(&buffer);
    return status;
}

/*
 * After a checkpoint was refused for a damaged file (store errors are
 * JOINERY_ERROR_RUNTIME): names the newest older complete checkpoint of the
 * same job, if one was retained, in the message.
 */
static void checkpoints_point_at_previous(Job *job, const char *path)
{
    if (job->diag->status != JOINERY_ERROR_RUNTIME)
        return;
    char *folder = strdup(path);
    if (!folder)
        return;
    size_t length = strlen(folder);
    static const char METADATA[] = "/_metadata";
    if (length > sizeof METADATA - 1 &&
        strcmp(folder + length - (sizeof METADATA - 1), METADATA) == 0)
        folder[length - (sizeof METADATA - 1)] = '\0';
    char *previous = checkpoint_store_previous(folder);
    size_t used = strlen(job->diag->message);
    if (previous && used + 2 < sizeof job->diag->message)
        snprintf(job->diag->message + used, sizeof job->diag->message - used,
                 "; the previous retained checkpoint '%s' is complete: set "
                 "'execution.state-recovery.path' to it to restore from there",
                 previous);
    free(previous);
    free(folder);
}

int job_checkpoints_restore(Job *job, const char *path)
{
    if (!path || !*path)
        return JOINERY_OK;
    CheckpointManifest manifest;
    char *folder = NULL;
    int64_t started = datetime_now_millis();
    int status = checkpoint_store_read_manifest(path, &manifest, &folder, job->diag);
    if (status == JOINERY_OK)
        status = checkpoints_check_match(job, &manifest, folder);
    /* environment copies: checked whole before any state is read from them */
    for (uint32_t i = 0; i < manifest.copy_count && status == JOINERY_OK; i++)
        status = checkpoint_store_verify_copy(folder, &manifest.copies[i], job->diag);
    for (uint32_t t = 0; t < job->task_count && status == JOINERY_OK; t++)
        if (job->tasks[t]->state_store &&
            state_store_set_restore_folder(job->tasks[t]->state_store, folder) != JOINERY_OK)
            status = diag_error(job->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    for (uint32_t i = 0; i < manifest.count && status == JOINERY_OK; i++)
        status = checkpoints_restore_entry(job, &manifest.entries[i], folder);
    for (uint32_t t = 0; t < job->task_count; t++)
        if (job->tasks[t]->state_store)
            (void)state_store_set_restore_folder(job->tasks[t]->state_store, NULL);
    if (status != JOINERY_OK)
        checkpoints_point_at_previous(job, path);
    if (status == JOINERY_OK) {
        job->checkpoints.next_id = manifest.checkpoint_id + 1;
        job->checkpoints.restored_id = manifest.checkpoint_id;
        for (uint32_t i = 0; i < manifest.count; i++)
            job->checkpoints.restored_bytes += manifest.entries[i].bytes;
        for (uint32_t i = 0; i < manifest.copy_count; i++)
            job->checkpoints.restored_bytes += manifest.copies[i].bytes;
        job->checkpoints.restored_millis = datetime_now_millis() - started;
    }
    checkpoint_manifest_free(&manifest);
    free(folder);
    return status;
}

int job_checkpoints_start_task(JobTask *task)
{
    Job *job = task->job;
    if (!job->checkpoints.finished)
        return JOINERY_OK;
    for (uint32_t i = 0; i < job->operator_count; i++) {
        Operator *op = job->operators[i].op;
        if (op->task != task->index || job->checkpoints.finished[i] != 2)
            continue;
        int status = source_operator_end_restored(op);
        if (status != JOINERY_OK)
            return status;
    }
    return JOINERY_OK;
}

/* Makes checkpoint `id` in `folder` the pending one (lock held, none pending). */
static void checkpoints_begin_pending(Job *job, int64_t id, char *folder)
{
    JobCheckpoints *checkpoints = &job->checkpoints;
    checkpoints->pending_id = id;
    checkpoints->pending_folder = folder;
    checkpoints->pending_started = datetime_now_millis();
    checkpoints->pending_alignment_nanos = 0;
    checkpoints->pending_timestamp = checkpoints->pending_started;
    checkpoints->done_count = 0;
    memset(checkpoints->done, 0, job->operator_count);
    checkpoints->copies_running = 0;
    for (uint32_t t = 0; checkpoints->copies && t < job->task_count; t++)
        checkpoints->copies[t].state = 0;
    /* operators that ended take no part: counted as finished at once */
    for (uint32_t i = 0; i < job->operator_count; i++)
        if (checkpoints->finished[i] == 1) {
            checkpoints->entries[i] = checkpoints_entry(job, i);
            checkpoints->entries[i].kind = CHECKPOINT_ENTRY_FINISHED;
            checkpoints->done[i] = 1;
            checkpoints->done_count++;
        }
}

int job_checkpoints_tick(Job *job, int64_t now)
{
    JobCheckpoints *checkpoints = &job->checkpoints;
    if (!checkpoints->storage_ready)
        return JOINERY_OK;
    int64_t completed = atomic_load(&checkpoints->completed_id);
    if (completed > atomic_load(&checkpoints->committed_id)) {
        int status = sink_operator_commit(job->sink, completed);
        atomic_store(&checkpoints->committed_id, completed);
        if (status != JOINERY_OK)
            return status;
    }
    if (!checkpoints->enabled)
        return JOINERY_OK;
    if (now < checkpoints->next_trigger)
        return JOINERY_OK;
    if (!checkpoints->next_trigger) {
        checkpoints->next_trigger = now + checkpoints->interval_millis;
        return JOINERY_OK;
    }
    pthread_mutex_lock(&checkpoints->lock);
    if (checkpoints->pending_id && now - checkpoints->pending_started > checkpoints->timeout_millis)
        checkpoints_drop_pending(checkpoints, true);
    bool busy = checkpoints->pending_id != 0;
    int64_t id = 0;
    char *folder = NULL;
    Diag diag = {0};
    if (!busy) {
        id = checkpoints->next_id++;
        folder = checkpoint_store_create_folder(checkpoints->dir, checkpoints->job_id, id, &diag);
    }
    if (folder) {
        checkpoints_begin_pending(job, id, folder);
    } else if (!busy) {
        checkpoints->failed++; /* the folder could not be made: try again next interval */
    }
    pthread_mutex_unlock(&checkpoints->lock);
    checkpoints->next_trigger = now + checkpoints->interval_millis;
    if (!folder)
        return JOINERY_OK;
    Diag trigger_diag = {0};
    if (job_trigger_barrier(job, id, &trigger_diag) != JOINERY_OK) {
        pthread_mutex_lock(&checkpoints->lock);
        if (checkpoints->pending_id == id)
            checkpoints_drop_pending(checkpoints, true);
        pthread_mutex_unlock(&checkpoints->lock);
    }
    return JOINERY_OK;
}

/* Sleeps a few milliseconds (waits that poll a condition set by another thread). */
static void checkpoints_nap(void)
{
    struct timespec pause = {0, 5 * 1000 * 1000};
    nanosleep(&pause, NULL);
}

int job_stop_with_savepoint(Job *job, const char *dir, bool drain, const volatile int *ended,
                            char **path, Diag *diag)
{
    JobCheckpoints *checkpoints = &job->checkpoints;
    *path = NULL;
    if (checkpoints->savepoint_refusal)
        return diag_error(diag, JOINERY_ERROR_UNSUPPORTED, "Cannot take a savepoint: %s",
                          checkpoints->savepoint_refusal);
    if (!checkpoints->storage_ready)
        return diag_error(diag, JOINERY_ERROR_UNSUPPORTED,
                          "Cannot take a savepoint: the job was not started to take one");
    int64_t id = 0;
    while (!id) {
        if (*ended)
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "Cannot take a savepoint: the job is no longer running");
        pthread_mutex_lock(&checkpoints->lock);
        if (!checkpoints->pending_id) { /* a periodic checkpoint in flight ends first */
            char *folder = checkpoint_store_create_savepoint_folder(dir, checkpoints->job_id, diag);
            if (!folder) {
                pthread_mutex_unlock(&checkpoints->lock);
                return diag->status;
            }
            id = checkpoints->next_id++;
            checkpoints_begin_pending(job, id, folder);
            checkpoints->pending_savepoint = true;
        }
        pthread_mutex_unlock(&checkpoints->lock);
        if (!id)
            checkpoints_nap();
    }
    atomic_store(&job->drain_sources, drain ? 1 : 0);
    atomic_store(&job->halt_barrier, id);
    int status = job_trigger_barrier(job, id, diag);
    bool done = false;
    while (status == JOINERY_OK && !done) {
        pthread_mutex_lock(&checkpoints->lock);
        done = atomic_load(&checkpoints->completed_id) >= id;
        bool failed = !done && checkpoints->pending_id != id;
        pthread_mutex_unlock(&checkpoints->lock);
        if (failed)
            status = diag_error(diag, JOINERY_ERROR_RUNTIME,
                                "Cannot take a savepoint: a snapshot could not be written (see "
                                "SHOW JOB METRICS: failed checkpoints)");
        else if (!done && *ended)
            status = diag_error(diag, JOINERY_ERROR_VALIDATE,
                                "Cannot take a savepoint: the job ended before it was complete");
        else if (!done)
            checkpoints_nap();
    }
    /* the sink's task makes the savepoint's output visible (commit) before the job stops */
    while (status == JOINERY_OK && atomic_load(&checkpoints->committed_id) < id && !*ended)
        checkpoints_nap();
    if (status != JOINERY_OK) {
        pthread_mutex_lock(&checkpoints->lock);
        if (checkpoints->pending_id == id)
            checkpoints_drop_pending(checkpoints, true);
        pthread_mutex_unlock(&checkpoints->lock);
        atomic_store(&job->halt_barrier, 0); /* the job goes on */
        return status;
    }
    pthread_mutex_lock(&checkpoints->lock);
    *path = checkpoints->savepoint_path ? strdup(checkpoints->savepoint_path) : NULL;
    pthread_mutex_unlock(&checkpoints->lock);
    if (!*path)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    atomic_store(&job->stopped_with_savepoint, 1);
    return JOINERY_OK;
}

bool job_stopped_with_savepoint(Job *job)
{
    return atomic_load(&job->stopped_with_savepoint) != 0;
}

void job_checkpoints_format(Job *job, StrBuf *out)
{
    JobCheckpoints *checkpoints = &job->checkpoints;
    if (!checkpoints->enabled)
        return;
    pthread_mutex_lock(&checkpoints->lock);
    strbuf_printf(out, "checkpoints: %llu completed, %llu failed, in %s/%s/\n",
                  (unsigned long long)checkpoints->completed,
                  (unsigned long long)checkpoints->failed, checkpoints->dir, checkpoints->job_id);
    if (checkpoints->restored_id)
        strbuf_printf(out, "  restored from checkpoint %lld: %llu bytes in %lld ms\n",
                      (long long)checkpoints->restored_id,
                      (unsigned long long)checkpoints->restored_bytes,
                      (long long)checkpoints->restored_millis);
    if (checkpoints->copy_states) {
        uint64_t references = 0, walks = 0, waits = 0, nanos = 0, deferred = 0;
        for (uint32_t t = 0; t < job->task_count; t++)
            if (job->tasks[t]->state_store) {
                StateStore *store = job->tasks[t]->state_store;
                uint64_t task_nanos = 0, task_deferred = 0;
                references += state_store_copy_references(store);
                walks += state_store_copy_walks(store);
                waits += state_store_copy_gate_waits(store, &task_nanos, &task_deferred);
                nanos += task_nanos;
                deferred += task_deferred;
            }
        strbuf_printf(out,
                      "  lmdb environment copies: %llu state snapshots by reference, %llu walked "
                      "(their operator's barrier came after the task's copy began); until a "
                      "copy began, %llu commits deferred, %llu unit splits waited %.1f ms\n",
                      (unsigned long long)references, (unsigned long long)walks,
                      (unsigned long long)deferred, (unsigned long long)waits, (double)nanos / 1e6);
    }
    for (uint32_t i = 0; i < checkpoints->history_count; i++)
        strbuf_printf(out, "  chk-%lld  %lld ms  %lld bytes  alignment %lld ms\n",
                      (long long)checkpoints->history[i][0], (long long)checkpoints->history[i][1],
                      (long long)checkpoints->history[i][2], (long long)checkpoints->history[i][3]);
    pthread_mutex_unlock(&checkpoints->lock);
}

void job_checkpoints_close(Job *job)
{
    JobCheckpoints *checkpoints = &job->checkpoints;
    /* copies in flight report under the lock: they end first */
    for (uint32_t t = 0; checkpoints->copies && t < job->task_count; t++)
        if (job->tasks[t]->state_store) {
            state_store_wait_copy(job->tasks[t]->state_store);
            state_store_set_copy_sink(job->tasks[t]->state_store, NULL);
        }
    if (checkpoints->writer_started) {
        pthread_mutex_lock(&checkpoints->lock);
        checkpoints->writer_stopping = true; /* what is still queued is dropped */
        pthread_cond_signal(&checkpoints->writes_ready);
        pthread_mutex_unlock(&checkpoints->lock);
        pthread_join(checkpoints->writer, NULL);
    }
    if (checkpoints->writes_ready_made)
        pthread_cond_destroy(&checkpoints->writes_ready);
    if (checkpoints->lock_ready) {
        /* an incomplete checkpoint is not left behind (a crash leaves one, without _metadata) */
        checkpoints_drop_pending(checkpoints, false);
        pthread_mutex_destroy(&checkpoints->lock);
    }
    for (uint32_t i = 0; i < checkpoints->completed_count; i++)
        free(checkpoints->completed_folders[i]);
    free(checkpoints->completed_folders);
    free(checkpoints->fingerprints);
    free(checkpoints->entries);
    free(checkpoints->done);
    free(checkpoints->finished);
    free(checkpoints->dir);
    free(checkpoints->savepoint_refusal);
    free(checkpoints->savepoint_path);
    free(checkpoints->copies);
    memset(checkpoints, 0, sizeof *checkpoints);
}
