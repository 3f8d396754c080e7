/*
 * node_lookup_join.c - the lookup join: `left JOIN dim FOR SYSTEM_TIME AS
 * OF left.proctime ON ...` against a table that can be looked up (Flink's
 * StreamPhysicalLookupJoin).
 *
 * Logical: the binder's LogicalCorrelate / LogicalFilter / LogicalSnapshot
 * (node_temporal_join.c) with temporal.lookup set; its conversion comes
 * here (plan_convert_lookup_join). Physical: one input, the probe side;
 * the table is an attribute, not an input. The ON condition splits as
 * Flink's LookupJoinUtil splits it:
 * - `dim.c = <probe side>` gives lookup key c: a probe field, or a
 *   computed expression of the probe side (a Calc below adds it as a
 *   field, `$f<n>` as Calcite names it, and a Calc above drops it), or a
 *   constant (`dim.region = 'EU'`, which also stays in `where` as Flink
 *   prints it); the first equality per dim column is its key, later ones
 *   are conditions. No key at all is Flink's error.
 * - conditions on the dim side only: where=[...], on the looked-up rows;
 * - conditions on the probe side only: a Calc below (INNER), else kept;
 * - the rest: joinCondition=[...], over probe ++ dim fields.
 * EXPLAIN: LookupJoin(table, joinType, lookup, [where], [joinCondition],
 * select, [async], [shuffle], [retry]) in Flink's order;
 * `async=[ORDERED|UNORDERED, <timeout>ms, <capacity>]` (UNORDERED only
 * over an insert-only input, as Flink), `shuffle=[true]` with an
 * Exchange(hash[keys]) below, `retry=[lookup_miss, FIXED_DELAY, <d>ms,
 * <n>]`. Cache settings never print (Flink): PLAN_ADVICE and SHOW JOB
 * METRICS show them. The output keeps the input's row kinds.
 */
#include <stdio.h>
#include <string.h>

#include "engine/plan/cost.h"
#include "engine/plan/nodes/nodes.h"
#include "engine/plan/rules/rules.h"

/* Which inputs a conjunct reads: bit 0 = probe fields, bit 1 = dim fields. */
static unsigned lookup_conjunct_sides(const Expr *expr, uint32_t left_count, uint32_t total)
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

typedef struct LookupSplit {
    uint32_t *key_fields; /* dim field of each key */
    Expr **key_values;    /* over the probe fields (before the computed ones are added) */
    uint32_t key_count;
    Expr **computed; /* computed keys, appended to the probe fields by a Calc below */
    uint32_t computed_count;
    Expr **where; /* over the dim fields */
    uint32_t where_count;
    Expr **left_only; /* INNER: a filter below */
    uint32_t left_only_count;
    Expr **residual; /* over probe ++ dim fields */
    uint32_t residual_count;
} LookupSplit;

/* `value` (probe side) as the key of dim field `field`: true when taken. */
static bool take_key(Arena *arena, LookupSplit *split, const PlanNode *right, uint32_t field,
                     Expr *value, uint32_t left_count)
{
    for (uint32_t k = 0; k < split->key_count; k++)
        if (split->key_fields[k] == field)
            return false;
    DataType type = right->fields[field].type;
    if (!type_equals(value->type, type)) {
        if (!expr_cast_is_valid(value->type, type))
            return false;
        value = expr_make_implicit_cast(arena, value, type);
    }
    if (value->kind != EXPR_INPUT_REF && !expr_is_constant(value)) {
        Expr *computed = value;
        value = expr_make_input_ref(arena, left_count + split->computed_count, computed->type);
        split->computed[split->computed_count++] = computed;
    }
    split->key_fields[split->key_count] = field;
    split->key_values[split->key_count++] = value;
    return true;
}

static int split_condition(PlannerContext *context, const PlanNode *node, const PlanNode *right,
                           uint32_t left_count, LookupSplit *split)
{
    Arena *arena = context->arena;
    uint32_t right_count = right->field_count, total = left_count + right_count;
    RuleConjuncts conjuncts = {0};
    if (rule_split_conjuncts(arena, node->temporal.condition, &conjuncts) != JOINERY_OK)
        return JOINERY_ERROR_NO_MEMORY;
    uint32_t n = conjuncts.count;
    split->key_fields = arena_calloc(arena, n + 1, sizeof(uint32_t));
    split->key_values = arena_calloc(arena, n + 1, sizeof(Expr *));
    split->computed = arena_calloc(arena, n + 1, sizeof(Expr *));
    split->where = arena_calloc(arena, n + 1, sizeof(Expr *));
    split->left_only = arena_calloc(arena, n + 1, sizeof(Expr *));
    split->residual = arena_calloc(arena, n + 1, sizeof(Expr *));
    int32_t *to_right = arena_calloc(arena, total + 1, sizeof(int32_t));
    if (!split->key_fields || !split->key_values || !split->computed || !split->where ||
        !split->left_only || !split->residual || !to_right)
        return JOINERY_ERROR_NO_MEMORY;
    for (uint32_t i = 0; i < total; i++)
        to_right[i] = i < left_count ? -1 : (int32_t)(i - left_count);
    for (uint32_t i = 0; i < n; i++) {
        Expr *c = conjuncts.items[i];
        unsigned sides = lookup_conjunct_sides(c, left_count, total);
        bool deterministic = expr_is_deterministic(c);
        if (deterministic && c->kind == EXPR_CALL && c->call.function == FUNCTION_EQUAL &&
            c->call.arg_count == 2) {
            bool taken = false;
            for (int a = 0; a < 2 && !taken; a++) {
                Expr *dim = c->call.args[1 - a], *value = c->call.args[a];
                const Expr *plain = cost_plain_ref(dim);
                if (!plain || plain->input_index < left_count ||
                    (lookup_conjunct_sides(value, left_count, total) & 2))
                    continue;
                uint32_t field = plain->input_index - left_count;
                if (plain != dim && !type_equals(plain->type, dim->type))
                    continue; /* a cast of the dim column: not a key */
                taken = take_key(arena, split, right, field, value, left_count);
            }
            if (taken) {
                /* a constant key also filters the rows looked up, as Flink prints it */
                if (sides == 2)
                    split->where[split->where_count++] = expr_remap_inputs(arena, c, to_right);
                continue;
            }
        }
        if (sides == 2 && deterministic)
            split->where[split->where_count++] = expr_remap_inputs(arena, c, to_right);
        else if (sides == 1 && deterministic && node->temporal.join_type == JOIN_TYPE_INNER)
            split->left_only[split->left_only_count++] = c;
        else
            split->residual[split->residual_count++] = c;
    }
    return JOINERY_OK;
}

static const char *table_path(Arena *arena, const CatalogTable *table)
{
    return arena_printf(arena, "default_catalog.default_database.%s", table->name);
}

int plan_convert_lookup_join(PlannerContext *context, PlanNode *node, PlanNode **result)
{
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
    if (left_count != node->temporal.left_count || left_count + right_count != node->field_count)
        return diag_error(context->diag, JOINERY_ERROR, "lookup join: inputs changed shape");
    if (right->kind != PLAN_TABLE_SOURCE_SCAN || right->scan.filter ||
        (right->scan.read_count && right->scan.read_count != right->scan.column_count))
        return diag_error(context->diag, JOINERY_ERROR_UNSUPPORTED,
                          "The lookup table of a lookup join cannot have computed columns or a "
                          "watermark yet (table '%s')",
                          right->kind == PLAN_TABLE_SOURCE_SCAN ? right->scan.table->name : "?");
    const CatalogTable *table = right->scan.table;
    LookupSplit split = {0};
    status = split_condition(context, node, right, left_count, &split);
    if (status != JOINERY_OK)
        return status;
    if (split.key_count == 0)
        return diag_error(context->diag, JOINERY_ERROR_VALIDATE,
                          "Temporal table join requires an equality condition on fields of table "
                          "[%s].",
                          table_path(arena, table));

    /* the probe side: left-only filters and computed keys in a Calc below */
    uint32_t computed = split.computed_count;
    uint32_t input_count = left_count + computed;
    if (computed || split.left_only_count) {
        Expr **projects = arena_calloc(arena, input_count + 1, sizeof(Expr *));
        PlanField *fields = arena_calloc(arena, input_count + 1, sizeof(PlanField));
        if (!projects || !fields)
            return JOINERY_ERROR_NO_MEMORY;
        for (uint32_t i = 0; i < left_count; i++) {
            projects[i] = expr_make_input_ref(arena, i, left->fields[i].type);
            fields[i] = left->fields[i];
        }
        for (uint32_t c = 0; c < computed; c++) {
            projects[left_count + c] = split.computed[c];
            fields[left_count + c].name = arena_printf(arena, "$f%u", left_count + c);
            fields[left_count + c].type = split.computed[c]->type;
            fields[left_count + c].type.time_attribute = TIME_ATTRIBUTE_NONE;
        }
        Expr *condition = expr_make_and(arena, split.left_only, split.left_only_count);
        left = plan_make_calc(context, left, projects, input_count, fields, condition);
        if (!left)
            return JOINERY_ERROR_NO_MEMORY;
    }
    const PlanLookupOptions *options = node->temporal.lookup;
    if (options->shuffle) {
        uint32_t *keys = arena_calloc(arena, split.key_count + 1, sizeof(uint32_t));
        uint32_t key_count = 0;
        if (!keys)
            return JOINERY_ERROR_NO_MEMORY;
        for (uint32_t k = 0; k < split.key_count; k++)
            if (split.key_values[k]->kind == EXPR_INPUT_REF) {
                bool seen = false;
                for (uint32_t j = 0; j < key_count; j++)
                    seen |= keys[j] == split.key_values[k]->input_index;
                if (!seen)
                    keys[key_count++] = split.key_values[k]->input_index;
            }
        left = plan_make_exchange(context, left, keys, key_count);
        if (!left)
            return JOINERY_ERROR_NO_MEMORY;
    }

    uint32_t total = input_count + right_count;
    PlanNode *join = physical_new_node(context, PLAN_LOOKUP_JOIN, 1, total);
    int32_t *mapping = arena_calloc(arena, node->field_count + 1, sizeof(int32_t));
    uint32_t *columns = arena_calloc(arena, right_count + 1, sizeof(uint32_t));
    if (!join || !mapping || !columns)
        return JOINERY_ERROR_NO_MEMORY;
    for (uint32_t i = 0; i < node->field_count; i++)
        mapping[i] = i < left_count ? (int32_t)i : (int32_t)(i + computed);
    memcpy(columns, right->scan.columns, right_count * sizeof(uint32_t));
    join->inputs[0] = left;
    bool right_nullable = node->temporal.join_type == JOIN_TYPE_LEFT;
    for (uint32_t i = 0; i < total; i++) {
        if (i < input_count) {
            join->fields[i] = left->fields[i];
            if (i < left_count)
                join->fields[i].name = node->fields[i].name;
        } else {
            join->fields[i] = right->fields[i - input_count];
            join->fields[i].name = node->fields[i - computed].name;
            join->fields[i].type.time_attribute = TIME_ATTRIBUTE_NONE;
            join->fields[i].type.nullable |= right_nullable;
        }
    }
    join->lookup.join_type = node->temporal.join_type;
    join->lookup.table = table;
    join->lookup.columns = columns;
    join->lookup.column_count = right_count;
    join->lookup.key_fields = split.key_fields;
    join->lookup.key_values = split.key_values;
    join->lookup.key_count = split.key_count;
    join->lookup.where = expr_make_and(arena, split.where, split.where_count);
    Expr *residual = expr_make_and(arena, split.residual, split.residual_count);
    join->lookup.condition = residual ? expr_remap_inputs(arena, residual, mapping) : NULL;
    join->lookup.options = options;
    if (computed == 0) {
        *result = join;
        return JOINERY_OK;
    }
    /* a Calc above drops the computed keys */
    Expr **projects = arena_calloc(arena, node->field_count + 1, sizeof(Expr *));
    PlanField *fields = arena_calloc(arena, node->field_count + 1, sizeof(PlanField));
    if (!projects || !fields)
        return JOINERY_ERROR_NO_MEMORY;
    for (uint32_t i = 0; i < node->field_count; i++) {
        projects[i] =
            expr_make_input_ref(arena, (uint32_t)mapping[i], join->fields[mapping[i]].type);
        fields[i] = join->fields[mapping[i]];
    }
    *result = plan_make_calc(context, join, projects, node->field_count, fields, NULL);
    return *result ? JOINERY_OK : JOINERY_ERROR_NO_MEMORY;
}

/* ---------------------------------------------------------------- physical */

static void explain_lookup_join(ExplainContext *context, const PlanNode *node)
{
    StrBuf *out = context->out;
    const PlanNode *input = node->inputs[0];
    const char *const *names = plan_field_names(context->arena, node);
    const char *const *input_names = plan_field_names(context->arena, input);
    /* lookup=[...] and where=[...] name the table's own columns (Flink) */
    const CatalogTable *table = node->lookup.table;
    const char **dim_names =
        arena_calloc(context->arena, node->lookup.column_count + 1, sizeof(char *));
    for (uint32_t i = 0; dim_names && i < node->lookup.column_count; i++)
        dim_names[i] = table->columns[node->lookup.columns[i]].name;
    if (!dim_names)
        return;
    strbuf_printf(out, "table=[%s], joinType=[%s], lookup=[",
                  table_path(context->arena, node->lookup.table),
                  join_type_name(node->lookup.join_type));
    /* constants first, then the probe fields (Flink's order) */
    bool first = true;
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t k = 0; k < node->lookup.key_count; k++) {
            const Expr *value = node->lookup.key_values[k];
            bool constant = value->kind != EXPR_INPUT_REF;
            if (constant != (pass == 0))
                continue;
            strbuf_printf(out, "%s%s=", first ? "" : ", ", dim_names[node->lookup.key_fields[k]]);
            /* a constant prints as its literal in both sections (Flink: _UTF-16LE'EU') */
            ExprStyle style = context->style;
            if (constant)
                context->style = EXPR_STYLE_PREFIX;
            explain_expr(context, value, input_names);
            context->style = style;
            first = false;
        }
    strbuf_append_char(out, ']');
    if (node->lookup.where) {
        strbuf_append_cstr(out, ", where=[");
        explain_expr(context, node->lookup.where, dim_names);
        strbuf_append_char(out, ']');
    }
    if (node->lookup.condition) {
        strbuf_append_cstr(out, ", joinCondition=[");
        explain_expr(context, node->lookup.condition, names);
        strbuf_append_char(out, ']');
    }
    strbuf_append_cstr(out, ", select=[");
    explain_field_list(context, node);
    strbuf_append_char(out, ']');
    const PlanLookupOptions *options = node->lookup.options;
    if (options->async)
        strbuf_printf(out, ", async=[%s, %lldms, %lld]",
                      node->lookup.ordered ? "ORDERED" : "UNORDERED",
                      (long long)options->timeout_millis, (long long)options->capacity);
    if (options->shuffle)
        strbuf_append_cstr(out, ", shuffle=[true]");
    if (options->retry)
        strbuf_printf(out, ", retry=[lookup_miss, FIXED_DELAY, %lldms, %lld]",
                      (long long)options->retry_delay_millis, (long long)options->max_attempts);
}

static int derive_lookup_join(PlannerContext *context, PlanNode *node)
{
    const PlanNode *input = node->inputs[0];
    node->changelog_mode = input->changelog_mode;
    node->row_count = cost_node_rows(input);
    node->lookup.ordered =
        !node->lookup.options->allow_unordered || input->changelog_mode != CHANGELOG_INSERT;
    /* the probe side's keys stay keys when the lookup keys cover the table's primary key
       (one row per probe row at most) */
    const CatalogTable *table = node->lookup.table;
    bool covered = table->primary_key_count > 0;
    for (size_t p = 0; covered && p < table->primary_key_count; p++) {
        bool found = false;
        for (uint32_t k = 0; k < node->lookup.key_count; k++) {
            uint32_t column = node->lookup.columns[node->lookup.key_fields[k]];
            found |= strcmp(table->columns[column].name, table->primary_key[p]) == 0;
        }
        covered = found;
    }
    for (uint32_t k = 0; covered && k < input->unique_key_count; k++)
        derive_add_unique_key(context->arena, node, input->unique_keys[k].fields,
                              input->unique_keys[k].count);
    node->state_ttl_millis = node->state_ttl_right_millis = 0;
    return JOINERY_OK;
}

static double estimate_lookup_join(const PlanNode *node)
{
    return cost_node_rows(node->inputs[0]);
}

static const PlanNode *trace_lookup_join(const PlanNode *node, uint32_t *field)
{
    if (*field < node->inputs[0]->field_count)
        return node->inputs[0];
    return NULL;
}

const PlanKindInfo plan_kind_lookup_join = {
    .kind = PLAN_LOOKUP_JOIN,
    .name = "LookupJoin",
    .physical = true,
    .explain = explain_lookup_join,
    .derive = derive_lookup_join,
    .estimate = estimate_lookup_join,
    .trace_field = trace_lookup_join,
};
