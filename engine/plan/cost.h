/*
 * cost.h - the optimizer's cost model: cardinality, selectivity, row width,
 * and the cost of a left-deep order of inner joins as a streaming engine
 * pays it (state kept, for how long, and rows shuffled).
 *
 * Used by rules/reorder_joins.c to choose a join order and by derive.c for
 * the row counts EXPLAIN ESTIMATED_COST prints, so the estimates shown are
 * the ones behind the choice. The model is documented in cost.c.
 *
 * All functions are pure: they read plan nodes, expressions and catalog
 * statistics and allocate nothing (except cost_graph_* scratch, which lives
 * in the given arena).
 */
#ifndef JOINERY_PLAN_COST_H
#define JOINERY_PLAN_COST_H

#include <stdbool.h>
#include <stdint.h>

#include "catalog/catalog.h"
#include "engine/base/arena.h"
#include "engine/plan/plan.h"

/* Row count of a table nothing knows about. */
#define COST_DEFAULT_ROWS 1e8
/* How long state kept "forever" (TTL 0) is assumed to live, in hours. */
#define COST_FOREVER_HOURS (24.0 * 7)

/*
 * Rows a scan of `table` yields before any filter: ANALYZE's row count,
 * else the connector's estimate_rows, else COST_DEFAULT_ROWS.
 */
double cost_table_rows(const CatalogTable *table);

/*
 * Fraction of rows a predicate keeps, with constants where nothing better is
 * known (= 0.15, <,<=,>,>= 0.5, IS NOT NULL 0.9, others 0.25, AND the
 * product). `input` (may be NULL) is the node whose fields the predicate
 * reads: a `field = constant` whose field has a known distinct count keeps
 * 1/ndv, IS [NOT] NULL uses known null counts.
 */
double cost_predicate_selectivity(const Expr *condition, const PlanNode *input);

/*
 * Estimated rows of `node` (logical or physical): uses node->row_count when
 * it is set (>= 0), else computes it from the subtree.
 */
double cost_node_rows(const PlanNode *node);
/* The same, always computed from the node's inputs (derive.c fills row_count with it). */
double cost_node_estimate(const PlanNode *node);

/*
 * Distinct values of field `field` of `node`, traced through projections,
 * filters, exchanges and joins down to a table scan: ANALYZE's distinct
 * count of the column, else the table's row count for a single-column
 * primary key; -1 when unknown.
 */
double cost_field_distinct(const PlanNode *node, uint32_t field);
/* Fraction of NULLs in the field (known null counts), else 0. */
double cost_field_null_fraction(const PlanNode *node, uint32_t field);

/*
 * Selectivity of a join condition over the concatenated fields of
 * `inputs[0..input_count)` (their rows in input_rows): each conjunct
 * `a = b` between fields of two different inputs keeps
 * 1 / max(ndv(a), ndv(b)) of the cross product, times the non-NULL
 * fractions; an unknown ndv is the other side's known ndv (a foreign key
 * draws from the key's whole domain), else min(rows of both sides) (so an
 * equi join of unknown keys yields as many rows as its larger input); ndv
 * is capped by the rows of its side.
 * Other conjuncts as cost_predicate_selectivity.
 */
double cost_join_selectivity(const Expr *condition, PlanNode *const *inputs, uint32_t input_count,
                             const double *input_rows);

/* Rows of a join of `left` and `right` rows with the given selectivity (semi and anti joins:
   at most the left rows). */
double cost_join_rows(JoinType type, double left, double right, double selectivity);

/* Bytes one row of these fields takes in state (row.h layout; strings ~24 bytes). */
double cost_row_width(const PlanField *fields, uint32_t count);

/* Hours state with this TTL (milliseconds; 0 = forever) is kept. */
double cost_state_hours(int64_t ttl_millis);

/* ---------------------------------------------------------------- join orders */

/* One input of an inner-join graph. */
typedef struct CostLeaf {
    double rows;           /* estimated rows */
    double width;          /* bytes per row (fields read above) */
    double state_hours;    /* how long its state is kept when it is a join input */
    uint32_t field_offset; /* first global field (graph field numbering) */
    uint32_t field_count;
} CostLeaf;

/* One conjunct of the graph's conditions. */
typedef struct CostConjunct {
    uint64_t leaves;    /* bit set of leaves it reads */
    double selectivity; /* its share of the cross product of those leaves */
    int32_t equal_left; /* plain same-typed field = field: global fields; else -1 */
    int32_t equal_right;
} CostConjunct;

typedef struct CostGraph {
    CostLeaf *leaves;
    uint32_t leaf_count; /* at most 64 */
    CostConjunct *conjuncts;
    uint32_t conjunct_count;
    uint32_t field_count; /* global fields (all leaves) */
    double default_hours; /* state hours of intermediate results (session TTL) */
    bool multi_join;      /* steps sharing a key fuse into one MultiJoin */
} CostGraph;

/* What an order costs, and the parts of it. */
typedef struct CostEstimate {
    double rows;          /* result rows */
    double state_bytes;   /* bytes held in join state */
    double state_cost;    /* state bytes x hours kept */
    double shuffle_bytes; /* bytes sent through exchanges */
    double produced_rows; /* intermediate rows produced */
    double total;         /* the number orders are compared by */
    uint32_t cross_products;
    uint32_t fused_steps; /* steps that fuse with the step before them */
} CostEstimate;

/*
 * Cost of joining the leaves in `order[0..count)` left-deep (count may be
 * less than leaf_count: a prefix). Each conjunct applies at the first step
 * where all its leaves are present. `scratch` holds at least
 * 2 * field_count + 2 uint32_t. Fills *estimate.
 */
void cost_join_order(const CostGraph *graph, const uint32_t *order, uint32_t count,
                     uint32_t *scratch, CostEstimate *estimate);

#endif
