/*
 * physical.h - physical planning and property derivation (internal to plan/).
 */
#ifndef JOINERY_PLAN_PHYSICAL_H
#define JOINERY_PLAN_PHYSICAL_H

#include "engine/plan/planner.h"

/* Converts an optimized logical plan into a physical plan. */
int plan_to_physical(PlannerContext *context, PlanNode *logical, PlanNode **physical);
/*
 * Fills changelog modes, unique keys, join input specs, boundedness,
 * estimates and effective state TTL of every node; rejects plans whose sink
 * cannot take the changes they produce.
 */
int plan_derive_properties(PlannerContext *context, PlanNode *physical);

#endif
