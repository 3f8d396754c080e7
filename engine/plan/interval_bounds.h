/*
 * interval_bounds.h - recognising an interval join in a join condition, as
 * Flink's IntervalJoinUtil.extractWindowBoundsFromPredicate does.
 *
 * A join is an interval join when, among the conjuncts of its condition,
 * the time predicates are either one equality or two range comparisons
 * (<, <=, >, >=; BETWEEN is two) that bound the left time from below and
 * from above. A time predicate is a comparison whose two operands each read
 * exactly one time attribute and nothing else from the inputs (constants and
 * arithmetic on intervals are fine), the two attributes of the same kind
 * (both rowtime or both proctime) and of different inputs. A comparison
 * that reads a plain column (`B.dateTime <= A.expires`, Nexmark q4) is an
 * ordinary predicate: one time predicate alone (not an equality) or three
 * make no interval join, and the whole condition stays a regular join's.
 *
 * Bounds are the operands' constant parts with the time attributes taken as
 * 0, in milliseconds: for `l op r + c` with the left input's attribute on
 * the left, l - r op c; a strict < or > moves the bound by 1 ms inward.
 */
#ifndef JOINERY_PLAN_INTERVAL_BOUNDS_H
#define JOINERY_PLAN_INTERVAL_BOUNDS_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/plan/plan.h"

/*
 * Looks for the time predicates among `count` conjuncts over a join's
 * combined row (left input fields [0, left_count), then the right input's).
 * True when they make an interval join: *bounds is filled and
 * time_predicate[i] (count entries, the caller's) is set for the one or two
 * conjuncts that gave the bounds; the others are the equi keys and the
 * remaining condition. False otherwise (a regular join); time_predicate is
 * then all false. Never allocates.
 */
bool interval_bounds_find(Expr *const *conjuncts, uint32_t count, uint32_t left_count,
                          PlanIntervalBounds *bounds, bool *time_predicate);

/*
 * True when the time attribute `field` of `input` (a logical or physical
 * plan) came through a regular join or a MultiJoin: Flink materializes the
 * time attributes a regular join passes on (RelTimeIndicatorConverter), so
 * above it they are plain TIMESTAMPs and bound no interval join. Follows
 * the kinds' trace_field hooks; allocates (in `arena`) only to split the
 * conditions of logical joins on the way.
 */
bool interval_time_materialized(Arena *arena, const PlanNode *input, uint32_t field);

/*
 * True when `join` (a LOGICAL_JOIN) is an interval join as far as its
 * logical plan tells: its condition has interval bounds, its join type
 * projects the right side (not SEMI or ANTI) and its time attributes did
 * not come through a regular join. (Physical planning also requires
 * insert-only inputs.) The rules that must leave interval joins alone
 * (MultiJoin fusion, join reordering) ask this.
 */
bool interval_bounds_of_join(Arena *arena, const PlanNode *join);

#endif
