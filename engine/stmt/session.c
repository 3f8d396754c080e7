/*
 * session.c - joinery_session_* (engine.h): parses one statement and
 * dispatches it to its executor (ddl.h, show.h, query.h, analyze.h); SET,
 * RESET, USE, HELP and QUIT are handled here. Owns the catalog and the
 * session options.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "engine/stmt/options.h"
#include "engine/sql/parser.h"
#include "engine/stmt/analyze.h"
#include "engine/stmt/context.h"
#include "engine/stmt/ddl.h"
#include "engine/stmt/query.h"
#include "engine/stmt/show.h"
#include "engine/stmt/statement_set.h"

JoinerySession *joinery_session_open(void)
{
    JoinerySession *session = calloc(1, sizeof *session);
    if (!session)
        return NULL;
    session->catalog = catalog_create();
    if (!session->catalog) {
        free(session);
        return NULL;
    }
    options_init(&session->options);
    return session;
}

void joinery_session_close(JoinerySession *session)
{
    if (!session)
        return;
    /* the jobs read the catalog: they end first */
    jobs_cancel_all(&session->jobs);
    jobs_free(&session->jobs);
    statement_set_free(&session->statement_set);
    catalog_destroy(session->catalog);
    options_free(&session->options);
    strbuf_free(&session->last_job_metrics);
    free(session->last_job_name);
    free(session);
}

void joinery_session_cancel(JoinerySession *session)
{
    if (session)
        session->cancel_requested = 1;
}

const char *joinery_session_get_option(JoinerySession *session, const char *key)
{
    return options_get(&session->options, key);
}

void joinery_session_list_names(JoinerySession *session,
                                void (*emit)(void *context, const char *name), void *context)
{
    for (size_t i = 0; i < catalog_count(session->catalog); i++) {
        CatalogTable *table = catalog_at(session->catalog, i);
        emit(context, table->name);
        for (size_t c = 0; c < table->column_count; c++)
            emit(context, table->columns[c].name);
    }
}

/*
 * HELP: every statement joinery runs, with Flink's SQL-client layout (command,
 * then what it does), then the connectors (connector/registry.c) and formats
 * (format/format.c) there are. Keep it in step with session_dispatch.
 */
void joinery_session_list_tables(JoinerySession *session,
                                 void (*emit)(void *context, const char *name), void *context)
{
    for (size_t i = 0; i < catalog_count(session->catalog); i++)
        emit(context, catalog_at(session->catalog, i)->name);
}

void joinery_session_list_columns(JoinerySession *session, const char *table_name,
                                  void (*emit)(void *context, const char *name), void *context)
{
    CatalogTable *table = table_name ? catalog_find(session->catalog, table_name) : NULL;
    for (size_t c = 0; table && c < table->column_count; c++)
        emit(context, table->columns[c].name);
}

const char *joinery_help_text(void)
{
    return "The following statements are available (end each with ';'):\n"
           "\n"
           "HELP                       Prints the available statements.\n"
           "QUIT / EXIT                Quits the shell (Ctrl-D too).\n"
           "SET                        Sets a session property: SET 'key' = 'value';\n"
           "                           SET; lists every property with its value.\n"
           "RESET                      Resets a session property (RESET 'key';) or all of them "
           "(RESET;).\n"
           "CREATE TABLE               CREATE TABLE [IF NOT EXISTS] t (col TYPE, c AS expr,\n"
           "                           col TYPE METADATA [FROM 'key'] [VIRTUAL], WATERMARK FOR c "
           "AS "
           "expr,\n"
           "                           PRIMARY KEY (k) NOT ENFORCED) [COMMENT '...'] WITH "
           "('connector' = '...', ...);\n"
           "CREATE VIEW                CREATE [TEMPORARY] VIEW [IF NOT EXISTS] v [(cols)] AS "
           "query;\n"
           "CREATE FUNCTION            CREATE [TEMPORARY] FUNCTION [IF NOT EXISTS] f AS 'symbol' "
           "LANGUAGE C\n"
           "                           USING JAR '/path/lib.so'; (a C function: "
           "engine/udf/joinery_udf.h)\n"
           "DROP                       DROP [TEMPORARY] TABLE | VIEW | FUNCTION [IF EXISTS] "
           "name;\n"
           "SHOW                       SHOW TABLES | VIEWS | FUNCTIONS | CATALOGS | DATABASES "
           "[[NOT] LIKE 'p'];\n"
           "                           SHOW COLUMNS FROM t [[NOT] LIKE 'p']; SHOW CREATE TABLE t;\n"
           "                           SHOW CREATE VIEW v; SHOW CURRENT CATALOG | DATABASE;\n"
           "                           SHOW [FULL] MODULES; SHOW JARS;\n"
           "SHOW JOB METRICS           Per-operator rows, state, busy time, backpressure and "
           "watermark\n"
           "                           of the last job; SHOW JOB METRICS '<job id>' of that job.\n"
           "SHOW JOBS                  The session's jobs: job id, job name, status, start time.\n"
           "DESCRIBE JOB               DESCRIBE JOB '<job id>': that job's id, name, status, start "
           "time.\n"
           "STOP JOB                   STOP JOB '<job id>' [WITH SAVEPOINT] [WITH DRAIN]: cancels "
           "a "
           "job,\n"
           "                           or stops it with a savepoint (the path is printed).\n"
           "DESCRIBE / DESC            Describes the columns of a table or view.\n"
           "USE                        USE [CATALOG] name (default_catalog.default_database).\n"
           "ANALYZE TABLE              ANALYZE TABLE t COMPUTE STATISTICS [FOR ALL COLUMNS]: row,\n"
           "                           distinct and null counts for the cost model.\n"
           "EXPLAIN                    EXPLAIN [PLAN FOR] [ESTIMATED_COST, CHANGELOG_MODE, "
           "PLAN_ADVICE,\n"
           "                           JSON_EXECUTION_PLAN] query | INSERT ...;\n"
           "SELECT                     Runs a query and prints its changelog (+I -U +U -D).\n"
           "INSERT INTO                INSERT INTO t [(cols)] query; runs a job into a sink "
           "table.\n"
           "EXECUTE STATEMENT SET      EXECUTE STATEMENT SET BEGIN INSERT ...; INSERT ...; END;\n"
           "                           runs the INSERTs as one job, what they share once.\n"
           "BEGIN STATEMENT SET        BEGIN STATEMENT SET; collects the INSERTs that follow; "
           "END;\n"
           "                           runs them as one job.\n"
           "\n"
           "Connectors: datagen, filesystem, jdbc, kafka, upsert-kafka, nexmark, print, "
           "blackhole, redis.\n"
           "Formats: json, csv, raw, debezium-json, canal-json.\n"
           "Result modes: SET 'sql-client.execution.result-mode' = 'tableau' | 'table' | "
           "'changelog' | 'csv' | 'json';\n"
           "\n"
           "Hint: make sure that a statement ends with ';' to run it (statements may span lines).\n"
           "Ctrl-C stops a running query; Ctrl-D leaves.\n";
}

static int session_set(StatementContext *context, const AstStatement *statement)
{
    JoinerySession *session = context->session;
    if (!statement->set.key)
        return show_options(context);
    Diag *diag = context->diag;
    int status = options_set(&session->options, statement->set.key, statement->set.value, diag);
    if (status != JOINERY_OK) {
        if (diag->line == 0) {
            diag->line = statement->set.key_position.line;
            diag->column = statement->set.key_position.column;
        }
        return status;
    }
    const char *note = options_note(statement->set.key, statement->set.value);
    if (note && (status = statement_info(context, note)) != JOINERY_OK)
        return status;
    return statement_info(context, "Session property has been set.");
}

static int session_reset(StatementContext *context, const AstStatement *statement)
{
    JoinerySession *session = context->session;
    if (!statement->reset.key) {
        options_reset_all(&session->options);
        return statement_info(context,
                              "All session properties have been set to their default values.");
    }
    int status = options_reset(&session->options, statement->reset.key, context->diag);
    if (status != JOINERY_OK)
        return status;
    return statement_info(context, "Session property has been reset.");
}

/* USE [CATALOG] name: only default_catalog.default_database exists; others fail as Flink. */
static int session_use(StatementContext *context, const AstStatement *statement)
{
    const AstList *parts = &statement->use.name_parts;
    SourcePosition position = statement->position;
    if (statement->use.catalog) {
        const char *name = parts->items[parts->count - 1];
        if (parts->count != 1 || strcmp(name, "default_catalog") != 0)
            return diag_error_at(context->diag, JOINERY_ERROR_VALIDATE, position.line,
                                 position.column, "A catalog with name [%s] does not exist.", name);
        return statement_info(context, "Execute statement succeeded.");
    }
    const char *catalog_name =
        parts->count >= 2 ? parts->items[parts->count - 2] : "default_catalog";
    const char *database_name = parts->items[parts->count - 1];
    if (parts->count > 2)
        return diag_error_at(context->diag, JOINERY_ERROR_VALIDATE, position.line, position.column,
                             "A database is named [catalog.]database; got %zu parts", parts->count);
    if (strcmp(catalog_name, "default_catalog") != 0)
        return diag_error_at(context->diag, JOINERY_ERROR_VALIDATE, position.line, position.column,
                             "A catalog with name [%s] does not exist.", catalog_name);
    if (strcmp(database_name, "default_database") != 0)
        return diag_error_at(context->diag, JOINERY_ERROR_VALIDATE, position.line, position.column,
                             "A database with name [%s] does not exist in the catalog: [%s].",
                             database_name, catalog_name);
    return statement_info(context, "Execute statement succeeded.");
}

static int session_dispatch(StatementContext *context, const AstStatement *statement)
{
    switch (statement->kind) {
    case AST_STMT_QUERY:
        return query_execute_select(context, statement->query);
    case AST_STMT_INSERT:
        return query_execute_insert(context, &statement->insert);
    case AST_STMT_EXPLAIN:
        if (statement->explain.statement->kind == AST_STMT_STATEMENT_SET)
            return statement_set_explain(context, statement);
        return query_execute_explain(context, statement);
    case AST_STMT_STATEMENT_SET:
        return statement_set_execute(context, statement);
    case AST_STMT_BEGIN_STATEMENT_SET:
        return statement_set_begin(context);
    case AST_STMT_END_STATEMENT_SET:
        return statement_set_end(context, statement);
    case AST_STMT_CREATE_TABLE:
        return ddl_create_table(context, statement);
    case AST_STMT_CREATE_VIEW:
        return ddl_create_view(context, statement);
    case AST_STMT_DROP:
        return ddl_drop(context, statement);
    case AST_STMT_CREATE_FUNCTION:
        return ddl_create_function(context, statement);
    case AST_STMT_SET:
        return session_set(context, statement);
    case AST_STMT_RESET:
        return session_reset(context, statement);
    case AST_STMT_SHOW_TABLES:
    case AST_STMT_SHOW_VIEWS:
        return show_tables(context, statement);
    case AST_STMT_SHOW_FUNCTIONS:
        return show_functions(context, statement);
    case AST_STMT_SHOW_CATALOGS:
    case AST_STMT_SHOW_DATABASES:
    case AST_STMT_SHOW_CURRENT_CATALOG:
    case AST_STMT_SHOW_CURRENT_DATABASE:
    case AST_STMT_SHOW_MODULES:
    case AST_STMT_SHOW_JARS:
        return show_catalog_objects(context, statement);
    case AST_STMT_SHOW_CREATE:
        return show_create(context, statement);
    case AST_STMT_DESCRIBE:
    case AST_STMT_SHOW_COLUMNS:
        return show_describe(context, statement);
    case AST_STMT_SHOW_JOB_METRICS:
        if (statement->job.id)
            return jobs_show_metrics(context, statement);
        return show_job_metrics(context);
    case AST_STMT_SHOW_JOBS:
        return jobs_show(context);
    case AST_STMT_DESCRIBE_JOB:
        return jobs_describe(context, statement);
    case AST_STMT_STOP_JOB:
        return jobs_stop(context, statement);
    case AST_STMT_USE:
        return session_use(context, statement);
    case AST_STMT_HELP:
        if (context->handler && context->handler->text)
            return context->handler->text(context->handler->context, joinery_help_text());
        return JOINERY_OK;
    case AST_STMT_QUIT:
        return statement_info(context, "Exiting joinery.");
    case AST_STMT_ANALYZE:
        return analyze_table(context, statement);
    }
    return diag_error_at(context->diag, JOINERY_ERROR_UNSUPPORTED, statement->position.line,
                         statement->position.column, "statement kind %d is not supported",
                         (int)statement->kind);
}

int joinery_session_execute(JoinerySession *session, const char *text, size_t length,
                            int first_line, int first_column, const JoineryResultHandler *handler,
                            JoineryError *error)
{
    Diag diag;
    diag_clear(&diag);
    Arena arena;
    arena_init(&arena, 64 * 1024);
    session->cancel_requested = 0;
    jobs_reap(&session->jobs);
    Arena *arena_destination = NULL;
    AstStatement *statement = NULL;
    int status =
        sql_parse_statement(text, length, first_line, first_column, &arena, &statement, &diag);
    if (status == JOINERY_OK) {
        StatementContext context;
        statement_context_init(&context, session, &arena, &diag, handler);
        status = statement_set_check(&context, statement);
        if (status == JOINERY_OK && session->statement_set.active &&
            statement->kind == AST_STMT_INSERT)
            status = statement_set_add(&context, statement, text, length, first_line, first_column);
        else if (status == JOINERY_OK)
            status = session_dispatch(&context, statement);
        arena_destination = context.arena_destination;
    }
    if (status != JOINERY_OK && diag.status == JOINERY_OK)
        diag_error(&diag, status, "statement failed");
    /* a feature found deep in the planner or job builder has no position of its own: it is
       reported at the statement, so every "not supported yet" error gets a caret */
    if (status == JOINERY_ERROR_UNSUPPORTED && diag.line == 0 && statement) {
        diag.line = statement->position.line;
        diag.column = statement->position.column;
    }
    if (error) {
        error->status = status;
        error->line = status == JOINERY_OK ? 0 : diag.line;
        error->column = status == JOINERY_OK ? 0 : diag.column;
        snprintf(error->message, sizeof error->message, "%s",
                 status == JOINERY_OK ? "" : diag.message);
    }
    if (arena_destination) /* a background job holds its plan in it */
        *arena_destination = arena;
    else
        arena_destroy(&arena);
    return status;
}

bool joinery_session_statement_set_open(const JoinerySession *session, size_t *statements)
{
    if (statements)
        *statements = session->statement_set.active ? session->statement_set.count : 0;
    return session->statement_set.active;
}

size_t joinery_session_running_jobs(JoinerySession *session)
{
    return jobs_running(&session->jobs);
}

void joinery_session_wait_jobs(JoinerySession *session,
                               void (*report)(void *context, const char *line), void *context)
{
    session->cancel_requested = 0;
    jobs_wait_all(&session->jobs, &session->cancel_requested, report, context);
}

void joinery_session_cancel_jobs(JoinerySession *session)
{
    jobs_cancel_all(&session->jobs);
}
