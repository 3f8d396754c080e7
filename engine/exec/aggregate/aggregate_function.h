/*
 * aggregate_function.h - the aggregate functions COUNT(*), COUNT, SUM,
 * MIN, MAX, AVG, LISTAGG, FIRST_VALUE and LAST_VALUE as the aggregating
 * operators share them
 * (GroupAggregate, WindowAggregate): the call's description, the type of
 * its accumulator value, adding a value, and the result.
 *
 * An accumulator of one call is (value, count): `value` is the running SUM
 * (BIGINT for integers and DECIMAL, kept at the argument's scale; DOUBLE
 * for FLOAT/DOUBLE), the current MIN/MAX/FIRST_VALUE/LAST_VALUE (argument
 * type), LISTAGG's text so far (STRING), unused (NULL) for COUNT and
 * COUNT(*); `count` is the number of non-NULL values aggregated.
 * LISTAGG, FIRST_VALUE and LAST_VALUE accumulate only here: over an
 * updating input GroupAggregate keeps every value (value_lists.h, Flink's
 * retracting forms); the window planners refuse them over updating inputs
 * and in merging session windows.
 * COUNT(*) reads the group's row count instead. Nothing here allocates or
 * touches state; DISTINCT and the next extreme after a MIN/MAX retraction
 * are the operators' (they need value counts in state).
 */
#ifndef JOINERY_EXEC_AGGREGATE_AGGREGATE_FUNCTION_H
#define JOINERY_EXEC_AGGREGATE_AGGREGATE_FUNCTION_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/base/diag.h"
#include "engine/base/row.h"
#include "engine/base/strbuf.h"
#include "engine/base/type.h"
#include "engine/base/value.h"

typedef enum AggregateKind {
    AGGREGATE_COUNT_STAR,
    AGGREGATE_COUNT,
    AGGREGATE_SUM,
    AGGREGATE_MIN,
    AGGREGATE_MAX,
    AGGREGATE_AVG,
    AGGREGATE_LISTAGG,      /* LISTAGG(argument [, separator field]); ',' without one */
    AGGREGATE_FIRST_VALUE,  /* the first non-NULL value */
    AGGREGATE_LAST_VALUE,   /* the last non-NULL value */
    AGGREGATE_COLLECT,      /* collection_aggregate.h */
    AGGREGATE_ARRAY_AGG,    /* collection_aggregate.h */
    AGGREGATE_SUM0,         /* Calcite's $SUM0: SUM, but 0 over no value (the final phase of a
                               split distinct aggregate sums counts) */
    AGGREGATE_USER_DEFINED, /* a C aggregate function (udf): user_defined_aggregate.h */
} AggregateKind;

typedef struct AggregateCall {
    AggregateKind kind;
    uint32_t argument; /* input field; unused for COUNT(*) */
    bool distinct;
    DataType argument_type;
    DataType result_type;
    bool has_separator; /* LISTAGG: the separator is input field `separator` */
    uint32_t separator;
    /* FILTER (WHERE c): the call reads only the rows whose BOOLEAN input field
       `filter` is TRUE (aggregate_call_skips_row) */
    bool has_filter;
    uint32_t filter;
    /* AGGREGATE_USER_DEFINED: the function (engine/udf/udf.h); arguments `argument` and,
       with has_separator, `separator` (of separator_type); its accumulator value is the
       function's accumulator bytes (VARBINARY) */
    const struct UdfFunction *udf;
    DataType separator_type;
    /* and its 3rd argument on: input fields more_arguments[i] of more_types[i] (borrowed) */
    uint32_t more_argument_count;
    const uint32_t *more_arguments;
    const DataType *more_types;
} AggregateCall;

/* True when `call` has a FILTER and `input` does not pass it (its field is FALSE or NULL). */
static inline bool aggregate_call_skips_row(const AggregateCall *call, const Row *input)
{
    return call->has_filter &&
           (row_is_null(input, call->filter) || row_get_int64(input, call->filter) == 0);
}

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

/* True for the kinds that accumulate only (LISTAGG, FIRST_VALUE, LAST_VALUE). */
bool aggregate_function_is_append_only(AggregateKind kind);

/*
 * LISTAGG: appends the non-NULL `value` to the accumulator (*current,
 * *count) after `separator` (no separator before the first value). The text
 * is built in `text` (the call's own buffer, kept by the caller): *current
 * then points into it, valid until the next call with that buffer.
 * JOINERY_OK or JOINERY_ERROR_NO_MEMORY.
 */
int aggregate_function_add_text(Value value, Value separator, Value *current, int64_t *count,
                                StrBuf *text);

/*
 * Removes the non-NULL `value` from the accumulator (*current, *count):
 * COUNT, SUM and AVG subtract (a sum whose count drops to 0 becomes NULL);
 * MIN/MAX only count down (NULL at 0): when the extreme itself went, the
 * caller finds the next one from its value counts. JOINERY_OK, or
 * JOINERY_ERROR_RUNTIME when a DECIMAL sum overflows 64 bits. COUNT(*):
 * nothing.
 */
int aggregate_function_retract(const AggregateCall *call, DataType value_type, Value value,
                               Value *current, int64_t *count);

/*
 * As aggregate_function_retract, but a SUM / AVG keeps its value when its
 * count reaches 0 or goes below: the partial accumulator of a
 * LocalGroupAggregate, whose retractions may be of rows an earlier batch
 * added (merged into the global accumulator later). Other kinds as
 * aggregate_function_retract.
 */
int aggregate_function_subtract(const AggregateCall *call, DataType value_type, Value value,
                                Value *current, int64_t *count);

/*
 * Folds the accumulator (value, count) of the same call into (*current,
 * *count), as when two session windows merge or a GlobalGroupAggregate
 * takes a LocalGroupAggregate's partial accumulator: counts and sums add (a
 * partial sum with a count of 0 or less too; a SUM / AVG whose count ends
 * at 0 becomes NULL), MIN/MAX keep the extreme. JOINERY_OK or
 * JOINERY_ERROR_RUNTIME (DECIMAL overflow).
 */
int aggregate_function_merge(const AggregateCall *call, DataType value_type, Value value,
                             int64_t count, Value *current, int64_t *current_count);

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
