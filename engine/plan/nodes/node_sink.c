/*
 * node_sink.c - LogicalSink and Sink: INSERT INTO a catalog table through
 * its connector's sink, or the rows of a SELECT collected for the client.
 *
 * A Sink into a table with a primary key materializes its input's changes
 * by that key (Flink's SinkUpsertMaterializer, upsertMaterialize=[true])
 * as table.exec.sink.upsert-materialize says: FORCE always, NONE never,
 * AUTO (Flink's default) when the input has updates and none of its upsert
 * keys (upsert_keys.h) lies within the primary key, so that changes of one
 * key may arrive from several places and out of order.
 */
#include "engine/connector/connector.h"
#include "engine/plan/nodes/nodes.h"
#include "engine/plan/upsert_keys.h"

static void explain_sink(ExplainContext *context, const PlanNode *node)
{
    strbuf_printf(context->out, "table=[default_catalog.default_database.%s], fields=[",
                  node->sink.table ? node->sink.table->name : "collect");
    explain_field_list(context, node);
    strbuf_append_cstr(context->out, "]");
    if (node->sink.upsert_materialize)
        strbuf_append_cstr(context->out, ", upsertMaterialize=[true]");
}

/* The primary key as input fields (sink.key_fields), and whether to materialize by it. */
static int derive_upsert_materialize(PlannerContext *context, PlanNode *node)
{
    const CatalogTable *table = node->sink.table;
    node->sink.upsert_materialize = false;
    node->sink.key_count = 0;
    PlanUpsertMaterialize strategy = context->config->upsert_materialize;
    if (!table || table->primary_key_count == 0 || strategy == PLAN_UPSERT_MATERIALIZE_NONE)
        return JOINERY_OK;
    uint32_t *fields = arena_calloc(context->arena, table->primary_key_count + 1, sizeof *fields);
    if (!fields)
        return diag_error(context->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    uint32_t count = 0;
    for (size_t k = 0; k < table->primary_key_count; k++) {
        int column = catalog_table_column_index(table, table->primary_key[k]);
        for (uint32_t f = 0; f < node->field_count; f++)
            if (node->sink.target_columns && (int)node->sink.target_columns[f] == column) {
                fields[count++] = f;
                break;
            }
    }
    if (count != table->primary_key_count)
        return JOINERY_OK; /* a key column outside the written ones (computed) */
    const PlanNode *input = node->inputs[0];
    bool materialize = strategy == PLAN_UPSERT_MATERIALIZE_FORCE;
    if (strategy == PLAN_UPSERT_MATERIALIZE_AUTO && input->changelog_mode != CHANGELOG_INSERT)
        materialize = !plan_upsert_key_within(context->arena, input, fields, count);
    node->sink.upsert_materialize = materialize;
    node->sink.key_fields = fields;
    node->sink.key_count = count;
    if (materialize)
        node->state_ttl_millis = context->config->state_ttl_millis;
    return JOINERY_OK;
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
    return derive_upsert_materialize(context, node);
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
