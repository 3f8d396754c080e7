/*
 * udf.c - the registry of loaded user-defined C functions and their calls
 * (udf.h). Registry entries live in one process-wide arena, never freed;
 * the mutex guards the list and the arena.
 */
#include "engine/udf/udf.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "engine/udf/job_parameters.h"

enum { UDF_MAX_FIELDS = 64, UDF_ERROR_SIZE = 512 };

typedef struct UdfEntry {
    UdfFunction function;
    struct UdfEntry *next;
} UdfEntry;

static pthread_mutex_t udf_mutex = PTHREAD_MUTEX_INITIALIZER;
static Arena udf_arena;
static bool udf_arena_ready;
static UdfEntry *udf_entries;

bool udf_type_to_sql(JoineryUdfType type, DataType *result)
{
    switch (type) {
    case JOINERY_UDF_BOOLEAN:
        *result = type_make(TYPE_BOOLEAN, true);
        return true;
    case JOINERY_UDF_INT:
        *result = type_make(TYPE_INT, true);
        return true;
    case JOINERY_UDF_BIGINT:
        *result = type_make(TYPE_BIGINT, true);
        return true;
    case JOINERY_UDF_DOUBLE:
        *result = type_make(TYPE_DOUBLE, true);
        return true;
    case JOINERY_UDF_STRING:
        *result = type_make_varchar(TYPE_STRING_LENGTH, true);
        return true;
    }
    return false;
}

const char *udf_type_name(JoineryUdfType type)
{
    switch (type) {
    case JOINERY_UDF_BOOLEAN:
        return "BOOLEAN";
    case JOINERY_UDF_INT:
        return "INT";
    case JOINERY_UDF_BIGINT:
        return "BIGINT";
    case JOINERY_UDF_DOUBLE:
        return "DOUBLE";
    case JOINERY_UDF_STRING:
        return "STRING";
    }
    return "?";
}

/* Checks the descriptor as udf_load promises; JOINERY_OK or an error naming what is wrong. */
static int udf_check_descriptor(const char *symbol, const char *library,
                                const JoineryUdfDescriptor *descriptor, Diag *diag)
{
    const char *what = NULL;
    DataType ignored;
    if (descriptor->abi_version < JOINERY_UDF_ABI_VERSION_MIN ||
        descriptor->abi_version > JOINERY_UDF_ABI_VERSION)
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "User-defined function '%s' in '%s' has ABI version %u; this joinery "
                          "loads versions %u to %u (joinery_udf.h)",
                          symbol, library, descriptor->abi_version, JOINERY_UDF_ABI_VERSION_MIN,
                          JOINERY_UDF_ABI_VERSION);
    /* a version-1 descriptor ends at user_data: its later fields are not read */
    bool version2 = descriptor->abi_version >= 2;
    bool has_instance = version2 && (descriptor->open || descriptor->close);
    bool has_async = version2 && (descriptor->start || descriptor->poll || descriptor->descriptor);
    bool aggregate = descriptor->kind == JOINERY_UDF_AGGREGATE;
    if (descriptor->kind != JOINERY_UDF_SCALAR && descriptor->kind != JOINERY_UDF_TABLE &&
        !aggregate)
        what = "its kind is neither JOINERY_UDF_SCALAR, JOINERY_UDF_TABLE nor "
               "JOINERY_UDF_AGGREGATE";
    else if (aggregate && !version2)
        what = "an aggregate function needs abi_version 2";
    else if (aggregate && descriptor->result_count != 1)
        what = "an aggregate function has result_count 1";
    else if (aggregate &&
             (descriptor->accumulator_size == 0 || descriptor->accumulator_size > 4096))
        what = "an aggregate function's accumulator_size is 1 to 4096 bytes";
    else if (aggregate && (!descriptor->init || !descriptor->accumulate || !descriptor->get_value))
        what = "an aggregate function needs init, accumulate and get_value";
    else if (aggregate && (descriptor->scalar || descriptor->table || has_instance || has_async))
        what = "an aggregate function has no scalar, table, open, close, start, poll or "
               "descriptor";
    else if (descriptor->argument_count > UDF_MAX_FIELDS)
        what = "it declares more than 64 arguments";
    else if (descriptor->argument_count && !descriptor->argument_types)
        what = "it declares arguments without argument_types";
    else if (descriptor->kind == JOINERY_UDF_SCALAR && descriptor->result_count != 1)
        what = "a scalar function has result_count 1";
    else if (descriptor->result_count == 0 || descriptor->result_count > UDF_MAX_FIELDS)
        what = "result_count is 1 to 64";
    else if (!descriptor->result_types)
        what = "it has no result_types";
    else if (descriptor->kind == JOINERY_UDF_SCALAR && !descriptor->scalar)
        what = "a scalar function has no scalar entry point";
    else if (descriptor->kind == JOINERY_UDF_SCALAR && (has_instance || has_async))
        what = "open, close, start, poll and descriptor are for table functions (a scalar "
               "function has no instances)";
    else if (descriptor->kind == JOINERY_UDF_TABLE && !descriptor->table && !has_async)
        what = "a table function has no table entry point (nor start, for an async one)";
    else if (descriptor->kind == JOINERY_UDF_TABLE && descriptor->table && has_async)
        what = "a table function has either table or start / poll / descriptor, not both";
    else if (has_async && (!descriptor->start || !descriptor->poll || !descriptor->descriptor ||
                           !descriptor->open))
        what = "an async table function needs open, start, poll and descriptor";
    if (what)
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "User-defined function '%s' in '%s' has a bad descriptor: %s", symbol,
                          library, what);
    for (uint32_t i = 0; i < descriptor->argument_count; i++)
        if (!udf_type_to_sql(descriptor->argument_types[i], &ignored))
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "User-defined function '%s' in '%s' declares argument %u with "
                              "unknown type code %d",
                              symbol, library, i + 1, (int)descriptor->argument_types[i]);
    for (uint32_t i = 0; i < descriptor->result_count; i++) {
        if (!udf_type_to_sql(descriptor->result_types[i], &ignored))
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "User-defined function '%s' in '%s' declares result %u with "
                              "unknown type code %d",
                              symbol, library, i + 1, (int)descriptor->result_types[i]);
        if (descriptor->result_names &&
            (!descriptor->result_names[i] || !descriptor->result_names[i][0]))
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "User-defined function '%s' in '%s' has no name for result %u",
                              symbol, library, i + 1);
    }
    return JOINERY_OK;
}

/* Fills the entry's function from the descriptor (the registry's arena; mutex held). */
static int udf_fill(UdfFunction *function, const JoineryUdfDescriptor *descriptor)
{
    uint32_t arguments = descriptor->argument_count, results = descriptor->result_count;
    DataType *argument_types = arena_calloc(&udf_arena, arguments + 1, sizeof(DataType));
    DataType *result_types = arena_calloc(&udf_arena, results + 1, sizeof(DataType));
    const char **names = arena_calloc(&udf_arena, results + 1, sizeof(char *));
    if (!argument_types || !result_types || !names)
        return -1;
    for (uint32_t i = 0; i < arguments; i++)
        udf_type_to_sql(descriptor->argument_types[i], &argument_types[i]);
    for (uint32_t i = 0; i < results; i++) {
        udf_type_to_sql(descriptor->result_types[i], &result_types[i]);
        /* Flink's names: EXPR$0 for one result, f0, f1, ... for several */
        names[i] = descriptor->result_names ? arena_strdup(&udf_arena, descriptor->result_names[i])
                   : results == 1           ? arena_strdup(&udf_arena, "EXPR$0")
                                            : arena_printf(&udf_arena, "f%u", i);
        if (!names[i])
            return -1;
    }
    function->descriptor = descriptor;
    function->table = descriptor->kind == JOINERY_UDF_TABLE;
    function->aggregate = descriptor->kind == JOINERY_UDF_AGGREGATE;
    function->argument_count = arguments;
    function->argument_types = argument_types;
    function->result_count = results;
    function->result_types = result_types;
    function->result_names = names;
    function->abi_version = descriptor->abi_version;
    if (descriptor->abi_version >= 2) {
        function->open = descriptor->open;
        function->close = descriptor->close;
        function->start = descriptor->start;
        function->poll = descriptor->poll;
        function->watch_descriptor = descriptor->descriptor;
        function->async = descriptor->start != NULL;
    }
    return 0;
}

static int udf_load_locked(const char *name, const char *library, const char *symbol,
                           const UdfFunction **result, Diag *diag)
{
    for (UdfEntry *entry = udf_entries; entry; entry = entry->next)
        if (strcmp(entry->function.name, name) == 0 &&
            strcmp(entry->function.library, library) == 0 &&
            strcmp(entry->function.symbol, symbol) == 0) {
            *result = &entry->function;
            return JOINERY_OK;
        }
    if (!udf_arena_ready) {
        arena_init(&udf_arena, 16 * 1024);
        udf_arena_ready = true;
    }
    void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *reason = dlerror();
        return diag_error(diag, JOINERY_ERROR_VALIDATE, "Cannot load library '%s': %s", library,
                          reason ? reason : "unknown reason");
    }
    dlerror();
    const JoineryUdfDescriptor *descriptor = dlsym(handle, symbol);
    if (!descriptor) {
        dlclose(handle);
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Symbol '%s' not found in library '%s' (it names the function's "
                          "JoineryUdfDescriptor)",
                          symbol, library);
    }
    int status = udf_check_descriptor(symbol, library, descriptor, diag);
    if (status != JOINERY_OK) {
        dlclose(handle);
        return status;
    }
    UdfEntry *entry = arena_calloc(&udf_arena, 1, sizeof *entry);
    if (!entry || !(entry->function.name = arena_strdup(&udf_arena, name)) ||
        !(entry->function.library = arena_strdup(&udf_arena, library)) ||
        !(entry->function.symbol = arena_strdup(&udf_arena, symbol)) ||
        udf_fill(&entry->function, descriptor) != 0) {
        dlclose(handle);
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    }
    entry->next = udf_entries;
    udf_entries = entry;
    *result = &entry->function;
    return JOINERY_OK;
}

int udf_load(const char *name, const char *library, const char *symbol, const UdfFunction **result,
             Diag *diag)
{
    pthread_mutex_lock(&udf_mutex);
    int status = udf_load_locked(name, library, symbol, result, diag);
    pthread_mutex_unlock(&udf_mutex);
    return status;
}

/* ---------------------------------------------------------------- calls */

struct UdfInstance {
    const UdfFunction *function;
    JobParameters parameters;
    void *state; /* what open set */
    bool opened; /* open returned OK: close is due */
    UdfCompletion completion;
    void *completion_context;
};

typedef struct UdfCall {
    JoineryUdfContext context; /* first: the author's context points here */
    const UdfFunction *function;
    UdfInstance *instance;  /* NULL: a call without one */
    const Value *arguments; /* the call's, for its error message */
    const char *stage;      /* an aggregate's init / get_value (no arguments): its name */
    Arena *arena;
    Diag *diag;
    char error[UDF_ERROR_SIZE];
    bool error_set;
    UdfRowSink sink;
    void *sink_context;
    int sink_status;
    Value fields[UDF_MAX_FIELDS];
} UdfCall;

static void udf_set_error(JoineryUdfContext *context, const char *message)
{
    UdfCall *call = context->engine;
    snprintf(call->error, sizeof call->error, "%s", message ? message : "(no message)");
    call->error_set = true;
}

static const char *udf_job_parameter(JoineryUdfContext *context, const char *key)
{
    UdfCall *call = context->engine;
    return call->instance && key ? job_parameters_get(&call->instance->parameters, key) : NULL;
}

static int udf_complete(JoineryUdfContext *context, uint64_t request, const JoineryUdfValue *rows,
                        uint32_t row_count, const char *error);

static void *udf_allocate(JoineryUdfContext *context, uint32_t size)
{
    UdfCall *call = context->engine;
    return arena_alloc(call->arena, size ? size : 1);
}

/* A value the function returned, as a joinery Value of `type`; false (reason in call->error) when
   it is malformed. Strings are copied into the call's arena when `copy`. */
static bool udf_value_in(UdfCall *call, JoineryUdfType type, const JoineryUdfValue *in, Value *out,
                         bool copy)
{
    if (in->is_null) {
        *out = value_null();
        return true;
    }
    switch (type) {
    case JOINERY_UDF_BOOLEAN:
        *out = value_int(in->i != 0);
        return true;
    case JOINERY_UDF_INT:
        if (in->i < INT32_MIN || in->i > INT32_MAX) {
            snprintf(call->error, sizeof call->error, "returned %lld, out of range for INT",
                     (long long)in->i);
            return false;
        }
        *out = value_int(in->i);
        return true;
    case JOINERY_UDF_BIGINT:
        *out = value_int(in->i);
        return true;
    case JOINERY_UDF_DOUBLE:
        *out = value_double(in->d);
        return true;
    case JOINERY_UDF_STRING:
        if (!in->s.ptr && in->s.len) {
            snprintf(call->error, sizeof call->error, "returned a STRING without bytes");
            return false;
        }
        if (!copy || in->s.len == 0) {
            *out = value_string(in->s.len ? in->s.ptr : "", in->s.len);
            return true;
        }
        char *bytes = arena_alloc(call->arena, in->s.len);
        if (!bytes) {
            snprintf(call->error, sizeof call->error, "out of memory");
            return false;
        }
        memcpy(bytes, in->s.ptr, in->s.len);
        *out = value_string(bytes, in->s.len);
        return true;
    }
    return false;
}

static int udf_emit(JoineryUdfContext *context, const JoineryUdfValue *row)
{
    UdfCall *call = context->engine;
    const JoineryUdfDescriptor *descriptor = call->function->descriptor;
    if (call->sink_status != JOINERY_OK || call->error_set)
        return JOINERY_UDF_ERROR;
    if (!row) {
        udf_set_error(context, "emitted a NULL row");
        return JOINERY_UDF_ERROR;
    }
    for (uint32_t i = 0; i < descriptor->result_count; i++)
        if (!udf_value_in(call, descriptor->result_types[i], &row[i], &call->fields[i], false)) {
            call->error_set = true;
            return JOINERY_UDF_ERROR;
        }
    call->sink_status = call->sink(call->sink_context, call->fields);
    return call->sink_status == JOINERY_OK ? JOINERY_UDF_OK : JOINERY_UDF_ERROR;
}

/* Prepares the call and converts the arguments; false when one is NULL and the function is not
   called on NULL input. */
static bool udf_call_begin(UdfCall *call, const UdfFunction *function, const Value *arguments,
                           Arena *arena, Diag *diag, JoineryUdfValue *converted)
{
    memset(call, 0, sizeof *call);
    call->function = function;
    call->arguments = arguments;
    call->arena = arena;
    call->diag = diag;
    call->context.user_data = function->descriptor->user_data;
    call->context.emit = udf_emit;
    call->context.set_error = udf_set_error;
    call->context.allocate = udf_allocate;
    call->context.engine = call;
    call->context.job_parameter = udf_job_parameter;
    call->context.complete = udf_complete;
    bool any_null = false;
    for (uint32_t i = 0; arguments && i < function->argument_count; i++) {
        const Value *argument = &arguments[i];
        memset(&converted[i], 0, sizeof converted[i]);
        converted[i].is_null = argument->is_null;
        any_null = any_null || argument->is_null;
        if (argument->is_null)
            continue;
        switch (function->descriptor->argument_types[i]) {
        case JOINERY_UDF_DOUBLE:
            converted[i].d = argument->d;
            break;
        case JOINERY_UDF_STRING:
            converted[i].s.ptr = argument->s.ptr;
            converted[i].s.len = argument->s.len;
            break;
        default:
            converted[i].i = argument->i;
            break;
        }
    }
    return !any_null || function->descriptor->called_on_null_input;
}

/* "(-1, 'a b', NULL)": the call's arguments for its error message, cut at ~200 bytes. */
static void udf_format_arguments(const UdfCall *call, StrBuf *out)
{
    strbuf_append_char(out, '(');
    for (uint32_t i = 0; i < call->function->argument_count; i++) {
        if (i)
            strbuf_append_cstr(out, ", ");
        if (out->length > 200) {
            strbuf_append_cstr(out, "...");
            break;
        }
        const Value *argument = &call->arguments[i];
        DataType type = call->function->argument_types[i];
        bool quoted = !argument->is_null && type.id == TYPE_VARCHAR;
        if (argument->is_null)
            strbuf_append_cstr(out, "NULL");
        else if (quoted)
            strbuf_printf(out, "'%.*s'", argument->s.len > 100 ? 100 : (int)argument->s.len,
                          argument->s.ptr);
        else
            value_format_text(type, *argument, out);
    }
    strbuf_append_char(out, ')');
    strbuf_show_nul(out, 0);
}

static int udf_call_failed(UdfCall *call, int returned)
{
    if (call->sink_status != JOINERY_OK)
        return call->sink_status;
    StrBuf arguments = STRBUF_INIT;
    udf_format_arguments(call, &arguments);
    const char *called = strbuf_cstr(&arguments);
    int status;
    if (call->stage)
        status = diag_error(call->diag, JOINERY_ERROR_RUNTIME, "Function '%s' failed in %s: %s",
                            call->function->name, call->stage,
                            call->error_set || call->error[0] ? call->error : "(no message)");
    else if (returned != JOINERY_UDF_ERROR && !call->error_set)
        status = diag_error(call->diag, JOINERY_ERROR_RUNTIME,
                            "Function '%s' failed on arguments %s: it returned status %d "
                            "(JOINERY_UDF_OK or JOINERY_UDF_ERROR expected)",
                            call->function->name, called, returned);
    else
        status =
            diag_error(call->diag, JOINERY_ERROR_RUNTIME,
                       "Function '%s' failed on arguments %s: %s", call->function->name, called,
                       call->error_set || call->error[0] ? call->error : "(no message)");
    strbuf_free(&arguments);
    return status;
}

/* The end of a call returning one value: the function's status, then `out` checked against
   the declared result type into `result`. JOINERY_OK or the call's error. */
static int udf_call_result(UdfCall *call, int returned, const JoineryUdfValue *out, Value *result)
{
    if (returned != JOINERY_UDF_OK || call->error_set)
        return udf_call_failed(call, returned);
    if (!udf_value_in(call, call->function->descriptor->result_types[0], out, result, true)) {
        call->error_set = true;
        return udf_call_failed(call, JOINERY_UDF_ERROR);
    }
    return JOINERY_OK;
}

int udf_call_scalar(const UdfFunction *function, const Value *arguments, Arena *arena,
                    Value *result, Diag *diag)
{
    UdfCall call;
    JoineryUdfValue converted[UDF_MAX_FIELDS + 1];
    if (!udf_call_begin(&call, function, arguments, arena, diag, converted)) {
        *result = value_null();
        return JOINERY_OK;
    }
    JoineryUdfValue out;
    memset(&out, 0, sizeof out);
    int returned = function->descriptor->scalar(&call.context, converted, &out);
    return udf_call_result(&call, returned, &out, result);
}

int udf_call_table(const UdfFunction *function, const Value *arguments, Arena *arena,
                   UdfRowSink sink, void *sink_context, Diag *diag)
{
    UdfCall call;
    JoineryUdfValue converted[UDF_MAX_FIELDS + 1];
    if (!udf_call_begin(&call, function, arguments, arena, diag, converted))
        return JOINERY_OK;
    call.sink = sink;
    call.sink_context = sink_context;
    int returned = function->descriptor->table(&call.context, converted);
    if (returned != JOINERY_UDF_OK || call.error_set || call.sink_status != JOINERY_OK)
        return udf_call_failed(&call, returned == JOINERY_UDF_OK ? JOINERY_UDF_ERROR : returned);
    return JOINERY_OK;
}

/* ---------------------------------------------------------------- aggregates */

int udf_aggregate_init(const UdfFunction *function, void *accumulator, Arena *arena, Diag *diag)
{
    UdfCall call;
    udf_call_begin(&call, function, NULL, arena, diag, NULL);
    call.stage = "init";
    memset(accumulator, 0, function->descriptor->accumulator_size);
    int returned = function->descriptor->init(&call.context, accumulator);
    if (returned != JOINERY_UDF_OK || call.error_set)
        return udf_call_failed(&call, returned);
    return JOINERY_OK;
}

int udf_aggregate_apply(const UdfFunction *function, void *accumulator, const Value *arguments,
                        bool retract, Arena *arena, Diag *diag)
{
    UdfCall call;
    JoineryUdfValue converted[UDF_MAX_FIELDS + 1];
    if (!udf_call_begin(&call, function, arguments, arena, diag, converted))
        return JOINERY_OK;
    const JoineryUdfDescriptor *descriptor = function->descriptor;
    int returned = retract ? descriptor->retract(&call.context, accumulator, converted)
                           : descriptor->accumulate(&call.context, accumulator, converted);
    if (returned != JOINERY_UDF_OK || call.error_set)
        return udf_call_failed(&call, returned);
    return JOINERY_OK;
}

int udf_aggregate_merge(const UdfFunction *function, void *accumulator, const void *other,
                        Arena *arena, Diag *diag)
{
    UdfCall call;
    udf_call_begin(&call, function, NULL, arena, diag, NULL);
    call.stage = "merge";
    if (!function->descriptor->merge)
        return diag_error(diag, JOINERY_ERROR_UNSUPPORTED,
                          "Function '%s' does not implement at least one method named 'merge'",
                          function->name);
    int returned = function->descriptor->merge(&call.context, accumulator, other);
    if (returned != JOINERY_UDF_OK || call.error_set)
        return udf_call_failed(&call, returned);
    return JOINERY_OK;
}

int udf_aggregate_value(const UdfFunction *function, const void *accumulator, Arena *arena,
                        Value *result, Diag *diag)
{
    UdfCall call;
    udf_call_begin(&call, function, NULL, arena, diag, NULL);
    call.stage = "get_value";
    JoineryUdfValue out;
    memset(&out, 0, sizeof out);
    int returned = function->descriptor->get_value(&call.context, accumulator, &out);
    return udf_call_result(&call, returned, &out, result);
}

/* ---------------------------------------------------------------- instances */

/* A call context of an instance (open, start, poll: no arguments converted). */
static void udf_call_of_instance(UdfCall *call, UdfInstance *instance, Arena *arena, Diag *diag)
{
    udf_call_begin(call, instance->function, NULL, arena, diag, NULL);
    call->instance = instance;
    call->context.instance = instance->state;
}

static int udf_complete(JoineryUdfContext *context, uint64_t request, const JoineryUdfValue *rows,
                        uint32_t row_count, const char *error)
{
    UdfCall *call = context->engine;
    UdfInstance *instance = call->instance;
    if (!instance || !instance->completion) {
        udf_set_error(context, "called complete outside an async table function's start or poll");
        return JOINERY_UDF_ERROR;
    }
    if (call->sink_status != JOINERY_OK)
        return JOINERY_UDF_ERROR;
    uint32_t width = call->function->result_count;
    Value *values = NULL;
    if (!error && row_count) {
        if (!rows) {
            udf_set_error(context, "completed a call with rows NULL");
            return JOINERY_UDF_ERROR;
        }
        values = arena_alloc(call->arena, (size_t)row_count * width * sizeof *values);
        if (!values) {
            udf_set_error(context, "out of memory");
            return JOINERY_UDF_ERROR;
        }
        for (uint32_t r = 0; r < row_count; r++)
            for (uint32_t f = 0; f < width; f++)
                if (!udf_value_in(call, call->function->descriptor->result_types[f],
                                  &rows[(size_t)r * width + f], &values[(size_t)r * width + f],
                                  false)) {
                    call->error_set = true;
                    return JOINERY_UDF_ERROR;
                }
    }
    call->sink_status = instance->completion(instance->completion_context, request, values,
                                             error ? 0 : row_count, error);
    return call->sink_status == JOINERY_OK ? JOINERY_UDF_OK : JOINERY_UDF_ERROR;
}

/* The error of an instance-level entry point (open, poll): its message, or the sink's. */
static int udf_instance_failed(UdfCall *call, const char *what, int returned)
{
    if (call->sink_status != JOINERY_OK)
        return call->sink_status;
    if (returned != JOINERY_UDF_OK && returned != JOINERY_UDF_ERROR && !call->error_set)
        return diag_error(call->diag, JOINERY_ERROR_RUNTIME,
                          "Function '%s' failed to %s: it returned status %d (JOINERY_UDF_OK or "
                          "JOINERY_UDF_ERROR expected)",
                          call->function->name, what, returned);
    return diag_error(call->diag, JOINERY_ERROR_RUNTIME, "Function '%s' failed to %s: %s",
                      call->function->name, what,
                      call->error_set || call->error[0] ? call->error : "(no message)");
}

int udf_instance_open(const UdfFunction *function, const char *job_parameters,
                      UdfCompletion completion, void *completion_context, UdfInstance **result,
                      Diag *diag)
{
    *result = NULL;
    UdfInstance *instance = calloc(1, sizeof *instance);
    if (!instance)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    instance->function = function;
    instance->completion = completion;
    instance->completion_context = completion_context;
    int status = job_parameters_parse(job_parameters, &instance->parameters, diag);
    if (status != JOINERY_OK) {
        udf_instance_close(instance);
        return status;
    }
    if (function->open) {
        Arena arena;
        arena_init(&arena, 1024);
        UdfCall call;
        udf_call_of_instance(&call, instance, &arena, diag);
        call.context.instance = NULL;
        void *state = NULL;
        int returned = function->open(&call.context, &state);
        instance->state = state;
        if (returned != JOINERY_UDF_OK || call.error_set) {
            status = udf_instance_failed(&call, "open", returned);
            if (function->close && state)
                function->close(state); /* what a failed open left */
            instance->state = NULL;
        } else {
            instance->opened = true;
        }
        arena_destroy(&arena);
        if (status != JOINERY_OK) {
            udf_instance_close(instance);
            return status;
        }
    }
    *result = instance;
    return JOINERY_OK;
}

void udf_instance_close(UdfInstance *instance)
{
    if (!instance)
        return;
    if (instance->opened && instance->function->close)
        instance->function->close(instance->state);
    job_parameters_free(&instance->parameters);
    free(instance);
}

int udf_instance_call_table(UdfInstance *instance, const Value *arguments, Arena *arena,
                            UdfRowSink sink, void *sink_context, Diag *diag)
{
    const UdfFunction *function = instance->function;
    UdfCall call;
    JoineryUdfValue converted[UDF_MAX_FIELDS + 1];
    if (!udf_call_begin(&call, function, arguments, arena, diag, converted))
        return JOINERY_OK;
    call.instance = instance;
    call.context.instance = instance->state;
    call.sink = sink;
    call.sink_context = sink_context;
    int returned = function->descriptor->table(&call.context, converted);
    if (returned != JOINERY_UDF_OK || call.error_set || call.sink_status != JOINERY_OK)
        return udf_call_failed(&call, returned == JOINERY_UDF_OK ? JOINERY_UDF_ERROR : returned);
    return JOINERY_OK;
}

int udf_instance_start(UdfInstance *instance, const Value *arguments, uint64_t request,
                       Arena *arena, bool *called, Diag *diag)
{
    const UdfFunction *function = instance->function;
    UdfCall call;
    JoineryUdfValue converted[UDF_MAX_FIELDS + 1];
    *called = udf_call_begin(&call, function, arguments, arena, diag, converted);
    if (!*called)
        return JOINERY_OK;
    call.instance = instance;
    call.context.instance = instance->state;
    int returned = function->start(&call.context, converted, request);
    if (returned != JOINERY_UDF_OK || call.error_set || call.sink_status != JOINERY_OK)
        return udf_call_failed(&call, returned == JOINERY_UDF_OK ? JOINERY_UDF_ERROR : returned);
    return JOINERY_OK;
}

int udf_instance_poll(UdfInstance *instance, Arena *arena, Diag *diag)
{
    UdfCall call;
    udf_call_of_instance(&call, instance, arena, diag);
    int returned = instance->function->poll(&call.context);
    if (returned != JOINERY_UDF_OK || call.error_set || call.sink_status != JOINERY_OK)
        return udf_instance_failed(&call, "poll", returned);
    return JOINERY_OK;
}

int udf_instance_descriptor(UdfInstance *instance, uint32_t *events)
{
    uint32_t asked = 0;
    int fd = instance->function->watch_descriptor
                 ? instance->function->watch_descriptor(instance->state, &asked)
                 : -1;
    *events = UDF_WAIT_READ | ((asked & JOINERY_UDF_WAIT_WRITE) ? UDF_WAIT_WRITE : 0u);
    return fd;
}

int udf_call_error(const UdfFunction *function, const Value *arguments, const char *message,
                   Diag *diag)
{
    UdfCall call;
    JoineryUdfValue converted[UDF_MAX_FIELDS + 1];
    Arena arena;
    arena_init(&arena, 256);
    udf_call_begin(&call, function, arguments, &arena, diag, converted);
    udf_set_error(&call.context, message);
    int status = udf_call_failed(&call, JOINERY_UDF_ERROR);
    arena_destroy(&arena);
    return status;
}
