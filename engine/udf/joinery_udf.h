/*
 * joinery_udf.h - the C ABI of joinery's user-defined functions (stable,
 * versioned by JOINERY_UDF_ABI_VERSION). A function author includes only
 * this header, compiles a shared library (cc -shared -fPIC) and defines one
 * descriptor object per function:
 *
 *     static const JoineryUdfType args[] = {JOINERY_UDF_STRING};
 *     static const JoineryUdfType results[] = {JOINERY_UDF_BIGINT};
 *     const JoineryUdfDescriptor my_len = {
 *         .abi_version = JOINERY_UDF_ABI_VERSION,
 *         .kind = JOINERY_UDF_SCALAR,
 *         .argument_count = 1, .argument_types = args,
 *         .result_count = 1, .result_types = results,
 *         .scalar = my_len_call,
 *     };
 *
 * and registers it in SQL with
 *     CREATE FUNCTION my_len AS 'my_len' LANGUAGE C USING JAR '/path/libmy.so';
 * ('my_len' is the descriptor's symbol, found with dlsym).
 *
 * Values: a JoineryUdfValue holds BOOLEAN (i = 0 / 1), INT and BIGINT (i),
 * DOUBLE (d) or STRING (UTF-8 bytes s.ptr / s.len, not NUL-terminated).
 * Argument strings are valid during the call only. A result string must stay
 * valid until the call returns: point it at static memory, into an argument,
 * or at memory from context->allocate (freed by joinery after the call).
 *
 * Calls: `scalar` sets *result (result->is_null for NULL); `table` calls
 * context->emit once per output row (0..n rows, result_count fields each,
 * copied by joinery at once). Both return JOINERY_UDF_OK, or JOINERY_UDF_ERROR
 * after context->set_error(context, "message"): joinery then fails the
 * statement with a runtime error naming the function (never a crash).
 * Unless `called_on_null_input` is set, a call with a NULL argument is not
 * made: a scalar function is NULL, a table function emits no row.
 *
 * A function may be called from several threads at once (one per subtask):
 * it must not keep unsynchronised global state. joinery never unloads a
 * library while the process runs.
 */
#ifndef JOINERY_UDF_H
#define JOINERY_UDF_H

#include <stdint.h>

#define JOINERY_UDF_ABI_VERSION 1u

enum { JOINERY_UDF_OK = 0, JOINERY_UDF_ERROR = 1 };

typedef enum JoineryUdfKind {
    JOINERY_UDF_SCALAR = 1, /* one value per call */
    JOINERY_UDF_TABLE = 2,  /* 0..n rows per call: LATERAL TABLE(f(...)) */
} JoineryUdfKind;

typedef enum JoineryUdfType {
    JOINERY_UDF_BOOLEAN = 1,
    JOINERY_UDF_INT = 2,    /* 32-bit, in i */
    JOINERY_UDF_BIGINT = 3, /* in i */
    JOINERY_UDF_DOUBLE = 4, /* in d */
    JOINERY_UDF_STRING = 5, /* STRING (VARCHAR(2147483647)), in s */
} JoineryUdfType;

typedef struct JoineryUdfValue {
    int is_null;
    union {
        int64_t i;
        double d;
        struct {
            const char *ptr;
            uint32_t len;
        } s;
    };
} JoineryUdfValue;

typedef struct JoineryUdfContext JoineryUdfContext;
struct JoineryUdfContext {
    /* the descriptor's user_data */
    void *user_data;
    /* table functions: one output row of result_count values; JOINERY_UDF_OK, or
       JOINERY_UDF_ERROR (out of memory): return it */
    int (*emit)(JoineryUdfContext *context, const JoineryUdfValue *row);
    /* records the message of a JOINERY_UDF_ERROR return (copied) */
    void (*set_error)(JoineryUdfContext *context, const char *message);
    /* memory for result strings, freed after the call; NULL when out of memory */
    void *(*allocate)(JoineryUdfContext *context, uint32_t size);
    void *engine; /* joinery's; do not touch */
};

typedef struct JoineryUdfDescriptor {
    uint32_t abi_version; /* JOINERY_UDF_ABI_VERSION */
    JoineryUdfKind kind;
    uint32_t argument_count;
    const JoineryUdfType *argument_types;
    uint32_t result_count; /* 1 for a scalar function */
    const JoineryUdfType *result_types;
    /* table functions: the names of the result fields; NULL: Flink's, EXPR$0 for one field,
       f0, f1, ... for several */
    const char *const *result_names;
    int called_on_null_input; /* non-zero: called with NULL arguments too */
    int (*scalar)(JoineryUdfContext *context, const JoineryUdfValue *arguments,
                  JoineryUdfValue *result);
    int (*table)(JoineryUdfContext *context, const JoineryUdfValue *arguments);
    void *user_data;
} JoineryUdfDescriptor;

#endif
