/*
 * jdbc_postgres.h - the PostgreSQL side of the jdbc connector (libpq),
 * shared by jdbc_postgres.c (the dialect, the connection, the columns,
 * text conversions), jdbc_postgres_source.c, jdbc_postgres_sink.c and
 * jdbc_postgres_lookup.c.
 *
 * Invariant: the password goes to libpq as a connection parameter only.
 */
#ifndef JOINERY_CONNECTOR_JDBC_POSTGRES_H
#define JOINERY_CONNECTOR_JDBC_POSTGRES_H

#include <libpq-fe.h>

#include "engine/connector/jdbc_internal.h"

/*
 * Opens a blocking connection to the table's database (session time zone
 * UTC, DateStyle ISO). Returns the connection (the caller PQfinish-es it),
 * or NULL with `diag` set (JOINERY_ERROR_RUNTIME): connection refused,
 * authentication failed, unknown database, each naming table and store.
 */
PGconn *jdbc_postgres_connect(const CatalogTable *table, Diag *diag);

/*
 * Checks that `table-name` exists and that each of the `count` declared
 * columns (catalog indexes `columns`, types `types`) exists there with a
 * type that maps (jdbc_check_columns, on pg_attribute).
 */
int jdbc_postgres_check_columns(PGconn *connection, const CatalogTable *table, uint32_t count,
                                const uint32_t *columns, const DataType *types, Diag *diag);

/* The first line of libpq's message, without "FATAL:  " / "ERROR:  ". */
void jdbc_postgres_reason(const char *message, char *out, size_t size);

/*
 * Converts PostgreSQL's text form of a value into field `field` of the row
 * being built. Returns 0, or -1 with a reason in `error`.
 */
int jdbc_postgres_text_to_field(RowBuilder *builder, uint32_t field, DataType type,
                                const char *text, uint32_t length, char *error, size_t error_size);

/* Appends the PostgreSQL text form of a non-NULL value (a parameter of a statement). */
int jdbc_postgres_value_to_text(DataType type, Value value, StrBuf *out);

int jdbc_postgres_create_source(const SourceSpec *spec, SourceReader **reader, Diag *diag);
int jdbc_postgres_create_sink(const SinkSpec *spec, SinkWriter **writer, Diag *diag);
int jdbc_postgres_create_lookup(const struct LookupSpec *spec, struct LookupFunction **function,
                                Diag *diag);

#endif
