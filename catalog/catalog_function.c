/*
 * catalog_function.c - the user-defined functions of the catalog
 * (catalog.h): each a heap copy of its definition, kept sorted by
 * lower-cased name so SHOW FUNCTIONS is stable.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "catalog/catalog_internal.h"

static void catalog_function_free(CatalogFunction *function)
{
    if (!function)
        return;
    free(function->name);
    free(function->identifier);
    free(function->language);
    free(function->library);
    free(function);
}

void catalog_functions_free(Catalog *catalog)
{
    for (size_t i = 0; i < catalog->function_count; i++)
        catalog_function_free(catalog->functions[i]);
    free(catalog->functions);
}

static size_t catalog_function_position(const Catalog *catalog, const char *name, bool *found)
{
    size_t low = 0, high = catalog->function_count;
    while (low < high) {
        size_t middle = (low + high) / 2;
        int c = strcasecmp(catalog->functions[middle]->name, name);
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

static char *catalog_copy_text(const char *text)
{
    return strdup(text ? text : "");
}

int catalog_add_function(Catalog *catalog, const CatalogFunction *function, bool if_not_exists,
                         Diag *diag)
{
    bool found;
    size_t position = catalog_function_position(catalog, function->name, &found);
    if (found) {
        if (if_not_exists)
            return JOINERY_OK;
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Function `default_catalog`.`default_database`.`%s` already exists",
                          function->name);
    }
    if (catalog->function_count == catalog->function_capacity) {
        size_t capacity = catalog->function_capacity ? catalog->function_capacity * 2 : 8;
        CatalogFunction **functions =
            realloc(catalog->functions, capacity * sizeof *catalog->functions);
        if (!functions)
            return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        catalog->functions = functions;
        catalog->function_capacity = capacity;
    }
    CatalogFunction *copy = calloc(1, sizeof *copy);
    if (copy) {
        copy->name = catalog_copy_text(function->name);
        copy->identifier = catalog_copy_text(function->identifier);
        copy->language = catalog_copy_text(function->language);
        copy->library = catalog_copy_text(function->library);
        copy->temporary = function->temporary;
        copy->system = function->system;
    }
    if (!copy || !copy->name || !copy->identifier || !copy->language || !copy->library) {
        catalog_function_free(copy);
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    }
    memmove(catalog->functions + position + 1, catalog->functions + position,
            (catalog->function_count - position) * sizeof *catalog->functions);
    catalog->functions[position] = copy;
    catalog->function_count++;
    return JOINERY_OK;
}

const CatalogFunction *catalog_find_function(const Catalog *catalog, const char *name)
{
    bool found;
    size_t position = catalog_function_position(catalog, name, &found);
    return found ? catalog->functions[position] : NULL;
}

int catalog_drop_function(Catalog *catalog, const char *name, bool if_exists, Diag *diag)
{
    bool found;
    size_t position = catalog_function_position(catalog, name, &found);
    if (!found) {
        if (if_exists)
            return JOINERY_OK;
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Function `default_catalog`.`default_database`.`%s` does not exist",
                          name);
    }
    catalog_function_free(catalog->functions[position]);
    memmove(catalog->functions + position, catalog->functions + position + 1,
            (catalog->function_count - position - 1) * sizeof *catalog->functions);
    catalog->function_count--;
    return JOINERY_OK;
}

size_t catalog_function_count(const Catalog *catalog)
{
    return catalog->function_count;
}

const CatalogFunction *catalog_function_at(const Catalog *catalog, size_t index)
{
    return index < catalog->function_count ? catalog->functions[index] : NULL;
}
