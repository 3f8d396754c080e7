/*
 * ast_print.h - a deterministic S-expression dump of the AST, for tests and
 * debugging.
 *
 * Invariants: the text depends only on what the statement says (never on
 * pointers, positions or source spelling of keywords), so two parses of the
 * same statement print the same; operators print in prefix form, e.g.
 * "SELECT a + b * 2 FROM t" prints "(select (+ a (* b 2)) (from (table t)))".
 */
#ifndef JOINERY_SQL_AST_PRINT_H
#define JOINERY_SQL_AST_PRINT_H

#include "engine/base/strbuf.h"
#include "engine/sql/ast.h"

/*
 * Appends the dump of statement to out (the caller owns out and frees it).
 * Returns 0, or -1 when statement/out is NULL or memory ran out (out may then
 * hold a partial dump).
 */
int ast_print_statement(const AstStatement *statement, StrBuf *out);

/* Appends the dump of one expression to out; same contract as ast_print_statement. */
int ast_print_expression(const AstExpr *expr, StrBuf *out);

#endif
