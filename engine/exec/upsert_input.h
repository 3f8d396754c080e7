/*
 * upsert_input.h - an upsert input of a join (an upsert stream keyed by the
 * join key, its ChangelogNormalize dropped by
 * plan/rules/drop_changelog_normalize.c), shared by the Join and MultiJoin
 * operators: the input's state part holds at most one row per key, and a
 * change of the key is applied as what ChangelogNormalize would have sent:
 *   +I / +U row: -U of the stored row (if any), then the row as +U (+I when
 *                nothing was stored);
 *   -U / -D row: -D of the stored row (if any; the change row's own non-key
 *                fields are never read, a tombstone carries only the key).
 * Each of those rows goes through the operator's own per-row step.
 */
#ifndef JOINERY_EXEC_UPSERT_INPUT_H
#define JOINERY_EXEC_UPSERT_INPUT_H

#include "engine/base/arena.h"
#include "engine/base/row.h"
#include "engine/state/state.h"

/* The operator's per-row step: JOINERY_OK or its error (already reported). */
typedef int UpsertInputStep(void *context, const Row *row);

/*
 * Applies the change `row` of an upsert input whose state part for the row's key is
 * `part` (NULL: nothing stored) through `step`. The stored row and the new one are
 * copied into `arena` (reset by the caller per row) first, so the step may change the
 * state. Returns JOINERY_OK, the step's status, or JOINERY_ERROR_NO_MEMORY (not reported:
 * the caller reports it).
 */
int upsert_input_apply(MultisetState *state, MultisetKey *part, const Row *row, Arena *arena,
                       UpsertInputStep *step, void *context);

#endif
