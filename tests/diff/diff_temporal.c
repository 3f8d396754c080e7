/*
 * diff_temporal.c - differential test of the event-time temporal join
 * against SQLite.
 *
 * Each round generates a versioned table v (k INT primary key, val INT, vt
 * TIMESTAMP(3)) as a debezium-json changelog (inserts, updates and deletes
 * per key at increasing times; a delete's time is when it happened) and a
 * probe table p (id, k, amount, pt TIMESTAMP(3)) as json lines, both in an
 * arrival order that is out of order by less than the watermark delay of
 * their tables (`WATERMARK FOR t AS t - INTERVAL 'B' SECOND`), so no row is
 * late. A few queries per round, INNER and LEFT, some with a residual or a
 * probe-side condition, run through joinery_session_execute; once the
 * input ends (the final watermark) the materialised changelog must equal
 * SQLite's answer: each probe row with the version of its key whose time is
 * the largest not after the probe's time, when that version is not a delete
 * (and the residual holds), else nothing (INNER) or NULLs (LEFT).
 *
 * Every third round the versioned side is instead Flink's versioned view: an
 * append-only history deduplicated by `ROW_NUMBER() OVER (PARTITION BY k
 * ORDER BY vt DESC) = 1`; its versions are the rows the Deduplicate keeps in
 * file order (computed here). Those rounds run at parallelism 1: a parallel
 * file read interleaves one key's rows in an order that varies from run to
 * run, and which rows a last-row deduplication keeps depends on it (in Flink
 * too).
 *
 *     build/tools/diff_temporal [--rounds N] [--seed S] [--parallelism P]
 *                               [--only ROUND] [--verbose] [--keep] [--timeout S]
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

#define DIFF_TOOL_NAME "diff_temporal"
#include "tests/diff/diff_support.h"

enum {
    MAX_KEYS = 6,
    MAX_CHANGES = 80,
    MAX_PROBES = 100,
    QUERIES_PER_ROUND = 6,
};

typedef struct Change {
    int k;
    int val;
    int time;     /* seconds */
    int old_val;  /* updates and deletes: the row before */
    int old_time; /* updates: the time of the row before */
    char op;      /* 'c', 'u' or 'd' */
    int arrival;  /* time + jitter: the order the file has */
    uint64_t tie; /* breaks arrival ties */
    bool version; /* deduplicated rounds: the row the Deduplicate keeps as a version */
} Change;

typedef struct Probe {
    int id;
    int k; /* 0 = NULL */
    int amount;
    int time;
    int arrival;
    uint64_t tie;
} Probe;

typedef struct Round {
    Change changes[MAX_CHANGES];
    int change_count;
    Probe probes[MAX_PROBES];
    int probe_count;
    int delay; /* the watermark delay B, seconds */
    /* every third round: v is a view deduplicating an append-only history by rowtime
       (Flink's versioned view) instead of a debezium changelog */
    bool deduplicated;
    char directory[512];
} Round;

static void format_time(char *buffer, size_t size, int seconds)
{
    snprintf(buffer, size, "2024-01-01 %02d:%02d:%02d.000", seconds / 3600, (seconds / 60) % 60,
             seconds % 60);
}

static int compare_changes(const void *a, const void *b)
{
    const Change *x = a, *y = b;
    if (x->arrival != y->arrival)
        return x->arrival < y->arrival ? -1 : 1;
    return x->tie < y->tie ? -1 : x->tie > y->tie;
}

static int compare_probes(const void *a, const void *b)
{
    const Probe *x = a, *y = b;
    if (x->arrival != y->arrival)
        return x->arrival < y->arrival ? -1 : 1;
    return x->tie < y->tie ? -1 : x->tie > y->tie;
}

/*
 * An append-only history per key at random times (equal times too), arriving out of order
 * by a few seconds more than the watermark delay (the Deduplicate does not wait for the
 * watermark), and which rows become versions: in arrival order, a row whose time is not
 * before the kept one's replaces it (LastRow), and of the rows kept at one time the last is
 * the version (the temporal join keeps one per time).
 */
static void round_generate_history(Round *round, Random *random, int keys)
{
    for (int k = 1; k <= keys; k++) {
        int count = random_range(random, 0, MAX_CHANGES / MAX_KEYS);
        for (int i = 0; i < count; i++) {
            Change *change = &round->changes[round->change_count++];
            change->k = k;
            change->op = 'c';
            change->time = random_range(random, 0, 200);
            change->val = random_range(random, 0, 100);
        }
    }
    for (int i = 0; i < round->change_count; i++) {
        round->changes[i].arrival =
            round->changes[i].time + random_range(random, 0, round->delay - 1);
        round->changes[i].tie = random_next(random);
    }
    qsort(round->changes, (size_t)round->change_count, sizeof *round->changes, compare_changes);
    int kept_time[MAX_KEYS + 2];
    bool kept[MAX_KEYS + 2] = {false};
    for (int i = 0; i < round->change_count; i++) {
        Change *change = &round->changes[i];
        if (kept[change->k] && kept_time[change->k] > change->time)
            continue;
        kept[change->k] = true;
        kept_time[change->k] = change->time;
        for (int j = 0; j < i; j++)
            if (round->changes[j].k == change->k && round->changes[j].time == change->time)
                round->changes[j].version = false;
        change->version = true;
    }
}

static void round_generate(Round *round, Random *random, bool deduplicated)
{
    memset(round->changes, 0, sizeof round->changes);
    round->delay = random_range(random, 1, 5);
    round->deduplicated = deduplicated;
    int keys = random_range(random, 1, MAX_KEYS);
    round->change_count = 0;
    if (deduplicated)
        round_generate_history(round, random, keys);
    for (int k = 1; k <= keys && !deduplicated; k++) {
        int count = random_range(random, 0, MAX_CHANGES / MAX_KEYS);
        int time = random_range(random, 0, 20);
        bool exists = false;
        int val = 0, val_time = 0;
        for (int i = 0; i < count; i++) {
            Change *change = &round->changes[round->change_count++];
            change->k = k;
            change->time = time;
            if (!exists) {
                change->op = 'c';
            } else {
                change->op = random_percent(random, 70) ? 'u' : 'd';
            }
            change->old_val = val;
            change->old_time = val_time;
            change->val = random_range(random, 0, 100);
            if (change->op == 'd') {
                change->val = val;
                exists = false;
            } else {
                exists = true;
                val = change->val;
                val_time = time;
            }
            time += random_range(random, 1, 30); /* distinct times per key */
        }
    }
    for (int i = 0; i < round->change_count && !deduplicated; i++) {
        round->changes[i].arrival =
            round->changes[i].time + random_range(random, 0, round->delay - 1);
        round->changes[i].tie = random_next(random);
    }
    if (!deduplicated)
        qsort(round->changes, (size_t)round->change_count, sizeof *round->changes, compare_changes);
    round->probe_count = random_range(random, 5, MAX_PROBES);
    for (int i = 0; i < round->probe_count; i++) {
        Probe *probe = &round->probes[i];
        probe->id = i + 1;
        probe->k = random_percent(random, 5) ? 0 : random_range(random, 1, keys + 1);
        probe->amount = random_range(random, 0, 100);
        probe->time = random_range(random, 0, 420);
        probe->arrival = probe->time + random_range(random, 0, round->delay - 1);
        probe->tie = random_next(random);
    }
    qsort(round->probes, (size_t)round->probe_count, sizeof *round->probes, compare_probes);
}

static int round_write(const Round *round)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", round->directory,
             round->deduplicated ? "history.json" : "v.debezium.json");
    FILE *file = fopen(path, "w");
    if (!file)
        return -1;
    char time[32], old_time[32];
    for (int i = 0; i < round->change_count; i++) {
        const Change *c = &round->changes[i];
        format_time(time, sizeof time, c->time);
        format_time(old_time, sizeof old_time, c->old_time);
        if (round->deduplicated)
            fprintf(file, "{\"k\":%d,\"val\":%d,\"vt\":\"%s\"}\n", c->k, c->val, time);
        else if (c->op == 'c')
            fprintf(
                file,
                "{\"before\":null,\"after\":{\"k\":%d,\"val\":%d,\"vt\":\"%s\"},\"op\":\"c\"}\n",
                c->k, c->val, time);
        else if (c->op == 'u')
            fprintf(
                file,
                "{\"before\":{\"k\":%d,\"val\":%d,\"vt\":\"%s\"},\"after\":{\"k\":%d,\"val\":%d,"
                "\"vt\":\"%s\"},\"op\":\"u\"}\n",
                c->k, c->old_val, old_time, c->k, c->val, time);
        else
            fprintf(
                file,
                "{\"before\":{\"k\":%d,\"val\":%d,\"vt\":\"%s\"},\"after\":null,\"op\":\"d\"}\n",
                c->k, c->val, time);
    }
    fclose(file);
    snprintf(path, sizeof path, "%s/p.json", round->directory);
    file = fopen(path, "w");
    if (!file)
        return -1;
    for (int i = 0; i < round->probe_count; i++) {
        const Probe *p = &round->probes[i];
        format_time(time, sizeof time, p->time);
        if (p->k)
            fprintf(file, "{\"id\":%d,\"k\":%d,\"amount\":%d,\"pt\":\"%s\"}\n", p->id, p->k,
                    p->amount, time);
        else
            fprintf(file, "{\"id\":%d,\"k\":null,\"amount\":%d,\"pt\":\"%s\"}\n", p->id, p->amount,
                    time);
    }
    fclose(file);
    return 0;
}

static int round_load_sqlite(const Round *round, sqlite3 *database)
{
    Text sql = {0};
    text_printf(&sql, "CREATE TABLE vh (k INTEGER, val INTEGER, vt TEXT, op TEXT);"
                      "CREATE TABLE pr (id INTEGER, k INTEGER, amount INTEGER, pt TEXT);");
    char time[32];
    for (int i = 0; i < round->change_count; i++) {
        const Change *c = &round->changes[i];
        if (round->deduplicated && !c->version)
            continue;
        format_time(time, sizeof time, c->time);
        text_printf(&sql, "INSERT INTO vh VALUES (%d, %d, '%s', '%c');", c->k, c->val, time,
                    c->op == 'd' ? 'd' : 'c');
    }
    for (int i = 0; i < round->probe_count; i++) {
        const Probe *p = &round->probes[i];
        format_time(time, sizeof time, p->time);
        if (p->k)
            text_printf(&sql, "INSERT INTO pr VALUES (%d, %d, %d, '%s');", p->id, p->k, p->amount,
                        time);
        else
            text_printf(&sql, "INSERT INTO pr VALUES (%d, NULL, %d, '%s');", p->id, p->amount,
                        time);
    }
    char *message = NULL;
    int status = sqlite3_exec(database, sql.data, NULL, NULL, &message);
    if (status != SQLITE_OK)
        fprintf(stderr, "diff_temporal: sqlite: %s\n", message ? message : "?");
    sqlite3_free(message);
    text_free(&sql);
    return status == SQLITE_OK ? 0 : -1;
}

/* One query in both dialects. */
typedef struct Query {
    Text joinery;
    Text sqlite;
} Query;

static void query_generate(Query *query, int index)
{
    bool left = index % 2 == 1;
    int shape = index / 2; /* 0 plain, 1 residual, 2 probe-side condition */
    /* the same ON conditions in both: a LEFT join pads the probe rows they reject */
    const char *residual = shape == 1 ? " AND p.amount > v.val" : "";
    const char *probe_condition = shape == 2 ? " AND p.amount >= 30" : "";
    text_clear(&query->joinery);
    text_clear(&query->sqlite);
    text_printf(&query->joinery,
                "SELECT p.id, p.k, p.pt, v.val, v.vt FROM p %sJOIN v FOR SYSTEM_TIME AS OF p.pt "
                "ON p.k = v.k%s%s",
                left ? "LEFT " : "", residual, probe_condition);
    text_printf(&query->sqlite,
                "SELECT p.id, p.k, p.pt, v.val, v.vt FROM pr p %sJOIN vh v ON v.k = p.k AND "
                "v.op = 'c' AND v.vt = (SELECT MAX(h.vt) FROM vh h WHERE h.k = p.k AND h.vt <= "
                "p.pt)%s%s",
                left ? "LEFT " : "", residual, probe_condition);
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

static void usage(FILE *out)
{
    fprintf(out, "usage: diff_temporal [--rounds N] [--seed S] [--parallelism P] "
                 "[--only ROUND] [--verbose] [--keep] [--timeout S]\n");
}

static int parse_options(int argc, char **argv, Options *options)
{
    DiffOptions common = {
        .count = 60, .seed = 20240917, .parallelism = 1, .only = -1, .timeout_seconds = 30};
    const DiffOptionSpec spec = {
        .count_name = "--rounds", .minimum_count = 1, .minimum_timeout = 0, .usage = usage};
    if (diff_options_parse(&common, &spec, argc, argv) != 0)
        return -1;
    *options = (Options){.rounds = common.count,
                         .seed = common.seed,
                         .parallelism = common.parallelism,
                         .only = common.only,
                         .timeout_seconds = common.timeout_seconds,
                         .verbose = common.verbose,
                         .keep = common.keep};
    return 0;
}

/* Runs every query of one round; adds to *passed / *failed. */
static int round_run(Round *round, int index, const Options *options, int *passed, int *failed)
{
    if (round_write(round) != 0) {
        fprintf(stderr, "diff_temporal: cannot write into %s\n", round->directory);
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
                "CREATE TABLE p (id INT, k INT, amount INT, pt TIMESTAMP(3), WATERMARK FOR pt AS "
                "pt - INTERVAL '%d' SECOND) WITH ('connector' = 'filesystem', 'path' = "
                "'%s/p.json', 'format' = 'json');\n",
                round->deduplicated ? 1 : options->parallelism, round->delay, round->directory);
    if (round->deduplicated)
        text_printf(&setup,
                    "CREATE TABLE history (k INT, val INT, vt TIMESTAMP(3), WATERMARK FOR vt AS vt "
                    "- INTERVAL '%d' SECOND) WITH ('connector' = 'filesystem', 'path' = "
                    "'%s/history.json', 'format' = 'json');\n"
                    "CREATE VIEW v AS SELECT k, val, vt FROM (SELECT *, ROW_NUMBER() OVER "
                    "(PARTITION BY k ORDER BY vt DESC) AS rn FROM history) WHERE rn = 1;\n",
                    round->delay, round->directory);
    else
        text_printf(&setup,
                    "CREATE TABLE v (k INT, val INT, vt TIMESTAMP(3), WATERMARK FOR vt AS vt - "
                    "INTERVAL '%d' SECOND, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = "
                    "'filesystem', 'path' = '%s/v.debezium.json', 'format' = 'debezium-json');\n",
                    round->delay, round->directory);
    int status = 0;
    for (char *statement = setup.data; statement && *statement && status == 0;) {
        char *end = strchr(statement, '\n');
        *end = '\0';
        JoineryError error;
        if (session_run(session, statement, NULL, options->timeout_seconds, &error) != 0) {
            fprintf(stderr, "diff_temporal: setup failed: %s\n  %s\n", error.message, statement);
            status = -1;
        }
        *end = '\n';
        statement = end + 1;
    }
    Query query = {0};
    for (int q = 0; q < QUERIES_PER_ROUND && status == 0; q++) {
        query_generate(&query, q);
        RowList expected = {0}, actual = {0};
        Text error = {0};
        Collector collector;
        collector_init(&collector);
        JoineryError engine_error;
        bool ok = sqlite_rows(database, query.sqlite.data, &expected, &error) == 0;
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
                printf("round %d query %d: ok (%zu rows)\n", index, q, expected.count);
        } else {
            (*failed)++;
            printf("FAIL round %d query %d (seed %llu, delay %d s): %s\n  joinery: %s\n  sqlite: "
                   "%s\n  data: %s\n",
                   index, q, (unsigned long long)options->seed, round->delay,
                   error.data ? error.data : "", query.joinery.data, query.sqlite.data,
                   round->directory);
            row_lists_print_difference("expected, missing", &expected, &actual);
            row_lists_print_difference("unexpected", &actual, &expected);
        }
        row_list_free(&expected);
        row_list_free(&actual);
        text_free(&error);
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
    char base[] = "/tmp/joinery-diff-temporal-XXXXXX";
    if (!mkdtemp(base)) {
        fprintf(stderr, "diff_temporal: mkdtemp: %s\n", strerror(errno));
        return 2;
    }
    printf("diff_temporal: seed %llu, %d rounds of %d queries, parallelism %d, data in %s\n",
           (unsigned long long)options.seed, options.rounds, QUERIES_PER_ROUND, options.parallelism,
           base);
    int passed = 0, failed = 0;
    static Round round;
    for (int r = 0; r < options.rounds; r++) {
        Random random = {options.seed * 1000003u + (uint64_t)r};
        round_generate(&round, &random, r % 3 == 2);
        if (options.only >= 0 && r != options.only)
            continue;
        snprintf(round.directory, sizeof round.directory, "%s/round-%03d", base, r);
        if (mkdir(round.directory, 0700) != 0) {
            fprintf(stderr, "diff_temporal: mkdir %s: %s\n", round.directory, strerror(errno));
            return 2;
        }
        int failed_before = failed;
        if (round_run(&round, r, &options, &passed, &failed) != 0)
            return 2;
        if (failed == failed_before && !options.keep)
            nftw(round.directory, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
    }
    if (failed == 0 && !options.keep)
        nftw(base, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
