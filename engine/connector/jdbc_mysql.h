/*
 * jdbc_mysql.h - the MySQL / MariaDB side of the jdbc connector (the
 * MariaDB C connector, libmariadb), shared by jdbc_mysql.c (the dialect,
 * the connection, the columns, conversions), jdbc_mysql_source.c,
 * jdbc_mysql_sink.c and jdbc_mysql_lookup.c.
 *
 * Statements go as text (the text protocol): values are written in as
 * literals (strings escaped by mysql_real_escape_string for the
 * connection's character set, bytes as X'..'), rows come back as text.
 * Several statements can go in one round trip (CLIENT_MULTI_STATEMENTS).
 *
 * Invariant: the password goes to mysql_real_connect only.
 */
#ifndef JOINERY_CONNECTOR_JDBC_MYSQL_H
#define JOINERY_CONNECTOR_JDBC_MYSQL_H

#include <mysql.h>

#include "engine/connector/jdbc_internal.h"

/*
 * Opens a connection to the table's database over TCP (character set
 * utf8mb4, session time zone UTC, several statements per query allowed;
 * `non_blocking`: the asynchronous API may be used on it). Returns the
 * connection (the caller mysql_close-s it), or NULL with `diag` set
 * (JOINERY_ERROR_RUNTIME) naming table and store, with the server's reason.
 */
MYSQL *jdbc_mysql_connect(const CatalogTable *table, bool non_blocking, Diag *diag);

/* True when the error (mysql_errno) means the connection is gone (reconnect). */
bool jdbc_mysql_connection_lost(unsigned int error);

/*
 * Checks `table-name` and the `count` declared columns against
 * information_schema.COLUMNS (jdbc_check_columns).
 */
int jdbc_mysql_check_columns(MYSQL *mysql, const CatalogTable *table, uint32_t count,
                             const uint32_t *columns, const DataType *types, Diag *diag);

/*
 * Converts MySQL's text form of a value (text protocol) into field `field`
 * of the row being built. Returns 0, or -1 with a reason in `error`.
 */
int jdbc_mysql_text_to_field(RowBuilder *builder, uint32_t field, DataType type, const char *text,
                             uint32_t length, char *error, size_t error_size);

/*
 * Appends `statement` with the values of `row` written in as literals
 * (parameter i takes row field statement->fields[i], of type
 * types[fields[i]]; NULL as NULL). Returns 0, or -1 with a reason in
 * `error` (no memory, a value MySQL cannot store: NaN, infinity).
 */
int jdbc_mysql_render(MYSQL *mysql, const JdbcStatement *statement, const Row *row,
                      const DataType *types, StrBuf *out, char *error, size_t error_size);

int jdbc_mysql_create_source(const SourceSpec *spec, SourceReader **reader, Diag *diag);
int jdbc_mysql_create_sink(const SinkSpec *spec, SinkWriter **writer, Diag *diag);
int jdbc_mysql_create_lookup(const struct LookupSpec *spec, struct LookupFunction **function,
                             Diag *diag);

#endif
