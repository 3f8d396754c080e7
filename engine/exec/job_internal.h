/*
 * job_internal.h - the private types of a job, shared by the three files that
 * implement job.h: job_build.c (operators and tasks from a physical plan),
 * job_run.c (the task loop) and job_metrics.c (metrics and the status line).
 * Included only by engine/exec/job_*.c; everything outside exec/ sees job.h.
 *
 * Threading: a JobTask's operators are touched only by the task's own thread
 * while the job runs; the fields shared between threads are atomics (or the
 * volatile stop/drained flags) and say so below.
 */
#ifndef JOINERY_EXEC_JOB_INTERNAL_H
#define JOINERY_EXEC_JOB_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "engine/base/arena.h"
#include "engine/base/diag.h"
#include "engine/exec/build/build.h"
#include "engine/exec/job.h"
#include "engine/exec/operator.h"
#include "engine/exec/ops/op_channel.h"
#include "engine/plan/plan.h"
#include "engine/state/state.h"

/* One thread's share of the job. */
typedef struct JobTask {
    struct Job *job;
    int index;
    Mailbox mailbox;
    bool mailbox_ready;
    Operator **sources; /* polled by this task */
    uint32_t source_count;
    Operator **operators; /* every operator the task runs (its timers fire on this thread) */
    uint32_t operator_count;
    /* barriers triggered (job_trigger_barrier, any thread) that the task's sources have
       still to start, in order; under barrier_lock, barriers_pending counts them */
    pthread_mutex_t barrier_lock;
    bool barrier_lock_ready;
    Barrier *barriers;
    uint32_t barrier_count;
    uint32_t barrier_capacity;
    _Atomic uint32_t barriers_pending;
    int64_t halted_barrier; /* see Job.halt_barrier; 0: the sources are polled */
    uint32_t ends_expected; /* channels into this task */
    uint32_t ends_received;
    ExecContext context;
    ExecIo *io; /* what the loop waits on: the mailbox's wake_fd, watched descriptors */
    StateStore *state_store; /* the task's state backend instance (job_state.c); NULL when
                                none of its operators keeps state */
    Diag diag;
    int status;
    pthread_t thread;
    bool started;
    /* figures the task publishes for the status line (written by its own thread only;
       read by the caller's thread) */
    _Atomic uint64_t published_rows_read;
    _Atomic uint64_t published_state_bytes;
} JobTask;

/*
 * The job's checkpoints (job_checkpoint.c). Fields under `lock` are shared by
 * the tasks (snapshots are stored on their threads); committed_id and
 * next_trigger belong to the sink's task.
 */
struct CheckpointEntry;
struct CheckpointWrite;

typedef struct JobCheckpoints {
    bool enabled;                /* execution.checkpointing.interval set */
    bool storage_ready;          /* snapshots are taken at barriers: periodic checkpoints, or a job
                                    that may be stopped with a savepoint (JobConfig.savepoints) */
    char *savepoint_refusal;     /* why this job cannot take a savepoint (heap); NULL: it can */
    bool pending_savepoint;      /* the pending one is a savepoint (no retention, kept) */
    int64_t savepoint_failed_id; /* the savepoint given up or failed last (lock held) */
    char *savepoint_path;        /* the savepoint completed last (heap) */
    int64_t interval_millis;
    int64_t timeout_millis;
    int retained;
    char *dir;
    char job_id[33];
    SnapshotStorage storage;
    pthread_mutex_t lock;
    bool lock_ready;
    uint64_t *fingerprints;  /* per job operator: its plan node's fingerprint */
    int64_t next_id;         /* the id of the next checkpoint (restored id + 1 after a restore) */
    int64_t restored_id;     /* the checkpoint restored from; 0: none */
    uint64_t restored_bytes; /* its files' bytes */
    int64_t restored_millis; /* how long reading them into the operators took */
    int64_t pending_id;      /* the checkpoint in flight; 0: none */
    char *pending_folder;    /* its folder */
    int64_t pending_started; /* when it was triggered (ms) */
    int64_t pending_alignment_nanos; /* the longest alignment of its operators so far */
    int64_t pending_timestamp;
    struct CheckpointEntry *entries; /* per job operator: what the pending checkpoint holds */
    uint8_t *done;                   /* per job operator: stored or finished for the pending one */
    uint32_t done_count;
    uint8_t *finished;        /* per job operator: 1 its input ended; 2 a source to end at once
                                 (restored ended) */
    char **completed_folders; /* retained completed checkpoints, oldest first */
    uint32_t completed_count;
    _Atomic int64_t completed_id; /* newest completed */
    _Atomic int64_t committed_id; /* newest the sink was told of */
    int64_t next_trigger;         /* when the next is due (ms); 0 before the first round */
    uint64_t completed;
    uint64_t failed;
    uint64_t last_bytes;
    int64_t last_duration_millis;
    /* snapshots waiting for the writer thread (under lock), which writes and syncs their
       files off the tasks' threads */
    struct CheckpointWrite *writes_head;
    struct CheckpointWrite *writes_tail;
    pthread_cond_t writes_ready;
    bool writes_ready_made;
    pthread_t writer;
    bool writer_started;
    bool writer_stopping;
    /* LMDB environment copies (state.backend.lmdb.checkpoint-mode = copy): per task, the
       pending checkpoint's copy; the checkpoint completes once none is running (lock) */
    bool copy_states;
    struct JobStateCopy *copies;
    uint32_t copies_running;
    /* the last completed ones, for SHOW JOB METRICS: id, duration (ms), bytes */
    int64_t history[8][4]; /* id, duration ms, bytes, alignment ms */
    uint32_t history_count;
} JobCheckpoints;

typedef struct JobOperator {
    Operator *op;
    const PlanNode *node;
} JobOperator;

/* A node built once in a job whose plan shares nodes (a statement set): its ports. */
typedef struct JobBuiltNode {
    const PlanNode *node;
    struct Ports *ports;
} JobBuiltNode;

struct Job {
    Arena arena; /* specs and arrays that live as long as the job */
    /* a statement set's plan shares sub-plans (rules/reuse_sub_plans.c): each node is
       built once and its operators feed every consumer (Operator.fanout, broadcast_width) */
    bool share_nodes;
    JobBuiltNode *built;
    uint32_t built_count;
    uint32_t built_capacity;
    JobOperator *operators;
    uint32_t operator_count;
    uint32_t operator_capacity;
    Operator **sources;
    uint32_t source_count;
    Operator **channels; /* hand-overs between tasks; closed with the job */
    uint32_t channel_count;
    JobTask **tasks; /* each allocated alone: channels keep pointers to mailboxes */
    uint32_t task_count;
    bool threaded;
    int64_t next_metrics_millis; /* when job_status_line sends output.metrics next */
    volatile int stop;           /* a task failed, or a cancel could not drain: stop at once */
    volatile int end_requested;  /* ExecContext.end_requested: end the sources now */
    volatile int *cancel_requested;
    /* Cancel (Ctrl-C) drains: every task stops polling its sources (it is then
       "quiet", as is a task that finished) and keeps delivering its mailbox until no
       message is queued or being delivered; then `drained` is set and every task
       returns JOINERY_CANCELLED. Every row read has then gone through the whole
       pipeline, so sources may commit what they read. */
    _Atomic int64_t in_flight;
    _Atomic int64_t last_barrier; /* the newest checkpoint id triggered (0: none) */
    _Atomic uint32_t tasks_quiet;
    volatile int drained;
    /* stop with savepoint (job_stop_with_savepoint): the savepoint's barrier id; a task
       stops polling its sources once it started that barrier (JobTask.halted_barrier
       equal), with drain_sources each source first emits the MAX watermark; reset to 0
       when the savepoint fails, and the sources go on */
    _Atomic int64_t halt_barrier;
    _Atomic int drain_sources;
    _Atomic int stopped_with_savepoint; /* the cancel that follows commits nothing more */
    Operator *sink;
    ExecContext context;
    Diag *diag;
    JobOutput output;
    int parallelism;
    uint64_t datagen_seed;
    volatile int *create_cancel;  /* JobConfig.cancel_requested, handed to connectors */
    bool multi_join_pruning;      /* table.optimizer.multi-join.empty-result-pruning.enabled */
    int64_t idle_timeout_millis;  /* table.exec.source.idle-timeout, for WatermarkAssigners */
    const char *job_parameters;   /* JobConfig's, copied into the arena; NULL: none */
    AsyncTableConfig async_table; /* JobConfig's, with the defaults filled in */
    const PlanNode *root;
    int64_t drain_limit_millis; /* JobConfig.drain_limit_millis, or the default */
    StateBackendKind state_backend;
    StateBudget state_budget; /* shared by the tasks' hashmap stores */
    char *state_folder;       /* LMDB: the job's folder (job_state.c); NULL otherwise */
    JobCheckpoints checkpoints;
};

/*
 * Checkpoints (job_checkpoint.c). open: after the operators are built, before
 * they open (reads the config; checks that every source can resume; installs
 * the snapshot storage). restore: after they opened, on the caller's thread:
 * reads config->restore_path into them. start_task: first thing of a task's
 * loop (ends the sources the restored checkpoint saw ended). tick: every round
 * of the sink's task (commits completed checkpoints to the sink, triggers the
 * next one, gives up one that timed out). format: the SHOW JOB METRICS line.
 * close: frees (an incomplete checkpoint's folder is removed). JOINERY_OK or an
 * error with the job's (or task's) diag filled.
 */
int job_checkpoints_open(Job *job, const JobConfig *config);
int job_checkpoints_restore(Job *job, const char *path);
int job_checkpoints_start_task(JobTask *task);
int job_checkpoints_tick(Job *job, int64_t now);
void job_checkpoints_format(Job *job, StrBuf *out);
void job_checkpoints_close(Job *job);

/*
 * Opens a state store for every task with a stateful operator (and the job's
 * LMDB folder) and puts it into the task's context; before operators open.
 * JOINERY_OK or an error with the job's diag filled (job_state.c).
 */
int job_state_open(Job *job, const JobConfig *config);
/*
 * Ends every store's unit of work on the calling thread (job_create, after the
 * operators opened and created their state). JOINERY_OK or the error (job diag).
 */
int job_state_commit(Job *job);
/* Ends the task's unit of work (LMDB commits); JOINERY_OK or the error (task diag). */
int job_task_commit(JobTask *task);
/* Closes the stores and removes the job's folder; after the operators are closed. */
void job_state_close(Job *job);

/* Lists each task's operators (job_run.c); after the tasks are placed. JOINERY_OK or no memory. */
int job_tasks_init(Job *job);
/* Frees what job_tasks_init allocated. */
void job_tasks_free(Job *job);

/*
 * Publishes this task's rows read and state bytes for the status line; called
 * on the task's own thread (job_metrics.c).
 */
void job_task_publish(JobTask *task);
/* Offers the progress line to JobOutput.status; called on the sink's task (job_metrics.c). */
void job_status_line(Job *job);

struct Ports;

/*
 * What a job does with the nodes of one plan kind: job_kinds[kind]
 * (job_build.c), a row for every physical kind, none for the logical ones.
 */
typedef struct JobKind {
    /* builds the node's operators with its inputs' and links them (scans, values,
       exchanges, sinks) */
    int (*build)(Job *job, const PlanNode *node, struct Ports *result);
    /* or creates one subtask's operator (build/): job_build builds the inputs, the
       subtasks (plan_node_is_stateful: as many as the exchange routes to), their tasks
       and links */
    Operator *(*create)(BuildContext *context, const PlanNode *node);
    /* extra SHOW JOB METRICS lines under the node's line; NULL: none */
    void (*format_metrics)(const PlanNode *node, Operator *const *subtasks, uint32_t count,
                           StrBuf *out);
} JobKind;

extern const JobKind job_kinds[PLAN_KIND_COUNT];

#endif
