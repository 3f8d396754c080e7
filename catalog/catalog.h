/*
 * catalog.h - the local catalog: tables, views and user-defined functions of
 * default_catalog.default_database.
 *
 * Ownership: a CatalogTable owns all its memory (its own arena). The catalog
 * owns the tables added to it; pointers returned by catalog_find stay valid
 * until the table is dropped or the catalog destroyed. Names are matched
 * case-insensitively and kept as written.
 *
 * The catalog stores definitions only (computed columns and watermarks as
 * SQL text, options as given); the engine validates and binds them. It
 * includes only engine/base.
 */
#ifndef JOINERY_CATALOG_H
#define JOINERY_CATALOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/base/arena.h"
#include "engine/base/diag.h"
#include "engine/base/type.h"

typedef enum CatalogColumnKind {
    CATALOG_COLUMN_PHYSICAL,
    CATALOG_COLUMN_COMPUTED,
    CATALOG_COLUMN_METADATA,
} CatalogColumnKind;

typedef struct CatalogColumn {
    char *name;
    DataType type; /* computed columns: the type the binder inferred */
    CatalogColumnKind kind;
    char *expression;   /* computed: SQL text of the expression */
    char *metadata_key; /* metadata: key, NULL = the column name */
    bool is_virtual;    /* metadata: VIRTUAL */
    char *comment;      /* NULL when none */
} CatalogColumn;

typedef struct CatalogOption {
    char *key;
    char *value;
} CatalogOption;

/* Statistics from connectors or ANALYZE TABLE; -1 means unknown. */
typedef struct CatalogStatistics {
    double row_count;
    double *distinct_counts; /* per column, NULL when unknown */
    double *null_counts;     /* per column, NULL when unknown */
} CatalogStatistics;

typedef struct CatalogTable {
    Arena arena; /* owns everything below */
    char *name;
    bool is_view;
    bool temporary;
    char *comment;
    CatalogColumn *columns;
    size_t column_count;
    char *watermark_column;     /* NULL when no watermark */
    char *watermark_expression; /* SQL text */
    char **primary_key;         /* column names */
    size_t primary_key_count;
    char **partition_keys; /* PARTITIONED BY (...): physical column names, in order */
    size_t partition_key_count;
    CatalogOption *options;
    size_t option_count;
    char *view_query; /* views: SQL text of the query */
    CatalogStatistics statistics;
} CatalogTable;

typedef struct Catalog Catalog;

/* Creates an empty catalog; NULL when memory is exhausted. */
Catalog *catalog_create(void);
/* Frees the catalog and every table in it. NULL is a no-op. */
void catalog_destroy(Catalog *catalog);

/* Allocates an empty table definition named `name` (the caller fills it). */
CatalogTable *catalog_table_new(const char *name, bool is_view);
/* Frees a table that was not added to a catalog. */
void catalog_table_free(CatalogTable *table);
/*
 * Adds `table`, taking ownership. If a table or view of that name exists:
 * with if_not_exists the new one is freed and JOINERY_OK returned, else an
 * error (JOINERY_ERROR_VALIDATE) and the table is freed too.
 */
int catalog_add(Catalog *catalog, CatalogTable *table, bool if_not_exists, Diag *diag);
/* Finds a table or view by name (case-insensitive); NULL when absent. */
CatalogTable *catalog_find(Catalog *catalog, const char *name);
/*
 * Drops a table (is_view false) or view. Missing: OK with if_exists, else an
 * error with a "did you mean" suggestion. Dropping a view with DROP TABLE
 * (or the reverse) is an error, as in Flink.
 */
int catalog_drop(Catalog *catalog, const char *name, bool is_view, bool if_exists, Diag *diag);
/* Number of entries and the entry at index i (sorted by name). */
size_t catalog_count(const Catalog *catalog);
CatalogTable *catalog_at(const Catalog *catalog, size_t index);

/* Value of option `key` of the table (exact key match), or NULL. */
const char *catalog_table_option(const CatalogTable *table, const char *key);
/* Index of the column named `name` (case-insensitive), or -1. */
int catalog_table_column_index(const CatalogTable *table, const char *name);

/*
 * User-defined functions (CREATE FUNCTION): definitions only, as written;
 * the engine loads and checks them (engine/udf/). Names are matched
 * case-insensitively, as Flink matches function names, and kept as written.
 */
typedef struct CatalogFunction {
    char *name;
    char *identifier; /* AS 'identifier': the C symbol of its descriptor */
    char *language;   /* "C" (upper case) */
    char *library;    /* USING JAR 'path' */
    bool temporary;
    bool system; /* TEMPORARY SYSTEM */
} CatalogFunction;

/*
 * Adds a copy of `function`. When one of that name exists: OK with
 * if_not_exists (nothing added), else JOINERY_ERROR_VALIDATE.
 */
int catalog_add_function(Catalog *catalog, const CatalogFunction *function, bool if_not_exists,
                         Diag *diag);
/* The function named `name` (case-insensitive), or NULL. */
const CatalogFunction *catalog_find_function(const Catalog *catalog, const char *name);
/* Drops it; missing: OK with if_exists, else JOINERY_ERROR_VALIDATE. */
int catalog_drop_function(Catalog *catalog, const char *name, bool if_exists, Diag *diag);
/* Number of functions and the one at index i (sorted by lower-cased name). */
size_t catalog_function_count(const Catalog *catalog);
const CatalogFunction *catalog_function_at(const Catalog *catalog, size_t index);

/*
 * The closest of `candidates` to `name` by edit distance (case-insensitive),
 * if close enough to be a plausible misspelling; else NULL.
 */
const char *catalog_suggest_name(const char *name, const char *const *candidates, size_t count);
/* Suggestion among the catalog's table and view names. */
const char *catalog_suggest_table(const Catalog *catalog, const char *name);
/*
 * The end of a "; did you mean 'suggestion" message: "'?", or "'? Names are
 * case-sensitive." when the two differ only in case (names are case-sensitive
 * as in Flink; keywords are not); "" when there is no suggestion.
 */
const char *catalog_suggestion_end(const char *name, const char *suggestion);

#endif
