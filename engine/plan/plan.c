/*
 * plan.c - plan node allocation, field naming; a kind's name and flags come
 * from its descriptor (nodes/nodes.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "engine/plan/plan.h"

#include "engine/connector/connector.h"
#include "engine/plan/nodes/nodes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <xxhash.h>

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

/*
 * The names held while plan_uniquify_names works: an open-addressing set of
 * strings, each with how many fields hold it now, whether a field before the
 * current one holds it, and, as a base name, the first suffix not yet tried.
 */
typedef struct NameSlot {
    const char *name;
    uint32_t generation; /* the call that filled it; another value: empty */
    uint32_t length;
    uint32_t holders : 31;    /* fields whose current name this is */
    uint32_t held_before : 1; /* a field before the current one has this name */
    uint32_t next_suffix;
} NameSlot;

typedef struct NameSet {
    NameSlot *slots;
    size_t mask;         /* capacity - 1, a power of two at least twice the names */
    uint32_t generation; /* of this call; never 0 */
} NameSet;

/*
 * The table, kept per thread and reused by the next call: planning calls
 * plan_uniquify_names once per join and projection on field lists as long
 * as the whole join (a 1,000-table chain: ~3,000 lists of up to 2,000
 * names), and a fresh zeroed table per call cost more in page faults than
 * the work. It grows to the largest list seen and is never freed.
 */
static _Thread_local struct {
    NameSlot *slots;
    size_t capacity;
    uint32_t generation;
} name_scratch;

/* A set of `capacity` slots (a power of two) for one call; false when out of memory. */
static bool name_set_open(NameSet *set, size_t capacity)
{
    if (name_scratch.capacity < capacity) {
        free(name_scratch.slots);
        name_scratch.slots = calloc(capacity, sizeof(NameSlot));
        name_scratch.capacity = name_scratch.slots ? capacity : 0;
        name_scratch.generation = 0;
        if (!name_scratch.slots)
            return false;
    }
    if (++name_scratch.generation == 0) { /* wrapped: make every slot empty again */
        for (size_t i = 0; i < name_scratch.capacity; i++)
            name_scratch.slots[i].generation = 0;
        name_scratch.generation = 1;
    }
    set->slots = name_scratch.slots;
    set->mask = capacity - 1; /* the first `capacity` slots */
    set->generation = name_scratch.generation;
    return true;
}

/* The slot of name (added, pointing at name, when absent). */
static NameSlot *name_set_slot(NameSet *set, const char *name)
{
    size_t length = strlen(name);
    size_t index = (size_t)XXH3_64bits(name, length) & set->mask;
    for (;; index = (index + 1) & set->mask) {
        NameSlot *slot = &set->slots[index];
        if (slot->generation != set->generation) {
            *slot =
                (NameSlot){.name = name, .generation = set->generation, .length = (uint32_t)length};
            return slot;
        }
        if (slot->length == length && memcmp(slot->name, name, length) == 0)
            return slot;
    }
}

/*
 * Calcite's rule, in field order: a name already held by an earlier field
 * becomes name0, name1, ... the first suffix no field holds at that moment.
 * The set of held names only grows (a field is renamed only when an earlier
 * one keeps the name), so a suffix found taken stays taken and each base
 * name resumes its search where it stopped: every probe that fails is a
 * distinct held name spelling base + digits, so the work is linear in the
 * fields (times their trailing digits). The old function compared every
 * field with every other for every suffix it tried: cubic in the
 * duplicates of one name (a 1,000-way join, GROUP BY x, x, ...).
 */
void plan_uniquify_names(Arena *arena, PlanField *fields, uint32_t count)
{
    if (count < 2)
        return;
    /*
     * At most count names: the distinct ones, plus one new name per field
     * renamed, and a field is renamed exactly when an earlier one has its
     * name (a new name is one no field holds). Load <= 1/2.
     */
    size_t capacity = 16;
    while (capacity < (size_t)count * 2)
        capacity *= 2;
    NameSet set;
    if (!name_set_open(&set, capacity))
        return;
    bool any_clash = false;
    for (uint32_t i = 0; i < count; i++) {
        NameSlot *slot = name_set_slot(&set, fields[i].name);
        if (slot->holders++ > 0)
            any_clash = true;
    }
    for (uint32_t i = 0; any_clash && i < count; i++) {
        NameSlot *slot = name_set_slot(&set, fields[i].name);
        if (!slot->held_before) {
            slot->held_before = true;
            continue;
        }
        char candidate[64];
        size_t length = slot->length;
        char *spelled = length + 12 <= sizeof candidate ? candidate : malloc(length + 12);
        if (!spelled)
            return;
        memcpy(spelled, fields[i].name, length);
        uint32_t suffix = slot->next_suffix;
        NameSlot *target;
        for (;; suffix++) {
            /* the digits of suffix after the base */
            char digits[12];
            size_t digit_count = 0;
            uint32_t rest = suffix;
            do {
                digits[digit_count++] = (char)('0' + rest % 10);
                rest /= 10;
            } while (rest > 0);
            for (size_t d = 0; d < digit_count; d++)
                spelled[length + d] = digits[digit_count - 1 - d];
            spelled[length + digit_count] = '\0';
            target = name_set_slot(&set, spelled);
            if (target->holders == 0) /* just added: no field holds it */
                break;
        }
        char *kept = arena_strdup(arena, spelled);
        if (spelled != candidate)
            free(spelled);
        if (!kept) {
            target->generation = 0; /* the slot pointed at the scratch spelling */
            return;
        }
        target->name = kept;
        slot->next_suffix = suffix + 1;
        slot->holders--;
        target->holders = 1;
        target->held_before = true;
        fields[i].name = kept;
    }
}

const char *plan_kind_name(PlanKind kind)
{
    return plan_kind_info(kind)->name;
}

bool plan_key_within(const PlanKey *key, const uint32_t *fields, uint32_t count)
{
    for (uint32_t i = 0; i < key->count; i++) {
        bool found = false;
        for (uint32_t j = 0; j < count && !found; j++)
            found = key->fields[i] == fields[j];
        if (!found)
            return false;
    }
    return true;
}

bool plan_node_is_stateful(const PlanNode *node)
{
    /* a Sink keeps state when it materializes its input by the table's key */
    return plan_kind_info(node->kind)->stateful ||
           (node->kind == PLAN_SINK && node->sink.upsert_materialize);
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
