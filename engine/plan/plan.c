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
 * current one holds it, and, as a base name, which suffixes are known taken
 * (bit s: base followed by the digits of s is held) and the first not tried.
 */
typedef struct NameSlot {
    const char *name; /* NULL: empty slot */
    uint32_t length;
    uint32_t holders : 31;    /* fields whose current name this is */
    uint32_t held_before : 1; /* a field before the current one has this name */
    uint32_t next_suffix;
    uint32_t taken_words; /* length of taken */
    uint64_t *taken;      /* bits of taken suffixes, NULL until one is known */
} NameSlot;

typedef struct NameSet {
    NameSlot *slots;
    size_t mask;         /* capacity - 1, a power of two at least twice the names */
    uint32_t suffix_cap; /* suffixes at or above it are never needed */
} NameSet;

/* The slot of name[0..length); inserts it (pointing at name) when `insert`, else NULL if absent. */
static NameSlot *name_set_find(NameSet *set, const char *name, size_t length, bool insert)
{
    size_t index = (size_t)XXH3_64bits(name, length) & set->mask;
    for (;; index = (index + 1) & set->mask) {
        NameSlot *slot = &set->slots[index];
        if (!slot->name) {
            if (!insert)
                return NULL;
            slot->name = name;
            slot->length = (uint32_t)length;
            return slot;
        }
        if (slot->length == length && memcmp(slot->name, name, length) == 0)
            return slot;
    }
}

static NameSlot *name_set_slot(NameSet *set, const char *name)
{
    return name_set_find(set, name, strlen(name), true);
}

/* Marks suffix taken for the base in slot; false when out of memory. */
static bool name_slot_mark(NameSet *set, NameSlot *slot, uint32_t suffix)
{
    if (suffix >= set->suffix_cap)
        return true;
    uint32_t word = suffix / 64;
    if (word >= slot->taken_words) {
        uint32_t words = set->suffix_cap / 64 + 1;
        uint64_t *taken = realloc(slot->taken, words * sizeof(uint64_t));
        if (!taken)
            return false;
        memset(taken + slot->taken_words, 0, (words - slot->taken_words) * sizeof(uint64_t));
        slot->taken = taken;
        slot->taken_words = words;
    }
    slot->taken[word] |= (uint64_t)1 << (suffix % 64);
    return true;
}

static bool name_slot_is_marked(const NameSlot *slot, uint32_t suffix)
{
    uint32_t word = suffix / 64;
    return word < slot->taken_words && (slot->taken[word] >> (suffix % 64)) & 1;
}

/*
 * Records the held name as a suffix of every base it spells with digits
 * (x12 is x1 + 2 and x + 12; digits with a leading zero are no suffix),
 * for the bases that are held names. False when out of memory.
 */
static bool name_set_mark_suffixes(NameSet *set, const char *name)
{
    size_t length = strlen(name);
    size_t digits_start = length;
    while (digits_start > 0 && name[digits_start - 1] >= '0' && name[digits_start - 1] <= '9')
        digits_start--;
    for (size_t split = digits_start; split < length; split++) {
        if ((name[split] == '0' && split + 1 < length) || length - split > 9)
            continue;
        uint32_t suffix = (uint32_t)strtoul(name + split, NULL, 10);
        NameSlot *base = name_set_find(set, name, split, false);
        if (base && !name_slot_mark(set, base, suffix))
            return false;
    }
    return true;
}

/*
 * Calcite's rule, in field order: a name already held by an earlier field
 * becomes name0, name1, ... the first suffix no field holds at that moment.
 * The set of held names only grows (a field is renamed only when an earlier
 * one keeps the name), so a suffix once taken stays taken: each base keeps a
 * bitset of taken suffixes, filled once from the names held at the start, and
 * resumes its search where it stopped. A name spelled later that also reads as
 * base + digits of another base is caught by the set lookup. Linear in the
 * fields (their trailing digits), where probing suffix by suffix was
 * quadratic in the duplicates of one name (a 1,000-way join, GROUP BY x, x, ...).
 */
void plan_uniquify_names(Arena *arena, PlanField *fields, uint32_t count)
{
    if (count < 2)
        return;
    /* at most 2 x count names (each field's first and its new one): load <= 1/2 */
    size_t capacity = 16;
    while (capacity < (size_t)count * 4)
        capacity *= 2;
    NameSet set = {.slots = calloc(capacity, sizeof(NameSlot)),
                   .mask = capacity - 1,
                   /* the first free suffix of a base is at most the names held: 2 x count */
                   .suffix_cap = 2 * count + 2};
    if (!set.slots)
        return;
    bool any_clash = false;
    for (uint32_t i = 0; i < count; i++) {
        NameSlot *slot = name_set_slot(&set, fields[i].name);
        if (slot->holders++ > 0)
            any_clash = true;
    }
    bool ok = true;
    for (uint32_t i = 0; any_clash && ok && i < count; i++)
        ok = name_set_mark_suffixes(&set, fields[i].name);
    for (uint32_t i = 0; any_clash && ok && i < count; i++) {
        NameSlot *slot = name_set_slot(&set, fields[i].name);
        if (!slot->held_before) {
            slot->held_before = true;
            continue;
        }
        char candidate[64];
        size_t length = slot->length;
        char *spelled = length + 12 <= sizeof candidate ? candidate : malloc(length + 12);
        if (!spelled)
            break;
        memcpy(spelled, fields[i].name, length);
        uint32_t suffix = slot->next_suffix;
        NameSlot *target;
        for (;; suffix++) {
            if (name_slot_is_marked(slot, suffix))
                continue;
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
            if (target->holders == 0)
                break;
            ok = name_slot_mark(&set, slot, suffix);
            if (!ok)
                break;
        }
        char *kept = ok ? arena_strdup(arena, spelled) : NULL;
        if (spelled != candidate)
            free(spelled);
        if (!kept) {
            if (ok)
                target->name = NULL; /* the slot pointed at the scratch spelling */
            break;
        }
        target->name = kept;
        slot->next_suffix = suffix + 1;
        slot->holders--;
        target->holders = 1;
        target->held_before = true;
        fields[i].name = kept;
    }
    for (size_t i = 0; i < capacity; i++)
        free(set.slots[i].taken);
    free(set.slots);
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
