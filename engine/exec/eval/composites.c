/*
 * composites.c - ROW(...) and (a, b), ARRAY[...], row.field, ELEMENT,
 * ARRAY_CONTAINS, and CAST between composites of one kind (field by field,
 * element by element). Values are encoded by engine/base/composite.h into
 * the evaluation arena; element access of arrays is in maps.c (ITEM).
 */
#include <string.h>

#include <xxhash.h>

#include "engine/base/composite.h"
#include "engine/exec/eval/eval.h"

/* The values of all arguments, in the evaluation arena; NULL when memory ran out. */
static Value *eval_arguments(const Expr *expr, const EvalInput *input)
{
    uint32_t count = expr->call.arg_count;
    Value *values = arena_alloc(input->context->arena, (count ? count : 1) * sizeof *values);
    if (!values)
        return NULL;
    for (uint32_t i = 0; i < count; i++)
        values[i] = eval_expr(expr->call.args[i], input);
    return values;
}

Value eval_row(const Expr *expr, const EvalInput *input)
{
    Value *fields = eval_arguments(expr, input);
    if (!fields)
        return eval_out_of_memory(input);
    StrBuf encoded = STRBUF_INIT;
    return string_from_strbuf(input, &encoded, row_value_encode(expr->type, fields, &encoded));
}

Value eval_array(const Expr *expr, const EvalInput *input)
{
    Value *elements = eval_arguments(expr, input);
    if (!elements)
        return eval_out_of_memory(input);
    StrBuf encoded = STRBUF_INIT;
    return string_from_strbuf(input, &encoded,
                              array_encode(expr->type, elements, expr->call.arg_count, &encoded));
}

Value eval_field_access(const Expr *expr, const EvalInput *input)
{
    const Expr *row = expr->call.args[0];
    Value value = eval_expr(row, input);
    Value field;
    if (value.is_null || !row_value_field(row->type, value.s.ptr, value.s.len,
                                          (uint32_t)expr->call.args[1]->literal.i, &field))
        return value_null();
    return field;
}

/* HASH_CODE(x): Java's hashCode of integers (Integer's, Long's for BIGINT), a 32-bit hash of
   the value's bytes otherwise (equal values, equal bytes); only a bucket, never shown */
Value eval_hash_code(const Expr *expr, const EvalInput *input)
{
    const Expr *argument = expr->call.args[0];
    Value value = eval_expr(argument, input);
    if (value.is_null)
        return value;
    TypeId id = argument->type.id;
    if (type_is_variable_length(id))
        return value_int((int32_t)(uint32_t)XXH3_64bits(value.s.ptr, value.s.len));
    uint64_t bits = (uint64_t)value.i;
    if (id == TYPE_FLOAT || id == TYPE_DOUBLE)
        memcpy(&bits, &value.d, sizeof bits);
    if (id == TYPE_TINYINT || id == TYPE_SMALLINT || id == TYPE_INT)
        return value_int((int32_t)value.i);
    return value_int((int32_t)(uint32_t)(bits ^ (bits >> 32)));
}

Value eval_element(const Expr *expr, const EvalInput *input)
{
    const Expr *array = expr->call.args[0];
    Value value = eval_expr(array, input);
    if (value.is_null)
        return value;
    uint32_t count = collection_entry_count(value.s.ptr, value.s.len);
    if (count == 0)
        return value_null();
    if (count > 1)
        return eval_error(input, "Array has more than one element.");
    Value element;
    if (!array_element_at(array->type, value.s.ptr, value.s.len, 1, &element))
        return value_null();
    return element;
}

Value eval_array_contains(const Expr *expr, const EvalInput *input)
{
    const Expr *array = expr->call.args[0];
    Value value = eval_expr(array, input);
    if (value.is_null)
        return value;
    Value needle = eval_expr(expr->call.args[1], input);
    CollectionReader reader;
    Value element;
    int64_t multiplicity;
    if (!collection_reader_init(&reader, array->type, value.s.ptr, value.s.len))
        return value_bool(false);
    while (collection_reader_next(&reader, &element, &multiplicity)) {
        if (element.is_null || needle.is_null) {
            if (element.is_null && needle.is_null)
                return value_bool(true);
            continue;
        }
        if (value_compare(reader.element_type, element, needle) == 0)
            return value_bool(true);
    }
    return value_bool(false);
}

/* A part cast to its target type; nested NULLs stay NULL. */
static Value cast_part(const EvalInput *input, DataType from, DataType to, Value value,
                       bool try_cast)
{
    if (value.is_null)
        return value;
    return cast_value(input, from, to, value, try_cast);
}

Value cast_composite(const EvalInput *input, DataType from, DataType to, Value value, bool try_cast)
{
    StrBuf encoded = STRBUF_INIT;
    Arena *arena = input->context->arena;
    if (to.id == TYPE_ROW) {
        uint32_t count = type_field_count(to);
        if (type_field_count(from) != count)
            return eval_error(input, "Cannot cast between rows of different arity");
        Value *fields = arena_alloc(arena, count * sizeof *fields);
        if (!fields)
            return eval_out_of_memory(input);
        for (uint32_t i = 0; i < count; i++) {
            Value field;
            if (!row_value_field(from, value.s.ptr, value.s.len, i, &field))
                field = value_null();
            fields[i] = cast_part(input, type_field(from, i), type_field(to, i), field, try_cast);
        }
        return string_from_strbuf(input, &encoded, row_value_encode(to, fields, &encoded));
    }
    CollectionReader reader;
    if (!collection_reader_init(&reader, from, value.s.ptr, value.s.len))
        return value_null();
    uint32_t count = reader.remaining;
    MultisetElement *entries = arena_alloc(arena, (count ? count : 1) * sizeof *entries);
    Value *elements = arena_alloc(arena, (count ? count : 1) * sizeof *elements);
    if (!entries || !elements)
        return eval_out_of_memory(input);
    uint32_t read = 0;
    while (read < count &&
           collection_reader_next(&reader, &entries[read].element, &entries[read].count)) {
        entries[read].element =
            cast_part(input, type_element(from), type_element(to), entries[read].element, try_cast);
        elements[read] = entries[read].element;
        read++;
    }
    int status = to.id == TYPE_ARRAY ? array_encode(to, elements, read, &encoded)
                                     : multiset_encode(to, entries, read, &encoded);
    return string_from_strbuf(input, &encoded, status);
}
