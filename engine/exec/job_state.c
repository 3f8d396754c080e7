/*
 * job_state.c - the state stores of a job: one StateStore per task (thread)
 * that runs a stateful operator or one that registers timers (timers are
 * state, timer_service.h), of the backend the job's config names, all
 * sharing the job's hashmap budget; with LMDB, one environment per task in
 * its own folder under the job's folder.
 *
 * Why a store per task and not one per job: LMDB has a single writer per
 * environment, so one environment shared by the job's threads would
 * serialise them, and a producer holding the write transaction while it
 * waits for room in a full mailbox would deadlock the consumer waiting for
 * that transaction. A task's operators run one after another on its thread,
 * so they share its store and its transaction (one unit of work per batch,
 * timer round or mailbox message: job_run.c commits after each).
 *
 * The job's folder is `state.backend.lmdb.path`/joinery-job-<pid>-<n>, or a
 * new temporary folder; it is removed when the job is destroyed.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/exec/job_internal.h"

/* Creates `path` and its missing parents (mkdir -p). 0, or -1 with errno set. */
static int job_make_folders(const char *path)
{
    char partial[4096];
    size_t length = strlen(path);
    if (length == 0 || length >= sizeof partial) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(partial, path, length + 1);
    for (char *slash = partial + 1; *slash; slash++) {
        if (*slash != '/')
            continue;
        *slash = '\0';
        if (mkdir(partial, 0700) != 0 && errno != EEXIST)
            return -1;
        *slash = '/';
    }
    if (mkdir(partial, 0700) != 0 && errno != EEXIST)
        return -1;
    return 0;
}

/* The job's folder for LMDB stores, created; JOINERY_OK or an error naming the path. */
static int job_state_folder(Job *job, const char *root)
{
    static _Atomic unsigned job_counter;
    char path[4096];
    if (root && root[0]) {
        if (job_make_folders(root) != 0)
            return diag_error(job->diag, JOINERY_ERROR_VALIDATE,
                              "state.backend.lmdb.path '%s' cannot be used: %s", root,
                              strerror(errno));
        snprintf(path, sizeof path, "%s/joinery-job-%ld-%u", root, (long)getpid(),
                 atomic_fetch_add(&job_counter, 1));
        if (mkdir(path, 0700) != 0)
            return diag_error(job->diag, JOINERY_ERROR_VALIDATE,
                              "cannot create the job's state folder '%s': %s", path,
                              strerror(errno));
    } else {
        const char *temporary = getenv("TMPDIR");
        snprintf(path, sizeof path, "%s/joinery-state-XXXXXX",
                 temporary && temporary[0] ? temporary : "/tmp");
        if (!mkdtemp(path))
            return diag_error(job->diag, JOINERY_ERROR_VALIDATE,
                              "cannot create a temporary folder for the job's state (%s): %s", path,
                              strerror(errno));
    }
    job->state_folder = strdup(path);
    if (!job->state_folder) {
        rmdir(path);
        return diag_error(job->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    }
    return JOINERY_OK;
}

/* True when an operator of task `task` keeps keyed state or registers timers. */
static bool job_task_is_stateful(const Job *job, int task)
{
    for (uint32_t i = 0; i < job->operator_count; i++) {
        const JobOperator *entry = &job->operators[i];
        if (entry->op->task == task &&
            (entry->op->uses_timers || (entry->node && plan_node_is_stateful(entry->node))))
            return true;
    }
    return false;
}

int job_state_open(Job *job, const JobConfig *config)
{
    job->state_backend = config->state_backend;
    state_budget_init(&job->state_budget, config->hashmap_max_bytes);
    bool any = false;
    for (uint32_t t = 0; t < job->task_count && !any; t++)
        any = job_task_is_stateful(job, (int)t);
    if (!any)
        return JOINERY_OK;
    if (job->state_backend == STATE_BACKEND_LMDB) {
        int status = job_state_folder(job, config->lmdb_path);
        if (status != JOINERY_OK)
            return status;
    }
    for (uint32_t t = 0; t < job->task_count; t++) {
        JobTask *task = job->tasks[t];
        if (!job_task_is_stateful(job, (int)t))
            continue;
        char folder[4200];
        StateStoreConfig store_config = {job->state_backend, NULL, &job->state_budget};
        if (job->state_folder) {
            snprintf(folder, sizeof folder, "%s/task-%u", job->state_folder, t);
            store_config.directory = folder;
        }
        int status = state_store_open(&store_config, &task->state_store, job->diag);
        if (status != JOINERY_OK)
            return status;
        task->context.state_store = task->state_store;
    }
    return JOINERY_OK;
}

int job_task_commit(JobTask *task)
{
    if (!task->state_store)
        return JOINERY_OK;
    return state_store_commit(task->state_store, task->context.diag);
}

int job_state_commit(Job *job)
{
    for (uint32_t t = 0; t < job->task_count; t++) {
        StateStore *store = job->tasks[t]->state_store;
        int status = store ? state_store_commit(store, job->diag) : JOINERY_OK;
        if (status != JOINERY_OK)
            return status;
    }
    return JOINERY_OK;
}

void job_state_close(Job *job)
{
    for (uint32_t t = 0; t < job->task_count; t++) {
        state_store_close(job->tasks[t]->state_store);
        job->tasks[t]->state_store = NULL;
    }
    if (job->state_folder) {
        rmdir(job->state_folder); /* the stores removed what they put in it */
        free(job->state_folder);
        job->state_folder = NULL;
    }
}
