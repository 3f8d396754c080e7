/*
 * lexer.h - splits Flink SQL text into tokens.
 *
 * Invariants:
 * - The lexer never reads outside text[0..length-1]; text need not be
 *   NUL-terminated.
 * - Every token carries the 1-based line and column of its first character in
 *   the caller's script coordinates: the lexer starts at (first_line,
 *   first_column); a '\n' advances the line and resets the column to 1; every
 *   other character (a UTF-8 sequence counts as one) advances the column by 1.
 * - Whitespace, `-- line` comments and `/ * block * /` comments are skipped;
 *   hint comments `/ *+ ... * /` are returned as TOKEN_HINT whose text is the
 *   content between `/ *+` and `* /` (the parser lexes it again).
 * - Words are matched case-insensitively against the keyword table; a word
 *   that is a keyword becomes TOKEN_KEYWORD (whether it may still serve as an
 *   identifier is the parser's business, see keyword_is_reserved).
 * - Decoded values (string contents, backtick identifiers) are copied into the
 *   arena; everything else points into the original text.
 */
#ifndef JOINERY_SQL_LEXER_H
#define JOINERY_SQL_LEXER_H

#include <stdbool.h>
#include <stddef.h>

#include "engine/base/arena.h"
#include "engine/base/diag.h"

typedef enum TokenKind {
    TOKEN_END,           /* end of input */
    TOKEN_IDENTIFIER,    /* plain word that is no keyword, or `quoted` (quoted = true) */
    TOKEN_KEYWORD,       /* a word from the keyword table (see keyword) */
    TOKEN_INTEGER,       /* 123 */
    TOKEN_DECIMAL,       /* 1.5, .5, 1. */
    TOKEN_DOUBLE,        /* 1.5E3, 2e-1 */
    TOKEN_STRING,        /* 'text' with '' escapes; value holds the unescaped text */
    TOKEN_BINARY_STRING, /* X'0A1B': value holds the hex digits (not checked here) */
    TOKEN_HINT,          /* a hint comment; text/length cover the content only */
    TOKEN_EQUAL,         /* = */
    TOKEN_NOT_EQUAL,     /* <> or != */
    TOKEN_LESS,          /* < */
    TOKEN_LESS_EQUAL,    /* <= */
    TOKEN_GREATER,       /* > */
    TOKEN_GREATER_EQUAL, /* >= */
    TOKEN_PLUS,          /* + */
    TOKEN_MINUS,         /* - */
    TOKEN_STAR,          /* * */
    TOKEN_SLASH,         /* / */
    TOKEN_PERCENT,       /* % */
    TOKEN_CONCAT,        /* || */
    TOKEN_DOT,           /* . */
    TOKEN_COMMA,         /* , */
    TOKEN_LEFT_PAREN,    /* ( */
    TOKEN_RIGHT_PAREN,   /* ) */
    TOKEN_LEFT_BRACKET,  /* [ */
    TOKEN_RIGHT_BRACKET, /* ] */
    TOKEN_SEMICOLON,     /* ; */
    TOKEN_ARROW,         /* => (a named argument: SIZE => INTERVAL ...) */
    TOKEN_ERROR,         /* a lexical error; the diagnostic says which */
} TokenKind;

/*
 * Every keyword as X(NAME, reserved), sorted by name (keyword_lookup bisects).
 * Reserved words follow Calcite roughly; words only meaningful in one place
 * (type names, interval units, SHOW/EXPLAIN words) stay usable as identifiers.
 */
#define JOINERY_KEYWORD_LIST(X)                                                                    \
    X(ALL, true)                                                                                   \
    X(ANALYZE, false)                                                                              \
    X(AND, true)                                                                                   \
    X(ARRAY, false)                                                                                \
    X(AS, true)                                                                                    \
    X(ASC, false)                                                                                  \
    X(BETWEEN, true)                                                                               \
    X(BIGINT, false)                                                                               \
    X(BINARY, false)                                                                               \
    X(BOOLEAN, false)                                                                              \
    X(BY, true)                                                                                    \
    X(BYTES, false)                                                                                \
    X(CASE, true)                                                                                  \
    X(CAST, true)                                                                                  \
    X(CATALOG, false)                                                                              \
    X(CATALOGS, false)                                                                             \
    X(CHANGELOG_MODE, false)                                                                       \
    X(CHAR, false)                                                                                 \
    X(COLUMNS, false)                                                                              \
    X(COMMENT, false)                                                                              \
    X(COMPUTE, false)                                                                              \
    X(CONSTRAINT, true)                                                                            \
    X(CREATE, true)                                                                                \
    X(CROSS, true)                                                                                 \
    X(CURRENT_DATE, true)                                                                          \
    X(CURRENT_ROW_TIMESTAMP, false)                                                                \
    X(CURRENT_TIME, true)                                                                          \
    X(CURRENT_TIMESTAMP, true)                                                                     \
    X(DATABASES, false)                                                                            \
    X(DATE, true)                                                                                  \
    X(DAY, false)                                                                                  \
    X(DAYS, false)                                                                                 \
    X(DEC, false)                                                                                  \
    X(DECIMAL, false)                                                                              \
    X(DESC, false)                                                                                 \
    X(DESCRIBE, false)                                                                             \
    X(DISTINCT, true)                                                                              \
    X(DOUBLE, false)                                                                               \
    X(DROP, true)                                                                                  \
    X(ELSE, true)                                                                                  \
    X(END, true)                                                                                   \
    X(ENFORCED, false)                                                                             \
    X(ESCAPE, true)                                                                                \
    X(ESTIMATED_COST, false)                                                                       \
    X(EXCEPT, true)                                                                                \
    X(EXISTS, true)                                                                                \
    X(EXIT, false)                                                                                 \
    X(EXPLAIN, true)                                                                               \
    X(FALSE, true)                                                                                 \
    X(FIRST, false)                                                                                \
    X(FLOAT, false)                                                                                \
    X(FOR, true)                                                                                   \
    X(FROM, true)                                                                                  \
    X(FULL, true)                                                                                  \
    X(FUNCTIONS, false)                                                                            \
    X(GROUP, true)                                                                                 \
    X(HAVING, true)                                                                                \
    X(HELP, false)                                                                                 \
    X(HOUR, false)                                                                                 \
    X(HOURS, false)                                                                                \
    X(IF, false)                                                                                   \
    X(IN, true)                                                                                    \
    X(INNER, true)                                                                                 \
    X(INSERT, true)                                                                                \
    X(INT, false)                                                                                  \
    X(INTEGER, false)                                                                              \
    X(INTERSECT, true)                                                                             \
    X(INTERVAL, true)                                                                              \
    X(INTO, true)                                                                                  \
    X(IS, true)                                                                                    \
    X(JOB, false)                                                                                  \
    X(JOBS, false)                                                                                 \
    X(JOIN, true)                                                                                  \
    X(JSON_EXECUTION_PLAN, false)                                                                  \
    X(KEY, false)                                                                                  \
    X(LAST, false)                                                                                 \
    X(LATERAL, true)                                                                               \
    X(LEFT, true)                                                                                  \
    X(LIKE, true)                                                                                  \
    X(LIMIT, true)                                                                                 \
    X(LOCAL, false)                                                                                \
    X(LOCALTIMESTAMP, true)                                                                        \
    X(MAP, false)                                                                                  \
    X(METADATA, false)                                                                             \
    X(METRICS, false)                                                                              \
    X(MINUTE, false)                                                                               \
    X(MINUTES, false)                                                                              \
    X(MONTH, false)                                                                                \
    X(MONTHS, false)                                                                               \
    X(MULTISET, false)                                                                             \
    X(NATURAL, true)                                                                               \
    X(NOT, true)                                                                                   \
    X(NULL, true)                                                                                  \
    X(NULLS, false)                                                                                \
    X(NUMERIC, false)                                                                              \
    X(OF, true)                                                                                    \
    X(ON, true)                                                                                    \
    X(OR, true)                                                                                    \
    X(ORDER, true)                                                                                 \
    X(OUTER, true)                                                                                 \
    X(OVERWRITE, false)                                                                            \
    X(PARTITIONED, false)                                                                          \
    X(PLAN, false)                                                                                 \
    X(PLAN_ADVICE, false)                                                                          \
    X(PRECISION, false)                                                                            \
    X(PRIMARY, true)                                                                               \
    X(QUIT, false)                                                                                 \
    X(RAW, false)                                                                                  \
    X(REAL, false)                                                                                 \
    X(RESET, true)                                                                                 \
    X(RIGHT, true)                                                                                 \
    X(ROW, false)                                                                                  \
    X(SECOND, false)                                                                               \
    X(SECONDS, false)                                                                              \
    X(SELECT, true)                                                                                \
    X(SET, true)                                                                                   \
    X(SHOW, true)                                                                                  \
    X(SMALLINT, false)                                                                             \
    X(STATISTICS, false)                                                                           \
    X(STRING, false)                                                                               \
    X(SYMMETRIC, true)                                                                             \
    X(SYSTEM_TIME, true)                                                                           \
    X(TABLE, true)                                                                                 \
    X(TABLES, false)                                                                               \
    X(TEMPORARY, false)                                                                            \
    X(THEN, true)                                                                                  \
    X(TIME, true)                                                                                  \
    X(TIMESTAMP, true)                                                                             \
    X(TIMESTAMP_LTZ, false)                                                                        \
    X(TINYINT, false)                                                                              \
    X(TO, true)                                                                                    \
    X(TRUE, true)                                                                                  \
    X(TRY_CAST, false)                                                                             \
    X(UNION, true)                                                                                 \
    X(UNKNOWN, true)                                                                               \
    X(USE, false)                                                                                  \
    X(USING, true)                                                                                 \
    X(VALUES, true)                                                                                \
    X(VARBINARY, false)                                                                            \
    X(VARCHAR, false)                                                                              \
    X(VIEW, false)                                                                                 \
    X(VIEWS, false)                                                                                \
    X(VIRTUAL, false)                                                                              \
    X(WATERMARK, false)                                                                            \
    X(WHEN, true)                                                                                  \
    X(WHERE, true)                                                                                 \
    X(WITH, true)                                                                                  \
    X(WITHOUT, false)                                                                              \
    X(YEAR, false)                                                                                 \
    X(YEARS, false)                                                                                \
    X(ZONE, false)                                                                                 \
    /* end of list */

typedef enum Keyword {
    KEYWORD_NONE = 0,
#define JOINERY_KEYWORD_ENUM(name, reserved) KEYWORD_##name,
    JOINERY_KEYWORD_LIST(JOINERY_KEYWORD_ENUM)
#undef JOINERY_KEYWORD_ENUM
        KEYWORD_COUNT
} Keyword;

typedef struct Token {
    TokenKind kind;
    Keyword keyword;     /* TOKEN_KEYWORD only, else KEYWORD_NONE */
    bool quoted;         /* TOKEN_IDENTIFIER written in backticks */
    const char *text;    /* first character in the source (hint: first content char) */
    size_t length;       /* source bytes of the token (hint: content bytes) */
    char *value;         /* STRING and IDENTIFIER: decoded, NUL-terminated, in the arena */
    size_t value_length; /* bytes of value: a string literal may hold NUL bytes, so its
                            value is length-delimited (a quoted identifier may not) */
    int line;            /* 1-based position of the first character */
    int column;
    int end_line; /* position just after the token */
    int end_column;
    int content_line; /* HINT: position of the first content character */
    int content_column;
} Token;

typedef struct Lexer {
    const char *text;
    size_t length;
    size_t offset; /* next byte to read */
    int line;
    int column;
    Arena *arena;
} Lexer;

/* Prepares to read text[0..length-1], which starts at (first_line, first_column). */
void lexer_init(Lexer *lexer, const char *text, size_t length, int first_line, int first_column,
                Arena *arena);

/*
 * Reads the next token into *token. Returns JOINERY_OK, or JOINERY_ERROR_PARSE
 * (token->kind == TOKEN_ERROR, diag filled at the offending position) for an
 * unterminated string, quoted identifier or comment, or a character that starts
 * no token; JOINERY_ERROR_NO_MEMORY when the arena is exhausted. At the end of
 * the input it keeps returning TOKEN_END.
 */
int lexer_next_token(Lexer *lexer, Token *token, Diag *diag);

/* The keyword a word spells (case-insensitive), or KEYWORD_NONE. */
Keyword keyword_lookup(const char *word, size_t length);
/* The upper-case spelling of a keyword ("" for KEYWORD_NONE). */
const char *keyword_name(Keyword keyword);
/* True for keywords that cannot be used as bare identifiers. */
bool keyword_is_reserved(Keyword keyword);
/* A short printable name for a token kind, e.g. "','" or "identifier". */
const char *token_kind_describe(TokenKind kind);

#endif
