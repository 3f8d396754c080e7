/*
 * jobs.h - the session's jobs (jobs.c), as Flink's SQL client manages them:
 * INSERT INTO submitted in the background (table.dml-sync = false), SHOW
 * JOBS, DESCRIBE JOB, STOP JOB [WITH SAVEPOINT] [WITH DRAIN], SHOW JOB
 * METRICS '<id>', and waiting for or cancelling what still runs.
 *
 * Invariants: every INSERT job of the session is recorded (id, name,
 * status, start time), also the ones that ran in the foreground; a
 * background job runs job_run on a thread of its own with its own cancel
 * flag and owns the statement arena that holds its plan (moved into the
 * record when its INSERT statement ends); only that thread
 * writes the job's end (status, final metrics, error), published through
 * `ended`; the session's thread joins the thread and frees the job and its
 * arena (jobs_reap, before every statement, and at the end). While a job
 * runs, no table it reads or writes may be dropped (jobs_table_in_use).
 */
#ifndef JOINERY_STMT_JOBS_H
#define JOINERY_STMT_JOBS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "engine/base/arena.h"
#include "engine/base/strbuf.h"
#include "engine/exec/job.h"
#include "engine/sql/ast.h"

typedef enum SessionJobStatus {
    SESSION_JOB_RUNNING = 0,
    SESSION_JOB_FINISHED,
    SESSION_JOB_CANCELED,
    SESSION_JOB_FAILED,
} SessionJobStatus;

typedef struct SessionJob {
    char id[33];
    char *name;           /* heap */
    char *sink_name;      /* the sink table, for the closing message (heap) */
    int64_t start_millis; /* when it was submitted */
    bool background;
    Job *job;    /* while it may run; NULL once reaped (foreground: once ended) */
    Arena arena; /* background: the statement arena holding its plan */
    bool arena_owned;
    const PlanNode *physical; /* its plan (in arena) */
    pthread_t thread;
    bool thread_started;
    volatile int cancel; /* the job's own cancel flag (STOP JOB, the end of the session) */
    volatile int ended;  /* job_run returned and the fields below are final */
    _Atomic int status;  /* SessionJobStatus */
    StrBuf metrics;      /* the final SHOW JOB METRICS table */
    uint64_t rows_written;
    char *tables_written; /* a statement set's "<n> rows written to <table>, ..." (heap) */
    char *error;          /* a failed job's message (heap) */
    bool reported;        /* its end was said (STOP JOB, or jobs_wait_all) */
} SessionJob;

typedef struct SessionJobs {
    SessionJob **items;
    size_t count;
    size_t capacity;
} SessionJobs;

struct StatementContext;

/* Flink's name of a job status (RUNNING, FINISHED, CANCELED, FAILED). */
const char *jobs_status_name(SessionJobStatus status);
/*
 * Runs an INSERT job: in the background when table.dml-sync is false (the
 * job is created here, so its errors are the statement's, then runs on its
 * own thread; the plan's statement arena passes to the job), else in the
 * foreground through `run_foreground`. Records it either way.
 */
int jobs_submit_insert(struct StatementContext *context, const PlanNode *physical,
                       const char *sink_name,
                       int (*run_foreground)(struct StatementContext *context,
                                             const PlanNode *physical, const char *job_id,
                                             const char *job_name));
/* Records a foreground job's end (status and metrics), after job_run returned. */
void jobs_record_end(struct StatementContext *context, const char *job_id, SessionJobStatus status,
                     const StrBuf *metrics, uint64_t rows_written);
/* SHOW JOBS: job id, job name, status, start time, in submission order. */
int jobs_show(struct StatementContext *context);
/* DESCRIBE JOB '<id>': the same columns for one job. */
int jobs_describe(struct StatementContext *context, const AstStatement *statement);
/* STOP JOB '<id>' [WITH SAVEPOINT] [WITH DRAIN]. */
int jobs_stop(struct StatementContext *context, const AstStatement *statement);
/* SHOW JOB METRICS '<id>': a running job's progress, an ended job's final table. */
int jobs_show_metrics(struct StatementContext *context, const AstStatement *statement);
/* Joins the threads of ended background jobs and frees their jobs and arenas. */
void jobs_reap(SessionJobs *jobs);
/* Background jobs still running. */
size_t jobs_running(SessionJobs *jobs);
/*
 * Waits until every background job has ended; *cancel (Ctrl-C) cancels them
 * all. Calls report(context, line) for each background job whose end was not
 * said yet (STOP JOB says it), a line each, in submission order.
 */
void jobs_wait_all(SessionJobs *jobs, volatile int *cancel,
                   void (*report)(void *context, const char *line), void *context);
/* Cancels every running background job and waits for it (the session closes). */
void jobs_cancel_all(SessionJobs *jobs);
/* The name of a running background job that reads or writes `table`; NULL when none. */
const char *jobs_table_in_use(SessionJobs *jobs, const char *table);
/* Frees every record (after jobs_cancel_all). */
void jobs_free(SessionJobs *jobs);

#endif
