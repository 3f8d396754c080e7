/*
 * secrets.c - sql_find_secrets (secrets.h): one pass over the lexer's
 * tokens remembering the last key candidate and whether a '=' followed it.
 *
 * Invariants: ranges are emitted in increasing, non-overlapping order and
 * lie inside the text; the scan uses its own small arena, freed before it
 * returns; a lexer failure never ends the scan early without either
 * skipping one character or covering the rest of the text.
 */
#include "engine/sql/secrets.h"

#include <stdbool.h>
#include <string.h>

#include "engine/base/arena.h"
#include "engine/base/diag.h"
#include "engine/base/sensitive.h"
#include "engine/sql/lexer.h"

typedef struct SecretScan {
    SqlSecretEmit emit;
    void *context;
    size_t count;
    size_t emitted_end; /* end of the last range emitted, relative to the outer text */
} SecretScan;

static void secrets_emit(SecretScan *scan, size_t offset, size_t length)
{
    if (length == 0)
        return;
    if (offset < scan->emitted_end) { /* never overlap the previous range */
        if (offset + length <= scan->emitted_end)
            return;
        length -= scan->emitted_end - offset;
        offset = scan->emitted_end;
    }
    scan->count++;
    scan->emitted_end = offset + length;
    if (scan->emit)
        scan->emit(scan->context, offset, length);
}

/* Words that may chain into a bare dotted key or value (no spaces between). */
/* A token's range: a 'string' without its quotes (the mask stays quoted), else all of it. */
static void secrets_emit_token(SecretScan *scan, const Token *token, size_t base, size_t start)
{
    if (token->kind == TOKEN_STRING && token->length >= 2)
        secrets_emit(scan, base + start + 1, token->length - 2);
    else
        secrets_emit(scan, base + start, token->length);
}

static bool secrets_is_word(const Token *token)
{
    return token->kind == TOKEN_IDENTIFIER || token->kind == TOKEN_KEYWORD ||
           token->kind == TOKEN_DOT || token->kind == TOKEN_MINUS || token->kind == TOKEN_INTEGER ||
           token->kind == TOKEN_DECIMAL;
}

/* True when a sensitive key word or credential appears anywhere in text. */
static bool secrets_text_mentions_secret(const char *text, size_t length)
{
    return sensitive_key(text, length) || sensitive_value(text, length);
}

/*
 * Scans text[0..length) at outer offset base; depth limits hint recursion.
 * Returns true when the text ends on a sensitive key still waiting for its
 * value (a hint cut short by a comment inside it: the value follows it).
 */
static bool secrets_scan(SecretScan *scan, const char *text, size_t length, size_t base, int depth)
{
    const char *whole = text;
    size_t whole_length = length;
    Arena arena;
    arena_init(&arena, 4096);
    Lexer lexer;
    lexer_init(&lexer, text, length, 1, 1, &arena);
    /* the key candidate: a string/identifier token or a chain of words */
    size_t key_start = 0, key_end = 0;
    bool have_key = false;
    bool key_sensitive = false;
    bool key_quoted = false;
    bool after_equal = false;
    /* a bare value being masked: extend while the next token touches it */
    bool in_value = false;
    size_t value_start = 0, value_end = 0;
    Token token;
    Diag diag;
    for (;;) {
        diag_clear(&diag);
        size_t before = lexer.offset;
        int status = lexer_next_token(&lexer, &token, &diag);
        if (status != JOINERY_OK) {
            if (in_value) {
                secrets_emit(scan, base + value_start, value_end - value_start);
                in_value = false;
            }
            /* where the bad token starts: first non-blank byte from `before` */
            size_t at = before;
            while (at < length && (text[at] == ' ' || text[at] == '\t' || text[at] == '\n' ||
                                   text[at] == '\r' || text[at] == '\f'))
                at++;
            bool unterminated =
                status == JOINERY_ERROR_NO_MEMORY || at >= length || text[at] == '\'' ||
                text[at] == '`' || (at + 1 < length && text[at] == '/' && text[at + 1] == '*') ||
                (at + 1 < length && (text[at] == 'x' || text[at] == 'X') && text[at + 1] == '\'');
            if (unterminated) {
                /* the rest cannot be read as tokens */
                if (key_sensitive || secrets_text_mentions_secret(whole, whole_length)) {
                    secrets_emit(scan, base + at, length - at);
                    key_sensitive = true;
                }
                break;
            }
            /* a character that starts no token: step over it (a whole UTF-8 sequence) */
            size_t next = at + 1;
            while (next < length && ((unsigned char)text[next] & 0xC0) == 0x80)
                next++;
            lexer_init(&lexer, text + next, length - next, 1, 1, &arena);
            text += next;
            length -= next;
            base += next;
            have_key = key_sensitive = after_equal = false;
            continue;
        }
        if (token.kind == TOKEN_END)
            break;
        size_t start = (size_t)(token.text - text);
        size_t end = start + token.length;
        if (token.kind == TOKEN_HINT) {
            /* token.text covers the content only; '*' '/' follow it */
            if (in_value) {
                secrets_emit(scan, base + value_start, value_end - value_start);
                in_value = false;
            }
            bool pending =
                depth < 2 && secrets_scan(scan, token.text, token.length, base + start, depth + 1);
            after_equal = false;
            have_key = key_sensitive = key_quoted = pending;
            continue;
        }
        if (in_value) {
            if (start == value_end && secrets_is_word(&token)) {
                value_end = end;
                continue;
            }
            secrets_emit(scan, base + value_start, value_end - value_start);
            in_value = false;
        }
        /* a quoted key's value even without '=' (a syntax error must not show it) */
        bool value_without_equal = key_quoted && token.kind == TOKEN_STRING;
        if (key_sensitive && (after_equal || value_without_equal)) {
            /* the value of a sensitive key */
            key_sensitive = have_key = after_equal = false;
            if (token.kind == TOKEN_STRING || token.kind == TOKEN_BINARY_STRING ||
                token.kind == TOKEN_DOUBLE || !secrets_is_word(&token)) {
                if (token.kind != TOKEN_COMMA && token.kind != TOKEN_RIGHT_PAREN &&
                    token.kind != TOKEN_SEMICOLON)
                    secrets_emit_token(scan, &token, base, start);
            } else {
                in_value = true;
                value_start = start;
                value_end = end;
            }
            continue;
        }
        if (token.kind == TOKEN_EQUAL) {
            after_equal = have_key;
            continue;
        }
        if (token.kind == TOKEN_STRING && sensitive_value(text + start, end - start))
            secrets_emit_token(scan, &token, base, start);
        if (token.kind == TOKEN_STRING || (token.kind == TOKEN_IDENTIFIER && token.quoted)) {
            key_start = start;
            key_end = end;
            have_key = true;
            key_quoted = true;
        } else if (secrets_is_word(&token)) {
            if (have_key && !key_quoted && start == key_end)
                key_end = end; /* properties.sasl.password written as one word */
            else {
                key_start = start;
                key_end = end;
                have_key = true;
                key_quoted = false;
            }
        } else {
            have_key = false;
        }
        after_equal = false;
        key_sensitive = have_key && sensitive_key(text + key_start, key_end - key_start);
    }
    if (in_value)
        secrets_emit(scan, base + value_start, value_end - value_start);
    arena_destroy(&arena);
    return key_sensitive;
}

size_t sql_find_secrets(const char *text, size_t length, SqlSecretEmit emit, void *context)
{
    SecretScan scan = {.emit = emit, .context = context, .count = 0, .emitted_end = 0};
    secrets_scan(&scan, text, length, 0, 0);
    return scan.count;
}
