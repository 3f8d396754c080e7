/*
 * bind_internal.h - state shared by the binder's files (bind.c for queries
 * and FROM clauses, bind_expr.c for expressions). Not used outside plan/.
 *
 * A scope is the list of columns visible to an expression: for a FROM
 * clause, the columns of every relation in it, in the order of the combined
 * row (left relation first), each with the qualifier (alias or table name)
 * it can be referred to by.
 */
#ifndef JOINERY_PLAN_BIND_INTERNAL_H
#define JOINERY_PLAN_BIND_INTERNAL_H

#include "engine/plan/planner.h"

typedef struct ScopeColumn {
    const char *qualifier; /* alias or table name; NULL for unnamed subquery columns */
    const char *name;
    DataType type;
} ScopeColumn;

typedef struct Scope {
    ScopeColumn *columns;
    uint32_t count;
} Scope;

/* An aggregate call found while binding a grouped query. */
typedef struct BoundAggregate {
    PlanAggregateKind kind;
    bool distinct;
    Expr *argument;  /* over the FROM scope; NULL for COUNT(*) */
    Expr *separator; /* LISTAGG's second argument (a constant string); NULL */
    DataType result_type;
    char *name;
} BoundAggregate;

/* Set while binding the expressions of a grouped query. */
typedef struct AggregateBinding {
    Expr **group_exprs; /* over the FROM scope */
    uint32_t group_count;
    BoundAggregate *calls;
    uint32_t call_count;
    uint32_t call_capacity;
    bool group_window_properties; /* an auxiliary group window function was bound */
} AggregateBinding;

typedef struct CommonTableExpression {
    const char *name;
    const AstWithItem *item;
} CommonTableExpression;

typedef struct Binder {
    PlannerContext *context;
    Arena *arena;
    Diag *diag;
    AggregateBinding *aggregate; /* non-NULL: select/having of a grouped query */
    /* the grouped query's keys while its select/having are bound, also where `aggregate` is
       NULL for a moment (outside aggregate arguments): auxiliary group window functions
       (TUMBLE_START, ...) refer to them */
    AggregateBinding *grouping;
    const AstList *state_ttl_hints; /* AstHint* of the current SELECT */
    CommonTableExpression *ctes;
    uint32_t cte_count;
    int view_depth; /* guards against recursive views */
    int depth;      /* queries and FROM items being bound, across views (<= SQL_MAX_DEPTH) */
} Binder;

/* Binds an expression over `scope` (aggregate mode when binder->aggregate). */
int bind_expr(Binder *binder, const Scope *scope, const AstExpr *ast, Expr **result);
/* True when the AST expression contains an aggregate call (not nested in a subquery). */
bool bind_contains_aggregate(const AstExpr *ast);
/* Error at an AST position. */
int bind_error(Binder *binder, JoineryStatus status, SourcePosition position, const char *format,
               ...) __attribute__((format(printf, 4, 5)));
/* Binds a query (used for subqueries, views, CTEs). */
int bind_query(Binder *binder, const AstQuery *query, PlanNode **result);
/* Binds a table, view or CTE by name (a FROM item's name) into *result. */
int bind_relation_name(Binder *binder, const AstList *parts, SourcePosition position,
                       PlanNode **result);
/* bind_window.c: true when `name` is a window table function (TUMBLE, HOP, CUMULATE, SESSION). */
bool bind_is_window_function(const char *name);
/* bind_window.c: the LogicalTableFunctionScan of a window table function call. */
int bind_window_function(Binder *binder, const AstExpr *call, PlanNode **result);
/* bind_window.c: true when `ast` is a group window function (TUMBLE, HOP, SESSION). */
bool bind_is_group_window(const AstExpr *ast);
/* bind_window.c: the group key $TUMBLE(time, size), $HOP(time, slide, size) or
   $SESSION(time, gap) of a GROUP BY item for which bind_is_group_window holds. */
int bind_group_window(Binder *binder, const Scope *scope, const AstExpr *ast, Expr **result);
/* bind_window.c: true when `ast` calls an auxiliary group window function (TUMBLE_START, ...). */
bool bind_is_group_window_auxiliary(const AstExpr *ast);
/* bind_window.c: TUMBLE_START($k) etc. over the group key k it matches (binder->grouping);
   an error when no GROUP BY key matches. */
int bind_group_window_auxiliary(Binder *binder, const Scope *scope, const AstExpr *ast,
                                Expr **result);
/* Allocates a fresh node with an id. */
PlanNode *bind_new_node(Binder *binder, PlanKind kind, uint32_t input_count, uint32_t field_count);

#endif
