/*
 * text.c - the engine.h functions about text that need no session: SQL
 * keywords, statement boundaries, secrets in statement text, UTF-8 decoding
 * and JSON quoting. Thin
 * wrappers over engine/sql/, engine/base/utf8.h and engine/format/, so that
 * engine.h stays the CLI's only header and the CLI shares the engine's code
 * instead of keeping copies.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/base/utf8.h"
#include "engine/engine.h"
#include "engine/format/format.h"
#include "engine/sql/parser.h"
#include "engine/sql/secrets.h"
#include "engine/sql/split.h"

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
