/*
 * sensitive.c - the rule of sensitive.h. Matching is byte-wise and
 * case-insensitive for ASCII letters; keys and values need not be
 * NUL-terminated and may hold any bytes.
 */
#include "engine/base/sensitive.h"

#include <ctype.h>
#include <string.h>

static const char *const SENSITIVE_KEY_WORDS[] = {
    /* Flink 2.x GlobalConfiguration.isSensitive */
    "password", "secret", "fs.azure.account.key", "apikey", "api-key", "auth-params", "service-key",
    "token", "basic-auth", "jaas.config", "http-headers",
    /* librdkafka's sensitive properties (CONFIGURATION.md, rdkafka_conf.c) */
    "ssl.key.location", "ssl.key.password", "ssl.key.pem", "ssl_key", "ssl.ca.pem",
    "ssl.keystore.password", "sasl.username", "sasl.password", "sasl.oauthbearer.config",
    /* joinery's own: credentials of any client */
    "credential"};

/* True when text[0..length) contains word (ASCII case-insensitive). */
static bool sensitive_contains(const char *text, size_t length, const char *word)
{
    size_t word_length = strlen(word);
    for (size_t i = 0; i + word_length <= length; i++) {
        size_t j = 0;
        while (j < word_length && tolower((unsigned char)text[i + j]) == word[j])
            j++;
        if (j == word_length)
            return true;
    }
    return false;
}

bool sensitive_key(const char *key, size_t length)
{
    for (size_t i = 0; i < sizeof SENSITIVE_KEY_WORDS / sizeof SENSITIVE_KEY_WORDS[0]; i++)
        if (sensitive_contains(key, length, SENSITIVE_KEY_WORDS[i]))
            return true;
    return false;
}

/* `password` followed by optional blanks and '=' anywhere in the value. */
static bool sensitive_has_password_assignment(const char *value, size_t length)
{
    static const char WORD[] = "password";
    size_t word_length = sizeof WORD - 1;
    for (size_t i = 0; i + word_length <= length; i++) {
        size_t j = 0;
        while (j < word_length && tolower((unsigned char)value[i + j]) == WORD[j])
            j++;
        if (j < word_length)
            continue;
        size_t k = i + word_length;
        while (k < length && (value[k] == ' ' || value[k] == '\t' || value[k] == '\n' ||
                              value[k] == '\r' || value[k] == '"'))
            k++;
        if (k < length && (value[k] == '=' || value[k] == ':'))
            return true;
    }
    return false;
}

/* "://" then user info holding ':' and ending in '@' before any '/', '?' or '#'. */
static bool sensitive_has_url_password(const char *value, size_t length)
{
    for (size_t i = 0; i + 3 <= length; i++) {
        if (memcmp(value + i, "://", 3) != 0)
            continue;
        bool colon = false;
        for (size_t k = i + 3; k < length; k++) {
            char c = value[k];
            if (c == '/' || c == '?' || c == '#' || c == ' ' || c == '\n' || c == '\t')
                break;
            if (c == ':')
                colon = true;
            if (c == '@') {
                if (colon)
                    return true;
                break;
            }
        }
    }
    return false;
}

bool sensitive_value(const char *value, size_t length)
{
    return sensitive_has_password_assignment(value, length) ||
           sensitive_has_url_password(value, length);
}

bool sensitive_option(const char *key, const char *value)
{
    return (key != NULL && sensitive_key(key, strlen(key))) ||
           (value != NULL && sensitive_value(value, strlen(value)));
}

const char *sensitive_option_shown(const char *key, const char *value)
{
    return sensitive_option(key, value) ? SENSITIVE_MASK : value;
}
