/*
 * function_list.h - every built-in scalar function and operator, one row
 * each. Everything else about them is generated from these rows: the
 * FunctionId enum and FUNCTION_INFO (expr.h, functions.c), the name lookup,
 * the typing dispatch (functions.c), EXPLAIN's spelling (expr_print.c), the
 * planner's NULL, determinism and selectivity analyses (expr.c, cost.c,
 * physical.c) and the evaluation dispatch (engine/exec/expr_eval.c).
 *
 * An X-macro list, included several times: the includer defines
 *   FUNCTION(ID, NAME, CALL, MIN, MAX, SYNTAX, PRINT, TYPING, EVAL, NULLS, ORDER,
 *            ARITHMETIC, SELECTIVITY, DETERMINISM, FORMS)
 * and optionally FUNCTION_ALIAS(NAME, ID, MIN, MAX, FLAVOR); both are
 * undefined at the end. Columns (the enums are in expr.h; short names
 * there get their FUNCTION_<COLUMN>_ prefix):
 *   ID           FUNCTION_<ID>
 *   NAME         the SQL name, as EXPLAIN and Calcite's messages spell it
 *   CALL         OPERATOR (syntax only), NAMED (NAME(...)), NILADIC (NAME
 *                without arguments)
 *   MIN, MAX     number of arguments (ANY: no upper bound)
 *   SYNTAX       how "Cannot apply" messages write the call
 *   PRINT        how EXPLAIN writes it
 *   TYPING       the typing rule, a function of functions.c
 *   EVAL         the evaluator, a function of engine/exec/eval/ (the plan
 *                never refers to it)
 *   NULLS        when it is NULL because its arguments are
 *   ORDER        for a comparison, the order that makes it TRUE
 *   ARITHMETIC   for + - * / MOD, which (one typing rule and evaluator serve all)
 *   SELECTIVITY  how the cost model estimates it as a predicate
 *   DETERMINISM  DETERMINISTIC, or NONDETERMINISTIC (changes per call or
 *                with where it runs: never folded or moved)
 *   FORMS        Calcite's "Supported form(s)" text ("" for none)
 * FUNCTION_ALIAS rows give a function another name (with its own number of
 * arguments and a flavor: PLAIN, LTRIM/RTRIM for a TRIM mode, EXTRACT_UNIT
 * for YEAR(x) = EXTRACT(YEAR FROM x)).
 *
 * Row order: names are looked up, and "did you mean" ties broken, in the
 * order of the NAMED and NILADIC rows and aliases; keep it (MOD and EXTRACT
 * sit at the end for that reason) and add new named functions at the end.
 */
#ifndef FUNCTION
#error "define FUNCTION(ID, NAME, CALL, MIN, MAX, ...) before including function_list.h"
#endif
#ifndef FUNCTION_ALIAS
#define FUNCTION_ALIAS(NAME, ID, MIN, MAX, FLAVOR)
#endif
#ifdef ANY
#error "function_list.h defines ANY for its rows"
#endif
#define ANY FUNCTION_ARGS_ANY

/* clang-format off */

/* ---- comparison: two args of one common type, BOOLEAN result ---------- */
FUNCTION(EQUAL, "=", OPERATOR, 2, 2, BINARY, INFIX, type_equality, eval_comparison,
         STRICT, EQUAL, NONE, EQUAL, DETERMINISTIC, "'<COMPARABLE_TYPE> = <COMPARABLE_TYPE>'")
FUNCTION(NOT_EQUAL, "<>", OPERATOR, 2, 2, BINARY, INFIX, type_equality, eval_comparison,
         STRICT, NOT_EQUAL, NONE, GUESS, DETERMINISTIC, "'<COMPARABLE_TYPE> <> <COMPARABLE_TYPE>'")
FUNCTION(LESS, "<", OPERATOR, 2, 2, BINARY, INFIX, type_ordering, eval_comparison,
         STRICT, LESS, NONE, RANGE, DETERMINISTIC, "'<COMPARABLE_TYPE> < <COMPARABLE_TYPE>'")
FUNCTION(LESS_EQUAL, "<=", OPERATOR, 2, 2, BINARY, INFIX, type_ordering, eval_comparison,
         STRICT, LESS_EQUAL, NONE, RANGE, DETERMINISTIC, "'<COMPARABLE_TYPE> <= <COMPARABLE_TYPE>'")
FUNCTION(GREATER, ">", OPERATOR, 2, 2, BINARY, INFIX, type_ordering, eval_comparison,
         STRICT, GREATER, NONE, RANGE, DETERMINISTIC, "'<COMPARABLE_TYPE> > <COMPARABLE_TYPE>'")
FUNCTION(GREATER_EQUAL, ">=", OPERATOR, 2, 2, BINARY, INFIX, type_ordering, eval_comparison,
         STRICT, GREATER_EQUAL, NONE, RANGE, DETERMINISTIC,
         "'<COMPARABLE_TYPE> >= <COMPARABLE_TYPE>'")
FUNCTION(IS_DISTINCT_FROM, "IS DISTINCT FROM", OPERATOR, 2, 2, BINARY, CALL, type_distinct,
         eval_is_distinct_from, OWN, NONE, NONE, GUESS, DETERMINISTIC,
         "'<COMPARABLE_TYPE> IS DISTINCT FROM <COMPARABLE_TYPE>'")
FUNCTION(IS_NOT_DISTINCT_FROM, "IS NOT DISTINCT FROM", OPERATOR, 2, 2, BINARY, CALL, type_distinct,
         eval_is_not_distinct_from, NOT_DISTINCT, NONE, NONE, GUESS, DETERMINISTIC,
         "'<COMPARABLE_TYPE> IS NOT DISTINCT FROM <COMPARABLE_TYPE>'")
/* operand, value1, value2, ... (one common type) */
FUNCTION(IN, "IN", OPERATOR, 2, ANY, BINARY, IN, type_in, eval_in,
         ARG0, NONE, NONE, GUESS, DETERMINISTIC, "'<COMPARABLE_TYPE> IN <COMPARABLE_TYPE>'")

/* ---- logic, three-valued: AND/OR take 2+ args --------------------------- */
FUNCTION(AND, "AND", OPERATOR, 2, ANY, BINARY, INFIX, type_logic, eval_and,
         AND, NONE, NONE, AND, DETERMINISTIC, "'<BOOLEAN> AND <BOOLEAN>'")
FUNCTION(OR, "OR", OPERATOR, 2, ANY, BINARY, INFIX, type_logic, eval_or,
         OR, NONE, NONE, GUESS, DETERMINISTIC, "'<BOOLEAN> OR <BOOLEAN>'")
FUNCTION(NOT, "NOT", OPERATOR, 1, 1, PREFIX, CALL, type_logic, eval_not,
         STRICT, NONE, NONE, GUESS, DETERMINISTIC, "'NOT<BOOLEAN>'")
FUNCTION(IS_NULL, "IS NULL", OPERATOR, 1, 1, POSTFIX, POSTFIX, type_null_test, eval_is_null,
         OWN, NONE, NONE, IS_NULL, DETERMINISTIC, "'<ANY> IS NULL'")
FUNCTION(IS_NOT_NULL, "IS NOT NULL", OPERATOR, 1, 1, POSTFIX, POSTFIX, type_null_test,
         eval_is_not_null, IS_NOT_NULL, NONE, NONE, IS_NOT_NULL, DETERMINISTIC,
         "'<ANY> IS NOT NULL'")
FUNCTION(IS_TRUE, "IS TRUE", OPERATOR, 1, 1, POSTFIX, POSTFIX, type_truth_test, eval_is_true,
         IS_TRUE, NONE, NONE, GUESS, DETERMINISTIC, "'<BOOLEAN> IS TRUE'")
FUNCTION(IS_NOT_TRUE, "IS NOT TRUE", OPERATOR, 1, 1, POSTFIX, POSTFIX, type_truth_test,
         eval_is_not_true, OWN, NONE, NONE, GUESS, DETERMINISTIC, "'<BOOLEAN> IS NOT TRUE'")
FUNCTION(IS_FALSE, "IS FALSE", OPERATOR, 1, 1, POSTFIX, POSTFIX, type_truth_test, eval_is_false,
         OWN, NONE, NONE, GUESS, DETERMINISTIC, "'<BOOLEAN> IS FALSE'")
FUNCTION(IS_NOT_FALSE, "IS NOT FALSE", OPERATOR, 1, 1, POSTFIX, POSTFIX, type_truth_test,
         eval_is_not_false, OWN, NONE, NONE, GUESS, DETERMINISTIC, "'<BOOLEAN> IS NOT FALSE'")

/* ---- arithmetic (MOD is at the end) ------------------------------------ */
FUNCTION(PLUS, "+", OPERATOR, 2, 2, BINARY, INFIX, type_arithmetic, eval_arithmetic,
         STRICT, NONE, PLUS, GUESS, DETERMINISTIC,
         "'<NUMERIC> + <NUMERIC>'\n'<DATETIME_INTERVAL> + <DATETIME_INTERVAL>'\n"
         "'<DATETIME> + <DATETIME_INTERVAL>'\n'<DATETIME_INTERVAL> + <DATETIME>'")
FUNCTION(MINUS, "-", OPERATOR, 2, 2, BINARY, INFIX, type_arithmetic, eval_arithmetic,
         STRICT, NONE, MINUS, GUESS, DETERMINISTIC,
         "'<NUMERIC> - <NUMERIC>'\n'<DATETIME_INTERVAL> - <DATETIME_INTERVAL>'\n"
         "'<DATETIME> - <DATETIME_INTERVAL>'")
FUNCTION(MULTIPLY, "*", OPERATOR, 2, 2, BINARY, INFIX, type_arithmetic, eval_arithmetic,
         STRICT, NONE, MULTIPLY, GUESS, DETERMINISTIC,
         "'<NUMERIC> * <NUMERIC>'\n'<DATETIME_INTERVAL> * <NUMERIC>'\n"
         "'<NUMERIC> * <DATETIME_INTERVAL>'")
FUNCTION(DIVIDE, "/", OPERATOR, 2, 2, BINARY, INFIX, type_arithmetic, eval_arithmetic,
         STRICT, NONE, DIVIDE, GUESS, DETERMINISTIC,
         "'<NUMERIC> / <NUMERIC>'\n'<DATETIME_INTERVAL> / <NUMERIC>'")
FUNCTION(NEGATE, "-", OPERATOR, 1, 1, PREFIX, CALL, type_negate, eval_negate,
         STRICT, NONE, NONE, GUESS, DETERMINISTIC, "'-<NUMERIC>'\n'-<DATETIME_INTERVAL>'")

/* ---- CAST: one arg, to the Expr's type; TRY_CAST gives NULL on failure -- */
FUNCTION(CAST, "CAST", OPERATOR, 1, 1, FUNCTION, CAST, type_cast, eval_cast,
         STRICT, NONE, NONE, GUESS, DETERMINISTIC, "")
FUNCTION(TRY_CAST, "TRY_CAST", OPERATOR, 1, 1, FUNCTION, CAST, type_cast, eval_try_cast,
         OWN, NONE, NONE, GUESS, DETERMINISTIC, "")

/* ---- strings ----------------------------------------------------------- */
/* operand, pattern[, escape] */
FUNCTION(LIKE, "LIKE", OPERATOR, 2, 3, BINARY, CALL, type_like, eval_like,
         STRICT, NONE, NONE, GUESS, DETERMINISTIC,
         "'<STRING> LIKE <STRING>'\n'<STRING> LIKE <STRING> ESCAPE <STRING>'")
FUNCTION(CHAR_LENGTH, "CHAR_LENGTH", NAMED, 1, 1, FUNCTION, CALL, type_strings_to_int,
         eval_char_length, STRICT, NONE, NONE, GUESS, DETERMINISTIC, "'CHAR_LENGTH(<CHARACTER>)'")
FUNCTION_ALIAS("CHARACTER_LENGTH", CHAR_LENGTH, 1, 1, PLAIN)
FUNCTION(UPPER, "UPPER", NAMED, 1, 1, FUNCTION, CALL, type_case_change, eval_upper,
         STRICT, NONE, NONE, GUESS, DETERMINISTIC, "'UPPER(<CHARACTER>)'")
FUNCTION(LOWER, "LOWER", NAMED, 1, 1, FUNCTION, CALL, type_case_change, eval_lower,
         STRICT, NONE, NONE, GUESS, DETERMINISTIC, "'LOWER(<CHARACTER>)'")
/* string, start[, length] */
FUNCTION(SUBSTRING, "SUBSTRING", NAMED, 2, 3, FUNCTION, CALL, type_substring, eval_substring,
         STRICT, NONE, NONE, GUESS, DETERMINISTIC,
         "'SUBSTRING(<CHAR> FROM <INTEGER>)'\n'SUBSTRING(<CHAR> FROM <INTEGER> FOR <INTEGER>)'")
FUNCTION_ALIAS("SUBSTR", SUBSTRING, 2, 3, PLAIN)
/* CONCAT(a, b, ...) and a || b */
FUNCTION(CONCAT, "CONCAT", NAMED, 1, ANY, FUNCTION, CALL, type_concat, eval_concat,
         STRICT, NONE, NONE, GUESS, DETERMINISTIC, "'CONCAT(<STRING>, <STRING>...)'")
/* string[, characters]; trim_mode in Expr */
FUNCTION(TRIM, "TRIM", NAMED, 1, 2, FUNCTION, TRIM, type_trim, eval_trim,
         STRICT, NONE, NONE, GUESS, DETERMINISTIC,
         "'TRIM(<CHARACTER>)'\n'TRIM(<CHARACTER> FROM <CHARACTER>)'")
FUNCTION_ALIAS("LTRIM", TRIM, 1, 1, LTRIM)
FUNCTION_ALIAS("RTRIM", TRIM, 1, 1, RTRIM)
FUNCTION(POSITION, "POSITION", NAMED, 2, 2, FUNCTION, CALL, type_strings_to_int, eval_position,
         STRICT, NONE, NONE, GUESS, DETERMINISTIC, "'POSITION(<STRING> IN <STRING>)'")
FUNCTION(REPLACE, "REPLACE", NAMED, 3, 3, FUNCTION, CALL, type_replace, eval_replace,
         STRICT, NONE, NONE, GUESS, DETERMINISTIC,
         "'REPLACE(<CHARACTER>, <CHARACTER>, <CHARACTER>)'")
/* INSTR(string, substring): POSITION(substring IN string) */
FUNCTION(INSTR, "INSTR", NAMED, 2, 2, FUNCTION, CALL, type_strings_to_int, eval_instr,
         STRICT, NONE, NONE, GUESS, DETERMINISTIC, "'INSTR(<CHARACTER>, <CHARACTER>)'")
/* (string, count): the string count times ('' when count <= 0) */
FUNCTION(REPEAT, "REPEAT", NAMED, 2, 2, FUNCTION, CALL, type_string_function, eval_repeat,
         STRICT, NONE, NONE, GUESS, DETERMINISTIC, "'REPEAT(<CHARACTER>, <INTEGER>)'")
/* code points in reverse order */
FUNCTION(REVERSE, "REVERSE", NAMED, 1, 1, FUNCTION, CALL, type_string_function, eval_reverse,
         STRICT, NONE, NONE, GUESS, DETERMINISTIC, "'REVERSE(<CHARACTER>)'")
/* (string, length, pad): padded or cut to length code points; NULL for a negative length or
   an empty pad */
FUNCTION(LPAD, "LPAD", NAMED, 3, 3, FUNCTION, CALL, type_string_function, eval_lpad,
         STRICT, NONE, NONE, GUESS, DETERMINISTIC, "'LPAD(<CHARACTER>, <INTEGER>, <CHARACTER>)'")
FUNCTION(RPAD, "RPAD", NAMED, 3, 3, FUNCTION, CALL, type_string_function, eval_rpad,
         STRICT, NONE, NONE, GUESS, DETERMINISTIC, "'RPAD(<CHARACTER>, <INTEGER>, <CHARACTER>)'")
/* (string, count): the first / last count code points ('' when count < 0) */
FUNCTION(LEFT, "LEFT", NAMED, 2, 2, FUNCTION, CALL, type_string_function, eval_left,
         STRICT, NONE, NONE, GUESS, DETERMINISTIC, "'LEFT(<CHARACTER>, <INTEGER>)'")
FUNCTION(RIGHT, "RIGHT", NAMED, 2, 2, FUNCTION, CALL, type_string_function, eval_right,
         STRICT, NONE, NONE, GUESS, DETERMINISTIC, "'RIGHT(<CHARACTER>, <INTEGER>)'")
/* (separator, string...): NULL only when the separator is; NULL strings are skipped */
FUNCTION(CONCAT_WS, "CONCAT_WS", NAMED, 1, ANY, FUNCTION, CALL, type_string_function,
         eval_concat_ws, ARG0, NONE, NONE, GUESS, DETERMINISTIC,
         "'CONCAT_WS(<STRING>, <STRING>, <STRING>...)'")

/* ---- conditional ------------------------------------------------------- */
/* cond1, result1, cond2, result2, ..., else (always present; type_case checks the shape) */
FUNCTION(CASE, "CASE", OPERATOR, 0, ANY, SPECIAL, CALL, type_case, eval_case,
         OWN, NONE, NONE, GUESS, DETERMINISTIC, "")
FUNCTION(COALESCE, "COALESCE", NAMED, 1, ANY, FUNCTION, CALL, type_coalesce, eval_coalesce,
         ALL, NONE, NONE, GUESS, DETERMINISTIC, "'COALESCE(<ANY>, <ANY>...)'")
FUNCTION(NULLIF, "NULLIF", NAMED, 2, 2, FUNCTION, CALL, type_nullif, eval_nullif,
         OWN, NONE, NONE, GUESS, DETERMINISTIC, "'NULLIF(<ANY>, <ANY>)'")
/* IF(cond, a, b) */
FUNCTION(IF, "IF", NAMED, 3, 3, FUNCTION, CALL, type_if, eval_if,
         OWN, NONE, NONE, GUESS, DETERMINISTIC, "'IF(<BOOLEAN>, <ANY>, <ANY>)'")
/* IFNULL(a, b): COALESCE of two */
FUNCTION(IFNULL, "IFNULL", NAMED, 2, 2, FUNCTION, CALL, type_coalesce, eval_coalesce,
         ALL, NONE, NONE, GUESS, DETERMINISTIC, "'IFNULL(<ANY>, <ANY>)'")
/* the greatest / least of one common comparable type; NULL when any argument is */
FUNCTION(GREATEST, "GREATEST", NAMED, 1, ANY, FUNCTION, CALL, type_greatest_least,
         eval_greatest_least, STRICT, NONE, NONE, GUESS, DETERMINISTIC,
         "'GREATEST(<COMPARABLE_TYPE>, <COMPARABLE_TYPE>...)'")
FUNCTION(LEAST, "LEAST", NAMED, 1, ANY, FUNCTION, CALL, type_greatest_least,
         eval_greatest_least, STRICT, NONE, NONE, GUESS, DETERMINISTIC,
         "'LEAST(<COMPARABLE_TYPE>, <COMPARABLE_TYPE>...)'")

/* ---- time (EXTRACT is at the end) -------------------------------------- */
/* timestamp or string, format */
FUNCTION(DATE_FORMAT, "DATE_FORMAT", NAMED, 2, 2, FUNCTION, CALL, type_date_format,
         eval_date_format, OWN, NONE, NONE, GUESS, DETERMINISTIC,
         "'DATE_FORMAT(<TIMESTAMP>, <CHARACTER>)'\n'DATE_FORMAT(<CHARACTER>, <CHARACTER>)'")
/* string[, format] */
FUNCTION(TO_TIMESTAMP, "TO_TIMESTAMP", NAMED, 1, 2, FUNCTION, CALL, type_to_timestamp,
         eval_to_timestamp, OWN, NONE, NONE, GUESS, DETERMINISTIC,
         "'TO_TIMESTAMP(<CHARACTER>)'\n'TO_TIMESTAMP(<CHARACTER>, <CHARACTER>)'")
/* TIMESTAMP_LTZ(3), evaluated per record */
FUNCTION(CURRENT_TIMESTAMP, "CURRENT_TIMESTAMP", NILADIC, 0, 0, FUNCTION, CALL,
         type_current_timestamp, eval_now, OWN, NONE, NONE, GUESS, NONDETERMINISTIC,
         "'CURRENT_TIMESTAMP'")
FUNCTION_ALIAS("NOW", CURRENT_TIMESTAMP, 0, 0, PLAIN)
/* TIMESTAMP(3), evaluated per record */
FUNCTION(LOCALTIMESTAMP, "LOCALTIMESTAMP", NILADIC, 0, 0, FUNCTION, CALL, type_localtimestamp,
         eval_now, OWN, NONE, NONE, GUESS, NONDETERMINISTIC, "'LOCALTIMESTAMP'")
FUNCTION(CURRENT_DATE, "CURRENT_DATE", NILADIC, 0, 0, FUNCTION, CALL, type_current_date,
         eval_current_date, OWN, NONE, NONE, GUESS, NONDETERMINISTIC, "'CURRENT_DATE'")
/* TIMESTAMP_LTZ(3) *PROCTIME* */
FUNCTION(PROCTIME, "PROCTIME", NILADIC, 0, 0, FUNCTION, CALL, type_proctime, eval_now,
         OWN, NONE, NONE, GUESS, NONDETERMINISTIC, "'PROCTIME()'")
/* (rowtime): the evaluating operator's input watermark as the rowtime's type, NULL before
   the first; the argument is only typed, never evaluated; depends on where it runs */
FUNCTION(CURRENT_WATERMARK, "CURRENT_WATERMARK", NAMED, 1, 1, FUNCTION, CALL,
         type_current_watermark, eval_current_watermark, OWN, NONE, NONE, GUESS, NONDETERMINISTIC,
         "'CURRENT_WATERMARK(<TIMESTAMP> *ROWTIME*)'")
/* Legacy group windows (GROUP BY TUMBLE(time, size), HOP(time, slide, size),
   SESSION(time, gap)), as Calcite binds them: the group key $TUMBLE(time, size) and the
   auxiliary functions over it (TUMBLE_START($0), ...); the binder makes them and the planner
   turns them into a GroupWindowAggregate and its properties
   (plan/nodes/node_group_window_aggregate.c): never evaluated */
FUNCTION(GROUP_TUMBLE, "$TUMBLE", OPERATOR, 2, 2, FUNCTION, CALL, type_group_window,
         eval_group_window, OWN, NONE, NONE, GUESS, DETERMINISTIC, "")
FUNCTION(GROUP_HOP, "$HOP", OPERATOR, 3, 3, FUNCTION, CALL, type_group_window,
         eval_group_window, OWN, NONE, NONE, GUESS, DETERMINISTIC, "")
FUNCTION(GROUP_SESSION, "$SESSION", OPERATOR, 2, 2, FUNCTION, CALL, type_group_window,
         eval_group_window, OWN, NONE, NONE, GUESS, DETERMINISTIC, "")
FUNCTION(TUMBLE_START, "TUMBLE_START", OPERATOR, 1, 1, FUNCTION, CALL, type_window_bound,
         eval_group_window, OWN, NONE, NONE, GUESS, DETERMINISTIC, "")
FUNCTION(TUMBLE_END, "TUMBLE_END", OPERATOR, 1, 1, FUNCTION, CALL, type_window_bound,
         eval_group_window, OWN, NONE, NONE, GUESS, DETERMINISTIC, "")
FUNCTION(TUMBLE_ROWTIME, "TUMBLE_ROWTIME", OPERATOR, 1, 1, FUNCTION, CALL, type_window_rowtime,
         eval_group_window, OWN, NONE, NONE, GUESS, DETERMINISTIC, "")
FUNCTION(TUMBLE_PROCTIME, "TUMBLE_PROCTIME", OPERATOR, 1, 1, FUNCTION, CALL, type_proctime,
         eval_group_window, OWN, NONE, NONE, GUESS, DETERMINISTIC, "")
FUNCTION(HOP_START, "HOP_START", OPERATOR, 1, 1, FUNCTION, CALL, type_window_bound,
         eval_group_window, OWN, NONE, NONE, GUESS, DETERMINISTIC, "")
FUNCTION(HOP_END, "HOP_END", OPERATOR, 1, 1, FUNCTION, CALL, type_window_bound,
         eval_group_window, OWN, NONE, NONE, GUESS, DETERMINISTIC, "")
FUNCTION(HOP_ROWTIME, "HOP_ROWTIME", OPERATOR, 1, 1, FUNCTION, CALL, type_window_rowtime,
         eval_group_window, OWN, NONE, NONE, GUESS, DETERMINISTIC, "")
FUNCTION(HOP_PROCTIME, "HOP_PROCTIME", OPERATOR, 1, 1, FUNCTION, CALL, type_proctime,
         eval_group_window, OWN, NONE, NONE, GUESS, DETERMINISTIC, "")
FUNCTION(SESSION_START, "SESSION_START", OPERATOR, 1, 1, FUNCTION, CALL, type_window_bound,
         eval_group_window, OWN, NONE, NONE, GUESS, DETERMINISTIC, "")
FUNCTION(SESSION_END, "SESSION_END", OPERATOR, 1, 1, FUNCTION, CALL, type_window_bound,
         eval_group_window, OWN, NONE, NONE, GUESS, DETERMINISTIC, "")
FUNCTION(SESSION_ROWTIME, "SESSION_ROWTIME", OPERATOR, 1, 1, FUNCTION, CALL,
         type_window_rowtime, eval_group_window, OWN, NONE, NONE, GUESS, DETERMINISTIC, "")
FUNCTION(SESSION_PROCTIME, "SESSION_PROCTIME", OPERATOR, 1, 1, FUNCTION, CALL, type_proctime,
         eval_group_window, OWN, NONE, NONE, GUESS, DETERMINISTIC, "")
/* (start, end, rowtime, proctime): the window key of a LogicalAggregate once it is a
   GroupWindowAggregate, over that node's property fields; an auxiliary function over it is
   the property (expr_substitute_inputs folds it) */
FUNCTION(WINDOW_PROPERTIES, "$WINDOW", OPERATOR, 4, 4, FUNCTION, CALL, type_group_window,
         eval_group_window, OWN, NONE, NONE, GUESS, DETERMINISTIC, "")

/* ---- numeric ----------------------------------------------------------- */
FUNCTION(ABS, "ABS", NAMED, 1, 1, FUNCTION, CALL, type_abs, eval_abs,
         STRICT, NONE, NONE, GUESS, DETERMINISTIC, "'ABS(<NUMERIC>)'")
/* FLOOR(x), or FLOOR(t TO unit) read as FLOOR(t, 'UNIT') (the parser's special form) */
FUNCTION(FLOOR, "FLOOR", NAMED, 1, 2, FUNCTION, UNIT_LAST, type_rounding, eval_floor,
         STRICT, NONE, NONE, GUESS, DETERMINISTIC,
         "'FLOOR(<NUMERIC>)'\n'FLOOR(<DATETIME> TO <TIME UNIT>)'")
FUNCTION(CEIL, "CEIL", NAMED, 1, 2, FUNCTION, UNIT_LAST, type_rounding, eval_ceil,
         STRICT, NONE, NONE, GUESS, DETERMINISTIC,
         "'CEIL(<NUMERIC>)'\n'CEIL(<DATETIME> TO <TIME UNIT>)'")
FUNCTION_ALIAS("CEILING", CEIL, 1, 2, PLAIN)
FUNCTION(ROUND, "ROUND", NAMED, 1, 2, FUNCTION, CALL, type_rounding, eval_round,
         STRICT, NONE, NONE, GUESS, DETERMINISTIC,
         "'ROUND(<NUMERIC>)'\n'ROUND(<NUMERIC>, <INTEGER>)'")
/* DOUBLE in (numbers widened), DOUBLE out, Java's Math semantics (NaN, Infinity) */
FUNCTION(POWER, "POWER", NAMED, 2, 2, FUNCTION, CALL, type_double_math, eval_power,
         STRICT, NONE, NONE, GUESS, DETERMINISTIC, "'POWER(<NUMERIC>, <NUMERIC>)'")
FUNCTION(SQRT, "SQRT", NAMED, 1, 1, FUNCTION, CALL, type_double_math, eval_sqrt,
         STRICT, NONE, NONE, GUESS, DETERMINISTIC, "'SQRT(<NUMERIC>)'")
FUNCTION(EXP, "EXP", NAMED, 1, 1, FUNCTION, CALL, type_double_math, eval_exp,
         STRICT, NONE, NONE, GUESS, DETERMINISTIC, "'EXP(<NUMERIC>)'")
FUNCTION(LN, "LN", NAMED, 1, 1, FUNCTION, CALL, type_double_math, eval_ln,
         STRICT, NONE, NONE, GUESS, DETERMINISTIC, "'LN(<NUMERIC>)'")
FUNCTION(LOG10, "LOG10", NAMED, 1, 1, FUNCTION, CALL, type_double_math, eval_log10,
         STRICT, NONE, NONE, GUESS, DETERMINISTIC, "'LOG10(<NUMERIC>)'")
FUNCTION(LOG2, "LOG2", NAMED, 1, 1, FUNCTION, CALL, type_double_math, eval_log2,
         STRICT, NONE, NONE, GUESS, DETERMINISTIC, "'LOG2(<NUMERIC>)'")
/* LOG(x) is LN(x); LOG(base, x) */
FUNCTION(LOG, "LOG", NAMED, 1, 2, FUNCTION, CALL, type_double_math, eval_log,
         STRICT, NONE, NONE, GUESS, DETERMINISTIC, "'LOG(<NUMERIC>)'\n'LOG(<NUMERIC>, <NUMERIC>)'")
/* -1, 0 or 1 in the argument's type */
FUNCTION(SIGN, "SIGN", NAMED, 1, 1, FUNCTION, CALL, type_sign, eval_sign,
         STRICT, NONE, NONE, GUESS, DETERMINISTIC, "'SIGN(<NUMERIC>)'")

/* ---- maps -------------------------------------------------------------- */
/* map[key]: the value, NULL when the key is absent; array[i] (1-based), NULL out of range */
FUNCTION(ITEM, "ITEM", NAMED, 2, 2, SPECIAL, CALL, type_item, eval_item,
         STRICT, NONE, NONE, GUESS, DETERMINISTIC, "'<ARRAY>[<INTEGER>]'\n'<MAP>[<ANY>]'")
/* CARDINALITY(map | array | multiset): number of entries (elements), INT */
FUNCTION(CARDINALITY, "CARDINALITY", NAMED, 1, 1, FUNCTION, CALL, type_cardinality,
         eval_cardinality, STRICT, NONE, NONE, GUESS, DETERMINISTIC,
         "'CARDINALITY(<MULTISET>)'\n'CARDINALITY(<ARRAY>)'\n'CARDINALITY(<MAP>)'")
/* MAP[k1, v1, k2, v2, ...] */
FUNCTION(MAP, "MAP", NAMED, 2, ANY, SPECIAL, CALL, type_map, eval_map,
         STRICT, NONE, NONE, GUESS, DETERMINISTIC, "'MAP[<ANY>, <ANY>, ...]'")

/* ---- rows, arrays, multisets (composites.c) ---------------------------- */
/* ROW(a, b, ...) and (a, b, ...): fields EXPR$0, EXPR$1, ... */
FUNCTION(ROW, "ROW", NAMED, 1, ANY, SPECIAL, CALL, type_row, eval_row,
         OWN, NONE, NONE, GUESS, DETERMINISTIC, "'ROW(<ANY>, ...)'")
/* ARRAY[a, b, ...]: elements of one common type */
FUNCTION(ARRAY, "ARRAY", NAMED, 1, ANY, SPECIAL, CALL, type_array, eval_array,
         OWN, NONE, NONE, GUESS, DETERMINISTIC, "'ARRAY[<ANY>, ...]'")
/* row.field: the row, then the field's index as an INT literal (printed row.name) */
FUNCTION(FIELD_ACCESS, "DOT", OPERATOR, 2, 2, SPECIAL, FIELD, type_field_access,
         eval_field_access, ARG0, NONE, NONE, GUESS, DETERMINISTIC, "'<ROW>.<NAME>'")
/* ELEMENT(array): its only element, NULL when empty, an error with more than one */
FUNCTION(ELEMENT, "ELEMENT", NAMED, 1, 1, FUNCTION, CALL, type_element_of, eval_element,
         STRICT, NONE, NONE, GUESS, DETERMINISTIC, "'ELEMENT(<ARRAY>)'")
/* ARRAY_CONTAINS(array, value): TRUE when an element equals value */
FUNCTION(ARRAY_CONTAINS, "ARRAY_CONTAINS", NAMED, 2, 2, FUNCTION, CALL, type_array_contains,
         eval_array_contains, ARG0, NONE, NONE, GUESS, DETERMINISTIC,
         "'ARRAY_CONTAINS(<ARRAY>, <ANY>)'")

/* ---- last in the name lookup order ------------------------------------- */
/* MOD(a, b) and a % b */
FUNCTION(MOD, "MOD", NAMED, 2, 2, FUNCTION, CALL, type_arithmetic, eval_arithmetic,
         STRICT, NONE, MOD, GUESS, DETERMINISTIC, "'MOD(<EXACT_NUMERIC>, <EXACT_NUMERIC>)'")
/* unit literal, temporal */
FUNCTION(EXTRACT, "EXTRACT", NAMED, 2, 2, FUNCTION, EXTRACT, type_extract, eval_extract,
         ARG1, NONE, NONE, GUESS, DETERMINISTIC, "'EXTRACT(<INTERVAL SYMBOL> FROM <DATETIME>)'")
FUNCTION_ALIAS("YEAR", EXTRACT, 1, 1, EXTRACT_UNIT)
FUNCTION_ALIAS("QUARTER", EXTRACT, 1, 1, EXTRACT_UNIT)
FUNCTION_ALIAS("MONTH", EXTRACT, 1, 1, EXTRACT_UNIT)
FUNCTION_ALIAS("WEEK", EXTRACT, 1, 1, EXTRACT_UNIT)
FUNCTION_ALIAS("DAYOFYEAR", EXTRACT, 1, 1, EXTRACT_UNIT)
FUNCTION_ALIAS("DAYOFMONTH", EXTRACT, 1, 1, EXTRACT_UNIT)
FUNCTION_ALIAS("DAYOFWEEK", EXTRACT, 1, 1, EXTRACT_UNIT)
FUNCTION_ALIAS("HOUR", EXTRACT, 1, 1, EXTRACT_UNIT)
FUNCTION_ALIAS("MINUTE", EXTRACT, 1, 1, EXTRACT_UNIT)
FUNCTION_ALIAS("SECOND", EXTRACT, 1, 1, EXTRACT_UNIT)
/* epoch seconds (precision 0) or milliseconds (3, the default) -> TIMESTAMP_LTZ(3) */
FUNCTION(TO_TIMESTAMP_LTZ, "TO_TIMESTAMP_LTZ", NAMED, 1, 2, FUNCTION, CALL,
         type_to_timestamp_ltz, eval_to_timestamp_ltz, STRICT, NONE, NONE, GUESS, DETERMINISTIC,
         "'TO_TIMESTAMP_LTZ(<NUMERIC>)'\n'TO_TIMESTAMP_LTZ(<NUMERIC>, <INTEGER>)'")
/* unit literal (SECOND ... YEAR), two DATE/TIMESTAMP/TIMESTAMP_LTZ: whole units from the first
   to the second, INT */
FUNCTION(TIMESTAMPDIFF, "TIMESTAMPDIFF", NAMED, 3, 3, FUNCTION, EXTRACT, type_timestampdiff,
         eval_timestampdiff, STRICT, NONE, NONE, GUESS, DETERMINISTIC,
         "'TIMESTAMPDIFF(<ANY>, <DATETIME>, <DATETIME>)'")
/* unit literal, integer count, DATE/TIMESTAMP/TIMESTAMP_LTZ: the time moved, its type */
FUNCTION(TIMESTAMPADD, "TIMESTAMPADD", NAMED, 3, 3, FUNCTION, EXTRACT, type_timestampadd,
         eval_timestampadd, STRICT, NONE, NONE, GUESS, DETERMINISTIC,
         "'TIMESTAMPADD(<ANY>, <INTEGER>, <DATETIME>)'")
/* () -> the batch's time in epoch seconds; (string[, format]) -> its epoch seconds (UTC),
   Long.MIN_VALUE when it does not parse; BIGINT */
FUNCTION(UNIX_TIMESTAMP, "UNIX_TIMESTAMP", NAMED, 0, 2, FUNCTION, CALL, type_unix_timestamp,
         eval_unix_timestamp, STRICT, NONE, NONE, GUESS, NONDETERMINISTIC,
         "'UNIX_TIMESTAMP()'\n'UNIX_TIMESTAMP(<CHARACTER>)'\n"
         "'UNIX_TIMESTAMP(<CHARACTER>, <CHARACTER>)'")
/* epoch seconds[, format] -> the UTC time formatted (default yyyy-MM-dd HH:mm:ss), STRING */
FUNCTION(FROM_UNIXTIME, "FROM_UNIXTIME", NAMED, 1, 2, FUNCTION, CALL, type_from_unixtime,
         eval_from_unixtime, STRICT, NONE, NONE, GUESS, DETERMINISTIC,
         "'FROM_UNIXTIME(<INTEGER>)'\n'FROM_UNIXTIME(<INTEGER>, <CHARACTER>)'")
/* string[, format (default yyyy-MM-dd)] -> DATE, NULL when it does not parse */
FUNCTION(TO_DATE, "TO_DATE", NAMED, 1, 2, FUNCTION, CALL, type_to_date, eval_to_date,
         STRICT, NONE, NONE, GUESS, DETERMINISTIC,
         "'TO_DATE(<CHARACTER>)'\n'TO_DATE(<CHARACTER>, <CHARACTER>)'")
/* HASH_CODE(x): the bucket key of a split distinct aggregate (Flink's internal function, which
   rules/split_distinct_aggregate.c writes; not callable by name), INT */
FUNCTION(HASH_CODE, "HASH_CODE", OPERATOR, 1, 1, FUNCTION, CALL, type_hash_code, eval_hash_code,
         STRICT, NONE, NONE, GUESS, DETERMINISTIC, "'HASH_CODE(<ANY>)'")
/* a user-defined scalar C function (CREATE FUNCTION ... LANGUAGE C): built by the binder with
   call.udf, never looked up by name; printed by its own name */
FUNCTION(USER_DEFINED, "$USER_DEFINED", OPERATOR, 0, ANY, FUNCTION, CALL, type_user_defined,
         eval_user_defined, OWN, NONE, NONE, GUESS, DETERMINISTIC, "")

/* (needle, string[, from]): POSITION searching from code point `from` (1-based; below 1 from
   the start), 0 when not found; an empty needle is found at `from` */
FUNCTION(LOCATE, "LOCATE", NAMED, 2, 3, FUNCTION, CALL, type_locate, eval_locate,
         STRICT, NONE, NONE, GUESS, DETERMINISTIC,
         "'LOCATE(<CHARACTER>, <CHARACTER>)'\n'LOCATE(<CHARACTER>, <CHARACTER>, <INTEGER>)'")
/* the first ASCII letter of each run of ASCII letters and digits upper case, the others lower */
FUNCTION(INITCAP, "INITCAP", NAMED, 1, 1, FUNCTION, CALL, type_case_change, eval_initcap,
         STRICT, NONE, NONE, GUESS, DETERMINISTIC, "'INITCAP(<CHARACTER>)'")
/* (string, separator, index): the index-th (from 0) part between separators, NULL past the
   last or for a negative index; the separator a string or a character's code 1-255 */
FUNCTION(SPLIT_INDEX, "SPLIT_INDEX", NAMED, 3, 3, FUNCTION, CALL, type_split_index,
         eval_split_index, STRICT, NONE, NONE, GUESS, DETERMINISTIC,
         "'SPLIT_INDEX(<CHARACTER>, <CHARACTER>, <INTEGER>)'\n"
         "'SPLIT_INDEX(<CHARACTER>, <INTEGER>, <INTEGER>)'")
/* the first byte of the string as a signed byte (0 for ''), INT */
FUNCTION(ASCII, "ASCII", NAMED, 1, 1, FUNCTION, CALL, type_strings_to_int, eval_ascii,
         STRICT, NONE, NONE, GUESS, DETERMINISTIC, "'ASCII(<CHARACTER>)'")
/* the character of code point (code & 255); '' for a negative code */
FUNCTION(CHR, "CHR", NAMED, 1, 1, FUNCTION, CALL, type_chr, eval_chr,
         STRICT, NONE, NONE, GUESS, DETERMINISTIC, "'CHR(<INTEGER>)'")
/* (number[, places]): ROUND's type, cut toward zero instead of rounded */
FUNCTION(TRUNCATE, "TRUNCATE", NAMED, 1, 2, FUNCTION, CALL, type_rounding, eval_truncate,
         STRICT, NONE, NONE, GUESS, DETERMINISTIC,
         "'TRUNCATE(<NUMERIC>)'\n'TRUNCATE(<NUMERIC>, <INTEGER>)'")
/* PI and PI() */
FUNCTION(PI, "PI", NILADIC, 0, 0, FUNCTION, CALL, type_pi, eval_pi,
         OWN, NONE, NONE, GUESS, DETERMINISTIC, "'PI()'")

/* clang-format on */

#undef ANY
#undef FUNCTION
#undef FUNCTION_ALIAS
