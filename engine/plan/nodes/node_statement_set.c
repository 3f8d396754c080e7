/*
 * node_statement_set.c - StatementSet: the root of a statement set's plan
 * (EXECUTE STATEMENT SET, BEGIN STATEMENT SET ... END), whose inputs are
 * its INSERTs' Sinks, in statement order, planned into one job. Sinks may
 * share sub-plans (rules/reuse_sub_plans.c), so below it the plan is a DAG.
 *
 * joinery's node, not Flink's: Flink keeps a statement set as a list of
 * sinks. EXPLAIN never prints it (plan_explain_statement_set prints the
 * sinks as Flink does); its attributes name the sinks for the checkpoint
 * fingerprint and SHOW JOB METRICS. It has no fields and emits nothing.
 */
#include "engine/plan/nodes/nodes.h"

static void explain_statement_set(ExplainContext *context, const PlanNode *node)
{
    strbuf_append_cstr(context->out, "sinks=[");
    for (uint32_t i = 0; i < node->input_count; i++) {
        const PlanNode *sink = node->inputs[i];
        strbuf_printf(context->out, "%s%s", i ? ", " : "",
                      sink->kind == PLAN_SINK && sink->sink.table ? sink->sink.table->name : "?");
    }
    strbuf_append_cstr(context->out, "]");
}

static int derive_statement_set(PlannerContext *context, PlanNode *node)
{
    (void)context;
    node->changelog_mode = CHANGELOG_INSERT;
    node->row_count = 0;
    return JOINERY_OK;
}

const PlanKindInfo plan_kind_statement_set = {
    .kind = PLAN_STATEMENT_SET,
    .name = "StatementSet",
    .physical = true,
    .explain = explain_statement_set,
    .derive = derive_statement_set,
};
