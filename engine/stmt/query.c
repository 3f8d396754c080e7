/*
 * query.c - SELECT, INSERT INTO and EXPLAIN: bind, optimize, and either
 * print the plan or build and run the job, streaming result rows to the
 * client as text.
 */
#define _POSIX_C_SOURCE 200809L
#include "engine/stmt/query.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/value.h"
#include "engine/exec/job.h"
#include "engine/plan/planner.h"

typedef struct ResultWriter {
    StatementContext *context;
    const PlanNode *root;
    StrBuf *cells; /* one buffer per column */
    const char **values;
    uint64_t rows;
    /* batch mode: the result's final rows, materialised from its changelog in arrival
       order (a retraction takes away the latest equal row; NULL slots are taken away) and
       sent once the job has ended */
    bool batch;
    Row **final_rows; /* malloc'ed copies */
    size_t final_count, final_capacity;
} ResultWriter;

static JoineryValueClass query_value_class(DataType type)
{
    if (type_is_numeric(type.id))
        return JOINERY_VALUE_NUMBER;
    if (type.id == TYPE_BOOLEAN)
        return JOINERY_VALUE_BOOLEAN;
    if (type_is_temporal(type.id))
        return JOINERY_VALUE_TEMPORAL;
    return JOINERY_VALUE_STRING;
}

static int query_send_row(ResultWriter *writer, const Row *row);

/* Batch mode: the changelog folded into the final rows (see ResultWriter). */
static int query_materialize_row(ResultWriter *writer, const Row *row)
{
    if (!row_kind_is_accumulate(row_kind(row))) {
        for (size_t i = writer->final_count; i-- > 0;)
            if (writer->final_rows[i] && row_content_equals(writer->final_rows[i], row)) {
                free(writer->final_rows[i]);
                writer->final_rows[i] = NULL;
                break;
            }
        return 0;
    }
    if (writer->final_count == writer->final_capacity) {
        size_t capacity = writer->final_capacity ? writer->final_capacity * 2 : 64;
        Row **grown = realloc(writer->final_rows, capacity * sizeof *grown);
        if (!grown)
            return -1;
        writer->final_rows = grown;
        writer->final_capacity = capacity;
    }
    Row *copy = malloc(row_size(row));
    if (!copy)
        return -1;
    memcpy(copy, row, row_size(row));
    row_set_kind(copy, ROW_KIND_INSERT);
    writer->final_rows[writer->final_count++] = copy;
    return 0;
}

/* Batch mode: sends the final rows (after the job ended) and frees them. */
static int query_send_final_rows(ResultWriter *writer)
{
    int status = 0;
    for (size_t i = 0; i < writer->final_count; i++) {
        if (writer->final_rows[i] && status == 0)
            status = query_send_row(writer, writer->final_rows[i]);
        free(writer->final_rows[i]);
    }
    free(writer->final_rows);
    writer->final_rows = NULL;
    writer->final_count = writer->final_capacity = 0;
    return status;
}

static int query_write_row(void *context, const Row *row)
{
    ResultWriter *writer = context;
    if (writer->batch)
        return query_materialize_row(writer, row);
    return query_send_row(writer, row);
}

static int query_send_row(ResultWriter *writer, const Row *row)
{
    const JoineryResultHandler *handler = writer->context->handler;
    const PlanNode *root = writer->root;
    for (uint32_t i = 0; i < root->field_count; i++) {
        Value value = value_from_row(row, i, root->fields[i].type);
        strbuf_clear(&writer->cells[i]);
        if (value.is_null) {
            writer->values[i] = NULL;
            continue;
        }
        /* the client gets C strings: a NUL in a string shows as U+2400 */
        if (value_format_text(root->fields[i].type, value, &writer->cells[i]) != 0 ||
            strbuf_show_nul(&writer->cells[i], 0) != 0)
            return -1;
        writer->values[i] = strbuf_cstr(&writer->cells[i]);
    }
    writer->rows++;
    if (handler && handler->row)
        return handler->row(handler->context, (JoineryRowKind)row_kind(row), writer->values,
                            root->field_count);
    return 0;
}

static int query_write_line(void *context, const char *line)
{
    ResultWriter *writer = context;
    const JoineryResultHandler *handler = writer->context->handler;
    if (handler && handler->text)
        return handler->text(handler->context, line);
    return 0;
}

static int query_write_status(void *context, const char *line)
{
    ResultWriter *writer = context;
    const JoineryResultHandler *handler = writer->context->handler;
    if (handler && handler->status)
        return handler->status(handler->context, line);
    return 0;
}

static int query_write_metrics(void *context, const char *text)
{
    ResultWriter *writer = context;
    const JoineryResultHandler *handler = writer->context->handler;
    if (handler && handler->metrics)
        return handler->metrics(handler->context, text);
    return 0;
}

/* Binds and optimizes; *logical may be NULL when the caller does not need it. */
static int query_plan(StatementContext *context, const AstStatement *statement, PlanNode **logical,
                      PlanNode **physical)
{
    PlannerContext planner = statement_planner_context(context);
    PlanNode *bound = NULL;
    int status = statement->kind == AST_STMT_INSERT
                     ? plan_bind_insert(&planner, &statement->insert, &bound)
                     : plan_bind_query(&planner, statement->query, &bound);
    if (status != JOINERY_OK)
        return status;
    if (logical)
        *logical = bound;
    return plan_optimize(&planner, bound, physical);
}

static void query_remember_metrics(StatementContext *context, Job *job, const char *name)
{
    JoinerySession *session = context->session;
    strbuf_clear(&session->last_job_metrics);
    job_format_metrics(job, &session->last_job_metrics);
    free(session->last_job_name);
    session->last_job_name = strdup(name);
}

/* Runs a planned job; results go to the handler. */
/* One warning of the job, to the handler's warning callback (else its info). */
static void query_warn(void *context, const char *line)
{
    const JoineryResultHandler *handler = context;
    if (handler->warning)
        handler->warning(handler->context, line);
    else if (handler->info)
        handler->info(handler->context, line);
}

static int query_run(StatementContext *context, const PlanNode *physical, bool is_insert,
                     const char *job_name, const char *job_id)
{
    const JoineryResultHandler *handler = context->handler;
    ResultWriter writer = {context, physical, NULL, NULL, 0, false, NULL, 0, 0};
    writer.batch = context->planner_config.batch_mode && !is_insert;
    uint32_t columns = physical->field_count;
    writer.cells = calloc(columns + 1, sizeof(StrBuf));
    writer.values = calloc(columns + 1, sizeof(char *));
    JoineryColumn *header = calloc(columns + 1, sizeof(JoineryColumn));
    char(*type_names)[96] = calloc(columns + 1, sizeof *type_names);
    if (!writer.cells || !writer.values || !header || !type_names) {
        free(writer.cells);
        free(writer.values);
        free(header);
        free(type_names);
        return diag_error(context->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    }
    JobOutput output = {&writer, query_write_row, query_write_line, query_write_status,
                        query_write_metrics};
    Job *job = NULL;
    JobConfig config = context->job_config;
    config.job_id = job_id;
    int status = job_create(physical, &config, &output, &job, context->diag);
    bool cancelled_starting = status == JOINERY_CANCELLED;
    bool began = false;
    if (status == JOINERY_OK && !is_insert) {
        for (uint32_t i = 0; i < columns; i++) {
            header[i].name = physical->fields[i].name;
            header[i].type_name = type_format(physical->fields[i].type, type_names[i], 96);
            header[i].value_class = query_value_class(physical->fields[i].type);
        }
        if (handler && handler->begin)
            handler->begin(handler->context,
                           writer.batch ? JOINERY_RESULT_BATCH : JOINERY_RESULT_CHANGELOG, header,
                           columns);
        began = true;
    }
    if (status == JOINERY_OK)
        status = job_run(job, &context->session->cancel_requested, context->diag);
    bool cancelled = status == JOINERY_CANCELLED;
    if (cancelled) {
        status = JOINERY_OK;
        diag_clear(context->diag);
    }
    /* batch mode: the final rows once the job has ended (none after a failure or a cancel:
       they would not be final) */
    if (writer.batch && status == JOINERY_OK && !cancelled && query_send_final_rows(&writer) != 0)
        status = diag_error(context->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    for (size_t i = 0; i < writer.final_count; i++)
        free(writer.final_rows[i]);
    free(writer.final_rows);
    if (job) {
        query_remember_metrics(context, job, job_name);
        /* the job has ended (every thread joined): its final table, whatever the parallelism */
        if (began && handler && handler->metrics)
            handler->metrics(handler->context, strbuf_cstr(&context->session->last_job_metrics));
    }
    /* a failed job gets no footer: the client shows the rows, then the error */
    if (began && status == JOINERY_OK && handler && handler->end)
        handler->end(handler->context, writer.rows, cancelled);
    if (job_id)
        jobs_record_end(context, job_id,
                        status != JOINERY_OK ? SESSION_JOB_FAILED
                        : cancelled          ? SESSION_JOB_CANCELED
                                             : SESSION_JOB_FINISHED,
                        &context->session->last_job_metrics, job ? job_rows_written(job) : 0);
    if (job && handler)
        job_report_warnings(job, query_warn, (void *)handler);
    uint64_t skipped = job ? job_skipped_rows(job) : 0;
    if (skipped && handler && handler->info) {
        char message[160];
        snprintf(message, sizeof message,
                 "%llu bad record%s skipped (the table ignores parse errors); SHOW JOB METRICS "
                 "says where.",
                 (unsigned long long)skipped, skipped == 1 ? " was" : "s were");
        handler->info(handler->context, message);
    }
    if (cancelled_starting && handler && handler->info)
        handler->info(handler->context, "Job cancelled while it was starting.");
    if (status == JOINERY_OK && is_insert && !cancelled_starting && handler && handler->info &&
        physical->kind == PLAN_STATEMENT_SET) {
        /* a statement set: the rows of each table, in statement order */
        StrBuf message = STRBUF_INIT;
        strbuf_append_cstr(&message, cancelled ? "Job cancelled: " : "Job finished: ");
        for (uint32_t i = 0; i < physical->input_count; i++)
            strbuf_printf(&message, "%s%llu rows written to %s", i ? ", " : "",
                          (unsigned long long)(job ? job_table_rows_written(job, i) : 0),
                          physical->inputs[i]->sink.table->name);
        strbuf_append_char(&message, '.');
        handler->info(handler->context, message.data ? message.data : "");
        strbuf_free(&message);
    } else if (status == JOINERY_OK && is_insert && !cancelled_starting && handler &&
               handler->info) {
        char message[256];
        snprintf(message, sizeof message, "%s: %llu rows written to %s.",
                 cancelled ? "Job cancelled" : "Job finished",
                 (unsigned long long)(job ? job_rows_written(job) : 0), job_name);
        handler->info(handler->context, message);
    }
    job_destroy(job);
    for (uint32_t i = 0; i < columns; i++)
        strbuf_free(&writer.cells[i]);
    free(writer.cells);
    free(writer.values);
    free(header);
    free(type_names);
    return status;
}

int query_run_insert_foreground(StatementContext *context, const PlanNode *physical,
                                const char *job_id, const char *job_name)
{
    (void)job_name;
    if (physical->kind == PLAN_SINK)
        return query_run(context, physical, true, physical->sink.table->name, job_id);
    /* a statement set: its tables, "a, b" */
    StrBuf tables = STRBUF_INIT;
    for (uint32_t i = 0; i < physical->input_count; i++)
        strbuf_printf(&tables, "%s%s", i ? ", " : "", physical->inputs[i]->sink.table->name);
    int status = query_run(context, physical, true, strbuf_cstr(&tables), job_id);
    strbuf_free(&tables);
    return status;
}

int query_check_batch_insert(StatementContext *context, const AstInsert *insert,
                             const PlanNode *physical)
{
    /* batch mode writes final rows; the streaming plan of an updating query would hand its
       sink the changelog instead */
    if (context->planner_config.batch_mode && physical->input_count &&
        physical->inputs[0]->changelog_mode != CHANGELOG_INSERT)
        return diag_error_at(context->diag, JOINERY_ERROR_UNSUPPORTED, insert->query->position.line,
                             insert->query->position.column,
                             "INSERT INTO of an updating query (an aggregate, an outer join) in "
                             "batch mode is not supported yet: its sink would receive the "
                             "changelog, not the final rows; add ORDER BY or LIMIT, or run it "
                             "in streaming mode");
    return JOINERY_OK;
}

int query_execute_select(StatementContext *context, const AstQuery *query)
{
    AstStatement statement = {0};
    statement.kind = AST_STMT_QUERY;
    statement.query = (AstQuery *)query;
    PlanNode *physical = NULL;
    int status = query_plan(context, &statement, NULL, &physical);
    if (status != JOINERY_OK)
        return status;
    return query_run(context, physical, false, "SELECT", NULL);
}

int query_execute_insert(StatementContext *context, const AstInsert *insert)
{
    AstStatement statement = {0};
    statement.kind = AST_STMT_INSERT;
    statement.insert = *insert;
    PlanNode *physical = NULL;
    int status = query_plan(context, &statement, NULL, &physical);
    if (status != JOINERY_OK)
        return status;
    status = query_check_batch_insert(context, insert, physical);
    if (status != JOINERY_OK)
        return status;
    return jobs_submit_insert(context, physical, physical->sink.table->name,
                              query_run_insert_foreground);
}

int query_execute_explain(StatementContext *context, const AstStatement *statement)
{
    const AstStatement *inner = statement->explain.statement;
    if (inner->kind != AST_STMT_QUERY && inner->kind != AST_STMT_INSERT)
        return diag_error_at(context->diag, JOINERY_ERROR_UNSUPPORTED, inner->position.line,
                             inner->position.column,
                             "EXPLAIN supports queries and INSERT statements");
    PlanNode *logical = NULL, *physical = NULL;
    int status = query_plan(context, inner, &logical, &physical);
    if (status != JOINERY_OK)
        return status;
    PlannerContext planner = statement_planner_context(context);
    StrBuf out = STRBUF_INIT;
    status = plan_explain(&planner, logical, physical, statement->explain.details, &out);
    if (status == JOINERY_OK && context->handler && context->handler->text)
        context->handler->text(context->handler->context, strbuf_cstr(&out));
    strbuf_free(&out);
    return status;
}
