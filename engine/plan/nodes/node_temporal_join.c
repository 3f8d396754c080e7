/*
 * node_temporal_join.c - the event-time temporal join: `left JOIN versioned
 * FOR SYSTEM_TIME AS OF left.rowtime ON ...`.
 *
 * Logical (what the binder builds, as Calcite binds it and Flink's AST prints
 * it): LogicalCorrelate(correlation=[$cor0], joinType, requiredColumns) over
 * the left input and LogicalFilter(condition) over LogicalSnapshot(period)
 * over the versioned table; the filter's and the snapshot's expressions read
 * the left fields as $cor0.name. Only the correlate converts: the filter and
 * the snapshot are parts of it (their own conversion passes their input on,
 * which is what they are without the correlate).
 *
 * Physical: TemporalJoin(joinType, where, select) over Exchange(hash[keys])
 * of both inputs, as Flink's StreamPhysicalTemporalJoin. The ON condition
 * splits into equi keys (which must contain the versioned primary key),
 * conditions on the left only (INNER: a Calc below the left), on the
 * versioned side only (a Calc below the right, as Flink pushes them) and the
 * residual the operator evaluates. The versioned side gives changes as Flink
 * asks them (FlinkChangelogModeInferenceProgram: update-after only when it
 * can): an upsert source runs without ChangelogNormalize; a source with
 * update-before rows gets DropUpdateBefore above its scan unless a filter
 * sits between them (a filter needs the -U rows), and an upsert source under
 * a filter is rejected with Flink's reason. A temporal join is never fused
 * into a MultiJoin (it is not a LogicalJoin).
 */
#include <string.h>

#include "engine/connector/connector.h"
#include "engine/plan/cost.h"
#include "engine/plan/nodes/nodes.h"
#include "engine/plan/rules/rules.h"

enum { TEMPORAL_MAX_DEPTH = 64 };

/* ---------------------------------------------------------------- logical */

static const char *const *correlated_names(ExplainContext *context, const PlanNode *node,
                                           uint32_t right_count)
{
    uint32_t left_count = node->temporal.left_count;
    const char **names = arena_calloc(context->arena, left_count + right_count + 1, sizeof(char *));
    for (uint32_t i = 0; names && i < left_count; i++)
        names[i] = arena_printf(context->arena, "$cor0.%s", node->temporal.left_names[i]);
    for (uint32_t i = 0; names && i < right_count; i++)
        names[left_count + i] = arena_printf(context->arena, "$%u", i);
    return names;
}

static void explain_correlate(ExplainContext *context, const PlanNode *node)
{
    strbuf_printf(context->out, "correlation=[$cor0], joinType=[%s], requiredColumns=[{",
                  join_type_logical_name(node->temporal.join_type));
    for (uint32_t i = 0; i < node->temporal.required_count; i++)
        strbuf_printf(context->out, "%s%u", i ? ", " : "", node->temporal.required[i]);
    strbuf_append_cstr(context->out, "}]");
    if (node->temporal.lookup && node->temporal.lookup->hint_text)
        strbuf_printf(context->out, ", joinHints=%s", node->temporal.lookup->hint_text);
}

static void explain_correlate_filter(ExplainContext *context, const PlanNode *node)
{
    strbuf_append_cstr(context->out, "condition=[");
    explain_expr(context, node->temporal.condition,
                 correlated_names(context, node, node->field_count));
    strbuf_append_cstr(context->out, "]");
}

static void explain_snapshot(ExplainContext *context, const PlanNode *node)
{
    strbuf_printf(context->out, "period=[$cor0.%s]",
                  node->temporal.left_names[node->temporal.period_field]);
}

/* The filter and the snapshot are parts of their correlate: alone, they are their input. */
static int convert_part(PlannerContext *context, PlanNode *node, PlanNode **result)
{
    return physical_convert(context, node->inputs[0], result);
}

/*
 * Projection pruning: each side keeps what is read above, what the condition reads, the
 * period (left) and the rowtime and primary key (versioned side); the filter and the
 * snapshot are rebuilt over the pruned versioned side.
 */
static int prune_correlate(PlannerContext *context, PlanNode *node, uint64_t *used,
                           RulePruned *result)
{
    Arena *arena = context->arena;
    const PlanNode *filter = node->inputs[1];
    const PlanNode *snapshot = filter->inputs[0];
    uint32_t left_count = node->temporal.left_count;
    uint32_t right_count = node->field_count - left_count;
    uint64_t *all = rule_fields_copy(arena, used, node->field_count);
    if (!all)
        return JOINERY_ERROR_NO_MEMORY;
    rule_fields_add_expr(all, node->temporal.condition);
    /* a lookup join reads no time of the probe rows (Flink prunes it) */
    if (!node->temporal.lookup)
        rule_fields_add(all, node->temporal.period_field);
    if (!node->temporal.lookup)
        rule_fields_add(all, left_count + node->temporal.right_time_field);
    for (uint32_t k = 0; k < node->temporal.primary_key_count; k++)
        rule_fields_add(all, left_count + node->temporal.primary_key[k]);
    uint64_t *left_used = rule_fields_slice(arena, all, 0, left_count);
    uint64_t *right_used = rule_fields_slice(arena, all, left_count, right_count);
    if (!left_used || !right_used)
        return JOINERY_ERROR_NO_MEMORY;
    RulePruned left, right;
    int status = rule_prune_fields_of(context, node->inputs[0], left_used, &left);
    if (status == JOINERY_OK)
        status = rule_prune_fields_of(context, snapshot->inputs[0], right_used, &right);
    if (status != JOINERY_OK)
        return status;
    uint32_t new_left = left.node->field_count, new_right = right.node->field_count;
    int32_t *mapping = arena_calloc(arena, node->field_count + 1, sizeof(int32_t));
    PlanNode *correlate = plan_node_copy(arena, node);
    PlanNode *new_filter = plan_node_copy(arena, filter);
    PlanNode *new_snapshot = plan_node_copy(arena, snapshot);
    PlanField *fields = arena_calloc(arena, new_left + new_right + 1, sizeof(PlanField));
    const char **left_names = arena_calloc(arena, new_left + 1, sizeof(char *));
    uint32_t *required = arena_calloc(arena, node->temporal.required_count + 1, sizeof(uint32_t));
    uint32_t *primary_key =
        arena_calloc(arena, node->temporal.primary_key_count + 1, sizeof(uint32_t));
    if (!mapping || !correlate || !new_filter || !new_snapshot || !fields || !left_names ||
        !required || !primary_key)
        return JOINERY_ERROR_NO_MEMORY;
    for (uint32_t i = 0; i < left_count; i++)
        mapping[i] = left.mapping[i];
    for (uint32_t i = 0; i < right_count; i++)
        mapping[left_count + i] = right.mapping[i] < 0 ? -1 : (int32_t)new_left + right.mapping[i];
    rule_compact_fields(node->fields, node->field_count, mapping, fields);
    for (uint32_t i = 0; i < new_left; i++)
        left_names[i] = left.node->fields[i].name;
    Expr *condition = expr_remap_inputs(arena, node->temporal.condition, mapping);
    if (!condition)
        return JOINERY_ERROR_NO_MEMORY;
    uint32_t required_count = 0;
    for (uint32_t i = 0; i < node->temporal.required_count; i++)
        if (mapping[node->temporal.required[i]] >= 0)
            required[required_count++] = (uint32_t)mapping[node->temporal.required[i]];
    for (uint32_t k = 0; k < node->temporal.primary_key_count; k++)
        primary_key[k] = (uint32_t)right.mapping[node->temporal.primary_key[k]];
    PlanNode *nodes[3] = {correlate, new_filter, new_snapshot};
    for (int n = 0; n < 3; n++) {
        nodes[n]->temporal.condition = condition;
        int32_t period = mapping[node->temporal.period_field];
        nodes[n]->temporal.period_field = period < 0 ? 0 : (uint32_t)period;
        nodes[n]->temporal.left_names = left_names;
        nodes[n]->temporal.left_count = new_left;
        nodes[n]->temporal.required = required;
        nodes[n]->temporal.required_count = required_count;
        nodes[n]->temporal.right_time_field =
            node->temporal.lookup ? 0 : (uint32_t)right.mapping[node->temporal.right_time_field];
        nodes[n]->temporal.primary_key = primary_key;
    }
    new_snapshot->inputs[0] = right.node;
    new_snapshot->fields = fields + new_left;
    new_snapshot->field_count = new_right;
    new_filter->inputs[0] = new_snapshot;
    new_filter->fields = fields + new_left;
    new_filter->field_count = new_right;
    correlate->inputs[0] = left.node;
    correlate->inputs[1] = new_filter;
    correlate->fields = fields;
    correlate->field_count = new_left + new_right;
    result->node = correlate;
    result->mapping = mapping;
    return JOINERY_OK;
}

/* ---------------------------------------------------------------- conversion */

static Expr **identity_projects(Arena *arena, const PlanNode *input)
{
    Expr **projects = arena_calloc(arena, input->field_count + 1, sizeof(Expr *));
    for (uint32_t i = 0; projects && i < input->field_count; i++)
        projects[i] = expr_make_input_ref(arena, i, input->fields[i].type);
    return projects;
}

/* input with a Calc filtering on `conjuncts` (over its fields); NULL on no memory. */
static PlanNode *filter_side(PlannerContext *context, PlanNode *input, Expr **conjuncts,
                             uint32_t count)
{
    if (count == 0)
        return input;
    Expr **projects = identity_projects(context->arena, input);
    Expr *condition = expr_make_and(context->arena, conjuncts, count);
    if (!projects || !condition)
        return NULL;
    return plan_make_calc(context, input, projects, input->field_count, input->fields, condition);
}

static SourceChangelog scan_changelog(const PlanNode *scan)
{
    const Connector *connector =
        connector_find(catalog_table_option(scan->scan.table, "connector"));
    return connector && connector->source_changelog ? connector->source_changelog(scan->scan.table)
                                                    : SOURCE_CHANGELOG_INSERT_ONLY;
}

/*
 * The versioned side as Flink asks it for update-after rows (top of this file):
 * `*slot` is the converted right input, rewritten in place (its nodes are new).
 */
static int versioned_changes(PlannerContext *context, PlanNode **slot, bool filtered, int depth)
{
    PlanNode *node = *slot;
    if (depth > TEMPORAL_MAX_DEPTH)
        return diag_error(context->diag, JOINERY_ERROR_UNSUPPORTED,
                          "The versioned side of the temporal join is nested too deeply");
    switch (node->kind) {
    case PLAN_CALC:
        return versioned_changes(context, &node->inputs[0], filtered || node->calc.condition,
                                 depth + 1);
    case PLAN_WATERMARK_ASSIGNER:
    case PLAN_EXCHANGE:
        return versioned_changes(context, &node->inputs[0], filtered, depth + 1);
    case PLAN_DEDUPLICATE:
        /* a versioned view: its updates as upserts, unless a filter needs the -U rows */
        node->rank.generate_update_before = filtered;
        return JOINERY_OK;
    case PLAN_CHANGELOG_NORMALIZE: {
        /* an upsert source: the join takes its upserts as they are */
        if (filtered)
            return diag_error(context->diag, JOINERY_ERROR_UNSUPPORTED,
                              "Filter is not allowed for right changelog input of event time "
                              "temporal join, it will corrupt the versioning of data.");
        PlanNode *below = node->inputs[0];
        *slot = below->kind == PLAN_EXCHANGE ? below->inputs[0] : below;
        return JOINERY_OK;
    }
    case PLAN_TABLE_SOURCE_SCAN: {
        if (scan_changelog(node) != SOURCE_CHANGELOG_ALL || filtered)
            return JOINERY_OK;
        PlanNode *drop = physical_new_node(context, PLAN_DROP_UPDATE_BEFORE, 1, node->field_count);
        if (!drop)
            return JOINERY_ERROR_NO_MEMORY;
        drop->inputs[0] = node;
        memcpy(drop->fields, node->fields, node->field_count * sizeof(PlanField));
        *slot = drop;
        return JOINERY_OK;
    }
    default:
        return JOINERY_OK;
    }
}

/* Which inputs a conjunct reads: bit 0 = left fields, bit 1 = right fields. */
static unsigned conjunct_sides(const Expr *expr, uint32_t left_count, uint32_t total)
{
    uint64_t used[16] = {0};
    if (total > 64 * 16)
        return 3;
    expr_collect_inputs(expr, used);
    unsigned sides = 0;
    for (uint32_t i = 0; i < total; i++)
        if ((used[i / 64] >> (i % 64)) & 1)
            sides |= i < left_count ? 1u : 2u;
    return sides;
}

/* "[amount=rate]": the equalities of a condition as Calcite's JoinInfo prints them. */
static const char *condition_pairs_text(PlannerContext *context, Expr **conjuncts, uint32_t count,
                                        const PlanNode *node)
{
    StrBuf text = STRBUF_INIT;
    strbuf_append_char(&text, '[');
    bool first = true;
    for (uint32_t i = 0; i < count; i++) {
        const Expr *c = conjuncts[i];
        if (c->kind != EXPR_CALL || c->call.function != FUNCTION_EQUAL ||
            c->call.args[0]->kind != EXPR_INPUT_REF || c->call.args[1]->kind != EXPR_INPUT_REF)
            continue;
        strbuf_printf(&text, "%s%s=%s", first ? "" : ", ",
                      node->fields[c->call.args[0]->input_index].name,
                      node->fields[c->call.args[1]->input_index].name);
        first = false;
    }
    strbuf_append_char(&text, ']');
    const char *result = arena_strdup(context->arena, strbuf_cstr(&text));
    strbuf_free(&text);
    return result;
}

static int convert_correlate(PlannerContext *context, PlanNode *node, PlanNode **result)
{
    if (node->temporal.lookup)
        return plan_convert_lookup_join(context, node, result);
    Arena *arena = context->arena;
    const PlanNode *filter = node->inputs[1];
    const PlanNode *snapshot = filter->inputs[0];
    PlanNode *left, *right;
    int status = physical_convert(context, node->inputs[0], &left);
    if (status == JOINERY_OK)
        status = physical_convert(context, snapshot->inputs[0], &right);
    if (status != JOINERY_OK)
        return status;
    uint32_t left_count = left->field_count, right_count = right->field_count;
    uint32_t total = left_count + right_count;
    if (left_count != node->temporal.left_count || total != node->field_count)
        return diag_error(context->diag, JOINERY_ERROR, "temporal join: inputs changed shape");
    /* the versioned side's rowtime (the binder checked the table has one, and its key) */
    uint32_t time_field = node->temporal.right_time_field;
    if (time_field >= right_count ||
        right->fields[time_field].type.time_attribute != TIME_ATTRIBUTE_ROWTIME)
        return diag_error(context->diag, JOINERY_ERROR_VALIDATE,
                          "Event-Time Temporal Table Join requires both primary key and row time "
                          "attribute in versioned table, but no row time attribute can be "
                          "found.");
    if (left->fields[node->temporal.period_field].type.time_attribute != TIME_ATTRIBUTE_ROWTIME)
        return diag_error(context->diag, JOINERY_ERROR_VALIDATE,
                          "Temporal table join currently only supports 'FOR SYSTEM_TIME AS OF' "
                          "left table's time attribute field");
    TypeId left_type = left->fields[node->temporal.period_field].type.id;
    TypeId right_type = right->fields[time_field].type.id;
    if (left_type != right_type)
        return diag_error(context->diag, JOINERY_ERROR_VALIDATE,
                          "Event-Time Temporal Table Join requires same rowtime type in left "
                          "table and versioned table, but the rowtime types are %s *ROWTIME* and "
                          "%s *ROWTIME*.",
                          left_type == TYPE_TIMESTAMP_LTZ ? "TIMESTAMP_LTZ(3)" : "TIMESTAMP(3)",
                          right_type == TYPE_TIMESTAMP_LTZ ? "TIMESTAMP_LTZ(3)" : "TIMESTAMP(3)");
    const uint32_t *primary_key = node->temporal.primary_key;
    uint32_t primary_key_count = node->temporal.primary_key_count;

    /* split the ON condition */
    RuleConjuncts split = {0};
    if (rule_split_conjuncts(arena, node->temporal.condition, &split) != JOINERY_OK)
        return JOINERY_ERROR_NO_MEMORY;
    uint32_t n = split.count;
    uint32_t *left_keys = arena_calloc(arena, n + 1, sizeof(uint32_t));
    uint32_t *right_keys = arena_calloc(arena, n + 1, sizeof(uint32_t));
    Expr **equi = arena_calloc(arena, n + 1, sizeof(Expr *));
    Expr **residual = arena_calloc(arena, n + 1, sizeof(Expr *));
    Expr **left_only = arena_calloc(arena, n + 1, sizeof(Expr *));
    Expr **right_only = arena_calloc(arena, n + 1, sizeof(Expr *));
    int32_t *to_right = arena_calloc(arena, total + 1, sizeof(int32_t));
    if (!left_keys || !right_keys || !equi || !residual || !left_only || !right_only || !to_right)
        return JOINERY_ERROR_NO_MEMORY;
    for (uint32_t i = 0; i < total; i++)
        to_right[i] = i < left_count ? -1 : (int32_t)(i - left_count);
    uint32_t key_count = 0, residual_count = 0, left_only_count = 0, right_only_count = 0;
    for (uint32_t i = 0; i < n; i++) {
        Expr *c = split.items[i];
        if (c->kind == EXPR_CALL && c->call.function == FUNCTION_EQUAL && c->call.arg_count == 2 &&
            c->call.args[0]->kind == EXPR_INPUT_REF && c->call.args[1]->kind == EXPR_INPUT_REF) {
            uint32_t a = c->call.args[0]->input_index, b = c->call.args[1]->input_index;
            if (a < left_count && b >= left_count) {
                left_keys[key_count] = a;
                right_keys[key_count] = b - left_count;
                equi[key_count++] = c;
                continue;
            }
            if (b < left_count && a >= left_count) {
                Expr *pair[2] = {c->call.args[1], c->call.args[0]};
                left_keys[key_count] = b;
                right_keys[key_count] = a - left_count;
                equi[key_count++] = expr_make_call(arena, FUNCTION_EQUAL, c->type, pair, 2);
                continue;
            }
        }
        unsigned sides = conjunct_sides(c, left_count, total);
        if (sides == 1 && node->temporal.join_type == JOIN_TYPE_INNER && expr_is_deterministic(c))
            left_only[left_only_count++] = c;
        else if (sides == 2 && expr_is_deterministic(c))
            right_only[right_only_count++] = expr_remap_inputs(arena, c, to_right);
        else
            residual[residual_count++] = c;
    }
    /* the primary key must be among the equi keys */
    for (uint32_t k = 0; k < primary_key_count; k++) {
        bool found = false;
        for (uint32_t j = 0; j < key_count; j++)
            found |= right_keys[j] == primary_key[k];
        if (found)
            continue;
        StrBuf keys = STRBUF_INIT;
        for (uint32_t p = 0; p < primary_key_count; p++)
            strbuf_printf(&keys, "%s%s", p ? ", " : "",
                          node->fields[left_count + primary_key[p]].name);
        status =
            diag_error(context->diag, JOINERY_ERROR_VALIDATE,
                       "Temporal table's primary key [%s] must be included in the "
                       "equivalence condition of temporal join, but current temporal join "
                       "condition is %s.",
                       strbuf_cstr(&keys), condition_pairs_text(context, split.items, n, node));
        strbuf_free(&keys);
        return status;
    }
    left = filter_side(context, left, left_only, left_only_count);
    right = filter_side(context, right, right_only, right_only_count);
    if (!left || !right)
        return JOINERY_ERROR_NO_MEMORY;
    status = versioned_changes(context, &right, false, 0);
    if (status != JOINERY_OK)
        return status;

    PlanNode *join = physical_new_node(context, PLAN_TEMPORAL_JOIN, 2, total);
    if (!join)
        return JOINERY_ERROR_NO_MEMORY;
    join->temporal = node->temporal;
    join->temporal.left_keys = left_keys;
    join->temporal.right_keys = right_keys;
    join->temporal.key_count = key_count;
    join->temporal.residual =
        residual_count ? expr_make_and(arena, residual, residual_count) : NULL;
    Expr **printed = arena_calloc(arena, key_count + residual_count + 1, sizeof(Expr *));
    if (!printed)
        return JOINERY_ERROR_NO_MEMORY;
    memcpy(printed, equi, key_count * sizeof(Expr *));
    memcpy(printed + key_count, residual, residual_count * sizeof(Expr *));
    join->temporal.condition = expr_make_and(arena, printed, key_count + residual_count);
    bool right_nullable = node->temporal.join_type == JOIN_TYPE_LEFT;
    for (uint32_t i = 0; i < total; i++) {
        join->fields[i] = i < left_count ? left->fields[i] : right->fields[i - left_count];
        join->fields[i].name = node->fields[i].name;
        if (i >= left_count) {
            /* the versioned side's rowtime is a plain timestamp above the join (Flink) */
            join->fields[i].type.time_attribute = TIME_ATTRIBUTE_NONE;
            join->fields[i].type.nullable |= right_nullable;
        }
    }
    join->inputs[0] = plan_make_exchange(context, left, left_keys, key_count);
    join->inputs[1] = plan_make_exchange(context, right, right_keys, key_count);
    if (!join->inputs[0] || !join->inputs[1])
        return JOINERY_ERROR_NO_MEMORY;
    *result = join;
    return JOINERY_OK;
}

/* ---------------------------------------------------------------- physical */

static void explain_key_call(ExplainContext *context, const char *name, const PlanNode *node,
                             const uint32_t *fields, uint32_t count, uint32_t offset)
{
    strbuf_printf(context->out, ", %s(", name);
    for (uint32_t i = 0; i < count; i++)
        strbuf_printf(context->out, "%s%s", i ? ", " : "", node->fields[offset + fields[i]].name);
    strbuf_append_cstr(context->out, ")");
}

static void explain_temporal_join(ExplainContext *context, const PlanNode *node)
{
    StrBuf *out = context->out;
    bool infix = context->style == EXPR_STYLE_INFIX;
    uint32_t left_count = node->inputs[0]->field_count;
    const char *const *names = plan_join_input_names(context->arena, node);
    strbuf_printf(out, "joinType=[%s], where=[%s", join_type_name(node->temporal.join_type),
                  infix ? "(" : "AND(");
    RuleConjuncts split = {0};
    rule_split_conjuncts(context->arena, node->temporal.condition, &split);
    for (uint32_t i = 0; i < split.count; i++) {
        explain_expr(context, split.items[i], names);
        strbuf_append_cstr(out, infix ? " AND " : ", ");
    }
    strbuf_printf(out, "__TEMPORAL_JOIN_CONDITION(%s, %s",
                  node->fields[node->temporal.period_field].name,
                  node->fields[left_count + node->temporal.right_time_field].name);
    explain_key_call(context, "__TEMPORAL_JOIN_CONDITION_PRIMARY_KEY", node,
                     node->temporal.primary_key, node->temporal.primary_key_count, left_count);
    explain_key_call(context, "__TEMPORAL_JOIN_LEFT_KEY", node, node->temporal.left_keys,
                     node->temporal.key_count, 0);
    explain_key_call(context, "__TEMPORAL_JOIN_RIGHT_KEY", node, node->temporal.right_keys,
                     node->temporal.key_count, left_count);
    strbuf_append_cstr(out, "))], select=[");
    explain_field_list(context, node);
    strbuf_append_cstr(out, "]");
}

static int derive_temporal_join(PlannerContext *context, PlanNode *node)
{
    const PlanNode *left = node->inputs[0];
    if (context->config->state_ttl_millis > 0)
        return diag_error(context->diag, JOINERY_ERROR_UNSUPPORTED,
                          "'table.exec.state.ttl' is not supported by the temporal join yet: "
                          "its state is freed by the watermark; reset the option for this query");
    /* every left row is emitted once, with its own kind (Flink's operator) */
    node->changelog_mode = left->changelog_mode;
    node->row_count = cost_node_rows(left);
    for (uint32_t k = 0; k < left->unique_key_count; k++)
        derive_add_unique_key(context->arena, node, left->unique_keys[k].fields,
                              left->unique_keys[k].count);
    node->state_ttl_millis = node->state_ttl_right_millis = 0;
    return JOINERY_OK;
}

static double estimate_temporal_join(const PlanNode *node)
{
    return cost_node_rows(node->inputs[0]);
}

static bool temporal_join_calls_current_watermark(const PlanNode *node)
{
    return expr_calls(node->temporal.condition, FUNCTION_CURRENT_WATERMARK);
}

const PlanKindInfo plan_kind_logical_correlate = {
    .kind = PLAN_LOGICAL_CORRELATE,
    .name = "LogicalCorrelate",
    .explain = explain_correlate,
    .convert = convert_correlate,
    .prune_fields = prune_correlate,
};

const PlanKindInfo plan_kind_logical_correlate_filter = {
    .kind = PLAN_LOGICAL_CORRELATE_FILTER,
    .name = "LogicalFilter",
    .explain = explain_correlate_filter,
    .convert = convert_part,
};

const PlanKindInfo plan_kind_logical_snapshot = {
    .kind = PLAN_LOGICAL_SNAPSHOT,
    .name = "LogicalSnapshot",
    .explain = explain_snapshot,
    .convert = convert_part,
};

const PlanKindInfo plan_kind_temporal_join = {
    .kind = PLAN_TEMPORAL_JOIN,
    .name = "TemporalJoin",
    .physical = true,
    .stateful = true,
    .explain = explain_temporal_join,
    .derive = derive_temporal_join,
    .estimate = estimate_temporal_join,
    .trace_field = cost_trace_to_inputs,
    .calls_current_watermark = temporal_join_calls_current_watermark,
};
