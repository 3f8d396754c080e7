/*
 * ast.h - the syntax tree of one Flink SQL statement, as the parser builds it.
 *
 * Invariants:
 * - Every node lives in the statement arena passed to the parser; nothing is
 *   freed separately.
 * - Every node carries the SourcePosition (1-based line and column, in the
 *   caller's script coordinates) of its first token, for error carets.
 * - Identifiers are stored as written (backticks removed); the binder
 *   resolves them case-insensitively but keeps the spelling for output.
 * - Lists are arrays with a count (AstList), in source order.
 * - The AST says only what was written; names and types are resolved by the
 *   binder (engine/plan/bind.c), never here.
 */
#ifndef JOINERY_SQL_AST_H
#define JOINERY_SQL_AST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/base/type.h"

typedef struct SourcePosition {
    int line;
    int column;
} SourcePosition;

typedef struct AstExpr AstExpr;
typedef struct AstQuery AstQuery;
typedef struct AstTableRef AstTableRef;

/* A dynamic array of pointers (items[0..count-1]). */
typedef struct AstList {
    void **items;
    size_t count;
    size_t capacity;
} AstList;

/* A 'key' = 'value' pair (WITH options, SET, hint options). */
typedef struct AstOption {
    SourcePosition position;       /* of the key */
    SourcePosition value_position; /* of the value */
    char *key;
    char *value;
} AstOption;

/* ---------------------------------------------------------------- exprs */

typedef enum AstExprKind {
    AST_EXPR_LITERAL,        /* literal: see AstLiteralKind */
    AST_EXPR_COLUMN,         /* [qualifier.]name */
    AST_EXPR_STAR,           /* * or qualifier.* (only in select lists and COUNT(*)) */
    AST_EXPR_UNARY,          /* operator applied to operand (NOT, -, +) */
    AST_EXPR_BINARY,         /* left operator right */
    AST_EXPR_FUNCTION,       /* name(args) incl. aggregates; distinct flag */
    AST_EXPR_CAST,           /* CAST(operand AS cast_type) / TRY_CAST */
    AST_EXPR_CASE,           /* CASE [operand] WHEN .. THEN .. [ELSE ..] END */
    AST_EXPR_IS_NULL,        /* operand IS [NOT] NULL (negated) */
    AST_EXPR_IS_DISTINCT,    /* left IS [NOT] DISTINCT FROM right (negated) */
    AST_EXPR_IS_BOOLEAN,     /* operand IS [NOT] TRUE/FALSE/UNKNOWN */
    AST_EXPR_BETWEEN,        /* operand [NOT] BETWEEN low AND high (negated) */
    AST_EXPR_IN_LIST,        /* operand [NOT] IN (list) (negated) */
    AST_EXPR_LIKE,           /* operand [NOT] LIKE pattern [ESCAPE escape] (negated) */
    AST_EXPR_INTERVAL,       /* INTERVAL 'text' unit [TO unit] */
    AST_EXPR_SUBQUERY,       /* ( query ) or EXISTS ( query ) used as an expression: the binder
                                takes IN / EXISTS conjuncts of WHERE, rejects the rest */
    AST_EXPR_TABLE_ARGUMENT, /* TABLE name [PARTITION BY keys] as a function argument:
                                TUMBLE(TABLE t, ...) */
} AstExprKind;

typedef enum AstLiteralKind {
    AST_LITERAL_NULL,
    AST_LITERAL_BOOLEAN,   /* boolean_value */
    AST_LITERAL_INTEGER,   /* text holds the digits; fits BIGINT when integer_overflow is false */
    AST_LITERAL_DECIMAL,   /* text like "12.50" (exact numeric) */
    AST_LITERAL_DOUBLE,    /* text like "1.5E3" (approximate) */
    AST_LITERAL_STRING,    /* text unescaped ('' -> ') */
    AST_LITERAL_BINARY,    /* X'0A1B': text holds the hex digits as written */
    AST_LITERAL_DATE,      /* DATE '2024-01-01': text */
    AST_LITERAL_TIME,      /* TIME '10:00:00': text */
    AST_LITERAL_TIMESTAMP, /* TIMESTAMP '2024-01-01 10:00:00': text */
} AstLiteralKind;

typedef enum AstOperator {
    AST_OP_PLUS,
    AST_OP_MINUS,
    AST_OP_MULTIPLY,
    AST_OP_DIVIDE,
    AST_OP_MODULO, /* % */
    AST_OP_EQUAL,
    AST_OP_NOT_EQUAL, /* <> and != */
    AST_OP_LESS,
    AST_OP_LESS_EQUAL,
    AST_OP_GREATER,
    AST_OP_GREATER_EQUAL,
    AST_OP_AND,
    AST_OP_OR,
    AST_OP_NOT,    /* unary */
    AST_OP_NEGATE, /* unary - */
    AST_OP_CONCAT, /* || */
} AstOperator;

typedef enum AstIntervalUnit {
    AST_INTERVAL_YEAR,
    AST_INTERVAL_MONTH,
    AST_INTERVAL_DAY,
    AST_INTERVAL_HOUR,
    AST_INTERVAL_MINUTE,
    AST_INTERVAL_SECOND, /* SECOND and SECONDS */
} AstIntervalUnit;

typedef enum AstBooleanTest {
    AST_IS_TRUE,
    AST_IS_FALSE,
    AST_IS_UNKNOWN,
} AstBooleanTest;

struct AstExpr {
    AstExprKind kind;
    SourcePosition position;
    /* the exact source text of this expression, for Flink-style naming
       (EXPR$0 uses none of it, but error messages and views do) */
    const char *source_text;
    size_t source_length;
    union {
        struct {
            AstLiteralKind kind;
            char *text; /* NULL for NULL and BOOLEAN; NUL-terminated, but a STRING's text
                           may hold NUL bytes: text_length is its length */
            size_t text_length;
            bool boolean_value;
            bool integer_overflow; /* INTEGER whose digits exceed BIGINT (9223372036854775807) */
        } literal;
        struct {
            char *qualifier; /* NULL when unqualified */
            char *name;
            SourcePosition name_position;
        } column;
        struct {
            char *qualifier; /* NULL for plain * */
        } star;
        struct {
            AstOperator op;
            AstExpr *operand;
        } unary;
        struct {
            AstOperator op;
            AstExpr *left;
            AstExpr *right;
        } binary;
        struct {
            char *name;   /* as written, e.g. "COUNT", "date_format" */
            AstList args; /* AstExpr*; COUNT(*) has one AST_EXPR_STAR arg */
            /* char* per arg: the name of a named argument (SIZE => ...), NULL for a
               positional one; empty (count 0) when no argument is named */
            AstList arg_names;
            bool distinct;
            AstExpr *filter;      /* agg(...) FILTER (WHERE filter); NULL without */
            struct AstOver *over; /* f(...) OVER (...) / OVER name; NULL without OVER */
        } function;
        struct {
            AstExpr *operand;
            DataType cast_type;
            bool try_cast;
        } cast;
        struct {
            AstExpr *operand;     /* NULL for searched CASE */
            AstList conditions;   /* AstExpr* WHEN parts */
            AstList results;      /* AstExpr* THEN parts, same count */
            AstExpr *else_result; /* NULL when absent */
        } case_expr;
        struct {
            AstExpr *operand;
            bool negated;
        } is_null;
        struct {
            AstExpr *left;
            AstExpr *right;
            bool negated; /* IS NOT DISTINCT FROM */
        } is_distinct;
        struct {
            AstExpr *operand;
            AstBooleanTest test;
            bool negated;
        } is_boolean;
        struct {
            AstExpr *operand;
            AstExpr *low;
            AstExpr *high;
            bool negated;
            bool symmetric;
        } between;
        struct {
            AstExpr *operand;
            AstList values; /* AstExpr* */
            bool negated;
        } in_list;
        struct {
            AstExpr *operand;
            AstExpr *pattern;
            AstExpr *escape; /* NULL when absent */
            bool negated;
        } like;
        struct {
            char *text; /* the quoted text, e.g. "5", "-10", "1 02:00:00" */
            AstIntervalUnit unit;
            AstIntervalUnit to_unit; /* == unit when no TO part */
            bool negative;           /* a leading unary minus folded in: INTERVAL -'5' */
        } interval;
        struct {
            AstQuery *query;
            bool exists; /* EXISTS ( query ) rather than ( query ) */
        } subquery;
        struct {
            AstList name_parts;   /* char*: 1 to 3 name parts */
            AstList partition_by; /* char*: TABLE t PARTITION BY k / (k1, k2); usually empty */
        } table_argument;
    };
};

/* ---------------------------------------------------------------- queries */

/* One hint: NAME(args) inside a hint comment; args are either options ('k'='v') or names. */
typedef struct AstHint {
    SourcePosition position;
    char *name;          /* e.g. "STATE_TTL", upper-cased */
    AstList options;     /* AstOption* for key-value hints */
    AstList identifiers; /* char* for list hints like MULTI_JOIN(t1, t2) */
} AstHint;

typedef struct AstSelectItem {
    SourcePosition position;
    AstExpr *expr; /* may be AST_EXPR_STAR */
    char *alias;   /* NULL when none */
} AstSelectItem;

typedef enum AstJoinKind {
    AST_JOIN_INNER,
    AST_JOIN_LEFT,
    AST_JOIN_RIGHT,
    AST_JOIN_FULL,
    AST_JOIN_CROSS, /* CROSS JOIN and comma joins (comma sets comma=true) */
} AstJoinKind;

typedef enum AstTableRefKind {
    AST_TABLE_NAME,     /* [catalog.][database.]name [FOR SYSTEM_TIME AS OF expr] */
    AST_TABLE_SUBQUERY, /* ( query ) [AS] alias */
    AST_TABLE_JOIN,     /* left join right ON condition / USING (cols) */
    AST_TABLE_FUNCTION, /* TABLE(fn(...)) / LATERAL TABLE(...) / UNNEST(expr) (function.unnest) */
} AstTableRefKind;

struct AstTableRef {
    AstTableRefKind kind;
    SourcePosition position;
    char *alias;            /* NULL when none */
    AstList column_aliases; /* char*: t AS x (a, b); usually empty */
    AstList hints;          /* AstHint* written right after the table name */
    union {
        struct {
            AstList parts;        /* char*: 1 to 3 name parts */
            AstExpr *system_time; /* FOR SYSTEM_TIME AS OF expr, NULL when absent */
        } table;
        struct {
            AstQuery *query;
            bool exists; /* EXISTS ( query ) rather than ( query ) */
        } subquery;
        struct {
            AstJoinKind kind;
            bool comma;   /* written as FROM a, b */
            bool natural; /* NATURAL JOIN: rejected by the binder */
            AstTableRef *left;
            AstTableRef *right;
            AstExpr *condition;              /* ON condition; NULL for CROSS/comma/USING */
            AstList using_columns;           /* char*: USING (a, b) */
            SourcePosition keyword_position; /* of the JOIN keyword, for errors */
        } join;
        struct {
            AstExpr *call;        /* the function call inside TABLE(...); UNNEST(expr) */
            bool unnest;          /* UNNEST(expr): call is a call of UNNEST with one argument */
            bool with_ordinality; /* UNNEST(expr) WITH ORDINALITY */
        } function;
    };
};

typedef struct AstOrderItem {
    AstExpr *expr;
    bool descending;
    int nulls_first; /* -1 default, 0 NULLS LAST, 1 NULLS FIRST */
} AstOrderItem;

/* OVER ([PARTITION BY expr, ...] [ORDER BY item, ...]) of ROW_NUMBER(). */
/* One bound of an OVER window frame (ROWS / RANGE ...). */
typedef enum AstFrameBoundKind {
    AST_FRAME_UNBOUNDED_PRECEDING,
    AST_FRAME_PRECEDING, /* offset PRECEDING */
    AST_FRAME_CURRENT_ROW,
    AST_FRAME_FOLLOWING, /* offset FOLLOWING */
    AST_FRAME_UNBOUNDED_FOLLOWING,
} AstFrameBoundKind;

typedef struct AstFrameBound {
    AstFrameBoundKind kind;
    AstExpr *offset; /* PRECEDING / FOLLOWING: a row count or an INTERVAL; else NULL */
    SourcePosition position;
} AstFrameBound;

/* OVER (...), OVER name, or the body of a WINDOW clause item. */
typedef struct AstOver {
    AstList partition_by;    /* AstExpr* */
    AstList order_by;        /* AstOrderItem* */
    SourcePosition position; /* of OVER (of the name in a WINDOW clause) */
    char *name;              /* OVER name: a window of the WINDOW clause; NULL */
    char *base_name;         /* OVER (name ...): refines a named window; NULL */
    bool has_frame;          /* ROWS / RANGE given */
    bool rows;               /* ROWS, else RANGE */
    AstFrameBound lower;     /* has_frame: BETWEEN lower AND upper (upper CURRENT ROW when */
    AstFrameBound upper;     /* the frame is a single bound) */
} AstOver;

/* WINDOW name AS (...) in a SELECT. */
typedef struct AstWindowDefinition {
    char *name;
    AstOver *over;
    SourcePosition position;
} AstWindowDefinition;

typedef enum AstQueryKind {
    AST_QUERY_SELECT,
    AST_QUERY_UNION, /* left UNION [ALL] right (also INTERSECT/EXCEPT via set_op) */
    AST_QUERY_VALUES,
} AstQueryKind;

typedef enum AstSetOperator {
    AST_SET_UNION,
    AST_SET_INTERSECT,
    AST_SET_EXCEPT,
} AstSetOperator;

struct AstQuery {
    AstQueryKind kind;
    SourcePosition position;
    AstList with_items; /* AstWithItem*: WITH name AS (query), ... on the outermost query */
    AstList order_by;   /* AstOrderItem*: ORDER BY (the binder makes a LogicalSort) */
    AstExpr *limit;     /* LIMIT n / FETCH FIRST n ROWS ONLY, NULL when absent */
    AstExpr *offset;    /* OFFSET m [ROW|ROWS], NULL when absent */
    union {
        struct {
            AstList hints; /* AstHint*: hints after SELECT */
            bool distinct;
            AstList items;     /* AstSelectItem* */
            AstTableRef *from; /* NULL for SELECT without FROM */
            AstExpr *where;    /* NULL when absent */
            AstList group_by;  /* AstExpr* */
            AstExpr *having;   /* NULL when absent */
            AstList windows;   /* AstWindowDefinition*: WINDOW w AS (...), ... */
        } select;
        struct {
            AstSetOperator op;
            bool all;
            AstQuery *left;
            AstQuery *right;
        } set;
        struct {
            AstList rows; /* AstList* of AstExpr* */
        } values;
    };
};

typedef struct AstWithItem {
    SourcePosition position;
    char *name;
    AstList column_names; /* char* */
    AstQuery *query;
} AstWithItem;

/* ---------------------------------------------------------------- DDL */

typedef enum AstColumnKind {
    AST_COLUMN_PHYSICAL,
    AST_COLUMN_COMPUTED, /* name AS expr */
    AST_COLUMN_METADATA, /* name type METADATA [FROM 'key'] [VIRTUAL] */
} AstColumnKind;

typedef struct AstColumnDef {
    SourcePosition position;
    char *name;
    AstColumnKind kind;
    DataType type;      /* physical and metadata columns */
    AstExpr *expr;      /* computed columns */
    char *metadata_key; /* METADATA FROM 'key'; NULL means the column name */
    bool is_virtual;
    char *comment;    /* COMMENT '...', NULL when none */
    bool primary_key; /* inline PRIMARY KEY NOT ENFORCED */
} AstColumnDef;

typedef struct AstCreateTable {
    AstList name_parts; /* char* */
    bool if_not_exists;
    bool temporary;
    AstList columns;        /* AstColumnDef* */
    char *watermark_column; /* NULL when no WATERMARK */
    SourcePosition watermark_position;
    AstExpr *watermark_expr;
    AstList primary_key; /* char*: PRIMARY KEY (a, b) NOT ENFORCED */
    SourcePosition primary_key_position;
    bool primary_key_enforced; /* written without NOT ENFORCED: an error in Flink */
    AstList partition_by;      /* char*: PARTITIONED BY (...) */
    char *comment;
    AstList options;  /* AstOption* */
    char *like_table; /* CREATE TABLE t (...) LIKE other: rejected later */
} AstCreateTable;

typedef struct AstCreateView {
    AstList name_parts; /* char* */
    bool if_not_exists;
    bool temporary;
    AstList column_names; /* char*: CREATE VIEW v (a, b) AS ... */
    AstQuery *query;
    const char *query_text; /* exact source text of the query, for SHOW CREATE VIEW */
    size_t query_length;
} AstCreateView;

typedef struct AstDrop {
    AstList name_parts; /* char* */
    bool if_exists;
    bool temporary;
    bool is_view;
    bool is_function; /* DROP [TEMPORARY [SYSTEM]] FUNCTION */
    bool system;      /* TEMPORARY SYSTEM */
} AstDrop;

/* CREATE [TEMPORARY [SYSTEM]] FUNCTION [IF NOT EXISTS] name AS 'identifier'
   [LANGUAGE lang] [USING JAR 'path'] (Flink's grammar; joinery runs LANGUAGE C). */
typedef struct AstCreateFunction {
    AstList name_parts; /* char* */
    char *identifier;   /* AS 'identifier' (a Java class name in Flink, a C symbol here) */
    char *language;     /* as written; NULL when absent (Flink's default: JAVA) */
    SourcePosition language_position;
    char *library; /* USING JAR 'path'; NULL when absent */
    SourcePosition identifier_position;
    bool temporary;
    bool system;
    bool if_not_exists;
} AstCreateFunction;

typedef struct AstInsert {
    AstList table_parts; /* char* */
    AstList columns;     /* char*: INSERT INTO t (a, b); empty when absent */
    bool overwrite;      /* INSERT OVERWRITE: rejected later */
    AstQuery *query;
} AstInsert;

/* EXPLAIN details, as a bit set */
enum {
    AST_EXPLAIN_ESTIMATED_COST = 1 << 0,
    AST_EXPLAIN_CHANGELOG_MODE = 1 << 1,
    AST_EXPLAIN_PLAN_ADVICE = 1 << 2,
    AST_EXPLAIN_JSON_EXECUTION_PLAN = 1 << 3,
    AST_EXPLAIN_FORMAT_DOT = 1 << 4, /* joinery: FORMAT DOT, the plan as a Graphviz graph */
};

typedef enum AstStatementKind {
    AST_STMT_QUERY,
    AST_STMT_INSERT,
    AST_STMT_CREATE_TABLE,
    AST_STMT_CREATE_VIEW,
    AST_STMT_DROP,  /* DROP TABLE / DROP VIEW */
    AST_STMT_SET,   /* SET; or SET 'k' = 'v' (key NULL for the listing) */
    AST_STMT_RESET, /* RESET; or RESET 'k' (key NULL for all) */
    AST_STMT_SHOW_TABLES,
    AST_STMT_SHOW_VIEWS,
    AST_STMT_SHOW_CREATE, /* SHOW CREATE TABLE|VIEW name (is_view) */
    AST_STMT_SHOW_FUNCTIONS,
    AST_STMT_SHOW_CATALOGS,
    AST_STMT_SHOW_DATABASES,
    AST_STMT_SHOW_JOBS,
    AST_STMT_SHOW_JOB_METRICS,
    AST_STMT_DESCRIBE, /* DESCRIBE / DESC name */
    AST_STMT_EXPLAIN,  /* explain.statement: a QUERY, INSERT or STATEMENT_SET */
    AST_STMT_HELP,
    AST_STMT_QUIT,                  /* QUIT / EXIT (handled by the CLI, parsed for completeness) */
    AST_STMT_ANALYZE,               /* ANALYZE TABLE t COMPUTE STATISTICS [FOR ALL COLUMNS] */
    AST_STMT_USE,                   /* USE [CATALOG] name: only the default names are accepted */
    AST_STMT_SHOW_COLUMNS,          /* SHOW COLUMNS FROM|IN name [[NOT] LIKE 'p'] */
    AST_STMT_SHOW_CURRENT_CATALOG,  /* SHOW CURRENT CATALOG */
    AST_STMT_SHOW_CURRENT_DATABASE, /* SHOW CURRENT DATABASE */
    AST_STMT_SHOW_MODULES,          /* SHOW [FULL] MODULES (show.full) */
    AST_STMT_SHOW_JARS,             /* SHOW JARS */
    AST_STMT_DESCRIBE_JOB,          /* DESCRIBE JOB '<id>' (job.id) */
    AST_STMT_STOP_JOB,              /* STOP JOB '<id>' [WITH SAVEPOINT] [WITH DRAIN] */
    AST_STMT_CREATE_FUNCTION,       /* create_function; DROP FUNCTION is AST_STMT_DROP */
    /* EXECUTE STATEMENT SET BEGIN INSERT ...; ... END (statement_set.inserts); also the
       statement of EXPLAIN [PLAN FOR] STATEMENT SET BEGIN ... END */
    AST_STMT_STATEMENT_SET,
    AST_STMT_BEGIN_STATEMENT_SET, /* BEGIN STATEMENT SET: the session collects INSERTs */
    AST_STMT_END_STATEMENT_SET,   /* END: runs the collected INSERTs as one job */
} AstStatementKind;

/* The LIKE filter of SHOW TABLES / VIEWS / COLUMNS / FUNCTIONS / DATABASES. */
typedef struct AstShowLike {
    char *pattern;    /* NULL: no filter */
    bool negated;     /* NOT LIKE */
    bool ignore_case; /* ILIKE */
} AstShowLike;

typedef struct AstStatement {
    AstStatementKind kind;
    SourcePosition position;
    union {
        AstQuery *query;
        AstInsert insert;
        AstCreateTable create_table;
        AstCreateView create_view;
        AstDrop drop;
        AstCreateFunction create_function;
        struct {
            char *key; /* NULL: list all */
            char *value;
            SourcePosition key_position;
        } set;
        struct {
            char *key; /* NULL: reset all */
        } reset;
        struct {
            AstList name_parts; /* char* */
            bool is_view;
        } show_create;
        struct {
            AstList name_parts; /* char* */
        } describe;
        /* SHOW TABLES / VIEWS / FUNCTIONS / CATALOGS / DATABASES / COLUMNS / MODULES */
        struct {
            AstList name_parts; /* COLUMNS: the table; others: FROM|IN qualifier, may be empty */
            AstShowLike like;
            bool full; /* SHOW FULL MODULES */
            bool user; /* SHOW USER FUNCTIONS */
        } show;
        struct {
            unsigned details; /* AST_EXPLAIN_* bits */
            struct AstStatement *statement;
        } explain;
        struct {
            AstList name_parts;
            bool all_columns;
        } analyze;
        struct {
            AstList name_parts;
            bool catalog;
        } use;
        /* EXECUTE STATEMENT SET: the INSERTs (AstStatement* of kind AST_STMT_INSERT), in
           source order, at least one */
        struct {
            AstList inserts;
        } statement_set;
        /* DESCRIBE JOB, STOP JOB, SHOW JOB METRICS ['<id>'] (id NULL: the last job) */
        struct {
            char *id;
            SourcePosition id_position;
            bool with_savepoint;
            bool with_drain;
        } job;
    };
} AstStatement;

#endif
