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
 *  3b. rule_split_distinct_aggregate  DISTINCT aggregates split over hash buckets, when
 *                             table.optimizer.distinct-agg.split.enabled
 *   4. rule_push_watermark    WatermarkAssigner over a kafka / upsert-kafka scan folded
 *                             into the scan (watermark=[...]): the source generates it
 *   5. rule_fuse_multi_join   MultiJoin fusion, when table.optimizer.multi-join.enabled
 *                             or a MULTI_JOIN hint asks for it
 * then physical planning (physical.c), on the physical plan
 *   6. rule_assign_mini_batch MiniBatchAssigners over the sources and the
 *                             mini-batch operators, when table.exec.mini-batch.enabled
 * and property derivation (derive.c); in streaming mode without mini-batch
 *  6b. rule_drop_changelog_normalize  an upsert source straight into the join keyed by
 *                             its key (no ChangelogNormalize), and derivation again;
 * then, with mini-batch on and
 * table.optimizer.agg-phase-strategy not ONE_PHASE,
 *   7. rule_split_two_phase_aggregate  Local/GlobalGroupAggregate for the
 *                             aggregates whose calls merge, and derivation again.
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
/* 3b. (table.optimizer.distinct-agg.split.enabled) splits GROUP BYs with DISTINCT calls into
   a bucketed partial and a final aggregate (Flink's SplitAggregateRule). */
int rule_split_distinct_aggregate(PlannerContext *context, PlanNode *node, PlanNode **result);
/* 6b. (streaming, no mini-batch) drops the ChangelogNormalize of an upsert input that a join
   keyed by its upsert key takes directly, as Flink does; the plan must be derived again. */
int rule_drop_changelog_normalize(PlannerContext *context, PlanNode **physical);
/* 5. (when enabled) fuses chains of joins that share a key into LogicalMultiJoin nodes. */
int rule_fuse_multi_join(PlannerContext *context, PlanNode *node, PlanNode **result);
/* 6. (when enabled) mini-batch planning of the physical plan, rewritten in place. */
int rule_assign_mini_batch(PlannerContext *context, PlanNode **physical);
/* 7. (mini-batch on, agg-phase-strategy not ONE_PHASE) two-phase aggregation, rewritten in
   place on the derived physical plan. */
int rule_split_two_phase_aggregate(PlannerContext *context, PlanNode **physical);
/*
 * Statement sets, after every INSERT was optimized: equal sub-plans of the
 * `count` Sinks become one node (reuse_sub_plans.c; scans and what is above
 * them only with `reuse_sources`), the inputs rewritten in place.
 * JOINERY_OK or no memory (context->diag).
 */
int rule_reuse_sub_plans(PlannerContext *context, PlanNode *const *sinks, uint32_t count,
                         bool reuse_sources);

/*
 * What a rule does at a node of each kind is that kind's hook in its
 * descriptor (nodes/nodes.h: push_filters, prune_fields,
 * input_fields_used); a kind without the hook is left as it is, which is
 * always correct. The passes and what the hooks share with them:
 */

/* ---------------------------------------------------------------- conjuncts (push_filters.c) */

typedef struct RuleConjuncts {
    Expr **items;
    uint32_t count;
    uint32_t capacity;
} RuleConjuncts;

/* Appends a conjunct; JOINERY_OK or JOINERY_ERROR_NO_MEMORY. */
int rule_conjuncts_add(Arena *arena, RuleConjuncts *list, Expr *expr);
/* Appends the conjuncts of an AND tree (a TRUE literal adds none, NULL none). */
int rule_split_conjuncts(Arena *arena, Expr *condition, RuleConjuncts *list);
/* A tree equal to Filter(AND(conjuncts), node), each conjunct as deep as it can go. */
int rule_push_filters_into(PlannerContext *context, PlanNode *node, RuleConjuncts *conjuncts,
                           PlanNode **result);
/* A LogicalFilter of the conjuncts over node, node itself without any; NULL on no memory. */
PlanNode *rule_filter_above(PlannerContext *context, PlanNode *node,
                            const RuleConjuncts *conjuncts);
/* A copy of `node` (one input) with `below` pushed into its input, `above` over it. */
int rule_push_through(PlannerContext *context, PlanNode *node, RuleConjuncts *below,
                      const RuleConjuncts *above, PlanNode **result);

/* ---------------------------------------------------------------- field sets (fields.c) */

/* Sets of field indexes: bit i of words[i / 64], the layout expr_collect_inputs fills.
   All return NULL on no memory. */
uint64_t *rule_fields_new(Arena *arena, uint32_t count);
/* The first `count` fields of `fields`, all of them when `fields` is NULL. */
uint64_t *rule_fields_copy(Arena *arena, const uint64_t *fields, uint32_t count);
/* Fields [from, from + count) of `fields`, renumbered from 0. */
uint64_t *rule_fields_slice(Arena *arena, const uint64_t *fields, uint32_t from, uint32_t count);
bool rule_fields_has(const uint64_t *fields, uint32_t i);
void rule_fields_add(uint64_t *fields, uint32_t i);
/* Adds the fields `expr` reads (nothing for NULL). */
void rule_fields_add_expr(uint64_t *fields, const Expr *expr);

/* ---------------------------------------------------------------- pruning (prune_fields.c) */

typedef struct RulePruned {
    PlanNode *node;
    int32_t *mapping; /* old field -> new field, or -1 */
} RulePruned;

/* `node` keeping the `used` fields (and those it cannot drop), in their order. */
int rule_prune_fields_of(PlannerContext *context, PlanNode *node, uint64_t *used,
                         RulePruned *result);
/*
 * Puts a LogicalProject above `node` keeping only the original fields in
 * `used` (mapping: original field -> field of `node`). For nodes that need
 * more fields than their parent reads (a filter's or a watermark's own).
 */
int rule_project_used(PlannerContext *context, PlanNode *node, uint32_t original_count,
                      const uint64_t *used, const int32_t *mapping, RulePruned *result);
/* *copy: a copy of `node` (one input) over its input pruned to `input_used`, *input. */
int rule_prune_input(PlannerContext *context, const PlanNode *node, uint64_t *input_used,
                     PlanNode **copy, RulePruned *input);
int32_t *rule_identity_mapping(Arena *arena, uint32_t count);
/* Copies from[i] to to[mapping[i]] for every i with mapping[i] >= 0. */
void rule_compact_fields(const PlanField *from, uint32_t count, const int32_t *mapping,
                         PlanField *to);

#endif
