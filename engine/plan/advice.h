/*
 * advice.h - EXPLAIN PLAN_ADVICE: warnings and advice computed from a
 * physical plan, the ones the seed articles' troubleshooting tables give.
 */
#ifndef JOINERY_PLAN_ADVICE_H
#define JOINERY_PLAN_ADVICE_H

#include "engine/plan/planner.h"

typedef enum PlanAdviceLevel {
    PLAN_ADVICE_WARNING,
    PLAN_ADVICE_ADVICE,
} PlanAdviceLevel;

typedef struct PlanAdvice {
    const PlanNode *node; /* the node it is about */
    PlanAdviceLevel level;
    const char *text;
} PlanAdvice;

/*
 * Collects the advice for `physical` (logical is the bound plan, to see the
 * joins as written) into *advice (arena array), in plan order.
 */
int plan_collect_advice(PlannerContext *context, const PlanNode *logical, const PlanNode *physical,
                        PlanAdvice **advice, uint32_t *count);

#endif
