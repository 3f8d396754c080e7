/*
 * op_local_group_aggregate.c - LocalGroupAggregate (see
 * op_local_group_aggregate.h), after Flink's MiniBatchLocalGroupAggFunction.
 *
 * Invariants: between batches the buffer is empty; rows of the open batch
 * are copies in the MiniBatchBuffer (by group key, keys in first-arrival
 * order), folded only when the batch ends, so every key's partial
 * accumulator is built from its rows in arrival order and the output does
 * not depend on the hash order. No state store is used.
 */
#include "engine/exec/ops/op_local_group_aggregate.h"

#include <stdlib.h>

#include "engine/exec/aggregate/aggregate_accumulator.h"
#include "engine/exec/key_extractor.h"
#include "engine/exec/mini_batch_buffer.h"

typedef struct LocalGroupAggregateOperator {
    Operator base; /* first: the Operator * is the LocalGroupAggregateOperator * */
    LocalGroupAggregateSpec spec;
    AggregateAccumulator accumulator; /* partial */
    bool *key_variable_length;        /* per group key */
    KeyExtractor group_key;
    MiniBatchBuffer batch;
    RowBuilder output_builder;
} LocalGroupAggregateOperator;

/* Folds the open batch: one partial accumulator per key, emitted as +I. */
static int local_flush_batch(LocalGroupAggregateOperator *local)
{
    MiniBatchBuffer *buffer = &local->batch;
    if (!buffer->row_count)
        return JOINERY_OK;
    uint32_t key_count = local->spec.group_key_count;
    int status = JOINERY_OK;
    for (uint32_t k = 0; k < buffer->key_count && status == JOINERY_OK; k++) {
        const MiniBatchKey *key = &buffer->keys[k];
        aggregate_accumulator_reset(&local->accumulator);
        for (uint32_t r = key->first; status == JOINERY_OK && r != UINT32_MAX;
             r = buffer->rows[r].next) {
            const Row *row = buffer->rows[r].row;
            status = aggregate_accumulator_apply(&local->accumulator, row,
                                                 row_kind_is_accumulate(row_kind(row)));
            if (status != JOINERY_OK)
                status = operator_fail(&local->base, status, "%s",
                                       aggregate_accumulator_message(&local->accumulator, status));
        }
        if (status != JOINERY_OK)
            break;
        const Row *partial = aggregate_accumulator_encode(&local->accumulator);
        const Row *out = NULL;
        if (partial) {
            RowBuilder *builder = &local->output_builder;
            uint32_t partial_fields = row_field_count(partial);
            row_builder_begin(builder, key_count + partial_fields, ROW_KIND_INSERT);
            for (uint32_t f = 0; f < key_count; f++)
                row_builder_copy_field(builder, f, key->key, f, local->key_variable_length[f]);
            for (uint32_t f = 0; f < partial_fields; f++) {
                /* [row_count, then per call: value, count]: only values can be strings */
                bool variable =
                    f % 2 == 1 && type_is_variable_length(local->accumulator.value_types[f / 2].id);
                row_builder_copy_field(builder, key_count + f, partial, f, variable);
            }
            out = row_builder_finish(builder);
        }
        status = out ? operator_emit(&local->base, out, ROW_KIND_INSERT)
                     : operator_fail(&local->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
    }
    mini_batch_buffer_clear(buffer);
    return status;
}

static int local_process(Operator *self, uint32_t input, const RowBatch *batch)
{
    (void)input;
    LocalGroupAggregateOperator *local = (LocalGroupAggregateOperator *)self;
    for (uint32_t i = 0; i < batch->count; i++) {
        const Row *key = key_extractor_build(&local->group_key, batch->rows[i], NULL);
        if (!key ||
            mini_batch_buffer_add(&local->batch, key, row_content_hash(key), batch->rows[i]) != 0)
            return operator_fail(self, JOINERY_ERROR_NO_MEMORY, "out of memory");
        if ((int64_t)local->batch.row_count >= local->spec.mini_batch_size) {
            int status = local_flush_batch(local);
            if (status != JOINERY_OK)
                return status;
        }
    }
    return JOINERY_OK;
}

/* A watermark ends the batch: its partial accumulators go out first. */
static int local_on_watermark(Operator *self, int64_t watermark)
{
    int status = local_flush_batch((LocalGroupAggregateOperator *)self);
    return status == JOINERY_OK ? operator_emit_watermark(self, watermark) : status;
}

static int local_finish(Operator *self)
{
    return local_flush_batch((LocalGroupAggregateOperator *)self);
}

/* At a barrier the batch is sent before it: the snapshot itself holds nothing. */
static int local_snapshot(Operator *self, const Barrier *barrier, const StateWriter *writer)
{
    (void)barrier;
    (void)writer;
    return local_flush_batch((LocalGroupAggregateOperator *)self);
}

static int local_restore(Operator *self, const StateReader *reader)
{
    (void)self;
    (void)reader;
    return JOINERY_OK;
}

static void local_close(Operator *self)
{
    LocalGroupAggregateOperator *local = (LocalGroupAggregateOperator *)self;
    aggregate_accumulator_free(&local->accumulator);
    free(local->key_variable_length);
    key_extractor_free(&local->group_key);
    mini_batch_buffer_free(&local->batch);
    row_builder_free(&local->output_builder);
    free(local);
}

static const OperatorVtable LOCAL_GROUP_AGGREGATE_VTABLE = {
    .process = local_process,
    .on_watermark = local_on_watermark,
    .snapshot = local_snapshot,
    .restore = local_restore,
    .finish = local_finish,
    .close = local_close,
};

Operator *local_group_aggregate_operator_create(const LocalGroupAggregateSpec *spec, Diag *diag)
{
    if (spec->mini_batch_size <= 0 || spec->group_key_count + spec->call_count > UINT16_MAX / 2 ||
        (spec->group_key_count && !spec->group_keys) || (spec->call_count && !spec->calls)) {
        diag_error(diag, JOINERY_ERROR_VALIDATE, "local aggregate: inconsistent spec");
        return NULL;
    }
    for (uint32_t k = 0; k < spec->group_key_count; k++)
        if (spec->group_keys[k] >= spec->input_field_count) {
            diag_error(diag, JOINERY_ERROR_VALIDATE, "local aggregate: group key out of range");
            return NULL;
        }
    for (uint32_t i = 0; i < spec->call_count; i++) {
        AggregateKind kind = spec->calls[i].kind;
        if (spec->calls[i].distinct || aggregate_function_is_append_only(kind) ||
            kind == AGGREGATE_COLLECT || kind == AGGREGATE_ARRAY_AGG) {
            diag_error(diag, JOINERY_ERROR_VALIDATE,
                       "local aggregate: a call without a merge (DISTINCT, LISTAGG, "
                       "FIRST_VALUE, LAST_VALUE, COLLECT, ARRAY_AGG)");
            return NULL;
        }
    }
    LocalGroupAggregateOperator *local = calloc(1, sizeof *local);
    if (!local) {
        diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        return NULL;
    }
    local->spec = *spec;
    mini_batch_buffer_init(&local->batch);
    row_builder_init(&local->output_builder);
    operator_init(&local->base, &LOCAL_GROUP_AGGREGATE_VTABLE, "LocalGroupAggregate", 1, local);
    if (aggregate_accumulator_init(&local->accumulator, spec->calls, spec->call_count,
                                   spec->input_field_count, diag) != JOINERY_OK)
        goto failed;
    local->accumulator.partial = true;
    local->key_variable_length =
        calloc(spec->group_key_count ? spec->group_key_count : 1, sizeof(bool));
    if (!local->key_variable_length ||
        !key_extractor_init(&local->group_key, spec->group_key_count, spec->group_keys,
                            spec->input_types, NULL)) {
        diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        goto failed;
    }
    for (uint32_t k = 0; k < spec->group_key_count; k++)
        local->key_variable_length[k] =
            type_is_variable_length(spec->input_types[spec->group_keys[k]].id);
    return &local->base;

failed:
    operator_close(&local->base);
    return NULL;
}
