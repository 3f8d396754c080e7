/*
 * user_defined_aggregate.c - a user-defined aggregate call's accumulator
 * steps over aligned copies of its bytes (see user_defined_aggregate.h).
 */
#include "engine/exec/aggregate/user_defined_aggregate.h"

#include <stdlib.h>
#include <string.h>

#include "engine/udf/udf.h"

int user_defined_aggregate_init(UserDefinedAggregate *aggregate, const AggregateCall *call,
                                uint32_t input_field_count, DataType *value_type, Diag *diag)
{
    *aggregate = (UserDefinedAggregate){.call = call};
    const UdfFunction *udf = call->udf;
    if (call->kind != AGGREGATE_USER_DEFINED || !udf || !udf->aggregate ||
        call->argument >= input_field_count ||
        (call->has_separator && call->separator >= input_field_count) ||
        call->more_argument_count > USER_DEFINED_AGGREGATE_MORE_ARGUMENTS ||
        (call->more_argument_count && (!call->more_arguments || !call->more_types)))
        return diag_error(diag, JOINERY_ERROR_VALIDATE, "aggregate: bad user-defined call");
    for (uint32_t m = 0; m < call->more_argument_count; m++)
        if (call->more_arguments[m] >= input_field_count)
            return diag_error(diag, JOINERY_ERROR_VALIDATE, "aggregate: bad user-defined call");
    aggregate->size = udf->descriptor->accumulator_size;
    *value_type = type_make_binary(TYPE_VARBINARY, (int32_t)aggregate->size, true);
    aggregate->working = calloc(1, aggregate->size);
    aggregate->scratch = calloc(1, aggregate->size);
    if (!aggregate->working || !aggregate->scratch) {
        user_defined_aggregate_free(aggregate);
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    }
    return JOINERY_OK;
}

void user_defined_aggregate_free(UserDefinedAggregate *aggregate)
{
    free(aggregate->working);
    free(aggregate->scratch);
    aggregate->working = NULL;
    aggregate->scratch = NULL;
}

/* *current's bytes into the working buffer (a fresh accumulator when NULL). */
static int user_defined_aggregate_load(UserDefinedAggregate *aggregate, Value *current,
                                       Arena *arena, Diag *diag)
{
    int status = JOINERY_OK;
    if (current->is_null || current->s.len != aggregate->size)
        status = udf_aggregate_init(aggregate->call->udf, aggregate->working, arena, diag);
    else if ((const unsigned char *)current->s.ptr != aggregate->working)
        memcpy(aggregate->working, current->s.ptr, aggregate->size);
    *current = value_string((const char *)aggregate->working, aggregate->size);
    return status;
}

/* accumulate (or retract) `arguments` (the function's argument_count of them). */
static int user_defined_aggregate_call(UserDefinedAggregate *aggregate, const Value *arguments,
                                       bool accumulate, Value *current, int64_t *count,
                                       Arena *arena, Diag *diag)
{
    int status = user_defined_aggregate_load(aggregate, current, arena, diag);
    if (status != JOINERY_OK)
        return status;
    status = udf_aggregate_apply(aggregate->call->udf, aggregate->working, arguments, !accumulate,
                                 arena, diag);
    if (status != JOINERY_OK)
        return status;
    *count += accumulate ? 1 : -1;
    return JOINERY_OK;
}

int user_defined_aggregate_apply(UserDefinedAggregate *aggregate, const Row *input, bool accumulate,
                                 Value *current, int64_t *count, Arena *arena, Diag *diag)
{
    const AggregateCall *call = aggregate->call;
    Value arguments[2 + USER_DEFINED_AGGREGATE_MORE_ARGUMENTS];
    arguments[0] = value_from_row(input, call->argument, call->argument_type);
    arguments[1] = call->has_separator
                       ? value_from_row(input, call->separator, call->separator_type)
                       : value_null();
    for (uint32_t m = 0; m < call->more_argument_count; m++)
        arguments[2 + m] = value_from_row(input, call->more_arguments[m], call->more_types[m]);
    for (uint32_t a = 2 + call->more_argument_count; a < call->udf->argument_count; a++)
        arguments[a] = value_null(); /* none read (the global phase applies no row) */
    return user_defined_aggregate_call(aggregate, arguments, accumulate, current, count, arena,
                                       diag);
}

int user_defined_aggregate_add_value(UserDefinedAggregate *aggregate, Value value, Value *current,
                                     int64_t *count, Arena *arena, Diag *diag)
{
    if (aggregate->call->udf->argument_count != 1)
        return diag_error(diag, JOINERY_ERROR_UNSUPPORTED,
                          "aggregate: a DISTINCT user-defined call takes one argument");
    return user_defined_aggregate_call(aggregate, &value, true, current, count, arena, diag);
}

int user_defined_aggregate_merge(UserDefinedAggregate *aggregate, Value other, int64_t other_count,
                                 Value *current, int64_t *count, Arena *arena, Diag *diag)
{
    if (other.is_null || other.s.len != aggregate->size)
        return JOINERY_OK; /* the other side never saw a row */
    memcpy(aggregate->scratch, other.s.ptr, aggregate->size);
    int status = user_defined_aggregate_load(aggregate, current, arena, diag);
    if (status == JOINERY_OK)
        status = udf_aggregate_merge(aggregate->call->udf, aggregate->working, aggregate->scratch,
                                     arena, diag);
    if (status != JOINERY_OK)
        return status;
    *count += other_count;
    return JOINERY_OK;
}

int user_defined_aggregate_result(UserDefinedAggregate *aggregate, Value stored, Arena *arena,
                                  Value *result, Diag *diag)
{
    const UdfFunction *udf = aggregate->call->udf;
    int status = JOINERY_OK;
    if (stored.is_null || stored.s.len != aggregate->size)
        status = udf_aggregate_init(udf, aggregate->scratch, arena, diag);
    else
        memcpy(aggregate->scratch, stored.s.ptr, aggregate->size);
    if (status != JOINERY_OK)
        return status;
    return udf_aggregate_value(udf, aggregate->scratch, arena, result, diag);
}
