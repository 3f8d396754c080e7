/*
 * execute.c - runs one statement (see cli.h): picks the output format from
 * the session option sql-client.execution.result-mode, drives a Renderer,
 * arms SIGINT cancellation for the statement's duration and prints errors
 * Flink-style with a source line and caret, the line's secrets masked.
 *
 * Invariants: stdout carries results; errors always go to stderr, after
 * stdout has been flushed so that the two interleave in order on a terminal.
 */
#include "cli/cli.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli/text.h"

/* True when the statement is QUIT or EXIT (any case, optional ';'). */
static bool execute_is_quit(const char *text, size_t length)
{
    while (length > 0 && (isspace((unsigned char)text[length - 1]) || text[length - 1] == ';')) {
        length--;
    }
    return length == 4 && (strncasecmp(text, "quit", 4) == 0 || strncasecmp(text, "exit", 4) == 0);
}

static CliOutputFormat execute_current_format(Cli *cli)
{
    CliOutputFormat format = cli->default_format;
    const char *value = joinery_session_get_option(cli->session, CLI_RESULT_MODE_KEY);
    if (value != NULL && cli->ignored_mode_value != NULL &&
        strcmp(value, cli->ignored_mode_value) == 0) {
        return format;
    }
    render_parse_format(value, &format);
    /* the full-screen views need a terminal to draw on and to read keys from; piped output
       and scripts keep the tableau */
    if ((format == CLI_OUTPUT_TABLE || format == CLI_OUTPUT_CHANGELOG) &&
        !(cli->interactive && isatty(STDOUT_FILENO) == 1 && isatty(STDIN_FILENO) == 1)) {
        format = CLI_OUTPUT_TABLEAU;
    }
    return format;
}

static size_t execute_max_column_width(Cli *cli)
{
    const char *value = joinery_session_get_option(cli->session, CLI_MAX_COLUMN_WIDTH_KEY);
    if (value == NULL) {
        return CLI_DEFAULT_MAX_COLUMN_WIDTH;
    }
    char *end = NULL;
    long width = strtol(value, &end, 10);
    if (end == value || width < 1 || width > 100000) {
        return CLI_DEFAULT_MAX_COLUMN_WIDTH;
    }
    return (size_t)width;
}

/*
 * Finds line `line` of the buffer; returns its start and stores its length
 * (without the newline), or NULL when the buffer does not hold that line.
 */
static const char *execute_find_line(const StatementBuffer *buffer, int line, size_t *length)
{
    if (buffer == NULL || buffer->text == NULL || line < buffer->base_line) {
        return NULL;
    }
    const char *text = buffer->text;
    const char *end = text + buffer->length;
    for (int current = buffer->base_line; current < line; current++) {
        const char *newline = memchr(text, '\n', (size_t)(end - text));
        if (newline == NULL) {
            return NULL;
        }
        text = newline + 1;
    }
    const char *newline = memchr(text, '\n', (size_t)(end - text));
    *length = (size_t)((newline != NULL ? newline : end) - text);
    if (*length > 0 && text[*length - 1] == '\r') {
        (*length)--;
    }
    return text;
}

/* The secrets of a statement as pointers into its buffer (growing array). */
typedef struct SecretRanges {
    const char *base;
    const char **starts;
    const char **ends;
    size_t count;
    size_t capacity;
    bool failed; /* out of memory: mask the whole line */
} SecretRanges;

static void execute_collect_secret(void *context, size_t offset, size_t length)
{
    SecretRanges *ranges = context;
    if (ranges->failed)
        return;
    if (ranges->count == ranges->capacity) {
        size_t capacity = ranges->capacity ? 2 * ranges->capacity : 8;
        const char **starts = realloc(ranges->starts, capacity * sizeof *starts);
        if (starts != NULL)
            ranges->starts = starts;
        const char **ends = starts ? realloc(ranges->ends, capacity * sizeof *ends) : NULL;
        if (ends == NULL) {
            ranges->failed = true;
            return;
        }
        ranges->ends = ends;
        ranges->capacity = capacity;
    }
    ranges->starts[ranges->count] = ranges->base + offset;
    ranges->ends[ranges->count] = ranges->base + offset + length;
    ranges->count++;
}

/* Writes the caret's indentation for text[0..length) (tabs kept, wide characters 2). */
static void execute_print_indent(FILE *out, const char *text, size_t length)
{
    size_t i = 0;
    while (i < length) {
        uint32_t code_point;
        size_t bytes = joinery_utf8_decode(text + i, length - i, &code_point);
        if (text[i] == '\t') {
            fputc('\t', out);
        } else {
            size_t width = text_code_point_width(code_point);
            fputs(width == 2 ? "  " : " ", out);
        }
        i += bytes;
    }
}

/* Longest source line shown whole under an error; a longer one is cut to a window of
   about this many bytes around the caret, marked with "..." where it was cut. */
enum { EXECUTE_CONTEXT_WIDTH = 160 };

/* Steps back from `offset` to the start of the character it falls in. */
static size_t execute_character_start(const char *text, size_t offset)
{
    while (offset > 0 && ((unsigned char)text[offset] & 0xC0) == 0x80) {
        offset--;
    }
    return offset;
}

/*
 * Prints "  L | text" and "    |   ^" under text[caret]. A text longer than
 * EXECUTE_CONTEXT_WIDTH bytes is shown as a window around the caret ("...",
 * the window, "..."), so an error on a 1 MB line prints a few hundred bytes,
 * not the line and a caret line as long.
 */
static void execute_print_window(FILE *out, int line, const char *text, size_t length,
                                 size_t caret)
{
    size_t start = 0, end = length;
    if (length > EXECUTE_CONTEXT_WIDTH) {
        size_t half = EXECUTE_CONTEXT_WIDTH / 2;
        start = caret > half ? execute_character_start(text, caret - half) : 0;
        end = start + EXECUTE_CONTEXT_WIDTH < length
                  ? execute_character_start(text, start + EXECUTE_CONTEXT_WIDTH)
                  : length;
        if (end < caret) {
            end = caret;
        }
    }
    const char *before = start > 0 ? "..." : "";
    char number[16];
    int digits = snprintf(number, sizeof number, "%d", line);
    int gutter = digits < 3 ? 3 : digits;
    fprintf(out, "%*s | %s", gutter, number, before);
    for (size_t i = start; i < end;) { /* a NUL shows as U+2400, as in results */
        const char *nul = memchr(text + i, '\0', end - i);
        size_t run = nul ? (size_t)(nul - (text + i)) : end - i;
        fwrite(text + i, 1, run, out);
        i += run;
        if (nul) {
            fputs("\xe2\x90\x80", out);
            i++;
        }
    }
    fputs(end < length ? "...\n" : "\n", out);
    fprintf(out, "%*s | %s", gutter, "", start > 0 ? "   " : "");
    execute_print_indent(out, text + start, caret - start);
    fputs("^\n", out);
}

/*
 * Prints "  L | source line" and "    |   ^" under column (tabs kept). The
 * buffer's secrets (joinery_statement_find_secrets) are printed as
 * JOINERY_SECRET_MASK, and the caret moves with the text it points at (to
 * the mask when it points into a secret).
 */
static void execute_print_caret(FILE *out, const StatementBuffer *buffer, int line, int column)
{
    size_t length = 0;
    const char *text = execute_find_line(buffer, line, &length);
    if (text == NULL) {
        return;
    }
    /*
     * The whole buffer, not only this statement: the line may hold the end
     * of an earlier statement (SET 'a.token' = 'x'; SELECT ...).
     */
    SecretRanges ranges = {.base = buffer->text};
    joinery_statement_find_secrets(buffer->text, buffer->length, execute_collect_secret, &ranges);
    /* where the caret points in the source line */
    const char *caret = text;
    for (int character = 1; character < column && caret < text + length; character++) {
        uint32_t code_point;
        caret += joinery_utf8_decode(caret, (size_t)(text + length - caret), &code_point);
    }
    /* the line with its secrets masked, and where the caret falls in it */
    size_t mask_length = strlen(JOINERY_SECRET_MASK);
    size_t ranges_on_line = ranges.failed ? 1 : ranges.count;
    char *masked = malloc(length + ranges_on_line * mask_length + 1);
    if (masked == NULL) {
        free(ranges.starts);
        free(ranges.ends);
        return;
    }
    size_t masked_length = 0;
    size_t caret_offset = SIZE_MAX;
    const char *end = text + length;
    const char *cursor = text;
    size_t next_range = 0;
    while (cursor < end) {
        while (next_range < ranges.count && ranges.ends[next_range] <= cursor)
            next_range++;
        bool inside =
            ranges.failed || (next_range < ranges.count && ranges.starts[next_range] <= cursor);
        const char *piece_end = end;
        if (inside) {
            if (!ranges.failed && ranges.ends[next_range] < end)
                piece_end = ranges.ends[next_range];
            if (caret_offset == SIZE_MAX && caret < piece_end)
                caret_offset = masked_length; /* the caret goes under the mask */
            memcpy(masked + masked_length, JOINERY_SECRET_MASK, mask_length);
            masked_length += mask_length;
        } else {
            if (next_range < ranges.count && ranges.starts[next_range] < end)
                piece_end = ranges.starts[next_range];
            if (caret_offset == SIZE_MAX && caret < piece_end)
                caret_offset = masked_length + (size_t)(caret - cursor);
            memcpy(masked + masked_length, cursor, (size_t)(piece_end - cursor));
            masked_length += (size_t)(piece_end - cursor);
        }
        cursor = piece_end;
    }
    if (caret_offset == SIZE_MAX)
        caret_offset = masked_length; /* past the end of the line */
    execute_print_window(out, line, masked, masked_length, caret_offset);
    free(masked);
    free(ranges.starts);
    free(ranges.ends);
}

static void execute_print_error(Cli *cli, const Statement *statement, const StatementBuffer *buffer,
                                const char *source_name, const JoineryError *error)
{
    fflush(stdout);
    FILE *out = stderr;
    if (source_name != NULL) {
        int line = error->line > 0 ? error->line : statement->line;
        int column = error->line > 0 ? (error->column > 0 ? error->column : 1) : statement->column;
        fprintf(out, "%s:%d:%d: ", source_name, line, column);
    }
    fputs("[ERROR] Could not execute SQL statement. Reason:\n", out);
    size_t length = strnlen(error->message, sizeof error->message);
    if (length == 0) {
        fputs("Unknown error\n", out);
    } else {
        fwrite(error->message, 1, length, out);
        if (error->message[length - 1] != '\n') {
            fputc('\n', out);
        }
    }
    if (error->line > 0) {
        execute_print_caret(out, buffer, error->line, error->column > 0 ? error->column : 1);
    }
    fflush(out);
    (void)cli;
}

int cli_execute_statement(Cli *cli, const Statement *statement, const StatementBuffer *buffer,
                          const char *source_name)
{
    if (statement->blank) {
        return 0;
    }
    if (execute_is_quit(statement->text, statement->length)) {
        cli->quit = true;
        return 0;
    }
    RenderStatusMode status_mode = RENDER_STATUS_IGNORE;
    bool status_terminal = isatty(STDERR_FILENO) == 1;
    if (cli->interactive) {
        status_mode = status_terminal ? RENDER_STATUS_LIVE : RENDER_STATUS_IGNORE;
    } else if (cli->show_progress) {
        status_mode = status_terminal ? RENDER_STATUS_LIVE : RENDER_STATUS_LINES;
    }
    Renderer renderer;
    renderer_init(&renderer, execute_current_format(cli), stdout, stderr, status_mode,
                  execute_max_column_width(cli));
    renderer.erase_interrupt_echo = cli->interactive && isatty(STDOUT_FILENO) == 1;
    renderer.session = cli->session;
    const char *time_cost = joinery_session_get_option(cli->session, CLI_PRINT_TIME_COST_KEY);
    renderer.print_time_cost = time_cost != NULL && strcasecmp(time_cost, "true") == 0;
    JoineryResultHandler handler = renderer_handler(&renderer);
    JoineryError error;
    memset(&error, 0, sizeof error);

    signals_take_cancel_request(); /* forget a request that came between statements */
    signals_set_statement_running(true);
    int status = joinery_session_execute(cli->session, statement->text, statement->length,
                                         statement->line, statement->column, &handler, &error);
    signals_set_statement_running(false);
    bool cancelled = signals_take_cancel_request();
    renderer_finish(&renderer, cancelled);

    if (renderer.write_failed || ferror(stdout)) {
        cli->output_failed = true;
        cli->failed = true;
        return -1;
    }
    if (cancelled && !cli->interactive) {
        cli->interrupted = true;
    }
    if (status != 0) {
        if (cancelled && renderer.result_cancelled) {
            return 0; /* the user stopped it and has been told so */
        }
        if (error.status == 0) {
            error.status = status;
        }
        execute_print_error(cli, statement, buffer, source_name, &error);
        cli->failed = true;
        return -1;
    }
    return 0;
}

int cli_execute_quietly(Cli *cli, const char *text)
{
    JoineryResultHandler handler;
    memset(&handler, 0, sizeof handler);
    JoineryError error;
    memset(&error, 0, sizeof error);
    return joinery_session_execute(cli->session, text, strlen(text), 1, 1, &handler, &error) == 0
               ? 0
               : -1;
}
