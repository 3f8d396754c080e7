/*
 * parser.c - recursive-descent parser for one Flink SQL statement (see parser.h).
 *
 * Structure: the whole statement is lexed first into an array of tokens (a
 * lexical error becomes a final TOKEN_ERROR token, reported only when the
 * parser reaches it, so errors come out in source order). Hint comments stay
 * in the array but the cursor always rests on a non-hint token; the clauses
 * that take hints (after SELECT, after a table name) look at the hint tokens
 * they stepped over. Expressions use one function per precedence level:
 *   OR < AND < NOT < comparison/IS/BETWEEN/IN/LIKE < + - || < * / % < unary.
 *
 * Invariants:
 * - Every parse function returns NULL/false after recording exactly one error
 *   (parser->failed); callers return at once, so the first error wins.
 * - The cursor never moves past the last token (TOKEN_END or TOKEN_ERROR), and
 *   every loop either consumes a token or stops, so parsing always terminates.
 * - Recursion is bounded by PARSER_MAX_DEPTH (deeply nested input is an error,
 *   not a stack overflow).
 * - "Expected" alternatives are collected per token position while the parser
 *   tries them, and listed in the error message for that position.
 * - Backtracking never repeats work: three places try one reading and fall
 *   back to another from the same token (a parenthesised FROM item: a
 *   subquery, else a parenthesised join; POSITION(a IN b), else POSITION(a,
 *   b); SUBSTRING(s FROM a), else SUBSTRING(s, a)). Nested, each retry would
 *   redo every level inside it (2^depth: a fuzzed "((((SELECT" took minutes).
 *   The rules they retry record their outcome per start token in the
 *   parser's cache (the state after them and the result or error), and a
 *   second call from that token replays it, so parsing stays polynomial.
 *   Results are replayed only where the first reading dropped them untouched
 *   (expressions, after one peek); a FROM item replays only its failures. A
 *   failure of the depth limit is not recorded (it depends on the path).
 */
#include "engine/sql/parser.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "engine/base/sensitive.h"
#include "engine/sql/ast_depth.h"
#include "engine/sql/lexer.h"
#include "engine/sql/secrets.h"

enum {
    PARSER_MAX_DEPTH = 200,
    PARSER_MAX_EXPECTED = 24,
    PARSER_MAX_LISTED = 12, /* alternatives printed in one message */
    PARSER_MAX_NAME_PARTS = 3,
    PARSER_TOKEN_SHOWN = 40, /* bytes of a token quoted in a message */
};

/* The rules whose outcome the cache records (see the invariants above). */
typedef enum ParserMemoKind {
    PARSER_MEMO_TABLE_PRIMARY_FAILURE,
    PARSER_MEMO_ADDITIVE,
    PARSER_MEMO_EXPRESSION,
    PARSER_MEMO_KINDS,
} ParserMemoKind;

typedef struct ParserMemoEntry ParserMemoEntry;

typedef struct SecretRange {
    size_t offset;
    size_t length;
} SecretRange;

/*
 * What a parser keeps across its own backtracking: a `Parser saved = *parser`
 * copy restored later shares this (the Parser holds a pointer), so what was
 * learnt on the abandoned path stays learnt. Allocated with the parser.
 */
typedef struct ParserCache {
    ParserMemoEntry **entries[PARSER_MEMO_KINDS]; /* [token index]; NULL until used */
    SecretRange *secrets;                         /* the text's secrets, found once */
    size_t secret_count;
    bool secrets_found;
} ParserCache;

typedef struct Parser {
    const char *text; /* what the tokens were read from (a hint: its content) */
    size_t length;
    Arena *arena;
    Diag *diag;
    Token *tokens;
    size_t token_count;
    size_t position; /* the current token; never a TOKEN_HINT */
    size_t previous; /* the last consumed token; SIZE_MAX before the first */
    Diag lexer_diag; /* the error carried by a final TOKEN_ERROR */
    int depth;
    bool failed;
    bool depth_failed; /* the failure is the depth limit's */
    JoineryStatus status;
    ParserCache *cache;
    size_t expected_at; /* token index the expected list belongs to */
    size_t expected_count;
    const char *expected[PARSER_MAX_EXPECTED];
} Parser;

struct ParserMemoEntry {
    Parser after;              /* the parser when the rule returned (depth aside) */
    void *result;              /* what it returned; NULL for a failure */
    JoineryStatus diag_status; /* the error it recorded (failures only) */
    int diag_line;
    int diag_column;
    char *diag_message;
};

/* ------------------------------------------------------------ basics */

static const Token *parser_current(const Parser *parser)
{
    return &parser->tokens[parser->position];
}

static void parser_skip_hints(Parser *parser)
{
    while (parser->tokens[parser->position].kind == TOKEN_HINT)
        parser->position++;
}

static bool parser_at_last(const Parser *parser)
{
    TokenKind kind = parser_current(parser)->kind;
    return kind == TOKEN_END || kind == TOKEN_ERROR;
}

static void parser_advance(Parser *parser)
{
    if (parser_at_last(parser))
        return;
    parser->previous = parser->position;
    parser->position++;
    parser_skip_hints(parser);
}

/* The non-hint token `ahead` places after the current one (clamped to the last). */
static const Token *parser_peek(const Parser *parser, size_t ahead)
{
    size_t index = parser->position;
    while (ahead > 0 && parser->tokens[index].kind != TOKEN_END &&
           parser->tokens[index].kind != TOKEN_ERROR) {
        index++;
        while (parser->tokens[index].kind == TOKEN_HINT)
            index++;
        ahead--;
    }
    return &parser->tokens[index];
}

static bool token_is_keyword(const Token *token, Keyword keyword)
{
    return token->kind == TOKEN_KEYWORD && token->keyword == keyword;
}

static bool token_is_identifier(const Token *token)
{
    return token->kind == TOKEN_IDENTIFIER ||
           (token->kind == TOKEN_KEYWORD && !keyword_is_reserved(token->keyword));
}

/* A word of a statement's skeleton: a keyword or an unquoted identifier spelling it (any case). */
static bool token_is_word(const Token *token, const char *word)
{
    if (token->kind != TOKEN_KEYWORD && (token->kind != TOKEN_IDENTIFIER || token->quoted))
        return false;
    return strlen(word) == token->length && strncasecmp(token->text, word, token->length) == 0;
}

static bool parser_at_window_clause(Parser *parser);

/* True at OFFSET or FETCH, which end a FROM item or a select item as the reserved words of
   Calcite's grammar do (never an alias without AS). */
static bool parser_at_query_tail_word(Parser *parser)
{
    const Token *token = parser_current(parser);
    return token_is_word(token, "OFFSET") || token_is_word(token, "FETCH") ||
           parser_at_window_clause(parser);
}

/* True at WINDOW name AS, the WINDOW clause of a SELECT (never an alias without AS). */
static bool parser_at_window_clause(Parser *parser)
{
    return token_is_word(parser_current(parser), "WINDOW") &&
           token_is_identifier(parser_peek(parser, 1)) &&
           token_is_keyword(parser_peek(parser, 2), KEYWORD_AS);
}

/* Records that `what` would have been accepted at the current token. */
static void parser_note(Parser *parser, const char *what)
{
    if (parser->expected_at != parser->position) {
        parser->expected_at = parser->position;
        parser->expected_count = 0;
    }
    for (size_t i = 0; i < parser->expected_count; i++)
        if (strcmp(parser->expected[i], what) == 0)
            return;
    if (parser->expected_count < PARSER_MAX_EXPECTED)
        parser->expected[parser->expected_count++] = what;
}

static void parser_fail_at(Parser *parser, int line, int column, JoineryStatus status,
                           const char *format, ...) __attribute__((format(printf, 5, 6)));

static void parser_fail_at(Parser *parser, int line, int column, JoineryStatus status,
                           const char *format, ...)
{
    if (parser->failed)
        return;
    parser->failed = true;
    parser->status = status;
    char message[DIAG_MESSAGE_MAX];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    diag_error_at(parser->diag, status, line, column, "%s", message);
}

static void parser_fail_no_memory(Parser *parser)
{
    const Token *token = parser_current(parser);
    parser_fail_at(parser, token->line, token->column, JOINERY_ERROR_NO_MEMORY, "out of memory");
}

typedef struct SecretProbe {
    size_t offset; /* the token's bytes */
    size_t length;
    bool found;
} SecretProbe;

static void parser_probe_secret(void *context, size_t offset, size_t length)
{
    SecretProbe *probe = context;
    if (offset < probe->offset + probe->length && probe->offset < offset + length)
        probe->found = true; /* the ranges overlap */
}

static void parser_collect_secret(void *context, size_t offset, size_t length)
{
    ParserCache *cache = context;
    if (cache->secrets)
        cache->secrets[cache->secret_count] = (SecretRange){offset, length};
    cache->secret_count++;
}

/*
 * True when the token is a secret of the text (engine/sql/secrets.h): never quoted in
 * errors. The text's secrets are found once per parser (a statement that fails many
 * times while backtracking would otherwise rescan it each time).
 */
static bool parser_token_is_secret(const Parser *parser, const Token *token)
{
    if (parser->text == NULL || token->text < parser->text ||
        token->text >= parser->text + parser->length)
        return false;
    SecretProbe probe = {
        .offset = (size_t)(token->text - parser->text), .length = token->length, .found = false};
    ParserCache *cache = parser->cache;
    if (cache && !cache->secrets_found) {
        size_t count = sql_find_secrets(parser->text, parser->length, NULL, NULL);
        cache->secrets = count ? arena_calloc(parser->arena, count, sizeof(SecretRange)) : NULL;
        if (count == 0 || cache->secrets) {
            sql_find_secrets(parser->text, parser->length, parser_collect_secret, cache);
            cache->secrets_found = true;
        }
    }
    if (!cache || !cache->secrets_found) { /* no memory for the list: scan */
        sql_find_secrets(parser->text, parser->length, parser_probe_secret, &probe);
        return probe.found;
    }
    for (size_t i = 0; i < cache->secret_count && !probe.found; i++)
        parser_probe_secret(&probe, cache->secrets[i].offset, cache->secrets[i].length);
    return probe.found;
}

/* ------------------------------------------------------------ memo (see the invariants) */

/*
 * When `kind` was recorded at the current token: puts the parser where the rule
 * left it (at the current depth), restores its error if it failed, sets *result and
 * returns true. Otherwise false, nothing changed.
 */
static bool parser_replay(Parser *parser, ParserMemoKind kind, void **result)
{
    ParserCache *cache = parser->cache;
    if (!cache || !cache->entries[kind] || parser->position >= parser->token_count)
        return false;
    const ParserMemoEntry *entry = cache->entries[kind][parser->position];
    if (!entry)
        return false;
    int depth = parser->depth;
    *parser = entry->after;
    parser->depth = depth;
    if (entry->after.failed) {
        parser->diag->status = entry->diag_status;
        parser->diag->line = entry->diag_line;
        parser->diag->column = entry->diag_column;
        snprintf(parser->diag->message, sizeof parser->diag->message, "%s",
                 entry->diag_message ? entry->diag_message : "");
    }
    *result = entry->result;
    return true;
}

/* Records what rule `kind`, started at token `start`, did (best effort: no memory, no memo). */
static void parser_record(Parser *parser, ParserMemoKind kind, size_t start, void *result)
{
    ParserCache *cache = parser->cache;
    if (!cache || start >= parser->token_count || (parser->failed && parser->depth_failed))
        return;
    if (!cache->entries[kind]) {
        cache->entries[kind] =
            arena_calloc(parser->arena, parser->token_count, sizeof(ParserMemoEntry *));
        if (!cache->entries[kind])
            return;
    }
    ParserMemoEntry *entry = arena_calloc(parser->arena, 1, sizeof *entry);
    if (!entry)
        return;
    entry->after = *parser;
    entry->result = result;
    if (parser->failed) {
        entry->diag_status = parser->diag->status;
        entry->diag_line = parser->diag->line;
        entry->diag_column = parser->diag->column;
        entry->diag_message = arena_strdup(parser->arena, parser->diag->message);
    }
    cache->entries[kind][start] = entry;
}

/* Appends a printable form of the token to the message buffer (a secret as the mask). */
static void describe_token(const Parser *parser, const Token *token, char *buffer, size_t size)
{
    if (token->kind == TOKEN_END) {
        snprintf(buffer, size, "end of statement");
        return;
    }
    if (parser_token_is_secret(parser, token)) {
        snprintf(buffer, size, "'%s'", SENSITIVE_MASK);
        return;
    }
    size_t length = token->length;
    const char *suffix = "";
    if (length > PARSER_TOKEN_SHOWN) {
        length = PARSER_TOKEN_SHOWN;
        suffix = "...";
    }
    if (token->kind == TOKEN_HINT)
        snprintf(buffer, size, "hint '/*+%.*s%s*/'", (int)length, token->text, suffix);
    else
        snprintf(buffer, size, "'%.*s%s'", (int)length, token->text, suffix);
}

/* Fails at the current token: "unexpected X; expected A, B or C". */
static void parser_fail_unexpected(Parser *parser)
{
    if (parser->failed)
        return;
    const Token *token = parser_current(parser);
    if (token->kind == TOKEN_ERROR) {
        parser_fail_at(parser, parser->lexer_diag.line, parser->lexer_diag.column,
                       parser->lexer_diag.status, "%s", parser->lexer_diag.message);
        return;
    }
    char shown[PARSER_TOKEN_SHOWN + 32];
    describe_token(parser, token, shown, sizeof shown);
    char expected[1024] = "";
    size_t used = 0;
    if (parser->expected_at == parser->position && parser->expected_count > 0) {
        size_t count = parser->expected_count;
        size_t listed = count > PARSER_MAX_LISTED ? PARSER_MAX_LISTED : count;
        used += (size_t)snprintf(expected + used, sizeof expected - used, "; expected ");
        for (size_t i = 0; i < listed && used < sizeof expected; i++) {
            const char *separator =
                i == 0 ? "" : (i + 1 == listed && listed == count ? " or " : ", ");
            used += (size_t)snprintf(expected + used, sizeof expected - used, "%s%s", separator,
                                     parser->expected[i]);
        }
        if (listed < count && used < sizeof expected)
            snprintf(expected + used, sizeof expected - used, ", ...");
    }
    parser_fail_at(parser, token->line, token->column, JOINERY_ERROR_PARSE,
                   "Syntax error: unexpected %s%s", shown, expected);
}

static bool parser_is(const Parser *parser, TokenKind kind)
{
    return parser_current(parser)->kind == kind;
}

static bool parser_is_keyword(const Parser *parser, Keyword keyword)
{
    return token_is_keyword(parser_current(parser), keyword);
}

static bool parser_accept(Parser *parser, TokenKind kind)
{
    if (parser_is(parser, kind)) {
        parser_advance(parser);
        return true;
    }
    parser_note(parser, token_kind_describe(kind));
    return false;
}

static bool parser_expect(Parser *parser, TokenKind kind)
{
    if (parser_accept(parser, kind))
        return true;
    parser_fail_unexpected(parser);
    return false;
}

static bool parser_accept_keyword(Parser *parser, Keyword keyword)
{
    if (parser_is_keyword(parser, keyword)) {
        parser_advance(parser);
        return true;
    }
    parser_note(parser, keyword_name(keyword));
    return false;
}

static bool parser_expect_keyword(Parser *parser, Keyword keyword)
{
    if (parser_accept_keyword(parser, keyword))
        return true;
    parser_fail_unexpected(parser);
    return false;
}

static bool parser_enter(Parser *parser)
{
    if (parser->depth >= PARSER_MAX_DEPTH) {
        const Token *token = parser_current(parser);
        parser_fail_at(parser, token->line, token->column, JOINERY_ERROR_PARSE,
                       "Syntax error: statement nests too deeply");
        parser->depth_failed = true;
        return false;
    }
    parser->depth++;
    return true;
}

static void parser_leave(Parser *parser)
{
    parser->depth--;
}

static void *parser_alloc(Parser *parser, size_t size)
{
    void *memory = arena_calloc(parser->arena, 1, size);
    if (!memory)
        parser_fail_no_memory(parser);
    return memory;
}

static char *parser_strndup(Parser *parser, const char *text, size_t length)
{
    char *copy = arena_strndup(parser->arena, text, length);
    if (!copy)
        parser_fail_no_memory(parser);
    return copy;
}

static bool ast_list_push(Parser *parser, AstList *list, void *item)
{
    if (list->count == list->capacity) {
        size_t capacity = list->capacity ? list->capacity * 2 : 4;
        void **items = arena_alloc(parser->arena, capacity * sizeof *items);
        if (!items) {
            parser_fail_no_memory(parser);
            return false;
        }
        if (list->count)
            memcpy(items, list->items, list->count * sizeof *items);
        list->items = items;
        list->capacity = capacity;
    }
    list->items[list->count++] = item;
    return true;
}

static SourcePosition token_position(const Token *token)
{
    SourcePosition position = {token->line, token->column};
    return position;
}

/* End of the source text of the last consumed token. */
static const char *parser_previous_end(const Parser *parser)
{
    if (parser->previous == SIZE_MAX)
        return parser->tokens[0].text;
    const Token *token = &parser->tokens[parser->previous];
    return token->text + token->length;
}

/* The identifier's text as written (backticks removed), or NULL after an error. */
static char *parser_identifier_text(Parser *parser, const Token *token)
{
    if (token->kind == TOKEN_IDENTIFIER)
        return token->value;
    return parser_strndup(parser, token->text, token->length);
}

/* Consumes an identifier (plain, quoted or non-reserved keyword); `what` names it in errors. */
static char *parser_expect_identifier(Parser *parser, const char *what)
{
    const Token *token = parser_current(parser);
    if (!token_is_identifier(token)) {
        parser_note(parser, what);
        parser_fail_unexpected(parser);
        return NULL;
    }
    char *text = parser_identifier_text(parser, token);
    if (text)
        parser_advance(parser);
    return text;
}

/*
 * The text of a string literal used as a name or a setting (an option key or
 * value, a SET value, a hint option), which is C text: NULL (failed) when it
 * holds a NUL byte, which would cut it. String literals in expressions keep
 * their NUL bytes (literal.text_length).
 */
static char *parser_text_value(Parser *parser, const Token *token)
{
    if (memchr(token->value, '\0', token->value_length)) {
        parser_fail_at(parser, token->line, token->column, JOINERY_ERROR_PARSE,
                       "Syntax error: a NUL character is not allowed in an option key or "
                       "value (only in string values of expressions)");
        return NULL;
    }
    return token->value;
}

/* Consumes a string literal; returns its unescaped text. */
static char *parser_expect_string(Parser *parser, const char *what)
{
    const Token *token = parser_current(parser);
    if (token->kind != TOKEN_STRING) {
        parser_note(parser, what);
        parser_fail_unexpected(parser);
        return NULL;
    }
    char *text = parser_text_value(parser, token);
    if (text)
        parser_advance(parser);
    return text;
}

/* name { . name }, at most PARSER_MAX_NAME_PARTS parts, into parts. */
static bool parser_parse_name(Parser *parser, AstList *parts, const char *what)
{
    for (;;) {
        const Token *token = parser_current(parser);
        char *part = parser_expect_identifier(parser, what);
        if (!part || !ast_list_push(parser, parts, part))
            return false;
        if (!parser_is(parser, TOKEN_DOT))
            return true;
        if (parts->count == PARSER_MAX_NAME_PARTS) {
            parser_fail_at(parser, token->line, token->column, JOINERY_ERROR_PARSE,
                           "Syntax error: a name has at most %d parts", PARSER_MAX_NAME_PARTS);
            return false;
        }
        parser_advance(parser);
    }
}

/* '(' name {, name} ')' into names. */
static bool parser_parse_name_list(Parser *parser, AstList *names, const char *what)
{
    if (!parser_expect(parser, TOKEN_LEFT_PAREN))
        return false;
    do {
        char *name = parser_expect_identifier(parser, what);
        if (!name || !ast_list_push(parser, names, name))
            return false;
    } while (parser_accept(parser, TOKEN_COMMA));
    return parser_expect(parser, TOKEN_RIGHT_PAREN);
}

/* Joins name parts with '.'. */
static char *parser_join_names(Parser *parser, const AstList *parts, size_t count)
{
    size_t length = 0;
    for (size_t i = 0; i < count; i++)
        length += strlen(parts->items[i]) + 1;
    char *joined = parser_alloc(parser, length + 1);
    if (!joined)
        return NULL;
    size_t used = 0;
    for (size_t i = 0; i < count; i++) {
        size_t part_length = strlen(parts->items[i]);
        if (i > 0)
            joined[used++] = '.';
        memcpy(joined + used, parts->items[i], part_length);
        used += part_length;
    }
    joined[used] = '\0';
    return joined;
}

/* True when the current token, after any '(' tokens, starts a query. */
static bool parser_query_follows(const Parser *parser, size_t ahead)
{
    const Token *token = parser_peek(parser, ahead);
    /* more parentheses than the depth limit fail anyway: stop looking (keeps this linear) */
    for (int opened = 0; token->kind == TOKEN_LEFT_PAREN && opened < PARSER_MAX_DEPTH; opened++)
        token = parser_peek(parser, ++ahead);
    return token_is_keyword(token, KEYWORD_SELECT) || token_is_keyword(token, KEYWORD_WITH) ||
           token_is_keyword(token, KEYWORD_VALUES);
}

/* ------------------------------------------------------------ options and hints */

/* 'key' = 'value' into options. */
static bool parser_parse_option(Parser *parser, AstList *options)
{
    AstOption *option = parser_alloc(parser, sizeof *option);
    if (!option)
        return false;
    option->position = token_position(parser_current(parser));
    option->key = parser_expect_string(parser, "option key string");
    if (!option->key || !parser_expect(parser, TOKEN_EQUAL))
        return false;
    option->value_position = token_position(parser_current(parser));
    option->value = parser_expect_string(parser, "option value string");
    return option->value && ast_list_push(parser, options, option);
}

/* '(' [option {, option}] ')' */
static bool parser_parse_option_list(Parser *parser, AstList *options)
{
    if (!parser_expect(parser, TOKEN_LEFT_PAREN))
        return false;
    if (parser_accept(parser, TOKEN_RIGHT_PAREN))
        return true;
    do {
        if (!parser_parse_option(parser, options))
            return false;
    } while (parser_accept(parser, TOKEN_COMMA));
    return parser_expect(parser, TOKEN_RIGHT_PAREN);
}

static int parser_tokenize(Parser *parser, const char *text, size_t length, int line, int column);

static char *upper_copy(Parser *parser, const char *text, size_t length)
{
    char *copy = parser_strndup(parser, text, length);
    if (copy)
        for (size_t i = 0; i < length; i++)
            if (copy[i] >= 'a' && copy[i] <= 'z')
                copy[i] = (char)(copy[i] - 'a' + 'A');
    return copy;
}

/* NAME [ '(' [options | names] ')' ] inside a hint comment. */
static AstHint *parser_parse_hint(Parser *parser)
{
    const Token *token = parser_current(parser);
    if (token->kind != TOKEN_IDENTIFIER && token->kind != TOKEN_KEYWORD) {
        parser_note(parser, "hint name");
        parser_fail_unexpected(parser);
        return NULL;
    }
    AstHint *hint = parser_alloc(parser, sizeof *hint);
    if (!hint)
        return NULL;
    hint->position = token_position(token);
    hint->name = token->kind == TOKEN_IDENTIFIER
                     ? upper_copy(parser, token->value, strlen(token->value))
                     : upper_copy(parser, token->text, token->length);
    if (!hint->name)
        return NULL;
    parser_advance(parser);
    if (!parser_accept(parser, TOKEN_LEFT_PAREN))
        return hint;
    if (parser_accept(parser, TOKEN_RIGHT_PAREN))
        return hint;
    if (parser_is(parser, TOKEN_STRING) && parser_peek(parser, 1)->kind == TOKEN_EQUAL) {
        do {
            if (!parser_parse_option(parser, &hint->options))
                return NULL;
        } while (parser_accept(parser, TOKEN_COMMA));
    } else {
        do {
            char *name = NULL;
            if (parser_is(parser, TOKEN_STRING)) {
                name = parser_text_value(parser, parser_current(parser));
                if (!name)
                    return NULL;
                parser_advance(parser);
            } else {
                AstList parts = {0};
                if (!parser_parse_name(parser, &parts, "table name"))
                    return NULL;
                name = parser_join_names(parser, &parts, parts.count);
            }
            if (!name || !ast_list_push(parser, &hint->identifiers, name))
                return NULL;
        } while (parser_accept(parser, TOKEN_COMMA));
    }
    if (!parser_expect(parser, TOKEN_RIGHT_PAREN))
        return NULL;
    return hint;
}

/* Parses the content of one hint comment token into hints (several hints, comma separated). */
static bool parser_parse_hint_comment(Parser *outer, const Token *comment, AstList *hints)
{
    Parser parser;
    memset(&parser, 0, sizeof parser);
    ParserCache cache;
    memset(&cache, 0, sizeof cache);
    parser.arena = outer->arena;
    parser.diag = outer->diag;
    parser.cache = &cache;
    parser.previous = SIZE_MAX;
    parser.expected_at = SIZE_MAX;
    if (parser_tokenize(&parser, comment->text, comment->length, comment->content_line,
                        comment->content_column) != JOINERY_OK) {
        outer->failed = true;
        outer->status = parser.status;
        return false;
    }
    do {
        AstHint *hint = parser_parse_hint(&parser);
        if (!hint || !ast_list_push(&parser, hints, hint))
            break;
    } while (parser_accept(&parser, TOKEN_COMMA));
    if (!parser.failed && !parser_is(&parser, TOKEN_END)) {
        parser_note(&parser, "end of hint");
        parser_fail_unexpected(&parser);
    }
    if (parser.failed) {
        outer->failed = true;
        outer->status = parser.status;
        return false;
    }
    return true;
}

/* Parses every hint comment among tokens (after_index, position). */
static bool parser_collect_hints(Parser *parser, size_t after_index, AstList *hints)
{
    for (size_t i = after_index + 1; i < parser->position; i++)
        if (parser->tokens[i].kind == TOKEN_HINT &&
            !parser_parse_hint_comment(parser, &parser->tokens[i], hints))
            return false;
    return true;
}

/* ------------------------------------------------------------ types */

static bool parser_parse_small_integer(Parser *parser, int32_t *value, const char *what)
{
    const Token *token = parser_current(parser);
    if (token->kind != TOKEN_INTEGER) {
        parser_note(parser, what);
        parser_fail_unexpected(parser);
        return false;
    }
    int64_t number = 0;
    for (size_t i = 0; i < token->length; i++) {
        number = number * 10 + (token->text[i] - '0');
        if (number > INT32_MAX)
            number = INT32_MAX;
    }
    *value = (int32_t)number;
    parser_advance(parser);
    return true;
}

/* Optional '(' precision ')' for time types, 0..9. */
static bool parser_parse_time_precision(Parser *parser, int32_t *precision)
{
    if (!parser_accept(parser, TOKEN_LEFT_PAREN))
        return true;
    const Token *token = parser_current(parser);
    if (!parser_parse_small_integer(parser, precision, "precision"))
        return false;
    if (*precision > 9) {
        parser_fail_at(parser, token->line, token->column, JOINERY_ERROR_PARSE,
                       "Syntax error: time precision must be between 0 and 9");
        return false;
    }
    return parser_expect(parser, TOKEN_RIGHT_PAREN);
}

/* Optional '(' length ')' for CHAR/VARCHAR, at least 1. */
static bool parser_parse_length(Parser *parser, int32_t *length)
{
    if (!parser_accept(parser, TOKEN_LEFT_PAREN))
        return true;
    const Token *token = parser_current(parser);
    if (!parser_parse_small_integer(parser, length, "length"))
        return false;
    if (*length < 1) {
        parser_fail_at(parser, token->line, token->column, JOINERY_ERROR_PARSE,
                       "Syntax error: length must be at least 1");
        return false;
    }
    return parser_expect(parser, TOKEN_RIGHT_PAREN);
}

/* [WITHOUT TIME ZONE | WITH LOCAL TIME ZONE]; sets *local for the latter. */
static bool parser_parse_time_zone(Parser *parser, bool allow_local, bool *local)
{
    *local = false;
    if (parser_is_keyword(parser, KEYWORD_WITHOUT)) {
        parser_advance(parser);
        return parser_expect_keyword(parser, KEYWORD_TIME) &&
               parser_expect_keyword(parser, KEYWORD_ZONE);
    }
    if (!parser_is_keyword(parser, KEYWORD_WITH))
        return true;
    const Token *with = parser_current(parser);
    const Token *next = parser_peek(parser, 1);
    if (token_is_keyword(next, KEYWORD_LOCAL) && allow_local) {
        parser_advance(parser);
        parser_advance(parser);
        *local = true;
        return parser_expect_keyword(parser, KEYWORD_TIME) &&
               parser_expect_keyword(parser, KEYWORD_ZONE);
    }
    if (token_is_keyword(next, KEYWORD_TIME)) {
        parser_fail_at(parser, with->line, with->column, JOINERY_ERROR_UNSUPPORTED,
                       "type WITH TIME ZONE is not supported yet");
        return false;
    }
    return true; /* a WITH that belongs to the enclosing statement */
}

static bool keyword_names_type(Keyword keyword)
{
    switch (keyword) {
    case KEYWORD_BOOLEAN:
    case KEYWORD_TINYINT:
    case KEYWORD_SMALLINT:
    case KEYWORD_INT:
    case KEYWORD_INTEGER:
    case KEYWORD_BIGINT:
    case KEYWORD_FLOAT:
    case KEYWORD_REAL:
    case KEYWORD_DOUBLE:
    case KEYWORD_DECIMAL:
    case KEYWORD_DEC:
    case KEYWORD_NUMERIC:
    case KEYWORD_CHAR:
    case KEYWORD_VARCHAR:
    case KEYWORD_STRING:
    case KEYWORD_DATE:
    case KEYWORD_TIME:
    case KEYWORD_TIMESTAMP:
    case KEYWORD_TIMESTAMP_LTZ:
    case KEYWORD_ARRAY:
    case KEYWORD_MAP:
    case KEYWORD_MULTISET:
    case KEYWORD_ROW:
    case KEYWORD_BYTES:
    case KEYWORD_BINARY:
    case KEYWORD_VARBINARY:
    case KEYWORD_RAW:
        return true;
    default:
        return false;
    }
}

static bool parser_parse_type(Parser *parser, DataType *type);

/* <K, V> after MAP; neither may be a MAP (not supported yet). */
static bool parser_parse_map_type(Parser *parser, DataType *type)
{
    if (!parser_expect(parser, TOKEN_LESS))
        return false;
    DataType parts[2];
    for (int i = 0; i < 2; i++) {
        if (i == 1 && !parser_expect(parser, TOKEN_COMMA))
            return false;
        const Token *element = parser_current(parser);
        if (!parser_enter(parser))
            return false;
        bool parsed = parser_parse_type(parser, &parts[i]);
        parser_leave(parser);
        if (!parsed)
            return false;
        if (parts[i].id == TYPE_MAP) {
            parser_fail_at(parser, element->line, element->column, JOINERY_ERROR_UNSUPPORTED,
                           "a MAP inside a MAP is not supported yet");
            return false;
        }
    }
    if (!parser_expect(parser, TOKEN_GREATER))
        return false;
    *type = type_make_map(parts[0], parts[1], true);
    return true;
}

/* One nested type, inside the depth guard. */
static bool parser_parse_nested_type(Parser *parser, DataType *type)
{
    if (!parser_enter(parser))
        return false;
    bool parsed = parser_parse_type(parser, type);
    parser_leave(parser);
    return parsed;
}

/* <T> after ARRAY or MULTISET. */
static bool parser_parse_collection_type(Parser *parser, Keyword keyword, DataType *type)
{
    DataType element;
    if (!parser_expect(parser, TOKEN_LESS) || !parser_parse_nested_type(parser, &element) ||
        !parser_expect(parser, TOKEN_GREATER))
        return false;
    bool made = keyword == KEYWORD_ARRAY ? type_make_array(element, true, type)
                                         : type_make_multiset(element, true, type);
    if (!made)
        parser_fail_no_memory(parser);
    return made;
}

/* <name type, ...> or (name type, ...) after ROW; field names must differ. */
static bool parser_parse_row_type(Parser *parser, DataType *type)
{
    const Token *open = parser_current(parser);
    bool angle = open->kind == TOKEN_LESS;
    if (!angle && !parser_expect(parser, TOKEN_LEFT_PAREN))
        return false;
    if (angle)
        parser_advance(parser);
    AstList names = {0}, types = {0};
    do {
        const Token *name_token = parser_current(parser);
        char *name = parser_expect_identifier(parser, "field name");
        if (!name)
            return false;
        for (size_t i = 0; i < names.count; i++)
            if (strcmp(names.items[i], name) == 0) {
                parser_fail_at(parser, name_token->line, name_token->column, JOINERY_ERROR_PARSE,
                               "Field names must be unique. Found duplicates: [%s]", name);
                return false;
            }
        DataType *field = parser_alloc(parser, sizeof *field);
        if (!field || !parser_parse_nested_type(parser, field) ||
            !ast_list_push(parser, &names, name) || !ast_list_push(parser, &types, field))
            return false;
    } while (parser_accept(parser, TOKEN_COMMA));
    if (!parser_expect(parser, angle ? TOKEN_GREATER : TOKEN_RIGHT_PAREN))
        return false;
    DataType *field_types = parser_alloc(parser, names.count * sizeof *field_types);
    if (!field_types)
        return false;
    for (size_t i = 0; i < types.count; i++)
        field_types[i] = *(DataType *)types.items[i];
    if (!type_make_row((const char *const *)names.items, field_types, (uint32_t)names.count, true,
                       type)) {
        parser_fail_no_memory(parser);
        return false;
    }
    return true;
}

/* A Flink type with optional NOT NULL / NULL into *type. */
static bool parser_parse_type(Parser *parser, DataType *type)
{
    const Token *token = parser_current(parser);
    if (token->kind == TOKEN_IDENTIFIER && !token->quoted) {
        parser_fail_at(parser, token->line, token->column, JOINERY_ERROR_PARSE,
                       "Syntax error: unknown type '%s'", token->value);
        return false;
    }
    if (token->kind != TOKEN_KEYWORD) {
        parser_note(parser, "type");
        parser_fail_unexpected(parser);
        return false;
    }
    Keyword keyword = token->keyword;
    if (!keyword_names_type(keyword)) {
        if (keyword_is_reserved(keyword)) {
            parser_note(parser, "type");
            parser_fail_unexpected(parser);
        } else {
            parser_fail_at(parser, token->line, token->column, JOINERY_ERROR_PARSE,
                           "Syntax error: unknown type '%.*s'", (int)token->length, token->text);
        }
        return false;
    }
    parser_advance(parser);
    bool local = false;
    int32_t precision = 0;
    switch (keyword) {
    case KEYWORD_BOOLEAN:
        *type = type_make(TYPE_BOOLEAN, true);
        break;
    case KEYWORD_TINYINT:
        *type = type_make(TYPE_TINYINT, true);
        break;
    case KEYWORD_SMALLINT:
        *type = type_make(TYPE_SMALLINT, true);
        break;
    case KEYWORD_INT:
    case KEYWORD_INTEGER:
        *type = type_make(TYPE_INT, true);
        break;
    case KEYWORD_BIGINT:
        *type = type_make(TYPE_BIGINT, true);
        break;
    case KEYWORD_FLOAT:
    case KEYWORD_REAL:
        *type = type_make(TYPE_FLOAT, true);
        break;
    case KEYWORD_DOUBLE:
        parser_accept_keyword(parser, KEYWORD_PRECISION);
        *type = type_make(TYPE_DOUBLE, true);
        break;
    case KEYWORD_DECIMAL:
    case KEYWORD_DEC:
    case KEYWORD_NUMERIC: {
        int32_t scale = 0;
        precision = 10;
        if (parser_accept(parser, TOKEN_LEFT_PAREN)) {
            const Token *precision_token = parser_current(parser);
            if (!parser_parse_small_integer(parser, &precision, "precision"))
                return false;
            const Token *scale_token = parser_current(parser);
            if (parser_accept(parser, TOKEN_COMMA)) {
                scale_token = parser_current(parser);
                if (!parser_parse_small_integer(parser, &scale, "scale"))
                    return false;
            }
            if (!parser_expect(parser, TOKEN_RIGHT_PAREN))
                return false;
            if (precision < 1 || precision > 38) {
                parser_fail_at(parser, precision_token->line, precision_token->column,
                               JOINERY_ERROR_PARSE,
                               "Syntax error: DECIMAL precision must be between 1 and 38");
                return false;
            }
            if (precision > TYPE_DECIMAL_MAX_PRECISION) {
                parser_fail_at(parser, precision_token->line, precision_token->column,
                               JOINERY_ERROR_UNSUPPORTED,
                               "DECIMAL precision above 18 is not supported yet");
                return false;
            }
            if (scale > precision) {
                parser_fail_at(parser, scale_token->line, scale_token->column, JOINERY_ERROR_PARSE,
                               "Syntax error: DECIMAL scale must not exceed its precision");
                return false;
            }
        }
        *type = type_make_decimal(precision, scale, true);
        break;
    }
    case KEYWORD_CHAR:
        precision = 1;
        if (!parser_parse_length(parser, &precision))
            return false;
        *type = type_make(TYPE_CHAR, true);
        type->precision = precision;
        break;
    case KEYWORD_VARCHAR:
        precision = 1; /* Flink: VARCHAR without a length is VARCHAR(1) */
        if (!parser_parse_length(parser, &precision))
            return false;
        *type = type_make_varchar(precision, true);
        break;
    case KEYWORD_STRING:
        *type = type_make_varchar(TYPE_STRING_LENGTH, true);
        break;
    case KEYWORD_DATE:
        *type = type_make(TYPE_DATE, true);
        break;
    case KEYWORD_TIME:
        if (!parser_parse_time_precision(parser, &precision) ||
            !parser_parse_time_zone(parser, false, &local))
            return false;
        *type = type_make_timestamp(TYPE_TIME, precision, true);
        break;
    case KEYWORD_TIMESTAMP:
        precision = 6;
        if (!parser_parse_time_precision(parser, &precision) ||
            !parser_parse_time_zone(parser, true, &local))
            return false;
        *type = type_make_timestamp(local ? TYPE_TIMESTAMP_LTZ : TYPE_TIMESTAMP, precision, true);
        break;
    case KEYWORD_TIMESTAMP_LTZ:
        precision = 6;
        if (!parser_parse_time_precision(parser, &precision))
            return false;
        *type = type_make_timestamp(TYPE_TIMESTAMP_LTZ, precision, true);
        break;
    case KEYWORD_BYTES:
        *type = type_make_binary(TYPE_VARBINARY, TYPE_STRING_LENGTH, true);
        break;
    case KEYWORD_BINARY:
    case KEYWORD_VARBINARY:
        precision = 1; /* Flink: BINARY and VARBINARY without a length have length 1 */
        if (!parser_parse_length(parser, &precision))
            return false;
        *type = type_make_binary(keyword == KEYWORD_BINARY ? TYPE_BINARY : TYPE_VARBINARY,
                                 precision, true);
        break;
    case KEYWORD_MAP:
        if (!parser_parse_map_type(parser, type))
            return false;
        break;
    case KEYWORD_ARRAY:
    case KEYWORD_MULTISET:
        if (!parser_parse_collection_type(parser, keyword, type))
            return false;
        break;
    case KEYWORD_ROW:
        if (!parser_parse_row_type(parser, type))
            return false;
        break;
    case KEYWORD_RAW:
        parser_fail_at(parser, token->line, token->column, JOINERY_ERROR_UNSUPPORTED,
                       "type %s is not supported yet", keyword_name(keyword));
        return false;
    default:
        return false; /* unreachable: keyword_names_type() said yes */
    }
    if (parser_is_keyword(parser, KEYWORD_NOT) &&
        token_is_keyword(parser_peek(parser, 1), KEYWORD_NULL)) {
        parser_advance(parser);
        parser_advance(parser);
        type->nullable = false;
    } else {
        parser_accept_keyword(parser, KEYWORD_NULL);
    }
    return true;
}

/* ------------------------------------------------------------ expressions */

static AstExpr *parser_parse_expression(Parser *parser);
static AstExpr *parser_parse_additive(Parser *parser);
static AstQuery *parser_parse_query(Parser *parser);

static AstExpr *parser_new_expr(Parser *parser, AstExprKind kind, const Token *first)
{
    AstExpr *expr = parser_alloc(parser, sizeof *expr);
    if (!expr)
        return NULL;
    expr->kind = kind;
    expr->position = token_position(first);
    expr->source_text = first->text;
    return expr;
}

/* A node starting where `start` starts (binary operators, predicates). */
static AstExpr *parser_new_expr_from(Parser *parser, AstExprKind kind, const AstExpr *start)
{
    AstExpr *expr = parser_alloc(parser, sizeof *expr);
    if (!expr)
        return NULL;
    expr->kind = kind;
    expr->position = start->position;
    expr->source_text = start->source_text;
    return expr;
}

/* Sets the source length to reach the end of the last consumed token. */
static AstExpr *parser_finish_expr(Parser *parser, AstExpr *expr)
{
    if (expr)
        expr->source_length = (size_t)(parser_previous_end(parser) - expr->source_text);
    return expr;
}

static bool integer_overflows(const char *digits, size_t length)
{
    while (length > 1 && *digits == '0') {
        digits++;
        length--;
    }
    static const char MAX_BIGINT[] = "9223372036854775807";
    size_t max_length = sizeof MAX_BIGINT - 1;
    if (length != max_length)
        return length > max_length;
    return memcmp(digits, MAX_BIGINT, max_length) > 0;
}

static bool parser_parse_interval_unit(Parser *parser, AstIntervalUnit *unit)
{
    const Token *token = parser_current(parser);
    if (token->kind == TOKEN_KEYWORD) {
        switch (token->keyword) {
        case KEYWORD_YEAR:
        case KEYWORD_YEARS:
            *unit = AST_INTERVAL_YEAR;
            break;
        case KEYWORD_MONTH:
        case KEYWORD_MONTHS:
            *unit = AST_INTERVAL_MONTH;
            break;
        case KEYWORD_DAY:
        case KEYWORD_DAYS:
            *unit = AST_INTERVAL_DAY;
            break;
        case KEYWORD_HOUR:
        case KEYWORD_HOURS:
            *unit = AST_INTERVAL_HOUR;
            break;
        case KEYWORD_MINUTE:
        case KEYWORD_MINUTES:
            *unit = AST_INTERVAL_MINUTE;
            break;
        case KEYWORD_SECOND:
        case KEYWORD_SECONDS:
            *unit = AST_INTERVAL_SECOND;
            break;
        default:
            goto fail;
        }
        parser_advance(parser);
        /* an optional leading-field precision, e.g. DAY(3) or SECOND(3): accepted, ignored */
        if (parser_accept(parser, TOKEN_LEFT_PAREN)) {
            int32_t ignored = 0;
            if (!parser_parse_small_integer(parser, &ignored, "precision"))
                return false;
            if (parser_accept(parser, TOKEN_COMMA) &&
                !parser_parse_small_integer(parser, &ignored, "precision"))
                return false;
            if (!parser_expect(parser, TOKEN_RIGHT_PAREN))
                return false;
        }
        return true;
    }
fail:
    parser_note(parser, "YEAR, MONTH, DAY, HOUR, MINUTE or SECOND");
    parser_fail_unexpected(parser);
    return false;
}

/* INTERVAL [-|+] 'text' unit [TO unit] */
static AstExpr *parser_parse_interval(Parser *parser)
{
    AstExpr *expr = parser_new_expr(parser, AST_EXPR_INTERVAL, parser_current(parser));
    if (!expr)
        return NULL;
    parser_advance(parser);
    if (parser_accept(parser, TOKEN_MINUS))
        expr->interval.negative = true;
    else
        parser_accept(parser, TOKEN_PLUS);
    expr->interval.text = parser_expect_string(parser, "interval string");
    if (!expr->interval.text || !parser_parse_interval_unit(parser, &expr->interval.unit))
        return NULL;
    expr->interval.to_unit = expr->interval.unit;
    if (parser_accept_keyword(parser, KEYWORD_TO) &&
        !parser_parse_interval_unit(parser, &expr->interval.to_unit))
        return NULL;
    return parser_finish_expr(parser, expr);
}

/* CAST ( expr AS type ) / TRY_CAST ( ... ) */
static AstExpr *parser_parse_cast(Parser *parser, bool try_cast)
{
    AstExpr *expr = parser_new_expr(parser, AST_EXPR_CAST, parser_current(parser));
    if (!expr)
        return NULL;
    expr->cast.try_cast = try_cast;
    parser_advance(parser);
    if (!parser_expect(parser, TOKEN_LEFT_PAREN))
        return NULL;
    expr->cast.operand = parser_parse_expression(parser);
    if (!expr->cast.operand || !parser_expect_keyword(parser, KEYWORD_AS) ||
        !parser_parse_type(parser, &expr->cast.cast_type) ||
        !parser_expect(parser, TOKEN_RIGHT_PAREN))
        return NULL;
    return parser_finish_expr(parser, expr);
}

/* CASE [operand] WHEN c THEN r ... [ELSE e] END */
static AstExpr *parser_parse_case(Parser *parser)
{
    AstExpr *expr = parser_new_expr(parser, AST_EXPR_CASE, parser_current(parser));
    if (!expr)
        return NULL;
    parser_advance(parser);
    if (!parser_is_keyword(parser, KEYWORD_WHEN)) {
        parser_note(parser, "WHEN");
        expr->case_expr.operand = parser_parse_expression(parser);
        if (!expr->case_expr.operand)
            return NULL;
    }
    if (!parser_expect_keyword(parser, KEYWORD_WHEN))
        return NULL;
    do {
        AstExpr *condition = parser_parse_expression(parser);
        if (!condition || !parser_expect_keyword(parser, KEYWORD_THEN))
            return NULL;
        AstExpr *result = parser_parse_expression(parser);
        if (!result || !ast_list_push(parser, &expr->case_expr.conditions, condition) ||
            !ast_list_push(parser, &expr->case_expr.results, result))
            return NULL;
    } while (parser_accept_keyword(parser, KEYWORD_WHEN));
    if (parser_accept_keyword(parser, KEYWORD_ELSE)) {
        expr->case_expr.else_result = parser_parse_expression(parser);
        if (!expr->case_expr.else_result)
            return NULL;
    }
    if (!parser_expect_keyword(parser, KEYWORD_END))
        return NULL;
    return parser_finish_expr(parser, expr);
}

/* The current token, a time unit word (HOUR, day, ...), as the string literal 'HOUR' (upper
   case); the token is consumed. NULL when memory ran out. */
static AstExpr *parser_parse_unit_literal(Parser *parser)
{
    const Token *unit = parser_current(parser);
    AstExpr *literal = parser_new_expr(parser, AST_EXPR_LITERAL, unit);
    if (!literal)
        return NULL;
    literal->literal.kind = AST_LITERAL_STRING;
    literal->literal.text = arena_strndup(parser->arena, unit->text, unit->length);
    if (!literal->literal.text)
        return NULL;
    literal->literal.text_length = unit->length;
    for (char *c = literal->literal.text; *c; c++)
        *c = (char)toupper((unsigned char)*c);
    parser_advance(parser);
    return parser_finish_expr(parser, literal);
}

/* name ( [DISTINCT|ALL] [* | expr {, expr}] ); the current token is the name. */
/*
 * The SQL-standard argument forms of EXTRACT(unit FROM x), TIMESTAMPDIFF(unit, a, b),
 * TIMESTAMPADD(unit, n, t), POSITION(a IN b), SUBSTRING(s FROM a [FOR b]) and
 * FLOOR / CEIL (t TO unit), read as EXTRACT('UNIT', x), TIMESTAMPDIFF('UNIT', a, b),
 * TIMESTAMPADD('UNIT', n, t), POSITION(a, b), SUBSTRING(s, a [, b]) and FLOOR(t, 'UNIT')
 * (the '(' is consumed). Returns
 * false when the call has the ordinary form (nothing consumed); true when it
 * read a special form (or failed in it: parser->failed).
 */
static bool parser_parse_special_arguments(Parser *parser, AstExpr *call)
{
    const char *name = call->function.name;
    bool unit_first =
        (strcasecmp(name, "TIMESTAMPDIFF") == 0 || strcasecmp(name, "TIMESTAMPADD") == 0) &&
        (parser_current(parser)->kind == TOKEN_KEYWORD ||
         parser_current(parser)->kind == TOKEN_IDENTIFIER) &&
        parser_peek(parser, 1)->kind == TOKEN_COMMA;
    if (unit_first ||
        (strcasecmp(name, "EXTRACT") == 0 && parser_peek(parser, 1)->kind == TOKEN_KEYWORD &&
         parser_peek(parser, 1)->keyword == KEYWORD_FROM)) {
        AstExpr *literal = parser_parse_unit_literal(parser);
        parser_advance(parser); /* FROM, or the comma after TIMESTAMPDIFF's unit */
        if (!literal || !ast_list_push(parser, &call->function.args, literal))
            return true;
        do {
            AstExpr *operand = parser_parse_expression(parser);
            if (!operand || !ast_list_push(parser, &call->function.args, operand))
                return true;
        } while (unit_first && parser_accept(parser, TOKEN_COMMA));
        parser_expect(parser, TOKEN_RIGHT_PAREN);
        return true;
    }
    if (strcasecmp(name, "POSITION") == 0) {
        /* POSITION(a IN b): a is read above IN's precedence; POSITION(a, b) is ordinary */
        Parser saved = *parser;
        Diag saved_diag = *parser->diag;
        size_t needle_start = parser->position;
        AstExpr *needle = parser_parse_additive(parser);
        parser_record(parser, PARSER_MEMO_ADDITIVE, needle_start, needle);
        if (needle && parser_accept_keyword(parser, KEYWORD_IN)) {
            AstExpr *haystack = parser_parse_expression(parser);
            if (haystack && ast_list_push(parser, &call->function.args, needle) &&
                ast_list_push(parser, &call->function.args, haystack))
                parser_expect(parser, TOKEN_RIGHT_PAREN);
            return true;
        }
        *parser = saved;
        *parser->diag = saved_diag;
    }
    if (strcasecmp(name, "FLOOR") == 0 || strcasecmp(name, "CEIL") == 0 ||
        strcasecmp(name, "CEILING") == 0) {
        /* FLOOR(t TO unit) is FLOOR(t, 'UNIT'); TO ends an expression */
        Parser saved = *parser;
        Diag saved_diag = *parser->diag;
        size_t operand_start = parser->position;
        AstExpr *operand = parser_parse_expression(parser);
        parser_record(parser, PARSER_MEMO_EXPRESSION, operand_start, operand);
        if (operand && parser_accept_keyword(parser, KEYWORD_TO)) {
            const Token *unit = parser_current(parser);
            if (unit->kind != TOKEN_KEYWORD && unit->kind != TOKEN_IDENTIFIER) {
                parser_expect(parser, TOKEN_IDENTIFIER);
                return true;
            }
            AstExpr *literal = parser_parse_unit_literal(parser);
            if (literal && ast_list_push(parser, &call->function.args, operand) &&
                ast_list_push(parser, &call->function.args, literal))
                parser_expect(parser, TOKEN_RIGHT_PAREN);
            return true;
        }
        *parser = saved;
        *parser->diag = saved_diag;
    }
    if (strcasecmp(name, "SUBSTRING") == 0) {
        /* SUBSTRING(s FROM a [FOR b]) is SUBSTRING(s, a [, b]); FROM ends an expression */
        Parser saved = *parser;
        Diag saved_diag = *parser->diag;
        size_t text_start = parser->position;
        AstExpr *text = parser_parse_expression(parser);
        parser_record(parser, PARSER_MEMO_EXPRESSION, text_start, text);
        if (text && parser_accept_keyword(parser, KEYWORD_FROM)) {
            AstExpr *start = parser_parse_expression(parser);
            if (!start || !ast_list_push(parser, &call->function.args, text) ||
                !ast_list_push(parser, &call->function.args, start))
                return true;
            if (parser_accept_keyword(parser, KEYWORD_FOR)) {
                AstExpr *count = parser_parse_expression(parser);
                if (!count || !ast_list_push(parser, &call->function.args, count))
                    return true;
            }
            parser_expect(parser, TOKEN_RIGHT_PAREN);
            return true;
        }
        *parser = saved;
        *parser->diag = saved_diag;
    }
    return false;
}

/*
 * Records the name (NULL: positional) of the argument about to be parsed; the
 * first named one fills NULL for the positional ones before it.
 */
static bool parser_push_arg_name(Parser *parser, AstExpr *call, char *name)
{
    while (call->function.arg_names.count < call->function.args.count)
        if (!ast_list_push(parser, &call->function.arg_names, NULL))
            return false;
    return ast_list_push(parser, &call->function.arg_names, name);
}
static bool parser_parse_over(Parser *parser, AstExpr *expr);

static AstExpr *parser_parse_function(Parser *parser, char *name)
{
    AstExpr *expr = parser_new_expr(parser, AST_EXPR_FUNCTION, parser_current(parser));
    if (!expr)
        return NULL;
    expr->function.name = name;
    parser_advance(parser); /* name */
    parser_advance(parser); /* ( */
    if (parser_parse_special_arguments(parser, expr)) {
        if (parser->failed)
            return NULL;
    } else if (!parser_accept(parser, TOKEN_RIGHT_PAREN)) {
        if (parser_accept_keyword(parser, KEYWORD_DISTINCT))
            expr->function.distinct = true;
        else
            parser_accept_keyword(parser, KEYWORD_ALL);
        if (parser_is(parser, TOKEN_STAR) && parser_peek(parser, 1)->kind == TOKEN_RIGHT_PAREN) {
            AstExpr *star = parser_new_expr(parser, AST_EXPR_STAR, parser_current(parser));
            if (!star)
                return NULL;
            parser_advance(parser);
            if (!ast_list_push(parser, &expr->function.args, parser_finish_expr(parser, star)))
                return NULL;
        } else {
            do {
                /* name => value: a named argument (the window table functions') */
                char *arg_name = NULL;
                if (token_is_identifier(parser_current(parser)) &&
                    parser_peek(parser, 1)->kind == TOKEN_ARROW) {
                    arg_name = parser_identifier_text(parser, parser_current(parser));
                    if (!arg_name)
                        return NULL;
                    parser_advance(parser);
                    parser_advance(parser);
                }
                if ((arg_name || expr->function.arg_names.count) &&
                    !parser_push_arg_name(parser, expr, arg_name))
                    return NULL;
                AstExpr *arg = parser_parse_expression(parser);
                if (!arg || !ast_list_push(parser, &expr->function.args, arg))
                    return NULL;
            } while (parser_accept(parser, TOKEN_COMMA));
        }
        if (!parser_expect(parser, TOKEN_RIGHT_PAREN))
            return NULL;
    }
    const Token *next = parser_current(parser);
    if (next->kind == TOKEN_IDENTIFIER && !next->quoted && strlen(next->value) == 6 &&
        strncasecmp(next->value, "FILTER", 6) == 0 &&
        parser_peek(parser, 1)->kind == TOKEN_LEFT_PAREN) {
        /* agg(...) FILTER (WHERE condition): the rows the aggregate reads (bind_expr.c) */
        parser_advance(parser); /* FILTER */
        parser_advance(parser); /* ( */
        if (!parser_expect_keyword(parser, KEYWORD_WHERE))
            return NULL;
        expr->function.filter = parser_parse_expression(parser);
        if (!expr->function.filter || !parser_expect(parser, TOKEN_RIGHT_PAREN))
            return NULL;
        next = parser_current(parser);
    }
    if (next->kind == TOKEN_IDENTIFIER && !next->quoted && strlen(next->value) == 4 &&
        strncasecmp(next->value, "OVER", 4) == 0 &&
        (parser_peek(parser, 1)->kind == TOKEN_LEFT_PAREN ||
         token_is_identifier(parser_peek(parser, 1)))) {
        /* f(...) OVER (...) / OVER name: a rank (bind.c) or an OVER aggregate (bind_over.c) */
        if (!parser_parse_over(parser, expr))
            return NULL;
    }
    return parser_finish_expr(parser, expr);
}

/* A zero-argument function written without parentheses (CURRENT_TIMESTAMP). */
static AstExpr *parser_parse_niladic(Parser *parser)
{
    const Token *token = parser_current(parser);
    AstExpr *expr = parser_new_expr(parser, AST_EXPR_FUNCTION, token);
    if (!expr)
        return NULL;
    expr->function.name = parser_strndup(parser, token->text, token->length);
    if (!expr->function.name)
        return NULL;
    parser_advance(parser);
    if (parser_is(parser, TOKEN_LEFT_PAREN) && parser_peek(parser, 1)->kind == TOKEN_RIGHT_PAREN) {
        parser_advance(parser);
        parser_advance(parser);
    }
    return parser_finish_expr(parser, expr);
}

static AstExpr *parser_parse_literal(Parser *parser, AstLiteralKind kind)
{
    const Token *token = parser_current(parser);
    AstExpr *expr = parser_new_expr(parser, AST_EXPR_LITERAL, token);
    if (!expr)
        return NULL;
    expr->literal.kind = kind;
    switch (kind) {
    case AST_LITERAL_NULL:
        break;
    case AST_LITERAL_BOOLEAN:
        expr->literal.boolean_value = token_is_keyword(token, KEYWORD_TRUE);
        break;
    case AST_LITERAL_STRING:
    case AST_LITERAL_BINARY:
        expr->literal.text = token->value;
        expr->literal.text_length = token->value_length;
        break;
    case AST_LITERAL_DATE:
    case AST_LITERAL_TIME:
    case AST_LITERAL_TIMESTAMP:
        parser_advance(parser); /* the keyword */
        expr->literal.text = parser_current(parser)->value;
        break;
    case AST_LITERAL_INTEGER:
    case AST_LITERAL_DECIMAL:
    case AST_LITERAL_DOUBLE:
        expr->literal.text = parser_strndup(parser, token->text, token->length);
        if (!expr->literal.text)
            return NULL;
        if (kind == AST_LITERAL_INTEGER)
            expr->literal.integer_overflow = integer_overflows(token->text, token->length);
        break;
    }
    parser_advance(parser);
    return parser_finish_expr(parser, expr);
}

/* TABLE name as a function argument. */
static AstExpr *parser_parse_table_argument(Parser *parser)
{
    AstExpr *expr = parser_new_expr(parser, AST_EXPR_TABLE_ARGUMENT, parser_current(parser));
    if (!expr)
        return NULL;
    parser_advance(parser);
    if (!parser_parse_name(parser, &expr->table_argument.name_parts, "table name"))
        return NULL;
    /* PARTITION BY k or PARTITION BY (k1, k2): SESSION's partition keys */
    const Token *word = parser_current(parser);
    if (word->kind == TOKEN_IDENTIFIER && !word->quoted && word->length == 9 &&
        strncasecmp(word->text, "PARTITION", 9) == 0 &&
        token_is_keyword(parser_peek(parser, 1), KEYWORD_BY)) {
        parser_advance(parser);
        parser_advance(parser);
        bool parenthesized = parser_accept(parser, TOKEN_LEFT_PAREN);
        do {
            char *key = parser_expect_identifier(parser, "partition key");
            if (!key || !ast_list_push(parser, &expr->table_argument.partition_by, key))
                return NULL;
        } while (parenthesized && parser_accept(parser, TOKEN_COMMA));
        if (parenthesized && !parser_expect(parser, TOKEN_RIGHT_PAREN))
            return NULL;
    }
    return parser_finish_expr(parser, expr);
}

/* name [. name]* [. *] or name ( args ) */
static AstExpr *parser_parse_name_expression(Parser *parser)
{
    const Token *first = parser_current(parser);
    if (parser_peek(parser, 1)->kind == TOKEN_LEFT_PAREN) {
        char *name = parser_identifier_text(parser, first);
        return name ? parser_parse_function(parser, name) : NULL;
    }
    AstList parts = {0};
    const Token *last = first;
    for (;;) {
        last = parser_current(parser);
        char *part = parser_expect_identifier(parser, "column name");
        if (!part || !ast_list_push(parser, &parts, part))
            return NULL;
        if (!parser_is(parser, TOKEN_DOT))
            break;
        parser_advance(parser);
        if (parser_is(parser, TOKEN_STAR)) {
            AstExpr *star = parser_new_expr(parser, AST_EXPR_STAR, first);
            if (!star)
                return NULL;
            parser_advance(parser);
            star->star.qualifier = parser_join_names(parser, &parts, parts.count);
            return star->star.qualifier ? parser_finish_expr(parser, star) : NULL;
        }
        parser_note(parser, "'*'");
    }
    AstExpr *expr = parser_new_expr(parser, AST_EXPR_COLUMN, first);
    if (!expr)
        return NULL;
    expr->column.name = parts.items[parts.count - 1];
    expr->column.name_position = token_position(last);
    if (parts.count > 1) {
        expr->column.qualifier = parser_join_names(parser, &parts, parts.count - 1);
        if (!expr->column.qualifier)
            return NULL;
    }
    return parser_finish_expr(parser, expr);
}

/* MAP[k1, v1, k2, v2, ...] and ARRAY[e1, e2, ...]: a call of the function MAP (the keys and
   values in turn) or ARRAY. */
static AstExpr *parser_parse_map_constructor(Parser *parser)
{
    const Token *token = parser_current(parser);
    AstExpr *expr = parser_new_expr(parser, AST_EXPR_FUNCTION, token);
    if (!expr)
        return NULL;
    bool array = token_is_keyword(token, KEYWORD_ARRAY);
    expr->function.name = parser_strndup(parser, array ? "ARRAY" : "MAP", array ? 5 : 3);
    if (!expr->function.name)
        return NULL;
    parser_advance(parser); /* MAP or ARRAY */
    parser_advance(parser); /* [ */
    do {
        AstExpr *arg = parser_parse_expression(parser);
        if (!arg || !ast_list_push(parser, &expr->function.args, arg))
            return NULL;
    } while (parser_accept(parser, TOKEN_COMMA));
    if (!parser_expect(parser, TOKEN_RIGHT_BRACKET))
        return NULL;
    return parser_finish_expr(parser, expr);
}

static AstExpr *parser_parse_primary_base(Parser *parser);

/* expr.name after an item access or a parenthesised expression: the function "$DOT" of the
   expression and the field name (a string literal), which the binder resolves. */
static AstExpr *parser_parse_field_access(Parser *parser, AstExpr *expr)
{
    AstExpr *access = parser_new_expr_from(parser, AST_EXPR_FUNCTION, expr);
    if (!access)
        return NULL;
    access->function.name = parser_strndup(parser, "$DOT", 4);
    if (!access->function.name || !ast_list_push(parser, &access->function.args, expr))
        return NULL;
    parser_advance(parser); /* . */
    const Token *name_token = parser_current(parser);
    AstExpr *name = parser_new_expr(parser, AST_EXPR_LITERAL, name_token);
    if (!name)
        return NULL;
    name->literal.kind = AST_LITERAL_STRING;
    name->literal.text = parser_expect_identifier(parser, "field name");
    if (!name->literal.text)
        return NULL;
    name->literal.text_length = strlen(name->literal.text);
    if (!ast_list_push(parser, &access->function.args, parser_finish_expr(parser, name)))
        return NULL;
    return parser_finish_expr(parser, access);
}

/* A primary expression followed by any number of item accesses, m['key'] or a[1], and of
   field accesses after them, a[1].f. */
static AstExpr *parser_parse_primary(Parser *parser)
{
    const Token *first = parser_current(parser);
    AstExpr *expr = parser_parse_primary_base(parser);
    bool accessed = first->kind == TOKEN_LEFT_PAREN || (expr && expr->kind == AST_EXPR_FUNCTION);
    for (;;) {
        if (expr && accessed && parser_is(parser, TOKEN_DOT) &&
            token_is_identifier(parser_peek(parser, 1))) {
            expr = parser_parse_field_access(parser, expr);
            continue;
        }
        if (!expr || !parser_is(parser, TOKEN_LEFT_BRACKET))
            break;
        accessed = true;
        AstExpr *item = parser_new_expr_from(parser, AST_EXPR_FUNCTION, expr);
        if (!item)
            return NULL;
        item->function.name = parser_strndup(parser, "ITEM", 4);
        if (!item->function.name || !ast_list_push(parser, &item->function.args, expr))
            return NULL;
        parser_advance(parser); /* [ */
        AstExpr *key = parser_parse_expression(parser);
        if (!key || !ast_list_push(parser, &item->function.args, key) ||
            !parser_expect(parser, TOKEN_RIGHT_BRACKET))
            return NULL;
        expr = parser_finish_expr(parser, item);
    }
    return expr;
}

static AstExpr *parser_parse_primary_base(Parser *parser)
{
    const Token *token = parser_current(parser);
    switch (token->kind) {
    case TOKEN_INTEGER:
        return parser_parse_literal(parser, AST_LITERAL_INTEGER);
    case TOKEN_DECIMAL:
        return parser_parse_literal(parser, AST_LITERAL_DECIMAL);
    case TOKEN_DOUBLE:
        return parser_parse_literal(parser, AST_LITERAL_DOUBLE);
    case TOKEN_STRING:
        return parser_parse_literal(parser, AST_LITERAL_STRING);
    case TOKEN_BINARY_STRING:
        return parser_parse_literal(parser, AST_LITERAL_BINARY);
    case TOKEN_LEFT_PAREN: {
        if (parser_query_follows(parser, 1)) {
            AstExpr *expr = parser_new_expr(parser, AST_EXPR_SUBQUERY, token);
            if (!expr)
                return NULL;
            parser_advance(parser);
            expr->subquery.query = parser_parse_query(parser);
            if (!expr->subquery.query || !parser_expect(parser, TOKEN_RIGHT_PAREN))
                return NULL;
            return parser_finish_expr(parser, expr);
        }
        parser_advance(parser);
        AstExpr *inner = parser_parse_expression(parser);
        if (inner && parser_is(parser, TOKEN_COMMA)) {
            /* (a, b, ...): the row constructor ROW(a, b, ...) */
            AstExpr *row = parser_new_expr(parser, AST_EXPR_FUNCTION, token);
            if (!row || !(row->function.name = parser_strndup(parser, "ROW", 3)) ||
                !ast_list_push(parser, &row->function.args, inner))
                return NULL;
            while (parser_accept(parser, TOKEN_COMMA)) {
                AstExpr *field = parser_parse_expression(parser);
                if (!field || !ast_list_push(parser, &row->function.args, field))
                    return NULL;
            }
            if (!parser_expect(parser, TOKEN_RIGHT_PAREN))
                return NULL;
            return parser_finish_expr(parser, row);
        }
        if (!inner || !parser_expect(parser, TOKEN_RIGHT_PAREN))
            return NULL;
        /* the parenthesised text is the expression's text, so that enclosing
           operators starting here cover the parentheses too */
        inner->position = token_position(token);
        inner->source_text = token->text;
        return parser_finish_expr(parser, inner);
    }
    case TOKEN_KEYWORD:
        switch (token->keyword) {
        case KEYWORD_NULL:
            return parser_parse_literal(parser, AST_LITERAL_NULL);
        case KEYWORD_TRUE:
        case KEYWORD_FALSE:
            return parser_parse_literal(parser, AST_LITERAL_BOOLEAN);
        case KEYWORD_DATE:
        case KEYWORD_TIME:
        case KEYWORD_TIMESTAMP:
            if (parser_peek(parser, 1)->kind == TOKEN_STRING)
                return parser_parse_literal(
                    parser, token->keyword == KEYWORD_DATE   ? AST_LITERAL_DATE
                            : token->keyword == KEYWORD_TIME ? AST_LITERAL_TIME
                                                             : AST_LITERAL_TIMESTAMP);
            break;
        case KEYWORD_INTERVAL:
            return parser_parse_interval(parser);
        case KEYWORD_CAST:
            return parser_parse_cast(parser, false);
        case KEYWORD_TRY_CAST:
            if (parser_peek(parser, 1)->kind == TOKEN_LEFT_PAREN)
                return parser_parse_cast(parser, true);
            break;
        case KEYWORD_CASE:
            return parser_parse_case(parser);
        case KEYWORD_MAP:
        case KEYWORD_ARRAY:
            if (parser_peek(parser, 1)->kind == TOKEN_LEFT_BRACKET)
                return parser_parse_map_constructor(parser);
            break;
        case KEYWORD_ROW:
            if (parser_peek(parser, 1)->kind == TOKEN_LEFT_PAREN) {
                char *name = parser_strndup(parser, "ROW", 3);
                return name ? parser_parse_function(parser, name) : NULL;
            }
            break;
        case KEYWORD_CURRENT_TIMESTAMP:
        case KEYWORD_CURRENT_DATE:
        case KEYWORD_CURRENT_TIME:
        case KEYWORD_LOCALTIMESTAMP:
            return parser_parse_niladic(parser);
        case KEYWORD_CURRENT_ROW_TIMESTAMP:
            if (parser_peek(parser, 1)->kind != TOKEN_DOT)
                return parser_parse_niladic(parser);
            break;
        case KEYWORD_TABLE:
            return parser_parse_table_argument(parser);
        case KEYWORD_LEFT:
        case KEYWORD_RIGHT:
        case KEYWORD_EXISTS:
            if (parser_peek(parser, 1)->kind == TOKEN_LEFT_PAREN &&
                token->keyword != KEYWORD_EXISTS) {
                char *name = parser_strndup(parser, token->text, token->length);
                return name ? parser_parse_function(parser, name) : NULL;
            }
            if (token->keyword == KEYWORD_EXISTS &&
                parser_peek(parser, 1)->kind == TOKEN_LEFT_PAREN &&
                parser_query_follows(parser, 2)) {
                /* EXISTS ( query ): a subquery expression with the exists flag */
                AstExpr *expr = parser_new_expr(parser, AST_EXPR_SUBQUERY, token);
                if (!expr)
                    return NULL;
                parser_advance(parser); /* EXISTS */
                parser_advance(parser); /* ( */
                expr->subquery.exists = true;
                expr->subquery.query = parser_parse_query(parser);
                if (!expr->subquery.query || !parser_expect(parser, TOKEN_RIGHT_PAREN))
                    return NULL;
                return parser_finish_expr(parser, expr);
            }
            break;
        default:
            break;
        }
        break;
    default:
        break;
    }
    if (token_is_identifier(token))
        return parser_parse_name_expression(parser);
    parser_note(parser, "expression");
    parser_fail_unexpected(parser);
    return NULL;
}

static AstExpr *parser_parse_unary(Parser *parser)
{
    const Token *token = parser_current(parser);
    if (token->kind != TOKEN_MINUS && token->kind != TOKEN_PLUS)
        return parser_parse_primary(parser);
    if (!parser_enter(parser))
        return NULL;
    AstExpr *expr = parser_new_expr(parser, AST_EXPR_UNARY, token);
    if (expr) {
        expr->unary.op = token->kind == TOKEN_MINUS ? AST_OP_NEGATE : AST_OP_PLUS;
        parser_advance(parser);
        expr->unary.operand = parser_parse_unary(parser);
        if (!expr->unary.operand)
            expr = NULL;
    }
    parser_leave(parser);
    return parser_finish_expr(parser, expr);
}

static AstExpr *parser_make_binary(Parser *parser, AstOperator op, AstExpr *left, AstExpr *right)
{
    AstExpr *expr = parser_new_expr_from(parser, AST_EXPR_BINARY, left);
    if (!expr)
        return NULL;
    expr->binary.op = op;
    expr->binary.left = left;
    expr->binary.right = right;
    return parser_finish_expr(parser, expr);
}

static AstExpr *parser_parse_multiplicative(Parser *parser)
{
    AstExpr *left = parser_parse_unary(parser);
    while (left) {
        AstOperator op;
        switch (parser_current(parser)->kind) {
        case TOKEN_STAR:
            op = AST_OP_MULTIPLY;
            break;
        case TOKEN_SLASH:
            op = AST_OP_DIVIDE;
            break;
        case TOKEN_PERCENT:
            op = AST_OP_MODULO;
            break;
        default:
            return left;
        }
        parser_advance(parser);
        AstExpr *right = parser_parse_unary(parser);
        left = right ? parser_make_binary(parser, op, left, right) : NULL;
    }
    return NULL;
}

static AstExpr *parser_parse_additive(Parser *parser)
{
    void *replayed;
    if (parser_replay(parser, PARSER_MEMO_ADDITIVE, &replayed))
        return replayed;
    AstExpr *left = parser_parse_multiplicative(parser);
    while (left) {
        AstOperator op;
        switch (parser_current(parser)->kind) {
        case TOKEN_PLUS:
            op = AST_OP_PLUS;
            break;
        case TOKEN_MINUS:
            op = AST_OP_MINUS;
            break;
        case TOKEN_CONCAT:
            op = AST_OP_CONCAT;
            break;
        default:
            return left;
        }
        parser_advance(parser);
        AstExpr *right = parser_parse_multiplicative(parser);
        left = right ? parser_make_binary(parser, op, left, right) : NULL;
    }
    return NULL;
}

static bool token_comparison(const Token *token, AstOperator *op)
{
    switch (token->kind) {
    case TOKEN_EQUAL:
        *op = AST_OP_EQUAL;
        return true;
    case TOKEN_NOT_EQUAL:
        *op = AST_OP_NOT_EQUAL;
        return true;
    case TOKEN_LESS:
        *op = AST_OP_LESS;
        return true;
    case TOKEN_LESS_EQUAL:
        *op = AST_OP_LESS_EQUAL;
        return true;
    case TOKEN_GREATER:
        *op = AST_OP_GREATER;
        return true;
    case TOKEN_GREATER_EQUAL:
        *op = AST_OP_GREATER_EQUAL;
        return true;
    default:
        return false;
    }
}

/* operand IS [NOT] NULL | TRUE | FALSE | UNKNOWN | DISTINCT FROM x; IS is current. */
static AstExpr *parser_parse_is(Parser *parser, AstExpr *left)
{
    parser_advance(parser);
    bool negated = parser_accept_keyword(parser, KEYWORD_NOT);
    AstExpr *expr = NULL;
    if (parser_accept_keyword(parser, KEYWORD_NULL)) {
        expr = parser_new_expr_from(parser, AST_EXPR_IS_NULL, left);
        if (expr) {
            expr->is_null.operand = left;
            expr->is_null.negated = negated;
        }
    } else if (parser_is_keyword(parser, KEYWORD_TRUE) ||
               parser_is_keyword(parser, KEYWORD_FALSE) ||
               parser_is_keyword(parser, KEYWORD_UNKNOWN)) {
        Keyword keyword = parser_current(parser)->keyword;
        parser_advance(parser);
        expr = parser_new_expr_from(parser, AST_EXPR_IS_BOOLEAN, left);
        if (expr) {
            expr->is_boolean.operand = left;
            expr->is_boolean.negated = negated;
            expr->is_boolean.test = keyword == KEYWORD_TRUE    ? AST_IS_TRUE
                                    : keyword == KEYWORD_FALSE ? AST_IS_FALSE
                                                               : AST_IS_UNKNOWN;
        }
    } else if (parser_accept_keyword(parser, KEYWORD_DISTINCT)) {
        if (!parser_expect_keyword(parser, KEYWORD_FROM))
            return NULL;
        AstExpr *right = parser_parse_additive(parser);
        if (!right)
            return NULL;
        expr = parser_new_expr_from(parser, AST_EXPR_IS_DISTINCT, left);
        if (expr) {
            expr->is_distinct.left = left;
            expr->is_distinct.right = right;
            expr->is_distinct.negated = negated;
        }
    } else {
        parser_note(parser, "TRUE");
        parser_note(parser, "FALSE");
        parser_note(parser, "UNKNOWN");
        parser_fail_unexpected(parser);
        return NULL;
    }
    return parser_finish_expr(parser, expr);
}

/* operand [NOT] BETWEEN | IN | LIKE ...; the keyword is current. */
static AstExpr *parser_parse_range_predicate(Parser *parser, AstExpr *left, bool negated)
{
    Keyword keyword = parser_current(parser)->keyword;
    parser_advance(parser);
    AstExpr *expr = NULL;
    if (keyword == KEYWORD_BETWEEN) {
        expr = parser_new_expr_from(parser, AST_EXPR_BETWEEN, left);
        if (!expr)
            return NULL;
        expr->between.operand = left;
        expr->between.negated = negated;
        const Token *token = parser_current(parser);
        if (parser_accept_keyword(parser, KEYWORD_SYMMETRIC))
            expr->between.symmetric = true;
        else if (token->kind == TOKEN_IDENTIFIER && !token->quoted &&
                 strcasecmp(token->value, "ASYMMETRIC") == 0)
            parser_advance(parser);
        expr->between.low = parser_parse_additive(parser);
        if (!expr->between.low || !parser_expect_keyword(parser, KEYWORD_AND))
            return NULL;
        expr->between.high = parser_parse_additive(parser);
        if (!expr->between.high)
            return NULL;
    } else if (keyword == KEYWORD_IN) {
        expr = parser_new_expr_from(parser, AST_EXPR_IN_LIST, left);
        if (!expr)
            return NULL;
        expr->in_list.operand = left;
        expr->in_list.negated = negated;
        if (parser_is(parser, TOKEN_LEFT_PAREN) && parser_query_follows(parser, 1)) {
            AstExpr *subquery = parser_parse_primary(parser);
            if (!subquery || !ast_list_push(parser, &expr->in_list.values, subquery))
                return NULL;
        } else {
            if (!parser_expect(parser, TOKEN_LEFT_PAREN))
                return NULL;
            do {
                AstExpr *value = parser_parse_expression(parser);
                if (!value || !ast_list_push(parser, &expr->in_list.values, value))
                    return NULL;
            } while (parser_accept(parser, TOKEN_COMMA));
            if (!parser_expect(parser, TOKEN_RIGHT_PAREN))
                return NULL;
        }
    } else {
        expr = parser_new_expr_from(parser, AST_EXPR_LIKE, left);
        if (!expr)
            return NULL;
        expr->like.operand = left;
        expr->like.negated = negated;
        expr->like.pattern = parser_parse_additive(parser);
        if (!expr->like.pattern)
            return NULL;
        if (parser_accept_keyword(parser, KEYWORD_ESCAPE)) {
            expr->like.escape = parser_parse_additive(parser);
            if (!expr->like.escape)
                return NULL;
        }
    }
    return parser_finish_expr(parser, expr);
}

static bool token_starts_range_predicate(const Token *token)
{
    return token_is_keyword(token, KEYWORD_BETWEEN) || token_is_keyword(token, KEYWORD_IN) ||
           token_is_keyword(token, KEYWORD_LIKE);
}

static AstExpr *parser_parse_comparison(Parser *parser)
{
    AstExpr *left = parser_parse_additive(parser);
    while (left) {
        const Token *token = parser_current(parser);
        AstOperator op;
        if (token_comparison(token, &op)) {
            parser_advance(parser);
            AstExpr *right = parser_parse_additive(parser);
            left = right ? parser_make_binary(parser, op, left, right) : NULL;
        } else if (token_is_keyword(token, KEYWORD_IS)) {
            left = parser_parse_is(parser, left);
        } else if (token_starts_range_predicate(token)) {
            left = parser_parse_range_predicate(parser, left, false);
        } else if (token_is_keyword(token, KEYWORD_NOT) &&
                   token_starts_range_predicate(parser_peek(parser, 1))) {
            parser_advance(parser);
            left = parser_parse_range_predicate(parser, left, true);
        } else {
            return left;
        }
    }
    return NULL;
}

static AstExpr *parser_parse_not(Parser *parser)
{
    const Token *token = parser_current(parser);
    if (!token_is_keyword(token, KEYWORD_NOT))
        return parser_parse_comparison(parser);
    if (!parser_enter(parser))
        return NULL;
    AstExpr *expr = parser_new_expr(parser, AST_EXPR_UNARY, token);
    if (expr) {
        expr->unary.op = AST_OP_NOT;
        parser_advance(parser);
        expr->unary.operand = parser_parse_not(parser);
        if (!expr->unary.operand)
            expr = NULL;
    }
    parser_leave(parser);
    return parser_finish_expr(parser, expr);
}

static AstExpr *parser_parse_and(Parser *parser)
{
    AstExpr *left = parser_parse_not(parser);
    while (left && parser_is_keyword(parser, KEYWORD_AND)) {
        parser_advance(parser);
        AstExpr *right = parser_parse_not(parser);
        left = right ? parser_make_binary(parser, AST_OP_AND, left, right) : NULL;
    }
    return left;
}

static AstExpr *parser_parse_or(Parser *parser)
{
    AstExpr *left = parser_parse_and(parser);
    while (left && parser_is_keyword(parser, KEYWORD_OR)) {
        parser_advance(parser);
        AstExpr *right = parser_parse_and(parser);
        left = right ? parser_make_binary(parser, AST_OP_OR, left, right) : NULL;
    }
    return left;
}

static AstExpr *parser_parse_expression(Parser *parser)
{
    void *replayed;
    if (parser_replay(parser, PARSER_MEMO_EXPRESSION, &replayed))
        return replayed;
    if (!parser_enter(parser))
        return NULL;
    AstExpr *expr = parser_parse_or(parser);
    parser_leave(parser);
    return expr;
}

/* ------------------------------------------------------------ table references */

static AstTableRef *parser_parse_from(Parser *parser);

/* [AS] alias [(columns)] */
static bool parser_parse_table_alias(Parser *parser, AstTableRef *ref)
{
    const Token *first = parser_current(parser);
    if (first->kind == TOKEN_IDENTIFIER && !first->quoted && first->length == 15 &&
        strncasecmp(first->text, "MATCH_RECOGNIZE", 15) == 0 &&
        parser_peek(parser, 1)->kind == TOKEN_LEFT_PAREN) {
        parser_fail_at(parser, first->line, first->column, JOINERY_ERROR_UNSUPPORTED,
                       "MATCH_RECOGNIZE is not supported yet");
        return false;
    }
    bool has_as = parser_accept_keyword(parser, KEYWORD_AS);
    if (!has_as &&
        (!token_is_identifier(parser_current(parser)) || parser_at_query_tail_word(parser))) {
        parser_note(parser, "alias");
        return true;
    }
    ref->alias = parser_expect_identifier(parser, "alias");
    if (!ref->alias)
        return false;
    if (parser_is(parser, TOKEN_LEFT_PAREN))
        return parser_parse_name_list(parser, &ref->column_aliases, "column alias");
    return true;
}

/* FOR SYSTEM_TIME AS OF expr; FOR is current. */
static bool parser_parse_system_time(Parser *parser, AstTableRef *ref)
{
    parser_advance(parser);
    if (!parser_expect_keyword(parser, KEYWORD_SYSTEM_TIME) ||
        !parser_expect_keyword(parser, KEYWORD_AS) || !parser_expect_keyword(parser, KEYWORD_OF))
        return false;
    ref->table.system_time = parser_parse_additive(parser);
    return ref->table.system_time != NULL;
}

static AstTableRef *parser_parse_table_primary(Parser *parser)
{
    void *replayed;
    if (parser_replay(parser, PARSER_MEMO_TABLE_PRIMARY_FAILURE, &replayed))
        return NULL;
    size_t start = parser->position;
    if (!parser_enter(parser))
        return NULL;
    AstTableRef *result = NULL;
    const Token *first = parser_current(parser);
    AstTableRef *ref = parser_alloc(parser, sizeof *ref);
    if (!ref)
        goto done;
    ref->position = token_position(first);
    if (first->kind == TOKEN_LEFT_PAREN) {
        if (parser_query_follows(parser, 1)) {
            /* "((SELECT ...) AS a JOIN b ON ...)" also starts like a subquery: try the
               subquery first and, if it does not parse, read a parenthesised join */
            Parser saved = *parser;
            Diag saved_diag = *parser->diag;
            ref->kind = AST_TABLE_SUBQUERY;
            parser_advance(parser);
            ref->subquery.query = parser_parse_query(parser);
            if (ref->subquery.query && parser_expect(parser, TOKEN_RIGHT_PAREN) &&
                parser_parse_table_alias(parser, ref)) {
                result = ref;
                goto done;
            }
            if (parser_peek(&saved, 1)->kind != TOKEN_LEFT_PAREN)
                goto done;
            *parser = saved;
            *parser->diag = saved_diag;
            parser_advance(parser);
            AstTableRef *inner = parser_parse_from(parser);
            if (inner && parser_expect(parser, TOKEN_RIGHT_PAREN))
                result = inner;
        } else {
            parser_advance(parser);
            AstTableRef *inner = parser_parse_from(parser);
            if (inner && parser_expect(parser, TOKEN_RIGHT_PAREN))
                result = inner;
        }
        goto done;
    }
    if (first->kind == TOKEN_IDENTIFIER && !first->quoted && first->length == 6 &&
        strncasecmp(first->text, "UNNEST", 6) == 0 &&
        parser_peek(parser, 1)->kind == TOKEN_LEFT_PAREN) {
        /* UNNEST(collection) [AS] t(c, ...): Flink's Correlate over $UNNEST_ROWS$1 */
        ref->kind = AST_TABLE_FUNCTION;
        ref->function.unnest = true;
        ref->function.call = parser_parse_expression(parser);
        if (!ref->function.call)
            goto done;
        if (ref->function.call->kind != AST_EXPR_FUNCTION ||
            ref->function.call->function.args.count != 1) {
            parser_fail_at(parser, first->line, first->column, JOINERY_ERROR_UNSUPPORTED,
                           "UNNEST takes one ARRAY, MULTISET or MAP argument");
            goto done;
        }
        const Token *ordinality = parser_peek(parser, 1);
        if (parser_is_keyword(parser, KEYWORD_WITH) && ordinality->kind == TOKEN_IDENTIFIER &&
            !ordinality->quoted && ordinality->length == 10 &&
            strncasecmp(ordinality->text, "ORDINALITY", 10) == 0) {
            parser_advance(parser);
            parser_advance(parser);
            ref->function.with_ordinality = true;
        }
        if (!parser_parse_table_alias(parser, ref))
            goto done;
        result = ref;
        goto done;
    }
    if (token_is_keyword(first, KEYWORD_LATERAL) || token_is_keyword(first, KEYWORD_TABLE)) {
        if (token_is_keyword(first, KEYWORD_LATERAL))
            parser_advance(parser);
        if (!parser_expect_keyword(parser, KEYWORD_TABLE) ||
            !parser_expect(parser, TOKEN_LEFT_PAREN))
            goto done;
        ref->kind = AST_TABLE_FUNCTION;
        const Token *call_token = parser_current(parser);
        ref->function.call = parser_parse_expression(parser);
        if (!ref->function.call)
            goto done;
        if (ref->function.call->kind != AST_EXPR_FUNCTION) {
            parser_fail_at(parser, call_token->line, call_token->column, JOINERY_ERROR_PARSE,
                           "Syntax error: TABLE(...) expects a function call");
            goto done;
        }
        if (!parser_expect(parser, TOKEN_RIGHT_PAREN) || !parser_parse_table_alias(parser, ref))
            goto done;
        result = ref;
        goto done;
    }
    ref->kind = AST_TABLE_NAME;
    if (!parser_parse_name(parser, &ref->table.parts, "table name"))
        goto done;
    if (!parser_collect_hints(parser, parser->previous, &ref->hints))
        goto done;
    if (parser_is_keyword(parser, KEYWORD_FOR) && !parser_parse_system_time(parser, ref))
        goto done;
    if (!parser_parse_table_alias(parser, ref))
        goto done;
    if (!ref->table.system_time && parser_is_keyword(parser, KEYWORD_FOR) &&
        !parser_parse_system_time(parser, ref))
        goto done;
    result = ref;
done:
    parser_leave(parser);
    if (!result)
        parser_record(parser, PARSER_MEMO_TABLE_PRIMARY_FAILURE, start, NULL);
    return result;
}

/* Reads a join operator; returns false when the current token starts none. */
static bool parser_parse_join_operator(Parser *parser, AstJoinKind *kind, bool *natural)
{
    *natural = false;
    if (parser_is_keyword(parser, KEYWORD_NATURAL)) {
        parser_advance(parser);
        *natural = true;
    }
    Keyword keyword = parser_current(parser)->kind == TOKEN_KEYWORD
                          ? parser_current(parser)->keyword
                          : KEYWORD_NONE;
    switch (keyword) {
    case KEYWORD_JOIN:
        parser_advance(parser);
        *kind = AST_JOIN_INNER;
        return true;
    case KEYWORD_INNER:
        *kind = AST_JOIN_INNER;
        break;
    case KEYWORD_CROSS:
        *kind = AST_JOIN_CROSS;
        break;
    case KEYWORD_LEFT:
        *kind = AST_JOIN_LEFT;
        break;
    case KEYWORD_RIGHT:
        *kind = AST_JOIN_RIGHT;
        break;
    case KEYWORD_FULL:
        *kind = AST_JOIN_FULL;
        break;
    default:
        parser_note(parser, "JOIN");
        if (*natural)
            parser_fail_unexpected(parser);
        return false;
    }
    parser_advance(parser);
    if (*kind == AST_JOIN_LEFT || *kind == AST_JOIN_RIGHT || *kind == AST_JOIN_FULL)
        parser_accept_keyword(parser, KEYWORD_OUTER);
    if (!parser_expect_keyword(parser, KEYWORD_JOIN))
        return false;
    return true;
}

static AstTableRef *parser_new_join(Parser *parser, AstJoinKind kind, AstTableRef *left,
                                    const Token *keyword)
{
    AstTableRef *join = parser_alloc(parser, sizeof *join);
    if (!join)
        return NULL;
    join->kind = AST_TABLE_JOIN;
    join->position = left->position;
    join->join.kind = kind;
    join->join.left = left;
    join->join.keyword_position = token_position(keyword);
    return join;
}

/* table_primary { , table_primary | join_operator table_primary [ON expr | USING (cols)] } */
static AstTableRef *parser_parse_from(Parser *parser)
{
    AstTableRef *left = parser_parse_table_primary(parser);
    while (left) {
        const Token *keyword = parser_current(parser);
        if (parser_accept(parser, TOKEN_COMMA)) {
            AstTableRef *join = parser_new_join(parser, AST_JOIN_CROSS, left, keyword);
            if (!join)
                return NULL;
            join->join.comma = true;
            join->join.right = parser_parse_table_primary(parser);
            left = join->join.right ? join : NULL;
            continue;
        }
        AstJoinKind kind;
        bool natural = false;
        if (!parser_parse_join_operator(parser, &kind, &natural))
            return parser->failed ? NULL : left;
        AstTableRef *join = parser_new_join(parser, kind, left, keyword);
        if (!join)
            return NULL;
        join->join.natural = natural;
        join->join.right = parser_parse_table_primary(parser);
        if (!join->join.right)
            return NULL;
        if (kind != AST_JOIN_CROSS && !natural) {
            if (parser_accept_keyword(parser, KEYWORD_ON)) {
                join->join.condition = parser_parse_expression(parser);
                if (!join->join.condition)
                    return NULL;
            } else if (parser_accept_keyword(parser, KEYWORD_USING)) {
                if (!parser_parse_name_list(parser, &join->join.using_columns, "column name"))
                    return NULL;
            } else {
                parser_fail_unexpected(parser);
                return NULL;
            }
        }
        left = join;
    }
    return NULL;
}

/* ------------------------------------------------------------ queries */

static AstQuery *parser_new_query(Parser *parser, AstQueryKind kind, SourcePosition position)
{
    AstQuery *query = parser_alloc(parser, sizeof *query);
    if (query) {
        query->kind = kind;
        query->position = position;
    }
    return query;
}

static bool parser_parse_expression_list(Parser *parser, AstList *list)
{
    do {
        AstExpr *expr = parser_parse_expression(parser);
        if (!expr || !ast_list_push(parser, list, expr))
            return false;
    } while (parser_accept(parser, TOKEN_COMMA));
    return true;
}

static AstSelectItem *parser_parse_select_item(Parser *parser)
{
    const Token *first = parser_current(parser);
    AstSelectItem *item = parser_alloc(parser, sizeof *item);
    if (!item)
        return NULL;
    item->position = token_position(first);
    if (first->kind == TOKEN_STAR) {
        item->expr = parser_new_expr(parser, AST_EXPR_STAR, first);
        parser_advance(parser);
        parser_finish_expr(parser, item->expr);
    } else {
        item->expr = parser_parse_expression(parser);
    }
    if (!item->expr)
        return NULL;
    if (parser_accept_keyword(parser, KEYWORD_AS) ||
        (token_is_identifier(parser_current(parser)) && !parser_at_query_tail_word(parser))) {
        item->alias = parser_expect_identifier(parser, "alias");
        if (!item->alias)
            return NULL;
    }
    return item;
}

static bool parser_parse_window_clause(Parser *parser, AstList *windows);

static AstQuery *parser_parse_select(Parser *parser)
{
    const Token *first = parser_current(parser);
    AstQuery *query = parser_new_query(parser, AST_QUERY_SELECT, token_position(first));
    if (!query)
        return NULL;
    size_t select_index = parser->position;
    parser_advance(parser);
    if (!parser_collect_hints(parser, select_index, &query->select.hints))
        return NULL;
    if (parser_accept_keyword(parser, KEYWORD_DISTINCT))
        query->select.distinct = true;
    else
        parser_accept_keyword(parser, KEYWORD_ALL);
    do {
        AstSelectItem *item = parser_parse_select_item(parser);
        if (!item || !ast_list_push(parser, &query->select.items, item))
            return NULL;
    } while (parser_accept(parser, TOKEN_COMMA));
    if (parser_accept_keyword(parser, KEYWORD_FROM)) {
        query->select.from = parser_parse_from(parser);
        if (!query->select.from)
            return NULL;
    }
    if (parser_accept_keyword(parser, KEYWORD_WHERE)) {
        query->select.where = parser_parse_expression(parser);
        if (!query->select.where)
            return NULL;
    }
    if (parser_accept_keyword(parser, KEYWORD_GROUP)) {
        if (!parser_expect_keyword(parser, KEYWORD_BY) ||
            !parser_parse_expression_list(parser, &query->select.group_by))
            return NULL;
    }
    if (parser_accept_keyword(parser, KEYWORD_HAVING)) {
        query->select.having = parser_parse_expression(parser);
        if (!query->select.having)
            return NULL;
    }
    if (parser_at_window_clause(parser) &&
        !parser_parse_window_clause(parser, &query->select.windows))
        return NULL;
    return query;
}

static AstQuery *parser_parse_values(Parser *parser)
{
    AstQuery *query =
        parser_new_query(parser, AST_QUERY_VALUES, token_position(parser_current(parser)));
    if (!query)
        return NULL;
    parser_advance(parser);
    do {
        AstList *row = parser_alloc(parser, sizeof *row);
        if (!row || !parser_expect(parser, TOKEN_LEFT_PAREN) ||
            !parser_parse_expression_list(parser, row) ||
            !parser_expect(parser, TOKEN_RIGHT_PAREN) ||
            !ast_list_push(parser, &query->values.rows, row))
            return NULL;
    } while (parser_accept(parser, TOKEN_COMMA));
    return query;
}

static AstQuery *parser_parse_query_primary(Parser *parser)
{
    if (parser_is_keyword(parser, KEYWORD_SELECT))
        return parser_parse_select(parser);
    if (parser_is_keyword(parser, KEYWORD_VALUES))
        return parser_parse_values(parser);
    if (parser_is(parser, TOKEN_LEFT_PAREN)) {
        parser_advance(parser);
        AstQuery *query = parser_parse_query(parser);
        if (!query || !parser_expect(parser, TOKEN_RIGHT_PAREN))
            return NULL;
        return query;
    }
    parser_note(parser, "SELECT");
    parser_note(parser, "VALUES");
    parser_note(parser, "'('");
    parser_fail_unexpected(parser);
    return NULL;
}

/* Binds a set operator and its operands. */
static AstQuery *parser_parse_set_operation(Parser *parser, bool intersect_level)
{
    AstQuery *left = intersect_level ? parser_parse_query_primary(parser)
                                     : parser_parse_set_operation(parser, true);
    while (left) {
        AstSetOperator op;
        /* only UNION is listed in "expected" messages, to keep them short */
        if (intersect_level && parser_is_keyword(parser, KEYWORD_INTERSECT))
            op = AST_SET_INTERSECT;
        else if (!intersect_level && parser_accept_keyword(parser, KEYWORD_UNION))
            op = AST_SET_UNION;
        else if (!intersect_level && parser_is_keyword(parser, KEYWORD_EXCEPT))
            op = AST_SET_EXCEPT;
        else
            return left;
        if (op != AST_SET_UNION)
            parser_advance(parser);
        AstQuery *set = parser_new_query(parser, AST_QUERY_UNION, left->position);
        if (!set)
            return NULL;
        set->set.op = op;
        set->set.left = left;
        if (parser_accept_keyword(parser, KEYWORD_ALL))
            set->set.all = true;
        else
            parser_accept_keyword(parser, KEYWORD_DISTINCT);
        set->set.right = intersect_level ? parser_parse_query_primary(parser)
                                         : parser_parse_set_operation(parser, true);
        left = set->set.right ? set : NULL;
    }
    return NULL;
}

static bool parser_parse_with_items(Parser *parser, AstList *items)
{
    do {
        AstWithItem *item = parser_alloc(parser, sizeof *item);
        if (!item)
            return false;
        item->position = token_position(parser_current(parser));
        item->name = parser_expect_identifier(parser, "query name");
        if (!item->name)
            return false;
        if (parser_is(parser, TOKEN_LEFT_PAREN) &&
            !parser_parse_name_list(parser, &item->column_names, "column name"))
            return false;
        if (!parser_expect_keyword(parser, KEYWORD_AS) || !parser_expect(parser, TOKEN_LEFT_PAREN))
            return false;
        item->query = parser_parse_query(parser);
        if (!item->query || !parser_expect(parser, TOKEN_RIGHT_PAREN) ||
            !ast_list_push(parser, items, item))
            return false;
    } while (parser_accept(parser, TOKEN_COMMA));
    return true;
}

static bool parser_parse_order_by(Parser *parser, AstList *items);

static bool parser_accept_word(Parser *parser, const char *word);

/* One frame bound: UNBOUNDED PRECEDING | UNBOUNDED FOLLOWING | CURRENT ROW | offset
   PRECEDING | offset FOLLOWING. */
static bool parser_parse_frame_bound(Parser *parser, AstFrameBound *bound)
{
    bound->position = token_position(parser_current(parser));
    if (parser_accept_word(parser, "UNBOUNDED")) {
        if (parser_accept_word(parser, "PRECEDING")) {
            bound->kind = AST_FRAME_UNBOUNDED_PRECEDING;
            return true;
        }
        if (parser_accept_word(parser, "FOLLOWING")) {
            bound->kind = AST_FRAME_UNBOUNDED_FOLLOWING;
            return true;
        }
        parser_fail_unexpected(parser);
        return false;
    }
    if (parser_accept_word(parser, "CURRENT")) {
        bound->kind = AST_FRAME_CURRENT_ROW;
        return parser_expect_keyword(parser, KEYWORD_ROW);
    }
    bound->offset = parser_parse_expression(parser);
    if (!bound->offset)
        return false;
    if (parser_accept_word(parser, "PRECEDING")) {
        bound->kind = AST_FRAME_PRECEDING;
        return true;
    }
    if (parser_accept_word(parser, "FOLLOWING")) {
        bound->kind = AST_FRAME_FOLLOWING;
        return true;
    }
    parser_fail_unexpected(parser);
    return false;
}

/* The inside of OVER ( ... ) or of a WINDOW item's parentheses, the left parenthesis
   current: [name] [PARTITION BY expr, ...] [ORDER BY item, ...] [ROWS | RANGE frame]. */
static bool parser_parse_window_body(Parser *parser, AstOver *over)
{
    if (!parser_expect(parser, TOKEN_LEFT_PAREN))
        return false;
    const Token *token = parser_current(parser);
    if (token->kind == TOKEN_IDENTIFIER && !token_is_word(token, "PARTITION") &&
        !token_is_word(token, "ROWS") && !token_is_word(token, "RANGE")) {
        over->base_name = parser_identifier_text(parser, token);
        if (!over->base_name)
            return false;
        parser_advance(parser);
        token = parser_current(parser);
    }
    if (token_is_word(token, "PARTITION")) {
        parser_advance(parser);
        if (!parser_expect_keyword(parser, KEYWORD_BY))
            return false;
        do {
            AstExpr *key = parser_parse_expression(parser);
            if (!key || !ast_list_push(parser, &over->partition_by, key))
                return false;
        } while (parser_accept(parser, TOKEN_COMMA));
    }
    if (parser_accept_keyword(parser, KEYWORD_ORDER) &&
        !parser_parse_order_by(parser, &over->order_by))
        return false;
    token = parser_current(parser);
    if (token_is_word(token, "ROWS") || token_is_word(token, "RANGE")) {
        over->has_frame = true;
        over->rows = token_is_word(token, "ROWS");
        parser_advance(parser);
        if (parser_accept_keyword(parser, KEYWORD_BETWEEN)) {
            if (!parser_parse_frame_bound(parser, &over->lower) ||
                !parser_expect_keyword(parser, KEYWORD_AND) ||
                !parser_parse_frame_bound(parser, &over->upper))
                return false;
        } else {
            if (!parser_parse_frame_bound(parser, &over->lower))
                return false;
            over->upper.kind = AST_FRAME_CURRENT_ROW;
            over->upper.position = over->lower.position;
        }
    }
    return parser_expect(parser, TOKEN_RIGHT_PAREN);
}

/* OVER ( window ) or OVER name after a function call; OVER is current. */
static bool parser_parse_over(Parser *parser, AstExpr *expr)
{
    const Token *over_token = parser_current(parser);
    AstOver *over = parser_alloc(parser, sizeof *over);
    if (!over)
        return false;
    over->position = token_position(over_token);
    parser_advance(parser);
    if (token_is_identifier(parser_current(parser))) {
        over->name = parser_identifier_text(parser, parser_current(parser));
        if (!over->name)
            return false;
        parser_advance(parser);
    } else if (!parser_parse_window_body(parser, over)) {
        return false;
    }
    expr->function.over = over;
    return true;
}

/* WINDOW name AS ( window ) [, ...] at the end of a SELECT; WINDOW is current. */
static bool parser_parse_window_clause(Parser *parser, AstList *windows)
{
    parser_advance(parser);
    do {
        AstWindowDefinition *window = parser_alloc(parser, sizeof *window);
        AstOver *over = window ? parser_alloc(parser, sizeof *over) : NULL;
        if (!over)
            return false;
        window->position = token_position(parser_current(parser));
        over->position = window->position;
        window->name = parser_expect_identifier(parser, "window name");
        if (!window->name || !parser_expect_keyword(parser, KEYWORD_AS) ||
            !parser_parse_window_body(parser, over) || !ast_list_push(parser, windows, window))
            return false;
        window->over = over;
    } while (parser_accept(parser, TOKEN_COMMA));
    return true;
}

static bool parser_parse_order_by(Parser *parser, AstList *items)
{
    if (!parser_expect_keyword(parser, KEYWORD_BY))
        return false;
    do {
        AstOrderItem *item = parser_alloc(parser, sizeof *item);
        if (!item)
            return false;
        item->nulls_first = -1;
        item->expr = parser_parse_expression(parser);
        if (!item->expr)
            return false;
        if (parser_accept_keyword(parser, KEYWORD_DESC))
            item->descending = true;
        else
            parser_accept_keyword(parser, KEYWORD_ASC);
        if (parser_accept_keyword(parser, KEYWORD_NULLS)) {
            if (parser_accept_keyword(parser, KEYWORD_FIRST))
                item->nulls_first = 1;
            else if (parser_expect_keyword(parser, KEYWORD_LAST))
                item->nulls_first = 0;
            else
                return false;
        }
        if (!ast_list_push(parser, items, item))
            return false;
    } while (parser_accept(parser, TOKEN_COMMA));
    return true;
}

/* The count of LIMIT, OFFSET or FETCH: an expression the binder checks (a non-negative
   integer literal). */
static AstExpr *parser_parse_row_count(Parser *parser)
{
    return parser_parse_additive(parser);
}

/* [ROW | ROWS] after OFFSET m and FETCH FIRST n; `required` for FETCH. */
static bool parser_accept_rows_word(Parser *parser, bool required)
{
    const Token *token = parser_current(parser);
    if (token_is_keyword(token, KEYWORD_ROW) || token_is_word(token, "ROWS")) {
        parser_advance(parser);
        return true;
    }
    if (!required)
        return true;
    parser_note(parser, "ROWS");
    parser_fail_unexpected(parser);
    return false;
}

/*
 * The query's tail as Calcite parses it: LIMIT n [OFFSET m [ROW|ROWS]],
 * OFFSET m [ROW|ROWS] [FETCH {FIRST|NEXT} [n] {ROW|ROWS} ONLY], or
 * FETCH {FIRST|NEXT} [n] {ROW|ROWS} ONLY (n defaults to 1).
 */
static bool parser_parse_limit_offset(Parser *parser, AstExpr **limit, AstExpr **offset)
{
    if (parser_accept_keyword(parser, KEYWORD_LIMIT)) {
        *limit = parser_parse_row_count(parser);
        if (!*limit)
            return false;
        if (token_is_word(parser_current(parser), "OFFSET")) {
            parser_advance(parser);
            *offset = parser_parse_row_count(parser);
            return *offset && parser_accept_rows_word(parser, false);
        }
        return true;
    }
    if (token_is_word(parser_current(parser), "OFFSET")) {
        parser_advance(parser);
        *offset = parser_parse_row_count(parser);
        if (!*offset || !parser_accept_rows_word(parser, false))
            return false;
    }
    if (!token_is_word(parser_current(parser), "FETCH"))
        return true;
    const Token *fetch = parser_current(parser);
    parser_advance(parser);
    if (!parser_accept_keyword(parser, KEYWORD_FIRST)) {
        if (!token_is_word(parser_current(parser), "NEXT")) {
            parser_note(parser, "FIRST");
            parser_note(parser, "NEXT");
            parser_fail_unexpected(parser);
            return false;
        }
        parser_advance(parser);
    }
    const Token *count = parser_current(parser);
    if (token_is_keyword(count, KEYWORD_ROW) || token_is_word(count, "ROWS")) {
        /* FETCH FIRST ROW ONLY: one row */
        AstExpr *one = parser_new_expr(parser, AST_EXPR_LITERAL, fetch);
        if (!one)
            return false;
        one->literal.kind = AST_LITERAL_INTEGER;
        one->literal.text = parser_strndup(parser, "1", 1);
        one->literal.text_length = 1;
        if (!one->literal.text)
            return false;
        *limit = one;
    } else {
        *limit = parser_parse_row_count(parser);
        if (!*limit)
            return false;
    }
    if (!parser_accept_rows_word(parser, true))
        return false;
    if (!token_is_word(parser_current(parser), "ONLY")) {
        parser_note(parser, "ONLY");
        parser_fail_unexpected(parser);
        return false;
    }
    parser_advance(parser);
    return true;
}

/* [WITH ...] set_operation [ORDER BY ...] [LIMIT n [OFFSET m] | OFFSET m [FETCH ...] |
   FETCH ...] */
static AstQuery *parser_parse_query(Parser *parser)
{
    if (!parser_enter(parser))
        return NULL;
    AstQuery *result = NULL;
    const Token *first = parser_current(parser);
    AstList with_items = {0};
    AstList order_by = {0};
    AstExpr *limit = NULL, *offset = NULL;
    if (parser_accept_keyword(parser, KEYWORD_WITH) &&
        !parser_parse_with_items(parser, &with_items))
        goto done;
    AstQuery *body = parser_parse_set_operation(parser, false);
    if (!body)
        goto done;
    const Token *order_token = parser_current(parser);
    if (parser_accept_keyword(parser, KEYWORD_ORDER) && !parser_parse_order_by(parser, &order_by))
        goto done;
    const Token *limit_token = parser_current(parser);
    if (!parser_parse_limit_offset(parser, &limit, &offset))
        goto done;
    if ((order_by.count && body->order_by.count) ||
        ((limit || offset) && (body->limit || body->offset)) ||
        (with_items.count && body->with_items.count)) {
        const Token *at = limit || offset ? limit_token : order_by.count ? order_token : first;
        parser_fail_at(
            parser, at->line, at->column, JOINERY_ERROR_UNSUPPORTED,
            "nested WITH, ORDER BY or LIMIT on a parenthesised query is not supported yet");
        goto done;
    }
    if (with_items.count) {
        body->with_items = with_items;
        body->position = token_position(first);
    }
    if (order_by.count)
        body->order_by = order_by;
    if (limit)
        body->limit = limit;
    if (offset)
        body->offset = offset;
    result = body;
done:
    parser_leave(parser);
    return result;
}

/* ------------------------------------------------------------ statements */

static AstStatement *parser_new_statement(Parser *parser, AstStatementKind kind, const Token *first)
{
    AstStatement *statement = parser_alloc(parser, sizeof *statement);
    if (statement) {
        statement->kind = kind;
        statement->position = token_position(first);
    }
    return statement;
}

static bool parser_parse_if_not_exists(Parser *parser, bool *if_not_exists)
{
    if (parser_is_keyword(parser, KEYWORD_IF) &&
        token_is_keyword(parser_peek(parser, 1), KEYWORD_NOT)) {
        parser_advance(parser);
        parser_advance(parser);
        if (!parser_expect_keyword(parser, KEYWORD_EXISTS))
            return false;
        *if_not_exists = true;
    } else {
        parser_note(parser, "IF NOT EXISTS");
    }
    return true;
}

/* PRIMARY KEY [NOT ENFORCED]; PRIMARY is current. Returns the enforced flag via *enforced. */
static bool parser_parse_primary_key_words(Parser *parser, bool *enforced)
{
    parser_advance(parser);
    if (!parser_expect_keyword(parser, KEYWORD_KEY))
        return false;
    *enforced = true;
    return true;
}

static bool parser_parse_not_enforced(Parser *parser, bool *enforced)
{
    if (parser_is_keyword(parser, KEYWORD_NOT) &&
        token_is_keyword(parser_peek(parser, 1), KEYWORD_ENFORCED)) {
        parser_advance(parser);
        parser_advance(parser);
        *enforced = false;
    } else {
        parser_note(parser, "NOT ENFORCED");
    }
    return true;
}

static bool parser_set_primary_key_position(Parser *parser, AstCreateTable *table, const Token *at)
{
    if (table->primary_key.count > 0) {
        parser_fail_at(parser, at->line, at->column, JOINERY_ERROR_PARSE,
                       "Syntax error: a table can have only one PRIMARY KEY");
        return false;
    }
    table->primary_key_position = token_position(at);
    return true;
}

static bool parser_parse_column(Parser *parser, AstCreateTable *table)
{
    AstColumnDef *column = parser_alloc(parser, sizeof *column);
    if (!column)
        return false;
    column->position = token_position(parser_current(parser));
    column->name = parser_expect_identifier(parser, "column name");
    if (!column->name)
        return false;
    if (parser_accept_keyword(parser, KEYWORD_AS)) {
        column->kind = AST_COLUMN_COMPUTED;
        column->expr = parser_parse_expression(parser);
        if (!column->expr)
            return false;
    } else {
        parser_note(parser, "AS");
        column->kind = AST_COLUMN_PHYSICAL;
        if (!parser_parse_type(parser, &column->type))
            return false;
        if (parser_accept_keyword(parser, KEYWORD_METADATA)) {
            column->kind = AST_COLUMN_METADATA;
            if (parser_accept_keyword(parser, KEYWORD_FROM)) {
                column->metadata_key = parser_expect_string(parser, "metadata key string");
                if (!column->metadata_key)
                    return false;
            }
            column->is_virtual = parser_accept_keyword(parser, KEYWORD_VIRTUAL);
        }
    }
    for (;;) {
        if (parser_accept_keyword(parser, KEYWORD_COMMENT)) {
            column->comment = parser_expect_string(parser, "comment string");
            if (!column->comment)
                return false;
            continue;
        }
        const Token *constraint = parser_current(parser);
        if (parser_accept_keyword(parser, KEYWORD_CONSTRAINT) &&
            !parser_expect_identifier(parser, "constraint name"))
            return false;
        const Token *primary = parser_current(parser);
        if (!parser_is_keyword(parser, KEYWORD_PRIMARY)) {
            parser_note(parser, "PRIMARY KEY");
            if (constraint != primary) {
                parser_fail_unexpected(parser);
                return false;
            }
            break;
        }
        bool enforced = true;
        if (!parser_set_primary_key_position(parser, table, constraint) ||
            !parser_parse_primary_key_words(parser, &enforced) ||
            !parser_parse_not_enforced(parser, &enforced))
            return false;
        column->primary_key = true;
        table->primary_key_enforced = enforced;
        if (!ast_list_push(parser, &table->primary_key, column->name))
            return false;
    }
    return ast_list_push(parser, &table->columns, column);
}

static bool parser_parse_table_element(Parser *parser, AstCreateTable *table)
{
    const Token *first = parser_current(parser);
    if (token_is_keyword(first, KEYWORD_WATERMARK) &&
        token_is_keyword(parser_peek(parser, 1), KEYWORD_FOR)) {
        if (table->watermark_column) {
            parser_fail_at(parser, first->line, first->column, JOINERY_ERROR_PARSE,
                           "Syntax error: a table can have only one WATERMARK");
            return false;
        }
        parser_advance(parser);
        parser_advance(parser);
        table->watermark_position = token_position(first);
        AstList parts = {0};
        if (!parser_parse_name(parser, &parts, "column name"))
            return false;
        table->watermark_column = parser_join_names(parser, &parts, parts.count);
        if (!table->watermark_column || !parser_expect_keyword(parser, KEYWORD_AS))
            return false;
        table->watermark_expr = parser_parse_expression(parser);
        return table->watermark_expr != NULL;
    }
    if (token_is_keyword(first, KEYWORD_CONSTRAINT) || token_is_keyword(first, KEYWORD_PRIMARY)) {
        if (parser_accept_keyword(parser, KEYWORD_CONSTRAINT) &&
            !parser_expect_identifier(parser, "constraint name"))
            return false;
        if (!parser_is_keyword(parser, KEYWORD_PRIMARY)) {
            parser_note(parser, "PRIMARY KEY");
            parser_fail_unexpected(parser);
            return false;
        }
        AstList columns = {0};
        bool enforced = true;
        if (!parser_set_primary_key_position(parser, table, first) ||
            !parser_parse_primary_key_words(parser, &enforced) ||
            !parser_parse_name_list(parser, &columns, "column name") ||
            !parser_parse_not_enforced(parser, &enforced))
            return false;
        table->primary_key = columns;
        table->primary_key_enforced = enforced;
        return true;
    }
    parser_note(parser, "WATERMARK");
    parser_note(parser, "PRIMARY KEY");
    return parser_parse_column(parser, table);
}

/* Skips a balanced parenthesised group (LIKE options). */
static bool parser_skip_group(Parser *parser)
{
    int depth = 0;
    do {
        if (parser_at_last(parser)) {
            parser_note(parser, "')'");
            parser_fail_unexpected(parser);
            return false;
        }
        if (parser_is(parser, TOKEN_LEFT_PAREN))
            depth++;
        else if (parser_is(parser, TOKEN_RIGHT_PAREN))
            depth--;
        parser_advance(parser);
    } while (depth > 0);
    return true;
}

static bool parser_parse_create_table(Parser *parser, AstCreateTable *table)
{
    if (!parser_parse_if_not_exists(parser, &table->if_not_exists) ||
        !parser_parse_name(parser, &table->name_parts, "table name"))
        return false;
    if (parser_is_keyword(parser, KEYWORD_AS)) {
        const Token *as = parser_current(parser);
        parser_fail_at(parser, as->line, as->column, JOINERY_ERROR_UNSUPPORTED,
                       "CREATE TABLE ... AS SELECT is not supported yet");
        return false;
    }
    if (!parser_expect(parser, TOKEN_LEFT_PAREN))
        return false;
    do {
        if (!parser_parse_table_element(parser, table))
            return false;
    } while (parser_accept(parser, TOKEN_COMMA));
    if (!parser_expect(parser, TOKEN_RIGHT_PAREN))
        return false;
    if (parser_accept_keyword(parser, KEYWORD_COMMENT)) {
        table->comment = parser_expect_string(parser, "comment string");
        if (!table->comment)
            return false;
    }
    if (parser_accept_keyword(parser, KEYWORD_PARTITIONED)) {
        if (!parser_expect_keyword(parser, KEYWORD_BY) ||
            !parser_parse_name_list(parser, &table->partition_by, "column name"))
            return false;
    }
    if (parser_accept_keyword(parser, KEYWORD_WITH) &&
        !parser_parse_option_list(parser, &table->options))
        return false;
    if (parser_accept_keyword(parser, KEYWORD_LIKE)) {
        AstList parts = {0};
        if (!parser_parse_name(parser, &parts, "table name"))
            return false;
        table->like_table = parser_join_names(parser, &parts, parts.count);
        if (!table->like_table)
            return false;
        if (parser_is(parser, TOKEN_LEFT_PAREN) && !parser_skip_group(parser))
            return false;
    }
    return true;
}

static bool parser_parse_create_view(Parser *parser, AstCreateView *view)
{
    if (!parser_parse_if_not_exists(parser, &view->if_not_exists) ||
        !parser_parse_name(parser, &view->name_parts, "view name"))
        return false;
    if (parser_is(parser, TOKEN_LEFT_PAREN) &&
        !parser_parse_name_list(parser, &view->column_names, "column name"))
        return false;
    if (parser_accept_keyword(parser, KEYWORD_COMMENT) &&
        !parser_expect_string(parser, "comment string"))
        return false;
    if (!parser_expect_keyword(parser, KEYWORD_AS))
        return false;
    const Token *first = parser_current(parser);
    view->query = parser_parse_query(parser);
    if (!view->query)
        return false;
    view->query_text = first->text;
    view->query_length = (size_t)(parser_previous_end(parser) - first->text);
    return true;
}

static bool parser_accept_word(Parser *parser, const char *word);

/* CREATE [TEMPORARY [SYSTEM]] FUNCTION ...; FUNCTION is current. */
static AstStatement *parser_parse_create_function(Parser *parser, const Token *first,
                                                  bool temporary, bool system)
{
    AstStatement *statement = parser_new_statement(parser, AST_STMT_CREATE_FUNCTION, first);
    if (!statement)
        return NULL;
    AstCreateFunction *function = &statement->create_function;
    function->temporary = temporary;
    function->system = system;
    parser_advance(parser);
    if (!parser_parse_if_not_exists(parser, &function->if_not_exists) ||
        !parser_parse_name(parser, &function->name_parts, "function name") ||
        !parser_expect_keyword(parser, KEYWORD_AS))
        return NULL;
    function->identifier_position = token_position(parser_current(parser));
    if (!(function->identifier = parser_expect_string(parser, "function identifier string")))
        return NULL;
    if (parser_accept_word(parser, "LANGUAGE")) {
        const Token *language = parser_current(parser);
        if (language->kind != TOKEN_IDENTIFIER && language->kind != TOKEN_KEYWORD) {
            parser_note(parser, "language");
            parser_fail_unexpected(parser);
            return NULL;
        }
        function->language_position = token_position(language);
        function->language = parser_alloc(parser, language->length + 1);
        if (!function->language)
            return NULL;
        memcpy(function->language, language->text, language->length);
        parser_advance(parser);
    }
    if (parser_accept_keyword(parser, KEYWORD_USING)) {
        if (!parser_accept_word(parser, "JAR")) {
            parser_fail_unexpected(parser);
            return NULL;
        }
        if (!(function->library = parser_expect_string(parser, "library path string")))
            return NULL;
        if (parser_is(parser, TOKEN_COMMA)) {
            parser_fail_at(parser, parser_current(parser)->line, parser_current(parser)->column,
                           JOINERY_ERROR_UNSUPPORTED,
                           "USING JAR with several libraries is not supported: a C function "
                           "comes from one shared library");
            return NULL;
        }
    }
    return statement;
}

static AstStatement *parser_parse_create(Parser *parser, const Token *first)
{
    parser_advance(parser);
    bool temporary = parser_accept_keyword(parser, KEYWORD_TEMPORARY);
    bool system = temporary && parser_accept_word(parser, "SYSTEM");
    if (token_is_word(parser_current(parser), "FUNCTION"))
        return parser_parse_create_function(parser, first, temporary, system);
    if (system) {
        parser_fail_unexpected(parser);
        return NULL;
    }
    if (parser_accept_keyword(parser, KEYWORD_TABLE)) {
        AstStatement *statement = parser_new_statement(parser, AST_STMT_CREATE_TABLE, first);
        if (!statement)
            return NULL;
        statement->create_table.temporary = temporary;
        return parser_parse_create_table(parser, &statement->create_table) ? statement : NULL;
    }
    if (parser_accept_keyword(parser, KEYWORD_VIEW)) {
        AstStatement *statement = parser_new_statement(parser, AST_STMT_CREATE_VIEW, first);
        if (!statement)
            return NULL;
        statement->create_view.temporary = temporary;
        return parser_parse_create_view(parser, &statement->create_view) ? statement : NULL;
    }
    parser_fail_unexpected(parser);
    return NULL;
}

static AstStatement *parser_parse_drop(Parser *parser, const Token *first)
{
    AstStatement *statement = parser_new_statement(parser, AST_STMT_DROP, first);
    if (!statement)
        return NULL;
    parser_advance(parser);
    statement->drop.temporary = parser_accept_keyword(parser, KEYWORD_TEMPORARY);
    statement->drop.system = statement->drop.temporary && parser_accept_word(parser, "SYSTEM");
    if (parser_accept_word(parser, "FUNCTION")) {
        statement->drop.is_function = true;
    } else if (statement->drop.system) {
        parser_fail_unexpected(parser);
        return NULL;
    } else if (parser_accept_keyword(parser, KEYWORD_VIEW)) {
        statement->drop.is_view = true;
    } else if (!parser_expect_keyword(parser, KEYWORD_TABLE)) {
        return NULL;
    }
    if (parser_is_keyword(parser, KEYWORD_IF) &&
        token_is_keyword(parser_peek(parser, 1), KEYWORD_EXISTS)) {
        parser_advance(parser);
        parser_advance(parser);
        statement->drop.if_exists = true;
    } else {
        parser_note(parser, "IF EXISTS");
    }
    return parser_parse_name(parser, &statement->drop.name_parts, "name") ? statement : NULL;
}

static AstStatement *parser_parse_insert(Parser *parser, const Token *first)
{
    AstStatement *statement = parser_new_statement(parser, AST_STMT_INSERT, first);
    if (!statement)
        return NULL;
    parser_advance(parser);
    if (parser_accept_keyword(parser, KEYWORD_OVERWRITE)) {
        statement->insert.overwrite = true;
        parser_accept_keyword(parser, KEYWORD_INTO);
    } else if (!parser_expect_keyword(parser, KEYWORD_INTO)) {
        return NULL;
    }
    if (!parser_parse_name(parser, &statement->insert.table_parts, "table name"))
        return NULL;
    if (parser_is(parser, TOKEN_LEFT_PAREN) && !parser_query_follows(parser, 1) &&
        !parser_parse_name_list(parser, &statement->insert.columns, "column name"))
        return NULL;
    statement->insert.query = parser_parse_query(parser);
    return statement->insert.query ? statement : NULL;
}

static AstStatement *parser_parse_query_statement(Parser *parser, const Token *first)
{
    AstStatement *statement = parser_new_statement(parser, AST_STMT_QUERY, first);
    if (!statement)
        return NULL;
    statement->query = parser_parse_query(parser);
    return statement->query ? statement : NULL;
}

static bool parser_at_statement_end(const Parser *parser)
{
    return parser_is(parser, TOKEN_SEMICOLON) || parser_is(parser, TOKEN_END);
}

/* A configuration key: a string literal, or raw text up to '=' or the end. */
static char *parser_parse_config_key(Parser *parser, SourcePosition *position)
{
    const Token *first = parser_current(parser);
    *position = token_position(first);
    if (first->kind == TOKEN_STRING) {
        char *text = parser_text_value(parser, first);
        if (text)
            parser_advance(parser);
        return text;
    }
    if (first->kind == TOKEN_EQUAL) {
        parser_note(parser, "key");
        parser_fail_unexpected(parser);
        return NULL;
    }
    while (!parser_at_last(parser) && !parser_is(parser, TOKEN_EQUAL) &&
           !parser_is(parser, TOKEN_SEMICOLON))
        parser_advance(parser);
    if (parser_is(parser, TOKEN_ERROR)) {
        parser_fail_unexpected(parser);
        return NULL;
    }
    return parser_strndup(parser, first->text, (size_t)(parser_previous_end(parser) - first->text));
}

static AstStatement *parser_parse_set(Parser *parser, const Token *first)
{
    AstStatement *statement = parser_new_statement(parser, AST_STMT_SET, first);
    if (!statement)
        return NULL;
    parser_advance(parser);
    if (parser_at_statement_end(parser))
        return statement;
    statement->set.key = parser_parse_config_key(parser, &statement->set.key_position);
    if (!statement->set.key || !parser_expect(parser, TOKEN_EQUAL))
        return NULL;
    const Token *value = parser_current(parser);
    if (value->kind == TOKEN_STRING) {
        statement->set.value = parser_text_value(parser, value);
        if (!statement->set.value)
            return NULL;
        parser_advance(parser);
        return statement;
    }
    if (parser_at_statement_end(parser)) {
        parser_note(parser, "value");
        parser_fail_unexpected(parser);
        return NULL;
    }
    while (!parser_at_last(parser) && !parser_is(parser, TOKEN_SEMICOLON))
        parser_advance(parser);
    if (parser_is(parser, TOKEN_ERROR)) {
        parser_fail_unexpected(parser);
        return NULL;
    }
    statement->set.value =
        parser_strndup(parser, value->text, (size_t)(parser_previous_end(parser) - value->text));
    return statement->set.value ? statement : NULL;
}

static AstStatement *parser_parse_reset(Parser *parser, const Token *first)
{
    AstStatement *statement = parser_new_statement(parser, AST_STMT_RESET, first);
    if (!statement)
        return NULL;
    parser_advance(parser);
    if (parser_at_statement_end(parser))
        return statement;
    SourcePosition ignored;
    statement->reset.key = parser_parse_config_key(parser, &ignored);
    return statement->reset.key ? statement : NULL;
}

static bool parser_accept_word(Parser *parser, const char *word)
{
    if (token_is_word(parser_current(parser), word)) {
        parser_advance(parser);
        return true;
    }
    parser_note(parser, word);
    return false;
}

/* [[NOT] LIKE|ILIKE 'pattern'] after a SHOW listing. */
static bool parser_parse_show_like(Parser *parser, AstShowLike *like)
{
    const Token *next = parser_peek(parser, 1);
    if (parser_is_keyword(parser, KEYWORD_NOT) &&
        (token_is_keyword(next, KEYWORD_LIKE) || token_is_word(next, "ILIKE"))) {
        parser_advance(parser);
        like->negated = true;
    }
    if (parser_accept_word(parser, "ILIKE"))
        like->ignore_case = true;
    else if (!parser_accept_keyword(parser, KEYWORD_LIKE))
        return true;
    like->pattern = parser_expect_string(parser, "pattern");
    return like->pattern != NULL;
}

/* SHOW TABLES / VIEWS / FUNCTIONS / DATABASES [FROM|IN name] [[NOT] LIKE 'p']. */
static AstStatement *parser_parse_show_listing(Parser *parser, const Token *first,
                                               AstStatementKind kind, bool qualified)
{
    AstStatement *statement = parser_new_statement(parser, kind, first);
    if (!statement)
        return NULL;
    if (qualified &&
        (parser_accept_keyword(parser, KEYWORD_FROM) ||
         parser_accept_keyword(parser, KEYWORD_IN)) &&
        !parser_parse_name(parser, &statement->show.name_parts, "name"))
        return NULL;
    return parser_parse_show_like(parser, &statement->show.like) ? statement : NULL;
}

static AstStatement *parser_parse_show(Parser *parser, const Token *first)
{
    parser_advance(parser);
    static const struct {
        Keyword keyword;
        AstStatementKind kind;
        bool qualified; /* takes FROM|IN name */
    } LISTINGS[] = {
        {KEYWORD_TABLES, AST_STMT_SHOW_TABLES, true},
        {KEYWORD_VIEWS, AST_STMT_SHOW_VIEWS, true},
        {KEYWORD_FUNCTIONS, AST_STMT_SHOW_FUNCTIONS, true},
        {KEYWORD_CATALOGS, AST_STMT_SHOW_CATALOGS, false},
        {KEYWORD_DATABASES, AST_STMT_SHOW_DATABASES, true},
    };
    for (size_t i = 0; i < sizeof LISTINGS / sizeof LISTINGS[0]; i++)
        if (parser_accept_keyword(parser, LISTINGS[i].keyword))
            return parser_parse_show_listing(parser, first, LISTINGS[i].kind,
                                             LISTINGS[i].qualified);
    if (token_is_word(parser_current(parser), "USER") &&
        token_is_keyword(parser_peek(parser, 1), KEYWORD_FUNCTIONS)) {
        parser_advance(parser);
        parser_advance(parser);
        AstStatement *statement =
            parser_parse_show_listing(parser, first, AST_STMT_SHOW_FUNCTIONS, true);
        if (statement)
            statement->show.user = true;
        return statement;
    }
    if (parser_accept_keyword(parser, KEYWORD_COLUMNS)) {
        AstStatement *statement = parser_new_statement(parser, AST_STMT_SHOW_COLUMNS, first);
        if (!statement)
            return NULL;
        if (!parser_accept_keyword(parser, KEYWORD_FROM) &&
            !parser_expect_keyword(parser, KEYWORD_IN))
            return NULL;
        if (!parser_parse_name(parser, &statement->show.name_parts, "table name"))
            return NULL;
        return parser_parse_show_like(parser, &statement->show.like) ? statement : NULL;
    }
    if (parser_accept_word(parser, "CURRENT")) {
        if (parser_accept_keyword(parser, KEYWORD_CATALOG))
            return parser_new_statement(parser, AST_STMT_SHOW_CURRENT_CATALOG, first);
        if (!parser_accept_word(parser, "DATABASE")) {
            parser_fail_unexpected(parser);
            return NULL;
        }
        return parser_new_statement(parser, AST_STMT_SHOW_CURRENT_DATABASE, first);
    }
    if (parser_is_keyword(parser, KEYWORD_FULL) &&
        token_is_word(parser_peek(parser, 1), "MODULES")) {
        parser_advance(parser);
        parser_advance(parser);
        AstStatement *statement = parser_new_statement(parser, AST_STMT_SHOW_MODULES, first);
        if (statement)
            statement->show.full = true;
        return statement;
    }
    if (parser_accept_word(parser, "MODULES"))
        return parser_new_statement(parser, AST_STMT_SHOW_MODULES, first);
    if (parser_accept_word(parser, "JARS"))
        return parser_new_statement(parser, AST_STMT_SHOW_JARS, first);
    if (parser_accept_keyword(parser, KEYWORD_JOBS))
        return parser_new_statement(parser, AST_STMT_SHOW_JOBS, first);
    if (parser_accept_keyword(parser, KEYWORD_JOB)) {
        if (!parser_expect_keyword(parser, KEYWORD_METRICS))
            return NULL;
        AstStatement *statement = parser_new_statement(parser, AST_STMT_SHOW_JOB_METRICS, first);
        if (statement && parser_is(parser, TOKEN_STRING)) {
            const Token *id = parser_current(parser);
            statement->job.id_position = (SourcePosition){id->line, id->column};
            statement->job.id = parser_expect_string(parser, "job id string");
        }
        return statement;
    }
    if (parser_accept_keyword(parser, KEYWORD_CREATE)) {
        AstStatement *statement = parser_new_statement(parser, AST_STMT_SHOW_CREATE, first);
        if (!statement)
            return NULL;
        if (parser_accept_keyword(parser, KEYWORD_VIEW))
            statement->show_create.is_view = true;
        else if (!parser_expect_keyword(parser, KEYWORD_TABLE))
            return NULL;
        return parser_parse_name(parser, &statement->show_create.name_parts, "name") ? statement
                                                                                     : NULL;
    }
    parser_fail_unexpected(parser);
    return NULL;
}

/*
 * Flink SQL statements joinery does not run, by their leading words: rejected
 * with their name at the statement's position rather than as a syntax error.
 */
static bool parser_reject_unsupported(Parser *parser, const Token *first)
{
    static const char *const STATEMENTS[][4] = {
        {"CREATE", "CATALOG"},
        {"CREATE", "DATABASE"},
        {"CREATE", "MATERIALIZED", "TABLE"},
        {"CREATE", "MODEL"},
        {"CREATE", "OR", "REPLACE"},
        {"CREATE", "TEMPORARY", "MODEL"},
        {"DROP", "CATALOG"},
        {"DROP", "DATABASE"},
        {"DROP", "MATERIALIZED", "TABLE"},
        {"DROP", "MODEL"},
        {"ALTER", "MATERIALIZED", "TABLE"},
        {"ALTER", "TABLE"},
        {"ALTER", "VIEW"},
        {"ALTER", "DATABASE"},
        {"ALTER", "CATALOG"},
        {"ALTER", "FUNCTION"},
        {"ALTER", "MODEL"},
        {"ALTER"},
        {"LOAD", "MODULE"},
        {"UNLOAD", "MODULE"},
        {"USE", "MODULES"},
        {"ADD", "JAR"},
        {"REMOVE", "JAR"},
        {"EXECUTE", "INSERT"},
        {"EXECUTE", "PLAN"},
        {"EXECUTE"},
        {"COMPILE", "PLAN"},
        {"CALL"},
        {"TRUNCATE", "TABLE"},
        {"DELETE", "FROM"},
        {"UPDATE"},
        {"DESCRIBE", "CATALOG"},
        {"DESCRIBE", "DATABASE"},
        {"DESCRIBE", "FUNCTION"},
        {"DESCRIBE", "MODEL"},
        {"DESCRIBE", "EXTENDED"},
        {"DESC", "CATALOG"},
        {"DESC", "DATABASE"},
        {"DESC", "FUNCTION"},
        {"DESC", "MODEL"},
        {"DESC", "EXTENDED"},
        {"SHOW", "CREATE", "CATALOG"},
        {"SHOW", "CREATE", "MATERIALIZED", "TABLE"},
        {"SHOW", "CREATE", "MODEL"},
        {"SHOW", "MATERIALIZED", "TABLES"},
        {"SHOW", "PARTITIONS"},
        {"SHOW", "PROCEDURES"},
        {"SHOW", "MODELS"},
        {"EXPLAIN", "EXECUTE"},
        {"EXPLAIN", "CREATE"},
    };
    for (size_t i = 0; i < sizeof STATEMENTS / sizeof STATEMENTS[0]; i++) {
        size_t words = 0;
        while (words < 4 && STATEMENTS[i][words] &&
               token_is_word(parser_peek(parser, words), STATEMENTS[i][words]))
            words++;
        if (words == 4 || !STATEMENTS[i][words]) {
            char name[96] = "";
            for (size_t w = 0; w < words; w++) {
                strncat(name, w ? " " : "", sizeof name - strlen(name) - 1);
                strncat(name, STATEMENTS[i][w], sizeof name - strlen(name) - 1);
            }
            parser_fail_at(parser, first->line, first->column, JOINERY_ERROR_UNSUPPORTED,
                           "%s is not supported yet", name);
            return true;
        }
    }
    return false;
}

/*
 * STATEMENT SET BEGIN insert; [insert; ...] END (Flink's SqlStatementSet), the
 * current token at STATEMENT: only INSERT statements, each ended by ';', at
 * least one.
 */
static AstStatement *parser_parse_statement_set(Parser *parser, const Token *first)
{
    AstStatement *statement = parser_new_statement(parser, AST_STMT_STATEMENT_SET, first);
    if (!statement)
        return NULL;
    parser_advance(parser); /* STATEMENT */
    if (!parser_expect_keyword(parser, KEYWORD_SET))
        return NULL;
    if (!token_is_word(parser_current(parser), "BEGIN")) {
        parser_note(parser, "BEGIN");
        parser_fail_unexpected(parser);
        return NULL;
    }
    parser_advance(parser);
    for (;;) {
        const Token *inner = parser_current(parser);
        if (statement->statement_set.inserts.count && token_is_word(inner, "END")) {
            parser_advance(parser);
            return statement;
        }
        if (!token_is_keyword(inner, KEYWORD_INSERT)) {
            parser_note(parser, "INSERT");
            if (statement->statement_set.inserts.count)
                parser_note(parser, "END");
            parser_fail_unexpected(parser);
            return NULL;
        }
        AstStatement *insert = parser_parse_insert(parser, inner);
        if (!insert || !ast_list_push(parser, &statement->statement_set.inserts, insert))
            return NULL;
        if (!parser_is(parser, TOKEN_SEMICOLON)) {
            parser_note(parser, "';'");
            parser_fail_unexpected(parser);
            return NULL;
        }
        parser_advance(parser);
    }
}

static AstStatement *parser_parse_explain(Parser *parser, const Token *first)
{
    AstStatement *statement = parser_new_statement(parser, AST_STMT_EXPLAIN, first);
    if (!statement)
        return NULL;
    parser_advance(parser);
    static const struct {
        Keyword keyword;
        unsigned bit;
    } DETAILS[] = {
        {KEYWORD_ESTIMATED_COST, AST_EXPLAIN_ESTIMATED_COST},
        {KEYWORD_CHANGELOG_MODE, AST_EXPLAIN_CHANGELOG_MODE},
        {KEYWORD_PLAN_ADVICE, AST_EXPLAIN_PLAN_ADVICE},
        {KEYWORD_JSON_EXECUTION_PLAN, AST_EXPLAIN_JSON_EXECUTION_PLAN},
    };
    if (parser_accept_keyword(parser, KEYWORD_PLAN)) {
        if (!parser_expect_keyword(parser, KEYWORD_FOR))
            return NULL;
    } else {
        for (;;) {
            bool found = false;
            /* joinery's FORMAT DOT, among the details */
            if (token_is_word(parser_current(parser), "FORMAT") &&
                token_is_word(parser_peek(parser, 1), "DOT")) {
                parser_advance(parser);
                parser_advance(parser);
                statement->explain.details |= AST_EXPLAIN_FORMAT_DOT;
                found = true;
            }
            for (size_t i = 0; i < sizeof DETAILS / sizeof DETAILS[0] && !found; i++)
                if (parser_accept_keyword(parser, DETAILS[i].keyword)) {
                    statement->explain.details |= DETAILS[i].bit;
                    found = true;
                }
            if (!found)
                break;
            if (parser_accept(parser, TOKEN_COMMA))
                continue;
            break;
        }
    }
    const Token *inner = parser_current(parser);
    if (token_is_keyword(inner, KEYWORD_INSERT))
        statement->explain.statement = parser_parse_insert(parser, inner);
    else if (token_is_word(inner, "STATEMENT") &&
             token_is_keyword(parser_peek(parser, 1), KEYWORD_SET))
        statement->explain.statement = parser_parse_statement_set(parser, inner);
    else if (token_is_keyword(inner, KEYWORD_SELECT) || token_is_keyword(inner, KEYWORD_WITH) ||
             token_is_keyword(inner, KEYWORD_VALUES) || inner->kind == TOKEN_LEFT_PAREN)
        statement->explain.statement = parser_parse_query_statement(parser, inner);
    else {
        parser_note(parser, "SELECT");
        parser_note(parser, "INSERT");
        parser_fail_unexpected(parser);
        return NULL;
    }
    return statement->explain.statement ? statement : NULL;
}

/* STOP JOB '<id>' [WITH SAVEPOINT] [WITH DRAIN] (Flink's SqlStopJob). */
static AstStatement *parser_parse_stop_job(Parser *parser, const Token *first)
{
    parser_advance(parser);
    if (!parser_expect_keyword(parser, KEYWORD_JOB))
        return NULL;
    AstStatement *statement = parser_new_statement(parser, AST_STMT_STOP_JOB, first);
    if (!statement)
        return NULL;
    const Token *id = parser_current(parser);
    statement->job.id_position = (SourcePosition){id->line, id->column};
    statement->job.id = parser_expect_string(parser, "job id string");
    if (!statement->job.id)
        return NULL;
    if (token_is_keyword(parser_current(parser), KEYWORD_WITH) &&
        token_is_word(parser_peek(parser, 1), "SAVEPOINT")) {
        parser_advance(parser);
        parser_advance(parser);
        statement->job.with_savepoint = true;
    }
    if (token_is_keyword(parser_current(parser), KEYWORD_WITH) &&
        token_is_word(parser_peek(parser, 1), "DRAIN")) {
        const Token *drain = parser_current(parser);
        parser_advance(parser);
        parser_advance(parser);
        if (!statement->job.with_savepoint) {
            parser_fail_at(parser, drain->line, drain->column, JOINERY_ERROR_VALIDATE,
                           "WITH DRAIN could only be used after WITH SAVEPOINT.");
            return NULL;
        }
        statement->job.with_drain = true;
    }
    return statement;
}

static AstStatement *parser_parse_statement(Parser *parser)
{
    const Token *first = parser_current(parser);
    /* before the unsupported EXECUTE forms (EXECUTE PLAN, EXECUTE INSERT) */
    if (token_is_word(first, "EXECUTE") && token_is_word(parser_peek(parser, 1), "STATEMENT")) {
        parser_advance(parser);
        return parser_parse_statement_set(parser, first);
    }
    if (token_is_word(first, "END")) {
        parser_advance(parser);
        return parser_new_statement(parser, AST_STMT_END_STATEMENT_SET, first);
    }
    if (parser_reject_unsupported(parser, first))
        return NULL;
    if (first->kind == TOKEN_KEYWORD) {
        AstStatement *statement = NULL;
        switch (first->keyword) {
        case KEYWORD_SELECT:
        case KEYWORD_WITH:
        case KEYWORD_VALUES:
            return parser_parse_query_statement(parser, first);
        case KEYWORD_INSERT:
            return parser_parse_insert(parser, first);
        case KEYWORD_CREATE:
            return parser_parse_create(parser, first);
        case KEYWORD_DROP:
            return parser_parse_drop(parser, first);
        case KEYWORD_SET:
            return parser_parse_set(parser, first);
        case KEYWORD_RESET:
            return parser_parse_reset(parser, first);
        case KEYWORD_SHOW:
            return parser_parse_show(parser, first);
        case KEYWORD_EXPLAIN:
            return parser_parse_explain(parser, first);
        case KEYWORD_DESCRIBE:
        case KEYWORD_DESC:
            if (token_is_keyword(parser_peek(parser, 1), KEYWORD_JOB) &&
                parser_peek(parser, 2)->kind == TOKEN_STRING) {
                statement = parser_new_statement(parser, AST_STMT_DESCRIBE_JOB, first);
                if (!statement)
                    return NULL;
                parser_advance(parser);
                parser_advance(parser);
                const Token *id = parser_current(parser);
                statement->job.id_position = (SourcePosition){id->line, id->column};
                statement->job.id = parser_expect_string(parser, "job id string");
                return statement->job.id ? statement : NULL;
            }
            statement = parser_new_statement(parser, AST_STMT_DESCRIBE, first);
            if (!statement)
                return NULL;
            parser_advance(parser);
            return parser_parse_name(parser, &statement->describe.name_parts, "table name")
                       ? statement
                       : NULL;
        case KEYWORD_HELP:
            parser_advance(parser);
            return parser_new_statement(parser, AST_STMT_HELP, first);
        case KEYWORD_QUIT:
        case KEYWORD_EXIT:
            parser_advance(parser);
            return parser_new_statement(parser, AST_STMT_QUIT, first);
        case KEYWORD_ANALYZE:
            statement = parser_new_statement(parser, AST_STMT_ANALYZE, first);
            if (!statement)
                return NULL;
            parser_advance(parser);
            if (!parser_expect_keyword(parser, KEYWORD_TABLE) ||
                !parser_parse_name(parser, &statement->analyze.name_parts, "table name") ||
                !parser_expect_keyword(parser, KEYWORD_COMPUTE) ||
                !parser_expect_keyword(parser, KEYWORD_STATISTICS))
                return NULL;
            if (parser_accept_keyword(parser, KEYWORD_FOR)) {
                if (!parser_expect_keyword(parser, KEYWORD_ALL) ||
                    !parser_expect_keyword(parser, KEYWORD_COLUMNS))
                    return NULL;
                statement->analyze.all_columns = true;
            }
            return statement;
        case KEYWORD_USE:
            statement = parser_new_statement(parser, AST_STMT_USE, first);
            if (!statement)
                return NULL;
            parser_advance(parser);
            if (parser_is_keyword(parser, KEYWORD_CATALOG) &&
                token_is_identifier(parser_peek(parser, 1))) {
                parser_advance(parser);
                statement->use.catalog = true;
            }
            return parser_parse_name(parser, &statement->use.name_parts, "name") ? statement : NULL;
        default:
            break;
        }
    } else if (first->kind == TOKEN_LEFT_PAREN) {
        return parser_parse_query_statement(parser, first);
    } else if (token_is_word(first, "STOP")) {
        return parser_parse_stop_job(parser, first);
    } else if (token_is_word(first, "BEGIN") &&
               token_is_word(parser_peek(parser, 1), "STATEMENT")) {
        parser_advance(parser);
        parser_advance(parser);
        if (!parser_expect_keyword(parser, KEYWORD_SET))
            return NULL;
        return parser_new_statement(parser, AST_STMT_BEGIN_STATEMENT_SET, first);
    }
    if (first->kind == TOKEN_END || first->kind == TOKEN_SEMICOLON) {
        parser_fail_at(parser, first->line, first->column, JOINERY_ERROR_PARSE,
                       "Syntax error: empty statement");
        return NULL;
    }
    static const Keyword STARTS[] = {KEYWORD_SELECT, KEYWORD_INSERT,   KEYWORD_CREATE,
                                     KEYWORD_DROP,   KEYWORD_SET,      KEYWORD_RESET,
                                     KEYWORD_SHOW,   KEYWORD_DESCRIBE, KEYWORD_EXPLAIN,
                                     KEYWORD_USE,    KEYWORD_WITH,     KEYWORD_VALUES};
    for (size_t i = 0; i < sizeof STARTS / sizeof STARTS[0]; i++)
        parser_note(parser, keyword_name(STARTS[i]));
    parser_fail_unexpected(parser);
    return NULL;
}

/* Lexes text into parser->tokens (ending in TOKEN_END or TOKEN_ERROR). */
static int parser_tokenize(Parser *parser, const char *text, size_t length, int line, int column)
{
    parser->text = text;
    parser->length = length;
    Lexer lexer;
    lexer_init(&lexer, text, length, line, column, parser->arena);
    size_t capacity = 64;
    parser->tokens = arena_alloc(parser->arena, capacity * sizeof(Token));
    parser->token_count = 0;
    for (;;) {
        if (!parser->tokens)
            break;
        if (parser->token_count == capacity) {
            Token *grown = arena_alloc(parser->arena, capacity * 2 * sizeof(Token));
            if (!grown) {
                parser->tokens = NULL;
                break;
            }
            memcpy(grown, parser->tokens, capacity * sizeof(Token));
            parser->tokens = grown;
            capacity *= 2;
        }
        Token *token = &parser->tokens[parser->token_count];
        diag_clear(&parser->lexer_diag);
        int status = lexer_next_token(&lexer, token, &parser->lexer_diag);
        parser->token_count++;
        if (status == JOINERY_ERROR_NO_MEMORY) {
            parser->tokens = NULL;
            break;
        }
        if (token->kind == TOKEN_END || token->kind == TOKEN_ERROR)
            break;
    }
    if (!parser->tokens) {
        parser->failed = true;
        parser->status = JOINERY_ERROR_NO_MEMORY;
        return diag_error_at(parser->diag, JOINERY_ERROR_NO_MEMORY, line, column, "out of memory");
    }
    parser->position = 0;
    parser_skip_hints(parser);
    return JOINERY_OK;
}

int sql_parse_statement(const char *text, size_t length, int first_line, int first_column,
                        Arena *arena, AstStatement **result, Diag *diag)
{
    if (result)
        *result = NULL;
    if (!text)
        length = 0;
    Parser parser;
    memset(&parser, 0, sizeof parser);
    ParserCache cache;
    memset(&cache, 0, sizeof cache);
    parser.arena = arena;
    parser.diag = diag;
    parser.cache = &cache;
    parser.previous = SIZE_MAX;
    parser.expected_at = SIZE_MAX;
    if (parser_tokenize(&parser, text ? text : "", length, first_line, first_column) != JOINERY_OK)
        return parser.status;
    AstStatement *statement = parser_parse_statement(&parser);
    if (statement && !parser.failed) {
        if (parser_is(&parser, TOKEN_SEMICOLON))
            parser_advance(&parser);
        if (!parser_is(&parser, TOKEN_END)) {
            parser_note(&parser, "end of statement");
            parser_fail_unexpected(&parser);
        }
    }
    if (parser.failed || !statement) {
        if (!parser.failed) /* defensive: a path that returned NULL without an error */
            parser_fail_unexpected(&parser);
        return parser.status;
    }
    /* the loops above built chains as long as the statement: bound every tree */
    JoineryStatus depth = sql_check_depth(statement, diag);
    if (depth != JOINERY_OK)
        return depth;
    if (result)
        *result = statement;
    return JOINERY_OK;
}

const char *const *sql_keywords(void)
{
    static const char *const KEYWORDS[] = {
#define JOINERY_KEYWORD_NAME(name, reserved) #name,
        JOINERY_KEYWORD_LIST(JOINERY_KEYWORD_NAME)
#undef JOINERY_KEYWORD_NAME
            NULL,
    };
    return KEYWORDS;
}
