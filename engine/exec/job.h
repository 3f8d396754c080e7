/*
 * job.h - a running query: the operators built from a physical plan, the
 * sources that feed them, and the loop that drives them.
 *
 * A job is built from a physical plan (job_create), run to the end of its
 * bounded sources or until cancelled (job_run), inspected (metrics) and
 * destroyed. With parallelism p, every keyed operator has p subtasks and
 * exchanges route rows by key hash to them.
 */
#ifndef JOINERY_EXEC_JOB_H
#define JOINERY_EXEC_JOB_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/base/diag.h"
#include "engine/base/row.h"
#include "engine/base/strbuf.h"
#include "engine/exec/snapshot.h"
#include "engine/plan/plan.h"
#include "engine/state/state.h"

/* table.exec.async-table.*: how an async C table function's calls run (AsyncCorrelate). */
typedef struct AsyncTableConfig {
    int capacity;               /* max-concurrent-operations; 0: 10 */
    int64_t timeout_millis;     /* timeout, a call's retries included; 0: 3 min */
    int max_retries;            /* a failed call is started again this often; 0: never
                                   (retry-strategy NO_RETRY) */
    int64_t retry_delay_millis; /* retry-delay: the wait before each new start */
} AsyncTableConfig;

typedef struct Job Job;

/*
 * The session options a job reads: a typed snapshot built once per statement
 * from the session's options (job_config_from_options, engine/stmt/options.h),
 * so no executor code reads an option by its key.
 */
typedef struct JobConfig {
    int parallelism;                /* parallelism.default: subtasks of scans and keyed operators */
    uint64_t datagen_seed;          /* table.exec.datagen.seed */
    bool multi_join_pruning;        /* table.optimizer.multi-join.empty-result-pruning.enabled */
    int64_t idle_timeout_millis;    /* table.exec.source.idle-timeout, for WatermarkAssigners */
    StateBackendKind state_backend; /* state.backend.type (or the run's default) */
    const char *lmdb_path;          /* state.backend.lmdb.path (NULL: a temporary folder); borrowed
                                       until job_create returns */
    uint64_t hashmap_max_bytes; /* state.backend.hashmap.max-bytes; 0: from the process's limit */
    /* state.backend.lmdb.checkpoint-mode = records: checkpoints walk LMDB states instead of
       copying each task's environment */
    bool lmdb_checkpoint_records;
    /* how long a cancelled job drains before it stops hard (a stuck sink); 0: the default,
       JOB_DRAIN_LIMIT_MILLIS; not an option (tests under valgrind give more) */
    int64_t drain_limit_millis;
    /* the session's cancel flag (Ctrl-C), for the waits connectors make while the job is
       created (Kafka's metadata retries): they give up when it is set. May be NULL. */
    volatile int *cancel_requested;
    /* checkpoints (checkpoint.h): execution.checkpointing.interval (0: none), .dir (where
       <job id>/chk-<n>/ go; borrowed until job_create returns), .num-retained, .timeout */
    int64_t checkpoint_interval_millis;
    const char *checkpoint_dir;
    int checkpoint_retained;
    int64_t checkpoint_timeout_millis;
    /* execution.state-recovery.path: a checkpoint folder to resume from (NULL: none);
       borrowed until job_create returns */
    const char *restore_path;
    /* the job's id, 32 lowercase hex digits (checkpoints go to <dir>/<job id>/); NULL: a new
       random one. Borrowed until job_create returns. */
    const char *job_id;
    /* the job may be stopped with a savepoint (job_stop_with_savepoint): snapshots are taken
       at barriers even without periodic checkpoints. A job whose parts cannot take part in
       checkpoints still runs; its savepoint is refused with the reason. */
    bool savepoints;
    /* pipeline.global-job-parameters, for user-defined functions (NULL: none); borrowed
       until job_create returns */
    const char *job_parameters;
    /* table.exec.async-table.* (async C table functions) */
    AsyncTableConfig async_table;
} JobConfig;

enum { JOB_DRAIN_LIMIT_MILLIS = 10000 };

/* Where a job's results go. */
typedef struct JobOutput {
    void *context;
    /* A result row of a SELECT (root without sink), kind in the row. */
    int (*row)(void *context, const Row *row);
    /* A line of text from a print sink. */
    int (*write_line)(void *context, const char *line);
    /* Progress line (rows, state) about every 200 ms while running. May be NULL. */
    int (*status)(void *context, const char *line);
    /* job_format_metrics's table about every second while a job runs on one thread (not
       threaded: read where written). May be NULL. */
    int (*metrics)(void *context, const char *text);
} JobOutput;

/*
 * Builds the operators for `physical`: a query, an INSERT's Sink, or a
 * statement set (PLAN_STATEMENT_SET over Sinks that may share sub-plans:
 * each shared node runs once and feeds all its consumers, and one sink
 * operator writes every table). The plan must outlive the job; config
 * and output are copied. A parallelism below 1 runs as 1. Returns JOINERY_OK
 * or an error (e.g. a source that cannot open its file); after an error *job
 * may hold the half-built job, which job_destroy frees (the caller starts it
 * at NULL: job_destroy(NULL) is a no-op).
 */
int job_create(const PlanNode *physical, const JobConfig *config, const JobOutput *output,
               Job **job, Diag *diag);
/*
 * Runs until every source has ended (bounded) or *cancel_requested becomes
 * non-zero (returns JOINERY_CANCELLED) or an operator fails.
 */
int job_run(Job *job, volatile int *cancel_requested, Diag *diag);
/*
 * Asks every source to start checkpoint barrier `checkpoint_id` (timestamp:
 * now) between two of its batches (snapshot.h); each task's sources start
 * it at the task's next loop round, all in that round, and sources that
 * ended skip it. Ids increase: JOINERY_ERROR_VALIDATE (diag filled) for an
 * id not above the last one. Safe from any thread while the job runs (a
 * test, later the checkpoint coordinator); before job_run, the barrier
 * waits for the first round.
 */
int job_trigger_barrier(Job *job, int64_t checkpoint_id, Diag *diag);
/*
 * Where the snapshots operators take at barriers go (NULL: none are taken;
 * barriers still align). Before job_run; `storage` outlives the run.
 */
void job_set_snapshot_storage(Job *job, const SnapshotStorage *storage);
/*
 * Flink's stop-with-savepoint, from another thread while job_run runs: takes
 * a savepoint into <dir>/savepoint-<id prefix>-<random>/ (a checkpoint's
 * layout: operator files, _metadata last). Its barrier starts at every
 * source, after which the sources are no longer polled; with `drain` each
 * source first emits the MAX watermark, so event-time windows, joins and
 * timers fire and their output is in the savepoint (Flink's WITH DRAIN).
 * Waits until the savepoint is complete and the sink has made its output
 * visible, then marks the job so that the cancel that must follow (the
 * caller's cancel flag) commits nothing more and leaves the sources'
 * positions to the savepoint. *path gets the folder (heap). `ended` is the
 * caller's flag that job_run returned: the wait gives up then. On an error
 * (no savepoint possible: the diag says why; a file that could not be
 * written; the job ended) the job goes on polling its sources and *path
 * stays NULL.
 */
int job_stop_with_savepoint(Job *job, const char *dir, bool drain, const volatile int *ended,
                            char **path, Diag *diag);
/* Whether job_stop_with_savepoint succeeded: the cancel after it ended the job. */
bool job_stopped_with_savepoint(Job *job);
/*
 * Progress of a running job, safe from any thread: rows read and state bytes
 * as its tasks last published them, and its checkpoints. Appends lines to out.
 */
void job_format_progress(Job *job, StrBuf *out);
/* Rows written by the job's sink (INSERT INTO), or result rows (SELECT). */
uint64_t job_rows_written(const Job *job);
/* Rows written to the table of Sink `index` of a statement set's job (its plan's root is a
   PLAN_STATEMENT_SET); 0 past the last. */
uint64_t job_table_rows_written(const Job *job, uint32_t index);
/* Bad records the job's sources skipped (json.ignore-parse-errors and the like). */
uint64_t job_skipped_rows(const Job *job);
/* Calls warn(context, line) for each warning of the job's sources (a dangling link skipped),
   one line each without '\n', in source order. */
void job_report_warnings(const Job *job, void (*warn)(void *context, const char *line),
                         void *context);
/* Appends a per-operator metrics table (rows in/out, state, busy) to out. */
void job_format_metrics(Job *job, StrBuf *out);
/* Frees the job and its operators. NULL is a no-op. */
void job_destroy(Job *job);

#endif
