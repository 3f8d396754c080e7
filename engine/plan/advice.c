/*
 * advice.c - EXPLAIN PLAN_ADVICE (see advice.h). Each check looks at one
 * node kind; the texts say what happens and what to change.
 */
#define _POSIX_C_SOURCE 200809L
#include "engine/plan/advice.h"

#include <string.h>

#include "engine/base/duration.h"

typedef struct AdviceList {
    Arena *arena;
    PlanAdvice *items;
    uint32_t count;
    uint32_t capacity;
} AdviceList;

static int advice_add(AdviceList *list, const PlanNode *node, PlanAdviceLevel level,
                      const char *text)
{
    if (!text)
        return JOINERY_ERROR_NO_MEMORY;
    if (list->count == list->capacity) {
        uint32_t capacity = list->capacity ? list->capacity * 2 : 8;
        PlanAdvice *items = arena_calloc(list->arena, capacity, sizeof *items);
        if (!items)
            return JOINERY_ERROR_NO_MEMORY;
        if (list->count)
            memcpy(items, list->items, list->count * sizeof *items);
        list->items = items;
        list->capacity = capacity;
    }
    list->items[list->count].node = node;
    list->items[list->count].level = level;
    list->items[list->count].text = text;
    list->count++;
    return JOINERY_OK;
}

static bool node_is_stream(const PlanNode *node)
{
    return !node->bounded;
}

/* A join (binary or fused) of unbounded append-only inputs that keeps state forever. */
static int check_unbounded_state(AdviceList *list, const PlanNode *node)
{
    bool forever = false, all_unbounded = true, append_only = true;
    if (node->kind == PLAN_JOIN) {
        forever = node->state_ttl_millis == 0 || node->state_ttl_right_millis == 0;
    } else {
        for (uint32_t i = 0; i < node->input_count; i++)
            forever = forever || node->multi_join.ttl_millis[i] == 0;
    }
    for (uint32_t i = 0; i < node->input_count; i++) {
        all_unbounded = all_unbounded && node_is_stream(node->inputs[i]);
        append_only = append_only && node->inputs[i]->changelog_mode == CHANGELOG_INSERT;
    }
    if (!forever || !all_unbounded || !append_only)
        return JOINERY_OK;
    return advice_add(list, node, PLAN_ADVICE_WARNING,
                      "The join keeps every row of its unbounded append-only inputs forever, "
                      "so its state grows without bound. Set 'table.exec.state.ttl' (or a "
                      "STATE_TTL hint per input) to the longest delay between matching rows, "
                      "or write an interval join (a time-bounded condition on the rowtime "
                      "attributes) so that state is cleaned by watermarks.");
}

/*
 * The rowtime attribute an input carries: the first among its fields, else (pruned above
 * it) the one its watermark is generated on, below a chain of one-input nodes; NULL when
 * none (at most 64 nodes down).
 */
static const char *rowtime_field(const PlanNode *node)
{
    for (int depth = 0; node && depth < 64; depth++) {
        for (uint32_t i = 0; i < node->field_count; i++)
            if (node->fields[i].type.time_attribute == TIME_ATTRIBUTE_ROWTIME)
                return node->fields[i].name;
        if (node->kind == PLAN_WATERMARK_ASSIGNER)
            return node->fields[node->watermark.rowtime_field].name;
        node = node->input_count == 1 ? node->inputs[0] : NULL;
    }
    return NULL;
}

/*
 * A regular join between two append-only streams that both carry a rowtime attribute
 * (seed 003's rule of thumb: stream + stream with a time relation -> an interval or a
 * window join, whose state the watermark frees).
 */
static int check_time_bounded(AdviceList *list, const PlanNode *node)
{
    if (node->kind != PLAN_JOIN || node->input_count != 2)
        return JOINERY_OK;
    const char *times[2];
    for (uint32_t i = 0; i < 2; i++) {
        const PlanNode *input = node->inputs[i];
        if (!node_is_stream(input) || input->changelog_mode != CHANGELOG_INSERT)
            return JOINERY_OK;
        times[i] = rowtime_field(input);
        if (!times[i])
            return JOINERY_OK;
    }
    return advice_add(
        list, node, PLAN_ADVICE_ADVICE,
        arena_printf(list->arena,
                     "Both inputs of this join are append-only streams with rowtime attributes "
                     "(%s, %s). If their rows match only within a time range of each other, "
                     "bound it in the join condition (e.g. AND r.%s BETWEEN l.%s - INTERVAL "
                     "'10' MINUTE AND l.%s + INTERVAL '5' MINUTE) to run an interval join, or "
                     "join windows of both (a window join): their state is freed as the "
                     "watermark passes, where this join keeps its rows.",
                     times[0], times[1], times[1], times[0], times[0]));
}

static int check_full_join(AdviceList *list, const PlanNode *node)
{
    bool full = false;
    if (node->kind == PLAN_JOIN)
        full = node->join.join_type == JOIN_TYPE_FULL;
    else
        for (uint32_t i = 1; i < node->input_count; i++)
            full = full || node->multi_join.join_types[i] == JOIN_TYPE_FULL;
    bool unbounded = false;
    for (uint32_t i = 0; i < node->input_count; i++)
        unbounded = unbounded || node_is_stream(node->inputs[i]);
    if (!full || !unbounded)
        return JOINERY_OK;
    return advice_add(list, node, PLAN_ADVICE_WARNING,
                      "FULL OUTER JOIN over unbounded inputs keeps both sides in state and "
                      "retracts NULL-padded rows on both sides whenever a match arrives: "
                      "downstream operators and sinks must accept updates and deletes. Use "
                      "LEFT or INNER joins where the business logic allows.");
}

/* Joins directly over joins that share a key, while fusion is off. */
static int check_fusable(PlannerContext *context, AdviceList *list, const PlanNode *node)
{
    if (node->kind != PLAN_JOIN || context->config->multi_join_enabled)
        return JOINERY_OK;
    const PlanNode *left = node->inputs[0];
    if (left->kind == PLAN_EXCHANGE)
        left = left->inputs[0];
    if (left->kind != PLAN_JOIN || node->join.key_count == 0 || left->join.key_count == 0)
        return JOINERY_OK;
    /* the lower join's left key feeds the upper join's left key: the same key */
    bool shared = false;
    for (uint32_t k = 0; k < node->join.key_count; k++)
        for (uint32_t j = 0; j < left->join.key_count; j++)
            if (node->join.left_keys[k] == left->join.left_keys[j] ||
                node->join.left_keys[k] == left->inputs[0]->field_count + left->join.right_keys[j])
                shared = true;
    if (!shared)
        return advice_add(list, node, PLAN_ADVICE_ADVICE,
                          arena_printf(list->arena,
                                       "This join and the join below it use different keys "
                                       "(%s here): each keeps its own state and the "
                                       "intermediate result is shuffled again. Joins that "
                                       "share a key can be fused into one MultiJoin: order "
                                       "the joins so that those on the same key are adjacent.",
                                       node->fields[node->join.left_keys[0]].name));
    return advice_add(
        list, node, PLAN_ADVICE_ADVICE,
        arena_printf(list->arena,
                     "This join and the join below it share the key %s: SET "
                     "'table.optimizer.multi-join.enabled' = 'true' (or a MULTI_JOIN hint) "
                     "fuses them into one MultiJoin that keeps only its inputs in state, not "
                     "the intermediate join result.",
                     node->fields[node->join.left_keys[0]].name));
}

/* A MultiJoin of two inputs: no third input shares its key, so fusion saved nothing. */
static int check_two_input_multi_join(AdviceList *list, const PlanNode *node)
{
    if (node->kind != PLAN_MULTI_JOIN || node->input_count != 2)
        return JOINERY_OK;
    const PlanNode *first = node->inputs[0];
    return advice_add(
        list, node, PLAN_ADVICE_ADVICE,
        arena_printf(list->arena,
                     "This MultiJoin has two inputs: no other input here joins on its key %s, "
                     "so it keeps the same state as a binary join (both inputs) and fusion "
                     "saves nothing. A MultiJoin saves the intermediate results where three or "
                     "more inputs join on one key: if the query allows, join the inputs that "
                     "share a key next to each other.",
                     first->fields[node->multi_join.key_fields[0][0]].name));
}

/* A filter left above a join: it could not go below it. */
static int check_filter_above_join(AdviceList *list, const PlanNode *node)
{
    if (node->kind != PLAN_CALC || !node->calc.condition)
        return JOINERY_OK;
    const PlanNode *input = node->inputs[0];
    if (input->kind != PLAN_JOIN && input->kind != PLAN_MULTI_JOIN)
        return JOINERY_OK;
    return advice_add(list, node, PLAN_ADVICE_ADVICE,
                      "This filter stays above the join, so the join keeps and matches rows the "
                      "filter drops afterwards. It reads the NULL-padded side of an outer join "
                      "(or both sides): if NULL rows should not pass anyway, an INNER join lets "
                      "it move below; if it tests one input only, put it in that input's "
                      "subquery or ON clause.");
}

/*
 * A temporal join emits a probe row once the watermarks of both inputs have passed its
 * time. An unbounded versioned table's watermark moves only when the table changes, so
 * without an idle timeout the probe rows wait while it is quiet.
 */
static int check_temporal_join_waits(PlannerContext *context, AdviceList *list,
                                     const PlanNode *node)
{
    const PlanNode *right = node->inputs[1];
    if (right->bounded || context->config->source_idle_timeout_millis > 0)
        return JOINERY_OK;
    const PlanNode *source = right;
    for (int depth = 0; source->input_count == 1 && depth < 64; depth++)
        source = source->inputs[0];
    const char *name =
        source->kind == PLAN_TABLE_SOURCE_SCAN ? source->scan.table->name : "the versioned table";
    return advice_add(
        list, node, PLAN_ADVICE_ADVICE,
        arena_printf(context->arena,
                     "The temporal join emits a row only once the watermarks of both inputs "
                     "have passed its time, so that the version it joins can no longer change. "
                     "The watermark of %s moves only when it changes: while it gets no "
                     "updates, rows wait in state and nothing is emitted. Set "
                     "'table.exec.source.idle-timeout' so that a quiet versioned source stops "
                     "holding the watermark back.",
                     name));
}

/* A lookup join's cache (Flink never prints it in the plan): its kind and limits, and
   the stale rows it may answer with. */
static int check_lookup_cache(PlannerContext *context, AdviceList *list, const PlanNode *node)
{
    const PlanLookupOptions *options = node->lookup.options;
    const LookupCacheOptions *cache = &options->cache;
    const char *table = node->lookup.table->name;
    char first[32], second[32];
    const char *text;
    if (cache->kind == LOOKUP_CACHE_NONE) {
        text = arena_printf(context->arena,
                            "The lookup join of %s has no cache: every row asks the store%s. Set "
                            "'lookup.cache' = 'PARTIAL' with 'lookup.partial-cache.max-rows' and "
                            "'lookup.partial-cache.expire-after-write' on the table (or 'cache' = "
                            "'LRU' in the LOOKUP hint) when the table changes slowly.",
                            table, options->async ? "" : ", one request at a time");
    } else if (cache->kind == LOOKUP_CACHE_PARTIAL) {
        text = arena_printf(
            context->arena,
            "The lookup join of %s caches the rows it looked up (PARTIAL: max-rows %lld, "
            "expire-after-write %s, expire-after-access %s, cache-missing-key %s): a row "
            "changed in the store is seen only once its key has left the cache.",
            table, (long long)cache->max_rows,
            cache->expire_after_write_millis
                ? duration_format(cache->expire_after_write_millis, first, sizeof first)
                : "never",
            cache->expire_after_access_millis
                ? duration_format(cache->expire_after_access_millis, second, sizeof second)
                : "never",
            cache->cache_missing_key ? "true" : "false");
    } else {
        text =
            arena_printf(context->arena,
                         "The lookup join of %s holds the whole table in a FULL cache, "
                         "loaded at start%s%s; a row changed in the store is seen after the "
                         "next load.",
                         table, cache->reload_interval_millis ? " and every " : "",
                         cache->reload_interval_millis
                             ? duration_format(cache->reload_interval_millis, first, sizeof first)
                             : "");
    }
    return advice_add(list, node, PLAN_ADVICE_ADVICE, text);
}

static int collect(PlannerContext *context, AdviceList *list, const PlanNode *node)
{
    int status = JOINERY_OK;
    if (node->kind == PLAN_JOIN || node->kind == PLAN_MULTI_JOIN) {
        status = check_unbounded_state(list, node);
        if (status == JOINERY_OK)
            status = check_time_bounded(list, node);
        if (status == JOINERY_OK)
            status = check_full_join(list, node);
        if (status == JOINERY_OK)
            status = check_fusable(context, list, node);
        if (status == JOINERY_OK)
            status = check_two_input_multi_join(list, node);
    }
    if (node->kind == PLAN_TEMPORAL_JOIN)
        status = check_temporal_join_waits(context, list, node);
    if (node->kind == PLAN_LOOKUP_JOIN)
        status = check_lookup_cache(context, list, node);
    if (status == JOINERY_OK)
        status = check_filter_above_join(list, node);
    for (uint32_t i = 0; i < node->input_count && status == JOINERY_OK; i++)
        status = collect(context, list, node->inputs[i]);
    return status;
}

int plan_collect_advice(PlannerContext *context, const PlanNode *logical, const PlanNode *physical,
                        PlanAdvice **advice, uint32_t *count)
{
    (void)logical;
    AdviceList list = {context->arena, NULL, 0, 0};
    int status = collect(context, &list, physical);
    if (status != JOINERY_OK)
        return diag_error(context->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    *advice = list.items;
    *count = list.count;
    return JOINERY_OK;
}
