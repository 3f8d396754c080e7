/*
 * session.h - the session behind engine.h, shared by the statement
 * executors (ddl.c, show.c, query.c). Not part of the public API.
 */
#ifndef JOINERY_SESSION_H
#define JOINERY_SESSION_H

#include "catalog/catalog.h"
#include "engine/base/arena.h"
#include "engine/base/diag.h"
#include "engine/base/strbuf.h"
#include "engine/engine.h"
#include "engine/options.h"
#include "engine/plan/planner.h"
#include "engine/sql/ast.h"

struct JoinerySession {
    Catalog *catalog;
    SessionOptions options;
    volatile int cancel_requested;
    StrBuf last_job_metrics; /* SHOW JOB METRICS: metrics of the last job */
    char *last_job_name;
};

/* Everything one statement's execution needs. */
typedef struct StatementContext {
    JoinerySession *session;
    Arena *arena; /* statement arena */
    Diag *diag;
    const JoineryResultHandler *handler;
} StatementContext;

/* A planner context over the session's catalog and options, for this statement. */
PlannerContext session_planner_context(StatementContext *context);
/* DDL: CREATE TABLE / VIEW, DROP (ddl.c). */
int ddl_create_table(StatementContext *context, const AstStatement *statement);
int ddl_create_view(StatementContext *context, const AstStatement *statement);
int ddl_drop(StatementContext *context, const AstStatement *statement);
/* SHOW / DESCRIBE / SET listing (show.c). */
int show_tables(StatementContext *context, bool views);
int show_create(StatementContext *context, const AstStatement *statement);
int show_describe(StatementContext *context, const AstStatement *statement);
int show_options(StatementContext *context);
int show_job_metrics(StatementContext *context);
/* Reports a table-style result (no op column) through the handler. */
int show_emit_table(StatementContext *context, const char *const *column_names, size_t column_count,
                    const char *const *cells, size_t row_count);
/* Queries, INSERT and EXPLAIN (query.c). */
int query_execute_select(StatementContext *context, const AstQuery *query);
int query_execute_insert(StatementContext *context, const AstInsert *insert);
int query_execute_explain(StatementContext *context, const AstStatement *statement);
/* ANALYZE TABLE t COMPUTE STATISTICS [FOR ALL COLUMNS] (analyze.c). */
int analyze_table(StatementContext *context, const AstStatement *statement);
/* Joins name parts into "a.b.c" and resolves default catalog/database prefixes. */
const char *session_object_name(StatementContext *context, const AstList *parts,
                                SourcePosition position);

#endif
