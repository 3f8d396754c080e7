/*
 * udf.h - joinery's side of user-defined C functions (the author's side is
 * joinery_udf.h): loading a function from a shared library, checking its
 * descriptor, and calling it with joinery Values.
 *
 * Loading: udf_load dlopens the library (RTLD_NOW | RTLD_LOCAL) and dlsyms
 * the descriptor; the loaded functions are kept in one process-wide
 * registry (guarded by a mutex: background jobs bind on their own threads)
 * keyed by (name, library, symbol), so a function pointer stays valid for
 * the life of the process (libraries are never unloaded: a running job may
 * still call a dropped function).
 *
 * Calls never crash joinery on a returned error: a JOINERY_UDF_ERROR return
 * becomes JOINERY_ERROR_RUNTIME with "Function 'name' failed on arguments (...):
 * message", the call's arguments written out (strings quoted, cut at ~200 bytes).
 * Includes only engine/base.
 */
#ifndef JOINERY_UDF_UDF_H
#define JOINERY_UDF_UDF_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/base/arena.h"
#include "engine/base/diag.h"
#include "engine/base/type.h"
#include "engine/base/value.h"
#include "engine/udf/joinery_udf.h"

typedef struct UdfFunction {
    const char *name;    /* as created */
    const char *library; /* the path given in USING JAR */
    const char *symbol;
    const JoineryUdfDescriptor *descriptor;
    bool table;     /* a table function */
    bool aggregate; /* an aggregate function (accumulator_size, init, accumulate, ...) */
    uint32_t argument_count;
    const DataType *argument_types; /* nullable */
    uint32_t result_count;
    const DataType *result_types; /* nullable */
    /* table functions: the descriptor's names, else EXPR$0 (one field) or f0, f1, ... */
    const char *const *result_names;
    uint32_t abi_version; /* the descriptor's */
    bool async;           /* an async table function (start / poll / descriptor) */
    /* the descriptor's ABI-2 entry points (NULL for a version-1 descriptor) */
    int (*open)(JoineryUdfContext *context, void **instance);
    void (*close)(void *instance);
    int (*start)(JoineryUdfContext *context, const JoineryUdfValue *arguments, uint64_t request);
    int (*poll)(JoineryUdfContext *context);
    int (*watch_descriptor)(void *instance, uint32_t *events); /* the descriptor's `descriptor` */
} UdfFunction;

/*
 * Loads (or finds already loaded) function `name` from descriptor `symbol`
 * of `library`. Errors (JOINERY_ERROR_VALIDATE): the library cannot be
 * opened (dlerror's reason), the symbol is missing, the descriptor's ABI
 * version, kind, types, counts or entry points are wrong. *result is owned
 * by the registry.
 */
int udf_load(const char *name, const char *library, const char *symbol, const UdfFunction **result,
             Diag *diag);

/* The SQL type of an ABI type (nullable); false for an unknown type code. */
bool udf_type_to_sql(JoineryUdfType type, DataType *result);
/* The ABI type name of a descriptor type ("STRING"), "?" when unknown. */
const char *udf_type_name(JoineryUdfType type);

/*
 * Calls a scalar function with `arguments` (argument_count values of its
 * argument types). *result is its value; strings are copied into `arena`.
 * A NULL argument gives NULL without a call unless called_on_null_input.
 * JOINERY_OK, or JOINERY_ERROR_RUNTIME / NO_MEMORY with diag set.
 */
int udf_call_scalar(const UdfFunction *function, const Value *arguments, Arena *arena,
                    Value *result, Diag *diag);

/* Receives one row of a table function's result_count values (valid during the call). */
typedef int (*UdfRowSink)(void *context, const Value *fields);

/*
 * Calls a table function; `sink` gets each emitted row at once (its error
 * status stops the call and is returned). `arena` is scratch for the call.
 */
int udf_call_table(const UdfFunction *function, const Value *arguments, Arena *arena,
                   UdfRowSink sink, void *sink_context, Diag *diag);

/* ---------------------------------------------------------------- aggregates */

/*
 * Aggregate functions: the accumulator is the descriptor's accumulator_size
 * bytes, suitably aligned, owned by the caller. udf_aggregate_init zeroes it
 * and calls init; udf_aggregate_apply calls accumulate (or retract, which
 * the caller has checked the function has) with `arguments`, nothing when
 * one is NULL and the function is not called on NULL input;
 * udf_aggregate_value calls get_value (strings copied into `arena`).
 * JOINERY_OK, or JOINERY_ERROR_RUNTIME with "Function 'f' failed on
 * arguments (...): message" ("failed in init: ..." without arguments).
 */
int udf_aggregate_init(const UdfFunction *function, void *accumulator, Arena *arena, Diag *diag);
int udf_aggregate_apply(const UdfFunction *function, void *accumulator, const Value *arguments,
                        bool retract, Arena *arena, Diag *diag);
int udf_aggregate_value(const UdfFunction *function, const void *accumulator, Arena *arena,
                        Value *result, Diag *diag);
/* Folds the accumulator `other` (accumulator_size aligned bytes, left unchanged) into
   `accumulator` through the function's merge: JOINERY_OK, JOINERY_ERROR_UNSUPPORTED
   when it has none (the planner refuses that first), or its error ("failed in merge"). */
int udf_aggregate_merge(const UdfFunction *function, void *accumulator, const void *other,
                        Arena *arena, Diag *diag);

/* ---------------------------------------------------------------- instances (ABI 2) */

/* One parallel instance of a table function (a Correlate subtask's): its open's state,
   its job parameters, its async completions. Used from one thread at a time. */
typedef struct UdfInstance UdfInstance;

/*
 * An async call is done: rows[0 .. row_count * result_count) are its rows
 * (strings valid during the callback only), or `error` (not NULL: the
 * function's message) failed it. Returns JOINERY_OK or an error, which the
 * function's complete then reports as failed and poll returns.
 */
typedef int (*UdfCompletion)(void *context, uint64_t request, const Value *rows, uint32_t row_count,
                             const char *error);

/*
 * Opens an instance of table function `function`: parses `job_parameters`
 * (the raw 'pipeline.global-job-parameters', NULL: none; job_parameters.h)
 * and calls the function's open when it has one. `completion` (async
 * functions; NULL otherwise) receives its completions. *result is owned by
 * the caller (udf_instance_close). Errors: a bad job parameter text, the
 * open's message ("Function 'f' failed to open: message"), no memory.
 */
int udf_instance_open(const UdfFunction *function, const char *job_parameters,
                      UdfCompletion completion, void *completion_context, UdfInstance **result,
                      Diag *diag);
/* Calls the function's close with its instance and frees it; NULL is a no-op. */
void udf_instance_close(UdfInstance *instance);

/* udf_call_table through an instance (context->instance, job_parameter set). */
int udf_instance_call_table(UdfInstance *instance, const Value *arguments, Arena *arena,
                            UdfRowSink sink, void *sink_context, Diag *diag);

/*
 * Starts async call `request` with `arguments` (copied by the function as
 * it needs). *called false: a NULL argument and not called_on_null_input,
 * so no call was made and none will complete (the call has no rows).
 * JOINERY_OK, or the start's error (as a table call's, naming the
 * arguments). `arena`: scratch for the call (context->allocate).
 */
int udf_instance_start(UdfInstance *instance, const Value *arguments, uint64_t request,
                       Arena *arena, bool *called, Diag *diag);
/* Lets the function read what arrived and complete calls (the completion callback). */
int udf_instance_poll(UdfInstance *instance, Arena *arena, Diag *diag);

enum { UDF_WAIT_READ = 1u, UDF_WAIT_WRITE = 2u };
/* The descriptor to watch for the instance (-1: none now); *events UDF_WAIT_* bits. */
int udf_instance_descriptor(UdfInstance *instance, uint32_t *events);

/* "Function 'name' failed on arguments (...): message" in diag (JOINERY_ERROR_RUNTIME). */
int udf_call_error(const UdfFunction *function, const Value *arguments, const char *message,
                   Diag *diag);

#endif
