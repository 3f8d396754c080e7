/*
 * jdbc_internal.h - what the jdbc connector's files share: the parsed
 * `url`, the connection to PostgreSQL (libpq), the check of the declared
 * columns against the database's, and the conversions between joinery
 * values and PostgreSQL's text format.
 *
 * Invariants: the password (option `password`) goes to libpq only, as a
 * connection parameter; no message built here contains it. Every error
 * names the table (the DDL's name), the store (host:port/database) and,
 * for a column, the column.
 */
#ifndef JOINERY_CONNECTOR_JDBC_INTERNAL_H
#define JOINERY_CONNECTOR_JDBC_INTERNAL_H

#include <libpq-fe.h>

#include "engine/base/value.h"
#include "engine/connector/connector.h"

/* The parts of jdbc:postgresql://host[:port]/database[?...]. */
typedef struct JdbcEndpoint {
    char host[256];
    char port[16];
    char database[256];
} JdbcEndpoint;

/* Parses `url`. Returns JOINERY_OK, or JOINERY_ERROR_VALIDATE naming the table. */
int jdbc_parse_url(const CatalogTable *table, const char *url, JdbcEndpoint *endpoint, Diag *diag);

/* "host:port/database", for messages. */
const char *jdbc_store_name(const JdbcEndpoint *endpoint, char *buffer, size_t size);

/*
 * Opens a blocking connection to the table's database (session time zone
 * UTC, DateStyle ISO). Returns the connection (the caller PQfinish-es it),
 * or NULL with `diag` set (JOINERY_ERROR_RUNTIME): connection refused,
 * authentication failed, unknown database, each naming table and store.
 */
PGconn *jdbc_connect(const CatalogTable *table, Diag *diag);

/*
 * Checks that the table `table-name` exists in the database and that each
 * of the `count` declared columns (catalog column indexes `columns`, types
 * `types`) exists there with a type the column maps to (Flink's
 * PostgresTypeMapper). Errors (JOINERY_ERROR_VALIDATE) name the table, the
 * store and the column.
 */
int jdbc_check_columns(PGconn *connection, const CatalogTable *table, uint32_t count,
                       const uint32_t *columns, const DataType *types, Diag *diag);

/* Appends the SQL identifier of a declared column as PostgreSQL would fold it (quoted). */
int jdbc_append_column(StrBuf *sql, const char *name);

/*
 * Converts PostgreSQL's text form of a value into field `field` of the row
 * being built. Returns 0, or -1 with a reason in `error`.
 */
int jdbc_text_to_field(RowBuilder *builder, uint32_t field, DataType type, const char *text,
                       uint32_t length, char *error, size_t error_size);

/* Appends the PostgreSQL text form of a non-NULL value (a parameter of a statement). */
int jdbc_value_to_text(DataType type, Value value, StrBuf *out);

/* Options read by several files. */
int64_t jdbc_option_int(const CatalogTable *table, const char *key, int64_t fallback);

int jdbc_create_source(const SourceSpec *spec, SourceReader **reader, Diag *diag);
struct LookupSpec;
struct LookupFunction;
int jdbc_create_lookup(const struct LookupSpec *spec, struct LookupFunction **function, Diag *diag);
int jdbc_create_sink(const SinkSpec *spec, SinkWriter **writer, Diag *diag);

#endif
