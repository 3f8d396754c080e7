/*
 * prune_fields.c - projection pruning: every node keeps only the fields
 * something above it reads, down to the table scan, whose produced columns
 * become project=[...].
 *
 * prune(node, used) returns a node whose fields are the `used` fields of the
 * original (plus any the node itself cannot drop), in their original order,
 * and mapping[old field] = new index or -1.
 */
#include <string.h>

#include "engine/plan/rules/rules.h"

typedef struct FieldSet {
    uint64_t *words;
    uint32_t size;
} FieldSet;

static FieldSet set_new(Arena *arena, uint32_t size)
{
    FieldSet set = {arena_calloc(arena, size / 64 + 1, sizeof(uint64_t)), size};
    return set;
}

static bool set_has(const FieldSet *set, uint32_t i)
{
    return (set->words[i / 64] >> (i % 64)) & 1;
}

static void set_add(FieldSet *set, uint32_t i)
{
    set->words[i / 64] |= (uint64_t)1 << (i % 64);
}

static void set_add_expr(FieldSet *set, const Expr *expr)
{
    if (expr)
        expr_collect_inputs(expr, set->words);
}

typedef struct Pruned {
    PlanNode *node;
    int32_t *mapping; /* old field -> new field, or -1 */
} Pruned;

static int32_t *identity_mapping(Arena *arena, uint32_t count)
{
    int32_t *mapping = arena_calloc(arena, count + 1, sizeof(int32_t));
    for (uint32_t i = 0; mapping && i < count; i++)
        mapping[i] = (int32_t)i;
    return mapping;
}

/*
 * Puts a LogicalProject above `node` keeping only the original fields in
 * `used` (mapping: original field -> field of `node`). For nodes that need
 * more fields than their parent reads (a filter's or a watermark's own).
 */
static int project_used(PlannerContext *context, PlanNode *node, uint32_t original_count,
                        const FieldSet *used, const int32_t *mapping, Pruned *result)
{
    Arena *arena = context->arena;
    uint32_t count = 0;
    for (uint32_t i = 0; i < original_count; i++)
        count += set_has(used, i);
    if (count == node->field_count) {
        result->node = node;
        result->mapping = (int32_t *)mapping;
        return JOINERY_OK;
    }
    PlanNode *project = plan_node_new(arena, PLAN_LOGICAL_PROJECT, 1, count);
    int32_t *new_mapping = arena_calloc(arena, original_count + 1, sizeof(int32_t));
    if (!project || !new_mapping)
        return JOINERY_ERROR_NO_MEMORY;
    project->id = ++context->next_node_id;
    project->inputs[0] = node;
    project->calc.project_count = count;
    project->calc.projects = arena_calloc(arena, count + 1, sizeof(Expr *));
    if (!project->calc.projects)
        return JOINERY_ERROR_NO_MEMORY;
    uint32_t next = 0;
    for (uint32_t i = 0; i < original_count; i++) {
        new_mapping[i] = -1;
        if (!set_has(used, i))
            continue;
        int32_t from = mapping[i];
        project->calc.projects[next] =
            expr_make_input_ref(arena, (uint32_t)from, node->fields[from].type);
        project->fields[next] = node->fields[from];
        new_mapping[i] = (int32_t)next++;
    }
    result->node = project;
    result->mapping = new_mapping;
    return JOINERY_OK;
}

static int prune(PlannerContext *context, PlanNode *node, FieldSet used, Pruned *result);

/* Keeps every field: prunes the inputs as each needs and remaps nothing. */
static int prune_keep_all(PlannerContext *context, PlanNode *node, Pruned *result)
{
    PlanNode *copy = plan_node_copy(context->arena, node);
    if (!copy)
        return JOINERY_ERROR_NO_MEMORY;
    for (uint32_t i = 0; i < node->input_count; i++) {
        FieldSet all = set_new(context->arena, node->inputs[i]->field_count);
        for (uint32_t f = 0; f < node->inputs[i]->field_count; f++)
            set_add(&all, f);
        Pruned input;
        int status = prune(context, node->inputs[i], all, &input);
        if (status != JOINERY_OK)
            return status;
        copy->inputs[i] = input.node;
    }
    result->node = copy;
    result->mapping = identity_mapping(context->arena, node->field_count);
    return result->mapping ? JOINERY_OK : JOINERY_ERROR_NO_MEMORY;
}

/* Copies fields[i] for every i with mapping[i] >= 0. */
static void compact_fields(const PlanField *from, uint32_t count, const int32_t *mapping,
                           PlanField *to)
{
    for (uint32_t i = 0; i < count; i++)
        if (mapping[i] >= 0)
            to[mapping[i]] = from[i];
}

static int prune_scan_fields(PlannerContext *context, PlanNode *node, FieldSet used,
                             Pruned *result);

/* An upsert scan keeps its primary key (ChangelogNormalize needs it) and drops it above. */
static int prune_scan(PlannerContext *context, PlanNode *node, FieldSet used, Pruned *result)
{
    if (!plan_table_is_upsert_source(node->scan.table))
        return prune_scan_fields(context, node, used, result);
    const CatalogTable *table = node->scan.table;
    FieldSet needed = set_new(context->arena, node->field_count);
    if (!needed.words)
        return JOINERY_ERROR_NO_MEMORY;
    memcpy(needed.words, used.words, (node->field_count / 64 + 1) * sizeof(uint64_t));
    for (size_t k = 0; k < table->primary_key_count; k++) {
        int field = plan_scan_field_of_column(
            node, catalog_table_column_index(table, table->primary_key[k]));
        if (field >= 0)
            set_add(&needed, (uint32_t)field);
    }
    Pruned scan;
    int status = prune_scan_fields(context, node, needed, &scan);
    if (status != JOINERY_OK)
        return status;
    return project_used(context, scan.node, node->field_count, &used, scan.mapping, result);
}

static int prune_scan_fields(PlannerContext *context, PlanNode *node, FieldSet used, Pruned *result)
{
    Arena *arena = context->arena;
    /* the filter is applied inside the scan: its columns are read, not output */
    FieldSet read = set_new(arena, node->field_count);
    memcpy(read.words, used.words, (node->field_count / 64 + 1) * sizeof(uint64_t));
    set_add_expr(&read, node->scan.filter);
    uint32_t output = 0, read_count = 0;
    for (uint32_t i = 0; i < node->field_count; i++) {
        output += set_has(&used, i);
        read_count += set_has(&read, i);
    }
    if (read_count == 0 && node->field_count > 0) {
        set_add(&used, 0); /* a scan produces at least one column */
        set_add(&read, 0);
        output = read_count = 1;
    }
    PlanNode *scan = plan_node_copy(arena, node);
    int32_t *mapping = arena_calloc(arena, node->field_count + 1, sizeof(int32_t));
    int32_t *read_mapping = arena_calloc(arena, node->field_count + 1, sizeof(int32_t));
    if (!scan || !mapping || !read_mapping)
        return JOINERY_ERROR_NO_MEMORY;
    scan->fields = arena_calloc(arena, output + 1, sizeof(PlanField));
    scan->scan.columns = arena_calloc(arena, read_count + 1, sizeof(uint32_t));
    if (!scan->fields || !scan->scan.columns)
        return JOINERY_ERROR_NO_MEMORY;
    uint32_t next = 0, extra = output;
    for (uint32_t i = 0; i < node->field_count; i++) {
        mapping[i] = read_mapping[i] = -1;
        if (set_has(&used, i)) {
            mapping[i] = read_mapping[i] = (int32_t)next;
            scan->fields[next] = node->fields[i];
            scan->scan.columns[next] = node->scan.columns[i];
            next++;
        } else if (set_has(&read, i)) {
            read_mapping[i] = (int32_t)extra;
            scan->scan.columns[extra] = node->scan.columns[i];
            extra++;
        }
    }
    scan->field_count = output;
    scan->scan.column_count = output;
    scan->scan.read_count = read_count;
    scan->scan.projected = output < node->field_count || node->scan.projected;
    if (node->scan.filter) {
        scan->scan.filter = expr_remap_inputs(arena, node->scan.filter, read_mapping);
        if (!scan->scan.filter)
            return JOINERY_ERROR_NO_MEMORY;
    }
    result->node = scan;
    result->mapping = mapping;
    return JOINERY_OK;
}

static int prune_project(PlannerContext *context, PlanNode *node, FieldSet used, Pruned *result)
{
    Arena *arena = context->arena;
    PlanNode *input_node = node->inputs[0];
    FieldSet input_used = set_new(arena, input_node->field_count);
    uint32_t count = 0;
    for (uint32_t i = 0; i < node->field_count; i++)
        if (set_has(&used, i) || !expr_is_deterministic(node->calc.projects[i])) {
            set_add_expr(&input_used, node->calc.projects[i]);
            count++;
        }
    Pruned input;
    int status = prune(context, input_node, input_used, &input);
    if (status != JOINERY_OK)
        return status;
    PlanNode *project = plan_node_copy(context->arena, node);
    int32_t *mapping = arena_calloc(arena, node->field_count + 1, sizeof(int32_t));
    if (!project || !mapping)
        return JOINERY_ERROR_NO_MEMORY;
    project->inputs[0] = input.node;
    project->fields = arena_calloc(arena, count + 1, sizeof(PlanField));
    project->calc.projects = arena_calloc(arena, count + 1, sizeof(Expr *));
    if (!project->fields || !project->calc.projects)
        return JOINERY_ERROR_NO_MEMORY;
    uint32_t next = 0;
    for (uint32_t i = 0; i < node->field_count; i++) {
        if (!(set_has(&used, i) || !expr_is_deterministic(node->calc.projects[i]))) {
            mapping[i] = -1;
            continue;
        }
        mapping[i] = (int32_t)next;
        project->fields[next] = node->fields[i];
        project->calc.projects[next] =
            expr_remap_inputs(arena, node->calc.projects[i], input.mapping);
        if (!project->calc.projects[next])
            return JOINERY_ERROR_NO_MEMORY;
        next++;
    }
    project->field_count = count;
    project->calc.project_count = count;
    result->node = project;
    result->mapping = mapping;
    return JOINERY_OK;
}

static int prune_filter(PlannerContext *context, PlanNode *node, FieldSet used, Pruned *result)
{
    Arena *arena = context->arena;
    FieldSet input_used = set_new(arena, node->field_count);
    memcpy(input_used.words, used.words, (node->field_count / 64 + 1) * sizeof(uint64_t));
    set_add_expr(&input_used, node->filter.condition);
    Pruned input;
    int status = prune(context, node->inputs[0], input_used, &input);
    if (status != JOINERY_OK)
        return status;
    PlanNode *filter = plan_node_copy(context->arena, node);
    if (!filter)
        return JOINERY_ERROR_NO_MEMORY;
    filter->inputs[0] = input.node;
    filter->field_count = input.node->field_count;
    filter->fields = input.node->fields;
    filter->filter.condition = expr_remap_inputs(arena, node->filter.condition, input.mapping);
    if (!filter->filter.condition)
        return JOINERY_ERROR_NO_MEMORY;
    /* fields only the condition reads are dropped right after it */
    return project_used(context, filter, node->field_count, &used, input.mapping, result);
}

static int prune_join(PlannerContext *context, PlanNode *node, FieldSet used, Pruned *result)
{
    Arena *arena = context->arena;
    uint32_t left_count = node->inputs[0]->field_count;
    uint32_t right_count = node->inputs[1]->field_count;
    set_add_expr(&used, node->join.condition);
    FieldSet left_used = set_new(arena, left_count);
    FieldSet right_used = set_new(arena, right_count);
    for (uint32_t i = 0; i < left_count; i++)
        if (set_has(&used, i))
            set_add(&left_used, i);
    for (uint32_t i = 0; i < right_count; i++)
        if (set_has(&used, left_count + i))
            set_add(&right_used, i);
    Pruned left, right;
    int status = prune(context, node->inputs[0], left_used, &left);
    if (status == JOINERY_OK)
        status = prune(context, node->inputs[1], right_used, &right);
    if (status != JOINERY_OK)
        return status;
    uint32_t new_left = left.node->field_count;
    uint32_t new_count = new_left + right.node->field_count;
    int32_t *mapping = arena_calloc(arena, node->field_count + 1, sizeof(int32_t));
    PlanNode *join = plan_node_copy(context->arena, node);
    if (!mapping || !join)
        return JOINERY_ERROR_NO_MEMORY;
    for (uint32_t i = 0; i < left_count; i++)
        mapping[i] = left.mapping[i];
    for (uint32_t i = 0; i < right_count; i++)
        mapping[left_count + i] = right.mapping[i] < 0 ? -1 : (int32_t)new_left + right.mapping[i];
    join->inputs[0] = left.node;
    join->inputs[1] = right.node;
    join->fields = arena_calloc(arena, new_count + 1, sizeof(PlanField));
    if (!join->fields)
        return JOINERY_ERROR_NO_MEMORY;
    compact_fields(node->fields, node->field_count, mapping, join->fields);
    join->field_count = new_count;
    if (node->join.condition) {
        join->join.condition = expr_remap_inputs(arena, node->join.condition, mapping);
        if (!join->join.condition)
            return JOINERY_ERROR_NO_MEMORY;
    }
    result->node = join;
    result->mapping = mapping;
    return JOINERY_OK;
}

static int prune_aggregate(PlannerContext *context, PlanNode *node, Pruned *result)
{
    Arena *arena = context->arena;
    PlanNode *input_node = node->inputs[0];
    FieldSet input_used = set_new(arena, input_node->field_count);
    for (uint32_t i = 0; i < node->aggregate.group_key_count; i++)
        set_add(&input_used, node->aggregate.group_keys[i]);
    for (uint32_t i = 0; i < node->aggregate.call_count; i++)
        if (node->aggregate.calls[i].kind != PLAN_AGGREGATE_COUNT_STAR)
            set_add(&input_used, node->aggregate.calls[i].argument);
    Pruned input;
    int status = prune(context, input_node, input_used, &input);
    if (status != JOINERY_OK)
        return status;
    PlanNode *aggregate = plan_node_copy(context->arena, node);
    if (!aggregate)
        return JOINERY_ERROR_NO_MEMORY;
    aggregate->inputs[0] = input.node;
    aggregate->aggregate.group_keys =
        arena_calloc(arena, node->aggregate.group_key_count + 1, sizeof(uint32_t));
    aggregate->aggregate.calls =
        arena_calloc(arena, node->aggregate.call_count + 1, sizeof(PlanAggregateCall));
    if (!aggregate->aggregate.group_keys || !aggregate->aggregate.calls)
        return JOINERY_ERROR_NO_MEMORY;
    for (uint32_t i = 0; i < node->aggregate.group_key_count; i++)
        aggregate->aggregate.group_keys[i] = (uint32_t)input.mapping[node->aggregate.group_keys[i]];
    for (uint32_t i = 0; i < node->aggregate.call_count; i++) {
        aggregate->aggregate.calls[i] = node->aggregate.calls[i];
        if (node->aggregate.calls[i].kind != PLAN_AGGREGATE_COUNT_STAR)
            aggregate->aggregate.calls[i].argument =
                (uint32_t)input.mapping[node->aggregate.calls[i].argument];
    }
    result->node = aggregate;
    result->mapping = identity_mapping(arena, node->field_count);
    return result->mapping ? JOINERY_OK : JOINERY_ERROR_NO_MEMORY;
}

static int prune_watermark(PlannerContext *context, PlanNode *node, FieldSet used, Pruned *result)
{
    Arena *arena = context->arena;
    /* the assigner needs its rowtime and watermark fields; what only it needs is
       projected away right above it (project_used) */
    FieldSet needed = set_new(arena, node->field_count);
    if (!needed.words)
        return JOINERY_ERROR_NO_MEMORY;
    memcpy(needed.words, used.words, (node->field_count / 64 + 1) * sizeof(uint64_t));
    set_add(&needed, node->watermark.rowtime_field);
    set_add_expr(&needed, node->watermark.watermark);
    Pruned input;
    int status = prune(context, node->inputs[0], needed, &input);
    if (status != JOINERY_OK)
        return status;
    PlanNode *assigner = plan_node_copy(context->arena, node);
    if (!assigner)
        return JOINERY_ERROR_NO_MEMORY;
    assigner->inputs[0] = input.node;
    assigner->field_count = input.node->field_count;
    assigner->fields = arena_calloc(arena, assigner->field_count + 1, sizeof(PlanField));
    if (!assigner->fields)
        return JOINERY_ERROR_NO_MEMORY;
    compact_fields(node->fields, node->field_count, input.mapping, assigner->fields);
    assigner->watermark.rowtime_field = (uint32_t)input.mapping[node->watermark.rowtime_field];
    assigner->watermark.watermark =
        expr_remap_inputs(arena, node->watermark.watermark, input.mapping);
    if (!assigner->watermark.watermark)
        return JOINERY_ERROR_NO_MEMORY;
    return project_used(context, assigner, node->field_count, &used, input.mapping, result);
}

static int prune(PlannerContext *context, PlanNode *node, FieldSet used, Pruned *result)
{
    switch (node->kind) {
    case PLAN_LOGICAL_TABLE_SCAN:
        return prune_scan(context, node, used, result);
    case PLAN_LOGICAL_PROJECT:
        return prune_project(context, node, used, result);
    case PLAN_LOGICAL_FILTER:
        return prune_filter(context, node, used, result);
    case PLAN_LOGICAL_JOIN:
        return prune_join(context, node, used, result);
    case PLAN_LOGICAL_AGGREGATE:
        return prune_aggregate(context, node, result);
    case PLAN_LOGICAL_WATERMARK_ASSIGNER:
        return prune_watermark(context, node, used, result);
    default:
        return prune_keep_all(context, node, result);
    }
}

int rule_prune_fields(PlannerContext *context, PlanNode *node, PlanNode **result)
{
    FieldSet all = set_new(context->arena, node->field_count);
    if (!all.words)
        return diag_error(context->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    for (uint32_t i = 0; i < node->field_count; i++)
        set_add(&all, i);
    Pruned pruned;
    int status = prune(context, node, all, &pruned);
    if (status != JOINERY_OK)
        return diag_error(context->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    *result = pruned.node;
    return JOINERY_OK;
}
