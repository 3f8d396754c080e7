/*
 * build.h - the builders of the plan kinds that run as one plain operator
 * per subtask (job_kinds[].create in job_build.c): each reads its plan node
 * into its operator's spec and creates the operator. One file per kind
 * (build_<kind>.c); scans, values, exchanges and sinks, which shape the
 * job's graph, keep their builders in job_build.c.
 *
 * Ownership: specs and arrays are allocated in BuildContext.arena (the
 * job's arena), which outlives the operators; the plan node is borrowed
 * for the job's life. A builder returns NULL with the diag set (or unset
 * for exhausted memory: job_add then reports "out of memory").
 */
#ifndef JOINERY_EXEC_BUILD_BUILD_H
#define JOINERY_EXEC_BUILD_BUILD_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/base/arena.h"
#include "engine/base/diag.h"
#include "engine/base/strbuf.h"
#include "engine/exec/aggregate/aggregate_function.h"
#include "engine/exec/job.h"
#include "engine/exec/operator.h"
#include "engine/plan/plan.h"

/* What every builder may read besides the node (the job's settings). */
typedef struct BuildContext {
    Arena *arena;                 /* the job's arena */
    Diag *diag;                   /* the job's diagnostic */
    int64_t idle_timeout_millis;  /* table.exec.source.idle-timeout, for WatermarkAssigners */
    bool multi_join_pruning;      /* table.optimizer.multi-join.empty-result-pruning.enabled */
    const char *job_parameters;   /* pipeline.global-job-parameters (the job's arena); NULL */
    AsyncTableConfig async_table; /* table.exec.async-table.*, defaults filled in */
} BuildContext;

/* The types of a node's fields, in the arena (one extra slot, so NULL means only out of
   memory: the builder returns NULL, which job_build reports as "out of memory"). */
DataType *build_field_types(Arena *arena, const PlanNode *node);

Operator *build_calc(BuildContext *context, const PlanNode *node);
Operator *build_watermark_assigner(BuildContext *context, const PlanNode *node);
Operator *build_union(BuildContext *context, const PlanNode *node);
Operator *build_join(BuildContext *context, const PlanNode *node);
/* SHOW JOB METRICS lines under a mini-batch Join: rows folded, state accesses. */
void build_join_metrics(const PlanNode *node, Operator *const *subtasks, uint32_t count,
                        StrBuf *out);
/* The mini-batch line of a Join or MultiJoin (build_join.c): the rows its folds cancelled,
   and its state accesses when counted (NULL: not counted). */
void build_format_mini_batch_metrics(StrBuf *out, uint64_t folded_rows,
                                     const uint64_t *state_accesses);
Operator *build_multi_join(BuildContext *context, const PlanNode *node);
Operator *build_group_aggregate(BuildContext *context, const PlanNode *node);
/* build_local_group_aggregate.c: LocalGroupAggregate (op_local_group_aggregate.h). */
Operator *build_local_group_aggregate(BuildContext *context, const PlanNode *node);
/* build_global_group_aggregate.c: GlobalGroupAggregate, a GroupAggregate merging the
   partial accumulators of the LocalGroupAggregate under its exchange. */
Operator *build_global_group_aggregate(BuildContext *context, const PlanNode *node);
Operator *build_changelog_normalize(BuildContext *context, const PlanNode *node);
Operator *build_interval_join(BuildContext *context, const PlanNode *node);
Operator *build_window_table_function(BuildContext *context, const PlanNode *node);
Operator *build_window_join(BuildContext *context, const PlanNode *node);
Operator *build_session_window_table_function(BuildContext *context, const PlanNode *node);
Operator *build_temporal_join(BuildContext *context, const PlanNode *node);
/* SHOW JOB METRICS lines under a TemporalJoin: the probe rows waiting, the versions kept. */
void build_temporal_join_metrics(const PlanNode *node, Operator *const *subtasks, uint32_t count,
                                 StrBuf *out);
Operator *build_drop_update_before(BuildContext *context, const PlanNode *node);
Operator *build_deduplicate(BuildContext *context, const PlanNode *node);
Operator *build_rank(BuildContext *context, const PlanNode *node);
Operator *build_window_rank(BuildContext *context, const PlanNode *node);
void build_window_rank_metrics(const PlanNode *node, Operator *const *subtasks, uint32_t count,
                               StrBuf *out);
Operator *build_mini_batch_assigner(BuildContext *context, const PlanNode *node);
Operator *build_window_aggregate(BuildContext *context, const PlanNode *node);
Operator *build_lookup_join(BuildContext *context, const PlanNode *node);
/* SHOW JOB METRICS lines under a LookupJoin: requests, retries, in flight, latency p50 / p99
   (the slowest subtask's) and mean, async the requests in flight on average (the time mean
   from the first submission to the last poll, summed over subtasks: against the capacity,
   how full the window was kept), and the cache's hits, misses, hit rate and size, summed over
   subtasks. */
void build_lookup_join_metrics(const PlanNode *node, Operator *const *subtasks, uint32_t count,
                               StrBuf *out);
Operator *build_group_window_aggregate(BuildContext *context, const PlanNode *node);
Operator *build_correlate(BuildContext *context, const PlanNode *node);
/* The operator calls of an aggregate node's aggregate.calls (argument types from its input),
   in the build arena; NULL on no memory. */
AggregateCall *build_aggregate_calls(BuildContext *context, const PlanNode *node);

/* SHOW JOB METRICS lines under a MultiJoin: each input's state, summed over subtasks. */
void build_multi_join_metrics(const PlanNode *node, Operator *const *subtasks, uint32_t count,
                              StrBuf *out);

/* SHOW JOB METRICS lines under an IntervalJoin: each input's rows kept and late rows. */
void build_interval_join_metrics(const PlanNode *node, Operator *const *subtasks, uint32_t count,
                                 StrBuf *out);

/* SHOW JOB METRICS lines under a WindowJoin: the late rows dropped per side, summed over
   subtasks (Flink's leftNumLateRecordsDropped / rightNumLateRecordsDropped). */
void build_window_join_metrics(const PlanNode *node, Operator *const *subtasks, uint32_t count,
                               StrBuf *out);

/* SHOW JOB METRICS line under a WindowAggregate: its late rows dropped (Flink's
   numLateRecordsDropped), summed over subtasks. */
void build_group_window_aggregate_metrics(const PlanNode *node, Operator *const *subtasks,
                                          uint32_t count, StrBuf *out);
void build_window_aggregate_metrics(const PlanNode *node, Operator *const *subtasks, uint32_t count,
                                    StrBuf *out);

/* SHOW JOB METRICS line under a SESSION window table function: its late rows dropped (Flink's
   numLateRecordsDropped), summed over subtasks. */
void build_session_window_metrics(const PlanNode *node, Operator *const *subtasks, uint32_t count,
                                  StrBuf *out);

/* build_sort.c: the node's sort keys (sort.keys) with their field types; NULL on no
   memory. */
struct RowOrderKey *build_order_keys(BuildContext *context, const PlanNode *node);
Operator *build_sort(BuildContext *context, const PlanNode *node);
Operator *build_limit(BuildContext *context, const PlanNode *node);
Operator *build_temporal_sort(BuildContext *context, const PlanNode *node);
/* build_over_aggregate.c: OverAggregate, and its numLateRecordsDropped line. */
Operator *build_over_aggregate(BuildContext *context, const PlanNode *node);
void build_over_aggregate_metrics(const PlanNode *node, Operator *const *subtasks, uint32_t count,
                                  StrBuf *out);

#endif
