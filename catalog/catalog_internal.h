/*
 * catalog_internal.h - the Catalog's fields, shared by catalog.c (tables and
 * views) and catalog_function.c (functions). Not used outside catalog/.
 */
#ifndef JOINERY_CATALOG_INTERNAL_H
#define JOINERY_CATALOG_INTERNAL_H

#include "catalog/catalog.h"

struct Catalog {
    CatalogTable **tables; /* sorted by name */
    size_t count;
    size_t capacity;
    CatalogFunction **functions; /* sorted by lower-cased name */
    size_t function_count;
    size_t function_capacity;
};

/* Frees the functions (catalog_destroy). */
void catalog_functions_free(Catalog *catalog);

#endif
