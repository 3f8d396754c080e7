/*
 * script.c - non-interactive runs (see cli.h): -f and -i files, -e text and
 * piped stdin, all through one StatementBuffer so that statements carry
 * their script line and column.
 *
 * Invariants: statements run in order; a failing statement stops the run
 * unless --continue-on-error (or the interactive shell) says otherwise;
 * QUIT, a broken stdout and an interrupt always stop it. Piped stdin is read
 * line by line and each statement runs as soon as its ';' arrives.
 */
#include "cli/cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int script_run_buffer(Cli *cli, StatementBuffer *buffer, bool at_end, const char *source_name)
{
    Statement statement;
    while (statement_buffer_next(buffer, &statement, at_end)) {
        int status = cli_execute_statement(cli, &statement, buffer, source_name);
        if (cli->quit || cli->output_failed || cli->interrupted) {
            return -1;
        }
        if (status != 0 && !cli->interactive && !cli->continue_on_error) {
            return -1;
        }
    }
    return 0;
}

static int script_report_unreadable(Cli *cli, const char *path)
{
    fflush(stdout);
    fprintf(stderr, "[ERROR] Could not read script file '%s': %s\n", path, strerror(errno));
    cli->failed = true;
    return -1;
}

int script_run_file(Cli *cli, const char *path)
{
    FILE *file = fopen(path, "rb");
    if (file == NULL) {
        return script_report_unreadable(cli, path);
    }
    StatementBuffer buffer;
    statement_buffer_init(&buffer, 1);
    char chunk[65536];
    size_t read_bytes;
    int status = 0;
    while ((read_bytes = fread(chunk, 1, sizeof chunk, file)) > 0) {
        if (statement_buffer_append(&buffer, chunk, read_bytes) != 0) {
            fprintf(stderr, "[ERROR] Out of memory reading '%s'\n", path);
            cli->failed = true;
            status = -1;
            break;
        }
    }
    if (status == 0 && ferror(file)) {
        status = script_report_unreadable(cli, path);
    }
    fclose(file);
    if (status == 0) {
        status = script_run_buffer(cli, &buffer, true, path);
    }
    statement_buffer_free(&buffer);
    return status;
}

int script_run_text(Cli *cli, const char *text)
{
    StatementBuffer buffer;
    statement_buffer_init(&buffer, 1);
    int status = statement_buffer_append(&buffer, text, strlen(text));
    if (status != 0) {
        cli->failed = true;
    } else {
        status = script_run_buffer(cli, &buffer, true, NULL);
    }
    statement_buffer_free(&buffer);
    return status;
}

int script_run_stream(Cli *cli, FILE *stream)
{
    /* errors in piped SQL say where they are, as for -f: "<stdin>:LINE:COL: " */
    const char *source_name = stream == stdin ? "<stdin>" : NULL;
    StatementBuffer buffer;
    statement_buffer_init(&buffer, 1);
    char *line = NULL;
    size_t capacity = 0;
    ssize_t length;
    int status = 0;
    while ((length = getline(&line, &capacity, stream)) >= 0) {
        if (statement_buffer_append(&buffer, line, (size_t)length) != 0) {
            cli->failed = true;
            status = -1;
            break;
        }
        status = script_run_buffer(cli, &buffer, false, source_name);
        if (status != 0) {
            break;
        }
        statement_buffer_compact(&buffer);
    }
    if (status == 0) {
        status = script_run_buffer(cli, &buffer, true, source_name);
    }
    free(line);
    statement_buffer_free(&buffer);
    return status;
}
