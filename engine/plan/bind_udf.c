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
#include "engine/plan/plan.h"
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

bool bind_is_udf_aggregate_call(Binder *binder, const AstExpr *ast)
{
    if (!ast || ast->kind != AST_EXPR_FUNCTION || ast->function.over)
        return false;
    return bind_names_udf_aggregate(binder, ast->function.name);
}

bool bind_names_udf_aggregate(Binder *binder, const char *name)
{
    const CatalogFunction *definition = catalog_find_function(binder->context->catalog, name);
    if (!definition)
        return false;
    const UdfFunction *function = NULL;
    Diag local;
    diag_clear(&local);
    return udf_load(definition->name, definition->library, definition->identifier, &function,
                    &local) == JOINERY_OK &&
           function->aggregate;
}

int bind_udf_aggregate_call(Binder *binder, const Scope *scope, const AstExpr *ast,
                            const UdfFunction *function, Expr **result)
{
    AggregateBinding *aggregate = binder->aggregate;
    /* DISTINCT keeps counts of one argument's values (NULL not among them) */
    if (ast->function.distinct &&
        (function->argument_count != 1 || function->descriptor->called_on_null_input))
        return bind_error(binder, JOINERY_ERROR_UNSUPPORTED, ast->position,
                          "DISTINCT in a call of the user-defined aggregate function '%s' is "
                          "supported only with one argument, not called on NULL input, yet",
                          function->name);
    uint32_t count = (uint32_t)ast->function.args.count;
    if (function->argument_count < 1 || function->argument_count > PLAN_AGGREGATE_MAX_ARGUMENTS)
        return bind_error(binder, JOINERY_ERROR_UNSUPPORTED, ast->position,
                          "User-defined aggregate function '%s' takes %u arguments: 1 to %d "
                          "are supported",
                          function->name, function->argument_count, PLAN_AGGREGATE_MAX_ARGUMENTS);
    Expr *args[PLAN_AGGREGATE_MAX_ARGUMENTS + 1] = {NULL};
    for (uint32_t i = 0; i < count && i < PLAN_AGGREGATE_MAX_ARGUMENTS; i++) {
        const AstExpr *arg = ast->function.args.items[i];
        if (arg->kind == AST_EXPR_STAR)
            return bind_error(binder, JOINERY_ERROR_VALIDATE, arg->position,
                              "'*' is only allowed in COUNT(*)");
        if (bind_contains_aggregate(binder, arg))
            return bind_error(binder, JOINERY_ERROR_VALIDATE, ast->position,
                              "Aggregate function calls cannot be nested");
        AggregateBinding *grouping = binder->grouping;
        binder->aggregate = NULL;
        binder->grouping = NULL;
        int status = bind_expr(binder, scope, arg, &args[i]);
        binder->aggregate = aggregate;
        binder->grouping = grouping;
        if (status != JOINERY_OK)
            return status;
    }
    int status = bind_udf_arguments(binder, function, args, count, ast->position);
    if (status != JOINERY_OK)
        return status;
    Expr *filter = NULL;
    if (ast->function.filter) {
        status = bind_aggregate_filter(binder, scope, ast->function.filter, &filter);
        if (status != JOINERY_OK)
            return status;
    }
    aggregate->udf = function;
    aggregate->filter = filter;
    /* the 3rd argument on (the plan's more_arguments) */
    aggregate->more_count = count > 2 ? count - 2 : 0;
    aggregate->more = NULL;
    if (aggregate->more_count) {
        aggregate->more = arena_calloc(binder->arena, aggregate->more_count, sizeof(Expr *));
        if (!aggregate->more)
            return bind_error(binder, JOINERY_ERROR_NO_MEMORY, ast->position, "out of memory");
        memcpy(aggregate->more, args + 2, aggregate->more_count * sizeof(Expr *));
    }
    status = bind_aggregate_add(binder, PLAN_AGGREGATE_USER_DEFINED, ast->function.distinct,
                                args[0], args[1], function->result_types[0],
                                arena_strndup(binder->arena, ast->source_text, ast->source_length),
                                result);
    aggregate->udf = NULL;
    aggregate->filter = NULL;
    aggregate->more = NULL;
    aggregate->more_count = 0;
    return status;
}
