/*
 * user_defined_aggregate.h - one user-defined aggregate call (a C aggregate
 * function, engine/udf/udf.h) on its accumulator (value, count) as every
 * aggregating operator keeps it: the value is the function's accumulator
 * bytes (VARBINARY of accumulator_size, NULL before the first row), the
 * count the rows applied. The one path GroupAggregate, the window
 * aggregates, the LocalGroupAggregate and the OVER aggregate share (the
 * last four through aggregate_accumulator.h).
 *
 * Invariants: the function is called on aligned copies only: `working`
 * holds the accumulator rows fold into (after apply or merge *current
 * points at it, valid until the next call with this UserDefinedAggregate
 * or until the caller stores it), `scratch` a copy for get_value or
 * merge's other side. A fresh accumulator is zeroed, then init. Strings
 * the function makes go to the caller's arena.
 */
#ifndef JOINERY_EXEC_AGGREGATE_USER_DEFINED_AGGREGATE_H
#define JOINERY_EXEC_AGGREGATE_USER_DEFINED_AGGREGATE_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/base/arena.h"
#include "engine/base/diag.h"
#include "engine/base/row.h"
#include "engine/base/value.h"
#include "engine/exec/aggregate/aggregate_function.h"

/* A call's arguments after its first two at most (joinery_udf.h's 64 in all). */
enum { USER_DEFINED_AGGREGATE_MORE_ARGUMENTS = 62 };

typedef struct UserDefinedAggregate {
    const AggregateCall *call; /* borrowed; kind AGGREGATE_USER_DEFINED */
    uint32_t size;             /* the function's accumulator_size */
    unsigned char *working;    /* malloc'd, size bytes */
    unsigned char *scratch;    /* malloc'd, size bytes */
} UserDefinedAggregate;

/*
 * Checks `call` (a loaded aggregate function, arguments within
 * input_field_count) and allocates the buffers; *value_type becomes the
 * accumulator value's type (VARBINARY(size)). JOINERY_OK or an error with
 * diag set (nothing left to free).
 */
int user_defined_aggregate_init(UserDefinedAggregate *aggregate, const AggregateCall *call,
                                uint32_t input_field_count, DataType *value_type, Diag *diag);
/* Frees the buffers; safe on a zeroed one. */
void user_defined_aggregate_free(UserDefinedAggregate *aggregate);

/*
 * Folds the row `input` into (*current, *count): accumulate, or retract
 * when !accumulate (the planner checked the function has it). A row that
 * does not pass the call's FILTER is skipped by the caller. JOINERY_OK, or
 * the function's error (diag set: "Function 'f' failed on arguments ...").
 */
int user_defined_aggregate_apply(UserDefinedAggregate *aggregate, const Row *input, bool accumulate,
                                 Value *current, int64_t *count, Arena *arena, Diag *diag);
/*
 * Accumulates the one argument `value` (a one-argument call's DISTINCT value,
 * rebuilding a merged window's accumulator from its distinct values).
 * JOINERY_OK, JOINERY_ERROR_UNSUPPORTED for a function of more arguments, or
 * the function's error (diag set).
 */
int user_defined_aggregate_add_value(UserDefinedAggregate *aggregate, Value value, Value *current,
                                     int64_t *count, Arena *arena, Diag *diag);
/*
 * Folds the stored accumulator (other, other_count) of the same call into
 * (*current, *count) through the function's merge (a NULL other adds
 * nothing). JOINERY_OK, JOINERY_ERROR_UNSUPPORTED without merge, or the
 * function's error (diag set).
 */
int user_defined_aggregate_merge(UserDefinedAggregate *aggregate, Value other, int64_t other_count,
                                 Value *current, int64_t *count, Arena *arena, Diag *diag);
/*
 * The function's get_value of the stored accumulator `stored` (NULL: a
 * fresh one) into *result (strings in `arena`). JOINERY_OK or the
 * function's error (diag set).
 */
int user_defined_aggregate_result(UserDefinedAggregate *aggregate, Value stored, Arena *arena,
                                  Value *result, Diag *diag);

#endif
