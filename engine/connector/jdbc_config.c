/*
 * jdbc_config.c - Flink's 'jdbc' connector, the part that does not depend
 * on the database: its options and their checks, the `url`
 * (jdbc:postgresql://, jdbc:mysql://, jdbc:mariadb://) and the dialect it
 * selects, the check of the DDL's columns against the database's, and the
 * connector entry, which hands the source, the sink and the lookup to the
 * dialect's client (jdbc_postgres*.c: libpq; jdbc_mysql*.c: the MariaDB C
 * connector).
 *
 * Invariant: the password is never written into a message.
 */
#include "engine/connector/jdbc_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "engine/connector/lookup.h"

static const struct {
    const char *prefix;
    const JdbcDialect *dialect;
} URL_PREFIXES[] = {
    {"jdbc:postgresql://", &JDBC_DIALECT_POSTGRESQL},
    {"jdbc:mysql://", &JDBC_DIALECT_MYSQL},
    {"jdbc:mariadb://", &JDBC_DIALECT_MARIADB},
};

int jdbc_parse_url(const CatalogTable *table, const char *url, JdbcEndpoint *endpoint, Diag *diag)
{
    memset(endpoint, 0, sizeof *endpoint);
    const char *rest = NULL;
    for (size_t i = 0; url && i < sizeof URL_PREFIXES / sizeof URL_PREFIXES[0] && !rest; i++) {
        size_t length = strlen(URL_PREFIXES[i].prefix);
        if (strncmp(url, URL_PREFIXES[i].prefix, length) == 0) {
            rest = url + length;
            endpoint->dialect = URL_PREFIXES[i].dialect;
        }
    }
    if (!rest)
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Table '%s': option 'url' must be a JDBC URL of PostgreSQL "
                          "('jdbc:postgresql://host:port/database') or MySQL / MariaDB "
                          "('jdbc:mysql://host:port/database', 'jdbc:mariadb://...'); other "
                          "databases are not supported.",
                          table->name);
    const JdbcDialect *dialect = endpoint->dialect;
    size_t authority = strcspn(rest, "/?");
    if (memchr(rest, '@', authority))
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Table '%s': option 'url' must not hold credentials; use the "
                          "'username' and 'password' options.",
                          table->name);
    size_t host_length = strcspn(rest, ":/?");
    if (host_length == 0 || host_length >= sizeof endpoint->host)
        return diag_error(diag, JOINERY_ERROR_VALIDATE, "Table '%s': option 'url' has no host.",
                          table->name);
    memcpy(endpoint->host, rest, host_length);
    rest += host_length;
    snprintf(endpoint->port, sizeof endpoint->port, "%s", dialect->default_port);
    if (*rest == ':') {
        rest++;
        size_t port_length = strcspn(rest, "/?");
        bool valid = port_length > 0 && port_length < 6;
        for (size_t i = 0; valid && i < port_length; i++)
            valid = isdigit((unsigned char)rest[i]);
        if (!valid)
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "Table '%s': option 'url' has an invalid port.", table->name);
        memcpy(endpoint->port, rest, port_length);
        endpoint->port[port_length] = '\0';
        rest += port_length;
    }
    if (*rest != '/' || rest[1] == '\0' || rest[1] == '?')
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Table '%s': option 'url' names no database ('%s').", table->name,
                          dialect->url_form);
    rest++;
    size_t database_length = strcspn(rest, "?");
    if (database_length >= sizeof endpoint->database)
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Table '%s': the database name in 'url' is too long.", table->name);
    memcpy(endpoint->database, rest, database_length);
    if (rest[database_length] == '?')
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Table '%s': parameters in 'url' (after '?') are not supported yet.",
                          table->name);
    return JOINERY_OK;
}

int jdbc_table_endpoint(const CatalogTable *table, JdbcEndpoint *endpoint, Diag *diag)
{
    return jdbc_parse_url(table, catalog_table_option(table, "url"), endpoint, diag);
}

const char *jdbc_store_name(const JdbcEndpoint *endpoint, char *buffer, size_t size)
{
    snprintf(buffer, size, "%s at %s:%s/%s", endpoint->dialect->product, endpoint->host,
             endpoint->port, endpoint->database);
    return buffer;
}

int64_t jdbc_option_int(const CatalogTable *table, const char *key, int64_t fallback)
{
    int64_t value;
    const char *text = catalog_table_option(table, key);
    return text && connector_parse_int64(text, &value) ? value : fallback;
}

static bool same_name(const char *declared, const char *stored)
{
    return strcasecmp(declared, stored) == 0;
}

int jdbc_check_columns(const CatalogTable *table, const JdbcEndpoint *endpoint,
                       const JdbcColumnInfo *database_columns, uint32_t database_count,
                       uint32_t count, const uint32_t *columns, const DataType *types, Diag *diag)
{
    char store[600];
    jdbc_store_name(endpoint, store, sizeof store);
    const char *table_name = catalog_table_option(table, "table-name");
    if (database_count == 0)
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Table '%s': table '%s' does not exist in %s (or has no columns).",
                          table->name, table_name, store);
    for (uint32_t i = 0; i < count; i++) {
        const char *name = table->columns[columns[i]].name;
        const JdbcColumnInfo *found = NULL;
        for (uint32_t c = 0; c < database_count && !found; c++)
            if (same_name(name, database_columns[c].name))
                found = &database_columns[c];
        if (!found)
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "Table '%s': column '%s' does not exist in table '%s' of %s.",
                              table->name, name, table_name, store);
        if (!endpoint->dialect->type_maps(types[i], found)) {
            char declared[128];
            type_format(types[i], declared, sizeof declared);
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "Table '%s': column '%s' is declared %s but is %s in table '%s' "
                              "of %s.",
                              table->name, name, declared, found->full_type, table_name, store);
        }
    }
    return JOINERY_OK;
}

static int jdbc_validate(const CatalogTable *table, Diag *diag)
{
    JdbcEndpoint endpoint;
    int status = jdbc_parse_url(table, catalog_table_option(table, "url"), &endpoint, diag);
    if (status != JOINERY_OK)
        return status;
    static const char *const INTEGER_OPTIONS[] = {"scan.fetch-size", "sink.buffer-flush.max-rows",
                                                  "sink.max-retries", "lookup.max-retries"};
    for (size_t i = 0; i < sizeof INTEGER_OPTIONS / sizeof INTEGER_OPTIONS[0]; i++) {
        const char *text = catalog_table_option(table, INTEGER_OPTIONS[i]);
        int64_t value;
        if (text && (!connector_parse_int64(text, &value) || value < 0 || value > 1000000))
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "Table '%s': option '%s' must be an integer from 0 to 1000000, "
                              "not '%s'.",
                              table->name, INTEGER_OPTIONS[i], text);
    }
    const char *retries = catalog_table_option(table, "sink.max-retries");
    if (retries && strcmp(retries, "0") != 0)
        return diag_error(diag, JOINERY_ERROR_UNSUPPORTED,
                          "Table '%s': option 'sink.max-retries' = '%s' is not supported yet: a "
                          "failed batch fails the job (set '0').",
                          table->name, retries);
    const JdbcDialect *dialect = endpoint.dialect;
    const char *driver = catalog_table_option(table, "driver");
    bool known_driver = !driver;
    for (size_t i = 0; driver && dialect->drivers[i] && !known_driver; i++)
        known_driver = strcmp(driver, dialect->drivers[i]) == 0;
    if (!known_driver)
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Table '%s': option 'driver' = '%s' does not match the url; joinery "
                          "talks to %s through its C client ('%s' or no 'driver').",
                          table->name, driver, dialect->product, dialect->drivers[0]);
    static const char *const NOT_YET[] = {"scan.partition.column", "scan.partition.num",
                                          "scan.partition.lower-bound",
                                          "scan.partition.upper-bound"};
    for (size_t i = 0; i < sizeof NOT_YET / sizeof NOT_YET[0]; i++)
        if (catalog_table_option(table, NOT_YET[i]))
            return diag_error(diag, JOINERY_ERROR_UNSUPPORTED,
                              "Table '%s': option '%s' is not supported yet (a jdbc table is "
                              "scanned by one reader).",
                              table->name, NOT_YET[i]);
    for (size_t i = 0; i < table->column_count; i++) {
        const CatalogColumn *column = &table->columns[i];
        if (column->kind != CATALOG_COLUMN_PHYSICAL)
            continue;
        if (!dialect->type_supported(column->type)) {
            char declared[128];
            type_format(column->type, declared, sizeof declared);
            return diag_error(diag, JOINERY_ERROR_UNSUPPORTED,
                              "Table '%s': column '%s' of type %s is not supported by the jdbc "
                              "connector for %s.",
                              table->name, column->name, declared, dialect->product);
        }
    }
    return JOINERY_OK;
}

static bool jdbc_is_bounded(const CatalogTable *table)
{
    (void)table;
    return true;
}

static SinkChangelog jdbc_sink_changelog(const CatalogTable *table)
{
    return table->primary_key_count > 0 ? SINK_CHANGELOG_UPSERT : SINK_CHANGELOG_INSERT_ONLY;
}

static int jdbc_create_source(const SourceSpec *spec, SourceReader **reader, Diag *diag)
{
    JdbcEndpoint endpoint;
    int status = jdbc_table_endpoint(spec->table, &endpoint, diag);
    return status == JOINERY_OK ? endpoint.dialect->create_source(spec, reader, diag) : status;
}

static int jdbc_create_sink(const SinkSpec *spec, SinkWriter **writer, Diag *diag)
{
    JdbcEndpoint endpoint;
    int status = jdbc_table_endpoint(spec->table, &endpoint, diag);
    return status == JOINERY_OK ? endpoint.dialect->create_sink(spec, writer, diag) : status;
}

static int jdbc_create_lookup(const LookupSpec *spec, LookupFunction **function, Diag *diag)
{
    JdbcEndpoint endpoint;
    int status = jdbc_table_endpoint(spec->table, &endpoint, diag);
    if (status == JOINERY_OK && spec->key_count == 0)
        status = diag_error(diag, JOINERY_ERROR_VALIDATE, "Table '%s': a lookup needs a key.",
                            spec->table->name);
    return status == JOINERY_OK ? endpoint.dialect->create_lookup(spec, function, diag) : status;
}

static const ConnectorOption JDBC_OPTIONS[] = {
    {"url", true, "jdbc:postgresql://host:port/database or jdbc:mysql://host:port/database"},
    {"table-name", true, "the table in the database (may name a schema: 'public.orders')"},
    {"driver", false,
     "org.postgresql.Driver, com.mysql.cj.jdbc.Driver, org.mariadb.jdbc.Driver (as the url)"},
    {"username", false, "user name"},
    {"password", false, "password (masked everywhere)"},
    {"scan.fetch-size", false, "rows fetched per round trip (0: 1000)"},
    {"scan.auto-commit", false, "accepted for Flink compatibility (the scan is one transaction)"},
    {"scan.partition.column", false, "not supported yet"},
    {"scan.partition.num", false, "not supported yet"},
    {"scan.partition.lower-bound", false, "not supported yet"},
    {"scan.partition.upper-bound", false, "not supported yet"},
    {"lookup.max-retries", false, "reconnects after a broken connection (default 3)"},
    {"sink.buffer-flush.max-rows", false, "rows written per round trip (default 100)"},
    {"sink.buffer-flush.interval", false,
     "accepted; rows never wait longer: each batch received is written before write returns"},
    {"sink.max-retries", false, "only '0' (a failed batch fails the job)"},
    {"sink.parallelism", false, "parallelism of the sink"},
};

const Connector connector_jdbc = {
    .name = "jdbc",
    .options = JDBC_OPTIONS,
    .option_count = sizeof JDBC_OPTIONS / sizeof JDBC_OPTIONS[0],
    .validate = jdbc_validate,
    .is_bounded = jdbc_is_bounded,
    .estimate_rows = NULL,
    .create_source = jdbc_create_source,
    .create_sink = jdbc_create_sink,
    .create_lookup = jdbc_create_lookup,
    .sink_changelog = jdbc_sink_changelog,
    .sink_update_hint = "declare a PRIMARY KEY on the jdbc table (upsert mode)",
};
