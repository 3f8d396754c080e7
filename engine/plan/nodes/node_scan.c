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

const PlanKindInfo plan_kind_logical_table_scan = {
    .kind = PLAN_LOGICAL_TABLE_SCAN,
    .name = "LogicalTableScan",
    .explain = explain_scan,
    .convert = convert_scan,
    .estimate = estimate_scan,
    .trace_field = trace_scan,
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
};
