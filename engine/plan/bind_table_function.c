/*
 * bind_table_function.c - a join whose right side is a table function
 * (bind_internal.h: bind_correlate): `t CROSS JOIN UNNEST(t.arr) AS u(x)`,
 * `t, UNNEST(...)`, `t LEFT JOIN UNNEST(...) ON TRUE`, and the same with
 * `LATERAL TABLE(f(args)) AS b(c1, c2)` of a user-defined C table function.
 *
 * The function's arguments are bound over the left side's columns (they are
 * correlated: evaluated per left row). Its fields: UNNEST of an ARRAY or
 * MULTISET of T gives one field f0 of T, of a ROW type the row's fields
 * (named as in the row), of a MAP f0 (key) and f1 (value), as Flink's
 * $UNNEST_ROWS$1; a C table function gives its declared result fields.
 * Column aliases rename them in the query's scope only; the plan keeps the
 * function's names (Flink's Calc above renames: f0 AS s). INNER joins take
 * any ON condition (a filter above); LEFT only ON TRUE, as Flink (its
 * "LEFT JOIN with a table function" takes no other); RIGHT and FULL are
 * refused. Alone in FROM, a table function is the Correlate over Calcite's
 * one-row Values(ZERO), which a projection above drops.
 */
#include <string.h>

#include "engine/plan/bind_internal.h"
#include "engine/udf/udf.h"

typedef struct FunctionFields {
    const char **names;
    DataType *types;
    uint32_t count;
} FunctionFields;

static int bind_fields_alloc(Binder *binder, FunctionFields *fields, uint32_t count)
{
    fields->names = arena_calloc(binder->arena, count + 1, sizeof(char *));
    fields->types = arena_calloc(binder->arena, count + 1, sizeof(DataType));
    fields->count = count;
    if (!fields->names || !fields->types)
        return bind_error(binder, JOINERY_ERROR_NO_MEMORY, (SourcePosition){0}, "out of memory");
    return JOINERY_OK;
}

/* The element's fields (`extra` more allocated after them, counted in fields->count). */
static int bind_unnest_element_fields(Binder *binder, const AstExpr *call, DataType type,
                                      uint32_t extra, FunctionFields *fields)
{
    if (type.id == TYPE_MAP) {
        int status = bind_fields_alloc(binder, fields, 2 + extra);
        if (status != JOINERY_OK)
            return status;
        fields->names[0] = "f0";
        fields->names[1] = "f1";
        fields->types[0] = type_map_key(type);
        fields->types[1] = type_map_value(type);
        fields->types[0].nullable = true;
        fields->types[1].nullable = true;
        return JOINERY_OK;
    }
    if (type.id != TYPE_ARRAY && type.id != TYPE_MULTISET) {
        char text[96];
        return bind_error(binder, JOINERY_ERROR_VALIDATE, call->position,
                          "UNNEST takes an ARRAY, MULTISET or MAP, not %s",
                          type_format(type, text, sizeof text));
    }
    DataType element = type_element(type);
    if (element.id == TYPE_ROW) {
        uint32_t count = type_field_count(element);
        int status = bind_fields_alloc(binder, fields, count + extra);
        for (uint32_t i = 0; status == JOINERY_OK && i < count; i++) {
            fields->names[i] = type_field_name(element, i);
            fields->types[i] = type_field(element, i);
            fields->types[i].nullable = true;
        }
        return status;
    }
    int status = bind_fields_alloc(binder, fields, 1 + extra);
    if (status != JOINERY_OK)
        return status;
    fields->names[0] = "f0";
    fields->types[0] = element;
    fields->types[0].nullable = true;
    return JOINERY_OK;
}

/* The fields UNNEST of a value of `type` gives, then ORDINALITY WITH ORDINALITY. */
static int bind_unnest_fields(Binder *binder, const AstExpr *call, DataType type,
                              bool with_ordinality, FunctionFields *fields)
{
    int status = bind_unnest_element_fields(binder, call, type, with_ordinality ? 1 : 0, fields);
    if (status != JOINERY_OK || !with_ordinality)
        return status;
    fields->names[fields->count - 1] = "ORDINALITY";
    fields->types[fields->count - 1] = type_make(TYPE_INT, false);
    return JOINERY_OK;
}

static int bind_udtf_fields(Binder *binder, const AstExpr *call, Expr **args, uint32_t count,
                            const UdfFunction **function, FunctionFields *fields)
{
    const char *name = call->function.name;
    int status = bind_find_udf(binder, name, call->position, function);
    if (status != JOINERY_OK)
        return status;
    if (!*function)
        return bind_error(binder, JOINERY_ERROR_VALIDATE, call->position,
                          "No table function named '%s': create it with CREATE FUNCTION %s AS "
                          "'symbol' LANGUAGE C USING JAR '/path/to/library.so'",
                          name, name);
    if (!(*function)->table)
        return bind_error(binder, JOINERY_ERROR_VALIDATE, call->position,
                          "Function '%s' is a scalar function, not a table function: call it "
                          "outside LATERAL TABLE(...)",
                          (*function)->name);
    status = bind_udf_arguments(binder, *function, args, count, call->position);
    if (status == JOINERY_OK)
        status = bind_fields_alloc(binder, fields, (*function)->result_count);
    for (uint32_t i = 0; status == JOINERY_OK && i < fields->count; i++) {
        fields->names[i] = (*function)->result_names[i];
        fields->types[i] = (*function)->result_types[i];
    }
    return status;
}

/* A printing-only part of UNNEST's AST (plan.h: PlanUnnestPart), a copy of the call's
   attributes, over `input`. */
static PlanNode *bind_unnest_part(Binder *binder, const PlanNode *call, PlanUnnestPart part,
                                  PlanNode *input, uint32_t field_count)
{
    PlanNode *node =
        bind_new_node(binder, PLAN_LOGICAL_TABLE_FUNCTION_CALL, input ? 1 : 0, field_count);
    if (!node)
        return NULL;
    node->correlate = call->correlate;
    node->correlate.unnest_part = part;
    if (input)
        node->inputs[0] = input;
    return node;
}

/*
 * Below UNNEST's Uncollect (`call`): LogicalProject(c=[$cor0.c]) over LogicalValues(tuples=[[{
 * 0 }]]); above it, with column aliases, LogicalProject(s=[$0], ...), made *top. Printing only.
 */
static int bind_unnest_parts(Binder *binder, PlanNode *call, const AstTableRef *right_ref,
                             PlanNode **top)
{
    PlanNode *values = bind_new_node(binder, PLAN_LOGICAL_VALUES, 0, 1);
    Expr ***rows = arena_calloc(binder->arena, 1, sizeof(Expr **));
    Expr **row = arena_calloc(binder->arena, 1, sizeof(Expr *));
    DataType integer = type_make(TYPE_INT, false);
    if (!values || !rows || !row ||
        !(row[0] = expr_make_literal(binder->arena, integer, value_int(0))))
        return bind_error(binder, JOINERY_ERROR_NO_MEMORY, right_ref->position, "out of memory");
    rows[0] = row;
    values->values.rows = rows;
    values->values.row_count = 1;
    values->fields[0].name = "ZERO";
    values->fields[0].type = integer;
    PlanNode *argument = bind_unnest_part(binder, call, PLAN_UNNEST_ARGUMENT, values, 1);
    if (!argument)
        return bind_error(binder, JOINERY_ERROR_NO_MEMORY, right_ref->position, "out of memory");
    const Expr *collection = call->correlate.arguments[0];
    argument->fields[0].type = collection->type;
    argument->fields[0].name = collection->kind == EXPR_INPUT_REF
                                   ? (char *)call->correlate.left_names[collection->input_index]
                                   : "EXPR$0";
    call->inputs[0] = argument;
    call->correlate.unnest_part = PLAN_UNNEST_UNCOLLECT;
    *top = call;
    if (!right_ref->column_aliases.count)
        return JOINERY_OK;
    PlanNode *aliases =
        bind_unnest_part(binder, call, PLAN_UNNEST_ALIASES, call, call->field_count);
    if (!aliases)
        return bind_error(binder, JOINERY_ERROR_NO_MEMORY, right_ref->position, "out of memory");
    for (uint32_t f = 0; f < call->field_count; f++) {
        aliases->fields[f] = call->fields[f];
        aliases->fields[f].name = right_ref->column_aliases.items[f];
    }
    *top = aliases;
    return JOINERY_OK;
}

static bool bind_is_true(const AstExpr *condition)
{
    return condition && condition->kind == AST_EXPR_LITERAL &&
           condition->literal.kind == AST_LITERAL_BOOLEAN && condition->literal.boolean_value;
}

/* LogicalCorrelate(left, the call of right_ref) of `type`, a filter of `condition` (INNER, not
   TRUE) above it. */
static int bind_correlate_call(Binder *binder, JoinType type, const AstTableRef *right_ref,
                               const AstExpr *condition_ast, const BoundFrom *left,
                               BoundFrom *result)
{
    const AstExpr *call = right_ref->function.call;
    /* the arguments, over the left side (no aggregates: they are per row) */
    uint32_t count = (uint32_t)call->function.args.count;
    Expr **args = arena_calloc(binder->arena, count + 1, sizeof(Expr *));
    if (!args)
        return bind_error(binder, JOINERY_ERROR_NO_MEMORY, call->position, "out of memory");
    AggregateBinding *aggregate = binder->aggregate;
    binder->aggregate = NULL;
    int status = JOINERY_OK;
    for (uint32_t i = 0; i < count && status == JOINERY_OK; i++) {
        const AstExpr *arg = call->function.args.items[i];
        if (bind_contains_aggregate(binder, arg))
            status = bind_error(binder, JOINERY_ERROR_VALIDATE, arg->position,
                                "Aggregate functions are not allowed in a table function's "
                                "arguments");
        else
            status = bind_expr(binder, &left->scope, arg, &args[i]);
    }
    binder->aggregate = aggregate;
    if (status != JOINERY_OK)
        return status;
    FunctionFields fields = {0};
    const UdfFunction *function = NULL;
    if (right_ref->function.unnest)
        status = bind_unnest_fields(binder, call, args[0]->type,
                                    right_ref->function.with_ordinality, &fields);
    else
        status = bind_udtf_fields(binder, call, args, count, &function, &fields);
    if (status != JOINERY_OK)
        return status;
    if (right_ref->column_aliases.count && right_ref->column_aliases.count != fields.count)
        return bind_error(binder, JOINERY_ERROR_VALIDATE, right_ref->position,
                          "List of column aliases must have same degree as table; the function "
                          "has %u columns, the alias list %zu",
                          fields.count, right_ref->column_aliases.count);

    const PlanNode *left_node = left->node;
    uint32_t left_count = left_node->field_count, total = left_count + fields.count;
    const char **left_names = arena_calloc(binder->arena, left_count + 1, sizeof(char *));
    bool unnest = right_ref->function.unnest;
    PlanNode *leaf =
        bind_new_node(binder, PLAN_LOGICAL_TABLE_FUNCTION_CALL, unnest ? 1 : 0, fields.count);
    PlanNode *correlate = bind_new_node(binder, PLAN_LOGICAL_TABLE_CORRELATE, 2, total);
    Scope scope = {arena_calloc(binder->arena, total + 1, sizeof(ScopeColumn)), total};
    if (!left_names || !leaf || !correlate || !scope.columns)
        return bind_error(binder, JOINERY_ERROR_NO_MEMORY, call->position, "out of memory");
    for (uint32_t i = 0; i < left_count; i++)
        left_names[i] = left_node->fields[i].name;
    PlanNode *nodes[2] = {leaf, correlate};
    for (int n = 0; n < 2; n++) {
        nodes[n]->correlate.join_type = type;
        nodes[n]->correlate.function = function;
        nodes[n]->correlate.arguments = args;
        nodes[n]->correlate.argument_count = count;
        nodes[n]->correlate.left_names = left_names;
        nodes[n]->correlate.left_count = left_count;
        nodes[n]->correlate.with_ordinality = right_ref->function.with_ordinality;
    }
    memcpy(correlate->fields, left_node->fields, left_count * sizeof(PlanField));
    for (uint32_t i = 0; i < fields.count; i++) {
        PlanField field = {0};
        field.name = (char *)fields.names[i];
        field.type = fields.types[i];
        field.type.time_attribute = TIME_ATTRIBUTE_NONE;
        leaf->fields[i] = field;
        correlate->fields[left_count + i] = field;
    }
    plan_uniquify_names(binder->arena, correlate->fields, total);
    correlate->inputs[0] = left->node;
    correlate->inputs[1] = leaf;
    if (unnest) {
        status = bind_unnest_parts(binder, leaf, right_ref, &correlate->inputs[1]);
        if (status != JOINERY_OK)
            return status;
    }
    memcpy(scope.columns, left->scope.columns, left->scope.count * sizeof(ScopeColumn));
    for (uint32_t i = 0; i < fields.count; i++) {
        ScopeColumn *column = &scope.columns[left_count + i];
        column->qualifier = right_ref->alias;
        column->name =
            right_ref->column_aliases.count ? right_ref->column_aliases.items[i] : fields.names[i];
        column->type = fields.types[i];
    }
    PlanNode *top = correlate;
    if (condition_ast && !bind_is_true(condition_ast)) {
        Expr *condition = NULL;
        binder->aggregate = NULL;
        status = bind_expr(binder, &scope, condition_ast, &condition);
        binder->aggregate = aggregate;
        if (status != JOINERY_OK)
            return status;
        if (condition->type.id != TYPE_BOOLEAN)
            return bind_error(binder, JOINERY_ERROR_VALIDATE, condition_ast->position,
                              "ON condition must be a boolean expression");
        top = bind_filter(binder, correlate, condition);
        if (!top)
            return binder->diag->status;
    }
    result->node = top;
    result->scope = scope;
    result->hint_name = NULL;
    result->alias = NULL;
    result->table = NULL;
    return JOINERY_OK;
}

int bind_correlate(Binder *binder, const AstTableRef *ref, const BoundFrom *left, BoundFrom *result)
{
    JoinType type = JOIN_TYPE_INNER;
    switch (ref->join.kind) {
    case AST_JOIN_INNER:
    case AST_JOIN_CROSS:
        break;
    case AST_JOIN_LEFT:
        type = JOIN_TYPE_LEFT;
        if (!bind_is_true(ref->join.condition))
            return bind_error(binder, JOINERY_ERROR_UNSUPPORTED,
                              ref->join.condition ? ref->join.condition->position
                                                  : ref->join.keyword_position,
                              "LEFT JOIN with a table function supports only ON TRUE; put "
                              "other conditions in WHERE");
        break;
    default:
        return bind_error(binder, JOINERY_ERROR_UNSUPPORTED, ref->join.keyword_position,
                          "%s JOIN with a table function is not supported (only INNER, CROSS "
                          "and LEFT ... ON TRUE)",
                          ref->join.kind == AST_JOIN_RIGHT ? "RIGHT" : "FULL");
    }
    return bind_correlate_call(binder, type, ref->join.right, ref->join.condition, left, result);
}

int bind_table_function_alone(Binder *binder, const AstTableRef *ref, BoundFrom *result)
{
    /* Calcite's one-row Values(ZERO) on the left, projected away above */
    PlanNode *values = bind_new_node(binder, PLAN_LOGICAL_VALUES, 0, 1);
    Expr ***rows = arena_calloc(binder->arena, 1, sizeof(Expr **));
    Expr **row = arena_calloc(binder->arena, 1, sizeof(Expr *));
    ScopeColumn *zero = arena_calloc(binder->arena, 1, sizeof(ScopeColumn));
    DataType integer = type_make(TYPE_INT, false);
    if (!values || !rows || !row || !zero ||
        !(row[0] = expr_make_literal(binder->arena, integer, value_int(0))))
        return bind_error(binder, JOINERY_ERROR_NO_MEMORY, ref->position, "out of memory");
    rows[0] = row;
    values->values.rows = rows;
    values->values.row_count = 1;
    values->fields[0].name = "ZERO";
    values->fields[0].type = integer;
    zero->qualifier = NULL;
    zero->name = "$ZERO"; /* not a name a query can write */
    zero->type = integer;
    BoundFrom left = {.node = values, .scope = {zero, 1}};
    BoundFrom correlated;
    int status = bind_correlate_call(binder, JOIN_TYPE_INNER, ref, NULL, &left, &correlated);
    if (status != JOINERY_OK)
        return status;
    PlanNode *node = correlated.node;
    uint32_t count = node->field_count - 1;
    Expr **exprs = arena_calloc(binder->arena, count + 1, sizeof(Expr *));
    const char **names = arena_calloc(binder->arena, count + 1, sizeof(char *));
    if (!exprs || !names)
        return bind_error(binder, JOINERY_ERROR_NO_MEMORY, ref->position, "out of memory");
    for (uint32_t i = 0; i < count; i++) {
        exprs[i] = expr_make_input_ref(binder->arena, i + 1, node->fields[i + 1].type);
        names[i] = correlated.scope.columns[i + 1].name;
        if (!exprs[i])
            return bind_error(binder, JOINERY_ERROR_NO_MEMORY, ref->position, "out of memory");
    }
    PlanNode *project = bind_project(binder, node, exprs, names, count);
    if (!project)
        return binder->diag->status;
    result->node = project;
    result->scope.columns = correlated.scope.columns + 1;
    result->scope.count = count;
    result->hint_name = NULL;
    result->alias = ref->alias;
    result->table = NULL;
    return JOINERY_OK;
}
