/*
 * collection_aggregate.h - COLLECT(x) (a MULTISET of the non-NULL values)
 * and ARRAY_AGG(x) (an ARRAY of the values in arrival order, NULLs
 * included), with retraction, as Flink's CollectAggFunction and
 * ArrayAggFunction compute them.
 *
 * The accumulator value of such a call is the collection itself, encoded by
 * engine/base/composite.h (the call's result type); `count` is its number
 * of elements. Adding or retracting a value re-encodes it into a buffer the
 * caller owns: COLLECT adds 1 to the element's multiplicity or takes 1 away
 * (the element goes at 0; retracting an absent element changes nothing);
 * ARRAY_AGG appends, and a retraction removes the first equal element
 * (Java's List.remove), nothing when there is none. COLLECT of no rows is
 * an empty multiset, ARRAY_AGG of none is NULL (Flink's getValue).
 */
#ifndef JOINERY_EXEC_AGGREGATE_COLLECTION_AGGREGATE_H
#define JOINERY_EXEC_AGGREGATE_COLLECTION_AGGREGATE_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/base/strbuf.h"
#include "engine/exec/aggregate/aggregate_function.h"

/* True for COLLECT and ARRAY_AGG. */
bool collection_aggregate_is(AggregateKind kind);
/* True when the call aggregates NULL values too (ARRAY_AGG without DISTINCT). */
bool collection_aggregate_takes_nulls(const AggregateCall *call);

/*
 * Adds (accumulate) or retracts `value` (NULL only for ARRAY_AGG) into the
 * accumulator (*current, *count). The new collection is written into
 * `*spare`, then *spare and *held are swapped, so *current points into
 * *held afterwards (the old value may point into the old *held: it stays
 * valid until this returns). JOINERY_OK or JOINERY_ERROR_NO_MEMORY.
 */
int collection_aggregate_apply(const AggregateCall *call, Value value, bool accumulate,
                               Value *current, int64_t *count, StrBuf *held, StrBuf *spare);

/* The call's result from its accumulator value (never fails). */
Value collection_aggregate_result(const AggregateCall *call, Value value, int64_t count);

#endif
