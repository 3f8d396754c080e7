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

#include <stdbool.h>
#include <stdint.h>

#include "catalog/catalog.h"
#include "engine/base/arena.h"
#include "engine/base/diag.h"
#include "engine/base/strbuf.h"
#include "engine/plan/plan.h"
#include "engine/sql/ast.h"

/* table.optimizer.agg-phase-strategy */
typedef enum PlanAggPhaseStrategy {
    PLAN_AGG_PHASE_AUTO,
    PLAN_AGG_PHASE_ONE_PHASE,
    PLAN_AGG_PHASE_TWO_PHASE,
} PlanAggPhaseStrategy;

/* table.exec.sink.upsert-materialize */
typedef enum PlanUpsertMaterialize {
    PLAN_UPSERT_MATERIALIZE_AUTO,
    PLAN_UPSERT_MATERIALIZE_NONE,
    PLAN_UPSERT_MATERIALIZE_FORCE,
} PlanUpsertMaterialize;

/*
 * The session options the planner, its rules and derivation read: a typed
 * snapshot built once per statement from the session's options
 * (planner_config_from_options, engine/stmt/options.h), so no planner code
 * reads an option by its key. Every field holds a valid value (the option's
 * default when it is not set).
 */
typedef struct PlannerConfig {
    bool join_reorder_enabled; /* table.optimizer.join-reorder-enabled */
    bool multi_join_enabled;   /* table.optimizer.multi-join.enabled */
    /* statement sets: table.optimizer.reuse-sub-plan-enabled, reuse-source-enabled */
    bool reuse_sub_plan_enabled;
    bool reuse_source_enabled;
    int64_t state_ttl_millis;           /* table.exec.state.ttl (0 = keep state forever) */
    int64_t source_idle_timeout_millis; /* table.exec.source.idle-timeout (0 = never idle) */
    int64_t watermark_interval_millis;  /* pipeline.auto-watermark-interval */
    /* table.exec.interval-join.min-cleanup-interval (Flink 1.18+: 0 by default) */
    int64_t interval_join_min_cleanup_millis;
    int parallelism;                   /* parallelism.default (EXPLAIN JSON_EXECUTION_PLAN) */
    bool mini_batch_enabled;           /* table.exec.mini-batch.enabled */
    int64_t mini_batch_latency_millis; /* table.exec.mini-batch.allow-latency */
    int64_t mini_batch_size;           /* table.exec.mini-batch.size (-1 unset) */
    PlanAggPhaseStrategy agg_phase;    /* table.optimizer.agg-phase-strategy */
    bool distinct_split_enabled;       /* table.optimizer.distinct-agg.split.enabled */
    int64_t distinct_split_buckets;    /* table.optimizer.distinct-agg.split.bucket-num */
    /* execution.runtime-mode = 'batch': bounded sources only, the final result once
       (ORDER BY any order as a Sort at the end of input) */
    bool batch_mode;
    /* the defaults of an async lookup join, which its LOOKUP hint's 'capacity', 'timeout' and
       'output-mode' override key by key (Flink's LookupJoinUtil.getMergedAsyncOptions) */
    int64_t async_lookup_capacity;            /* table.exec.async-lookup.buffer-capacity */
    int64_t async_lookup_timeout_millis;      /* table.exec.async-lookup.timeout */
    bool async_lookup_allow_unordered;        /* table.exec.async-lookup.output-mode */
    PlanUpsertMaterialize upsert_materialize; /* table.exec.sink.upsert-materialize */
} PlannerConfig;

typedef struct PlannerContext {
    Arena *arena;
    Catalog *catalog;
    const PlannerConfig *config; /* borrowed for the statement */
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

/*
 * EXPLAIN of a statement set (Flink's shape), in two parts. _plans: the
 * Abstract Syntax Tree and the Optimized Physical Plan of each INSERT in
 * turn (`logical` holds set->input_count LogicalSinks, `set` is the
 * PLAN_STATEMENT_SET before its sub-plans are reused); PLAN_ADVICE,
 * JSON_EXECUTION_PLAN and FORMAT DOT are refused (UNSUPPORTED). _execution,
 * after rule_reuse_sub_plans: the Optimized Execution Plan of the one job,
 * a sub-plan several sinks share printed once with (reuse_id=[n]) and
 * referred to as Reused(reference_id=[n]).
 */
int plan_explain_statement_set_plans(PlannerContext *context, PlanNode *const *logical,
                                     const PlanNode *set, unsigned details, StrBuf *out);
int plan_explain_statement_set_execution(PlannerContext *context, const PlanNode *set,
                                         unsigned details, StrBuf *out);

#endif
