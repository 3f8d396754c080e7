/* build_lookup_join.c - LookupJoin: one operator per subtask of its input (see build.h). */
#include <stdio.h>

#include "engine/exec/build/build.h"
#include "engine/connector/lookup_cache_options.h"
#include "engine/exec/ops/op_lookup_join.h"

Operator *build_lookup_join(BuildContext *context, const PlanNode *node)
{
    LookupJoinSpec *spec = arena_calloc(context->arena, 1, sizeof *spec);
    if (!spec)
        return NULL;
    const PlanNode *input = node->inputs[0];
    spec->join_type = node->lookup.join_type;
    spec->input_field_count = input->field_count;
    spec->right_field_count = node->lookup.column_count;
    spec->input_types = build_field_types(context->arena, input);
    DataType *all = build_field_types(context->arena, node);
    if (!spec->input_types || !all)
        return NULL;
    spec->right_types = all + input->field_count;
    spec->table = node->lookup.table;
    spec->columns = node->lookup.columns;
    spec->key_count = node->lookup.key_count;
    spec->key_fields = node->lookup.key_fields;
    spec->key_values = node->lookup.key_values;
    spec->where = node->lookup.where;
    spec->condition = node->lookup.condition;
    spec->options = node->lookup.options;
    spec->ordered = node->lookup.ordered;
    spec->table_path =
        arena_printf(context->arena, "default_catalog.default_database.%s", spec->table->name);
    return lookup_join_operator_create(spec, context->diag);
}

static void format_micros(int64_t micros, char *buffer, size_t size)
{
    if (micros < 0)
        snprintf(buffer, size, "-");
    else if (micros < 10000)
        snprintf(buffer, size, "%.2f ms", (double)micros / 1000.0);
    else
        snprintf(buffer, size, "%lld ms", (long long)(micros / 1000));
}

void build_lookup_join_metrics(const PlanNode *node, Operator *const *subtasks, uint32_t count,
                               StrBuf *out)
{
    LookupJoinFigures sum = {0};
    int64_t p50 = -1, p99 = -1;
    double mean_in_flight = 0;
    uint32_t widest = 0; /* the most connections of one subtask */
    for (uint32_t i = 0; i < count; i++) {
        LookupJoinFigures part;
        lookup_join_operator_figures(subtasks[i], &part);
        sum.requests += part.requests;
        sum.cache_hits += part.cache_hits;
        sum.cache_misses += part.cache_misses;
        sum.cache_keys += part.cache_keys;
        sum.cache_rows += part.cache_rows;
        sum.in_flight += part.in_flight;
        sum.connections += part.connections;
        sum.reconnects += part.reconnects;
        if (part.connections > widest)
            widest = part.connections;
        sum.retries += part.retries;
        sum.reloads += part.reloads;
        sum.latency_count += part.latency_count;
        sum.latency_sum_micros += part.latency_sum_micros;
        sum.async |= part.async;
        if (part.window_micros > 0) /* subtasks' means add up, as their in flight counts */
            mean_in_flight += part.in_flight_area / (double)part.window_micros;
        if (part.latency_p50_micros > p50) /* the slowest subtask's */
            p50 = part.latency_p50_micros;
        if (part.latency_p99_micros > p99)
            p99 = part.latency_p99_micros;
    }
    const PlanLookupOptions *options = node->lookup.options;
    uint64_t asked = sum.cache_hits + sum.cache_misses;
    char p50_text[32], p99_text[32];
    format_micros(p50, p50_text, sizeof p50_text);
    format_micros(p99, p99_text, sizeof p99_text);
    strbuf_printf(out, "%-4s   lookups: %llu requests to %s", "", (unsigned long long)sum.requests,
                  node->lookup.table->name);
    if (widest > 1) /* a pool in some subtask: the store connections of all of them */
        strbuf_printf(out, " over %u connections", sum.connections);
    strbuf_printf(out, ", %llu retries", (unsigned long long)sum.retries);
    if (sum.reconnects > 0)
        strbuf_printf(out, ", %llu reconnects", (unsigned long long)sum.reconnects);
    strbuf_printf(out, ", %llu in flight, latency p50 %s, p99 %s",
                  (unsigned long long)sum.in_flight, p50_text, p99_text);
    if (sum.latency_count > 0) {
        strbuf_printf(out, ", mean %.2f ms",
                      (double)sum.latency_sum_micros / (double)sum.latency_count / 1000.0);
        if (sum.async)
            strbuf_printf(out, ", %.1f in flight on average", mean_in_flight);
    }
    strbuf_append_char(out, '\n');
    if (options->cache.kind == LOOKUP_CACHE_NONE)
        return;
    strbuf_printf(out,
                  "%-4s   cache %s: %llu hits, %llu misses, hit rate %.1f%%, %llu keys, "
                  "%llu rows",
                  "", lookup_cache_kind_name(options->cache.kind),
                  (unsigned long long)sum.cache_hits, (unsigned long long)sum.cache_misses,
                  asked ? 100.0 * (double)sum.cache_hits / (double)asked : 0.0,
                  (unsigned long long)sum.cache_keys, (unsigned long long)sum.cache_rows);
    if (options->cache.kind == LOOKUP_CACHE_FULL)
        strbuf_printf(out, ", %llu loads", (unsigned long long)sum.reloads);
    strbuf_append_char(out, '\n');
}
