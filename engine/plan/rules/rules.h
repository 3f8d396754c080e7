/*
 * rules.h - the optimizer's rule passes over the logical plan, run in this
 * order by plan_optimize (optimize.c):
 *   1. rule_push_filters      predicate pushdown through projections, joins,
 *                             aggregates and unions into scans; outer-join
 *                             simplification (LEFT -> INNER when a WHERE
 *                             rejects the NULL-padded rows)
 *   2. rule_reorder_joins     cost-based order of inner joins (cost.h), when
 *                             table.optimizer.join-reorder-enabled
 *   3. rule_prune_fields      projection pruning down into scans
 *   4. rule_push_watermark    WatermarkAssigner over a kafka / upsert-kafka scan folded
 *                             into the scan (watermark=[...]): the source generates it
 *   5. rule_fuse_multi_join   MultiJoin fusion, when table.optimizer.multi-join.enabled
 *                             or a MULTI_JOIN hint asks for it
 * then physical planning (physical.c) and property derivation (derive.c).
 * Each pass returns a new tree (shared subtrees are fine: nodes are never
 * mutated after a pass hands them on).
 */
#ifndef JOINERY_PLAN_RULES_H
#define JOINERY_PLAN_RULES_H

#include "engine/plan/planner.h"

int rule_push_filters(PlannerContext *context, PlanNode *node, PlanNode **result);
/* 2. (when enabled) reorders trees of inner joins by the cost model; same rows, same fields. */
int rule_reorder_joins(PlannerContext *context, PlanNode *node, PlanNode **result);
int rule_prune_fields(PlannerContext *context, PlanNode *node, PlanNode **result);
/* 4. pushes watermarks into the scans of sources that generate them (per split). */
int rule_push_watermark(PlannerContext *context, PlanNode *node, PlanNode **result);
/* 5. (when enabled) fuses chains of joins that share a key into LogicalMultiJoin nodes. */
int rule_fuse_multi_join(PlannerContext *context, PlanNode *node, PlanNode **result);

/* Splits an AND tree into conjuncts (appends to *items, grows *capacity). */
int rule_split_conjuncts(Arena *arena, Expr *condition, Expr ***items, uint32_t *count,
                         uint32_t *capacity);

#endif
