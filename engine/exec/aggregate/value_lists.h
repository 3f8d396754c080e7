/*
 * value_lists.h - the values GroupAggregate keeps for LISTAGG, FIRST_VALUE
 * and LAST_VALUE over an updating input, as Flink's retracting forms keep
 * them (ListAggWithRetractAggFunction's list, First/LastValueWithRetract's
 * order maps): per (call, group) key every live non-NULL value in the order
 * it arrived. A retraction removes the earliest entry equal to the value; the
 * result is then the first entry (FIRST_VALUE), the last (LAST_VALUE) or all
 * of them joined by the separator (LISTAGG), NULL when none is left.
 *
 * Flink orders the entries by the processing time they arrived at (rows of
 * one millisecond in arrival order); here the order is the group's own
 * arrival counter (the caller keeps it in its accumulator), which gives the
 * same order without reading the clock. State: one SortedState, key = the
 * caller's [call, group key...] row, time = the order, row = [value]; any
 * backend; no TTL (the planner refuses these calls with a state TTL).
 */
#ifndef JOINERY_EXEC_AGGREGATE_VALUE_LISTS_H
#define JOINERY_EXEC_AGGREGATE_VALUE_LISTS_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/base/diag.h"
#include "engine/base/row.h"
#include "engine/base/strbuf.h"
#include "engine/base/type.h"
#include "engine/base/value.h"
#include "engine/state/state.h"

typedef struct ValueLists {
    SortedState *lists;
    RowBuilder value_builder;
} ValueLists;

/* A copy of one value's row the caller owns (FIRST_VALUE / LAST_VALUE results point into it). */
typedef struct ValueCopy {
    uint64_t *row;
    uint32_t capacity;
} ValueCopy;

/* Zeroes the helper (no state yet). */
void value_lists_init(ValueLists *lists);
/* Creates the state on `store`; false when the store could not. */
bool value_lists_open(ValueLists *lists, StateStore *store);

/*
 * Appends the non-NULL `value` (of `type`) to the list of `key` at `order`
 * (greater than every order the key holds). JOINERY_OK, JOINERY_ERROR_NO_MEMORY,
 * or JOINERY_ERROR when the backend failed.
 */
int value_lists_add(ValueLists *lists, const Row *key, int64_t order, DataType type, Value value);

/*
 * Removes the earliest entry of `key` equal to the non-NULL `value`; *found
 * says whether there was one. Status as value_lists_add.
 */
int value_lists_remove(ValueLists *lists, const Row *key, DataType type, Value value, bool *found);

/*
 * *result = the first (first) or last entry's value of `key`, NULL when the
 * list is empty; a string points into `copy`, valid until its next use.
 * Status as value_lists_add.
 */
int value_lists_end(ValueLists *lists, const Row *key, DataType type, bool first, ValueCopy *copy,
                    Value *result);

/*
 * *result = every entry's value of `key` (strings) joined by `separator`,
 * built in `text` (the result points into it, valid until its next use);
 * NULL when the list is empty. Status as value_lists_add.
 */
int value_lists_join(ValueLists *lists, const Row *key, DataType type, Value separator,
                     StrBuf *text, Value *result);

/* Removes every entry of `key` (its group went). JOINERY_OK or the backend's failure. */
int value_lists_drop(ValueLists *lists, const Row *key);

StateCounters value_lists_counters(const ValueLists *lists);
int value_lists_snapshot(ValueLists *lists, const StateWriter *writer, Diag *diag);
int value_lists_restore(ValueLists *lists, const StateReader *reader, Diag *diag);
/* Frees the state; safe on an initialised helper without one. */
void value_lists_free(ValueLists *lists);

#endif
