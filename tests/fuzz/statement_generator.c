/*
 * statement_generator.c - tools/statement_generator (in build/, build-asan/, build-fuzz/): a
 * grammar-aware fuzzer in the manner of SQLsmith. It writes random
 * statements that are valid over the prelude's tables (fuzz_prelude.c):
 * joins of every type over equal integer keys, filters, expressions typed
 * by column class (arithmetic, CASE, CAST, COALESCE, string and numeric
 * functions, LIKE, BETWEEN, IN), GROUP BY with aggregates and HAVING,
 * DISTINCT, UNION ALL of same-shaped branches, derived tables, WITH,
 * hints (STATE_TTL, MULTI_JOIN), INSERT into the sink tables, and the
 * planner options that change plans (join reordering, MultiJoin); then
 * plans each with EXPLAIN (no job runs).
 *
 *   statement_generator [--seconds N] [--seed N] [--max-plan-ms N] [--save DIR]
 *
 * Failures: a crash or a sanitizer report (built with ASan/UBSan), a
 * statement still planning after 5 s (SIGALRM: the statement is printed
 * and the program aborts), or, with --max-plan-ms, one that took longer
 * to plan. Each failing statement is printed (and written to DIR with
 * --save). Depth is capped (expressions 4, joins 5, set operations 3):
 * statements that are long on purpose are the depth-guard tests' business.
 * At the end: statements planned, how many the engine rejected with an
 * error and the most frequent error messages (a valid statement rejected
 * is either a feature joinery lacks, which must be a clear error, or a
 * bug), the slowest plan. Exits 1 when anything failed.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "engine/base/strbuf.h"
#include "tests/fuzz/fuzz_prelude.h"

enum { MAX_SCOPE = 6, MAX_EXPR_DEPTH = 4, MAX_JOINS = 5, HANG_SECONDS = 5, TOP_ERRORS = 12 };

static uint64_t random_state;

static uint32_t rnd(uint32_t bound)
{
    random_state ^= random_state << 13; /* xorshift64 */
    random_state ^= random_state >> 7;
    random_state ^= random_state << 17;
    return bound ? (uint32_t)(random_state % bound) : 0;
}

static bool chance(uint32_t percent)
{
    return rnd(100) < percent;
}

typedef struct Scope {
    const FuzzTable *tables[MAX_SCOPE];
    char aliases[MAX_SCOPE][8];
    size_t count;
} Scope;

static void put(StrBuf *out, const char *format, ...) __attribute__((format(printf, 2, 3)));
static void put(StrBuf *out, const char *format, ...)
{
    char buffer[512];
    va_list args;
    va_start(args, format);
    vsnprintf(buffer, sizeof buffer, format, args);
    va_end(args);
    strbuf_append_cstr(out, buffer);
}

/* A column of the given class from the scope; false when there is none. */
static bool pick_column(const Scope *scope, FuzzColumnClass kind, StrBuf *out)
{
    size_t candidates = 0;
    for (size_t t = 0; t < scope->count; t++)
        for (size_t c = 0; c < scope->tables[t]->column_count; c++)
            candidates += scope->tables[t]->columns[c].kind == kind;
    if (candidates == 0)
        return false;
    size_t chosen = rnd((uint32_t)candidates);
    for (size_t t = 0; t < scope->count; t++)
        for (size_t c = 0; c < scope->tables[t]->column_count; c++)
            if (scope->tables[t]->columns[c].kind == kind && chosen-- == 0) {
                put(out, "%s.%s", scope->aliases[t], scope->tables[t]->columns[c].name);
                return true;
            }
    return false;
}

static void gen_expr(const Scope *scope, FuzzColumnClass kind, int depth, StrBuf *out);

static void gen_literal(FuzzColumnClass kind, StrBuf *out)
{
    static const char *const STRINGS[] = {"'a'", "''", "'PAID'", "'x%'", "'zhu'", "'%_%'"};
    switch (kind) {
    case FUZZ_INTEGER:
        put(out, "%d", (int)rnd(2000) - 100);
        break;
    case FUZZ_DECIMAL:
        put(out, "%d.%02d", (int)rnd(2000), (int)rnd(100));
        break;
    case FUZZ_STRING:
        strbuf_append_cstr(out, STRINGS[rnd(6)]);
        break;
    case FUZZ_BOOLEAN:
        strbuf_append_cstr(out, chance(50) ? "TRUE" : "FALSE");
        break;
    case FUZZ_TEMPORAL:
        put(out, "TIMESTAMP '2024-06-0%u 0%u:00:00'", 1 + rnd(9), rnd(10));
        break;
    case FUZZ_DATE:
        put(out, "DATE '2024-06-0%u'", 1 + rnd(9));
        break;
    case FUZZ_OTHER:
        strbuf_append_cstr(out, "CAST(NULL AS BYTES)");
        break;
    }
}

static void gen_boolean(const Scope *scope, int depth, StrBuf *out)
{
    static const char *const COMPARE[] = {"=", "<>", "<", "<=", ">", ">="};
    static const FuzzColumnClass COMPARABLE[] = {FUZZ_INTEGER, FUZZ_DECIMAL, FUZZ_STRING,
                                                 FUZZ_TEMPORAL, FUZZ_DATE};
    uint32_t choice = depth >= MAX_EXPR_DEPTH ? rnd(2) : rnd(10);
    FuzzColumnClass kind = COMPARABLE[rnd(5)];
    switch (choice) {
    case 0:
    case 1:
        gen_expr(scope, kind, depth + 1, out);
        put(out, " %s ", COMPARE[rnd(6)]);
        gen_expr(scope, kind, depth + 1, out);
        break;
    case 2:
        strbuf_append_cstr(out, "(");
        gen_boolean(scope, depth + 1, out);
        strbuf_append_cstr(out, chance(50) ? " AND " : " OR ");
        gen_boolean(scope, depth + 1, out);
        strbuf_append_cstr(out, ")");
        break;
    case 3:
        strbuf_append_cstr(out, "NOT (");
        gen_boolean(scope, depth + 1, out);
        strbuf_append_cstr(out, ")");
        break;
    case 4:
        gen_expr(scope, kind, depth + 1, out);
        strbuf_append_cstr(out, chance(50) ? " IS NULL" : " IS NOT NULL");
        break;
    case 5:
        gen_expr(scope, FUZZ_INTEGER, depth + 1, out);
        strbuf_append_cstr(out, chance(30) ? " NOT BETWEEN " : " BETWEEN ");
        gen_literal(FUZZ_INTEGER, out);
        strbuf_append_cstr(out, " AND ");
        gen_literal(FUZZ_INTEGER, out);
        break;
    case 6:
        gen_expr(scope, FUZZ_STRING, depth + 1, out);
        strbuf_append_cstr(out, chance(30) ? " NOT LIKE " : " LIKE ");
        gen_literal(FUZZ_STRING, out);
        break;
    case 7:
        gen_expr(scope, FUZZ_INTEGER, depth + 1, out);
        strbuf_append_cstr(out, chance(30) ? " NOT IN (" : " IN (");
        for (uint32_t i = 0, n = 1 + rnd(4); i < n; i++) {
            strbuf_append_cstr(out, i ? ", " : "");
            gen_literal(FUZZ_INTEGER, out);
        }
        strbuf_append_cstr(out, ")");
        break;
    case 8:
        if (!pick_column(scope, FUZZ_BOOLEAN, out))
            gen_literal(FUZZ_BOOLEAN, out);
        break;
    default:
        gen_expr(scope, kind, depth + 1, out);
        strbuf_append_cstr(out, chance(50) ? " IS DISTINCT FROM " : " IS NOT DISTINCT FROM ");
        gen_expr(scope, kind, depth + 1, out);
        break;
    }
}

static void gen_expr(const Scope *scope, FuzzColumnClass kind, int depth, StrBuf *out)
{
    if (kind == FUZZ_BOOLEAN) {
        gen_boolean(scope, depth, out);
        return;
    }
    uint32_t choice = depth >= MAX_EXPR_DEPTH ? rnd(3) : rnd(12);
    if (choice <= 1 && pick_column(scope, kind, out))
        return;
    if (choice <= 2) {
        gen_literal(kind, out);
        return;
    }
    switch (choice) {
    case 3:
        strbuf_append_cstr(out, "CASE WHEN ");
        gen_boolean(scope, depth + 1, out);
        strbuf_append_cstr(out, " THEN ");
        gen_expr(scope, kind, depth + 1, out);
        strbuf_append_cstr(out, " ELSE ");
        gen_expr(scope, kind, depth + 1, out);
        strbuf_append_cstr(out, " END");
        return;
    case 4:
        strbuf_append_cstr(out, "COALESCE(");
        gen_expr(scope, kind, depth + 1, out);
        strbuf_append_cstr(out, ", ");
        gen_expr(scope, kind, depth + 1, out);
        strbuf_append_cstr(out, ")");
        return;
    case 5:
        strbuf_append_cstr(out, "NULLIF(");
        gen_expr(scope, kind, depth + 1, out);
        strbuf_append_cstr(out, ", ");
        gen_expr(scope, kind, depth + 1, out);
        strbuf_append_cstr(out, ")");
        return;
    default:
        break;
    }
    if (kind == FUZZ_INTEGER || kind == FUZZ_DECIMAL) {
        static const char *const OPS[] = {" + ", " - ", " * ", " / ", " % "};
        uint32_t what = rnd(5);
        if (what == 0) {
            strbuf_append_cstr(out, "ABS(");
            gen_expr(scope, kind, depth + 1, out);
            strbuf_append_cstr(out, ")");
        } else if (what == 1) {
            strbuf_append_cstr(out, kind == FUZZ_INTEGER ? "CAST(" : "CAST(");
            gen_expr(scope, kind == FUZZ_INTEGER ? FUZZ_DECIMAL : FUZZ_INTEGER, depth + 1, out);
            strbuf_append_cstr(out, kind == FUZZ_INTEGER ? " AS BIGINT)" : " AS DOUBLE)");
        } else if (what == 2 && kind == FUZZ_INTEGER) {
            strbuf_append_cstr(out, "CHAR_LENGTH(");
            gen_expr(scope, FUZZ_STRING, depth + 1, out);
            strbuf_append_cstr(out, ")");
        } else {
            strbuf_append_cstr(out, "(");
            gen_expr(scope, kind, depth + 1, out);
            strbuf_append_cstr(out, OPS[rnd(kind == FUZZ_INTEGER ? 5 : 4)]);
            gen_expr(scope, kind, depth + 1, out);
            strbuf_append_cstr(out, ")");
        }
    } else if (kind == FUZZ_STRING) {
        uint32_t what = rnd(6);
        if (what == 0) {
            strbuf_append_cstr(out, chance(50) ? "UPPER(" : "LOWER(");
            gen_expr(scope, FUZZ_STRING, depth + 1, out);
            strbuf_append_cstr(out, ")");
        } else if (what == 1) {
            gen_expr(scope, FUZZ_STRING, depth + 1, out);
            strbuf_append_cstr(out, " || ");
            gen_expr(scope, FUZZ_STRING, depth + 1, out);
        } else if (what == 2) {
            strbuf_append_cstr(out, "SUBSTRING(");
            gen_expr(scope, FUZZ_STRING, depth + 1, out);
            if (chance(50))
                put(out, " FROM %u FOR %u)", 1 + rnd(4), rnd(5));
            else
                put(out, ", %u, %u)", 1 + rnd(4), rnd(5));
        } else if (what == 3) {
            strbuf_append_cstr(out, "CAST(");
            gen_expr(scope, FUZZ_INTEGER, depth + 1, out);
            strbuf_append_cstr(out, " AS STRING)");
        } else if (what == 4) {
            strbuf_append_cstr(out, "TRIM(");
            gen_expr(scope, FUZZ_STRING, depth + 1, out);
            strbuf_append_cstr(out, ")");
        } else {
            gen_literal(kind, out);
        }
    } else if (kind == FUZZ_TEMPORAL && chance(50)) {
        strbuf_append_cstr(out, "(");
        gen_expr(scope, FUZZ_TEMPORAL, depth + 1, out);
        put(out, " %s INTERVAL '%u' %s)", chance(50) ? "+" : "-", 1 + rnd(30),
            chance(50) ? "MINUTE" : "HOUR");
    } else {
        gen_literal(kind, out);
    }
}

/* Adds a table to the scope with the next alias; returns its index. */
static size_t scope_add(Scope *scope, const FuzzTable *table)
{
    size_t index = scope->count++;
    scope->tables[index] = table;
    snprintf(scope->aliases[index], sizeof scope->aliases[index], "t%zu", index);
    return index;
}

static const FuzzTable *pick_source(void)
{
    for (;;) {
        const FuzzTable *table = &FUZZ_TABLES[rnd((uint32_t)FUZZ_TABLE_COUNT)];
        if (table->is_source)
            return table;
    }
}

/* The select list's column classes decide the shape (for UNION and INSERT). */
typedef struct Shape {
    FuzzColumnClass kinds[8];
    size_t count;
} Shape;

static void gen_select(const Shape *shape, int depth, StrBuf *out);

/* FROM with joins; fills the scope. */
static void gen_from(Scope *scope, int depth, StrBuf *out)
{
    strbuf_append_cstr(out, " FROM ");
    const FuzzTable *first = pick_source();
    size_t index = scope_add(scope, first);
    put(out, "%s AS %s", first->name, scope->aliases[index]);
    uint32_t joins = rnd(MAX_JOINS + 1);
    if (joins > 2 && chance(60))
        joins = rnd(3);
    static const char *const TYPES[] = {"JOIN",       "INNER JOIN",      "LEFT JOIN",
                                        "RIGHT JOIN", "FULL OUTER JOIN", "LEFT OUTER JOIN"};
    for (uint32_t j = 0; j < joins && scope->count < MAX_SCOPE; j++) {
        const char *type = TYPES[rnd(6)];
        if (depth < 2 && chance(12)) {
            /* a derived table: its columns are integers k, n and a string s */
            static const FuzzColumn DERIVED_COLUMNS[] = {
                {"k", FUZZ_INTEGER}, {"n", FUZZ_INTEGER}, {"s", FUZZ_STRING}};
            static const FuzzTable DERIVED = {"", true, false, false, DERIVED_COLUMNS, 3};
            Shape shape = {{FUZZ_INTEGER, FUZZ_INTEGER, FUZZ_STRING}, 3};
            put(out, " %s (", type);
            gen_select(&shape, depth + 1, out);
            size_t d = scope_add(scope, &DERIVED);
            put(out, ") AS %s (k, n, s)", scope->aliases[d]);
        } else {
            const FuzzTable *table = pick_source();
            size_t t = scope_add(scope, table);
            put(out, " %s %s AS %s", type, table->name, scope->aliases[t]);
        }
        /* ON: equal integer keys of the new table and an earlier one */
        Scope left = *scope;
        left.count--;
        Scope right = {.count = 1};
        right.tables[0] = scope->tables[scope->count - 1];
        memcpy(right.aliases[0], scope->aliases[scope->count - 1], sizeof right.aliases[0]);
        strbuf_append_cstr(out, " ON ");
        if (!pick_column(&left, FUZZ_INTEGER, out))
            strbuf_append_cstr(out, "1");
        strbuf_append_cstr(out, " = ");
        if (!pick_column(&right, FUZZ_INTEGER, out))
            strbuf_append_cstr(out, "1");
        if (chance(25)) {
            strbuf_append_cstr(out, " AND ");
            gen_boolean(scope, MAX_EXPR_DEPTH - 1, out);
        }
    }
}

static void gen_select(const Shape *shape, int depth, StrBuf *out)
{
    Scope scope = {.count = 0};
    StrBuf from = {0};
    gen_from(&scope, depth, &from);
    bool aggregate = chance(30);
    strbuf_append_cstr(out, "SELECT ");
    if (depth == 0 && scope.count > 1 && chance(10)) {
        /* on joins only: STATE_TTL on a group aggregate is rejected today */
        strbuf_append_cstr(out, chance(50) ? "/*+ STATE_TTL('t0' = '1d', 't1' = '2h') */ "
                                           : "/*+ MULTI_JOIN(t0, t1) */ ");
    }
    if (!aggregate && chance(10))
        strbuf_append_cstr(out, "DISTINCT ");
    StrBuf group = {0};
    for (size_t i = 0; i < shape->count; i++) {
        strbuf_append_cstr(out, i ? ", " : "");
        if (aggregate && i > 0 &&
            (shape->kinds[i] == FUZZ_INTEGER || shape->kinds[i] == FUZZ_DECIMAL)) {
            static const char *const FUNCTIONS[] = {"SUM", "MIN", "MAX", "COUNT", "AVG"};
            uint32_t f = rnd(shape->kinds[i] == FUZZ_INTEGER ? 4 : 3);
            if (f == 3 && chance(50)) {
                strbuf_append_cstr(out, "COUNT(*)");
            } else {
                put(out, "%s(%s", FUNCTIONS[f], f == 3 && chance(30) ? "DISTINCT " : "");
                gen_expr(&scope, f == 3 ? FUZZ_STRING : shape->kinds[i], MAX_EXPR_DEPTH - 1, out);
                strbuf_append_cstr(out, ")");
            }
            if (shape->kinds[i] == FUZZ_INTEGER && f != 3) {
                /* SUM of an integer is an integer; keep the class by a cast */
            }
        } else {
            StrBuf item = {0};
            gen_expr(&scope, shape->kinds[i], aggregate ? MAX_EXPR_DEPTH - 1 : 1, &item);
            strbuf_append_cstr(out, item.data);
            if (aggregate) {
                strbuf_append_cstr(&group, group.length ? ", " : "");
                strbuf_append_cstr(&group, item.data);
            }
            strbuf_free(&item);
        }
        put(out, " AS c%zu", i);
    }
    strbuf_append_cstr(out, from.data);
    strbuf_free(&from);
    if (chance(60)) {
        strbuf_append_cstr(out, " WHERE ");
        gen_boolean(&scope, 1, out);
    }
    if (aggregate && group.length) {
        strbuf_append_cstr(out, " GROUP BY ");
        strbuf_append_cstr(out, group.data);
        if (chance(25)) {
            strbuf_append_cstr(out, " HAVING COUNT(*) > ");
            gen_literal(FUZZ_INTEGER, out);
        }
    } else if (aggregate) {
        /* a global aggregate: the first item must be an aggregate too, so wrap the query */
    }
    strbuf_free(&group);
}

static void gen_query(int depth, const Shape *shape, StrBuf *out)
{
    if (depth < 3 && chance(12)) {
        gen_select(shape, depth + 1, out);
        strbuf_append_cstr(out, " UNION ALL ");
        gen_select(shape, depth + 1, out);
        return;
    }
    gen_select(shape, depth, out);
}

static void gen_shape(Shape *shape)
{
    static const FuzzColumnClass KINDS[] = {FUZZ_INTEGER, FUZZ_INTEGER, FUZZ_DECIMAL,
                                            FUZZ_STRING,  FUZZ_STRING,  FUZZ_TEMPORAL,
                                            FUZZ_DATE,    FUZZ_BOOLEAN};
    shape->count = 1 + rnd(5);
    shape->kinds[0] = chance(60) ? FUZZ_INTEGER : KINDS[rnd(8)];
    for (size_t i = 1; i < shape->count; i++)
        shape->kinds[i] = KINDS[rnd(8)];
}

static void gen_statement(StrBuf *out)
{
    Shape shape;
    if (chance(12)) {
        /* INSERT into a sink of (BIGINT, STRING, DOUBLE) */
        const char *sink = chance(50) ? "out_print" : "out_black";
        shape = (Shape){{FUZZ_INTEGER, FUZZ_STRING, FUZZ_DECIMAL}, 3};
        put(out, "INSERT INTO %s ", sink);
        gen_query(0, &shape, out);
        return;
    }
    gen_shape(&shape);
    if (chance(10)) {
        Shape inner = {{FUZZ_INTEGER, FUZZ_INTEGER, FUZZ_STRING}, 3};
        strbuf_append_cstr(out, "WITH w (k, n, s) AS (");
        gen_query(1, &inner, out);
        strbuf_append_cstr(out, ") SELECT w.k, COUNT(*) FROM w GROUP BY w.k");
        return;
    }
    gen_query(0, &shape, out);
}

/* ------------------------------------------------------------ running */

static const char *current_statement;

static void on_alarm(int signal_number)
{
    (void)signal_number;
    static const char MESSAGE[] = "\nstatement_generator: a statement planned for more than 5 s:\n";
    ssize_t ignored = write(STDERR_FILENO, MESSAGE, sizeof MESSAGE - 1);
    if (current_statement)
        ignored = write(STDERR_FILENO, current_statement, strlen(current_statement));
    ignored = write(STDERR_FILENO, "\n", 1);
    (void)ignored;
    abort();
}

static double now_ms(void)
{
    struct timespec spec;
    clock_gettime(CLOCK_MONOTONIC, &spec);
    return (double)spec.tv_sec * 1000.0 + (double)spec.tv_nsec / 1e6;
}

typedef struct ErrorCount {
    char message[160];
    size_t count;
    char example[4000];
} ErrorCount;

static void count_error(ErrorCount *errors, size_t *error_kinds, const char *message,
                        const char *statement)
{
    char key[160];
    snprintf(key, sizeof key, "%.159s", message);
    for (char *p = key; *p; p++) /* errors differ by names and positions: keep the words */
        if (*p == '\'' || *p == '`') {
            char *end = strchr(p + 1, *p);
            if (end == NULL)
                break;
            memmove(p + 1, end, strlen(end) + 1);
            p++;
        }
    for (size_t i = 0; i < *error_kinds; i++)
        if (strcmp(errors[i].message, key) == 0) {
            errors[i].count++;
            return;
        }
    if (*error_kinds < 256) {
        ErrorCount *entry = &errors[(*error_kinds)++];
        snprintf(entry->message, sizeof entry->message, "%.159s", key);
        snprintf(entry->example, sizeof entry->example, "%.3999s", statement);
        entry->count = 1;
    }
}

static int compare_counts(const void *a, const void *b)
{
    const ErrorCount *x = a, *y = b;
    return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

int main(int argc, char **argv)
{
    double seconds = 60;
    double max_plan_ms = 0;
    uint64_t seed = 1;
    const char *save = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--seconds") == 0)
            seconds = atof(argv[i + 1]);
        else if (strcmp(argv[i], "--seed") == 0)
            seed = strtoull(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--max-plan-ms") == 0)
            max_plan_ms = atof(argv[i + 1]);
        else if (strcmp(argv[i], "--save") == 0)
            save = argv[i + 1];
        else {
            fprintf(stderr, "usage: statement_generator [--seconds N] [--seed N] "
                            "[--max-plan-ms N] [--save DIR]\n");
            return 2;
        }
    }
    random_state = seed * 0x9E3779B97F4A7C15ull + 1;
    signal(SIGALRM, on_alarm);
    JoinerySession *session = fuzz_session_open();
    JoineryResultHandler handler = fuzz_quiet_handler();
    static ErrorCount errors[256];
    size_t error_kinds = 0, planned = 0, rejected = 0, slow = 0;
    double slowest = 0;
    char slowest_statement[600] = "";
    double start = now_ms();
    while (now_ms() - start < seconds * 1000.0) {
        if (planned % 40 == 0) {
            /* the planner options that change plans */
            char set[160];
            snprintf(set, sizeof set, "SET 'table.optimizer.join-reorder-enabled' = '%s'",
                     chance(50) ? "true" : "false");
            JoineryError ignored;
            joinery_session_execute(session, set, strlen(set), 1, 1, &handler, &ignored);
            snprintf(set, sizeof set, "SET 'table.optimizer.multi-join.enabled' = '%s'",
                     chance(50) ? "true" : "false");
            joinery_session_execute(session, set, strlen(set), 1, 1, &handler, &ignored);
        }
        StrBuf statement = {0};
        strbuf_append_cstr(&statement, "EXPLAIN ");
        gen_statement(&statement);
        current_statement = statement.data;
        JoineryError error;
        memset(&error, 0, sizeof error);
        alarm(HANG_SECONDS);
        double before = now_ms();
        int status = joinery_session_execute(session, statement.data, statement.length, 1, 1,
                                             &handler, &error);
        double took = now_ms() - before;
        alarm(0);
        planned++;
        if (status != 0) {
            rejected++;
            count_error(errors, &error_kinds, error.message, statement.data);
        }
        if (took > slowest) {
            slowest = took;
            snprintf(slowest_statement, sizeof slowest_statement, "%.599s", statement.data);
        }
        if (max_plan_ms > 0 && took > max_plan_ms) {
            slow++;
            fprintf(stderr, "SLOW (%.0f ms): %s\n", took, statement.data);
            if (save) {
                char path[4096];
                snprintf(path, sizeof path, "%s/slow-%zu.sql", save, slow);
                FILE *file = fopen(path, "w");
                if (file) {
                    fprintf(file, "%s;\n", statement.data);
                    fclose(file);
                }
            }
        }
        strbuf_free(&statement);
        current_statement = NULL;
    }
    joinery_session_close(session);
    qsort(errors, error_kinds, sizeof errors[0], compare_counts);
    printf("statement_generator: %zu statements planned in %.0f s (seed %llu), %zu rejected with "
           "an error (%zu kinds), %zu slower than %.0f ms; slowest %.1f ms\n",
           planned, seconds, (unsigned long long)seed, rejected, error_kinds, slow, max_plan_ms,
           slowest);
    for (size_t i = 0; i < error_kinds && i < TOP_ERRORS; i++)
        printf("  %6zu  %s\n          e.g. %s\n", errors[i].count, errors[i].message,
               errors[i].example);
    printf("  slowest: %.300s\n", slowest_statement);
    return slow > 0 ? 1 : 0;
}
