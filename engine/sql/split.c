/*
 * split.c - statement boundaries for Flink SQL text (see split.h).
 *
 * A single forward scan with a small state machine: NORMAL, STRING ('...'),
 * IDENTIFIER (`...`), LINE_COMMENT (-- to end of line) and BLOCK_COMMENT
 * (slash-star to star-slash). A doubled quote inside a string or identifier is
 * an escape and keeps the state. Block comments do not nest (as in Calcite).
 *
 * Statement sets: a statement that opens with EXECUTE or EXPLAIN and whose
 * words then read STATEMENT SET BEGIN (EXECUTE STATEMENT SET BEGIN ...;
 * ...; END; and EXPLAIN [PLAN FOR | details] STATEMENT SET BEGIN ... END;)
 * holds the ';' of its INSERTs: it ends at the first ';' after the word END.
 * The words are read in NORMAL state only (never inside strings, quoted
 * identifiers or comments), a few bytes each, without allocating.
 */
#include "engine/sql/split.h"

typedef enum SplitState {
    SPLIT_NORMAL,
    SPLIT_STRING,
    SPLIT_IDENTIFIER,
    SPLIT_LINE_COMMENT,
    SPLIT_BLOCK_COMMENT,
} SplitState;

static bool split_is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static bool split_is_word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '$';
}

/* Whether the word of `length` bytes at text equals `upper` (an upper-case word), any case. */
static bool split_word_is(const char *text, size_t length, const char *upper)
{
    size_t i = 0;
    for (; i < length && upper[i]; i++) {
        char c = text[i];
        if (c >= 'a' && c <= 'z')
            c = (char)(c - 'a' + 'A');
        if (c != upper[i])
            return false;
    }
    return i == length && upper[i] == '\0';
}

/* What the words of a statement say about statement sets (top of this file). */
typedef struct SplitWords {
    unsigned count;   /* words read so far */
    bool may_open;    /* the first word was EXECUTE or EXPLAIN */
    unsigned matched; /* of STATEMENT SET BEGIN, in a row */
    bool in_set;      /* STATEMENT SET BEGIN was read: ';' ends the statement after END only */
    bool after_end;   /* the last content was the word END */
} SplitWords;

static void split_read_word(SplitWords *words, const char *word, size_t length)
{
    static const char *const OPENING[] = {"STATEMENT", "SET", "BEGIN"};
    if (words->count++ == 0)
        words->may_open =
            split_word_is(word, length, "EXECUTE") || split_word_is(word, length, "EXPLAIN");
    else if (words->may_open && !words->in_set) {
        words->matched = split_word_is(word, length, OPENING[words->matched]) ? words->matched + 1
                         : split_word_is(word, length, OPENING[0])            ? 1
                                                                              : 0;
        words->in_set = words->matched == 3;
    }
    words->after_end = split_word_is(word, length, "END");
}

size_t split_statement_end(const char *text, size_t length, bool *is_blank)
{
    SplitState state = SPLIT_NORMAL;
    bool has_content = false;
    SplitWords words = {0};
    size_t i = 0;
    while (i < length) {
        char c = text[i];
        char next = i + 1 < length ? text[i + 1] : '\0';
        if (state == SPLIT_NORMAL && split_is_word_char(c)) {
            size_t start = i;
            while (i < length && split_is_word_char(text[i]))
                i++;
            split_read_word(&words, text + start, i - start);
            has_content = true;
            continue;
        }
        if (state == SPLIT_NORMAL && c != ';' && !split_is_space(c) && !(c == '-' && next == '-') &&
            !(c == '/' && next == '*')) {
            words.after_end = false;
            words.matched = 0; /* STATEMENT SET BEGIN are words in a row */
        }
        switch (state) {
        case SPLIT_NORMAL:
            if (c == ';' && words.in_set && !words.after_end) {
                words.after_end = false; /* an INSERT of the set ended */
            } else if (c == ';') {
                if (is_blank != NULL) {
                    *is_blank = !has_content;
                }
                return i + 1;
            } else if (c == '\'') {
                state = SPLIT_STRING;
                has_content = true;
            } else if (c == '`') {
                state = SPLIT_IDENTIFIER;
                has_content = true;
            } else if (c == '-' && next == '-') {
                state = SPLIT_LINE_COMMENT;
                i++;
            } else if (c == '/' && next == '*') {
                state = SPLIT_BLOCK_COMMENT;
                if (i + 2 < length && text[i + 2] == '+') {
                    has_content = true; /* a hint */
                }
                i++;
            } else if (!split_is_space(c)) {
                has_content = true;
            }
            break;
        case SPLIT_STRING:
        case SPLIT_IDENTIFIER: {
            char quote = state == SPLIT_STRING ? '\'' : '`';
            if (c == quote) {
                if (next == quote) {
                    i++; /* escaped quote */
                } else {
                    state = SPLIT_NORMAL;
                }
            }
            break;
        }
        case SPLIT_LINE_COMMENT:
            if (c == '\n') {
                state = SPLIT_NORMAL;
            }
            break;
        case SPLIT_BLOCK_COMMENT:
            if (c == '*' && next == '/') {
                state = SPLIT_NORMAL;
                i++;
            }
            break;
        }
        i++;
    }
    if (is_blank != NULL) {
        *is_blank = !has_content && (state == SPLIT_NORMAL || state == SPLIT_LINE_COMMENT);
    }
    return 0;
}

size_t split_skip_blank(const char *text, size_t length)
{
    size_t i = 0;
    while (i < length) {
        char c = text[i];
        char next = i + 1 < length ? text[i + 1] : '\0';
        if (split_is_space(c)) {
            i++;
        } else if (c == '-' && next == '-') {
            while (i < length && text[i] != '\n') {
                i++;
            }
        } else if (c == '/' && next == '*' && !(i + 2 < length && text[i + 2] == '+')) {
            size_t end = i + 2;
            while (end < length &&
                   !(text[end] == '*' && end + 1 < length && text[end + 1] == '/')) {
                end++;
            }
            if (end >= length) {
                break; /* unterminated: not blank, so the lexer reports it where it starts */
            }
            i = end + 2;
        } else {
            break;
        }
    }
    return i;
}
