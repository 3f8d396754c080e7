/*
 * jdbc_postgres.c - the PostgreSQL dialect of the jdbc connector and what
 * its source, sink and lookup share: the connection through libpq, the
 * columns of `table-name` read from pg_attribute, and conversions between
 * joinery values and PostgreSQL's text format.
 *
 * Types as Flink's PostgresTypeMapper maps them: int2 SMALLINT (and
 * TINYINT), int4 INT, int8 BIGINT, float4 FLOAT, float8 DOUBLE, numeric
 * DECIMAL, bool BOOLEAN, bpchar / varchar / text CHAR, VARCHAR or STRING,
 * bytea BINARY / VARBINARY / BYTES, date DATE, time TIME, timestamp
 * TIMESTAMP, timestamptz TIMESTAMP_LTZ. Identifiers: a column is the
 * lower-case form of its DDL name (what PostgreSQL folds an unquoted name
 * to), quoted. The upsert is `ON CONFLICT (key) DO UPDATE SET` the other
 * columns (`DO NOTHING` when every column is in the key).
 *
 * Invariant: the password is passed to libpq as a parameter and never
 * written into a message, a statement or a connection string.
 */
#include "engine/connector/jdbc_postgres.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/binary.h"
#include "engine/base/value.h"

/* The first line of libpq's message, without "FATAL:  " / "ERROR:  ". */
void jdbc_postgres_reason(const char *message, char *out, size_t size)
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

PGconn *jdbc_postgres_connect(const CatalogTable *table, Diag *diag)
{
    JdbcEndpoint endpoint;
    if (jdbc_table_endpoint(table, &endpoint, diag) != JOINERY_OK)
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
        jdbc_postgres_reason(PQerrorMessage(connection), reason, sizeof reason);
        diag_error(diag, JOINERY_ERROR_RUNTIME, "Table '%s': cannot connect to %s: %s", table->name,
                   store, reason);
        PQfinish(connection);
        return NULL;
    }
    return connection;
}

static int postgres_append_column(StrBuf *sql, const char *name)
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
static bool postgres_type_maps(DataType type, const JdbcColumnInfo *column)
{
    const char *type_name = column->type_name;
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

int jdbc_postgres_check_columns(PGconn *connection, const CatalogTable *table, uint32_t count,
                                const uint32_t *columns, const DataType *types, Diag *diag)
{
    JdbcEndpoint endpoint;
    if (jdbc_table_endpoint(table, &endpoint, diag) != JOINERY_OK)
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
        jdbc_postgres_reason(PQresultErrorMessage(result), reason, sizeof reason);
        PQclear(result);
        return diag_error(diag, JOINERY_ERROR_RUNTIME,
                          "Table '%s': cannot read the columns of '%s' in %s: %s", table->name,
                          table_name, store, reason);
    }
    uint32_t found = (uint32_t)PQntuples(result);
    JdbcColumnInfo *infos = calloc(found + 1, sizeof *infos);
    if (!infos) {
        PQclear(result);
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    }
    for (uint32_t r = 0; r < found; r++) {
        infos[r].name = PQgetvalue(result, (int)r, 0);
        infos[r].type_name = PQgetvalue(result, (int)r, 1);
        infos[r].full_type = PQgetvalue(result, (int)r, 2);
    }
    int status = jdbc_check_columns(table, &endpoint, infos, found, count, columns, types, diag);
    free(infos);
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

int jdbc_postgres_text_to_field(RowBuilder *builder, uint32_t field, DataType type,
                                const char *text, uint32_t length, char *error, size_t error_size)
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

int jdbc_postgres_value_to_text(DataType type, Value value, StrBuf *out)
{
    switch (type.id) {
    case TYPE_BOOLEAN:
        return strbuf_append_cstr(out, value.i ? "true" : "false");
    case TYPE_BINARY:
    case TYPE_VARBINARY: {
        if (strbuf_append_cstr(out, "\\x") != 0 ||
            binary_append_hex((const uint8_t *)value.s.ptr, value.s.len, out) != 0)
            return -1;
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
static bool postgres_type_supported(DataType type)
{
    static const char *const NAMES[] = {"bool",      "int2",        "int4", "int8", "float4",
                                        "float8",    "numeric",     "text", "date", "time",
                                        "timestamp", "timestamptz", "bytea"};
    for (size_t i = 0; i < sizeof NAMES / sizeof NAMES[0]; i++)
        if (postgres_type_maps(type, &(JdbcColumnInfo){NAMES[i], NAMES[i], NAMES[i]}))
            return true;
    return false;
}

static int postgres_append_upsert(StrBuf *sql, const char *const *names, uint32_t count,
                                  const uint32_t *key_fields, uint32_t key_count)
{
    int failed = strbuf_append_cstr(sql, " ON CONFLICT (");
    for (uint32_t k = 0; k < key_count; k++) {
        failed |= k ? strbuf_append_cstr(sql, ", ") : 0;
        failed |= postgres_append_column(sql, names[key_fields[k]]);
    }
    failed |= strbuf_append_cstr(sql, ")");
    bool any = false;
    for (uint32_t f = 0; f < count; f++) {
        bool in_key = false;
        for (uint32_t k = 0; k < key_count; k++)
            in_key |= key_fields[k] == f;
        if (in_key)
            continue;
        failed |= strbuf_append_cstr(sql, any ? ", " : " DO UPDATE SET ");
        failed |= postgres_append_column(sql, names[f]);
        failed |= strbuf_append_cstr(sql, " = EXCLUDED.");
        failed |= postgres_append_column(sql, names[f]);
        any = true;
    }
    if (!any)
        failed |= strbuf_append_cstr(sql, " DO NOTHING");
    return failed ? -1 : 0;
}

static const char *const POSTGRES_DRIVERS[] = {"org.postgresql.Driver", NULL};

const JdbcDialect JDBC_DIALECT_POSTGRESQL = {
    .product = "PostgreSQL",
    .url_form = "jdbc:postgresql://host:port/database",
    .default_port = "5432",
    .drivers = POSTGRES_DRIVERS,
    .append_column = postgres_append_column,
    .type_maps = postgres_type_maps,
    .type_supported = postgres_type_supported,
    .append_upsert = postgres_append_upsert,
    .create_source = jdbc_postgres_create_source,
    .create_sink = jdbc_postgres_create_sink,
    .create_lookup = jdbc_postgres_create_lookup,
};
