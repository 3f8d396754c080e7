/*
 * render.h - the renderer interface: turns engine result callbacks into
 * output in one format (tableau, csv or json, one file each).
 *
 * A Renderer lives for one statement. render.c owns what every format shares
 * (text, [INFO] and status callbacks, write-error tracking, the live status
 * line); a RenderFormat supplies begin/row/end for result sets.
 *
 * Invariants:
 * - Every row is written and flushed before the row callback returns.
 * - Once a write to the output fails, write_failed stays true and every
 *   callback returns non-zero, which asks the engine to stop the statement.
 * - The status line, when shown, is erased before any other output and when
 *   the result ends, so it never mixes with rows.
 */
#ifndef JOINERY_CLI_RENDER_H
#define JOINERY_CLI_RENDER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "engine/engine.h"

typedef enum CliOutputFormat {
    CLI_OUTPUT_TABLEAU = 0,
    CLI_OUTPUT_CSV,
    CLI_OUTPUT_JSON,
    CLI_OUTPUT_TABLE,     /* result-mode 'table': the full-screen materialised view */
    CLI_OUTPUT_CHANGELOG, /* result-mode 'changelog': the full-screen changelog view */
} CliOutputFormat;

typedef enum RenderStatusMode {
    RENDER_STATUS_IGNORE = 0, /* drop status callbacks */
    RENDER_STATUS_LIVE,       /* one line on the status stream, rewritten with \r */
    RENDER_STATUS_LINES,      /* one status per line (status stream is no terminal) */
} RenderStatusMode;

typedef struct Renderer Renderer;

/* One output format. Callbacks return 0, or non-zero to stop the statement. */
typedef struct RenderFormat {
    int (*begin)(Renderer *renderer, JoineryResultKind kind, const JoineryColumn *columns,
                 size_t column_count);
    int (*row)(Renderer *renderer, JoineryRowKind kind, const char *const *values,
               size_t column_count);
    int (*end)(Renderer *renderer, uint64_t row_count, bool cancelled);
    /* The job's status line while a result is open; NULL: the renderer's status line. */
    int (*status)(Renderer *renderer, const char *line);
    /* The running job's per-operator metrics table; NULL: not shown. */
    int (*metrics)(Renderer *renderer, const char *text);
    /* Closes a result the engine left open without end (it failed, e.g. on a bad record):
       what is printed is made whole (tableau's bottom border), no footer. May be NULL. */
    void (*close)(Renderer *renderer);
    /* Frees per-result state; safe to call when there is none. */
    void (*discard)(Renderer *renderer);
} RenderFormat;

struct Renderer {
    const RenderFormat *format;
    FILE *out;         /* rows, text and (tableau) [INFO] messages */
    FILE *message_out; /* [INFO] messages */
    FILE *status_out;  /* status line */
    RenderStatusMode status_mode;
    bool status_visible;    /* a live status line is on screen */
    bool write_failed;      /* a write to out failed (e.g. EPIPE) */
    bool result_open;       /* begin was called and end not yet */
    bool result_cancelled;  /* end reported cancelled */
    uint64_t rows_received; /* rows of the open result so far */
    /* out is the terminal: a cancelled result starts with \r so that its
       footer overwrites the "^C" the terminal echoed */
    bool erase_interrupt_echo;
    size_t max_column_width; /* tableau: table.display.max-column-width */
    /* sql-client.display.print-time-cost: tableau footers end " (N.NN seconds)", the time
       since started (CLOCK_MONOTONIC seconds, set by renderer_init) */
    bool print_time_cost;
    double started;
    /* CLI_OUTPUT_TABLE or CLI_OUTPUT_CHANGELOG (0: none): streaming results open the
       full-screen view (RENDER_FORMAT_VIEW), reading keys from view_input_fd; other
       results print as tableau */
    CliOutputFormat view_mode;
    int view_input_fd;
    JoinerySession *session; /* the view's Q stops the running query (joinery_session_cancel) */
    JoineryResultKind kind;  /* of the open result */
    size_t column_count;     /* of the open result */
    void *state;             /* the format's per-result state */
};

extern const RenderFormat RENDER_FORMAT_TABLEAU;
extern const RenderFormat RENDER_FORMAT_CSV;
extern const RenderFormat RENDER_FORMAT_JSON;
extern const RenderFormat RENDER_FORMAT_VIEW;

/*
 * Width the tableau reserves for values of a type (Flink's columnWidthsByType),
 * from its Flink spelling ("BIGINT NOT NULL", "DECIMAL(10, 2)"); types of
 * unbounded width get max_column_width.
 */
size_t render_type_width(const char *type_name, size_t max_column_width);

/*
 * Prepares a renderer writing results to out (normally stdout) and status to
 * status_out per status_mode. [INFO] messages go to out in tableau format and
 * to stderr in csv/json, so that machine-readable output stays parseable.
 * CLI_OUTPUT_TABLE / CHANGELOG open the full-screen view for streaming
 * results (the caller passes them only when out and stdin are a terminal).
 */
void renderer_init(Renderer *renderer, CliOutputFormat format, FILE *out, FILE *status_out,
                   RenderStatusMode status_mode, size_t max_column_width);

/* A handler whose callbacks drive this renderer (valid while it lives). */
JoineryResultHandler renderer_handler(Renderer *renderer);

/*
 * Ends the renderer's statement: erases the status line and frees format
 * state. When a result is still open (the engine stopped without calling end)
 * and cancelled is true, ends it as cancelled first, so the user still sees
 * "Query terminated, received a total of N rows"; when not cancelled (the
 * statement failed), closes it (RenderFormat.close) so that the error that
 * follows does not hang off an open table.
 */
void renderer_finish(Renderer *renderer, bool cancelled);

/* Erases the live status line if one is shown. */
void renderer_clear_status(Renderer *renderer);

/*
 * Records the outcome of writes just made to renderer->out (ferror) and
 * returns 0, or -1 once a write has failed.
 */
int renderer_check_output(Renderer *renderer);

/*
 * " (N.NN seconds)", the time since renderer_init, when print_time_cost is on;
 * "" otherwise. Returns buffer.
 */
const char *render_time_cost(const Renderer *renderer, char *buffer, size_t size);

/* "row" for at most one row, else "rows" (Flink's getRowTerm). */
const char *render_row_term(uint64_t row_count);

/* Formats name of a result-mode option value; false when unknown. */
bool render_parse_format(const char *name, CliOutputFormat *format);

#endif
