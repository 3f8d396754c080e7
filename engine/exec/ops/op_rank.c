/*
 * op_rank.c - Top-N per partition (see the header for what is emitted).
 *
 * Per input row: the partition's stored rows are read (a scan of its
 * MultisetState key, copied into the row arena), sorted by the sort fields
 * then the arrival sequence (the last field of a stored row), and the
 * change is computed on that array as Flink's TopN functions walk their
 * sorted buffers; the rows emitted are built from the copies, then the
 * state is changed (rows added, removed, evicted past rank_end). A stored
 * row is unique (its sequence is one more than the partition's largest),
 * so a row that arrives twice is two entries, each with its own place.
 * Invariants: APPEND_FAST and UPDATE_FAST keep at most rank_end rows per
 * partition; RETRACT keeps every row added and not retracted.
 */
#include "engine/exec/ops/op_rank.h"

#include <stdlib.h>
#include <string.h>

#include "engine/exec/key_extractor.h"
#include "engine/exec/row_order.h"
#include "engine/state/state.h"

enum { RANK_CLEANUP_KEYS = 1024 };

/* A stored row (the input fields, then the sequence) and its sequence. */
typedef struct RankItem {
    const Row *row;
    int64_t sequence;
} RankItem;

typedef struct RankOperator {
    Operator base;
    RankSpec spec;
    MultisetState *state;
    KeyExtractor key;
    RowBuilder builder;
    Arena arena; /* the partition's rows while one input row is processed */
    bool *variable_length;
    RowOrderKey *keys;     /* the sort fields, then the stored rows' sequence (ascending) */
    RowOrder order;        /* by the sort fields */
    RowOrder stored_order; /* by the sort fields, then the sequence: a total order */
} RankOperator;

/* ---------------------------------------------------------------- order */

/* By the sort fields only: negative when a ranks before b. */
static int compare_sort(const RankOperator *rank, const Row *a, const Row *b)
{
    return row_order_compare_keys(&rank->order, a, b);
}

/* True when fields[0..count) of a and b are equal (NULL equals NULL). */
static bool fields_equal(const RankOperator *rank, const Row *a, const Row *b,
                         const uint32_t *fields, uint32_t count)
{
    for (uint32_t i = 0; i < count; i++) {
        uint32_t f = fields ? fields[i] : i;
        bool a_null = row_is_null(a, f), b_null = row_is_null(b, f);
        if (a_null || b_null) {
            if (a_null != b_null)
                return false;
            continue;
        }
        if (rank->variable_length[f]) {
            uint32_t a_length, b_length;
            const char *a_text = row_get_string(a, f, &a_length);
            const char *b_text = row_get_string(b, f, &b_length);
            if (a_length != b_length || memcmp(a_text, b_text, a_length) != 0)
                return false;
        } else if (row_get_slot(a, f) != row_get_slot(b, f)) {
            return false;
        }
    }
    return true;
}

/* ---------------------------------------------------------------- rows */

/* The input fields of `row` plus `sequence`: the row as stored (builder's buffer). */
static const Row *build_stored(RankOperator *rank, const Row *row, int64_t sequence)
{
    uint32_t count = rank->spec.field_count;
    row_builder_begin(&rank->builder, count + 1, ROW_KIND_INSERT);
    for (uint32_t f = 0; f < count; f++)
        row_builder_copy_field(&rank->builder, f, row, f, rank->variable_length[f]);
    row_builder_set_int64(&rank->builder, count, sequence);
    return row_builder_finish(&rank->builder);
}

/* Emits `row` (input fields first) at `rank_number` as `kind`, if its rank is in range. */
static int emit(RankOperator *rank, const Row *row, int64_t rank_number, RowKind kind)
{
    const RankSpec *spec = &rank->spec;
    if (rank_number < spec->rank_start || rank_number > spec->rank_end)
        return JOINERY_OK;
    if (kind == ROW_KIND_UPDATE_BEFORE && !spec->generate_update_before)
        return JOINERY_OK;
    uint32_t count = spec->field_count;
    uint32_t out_count = count + (spec->output_rank_number ? 1 : 0);
    row_builder_begin(&rank->builder, out_count, kind);
    for (uint32_t f = 0; f < count; f++)
        row_builder_copy_field(&rank->builder, f, row, f, rank->variable_length[f]);
    if (spec->output_rank_number)
        row_builder_set_int64(&rank->builder, count, rank_number);
    const Row *out = row_builder_finish(&rank->builder);
    if (!out)
        return operator_fail(&rank->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
    return operator_emit(&rank->base, out, kind);
}

/* ---------------------------------------------------------------- state */

typedef struct Partition {
    const Row *key;
    uint64_t hash;
    MultisetKey *handle; /* NULL while the partition has no row */
    RankItem *items;     /* sorted */
    uint32_t count;
    int64_t next_sequence;
} Partition;

static int load_partition(RankOperator *rank, const Row *row, int64_t now, Partition *partition)
{
    memset(partition, 0, sizeof *partition);
    const Row *key = key_extractor_build(&rank->key, row, NULL);
    if (!key || !(key = row_copy(&rank->arena, key)))
        return operator_fail(&rank->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
    partition->key = key;
    partition->hash = row_content_hash(key);
    partition->handle = multiset_state_find(rank->state, key, partition->hash, now);
    if (!partition->handle && state_store_failed(rank->state->store))
        return operator_fail_state(&rank->base, "rank state");
    uint32_t capacity = partition->handle ? partition->handle->entry_count : 0;
    partition->items = arena_calloc(&rank->arena, (size_t)capacity + 2, sizeof(RankItem));
    const Row **rows = arena_calloc(&rank->arena, (size_t)capacity + 2, sizeof(Row *));
    if (!partition->items || !rows)
        return operator_fail(&rank->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
    partition->next_sequence = 1;
    if (!partition->handle)
        return JOINERY_OK;
    MultisetScan scan;
    multiset_scan_begin(rank->state, partition->handle, &scan);
    const MultisetEntry *entry;
    while ((entry = multiset_scan_next(&scan)) && partition->count < capacity) {
        Row *copy = row_copy(&rank->arena, entry->row);
        if (!copy) {
            multiset_scan_end(&scan);
            return operator_fail(&rank->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
        }
        int64_t sequence = row_get_int64(copy, rank->spec.field_count);
        rows[partition->count++] = copy;
        if (sequence >= partition->next_sequence)
            partition->next_sequence = sequence + 1;
    }
    multiset_scan_end(&scan);
    if (state_store_failed(rank->state->store))
        return operator_fail_state(&rank->base, "rank state");
    row_order_sort(&rank->stored_order, rows, partition->count, true);
    for (uint32_t i = 0; i < partition->count; i++)
        partition->items[i] = (RankItem){rows[i], row_get_int64(rows[i], rank->spec.field_count)};
    return JOINERY_OK;
}

static int add_stored(RankOperator *rank, Partition *partition, const Row *row, int64_t sequence,
                      int64_t now)
{
    if (!partition->handle) {
        partition->handle =
            multiset_state_insert_key(rank->state, partition->key, partition->hash, now);
        if (!partition->handle)
            return operator_fail_state(&rank->base, "rank state");
    }
    const Row *stored = build_stored(rank, row, sequence);
    if (!stored)
        return operator_fail(&rank->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
    if (!multiset_key_add_row(rank->state, partition->handle, stored, row_content_hash(stored), 1,
                              0, now))
        return operator_fail_state(&rank->base, "rank state");
    return JOINERY_OK;
}

/* Removes a stored row (one of the partition's items). */
static int remove_stored(RankOperator *rank, Partition *partition, const Row *stored)
{
    const MultisetEntry *entry =
        multiset_key_find_row(rank->state, partition->handle, stored, row_content_hash(stored));
    if (!entry || multiset_key_remove_entry(rank->state, partition->handle, entry) != JOINERY_OK)
        return operator_fail_state(&rank->base, "rank state");
    return JOINERY_OK;
}

/* Releases the partition's key when it has no row left. */
static int release_partition(RankOperator *rank, Partition *partition)
{
    if (partition->handle && partition->handle->entry_count == 0 &&
        multiset_state_release_key(rank->state, partition->handle) != JOINERY_OK)
        return operator_fail_state(&rank->base, "rank state");
    return JOINERY_OK;
}

/* ---------------------------------------------------------------- changes */

static bool with_number(const RankSpec *spec)
{
    return spec->output_rank_number || spec->rank_start > 1;
}

/* The 1-based rank a new row (sorting after its ties) takes among the items but `skip`. */
static uint32_t insert_position(const RankOperator *rank, const Partition *partition,
                                const Row *row, uint32_t skip)
{
    uint32_t before = 0;
    for (uint32_t i = 0; i < partition->count; i++)
        if (i != skip && compare_sort(rank, partition->items[i].row, row) <= 0)
            before++;
    return before + 1;
}

/* A row entering at rank p of n rows (items is the old order): what is emitted. */
static int emit_insert(RankOperator *rank, const Partition *partition, const Row *row, uint32_t p)
{
    const RankSpec *spec = &rank->spec;
    const RankItem *old = partition->items;
    int64_t n = partition->count;
    int status = JOINERY_OK;
    if (with_number(spec)) {
        int64_t limit = n + 1 < spec->rank_end ? n + 1 : spec->rank_end;
        for (int64_t r = p; r <= limit && status == JOINERY_OK; r++) {
            const Row *now_at = r == p ? row : old[r - 2].row;
            if (r <= n) {
                status = emit(rank, old[r - 1].row, r, ROW_KIND_UPDATE_BEFORE);
                if (status == JOINERY_OK)
                    status = emit(rank, now_at, r, ROW_KIND_UPDATE_AFTER);
            } else {
                status = emit(rank, now_at, r, ROW_KIND_INSERT);
            }
        }
        return status;
    }
    if (p > spec->rank_end)
        return JOINERY_OK;
    if (n >= spec->rank_end)
        status = emit(rank, old[spec->rank_end - 1].row, 1, ROW_KIND_DELETE);
    return status == JOINERY_OK ? emit(rank, row, 1, ROW_KIND_INSERT) : status;
}

/* The row at rank q of n leaves (items is the old order): what is emitted. */
static int emit_retract(RankOperator *rank, const Partition *partition, uint32_t q)
{
    const RankSpec *spec = &rank->spec;
    const RankItem *old = partition->items;
    int64_t n = partition->count;
    if (q > spec->rank_end)
        return JOINERY_OK;
    int status = JOINERY_OK;
    if (with_number(spec)) {
        int64_t last = n - 1 < spec->rank_end ? n - 1 : spec->rank_end;
        for (int64_t r = q; r <= last && status == JOINERY_OK; r++) {
            status = emit(rank, old[r - 1].row, r, ROW_KIND_UPDATE_BEFORE);
            if (status == JOINERY_OK)
                status = emit(rank, old[r].row, r, ROW_KIND_UPDATE_AFTER);
        }
        if (status == JOINERY_OK && n <= spec->rank_end)
            status = emit(rank, old[n - 1].row, n, ROW_KIND_DELETE);
        return status;
    }
    status = emit(rank, old[q - 1].row, 1, ROW_KIND_DELETE);
    if (status == JOINERY_OK && n > spec->rank_end)
        status = emit(rank, old[spec->rank_end].row, 1, ROW_KIND_INSERT);
    return status;
}

/*
 * A new row for the bounded strategies (APPEND_FAST, UPDATE_FAST with a new key): it enters
 * when the partition has fewer than rank_end rows or it ranks before the last; the row
 * pushed past rank_end leaves the state.
 */
static int accumulate_bounded(RankOperator *rank, Partition *partition, const Row *row, int64_t now)
{
    const RankSpec *spec = &rank->spec;
    uint32_t p = insert_position(rank, partition, row, UINT32_MAX);
    if (partition->count >= spec->rank_end && p > partition->count)
        return JOINERY_OK; /* not better than the last of a full top N */
    int status = emit_insert(rank, partition, row, p);
    if (status == JOINERY_OK)
        status = add_stored(rank, partition, row, partition->next_sequence, now);
    /* at most one row is pushed out: the old row at rank_end */
    if (status == JOINERY_OK && (int64_t)partition->count >= spec->rank_end)
        status = remove_stored(rank, partition, partition->items[spec->rank_end - 1].row);
    return status;
}

static int retract_row(RankOperator *rank, Partition *partition, const Row *row)
{
    uint32_t q = 0;
    for (uint32_t i = 0; i < partition->count && !q; i++)
        if (fields_equal(rank, partition->items[i].row, row, NULL, rank->spec.field_count))
            q = i + 1;
    if (!q) {
        rank->base.metrics.skipped_rows++; /* never stored (or expired): nothing to retract */
        return JOINERY_OK;
    }
    int status = emit_retract(rank, partition, q);
    if (status == JOINERY_OK)
        status = remove_stored(rank, partition, partition->items[q - 1].row);
    return status == JOINERY_OK ? release_partition(rank, partition) : status;
}

/* UPDATE_FAST: the row with the unique key of `row` moves from rank o to rank p. */
static int emit_update(RankOperator *rank, const Partition *partition, const Row *row, uint32_t o,
                       uint32_t p)
{
    const RankItem *old = partition->items;
    const Row *previous = old[o - 1].row;
    int status = JOINERY_OK;
    if (!with_number(&rank->spec)) {
        status = emit(rank, previous, 1, ROW_KIND_UPDATE_BEFORE);
        return status == JOINERY_OK ? emit(rank, row, 1, ROW_KIND_UPDATE_AFTER) : status;
    }
    if (p <= o) {
        /* up (or in place): the rows from p to o - 1 move down one rank */
        bool retracted = false;
        for (uint32_t r = p; r < o && status == JOINERY_OK; r++) {
            status = emit(rank, old[r - 1].row, r, ROW_KIND_UPDATE_BEFORE);
            if (status == JOINERY_OK && !retracted) {
                status = emit(rank, previous, o, ROW_KIND_UPDATE_BEFORE);
                retracted = true;
            }
            if (status == JOINERY_OK)
                status = emit(rank, r == p ? row : old[r - 2].row, r, ROW_KIND_UPDATE_AFTER);
        }
        if (status == JOINERY_OK && !retracted)
            status = emit(rank, previous, o, ROW_KIND_UPDATE_BEFORE);
        if (status == JOINERY_OK)
            status = emit(rank, o == p ? row : old[o - 2].row, o, ROW_KIND_UPDATE_AFTER);
        return status;
    }
    /* down (not monotonic, lenient): the rows from o + 1 to p move up one rank */
    status = emit(rank, previous, o, ROW_KIND_UPDATE_BEFORE);
    for (uint32_t r = o + 1; r <= p && status == JOINERY_OK; r++) {
        status = emit(rank, old[r - 1].row, r, ROW_KIND_UPDATE_BEFORE);
        if (status == JOINERY_OK)
            status = emit(rank, old[r - 1].row, r - 1, ROW_KIND_UPDATE_AFTER);
    }
    return status == JOINERY_OK ? emit(rank, row, p, ROW_KIND_UPDATE_AFTER) : status;
}

static int upsert_row(RankOperator *rank, Partition *partition, const Row *row, int64_t now)
{
    const RankSpec *spec = &rank->spec;
    uint32_t o = 0;
    for (uint32_t i = 0; i < partition->count && !o; i++)
        if (fields_equal(rank, partition->items[i].row, row, spec->unique_key_fields,
                         spec->unique_key_count))
            o = i + 1;
    if (!o)
        return accumulate_bounded(rank, partition, row, now);
    const RankItem *previous = &partition->items[o - 1];
    bool same_place = compare_sort(rank, row, previous->row) == 0;
    /* a moved row goes after its new ties; one that keeps its sort fields keeps its place */
    uint32_t p = same_place ? o : insert_position(rank, partition, row, o - 1);
    int64_t sequence = same_place ? previous->sequence : partition->next_sequence;
    int status = emit_update(rank, partition, row, o, p);
    if (status == JOINERY_OK)
        status = remove_stored(rank, partition, previous->row);
    if (status == JOINERY_OK)
        status = add_stored(rank, partition, row, sequence, now);
    return status;
}

static int rank_process(Operator *self, uint32_t input, const RowBatch *batch)
{
    (void)input;
    RankOperator *rank = self->impl;
    const RankSpec *spec = &rank->spec;
    int64_t now = operator_now_millis(self);
    for (uint32_t r = 0; r < batch->count; r++) {
        const Row *row = batch->rows[r];
        RowKind kind = row_kind(row);
        if (spec->strategy == RANK_STRATEGY_APPEND_FAST && kind != ROW_KIND_INSERT)
            return operator_fail(self, JOINERY_ERROR_RUNTIME,
                                 "Rank (AppendFastStrategy) received a %s row: its input must be "
                                 "append-only",
                                 row_kind_name(kind));
        if (spec->strategy == RANK_STRATEGY_UPDATE_FAST) {
            if (kind == ROW_KIND_UPDATE_BEFORE)
                continue; /* the +U that follows is an upsert by the unique key */
            if (kind == ROW_KIND_DELETE)
                return operator_fail(self, JOINERY_ERROR_RUNTIME,
                                     "Rank (UpdateFastStrategy) received a -D row: its input "
                                     "must not delete");
        }
        arena_reset(&rank->arena);
        Partition partition;
        int status = load_partition(rank, row, now, &partition);
        if (status != JOINERY_OK)
            return status;
        if (spec->strategy == RANK_STRATEGY_UPDATE_FAST)
            status = upsert_row(rank, &partition, row, now);
        else if (spec->strategy == RANK_STRATEGY_APPEND_FAST)
            status = accumulate_bounded(rank, &partition, row, now);
        else if (row_kind_is_accumulate(kind)) {
            uint32_t p = insert_position(rank, &partition, row, UINT32_MAX);
            status = emit_insert(rank, &partition, row, p);
            if (status == JOINERY_OK)
                status = add_stored(rank, &partition, row, partition.next_sequence, now);
        } else {
            status = retract_row(rank, &partition, row);
        }
        if (status != JOINERY_OK)
            return status;
    }
    arena_reset(&rank->arena);
    return JOINERY_OK;
}

/* ---------------------------------------------------------------- lifecycle */

/* The recurring TTL cleanup timer (the only timer it registers). */
static int rank_on_timer(Operator *self, TimerDomain domain, int64_t timestamp, const Row *key)
{
    (void)domain;
    (void)timestamp;
    (void)key;
    RankOperator *rank = self->impl;
    self->metrics.expired_rows +=
        multiset_state_cleanup(rank->state, operator_timer_now(self), RANK_CLEANUP_KEYS);
    return operator_schedule_cleanup(self);
}

static void rank_report_state(Operator *self)
{
    RankOperator *rank = self->impl;
    if (!rank->state)
        return;
    StateCounters counters = multiset_state_counters(rank->state);
    self->metrics.state_bytes = counters.bytes;
    self->metrics.state_keys = counters.keys;
    self->metrics.state_rows = counters.entries;
}

static int rank_open(Operator *self, ExecContext *context)
{
    RankOperator *rank = self->impl;
    if (!context->state_store)
        return operator_fail(self, JOINERY_ERROR, "rank: no state store");
    rank->state = multiset_state_create(context->state_store, rank->spec.ttl_millis);
    if (!rank->state)
        return operator_fail_state(self, "rank state");
    return rank->spec.ttl_millis > 0 ? operator_schedule_cleanup(self) : JOINERY_OK;
}

static int rank_snapshot(Operator *self, const Barrier *barrier, const StateWriter *writer)
{
    (void)barrier;
    RankOperator *rank = self->impl;
    return multiset_state_snapshot(rank->state, writer, self->context->diag);
}

static int rank_restore(Operator *self, const StateReader *reader)
{
    RankOperator *rank = self->impl;
    return multiset_state_restore(rank->state, reader, self->context->diag);
}

static void rank_close(Operator *self)
{
    RankOperator *rank = self->impl;
    multiset_state_destroy(rank->state);
    key_extractor_free(&rank->key);
    row_builder_free(&rank->builder);
    arena_destroy(&rank->arena);
    free(rank->variable_length);
    free(rank->keys);
    free(rank);
}

static const OperatorVtable RANK_VTABLE = {
    .open = rank_open,
    .process = rank_process,
    .on_timer = rank_on_timer,
    .snapshot = rank_snapshot,
    .restore = rank_restore,
    .report_state = rank_report_state,
    .close = rank_close,
};

Operator *rank_operator_create(const RankSpec *spec, Diag *diag)
{
    bool valid = spec->sort_count > 0 && spec->rank_start >= 1 &&
                 spec->rank_end >= spec->rank_start && spec->rank_end < UINT32_MAX;
    for (uint32_t i = 0; valid && i < spec->sort_count; i++)
        valid = spec->sort_fields[i].field < spec->field_count;
    for (uint32_t i = 0; valid && i < spec->partition_count; i++)
        valid = spec->partition_fields[i] < spec->field_count;
    if (spec->strategy == RANK_STRATEGY_UPDATE_FAST)
        for (uint32_t i = 0; valid && i <= spec->unique_key_count; i++)
            valid = i == spec->unique_key_count ? spec->unique_key_count > 0
                                                : spec->unique_key_fields[i] < spec->field_count;
    if (!valid) {
        diag_error(diag, JOINERY_ERROR_VALIDATE, "rank: invalid spec");
        return NULL;
    }
    RankOperator *rank = calloc(1, sizeof *rank);
    bool *variable_length = calloc(spec->field_count + 1, sizeof(bool));
    RowOrderKey *keys = calloc(spec->sort_count + 1, sizeof(RowOrderKey));
    if (!rank || !variable_length || !keys ||
        !key_extractor_init(&rank->key, spec->partition_count, spec->partition_fields, spec->types,
                            NULL)) {
        free(rank);
        free(variable_length);
        free(keys);
        diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        return NULL;
    }
    for (uint32_t f = 0; f < spec->field_count; f++)
        variable_length[f] = type_is_variable_length(spec->types[f].id);
    rank->variable_length = variable_length;
    rank->keys = keys;
    rank->spec = *spec;
    for (uint32_t k = 0; k < spec->sort_count; k++) {
        rank->keys[k] = spec->sort_fields[k];
        rank->keys[k].type = spec->types[spec->sort_fields[k].field];
    }
    rank->keys[spec->sort_count] =
        (RowOrderKey){.field = spec->field_count, .type = type_make(TYPE_BIGINT, false)};
    rank->order = (RowOrder){rank->keys, spec->sort_count};
    rank->stored_order = (RowOrder){rank->keys, spec->sort_count + 1};
    row_builder_init(&rank->builder);
    arena_init(&rank->arena, 16384);
    operator_init(&rank->base, &RANK_VTABLE, "Rank", 1, rank);
    rank->base.uses_timers = spec->ttl_millis > 0;
    return &rank->base;
}
