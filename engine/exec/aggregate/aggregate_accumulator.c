/*
 * aggregate_accumulator.c - a list of aggregate calls' accumulator as one
 * row (see aggregate_accumulator.h).
 */
#include "engine/exec/aggregate/aggregate_accumulator.h"

#include "engine/exec/aggregate/collection_aggregate.h"

#include <stdlib.h>

static inline uint32_t value_field(uint32_t call)
{
    return 1 + 2 * call;
}

static inline uint32_t count_field(uint32_t call)
{
    return 2 + 2 * call;
}

int aggregate_accumulator_init(AggregateAccumulator *accumulator, const AggregateCall *calls,
                               uint32_t call_count, uint32_t input_field_count, Diag *diag)
{
    *accumulator = (AggregateAccumulator){.calls = calls, .call_count = call_count};
    row_builder_init(&accumulator->builder);
    uint32_t slots = call_count ? call_count : 1;
    accumulator->value_types = calloc(slots, sizeof(DataType));
    accumulator->values = calloc(slots, sizeof(Value));
    accumulator->counts = calloc(slots, sizeof(int64_t));
    accumulator->texts = calloc(slots, sizeof(StrBuf));
    accumulator->collections = calloc(2 * (size_t)slots, sizeof(StrBuf));
    accumulator->user_defined = calloc(slots, sizeof(UserDefinedAggregate));
    arena_init(&accumulator->arena, 1024);
    diag_clear(&accumulator->diag);
    if (!accumulator->value_types || !accumulator->values || !accumulator->counts ||
        !accumulator->texts || !accumulator->collections || !accumulator->user_defined) {
        aggregate_accumulator_free(accumulator);
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    }
    for (uint32_t i = 0; i < call_count; i++) {
        int status =
            calls[i].kind == AGGREGATE_USER_DEFINED
                ? user_defined_aggregate_init(&accumulator->user_defined[i], &calls[i],
                                              input_field_count, &accumulator->value_types[i], diag)
                : aggregate_function_check(&calls[i], input_field_count,
                                           &accumulator->value_types[i], diag);
        if (status != JOINERY_OK) {
            aggregate_accumulator_free(accumulator);
            return status;
        }
    }
    return JOINERY_OK;
}

void aggregate_accumulator_free(AggregateAccumulator *accumulator)
{
    free(accumulator->value_types);
    free(accumulator->values);
    free(accumulator->counts);
    for (uint32_t i = 0; accumulator->texts && i < accumulator->call_count; i++)
        strbuf_free(&accumulator->texts[i]);
    free(accumulator->texts);
    accumulator->texts = NULL;
    for (uint32_t i = 0; accumulator->collections && i < 2 * accumulator->call_count; i++)
        strbuf_free(&accumulator->collections[i]);
    free(accumulator->collections);
    accumulator->collections = NULL;
    for (uint32_t i = 0; accumulator->user_defined && i < accumulator->call_count; i++)
        user_defined_aggregate_free(&accumulator->user_defined[i]);
    free(accumulator->user_defined);
    accumulator->user_defined = NULL;
    arena_destroy(&accumulator->arena);
    accumulator->value_types = NULL;
    accumulator->values = NULL;
    accumulator->counts = NULL;
    row_builder_free(&accumulator->builder);
}

const char *aggregate_accumulator_message(const AggregateAccumulator *accumulator, int status)
{
    if (accumulator->diag.status != JOINERY_OK)
        return accumulator->diag.message;
    return status == JOINERY_ERROR_RUNTIME ? aggregate_function_overflow_message()
                                           : "out of memory";
}

/* Before a user-defined function runs: no earlier error, its earlier strings gone. */
static void accumulator_udf_begin(AggregateAccumulator *accumulator)
{
    arena_reset(&accumulator->arena);
    diag_clear(&accumulator->diag);
}

void aggregate_accumulator_reset(AggregateAccumulator *accumulator)
{
    accumulator->row_count = 0;
    for (uint32_t i = 0; i < accumulator->call_count; i++) {
        accumulator->values[i] = value_null();
        accumulator->counts[i] = 0;
    }
}

void aggregate_accumulator_decode(AggregateAccumulator *accumulator, const Row *stored)
{
    accumulator->row_count = row_get_int64(stored, 0);
    for (uint32_t i = 0; i < accumulator->call_count; i++) {
        accumulator->values[i] =
            value_from_row(stored, value_field(i), accumulator->value_types[i]);
        accumulator->counts[i] = row_get_int64(stored, count_field(i));
    }
}

const Row *aggregate_accumulator_encode(AggregateAccumulator *accumulator)
{
    RowBuilder *builder = &accumulator->builder;
    row_builder_begin(builder, 1 + 2 * accumulator->call_count, ROW_KIND_INSERT);
    row_builder_set_int64(builder, 0, accumulator->row_count);
    for (uint32_t i = 0; i < accumulator->call_count; i++) {
        value_to_builder(builder, value_field(i), accumulator->value_types[i],
                         accumulator->values[i]);
        row_builder_set_int64(builder, count_field(i), accumulator->counts[i]);
    }
    return row_builder_finish(builder);
}

int aggregate_accumulator_apply(AggregateAccumulator *accumulator, const Row *input,
                                bool accumulate)
{
    return aggregate_accumulator_apply_except(accumulator, input, accumulate, NULL);
}

int aggregate_accumulator_apply_except(AggregateAccumulator *accumulator, const Row *input,
                                       bool accumulate, const bool *skip)
{
    accumulator->row_count += accumulate ? 1 : -1;
    accumulator_udf_begin(accumulator);
    for (uint32_t i = 0; i < accumulator->call_count; i++) {
        const AggregateCall *call = &accumulator->calls[i];
        if (call->kind == AGGREGATE_COUNT_STAR || (skip && skip[i]) ||
            aggregate_call_skips_row(call, input))
            continue;
        if (call->kind == AGGREGATE_USER_DEFINED) {
            /* a partial accumulator retracts too: the global phase merges what is left */
            int status = user_defined_aggregate_apply(
                &accumulator->user_defined[i], input, accumulate, &accumulator->values[i],
                &accumulator->counts[i], &accumulator->arena, &accumulator->diag);
            if (status != JOINERY_OK)
                return status;
            continue;
        }
        Value value = value_from_row(input, call->argument, call->argument_type);
        if (value.is_null && !collection_aggregate_takes_nulls(call))
            continue;
        if (collection_aggregate_is(call->kind)) {
            if (collection_aggregate_apply(call, value, accumulate, &accumulator->values[i],
                                           &accumulator->counts[i],
                                           &accumulator->collections[2 * i],
                                           &accumulator->collections[2 * i + 1]) != JOINERY_OK)
                return JOINERY_ERROR_NO_MEMORY;
            continue;
        }
        DataType type = accumulator->value_types[i];
        if (call->kind == AGGREGATE_LISTAGG && accumulate) {
            Value separator = call->has_separator
                                  ? value_from_row(input, call->separator, call->argument_type)
                                  : (Value){.s = {",", 1}};
            if (aggregate_function_add_text(value, separator, &accumulator->values[i],
                                            &accumulator->counts[i],
                                            &accumulator->texts[i]) != JOINERY_OK)
                return JOINERY_ERROR_NO_MEMORY;
            continue;
        }
        int status = accumulate ? aggregate_function_add(call, type, value, &accumulator->values[i],
                                                         &accumulator->counts[i])
                     : accumulator->partial
                         ? aggregate_function_subtract(call, type, value, &accumulator->values[i],
                                                       &accumulator->counts[i])
                         : aggregate_function_retract(call, type, value, &accumulator->values[i],
                                                      &accumulator->counts[i]);
        if (status != JOINERY_OK)
            return status;
    }
    return JOINERY_OK;
}

void aggregate_accumulator_reset_call(AggregateAccumulator *accumulator, uint32_t call)
{
    accumulator->values[call] = value_null();
    accumulator->counts[call] = 0;
}

int aggregate_accumulator_add_value(AggregateAccumulator *accumulator, uint32_t call, Value value)
{
    const AggregateCall *aggregate = &accumulator->calls[call];
    if (aggregate->kind == AGGREGATE_USER_DEFINED) {
        accumulator_udf_begin(accumulator);
        return user_defined_aggregate_add_value(
            &accumulator->user_defined[call], value, &accumulator->values[call],
            &accumulator->counts[call], &accumulator->arena, &accumulator->diag);
    }
    if (aggregate_function_is_append_only(aggregate->kind) ||
        collection_aggregate_is(aggregate->kind))
        return JOINERY_ERROR_UNSUPPORTED;
    return aggregate_function_add(aggregate, accumulator->value_types[call], value,
                                  &accumulator->values[call], &accumulator->counts[call]);
}

int aggregate_accumulator_merge(AggregateAccumulator *accumulator, const Row *other)
{
    return aggregate_accumulator_merge_except(accumulator, other, NULL);
}

int aggregate_accumulator_merge_except(AggregateAccumulator *accumulator, const Row *other,
                                       const bool *skip)
{
    accumulator->row_count += row_get_int64(other, 0);
    accumulator_udf_begin(accumulator);
    for (uint32_t i = 0; i < accumulator->call_count; i++) {
        if (skip && skip[i])
            continue;
        DataType type = accumulator->value_types[i];
        if (accumulator->calls[i].kind == AGGREGATE_USER_DEFINED) {
            int status = user_defined_aggregate_merge(
                &accumulator->user_defined[i], value_from_row(other, value_field(i), type),
                row_get_int64(other, count_field(i)), &accumulator->values[i],
                &accumulator->counts[i], &accumulator->arena, &accumulator->diag);
            if (status != JOINERY_OK)
                return status;
            continue;
        }
        int status = aggregate_function_merge(
            &accumulator->calls[i], type, value_from_row(other, value_field(i), type),
            row_get_int64(other, count_field(i)), &accumulator->values[i], &accumulator->counts[i]);
        if (status != JOINERY_OK)
            return status;
    }
    return JOINERY_OK;
}

int aggregate_accumulator_results(AggregateAccumulator *accumulator, const Row *stored,
                                  RowBuilder *builder, uint32_t first_field)
{
    int64_t row_count = row_get_int64(stored, 0);
    accumulator_udf_begin(accumulator);
    for (uint32_t i = 0; i < accumulator->call_count; i++) {
        const AggregateCall *call = &accumulator->calls[i];
        DataType type = accumulator->value_types[i];
        Value result;
        int status =
            call->kind == AGGREGATE_USER_DEFINED
                ? user_defined_aggregate_result(&accumulator->user_defined[i],
                                                value_from_row(stored, value_field(i), type),
                                                &accumulator->arena, &result, &accumulator->diag)
                : aggregate_function_result(call, type, row_count,
                                            value_from_row(stored, value_field(i), type),
                                            row_get_int64(stored, count_field(i)), &result);
        if (status != JOINERY_OK)
            return status;
        value_to_builder(builder, first_field + i, call->result_type, result);
    }
    return JOINERY_OK;
}

int64_t aggregate_accumulator_row_count(const Row *stored)
{
    return row_get_int64(stored, 0);
}
