/*
 * lexer.c - Flink SQL tokens (see lexer.h for the contract).
 *
 * Invariants: every read goes through lexer_peek_at(), which returns '\0' past
 * the end, so no input can make the lexer read out of bounds; every loop
 * consumes at least one byte per iteration, so it always terminates.
 */
#include "engine/sql/lexer.h"

#include <string.h>

typedef struct KeywordEntry {
    const char *name;
    bool reserved;
} KeywordEntry;

static const KeywordEntry KEYWORD_ENTRIES[] = {{"", false},
#define JOINERY_KEYWORD_ENTRY(name, reserved) {#name, reserved},
                                               JOINERY_KEYWORD_LIST(JOINERY_KEYWORD_ENTRY)
#undef JOINERY_KEYWORD_ENTRY
};

enum { KEYWORD_MAX_LENGTH = 32 };

static char to_upper(char c)
{
    return (c >= 'a' && c <= 'z') ? (char)(c - 'a' + 'A') : c;
}

Keyword keyword_lookup(const char *word, size_t length)
{
    char upper[KEYWORD_MAX_LENGTH + 1];
    if (length == 0 || length > KEYWORD_MAX_LENGTH)
        return KEYWORD_NONE;
    for (size_t i = 0; i < length; i++)
        upper[i] = to_upper(word[i]);
    upper[length] = '\0';
    size_t low = 1, high = KEYWORD_COUNT; /* search [low, high) */
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        int order = strcmp(upper, KEYWORD_ENTRIES[middle].name);
        if (order == 0)
            return (Keyword)middle;
        if (order < 0)
            high = middle;
        else
            low = middle + 1;
    }
    return KEYWORD_NONE;
}

const char *keyword_name(Keyword keyword)
{
    if (keyword <= KEYWORD_NONE || keyword >= KEYWORD_COUNT)
        return "";
    return KEYWORD_ENTRIES[keyword].name;
}

bool keyword_is_reserved(Keyword keyword)
{
    if (keyword <= KEYWORD_NONE || keyword >= KEYWORD_COUNT)
        return false;
    return KEYWORD_ENTRIES[keyword].reserved;
}

const char *token_kind_describe(TokenKind kind)
{
    switch (kind) {
    case TOKEN_END:
        return "end of statement";
    case TOKEN_IDENTIFIER:
        return "identifier";
    case TOKEN_KEYWORD:
        return "keyword";
    case TOKEN_INTEGER:
        return "integer";
    case TOKEN_DECIMAL:
    case TOKEN_DOUBLE:
        return "number";
    case TOKEN_STRING:
        return "string literal";
    case TOKEN_BINARY_STRING:
        return "binary literal";
    case TOKEN_HINT:
        return "hint";
    case TOKEN_EQUAL:
        return "'='";
    case TOKEN_NOT_EQUAL:
        return "'<>'";
    case TOKEN_LESS:
        return "'<'";
    case TOKEN_LESS_EQUAL:
        return "'<='";
    case TOKEN_GREATER:
        return "'>'";
    case TOKEN_GREATER_EQUAL:
        return "'>='";
    case TOKEN_PLUS:
        return "'+'";
    case TOKEN_MINUS:
        return "'-'";
    case TOKEN_STAR:
        return "'*'";
    case TOKEN_SLASH:
        return "'/'";
    case TOKEN_PERCENT:
        return "'%'";
    case TOKEN_CONCAT:
        return "'||'";
    case TOKEN_DOT:
        return "'.'";
    case TOKEN_COMMA:
        return "','";
    case TOKEN_LEFT_PAREN:
        return "'('";
    case TOKEN_RIGHT_PAREN:
        return "')'";
    case TOKEN_LEFT_BRACKET:
        return "'['";
    case TOKEN_RIGHT_BRACKET:
        return "']'";
    case TOKEN_SEMICOLON:
        return "';'";
    case TOKEN_ARROW:
        return "'=>'";
    case TOKEN_ERROR:
        return "invalid token";
    }
    return "token";
}

void lexer_init(Lexer *lexer, const char *text, size_t length, int first_line, int first_column,
                Arena *arena)
{
    lexer->text = text;
    lexer->length = text ? length : 0;
    lexer->offset = 0;
    lexer->line = first_line > 0 ? first_line : 1;
    lexer->column = first_column > 0 ? first_column : 1;
    lexer->arena = arena;
}

/* The byte at offset + ahead, or '\0' past the end. */
static char lexer_peek_at(const Lexer *lexer, size_t ahead)
{
    size_t position = lexer->offset + ahead;
    return position < lexer->length ? lexer->text[position] : '\0';
}

static bool lexer_at_end(const Lexer *lexer)
{
    return lexer->offset >= lexer->length;
}

/* Consumes one byte, keeping line and column (UTF-8 continuation bytes take no column). */
static void lexer_advance(Lexer *lexer)
{
    if (lexer_at_end(lexer))
        return;
    unsigned char c = (unsigned char)lexer->text[lexer->offset++];
    if (c == '\n') {
        lexer->line++;
        lexer->column = 1;
    } else if ((c & 0xC0) != 0x80) {
        lexer->column++;
    }
}

static bool is_word_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (unsigned char)c >= 0x80;
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool is_word_part(char c)
{
    return is_word_start(c) || is_digit(c) || c == '$';
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* Fills the token's end position from the lexer's current position. */
static void lexer_finish(const Lexer *lexer, Token *token, size_t start)
{
    token->length = lexer->offset - start;
    token->end_line = lexer->line;
    token->end_column = lexer->column;
}

static int lexer_fail(Lexer *lexer, Token *token, Diag *diag, JoineryStatus status,
                      const char *message)
{
    token->kind = TOKEN_ERROR;
    lexer->offset = lexer->length; /* nothing after an error is read */
    return diag_error_at(diag, status, token->line, token->column, "%s", message);
}

/*
 * Skips whitespace and plain comments. Stops before a hint comment. Returns
 * false (with *error_line/column set) for an unterminated block comment.
 */
static bool lexer_skip_space(Lexer *lexer, int *error_line, int *error_column)
{
    for (;;) {
        char c = lexer_peek_at(lexer, 0);
        if (lexer_at_end(lexer))
            return true;
        if (is_space(c)) {
            lexer_advance(lexer);
        } else if (c == '-' && lexer_peek_at(lexer, 1) == '-') {
            while (!lexer_at_end(lexer) && lexer_peek_at(lexer, 0) != '\n')
                lexer_advance(lexer);
        } else if (c == '/' && lexer_peek_at(lexer, 1) == '*' && lexer_peek_at(lexer, 2) != '+') {
            *error_line = lexer->line;
            *error_column = lexer->column;
            lexer_advance(lexer);
            lexer_advance(lexer);
            for (;;) {
                if (lexer_at_end(lexer))
                    return false;
                if (lexer_peek_at(lexer, 0) == '*' && lexer_peek_at(lexer, 1) == '/') {
                    lexer_advance(lexer);
                    lexer_advance(lexer);
                    break;
                }
                lexer_advance(lexer);
            }
        } else {
            return true;
        }
    }
}

/* Reads a quoted run ending at `quote` (doubled quote = one quote char); decodes into the arena. */
static int lexer_read_quoted(Lexer *lexer, Token *token, Diag *diag, char quote, size_t start,
                             const char *unterminated)
{
    lexer_advance(lexer); /* opening quote */
    size_t content_start = lexer->offset;
    size_t escapes = 0;
    for (;;) {
        if (lexer_at_end(lexer))
            return lexer_fail(lexer, token, diag, JOINERY_ERROR_PARSE, unterminated);
        char c = lexer_peek_at(lexer, 0);
        if (c == quote) {
            if (lexer_peek_at(lexer, 1) == quote) {
                escapes++;
                lexer_advance(lexer);
                lexer_advance(lexer);
                continue;
            }
            break;
        }
        lexer_advance(lexer);
    }
    size_t content_end = lexer->offset;
    lexer_advance(lexer); /* closing quote */
    size_t raw_length = content_end - content_start;
    char *value = arena_alloc(lexer->arena, raw_length - escapes + 1);
    if (!value)
        return lexer_fail(lexer, token, diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    size_t out = 0;
    for (size_t i = content_start; i < content_end; i++) {
        value[out++] = lexer->text[i];
        if (lexer->text[i] == quote)
            i++; /* skip the doubled quote */
    }
    value[out] = '\0';
    token->value = value;
    token->value_length = out;
    lexer_finish(lexer, token, start);
    if (quote != '\'' && memchr(value, '\0', out))
        return lexer_fail(lexer, token, diag, JOINERY_ERROR_PARSE,
                          "Syntax error: a quoted identifier must not contain a NUL character");
    return JOINERY_OK;
}

static void lexer_read_number(Lexer *lexer, Token *token, size_t start)
{
    token->kind = TOKEN_INTEGER;
    while (is_digit(lexer_peek_at(lexer, 0)))
        lexer_advance(lexer);
    if (lexer_peek_at(lexer, 0) == '.') {
        token->kind = TOKEN_DECIMAL;
        lexer_advance(lexer);
        while (is_digit(lexer_peek_at(lexer, 0)))
            lexer_advance(lexer);
    }
    char e = lexer_peek_at(lexer, 0);
    if (e == 'e' || e == 'E') {
        char sign = lexer_peek_at(lexer, 1);
        size_t digit_at = (sign == '+' || sign == '-') ? 2 : 1;
        if (is_digit(lexer_peek_at(lexer, digit_at))) {
            token->kind = TOKEN_DOUBLE;
            for (size_t i = 0; i < digit_at; i++)
                lexer_advance(lexer);
            while (is_digit(lexer_peek_at(lexer, 0)))
                lexer_advance(lexer);
        }
    }
    lexer_finish(lexer, token, start);
}

static int lexer_read_hint(Lexer *lexer, Token *token, Diag *diag, size_t start)
{
    lexer_advance(lexer); /* / */
    lexer_advance(lexer); /* * */
    lexer_advance(lexer); /* + */
    token->kind = TOKEN_HINT;
    token->content_line = lexer->line;
    token->content_column = lexer->column;
    size_t content_start = lexer->offset;
    for (;;) {
        if (lexer_at_end(lexer))
            return lexer_fail(lexer, token, diag, JOINERY_ERROR_PARSE,
                              "Syntax error: unterminated hint comment");
        if (lexer_peek_at(lexer, 0) == '*' && lexer_peek_at(lexer, 1) == '/')
            break;
        lexer_advance(lexer);
    }
    size_t content_end = lexer->offset;
    lexer_advance(lexer);
    lexer_advance(lexer);
    lexer_finish(lexer, token, start);
    token->text = lexer->text + content_start;
    token->length = content_end - content_start;
    return JOINERY_OK;
}

/* Sets a one- or two-byte operator token. */
static void lexer_read_operator(Lexer *lexer, Token *token, TokenKind kind, size_t bytes,
                                size_t start)
{
    token->kind = kind;
    for (size_t i = 0; i < bytes; i++)
        lexer_advance(lexer);
    lexer_finish(lexer, token, start);
}

int lexer_next_token(Lexer *lexer, Token *token, Diag *diag)
{
    memset(token, 0, sizeof *token);
    int comment_line = 0, comment_column = 0;
    bool skipped = lexer_skip_space(lexer, &comment_line, &comment_column);
    size_t start = lexer->offset;
    token->text = lexer->text ? lexer->text + start : "";
    token->line = lexer->line;
    token->column = lexer->column;
    if (!skipped) {
        token->line = comment_line;
        token->column = comment_column;
        return lexer_fail(lexer, token, diag, JOINERY_ERROR_PARSE,
                          "Syntax error: unterminated comment");
    }
    if (lexer_at_end(lexer)) {
        token->kind = TOKEN_END;
        lexer_finish(lexer, token, start);
        return JOINERY_OK;
    }
    char c = lexer_peek_at(lexer, 0);
    char next = lexer_peek_at(lexer, 1);
    if ((c == 'X' || c == 'x') && next == '\'') {
        /* X'0A1B': a binary string literal */
        lexer_advance(lexer);
        token->kind = TOKEN_BINARY_STRING;
        return lexer_read_quoted(lexer, token, diag, '\'', start,
                                 "Syntax error: unterminated binary literal");
    }
    if (is_word_start(c)) {
        while (is_word_part(lexer_peek_at(lexer, 0)))
            lexer_advance(lexer);
        lexer_finish(lexer, token, start);
        token->keyword = keyword_lookup(token->text, token->length);
        if (token->keyword != KEYWORD_NONE) {
            token->kind = TOKEN_KEYWORD;
        } else {
            token->kind = TOKEN_IDENTIFIER;
            token->value = arena_strndup(lexer->arena, token->text, token->length);
            if (!token->value)
                return lexer_fail(lexer, token, diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        }
        return JOINERY_OK;
    }
    if (is_digit(c) || (c == '.' && is_digit(next))) {
        lexer_read_number(lexer, token, start);
        return JOINERY_OK;
    }
    switch (c) {
    case '\'':
        token->kind = TOKEN_STRING;
        return lexer_read_quoted(lexer, token, diag, '\'', start,
                                 "Syntax error: unterminated string literal");
    case '`':
        token->kind = TOKEN_IDENTIFIER;
        token->quoted = true;
        return lexer_read_quoted(lexer, token, diag, '`', start,
                                 "Syntax error: unterminated quoted identifier");
    case '/':
        if (next == '*')
            return lexer_read_hint(lexer, token, diag, start);
        lexer_read_operator(lexer, token, TOKEN_SLASH, 1, start);
        return JOINERY_OK;
    case '=':
        if (next == '>')
            lexer_read_operator(lexer, token, TOKEN_ARROW, 2, start);
        else
            lexer_read_operator(lexer, token, TOKEN_EQUAL, next == '=' ? 2 : 1, start);
        return JOINERY_OK;
    case '<':
        if (next == '>')
            lexer_read_operator(lexer, token, TOKEN_NOT_EQUAL, 2, start);
        else if (next == '=')
            lexer_read_operator(lexer, token, TOKEN_LESS_EQUAL, 2, start);
        else
            lexer_read_operator(lexer, token, TOKEN_LESS, 1, start);
        return JOINERY_OK;
    case '>':
        if (next == '=')
            lexer_read_operator(lexer, token, TOKEN_GREATER_EQUAL, 2, start);
        else
            lexer_read_operator(lexer, token, TOKEN_GREATER, 1, start);
        return JOINERY_OK;
    case '!':
        if (next == '=') {
            lexer_read_operator(lexer, token, TOKEN_NOT_EQUAL, 2, start);
            return JOINERY_OK;
        }
        break;
    case '|':
        if (next == '|') {
            lexer_read_operator(lexer, token, TOKEN_CONCAT, 2, start);
            return JOINERY_OK;
        }
        break;
    case '+':
        lexer_read_operator(lexer, token, TOKEN_PLUS, 1, start);
        return JOINERY_OK;
    case '-':
        lexer_read_operator(lexer, token, TOKEN_MINUS, 1, start);
        return JOINERY_OK;
    case '*':
        lexer_read_operator(lexer, token, TOKEN_STAR, 1, start);
        return JOINERY_OK;
    case '%':
        lexer_read_operator(lexer, token, TOKEN_PERCENT, 1, start);
        return JOINERY_OK;
    case '.':
        lexer_read_operator(lexer, token, TOKEN_DOT, 1, start);
        return JOINERY_OK;
    case ',':
        lexer_read_operator(lexer, token, TOKEN_COMMA, 1, start);
        return JOINERY_OK;
    case '(':
        lexer_read_operator(lexer, token, TOKEN_LEFT_PAREN, 1, start);
        return JOINERY_OK;
    case ')':
        lexer_read_operator(lexer, token, TOKEN_RIGHT_PAREN, 1, start);
        return JOINERY_OK;
    case ';':
        lexer_read_operator(lexer, token, TOKEN_SEMICOLON, 1, start);
        return JOINERY_OK;
    case '[':
        lexer_read_operator(lexer, token, TOKEN_LEFT_BRACKET, 1, start);
        return JOINERY_OK;
    case ']':
        lexer_read_operator(lexer, token, TOKEN_RIGHT_BRACKET, 1, start);
        return JOINERY_OK;
    default:
        break;
    }
    token->kind = TOKEN_ERROR;
    lexer->offset = lexer->length;
    if ((unsigned char)c >= 0x20 && (unsigned char)c < 0x7F)
        return diag_error_at(diag, JOINERY_ERROR_PARSE, token->line, token->column,
                             "Syntax error: unexpected character '%c'", c);
    return diag_error_at(diag, JOINERY_ERROR_PARSE, token->line, token->column,
                         "Syntax error: unexpected character 0x%02X", (unsigned)(unsigned char)c);
}
