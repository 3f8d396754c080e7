/*
 * node_over_aggregate.c - LogicalOverAggregate (printed as the LogicalProject
 * with `agg(...) OVER (...)` items Flink's AST shows) and OverAggregate
 * (Flink's StreamExecOverAggregate): aggregates over a frame of each row's
 * partition, ordered by a time attribute.
 *
 * Both keep their attributes in `aggregate` (plan.h): group_keys are the
 * PARTITION BY fields, time_field the ORDER BY time attribute, over_rows /
 * over_preceding the frame (bind_over.c); the logical node's fields are the
 * SELECT items, the physical node's the input's followed by the calls. The
 * conversion puts a Calc of the columns read (and the arguments that are
 * expressions) below Exchange(hash[partition]) or Exchange(single), and a
 * Calc of the SELECT items above; the physical node prints as Flink does:
 *   OverAggregate(partitionBy=[c], orderBy=[rowtime ASC],
 *     window=[ ROWS BETWEEN 2 PRECEDING AND CURRENT ROW],
 *     select=[a, c, rowtime, COUNT(a) AS w0$o0, SUM(a) AS w0$o1])
 * Insert-only input (Flink's message otherwise), insert-only output; the
 * state TTL applies to UNBOUNDED and ROWS frames (idle keys), RANGE n
 * PRECEDING frees its rows as they leave the frame only.
 */
#include <string.h>

#include "engine/plan/cost.h"
#include "engine/plan/nodes/nodes.h"

/* " ROWS BETWEEN 2 PRECEDING AND CURRENT ROW" (Flink's window=[...], leading blank). */
static void explain_over_frame(ExplainContext *context, const PlanNode *node)
{
    strbuf_printf(context->out, " %s BETWEEN ", node->aggregate.over_rows ? "ROWS" : "RANGE");
    if (node->aggregate.over_preceding < 0)
        strbuf_append_cstr(context->out, "UNBOUNDED");
    else
        strbuf_printf(context->out, "%lld", (long long)node->aggregate.over_preceding);
    strbuf_append_cstr(context->out, " PRECEDING AND CURRENT ROW");
}

static void explain_over_aggregate(ExplainContext *context, const PlanNode *node)
{
    StrBuf *out = context->out;
    const char *const *names = explain_input_names(context, node);
    if (node->aggregate.group_key_count) {
        strbuf_append_cstr(out, "partitionBy=[");
        for (uint32_t i = 0; i < node->aggregate.group_key_count; i++)
            strbuf_printf(out, "%s%s", i ? ", " : "", names[node->aggregate.group_keys[i]]);
        strbuf_append_cstr(out, "], ");
    }
    strbuf_printf(out, "orderBy=[%s ASC], window=[", names[node->aggregate.time_field]);
    explain_over_frame(context, node);
    strbuf_append_cstr(out, "], select=[");
    const PlanNode *input = node->inputs[0];
    for (uint32_t f = 0; f < input->field_count; f++)
        strbuf_printf(out, "%s%s", f ? ", " : "", names[f]);
    /* explain_aggregate_calls names the results after the group keys: here after the input */
    PlanNode shifted = *node;
    shifted.aggregate.group_key_count = input->field_count;
    explain_aggregate_calls(context, &shifted, names);
    strbuf_append_cstr(out, "]");
}

/* "COUNT($0) OVER (PARTITION BY $2 ORDER BY $4 NULLS FIRST ROWS 2 PRECEDING)": call i of a
   LogicalOverAggregate as Calcite prints it in a LogicalProject, into `out`. */
static void explain_over_call(ExplainContext *context, const PlanNode *node, uint32_t i,
                              const char *const *names, StrBuf *out)
{
    StrBuf *saved = context->out;
    context->out = out;
    const PlanAggregateCall *call = &node->aggregate.calls[i];
    strbuf_printf(out, "%s(%s", plan_aggregate_call_name(call), call->distinct ? "DISTINCT " : "");
    if (node->aggregate.over_arguments[i])
        explain_expr(context, node->aggregate.over_arguments[i], names);
    if (node->aggregate.over_separators[i]) {
        strbuf_append_cstr(out, ", ");
        explain_expr(context, node->aggregate.over_separators[i], names);
    }
    for (uint32_t m = 0; m < call->more_argument_count; m++) {
        strbuf_append_cstr(out, ", ");
        explain_expr(context, node->aggregate.over_more[i][m], names);
    }
    strbuf_append_cstr(out, ") OVER (");
    for (uint32_t k = 0; k < node->aggregate.group_key_count; k++) {
        strbuf_append_cstr(out, k ? ", " : "PARTITION BY ");
        if (node->aggregate.over_partition[k])
            explain_expr(context, node->aggregate.over_partition[k], names);
        else
            strbuf_append_cstr(out, names[node->aggregate.group_keys[k]]);
    }
    strbuf_printf(out, "%sORDER BY ", node->aggregate.group_key_count ? " " : "");
    if (node->aggregate.over_order)
        explain_expr(context, node->aggregate.over_order, names);
    else
        strbuf_append_cstr(out, names[node->aggregate.time_field]);
    strbuf_append_cstr(out, " NULLS FIRST");
    if (node->aggregate.over_rows || node->aggregate.over_preceding >= 0) {
        strbuf_append_cstr(out, node->aggregate.over_rows ? " ROWS " : " RANGE ");
        if (node->aggregate.over_offset)
            explain_expr(context, node->aggregate.over_offset, names);
        else
            strbuf_append_cstr(out, "UNBOUNDED");
        strbuf_append_cstr(out, " PRECEDING");
    }
    strbuf_append_cstr(out, ")");
    context->out = saved;
}

/* LogicalProject(c=[$2], cnt=[COUNT($0) OVER (...)], ...): the SELECT items with the calls
   written in place, as Flink's AST shows them. */
static void explain_logical_over_aggregate(ExplainContext *context, const PlanNode *node)
{
    const char *const *input_names = explain_input_names(context, node);
    uint32_t input_count = node->inputs[0]->field_count;
    uint32_t call_count = node->aggregate.call_count;
    const char **names = arena_calloc(context->arena, input_count + call_count + 1, sizeof *names);
    if (!names)
        return;
    memcpy(names, input_names, input_count * sizeof *names);
    for (uint32_t i = 0; i < call_count; i++) {
        StrBuf text = {0};
        explain_over_call(context, node, i, input_names, &text);
        names[input_count + i] = arena_strdup(context->arena, strbuf_cstr(&text));
        strbuf_free(&text);
    }
    for (uint32_t i = 0; i < node->field_count; i++) {
        strbuf_printf(context->out, "%s%s=[", i ? ", " : "", node->fields[i].name);
        explain_expr(context, node->aggregate.over_projects[i], names);
        strbuf_append_cstr(context->out, "]");
    }
}

/*
 * Physical: Calc(the columns read, then the arguments that are expressions), Exchange(hash
 * [partition] | single), OverAggregate(input ++ calls), Calc(the SELECT items).
 */
static int convert_over_aggregate(PlannerContext *context, PlanNode *node, PlanNode **result)
{
    Arena *arena = context->arena;
    PlanNode *input;
    int status = physical_convert(context, node->inputs[0], &input);
    if (status != JOINERY_OK)
        return status;
    uint32_t input_count = node->inputs[0]->field_count;
    uint32_t call_count = node->aggregate.call_count;
    uint64_t *used = rule_fields_new(arena, input_count);
    int32_t *mapping = arena_calloc(arena, input_count + call_count + 1, sizeof(int32_t));
    /* room for the input fields, each call's argument and separator, the PARTITION BY
       expressions and the ORDER BY */
    uint32_t more_count = 0;
    for (uint32_t i = 0; i < call_count; i++)
        more_count += node->aggregate.calls[i].more_argument_count;
    uint32_t room = input_count + 2 * call_count + more_count + node->aggregate.group_key_count + 2;
    Expr **pre = arena_calloc(arena, room, sizeof(Expr *));
    PlanField *pre_fields = arena_calloc(arena, room, sizeof(PlanField));
    uint32_t *arguments = arena_calloc(arena, call_count + 1, sizeof(uint32_t));
    uint32_t *separators = arena_calloc(arena, call_count + 1, sizeof(uint32_t));
    uint32_t *partition =
        arena_calloc(arena, node->aggregate.group_key_count + 1, sizeof(uint32_t));
    if (!used || !mapping || !pre || !pre_fields || !arguments || !separators || !partition)
        return JOINERY_ERROR_NO_MEMORY;
    for (uint32_t k = 0; k < node->aggregate.group_key_count; k++) {
        if (node->aggregate.over_partition[k])
            rule_fields_add_expr(used, node->aggregate.over_partition[k]);
        else
            rule_fields_add(used, node->aggregate.group_keys[k]);
    }
    if (node->aggregate.over_order)
        rule_fields_add_expr(used, node->aggregate.over_order);
    else
        rule_fields_add(used, node->aggregate.time_field);
    for (uint32_t i = 0; i < call_count; i++)
        if (node->aggregate.over_arguments[i])
            rule_fields_add_expr(used, node->aggregate.over_arguments[i]);
    for (uint32_t i = 0; i < node->field_count; i++) {
        /* only the input fields: the calls' results are not in `used`'s range */
        uint64_t *all = rule_fields_new(arena, input_count + call_count);
        if (!all)
            return JOINERY_ERROR_NO_MEMORY;
        rule_fields_add_expr(all, node->aggregate.over_projects[i]);
        for (uint32_t f = 0; f < input_count; f++)
            if (rule_fields_has(all, f))
                rule_fields_add(used, f);
    }
    uint32_t pre_count = 0;
    for (uint32_t f = 0; f < input_count; f++) {
        mapping[f] = -1;
        if (!rule_fields_has(used, f))
            continue;
        mapping[f] = (int32_t)pre_count;
        pre[pre_count] = expr_make_input_ref(arena, f, input->fields[f].type);
        pre_fields[pre_count++] = input->fields[f];
    }
    for (uint32_t i = 0; i < call_count; i++) {
        const Expr *argument = node->aggregate.over_arguments[i];
        if (!argument)
            continue;
        if (argument->kind == EXPR_INPUT_REF) {
            arguments[i] = (uint32_t)mapping[argument->input_index];
            continue;
        }
        arguments[i] = pre_count;
        pre[pre_count] = (Expr *)argument;
        pre_fields[pre_count].name = arena_printf(arena, "$f%u", pre_count);
        pre_fields[pre_count++].type = argument->type;
    }
    for (uint32_t i = 0; i < call_count; i++) {
        Expr *separator = node->aggregate.over_separators[i];
        if (!separator)
            continue;
        separators[i] = pre_count;
        pre[pre_count] = separator;
        pre_fields[pre_count].name = arena_printf(arena, "$f%u", pre_count);
        pre_fields[pre_count++].type = separator->type;
    }
    /* a user-defined call's 3rd argument on: fields after the separators */
    uint32_t *more_positions = arena_calloc(arena, more_count + 1, sizeof(uint32_t));
    if (!more_positions)
        return JOINERY_ERROR_NO_MEMORY;
    for (uint32_t i = 0, placed = 0; i < call_count; i++)
        for (uint32_t m = 0; m < node->aggregate.calls[i].more_argument_count; m++) {
            Expr *more = node->aggregate.over_more[i][m];
            more_positions[placed++] = pre_count;
            pre[pre_count] = more;
            pre_fields[pre_count].name = arena_printf(arena, "$f%u", pre_count);
            pre_fields[pre_count++].type = more->type;
        }
    /* ORDER BY PROCTIME(): computed below, named by its place ($2), as Flink does */
    uint32_t time_field =
        node->aggregate.over_order ? pre_count : (uint32_t)mapping[node->aggregate.time_field];
    if (node->aggregate.over_order) {
        pre[pre_count] = expr_remap_inputs(arena, node->aggregate.over_order, mapping);
        if (!pre[pre_count])
            return JOINERY_ERROR_NO_MEMORY;
        pre_fields[pre_count].name = arena_printf(arena, "$%u", pre_count);
        pre_fields[pre_count++].type = node->aggregate.over_order->type;
    }
    /* PARTITION BY expressions: computed below, named by their place ($3) */
    for (uint32_t k = 0; k < node->aggregate.group_key_count; k++) {
        if (!node->aggregate.over_partition[k]) {
            partition[k] = (uint32_t)mapping[node->aggregate.group_keys[k]];
            continue;
        }
        partition[k] = pre_count;
        pre[pre_count] = expr_remap_inputs(arena, node->aggregate.over_partition[k], mapping);
        if (!pre[pre_count])
            return JOINERY_ERROR_NO_MEMORY;
        pre_fields[pre_count].name = arena_printf(arena, "$%u", pre_count);
        pre_fields[pre_count++].type = node->aggregate.over_partition[k]->type;
    }
    PlanNode *below = plan_make_calc(context, input, pre, pre_count, pre_fields, NULL);
    PlanNode *exchange =
        below ? plan_make_exchange(context, below, partition, node->aggregate.group_key_count)
              : NULL;
    PlanNode *over =
        exchange ? physical_new_node(context, PLAN_OVER_AGGREGATE, 1, pre_count + call_count)
                 : NULL;
    PlanAggregateCall *calls = arena_calloc(arena, call_count + 1, sizeof(PlanAggregateCall));
    if (!over || !calls)
        return JOINERY_ERROR_NO_MEMORY;
    over->inputs[0] = exchange;
    memcpy(over->fields, exchange->fields, pre_count * sizeof(PlanField));
    over->aggregate = node->aggregate;
    over->aggregate.group_keys = partition;
    over->aggregate.time_field = time_field;
    over->aggregate.over_order = NULL;
    over->aggregate.calls = calls;
    over->aggregate.over_projects = NULL;
    over->aggregate.over_arguments = NULL;
    over->aggregate.over_separators = NULL;
    over->aggregate.over_more = NULL;
    over->aggregate.over_partition = NULL;
    for (uint32_t i = 0; i < call_count; i++) {
        calls[i] = node->aggregate.calls[i];
        calls[i].argument = arguments[i];
        calls[i].separator = separators[i];
        for (uint32_t m = 0; m < calls[i].more_argument_count; m++)
            calls[i].more_arguments[m] = *more_positions++;
        over->fields[pre_count + i].name = calls[i].name;
        over->fields[pre_count + i].type = calls[i].result_type;
        mapping[input_count + i] = (int32_t)(pre_count + i);
    }
    Expr **projects = arena_calloc(arena, node->field_count + 1, sizeof(Expr *));
    if (!projects)
        return JOINERY_ERROR_NO_MEMORY;
    for (uint32_t i = 0; i < node->field_count; i++) {
        projects[i] = expr_remap_inputs(arena, node->aggregate.over_projects[i], mapping);
        if (!projects[i])
            return JOINERY_ERROR_NO_MEMORY;
    }
    *result = plan_make_calc(context, over, projects, node->field_count, node->fields, NULL);
    return *result ? JOINERY_OK : JOINERY_ERROR_NO_MEMORY;
}

/* Projection pruning: the SELECT items read above are kept; the input keeps what they, the
   window and the calls' arguments read. */
static int prune_over_aggregate(PlannerContext *context, PlanNode *node, uint64_t *used,
                                RulePruned *result)
{
    Arena *arena = context->arena;
    uint32_t input_count = node->inputs[0]->field_count;
    uint32_t call_count = node->aggregate.call_count;
    uint64_t *input_used = rule_fields_new(arena, input_count + call_count);
    int32_t *mapping = arena_calloc(arena, node->field_count + 1, sizeof(int32_t));
    if (!input_used || !mapping)
        return JOINERY_ERROR_NO_MEMORY;
    for (uint32_t k = 0; k < node->aggregate.group_key_count; k++) {
        if (node->aggregate.over_partition[k])
            rule_fields_add_expr(input_used, node->aggregate.over_partition[k]);
        else
            rule_fields_add(input_used, node->aggregate.group_keys[k]);
    }
    if (node->aggregate.over_order)
        rule_fields_add_expr(input_used, node->aggregate.over_order);
    else
        rule_fields_add(input_used, node->aggregate.time_field);
    for (uint32_t i = 0; i < call_count; i++) {
        if (node->aggregate.over_arguments[i])
            rule_fields_add_expr(input_used, node->aggregate.over_arguments[i]);
        if (node->aggregate.over_separators[i]) /* LISTAGG's, a user function's 2nd */
            rule_fields_add_expr(input_used, node->aggregate.over_separators[i]);
        for (uint32_t m = 0; m < node->aggregate.calls[i].more_argument_count; m++)
            rule_fields_add_expr(input_used, node->aggregate.over_more[i][m]);
    }
    uint32_t kept = 0;
    for (uint32_t i = 0; i < node->field_count; i++) {
        if (!rule_fields_has(used, i)) {
            mapping[i] = -1;
            continue;
        }
        mapping[i] = (int32_t)kept++;
        rule_fields_add_expr(input_used, node->aggregate.over_projects[i]);
    }
    if (kept == 0) /* keep one field: a node has fields */
        mapping[0] = (int32_t)kept++;
    PlanNode *copy;
    RulePruned input;
    int status = rule_prune_input(context, node, input_used, &copy, &input);
    if (status != JOINERY_OK)
        return status;
    uint32_t new_count = copy->inputs[0]->field_count;
    int32_t *remap = arena_calloc(arena, input_count + call_count + 1, sizeof(int32_t));
    Expr **projects = arena_calloc(arena, kept + 1, sizeof(Expr *));
    Expr **arguments = arena_calloc(arena, call_count + 1, sizeof(Expr *));
    Expr **separators = arena_calloc(arena, call_count + 1, sizeof(Expr *));
    Expr ***more = arena_calloc(arena, call_count + 1, sizeof(Expr **));
    PlanField *fields = arena_calloc(arena, kept + 1, sizeof(PlanField));
    uint32_t *partition =
        arena_calloc(arena, node->aggregate.group_key_count + 1, sizeof(uint32_t));
    if (!remap || !projects || !arguments || !separators || !more || !fields || !partition)
        return JOINERY_ERROR_NO_MEMORY;
    for (uint32_t f = 0; f < input_count; f++)
        remap[f] = input.mapping[f];
    for (uint32_t i = 0; i < call_count; i++) {
        remap[input_count + i] = (int32_t)(new_count + i);
        const Expr *argument = node->aggregate.over_arguments[i];
        arguments[i] = argument ? expr_remap_inputs(arena, argument, remap) : NULL;
        if (argument && !arguments[i])
            return JOINERY_ERROR_NO_MEMORY;
        const Expr *separator = node->aggregate.over_separators[i];
        separators[i] = separator ? expr_remap_inputs(arena, separator, remap) : NULL;
        if (separator && !separators[i])
            return JOINERY_ERROR_NO_MEMORY;
        uint32_t count = node->aggregate.calls[i].more_argument_count;
        if (count) {
            more[i] = arena_calloc(arena, count, sizeof(Expr *));
            if (!more[i])
                return JOINERY_ERROR_NO_MEMORY;
            for (uint32_t m = 0; m < count; m++) {
                more[i][m] = expr_remap_inputs(arena, node->aggregate.over_more[i][m], remap);
                if (!more[i][m])
                    return JOINERY_ERROR_NO_MEMORY;
            }
        }
    }
    for (uint32_t i = 0; i < node->field_count; i++) {
        if (mapping[i] < 0)
            continue;
        fields[mapping[i]] = node->fields[i];
        projects[mapping[i]] = expr_remap_inputs(arena, node->aggregate.over_projects[i], remap);
        if (!projects[mapping[i]])
            return JOINERY_ERROR_NO_MEMORY;
    }
    Expr **partition_exprs =
        arena_calloc(arena, node->aggregate.group_key_count + 1, sizeof(Expr *));
    if (!partition_exprs)
        return JOINERY_ERROR_NO_MEMORY;
    for (uint32_t k = 0; k < node->aggregate.group_key_count; k++) {
        const Expr *key = node->aggregate.over_partition[k];
        if (!key) {
            partition[k] = (uint32_t)input.mapping[node->aggregate.group_keys[k]];
            continue;
        }
        partition_exprs[k] = expr_remap_inputs(arena, key, remap);
        if (!partition_exprs[k])
            return JOINERY_ERROR_NO_MEMORY;
    }
    copy->aggregate.group_keys = partition;
    copy->aggregate.over_partition = partition_exprs;
    if (node->aggregate.over_order) {
        copy->aggregate.over_order = expr_remap_inputs(arena, node->aggregate.over_order, remap);
        if (!copy->aggregate.over_order)
            return JOINERY_ERROR_NO_MEMORY;
    } else {
        copy->aggregate.time_field = (uint32_t)input.mapping[node->aggregate.time_field];
    }
    copy->aggregate.over_projects = projects;
    copy->aggregate.over_arguments = arguments;
    copy->aggregate.over_separators = separators;
    copy->aggregate.over_more = more;
    copy->fields = fields;
    copy->field_count = kept;
    result->node = copy;
    result->mapping = mapping;
    return JOINERY_OK;
}

const PlanKindInfo plan_kind_logical_over_aggregate = {
    .kind = PLAN_LOGICAL_OVER_AGGREGATE,
    .name = "LogicalProject",
    .explain = explain_logical_over_aggregate,
    .convert = convert_over_aggregate,
    .prune_fields = prune_over_aggregate,
};

static const PlanNode *trace_over_aggregate(const PlanNode *node, uint32_t *field)
{
    return *field < node->inputs[0]->field_count ? node->inputs[0] : NULL;
}

static int derive_over_aggregate(PlannerContext *context, PlanNode *node)
{
    const PlanNode *input = node->inputs[0];
    if (input->changelog_mode != CHANGELOG_INSERT) {
        const PlanNode *producer = input;
        for (int depth = 0; plan_kind_info(producer->kind)->forwards_changes &&
                            producer->input_count == 1 && depth < 64;
             depth++)
            producer = producer->inputs[0];
        return diag_error(context->diag, JOINERY_ERROR_UNSUPPORTED,
                          "OverAggregate doesn't support consuming update and delete changes "
                          "which is produced by node %s",
                          plan_kind_name(producer->kind));
    }
    /* Flink retracts the rows leaving a bounded frame (joinery recomputes the frame, but
       keeps Flink's contract) */
    int checked = plan_aggregate_check_user_defined(
        context, node, NULL,
        node->aggregate.over_preceding < 0 ? NULL
        : node->aggregate.over_rows        ? "a bounded OVER window (ROWS n PRECEDING)"
                                           : "a bounded OVER window (RANGE n PRECEDING)");
    if (checked != JOINERY_OK)
        return checked;
    node->changelog_mode = CHANGELOG_INSERT;
    node->row_count = cost_node_rows(input);
    /* the TTL frees idle keys of UNBOUNDED and ROWS frames (Flink's cleanup timers); RANGE n
       PRECEDING frees rows by time only */
    node->state_ttl_millis = node->aggregate.over_preceding < 0 || node->aggregate.over_rows
                                 ? context->config->state_ttl_millis
                                 : 0;
    return JOINERY_OK;
}

const PlanKindInfo plan_kind_over_aggregate = {
    .kind = PLAN_OVER_AGGREGATE,
    .name = "OverAggregate",
    .physical = true,
    .stateful = true,
    .explain = explain_over_aggregate,
    .derive = derive_over_aggregate,
    .trace_field = trace_over_aggregate,
};
