/*
 * lookup.h - looking rows up in an external table by key, for lookup
 * joins (Flink's LookupTableSource: a LookupFunction and an
 * AsyncLookupFunction). The connector side only: the lookup join operator
 * (engine/exec) adapts it, watching lookup_function's descriptor through
 * exec_io.h and calling its `poll` when the descriptor is ready, so no
 * connector includes exec/ (scripts/check-layers.sh).
 *
 * A key row has the LookupSpec's key fields (types key_types); a result
 * row has the spec's produced fields (types `types`). A key with a NULL
 * field matches nothing (SQL `=`), without asking the store.
 *
 * Asynchronous use: `submit` queues a request (never blocks; it may
 * buffer in memory); completions come from `poll`, one callback per
 * request. Completions may come in any order: one store connection
 * completes its requests in submission order, but an asynchronous lookup
 * may hold several (lookup_pool.h: 'lookup.async.connections'; the
 * lookups of one key still complete in submission order), so an operator
 * with ordered output orders it itself. Several
 * requests share a round trip (PostgreSQL: libpq's pipeline mode). When the connection
 * breaks, the lookup reconnects (up to `lookup.max-retries` times, Flink's
 * default 3) and re-sends the requests still in flight (lookups are
 * reads, so re-sending is safe); past the retries it is an error naming
 * the table and the store. Callbacks run inside poll, on the caller's
 * thread; rows passed to a callback live until it returns. The stores'
 * functions share the queue of requests, the completion hand-over and the
 * reconnect loop: lookup_request_queue.h.
 *
 * Ownership: the function is created by the connector and freed by its
 * close; the spec is borrowed for its whole life.
 */
#ifndef JOINERY_CONNECTOR_LOOKUP_H
#define JOINERY_CONNECTOR_LOOKUP_H

#include "engine/connector/connector.h"

typedef struct LookupSpec {
    const CatalogTable *table;
    uint32_t key_count;
    const uint32_t *key_columns; /* index into table->columns of each key field */
    const DataType *key_types;
    uint32_t field_count;    /* produced fields of a result row */
    const uint32_t *columns; /* index into table->columns of each produced field */
    const DataType *types;
    volatile int *cancel_requested; /* as SourceSpec.cancel_requested; may be NULL */
    uint32_t async_capacity;        /* > 0: asynchronous lookups, at most this many in flight (the
                                       pool's size follows it); 0: synchronous lookups only */
} LookupSpec;

typedef struct LookupFunction LookupFunction;

/*
 * One request done: `rows[0..count)` match the key of request `request_id`
 * (count 0: no match). Returns JOINERY_OK, or an error (which poll returns).
 */
typedef int (*LookupCompletion)(void *context, uint64_t request_id, Row *const *rows,
                                uint32_t count);

/* What the caller should wait for on lookup_descriptor (poll(2)-style bits). */
enum {
    LOOKUP_WAIT_READ = 1u,
    LOOKUP_WAIT_WRITE = 2u,
};

typedef struct LookupFunctionVtable {
    /*
     * Synchronous lookup: the rows matching `key`, appended to `out` (at
     * most out->capacity - out->count; more is an error) and allocated in
     * `arena`. Not to be mixed with requests in flight. JOINERY_OK or an
     * error with diag filled.
     */
    int (*lookup)(LookupFunction *function, const Row *key, RowBatch *out, Arena *arena,
                  Diag *diag);
    /* Queues an asynchronous request for `key` (copied). JOINERY_OK or an error. */
    int (*submit)(LookupFunction *function, const Row *key, uint64_t request_id, Diag *diag);
    /*
     * Reads what arrived without blocking and calls `completion` for each
     * finished request (in submission order per connection, and per key;
     * across connections in any order); also sends what is buffered.
     * JOINERY_OK or an error (a callback's, or the store's after retries).
     */
    int (*poll)(LookupFunction *function, LookupCompletion completion, void *context, Diag *diag);
    /* Frees the function and closes its connection. */
    void (*close)(LookupFunction *function);
} LookupFunctionVtable;

struct LookupFunction {
    const LookupFunctionVtable *vtable;
    const LookupSpec *spec;
    int descriptor;       /* to watch while requests are in flight; -1: none now. May
                             change in submit and poll (a reconnect): re-read it after */
    uint32_t wait_events; /* LOOKUP_WAIT_* the descriptor is to be watched for */
    uint32_t in_flight;   /* submitted, not yet completed */
    uint64_t requests;    /* lookups asked (sync and async) */
    uint64_t reconnects;  /* connections re-opened after a failure */
    uint32_t connections; /* store connections it holds (a pool: several) */
    void *impl;
};

/*
 * Creates the lookup function of a table whose connector can be looked up
 * (jdbc, redis); checks the columns against the store first (as a source
 * does). Asynchronous (spec->async_capacity > 0) with more than one
 * connection ('lookup.async.connections', or its default for the
 * capacity): a pool of that many of the store's functions
 * (lookup_pool.h). JOINERY_ERROR_UNSUPPORTED for other connectors.
 */
int lookup_function_create(const LookupSpec *spec, LookupFunction **function, Diag *diag);

#endif
