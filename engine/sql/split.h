/*
 * split.h - finds where Flink SQL statements end, without parsing them.
 *
 * Shared by the CLI (which feeds the engine one statement at a time) and the
 * engine, so that both agree on statement boundaries.
 *
 * Invariants:
 * - A ';' ends a statement only outside 'string literals' ('' is an escaped
 *   quote), `backtick identifiers` (`` is an escaped backtick), `-- line`
 *   comments and block comments (hint comments included).
 * - The functions never read outside text[0..length-1]; text need not be
 *   NUL-terminated. They allocate nothing and keep no state.
 * - "Blank" text holds only whitespace and plain comments; a hint comment
 *   counts as content.
 */
#ifndef JOINERY_SQL_SPLIT_H
#define JOINERY_SQL_SPLIT_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Returns the length of the first complete statement of text (through its
 * ';'), or 0 when text holds no complete statement yet. When is_blank is not
 * NULL it receives: for a complete statement, whether it is blank before its
 * ';' (e.g. ";" or "-- note\n;"); otherwise, whether all of text is blank and
 * closed (an unterminated string, identifier or block comment is not blank).
 */
size_t split_statement_end(const char *text, size_t length, bool *is_blank);

/*
 * Returns the offset of the first byte of text that is neither whitespace nor
 * inside a plain (non-hint) comment; length when there is none. An
 * unterminated block comment is not skipped (its start is returned), so the
 * statement handed to the parser begins with it and the lexer reports
 * "unterminated comment" at its position.
 */
size_t split_skip_blank(const char *text, size_t length);

#endif
