/*
 * node_scan.c - LogicalTableScan and TableSourceScan: a catalog table read
 * by a connector's source, with the filter, projection and watermark pushed
 * into it.
 */
#include <string.h>

#include "engine/connector/connector.h"
#include "engine/plan/cost.h"
#include "engine/plan/nodes/nodes.h"

static void explain_scan(ExplainContext *context, const PlanNode *node)
{
    StrBuf *out = context->out;
    strbuf_printf(out, "table=[[default_catalog, default_database, %s", node->scan.table->name);
    if (!context->logical) {
        if (node->scan.filter) {
            /* the filter reads the scan's read columns */
            const CatalogTable *table = node->scan.table;
            uint32_t read = node->scan.read_count ? node->scan.read_count : node->scan.column_count;
            const char **names = arena_calloc(context->arena, read + 1, sizeof(char *));
            for (uint32_t i = 0; names && i < read; i++)
                names[i] = table->columns[node->scan.columns[i]].name;
            strbuf_append_cstr(out, ", filter=[");
            explain_expr(context, node->scan.filter, names);
            strbuf_append_cstr(out, "]");
        }
        if (node->scan.projected) {
            strbuf_append_cstr(out, ", project=[");
            explain_field_list(context, node);
            strbuf_append_cstr(out, "]");
        }
        if (node->scan.watermark) {
            /* Flink's WatermarkPushDownSpec digest */
            strbuf_append_cstr(out, ", watermark=[");
            explain_expr(context, node->scan.watermark, explain_input_names(context, node));
            strbuf_append_cstr(out, "]");
            if (node->scan.idle_timeout_millis > 0)
                strbuf_printf(out, ", idletimeout=[%lld]",
                              (long long)node->scan.idle_timeout_millis);
            strbuf_append_cstr(out, ", watermarkEmitStrategy=[on-periodic]");
        }
    }
    strbuf_append_cstr(out, "]]");
    if (!context->logical) {
        strbuf_append_cstr(out, ", fields=[");
        explain_field_list(context, node);
        strbuf_append_cstr(out, "]");
    }
}

static double estimate_scan(const PlanNode *node)
{
    return cost_table_rows(node->scan.table) * cost_predicate_selectivity(node->scan.filter, node);
}

/* A scan reads its fields from the table; its filter also reads the columns only it needs
   (read_count). */
static const PlanNode *trace_scan(const PlanNode *node, uint32_t *field)
{
    uint32_t readable =
        node->scan.read_count > node->field_count ? node->scan.read_count : node->field_count;
    return *field < readable ? node : NULL;
}

static int derive_scan(PlannerContext *context, PlanNode *node)
{
    const CatalogTable *table = node->scan.table;
    const Connector *connector = connector_find(catalog_table_option(table, "connector"));
    SourceChangelog produced = connector && connector->source_changelog
                                   ? connector->source_changelog(table)
                                   : SOURCE_CHANGELOG_INSERT_ONLY;
    node->changelog_mode = produced == SOURCE_CHANGELOG_INSERT_ONLY ? CHANGELOG_INSERT
                           : produced == SOURCE_CHANGELOG_UPSERT
                               ? CHANGELOG_UPDATE_AFTER | CHANGELOG_DELETE
                               : CHANGELOG_INSERT | CHANGELOG_UPDATE_BEFORE |
                                     CHANGELOG_UPDATE_AFTER | CHANGELOG_DELETE;
    node->bounded = connector && connector->is_bounded && connector->is_bounded(table);
    node->row_count = estimate_scan(node);
    if (table->primary_key_count) {
        uint32_t fields[64];
        uint32_t found = 0;
        for (size_t k = 0; k < table->primary_key_count && k < 64; k++) {
            int column = catalog_table_column_index(table, table->primary_key[k]);
            for (uint32_t f = 0; f < node->scan.column_count; f++)
                if ((int)node->scan.columns[f] == column)
                    fields[found++] = f;
        }
        if (found == table->primary_key_count)
            derive_add_unique_key(context->arena, node, fields, found);
    }
    return JOINERY_OK;
}

static int convert_scan(PlannerContext *context, PlanNode *node, PlanNode **result)
{
    int status = physical_convert_twin(context, node, PLAN_TABLE_SOURCE_SCAN, result);
    if (status != JOINERY_OK || !plan_table_is_upsert_source(node->scan.table))
        return status;
    /* an upsert source: Exchange(hash[pk]) -> ChangelogNormalize(key=[pk]) */
    const CatalogTable *table = node->scan.table;
    uint32_t *keys = arena_calloc(context->arena, table->primary_key_count + 1, sizeof(uint32_t));
    if (!keys)
        return JOINERY_ERROR_NO_MEMORY;
    for (size_t k = 0; k < table->primary_key_count; k++) {
        int field = plan_scan_field_of_column(
            *result, catalog_table_column_index(table, table->primary_key[k]));
        if (field < 0)
            return diag_error(context->diag, JOINERY_ERROR_VALIDATE,
                              "The primary key of upsert table `%s` is not read", table->name);
        keys[k] = (uint32_t)field;
    }
    PlanNode *exchange =
        plan_make_exchange(context, *result, keys, (uint32_t)table->primary_key_count);
    PlanNode *normalize =
        exchange ? physical_new_node(context, PLAN_CHANGELOG_NORMALIZE, 1, exchange->field_count)
                 : NULL;
    if (!normalize)
        return JOINERY_ERROR_NO_MEMORY;
    normalize->inputs[0] = exchange;
    memcpy(normalize->fields, exchange->fields, exchange->field_count * sizeof(PlanField));
    normalize->exchange.keys = keys;
    normalize->exchange.key_count = (uint32_t)table->primary_key_count;
    *result = normalize;
    return JOINERY_OK;
}

static bool scan_calls_current_watermark(const PlanNode *node)
{
    return expr_calls(node->scan.filter, FUNCTION_CURRENT_WATERMARK) ||
           expr_calls(node->scan.watermark, FUNCTION_CURRENT_WATERMARK);
}

/*
 * An upsert source is normalized (ChangelogNormalize) above its scan: only conditions on
 * the primary key may filter before that, or an update that leaves the filter's range
 * would never retract the row it replaces.
 */
static bool scan_may_filter(const PlanNode *scan, const Expr *conjunct)
{
    const CatalogTable *table = scan->scan.table;
    if (!plan_table_is_upsert_source(table))
        return true;
    uint64_t used[16] = {0};
    if (scan->field_count > 64 * 16)
        return false;
    expr_collect_inputs(conjunct, used);
    for (uint32_t f = 0; f < scan->field_count; f++) {
        if (!((used[f / 64] >> (f % 64)) & 1))
            continue;
        bool key = false;
        for (size_t k = 0; k < table->primary_key_count; k++)
            if ((int)scan->scan.columns[f] ==
                catalog_table_column_index(table, table->primary_key[k]))
                key = true;
        if (!key)
            return false;
    }
    return true;
}

static int push_scan(PlannerContext *context, PlanNode *node, RuleConjuncts *conjuncts,
                     PlanNode **result)
{
    Arena *arena = context->arena;
    RuleConjuncts into = {0}, above = {0};
    for (uint32_t i = 0; i < conjuncts->count; i++) {
        Expr *conjunct = conjuncts->items[i];
        bool push = expr_is_deterministic(conjunct) && scan_may_filter(node, conjunct);
        if (rule_conjuncts_add(arena, push ? &into : &above, conjunct) != JOINERY_OK)
            return JOINERY_ERROR_NO_MEMORY;
    }
    PlanNode *scan = node;
    if (into.count) {
        scan = plan_node_copy(context->arena, node);
        if (!scan)
            return JOINERY_ERROR_NO_MEMORY;
        if (node->scan.filter &&
            rule_split_conjuncts(arena, node->scan.filter, &into) != JOINERY_OK)
            return JOINERY_ERROR_NO_MEMORY;
        scan->scan.filter = expr_make_and(arena, into.items, into.count);
    }
    *result = rule_filter_above(context, scan, &above);
    return *result ? JOINERY_OK : JOINERY_ERROR_NO_MEMORY;
}

static int prune_scan_fields(PlannerContext *context, PlanNode *node, uint64_t *used,
                             RulePruned *result)
{
    Arena *arena = context->arena;
    /* the filter is applied inside the scan: its columns are read, not output */
    uint64_t *read = rule_fields_copy(arena, used, node->field_count);
    if (!read)
        return JOINERY_ERROR_NO_MEMORY;
    rule_fields_add_expr(read, node->scan.filter);
    uint32_t output = 0, read_count = 0;
    for (uint32_t i = 0; i < node->field_count; i++) {
        output += rule_fields_has(used, i);
        read_count += rule_fields_has(read, i);
    }
    if (read_count == 0 && node->field_count > 0) {
        rule_fields_add(used, 0); /* a scan produces at least one column */
        rule_fields_add(read, 0);
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
        if (rule_fields_has(used, i)) {
            mapping[i] = read_mapping[i] = (int32_t)next;
            scan->fields[next] = node->fields[i];
            scan->scan.columns[next] = node->scan.columns[i];
            next++;
        } else if (rule_fields_has(read, i)) {
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

/* An upsert scan keeps its primary key (ChangelogNormalize needs it) and drops it above. */
static int prune_scan(PlannerContext *context, PlanNode *node, uint64_t *used, RulePruned *result)
{
    if (!plan_table_is_upsert_source(node->scan.table))
        return prune_scan_fields(context, node, used, result);
    const CatalogTable *table = node->scan.table;
    uint64_t *needed = rule_fields_copy(context->arena, used, node->field_count);
    if (!needed)
        return JOINERY_ERROR_NO_MEMORY;
    for (size_t k = 0; k < table->primary_key_count; k++) {
        int field = plan_scan_field_of_column(
            node, catalog_table_column_index(table, table->primary_key[k]));
        if (field >= 0)
            rule_fields_add(needed, (uint32_t)field);
    }
    RulePruned scan;
    int status = prune_scan_fields(context, node, needed, &scan);
    if (status != JOINERY_OK)
        return status;
    return rule_project_used(context, scan.node, node->field_count, used, scan.mapping, result);
}

/* A kafka scan with the watermark pushed into it generates it per partition. */
static bool scan_generates_watermarks(const PlanNode *node)
{
    return node->scan.watermark != NULL;
}

const PlanKindInfo plan_kind_logical_table_scan = {
    .kind = PLAN_LOGICAL_TABLE_SCAN,
    .name = "LogicalTableScan",
    .explain = explain_scan,
    .convert = convert_scan,
    .estimate = estimate_scan,
    .trace_field = trace_scan,
    .push_filters = push_scan,
    .prune_fields = prune_scan,
};

const PlanKindInfo plan_kind_table_source_scan = {
    .kind = PLAN_TABLE_SOURCE_SCAN,
    .name = "TableSourceScan",
    .physical = true,
    .explain = explain_scan,
    .derive = derive_scan,
    .calls_current_watermark = scan_calls_current_watermark,
    .estimate = estimate_scan,
    .trace_field = trace_scan,
    .generates_watermarks = scan_generates_watermarks,
};
