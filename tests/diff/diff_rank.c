/*
 * diff_rank.c - differential test of Top-N (Rank) against SQLite's
 * ROW_NUMBER() window function over the final table.
 *
 * Each round writes two tables as files:
 *   c (id INT primary key, g INT, v INT): a debezium-json changelog (inserts,
 *     updates that change v and move rows between partitions g, deletes,
 *     ids inserted again after a delete), 5% NULL values of v;
 *   a (id INT, g INT, v INT): the same kind of rows as plain json lines
 *     (append-only).
 * Queries of each round (QUERIES_PER_ROUND), their shape from the query
 * index, bounds and partitioning from the seed:
 *   - over c: RetractStrategy (retractions move rows up, bring rows in); at
 *     parallelism 1 only (two subtasks reading one changelog file deal its
 *     records out in turn, so one id's changes may arrive out of order, in
 *     Flink too);
 *   - over SELECT MOD(id, 9), MOD(SUM(g), 3), SUM(v) FROM a GROUP BY MOD(id,
 *     9): RetractStrategy over an input whose rows update and move between
 *     partitions, in order per id at any parallelism;
 *   - over a: AppendFastStrategy;
 *   - over SELECT g, h, COUNT(*) FROM a GROUP BY g, h: UpdateFastStrategy
 *     (ORDER BY the count DESC, then the group key);
 *   - over SELECT g, SUM(v) FROM a GROUP BY g: RetractStrategy over an
 *     aggregate that goes up and down;
 * each `SELECT ... FROM (SELECT ..., ROW_NUMBER() OVER ([PARTITION BY g]
 * ORDER BY v [DESC], id) AS rn FROM ...) WHERE <range>` with a range of one
 * of Flink's forms (rn <= N, rn < N, rn = N, rn BETWEEN a AND b, rn > a AND
 * rn <= b) and the rank column selected or not (outputRankNumber). The ORDER
 * BY ends in a unique column, so the top N is one set of rows and SQLite's
 * answer is exact. EXPLAIN must show the strategy Flink picks; the changelog
 * applied to a multiset (a retraction of a row not there fails) must equal
 * SQLite's query over the final rows.
 *
 *     build/tools/diff_rank [--rounds N] [--seed S] [--parallelism P]
 *                           [--only ROUND] [--verbose] [--keep] [--timeout S]
 *
 * Everything is a function of the seed. The last line is "N passed, N
 * failed"; the exit status is non-zero when a query failed.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE
#include <errno.h>
#include <ftw.h>
#include <sqlite3.h>
#include <sys/stat.h>

#define DIFF_TOOL_NAME "diff_rank"
#include "tests/diff/diff_support.h"

enum {
    MAX_IDS = 60,
    MAX_CHANGES = 400,
    MAX_APPENDS = 300,
    QUERIES_PER_ROUND = 8,
    NULL_VALUE = -1000, /* a NULL v */
};

typedef struct Change {
    char op; /* 'c', 'u' or 'd' */
    int id;
    int g, v;         /* the row after (c, u) or the row deleted (d) */
    int old_g, old_v; /* u: the row before */
} Change;

typedef struct Row3 {
    int id, g, v;
} Row3;

typedef struct Round {
    Change changes[MAX_CHANGES];
    int change_count;
    Row3 appends[MAX_APPENDS];
    int append_count;
    Row3 final_rows[MAX_IDS];
    int final_count;
    int groups;
    char directory[512];
} Round;

static int random_value(Random *random)
{
    return random_percent(random, 5) ? NULL_VALUE : random_range(random, -5, 30);
}

static void round_generate(Round *round, Random *random)
{
    round->groups = random_range(random, 1, 5);
    int ids = random_range(random, 1, MAX_IDS);
    bool exists[MAX_IDS + 1] = {false};
    Row3 current[MAX_IDS + 1];
    round->change_count = 0;
    int changes = random_range(random, 0, MAX_CHANGES);
    for (int i = 0; i < changes; i++) {
        int id = random_range(random, 1, ids);
        Change *change = &round->changes[round->change_count++];
        change->id = id;
        if (!exists[id]) {
            change->op = 'c';
            change->g = random_range(random, 1, round->groups);
            change->v = random_value(random);
            exists[id] = true;
        } else if (random_percent(random, 80)) {
            change->op = 'u';
            change->old_g = current[id].g;
            change->old_v = current[id].v;
            /* mostly a new value in the same partition, sometimes another partition */
            change->g =
                random_percent(random, 25) ? random_range(random, 1, round->groups) : current[id].g;
            change->v = random_value(random);
        } else {
            change->op = 'd';
            change->g = current[id].g;
            change->v = current[id].v;
            exists[id] = false;
        }
        current[id] = (Row3){id, change->g, change->v};
    }
    round->final_count = 0;
    for (int id = 1; id <= ids; id++)
        if (exists[id])
            round->final_rows[round->final_count++] = current[id];
    round->append_count = random_range(random, 0, MAX_APPENDS);
    for (int i = 0; i < round->append_count; i++)
        round->appends[i] =
            (Row3){i + 1, random_range(random, 1, round->groups), random_value(random)};
}

static void append_value(FILE *file, int v)
{
    if (v == NULL_VALUE)
        fprintf(file, "null");
    else
        fprintf(file, "%d", v);
}

static void write_row(FILE *file, int id, int g, int v)
{
    fprintf(file, "{\"id\":%d,\"g\":%d,\"v\":", id, g);
    append_value(file, v);
    fprintf(file, "}");
}

static int round_write(const Round *round)
{
    char path[600];
    snprintf(path, sizeof path, "%s/c.debezium.json", round->directory);
    FILE *file = fopen(path, "w");
    if (!file)
        return -1;
    for (int i = 0; i < round->change_count; i++) {
        const Change *c = &round->changes[i];
        fprintf(file, "{\"before\":");
        if (c->op == 'c')
            fprintf(file, "null");
        else if (c->op == 'u')
            write_row(file, c->id, c->old_g, c->old_v);
        else
            write_row(file, c->id, c->g, c->v);
        fprintf(file, ",\"after\":");
        if (c->op == 'd')
            fprintf(file, "null");
        else
            write_row(file, c->id, c->g, c->v);
        fprintf(file, ",\"op\":\"%c\"}\n", c->op);
    }
    fclose(file);
    snprintf(path, sizeof path, "%s/a.json", round->directory);
    file = fopen(path, "w");
    if (!file)
        return -1;
    for (int i = 0; i < round->append_count; i++) {
        write_row(file, round->appends[i].id, round->appends[i].g, round->appends[i].v);
        fputc('\n', file);
    }
    fclose(file);
    return 0;
}

static void sqlite_insert(Text *sql, const char *table, const Row3 *row)
{
    if (row->v == NULL_VALUE)
        text_printf(sql, "INSERT INTO %s VALUES (%d, %d, NULL);", table, row->id, row->g);
    else
        text_printf(sql, "INSERT INTO %s VALUES (%d, %d, %d);", table, row->id, row->g, row->v);
}

static int round_load_sqlite(const Round *round, sqlite3 *database)
{
    Text sql = {0};
    text_printf(&sql, "CREATE TABLE c (id INTEGER, g INTEGER, v INTEGER);"
                      "CREATE TABLE a (id INTEGER, g INTEGER, v INTEGER);");
    for (int i = 0; i < round->final_count; i++)
        sqlite_insert(&sql, "c", &round->final_rows[i]);
    for (int i = 0; i < round->append_count; i++)
        sqlite_insert(&sql, "a", &round->appends[i]);
    char *message = NULL;
    int status = sqlite3_exec(database, sql.data, NULL, NULL, &message);
    if (status != SQLITE_OK)
        fprintf(stderr, "diff_rank: sqlite: %s\n", message ? message : "?");
    sqlite3_free(message);
    text_free(&sql);
    return status == SQLITE_OK ? 0 : -1;
}

/* One query in both dialects and the strategy its EXPLAIN must show. */
typedef struct Query {
    Text joinery;
    Text sqlite;
    const char *strategy;
} Query;

/* A range of one of the forms Flink takes, as a condition on rn. */
static void range_generate(Random *random, Text *condition)
{
    int end = random_range(random, 1, 6);
    int start = random_range(random, 1, end);
    switch (random_below(random, 5)) {
    case 0:
        text_printf(condition, "rn <= %d", end);
        break;
    case 1:
        text_printf(condition, "rn < %d", end + 1);
        break;
    case 2:
        text_printf(condition, "rn = %d", end);
        break;
    case 3:
        text_printf(condition, "rn BETWEEN %d AND %d", start, end);
        break;
    default:
        text_printf(condition, "rn > %d AND rn <= %d", start - 1, end);
        break;
    }
}

static void query_generate(Query *query, int index, Random *random, bool serial)
{
    text_clear(&query->joinery);
    text_clear(&query->sqlite);
    Text condition = {0};
    range_generate(random, &condition);
    bool partitioned = random_percent(random, 70);
    bool number = random_percent(random, 60);
    bool descending = random_percent(random, 60);
    const char *partition = partitioned ? "PARTITION BY g " : "";
    int shape = index % 4;
    const char *inner = NULL, *sqlite_inner = NULL, *columns = NULL, *order = NULL;
    if (shape == 0 && (index != 0 || !serial)) {
        /* a retracting input whose rows move between partitions: each id's row is the sums
           of its deltas, kept in order per id at any parallelism (a changelog file read by
           two subtasks is not) */
        inner = "(SELECT MOD(id, 9) AS id, MOD(SUM(g), 3) AS g, SUM(v) AS v FROM a GROUP BY "
                "MOD(id, 9))";
        sqlite_inner = "(SELECT id % 9 AS id, SUM(g) % 3 AS g, SUM(v) AS v FROM a GROUP BY id % 9)";
        shape = 4;
        columns = "id, g, v";
        order = descending ? "v DESC, id" : "v, id";
        query->strategy = "RetractStrategy";
    }
    switch (shape) {
    case 4:
        break;
    case 0: /* a changelog source */
    case 1: /* an append-only source */
        inner = sqlite_inner = shape == 0 ? "c" : "a";
        columns = "id, g, v";
        order = descending ? "v DESC, id" : "v, id";
        query->strategy = shape == 0 ? "RetractStrategy" : "AppendFastStrategy";
        break;
    case 2: /* a count per group: it only grows */
        inner = "(SELECT g, MOD(id, 3) AS id, COUNT(*) AS v FROM a GROUP BY g, MOD(id, 3))";
        sqlite_inner = "(SELECT g, id % 3 AS id, COUNT(*) AS v FROM a GROUP BY g, id % 3)";
        columns = "id, g, v";
        order = "v DESC, id, g";
        query->strategy = "UpdateFastStrategy";
        break;
    default: /* a sum per group: it goes up and down */
        inner = "(SELECT g, MOD(id, 4) AS id, SUM(v) AS v FROM a GROUP BY g, MOD(id, 4))";
        sqlite_inner = "(SELECT g, id % 4 AS id, SUM(v) AS v FROM a GROUP BY g, id % 4)";
        columns = "id, g, v";
        order = descending ? "v DESC, id, g" : "v, id, g";
        query->strategy = "RetractStrategy";
        break;
    }
    for (int dialect = 0; dialect < 2; dialect++) {
        Text *out = dialect == 0 ? &query->joinery : &query->sqlite;
        /* SQLite orders NULL first ascending and last descending: Flink's default */
        text_printf(out,
                    "SELECT %s%s FROM (SELECT %s, ROW_NUMBER() OVER (%sORDER BY %s) AS rn FROM %s) "
                    "WHERE %s",
                    columns, number ? ", rn" : "", columns, partition, order,
                    dialect == 0 ? inner : sqlite_inner, condition.data);
    }
    text_free(&condition);
}

static int sqlite_rows(sqlite3 *database, const char *sql, RowList *rows, Text *error)
{
    sqlite3_stmt *statement = NULL;
    if (sqlite3_prepare_v2(database, sql, -1, &statement, NULL) != SQLITE_OK) {
        text_printf(error, "sqlite: %s", sqlite3_errmsg(database));
        return -1;
    }
    Text row = {0};
    int step;
    int columns = sqlite3_column_count(statement);
    while ((step = sqlite3_step(statement)) == SQLITE_ROW) {
        text_clear(&row);
        text_append(&row, "", 0);
        for (int i = 0; i < columns; i++) {
            if (i)
                text_append(&row, (const char[]){ROW_SEPARATOR}, 1);
            if (sqlite3_column_type(statement, i) == SQLITE_NULL)
                text_append(&row, NULL_MARK, 1);
            else
                text_append(&row, (const char *)sqlite3_column_text(statement, i),
                            (size_t)sqlite3_column_bytes(statement, i));
        }
        row_list_push(rows, row.data);
    }
    text_free(&row);
    sqlite3_finalize(statement);
    if (step != SQLITE_DONE) {
        text_printf(error, "sqlite: %s", sqlite3_errmsg(database));
        return -1;
    }
    row_list_sort(rows);
    return 0;
}

static int text_collect(void *context, const char *text)
{
    text_printf((Text *)context, "%s", text);
    return 0;
}

/* Runs a statement whose output is text (EXPLAIN) into `out`. */
static int run_text(JoinerySession *session, const char *sql, int timeout, Text *out,
                    JoineryError *error)
{
    JoineryResultHandler handler = {0};
    handler.context = out;
    handler.text = text_collect;
    memset(error, 0, sizeof *error);
    running_sql = sql;
    watched_session = session;
    alarm((unsigned)timeout);
    int status = joinery_session_execute(session, sql, strlen(sql), 1, 1, &handler, error);
    alarm(0);
    watched_session = NULL;
    running_sql = NULL;
    return status;
}

static int remove_entry(const char *path, const struct stat *info, int flag, struct FTW *ftw)
{
    (void)info;
    (void)flag;
    (void)ftw;
    return remove(path);
}

typedef struct Options {
    int rounds;
    uint64_t seed;
    int parallelism;
    int only;
    int timeout_seconds;
    bool verbose;
    bool keep;
} Options;

static int parse_options(int argc, char **argv, Options *options)
{
    *options = (Options){
        .rounds = 60, .seed = 20241202, .parallelism = 1, .only = -1, .timeout_seconds = 30};
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(arg, "--verbose") == 0) {
            options->verbose = true;
        } else if (strcmp(arg, "--keep") == 0) {
            options->keep = true;
        } else if (value && strcmp(arg, "--rounds") == 0) {
            options->rounds = atoi(value), i++;
        } else if (value && strcmp(arg, "--seed") == 0) {
            options->seed = strtoull(value, NULL, 10), i++;
        } else if (value && strcmp(arg, "--parallelism") == 0) {
            options->parallelism = atoi(value), i++;
        } else if (value && strcmp(arg, "--only") == 0) {
            options->only = atoi(value), i++;
        } else if (value && strcmp(arg, "--timeout") == 0) {
            options->timeout_seconds = atoi(value), i++;
        } else {
            fprintf(stderr, "usage: diff_rank [--rounds N] [--seed S] [--parallelism P] "
                            "[--only ROUND] [--verbose] [--keep] [--timeout S]\n");
            return -1;
        }
    }
    return options->rounds > 0 && options->parallelism > 0 ? 0 : -1;
}

/* Runs every query of one round; adds to *passed / *failed. */
static int round_run(Round *round, int index, Random *random, const Options *options, int *passed,
                     int *failed)
{
    if (round_write(round) != 0) {
        fprintf(stderr, "diff_rank: cannot write into %s\n", round->directory);
        return -1;
    }
    sqlite3 *database = NULL;
    if (sqlite3_open(":memory:", &database) != SQLITE_OK || round_load_sqlite(round, database))
        return -1;
    JoinerySession *session = joinery_session_open();
    if (!session)
        return -1;
    Text setup = {0};
    text_printf(&setup,
                "SET 'parallelism.default' = '%d';\n"
                "CREATE TABLE c (id INT, g INT, v INT, PRIMARY KEY (id) NOT ENFORCED) WITH "
                "('connector' = 'filesystem', 'path' = '%s/c.debezium.json', 'format' = "
                "'debezium-json');\n"
                "CREATE TABLE a (id INT, g INT, v INT) WITH ('connector' = 'filesystem', 'path' = "
                "'%s/a.json', 'format' = 'json');\n",
                options->parallelism, round->directory, round->directory);
    if (index % 3 == 1) /* a TTL far in the future changes nothing */
        text_printf(&setup, "SET 'table.exec.state.ttl' = '1 h';\n");
    int status = 0;
    for (char *statement = setup.data; statement && *statement && status == 0;) {
        char *end = strchr(statement, '\n');
        *end = '\0';
        JoineryError error;
        if (session_run(session, statement, NULL, options->timeout_seconds, &error) != 0) {
            fprintf(stderr, "diff_rank: setup failed: %s\n  %s\n", error.message, statement);
            status = -1;
        }
        *end = '\n';
        statement = end + 1;
    }
    Query query = {0};
    for (int q = 0; q < QUERIES_PER_ROUND && status == 0; q++) {
        query_generate(&query, q, random, options->parallelism == 1);
        RowList expected = {0}, actual = {0};
        Text error = {0}, plan = {0}, explain = {0};
        Collector collector;
        collector_init(&collector);
        JoineryError engine_error;
        bool ok = sqlite_rows(database, query.sqlite.data, &expected, &error) == 0;
        text_printf(&explain, "EXPLAIN %s", query.joinery.data);
        if (ok &&
            run_text(session, explain.data, options->timeout_seconds, &plan, &engine_error) != 0) {
            text_printf(&error, "EXPLAIN: %s", engine_error.message);
            ok = false;
        }
        if (ok && (!plan.data || !strstr(plan.data, query.strategy))) {
            text_printf(&error, "EXPLAIN shows no %s:\n%s", query.strategy,
                        plan.data ? plan.data : "");
            ok = false;
        }
        if (ok && session_run(session, query.joinery.data, &collector, options->timeout_seconds,
                              &engine_error) != 0) {
            text_printf(&error, "joinery: %s", engine_error.message);
            ok = false;
        }
        if (ok && collector.failure.length) {
            text_printf(&error, "%s", collector.failure.data);
            ok = false;
        }
        if (ok) {
            multiset_to_list(&collector.rows, &actual);
            if (!row_lists_equal(&expected, &actual)) {
                text_printf(&error, "results differ");
                ok = false;
            }
        }
        if (ok) {
            (*passed)++;
            if (options->verbose)
                printf("round %d query %d: ok (%zu rows, %llu changes)\n", index, q, expected.count,
                       (unsigned long long)collector.changelog_rows);
        } else {
            (*failed)++;
            printf("FAIL round %d query %d (seed %llu): %s\n  joinery: %s\n  sqlite: %s\n  data: "
                   "%s\n",
                   index, q, (unsigned long long)options->seed, error.data ? error.data : "",
                   query.joinery.data, query.sqlite.data, round->directory);
            row_lists_print_difference("expected, missing", &expected, &actual);
            row_lists_print_difference("unexpected", &actual, &expected);
        }
        row_list_free(&expected);
        row_list_free(&actual);
        text_free(&error);
        text_free(&plan);
        text_free(&explain);
        collector_free(&collector);
    }
    text_free(&query.joinery);
    text_free(&query.sqlite);
    text_free(&setup);
    joinery_session_close(session);
    sqlite3_close(database);
    return status;
}

int main(int argc, char **argv)
{
    Options options;
    if (parse_options(argc, argv, &options) != 0)
        return 2;
    signals_install();
    char base[] = "/tmp/joinery-diff-rank-XXXXXX";
    if (!mkdtemp(base)) {
        fprintf(stderr, "diff_rank: mkdtemp: %s\n", strerror(errno));
        return 2;
    }
    printf("diff_rank: seed %llu, %d rounds of %d queries, parallelism %d, data in %s\n",
           (unsigned long long)options.seed, options.rounds, QUERIES_PER_ROUND, options.parallelism,
           base);
    int passed = 0, failed = 0;
    static Round round;
    for (int r = 0; r < options.rounds; r++) {
        Random random = {options.seed * 1000003u + (uint64_t)r};
        round_generate(&round, &random);
        if (options.only >= 0 && r != options.only)
            continue;
        snprintf(round.directory, sizeof round.directory, "%s/round-%03d", base, r);
        if (mkdir(round.directory, 0700) != 0) {
            fprintf(stderr, "diff_rank: mkdir %s: %s\n", round.directory, strerror(errno));
            return 2;
        }
        int failed_before = failed;
        if (round_run(&round, r, &random, &options, &passed, &failed) != 0)
            return 2;
        if (failed == failed_before && !options.keep)
            nftw(round.directory, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
    }
    if (failed == 0 && !options.keep)
        nftw(base, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
