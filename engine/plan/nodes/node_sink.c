/*
 * node_sink.c - LogicalSink and Sink: INSERT INTO a catalog table through
 * its connector's sink, or the rows of a SELECT collected for the client.
 */
#include "engine/plan/nodes/nodes.h"

static void explain_sink(ExplainContext *context, const PlanNode *node)
{
    strbuf_printf(context->out, "table=[default_catalog.default_database.%s], fields=[",
                  node->sink.table ? node->sink.table->name : "collect");
    explain_field_list(context, node);
    strbuf_append_cstr(context->out, "]");
}

const PlanKindInfo plan_kind_logical_sink = {
    .kind = PLAN_LOGICAL_SINK,
    .name = "LogicalSink",
    .explain = explain_sink,
};

const PlanKindInfo plan_kind_sink = {
    .kind = PLAN_SINK,
    .name = "Sink",
    .physical = true,
    .explain = explain_sink,
};
