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
    Expr *filter;    /* FILTER (WHERE c): c, or c IS TRUE when c is nullable; NULL */
    DataType result_type;
    char *name;
    bool argument_last;            /* a reduction's new argument: placed after the query's own */
    const struct UdfFunction *udf; /* PLAN_AGGREGATE_USER_DEFINED (separator: its 2nd argument) */
    Expr **more;                   /* its 3rd argument on (more_count; arena) */
    uint32_t more_count;
} BoundAggregate;

/* Set while binding the expressions of a grouped query. */
typedef struct AggregateBinding {
    Expr **group_exprs; /* over the FROM scope */
    uint32_t group_count;
    BoundAggregate *calls;
    uint32_t call_count;
    uint32_t call_capacity;
    bool group_window_properties; /* an auxiliary group window function was bound */
    Expr *filter; /* the FILTER of the call being bound, given to bind_aggregate_add */
    const struct UdfFunction *udf; /* the user-defined aggregate being bound, likewise */
    Expr **more;                   /* and its 3rd argument on (more_count of them) */
    uint32_t more_count;
} AggregateBinding;

/*
 * Set while binding the SELECT list of a query with OVER aggregates (bind_over.c): the
 * one window every call must use, resolved over the FROM scope, and the calls, whose
 * results are fields input_count + i (calls.group_count = input_count).
 */
typedef struct OverBinding {
    const struct AstQuery *query; /* its WINDOW clause names windows */
    const PlanNode *input;        /* the FROM (and WHERE) the calls read */
    bool resolved;                /* the first call's window is below */
    uint32_t *partition;          /* PARTITION BY columns of the FROM scope */
    Expr **partition_exprs;       /* [k]: the expression when key k is not a column; NULL */
    uint32_t partition_count;
    uint32_t order_field;
    Expr *order_expr;       /* ORDER BY PROCTIME(): the expression (order_field unused); NULL */
    bool rows;              /* ROWS, else RANGE */
    int64_t preceding;      /* rows (ROWS) or milliseconds (RANGE); -1 = UNBOUNDED */
    Expr *offset;           /* the literal of `offset PRECEDING` (EXPLAIN); NULL */
    AggregateBinding calls; /* group_count = the FROM scope's column count */
} OverBinding;

typedef struct CommonTableExpression {
    const char *name;
    const AstWithItem *item;
} CommonTableExpression;

typedef struct Binder {
    PlannerContext *context;
    Arena *arena;
    Diag *diag;
    AggregateBinding *aggregate; /* non-NULL: select/having of a grouped query */
    OverBinding *over;           /* non-NULL: the SELECT list of a query with OVER aggregates */
    /* the grouped query's keys while its select/having are bound, also where `aggregate` is
       NULL for a moment (outside aggregate arguments): auxiliary group window functions
       (TUMBLE_START, ...) refer to them */
    AggregateBinding *grouping;
    const AstList *state_ttl_hints; /* AstHint* of the current SELECT */
    const AstList *select_hints;    /* every AstHint* of the current SELECT (LOOKUP) */
    uint64_t lookup_hints_used;     /* bit h: select_hints[h] matched a lookup join */
    CommonTableExpression *ctes;
    uint32_t cte_count;
    /* set while bind_subquery.c binds a WHERE conjunct of a subquery: a column found in
       neither the expression's scope nor an enclosing one of the subquery's own is looked
       up here (the enclosing query's FROM) and bound as input scope.count + i; the flag
       says one was */
    const struct Scope *outer_scope;
    bool outer_referenced;
    bool outer_forbidden; /* a column found in outer_scope is an error (uncorrelatable) */
    int view_depth;       /* guards against recursive views */
    int depth;            /* queries and FROM items being bound, across views (<= SQL_MAX_DEPTH) */
} Binder;

/*
 * bind_over.c: checks the window of an OVER aggregate call against binder->over (the first
 * call's window becomes it): Flink's errors for several windows, an ORDER BY that is not
 * one time attribute ascending, and frames other than PRECEDING .. CURRENT ROW.
 */
int bind_over_window(Binder *binder, const struct Scope *scope, const struct AstOver *window);
/* bind_over.c: true when a SELECT item calls an aggregate with OVER (not a rank). */
bool bind_query_has_over_aggregate(Binder *binder, const struct AstQuery *query);
/* A bound FROM item: its plan, the columns it makes visible, and what hints refer to. */
typedef struct BoundFrom {
    PlanNode *node;
    Scope scope;
    const char *hint_name; /* table name (for STATE_TTL) when the ref is one table */
    const char *alias;
    const CatalogTable *table; /* the catalog table or view when the ref names one */
} BoundFrom;

struct UdfFunction;

/*
 * bind_table_function.c: `left JOIN UNNEST(...)` / `left, LATERAL TABLE(f(...))` (ref a join
 * whose right side is a table function other than a window function) with its left side
 * bound: LogicalCorrelate(left, LogicalTableFunctionScan).
 */
int bind_correlate(Binder *binder, const AstTableRef *ref, const BoundFrom *left,
                   BoundFrom *result);
/* bind_table_function.c: a table function alone in FROM (`FROM UNNEST(ARRAY[1, 2]) AS t(x)`,
   `FROM LATERAL TABLE(f('a'))`): its Correlate over Calcite's one-row Values(ZERO), which a
   projection drops. */
int bind_table_function_alone(Binder *binder, const AstTableRef *ref, BoundFrom *result);
/*
 * bind_udf.c: the catalog's user-defined function `name`, loaded (*result NULL when the
 * catalog has none of that name; an error when it cannot be loaded).
 */
int bind_find_udf(Binder *binder, const char *name, SourcePosition position,
                  const struct UdfFunction **result);
/* bind_udf.c: checks `count` arguments against the function's declared types and casts
   them to those types in place; errors name the function and its signature. */
int bind_udf_arguments(Binder *binder, const struct UdfFunction *function, Expr **args,
                       uint32_t count, SourcePosition position);

/*
 * bind_udf.c: a call of user-defined aggregate function `function` in a grouped query
 * (binder->aggregate): one or two arguments, no DISTINCT, FILTER or OVER (refused,
 * naming the function); *result refers to its aggregate output field.
 */
int bind_udf_aggregate_call(Binder *binder, const Scope *scope, const AstExpr *ast,
                            const struct UdfFunction *function, Expr **result);
/* bind_udf.c: true when `ast` is itself a call of a user-defined aggregate function. */
bool bind_is_udf_aggregate_call(Binder *binder, const AstExpr *ast);
/* bind_udf.c: true when `name` is a loaded user-defined aggregate function (with or without
   OVER). */
bool bind_names_udf_aggregate(Binder *binder, const char *name);
/* bind_expr.c: the condition of agg(...) FILTER (WHERE condition) over `scope`: a BOOLEAN
   without aggregates, a nullable one as condition IS TRUE. */
int bind_aggregate_filter(Binder *binder, const Scope *scope, const AstExpr *ast, Expr **result);

/* Binds an expression over `scope` (aggregate mode when binder->aggregate). */
int bind_expr(Binder *binder, const Scope *scope, const AstExpr *ast, Expr **result);

/*
 * Adds the aggregate call (kind, distinct, argument, separator) of the
 * grouped query being bound, or finds the equal one added before, and sets
 * *result to a reference to its output field (of result_type). `name` is
 * kept (arena). JOINERY_OK or JOINERY_ERROR_NO_MEMORY (diag set).
 */
int bind_aggregate_add(Binder *binder, PlanAggregateKind kind, bool distinct, Expr *argument,
                       Expr *separator, DataType result_type, char *name, Expr **result);

/* True for STDDEV_POP, STDDEV_SAMP, STDDEV, VAR_POP, VAR_SAMP and VARIANCE. */
bool bind_is_variance_name(const char *name);

/*
 * Binds STDDEV_POP / STDDEV_SAMP / VAR_POP / VAR_SAMP (STDDEV, VARIANCE) of the
 * bound `argument` as Flink's AggregateReduceFunctionsRule reduces them
 * (bind_variance.c): SUM(x * x), SUM(x) and COUNT(x) added with
 * bind_aggregate_add, *result the expression over them. JOINERY_OK or an
 * error with diag set (a non-numeric argument).
 */
int bind_variance(Binder *binder, const AstExpr *ast, Expr *argument, Expr **result);
/* True when the AST expression contains an aggregate call (not nested in a subquery): a
   built-in one, or a user-defined one of the binder's catalog. */
bool bind_contains_aggregate(Binder *binder, const AstExpr *ast);
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
/* A bound select list (bind_select_items). */
typedef struct SelectList {
    Expr **exprs;
    const char **names;
    uint32_t count;
    uint32_t capacity;
} SelectList;

/* bind.c: binds a FROM clause into its plan and the scope of its columns. */
int bind_from_clause(Binder *binder, const AstTableRef *ref, PlanNode **node, Scope *scope);
/* bind.c: expands * and t.* and binds the other SELECT items of `query` over `scope`
   (over_position: see bind_select; NULL rejects OVER). */
/*
 * bind_over.c: the SELECT of a query with OVER aggregates (`list` bound with binder->over
 * = over) over *node (its FROM and WHERE): one LogicalOverAggregate with the SELECT items
 * (over the input fields, then the calls' results), in *node.
 */
int bind_over_select(Binder *binder, OverBinding *over, const Scope *scope, SelectList *list,
                     PlanNode **node);
int bind_select_items(Binder *binder, const AstQuery *query, const Scope *scope, SelectList *list,
                      int *over_position);
/* bind.c: a LogicalProject of `exprs` named `names` (uniquified) over `input`; NULL when out
   of memory (diag set). */
PlanNode *bind_project(Binder *binder, PlanNode *input, Expr **exprs, const char *const *names,
                       uint32_t count);
/* bind.c: a LogicalFilter over `input`; NULL when out of memory (diag set). */
PlanNode *bind_filter(Binder *binder, PlanNode *input, Expr *condition);
/*
 * bind_subquery.c: binds the WHERE clause `where` of a query over *node (whose fields are
 * `scope`'s columns): its plain conjuncts become a LogicalFilter over *node, then each
 * [NOT] IN (subquery) / [NOT] EXISTS (subquery) conjunct a semi / anti LogicalJoin above
 * it, in the order written (Flink's decorrelation). *node is replaced by the result, whose
 * fields are still `scope`'s columns.
 * `outer` non-NULL: the WHERE is a subquery's, `outer` the enclosing query's scope; a plain
 * conjunct that reads the enclosing query's columns is not filtered but returned in
 * `correlated` (bound over scope's columns then outer's, caller-provided room for one per
 * conjunct, count in correlated->count). Errors (with position): subqueries elsewhere in
 * the WHERE, uncorrelated EXISTS, IN subqueries not selecting one column.
 */
typedef struct BoundConjuncts {
    Expr **items;
    uint32_t count;
    uint32_t capacity;
} BoundConjuncts;
int bind_where(Binder *binder, const AstExpr *where, const Scope *scope, const Scope *outer,
               PlanNode **node, BoundConjuncts *correlated);
/* bind_lookup.c: true when `table` can be the table of a lookup join (its connector
   looks up by key, or a filesystem table, loaded whole). */
bool bind_table_can_lookup(const CatalogTable *table);
/* bind_lookup.c: the options of the lookup join of `table` (named `alias` in the query):
   its lookup.* options under the SELECT's LOOKUP hint naming it. Errors at the hint. */
int bind_lookup_options(Binder *binder, const CatalogTable *table, const char *alias,
                        PlanLookupOptions **result);
/* bind_lookup.c: every LOOKUP hint of the SELECT names a table and matched a lookup join. */
int bind_check_lookup_hints(Binder *binder, const AstList *hints);
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
