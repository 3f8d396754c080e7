/*
 * node_group_window_aggregate.c - GroupWindowAggregate, Flink's
 * StreamPhysicalGroupWindowAggregate: a LogicalAggregate one of whose group
 * keys is a legacy group window ($TUMBLE(time, size), $HOP(time, slide,
 * size), $SESSION(time, gap) in the projection below it, as the binder
 * makes them from GROUP BY TUMBLE(...)) becomes it in its conversion
 * (node_aggregate.c calls plan_convert_group_window_aggregate).
 *
 * Invariants: the Calc below reads the window's time attribute where the
 * window key was (Flink's Calc(select=[a, rowtime])); aggregate.group_keys
 * are the other keys, aggregate.time_field the time attribute;
 * aggregate.proctime for a processing-time window. Output: keys, calls,
 * then when an auxiliary function reads the window (LogicalAggregate's
 * group_window_properties) w$start, w$end, w$rowtime (event time only) and
 * w$proctime. The Calc above gives the LogicalAggregate's fields, the
 * window key as $WINDOW(w$start, w$end, w$rowtime, w$proctime), so the
 * auxiliary functions of the projection above fold into the property
 * fields when the Calcs merge (expr_substitute_inputs). Output is
 * append-only; input may update for TUMBLE and HOP without MIN/MAX; no
 * state TTL (state goes when a window fires). Exchange(hash[keys]) below,
 * single without keys.
 */
#include <string.h>

#include "engine/plan/cost.h"
#include "engine/plan/interval_bounds.h"
#include "engine/plan/nodes/nodes.h"

static const char *const PROPERTY_NAMES[4] = {"w$start", "w$end", "w$rowtime", "w$proctime"};
static const char *const PROPERTY_FUNCTIONS[4] = {"start", "end", "rowtime", "proctime"};

/* Which of the four properties the node emits, in order; returns how many. */
static uint32_t group_window_properties(const PlanNode *node, uint32_t *which)
{
    if (!node->aggregate.group_window_properties)
        return 0;
    uint32_t count = 0;
    which[count++] = 0;
    which[count++] = 1;
    if (!node->aggregate.proctime)
        which[count++] = 2;
    which[count++] = 3;
    return count;
}

static void explain_group_window_aggregate(ExplainContext *context, const PlanNode *node)
{
    StrBuf *out = context->out;
    const char *const *names = explain_input_names(context, node);
    uint32_t key_count = node->aggregate.group_key_count;
    if (key_count) {
        strbuf_append_cstr(out, "groupBy=[");
        for (uint32_t i = 0; i < key_count; i++)
            strbuf_printf(out, "%s%s", i ? ", " : "", names[node->aggregate.group_keys[i]]);
        strbuf_append_cstr(out, "], ");
    }
    const WindowSpec *window = &node->aggregate.window;
    const char *time = names[node->aggregate.time_field];
    if (window->kind == WINDOW_TUMBLE)
        strbuf_printf(out, "window=[TumblingGroupWindow('w$, %s, %lld)]", time,
                      (long long)window->size_millis);
    else if (window->kind == WINDOW_HOP)
        strbuf_printf(out, "window=[SlidingGroupWindow('w$, %s, %lld, %lld)]", time,
                      (long long)window->size_millis, (long long)window->slide_millis);
    else
        strbuf_printf(out, "window=[SessionGroupWindow('w$, %s, %lld)]", time,
                      (long long)window->gap_millis);
    uint32_t which[4];
    uint32_t property_count = group_window_properties(node, which);
    if (property_count) {
        strbuf_append_cstr(out, ", properties=[");
        for (uint32_t p = 0; p < property_count; p++)
            strbuf_printf(out, "%s%s", p ? ", " : "", PROPERTY_NAMES[which[p]]);
        strbuf_append_cstr(out, "]");
    }
    strbuf_append_cstr(out, ", select=[");
    for (uint32_t i = 0; i < key_count; i++)
        strbuf_printf(out, "%s%s", i ? ", " : "", names[node->aggregate.group_keys[i]]);
    size_t before = out->length;
    explain_aggregate_calls(context, node, names);
    for (uint32_t p = 0; p < property_count; p++)
        strbuf_printf(out, ", %s('w$) AS %s", PROPERTY_FUNCTIONS[which[p]],
                      PROPERTY_NAMES[which[p]]);
    if (key_count == 0 && out->length > before) {
        /* no keys: drop the leading ", " */
        memmove(out->data + before, out->data + before + 2, out->length - before - 1);
        out->length -= 2;
    }
    strbuf_append_cstr(out, "]");
}

static double estimate_group_window_aggregate(const PlanNode *node)
{
    return cost_node_rows(node->inputs[0]) * 0.1;
}

/* The grouping keys come from the input; calls and properties are computed. */
static const PlanNode *trace_group_window_aggregate(const PlanNode *node, uint32_t *field)
{
    if (*field >= node->aggregate.group_key_count)
        return NULL;
    *field = node->aggregate.group_keys[*field];
    return node->inputs[0];
}

static int derive_group_window_aggregate(PlannerContext *context, PlanNode *node)
{
    const PlanNode *input = node->inputs[0];
    /* Flink's group windows merge SESSION windows and the panes of HOP windows */
    WindowKind window = node->aggregate.window.kind;
    int checked = plan_aggregate_check_user_defined(
        context, node,
        window == WINDOW_HOP       ? "a HOP group window aggregate"
        : window == WINDOW_SESSION ? "a SESSION group window aggregate"
                                   : NULL,
        input->changelog_mode != CHANGELOG_INSERT ? "a GroupWindowAggregate over an updating input"
                                                  : NULL);
    if (checked != JOINERY_OK)
        return checked;
    for (uint32_t c = 0; c < node->aggregate.call_count; c++) {
        const PlanAggregateCall *call = &node->aggregate.calls[c];
        if (plan_aggregate_is_append_only(call->kind) &&
            (node->aggregate.window.kind == WINDOW_SESSION ||
             input->changelog_mode != CHANGELOG_INSERT))
            return diag_error(context->diag, JOINERY_ERROR_UNSUPPORTED,
                              "LISTAGG, FIRST_VALUE and LAST_VALUE %s are not supported yet",
                              node->aggregate.window.kind == WINDOW_SESSION
                                  ? "in SESSION group windows (merged sessions)"
                                  : "over an updating input");
    }
    if (input->changelog_mode != CHANGELOG_INSERT) {
        if (node->aggregate.window.kind == WINDOW_SESSION)
            return diag_error(context->diag, JOINERY_ERROR_UNSUPPORTED,
                              "GroupWindowAggregate over SESSION windows of an updating input "
                              "(produced by node %s) is not supported yet",
                              plan_kind_name(input->kind));
        for (uint32_t c = 0; c < node->aggregate.call_count; c++) {
            PlanAggregateKind kind = node->aggregate.calls[c].kind;
            if (kind == PLAN_AGGREGATE_MIN || kind == PLAN_AGGREGATE_MAX)
                return diag_error(context->diag, JOINERY_ERROR_UNSUPPORTED,
                                  "GroupWindowAggregate with MIN or MAX over an updating input "
                                  "(produced by node %s) is not supported yet",
                                  plan_kind_name(input->kind));
        }
    }
    node->changelog_mode = CHANGELOG_INSERT;
    node->row_count = cost_node_estimate(node);
    uint32_t key_count = node->aggregate.group_key_count;
    if (node->aggregate.group_window_properties && key_count <= 64) {
        uint32_t fields[66];
        for (uint32_t f = 0; f < key_count; f++)
            fields[f] = f;
        fields[key_count] = key_count + node->aggregate.call_count;
        fields[key_count + 1] = key_count + node->aggregate.call_count + 1;
        derive_add_unique_key(context->arena, node, fields, key_count + 2);
    }
    node->state_ttl_millis = 0; /* released when the window fires, never by TTL */
    return JOINERY_OK;
}

const PlanKindInfo plan_kind_group_window_aggregate = {
    .kind = PLAN_GROUP_WINDOW_AGGREGATE,
    .name = "GroupWindowAggregate",
    .physical = true,
    .stateful = true,
    .explain = explain_group_window_aggregate,
    .derive = derive_group_window_aggregate,
    .estimate = estimate_group_window_aggregate,
    .trace_field = trace_group_window_aggregate,
};

/* ---- conversion ---- */

static bool is_group_window_call(const Expr *expr)
{
    return expr && expr->kind == EXPR_CALL &&
           (expr->call.function == FUNCTION_GROUP_TUMBLE ||
            expr->call.function == FUNCTION_GROUP_HOP ||
            expr->call.function == FUNCTION_GROUP_SESSION);
}

int plan_group_window_key(const PlanNode *node)
{
    const PlanNode *input = node->inputs[0];
    if (input->kind != PLAN_LOGICAL_PROJECT && input->kind != PLAN_CALC)
        return -1;
    for (uint32_t i = 0; i < node->aggregate.group_key_count; i++)
        if (is_group_window_call(input->calc.projects[node->aggregate.group_keys[i]]))
            return (int)i;
    return -1;
}

/* The spec of $TUMBLE(time, size), $HOP(time, slide, size) or $SESSION(time, gap). */
static WindowSpec group_window_spec(const Expr *call)
{
    WindowSpec spec = {0};
    switch (call->call.function) {
    case FUNCTION_GROUP_TUMBLE:
        spec.kind = WINDOW_TUMBLE;
        spec.size_millis = call->call.args[1]->literal.i;
        break;
    case FUNCTION_GROUP_HOP:
        spec.kind = WINDOW_HOP;
        spec.slide_millis = call->call.args[1]->literal.i;
        spec.size_millis = call->call.args[2]->literal.i;
        break;
    default:
        spec.kind = WINDOW_SESSION;
        spec.gap_millis = call->call.args[1]->literal.i;
        break;
    }
    return spec;
}

int plan_convert_group_window_aggregate(PlannerContext *context, PlanNode *node, PlanNode **result)
{
    Arena *arena = context->arena;
    int window_key = plan_group_window_key(node);
    PlanNode *input = NULL;
    int status = physical_convert(context, node->inputs[0], &input);
    if (status != JOINERY_OK)
        return status;
    uint32_t window_field = node->aggregate.group_keys[window_key];
    if (input->kind != PLAN_CALC || !is_group_window_call(input->calc.projects[window_field]))
        return diag_error(context->diag, JOINERY_ERROR_UNSUPPORTED,
                          "group window aggregation over this input is not supported yet");
    const Expr *window = input->calc.projects[window_field];
    Expr *time = window->call.args[0];
    if (time->kind == EXPR_INPUT_REF &&
        interval_time_materialized(arena, input->inputs[0], time->input_index)) {
        char type[96];
        DataType plain = time->type;
        plain.time_attribute = TIME_ATTRIBUTE_NONE;
        return diag_error(context->diag, JOINERY_ERROR_VALIDATE,
                          "Window aggregate can only be defined over a time attribute column, "
                          "but %s encountered.",
                          expr_type_name(plain, false, type, sizeof type));
    }
    /* the Calc below: the time attribute where the window key was */
    uint32_t count = input->calc.project_count;
    Expr **projects = arena_calloc(arena, count + 1, sizeof(Expr *));
    PlanField *fields = arena_calloc(arena, count + 1, sizeof(PlanField));
    if (!projects || !fields)
        return JOINERY_ERROR_NO_MEMORY;
    memcpy(projects, input->calc.projects, count * sizeof(Expr *));
    memcpy(fields, input->fields, count * sizeof(PlanField));
    projects[window_field] = time;
    fields[window_field].type = time->type;
    if (time->kind == EXPR_INPUT_REF)
        fields[window_field].name = input->inputs[0]->fields[time->input_index].name;
    plan_uniquify_names(arena, fields, count);
    PlanNode *below =
        plan_make_calc(context, input->inputs[0], projects, count, fields, input->calc.condition);
    if (!below)
        return JOINERY_ERROR_NO_MEMORY;

    uint32_t group_count = node->aggregate.group_key_count;
    uint32_t call_count = node->aggregate.call_count;
    uint32_t *keys = arena_calloc(arena, group_count + 1, sizeof(uint32_t));
    uint32_t *key_of_group = arena_calloc(arena, group_count + 1, sizeof(uint32_t));
    if (!keys || !key_of_group)
        return JOINERY_ERROR_NO_MEMORY;
    uint32_t key_count = 0;
    for (uint32_t i = 0; i < group_count; i++) {
        if ((int)i == window_key)
            continue;
        key_of_group[i] = key_count;
        keys[key_count++] = node->aggregate.group_keys[i];
    }
    bool proctime = time->type.time_attribute == TIME_ATTRIBUTE_PROCTIME;
    PlanNode probe = {
        .aggregate = {.group_window_properties = node->aggregate.group_window_properties,
                      .proctime = proctime}};
    uint32_t which[4];
    uint32_t property_count = group_window_properties(&probe, which);
    uint32_t output_count = key_count + call_count + property_count;
    PlanNode *aggregate = physical_new_node(context, PLAN_GROUP_WINDOW_AGGREGATE, 1, output_count);
    if (!aggregate)
        return JOINERY_ERROR_NO_MEMORY;
    aggregate->inputs[0] = plan_make_exchange(context, below, keys, key_count);
    if (!aggregate->inputs[0])
        return JOINERY_ERROR_NO_MEMORY;
    aggregate->aggregate.group_keys = keys;
    aggregate->aggregate.group_key_count = key_count;
    aggregate->aggregate.calls = node->aggregate.calls;
    aggregate->aggregate.call_count = call_count;
    aggregate->aggregate.window = group_window_spec(window);
    aggregate->aggregate.time_field = window_field;
    aggregate->aggregate.proctime = proctime;
    aggregate->aggregate.group_window_properties = node->aggregate.group_window_properties;
    for (uint32_t k = 0; k < key_count; k++)
        aggregate->fields[k] = below->fields[keys[k]];
    for (uint32_t c = 0; c < call_count; c++)
        aggregate->fields[key_count + c] = node->fields[group_count + c];
    Expr *property_refs[4] = {0};
    for (uint32_t p = 0; p < property_count; p++) {
        DataType type = type_make_timestamp(TYPE_TIMESTAMP, 3, false);
        if (which[p] == 2)
            type.time_attribute = TIME_ATTRIBUTE_ROWTIME;
        if (which[p] == 3) {
            type = type_make_timestamp(TYPE_TIMESTAMP_LTZ, 3, false);
            type.time_attribute = TIME_ATTRIBUTE_PROCTIME;
        }
        uint32_t field = key_count + call_count + p;
        aggregate->fields[field].name = (char *)PROPERTY_NAMES[which[p]];
        aggregate->fields[field].type = type;
        property_refs[which[p]] = expr_make_input_ref(arena, field, type);
        if (!property_refs[which[p]])
            return JOINERY_ERROR_NO_MEMORY;
    }

    /* the Calc above: the LogicalAggregate's fields, the window key as $WINDOW(...) */
    Expr **order = arena_calloc(arena, node->field_count + 1, sizeof(Expr *));
    if (!order)
        return JOINERY_ERROR_NO_MEMORY;
    for (uint32_t i = 0; i < node->field_count; i++) {
        DataType type = node->fields[i].type;
        if ((int)i == window_key) {
            if (property_count) {
                Expr *args[4] = {property_refs[0], property_refs[1],
                                 property_refs[2] ? property_refs[2] : property_refs[0],
                                 property_refs[3]};
                order[i] = expr_make_call(arena, FUNCTION_WINDOW_PROPERTIES, type, args, 4);
            } else {
                /* no auxiliary function reads the window */
                type.nullable = true;
                order[i] = expr_make_literal(arena, type, value_null());
            }
        } else {
            uint32_t from = i < group_count ? key_of_group[i] : key_count + (i - group_count);
            order[i] = expr_make_input_ref(arena, from, type);
        }
        if (!order[i])
            return JOINERY_ERROR_NO_MEMORY;
    }
    *result = plan_make_calc(context, aggregate, order, node->field_count, node->fields, NULL);
    return *result ? JOINERY_OK : JOINERY_ERROR_NO_MEMORY;
}
