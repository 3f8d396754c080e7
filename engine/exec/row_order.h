/*
 * row_order.h - the order of rows by a sort's collation (ORDER BY keys),
 * shared by the sorting operators (Sort, TemporalSort).
 *
 * A key is a field, its type, its direction and where its NULLs go. Rows
 * compare key by key; rows equal on every key compare by their bytes, so an
 * order is total and the same on every run and every state backend.
 */
#ifndef JOINERY_EXEC_ROW_ORDER_H
#define JOINERY_EXEC_ROW_ORDER_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/base/row.h"
#include "engine/base/type.h"

typedef struct RowOrderKey {
    uint32_t field;
    DataType type;
    bool descending;
    bool nulls_first;
} RowOrderKey;

typedef struct RowOrder {
    const RowOrderKey *keys; /* borrowed */
    uint32_t key_count;
} RowOrder;

/* < 0, 0, > 0 as `a` sorts before, with or after `b` by the keys only. */
int row_order_compare_keys(const RowOrder *order, const Row *a, const Row *b);
/* As row_order_compare_keys, rows equal on the keys then ordered by their bytes. */
int row_order_compare(const RowOrder *order, const Row *a, const Row *b);
/* Sorts `rows` (count of them) by row_order_compare; with `stable_ties` by the keys only,
   rows equal on them keeping their order (the sort is stable). */
void row_order_sort(const RowOrder *order, const Row **rows, uint32_t count, bool stable_ties);

#endif
