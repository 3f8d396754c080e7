/*
 * interval_bounds.c - recognising an interval join's time predicates and
 * computing its bounds (see interval_bounds.h), after Flink's
 * IntervalJoinUtil: identify the time predicates among the conjuncts, check
 * their number, reduce each side of a predicate to a constant with the time
 * attributes as 0, and pair a lower and an upper bound.
 *
 * Invariant: nothing here allocates except interval_bounds_of_join (its
 * conjunct list, in the arena); every walk is bounded by
 * INTERVAL_MAX_DEPTH (a deeper expression is no time predicate).
 */
#include "engine/plan/interval_bounds.h"

#include "engine/plan/nodes/nodes.h"
#include "engine/plan/rules/rules.h"

enum {
    INTERVAL_MAX_DEPTH = 64,
    INTERVAL_MAX_PREDICATES = 3, /* more than two already make no interval join */
};

/* One time attribute read by an operand of a comparison. */
typedef struct TimeAccess {
    TimeAttribute attribute;
    bool left;      /* of the left input */
    uint32_t field; /* within its input */
} TimeAccess;

/* A comparison between time attributes of both inputs. */
typedef struct TimePredicate {
    const Expr *call;
    TimeAttribute attribute;
    bool left_first;                    /* operand 0 reads the left input's attribute */
    uint32_t first_field, second_field; /* within their inputs */
} TimePredicate;

/* True when the expression reads an input field that is not a time attribute. */
static bool reads_plain_field(const Expr *expr, int depth)
{
    if (depth > INTERVAL_MAX_DEPTH)
        return true;
    if (expr->kind == EXPR_INPUT_REF)
        return expr->type.time_attribute == TIME_ATTRIBUTE_NONE;
    if (expr->kind == EXPR_CALL)
        for (uint32_t i = 0; i < expr->call.arg_count; i++)
            if (reads_plain_field(expr->call.args[i], depth + 1))
                return true;
    return false;
}

/* Counts the time attributes the expression reads (up to 2), the first in *access. */
static uint32_t time_accesses(const Expr *expr, uint32_t left_count, TimeAccess *access, int depth)
{
    if (depth > INTERVAL_MAX_DEPTH)
        return 2;
    if (expr->kind == EXPR_INPUT_REF) {
        if (expr->type.time_attribute == TIME_ATTRIBUTE_NONE)
            return 0;
        access->attribute = expr->type.time_attribute;
        access->left = expr->input_index < left_count;
        access->field = access->left ? expr->input_index : expr->input_index - left_count;
        return 1;
    }
    uint32_t found = 0;
    if (expr->kind == EXPR_CALL)
        for (uint32_t i = 0; i < expr->call.arg_count && found < 2; i++) {
            TimeAccess inner;
            uint32_t more = time_accesses(expr->call.args[i], left_count, &inner, depth + 1);
            if (more && !found)
                *access = inner;
            found += more;
        }
    return found;
}

static bool is_comparison(const Expr *expr)
{
    if (expr->kind != EXPR_CALL || expr->call.arg_count != 2)
        return false;
    switch (expr->call.function) {
    case FUNCTION_EQUAL:
    case FUNCTION_LESS:
    case FUNCTION_LESS_EQUAL:
    case FUNCTION_GREATER:
    case FUNCTION_GREATER_EQUAL:
        return true;
    default:
        return false;
    }
}

/* True when `conjunct` is a time predicate (filled into *predicate). */
static bool identify_time_predicate(const Expr *conjunct, uint32_t left_count,
                                    TimePredicate *predicate)
{
    if (!is_comparison(conjunct))
        return false;
    const Expr *first = conjunct->call.args[0], *second = conjunct->call.args[1];
    if (reads_plain_field(first, 0) || reads_plain_field(second, 0))
        return false;
    TimeAccess a, b;
    if (time_accesses(first, left_count, &a, 0) != 1 ||
        time_accesses(second, left_count, &b, 0) != 1)
        return false;
    if (a.attribute != b.attribute || a.left == b.left)
        return false;
    predicate->call = conjunct;
    predicate->attribute = a.attribute;
    predicate->left_first = a.left;
    predicate->first_field = a.field;
    predicate->second_field = b.field;
    return true;
}

/*
 * The constant an operand reduces to with its time attribute as 0, in
 * milliseconds: time attributes, day-time interval literals, casts between
 * timestamp types, + and - of those and negation. False for anything else
 * (Flink's reduction would not give a literal either: no bound).
 */
static bool reduce_offset(const Expr *expr, int64_t *value, int depth)
{
    if (depth > INTERVAL_MAX_DEPTH)
        return false;
    switch (expr->kind) {
    case EXPR_INPUT_REF:
        *value = 0;
        return expr->type.time_attribute != TIME_ATTRIBUTE_NONE;
    case EXPR_LITERAL:
        if (expr->literal.is_null || expr->type.id != TYPE_INTERVAL_DAY_TIME)
            return false;
        *value = expr->literal.i;
        return true;
    case EXPR_CALL:
        break;
    }
    int64_t a, b;
    switch (expr->call.function) {
    case FUNCTION_CAST:
        if (expr->call.arg_count != 1 ||
            (expr->type.id != TYPE_TIMESTAMP && expr->type.id != TYPE_TIMESTAMP_LTZ))
            return false;
        return reduce_offset(expr->call.args[0], value, depth + 1);
    case FUNCTION_NEGATE:
        if (expr->call.arg_count != 1 || !reduce_offset(expr->call.args[0], &a, depth + 1))
            return false;
        return !__builtin_sub_overflow((int64_t)0, a, value);
    case FUNCTION_PLUS:
    case FUNCTION_MINUS:
        if (expr->call.arg_count != 2 || !reduce_offset(expr->call.args[0], &a, depth + 1) ||
            !reduce_offset(expr->call.args[1], &b, depth + 1))
            return false;
        if (expr->call.function == FUNCTION_PLUS)
            return !__builtin_add_overflow(a, b, value);
        return !__builtin_sub_overflow(a, b, value);
    default:
        return false;
    }
}

/* The bound a time predicate gives: *value and whether it bounds l - r from below. */
static bool predicate_bound(const TimePredicate *predicate, int64_t *value, bool *left_lower)
{
    FunctionId function = predicate->call->call.function;
    bool left_first = predicate->left_first;
    switch (function) {
    case FUNCTION_GREATER:
    case FUNCTION_GREATER_EQUAL:
        *left_lower = left_first;
        break;
    case FUNCTION_LESS:
    case FUNCTION_LESS_EQUAL:
        *left_lower = !left_first;
        break;
    default: /* EQUAL: the one value is both bounds */
        *left_lower = true;
        break;
    }
    int64_t first, second, offset;
    if (!reduce_offset(predicate->call->call.args[0], &first, 0) ||
        !reduce_offset(predicate->call->call.args[1], &second, 0))
        return false;
    /* l op r + c: offset c = (second - first) with l first, else (first - second) */
    if (left_first ? __builtin_sub_overflow(second, first, &offset)
                   : __builtin_sub_overflow(first, second, &offset))
        return false;
    int64_t step = 0;
    if (function == FUNCTION_LESS)
        step = left_first ? -1 : 1;
    else if (function == FUNCTION_GREATER)
        step = left_first ? 1 : -1;
    return !__builtin_add_overflow(offset, step, value);
}

bool interval_bounds_find(Expr *const *conjuncts, uint32_t count, uint32_t left_count,
                          PlanIntervalBounds *bounds, bool *time_predicate)
{
    TimePredicate found[INTERVAL_MAX_PREDICATES];
    uint32_t indexes[INTERVAL_MAX_PREDICATES];
    uint32_t found_count = 0;
    for (uint32_t i = 0; i < count; i++) {
        time_predicate[i] = false;
        TimePredicate predicate;
        if (!identify_time_predicate(conjuncts[i], left_count, &predicate))
            continue;
        if (found_count == INTERVAL_MAX_PREDICATES)
            return false;
        indexes[found_count] = i;
        found[found_count++] = predicate;
    }
    /* one equality, or two range comparisons */
    bool first_equal = found_count > 0 && found[0].call->call.function == FUNCTION_EQUAL;
    bool second_equal = found_count > 1 && found[1].call->call.function == FUNCTION_EQUAL;
    if (found_count == 0 || found_count > 2 || (found_count == 1 && !first_equal) ||
        (found_count == 2 && (first_equal || second_equal)))
        return false;
    int64_t values[2];
    bool lower[2];
    for (uint32_t p = 0; p < found_count; p++)
        if (!predicate_bound(&found[p], &values[p], &lower[p]))
            return false;
    if (found_count == 1) {
        bounds->left_lower = bounds->left_upper = values[0];
    } else if (lower[0] && !lower[1]) {
        bounds->left_lower = values[0];
        bounds->left_upper = values[1];
    } else if (!lower[0] && lower[1]) {
        bounds->left_lower = values[1];
        bounds->left_upper = values[0];
    } else {
        return false; /* both bound the same direction */
    }
    bounds->rowtime = found[0].attribute == TIME_ATTRIBUTE_ROWTIME;
    bounds->left_time = found[0].left_first ? found[0].first_field : found[0].second_field;
    bounds->right_time = found[0].left_first ? found[0].second_field : found[0].first_field;
    for (uint32_t p = 0; p < found_count; p++)
        time_predicate[indexes[p]] = true;
    return true;
}

static bool bounds_of_join(Arena *arena, const PlanNode *join, const Expr *filter, int depth);

/* interval_time_materialized, `depth` joins down. */
static bool time_materialized(Arena *arena, const PlanNode *node, uint32_t field, int depth)
{
    bool interval_below = false; /* the filter just passed made the join below an interval join */
    for (int steps = 0; node && steps < 256; steps++) {
        switch (node->kind) {
        case PLAN_JOIN:
        case PLAN_MULTI_JOIN:
        case PLAN_LOGICAL_MULTI_JOIN:
            return true;
        case PLAN_LOGICAL_JOIN:
            if (!interval_below &&
                (depth >= INTERVAL_MAX_DEPTH || !bounds_of_join(arena, node, NULL, depth + 1)))
                return true;
            interval_below = false;
            break;
        case PLAN_LOGICAL_FILTER:
            /* `FROM a, b WHERE <bounds>`: the planner pushes the filter into the join, which
               then is an interval join (the bounds may be in the WHERE alone) */
            interval_below =
                node->inputs[0]->kind == PLAN_LOGICAL_JOIN &&
                node->inputs[0]->join.join_type == JOIN_TYPE_INNER && depth < INTERVAL_MAX_DEPTH &&
                bounds_of_join(arena, node->inputs[0], node->filter.condition, depth + 1);
            break;
        default:
            interval_below = false;
            break;
        }
        const PlanKindInfo *info = plan_kind_info(node->kind);
        const PlanNode *from = info->trace_field ? info->trace_field(node, &field) : NULL;
        if (!from || from == node)
            return false;
        node = from;
    }
    return false;
}

bool interval_time_materialized(Arena *arena, const PlanNode *input, uint32_t field)
{
    return time_materialized(arena, input, field, 0);
}

bool interval_bounds_of_join(Arena *arena, const PlanNode *join)
{
    return bounds_of_join(arena, join, NULL, 0);
}

/* True when `join`'s condition, with `filter` (a condition over its output above an INNER
   join, or NULL) added, bounds an interval join whose time attributes are not materialized. */
static bool bounds_of_join(Arena *arena, const PlanNode *join, const Expr *filter, int depth)
{
    if (join->kind != PLAN_LOGICAL_JOIN || !join_type_emits_right(join->join.join_type) ||
        (!join->join.condition && !filter))
        return false;
    RuleConjuncts split = {0};
    if (join->join.condition &&
        rule_split_conjuncts(arena, join->join.condition, &split) != JOINERY_OK)
        return false;
    if (filter && rule_split_conjuncts(arena, (Expr *)filter, &split) != JOINERY_OK)
        return false;
    bool *flags = arena_calloc(arena, split.count + 1, sizeof(bool));
    if (!flags)
        return false;
    PlanIntervalBounds bounds;
    return interval_bounds_find(split.items, split.count, join->inputs[0]->field_count, &bounds,
                                flags) &&
           !time_materialized(arena, join->inputs[0], bounds.left_time, depth) &&
           !time_materialized(arena, join->inputs[1], bounds.right_time, depth);
}
