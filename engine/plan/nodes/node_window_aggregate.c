/*
 * node_window_aggregate.c - WindowAggregate, Flink's
 * StreamPhysicalWindowAggregate: a LogicalAggregate whose group keys hold
 * window_start and window_end of one window table function (TUMBLE, HOP,
 * CUMULATE) becomes it in its conversion (node_aggregate.c calls
 * plan_convert_window_aggregate). As in Flink the window table function is
 * folded in: the WindowAggregate reads the function's input (through a Calc
 * of the fields it needs and the time attribute, with the filter of a Calc
 * between function and aggregate when it reads no window field) and assigns the windows
 * itself, so its plan has no WindowTableFunction below it.
 *
 * Invariants: aggregate.group_keys are the other keys (input fields of the
 * WindowAggregate), aggregate.time_field its input's rowtime field; output
 * fields: those keys, the calls, window_start, window_end, and window_time
 * when it was a group key; a Calc above restores the LogicalAggregate's
 * field order. Input and output are append-only; its state is released
 * when a window fires, so it has no state TTL. Exchange(hash[keys]) below
 * it, single without keys.
 */
#include <string.h>

#include "engine/plan/cost.h"
#include "engine/plan/nodes/nodes.h"

static void explain_window_aggregate(ExplainContext *context, const PlanNode *node)
{
    StrBuf *out = context->out;
    const PlanNode *input = node->inputs[0];
    const char *const *names = explain_input_names(context, node);
    uint32_t key_count = node->aggregate.group_key_count;
    if (key_count) {
        strbuf_append_cstr(out, "groupBy=[");
        for (uint32_t i = 0; i < key_count; i++)
            strbuf_printf(out, "%s%s", i ? ", " : "", names[node->aggregate.group_keys[i]]);
        strbuf_append_cstr(out, "], ");
    }
    if (node->aggregate.windows_from_fields) {
        strbuf_printf(out, "window=[%s(win_start=[%s], win_end=[%s]",
                      window_kind_name(node->aggregate.window.kind),
                      input->fields[node->aggregate.window_start_field].name,
                      input->fields[node->aggregate.window_end_field].name);
        window_spec_append_lengths(out, &node->aggregate.window, true);
        if (node->aggregate.window_partition_count) {
            strbuf_append_cstr(out, ", partition keys=[");
            for (uint32_t k = 0; k < node->aggregate.window_partition_count; k++)
                strbuf_printf(out, "%s%s", k ? ", " : "",
                              node->aggregate.window_partition_names[k]);
            strbuf_append_cstr(out, "]");
        }
    } else {
        strbuf_printf(out, "window=[%s(time_col=[%s]",
                      window_kind_name(node->aggregate.window.kind),
                      input->fields[node->aggregate.time_field].name);
        window_spec_append_lengths(out, &node->aggregate.window, true);
    }
    strbuf_append_cstr(out, ")], select=[");
    for (uint32_t i = 0; i < key_count; i++)
        strbuf_printf(out, "%s%s", i ? ", " : "", names[node->aggregate.group_keys[i]]);
    size_t before = out->length;
    explain_aggregate_calls(context, node, names);
    uint32_t property = key_count + node->aggregate.call_count;
    static const char *const functions[3] = {"start", "end", "rowtime"};
    uint32_t property_count = node->aggregate.emits_window_time ? 3 : 2;
    for (uint32_t p = 0; p < property_count; p++)
        strbuf_printf(out, ", %s('w$) AS %s", functions[p], node->fields[property + p].name);
    if (key_count == 0) {
        /* no keys: drop the leading ", " */
        memmove(out->data + before, out->data + before + 2, out->length - before - 1);
        out->length -= 2;
    }
    strbuf_append_cstr(out, "]");
}

static double estimate_window_aggregate(const PlanNode *node)
{
    return cost_node_rows(node->inputs[0]) * 0.1;
}

/* The grouping keys come from the input; calls and window bounds are computed. */
static const PlanNode *trace_window_aggregate(const PlanNode *node, uint32_t *field)
{
    if (*field >= node->aggregate.group_key_count)
        return NULL;
    *field = node->aggregate.group_keys[*field];
    return node->inputs[0];
}

static int derive_window_aggregate(PlannerContext *context, PlanNode *node)
{
    const PlanNode *input = node->inputs[0];
    /* Flink merges slices of HOP and CUMULATE windows and merges SESSION windows: a
       user-defined function there needs merge (joinery assigns every window itself) */
    WindowKind window = node->aggregate.window.kind;
    int checked = plan_aggregate_check_user_defined(
        context, node,
        window == WINDOW_HOP        ? "a HOP window aggregate"
        : window == WINDOW_CUMULATE ? "a CUMULATE window aggregate"
        : window == WINDOW_SESSION  ? "a SESSION window aggregate"
                                    : NULL,
        NULL);
    if (checked != JOINERY_OK)
        return checked;
    if (input->changelog_mode != CHANGELOG_INSERT)
        return diag_error(context->diag, JOINERY_ERROR_UNSUPPORTED,
                          "WindowAggregate doesn't support consuming update and delete changes "
                          "which is produced by node %s",
                          plan_kind_name(input->kind));
    node->changelog_mode = CHANGELOG_INSERT;
    node->row_count = cost_node_estimate(node);
    uint32_t fields[66];
    uint32_t key_count = node->aggregate.group_key_count;
    if (key_count <= 64) {
        for (uint32_t f = 0; f < key_count; f++)
            fields[f] = f;
        uint32_t start = key_count + node->aggregate.call_count;
        fields[key_count] = start;
        fields[key_count + 1] = start + 1;
        derive_add_unique_key(context->arena, node, fields, key_count + 2);
    }
    node->state_ttl_millis = 0; /* released when the window fires, never by TTL */
    return JOINERY_OK;
}

const PlanKindInfo plan_kind_window_aggregate = {
    .kind = PLAN_WINDOW_AGGREGATE,
    .name = "WindowAggregate",
    .physical = true,
    .stateful = true,
    .explain = explain_window_aggregate,
    .derive = derive_window_aggregate,
    .estimate = estimate_window_aggregate,
    .trace_field = trace_window_aggregate,
};

/* ---- conversion ---- */

static int refuse(PlannerContext *context, const char *what)
{
    return diag_error(context->diag, JOINERY_ERROR_UNSUPPORTED,
                      "Window aggregation %s is not supported yet", what);
}

/* True when `expr` reads a field at index >= first. */
static bool reads_from(Arena *arena, const Expr *expr, uint32_t first, uint32_t count)
{
    uint64_t *used = arena_calloc(arena, count / 64 + 1, sizeof(uint64_t));
    if (!used)
        return true;
    expr_collect_inputs(expr, used);
    for (uint32_t f = first; f < count; f++)
        if ((used[f / 64] >> (f % 64)) & 1)
            return true;
    return false;
}

int plan_convert_window_aggregate(PlannerContext *context, PlanNode *node, PlanNode **result)
{
    Arena *arena = context->arena;
    PlanNode *input = NULL;
    int status = physical_convert(context, node->inputs[0], &input);
    if (status != JOINERY_OK)
        return status;
    /* the window table function, right below or under a projection */
    PlanNode *projection = NULL, *function = input;
    if (input->kind == PLAN_CALC) {
        projection = input;
        function = input->inputs[0];
    }
    bool session = function->kind == PLAN_SESSION_WINDOW_TABLE_FUNCTION;
    if (!session && function->kind != PLAN_WINDOW_TABLE_FUNCTION)
        return refuse(context, "over this input (only a projection or filter may stand "
                               "between the window table function and the aggregate)");
    PlanNode *below = function->inputs[0];
    uint32_t base = below->field_count; /* window_start, window_end, window_time follow */
    uint32_t function_fields = function->field_count;
    /* a filter of the function's own fields goes below it with the projection */
    Expr *condition = projection ? projection->calc.condition : NULL;
    if (condition && reads_from(arena, condition, base, function_fields))
        return refuse(context, "under a filter of window_start, window_end or window_time");

    /* what each field of the aggregate's input is, over the function's input */
    uint32_t input_count = input->field_count;
    Expr **sources = arena_calloc(arena, input_count + 1, sizeof(Expr *));
    int32_t *roles = arena_calloc(arena, input_count + 1, sizeof(int32_t)); /* -1 or 0..2 */
    if (!sources || !roles)
        return JOINERY_ERROR_NO_MEMORY;
    for (uint32_t f = 0; f < input_count; f++) {
        Expr *source = projection ? projection->calc.projects[f]
                                  : expr_make_input_ref(arena, f, input->fields[f].type);
        if (!source)
            return JOINERY_ERROR_NO_MEMORY;
        roles[f] = -1;
        if (source->kind == EXPR_INPUT_REF && source->input_index >= base)
            roles[f] = (int32_t)(source->input_index - base);
        else if (reads_from(arena, source, base, function_fields))
            source = NULL; /* computed from the window bounds */
        sources[f] = source;
    }

    /* the fields the aggregate reads: plain ones in input order, computed ones after */
    bool *plain = arena_calloc(arena, base + 1, sizeof(bool));
    int32_t *position = arena_calloc(arena, input_count + 1, sizeof(int32_t));
    if (!plain || !position)
        return JOINERY_ERROR_NO_MEMORY;
    plain[function->window.time_field] = true;
    uint32_t group_count = node->aggregate.group_key_count;
    uint32_t call_count = node->aggregate.call_count;
    for (uint32_t f = 0; f < input_count; f++)
        position[f] = -1;
    bool has_start = false, has_end = false, has_time = false;
    for (uint32_t i = 0; i < group_count + call_count; i++) {
        bool is_key = i < group_count;
        const PlanAggregateCall *call = is_key ? NULL : &node->aggregate.calls[i - group_count];
        if (call && call->kind == PLAN_AGGREGATE_COUNT_STAR)
            continue;
        uint32_t f = is_key ? node->aggregate.group_keys[i] : call->argument;
        if (roles[f] >= 0) {
            if (!is_key)
                return refuse(context, "of window_start, window_end or window_time");
            has_start |= roles[f] == 0;
            has_end |= roles[f] == 1;
            has_time |= roles[f] == 2;
            continue;
        }
        if (!sources[f])
            return refuse(context, "by or of an expression over window_start, window_end or "
                                   "window_time");
        if (sources[f]->kind == EXPR_INPUT_REF)
            plain[sources[f]->input_index] = true;
        else
            position[f] = 0; /* computed: placed below */
    }
    for (uint32_t c = 0; c < call_count; c++) {
        /* LISTAGG's separator field (a user function's second argument), a user function's
           further arguments and a FILTER's field, read like an argument */
        const PlanAggregateCall *call = &node->aggregate.calls[c];
        uint32_t extra[PLAN_AGGREGATE_MORE_ARGUMENTS + 2];
        uint32_t extra_count = 0;
        if (call->has_separator)
            extra[extra_count++] = call->separator;
        for (uint32_t m = 0; m < call->more_argument_count; m++)
            extra[extra_count++] = call->more_arguments[m];
        if (call->has_filter)
            extra[extra_count++] = call->filter;
        for (uint32_t e = 0; e < extra_count; e++) {
            uint32_t f = extra[e];
            if (roles[f] >= 0)
                return refuse(context, "of window_start, window_end or window_time");
            if (!sources[f])
                return refuse(context, "by or of an expression over window_start, window_end or "
                                       "window_time");
            if (sources[f]->kind == EXPR_INPUT_REF)
                plain[sources[f]->input_index] = true;
            else
                position[f] = 0;
        }
    }
    if (!has_start || !has_end)
        return refuse(context, "without both window_start and window_end");
    Expr **projects = arena_calloc(arena, base + input_count + 1, sizeof(Expr *));
    PlanField *fields = arena_calloc(arena, base + input_count + 1, sizeof(PlanField));
    int32_t *plain_position = arena_calloc(arena, base + 1, sizeof(int32_t));
    if (!projects || !fields || !plain_position)
        return JOINERY_ERROR_NO_MEMORY;
    uint32_t count = 0;
    for (uint32_t b = 0; b < base; b++) {
        plain_position[b] = -1;
        if (!plain[b])
            continue;
        plain_position[b] = (int32_t)count;
        projects[count] = expr_make_input_ref(arena, b, below->fields[b].type);
        if (!projects[count])
            return JOINERY_ERROR_NO_MEMORY;
        fields[count++] = below->fields[b];
    }
    for (uint32_t f = 0; f < input_count; f++) {
        if (sources[f] && sources[f]->kind == EXPR_INPUT_REF && roles[f] < 0)
            position[f] = plain_position[sources[f]->input_index];
        else if (position[f] == 0 && sources[f]) {
            position[f] = (int32_t)count;
            projects[count] = sources[f];
            fields[count++] = input->fields[f];
        }
    }
    uint32_t time_field = (uint32_t)plain_position[function->window.time_field];
    PlanNode *new_input;
    uint32_t start_field = 0, end_field = 0;
    if (session) {
        /* SESSION: the function stays below; the rows carry their merged window */
        new_input = input;
        for (uint32_t f = 0; f < input_count; f++) {
            position[f] = (int32_t)f;
            if (roles[f] == 0)
                start_field = f;
            else if (roles[f] == 1)
                end_field = f;
        }
        time_field = start_field;
    } else {
        new_input = plan_make_calc(context, below, projects, count, fields, condition);
    }
    if (!new_input)
        return JOINERY_ERROR_NO_MEMORY;

    /* the WindowAggregate: keys, calls, window_start, window_end [, window_time] */
    uint32_t *keys = arena_calloc(arena, group_count + 1, sizeof(uint32_t));
    uint32_t *key_of_group = arena_calloc(arena, group_count + 1, sizeof(uint32_t));
    PlanAggregateCall *calls = arena_calloc(arena, call_count + 1, sizeof(PlanAggregateCall));
    if (!keys || !key_of_group || !calls)
        return JOINERY_ERROR_NO_MEMORY;
    uint32_t key_count = 0;
    for (uint32_t i = 0; i < group_count; i++) {
        uint32_t f = node->aggregate.group_keys[i];
        if (roles[f] >= 0)
            continue;
        key_of_group[i] = key_count;
        keys[key_count++] = (uint32_t)position[f];
    }
    for (uint32_t c = 0; c < call_count; c++) {
        calls[c] = node->aggregate.calls[c];
        if (calls[c].kind != PLAN_AGGREGATE_COUNT_STAR)
            calls[c].argument = (uint32_t)position[calls[c].argument];
        if (calls[c].has_separator)
            calls[c].separator = (uint32_t)position[calls[c].separator];
        for (uint32_t m = 0; m < calls[c].more_argument_count; m++)
            calls[c].more_arguments[m] = (uint32_t)position[calls[c].more_arguments[m]];
        if (calls[c].has_filter)
            calls[c].filter = (uint32_t)position[calls[c].filter];
    }
    uint32_t property_count = has_time ? 3 : 2;
    uint32_t output_count = key_count + call_count + property_count;
    PlanNode *aggregate = physical_new_node(context, PLAN_WINDOW_AGGREGATE, 1, output_count);
    if (!aggregate)
        return JOINERY_ERROR_NO_MEMORY;
    aggregate->inputs[0] = plan_make_exchange(context, new_input, keys, key_count);
    if (!aggregate->inputs[0])
        return JOINERY_ERROR_NO_MEMORY;
    aggregate->aggregate.group_keys = keys;
    aggregate->aggregate.group_key_count = key_count;
    aggregate->aggregate.calls = calls;
    aggregate->aggregate.call_count = call_count;
    aggregate->aggregate.window = function->window.spec;
    aggregate->aggregate.time_field = time_field;
    aggregate->aggregate.emits_window_time = has_time;
    if (session) {
        aggregate->aggregate.windows_from_fields = true;
        aggregate->aggregate.window_start_field = start_field;
        aggregate->aggregate.window_end_field = end_field;
        uint32_t partition_count = function->window.partition_key_count;
        const char **names = arena_calloc(arena, partition_count + 1, sizeof(char *));
        if (!names)
            return JOINERY_ERROR_NO_MEMORY;
        for (uint32_t k = 0; k < partition_count; k++)
            names[k] = below->fields[function->window.partition_keys[k]].name;
        aggregate->aggregate.window_partition_names = names;
        aggregate->aggregate.window_partition_count = partition_count;
    }
    static const char *const property_names[3] = {"window_start", "window_end", "window_time"};
    for (uint32_t p = 0; p < property_count; p++)
        aggregate->fields[key_count + call_count + p] = function->fields[base + p];
    for (uint32_t p = 0; p < property_count; p++)
        aggregate->fields[key_count + call_count + p].name = (char *)property_names[p];

    /* the Calc above: the LogicalAggregate's fields from the WindowAggregate's */
    Expr **order = arena_calloc(arena, node->field_count + 1, sizeof(Expr *));
    if (!order)
        return JOINERY_ERROR_NO_MEMORY;
    for (uint32_t i = 0; i < node->field_count; i++) {
        uint32_t from;
        if (i >= group_count) {
            from = key_count + (i - group_count);
        } else {
            uint32_t f = node->aggregate.group_keys[i];
            from = roles[f] >= 0 ? key_count + call_count + (uint32_t)roles[f] : key_of_group[i];
        }
        aggregate->fields[from].name = node->fields[i].name;
        aggregate->fields[from].type = node->fields[i].type;
        order[i] = expr_make_input_ref(arena, from, node->fields[i].type);
        if (!order[i])
            return JOINERY_ERROR_NO_MEMORY;
    }
    *result = plan_make_calc(context, aggregate, order, node->field_count, node->fields, NULL);
    return *result ? JOINERY_OK : JOINERY_ERROR_NO_MEMORY;
}
