/*
 * ast_depth.c - measures the depth of a parsed statement (see ast_depth.h).
 *
 * Invariants: the walk visits every expression, query and table reference
 * the parser can build (the same children ast_print.c prints), recursing one
 * level per tree level, and stops at the first node deeper than
 * SQL_MAX_DEPTH, so its own recursion is bounded by the limit it checks.
 */
#include "engine/sql/ast_depth.h"

#include <stdbool.h>

typedef struct DepthWalk {
    Diag *diag;
    bool failed;
} DepthWalk;

static void walk_expr(DepthWalk *walk, const AstExpr *expr, int depth);
static void walk_query(DepthWalk *walk, const AstQuery *query, int depth);

/* True (and the error recorded) when a node at `depth` is one too many. */
static bool walk_too_deep(DepthWalk *walk, SourcePosition position, int depth)
{
    if (walk->failed)
        return true;
    if (depth <= SQL_MAX_DEPTH)
        return false;
    walk->failed = true;
    diag_error_at(walk->diag, JOINERY_ERROR_PARSE, position.line, position.column,
                  SQL_DEPTH_MESSAGE, SQL_MAX_DEPTH);
    return true;
}

static void walk_exprs(DepthWalk *walk, const AstList *list, int depth)
{
    for (size_t i = 0; i < list->count && !walk->failed; i++)
        walk_expr(walk, list->items[i], depth);
}

static void walk_expr(DepthWalk *walk, const AstExpr *expr, int depth)
{
    if (!expr || walk_too_deep(walk, expr->position, depth))
        return;
    int below = depth + 1;
    switch (expr->kind) {
    case AST_EXPR_LITERAL:
    case AST_EXPR_COLUMN:
    case AST_EXPR_STAR:
    case AST_EXPR_INTERVAL:
    case AST_EXPR_TABLE_ARGUMENT:
        return;
    case AST_EXPR_UNARY:
        walk_expr(walk, expr->unary.operand, below);
        return;
    case AST_EXPR_BINARY:
        walk_expr(walk, expr->binary.left, below);
        walk_expr(walk, expr->binary.right, below);
        return;
    case AST_EXPR_FUNCTION:
        walk_exprs(walk, &expr->function.args, below);
        if (expr->function.filter)
            walk_expr(walk, expr->function.filter, below);
        return;
    case AST_EXPR_CAST:
        walk_expr(walk, expr->cast.operand, below);
        return;
    case AST_EXPR_CASE:
        walk_expr(walk, expr->case_expr.operand, below);
        walk_exprs(walk, &expr->case_expr.conditions, below);
        walk_exprs(walk, &expr->case_expr.results, below);
        walk_expr(walk, expr->case_expr.else_result, below);
        return;
    case AST_EXPR_IS_NULL:
        walk_expr(walk, expr->is_null.operand, below);
        return;
    case AST_EXPR_IS_DISTINCT:
        walk_expr(walk, expr->is_distinct.left, below);
        walk_expr(walk, expr->is_distinct.right, below);
        return;
    case AST_EXPR_IS_BOOLEAN:
        walk_expr(walk, expr->is_boolean.operand, below);
        return;
    case AST_EXPR_BETWEEN:
        walk_expr(walk, expr->between.operand, below);
        walk_expr(walk, expr->between.low, below);
        walk_expr(walk, expr->between.high, below);
        return;
    case AST_EXPR_IN_LIST:
        walk_expr(walk, expr->in_list.operand, below);
        walk_exprs(walk, &expr->in_list.values, below);
        return;
    case AST_EXPR_LIKE:
        walk_expr(walk, expr->like.operand, below);
        walk_expr(walk, expr->like.pattern, below);
        walk_expr(walk, expr->like.escape, below);
        return;
    case AST_EXPR_SUBQUERY:
        walk_query(walk, expr->subquery.query, below);
        return;
    }
}

static void walk_table_ref(DepthWalk *walk, const AstTableRef *ref, int depth)
{
    if (!ref || walk_too_deep(walk, ref->position, depth))
        return;
    int below = depth + 1;
    switch (ref->kind) {
    case AST_TABLE_NAME:
        walk_expr(walk, ref->table.system_time, below);
        return;
    case AST_TABLE_SUBQUERY:
        walk_query(walk, ref->subquery.query, below);
        return;
    case AST_TABLE_JOIN:
        walk_table_ref(walk, ref->join.left, below);
        walk_table_ref(walk, ref->join.right, below);
        walk_expr(walk, ref->join.condition, below);
        return;
    case AST_TABLE_FUNCTION:
        walk_expr(walk, ref->function.call, below);
        return;
    }
}

static void walk_query(DepthWalk *walk, const AstQuery *query, int depth)
{
    if (!query || walk_too_deep(walk, query->position, depth))
        return;
    int below = depth + 1;
    for (size_t i = 0; i < query->with_items.count && !walk->failed; i++) {
        const AstWithItem *item = query->with_items.items[i];
        walk_query(walk, item->query, below);
    }
    for (size_t i = 0; i < query->order_by.count && !walk->failed; i++) {
        const AstOrderItem *item = query->order_by.items[i];
        walk_expr(walk, item->expr, below);
    }
    walk_expr(walk, query->limit, below);
    walk_expr(walk, query->offset, below);
    switch (query->kind) {
    case AST_QUERY_SELECT:
        for (size_t i = 0; i < query->select.items.count && !walk->failed; i++) {
            const AstSelectItem *item = query->select.items.items[i];
            walk_expr(walk, item->expr, below);
        }
        walk_table_ref(walk, query->select.from, below);
        walk_expr(walk, query->select.where, below);
        walk_exprs(walk, &query->select.group_by, below);
        walk_expr(walk, query->select.having, below);
        return;
    case AST_QUERY_UNION:
        walk_query(walk, query->set.left, below);
        walk_query(walk, query->set.right, below);
        return;
    case AST_QUERY_VALUES:
        for (size_t i = 0; i < query->values.rows.count && !walk->failed; i++)
            walk_exprs(walk, query->values.rows.items[i], below);
        return;
    }
}

static void walk_statement(DepthWalk *walk, const AstStatement *statement, int depth)
{
    if (!statement || walk_too_deep(walk, statement->position, depth))
        return;
    int below = depth + 1;
    switch (statement->kind) {
    case AST_STMT_QUERY:
        walk_query(walk, statement->query, below);
        return;
    case AST_STMT_INSERT:
        walk_query(walk, statement->insert.query, below);
        return;
    case AST_STMT_CREATE_TABLE:
        for (size_t i = 0; i < statement->create_table.columns.count && !walk->failed; i++) {
            const AstColumnDef *column = statement->create_table.columns.items[i];
            walk_expr(walk, column->expr, below);
        }
        walk_expr(walk, statement->create_table.watermark_expr, below);
        return;
    case AST_STMT_CREATE_VIEW:
        walk_query(walk, statement->create_view.query, below);
        return;
    case AST_STMT_STATEMENT_SET:
        /* a statement set nests its INSERTs by one level */
        for (size_t i = 0; i < statement->statement_set.inserts.count && !walk->failed; i++)
            walk_statement(walk, statement->statement_set.inserts.items[i], below);
        return;
    case AST_STMT_EXPLAIN:
        /* EXPLAIN nests a statement by one level, never more */
        walk_statement(walk, statement->explain.statement, below);
        return;
    case AST_STMT_DROP:
    case AST_STMT_SET:
    case AST_STMT_RESET:
    case AST_STMT_SHOW_TABLES:
    case AST_STMT_SHOW_VIEWS:
    case AST_STMT_SHOW_CREATE:
    case AST_STMT_SHOW_FUNCTIONS:
    case AST_STMT_SHOW_CATALOGS:
    case AST_STMT_SHOW_DATABASES:
    case AST_STMT_SHOW_JOBS:
    case AST_STMT_SHOW_JOB_METRICS:
    case AST_STMT_DESCRIBE:
    case AST_STMT_HELP:
    case AST_STMT_QUIT:
    case AST_STMT_ANALYZE:
    case AST_STMT_USE:
    case AST_STMT_SHOW_COLUMNS:
    case AST_STMT_SHOW_CURRENT_CATALOG:
    case AST_STMT_SHOW_CURRENT_DATABASE:
    case AST_STMT_SHOW_MODULES:
    case AST_STMT_SHOW_JARS:
    case AST_STMT_DESCRIBE_JOB:
    case AST_STMT_STOP_JOB:
    case AST_STMT_CREATE_FUNCTION:
    case AST_STMT_BEGIN_STATEMENT_SET:
    case AST_STMT_END_STATEMENT_SET:
        return;
    }
}

JoineryStatus sql_check_depth(const AstStatement *statement, Diag *diag)
{
    DepthWalk walk = {.diag = diag, .failed = false};
    walk_statement(&walk, statement, 1);
    return walk.failed ? JOINERY_ERROR_PARSE : JOINERY_OK;
}
