/*
 * text.c - the engine.h functions about text that need no session: SQL
 * keywords, statement boundaries, secrets in statement text, UTF-8 decoding
 * and JSON quoting, and the name lists completion offers (option keys,
 * connectors and their options, functions). Thin
 * wrappers over engine/sql/, engine/base/utf8.h and engine/format/, so that
 * engine.h stays the CLI's only header and the CLI shares the engine's code
 * instead of keeping copies.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/base/utf8.h"
#include "engine/connector/connector.h"
#include "engine/engine.h"
#include "engine/format/format.h"
#include "engine/sql/parser.h"
#include "engine/sql/secrets.h"
#include "engine/sql/split.h"
#include "engine/plan/expr.h"
#include "engine/stmt/options.h"

const char *const *joinery_keywords(void)
{
    return sql_keywords();
}

size_t joinery_statement_end(const char *text, size_t length, bool *is_blank)
{
    return split_statement_end(text, length, is_blank);
}

size_t joinery_statement_skip_blank(const char *text, size_t length)
{
    return split_skip_blank(text, length);
}

size_t joinery_utf8_decode(const char *text, size_t length, uint32_t *code_point)
{
    size_t consumed;
    size_t bytes = utf8_decode(text, length, code_point, &consumed);
    return bytes ? bytes : 1; /* *code_point is UTF8_INVALID (UINT32_MAX) then */
}

int joinery_json_quote(const char *text, size_t length,
                       int (*write)(void *context, const char *bytes, size_t length), void *context)
{
    return format_json_quote(text, length, FORMAT_JSON_QUOTE_VALID_UTF8, write, context);
}

size_t joinery_statement_find_secrets(const char *text, size_t length,
                                      void (*emit)(void *context, size_t offset, size_t length),
                                      void *context)
{
    return sql_find_secrets(text, length, emit, context);
}

void joinery_list_option_keys(void (*emit)(void *context, const char *name), void *context)
{
    size_t count;
    const OptionSpec *specs = options_specs(&count);
    for (size_t i = 0; i < count; i++)
        emit(context, specs[i].key);
}

void joinery_list_connectors(void (*emit)(void *context, const char *name), void *context)
{
    for (const char *const *name = connector_names(); *name; name++)
        emit(context, *name);
}

void joinery_list_connector_options(const char *connector_name,
                                    void (*emit)(void *context, const char *name), void *context)
{
    emit(context, "connector");
    const Connector *connector = connector_name ? connector_find(connector_name) : NULL;
    for (size_t i = 0; connector && i < connector->option_count; i++)
        emit(context, connector->options[i].key);
}

void joinery_list_functions(void (*emit)(void *context, const char *name), void *context)
{
    function_list_names(emit, context);
}
