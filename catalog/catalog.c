/*
 * catalog.c - tables and views of the local catalog (see catalog.h).
 * Entries are kept sorted by lower-cased name so listings are stable.
 */
#define _POSIX_C_SOURCE 200809L
#include "catalog/catalog.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "catalog/catalog_internal.h"

Catalog *catalog_create(void)
{
    return calloc(1, sizeof(Catalog));
}

void catalog_table_free(CatalogTable *table)
{
    if (!table)
        return;
    arena_destroy(&table->arena);
    free(table);
}

void catalog_destroy(Catalog *catalog)
{
    if (!catalog)
        return;
    for (size_t i = 0; i < catalog->count; i++)
        catalog_table_free(catalog->tables[i]);
    free(catalog->tables);
    catalog_functions_free(catalog);
    free(catalog);
}

CatalogTable *catalog_table_new(const char *name, bool is_view)
{
    CatalogTable *table = calloc(1, sizeof(CatalogTable));
    if (!table)
        return NULL;
    arena_init(&table->arena, 4096);
    table->name = arena_strdup(&table->arena, name);
    table->is_view = is_view;
    table->statistics.row_count = -1;
    if (!table->name) {
        catalog_table_free(table);
        return NULL;
    }
    return table;
}

static size_t catalog_position(const Catalog *catalog, const char *name, bool *found)
{
    size_t low = 0, high = catalog->count;
    while (low < high) {
        size_t middle = (low + high) / 2;
        int c = strcmp(catalog->tables[middle]->name, name); /* names are case-sensitive */
        if (c == 0) {
            *found = true;
            return middle;
        }
        if (c < 0)
            low = middle + 1;
        else
            high = middle;
    }
    *found = false;
    return low;
}

int catalog_add(Catalog *catalog, CatalogTable *table, bool if_not_exists, Diag *diag)
{
    bool found;
    size_t position = catalog_position(catalog, table->name, &found);
    if (found) {
        bool existing_is_view = catalog->tables[position]->is_view;
        char name[256];
        snprintf(name, sizeof name, "%s", table->name);
        catalog_table_free(table);
        if (if_not_exists)
            return JOINERY_OK;
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "%s `default_catalog`.`default_database`.`%s` already exists",
                          existing_is_view ? "View" : "Table", name);
    }
    if (catalog->count == catalog->capacity) {
        size_t capacity = catalog->capacity ? catalog->capacity * 2 : 16;
        CatalogTable **tables = realloc(catalog->tables, capacity * sizeof *tables);
        if (!tables) {
            catalog_table_free(table);
            return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        }
        catalog->tables = tables;
        catalog->capacity = capacity;
    }
    memmove(catalog->tables + position + 1, catalog->tables + position,
            (catalog->count - position) * sizeof *catalog->tables);
    catalog->tables[position] = table;
    catalog->count++;
    return JOINERY_OK;
}

CatalogTable *catalog_find(Catalog *catalog, const char *name)
{
    bool found;
    size_t position = catalog_position(catalog, name, &found);
    return found ? catalog->tables[position] : NULL;
}

int catalog_drop(Catalog *catalog, const char *name, bool is_view, bool if_exists, Diag *diag)
{
    bool found;
    size_t position = catalog_position(catalog, name, &found);
    if (!found || catalog->tables[position]->is_view != is_view) {
        if (found)
            return diag_error(diag, JOINERY_ERROR_VALIDATE, "%s `%s` is a %s; use DROP %s",
                              is_view ? "View" : "Table", name, is_view ? "table" : "view",
                              is_view ? "TABLE" : "VIEW");
        if (if_exists)
            return JOINERY_OK;
        const char *suggestion = catalog_suggest_table(catalog, name);
        if (suggestion)
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "%s `default_catalog`.`default_database`.`%s` does not exist; "
                              "did you mean '%s%s",
                              is_view ? "View" : "Table", name, suggestion,
                              catalog_suggestion_end(name, suggestion));
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "%s `default_catalog`.`default_database`.`%s` does not exist",
                          is_view ? "View" : "Table", name);
    }
    catalog_table_free(catalog->tables[position]);
    memmove(catalog->tables + position, catalog->tables + position + 1,
            (catalog->count - position - 1) * sizeof *catalog->tables);
    catalog->count--;
    return JOINERY_OK;
}

size_t catalog_count(const Catalog *catalog)
{
    return catalog->count;
}

CatalogTable *catalog_at(const Catalog *catalog, size_t index)
{
    return index < catalog->count ? catalog->tables[index] : NULL;
}

const char *catalog_table_option(const CatalogTable *table, const char *key)
{
    for (size_t i = 0; i < table->option_count; i++)
        if (strcmp(table->options[i].key, key) == 0)
            return table->options[i].value;
    return NULL;
}

int catalog_table_column_index(const CatalogTable *table, const char *name)
{
    for (size_t i = 0; i < table->column_count; i++)
        if (strcmp(table->columns[i].name, name) == 0)
            return (int)i;
    return -1;
}

static size_t edit_distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > 64 || m > 64)
        return 64;
    size_t previous[65], current[65];
    for (size_t j = 0; j <= m; j++)
        previous[j] = j;
    for (size_t i = 1; i <= n; i++) {
        current[0] = i;
        for (size_t j = 1; j <= m; j++) {
            size_t cost =
                tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]) ? 0 : 1;
            size_t best = previous[j - 1] + cost;
            if (previous[j] + 1 < best)
                best = previous[j] + 1;
            if (current[j - 1] + 1 < best)
                best = current[j - 1] + 1;
            current[j] = best;
        }
        memcpy(previous, current, (m + 1) * sizeof(size_t));
    }
    return previous[m];
}

const char *catalog_suggest_name(const char *name, const char *const *candidates, size_t count)
{
    const char *best = NULL;
    size_t best_distance = (size_t)-1;
    size_t length = strlen(name);
    size_t limit = length <= 3 ? 1 : length <= 6 ? 2 : 3;
    for (size_t i = 0; i < count; i++) {
        size_t distance = edit_distance(name, candidates[i]);
        if (distance < best_distance) {
            best_distance = distance;
            best = candidates[i];
        }
    }
    return best_distance <= limit ? best : NULL;
}

const char *catalog_suggest_table(const Catalog *catalog, const char *name)
{
    const char *best = NULL;
    for (size_t i = 0; i < catalog->count; i++) {
        const char *candidate = catalog->tables[i]->name;
        if (catalog_suggest_name(name, &candidate, 1)) {
            if (!best || edit_distance(name, candidate) < edit_distance(name, best))
                best = candidate;
        }
    }
    return best;
}

const char *catalog_suggestion_end(const char *name, const char *suggestion)
{
    if (!suggestion)
        return "";
    return strcasecmp(name, suggestion) == 0 ? "'? Names are case-sensitive." : "'?";
}
