/*
 * lookup_join_options.h - how one lookup join runs: Flink's LOOKUP hint
 * (async, output mode, capacity, timeout, retry, shuffle) over the session's
 * defaults (table.exec.async-lookup.*, PlannerConfig: Flink's ORDERED, 3 min,
 * 100 unless SET), and the cache, from the
 * table's lookup.* options (connector/lookup_cache_options.h) unless seed
 * 001's hint spelling ('cache' = 'LRU' | 'FULL', 'cache-size', 'cache-ttl')
 * overrides them. Filled by the binder (bind_lookup.c), read by the
 * LookupJoin node and its operator; lives in the statement arena.
 */
#ifndef JOINERY_PLAN_LOOKUP_JOIN_OPTIONS_H
#define JOINERY_PLAN_LOOKUP_JOIN_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/connector/lookup_cache_options.h"

/* the most requests one lookup join keeps in flight ('capacity', buffer-capacity) */
enum { LOOKUP_MAX_CAPACITY = 1000000 };

typedef struct PlanLookupOptions {
    bool async;           /* requests overlap (the table's function is asynchronous) */
    bool allow_unordered; /* 'output-mode' = 'allow_unordered' (honoured over insert-only input) */
    int64_t capacity;     /* requests in flight at most (async) */
    int64_t timeout_millis; /* per request (async): past it the job fails, as Flink */
    bool retry;             /* 'retry-predicate' = 'lookup_miss' with a fixed delay */
    int64_t retry_delay_millis;
    int64_t max_attempts; /* retries after the first lookup (Flink's max-attempts) */
    bool shuffle;         /* Exchange(hash[lookup keys]) below the join */
    LookupCacheOptions cache;
    bool full_cache_from_files; /* a filesystem table: the files are the cache */
    const char *hint_text;      /* the AST's "[LOOKUP options:{...}]"; NULL without a hint */
} PlanLookupOptions;

#endif
