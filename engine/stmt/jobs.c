/*
 * jobs.c - the session's jobs (jobs.h): background INSERT jobs on their own
 * threads, SHOW JOBS, DESCRIBE JOB, STOP JOB [WITH SAVEPOINT] [WITH DRAIN]
 * and SHOW JOB METRICS '<id>', with Flink's SQL client's messages.
 *
 * A background job's print sink writes its lines to the process's standard
 * output under the stdio lock (Flink: the TaskManager's .out), since the
 * statement's result handler is gone once the INSERT returned.
 */
#define _POSIX_C_SOURCE 200809L
#include "engine/stmt/jobs.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "engine/base/value.h"
#include "engine/exec/checkpoint_store.h"
#include "engine/stmt/context.h"

const char *jobs_status_name(SessionJobStatus status)
{
    switch (status) {
    case SESSION_JOB_RUNNING:
        return "RUNNING";
    case SESSION_JOB_FINISHED:
        return "FINISHED";
    case SESSION_JOB_CANCELED:
        return "CANCELED";
    case SESSION_JOB_FAILED:
        return "FAILED";
    }
    return "UNKNOWN";
}

static SessionJob *jobs_find(SessionJobs *jobs, const char *id)
{
    for (size_t i = 0; i < jobs->count; i++)
        if (strcasecmp(jobs->items[i]->id, id) == 0)
            return jobs->items[i];
    return NULL;
}

/* Flink's JobID.fromHexString check: 32 hex digits. */
static bool jobs_id_is_valid(const char *id)
{
    size_t length = strlen(id);
    if (length != 32)
        return false;
    for (size_t i = 0; i < length; i++)
        if (!isxdigit((unsigned char)id[i]))
            return false;
    return true;
}

static int jobs_id_error(StatementContext *context, const AstStatement *statement)
{
    return diag_error_at(context->diag, JOINERY_ERROR_VALIDATE, statement->job.id_position.line,
                         statement->job.id_position.column,
                         "Cannot parse JobID from \"%s\". The expected format is "
                         "[0-9a-fA-F]{32}, e.g. fd72014d4c864993a2e5a9287b4a9c5d.",
                         statement->job.id);
}

/* A new record, added to the session's list; NULL when out of memory. */
static SessionJob *jobs_add(SessionJobs *jobs, const char *id, const char *name,
                            const char *sink_name, bool background)
{
    if (jobs->count == jobs->capacity) {
        size_t capacity = jobs->capacity ? jobs->capacity * 2 : 8;
        SessionJob **grown = realloc(jobs->items, capacity * sizeof *grown);
        if (!grown)
            return NULL;
        jobs->items = grown;
        jobs->capacity = capacity;
    }
    SessionJob *job = calloc(1, sizeof *job);
    if (!job)
        return NULL;
    snprintf(job->id, sizeof job->id, "%s", id);
    for (char *c = job->id; *c; c++)
        *c = (char)tolower((unsigned char)*c);
    job->name = strdup(name);
    job->sink_name = strdup(sink_name);
    if (!job->name || !job->sink_name) {
        free(job->name);
        free(job->sink_name);
        free(job);
        return NULL;
    }
    job->start_millis = datetime_now_millis();
    job->background = background;
    atomic_store(&job->status, SESSION_JOB_RUNNING);
    jobs->items[jobs->count++] = job;
    return job;
}

/* A print sink's line of a background job: to standard output, whole lines. */
static int jobs_write_line(void *context, const char *line)
{
    (void)context;
    flockfile(stdout);
    fputs(line, stdout);
    fputc('\n', stdout);
    fflush(stdout);
    funlockfile(stdout);
    return 0;
}

static void *jobs_thread(void *argument)
{
    SessionJob *entry = argument;
    Diag diag;
    diag_clear(&diag);
    int status = job_run(entry->job, &entry->cancel, &diag);
    /* every task has been joined: the final figures are read where they were written */
    job_format_metrics(entry->job, &entry->metrics);
    entry->rows_written = job_rows_written(entry->job);
    if (entry->physical && entry->physical->kind == PLAN_STATEMENT_SET) {
        /* a statement set: the rows of each table, "3 rows written to a, 4 rows written to b" */
        StrBuf written = STRBUF_INIT;
        for (uint32_t i = 0; i < entry->physical->input_count; i++)
            strbuf_printf(&written, "%s%llu rows written to %s", i ? ", " : "",
                          (unsigned long long)job_table_rows_written(entry->job, i),
                          entry->physical->inputs[i]->sink.table->name);
        entry->tables_written = written.data ? strdup(written.data) : NULL;
        strbuf_free(&written);
    }
    SessionJobStatus final;
    if (status == JOINERY_OK)
        final = SESSION_JOB_FINISHED;
    else if (status == JOINERY_CANCELLED)
        /* Flink: a job stopped with a savepoint ends FINISHED, a cancelled one CANCELED */
        final =
            job_stopped_with_savepoint(entry->job) ? SESSION_JOB_FINISHED : SESSION_JOB_CANCELED;
    else
        final = SESSION_JOB_FAILED;
    if (final == SESSION_JOB_FAILED)
        entry->error = strdup(diag.message[0] ? diag.message : "the job failed");
    atomic_store(&entry->status, final);
    __atomic_store_n(&entry->ended, 1, __ATOMIC_RELEASE);
    return NULL;
}

/* The job's name as Flink's client gives it: pipeline.name, else insert-into_<sink>, or for a
   statement set insert-into_ and its sinks joined by ','. */
static char *jobs_name(StatementContext *context, const JobSubmitConfig *submit,
                       const PlanNode *physical, const char *sink_name)
{
    if (submit->pipeline_name && *submit->pipeline_name)
        return arena_strdup(context->arena, submit->pipeline_name);
    if (physical->kind != PLAN_STATEMENT_SET)
        return arena_printf(context->arena, "insert-into_default_catalog.default_database.%s",
                            sink_name);
    StrBuf name = STRBUF_INIT;
    strbuf_append_cstr(&name, "insert-into_");
    for (uint32_t i = 0; i < physical->input_count; i++)
        strbuf_printf(&name, "%sdefault_catalog.default_database.%s", i ? "," : "",
                      physical->inputs[i]->sink.table->name);
    char *result = name.data ? arena_strdup(context->arena, name.data) : NULL;
    strbuf_free(&name);
    return result;
}

int jobs_submit_insert(StatementContext *context, const PlanNode *physical, const char *sink_name,
                       int (*run_foreground)(StatementContext *context, const PlanNode *physical,
                                             const char *job_id, const char *job_name))
{
    JoinerySession *session = context->session;
    JobSubmitConfig submit;
    job_submit_config_from_options(&session->options, &submit);
    char id[33];
    if (submit.fixed_job_id) {
        if (!jobs_id_is_valid(submit.fixed_job_id))
            return diag_error(context->diag, JOINERY_ERROR_VALIDATE,
                              "Cannot parse JobID from \"%s\". The expected format is "
                              "[0-9a-fA-F]{32}, e.g. fd72014d4c864993a2e5a9287b4a9c5d.",
                              submit.fixed_job_id);
        if (jobs_find(&session->jobs, submit.fixed_job_id))
            return diag_error(context->diag, JOINERY_ERROR_VALIDATE,
                              "Job has already been submitted. (job id %s; reset "
                              "'$internal.pipeline.job-id' or give another)",
                              submit.fixed_job_id);
        snprintf(id, sizeof id, "%s", submit.fixed_job_id);
        for (char *c = id; *c; c++)
            *c = (char)tolower((unsigned char)*c);
    } else {
        checkpoint_store_new_job_id(id);
    }
    char *name = jobs_name(context, &submit, physical, sink_name);
    if (!name)
        return diag_error(context->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    if (submit.dml_sync) {
        if (!jobs_add(&session->jobs, id, name, sink_name, false))
            return diag_error(context->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        return run_foreground(context, physical, id, name);
    }
    int status = statement_info(context, "Submitting SQL update statement to the cluster...");
    if (status != JOINERY_OK)
        return status;
    JobConfig config = context->job_config;
    config.job_id = id;
    config.savepoints = true;
    config.cancel_requested = &session->cancel_requested; /* while it is created */
    JobOutput output = {NULL, NULL, jobs_write_line, NULL, NULL};
    Job *job = NULL;
    status = job_create(physical, &config, &output, &job, context->diag);
    if (status != JOINERY_OK) {
        job_destroy(job);
        return status;
    }
    SessionJob *entry = jobs_add(&session->jobs, id, name, sink_name, true);
    if (!entry) {
        job_destroy(job);
        return diag_error(context->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    }
    entry->job = job;
    entry->physical = physical;
    /* the plan lives in the statement arena: it is the job's (moved in when the statement
       ends; the job's thread never touches the arena itself) */
    entry->arena_owned = true;
    context->arena_destination = &entry->arena;
    /* the job's main task runs on this thread: the stack of a main thread, as job_run
       gives its task threads (the plan's depth is bounded for 8 MiB) */
    pthread_attr_t attributes;
    bool have_attributes = pthread_attr_init(&attributes) == 0;
    if (have_attributes)
        pthread_attr_setstacksize(&attributes, (size_t)8 * 1024 * 1024);
    int created =
        pthread_create(&entry->thread, have_attributes ? &attributes : NULL, jobs_thread, entry);
    if (have_attributes)
        pthread_attr_destroy(&attributes);
    if (created != 0) {
        entry->error = strdup("could not start a thread for the job");
        atomic_store(&entry->status, SESSION_JOB_FAILED);
        entry->ended = 1;
        return diag_error(context->diag, JOINERY_ERROR, "could not start a thread for the job");
    }
    entry->thread_started = true;
    status = statement_info(context,
                            "SQL update statement has been successfully submitted to the cluster:");
    if (status == JOINERY_OK && context->handler && context->handler->text) {
        char line[64];
        snprintf(line, sizeof line, "Job ID: %s\n", id);
        status = context->handler->text(context->handler->context, line);
    }
    return status;
}

void jobs_record_end(StatementContext *context, const char *job_id, SessionJobStatus status,
                     const StrBuf *metrics, uint64_t rows_written)
{
    SessionJob *entry = jobs_find(&context->session->jobs, job_id);
    if (!entry)
        return;
    strbuf_clear(&entry->metrics);
    if (metrics && metrics->length)
        strbuf_append(&entry->metrics, metrics->data, metrics->length);
    entry->rows_written = rows_written;
    if (status == SESSION_JOB_FAILED && !entry->error)
        entry->error = strdup(context->diag->message);
    atomic_store(&entry->status, status);
    entry->ended = 1;
}

static bool jobs_has_ended(const SessionJob *entry)
{
    return __atomic_load_n(&entry->ended, __ATOMIC_ACQUIRE) != 0;
}

/* Joins one ended background job and frees what it held. */
static void jobs_reap_one(SessionJob *entry)
{
    if (entry->thread_started) {
        pthread_join(entry->thread, NULL);
        entry->thread_started = false;
    }
    job_destroy(entry->job);
    entry->job = NULL;
    entry->physical = NULL;
    if (entry->arena_owned) {
        arena_destroy(&entry->arena);
        entry->arena_owned = false;
    }
}

void jobs_reap(SessionJobs *jobs)
{
    for (size_t i = 0; i < jobs->count; i++) {
        SessionJob *entry = jobs->items[i];
        if (entry->background && (entry->job || entry->thread_started) && jobs_has_ended(entry))
            jobs_reap_one(entry);
    }
}

size_t jobs_running(SessionJobs *jobs)
{
    size_t running = 0;
    for (size_t i = 0; i < jobs->count; i++)
        if (jobs->items[i]->background && !jobs_has_ended(jobs->items[i]))
            running++;
    return running;
}

static void jobs_nap(void)
{
    struct timespec pause = {0, 10 * 1000 * 1000};
    nanosleep(&pause, NULL);
}

/* The line reported when a background job ended while the session waited for it. */
static void jobs_format_end(const SessionJob *entry, char *line, size_t size)
{
    SessionJobStatus status = (SessionJobStatus)atomic_load(&entry->status);
    if (status == SESSION_JOB_FAILED)
        snprintf(line, size, "Job %s (%s) failed: %s", entry->id, entry->name,
                 entry->error ? entry->error : "");
    else if (entry->tables_written)
        snprintf(line, size, "Job %s (%s) %s: %s.", entry->id, entry->name,
                 status == SESSION_JOB_FINISHED ? "finished" : "was cancelled",
                 entry->tables_written);
    else
        snprintf(line, size, "Job %s (%s) %s: %llu rows written to %s.", entry->id, entry->name,
                 status == SESSION_JOB_FINISHED ? "finished" : "was cancelled",
                 (unsigned long long)entry->rows_written, entry->sink_name);
}

void jobs_wait_all(SessionJobs *jobs, volatile int *cancel,
                   void (*report)(void *context, const char *line), void *context)
{
    for (size_t i = 0; i < jobs->count; i++) {
        SessionJob *entry = jobs->items[i];
        if (!entry->background)
            continue;
        while (!jobs_has_ended(entry)) {
            if (cancel && *cancel)
                for (size_t j = i; j < jobs->count; j++)
                    jobs->items[j]->cancel = 1;
            jobs_nap();
        }
        jobs_reap_one(entry);
        if (report && !entry->reported) {
            entry->reported = true;
            char line[2300];
            jobs_format_end(entry, line, sizeof line);
            report(context, line);
        }
    }
}

void jobs_cancel_all(SessionJobs *jobs)
{
    for (size_t i = 0; i < jobs->count; i++)
        if (jobs->items[i]->background)
            jobs->items[i]->cancel = 1;
    jobs_wait_all(jobs, NULL, NULL, NULL);
}

/* True when the plan below `node` scans or writes `table`. */
static bool jobs_plan_uses(const PlanNode *node, const char *table, int depth)
{
    if (!node || depth > 4096)
        return depth > 4096; /* unreachable (plans are bounded); safe side: in use */
    if ((node->kind == PLAN_TABLE_SOURCE_SCAN && node->scan.table &&
         strcmp(node->scan.table->name, table) == 0) ||
        (node->kind == PLAN_SINK && node->sink.table && strcmp(node->sink.table->name, table) == 0))
        return true;
    for (uint32_t i = 0; i < node->input_count; i++)
        if (jobs_plan_uses(node->inputs[i], table, depth + 1))
            return true;
    return false;
}

const char *jobs_table_in_use(SessionJobs *jobs, const char *table)
{
    for (size_t i = 0; i < jobs->count; i++) {
        SessionJob *entry = jobs->items[i];
        if (entry->background && entry->physical && jobs_plan_uses(entry->physical, table, 0))
            return entry->id;
    }
    return NULL;
}

void jobs_free(SessionJobs *jobs)
{
    for (size_t i = 0; i < jobs->count; i++) {
        SessionJob *entry = jobs->items[i];
        jobs_reap_one(entry);
        strbuf_free(&entry->metrics);
        free(entry->name);
        free(entry->sink_name);
        free(entry->tables_written);
        free(entry->error);
        free(entry);
    }
    free(jobs->items);
    memset(jobs, 0, sizeof *jobs);
}

/* The start time as Flink prints a TIMESTAMP_LTZ(3): local time, milliseconds. */
static void jobs_format_start(int64_t millis, char *out, size_t size)
{
    time_t seconds = (time_t)(millis / 1000);
    struct tm local;
    localtime_r(&seconds, &local);
    char date[32];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S", &local);
    snprintf(out, size, "%s.%03d", date, (int)(millis % 1000));
}

static int jobs_emit(StatementContext *context, SessionJob *const *entries, size_t count)
{
    static const char *const COLUMNS[] = {"job id", "job name", "status", "start time"};
    const char **cells = calloc(count * 4 + 1, sizeof *cells);
    char(*times)[40] = calloc(count + 1, sizeof *times);
    if (!cells || !times) {
        free(cells);
        free(times);
        return diag_error(context->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    }
    for (size_t i = 0; i < count; i++) {
        jobs_format_start(entries[i]->start_millis, times[i], sizeof times[i]);
        cells[i * 4] = entries[i]->id;
        cells[i * 4 + 1] = entries[i]->name;
        cells[i * 4 + 2] = jobs_status_name((SessionJobStatus)atomic_load(&entries[i]->status));
        cells[i * 4 + 3] = times[i];
    }
    int status = statement_emit_table(context, COLUMNS, 4, cells, count);
    free(cells);
    free(times);
    return status;
}

int jobs_show(StatementContext *context)
{
    SessionJobs *jobs = &context->session->jobs;
    return jobs_emit(context, jobs->items, jobs->count);
}

int jobs_describe(StatementContext *context, const AstStatement *statement)
{
    if (!jobs_id_is_valid(statement->job.id))
        return jobs_id_error(context, statement);
    SessionJob *entry = jobs_find(&context->session->jobs, statement->job.id);
    if (!entry)
        return diag_error_at(context->diag, JOINERY_ERROR_VALIDATE, statement->job.id_position.line,
                             statement->job.id_position.column,
                             "The job described by %s does not exist.", statement->job.id);
    return jobs_emit(context, &entry, 1);
}

/* Waits until the background job's thread returned from job_run (then reaps it). */
static void jobs_wait_one(SessionJob *entry)
{
    while (!jobs_has_ended(entry))
        jobs_nap();
    jobs_reap_one(entry);
}

int jobs_stop(StatementContext *context, const AstStatement *statement)
{
    if (!jobs_id_is_valid(statement->job.id))
        return jobs_id_error(context, statement);
    const char *id = statement->job.id;
    bool savepoint = statement->job.with_savepoint;
    SessionJob *entry = jobs_find(&context->session->jobs, id);
    int line = statement->position.line, column = statement->position.column;
    if (!entry)
        return diag_error_at(context->diag, JOINERY_ERROR_VALIDATE, line, column,
                             "Could not stop job %s%s: Could not find Flink job (%s)", id,
                             savepoint ? " with savepoint" : "", id);
    if (jobs_has_ended(entry) || !entry->job) {
        SessionJobStatus status = (SessionJobStatus)atomic_load(&entry->status);
        if (savepoint)
            return diag_error_at(context->diag, JOINERY_ERROR_VALIDATE, line, column,
                                 "Could not stop job %s with savepoint: Job %s is not in state "
                                 "RUNNING but %s instead.",
                                 entry->id, entry->id, jobs_status_name(status));
        /* Flink's dispatcher: cancelling a cancelled job is acknowledged */
        if (status == SESSION_JOB_CANCELED)
            return statement_info(context, "Execute statement succeeded.");
        return diag_error_at(context->diag, JOINERY_ERROR_VALIDATE, line, column,
                             "Could not stop job %s: Flink job (%s) was not canceled, but "
                             "instead %s.",
                             entry->id, entry->id, jobs_status_name(status));
    }
    entry->reported = true;
    if (!savepoint) {
        entry->cancel = 1;
        jobs_wait_one(entry);
        return statement_info(context, "Execute statement succeeded.");
    }
    JobSubmitConfig submit;
    job_submit_config_from_options(&context->session->options, &submit);
    if (!submit.savepoint_dir || !*submit.savepoint_dir)
        return diag_error_at(context->diag, JOINERY_ERROR_VALIDATE, line, column,
                             "Could not stop job %s with savepoint: No savepoint directory "
                             "configured. You can either specify a directory explicitly or "
                             "configure a default directory via "
                             "'execution.checkpointing.savepoint-dir' (or 'state.savepoints.dir').",
                             entry->id);
    char *path = NULL;
    Diag savepoint_diag;
    diag_clear(&savepoint_diag);
    int status =
        job_stop_with_savepoint(entry->job, submit.savepoint_dir, statement->job.with_drain,
                                &entry->ended, &path, &savepoint_diag);
    if (status != JOINERY_OK) {
        entry->reported = false; /* it goes on */
        return diag_error_at(context->diag, status, line, column,
                             "Could not stop job %s with savepoint: %s", entry->id,
                             savepoint_diag.message);
    }
    entry->cancel = 1;
    jobs_wait_one(entry);
    static const char *const COLUMNS[] = {"savepoint path"};
    const char *cells[] = {path};
    status = statement_emit_table(context, COLUMNS, 1, cells, 1);
    free(path);
    return status;
}

int jobs_show_metrics(StatementContext *context, const AstStatement *statement)
{
    if (!jobs_id_is_valid(statement->job.id))
        return jobs_id_error(context, statement);
    SessionJob *entry = jobs_find(&context->session->jobs, statement->job.id);
    if (!entry)
        return diag_error_at(context->diag, JOINERY_ERROR_VALIDATE, statement->job.id_position.line,
                             statement->job.id_position.column,
                             "The job described by %s does not exist.", statement->job.id);
    StrBuf out = STRBUF_INIT;
    SessionJobStatus status = (SessionJobStatus)atomic_load(&entry->status);
    strbuf_printf(&out, "Job: %s (%s, %s)\n", entry->name, entry->id, jobs_status_name(status));
    if (!jobs_has_ended(entry) && entry->job)
        job_format_progress(entry->job, &out);
    else
        strbuf_append(&out, entry->metrics.data ? entry->metrics.data : "", entry->metrics.length);
    if (entry->error)
        strbuf_printf(&out, "error: %s\n", entry->error);
    if (context->handler && context->handler->text)
        context->handler->text(context->handler->context, strbuf_cstr(&out));
    strbuf_free(&out);
    return JOINERY_OK;
}
