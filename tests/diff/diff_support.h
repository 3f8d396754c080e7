/*
 * diff_support.h - what the differential tools (diff_join.c, diff_interval.c,
 * diff_window.c, diff_temporal.c) share: their command-line options and
 * parser (diff_options_parse), growable text, a seeded random generator (splitmix64: the same
 * sequence everywhere), a multiset of encoded result rows and sorted row
 * lists, the result handler that applies a changelog to a multiset (and
 * fails on a retraction of a row that is not there), the hang guard and
 * crash report, and the run of one statement through
 * joinery_session_execute. Header-only (static functions) so that each
 * tool stays one translation unit; the includer defines DIFF_TOOL_NAME
 * (its name in messages) and may define MAX_PRINTED_ROWS.
 *
 * Rows are encoded as their values joined by ROW_SEPARATOR, NULL as
 * NULL_MARK; values are compared as the text joinery's result handler
 * gives.
 */
#ifndef JOINERY_TESTS_DIFF_SUPPORT_H
#define JOINERY_TESTS_DIFF_SUPPORT_H

#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/engine.h"

#ifndef DIFF_TOOL_NAME
#error "define DIFF_TOOL_NAME before including diff_support.h"
#endif
#ifndef MAX_PRINTED_ROWS
#define MAX_PRINTED_ROWS 40
#endif

/* ------------------------------------------------------------------ text */

/* A growable NUL-terminated string. Allocation failure exits the test. */
typedef struct Text {
    char *data;
    size_t length;
    size_t capacity;
} Text;

static inline void text_reserve(Text *text, size_t extra)
{
    if (text->length + extra + 1 <= text->capacity)
        return;
    size_t capacity = text->capacity ? text->capacity : 256;
    while (capacity < text->length + extra + 1)
        capacity *= 2;
    char *data = realloc(text->data, capacity);
    if (!data) {
        fprintf(stderr, DIFF_TOOL_NAME ": out of memory\n");
        exit(2);
    }
    text->data = data;
    text->capacity = capacity;
}

static inline void text_append(Text *text, const char *bytes, size_t length)
{
    text_reserve(text, length);
    memcpy(text->data + text->length, bytes, length);
    text->length += length;
    text->data[text->length] = '\0';
}

static inline void text_vprintf(Text *text, const char *format, va_list arguments)
{
    va_list copy;
    va_copy(copy, arguments);
    int needed = vsnprintf(NULL, 0, format, copy);
    va_end(copy);
    if (needed < 0)
        return;
    text_reserve(text, (size_t)needed);
    vsnprintf(text->data + text->length, (size_t)needed + 1, format, arguments);
    text->length += (size_t)needed;
}

static inline void text_printf(Text *text, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
static inline void text_printf(Text *text, const char *format, ...)
{
    va_list arguments;
    va_start(arguments, format);
    text_vprintf(text, format, arguments);
    va_end(arguments);
}

static inline void text_clear(Text *text)
{
    text->length = 0;
    if (text->data)
        text->data[0] = '\0';
}

static inline void text_free(Text *text)
{
    free(text->data);
    text->data = NULL;
    text->length = text->capacity = 0;
}

static inline char *string_duplicate(const char *text)
{
    char *copy = strdup(text);
    if (!copy) {
        fprintf(stderr, DIFF_TOOL_NAME ": out of memory\n");
        exit(2);
    }
    return copy;
}

/* ------------------------------------------------------------ randomness */

/* splitmix64: small, fast, and the same sequence on every platform. */
typedef struct Random {
    uint64_t state;
} Random;

static inline uint64_t random_next(Random *random)
{
    uint64_t z = (random->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [0, bound). */
static inline int random_below(Random *random, int bound)
{
    return (int)(random_next(random) % (uint64_t)bound);
}

/* Uniform in [low, high]. */
static inline int random_range(Random *random, int low, int high)
{
    return low + random_below(random, high - low + 1);
}

static inline bool random_percent(Random *random, int percent)
{
    return random_below(random, 100) < percent;
}

/* ------------------------------------------------------------- multisets */

/* Rows are encoded as their values joined by ROW_SEPARATOR, NULL as NULL_MARK. */
#define ROW_SEPARATOR '\x1f'
#define NULL_MARK "\x01"

typedef struct MultisetEntry {
    char *row;
    long count;
    struct MultisetEntry *next;
} MultisetEntry;

/* A bag of encoded rows: a chained hash table of (row, count). */
typedef struct Multiset {
    MultisetEntry **buckets;
    size_t bucket_count;
    size_t total; /* sum of counts */
} Multiset;

static inline uint64_t hash_text(const char *text)
{
    uint64_t hash = 1469598103934665603ull;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++)
        hash = (hash ^ *p) * 1099511628211ull;
    return hash;
}

static inline void multiset_init(Multiset *set)
{
    set->bucket_count = 1024;
    set->buckets = calloc(set->bucket_count, sizeof *set->buckets);
    set->total = 0;
    if (!set->buckets) {
        fprintf(stderr, DIFF_TOOL_NAME ": out of memory\n");
        exit(2);
    }
}

static inline MultisetEntry **multiset_slot(Multiset *set, const char *row)
{
    MultisetEntry **slot = &set->buckets[hash_text(row) % set->bucket_count];
    while (*slot && strcmp((*slot)->row, row) != 0)
        slot = &(*slot)->next;
    return slot;
}

static inline void multiset_add(Multiset *set, const char *row)
{
    MultisetEntry **slot = multiset_slot(set, row);
    if (!*slot) {
        MultisetEntry *entry = calloc(1, sizeof *entry);
        if (!entry) {
            fprintf(stderr, DIFF_TOOL_NAME ": out of memory\n");
            exit(2);
        }
        entry->row = string_duplicate(row);
        *slot = entry;
    }
    (*slot)->count++;
    set->total++;
}

/* Removes one copy of row; false when the multiset holds none. */
static inline bool multiset_remove(Multiset *set, const char *row)
{
    MultisetEntry **slot = multiset_slot(set, row);
    if (!*slot)
        return false;
    MultisetEntry *entry = *slot;
    set->total--;
    if (--entry->count == 0) {
        *slot = entry->next;
        free(entry->row);
        free(entry);
    }
    return true;
}

static inline void multiset_free(Multiset *set)
{
    for (size_t i = 0; i < set->bucket_count; i++) {
        MultisetEntry *entry = set->buckets[i];
        while (entry) {
            MultisetEntry *next = entry->next;
            free(entry->row);
            free(entry);
            entry = next;
        }
    }
    free(set->buckets);
    set->buckets = NULL;
    set->total = 0;
}

/* A sorted list of encoded rows (duplicates repeated). */
typedef struct RowList {
    char **rows;
    size_t count;
    size_t capacity;
} RowList;

static inline void row_list_push(RowList *list, const char *row)
{
    if (list->count == list->capacity) {
        list->capacity = list->capacity ? list->capacity * 2 : 64;
        char **rows = realloc(list->rows, list->capacity * sizeof *rows);
        if (!rows) {
            fprintf(stderr, DIFF_TOOL_NAME ": out of memory\n");
            exit(2);
        }
        list->rows = rows;
    }
    list->rows[list->count++] = string_duplicate(row);
}

static inline int compare_row_pointers(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static inline void row_list_sort(RowList *list)
{
    if (list->count > 1)
        qsort(list->rows, list->count, sizeof *list->rows, compare_row_pointers);
}

static inline void row_list_free(RowList *list)
{
    for (size_t i = 0; i < list->count; i++)
        free(list->rows[i]);
    free(list->rows);
    list->rows = NULL;
    list->count = list->capacity = 0;
}

/* The multiset's rows, each repeated count times, sorted. */
static inline void multiset_to_list(const Multiset *set, RowList *list)
{
    for (size_t i = 0; i < set->bucket_count; i++)
        for (const MultisetEntry *entry = set->buckets[i]; entry; entry = entry->next)
            for (long c = 0; c < entry->count; c++)
                row_list_push(list, entry->row);
    row_list_sort(list);
}

/* Prints an encoded row as "v1 | v2 | <NULL>". */
static inline void row_print(FILE *out, const char *row)
{
    fputs("    ", out);
    for (const char *p = row; *p; p++) {
        if (*p == ROW_SEPARATOR)
            fputs(" | ", out);
        else if (*p == NULL_MARK[0])
            fputs("<NULL>", out);
        else
            fputc(*p, out);
    }
    fputc('\n', out);
}

/* ------------------------------------------------------------ collection */

/* Applies a joinery changelog to a multiset (the JoineryResultHandler context). */
typedef struct Collector {
    Multiset rows;
    bool began;
    JoineryResultKind kind;
    size_t column_count;
    uint64_t changelog_rows;
    bool ended;
    bool cancelled;
    Text failure;    /* the first protocol violation; empty when none */
    Text row;        /* scratch: the row being encoded */
    RowList ordered; /* every row in arrival order (a batch result is compared in order) */
    bool non_insert; /* a row other than +I arrived */
} Collector;

static inline int collector_begin(void *context, JoineryResultKind kind,
                                  const JoineryColumn *columns, size_t column_count)
{
    (void)columns;
    Collector *collector = context;
    if (collector->began && collector->failure.length == 0)
        text_printf(&collector->failure, "a second result set began");
    collector->began = true;
    collector->kind = kind;
    collector->column_count = column_count;
    return 0;
}

static inline const char *row_kind_name(JoineryRowKind kind)
{
    switch (kind) {
    case JOINERY_ROW_INSERT:
        return "+I";
    case JOINERY_ROW_UPDATE_BEFORE:
        return "-U";
    case JOINERY_ROW_UPDATE_AFTER:
        return "+U";
    case JOINERY_ROW_DELETE:
        return "-D";
    }
    return "??";
}

static inline int collector_row(void *context, JoineryRowKind kind, const char *const *values,
                                size_t column_count)
{
    Collector *collector = context;
    collector->changelog_rows++;
    text_clear(&collector->row);
    text_append(&collector->row, "", 0);
    for (size_t i = 0; i < column_count; i++) {
        if (i)
            text_append(&collector->row, (const char[]){ROW_SEPARATOR}, 1);
        if (values[i])
            text_append(&collector->row, values[i], strlen(values[i]));
        else
            text_append(&collector->row, NULL_MARK, 1);
    }
    if (column_count != collector->column_count && collector->failure.length == 0)
        text_printf(&collector->failure, "a row has %zu values, the result has %zu columns",
                    column_count, collector->column_count);
    row_list_push(&collector->ordered, collector->row.data);
    if (kind != JOINERY_ROW_INSERT)
        collector->non_insert = true;
    if (kind == JOINERY_ROW_INSERT || kind == JOINERY_ROW_UPDATE_AFTER) {
        multiset_add(&collector->rows, collector->row.data);
    } else if (!multiset_remove(&collector->rows, collector->row.data) &&
               collector->failure.length == 0) {
        text_printf(&collector->failure,
                    "changelog row %llu is %s of a row that is not in the result:",
                    (unsigned long long)collector->changelog_rows, row_kind_name(kind));
        for (const char *p = collector->row.data; *p; p++) {
            if (*p == ROW_SEPARATOR)
                text_printf(&collector->failure, " |");
            else if (*p == NULL_MARK[0])
                text_printf(&collector->failure, " <NULL>");
            else
                text_printf(&collector->failure, "%s%c",
                            (p == collector->row.data || p[-1] == ROW_SEPARATOR) ? " " : "", *p);
        }
    }
    return 0;
}

static inline int collector_end(void *context, uint64_t row_count, bool cancelled)
{
    Collector *collector = context;
    collector->ended = true;
    collector->cancelled = cancelled;
    if (row_count != collector->changelog_rows && collector->failure.length == 0)
        text_printf(&collector->failure, "end reports %llu rows, %llu were received",
                    (unsigned long long)row_count, (unsigned long long)collector->changelog_rows);
    return 0;
}

static inline void collector_init(Collector *collector)
{
    memset(collector, 0, sizeof *collector);
    multiset_init(&collector->rows);
}

static inline void collector_free(Collector *collector)
{
    multiset_free(&collector->rows);
    row_list_free(&collector->ordered);
    text_free(&collector->failure);
    text_free(&collector->row);
}

/* -------------------------------------------------------------- watchdog */

/* The hang guard: SIGALRM cancels the running statement. */
static JoinerySession *volatile watched_session;
static volatile sig_atomic_t watchdog_fired;
/* What runs now, for the crash handler (written before each statement). */
static const char *volatile running_sql;

static inline void watchdog_handle(int signal_number)
{
    (void)signal_number;
    watchdog_fired = 1;
    JoinerySession *session = watched_session;
    if (session)
        joinery_session_cancel(session);
}

static inline void write_all(int descriptor, const char *text)
{
    size_t length = strlen(text);
    while (length > 0) {
        ssize_t written = write(descriptor, text, length);
        if (written <= 0)
            return;
        text += written;
        length -= (size_t)written;
    }
}

/* On a crash, say which statement crashed, then die of the same signal. */
static inline void crash_handle(int signal_number)
{
    const char *sql = running_sql;
    write_all(2, "\n" DIFF_TOOL_NAME ": crashed (");
    write_all(2, strsignal(signal_number));
    write_all(2, ") while running:\n");
    write_all(2, sql ? sql : "(no statement)");
    write_all(2, "\n");
    signal(signal_number, SIG_DFL);
    raise(signal_number);
}

static inline void signals_install(void)
{
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = watchdog_handle;
    sigemptyset(&action.sa_mask);
    sigaction(SIGALRM, &action, NULL);
    action.sa_handler = crash_handle;
    action.sa_flags = SA_RESETHAND;
    sigaction(SIGSEGV, &action, NULL);
    sigaction(SIGBUS, &action, NULL);
    sigaction(SIGABRT, &action, NULL);
    sigaction(SIGFPE, &action, NULL);
}

/* ------------------------------------------------------------------ runs */

/*
 * Executes one statement in the session, with the hang guard. Returns the
 * engine's status; *error holds the message when non-zero.
 */
static inline int session_run(JoinerySession *session, const char *sql, Collector *collector,
                              int timeout_seconds, JoineryError *error)
{
    JoineryResultHandler handler = {0};
    if (collector) {
        handler.context = collector;
        handler.begin = collector_begin;
        handler.row = collector_row;
        handler.end = collector_end;
    }
    memset(error, 0, sizeof *error);
    running_sql = sql;
    watchdog_fired = 0;
    watched_session = session;
    alarm((unsigned)timeout_seconds);
    int status = joinery_session_execute(session, sql, strlen(sql), 1, 1, &handler, error);
    alarm(0);
    watched_session = NULL;
    running_sql = NULL;
    return status;
}

/* Prints rows of `a` missing from `b` (both sorted), at most MAX_PRINTED_ROWS. */
static inline void row_lists_print_difference(const char *title, const RowList *a, const RowList *b)
{
    size_t i = 0, j = 0, printed = 0, total = 0;
    while (i < a->count) {
        int order = j < b->count ? strcmp(a->rows[i], b->rows[j]) : -1;
        if (order == 0) {
            i++;
            j++;
        } else if (order < 0) {
            if (total++ == 0)
                printf("  %s:\n", title);
            if (printed < MAX_PRINTED_ROWS) {
                row_print(stdout, a->rows[i]);
                printed++;
            }
            i++;
        } else {
            j++;
        }
    }
    if (total > printed)
        printf("    ... %zu more\n", total - printed);
}

static inline void row_list_print(const char *title, const RowList *list)
{
    printf("  %s (%zu rows):\n", title, list->count);
    for (size_t i = 0; i < list->count && i < MAX_PRINTED_ROWS; i++)
        row_print(stdout, list->rows[i]);
    if (list->count > MAX_PRINTED_ROWS)
        printf("    ... %zu more\n", list->count - MAX_PRINTED_ROWS);
}

static inline bool row_lists_equal(const RowList *a, const RowList *b)
{
    if (a->count != b->count)
        return false;
    for (size_t i = 0; i < a->count; i++)
        if (strcmp(a->rows[i], b->rows[i]) != 0)
            return false;
    return true;
}

/* --------------------------------------------------------------- options */

/* The options every differential tool takes. */
typedef struct DiffOptions {
    int count; /* the tool's count option (--queries, --cases, --rounds) */
    uint64_t seed;
    int parallelism;
    int only; /* -1: every query / case / round */
    int timeout_seconds;
    bool keep;
    bool verbose;
} DiffOptions;

/* A tool's own option: "--name VALUE" read into *integer or handed to parse(context,
   VALUE) (0: accepted), or a flag without a value that sets *flag. */
typedef struct DiffExtraOption {
    const char *name;
    int *integer;
    bool *flag;
    int (*parse)(void *context, const char *value);
    void *context;
} DiffExtraOption;

/* How a tool reads its command line. */
typedef struct DiffOptionSpec {
    const char *count_name; /* "--queries" */
    int minimum_count;
    int minimum_timeout;
    void (*usage)(FILE *out);
    const DiffExtraOption *extras;
    int extra_count;
} DiffOptionSpec;

/*
 * Parses argv into *options (which holds the tool's defaults) and the spec's extras:
 * COUNT_NAME N, --seed S, --parallelism P, --only N, --timeout SECONDS, --keep,
 * --verbose / -v, --help / -h (usage on stdout, exit 0). Returns 0, or -1 after the usage
 * on stderr for an unknown option, a missing value, a value an extra's parse refuses, a
 * count below minimum_count, a parallelism below 1 or a timeout below minimum_timeout.
 */
static inline int diff_options_parse(DiffOptions *options, const DiffOptionSpec *spec, int argc,
                                     char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *argument = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argument, "--keep") == 0) {
            options->keep = true;
            continue;
        }
        if (strcmp(argument, "--verbose") == 0 || strcmp(argument, "-v") == 0) {
            options->verbose = true;
            continue;
        }
        if (strcmp(argument, "--help") == 0 || strcmp(argument, "-h") == 0) {
            spec->usage(stdout);
            exit(0);
        }
        const DiffExtraOption *extra = NULL;
        for (int e = 0; e < spec->extra_count && !extra; e++)
            if (strcmp(argument, spec->extras[e].name) == 0)
                extra = &spec->extras[e];
        if (extra && extra->flag) {
            *extra->flag = true;
            continue;
        }
        int *integer = NULL;
        if (strcmp(argument, spec->count_name) == 0)
            integer = &options->count;
        else if (strcmp(argument, "--parallelism") == 0)
            integer = &options->parallelism;
        else if (strcmp(argument, "--only") == 0)
            integer = &options->only;
        else if (strcmp(argument, "--timeout") == 0)
            integer = &options->timeout_seconds;
        else if (extra)
            integer = extra->integer;
        bool seed = strcmp(argument, "--seed") == 0;
        if (!(seed || integer || (extra && extra->parse)) || !value) {
            spec->usage(stderr);
            return -1;
        }
        i++;
        if (seed) {
            options->seed = strtoull(value, NULL, 10);
        } else if (integer) {
            *integer = atoi(value);
        } else if (extra->parse(extra->context, value) != 0) {
            spec->usage(stderr);
            return -1;
        }
    }
    if (options->count < spec->minimum_count || options->parallelism < 1 ||
        options->timeout_seconds < spec->minimum_timeout) {
        spec->usage(stderr);
        return -1;
    }
    return 0;
}

#endif
