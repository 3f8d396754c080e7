/*
 * ddl_function.c - CREATE FUNCTION and DROP FUNCTION (ddl.h): Flink's
 * statements, with joinery's LANGUAGE C (engine/udf/joinery_udf.h). The
 * library is loaded and the descriptor checked at CREATE, so a missing
 * library or symbol or a bad descriptor is an error there; Java, Scala and
 * Python functions are refused with their language named.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "engine/plan/expr.h"
#include "engine/stmt/ddl.h"
#include "engine/udf/udf.h"

typedef struct BuiltinSearch {
    const char *name;
    bool found;
} BuiltinSearch;

static void ddl_match_builtin(void *context, const char *name)
{
    BuiltinSearch *search = context;
    if (strcasecmp(search->name, name) == 0)
        search->found = true;
}

static int ddl_function_error(StatementContext *context, SourcePosition position, int status)
{
    context->diag->line = position.line;
    context->diag->column = position.column;
    return status;
}

int ddl_create_function(StatementContext *context, const AstStatement *statement)
{
    const AstCreateFunction *create = &statement->create_function;
    Diag *diag = context->diag;
    SourcePosition position = statement->position;
    const char *name = statement_object_name(context, &create->name_parts, position);
    if (!name)
        return diag->status;
    if (!create->language)
        return diag_error_at(diag, JOINERY_ERROR_UNSUPPORTED, position.line, position.column,
                             "CREATE FUNCTION without LANGUAGE defines a Java function (Flink's "
                             "default, LANGUAGE JAVA), which joinery cannot run: joinery runs "
                             "functions written in C, CREATE FUNCTION %s AS 'symbol' LANGUAGE C "
                             "USING JAR '/path/to/library.so'",
                             name);
    SourcePosition language = create->language_position;
    if (strcasecmp(create->language, "JAVA") == 0 || strcasecmp(create->language, "SCALA") == 0 ||
        strcasecmp(create->language, "PYTHON") == 0)
        return diag_error_at(diag, JOINERY_ERROR_UNSUPPORTED, language.line, language.column,
                             "LANGUAGE %s is not supported: joinery runs user-defined functions "
                             "written in C (LANGUAGE C USING JAR '/path/to/library.so')",
                             create->language);
    if (strcasecmp(create->language, "C") != 0)
        return diag_error_at(diag, JOINERY_ERROR_VALIDATE, language.line, language.column,
                             "Unrecognized function language '%s': Flink's are JAVA, SCALA and "
                             "PYTHON, joinery runs C",
                             create->language);
    if (!create->library || !create->library[0])
        return diag_error_at(diag, JOINERY_ERROR_VALIDATE, position.line, position.column,
                             "A LANGUAGE C function needs its shared library: USING JAR "
                             "'/path/to/library.so'");
    BuiltinSearch search = {name, false};
    function_list_names(ddl_match_builtin, &search);
    if (search.found)
        return diag_error_at(diag, JOINERY_ERROR_VALIDATE, position.line, position.column,
                             "Function '%s' is a built-in function; a user-defined function "
                             "needs another name",
                             name);
    Catalog *catalog = context->session->catalog;
    if (catalog_find_function(catalog, name)) {
        if (create->if_not_exists)
            return statement_info(context, "Execute statement succeeded.");
        return diag_error_at(diag, JOINERY_ERROR_VALIDATE, position.line, position.column,
                             "Function `default_catalog`.`default_database`.`%s` already exists",
                             name);
    }
    const UdfFunction *loaded = NULL;
    int status = udf_load(name, create->library, create->identifier, &loaded, diag);
    if (status != JOINERY_OK)
        return ddl_function_error(context, create->identifier_position, status);
    CatalogFunction function = {
        .name = (char *)name,
        .identifier = create->identifier,
        .language = "C",
        .library = create->library,
        .temporary = create->temporary,
        .system = create->system,
    };
    status = catalog_add_function(catalog, &function, create->if_not_exists, diag);
    if (status != JOINERY_OK)
        return ddl_function_error(context, position, status);
    return statement_info(context, "Execute statement succeeded.");
}

int ddl_drop_function(StatementContext *context, const AstStatement *statement)
{
    const AstDrop *drop = &statement->drop;
    SourcePosition position = statement->position;
    const char *name = statement_object_name(context, &drop->name_parts, position);
    if (!name)
        return context->diag->status;
    Catalog *catalog = context->session->catalog;
    const CatalogFunction *function = catalog_find_function(catalog, name);
    if (function && function->temporary != drop->temporary)
        return diag_error_at(context->diag, JOINERY_ERROR_VALIDATE, position.line, position.column,
                             function->temporary
                                 ? "Function '%s' is temporary: drop it with DROP TEMPORARY "
                                   "FUNCTION"
                                 : "Function '%s' is not temporary: drop it with DROP FUNCTION",
                             name);
    int status = catalog_drop_function(catalog, name, drop->if_exists, context->diag);
    if (status != JOINERY_OK)
        return ddl_function_error(context, position, status);
    return statement_info(context, "Execute statement succeeded.");
}
