/*
 * jdbc_config.c - Flink's 'jdbc' connector for PostgreSQL: its options, the
 * `url`, the connection through libpq, the check of the DDL's columns
 * against the database's, text conversions, and the connector entry.
 *
 * Types as Flink's PostgresTypeMapper maps them: int2 SMALLINT (and
 * TINYINT), int4 INT, int8 BIGINT, float4 FLOAT, float8 DOUBLE, numeric
 * DECIMAL, bool BOOLEAN, bpchar / varchar / text CHAR, VARCHAR or STRING,
 * bytea BINARY / VARBINARY / BYTES, date DATE, time TIME, timestamp
 * TIMESTAMP, timestamptz TIMESTAMP_LTZ. Identifiers: `table-name` is used
 * as written (it may name a schema, `public.orders`), as Flink does; a
 * column is the lower-case form of its DDL name (what PostgreSQL folds an
 * unquoted name to), quoted.
 *
 * Invariant: the password is passed to libpq as a parameter and never
 * written into a message, a statement or a connection string.
 */
#include "engine/connector/jdbc_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "engine/base/value.h"

int jdbc_parse_url(const CatalogTable *table, const char *url, JdbcEndpoint *endpoint, Diag *diag)
{
    static const char PREFIX[] = "jdbc:postgresql://";
    memset(endpoint, 0, sizeof *endpoint);
    if (!url || strncmp(url, PREFIX, sizeof PREFIX - 1) != 0)
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Table '%s': option 'url' must be a PostgreSQL JDBC URL "
                          "'jdbc:postgresql://host:port/database' (other databases are not "
                          "supported yet).",
                          table->name);
    const char *rest = url + sizeof PREFIX - 1;
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
    strcpy(endpoint->port, "5432");
    if (*rest == ':') {
        rest++;
        size_t port_length = strcspn(rest, "/?");
        if (port_length == 0 || port_length >= sizeof endpoint->port)
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "Table '%s': option 'url' has an invalid port.", table->name);
        for (size_t i = 0; i < port_length; i++)
            if (!isdigit((unsigned char)rest[i]))
                return diag_error(diag, JOINERY_ERROR_VALIDATE,
                                  "Table '%s': option 'url' has an invalid port.", table->name);
        memcpy(endpoint->port, rest, port_length);
        endpoint->port[port_length] = '\0';
        rest += port_length;
    }
    if (*rest != '/' || rest[1] == '\0' || rest[1] == '?')
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Table '%s': option 'url' names no database "
                          "('jdbc:postgresql://host:port/database').",
                          table->name);
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

const char *jdbc_store_name(const JdbcEndpoint *endpoint, char *buffer, size_t size)
{
    snprintf(buffer, size, "%s:%s/%s", endpoint->host, endpoint->port, endpoint->database);
    return buffer;
}

int64_t jdbc_option_int(const CatalogTable *table, const char *key, int64_t fallback)
{
    int64_t value;
    const char *text = catalog_table_option(table, key);
    return text && connector_parse_int64(text, &value) ? value : fallback;
}

/* The first line of libpq's message, without "FATAL:  " / "ERROR:  ". */
static void first_line(const char *message, char *out, size_t size)
{
    if (!message)
        message = "";
    if (strncmp(message, "FATAL:  ", 8) == 0 || strncmp(message, "ERROR:  ", 8) == 0)
        message += 8;
    size_t length = strcspn(message, "\n");
    if (length >= size)
        length = size - 1;
    memcpy(out, message, length);
    out[length] = '\0';
}

PGconn *jdbc_connect(const CatalogTable *table, Diag *diag)
{
    JdbcEndpoint endpoint;
    if (jdbc_parse_url(table, catalog_table_option(table, "url"), &endpoint, diag) != JOINERY_OK)
        return NULL;
    const char *keys[] = {"host",     "port",    "dbname",           "user",
                          "password", "options", "application_name", "connect_timeout",
                          NULL};
    const char *values[] = {endpoint.host,
                            endpoint.port,
                            endpoint.database,
                            catalog_table_option(table, "username"),
                            catalog_table_option(table, "password"),
                            "-c TimeZone=UTC -c DateStyle=ISO -c extra_float_digits=3",
                            "joinery",
                            "10",
                            NULL};
    /* options left out (no 'username' or 'password') take libpq's defaults (PGUSER,
       PGPASSWORD, ~/.pgpass), as psql does */
    PGconn *connection = PQconnectdbParams(keys, values, 0);
    char store[600];
    jdbc_store_name(&endpoint, store, sizeof store);
    if (!connection) {
        diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory connecting to %s", store);
        return NULL;
    }
    if (PQstatus(connection) != CONNECTION_OK) {
        char reason[400];
        first_line(PQerrorMessage(connection), reason, sizeof reason);
        diag_error(diag, JOINERY_ERROR_RUNTIME,
                   "Table '%s': cannot connect to PostgreSQL at %s: %s", table->name, store,
                   reason);
        PQfinish(connection);
        return NULL;
    }
    return connection;
}

int jdbc_append_column(StrBuf *sql, const char *name)
{
    if (strbuf_append_char(sql, '"') != 0)
        return -1;
    for (const char *c = name; *c; c++) {
        char folded = (char)tolower((unsigned char)*c);
        if (folded == '"' && strbuf_append_char(sql, '"') != 0)
            return -1;
        if (strbuf_append_char(sql, folded) != 0)
            return -1;
    }
    return strbuf_append_char(sql, '"');
}

/* True when a column of PostgreSQL type `type_name` can be read or written as `type`. */
static bool type_maps(DataType type, const char *type_name)
{
    switch (type.id) {
    case TYPE_BOOLEAN:
        return strcmp(type_name, "bool") == 0;
    case TYPE_TINYINT:
    case TYPE_SMALLINT:
        return strcmp(type_name, "int2") == 0;
    case TYPE_INT:
        return strcmp(type_name, "int4") == 0;
    case TYPE_BIGINT:
        return strcmp(type_name, "int8") == 0;
    case TYPE_FLOAT:
        return strcmp(type_name, "float4") == 0;
    case TYPE_DOUBLE:
        return strcmp(type_name, "float8") == 0;
    case TYPE_DECIMAL:
        return strcmp(type_name, "numeric") == 0;
    case TYPE_CHAR:
    case TYPE_VARCHAR:
        return strcmp(type_name, "bpchar") == 0 || strcmp(type_name, "varchar") == 0 ||
               strcmp(type_name, "text") == 0;
    case TYPE_DATE:
        return strcmp(type_name, "date") == 0;
    case TYPE_TIME:
        return strcmp(type_name, "time") == 0;
    case TYPE_TIMESTAMP:
        return strcmp(type_name, "timestamp") == 0;
    case TYPE_TIMESTAMP_LTZ:
        return strcmp(type_name, "timestamptz") == 0;
    case TYPE_BINARY:
    case TYPE_VARBINARY:
        return strcmp(type_name, "bytea") == 0;
    default:
        return false;
    }
}

int jdbc_check_columns(PGconn *connection, const CatalogTable *table, uint32_t count,
                       const uint32_t *columns, const DataType *types, Diag *diag)
{
    JdbcEndpoint endpoint;
    if (jdbc_parse_url(table, catalog_table_option(table, "url"), &endpoint, diag) != JOINERY_OK)
        return JOINERY_ERROR_VALIDATE;
    char store[600];
    jdbc_store_name(&endpoint, store, sizeof store);
    const char *table_name = catalog_table_option(table, "table-name");
    const char *params[] = {table_name};
    PGresult *result =
        PQexecParams(connection,
                     "SELECT a.attname, t.typname, format_type(a.atttypid, a.atttypmod) "
                     "FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid "
                     "WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped",
                     1, NULL, params, NULL, NULL, 0);
    if (PQresultStatus(result) != PGRES_TUPLES_OK) {
        char reason[400];
        first_line(PQresultErrorMessage(result), reason, sizeof reason);
        PQclear(result);
        return diag_error(diag, JOINERY_ERROR_RUNTIME,
                          "Table '%s': cannot read the columns of '%s' in PostgreSQL at %s: %s",
                          table->name, table_name, store, reason);
    }
    int status = JOINERY_OK;
    if (PQntuples(result) == 0) {
        status = diag_error(diag, JOINERY_ERROR_VALIDATE,
                            "Table '%s': table '%s' does not exist in PostgreSQL at %s (or has "
                            "no columns).",
                            table->name, table_name, store);
    }
    for (uint32_t i = 0; i < count && status == JOINERY_OK; i++) {
        const char *name = table->columns[columns[i]].name;
        int row = -1;
        for (int r = 0; r < PQntuples(result) && row < 0; r++) {
            const char *attname = PQgetvalue(result, r, 0);
            size_t length = strlen(name);
            bool same = strlen(attname) == length;
            for (size_t c = 0; same && c < length; c++)
                same = tolower((unsigned char)name[c]) == attname[c];
            if (same)
                row = r;
        }
        char declared[128];
        type_format(types[i], declared, sizeof declared);
        if (row < 0) {
            status = diag_error(diag, JOINERY_ERROR_VALIDATE,
                                "Table '%s': column '%s' does not exist in table '%s' of "
                                "PostgreSQL at %s.",
                                table->name, name, table_name, store);
        } else if (!type_maps(types[i], PQgetvalue(result, row, 1))) {
            status = diag_error(diag, JOINERY_ERROR_VALIDATE,
                                "Table '%s': column '%s' is declared %s but is %s in table '%s' "
                                "of PostgreSQL at %s.",
                                table->name, name, declared, PQgetvalue(result, row, 2), table_name,
                                store);
        }
    }
    PQclear(result);
    return status;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = (char)tolower((unsigned char)c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int jdbc_text_to_field(RowBuilder *builder, uint32_t field, DataType type, const char *text,
                       uint32_t length, char *error, size_t error_size)
{
    switch (type.id) {
    case TYPE_BOOLEAN:
        if (length != 1 || (text[0] != 't' && text[0] != 'f')) {
            snprintf(error, error_size, "not a boolean");
            return -1;
        }
        row_builder_set_int64(builder, field, text[0] == 't');
        return 0;
    case TYPE_BINARY:
    case TYPE_VARBINARY: {
        if (length < 2 || text[0] != '\\' || text[1] != 'x' || length % 2 != 0) {
            snprintf(error, error_size, "not bytea in hex form");
            return -1;
        }
        uint32_t size = (length - 2) / 2;
        char *bytes = malloc(size ? size : 1);
        if (!bytes) {
            snprintf(error, error_size, "out of memory");
            return -1;
        }
        for (uint32_t i = 0; i < size; i++) {
            int high = hex_digit(text[2 + 2 * i]), low = hex_digit(text[3 + 2 * i]);
            if (high < 0 || low < 0) {
                free(bytes);
                snprintf(error, error_size, "not bytea in hex form");
                return -1;
            }
            bytes[i] = (char)(high << 4 | low);
        }
        row_builder_set_string(builder, field, bytes, size);
        free(bytes);
        return 0;
    }
    case TYPE_FLOAT:
    case TYPE_DOUBLE:
        if (strcmp(text, "NaN") == 0 || strcmp(text, "Infinity") == 0 ||
            strcmp(text, "-Infinity") == 0) {
            double value = text[0] == 'N' ? NAN : text[0] == '-' ? -INFINITY : INFINITY;
            row_builder_set_double(builder, field, value);
            return 0;
        }
        break;
    case TYPE_CHAR:
    case TYPE_VARCHAR:
        row_builder_set_string(builder, field, text, length);
        return 0;
    default:
        break;
    }
    DataType parse_type = type;
    if (type.id == TYPE_TIMESTAMP_LTZ) {
        /* the session's time zone is UTC: "2024-05-01 10:00:00.5+00" */
        if (length < 3 || strcmp(text + length - 3, "+00") != 0) {
            snprintf(error, error_size, "not a UTC timestamp");
            return -1;
        }
        length -= 3;
        parse_type.id = TYPE_TIMESTAMP;
    }
    Value value;
    if (value_parse_text(parse_type, text, length, NULL, &value, error, error_size) != 0)
        return -1;
    value_to_builder(builder, field, type, value);
    return 0;
}

int jdbc_value_to_text(DataType type, Value value, StrBuf *out)
{
    switch (type.id) {
    case TYPE_BOOLEAN:
        return strbuf_append_cstr(out, value.i ? "true" : "false");
    case TYPE_BINARY:
    case TYPE_VARBINARY: {
        static const char HEX[] = "0123456789abcdef";
        if (strbuf_append_cstr(out, "\\x") != 0)
            return -1;
        for (uint32_t i = 0; i < value.s.len; i++) {
            unsigned char byte = (unsigned char)value.s.ptr[i];
            if (strbuf_append_char(out, HEX[byte >> 4]) != 0 ||
                strbuf_append_char(out, HEX[byte & 15]) != 0)
                return -1;
        }
        return 0;
    }
    case TYPE_CHAR:
    case TYPE_VARCHAR:
        return strbuf_append(out, value.s.ptr, value.s.len);
    case TYPE_FLOAT:
    case TYPE_DOUBLE:
        if (isnan(value.d))
            return strbuf_append_cstr(out, "NaN");
        if (isinf(value.d))
            return strbuf_append_cstr(out, value.d < 0 ? "-Infinity" : "Infinity");
        return value_format_text(type, value, out);
    case TYPE_TIMESTAMP_LTZ: {
        DataType plain = type;
        plain.id = TYPE_TIMESTAMP;
        if (value_format_text(plain, value, out) != 0)
            return -1;
        return strbuf_append_cstr(out, "+00");
    }
    default:
        return value_format_text(type, value, out);
    }
}

/* True when some PostgreSQL type maps to `type`. */
static bool type_supported(DataType type)
{
    static const char *const NAMES[] = {"bool",      "int2",        "int4", "int8", "float4",
                                        "float8",    "numeric",     "text", "date", "time",
                                        "timestamp", "timestamptz", "bytea"};
    for (size_t i = 0; i < sizeof NAMES / sizeof NAMES[0]; i++)
        if (type_maps(type, NAMES[i]))
            return true;
    return false;
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
    const char *driver = catalog_table_option(table, "driver");
    if (driver && strcmp(driver, "org.postgresql.Driver") != 0)
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Table '%s': option 'driver' = '%s' is not supported; joinery talks to "
                          "PostgreSQL through libpq ('org.postgresql.Driver' or no 'driver').",
                          table->name, driver);
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
        if (!type_supported(column->type)) {
            char declared[128];
            type_format(column->type, declared, sizeof declared);
            return diag_error(diag, JOINERY_ERROR_UNSUPPORTED,
                              "Table '%s': column '%s' of type %s is not supported by the jdbc "
                              "connector for PostgreSQL.",
                              table->name, column->name, declared);
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

static const ConnectorOption JDBC_OPTIONS[] = {
    {"url", true, "jdbc:postgresql://host:port/database"},
    {"table-name", true, "the table in the database (may name a schema: 'public.orders')"},
    {"driver", false, "org.postgresql.Driver (the only one; libpq is used)"},
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
