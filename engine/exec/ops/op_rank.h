/*
 * op_rank.h - Top-N: ROW_NUMBER() OVER (PARTITION BY p ORDER BY s) kept
 * within [rank_start, rank_end] per partition, as Flink's Rank operator
 * with its three process strategies (AppendOnlyTopNFunction,
 * UpdatableTopNFunction, RetractableTopNFunction). ORDER BY ... LIMIT is
 * the same operator with no partition fields.
 *
 * Order: the sort fields, each ASC or DESC with its NULLS FIRST / LAST;
 * rows of equal sort fields keep their arrival order (a new row comes after
 * the rows it ties with). Output rows are the input fields, followed by the
 * rank number (BIGINT) when output_rank_number.
 *
 * What is emitted (the "with number" algorithm runs when the rank number is
 * output or rank_start > 1; each row at rank r is emitted only when
 * rank_start <= r <= rank_end, and -U rows only with generate_update_before):
 * - a row entering at rank p (the n rows after it move down one rank):
 *   with number, for every rank r from p to min(n + 1, rank_end): -U(the
 *   old row at r, r) +U(the new row at r, r) while r had a row, else
 *   +I(row, r); without number: -D(the row pushed out of rank_end) then
 *   +I(the new row);
 * - a row leaving from rank q (retract strategy): with number, for r from
 *   q on: -U(old row at r, r) +U(the row moving up into r, r), and -D(the
 *   last row, its rank) when no row moves up into it; without number:
 *   -D(the row) then +I(the row that moves up to rank_end, if any);
 * - an update of a row (update-fast, same unique key) at rank o to rank p:
 *   same rank: -U(old, o) +U(new, o); a better rank p < o: -U(the row at
 *   p, p) -U(old, o) +U(new, p), then -U/+U for each rank down to o, whose
 *   -U is the old row already retracted; a worse rank (the order is not
 *   monotonic: upstream state expired) is re-ranked leniently, as Flink:
 *   -U(old, o), each row between moves up one rank, +U(new, p). Without
 *   number: -U(old) +U(new).
 *
 * Strategies and what they keep (MultisetState per partition key; each
 * stored row is the input row plus an arrival sequence number):
 * - APPEND_FAST: input +I only (anything else fails the job); keeps the
 *   rank_end best rows, a row that cannot enter is dropped.
 * - UPDATE_FAST: input +I/+U upserts by the unique key (unique_key_fields,
 *   which contain the partition fields) whose sort fields only improve;
 *   -U rows are ignored (the upsert carries the change), -D fails the job;
 *   keeps the rank_end best rows.
 * - RETRACT: any changelog; +I/+U add a row, -U/-D remove the first equal
 *   row (a retraction of a row not in state is dropped and counted in
 *   skipped_rows); keeps every row, since a retraction may bring a row
 *   back into the top N.
 *
 * State TTL (ttl_millis > 0) expires stored rows as the other operators'
 * state, cleaned by the recurring processing-time timer.
 */
#ifndef JOINERY_EXEC_OPS_OP_RANK_H
#define JOINERY_EXEC_OPS_OP_RANK_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/base/diag.h"
#include "engine/base/type.h"
#include "engine/exec/operator.h"
#include "engine/exec/row_order.h"

typedef enum RankStrategy {
    RANK_STRATEGY_APPEND_FAST,
    RANK_STRATEGY_UPDATE_FAST,
    RANK_STRATEGY_RETRACT,
} RankStrategy;

typedef struct RankSpec {
    uint32_t field_count; /* input fields */
    const DataType *types;
    const uint32_t *partition_fields; /* may be 0 of them: one global partition */
    uint32_t partition_count;
    const RowOrderKey *sort_fields; /* at least one; their types are taken from `types` */
    uint32_t sort_count;
    int64_t rank_start; /* >= 1 */
    int64_t rank_end;   /* >= rank_start */
    bool output_rank_number;
    RankStrategy strategy;
    const uint32_t *unique_key_fields; /* UPDATE_FAST: the input's unique key */
    uint32_t unique_key_count;
    bool generate_update_before;
    int64_t ttl_millis; /* 0 = keep forever */
} RankSpec;

/* Creates the operator; the spec's arrays are borrowed. NULL with diag set on failure. */
Operator *rank_operator_create(const RankSpec *spec, Diag *diag);

#endif
