/*
 * aggregate_accumulator.h - the accumulator of a list of aggregate calls as
 * the window operators keep it in state (WindowAggregate,
 * GroupWindowAggregate): one row [row_count BIGINT, then per call: value,
 * count BIGINT] (aggregate_function.h says what value and count are), and
 * a working copy decoded into Values to fold rows into.
 *
 * Invariants: after aggregate_accumulator_decode the working Values may
 * point into the stored row (strings): it must stay alive until the next
 * aggregate_accumulator_encode; encode copies everything into the
 * accumulator's own builder, valid until the next encode. No state access
 * here: the operators read and write the rows through engine/state/state.h.
 * MIN/MAX retraction only counts down (no value counts here): the window
 * operators refuse MIN/MAX over updating inputs.
 */
#ifndef JOINERY_EXEC_AGGREGATE_AGGREGATE_ACCUMULATOR_H
#define JOINERY_EXEC_AGGREGATE_AGGREGATE_ACCUMULATOR_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/base/diag.h"
#include "engine/base/row.h"
#include "engine/base/value.h"
#include "engine/base/arena.h"
#include "engine/exec/aggregate/aggregate_function.h"
#include "engine/exec/aggregate/user_defined_aggregate.h"

typedef struct AggregateAccumulator {
    const AggregateCall *calls; /* borrowed */
    uint32_t call_count;
    DataType *value_types; /* per call: its accumulator value's type (owned) */
    /* working copy */
    int64_t row_count;
    Value *values;
    int64_t *counts;
    StrBuf *texts;       /* per call: LISTAGG's text while it grows (values point into it) */
    StrBuf *collections; /* per call, two: COLLECT / ARRAY_AGG's collection and a spare */
    /* a LocalGroupAggregate's partial accumulator: retractions subtract past zero
       (aggregate_function_subtract); set by the caller after init */
    bool partial;
    /* per call: a user-defined aggregate's buffers (user_defined_aggregate.h; zeroed for
       the built-in kinds), the strings its function makes (reset per apply, merge and
       results) and the message of its last error */
    UserDefinedAggregate *user_defined;
    Arena arena;
    Diag diag;
    RowBuilder builder;
} AggregateAccumulator;

/*
 * Checks the calls against an input of `input_field_count` fields and
 * allocates the working copy. JOINERY_OK, or an error with diag set (the
 * accumulator is then freed).
 */
int aggregate_accumulator_init(AggregateAccumulator *accumulator, const AggregateCall *calls,
                               uint32_t call_count, uint32_t input_field_count, Diag *diag);
/*
 * The message of a failed apply / merge / add_value / results (its status):
 * a user-defined function's error as it gave it, the DECIMAL overflow for
 * JOINERY_ERROR_RUNTIME, "out of memory" otherwise. Valid until the next call.
 */
const char *aggregate_accumulator_message(const AggregateAccumulator *accumulator, int status);
/* Frees what init allocated; safe on a zeroed accumulator. */
void aggregate_accumulator_free(AggregateAccumulator *accumulator);

/* The working copy becomes the empty accumulator (no rows). */
void aggregate_accumulator_reset(AggregateAccumulator *accumulator);
/* The working copy becomes the stored accumulator `stored` (see the invariants above). */
void aggregate_accumulator_decode(AggregateAccumulator *accumulator, const Row *stored);
/* The working copy as a row to store; NULL on no memory. */
const Row *aggregate_accumulator_encode(AggregateAccumulator *accumulator);
/*
 * Folds `input` into the working copy: added (accumulate) or retracted.
 * JOINERY_OK, JOINERY_ERROR_RUNTIME on a DECIMAL overflow
 * (aggregate_function_overflow_message) or a user-defined function's error
 * (aggregate_accumulator_message), or JOINERY_ERROR_NO_MEMORY.
 */
int aggregate_accumulator_apply(AggregateAccumulator *accumulator, const Row *input,
                                bool accumulate);
/*
 * As aggregate_accumulator_apply, leaving out the calls i with skip[i]
 * (skip NULL: none): a DISTINCT call whose set of values the row did not
 * change (exec/aggregate/distinct_values.h). The row count always changes.
 */
int aggregate_accumulator_apply_except(AggregateAccumulator *accumulator, const Row *input,
                                       bool accumulate, const bool *skip);
/* Folds the stored accumulator `other` into the working copy (merging session windows);
   JOINERY_ERROR_UNSUPPORTED for COLLECT / ARRAY_AGG (no merge of collections yet) and a
   user-defined function without merge, or the function's error (aggregate_accumulator_message). */
int aggregate_accumulator_merge(AggregateAccumulator *accumulator, const Row *other);
/* As aggregate_accumulator_merge, leaving out the calls i with skip[i] (DISTINCT calls,
   rebuilt from their merged distinct values). */
int aggregate_accumulator_merge_except(AggregateAccumulator *accumulator, const Row *other,
                                       const bool *skip);
/* Call `call` of the working copy becomes empty (no values). */
void aggregate_accumulator_reset_call(AggregateAccumulator *accumulator, uint32_t call);
/*
 * Adds the non-NULL `value` to call `call` of the working copy (a DISTINCT
 * call rebuilt from its values): COUNT, SUM, AVG, MIN, MAX, a one-argument
 * user-defined function (accumulate). JOINERY_OK, JOINERY_ERROR_RUNTIME on a
 * DECIMAL overflow or the function's error, JOINERY_ERROR_UNSUPPORTED
 * for LISTAGG / FIRST_VALUE / LAST_VALUE / COLLECT / ARRAY_AGG. The value
 * must stay alive until the next encode (strings are not copied).
 */
int aggregate_accumulator_add_value(AggregateAccumulator *accumulator, uint32_t call, Value value);
/*
 * Writes the results of the stored accumulator `stored` into fields
 * first_field.. of `builder` (begun by the caller), each of its call's
 * result_type (a user-defined call's get_value runs on the accumulator's
 * buffers). JOINERY_OK or JOINERY_ERROR_RUNTIME (DECIMAL overflow, a
 * user-defined function's error: aggregate_accumulator_message).
 */
int aggregate_accumulator_results(AggregateAccumulator *accumulator, const Row *stored,
                                  RowBuilder *builder, uint32_t first_field);
/* The row count of a stored accumulator. */
int64_t aggregate_accumulator_row_count(const Row *stored);

#endif
