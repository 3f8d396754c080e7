/* upsert_input.c - an upsert change as the retraction of the stored row and the new row
   (see upsert_input.h). */
#include "engine/exec/upsert_input.h"

int upsert_input_apply(MultisetState *state, MultisetKey *part, const Row *row, Arena *arena,
                       UpsertInputStep *step, void *context)
{
    bool accumulate = row_kind_is_accumulate(row_kind(row));
    Row *stored = NULL;
    if (part && part->entry_count) {
        MultisetScan scan;
        multiset_scan_begin(state, part, &scan);
        const MultisetEntry *entry = multiset_scan_next(&scan);
        /* a copy: retracting it changes the state the view points into */
        stored = entry ? row_copy(arena, entry->row) : NULL;
        bool copied = !entry || stored;
        multiset_scan_end(&scan);
        if (!copied)
            return JOINERY_ERROR_NO_MEMORY;
    }
    if (stored) {
        row_set_kind(stored, accumulate ? ROW_KIND_UPDATE_BEFORE : ROW_KIND_DELETE);
        int status = step(context, stored);
        if (status != JOINERY_OK)
            return status;
    }
    if (!accumulate)
        return JOINERY_OK;
    Row *fresh = row_copy(arena, row);
    if (!fresh)
        return JOINERY_ERROR_NO_MEMORY;
    row_set_kind(fresh, stored ? ROW_KIND_UPDATE_AFTER : ROW_KIND_INSERT);
    return step(context, fresh);
}
