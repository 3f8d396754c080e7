/*
 * check_cli_split.c - Check suite for statement splitting (engine/sql/split.c),
 * the boundaries the CLI uses to cut scripts and interactive input into
 * statements: quotes, comments, hints, escapes, incomplete statements.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "engine/sql/split.h"

/* Length of the first statement of a NUL-terminated text. */
static size_t first_end(const char *text, bool *is_blank)
{
    return joinery_statement_end(text, strlen(text), is_blank);
}

START_TEST(test_simple_statement)
{
    bool blank = true;
    ck_assert_uint_eq(first_end("SELECT 1;", &blank), 9);
    ck_assert(!blank);
    ck_assert_uint_eq(first_end("SELECT 1; SELECT 2;", &blank), 9);
}
END_TEST

START_TEST(test_several_statements_per_line)
{
    const char *text = "SET 'a' = '1'; SET 'b' = '2';SHOW TABLES;";
    size_t length = strlen(text);
    size_t first = joinery_statement_end(text, length, NULL);
    ck_assert_uint_eq(first, 14);
    size_t second = joinery_statement_end(text + first, length - first, NULL);
    ck_assert_uint_eq(second, 15);
    size_t third = joinery_statement_end(text + first + second, length - first - second, NULL);
    ck_assert_uint_eq(third, 12);
    ck_assert_uint_eq(first + second + third, length);
}
END_TEST

START_TEST(test_statement_spanning_lines)
{
    const char *text = "SELECT a,\n  b\nFROM t\n;\nSELECT 2;";
    ck_assert_uint_eq(first_end(text, NULL), 22);
}
END_TEST

/* EXECUTE / EXPLAIN STATEMENT SET BEGIN ... END holds the ';' of its INSERTs. */
START_TEST(test_statement_set_block)
{
    const char *set = "EXECUTE STATEMENT SET BEGIN\nINSERT INTO a SELECT 1;\n"
                      "INSERT INTO b SELECT 'END;';\nEND;SELECT 2;";
    ck_assert_uint_eq(first_end(set, NULL), strlen(set) - strlen("SELECT 2;"));
    ck_assert_uint_eq(first_end("execute statement set begin insert into a select 1;", NULL), 0);
    const char *explain = "EXPLAIN PLAN FOR STATEMENT SET BEGIN INSERT INTO a SELECT 1; end ;x";
    ck_assert_uint_eq(first_end(explain, NULL), strlen(explain) - 1);
    /* the words must be in a row, and the statement must open with EXECUTE or EXPLAIN */
    ck_assert_uint_eq(first_end("EXPLAIN SELECT statement, set, begin FROM t; END;", NULL), 44);
    ck_assert_uint_eq(first_end("BEGIN STATEMENT SET;", NULL), 20);
    ck_assert_uint_eq(first_end("INSERT INTO t SELECT 1 AS statement_set_begin;", NULL), 46);
    /* END inside a comment or a string is no END */
    const char *commented = "EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT 1; -- END;\n END;";
    ck_assert_uint_eq(first_end(commented, NULL), strlen(commented));
}
END_TEST

START_TEST(test_incomplete_statement)
{
    bool blank = true;
    ck_assert_uint_eq(first_end("SELECT 1", &blank), 0);
    ck_assert(!blank);
    ck_assert_uint_eq(first_end("", &blank), 0);
    ck_assert(blank);
    ck_assert_uint_eq(first_end("  \n\t ", &blank), 0);
    ck_assert(blank);
}
END_TEST

START_TEST(test_semicolon_in_string)
{
    bool blank = true;
    ck_assert_uint_eq(first_end("SELECT 'a;b';", NULL), 13);
    ck_assert_uint_eq(first_end("SELECT 'a;b", &blank), 0);
    ck_assert(!blank); /* an open string is never blank */
}
END_TEST

START_TEST(test_escaped_quote)
{
    ck_assert_uint_eq(first_end("SELECT 'it''s;' ;", NULL), 17);
    ck_assert_uint_eq(first_end("SELECT 'it'';", NULL), 0);
    ck_assert_uint_eq(first_end("SELECT '''';", NULL), 12);
    ck_assert_uint_eq(first_end("SELECT '';", NULL), 10);
}
END_TEST

START_TEST(test_backtick_identifier)
{
    ck_assert_uint_eq(first_end("SELECT `a;b` FROM t;", NULL), 20);
    ck_assert_uint_eq(first_end("SELECT `a``;b` FROM t;", NULL), 22);
    ck_assert_uint_eq(first_end("SELECT `a;b FROM t;", NULL), 0);
    /* a quote inside backticks does not open a string */
    ck_assert_uint_eq(first_end("SELECT `it's` FROM t;", NULL), 21);
    /* a backtick inside a string does not open an identifier */
    ck_assert_uint_eq(first_end("SELECT '`';", NULL), 11);
}
END_TEST

START_TEST(test_line_comment)
{
    bool blank = false;
    ck_assert_uint_eq(first_end("SELECT 1 -- not the end;\n;", NULL), 26);
    ck_assert_uint_eq(first_end("-- only a comment; here", &blank), 0);
    ck_assert(blank);
    ck_assert_uint_eq(first_end("-- note\n;", &blank), 9);
    ck_assert(blank);
    /* a single dash is an operator */
    ck_assert_uint_eq(first_end("SELECT 1 - 2;", &blank), 13);
    ck_assert(!blank);
    /* a comment opener inside a string is text */
    ck_assert_uint_eq(first_end("SELECT '--';", NULL), 12);
}
END_TEST

START_TEST(test_block_comment)
{
    bool blank = false;
    ck_assert_uint_eq(first_end("SELECT /* ; */ 1;", NULL), 17);
    ck_assert_uint_eq(first_end("/* a;\n b; */;", &blank), 13);
    ck_assert(blank);
    ck_assert_uint_eq(first_end("SELECT /* open ;", &blank), 0);
    ck_assert(!blank);
    ck_assert_uint_eq(first_end("/* open", &blank), 0);
    ck_assert(!blank); /* an open comment is incomplete, not blank */
    ck_assert_uint_eq(first_end("/**/;", &blank), 5);
    ck_assert(blank);
    ck_assert_uint_eq(first_end("/*/ ; */;", NULL), 9);
    ck_assert_uint_eq(first_end("SELECT '/*';", NULL), 12);
}
END_TEST

START_TEST(test_hint)
{
    bool blank = true;
    const char *text = "SELECT /*+ STATE_TTL('o' = '1d'; ) */ * FROM o;";
    ck_assert_uint_eq(first_end(text, &blank), strlen(text));
    ck_assert(!blank);
    ck_assert_uint_eq(first_end("/*+ hint */;", &blank), 12);
    ck_assert(!blank); /* a hint is content */
}
END_TEST

START_TEST(test_blank_statements)
{
    bool blank = false;
    ck_assert_uint_eq(first_end(";", &blank), 1);
    ck_assert(blank);
    ck_assert_uint_eq(first_end("  \n ;SELECT 1;", &blank), 5);
    ck_assert(blank);
}
END_TEST

START_TEST(test_no_read_past_length)
{
    /* the length cuts the text before its ';' */
    const char text[] = "SELECT 1;";
    ck_assert_uint_eq(joinery_statement_end(text, 8, NULL), 0);
    ck_assert_uint_eq(joinery_statement_end(text, 0, NULL), 0);
    /* a dash or slash at the very end must not look past the length */
    ck_assert_uint_eq(joinery_statement_end("a-", 2, NULL), 0);
    ck_assert_uint_eq(joinery_statement_end("a/", 2, NULL), 0);
    ck_assert_uint_eq(split_statement_end("x /*", 4, NULL), 0);
}
END_TEST

START_TEST(test_skip_blank)
{
    const char *text = "  -- c1\n /* c2 */\n\tSELECT 1;";
    ck_assert_uint_eq(joinery_statement_skip_blank(text, strlen(text)), 19);
    ck_assert_uint_eq(joinery_statement_skip_blank("/*+ h */ x", 10), 0);
    ck_assert_uint_eq(joinery_statement_skip_blank("   ", 3), 3);
    /* an unterminated comment is not blank: the statement starts there, and the lexer says
       "unterminated comment" at its position (not "empty statement") */
    ck_assert_uint_eq(joinery_statement_skip_blank("/* open", 7), 0);
    ck_assert_uint_eq(joinery_statement_skip_blank("/* a */ /* open", 15), 8);
    ck_assert_uint_eq(joinery_statement_skip_blank("-- only", 7), 7);
    ck_assert_uint_eq(joinery_statement_skip_blank("", 0), 0);
}
END_TEST

static Suite *split_suite(void)
{
    Suite *suite = suite_create("cli_split");
    TCase *core = tcase_create("core");
    tcase_add_test(core, test_simple_statement);
    tcase_add_test(core, test_several_statements_per_line);
    tcase_add_test(core, test_statement_spanning_lines);
    tcase_add_test(core, test_incomplete_statement);
    tcase_add_test(core, test_semicolon_in_string);
    tcase_add_test(core, test_escaped_quote);
    tcase_add_test(core, test_backtick_identifier);
    tcase_add_test(core, test_line_comment);
    tcase_add_test(core, test_block_comment);
    tcase_add_test(core, test_hint);
    tcase_add_test(core, test_blank_statements);
    tcase_add_test(core, test_no_read_past_length);
    tcase_add_test(core, test_skip_blank);
    tcase_add_test(core, test_statement_set_block);
    suite_add_tcase(suite, core);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(split_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
