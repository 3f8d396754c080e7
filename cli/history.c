/*
 * history.c - the shell's history: ~/.joinery_history plus the line editor's
 * in-memory list (see cli.h).
 *
 * File format (ours, not readline's): one entry per line; inside an entry a
 * backslash is written "\\" and a newline "\n", so multi-line statements stay
 * one entry. The file is created mode 0600 and appended to entry by entry,
 * so a crash loses nothing and parallel shells do not overwrite each other.
 *
 * Invariants:
 * - An entry whose first character is a space is recorded nowhere.
 * - An entry that holds a secret (joinery_statement_find_secrets: the value
 *   of a sensitive key such as 'properties.sasl.password' or
 *   'properties.sasl.jaas.config', whatever comments or spacing surround
 *   it, or a credential inside any string) is kept in memory for this
 *   session only, never written to the file.
 * - Loading keeps the last HISTORY_MAX_ENTRIES entries; when the file holds
 *   more than twice as many it is rewritten with those (via rename).
 */
#include "cli/cli.h"

#include <ctype.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/line_editor.h"

#define HISTORY_FILE_NAME ".joinery_history"
#define HISTORY_MAX_ENTRIES 1000

/* Fills path with $HOME/.joinery_history; false when HOME is unset or too long. */
static bool history_file_path(char *path, size_t size)
{
    const char *home = getenv("HOME");
    if (home == NULL || home[0] == '\0') {
        return false;
    }
    int written = snprintf(path, size, "%s/%s", home, HISTORY_FILE_NAME);
    return written > 0 && (size_t)written < size;
}

/* Decodes one file line in place ("\\" and "\n" escapes). */
static void history_decode(char *line)
{
    char *out = line;
    for (char *in = line; *in != '\0'; in++) {
        if (*in == '\\' && in[1] == 'n') {
            *out++ = '\n';
            in++;
        } else if (*in == '\\' && in[1] == '\\') {
            *out++ = '\\';
            in++;
        } else {
            *out++ = *in;
        }
    }
    *out = '\0';
}

static void history_rewrite(const char *path, char **entries, size_t count)
{
    char temporary[4200];
    if (snprintf(temporary, sizeof temporary, "%s.%ld.tmp", path, (long)getpid()) >=
        (int)sizeof temporary) {
        return;
    }
    int descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (descriptor < 0) {
        return;
    }
    FILE *file = fdopen(descriptor, "w");
    if (file == NULL) {
        close(descriptor);
        unlink(temporary);
        return;
    }
    for (size_t i = 0; i < count; i++) {
        fputs(entries[i], file);
        fputc('\n', file);
    }
    if (fclose(file) != 0 || rename(temporary, path) != 0) {
        unlink(temporary);
    }
}

void history_load(void)
{
    using_history();
    char path[4096];
    if (!history_file_path(path, sizeof path)) {
        return;
    }
    FILE *file = fopen(path, "r");
    if (file == NULL) {
        return;
    }
    /* a ring of the last entries, still encoded */
    char *ring[HISTORY_MAX_ENTRIES];
    size_t total = 0;
    char *line = NULL;
    size_t capacity = 0;
    ssize_t length;
    while ((length = getline(&line, &capacity, file)) >= 0) {
        while (length > 0 && (line[length - 1] == '\n' || line[length - 1] == '\r')) {
            line[--length] = '\0';
        }
        if (length == 0) {
            continue;
        }
        size_t slot = total % HISTORY_MAX_ENTRIES;
        if (total >= HISTORY_MAX_ENTRIES) {
            free(ring[slot]);
        }
        ring[slot] = line;
        line = NULL;
        capacity = 0;
        total++;
    }
    free(line);
    fclose(file);
    size_t kept = total < HISTORY_MAX_ENTRIES ? total : HISTORY_MAX_ENTRIES;
    size_t first = total - kept;
    char *ordered[HISTORY_MAX_ENTRIES];
    for (size_t i = 0; i < kept; i++) {
        ordered[i] = ring[(first + i) % HISTORY_MAX_ENTRIES];
    }
    if (total > 2 * HISTORY_MAX_ENTRIES) {
        history_rewrite(path, ordered, kept);
    }
    for (size_t i = 0; i < kept; i++) {
        history_decode(ordered[i]);
        add_history(ordered[i]);
        free(ordered[i]);
    }
}

static void history_append_to_file(const char *entry, size_t length)
{
    char path[4096];
    if (!history_file_path(path, sizeof path)) {
        return;
    }
    int descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT, 0600);
    if (descriptor < 0) {
        return;
    }
    /* encode into one buffer so that the line is written by a single write(2) */
    char *encoded = malloc(2 * length + 2);
    if (encoded != NULL) {
        size_t out = 0;
        for (size_t i = 0; i < length; i++) {
            if (entry[i] == '\\') {
                encoded[out++] = '\\';
                encoded[out++] = '\\';
            } else if (entry[i] == '\n') {
                encoded[out++] = '\\';
                encoded[out++] = 'n';
            } else if (entry[i] != '\r') {
                encoded[out++] = entry[i];
            }
        }
        encoded[out++] = '\n';
        ssize_t written = write(descriptor, encoded, out);
        (void)written; /* history is best effort */
        free(encoded);
    }
    close(descriptor);
}

void history_record(const char *entry, size_t length)
{
    while (length > 0 && isspace((unsigned char)entry[length - 1])) {
        length--;
    }
    if (length == 0 || entry[0] == ' ' || entry[0] == '\t') {
        return;
    }
    char *copy = malloc(length + 1);
    if (copy == NULL) {
        return;
    }
    memcpy(copy, entry, length);
    copy[length] = '\0';
    add_history(copy);
    /* the engine's lexer finds secrets, so no comment or quoting hides one */
    if (joinery_statement_find_secrets(copy, length, NULL, NULL) == 0) {
        history_append_to_file(copy, length);
    }
    free(copy);
}
