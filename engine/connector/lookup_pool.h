/*
 * lookup_pool.h - several store connections behind one asynchronous
 * lookup function (lookup.h), for every store's lookup alike: a pool owns
 * N lookup functions of the same table (each the store's own, one
 * connection each), spreads the asynchronous requests over them and
 * shows the operator one descriptor (an epoll set of the members'
 * descriptors). One connection's server answers its requests one after
 * another; N connections let the store answer N groups at once, so the
 * latency a full window of requests sees stays near the round trip.
 *
 * Option (a joinery extension, generic to every connector that can be
 * looked up): 'lookup.async.connections' = 1 .. LOOKUP_POOL_MAX_CONNECTIONS,
 * connections per lookup join subtask for asynchronous lookups; default
 * lookup_pool_default_connections(capacity) (1 up to capacity 16, then 2),
 * never more than the capacity. Synchronous lookups keep one
 * connection (a pool is never made for them).
 *
 * Contract:
 * - Spreading: a request whose key has requests in flight goes to their
 *   member, behind them; any other to the member with the fewest requests
 *   in flight (an idle connection first: MySQL's connection has one query
 *   out at a time, and the groups stay even). So the lookups of one key
 *   complete in submission order: while two are in flight they share a
 *   connection, whose server runs them in that order, and a later one
 *   sent after an earlier one completed is run after it wherever it goes;
 *   a later lookup of a key never sees an older row than an earlier one
 *   and a key's cache fill happens in submission order. Requests of
 *   different keys complete in any order (the operator orders its output
 *   itself).
 * - Each member keeps its store's reconnect semantics (its own retries,
 *   re-sending what it had in flight); the pool re-registers a member's
 *   descriptor when it changes or the member reconnected.
 * - Counters: in_flight, requests and reconnects are the members' sums
 *   (refreshed after every call); `connections` is N.
 * - Errors: the first member error is returned as it is (it names the
 *   table and the store, never the password).
 * - Ownership: the pool owns its members and closes them in close.
 */
#ifndef JOINERY_CONNECTOR_LOOKUP_POOL_H
#define JOINERY_CONNECTOR_LOOKUP_POOL_H

#include "engine/connector/lookup.h"

enum { LOOKUP_POOL_MAX_CONNECTIONS = 64 };

/* The option's key. */
extern const char LOOKUP_POOL_OPTION[];

/* The connections of an async lookup with `capacity` requests in flight when no option says. */
uint32_t lookup_pool_default_connections(uint32_t capacity);

/*
 * Reads 'lookup.async.connections' of `table` into *connections (0 when
 * absent). JOINERY_OK or JOINERY_ERROR_VALIDATE naming table, option and value.
 */
int lookup_pool_read_connections(const CatalogTable *table, uint32_t *connections, Diag *diag);

/* Creates one member: a store's lookup function over `spec`. */
typedef int (*LookupCreate)(const LookupSpec *spec, LookupFunction **function, Diag *diag);

/*
 * Creates a pool of `connections` (>= 2) members made by `create`, one
 * after another (the first failure is returned, the members made so far
 * closed). JOINERY_OK or the member's error.
 */
int lookup_pool_create(const LookupSpec *spec, uint32_t connections, LookupCreate create,
                       LookupFunction **function, Diag *diag);

#endif
