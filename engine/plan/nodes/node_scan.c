/*
 * node_scan.c - LogicalTableScan and TableSourceScan: a catalog table read
 * by a connector's source, with the filter, projection and watermark pushed
 * into it.
 */
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
    node->row_count = cost_table_rows(table) * cost_predicate_selectivity(node->scan.filter, node);
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

const PlanKindInfo plan_kind_logical_table_scan = {
    .kind = PLAN_LOGICAL_TABLE_SCAN,
    .name = "LogicalTableScan",
    .explain = explain_scan,
};

const PlanKindInfo plan_kind_table_source_scan = {
    .kind = PLAN_TABLE_SOURCE_SCAN,
    .name = "TableSourceScan",
    .physical = true,
    .explain = explain_scan,
    .derive = derive_scan,
};
