/*
 * plan.c - plan node allocation, field naming; a kind's name and flags come
 * from its descriptor (nodes/nodes.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "engine/plan/plan.h"

#include "engine/connector/connector.h"
#include "engine/plan/nodes/nodes.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

PlanNode *plan_node_new(Arena *arena, PlanKind kind, uint32_t input_count, uint32_t field_count)
{
    PlanNode *node = arena_calloc(arena, 1, sizeof(PlanNode));
    if (!node)
        return NULL;
    node->kind = kind;
    node->input_count = input_count;
    node->field_count = field_count;
    node->row_count = -1;
    node->inputs = arena_calloc(arena, input_count ? input_count : 1, sizeof(PlanNode *));
    node->fields = arena_calloc(arena, field_count ? field_count : 1, sizeof(PlanField));
    if (!node->inputs || !node->fields)
        return NULL;
    return node;
}

PlanNode *plan_node_copy(Arena *arena, const PlanNode *node)
{
    PlanNode *copy = arena_alloc(arena, sizeof(PlanNode));
    if (!copy)
        return NULL;
    *copy = *node;
    copy->inputs =
        arena_calloc(arena, node->input_count ? node->input_count : 1, sizeof(PlanNode *));
    if (!copy->inputs)
        return NULL;
    memcpy(copy->inputs, node->inputs, node->input_count * sizeof(PlanNode *));
    return copy;
}

const char *const *plan_field_names(Arena *arena, const PlanNode *node)
{
    const char **names = arena_calloc(arena, node->field_count + 1, sizeof(char *));
    if (!names)
        return NULL;
    for (uint32_t i = 0; i < node->field_count; i++)
        names[i] = node->fields[i].name;
    return names;
}

const char *const *plan_join_input_names(Arena *arena, const PlanNode *node)
{
    const PlanNode *left = node->inputs[0];
    const PlanNode *right = node->inputs[1];
    uint32_t count = left->field_count + right->field_count;
    const char **names = arena_calloc(arena, count + 1, sizeof(char *));
    if (!names)
        return NULL;
    /* the join's own fields carry the uniquified names of the combined input */
    if (node->field_count == count) {
        for (uint32_t i = 0; i < count; i++)
            names[i] = node->fields[i].name;
        return names;
    }
    PlanField *fields = arena_calloc(arena, count, sizeof(PlanField));
    if (!fields)
        return NULL;
    for (uint32_t i = 0; i < left->field_count; i++)
        fields[i] = left->fields[i];
    for (uint32_t i = 0; i < right->field_count; i++)
        fields[left->field_count + i] = right->fields[i];
    plan_uniquify_names(arena, fields, count);
    for (uint32_t i = 0; i < count; i++)
        names[i] = fields[i].name;
    return names;
}

void plan_uniquify_names(Arena *arena, PlanField *fields, uint32_t count)
{
    for (uint32_t i = 0; i < count; i++) {
        bool clash = false;
        for (uint32_t j = 0; j < i; j++)
            if (strcmp(fields[j].name, fields[i].name) == 0)
                clash = true;
        if (!clash)
            continue;
        /* Calcite style: name0, name1, ... the first suffix not taken */
        for (int suffix = 0;; suffix++) {
            char *candidate = arena_printf(arena, "%s%d", fields[i].name, suffix);
            if (!candidate)
                return;
            bool taken = false;
            for (uint32_t j = 0; j < count; j++)
                if (j != i && strcmp(fields[j].name, candidate) == 0)
                    taken = true;
            if (!taken) {
                fields[i].name = candidate;
                break;
            }
        }
    }
}

const char *plan_kind_name(PlanKind kind)
{
    return plan_kind_info(kind)->name;
}

bool plan_node_is_stateful(const PlanNode *node)
{
    return plan_kind_info(node->kind)->stateful;
}

bool plan_node_generates_watermarks(const PlanNode *node)
{
    const PlanKindInfo *info = plan_kind_info(node->kind);
    return info->generates_watermarks && info->generates_watermarks(node);
}

bool plan_table_is_upsert_source(const CatalogTable *table)
{
    const Connector *connector = connector_find(catalog_table_option(table, "connector"));
    return connector && connector->source_changelog && table->primary_key_count > 0 &&
           connector->source_changelog(table) == SOURCE_CHANGELOG_UPSERT;
}

int plan_scan_field_of_column(const PlanNode *node, int column)
{
    for (uint32_t f = 0; f < node->scan.column_count; f++)
        if ((int)node->scan.columns[f] == column)
            return (int)f;
    return -1;
}
