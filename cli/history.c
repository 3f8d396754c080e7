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
 * - An entry that assigns a value to a key containing "password", "secret"
 *   or "token" (any case; quoted, backticked or bare key followed by '=') is
 *   kept in memory for this session only, never written to the file.
 * - Loading keeps the last HISTORY_MAX_ENTRIES entries; when the file holds
 *   more than twice as many it is rewritten with those (via rename).
 */
#include "cli/cli.h"

#include <ctype.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
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

static bool history_key_is_secret(const char *key, size_t length)
{
    static const char *const WORDS[] = {"password", "secret", "token"};
    for (size_t w = 0; w < sizeof WORDS / sizeof WORDS[0]; w++) {
        size_t word_length = strlen(WORDS[w]);
        for (size_t i = 0; i + word_length <= length; i++) {
            if (strncasecmp(key + i, WORDS[w], word_length) == 0) {
                return true;
            }
        }
    }
    return false;
}

static bool history_is_word_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '-' ||
           (unsigned char)c >= 0x80;
}

bool history_contains_secret(const char *entry, size_t length)
{
    size_t i = 0;
    while (i < length) {
        char c = entry[i];
        size_t key_start;
        size_t key_end;
        if (c == '\'' || c == '`') {
            key_start = i + 1;
            size_t j = key_start;
            while (j < length) {
                if (entry[j] == c) {
                    if (j + 1 < length && entry[j + 1] == c) {
                        j += 2;
                        continue;
                    }
                    break;
                }
                j++;
            }
            key_end = j;
            i = j < length ? j + 1 : length;
        } else if (history_is_word_char(c)) {
            key_start = i;
            while (i < length && history_is_word_char(entry[i])) {
                i++;
            }
            key_end = i;
        } else {
            i++;
            continue;
        }
        size_t next = i;
        while (next < length && isspace((unsigned char)entry[next])) {
            next++;
        }
        if (next < length && entry[next] == '=' &&
            history_key_is_secret(entry + key_start, key_end - key_start)) {
            return true;
        }
    }
    return false;
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
    if (!history_contains_secret(copy, length)) {
        history_append_to_file(copy, length);
    }
    free(copy);
}
