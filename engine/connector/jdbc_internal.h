/*
 * jdbc_internal.h - what the jdbc connector's files share. The connector
 * speaks to two databases, each through its own C client: PostgreSQL
 * (libpq, jdbc_postgres*.c) and MySQL / MariaDB (the MariaDB C connector,
 * jdbc_mysql*.c). What does not depend on the client is here, once: the
 * parsed `url`, the options, the check of the declared columns against
 * the database's, and the statements (jdbc_statement.c). What differs
 * between the databases is the dialect (as Flink's JdbcDialect): how an
 * identifier is quoted, which database types a DDL type maps to, how an
 * upsert is spelled, and which client functions open the source, the sink
 * and the lookup.
 *
 * Invariants: the password (option `password`) goes to the client library
 * only, as a connection parameter; no message built here contains it.
 * Every error names the table (the DDL's name), the store
 * (`<database product> at host:port/database`) and, for a column, the
 * column.
 */
#ifndef JOINERY_CONNECTOR_JDBC_INTERNAL_H
#define JOINERY_CONNECTOR_JDBC_INTERNAL_H

#include "engine/base/value.h"
#include "engine/connector/connector.h"

struct LookupSpec;
struct LookupFunction;

/* A column as the database describes it (strings owned by the caller). */
typedef struct JdbcColumnInfo {
    const char *name;      /* as stored */
    const char *type_name; /* the base type: "int4", "numeric" (PostgreSQL); "int", "tinyint" */
    const char *full_type; /* as the database prints it: "numeric(10,2)", "int(10) unsigned" */
} JdbcColumnInfo;

typedef struct JdbcDialect {
    const char *product;        /* "PostgreSQL", "MySQL": in messages */
    const char *url_form;       /* "jdbc:postgresql://host:port/database" */
    const char *default_port;   /* "5432", "3306" */
    const char *const *drivers; /* Flink's 'driver' class names that match (NULL-ended) */
    /* Appends a declared column's identifier, quoted as the database needs. -1: no memory. */
    int (*append_column)(StrBuf *sql, const char *name);
    /* True when a database column can be read or written as `type`. */
    bool (*type_maps)(DataType type, const JdbcColumnInfo *column);
    /* True when some database type maps to `type` (checked when the table is created). */
    bool (*type_supported)(DataType type);
    /*
     * Appends what makes `INSERT INTO t (names) VALUES (...)` an upsert by
     * the key fields (`ON CONFLICT ... DO UPDATE`, `ON DUPLICATE KEY UPDATE`).
     */
    int (*append_upsert)(StrBuf *sql, const char *const *names, uint32_t count,
                         const uint32_t *key_fields, uint32_t key_count);
    int (*create_source)(const SourceSpec *spec, SourceReader **reader, Diag *diag);
    int (*create_sink)(const SinkSpec *spec, SinkWriter **writer, Diag *diag);
    int (*create_lookup)(const struct LookupSpec *spec, struct LookupFunction **function,
                         Diag *diag);
} JdbcDialect;

extern const JdbcDialect JDBC_DIALECT_POSTGRESQL; /* jdbc_postgres.c */
extern const JdbcDialect JDBC_DIALECT_MYSQL;      /* jdbc_mysql.c */
extern const JdbcDialect JDBC_DIALECT_MARIADB;    /* jdbc_mysql.c (same client, its name) */

/* The parts of jdbc:<subprotocol>://host[:port]/database. */
typedef struct JdbcEndpoint {
    const JdbcDialect *dialect;
    char host[256];
    char port[16];
    char database[256];
} JdbcEndpoint;

/*
 * Parses `url` (jdbc:postgresql://, jdbc:mysql://, jdbc:mariadb://).
 * Returns JOINERY_OK, or JOINERY_ERROR_VALIDATE naming the table.
 */
int jdbc_parse_url(const CatalogTable *table, const char *url, JdbcEndpoint *endpoint, Diag *diag);

/* The table's endpoint (its url was validated when the table was created). */
int jdbc_table_endpoint(const CatalogTable *table, JdbcEndpoint *endpoint, Diag *diag);

/* "PostgreSQL at host:port/database", for messages. */
const char *jdbc_store_name(const JdbcEndpoint *endpoint, char *buffer, size_t size);

/* Options read by several files. */
int64_t jdbc_option_int(const CatalogTable *table, const char *key, int64_t fallback);

/*
 * Checks the `count` declared columns (catalog column indexes `columns`,
 * types `types`) against the database's columns of `table-name`
 * (`database_columns`, `database_count` of them; none: the table does not
 * exist): each must exist (names compared without case) with a type that
 * maps. Errors (JOINERY_ERROR_VALIDATE) name the table, the store and the
 * column.
 */
int jdbc_check_columns(const CatalogTable *table, const JdbcEndpoint *endpoint,
                       const JdbcColumnInfo *database_columns, uint32_t database_count,
                       uint32_t count, const uint32_t *columns, const DataType *types, Diag *diag);

/*
 * A statement with its parameters left out: parameter i goes at byte
 * `slots[i]` of `text` and takes value `fields[i]` (a field of the row or
 * key it is run with). PostgreSQL numbers them ($1, ...) and prepares the
 * statement once; MySQL writes each value in as a literal.
 */
typedef struct JdbcStatement {
    StrBuf text;
    size_t *slots;
    uint32_t *fields;
    uint32_t count;
} JdbcStatement;

/*
 * SELECT of catalog columns `columns` FROM `table-name` [WHERE each of
 * `key_columns` = a parameter (fields 0..key_count)]. 0 or -1 (no memory).
 */
int jdbc_statement_select(JdbcStatement *statement, const JdbcDialect *dialect,
                          const CatalogTable *table, uint32_t count, const uint32_t *columns,
                          uint32_t key_count, const uint32_t *key_columns);
/* INSERT of every field (parameters in field order), an upsert by `key_fields` when any. */
int jdbc_statement_insert(JdbcStatement *statement, const JdbcDialect *dialect,
                          const char *table_name, const char *const *names, uint32_t count,
                          const uint32_t *key_fields, uint32_t key_count);
/* DELETE ... WHERE each key field = a parameter (fields `key_fields`). */
int jdbc_statement_delete(JdbcStatement *statement, const JdbcDialect *dialect,
                          const char *table_name, const char *const *names,
                          const uint32_t *key_fields, uint32_t key_count);
/* The text with "$1", "$2", ... at the slots (malloc'ed; NULL: no memory). */
char *jdbc_statement_numbered(const JdbcStatement *statement);
void jdbc_statement_free(JdbcStatement *statement);

/*
 * The jdbc sink, whatever the database (jdbc_sink_batch.c): with a
 * PRIMARY KEY an upsert sink as Flink's (+I and +U upsert, -D deletes by
 * the key, -U is dropped), without one append-only (+I only; any other
 * kind is an error). Rows are buffered (heap copies, in arrival order)
 * and written `sink.buffer-flush.max-rows` at a time (default 100, as
 * Flink), each batch one transaction written by the dialect's write_rows;
 * what is left of a RowBatch is written before write returns, so no row
 * waits for later input. A failed batch fails the job (no
 * `sink.max-retries`); abort says how many rows and batches the table
 * keeps.
 */
typedef struct JdbcSink JdbcSink;

typedef struct JdbcSinkOps {
    /*
     * Writes rows[0..count) (borrowed; +I, +U or -D) as one transaction:
     * JOINERY_OK when all of it is written, else an error naming the
     * table and the store, with none of it written.
     */
    int (*write_rows)(JdbcSink *sink, Row *const *rows, uint32_t count, Diag *diag);
    /* Frees the dialect's part (`connection`), closing its connection; may be NULL. */
    void (*close)(JdbcSink *sink);
} JdbcSinkOps;

struct JdbcSink {
    SinkWriter base; /* base.impl is the JdbcSink */
    const JdbcSinkOps *ops;
    JdbcEndpoint endpoint;
    char store[600];      /* jdbc_store_name, for messages */
    bool upsert;          /* a primary key is declared */
    uint32_t *key_fields; /* sink fields of the key, in key order */
    uint32_t key_count;
    uint32_t *columns; /* [field_count]: the catalog column of each sink field */
    Row **buffer;
    uint32_t buffered;
    uint32_t capacity;
    uint64_t batches_written;
    void *connection; /* the dialect's part, freed by ops->close */
};

/*
 * Creates the dialect-independent part of a jdbc sink: the buffer, the
 * key fields, the catalog columns of the sink's fields, the endpoint and
 * the store name. The dialect then sets `connection`, checks `columns`
 * against the database and prepares its statements; on its failure it
 * calls base.vtable->close. JOINERY_OK, or JOINERY_ERROR_VALIDATE (a key
 * or sink column not in the table) / JOINERY_ERROR_NO_MEMORY, nothing
 * created.
 */
int jdbc_sink_create(const SinkSpec *spec, const JdbcSinkOps *ops, JdbcSink **sink, Diag *diag);

/* The table's `table-name` option (the database table written). */
const char *jdbc_sink_table_name(const JdbcSink *sink);

#endif
