/*
 * ast_depth.h - the bound on how deep a syntax tree may be.
 *
 * The parser's recursion is bounded by its own nesting limit, but its loops
 * build chains as deep as the statement is long: `1 + 1 + ...`, AND / OR /
 * `||`, UNION ALL, JOIN and comma lists are left-deep trees. Every later walk
 * (binder, rules, printers, evaluator, plan copies) recurses over these trees,
 * so sql_parse_statement measures each tree it built and rejects one deeper
 * than SQL_MAX_DEPTH levels, with the position of the node where the limit is
 * crossed. Nothing downstream of the parser then sees a deeper tree from one
 * statement; the binder bounds what views and WITH items add
 * (engine/plan/bind.c).
 *
 * The limit: 2,000 levels keeps a 1,000-table join chain, a 1,000-branch
 * UNION ALL and an OR of 1,000 comparisons well inside it, and the deepest
 * statement it admits needs well under the 8 MiB default stack in every later
 * walk and in the job (tests/unit/check_limits.c runs them).
 */
#ifndef JOINERY_SQL_AST_DEPTH_H
#define JOINERY_SQL_AST_DEPTH_H

#include "engine/base/diag.h"
#include "engine/sql/ast.h"

enum { SQL_MAX_DEPTH = 2000 };

/*
 * Checks that no path from the statement down to a leaf of its expressions,
 * queries and table references is longer than SQL_MAX_DEPTH nodes. Returns
 * JOINERY_OK, or JOINERY_ERROR_PARSE with diag set at the first node (in
 * source order of the walk) beyond the limit. The walk itself recurses at
 * most SQL_MAX_DEPTH + 1 levels.
 */
JoineryStatus sql_check_depth(const AstStatement *statement, Diag *diag);

/* The message of that error, for callers that bound trees they build (views). */
#define SQL_DEPTH_MESSAGE                                                                          \
    "Statement too deeply nested or too long: more than %d levels of nested expressions, "         \
    "operators in a chain, joins, set operations or subqueries"

#endif
