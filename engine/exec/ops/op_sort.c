/*
 * op_sort.c - the batch Sort operator (see op_sort.h).
 */
#include "engine/exec/ops/op_sort.h"

#include <stdlib.h>
#include <string.h>

#include "engine/state/state.h"

typedef struct SortOperator {
    Operator base;
    SortSpec spec;
    MultisetState *state;
    RowBuilder builder;
    Row *empty_key; /* malloc'ed */
    uint64_t empty_hash;
    Arena scratch; /* the rows copied out at finish */
} SortOperator;

static int sort_process(Operator *self, uint32_t input, const RowBatch *batch)
{
    (void)input;
    SortOperator *sort = self->impl;
    int64_t now = operator_now_millis(self);
    MultisetKey *key =
        multiset_state_insert_key(sort->state, sort->empty_key, sort->empty_hash, now);
    if (!key)
        return operator_fail_state(self, "sort state");
    for (uint32_t i = 0; i < batch->count; i++) {
        const Row *row = batch->rows[i];
        uint64_t hash = row_content_hash(row);
        const MultisetEntry *entry = multiset_key_find_row(sort->state, key, row, hash);
        int status = JOINERY_OK;
        if (row_kind_is_accumulate(row_kind(row))) {
            if (!entry)
                status = multiset_key_add_row(sort->state, key, row, hash, 1, 0, now)
                             ? JOINERY_OK
                             : JOINERY_ERROR;
            else if (multiset_count_can_add(entry->count, 1))
                status = multiset_entry_update(sort->state, key, entry, entry->count + 1, 0, now);
            else
                return operator_fail(self, JOINERY_ERROR_RUNTIME,
                                     "Sort: a row is present more than %d times",
                                     MULTISET_COUNT_MAX);
        } else if (entry) {
            status = entry->count > 1
                         ? multiset_entry_update(sort->state, key, entry, entry->count - 1, 0, now)
                         : multiset_key_remove_entry(sort->state, key, entry);
        }
        /* a retraction of a row never received is dropped (engine/README.md, "Changelog") */
        if (status != JOINERY_OK)
            return operator_fail_state(self, "sort state");
    }
    return JOINERY_OK;
}

static int sort_finish(Operator *self)
{
    SortOperator *sort = self->impl;
    int64_t now = operator_now_millis(self);
    MultisetKey *key = multiset_state_find(sort->state, sort->empty_key, sort->empty_hash, now);
    if (!key)
        return state_store_failed(self->context->state_store)
                   ? operator_fail_state(self, "sort state")
                   : JOINERY_OK;
    uint64_t total = 0, capacity = 64;
    const Row **rows = malloc(capacity * sizeof *rows);
    if (!rows)
        return operator_fail(self, JOINERY_ERROR_NO_MEMORY, "out of memory");
    MultisetScan scan;
    multiset_scan_begin(sort->state, key, &scan);
    int status = JOINERY_OK;
    for (const MultisetEntry *entry; (entry = multiset_scan_next(&scan)) != NULL;) {
        Row *copy = row_copy(&sort->scratch, entry->row);
        if (!copy) {
            status = operator_fail(self, JOINERY_ERROR_NO_MEMORY, "out of memory");
            break;
        }
        for (int32_t c = 0; c < entry->count; c++) {
            if (total == capacity) {
                const Row **grown = realloc(rows, 2 * capacity * sizeof *rows);
                if (!grown) {
                    status = operator_fail(self, JOINERY_ERROR_NO_MEMORY, "out of memory");
                    break;
                }
                rows = grown;
                capacity *= 2;
            }
            rows[total++] = copy;
        }
        if (status != JOINERY_OK)
            break;
    }
    multiset_scan_end(&scan);
    if (status == JOINERY_OK && state_store_failed(self->context->state_store))
        status = operator_fail_state(self, "sort state");
    if (status == JOINERY_OK && total > UINT32_MAX)
        status = operator_fail(self, JOINERY_ERROR_RUNTIME, "Sort: more than 2^32 rows");
    if (status == JOINERY_OK) {
        RowOrder order = {sort->spec.keys, sort->spec.key_count};
        row_order_sort(&order, rows, (uint32_t)total, false);
        uint64_t first = (uint64_t)sort->spec.offset;
        uint64_t end = sort->spec.fetch < 0 ? total : first + (uint64_t)sort->spec.fetch;
        for (uint64_t i = first; i < total && i < end && status == JOINERY_OK; i++)
            status = operator_emit(self, rows[i], ROW_KIND_INSERT);
    }
    free(rows);
    if (status == JOINERY_OK && multiset_state_remove_key(sort->state, key) != JOINERY_OK)
        status = operator_fail_state(self, "sort state");
    arena_reset(&sort->scratch);
    return status;
}

static void sort_report_state(Operator *self)
{
    SortOperator *sort = self->impl;
    StateCounters counters = multiset_state_counters(sort->state);
    self->metrics.state_bytes = counters.bytes;
    self->metrics.state_keys = counters.keys;
    self->metrics.state_rows = counters.entries;
}

static int sort_open(Operator *self, ExecContext *context)
{
    SortOperator *sort = self->impl;
    if (!context->state_store)
        return operator_fail(self, JOINERY_ERROR, "sort: no state store");
    sort->state = multiset_state_create(context->state_store, 0);
    if (!sort->state)
        return operator_fail_state(self, "sort state");
    row_builder_begin(&sort->builder, 0, ROW_KIND_INSERT);
    const Row *key = row_builder_finish(&sort->builder);
    sort->empty_key = key ? malloc(row_size(key)) : NULL;
    if (!sort->empty_key)
        return operator_fail(self, JOINERY_ERROR_NO_MEMORY, "out of memory");
    memcpy(sort->empty_key, key, row_size(key));
    sort->empty_hash = row_content_hash(sort->empty_key);
    return JOINERY_OK;
}

static int sort_snapshot(Operator *self, const Barrier *barrier, const StateWriter *writer)
{
    (void)barrier;
    SortOperator *sort = self->impl;
    return multiset_state_snapshot(sort->state, writer, self->context->diag);
}

static int sort_restore(Operator *self, const StateReader *reader)
{
    SortOperator *sort = self->impl;
    return multiset_state_restore(sort->state, reader, self->context->diag);
}

static void sort_close(Operator *self)
{
    SortOperator *sort = self->impl;
    multiset_state_destroy(sort->state);
    row_builder_free(&sort->builder);
    free(sort->empty_key);
    arena_destroy(&sort->scratch);
    free(sort);
}

static const OperatorVtable SORT_VTABLE = {
    .open = sort_open,
    .process = sort_process,
    .finish = sort_finish,
    .snapshot = sort_snapshot,
    .restore = sort_restore,
    .report_state = sort_report_state,
    .close = sort_close,
};

Operator *sort_operator_create(const SortSpec *spec, Diag *diag)
{
    SortOperator *sort = calloc(1, sizeof *sort);
    if (!sort) {
        diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        return NULL;
    }
    sort->spec = *spec;
    row_builder_init(&sort->builder);
    arena_init(&sort->scratch, 0);
    operator_init(&sort->base, &SORT_VTABLE, "Sort", 1, sort);
    return &sort->base;
}
