/*
 * plan.h - logical and physical plan nodes: the planner's data.
 *
 * One tagged struct for every node kind, logical (what the binder builds and
 * EXPLAIN's "Abstract Syntax Tree" shows) and physical (what the optimizer
 * produces and the executor runs). Invariants:
 * - Nodes live in the statement arena and form a tree (a node has exactly
 *   one parent); rewrites build new nodes rather than mutate shared ones.
 * - Every node has its output row type: field names (unique within the
 *   node, duplicates suffixed 0, 1... as Calcite does) and types.
 * - Expressions in a node refer to the node's input fields (for joins: left
 *   fields then right fields).
 * - Derived properties (changelog mode, unique keys, estimates, TTL) are
 *   filled by plan_derive_properties after physical planning.
 */
#ifndef JOINERY_PLAN_H
#define JOINERY_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "catalog/catalog.h"
#include "engine/base/arena.h"
#include "engine/plan/expr.h"
#include "engine/plan/join_type.h"
#include "engine/plan/lookup_join_options.h"
#include "engine/plan/window_spec.h"

/*
 * The node kinds. What a kind is and does (its name, flags, EXPLAIN printer,
 * conversion, derivation, estimates, rule hooks) is its descriptor in
 * nodes/ (nodes/nodes.h); a new kind is a line here, its descriptor and
 * its row in plan_kinds[] (nodes/nodes.c).
 */
typedef enum PlanKind {
    /* logical */
    PLAN_LOGICAL_TABLE_SCAN,
    PLAN_LOGICAL_WATERMARK_ASSIGNER,
    PLAN_LOGICAL_PROJECT,
    PLAN_LOGICAL_FILTER,
    PLAN_LOGICAL_JOIN,
    PLAN_LOGICAL_AGGREGATE,
    PLAN_LOGICAL_UNION,
    PLAN_LOGICAL_VALUES,
    PLAN_LOGICAL_SINK,
    PLAN_LOGICAL_MULTI_JOIN,          /* made by rules/fuse_multi_join.c, never by the binder */
    PLAN_LOGICAL_TABLE_FUNCTION_SCAN, /* a window table function (TUMBLE, HOP, ...) */
    /* FOR SYSTEM_TIME AS OF, as Calcite binds it: LogicalCorrelate(left, LogicalFilter(ON,
       LogicalSnapshot(versioned))); nodes/node_temporal_join.c */
    PLAN_LOGICAL_CORRELATE,
    PLAN_LOGICAL_CORRELATE_FILTER,
    PLAN_LOGICAL_SNAPSHOT,
    /* a SELECT with ROW_NUMBER() OVER, printed LogicalProject (nodes/node_deduplicate.c) */
    PLAN_LOGICAL_ROW_NUMBER,
    /* ORDER BY / LIMIT / OFFSET / FETCH: Calcite's LogicalSort (nodes/node_sort.c) */
    PLAN_LOGICAL_SORT,
    PLAN_LOGICAL_OVER_AGGREGATE, /* agg(...) OVER window (aggregate.*, bind_over.c) */
    /* a join with UNNEST(...) or LATERAL TABLE(f(...)): LogicalCorrelate(left, the call), the
       call a leaf printed LogicalTableFunctionScan (nodes/node_correlate.c) */
    PLAN_LOGICAL_TABLE_CORRELATE,
    PLAN_LOGICAL_TABLE_FUNCTION_CALL,
    /* physical */
    PLAN_TABLE_SOURCE_SCAN,
    PLAN_WATERMARK_ASSIGNER,
    PLAN_CALC,
    PLAN_EXCHANGE,
    PLAN_JOIN,
    PLAN_GROUP_AGGREGATE,
    PLAN_UNION,
    PLAN_VALUES,
    PLAN_SINK,
    PLAN_MULTI_JOIN,
    PLAN_CHANGELOG_NORMALIZE,   /* upsert source -> full changelog, keyed by exchange.keys */
    PLAN_INTERVAL_JOIN,         /* a time-bounded join (join.*, join.interval) */
    PLAN_WINDOW_TABLE_FUNCTION, /* window bounds added to every row (window.*) */
    PLAN_WINDOW_JOIN,           /* two windowed inputs joined per window (window_join.*) */
    PLAN_SESSION_WINDOW_TABLE_FUNCTION, /* SESSION windows merged per partition key (window.*) */
    PLAN_TEMPORAL_JOIN,                 /* event-time temporal join (node_temporal_join.c) */
    PLAN_DROP_UPDATE_BEFORE,            /* drops -U rows a versioned side does not need */
    PLAN_DEDUPLICATE,                   /* first/last row per key by a time attribute */
    PLAN_MINI_BATCH_ASSIGNER,           /* batch ends for mini-batch operators (mini_batch) */
    PLAN_WINDOW_AGGREGATE,              /* aggregation per window, final rows (aggregate.*) */
    PLAN_LIMIT,                         /* the first rows of its input (sort.*) */
    PLAN_SORT,                          /* batch mode: the final rows sorted at the end (sort.*) */
    PLAN_TEMPORAL_SORT,                 /* streaming ORDER BY a time attribute ASC (sort.*) */
    PLAN_RANK,                          /* Top-N per partition (rank.*; nodes/node_rank.c) */
    PLAN_SORT_LIMIT,                    /* ORDER BY ... LIMIT: a global Rank (rank.*) */
    PLAN_WINDOW_RANK,            /* Top-N per window and key (rank.*; nodes/node_window_rank.c) */
    PLAN_WINDOW_DEDUPLICATE,     /* first/last row per window and key by rowtime (rank.*) */
    PLAN_LOOKUP_JOIN,            /* rows enriched from a table looked up by key (lookup.*) */
    PLAN_GROUP_WINDOW_AGGREGATE, /* GROUP BY TUMBLE/HOP/SESSION(time, ...) (aggregate.*) */
    /* two-phase aggregation with mini-batch (aggregate.*; rules/split_two_phase_aggregate.c):
       the partial accumulators of each batch, and their merge over a hash exchange */
    PLAN_LOCAL_GROUP_AGGREGATE,
    PLAN_GLOBAL_GROUP_AGGREGATE,
    PLAN_OVER_AGGREGATE, /* aggregates over a frame per row (aggregate.*; node_over_aggregate.c) */
    PLAN_CORRELATE, /* rows of a table function per input row: UNNEST, a C UDTF (correlate.*) */
    /* a statement set's root: its inputs are its Sinks, one job (node_statement_set.c) */
    PLAN_STATEMENT_SET,
    PLAN_KIND_COUNT /* not a kind: the number of kinds (keep it last) */
} PlanKind;

typedef enum PlanDistribution {
    PLAN_DISTRIBUTION_HASH,
    PLAN_DISTRIBUTION_SINGLE,
} PlanDistribution;

/*
 * What a LOGICAL_TABLE_FUNCTION_CALL of UNNEST prints as: Flink's AST shows
 * [LogicalProject(s=[$0])] over Uncollect over LogicalProject(c=[$cor0.c]) over
 * LogicalValues(tuples=[[{ 0 }]]) where a LATERAL TABLE shows one
 * LogicalTableFunctionScan. Printing only: the correlate's conversion reads none of them.
 */
typedef enum PlanUnnestPart {
    PLAN_UNNEST_UNCOLLECT, /* Uncollect (the node the correlate's right input is) */
    PLAN_UNNEST_ALIASES,   /* LogicalProject(s=[$0], ...) over it: AS t(s, ...) */
    PLAN_UNNEST_ARGUMENT,  /* LogicalProject(c=[$cor0.c]) below it */
} PlanUnnestPart;

/* The rank function of a LOGICAL_ROW_NUMBER / RANK node. */
typedef enum PlanRankFunction {
    PLAN_RANK_ROW_NUMBER,
    PLAN_RANK_RANK,
    PLAN_RANK_DENSE_RANK,
} PlanRankFunction;

/* Flink's RankProcessStrategy of a RANK node. */
typedef enum PlanRankStrategy {
    PLAN_RANK_APPEND_FAST, /* insert-only input */
    PLAN_RANK_UPDATE_FAST, /* updates by a unique key that contains the partition, in a
                              monotonic order */
    PLAN_RANK_RETRACT,     /* anything else */
} PlanRankStrategy;

typedef enum PlanAggregateKind {
    PLAN_AGGREGATE_COUNT_STAR,
    PLAN_AGGREGATE_COUNT,
    PLAN_AGGREGATE_SUM,
    PLAN_AGGREGATE_MIN,
    PLAN_AGGREGATE_MAX,
    PLAN_AGGREGATE_AVG,
    PLAN_AGGREGATE_LISTAGG,
    PLAN_AGGREGATE_FIRST_VALUE,
    PLAN_AGGREGATE_LAST_VALUE,
    PLAN_AGGREGATE_COLLECT,
    PLAN_AGGREGATE_ARRAY_AGG,
    PLAN_AGGREGATE_SUM0, /* $SUM0 (0 over no value): made by rules/split_distinct_aggregate.c */
    PLAN_AGGREGATE_USER_DEFINED, /* a C aggregate function (udf; engine/udf/README.md) */
} PlanAggregateKind;

enum { PLAN_PARTIAL_FINAL_NONE, PLAN_PARTIAL_FINAL_PARTIAL, PLAN_PARTIAL_FINAL_FINAL };

/* The arguments of a user-defined aggregate call at most: joinery_udf.h's limit (udf.c
   loads no function of more); the third on are a call's more_arguments. */
enum { PLAN_AGGREGATE_MAX_ARGUMENTS = 64, PLAN_AGGREGATE_MORE_ARGUMENTS = 62 };

typedef struct PlanAggregateCall {
    PlanAggregateKind kind;
    uint32_t argument; /* input field; unused for COUNT(*) */
    bool distinct;
    DataType result_type;
    char *name;         /* output field name */
    bool has_separator; /* LISTAGG(x, separator): the separator is input field `separator` */
    uint32_t separator;
    /* agg(...) FILTER (WHERE c): the call reads only the rows whose NOT NULL BOOLEAN
       input field `filter` is TRUE (Calcite's filterArg) */
    bool has_filter;
    uint32_t filter;
    /* PLAN_AGGREGATE_USER_DEFINED: the function (engine/udf/udf.h); its first argument is
       `argument`, a second one `separator` (has_separator), the others input fields
       more_arguments[0 .. more_argument_count) */
    const struct UdfFunction *udf;
    uint32_t more_argument_count;
    uint32_t more_arguments[PLAN_AGGREGATE_MORE_ARGUMENTS];
} PlanAggregateCall;

/* Changelog mode bits: which row kinds a node may produce. */
enum {
    CHANGELOG_INSERT = 1,
    CHANGELOG_UPDATE_BEFORE = 2,
    CHANGELOG_UPDATE_AFTER = 4,
    CHANGELOG_DELETE = 8,
};

enum { PLAN_MAX_UNIQUE_KEYS = 8 };

/* A set of field indexes (sorted ascending). */
typedef struct PlanKey {
    uint32_t *fields;
    uint32_t count;
} PlanKey;

/*
 * The time bounds of an interval join (Flink's IntervalJoinSpec.WindowBounds):
 * a left row at time l and a right row at time r may join when
 * left_lower <= l - r <= left_upper (milliseconds). Event time reads the
 * time attributes left_time / right_time of the inputs; processing time
 * uses the clock when a row arrives (the fields are then the proctime
 * attributes the condition names, printed only).
 */
typedef struct PlanIntervalBounds {
    bool rowtime; /* isRowTime */
    int64_t left_lower;
    int64_t left_upper;
    uint32_t left_time;  /* field of the left input */
    uint32_t right_time; /* field of the right input */
    /* table.exec.interval-join.min-cleanup-interval: how much later rows are freed */
    int64_t min_cleanup_millis;
} PlanIntervalBounds;

/* One key of a sort's collation: an input field, its direction and where NULLs go. */
typedef struct PlanSortKey {
    uint32_t field;
    bool descending;
    bool nulls_first;
} PlanSortKey;

typedef struct PlanField {
    char *name;
    DataType type;
} PlanField;

typedef struct PlanNode PlanNode;

struct PlanNode {
    PlanKind kind;
    int id; /* unique in the plan, for metrics */
    PlanNode **inputs;
    uint32_t input_count;
    PlanField *fields;
    uint32_t field_count;

    /* derived properties */
    unsigned changelog_mode; /* CHANGELOG_* bits */
    PlanKey unique_keys[PLAN_MAX_UNIQUE_KEYS];
    uint32_t unique_key_count;
    double row_count;               /* estimate; < 0 unknown */
    bool bounded;                   /* input ends by itself */
    int64_t state_ttl_millis;       /* effective TTL of stateful nodes (0 = forever) */
    int64_t state_ttl_right_millis; /* joins: right side TTL */
    bool ttl_from_hint;             /* true when a STATE_TTL hint set it */

    union {
        struct { /* LOGICAL_TABLE_SCAN and TABLE_SOURCE_SCAN */
            const CatalogTable *table;
            uint32_t *columns; /* table columns read: the column_count output
                                  columns first, then read_count - column_count
                                  columns only the filter reads */
            uint32_t column_count;
            uint32_t read_count; /* >= column_count; 0 means column_count */
            Expr *filter;        /* pushed-down filter over the read columns; NULL */
            bool projected;      /* projection pushed (print project=[...]) */
            /* watermark pushed into the source (rules/push_watermark.c): generated per
               split by the reader's scan; NULL when the table has none or a
               WatermarkAssigner generates it */
            Expr *watermark;                   /* over the output fields */
            int64_t idle_timeout_millis;       /* table.exec.source.idle-timeout; 0 = off */
            int64_t watermark_interval_millis; /* pipeline.auto-watermark-interval */
        } scan;
        struct { /* WATERMARK_ASSIGNER (both) */
            uint32_t rowtime_field;
            Expr *watermark; /* over the input fields */
        } watermark;
        struct { /* LOGICAL_PROJECT, CALC (projects) */
            Expr **projects;
            uint32_t project_count;
            Expr *condition; /* CALC only; NULL when none */
        } calc;
        struct { /* LOGICAL_FILTER */
            Expr *condition;
        } filter;
        struct { /* LOGICAL_JOIN, JOIN, INTERVAL_JOIN */
            JoinType join_type;
            Expr *condition;     /* full ON condition (logical; printing) */
            uint32_t *left_keys; /* equi keys (physical) */
            uint32_t *right_keys;
            bool *null_safe;
            uint32_t key_count;
            Expr *residual; /* non-equi part; NULL when none */
            JoinInputSpec left_spec;
            JoinInputSpec right_spec;
            const char *left_hint_name; /* table/alias names a STATE_TTL hint may use */
            const char *right_hint_name;
            const char *state_ttl_hint; /* the hint as EXPLAIN's AST shows it; NULL */
            /* INTERVAL_JOIN: the time bounds; `residual` is then what remains of the
               condition besides the equi keys and the time predicates */
            PlanIntervalBounds interval;
            /* JOIN: table.exec.mini-batch.size when mini-batch is on (FLIP-415's
               mini-batch join); 0 = row by row */
            int64_t mini_batch_size;
            /* JOIN: the input is an upsert stream keyed by its join key, its
               ChangelogNormalize dropped (rules/drop_changelog_normalize.c) */
            bool upsert_left, upsert_right;
        } join;
        struct {                   /* [LOGICAL_]MULTI_JOIN: a left-deep chain of joins fused */
            JoinType *join_types;  /* [i], i >= 1: how input i joins inputs 0..i-1 */
            Expr **conditions;     /* [i], i >= 1: the step's ON condition over the
                                      concatenated fields of inputs 0..i; NULL = true */
            uint32_t **key_fields; /* [i]: input i's fields of the common key */
            uint32_t common_key_count;
            int64_t *ttl_millis;      /* [i]: hint value, -1 = session default
                                         (derive.c resolves it) */
            const char **input_names; /* [i]: table or alias name, NULL for a subplan */
            bool *upsert_inputs;      /* [i]: an upsert stream keyed by the common key, its
                                         ChangelogNormalize dropped; NULL = none */
            /* MULTI_JOIN: table.exec.mini-batch.size when mini-batch is on (joinery's
               mini-batch MultiJoin, op_multi_join.h); 0 = row by row */
            int64_t mini_batch_size;
        } multi_join;
        struct { /* LOGICAL_AGGREGATE, GROUP_AGGREGATE, WINDOW_AGGREGATE */
            uint32_t *group_keys;
            uint32_t group_key_count;
            PlanAggregateCall *calls;
            uint32_t call_count;
            /* GROUP_AGGREGATE, LOCAL_ / GLOBAL_GROUP_AGGREGATE: table.exec.mini-batch.size
               when mini-batch is on (rows buffered per batch, folded per key at its end);
               0 = row by row. LOCAL_ and GLOBAL_ share one calls array, whose arguments
               are fields of the local aggregate's input. */
            int64_t mini_batch_size;
            /* WINDOW_AGGREGATE: the window of the folded window table function, its
               time attribute (an input field), and whether window_time follows
               window_start and window_end after the calls */
            WindowSpec window;
            uint32_t time_field;
            bool emits_window_time;
            /* Flink's partialFinalType of a split distinct aggregate
               (rules/split_distinct_aggregate.c): PLAN_PARTIAL_FINAL_NONE, _PARTIAL (by
               the group keys and the bucket) or _FINAL (by the group keys) */
            uint8_t partial_final;
            /* LOGICAL_AGGREGATE: a STATE_TTL hint naming the aggregate's input, as
               EXPLAIN's AST shows it (the value is state_ttl_millis); NULL */
            const char *state_ttl_hint;
            /* LOGICAL_AGGREGATE: an auxiliary function (TUMBLE_START, ...) reads its group
               window key. GROUP_WINDOW_AGGREGATE: the window is on processing time, and
               the properties follow the calls (w$start, w$end [, w$rowtime], w$proctime) */
            bool group_window_properties;
            bool proctime;
            /* WINDOW_AGGREGATE over SESSION windows: the window table function stays
               below (Flink's unfused form, win_start=[...], win_end=[...]); each row's
               window is its window_start / window_end input fields; the function's
               partition keys, by name, for EXPLAIN */
            bool windows_from_fields;
            uint32_t window_start_field, window_end_field;
            const char *const *window_partition_names;
            uint32_t window_partition_count;
            /* [LOGICAL_]OVER_AGGREGATE: group_keys are PARTITION BY, ORDER BY time_field (a
               time attribute, `proctime` says which); the frame ends at CURRENT ROW and
               starts over_preceding rows (over_rows) or milliseconds (RANGE) before it, -1 =
               UNBOUNDED PRECEDING. Physical: the calls' results follow the input fields.
               Logical: the node's fields are the SELECT items over_projects, over the input
               fields then the calls' results; each call's argument is over_arguments[i]
               (over the input; NULL for COUNT(*)), calls[i].argument and .separator unused
               (over_separators[i] is LISTAGG's separator); over_offset is
               the PRECEDING literal as written (NULL when UNBOUNDED); over_order, when set,
               the ORDER BY expression (PROCTIME()) in place of time_field */
            bool over_rows;
            int64_t over_preceding;
            Expr **over_projects;
            Expr **over_arguments;
            Expr **over_separators; /* logical: LISTAGG's constant separator; NULL */
            /* logical: [i] a user-defined call's 3rd argument on (calls[i].more_argument_count
               of them, over the input); NULL */
            Expr ***over_more;
            Expr *over_offset;
            Expr *over_order;
            Expr **over_partition; /* logical: [k] the expression of PARTITION BY key k when it
                                      is not a column (group_keys[k] unused); NULL */
        } aggregate;
        struct {                     /* MINI_BATCH_ASSIGNER */
            int64_t interval_millis; /* table.exec.mini-batch.allow-latency */
            bool rowtime;            /* mode=[RowTime]: batches follow the watermark */
        } mini_batch;
        struct { /* EXCHANGE; CHANGELOG_NORMALIZE uses keys */
            PlanDistribution distribution;
            uint32_t *keys;
            uint32_t key_count;
            /* CHANGELOG_NORMALIZE: table.exec.mini-batch.size when mini-batch is on; 0 = row
               by row */
            int64_t mini_batch_size;
        } exchange;
        struct { /* LOGICAL_UNION, UNION */
            bool all;
        } set;
        struct {          /* LOGICAL_VALUES, VALUES */
            Expr ***rows; /* rows[r][c]: constant expressions */
            uint32_t row_count;
        } values;
        struct { /* LOGICAL_TABLE_FUNCTION_SCAN, [SESSION_]WINDOW_TABLE_FUNCTION */
            WindowSpec spec;
            uint32_t time_field;      /* the input's time attribute (DESCRIPTOR) */
            uint32_t *partition_keys; /* SESSION's PARTITION BY, input fields */
            uint32_t partition_key_count;
            /* the interval arguments as written, in Flink's order (TUMBLE size
               [, offset]; HOP slide, size [, offset]; CUMULATE step, size [, offset];
               SESSION gap), for the AST's invocation=[...] */
            Expr **arguments;
            uint32_t argument_count;
        } window;
        struct {                 /* WINDOW_JOIN */
            JoinType join_type;  /* INNER, LEFT, RIGHT, FULL */
            Expr *condition;     /* where=[...]: the equi keys and residual, over left ++ right */
            uint32_t *left_keys; /* equi keys other than the window bounds */
            uint32_t *right_keys;
            bool *null_safe;
            uint32_t key_count;
            Expr *residual; /* non-equi part; NULL when none */
            WindowSpec left_window, right_window;
            /* each input's window_start / window_end fields */
            uint32_t left_window_start, left_window_end;
            uint32_t right_window_start, right_window_end;
        } window_join;
        struct { /* LOGICAL_CORRELATE, LOGICAL_CORRELATE_FILTER, LOGICAL_SNAPSHOT, TEMPORAL_JOIN */
            JoinType join_type;
            /* the ON condition over left then right fields (logical: the filter's; physical:
               the equi keys then the residual, printed with __TEMPORAL_JOIN_CONDITION) */
            Expr *condition;
            uint32_t period_field; /* the left field FOR SYSTEM_TIME AS OF names */
            /* logical: the left fields, for printing $cor0.name; required = the left fields
               the condition and the period read (Calcite's requiredColumns) */
            const char *const *left_names;
            uint32_t left_count;
            uint32_t *required;
            uint32_t required_count;
            uint32_t right_time_field; /* the versioned side's rowtime */
            uint32_t *primary_key;     /* its primary key, versioned side fields */
            uint32_t primary_key_count;
            /* physical */
            uint32_t *left_keys, *right_keys;
            uint32_t key_count;
            Expr *residual; /* non-equi part; NULL when none */
            /* logical, processing time against a table that can be looked up: the lookup
               join's options (hint and table); NULL for an event-time temporal join */
            const PlanLookupOptions *lookup;
        } temporal;
        struct { /* LOGICAL_TABLE_CORRELATE, LOGICAL_TABLE_FUNCTION_CALL, CORRELATE */
            JoinType join_type;                 /* INNER or LEFT */
            const struct UdfFunction *function; /* the table function; NULL: UNNEST */
            Expr **arguments;                   /* over the left input's fields */
            uint32_t argument_count;
            /* the left input's field names (for $cor0.name) and count; the node's fields are
               the left fields then the function's (LOGICAL_TABLE_FUNCTION_CALL: the
               function's only) */
            const char *const *left_names;
            uint32_t left_count;
            /* LOGICAL_TABLE_FUNCTION_CALL of UNNEST: which of the nodes of Flink's AST it
               prints as (node_correlate.c) */
            PlanUnnestPart unnest_part;
            /* UNNEST ... WITH ORDINALITY: the function's last field is the element's
               1-based position (INT NOT NULL ORDINALITY), $UNNEST_ROWS_WITH_ORDINALITY$1 */
            bool with_ordinality;
            /* INNER: the WHERE conjuncts on the function's fields only, over the node's
               fields (Flink's condition=[...], printed over the function's: $0 = the first
               function field); NULL when none */
            Expr *condition;
        } correlate;
        struct {                       /* LOOKUP_JOIN (nodes/node_lookup_join.c) */
            JoinType join_type;        /* INNER or LEFT */
            const CatalogTable *table; /* the table looked up */
            uint32_t *columns;         /* its columns produced: the right fields */
            uint32_t column_count;
            /* lookup=[...]: key k reads table column columns[key_fields[k]] (a right field)
               and matches key_values[k], over the input: an input ref or a constant */
            uint32_t *key_fields;
            Expr **key_values;
            uint32_t key_count;
            Expr *where;     /* where=[...]: over the right fields; NULL when none */
            Expr *condition; /* joinCondition=[...]: over input ++ right; NULL */
            bool ordered;    /* derived: allow_unordered only over insert-only input */
            const PlanLookupOptions *options;
        } lookup;
        struct {             /* LOGICAL_ROW_NUMBER, DEDUPLICATE, RANK, SORT_LIMIT, WINDOW_RANK,
                                WINDOW_DEDUPLICATE */
            Expr **projects; /* logical: the SELECT items, NULL at number_field */
            uint32_t project_count;
            /* logical: where the rank function is among the SELECT items (UINT32_MAX once
               pruned away); RANK: its field, the last, when the rank number is output,
               else UINT32_MAX */
            uint32_t number_field;
            PlanRankFunction function;
            uint32_t *partition; /* PARTITION BY fields of the input */
            uint32_t partition_count;
            /* ORDER BY: fields of the input, each ASC/DESC and NULLS FIRST/LAST (Flink's
               defaults: ASC NULLS FIRST, DESC NULLS LAST); order_field and descending are
               the first of them (what Deduplicate orders by) */
            uint32_t *order_fields;
            bool *order_descending;
            bool *order_nulls_first;
            uint32_t order_count;
            uint32_t order_field;
            bool descending;
            /* the rank range taken from the filters on the rank (rn <= 3, rn = 2, rn
               BETWEEN 2 AND 5 ...); logical: rank_end 0 until one with an upper bound
               was pushed into it; SORT_LIMIT: OFFSET + 1 to OFFSET + FETCH, rank_end
               INT64_MAX without a FETCH */
            int64_t rank_start;
            int64_t rank_end;
            /* physical */
            bool keep_last; /* DEDUPLICATE: ORDER BY ... DESC */
            bool proctime;  /* DEDUPLICATE: ORDER BY a processing-time attribute (arrival order) */
            bool generate_update_before; /* -U before each +U (unless the consumer needs none) */
            int64_t mini_batch_size;     /* DEDUPLICATE: table.exec.mini-batch.size with mini-batch
                                            on; 0 = row by row */
            /* RANK: chosen by derive from the input's changelog mode, unique keys and
               monotonicity, as Flink's RankProcessStrategy; UPDATE_FAST with the unique
               key (input fields) it upserts by */
            PlanRankStrategy strategy;
            uint32_t *unique_key;
            uint32_t unique_key_count;
            /* WINDOW_RANK, WINDOW_DEDUPLICATE: the window of the input's window_start and
               window_end fields (partition holds the other PARTITION BY fields) */
            WindowSpec window;
            uint32_t window_start_field, window_end_field;
        } rank;
        struct {                /* LOGICAL_SORT, LIMIT, SORT, TEMPORAL_SORT */
            PlanSortKey *keys;  /* the collation, over the input fields (= the node's) */
            uint32_t key_count; /* 0: LIMIT / OFFSET without ORDER BY */
            int64_t offset;     /* rows skipped; -1 when absent (printed only when given) */
            int64_t fetch;      /* rows kept after the offset; -1 = unlimited */
            /* where the statement says it, for the planner's errors: the first ORDER BY
               key, else LIMIT / OFFSET / FETCH (1-based; 0 = unknown) */
            int line, column;
            /* LIMIT: the top of the query (only Calcs above it): the job ends its sources
               once offset + fetch rows have passed */
            bool ends_job;
            /* LIMIT in batch mode over an updating input: the final rows are materialised
               and cut at the end of input (derive.c sets it) */
            bool materialize;
            bool batch; /* LIMIT: planned in batch mode */
        } sort;
        struct {                       /* LOGICAL_SINK, SINK */
            const CatalogTable *table; /* NULL: collect to the client */
            uint32_t *target_columns;  /* sink column per input field */
            /* Flink's upsertMaterialize=[true] (node_sink.c decides): the input fields of
               the table's primary key, by which the sink's materializer keeps its rows */
            bool upsert_materialize;
            uint32_t *key_fields;
            uint32_t key_count;
        } sink;
    };
};

/* True when `condition` (a conjunct or an AND) keeps row number 1 only of field
   `number_field`: rn = 1, rn <= 1, rn < 2 (nodes/node_deduplicate.c). */
bool plan_is_first_rank_condition(const Expr *condition, uint32_t number_field);
/* Allocates a node with `input_count` inputs and `field_count` fields. */
PlanNode *plan_node_new(Arena *arena, PlanKind kind, uint32_t input_count, uint32_t field_count);
/* True when scans of the table produce an upsert stream (ChangelogNormalize needed). */
bool plan_table_is_upsert_source(const CatalogTable *table);
/* Index in `node` (a scan) of the table's primary key column `key`, or -1. */
int plan_scan_field_of_column(const PlanNode *node, int column);
/* Shallow copy with its own inputs array (attributes shared); NULL on no memory. */
PlanNode *plan_node_copy(Arena *arena, const PlanNode *node);
/* Field names of a node as a char* array (for expr_print). */
const char *const *plan_field_names(Arena *arena, const PlanNode *node);
/* Field names of a two-input node's combined input (left then right). */
const char *const *plan_join_input_names(Arena *arena, const PlanNode *node);
/* Gives every field a unique name: duplicates get suffixes 0, 1, ... */
void plan_uniquify_names(Arena *arena, PlanField *fields, uint32_t count);
/* Node name as Flink prints it ("Join", "LogicalJoin", "TableSourceScan"...). */
const char *plan_kind_name(PlanKind kind);
/* True for physical nodes that keep keyed state. */
bool plan_node_is_stateful(const PlanNode *node);
/* True when every field of `key` is one of fields[0..count). */
bool plan_key_within(const PlanKey *key, const uint32_t *fields, uint32_t count);
/* True for physical nodes that generate watermarks (an assigner, a scan with one pushed). */
bool plan_node_generates_watermarks(const PlanNode *node);

#endif
