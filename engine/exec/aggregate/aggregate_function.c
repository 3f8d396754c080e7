/*
 * aggregate_function.c - the shared aggregate functions (see
 * aggregate_function.h): pure arithmetic on Values, no state.
 */
#include "engine/exec/aggregate/aggregate_function.h"

#include "engine/udf/udf.h"

#include <string.h>
#include "engine/exec/aggregate/collection_aggregate.h"

static const DataType BIGINT_VALUE_TYPE = {.id = TYPE_BIGINT, .nullable = true};

const char *aggregate_function_overflow_message(void)
{
    return "Arithmetic overflow in aggregate (DECIMAL result out of range)";
}

int aggregate_function_check(const AggregateCall *call, uint32_t input_field_count,
                             DataType *value_type, Diag *diag)
{
    *value_type = BIGINT_VALUE_TYPE;
    if (call->kind != AGGREGATE_COUNT_STAR && call->argument >= input_field_count)
        return diag_error(diag, JOINERY_ERROR_VALIDATE, "aggregate: argument out of range");
    if (call->kind == AGGREGATE_USER_DEFINED)
        return diag_error(diag, JOINERY_ERROR_UNSUPPORTED,
                          "aggregate: the user-defined function '%s' is checked by "
                          "user_defined_aggregate_init",
                          call->udf ? call->udf->name : "?");
    TypeId argument = call->argument_type.id;
    TypeId result = call->result_type.id;
    switch (call->kind) {
    case AGGREGATE_USER_DEFINED: /* user_defined_aggregate.c applies it */
    case AGGREGATE_COUNT_STAR:
    case AGGREGATE_COUNT:
        if (!type_is_integer(result))
            return diag_error(diag, JOINERY_ERROR_VALIDATE, "aggregate: COUNT must give BIGINT");
        return JOINERY_OK;
    case AGGREGATE_SUM:
    case AGGREGATE_SUM0:
    case AGGREGATE_AVG:
        if (!type_is_numeric(argument) || !type_is_numeric(result))
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "aggregate: SUM/AVG need numeric types");
        if (argument == TYPE_FLOAT || argument == TYPE_DOUBLE) {
            *value_type = type_make(TYPE_DOUBLE, true);
            if (result != TYPE_FLOAT && result != TYPE_DOUBLE)
                return diag_error(diag, JOINERY_ERROR_UNSUPPORTED,
                                  "aggregate: SUM/AVG of FLOAT/DOUBLE must give FLOAT/DOUBLE");
        }
        return JOINERY_OK;
    case AGGREGATE_MIN:
    case AGGREGATE_MAX:
    case AGGREGATE_FIRST_VALUE:
    case AGGREGATE_LAST_VALUE:
        *value_type = call->argument_type;
        value_type->nullable = true;
        if (!type_equals(call->argument_type, call->result_type))
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "aggregate: MIN/MAX/FIRST_VALUE/LAST_VALUE result type must be "
                              "the argument type");
        return JOINERY_OK;
    case AGGREGATE_LISTAGG:
        *value_type = type_make_varchar(TYPE_STRING_LENGTH, true);
        if (!type_is_string(argument) || !type_is_string(result) ||
            (call->has_separator && call->separator >= input_field_count))
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "aggregate: LISTAGG needs character arguments");
        return JOINERY_OK;
    case AGGREGATE_COLLECT:
    case AGGREGATE_ARRAY_AGG:
        /* the collection itself (collection_aggregate.h) */
        *value_type = call->result_type;
        value_type->nullable = true;
        if (result != (call->kind == AGGREGATE_COLLECT ? TYPE_MULTISET : TYPE_ARRAY) ||
            !type_equals(type_element(call->result_type), call->argument_type))
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "aggregate: COLLECT/ARRAY_AGG give a collection of the argument");
        return JOINERY_OK;
    }
    return diag_error(diag, JOINERY_ERROR_VALIDATE, "aggregate: unknown function");
}

int aggregate_function_add(const AggregateCall *call, DataType value_type, Value value,
                           Value *current, int64_t *count)
{
    bool is_double =
        value_type.id == TYPE_DOUBLE && call->kind != AGGREGATE_MIN && call->kind != AGGREGATE_MAX;
    switch (call->kind) {
    case AGGREGATE_USER_DEFINED: /* user_defined_aggregate.c applies it */
    case AGGREGATE_COUNT_STAR:
        return JOINERY_OK;
    case AGGREGATE_COUNT:
        (*count)++;
        return JOINERY_OK;
    case AGGREGATE_SUM:
    case AGGREGATE_SUM0:
    case AGGREGATE_AVG:
        if (current->is_null)
            *current = is_double ? value_double(0.0) : value_int(0);
        if (is_double) {
            current->d += value.d;
        } else if (call->argument_type.id == TYPE_DECIMAL) {
            int64_t result;
            if (__builtin_add_overflow(current->i, value.i, &result))
                return JOINERY_ERROR_RUNTIME;
            current->i = result;
        } else {
            /* integers wrap like Java arithmetic */
            current->i = (int64_t)((uint64_t)current->i + (uint64_t)value.i);
        }
        (*count)++;
        return JOINERY_OK;
    case AGGREGATE_MIN:
    case AGGREGATE_MAX: {
        int direction = call->kind == AGGREGATE_MIN ? -1 : 1;
        if (*count == 0 || current->is_null ||
            value_compare(call->argument_type, value, *current) * direction > 0)
            *current = value;
        (*count)++;
        return JOINERY_OK;
    }
    case AGGREGATE_FIRST_VALUE:
        if (*count == 0 || current->is_null)
            *current = value;
        (*count)++;
        return JOINERY_OK;
    case AGGREGATE_LAST_VALUE:
        *current = value;
        (*count)++;
        return JOINERY_OK;
    case AGGREGATE_LISTAGG:
        return JOINERY_ERROR; /* aggregate_function_add_text */
    case AGGREGATE_COLLECT:
    case AGGREGATE_ARRAY_AGG:
        /* they need a buffer: the operators call collection_aggregate_apply */
        return JOINERY_ERROR_UNSUPPORTED;
    }
    return JOINERY_OK;
}

bool aggregate_function_is_append_only(AggregateKind kind)
{
    return kind == AGGREGATE_LISTAGG || kind == AGGREGATE_FIRST_VALUE ||
           kind == AGGREGATE_LAST_VALUE;
}

int aggregate_function_add_text(Value value, Value separator, Value *current, int64_t *count,
                                StrBuf *text)
{
    bool in_place = *count > 0 && !current->is_null && text->data && current->s.ptr == text->data &&
                    current->s.len == text->length;
    if (!in_place) {
        /* start the buffer from the current text (stored, or empty) */
        const char *old = *count > 0 && !current->is_null ? current->s.ptr : NULL;
        uint32_t old_length = old ? current->s.len : 0;
        StrBuf fresh = STRBUF_INIT;
        if (old_length && strbuf_append(&fresh, old, old_length) != 0) {
            strbuf_free(&fresh);
            return JOINERY_ERROR_NO_MEMORY;
        }
        strbuf_free(text);
        *text = fresh;
    }
    if (text->length || *count > 0) {
        const char *sep = separator.is_null ? NULL : separator.s.ptr;
        uint32_t sep_length = separator.is_null ? 0 : separator.s.len;
        if (sep_length && strbuf_append(text, sep, sep_length) != 0)
            return JOINERY_ERROR_NO_MEMORY;
    }
    if (value.s.len && strbuf_append(text, value.s.ptr, value.s.len) != 0)
        return JOINERY_ERROR_NO_MEMORY;
    if (!text->data && strbuf_reserve(text, 1) != 0)
        return JOINERY_ERROR_NO_MEMORY;
    current->is_null = false;
    current->s.ptr = text->data;
    current->s.len = (uint32_t)text->length;
    (*count)++;
    return JOINERY_OK;
}

int aggregate_function_retract(const AggregateCall *call, DataType value_type, Value value,
                               Value *current, int64_t *count)
{
    bool is_double = value_type.id == TYPE_DOUBLE;
    switch (call->kind) {
    case AGGREGATE_USER_DEFINED: /* user_defined_aggregate.c applies it */
    case AGGREGATE_COUNT_STAR:
        return JOINERY_OK;
    case AGGREGATE_COUNT:
        (*count)--;
        return JOINERY_OK;
    case AGGREGATE_SUM:
    case AGGREGATE_SUM0:
    case AGGREGATE_AVG:
        if (current->is_null)
            *current = is_double ? value_double(0.0) : value_int(0);
        if (is_double) {
            current->d -= value.d;
        } else if (call->argument_type.id == TYPE_DECIMAL) {
            int64_t result;
            if (__builtin_sub_overflow(current->i, value.i, &result))
                return JOINERY_ERROR_RUNTIME;
            current->i = result;
        } else {
            current->i = (int64_t)((uint64_t)current->i - (uint64_t)value.i);
        }
        if (--*count == 0)
            *current = value_null();
        return JOINERY_OK;
    case AGGREGATE_MIN:
    case AGGREGATE_MAX:
        if (--*count <= 0) {
            *count = 0;
            *current = value_null();
        }
        return JOINERY_OK;
    case AGGREGATE_LISTAGG:
    case AGGREGATE_FIRST_VALUE:
    case AGGREGATE_LAST_VALUE:
        return JOINERY_ERROR; /* accumulate only: the planners refuse their retraction */
    case AGGREGATE_COLLECT:
    case AGGREGATE_ARRAY_AGG:
        /* they need a buffer: the operators call collection_aggregate_apply */
        return JOINERY_ERROR_UNSUPPORTED;
    }
    return JOINERY_OK;
}

int aggregate_function_merge(const AggregateCall *call, DataType value_type, Value value,
                             int64_t count, Value *current, int64_t *current_count)
{
    if (call->kind == AGGREGATE_COUNT_STAR || call->kind == AGGREGATE_COUNT) {
        *current_count += count;
        return JOINERY_OK;
    }
    if (value.is_null)
        return JOINERY_OK;
    bool sums =
        call->kind == AGGREGATE_SUM || call->kind == AGGREGATE_SUM0 || call->kind == AGGREGATE_AVG;
    if (count == 0 && !sums)
        return JOINERY_OK;
    if (aggregate_function_is_append_only(call->kind))
        return JOINERY_ERROR; /* no merge: the planners refuse them in session windows */
    if (call->kind == AGGREGATE_COLLECT || call->kind == AGGREGATE_ARRAY_AGG)
        return JOINERY_ERROR_UNSUPPORTED; /* no merge of collections yet (session windows) */
    if (call->kind == AGGREGATE_MIN || call->kind == AGGREGATE_MAX) {
        int64_t ignored = *current_count;
        int status = aggregate_function_add(call, value_type, value, current, &ignored);
        *current_count += count;
        return status;
    }
    /* SUM and AVG: the other sum added once (a partial sum of a LocalGroupAggregate may
       come with a count of 0 or less: rows retracted and others added), the counts summed;
       no value left: NULL, as after a retraction */
    int64_t ignored = 0;
    int status = aggregate_function_add(call, value_type, value, current, &ignored);
    *current_count += count;
    if (*current_count == 0)
        *current = value_null();
    return status;
}

int aggregate_function_subtract(const AggregateCall *call, DataType value_type, Value value,
                                Value *current, int64_t *count)
{
    if (call->kind != AGGREGATE_SUM && call->kind != AGGREGATE_SUM0 && call->kind != AGGREGATE_AVG)
        return aggregate_function_retract(call, value_type, value, current, count);
    /* the sum goes on below zero values: it is merged into the global sum later */
    bool is_double = value_type.id == TYPE_DOUBLE;
    if (current->is_null)
        *current = is_double ? value_double(0.0) : value_int(0);
    if (is_double) {
        current->d -= value.d;
    } else if (call->argument_type.id == TYPE_DECIMAL) {
        int64_t result;
        if (__builtin_sub_overflow(current->i, value.i, &result))
            return JOINERY_ERROR_RUNTIME;
        current->i = result;
    } else {
        current->i = (int64_t)((uint64_t)current->i - (uint64_t)value.i);
    }
    (*count)--;
    return JOINERY_OK;
}

static bool decimal_fits(int64_t value, int32_t precision)
{
    if (precision >= 19 || precision <= 0)
        return true;
    int64_t limit = decimal_power_of_ten(precision);
    return value > -limit && value < limit;
}

/* Divides sum (at scale `from`) by count into scale `to`, rounding half up. */
static bool decimal_average(int64_t sum, int from, int64_t count, int to, int64_t *result)
{
    __int128 numerator = sum;
    for (int s = from; s < to; s++)
        numerator *= 10;
    __int128 denominator = count;
    for (int s = to; s < from; s++)
        denominator *= 10;
    __int128 quotient = numerator / denominator;
    __int128 remainder = numerator % denominator;
    if (remainder < 0)
        remainder = -remainder;
    if (remainder * 2 >= denominator)
        quotient += numerator < 0 ? -1 : 1;
    if (quotient > INT64_MAX || quotient < INT64_MIN)
        return false;
    *result = (int64_t)quotient;
    return true;
}

int aggregate_function_result(const AggregateCall *call, DataType value_type, int64_t row_count,
                              Value value, int64_t count, Value *result)
{
    DataType out = call->result_type;
    if (call->kind == AGGREGATE_COUNT_STAR) {
        *result = value_int(row_count);
        return JOINERY_OK;
    }
    if (call->kind == AGGREGATE_COUNT) {
        *result = value_int(count);
        return JOINERY_OK;
    }
    if (collection_aggregate_is(call->kind)) {
        *result = collection_aggregate_result(call, value, count);
        return JOINERY_OK;
    }
    if (count == 0 || value.is_null) {
        /* $SUM0 over no value is 0 */
        *result = call->kind != AGGREGATE_SUM0                    ? value_null()
                  : out.id == TYPE_FLOAT || out.id == TYPE_DOUBLE ? value_double(0.0)
                                                                  : value_int(0);
        return JOINERY_OK;
    }
    if (call->kind == AGGREGATE_MIN || call->kind == AGGREGATE_MAX ||
        aggregate_function_is_append_only(call->kind)) {
        *result = value;
        return JOINERY_OK;
    }
    bool sum_is_double = value_type.id == TYPE_DOUBLE;
    int from_scale = call->argument_type.id == TYPE_DECIMAL ? call->argument_type.scale : 0;
    if (call->kind == AGGREGATE_SUM || call->kind == AGGREGATE_SUM0) {
        if (out.id == TYPE_FLOAT || out.id == TYPE_DOUBLE) {
            *result = value_double(sum_is_double ? value.d
                                                 : (double)value.i /
                                                       (double)decimal_power_of_ten(from_scale));
        } else if (out.id == TYPE_DECIMAL) {
            int64_t scaled;
            if (!decimal_rescale(value.i, from_scale, out.scale, &scaled) ||
                !decimal_fits(scaled, out.precision))
                return JOINERY_ERROR_RUNTIME;
            *result = value_int(scaled);
        } else {
            *result = value_int(value_wrap_integer(out.id, (uint64_t)value.i));
        }
        return JOINERY_OK;
    }
    /* AVG */
    if (out.id == TYPE_FLOAT || out.id == TYPE_DOUBLE) {
        double sum =
            sum_is_double ? value.d : (double)value.i / (double)decimal_power_of_ten(from_scale);
        *result = value_double(sum / (double)count);
    } else if (out.id == TYPE_DECIMAL) {
        int64_t average;
        if (!decimal_average(value.i, from_scale, count, out.scale, &average) ||
            !decimal_fits(average, out.precision))
            return JOINERY_ERROR_RUNTIME;
        *result = value_int(average);
    } else {
        int64_t integral = value.i;
        for (int s = 0; s < from_scale; s++)
            integral /= 10;
        *result = value_int(value_wrap_integer(out.id, (uint64_t)(integral / count)));
    }
    return JOINERY_OK;
}
