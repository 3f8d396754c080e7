/*
 * bind_window.c - the window table functions in FROM (Flink's window
 * TVFs): TABLE(TUMBLE(TABLE t, DESCRIPTOR(rt), size [, offset])),
 * HOP(data, timecol, slide, size [, offset]), CUMULATE(data, timecol,
 * step, size [, offset]) and SESSION(TABLE t [PARTITION BY k], timecol,
 * gap), positional or named (DATA =>, TIMECOL =>, SIZE =>, SLIDE =>,
 * STEP =>, GAP =>, OFFSET =>).
 *
 * Result: a LogicalTableFunctionScan over the bound data (a table, view,
 * CTE or subquery) whose fields are the data's, then window_start and
 * window_end (TIMESTAMP(3)) and window_time (the time attribute's type:
 * TIMESTAMP(3) or TIMESTAMP_LTZ(3), *ROWTIME*), as Flink's
 * SqlWindowTableFunction types them. The time column must be a rowtime
 * attribute of the data; a processing-time one is refused (not built).
 */
#include <string.h>
#include <strings.h>

#include "engine/plan/bind_internal.h"
#include "engine/plan/interval_bounds.h"

enum { WINDOW_MAX_PARAMETERS = 5 };

/* The parameters of each function, in positional order. */
typedef struct WindowFunction {
    const char *name;
    WindowKind kind;
    const char *parameters[WINDOW_MAX_PARAMETERS];
    uint32_t parameter_count;
    uint32_t required; /* the first `required` parameters must be given */
} WindowFunction;

static const WindowFunction WINDOW_FUNCTIONS[] = {
    {"TUMBLE", WINDOW_TUMBLE, {"DATA", "TIMECOL", "SIZE", "OFFSET"}, 4, 3},
    {"HOP", WINDOW_HOP, {"DATA", "TIMECOL", "SLIDE", "SIZE", "OFFSET"}, 5, 4},
    {"CUMULATE", WINDOW_CUMULATE, {"DATA", "TIMECOL", "STEP", "SIZE", "OFFSET"}, 5, 4},
    {"SESSION", WINDOW_SESSION, {"DATA", "TIMECOL", "GAP"}, 3, 3},
};

bool bind_is_window_function(const char *name)
{
    for (size_t i = 0; i < sizeof WINDOW_FUNCTIONS / sizeof WINDOW_FUNCTIONS[0]; i++)
        if (strcasecmp(name, WINDOW_FUNCTIONS[i].name) == 0)
            return true;
    return false;
}

static const WindowFunction *window_function(const char *name)
{
    for (size_t i = 0; i < sizeof WINDOW_FUNCTIONS / sizeof WINDOW_FUNCTIONS[0]; i++)
        if (strcasecmp(name, WINDOW_FUNCTIONS[i].name) == 0)
            return &WINDOW_FUNCTIONS[i];
    return NULL;
}

/* Puts the call's arguments in parameter order; NULL for those not given. */
static int window_arguments(Binder *binder, const AstExpr *call, const WindowFunction *function,
                            const AstExpr **arguments)
{
    const AstList *args = &call->function.args;
    if (args->count > function->parameter_count)
        return bind_error(binder, JOINERY_ERROR_VALIDATE, call->position,
                          "Invalid number of arguments to function '%s'. Was expecting %u to %u "
                          "arguments",
                          function->name, function->required, function->parameter_count);
    for (size_t i = 0; i < args->count; i++) {
        const char *name =
            i < call->function.arg_names.count ? call->function.arg_names.items[i] : NULL;
        const AstExpr *arg = args->items[i];
        uint32_t slot = (uint32_t)i;
        if (name) {
            slot = function->parameter_count;
            for (uint32_t p = 0; p < function->parameter_count; p++)
                if (strcasecmp(name, function->parameters[p]) == 0)
                    slot = p;
            if (slot == function->parameter_count)
                return bind_error(binder, JOINERY_ERROR_VALIDATE, arg->position,
                                  "No match found for function signature %s(...): it has no "
                                  "parameter named '%s'",
                                  function->name, name);
        }
        if (arguments[slot])
            return bind_error(binder, JOINERY_ERROR_VALIDATE, arg->position,
                              "Parameter '%s' of %s is given more than once",
                              function->parameters[slot], function->name);
        arguments[slot] = arg;
    }
    for (uint32_t p = 0; p < function->required; p++)
        if (!arguments[p])
            return bind_error(binder, JOINERY_ERROR_VALIDATE, call->position,
                              "Invalid number of arguments to function '%s': parameter '%s' is "
                              "missing",
                              function->name, function->parameters[p]);
    return JOINERY_OK;
}

/* A constant DAY TO SECOND interval argument, in milliseconds (and the bound literal). */
static int window_interval(Binder *binder, const WindowFunction *function, const char *parameter,
                           const AstExpr *ast, int64_t *millis, Expr **bound)
{
    Scope empty = {0};
    int status = bind_expr(binder, &empty, ast, bound);
    if (status != JOINERY_OK)
        return status;
    const Expr *expr = *bound;
    if (expr->kind != EXPR_LITERAL || expr->type.id != TYPE_INTERVAL_DAY_TIME ||
        expr->literal.is_null)
        return bind_error(binder, JOINERY_ERROR_VALIDATE, ast->position,
                          "Parameter '%s' of %s must be a constant interval of day-time units, "
                          "e.g. INTERVAL '5' MINUTE",
                          parameter, function->name);
    *millis = expr->literal.i;
    return JOINERY_OK;
}

/* The index of a column of `node` named `name` (case-insensitive), or -1. */
static int window_find_field(const PlanNode *node, const char *name)
{
    for (uint32_t i = 0; i < node->field_count; i++)
        if (strcasecmp(node->fields[i].name, name) == 0)
            return (int)i;
    return -1;
}

/* The DATA argument: TABLE name [PARTITION BY ...] or a subquery. */
static int window_data(Binder *binder, const AstExpr *ast, PlanNode **result)
{
    if (ast->kind == AST_EXPR_TABLE_ARGUMENT)
        return bind_relation_name(binder, &ast->table_argument.name_parts, ast->position, result);
    if (ast->kind == AST_EXPR_SUBQUERY) {
        Binder inner = *binder;
        inner.aggregate = NULL;
        inner.state_ttl_hints = NULL;
        return bind_query(&inner, ast->subquery.query, result);
    }
    return bind_error(binder, JOINERY_ERROR_VALIDATE, ast->position,
                      "The first argument of a window table function must be a table: TABLE "
                      "name or a subquery");
}

int bind_window_function(Binder *binder, const AstExpr *call, PlanNode **result)
{
    const WindowFunction *function = window_function(call->function.name);
    const AstExpr *arguments[WINDOW_MAX_PARAMETERS] = {0};
    int status = window_arguments(binder, call, function, arguments);
    if (status != JOINERY_OK)
        return status;
    PlanNode *data = NULL;
    status = window_data(binder, arguments[0], &data);
    if (status != JOINERY_OK)
        return status;
    /* TIMECOL => DESCRIPTOR(column) */
    const AstExpr *descriptor = arguments[1];
    if (descriptor->kind != AST_EXPR_FUNCTION ||
        strcasecmp(descriptor->function.name, "DESCRIPTOR") != 0 ||
        descriptor->function.args.count != 1 ||
        ((const AstExpr *)descriptor->function.args.items[0])->kind != AST_EXPR_COLUMN)
        return bind_error(binder, JOINERY_ERROR_VALIDATE, descriptor->position,
                          "The time column of %s must be written DESCRIPTOR(column)",
                          function->name);
    const AstExpr *column = descriptor->function.args.items[0];
    int time_field = window_find_field(data, column->column.name);
    if (time_field < 0)
        return bind_error(binder, JOINERY_ERROR_VALIDATE, column->position,
                          "Column '%s' not found in the table of %s", column->column.name,
                          function->name);
    DataType time_type = data->fields[time_field].type;
    /* a time attribute that came through a regular join is a plain TIMESTAMP there (Flink
       materializes it: RelTimeIndicatorConverter), so it can bound no window */
    if (time_type.time_attribute != TIME_ATTRIBUTE_NONE &&
        interval_time_materialized(binder->arena, data, (uint32_t)time_field))
        time_type.time_attribute = TIME_ATTRIBUTE_NONE;
    if (time_type.time_attribute == TIME_ATTRIBUTE_NONE) {
        char type[96];
        return bind_error(binder, JOINERY_ERROR_VALIDATE, column->position,
                          "The window function %s requires the timecol to be a time attribute "
                          "type, but is %s.",
                          function->name, expr_type_name(time_type, false, type, sizeof type));
    }
    if (time_type.time_attribute == TIME_ATTRIBUTE_PROCTIME)
        return bind_error(binder, JOINERY_ERROR_UNSUPPORTED, column->position,
                          "Window table functions over a processing-time attribute are not "
                          "supported yet; use the rowtime attribute");
    /* the lengths */
    WindowSpec spec = {.kind = function->kind};
    Expr *bound[WINDOW_MAX_PARAMETERS] = {0};
    uint32_t bound_count = 0;
    for (uint32_t p = 2; p < function->parameter_count; p++) {
        if (!arguments[p])
            continue;
        const char *name = function->parameters[p];
        int64_t millis = 0;
        status =
            window_interval(binder, function, name, arguments[p], &millis, &bound[bound_count]);
        if (status != JOINERY_OK)
            return status;
        bound_count++;
        if (strcmp(name, "SIZE") == 0)
            spec.size_millis = millis;
        else if (strcmp(name, "SLIDE") == 0)
            spec.slide_millis = millis;
        else if (strcmp(name, "STEP") == 0)
            spec.step_millis = millis;
        else if (strcmp(name, "GAP") == 0)
            spec.gap_millis = millis;
        else {
            spec.offset_millis = millis;
            spec.has_offset = true;
        }
    }
    const char *invalid = window_spec_validate(&spec);
    if (invalid)
        return bind_error(binder, JOINERY_ERROR_VALIDATE, call->position, "%s", invalid);
    /* SESSION's PARTITION BY */
    const AstList *partition = arguments[0]->kind == AST_EXPR_TABLE_ARGUMENT
                                   ? &arguments[0]->table_argument.partition_by
                                   : NULL;
    if (partition && partition->count && function->kind != WINDOW_SESSION)
        return bind_error(binder, JOINERY_ERROR_VALIDATE, arguments[0]->position,
                          "Only the SESSION window table function takes PARTITION BY");
    uint32_t input_count = data->field_count;
    PlanNode *node = bind_new_node(binder, PLAN_LOGICAL_TABLE_FUNCTION_SCAN, 1, input_count + 3);
    if (!node)
        return binder->diag->status;
    node->inputs[0] = data;
    memcpy(node->fields, data->fields, input_count * sizeof(PlanField));
    node->fields[input_count].name = "window_start";
    node->fields[input_count].type = type_make_timestamp(TYPE_TIMESTAMP, 3, false);
    node->fields[input_count + 1].name = "window_end";
    node->fields[input_count + 1].type = type_make_timestamp(TYPE_TIMESTAMP, 3, false);
    node->fields[input_count + 2].name = "window_time";
    node->fields[input_count + 2].type = type_make_timestamp(time_type.id, 3, false);
    node->fields[input_count + 2].type.time_attribute = TIME_ATTRIBUTE_ROWTIME;
    plan_uniquify_names(binder->arena, node->fields, input_count + 3);
    node->window.spec = spec;
    node->window.time_field = (uint32_t)time_field;
    node->window.argument_count = bound_count;
    node->window.arguments = arena_calloc(binder->arena, bound_count + 1, sizeof(Expr *));
    if (!node->window.arguments)
        return diag_error(binder->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    memcpy(node->window.arguments, bound, bound_count * sizeof(Expr *));
    if (partition && partition->count) {
        node->window.partition_key_count = (uint32_t)partition->count;
        node->window.partition_keys =
            arena_calloc(binder->arena, partition->count + 1, sizeof(uint32_t));
        if (!node->window.partition_keys)
            return diag_error(binder->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        for (size_t i = 0; i < partition->count; i++) {
            int key = window_find_field(data, partition->items[i]);
            if (key < 0)
                return bind_error(binder, JOINERY_ERROR_VALIDATE, arguments[0]->position,
                                  "Partition key '%s' not found in the table of %s",
                                  (const char *)partition->items[i], function->name);
            node->window.partition_keys[i] = (uint32_t)key;
        }
    }
    *result = node;
    return JOINERY_OK;
}

/* ---- legacy group windows: GROUP BY TUMBLE(time, size), HOP(...), SESSION(...) ---- */

typedef struct GroupWindowFunction {
    const char *name; /* the GROUP BY function */
    FunctionId group; /* $TUMBLE, ... */
    uint32_t argument_count;
    FunctionId auxiliaries[4]; /* _START, _END, _ROWTIME, _PROCTIME */
} GroupWindowFunction;

static const GroupWindowFunction GROUP_WINDOW_FUNCTIONS[] = {
    {"TUMBLE",
     FUNCTION_GROUP_TUMBLE,
     2,
     {FUNCTION_TUMBLE_START, FUNCTION_TUMBLE_END, FUNCTION_TUMBLE_ROWTIME,
      FUNCTION_TUMBLE_PROCTIME}},
    {"HOP",
     FUNCTION_GROUP_HOP,
     3,
     {FUNCTION_HOP_START, FUNCTION_HOP_END, FUNCTION_HOP_ROWTIME, FUNCTION_HOP_PROCTIME}},
    {"SESSION",
     FUNCTION_GROUP_SESSION,
     2,
     {FUNCTION_SESSION_START, FUNCTION_SESSION_END, FUNCTION_SESSION_ROWTIME,
      FUNCTION_SESSION_PROCTIME}},
};

static const char *const PROPERTY_SUFFIXES[4] = {"_START", "_END", "_ROWTIME", "_PROCTIME"};

static const GroupWindowFunction *group_window_function(const char *name)
{
    for (size_t i = 0; i < sizeof GROUP_WINDOW_FUNCTIONS / sizeof GROUP_WINDOW_FUNCTIONS[0]; i++)
        if (strcasecmp(name, GROUP_WINDOW_FUNCTIONS[i].name) == 0)
            return &GROUP_WINDOW_FUNCTIONS[i];
    return NULL;
}

/* The family and property (0..3) of an auxiliary function name, or NULL. */
static const GroupWindowFunction *group_window_auxiliary(const char *name, uint32_t *property)
{
    for (size_t i = 0; i < sizeof GROUP_WINDOW_FUNCTIONS / sizeof GROUP_WINDOW_FUNCTIONS[0]; i++) {
        const GroupWindowFunction *function = &GROUP_WINDOW_FUNCTIONS[i];
        size_t length = strlen(function->name);
        if (strncasecmp(name, function->name, length) != 0)
            continue;
        for (uint32_t p = 0; p < 4; p++)
            if (strcasecmp(name + length, PROPERTY_SUFFIXES[p]) == 0) {
                *property = p;
                return function;
            }
    }
    return NULL;
}

bool bind_is_group_window(const AstExpr *ast)
{
    return ast->kind == AST_EXPR_FUNCTION && group_window_function(ast->function.name);
}

/* $TUMBLE(time, size) etc. from the arguments of `call` (a group function or an auxiliary). */
static int bind_group_window_call(Binder *binder, const Scope *scope,
                                  const GroupWindowFunction *function, const AstExpr *call,
                                  Expr **result)
{
    const AstList *args = &call->function.args;
    if (args->count != function->argument_count)
        return bind_error(binder, JOINERY_ERROR_VALIDATE, call->position,
                          "Invalid number of arguments to function '%s'. Was expecting %u "
                          "arguments",
                          call->function.name, function->argument_count);
    AggregateBinding *aggregate = binder->aggregate, *grouping = binder->grouping;
    binder->aggregate = NULL;
    binder->grouping = NULL;
    Expr *bound[3] = {0};
    int status = JOINERY_OK;
    for (uint32_t i = 0; i < function->argument_count && status == JOINERY_OK; i++)
        status = bind_expr(binder, scope, args->items[i], &bound[i]);
    binder->aggregate = aggregate;
    binder->grouping = grouping;
    if (status != JOINERY_OK)
        return status;
    DataType time_type = bound[0]->type;
    if (time_type.time_attribute == TIME_ATTRIBUTE_NONE) {
        char type[96];
        return bind_error(binder, JOINERY_ERROR_VALIDATE,
                          ((const AstExpr *)args->items[0])->position,
                          "Window can only be defined on a time attribute column, but is type "
                          "of %s",
                          expr_type_name(time_type, false, type, sizeof type));
    }
    WindowSpec spec = {.kind = function->group == FUNCTION_GROUP_TUMBLE ? WINDOW_TUMBLE
                               : function->group == FUNCTION_GROUP_HOP  ? WINDOW_HOP
                                                                        : WINDOW_SESSION};
    for (uint32_t i = 1; i < function->argument_count; i++) {
        const Expr *length = bound[i];
        if (length->kind != EXPR_LITERAL || length->type.id != TYPE_INTERVAL_DAY_TIME ||
            length->literal.is_null)
            return bind_error(binder, JOINERY_ERROR_VALIDATE,
                              ((const AstExpr *)args->items[i])->position,
                              "The window lengths of %s must be constant intervals of day-time "
                              "units, e.g. INTERVAL '5' MINUTE",
                              function->name);
        int64_t millis = length->literal.i;
        if (spec.kind == WINDOW_TUMBLE)
            spec.size_millis = millis;
        else if (spec.kind == WINDOW_SESSION)
            spec.gap_millis = millis;
        else if (i == 1)
            spec.slide_millis = millis;
        else
            spec.size_millis = millis;
    }
    const char *invalid = window_spec_validate(&spec);
    if (invalid)
        return bind_error(binder, JOINERY_ERROR_VALIDATE, call->position, "%s", invalid);
    *result =
        expr_make_call(binder->arena, function->group, time_type, bound, function->argument_count);
    return *result ? JOINERY_OK
                   : diag_error(binder->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
}

int bind_group_window(Binder *binder, const Scope *scope, const AstExpr *ast, Expr **result)
{
    return bind_group_window_call(binder, scope, group_window_function(ast->function.name), ast,
                                  result);
}

bool bind_is_group_window_auxiliary(const AstExpr *ast)
{
    uint32_t property;
    return ast->kind == AST_EXPR_FUNCTION && group_window_auxiliary(ast->function.name, &property);
}

int bind_group_window_auxiliary(Binder *binder, const Scope *scope, const AstExpr *ast,
                                Expr **result)
{
    uint32_t property = 0;
    const GroupWindowFunction *function = group_window_auxiliary(ast->function.name, &property);
    AggregateBinding *grouping = binder->grouping;
    Expr *window = NULL;
    int status = bind_group_window_call(binder, scope, function, ast, &window);
    if (status != JOINERY_OK)
        return status;
    uint32_t key = grouping ? grouping->group_count : 0;
    for (uint32_t i = 0; grouping && i < grouping->group_count; i++)
        if (expr_equals(grouping->group_exprs[i], window))
            key = i;
    if (!grouping || key == grouping->group_count) {
        char upper[32];
        size_t length = strlen(ast->function.name);
        if (length >= sizeof upper)
            length = sizeof upper - 1;
        for (size_t c = 0; c < length; c++)
            upper[c] = (char)(ast->function.name[c] >= 'a' && ast->function.name[c] <= 'z'
                                  ? ast->function.name[c] - 'a' + 'A'
                                  : ast->function.name[c]);
        upper[length] = '\0';
        return bind_error(binder, JOINERY_ERROR_VALIDATE, ast->position,
                          "Call to auxiliary group function '%s' must have matching call to "
                          "group function '%s' in GROUP BY clause",
                          upper, function_info(function->group)->name);
    }
    DataType time_type = window->type;
    if (property == 2 && time_type.time_attribute != TIME_ATTRIBUTE_ROWTIME)
        return bind_error(binder, JOINERY_ERROR_VALIDATE, ast->position,
                          "%s needs a window on a rowtime attribute; this window is on "
                          "processing time",
                          function_info(function->auxiliaries[2])->name);
    Expr *reference = expr_make_input_ref(binder->arena, key, time_type);
    if (!reference)
        return diag_error(binder->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    FunctionId auxiliary = function->auxiliaries[property];
    DataType type = type_make_timestamp(TYPE_TIMESTAMP, 3, false);
    if (property == 2)
        type.time_attribute = TIME_ATTRIBUTE_ROWTIME;
    if (property == 3) {
        type = type_make_timestamp(TYPE_TIMESTAMP_LTZ, 3, false);
        type.time_attribute = TIME_ATTRIBUTE_PROCTIME;
    }
    grouping->group_window_properties = true;
    *result = expr_make_call(binder->arena, auxiliary, type, &reference, 1);
    return *result ? JOINERY_OK
                   : diag_error(binder->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
}
