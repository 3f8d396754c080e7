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
    bool table; /* a table function */
    uint32_t argument_count;
    const DataType *argument_types; /* nullable */
    uint32_t result_count;
    const DataType *result_types; /* nullable */
    /* table functions: the descriptor's names, else EXPR$0 (one field) or f0, f1, ... */
    const char *const *result_names;
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

#endif
