/*
 * window_properties.h - which fields of a plan node are the window bounds
 * a window table function made (Flink's RelWindowProperties metadata), and
 * whether a join is a window join (Flink's WindowJoinUtil).
 *
 * A field is a window field when it traces, through plain references of
 * projections and Calcs, filters, exchanges, watermark assigners and
 * window joins, to the window_start, window_end or window_time a window
 * table function appended (logical or physical plans alike; through window
 * joins, logical or physical, too). Window
 * aggregation (its output's window columns) extends the walk.
 */
#ifndef JOINERY_PLAN_WINDOW_PROPERTIES_H
#define JOINERY_PLAN_WINDOW_PROPERTIES_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/plan/plan.h"

typedef enum WindowFieldRole {
    WINDOW_FIELD_NONE,
    WINDOW_FIELD_START,
    WINDOW_FIELD_END,
    WINDOW_FIELD_TIME,
} WindowFieldRole;

/* The role of field `field` of `node`, and (when not NONE) the spec of its window. */
WindowFieldRole plan_window_field(const PlanNode *node, uint32_t field, const WindowSpec **spec);

/* How a join condition relates to the windows of its two inputs. */
typedef struct WindowJoinMatch {
    bool starts_equal;               /* a conjunct =(left window_start, right window_start) */
    bool ends_equal;                 /* likewise for window_end */
    uint32_t left_start, left_end;   /* the left input's fields */
    uint32_t right_start, right_end; /* the right input's fields (right-relative) */
    const WindowSpec *left_spec, *right_spec;
} WindowJoinMatch;

/*
 * Looks for the window bound equalities in a (logical or physical) join's
 * ON condition over left ++ right: fills *match. A window join is a join
 * whose condition has both (Flink: window starts equality and window ends
 * equality are both required).
 */
void plan_window_join_match(const PlanNode *join, const Expr *condition, WindowJoinMatch *match);

/* True for a LogicalJoin that plans as a WindowJoin (never fused into a MultiJoin). */
bool plan_join_is_window_join(const PlanNode *join);

#endif
