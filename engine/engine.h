/*
 * engine.h - joinery's public engine API: the only header cli/ includes.
 *
 * A session holds the catalog, the session options (SET) and at most one
 * running job. The caller hands it one statement at a time (the CLI splits
 * scripts into statements) and receives results through callbacks, so rows
 * reach the terminal as soon as the engine produces them.
 *
 * Threading: all calls on one session come from one thread, except
 * joinery_session_cancel, which is async-signal-safe and may be called from
 * a signal handler or another thread while joinery_session_execute runs.
 */
#ifndef JOINERY_ENGINE_H
#define JOINERY_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct JoinerySession JoinerySession;

/* How the CLI should lay a value out and how JSON output should encode it. */
typedef enum JoineryValueClass {
    JOINERY_VALUE_STRING = 0, /* left-aligned in tableau; JSON string */
    JOINERY_VALUE_NUMBER,     /* right-aligned; JSON number */
    JOINERY_VALUE_BOOLEAN,    /* JSON true/false */
    JOINERY_VALUE_TEMPORAL,   /* JSON string "YYYY-MM-DD HH:MM:SS.fff" */
} JoineryValueClass;

typedef struct JoineryColumn {
    const char *name;      /* output name as Flink gives it (dupes suffixed 0, 1...) */
    const char *type_name; /* Flink spelling, e.g. "BIGINT", "STRING NOT NULL" */
    JoineryValueClass value_class;
} JoineryColumn;

typedef enum JoineryResultKind {
    JOINERY_RESULT_TABLE = 0, /* SHOW / DESCRIBE style: no op column, "N rows in set" */
    JOINERY_RESULT_CHANGELOG, /* a streaming query: op column, "Received a total of N rows" */
    /* a query in batch mode (execution.runtime-mode = 'batch'): its final rows once, after
       the job ended, no op column, NULL as <NULL>, "N rows in set" (Flink's batch result) */
    JOINERY_RESULT_BATCH,
} JoineryResultKind;

/* Row kinds of a changelog, numbered as engine/base/row.h numbers them. */
typedef enum JoineryRowKind {
    JOINERY_ROW_INSERT = 0,        /* +I */
    JOINERY_ROW_UPDATE_BEFORE = 1, /* -U */
    JOINERY_ROW_UPDATE_AFTER = 2,  /* +U */
    JOINERY_ROW_DELETE = 3,        /* -D */
} JoineryRowKind;

/*
 * Result callbacks. Any may be NULL. Strings passed in are valid only for the
 * duration of the call. A callback returning non-zero asks the engine to stop
 * the statement (as if cancelled).
 */
typedef struct JoineryResultHandler {
    void *context;
    /* A result set starts: its columns and kind. */
    int (*begin)(void *context, JoineryResultKind kind, const JoineryColumn *columns,
                 size_t column_count);
    /* One row. values[i] is NULL for SQL NULL, else the text form; a NUL byte inside a
       string value is given as U+2400 (the symbol for NUL), since values are C strings. */
    int (*row)(void *context, JoineryRowKind kind, const char *const *values, size_t column_count);
    /* The result set ends; cancelled is true after joinery_session_cancel. */
    int (*end)(void *context, uint64_t row_count, bool cancelled);
    /* Plain text output (EXPLAIN plans, HELP, SHOW CREATE TABLE). */
    int (*text)(void *context, const char *text);
    /* "[INFO] ..." messages: the text after "[INFO] ". */
    int (*info)(void *context, const char *message);
    /* Progress while a job runs: a one-line status (rows, state, busy). */
    int (*status)(void *context, const char *line);
    /* "[WARNING] ..." messages (what a job passed over: a dangling link in a source
       directory): the text after "[WARNING] ". NULL: shown through info. */
    int (*warning)(void *context, const char *message);
    /*
     * The running job's per-operator metrics, the table SHOW JOB METRICS
     * prints (rows in/out, state rows, keys and bytes, busy, backpressure,
     * watermarks), about every second while it runs on one thread
     * (parallelism 1: the metrics are read where they are written). May be NULL.
     */
    int (*metrics)(void *context, const char *text);
} JoineryResultHandler;

typedef struct JoineryError {
    int status; /* 0 when no error */
    int line;   /* 1-based line in the caller's script; 0 when unknown */
    int column; /* 1-based column; 0 when unknown */
    char message[2048];
} JoineryError;

/* Opens a session with an empty catalog; NULL when memory is exhausted. */
JoinerySession *joinery_session_open(void);
/* Closes the session, cancelling and freeing a running job. NULL is a no-op. */
void joinery_session_close(JoinerySession *session);

/*
 * Executes one statement (text need not end with ';'; trailing ';' and
 * whitespace are ignored). first_line/first_column give the position of
 * text[0] in the caller's script, so error positions are script positions.
 * Returns 0, or non-zero with *error filled (status, position, message).
 */
int joinery_session_execute(JoinerySession *session, const char *text, size_t length,
                            int first_line, int first_column, const JoineryResultHandler *handler,
                            JoineryError *error);

/* Asks the running statement to stop soon. Async-signal-safe. */
void joinery_session_cancel(JoinerySession *session);

/*
 * Background jobs (SET 'table.dml-sync' = 'false': INSERT INTO returns with
 * a job id while its job runs on threads of its own). running_jobs counts
 * those still running. wait_jobs waits until every one has ended, calling
 * report(context, line) with a line for each whose end was not said yet
 * (STOP JOB says it), in submission order (report may be NULL);
 * joinery_session_cancel during the wait (Ctrl-C) cancels them all.
 * cancel_jobs cancels every running one and waits for it;
 * joinery_session_close does that too.
 */
/*
 * True while a BEGIN STATEMENT SET has had no END: the INSERTs it collected
 * (their count in *statements, when not NULL) run only at END, so a caller
 * whose input ends there says they were not submitted.
 */
bool joinery_session_statement_set_open(const JoinerySession *session, size_t *statements);
size_t joinery_session_running_jobs(JoinerySession *session);
void joinery_session_wait_jobs(JoinerySession *session,
                               void (*report)(void *context, const char *line), void *context);
void joinery_session_cancel_jobs(JoinerySession *session);

/* Current value of a session option (SET); NULL when unset and no default. */
const char *joinery_session_get_option(JoinerySession *session, const char *key);

/*
 * Names for tab completion: calls emit(context, name) for every table and
 * view name, and for every column name of every table and view.
 */
void joinery_session_list_names(JoinerySession *session,
                                void (*emit)(void *context, const char *name), void *context);

/*
 * Names for context-aware completion; each calls emit(context, name) per name.
 * Tables: every table and view. Columns: those of the table or view `table`
 * (exact name), none when there is no such table.
 */
void joinery_session_list_tables(JoinerySession *session,
                                 void (*emit)(void *context, const char *name), void *context);
void joinery_session_list_columns(JoinerySession *session, const char *table,
                                  void (*emit)(void *context, const char *name), void *context);
/* The session option keys SET knows, in SET;'s order. */
void joinery_list_option_keys(void (*emit)(void *context, const char *name), void *context);
/* The connectors ('connector' = '...'). */
void joinery_list_connectors(void (*emit)(void *context, const char *name), void *context);
/*
 * The WITH option keys of `connector`: 'connector' first, then the
 * connector's own (patterns such as fields.#.kind as written, '#' standing for
 * a column name); only 'connector' when the connector is unknown or NULL.
 */
void joinery_list_connector_options(const char *connector,
                                    void (*emit)(void *context, const char *name), void *context);
/* The built-in function names (upper case, each once). */
void joinery_list_functions(void (*emit)(void *context, const char *name), void *context);

/* NULL-terminated list of SQL keywords (for completion and highlighting). */
const char *const *joinery_keywords(void);

/* Text of HELP;, listing the statements. */
const char *joinery_help_text(void);

/* ---- Statement splitting (owned by the CLI engineer; engine/sql/split.c) ----
 * The CLI and the engine share one definition of where a statement ends: a ';'
 * outside 'strings' ('' escapes), `identifiers`, -- comments and block
 * comments (hints included). Text need not be NUL-terminated.
 */

/*
 * Length of the first complete statement of text (through its ';'), or 0 when
 * there is none yet. *is_blank (may be NULL): for a complete statement,
 * whether it holds only whitespace and plain comments before its ';';
 * otherwise whether all of text is blank and closed (no open string,
 * identifier or block comment).
 */
size_t joinery_statement_end(const char *text, size_t length, bool *is_blank);

/* Offset of the first byte that is neither whitespace nor in a plain comment. */
size_t joinery_statement_skip_blank(const char *text, size_t length);

/* ---- Secrets in statement text (engine/sql/secrets.c) ----
 * One rule decides what is sensitive (engine/base/sensitive.h: Flink's
 * sensitive key words, librdkafka's sensitive properties, credentials in
 * values); this applies it to the lexer's tokens of a statement, so the
 * shell can keep secrets out of its history file and mask them in the
 * source lines it echoes under errors.
 */

/* What a secret is shown as. */
#define JOINERY_SECRET_MASK "******"

/*
 * Finds the secrets in text[0..length) (one or more statements, finished or
 * not; need not be NUL-terminated): calls emit(context, offset, length) for
 * each byte range that holds one (a whole value token, quotes included), in
 * increasing order, without overlaps. emit may be NULL. Returns how many.
 */
size_t joinery_statement_find_secrets(const char *text, size_t length,
                                      void (*emit)(void *context, size_t offset, size_t length),
                                      void *context);

/* ---- Text helpers for the CLI's renderers: the engine's own, so both agree ---- */

/*
 * Decodes the UTF-8 sequence at text[0..length-1] (length >= 1): returns its
 * byte length and stores its code point in *code_point. A byte that does not
 * start a well-formed sequence (overlong forms, surrogates and code points
 * above U+10FFFF are ill-formed) gives 1 and UINT32_MAX.
 */
size_t joinery_utf8_decode(const char *text, size_t length, uint32_t *code_point);

/*
 * Writes text[0..length-1] as a JSON string, quotes included, through
 * write(context, bytes, length), in pieces. Escaped: '"', '\\', control
 * characters (\n \r \t \b \f, else \u00xx), DEL, U+2028 and U+2029 (\u2028,
 * \u2029), and every ill-formed UTF-8 sequence (\ufffd, the U+FFFD Java's
 * decoder makes of it), so the output is valid UTF-8 JSON whatever the input. Stops at
 * the first write that returns non-zero and returns that; 0 otherwise.
 */
int joinery_json_quote(const char *text, size_t length,
                       int (*write)(void *context, const char *bytes, size_t length),
                       void *context);

#endif
