/*
 * upsert_materializer.h - a sink's rows per primary key (Flink's
 * SinkUpsertMaterializer, upsertMaterialize=[true] on the Sink): it keeps
 * every row an upstream holds for a key, in the order they came, and hands
 * the sink the key's latest one as an upsert, so changes of one key that
 * arrive from several places, or out of order, still leave the latest
 * surviving row in the table.
 *
 * Per input row, what the sink is handed (Flink's rules):
 *  - +I / +U: the row is added as the key's latest; the sink gets it as +I
 *    when the key held nothing, else as +U.
 *  - -U / -D: the row's first copy is removed. The key left empty: the
 *    sink gets -D of it. The latest row removed: the sink gets the new
 *    latest as +U. Otherwise nothing. A row the key does not hold is
 *    skipped and counted (Flink logs it: state cleared by TTL, or a
 *    retraction before its row).
 *
 * State: a MultisetState keyed by the primary key, one entry per distinct
 * row with its copies counted and association_count the sequence number of
 * its last copy's arrival (a removal takes the first copy, so an entry's
 * last copy, and with it the key's order, changes only when its last copy
 * goes): the latest row is the entry with the highest number. Rows expire
 * after ttl_millis without a write (0: never). The snapshot is the sequence
 * counter then the state.
 *
 * Ownership: the materializer owns its state and the rows it hands out,
 * which stay valid until its next apply or its destruction.
 */
#ifndef JOINERY_EXEC_UPSERT_MATERIALIZER_H
#define JOINERY_EXEC_UPSERT_MATERIALIZER_H

#include <stdint.h>

#include "engine/base/diag.h"
#include "engine/base/row_batch.h"
#include "engine/base/type.h"
#include "engine/state/state.h"

typedef struct UpsertMaterializerSpec {
    uint32_t key_count;
    const uint32_t *key_fields; /* the primary key's input fields */
    const DataType *types;      /* of the input fields */
    int64_t ttl_millis;         /* table.exec.state.ttl; 0: forever */
} UpsertMaterializerSpec;

typedef struct UpsertMaterializer UpsertMaterializer;

/* A materializer over `store` (the spec's arrays are borrowed for its life). NULL with
   diag set when the state cannot be created or on no memory. */
UpsertMaterializer *upsert_materializer_create(const UpsertMaterializerSpec *spec,
                                               StateStore *store, Diag *diag);

/* Applies `batch` at processing time `now`: *out gets the rows to write (see the
   header), valid until the next call. JOINERY_OK, or JOINERY_ERROR_NO_MEMORY when the
   state or memory failed (the store says why: the caller reports it). */
int upsert_materializer_apply(UpsertMaterializer *materializer, const RowBatch *batch, int64_t now,
                              const RowBatch **out);

/* Retractions skipped because the key did not hold their row. */
uint64_t upsert_materializer_skipped(const UpsertMaterializer *materializer);

/* Drops rows past the TTL, up to `max_keys` keys examined; returns the rows dropped. */
uint64_t upsert_materializer_cleanup(UpsertMaterializer *materializer, int64_t now,
                                     uint32_t max_keys);

StateCounters upsert_materializer_counters(const UpsertMaterializer *materializer);

int upsert_materializer_snapshot(UpsertMaterializer *materializer, const StateWriter *writer,
                                 Diag *diag);
int upsert_materializer_restore(UpsertMaterializer *materializer, const StateReader *reader,
                                Diag *diag);

/* Frees the materializer and its state; NULL is a no-op. */
void upsert_materializer_destroy(UpsertMaterializer *materializer);

#endif
