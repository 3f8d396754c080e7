/*
 * join_type.h - what the planner and the join operators share about a
 * join: its type and the input specs, each with the names Flink prints
 * (join_type.c holds every name, one switch per enum). plan/ uses them in
 * plan nodes and EXPLAIN; exec/ (above plan/) in the operator specs, so a
 * plan value goes into a spec as it is.
 */
#ifndef JOINERY_PLAN_JOIN_TYPE_H
#define JOINERY_PLAN_JOIN_TYPE_H

#include <stdbool.h>

typedef enum JoinType {
    JOIN_TYPE_INNER, /* CROSS = INNER without equi keys */
    JOIN_TYPE_LEFT,
    JOIN_TYPE_RIGHT,
    JOIN_TYPE_FULL,
    /* Left rows with a match (SEMI) or without one (ANTI), left fields only: Flink's
       LeftSemiJoin / LeftAntiJoin of IN / EXISTS subqueries (plan/bind_subquery.c); the
       regular join and the window join run them, the interval and MultiJoin operators
       reject them. */
    JOIN_TYPE_SEMI,
    JOIN_TYPE_ANTI,
} JoinType;

/* "inner", "left", ..., "semi", "anti": LogicalJoin's joinType=[...] */
const char *join_type_logical_name(JoinType type);
/* "InnerJoin", "LeftOuterJoin", ..., "LeftSemiJoin", "LeftAntiJoin": Join's joinType=[...]
   (and the operator's name) */
const char *join_type_name(JoinType type);
/* "INNER", "LEFT", ..., "SEMI", "ANTI": MultiJoin's joinTypes=[...] */
const char *join_type_multi_join_name(JoinType type);
/* True when left rows without a match are emitted NULL-padded (LEFT, FULL): the right
   side's fields become nullable. */
bool join_type_preserves_left(JoinType type);
/* True when right rows without a match are emitted NULL-padded (RIGHT, FULL). */
bool join_type_preserves_right(JoinType type);
/* True when output rows are the left fields then the right fields: every type but SEMI
   and ANTI (and an unknown value). */
bool join_type_emits_right(JoinType type);

/* Flink's JoinInputSideSpec: what the planner knows about an input's unique keys. */
typedef enum JoinInputSpec {
    JOIN_INPUT_NO_UNIQUE_KEY,
    JOIN_INPUT_HAS_UNIQUE_KEY,
    JOIN_INPUT_JOIN_KEY_CONTAINS_UNIQUE_KEY,
} JoinInputSpec;

/* "NoUniqueKey", "HasUniqueKey", "JoinKeyContainsUniqueKey": Join's left/rightInputSpec. */
const char *join_input_spec_name(JoinInputSpec spec);

#endif
