/*
 * op_session_window_table_function.c - the SESSION window table function
 * (see op_session_window_table_function.h).
 *
 * Per row: the key's sessions are read from the value state into a
 * SessionWindows set, the row's window merged in; a late merged session is
 * taken out again and the row dropped; otherwise the row is stored (time,
 * tag = the key's arrival counter), the timers of the absorbed sessions are
 * deleted, the merged session's timer set, and the sessions written back.
 * Per timer (key, t): the session ending at t + 1 fires: its rows (times in
 * [start, end)) are collected, sorted by arrival, emitted, and removed.
 */
#include "engine/exec/ops/op_session_window_table_function.h"

#include <stdlib.h>
#include <string.h>

#include "engine/exec/key_extractor.h"
#include "engine/exec/window/window_assigner.h"
#include "engine/state/state.h"

enum { SESSION_MAX_ABSORBED = 64 };

/* A firing session's row, copied out of state. */
typedef struct SessionRow {
    const Row *row;
    int64_t order;
} SessionRow;

typedef struct SessionWindowOperator {
    Operator base;
    SessionWindowSpec spec;
    KeyExtractor key;
    ValueState *sessions; /* key -> [counter, start0, end0, ...] */
    SortedState *rows;    /* key -> rows by time, tag = arrival order */
    SessionWindows set;   /* scratch: one key's sessions */
    bool *variable_length;
    RowBuilder builder;
    SessionRow *firing;
    uint32_t firing_count, firing_capacity;
    Arena scratch;
    uint64_t late_rows;
} SessionWindowOperator;

static const OperatorVtable SESSION_WINDOW_VTABLE;

/*
 * Reads the key's sessions (stored sorted and apart) into op->set; *counter gets its arrival
 * counter (0 when new). False when memory is exhausted.
 */
static bool session_read(SessionWindowOperator *op, const ValueEntry *entry, int64_t *counter)
{
    op->set.count = 0;
    *counter = 0;
    if (!entry || !entry->value)
        return true;
    const Row *value = entry->value;
    *counter = row_get_int64(value, 0);
    uint32_t pairs = (row_field_count(value) - 1) / 2;
    if (!session_windows_reserve(&op->set, pairs))
        return false;
    for (uint32_t i = 0; i < pairs; i++)
        op->set.windows[i] =
            (WindowBounds){row_get_int64(value, 1 + 2 * i), row_get_int64(value, 2 + 2 * i)};
    op->set.count = pairs;
    return true;
}

/* Writes op->set and the counter back (the key goes when it has no session left). */
static int session_write(SessionWindowOperator *op, const Row *key, uint64_t hash,
                         const ValueEntry *entry, int64_t counter)
{
    if (op->set.count == 0) {
        if (entry && value_state_remove(op->sessions, entry) != JOINERY_OK)
            return operator_fail_state(&op->base, "session window state");
        return JOINERY_OK;
    }
    if (!entry)
        entry = value_state_insert(op->sessions, key, hash, 0);
    if (!entry)
        return operator_fail_state(&op->base, "session window state");
    row_builder_begin(&op->builder, 1 + 2 * op->set.count, ROW_KIND_INSERT);
    row_builder_set_int64(&op->builder, 0, counter);
    for (uint32_t i = 0; i < op->set.count; i++) {
        row_builder_set_int64(&op->builder, 1 + 2 * i, op->set.windows[i].start);
        row_builder_set_int64(&op->builder, 2 + 2 * i, op->set.windows[i].end);
    }
    const Row *value = row_builder_finish(&op->builder);
    if (!value)
        return operator_fail(&op->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
    if (value_state_set(op->sessions, entry, value, 0) != JOINERY_OK)
        return operator_fail_state(&op->base, "session window state");
    return JOINERY_OK;
}

static int session_process_row(SessionWindowOperator *op, const Row *row)
{
    const SessionWindowSpec *spec = &op->spec;
    if (row_kind(row) != ROW_KIND_INSERT)
        return operator_fail(&op->base, JOINERY_ERROR,
                             "the SESSION window table function received a %s row: its input "
                             "must be append-only",
                             row_kind_name(row_kind(row)));
    if (row_is_null(row, spec->time_field)) {
        op->base.metrics.skipped_rows++;
        return JOINERY_OK;
    }
    int64_t time = row_get_int64(row, spec->time_field);
    const Row *built = key_extractor_build(&op->key, row, NULL);
    if (!built)
        return operator_fail(&op->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
    /* the key is rebuilt by later calls: keep a copy */
    size_t key_size = row_size(built);
    Row *key = arena_alloc(&op->scratch, key_size);
    if (!key)
        return operator_fail(&op->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
    memcpy(key, built, key_size);
    uint64_t hash = row_content_hash(key);
    const ValueEntry *entry = value_state_find(op->sessions, key, hash, 0);
    if (!entry && state_store_failed(op->sessions->store))
        return operator_fail_state(&op->base, "session window state");
    int64_t counter;
    if (!session_read(op, entry, &counter))
        return operator_fail(&op->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
    WindowBounds merged, absorbed[SESSION_MAX_ABSORBED];
    uint32_t absorbed_count;
    if (!session_windows_add(&op->set, time, spec->gap_millis, &merged, absorbed,
                             SESSION_MAX_ABSORBED, &absorbed_count))
        return operator_fail(&op->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
    int64_t watermark = op->base.input_watermark;
    if (watermark != INT64_MIN && merged.end - 1 <= watermark) {
        /* late: it touched no open session (those end after the watermark) */
        op->late_rows++;
        return JOINERY_OK;
    }
    if (absorbed_count > SESSION_MAX_ABSORBED)
        return operator_fail(&op->base, JOINERY_ERROR, "a row merged more than %d sessions at once",
                             SESSION_MAX_ABSORBED);
    for (uint32_t i = 0; i < absorbed_count; i++)
        if (absorbed[i].end != merged.end) {
            int status =
                operator_delete_timer(&op->base, TIMER_EVENT_TIME, absorbed[i].end - 1, key);
            if (status != JOINERY_OK)
                return status;
        }
    if (sorted_state_add(op->rows, key, hash, time, row, counter) != JOINERY_OK)
        return operator_fail_state(&op->base, "session window state");
    int status = operator_register_timer(&op->base, TIMER_EVENT_TIME, merged.end - 1, key);
    if (status == JOINERY_OK)
        status =
            session_write(op, key, hash, value_state_find(op->sessions, key, hash, 0), counter + 1);
    return status;
}

static int session_process(Operator *self, uint32_t input, const RowBatch *batch)
{
    (void)input;
    SessionWindowOperator *op = self->impl;
    int status = JOINERY_OK;
    for (uint32_t r = 0; r < batch->count && status == JOINERY_OK; r++) {
        status = session_process_row(op, batch->rows[r]);
        arena_reset(&op->scratch);
    }
    return status;
}

static int compare_session_rows(const void *a, const void *b)
{
    int64_t x = ((const SessionRow *)a)->order, y = ((const SessionRow *)b)->order;
    return (x > y) - (x < y);
}

/* Emits the session [start, end) of `key`: its rows in arrival order, then removes them. */
static int session_fire(SessionWindowOperator *op, const Row *key, uint64_t hash,
                        WindowBounds session)
{
    op->firing_count = 0;
    SortedScan scan;
    sorted_scan_begin(op->rows, key, hash, session.start, session.end - 1, &scan);
    const SortedEntry *entry;
    int status = JOINERY_OK;
    while (status == JOINERY_OK && (entry = sorted_scan_next(&scan)) != NULL) {
        if (op->firing_count == op->firing_capacity) {
            uint32_t capacity = op->firing_capacity ? op->firing_capacity * 2 : 16;
            SessionRow *rows = realloc(op->firing, capacity * sizeof *rows);
            if (!rows) {
                status = operator_fail(&op->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
                break;
            }
            op->firing = rows;
            op->firing_capacity = capacity;
        }
        size_t size = row_size(entry->row);
        Row *copy = arena_alloc(&op->scratch, size);
        if (!copy) {
            status = operator_fail(&op->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
            break;
        }
        memcpy(copy, entry->row, size);
        op->firing[op->firing_count++] = (SessionRow){copy, entry->tag};
    }
    sorted_scan_end(&scan);
    if (status != JOINERY_OK)
        return status;
    if (state_store_failed(op->rows->store))
        return operator_fail_state(&op->base, "session window state");
    qsort(op->firing, op->firing_count, sizeof *op->firing, compare_session_rows);
    uint32_t fields = op->spec.input_field_count;
    for (uint32_t i = 0; i < op->firing_count && status == JOINERY_OK; i++) {
        const Row *row = op->firing[i].row;
        row_builder_begin(&op->builder, fields + 3, ROW_KIND_INSERT);
        for (uint32_t f = 0; f < fields; f++)
            row_builder_copy_field(&op->builder, f, row, f, op->variable_length[f]);
        row_builder_set_int64(&op->builder, fields, session.start);
        row_builder_set_int64(&op->builder, fields + 1, session.end);
        row_builder_set_int64(&op->builder, fields + 2, session.end - 1);
        const Row *out = row_builder_finish(&op->builder);
        status = out ? operator_emit(&op->base, out, ROW_KIND_INSERT)
                     : operator_fail(&op->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
    }
    if (status == JOINERY_OK && op->firing_count &&
        sorted_state_remove_range(op->rows, key, hash, session.start, session.end - 1, NULL) !=
            JOINERY_OK)
        status = operator_fail_state(&op->base, "session window state");
    return status;
}

static int session_on_timer(Operator *self, TimerDomain domain, int64_t timestamp, const Row *key)
{
    SessionWindowOperator *op = self->impl;
    if (domain != TIMER_EVENT_TIME)
        return JOINERY_OK;
    uint64_t hash = row_content_hash(key);
    const ValueEntry *entry = value_state_find(op->sessions, key, hash, 0);
    if (!entry)
        return state_store_failed(op->sessions->store)
                   ? operator_fail_state(self, "session window state")
                   : JOINERY_OK;
    int64_t counter;
    if (!session_read(op, entry, &counter))
        return operator_fail(self, JOINERY_ERROR_NO_MEMORY, "out of memory");
    int status = JOINERY_OK;
    for (uint32_t i = 0; i < op->set.count && status == JOINERY_OK; i++) {
        WindowBounds session = op->set.windows[i];
        if (session.end - 1 != timestamp)
            continue;
        status = session_fire(op, key, hash, session);
        if (status == JOINERY_OK) {
            memmove(&op->set.windows[i], &op->set.windows[i + 1],
                    (op->set.count - i - 1) * sizeof *op->set.windows);
            op->set.count--;
            status = session_write(op, key, hash, entry, counter);
        }
        break;
    }
    arena_reset(&op->scratch);
    return status;
}

static int session_open(Operator *self, ExecContext *context)
{
    SessionWindowOperator *op = self->impl;
    if (!context->state_store)
        return operator_fail(self, JOINERY_ERROR, "session window: no state store");
    op->sessions = value_state_create(context->state_store, 0);
    op->rows = op->sessions ? sorted_state_create(context->state_store) : NULL;
    if (!op->rows)
        return operator_fail_state(self, "session window state");
    return JOINERY_OK;
}

static void session_report_state(Operator *self)
{
    SessionWindowOperator *op = self->impl;
    if (!op->sessions || !op->rows)
        return;
    StateCounters sessions = value_state_counters(op->sessions);
    StateCounters rows = sorted_state_counters(op->rows);
    self->metrics.state_bytes = sessions.bytes + rows.bytes;
    self->metrics.state_keys = sessions.keys;
    self->metrics.state_rows = rows.entries;
}

static int session_snapshot(Operator *self, const Barrier *barrier, const StateWriter *writer)
{
    (void)barrier;
    SessionWindowOperator *op = self->impl;
    int status = value_state_snapshot(op->sessions, writer, self->context->diag);
    return status == JOINERY_OK ? sorted_state_snapshot(op->rows, writer, self->context->diag)
                                : status;
}

static int session_restore(Operator *self, const StateReader *reader)
{
    SessionWindowOperator *op = self->impl;
    int status = value_state_restore(op->sessions, reader, self->context->diag);
    return status == JOINERY_OK ? sorted_state_restore(op->rows, reader, self->context->diag)
                                : status;
}

static void session_close(Operator *self)
{
    SessionWindowOperator *op = self->impl;
    value_state_destroy(op->sessions);
    sorted_state_destroy(op->rows);
    key_extractor_free(&op->key);
    session_windows_free(&op->set);
    free(op->variable_length);
    free(op->firing);
    row_builder_free(&op->builder);
    arena_destroy(&op->scratch);
    free(op);
}

static const OperatorVtable SESSION_WINDOW_VTABLE = {
    .open = session_open,
    .process = session_process,
    .on_timer = session_on_timer,
    .snapshot = session_snapshot,
    .restore = session_restore,
    .report_state = session_report_state,
    .close = session_close,
};

uint64_t session_window_operator_late_rows(const Operator *op)
{
    if (!op || op->vtable != &SESSION_WINDOW_VTABLE)
        return 0;
    return ((const SessionWindowOperator *)op->impl)->late_rows;
}

Operator *session_window_operator_create(const SessionWindowSpec *spec, Diag *diag)
{
    if (spec->gap_millis <= 0 || spec->time_field >= spec->input_field_count) {
        diag_error(diag, JOINERY_ERROR_VALIDATE, "session window: bad spec");
        return NULL;
    }
    SessionWindowOperator *op = calloc(1, sizeof *op);
    if (!op) {
        diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        return NULL;
    }
    op->spec = *spec;
    op->variable_length = calloc(spec->input_field_count + 1, sizeof(bool));
    for (uint32_t f = 0; op->variable_length && f < spec->input_field_count; f++)
        op->variable_length[f] = type_is_variable_length(spec->input_types[f].id);
    bool keys = key_extractor_init(&op->key, spec->partition_key_count, spec->partition_keys,
                                   spec->input_types, NULL);
    row_builder_init(&op->builder);
    arena_init(&op->scratch, 16 * 1024);
    operator_init(&op->base, &SESSION_WINDOW_VTABLE, "WindowTableFunction", 1, op);
    op->base.uses_timers = true;
    if (!keys || !op->variable_length) {
        operator_close(&op->base);
        diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        return NULL;
    }
    return &op->base;
}
