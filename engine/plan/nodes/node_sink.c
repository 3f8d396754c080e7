/*
 * node_sink.c - LogicalSink and Sink: INSERT INTO a catalog table through
 * its connector's sink, or the rows of a SELECT collected for the client.
 */
#include "engine/connector/connector.h"
#include "engine/plan/nodes/nodes.h"

static void explain_sink(ExplainContext *context, const PlanNode *node)
{
    strbuf_printf(context->out, "table=[default_catalog.default_database.%s], fields=[",
                  node->sink.table ? node->sink.table->name : "collect");
    explain_field_list(context, node);
    strbuf_append_cstr(context->out, "]");
}

/* The node below `node` (through nodes that forward changes) that produces its updates. */
static const PlanNode *change_producer(const PlanNode *node)
{
    while (plan_kind_info(node->kind)->forwards_changes && node->input_count == 1)
        node = node->inputs[0];
    return node;
}

/* Rejects a sink that cannot consume the changes its input produces. */
static int derive_sink(PlannerContext *context, PlanNode *node)
{
    const PlanNode *input = node->inputs[0];
    node->changelog_mode = input->changelog_mode;
    node->row_count = input->row_count;
    const CatalogTable *table = node->sink.table;
    const Connector *connector =
        table ? connector_find(catalog_table_option(table, "connector")) : NULL;
    if (connector && connector_sink_changelog(connector, table) == SINK_CHANGELOG_INSERT_ONLY &&
        input->changelog_mode != CHANGELOG_INSERT)
        return diag_error(context->diag, JOINERY_ERROR_VALIDATE,
                          "Table sink 'default_catalog.default_database.%s' doesn't support "
                          "consuming %s changes which is produced by node %s; %s",
                          table->name,
                          (input->changelog_mode & CHANGELOG_DELETE) &&
                                  (input->changelog_mode & CHANGELOG_UPDATE_AFTER)
                              ? "update and delete"
                          : input->changelog_mode & CHANGELOG_DELETE ? "delete"
                                                                     : "update",
                          plan_kind_name(change_producer(input)->kind),
                          connector->sink_update_hint
                              ? connector->sink_update_hint
                              : "write it to a print or blackhole table, or make the query "
                                "append-only");
    if (connector && connector_sink_changelog(connector, table) == SINK_CHANGELOG_UPSERT &&
        table->primary_key_count == 0)
        return diag_error(context->diag, JOINERY_ERROR_VALIDATE,
                          "Table sink 'default_catalog.default_database.%s' is an upsert sink "
                          "and needs a PRIMARY KEY ... NOT ENFORCED",
                          table->name);
    return JOINERY_OK;
}

const PlanKindInfo plan_kind_logical_sink = {
    .kind = PLAN_LOGICAL_SINK,
    .name = "LogicalSink",
    .explain = explain_sink,
    .twin = &plan_kind_sink,
};

const PlanKindInfo plan_kind_sink = {
    .kind = PLAN_SINK,
    .name = "Sink",
    .physical = true,
    .explain = explain_sink,
    .derive = derive_sink,
};
