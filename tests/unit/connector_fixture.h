/*
 * connector_fixture.h - test support shared by the connector suites
 * (check_connector.c, check_nexmark.c): catalog tables built in memory, a
 * SourceSpec over all their columns, and readers drained into row lists
 * that compare as multisets. Header-only (static inline) so each suite
 * stays one translation unit.
 */
#ifndef JOINERY_TESTS_CONNECTOR_FIXTURE_H
#define JOINERY_TESTS_CONNECTOR_FIXTURE_H

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "engine/connector/connector.h"

typedef struct TestColumn {
    const char *name;
    DataType type;
    const char *metadata_key; /* non-NULL: a metadata column */
} TestColumn;

static inline CatalogTable *make_table(const char *name, const TestColumn *columns,
                                       size_t column_count, const char *const *options,
                                       size_t option_count)
{
    CatalogTable *table = catalog_table_new(name, false);
    ck_assert_ptr_nonnull(table);
    table->columns = arena_calloc(&table->arena, column_count + 1, sizeof *table->columns);
    for (size_t i = 0; i < column_count; i++) {
        table->columns[i].name = arena_strdup(&table->arena, columns[i].name);
        table->columns[i].type = columns[i].type;
        table->columns[i].kind =
            columns[i].metadata_key ? CATALOG_COLUMN_METADATA : CATALOG_COLUMN_PHYSICAL;
        table->columns[i].metadata_key = arena_strdup(&table->arena, columns[i].metadata_key);
    }
    table->column_count = column_count;
    table->options = arena_calloc(&table->arena, option_count + 1, sizeof *table->options);
    for (size_t i = 0; i < option_count; i++) {
        table->options[i].key = arena_strdup(&table->arena, options[2 * i]);
        table->options[i].value = arena_strdup(&table->arena, options[2 * i + 1]);
    }
    table->option_count = option_count;
    return table;
}

/* A SourceSpec over every column of the table (kept alive by the caller). */
typedef struct TestSpec {
    SourceSpec spec;
    uint32_t columns[32];
    DataType types[32];
} TestSpec;

static inline void make_spec(TestSpec *test, const CatalogTable *table, int subtask,
                             int parallelism, uint64_t seed)
{
    memset(test, 0, sizeof *test);
    for (size_t i = 0; i < table->column_count; i++) {
        test->columns[i] = (uint32_t)i;
        test->types[i] = table->columns[i].type;
    }
    test->spec.table = table;
    test->spec.field_count = (uint32_t)table->column_count;
    test->spec.columns = test->columns;
    test->spec.types = test->types;
    test->spec.subtask_index = subtask;
    test->spec.parallelism = parallelism;
    test->spec.seed = seed;
}

/* Rows collected from a source (heap copies). */
typedef struct RowList {
    Row **rows;
    size_t count;
    size_t capacity;
} RowList;

static inline void row_list_add(RowList *list, const Row *row)
{
    if (list->count == list->capacity) {
        list->capacity = list->capacity ? list->capacity * 2 : 64;
        list->rows = realloc(list->rows, list->capacity * sizeof *list->rows);
    }
    list->rows[list->count++] = row_copy_heap(row);
}

static inline void row_list_free(RowList *list)
{
    for (size_t i = 0; i < list->count; i++)
        free(list->rows[i]);
    free(list->rows);
    memset(list, 0, sizeof *list);
}

/*
 * Polls until END (time advancing 1 s a poll, so rate limits never stop
 * it) or an error; returns the last status. Diag filled on error.
 */
static inline int drain(SourceReader *reader, RowList *list, Diag *diag)
{
    Row *slots[ROW_BATCH_CAPACITY];
    Arena arena;
    arena_init(&arena, 0);
    int64_t now = 1000000;
    int status;
    for (int polls = 0; polls < 100000; polls++) {
        RowBatch batch = {slots, 0, ROW_BATCH_CAPACITY};
        int64_t next = 0;
        status = reader->vtable->poll(reader, &batch, &arena, ROW_BATCH_CAPACITY, now, &next, diag);
        if (status < 0 || status == SOURCE_POLL_END)
            break;
        for (uint32_t i = 0; i < batch.count; i++)
            row_list_add(list, batch.rows[i]);
        arena_reset(&arena);
        now += 1000;
    }
    arena_destroy(&arena);
    return status;
}

static inline int read_all(const CatalogTable *table, int subtask, int parallelism, uint64_t seed,
                           RowList *list, Diag *diag, uint64_t *skipped)
{
    const Connector *connector = connector_find(catalog_table_option(table, "connector"));
    ck_assert_ptr_nonnull(connector);
    TestSpec spec;
    make_spec(&spec, table, subtask, parallelism, seed);
    SourceReader *reader = NULL;
    diag_clear(diag);
    int status = connector->create_source(&spec.spec, &reader, diag);
    if (status != JOINERY_OK)
        return status;
    status = drain(reader, list, diag);
    if (skipped)
        *skipped = reader->skipped_rows;
    reader->vtable->close(reader);
    return status;
}

static inline int compare_rows(const void *a, const void *b)
{
    const Row *x = *(Row *const *)a, *y = *(Row *const *)b;
    if (row_size(x) != row_size(y))
        return row_size(x) < row_size(y) ? -1 : 1;
    return memcmp(x, y, row_size(x));
}

/* True when both lists hold the same rows, in any order. */
static inline bool same_multiset(RowList *a, RowList *b)
{
    if (a->count != b->count)
        return false;
    qsort(a->rows, a->count, sizeof *a->rows, compare_rows);
    qsort(b->rows, b->count, sizeof *b->rows, compare_rows);
    for (size_t i = 0; i < a->count; i++)
        if (compare_rows(&a->rows[i], &b->rows[i]) != 0)
            return false;
    return true;
}

#endif
