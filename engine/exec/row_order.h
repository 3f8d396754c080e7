/*
 * row_order.h - the order of rows by sort fields (ORDER BY of Top-N and
 * window Top-N): each field ASC or DESC with NULLs first or last, values
 * compared as value_compare does for the field's type; a stable sort of
 * rows in that order.
 */
#ifndef JOINERY_EXEC_ROW_ORDER_H
#define JOINERY_EXEC_ROW_ORDER_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/base/row.h"
#include "engine/base/type.h"

typedef struct RowOrderField {
    uint32_t field;
    bool descending;
    bool nulls_first;
} RowOrderField;

typedef struct RowOrder {
    const RowOrderField *fields; /* borrowed */
    uint32_t count;
    const DataType *types; /* borrowed: the rows' field types */
} RowOrder;

/* Negative when a sorts before b, 0 when they tie on every sort field, else positive. */
int row_order_compare(const RowOrder *order, const Row *a, const Row *b);

/* One row to sort and the arrival sequence that breaks its ties (smaller first). */
typedef struct RowOrderItem {
    const Row *row;
    int64_t sequence;
} RowOrderItem;

/* Sorts items[0..count) by the order, then the sequence; `scratch` holds count items. */
void row_order_sort(const RowOrder *order, RowOrderItem *items, RowOrderItem *scratch,
                    uint32_t count);

#endif
