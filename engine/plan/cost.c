/*
 * cost.c - the cost model (see cost.h for the interface).
 *
 * Cardinality. A table scan yields ANALYZE TABLE's row count, else the
 * connector's estimate (datagen number-of-rows, file size / 100 bytes),
 * else COST_DEFAULT_ROWS, times the selectivity of its pushed filter.
 * Filters keep the constant fractions derive.c always used (= 0.15, range
 * 0.5, IS NOT NULL 0.9, others 0.25), refined by statistics where known:
 * `col = constant` keeps 1/ndv(col), IS [NOT] NULL the null fraction.
 * An aggregate with keys keeps 10% of its input; a union sums its inputs.
 *
 * Joins. Rows = left x right x selectivity of the ON condition. An equi
 * conjunct a = b keeps 1 / max(ndv(a), ndv(b)) times the non-NULL fraction
 * of both sides; ndv comes from ANALYZE ... FOR ALL COLUMNS, or is the row
 * count for a single-column primary key, and is capped by the rows of its
 * side. An unknown ndv is the other side's (uncapped) ndv when known: a
 * foreign key draws from the whole key domain, so a filtered dimension
 * shrinks the join; when both are unknown, min(left rows, right rows): an
 * equi join of unknown keys yields its larger input. LEFT/RIGHT
 * joins yield at least their preserved side, FULL at least both.
 *
 * Join orders (cost_join_order). A streaming join keeps BOTH inputs in
 * state, so step i of a left-deep order (prefix P joined with leaf L) costs
 *   state:   (rows(P) x width(P) x hours(P) + rows(L) x width(L) x hours(L))
 *            in byte-hours: hours is the effective TTL (a STATE_TTL hint for
 *            a table input, else table.exec.state.ttl; 0 = forever counts
 *            as COST_FOREVER_HOURS),
 *   shuffle: rows(P) x width(P) + rows(L) x width(L) bytes through the
 *            exchanges that hash both inputs on the step's key,
 *   produce: rows(P join L) x width bytes of new rows.
 * With table.optimizer.multi-join.enabled, steps are grouped as
 * rules/fuse_multi_join.c groups them (greedy from the bottom, while the
 * group's inputs share an equivalence class of equi-join fields); a step
 * that continues a group neither keeps nor reshuffles its left input (the
 * MultiJoin keeps only raw inputs), so orders that put same-key joins next
 * to each other cost less. total = state + shuffle + produce; a step with
 * no condition linking it to the prefix is a cross product (counted).
 */
#include "engine/plan/cost.h"

#include <string.h>

#include "engine/connector/connector.h"
#include "engine/plan/nodes/nodes.h"

static double cost_positive(double value)
{
    return value < 1.0 ? 1.0 : value;
}

double cost_table_rows(const CatalogTable *table)
{
    if (!table)
        return COST_DEFAULT_ROWS;
    if (table->statistics.row_count >= 0)
        return table->statistics.row_count;
    const Connector *connector = connector_find(catalog_table_option(table, "connector"));
    double rows = connector && connector->estimate_rows ? connector->estimate_rows(table) : -1;
    return rows < 0 ? COST_DEFAULT_ROWS : rows;
}

const Expr *cost_plain_ref(const Expr *expr)
{
    while (expr->kind == EXPR_CALL && expr->call.function == FUNCTION_CAST && expr->call.implicit &&
           expr->call.arg_count == 1)
        expr = expr->call.args[0];
    return expr->kind == EXPR_INPUT_REF ? expr : NULL;
}

/* Which input of `inputs` field `*field` (global) belongs to; makes it local. */
static uint32_t cost_locate_input(PlanNode *const *inputs, uint32_t input_count, uint32_t *field)
{
    uint32_t i = 0;
    while (i + 1 < input_count && *field >= inputs[i]->field_count) {
        *field -= inputs[i]->field_count;
        i++;
    }
    return i;
}

const PlanNode *cost_trace_to_input(const PlanNode *node, uint32_t *field)
{
    return *field < node->field_count ? node->inputs[0] : NULL;
}

const PlanNode *cost_trace_to_inputs(const PlanNode *node, uint32_t *field)
{
    if (*field >= node->field_count)
        return NULL;
    return node->inputs[cost_locate_input(node->inputs, node->input_count, field)];
}

/*
 * Follows field `*field` of `node` down to the scan producing it (each
 * kind's trace_field hook); returns the scan (field now a scan output index)
 * or NULL when the field is computed or comes from an aggregate value.
 */
static const PlanNode *cost_trace_field(const PlanNode *node, uint32_t *field)
{
    for (;;) {
        const PlanKindInfo *info = plan_kind_info(node->kind);
        const PlanNode *from = info->trace_field ? info->trace_field(node, field) : NULL;
        if (!from || from == node)
            return from;
        node = from;
    }
}

double cost_field_distinct(const PlanNode *node, uint32_t field)
{
    const PlanNode *scan = cost_trace_field(node, &field);
    if (!scan)
        return -1;
    const CatalogTable *table = scan->scan.table;
    uint32_t column = scan->scan.columns[field];
    const CatalogStatistics *statistics = &table->statistics;
    if (statistics->distinct_counts && statistics->distinct_counts[column] >= 0)
        return statistics->distinct_counts[column];
    if (table->primary_key_count == 1 &&
        catalog_table_column_index(table, table->primary_key[0]) == (int)column)
        return cost_table_rows(table);
    return -1;
}

/* Known null fraction of a field, or -1. */
static double cost_known_null_fraction(const PlanNode *node, uint32_t field)
{
    const PlanNode *scan = cost_trace_field(node, &field);
    if (!scan)
        return -1;
    const CatalogStatistics *statistics = &scan->scan.table->statistics;
    uint32_t column = scan->scan.columns[field];
    if (!statistics->null_counts || statistics->null_counts[column] < 0 ||
        statistics->row_count <= 0)
        return -1;
    double fraction = statistics->null_counts[column] / statistics->row_count;
    return fraction > 1 ? 1 : fraction;
}

double cost_field_null_fraction(const PlanNode *node, uint32_t field)
{
    double fraction = cost_known_null_fraction(node, field);
    return fraction < 0 ? 0 : fraction;
}

/* `ref = constant` or `constant = ref`: the ref, else NULL. */
static const Expr *cost_ref_against_constant(const Expr *condition)
{
    if (condition->call.arg_count != 2)
        return NULL;
    const Expr *a = cost_plain_ref(condition->call.args[0]);
    const Expr *b = cost_plain_ref(condition->call.args[1]);
    if (a && !b && expr_is_constant(condition->call.args[1]))
        return a;
    if (b && !a && expr_is_constant(condition->call.args[0]))
        return b;
    return NULL;
}

double cost_predicate_selectivity(const Expr *condition, const PlanNode *input)
{
    if (!condition)
        return 1.0;
    if (condition->kind != EXPR_CALL)
        return 0.25;
    FunctionSelectivity selectivity = function_info(condition->call.function)->selectivity;
    switch (selectivity) {
    case FUNCTION_SELECTIVITY_AND: {
        double product = 1.0;
        for (uint32_t i = 0; i < condition->call.arg_count; i++)
            product *= cost_predicate_selectivity(condition->call.args[i], input);
        return product;
    }
    case FUNCTION_SELECTIVITY_EQUAL: {
        const Expr *ref = input ? cost_ref_against_constant(condition) : NULL;
        double distinct = ref ? cost_field_distinct(input, ref->input_index) : -1;
        return distinct >= 1 ? 1.0 / distinct : 0.15;
    }
    case FUNCTION_SELECTIVITY_RANGE:
        return 0.5;
    case FUNCTION_SELECTIVITY_IS_NULL:
    case FUNCTION_SELECTIVITY_IS_NOT_NULL: {
        const Expr *ref = input && condition->call.arg_count == 1
                              ? cost_plain_ref(condition->call.args[0])
                              : NULL;
        double fraction = ref ? cost_known_null_fraction(input, ref->input_index) : -1;
        bool is_null = selectivity == FUNCTION_SELECTIVITY_IS_NULL;
        if (fraction < 0)
            return is_null ? 0.25 : 0.9;
        return is_null ? fraction : 1.0 - fraction;
    }
    case FUNCTION_SELECTIVITY_GUESS:
        return 0.25;
    }
    return 0.25;
}

/* Selectivity of one conjunct over the concatenated inputs. */
static double cost_conjunct_selectivity(const Expr *conjunct, PlanNode *const *inputs,
                                        uint32_t input_count, const double *input_rows)
{
    if (conjunct->kind == EXPR_CALL && conjunct->call.arg_count == 2 &&
        (conjunct->call.function == FUNCTION_EQUAL ||
         conjunct->call.function == FUNCTION_IS_NOT_DISTINCT_FROM)) {
        const Expr *a = cost_plain_ref(conjunct->call.args[0]);
        const Expr *b = cost_plain_ref(conjunct->call.args[1]);
        if (a && b) {
            uint32_t field_a = a->input_index, field_b = b->input_index;
            uint32_t input_a = cost_locate_input(inputs, input_count, &field_a);
            uint32_t input_b = cost_locate_input(inputs, input_count, &field_b);
            if (input_a != input_b) {
                double rows_a = cost_positive(input_rows[input_a]);
                double rows_b = cost_positive(input_rows[input_b]);
                double ndv_a = cost_field_distinct(inputs[input_a], field_a);
                double ndv_b = cost_field_distinct(inputs[input_b], field_b);
                /* an unknown side draws its values from the other side's whole domain
                   (a foreign key), or is as small as the smaller side */
                double domain_a = ndv_b >= 0 ? ndv_b : rows_a < rows_b ? rows_a : rows_b;
                double domain_b = ndv_a >= 0 ? ndv_a : rows_a < rows_b ? rows_a : rows_b;
                ndv_a = ndv_a < 0 ? domain_a : ndv_a;
                ndv_b = ndv_b < 0 ? domain_b : ndv_b;
                ndv_a = ndv_a > rows_a ? rows_a : ndv_a;
                ndv_b = ndv_b > rows_b ? rows_b : ndv_b;
                double larger = cost_positive(ndv_a > ndv_b ? ndv_a : ndv_b);
                double selectivity = 1.0 / larger;
                if (conjunct->call.function == FUNCTION_EQUAL)
                    selectivity *= (1.0 - cost_field_null_fraction(inputs[input_a], field_a)) *
                                   (1.0 - cost_field_null_fraction(inputs[input_b], field_b));
                return selectivity;
            }
        }
    }
    return cost_predicate_selectivity(conjunct, input_count == 1 ? inputs[0] : NULL);
}

double cost_join_selectivity(const Expr *condition, PlanNode *const *inputs, uint32_t input_count,
                             const double *input_rows)
{
    if (!condition)
        return 1.0;
    if (condition->kind == EXPR_CALL && condition->call.function == FUNCTION_AND) {
        double product = 1.0;
        for (uint32_t i = 0; i < condition->call.arg_count; i++)
            product *=
                cost_join_selectivity(condition->call.args[i], inputs, input_count, input_rows);
        return product;
    }
    if (condition->kind == EXPR_LITERAL && condition->type.id == TYPE_BOOLEAN &&
        !condition->literal.is_null && condition->literal.i == 1)
        return 1.0;
    return cost_conjunct_selectivity(condition, inputs, input_count, input_rows);
}

double cost_join_rows(JoinType type, double left, double right, double selectivity)
{
    double inner = left * right * selectivity;
    switch (type) {
    case JOIN_TYPE_INNER:
        return inner;
    case JOIN_TYPE_LEFT:
        return inner > left ? inner : left;
    case JOIN_TYPE_RIGHT:
        return inner > right ? inner : right;
    case JOIN_TYPE_FULL:
        return inner > left + right ? inner : left + right;
    case JOIN_TYPE_SEMI: /* the left rows with a match */
        return inner < left ? inner : left;
    case JOIN_TYPE_ANTI: /* the others */
        return inner < left ? left - inner : 0;
    }
    return inner;
}

double cost_node_rows(const PlanNode *node)
{
    return node->row_count >= 0 ? node->row_count : cost_node_estimate(node);
}

double cost_node_estimate(const PlanNode *node)
{
    const PlanKindInfo *info = plan_kind_info(node->kind);
    if (info->estimate)
        return info->estimate(node);
    return node->input_count ? cost_node_rows(node->inputs[0]) : COST_DEFAULT_ROWS;
}

double cost_row_width(const PlanField *fields, uint32_t count)
{
    /* row.h: header and null bitmap, one 8-byte slot per field, strings in the tail */
    double width = 16.0 + (count + 7) / 8;
    for (uint32_t i = 0; i < count; i++) {
        width += 8.0;
        if (type_is_variable_length(fields[i].type.id)) {
            int32_t length = fields[i].type.precision;
            width += length > 0 && length < 24 ? length : 24;
        }
    }
    return width;
}

double cost_state_hours(int64_t ttl_millis)
{
    if (ttl_millis <= 0)
        return COST_FOREVER_HOURS;
    double hours = (double)ttl_millis / 3600000.0;
    return hours < COST_FOREVER_HOURS ? hours : COST_FOREVER_HOURS;
}

/* ---------------------------------------------------------------- join orders */

static uint32_t cost_find_root(uint32_t *parent, uint32_t field)
{
    while (parent[field] != field) {
        parent[field] = parent[parent[field]];
        field = parent[field];
    }
    return field;
}

/* Step at which a conjunct applies: the position of its last leaf (at least 1). */
static uint32_t cost_conjunct_step(const CostConjunct *conjunct, const uint32_t *position,
                                   uint32_t leaf_count)
{
    uint32_t step = 1;
    for (uint32_t leaf = 0; leaf < leaf_count; leaf++)
        if (((conjunct->leaves >> leaf) & 1) && position[leaf] > step)
            step = position[leaf];
    return step;
}

/*
 * True when the inputs of a fused group (the prefix through position
 * `start`, then the leaves at positions start+1..end) share an equivalence
 * class of equi-join fields, as rules/fuse_multi_join.c requires.
 */
static bool cost_group_shares_key(const CostGraph *graph, const uint32_t *order,
                                  const uint32_t *position, uint32_t start, uint32_t end,
                                  uint32_t *parent)
{
    for (uint32_t f = 0; f < graph->field_count; f++)
        parent[f] = f;
    for (uint32_t c = 0; c < graph->conjunct_count; c++) {
        const CostConjunct *conjunct = &graph->conjuncts[c];
        if (conjunct->equal_left < 0)
            continue;
        uint32_t step = cost_conjunct_step(conjunct, position, graph->leaf_count);
        if (step <= start || step > end)
            continue;
        uint32_t a = cost_find_root(parent, (uint32_t)conjunct->equal_left);
        uint32_t b = cost_find_root(parent, (uint32_t)conjunct->equal_right);
        if (a != b)
            parent[a] = b;
    }
    for (uint32_t p = 0; p <= start; p++) {
        const CostLeaf *first = &graph->leaves[order[p]];
        for (uint32_t f = first->field_offset; f < first->field_offset + first->field_count; f++) {
            uint32_t root = cost_find_root(parent, f);
            bool everywhere = true;
            for (uint32_t g = start + 1; g <= end && everywhere; g++) {
                const CostLeaf *leaf = &graph->leaves[order[g]];
                bool found = false;
                for (uint32_t h = leaf->field_offset;
                     h < leaf->field_offset + leaf->field_count && !found; h++)
                    found = cost_find_root(parent, h) == root;
                everywhere = found;
            }
            if (everywhere)
                return true;
        }
    }
    return false;
}

/* Marks fused[i] for the steps that continue a MultiJoin group (the greedy grouping). */
static void cost_mark_fused(const CostGraph *graph, const uint32_t *order, uint32_t count,
                            const uint32_t *position, uint32_t *parent, bool *fused)
{
    uint32_t start = 0, end = 0;
    for (uint32_t i = 1; i < count; i++) {
        fused[i] = false;
        if (cost_group_shares_key(graph, order, position, start, i, parent)) {
            fused[i] = i > start + 1;
            end = i;
            continue;
        }
        if (end > start) {
            start = end;
            if (cost_group_shares_key(graph, order, position, start, i, parent)) {
                end = i;
                continue;
            }
        }
        start = end = i;
    }
}

void cost_join_order(const CostGraph *graph, const uint32_t *order, uint32_t count,
                     uint32_t *scratch, CostEstimate *estimate)
{
    memset(estimate, 0, sizeof *estimate);
    if (count == 0)
        return;
    uint32_t *parent = scratch;
    uint32_t position[64];
    bool fused[64] = {false};
    for (uint32_t leaf = 0; leaf < graph->leaf_count; leaf++)
        position[leaf] = UINT32_MAX;
    for (uint32_t i = 0; i < count; i++)
        position[order[i]] = i;
    if (graph->multi_join)
        cost_mark_fused(graph, order, count, position, parent, fused);
    const CostLeaf *first = &graph->leaves[order[0]];
    double rows = first->rows, width = first->width;
    uint64_t present = (uint64_t)1 << order[0];
    for (uint32_t i = 1; i < count; i++) {
        const CostLeaf *leaf = &graph->leaves[order[i]];
        uint64_t bit = (uint64_t)1 << order[i];
        double selectivity = 1.0;
        bool linked = false;
        for (uint32_t c = 0; c < graph->conjunct_count; c++) {
            const CostConjunct *conjunct = &graph->conjuncts[c];
            uint64_t reads = conjunct->leaves;
            bool applies = i == 1 ? (reads & ~(present | bit)) == 0
                                  : (reads & ~(present | bit)) == 0 && (reads & bit);
            if (!applies)
                continue;
            selectivity *= conjunct->selectivity;
            linked = linked || ((reads & bit) && (reads & present));
        }
        if (!linked)
            estimate->cross_products++;
        double left_hours = i == 1 ? first->state_hours : graph->default_hours;
        double right_bytes = leaf->rows * leaf->width;
        estimate->state_bytes += right_bytes;
        estimate->state_cost += right_bytes * leaf->state_hours;
        estimate->shuffle_bytes += right_bytes;
        if (fused[i]) {
            estimate->fused_steps++;
        } else {
            double left_bytes = rows * width;
            estimate->state_bytes += left_bytes;
            estimate->state_cost += left_bytes * left_hours;
            estimate->shuffle_bytes += left_bytes;
        }
        rows = rows * leaf->rows * selectivity;
        width += leaf->width;
        estimate->produced_rows += rows;
        estimate->total += rows * width;
        present |= bit;
    }
    estimate->rows = rows;
    estimate->total += estimate->state_cost + estimate->shuffle_bytes;
}
