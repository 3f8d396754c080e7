/*
 * mini_batch_fold.c - see mini_batch_fold.h. A key's rows are visited in
 * arrival order along the buffer's chain, and each retraction pairs with the
 * nearest open accumulation before it (a stack), so a row inserted, retracted
 * and inserted again keeps exactly its last insertion.
 */
#include "engine/exec/mini_batch_fold.h"

#include <stdlib.h>
#include <string.h>

#include "engine/base/diag.h"

/* Makes room for `count` rows in the three arrays. false on no memory (arrays kept). */
static bool mini_batch_fold_reserve(MiniBatchFold *fold, uint32_t count)
{
    if (count <= fold->capacity)
        return true;
    bool *folded = realloc(fold->folded, count * sizeof *folded);
    if (folded)
        fold->folded = folded;
    uint32_t *open_rows = realloc(fold->open_rows, count * sizeof *open_rows);
    if (open_rows)
        fold->open_rows = open_rows;
    const Row **survivors = realloc(fold->survivors, count * sizeof *survivors);
    if (survivors)
        fold->survivors = survivors;
    if (!folded || !open_rows || !survivors)
        return false;
    fold->capacity = count;
    return true;
}

int mini_batch_fold_rows(MiniBatchFold *fold, const MiniBatchBuffer *buffer, RowBatch *survivors)
{
    uint32_t count = buffer->row_count;
    *survivors = (RowBatch){.rows = NULL, .count = 0, .capacity = 0};
    if (!count)
        return JOINERY_OK;
    if (!mini_batch_fold_reserve(fold, count))
        return JOINERY_ERROR_NO_MEMORY;
    memset(fold->folded, 0, count * sizeof *fold->folded);
    for (uint32_t k = 0; k < buffer->key_count; k++) {
        uint32_t open = 0;
        for (uint32_t r = buffer->keys[k].first; r != UINT32_MAX; r = buffer->rows[r].next) {
            if (row_kind_is_accumulate(row_kind(buffer->rows[r].row))) {
                fold->open_rows[open++] = r;
            } else if (open > 0) {
                fold->folded[fold->open_rows[--open]] = true;
                fold->folded[r] = true;
                fold->folded_rows += 2;
            }
        }
    }
    uint32_t kept = 0;
    for (uint32_t r = 0; r < count; r++)
        if (!fold->folded[r])
            fold->survivors[kept++] = buffer->rows[r].row;
    *survivors = (RowBatch){.rows = (Row **)fold->survivors, .count = kept, .capacity = kept};
    return JOINERY_OK;
}

void mini_batch_fold_free(MiniBatchFold *fold)
{
    free(fold->folded);
    free(fold->open_rows);
    free(fold->survivors);
    memset(fold, 0, sizeof *fold);
}
