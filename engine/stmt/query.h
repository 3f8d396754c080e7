/*
 * query.h - SELECT, INSERT INTO and EXPLAIN (query.c).
 *
 * Contract: the statement is bound and optimized in the statement arena;
 * SELECT and INSERT then build and run a job until its sources end or the
 * session is cancelled (a cancel is not an error: the result ends as
 * cancelled). SELECT streams the changelog to the handler (begin, rows, end);
 * INSERT reports the rows written. Either way the job's metrics become the
 * session's last job metrics (SHOW JOB METRICS).
 */
#ifndef JOINERY_STMT_QUERY_H
#define JOINERY_STMT_QUERY_H

#include "engine/sql/ast.h"
#include "engine/stmt/context.h"

int query_execute_select(StatementContext *context, const AstQuery *query);
int query_execute_insert(StatementContext *context, const AstInsert *insert);
/* EXPLAIN [details] of a query or INSERT: the plan text; nothing runs. */
int query_execute_explain(StatementContext *context, const AstStatement *statement);

/* Runs an INSERT's Sink, or a statement set's PLAN_STATEMENT_SET, in the foreground as job
   `job_id` (jobs_submit_insert's run_foreground): the rows written are reported. */
int query_run_insert_foreground(StatementContext *context, const PlanNode *physical,
                                const char *job_id, const char *job_name);
/* Batch mode: refuses the INSERT of an updating query (its sink would get the changelog). */
int query_check_batch_insert(StatementContext *context, const AstInsert *insert,
                             const PlanNode *physical);

#endif
