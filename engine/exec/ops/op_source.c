/*
 * op_source.c - scan and values operators (see op_source.h). A scan applies
 * its pushed-down filter right after decoding and drops the columns only
 * the filter needed, so downstream operators see just the projected fields.
 */
#include "engine/exec/ops/op_source.h"

#include <stdlib.h>

#include "engine/exec/expr_eval.h"
#include "engine/exec/split_watermarks.h"

typedef struct SourceOperator {
    Operator base;
    bool is_values;
    ScanSpec spec;
    SourceReader *reader;
    RowBatch batch;
    Arena batch_arena;
    Arena scratch;
    RowBuilder builder;
    bool ended;
    /* pushed-down watermark */
    SplitWatermarks splits;
    bool splits_ready;
    int64_t next_watermark_millis; /* next periodic check */
    /* values */
    Expr ***rows;
    uint32_t row_count;
    const DataType *types;
    uint32_t field_count;
} SourceOperator;

static int source_open(Operator *self, ExecContext *context)
{
    (void)context;
    SourceOperator *source = self->impl;
    source->batch.rows = malloc(sizeof(Row *) * ROW_BATCH_CAPACITY);
    if (!source->batch.rows)
        return operator_fail(self, JOINERY_ERROR_NO_MEMORY, "out of memory");
    source->batch.capacity = ROW_BATCH_CAPACITY;
    return JOINERY_OK;
}

static int source_process(Operator *self, uint32_t input, const RowBatch *batch)
{
    (void)input;
    (void)batch;
    return operator_fail(self, JOINERY_ERROR, "a source has no input");
}

static void source_close(Operator *self)
{
    SourceOperator *source = self->impl;
    if (source->reader)
        source->reader->vtable->close(source->reader);
    free(source->batch.rows);
    arena_destroy(&source->batch_arena);
    arena_destroy(&source->scratch);
    row_builder_free(&source->builder);
    split_watermarks_free(&source->splits);
    free(source);
}

/*
 * The snapshot at a barrier: the reader's position (connector.h). A Values
 * source writes nothing: it emits all its rows in its first poll and ends,
 * so a barrier before that finds nothing emitted yet.
 */
static int source_snapshot(Operator *self, const Barrier *barrier, const StateWriter *writer)
{
    (void)barrier;
    SourceOperator *source = self->impl;
    if (source->is_values)
        return JOINERY_OK;
    if (!source->reader->vtable->snapshot_position)
        return operator_fail(self, JOINERY_ERROR_UNSUPPORTED,
                             "table '%s' cannot take part in checkpoints",
                             source->spec.source.table->name);
    return source->reader->vtable->snapshot_position(source->reader, writer);
}

static int source_restore(Operator *self, const StateReader *reader)
{
    SourceOperator *source = self->impl;
    if (source->is_values)
        return JOINERY_OK;
    if (!source->reader->vtable->restore_position)
        return operator_fail(self, JOINERY_ERROR_UNSUPPORTED,
                             "table '%s' cannot resume from a checkpoint",
                             source->spec.source.table->name);
    return source->reader->vtable->restore_position(source->reader, reader, self->context->diag);
}

static const OperatorVtable SOURCE_VTABLE = {
    .open = source_open,
    .process = source_process,
    .snapshot = source_snapshot,
    .restore = source_restore,
    .close = source_close,
};

static SourceOperator *source_new(Diag *diag, const char *name)
{
    SourceOperator *source = calloc(1, sizeof *source);
    if (!source) {
        diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        return NULL;
    }
    arena_init(&source->batch_arena, 256 * 1024);
    arena_init(&source->scratch, 16 * 1024);
    row_builder_init(&source->builder);
    operator_init(&source->base, &SOURCE_VTABLE, name, 0, source);
    return source;
}

Operator *scan_operator_create(const ScanSpec *spec, SourceReader *reader, Diag *diag)
{
    SourceOperator *source = source_new(diag, "TableSourceScan");
    if (!source)
        return NULL;
    source->spec = *spec;
    source->reader = reader;
    return &source->base;
}

Operator *values_operator_create(Expr ***rows, uint32_t row_count, const DataType *types,
                                 uint32_t field_count, Diag *diag)
{
    SourceOperator *source = source_new(diag, "Values");
    if (!source)
        return NULL;
    source->is_values = true;
    source->rows = rows;
    source->row_count = row_count;
    source->types = types;
    source->field_count = field_count;
    return &source->base;
}

static int source_end(SourceOperator *source, SourceState *state);

const char *source_operator_cannot_resume(const Operator *op)
{
    const SourceOperator *source = op->impl;
    if (source->is_values ||
        (source->reader->vtable->snapshot_position && source->reader->vtable->restore_position))
        return NULL;
    return source->spec.source.table->name;
}

int source_operator_end_restored(Operator *op)
{
    SourceOperator *source = op->impl;
    SourceState state;
    return source->ended ? JOINERY_OK : source_end(source, &state);
}

int source_operator_end_now(Operator *op)
{
    SourceOperator *source = op->impl;
    SourceState state;
    return source->ended ? JOINERY_OK : source_end(source, &state);
}

void source_operator_mark_stopped_cleanly(Operator *op)
{
    SourceOperator *source = op->impl;
    if (source->reader)
        source->reader->stopped_cleanly = true;
}

uint64_t source_operator_skipped_rows(const Operator *op)
{
    const SourceOperator *source = op->impl;
    return source->reader ? source->reader->skipped_rows : 0;
}

const char *source_operator_warnings(const Operator *op)
{
    const SourceOperator *source = op->impl;
    return source->reader ? strbuf_cstr(&source->reader->warnings) : "";
}

const char *source_operator_skip_report(const Operator *op)
{
    const SourceOperator *source = op->impl;
    return source->reader ? strbuf_cstr(&source->reader->skip_report) : "";
}

int64_t source_operator_watermark(const Operator *op)
{
    const SourceOperator *source = op->impl;
    return source->splits_ready ? source->splits.current : INT64_MIN;
}

/* Splits of the reader: one per partition, or the whole reader as one split. */
static int scan_prepare_watermarks(SourceOperator *source, int64_t now_millis)
{
    const SourceReader *reader = source->reader;
    uint32_t count = reader->row_splits ? reader->split_count : 1;
    if (!split_watermarks_init(&source->splits, count, source->spec.idle_timeout_millis,
                               now_millis))
        return operator_fail(&source->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
    source->splits_ready = true;
    source->next_watermark_millis = now_millis + source->spec.watermark_interval_millis;
    return JOINERY_OK;
}

/* Evaluates the watermark expression on every polled row (before the filter). */
static int scan_observe_watermarks(SourceOperator *source, int64_t now_millis)
{
    Operator *self = &source->base;
    const SourceReader *reader = source->reader;
    ExprEvalContext eval = {
        .arena = &source->scratch, .diag = self->context->diag, .now_millis = now_millis};
    for (uint32_t r = 0; r < source->batch.count; r++) {
        Value value = expr_eval(source->spec.watermark, source->batch.rows[r],
                                source->spec.source.field_count, NULL, &eval);
        if (eval.failed)
            return self->context->diag->status;
        uint32_t split = reader->row_splits ? reader->row_splits[r] : 0;
        split_watermarks_observe(&source->splits, split, value.is_null ? INT64_MIN : value.i,
                                 now_millis);
    }
    arena_reset(&source->scratch);
    return JOINERY_OK;
}

/*
 * Sends the combined watermark downstream when it advanced, then announces
 * IDLE when every split is idle (the next row announces ACTIVE again).
 */
static int scan_emit_watermark(SourceOperator *source, int64_t now_millis)
{
    const SourceReader *reader = source->reader;
    for (uint32_t i = 0; reader->split_finished && i < source->splits.count; i++)
        if (reader->split_finished[i])
            split_watermarks_finish(&source->splits, i);
    if (source->spec.watermark_interval_millis > 0 && now_millis >= source->next_watermark_millis)
        source->next_watermark_millis = now_millis + source->spec.watermark_interval_millis;
    int64_t watermark;
    int status = JOINERY_OK;
    if (split_watermarks_update(&source->splits, now_millis, &watermark))
        status = operator_emit_watermark(&source->base, watermark);
    if (status == JOINERY_OK && source->base.watermark_status == WATERMARK_STATUS_ACTIVE &&
        split_watermarks_source_idle(&source->splits, now_millis))
        status = operator_emit_watermark_status(&source->base, WATERMARK_STATUS_IDLE);
    return status;
}

static int source_end(SourceOperator *source, SourceState *state)
{
    if (source->splits_ready && source->splits.current != INT64_MAX) {
        /* the end of a bounded input releases every event-time timer downstream */
        source->splits.current = INT64_MAX;
        int status = operator_emit_watermark(&source->base, INT64_MAX);
        if (status != JOINERY_OK)
            return status;
    }
    source->ended = true;
    *state = SOURCE_STATE_ENDED;
    /* a source has no input channel: end of input starts here */
    source->base.channel_count = 1;
    return operator_end_input(&source->base, 0);
}

static int values_poll(SourceOperator *source, int64_t now_millis, SourceState *state)
{
    Operator *self = &source->base;
    ExprEvalContext eval = {
        .arena = &source->scratch, .diag = self->context->diag, .now_millis = now_millis};
    int status = JOINERY_OK;
    for (uint32_t r = 0; r < source->row_count && status == JOINERY_OK; r++) {
        row_builder_begin(&source->builder, source->field_count, ROW_KIND_INSERT);
        for (uint32_t c = 0; c < source->field_count; c++) {
            Value value = expr_eval(source->rows[r][c], NULL, 0, NULL, &eval);
            if (eval.failed)
                return self->context->diag->status;
            value_to_builder(&source->builder, c, source->types[c], value);
        }
        Row *row = row_builder_finish(&source->builder);
        if (!row)
            return operator_fail(self, JOINERY_ERROR_NO_MEMORY, "out of memory");
        status = operator_emit(self, row, ROW_KIND_INSERT);
    }
    arena_reset(&source->scratch);
    if (status == JOINERY_OK)
        status = operator_flush(self);
    if (status == JOINERY_OK)
        status = source_end(source, state);
    return status;
}

/* Filters and narrows a polled batch in place. */
static int scan_refine(SourceOperator *source, int64_t now_millis)
{
    Operator *self = &source->base;
    const ScanSpec *spec = &source->spec;
    uint32_t read_count = spec->source.field_count;
    bool narrow = spec->output_count < read_count;
    if (!spec->filter && !narrow)
        return JOINERY_OK;
    ExprEvalContext eval = {
        .arena = &source->scratch, .diag = self->context->diag, .now_millis = now_millis};
    uint32_t kept = 0;
    for (uint32_t r = 0; r < source->batch.count; r++) {
        Row *row = source->batch.rows[r];
        if (spec->filter && !expr_eval_predicate(spec->filter, row, read_count, NULL, &eval)) {
            if (eval.failed)
                return self->context->diag->status;
            continue;
        }
        if (narrow) {
            row_builder_begin(&source->builder, spec->output_count, row_kind(row));
            for (uint32_t c = 0; c < spec->output_count; c++)
                row_builder_copy_field(&source->builder, c, row, c,
                                       type_is_variable_length(spec->source.types[c].id));
            Row *narrowed = row_builder_finish(&source->builder);
            if (!narrowed || !(row = row_copy(&source->batch_arena, narrowed)))
                return operator_fail(self, JOINERY_ERROR_NO_MEMORY, "out of memory");
        }
        source->batch.rows[kept++] = row;
    }
    source->batch.count = kept;
    arena_reset(&source->scratch);
    return JOINERY_OK;
}

int source_operator_poll(Operator *op, int64_t now_millis, SourceState *state,
                         int64_t *next_poll_millis)
{
    SourceOperator *source = op->impl;
    *state = SOURCE_STATE_ACTIVE;
    if (source->ended) {
        *state = SOURCE_STATE_ENDED;
        return JOINERY_OK;
    }
    if (source->is_values)
        return values_poll(source, now_millis, state);
    if (source->spec.watermark && !source->splits_ready) {
        int status = scan_prepare_watermarks(source, now_millis);
        if (status != JOINERY_OK)
            return status;
    }
    source->batch.count = 0;
    arena_reset(&source->batch_arena);
    int result = source->reader->vtable->poll(source->reader, &source->batch, &source->batch_arena,
                                              ROW_BATCH_CAPACITY, now_millis, next_poll_millis,
                                              op->context->diag);
    if (result < 0) {
        if (op->context->diag->status == JOINERY_OK)
            diag_error(op->context->diag, (JoineryStatus)result, "source failed");
        return result;
    }
    if (result == SOURCE_POLL_END)
        return source_end(source, state);
    if (result == SOURCE_POLL_IDLE) {
        *state = SOURCE_STATE_IDLE;
        if (!source->splits_ready)
            return JOINERY_OK;
        /* periodic emission: idle splits are released without new rows */
        if (source->spec.watermark_interval_millis > 0 &&
            *next_poll_millis > source->next_watermark_millis)
            *next_poll_millis = source->next_watermark_millis;
        if (now_millis < source->next_watermark_millis)
            return JOINERY_OK;
        return scan_emit_watermark(source, now_millis);
    }
    op->metrics.rows_in += source->batch.count;
    int64_t start = datetime_monotonic_nanos();
    int status = JOINERY_OK;
    if (source->splits_ready)
        status = scan_observe_watermarks(source, now_millis);
    if (status == JOINERY_OK)
        status = scan_refine(source, now_millis);
    op->metrics.busy_nanos += (uint64_t)(datetime_monotonic_nanos() - start);
    if (status != JOINERY_OK)
        return status;
    /* records: the source is active again, announced before its rows */
    if (source->splits_ready)
        status = operator_emit_watermark_status(op, WATERMARK_STATUS_ACTIVE);
    if (status == JOINERY_OK && source->batch.count > 0) {
        op->metrics.rows_out += source->batch.count;
        status = operator_push_downstream(op, &source->batch);
    }
    /* rows first, then the watermark they advanced */
    if (status == JOINERY_OK && source->splits_ready)
        status = scan_emit_watermark(source, now_millis);
    return status;
}
