/*
 * bind_lookup.c - the binder's part of lookup joins: which tables can be
 * looked up, and the options of one lookup join from the SELECT's LOOKUP
 * hint and the table's lookup.* options (lookup_join_options.h).
 *
 * A LOOKUP hint applies to the lookup join whose table name or alias its
 * 'table' names (Flink). Keys are Flink's LookupJoinHintOptions plus seed
 * 001's cache keys; a key joinery does not know is an error with a "did you
 * mean" (Flink ignores it: joinery never ignores a setting it would not
 * honour). Each hint must match a lookup join of its SELECT
 * (bind_check_lookup_hints_used).
 */
#include <string.h>
#include <strings.h>

#include "engine/base/duration.h"
#include "engine/base/strbuf.h"
#include "engine/connector/connector.h"
#include "engine/plan/bind_internal.h"

static const char *const HINT_KEYS[] = {
    "table",           "async",          "output-mode", "capacity",     "timeout",
    "retry-predicate", "retry-strategy", "fixed-delay", "max-attempts", "shuffle",
    "cache",           "cache-size",     "cache-ttl",
};
enum { HINT_KEY_COUNT = sizeof HINT_KEYS / sizeof HINT_KEYS[0] };

bool bind_table_can_lookup(const CatalogTable *table)
{
    if (!table || table->is_view)
        return false;
    const char *name = catalog_table_option(table, "connector");
    const Connector *connector = connector_find(name);
    if (!connector || table->watermark_column)
        return false;
    /* the rows looked up are the table's physical columns as stored */
    for (size_t i = 0; i < table->column_count; i++)
        if (table->columns[i].kind != CATALOG_COLUMN_PHYSICAL)
            return false;
    if (connector->create_lookup)
        return true;
    if (strcmp(connector->name, "filesystem") != 0)
        return false;
    /* a file of rows, not of changes */
    const char *format = catalog_table_option(table, "format");
    return format && (strcmp(format, "csv") == 0 || strcmp(format, "json") == 0 ||
                      strcmp(format, "raw") == 0);
}

static int hint_error(Binder *binder, const AstOption *option, const char *expected)
{
    return bind_error(binder, JOINERY_ERROR_VALIDATE, option->value_position,
                      "Invalid LOOKUP hint option '%s' = '%s': expected %s", option->key,
                      option->value, expected);
}

static int hint_bool(Binder *binder, const AstOption *option, bool *value)
{
    if (strcasecmp(option->value, "true") == 0)
        *value = true;
    else if (strcasecmp(option->value, "false") == 0)
        *value = false;
    else
        return hint_error(binder, option, "'true' or 'false'");
    return JOINERY_OK;
}

static int hint_duration(Binder *binder, const AstOption *option, int64_t *millis)
{
    if (duration_parse_millis(option->value, millis) != 0 || *millis < 0)
        return hint_error(binder, option, "a duration such as '30s' or '10 min'");
    return JOINERY_OK;
}

static int hint_count(Binder *binder, const AstOption *option, int64_t *count, int64_t max)
{
    if (!connector_parse_int64(option->value, count) || *count <= 0 || *count > max)
        return hint_error(binder, option, "a positive integer");
    return JOINERY_OK;
}

/* True when `hint` (LOOKUP) names the table `name` or the alias `alias`. */
static bool hint_names(const AstHint *hint, const char *name, const char *alias)
{
    for (size_t i = 0; i < hint->options.count; i++) {
        const AstOption *option = hint->options.items[i];
        if (strcasecmp(option->key, "table") == 0)
            return (alias && strcmp(option->value, alias) == 0) ||
                   (name && strcmp(option->value, name) == 0);
    }
    return false;
}

static int apply_hint(Binder *binder, const AstHint *hint, PlanLookupOptions *options)
{
    bool retry_keys[4] = {false, false, false, false};
    const AstOption *first_retry = NULL;
    bool cache_set = false, cache_size_set = false, cache_ttl_set = false;
    int64_t cache_size = 0, cache_ttl = 0;
    LookupCacheKind cache_kind = LOOKUP_CACHE_NONE;
    StrBuf text = STRBUF_INIT;
    strbuf_append_cstr(&text, "[[[LOOKUP inheritPath:[0] options:{");
    int status = JOINERY_OK;
    for (size_t i = 0; i < hint->options.count && status == JOINERY_OK; i++) {
        const AstOption *option = hint->options.items[i];
        const char *key = option->key;
        strbuf_printf(&text, "%s%s=%s", i ? ", " : "", key, option->value);
        if (strcasecmp(key, "table") == 0) {
            continue;
        } else if (strcasecmp(key, "async") == 0) {
            status = hint_bool(binder, option, &options->async);
        } else if (strcasecmp(key, "output-mode") == 0) {
            if (strcasecmp(option->value, "ordered") == 0)
                options->allow_unordered = false;
            else if (strcasecmp(option->value, "allow_unordered") == 0)
                options->allow_unordered = true;
            else
                status = hint_error(binder, option, "'ordered' or 'allow_unordered'");
        } else if (strcasecmp(key, "capacity") == 0) {
            status = hint_count(binder, option, &options->capacity, LOOKUP_MAX_CAPACITY);
        } else if (strcasecmp(key, "timeout") == 0) {
            status = hint_duration(binder, option, &options->timeout_millis);
            if (status == JOINERY_OK && options->timeout_millis == 0)
                status = hint_error(binder, option, "a positive duration");
        } else if (strcasecmp(key, "retry-predicate") == 0) {
            retry_keys[0] = true;
            first_retry = first_retry ? first_retry : option;
            if (strcasecmp(option->value, "lookup_miss") != 0)
                status = hint_error(binder, option, "'lookup_miss'");
        } else if (strcasecmp(key, "retry-strategy") == 0) {
            retry_keys[1] = true;
            first_retry = first_retry ? first_retry : option;
            if (strcasecmp(option->value, "fixed_delay") != 0)
                status = hint_error(binder, option, "'fixed_delay'");
        } else if (strcasecmp(key, "fixed-delay") == 0) {
            retry_keys[2] = true;
            first_retry = first_retry ? first_retry : option;
            status = hint_duration(binder, option, &options->retry_delay_millis);
        } else if (strcasecmp(key, "max-attempts") == 0) {
            retry_keys[3] = true;
            first_retry = first_retry ? first_retry : option;
            status = hint_count(binder, option, &options->max_attempts, 1000000);
        } else if (strcasecmp(key, "shuffle") == 0) {
            status = hint_bool(binder, option, &options->shuffle);
        } else if (strcasecmp(key, "cache") == 0) {
            cache_set = true;
            if (strcasecmp(option->value, "LRU") == 0 || strcasecmp(option->value, "PARTIAL") == 0)
                cache_kind = LOOKUP_CACHE_PARTIAL;
            else if (strcasecmp(option->value, "FULL") == 0)
                cache_kind = LOOKUP_CACHE_FULL;
            else if (strcasecmp(option->value, "NONE") == 0)
                cache_kind = LOOKUP_CACHE_NONE;
            else
                status = hint_error(binder, option, "'LRU', 'FULL' or 'NONE'");
        } else if (strcasecmp(key, "cache-size") == 0) {
            cache_size_set = true;
            status = hint_count(binder, option, &cache_size, INT64_MAX);
        } else if (strcasecmp(key, "cache-ttl") == 0) {
            cache_ttl_set = true;
            status = hint_duration(binder, option, &cache_ttl);
        } else {
            const char *suggestion = catalog_suggest_name(key, HINT_KEYS, HINT_KEY_COUNT);
            StrBuf known = STRBUF_INIT;
            for (size_t k = 0; k < HINT_KEY_COUNT; k++)
                strbuf_printf(&known, "%s'%s'", k ? ", " : "", HINT_KEYS[k]);
            status = bind_error(binder, JOINERY_ERROR_VALIDATE, option->position,
                                "Unknown LOOKUP hint option '%s'.%s%s%s Supported options: %s", key,
                                suggestion ? " Did you mean '" : "", suggestion ? suggestion : "",
                                suggestion ? "'?" : "", strbuf_cstr(&known));
            strbuf_free(&known);
        }
    }
    strbuf_append_cstr(&text, "}]]]");
    options->hint_text = arena_strdup(binder->arena, strbuf_cstr(&text));
    strbuf_free(&text);
    if (status != JOINERY_OK)
        return status;
    bool any_retry = retry_keys[0] || retry_keys[1] || retry_keys[2] || retry_keys[3];
    if (any_retry && !(retry_keys[0] && retry_keys[1] && retry_keys[2] && retry_keys[3]))
        return bind_error(binder, JOINERY_ERROR_VALIDATE, first_retry->position,
                          "Invalid LOOKUP hint: a retry needs all of 'retry-predicate' "
                          "('lookup_miss'), 'retry-strategy' ('fixed_delay'), 'fixed-delay' and "
                          "'max-attempts'");
    options->retry = any_retry;
    /* seed 001's spelling, onto the table's cache options */
    if (cache_set) {
        LookupCacheOptions *cache = &options->cache;
        if (cache_kind != cache->kind) {
            bool keep_missing = cache->cache_missing_key;
            memset(cache, 0, sizeof *cache);
            cache->cache_missing_key = keep_missing;
        }
        cache->kind = cache_kind;
    }
    if ((cache_size_set || cache_ttl_set) && options->cache.kind == LOOKUP_CACHE_NONE)
        return bind_error(binder, JOINERY_ERROR_VALIDATE, hint->position,
                          "Invalid LOOKUP hint: 'cache-size' and 'cache-ttl' need a cache "
                          "('cache' = 'LRU' or 'FULL', or the table's 'lookup.cache')");
    if (options->cache.kind == LOOKUP_CACHE_PARTIAL) {
        if (cache_size_set)
            options->cache.max_rows = cache_size;
        if (cache_ttl_set)
            options->cache.expire_after_write_millis = cache_ttl;
        if (!options->cache.max_rows && !options->cache.expire_after_write_millis &&
            !options->cache.expire_after_access_millis)
            options->cache.max_rows = 10000; /* 'cache' = 'LRU' alone: a bounded cache */
    } else if (options->cache.kind == LOOKUP_CACHE_FULL) {
        if (cache_size_set)
            return bind_error(binder, JOINERY_ERROR_VALIDATE, hint->position,
                              "Invalid LOOKUP hint: 'cache-size' bounds an LRU cache; a FULL "
                              "cache holds the whole table");
        if (cache_ttl_set)
            options->cache.reload_interval_millis = cache_ttl;
    }
    return JOINERY_OK;
}

int bind_lookup_options(Binder *binder, const CatalogTable *table, const char *alias,
                        PlanLookupOptions **result)
{
    PlanLookupOptions *options = arena_calloc(binder->arena, 1, sizeof *options);
    if (!options)
        return diag_error(binder->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    /* the session's defaults; the hint's keys override them one by one */
    const PlannerConfig *config = binder->context->config;
    options->capacity = config->async_lookup_capacity;
    options->timeout_millis = config->async_lookup_timeout_millis;
    options->allow_unordered = config->async_lookup_allow_unordered;
    const Connector *connector = connector_find(catalog_table_option(table, "connector"));
    if (connector && connector->create_lookup) {
        int status = lookup_cache_options_read(table, &options->cache, binder->diag);
        if (status != JOINERY_OK)
            return status;
    } else {
        /* a filesystem table: its files are loaded whole, reloaded after lookup.join.cache.ttl */
        options->full_cache_from_files = true;
        options->cache.kind = LOOKUP_CACHE_FULL;
        options->cache.reload_interval_millis = 60 * 60 * 1000;
        const char *ttl = catalog_table_option(table, "lookup.join.cache.ttl");
        if (ttl && duration_parse_millis(ttl, &options->cache.reload_interval_millis) != 0)
            return diag_error(binder->diag, JOINERY_ERROR_VALIDATE,
                              "Option 'lookup.join.cache.ttl' must be a duration, not '%s'", ttl);
    }
    const AstList *hints = binder->select_hints;
    for (size_t h = 0; hints && h < hints->count && h < 64; h++) {
        const AstHint *hint = hints->items[h];
        if (strcasecmp(hint->name, "LOOKUP") != 0 || !hint_names(hint, table->name, alias))
            continue;
        binder->lookup_hints_used |= (uint64_t)1 << h;
        int status = apply_hint(binder, hint, options);
        if (status != JOINERY_OK)
            return status;
        if (options->full_cache_from_files && options->cache.kind != LOOKUP_CACHE_FULL)
            return bind_error(binder, JOINERY_ERROR_VALIDATE, hint->position,
                              "Invalid LOOKUP hint: the filesystem table '%s' is looked up in a "
                              "FULL cache of its files ('lookup.join.cache.ttl' says when they "
                              "are read again)",
                              table->name);
        break;
    }
    if (options->full_cache_from_files)
        options->async = false; /* Flink: a table with only a synchronous lookup runs it */
    *result = options;
    return JOINERY_OK;
}

int bind_check_lookup_hints(Binder *binder, const AstList *hints)
{
    for (size_t h = 0; hints && h < hints->count && h < 64; h++) {
        const AstHint *hint = hints->items[h];
        if (strcasecmp(hint->name, "LOOKUP") != 0)
            continue;
        const AstOption *table = NULL;
        for (size_t i = 0; i < hint->options.count; i++)
            if (strcasecmp(((AstOption *)hint->options.items[i])->key, "table") == 0)
                table = hint->options.items[i];
        if (!table)
            return bind_error(binder, JOINERY_ERROR_VALIDATE, hint->position,
                              "Invalid LOOKUP hint: incomplete required option(s): 'table'");
        if (!((binder->lookup_hints_used >> h) & 1))
            return bind_error(binder, JOINERY_ERROR_VALIDATE, hint->position,
                              "The options of following hints cannot match the name of input "
                              "tables or views: '%s' in LOOKUP (a LOOKUP hint names the table "
                              "or alias of a lookup join: FOR SYSTEM_TIME AS OF a processing "
                              "time)",
                              table->value);
    }
    return JOINERY_OK;
}
