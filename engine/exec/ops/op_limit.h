/*
 * op_limit.h - Limit (Flink's StreamExecLimit without a sort key): the
 * first `offset` rows of an insert-only input are skipped, the next
 * `fetch` pass, the rest are dropped.
 *
 * It runs as one subtask (under Exchange(single)); the number of rows seen
 * is kept in a ValueState (one operator-wide entry), so it is checkpointed
 * and the same on every backend. With `ends_job` (the Limit is the top of
 * the query: only Calcs above it) the result is complete once offset +
 * fetch rows have arrived, and the operator asks the job to end its sources
 * (ExecContext.end_requested), as Flink's SQL client stops a LIMIT query
 * once it has its rows; the job then finishes normally.
 */
#ifndef JOINERY_EXEC_OP_LIMIT_H
#define JOINERY_EXEC_OP_LIMIT_H

#include "engine/exec/operator.h"

typedef struct LimitSpec {
    int64_t offset; /* >= 0 */
    int64_t fetch;  /* -1: unlimited */
    bool ends_job;
} LimitSpec;

/* Creates the operator (the spec is copied); NULL with diag set on failure. */
Operator *limit_operator_create(const LimitSpec *spec, Diag *diag);

#endif
