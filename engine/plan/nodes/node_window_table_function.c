/*
 * node_window_table_function.c - LogicalTableFunctionScan of a window table
 * function (TUMBLE, HOP, CUMULATE, SESSION; the binder's bind_window.c) and
 * WindowTableFunction, Flink's StreamPhysicalWindowTableFunction: every
 * input row goes out once per window it belongs to, with window_start,
 * window_end and window_time (window_end - 1 ms) appended.
 *
 * Invariants: the node's fields are its input's, then window_start,
 * window_end, window_time; window.time_field is an input field holding a
 * rowtime attribute; the input is insert-only (derive rejects updates, as
 * Flink does). SESSION windows are known only once merged: a SESSION call
 * becomes its own physical kind, printed WindowTableFunction too, stateful
 * (rows kept per partition key until their session ends: Flink's unaligned
 * window table function operator), over Exchange(hash[partition keys]) or
 * Exchange(single).
 */
#include "engine/plan/cost.h"
#include "engine/plan/nodes/nodes.h"

/* "DESCRIPTOR($4), 900000:INTERVAL MINUTE" as Flink's AST prints the call. */
static void explain_logical_window(ExplainContext *context, const PlanNode *node)
{
    StrBuf *out = context->out;
    const char *const *names = explain_input_names(context, node);
    strbuf_printf(out, "invocation=[%s(", window_kind_name(node->window.spec.kind));
    if (node->window.partition_key_count) {
        strbuf_append_cstr(out, "PARTITION BY(");
        for (uint32_t i = 0; i < node->window.partition_key_count; i++)
            strbuf_printf(out, "%s%s", i ? ", " : "", names[node->window.partition_keys[i]]);
        strbuf_append_cstr(out, "), ");
    }
    strbuf_printf(out, "DESCRIPTOR(%s)", names[node->window.time_field]);
    for (uint32_t i = 0; i < node->window.argument_count; i++) {
        strbuf_append_cstr(out, ", ");
        explain_expr(context, node->window.arguments[i], names);
    }
    strbuf_append_cstr(out, ")], rowType=[RecordType(");
    for (uint32_t f = 0; f < node->field_count; f++) {
        /* Calcite's names without NOT NULL or character set, as Flink's rowType here; a
           TIMESTAMP_LTZ time attribute prints as Flink's TimeIndicatorRelDataType does */
        char type[96];
        DataType shown = node->fields[f].type;
        shown.nullable = true;
        bool ltz_attribute =
            shown.id == TYPE_TIMESTAMP_LTZ && shown.time_attribute != TIME_ATTRIBUTE_NONE;
        unsigned flags = TYPE_FORMAT_TIME_ATTRIBUTE | (ltz_attribute ? 0 : TYPE_FORMAT_CALCITE);
        strbuf_printf(out, "%s%s %s", f ? ", " : "",
                      type_format_as(shown, flags, type, sizeof type), node->fields[f].name);
    }
    strbuf_append_cstr(out, ")]");
}

static void explain_window(ExplainContext *context, const PlanNode *node)
{
    StrBuf *out = context->out;
    const PlanNode *input = node->inputs[0];
    strbuf_printf(out, "window=[%s(time_col=[%s]", window_kind_name(node->window.spec.kind),
                  input->fields[node->window.time_field].name);
    window_spec_append_lengths(out, &node->window.spec, true);
    if (node->window.partition_key_count) {
        strbuf_append_cstr(out, ", partition keys=[");
        for (uint32_t i = 0; i < node->window.partition_key_count; i++)
            strbuf_printf(out, "%s%s", i ? ", " : "",
                          input->fields[node->window.partition_keys[i]].name);
        strbuf_append_cstr(out, "]");
    }
    strbuf_append_cstr(out, ")]");
}

/* SESSION: over Exchange(hash[partition keys]), single without them, as Flink plans it. */
static int convert_window(PlannerContext *context, PlanNode *node, PlanNode **result)
{
    if (node->window.spec.kind != WINDOW_SESSION)
        return physical_convert_twin(context, node, PLAN_WINDOW_TABLE_FUNCTION, result);
    PlanNode *input = NULL;
    int status = physical_convert(context, node->inputs[0], &input);
    if (status != JOINERY_OK)
        return status;
    PlanNode *session = physical_copy_as(context, node, PLAN_SESSION_WINDOW_TABLE_FUNCTION);
    if (!session)
        return JOINERY_ERROR_NO_MEMORY;
    session->inputs[0] = plan_make_exchange(context, input, node->window.partition_keys,
                                            node->window.partition_key_count);
    if (!session->inputs[0])
        return JOINERY_ERROR_NO_MEMORY;
    *result = session;
    return JOINERY_OK;
}

/* Rows out per row in: one per window a time falls into. */
static double window_fan_out(const WindowSpec *spec)
{
    switch (spec->kind) {
    case WINDOW_HOP:
        return (double)spec->size_millis / (double)spec->slide_millis;
    case WINDOW_CUMULATE:
        return (double)spec->size_millis / (double)spec->step_millis / 2.0 + 0.5;
    case WINDOW_TUMBLE:
    case WINDOW_SESSION:
        break;
    }
    return 1.0;
}

static double estimate_window(const PlanNode *node)
{
    return cost_node_rows(node->inputs[0]) * window_fan_out(&node->window.spec);
}

static int derive_window(PlannerContext *context, PlanNode *node)
{
    const PlanNode *input = node->inputs[0];
    if (input->changelog_mode != CHANGELOG_INSERT)
        return diag_error(context->diag, JOINERY_ERROR_UNSUPPORTED,
                          "WindowTableFunction doesn't support consuming update and delete "
                          "changes which is produced by node %s",
                          plan_kind_name(input->kind));
    node->changelog_mode = CHANGELOG_INSERT;
    node->row_count = cost_node_estimate(node);
    /* a TUMBLE row goes out once: the input's unique keys stay unique */
    if (node->window.spec.kind == WINDOW_TUMBLE)
        for (uint32_t k = 0; k < input->unique_key_count; k++)
            derive_add_unique_key(context->arena, node, input->unique_keys[k].fields,
                                  input->unique_keys[k].count);
    return JOINERY_OK;
}

/* The input's fields pass through; the window columns are computed. */
static const PlanNode *trace_window(const PlanNode *node, uint32_t *field)
{
    if (*field >= node->inputs[0]->field_count)
        return NULL;
    return node->inputs[0];
}

/* The table function reads its time attribute and partition keys besides what is used. */
static uint64_t *window_input_fields_used(Arena *arena, const PlanNode *node, uint32_t input,
                                          const uint64_t *used)
{
    uint64_t *fields = rule_fields_copy(arena, used, node->inputs[input]->field_count);
    if (fields) {
        rule_fields_add(fields, node->window.time_field);
        for (uint32_t i = 0; i < node->window.partition_key_count; i++)
            rule_fields_add(fields, node->window.partition_keys[i]);
    }
    return fields;
}

/*
 * The input keeps what is read above, the time attribute and the partition keys; the
 * window columns stay (the table function appends all three); what only the function
 * reads is projected away right above it.
 */
static int prune_window(PlannerContext *context, PlanNode *node, uint64_t *used, RulePruned *result)
{
    Arena *arena = context->arena;
    uint32_t input_count = node->inputs[0]->field_count;
    uint64_t *needed = window_input_fields_used(arena, node, 0, used);
    if (!needed)
        return JOINERY_ERROR_NO_MEMORY;
    RulePruned input;
    PlanNode *window;
    int status = rule_prune_input(context, node, needed, &window, &input);
    if (status != JOINERY_OK)
        return status;
    uint32_t kept = input.node->field_count;
    int32_t *mapping = arena_calloc(arena, node->field_count + 1, sizeof(int32_t));
    window->field_count = kept + 3;
    window->fields = arena_calloc(arena, kept + 4, sizeof(PlanField));
    window->window.partition_keys =
        arena_calloc(arena, node->window.partition_key_count + 1, sizeof(uint32_t));
    if (!mapping || !window->fields || !window->window.partition_keys)
        return JOINERY_ERROR_NO_MEMORY;
    for (uint32_t i = 0; i < input_count; i++)
        mapping[i] = input.mapping[i];
    for (uint32_t i = 0; i < 3; i++)
        mapping[input_count + i] = (int32_t)(kept + i);
    rule_compact_fields(node->fields, node->field_count, mapping, window->fields);
    window->window.time_field = (uint32_t)input.mapping[node->window.time_field];
    for (uint32_t i = 0; i < node->window.partition_key_count; i++)
        window->window.partition_keys[i] = (uint32_t)input.mapping[node->window.partition_keys[i]];
    return rule_project_used(context, window, node->field_count, used, mapping, result);
}

const PlanKindInfo plan_kind_logical_table_function_scan = {
    .kind = PLAN_LOGICAL_TABLE_FUNCTION_SCAN,
    .name = "LogicalTableFunctionScan",
    .explain = explain_logical_window,
    .convert = convert_window,
    .estimate = estimate_window,
    .trace_field = trace_window,
    .prune_fields = prune_window,
    .input_fields_used = window_input_fields_used,
};

const PlanKindInfo plan_kind_window_table_function = {
    .kind = PLAN_WINDOW_TABLE_FUNCTION,
    .name = "WindowTableFunction",
    .physical = true,
    .explain = explain_window,
    .derive = derive_window,
    .estimate = estimate_window,
    .trace_field = trace_window,
};

const PlanKindInfo plan_kind_session_window_table_function = {
    .kind = PLAN_SESSION_WINDOW_TABLE_FUNCTION,
    .name = "WindowTableFunction",
    .physical = true,
    .stateful = true,
    .explain = explain_window,
    .derive = derive_window,
    .estimate = estimate_window,
    .trace_field = trace_window,
};
