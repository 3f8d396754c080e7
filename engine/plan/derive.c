/*
 * derive.c - physical plan properties, bottom-up: changelog mode, unique
 * keys (and the join input specs Flink prints), boundedness, row-count
 * estimates and the effective state TTL of stateful nodes. Also checks that
 * every sink can consume the changes its input produces.
 */
#include <stdio.h>
#include <string.h>

#include "engine/connector/connector.h"
#include "engine/plan/cost.h"
#include "engine/plan/physical.h"

static bool key_contains(const PlanKey *outer, const uint32_t *fields, uint32_t count)
{
    /* true when every field of `outer` is among `fields` */
    for (uint32_t i = 0; i < outer->count; i++) {
        bool found = false;
        for (uint32_t j = 0; j < count; j++)
            if (fields[j] == outer->fields[i])
                found = true;
        if (!found)
            return false;
    }
    return true;
}

static void add_key(Arena *arena, PlanNode *node, const uint32_t *fields, uint32_t count)
{
    if (node->unique_key_count >= PLAN_MAX_UNIQUE_KEYS)
        return;
    PlanKey *key = &node->unique_keys[node->unique_key_count];
    key->fields = arena_calloc(arena, count + 1, sizeof(uint32_t));
    if (!key->fields)
        return;
    /* sorted ascending */
    for (uint32_t i = 0; i < count; i++) {
        uint32_t value = fields[i], j = i;
        while (j > 0 && key->fields[j - 1] > value) {
            key->fields[j] = key->fields[j - 1];
            j--;
        }
        key->fields[j] = value;
    }
    key->count = count;
    node->unique_key_count++;
}

static JoinInputSpec input_spec(const PlanNode *input, const uint32_t *keys, uint32_t key_count)
{
    if (input->unique_key_count == 0)
        return JOIN_INPUT_NO_UNIQUE_KEY;
    for (uint32_t i = 0; i < input->unique_key_count; i++)
        if (key_contains(&input->unique_keys[i], keys, key_count))
            return JOIN_INPUT_JOIN_KEY_CONTAINS_UNIQUE_KEY;
    return JOIN_INPUT_HAS_UNIQUE_KEY;
}

/* The node below `node` (through Calc and Exchange) that produces its updates. */
static const PlanNode *derive_change_producer(const PlanNode *node)
{
    while ((node->kind == PLAN_CALC || node->kind == PLAN_EXCHANGE ||
            node->kind == PLAN_WATERMARK_ASSIGNER) &&
           node->input_count == 1)
        node = node->inputs[0];
    return node;
}

static int derive(PlannerContext *context, PlanNode *node)
{
    Arena *arena = context->arena;
    for (uint32_t i = 0; i < node->input_count; i++) {
        int status = derive(context, node->inputs[i]);
        if (status != JOINERY_OK)
            return status;
    }
    PlanNode *input = node->input_count ? node->inputs[0] : NULL;
    node->unique_key_count = 0;
    node->bounded = true;
    for (uint32_t i = 0; i < node->input_count; i++)
        node->bounded = node->bounded && node->inputs[i]->bounded;
    int64_t default_ttl = context->config->state_ttl_millis;
    switch (node->kind) {
    case PLAN_TABLE_SOURCE_SCAN: {
        const CatalogTable *table = node->scan.table;
        const Connector *connector = connector_find(catalog_table_option(table, "connector"));
        SourceChangelog produced = connector && connector->source_changelog
                                       ? connector->source_changelog(table)
                                       : SOURCE_CHANGELOG_INSERT_ONLY;
        node->changelog_mode = produced == SOURCE_CHANGELOG_INSERT_ONLY ? CHANGELOG_INSERT
                               : produced == SOURCE_CHANGELOG_UPSERT
                                   ? CHANGELOG_UPDATE_AFTER | CHANGELOG_DELETE
                                   : CHANGELOG_INSERT | CHANGELOG_UPDATE_BEFORE |
                                         CHANGELOG_UPDATE_AFTER | CHANGELOG_DELETE;
        node->bounded = connector && connector->is_bounded && connector->is_bounded(table);
        node->row_count =
            cost_table_rows(table) * cost_predicate_selectivity(node->scan.filter, node);
        if (table->primary_key_count) {
            uint32_t fields[64];
            uint32_t found = 0;
            for (size_t k = 0; k < table->primary_key_count && k < 64; k++) {
                int column = catalog_table_column_index(table, table->primary_key[k]);
                for (uint32_t f = 0; f < node->scan.column_count; f++)
                    if ((int)node->scan.columns[f] == column)
                        fields[found++] = f;
            }
            if (found == table->primary_key_count)
                add_key(arena, node, fields, found);
        }
        break;
    }
    case PLAN_CALC: {
        node->changelog_mode = input->changelog_mode;
        node->row_count =
            input->row_count * cost_predicate_selectivity(node->calc.condition, input);
        for (uint32_t k = 0; k < input->unique_key_count; k++) {
            const PlanKey *key = &input->unique_keys[k];
            uint32_t fields[64];
            uint32_t found = 0;
            for (uint32_t f = 0; f < key->count && f < 64; f++)
                for (uint32_t p = 0; p < node->calc.project_count; p++) {
                    const Expr *expr = node->calc.projects[p];
                    if (expr->kind == EXPR_INPUT_REF && expr->input_index == key->fields[f]) {
                        fields[found++] = p;
                        break;
                    }
                }
            if (found == key->count)
                add_key(arena, node, fields, found);
        }
        break;
    }
    case PLAN_CHANGELOG_NORMALIZE:
        node->changelog_mode =
            CHANGELOG_INSERT | CHANGELOG_UPDATE_BEFORE | CHANGELOG_UPDATE_AFTER | CHANGELOG_DELETE;
        node->row_count = input->row_count;
        add_key(arena, node, node->exchange.keys, node->exchange.key_count);
        node->state_ttl_millis = default_ttl;
        break;
    case PLAN_EXCHANGE:
    case PLAN_WATERMARK_ASSIGNER:
        node->changelog_mode = input->changelog_mode;
        node->row_count = input->row_count;
        for (uint32_t k = 0; k < input->unique_key_count; k++)
            add_key(arena, node, input->unique_keys[k].fields, input->unique_keys[k].count);
        break;
    case PLAN_JOIN: {
        PlanNode *left = node->inputs[0], *right = node->inputs[1];
        uint32_t left_count = left->field_count;
        node->join.left_spec = input_spec(left, node->join.left_keys, node->join.key_count);
        node->join.right_spec = input_spec(right, node->join.right_keys, node->join.key_count);
        /* an inner join forwards its inputs' row kinds; an outer join updates its
           NULL-padded rows, which Flink declares as [I,UB,UA,D] */
        node->changelog_mode = CHANGELOG_INSERT | left->changelog_mode | right->changelog_mode;
        if (node->join.join_type != JOIN_TYPE_INNER)
            node->changelog_mode |=
                CHANGELOG_UPDATE_BEFORE | CHANGELOG_UPDATE_AFTER | CHANGELOG_DELETE;
        node->row_count = cost_node_estimate(node);
        /* unique keys: each side's key survives when the other side's join key is unique */
        bool right_unique_on_key = node->join.right_spec == JOIN_INPUT_JOIN_KEY_CONTAINS_UNIQUE_KEY;
        bool left_unique_on_key = node->join.left_spec == JOIN_INPUT_JOIN_KEY_CONTAINS_UNIQUE_KEY;
        if (right_unique_on_key && !join_type_preserves_right(node->join.join_type))
            for (uint32_t k = 0; k < left->unique_key_count; k++)
                add_key(arena, node, left->unique_keys[k].fields, left->unique_keys[k].count);
        if (left_unique_on_key && !join_type_preserves_left(node->join.join_type))
            for (uint32_t k = 0; k < right->unique_key_count; k++) {
                uint32_t fields[64];
                uint32_t count =
                    right->unique_keys[k].count < 64 ? right->unique_keys[k].count : 64;
                for (uint32_t f = 0; f < count; f++)
                    fields[f] = left_count + right->unique_keys[k].fields[f];
                add_key(arena, node, fields, count);
            }
        if (!node->ttl_from_hint)
            node->state_ttl_millis = node->state_ttl_right_millis = -1;
        if (node->state_ttl_millis < 0)
            node->state_ttl_millis = default_ttl;
        if (node->state_ttl_right_millis < 0)
            node->state_ttl_right_millis = default_ttl;
        break;
    }
    case PLAN_MULTI_JOIN: {
        bool append_only = true;
        for (uint32_t i = 0; i < node->input_count; i++) {
            const PlanNode *in = node->inputs[i];
            append_only = append_only && in->changelog_mode == CHANGELOG_INSERT &&
                          (i == 0 || node->multi_join.join_types[i] == JOIN_TYPE_INNER);
            if (node->multi_join.ttl_millis[i] < 0)
                node->multi_join.ttl_millis[i] = default_ttl;
        }
        node->row_count = cost_node_estimate(node);
        node->changelog_mode = append_only ? CHANGELOG_INSERT
                                           : CHANGELOG_INSERT | CHANGELOG_UPDATE_BEFORE |
                                                 CHANGELOG_UPDATE_AFTER | CHANGELOG_DELETE;
        node->state_ttl_millis = default_ttl;
        break;
    }
    case PLAN_GROUP_AGGREGATE: {
        node->changelog_mode = CHANGELOG_INSERT | CHANGELOG_UPDATE_BEFORE | CHANGELOG_UPDATE_AFTER;
        if (input->changelog_mode != CHANGELOG_INSERT)
            node->changelog_mode |= CHANGELOG_DELETE;
        node->row_count = node->aggregate.group_key_count ? input->row_count * 0.1 : 1;
        if (node->aggregate.group_key_count) {
            uint32_t fields[64];
            uint32_t count =
                node->aggregate.group_key_count < 64 ? node->aggregate.group_key_count : 64;
            for (uint32_t f = 0; f < count; f++)
                fields[f] = f;
            add_key(arena, node, fields, count);
        }
        node->state_ttl_millis = default_ttl;
        break;
    }
    case PLAN_UNION:
        node->changelog_mode = 0;
        node->row_count = 0;
        for (uint32_t i = 0; i < node->input_count; i++) {
            node->changelog_mode |= node->inputs[i]->changelog_mode;
            node->row_count += node->inputs[i]->row_count;
        }
        break;
    case PLAN_VALUES:
        node->changelog_mode = CHANGELOG_INSERT;
        node->row_count = node->values.row_count;
        node->bounded = true;
        break;
    case PLAN_SINK: {
        node->changelog_mode = input->changelog_mode;
        node->row_count = input->row_count;
        const CatalogTable *table = node->sink.table;
        const Connector *connector =
            table ? connector_find(catalog_table_option(table, "connector")) : NULL;
        if (connector && connector_sink_changelog(connector, table) == SINK_CHANGELOG_INSERT_ONLY &&
            input->changelog_mode != CHANGELOG_INSERT)
            return diag_error(context->diag, JOINERY_ERROR_VALIDATE,
                              "Table sink 'default_catalog.default_database.%s' doesn't support "
                              "consuming %s changes which is produced by node %s; %s",
                              table->name,
                              (input->changelog_mode & CHANGELOG_DELETE) &&
                                      (input->changelog_mode & CHANGELOG_UPDATE_AFTER)
                                  ? "update and delete"
                              : input->changelog_mode & CHANGELOG_DELETE ? "delete"
                                                                         : "update",
                              plan_kind_name(derive_change_producer(input)->kind),
                              connector->sink_update_hint
                                  ? connector->sink_update_hint
                                  : "write it to a print or blackhole table, or make the query "
                                    "append-only");
        if (connector && connector_sink_changelog(connector, table) == SINK_CHANGELOG_UPSERT &&
            table->primary_key_count == 0)
            return diag_error(context->diag, JOINERY_ERROR_VALIDATE,
                              "Table sink 'default_catalog.default_database.%s' is an upsert sink "
                              "and needs a PRIMARY KEY ... NOT ENFORCED",
                              table->name);
        break;
    }
    default:
        break;
    }
    return JOINERY_OK;
}

int plan_derive_properties(PlannerContext *context, PlanNode *physical)
{
    return derive(context, physical);
}
