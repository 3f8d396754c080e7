/*
 * row_order.c - row comparison by sort keys, and a sort of row pointers
 * (a merge sort: no recursion into the data, O(n log n), stable).
 */
#include "engine/exec/row_order.h"

#include <stdlib.h>
#include <string.h>

#include "engine/base/value.h"

int row_order_compare_keys(const RowOrder *order, const Row *a, const Row *b)
{
    for (uint32_t k = 0; k < order->key_count; k++) {
        const RowOrderKey *key = &order->keys[k];
        bool a_null = row_is_null(a, key->field), b_null = row_is_null(b, key->field);
        int result;
        if (a_null || b_null) {
            if (a_null && b_null)
                continue;
            /* a NULL goes first when nulls_first, whatever the direction */
            result = a_null ? -1 : 1;
            if (!key->nulls_first)
                result = -result;
            return result;
        }
        result = value_compare(key->type, value_from_row(a, key->field, key->type),
                               value_from_row(b, key->field, key->type));
        if (result != 0)
            return key->descending ? -result : result;
    }
    return 0;
}

int row_order_compare(const RowOrder *order, const Row *a, const Row *b)
{
    int result = row_order_compare_keys(order, a, b);
    if (result != 0)
        return result;
    uint32_t a_size = row_size(a), b_size = row_size(b);
    /* the rows of one sort share their kind (+I), so their bytes order them */
    result = memcmp((const char *)a, (const char *)b, a_size < b_size ? a_size : b_size);
    return result != 0 ? result : (a_size > b_size) - (a_size < b_size);
}

static int row_order_compare_for(const RowOrder *order, const Row *a, const Row *b,
                                 bool stable_ties)
{
    return stable_ties ? row_order_compare_keys(order, a, b) : row_order_compare(order, a, b);
}

void row_order_sort(const RowOrder *order, const Row **rows, uint32_t count, bool stable_ties)
{
    if (count < 2)
        return;
    const Row **scratch = malloc(count * sizeof *scratch);
    if (!scratch) {
        /* no memory for the merge: an insertion sort in place (slow, correct) */
        for (uint32_t i = 1; i < count; i++) {
            const Row *row = rows[i];
            uint32_t j = i;
            for (; j > 0 && row_order_compare_for(order, rows[j - 1], row, stable_ties) > 0; j--)
                rows[j] = rows[j - 1];
            rows[j] = row;
        }
        return;
    }
    /* bottom-up merge sort */
    const Row **from = rows, **to = scratch;
    for (uint32_t width = 1; width < count; width *= 2) {
        for (uint32_t left = 0; left < count; left += 2 * width) {
            uint32_t middle = left + width < count ? left + width : count;
            uint32_t right = left + 2 * width < count ? left + 2 * width : count;
            uint32_t i = left, j = middle, k = left;
            while (i < middle && j < right)
                to[k++] = row_order_compare_for(order, from[j], from[i], stable_ties) < 0
                              ? from[j++]
                              : from[i++];
            while (i < middle)
                to[k++] = from[i++];
            while (j < right)
                to[k++] = from[j++];
        }
        const Row **swap = from;
        from = to;
        to = swap;
    }
    if (from != rows)
        memcpy(rows, from, count * sizeof *rows);
    free(scratch);
}
