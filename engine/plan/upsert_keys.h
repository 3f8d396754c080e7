/*
 * upsert_keys.h - the upsert keys of a physical node (Flink's
 * FlinkRelMdUpsertKeys; upsert_keys.c says how they differ from unique
 * keys), for the Sink's upsert materializer.
 */
#ifndef JOINERY_PLAN_UPSERT_KEYS_H
#define JOINERY_PLAN_UPSERT_KEYS_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/base/arena.h"
#include "engine/plan/plan.h"

/* The upsert keys of a derived physical node into `keys` (fields sorted, in `arena`);
   returns how many (0: none, also past the walk's depth guard or without memory). */
uint32_t plan_upsert_keys(Arena *arena, const PlanNode *node, PlanKey keys[PLAN_MAX_UNIQUE_KEYS]);

/* True when an upsert key of `node` lies within fields[0..count). */
bool plan_upsert_key_within(Arena *arena, const PlanNode *node, const uint32_t *fields,
                            uint32_t count);

#endif
