/*
 * row_order.c - comparing rows by sort fields and a bottom-up merge sort
 * (no global state: operators of different tasks sort at once).
 */
#include "engine/exec/row_order.h"

#include <string.h>

#include "engine/base/value.h"

static int compare_field(const RowOrder *order, const RowOrderField *sort, const Row *a,
                         const Row *b)
{
    bool a_null = row_is_null(a, sort->field), b_null = row_is_null(b, sort->field);
    if (a_null || b_null) {
        if (a_null && b_null)
            return 0;
        return (a_null == sort->nulls_first) ? -1 : 1;
    }
    DataType type = order->types[sort->field];
    int c = value_compare(type, value_from_row(a, sort->field, type),
                          value_from_row(b, sort->field, type));
    return sort->descending ? -c : c;
}

int row_order_compare(const RowOrder *order, const Row *a, const Row *b)
{
    for (uint32_t i = 0; i < order->count; i++) {
        int c = compare_field(order, &order->fields[i], a, b);
        if (c)
            return c;
    }
    return 0;
}

static int compare_items(const RowOrder *order, const RowOrderItem *a, const RowOrderItem *b)
{
    int c = row_order_compare(order, a->row, b->row);
    if (c)
        return c;
    return a->sequence < b->sequence ? -1 : a->sequence > b->sequence;
}

void row_order_sort(const RowOrder *order, RowOrderItem *items, RowOrderItem *scratch,
                    uint32_t count)
{
    for (uint32_t width = 1; width < count; width *= 2) {
        for (uint32_t low = 0; low < count; low += 2 * width) {
            uint32_t middle = low + width < count ? low + width : count;
            uint32_t high = low + 2 * width < count ? low + 2 * width : count;
            uint32_t i = low, j = middle, k = low;
            while (i < middle && j < high)
                scratch[k++] =
                    compare_items(order, &items[j], &items[i]) < 0 ? items[j++] : items[i++];
            while (i < middle)
                scratch[k++] = items[i++];
            while (j < high)
                scratch[k++] = items[j++];
        }
        memcpy(items, scratch, count * sizeof *items);
    }
}
