/*
 * parser.h - recursive-descent parser for one Flink SQL statement.
 *
 * Invariants:
 * - The parser reads only text[0..length-1] and never modifies it; the AST it
 *   builds (engine/sql/ast.h) lives entirely in the caller's arena and may
 *   point into text (source_text of expressions, query_text of views), so
 *   text must outlive the AST.
 * - All recorded positions are script positions: text[0] is at
 *   (first_line, first_column); lines advance on '\n' and the column restarts
 *   at 1 after it.
 * - Errors carry the position of the offending token and a message without a
 *   position prefix, e.g. "Syntax error: unexpected 'FORM'; expected FROM,
 *   ',' or end of statement".
 */
#ifndef JOINERY_SQL_PARSER_H
#define JOINERY_SQL_PARSER_H

#include <stddef.h>

#include "engine/base/arena.h"
#include "engine/base/diag.h"
#include "engine/sql/ast.h"

/*
 * Parses exactly one statement; a trailing ';' and whitespace or comments are
 * allowed, anything else after the statement is an error.
 * On success returns JOINERY_OK and sets *result (arena memory).
 * On failure returns JOINERY_ERROR_PARSE (syntax), JOINERY_ERROR_UNSUPPORTED
 * (recognised but not supported, e.g. ARRAY types) or JOINERY_ERROR_NO_MEMORY,
 * fills diag via diag_error_at with the token's line and column, and leaves
 * *result NULL. An empty statement (only whitespace, comments or ';') is a
 * JOINERY_ERROR_PARSE error.
 */
int sql_parse_statement(const char *text, size_t length, int first_line, int first_column,
                        Arena *arena, AstStatement **result, Diag *diag);

/* All keywords in upper case, NULL-terminated, for completion. Static storage. */
const char *const *sql_keywords(void);

#endif
