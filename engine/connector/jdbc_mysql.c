/*
 * jdbc_mysql.c - the MySQL / MariaDB dialect of the jdbc connector
 * (`jdbc:mysql://`, `jdbc:mariadb://`) and what its source, sink and lookup
 * share: the connection through the MariaDB C connector, the columns of
 * `table-name` from information_schema.COLUMNS, and conversions between
 * joinery values and MySQL's text protocol.
 *
 * Types as Flink's JDBC connector maps MySQL's (its data type mapping
 * table): TINYINT tinyint; SMALLINT smallint, tinyint unsigned; INT int,
 * mediumint, smallint unsigned; BIGINT bigint, int unsigned; DECIMAL
 * decimal / numeric, and bigint unsigned (DECIMAL(20, 0)); FLOAT float;
 * DOUBLE double; BOOLEAN tinyint(1) (MySQL's BOOLEAN); DATE date; TIME
 * time; TIMESTAMP datetime (and timestamp); TIMESTAMP_LTZ timestamp (the
 * session runs in UTC); CHAR / VARCHAR / STRING char, varchar and the
 * text types; BINARY / VARBINARY / BYTES binary, varbinary and the blob
 * types. Identifiers: columns quoted with back quotes as written in the
 * DDL (MySQL compares column names without case); `table-name` as
 * written (`db.table` names another database). The upsert is `ON
 * DUPLICATE KEY UPDATE` every column from VALUES(), as Flink's MySQL
 * dialect writes it.
 *
 * Invariant: the password goes to mysql_real_connect only; no message,
 * statement or option string built here contains it.
 */
#include "engine/connector/jdbc_mysql.h"

#include <errmsg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "engine/base/binary.h"
#include "engine/base/value.h"

MYSQL *jdbc_mysql_connect(const CatalogTable *table, bool non_blocking, Diag *diag)
{
    JdbcEndpoint endpoint;
    if (jdbc_table_endpoint(table, &endpoint, diag) != JOINERY_OK)
        return NULL;
    char store[600];
    jdbc_store_name(&endpoint, store, sizeof store);
    MYSQL *mysql = mysql_init(NULL);
    if (!mysql) {
        diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory connecting to %s", store);
        return NULL;
    }
    unsigned int timeout = 10;
    unsigned int protocol = MYSQL_PROTOCOL_TCP;
    mysql_optionsv(mysql, MYSQL_OPT_CONNECT_TIMEOUT, &timeout);
    mysql_optionsv(mysql, MYSQL_OPT_PROTOCOL, &protocol);
    mysql_optionsv(mysql, MYSQL_SET_CHARSET_NAME, "utf8mb4");
    mysql_optionsv(mysql, MYSQL_INIT_COMMAND, "SET time_zone = '+00:00'");
    if (non_blocking)
        mysql_optionsv(mysql, MYSQL_OPT_NONBLOCK, 0);
    /* no 'username' / 'password': the client's defaults (the login name, no password) */
    if (!mysql_real_connect(mysql, endpoint.host, catalog_table_option(table, "username"),
                            catalog_table_option(table, "password"), endpoint.database,
                            (unsigned int)atoi(endpoint.port), NULL, CLIENT_MULTI_STATEMENTS)) {
        diag_error(diag, JOINERY_ERROR_RUNTIME, "Table '%s': cannot connect to %s: %s", table->name,
                   store, mysql_error(mysql));
        mysql_close(mysql);
        return NULL;
    }
    return mysql;
}

bool jdbc_mysql_connection_lost(unsigned int error)
{
    /* client errors (CR_*: server gone, lost, refused) and the server's "shutdown in
       progress" (1053), "connection killed" (1927), "inactivity timeout" (4031) */
    return (error >= 2000 && error < 3000) || error == 1053 || error == 1927 || error == 4031;
}

/* Appends `text` as a quoted string literal for the connection's character set. */
static int append_string_literal(MYSQL *mysql, StrBuf *out, const char *text, size_t length)
{
    if (strbuf_reserve(out, 2 * length + 3) != 0)
        return -1;
    out->data[out->length++] = '\'';
    out->length += mysql_real_escape_string(mysql, out->data + out->length, text, length);
    out->data[out->length++] = '\'';
    out->data[out->length] = '\0';
    return 0;
}

int jdbc_mysql_check_columns(MYSQL *mysql, const CatalogTable *table, uint32_t count,
                             const uint32_t *columns, const DataType *types, Diag *diag)
{
    JdbcEndpoint endpoint;
    if (jdbc_table_endpoint(table, &endpoint, diag) != JOINERY_OK)
        return JOINERY_ERROR_VALIDATE;
    char store[600];
    jdbc_store_name(&endpoint, store, sizeof store);
    const char *table_name = catalog_table_option(table, "table-name");
    const char *dot = strchr(table_name, '.');
    StrBuf sql = STRBUF_INIT;
    int failed = strbuf_append_cstr(&sql, "SELECT COLUMN_NAME, LOWER(DATA_TYPE), "
                                          "LOWER(COLUMN_TYPE) FROM information_schema.COLUMNS "
                                          "WHERE TABLE_SCHEMA = ");
    if (dot)
        failed |= append_string_literal(mysql, &sql, table_name, (size_t)(dot - table_name));
    else
        failed |= strbuf_append_cstr(&sql, "DATABASE()");
    failed |= strbuf_append_cstr(&sql, " AND TABLE_NAME = ");
    const char *name = dot ? dot + 1 : table_name;
    failed |= append_string_literal(mysql, &sql, name, strlen(name));
    failed |= strbuf_append_cstr(&sql, " ORDER BY ORDINAL_POSITION");
    if (failed) {
        strbuf_free(&sql);
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    }
    MYSQL_RES *result = NULL;
    if (mysql_real_query(mysql, sql.data, sql.length) == 0)
        result = mysql_store_result(mysql);
    strbuf_free(&sql);
    if (!result)
        return diag_error(diag, JOINERY_ERROR_RUNTIME,
                          "Table '%s': cannot read the columns of '%s' in %s: %s", table->name,
                          table_name, store, mysql_error(mysql));
    uint32_t found = (uint32_t)mysql_num_rows(result);
    JdbcColumnInfo *infos = calloc(found + 1, sizeof *infos);
    if (!infos) {
        mysql_free_result(result);
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    }
    for (uint32_t r = 0; r < found; r++) {
        MYSQL_ROW row = mysql_fetch_row(result);
        infos[r].name = row[0] ? row[0] : "";
        infos[r].type_name = row[1] ? row[1] : "";
        infos[r].full_type = row[2] ? row[2] : "";
    }
    int status = jdbc_check_columns(table, &endpoint, infos, found, count, columns, types, diag);
    free(infos);
    mysql_free_result(result);
    return status;
}

static bool is_one_of(const char *name, const char *const *names)
{
    for (size_t i = 0; names[i]; i++)
        if (strcmp(name, names[i]) == 0)
            return true;
    return false;
}

static bool mysql_type_maps(DataType type, const JdbcColumnInfo *column)
{
    static const char *const TEXT[] = {"char",       "varchar",  "tinytext", "text",
                                       "mediumtext", "longtext", NULL};
    static const char *const BLOB[] = {"binary",     "varbinary", "tinyblob", "blob",
                                       "mediumblob", "longblob",  NULL};
    const char *name = column->type_name;
    bool is_unsigned = strstr(column->full_type, "unsigned") != NULL;
    switch (type.id) {
    case TYPE_BOOLEAN:
        return strcmp(name, "tinyint") == 0 && strncmp(column->full_type, "tinyint(1)", 10) == 0;
    case TYPE_TINYINT:
        return strcmp(name, "tinyint") == 0 && !is_unsigned;
    case TYPE_SMALLINT:
        return (strcmp(name, "smallint") == 0 && !is_unsigned) ||
               (strcmp(name, "tinyint") == 0 && is_unsigned);
    case TYPE_INT:
        return strcmp(name, "int") == 0 ? !is_unsigned
                                        : strcmp(name, "mediumint") == 0 ||
                                              (strcmp(name, "smallint") == 0 && is_unsigned);
    case TYPE_BIGINT:
        return (strcmp(name, "bigint") == 0 && !is_unsigned) ||
               (strcmp(name, "int") == 0 && is_unsigned);
    case TYPE_DECIMAL:
        return strcmp(name, "decimal") == 0 || strcmp(name, "numeric") == 0 ||
               (strcmp(name, "bigint") == 0 && is_unsigned);
    case TYPE_FLOAT:
        return strcmp(name, "float") == 0;
    case TYPE_DOUBLE:
        return strcmp(name, "double") == 0;
    case TYPE_CHAR:
    case TYPE_VARCHAR:
        return is_one_of(name, TEXT);
    case TYPE_BINARY:
    case TYPE_VARBINARY:
        return is_one_of(name, BLOB);
    case TYPE_DATE:
        return strcmp(name, "date") == 0;
    case TYPE_TIME:
        return strcmp(name, "time") == 0;
    case TYPE_TIMESTAMP:
        return strcmp(name, "datetime") == 0 || strcmp(name, "timestamp") == 0;
    case TYPE_TIMESTAMP_LTZ:
        return strcmp(name, "timestamp") == 0;
    default:
        return false;
    }
}

static bool mysql_type_supported(DataType type)
{
    static const JdbcColumnInfo SAMPLES[] = {
        {"", "tinyint", "tinyint(1)"}, {"", "smallint", "smallint(6)"},
        {"", "int", "int(11)"},        {"", "bigint", "bigint(20)"},
        {"", "decimal", "decimal"},    {"", "float", "float"},
        {"", "double", "double"},      {"", "text", "text"},
        {"", "blob", "blob"},          {"", "date", "date"},
        {"", "time", "time"},          {"", "timestamp", "timestamp"},
    };
    for (size_t i = 0; i < sizeof SAMPLES / sizeof SAMPLES[0]; i++)
        if (mysql_type_maps(type, &SAMPLES[i]))
            return true;
    return false;
}

static int mysql_append_column(StrBuf *sql, const char *name)
{
    if (strbuf_append_char(sql, '`') != 0)
        return -1;
    for (const char *c = name; *c; c++)
        if ((*c == '`' && strbuf_append_char(sql, '`') != 0) || strbuf_append_char(sql, *c) != 0)
            return -1;
    return strbuf_append_char(sql, '`');
}

static int mysql_append_upsert(StrBuf *sql, const char *const *names, uint32_t count,
                               const uint32_t *key_fields, uint32_t key_count)
{
    (void)key_fields;
    (void)key_count; /* MySQL finds the conflicting row by any unique key itself */
    int failed = strbuf_append_cstr(sql, " ON DUPLICATE KEY UPDATE ");
    for (uint32_t f = 0; f < count; f++) {
        failed |= f ? strbuf_append_cstr(sql, ", ") : 0;
        failed |= mysql_append_column(sql, names[f]);
        failed |= strbuf_append_cstr(sql, " = VALUES(");
        failed |= mysql_append_column(sql, names[f]);
        failed |= strbuf_append_cstr(sql, ")");
    }
    return failed ? -1 : 0;
}

int jdbc_mysql_text_to_field(RowBuilder *builder, uint32_t field, DataType type, const char *text,
                             uint32_t length, char *error, size_t error_size)
{
    switch (type.id) {
    case TYPE_BOOLEAN: {
        Value value;
        DataType integer = type_make(TYPE_TINYINT, true);
        if (value_parse_text(integer, text, length, NULL, &value, error, error_size) != 0)
            return -1;
        row_builder_set_int64(builder, field, value.i != 0);
        return 0;
    }
    case TYPE_CHAR:
    case TYPE_VARCHAR:
    case TYPE_BINARY:
    case TYPE_VARBINARY:
        row_builder_set_string(builder, field, text, length);
        return 0;
    default:
        break;
    }
    DataType parse_type = type;
    if (type.id == TYPE_TIMESTAMP_LTZ)
        parse_type.id = TYPE_TIMESTAMP; /* the session's time zone is UTC */
    Value value;
    if (value_parse_text(parse_type, text, length, NULL, &value, error, error_size) != 0)
        return -1;
    value_to_builder(builder, field, type, value);
    return 0;
}

/* Appends the literal of a non-NULL value. */
static int append_literal(MYSQL *mysql, DataType type, Value value, StrBuf *out, char *error,
                          size_t error_size)
{
    switch (type.id) {
    case TYPE_BOOLEAN:
        return strbuf_append_cstr(out, value.i ? "TRUE" : "FALSE");
    case TYPE_CHAR:
    case TYPE_VARCHAR:
        return append_string_literal(mysql, out, value.s.ptr, value.s.len);
    case TYPE_BINARY:
    case TYPE_VARBINARY: {
        if (strbuf_append_cstr(out, "X'") != 0 ||
            binary_append_hex((const uint8_t *)value.s.ptr, value.s.len, out) != 0)
            return -1;
        return strbuf_append_char(out, '\'');
    }
    case TYPE_FLOAT:
    case TYPE_DOUBLE:
        if (isnan(value.d) || isinf(value.d)) {
            snprintf(error, error_size, "MySQL cannot store %s",
                     isnan(value.d) ? "NaN" : "an infinite value");
            return -1;
        }
        return value_format_text(type, value, out);
    case TYPE_DATE:
    case TYPE_TIME:
    case TYPE_TIMESTAMP:
    case TYPE_TIMESTAMP_LTZ: {
        DataType plain = type;
        if (plain.id == TYPE_TIMESTAMP_LTZ)
            plain.id = TYPE_TIMESTAMP; /* the session's time zone is UTC */
        if (strbuf_append_char(out, '\'') != 0 || value_format_text(plain, value, out) != 0)
            return -1;
        return strbuf_append_char(out, '\'');
    }
    default:
        return value_format_text(type, value, out);
    }
}

int jdbc_mysql_render(MYSQL *mysql, const JdbcStatement *statement, const Row *row,
                      const DataType *types, StrBuf *out, char *error, size_t error_size)
{
    size_t from = 0;
    snprintf(error, error_size, "out of memory");
    for (uint32_t i = 0; i < statement->count; i++) {
        if (strbuf_append(out, statement->text.data + from, statement->slots[i] - from) != 0)
            return -1;
        from = statement->slots[i];
        uint32_t field = statement->fields[i];
        if (row_is_null(row, field)) {
            if (strbuf_append_cstr(out, "NULL") != 0)
                return -1;
            continue;
        }
        if (append_literal(mysql, types[field], value_from_row(row, field, types[field]), out,
                           error, error_size) != 0)
            return -1;
    }
    return strbuf_append(out, statement->text.data + from, statement->text.length - from);
}

static const char *const MYSQL_DRIVERS[] = {"com.mysql.cj.jdbc.Driver", "com.mysql.jdbc.Driver",
                                            "org.mariadb.jdbc.Driver", NULL};

const JdbcDialect JDBC_DIALECT_MYSQL = {
    .product = "MySQL",
    .url_form = "jdbc:mysql://host:port/database",
    .default_port = "3306",
    .drivers = MYSQL_DRIVERS,
    .append_column = mysql_append_column,
    .type_maps = mysql_type_maps,
    .type_supported = mysql_type_supported,
    .append_upsert = mysql_append_upsert,
    .create_source = jdbc_mysql_create_source,
    .create_sink = jdbc_mysql_create_sink,
    .create_lookup = jdbc_mysql_create_lookup,
};

const JdbcDialect JDBC_DIALECT_MARIADB = {
    .product = "MariaDB",
    .url_form = "jdbc:mariadb://host:port/database",
    .default_port = "3306",
    .drivers = MYSQL_DRIVERS,
    .append_column = mysql_append_column,
    .type_maps = mysql_type_maps,
    .type_supported = mysql_type_supported,
    .append_upsert = mysql_append_upsert,
    .create_source = jdbc_mysql_create_source,
    .create_sink = jdbc_mysql_create_sink,
    .create_lookup = jdbc_mysql_create_lookup,
};
