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
 * The walk is as deep as the plans, which the parser's bound keeps small.
 */
#include <string.h>
#include <xxhash.h>

#include "engine/plan/nodes/nodes.h"
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

int rule_reuse_sub_plans(PlannerContext *context, PlanNode *const *sinks, uint32_t count,
                         bool reuse_sources)
{
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
