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
 *
 * ABI version 2 (a version-1 descriptor still loads: its fields end at
 * user_data, and joinery reads the later ones only from a version-2 one):
 *
 * Configuration: context->job_parameter(context, "key") is the value of
 * `key` in the session's `SET 'pipeline.global-job-parameters' =
 * 'key1:value1,key2:value2'` when the job was submitted (Flink's
 * FunctionContext.getJobParameter), NULL when it is not there. A value with
 * a ',' or ':' is written in double quotes ("a:b", "" for a quote).
 *
 * Instances (table functions): `open`, when set, is called once per
 * parallel instance of the function (each Correlate subtask), on that
 * subtask's thread, before its first call; it sets *instance, which every
 * later call of that instance finds in context->instance, and `close` gets
 * it back when the job ends (also after a failure). A per-instance
 * connection to a store needs no lock: one instance is only ever called
 * from one thread at a time. An open that returns JOINERY_UDF_ERROR (after
 * set_error) fails the job before any row. Scalar functions have no
 * instances (a scalar descriptor with open is refused at CREATE FUNCTION).
 *
 * Async table functions (Flink's AsyncTableFunction): a table function
 * with `start` instead of `table`. joinery keeps up to
 * 'table.exec.async-table.max-concurrent-operations' calls of a subtask in
 * flight; each is started with start(context, arguments, request), which
 * must not block (it sends a query, say) and copies what it needs of the
 * arguments (valid during start only). The instance's `descriptor` gives
 * the file descriptor joinery watches for it (poll(2)'s POLLIN, plus
 * POLLOUT when *events gets JOINERY_UDF_WAIT_WRITE; -1: none now, and
 * joinery polls about every millisecond while calls are in flight); when it
 * is ready, joinery calls
 * poll(context), which reads what arrived without blocking and finishes
 * each call with context->complete(context, request, rows, row_count,
 * error): rows holds row_count * result_count values (copied at once),
 * error NULL, or a message: the call failed. A failed call (an error at
 * completion, or start returning one) is started again after
 * 'table.exec.async-table.retry-delay' (100 ms), up to
 * 'table.exec.async-table.max-retries' (3) times within the timeout
 * (Flink's FIXED_DELAY strategy; NO_RETRY: never), then fails the job like a
 * failed table call: so start may see the same arguments again.
 * start, poll and complete run on the subtask's thread. Calls may complete
 * in any order: joinery emits each input row's result in input order (the
 * Correlate's contract). A call not complete after
 * 'table.exec.async-table.timeout' fails the job ("Async function call has
 * timed out."). At the end of input and at a checkpoint joinery waits for
 * every call in flight. An async table function needs open (its instance
 * owns the requests) and descriptor.
 *
 * Aggregate functions (kind JOINERY_UDF_AGGREGATE, Flink's AggregateFunction;
 * abi_version 2, the fields after `descriptor`): SELECT k, f(x) FROM t
 * GROUP BY k. One result (result_count 1). Per group joinery keeps an
 * accumulator of accumulator_size bytes in the aggregate's state (so it is
 * checkpointed and works on every state backend): it must hold plain data,
 * no pointers (it is copied, moved and restored in another process). Each
 * call gets the accumulator's current bytes, aligned for any scalar type:
 * init(context, acc) sets a fresh group's (the bytes are zero before);
 * accumulate(context, acc, arguments) adds an input row; retract(context,
 * acc, arguments) removes one (over an updating input, say a LEFT JOIN's
 * or an upsert source's: a function without retract is refused there at
 * planning); get_value(context, acc, result) gives the group's result
 * after each change (a STRING result points at static memory, into the
 * accumulator or at context->allocate). Unless called_on_null_input is set,
 * a row with a NULL argument is neither accumulated nor retracted.
 * merge(context, acc, other) folds the accumulator `other` (left unchanged)
 * into acc: when SESSION windows merge and in the global phase of a two-phase
 * aggregation (a function without merge keeps one phase and is refused in
 * HOP, CUMULATE and SESSION windows); a function without retract is refused
 * over updating inputs and in bounded OVER frames (ROWS / RANGE n
 * PRECEDING). The same calls run in group, window, group-window and OVER
 * aggregates, with FILTER and (one argument, not called on NULL input)
 * DISTINCT. Any entry point returns JOINERY_UDF_ERROR after set_error to fail
 * the job (the message names the function and the row's arguments). Not
 * supported yet (refused at planning): DISTINCT on two arguments or more, a
 * call without GROUP BY that is not a SELECT item itself.
 */
#ifndef JOINERY_UDF_H
#define JOINERY_UDF_H

#include <stdint.h>

#define JOINERY_UDF_ABI_VERSION 2u
/* the oldest version joinery still loads */
#define JOINERY_UDF_ABI_VERSION_MIN 1u

enum { JOINERY_UDF_OK = 0, JOINERY_UDF_ERROR = 1 };

/* what an async function's descriptor is to be watched for, besides readability */
enum { JOINERY_UDF_WAIT_WRITE = 2 };

typedef enum JoineryUdfKind {
    JOINERY_UDF_SCALAR = 1,    /* one value per call */
    JOINERY_UDF_TABLE = 2,     /* 0..n rows per call: LATERAL TABLE(f(...)) */
    JOINERY_UDF_AGGREGATE = 3, /* an aggregate function (ABI 2): agg(...) ... GROUP BY */
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
    /* ABI 2 (joinery fills them for every library; a version-1 one never reads them): */
    /* the value of `key` in 'pipeline.global-job-parameters', NULL when absent; valid
       for the life of the instance */
    const char *(*job_parameter)(JoineryUdfContext *context, const char *key);
    /* what the instance's open set (NULL without open); in open: NULL */
    void *instance;
    /* async table functions, inside poll (or start): request `request` is done with
       rows[0 .. row_count * result_count) (copied), or failed with `error` (not NULL).
       JOINERY_UDF_OK, or JOINERY_UDF_ERROR (an unknown or finished request, a
       malformed value, out of memory): return JOINERY_UDF_ERROR from poll */
    int (*complete)(JoineryUdfContext *context, uint64_t request, const JoineryUdfValue *rows,
                    uint32_t row_count, const char *error);
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
    /* ABI 2 (read only when abi_version >= 2): */
    /* table functions: per instance, see above; NULL: none */
    int (*open)(JoineryUdfContext *context, void **instance);
    void (*close)(void *instance);
    /* async table functions (table NULL): start a call, read what arrived, the fd to watch */
    int (*start)(JoineryUdfContext *context, const JoineryUdfValue *arguments, uint64_t request);
    int (*poll)(JoineryUdfContext *context);
    int (*descriptor)(void *instance, uint32_t *events);
    /* aggregate functions (kind JOINERY_UDF_AGGREGATE, abi_version 2; read only for that
       kind): see "Aggregate functions" above. The accumulator is accumulator_size bytes
       (1 to 4096) joinery keeps in the aggregate's state */
    uint32_t accumulator_size;
    int (*init)(JoineryUdfContext *context, void *accumulator);
    int (*accumulate)(JoineryUdfContext *context, void *accumulator,
                      const JoineryUdfValue *arguments);
    int (*retract)(JoineryUdfContext *context, void *accumulator,
                   const JoineryUdfValue *arguments); /* NULL: append-only inputs only */
    int (*merge)(JoineryUdfContext *context, void *accumulator,
                 const void *other); /* NULL: none (one phase, no HOP / CUMULATE / SESSION) */
    int (*get_value)(JoineryUdfContext *context, const void *accumulator, JoineryUdfValue *result);
} JoineryUdfDescriptor;

#endif
