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
 * Physical (convert_sort): FETCH 0 is Flink's empty Values; ORDER BY with
 * LIMIT / OFFSET / FETCH is Flink's SortLimit, a Rank without partition
 * (plan_convert_sort_limit, nodes/node_rank.c); the other forms are refused
 * here until their operators exist, each with its reason.
 */
#include <string.h>

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

static int convert_sort(PlannerContext *context, PlanNode *node, PlanNode **result)
{
    if (node->sort.fetch == 0)
        return convert_empty(context, node, result);
    if (node->sort.key_count == 0)
        return sort_error(context, node, "LIMIT, OFFSET and FETCH are not supported yet");
    if (node->sort.fetch >= 0 || node->sort.offset >= 0)
        return plan_convert_sort_limit(context, node, result); /* node_rank.c */
    const PlanSortKey *first = &node->sort.keys[0];
    if (node->fields[first->field].type.time_attribute == TIME_ATTRIBUTE_NONE || first->descending)
        return sort_error(context, node, "Sort on a non-time-attribute field is not supported.");
    return sort_error(context, node,
                      "ORDER BY a time attribute (Flink's TemporalSort) is not supported yet");
}

const PlanKindInfo plan_kind_logical_sort = {
    .kind = PLAN_LOGICAL_SORT,
    .name = "LogicalSort",
    .explain = explain_logical_sort,
    .convert = convert_sort,
};
