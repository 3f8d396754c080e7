/*
 * reorder_joins.c - cost-based join reordering
 * ('table.optimizer.join-reorder-enabled').
 *
 * Runs after rule_push_filters (so the join conditions hold every
 * predicate that links tables) and before rule_prune_fields. Each maximal
 * tree of INNER LogicalJoins directly over each other is flattened into
 * its leaves (every other node is a leaf, reordered inside recursively) and
 * the conjuncts of all its conditions, over the leaves' fields numbered
 * globally in the original left-to-right order. A left-deep order is chosen
 * by the cost model (cost.h: cardinality, state bytes x hours kept,
 * shuffles, MultiJoin fusion when enabled): every permutation for up to
 * REORDER_EXHAUSTIVE_LEAVES leaves, else greedily from every starting leaf.
 * A leaf joins the prefix only through a condition unless no remaining leaf
 * can (cross products only when unavoidable); ties keep the original order.
 *
 * The rebuilt tree attaches each conjunct at the lowest join where all its
 * leaves are present, keeps STATE_TTL hints with the tables they name, and
 * ends in a LogicalProject restoring the original field order and names, so
 * the plan above is unchanged. A tree whose best order is its original one
 * is left as it was. Invariant: the result computes the same rows (inner
 * joins commute and associate; conditions are neither dropped nor added).
 */
#include <string.h>

#include "engine/plan/cost.h"
#include "engine/plan/interval_bounds.h"
#include "engine/plan/nodes/nodes.h"
#include "engine/plan/window_properties.h"

enum { REORDER_EXHAUSTIVE_LEAVES = 7, REORDER_MAX_LEAVES = 64 };

typedef struct Tree {
    PlanNode **leaves;       /* in original left-to-right order */
    uint32_t *offsets;       /* first global field of each leaf */
    int64_t *hint_ttl;       /* STATE_TTL hint of a leaf that is a table; -1 none */
    const char **hint_names; /* table or alias name of a leaf; NULL for a subplan */
    uint32_t leaf_count;
    uint32_t capacity;
    uint32_t field_count;
    Expr **conjuncts; /* over global fields */
    uint32_t conjunct_count;
    uint32_t conjunct_capacity;
    const char *hint_text; /* the STATE_TTL hint text, when any join had one */
    bool left_deep;        /* every join's right input is a leaf */
} Tree;

typedef struct Search {
    const CostGraph *graph;
    uint32_t *scratch;
    uint32_t order[REORDER_MAX_LEAVES];
    uint32_t best[REORDER_MAX_LEAVES];
    double best_total;
    bool found;
} Search;

static int reorder(PlannerContext *context, PlanNode *node, const uint64_t *used,
                   PlanNode **result);

/* An inner regular join: an interval join is a leaf (its time bounds pair its two inputs), and
   so is a window join (its window equalities must keep joining the two windowed inputs). */
static bool is_inner_join(Arena *arena, const PlanNode *node)
{
    return node->kind == PLAN_LOGICAL_JOIN && node->join.join_type == JOIN_TYPE_INNER &&
           !interval_bounds_of_join(arena, node) && !plan_join_is_window_join(node);
}

/* ---------------------------------------------------------------- flattening */

static int tree_add_leaf(Arena *arena, Tree *tree, PlanNode *leaf, int64_t hint_ttl,
                         const char *hint_name)
{
    if (tree->leaf_count == tree->capacity) {
        uint32_t capacity = tree->capacity ? tree->capacity * 2 : 8;
        PlanNode **leaves = arena_calloc(arena, capacity, sizeof(PlanNode *));
        uint32_t *offsets = arena_calloc(arena, capacity + 1, sizeof(uint32_t));
        int64_t *ttl = arena_calloc(arena, capacity, sizeof(int64_t));
        const char **names = arena_calloc(arena, capacity, sizeof(char *));
        if (!leaves || !offsets || !ttl || !names)
            return JOINERY_ERROR_NO_MEMORY;
        if (tree->leaf_count) {
            memcpy(leaves, tree->leaves, tree->leaf_count * sizeof(PlanNode *));
            memcpy(offsets, tree->offsets, tree->leaf_count * sizeof(uint32_t));
            memcpy(ttl, tree->hint_ttl, tree->leaf_count * sizeof(int64_t));
            memcpy(names, tree->hint_names, tree->leaf_count * sizeof(char *));
        }
        tree->leaves = leaves;
        tree->offsets = offsets;
        tree->hint_ttl = ttl;
        tree->hint_names = names;
        tree->capacity = capacity;
    }
    tree->leaves[tree->leaf_count] = leaf;
    tree->offsets[tree->leaf_count] = tree->field_count;
    tree->hint_ttl[tree->leaf_count] = hint_ttl;
    tree->hint_names[tree->leaf_count] = hint_name;
    tree->leaf_count++;
    tree->field_count += leaf->field_count;
    return JOINERY_OK;
}

/* Adds the leaves and conjuncts of the inner-join tree `join` to `tree`. */
static int tree_flatten(Arena *arena, Tree *tree, PlanNode *join)
{
    uint32_t base = tree->field_count;
    for (uint32_t side = 0; side < 2; side++) {
        PlanNode *input = join->inputs[side];
        int status;
        if (is_inner_join(arena, input)) {
            if (side == 1)
                tree->left_deep = false;
            status = tree_flatten(arena, tree, input);
        } else {
            int64_t ttl = side == 0 ? join->state_ttl_millis : join->state_ttl_right_millis;
            status =
                tree_add_leaf(arena, tree, input, join->ttl_from_hint && ttl >= 0 ? ttl : -1,
                              side == 0 ? join->join.left_hint_name : join->join.right_hint_name);
        }
        if (status != JOINERY_OK)
            return status;
    }
    if (join->ttl_from_hint && join->join.state_ttl_hint)
        tree->hint_text = join->join.state_ttl_hint;
    RuleConjuncts split = {0};
    int status = rule_split_conjuncts(arena, join->join.condition, &split);
    if (status != JOINERY_OK)
        return status;
    Expr **items = split.items;
    uint32_t count = split.count;
    int32_t *shift = arena_calloc(arena, join->field_count + 1, sizeof(int32_t));
    if (!shift)
        return JOINERY_ERROR_NO_MEMORY;
    for (uint32_t i = 0; i < join->field_count; i++)
        shift[i] = (int32_t)(base + i);
    for (uint32_t i = 0; i < count; i++) {
        Expr *global = expr_remap_inputs(arena, items[i], shift);
        if (!global)
            return JOINERY_ERROR_NO_MEMORY;
        if (tree->conjunct_count == tree->conjunct_capacity) {
            uint32_t grown = tree->conjunct_capacity ? tree->conjunct_capacity * 2 : 8;
            Expr **conjuncts = arena_calloc(arena, grown, sizeof(Expr *));
            if (!conjuncts)
                return JOINERY_ERROR_NO_MEMORY;
            if (tree->conjunct_count)
                memcpy(conjuncts, tree->conjuncts, tree->conjunct_count * sizeof(Expr *));
            tree->conjuncts = conjuncts;
            tree->conjunct_capacity = grown;
        }
        tree->conjuncts[tree->conjunct_count++] = global;
    }
    return JOINERY_OK;
}

/* The original tree's shape over new leaves (leaves[*next...] in order). */
static PlanNode *tree_rebuild_original(Arena *arena, const PlanNode *join, PlanNode **leaves,
                                       uint32_t *next)
{
    PlanNode *copy = plan_node_copy(arena, join);
    if (!copy)
        return NULL;
    for (uint32_t side = 0; side < 2; side++) {
        PlanNode *input = join->inputs[side];
        copy->inputs[side] = is_inner_join(arena, input)
                                 ? tree_rebuild_original(arena, input, leaves, next)
                                 : leaves[(*next)++];
        if (!copy->inputs[side])
            return NULL;
    }
    return copy;
}

/* ---------------------------------------------------------------- search */

/* True when `leaf` joins the leaves in `present` through some conjunct. */
static bool graph_links(const CostGraph *graph, uint64_t present, uint32_t leaf)
{
    uint64_t bit = (uint64_t)1 << leaf;
    for (uint32_t c = 0; c < graph->conjunct_count; c++) {
        uint64_t reads = graph->conjuncts[c].leaves;
        if ((reads & bit) && (reads & present) && (reads & ~(present | bit)) == 0)
            return true;
    }
    return false;
}

/* True when `leaf` may come next: linked to the prefix, or no unused leaf is. */
static bool search_allows(const CostGraph *graph, uint64_t present, uint32_t leaf)
{
    if (present == 0 || graph_links(graph, present, leaf))
        return true;
    for (uint32_t other = 0; other < graph->leaf_count; other++)
        if (!((present >> other) & 1) && graph_links(graph, present, other))
            return false;
    return true;
}

static void search_consider(Search *search, const uint32_t *order)
{
    CostEstimate estimate;
    cost_join_order(search->graph, order, search->graph->leaf_count, search->scratch, &estimate);
    /* strictly better by a relative margin: ties keep the earlier (original-first) order */
    if (!search->found || estimate.total < search->best_total * (1.0 - 1e-9)) {
        search->found = true;
        search->best_total = estimate.total;
        memcpy(search->best, order, search->graph->leaf_count * sizeof(uint32_t));
    }
}

/* Every allowed permutation, in lexicographic order of leaf indexes. */
static void search_exhaustive(Search *search, uint32_t depth, uint64_t present)
{
    const CostGraph *graph = search->graph;
    if (depth == graph->leaf_count) {
        search_consider(search, search->order);
        return;
    }
    for (uint32_t leaf = 0; leaf < graph->leaf_count; leaf++) {
        if ((present >> leaf) & 1 || !search_allows(graph, present, leaf))
            continue;
        search->order[depth] = leaf;
        search_exhaustive(search, depth + 1, present | ((uint64_t)1 << leaf));
    }
}

/* From every starting leaf, add the allowed leaf that keeps the prefix cheapest. */
static void search_greedy(Search *search)
{
    const CostGraph *graph = search->graph;
    for (uint32_t start = 0; start < graph->leaf_count; start++) {
        search->order[0] = start;
        uint64_t present = (uint64_t)1 << start;
        for (uint32_t depth = 1; depth < graph->leaf_count; depth++) {
            double cheapest = 0;
            uint32_t chosen = UINT32_MAX;
            for (uint32_t leaf = 0; leaf < graph->leaf_count; leaf++) {
                if ((present >> leaf) & 1 || !search_allows(graph, present, leaf))
                    continue;
                search->order[depth] = leaf;
                CostEstimate estimate;
                cost_join_order(graph, search->order, depth + 1, search->scratch, &estimate);
                if (chosen == UINT32_MAX || estimate.total < cheapest * (1.0 - 1e-9)) {
                    cheapest = estimate.total;
                    chosen = leaf;
                }
            }
            search->order[depth] = chosen;
            present |= (uint64_t)1 << chosen;
        }
        search_consider(search, search->order);
    }
}

/* ---------------------------------------------------------------- the graph */

static int graph_build(PlannerContext *context, const Tree *tree, const uint64_t *leaf_used_bits,
                       CostGraph *graph)
{
    Arena *arena = context->arena;
    int64_t default_ttl = context->config->state_ttl_millis;
    memset(graph, 0, sizeof *graph);
    graph->leaf_count = tree->leaf_count;
    graph->field_count = tree->field_count;
    graph->default_hours = cost_state_hours(default_ttl);
    graph->multi_join = context->multi_join_hinted || context->config->multi_join_enabled;
    graph->leaves = arena_calloc(arena, tree->leaf_count, sizeof(CostLeaf));
    graph->conjuncts = arena_calloc(arena, tree->conjunct_count + 1, sizeof(CostConjunct));
    double *rows = arena_calloc(arena, tree->leaf_count, sizeof(double));
    PlanField *used_fields = arena_calloc(arena, tree->field_count + 1, sizeof(PlanField));
    if (!graph->leaves || !graph->conjuncts || !rows || !used_fields)
        return JOINERY_ERROR_NO_MEMORY;
    for (uint32_t l = 0; l < tree->leaf_count; l++) {
        const PlanNode *leaf = tree->leaves[l];
        CostLeaf *cost_leaf = &graph->leaves[l];
        uint32_t used = 0;
        for (uint32_t f = 0; f < leaf->field_count; f++)
            if (rule_fields_has(leaf_used_bits, tree->offsets[l] + f))
                used_fields[used++] = leaf->fields[f];
        rows[l] = cost_node_rows(leaf);
        cost_leaf->rows = rows[l];
        cost_leaf->width = cost_row_width(used_fields, used);
        cost_leaf->state_hours =
            cost_state_hours(tree->hint_ttl[l] >= 0 ? tree->hint_ttl[l] : default_ttl);
        cost_leaf->field_offset = tree->offsets[l];
        cost_leaf->field_count = leaf->field_count;
    }
    uint64_t *reads = rule_fields_new(arena, tree->field_count);
    if (!reads)
        return JOINERY_ERROR_NO_MEMORY;
    for (uint32_t c = 0; c < tree->conjunct_count; c++) {
        const Expr *conjunct = tree->conjuncts[c];
        CostConjunct *cost_conjunct = &graph->conjuncts[c];
        memset(reads, 0, (tree->field_count / 64 + 1) * sizeof(uint64_t));
        expr_collect_inputs(conjunct, reads);
        for (uint32_t l = 0; l < tree->leaf_count; l++)
            for (uint32_t f = 0; f < tree->leaves[l]->field_count; f++)
                if (rule_fields_has(reads, tree->offsets[l] + f))
                    cost_conjunct->leaves |= (uint64_t)1 << l;
        cost_conjunct->selectivity =
            cost_join_selectivity(conjunct, tree->leaves, tree->leaf_count, rows);
        cost_conjunct->equal_left = cost_conjunct->equal_right = -1;
        /* the equalities rules/fuse_multi_join.c unites: plain refs of one type */
        if (conjunct->kind == EXPR_CALL && conjunct->call.function == FUNCTION_EQUAL &&
            conjunct->call.arg_count == 2) {
            const Expr *a = conjunct->call.args[0], *b = conjunct->call.args[1];
            if (a->kind == EXPR_INPUT_REF && b->kind == EXPR_INPUT_REF &&
                type_equals(a->type, b->type)) {
                cost_conjunct->equal_left = (int32_t)a->input_index;
                cost_conjunct->equal_right = (int32_t)b->input_index;
            }
        }
    }
    graph->conjunct_count = tree->conjunct_count;
    return JOINERY_OK;
}

/* ---------------------------------------------------------------- rebuilding */

static PlanNode *build_order(PlannerContext *context, const Tree *tree, const PlanNode *top,
                             const CostGraph *graph, const uint32_t *order)
{
    Arena *arena = context->arena;
    uint32_t count = tree->leaf_count;
    uint32_t position[REORDER_MAX_LEAVES];
    for (uint32_t i = 0; i < count; i++)
        position[order[i]] = i;
    /* global field -> field of the reordered joins (prefix order) */
    int32_t *mapping = arena_calloc(arena, tree->field_count + 1, sizeof(int32_t));
    uint32_t *step_of = arena_calloc(arena, tree->conjunct_count + 1, sizeof(uint32_t));
    Expr **items = arena_calloc(arena, tree->conjunct_count + 1, sizeof(Expr *));
    if (!mapping || !step_of || !items)
        return NULL;
    uint32_t next = 0;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t leaf = order[i];
        for (uint32_t f = 0; f < tree->leaves[leaf]->field_count; f++)
            mapping[tree->offsets[leaf] + f] = (int32_t)next++;
    }
    for (uint32_t c = 0; c < tree->conjunct_count; c++) {
        uint32_t step = 1;
        for (uint32_t leaf = 0; leaf < count; leaf++)
            if (((graph->conjuncts[c].leaves >> leaf) & 1) && position[leaf] > step)
                step = position[leaf];
        step_of[c] = step;
    }
    PlanNode *current = tree->leaves[order[0]];
    for (uint32_t i = 1; i < count; i++) {
        PlanNode *right = tree->leaves[order[i]];
        uint32_t fields = current->field_count + right->field_count;
        PlanNode *join = plan_node_new(arena, PLAN_LOGICAL_JOIN, 2, fields);
        if (!join)
            return NULL;
        join->id = ++context->next_node_id;
        join->inputs[0] = current;
        join->inputs[1] = right;
        memcpy(join->fields, current->fields, current->field_count * sizeof(PlanField));
        memcpy(join->fields + current->field_count, right->fields,
               right->field_count * sizeof(PlanField));
        plan_uniquify_names(arena, join->fields, fields);
        join->join.join_type = JOIN_TYPE_INNER;
        uint32_t item_count = 0;
        for (uint32_t c = 0; c < tree->conjunct_count; c++) {
            if (step_of[c] != i)
                continue;
            items[item_count] = expr_remap_inputs(arena, tree->conjuncts[c], mapping);
            if (!items[item_count])
                return NULL;
            item_count++;
        }
        join->join.condition = expr_make_and(arena, items, item_count);
        int64_t left_ttl = i == 1 ? tree->hint_ttl[order[0]] : -1;
        int64_t right_ttl = tree->hint_ttl[order[i]];
        join->state_ttl_millis = left_ttl;
        join->state_ttl_right_millis = right_ttl;
        join->ttl_from_hint = left_ttl >= 0 || right_ttl >= 0;
        join->join.state_ttl_hint = join->ttl_from_hint ? tree->hint_text : NULL;
        join->join.left_hint_name = i == 1 ? tree->hint_names[order[0]] : NULL;
        join->join.right_hint_name = tree->hint_names[order[i]];
        current = join;
    }
    PlanNode *project = plan_node_new(arena, PLAN_LOGICAL_PROJECT, 1, top->field_count);
    if (!project)
        return NULL;
    project->id = ++context->next_node_id;
    project->inputs[0] = current;
    memcpy(project->fields, top->fields, top->field_count * sizeof(PlanField));
    project->calc.project_count = top->field_count;
    project->calc.projects = arena_calloc(arena, top->field_count + 1, sizeof(Expr *));
    if (!project->calc.projects)
        return NULL;
    for (uint32_t g = 0; g < top->field_count; g++) {
        uint32_t from = (uint32_t)mapping[g];
        project->calc.projects[g] = expr_make_input_ref(arena, from, current->fields[from].type);
        if (!project->calc.projects[g])
            return NULL;
    }
    return project;
}

static int reorder_tree(PlannerContext *context, PlanNode *node, const uint64_t *used,
                        PlanNode **result)
{
    Arena *arena = context->arena;
    Tree tree;
    memset(&tree, 0, sizeof tree);
    tree.left_deep = true;
    int status = tree_flatten(arena, &tree, node);
    if (status != JOINERY_OK)
        return status;
    /* fields the leaves must produce: what is read above, and every condition */
    uint64_t *needed = rule_fields_copy(arena, used, tree.field_count);
    if (!needed)
        return JOINERY_ERROR_NO_MEMORY;
    for (uint32_t c = 0; c < tree.conjunct_count; c++)
        expr_collect_inputs(tree.conjuncts[c], needed);
    PlanNode **leaves = arena_calloc(arena, tree.leaf_count, sizeof(PlanNode *));
    if (!leaves)
        return JOINERY_ERROR_NO_MEMORY;
    for (uint32_t l = 0; l < tree.leaf_count; l++) {
        uint64_t *leaf_used =
            rule_fields_slice(arena, needed, tree.offsets[l], tree.leaves[l]->field_count);
        if (!leaf_used)
            return JOINERY_ERROR_NO_MEMORY;
        status = reorder(context, tree.leaves[l], leaf_used, &leaves[l]);
        if (status != JOINERY_OK)
            return status;
    }
    PlanNode **original_leaves = tree.leaves;
    tree.leaves = leaves;
    uint32_t identity[REORDER_MAX_LEAVES];
    for (uint32_t l = 0; l < tree.leaf_count && l < REORDER_MAX_LEAVES; l++)
        identity[l] = l;
    if (tree.leaf_count >= 3 && tree.leaf_count <= REORDER_MAX_LEAVES) {
        CostGraph graph;
        status = graph_build(context, &tree, needed, &graph);
        if (status != JOINERY_OK)
            return status;
        Search search;
        memset(&search, 0, sizeof search);
        search.graph = &graph;
        search.scratch = arena_calloc(arena, 2 * (size_t)graph.field_count + 2, sizeof(uint32_t));
        if (!search.scratch)
            return JOINERY_ERROR_NO_MEMORY;
        if (graph.leaf_count <= REORDER_EXHAUSTIVE_LEAVES)
            search_exhaustive(&search, 0, 0);
        else
            search_greedy(&search);
        bool unchanged = !search.found ||
                         (tree.left_deep &&
                          memcmp(search.best, identity, tree.leaf_count * sizeof(uint32_t)) == 0);
        if (!unchanged) {
            *result = build_order(context, &tree, node, &graph, search.best);
            return *result ? JOINERY_OK : JOINERY_ERROR_NO_MEMORY;
        }
    }
    bool same_leaves = true;
    for (uint32_t l = 0; l < tree.leaf_count; l++)
        same_leaves = same_leaves && leaves[l] == original_leaves[l];
    if (same_leaves) {
        *result = node;
        return JOINERY_OK;
    }
    uint32_t next = 0;
    *result = tree_rebuild_original(arena, node, leaves, &next);
    return *result ? JOINERY_OK : JOINERY_ERROR_NO_MEMORY;
}

/* ---------------------------------------------------------------- the walk */

/* Fields of input `index` that `node` reads, given the fields of `node` read above. */
static uint64_t *input_used(Arena *arena, const PlanNode *node, uint32_t index,
                            const uint64_t *used)
{
    const PlanKindInfo *info = plan_kind_info(node->kind);
    if (info->input_fields_used)
        return info->input_fields_used(arena, node, index, used);
    return rule_fields_copy(arena, NULL, node->inputs[index]->field_count);
}

static int reorder(PlannerContext *context, PlanNode *node, const uint64_t *used, PlanNode **result)
{
    if (is_inner_join(context->arena, node))
        return reorder_tree(context, node, used, result);
    *result = node;
    if (node->input_count == 0)
        return JOINERY_OK;
    PlanNode *copy = NULL;
    for (uint32_t i = 0; i < node->input_count; i++) {
        uint64_t *input_bits = input_used(context->arena, node, i, used);
        if (!input_bits)
            return JOINERY_ERROR_NO_MEMORY;
        PlanNode *input = NULL;
        int status = reorder(context, node->inputs[i], input_bits, &input);
        if (status != JOINERY_OK)
            return status;
        if (input == node->inputs[i])
            continue;
        if (!copy && !(copy = plan_node_copy(context->arena, node)))
            return JOINERY_ERROR_NO_MEMORY;
        copy->inputs[i] = input;
    }
    if (copy)
        *result = copy;
    return JOINERY_OK;
}

int rule_reorder_joins(PlannerContext *context, PlanNode *node, PlanNode **result)
{
    int status = reorder(context, node, NULL, result);
    if (status == JOINERY_ERROR_NO_MEMORY)
        return diag_error(context->diag, status, "out of memory");
    return status;
}
