/*
 * nodes.c - the table of node kind descriptors (nodes.h), indexed by
 * PlanKind.
 */
#include "engine/plan/nodes/nodes.h"

static const PlanKindInfo *const plan_kinds[] = {
    [PLAN_LOGICAL_TABLE_SCAN] = &plan_kind_logical_table_scan,
    [PLAN_LOGICAL_WATERMARK_ASSIGNER] = &plan_kind_logical_watermark_assigner,
    [PLAN_LOGICAL_PROJECT] = &plan_kind_logical_project,
    [PLAN_LOGICAL_FILTER] = &plan_kind_logical_filter,
    [PLAN_LOGICAL_JOIN] = &plan_kind_logical_join,
    [PLAN_LOGICAL_AGGREGATE] = &plan_kind_logical_aggregate,
    [PLAN_LOGICAL_UNION] = &plan_kind_logical_union,
    [PLAN_LOGICAL_VALUES] = &plan_kind_logical_values,
    [PLAN_LOGICAL_SINK] = &plan_kind_logical_sink,
    [PLAN_LOGICAL_MULTI_JOIN] = &plan_kind_logical_multi_join,
    [PLAN_LOGICAL_TABLE_FUNCTION_SCAN] = &plan_kind_logical_table_function_scan,
    [PLAN_LOGICAL_CORRELATE] = &plan_kind_logical_correlate,
    [PLAN_LOGICAL_CORRELATE_FILTER] = &plan_kind_logical_correlate_filter,
    [PLAN_LOGICAL_SNAPSHOT] = &plan_kind_logical_snapshot,
    [PLAN_LOGICAL_ROW_NUMBER] = &plan_kind_logical_row_number,
    [PLAN_LOGICAL_SORT] = &plan_kind_logical_sort,
    [PLAN_LOGICAL_TABLE_CORRELATE] = &plan_kind_logical_table_correlate,
    [PLAN_LOGICAL_TABLE_FUNCTION_CALL] = &plan_kind_logical_table_function_call,
    [PLAN_TABLE_SOURCE_SCAN] = &plan_kind_table_source_scan,
    [PLAN_WATERMARK_ASSIGNER] = &plan_kind_watermark_assigner,
    [PLAN_CALC] = &plan_kind_calc,
    [PLAN_EXCHANGE] = &plan_kind_exchange,
    [PLAN_JOIN] = &plan_kind_join,
    [PLAN_GROUP_AGGREGATE] = &plan_kind_group_aggregate,
    [PLAN_UNION] = &plan_kind_union,
    [PLAN_VALUES] = &plan_kind_values,
    [PLAN_SINK] = &plan_kind_sink,
    [PLAN_MULTI_JOIN] = &plan_kind_multi_join,
    [PLAN_CHANGELOG_NORMALIZE] = &plan_kind_changelog_normalize,
    [PLAN_INTERVAL_JOIN] = &plan_kind_interval_join,
    [PLAN_WINDOW_TABLE_FUNCTION] = &plan_kind_window_table_function,
    [PLAN_WINDOW_JOIN] = &plan_kind_window_join,
    [PLAN_SESSION_WINDOW_TABLE_FUNCTION] = &plan_kind_session_window_table_function,
    [PLAN_TEMPORAL_JOIN] = &plan_kind_temporal_join,
    [PLAN_DROP_UPDATE_BEFORE] = &plan_kind_drop_update_before,
    [PLAN_DEDUPLICATE] = &plan_kind_deduplicate,
    [PLAN_RANK] = &plan_kind_rank,
    [PLAN_SORT_LIMIT] = &plan_kind_sort_limit,
    [PLAN_WINDOW_RANK] = &plan_kind_window_rank,
    [PLAN_WINDOW_DEDUPLICATE] = &plan_kind_window_deduplicate,
    [PLAN_MINI_BATCH_ASSIGNER] = &plan_kind_mini_batch_assigner,
    [PLAN_WINDOW_AGGREGATE] = &plan_kind_window_aggregate,
    [PLAN_LIMIT] = &plan_kind_limit,
    [PLAN_SORT] = &plan_kind_sort,
    [PLAN_TEMPORAL_SORT] = &plan_kind_temporal_sort,
    [PLAN_LOOKUP_JOIN] = &plan_kind_lookup_join,
    [PLAN_GROUP_WINDOW_AGGREGATE] = &plan_kind_group_window_aggregate,
    [PLAN_LOCAL_GROUP_AGGREGATE] = &plan_kind_local_group_aggregate,
    [PLAN_GLOBAL_GROUP_AGGREGATE] = &plan_kind_global_group_aggregate,
    [PLAN_LOGICAL_OVER_AGGREGATE] = &plan_kind_logical_over_aggregate,
    [PLAN_OVER_AGGREGATE] = &plan_kind_over_aggregate,
    [PLAN_CORRELATE] = &plan_kind_correlate,
    [PLAN_STATEMENT_SET] = &plan_kind_statement_set,
};

/* A kind appended to PlanKind without its row makes the table one short; a row left out
   in the middle is a NULL that tests/unit/check_plan_kinds.c finds. */
_Static_assert(sizeof plan_kinds / sizeof plan_kinds[0] == PLAN_KIND_COUNT,
               "every PlanKind has its descriptor in plan_kinds[]");

const PlanKindInfo *plan_kind_info(PlanKind kind)
{
    return plan_kinds[kind];
}
