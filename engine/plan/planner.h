/*
 * planner.h - from AST to an optimized physical plan, and EXPLAIN.
 *
 * Pipeline: plan_bind_* (names, types, time attributes -> logical plan) ->
 * plan_optimize (a fixed sequence of rule passes, then physical planning
 * and property derivation) -> plan_explain (Flink's three sections).
 * All nodes and expressions are allocated in context->arena (the statement
 * arena). Errors go to context->diag with the position of the offending
 * AST node (script coordinates).
 */
#ifndef JOINERY_PLAN_PLANNER_H
#define JOINERY_PLAN_PLANNER_H

#include "catalog/catalog.h"
#include "engine/base/arena.h"
#include "engine/base/diag.h"
#include "engine/base/strbuf.h"
#include "engine/options.h"
#include "engine/plan/plan.h"
#include "engine/sql/ast.h"

typedef struct PlannerContext {
    Arena *arena;
    Catalog *catalog;
    const SessionOptions *options;
    Diag *diag;
    int next_node_id;
    bool multi_join_hinted; /* a MULTI_JOIN hint asked for fusion in this statement */
} PlannerContext;

/* Binds a query; *result is a logical plan whose root yields the result rows. */
int plan_bind_query(PlannerContext *context, const AstQuery *query, PlanNode **result);
/* Binds INSERT INTO: a LogicalSink over the query, values cast to the sink's column types. */
int plan_bind_insert(PlannerContext *context, const AstInsert *insert, PlanNode **result);
/*
 * Binds an expression of CREATE TABLE. With all_columns false (computed
 * columns) it sees only the non-computed columns and input ref i is the
 * i-th of them; with all_columns true (watermarks) it sees every column in
 * table order and input ref i is table column i.
 */
int plan_bind_table_expression(PlannerContext *context, const CatalogTable *table,
                               const AstExpr *expression, bool all_columns, Expr **result);
/* Same for the stored SQL text of such an expression. */
int plan_bind_table_expression_text(PlannerContext *context, const CatalogTable *table,
                                    const char *text, bool all_columns, Expr **result);

/* Rewrites the logical plan and produces the physical plan. */
int plan_optimize(PlannerContext *context, PlanNode *logical, PlanNode **physical);

/* Appends EXPLAIN output (AST_EXPLAIN_* details from ast.h) for the two plans. */
int plan_explain(PlannerContext *context, const PlanNode *logical, const PlanNode *physical,
                 unsigned details, StrBuf *out);

#endif
