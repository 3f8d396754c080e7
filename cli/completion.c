/*
 * completion.c - context-aware tab completion in the shell (see cli.h).
 *
 * The statement typed so far (the unfinished lines the shell keeps, then the
 * current line up to the word) is read as SQL tokens, and the word is
 * completed by what may stand there:
 * - after FROM / JOIN / INTO / TABLE / VIEW / DESCRIBE (and a comma of a FROM
 *   list): the table and view names;
 * - after `name.`: the columns of that table, `name` being a table or an
 *   alias the statement gives one (FROM orders AS o);
 * - after SET / RESET: the option keys, in quotes;
 * - inside CREATE TABLE's WITH (...): the option keys of the table's
 *   connector (at a key), the connector names (the value of 'connector');
 * - elsewhere: keywords, function names with their '(' , tables, and the
 *   columns of the tables the statement names (all columns when it names
 *   none).
 * Names come from the engine (joinery_session_list_tables / _columns,
 * joinery_list_option_keys, _connectors, _connector_options, _functions)
 * and joinery_keywords().
 *
 * Invariants: matching is case-insensitive on the word before the cursor;
 * keywords and functions are offered in the case the user started typing
 * (lower case when the word's first letter is lower case), names as the
 * catalog spells them; each candidate appears once. Candidates are
 * gathered when a completion starts (never at start-up) and freed by the
 * next one. File names are never offered.
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
    const char *wrap;   /* put around every name: "'" for keys not yet in quotes */
    const char *suffix; /* appended to names (functions: "(") */
    bool fold_case;     /* keyword-like names follow the typed case */
    const char *lead;   /* put before every name: "o." when the editor's word holds it */
} CompletionList;

static JoinerySession *completion_session;
static CompletionList completion_list;
static char *completion_pending; /* the unfinished statement's earlier lines */

enum { COMPLETION_MAX_TOKENS = 4096 };

typedef enum TokenType {
    TOKEN_WORD,   /* identifier or keyword (`quoted` ones too, without backticks) */
    TOKEN_STRING, /* 'text' (closed) */
    TOKEN_PUNCT,  /* one character: ( ) , = . ; and the rest */
} TokenType;

typedef struct CompletionToken {
    TokenType type;
    const char *text; /* into the scanned text; a STRING's excludes the quotes */
    size_t length;
} CompletionToken;

typedef struct Scan {
    CompletionToken tokens[COMPLETION_MAX_TOKENS];
    size_t count;
    bool in_string; /* the text ends inside an unclosed 'string' */
} Scan;

static void completion_clear(CompletionList *list)
{
    for (size_t i = 0; i < list->count; i++) {
        free(list->items[i]);
    }
    free(list->items);
    memset(list, 0, sizeof *list);
}

/* Adds name (wrapped and suffixed) when it starts with the prefix and is not there yet. */
static void completion_add(CompletionList *list, const char *name)
{
    if (name == NULL) {
        return;
    }
    const char *wrap = list->wrap ? list->wrap : "";
    const char *suffix = list->suffix ? list->suffix : "";
    size_t wrap_length = strlen(wrap);
    /* the prefix may include the opening wrap the user typed */
    const char *prefix = list->prefix;
    size_t prefix_length = list->prefix_length;
    if (wrap_length && prefix_length && strncmp(prefix, wrap, wrap_length) == 0) {
        prefix += wrap_length;
        prefix_length -= wrap_length;
    }
    const char *lead = list->lead ? list->lead : "";
    size_t lead_length = strlen(lead);
    if (lead_length) {
        if (prefix_length < lead_length || strncmp(prefix, lead, lead_length) != 0) {
            return;
        }
        prefix += lead_length;
        prefix_length -= lead_length;
    }
    if (strncasecmp(name, prefix, prefix_length) != 0) {
        return;
    }
    size_t length = strlen(name);
    char *copy = malloc(lead_length + 2 * wrap_length + length + strlen(suffix) + 1);
    if (copy == NULL) {
        return;
    }
    size_t used = 0;
    memcpy(copy, lead, lead_length);
    used += lead_length;
    memcpy(copy + used, wrap, wrap_length);
    used += wrap_length;
    for (size_t i = 0; i < length; i++) {
        char c = name[i];
        copy[used++] = list->fold_case && list->lower_case ? (char)tolower((unsigned char)c) : c;
    }
    memcpy(copy + used, wrap, wrap_length);
    used += wrap_length;
    strcpy(copy + used, suffix);
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
    completion_add(context, name);
}

/* ---------------------------------------------------------------- reading the statement */

static void scan_push(Scan *scan, TokenType type, const char *text, size_t length)
{
    if (scan->count == COMPLETION_MAX_TOKENS) {
        memmove(scan->tokens, scan->tokens + 1, (COMPLETION_MAX_TOKENS - 1) * sizeof *scan->tokens);
        scan->count--;
    }
    scan->tokens[scan->count++] = (CompletionToken){type, text, length};
}

/* SQL tokens of text (comments skipped); notes whether it ends inside a string. */
static void scan_text(Scan *scan, const char *text, size_t length)
{
    size_t i = 0;
    while (i < length) {
        char c = text[i];
        if (isspace((unsigned char)c)) {
            i++;
        } else if (c == '-' && i + 1 < length && text[i + 1] == '-') {
            while (i < length && text[i] != '\n') {
                i++;
            }
        } else if (c == '/' && i + 1 < length && text[i + 1] == '*') {
            i += 2;
            while (i + 1 < length && !(text[i] == '*' && text[i + 1] == '/')) {
                i++;
            }
            i += 2;
        } else if (c == '\'') {
            size_t start = ++i;
            bool closed = false;
            while (i < length) {
                if (text[i] == '\'' && i + 1 < length && text[i + 1] == '\'') {
                    i += 2;
                } else if (text[i] == '\'') {
                    closed = true;
                    break;
                } else {
                    i++;
                }
            }
            if (!closed) {
                scan->in_string = true;
                return;
            }
            scan_push(scan, TOKEN_STRING, text + start, i - start);
            i++;
        } else if (c == '`') {
            size_t start = ++i;
            while (i < length && text[i] != '`') {
                i++;
            }
            scan_push(scan, TOKEN_WORD, text + start, i - start);
            i++;
        } else if (isalnum((unsigned char)c) || c == '_' || (unsigned char)c >= 0x80) {
            size_t start = i;
            while (i < length && (isalnum((unsigned char)text[i]) || text[i] == '_' ||
                                  (unsigned char)text[i] >= 0x80)) {
                i++;
            }
            scan_push(scan, TOKEN_WORD, text + start, i - start);
        } else {
            scan_push(scan, TOKEN_PUNCT, text + i, 1);
            i++;
        }
    }
}

static bool token_is(const CompletionToken *token, const char *word)
{
    return token->type == TOKEN_WORD && strlen(word) == token->length &&
           strncasecmp(token->text, word, token->length) == 0;
}

static bool token_is_punct(const CompletionToken *token, char c)
{
    return token->type == TOKEN_PUNCT && token->text[0] == c;
}

static char *token_copy(const CompletionToken *token)
{
    char *copy = malloc(token->length + 1);
    if (copy != NULL) {
        memcpy(copy, token->text, token->length);
        copy[token->length] = '\0';
    }
    return copy;
}

/* Words after which a FROM item's alias cannot be (they follow the table instead). */
static bool word_ends_from_item(const CompletionToken *token)
{
    static const char *const WORDS[] = {"WHERE", "ON",    "JOIN",  "LEFT",   "RIGHT",  "FULL",
                                        "INNER", "CROSS", "GROUP", "HAVING", "UNION",  "ORDER",
                                        "LIMIT", "USING", "AS",    "OUTER",  "WINDOW", "FOR"};
    for (size_t i = 0; i < sizeof WORDS / sizeof WORDS[0]; i++) {
        if (token_is(token, WORDS[i])) {
            return true;
        }
    }
    return false;
}

/*
 * The table `qualifier` stands for in the statement: a FROM / JOIN item
 * "table [AS] qualifier", else qualifier itself. Returns a malloc'd name.
 */
static char *scan_resolve_qualifier(const Scan *scan, const char *qualifier)
{
    size_t length = strlen(qualifier);
    for (size_t i = 0; i + 1 < scan->count; i++) {
        const CompletionToken *keyword = &scan->tokens[i];
        if (!token_is(keyword, "FROM") && !token_is(keyword, "JOIN") &&
            !token_is_punct(keyword, ',')) {
            continue;
        }
        /* table, possibly qualified: a.b.c */
        size_t t = i + 1;
        if (scan->tokens[t].type != TOKEN_WORD) {
            continue;
        }
        while (t + 2 < scan->count && token_is_punct(&scan->tokens[t + 1], '.') &&
               scan->tokens[t + 2].type == TOKEN_WORD) {
            t += 2;
        }
        const CompletionToken *table = &scan->tokens[t];
        size_t a = t + 1;
        if (a < scan->count && token_is(&scan->tokens[a], "AS")) {
            a++;
        }
        if (a < scan->count && scan->tokens[a].type == TOKEN_WORD &&
            !word_ends_from_item(&scan->tokens[a]) && scan->tokens[a].length == length &&
            strncmp(scan->tokens[a].text, qualifier, length) == 0) {
            return token_copy(table);
        }
    }
    char *copy = malloc(length + 1);
    if (copy != NULL) {
        memcpy(copy, qualifier, length + 1);
    }
    return copy;
}

/* Emits the columns of every table the statement reads (FROM / JOIN items). */
static bool scan_list_statement_columns(const Scan *scan, CompletionList *list)
{
    bool any = false;
    for (size_t i = 0; i + 1 < scan->count; i++) {
        if (!token_is(&scan->tokens[i], "FROM") && !token_is(&scan->tokens[i], "JOIN")) {
            continue;
        }
        size_t t = i + 1;
        while (t + 2 < scan->count && token_is_punct(&scan->tokens[t + 1], '.')) {
            t += 2;
        }
        if (scan->tokens[t].type != TOKEN_WORD) {
            continue;
        }
        char *table = token_copy(&scan->tokens[t]);
        if (table != NULL) {
            joinery_session_list_columns(completion_session, table, completion_on_name, list);
            any = true;
            free(table);
        }
    }
    return any;
}

/* The position of the innermost '(' still open after a WITH, or SIZE_MAX. */
static size_t scan_open_with(const Scan *scan)
{
    size_t depth = 0;
    for (size_t i = scan->count; i-- > 0;) {
        const CompletionToken *token = &scan->tokens[i];
        if (token_is_punct(token, ')')) {
            depth++;
        } else if (token_is_punct(token, '(')) {
            if (depth == 0) {
                return i > 0 && token_is(&scan->tokens[i - 1], "WITH") ? i : SIZE_MAX;
            }
            depth--;
        }
    }
    return SIZE_MAX;
}

/* The value of 'connector' = '...' written inside the WITH list opened at `open`. */
static char *scan_connector(const Scan *scan, size_t open)
{
    for (size_t i = open + 1; i + 2 < scan->count; i++) {
        const CompletionToken *key = &scan->tokens[i];
        if (key->type == TOKEN_STRING && key->length == 9 &&
            strncmp(key->text, "connector", 9) == 0 && token_is_punct(&scan->tokens[i + 1], '=') &&
            scan->tokens[i + 2].type == TOKEN_STRING) {
            return token_copy(&scan->tokens[i + 2]);
        }
    }
    return NULL;
}

/* The key of SET / RESET is being typed: the statement so far is the keyword and raw key text. */
static bool scan_at_set_key(const Scan *scan)
{
    if (scan->count == 0 ||
        !(token_is(&scan->tokens[0], "SET") || token_is(&scan->tokens[0], "RESET"))) {
        return false;
    }
    for (size_t i = 1; i < scan->count; i++) {
        if (scan->tokens[i].type == TOKEN_STRING || token_is_punct(&scan->tokens[i], '=')) {
            return false;
        }
    }
    return true;
}

/* ---------------------------------------------------------------- the candidates */

/*
 * Fills the list for the word text (the characters from start to the
 * cursor in rl_line_buffer). Returns the character to append after a
 * unique match.
 */
static int completion_collect(CompletionList *list, const char *text, int start)
{
    Scan *scan = calloc(1, sizeof *scan);
    if (scan == NULL) {
        return ' ';
    }
    size_t pending_length = completion_pending ? strlen(completion_pending) : 0;
    size_t line_length = (size_t)start;
    char *before = malloc(pending_length + line_length + 1);
    if (before == NULL) {
        free(scan);
        return ' ';
    }
    if (pending_length) {
        memcpy(before, completion_pending, pending_length);
    }
    memcpy(before + pending_length, rl_line_buffer, line_length);
    before[pending_length + line_length] = '\0';
    /* a word completed right after an opening quote is inside that string */
    scan_text(scan, before, pending_length + line_length);
    bool quoted = scan->in_string;
    if (quoted) {
        /* the quote is a word break: the word itself is the string's content so far */
        size_t at = pending_length + line_length;
        while (at > 0 && before[at - 1] != '\'') {
            at--;
        }
        Scan *prefix_scan = calloc(1, sizeof *prefix_scan);
        if (prefix_scan != NULL) {
            scan_text(prefix_scan, before, at > 0 ? at - 1 : 0);
            free(scan);
            scan = prefix_scan;
        }
    }
    /*
     * The word as the user sees it may be longer than readline's (which stops at '.', '-'
     * and the quote): a quoted key from its opening quote, a raw SET key from its start.
     * Candidates are matched against that word and handed back without what precedes
     * readline's word.
     */
    size_t typed_end = pending_length + line_length;
    size_t word_start = typed_end;
    if (quoted) {
        while (word_start > 0 && before[word_start - 1] != '\'') {
            word_start--;
        }
    } else if (scan_at_set_key(scan)) {
        while (word_start > 0 && !isspace((unsigned char)before[word_start - 1])) {
            word_start--;
        }
    }
    size_t skip = typed_end - word_start;
    char *word = malloc(skip + strlen(text) + 1);
    if (word != NULL) {
        memcpy(word, before + word_start, skip);
        strcpy(word + skip, text);
        list->prefix = word;
        list->prefix_length = strlen(word);
    }
    int append = ' ';
    const CompletionToken *last = scan->count ? &scan->tokens[scan->count - 1] : NULL;
    size_t with_open = scan_open_with(scan);
    bool after_dot =
        !quoted && start > 0 && rl_line_buffer[start - 1] == '.' && !scan_at_set_key(scan);
    const char *dot = quoted ? NULL : strrchr(text, '.');
    if (dot != NULL && !scan_at_set_key(scan)) {
        /* an editor that does not break words at '.' (editline): "o.us" is one word */
        size_t qualifier_length = (size_t)(dot - text);
        char *qualifier = malloc(qualifier_length + 1);
        char *lead = malloc(qualifier_length + 2);
        if (qualifier != NULL && lead != NULL) {
            memcpy(qualifier, text, qualifier_length);
            qualifier[qualifier_length] = '\0';
            memcpy(lead, text, qualifier_length + 1);
            lead[qualifier_length + 1] = '\0';
            /* the statement's tokens up to the word tell what the qualifier stands for */
            char *table = scan_resolve_qualifier(scan, qualifier);
            list->lead = lead;
            list->prefix = text;
            list->prefix_length = strlen(text);
            if (table != NULL) {
                joinery_session_list_columns(completion_session, table, completion_on_name, list);
            }
            list->lead = NULL;
            free(table);
        }
        free(qualifier);
        free(lead);
    } else if (after_dot && scan->count >= 2 && token_is_punct(last, '.') &&
               scan->tokens[scan->count - 2].type == TOKEN_WORD) {
        char *qualifier = token_copy(&scan->tokens[scan->count - 2]);
        char *table = qualifier ? scan_resolve_qualifier(scan, qualifier) : NULL;
        if (table != NULL) {
            joinery_session_list_columns(completion_session, table, completion_on_name, list);
        }
        free(table);
        free(qualifier);
    } else if (scan_at_set_key(scan)) {
        list->wrap = quoted || list->prefix_length ? NULL : "'"; /* a raw key stays raw */
        joinery_list_option_keys(completion_on_name, list);
        append = quoted ? '\'' : ' ';
    } else if (with_open != SIZE_MAX) {
        bool at_value = last != NULL && token_is_punct(last, '=');
        char *connector = scan_connector(scan, with_open);
        list->wrap = quoted ? NULL : "'";
        append = quoted ? '\'' : ' ';
        if (at_value && scan->count >= 2 && scan->tokens[scan->count - 2].type == TOKEN_STRING &&
            scan->tokens[scan->count - 2].length == 9 &&
            strncmp(scan->tokens[scan->count - 2].text, "connector", 9) == 0) {
            joinery_list_connectors(completion_on_name, list);
        } else if (!at_value) {
            joinery_list_connector_options(connector, completion_on_name, list);
        }
        free(connector);
    } else if (!quoted && last != NULL &&
               (token_is(last, "FROM") || token_is(last, "JOIN") || token_is(last, "INTO") ||
                token_is(last, "TABLE") || token_is(last, "VIEW") || token_is(last, "DESCRIBE") ||
                token_is(last, "DESC") ||
                (token_is_punct(last, ',') && scan->count >= 3 &&
                 token_is(&scan->tokens[scan->count - 3], "FROM")))) {
        joinery_session_list_tables(completion_session, completion_on_name, list);
    } else if (!quoted) {
        list->fold_case = true;
        const char *const *keywords = joinery_keywords();
        for (size_t i = 0; keywords != NULL && keywords[i] != NULL; i++) {
            completion_add(list, keywords[i]);
        }
        list->suffix = "(";
        joinery_list_functions(completion_on_name, list);
        list->suffix = NULL;
        list->fold_case = false;
        joinery_session_list_tables(completion_session, completion_on_name, list);
        if (!scan_list_statement_columns(scan, list)) {
            joinery_session_list_names(completion_session, completion_on_name, list);
        }
    }
    /* hand back what replaces readline's word: the candidate without the part before it */
    for (size_t i = 0; skip > 0 && i < list->count; i++) {
        size_t length = strlen(list->items[i]);
        size_t drop = skip < length ? skip : length;
        memmove(list->items[i], list->items[i] + drop, length - drop + 1);
    }
    list->prefix = text;
    list->prefix_length = strlen(text);
    free(word);
    free(before);
    free(scan);
    return append;
}

/* readline generator: returns one malloc'd match per call, NULL at the end. */
static char *completion_generate(const char *text, int state)
{
    (void)text;
    (void)state;
    CompletionList *list = &completion_list;
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
    (void)end;
    rl_attempted_completion_over = 1; /* no file names */
    CompletionList *list = &completion_list;
    completion_clear(list);
    list->prefix = text;
    list->prefix_length = strlen(text);
    list->lower_case = text[0] != '\0' && islower((unsigned char)text[0]);
    int append = ' ';
    if (completion_session != NULL) {
        append = completion_collect(list, text, start);
    }
    /* a function's '(' or a key's closing quote is where the word ends: no space after it */
    if (list->count == 1 && list->items[0][strlen(list->items[0]) - 1] == '(') {
        append = '\0';
    }
    rl_completion_append_character = append;
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

void completion_set_pending(const char *text, size_t length)
{
    free(completion_pending);
    completion_pending = NULL;
    if (text != NULL && length > 0) {
        completion_pending = malloc(length + 1);
        if (completion_pending != NULL) {
            memcpy(completion_pending, text, length);
            completion_pending[length] = '\0';
        }
    }
}

void completion_free(void)
{
    completion_clear(&completion_list);
    free(completion_pending);
    completion_pending = NULL;
}
