/*
 * aggregate_function.h - the aggregate functions COUNT(*), COUNT, SUM,
 * MIN, MAX and AVG as the aggregating operators share them
 * (GroupAggregate, WindowAggregate): the call's description, the type of
 * its accumulator value, adding a value, and the result.
 *
 * An accumulator of one call is (value, count): `value` is the running SUM
 * (BIGINT for integers and DECIMAL, kept at the argument's scale; DOUBLE
 * for FLOAT/DOUBLE), the current MIN/MAX (argument type), unused (NULL) for
 * COUNT and COUNT(*); `count` is the number of non-NULL values aggregated.
 * COUNT(*) reads the group's row count instead. Nothing here allocates or
 * touches state; DISTINCT and retraction of MIN/MAX are the operators'
 * (they need value counts in state).
 */
#ifndef JOINERY_EXEC_AGGREGATE_AGGREGATE_FUNCTION_H
#define JOINERY_EXEC_AGGREGATE_AGGREGATE_FUNCTION_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/base/diag.h"
#include "engine/base/type.h"
#include "engine/base/value.h"

typedef enum AggregateKind {
    AGGREGATE_COUNT_STAR,
    AGGREGATE_COUNT,
    AGGREGATE_SUM,
    AGGREGATE_MIN,
    AGGREGATE_MAX,
    AGGREGATE_AVG,
    AGGREGATE_COLLECT,   /* collection_aggregate.h */
    AGGREGATE_ARRAY_AGG, /* collection_aggregate.h */
} AggregateKind;

typedef struct AggregateCall {
    AggregateKind kind;
    uint32_t argument; /* input field; unused for COUNT(*) */
    bool distinct;
    DataType argument_type;
    DataType result_type;
} AggregateCall;

/*
 * Checks `call` against an input of `input_field_count` fields and sets
 * *value_type to its accumulator value's type. JOINERY_OK, or
 * JOINERY_ERROR_VALIDATE / JOINERY_ERROR_UNSUPPORTED with diag set.
 */
int aggregate_function_check(const AggregateCall *call, uint32_t input_field_count,
                             DataType *value_type, Diag *diag);

/*
 * Adds the non-NULL `value` to the accumulator (*current, *count) of
 * `call` (value_type from aggregate_function_check). JOINERY_OK, or
 * JOINERY_ERROR_RUNTIME when a DECIMAL sum overflows 64 bits (the caller
 * reports it, aggregate_function_overflow_message). COUNT(*): nothing.
 */
int aggregate_function_add(const AggregateCall *call, DataType value_type, Value value,
                           Value *current, int64_t *count);

/*
 * The result of `call` from its accumulator (value, count) and the group's
 * row count, of call->result_type: COUNT(*)/COUNT -> the count;
 * SUM/MIN/MAX/AVG over no value -> NULL; integer SUM wraps like Java;
 * integer AVG truncates, DECIMAL AVG rounds half up. JOINERY_OK, or
 * JOINERY_ERROR_RUNTIME when a DECIMAL result overflows its precision.
 */
int aggregate_function_result(const AggregateCall *call, DataType value_type, int64_t row_count,
                              Value value, int64_t count, Value *result);

/* The message for JOINERY_ERROR_RUNTIME of the two functions above. */
const char *aggregate_function_overflow_message(void);

#endif
