/*
 * bind_subquery.c - WHERE clauses, and the IN / EXISTS subqueries among their
 * conjuncts, bound into semi and anti joins as Flink decorrelates them
 * (its SubQueryDecorrelator and FlinkSubQueryRemoveRule):
 *
 *   a [NOT] IN (SELECT d FROM r WHERE r.e = t.b AND r.f > 1)
 *     LogicalJoin(condition=[AND(=($a, $d), =($b, $e))], joinType=[semi | anti])
 *       t
 *       LogicalProject(d, e)                  (the item, then the correlated fields)
 *         LogicalFilter(condition=[>(f, 1)])  (the subquery's own conjuncts)
 *           r
 *   [NOT] EXISTS (SELECT ... FROM r WHERE r.e = t.b): the same without the item.
 *   (a, b) [NOT] IN (SELECT d, e FROM r): one pair condition per value, ANDed
 *   (=($a, $d), =($b, $e)); the subquery selects as many columns as the row has values.
 *
 * A semi / anti LogicalJoin's fields are its left input's (t's); its
 * condition reads t's fields, then the right input's. NOT IN keeps SQL's
 * NULL semantics as Flink writes them: the pair condition becomes
 * OR(IS NULL(a), IS NULL(d), =(a, d)) (the IS NULL parts only for nullable
 * sides), so a NULL on either side matches every row and drops the left row,
 * and an empty subquery keeps every row. A row operand gets that condition per value,
 * ANDed: a left row is dropped when some subquery row compares TRUE or UNKNOWN with it.
 *
 * Invariants: a correlated subquery is a plain SELECT ... FROM ... WHERE
 * (no GROUP BY, aggregates, DISTINCT, hints, WITH, ORDER BY or LIMIT) whose
 * WHERE conjuncts may read the enclosing query's columns (Binder.outer_scope
 * while each is bound); conjuncts that do become the join condition, the
 * others stay in the subquery. Any other subquery is bound as it is and must
 * not read the enclosing query. Subqueries elsewhere (under OR, in SELECT,
 * ON, HAVING) and scalar subqueries are rejected with a position. An
 * uncorrelated EXISTS becomes a join with a global MIN(TRUE) of the subquery's
 * rows, as Flink plans it (bind_uncorrelated_exists). Walks are bounded: the parser bounds the
 * AST's depth, and the NOT and AND walks here count their levels.
 */
#include <string.h>
#include <strings.h>

#include "engine/plan/bind_internal.h"
#include "engine/sql/ast_depth.h"

enum { SUBQUERY_MAX_WALK = 4096 };

/* A [NOT] IN / [NOT] EXISTS conjunct. */
typedef struct SubqueryPredicate {
    const AstExpr *expr;    /* the conjunct */
    const AstExpr *operand; /* the IN operand; NULL for EXISTS */
    const AstQuery *query;
    bool negated; /* NOT IN / NOT EXISTS: an anti join */
} SubqueryPredicate;

/* True when `expr` is a [NOT] IN (subquery) or [NOT] EXISTS (subquery), any NOTs around it
   folded in. */
static bool subquery_predicate_match(const AstExpr *expr, SubqueryPredicate *predicate)
{
    *predicate = (SubqueryPredicate){.expr = expr};
    for (int level = 0;
         level < SUBQUERY_MAX_WALK && expr->kind == AST_EXPR_UNARY && expr->unary.op == AST_OP_NOT;
         level++) {
        predicate->negated = !predicate->negated;
        expr = expr->unary.operand;
    }
    if (expr->kind == AST_EXPR_SUBQUERY && expr->subquery.exists) {
        predicate->query = expr->subquery.query;
        return true;
    }
    if (expr->kind == AST_EXPR_IN_LIST && expr->in_list.values.count == 1) {
        const AstExpr *value = expr->in_list.values.items[0];
        if (value->kind != AST_EXPR_SUBQUERY || value->subquery.exists)
            return false;
        predicate->operand = expr->in_list.operand;
        predicate->query = value->subquery.query;
        predicate->negated = predicate->negated != expr->in_list.negated;
        return true;
    }
    return false;
}

/* Appends the AND-conjuncts of `expr` to `out` (room for SUBQUERY_MAX_WALK). */
static int collect_conjuncts(Binder *binder, const AstExpr *expr, const AstExpr **out,
                             uint32_t *count, int depth)
{
    if (depth > SQL_MAX_DEPTH)
        return bind_error(binder, JOINERY_ERROR_VALIDATE, expr->position, SQL_DEPTH_MESSAGE,
                          SQL_MAX_DEPTH);
    if (expr->kind == AST_EXPR_BINARY && expr->binary.op == AST_OP_AND) {
        int status = collect_conjuncts(binder, expr->binary.left, out, count, depth + 1);
        return status == JOINERY_OK
                   ? collect_conjuncts(binder, expr->binary.right, out, count, depth + 1)
                   : status;
    }
    if (*count >= SUBQUERY_MAX_WALK)
        return bind_error(binder, JOINERY_ERROR_VALIDATE, expr->position,
                          "WHERE clause has more than %d conjuncts", SUBQUERY_MAX_WALK);
    out[(*count)++] = expr;
    return JOINERY_OK;
}

static int conjuncts_add(Binder *binder, BoundConjuncts *list, Expr *expr)
{
    if (list->count == list->capacity) {
        uint32_t capacity = list->capacity ? list->capacity * 2 : 8;
        Expr **items = arena_calloc(binder->arena, capacity, sizeof(Expr *));
        if (!items)
            return diag_error(binder->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        if (list->count)
            memcpy(items, list->items, list->count * sizeof(Expr *));
        list->items = items;
        list->capacity = capacity;
    }
    list->items[list->count++] = expr;
    return JOINERY_OK;
}

static Expr *conjuncts_and(Binder *binder, const BoundConjuncts *list)
{
    return list->count == 1 ? list->items[0]
                            : expr_make_and(binder->arena, list->items, list->count);
}

/* Whether a subquery can be decorrelated here: a plain SELECT ... FROM ... [WHERE ...]. */
static bool subquery_is_plain_select(Binder *binder, const AstQuery *query)
{
    if (query->kind != AST_QUERY_SELECT || !query->select.from || query->with_items.count ||
        query->order_by.count || query->limit || query->select.distinct ||
        query->select.group_by.count || query->select.having || query->select.hints.count)
        return false;
    for (size_t i = 0; i < query->select.items.count; i++) {
        const AstSelectItem *item = query->select.items.items[i];
        if (bind_contains_aggregate(binder, item->expr) ||
            (item->expr->kind == AST_EXPR_FUNCTION && item->expr->function.over))
            return false;
    }
    return true;
}

/* The call `function`(args) with its result type (function_resolve); NULL with the error
   reported at `position`. */
static Expr *resolve_call(Binder *binder, FunctionId function, Expr **args, uint32_t count,
                          SourcePosition position)
{
    Diag local;
    diag_clear(&local);
    Expr *call = function_resolve(binder->arena, NULL, function, args, count, &local);
    if (!call) {
        if (local.status == JOINERY_OK)
            diag_error(binder->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        else
            bind_error(binder, local.status, position, "%s", local.message);
    }
    return call;
}

/*
 * The right input of an uncorrelated [NOT] EXISTS, as Flink plans it: the subquery's rows
 * become one global MIN(TRUE) (no row while the subquery is empty):
 *   EXISTS:     LogicalProject() over LogicalFilter(IS NOT NULL(m)), the join condition TRUE;
 *   NOT EXISTS: LogicalProject($f0 = IS NOT NULL(m)), the join condition $f0;
 * both over LogicalAggregate(m = MIN(i)) over LogicalProject(i = TRUE) over `rows`.
 */
static int bind_uncorrelated_exists(Binder *binder, const SubqueryPredicate *predicate,
                                    PlanNode *rows, uint32_t left_count, PlanNode **right,
                                    BoundConjuncts *conditions)
{
    Arena *arena = binder->arena;
    Expr **constant = arena_calloc(arena, 1, sizeof(Expr *));
    if (!constant)
        return diag_error(binder->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    constant[0] = expr_make_literal(arena, type_make(TYPE_BOOLEAN, false), value_int(1));
    const char *names[1] = {"i"};
    PlanNode *flag = constant[0] ? bind_project(binder, rows, constant, names, 1) : NULL;
    PlanNode *aggregate = flag ? bind_new_node(binder, PLAN_LOGICAL_AGGREGATE, 1, 1) : NULL;
    PlanAggregateCall *call = aggregate ? arena_calloc(arena, 1, sizeof *call) : NULL;
    if (!call)
        return binder->diag->status != JOINERY_OK
                   ? binder->diag->status
                   : diag_error(binder->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    *call = (PlanAggregateCall){.kind = PLAN_AGGREGATE_MIN,
                                .argument = 0,
                                .result_type = type_make(TYPE_BOOLEAN, true),
                                .name = arena_strdup(arena, "m")};
    aggregate->inputs[0] = flag;
    aggregate->aggregate.calls = call;
    aggregate->aggregate.call_count = 1;
    aggregate->aggregate.group_key_count = 0;
    aggregate->aggregate.group_keys = arena_calloc(arena, 1, sizeof(uint32_t));
    aggregate->fields[0].name = call->name;
    aggregate->fields[0].type = call->result_type;
    Expr *m = expr_make_input_ref(arena, 0, call->result_type);
    Expr *present =
        m ? resolve_call(binder, FUNCTION_IS_NOT_NULL, &m, 1, predicate->expr->position) : NULL;
    if (!present || !aggregate->aggregate.group_keys)
        return binder->diag->status != JOINERY_OK
                   ? binder->diag->status
                   : diag_error(binder->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    if (!predicate->negated) {
        PlanNode *filter = bind_filter(binder, aggregate, present);
        *right = filter ? bind_project(binder, filter, NULL, NULL, 0) : NULL;
        return *right ? JOINERY_OK : binder->diag->status;
    }
    Expr **projects = arena_calloc(arena, 1, sizeof(Expr *));
    if (!projects)
        return diag_error(binder->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    projects[0] = present;
    const char *flag_names[1] = {"$f0"};
    *right = bind_project(binder, aggregate, projects, flag_names, 1);
    if (!*right)
        return binder->diag->status;
    Expr *condition = expr_make_input_ref(arena, left_count, present->type);
    return condition ? conjuncts_add(binder, conditions, condition)
                     : diag_error(binder->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
}

/* An IN subquery selects as many columns as its operand has values (a row `(a, b)` two). */
static int subquery_check_columns(Binder *binder, const AstQuery *query, uint32_t expected,
                                  uint32_t selected)
{
    if (selected == expected)
        return JOINERY_OK;
    if (expected == 1)
        return bind_error(binder, JOINERY_ERROR_VALIDATE, query->position,
                          "The subquery of IN must select exactly one column, not %u", selected);
    return bind_error(binder, JOINERY_ERROR_VALIDATE, query->position,
                      "The subquery of IN must select exactly %u columns, as many as the row "
                      "before IN has values, not %u",
                      expected, selected);
}

/*
 * The right input of the semi / anti join for `predicate` and the join condition's
 * correlated conjuncts, remapped to the join's row (outer fields, then the right input's).
 * The right input's first `item_count` fields are the items the IN operand's values are
 * compared with (none for EXISTS).
 */
static int bind_subquery_input(Binder *binder, const SubqueryPredicate *predicate,
                               const Scope *outer, uint32_t left_count, uint32_t item_count,
                               PlanNode **right, BoundConjuncts *conditions)
{
    const AstQuery *query = predicate->query;
    bool exists = predicate->operand == NULL;
    if (!subquery_is_plain_select(binder, query)) {
        /* bound as it is: it cannot read the enclosing query (its columns are not found) */
        const Scope *saved = binder->outer_scope;
        bool saved_forbidden = binder->outer_forbidden;
        binder->outer_scope = outer;
        binder->outer_forbidden = true;
        int status = bind_query(binder, query, right);
        binder->outer_scope = saved;
        binder->outer_forbidden = saved_forbidden;
        if (status != JOINERY_OK)
            return status;
        if (exists)
            return bind_uncorrelated_exists(binder, predicate, *right, left_count, right,
                                            conditions);
        return subquery_check_columns(binder, query, item_count, (*right)->field_count);
    }
    PlanNode *inner;
    Scope inner_scope;
    int status = bind_from_clause(binder, query->select.from, &inner, &inner_scope);
    if (status != JOINERY_OK)
        return status;
    BoundConjuncts correlated = {0};
    if (query->select.where) {
        status = bind_where(binder, query->select.where, &inner_scope, outer, &inner, &correlated);
        if (status != JOINERY_OK)
            return status;
    }
    if (exists && correlated.count == 0)
        return bind_uncorrelated_exists(binder, predicate, inner, left_count, right, conditions);
    SelectList list = {0};
    if (!exists) {
        const Scope *saved = binder->outer_scope;
        binder->outer_scope = NULL;
        status = bind_select_items(binder, query, &inner_scope, &list, NULL);
        binder->outer_scope = saved;
        if (status != JOINERY_OK)
            return status;
        status = subquery_check_columns(binder, query, item_count, list.count);
        if (status != JOINERY_OK)
            return status;
    }
    /* the right input: the item, then each subquery field the correlated conjuncts read */
    uint32_t inner_count = inner_scope.count, outer_count = outer->count;
    int32_t *mapping = arena_calloc(binder->arena, inner_count + outer_count + 1, sizeof(int32_t));
    Expr **projects = arena_calloc(binder->arena, inner_count + 2, sizeof(Expr *));
    const char **names = arena_calloc(binder->arena, inner_count + 2, sizeof(char *));
    uint64_t *used =
        arena_calloc(binder->arena, (inner_count + outer_count) / 64 + 1, sizeof(uint64_t));
    if (!mapping || !projects || !names || !used)
        return diag_error(binder->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    uint32_t count = 0;
    for (uint32_t i = 0; i < list.count; i++) {
        projects[count] = list.exprs[i];
        names[count++] = list.names[i];
    }
    for (uint32_t i = 0; i < correlated.count; i++)
        expr_collect_inputs(correlated.items[i], used);
    for (uint32_t j = 0; j < inner_count; j++) {
        mapping[j] = -1;
        if (!((used[j / 64] >> (j % 64)) & 1))
            continue;
        for (uint32_t k = 0; k < count && mapping[j] < 0; k++)
            if (projects[k]->kind == EXPR_INPUT_REF && projects[k]->input_index == j)
                mapping[j] = (int32_t)(outer_count + k);
        if (mapping[j] >= 0)
            continue;
        projects[count] = expr_make_input_ref(binder->arena, j, inner_scope.columns[j].type);
        names[count] = inner_scope.columns[j].name;
        if (!projects[count])
            return diag_error(binder->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        mapping[j] = (int32_t)(outer_count + count++);
    }
    for (uint32_t i = 0; i < outer_count; i++)
        mapping[inner_count + i] = (int32_t)i;
    *right = bind_project(binder, inner, projects, names, count);
    if (!*right)
        return binder->diag->status;
    for (uint32_t i = 0; i < correlated.count; i++) {
        Expr *remapped = expr_remap_inputs(binder->arena, correlated.items[i], mapping);
        if (!remapped || conjuncts_add(binder, conditions, remapped) != JOINERY_OK)
            return diag_error(binder->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    }
    return JOINERY_OK;
}

/* The semi / anti LogicalJoin of one IN / EXISTS conjunct over *node. */
static int bind_subquery_join(Binder *binder, const SubqueryPredicate *predicate,
                              const Scope *scope, PlanNode **node)
{
    if (binder->depth >= SQL_MAX_DEPTH)
        return bind_error(binder, JOINERY_ERROR_VALIDATE, predicate->expr->position,
                          SQL_DEPTH_MESSAGE, SQL_MAX_DEPTH);
    binder->depth++;
    PlanNode *left = *node;
    /* the operand reads the enclosing query only; a row (a, b, ...) is compared value by value */
    const AstExpr *operand_ast = predicate->operand;
    bool row_operand = operand_ast && operand_ast->kind == AST_EXPR_FUNCTION &&
                       strcasecmp(operand_ast->function.name, "ROW") == 0 &&
                       operand_ast->function.args.count > 1;
    uint32_t item_count = !operand_ast  ? 0
                          : row_operand ? (uint32_t)operand_ast->function.args.count
                                        : 1;
    Expr **operands = arena_calloc(binder->arena, item_count + 1, sizeof(Expr *));
    if (!operands) {
        binder->depth--;
        return diag_error(binder->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    }
    const Scope *saved = binder->outer_scope;
    binder->outer_scope = NULL;
    int status = JOINERY_OK;
    for (uint32_t i = 0; i < item_count && status == JOINERY_OK; i++)
        status = bind_expr(binder, scope,
                           row_operand ? operand_ast->function.args.items[i] : operand_ast,
                           &operands[i]);
    binder->outer_scope = saved;
    PlanNode *right = NULL;
    BoundConjuncts correlated = {0};
    if (status == JOINERY_OK)
        status = bind_subquery_input(binder, predicate, scope, left->field_count, item_count,
                                     &right, &correlated);
    binder->depth--;
    if (status != JOINERY_OK)
        return status;
    uint32_t left_count = left->field_count;
    BoundConjuncts conditions = {0};
    for (uint32_t i = 0; i < item_count; i++) {
        /* value = item; for NOT IN, OR(IS NULL(value), IS NULL(item), =(value, item)): a pair
           that is not FALSE (the comparison of rows is then TRUE or UNKNOWN) */
        Expr *item = expr_make_input_ref(binder->arena, left_count + i, right->fields[i].type);
        if (!item)
            return diag_error(binder->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        Expr *pair[2] = {operands[i], item};
        SourcePosition position = predicate->expr->position;
        Expr *condition = resolve_call(binder, FUNCTION_EQUAL, pair, 2, position);
        if (condition && predicate->negated && (pair[0]->type.nullable || item->type.nullable)) {
            Expr **parts = arena_calloc(binder->arena, 3, sizeof(Expr *));
            uint32_t count = 0;
            if (!parts)
                return diag_error(binder->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
            for (int side = 0; side < 2 && condition; side++)
                if (pair[side]->type.nullable &&
                    !(parts[count++] =
                          resolve_call(binder, FUNCTION_IS_NULL, &pair[side], 1, position)))
                    condition = NULL;
            if (condition) {
                parts[count++] = condition;
                condition = resolve_call(binder, FUNCTION_OR, parts, count, position);
            }
        }
        if (!condition)
            return binder->diag->status;
        if (conjuncts_add(binder, &conditions, condition) != JOINERY_OK)
            return binder->diag->status;
    }
    for (uint32_t i = 0; i < correlated.count; i++)
        if (conjuncts_add(binder, &conditions, correlated.items[i]) != JOINERY_OK)
            return binder->diag->status;
    PlanNode *join = bind_new_node(binder, PLAN_LOGICAL_JOIN, 2, left_count);
    if (!join)
        return binder->diag->status;
    join->inputs[0] = left;
    join->inputs[1] = right;
    memcpy(join->fields, left->fields, left_count * sizeof(PlanField));
    join->join.join_type = predicate->negated ? JOIN_TYPE_ANTI : JOIN_TYPE_SEMI;
    join->join.condition = conditions.count ? conjuncts_and(binder, &conditions) : NULL;
    join->state_ttl_millis = -1;
    join->state_ttl_right_millis = -1;
    *node = join;
    return JOINERY_OK;
}

int bind_where(Binder *binder, const AstExpr *where, const Scope *scope, const Scope *outer,
               PlanNode **node, BoundConjuncts *correlated)
{
    if (bind_contains_aggregate(binder, where))
        return bind_error(binder, JOINERY_ERROR_VALIDATE, where->position,
                          "Aggregate functions are not allowed in WHERE");
    const AstExpr **conjuncts = arena_calloc(binder->arena, SUBQUERY_MAX_WALK, sizeof(AstExpr *));
    if (!conjuncts)
        return diag_error(binder->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    uint32_t count = 0;
    int status = collect_conjuncts(binder, where, conjuncts, &count, 0);
    if (status != JOINERY_OK)
        return status;
    SubqueryPredicate *predicates = arena_calloc(binder->arena, count, sizeof *predicates);
    if (!predicates)
        return diag_error(binder->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    uint32_t predicate_count = 0;
    for (uint32_t i = 0; i < count; i++)
        if (subquery_predicate_match(conjuncts[i], &predicates[predicate_count]))
            predicate_count++;
    BoundConjuncts plain = {0};
    if (predicate_count == 0 && !outer) {
        /* no subquery: the condition as one expression, as written */
        Expr *condition;
        status = bind_expr(binder, scope, where, &condition);
        if (status != JOINERY_OK)
            return status;
        if (condition->type.id != TYPE_BOOLEAN)
            return bind_error(binder, JOINERY_ERROR_VALIDATE, where->position,
                              "WHERE clause must be a condition");
        *node = bind_filter(binder, *node, condition);
        return *node ? JOINERY_OK : binder->diag->status;
    }
    for (uint32_t i = 0; i < count; i++) {
        SubqueryPredicate unused;
        if (subquery_predicate_match(conjuncts[i], &unused))
            continue;
        const Scope *saved = binder->outer_scope;
        bool saved_referenced = binder->outer_referenced;
        binder->outer_scope = outer;
        binder->outer_referenced = false;
        Expr *condition;
        status = bind_expr(binder, scope, conjuncts[i], &condition);
        bool reads_outer = binder->outer_referenced;
        binder->outer_scope = saved;
        binder->outer_referenced = saved_referenced;
        if (status != JOINERY_OK)
            return status;
        if (condition->type.id != TYPE_BOOLEAN)
            return bind_error(binder, JOINERY_ERROR_VALIDATE, conjuncts[i]->position,
                              "WHERE clause must be a condition");
        status = conjuncts_add(binder, reads_outer ? correlated : &plain, condition);
        if (status != JOINERY_OK)
            return status;
    }
    if (plain.count) {
        *node = bind_filter(binder, *node, conjuncts_and(binder, &plain));
        if (!*node)
            return binder->diag->status;
    }
    for (uint32_t i = 0; i < predicate_count; i++) {
        status = bind_subquery_join(binder, &predicates[i], scope, node);
        if (status != JOINERY_OK)
            return status;
    }
    return JOINERY_OK;
}
