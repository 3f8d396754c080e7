/*
 * diff_join.c - differential test of joinery's joins against SQLite.
 *
 * Each round writes 2 to 5 random tables t0..t4 (columns k INT, j BIGINT,
 * v INT, d DECIMAL(10, 2), s STRING, t TIMESTAMP(3); tiny key domains so
 * keys repeat; NULLs in every column) as JSON-lines files into a fresh
 * directory, declares them in a new joinery session with the filesystem
 * connector and loads the same rows into an in-memory SQLite database. It
 * then generates random queries:
 * chains of INNER / LEFT / RIGHT / FULL OUTER joins (sometimes parenthesized
 * or written with commas) over base tables, filtered, UNION ALL and GROUP BY
 * subqueries (updating inputs), with equi-join keys (plain, mixed INT/BIGINT,
 * null-safe, computed, or none) plus residual ON conditions, WHERE filters,
 * projections with expressions, DISTINCT, aggregates and HAVING over the
 * join, STATE_TTL hints, [NOT] IN and [NOT] EXISTS subqueries in WHERE (semi
 * and anti joins: uncorrelated (EXISTS over a global aggregate) or correlated, over a table or a
 * GROUP BY, so over inserts, updates and deletes, NOT IN with NULLs on either side); odd rounds
 * enable MultiJoin fusion.
 *
 * Every query runs through joinery_session_execute. The changelog is applied
 * to a multiset (+I/+U add a row, -U/-D remove one; removing a row that is
 * not there is a failure: retractions must be exact), and the final multiset
 * must equal SQLite's result for the same query on the same data. Values are
 * compared as text: integers in decimal, DECIMAL with exactly two decimals,
 * strings as they are, NULL apart from every string.
 *
 * Invariants:
 * - Everything is a pure function of the seed: query i of seed s is the same
 *   query on the same data in every run (--only i reruns just that one).
 * - SQLite stores DECIMAL(10, 2) as integer cents, so its arithmetic and
 *   comparisons are exact; the query generator writes decimal literals as
 *   "12.50" for joinery and 1250 for SQLite, and nothing else differs.
 * - The generator emits only features joinery is expected to support (see
 *   the feature list in usage()); a feature can be switched off with
 *   --without to triage a failure.
 * - No assertion depends on wall-clock time. A hang guard (--timeout,
 *   default 30 s per statement) cancels a statement that never ends.
 *
 * Usage: diff_join [--queries N] [--seed S] [--parallelism P] [--only I]
 *                  [--without FEATURE,...] [--timeout SECONDS] [--keep]
 *                  [--multi-join on|off|mixed] [--mini-batch SIZE]
 *                  [--agg-phase one|two|mixed] [--distinct-split BUCKETS]
 *                  [--verbose] [--dry-run]
 * By default odd rounds run with 'table.optimizer.multi-join.enabled' =
 * 'true', so fused MultiJoin operators are checked as well as binary joins.
 * --mini-batch SIZE runs every round with table.exec.mini-batch.enabled
 * (batches of SIZE rows), so the mini-batch GroupAggregate and join are
 * checked against SQLite too; --agg-phase sets
 * table.optimizer.agg-phase-strategy for those rounds: ONE_PHASE, TWO_PHASE
 * (LocalGroupAggregate / GlobalGroupAggregate where the calls merge), or by
 * default mixed (rounds 2 and 3 of every 4 TWO_PHASE, the others ONE_PHASE;
 * independent of the multi-join parity).
 * --distinct-split BUCKETS runs every round with
 * table.optimizer.distinct-agg.split.enabled (that many buckets; with
 * --mini-batch, ONE_PHASE): COUNT(DISTINCT) over the join as a partial and a
 * final aggregate; queries with DISTINCT over two columns are regenerated
 * (the split refuses them).
 * --batch runs every round with 'execution.runtime-mode' = 'batch' and every
 * query wrapped as SELECT * FROM (query) ORDER BY 1 [DESC], 2 [DESC], ...
 * [LIMIT n [OFFSET m]]: the result must be +I rows only, a batch result, and
 * equal to SQLite's rows in the same order (all columns ordered, so only
 * identical rows tie; both put NULLs first ascending and last descending).
 * The last line printed is "N passed, N failed"; the exit status is non-zero
 * when any query failed.
 */
#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/engine.h"

#define DIFF_TOOL_NAME "diff_join"
#define MAX_PRINTED_ROWS 40
#include "tests/diff/diff_support.h"

enum {
    MAX_TABLES = 5,
    TABLE_COLUMNS = 6,
    MAX_SOURCES = 5,
    MAX_SOURCE_COLUMNS = 12, /* 2 group keys + 8 aggregates fit */
    MAX_OUTPUT_COLUMNS = 12,
    QUERIES_PER_ROUND = 25,
    MAX_EXPECTED_ROWS = 3000, /* regenerate queries whose answer is larger */
    MAX_DETAILED_FAILURES = 10,
};

/* ------------------------------------------------------------- features */

typedef enum Feature {
    FEATURE_INNER = 1 << 0,          /* INNER JOIN */
    FEATURE_LEFT = 1 << 1,           /* LEFT JOIN */
    FEATURE_RIGHT = 1 << 2,          /* RIGHT JOIN */
    FEATURE_FULL = 1 << 3,           /* FULL OUTER JOIN */
    FEATURE_RESIDUAL = 1 << 4,       /* non-equi conditions in ON */
    FEATURE_OR = 1 << 5,             /* OR in ON and WHERE */
    FEATURE_WHERE = 1 << 6,          /* WHERE filters */
    FEATURE_GROUPED = 1 << 7,        /* GROUP BY subqueries as join inputs */
    FEATURE_SUBQUERY = 1 << 8,       /* filtered projection subqueries as join inputs */
    FEATURE_AGGREGATE = 1 << 9,      /* GROUP BY over the join result */
    FEATURE_DISTINCT = 1 << 10,      /* SELECT DISTINCT */
    FEATURE_NESTED = 1 << 11,        /* parenthesized joins: a JOIN (b JOIN c ON ..) ON .. */
    FEATURE_EXPRESSION = 1 << 12,    /* +, -, COALESCE, CASE in the select list */
    FEATURE_STAR = 1 << 13,          /* SELECT * */
    FEATURE_MIXED_KEYS = 1 << 14,    /* INT = BIGINT equi keys */
    FEATURE_STRING_KEYS = 1 << 15,   /* STRING equi keys */
    FEATURE_DECIMAL_SUM = 1 << 16,   /* SUM over DECIMAL (DECIMAL(38, 2) in Flink) */
    FEATURE_IN = 1 << 17,            /* IN lists and BETWEEN */
    FEATURE_SELF_JOIN = 1 << 18,     /* the same table twice in one query */
    FEATURE_NULL_SAFE = 1 << 19,     /* IS NOT DISTINCT FROM as an equi-join key */
    FEATURE_COMPUTED_KEYS = 1 << 20, /* a.k + 1 = b.k, UPPER(a.s) = UPPER(b.s) */
    FEATURE_NON_EQUI = 1 << 21,      /* joins whose ON has no equi condition */
    FEATURE_LIKE = 1 << 22,          /* LIKE predicates */
    FEATURE_CAST = 1 << 23,          /* CAST(.. AS STRING / BIGINT) in the select list */
    FEATURE_UNION = 1 << 24,         /* UNION ALL subqueries as join inputs */
    FEATURE_HAVING = 1 << 25,        /* HAVING on the GROUP BY over the join */
    FEATURE_COMMA = 1 << 26,         /* FROM a, b, c WHERE (inner joins written as commas) */
    FEATURE_COMMON_KEY = 1 << 27,    /* every join on the first column: MultiJoin can fuse */
    FEATURE_BIG_TABLES = 1 << 28,    /* some tables of 60..200 rows with wider key domains */
    FEATURE_TTL = 1 << 29,           /* STATE_TTL hints, and table.exec.state.ttl in some rounds */
    FEATURE_JOIN_INPUTS = 1 << 30,   /* join inputs that are joins, aggregated joins, DISTINCT
                                        and two-level aggregates (retracting inputs) */
    /* (C11 enumerators must fit an int: the 32nd feature is a constant below) */
} Feature;

/* [NOT] IN (subquery) and [NOT] EXISTS (subquery) conjuncts of WHERE: semi / anti joins */
#define FEATURE_SEMI_ANTI (1u << 31)

static const struct {
    const char *name;
    unsigned flag;
} feature_names[] = {
    {"inner", FEATURE_INNER},
    {"left", FEATURE_LEFT},
    {"right", FEATURE_RIGHT},
    {"full", FEATURE_FULL},
    {"residual", FEATURE_RESIDUAL},
    {"or", FEATURE_OR},
    {"where", FEATURE_WHERE},
    {"grouped", FEATURE_GROUPED},
    {"subquery", FEATURE_SUBQUERY},
    {"aggregate", FEATURE_AGGREGATE},
    {"distinct", FEATURE_DISTINCT},
    {"nested", FEATURE_NESTED},
    {"expression", FEATURE_EXPRESSION},
    {"star", FEATURE_STAR},
    {"mixed-keys", FEATURE_MIXED_KEYS},
    {"string-keys", FEATURE_STRING_KEYS},
    {"decimal-sum", FEATURE_DECIMAL_SUM},
    {"in", FEATURE_IN},
    {"self-join", FEATURE_SELF_JOIN},
    {"null-safe", FEATURE_NULL_SAFE},
    {"computed-keys", FEATURE_COMPUTED_KEYS},
    {"non-equi", FEATURE_NON_EQUI},
    {"like", FEATURE_LIKE},
    {"cast", FEATURE_CAST},
    {"union", FEATURE_UNION},
    {"having", FEATURE_HAVING},
    {"comma", FEATURE_COMMA},
    {"common-key", FEATURE_COMMON_KEY},
    {"big-tables", FEATURE_BIG_TABLES},
    {"ttl", FEATURE_TTL},
    {"join-inputs", FEATURE_JOIN_INPUTS},
    {"semi-anti", FEATURE_SEMI_ANTI},
};

/* ---------------------------------------------------------------- tables */

typedef enum ColumnType {
    COLUMN_INT,
    COLUMN_BIGINT,
    COLUMN_DECIMAL, /* DECIMAL with scale 2; SQLite holds cents */
    COLUMN_STRING,
    COLUMN_TIMESTAMP, /* TIMESTAMP(3); SQLite holds the text, which sorts by time */
} ColumnType;

/* Values of the same class can be compared and joined. */
typedef enum ValueClass {
    CLASS_INTEGER,
    CLASS_DECIMAL,
    CLASS_STRING,
    CLASS_TIMESTAMP,
} ValueClass;

static ValueClass column_type_class(ColumnType type)
{
    switch (type) {
    case COLUMN_INT:
    case COLUMN_BIGINT:
        return CLASS_INTEGER;
    case COLUMN_DECIMAL:
        return CLASS_DECIMAL;
    case COLUMN_STRING:
        break;
    case COLUMN_TIMESTAMP:
        return CLASS_TIMESTAMP;
    }
    return CLASS_STRING;
}

static const struct {
    const char *name;
    ColumnType type;
    const char *sql_type;
} table_columns[TABLE_COLUMNS] = {
    {"k", COLUMN_INT, "INT"},       {"j", COLUMN_BIGINT, "BIGINT"},
    {"v", COLUMN_INT, "INT"},       {"d", COLUMN_DECIMAL, "DECIMAL(10, 2)"},
    {"s", COLUMN_STRING, "STRING"}, {"t", COLUMN_TIMESTAMP, "TIMESTAMP(3)"},
};

/* The TIMESTAMP(3) values: few, so that they repeat; some a millisecond apart. */
static const char *const timestamp_domain[] = {
    "2024-06-01 00:00:00.000", "2024-06-01 00:00:00.001", "2024-06-01 12:30:15.250",
    "2024-06-02 00:00:00.000", "1999-12-31 23:59:59.999",
};
enum { TIMESTAMP_DOMAIN_SIZE = sizeof timestamp_domain / sizeof timestamp_domain[0] };

static const char *const string_domain[] = {"a", "b", "c", "ab", "", "it's", "\xe4\xb8\xad"};
enum { STRING_DOMAIN_SIZE = sizeof string_domain / sizeof string_domain[0] };

typedef struct Cell {
    bool is_null;
    int64_t integer;    /* INT, BIGINT, DECIMAL in cents */
    const char *string; /* STRING, TIMESTAMP: points into string_domain, timestamp_domain */
} Cell;

typedef struct Table {
    char name[16];
    int row_count;
    Cell (*rows)[TABLE_COLUMNS];
} Table;

/* One random value of the column; keys k and j are drawn from 1..key_domain. */
static Cell cell_generate(Random *random, int column, int key_domain)
{
    Cell cell = {.is_null = random_percent(random, column == 0 ? 12 : 10)};
    if (cell.is_null)
        return cell;
    switch (column) {
    case 0: /* k INT: 1..4 (small tables) */
        cell.integer = random_range(random, 1, key_domain);
        break;
    case 1: /* j BIGINT: 1..4 (small tables), sometimes beyond INT */
        cell.integer = random_percent(random, 5) ? 5000000000LL + random_range(random, 1, 2)
                                                 : random_range(random, 1, key_domain);
        break;
    case 2: /* v INT: -3..12 */
        cell.integer = random_range(random, -3, 12);
        break;
    case 3: /* d DECIMAL(10, 2): -5.00..20.00, often whole */
        cell.integer = random_range(random, -500, 2000);
        if (random_percent(random, 40))
            cell.integer -= cell.integer % 100;
        break;
    case 4: /* s STRING */
        cell.string = string_domain[random_below(random, STRING_DOMAIN_SIZE)];
        break;
    default: /* t TIMESTAMP(3) */
        cell.string = timestamp_domain[random_below(random, TIMESTAMP_DOMAIN_SIZE)];
        break;
    }
    return cell;
}

/*
 * Fills the table with random rows: usually 1..18 rows over keys 1..4 (many
 * duplicates), sometimes empty, and with big_tables sometimes 60..200 rows
 * over keys 1..40.
 */
static void table_generate(Table *table, int index, Random *random, bool big_tables)
{
    snprintf(table->name, sizeof table->name, "t%d", index);
    int key_domain = 4;
    table->row_count = random_percent(random, 4) ? 0 : random_range(random, 1, 18);
    if (big_tables && random_percent(random, 12)) {
        table->row_count = random_range(random, 60, 200);
        key_domain = 40;
    }
    table->rows = calloc((size_t)(table->row_count ? table->row_count : 1), sizeof *table->rows);
    if (!table->rows) {
        fprintf(stderr, "diff_join: out of memory\n");
        exit(2);
    }
    for (int row = 0; row < table->row_count; row++)
        for (int column = 0; column < TABLE_COLUMNS; column++)
            table->rows[row][column] = cell_generate(random, column, key_domain);
}

/* Appends cents as a decimal with two digits: -0.50, 12.00. */
static void text_append_decimal(Text *text, int64_t cents)
{
    uint64_t magnitude = cents < 0 ? (uint64_t)0 - (uint64_t)cents : (uint64_t)cents;
    text_printf(text, "%s%llu.%02llu", cents < 0 ? "-" : "", (unsigned long long)(magnitude / 100),
                (unsigned long long)(magnitude % 100));
}

static void text_append_json_string(Text *text, const char *value)
{
    text_append(text, "\"", 1);
    for (const char *p = value; *p; p++) {
        if (*p == '"' || *p == '\\')
            text_append(text, "\\", 1);
        text_append(text, p, 1);
    }
    text_append(text, "\"", 1);
}

/* Writes the table as JSON lines to directory/name.json. Returns 0 or -1. */
static int table_write_json(const Table *table, const char *directory)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.json", directory, table->name);
    FILE *file = fopen(path, "w");
    if (!file)
        return -1;
    Text line = {0};
    for (int row = 0; row < table->row_count; row++) {
        text_clear(&line);
        text_append(&line, "{", 1);
        for (int column = 0; column < TABLE_COLUMNS; column++) {
            const Cell *cell = &table->rows[row][column];
            text_printf(&line, "%s\"%s\":", column ? "," : "", table_columns[column].name);
            if (cell->is_null)
                text_append(&line, "null", 4);
            else if (table_columns[column].type == COLUMN_DECIMAL)
                text_append_decimal(&line, cell->integer);
            else if (table_columns[column].type == COLUMN_STRING ||
                     table_columns[column].type == COLUMN_TIMESTAMP)
                text_append_json_string(&line, cell->string);
            else
                text_printf(&line, "%lld", (long long)cell->integer);
        }
        text_append(&line, "}\n", 2);
        fputs(line.data, file);
    }
    text_free(&line);
    return fclose(file) == 0 ? 0 : -1;
}

/* The CREATE TABLE statement of the table for joinery. */
static void table_format_ddl(const Table *table, const char *directory, Text *out)
{
    text_printf(out, "CREATE TABLE %s (", table->name);
    for (int column = 0; column < TABLE_COLUMNS; column++)
        text_printf(out, "%s%s %s", column ? ", " : "", table_columns[column].name,
                    table_columns[column].sql_type);
    text_printf(out,
                ") WITH ('connector' = 'filesystem', 'path' = '%s/%s.json', "
                "'format' = 'json')",
                directory, table->name);
}

/* Creates and fills the table in SQLite. Returns 0 or -1 (message on stderr). */
static int table_load_sqlite(const Table *table, sqlite3 *database)
{
    char sql[256];
    snprintf(sql, sizeof sql,
             "CREATE TABLE %s (k INTEGER, j INTEGER, v INTEGER, d INTEGER, s TEXT, t TEXT)",
             table->name);
    if (sqlite3_exec(database, sql, NULL, NULL, NULL) != SQLITE_OK)
        goto fail;
    snprintf(sql, sizeof sql, "INSERT INTO %s VALUES (?, ?, ?, ?, ?, ?)", table->name);
    sqlite3_stmt *statement = NULL;
    if (sqlite3_prepare_v2(database, sql, -1, &statement, NULL) != SQLITE_OK)
        goto fail;
    for (int row = 0; row < table->row_count; row++) {
        for (int column = 0; column < TABLE_COLUMNS; column++) {
            const Cell *cell = &table->rows[row][column];
            if (cell->is_null)
                sqlite3_bind_null(statement, column + 1);
            else if (table_columns[column].type == COLUMN_STRING ||
                     table_columns[column].type == COLUMN_TIMESTAMP)
                sqlite3_bind_text(statement, column + 1, cell->string, -1, SQLITE_STATIC);
            else
                sqlite3_bind_int64(statement, column + 1, cell->integer);
        }
        if (sqlite3_step(statement) != SQLITE_DONE) {
            sqlite3_finalize(statement);
            goto fail;
        }
        sqlite3_reset(statement);
    }
    sqlite3_finalize(statement);
    return 0;
fail:
    fprintf(stderr, "diff_join: sqlite: %s\n", sqlite3_errmsg(database));
    return -1;
}

/* --------------------------------------------------------------- queries */

/* A column visible in a FROM item, with the type of its values. */
typedef struct SourceColumn {
    char name[8];
    ColumnType type;
    bool is_key; /* a good equi-join key (small domain) */
} SourceColumn;

/* One FROM item: a table, a filtered subquery or a GROUP BY subquery. */
typedef struct Source {
    char alias[8];
    int column_count;
    SourceColumn columns[MAX_SOURCE_COLUMNS];
} Source;

/* The FROM items of the query being generated, in textual order. */
typedef struct Scope {
    Source sources[MAX_SOURCES];
    int source_count;
} Scope;

/* A reference to sources[source].columns[column]. */
typedef struct ColumnRef {
    int source;
    int column;
} ColumnRef;

/* SQL text in both dialects; they differ only in decimal literals. */
typedef struct Sql {
    Text flink;
    Text sqlite;
} Sql;

/* A generated query and how to read each of its output columns. */
typedef struct Query {
    Sql sql;
    int output_count;
    ValueClass outputs[MAX_OUTPUT_COLUMNS];
} Query;

static void sql_printf(Sql *sql, const char *format, ...) __attribute__((format(printf, 2, 3)));
static void sql_printf(Sql *sql, const char *format, ...)
{
    va_list arguments;
    va_start(arguments, format);
    va_list copy;
    va_copy(copy, arguments);
    text_vprintf(&sql->flink, format, arguments);
    text_vprintf(&sql->sqlite, format, copy);
    va_end(copy);
    va_end(arguments);
}

static void sql_append_sql(Sql *sql, const Sql *other)
{
    if (other->flink.data)
        text_append(&sql->flink, other->flink.data, other->flink.length);
    if (other->sqlite.data)
        text_append(&sql->sqlite, other->sqlite.data, other->sqlite.length);
}

static void sql_clear(Sql *sql)
{
    text_clear(&sql->flink);
    text_clear(&sql->sqlite);
}

static void sql_free(Sql *sql)
{
    text_free(&sql->flink);
    text_free(&sql->sqlite);
}

/* Text that differs between the dialects. */
static void sql_append_dual(Sql *sql, const char *flink, const char *sqlite)
{
    text_append(&sql->flink, flink, strlen(flink));
    text_append(&sql->sqlite, sqlite, strlen(sqlite));
}

/* A decimal literal: 12.50 for joinery, 1250 (cents) for SQLite. */
static void sql_append_decimal(Sql *sql, int64_t cents)
{
    text_append_decimal(&sql->flink, cents);
    text_printf(&sql->sqlite, "%lld", (long long)cents);
}

/* A string literal with quotes doubled. */
static void sql_append_string_literal(Sql *sql, const char *value)
{
    Text literal = {0};
    text_append(&literal, "'", 1);
    for (const char *p = value; *p; p++) {
        if (*p == '\'')
            text_append(&literal, "'", 1);
        text_append(&literal, p, 1);
    }
    text_append(&literal, "'", 1);
    sql_printf(sql, "%s", literal.data);
    text_free(&literal);
}

static const SourceColumn *scope_column(const Scope *scope, ColumnRef ref)
{
    return &scope->sources[ref.source].columns[ref.column];
}

static ValueClass scope_column_class(const Scope *scope, ColumnRef ref)
{
    return column_type_class(scope_column(scope, ref)->type);
}

static void sql_append_column(Sql *sql, const Scope *scope, ColumnRef ref)
{
    sql_printf(sql, "%s.%s", scope->sources[ref.source].alias, scope_column(scope, ref)->name);
}

/* A random column of one of the given sources (indexes into scope->sources). */
static ColumnRef column_pick(Random *random, const Scope *scope, const int *sources,
                             int source_count)
{
    ColumnRef ref;
    ref.source = sources[random_below(random, source_count)];
    ref.column = random_below(random, scope->sources[ref.source].column_count);
    return ref;
}

/* A literal of the class, in the range the data uses. */
static void sql_append_literal(Sql *sql, Random *random, ValueClass value_class)
{
    switch (value_class) {
    case CLASS_INTEGER:
        sql_printf(sql, "%d", random_range(random, -2, 11));
        break;
    case CLASS_DECIMAL: {
        int64_t cents = random_range(random, -400, 1900);
        if (random_percent(random, 50))
            cents -= cents % 100;
        sql_append_decimal(sql, cents);
        break;
    }
    case CLASS_STRING:
        sql_append_string_literal(sql, string_domain[random_below(random, STRING_DOMAIN_SIZE)]);
        break;
    case CLASS_TIMESTAMP: {
        const char *value = timestamp_domain[random_below(random, TIMESTAMP_DOMAIN_SIZE)];
        text_printf(&sql->flink, "TIMESTAMP '%s'", value);
        text_printf(&sql->sqlite, "'%s'", value);
        break;
    }
    }
}

static const char *comparison_pick(Random *random)
{
    static const char *const operators[] = {"<>", "<", "<=", ">", ">=", "="};
    return operators[random_below(random, 6)];
}

/*
 * Appends one boolean predicate over columns of `sources` (indexes into
 * scope->sources). `depth` limits the nesting of OR and NOT.
 */
static void sql_append_predicate(Sql *sql, const Scope *scope, Random *random, unsigned features,
                                 const int *sources, int source_count, int depth)
{
    int choice = random_below(random, 100);
    if (depth < 2 && (features & FEATURE_OR) && choice < 15) {
        sql_printf(sql, "(");
        sql_append_predicate(sql, scope, random, features, sources, source_count, depth + 1);
        sql_printf(sql, " OR ");
        sql_append_predicate(sql, scope, random, features, sources, source_count, depth + 1);
        sql_printf(sql, ")");
        return;
    }
    if (depth < 2 && choice < 19) {
        sql_printf(sql, "NOT (");
        sql_append_predicate(sql, scope, random, features, sources, source_count, depth + 1);
        sql_printf(sql, ")");
        return;
    }
    ColumnRef column = column_pick(random, scope, sources, source_count);
    ValueClass value_class = scope_column_class(scope, column);
    if (choice < 31) {
        sql_append_column(sql, scope, column);
        sql_printf(sql, random_percent(random, 50) ? " IS NULL" : " IS NOT NULL");
        return;
    }
    if ((features & FEATURE_LIKE) && value_class == CLASS_STRING && choice < 50) {
        /* the data is lower case, so SQLite's case-blind LIKE agrees */
        static const char *const patterns[] = {"a%", "%b", "_", "%''%", "a_", "%", "_%"};
        sql_append_column(sql, scope, column);
        sql_printf(sql, "%s LIKE '%s'", random_percent(random, 25) ? " NOT" : "",
                   patterns[random_below(random, 7)]);
        return;
    }
    if ((features & FEATURE_IN) && choice < 39) {
        sql_append_column(sql, scope, column);
        if (random_percent(random, 50)) {
            sql_printf(sql, "%s IN (", random_percent(random, 25) ? " NOT" : "");
            int count = random_range(random, 1, 3);
            for (int i = 0; i < count; i++) {
                if (i)
                    sql_printf(sql, ", ");
                sql_append_literal(sql, random, value_class);
            }
            sql_printf(sql, ")");
        } else {
            sql_printf(sql, " BETWEEN ");
            sql_append_literal(sql, random, value_class);
            sql_printf(sql, " AND ");
            sql_append_literal(sql, random, value_class);
        }
        return;
    }
    if (choice < 70) {
        sql_append_column(sql, scope, column);
        sql_printf(sql, " %s ", comparison_pick(random));
        sql_append_literal(sql, random, value_class);
        return;
    }
    /* column against a column of the same class, maybe of another source */
    for (int attempt = 0; attempt < 8; attempt++) {
        ColumnRef other = column_pick(random, scope, sources, source_count);
        if (scope_column_class(scope, other) != value_class)
            continue;
        if (other.source == column.source && other.column == column.column)
            continue;
        sql_append_column(sql, scope, column);
        sql_printf(sql, " %s ", comparison_pick(random));
        sql_append_column(sql, scope, other);
        return;
    }
    sql_append_column(sql, scope, column);
    sql_printf(sql, " %s ", comparison_pick(random));
    sql_append_literal(sql, random, value_class);
}

/*
 * A [NOT] IN (subquery) or [NOT] EXISTS (subquery) predicate (a semi or anti join): the
 * subquery reads one random table as sq; IN compares an outer column with a column of the
 * same class (sometimes correlated on another pair, sometimes over a GROUP BY ... HAVING,
 * an updating input), EXISTS correlates an outer column with one of sq's (mostly =,
 * sometimes another comparison), either with a local filter on sq. Every column is
 * nullable, so NOT IN meets NULLs on both sides; SQLite has the same semantics.
 */
static void sql_append_subquery_predicate(Sql *sql, const Scope *scope, Random *random,
                                          const int *sources, int source_count, const Table *tables,
                                          int table_count)
{
    ColumnRef outer = column_pick(random, scope, sources, source_count);
    ValueClass value_class = scope_column_class(scope, outer);
    const Table *table = &tables[random_below(random, table_count)];
    int candidates[TABLE_COLUMNS], candidate_count = 0;
    for (int c = 0; c < TABLE_COLUMNS; c++)
        if (column_type_class(table_columns[c].type) == value_class)
            candidates[candidate_count++] = c;
    const char *inner = table_columns[candidates[random_below(random, candidate_count)]].name;
    int form = random_below(random, 4); /* IN, NOT IN, EXISTS, NOT EXISTS */
    bool exists = form >= 2;
    /* over a GROUP BY (an updating input: its rows are retracted as counts change) */
    bool grouped = random_percent(random, 45);
    bool correlated = exists || (!grouped && random_percent(random, 40));
    if (exists && random_percent(random, 20)) {
        /* uncorrelated: a global MIN(TRUE) of the subquery's rows decides for every row */
        sql_printf(sql, "%sEXISTS (SELECT * FROM %s sq", form == 3 ? "NOT " : "", table->name);
        if (random_percent(random, 70))
            sql_printf(sql, " WHERE sq.v %s %d", comparison_pick(random),
                       random_range(random, -2, 14));
        sql_printf(sql, ")");
        return;
    }
    if (exists) {
        sql_printf(sql, "%sEXISTS (SELECT * FROM ", form == 3 ? "NOT " : "");
        if (grouped)
            sql_printf(sql, "(SELECT %s, COUNT(*) AS c FROM %s GROUP BY %s)", inner, table->name,
                       inner);
        else
            sql_printf(sql, "%s", table->name);
        sql_printf(sql, " sq WHERE sq.%s %s ", inner,
                   random_percent(random, 80) ? "=" : comparison_pick(random));
        sql_append_column(sql, scope, outer);
        if (grouped)
            sql_printf(sql, " AND sq.c %s %d",
                       random_percent(random, 60) ? ">" : "<=", random_range(random, 0, 2));
    } else {
        sql_append_column(sql, scope, outer);
        sql_printf(sql, "%s IN (SELECT sq.%s FROM %s sq", form == 1 ? " NOT" : "", inner,
                   table->name);
        if (correlated) {
            ColumnRef other = column_pick(random, scope, sources, source_count);
            ValueClass other_class = scope_column_class(scope, other);
            int matches[TABLE_COLUMNS], match_count = 0;
            for (int c = 0; c < TABLE_COLUMNS; c++)
                if (column_type_class(table_columns[c].type) == other_class)
                    matches[match_count++] = c;
            sql_printf(sql, " WHERE sq.%s = ",
                       table_columns[matches[random_below(random, match_count)]].name);
            sql_append_column(sql, scope, other);
        }
    }
    if (!grouped && random_percent(random, 40))
        sql_printf(sql, "%s sq.v %s %d", correlated ? " AND" : " WHERE", comparison_pick(random),
                   random_range(random, -2, 11));
    if (grouped && !exists)
        sql_printf(sql, " GROUP BY sq.%s HAVING COUNT(*) %s %d", inner,
                   random_percent(random, 60) ? ">" : "<=", random_range(random, 0, 2));
    sql_printf(sql, ")");
}

static bool equi_pair_allowed(const Scope *scope, unsigned features, ColumnRef left,
                              ColumnRef right)
{
    const SourceColumn *a = scope_column(scope, left);
    const SourceColumn *b = scope_column(scope, right);
    ValueClass value_class = column_type_class(a->type);
    if (value_class != column_type_class(b->type))
        return false;
    if (value_class == CLASS_STRING && !(features & FEATURE_STRING_KEYS))
        return false;
    if (a->type != b->type && !(features & FEATURE_MIXED_KEYS))
        return false;
    return true;
}

/*
 * Appends an ON condition joining `right_sources` to `left_sources`: one or
 * two equi conditions (left column = right column), then maybe a residual
 * predicate over both sides.
 */
static void sql_append_join_condition(Sql *sql, const Scope *scope, Random *random,
                                      unsigned features, bool common_key, const int *left_sources,
                                      int left_count, const int *right_sources, int right_count)
{
    int both[MAX_SOURCES];
    int both_count = 0;
    for (int i = 0; i < left_count; i++)
        both[both_count++] = left_sources[i];
    for (int i = 0; i < right_count; i++)
        both[both_count++] = right_sources[i];
    if ((features & FEATURE_NON_EQUI) && !common_key && random_percent(random, 5)) {
        /* no equi key: a comparison between the sides, maybe more */
        for (int attempt = 0; attempt < 50; attempt++) {
            ColumnRef right = column_pick(random, scope, right_sources, right_count);
            ColumnRef left = column_pick(random, scope, left_sources, left_count);
            if (scope_column_class(scope, left) != scope_column_class(scope, right))
                continue;
            static const char *const operators[] = {"<", "<=", ">", ">=", "<>"};
            sql_append_column(sql, scope, left);
            sql_printf(sql, " %s ", operators[random_below(random, 5)]);
            sql_append_column(sql, scope, right);
            if (random_percent(random, 30)) {
                sql_printf(sql, " AND ");
                sql_append_predicate(sql, scope, random, features, both, both_count, 0);
            }
            return;
        }
    }
    if (common_key) {
        /* the first columns (k or the group key): one key class for the whole chain */
        ColumnRef left = {left_sources[random_below(random, left_count)], 0};
        ColumnRef right = {right_sources[random_below(random, right_count)], 0};
        sql_append_column(sql, scope, left);
        sql_printf(sql, " = ");
        sql_append_column(sql, scope, right);
        if ((features & FEATURE_RESIDUAL) && random_percent(random, 35)) {
            sql_printf(sql, " AND ");
            sql_append_predicate(sql, scope, random, features, both, both_count, 0);
        }
        return;
    }
    int equi_count = random_percent(random, 15) ? 2 : 1;
    int written = 0;
    for (int attempt = 0; attempt < 200 && written < equi_count; attempt++) {
        ColumnRef right = column_pick(random, scope, right_sources, right_count);
        ColumnRef left = column_pick(random, scope, left_sources, left_count);
        if (attempt < 100 && random_percent(random, 60)) {
            /* prefer like-named keys (k = k, j = j): they match often */
            const Source *source = &scope->sources[left.source];
            for (int c = 0; c < source->column_count; c++)
                if (strcmp(source->columns[c].name, scope_column(scope, right)->name) == 0)
                    left.column = c;
        }
        /* mostly small-domain keys; sometimes values */
        bool keys = scope_column(scope, right)->is_key && scope_column(scope, left)->is_key;
        if (!keys && attempt < 150 && !random_percent(random, 10))
            continue;
        if (!equi_pair_allowed(scope, features, left, right))
            continue;
        if (written)
            sql_printf(sql, " AND ");
        ValueClass value_class = scope_column_class(scope, left);
        if ((features & FEATURE_COMPUTED_KEYS) && random_percent(random, 8) &&
            (value_class == CLASS_INTEGER || value_class == CLASS_STRING)) {
            /* a key computed from a column: the planner must project it first */
            if (value_class == CLASS_INTEGER) {
                sql_append_column(sql, scope, left);
                sql_printf(sql, " + 1 = ");
                sql_append_column(sql, scope, right);
            } else {
                sql_printf(sql, "UPPER(");
                sql_append_column(sql, scope, left);
                sql_printf(sql, ") = UPPER(");
                sql_append_column(sql, scope, right);
                sql_printf(sql, ")");
            }
        } else {
            sql_append_column(sql, scope, left);
            sql_printf(sql, (features & FEATURE_NULL_SAFE) && random_percent(random, 10)
                                ? " IS NOT DISTINCT FROM "
                                : " = ");
            sql_append_column(sql, scope, right);
        }
        written++;
    }
    if (!written) {
        /* every source's first column is an integer key: k or a group key */
        ColumnRef left = {left_sources[0], 0};
        ColumnRef right = {right_sources[0], 0};
        sql_append_column(sql, scope, left);
        sql_printf(sql, " = ");
        sql_append_column(sql, scope, right);
    }
    if ((features & FEATURE_RESIDUAL) && random_percent(random, 40)) {
        sql_printf(sql, " AND ");
        sql_append_predicate(sql, scope, random, features, both, both_count, 0);
    }
}

static void source_add_column(Source *source, const char *name, ColumnType type, bool is_key)
{
    SourceColumn *column = &source->columns[source->column_count++];
    snprintf(column->name, sizeof column->name, "%s", name);
    column->type = type;
    column->is_key = is_key;
}

/* Appends a GROUP BY subquery over table_name: an updating join input. */
static void source_generate_grouped(Source *source, Sql *sql, Random *random, unsigned features,
                                    const char *table_name)
{
    /* group keys: k, j, (k, s), (k, j) or (j, s): the first is an integer */
    static const int group_key_choices[][2] = {{0, -1}, {1, -1}, {0, 4}, {0, 1}, {1, 4}};
    int choice = random_below(random, 5);
    static const struct {
        const char *expression;
        const char *name;
        ColumnType type;
        bool is_key;
        unsigned feature;
    } aggregates[] = {
        {"COUNT(*)", "c", COLUMN_BIGINT, false, 0},
        {"SUM(v)", "sv", COLUMN_INT, false, 0},
        {"MAX(d)", "xd", COLUMN_DECIMAL, false, 0},
        {"MIN(s)", "ns", COLUMN_STRING, false, 0},
        {"COUNT(v)", "cv", COLUMN_BIGINT, false, 0},
        {"SUM(d)", "sd", COLUMN_DECIMAL, false, FEATURE_DECIMAL_SUM},
        {"MAX(v)", "xv", COLUMN_INT, false, 0},
        {"MAX(t)", "xt", COLUMN_TIMESTAMP, false, 0},
    };
    const int aggregate_count = (int)(sizeof aggregates / sizeof aggregates[0]);
    Sql group_by = {0};
    sql_printf(sql, "(SELECT ");
    for (int g = 0; g < 2 && group_key_choices[choice][g] >= 0; g++) {
        int column = group_key_choices[choice][g];
        sql_printf(sql, "%s%s", g ? ", " : "", table_columns[column].name);
        sql_printf(&group_by, "%s%s", g ? ", " : "", table_columns[column].name);
        source_add_column(source, table_columns[column].name, table_columns[column].type, true);
    }
    for (int a = 0; a < aggregate_count; a++) {
        if (a > 0 && !random_percent(random, 45))
            continue;
        if (aggregates[a].feature && !(features & aggregates[a].feature))
            continue;
        sql_printf(sql, ", %s AS %s", aggregates[a].expression, aggregates[a].name);
        source_add_column(source, aggregates[a].name, aggregates[a].type, aggregates[a].is_key);
    }
    sql_printf(sql, " FROM %s", table_name);
    if (random_percent(random, 35))
        sql_printf(sql, " WHERE v %s %d", comparison_pick(random), random_range(random, -1, 8));
    sql_printf(sql, " GROUP BY ");
    sql_append_sql(sql, &group_by);
    sql_printf(sql, ") AS %s", source->alias);
    sql_free(&group_by);
}

/* Appends a filtered projection of table_name: k first, then some columns. */
static void source_generate_filtered(Source *source, Sql *sql, Random *random, unsigned features,
                                     const char *table_name)
{
    sql_printf(sql, "(SELECT k");
    source_add_column(source, "k", COLUMN_INT, true);
    for (int column = 1; column < TABLE_COLUMNS; column++) {
        if (!random_percent(random, 60))
            continue;
        sql_printf(sql, ", %s", table_columns[column].name);
        source_add_column(source, table_columns[column].name, table_columns[column].type,
                          column == 1 || column >= 4);
    }
    /* the filter sees the table's own columns, qualified by the table name */
    Scope inner = {.source_count = 1};
    snprintf(inner.sources[0].alias, sizeof inner.sources[0].alias, "%s", table_name);
    for (int column = 0; column < TABLE_COLUMNS; column++)
        source_add_column(&inner.sources[0], table_columns[column].name, table_columns[column].type,
                          false);
    int only = 0;
    sql_printf(sql, " FROM %s WHERE ", table_name);
    sql_append_predicate(sql, &inner, random, features & ~FEATURE_IN, &only, 1, 1);
    sql_printf(sql, ") AS %s", source->alias);
}

static const char *join_keyword_pick(Random *random, unsigned features);

/*
 * Appends a join input that itself retracts rows: a join of two tables (an
 * outer join emits and retracts padded rows), a GROUP BY over such a join,
 * a SELECT DISTINCT, or an aggregate over an aggregate. Columns: k first.
 */
static void source_generate_nested(Source *source, Sql *sql, Random *random, unsigned features,
                                   const char *table_name, const char *other_name)
{
    int shape = random_below(random, 4);
    const char *keyword = join_keyword_pick(random, features);
    switch (shape) {
    case 0: /* a join: k from the left, v and s from the right */
        sql_printf(sql, "(SELECT x.k AS k, y.v AS v, y.s AS s FROM %s AS x %s %s AS y ON x.k = y.k",
                   table_name, keyword, other_name);
        if (random_percent(random, 40))
            sql_printf(sql, " AND x.v %s y.v", comparison_pick(random));
        sql_printf(sql, ")");
        source_add_column(source, "k", COLUMN_INT, true);
        source_add_column(source, "v", COLUMN_INT, false);
        source_add_column(source, "s", COLUMN_STRING, true);
        break;
    case 1: /* an aggregate over a join */
        sql_printf(sql,
                   "(SELECT x.k AS k, COUNT(*) AS c, SUM(y.v) AS sv, MAX(y.s) AS xs "
                   "FROM %s AS x %s %s AS y ON x.j = y.j GROUP BY x.k)",
                   table_name, keyword, other_name);
        source_add_column(source, "k", COLUMN_INT, true);
        source_add_column(source, "c", COLUMN_BIGINT, false);
        source_add_column(source, "sv", COLUMN_INT, false);
        source_add_column(source, "xs", COLUMN_STRING, true);
        break;
    case 2: /* DISTINCT */
        sql_printf(sql, "(SELECT DISTINCT k, s FROM %s", table_name);
        if (random_percent(random, 40))
            sql_printf(sql, " WHERE v %s %d", comparison_pick(random), random_range(random, 0, 8));
        sql_printf(sql, ")");
        source_add_column(source, "k", COLUMN_INT, true);
        source_add_column(source, "s", COLUMN_STRING, true);
        break;
    default: /* an aggregate over an aggregate */
        sql_printf(sql,
                   "(SELECT k, SUM(c) AS c, MAX(xv) AS xv, COUNT(*) AS n FROM "
                   "(SELECT k, s, COUNT(*) AS c, MAX(v) AS xv FROM %s GROUP BY k, s) AS g "
                   "GROUP BY k)",
                   table_name);
        source_add_column(source, "k", COLUMN_INT, true);
        source_add_column(source, "c", COLUMN_BIGINT, false);
        source_add_column(source, "xv", COLUMN_INT, false);
        source_add_column(source, "n", COLUMN_BIGINT, false);
        break;
    }
    sql_printf(sql, " AS %s", source->alias);
}

/*
 * Adds a FROM item to the scope, appending its SQL, and returns its index.
 * used_tables marks tables already in the query (for FEATURE_SELF_JOIN off).
 */
static int scope_add_source(Scope *scope, Sql *sql, Random *random, unsigned features,
                            const Table *tables, int table_count, bool *used_tables)
{
    int index = scope->source_count++;
    Source *source = &scope->sources[index];
    memset(source, 0, sizeof *source);
    snprintf(source->alias, sizeof source->alias, "a%d", index);
    int table = random_below(random, table_count);
    if (!(features & FEATURE_SELF_JOIN)) {
        /* query_generate asks for at most table_count sources then */
        while (used_tables[table])
            table = (table + 1) % table_count;
    }
    used_tables[table] = true;
    const char *table_name = tables[table].name;
    int kind = random_below(random, 100);
    if ((features & FEATURE_GROUPED) && kind < 30) {
        source_generate_grouped(source, sql, random, features, table_name);
    } else if ((features & FEATURE_SUBQUERY) && kind < 42) {
        source_generate_filtered(source, sql, random, features, table_name);
    } else if ((features & FEATURE_JOIN_INPUTS) && kind >= 48 && kind < 60) {
        source_generate_nested(source, sql, random, features, table_name,
                               tables[random_below(random, table_count)].name);
    } else if ((features & FEATURE_UNION) && kind < 48) {
        /* UNION ALL of two tables (maybe the same one), one branch maybe filtered */
        const char *other = tables[random_below(random, table_count)].name;
        sql_printf(sql, "(SELECT k, v, s FROM %s UNION ALL SELECT k, v, s FROM %s", table_name,
                   other);
        if (random_percent(random, 40))
            sql_printf(sql, " WHERE v %s %d", comparison_pick(random), random_range(random, 0, 8));
        sql_printf(sql, ") AS %s", source->alias);
        source_add_column(source, "k", COLUMN_INT, true);
        source_add_column(source, "v", COLUMN_INT, false);
        source_add_column(source, "s", COLUMN_STRING, true);
    } else {
        sql_printf(sql, "%s AS %s", table_name, source->alias);
        for (int column = 0; column < TABLE_COLUMNS; column++)
            source_add_column(source, table_columns[column].name, table_columns[column].type,
                              column != 2 && column != 3);
    }
    return index;
}

static const char *join_keyword_pick(Random *random, unsigned features)
{
    static const struct {
        const char *keyword;
        unsigned feature;
        int weight;
    } kinds[] = {
        {"JOIN", FEATURE_INNER, 30},
        {"LEFT JOIN", FEATURE_LEFT, 30},
        {"RIGHT JOIN", FEATURE_RIGHT, 18},
        {"FULL OUTER JOIN", FEATURE_FULL, 22},
    };
    int total = 0;
    for (int i = 0; i < 4; i++)
        if (features & kinds[i].feature)
            total += kinds[i].weight;
    if (total == 0)
        return "JOIN";
    int pick = random_below(random, total);
    for (int i = 0; i < 4; i++) {
        if (!(features & kinds[i].feature))
            continue;
        if (pick < kinds[i].weight)
            return kinds[i].keyword;
        pick -= kinds[i].weight;
    }
    return "JOIN";
}

/* Appends one select-list item to sql and records its output class in query. */
static void sql_append_select_item(Sql *sql, Query *query, const Scope *scope, Random *random,
                                   unsigned features, const int *sources, int source_count)
{
    ColumnRef column = column_pick(random, scope, sources, source_count);
    ValueClass value_class = scope_column_class(scope, column);
    int choice = random_below(random, 100);
    if ((features & FEATURE_EXPRESSION) && choice < 30) {
        for (int attempt = 0; attempt < 10; attempt++) {
            ColumnRef other = column_pick(random, scope, sources, source_count);
            if (scope_column_class(scope, other) != value_class)
                continue;
            if (choice < 18 && (value_class == CLASS_INTEGER || value_class == CLASS_DECIMAL)) {
                sql_append_column(sql, scope, column);
                sql_printf(sql, random_percent(random, 50) ? " + " : " - ");
                sql_append_column(sql, scope, other);
            } else {
                sql_printf(sql, "COALESCE(");
                sql_append_column(sql, scope, column);
                sql_printf(sql, ", ");
                sql_append_column(sql, scope, other);
                sql_printf(sql, ")");
            }
            query->outputs[query->output_count++] = value_class;
            return;
        }
    } else if ((features & FEATURE_CAST) && choice < 40 && value_class == CLASS_INTEGER) {
        /* integers print the same in both; decimals would not (SQLite holds cents) */
        if (choice < 38) {
            sql_printf(sql, "CAST(");
            sql_append_column(sql, scope, column);
            sql_append_dual(sql, " AS STRING)", " AS TEXT)");
            query->outputs[query->output_count++] = CLASS_STRING;
        } else {
            sql_printf(sql, "CAST(");
            sql_append_column(sql, scope, column);
            sql_printf(sql, " AS BIGINT)");
            query->outputs[query->output_count++] = CLASS_INTEGER;
        }
        return;
    } else if ((features & FEATURE_EXPRESSION) && choice < 46) {
        sql_printf(sql, "CASE WHEN ");
        sql_append_predicate(sql, scope, random, features & ~FEATURE_OR, sources, source_count, 1);
        sql_printf(sql, " THEN ");
        sql_append_column(sql, scope, column);
        sql_printf(sql, " ELSE ");
        sql_append_literal(sql, random, value_class);
        sql_printf(sql, " END");
        query->outputs[query->output_count++] = value_class;
        return;
    }
    sql_append_column(sql, scope, column);
    query->outputs[query->output_count++] = value_class;
}

/*
 * Generates a random SELECT over the tables into *query (cleared first):
 * sources joined left-deep (with FEATURE_NESTED a parenthesized pair may be
 * the right input of a join), a WHERE clause, and a select list that is
 * plain, DISTINCT, * or a GROUP BY over the join.
 */
static void query_generate(Query *query, Random *random, unsigned features, const Table *tables,
                           int table_count)
{
    sql_clear(&query->sql);
    query->output_count = 0;

    int max_sources = (features & FEATURE_SELF_JOIN) ? 4 : table_count;
    if (max_sources > 4)
        max_sources = 4;
    int wanted = random_range(random, 2, max_sources);
    if (wanted == 4 && random_percent(random, 50))
        wanted = 3;
    if (table_count >= 5 && random_percent(random, 4))
        wanted = 5;

    Scope scope = {0};
    Sql from = {0};
    Sql where = {0};
    Sql select = {0};
    Sql group = {0};
    bool used_tables[MAX_TABLES] = {false};
    int in_scope[MAX_SOURCES];
    int in_scope_count = 0;
    /* every join on the first columns: a chain MultiJoin can fuse */
    bool common_key = (features & FEATURE_COMMON_KEY) && random_percent(random, 25);
    /* FROM a, b, c WHERE <the join conditions>: inner joins only */
    bool comma = (features & FEATURE_COMMA) && random_percent(random, 6);

    in_scope[in_scope_count++] =
        scope_add_source(&scope, &from, random, features, tables, table_count, used_tables);
    while (scope.source_count < wanted) {
        if (comma) {
            sql_printf(&from, ", ");
            int right =
                scope_add_source(&scope, &from, random, features, tables, table_count, used_tables);
            sql_printf(&where, "%s", where.flink.length ? " AND " : " WHERE ");
            sql_append_join_condition(&where, &scope, random, features, common_key, in_scope,
                                      in_scope_count, &right, 1);
            in_scope[in_scope_count++] = right;
            continue;
        }
        const char *keyword = join_keyword_pick(random, features);
        if ((features & FEATURE_NESTED) && wanted - scope.source_count >= 2 &&
            random_percent(random, 15)) {
            /* x JOIN (y JOIN z ON y~z) ON x~(y, z) */
            int pair[2];
            sql_printf(&from, " %s (", keyword);
            pair[0] =
                scope_add_source(&scope, &from, random, features, tables, table_count, used_tables);
            sql_printf(&from, " %s ", join_keyword_pick(random, features));
            pair[1] =
                scope_add_source(&scope, &from, random, features, tables, table_count, used_tables);
            sql_printf(&from, " ON ");
            sql_append_join_condition(&from, &scope, random, features, common_key, &pair[0], 1,
                                      &pair[1], 1);
            sql_printf(&from, ") ON ");
            sql_append_join_condition(&from, &scope, random, features, common_key, in_scope,
                                      in_scope_count, pair, 2);
            in_scope[in_scope_count++] = pair[0];
            in_scope[in_scope_count++] = pair[1];
            continue;
        }
        sql_printf(&from, " %s ", keyword);
        int right =
            scope_add_source(&scope, &from, random, features, tables, table_count, used_tables);
        sql_printf(&from, " ON ");
        sql_append_join_condition(&from, &scope, random, features, common_key, in_scope,
                                  in_scope_count, &right, 1);
        in_scope[in_scope_count++] = right;
    }

    if ((features & FEATURE_WHERE) && random_percent(random, 45)) {
        int count = random_percent(random, 70) ? 1 : 2;
        for (int i = 0; i < count; i++) {
            sql_printf(&where, "%s", where.flink.length ? " AND " : " WHERE ");
            sql_append_predicate(&where, &scope, random, features, in_scope, in_scope_count, 0);
        }
    }

    if ((features & FEATURE_SEMI_ANTI) && random_percent(random, 30)) {
        int count = random_percent(random, 80) ? 1 : 2;
        for (int i = 0; i < count; i++) {
            sql_printf(&where, "%s", where.flink.length ? " AND " : " WHERE ");
            sql_append_subquery_predicate(&where, &scope, random, in_scope, in_scope_count, tables,
                                          table_count);
        }
    }

    int total_columns = 0;
    for (int i = 0; i < scope.source_count; i++)
        total_columns += scope.sources[i].column_count;
    int shape = random_below(random, 100);
    if ((features & FEATURE_AGGREGATE) && shape < 15) {
        /* GROUP BY over the join: its input is an updating changelog */
        int group_count = random_range(random, 1, 2);
        for (int g = 0; g < group_count; g++) {
            ColumnRef column = column_pick(random, &scope, in_scope, in_scope_count);
            sql_printf(&select, "%s", g ? ", " : "");
            sql_append_column(&select, &scope, column);
            query->outputs[query->output_count++] = scope_column_class(&scope, column);
            sql_printf(&group, "%s", g ? ", " : " GROUP BY ");
            sql_append_column(&group, &scope, column);
        }
        sql_printf(&select, ", COUNT(*)");
        query->outputs[query->output_count++] = CLASS_INTEGER;
        int aggregate_count = random_range(random, 0, 2);
        for (int a = 0; a < aggregate_count; a++) {
            static const char *const functions[] = {"SUM", "MIN", "MAX", "COUNT", "COUNT(DISTINCT"};
            ColumnRef column = column_pick(random, &scope, in_scope, in_scope_count);
            ValueClass value_class = scope_column_class(&scope, column);
            int function = random_below(random, 5);
            if (function == 0 &&
                (value_class == CLASS_STRING || value_class == CLASS_TIMESTAMP ||
                 (value_class == CLASS_DECIMAL && !(features & FEATURE_DECIMAL_SUM))))
                function = 1;
            sql_printf(&select, function == 4 ? ", %s " : ", %s(", functions[function]);
            sql_append_column(&select, &scope, column);
            sql_printf(&select, ")");
            query->outputs[query->output_count++] = function >= 3 ? CLASS_INTEGER : value_class;
        }
        if ((features & FEATURE_HAVING) && random_percent(random, 30))
            sql_printf(&group, " HAVING COUNT(*) %s %d",
                       random_percent(random, 70) ? ">" : "<=", random_range(random, 0, 3));
    } else if ((features & FEATURE_STAR) && shape < 20 && total_columns <= MAX_OUTPUT_COLUMNS) {
        sql_printf(&select, "*");
        for (int i = 0; i < scope.source_count; i++)
            for (int c = 0; c < scope.sources[i].column_count; c++)
                query->outputs[query->output_count++] =
                    column_type_class(scope.sources[i].columns[c].type);
    } else {
        if ((features & FEATURE_DISTINCT) && shape < 28)
            sql_printf(&select, "DISTINCT ");
        int item_count = random_range(random, 1, 6);
        for (int i = 0; i < item_count; i++) {
            if (i)
                sql_printf(&select, ", ");
            sql_append_select_item(&select, query, &scope, random, features, in_scope,
                                   in_scope_count);
        }
    }

    sql_printf(&query->sql, "SELECT ");
    if ((features & FEATURE_TTL) && random_percent(random, 10)) {
        /* a hint is a comment to SQLite; to joinery it sets per-input state TTLs */
        sql_printf(&query->sql, "/*+ STATE_TTL(");
        int written = 0;
        for (int i = 0; i < scope.source_count; i++) {
            if (!random_percent(random, 60) && !(i == scope.source_count - 1 && !written))
                continue;
            sql_printf(&query->sql, "%s'%s' = '%s'", written++ ? ", " : "", scope.sources[i].alias,
                       random_percent(random, 50) ? "1d" : "2 h");
        }
        sql_printf(&query->sql, ") */ ");
    }
    sql_append_sql(&query->sql, &select);
    sql_printf(&query->sql, " FROM ");
    sql_append_sql(&query->sql, &from);
    sql_append_sql(&query->sql, &where);
    sql_append_sql(&query->sql, &group);
    sql_free(&from);
    sql_free(&where);
    sql_free(&select);
    sql_free(&group);
}

/* ------------------------------------------------------------------ runs */

enum { MULTI_JOIN_OFF, MULTI_JOIN_ON, MULTI_JOIN_MIXED };
enum { AGG_PHASE_MIXED, AGG_PHASE_ONE, AGG_PHASE_TWO };

typedef struct Options {
    int queries;
    uint64_t seed;
    int parallelism;
    int only;          /* -1: all */
    unsigned features; /* Feature bits */
    int timeout_seconds;
    int multi_join;      /* MULTI_JOIN_OFF, _ON or _MIXED (odd rounds on) */
    int mini_batch_size; /* > 0: every round with mini-batch on, batches of this size */
    int agg_phase;       /* AGG_PHASE_ONE, _TWO or _MIXED (with mini-batch) */
    int distinct_split;  /* > 0: table.optimizer.distinct-agg.split with this many buckets */
    bool batch;          /* batch runtime mode, queries ordered and limited (top of file) */
    bool keep;
    bool verbose;
    bool dry_run;
} Options;

typedef struct Totals {
    int passed;
    int failed;
    int detailed; /* failures printed in full */
} Totals;

/*
 * Runs the SQLite side of the query and fills `expected` (sorted).
 * Returns 0, or -1 with the message in `error`.
 */
static int sqlite_collect(sqlite3 *database, const Query *query, RowList *expected, Text *error,
                          bool sorted)
{
    sqlite3_stmt *statement = NULL;
    if (sqlite3_prepare_v2(database, query->sql.sqlite.data, -1, &statement, NULL) != SQLITE_OK) {
        text_printf(error, "sqlite: %s", sqlite3_errmsg(database));
        return -1;
    }
    if (sqlite3_column_count(statement) != query->output_count) {
        text_printf(error, "sqlite returns %d columns, the generator expected %d",
                    sqlite3_column_count(statement), query->output_count);
        sqlite3_finalize(statement);
        return -1;
    }
    Text row = {0};
    int step;
    while ((step = sqlite3_step(statement)) == SQLITE_ROW) {
        text_clear(&row);
        text_append(&row, "", 0);
        for (int i = 0; i < query->output_count; i++) {
            if (i)
                text_append(&row, (const char[]){ROW_SEPARATOR}, 1);
            if (sqlite3_column_type(statement, i) == SQLITE_NULL) {
                text_append(&row, NULL_MARK, 1);
            } else if (query->outputs[i] == CLASS_DECIMAL) {
                text_append_decimal(&row, sqlite3_column_int64(statement, i));
            } else if (query->outputs[i] == CLASS_INTEGER) {
                text_printf(&row, "%lld", (long long)sqlite3_column_int64(statement, i));
            } else {
                const unsigned char *value = sqlite3_column_text(statement, i);
                text_append(&row, (const char *)value, (size_t)sqlite3_column_bytes(statement, i));
            }
        }
        row_list_push(expected, row.data);
    }
    text_free(&row);
    if (step != SQLITE_DONE) {
        text_printf(error, "sqlite: %s", sqlite3_errmsg(database));
        sqlite3_finalize(statement);
        return -1;
    }
    sqlite3_finalize(statement);
    if (sorted)
        row_list_sort(expected);
    return 0;
}

/* --batch: the query ordered by all its columns (random directions), sometimes limited. */
static void query_wrap_batch(Query *query, Random *random)
{
    Sql wrapped = {0};
    sql_printf(&wrapped, "SELECT * FROM (");
    sql_append_sql(&wrapped, &query->sql);
    sql_printf(&wrapped, ") AS b ORDER BY ");
    for (int i = 0; i < query->output_count; i++)
        sql_printf(&wrapped, "%s%d%s", i ? ", " : "", i + 1,
                   random_percent(random, 30) ? " DESC" : "");
    if (random_percent(random, 50)) {
        sql_printf(&wrapped, " LIMIT %d", random_range(random, 0, 12));
        if (random_percent(random, 40))
            sql_printf(&wrapped, " OFFSET %d", random_range(random, 0, 5));
    }
    sql_free(&query->sql);
    query->sql = wrapped;
}

/* One round: its tables, its session and database, and its data directory. */
typedef struct Round {
    int index;
    char directory[512];
    Table tables[MAX_TABLES];
    int table_count;
    Text setup;      /* the statements that declare the round's tables, for repro files */
    bool multi_join; /* the round runs with table.optimizer.multi-join.enabled */
    JoinerySession *session;
    sqlite3 *database;
} Round;

static uint64_t seed_mix(uint64_t seed, uint64_t a, uint64_t b)
{
    Random random = {seed ^ (a * 0xD1B54A32D192ED03ull) ^ (b * 0x8CB92BA72F3D8DD7ull)};
    return random_next(&random);
}

/* Writes a script that reproduces query `number` with build/joinery -f. */
static void round_write_repro(const Round *round, int number, const Query *query, char *path,
                              size_t path_size)
{
    snprintf(path, path_size, "%s/query-%04d.sql", round->directory, number);
    FILE *file = fopen(path, "w");
    if (!file)
        return;
    fprintf(file, "%s\n%s;\n", round->setup.data, query->sql.flink.data);
    fclose(file);
    char sqlite_path[1024];
    snprintf(sqlite_path, sizeof sqlite_path, "%s/query-%04d.sqlite.sql", round->directory, number);
    file = fopen(sqlite_path, "w");
    if (!file)
        return;
    fprintf(file,
            "-- SQLite side (DECIMAL columns hold cents); load the tables from the JSON files\n"
            "%s;\n",
            query->sql.sqlite.data);
    fclose(file);
}

/* The COUNT(DISTINCT calls of a query's text. */
static int distinct_calls(const char *sql)
{
    int count = 0;
    for (const char *at = sql; (at = strstr(at, "COUNT(DISTINCT ")) != NULL; at++)
        count++;
    return count;
}

/* Opens the round: tables, files, SQLite, session. Returns 0 or -1. */
static int round_open(Round *round, int index, const char *base_directory, const Options *options)
{
    memset(round, 0, sizeof *round);
    round->index = index;
    snprintf(round->directory, sizeof round->directory, "%s/round-%03d", base_directory, index);
    if (mkdir(round->directory, 0700) != 0 && errno != EEXIST) {
        fprintf(stderr, "diff_join: mkdir %s: %s\n", round->directory, strerror(errno));
        return -1;
    }
    Random random = {seed_mix(options->seed, (uint64_t)index + 1, 0)};
    round->table_count = random_range(&random, 2, MAX_TABLES);
    if (sqlite3_open(":memory:", &round->database) != SQLITE_OK) {
        fprintf(stderr, "diff_join: cannot open SQLite\n");
        return -1;
    }
    text_printf(&round->setup, "SET 'parallelism.default' = '%d';\n", options->parallelism);
    bool multi_join = options->multi_join == MULTI_JOIN_ON ||
                      (options->multi_join == MULTI_JOIN_MIXED && index % 2 == 1);
    round->multi_join = multi_join;
    /* a TTL far longer than the run must not change any result */
    if ((options->features & FEATURE_TTL) && index % 3 == 2)
        text_printf(&round->setup, "SET 'table.exec.state.ttl' = '1 h';\n");
    if (multi_join)
        text_printf(&round->setup, "SET 'table.optimizer.multi-join.enabled' = 'true';\n");
    /* batches end at the size and the end of input (the latency is longer than any run),
       so the round stays a function of the seed; the final state must not depend on it */
    if (options->batch)
        text_printf(&round->setup, "SET 'execution.runtime-mode' = 'batch';\n");
    if (options->mini_batch_size > 0)
        text_printf(&round->setup,
                    "SET 'table.exec.mini-batch.enabled' = 'true';\n"
                    "SET 'table.exec.mini-batch.allow-latency' = '1 h';\n"
                    "SET 'table.exec.mini-batch.size' = '%d';\n"
                    "SET 'table.optimizer.agg-phase-strategy' = '%s';\n",
                    options->mini_batch_size,
                    options->distinct_split <= 0 &&
                            (options->agg_phase == AGG_PHASE_TWO ||
                             (options->agg_phase == AGG_PHASE_MIXED && index % 4 >= 2))
                        ? "TWO_PHASE"
                        : "ONE_PHASE");
    if (options->distinct_split > 0)
        text_printf(&round->setup,
                    "SET 'table.optimizer.distinct-agg.split.enabled' = 'true';\n"
                    "SET 'table.optimizer.distinct-agg.split.bucket-num' = '%d';\n",
                    options->distinct_split);
    for (int t = 0; t < round->table_count; t++) {
        table_generate(&round->tables[t], t, &random,
                       (options->features & FEATURE_BIG_TABLES) != 0);
        if (table_write_json(&round->tables[t], round->directory) != 0) {
            fprintf(stderr, "diff_join: cannot write %s/%s.json\n", round->directory,
                    round->tables[t].name);
            return -1;
        }
        if (table_load_sqlite(&round->tables[t], round->database) != 0)
            return -1;
        table_format_ddl(&round->tables[t], round->directory, &round->setup);
        text_printf(&round->setup, ";\n");
    }
    if (options->dry_run)
        return 0;
    round->session = joinery_session_open();
    if (!round->session) {
        fprintf(stderr, "diff_join: joinery_session_open failed\n");
        return -1;
    }
    /* run the setup statements one by one */
    const char *cursor = round->setup.data;
    while (*cursor) {
        const char *end = strchr(cursor, '\n');
        size_t length = end ? (size_t)(end - cursor) : strlen(cursor);
        char *statement = strndup(cursor, length);
        if (!statement)
            return -1;
        JoineryError error;
        int status = session_run(round->session, statement, NULL, options->timeout_seconds, &error);
        if (status != 0) {
            fprintf(stderr, "diff_join: setup statement failed: %s\n  %s\n", statement,
                    error.message);
            free(statement);
            return -1;
        }
        free(statement);
        cursor += length + (end ? 1 : 0);
    }
    return 0;
}

static void round_close(Round *round)
{
    if (round->session)
        joinery_session_close(round->session);
    if (round->database)
        sqlite3_close(round->database);
    for (int t = 0; t < round->table_count; t++)
        free(round->tables[t].rows);
    text_free(&round->setup);
    memset(round, 0, sizeof *round);
}

/* Generates, runs and checks query `number` of the round; updates totals. */
static void round_run_query(Round *round, int number, const Options *options, Totals *totals)
{
    Random random = {seed_mix(options->seed, (uint64_t)round->index + 1, (uint64_t)number + 1)};
    unsigned features = options->features;
    Query query = {0};
    RowList expected = {0};
    RowList actual = {0};
    Text error = {0};
    Collector collector;
    collector_init(&collector);
    const char *reason = NULL;

    /* regenerate queries whose answer is too big to check quickly */
    for (int attempt = 0; attempt < 10; attempt++) {
        query_generate(&query, &random, features, round->tables, round->table_count);
        /* the split refuses DISTINCT over two columns (Flink's Expand is not built) */
        if (options->distinct_split > 0 && attempt < 9 && distinct_calls(query.sql.flink.data) > 1)
            continue;
        if (options->batch)
            query_wrap_batch(&query, &random);
        row_list_free(&expected);
        text_clear(&error);
        if (sqlite_collect(round->database, &query, &expected, &error, !options->batch) != 0) {
            /* SQLite 3.40 refuses some valid ON clauses after RIGHT/FULL joins */
            if (strstr(error.data, "references tables to its right") && attempt < 9)
                continue;
            break;
        }
        /* keep some empty answers, but prefer queries that return rows */
        if (expected.count == 0 && attempt < 2 && random_percent(&random, 60))
            continue;
        if (expected.count <= MAX_EXPECTED_ROWS)
            break;
    }
    if (error.length) {
        reason = "the generated query does not run in SQLite (generator bug)";
        goto report;
    }
    if (options->verbose)
        printf("query %d (%zu rows expected): %s\n", number, expected.count, query.sql.flink.data);
    if (options->dry_run) {
        totals->passed++;
        goto done;
    }

    JoineryError engine_error;
    int status = session_run(round->session, query.sql.flink.data, &collector,
                             options->timeout_seconds, &engine_error);
    if (watchdog_fired) {
        reason = "hang guard: cancelled after --timeout seconds";
    } else if (status != 0) {
        reason = "joinery returned an error";
        text_printf(&error, "%s (status %d, line %d, column %d)", engine_error.message,
                    engine_error.status, engine_error.line, engine_error.column);
        if (strstr(engine_error.message, "not supported") ||
            strstr(engine_error.message, "Unsupported") ||
            strstr(engine_error.message, "unsupported"))
            reason = "joinery rejected a feature (switch it off with --without)";
    } else if (collector.failure.length) {
        reason = "the changelog is not a valid changelog";
        text_printf(&error, "%s", collector.failure.data);
    } else if (!collector.began) {
        reason = "no result set";
    } else if (collector.column_count != (size_t)query.output_count) {
        reason = "wrong number of columns";
        text_printf(&error, "joinery returned %zu columns, expected %d", collector.column_count,
                    query.output_count);
    } else if (collector.cancelled) {
        reason = "the result ended as cancelled";
    } else if (options->batch && (collector.kind != JOINERY_RESULT_BATCH || collector.non_insert)) {
        reason = "a batch-mode query did not give a batch result of +I rows";
    }
    if (reason)
        goto report;
    if (options->batch) {
        /* the rows in their order: the ORDER BY is part of the answer */
        for (size_t i = 0; i < collector.ordered.count; i++)
            row_list_push(&actual, collector.ordered.rows[i]);
        if (!row_lists_equal(&expected, &actual)) {
            reason = "the batch result differs from SQLite's (rows or their order)";
            goto report;
        }
        totals->passed++;
        goto done;
    }
    multiset_to_list(&collector.rows, &actual);
    if (!row_lists_equal(&expected, &actual)) {
        reason = "the final result differs from SQLite's";
        goto report;
    }
    totals->passed++;
    goto done;

report:
    totals->failed++;
    if (totals->detailed++ < MAX_DETAILED_FAILURES) {
        char repro[1024];
        round_write_repro(round, number, &query, repro, sizeof repro);
        printf("FAILED query %d (seed %llu, parallelism %d): %s\n", number,
               (unsigned long long)options->seed, options->parallelism, reason);
        if (error.length)
            printf("  %s\n", error.data);
        printf("  joinery SQL: %s\n", query.sql.flink.data);
        printf("  SQLite SQL:  %s\n", query.sql.sqlite.data);
        printf("  data: %s (t0..t%d as JSON lines); rerun: build/joinery -f %s\n", round->directory,
               round->table_count - 1, repro);
        if (!error.length || collector.began) {
            if (!actual.count && !options->batch)
                multiset_to_list(&collector.rows, &actual);
            row_list_print("expected (SQLite)", &expected);
            row_list_print("actual (joinery)", &actual);
            row_lists_print_difference("missing from joinery", &expected, &actual);
            row_lists_print_difference("extra in joinery", &actual, &expected);
        }
        fflush(stdout);
    } else {
        printf("FAILED query %d: %s\n", number, reason);
    }

done:
    collector_free(&collector);
    row_list_free(&expected);
    row_list_free(&actual);
    text_free(&error);
    sql_free(&query.sql);
}

static int remove_entry(const char *path, const struct stat *status, int flag, struct FTW *ftw)
{
    (void)status;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: diff_join [--queries N] [--seed S] [--parallelism P] [--only I]\n"
            "                 [--without FEATURE,...] [--timeout SECONDS] [--keep]\n"
            "                 [--multi-join on|off|mixed] [--mini-batch SIZE]\n"
            "                 [--agg-phase one|two|mixed] [--distinct-split BUCKETS] [--batch]\n"
            "                 [--verbose] [--dry-run]\n"
            "features:");
    for (size_t i = 0; i < sizeof feature_names / sizeof feature_names[0]; i++)
        fprintf(out, " %s", feature_names[i].name);
    fprintf(out, "\n--dry-run checks the generator against SQLite only.\n");
}

static int options_parse_features(Options *options, const char *list)
{
    char *copy = string_duplicate(list);
    char *save = NULL;
    for (char *name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
        bool found = false;
        for (size_t i = 0; i < sizeof feature_names / sizeof feature_names[0]; i++) {
            if (strcmp(name, feature_names[i].name) == 0) {
                options->features &= ~feature_names[i].flag;
                found = true;
            }
        }
        if (!found) {
            fprintf(stderr, "diff_join: unknown feature '%s'\n", name);
            free(copy);
            return -1;
        }
    }
    free(copy);
    return 0;
}

static int options_parse_multi_join(void *context, const char *value)
{
    Options *options = context;
    if (strcmp(value, "on") == 0)
        options->multi_join = MULTI_JOIN_ON;
    else if (strcmp(value, "off") == 0)
        options->multi_join = MULTI_JOIN_OFF;
    else if (strcmp(value, "mixed") == 0)
        options->multi_join = MULTI_JOIN_MIXED;
    else
        return -1;
    return 0;
}

static int options_parse_agg_phase(void *context, const char *value)
{
    Options *options = context;
    if (strcmp(value, "one") == 0)
        options->agg_phase = AGG_PHASE_ONE;
    else if (strcmp(value, "two") == 0)
        options->agg_phase = AGG_PHASE_TWO;
    else if (strcmp(value, "mixed") == 0)
        options->agg_phase = AGG_PHASE_MIXED;
    else
        return -1;
    return 0;
}

static int options_parse_without(void *context, const char *value)
{
    return options_parse_features(context, value);
}

static int options_parse(Options *options, int argc, char **argv)
{
    *options = (Options){.queries = 500,
                         .seed = 20240601,
                         .parallelism = 1,
                         .only = -1,
                         .features = ~0u,
                         .timeout_seconds = 30,
                         .multi_join = MULTI_JOIN_MIXED};
    DiffOptions common = {.count = options->queries,
                          .seed = options->seed,
                          .parallelism = options->parallelism,
                          .only = options->only,
                          .timeout_seconds = options->timeout_seconds};
    const DiffExtraOption extras[] = {
        {.name = "--dry-run", .flag = &options->dry_run},
        {.name = "--mini-batch", .integer = &options->mini_batch_size},
        {.name = "--multi-join", .parse = options_parse_multi_join, .context = options},
        {.name = "--agg-phase", .parse = options_parse_agg_phase, .context = options},
        {.name = "--distinct-split", .integer = &options->distinct_split},
        {.name = "--without", .parse = options_parse_without, .context = options},
        {.name = "--batch", .flag = &options->batch},
    };
    const DiffOptionSpec spec = {.count_name = "--queries",
                                 .minimum_count = 1,
                                 .minimum_timeout = 1,
                                 .usage = usage,
                                 .extras = extras,
                                 .extra_count = 7};
    if (diff_options_parse(&common, &spec, argc, argv) != 0)
        return -1;
    options->queries = common.count;
    options->seed = common.seed;
    options->parallelism = common.parallelism;
    options->only = common.only;
    options->timeout_seconds = common.timeout_seconds;
    options->keep = common.keep;
    options->verbose = common.verbose;
    return 0;
}

int main(int argc, char **argv)
{
    Options options;
    if (options_parse(&options, argc, argv) != 0)
        return 2;
    signals_install();
    setvbuf(stdout, NULL, _IOLBF, 0);

    char base_directory[] = "/tmp/joinery-diff-XXXXXX";
    if (!mkdtemp(base_directory)) {
        fprintf(stderr, "diff_join: mkdtemp: %s\n", strerror(errno));
        return 2;
    }
    static const char *const multi_join_names[] = {"off", "on", "mixed (odd rounds)"};
    static const char *const agg_phase_names[] = {"mixed", "one", "two"};
    printf("diff_join: seed %llu, %d queries, parallelism %d, multi-join %s, mini-batch %d "
           "(agg-phase %s)%s, data in %s\n",
           (unsigned long long)options.seed, options.queries, options.parallelism,
           multi_join_names[options.multi_join], options.mini_batch_size,
           agg_phase_names[options.agg_phase], options.dry_run ? " (dry run: SQLite only)" : "",
           base_directory);

    Totals totals = {0};
    int round_count = (options.queries + QUERIES_PER_ROUND - 1) / QUERIES_PER_ROUND;
    bool broken = false;
    for (int r = 0; r < round_count && !broken; r++) {
        int first = r * QUERIES_PER_ROUND;
        int last = first + QUERIES_PER_ROUND;
        if (last > options.queries)
            last = options.queries;
        if (options.only >= 0 && (options.only < first || options.only >= last))
            continue;
        Round round;
        if (round_open(&round, r, base_directory, &options) != 0) {
            totals.failed++;
            broken = true;
            round_close(&round);
            break;
        }
        for (int q = first; q < last; q++)
            if (options.only < 0 || options.only == q)
                round_run_query(&round, q, &options, &totals);
        round_close(&round);
    }

    if (totals.failed == 0 && !options.keep)
        nftw(base_directory, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    else
        printf("data kept in %s\n", base_directory);
    printf("%d passed, %d failed\n", totals.passed, totals.failed);
    return totals.failed ? 1 : 0;
}
