/*
 * reuse_sub_plans.c - Flink's sub-plan reuse for a statement set
 * (table.optimizer.reuse-sub-plan-enabled, table.optimizer.reuse-source-enabled):
 * the physical plans of its INSERTs are made one DAG in which equal
 * sub-plans are one node, so a source read by several INSERTs is read once
 * and a sub-plan they share runs once for all of them.
 *
 * Two nodes are equal when their digests are: the kind and attributes as
 * the physical plan prints them, the field names and types, and the
 * canonical nodes of their inputs, in order (Flink's RelNode digest). The
 * walk is bottom-up, each input replaced by its canonical node before the
 * node's digest is taken, so equal trees collapse from the leaves up.
 * Sinks are never merged (each INSERT keeps its own); with source reuse off,
 * scans and every node above one are never merged either (each INSERT then
 * reads its sources itself). Only node->inputs are rewritten, towards nodes
 * equal to the old ones, so every node's derived properties stay true.
 *
 * Before that, with source reuse on, scans of one table that differ only in
 * their projection (Flink's ScanReuser) become one scan reading the union
 * of their columns, in table order: a scan whose columns
 * are the union reads it as it is, any other becomes, in place, a
 * Calc(select=[its columns]) over it. Scans with a pushed filter or
 * watermark, or of a table that sends updates, keep their own.
 * The walks are as deep as the plans, which the parser's bound keeps small.
 */
#include <string.h>
#include <xxhash.h>

#include "engine/plan/expr.h"
#include "engine/plan/nodes/nodes.h"
#include "engine/plan/physical.h"
#include "engine/plan/rules/rules.h"

typedef struct ReuseSlot {
    const char *digest; /* NULL: empty */
    size_t length;
    uint64_t hash;
    PlanNode *node;
} ReuseSlot;

/* The canonical nodes by digest, and the nodes already visited (by address). */
typedef struct ReuseTable {
    Arena *arena;
    bool reuse_sources;
    ReuseSlot *slots;
    size_t mask;
    size_t used;
    /* visited nodes: address -> canonical (a node reached twice is done once) */
    PlanNode **visited_from;
    PlanNode **visited_to;
    bool *visited_reusable;
    size_t visited_mask;
    size_t visited_used;
} ReuseTable;

static bool reuse_grow(ReuseTable *table)
{
    size_t capacity = (table->mask + 1) * 2;
    ReuseSlot *slots = arena_calloc(table->arena, capacity, sizeof *slots);
    if (!slots)
        return false;
    for (size_t i = 0; i <= table->mask; i++) {
        if (!table->slots[i].digest)
            continue;
        size_t at = (size_t)table->slots[i].hash & (capacity - 1);
        while (slots[at].digest)
            at = (at + 1) & (capacity - 1);
        slots[at] = table->slots[i];
    }
    table->slots = slots;
    table->mask = capacity - 1;
    return true;
}

static bool reuse_visited_grow(ReuseTable *table)
{
    size_t capacity = (table->visited_mask + 1) * 2;
    PlanNode **from = arena_calloc(table->arena, capacity, sizeof *from);
    PlanNode **to = arena_calloc(table->arena, capacity, sizeof *to);
    bool *reusable = arena_calloc(table->arena, capacity, sizeof *reusable);
    if (!from || !to || !reusable)
        return false;
    for (size_t i = 0; i <= table->visited_mask; i++) {
        if (!table->visited_from[i])
            continue;
        size_t at =
            (((uintptr_t)table->visited_from[i] >> 4) * 0x9E3779B97F4A7C15ull) & (capacity - 1);
        while (from[at])
            at = (at + 1) & (capacity - 1);
        from[at] = table->visited_from[i];
        to[at] = table->visited_to[i];
        reusable[at] = table->visited_reusable[i];
    }
    table->visited_from = from;
    table->visited_to = to;
    table->visited_reusable = reusable;
    table->visited_mask = capacity - 1;
    return true;
}

/* The slot of `node` among the visited (empty when it was not visited). */
static size_t reuse_visited_slot(const ReuseTable *table, const PlanNode *node)
{
    size_t at = (((uintptr_t)node >> 4) * 0x9E3779B97F4A7C15ull) & table->visited_mask;
    while (table->visited_from[at] && table->visited_from[at] != node)
        at = (at + 1) & table->visited_mask;
    return at;
}

/* The node's digest (above), its inputs already canonical; NULL on no memory. */
static const char *reuse_digest(ReuseTable *table, const PlanNode *node, size_t *length)
{
    StrBuf text = STRBUF_INIT;
    const PlanKindInfo *info = plan_kind_info(node->kind);
    strbuf_printf(&text, "%s(", info->name);
    ExplainContext explain = {table->arena, &text, EXPR_STYLE_PREFIX, false, 0, NULL, 0};
    info->explain(&explain, node);
    strbuf_printf(&text, ")[%u]", node->field_count);
    for (uint32_t i = 0; i < node->field_count; i++) {
        char type[96];
        strbuf_printf(&text, " %s:%s", node->fields[i].name ? node->fields[i].name : "",
                      type_format(node->fields[i].type, type, sizeof type));
    }
    /* the inputs by identity: they are canonical, so equal inputs are the same node */
    for (uint32_t i = 0; i < node->input_count; i++)
        strbuf_printf(&text, " <%p>", (const void *)node->inputs[i]);
    char *digest = text.data ? arena_alloc(table->arena, text.length + 1) : NULL;
    if (digest) {
        memcpy(digest, text.data, text.length + 1);
        *length = text.length;
    }
    strbuf_free(&text);
    return digest;
}

static int reuse_no_memory(PlannerContext *context)
{
    return diag_error(context->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
}

/* The canonical node equal to `node` (its inputs rewritten); *reusable: it may be merged. */
static int reuse_visit(PlannerContext *context, ReuseTable *table, PlanNode *node,
                       PlanNode **canonical, bool *reusable)
{
    size_t seen = reuse_visited_slot(table, node);
    if (table->visited_from[seen]) {
        *canonical = table->visited_to[seen];
        *reusable = table->visited_reusable[seen];
        return JOINERY_OK;
    }
    bool inputs_reusable = true;
    for (uint32_t i = 0; i < node->input_count; i++) {
        PlanNode *input = NULL;
        bool input_reusable = false;
        int status = reuse_visit(context, table, node->inputs[i], &input, &input_reusable);
        if (status != JOINERY_OK)
            return status;
        node->inputs[i] = input;
        inputs_reusable = inputs_reusable && input_reusable;
    }
    bool mergeable = inputs_reusable && node->kind != PLAN_SINK &&
                     node->kind != PLAN_STATEMENT_SET &&
                     (table->reuse_sources || node->kind != PLAN_TABLE_SOURCE_SCAN);
    *canonical = node;
    if (mergeable) {
        size_t length = 0;
        const char *digest = reuse_digest(table, node, &length);
        if (!digest)
            return reuse_no_memory(context);
        uint64_t hash = XXH3_64bits(digest, length);
        size_t at = (size_t)hash & table->mask;
        while (table->slots[at].digest &&
               !(table->slots[at].hash == hash && table->slots[at].length == length &&
                 memcmp(table->slots[at].digest, digest, length) == 0))
            at = (at + 1) & table->mask;
        if (table->slots[at].digest) {
            *canonical = table->slots[at].node;
        } else {
            table->slots[at] = (ReuseSlot){digest, length, hash, node};
            if (++table->used * 2 > table->mask + 1 && !reuse_grow(table))
                return reuse_no_memory(context);
        }
    }
    *reusable = mergeable;
    seen = reuse_visited_slot(table, node);
    table->visited_from[seen] = node;
    table->visited_to[seen] = *canonical;
    table->visited_reusable[seen] = mergeable;
    if (++table->visited_used * 2 > table->visited_mask + 1 && !reuse_visited_grow(table))
        return reuse_no_memory(context);
    return JOINERY_OK;
}

/* ---------------------------------------------------- scans differing in their projection */

typedef struct ScanList {
    PlanNode **items;
    uint32_t count;
    uint32_t capacity;
} ScanList;

static bool scan_is_mergeable(const PlanNode *node)
{
    return node->kind == PLAN_TABLE_SOURCE_SCAN && !node->scan.filter && !node->scan.watermark &&
           (node->scan.read_count == 0 || node->scan.read_count == node->scan.column_count) &&
           node->changelog_mode == CHANGELOG_INSERT;
}

/* The mergeable scans below `node`, each once, in the order a walk from the sinks meets
   them; `seen` is the walk's visited table. */
static int scan_collect(PlannerContext *context, ReuseTable *seen, PlanNode *node, ScanList *list)
{
    size_t at = reuse_visited_slot(seen, node);
    if (seen->visited_from[at])
        return JOINERY_OK;
    seen->visited_from[at] = node;
    seen->visited_to[at] = node;
    if (++seen->visited_used * 2 > seen->visited_mask + 1 && !reuse_visited_grow(seen))
        return reuse_no_memory(context);
    for (uint32_t i = 0; i < node->input_count; i++) {
        int status = scan_collect(context, seen, node->inputs[i], list);
        if (status != JOINERY_OK)
            return status;
    }
    if (!scan_is_mergeable(node))
        return JOINERY_OK;
    if (list->count == list->capacity) {
        uint32_t capacity = list->capacity ? list->capacity * 2 : 16;
        PlanNode **items = arena_calloc(context->arena, capacity, sizeof *items);
        if (!items)
            return reuse_no_memory(context);
        if (list->count)
            memcpy(items, list->items, list->count * sizeof *items);
        list->items = items;
        list->capacity = capacity;
    }
    list->items[list->count++] = node;
    return JOINERY_OK;
}

static bool scan_same_columns(const PlanNode *a, const PlanNode *b)
{
    return a->scan.column_count == b->scan.column_count &&
           memcmp(a->scan.columns, b->scan.columns, a->scan.column_count * sizeof(uint32_t)) == 0;
}

/* The position of table column `column` among the merged scan's columns. */
static uint32_t scan_position(const PlanNode *merged, uint32_t column)
{
    for (uint32_t i = 0; i < merged->scan.column_count; i++)
        if (merged->scan.columns[i] == column)
            return i;
    return 0; /* unreachable: the merged scan reads every column of the group */
}

/* Merges the scans of list->items[first] 's table (those at or after `first` not merged yet:
   done[i] false) that differ in their projection. */
static int scan_merge_group(PlannerContext *context, ScanList *list, bool *done, uint32_t first)
{
    PlanNode *lead = list->items[first];
    /* kept: the scans of the group become Calcs below, lead first */
    const CatalogTable *table = lead->scan.table;
    uint32_t members = 0;
    bool differ = false;
    uint32_t total = 0;
    for (uint32_t i = first; i < list->count; i++)
        if (!done[i] && list->items[i]->scan.table == table) {
            members++;
            differ = differ || !scan_same_columns(lead, list->items[i]);
            total += list->items[i]->scan.column_count;
        }
    if (members < 2 || !differ) {
        for (uint32_t i = first; i < list->count; i++)
            if (!done[i] && list->items[i]->scan.table == table)
                done[i] = true;
        return JOINERY_OK;
    }
    /* the union of the columns in table order (Flink's sorted set of projected fields), with
       their fields */
    uint32_t *columns = arena_calloc(context->arena, total + 1, sizeof *columns);
    PlanField *fields = arena_calloc(context->arena, total + 1, sizeof *fields);
    if (!columns || !fields)
        return reuse_no_memory(context);
    uint32_t union_count = 0;
    for (uint32_t i = first; i < list->count; i++) {
        const PlanNode *scan = list->items[i];
        if (done[i] || scan->scan.table != table)
            continue;
        for (uint32_t c = 0; c < scan->scan.column_count; c++) {
            uint32_t column = scan->scan.columns[c];
            uint32_t at = 0;
            while (at < union_count && columns[at] < column)
                at++;
            if (at < union_count && columns[at] == column)
                continue;
            memmove(columns + at + 1, columns + at, (union_count - at) * sizeof *columns);
            memmove(fields + at + 1, fields + at, (union_count - at) * sizeof *fields);
            columns[at] = column;
            fields[at] = scan->fields[c];
            union_count++;
        }
    }
    /* a scan that reads the union as it is stays, the merged scan; else a new one */
    PlanNode *merged = NULL;
    for (uint32_t i = first; i < list->count && !merged; i++)
        if (!done[i] && list->items[i]->scan.table == table &&
            list->items[i]->scan.column_count == union_count &&
            memcmp(list->items[i]->scan.columns, columns, union_count * sizeof *columns) == 0)
            merged = list->items[i];
    if (merged) {
        for (uint32_t i = first; i < list->count; i++)
            if (list->items[i] == merged)
                done[i] = true;
    } else {
        merged = plan_node_copy(context->arena, lead);
        if (!merged)
            return reuse_no_memory(context);
        merged->id = ++context->next_node_id;
        merged->scan.columns = columns;
        merged->scan.column_count = union_count;
        merged->scan.read_count = 0;
        merged->fields = fields;
        merged->field_count = union_count;
        merged->unique_key_count = 0;
        /* Flink pushes the union as a projection (project=[...]), all columns or not */
        merged->scan.projected = true;
    }
    for (uint32_t i = first; i < list->count; i++) {
        PlanNode *scan = list->items[i];
        if (done[i] || scan->scan.table != table)
            continue;
        done[i] = true;
        /* this scan becomes a Calc over the merged one, its fields as they were */
        uint32_t count = scan->scan.column_count;
        const uint32_t *own = scan->scan.columns;
        Expr **projects = arena_calloc(context->arena, count + 1, sizeof *projects);
        PlanNode **inputs = arena_calloc(context->arena, 1, sizeof *inputs);
        if (!projects || !inputs)
            return reuse_no_memory(context);
        for (uint32_t c = 0; c < count; c++) {
            projects[c] = expr_make_input_ref(context->arena, scan_position(merged, own[c]),
                                              scan->fields[c].type);
            if (!projects[c])
                return reuse_no_memory(context);
        }
        inputs[0] = merged;
        scan->kind = PLAN_CALC;
        memset(&scan->calc, 0, sizeof scan->calc);
        scan->calc.projects = projects;
        scan->calc.project_count = count;
        scan->inputs = inputs;
        scan->input_count = 1;
        int status = plan_derive_properties(context, scan);
        if (status != JOINERY_OK)
            return status;
    }
    return JOINERY_OK;
}

/* Flink's ScanReuser (top of this file). */
static int scan_merge_projections(PlannerContext *context, PlanNode *const *sinks, uint32_t count)
{
    ReuseTable seen = {.arena = context->arena};
    seen.visited_mask = 63;
    seen.visited_from = arena_calloc(context->arena, seen.visited_mask + 1, sizeof(PlanNode *));
    seen.visited_to = arena_calloc(context->arena, seen.visited_mask + 1, sizeof(PlanNode *));
    seen.visited_reusable = arena_calloc(context->arena, seen.visited_mask + 1, sizeof(bool));
    if (!seen.visited_from || !seen.visited_to || !seen.visited_reusable)
        return reuse_no_memory(context);
    ScanList list = {0};
    for (uint32_t i = 0; i < count; i++) {
        int status = scan_collect(context, &seen, sinks[i], &list);
        if (status != JOINERY_OK)
            return status;
    }
    bool *done = arena_calloc(context->arena, list.count + 1, sizeof *done);
    if (!done)
        return reuse_no_memory(context);
    for (uint32_t i = 0; i < list.count; i++) {
        if (done[i])
            continue;
        int status = scan_merge_group(context, &list, done, i);
        if (status != JOINERY_OK)
            return status;
    }
    return JOINERY_OK;
}

int rule_reuse_sub_plans(PlannerContext *context, PlanNode *const *sinks, uint32_t count,
                         bool reuse_sources)
{
    if (reuse_sources) {
        int status = scan_merge_projections(context, sinks, count);
        if (status != JOINERY_OK)
            return status;
    }
    ReuseTable table = {.arena = context->arena, .reuse_sources = reuse_sources};
    table.mask = 63;
    table.visited_mask = 63;
    table.slots = arena_calloc(context->arena, table.mask + 1, sizeof *table.slots);
    table.visited_from = arena_calloc(context->arena, table.visited_mask + 1, sizeof(PlanNode *));
    table.visited_to = arena_calloc(context->arena, table.visited_mask + 1, sizeof(PlanNode *));
    table.visited_reusable = arena_calloc(context->arena, table.visited_mask + 1, sizeof(bool));
    if (!table.slots || !table.visited_from || !table.visited_to || !table.visited_reusable)
        return reuse_no_memory(context);
    for (uint32_t i = 0; i < count; i++) {
        PlanNode *canonical = NULL;
        bool reusable = false;
        int status = reuse_visit(context, &table, sinks[i], &canonical, &reusable);
        if (status != JOINERY_OK)
            return status;
    }
    return JOINERY_OK;
}
