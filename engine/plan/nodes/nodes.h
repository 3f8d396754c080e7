/*
 * nodes.h - plan node kinds as data (internal to plan/).
 *
 * Every PlanKind has one PlanKindInfo descriptor: its name, its flags and
 * the hooks that the planner's passes call for nodes of that kind, so a
 * pass is a walk over the tree that asks the descriptor, not a switch over
 * the kinds. The descriptors are defined in nodes/node_<operator>.c, one
 * file per operator family (a logical kind next to the physical kind it
 * becomes, as they share printers), and registered in plan_kinds[]
 * (nodes/nodes.c), indexed by PlanKind; a _Static_assert there and
 * tests/unit/check_plan_kinds.c check that every kind has its descriptor.
 *
 * Below the descriptor: the helpers the hooks share with the passes that
 * call them (explain.c, physical.c, cost.c, derive.c; the rules' helpers
 * are in rules/rules.h). Kinds are added as engine/README.md ("Adding an
 * operator") says.
 */
#ifndef JOINERY_PLAN_NODES_H
#define JOINERY_PLAN_NODES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/plan/planner.h"
#include "engine/plan/rules/rules.h"

struct PlanAdvice;

/* What EXPLAIN's printers write to (explain.c). */
typedef struct ExplainContext {
    Arena *arena;
    StrBuf *out;
    ExprStyle style; /* prefix (physical plan) or infix (execution plan) */
    bool logical;    /* the Abstract Syntax Tree section */
    unsigned details;
    const struct PlanAdvice *advice; /* PLAN_ADVICE: numbered 1.. in this order */
    uint32_t advice_count;
} ExplainContext;

typedef struct PlanKindInfo {
    PlanKind kind;
    const char *name; /* as Flink prints it: "LogicalJoin", "Join", "TableSourceScan" */
    /* the name in the "Optimized Physical Plan" section when Flink prints another one there
       (Deduplicate is a Rank in it); NULL: name */
    const char *physical_plan_name;
    bool physical; /* false: a logical kind (binder and rules) */
    bool stateful; /* keeps keyed state (plan_node_is_stateful) */
    bool shuffles; /* sends rows to other subtasks: EXPLAIN's network cost */
    /* emits the row kinds its input sends, unchanged: a sink's changelog error names the
       node below it */
    bool forwards_changes;

    /* EXPLAIN: the attributes inside "Name(...)", for both sections the kind appears in. */
    void (*explain)(ExplainContext *context, const PlanNode *node);
    /* EXPLAIN: the name of this node when it is not the kind's (a kind that prints as
       several of Calcite's nodes); NULL hook or result: name */
    const char *(*display_name)(const PlanNode *node);
    /* Logical kinds: the node's physical plan, its inputs converted with physical_convert. */
    int (*convert)(PlannerContext *context, PlanNode *node, PlanNode **result);
    /* Logical kinds without convert: the physical kind the node becomes by a copy, its
       inputs converted (physical_convert_twin). */
    const struct PlanKindInfo *twin;
    /*
     * Physical kinds: the node's derived properties (changelog mode, unique keys,
     * row_count, TTL, the kind's own); its inputs are derived, node->bounded is the AND
     * of theirs and its unique keys are cleared. JOINERY_OK or an error in context->diag.
     */
    int (*derive)(PlannerContext *context, PlanNode *node);
    /* Estimated rows of the node from its inputs' (cost_node_estimate). NULL: input 0's
       rows, COST_DEFAULT_ROWS without inputs. */
    double (*estimate)(const PlanNode *node);
    /*
     * Where field *field of the node comes from, for statistics (cost_field_distinct):
     * the input that produces it, *field made that input's field; the node itself when
     * it reads the field from its table (a scan); NULL when the node computes it.
     * NULL hook: the node computes all its fields.
     */
    const PlanNode *(*trace_field)(const PlanNode *node, uint32_t *field);
    /*
     * Physical kinds: true when an expression the operator evaluates calls
     * CURRENT_WATERMARK; physical planning rejects it (it runs in Calc only, which
     * knows its input's watermark). NULL: the kind evaluates none.
     */
    bool (*calls_current_watermark)(const PlanNode *node);
    /* Physical kinds: true when the node generates watermarks (plan_node_generates_watermarks:
       SHOW JOB METRICS prints the watermark of it and the nodes above). NULL: never. */
    bool (*generates_watermarks)(const PlanNode *node);

    /* Logical kinds, the rules' part (rules.h); without a hook a rule leaves the node as
       it is, which is always correct. */
    /* rules/push_filters.c: the node with `conjuncts` (over its fields) pushed into it and
       below, what cannot move in a LogicalFilter above (rule_filter_above). */
    int (*push_filters)(PlannerContext *context, PlanNode *node, RuleConjuncts *conjuncts,
                        PlanNode **result);
    /* rules/prune_fields.c: the node keeping the `used` fields (and those it cannot
       drop), its inputs pruned to what it reads (rule_prune_fields_of). */
    int (*prune_fields)(PlannerContext *context, PlanNode *node, uint64_t *used,
                        RulePruned *result);
    /* The fields of input `input` the node reads when the `used` of its own are read
       above (NULL: all of them); NULL on no memory. Without the hook: all of them. */
    uint64_t *(*input_fields_used)(Arena *arena, const PlanNode *node, uint32_t input,
                                   const uint64_t *used);
} PlanKindInfo;

/* The descriptor of a kind. */
const PlanKindInfo *plan_kind_info(PlanKind kind);

/* ---------------------------------------------------------------- descriptors */

extern const PlanKindInfo plan_kind_logical_table_scan, plan_kind_table_source_scan;
extern const PlanKindInfo plan_kind_logical_watermark_assigner, plan_kind_watermark_assigner;
extern const PlanKindInfo plan_kind_logical_project, plan_kind_logical_filter, plan_kind_calc;
extern const PlanKindInfo plan_kind_exchange;
extern const PlanKindInfo plan_kind_logical_join, plan_kind_join;
extern const PlanKindInfo plan_kind_logical_multi_join, plan_kind_multi_join;
extern const PlanKindInfo plan_kind_logical_aggregate, plan_kind_group_aggregate;
extern const PlanKindInfo plan_kind_logical_union, plan_kind_union;
extern const PlanKindInfo plan_kind_logical_values, plan_kind_values;
extern const PlanKindInfo plan_kind_logical_sink, plan_kind_sink;
extern const PlanKindInfo plan_kind_changelog_normalize;
extern const PlanKindInfo plan_kind_interval_join;
extern const PlanKindInfo plan_kind_logical_table_function_scan, plan_kind_window_table_function;
extern const PlanKindInfo plan_kind_window_join, plan_kind_session_window_table_function;
extern const PlanKindInfo plan_kind_logical_correlate, plan_kind_logical_correlate_filter;
extern const PlanKindInfo plan_kind_logical_snapshot, plan_kind_temporal_join;
extern const PlanKindInfo plan_kind_drop_update_before;
extern const PlanKindInfo plan_kind_logical_row_number, plan_kind_deduplicate;
extern const PlanKindInfo plan_kind_mini_batch_assigner;
extern const PlanKindInfo plan_kind_window_aggregate;
extern const PlanKindInfo plan_kind_logical_sort, plan_kind_limit, plan_kind_sort;
extern const PlanKindInfo plan_kind_temporal_sort;
extern const PlanKindInfo plan_kind_rank, plan_kind_sort_limit;
extern const PlanKindInfo plan_kind_window_rank, plan_kind_window_deduplicate;
extern const PlanKindInfo plan_kind_lookup_join;
extern const PlanKindInfo plan_kind_group_window_aggregate;
extern const PlanKindInfo plan_kind_local_group_aggregate, plan_kind_global_group_aggregate;
extern const PlanKindInfo plan_kind_logical_over_aggregate, plan_kind_over_aggregate;
extern const PlanKindInfo plan_kind_logical_table_correlate, plan_kind_logical_table_function_call;
extern const PlanKindInfo plan_kind_correlate;
extern const PlanKindInfo plan_kind_statement_set;

/* ---------------------------------------------------------------- EXPLAIN (explain.c) */

/* Names for a node's input refs: $0, $1... in the AST, else the fields of input 0 (of the
   node itself when it has no inputs). */
const char *const *explain_input_names(ExplainContext *context, const PlanNode *node);
void explain_expr(ExplainContext *context, const Expr *expr, const char *const *names);
/* The node's field names, ", " between them. */
void explain_field_list(ExplainContext *context, const PlanNode *node);
/* "forever" for 0, else the duration ("1 h"). */
const char *explain_ttl_text(int64_t millis, char *buffer, size_t size);
/* ", stateTtl=[...]": one value, or left=..., right=... when they differ. */
void explain_ttl(ExplainContext *context, int64_t left_millis, int64_t right_millis);

/* node_aggregate.c: "partialFinalType=[PARTIAL], " for the two aggregates of a split
   distinct aggregate, nothing otherwise. */
void explain_partial_final(ExplainContext *context, const PlanNode *node);
/* node_aggregate.c: ", COUNT(*) AS c, SUM(x) AS s" for an aggregate node's calls, the
   argument names from `names`, one leading ", " per call. */
void explain_aggregate_calls(ExplainContext *context, const PlanNode *node,
                             const char *const *names);

/* ---------------------------------------------------------------- physical planning */

/* physical.c: the physical plan of a logical node (its descriptor's convert). */
int physical_convert(PlannerContext *context, PlanNode *node, PlanNode **result);
/* physical.c: a new physical node with its id. */
PlanNode *physical_new_node(PlannerContext *context, PlanKind kind, uint32_t inputs,
                            uint32_t fields);
/* physical.c: a copy of a logical node as `kind`, with its id; inputs still logical. */
PlanNode *physical_copy_as(PlannerContext *context, const PlanNode *node, PlanKind kind);
/* physical.c: the same copy with its inputs converted (the physical twin of a node). */
int physical_convert_twin(PlannerContext *context, PlanNode *node, PlanKind kind,
                          PlanNode **result);
/* node_calc.c: Calc(projects, condition) over input, merged into an input Calc, or input
   itself when the Calc would change nothing; NULL on no memory. */
PlanNode *plan_make_calc(PlannerContext *context, PlanNode *input, Expr **projects, uint32_t count,
                         const PlanField *fields, Expr *condition);
/* node_join.c: JOINERY_OK for the join types that run, else "not supported yet" (semi and
   anti joins). */
int plan_check_join_type(PlannerContext *context, JoinType type);
/* node_window_join.c: the WindowJoin of a LogicalJoin for which plan_join_is_window_join
   holds (window_properties.h); an error when the two inputs' windows differ. */
int plan_convert_window_join(PlannerContext *context, PlanNode *node, PlanNode **result);
/* node_window_aggregate.c: the WindowAggregate of a LogicalAggregate grouping by the
   window_start and window_end of one window table function, which it folds in (Flink's
   plan has no WindowTableFunction under a WindowAggregate), and a Calc above it giving
   the aggregate's field order; an error for what it cannot fold yet. */
int plan_convert_window_aggregate(PlannerContext *context, PlanNode *node, PlanNode **result);
/* node_sort.c: marks the Limit a query ends with (only Calcs between it and the sink) to
   end the job once it has its rows. */
void plan_mark_final_limit(PlanNode *root);
/* node_rank.c: the Rank of a LogicalRowNumber that is not a deduplication, over `input`
   (its input converted): an Exchange below, a Calc above for the SELECT items. */
int plan_convert_rank(PlannerContext *context, const PlanNode *node, PlanNode *input,
                      PlanNode **result);
/* node_window_rank.c: the WindowRank or WindowDeduplicate of a LogicalRowNumber whose
   PARTITION BY holds window_start and window_end (input fields) of `window`, over `input`
   (its input converted); an error for what it does not plan (SESSION, RANK()). */
int plan_convert_window_rank(PlannerContext *context, const PlanNode *node, PlanNode *input,
                             const WindowSpec *window, uint32_t window_start, uint32_t window_end,
                             PlanNode **result);
/* node_rank.c: the SortLimit of a LogicalSort with a collation and a LIMIT / OFFSET / FETCH
   (FETCH 0 excluded): the rank machinery over a single exchange, ranks OFFSET + 1 to
   OFFSET + FETCH, no rank column. */
int plan_convert_sort_limit(PlannerContext *context, const PlanNode *node, PlanNode **result);
/* node_lookup_join.c: the LookupJoin of a LogicalCorrelate whose temporal.lookup is set
   (FOR SYSTEM_TIME AS OF a processing time against a table that can be looked up), with
   the Calcs below (computed keys, probe-side filters) and above it and the Exchange of
   'shuffle'; Flink's error when the ON condition has no key. */
int plan_convert_lookup_join(PlannerContext *context, PlanNode *node, PlanNode **result);
/* node_aggregate.c: true for LISTAGG, FIRST_VALUE and LAST_VALUE, which accumulate only. */
bool plan_aggregate_is_append_only(PlanAggregateKind kind);
/* node_aggregate.c: true when the LogicalAggregate `node` plans as a window aggregate (a legacy
   group window key, or window_start and window_end of one window table function). */
bool plan_aggregate_is_windowed(const PlanNode *node);
/* node_aggregate.c: the function's name as Flink prints it (COUNT for COUNT(*) too). */
const char *plan_aggregate_name(PlanAggregateKind kind);
/* node_aggregate.c: as plan_aggregate_name, a user-defined call by its function's name. */
const char *plan_aggregate_call_name(const PlanAggregateCall *call);
/* node_local_group_aggregate.c: true when every call of the GroupAggregate `node` can
   run in two phases (its partial accumulators merge): COUNT(*), COUNT, SUM, AVG, and MIN
   / MAX over an insert-only input (input_is_update false); no DISTINCT. */
bool plan_aggregate_can_merge(const PlanNode *node, bool input_is_update);
/* node_aggregate.c: checks the user-defined aggregate calls of `node` (a window or OVER
   aggregate): each needs merge when `merging` names why (Flink's: "a SESSION window
   aggregate"; NULL: not needed) and retract over an updating input; an error naming the
   function (Flink's "does not implement at least one method named ..."), else JOINERY_OK.
   Each needs retract when `retracting` names why ("a bounded OVER window"; NULL: not
   needed). */
int plan_aggregate_check_user_defined(PlannerContext *context, const PlanNode *node,
                                      const char *merging, const char *retracting);
/* node_local_group_aggregate.c: Flink's name of call `call`'s accumulator fields, from
   field index *index on ("count$0", "(sum$1, count$2)"; the index moves past them), into
   `out`; retract: the input carries retractions (SUM then has a count as well). */
void plan_explain_accumulator(StrBuf *out, const PlanAggregateCall *call, bool retract,
                              uint32_t *index);
/* node_global_group_aggregate.c: the LocalGroupAggregate under a GlobalGroupAggregate (its
   input's input). */
const PlanNode *plan_global_aggregate_local(const PlanNode *global);
/* node_group_window_aggregate.c: the group key of a LogicalAggregate that is a legacy group
   window ($TUMBLE, $HOP, $SESSION in the projection below it), or -1. */
int plan_group_window_key(const PlanNode *node);
/* node_group_window_aggregate.c: the GroupWindowAggregate of a LogicalAggregate for which
   plan_group_window_key >= 0, and the Calc above it with the aggregate's fields. */
int plan_convert_group_window_aggregate(PlannerContext *context, PlanNode *node, PlanNode **result);
/* node_exchange.c: Exchange(hash[keys]) over input, single without keys; NULL on no memory. */
PlanNode *plan_make_exchange(PlannerContext *context, PlanNode *input, const uint32_t *keys,
                             uint32_t key_count);

/* ---------------------------------------------------------------- estimates (cost.c) */

/* An input reference, looking through implicit casts; NULL otherwise. */
const Expr *cost_plain_ref(const Expr *expr);
/* trace_field of nodes whose fields are their first input's. */
const PlanNode *cost_trace_to_input(const PlanNode *node, uint32_t *field);
/* trace_field of nodes whose fields are their inputs' concatenated (joins). */
const PlanNode *cost_trace_to_inputs(const PlanNode *node, uint32_t *field);

/* ---------------------------------------------------------------- derivation (derive.c) */

/* Adds a unique key (fields sorted here) when there is room for one more. */
void derive_add_unique_key(Arena *arena, PlanNode *node, const uint32_t *fields, uint32_t count);
/* The derive hook of nodes that pass their input on: its changelog mode, rows and keys. */
int derive_forward(PlannerContext *context, PlanNode *node);

#endif
