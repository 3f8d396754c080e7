/*
 * op_correlate.c - Correlate (op_correlate.h), as Flink's
 * StreamExecCorrelate: per input row, the arguments are evaluated over it
 * and the function's rows are emitted, each as the input row's fields then
 * the function row's, with the input row's kind (so -U / -D of an input
 * row retract exactly what its +I / +U gave: the functions are
 * deterministic). UNNEST of NULL gives no rows; of an ARRAY or MULTISET one
 * row per element (a MULTISET's element as many times as it occurs), a ROW
 * element spread over its fields (a NULL element: NULL fields); of a MAP
 * one row per entry (key, value). LEFT: an input row without rows gives one
 * with NULL function fields. INNER with a condition: only the joined rows it
 * holds for. Keeps no state.
 */
#include "engine/exec/ops/op_correlate.h"

#include <stdlib.h>
#include <string.h>

#include "engine/base/composite.h"
#include "engine/base/map.h"
#include "engine/exec/expr_eval.h"

enum { CORRELATE_MAX_ARGUMENTS = 64 };

typedef struct CorrelateOperator {
    Operator base;
    CorrelateSpec spec;
    RowBuilder builder;
    Arena scratch;
    const Row *row;   /* the input row being expanded */
    uint64_t emitted; /* rows emitted for it */
} CorrelateOperator;

/* Emits the current input row joined with one function row (NULL: the padded row). */
static int correlate_emit(CorrelateOperator *correlate, const Value *fields)
{
    const CorrelateSpec *spec = &correlate->spec;
    const Row *row = correlate->row;
    uint32_t input_count = spec->input_field_count;
    row_builder_begin(&correlate->builder, input_count + spec->function_field_count, row_kind(row));
    for (uint32_t i = 0; i < input_count; i++)
        row_builder_copy_field(&correlate->builder, i, row, i,
                               type_is_variable_length(spec->input_types[i].id));
    for (uint32_t i = 0; i < spec->function_field_count; i++) {
        if (!fields || fields[i].is_null)
            row_builder_set_null(&correlate->builder, input_count + i);
        else
            value_to_builder(&correlate->builder, input_count + i, spec->function_types[i],
                             fields[i]);
    }
    Row *out = row_builder_finish(&correlate->builder);
    if (!out)
        return operator_fail(&correlate->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
    if (fields && spec->condition) {
        ExprEvalContext eval = {.arena = &correlate->scratch,
                                .diag = correlate->base.context->diag,
                                .now_millis = operator_now_millis(&correlate->base)};
        if (!expr_eval_predicate(spec->condition, out, input_count + spec->function_field_count,
                                 NULL, &eval))
            return eval.failed ? correlate->base.context->diag->status : JOINERY_OK;
    }
    correlate->emitted++;
    return operator_emit(&correlate->base, out, row_kind(row));
}

static int correlate_sink(void *context, const Value *fields)
{
    return correlate_emit(context, fields);
}

static int correlate_bad_value(CorrelateOperator *correlate)
{
    return operator_fail(&correlate->base, JOINERY_ERROR_RUNTIME,
                         "UNNEST: malformed collection value");
}

static int correlate_unnest(CorrelateOperator *correlate, DataType type, Value collection)
{
    if (collection.is_null)
        return JOINERY_OK;
    const CorrelateSpec *spec = &correlate->spec;
    Value fields[CORRELATE_MAX_ARGUMENTS + 1];
    if (type.id == TYPE_MAP) {
        MapReader reader;
        if (!map_reader_init(&reader, type, collection.s.ptr, collection.s.len))
            return correlate_bad_value(correlate);
        MapEntry entry;
        while (map_reader_next(&reader, &entry)) {
            fields[0] = entry.key;
            fields[1] = entry.value;
            int status = correlate_emit(correlate, fields);
            if (status != JOINERY_OK)
                return status;
        }
        return JOINERY_OK;
    }
    CollectionReader reader;
    if (!collection_reader_init(&reader, type, collection.s.ptr, collection.s.len))
        return correlate_bad_value(correlate);
    DataType element_type = type_element(type);
    bool spread = element_type.id == TYPE_ROW;
    Value element;
    int64_t multiplicity;
    while (collection_reader_next(&reader, &element, &multiplicity)) {
        if (!spread) {
            fields[0] = element;
        } else {
            for (uint32_t f = 0; f < spec->function_field_count; f++) {
                fields[f] = value_null();
                if (!element.is_null &&
                    !row_value_field(element_type, element.s.ptr, element.s.len, f, &fields[f]))
                    return correlate_bad_value(correlate);
            }
        }
        for (int64_t m = 0; m < multiplicity; m++) {
            int status = correlate_emit(correlate, fields);
            if (status != JOINERY_OK)
                return status;
        }
    }
    return JOINERY_OK;
}

static int correlate_process(Operator *self, uint32_t input, const RowBatch *batch)
{
    (void)input;
    CorrelateOperator *correlate = self->impl;
    const CorrelateSpec *spec = &correlate->spec;
    ExprEvalContext eval = {.arena = &correlate->scratch,
                            .diag = self->context->diag,
                            .now_millis = operator_now_millis(self)};
    int status = JOINERY_OK;
    for (uint32_t r = 0; r < batch->count && status == JOINERY_OK; r++) {
        const Row *row = batch->rows[r];
        Value arguments[CORRELATE_MAX_ARGUMENTS + 1];
        for (uint32_t i = 0; i < spec->argument_count; i++) {
            arguments[i] = expr_eval(spec->arguments[i], row, spec->input_field_count, NULL, &eval);
            if (eval.failed)
                return self->context->diag->status;
        }
        correlate->row = row;
        correlate->emitted = 0;
        if (!spec->function) {
            status = correlate_unnest(correlate, spec->arguments[0]->type, arguments[0]);
        } else {
            Diag local;
            diag_clear(&local);
            status = udf_call_table(spec->function, arguments, &correlate->scratch, correlate_sink,
                                    correlate, &local);
            if (status != JOINERY_OK && local.status != JOINERY_OK)
                status = operator_fail(self, local.status, "%s", local.message);
        }
        if (status == JOINERY_OK && spec->left && correlate->emitted == 0)
            status = correlate_emit(correlate, NULL);
    }
    arena_reset(&correlate->scratch);
    return status;
}

static void correlate_close(Operator *self)
{
    CorrelateOperator *correlate = self->impl;
    row_builder_free(&correlate->builder);
    arena_destroy(&correlate->scratch);
    free(correlate);
}

static const OperatorVtable CORRELATE_VTABLE = {
    .process = correlate_process,
    .close = correlate_close,
};

Operator *correlate_operator_create(const CorrelateSpec *spec, Diag *diag)
{
    if (spec->argument_count > CORRELATE_MAX_ARGUMENTS ||
        spec->function_field_count > CORRELATE_MAX_ARGUMENTS ||
        (!spec->function && spec->argument_count != 1)) {
        diag_error(diag, JOINERY_ERROR, "Correlate: bad spec");
        return NULL;
    }
    CorrelateOperator *correlate = calloc(1, sizeof *correlate);
    if (!correlate) {
        diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        return NULL;
    }
    correlate->spec = *spec;
    row_builder_init(&correlate->builder);
    arena_init(&correlate->scratch, 16 * 1024);
    operator_init(&correlate->base, &CORRELATE_VTABLE, "Correlate", 1, correlate);
    return &correlate->base;
}
