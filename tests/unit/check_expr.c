/*
 * check_expr.c - Check suite for the scalar expression layer: function
 * resolution and result types (engine/plan/functions.c), validation
 * messages, EXPLAIN printing in both styles (expr_print.c), the static
 * analyses (expr.c) and evaluation (engine/exec/expr_eval.c): three-valued
 * logic, Java integer arithmetic, DECIMAL scales, CAST, LIKE, strings,
 * DATE_FORMAT / TO_TIMESTAMP.
 */
#include <check.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/row.h"
#include "engine/exec/expr_eval.h"
#include "engine/plan/expr.h"

static Arena arena;
static Arena scratch;
static Diag diag;
static RowBuilder builder;

static void setup(void)
{
    arena_init(&arena, 0);
    arena_init(&scratch, 0);
    diag_clear(&diag);
    row_builder_init(&builder);
}

static void teardown(void)
{
    arena_destroy(&arena);
    arena_destroy(&scratch);
    row_builder_free(&builder);
}

/* ---- builders --------------------------------------------------------- */

static Expr *lit_int(int64_t v)
{
    return expr_make_literal(&arena, type_make(TYPE_INT, false), value_int(v));
}

static Expr *lit_bigint(int64_t v)
{
    return expr_make_literal(&arena, type_make(TYPE_BIGINT, false), value_int(v));
}

static Expr *lit_double(double v)
{
    return expr_make_literal(&arena, type_make(TYPE_DOUBLE, false), value_double(v));
}

static Expr *lit_bool(bool v)
{
    return expr_make_literal(&arena, type_make(TYPE_BOOLEAN, false), value_int(v));
}

static Expr *lit_decimal(int64_t unscaled, int precision, int scale)
{
    return expr_make_literal(&arena, type_make_decimal(precision, scale, false),
                             value_int(unscaled));
}

/* A string literal typed as Calcite types it: CHAR(n) NOT NULL. */
static Expr *lit_str(const char *text)
{
    DataType type = type_make(TYPE_CHAR, false);
    type.precision = (int32_t)strlen(text);
    return expr_make_literal(&arena, type, value_string(text, (uint32_t)strlen(text)));
}

static Expr *lit_null(void)
{
    return expr_make_literal(&arena, type_make(TYPE_NULL, true), value_null());
}

static Expr *lit_typed_null(TypeId id)
{
    return expr_make_literal(&arena, type_make(id, true), value_null());
}

static Expr *lit_timestamp(const char *text)
{
    Value value;
    char error[64];
    DataType type = type_make_timestamp(TYPE_TIMESTAMP, 3, false);
    ck_assert_int_eq(
        value_parse_text(type, text, (uint32_t)strlen(text), NULL, &value, error, sizeof error), 0);
    return expr_make_literal(&arena, type, value);
}

static Expr *ref(uint32_t index, DataType type)
{
    return expr_make_input_ref(&arena, index, type);
}

/* Resolves name/function over the args; fails the test on error. */
static Expr *call_v(const char *name, FunctionId function, uint32_t count, va_list list)
{
    Expr *args[16];
    for (uint32_t i = 0; i < count; i++)
        args[i] = va_arg(list, Expr *);
    diag_clear(&diag);
    Expr *expr = function_resolve(&arena, name, function, args, count, &diag);
    ck_assert_msg(expr != NULL, "resolve failed: %s", diag.message);
    return expr;
}

static Expr *op(FunctionId function, uint32_t count, ...)
{
    va_list list;
    va_start(list, count);
    Expr *expr = call_v(NULL, function, count, list);
    va_end(list);
    return expr;
}

static Expr *fn(const char *name, uint32_t count, ...)
{
    va_list list;
    va_start(list, count);
    Expr *expr = call_v(name, FUNCTION_COUNT_, count, list);
    va_end(list);
    return expr;
}

/* Resolves and expects failure; returns the message. */
static const char *resolve_error(const char *name, FunctionId function, uint32_t count, ...)
{
    Expr *args[16];
    va_list list;
    va_start(list, count);
    for (uint32_t i = 0; i < count; i++)
        args[i] = va_arg(list, Expr *);
    va_end(list);
    diag_clear(&diag);
    Expr *expr = function_resolve(&arena, name, function, args, count, &diag);
    ck_assert_ptr_null(expr);
    return diag.message;
}

static const char *type_text(DataType type)
{
    static char buffer[128];
    return type_format(type, buffer, sizeof buffer);
}

static char printed[2048];

static const char *print_with(const Expr *expr, const char *const *names, ExprStyle style)
{
    StrBuf out = STRBUF_INIT;
    ck_assert_int_eq(expr_print(expr, names, style, &out), 0);
    snprintf(printed, sizeof printed, "%s", strbuf_cstr(&out));
    strbuf_free(&out);
    return printed;
}

static const char *const NAMES[] = {"amount", "name", "price", "ts", "flag", "qty"};

static const char *prefix(const Expr *expr)
{
    return print_with(expr, NAMES, EXPR_STYLE_PREFIX);
}

static const char *infix(const Expr *expr)
{
    return print_with(expr, NAMES, EXPR_STYLE_INFIX);
}

/* Input row used by evaluation tests:
 * 0 amount BIGINT, 1 name STRING, 2 price DECIMAL(10, 2), 3 ts TIMESTAMP(3),
 * 4 flag BOOLEAN (nullable), 5 qty INT (nullable). */
static DataType col_type(uint32_t i)
{
    switch (i) {
    case 0:
        return type_make(TYPE_BIGINT, false);
    case 1:
        return type_make(TYPE_VARCHAR, true);
    case 2:
        return type_make_decimal(10, 2, true);
    case 3:
        return type_make_timestamp(TYPE_TIMESTAMP, 3, true);
    case 4:
        return type_make(TYPE_BOOLEAN, true);
    default:
        return type_make(TYPE_INT, true);
    }
}

static Expr *col(uint32_t i)
{
    return ref(i, col_type(i));
}

static Row *make_row(int64_t amount, const char *name, int64_t price_cents, const char *ts,
                     int flag, int64_t qty, bool qty_null)
{
    row_builder_begin(&builder, 6, ROW_KIND_INSERT);
    row_builder_set_int64(&builder, 0, amount);
    if (name)
        row_builder_set_string(&builder, 1, name, (uint32_t)strlen(name));
    else
        row_builder_set_null(&builder, 1);
    row_builder_set_int64(&builder, 2, price_cents);
    if (ts) {
        Value v;
        char error[64];
        ck_assert_int_eq(
            value_parse_text(col_type(3), ts, (uint32_t)strlen(ts), NULL, &v, error, sizeof error),
            0);
        row_builder_set_int64(&builder, 3, v.i);
    } else {
        row_builder_set_null(&builder, 3);
    }
    if (flag < 0)
        row_builder_set_null(&builder, 4);
    else
        row_builder_set_int64(&builder, 4, flag);
    if (qty_null)
        row_builder_set_null(&builder, 5);
    else
        row_builder_set_int64(&builder, 5, qty);
    Row *row = row_builder_finish(&builder);
    ck_assert_ptr_nonnull(row);
    return row_copy(&arena, row);
}

static ExprEvalContext make_context(void)
{
    ExprEvalContext context = {.arena = &scratch, .diag = &diag, .now_millis = 1700000000123LL};
    diag_clear(&diag);
    return context;
}

static Value eval_on(const Expr *expr, const Row *row)
{
    ExprEvalContext context = make_context();
    Value v = expr_eval(expr, row, row ? row_field_count(row) : 0, NULL, &context);
    ck_assert_msg(!context.failed, "evaluation failed: %s", diag.message);
    return v;
}

static Value eval0(const Expr *expr)
{
    return eval_on(expr, NULL);
}

/* Evaluates and expects a runtime error; returns the message. */
static const char *eval_error(const Expr *expr)
{
    ExprEvalContext context = make_context();
    Value v = expr_eval(expr, NULL, 0, NULL, &context);
    ck_assert(context.failed);
    ck_assert(v.is_null);
    ck_assert_int_eq(diag.status, JOINERY_ERROR_RUNTIME);
    return diag.message;
}

/* The value as SQL text (NULL -> "NULL"). */
static const char *text_of(const Expr *expr, Value v)
{
    static char buffer[256];
    if (v.is_null)
        return "NULL";
    StrBuf out = STRBUF_INIT;
    ck_assert_int_eq(value_format_text(expr->type, v, &out), 0);
    snprintf(buffer, sizeof buffer, "%s", strbuf_cstr(&out));
    strbuf_free(&out);
    return buffer;
}

static const char *eval_text(const Expr *expr)
{
    return text_of(expr, eval0(expr));
}

static Expr *cast_to(Expr *expr, DataType type)
{
    Expr *cast = expr_make_cast(&arena, expr, type);
    ck_assert_ptr_nonnull(cast);
    return cast;
}

static Expr *try_cast_to(Expr *expr, DataType type)
{
    Expr *args[1] = {expr};
    return expr_make_call(&arena, FUNCTION_TRY_CAST, type, args, 1);
}

/* ---- resolution and types --------------------------------------------- */

START_TEST(test_comparison_types)
{
    Expr *e = op(FUNCTION_GREATER, 2, col(0), lit_int(10));
    ck_assert_str_eq(type_text(e->type), "BOOLEAN NOT NULL");
    e = op(FUNCTION_EQUAL, 2, col(5), lit_int(1));
    ck_assert_str_eq(type_text(e->type), "BOOLEAN");
    e = op(FUNCTION_IS_NULL, 1, col(5));
    ck_assert_str_eq(type_text(e->type), "BOOLEAN NOT NULL");
    e = op(FUNCTION_IS_NOT_DISTINCT_FROM, 2, col(5), lit_null());
    ck_assert_str_eq(type_text(e->type), "BOOLEAN NOT NULL");
    /* INT literal against BIGINT column is widened with an implicit cast */
    e = op(FUNCTION_LESS, 2, col(0), lit_int(3));
    ck_assert_int_eq(e->call.args[1]->kind, EXPR_CALL);
    ck_assert(e->call.args[1]->call.implicit);
    ck_assert_str_eq(type_text(e->call.args[1]->type), "BIGINT NOT NULL");
    /* strings compare with strings, CHAR with VARCHAR */
    e = op(FUNCTION_EQUAL, 2, col(1), lit_str("x"));
    ck_assert_str_eq(type_text(e->type), "BOOLEAN");
    e = op(FUNCTION_AND, 3, lit_bool(true), col(4), lit_null());
    ck_assert_str_eq(type_text(e->type), "BOOLEAN");
    e = op(FUNCTION_IN, 4, col(0), lit_int(1), lit_int(2), lit_bigint(3));
    ck_assert_str_eq(type_text(e->type), "BOOLEAN NOT NULL");
    e = op(FUNCTION_LIKE, 2, col(1), lit_str("a%"));
    ck_assert_str_eq(type_text(e->type), "BOOLEAN");
}
END_TEST

START_TEST(test_arithmetic_types)
{
    DataType int_nn = type_make(TYPE_INT, false);
    Expr *e = op(FUNCTION_DIVIDE, 2, lit_int(7), lit_int(2));
    ck_assert_str_eq(type_text(e->type), "INT NOT NULL"); /* integer division, as Calcite */
    e = op(FUNCTION_PLUS, 2, col(5), col(0));
    ck_assert_str_eq(type_text(e->type), "BIGINT");
    e = op(FUNCTION_MOD, 2, col(0), col(5));
    ck_assert_str_eq(type_text(e->type), "INT"); /* MOD has the divisor's type */
    e = op(FUNCTION_MULTIPLY, 2, col(5), lit_double(1.5));
    ck_assert_str_eq(type_text(e->type), "DOUBLE");
    /* DECIMAL(10, 2) + INT -> DECIMAL(max(8, 10) + 2 + 1, 2) = DECIMAL(13, 2) */
    e = op(FUNCTION_PLUS, 2, col(2), ref(9, int_nn));
    ck_assert_str_eq(type_text(e->type), "DECIMAL(13, 2)");
    /* DECIMAL(10, 2) * DECIMAL(3, 1) -> DECIMAL(14, 3) */
    e = op(FUNCTION_MULTIPLY, 2, col(2), lit_decimal(15, 3, 1));
    ck_assert_str_eq(type_text(e->type), "DECIMAL(14, 3)");
    /* DECIMAL(10, 2) / DECIMAL(3, 1): scale max(6, 2+3+1)=6, precision 8+1+6=15 */
    e = op(FUNCTION_DIVIDE, 2, col(2), lit_decimal(15, 3, 1));
    ck_assert_str_eq(type_text(e->type), "DECIMAL(15, 6)");
    /* DECIMAL(10, 2) * DECIMAL(10, 2) = (21, 4) -> capped at 18: scale max(18-17, 4) = 4 */
    e = op(FUNCTION_MULTIPLY, 2, col(2), col(2));
    ck_assert_str_eq(type_text(e->type), "DECIMAL(18, 4)");
    /* BIGINT + DECIMAL(10, 2): (19, 0) -> (22, 2) -> (18, 2) */
    e = op(FUNCTION_PLUS, 2, col(0), col(2));
    ck_assert_str_eq(type_text(e->type), "DECIMAL(18, 2)");
    /* timestamp - interval */
    Expr *interval =
        expr_make_literal(&arena, type_make(TYPE_INTERVAL_DAY_TIME, false), value_int(5000));
    e = op(FUNCTION_MINUS, 2, col(3), interval);
    ck_assert_str_eq(type_text(e->type), "TIMESTAMP(3)");
    e = op(FUNCTION_NEGATE, 1, col(2));
    ck_assert_str_eq(type_text(e->type), "DECIMAL(10, 2)");
}
END_TEST

START_TEST(test_conditional_types)
{
    Expr *e = fn("COALESCE", 2, col(5), lit_int(0));
    ck_assert_str_eq(type_text(e->type), "INT NOT NULL");
    e = fn("coalesce", 2, col(5), col(0));
    ck_assert_str_eq(type_text(e->type), "BIGINT NOT NULL");
    e = fn("coalesce", 2, col(5), col(2));
    ck_assert_str_eq(type_text(e->type), "DECIMAL(12, 2)");
    e = op(FUNCTION_CASE, 3, op(FUNCTION_GREATER, 2, col(0), lit_int(1)), lit_int(1), lit_null());
    ck_assert_str_eq(type_text(e->type), "INT");
    e = op(FUNCTION_CASE, 5, op(FUNCTION_GREATER, 2, col(0), lit_int(1)), lit_int(1), col(4),
           lit_bigint(2), lit_int(3));
    ck_assert_str_eq(type_text(e->type), "BIGINT NOT NULL");
    e = fn("NULLIF", 2, col(0), lit_int(0));
    ck_assert_str_eq(type_text(e->type), "BIGINT");
    e = fn("IF", 3, col(4), lit_str("a"), lit_str("bc"));
    ck_assert_str_eq(type_text(e->type), "CHAR(2) NOT NULL"); /* Calcite: CHAR, no VARCHAR */
}
END_TEST

START_TEST(test_function_types)
{
    ck_assert_str_eq(type_text(fn("CHAR_LENGTH", 1, col(1))->type), "INT");
    ck_assert_str_eq(type_text(fn("character_length", 1, lit_str("ab"))->type), "INT NOT NULL");
    ck_assert_str_eq(type_text(fn("UPPER", 1, col(1))->type), "STRING");
    ck_assert_str_eq(type_text(fn("substring", 3, col(1), lit_int(1), lit_int(2))->type), "STRING");
    ck_assert_str_eq(type_text(fn("SUBSTR", 2, lit_str("abc"), lit_int(2))->type),
                     "VARCHAR(3) NOT NULL");
    ck_assert_str_eq(type_text(fn("CONCAT", 2, lit_str("a"), lit_str("b"))->type),
                     "STRING NOT NULL");
    ck_assert_str_eq(type_text(op(FUNCTION_CONCAT, 2, lit_str("a"), lit_str("bc"))->type),
                     "CHAR(3) NOT NULL");
    ck_assert_str_eq(type_text(fn("TRIM", 1, col(1))->type), "STRING");
    Expr *ltrim = fn("LTRIM", 1, col(1));
    ck_assert_int_eq(ltrim->call.trim_mode, TRIM_LEADING);
    ck_assert_str_eq(type_text(fn("POSITION", 2, lit_str("b"), col(1))->type), "INT");
    ck_assert_str_eq(type_text(fn("REPLACE", 3, col(1), lit_str("a"), lit_str("b"))->type),
                     "STRING");
    ck_assert_str_eq(type_text(fn("DATE_FORMAT", 2, col(3), lit_str("yyyy"))->type), "STRING");
    ck_assert_str_eq(type_text(fn("TO_TIMESTAMP", 1, lit_str("2024-01-01 00:00:00"))->type),
                     "TIMESTAMP(3)");
    ck_assert_str_eq(type_text(fn("CURRENT_TIMESTAMP", 0)->type), "TIMESTAMP_LTZ(3) NOT NULL");
    ck_assert_str_eq(type_text(fn("now", 0)->type), "TIMESTAMP_LTZ(3) NOT NULL");
    ck_assert_str_eq(type_text(fn("LOCALTIMESTAMP", 0)->type), "TIMESTAMP(3) NOT NULL");
    ck_assert_str_eq(type_text(fn("CURRENT_DATE", 0)->type), "DATE NOT NULL");
    ck_assert_str_eq(type_text(fn("PROCTIME", 0)->type), "TIMESTAMP_LTZ(3) NOT NULL *PROCTIME*");
    ck_assert_str_eq(type_text(fn("EXTRACT", 2, lit_str("YEAR"), col(3))->type), "BIGINT");
    ck_assert_str_eq(type_text(fn("HOUR", 1, col(3))->type), "BIGINT");
    ck_assert_str_eq(type_text(fn("ABS", 1, col(5))->type), "INT");
    ck_assert_str_eq(type_text(fn("FLOOR", 1, col(2))->type), "DECIMAL(9, 0)");
    ck_assert_str_eq(type_text(fn("ceil", 1, lit_double(1.5))->type), "DOUBLE NOT NULL");
    ck_assert_str_eq(type_text(fn("ROUND", 2, col(2), lit_int(1))->type), "DECIMAL(10, 1)");
    ck_assert_str_eq(type_text(fn("ROUND", 1, col(5))->type), "INT");
    ck_assert(function_is_aggregate_name("count"));
    ck_assert(function_is_aggregate_name("AVG"));
    ck_assert(!function_is_aggregate_name("UPPER"));
}
END_TEST

START_TEST(test_validation_errors)
{
    Expr *name = col(1);
    const char *message = resolve_error(NULL, FUNCTION_GREATER, 2, name, lit_int(10));
    ck_assert_str_eq(message, "Cannot apply '>' to arguments of type '<VARCHAR(2147483647)> > "
                              "<INTEGER>'. Supported form(s): '<COMPARABLE_TYPE> > "
                              "<COMPARABLE_TYPE>'");
    ck_assert_int_eq(diag.status, JOINERY_ERROR_VALIDATE);
    message = resolve_error(NULL, FUNCTION_PLUS, 2, col(1), lit_int(1));
    ck_assert_str_eq(message, "Cannot apply '+' to arguments of type '<VARCHAR(2147483647)> + "
                              "<INTEGER>'. Supported form(s): '<NUMERIC> + <NUMERIC>'\n"
                              "'<DATETIME_INTERVAL> + <DATETIME_INTERVAL>'\n'<DATETIME> + "
                              "<DATETIME_INTERVAL>'\n'<DATETIME_INTERVAL> + <DATETIME>'");
    message = resolve_error("UPPER", FUNCTION_COUNT_, 1, lit_int(1));
    ck_assert_str_eq(message, "Cannot apply 'UPPER' to arguments of type 'UPPER(<INTEGER>)'. "
                              "Supported form(s): 'UPPER(<CHARACTER>)'");
    message = resolve_error("uper", FUNCTION_COUNT_, 1, col(1));
    ck_assert_str_eq(message,
                     "No match found for function signature uper(<CHARACTER>); did you mean "
                     "'UPPER'?");
    message = resolve_error("frobnicate", FUNCTION_COUNT_, 2, lit_int(1), col(3));
    ck_assert_str_eq(message,
                     "No match found for function signature frobnicate(<NUMERIC>, <TIMESTAMP>)");
    message = resolve_error("tumble", FUNCTION_COUNT_, 1, col(3));
    ck_assert_str_eq(message, "function TUMBLE is not supported yet");
    ck_assert_int_eq(diag.status, JOINERY_ERROR_UNSUPPORTED);
    message = resolve_error("JSON_VALUE", FUNCTION_COUNT_, 2, col(1), lit_str("$.a"));
    ck_assert_int_eq(diag.status, JOINERY_ERROR_UNSUPPORTED);
    message = resolve_error("SUBSTRING", FUNCTION_COUNT_, 1, col(1));
    ck_assert_str_eq(message, "Invalid number of arguments to function 'SUBSTRING'. Was "
                              "expecting 2 to 3 arguments");
    message = resolve_error(NULL, FUNCTION_AND, 2, lit_int(1), lit_bool(true));
    ck_assert_str_eq(message, "Cannot apply 'AND' to arguments of type '<INTEGER> AND "
                              "<BOOLEAN>'. Supported form(s): '<BOOLEAN> AND <BOOLEAN>'");
    message = resolve_error(NULL, FUNCTION_IS_TRUE, 1, lit_int(1));
    ck_assert_str_eq(message, "Cannot apply 'IS TRUE' to arguments of type '<INTEGER> IS TRUE'. "
                              "Supported form(s): '<BOOLEAN> IS TRUE'");
    message = resolve_error("COALESCE", FUNCTION_COUNT_, 2, lit_int(1), lit_str("a"));
    ck_assert_str_eq(message, "Illegal mixing of types in CASE or COALESCE statement");
    message = resolve_error("EXTRACT", FUNCTION_COUNT_, 2, lit_str("FORTNIGHT"), col(3));
    ck_assert(strstr(message, "EXTRACT needs a time unit") != NULL);
    message = resolve_error(NULL, FUNCTION_EQUAL, 2, col(3), lit_int(1));
    ck_assert(strstr(message, "'<TIMESTAMP(3)> = <INTEGER>'") != NULL);
}
END_TEST

/* ---- printing --------------------------------------------------------- */

START_TEST(test_print_prefix_and_infix)
{
    Expr *gt = op(FUNCTION_GREATER, 2, col(0), lit_int(10));
    ck_assert_str_eq(prefix(gt), ">(amount, 10)");
    ck_assert_str_eq(infix(gt), "(amount > 10)");
    Expr *both = op(FUNCTION_AND, 2, op(FUNCTION_EQUAL, 2, col(0), col(5)),
                    op(FUNCTION_LESS, 2, col(5), lit_int(2)));
    ck_assert_str_eq(prefix(both), "AND(=(amount, qty), <(qty, 2))");
    ck_assert_str_eq(infix(both), "((amount = qty) AND (qty < 2))");
    Expr *not_null = op(FUNCTION_IS_NOT_NULL, 1, col(1));
    ck_assert_str_eq(prefix(not_null), "IS NOT NULL(name)");
    ck_assert_str_eq(infix(not_null), "name IS NOT NULL");
    Expr *eq = op(FUNCTION_EQUAL, 2, col(1), lit_str("electronics"));
    ck_assert_str_eq(prefix(eq), "=(name, _UTF-16LE'electronics')");
    ck_assert_str_eq(infix(eq), "(name = 'electronics')");
    Expr *cast = cast_to(col(5), type_make(TYPE_BIGINT, true));
    ck_assert_str_eq(prefix(cast), "CAST(qty AS BIGINT)");
    ck_assert_str_eq(infix(cast), "CAST(qty AS BIGINT)");
    Expr *cast_string = cast_to(col(0), type_make(TYPE_VARCHAR, false));
    ck_assert_str_eq(prefix(cast_string),
                     "CAST(amount AS VARCHAR(2147483647) CHARACTER SET \"UTF-16LE\" NOT NULL)");
    ck_assert_str_eq(infix(cast_string), "CAST(amount AS VARCHAR(2147483647))");
    Expr *upper = fn("upper", 1, col(1));
    ck_assert_str_eq(prefix(upper), "UPPER(name)");
    ck_assert_str_eq(infix(upper), "UPPER(name)");
    Expr *like = op(FUNCTION_LIKE, 2, col(1), lit_str("a%"));
    ck_assert_str_eq(prefix(like), "LIKE(name, _UTF-16LE'a%')");
    ck_assert_str_eq(infix(like), "LIKE(name, 'a%')");
    Expr *interval =
        expr_make_literal(&arena, type_make(TYPE_INTERVAL_DAY_TIME, false), value_int(5000));
    Expr *watermark = op(FUNCTION_MINUS, 2, col(3), interval);
    ck_assert_str_eq(prefix(watermark), "-(ts, 5000:INTERVAL SECOND)");
    ck_assert_str_eq(infix(watermark), "(ts - 5000:INTERVAL SECOND)");
    DataType hour_type = type_make(TYPE_INTERVAL_DAY_TIME, false);
    hour_type.precision = TYPE_INTERVAL_UNIT_HOUR;
    Expr *hour = expr_make_literal(&arena, hour_type, value_int(3600000));
    ck_assert_str_eq(prefix(hour), "3600000:INTERVAL HOUR");
    Expr *kase = op(FUNCTION_CASE, 3, op(FUNCTION_GREATER, 2, col(0), lit_int(1)), lit_str("a"),
                    lit_str("b"));
    ck_assert_str_eq(prefix(kase), "CASE(>(amount, 1), _UTF-16LE'a', _UTF-16LE'b')");
    ck_assert_str_eq(infix(kase), "CASE((amount > 1), 'a', 'b')");
    Expr *or_null = op(FUNCTION_OR, 2, op(FUNCTION_EQUAL, 2, col(1), lit_str("")),
                       op(FUNCTION_IS_NULL, 1, col(1)));
    ck_assert_str_eq(infix(or_null), "((name = '') OR name IS NULL)");
    Expr *arith = op(FUNCTION_PLUS, 2, col(5), lit_int(1));
    ck_assert_str_eq(infix(arith), "(qty + 1)");
    ck_assert_str_eq(prefix(op(FUNCTION_MOD, 2, col(5), lit_int(2))), "MOD(qty, 2)");
    ck_assert_str_eq(infix(op(FUNCTION_MOD, 2, col(5), lit_int(2))), "MOD(qty, 2)");
    ck_assert_str_eq(infix(op(FUNCTION_NOT, 1, col(4))), "NOT(flag)");
    ck_assert_str_eq(prefix(op(FUNCTION_NEGATE, 1, col(5))), "-(qty)");
    ck_assert_str_eq(prefix(fn("EXTRACT", 2, lit_str("year"), col(3))), "EXTRACT(FLAG(YEAR), ts)");
    ck_assert_str_eq(prefix(fn("HOUR", 1, col(3))), "EXTRACT(FLAG(HOUR), ts)");
    ck_assert_str_eq(prefix(fn("TRIM", 1, col(1))), "TRIM(FLAG(BOTH), _UTF-16LE' ', name)");
    ck_assert_str_eq(prefix(fn("PROCTIME", 0)), "PROCTIME()");
    ck_assert_str_eq(prefix(fn("COALESCE", 2, col(5), lit_int(0))), "COALESCE(qty, 0)");
    ck_assert_str_eq(prefix(op(FUNCTION_IS_DISTINCT_FROM, 2, col(5), lit_int(0))),
                     "IS DISTINCT FROM(qty, 0)");
    ck_assert_str_eq(print_with(gt, NULL, EXPR_STYLE_PREFIX), ">($0, 10)");
}
END_TEST

START_TEST(test_print_literals)
{
    ck_assert_str_eq(prefix(lit_bigint(10)), "10:BIGINT");
    ck_assert_str_eq(infix(lit_bigint(10)), "10L");
    ck_assert_str_eq(prefix(lit_decimal(1050, 4, 2)), "10.50:DECIMAL(4, 2)");
    ck_assert_str_eq(infix(lit_decimal(1050, 4, 2)), "10.50");
    ck_assert_str_eq(prefix(lit_double(1.5)), "1.5E0:DOUBLE");
    ck_assert_str_eq(infix(lit_double(100)), "1E2");
    ck_assert_str_eq(infix(lit_double(0.25)), "2.5E-1");
    ck_assert_str_eq(prefix(lit_bool(true)), "true");
    ck_assert_str_eq(prefix(lit_typed_null(TYPE_BIGINT)), "null:BIGINT");
    ck_assert_str_eq(prefix(lit_typed_null(TYPE_VARCHAR)),
                     "null:VARCHAR(2147483647) CHARACTER SET \"UTF-16LE\"");
    ck_assert_str_eq(infix(lit_typed_null(TYPE_VARCHAR)), "null:VARCHAR(2147483647)");
    ck_assert_str_eq(prefix(lit_str("it's")), "_UTF-16LE'it''s'");
    ck_assert_str_eq(prefix(lit_timestamp("2024-01-01 10:00:00")), "2024-01-01 10:00:00");
    ck_assert_str_eq(prefix(lit_timestamp("2024-01-01 10:00:00.120")), "2024-01-01 10:00:00.12");
    Expr *varchar =
        expr_make_literal(&arena, type_make(TYPE_VARCHAR, false), value_string("ab", 2));
    ck_assert_str_eq(prefix(varchar),
                     "_UTF-16LE'ab':VARCHAR(2147483647) CHARACTER SET \"UTF-16LE\"");
    ck_assert_str_eq(prefix(lit_int(-3)), "-3");
}
END_TEST

START_TEST(test_print_in)
{
    Expr *in = op(FUNCTION_IN, 4, col(5), lit_int(3), lit_int(1), lit_int(2));
    ck_assert_str_eq(prefix(in), "SEARCH(qty, Sarg[1, 2, 3])");
    ck_assert_str_eq(infix(in), "SEARCH(qty, Sarg[1, 2, 3])");
    Expr *in_big = op(FUNCTION_IN, 3, col(0), lit_int(5), lit_int(5));
    ck_assert_str_eq(prefix(in_big), "SEARCH(amount, Sarg[5])");
    Expr *strings = op(FUNCTION_IN, 3, col(1), lit_str("b"), lit_str("a"));
    ck_assert_str_eq(infix(strings), "SEARCH(name, Sarg[_UTF-16LE'a', _UTF-16LE'b'])");
    Expr *one = op(FUNCTION_IN, 2, col(5), lit_int(7));
    ck_assert_str_eq(prefix(one), "=(qty, 7)");
    Expr *refs = op(FUNCTION_IN, 3, col(5), col(0), lit_int(1));
    ck_assert_str_eq(prefix(refs), "OR(=(qty, amount), =(qty, 1))");
    ck_assert_str_eq(infix(refs), "((qty = amount) OR (qty = 1))");
}
END_TEST

/* ---- analyses --------------------------------------------------------- */

START_TEST(test_analyses)
{
    Expr *a = op(FUNCTION_GREATER, 2, col(0), lit_int(10));
    Expr *b = op(FUNCTION_GREATER, 2, col(0), lit_int(10));
    Expr *c = op(FUNCTION_GREATER, 2, col(0), lit_int(11));
    ck_assert(expr_equals(a, b));
    ck_assert(!expr_equals(a, c));

    uint64_t used[1] = {0};
    Expr *sum = op(FUNCTION_PLUS, 2, col(5), col(2));
    expr_collect_inputs(sum, used);
    ck_assert_uint_eq(used[0], (1u << 5) | (1u << 2));

    int32_t mapping[6] = {-1, -1, 0, -1, -1, 1};
    Expr *remapped = expr_remap_inputs(&arena, sum, mapping);
    ck_assert_ptr_nonnull(remapped);
    ck_assert(remapped->call.args[0]->call.implicit); /* INT widened to DECIMAL */
    ck_assert_uint_eq(remapped->call.args[0]->call.args[0]->input_index, 1);
    ck_assert_uint_eq(remapped->call.args[1]->input_index, 0);
    ck_assert_ptr_null(expr_remap_inputs(&arena, a, mapping)); /* amount unmapped */

    Expr *replacements[6] = {NULL};
    replacements[5] = lit_int(4);
    replacements[2] = col(2);
    Expr *substituted = expr_substitute_inputs(&arena, sum, replacements);
    ck_assert_int_eq(substituted->call.args[0]->call.args[0]->kind, EXPR_LITERAL);

    ck_assert(expr_is_constant(op(FUNCTION_PLUS, 2, lit_int(1), lit_int(2))));
    ck_assert(!expr_is_constant(a));
    ck_assert(!expr_is_constant(fn("NOW", 0)));
    ck_assert(!expr_is_deterministic(op(FUNCTION_GREATER, 2, fn("PROCTIME", 0), col(3))));
    ck_assert(expr_is_deterministic(a));

    Expr *conditions[3] = {a, NULL, op(FUNCTION_AND, 2, c, op(FUNCTION_IS_NULL, 1, col(5)))};
    Expr *and = expr_make_and(&arena, conditions, 3);
    ck_assert_int_eq(and->call.function, FUNCTION_AND);
    ck_assert_uint_eq(and->call.arg_count, 3); /* flattened */
    ck_assert_ptr_null(expr_make_and(&arena, conditions + 1, 1));
    ck_assert_ptr_eq(expr_make_and(&arena, conditions, 1), a);

    Expr *same = col(0);
    ck_assert_ptr_eq(expr_make_cast(&arena, same, type_make(TYPE_BIGINT, true)), same);

    ck_assert(expr_cast_is_valid(type_make(TYPE_VARCHAR, true), type_make(TYPE_INT, true)));
    ck_assert(expr_cast_is_valid(type_make(TYPE_TIMESTAMP, true), type_make(TYPE_DATE, true)));
    ck_assert(!expr_cast_is_valid(type_make(TYPE_DATE, true), type_make(TYPE_INT, true)));
    ck_assert(!expr_cast_is_valid(type_make(TYPE_BOOLEAN, true), type_make(TYPE_DATE, true)));
}
END_TEST

START_TEST(test_null_rejecting)
{
    /* fields 0..2 are the right side of a LEFT join */
    uint64_t right[1] = {(1u << 5) | (1u << 1)};
    ck_assert(expr_is_null_rejecting(op(FUNCTION_GREATER, 2, col(5), lit_int(1)), right));
    ck_assert(expr_is_null_rejecting(op(FUNCTION_IS_NOT_NULL, 1, col(1)), right));
    ck_assert(!expr_is_null_rejecting(op(FUNCTION_IS_NULL, 1, col(1)), right));
    ck_assert(!expr_is_null_rejecting(op(FUNCTION_GREATER, 2, col(0), lit_int(1)), right));
    ck_assert(
        expr_is_null_rejecting(op(FUNCTION_AND, 2, op(FUNCTION_GREATER, 2, col(0), lit_int(1)),
                                  op(FUNCTION_EQUAL, 2, fn("UPPER", 1, col(1)), lit_str("A"))),
                               right));
    ck_assert(
        !expr_is_null_rejecting(op(FUNCTION_OR, 2, op(FUNCTION_GREATER, 2, col(0), lit_int(1)),
                                   op(FUNCTION_EQUAL, 2, col(5), lit_int(1))),
                                right));
    ck_assert(expr_is_null_rejecting(op(FUNCTION_OR, 2, op(FUNCTION_EQUAL, 2, col(5), lit_int(2)),
                                        op(FUNCTION_EQUAL, 2, col(5), lit_int(1))),
                                     right));
    ck_assert(!expr_is_null_rejecting(
        op(FUNCTION_EQUAL, 2, fn("COALESCE", 2, col(5), lit_int(0)), lit_int(0)), right));
    ck_assert(!expr_is_null_rejecting(
        op(FUNCTION_IS_NOT_TRUE, 1, op(FUNCTION_EQUAL, 2, col(5), lit_int(1))), right));
    ck_assert(expr_is_null_rejecting(
        op(FUNCTION_IS_TRUE, 1, op(FUNCTION_EQUAL, 2, col(5), lit_int(1))), right));
    ck_assert(expr_is_null_rejecting(
        op(FUNCTION_NOT, 1, op(FUNCTION_GREATER, 2, col(5), lit_int(1))), right));
}
END_TEST

/* ---- evaluation ------------------------------------------------------- */

static Expr *tri(int v)
{
    return v < 0 ? lit_typed_null(TYPE_BOOLEAN) : lit_bool(v != 0);
}

static int tri_of(Value v)
{
    return v.is_null ? -1 : (int)v.i;
}

START_TEST(test_three_valued_logic)
{
    const int values[3] = {1, 0, -1};
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            int a = values[i], b = values[j];
            int expected_and = (a == 0 || b == 0) ? 0 : (a < 0 || b < 0) ? -1 : 1;
            int expected_or = (a == 1 || b == 1) ? 1 : (a < 0 || b < 0) ? -1 : 0;
            ck_assert_int_eq(tri_of(eval0(op(FUNCTION_AND, 2, tri(a), tri(b)))), expected_and);
            ck_assert_int_eq(tri_of(eval0(op(FUNCTION_OR, 2, tri(a), tri(b)))), expected_or);
        }
        int a = values[i];
        ck_assert_int_eq(tri_of(eval0(op(FUNCTION_NOT, 1, tri(a)))), a < 0 ? -1 : !a);
        ck_assert_int_eq(tri_of(eval0(op(FUNCTION_IS_TRUE, 1, tri(a)))), a == 1);
        ck_assert_int_eq(tri_of(eval0(op(FUNCTION_IS_NOT_TRUE, 1, tri(a)))), a != 1);
        ck_assert_int_eq(tri_of(eval0(op(FUNCTION_IS_FALSE, 1, tri(a)))), a == 0);
        ck_assert_int_eq(tri_of(eval0(op(FUNCTION_IS_NOT_FALSE, 1, tri(a)))), a != 0);
        ck_assert_int_eq(tri_of(eval0(op(FUNCTION_IS_NULL, 1, tri(a)))), a < 0);
    }
    /* comparisons with NULL are NULL; IS DISTINCT FROM is not */
    ck_assert_int_eq(tri_of(eval0(op(FUNCTION_EQUAL, 2, lit_int(1), lit_typed_null(TYPE_INT)))),
                     -1);
    ck_assert_int_eq(
        tri_of(eval0(op(FUNCTION_IS_DISTINCT_FROM, 2, lit_int(1), lit_typed_null(TYPE_INT)))), 1);
    ck_assert_int_eq(tri_of(eval0(op(FUNCTION_IS_NOT_DISTINCT_FROM, 2, lit_typed_null(TYPE_INT),
                                     lit_typed_null(TYPE_INT)))),
                     1);
    /* IN: TRUE if found, NULL if not found but a NULL is listed */
    ck_assert_int_eq(
        tri_of(eval0(op(FUNCTION_IN, 3, lit_int(1), lit_int(1), lit_typed_null(TYPE_INT)))), 1);
    ck_assert_int_eq(
        tri_of(eval0(op(FUNCTION_IN, 3, lit_int(2), lit_int(1), lit_typed_null(TYPE_INT)))), -1);
    ck_assert_int_eq(tri_of(eval0(op(FUNCTION_IN, 3, lit_int(2), lit_int(1), lit_int(3)))), 0);
}
END_TEST

START_TEST(test_predicates_over_rows)
{
    Row *row = make_row(42, "alice", 1999, "2024-03-01 12:30:45.123", -1, 0, true);
    ExprEvalContext context = make_context();
    Expr *gt = op(FUNCTION_GREATER, 2, col(0), lit_int(10));
    ck_assert(expr_eval_predicate(gt, row, 6, NULL, &context));
    Expr *qty = op(FUNCTION_GREATER, 2, col(5), lit_int(10)); /* NULL -> false */
    ck_assert(!expr_eval_predicate(qty, row, 6, NULL, &context));
    Expr *flag = col(4);
    ck_assert(!expr_eval_predicate(flag, row, 6, NULL, &context));
    Expr *and = op(FUNCTION_AND, 2, gt, op(FUNCTION_EQUAL, 2, col(1), lit_str("alice")));
    ck_assert(expr_eval_predicate(and, row, 6, NULL, &context));
    Expr *price = op(FUNCTION_GREATER_EQUAL, 2, col(2), lit_decimal(1999, 4, 2));
    ck_assert(expr_eval_predicate(price, row, 6, NULL, &context));
    Expr *price_int = op(FUNCTION_LESS, 2, col(2), lit_int(20));
    ck_assert(expr_eval_predicate(price_int, row, 6, NULL, &context));
    /* join: left fields first; ref 6 is right field 0 */
    Row *other = make_row(42, "bob", 0, NULL, 1, 3, false);
    Expr *join = op(FUNCTION_EQUAL, 2, col(0), ref(6, type_make(TYPE_BIGINT, false)));
    ck_assert(expr_eval_predicate(join, row, 6, other, &context));
    Expr *right_name = ref(7, type_make(TYPE_VARCHAR, true));
    ck_assert_str_eq(text_of(right_name, expr_eval(right_name, row, 6, other, &context)), "bob");
    /* padded (NULL) right row reads as NULLs */
    ck_assert(expr_eval(right_name, row, 6, NULL, &context).is_null);
    Expr *left_name = ref(1, type_make(TYPE_VARCHAR, true));
    ck_assert_str_eq(text_of(left_name, expr_eval(left_name, row, 0, NULL, &context)), "alice");
    ck_assert(expr_eval(left_name, NULL, 6, other, &context).is_null);
    ck_assert(!context.failed);
}
END_TEST

START_TEST(test_integer_arithmetic)
{
    ck_assert_str_eq(eval_text(op(FUNCTION_DIVIDE, 2, lit_int(7), lit_int(2))), "3");
    ck_assert_str_eq(eval_text(op(FUNCTION_DIVIDE, 2, lit_int(-7), lit_int(2))), "-3");
    ck_assert_str_eq(eval_text(op(FUNCTION_MOD, 2, lit_int(-7), lit_int(3))), "-1");
    ck_assert_str_eq(eval_text(op(FUNCTION_PLUS, 2, lit_bigint(INT64_MAX), lit_bigint(1))),
                     "-9223372036854775808");
    ck_assert_str_eq(eval_text(op(FUNCTION_MULTIPLY, 2, lit_bigint(INT64_MIN), lit_bigint(-1))),
                     "-9223372036854775808");
    ck_assert_str_eq(eval_text(op(FUNCTION_DIVIDE, 2, lit_bigint(INT64_MIN), lit_bigint(-1))),
                     "-9223372036854775808");
    ck_assert_str_eq(eval_text(op(FUNCTION_MOD, 2, lit_bigint(INT64_MIN), lit_bigint(-1))), "0");
    ck_assert_str_eq(eval_text(op(FUNCTION_PLUS, 2, lit_int(2147483647), lit_int(1))),
                     "-2147483648");
    ck_assert_str_eq(eval_text(op(FUNCTION_NEGATE, 1, lit_bigint(INT64_MIN))),
                     "-9223372036854775808");
    ck_assert_str_eq(eval_text(op(FUNCTION_PLUS, 2, lit_int(1), lit_bigint(2))), "3");
    ck_assert_str_eq(eval_error(op(FUNCTION_DIVIDE, 2, lit_int(1), lit_int(0))),
                     "Division by zero");
    ck_assert_str_eq(eval_error(op(FUNCTION_MOD, 2, lit_int(1), lit_int(0))), "Division by zero");
    ck_assert_str_eq(eval_text(op(FUNCTION_PLUS, 2, lit_int(1), lit_typed_null(TYPE_INT))), "NULL");
    ck_assert_str_eq(eval_text(fn("ABS", 1, lit_int(-5))), "5");
}
END_TEST

START_TEST(test_double_arithmetic)
{
    Value v = eval0(op(FUNCTION_DIVIDE, 2, lit_double(1), lit_double(0)));
    ck_assert(isinf(v.d) && v.d > 0);
    v = eval0(op(FUNCTION_DIVIDE, 2, lit_double(0), lit_double(0)));
    ck_assert(isnan(v.d));
    v = eval0(op(FUNCTION_DIVIDE, 2, lit_int(1), lit_double(4)));
    ck_assert(v.d == 0.25);
    ck_assert_str_eq(eval_text(op(FUNCTION_MULTIPLY, 2, lit_double(1.5), lit_int(2))), "3.0");
    ck_assert_str_eq(eval_text(fn("FLOOR", 1, lit_double(-1.5))), "-2.0");
    ck_assert_str_eq(eval_text(fn("CEIL", 1, lit_double(1.2))), "2.0");
    ck_assert_str_eq(eval_text(fn("ROUND", 2, lit_double(2.675), lit_int(2))), "2.68");
    ck_assert_str_eq(eval_text(fn("ROUND", 1, lit_double(-2.5))), "-3.0");
    ck_assert(eval0(fn("ROUND", 2, lit_double(1234.5), lit_int(-2))).d == 1200.0);
    ck_assert(eval0(fn("ROUND", 2, lit_double(0.125), lit_int(2))).d == 0.13);
}
END_TEST

START_TEST(test_decimal_arithmetic)
{
    /* 1.25 + 2.5 = 3.75 at scale 2 */
    Expr *sum = op(FUNCTION_PLUS, 2, lit_decimal(125, 3, 2), lit_decimal(25, 2, 1));
    ck_assert_str_eq(type_text(sum->type), "DECIMAL(4, 2) NOT NULL");
    ck_assert_str_eq(eval_text(sum), "3.75");
    /* 1.00 / 3 -> DECIMAL(3,2)/DECIMAL(10,0): scale max(6, 2+10+1)=13 */
    Expr *quotient = op(FUNCTION_DIVIDE, 2, lit_decimal(100, 3, 2), lit_int(3));
    ck_assert_str_eq(type_text(quotient->type), "DECIMAL(14, 13) NOT NULL");
    ck_assert_str_eq(eval_text(quotient), "0.3333333333333");
    /* 2.00 / 3.0 rounds HALF_UP: 0.666667 */
    Expr *two_thirds = op(FUNCTION_DIVIDE, 2, lit_decimal(200, 3, 2), lit_decimal(30, 2, 1));
    ck_assert_str_eq(type_text(two_thirds->type), "DECIMAL(8, 6) NOT NULL");
    ck_assert_str_eq(eval_text(two_thirds), "0.666667");
    Expr *product = op(FUNCTION_MULTIPLY, 2, lit_decimal(-125, 3, 2), lit_decimal(15, 2, 1));
    ck_assert_str_eq(eval_text(product), "-1.875");
    Expr *mod = op(FUNCTION_MOD, 2, lit_decimal(725, 3, 2), lit_int(2));
    ck_assert_str_eq(eval_text(mod), "1.25");
    Expr *minus = op(FUNCTION_MINUS, 2, lit_decimal(100, 3, 2), lit_decimal(1, 2, 1));
    ck_assert_str_eq(eval_text(minus), "0.90");
    ck_assert_str_eq(eval_error(op(FUNCTION_DIVIDE, 2, lit_decimal(1, 2, 1), lit_decimal(0, 2, 1))),
                     "Division by zero");
    /* overflow of the result precision gives NULL, as in Flink */
    Expr *big = lit_decimal(999999999999999999LL, 18, 0);
    ck_assert_str_eq(eval_text(op(FUNCTION_MULTIPLY, 2, big, big)), "NULL");
    ck_assert_str_eq(eval_text(fn("FLOOR", 1, lit_decimal(-125, 3, 2))), "-2");
    ck_assert_str_eq(eval_text(fn("CEIL", 1, lit_decimal(125, 3, 2))), "2");
    ck_assert_str_eq(eval_text(fn("ROUND", 2, lit_decimal(12345, 5, 3), lit_int(2))), "12.35");
    ck_assert_str_eq(eval_text(fn("ROUND", 2, lit_decimal(-12345, 5, 3), lit_int(2))), "-12.35");
    ck_assert_str_eq(eval_text(fn("ROUND", 2, lit_decimal(15500, 5, 2), lit_int(-2))), "200");
    ck_assert_str_eq(eval_text(fn("ABS", 1, lit_decimal(-125, 3, 2))), "1.25");
}
END_TEST

START_TEST(test_cast_matrix)
{
    DataType int_type = type_make(TYPE_INT, true);
    DataType bigint = type_make(TYPE_BIGINT, true);
    DataType tinyint = type_make(TYPE_TINYINT, true);
    DataType dbl = type_make(TYPE_DOUBLE, true);
    DataType string = type_make(TYPE_VARCHAR, true);
    DataType boolean = type_make(TYPE_BOOLEAN, true);
    DataType date = type_make(TYPE_DATE, true);
    DataType ts = type_make_timestamp(TYPE_TIMESTAMP, 3, true);
    DataType dec = type_make_decimal(5, 2, true);

    ck_assert_str_eq(eval_text(cast_to(lit_str(" 42 "), int_type)), "42");
    ck_assert_str_eq(eval_error(cast_to(lit_str("abc"), int_type)),
                     "Cannot cast 'abc' to INT: not a valid INT");
    ck_assert_str_eq(eval_text(try_cast_to(lit_str("abc"), int_type)), "NULL");
    ck_assert_str_eq(eval_text(try_cast_to(lit_str("12"), int_type)), "12");
    ck_assert_str_eq(eval_error(cast_to(lit_str("99999999999"), int_type)),
                     "Cannot cast '99999999999' to INT: out of range for INT");
    ck_assert_str_eq(eval_text(cast_to(lit_double(2.9), int_type)), "2");
    ck_assert_str_eq(eval_text(cast_to(lit_double(-2.9), int_type)), "-2");
    ck_assert_str_eq(eval_text(cast_to(lit_double(NAN), bigint)), "0");
    ck_assert_str_eq(eval_text(cast_to(lit_double(1e30), bigint)), "9223372036854775807");
    ck_assert_str_eq(eval_text(cast_to(lit_double(1e30), int_type)), "2147483647");
    ck_assert_str_eq(eval_text(cast_to(lit_bigint(4294967297LL), int_type)), "1");
    ck_assert_str_eq(eval_text(cast_to(lit_int(300), tinyint)), "44");
    ck_assert_str_eq(eval_text(cast_to(lit_int(7), dbl)), "7.0");
    ck_assert_str_eq(eval_text(cast_to(lit_int(7), dec)), "7.00");
    ck_assert_str_eq(eval_text(cast_to(lit_int(7000), dec)), "NULL"); /* overflow */
    ck_assert_str_eq(eval_text(cast_to(lit_decimal(1235, 4, 3), dec)), "1.24");
    ck_assert_str_eq(eval_text(cast_to(lit_decimal(-1235, 4, 3), dec)), "-1.24");
    ck_assert_str_eq(eval_text(cast_to(lit_decimal(-1999, 4, 2), int_type)), "-19");
    ck_assert_str_eq(eval_text(cast_to(lit_decimal(125, 3, 2), dbl)), "1.25");
    ck_assert_str_eq(eval_text(cast_to(lit_double(2.675), dec)), "2.68");
    ck_assert_str_eq(eval_text(cast_to(lit_str("3.14159"), dec)), "3.14");
    ck_assert_str_eq(eval_text(cast_to(lit_int(42), string)), "42");
    ck_assert_str_eq(eval_text(cast_to(lit_double(1e10), string)), "1.0E10");
    ck_assert_str_eq(eval_text(cast_to(lit_decimal(-5, 3, 2), string)), "-0.05");
    ck_assert_str_eq(eval_text(cast_to(lit_bool(true), string)), "TRUE");
    ck_assert_str_eq(eval_text(cast_to(lit_str("yes"), boolean)), "TRUE");
    ck_assert_str_eq(eval_text(cast_to(lit_str("FALSE"), boolean)), "FALSE");
    ck_assert_str_eq(eval_error(cast_to(lit_str("maybe"), boolean)),
                     "Cannot cast 'maybe' to BOOLEAN");
    ck_assert_str_eq(eval_text(cast_to(lit_int(0), boolean)), "FALSE");
    ck_assert_str_eq(eval_text(cast_to(lit_bool(true), int_type)), "1");
    ck_assert_str_eq(eval_text(cast_to(lit_str("2024-02-29"), date)), "2024-02-29");
    ck_assert_str_eq(eval_error(cast_to(lit_str("2023-02-29"), date)),
                     "Cannot cast '2023-02-29' to DATE: not a valid DATE");
    ck_assert_str_eq(eval_text(cast_to(lit_str("2024-01-02 03:04:05.6"), ts)),
                     "2024-01-02 03:04:05.600");
    ck_assert_str_eq(eval_text(cast_to(lit_timestamp("2024-01-02 03:04:05"), date)), "2024-01-02");
    ck_assert_str_eq(eval_text(cast_to(lit_timestamp("1969-12-31 23:00:00"), date)), "1969-12-31");
    ck_assert_str_eq(eval_text(cast_to(cast_to(lit_str("2024-01-02"), date), ts)),
                     "2024-01-02 00:00:00.000");
    ck_assert_str_eq(eval_text(cast_to(lit_timestamp("2024-01-02 03:04:05.250"), string)),
                     "2024-01-02 03:04:05.250");
    ck_assert_str_eq(eval_text(cast_to(lit_typed_null(TYPE_INT), string)), "NULL");
}
END_TEST

static bool like(const char *text, const char *pattern)
{
    Value v = eval0(op(FUNCTION_LIKE, 2, lit_str(text), lit_str(pattern)));
    ck_assert(!v.is_null);
    return v.i != 0;
}

static bool like_escape(const char *text, const char *pattern, const char *escape)
{
    Value v = eval0(op(FUNCTION_LIKE, 3, lit_str(text), lit_str(pattern), lit_str(escape)));
    return !v.is_null && v.i != 0;
}

START_TEST(test_like)
{
    ck_assert(like("apple", "app%"));
    ck_assert(!like("pineapple", "app%"));
    ck_assert(like("pineapple", "%apple"));
    ck_assert(like("pineapple", "%eap%"));
    ck_assert(!like("pineapple", "%xyz%"));
    ck_assert(like("abc", "abc"));
    ck_assert(!like("abcd", "abc"));
    ck_assert(like("abc", "a_c"));
    ck_assert(!like("abbc", "a_c"));
    ck_assert(like("aXbYc", "a%b%c"));
    ck_assert(like("abcbc", "a%bc"));
    ck_assert(!like("abcbd", "a%bc"));
    ck_assert(like("", "%"));
    ck_assert(like("x", "%%"));
    ck_assert(!like("", "_"));
    ck_assert(like("h\xc3\xa9llo", "h_llo")); /* _ matches one code point */
    ck_assert(like_escape("10%", "10!%", "!"));
    ck_assert(!like_escape("100", "10!%", "!"));
    ck_assert(like_escape("a_b", "a!_b", "!"));
    ck_assert(!like_escape("axb", "a!_b", "!"));
    Value v = eval0(op(FUNCTION_LIKE, 2, lit_typed_null(TYPE_VARCHAR), lit_str("%")));
    ck_assert(v.is_null);
}
END_TEST

START_TEST(test_string_functions)
{
    ck_assert_str_eq(eval_text(fn("CHAR_LENGTH", 1, lit_str("h\xc3\xa9llo"))), "5");
    ck_assert_str_eq(eval_text(fn("UPPER", 1, lit_str("abc\xc3\xa9z"))), "ABC\xc3\xa9Z");
    ck_assert_str_eq(eval_text(fn("LOWER", 1, lit_str("ABC"))), "abc");
    ck_assert_str_eq(eval_text(fn("SUBSTRING", 3, lit_str("hello"), lit_int(2), lit_int(3))),
                     "ell");
    ck_assert_str_eq(eval_text(fn("SUBSTRING", 2, lit_str("hello"), lit_int(2))), "ello");
    ck_assert_str_eq(eval_text(fn("SUBSTRING", 2, lit_str("hello"), lit_int(-3))), "llo");
    ck_assert_str_eq(eval_text(fn("SUBSTRING", 3, lit_str("hello"), lit_int(0), lit_int(2))), "he");
    ck_assert_str_eq(eval_text(fn("SUBSTRING", 3, lit_str("hello"), lit_int(4), lit_int(10))),
                     "lo");
    ck_assert_str_eq(eval_text(fn("SUBSTRING", 2, lit_str("hello"), lit_int(9))), "");
    ck_assert_str_eq(eval_text(fn("SUBSTRING", 2, lit_str("hello"), lit_int(-9))), "");
    ck_assert_str_eq(eval_text(fn("SUBSTR", 3, lit_str("h\xc3\xa9llo"), lit_int(2), lit_int(2))),
                     "\xc3\xa9l");
    ck_assert_str_eq(eval_text(fn("CONCAT", 3, lit_str("a"), lit_str("b"), lit_str("c"))), "abc");
    ck_assert_str_eq(eval_text(fn("CONCAT", 2, lit_str("a"), lit_typed_null(TYPE_VARCHAR))),
                     "NULL");
    ck_assert_str_eq(eval_text(fn("TRIM", 1, lit_str("  x y  "))), "x y");
    ck_assert_str_eq(eval_text(fn("LTRIM", 1, lit_str("  x  "))), "x  ");
    ck_assert_str_eq(eval_text(fn("RTRIM", 1, lit_str("  x  "))), "  x");
    ck_assert_str_eq(eval_text(fn("TRIM", 2, lit_str("xxaxx"), lit_str("x"))), "a");
    ck_assert_str_eq(eval_text(fn("POSITION", 2, lit_str("l"), lit_str("h\xc3\xa9llo"))), "3");
    ck_assert_str_eq(eval_text(fn("POSITION", 2, lit_str("z"), lit_str("hello"))), "0");
    ck_assert_str_eq(eval_text(fn("REPLACE", 3, lit_str("a-b-c"), lit_str("-"), lit_str("+="))),
                     "a+=b+=c");
    ck_assert_str_eq(eval_text(fn("REPLACE", 3, lit_str("aaa"), lit_str("aa"), lit_str("b"))),
                     "ba");
    ck_assert_str_eq(
        eval_text(fn("COALESCE", 3, lit_typed_null(TYPE_VARCHAR), lit_str("x"), lit_str("y"))),
        "x");
    ck_assert_str_eq(eval_text(fn("NULLIF", 2, lit_int(1), lit_int(1))), "NULL");
    ck_assert_str_eq(eval_text(fn("NULLIF", 2, lit_int(1), lit_int(2))), "1");
    ck_assert_str_eq(eval_text(fn("IF", 3, lit_bool(false), lit_int(1), lit_bigint(2))), "2");
    Expr *kase = op(FUNCTION_CASE, 5, tri(-1), lit_str("a"), tri(1), lit_str("bb"), lit_str("c"));
    ck_assert_str_eq(eval_text(kase), "bb");
}
END_TEST

START_TEST(test_date_functions)
{
    Expr *ts = lit_timestamp("2024-03-05 07:08:09.012");
    ck_assert_str_eq(eval_text(fn("DATE_FORMAT", 2, ts, lit_str("yyyy-MM-dd HH:mm:ss"))),
                     "2024-03-05 07:08:09");
    ck_assert_str_eq(eval_text(fn("DATE_FORMAT", 2, ts, lit_str("yyyyMMdd'T'HHmmss.SSS"))),
                     "20240305T070809.012");
    ck_assert_str_eq(eval_text(fn("DATE_FORMAT", 2, ts, lit_str("yy/M/d h a ''x''"))),
                     "24/3/5 7 AM 'x'");
    ck_assert_str_eq(eval_text(fn("DATE_FORMAT", 2, ts, lit_str("EEE, MMM d"))), "Tue, Mar 5");
    ck_assert_str_eq(
        eval_text(fn("DATE_FORMAT", 2, lit_str("2024-01-02 03:04:05"), lit_str("HH:mm"))), "03:04");
    ck_assert_str_eq(eval_text(fn("DATE_FORMAT", 2, lit_str("garbage"), lit_str("HH:mm"))), "NULL");
    ck_assert_str_eq(eval_text(fn("TO_TIMESTAMP", 1, lit_str("2024-01-02 03:04:05"))),
                     "2024-01-02 03:04:05.000");
    ck_assert_str_eq(
        eval_text(fn("TO_TIMESTAMP", 2, lit_str("02/01/2024 03:04"), lit_str("dd/MM/yyyy HH:mm"))),
        "2024-01-02 03:04:00.000");
    ck_assert_str_eq(
        eval_text(fn("TO_TIMESTAMP", 2, lit_str("20240102030405"), lit_str("yyyyMMddHHmmss"))),
        "2024-01-02 03:04:05.000");
    ck_assert_str_eq(eval_text(fn("TO_TIMESTAMP", 2, lit_str("2024-01-02 03:04:05.7"),
                                  lit_str("yyyy-MM-dd HH:mm:ss.SSS"))),
                     "2024-01-02 03:04:05.700");
    ck_assert_str_eq(eval_text(fn("TO_TIMESTAMP", 1, lit_str("not a time"))), "NULL");
    ck_assert_str_eq(eval_text(fn("TO_TIMESTAMP", 2, lit_str("2024-13-01"), lit_str("yyyy-MM-dd"))),
                     "NULL");
    ck_assert_str_eq(eval_text(fn("EXTRACT", 2, lit_str("YEAR"), ts)), "2024");
    ck_assert_str_eq(eval_text(fn("MONTH", 1, ts)), "3");
    ck_assert_str_eq(eval_text(fn("DAYOFMONTH", 1, ts)), "5");
    ck_assert_str_eq(eval_text(fn("HOUR", 1, ts)), "7");
    ck_assert_str_eq(eval_text(fn("MINUTE", 1, ts)), "8");
    ck_assert_str_eq(eval_text(fn("SECOND", 1, ts)), "9");
    ck_assert_str_eq(eval_text(fn("QUARTER", 1, ts)), "1");
    ck_assert_str_eq(eval_text(fn("DAYOFWEEK", 1, ts)), "3"); /* Tuesday */
    ck_assert_str_eq(eval_text(fn("DAYOFYEAR", 1, ts)), "65");
    ck_assert_str_eq(eval_text(fn("WEEK", 1, ts)), "10");
    ck_assert_str_eq(eval_text(fn("CURRENT_TIMESTAMP", 0)), "2023-11-14 22:13:20.123");
    ck_assert_str_eq(eval_text(fn("CURRENT_DATE", 0)), "2023-11-14");
    /* timestamp +/- intervals */
    Expr *seconds =
        expr_make_literal(&arena, type_make(TYPE_INTERVAL_DAY_TIME, false), value_int(5000));
    ck_assert_str_eq(eval_text(op(FUNCTION_MINUS, 2, ts, seconds)), "2024-03-05 07:08:04.012");
    Expr *month =
        expr_make_literal(&arena, type_make(TYPE_INTERVAL_YEAR_MONTH, false), value_int(1));
    ck_assert_str_eq(eval_text(op(FUNCTION_PLUS, 2, lit_timestamp("2024-01-31 00:00:00"), month)),
                     "2024-02-29 00:00:00.000");
    ck_assert_str_eq(eval_text(op(FUNCTION_PLUS, 2, month, lit_timestamp("2023-12-15 00:00:00"))),
                     "2024-01-15 00:00:00.000");
}
END_TEST

/* TIMESTAMPDIFF / TIMESTAMPADD: Avatica's month arithmetic, truncation toward zero, NULLs */
START_TEST(test_timestamp_diff_and_add)
{
    Expr *diff = fn("TIMESTAMPDIFF", 3, lit_str("MONTH"), lit_timestamp("2024-03-31 10:00:00"),
                    lit_timestamp("2024-02-29 10:00:00"));
    ck_assert_str_eq(type_text(diff->type), "INT NOT NULL");
    ck_assert_str_eq(eval_text(diff), "-1"); /* back from a month's end to a shorter month's */
    diff = fn("TIMESTAMPDIFF", 3, lit_str("MONTH"), lit_timestamp("2024-01-31 10:00:00"),
              lit_timestamp("2024-02-29 09:00:00"));
    ck_assert_str_eq(eval_text(diff), "0"); /* the clamped day is reached an hour short */
    diff = fn("TIMESTAMPDIFF", 3, lit_str("YEAR"), lit_timestamp("2024-02-29 00:00:00"),
              lit_timestamp("2025-02-28 00:00:00"));
    ck_assert_str_eq(eval_text(diff), "1");
    diff = fn("TIMESTAMPDIFF", 3, lit_str("minute"), lit_timestamp("2024-01-01 00:01:30"),
              lit_timestamp("2024-01-01 00:00:00"));
    ck_assert_str_eq(eval_text(diff), "-1"); /* -90 s truncates toward zero */
    diff = fn("TIMESTAMPDIFF", 3, lit_str("SECOND"), lit_timestamp("1969-12-31 23:59:59.500"),
              lit_timestamp("1970-01-01 00:00:00"));
    ck_assert_str_eq(eval_text(diff), "0");
    /* 6311433600 s does not fit an INT: Java's (int) narrowing keeps the low 32 bits */
    diff = fn("TIMESTAMPDIFF", 3, lit_str("SECOND"), lit_timestamp("1900-01-01 00:00:00"),
              lit_timestamp("2100-01-01 00:00:00"));
    ck_assert_str_eq(eval_text(diff), "2016466304");
    diff = fn("TIMESTAMPDIFF", 3, lit_str("DAY"), col(3), lit_timestamp("2024-01-01 00:00:00"));
    ck_assert_str_eq(type_text(diff->type), "INT");
    diff = fn("TIMESTAMPDIFF", 3, lit_str("DAY"), lit_null(), lit_timestamp("2024-01-01 00:00:00"));
    ck_assert_str_eq(eval_text(diff), "NULL");
    ck_assert_str_eq(prefix(fn("TIMESTAMPDIFF", 3, lit_str("second"), col(3), col(3))),
                     "TIMESTAMPDIFF(FLAG(SECOND), ts, ts)");

    Expr *add =
        fn("TIMESTAMPADD", 3, lit_str("MONTH"), lit_int(1), lit_timestamp("2023-01-31 12:00:00"));
    ck_assert_str_eq(type_text(add->type), "TIMESTAMP(3) NOT NULL");
    ck_assert_str_eq(eval_text(add), "2023-02-28 12:00:00.000");
    add =
        fn("TIMESTAMPADD", 3, lit_str("MONTH"), lit_int(-13), lit_timestamp("2024-03-31 06:00:00"));
    ck_assert_str_eq(eval_text(add), "2023-02-28 06:00:00.000");
    add = fn("TIMESTAMPADD", 3, lit_str("MONTH"), lit_int(1), lit_timestamp("1969-12-31 23:00:00"));
    ck_assert_str_eq(eval_text(add), "1970-01-31 23:00:00.000");
    add = fn("TIMESTAMPADD", 3, lit_str("WEEK"), lit_int(-1), lit_timestamp("1970-01-03 00:00:00"));
    ck_assert_str_eq(eval_text(add), "1969-12-27 00:00:00.000");
    add = fn("TIMESTAMPADD", 3, lit_str("DAY"), lit_null(), lit_timestamp("2024-01-01 00:00:00"));
    ck_assert_str_eq(type_text(add->type), "TIMESTAMP(3)");
    ck_assert_str_eq(eval_text(add), "NULL");
    add = fn("TIMESTAMPADD", 3, lit_str("SECOND"), lit_bigint(INT64_MAX / 1000 + 1),
             lit_timestamp("2024-01-01 00:00:00"));
    ck_assert(strstr(eval_error(add), "out of range") != NULL);

    const char *message =
        resolve_error("TIMESTAMPDIFF", FUNCTION_COUNT_, 3, lit_str("EPOCH"), col(3), col(3));
    ck_assert(strstr(message, "TIMESTAMPDIFF needs a time unit") != NULL);
    message =
        resolve_error("TIMESTAMPADD", FUNCTION_COUNT_, 3, lit_str("DAY"), lit_double(1.5), col(3));
    ck_assert(strstr(message, "Cannot apply 'TIMESTAMPADD'") != NULL);
}
END_TEST

/* POWER ... LOG: DOUBLE results with C's libm, which gives Java's special values */
START_TEST(test_double_math_functions)
{
    ck_assert(isnan(eval0(fn("SQRT", 1, lit_int(-4))).d));
    ck_assert(isnan(eval0(fn("LOG", 2, lit_int(10), lit_int(-1))).d));
    ck_assert(isinf(eval0(fn("POWER", 2, lit_int(0), lit_int(-1))).d));
    ck_assert(isinf(eval0(fn("LOG", 2, lit_int(1), lit_int(8))).d)); /* ln 8 / ln 1 */
    ck_assert(eval0(fn("LN", 1, lit_int(0))).d < 0);
    ck_assert_str_eq(type_text(fn("POWER", 2, lit_decimal(25, 2, 1), lit_int(2))->type),
                     "DOUBLE NOT NULL");
    ck_assert_str_eq(type_text(fn("LN", 1, col(2))->type), "DOUBLE");
    ck_assert(eval0(fn("LN", 1, lit_typed_null(TYPE_INT))).is_null);
    ck_assert(eval0(fn("LOG", 2, lit_null(), lit_int(8))).is_null);
    ck_assert(eval0(fn("LOG2", 1, lit_int(1024))).d == 10.0);

    Expr *sign = fn("SIGN", 1, lit_decimal(-250, 3, 2));
    ck_assert_str_eq(type_text(sign->type), "DECIMAL(3, 2) NOT NULL");
    ck_assert_str_eq(eval_text(sign), "-1.00");
    ck_assert(signbit(eval0(fn("SIGN", 1, lit_double(-0.0))).d)); /* Math.signum(-0.0) */
    ck_assert_str_eq(eval_text(fn("SIGN", 1, lit_bigint(0))), "0");
    ck_assert(strstr(resolve_error("SQRT", FUNCTION_COUNT_, 1, lit_str("4")),
                     "Cannot apply 'SQRT'") != NULL);
}
END_TEST

/* REPEAT ... CONCAT_WS over UTF-8, UNIX_TIMESTAMP / FROM_UNIXTIME / TO_DATE types and edges */
START_TEST(test_more_string_and_time_functions)
{
    ck_assert_str_eq(eval_text(fn("REVERSE", 1, lit_str("h\xc3\xa9\xe6\x97\xa5\xf0\x9f\x98\x80"))),
                     "\xf0\x9f\x98\x80\xe6\x97\xa5\xc3\xa9h");
    ck_assert_str_eq(eval_text(fn("LPAD", 3, lit_str("\xc3\xa9"), lit_int(4), lit_str("ab"))),
                     "aba\xc3\xa9");
    ck_assert_str_eq(
        eval_text(fn("RPAD", 3, lit_str("\xc3\xa9\xc3\xa9\xc3\xa9"), lit_int(2), lit_str("x"))),
        "\xc3\xa9\xc3\xa9");
    Expr *pad = fn("LPAD", 3, col(1), lit_int(0), lit_str("x"));
    ck_assert_str_eq(type_text(pad->type), "STRING");
    ck_assert_str_eq(type_text(fn("LPAD", 3, lit_str("a"), lit_int(2), lit_str("x"))->type),
                     "STRING"); /* nullable: a negative length is NULL */
    ck_assert_str_eq(eval_text(fn("LPAD", 3, lit_str("abc"), lit_int(0), lit_str("x"))), "");
    ck_assert_str_eq(eval_text(fn("LPAD", 3, lit_str("abc"), lit_int(-1), lit_str("x"))), "NULL");
    ck_assert_str_eq(eval_text(fn("RIGHT", 2, lit_str("a\xe6\x97\xa5"), lit_int(1))),
                     "\xe6\x97\xa5");
    ck_assert_str_eq(eval_text(fn("LEFT", 2, lit_str("abc"), lit_typed_null(TYPE_INT))), "NULL");
    ck_assert_str_eq(eval_text(fn("REPEAT", 2, lit_str(""), lit_int(5))), "");
    Expr *joined = fn("CONCAT_WS", 3, lit_str(","), lit_typed_null(TYPE_VARCHAR), lit_str("b"));
    ck_assert_str_eq(type_text(joined->type), "STRING NOT NULL");
    ck_assert_str_eq(eval_text(joined), "b");
    ck_assert_str_eq(eval_text(fn("CONCAT_WS", 1, lit_str(","))), "");

    ck_assert_str_eq(type_text(fn("UNIX_TIMESTAMP", 0)->type), "BIGINT NOT NULL");
    ck_assert_str_eq(type_text(fn("UNIX_TIMESTAMP", 1, col(1))->type), "BIGINT");
    ck_assert_int_eq(eval0(fn("UNIX_TIMESTAMP", 2, lit_str("1970-01-02"), lit_str("yyyy-MM-dd"))).i,
                     86400);
    ck_assert_int_eq(eval0(fn("UNIX_TIMESTAMP", 1, lit_str("1970-xx-01 00:00:00"))).i, INT64_MIN);
    ck_assert_str_eq(eval_text(fn("FROM_UNIXTIME", 1, lit_bigint(-86401))), "1969-12-30 23:59:59");
    ck_assert_str_eq(eval_text(fn("FROM_UNIXTIME", 2, lit_int(0), lit_typed_null(TYPE_VARCHAR))),
                     "NULL");
    Expr *date = fn("TO_DATE", 2, lit_str("2024/02/30"), lit_str("yyyy/MM/dd"));
    ck_assert_str_eq(type_text(date->type), "DATE");
    ck_assert_str_eq(eval_text(date), "NULL"); /* no February 30th */
    ck_assert_str_eq(eval_text(fn("TO_DATE", 1, lit_str("1900-03-01"))), "1900-03-01");
}
END_TEST

static Suite *expr_suite(void)
{
    Suite *suite = suite_create("expr");
    TCase *types = tcase_create("types");
    tcase_add_checked_fixture(types, setup, teardown);
    tcase_add_test(types, test_comparison_types);
    tcase_add_test(types, test_arithmetic_types);
    tcase_add_test(types, test_conditional_types);
    tcase_add_test(types, test_function_types);
    tcase_add_test(types, test_validation_errors);
    suite_add_tcase(suite, types);

    TCase *print = tcase_create("print");
    tcase_add_checked_fixture(print, setup, teardown);
    tcase_add_test(print, test_print_prefix_and_infix);
    tcase_add_test(print, test_print_literals);
    tcase_add_test(print, test_print_in);
    suite_add_tcase(suite, print);

    TCase *analysis = tcase_create("analysis");
    tcase_add_checked_fixture(analysis, setup, teardown);
    tcase_add_test(analysis, test_analyses);
    tcase_add_test(analysis, test_null_rejecting);
    suite_add_tcase(suite, analysis);

    TCase *evaluation = tcase_create("evaluation");
    tcase_add_checked_fixture(evaluation, setup, teardown);
    tcase_add_test(evaluation, test_three_valued_logic);
    tcase_add_test(evaluation, test_predicates_over_rows);
    tcase_add_test(evaluation, test_integer_arithmetic);
    tcase_add_test(evaluation, test_double_arithmetic);
    tcase_add_test(evaluation, test_decimal_arithmetic);
    tcase_add_test(evaluation, test_cast_matrix);
    tcase_add_test(evaluation, test_like);
    tcase_add_test(evaluation, test_string_functions);
    tcase_add_test(evaluation, test_date_functions);
    tcase_add_test(evaluation, test_timestamp_diff_and_add);
    tcase_add_test(evaluation, test_double_math_functions);
    tcase_add_test(evaluation, test_more_string_and_time_functions);
    suite_add_tcase(suite, evaluation);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(expr_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
