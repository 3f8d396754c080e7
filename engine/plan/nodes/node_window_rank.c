/*
 * node_window_rank.c - WindowRank and WindowDeduplicate: a LogicalRowNumber
 * whose PARTITION BY holds the window_start and window_end of one window (a
 * window table function's, or a window aggregate's output), as Flink's
 * StreamPhysicalWindowRankRule / WindowDeduplicateRule plan it.
 *
 * plan_convert_window_rank: ROW_NUMBER ranked 1..1 on one rowtime field is
 * WindowDeduplicate(window=[TUMBLE(win_start=[window_start],
 * win_end=[window_end], size=[15 min])], keep=[FirstRow|LastRow],
 * partitionKeys=[a], orderKey=[rowtime], order=[ROWTIME]) (ASC keeps the
 * first row, DESC the last); anything else is WindowRank(window=[...],
 * rankType=[ROW_NUMBER], rankRange=[rankStart=1, rankEnd=3],
 * partitionBy=[a], orderBy=[b DESC], select=[...]) (WindowRankTest.xml,
 * WindowDeduplicateTest.xml). partitionBy / partitionKeys are the other
 * PARTITION BY fields; the Exchange below hashes on them (single without).
 * The rank number is a field of the WindowRank when read and the range
 * holds more than one rank, else a constant in the Calc above. Output is
 * append-only: each window's rows when the watermark passes its end. No
 * state TTL (a window's rows are freed when it fires). SESSION windows and
 * RANK() / DENSE_RANK() are refused.
 */
#include <string.h>

#include "engine/plan/cost.h"
#include "engine/plan/nodes/nodes.h"

int plan_convert_window_rank(PlannerContext *context, const PlanNode *node, PlanNode *input,
                             const WindowSpec *window, uint32_t window_start, uint32_t window_end,
                             PlanNode **result)
{
    Arena *arena = context->arena;
    if (window->kind == WINDOW_SESSION)
        return diag_error(context->diag, JOINERY_ERROR_UNSUPPORTED,
                          "Window Top-N and window deduplication over SESSION windows are not "
                          "supported yet");
    if (node->rank.function != PLAN_RANK_ROW_NUMBER)
        return diag_error(context->diag, JOINERY_ERROR_UNSUPPORTED,
                          "%s() over window_start and window_end is not supported yet; use "
                          "ROW_NUMBER()",
                          node->rank.function == PLAN_RANK_RANK ? "RANK" : "DENSE_RANK");
    bool deduplicate =
        node->rank.rank_start == 1 && node->rank.rank_end == 1 && node->rank.order_count == 1 &&
        input->fields[node->rank.order_field].type.time_attribute == TIME_ATTRIBUTE_ROWTIME;
    /* the PARTITION BY fields other than the window bounds */
    uint32_t *partition = arena_calloc(arena, node->rank.partition_count + 1, sizeof(uint32_t));
    if (!partition)
        return JOINERY_ERROR_NO_MEMORY;
    uint32_t partition_count = 0;
    for (uint32_t k = 0; k < node->rank.partition_count; k++)
        if (node->rank.partition[k] != window_start && node->rank.partition[k] != window_end)
            partition[partition_count++] = node->rank.partition[k];
    bool output_number = !deduplicate && node->rank.number_field != UINT32_MAX &&
                         node->rank.rank_start != node->rank.rank_end;
    uint32_t field_count = input->field_count + (output_number ? 1 : 0);
    PlanNode *exchange = plan_make_exchange(context, input, partition, partition_count);
    PlanNode *rank =
        exchange
            ? physical_new_node(context, deduplicate ? PLAN_WINDOW_DEDUPLICATE : PLAN_WINDOW_RANK,
                                1, field_count)
            : NULL;
    if (!rank)
        return JOINERY_ERROR_NO_MEMORY;
    rank->inputs[0] = exchange;
    memcpy(rank->fields, input->fields, input->field_count * sizeof(PlanField));
    rank->rank = node->rank;
    rank->rank.projects = NULL;
    rank->rank.project_count = 0;
    rank->rank.partition = partition;
    rank->rank.partition_count = partition_count;
    rank->rank.number_field = output_number ? input->field_count : UINT32_MAX;
    rank->rank.keep_last = node->rank.descending;
    rank->rank.window = *window;
    rank->rank.window_start_field = window_start;
    rank->rank.window_end_field = window_end;
    if (output_number) {
        rank->fields[input->field_count].name = node->fields[node->rank.number_field].name;
        rank->fields[input->field_count].type = type_make(TYPE_BIGINT, false);
        plan_uniquify_names(arena, rank->fields, field_count);
    }
    Expr **projects = arena_calloc(arena, node->rank.project_count + 1, sizeof(Expr *));
    if (!projects)
        return JOINERY_ERROR_NO_MEMORY;
    for (uint32_t i = 0; i < node->rank.project_count; i++) {
        if (i != node->rank.number_field)
            projects[i] = node->rank.projects[i];
        else if (output_number)
            projects[i] = expr_make_input_ref(arena, input->field_count,
                                              rank->fields[input->field_count].type);
        else
            projects[i] =
                expr_make_literal(arena, node->fields[i].type, value_int(node->rank.rank_start));
        if (!projects[i])
            return JOINERY_ERROR_NO_MEMORY;
    }
    *result = plan_make_calc(context, rank, projects, node->rank.project_count, node->fields, NULL);
    return *result ? JOINERY_OK : JOINERY_ERROR_NO_MEMORY;
}

/* ---------------------------------------------------------------- EXPLAIN */

static void explain_window(StrBuf *out, const PlanNode *node)
{
    const PlanNode *input = node->inputs[0];
    strbuf_printf(out, "window=[%s(win_start=[%s], win_end=[%s]",
                  window_kind_name(node->rank.window.kind),
                  input->fields[node->rank.window_start_field].name,
                  input->fields[node->rank.window_end_field].name);
    window_spec_append_lengths(out, &node->rank.window, true);
    strbuf_append_cstr(out, ")]");
}

static void explain_partition(StrBuf *out, const PlanNode *node)
{
    const PlanNode *input = node->inputs[0];
    for (uint32_t k = 0; k < node->rank.partition_count; k++)
        strbuf_printf(out, "%s%s", k ? ", " : "", input->fields[node->rank.partition[k]].name);
}

static void explain_window_rank(ExplainContext *context, const PlanNode *node)
{
    StrBuf *out = context->out;
    const PlanNode *input = node->inputs[0];
    explain_window(out, node);
    strbuf_printf(out,
                  ", rankType=[ROW_NUMBER], rankRange=[rankStart=%lld, rankEnd=%lld], "
                  "partitionBy=[",
                  (long long)node->rank.rank_start, (long long)node->rank.rank_end);
    explain_partition(out, node);
    strbuf_append_cstr(out, "], orderBy=[");
    for (uint32_t k = 0; k < node->rank.order_count; k++)
        strbuf_printf(out, "%s%s %s", k ? ", " : "", input->fields[node->rank.order_fields[k]].name,
                      node->rank.order_descending[k] ? "DESC" : "ASC");
    strbuf_append_cstr(out, "], select=[");
    explain_field_list(context, node);
    strbuf_append_cstr(out, "]");
}

static void explain_window_deduplicate(ExplainContext *context, const PlanNode *node)
{
    StrBuf *out = context->out;
    explain_window(out, node);
    strbuf_printf(out, ", keep=[%s], partitionKeys=[",
                  node->rank.keep_last ? "LastRow" : "FirstRow");
    explain_partition(out, node);
    strbuf_printf(out, "], orderKey=[%s], order=[ROWTIME]",
                  node->inputs[0]->fields[node->rank.order_field].name);
}

/* ---------------------------------------------------------------- derivation */

static int derive_window_rank(PlannerContext *context, PlanNode *node)
{
    const PlanNode *input = node->inputs[0];
    if (input->changelog_mode != CHANGELOG_INSERT)
        return diag_error(context->diag, JOINERY_ERROR_UNSUPPORTED,
                          "%s over an updating input is not supported", plan_kind_name(node->kind));
    node->changelog_mode = CHANGELOG_INSERT;
    node->row_count = cost_node_rows(input);
    node->state_ttl_millis = 0;
    return JOINERY_OK;
}

/* The input's fields are the node's; the rank number is computed. */
static const PlanNode *trace_window_rank_field(const PlanNode *node, uint32_t *field)
{
    return *field < node->inputs[0]->field_count ? node->inputs[0] : NULL;
}

const PlanKindInfo plan_kind_window_rank = {
    .kind = PLAN_WINDOW_RANK,
    .name = "WindowRank",
    .physical = true,
    .stateful = true,
    .explain = explain_window_rank,
    .derive = derive_window_rank,
    .trace_field = trace_window_rank_field,
};

const PlanKindInfo plan_kind_window_deduplicate = {
    .kind = PLAN_WINDOW_DEDUPLICATE,
    .name = "WindowDeduplicate",
    .physical = true,
    .stateful = true,
    .explain = explain_window_deduplicate,
    .derive = derive_window_rank,
    .trace_field = trace_window_rank_field,
};
