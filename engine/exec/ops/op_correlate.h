/*
 * op_correlate.h - Correlate: the rows of a table function per input row
 * (UNNEST of an ARRAY, MULTISET or MAP, or a user-defined C table
 * function), stateless.
 */
#ifndef JOINERY_EXEC_OP_CORRELATE_H
#define JOINERY_EXEC_OP_CORRELATE_H

#include "engine/base/type.h"
#include "engine/exec/operator.h"
#include "engine/plan/expr.h"
#include "engine/udf/udf.h"

typedef struct CorrelateSpec {
    uint32_t input_field_count;
    const DataType *input_types;
    Expr *const *arguments; /* over the input fields */
    uint32_t argument_count;
    const UdfFunction *function;    /* the table function; NULL: UNNEST of arguments[0] */
    const DataType *function_types; /* the function's fields (appended to the input's) */
    uint32_t function_field_count;
    bool left; /* LEFT: an input row without function rows gives one NULL-padded row */
    /* UNNEST WITH ORDINALITY: the last function field is the element's 1-based position
       (a multiset's repeated element counts once per copy) */
    bool with_ordinality;
    /* INNER: kept are the function rows it holds for, over the output row; NULL: all */
    const Expr *condition;
    /* pipeline.global-job-parameters for the function's instance (NULL: none) */
    const char *job_parameters;
    /* an async function: calls in flight at most, how long one may take (its retries
       included), how often a failed call is started again and after what wait */
    uint32_t async_capacity;
    int64_t async_timeout_millis;
    uint32_t async_max_retries;
    int64_t async_retry_delay_millis;
} CorrelateSpec;

/*
 * The spec's arrays are borrowed for the operator's life. Each output row is
 * the input row's fields then one function row's, of the input row's kind.
 * A runtime error of an argument or the function (its message names it)
 * fails the job. A C function gets one instance per operator (opened in
 * open, closed in close). An async one (udf.h) has up to async_capacity
 * calls in flight, its descriptor watched through exec_io.h; the output
 * stays in input order; at the end of input and at a barrier the operator
 * waits for its calls. A call that fails (its function's error, at start or
 * at completion) is started again after async_retry_delay_millis, up to
 * async_max_retries times within the timeout (Flink's FIXED_DELAY
 * strategy); then the job fails with the last error. NULL on no memory.
 */
Operator *correlate_operator_create(const CorrelateSpec *spec, Diag *diag);

#endif
