/*
 * lookup_cache_options.c - reading and checking a lookup table's cache
 * options (lookup_cache_options.h). Invariant: a table that passed
 * lookup_cache_options_read at CREATE TABLE reads the same way at planning.
 */
#include <string.h>
#include <strings.h>

#include "engine/base/duration.h"
#include "engine/connector/lookup_cache_options.h"

const ConnectorOption LOOKUP_CACHE_OPTIONS[] = {
    {"lookup.cache", false, "NONE (default), PARTIAL or FULL (FULL: joinery extension)"},
    {"lookup.partial-cache.max-rows", false, "rows the partial cache keeps (LRU)"},
    {"lookup.partial-cache.expire-after-write", false, "duration a cached key is kept"},
    {"lookup.partial-cache.expire-after-access", false, "duration since its last hit"},
    {"lookup.partial-cache.cache-missing-key", false, "cache keys without rows (default true)"},
    {"lookup.cache.max-rows", false, "older spelling of lookup.partial-cache.max-rows"},
    {"lookup.cache.ttl", false, "older spelling of lookup.partial-cache.expire-after-write"},
    {"lookup.cache.caching-missing-key", false, "older spelling of cache-missing-key"},
    {"lookup.full-cache.reload-strategy", false, "PERIODIC (default)"},
    {"lookup.full-cache.periodic-reload.interval", false, "duration between full reloads"},
    {"lookup.full-cache.periodic-reload.schedule-mode", false, "FIXED_DELAY (default)"},
};
const uint32_t LOOKUP_CACHE_OPTION_COUNT =
    sizeof LOOKUP_CACHE_OPTIONS / sizeof LOOKUP_CACHE_OPTIONS[0];

const char *lookup_cache_kind_name(LookupCacheKind kind)
{
    switch (kind) {
    case LOOKUP_CACHE_PARTIAL:
        return "PARTIAL";
    case LOOKUP_CACHE_FULL:
        return "FULL";
    default:
        return "NONE";
    }
}

static int read_duration(const CatalogTable *table, const char *key, int64_t *millis, Diag *diag)
{
    const char *text = catalog_table_option(table, key);
    if (!text)
        return JOINERY_OK;
    if (duration_parse_millis(text, millis) != 0 || *millis < 0)
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Table '%s': option '%s' must be a duration such as '10 min' or '30s', "
                          "not '%s'.",
                          table->name, key, text);
    return JOINERY_OK;
}

static int read_count(const CatalogTable *table, const char *key, int64_t *count, Diag *diag)
{
    const char *text = catalog_table_option(table, key);
    if (!text)
        return JOINERY_OK;
    if (!connector_parse_int64(text, count) || *count <= 0)
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Table '%s': option '%s' must be a positive number of rows, not '%s'.",
                          table->name, key, text);
    return JOINERY_OK;
}

static int read_bool(const CatalogTable *table, const char *key, bool *value, Diag *diag)
{
    const char *text = catalog_table_option(table, key);
    if (text && !connector_parse_bool(text, value))
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Table '%s': option '%s' must be 'true' or 'false', not '%s'.",
                          table->name, key, text);
    return JOINERY_OK;
}

static int read_partial(const CatalogTable *table, LookupCacheOptions *options, Diag *diag)
{
    int status = read_count(table, "lookup.partial-cache.max-rows", &options->max_rows, diag);
    if (status == JOINERY_OK)
        status = read_duration(table, "lookup.partial-cache.expire-after-write",
                               &options->expire_after_write_millis, diag);
    if (status == JOINERY_OK)
        status = read_duration(table, "lookup.partial-cache.expire-after-access",
                               &options->expire_after_access_millis, diag);
    if (status == JOINERY_OK)
        status = read_bool(table, "lookup.partial-cache.cache-missing-key",
                           &options->cache_missing_key, diag);
    return status;
}

int lookup_cache_options_read(const CatalogTable *table, LookupCacheOptions *options, Diag *diag)
{
    memset(options, 0, sizeof *options);
    options->cache_missing_key = true;
    const char *kind = catalog_table_option(table, "lookup.cache");
    const char *legacy_rows = catalog_table_option(table, "lookup.cache.max-rows");
    const char *legacy_ttl = catalog_table_option(table, "lookup.cache.ttl");
    int status =
        read_bool(table, "lookup.cache.caching-missing-key", &options->cache_missing_key, diag);
    if (status != JOINERY_OK)
        return status;
    if (legacy_rows || legacy_ttl) {
        if (!legacy_rows || !legacy_ttl)
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "Table '%s': options 'lookup.cache.max-rows' and 'lookup.cache.ttl' "
                              "must both be set or both be unset (or write "
                              "'lookup.cache' = 'PARTIAL' with 'lookup.partial-cache.*').",
                              table->name);
        if (kind && strcasecmp(kind, "PARTIAL") != 0)
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "Table '%s': 'lookup.cache.max-rows' and 'lookup.cache.ttl' make a "
                              "PARTIAL cache, but 'lookup.cache' = '%s'.",
                              table->name, kind);
        options->kind = LOOKUP_CACHE_PARTIAL;
        status = read_count(table, "lookup.cache.max-rows", &options->max_rows, diag);
        if (status == JOINERY_OK)
            status =
                read_duration(table, "lookup.cache.ttl", &options->expire_after_write_millis, diag);
        if (status != JOINERY_OK)
            return status;
    }
    if (kind && strcasecmp(kind, "NONE") == 0) {
        options->kind = LOOKUP_CACHE_NONE;
    } else if (kind && strcasecmp(kind, "PARTIAL") == 0) {
        options->kind = LOOKUP_CACHE_PARTIAL;
    } else if (kind && strcasecmp(kind, "FULL") == 0) {
        options->kind = LOOKUP_CACHE_FULL;
    } else if (kind) {
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Table '%s': option 'lookup.cache' must be NONE, PARTIAL or FULL, not "
                          "'%s'.",
                          table->name, kind);
    }
    if (options->kind == LOOKUP_CACHE_PARTIAL) {
        status = read_partial(table, options, diag);
        if (status != JOINERY_OK)
            return status;
        if (!options->max_rows && !options->expire_after_write_millis &&
            !options->expire_after_access_millis)
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "Table '%s': 'lookup.cache' = 'PARTIAL' needs at least one of "
                              "'lookup.partial-cache.max-rows', "
                              "'lookup.partial-cache.expire-after-write' and "
                              "'lookup.partial-cache.expire-after-access'.",
                              table->name);
    }
    const char *strategy = catalog_table_option(table, "lookup.full-cache.reload-strategy");
    if (strategy && strcasecmp(strategy, "PERIODIC") != 0)
        return diag_error(diag, JOINERY_ERROR_UNSUPPORTED,
                          "Table '%s': option 'lookup.full-cache.reload-strategy' = '%s' is not "
                          "supported yet (only PERIODIC).",
                          table->name, strategy);
    const char *mode =
        catalog_table_option(table, "lookup.full-cache.periodic-reload.schedule-mode");
    if (mode && strcasecmp(mode, "FIXED_DELAY") != 0)
        return diag_error(diag, JOINERY_ERROR_UNSUPPORTED,
                          "Table '%s': option 'lookup.full-cache.periodic-reload.schedule-mode' = "
                          "'%s' is not supported yet (only FIXED_DELAY).",
                          table->name, mode);
    return read_duration(table, "lookup.full-cache.periodic-reload.interval",
                         &options->reload_interval_millis, diag);
}
