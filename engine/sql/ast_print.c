/*
 * ast_print.c - deterministic S-expression dump of a statement (see ast_print.h).
 *
 * Invariants: the output depends only on the tree's contents (never on
 * pointers or positions), one line, atoms separated by single spaces, every
 * node in parentheses except literals, column references and stars.
 * Strings are printed in single quotes with ' doubled.
 */
#include "engine/sql/ast_print.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* The output buffer and whether any append has failed (out of memory). */
typedef struct Printer {
    StrBuf *buffer;
    bool failed;
} Printer;

static void printer_text(Printer *out, const char *text)
{
    if (strbuf_append_cstr(out->buffer, text ? text : "") != 0)
        out->failed = true;
}

static void printer_char(Printer *out, char c)
{
    if (strbuf_append_char(out->buffer, c) != 0)
        out->failed = true;
}

static void printer_format(Printer *out, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

static void printer_format(Printer *out, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    if (strbuf_vprintf(out->buffer, format, args) != 0)
        out->failed = true;
    va_end(args);
}

static void print_expr(const AstExpr *expr, Printer *out);
static void print_query(const AstQuery *query, Printer *out);
static void print_statement(const AstStatement *statement, Printer *out);

static void print_quoted_length(const char *text, size_t length, Printer *out)
{
    printer_char(out, '\'');
    for (size_t i = 0; text && i < length; i++) {
        if (text[i] == '\'')
            printer_char(out, '\'');
        printer_char(out, text[i]);
    }
    printer_char(out, '\'');
}

static void print_quoted(const char *text, Printer *out)
{
    print_quoted_length(text, text ? strlen(text) : 0, out);
}

static void print_names(const AstList *names, const char *separator, Printer *out)
{
    for (size_t i = 0; i < names->count; i++) {
        if (i > 0)
            printer_text(out, separator);
        printer_text(out, names->items[i]);
    }
}

/* " (label a b c)" when the list is not empty. */
static void print_name_group(const char *label, const AstList *names, Printer *out)
{
    if (names->count == 0)
        return;
    printer_format(out, " (%s ", label);
    print_names(names, " ", out);
    printer_char(out, ')');
}

static void print_type(DataType type, Printer *out)
{
    char buffer[200];
    printer_text(out, type_format(type, buffer, sizeof buffer));
}

static const char *operator_name(AstOperator op)
{
    switch (op) {
    case AST_OP_PLUS:
        return "+";
    case AST_OP_MINUS:
        return "-";
    case AST_OP_MULTIPLY:
        return "*";
    case AST_OP_DIVIDE:
        return "/";
    case AST_OP_MODULO:
        return "%";
    case AST_OP_EQUAL:
        return "=";
    case AST_OP_NOT_EQUAL:
        return "<>";
    case AST_OP_LESS:
        return "<";
    case AST_OP_LESS_EQUAL:
        return "<=";
    case AST_OP_GREATER:
        return ">";
    case AST_OP_GREATER_EQUAL:
        return ">=";
    case AST_OP_AND:
        return "AND";
    case AST_OP_OR:
        return "OR";
    case AST_OP_NOT:
        return "NOT";
    case AST_OP_NEGATE:
        return "-";
    case AST_OP_CONCAT:
        return "||";
    }
    return "?";
}

static const char *interval_unit_name(AstIntervalUnit unit)
{
    switch (unit) {
    case AST_INTERVAL_YEAR:
        return "YEAR";
    case AST_INTERVAL_MONTH:
        return "MONTH";
    case AST_INTERVAL_DAY:
        return "DAY";
    case AST_INTERVAL_HOUR:
        return "HOUR";
    case AST_INTERVAL_MINUTE:
        return "MINUTE";
    case AST_INTERVAL_SECOND:
        return "SECOND";
    }
    return "?";
}

static void print_expr_list(const AstList *list, Printer *out)
{
    for (size_t i = 0; i < list->count; i++) {
        printer_char(out, ' ');
        print_expr(list->items[i], out);
    }
}

static void print_literal(const AstExpr *expr, Printer *out)
{
    switch (expr->literal.kind) {
    case AST_LITERAL_NULL:
        printer_text(out, "NULL");
        break;
    case AST_LITERAL_BOOLEAN:
        printer_text(out, expr->literal.boolean_value ? "TRUE" : "FALSE");
        break;
    case AST_LITERAL_INTEGER:
    case AST_LITERAL_DECIMAL:
    case AST_LITERAL_DOUBLE:
        printer_text(out, expr->literal.text);
        if (expr->literal.integer_overflow)
            printer_text(out, "!overflow");
        break;
    case AST_LITERAL_STRING:
        print_quoted_length(expr->literal.text, expr->literal.text_length, out);
        break;
    case AST_LITERAL_DATE:
        printer_text(out, "(date ");
        print_quoted(expr->literal.text, out);
        printer_char(out, ')');
        break;
    case AST_LITERAL_TIME:
        printer_text(out, "(time ");
        print_quoted(expr->literal.text, out);
        printer_char(out, ')');
        break;
    case AST_LITERAL_BINARY:
        printer_text(out, "(binary ");
        print_quoted(expr->literal.text, out);
        printer_char(out, ')');
        break;
    case AST_LITERAL_TIMESTAMP:
        printer_text(out, "(timestamp ");
        print_quoted(expr->literal.text, out);
        printer_char(out, ')');
        break;
    }
}

static void print_expr(const AstExpr *expr, Printer *out)
{
    if (!expr) {
        printer_text(out, "<null>");
        return;
    }
    switch (expr->kind) {
    case AST_EXPR_LITERAL:
        print_literal(expr, out);
        break;
    case AST_EXPR_COLUMN:
        if (expr->column.qualifier)
            printer_format(out, "%s.", expr->column.qualifier);
        printer_text(out, expr->column.name);
        break;
    case AST_EXPR_STAR:
        if (expr->star.qualifier)
            printer_format(out, "%s.", expr->star.qualifier);
        printer_char(out, '*');
        break;
    case AST_EXPR_UNARY:
        printer_format(out, "(%s ", operator_name(expr->unary.op));
        print_expr(expr->unary.operand, out);
        printer_char(out, ')');
        break;
    case AST_EXPR_BINARY:
        printer_format(out, "(%s ", operator_name(expr->binary.op));
        print_expr(expr->binary.left, out);
        printer_char(out, ' ');
        print_expr(expr->binary.right, out);
        printer_char(out, ')');
        break;
    case AST_EXPR_FUNCTION:
        printer_format(out, "(call %s", expr->function.name);
        if (expr->function.distinct)
            printer_text(out, " distinct");
        for (size_t i = 0; i < expr->function.args.count; i++) {
            const char *arg_name =
                i < expr->function.arg_names.count ? expr->function.arg_names.items[i] : NULL;
            printer_char(out, ' ');
            if (arg_name)
                printer_format(out, "%s => ", arg_name);
            print_expr(expr->function.args.items[i], out);
        }
        if (expr->function.filter) {
            printer_text(out, " filter ");
            print_expr(expr->function.filter, out);
        }
        printer_char(out, ')');
        break;
    case AST_EXPR_CAST:
        printer_text(out, expr->cast.try_cast ? "(try_cast " : "(cast ");
        print_expr(expr->cast.operand, out);
        printer_char(out, ' ');
        print_type(expr->cast.cast_type, out);
        printer_char(out, ')');
        break;
    case AST_EXPR_CASE:
        printer_text(out, "(case");
        if (expr->case_expr.operand) {
            printer_char(out, ' ');
            print_expr(expr->case_expr.operand, out);
        }
        for (size_t i = 0; i < expr->case_expr.conditions.count; i++) {
            printer_text(out, " (when ");
            print_expr(expr->case_expr.conditions.items[i], out);
            printer_char(out, ' ');
            print_expr(expr->case_expr.results.items[i], out);
            printer_char(out, ')');
        }
        if (expr->case_expr.else_result) {
            printer_text(out, " (else ");
            print_expr(expr->case_expr.else_result, out);
            printer_char(out, ')');
        }
        printer_char(out, ')');
        break;
    case AST_EXPR_IS_NULL:
        printer_text(out, expr->is_null.negated ? "(is-not-null " : "(is-null ");
        print_expr(expr->is_null.operand, out);
        printer_char(out, ')');
        break;
    case AST_EXPR_IS_DISTINCT:
        printer_text(out, expr->is_distinct.negated ? "(is-not-distinct " : "(is-distinct ");
        print_expr(expr->is_distinct.left, out);
        printer_char(out, ' ');
        print_expr(expr->is_distinct.right, out);
        printer_char(out, ')');
        break;
    case AST_EXPR_IS_BOOLEAN: {
        const char *test = expr->is_boolean.test == AST_IS_TRUE    ? "true"
                           : expr->is_boolean.test == AST_IS_FALSE ? "false"
                                                                   : "unknown";
        printer_format(out, "(is-%s%s ", expr->is_boolean.negated ? "not-" : "", test);
        print_expr(expr->is_boolean.operand, out);
        printer_char(out, ')');
        break;
    }
    case AST_EXPR_BETWEEN:
        printer_format(out, "(%sbetween%s ", expr->between.negated ? "not-" : "",
                       expr->between.symmetric ? "-symmetric" : "");
        print_expr(expr->between.operand, out);
        printer_char(out, ' ');
        print_expr(expr->between.low, out);
        printer_char(out, ' ');
        print_expr(expr->between.high, out);
        printer_char(out, ')');
        break;
    case AST_EXPR_IN_LIST:
        printer_text(out, expr->in_list.negated ? "(not-in " : "(in ");
        print_expr(expr->in_list.operand, out);
        print_expr_list(&expr->in_list.values, out);
        printer_char(out, ')');
        break;
    case AST_EXPR_LIKE:
        printer_text(out, expr->like.negated ? "(not-like " : "(like ");
        print_expr(expr->like.operand, out);
        printer_char(out, ' ');
        print_expr(expr->like.pattern, out);
        if (expr->like.escape) {
            printer_text(out, " (escape ");
            print_expr(expr->like.escape, out);
            printer_char(out, ')');
        }
        printer_char(out, ')');
        break;
    case AST_EXPR_INTERVAL:
        printer_text(out, expr->interval.negative ? "(interval -" : "(interval ");
        print_quoted(expr->interval.text, out);
        printer_format(out, " %s", interval_unit_name(expr->interval.unit));
        if (expr->interval.to_unit != expr->interval.unit)
            printer_format(out, " TO %s", interval_unit_name(expr->interval.to_unit));
        printer_char(out, ')');
        break;
    case AST_EXPR_SUBQUERY:
        printer_text(out, expr->subquery.exists ? "(exists " : "(subquery ");
        print_query(expr->subquery.query, out);
        printer_char(out, ')');
        break;
    case AST_EXPR_TABLE_ARGUMENT:
        printer_text(out, "(table ");
        print_names(&expr->table_argument.name_parts, ".", out);
        if (expr->table_argument.partition_by.count) {
            printer_text(out, " partition by ");
            print_names(&expr->table_argument.partition_by, ", ", out);
        }
        printer_char(out, ')');
        break;
    }
}

static void print_options(const AstList *options, Printer *out)
{
    for (size_t i = 0; i < options->count; i++) {
        const AstOption *option = options->items[i];
        printer_text(out, " (");
        print_quoted(option->key, out);
        printer_char(out, ' ');
        print_quoted(option->value, out);
        printer_char(out, ')');
    }
}

static void print_hints(const AstList *hints, Printer *out)
{
    for (size_t i = 0; i < hints->count; i++) {
        const AstHint *hint = hints->items[i];
        printer_format(out, " (hint %s", hint->name);
        print_options(&hint->options, out);
        for (size_t j = 0; j < hint->identifiers.count; j++)
            printer_format(out, " %s", (const char *)hint->identifiers.items[j]);
        printer_char(out, ')');
    }
}

static const char *join_kind_name(AstJoinKind kind)
{
    switch (kind) {
    case AST_JOIN_INNER:
        return "inner";
    case AST_JOIN_LEFT:
        return "left";
    case AST_JOIN_RIGHT:
        return "right";
    case AST_JOIN_FULL:
        return "full";
    case AST_JOIN_CROSS:
        return "cross";
    }
    return "?";
}

static void print_table_ref(const AstTableRef *ref, Printer *out);

static void print_table_alias(const AstTableRef *ref, Printer *out)
{
    if (ref->alias)
        printer_format(out, " (as %s", ref->alias);
    else if (ref->column_aliases.count)
        printer_text(out, " (as -");
    else
        return;
    for (size_t i = 0; i < ref->column_aliases.count; i++)
        printer_format(out, " %s", (const char *)ref->column_aliases.items[i]);
    printer_char(out, ')');
}

static void print_table_ref(const AstTableRef *ref, Printer *out)
{
    if (!ref) {
        printer_text(out, "<null>");
        return;
    }
    switch (ref->kind) {
    case AST_TABLE_NAME:
        printer_text(out, "(table ");
        print_names(&ref->table.parts, ".", out);
        print_table_alias(ref, out);
        print_hints(&ref->hints, out);
        if (ref->table.system_time) {
            printer_text(out, " (system-time ");
            print_expr(ref->table.system_time, out);
            printer_char(out, ')');
        }
        printer_char(out, ')');
        break;
    case AST_TABLE_SUBQUERY:
        printer_text(out, "(derived ");
        print_query(ref->subquery.query, out);
        print_table_alias(ref, out);
        printer_char(out, ')');
        break;
    case AST_TABLE_FUNCTION:
        printer_text(out, "(table-function ");
        print_expr(ref->function.call, out);
        if (ref->function.with_ordinality)
            printer_text(out, " with-ordinality");
        print_table_alias(ref, out);
        printer_char(out, ')');
        break;
    case AST_TABLE_JOIN:
        printer_format(out, "(%s%s-join%s ", ref->join.natural ? "natural-" : "",
                       join_kind_name(ref->join.kind), ref->join.comma ? " comma" : "");
        print_table_ref(ref->join.left, out);
        printer_char(out, ' ');
        print_table_ref(ref->join.right, out);
        if (ref->join.condition) {
            printer_text(out, " (on ");
            print_expr(ref->join.condition, out);
            printer_char(out, ')');
        }
        print_name_group("using", &ref->join.using_columns, out);
        printer_char(out, ')');
        break;
    }
}

static void print_query_tail(const AstQuery *query, Printer *out)
{
    if (query->order_by.count) {
        printer_text(out, " (order-by");
        for (size_t i = 0; i < query->order_by.count; i++) {
            const AstOrderItem *item = query->order_by.items[i];
            printer_char(out, ' ');
            if (item->descending || item->nulls_first >= 0)
                printer_char(out, '(');
            print_expr(item->expr, out);
            if (item->descending)
                printer_text(out, " desc");
            if (item->nulls_first >= 0)
                printer_text(out, item->nulls_first ? " nulls-first" : " nulls-last");
            if (item->descending || item->nulls_first >= 0)
                printer_char(out, ')');
        }
        printer_char(out, ')');
    }
    if (query->limit) {
        printer_text(out, " (limit ");
        print_expr(query->limit, out);
        printer_char(out, ')');
    }
    if (query->offset) {
        printer_text(out, " (offset ");
        print_expr(query->offset, out);
        printer_char(out, ')');
    }
}

static void print_query(const AstQuery *query, Printer *out)
{
    if (!query) {
        printer_text(out, "<null>");
        return;
    }
    if (query->with_items.count) {
        printer_text(out, "(with");
        for (size_t i = 0; i < query->with_items.count; i++) {
            const AstWithItem *item = query->with_items.items[i];
            printer_format(out, " (%s", item->name);
            print_name_group("columns", &item->column_names, out);
            printer_char(out, ' ');
            print_query(item->query, out);
            printer_char(out, ')');
        }
        printer_char(out, ' ');
    }
    switch (query->kind) {
    case AST_QUERY_SELECT:
        printer_text(out, query->select.distinct ? "(select distinct" : "(select");
        print_hints(&query->select.hints, out);
        for (size_t i = 0; i < query->select.items.count; i++) {
            const AstSelectItem *item = query->select.items.items[i];
            printer_char(out, ' ');
            if (item->alias)
                printer_text(out, "(as ");
            print_expr(item->expr, out);
            if (item->alias)
                printer_format(out, " %s)", item->alias);
        }
        if (query->select.from) {
            printer_text(out, " (from ");
            print_table_ref(query->select.from, out);
            printer_char(out, ')');
        }
        if (query->select.where) {
            printer_text(out, " (where ");
            print_expr(query->select.where, out);
            printer_char(out, ')');
        }
        if (query->select.group_by.count) {
            printer_text(out, " (group-by");
            print_expr_list(&query->select.group_by, out);
            printer_char(out, ')');
        }
        if (query->select.having) {
            printer_text(out, " (having ");
            print_expr(query->select.having, out);
            printer_char(out, ')');
        }
        break;
    case AST_QUERY_UNION: {
        const char *name = query->set.op == AST_SET_UNION       ? "union"
                           : query->set.op == AST_SET_INTERSECT ? "intersect"
                                                                : "except";
        printer_format(out, "(%s%s ", name, query->set.all ? " all" : "");
        print_query(query->set.left, out);
        printer_char(out, ' ');
        print_query(query->set.right, out);
        break;
    }
    case AST_QUERY_VALUES:
        printer_text(out, "(values");
        for (size_t i = 0; i < query->values.rows.count; i++) {
            printer_text(out, " (row");
            print_expr_list(query->values.rows.items[i], out);
            printer_char(out, ')');
        }
        break;
    }
    print_query_tail(query, out);
    printer_char(out, ')');
    if (query->with_items.count)
        printer_char(out, ')');
}

static void print_column(const AstColumnDef *column, Printer *out)
{
    printer_format(out, " (column %s ", column->name);
    switch (column->kind) {
    case AST_COLUMN_PHYSICAL:
        print_type(column->type, out);
        break;
    case AST_COLUMN_COMPUTED:
        printer_text(out, "(computed ");
        print_expr(column->expr, out);
        printer_char(out, ')');
        break;
    case AST_COLUMN_METADATA:
        print_type(column->type, out);
        printer_text(out, " (metadata");
        if (column->metadata_key) {
            printer_char(out, ' ');
            print_quoted(column->metadata_key, out);
        }
        if (column->is_virtual)
            printer_text(out, " virtual");
        printer_char(out, ')');
        break;
    }
    if (column->primary_key)
        printer_text(out, " primary-key");
    if (column->comment) {
        printer_text(out, " (comment ");
        print_quoted(column->comment, out);
        printer_char(out, ')');
    }
    printer_char(out, ')');
}

static void print_create_table(const AstCreateTable *table, Printer *out)
{
    printer_text(out, "(create-table");
    if (table->temporary)
        printer_text(out, " temporary");
    if (table->if_not_exists)
        printer_text(out, " if-not-exists");
    printer_char(out, ' ');
    print_names(&table->name_parts, ".", out);
    for (size_t i = 0; i < table->columns.count; i++)
        print_column(table->columns.items[i], out);
    if (table->watermark_column) {
        printer_format(out, " (watermark %s ", table->watermark_column);
        print_expr(table->watermark_expr, out);
        printer_char(out, ')');
    }
    if (table->primary_key.count) {
        printer_text(out, " (primary-key");
        for (size_t i = 0; i < table->primary_key.count; i++)
            printer_format(out, " %s", (const char *)table->primary_key.items[i]);
        printer_text(out, table->primary_key_enforced ? " enforced)" : ")");
    }
    if (table->comment) {
        printer_text(out, " (comment ");
        print_quoted(table->comment, out);
        printer_char(out, ')');
    }
    print_name_group("partitioned-by", &table->partition_by, out);
    if (table->options.count) {
        printer_text(out, " (with");
        print_options(&table->options, out);
        printer_char(out, ')');
    }
    if (table->like_table)
        printer_format(out, " (like %s)", table->like_table);
    printer_char(out, ')');
}

/* "(NAME [qualifier] [not-like|like|ilike 'p'])" for the SHOW listings. */
static void print_show(const AstStatement *statement, const char *name, Printer *out)
{
    printer_format(out, "(%s", name);
    if (statement->show.name_parts.count) {
        printer_char(out, ' ');
        print_names(&statement->show.name_parts, ".", out);
    }
    const AstShowLike *like = &statement->show.like;
    if (like->pattern) {
        printer_format(out, " %s%s ", like->negated ? "not-" : "",
                       like->ignore_case ? "ilike" : "like");
        print_quoted(like->pattern, out);
    }
    printer_char(out, ')');
}

static void print_statement(const AstStatement *statement, Printer *out)
{
    switch (statement->kind) {
    case AST_STMT_QUERY:
        print_query(statement->query, out);
        break;
    case AST_STMT_INSERT:
        printer_text(out, statement->insert.overwrite ? "(insert-overwrite " : "(insert ");
        print_names(&statement->insert.table_parts, ".", out);
        print_name_group("columns", &statement->insert.columns, out);
        printer_char(out, ' ');
        print_query(statement->insert.query, out);
        printer_char(out, ')');
        break;
    case AST_STMT_CREATE_TABLE:
        print_create_table(&statement->create_table, out);
        break;
    case AST_STMT_CREATE_VIEW: {
        const AstCreateView *view = &statement->create_view;
        printer_text(out, "(create-view");
        if (view->temporary)
            printer_text(out, " temporary");
        if (view->if_not_exists)
            printer_text(out, " if-not-exists");
        printer_char(out, ' ');
        print_names(&view->name_parts, ".", out);
        print_name_group("columns", &view->column_names, out);
        printer_char(out, ' ');
        print_query(view->query, out);
        printer_char(out, ')');
        break;
    }
    case AST_STMT_DROP:
        printer_format(out, "(drop-%s%s%s%s ",
                       statement->drop.is_function ? "function"
                       : statement->drop.is_view   ? "view"
                                                   : "table",
                       statement->drop.temporary ? " temporary" : "",
                       statement->drop.system ? " system" : "",
                       statement->drop.if_exists ? " if-exists" : "");
        print_names(&statement->drop.name_parts, ".", out);
        printer_char(out, ')');
        break;
    case AST_STMT_CREATE_FUNCTION: {
        const AstCreateFunction *function = &statement->create_function;
        printer_format(out, "(create-function%s%s%s ", function->temporary ? " temporary" : "",
                       function->system ? " system" : "",
                       function->if_not_exists ? " if-not-exists" : "");
        print_names(&function->name_parts, ".", out);
        printer_char(out, ' ');
        print_quoted(function->identifier, out);
        if (function->language)
            printer_format(out, " language %s", function->language);
        if (function->library) {
            printer_text(out, " using-jar ");
            print_quoted(function->library, out);
        }
        printer_char(out, ')');
        break;
    }
    case AST_STMT_SET:
        printer_text(out, "(set");
        if (statement->set.key) {
            printer_char(out, ' ');
            print_quoted(statement->set.key, out);
            printer_char(out, ' ');
            print_quoted(statement->set.value, out);
        }
        printer_char(out, ')');
        break;
    case AST_STMT_RESET:
        printer_text(out, "(reset");
        if (statement->reset.key) {
            printer_char(out, ' ');
            print_quoted(statement->reset.key, out);
        }
        printer_char(out, ')');
        break;
    case AST_STMT_SHOW_TABLES:
        print_show(statement, "show-tables", out);
        break;
    case AST_STMT_SHOW_VIEWS:
        print_show(statement, "show-views", out);
        break;
    case AST_STMT_SHOW_COLUMNS:
        print_show(statement, "show-columns", out);
        break;
    case AST_STMT_SHOW_CURRENT_CATALOG:
        printer_text(out, "(show-current-catalog)");
        break;
    case AST_STMT_SHOW_CURRENT_DATABASE:
        printer_text(out, "(show-current-database)");
        break;
    case AST_STMT_SHOW_MODULES:
        printer_text(out, statement->show.full ? "(show-full-modules)" : "(show-modules)");
        break;
    case AST_STMT_SHOW_JARS:
        printer_text(out, "(show-jars)");
        break;
    case AST_STMT_DESCRIBE_JOB:
        printer_format(out, "(describe-job '%s')", statement->job.id);
        break;
    case AST_STMT_STOP_JOB:
        printer_format(out, "(stop-job '%s'%s%s)", statement->job.id,
                       statement->job.with_savepoint ? " savepoint" : "",
                       statement->job.with_drain ? " drain" : "");
        break;
    case AST_STMT_SHOW_CREATE:
        printer_format(out, "(show-create-%s ", statement->show_create.is_view ? "view" : "table");
        print_names(&statement->show_create.name_parts, ".", out);
        printer_char(out, ')');
        break;
    case AST_STMT_SHOW_FUNCTIONS:
        print_show(statement, statement->show.user ? "show-user-functions" : "show-functions", out);
        break;
    case AST_STMT_SHOW_CATALOGS:
        print_show(statement, "show-catalogs", out);
        break;
    case AST_STMT_SHOW_DATABASES:
        print_show(statement, "show-databases", out);
        break;
    case AST_STMT_SHOW_JOBS:
        printer_text(out, "(show-jobs)");
        break;
    case AST_STMT_SHOW_JOB_METRICS:
        printer_text(out, "(show-job-metrics)");
        break;
    case AST_STMT_DESCRIBE:
        printer_text(out, "(describe ");
        print_names(&statement->describe.name_parts, ".", out);
        printer_char(out, ')');
        break;
    case AST_STMT_EXPLAIN: {
        static const struct {
            unsigned bit;
            const char *name;
        } DETAILS[] = {
            {AST_EXPLAIN_ESTIMATED_COST, "estimated-cost"},
            {AST_EXPLAIN_CHANGELOG_MODE, "changelog-mode"},
            {AST_EXPLAIN_PLAN_ADVICE, "plan-advice"},
            {AST_EXPLAIN_JSON_EXECUTION_PLAN, "json-execution-plan"},
            {AST_EXPLAIN_FORMAT_DOT, "format-dot"},
        };
        printer_text(out, "(explain");
        for (size_t i = 0; i < sizeof DETAILS / sizeof DETAILS[0]; i++)
            if (statement->explain.details & DETAILS[i].bit)
                printer_format(out, " %s", DETAILS[i].name);
        printer_char(out, ' ');
        if (statement->explain.statement)
            print_statement(statement->explain.statement, out);
        printer_char(out, ')');
        break;
    }
    case AST_STMT_STATEMENT_SET:
        printer_text(out, "(statement-set");
        for (size_t i = 0; i < statement->statement_set.inserts.count; i++) {
            printer_char(out, ' ');
            print_statement(statement->statement_set.inserts.items[i], out);
        }
        printer_char(out, ')');
        break;
    case AST_STMT_BEGIN_STATEMENT_SET:
        printer_text(out, "(begin-statement-set)");
        break;
    case AST_STMT_END_STATEMENT_SET:
        printer_text(out, "(end-statement-set)");
        break;
    case AST_STMT_HELP:
        printer_text(out, "(help)");
        break;
    case AST_STMT_QUIT:
        printer_text(out, "(quit)");
        break;
    case AST_STMT_ANALYZE:
        printer_text(out, "(analyze ");
        print_names(&statement->analyze.name_parts, ".", out);
        if (statement->analyze.all_columns)
            printer_text(out, " all-columns");
        printer_char(out, ')');
        break;
    case AST_STMT_USE:
        printer_text(out, statement->use.catalog ? "(use-catalog " : "(use ");
        print_names(&statement->use.name_parts, ".", out);
        printer_char(out, ')');
        break;
    }
}

int ast_print_statement(const AstStatement *statement, StrBuf *out)
{
    if (!statement || !out)
        return -1;
    Printer printer = {out, false};
    print_statement(statement, &printer);
    return printer.failed ? -1 : 0;
}

int ast_print_expression(const AstExpr *expr, StrBuf *out)
{
    if (!expr || !out)
        return -1;
    Printer printer = {out, false};
    print_expr(expr, &printer);
    return printer.failed ? -1 : 0;
}
