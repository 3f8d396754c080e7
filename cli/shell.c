/*
 * shell.c - the interactive shell (see cli.h): prompt "joinery> ", a
 * continuation prompt for unfinished statements, line editing, history and
 * completion through readline's callback interface.
 *
 * The loop polls the terminal and the SIGINT self-pipe (signals.c), so that
 * Ctrl-C at the prompt is handled outside the signal handler: the line and
 * any unfinished statement are dropped and a fresh prompt is shown. While a
 * statement runs the line editor is removed (the terminal is back in its
 * normal mode) and SIGINT cancels the statement instead.
 *
 * A line that is another shell's habit (\q, \d, .mode csv, help without
 * ';') at the start of a statement gets a one-line hint (shell_slip_hint)
 * instead of a continuation prompt.
 *
 * Invariants: the buffer holds the unfinished input since the last complete
 * statement(s), numbered from line 1; the history entry is the text typed
 * since the buffer was last empty, recorded once the input holds no
 * unfinished statement.
 */
#include "cli/cli.h"

#include <ctype.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli/line_editor.h"

#define SHELL_PROMPT "joinery> "
#define SHELL_CONTINUATION_PROMPT "       > "

static char *shell_line;
static bool shell_line_ready;

/*
 * readline's line handler: hands the line over to the loop and removes
 * itself, so that readline neither shows the next prompt nor keeps the
 * terminal in raw mode while the statement runs.
 */
static void shell_on_line(char *line)
{
    shell_line = line;
    shell_line_ready = true;
    rl_callback_handler_remove();
}

typedef struct ShellEntry {
    char *text;
    size_t length;
    size_t capacity;
} ShellEntry;

static void shell_entry_append(ShellEntry *entry, const char *text, size_t length)
{
    if (entry->length + length + 1 > entry->capacity) {
        size_t capacity = entry->capacity == 0 ? 256 : entry->capacity;
        while (capacity < entry->length + length + 1) {
            capacity *= 2;
        }
        char *grown = realloc(entry->text, capacity);
        if (grown == NULL) {
            return; /* history is best effort */
        }
        entry->text = grown;
        entry->capacity = capacity;
    }
    memcpy(entry->text + entry->length, text, length);
    entry->length += length;
    entry->text[entry->length] = '\0';
}

/* Ctrl-C at the prompt: forget the line and the unfinished statement. */
static void shell_clear_input(StatementBuffer *buffer, ShellEntry *entry)
{
    rl_replace_line("", 0);
    rl_point = 0;
    rl_end = 0;
    fputs("^C", rl_outstream);
    rl_crlf();
    rl_callback_handler_remove();
    statement_buffer_reset(buffer, 1);
    entry->length = 0;
    completion_set_pending(NULL, 0);
    rl_callback_handler_install(SHELL_PROMPT, shell_on_line);
}

/* True when the unfinished input is a bare QUIT or EXIT (no ';' needed in the shell). */
static bool shell_pending_is_quit(const StatementBuffer *buffer)
{
    const char *text = buffer->text + buffer->scan_offset;
    size_t length = buffer->length - buffer->scan_offset;
    while (length > 0 && isspace((unsigned char)*text)) {
        text++;
        length--;
    }
    while (length > 0 && isspace((unsigned char)text[length - 1])) {
        length--;
    }
    return length == 4 && (strncasecmp(text, "quit", 4) == 0 || strncasecmp(text, "exit", 4) == 0);
}

/*
 * Habits from other shells typed as a whole line at the start of a
 * statement (psql's \q and \d, sqlite's .mode and .tables, help without
 * ';'): the one-line hint to show instead of a continuation prompt, or NULL
 * when the line is no such slip.
 */
static const char *shell_slip_hint(const char *line)
{
    while (isspace((unsigned char)*line)) {
        line++;
    }
    size_t length = strlen(line);
    while (length > 0 && isspace((unsigned char)line[length - 1])) {
        length--;
    }
    if (length == 0) {
        return NULL;
    }
    char word[16];
    size_t word_length = 0;
    while (word_length < length && word_length + 1 < sizeof word &&
           !isspace((unsigned char)line[word_length])) {
        word[word_length] = (char)tolower((unsigned char)line[word_length]);
        word_length++;
    }
    word[word_length] = '\0';
    bool alone = word_length == length;
    static const struct {
        const char *word;
        bool alone; /* the word must be the whole line */
        const char *hint;
    } SLIPS[] = {
        {"\\q", true, "\\q is psql's; leave with QUIT; or Ctrl-D."},
        {"\\quit", true, "\\quit is psql's; leave with QUIT; or Ctrl-D."},
        {".quit", true, ".quit is sqlite's; leave with QUIT; or Ctrl-D."},
        {".exit", true, ".exit is sqlite's; leave with QUIT; or Ctrl-D."},
        {"\\d", false, "\\d is psql's; list tables with SHOW TABLES; and columns with DESCRIBE t;"},
        {"\\dt", false, "\\dt is psql's; list tables with SHOW TABLES;"},
        {"\\l", true, "\\l is psql's; list databases with SHOW DATABASES;"},
        {"\\?", true, "\\? is psql's; type HELP; for the statements."},
        {"\\h", false, "\\h is psql's; type HELP; for the statements."},
        {".tables", true, ".tables is sqlite's; list tables with SHOW TABLES;"},
        {".schema", false, ".schema is sqlite's; see a table's DDL with SHOW CREATE TABLE t;"},
        {".help", true, ".help is sqlite's; type HELP; for the statements."},
        {".mode", false,
         ".mode is sqlite's; choose the output with SET 'sql-client.execution.result-mode' = "
         "'csv'; (or tableau, json)"},
        {"help", true, "Statements end with ';': type HELP; for the statements."},
        {"?", true, "Type HELP; for the statements."},
    };
    for (size_t i = 0; i < sizeof SLIPS / sizeof SLIPS[0]; i++) {
        if (strcmp(word, SLIPS[i].word) == 0 && (alone || !SLIPS[i].alone)) {
            return SLIPS[i].hint;
        }
    }
    return NULL;
}

/* Runs what the line completed; returns false when the shell must end. */
static bool shell_process_line(Cli *cli, StatementBuffer *buffer, ShellEntry *entry,
                               const char *line)
{
    size_t length = strlen(line);
    if (statement_buffer_pending_is_blank(buffer)) {
        statement_buffer_reset(buffer, 1);
        entry->length = 0;
        const char *hint = shell_slip_hint(line);
        if (hint != NULL) {
            fprintf(stdout, "[INFO] %s\n", hint);
            fflush(stdout);
            return true;
        }
    }
    if (statement_buffer_append(buffer, line, length) != 0 ||
        statement_buffer_append(buffer, "\n", 1) != 0) {
        fputs("[ERROR] Out of memory\n", stderr);
        statement_buffer_reset(buffer, 1);
        entry->length = 0;
        return true;
    }
    shell_entry_append(entry, line, length);
    shell_entry_append(entry, "\n", 1);
    unsigned statements_before = signals_statements_started();
    script_run_buffer(cli, buffer, false, NULL);
    fflush(stdout);
    if (shell_pending_is_quit(buffer)) {
        cli->quit = true;
    }
    if (statement_buffer_pending_is_blank(buffer)) {
        history_record(entry->text, entry->length);
        entry->length = 0;
        statement_buffer_reset(buffer, 1);
    }
    if (signals_statements_started() != statements_before) {
        /* a Ctrl-C typed while a statement ran was meant for it, not for the next prompt;
           one typed while a continuation line was taken in stays for the prompt */
        signals_take_prompt_interrupt();
    }
    return !cli->quit && !cli->output_failed;
}

void shell_run(Cli *cli)
{
    rl_readline_name = "joinery";
    rl_catch_signals = 0;
    if (isatty(STDOUT_FILENO) != 1) {
        rl_outstream = stderr; /* keep prompts out of redirected results */
    }
    history_load();
    completion_install(cli->session);
    int interrupt_fd = signals_set_prompt_mode(true);

    StatementBuffer buffer;
    statement_buffer_init(&buffer, 1);
    ShellEntry entry = {NULL, 0, 0};
    rl_callback_handler_install(SHELL_PROMPT, shell_on_line);
    bool running = true;
    while (running) {
        struct pollfd descriptors[2] = {
            {.fd = STDIN_FILENO, .events = POLLIN, .revents = 0},
            {.fd = interrupt_fd, .events = POLLIN, .revents = 0},
        };
        int ready = poll(descriptors, interrupt_fd >= 0 ? 2 : 1, -1);
        if (ready < 0) {
            if (errno == EINTR) {
                continue;
            }
            break;
        }
        if (interrupt_fd >= 0 && (descriptors[1].revents & POLLIN) &&
            signals_take_prompt_interrupt()) {
            shell_clear_input(&buffer, &entry);
            continue;
        }
        if (descriptors[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            rl_callback_read_char();
        }
        if (!shell_line_ready) {
            continue;
        }
        shell_line_ready = false;
        char *line = shell_line;
        shell_line = NULL;
        if (line == NULL) { /* Ctrl-D */
            fputc('\n', rl_outstream);
            running = false;
            break;
        }
        running = shell_process_line(cli, &buffer, &entry, line);
        free(line);
        if (running) {
            /* the handler is installed again: it stays installed while running is true */
            bool pending = !statement_buffer_pending_is_blank(&buffer);
            completion_set_pending(pending ? buffer.text + buffer.scan_offset : NULL,
                                   pending ? buffer.length - buffer.scan_offset : 0);
            rl_callback_handler_install(pending ? SHELL_CONTINUATION_PROMPT : SHELL_PROMPT,
                                        shell_on_line);
        }
    }
    if (running) { /* left the loop through a poll error */
        rl_callback_handler_remove();
    }
    signals_set_prompt_mode(false);
    completion_free();
    statement_buffer_free(&buffer);
    free(entry.text);
}
