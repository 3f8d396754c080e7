/*
 * cli.h - the joinery command-line shell's modules and their shared state.
 *
 * Modules: main.c (arguments), statements.c (the input buffer that cuts text
 * into statements with joinery_statement_end and tracks script positions),
 * execute.c (runs one statement: output format, renderer, errors with
 * carets), signals.c (SIGINT/SIGPIPE), script.c (files, -e text, piped
 * stdin), shell.c (the interactive loop), history.c, completion.c.
 *
 * Invariants: one Cli per process, used from the main thread only; the
 * engine is reached only through engine/engine.h.
 */
#ifndef JOINERY_CLI_CLI_H
#define JOINERY_CLI_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cli/render.h"
#include "engine/engine.h"

#define CLI_VERSION "0.1.0"
#define CLI_RESULT_MODE_KEY "sql-client.execution.result-mode"
#define CLI_MAX_COLUMN_WIDTH_KEY "table.display.max-column-width"
#define CLI_DEFAULT_MAX_COLUMN_WIDTH 30
#define CLI_PRINT_TIME_COST_KEY "sql-client.display.print-time-cost"

typedef struct Cli {
    JoinerySession *session;
    bool interactive;               /* the shell is running (live status, no file prefix) */
    bool show_progress;             /* --progress: status lines in scripts */
    bool continue_on_error;         /* --continue-on-error */
    bool no_wait;                   /* --no-wait: cancel background jobs at the end */
    CliOutputFormat default_format; /* --output, used when the option is unset */
    char *ignored_mode_value;       /* result-mode value to ignore (engine refused --output) */
    bool failed;                    /* some statement failed: exit code 1 */
    bool output_failed;             /* writing stdout failed: stop, exit code 1 */
    bool quit;                      /* QUIT; or EXIT; was read */
    bool interrupted;               /* SIGINT stopped a script */
} Cli;

/* ---- statements.c: input text cut into statements ---- */

/*
 * A growing text buffer of script input. Invariant: text[0] is the first
 * character of line base_line (column 1); statements are cut from
 * scan_offset on, whose position is (scan_line, scan_column). Columns count
 * characters (a UTF-8 sequence is one), as the engine's lexer does.
 */
typedef struct StatementBuffer {
    char *text;
    size_t length;
    size_t capacity;
    int base_line;
    size_t scan_offset;
    int scan_line;
    int scan_column;
} StatementBuffer;

/* One statement found in a StatementBuffer; text points into the buffer. */
typedef struct Statement {
    const char *text; /* first non-blank character */
    size_t length;    /* through the ';' (or the end of input) */
    int line;         /* position of text[0] */
    int column;
    bool blank; /* only whitespace and comments: nothing to run */
} Statement;

/* An empty buffer whose first line is numbered first_line. */
void statement_buffer_init(StatementBuffer *buffer, int first_line);
void statement_buffer_free(StatementBuffer *buffer);
/* Appends text; returns 0, or -1 when memory is exhausted. */
int statement_buffer_append(StatementBuffer *buffer, const char *text, size_t length);
/*
 * Cuts the next complete statement into *statement and moves past it; true
 * when there was one. With at_end, unterminated trailing text that is not
 * blank is returned as a last statement (the engine then reports on it).
 */
bool statement_buffer_next(StatementBuffer *buffer, Statement *statement, bool at_end);
/* True when the text not yet cut holds nothing but whitespace and comments. */
bool statement_buffer_pending_is_blank(const StatementBuffer *buffer);
/* Drops text before the line holding scan_offset (Statements become invalid). */
void statement_buffer_compact(StatementBuffer *buffer);
/* Empties the buffer; the next text starts at line first_line. */
void statement_buffer_reset(StatementBuffer *buffer, int first_line);

/* ---- execute.c: one statement ---- */

/*
 * Runs one statement through the engine with the current output format and
 * prints its results; on failure prints the error (with the source line and a
 * caret when the engine gives a position inside buffer) and sets cli->failed.
 * source_name, when not NULL, prefixes the error as "name:LINE:COL: ".
 * Handles QUIT/EXIT itself (sets cli->quit). Returns 0 on success, -1 on
 * failure.
 */
int cli_execute_statement(Cli *cli, const Statement *statement, const StatementBuffer *buffer,
                          const char *source_name);

/* Runs a statement quietly (no output at all); returns 0 or -1. */
int cli_execute_quietly(Cli *cli, const char *text);

/* ---- signals.c ---- */

/* Ignores SIGPIPE and installs the SIGINT handler for session. */
void signals_install(JoinerySession *session);
/* While true, SIGINT cancels the running statement instead of ending the program. */
void signals_set_statement_running(bool running);
/* True (once) when SIGINT cancelled the statement since it started. */
bool signals_take_cancel_request(void);
/* How many statements have started running (wraps); tells a caller whether any ran. */
unsigned signals_statements_started(void);
/*
 * At the interactive prompt: SIGINT writes a byte to a pipe whose read end is
 * returned (-1 when the pipe cannot be made); pass false to leave prompt mode.
 */
int signals_set_prompt_mode(bool at_prompt);
/* Drains the prompt pipe; true when SIGINT arrived since the last call. */
bool signals_take_prompt_interrupt(void);

/* ---- script.c ---- */

/*
 * Runs every statement of a file (-f, -i); errors are prefixed "path:L:C: ".
 * Returns 0, or -1 when the run must stop (error without
 * --continue-on-error, QUIT, broken output, interrupt, unreadable file).
 */
int script_run_file(Cli *cli, const char *path);
/* Runs the statements of -e text; same return as script_run_file. */
int script_run_text(Cli *cli, const char *text);
/* Runs statements from a stream (piped stdin) as they complete, no prompts; errors in
   stdin are prefixed "<stdin>:L:C: " as -f files are. */
int script_run_stream(Cli *cli, FILE *stream);
/*
 * Runs the complete statements of buffer (and the unterminated rest when
 * at_end). Returns 0, or -1 when the run must stop (see script_run_file);
 * in the interactive shell (cli->interactive) errors do not stop it.
 */
int script_run_buffer(Cli *cli, StatementBuffer *buffer, bool at_end, const char *source_name);

/* ---- shell.c ---- */

/* The interactive loop on the terminal; returns when the user leaves. */
void shell_run(Cli *cli);

/* ---- history.c ---- */

/*
 * Loads ~/.joinery_history ($HOME) into the line editor's history. Cheap: the
 * file's last entries only.
 */
void history_load(void);
/*
 * Records one entry (a statement as typed, possibly several lines): not at
 * all when it starts with a space; in memory but never in the file when it
 * holds a secret (joinery_statement_find_secrets).
 */
void history_record(const char *entry, size_t length);

/* ---- completion.c ---- */

/* Installs context-aware tab completion (tables, columns, option keys, functions, keywords). */
void completion_install(JoinerySession *session);
/* The unfinished statement's earlier lines (completion reads its context from them); NULL: none. */
void completion_set_pending(const char *text, size_t length);
/* Frees the last completion's candidates. */
void completion_free(void);

#endif
