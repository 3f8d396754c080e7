/*
 * lookup_cache_options.h - the cache of a lookup join as a table's WITH
 * options say it (Flink's LookupOptions, generic to every connector that can
 * be looked up), read and checked once.
 *
 * Options (Flink's names; the FULL family is a joinery extension for the
 * connectors whose Flink counterpart has no full cache, such as jdbc):
 *   lookup.cache                                NONE (default) | PARTIAL | FULL
 *   lookup.partial-cache.max-rows               rows kept (least recently used go first)
 *   lookup.partial-cache.expire-after-write     duration; a row is looked up again after it
 *   lookup.partial-cache.expire-after-access    duration since the last hit
 *   lookup.partial-cache.cache-missing-key      true (default): a miss is cached too
 *   lookup.cache.max-rows + lookup.cache.ttl    the older spelling (both or neither): PARTIAL
 *   lookup.cache.caching-missing-key            the older spelling of cache-missing-key
 *   lookup.full-cache.reload-strategy           PERIODIC (default; TIMED not supported yet)
 *   lookup.full-cache.periodic-reload.interval  duration between reloads (default: never)
 *   lookup.full-cache.periodic-reload.schedule-mode  FIXED_DELAY (default; FIXED_RATE not yet)
 * PARTIAL needs at least one of max-rows, expire-after-write, expire-after-access (as
 * Flink). A connector lists LOOKUP_CACHE_OPTIONS among its options (the registry then
 * rejects unknown keys with a "did you mean") and calls lookup_cache_options_read in its
 * validate so a bad value is an error at CREATE TABLE.
 */
#ifndef JOINERY_CONNECTOR_LOOKUP_CACHE_OPTIONS_H
#define JOINERY_CONNECTOR_LOOKUP_CACHE_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/connector/connector.h"

typedef enum LookupCacheKind {
    LOOKUP_CACHE_NONE,
    LOOKUP_CACHE_PARTIAL,
    LOOKUP_CACHE_FULL,
} LookupCacheKind;

typedef struct LookupCacheOptions {
    LookupCacheKind kind;
    int64_t max_rows;                   /* PARTIAL: keys kept; 0 = no bound */
    int64_t expire_after_write_millis;  /* PARTIAL: 0 = never */
    int64_t expire_after_access_millis; /* PARTIAL: 0 = never */
    bool cache_missing_key;             /* PARTIAL: a key with no rows is cached too */
    int64_t reload_interval_millis;     /* FULL: 0 = loaded once */
} LookupCacheOptions;

/* The option keys above, for a connector's option list. */
extern const ConnectorOption LOOKUP_CACHE_OPTIONS[];
extern const uint32_t LOOKUP_CACHE_OPTION_COUNT;

/* Text of a kind: "NONE", "PARTIAL", "FULL". */
const char *lookup_cache_kind_name(LookupCacheKind kind);

/*
 * Reads the cache options of `table` into *options (defaults: NONE, cache-missing-key
 * true). JOINERY_OK, or JOINERY_ERROR_VALIDATE / JOINERY_ERROR_UNSUPPORTED with diag
 * naming the table, the option and its value.
 */
int lookup_cache_options_read(const CatalogTable *table, LookupCacheOptions *options, Diag *diag);

#endif
