/*
 * bind_udf.c - user-defined C functions in the binder: a call's name found
 * among the catalog's functions (CREATE FUNCTION), the function loaded
 * (engine/udf/udf.h; already loaded at CREATE, so this finds it), and its
 * arguments checked against the declared types: a declared INT takes the
 * integers up to INT, BIGINT every integer, DOUBLE every numeric, STRING
 * CHAR and VARCHAR, BOOLEAN a BOOLEAN, each widened by an implicit cast
 * (a NULL literal fits any). Anything else is an error naming the function,
 * the argument and the signature.
 */
#include <stdio.h>
#include <string.h>

#include "engine/plan/bind_internal.h"
#include "engine/udf/udf.h"

int bind_find_udf(Binder *binder, const char *name, SourcePosition position,
                  const UdfFunction **result)
{
    *result = NULL;
    const CatalogFunction *definition = catalog_find_function(binder->context->catalog, name);
    if (!definition)
        return JOINERY_OK;
    Diag local;
    diag_clear(&local);
    int status =
        udf_load(definition->name, definition->library, definition->identifier, result, &local);
    if (status != JOINERY_OK)
        return bind_error(binder, status, position, "%s", local.message);
    return JOINERY_OK;
}

/* True when a value of `from` may be passed where the function declares `to`. */
static bool bind_udf_accepts(DataType from, JoineryUdfType to)
{
    if (from.id == TYPE_NULL)
        return true;
    switch (to) {
    case JOINERY_UDF_BOOLEAN:
        return from.id == TYPE_BOOLEAN;
    case JOINERY_UDF_INT:
        return from.id == TYPE_TINYINT || from.id == TYPE_SMALLINT || from.id == TYPE_INT;
    case JOINERY_UDF_BIGINT:
        return type_is_integer(from.id);
    case JOINERY_UDF_DOUBLE:
        return type_is_numeric(from.id);
    case JOINERY_UDF_STRING:
        return type_is_string(from.id);
    }
    return false;
}

/* name(STRING, INT) as the function declares it. */
static const char *bind_udf_signature(Binder *binder, const UdfFunction *function)
{
    StrBuf text = STRBUF_INIT;
    strbuf_printf(&text, "%s(", function->name);
    for (uint32_t i = 0; i < function->argument_count; i++)
        strbuf_printf(&text, "%s%s", i ? ", " : "",
                      udf_type_name(function->descriptor->argument_types[i]));
    strbuf_append_char(&text, ')');
    const char *result = arena_strdup(binder->arena, strbuf_cstr(&text));
    strbuf_free(&text);
    return result ? result : function->name;
}

int bind_udf_arguments(Binder *binder, const UdfFunction *function, Expr **args, uint32_t count,
                       SourcePosition position)
{
    if (count != function->argument_count)
        return bind_error(binder, JOINERY_ERROR_VALIDATE, position,
                          "Invalid number of arguments to function '%s'. Was expecting %u "
                          "arguments (its signature: %s)",
                          function->name, function->argument_count,
                          bind_udf_signature(binder, function));
    for (uint32_t i = 0; i < count; i++) {
        JoineryUdfType declared = function->descriptor->argument_types[i];
        if (!bind_udf_accepts(args[i]->type, declared)) {
            char type[96];
            return bind_error(binder, JOINERY_ERROR_VALIDATE, position,
                              "Invalid argument %u of function '%s': %s where the function "
                              "takes %s (its signature: %s)",
                              i + 1, function->name, type_format(args[i]->type, type, sizeof type),
                              udf_type_name(declared), bind_udf_signature(binder, function));
        }
        DataType target = function->argument_types[i];
        target.nullable = args[i]->type.nullable || args[i]->type.id == TYPE_NULL;
        if (args[i]->type.id == TYPE_NULL || !type_equals(args[i]->type, target)) {
            Expr *cast = expr_make_implicit_cast(binder->arena, args[i], target);
            if (!cast)
                return bind_error(binder, JOINERY_ERROR_NO_MEMORY, position, "out of memory");
            args[i] = cast;
        }
    }
    return JOINERY_OK;
}
