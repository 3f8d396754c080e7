/*
 * diff_window.c - differential test of joinery's window joins against
 * SQLite.
 *
 * Each case writes two random tables l and r (k INT, v INT, ts
 * TIMESTAMP(3)) as JSON-lines files: rows in time order with bounded
 * out-of-orderness (each row's time is its place in the sequence plus a
 * jitter below the watermark delay, so no row is late), a small key domain
 * and some NULLs. It declares them in a fresh joinery session with
 * `WATERMARK FOR ts AS ts - INTERVAL 'D' SECOND` and runs one window join
 * of a random window (TUMBLE, HOP or CUMULATE, random sizes, sometimes an
 * offset) and a random join type (INNER, LEFT, RIGHT, FULL), ON the key
 * (sometimes none) and both window bounds, sometimes with a residual
 * condition. Once the input ends (the final watermark) the changelog,
 * applied to a multiset (append-only: a retraction is a failure), must
 * equal SQLite's join of the same rows on window bounds SQLite computes
 * itself: from the time's remainder on the window grid, independently of
 * engine/exec/window/window_assigner.c. A fifth of the cases run the
 * SESSION window table function over l instead, against sessions SQLite
 * finds as islands of each key's times (a new one after a step beyond
 * the gap). A quarter of the others run a window aggregation over l instead
 * (GROUP BY [k,] window_start, window_end with COUNT(*), SUM, MIN, MAX,
 * COUNT, AVG (integer: SQLite's SUM / COUNT, both truncating toward zero),
 * COUNT(DISTINCT) and SUM(DISTINCT) of v), against SQLite's GROUP BY of the
 * same windowed rows; the distinct values go with their window (no state
 * rows at the end).
 *
 * Late rows: in a quarter of the cases at parallelism 1, rows an hour
 * older than the others are appended after the first two batches of a
 * table (2 x SOURCE_BATCH_ROWS rows, each batch followed by its
 * watermark), so their windows have fired when they arrive: Flink drops
 * them. SQLite's side leaves them out, and SHOW JOB METRICS must count
 * exactly their windowed rows as leftNumLateRecordsDropped /
 * rightNumLateRecordsDropped. In every case the WindowJoin must hold no
 * state rows at the end (state per window released).
 *
 * Everything is a function of the seed (--only N reruns case N). The last
 * line is "N passed, N failed"; the exit status is non-zero when any case
 * failed.
 *
 * With --aggregates every case is a window aggregation (no SESSION, no join).
 *
 * Usage: diff_window [--cases N] [--seed S] [--parallelism P] [--only N]
 *                    [--timeout SECONDS] [--keep] [--verbose] [--aggregates]
 */
#include <errno.h>
#include <ftw.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <time.h>

#define DIFF_TOOL_NAME "diff_window"
#include "tests/diff/diff_support.h"

enum {
    /* ROW_BATCH_CAPACITY (engine/base/row_batch.h, which clashes with diff_support.h's names):
       a source's rows per batch, after each of which its watermark goes out */
    SOURCE_BATCH_ROWS = 1024,
    MAX_ROWS = 3200,
    MAX_LATE_ROWS = 12,
    MAX_EXPECTED_ROWS = 40000, /* cases with larger answers are regenerated */
    MAX_DETAILED_FAILURES = 5,
};

static const int64_t BASE_MILLIS = INT64_C(1704067200000); /* 2024-01-01 00:00:00 UTC */

typedef enum WindowKindChoice { CHOICE_TUMBLE, CHOICE_HOP, CHOICE_CUMULATE } WindowKindChoice;

typedef struct DataRow {
    int k, v;   /* INT_MIN: NULL */
    int64_t ts; /* epoch ms */
    bool late;  /* appended behind the watermark */
} DataRow;

typedef struct Side {
    DataRow rows[MAX_ROWS + MAX_LATE_ROWS];
    int count;
    int late_count;
} Side;

typedef struct Case {
    int number;
    WindowKindChoice kind;
    int64_t size, slide, step, offset; /* ms; slide for HOP, step for CUMULATE */
    bool has_offset;
    int delay_seconds; /* the watermark delay */
    const char *join;  /* "JOIN", "LEFT JOIN", ... */
    bool keyed;
    const char *residual_flink, *residual_sqlite; /* NULL: none */
    Side left, right;
    bool with_late;
    /* a SESSION window table function over l alone instead of a join */
    bool session;
    bool partitioned;
    int64_t gap;
    /* a window aggregation over l alone instead of a join */
    bool aggregate;
} Case;

typedef struct Options {
    int cases;
    uint64_t seed;
    int parallelism;
    int only;
    int timeout_seconds;
    bool keep;
    bool verbose;
    bool aggregates_only; /* --aggregates: every case a window aggregation */
} Options;

typedef struct Totals {
    int passed, failed, skipped, detailed;
} Totals;

/* ------------------------------------------------------------ generation */

static int64_t pick(Random *random, const int64_t *values, int count)
{
    return values[random_below(random, count)];
}

/*
 * Row i at i x gap plus a jitter below `jitter`, all on a grid of `quantum` ms (1: any time;
 * SESSION cases use 250 ms, so that times a gap apart, whose sessions touch, are common).
 */
static void side_generate(Side *side, Random *random, int count, int64_t gap, int64_t jitter,
                          int64_t quantum)
{
    side->count = count;
    side->late_count = 0;
    for (int i = 0; i < count; i++) {
        DataRow *row = &side->rows[i];
        row->k = random_percent(random, 5) ? INT32_MIN : random_range(random, 1, 6);
        row->v = random_percent(random, 5) ? INT32_MIN : random_range(random, 0, 20);
        int64_t shift = jitter / quantum ? random_below(random, (int)(jitter / quantum)) : 0;
        row->ts = BASE_MILLIS + (int64_t)i * gap + shift * quantum;
        row->late = false;
    }
}

/* Rows an hour behind, after the first two batches (their windows have long fired). */
static void side_add_late(Side *side, Random *random)
{
    if (side->count < 2 * SOURCE_BATCH_ROWS + 1)
        return;
    int late = random_range(random, 1, MAX_LATE_ROWS);
    for (int i = 0; i < late; i++) {
        DataRow *row = &side->rows[side->count++];
        row->k = random_range(random, 1, 6);
        row->v = random_range(random, 0, 20);
        row->ts = BASE_MILLIS - 3600000 + random_below(random, 600000);
        row->late = true;
        side->late_count++;
    }
}

static void case_generate(Case *c, int number, const Options *options)
{
    Random random = {options->seed * 0x9E3779B97F4A7C15ull + (uint64_t)number * 7919u + 1};
    memset(c, 0, sizeof *c);
    c->number = number;
    c->kind = (WindowKindChoice)random_below(&random, 3);
    static const int64_t seconds[] = {1000, 2000, 5000, 10000, 30000};
    switch (c->kind) {
    case CHOICE_TUMBLE:
        c->size = pick(&random, seconds, 5);
        break;
    case CHOICE_HOP:
        c->slide = pick(&random, seconds, 3);
        /* a multiple of the slide, or not (Flink allows both) */
        c->size = c->slide * random_range(&random, 1, 4) + (random_percent(&random, 25) ? 1000 : 0);
        break;
    case CHOICE_CUMULATE:
        c->step = pick(&random, seconds, 3);
        c->size = c->step * random_range(&random, 1, 4);
        break;
    }
    int64_t period = c->kind == CHOICE_HOP ? c->slide : c->size;
    if (random_percent(&random, 30)) {
        c->has_offset = true;
        c->offset =
            (int64_t)random_range(&random, -(int)(period / 1000) + 1, (int)(period / 1000) - 1) *
            1000;
        if (random_percent(&random, 20))
            c->offset += period * (random_percent(&random, 50) ? 2 : -1);
    }
    c->delay_seconds = random_range(&random, 1, 5);
    c->session = random_percent(&random, 20) && !options->aggregates_only;
    if (c->session) {
        static const int64_t gaps[] = {1000, 2000, 5000};
        c->gap = pick(&random, gaps, 3);
        c->partitioned = random_percent(&random, 70);
        c->size = c->gap * random_range(&random, 1, 8); /* rows 10 to 60 a "size" apart */
    }
    static const char *const joins[] = {"JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN"};
    c->join = joins[random_below(&random, 4)];
    c->keyed = !random_percent(&random, 10);
    switch (random_below(&random, 8)) {
    case 0:
        c->residual_flink = c->residual_sqlite = "L.v <= R.v";
        break;
    case 1:
        c->residual_flink = c->residual_sqlite = "L.v + R.v > 12";
        break;
    case 2:
        c->residual_flink = "L.ts <= R.ts";
        c->residual_sqlite = "L.ts <= R.ts";
        break;
    case 3:
        c->residual_flink = c->residual_sqlite = "(L.v IS NULL OR R.v > 5)";
        break;
    default:
        break;
    }
    /* rows per window per key stay small: 10 to 60 rows per window */
    int64_t quantum = c->session ? 250 : 1;
    int64_t gap = c->size / random_range(&random, 10, 60) / quantum * quantum;
    if (gap < quantum)
        gap = quantum;
    int64_t jitter = random_percent(&random, 80) ? c->delay_seconds * 1000 - 1 : 0;
    int sizes[2];
    for (int s = 0; s < 2; s++)
        sizes[s] = random_percent(&random, 15) ? random_range(&random, 0, 40)
                                               : random_range(&random, 200, MAX_ROWS);
    int right_gap_factor = random_range(&random, 1, 2);
    c->with_late = options->parallelism == 1 && random_percent(&random, 25);
    if (c->with_late) {
        /* long enough for two batches before the late rows */
        for (int s = 0; s < 2; s++)
            sizes[s] =
                2 * SOURCE_BATCH_ROWS + random_range(&random, 1, MAX_ROWS - 2 * SOURCE_BATCH_ROWS);
    }
    side_generate(&c->left, &random, sizes[0], gap, jitter, quantum);
    side_generate(&c->right, &random, sizes[1], gap * right_gap_factor, jitter, quantum);
    if (c->with_late) {
        side_add_late(&c->left, &random);
        if (random_percent(&random, 60))
            side_add_late(&c->right, &random);
    }
    c->aggregate = options->aggregates_only || (!c->session && random_percent(&random, 25));
}

/* ------------------------------------------------------------ text forms */

static void timestamp_text(int64_t millis, char *out, size_t size)
{
    time_t seconds = (time_t)(millis / 1000);
    int fraction = (int)(millis % 1000);
    if (fraction < 0) {
        fraction += 1000;
        seconds -= 1;
    }
    struct tm parts;
    gmtime_r(&seconds, &parts);
    char date[24];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S", &parts);
    snprintf(out, size, "%s.%03d", date, fraction);
}

static const char *window_call(const Case *c, const char *table, Text *out)
{
    text_clear(out);
    switch (c->kind) {
    case CHOICE_TUMBLE:
        text_printf(out, "TUMBLE(TABLE %s, DESCRIPTOR(ts), INTERVAL '%lld' SECOND", table,
                    (long long)(c->size / 1000));
        break;
    case CHOICE_HOP:
        text_printf(out,
                    "HOP(TABLE %s, DESCRIPTOR(ts), INTERVAL '%lld' SECOND, INTERVAL '%lld' SECOND",
                    table, (long long)(c->slide / 1000), (long long)(c->size / 1000));
        break;
    case CHOICE_CUMULATE:
        text_printf(
            out,
            "CUMULATE(TABLE %s, DESCRIPTOR(ts), INTERVAL '%lld' SECOND, INTERVAL '%lld' SECOND",
            table, (long long)(c->step / 1000), (long long)(c->size / 1000));
        break;
    }
    if (c->has_offset)
        text_printf(out, ", INTERVAL '%lld' SECOND", (long long)(c->offset / 1000));
    text_printf(out, ")");
    return out->data;
}

static void case_query(const Case *c, Text *sql)
{
    Text left = {0}, right = {0};
    text_clear(sql);
    if (c->session) {
        text_printf(sql,
                    "SELECT k, v, ts, window_start, window_end, window_time FROM "
                    "TABLE(SESSION(TABLE l%s, DESCRIPTOR(ts), INTERVAL '%lld' SECOND))",
                    c->partitioned ? " PARTITION BY k" : "", (long long)(c->gap / 1000));
        return;
    }
    if (c->aggregate) {
        text_printf(sql,
                    "SELECT %swindow_start, window_end, COUNT(*), SUM(v), MIN(v), MAX(v), "
                    "COUNT(v), AVG(v), COUNT(DISTINCT v), SUM(DISTINCT v) FROM TABLE(%s) "
                    "GROUP BY %swindow_start, window_end",
                    c->keyed ? "k, " : "", window_call(c, "l", &left), c->keyed ? "k, " : "");
        text_free(&left);
        return;
    }
    text_printf(sql,
                "SELECT L.k, L.v, L.ts, L.window_start, L.window_end, L.window_time, R.k, R.v, "
                "R.ts, R.window_start, R.window_end FROM TABLE(%s) L %s TABLE(%s) R ON ",
                window_call(c, "l", &left), c->join, window_call(c, "r", &right));
    if (c->keyed)
        text_printf(sql, "L.k = R.k AND ");
    text_printf(sql, "L.window_start = R.window_start AND L.window_end = R.window_end");
    if (c->residual_flink)
        text_printf(sql, " AND %s", c->residual_flink);
    text_free(&left);
    text_free(&right);
}

static int side_write(const Side *side, const char *path)
{
    FILE *file = fopen(path, "w");
    if (!file)
        return -1;
    for (int i = 0; i < side->count; i++) {
        const DataRow *row = &side->rows[i];
        char ts[40];
        timestamp_text(row->ts, ts, sizeof ts);
        fputc('{', file);
        if (row->k == INT32_MIN)
            fputs("\"k\":null,", file);
        else
            fprintf(file, "\"k\":%d,", row->k);
        if (row->v == INT32_MIN)
            fputs("\"v\":null,", file);
        else
            fprintf(file, "\"v\":%d,", row->v);
        fprintf(file, "\"ts\":\"%s\"}\n", ts);
    }
    return fclose(file) == 0 ? 0 : -1;
}

/* ---------------------------------------------------------------- SQLite */

static void sqlite_timestamp_text(sqlite3_context *context, int count, sqlite3_value **values)
{
    (void)count;
    if (sqlite3_value_type(values[0]) == SQLITE_NULL) {
        sqlite3_result_null(context);
        return;
    }
    char text[40];
    timestamp_text(sqlite3_value_int64(values[0]), text, sizeof text);
    sqlite3_result_text(context, text, -1, SQLITE_TRANSIENT);
}

static int sqlite_exec(sqlite3 *database, const char *sql, Text *error)
{
    char *message = NULL;
    if (sqlite3_exec(database, sql, NULL, NULL, &message) != SQLITE_OK) {
        text_printf(error, "sqlite: %s in %s", message ? message : "?", sql);
        sqlite3_free(message);
        return -1;
    }
    return 0;
}

static int sqlite_load(sqlite3 *database, const char *table, const Side *side, Text *error)
{
    Text sql = {0};
    text_printf(&sql, "CREATE TABLE %s (k INTEGER, v INTEGER, ts INTEGER, late INTEGER)", table);
    int status = sqlite_exec(database, sql.data, error);
    text_clear(&sql);
    text_printf(&sql, "INSERT INTO %s VALUES (?, ?, ?, ?)", table);
    sqlite3_stmt *insert = NULL;
    if (status == 0 && sqlite3_prepare_v2(database, sql.data, -1, &insert, NULL) != SQLITE_OK) {
        text_printf(error, "sqlite: %s", sqlite3_errmsg(database));
        status = -1;
    }
    for (int i = 0; status == 0 && i < side->count; i++) {
        const DataRow *row = &side->rows[i];
        sqlite3_reset(insert);
        if (row->k == INT32_MIN)
            sqlite3_bind_null(insert, 1);
        else
            sqlite3_bind_int(insert, 1, row->k);
        if (row->v == INT32_MIN)
            sqlite3_bind_null(insert, 2);
        else
            sqlite3_bind_int(insert, 2, row->v);
        sqlite3_bind_int64(insert, 3, row->ts);
        sqlite3_bind_int(insert, 4, row->late);
        if (sqlite3_step(insert) != SQLITE_DONE) {
            text_printf(error, "sqlite: %s", sqlite3_errmsg(database));
            status = -1;
        }
    }
    sqlite3_finalize(insert);
    text_free(&sql);
    return status;
}

/*
 * The windowed rows of `table` into `windowed` (ws, we), computed from the
 * time's remainder on the grid: start = ts - ((ts - offset) mod period).
 */
static int sqlite_windows(sqlite3 *database, const Case *c, const char *table, const char *windowed,
                          Text *error)
{
    Text sql = {0};
    long long offset = (long long)c->offset;
    switch (c->kind) {
    case CHOICE_TUMBLE:
        text_printf(&sql,
                    "CREATE TABLE %s AS SELECT k, v, ts, late, b AS ws, b + %lld AS we FROM "
                    "(SELECT *, ts - (((ts - %lld) %% %lld) + %lld) %% %lld AS b FROM %s)",
                    windowed, (long long)c->size, offset, (long long)c->size, (long long)c->size,
                    (long long)c->size, table);
        break;
    case CHOICE_HOP:
        text_printf(&sql,
                    "CREATE TABLE %s AS SELECT k, v, ts, late, b - n.i * %lld AS ws, "
                    "b - n.i * %lld + %lld AS we FROM "
                    "(SELECT *, ts - (((ts - %lld) %% %lld) + %lld) %% %lld AS b FROM %s) AS x, n "
                    "WHERE b - n.i * %lld + %lld > x.ts",
                    windowed, (long long)c->slide, (long long)c->slide, (long long)c->size, offset,
                    (long long)c->slide, (long long)c->slide, (long long)c->slide, table,
                    (long long)c->slide, (long long)c->size);
        break;
    case CHOICE_CUMULATE:
        text_printf(&sql,
                    "CREATE TABLE %s AS SELECT k, v, ts, late, b AS ws, b + n.i * %lld AS we "
                    "FROM (SELECT *, ts - (((ts - %lld) %% %lld) + %lld) %% %lld AS b FROM %s) "
                    "AS x, n WHERE n.i >= 1 AND n.i <= %lld AND b + n.i * %lld > x.ts",
                    windowed, (long long)c->step, offset, (long long)c->size, (long long)c->size,
                    (long long)c->size, table, (long long)(c->size / c->step), (long long)c->step);
        break;
    }
    int status = sqlite_exec(database, sql.data, error);
    text_free(&sql);
    return status;
}

static int64_t sqlite_count(sqlite3 *database, const char *sql)
{
    sqlite3_stmt *statement = NULL;
    int64_t count = -1;
    if (sqlite3_prepare_v2(database, sql, -1, &statement, NULL) == SQLITE_OK &&
        sqlite3_step(statement) == SQLITE_ROW)
        count = sqlite3_column_int64(statement, 0);
    sqlite3_finalize(statement);
    return count;
}

/*
 * SQLite's answer for a SESSION case: islands of each key's rows (not late) in time order, a
 * new one where a time is more than the gap after the one before (windows [t, t + gap) that
 * touch merge), each from its first time to its last time + gap.
 */
static void sqlite_session_query(const Case *c, Text *sql)
{
    const char *partition = c->partitioned ? "PARTITION BY k " : "";
    long long gap = (long long)c->gap;
    text_printf(sql,
                "WITH x AS (SELECT k, v, ts, CASE WHEN ts - LAG(ts) OVER (%sORDER BY ts, rowid) "
                "<= %lld THEN 0 ELSE 1 END AS fresh, rowid AS rid FROM l WHERE late = 0), "
                "y AS (SELECT *, SUM(fresh) OVER (%sORDER BY ts, rid ROWS UNBOUNDED PRECEDING) "
                "AS island FROM x) "
                "SELECT k, v, ts_text(ts), ts_text(MIN(ts) OVER w), "
                "ts_text(MAX(ts) OVER w + %lld), ts_text(MAX(ts) OVER w + %lld - 1) FROM y "
                "WINDOW w AS (%s)",
                partition, gap, partition, gap, gap,
                c->partitioned ? "PARTITION BY k, island" : "PARTITION BY island");
}

/* SQLite's answer for a join case: the join of the windowed rows that are not late. */
static void sqlite_join_query(const Case *c, Text *sql)
{
    text_printf(sql,
                "SELECT L.k, L.v, ts_text(L.ts), ts_text(L.ws), ts_text(L.we), ts_text(L.we - 1), "
                "R.k, R.v, ts_text(R.ts), ts_text(R.ws), ts_text(R.we) "
                "FROM lw AS L %s rw AS R ON ",
                c->join);
    if (c->keyed)
        text_printf(sql, "L.k = R.k AND ");
    text_printf(sql, "L.ws = R.ws AND L.we = R.we");
    if (c->residual_sqlite)
        text_printf(sql, " AND %s", c->residual_sqlite);
}

/* SQLite's answer for an aggregate case: GROUP BY the windows of l's rows that are not late. */
static void sqlite_aggregate_query(const Case *c, Text *sql)
{
    text_printf(sql,
                "SELECT %sts_text(ws), ts_text(we), COUNT(*), SUM(v), MIN(v), MAX(v), COUNT(v), "
                "SUM(v) / COUNT(v), COUNT(DISTINCT v), SUM(DISTINCT v) FROM lw GROUP BY %sws, we",
                c->keyed ? "k, " : "", c->keyed ? "k, " : "");
}

static int sqlite_expected(sqlite3 *database, const Case *c, RowList *expected, Text *error)
{
    Text sql = {0};
    int columns = c->session ? 6 : c->aggregate ? (c->keyed ? 11 : 10) : 11;
    if (c->session)
        sqlite_session_query(c, &sql);
    else if (c->aggregate)
        sqlite_aggregate_query(c, &sql);
    else
        sqlite_join_query(c, &sql);
    sqlite3_stmt *statement = NULL;
    if (sqlite3_prepare_v2(database, sql.data, -1, &statement, NULL) != SQLITE_OK) {
        text_printf(error, "sqlite: %s", sqlite3_errmsg(database));
        text_free(&sql);
        return -1;
    }
    text_free(&sql);
    Text row = {0};
    int step;
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
        row_list_push(expected, row.data);
        if (expected->count > MAX_EXPECTED_ROWS)
            break;
    }
    text_free(&row);
    int status = step == SQLITE_DONE || step == SQLITE_ROW ? 0 : -1;
    if (status != 0)
        text_printf(error, "sqlite: %s", sqlite3_errmsg(database));
    sqlite3_finalize(statement);
    row_list_sort(expected);
    return status;
}

/* ----------------------------------------------------------- the metrics */

typedef struct Metrics {
    Text text;
} Metrics;

static int metrics_text(void *context, const char *text)
{
    text_printf(&((Metrics *)context)->text, "%s", text);
    return 0;
}

/* The number after `name` in SHOW JOB METRICS' text, -1 when absent. */
static long long metrics_value(const char *text, const char *name)
{
    const char *found = strstr(text, name);
    if (!found)
        return -1;
    return strtoll(found + strlen(name), NULL, 10);
}

/* The "state rows" column of the line of operator `name` (" WindowJoin "), -1 when absent. */
static long long metrics_state_rows(const char *text, const char *name)
{
    const char *line = strstr(text, name);
    if (!line)
        return -1;
    long long subtasks, rows_in, rows_out, state_rows;
    if (sscanf(line + strlen(name), "%lld %lld %lld %lld", &subtasks, &rows_in, &rows_out,
               &state_rows) != 4)
        return -1;
    return state_rows;
}

/* ------------------------------------------------------------------ runs */

static void case_report(const Case *c, const char *sql, const char *directory)
{
    printf("  case %d: %s, watermark delay %d s, %d left rows (%d late), %d right rows (%d late)\n",
           c->number, c->join, c->delay_seconds, c->left.count, c->left.late_count, c->right.count,
           c->right.late_count);
    printf("  query: %s\n  data: %s\n", sql, directory);
}

static int case_run(const Case *c, const char *directory, const Options *options, Totals *totals)
{
    Text error = {0}, sql = {0}, path = {0};
    RowList expected = {0}, actual = {0};
    Collector collector;
    collector_init(&collector);
    Metrics metrics = {{0}};
    sqlite3 *database = NULL;
    JoinerySession *session = NULL;
    int failed = 0;
    char left_path[640], right_path[640];
    snprintf(left_path, sizeof left_path, "%s/l.json", directory);
    snprintf(right_path, sizeof right_path, "%s/r.json", directory);
    case_query(c, &sql);
    if (side_write(&c->left, left_path) != 0 || side_write(&c->right, right_path) != 0) {
        text_printf(&error, "cannot write the data files in %s", directory);
        failed = 1;
        goto done;
    }
    /* SQLite: the tables, their windows, the join */
    if (sqlite3_open(":memory:", &database) != SQLITE_OK) {
        text_printf(&error, "cannot open SQLite");
        failed = 1;
        goto done;
    }
    sqlite3_create_function(database, "ts_text", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
                            sqlite_timestamp_text, NULL, NULL);
    if (sqlite_exec(database,
                    "CREATE TABLE n (i INTEGER); WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT "
                    "i + 1 FROM c WHERE i < 64) INSERT INTO n SELECT i FROM c",
                    &error) != 0 ||
        sqlite_load(database, "l", &c->left, &error) != 0 ||
        sqlite_load(database, "r", &c->right, &error) != 0 ||
        sqlite_windows(database, c, "l", "lw_all", &error) != 0 ||
        sqlite_windows(database, c, "r", "rw_all", &error) != 0 ||
        sqlite_exec(database,
                    "CREATE TABLE lw AS SELECT * FROM lw_all WHERE late = 0; CREATE TABLE rw AS "
                    "SELECT * FROM rw_all WHERE late = 0",
                    &error) != 0 ||
        sqlite_exec(database,
                    "CREATE INDEX lw_window ON lw (ws, we, k); CREATE INDEX rw_window ON rw (ws, "
                    "we, k)",
                    &error) != 0 ||
        sqlite_expected(database, c, &expected, &error) != 0) {
        failed = 1;
        goto done;
    }
    if (expected.count > MAX_EXPECTED_ROWS) {
        failed = -1; /* too large: skipped, not counted */
        goto done;
    }
    /* late rows: every windowed row of a join's late rows; a SESSION case's late rows once */
    /* an aggregate case's late rows once too: all of their windows have fired */
    long long late_left = sqlite_count(
        database, c->session || c->aggregate ? "SELECT COUNT(*) FROM l WHERE late = 1"
                                             : "SELECT COUNT(*) FROM lw_all WHERE late = 1");
    long long late_right = sqlite_count(database, "SELECT COUNT(*) FROM rw_all WHERE late = 1");
    /* joinery */
    session = joinery_session_open();
    if (!session) {
        text_printf(&error, "joinery_session_open failed");
        failed = 1;
        goto done;
    }
    JoineryError engine_error;
    char statement[2048];
    snprintf(statement, sizeof statement, "SET 'parallelism.default' = '%d'", options->parallelism);
    int status = session_run(session, statement, NULL, options->timeout_seconds, &engine_error);
    static const char *const tables[2] = {"l", "r"};
    const char *paths[2] = {left_path, right_path};
    for (int t = 0; t < 2 && status == 0; t++) {
        snprintf(statement, sizeof statement,
                 "CREATE TABLE %s (k INT, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - "
                 "INTERVAL '%d' SECOND) WITH ('connector' = 'filesystem', 'path' = '%s', "
                 "'format' = 'json')",
                 tables[t], c->delay_seconds, paths[t]);
        status = session_run(session, statement, NULL, options->timeout_seconds, &engine_error);
    }
    if (status == 0)
        status =
            session_run(session, sql.data, &collector, options->timeout_seconds, &engine_error);
    if (status != 0) {
        text_printf(&error, "joinery: %s", engine_error.message);
        failed = 1;
        goto done;
    }
    if (collector.failure.length) {
        text_printf(&error, "changelog: %s", collector.failure.data);
        failed = 1;
        goto done;
    }
    if (collector.changelog_rows != collector.rows.total) {
        text_printf(&error,
                    "the output is not append-only (%llu changelog rows, %zu in the result)",
                    (unsigned long long)collector.changelog_rows, collector.rows.total);
        failed = 1;
        goto done;
    }
    multiset_to_list(&collector.rows, &actual);
    row_list_sort(&actual);
    if (!row_lists_equal(&expected, &actual)) {
        text_printf(&error, "the result differs from SQLite's (%zu rows expected, %zu received)",
                    expected.count, actual.count);
        failed = 2;
        goto done;
    }
    /* the late rows and the state left, from SHOW JOB METRICS */
    JoineryResultHandler handler = {.context = &metrics, .text = metrics_text};
    status =
        joinery_session_execute(session, "SHOW JOB METRICS", 16, 1, 1, &handler, &engine_error);
    if (status != 0) {
        text_printf(&error, "SHOW JOB METRICS: %s", engine_error.message);
        failed = 1;
        goto done;
    }
    const char *text = metrics.text.data ? metrics.text.data : "";
    long long dropped_left, dropped_right, state_rows;
    if (c->session) {
        dropped_left = metrics_value(text, "numLateRecordsDropped");
        dropped_right = late_right = 0;
        state_rows = metrics_state_rows(text, " WindowTableFunction ");
    } else if (c->aggregate) {
        dropped_left = metrics_value(text, "numLateRecordsDropped");
        dropped_right = late_right = 0;
        state_rows = metrics_state_rows(text, " WindowAggregate ");
    } else {
        dropped_left = metrics_value(text, "leftNumLateRecordsDropped");
        dropped_right = metrics_value(text, "rightNumLateRecordsDropped");
        state_rows = metrics_state_rows(text, " WindowJoin ");
    }
    if (dropped_left != late_left || dropped_right != late_right || state_rows != 0) {
        text_printf(&error,
                    "metrics: late rows dropped %lld / %lld (expected %lld / %lld), window "
                    "operator state rows %lld (expected 0)\n%s",
                    dropped_left, dropped_right, late_left, late_right, state_rows, text);
        failed = 1;
    }
done:
    if (failed > 0) {
        totals->failed++;
        printf("FAIL case %d: %s\n", c->number, error.data ? error.data : "");
        if (totals->detailed++ < MAX_DETAILED_FAILURES) {
            case_report(c, sql.data, directory);
            if (failed == 2) {
                row_lists_print_difference("expected, missing from joinery", &expected, &actual);
                row_lists_print_difference("from joinery, not expected", &actual, &expected);
            }
        }
    } else if (failed < 0) {
        totals->skipped++;
    } else {
        totals->passed++;
        if (options->verbose)
            printf("ok case %d: %zu rows, %d + %d late rows: %s\n", c->number, expected.count,
                   c->left.late_count, c->right.late_count, sql.data);
    }
    joinery_session_close(session);
    if (database)
        sqlite3_close(database);
    row_list_free(&expected);
    row_list_free(&actual);
    collector_free(&collector);
    text_free(&metrics.text);
    text_free(&error);
    text_free(&sql);
    text_free(&path);
    return failed > 0;
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
    fprintf(out, "usage: diff_window [--cases N] [--seed S] [--parallelism P] [--only N]\n"
                 "                   [--timeout SECONDS] [--keep] [--verbose] [--aggregates]\n");
}

static int options_parse(Options *options, int argc, char **argv)
{
    DiffOptions common = {
        .count = 60, .seed = 20241201, .parallelism = 1, .only = -1, .timeout_seconds = 60};
    const DiffOptionSpec spec = {
        .count_name = "--cases", .minimum_count = 0, .minimum_timeout = 1, .usage = usage};
    /* --aggregates is this tool's own: taken out before the common options */
    bool aggregates_only = false;
    int kept = 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--aggregates") == 0)
            aggregates_only = true;
        else
            argv[kept++] = argv[i];
    }
    argc = kept;
    if (diff_options_parse(&common, &spec, argc, argv) != 0)
        return -1;
    *options = (Options){.cases = common.count,
                         .seed = common.seed,
                         .parallelism = common.parallelism,
                         .only = common.only,
                         .timeout_seconds = common.timeout_seconds,
                         .keep = common.keep,
                         .verbose = common.verbose,
                         .aggregates_only = aggregates_only};
    return 0;
}

int main(int argc, char **argv)
{
    Options options;
    if (options_parse(&options, argc, argv) != 0)
        return 2;
    signals_install();
    setvbuf(stdout, NULL, _IOLBF, 0);
    char base_directory[] = "/tmp/joinery-diff-window-XXXXXX";
    if (!mkdtemp(base_directory)) {
        fprintf(stderr, "diff_window: mkdtemp: %s\n", strerror(errno));
        return 2;
    }
    printf("diff_window: seed %llu, %d cases, parallelism %d, data in %s\n",
           (unsigned long long)options.seed, options.cases, options.parallelism, base_directory);
    Totals totals = {0};
    static Case current; /* large: two sides of rows */
    for (int n = 0; n < options.cases; n++) {
        if (options.only >= 0 && options.only != n)
            continue;
        char directory[600];
        snprintf(directory, sizeof directory, "%s/case-%04d", base_directory, n);
        if (mkdir(directory, 0700) != 0) {
            fprintf(stderr, "diff_window: mkdir %s: %s\n", directory, strerror(errno));
            return 2;
        }
        case_generate(&current, n, &options);
        case_run(&current, directory, &options, &totals);
    }
    if (totals.failed == 0 && !options.keep)
        nftw(base_directory, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    else
        printf("data kept in %s\n", base_directory);
    if (totals.skipped)
        printf("%d cases skipped (SQLite's answer has more than %d rows)\n", totals.skipped,
               MAX_EXPECTED_ROWS);
    printf("%d passed, %d failed\n", totals.passed, totals.failed);
    return totals.failed ? 1 : 0;
}
