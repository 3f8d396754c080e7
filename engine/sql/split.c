/*
 * split.c - statement boundaries for Flink SQL text (see split.h).
 *
 * A single forward scan with a small state machine: NORMAL, STRING ('...'),
 * IDENTIFIER (`...`), LINE_COMMENT (-- to end of line) and BLOCK_COMMENT
 * (slash-star to star-slash). A doubled quote inside a string or identifier is
 * an escape and keeps the state. Block comments do not nest (as in Calcite).
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

size_t split_statement_end(const char *text, size_t length, bool *is_blank)
{
    SplitState state = SPLIT_NORMAL;
    bool has_content = false;
    size_t i = 0;
    while (i < length) {
        char c = text[i];
        char next = i + 1 < length ? text[i + 1] : '\0';
        switch (state) {
        case SPLIT_NORMAL:
            if (c == ';') {
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
