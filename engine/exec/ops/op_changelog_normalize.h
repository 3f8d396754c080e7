/*
 * op_changelog_normalize.h - ChangelogNormalize: turns an upsert stream
 * (+I/+U as "the row of this key is now", -D as "this key is gone", no -U)
 * into a complete changelog by keeping the last row of every key, as
 * Flink's ChangelogNormalize does for upsert-kafka sources.
 */
#ifndef JOINERY_EXEC_OP_CHANGELOG_NORMALIZE_H
#define JOINERY_EXEC_OP_CHANGELOG_NORMALIZE_H

#include "engine/base/type.h"
#include "engine/exec/operator.h"

typedef struct ChangelogNormalizeSpec {
    uint32_t field_count;
    const DataType *types;
    const uint32_t *key_fields; /* the primary key */
    uint32_t key_count;
    int64_t ttl_millis; /* 0 = keep forever */
    /* mini-batch (Flink's ProcTimeMiniBatchDeduplicateKeepLastRowFunction, which Flink runs
       as ChangelogNormalize with mini-batch on): rows are buffered per key until a
       watermark (the MiniBatchAssigner's), this many rows, a barrier or the end of input;
       then each key's last row of the batch goes through the row-by-row step, keys in the
       order of their first row. 0 = row by row. */
    int64_t mini_batch_size;
} ChangelogNormalizeSpec;

/*
 * Output: a new key's row as +I; a changed row as -U (previous) and +U
 * (new); an unchanged row produces nothing; -D of a stored key as -D of the
 * stored row (a -D for an unknown key is dropped and counted in
 * metrics.skipped_rows). With mini-batch only each key's last row of a batch
 * is applied, so a key changed twice in one batch gives one -U/+U (its
 * materialized result is the same). The spec is borrowed. NULL on no memory.
 */
Operator *changelog_normalize_operator_create(const ChangelogNormalizeSpec *spec, Diag *diag);

#endif
