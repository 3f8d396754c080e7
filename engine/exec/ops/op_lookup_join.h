/*
 * op_lookup_join.h - the lookup join (Flink's LookupJoinRunner and, async,
 * AsyncWaitOperator over AsyncLookupJoinRunner): each input row's key is
 * looked up in an external table through lookup.h, the rows found joined
 * to it. Connector-agnostic: any LookupFunction, or a FULL cache loaded by
 * the table's own scan source (a filesystem table, or lookup.cache = FULL).
 *
 * Semantics (Flink's): a row's key is its key expressions (input fields or
 * constants); a NULL key field matches nothing. Every row found that passes
 * `where` (dim fields) and `condition` (input ++ dim) gives one output row
 * input ++ dim with the input row's kind (+I, -U, +U, -D alike: an updating
 * input's changes are looked up and passed on); LEFT pads a row with no
 * such match with NULLs. Retry (lookup_miss, fixed delay): a lookup that
 * finds no row is asked again after the delay, up to max_attempts more
 * times (Flink's count).
 * - Sync: one lookup at a time, inside process (a retry waits the delay,
 *   watching cancel).
 * - Async: up to `capacity` requests in flight; when full, process waits
 *   in exec_wait_io for completions (backpressure). Ordered: rows leave in
 *   input order; unordered: each as its lookup completes (the planner
 *   forces ordered over an updating input). A request older than
 *   `timeout` fails the job with Flink's "Async function call has timed
 *   out." naming the table. Retries and timeouts are watched by a
 *   processing-time timer and by the waits.
 * - Caches (in the operator, not checkpointed, as Flink's): PARTIAL keeps
 *   found rows (and misses when cache-missing-key) per key, LRU by
 *   max-rows, expiring after write / access; FULL loads the whole table at
 *   open through its scan source and again every reload interval (before
 *   the first row after the interval, inline: Flink reloads in a
 *   background thread), and never asks the store per key.
 * - Checkpoints: at a barrier every request in flight completes and its
 *   rows go out before the barrier (joinery drains; Flink's async operator
 *   snapshots the waiting inputs instead); nothing is written.
 */
#ifndef JOINERY_EXEC_OPS_OP_LOOKUP_JOIN_H
#define JOINERY_EXEC_OPS_OP_LOOKUP_JOIN_H

#include <stdint.h>

#include "catalog/catalog.h"
#include "engine/base/diag.h"
#include "engine/base/type.h"
#include "engine/exec/operator.h"
#include "engine/plan/expr.h"
#include "engine/plan/join_type.h"
#include "engine/plan/lookup_join_options.h"

typedef struct LookupJoinSpec {
    JoinType join_type; /* INNER or LEFT */
    uint32_t input_field_count, right_field_count;
    const DataType *input_types, *right_types;
    const CatalogTable *table;
    const uint32_t *columns; /* table column of each right field */
    uint32_t key_count;
    const uint32_t *key_fields; /* right field of each key */
    Expr *const *key_values;    /* over the input row: input refs or constants */
    const Expr *where;          /* over the right row; NULL */
    const Expr *condition;      /* over input ++ right; NULL */
    const PlanLookupOptions *options;
    bool ordered;           /* async output order */
    const char *table_path; /* default_catalog.default_database.name, for messages */
} LookupJoinSpec;

/* What SHOW JOB METRICS shows per lookup join subtask. */
typedef struct LookupJoinFigures {
    uint64_t requests;   /* lookups asked of the store */
    uint64_t cache_hits; /* rows answered by the cache */
    uint64_t cache_misses;
    uint64_t cache_keys, cache_rows;
    uint64_t in_flight;
    uint32_t connections; /* the store connections of its lookup function (0: a FULL cache) */
    uint64_t reconnects;  /* connections re-opened after a failure */
    uint64_t retries;
    uint64_t reloads; /* FULL cache loads */
    uint64_t latency_count;
    uint64_t latency_sum_micros;                    /* of every lookup, for the mean */
    int64_t latency_p50_micros, latency_p99_micros; /* of the store's lookups; -1: none */
    bool async;
    double in_flight_area;  /* integral of the requests in flight over window_micros */
    uint64_t window_micros; /* from the first async submission to the last poll */
} LookupJoinFigures;

/* Creates the operator (one input). The spec and what it points to are borrowed for the
   operator's life. NULL with diag set on failure. */
Operator *lookup_join_operator_create(const LookupJoinSpec *spec, Diag *diag);
/* The figures of one subtask (an operator this file created). */
void lookup_join_operator_figures(const Operator *op, LookupJoinFigures *figures);

#endif
