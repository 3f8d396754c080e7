/*
 * diff_interval.c - differential test of joinery's interval joins against
 * SQLite.
 *
 * Each case writes two random tables l and r (k INT, v INT, rt
 * TIMESTAMP(3)) as JSON-lines files, each declared with
 * `WATERMARK FOR rt AS rt - INTERVAL 'D' SECOND` and written in an order
 * whose out-of-orderness stays below D (every row is later than its own
 * input's watermark, hence later than the join's merged watermark: no row
 * is late), and loads the same rows into SQLite with the time as integer
 * milliseconds. It then generates an INNER / LEFT / RIGHT / FULL join of l
 * and r with random bounds written in one of Flink's forms (BETWEEN on
 * either side, strict or inclusive comparisons with the operands either
 * way round, equal times, fractional seconds, now and then an empty
 * window), usually an equi key, sometimes a residual condition, and
 * checks that:
 *  - EXPLAIN plans an IntervalJoin (the case tests what it means to);
 *  - once the input ends (the final watermark frees every row), the
 *    materialised changelog (all +I: an interval join never retracts)
 *    equals SQLite's batch join with the same time predicate in
 *    milliseconds.
 * Late cases (--late, parallelism 1): one input ends with a block of rows
 * far behind its watermark (after at least one full batch, so after the
 * watermark has passed them); they can match nothing, so the result is
 * still SQLite's, and SHOW JOB METRICS must count exactly that many late
 * rows for that input and none for the other.
 *
 * Everything is a function of the seed (case i of seed s is always the
 * same); no assertion depends on wall-clock time (a hang guard cancels a
 * statement after --timeout seconds). The last line printed is
 * "N passed, N failed"; the exit status is non-zero when a case failed.
 *
 * Usage: diff_interval [--cases N] [--seed S] [--parallelism P] [--only I]
 *                      [--late N] [--timeout SECONDS] [--keep] [--verbose]
 */
#include <errno.h>
#include <ftw.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <time.h>

#define DIFF_TOOL_NAME "diff_interval"
#include "tests/diff/diff_support.h"

enum {
    MAX_ROWS = 2200,
    LATE_BLOCK = 500,  /* rows behind the watermark in a late case */
    LATE_AHEAD = 1500, /* rows before them: more than a batch (1024) */
    MAX_FAILURES_SHOWN = 10,
};

static const int64_t BASE_MILLIS = 1717200000000LL; /* 2024-06-01 00:00:00 UTC */

typedef struct Cell {
    bool null;
    int64_t value;
} Cell;

typedef struct Table {
    const char *name; /* "l" or "r" */
    int count;
    Cell k[MAX_ROWS], v[MAX_ROWS], rt[MAX_ROWS]; /* rt in ms since the epoch */
    int64_t delay_millis;                        /* the watermark's delay */
} Table;

typedef struct Options {
    int cases;
    int late_cases;
    uint64_t seed;
    int parallelism;
    int only;
    int timeout_seconds;
    bool keep;
    bool verbose;
} Options;

/* ---------------------------------------------------------------- data */

static void format_time(int64_t millis, char *out, size_t size)
{
    time_t seconds = (time_t)(millis / 1000);
    struct tm tm;
    gmtime_r(&seconds, &tm);
    size_t length = strftime(out, size, "%Y-%m-%d %H:%M:%S", &tm);
    snprintf(out + length, size - length, ".%03d", (int)(millis % 1000));
}

/*
 * Rows of a table: times from a clock that moves 0..step ms a row, each
 * taken up to delay - 1 ms back (so never behind max - delay: never late);
 * a quarter of the tables keep to whole half-seconds (taken up to delay -
 * 500 ms back there).
 */
static void table_generate(Table *table, const char *name, Random *random, int count)
{
    table->name = name;
    table->count = count;
    static const int64_t delays[] = {500, 1000, 2000, 3000};
    table->delay_millis = delays[random_below(random, 4)];
    int step = random_range(random, 50, 1500);
    /* coarse tables: times on whole half-seconds, so that equal times and times on the
       bounds occur */
    int64_t grain = random_percent(random, 25) ? 500 : 1;
    int64_t clock = BASE_MILLIS + random_below(random, 3000) / grain * grain;
    for (int i = 0; i < count; i++) {
        clock += random_below(random, step + 1) / grain * grain;
        int64_t jitter = random_percent(random, 30)
                             ? random_below(random, (int)(table->delay_millis / grain)) * grain
                             : 0;
        table->rt[i] = (Cell){random_percent(random, 3), clock - jitter};
        table->k[i] = (Cell){random_percent(random, 8), random_range(random, 1, 4)};
        table->v[i] = (Cell){random_percent(random, 5), random_range(random, 0, 9)};
    }
}

static int table_write(const Table *table, const char *directory)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s.json", directory, table->name);
    FILE *file = fopen(path, "w");
    if (!file)
        return -1;
    for (int i = 0; i < table->count; i++) {
        char when[40];
        format_time(table->rt[i].value, when, sizeof when);
        fprintf(file, "{\"k\":");
        if (table->k[i].null)
            fprintf(file, "null");
        else
            fprintf(file, "%lld", (long long)table->k[i].value);
        fprintf(file, ",\"v\":");
        if (table->v[i].null)
            fprintf(file, "null");
        else
            fprintf(file, "%lld", (long long)table->v[i].value);
        if (table->rt[i].null)
            fprintf(file, ",\"rt\":null}\n");
        else
            fprintf(file, ",\"rt\":\"%s\"}\n", when);
    }
    return fclose(file) == 0 ? 0 : -1;
}

static int table_load(const Table *table, sqlite3 *database)
{
    char sql[256];
    snprintf(sql, sizeof sql, "CREATE TABLE %s (k INTEGER, v INTEGER, ms INTEGER, rt TEXT)",
             table->name);
    if (sqlite3_exec(database, sql, NULL, NULL, NULL) != SQLITE_OK)
        return -1;
    snprintf(sql, sizeof sql, "INSERT INTO %s VALUES (?, ?, ?, ?)", table->name);
    sqlite3_stmt *insert = NULL;
    if (sqlite3_prepare_v2(database, sql, -1, &insert, NULL) != SQLITE_OK)
        return -1;
    for (int i = 0; i < table->count; i++) {
        const Cell *cells[3] = {&table->k[i], &table->v[i], &table->rt[i]};
        for (int c = 0; c < 3; c++) {
            if (cells[c]->null)
                sqlite3_bind_null(insert, c + 1);
            else
                sqlite3_bind_int64(insert, c + 1, cells[c]->value);
        }
        char when[40];
        format_time(table->rt[i].value, when, sizeof when);
        if (table->rt[i].null)
            sqlite3_bind_null(insert, 4);
        else
            sqlite3_bind_text(insert, 4, when, -1, SQLITE_TRANSIENT);
        if (sqlite3_step(insert) != SQLITE_DONE) {
            sqlite3_finalize(insert);
            return -1;
        }
        sqlite3_reset(insert);
    }
    sqlite3_finalize(insert);
    return 0;
}

/* "INTERVAL '1.250' SECOND" for 1250 ms (whole seconds without a fraction). */
static void interval_text(int64_t millis, char *out, size_t size)
{
    if (millis % 1000 == 0)
        snprintf(out, size, "INTERVAL '%lld' SECOND", (long long)(millis / 1000));
    else
        snprintf(out, size, "INTERVAL '%lld.%03lld' SECOND", (long long)(millis / 1000),
                 (long long)(millis % 1000));
}

/* `time + offset` for joinery (an interval added or subtracted) and SQLite (ms). */
static void offset_texts(const char *column, const char *ms_column, int64_t offset, Text *flink,
                         Text *sqlite)
{
    char interval[64];
    interval_text(offset < 0 ? -offset : offset, interval, sizeof interval);
    if (offset == 0)
        text_printf(flink, "%s", column);
    else
        text_printf(flink, "%s %c %s", column, offset < 0 ? '-' : '+', interval);
    text_printf(sqlite, "%s %c %lld", ms_column, offset < 0 ? '-' : '+',
                (long long)(offset < 0 ? -offset : offset));
}

/* ---------------------------------------------------------------- queries */

typedef struct Query {
    Text flink;
    Text sqlite;
    const char *join;
} Query;

static const char *const JOIN_KEYWORDS[] = {"JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL OUTER JOIN"};

/* A random interval join of l and r: joinery's text and SQLite's. */
static void query_generate(Query *query, Random *random, bool allow_no_key)
{
    query->join = JOIN_KEYWORDS[random_below(random, 4)];
    int64_t a = random_range(random, -4000, 3000);
    int64_t b = a + random_range(random, 0, 5000);
    if (random_percent(random, 5)) { /* an empty window */
        int64_t swap = a;
        a = b + 1;
        b = swap;
    }
    if (random_percent(random, 40)) { /* whole seconds: rows on the bounds */
        a = a / 1000 * 1000;
        b = b / 1000 * 1000;
    }
    bool key = !allow_no_key || random_percent(random, 85);
    Text *f = &query->flink, *s = &query->sqlite;
    text_printf(f, "SELECT l.k, l.v, l.rt, r.k, r.v, r.rt FROM l %s r ON ", query->join);
    text_printf(s, "SELECT l.k, l.v, l.rt, r.k, r.v, r.rt FROM l %s r ON ", query->join);
    if (key) {
        text_printf(f, "l.k = r.k AND ");
        text_printf(s, "l.k = r.k AND ");
    }
    /* l - r within [a, b], written one of Flink's ways */
    switch (random_below(random, 6)) {
    case 0: /* l BETWEEN r + a AND r + b */
        text_printf(f, "l.rt BETWEEN ");
        text_printf(s, "l.ms BETWEEN ");
        offset_texts("r.rt", "r.ms", a, f, s);
        text_printf(f, " AND ");
        text_printf(s, " AND ");
        offset_texts("r.rt", "r.ms", b, f, s);
        break;
    case 1: /* r BETWEEN l - b AND l - a */
        text_printf(f, "r.rt BETWEEN ");
        text_printf(s, "r.ms BETWEEN ");
        offset_texts("l.rt", "l.ms", -b, f, s);
        text_printf(f, " AND ");
        text_printf(s, " AND ");
        offset_texts("l.rt", "l.ms", -a, f, s);
        break;
    case 2: /* strict: l > r + (a - 1) AND l < r + (b + 1) */
        text_printf(f, "l.rt > ");
        text_printf(s, "l.ms > ");
        offset_texts("r.rt", "r.ms", a - 1, f, s);
        text_printf(f, " AND l.rt < ");
        text_printf(s, " AND l.ms < ");
        offset_texts("r.rt", "r.ms", b + 1, f, s);
        break;
    case 3: /* operands the other way round: r + a <= l AND r + b >= l */
        offset_texts("r.rt", "r.ms", a, f, s);
        text_printf(f, " <= l.rt AND ");
        text_printf(s, " <= l.ms AND ");
        offset_texts("r.rt", "r.ms", b, f, s);
        text_printf(f, " >= l.rt");
        text_printf(s, " >= l.ms");
        break;
    case 4: /* from the right: r >= l - b AND r < l - a + 1 */
        text_printf(f, "r.rt >= ");
        text_printf(s, "r.ms >= ");
        offset_texts("l.rt", "l.ms", -b, f, s);
        text_printf(f, " AND r.rt < ");
        text_printf(s, " AND r.ms < ");
        offset_texts("l.rt", "l.ms", -a + 1, f, s);
        break;
    default: /* equal times */
        text_printf(f, "l.rt = r.rt");
        text_printf(s, "l.ms = r.ms");
        break;
    }
    switch (random_below(random, 8)) {
    case 0:
        text_printf(f, " AND l.v > r.v");
        text_printf(s, " AND l.v > r.v");
        break;
    case 1:
        text_printf(f, " AND l.v <> r.v");
        text_printf(s, " AND l.v <> r.v");
        break;
    case 2:
        text_printf(f, " AND (l.v < 5 OR r.v > 6)");
        text_printf(s, " AND (l.v < 5 OR r.v > 6)");
        break;
    default:
        break;
    }
}

/* ---------------------------------------------------------------- running */

typedef struct Case {
    char directory[512];
    Table *left, *right;
    sqlite3 *database;
    JoinerySession *session;
    Text setup;
} Case;

static int run_text(JoinerySession *session, const char *sql, int timeout, Text *out,
                    JoineryError *error);

static int text_collect(void *context, const char *text)
{
    text_printf((Text *)context, "%s", text);
    return 0;
}

/* Runs a statement whose output is text (EXPLAIN, SHOW JOB METRICS) into `out`. */
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

static int case_open(Case *c, const char *base, int index, const Options *options)
{
    snprintf(c->directory, sizeof c->directory, "%s/case-%04d", base, index);
    if (mkdir(c->directory, 0700) != 0 && errno != EEXIST)
        return -1;
    if (table_write(c->left, c->directory) != 0 || table_write(c->right, c->directory) != 0)
        return -1;
    if (sqlite3_open(":memory:", &c->database) != SQLITE_OK)
        return -1;
    if (table_load(c->left, c->database) != 0 || table_load(c->right, c->database) != 0)
        return -1;
    text_printf(&c->setup, "SET 'parallelism.default' = '%d';\n", options->parallelism);
    const Table *tables[2] = {c->left, c->right};
    for (int t = 0; t < 2; t++) {
        char delay[64];
        interval_text(tables[t]->delay_millis, delay, sizeof delay);
        text_printf(&c->setup,
                    "CREATE TABLE %s (k INT, v INT, rt TIMESTAMP(3), WATERMARK FOR rt AS rt - %s) "
                    "WITH ('connector' = 'filesystem', 'path' = '%s/%s.json', 'format' = "
                    "'json');\n",
                    tables[t]->name, delay, c->directory, tables[t]->name);
    }
    c->session = joinery_session_open();
    if (!c->session)
        return -1;
    const char *cursor = c->setup.data;
    while (*cursor) {
        const char *end = strchr(cursor, '\n');
        size_t length = end ? (size_t)(end - cursor) : strlen(cursor);
        char *statement = strndup(cursor, length);
        JoineryError error;
        int status =
            statement ? session_run(c->session, statement, NULL, options->timeout_seconds, &error)
                      : -1;
        if (status != 0) {
            fprintf(stderr, "diff_interval: setup failed: %s\n  %s\n",
                    statement ? statement : "(no memory)", error.message);
            free(statement);
            return -1;
        }
        free(statement);
        cursor += length + (end ? 1 : 0);
    }
    return 0;
}

static void case_close(Case *c)
{
    if (c->session)
        joinery_session_close(c->session);
    if (c->database)
        sqlite3_close(c->database);
    text_free(&c->setup);
    c->session = NULL;
    c->database = NULL;
}

static int sqlite_rows(sqlite3 *database, const char *sql, RowList *rows, Text *error)
{
    sqlite3_stmt *statement = NULL;
    if (sqlite3_prepare_v2(database, sql, -1, &statement, NULL) != SQLITE_OK) {
        text_printf(error, "sqlite: %s", sqlite3_errmsg(database));
        return -1;
    }
    Text row = {0};
    int columns = sqlite3_column_count(statement);
    while (sqlite3_step(statement) == SQLITE_ROW) {
        text_clear(&row);
        text_append(&row, "", 0);
        for (int i = 0; i < columns; i++) {
            if (i)
                text_append(&row, (const char[]){ROW_SEPARATOR}, 1);
            const unsigned char *value = sqlite3_column_text(statement, i);
            if (sqlite3_column_type(statement, i) == SQLITE_NULL || !value)
                text_append(&row, NULL_MARK, 1);
            else
                text_append(&row, (const char *)value, strlen((const char *)value));
        }
        row_list_push(rows, row.data);
    }
    text_free(&row);
    sqlite3_finalize(statement);
    row_list_sort(rows);
    return 0;
}

/* The late rows SHOW JOB METRICS gives for the interval join's input `label`; -1 if none. */
static long late_rows_of(const char *metrics, const char *label)
{
    const char *line = strstr(metrics, label);
    if (!line)
        return -1;
    const char *end = strchr(line, '\n');
    const char *mark = strstr(line, " late rows");
    if (!mark || (end && mark > end))
        return -1;
    const char *digits = mark;
    while (digits > line && digits[-1] >= '0' && digits[-1] <= '9')
        digits--;
    return strtol(digits, NULL, 10);
}

typedef struct Totals {
    int passed, failed, shown;
} Totals;

static void case_fail(Totals *totals, int index, const char *reason, const Query *query,
                      const RowList *expected, const RowList *actual)
{
    totals->failed++;
    if (totals->shown++ >= MAX_FAILURES_SHOWN)
        return;
    printf("case %d FAILED: %s\n  joinery: %s\n  sqlite:  %s\n", index, reason, query->flink.data,
           query->sqlite.data);
    if (expected && actual) {
        row_lists_print_difference("missing from joinery", expected, actual);
        row_lists_print_difference("unexpected in joinery", actual, expected);
    }
}

/*
 * Runs one case: EXPLAIN must plan an IntervalJoin, the final changelog must be SQLite's
 * rows; with expect_late >= 0 also the late rows of input `late_side` (0 left, 1 right).
 */
static void case_run(Case *c, int index, const Query *query, const Options *options, Totals *totals,
                     long expect_late, int late_side)
{
    JoineryError error;
    Text explain = {0};
    text_printf(&explain, "EXPLAIN %s", query->flink.data);
    Text plan = {0};
    int status = run_text(c->session, explain.data, options->timeout_seconds, &plan, &error);
    text_free(&explain);
    if (status != 0 || !plan.data || !strstr(plan.data, "IntervalJoin(joinType=")) {
        case_fail(totals, index, status ? error.message : "EXPLAIN shows no IntervalJoin", query,
                  NULL, NULL);
        if (options->verbose && plan.data)
            printf("%s\n", plan.data);
        text_free(&plan);
        return;
    }
    text_free(&plan);
    Collector collector;
    collector_init(&collector);
    status =
        session_run(c->session, query->flink.data, &collector, options->timeout_seconds, &error);
    RowList expected = {0}, actual = {0};
    Text sqlite_error = {0};
    if (status != 0) {
        case_fail(totals, index, error.message, query, NULL, NULL);
    } else if (collector.failure.length) {
        case_fail(totals, index, collector.failure.data, query, NULL, NULL);
    } else if (sqlite_rows(c->database, query->sqlite.data, &expected, &sqlite_error) != 0) {
        case_fail(totals, index, sqlite_error.data, query, NULL, NULL);
    } else {
        multiset_to_list(&collector.rows, &actual);
        if (!row_lists_equal(&expected, &actual)) {
            case_fail(totals, index, "the final result differs from SQLite's", query, &expected,
                      &actual);
        } else if (collector.changelog_rows != actual.count) {
            case_fail(totals, index, "the changelog has rows other than +I", query, NULL, NULL);
        } else if (expect_late >= 0) {
            Text metrics = {0};
            if (run_text(c->session, "SHOW JOB METRICS", options->timeout_seconds, &metrics,
                         &error) != 0 ||
                !metrics.data) {
                case_fail(totals, index, "SHOW JOB METRICS failed", query, NULL, NULL);
            } else {
                long late[2] = {late_rows_of(metrics.data, "  left input"),
                                late_rows_of(metrics.data, "  right input")};
                long want[2] = {late_side == 0 ? expect_late : 0, late_side == 1 ? expect_late : 0};
                if (late[0] != want[0] || late[1] != want[1]) {
                    char reason[160];
                    snprintf(reason, sizeof reason,
                             "late rows %ld (left) and %ld (right), expected %ld and %ld", late[0],
                             late[1], want[0], want[1]);
                    case_fail(totals, index, reason, query, NULL, NULL);
                    if (options->verbose)
                        printf("%s\n", metrics.data);
                } else {
                    totals->passed++;
                }
            }
            text_free(&metrics);
        } else {
            totals->passed++;
        }
        if (options->verbose)
            printf("case %d: %zu rows: %s\n", index, actual.count, query->flink.data);
    }
    row_list_free(&expected);
    row_list_free(&actual);
    text_free(&sqlite_error);
    collector_free(&collector);
}

/*
 * A late case: `late` (the side given) gets LATE_AHEAD ordered rows, then LATE_BLOCK rows
 * 100 s before the first of them; the other side's rows follow the ordered ones, so nothing
 * but the block is behind the watermark and the block can match nothing.
 */
static void late_tables(Table *late, Table *other, Random *random)
{
    late->count = LATE_AHEAD + LATE_BLOCK;
    late->delay_millis = 1000;
    for (int i = 0; i < LATE_AHEAD; i++) {
        late->rt[i] = (Cell){false, BASE_MILLIS + (int64_t)i * 1000};
        late->k[i] = (Cell){false, random_range(random, 1, 4)};
        late->v[i] = (Cell){false, random_range(random, 0, 9)};
    }
    for (int i = LATE_AHEAD; i < late->count; i++) {
        late->rt[i] = (Cell){false, BASE_MILLIS - 100000 + random_below(random, 50000)};
        late->k[i] = (Cell){false, random_range(random, 1, 4)};
        late->v[i] = (Cell){false, random_range(random, 0, 9)};
    }
    other->count = 100;
    other->delay_millis = 1000;
    int64_t start = BASE_MILLIS + (int64_t)(LATE_AHEAD - 6) * 1000;
    for (int i = 0; i < other->count; i++) {
        other->rt[i] = (Cell){false, start + (int64_t)i * 97};
        other->k[i] = (Cell){false, random_range(random, 1, 4)};
        other->v[i] = (Cell){false, random_range(random, 0, 9)};
    }
}

static int remove_entry(const char *path, const struct stat *status, int flag, struct FTW *ftw)
{
    (void)status;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static uint64_t seed_mix(uint64_t seed, uint64_t a)
{
    Random random = {seed ^ (a * 0xD1B54A32D192ED03ull)};
    return random_next(&random);
}

static void usage(FILE *out)
{
    fprintf(out, "usage: diff_interval [--cases N] [--seed S] [--parallelism P] [--only I] "
                 "[--late N] [--timeout SECONDS] [--keep] [--verbose]\n");
}

static int options_parse(Options *options, int argc, char **argv)
{
    *options = (Options){300, 4, 20240601, 1, -1, 30, false, false};
    DiffOptions common = {.count = options->cases,
                          .seed = options->seed,
                          .parallelism = options->parallelism,
                          .only = options->only,
                          .timeout_seconds = options->timeout_seconds};
    const DiffExtraOption extras[] = {{.name = "--late", .integer = &options->late_cases}};
    const DiffOptionSpec spec = {.count_name = "--cases",
                                 .minimum_count = 0,
                                 .minimum_timeout = 0,
                                 .usage = usage,
                                 .extras = extras,
                                 .extra_count = 1};
    if (diff_options_parse(&common, &spec, argc, argv) != 0)
        return -1;
    options->cases = common.count;
    options->seed = common.seed;
    options->parallelism = common.parallelism;
    options->only = common.only;
    options->timeout_seconds = common.timeout_seconds;
    options->keep = common.keep;
    options->verbose = common.verbose;
    if (options->late_cases < 0) {
        usage(stderr);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    Options options;
    if (options_parse(&options, argc, argv) != 0)
        return 2;
    signals_install();
    char base[] = "/tmp/joinery-diff-interval-XXXXXX";
    if (!mkdtemp(base)) {
        fprintf(stderr, "diff_interval: mkdtemp: %s\n", strerror(errno));
        return 2;
    }
    Table *tables = calloc(2, sizeof *tables);
    if (!tables)
        return 2;
    Totals totals = {0, 0, 0};
    /* late cases need the batch order of one task: parallelism 1 only */
    int late_cases = options.parallelism == 1 ? options.late_cases : 0;
    for (int index = 0; index < options.cases + late_cases; index++) {
        if (options.only >= 0 && index != options.only)
            continue;
        Random random = {seed_mix(options.seed, (uint64_t)index + 1)};
        bool late = index >= options.cases;
        int late_side = random_below(&random, 2);
        if (late) {
            tables[0].name = "l";
            tables[1].name = "r";
            late_tables(&tables[late_side], &tables[1 - late_side], &random);
        } else {
            int big = random_percent(&random, 10);
            table_generate(&tables[0], "l", &random, random_range(&random, 0, big ? 400 : 60));
            table_generate(&tables[1], "r", &random, random_range(&random, 0, big ? 400 : 60));
        }
        Query query = {{0}, {0}, NULL};
        query_generate(&query, &random, !late);
        if (late) {
            /* bounds that the block can never reach: rewrite as a plain 5 s window */
            text_clear(&query.flink);
            text_clear(&query.sqlite);
            query.join = JOIN_KEYWORDS[random_below(&random, 4)];
            text_printf(&query.flink,
                        "SELECT l.k, l.v, l.rt, r.k, r.v, r.rt FROM l %s r ON l.k = r.k AND "
                        "l.rt BETWEEN r.rt - INTERVAL '5' SECOND AND r.rt + INTERVAL '2.5' "
                        "SECOND",
                        query.join);
            text_printf(&query.sqlite,
                        "SELECT l.k, l.v, l.rt, r.k, r.v, r.rt FROM l %s r ON l.k = r.k AND "
                        "l.ms BETWEEN r.ms - 5000 AND r.ms + 2500",
                        query.join);
        }
        Case c;
        memset(&c, 0, sizeof c);
        c.left = &tables[0];
        c.right = &tables[1];
        if (case_open(&c, base, index, &options) != 0) {
            fprintf(stderr, "diff_interval: case %d could not be set up\n", index);
            totals.failed++;
        } else {
            case_run(&c, index, &query, &options, &totals, late ? LATE_BLOCK : -1, late_side);
        }
        case_close(&c);
        text_free(&query.flink);
        text_free(&query.sqlite);
    }
    free(tables);
    if (!options.keep && totals.failed == 0)
        nftw(base, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    else
        printf("data kept in %s\n", base);
    printf("%d passed, %d failed\n", totals.passed, totals.failed);
    return totals.failed == 0 ? 0 : 1;
}
