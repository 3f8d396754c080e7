/*
 * registry.c - the connectors known by name, and the generic validation of
 * a table's WITH options against a connector's option list.
 *
 * Invariants: CONNECTORS is sorted by name and NULL-terminated in
 * CONNECTOR_NAMES; option patterns use '#' for one key segment and a
 * trailing '*' for any suffix (see connector_option_matches). Messages
 * follow Flink's wording where it has one, plus a "did you mean".
 */
#include "engine/connector/connector.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "engine/base/strbuf.h"
#include "engine/base/value.h"
#include "engine/connector/kafka_internal.h"
#include "engine/connector/lookup.h"
#include "engine/connector/lookup_cache_options.h"
#include "engine/connector/lookup_pool.h"

static const Connector *const CONNECTORS[] = {
    &connector_blackhole, &connector_datagen, &connector_filesystem,
    &connector_jdbc,      &connector_kafka,   &connector_nexmark,
    &connector_print,     &connector_redis,   &connector_upsert_kafka,
};

enum { CONNECTOR_COUNT = sizeof CONNECTORS / sizeof CONNECTORS[0] };

static const char *const CONNECTOR_NAMES[] = {"blackhole",    "datagen", "filesystem", "jdbc",
                                              "kafka",        "nexmark", "print",      "redis",
                                              "upsert-kafka", NULL};

_Static_assert(sizeof CONNECTOR_NAMES / sizeof CONNECTOR_NAMES[0] == CONNECTOR_COUNT + 1,
               "CONNECTOR_NAMES must list every connector");

const Connector *connector_find(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < CONNECTOR_COUNT; i++)
        if (strcmp(CONNECTORS[i]->name, name) == 0)
            return CONNECTORS[i];
    return NULL;
}

bool connector_sink_writes_metadata(const Connector *connector, const char *key)
{
    for (const char *const *k = connector->sink_metadata_keys; k && *k; k++)
        if (strcmp(*k, key) == 0)
            return true;
    return false;
}

SinkChangelog connector_sink_changelog(const Connector *connector, const CatalogTable *table)
{
    return connector->sink_changelog ? connector->sink_changelog(table) : SINK_CHANGELOG_ALL;
}

const char *const *connector_names(void)
{
    return CONNECTOR_NAMES;
}

bool connector_option_matches(const char *pattern, const char *key)
{
    while (*pattern) {
        if (*pattern == '*' && pattern[1] == '\0')
            return *key != '\0';
        if (*pattern == '#') {
            size_t segment = strcspn(key, ".");
            if (segment == 0)
                return false;
            key += segment;
            pattern++;
            continue;
        }
        if (*pattern != *key)
            return false;
        pattern++;
        key++;
    }
    return *key == '\0';
}

bool connector_parse_int64(const char *text, int64_t *result)
{
    Value value;
    char reason[64];
    if (value_parse_text(type_make(TYPE_BIGINT, true), text, (uint32_t)strlen(text), NULL, &value,
                         reason, sizeof reason) != 0)
        return false;
    *result = value.i;
    return true;
}

bool connector_parse_bool(const char *text, bool *result)
{
    if (strcasecmp(text, "true") == 0)
        *result = true;
    else if (strcasecmp(text, "false") == 0)
        *result = false;
    else
        return false;
    return true;
}

/* Joins names with ", " (at most what fits in a diagnostic). */
static void append_list(StrBuf *out, const char *const *names, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        if (out->length > DIAG_MESSAGE_MAX - 200) {
            strbuf_append_cstr(out, ", ...");
            return;
        }
        if (i > 0)
            strbuf_append_cstr(out, ", ");
        strbuf_append_cstr(out, names[i]);
    }
}

/*
 * Writes into `candidate` the pattern with its '#' replaced by the key's
 * segment at the same position (so "fields.#.kind" becomes "fields.id.kind"
 * for key "fields.id.knd"), and a trailing '*' dropped.
 */
static void instantiate_pattern(const char *pattern, const char *key, char *candidate, size_t size)
{
    size_t used = 0;
    const char *key_segment = key; /* segment of the key at the pattern's position */
    for (const char *p = pattern; *p && used + 1 < size; p++) {
        if (*p == '*' && p[1] == '\0')
            break;
        if (*p == '#' && key_segment) {
            size_t length = strcspn(key_segment, ".");
            for (size_t i = 0; i < length && used + 1 < size; i++)
                candidate[used++] = key_segment[i];
            if (length == 0)
                candidate[used++] = '#';
            continue;
        }
        candidate[used++] = *p;
        if (*p == '.' && key_segment) {
            const char *dot = strchr(key_segment, '.');
            key_segment = dot ? dot + 1 : NULL;
        }
    }
    candidate[used] = '\0';
}

static int unknown_option_error(const Connector *connector, const char *key, Diag *diag)
{
    enum { MAX_CANDIDATES = 128 };
    char storage[MAX_CANDIDATES][128];
    const char *candidates[MAX_CANDIDATES];
    const char *keys[MAX_CANDIDATES + 1];
    size_t count = 0;
    keys[count] = "connector";
    candidates[count] = "connector";
    count++;
    for (size_t i = 0; i < connector->option_count && count < MAX_CANDIDATES; i++) {
        instantiate_pattern(connector->options[i].key, key, storage[count], sizeof storage[0]);
        candidates[count] = storage[count];
        keys[count] = connector->options[i].key;
        count++;
    }
    for (uint32_t i = 0;
         connector->create_lookup && i < LOOKUP_CACHE_OPTION_COUNT && count < MAX_CANDIDATES; i++) {
        candidates[count] = LOOKUP_CACHE_OPTIONS[i].key;
        keys[count] = LOOKUP_CACHE_OPTIONS[i].key;
        count++;
    }
    if (connector->create_lookup && count < MAX_CANDIDATES) {
        candidates[count] = LOOKUP_POOL_OPTION;
        keys[count] = LOOKUP_POOL_OPTION;
        count++;
    }
    const char *suggestion = catalog_suggest_name(key, candidates, count);
    StrBuf message = STRBUF_INIT;
    strbuf_printf(&message, "Unsupported option '%s' for connector '%s'.", key, connector->name);
    if (suggestion)
        strbuf_printf(&message, " Did you mean '%s'?", suggestion);
    strbuf_append_cstr(&message, " Supported options: ");
    append_list(&message, keys, count);
    int status = diag_error(diag, JOINERY_ERROR_VALIDATE, "%s",
                            message.data ? message.data : "Unsupported option");
    strbuf_free(&message);
    return status;
}

int connector_validate_table(const CatalogTable *table, Diag *diag)
{
    const char *name = catalog_table_option(table, "connector");
    if (!name) {
        StrBuf message = STRBUF_INIT;
        strbuf_printf(&message,
                      "Table options do not contain an option key 'connector' for discovering "
                      "a connector. Available connectors: ");
        append_list(&message, CONNECTOR_NAMES, CONNECTOR_COUNT);
        int status = diag_error(diag, JOINERY_ERROR_VALIDATE, "%s",
                                message.data ? message.data : "Missing 'connector' option");
        strbuf_free(&message);
        return status;
    }
    const Connector *connector = connector_find(name);
    if (!connector) {
        const char *suggestion = catalog_suggest_name(name, CONNECTOR_NAMES, CONNECTOR_COUNT);
        StrBuf message = STRBUF_INIT;
        strbuf_printf(&message, "Could not find any factory for identifier '%s'.", name);
        if (suggestion)
            strbuf_printf(&message, " Did you mean '%s'?", suggestion);
        strbuf_append_cstr(&message, " Available connectors: ");
        append_list(&message, CONNECTOR_NAMES, CONNECTOR_COUNT);
        int status = diag_error(diag, JOINERY_ERROR_VALIDATE, "%s",
                                message.data ? message.data : "Unknown connector");
        strbuf_free(&message);
        return status;
    }
    for (size_t i = 0; i < connector->option_count; i++) {
        const ConnectorOption *option = &connector->options[i];
        if (option->required && !catalog_table_option(table, option->key))
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "Missing required option '%s' for connector '%s' (%s).", option->key,
                              connector->name, option->description);
    }
    for (size_t i = 0; i < table->option_count; i++) {
        const char *key = table->options[i].key;
        if (strcmp(key, "connector") == 0)
            continue;
        bool known = false;
        for (size_t j = 0; j < connector->option_count && !known; j++)
            known = connector_option_matches(connector->options[j].key, key);
        /* a table that can be looked up takes the cache options of its lookup joins */
        for (uint32_t j = 0; connector->create_lookup && j < LOOKUP_CACHE_OPTION_COUNT && !known;
             j++)
            known = strcmp(LOOKUP_CACHE_OPTIONS[j].key, key) == 0;
        known = known || (connector->create_lookup && strcmp(key, LOOKUP_POOL_OPTION) == 0);
        if (!known)
            return unknown_option_error(connector, key, diag);
    }
    if (connector->create_lookup) {
        LookupCacheOptions cache;
        int status = lookup_cache_options_read(table, &cache, diag);
        uint32_t connections;
        if (status == JOINERY_OK)
            status = lookup_pool_read_connections(table, &connections, diag);
        if (status != JOINERY_OK)
            return status;
    }
    if (connector->validate)
        return connector->validate(table, diag);
    return JOINERY_OK;
}

int lookup_function_create(const LookupSpec *spec, LookupFunction **function, Diag *diag)
{
    const char *name = catalog_table_option(spec->table, "connector");
    const Connector *connector = connector_find(name);
    if (!connector || !connector->create_lookup)
        return diag_error(diag, JOINERY_ERROR_UNSUPPORTED,
                          "Table '%s': connector '%s' cannot be looked up by key.",
                          spec->table->name, name ? name : "");
    uint32_t connections = 1;
    if (spec->async_capacity > 0) {
        int status = lookup_pool_read_connections(spec->table, &connections, diag);
        if (status != JOINERY_OK)
            return status;
        if (connections == 0)
            connections = lookup_pool_default_connections(spec->async_capacity);
        if (connections > spec->async_capacity) /* more could never all be busy */
            connections = spec->async_capacity;
    }
    if (connections > 1)
        return lookup_pool_create(spec, connections, connector->create_lookup, function, diag);
    int status = connector->create_lookup(spec, function, diag);
    if (status == JOINERY_OK)
        (*function)->connections = 1;
    return status;
}
