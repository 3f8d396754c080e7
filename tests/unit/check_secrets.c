/*
 * check_secrets.c - Check suite for the one rule of what is secret
 * (engine/base/sensitive.h: Flink 2.x's sensitive key words, librdkafka's
 * sensitive properties, credentials inside values) and for finding secrets
 * on a statement's tokens (engine/sql/secrets.h): exact byte ranges, with
 * comments, hints, bare words, syntax errors and unterminated text.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/sensitive.h"
#include "engine/sql/secrets.h"

static bool key_is(const char *key)
{
    return sensitive_key(key, strlen(key));
}

START_TEST(test_sensitive_keys)
{
    /* Flink 2.x GlobalConfiguration.isSensitive, any case, anywhere in the key */
    const char *flink[] = {"password",
                           "a.Secret.b",
                           "fs.azure.account.key.acct",
                           "my.apikey",
                           "x-API-KEY",
                           "auth-params",
                           "service-key",
                           "TOKEN",
                           "http.basic-auth",
                           "properties.sasl.jaas.config",
                           "http-headers"};
    for (size_t i = 0; i < sizeof flink / sizeof flink[0]; i++)
        ck_assert_msg(key_is(flink[i]), "%s", flink[i]);
    /* librdkafka's sensitive properties and joinery's credential */
    const char *kafka[] = {"properties.ssl.key.pem",
                           "properties.ssl.key.password",
                           "properties.ssl.keystore.password",
                           "properties.sasl.oauthbearer.config",
                           "properties.sasl.username",
                           "properties.sasl.password",
                           "properties.ssl.ca.pem",
                           "properties.ssl.key.location",
                           "properties.sasl.credentials"};
    for (size_t i = 0; i < sizeof kafka / sizeof kafka[0]; i++)
        ck_assert_msg(key_is(kafka[i]), "%s", kafka[i]);
    const char *plain[] = {"connector",
                           "topic",
                           "properties.bootstrap.servers",
                           "properties.sasl.mechanism",
                           "properties.ssl.certificate.pem",
                           "fields.key.kind",
                           "properties.group.id",
                           ""};
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++)
        ck_assert_msg(!key_is(plain[i]), "%s", plain[i]);
}
END_TEST

START_TEST(test_sensitive_values)
{
    const char *secret[] = {"PlainLoginModule required username=\"u\" password=\"p\";",
                            "a PASSWORD = x", "https://user:pw@host/path", "jdbc:x://u:p@h:1/db"};
    for (size_t i = 0; i < sizeof secret / sizeof secret[0]; i++)
        ck_assert_msg(sensitive_value(secret[i], strlen(secret[i])), "%s", secret[i]);
    const char *plain[] = {"https://host:9092/path", "https://user@host/", "localhost:9092",
                           "no password here",       "mailto:a@b",         ""};
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++)
        ck_assert_msg(!sensitive_value(plain[i], strlen(plain[i])), "%s", plain[i]);
    ck_assert(sensitive_option("topic", "https://u:p@h/"));
    ck_assert(sensitive_option("properties.sasl.password", "x"));
    ck_assert(!sensitive_option("topic", "orders"));
    ck_assert_str_eq(sensitive_option_shown("a.token", "t"), SENSITIVE_MASK);
    ck_assert_str_eq(sensitive_option_shown("topic", "orders"), "orders");
}
END_TEST

/* The secrets of text, as "[text]" pieces joined by '|'. */
static char found[4096];
static const char *found_text;

static void collect(void *context, size_t offset, size_t length)
{
    (void)context;
    size_t used = strlen(found);
    snprintf(found + used, sizeof found - used, "%s%.*s", used ? "|" : "", (int)length,
             found_text + offset);
}

static const char *secrets_of(const char *text)
{
    found[0] = '\0';
    found_text = text;
    size_t count = sql_find_secrets(text, strlen(text), collect, NULL);
    size_t pieces = found[0] ? 1 : 0;
    for (const char *p = found; *p; p++)
        pieces += *p == '|';
    ck_assert_uint_eq(count, pieces);
    return found;
}

START_TEST(test_find_secrets)
{
    ck_assert_str_eq(secrets_of("SET 'properties.sasl.password' = 'hunter2';"), "hunter2");
    ck_assert_str_eq(secrets_of("SET 'parallelism.default' = '2';"), "");
    /* comments between key and '=' or value change nothing */
    ck_assert_str_eq(secrets_of("CREATE TABLE t (a INT) WITH ('properties.sasl.password' /* c */ = "
                                "-- line\n 'p1', 'topic' = 't');"),
                     "p1");
    /* every option of a WITH clause is looked at; quotes stay outside the range */
    ck_assert_str_eq(secrets_of("WITH ('a.token'='t1','x'='y','properties.ssl.key.pem'='k\nk')"),
                     "t1|k\nk");
    /* a value that carries a credential, whatever its key */
    ck_assert_str_eq(secrets_of("WITH ('jdbc' = 'https://u:pw@h/')"), "https://u:pw@h/");
    ck_assert_str_eq(secrets_of("WITH ('properties.sasl.jaas.config' = 'PlainLoginModule required "
                                "username=\"u\" password=\"p\";')"),
                     "PlainLoginModule required username=\"u\" password=\"p\";");
    /* a bare dotted key and a bare value */
    ck_assert_str_eq(secrets_of("SET properties.sasl.password = abc.def-1;"), "abc.def-1");
    ck_assert_str_eq(secrets_of("SET `my.secret` = x;"), "x");
    /* a missing '=' after a quoted key (a syntax error must not show the value) */
    ck_assert_str_eq(secrets_of("WITH ('a.password' 'p2')"), "p2");
    /* a bare column named like a key is no option: nothing without '=' */
    ck_assert_str_eq(secrets_of("SELECT password, token FROM users;"), "");
    /* hints, also cut short by a comment inside them */
    ck_assert_str_eq(secrets_of("SELECT * FROM t /*+ OPTIONS('sasl.password'='p3') */;"), "p3");
    ck_assert_str_eq(secrets_of("SELECT * FROM t /*+ OPTIONS('sasl.password' /* c */ = 'p4') */;"),
                     "/* c |p4");
    /* characters that start no token are stepped over */
    ck_assert_str_eq(secrets_of("# SET 'a.secret' = 's1'; ? SET 'b.secret' = 's2';"), "s1|s2");
    /* unterminated: the rest, when the text names a secret */
    ck_assert_str_eq(secrets_of("SET 'a.password' = 'never closed"), "'never closed");
    ck_assert_str_eq(secrets_of("SET 'a' = 'never closed"), "");
    ck_assert_str_eq(secrets_of("SET 'x' = 'y' /* token"), "/* token");
    ck_assert_str_eq(secrets_of(""), "");
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("secrets");
    TCase *rule = tcase_create("rule");
    tcase_add_test(rule, test_sensitive_keys);
    tcase_add_test(rule, test_sensitive_values);
    suite_add_tcase(suite, rule);
    TCase *tokens = tcase_create("tokens");
    tcase_add_test(tokens, test_find_secrets);
    suite_add_tcase(suite, tokens);
    SRunner *runner = srunner_create(suite);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
