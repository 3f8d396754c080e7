/*
 * join_type.c - the names and the output rows of join types, the names of
 * input specs (join_type.h).
 * Each enum has one switch without a default, so -Wswitch flags a value
 * added without its names.
 */
#include "engine/plan/join_type.h"

typedef struct JoinTypeInfo {
    const char *logical;    /* LogicalJoin */
    const char *physical;   /* Join */
    const char *multi_join; /* MultiJoin */
    bool preserves_left;    /* left rows without a match are NULL-padded */
    bool preserves_right;
    bool emits_right; /* output rows: left fields, then right fields */
} JoinTypeInfo;

static JoinTypeInfo join_type_info(JoinType type)
{
    switch (type) {
    case JOIN_TYPE_INNER:
        return (JoinTypeInfo){"inner", "InnerJoin", "INNER", false, false, true};
    case JOIN_TYPE_LEFT:
        return (JoinTypeInfo){"left", "LeftOuterJoin", "LEFT", true, false, true};
    case JOIN_TYPE_RIGHT:
        return (JoinTypeInfo){"right", "RightOuterJoin", "RIGHT", false, true, true};
    case JOIN_TYPE_FULL:
        return (JoinTypeInfo){"full", "FullOuterJoin", "FULL", true, true, true};
    case JOIN_TYPE_SEMI:
        return (JoinTypeInfo){"semi", "LeftSemiJoin", "SEMI", false, false, false};
    case JOIN_TYPE_ANTI:
        return (JoinTypeInfo){"anti", "LeftAntiJoin", "ANTI", false, false, false};
    }
    return (JoinTypeInfo){"?", "?", "?", false, false, false};
}

const char *join_type_logical_name(JoinType type)
{
    return join_type_info(type).logical;
}

const char *join_type_name(JoinType type)
{
    return join_type_info(type).physical;
}

const char *join_type_multi_join_name(JoinType type)
{
    return join_type_info(type).multi_join;
}

bool join_type_preserves_left(JoinType type)
{
    return join_type_info(type).preserves_left;
}

bool join_type_preserves_right(JoinType type)
{
    return join_type_info(type).preserves_right;
}

bool join_type_emits_right(JoinType type)
{
    return join_type_info(type).emits_right;
}

const char *join_input_spec_name(JoinInputSpec spec)
{
    switch (spec) {
    case JOIN_INPUT_NO_UNIQUE_KEY:
        return "NoUniqueKey";
    case JOIN_INPUT_HAS_UNIQUE_KEY:
        return "HasUniqueKey";
    case JOIN_INPUT_JOIN_KEY_CONTAINS_UNIQUE_KEY:
        return "JoinKeyContainsUniqueKey";
    }
    return "NoUniqueKey";
}
