/*
 * node_rank.c - Rank: Top-N per partition, what a LogicalRowNumber
 * (nodes/node_deduplicate.c) becomes when it is not a deduplication.
 *
 * Conversion (plan_convert_rank): Exchange(hash[partition]) (single without
 * one), the Rank over it with the input's fields plus the rank number when
 * the SELECT reads it and the range holds more than one rank (Flink's
 * RankNumberColumnRemoveRule: for rn = N the number is the constant N), and
 * a Calc above for the SELECT items (dropped when it changes nothing). The
 * rank number keeps the name the query gives it.
 *
 * Strategy (derive, as Flink's RankProcessStrategy): an insert-only input is
 * AppendFastStrategy; an updating input without deletions whose unique key
 * contains the partition fields and whose ORDER BY fields are monotonic in
 * their direction (a group key of the aggregate below, or COUNT / MAX
 * increasing under DESC, MIN decreasing under ASC, of an aggregate over an
 * insert-only input, through Calcs and exchanges) is UpdateFastStrategy[key
 * fields]; anything else RetractStrategy. Flink also takes SUM of a provably
 * non-negative argument as increasing, and an input with deletions; joinery
 * runs those with RetractStrategy (the same results).
 *
 * EXPLAIN: Rank(strategy=[...], rankType=[ROW_NUMBER], rankRange=[rankStart=1,
 * rankEnd=3], partitionBy=[...], orderBy=[cnt DESC, a ASC], select=[...]).
 *
 * SortLimit (plan_convert_sort_limit): ORDER BY ... LIMIT n [OFFSET m] (FETCH
 * FIRST n ROWS ONLY) is the same Top-N without partition and without the rank
 * column, ranks m + 1 to m + n, over Exchange(distribution=[single]):
 * SortLimit(orderBy=[a ASC, b DESC], offset=[0], fetch=[10], strategy=[...])
 * as SortLimitTest.xml prints it; OFFSET alone plans (fetch=[unlimited]) and
 * is refused when the job is built, as in Flink.
 * RANK() and DENSE_RANK() plan the same way (rankType=[RANK]) and are refused
 * when the job is built, with Flink's message (exec/build/build_rank.c).
 */
#include <string.h>

#include "engine/plan/cost.h"
#include "engine/plan/nodes/nodes.h"

static const char *const RANK_TYPE_NAMES[] = {"ROW_NUMBER", "RANK", "DENSE_RANK"};

int plan_convert_rank(PlannerContext *context, const PlanNode *node, PlanNode *input,
                      PlanNode **result)
{
    Arena *arena = context->arena;
    bool number_read = node->rank.number_field != UINT32_MAX;
    bool output_number = number_read && node->rank.rank_start != node->rank.rank_end;
    uint32_t field_count = input->field_count + (output_number ? 1 : 0);
    PlanNode *exchange =
        plan_make_exchange(context, input, node->rank.partition, node->rank.partition_count);
    PlanNode *rank = exchange ? physical_new_node(context, PLAN_RANK, 1, field_count) : NULL;
    if (!rank)
        return JOINERY_ERROR_NO_MEMORY;
    rank->inputs[0] = exchange;
    memcpy(rank->fields, input->fields, input->field_count * sizeof(PlanField));
    rank->rank = node->rank;
    rank->rank.projects = NULL;
    rank->rank.project_count = 0;
    rank->rank.number_field = output_number ? input->field_count : UINT32_MAX;
    rank->rank.generate_update_before = true;
    if (output_number) {
        rank->fields[input->field_count].name = node->fields[node->rank.number_field].name;
        rank->fields[input->field_count].type = type_make(TYPE_BIGINT, false);
        plan_uniquify_names(arena, rank->fields, field_count);
    }
    /* the SELECT items, the rank number read from the Rank or the constant rank */
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

int plan_convert_sort_limit(PlannerContext *context, const PlanNode *node, PlanNode **result)
{
    Arena *arena = context->arena;
    PlanNode *input;
    int status = physical_convert(context, node->inputs[0], &input);
    if (status != JOINERY_OK)
        return status;
    uint32_t count = node->sort.key_count;
    uint32_t *order_fields = arena_calloc(arena, count, sizeof(uint32_t));
    bool *order_descending = arena_calloc(arena, count, sizeof(bool));
    bool *order_nulls_first = arena_calloc(arena, count, sizeof(bool));
    PlanNode *exchange = plan_make_exchange(context, input, NULL, 0);
    PlanNode *sort = exchange && order_fields && order_descending && order_nulls_first
                         ? physical_new_node(context, PLAN_SORT_LIMIT, 1, input->field_count)
                         : NULL;
    if (!sort)
        return JOINERY_ERROR_NO_MEMORY;
    for (uint32_t k = 0; k < count; k++) {
        order_fields[k] = node->sort.keys[k].field;
        order_descending[k] = node->sort.keys[k].descending;
        order_nulls_first[k] = node->sort.keys[k].nulls_first;
    }
    sort->inputs[0] = exchange;
    memcpy(sort->fields, input->fields, input->field_count * sizeof(PlanField));
    sort->rank.function = PLAN_RANK_ROW_NUMBER;
    sort->rank.number_field = UINT32_MAX;
    sort->rank.order_fields = order_fields;
    sort->rank.order_descending = order_descending;
    sort->rank.order_nulls_first = order_nulls_first;
    sort->rank.order_count = count;
    sort->rank.order_field = order_fields[0];
    sort->rank.descending = order_descending[0];
    int64_t offset = node->sort.offset > 0 ? node->sort.offset : 0;
    sort->rank.rank_start = offset + 1;
    sort->rank.rank_end = node->sort.fetch >= 0 && node->sort.fetch <= INT64_MAX - offset
                              ? offset + node->sort.fetch
                              : INT64_MAX;
    sort->rank.generate_update_before = true;
    *result = sort;
    return JOINERY_OK;
}

/* ---------------------------------------------------------------- EXPLAIN */

static void explain_strategy(StrBuf *out, const PlanNode *node)
{
    if (node->rank.strategy == PLAN_RANK_APPEND_FAST) {
        strbuf_append_cstr(out, "AppendFastStrategy");
    } else if (node->rank.strategy == PLAN_RANK_UPDATE_FAST) {
        strbuf_append_cstr(out, "UpdateFastStrategy[");
        for (uint32_t k = 0; k < node->rank.unique_key_count; k++)
            strbuf_printf(out, "%s%u", k ? "," : "", node->rank.unique_key[k]);
        strbuf_append_char(out, ']');
    } else {
        strbuf_append_cstr(out, "RetractStrategy");
    }
}

static void explain_order(StrBuf *out, const PlanNode *node)
{
    const PlanNode *input = node->inputs[0];
    for (uint32_t k = 0; k < node->rank.order_count; k++)
        strbuf_printf(out, "%s%s %s", k ? ", " : "", input->fields[node->rank.order_fields[k]].name,
                      node->rank.order_descending[k] ? "DESC" : "ASC");
}

/* SortLimit(orderBy=[a ASC, b DESC], offset=[0], fetch=[10], strategy=[...]) */
static void explain_sort_limit(ExplainContext *context, const PlanNode *node)
{
    StrBuf *out = context->out;
    strbuf_append_cstr(out, "orderBy=[");
    explain_order(out, node);
    strbuf_printf(out, "], offset=[%lld], fetch=[", (long long)node->rank.rank_start - 1);
    if (node->rank.rank_end == INT64_MAX)
        strbuf_append_cstr(out, "unlimited");
    else
        strbuf_printf(out, "%lld", (long long)(node->rank.rank_end - node->rank.rank_start + 1));
    strbuf_append_cstr(out, "], strategy=[");
    explain_strategy(out, node);
    strbuf_append_cstr(out, "]");
    explain_ttl(context, node->state_ttl_millis, node->state_ttl_millis);
}

static void explain_rank(ExplainContext *context, const PlanNode *node)
{
    StrBuf *out = context->out;
    const PlanNode *input = node->inputs[0];
    strbuf_append_cstr(out, "strategy=[");
    explain_strategy(out, node);
    strbuf_printf(out, "], rankType=[%s], rankRange=[rankStart=%lld, rankEnd=%lld], partitionBy=[",
                  RANK_TYPE_NAMES[node->rank.function], (long long)node->rank.rank_start,
                  (long long)node->rank.rank_end);
    for (uint32_t k = 0; k < node->rank.partition_count; k++)
        strbuf_printf(out, "%s%s", k ? ", " : "", input->fields[node->rank.partition[k]].name);
    strbuf_append_cstr(out, "], orderBy=[");
    explain_order(out, node);
    strbuf_append_cstr(out, "], select=[");
    explain_field_list(context, node);
    strbuf_append_cstr(out, "]");
    explain_ttl(context, node->state_ttl_millis, node->state_ttl_millis);
}

/* ---------------------------------------------------------------- strategy */

typedef enum Monotonicity {
    MONOTONIC_NOT,
    MONOTONIC_CONSTANT,
    MONOTONIC_INCREASING,
    MONOTONIC_DECREASING,
} Monotonicity;

/* How field `field` of `node` changes across the updates of one key (Flink's
   RelModifiedMonotonicity, the part joinery derives). */
static Monotonicity field_monotonicity(const PlanNode *node, uint32_t field, int depth)
{
    if (depth > 64)
        return MONOTONIC_NOT;
    switch (node->kind) {
    case PLAN_EXCHANGE:
        return field_monotonicity(node->inputs[0], field, depth + 1);
    case PLAN_CALC: {
        const Expr *project = node->calc.projects[field];
        if (project->kind != EXPR_INPUT_REF)
            return MONOTONIC_NOT;
        return field_monotonicity(node->inputs[0], project->input_index, depth + 1);
    }
    case PLAN_GROUP_AGGREGATE:
    case PLAN_GLOBAL_GROUP_AGGREGATE: {
        const PlanNode *input = node->kind == PLAN_GROUP_AGGREGATE
                                    ? node->inputs[0]
                                    : plan_global_aggregate_local(node);
        if (!input || input->kind == PLAN_LOCAL_GROUP_AGGREGATE)
            input = input ? input->inputs[0] : NULL;
        if (!input || input->changelog_mode != CHANGELOG_INSERT)
            return MONOTONIC_NOT;
        if (field < node->aggregate.group_key_count)
            return MONOTONIC_CONSTANT;
        const PlanAggregateCall *call =
            &node->aggregate.calls[field - node->aggregate.group_key_count];
        if (call->kind == PLAN_AGGREGATE_COUNT || call->kind == PLAN_AGGREGATE_COUNT_STAR ||
            call->kind == PLAN_AGGREGATE_MAX)
            return MONOTONIC_INCREASING;
        if (call->kind == PLAN_AGGREGATE_MIN)
            return MONOTONIC_DECREASING;
        return MONOTONIC_NOT;
    }
    default:
        return MONOTONIC_NOT;
    }
}

static bool key_contains(const PlanKey *key, const uint32_t *fields, uint32_t count)
{
    for (uint32_t i = 0; i < count; i++) {
        bool found = false;
        for (uint32_t k = 0; k < key->count && !found; k++)
            found = key->fields[k] == fields[i];
        if (!found)
            return false;
    }
    return true;
}

static void choose_strategy(const PlanNode *node, PlanNode *rank)
{
    const PlanNode *input = node->inputs[0];
    rank->rank.strategy = PLAN_RANK_RETRACT;
    rank->rank.unique_key = NULL;
    rank->rank.unique_key_count = 0;
    if (input->changelog_mode == CHANGELOG_INSERT) {
        rank->rank.strategy = PLAN_RANK_APPEND_FAST;
        return;
    }
    if (input->changelog_mode & CHANGELOG_DELETE)
        return;
    const PlanKey *key = NULL;
    for (uint32_t k = 0; k < input->unique_key_count && !key; k++)
        if (key_contains(&input->unique_keys[k], node->rank.partition, node->rank.partition_count))
            key = &input->unique_keys[k];
    if (!key)
        return;
    for (uint32_t k = 0; k < node->rank.order_count; k++) {
        Monotonicity monotonicity = field_monotonicity(input, node->rank.order_fields[k], 0);
        bool fits = monotonicity == MONOTONIC_CONSTANT ||
                    (monotonicity == MONOTONIC_INCREASING && node->rank.order_descending[k]) ||
                    (monotonicity == MONOTONIC_DECREASING && !node->rank.order_descending[k]);
        if (!fits)
            return;
    }
    rank->rank.strategy = PLAN_RANK_UPDATE_FAST;
    rank->rank.unique_key = key->fields;
    rank->rank.unique_key_count = key->count;
}

static int derive_rank(PlannerContext *context, PlanNode *node)
{
    const PlanNode *input = node->inputs[0];
    choose_strategy(node, node);
    node->changelog_mode = CHANGELOG_INSERT | CHANGELOG_UPDATE_AFTER | CHANGELOG_DELETE;
    if (node->rank.generate_update_before)
        node->changelog_mode |= CHANGELOG_UPDATE_BEFORE;
    node->row_count = cost_node_rows(input);
    /* a Rank's rows are some of its input's: the input's keys hold; with the rank number,
       the partition and the number are one more (Flink's FlinkRelMdUniqueKeys) */
    for (uint32_t k = 0; k < input->unique_key_count; k++)
        derive_add_unique_key(context->arena, node, input->unique_keys[k].fields,
                              input->unique_keys[k].count);
    if (node->rank.number_field != UINT32_MAX && node->rank.function == PLAN_RANK_ROW_NUMBER) {
        uint32_t fields[65];
        uint32_t count = node->rank.partition_count < 64 ? node->rank.partition_count : 64;
        memcpy(fields, node->rank.partition, count * sizeof(uint32_t));
        fields[count++] = node->rank.number_field;
        derive_add_unique_key(context->arena, node, fields, count);
    }
    node->state_ttl_millis = context->config->state_ttl_millis;
    return JOINERY_OK;
}

/* The input's fields are the Rank's; the rank number is computed. */
static const PlanNode *trace_rank_field(const PlanNode *node, uint32_t *field)
{
    return *field < node->inputs[0]->field_count ? node->inputs[0] : NULL;
}

const PlanKindInfo plan_kind_rank = {
    .kind = PLAN_RANK,
    .name = "Rank",
    .physical = true,
    .stateful = true,
    .explain = explain_rank,
    .derive = derive_rank,
    .trace_field = trace_rank_field,
};

const PlanKindInfo plan_kind_sort_limit = {
    .kind = PLAN_SORT_LIMIT,
    .name = "SortLimit",
    .physical = true,
    .stateful = true,
    .explain = explain_sort_limit,
    .derive = derive_rank,
    .trace_field = trace_rank_field,
};
