/*
 * completion.c - tab completion in the shell (see cli.h): SQL keywords from
 * joinery_keywords() and table, view and column names from
 * joinery_session_list_names().
 *
 * Invariants: matching is case-insensitive on the word before the cursor;
 * keywords are offered in the case the user started typing (lower case when
 * the word's first letter is lower case), names as the catalog spells them;
 * each candidate appears once. Candidates are gathered when a completion
 * starts (never at start-up) and freed by the next one. File names are never
 * offered. Completion stops at '.', so "o.us" completes a column.
 */
#include "cli/cli.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/line_editor.h"

typedef struct CompletionList {
    char **items;
    size_t count;
    size_t capacity;
    size_t next; /* generator position */
    const char *prefix;
    size_t prefix_length;
    bool lower_case;
} CompletionList;

static JoinerySession *completion_session;
static CompletionList completion_list;

static void completion_clear(CompletionList *list)
{
    for (size_t i = 0; i < list->count; i++) {
        free(list->items[i]);
    }
    free(list->items);
    memset(list, 0, sizeof *list);
}

/* Adds name when it starts with the prefix and is not there yet. */
static void completion_add(CompletionList *list, const char *name, bool is_keyword)
{
    if (name == NULL || strncasecmp(name, list->prefix, list->prefix_length) != 0) {
        return;
    }
    size_t length = strlen(name);
    char *copy = malloc(length + 1);
    if (copy == NULL) {
        return;
    }
    for (size_t i = 0; i <= length; i++) {
        char c = name[i];
        copy[i] = is_keyword && list->lower_case ? (char)tolower((unsigned char)c) : c;
    }
    for (size_t i = 0; i < list->count; i++) {
        if (strcmp(list->items[i], copy) == 0) {
            free(copy);
            return;
        }
    }
    if (list->count == list->capacity) {
        size_t capacity = list->capacity == 0 ? 64 : list->capacity * 2;
        char **grown = realloc(list->items, capacity * sizeof *grown);
        if (grown == NULL) {
            free(copy);
            return;
        }
        list->items = grown;
        list->capacity = capacity;
    }
    list->items[list->count++] = copy;
}

static void completion_on_name(void *context, const char *name)
{
    completion_add(context, name, false);
}

/* readline generator: returns one malloc'd match per call, NULL at the end. */
static char *completion_generate(const char *text, int state)
{
    CompletionList *list = &completion_list;
    if (state == 0) {
        completion_clear(list);
        list->prefix = text;
        list->prefix_length = strlen(text);
        list->lower_case = text[0] != '\0' && islower((unsigned char)text[0]);
        if (completion_session != NULL) {
            joinery_session_list_names(completion_session, completion_on_name, list);
        }
        const char *const *keywords = joinery_keywords();
        for (size_t i = 0; keywords != NULL && keywords[i] != NULL; i++) {
            completion_add(list, keywords[i], true);
        }
    }
    while (list->next < list->count) {
        const char *item = list->items[list->next++];
        size_t length = strlen(item);
        char *match = malloc(length + 1);
        if (match != NULL) {
            memcpy(match, item, length + 1);
        }
        return match;
    }
    return NULL;
}

static char **completion_attempt(const char *text, int start, int end)
{
    (void)start;
    (void)end;
    rl_attempted_completion_over = 1; /* no file names */
    return rl_completion_matches(text, completion_generate);
}

void completion_install(JoinerySession *session)
{
    static char word_breaks[] = " \t\n\"'`@$><=;|&{(),.+-*/%";
    completion_session = session;
    rl_attempted_completion_function = completion_attempt;
    rl_completer_word_break_characters = word_breaks;
    rl_completion_append_character = ' ';
}

void completion_free(void)
{
    completion_clear(&completion_list);
}
