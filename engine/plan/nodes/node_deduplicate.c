/*
 * node_deduplicate.c - ROW_NUMBER() (RANK(), DENSE_RANK()) OVER (PARTITION BY
 * p ORDER BY s [DESC], ...) and the Deduplicate it becomes.
 *
 * Logical: a SELECT with a rank function OVER binds to one node that Calcite
 * prints as LogicalProject(..., rn=[ROW_NUMBER() OVER (PARTITION BY $0 ORDER
 * BY $2 DESC NULLS LAST)]). Filters never move below it (they would change
 * which rows are numbered); the conjuncts comparing the rank with an integer
 * literal (rn <= 3, rn < 4, rn = 2, 3 >= rn, rn > 1, BETWEEN's halves) are
 * taken in as its range [rank_start, rank_end], as Flink's Rank takes its
 * range; the others stay in a filter above.
 *
 * Physical: ROW_NUMBER ranked 1..1 on a time attribute alone (over an
 * append-only input) is Flink's Deduplicate (keep=[LastRow] for DESC,
 * [FirstRow] for ASC, over Exchange(hash[partition])); a Calc above gives
 * the SELECT items with rn as the constant 1. The physical plan section
 * prints it as Flink's Rank (strategy=[AppendFastStrategy], ...), the
 * execution plan as Deduplicate (order=[ROWTIME]). On a processing-time
 * attribute it is the same node with order=[PROCTIME] (arrival order); its
 * keep-first form only inserts. Everything else is a Rank
 * (nodes/node_rank.c). No
 * upper bound on the rank is Flink's "Rank end is not specified" error; no
 * filter at all an OVER aggregate (not supported yet).
 */
#include <string.h>

#include "engine/plan/cost.h"
#include "engine/plan/nodes/nodes.h"
#include "engine/plan/rules/rules.h"
#include "engine/plan/window_properties.h"

/* ---------------------------------------------------------------- logical */

static const char *const RANK_FUNCTION_NAMES[] = {"ROW_NUMBER", "RANK", "DENSE_RANK"};

static void explain_row_number(ExplainContext *context, const PlanNode *node)
{
    const char *const *names = explain_input_names(context, node);
    StrBuf *out = context->out;
    for (uint32_t i = 0; i < node->rank.project_count; i++) {
        strbuf_printf(out, "%s%s=[", i ? ", " : "", node->fields[i].name);
        if (i != node->rank.number_field) {
            explain_expr(context, node->rank.projects[i], names);
        } else {
            strbuf_printf(out, "%s() OVER (", RANK_FUNCTION_NAMES[node->rank.function]);
            if (node->rank.partition_count) {
                strbuf_append_cstr(out, "PARTITION BY ");
                for (uint32_t k = 0; k < node->rank.partition_count; k++)
                    strbuf_printf(out, "%s%s", k ? ", " : "", names[node->rank.partition[k]]);
                strbuf_append_char(out, ' ');
            }
            strbuf_append_cstr(out, "ORDER BY ");
            for (uint32_t k = 0; k < node->rank.order_count; k++) {
                bool descending = node->rank.order_descending[k];
                bool nulls_first = node->rank.order_nulls_first[k];
                strbuf_printf(out, "%s%s%s%s", k ? ", " : "", names[node->rank.order_fields[k]],
                              descending ? " DESC" : "",
                              nulls_first ? " NULLS FIRST" : " NULLS LAST");
            }
            strbuf_append_cstr(out, ")");
        }
        strbuf_append_cstr(out, "]");
    }
}

/* An integer literal (through an implicit cast), in *value. */
static bool integer_literal(const Expr *expr, int64_t *value)
{
    if (expr->kind == EXPR_CALL && expr->call.function == FUNCTION_CAST && expr->call.implicit)
        expr = expr->call.args[0];
    if (expr->kind != EXPR_LITERAL || expr->literal.is_null || !type_is_integer(expr->type.id))
        return false;
    *value = expr->literal.i;
    return true;
}

/* True for rn = 1, 1 = rn, rn <= 1, rn < 2 on the row number field. */
static bool is_first_rank(const Expr *conjunct, uint32_t number_field)
{
    if (conjunct->kind != EXPR_CALL || conjunct->call.arg_count != 2)
        return false;
    const Expr *a = conjunct->call.args[0], *b = conjunct->call.args[1];
    int64_t value;
    FunctionOrder order = function_info(conjunct->call.function)->order;
    if (order == FUNCTION_ORDER_EQUAL && b->kind == EXPR_INPUT_REF &&
        b->input_index == number_field && integer_literal(a, &value))
        return value == 1;
    if (a->kind != EXPR_INPUT_REF || a->input_index != number_field || !integer_literal(b, &value))
        return false;
    return (order == FUNCTION_ORDER_EQUAL && value == 1) ||
           (order == FUNCTION_ORDER_LESS_EQUAL && value == 1) ||
           (order == FUNCTION_ORDER_LESS && value == 2);
}

bool plan_is_first_rank_condition(const Expr *condition, uint32_t number_field)
{
    if (!condition)
        return false;
    if (condition->kind == EXPR_CALL && condition->call.function == FUNCTION_AND) {
        for (uint32_t i = 0; i < condition->call.arg_count; i++)
            if (is_first_rank(condition->call.args[i], number_field))
                return true;
        return false;
    }
    return is_first_rank(condition, number_field);
}

/*
 * Narrows [*start, *end] by a comparison of the rank field with an integer literal (rn <= 3,
 * 3 >= rn, rn = 2, rn > 1, ...); false when the conjunct is not one (it stays above).
 */
static bool take_rank_bound(const Expr *conjunct, uint32_t number_field, int64_t *start,
                            int64_t *end)
{
    if (conjunct->kind != EXPR_CALL || conjunct->call.arg_count != 2)
        return false;
    const Expr *a = conjunct->call.args[0], *b = conjunct->call.args[1];
    FunctionOrder order = function_info(conjunct->call.function)->order;
    int64_t value;
    if (b->kind == EXPR_INPUT_REF && b->input_index == number_field && integer_literal(a, &value)) {
        /* literal on the left: mirror the comparison */
        switch (order) {
        case FUNCTION_ORDER_LESS:
            order = FUNCTION_ORDER_GREATER;
            break;
        case FUNCTION_ORDER_LESS_EQUAL:
            order = FUNCTION_ORDER_GREATER_EQUAL;
            break;
        case FUNCTION_ORDER_GREATER:
            order = FUNCTION_ORDER_LESS;
            break;
        case FUNCTION_ORDER_GREATER_EQUAL:
            order = FUNCTION_ORDER_LESS_EQUAL;
            break;
        default:
            break;
        }
    } else if (!(a->kind == EXPR_INPUT_REF && a->input_index == number_field &&
                 integer_literal(b, &value))) {
        return false;
    }
    switch (order) {
    case FUNCTION_ORDER_EQUAL:
        *start = value > *start ? value : *start;
        *end = value < *end ? value : *end;
        return true;
    case FUNCTION_ORDER_LESS_EQUAL:
        *end = value < *end ? value : *end;
        return true;
    case FUNCTION_ORDER_LESS:
        *end = value - 1 < *end ? value - 1 : *end;
        return true;
    case FUNCTION_ORDER_GREATER_EQUAL:
        *start = value > *start ? value : *start;
        return true;
    case FUNCTION_ORDER_GREATER:
        *start = value + 1 > *start ? value + 1 : *start;
        return true;
    default:
        return false;
    }
}

/* Takes the bounds among `conjunct` (an AND's parts one by one) into the range; the rest is
   added to `above`. */
static int take_rank_bounds(Arena *arena, Expr *conjunct, uint32_t number_field, int64_t *start,
                            int64_t *end, RuleConjuncts *above)
{
    if (conjunct->kind == EXPR_CALL && conjunct->call.function == FUNCTION_AND) {
        for (uint32_t i = 0; i < conjunct->call.arg_count; i++)
            if (take_rank_bounds(arena, conjunct->call.args[i], number_field, start, end, above) !=
                JOINERY_OK)
                return JOINERY_ERROR_NO_MEMORY;
        return JOINERY_OK;
    }
    if (take_rank_bound(conjunct, number_field, start, end))
        return JOINERY_OK;
    return rule_conjuncts_add(arena, above, conjunct);
}

static int push_row_number(PlannerContext *context, PlanNode *node, RuleConjuncts *conjuncts,
                           PlanNode **result)
{
    PlanNode *copy = plan_node_copy(context->arena, node);
    if (!copy)
        return JOINERY_ERROR_NO_MEMORY;
    RuleConjuncts above = {0};
    int64_t start = node->rank.rank_start,
            end = node->rank.rank_end ? node->rank.rank_end : INT64_MAX;
    for (uint32_t i = 0; i < conjuncts->count; i++) {
        if (node->rank.number_field == UINT32_MAX) {
            if (rule_conjuncts_add(context->arena, &above, conjuncts->items[i]) != JOINERY_OK)
                return JOINERY_ERROR_NO_MEMORY;
            continue;
        }
        if (take_rank_bounds(context->arena, conjuncts->items[i], node->rank.number_field, &start,
                             &end, &above) != JOINERY_OK)
            return JOINERY_ERROR_NO_MEMORY;
    }
    copy->rank.rank_start = start;
    copy->rank.rank_end = end == INT64_MAX ? 0 : end;
    RuleConjuncts none = {0};
    int status = rule_push_filters_into(context, node->inputs[0], &none, &copy->inputs[0]);
    if (status != JOINERY_OK)
        return status;
    *result = rule_filter_above(context, copy, &above);
    return *result ? JOINERY_OK : JOINERY_ERROR_NO_MEMORY;
}

/* Projection pruning: the SELECT items read above are kept (the row number too, when read);
   its input keeps what they, PARTITION BY and ORDER BY read. */
static int prune_row_number(PlannerContext *context, PlanNode *node, uint64_t *used,
                            RulePruned *result)
{
    Arena *arena = context->arena;
    uint32_t input_count = node->inputs[0]->field_count;
    uint64_t *input_used = rule_fields_new(arena, input_count);
    int32_t *mapping = arena_calloc(arena, node->field_count + 1, sizeof(int32_t));
    if (!input_used || !mapping)
        return JOINERY_ERROR_NO_MEMORY;
    for (uint32_t k = 0; k < node->rank.partition_count; k++)
        rule_fields_add(input_used, node->rank.partition[k]);
    for (uint32_t k = 0; k < node->rank.order_count; k++)
        rule_fields_add(input_used, node->rank.order_fields[k]);
    uint32_t kept = 0;
    for (uint32_t i = 0; i < node->rank.project_count; i++) {
        if (!rule_fields_has(used, i)) {
            mapping[i] = -1;
            continue;
        }
        mapping[i] = (int32_t)kept++;
        if (i != node->rank.number_field)
            rule_fields_add_expr(input_used, node->rank.projects[i]);
    }
    if (kept == 0) /* keep one field: a node has fields */
        mapping[0] = (int32_t)kept++;
    PlanNode *copy;
    RulePruned input;
    int status = rule_prune_input(context, node, input_used, &copy, &input);
    if (status != JOINERY_OK)
        return status;
    Expr **projects = arena_calloc(arena, kept + 1, sizeof(Expr *));
    PlanField *fields = arena_calloc(arena, kept + 1, sizeof(PlanField));
    uint32_t *partition = arena_calloc(arena, node->rank.partition_count + 1, sizeof(uint32_t));
    if (!projects || !fields || !partition)
        return JOINERY_ERROR_NO_MEMORY;
    copy->rank.number_field = UINT32_MAX;
    for (uint32_t i = 0; i < node->rank.project_count; i++) {
        if (mapping[i] < 0)
            continue;
        fields[mapping[i]] = node->fields[i];
        if (i == node->rank.number_field) {
            copy->rank.number_field = (uint32_t)mapping[i];
            continue;
        }
        projects[mapping[i]] = expr_remap_inputs(arena, node->rank.projects[i], input.mapping);
        if (!projects[mapping[i]])
            return JOINERY_ERROR_NO_MEMORY;
    }
    for (uint32_t k = 0; k < node->rank.partition_count; k++)
        partition[k] = (uint32_t)input.mapping[node->rank.partition[k]];
    copy->rank.partition = partition;
    uint32_t *order_fields = arena_calloc(arena, node->rank.order_count, sizeof(uint32_t));
    if (!order_fields)
        return JOINERY_ERROR_NO_MEMORY;
    for (uint32_t k = 0; k < node->rank.order_count; k++)
        order_fields[k] = (uint32_t)input.mapping[node->rank.order_fields[k]];
    copy->rank.order_fields = order_fields;
    copy->rank.order_field = order_fields[0];
    copy->rank.projects = projects;
    copy->rank.project_count = kept;
    copy->fields = fields;
    copy->field_count = kept;
    result->node = copy;
    result->mapping = mapping;
    return JOINERY_OK;
}

static int convert_row_number(PlannerContext *context, PlanNode *node, PlanNode **result)
{
    Arena *arena = context->arena;
    if (node->rank.rank_end == 0)
        return diag_error(context->diag, JOINERY_ERROR_UNSUPPORTED,
                          node->rank.rank_start > 1
                              ? "Rank end is not specified. Currently rank only support TopN, "
                                "which means the rank end must be specified."
                              : "ROW_NUMBER() OVER without a filter that bounds the row number "
                                "(WHERE rn <= N) is an OVER aggregate, which is not supported "
                                "yet");
    if (node->rank.rank_end < node->rank.rank_start || node->rank.rank_end < 1)
        return diag_error(context->diag, JOINERY_ERROR_UNSUPPORTED,
                          "The filter on the rank keeps no row (rank range [%lld, %lld])",
                          (long long)node->rank.rank_start, (long long)node->rank.rank_end);
    PlanNode *input;
    int status = physical_convert(context, node->inputs[0], &input);
    if (status != JOINERY_OK)
        return status;
    /* PARTITION BY window_start, window_end of one window: window Top-N / deduplication */
    const WindowSpec *start_spec = NULL, *end_spec = NULL;
    uint32_t window_start = UINT32_MAX, window_end = UINT32_MAX;
    for (uint32_t k = 0; k < node->rank.partition_count; k++) {
        const WindowSpec *spec = NULL;
        WindowFieldRole role = plan_window_field(input, node->rank.partition[k], &spec);
        if (role == WINDOW_FIELD_START)
            window_start = node->rank.partition[k], start_spec = spec;
        else if (role == WINDOW_FIELD_END)
            window_end = node->rank.partition[k], end_spec = spec;
    }
    if (start_spec && end_spec && start_spec == end_spec)
        return plan_convert_window_rank(context, node, input, start_spec, window_start, window_end,
                                        result);
    /* Flink deduplicates ROW_NUMBER() ... = 1 ordered by a time attribute only */
    TimeAttribute attribute = input->fields[node->rank.order_field].type.time_attribute;
    bool deduplicate = node->rank.function == PLAN_RANK_ROW_NUMBER && node->rank.rank_start == 1 &&
                       node->rank.rank_end == 1 && node->rank.order_count == 1 &&
                       attribute != TIME_ATTRIBUTE_NONE;
    if (!deduplicate)
        return plan_convert_rank(context, node, input, result);
    PlanNode *exchange =
        plan_make_exchange(context, input, node->rank.partition, node->rank.partition_count);
    PlanNode *dedup =
        exchange ? physical_new_node(context, PLAN_DEDUPLICATE, 1, input->field_count) : NULL;
    if (!dedup)
        return JOINERY_ERROR_NO_MEMORY;
    dedup->inputs[0] = exchange;
    memcpy(dedup->fields, input->fields, input->field_count * sizeof(PlanField));
    dedup->rank = node->rank;
    dedup->rank.projects = NULL;
    dedup->rank.project_count = 0;
    dedup->rank.keep_last = node->rank.descending;
    dedup->rank.proctime = attribute == TIME_ATTRIBUTE_PROCTIME;
    dedup->rank.generate_update_before = true;
    /* the SELECT items, the row number being 1 */
    Expr **projects = arena_calloc(arena, node->rank.project_count + 1, sizeof(Expr *));
    if (!projects)
        return JOINERY_ERROR_NO_MEMORY;
    for (uint32_t i = 0; i < node->rank.project_count; i++) {
        projects[i] = i == node->rank.number_field
                          ? expr_make_literal(arena, node->fields[i].type, value_int(1))
                          : node->rank.projects[i];
        if (!projects[i])
            return JOINERY_ERROR_NO_MEMORY;
    }
    *result =
        plan_make_calc(context, dedup, projects, node->rank.project_count, node->fields, NULL);
    return *result ? JOINERY_OK : JOINERY_ERROR_NO_MEMORY;
}

/* ---------------------------------------------------------------- physical */

static void explain_key_list(ExplainContext *context, const PlanNode *node)
{
    for (uint32_t k = 0; k < node->rank.partition_count; k++)
        strbuf_printf(context->out, "%s%s", k ? ", " : "",
                      node->fields[node->rank.partition[k]].name);
}

static void explain_deduplicate(ExplainContext *context, const PlanNode *node)
{
    StrBuf *out = context->out;
    if (context->style == EXPR_STYLE_PREFIX) {
        /* Flink's physical plan: the Rank it is */
        strbuf_append_cstr(out, "strategy=[AppendFastStrategy], rankType=[ROW_NUMBER], "
                                "rankRange=[rankStart=1, rankEnd=1], partitionBy=[");
        explain_key_list(context, node);
        strbuf_printf(out, "], orderBy=[%s%s %s], select=[", node->rank.proctime ? "" : "ROWTIME ",
                      node->fields[node->rank.order_field].name,
                      node->rank.keep_last ? "DESC" : "ASC");
        explain_field_list(context, node);
        strbuf_append_cstr(out, "]");
    } else {
        strbuf_printf(out, "keep=[%s], key=[", node->rank.keep_last ? "LastRow" : "FirstRow");
        explain_key_list(context, node);
        strbuf_printf(out, "], order=[%s]", node->rank.proctime ? "PROCTIME" : "ROWTIME");
    }
    explain_ttl(context, node->state_ttl_millis, node->state_ttl_millis);
}

static int derive_deduplicate(PlannerContext *context, PlanNode *node)
{
    const PlanNode *input = node->inputs[0];
    if (input->changelog_mode != CHANGELOG_INSERT)
        return diag_error(context->diag, JOINERY_ERROR_UNSUPPORTED,
                          "Deduplication (ROW_NUMBER() OVER ... = 1) of an updating input is not "
                          "supported yet");
    /* the first row by arrival is final: keep-first on processing time only inserts */
    node->changelog_mode = CHANGELOG_INSERT;
    if (node->rank.keep_last || !node->rank.proctime)
        node->changelog_mode |= CHANGELOG_UPDATE_AFTER;
    if (node->changelog_mode & CHANGELOG_UPDATE_AFTER && node->rank.generate_update_before)
        node->changelog_mode |= CHANGELOG_UPDATE_BEFORE;
    node->row_count = cost_node_rows(input);
    if (node->rank.partition_count)
        derive_add_unique_key(context->arena, node, node->rank.partition,
                              node->rank.partition_count);
    node->state_ttl_millis = context->config->state_ttl_millis;
    return JOINERY_OK;
}

const PlanKindInfo plan_kind_logical_row_number = {
    .kind = PLAN_LOGICAL_ROW_NUMBER,
    .name = "LogicalProject",
    .explain = explain_row_number,
    .convert = convert_row_number,
    .push_filters = push_row_number,
    .prune_fields = prune_row_number,
};

const PlanKindInfo plan_kind_deduplicate = {
    .kind = PLAN_DEDUPLICATE,
    .name = "Deduplicate",
    .physical_plan_name = "Rank",
    .physical = true,
    .stateful = true,
    .explain = explain_deduplicate,
    .derive = derive_deduplicate,
    .trace_field = cost_trace_to_input,
};
