/*
 * bench_join.c - join throughput and memory of joinery next to SQLite, and
 * the shell's start-up time.
 *
 * Data: three JSON-lines files of a shop (generated once, deterministically,
 * into --data DIR and reused): orders (9M rows by default: order_id,
 * user_id, product_id, amount), users (1M: user_id, user_name, region_id)
 * and products (500k: product_id, product_name, category). 5% of the orders
 * refer to users or products that do not exist, so inner and outer joins
 * differ.
 *
 * Cases (each runs in its own forked process, so its peak RSS from wait4 is
 * its own and nothing else's):
 *   joinery file     INSERT INTO a blackhole table the result of
 *                    orders JOIN users (two-table inner join) and of
 *                    orders LEFT JOIN users LEFT JOIN products, read from
 *                    the files with the filesystem connector;
 *   joinery datagen  the same joins over bounded datagen tables of the same
 *                    sizes and key ranges (values differ from the files);
 *   sqlite           the same joins over the same files: the rows are parsed
 *                    from the JSON lines and inserted into an in-memory
 *                    database whose dimension tables have INTEGER PRIMARY
 *                    KEYs (the index a user would create), then each join is
 *                    stepped through and every column read. One process loads
 *                    the tables once and runs both joins (load time and peak
 *                    memory are shared by the two joins).
 * The datagen three-table case runs only with --datagen-three, to keep the
 * default run within a few minutes.
 * Each case reports input rows, seconds, input rows per second, peak RSS and
 * output rows. Ratios between joinery and SQLite come from the same run.
 * Start-up: joinery is started on a pseudo-terminal and timed until its
 * prompt appears (target 20 ms), several times.
 *
 * Benchmarks print figures; they never fail on a time threshold. The exit
 * status is non-zero only when the benchmark itself could not run (no data,
 * a statement failed).
 *
 * Usage: bench_join [--data DIR] [--orders N] [--users N] [--products N]
 *                   [--joinery PATH] [--startup-runs N] [--case-timeout SECONDS]
 *                   [--skip-sqlite] [--skip-datagen] [--datagen-three] [--metrics]
 *                   [--generate-only]
 * --generate-only writes the files (unless they exist with these sizes) and
 * exits: scripts/bench-duckdb.sh uses it to get the same files for joinery
 * and DuckDB.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "engine/engine.h"

enum { STARTUP_TARGET_MILLIS = 20, MAX_TEXT = 16384 };

typedef struct Options {
    const char *data_directory;
    long orders;
    long users;
    long products;
    const char *joinery_path;
    int startup_runs;
    int case_timeout_seconds;
    bool skip_sqlite;
    bool skip_datagen;
    bool datagen_three; /* also run the three-table join over datagen */
    bool metrics;
    bool generate_only; /* write the files (if missing) and exit */
} Options;

/* What a case's child process sends back through its pipe. */
typedef struct CaseResult {
    int status; /* 0 ok, else failed (message says why) */
    double seconds;
    uint64_t output_rows;
    double load_seconds; /* SQLite: parsing and inserting; joinery: 0 */
    char message[1024];
    char metrics[MAX_TEXT]; /* SHOW JOB METRICS output (joinery) */
} CaseResult;

/* A finished case, as the parent sees it. */
typedef struct CaseReport {
    const char *engine; /* "joinery" or "sqlite" */
    const char *input;  /* "file" or "datagen" */
    const char *join;   /* "two-table inner" or "three-table left" */
    uint64_t input_rows;
    CaseResult result;
    long peak_rss_kib;
    bool ran;
} CaseReport;

static double monotonic_seconds(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

static void result_fail(CaseResult *result, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
static void result_fail(CaseResult *result, const char *format, ...)
{
    va_list arguments;
    va_start(arguments, format);
    result->status = 1;
    vsnprintf(result->message, sizeof result->message, format, arguments);
    va_end(arguments);
}

/* ------------------------------------------------------------------ data */

typedef struct Random {
    uint64_t state;
} Random;

static uint64_t random_next(Random *random)
{
    uint64_t z = (random->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [1, bound]. */
static long random_key(Random *random, long bound)
{
    return 1 + (long)(random_next(random) % (uint64_t)bound);
}

static const char *const categories[] = {"electronics", "books", "clothing", "home",
                                         "toys",        "food",  "sports",   "beauty"};

static int data_path(char *path, size_t size, const Options *options, const char *name)
{
    int written = snprintf(path, size, "%s/%s.json", options->data_directory, name);
    return written > 0 && (size_t)written < size ? 0 : -1;
}

/* Writes one table file; returns 0 or -1 with errno. */
static int data_write_table(const Options *options, const char *name, long rows)
{
    char path[1024];
    if (data_path(path, sizeof path, options, name) != 0)
        return -1;
    FILE *file = fopen(path, "w");
    if (!file)
        return -1;
    static char buffer[1 << 20];
    setvbuf(file, buffer, _IOFBF, sizeof buffer);
    Random random = {strcmp(name, "orders") == 0 ? 1u : strcmp(name, "users") == 0 ? 2u : 3u};
    for (long i = 1; i <= rows; i++) {
        if (strcmp(name, "orders") == 0) {
            /* 5% of the keys point past the dimension tables */
            long user = random_key(&random, options->users + options->users / 20);
            long product = random_key(&random, options->products + options->products / 20);
            long cents = random_key(&random, 99999);
            fprintf(file,
                    "{\"order_id\":%ld,\"user_id\":%ld,\"product_id\":%ld,\"amount\":%ld.%02ld}\n",
                    i, user, product, cents / 100, cents % 100);
        } else if (strcmp(name, "users") == 0) {
            fprintf(file, "{\"user_id\":%ld,\"user_name\":\"user_%ld\",\"region_id\":%ld}\n", i, i,
                    random_key(&random, 100));
        } else {
            fprintf(file,
                    "{\"product_id\":%ld,\"product_name\":\"product_%ld\",\"category\":\"%s\"}\n",
                    i, i, categories[random_next(&random) % 8]);
        }
    }
    return fclose(file) == 0 ? 0 : -1;
}

/* Generates the files unless a stamp says they exist with these sizes. */
static int data_prepare(const Options *options)
{
    char stamp[1024];
    snprintf(stamp, sizeof stamp, "%s/.complete-%ld-%ld-%ld-v1", options->data_directory,
             options->orders, options->users, options->products);
    if (access(stamp, F_OK) == 0)
        return 0;
    if (mkdir(options->data_directory, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "bench_join: mkdir %s: %s\n", options->data_directory, strerror(errno));
        return -1;
    }
    printf("generating %ld orders, %ld users, %ld products into %s ...\n", options->orders,
           options->users, options->products, options->data_directory);
    fflush(stdout);
    double start = monotonic_seconds();
    if (data_write_table(options, "orders", options->orders) != 0 ||
        data_write_table(options, "users", options->users) != 0 ||
        data_write_table(options, "products", options->products) != 0) {
        fprintf(stderr, "bench_join: cannot write data: %s\n", strerror(errno));
        return -1;
    }
    FILE *file = fopen(stamp, "w");
    if (file)
        fclose(file);
    printf("generated in %.1f s\n", monotonic_seconds() - start);
    return 0;
}

/* --------------------------------------------------------------- joinery */

typedef struct TextSink {
    char text[MAX_TEXT];
    size_t length;
} TextSink;

static void text_sink_append(TextSink *sink, const char *text)
{
    size_t length = strlen(text);
    if (sink->length + length + 2 > sizeof sink->text)
        return;
    memcpy(sink->text + sink->length, text, length);
    sink->length += length;
    sink->text[sink->length++] = '\n';
    sink->text[sink->length] = '\0';
}

static int text_sink_text(void *context, const char *text)
{
    text_sink_append(context, text);
    return 0;
}

static int text_sink_begin(void *context, JoineryResultKind kind, const JoineryColumn *columns,
                           size_t column_count)
{
    (void)kind;
    TextSink *sink = context;
    char line[1024] = "";
    size_t used = 0;
    for (size_t i = 0; i < column_count && used < sizeof line; i++)
        used += (size_t)snprintf(line + used, sizeof line - used, "%s%s", i ? " | " : "",
                                 columns[i].name);
    text_sink_append(sink, line);
    return 0;
}

static int text_sink_row(void *context, JoineryRowKind kind, const char *const *values,
                         size_t column_count)
{
    (void)kind;
    TextSink *sink = context;
    char line[1024] = "";
    size_t used = 0;
    for (size_t i = 0; i < column_count && used < sizeof line; i++)
        used += (size_t)snprintf(line + used, sizeof line - used, "%s%s", i ? " | " : "",
                                 values[i] ? values[i] : "<NULL>");
    text_sink_append(sink, line);
    return 0;
}

/* Runs the statements; returns 0 or fails the result with the engine's message. */
static int joinery_run(JoinerySession *session, const char *sql, TextSink *sink, CaseResult *result)
{
    JoineryResultHandler handler = {0};
    if (sink) {
        handler.context = sink;
        handler.text = text_sink_text;
        handler.begin = text_sink_begin;
        handler.row = text_sink_row;
        handler.info = text_sink_text;
    }
    JoineryError error;
    memset(&error, 0, sizeof error);
    if (joinery_session_execute(session, sql, strlen(sql), 1, 1, &handler, &error) != 0) {
        result_fail(result, "%s\n    in: %.300s", error.message, sql);
        return -1;
    }
    return 0;
}

/* The DDL of the file-based tables, into `out`. */
static void ddl_files(const Options *options, char *out, size_t size, int which)
{
    char path[1024];
    static const char *const names[] = {"orders", "users", "products"};
    static const char *const columns[] = {
        "order_id BIGINT, user_id BIGINT, product_id BIGINT, amount DECIMAL(10, 2)",
        "user_id BIGINT, user_name STRING, region_id BIGINT",
        "product_id BIGINT, product_name STRING, category STRING",
    };
    data_path(path, sizeof path, options, names[which]);
    snprintf(out, size,
             "CREATE TABLE %s (%s) WITH ('connector' = 'filesystem', 'path' = '%s', "
             "'format' = 'json')",
             names[which], columns[which], path);
}

/* The DDL of the datagen tables (same sizes and key ranges as the files). */
static void ddl_datagen(const Options *options, char *out, size_t size, int which)
{
    if (which == 0)
        snprintf(out, size,
                 "CREATE TABLE orders (order_id BIGINT, user_id BIGINT, product_id BIGINT, "
                 "amount DECIMAL(10, 2)) WITH ('connector' = 'datagen', "
                 "'rows-per-second' = '1000000000', 'number-of-rows' = '%ld', "
                 "'fields.order_id.kind' = 'sequence', 'fields.order_id.start' = '1', "
                 "'fields.order_id.end' = '%ld', "
                 "'fields.user_id.min' = '1', 'fields.user_id.max' = '%ld', "
                 "'fields.product_id.min' = '1', 'fields.product_id.max' = '%ld', "
                 "'fields.amount.min' = '0.01', 'fields.amount.max' = '999.99')",
                 options->orders, options->orders, options->users + options->users / 20,
                 options->products + options->products / 20);
    else if (which == 1)
        snprintf(out, size,
                 "CREATE TABLE users (user_id BIGINT, user_name STRING, region_id BIGINT) "
                 "WITH ('connector' = 'datagen', 'rows-per-second' = '1000000000', "
                 "'number-of-rows' = '%ld', 'fields.user_id.kind' = 'sequence', "
                 "'fields.user_id.start' = '1', 'fields.user_id.end' = '%ld', "
                 "'fields.user_name.length' = '11', "
                 "'fields.region_id.min' = '1', 'fields.region_id.max' = '100')",
                 options->users, options->users);
    else
        snprintf(out, size,
                 "CREATE TABLE products (product_id BIGINT, product_name STRING, "
                 "category STRING) WITH ('connector' = 'datagen', "
                 "'rows-per-second' = '1000000000', 'number-of-rows' = '%ld', "
                 "'fields.product_id.kind' = 'sequence', 'fields.product_id.start' = '1', "
                 "'fields.product_id.end' = '%ld', 'fields.product_name.length' = '14', "
                 "'fields.category.length' = '8')",
                 options->products, options->products);
}

static const char *const JOIN_TWO_SELECT =
    "SELECT o.order_id, o.amount, u.user_name FROM orders AS o "
    "JOIN users AS u ON o.user_id = u.user_id";
static const char *const JOIN_THREE_SELECT =
    "SELECT o.order_id, u.user_name, p.product_name FROM orders AS o "
    "LEFT JOIN users AS u ON o.user_id = u.user_id "
    "LEFT JOIN products AS p ON o.product_id = p.product_id";

/*
 * The number of changelog rows the sink received, from the "Job finished:
 * N rows written to sink." line that INSERT reports. 0 when not found.
 */
static uint64_t messages_sink_rows(const char *messages)
{
    const char *line = strstr(messages, "Job finished: ");
    if (!line)
        return 0;
    return strtoull(line + strlen("Job finished: "), NULL, 10);
}

/* Child: one joinery case, timed around the INSERT only. */
static void joinery_case(const Options *options, bool datagen, bool three, CaseResult *result)
{
    JoinerySession *session = joinery_session_open();
    if (!session) {
        result_fail(result, "joinery_session_open failed");
        return;
    }
    char sql[4096];
    for (int which = 0; which < (three ? 3 : 2); which++) {
        if (datagen)
            ddl_datagen(options, sql, sizeof sql, which);
        else
            ddl_files(options, sql, sizeof sql, which);
        if (joinery_run(session, sql, NULL, result) != 0)
            goto done;
    }
    if (three)
        snprintf(sql, sizeof sql,
                 "CREATE TABLE sink (order_id BIGINT, user_name STRING, product_name STRING) "
                 "WITH ('connector' = 'blackhole')");
    else
        snprintf(sql, sizeof sql,
                 "CREATE TABLE sink (order_id BIGINT, amount DECIMAL(10, 2), user_name STRING) "
                 "WITH ('connector' = 'blackhole')");
    if (joinery_run(session, sql, NULL, result) != 0)
        goto done;
    snprintf(sql, sizeof sql, "INSERT INTO sink %s", three ? JOIN_THREE_SELECT : JOIN_TWO_SELECT);
    TextSink *messages = calloc(1, sizeof *messages);
    if (!messages) {
        result_fail(result, "out of memory");
        goto done;
    }
    double start = monotonic_seconds();
    int status = joinery_run(session, sql, messages, result);
    result->seconds = monotonic_seconds() - start;
    if (status == 0) {
        /* the API does not return the sink's row count: take it from SHOW JOB METRICS */
        CaseResult ignored = {0};
        if (joinery_run(session, "SHOW JOB METRICS", messages, &ignored) == 0)
            snprintf(result->metrics, sizeof result->metrics, "%s", messages->text);
        result->output_rows = messages_sink_rows(messages->text);
    }
    free(messages);
done:
    joinery_session_close(session);
}

/* ---------------------------------------------------------------- sqlite */

/*
 * Parses one generated JSON line ({"a":1,"b":"x",...}) and binds its values
 * in order to the statement's parameters. The generator's format only:
 * flat objects of integers, decimals and strings without escapes.
 */
static int json_line_bind(sqlite3_stmt *statement, const char *line)
{
    int parameter = 0;
    const char *p = line;
    while ((p = strchr(p, ':')) != NULL) {
        p++;
        parameter++;
        if (*p == '"') {
            const char *end = strchr(p + 1, '"');
            if (!end)
                return -1;
            sqlite3_bind_text(statement, parameter, p + 1, (int)(end - p - 1), SQLITE_TRANSIENT);
            p = end + 1;
        } else if (strncmp(p, "null", 4) == 0) {
            sqlite3_bind_null(statement, parameter);
        } else {
            char *end;
            long long integer = strtoll(p, &end, 10);
            if (*end == '.')
                sqlite3_bind_double(statement, parameter, strtod(p, &end));
            else
                sqlite3_bind_int64(statement, parameter, integer);
            p = end;
        }
    }
    return parameter;
}

static int sqlite_load(sqlite3 *database, const Options *options, const char *name, const char *ddl,
                       int parameters, CaseResult *result)
{
    if (sqlite3_exec(database, ddl, NULL, NULL, NULL) != SQLITE_OK) {
        result_fail(result, "sqlite: %s", sqlite3_errmsg(database));
        return -1;
    }
    char sql[256];
    snprintf(sql, sizeof sql, "INSERT INTO %s VALUES (?%s)", name,
             parameters == 4 ? ", ?, ?, ?" : ", ?, ?");
    sqlite3_stmt *statement;
    if (sqlite3_prepare_v2(database, sql, -1, &statement, NULL) != SQLITE_OK) {
        result_fail(result, "sqlite: %s", sqlite3_errmsg(database));
        return -1;
    }
    char path[1024];
    data_path(path, sizeof path, options, name);
    FILE *file = fopen(path, "r");
    if (!file) {
        result_fail(result, "cannot open %s: %s", path, strerror(errno));
        sqlite3_finalize(statement);
        return -1;
    }
    char line[512];
    sqlite3_exec(database, "BEGIN", NULL, NULL, NULL);
    while (fgets(line, sizeof line, file)) {
        json_line_bind(statement, line);
        if (sqlite3_step(statement) != SQLITE_DONE) {
            result_fail(result, "sqlite insert: %s", sqlite3_errmsg(database));
            break;
        }
        sqlite3_reset(statement);
    }
    sqlite3_exec(database, "COMMIT", NULL, NULL, NULL);
    fclose(file);
    sqlite3_finalize(statement);
    return result->status ? -1 : 0;
}

/* Steps through the join, reading every column as a sink would. */
static void sqlite_join(sqlite3 *database, const char *sql, CaseResult *result)
{
    sqlite3_stmt *statement;
    if (sqlite3_prepare_v2(database, sql, -1, &statement, NULL) != SQLITE_OK) {
        result_fail(result, "sqlite: %s", sqlite3_errmsg(database));
        return;
    }
    double start = monotonic_seconds();
    uint64_t rows = 0;
    size_t checksum = 0;
    int columns = sqlite3_column_count(statement);
    while (sqlite3_step(statement) == SQLITE_ROW) {
        for (int c = 0; c < columns; c++) {
            const unsigned char *text = sqlite3_column_text(statement, c);
            checksum += text ? (size_t)sqlite3_column_bytes(statement, c) : 0;
        }
        rows++;
    }
    result->seconds = monotonic_seconds() - start;
    result->output_rows = rows;
    snprintf(result->metrics, sizeof result->metrics, "(%zu bytes of values read)\n", checksum);
    sqlite3_finalize(statement);
}

/*
 * Child: SQLite over the same files. The three tables are loaded once (the
 * load time is reported with both joins), then the two-table join and the
 * three-table join run one after the other: results[0] and results[1].
 */
static void sqlite_cases(const Options *options, CaseResult *results)
{
    sqlite3 *database;
    if (sqlite3_open(":memory:", &database) != SQLITE_OK) {
        result_fail(&results[0], "cannot open SQLite");
        results[1] = results[0];
        return;
    }
    sqlite3_exec(database, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF", NULL, NULL, NULL);
    double start = monotonic_seconds();
    /* the dimension keys are INTEGER PRIMARY KEYs: the index a user would declare */
    if (sqlite_load(database, options, "orders",
                    "CREATE TABLE orders (order_id INTEGER PRIMARY KEY, user_id INTEGER, "
                    "product_id INTEGER, amount NUMERIC)",
                    4, &results[0]) != 0 ||
        sqlite_load(database, options, "users",
                    "CREATE TABLE users (user_id INTEGER PRIMARY KEY, user_name TEXT, "
                    "region_id INTEGER)",
                    3, &results[0]) != 0 ||
        sqlite_load(database, options, "products",
                    "CREATE TABLE products (product_id INTEGER PRIMARY KEY, "
                    "product_name TEXT, category TEXT)",
                    3, &results[0]) != 0) {
        results[1] = results[0];
        sqlite3_close(database);
        return;
    }
    sqlite3_exec(database, "ANALYZE", NULL, NULL, NULL);
    results[0].load_seconds = results[1].load_seconds = monotonic_seconds() - start;
    sqlite_join(database, JOIN_TWO_SELECT, &results[0]);
    sqlite_join(database, JOIN_THREE_SELECT, &results[1]);
    sqlite3_close(database);
}

/* -------------------------------------------------------------- parent */

/*
 * Runs a case in a child process and fills its report(s) and the child's
 * peak RSS: the SQLite child fills two reports (both joins over one load),
 * a joinery child one. A child that runs longer than the case timeout is
 * killed.
 */
static void case_run(CaseReport *reports, const Options *options, bool is_sqlite, bool datagen,
                     bool three)
{
    int count = is_sqlite ? 2 : 1;
    CaseResult results[2];
    memset(results, 0, sizeof results);
    int pipe_ends[2];
    for (int i = 0; i < count; i++)
        reports[i].ran = true;
    if (pipe(pipe_ends) != 0) {
        result_fail(&results[0], "pipe: %s", strerror(errno));
        goto report;
    }
    fflush(stdout);
    pid_t child = fork();
    if (child < 0) {
        result_fail(&results[0], "fork: %s", strerror(errno));
        close(pipe_ends[0]);
        close(pipe_ends[1]);
        goto report;
    }
    if (child == 0) {
        close(pipe_ends[0]);
        CaseResult *child_results = calloc(2, sizeof *child_results);
        if (!child_results)
            _exit(3);
        if (is_sqlite)
            sqlite_cases(options, child_results);
        else
            joinery_case(options, datagen, three, child_results);
        const char *bytes = (const char *)child_results;
        size_t left = (size_t)count * sizeof *child_results;
        while (left > 0) {
            ssize_t written = write(pipe_ends[1], bytes, left);
            if (written <= 0)
                break;
            bytes += written;
            left -= (size_t)written;
        }
        _exit(0);
    }
    close(pipe_ends[1]);
    /* read the results, with the case timeout */
    char *bytes = (char *)results;
    size_t wanted = (size_t)count * sizeof results[0];
    size_t got = 0;
    double deadline = monotonic_seconds() + options->case_timeout_seconds;
    bool timed_out = false;
    while (got < wanted) {
        double left = deadline - monotonic_seconds();
        if (left <= 0) {
            timed_out = true;
            break;
        }
        struct pollfd descriptor = {.fd = pipe_ends[0], .events = POLLIN};
        int ready = poll(&descriptor, 1, (int)(left * 1000) + 1);
        if (ready <= 0)
            continue;
        ssize_t received = read(pipe_ends[0], bytes + got, wanted - got);
        if (received <= 0)
            break;
        got += (size_t)received;
    }
    close(pipe_ends[0]);
    if (timed_out)
        kill(child, SIGKILL);
    int wait_status = 0;
    struct rusage usage;
    memset(&usage, 0, sizeof usage);
    while (wait4(child, &wait_status, 0, &usage) < 0 && errno == EINTR)
        ;
    for (int i = 0; i < count; i++)
        reports[i].peak_rss_kib = usage.ru_maxrss;
    if (timed_out) {
        memset(results, 0, sizeof results);
        result_fail(&results[0], "did not finish within %d s (killed)",
                    options->case_timeout_seconds);
        results[1] = results[0];
    } else if (got < wanted) {
        memset(results, 0, sizeof results);
        if (WIFSIGNALED(wait_status))
            result_fail(&results[0], "the case crashed (%s)", strsignal(WTERMSIG(wait_status)));
        else
            result_fail(&results[0], "the case exited without a result");
        results[1] = results[0];
    }
report:
    for (int i = 0; i < count; i++)
        reports[i].result = results[i];
}

/* 12,345,678 */
static const char *format_count(char *buffer, size_t size, double value)
{
    char digits[64];
    snprintf(digits, sizeof digits, "%.0f", value);
    size_t length = strlen(digits), out = 0;
    for (size_t i = 0; i < length && out + 2 < size; i++) {
        if (i && (length - i) % 3 == 0)
            buffer[out++] = ',';
        buffer[out++] = digits[i];
    }
    buffer[out] = '\0';
    return buffer;
}

static void report_print(const CaseReport *report)
{
    char rows[32], rate[32], output[32];
    char label[64];
    snprintf(label, sizeof label, "%s %s, %s", report->engine, report->input, report->join);
    if (report->result.status != 0) {
        printf("  %-40s FAILED: %s\n", label, report->result.message);
        return;
    }
    double seconds = report->result.seconds + report->result.load_seconds;
    printf("  %-40s %12s %8.2f %12s %9.0f %14s\n", label,
           format_count(rows, sizeof rows, (double)report->input_rows), seconds,
           format_count(rate, sizeof rate, (double)report->input_rows / seconds),
           (double)report->peak_rss_kib / 1024.0,
           report->result.output_rows
               ? format_count(output, sizeof output, (double)report->result.output_rows)
               : "-");
    if (report->result.load_seconds > 0)
        printf("  %-40s %12s %8.2f %12s   (load %.2f s + join %.2f s)\n", "  sqlite join only", "",
               report->result.seconds,
               format_count(rate, sizeof rate, (double)report->input_rows / report->result.seconds),
               report->result.load_seconds, report->result.seconds);
}

static void metrics_print(const CaseReport *report)
{
    if (!report->result.metrics[0] || strcmp(report->engine, "joinery") != 0)
        return;
    printf("    job metrics of %s %s, %s:\n", report->engine, report->input, report->join);
    const char *line = report->result.metrics;
    while (*line) {
        const char *end = strchr(line, '\n');
        int length = end ? (int)(end - line) : (int)strlen(line);
        printf("      %.*s\n", length, line);
        line += length + (end ? 1 : 0);
    }
}

/* ------------------------------------------------------------- start-up */

/*
 * Starts joinery on a pseudo-terminal and returns the milliseconds until
 * "joinery> " appears on it, or -1. The shell is then asked to QUIT.
 * home (may be NULL) replaces $HOME, so the history file is a scratch one.
 */
static double startup_measure(const char *joinery_path, const char *home)
{
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0)
        return -1;
    const char *slave_name = ptsname(master);
    if (!slave_name) {
        close(master);
        return -1;
    }
    char slave_path[256];
    snprintf(slave_path, sizeof slave_path, "%s", slave_name);
    double start = monotonic_seconds();
    pid_t child = fork();
    if (child < 0) {
        close(master);
        return -1;
    }
    if (child == 0) {
        setsid();
        int slave = open(slave_path, O_RDWR);
        if (slave < 0)
            _exit(127);
        dup2(slave, 0);
        dup2(slave, 1);
        dup2(slave, 2);
        if (slave > 2)
            close(slave);
        close(master);
        setenv("TERM", "dumb", 1);
        if (home)
            setenv("HOME", home, 1); /* keep the user's history file out of it */
        execl(joinery_path, joinery_path, (char *)NULL);
        _exit(127);
    }
    char seen[8192];
    size_t seen_length = 0;
    double elapsed = -1;
    while (monotonic_seconds() - start < 5.0) {
        struct pollfd descriptor = {.fd = master, .events = POLLIN};
        if (poll(&descriptor, 1, 100) <= 0)
            continue;
        ssize_t count = read(master, seen + seen_length, sizeof seen - 1 - seen_length);
        if (count <= 0)
            break;
        seen_length += (size_t)count;
        seen[seen_length] = '\0';
        if (strstr(seen, "joinery> ")) {
            elapsed = (monotonic_seconds() - start) * 1000.0;
            break;
        }
        if (seen_length >= sizeof seen - 1)
            seen_length = 0;
    }
    if (write(master, "QUIT;\n", 6) < 0) {
        /* the child is killed below anyway */
    }
    /* give it a moment to exit by itself, then make sure */
    for (int i = 0; i < 50; i++) {
        if (waitpid(child, NULL, WNOHANG) == child) {
            child = -1;
            break;
        }
        struct pollfd descriptor = {.fd = master, .events = POLLIN};
        if (poll(&descriptor, 1, 10) > 0 && read(master, seen, sizeof seen) <= 0)
            usleep(1000);
    }
    if (child > 0) {
        kill(child, SIGKILL);
        waitpid(child, NULL, 0);
    }
    close(master);
    return elapsed;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void startup_report(const Options *options)
{
    if (access(options->joinery_path, X_OK) != 0) {
        printf("start-up: %s not found; skipped\n", options->joinery_path);
        return;
    }
    double times[200];
    int runs = options->startup_runs > 200 ? 200 : options->startup_runs;
    int measured = 0;
    char home[] = "/tmp/joinery-bench-home-XXXXXX";
    const char *scratch_home = mkdtemp(home);
    startup_measure(options->joinery_path, scratch_home); /* warm the page cache */
    for (int i = 0; i < runs; i++) {
        double millis = startup_measure(options->joinery_path, scratch_home);
        if (millis >= 0)
            times[measured++] = millis;
    }
    if (scratch_home) {
        char history[512];
        snprintf(history, sizeof history, "%s/.joinery_history", scratch_home);
        unlink(history);
        rmdir(scratch_home);
    }
    if (measured == 0) {
        printf("start-up to prompt: no prompt seen (is '%s' an interactive shell?)\n",
               options->joinery_path);
        return;
    }
    qsort(times, (size_t)measured, sizeof times[0], compare_doubles);
    double median = times[measured / 2];
    printf("start-up to prompt (pty, %d runs): min %.1f ms, median %.1f ms, max %.1f ms; "
           "target %d ms: %s\n",
           measured, times[0], median, times[measured - 1], STARTUP_TARGET_MILLIS,
           median <= STARTUP_TARGET_MILLIS ? "met" : "NOT met");
}

/* ---------------------------------------------------------------- main */

static void usage(FILE *out)
{
    fprintf(out,
            "usage: bench_join [--data DIR] [--orders N] [--users N] [--products N]\n"
            "                  [--joinery PATH] [--startup-runs N] [--case-timeout SECONDS]\n"
            "                  [--skip-sqlite] [--skip-datagen] [--datagen-three] [--metrics]\n"
            "                  [--generate-only]\n");
}

static int options_parse(Options *options, int argc, char **argv)
{
    *options = (Options){.data_directory = "build/bench-data",
                         .orders = 9000000,
                         .users = 1000000,
                         .products = 500000,
                         .joinery_path = "build/joinery",
                         .startup_runs = 30,
                         .case_timeout_seconds = 400};
    for (int i = 1; i < argc; i++) {
        const char *argument = argv[i];
        if (strcmp(argument, "--skip-sqlite") == 0) {
            options->skip_sqlite = true;
            continue;
        }
        if (strcmp(argument, "--skip-datagen") == 0) {
            options->skip_datagen = true;
            continue;
        }
        if (strcmp(argument, "--datagen-three") == 0) {
            options->datagen_three = true;
            continue;
        }
        if (strcmp(argument, "--metrics") == 0) {
            options->metrics = true;
            continue;
        }
        if (strcmp(argument, "--generate-only") == 0) {
            options->generate_only = true;
            continue;
        }
        if (strcmp(argument, "--help") == 0) {
            usage(stdout);
            exit(0);
        }
        if (i + 1 >= argc) {
            usage(stderr);
            return -1;
        }
        const char *value = argv[++i];
        if (strcmp(argument, "--data") == 0)
            options->data_directory = value;
        else if (strcmp(argument, "--orders") == 0)
            options->orders = atol(value);
        else if (strcmp(argument, "--users") == 0)
            options->users = atol(value);
        else if (strcmp(argument, "--products") == 0)
            options->products = atol(value);
        else if (strcmp(argument, "--joinery") == 0)
            options->joinery_path = value;
        else if (strcmp(argument, "--startup-runs") == 0)
            options->startup_runs = atoi(value);
        else if (strcmp(argument, "--case-timeout") == 0)
            options->case_timeout_seconds = atoi(value);
        else {
            usage(stderr);
            return -1;
        }
    }
    if (options->orders < 1 || options->users < 1 || options->products < 1 ||
        options->case_timeout_seconds < 1) {
        usage(stderr);
        return -1;
    }
    return 0;
}

static void ratio_print(const char *title, const CaseReport *joinery, const CaseReport *sqlite)
{
    if (!joinery->ran || !sqlite->ran || joinery->result.status || sqlite->result.status)
        return;
    double joinery_rate = (double)joinery->input_rows / joinery->result.seconds;
    double sqlite_total =
        (double)sqlite->input_rows / (sqlite->result.seconds + sqlite->result.load_seconds);
    double sqlite_join = (double)sqlite->input_rows / sqlite->result.seconds;
    double memory =
        sqlite->peak_rss_kib ? (double)joinery->peak_rss_kib / (double)sqlite->peak_rss_kib : 0;
    printf("  %-22s throughput %.2fx SQLite load+join, %.2fx SQLite join only; "
           "peak memory %.2fx\n",
           title, joinery_rate / sqlite_total, joinery_rate / sqlite_join, memory);
    /* an inner join of insert-only inputs emits exactly the final rows; outer joins emit more */
    if (strstr(joinery->join, "inner") && joinery->result.output_rows != sqlite->result.output_rows)
        printf("  %-22s WARNING: joinery wrote %llu rows, SQLite returned %llu\n", "",
               (unsigned long long)joinery->result.output_rows,
               (unsigned long long)sqlite->result.output_rows);
}

int main(int argc, char **argv)
{
    Options options;
    if (options_parse(&options, argc, argv) != 0)
        return 2;
    setvbuf(stdout, NULL, _IOLBF, 0);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    printf("bench_join: %ld cores; orders %ld, users %ld, products %ld rows\n", cores,
           options.orders, options.users, options.products);
    if (data_prepare(&options) != 0)
        return 2;
    if (options.generate_only)
        return 0;

    uint64_t two_rows = (uint64_t)(options.orders + options.users);
    uint64_t three_rows = two_rows + (uint64_t)options.products;
    CaseReport reports[6] = {
        {"joinery", "file", "two-table inner", two_rows, {0}, 0, false},
        {"joinery", "file", "three-table left", three_rows, {0}, 0, false},
        {"sqlite", "file", "two-table inner", two_rows, {0}, 0, false},
        {"sqlite", "file", "three-table left", three_rows, {0}, 0, false},
        {"joinery", "datagen", "two-table inner", two_rows, {0}, 0, false},
        {"joinery", "datagen", "three-table left", three_rows, {0}, 0, false},
    };
    printf("\n  %-40s %12s %8s %12s %9s %14s\n", "case", "input rows", "seconds", "rows/s",
           "peak MiB", "output rows");
    printf("  (joinery's output rows are changelog rows: a LEFT join emits a padded row and "
           "retracts it when a match arrives)\n");
    double bench_start = monotonic_seconds();
    for (int i = 0; i < 6; i++) {
        bool is_sqlite = strcmp(reports[i].engine, "sqlite") == 0;
        bool datagen = strcmp(reports[i].input, "datagen") == 0;
        bool three = strstr(reports[i].join, "three") != NULL;
        if (is_sqlite && options.skip_sqlite)
            continue;
        if (datagen && (options.skip_datagen || (three && !options.datagen_three)))
            continue;
        if (is_sqlite && three)
            continue; /* reports[3] was filled with reports[2] */
        case_run(&reports[i], &options, is_sqlite, datagen, three);
        report_print(&reports[i]);
        if (is_sqlite)
            report_print(&reports[i + 1]);
    }
    printf("  (the SQLite process loads the three tables once and runs both joins: its load time "
           "and peak memory are shared)\n");
    printf("\nratios (joinery / SQLite, same run; throughput > 1 means joinery is faster, "
           "memory > 1 means it uses more):\n");
    ratio_print("two-table inner join", &reports[0], &reports[2]);
    ratio_print("three-table left join", &reports[1], &reports[3]);
    printf("  (SQLite runs the join as a batch query over indexed tables; joinery runs it as "
           "a streaming join that keeps both inputs in state.)\n");
    if (options.metrics) {
        printf("\n");
        for (int i = 0; i < 6; i++)
            if (reports[i].ran)
                metrics_print(&reports[i]);
    }
    printf("\njoin cases took %.0f s in all\n\n", monotonic_seconds() - bench_start);
    startup_report(&options);
    return 0;
}
