/*
 * context.h - the session behind engine.h and the context of one statement:
 * what every statement executor (ddl.c, show.c, query.c, analyze.c) and the
 * dispatcher (session.c) share. Not part of the public API; included only by
 * engine/stmt/. Includes nothing from engine/stmt/ but options.h and jobs.h.
 *
 * Invariants: a StatementContext lives for one joinery_session_execute call;
 * its arena is the statement arena (freed after the statement) and its diag
 * takes the statement's first error. The handler may be NULL (nothing is
 * reported), and so may each of its callbacks.
 */
#ifndef JOINERY_STMT_CONTEXT_H
#define JOINERY_STMT_CONTEXT_H

#include <stddef.h>

#include "catalog/catalog.h"
#include "engine/base/arena.h"
#include "engine/base/diag.h"
#include "engine/base/strbuf.h"
#include "engine/engine.h"
#include "engine/exec/job.h"
#include "engine/plan/planner.h"
#include "engine/sql/ast.h"
#include "engine/stmt/statement_set.h"
#include "engine/stmt/jobs.h"
#include "engine/stmt/options.h"

struct JoinerySession {
    Catalog *catalog;
    SessionOptions options;
    volatile int cancel_requested;
    StrBuf last_job_metrics; /* SHOW JOB METRICS: metrics of the last job */
    char *last_job_name;
    SessionJobs jobs;                  /* every INSERT job of the session (jobs.h) */
    SessionStatementSet statement_set; /* BEGIN STATEMENT SET ... END (statement_set.h) */
};

/* Everything one statement's execution needs. */
typedef struct StatementContext {
    JoinerySession *session;
    Arena *arena; /* statement arena */
    Diag *diag;
    const JoineryResultHandler *handler;
    /* the session's options as the planner and the job read them, taken when the
       statement starts (statement_context_init) */
    PlannerConfig planner_config;
    JobConfig job_config;
    /* a background job takes the statement arena over (it holds the job's plan): when
       set, joinery_session_execute moves the arena there after the statement instead of
       freeing it (after: so that nothing the statement still allocates is lost) */
    Arena *arena_destination;
} StatementContext;

/* The context of one statement over the session, with both configs built from its options. */
void statement_context_init(StatementContext *context, JoinerySession *session, Arena *arena,
                            Diag *diag, const JoineryResultHandler *handler);
/* A planner context over the session's catalog and the statement's PlannerConfig. */
PlannerContext statement_planner_context(StatementContext *context);
/*
 * Joins name parts into the object name, accepting only the default catalog
 * and database as prefixes. NULL (error in context->diag, at `position`) for
 * any other catalog or database.
 */
const char *statement_object_name(StatementContext *context, const AstList *parts,
                                  SourcePosition position);
/* Reports an informational message ("Execute statement succeeded.") through the handler. */
int statement_info(StatementContext *context, const char *message);
/*
 * Reports a table-style result (STRING columns, no op column) through the
 * handler: `cells` holds row_count rows of column_count cells, row by row.
 * At most 16 columns are shown.
 */
int statement_emit_table(StatementContext *context, const char *const *column_names,
                         size_t column_count, const char *const *cells, size_t row_count);

#endif
