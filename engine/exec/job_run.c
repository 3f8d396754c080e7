/*
 * job_run.c - drives a built job: one loop per task (job_task_run), on its
 * own thread in a threaded job, the sink's task on the caller's thread.
 *
 * Each task's loop starts the barriers triggered since its last round at
 * its sources, polls its sources (each poll pushes one batch through the
 * operators synchronously) and drains its mailbox. With nothing to do
 * (sources idle or rate-limited, mailbox empty) it waits in one poll
 * (exec_io.h) for the first of: a put into its mailbox (eventfd), a
 * descriptor its operators watch (their callbacks run), the next due
 * source, the earliest processing-time timer of its operators (TTL
 * cleanup, idleness) - at most 50 ms, so that Ctrl-C is noticed at once.
 * Due timers fire after the mailbox round. Every 250 ms each task
 * publishes its figures and the sink's task offers a status line
 * (job_metrics.c).
 *
 * Invariants: a task ends when its sources have ended and every channel into
 * it has delivered its end of input; any failure sets Job.stop and every task
 * returns at its next round; a cancel drains (see struct Job) and only a
 * drained cancel or a normal end lets the sources commit what they read.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/value.h"
#include "engine/exec/exec_io.h"
#include "engine/exec/job_internal.h"
#include "engine/exec/ops/op_sink.h"
#include "engine/exec/ops/op_source.h"

enum {
    JOB_WAIT_SLICE_MILLIS = 50, /* the longest wait: Ctrl-C is noticed within it */
    JOB_STATUS_INTERVAL_MILLIS = 250,
};

/* the stack of each task thread (see job_run) */
#define JOB_TASK_STACK_BYTES ((size_t)8 * 1024 * 1024)

static bool job_cancel_requested(const Job *job)
{
    return job->cancel_requested && *job->cancel_requested;
}

/* True once a draining job has nothing left in flight (see Job.drained). */
static bool job_drain_done(Job *job)
{
    if (!job->drained && atomic_load(&job->tasks_quiet) == job->task_count &&
        atomic_load(&job->in_flight) == 0)
        job->drained = 1;
    return job->drained;
}

static int job_task_fail(JobTask *task, int status)
{
    task->status = status;
    task->job->stop = 1;
    return status;
}

/* Delivers one mailbox message to its operator. */
static int job_task_deliver(JobTask *task, MailboxMessage *message)
{
    if (message->kind == STREAM_END_OF_INPUT)
        task->ends_received++;
    int status = operator_deliver(message);
    free(message);
    atomic_fetch_sub(&task->job->in_flight, 1); /* after what the delivery sent was counted */
    return status;
}

/* The earliest processing-time timer of the task's operators; INT64_MAX when none. */
static int64_t job_task_next_timer(const JobTask *task)
{
    int64_t next = INT64_MAX;
    for (uint32_t i = 0; i < task->operator_count; i++) {
        int64_t due = operator_next_processing_timer(task->operators[i]);
        if (due < next)
            next = due;
    }
    return next;
}

/* Fires the processing-time timers due at `now` of the task's operators. */
static int job_task_timers(JobTask *task, int64_t now)
{
    for (uint32_t i = 0; i < task->operator_count; i++) {
        Operator *op = task->operators[i];
        if (operator_next_processing_timer(op) > now)
            continue;
        int status = operator_advance_processing_time(op, now);
        if (status != JOINERY_OK)
            return status;
    }
    return JOINERY_OK;
}

int job_tasks_init(Job *job)
{
    for (uint32_t t = 0; t < job->task_count; t++) {
        JobTask *task = job->tasks[t];
        if (pthread_mutex_init(&task->barrier_lock, NULL) != 0)
            return diag_error(job->diag, JOINERY_ERROR, "could not create a lock for the job");
        task->barrier_lock_ready = true;
        task->io = exec_io_create();
        if (!task->io)
            return diag_error(job->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        if (task->mailbox_ready)
            exec_io_set_wake_fd(task->io, task->mailbox.wake_fd);
        task->context.io = task->io;
    }
    for (uint32_t i = 0; i < job->operator_count; i++) {
        Operator *op = job->operators[i].op;
        JobTask *task = job->tasks[op->task];
        Operator **operators =
            realloc(task->operators, (task->operator_count + 1) * sizeof *operators);
        if (!operators)
            return diag_error(job->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        task->operators = operators;
        task->operators[task->operator_count++] = op;
    }
    return JOINERY_OK;
}

void job_tasks_free(Job *job)
{
    for (uint32_t t = 0; t < job->task_count; t++) {
        JobTask *task = job->tasks[t];
        free(task->operators);
        task->operators = NULL;
        free(task->barriers);
        task->barriers = NULL;
        exec_io_destroy(task->io);
        task->io = NULL;
        if (task->barrier_lock_ready)
            pthread_mutex_destroy(&task->barrier_lock);
        task->barrier_lock_ready = false;
    }
}

int job_trigger_barrier(Job *job, int64_t checkpoint_id, Diag *diag)
{
    int64_t last = atomic_load(&job->last_barrier);
    do {
        if (checkpoint_id <= last)
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "checkpoint %lld is not after checkpoint %lld",
                              (long long)checkpoint_id, (long long)last);
    } while (!atomic_compare_exchange_weak(&job->last_barrier, &last, checkpoint_id));
    Barrier barrier = {checkpoint_id, datetime_now_millis()};
    for (uint32_t t = 0; t < job->task_count; t++) {
        JobTask *task = job->tasks[t];
        if (!task->source_count)
            continue;
        pthread_mutex_lock(&task->barrier_lock);
        if (task->barrier_count == task->barrier_capacity) {
            uint32_t capacity = task->barrier_capacity ? task->barrier_capacity * 2 : 4;
            Barrier *grown = realloc(task->barriers, capacity * sizeof *grown);
            if (!grown) {
                pthread_mutex_unlock(&task->barrier_lock);
                return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
            }
            task->barriers = grown;
            task->barrier_capacity = capacity;
        }
        task->barriers[task->barrier_count++] = barrier;
        atomic_fetch_add(&task->barriers_pending, 1);
        pthread_mutex_unlock(&task->barrier_lock);
    }
    return JOINERY_OK;
}

void job_set_snapshot_storage(Job *job, const SnapshotStorage *storage)
{
    job->context.snapshots = storage;
    for (uint32_t t = 0; t < job->task_count; t++)
        job->tasks[t]->context.snapshots = storage;
}

/*
 * Starts the barriers triggered since the last round at every source of the
 * task, one barrier at all of them before the next: no batch is polled in
 * between, so in a task that runs the whole job (direct calls) every
 * operator receives barrier n on all its channels before any row after it.
 */
static int job_task_start_barriers(JobTask *task)
{
    if (atomic_load(&task->barriers_pending) == 0)
        return JOINERY_OK;
    pthread_mutex_lock(&task->barrier_lock);
    Barrier barriers[16];
    uint32_t count = task->barrier_count < 16 ? task->barrier_count : 16;
    memcpy(barriers, task->barriers, count * sizeof *barriers);
    memmove(task->barriers, task->barriers + count,
            (task->barrier_count - count) * sizeof *barriers);
    task->barrier_count -= count;
    atomic_fetch_sub(&task->barriers_pending, count);
    pthread_mutex_unlock(&task->barrier_lock);
    Job *job = task->job;
    for (uint32_t b = 0; b < count; b++) {
        /* a savepoint that stops the job: with drain, the MAX watermark before its barrier */
        bool halting = barriers[b].checkpoint_id == atomic_load(&job->halt_barrier);
        for (uint32_t i = 0; halting && atomic_load(&job->drain_sources) && i < task->source_count;
             i++) {
            if (task->sources[i]->finished)
                continue;
            int status = operator_emit_watermark(task->sources[i], INT64_MAX);
            if (status != JOINERY_OK)
                return status;
        }
        for (uint32_t i = 0; i < task->source_count; i++) {
            int status = operator_inject_barrier(task->sources[i], &barriers[b]);
            if (status != JOINERY_OK)
                return status;
        }
        if (halting)
            task->halted_barrier = barriers[b].checkpoint_id;
    }
    return job_task_commit(task);
}

/* A task whose sources and inputs ended: it counts as quiet for a drain. */
static int job_task_finished(JobTask *task)
{
    int status = job_task_commit(task);
    if (status != JOINERY_OK)
        return job_task_fail(task, status);
    atomic_fetch_add(&task->job->tasks_quiet, 1);
    return JOINERY_OK;
}

/* One task's loop: poll sources, drain the mailbox, fire timers, until its inputs end. */
static int job_task_run(JobTask *task)
{
    Job *job = task->job;
    int64_t next_status = datetime_now_millis() + JOB_STATUS_INTERVAL_MILLIS;
    /* the task holding the sink reports progress; every task publishes its figures */
    bool report_status = job->sink && job->sink->task == task->index;
    bool draining = false;
    int64_t drain_deadline = 0;
    int start_status = job_checkpoints_start_task(task);
    if (start_status != JOINERY_OK)
        return job_task_fail(task, start_status);
    for (;;) {
        if (job->stop)
            return JOINERY_CANCELLED;
        if (!draining && job_cancel_requested(job)) {
            draining = true; /* no more polls: what was read drains through */
            drain_deadline = datetime_now_millis() + job->drain_limit_millis;
            atomic_fetch_add(&job->tasks_quiet, 1);
        }
        if (draining && job_drain_done(job)) {
            int status = job_task_commit(task);
            return status != JOINERY_OK ? job_task_fail(task, status) : JOINERY_CANCELLED;
        }
        if (draining && datetime_now_millis() > drain_deadline) {
            job->stop = 1; /* a blocked pipeline: stop without the clean mark */
            return JOINERY_CANCELLED;
        }
        /* barriers start even while draining: an alignment waiting for them would hold
           back what is in flight */
        int barrier_status = job_task_start_barriers(task);
        if (barrier_status != JOINERY_OK)
            return job_task_fail(task, barrier_status);
        bool any_active = false, any_open = false;
        int64_t now = datetime_now_millis();
        int64_t earliest = INT64_MAX;
        /* stopped with a savepoint: nothing after its barrier is read (a failed savepoint
           resets halt_barrier and the sources go on) */
        bool halted =
            task->halted_barrier != 0 && task->halted_barrier == atomic_load(&job->halt_barrier);
        if (halted)
            any_open = true;
        for (uint32_t i = 0; i < task->source_count && !draining && !halted; i++) {
            if (job->end_requested) {
                /* the result is complete (a top-level Limit): the input ends here */
                int status = source_operator_end_now(task->sources[i]);
                if (status != JOINERY_OK)
                    return job_task_fail(task, status);
            }
            SourceState state;
            int64_t next_poll = now + 10;
            int status = source_operator_poll(task->sources[i], now, &state, &next_poll);
            if (status != JOINERY_OK)
                return job_task_fail(task, status);
            if (state == SOURCE_STATE_ACTIVE)
                any_active = true;
            if (state != SOURCE_STATE_ENDED)
                any_open = true;
            if (state == SOURCE_STATE_IDLE && next_poll < earliest)
                earliest = next_poll;
        }
        bool inputs_open = task->ends_received < task->ends_expected;
        if (!any_open && !inputs_open && !draining)
            return job_task_finished(task);
        if (draining)
            any_open = true; /* stay until the drain is done */
        now = datetime_now_millis();
        /* timers could emit: not while draining */
        int64_t next_timer = draining ? INT64_MAX : job_task_next_timer(task);
        if (next_timer < earliest)
            earliest = next_timer;
        int64_t wait = 0;
        if (!any_active) {
            wait = earliest == INT64_MAX ? JOB_WAIT_SLICE_MILLIS : earliest - now;
            if (wait > JOB_WAIT_SLICE_MILLIS)
                wait = JOB_WAIT_SLICE_MILLIS; /* stay responsive to Ctrl-C */
        }
        bool mailbox_open = task->mailbox_ready && inputs_open;
        /* nothing to do now: wait for a message, a watched descriptor (its callbacks run),
           the next due source or timer; else only run the callbacks of ready descriptors */
        int io_status = JOINERY_OK;
        if (wait > 0 && (!mailbox_open || mailbox_prepare_wait(&task->mailbox)))
            io_status = exec_io_wait(task->io, wait, NULL, NULL);
        else if (exec_io_watch_count(task->io))
            io_status = exec_io_wait(task->io, 0, NULL, NULL);
        if (io_status != JOINERY_OK)
            return job_task_fail(task, io_status);
        /* a bounded number of messages per round keeps sources polled too */
        for (int taken = 0; mailbox_open && taken < 16; taken++) {
            MailboxMessage *message = mailbox_take(&task->mailbox, 0);
            if (!message)
                break;
            int status = job_task_deliver(task, message);
            if (status != JOINERY_OK)
                return job_task_fail(task, status);
        }
        if (!any_open && task->ends_received == task->ends_expected)
            return job_task_finished(task);
        now = datetime_now_millis();
        if (now >= next_timer) {
            int status = job_task_timers(task, now);
            if (status != JOINERY_OK)
                return job_task_fail(task, status);
        }
        /* one unit of state work per round: its polls, messages and timers */
        int commit_status = job_task_commit(task);
        if (commit_status != JOINERY_OK)
            return job_task_fail(task, commit_status);
        if (report_status && !draining) {
            int checkpoint_status = job_checkpoints_tick(job, now);
            if (checkpoint_status != JOINERY_OK)
                return job_task_fail(task, checkpoint_status);
        }
        if (now >= next_status) {
            job_task_publish(task);
            if (report_status)
                job_status_line(job);
            next_status = now + JOB_STATUS_INTERVAL_MILLIS;
        }
    }
}

/*
 * Runs the task's loop, then ends its last unit of state work on this thread
 * (an LMDB write transaction belongs to the thread that began it, so the job's
 * thread could not close the store over it): after a failure too, when what
 * the unit wrote no longer matters but the transaction must still end.
 */
static int job_task_execute(JobTask *task)
{
    int status = job_task_run(task);
    int commit_status = job_task_commit(task);
    return status != JOINERY_OK ? status : commit_status;
}

static void *job_task_thread(void *argument)
{
    JobTask *task = argument;
    int status = job_task_execute(task);
    if (status != JOINERY_OK && task->status == JOINERY_OK)
        task->status = status;
    if (status != JOINERY_OK)
        task->job->stop = 1;
    return NULL;
}

/* A failed job: the sink discards its uncommitted output, and the error says what is left
   (on a line of its own under the reason). */
static void job_abort_sink(Job *job, Diag *diag)
{
    if (!job->sink || !diag_failed(diag))
        return;
    StrBuf note = STRBUF_INIT;
    sink_operator_abort(job->sink, &note);
    if (note.length) {
        size_t used = strlen(diag->message);
        if (used + 2 < sizeof diag->message)
            snprintf(diag->message + used, sizeof diag->message - used, "\n%s.", note.data);
    }
    strbuf_free(&note);
}

int job_run(Job *job, volatile int *cancel_requested, Diag *diag)
{
    job->cancel_requested = cancel_requested;
    /* the task with the sink runs here, so result callbacks stay on the caller's thread */
    int main_task = job->sink ? job->sink->task : 0;
    int status = JOINERY_OK;
    /*
     * Task threads get the stack of a main thread under the default limit
     * (8 MiB) whatever RLIMIT_STACK says (glibc's thread default follows it,
     * 2 MiB when unlimited): the operators push rows down chains as deep as
     * the plan, which SQL_MAX_DEPTH bounds for that stack.
     */
    pthread_attr_t attributes;
    bool have_attributes = pthread_attr_init(&attributes) == 0;
    if (have_attributes)
        pthread_attr_setstacksize(&attributes, JOB_TASK_STACK_BYTES);
    for (uint32_t t = 0; t < job->task_count && status == JOINERY_OK; t++) {
        JobTask *task = job->tasks[t];
        if ((int)t == main_task)
            continue;
        if (pthread_create(&task->thread, have_attributes ? &attributes : NULL, job_task_thread,
                           task) != 0) {
            job->stop = 1;
            status = diag_error(diag, JOINERY_ERROR, "could not start a thread for the job");
            break;
        }
        task->started = true;
    }
    if (have_attributes)
        pthread_attr_destroy(&attributes);
    if (status == JOINERY_OK) {
        JobTask *task = job->tasks[main_task];
        int main_status = job_task_execute(task);
        if (main_status != JOINERY_OK && task->status == JOINERY_OK)
            task->status = main_status;
        if (main_status != JOINERY_OK)
            job->stop = 1;
    }
    for (uint32_t t = 0; t < job->task_count; t++)
        if (job->tasks[t]->started) {
            pthread_join(job->tasks[t]->thread, NULL);
            job->tasks[t]->started = false;
        }
    if (status != JOINERY_OK)
        return status;
    /* the first real failure wins over the cancellations it caused */
    for (uint32_t t = 0; t < job->task_count; t++) {
        JobTask *task = job->tasks[t];
        if (task->status == JOINERY_OK || task->status == JOINERY_CANCELLED)
            continue;
        if (job->threaded && diag->status == JOINERY_OK && task->diag.status != JOINERY_OK)
            *diag = task->diag;
        job_abort_sink(job, diag);
        return diag->status != JOINERY_OK ? diag->status : task->status;
    }
    bool cancelled = false;
    for (uint32_t t = 0; t < job->task_count; t++)
        if (job->tasks[t]->status == JOINERY_CANCELLED)
            cancelled = true;
    /* a drained cancel finishes the sink (flushes a Kafka producer, renames a part file into
       place) so that what went through is durable before the sources commit it */
    /* with checkpoints a cancel is Flink's: output after the last checkpoint stays
       uncommitted (a restore from that checkpoint writes it) and nothing is committed */
    bool checkpointed = job->checkpoints.enabled || atomic_load(&job->stopped_with_savepoint);
    if (cancelled && job->drained && !checkpointed && job->sink && job->sink->vtable->finish) {
        int finish_status = job->sink->vtable->finish(job->sink);
        if (finish_status != JOINERY_OK) {
            const Diag *sink_diag = &job->tasks[job->sink->task]->diag;
            if (job->threaded && diag->status == JOINERY_OK && sink_diag->status != JOINERY_OK)
                *diag = *sink_diag;
            job_abort_sink(job, diag);
            return diag->status != JOINERY_OK ? diag->status : finish_status;
        }
    }
    /* a clean stop lets sources commit what they read: at the end of input, or on a
       cancel once everything read has drained through the pipeline and the sink */
    if (!cancelled || (job->drained && !checkpointed))
        for (uint32_t i = 0; i < job->source_count; i++)
            source_operator_mark_stopped_cleanly(job->sources[i]);
    return cancelled ? JOINERY_CANCELLED : JOINERY_OK;
}
