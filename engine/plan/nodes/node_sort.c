/*
 * node_sort.c - ORDER BY, LIMIT, OFFSET and FETCH: Calcite's LogicalSort.
 *
 * Logical: one node over the query it orders, its fields the input's, with a
 * collation (field, ASC|DESC, NULLS FIRST|LAST; Flink's default puts NULLs
 * first ascending and last descending), an offset and a fetch, printed as
 * Calcite does: LogicalSort(sort0=[$1], dir0=[DESC-nulls-last], offset=[10],
 * fetch=[5]) — a direction is followed by -nulls-first / -nulls-last when the
 * NULLs go where Calcite's own default (last ascending, first descending) does
 * not put them. The binder puts ORDER BY keys that are not select items as
 * extra fields under it and a LogicalProject above it that drops them.
 * Filters never move below it (a fetch changes which rows pass).
 *
 * Physical (convert_sort), over Exchange(single):
 *  - FETCH 0 is Flink's empty Values;
 *  - LIMIT / OFFSET / FETCH without ORDER BY: Limit(offset=[m], fetch=[n])
 *    (Flink's StreamPhysicalLimit), the first rows of an insert-only input;
 *    at the top of a query it ends the job once it has them (op_limit.h);
 *  - streaming ORDER BY: TemporalSort(orderBy=[ts ASC, ...]) when the first
 *    key is a time attribute ascending (rows released in time order as the
 *    watermark passes, or at once in processing time: op_temporal_sort.h),
 *    else refused with Flink's message; with a LIMIT it is Flink's
 *    SortLimit, a Rank without partition (plan_convert_sort_limit,
 *    nodes/node_rank.c);
 *  - batch mode (execution.runtime-mode = 'batch'): ORDER BY in any order is
 *    a Sort(orderBy=[...]) of the final rows at the end of input, a LIMIT
 *    over it a Limit; a Limit over an updating input materialises it first
 *    (derive_limit sets sort.materialize).
 */
#include <string.h>

#include "engine/plan/cost.h"
#include "engine/plan/nodes/nodes.h"

/* ---------------------------------------------------------------- logical */

/* "ASC", "ASC-nulls-first", "DESC", "DESC-nulls-last" (Calcite's RelFieldCollation). */
static const char *sort_direction_text(const PlanSortKey *key)
{
    if (key->descending)
        return key->nulls_first ? "DESC" : "DESC-nulls-last";
    return key->nulls_first ? "ASC-nulls-first" : "ASC";
}

static void explain_logical_sort(ExplainContext *context, const PlanNode *node)
{
    StrBuf *out = context->out;
    const char *const *names = explain_input_names(context, node);
    const char *separator = "";
    for (uint32_t k = 0; k < node->sort.key_count; k++) {
        strbuf_printf(out, "%ssort%u=[%s]", separator, k, names[node->sort.keys[k].field]);
        separator = ", ";
    }
    for (uint32_t k = 0; k < node->sort.key_count; k++)
        strbuf_printf(out, ", dir%u=[%s]", k, sort_direction_text(&node->sort.keys[k]));
    if (node->sort.offset >= 0) {
        strbuf_printf(out, "%soffset=[%lld]", separator, (long long)node->sort.offset);
        separator = ", ";
    }
    if (node->sort.fetch >= 0)
        strbuf_printf(out, "%sfetch=[%lld]", separator, (long long)node->sort.fetch);
}

static int sort_error(PlannerContext *context, const PlanNode *node, const char *message)
{
    if (node->sort.line > 0)
        return diag_error_at(context->diag, JOINERY_ERROR_UNSUPPORTED, node->sort.line,
                             node->sort.column, "%s", message);
    return diag_error(context->diag, JOINERY_ERROR_UNSUPPORTED, "%s", message);
}

/* FETCH 0: no rows, whatever the input (Flink's Values(tuples=[[]])). */
static int convert_empty(PlannerContext *context, const PlanNode *node, PlanNode **result)
{
    PlanNode *values = physical_new_node(context, PLAN_VALUES, 0, node->field_count);
    if (!values)
        return JOINERY_ERROR_NO_MEMORY;
    memcpy(values->fields, node->fields, node->field_count * sizeof(PlanField));
    values->values.row_count = 0;
    values->values.rows = NULL;
    *result = values;
    return JOINERY_OK;
}

/* A physical Limit or Sort over `input` with the logical node's attributes. */
static PlanNode *sort_physical(PlannerContext *context, const PlanNode *node, PlanKind kind,
                               PlanNode *input)
{
    PlanNode *result = physical_new_node(context, kind, 1, input->field_count);
    if (!result)
        return NULL;
    result->inputs[0] = input;
    memcpy(result->fields, input->fields, input->field_count * sizeof(PlanField));
    result->sort = node->sort;
    result->sort.batch = context->config->batch_mode;
    return result;
}

static int convert_sort(PlannerContext *context, PlanNode *node, PlanNode **result)
{
    if (node->sort.fetch == 0)
        return convert_empty(context, node, result);
    bool limited = node->sort.fetch >= 0 || node->sort.offset > 0;
    bool batch = context->config->batch_mode;
    bool temporal = false;
    if (node->sort.key_count && !batch) {
        const PlanSortKey *first = &node->sort.keys[0];
        if (limited) /* Flink's SortLimit: a Rank without partition (node_rank.c) */
            return plan_convert_sort_limit(context, node, result);
        if (node->fields[first->field].type.time_attribute == TIME_ATTRIBUTE_NONE ||
            first->descending)
            return sort_error(context, node,
                              "Sort on a non-time-attribute field is not supported.");
        temporal = true;
    }
    PlanNode *input;
    int status = physical_convert(context, node->inputs[0], &input);
    if (status != JOINERY_OK)
        return status;
    PlanNode *top = plan_make_exchange(context, input, NULL, 0);
    if (temporal) {
        top = top ? sort_physical(context, node, PLAN_TEMPORAL_SORT, top) : NULL;
        if (!top)
            return JOINERY_ERROR_NO_MEMORY;
        *result = top;
        return JOINERY_OK;
    }
    if (top && node->sort.key_count) {
        top = sort_physical(context, node, PLAN_SORT, top);
        if (top) {
            top->sort.offset = -1;
            top->sort.fetch = -1;
        }
    }
    if (top && limited) {
        top = sort_physical(context, node, PLAN_LIMIT, top);
        if (top) {
            top->sort.keys = NULL;
            top->sort.key_count = 0;
        }
    }
    if (!top)
        return JOINERY_ERROR_NO_MEMORY;
    *result = top;
    return JOINERY_OK;
}

const PlanKindInfo plan_kind_logical_sort = {
    .kind = PLAN_LOGICAL_SORT,
    .name = "LogicalSort",
    .explain = explain_logical_sort,
    .convert = convert_sort,
};

/* ---------------------------------------------------------------- physical */

/* "a ASC, b DESC" (Flink's orderBy=[...]), NULLS FIRST / LAST where not Flink's default. */
static void explain_order_by(ExplainContext *context, const PlanNode *node)
{
    for (uint32_t k = 0; k < node->sort.key_count; k++) {
        const PlanSortKey *key = &node->sort.keys[k];
        strbuf_printf(context->out, "%s%s %s", k ? ", " : "", node->fields[key->field].name,
                      key->descending ? "DESC" : "ASC");
        if (key->nulls_first == key->descending)
            strbuf_append_cstr(context->out, key->nulls_first ? " NULLS FIRST" : " NULLS LAST");
    }
}

static void explain_sort(ExplainContext *context, const PlanNode *node)
{
    strbuf_append_cstr(context->out, "orderBy=[");
    explain_order_by(context, node);
    strbuf_append_cstr(context->out, "]");
}

static void explain_limit(ExplainContext *context, const PlanNode *node)
{
    strbuf_printf(context->out, "offset=[%lld], fetch=[",
                  (long long)(node->sort.offset > 0 ? node->sort.offset : 0));
    if (node->sort.fetch < 0)
        strbuf_append_cstr(context->out, "unlimited");
    else
        strbuf_printf(context->out, "%lld", (long long)node->sort.fetch);
    strbuf_append_cstr(context->out, "]");
}

static double estimate_limit(const PlanNode *node)
{
    double rows = cost_node_rows(node->inputs[0]);
    if (node->sort.offset > 0)
        rows = rows > (double)node->sort.offset ? rows - (double)node->sort.offset : 0;
    if (node->sort.fetch >= 0 && rows > (double)node->sort.fetch)
        rows = (double)node->sort.fetch;
    return rows;
}

static int derive_limit(PlannerContext *context, PlanNode *node)
{
    const PlanNode *input = node->inputs[0];
    if (input->changelog_mode != CHANGELOG_INSERT) {
        if (!node->sort.batch)
            return sort_error(context, node,
                              "LIMIT over an updating input is not supported yet in streaming "
                              "mode (SET 'execution.runtime-mode' = 'batch' gives the final "
                              "rows)");
        node->sort.materialize = true;
        node->sort.ends_job = false;
    }
    node->changelog_mode = CHANGELOG_INSERT;
    node->row_count = estimate_limit(node);
    return JOINERY_OK;
}

static int derive_sort(PlannerContext *context, PlanNode *node)
{
    (void)context;
    node->changelog_mode = CHANGELOG_INSERT;
    node->row_count = cost_node_rows(node->inputs[0]);
    return JOINERY_OK;
}

const PlanKindInfo plan_kind_limit = {
    .kind = PLAN_LIMIT,
    .name = "Limit",
    .physical = true,
    .stateful = true,
    .explain = explain_limit,
    .derive = derive_limit,
    .estimate = estimate_limit,
    .trace_field = cost_trace_to_input,
};

const PlanKindInfo plan_kind_sort = {
    .kind = PLAN_SORT,
    .name = "Sort",
    .physical = true,
    .stateful = true,
    .explain = explain_sort,
    .derive = derive_sort,
    .trace_field = cost_trace_to_input,
};

static int derive_temporal_sort(PlannerContext *context, PlanNode *node)
{
    if (node->inputs[0]->changelog_mode != CHANGELOG_INSERT)
        return sort_error(context, node,
                          "ORDER BY a time attribute over an updating input is not supported "
                          "(Flink's TemporalSort takes an insert-only input)");
    node->changelog_mode = CHANGELOG_INSERT;
    node->row_count = cost_node_rows(node->inputs[0]);
    return JOINERY_OK;
}

const PlanKindInfo plan_kind_temporal_sort = {
    .kind = PLAN_TEMPORAL_SORT,
    .name = "TemporalSort",
    .physical = true,
    .stateful = true,
    .explain = explain_sort,
    .derive = derive_temporal_sort,
    .trace_field = cost_trace_to_input,
};

/* The Limit a query ends with (only Calcs between it and the sink) ends the job once it has
   its rows (op_limit.h). */
void plan_mark_final_limit(PlanNode *root)
{
    PlanNode *node = root;
    for (int depth = 0; node && depth < 4096; depth++) {
        if (node->kind == PLAN_LIMIT) {
            node->sort.ends_job = true;
            return;
        }
        if ((node->kind != PLAN_SINK && node->kind != PLAN_CALC) || node->input_count != 1)
            return;
        node = node->inputs[0];
    }
}
