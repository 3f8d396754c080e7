/*
 * check_lexer.c - Check suite for the SQL lexer (engine/sql/lexer.c): token
 * kinds, keyword lookup, literals and escapes, comments and hints, script
 * positions (lines, columns, UTF-8, offsets) and lexical errors.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "engine/sql/lexer.h"

enum { MAX_TOKENS = 64 };

static Arena test_arena;

static void setup(void)
{
    arena_init(&test_arena, 0);
}

static void teardown(void)
{
    arena_destroy(&test_arena);
}

/* Lexes text (from line 1, column 1) into tokens until END or ERROR; returns the count. */
static size_t lex_all(const char *text, Token *tokens, Diag *diag)
{
    Lexer lexer;
    lexer_init(&lexer, text, strlen(text), 1, 1, &test_arena);
    diag_clear(diag);
    size_t count = 0;
    while (count < MAX_TOKENS) {
        lexer_next_token(&lexer, &tokens[count], diag);
        TokenKind kind = tokens[count++].kind;
        if (kind == TOKEN_END || kind == TOKEN_ERROR)
            break;
    }
    return count;
}

START_TEST(test_operators)
{
    Token tokens[MAX_TOKENS];
    Diag diag;
    size_t count = lex_all("= <> != < <= > >= + - * / % || . , ( ) ;", tokens, &diag);
    TokenKind expected[] = {
        TOKEN_EQUAL,      TOKEN_NOT_EQUAL,     TOKEN_NOT_EQUAL, TOKEN_LESS,  TOKEN_LESS_EQUAL,
        TOKEN_GREATER,    TOKEN_GREATER_EQUAL, TOKEN_PLUS,      TOKEN_MINUS, TOKEN_STAR,
        TOKEN_SLASH,      TOKEN_PERCENT,       TOKEN_CONCAT,    TOKEN_DOT,   TOKEN_COMMA,
        TOKEN_LEFT_PAREN, TOKEN_RIGHT_PAREN,   TOKEN_SEMICOLON, TOKEN_END};
    ck_assert_uint_eq(count, sizeof expected / sizeof expected[0]);
    for (size_t i = 0; i < count; i++)
        ck_assert_int_eq(tokens[i].kind, expected[i]);
    ck_assert_int_eq(diag.status, JOINERY_OK);
}
END_TEST

START_TEST(test_words_and_keywords)
{
    Token tokens[MAX_TOKENS];
    Diag diag;
    size_t count = lex_all("select Order_Id FrOm `my table` `a``b` user_id $x", tokens, &diag);
    /* '$' cannot start a word */
    ck_assert_int_eq(tokens[0].kind, TOKEN_KEYWORD);
    ck_assert_int_eq(tokens[0].keyword, KEYWORD_SELECT);
    ck_assert_int_eq(tokens[1].kind, TOKEN_IDENTIFIER);
    ck_assert_str_eq(tokens[1].value, "Order_Id");
    ck_assert(!tokens[1].quoted);
    ck_assert_int_eq(tokens[2].keyword, KEYWORD_FROM);
    ck_assert_int_eq(tokens[3].kind, TOKEN_IDENTIFIER);
    ck_assert(tokens[3].quoted);
    ck_assert_str_eq(tokens[3].value, "my table");
    ck_assert_str_eq(tokens[4].value, "a`b");
    ck_assert_str_eq(tokens[5].value, "user_id");
    ck_assert_int_eq(tokens[count - 1].kind, TOKEN_ERROR);
    ck_assert_int_eq(diag.status, JOINERY_ERROR_PARSE);
    ck_assert_int_eq(diag.column, 48);
    ck_assert_str_eq(diag.message, "Syntax error: unexpected character '$'");
}
END_TEST

START_TEST(test_keyword_table)
{
    ck_assert_int_eq(keyword_lookup("select", 6), KEYWORD_SELECT);
    ck_assert_int_eq(keyword_lookup("SeLeCt", 6), KEYWORD_SELECT);
    ck_assert_int_eq(keyword_lookup("current_row_timestamp", 21), KEYWORD_CURRENT_ROW_TIMESTAMP);
    ck_assert_int_eq(keyword_lookup("selects", 7), KEYWORD_NONE);
    ck_assert_int_eq(keyword_lookup("", 0), KEYWORD_NONE);
    ck_assert_int_eq(keyword_lookup("user_id", 7), KEYWORD_NONE);
    ck_assert_str_eq(keyword_name(KEYWORD_WATERMARK), "WATERMARK");
    ck_assert_str_eq(keyword_name(KEYWORD_NONE), "");
    ck_assert(keyword_is_reserved(KEYWORD_SELECT));
    ck_assert(keyword_is_reserved(KEYWORD_TIMESTAMP));
    ck_assert(!keyword_is_reserved(KEYWORD_COMMENT));
    ck_assert(!keyword_is_reserved(KEYWORD_STRING));
    ck_assert(!keyword_is_reserved(KEYWORD_NONE));
    /* every keyword finds itself (the table is sorted for bisection) */
    for (int keyword = KEYWORD_NONE + 1; keyword < KEYWORD_COUNT; keyword++) {
        const char *name = keyword_name((Keyword)keyword);
        ck_assert_int_eq(keyword_lookup(name, strlen(name)), keyword);
    }
}
END_TEST

START_TEST(test_numbers)
{
    Token tokens[MAX_TOKENS];
    Diag diag;
    lex_all("42 12.50 .5 1. 1.5E3 2e-1 7e 0x", tokens, &diag);
    ck_assert_int_eq(tokens[0].kind, TOKEN_INTEGER);
    ck_assert_uint_eq(tokens[0].length, 2);
    ck_assert_int_eq(tokens[1].kind, TOKEN_DECIMAL);
    ck_assert_uint_eq(tokens[1].length, 5);
    ck_assert_int_eq(tokens[2].kind, TOKEN_DECIMAL);
    ck_assert_int_eq(tokens[3].kind, TOKEN_DECIMAL);
    ck_assert_int_eq(tokens[4].kind, TOKEN_DOUBLE);
    ck_assert_uint_eq(tokens[4].length, 5);
    ck_assert_int_eq(tokens[5].kind, TOKEN_DOUBLE);
    ck_assert_uint_eq(tokens[5].length, 4);
    /* "7e" is the integer 7 then the word e */
    ck_assert_int_eq(tokens[6].kind, TOKEN_INTEGER);
    ck_assert_int_eq(tokens[7].kind, TOKEN_IDENTIFIER);
    ck_assert_int_eq(tokens[8].kind, TOKEN_INTEGER);
    ck_assert_int_eq(tokens[9].kind, TOKEN_IDENTIFIER);
}
END_TEST

START_TEST(test_strings)
{
    Token tokens[MAX_TOKENS];
    Diag diag;
    lex_all("'abc' 'it''s' '' 'multi\nline' 'x'", tokens, &diag);
    ck_assert_int_eq(tokens[0].kind, TOKEN_STRING);
    ck_assert_str_eq(tokens[0].value, "abc");
    ck_assert_uint_eq(tokens[0].length, 5);
    ck_assert_str_eq(tokens[1].value, "it's");
    ck_assert_str_eq(tokens[2].value, "");
    ck_assert_str_eq(tokens[3].value, "multi\nline");
    ck_assert_int_eq(tokens[4].line, 2);
    ck_assert_int_eq(tokens[4].column, 7);
    ck_assert_int_eq(diag.status, JOINERY_OK);
}
END_TEST

/* A NUL byte inside a string literal is part of it: values are length-delimited. */
START_TEST(test_string_with_nul)
{
    static const char text[] = "'a\0b' 'x'";
    Lexer lexer;
    Diag diag;
    Token token;
    diag_clear(&diag);
    lexer_init(&lexer, text, sizeof text - 1, 1, 1, &test_arena);
    lexer_next_token(&lexer, &token, &diag);
    ck_assert_int_eq(token.kind, TOKEN_STRING);
    ck_assert_uint_eq(token.value_length, 3);
    ck_assert(memcmp(token.value, "a\0b", 3) == 0);
    ck_assert_uint_eq(token.length, 5);
    lexer_next_token(&lexer, &token, &diag);
    ck_assert_int_eq(token.kind, TOKEN_STRING);
    ck_assert_str_eq(token.value, "x");
    ck_assert_int_eq(token.column, 7);
    /* a quoted identifier is a name (C text): a NUL in it is an error */
    static const char name[] = "`a\0b`";
    lexer_init(&lexer, name, sizeof name - 1, 1, 1, &test_arena);
    lexer_next_token(&lexer, &token, &diag);
    ck_assert_int_eq(token.kind, TOKEN_ERROR);
    ck_assert_str_eq(diag.message,
                     "Syntax error: a quoted identifier must not contain a NUL character");
}
END_TEST

START_TEST(test_comments_and_hints)
{
    Token tokens[MAX_TOKENS];
    Diag diag;
    size_t count =
        lex_all("-- a line comment\nSELECT /* block\n comment */ /*+ STATE_TTL('o' = '1d') */ "
                "a -- trailing",
                tokens, &diag);
    ck_assert_uint_eq(count, 4);
    ck_assert_int_eq(tokens[0].keyword, KEYWORD_SELECT);
    ck_assert_int_eq(tokens[0].line, 2);
    ck_assert_int_eq(tokens[0].column, 1);
    ck_assert_int_eq(tokens[1].kind, TOKEN_HINT);
    ck_assert_int_eq(tokens[1].line, 3);
    ck_assert_int_eq(tokens[1].column, 13);
    ck_assert_int_eq(tokens[1].content_line, 3);
    ck_assert_int_eq(tokens[1].content_column, 16);
    ck_assert_uint_eq(tokens[1].length, strlen(" STATE_TTL('o' = '1d') "));
    ck_assert(strncmp(tokens[1].text, " STATE_TTL('o' = '1d') ", tokens[1].length) == 0);
    ck_assert_str_eq(tokens[2].value, "a");
    ck_assert_int_eq(tokens[3].kind, TOKEN_END);
    /* a minus followed by a non-minus is an operator, "--" at the very end is a comment */
    count = lex_all("1-2--", tokens, &diag);
    ck_assert_uint_eq(count, 4);
    ck_assert_int_eq(tokens[1].kind, TOKEN_MINUS);
}
END_TEST

START_TEST(test_positions_with_offsets_and_utf8)
{
    const char *text = "SELECT\n  'é', x\n\tFROM";
    Lexer lexer;
    lexer_init(&lexer, text, strlen(text), 10, 5, &test_arena);
    Diag diag;
    diag_clear(&diag);
    Token token;
    lexer_next_token(&lexer, &token, &diag);
    ck_assert_int_eq(token.line, 10);
    ck_assert_int_eq(token.column, 5);
    ck_assert_int_eq(token.end_column, 11);
    lexer_next_token(&lexer, &token, &diag);
    ck_assert_int_eq(token.line, 11);
    ck_assert_int_eq(token.column, 3);
    ck_assert_int_eq(token.end_column, 6); /* 'é' is three characters wide */
    lexer_next_token(&lexer, &token, &diag);
    ck_assert_int_eq(token.kind, TOKEN_COMMA);
    ck_assert_int_eq(token.column, 6);
    lexer_next_token(&lexer, &token, &diag);
    ck_assert_int_eq(token.column, 8);
    lexer_next_token(&lexer, &token, &diag);
    ck_assert_int_eq(token.keyword, KEYWORD_FROM);
    ck_assert_int_eq(token.line, 12);
    ck_assert_int_eq(token.column, 2); /* a tab is one column */
    lexer_next_token(&lexer, &token, &diag);
    ck_assert_int_eq(token.kind, TOKEN_END);
    lexer_next_token(&lexer, &token, &diag);
    ck_assert_int_eq(token.kind, TOKEN_END);
}
END_TEST

/* Lexes text and returns the diagnostic of the error it must end with. */
static Diag lex_error(const char *text)
{
    Token tokens[MAX_TOKENS];
    Diag diag;
    size_t count = lex_all(text, tokens, &diag);
    ck_assert_int_eq(tokens[count - 1].kind, TOKEN_ERROR);
    return diag;
}

START_TEST(test_errors_at_start)
{
    Diag diag = lex_error("SELECT 'abc");
    ck_assert_int_eq(diag.status, JOINERY_ERROR_PARSE);
    ck_assert_int_eq(diag.line, 1);
    ck_assert_int_eq(diag.column, 8);
    ck_assert_str_eq(diag.message, "Syntax error: unterminated string literal");
    diag = lex_error("a\n  /* never closed\n\n");
    ck_assert_int_eq(diag.line, 2);
    ck_assert_int_eq(diag.column, 3);
    ck_assert_str_eq(diag.message, "Syntax error: unterminated comment");
    diag = lex_error("x `abc");
    ck_assert_int_eq(diag.column, 3);
    ck_assert_str_eq(diag.message, "Syntax error: unterminated quoted identifier");
    diag = lex_error("SELECT /*+ hint( ");
    ck_assert_int_eq(diag.column, 8);
    ck_assert_str_eq(diag.message, "Syntax error: unterminated hint comment");
    diag = lex_error("a | b");
    ck_assert_int_eq(diag.column, 3);
    diag = lex_error("'it''");
    ck_assert_int_eq(diag.column, 1);
    diag = lex_error("\x01");
    ck_assert_str_eq(diag.message, "Syntax error: unexpected character 0x01");
}
END_TEST

START_TEST(test_no_overread)
{
    /* text that is not NUL-terminated: the lexer must stop at length */
    const char text[] = {'S', 'E', 'L', '\'', 'x', '-', '-', '/', '*'};
    for (size_t length = 0; length <= sizeof text; length++) {
        char *copy = malloc(length ? length : 1);
        memcpy(copy, text, length);
        Lexer lexer;
        lexer_init(&lexer, copy, length, 1, 1, &test_arena);
        Diag diag;
        diag_clear(&diag);
        Token token;
        for (int i = 0; i < 20; i++) {
            lexer_next_token(&lexer, &token, &diag);
            if (token.kind == TOKEN_END || token.kind == TOKEN_ERROR)
                break;
        }
        ck_assert(token.kind == TOKEN_END || token.kind == TOKEN_ERROR);
        free(copy);
    }
    Lexer lexer;
    lexer_init(&lexer, NULL, 5, 1, 1, &test_arena);
    Diag diag;
    diag_clear(&diag);
    Token token;
    lexer_next_token(&lexer, &token, &diag);
    ck_assert_int_eq(token.kind, TOKEN_END);
}
END_TEST

START_TEST(test_token_kind_describe)
{
    ck_assert_str_eq(token_kind_describe(TOKEN_COMMA), "','");
    ck_assert_str_eq(token_kind_describe(TOKEN_END), "end of statement");
    ck_assert_str_eq(token_kind_describe(TOKEN_IDENTIFIER), "identifier");
}
END_TEST

static Suite *lexer_suite(void)
{
    Suite *suite = suite_create("lexer");
    TCase *core = tcase_create("core");
    tcase_add_checked_fixture(core, setup, teardown);
    tcase_add_test(core, test_operators);
    tcase_add_test(core, test_words_and_keywords);
    tcase_add_test(core, test_keyword_table);
    tcase_add_test(core, test_numbers);
    tcase_add_test(core, test_strings);
    tcase_add_test(core, test_string_with_nul);
    tcase_add_test(core, test_comments_and_hints);
    tcase_add_test(core, test_positions_with_offsets_and_utf8);
    tcase_add_test(core, test_errors_at_start);
    tcase_add_test(core, test_no_overread);
    tcase_add_test(core, test_token_kind_describe);
    suite_add_tcase(suite, core);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(lexer_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
