/*
 * sensitive.c - the rule of sensitive.h. Matching is byte-wise and
 * case-insensitive for ASCII letters; keys and values need not be
 * NUL-terminated and may hold any bytes (memmem finds the words: this runs
 * on every token of every statement the shell records).
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

enum { SENSITIVE_CHUNK = 4096, SENSITIVE_OVERLAP = 32 };

/*
 * Calls found() on text[0..length) in ASCII lower case, in pieces of
 * SENSITIVE_CHUNK bytes that overlap by SENSITIVE_OVERLAP (so no word of
 * the rule is ever cut), and returns true as soon as it does.
 */
static bool sensitive_scan_lower(const char *text, size_t length,
                                 bool (*found)(const char *lower, size_t length))
{
    char lower[SENSITIVE_CHUNK];
    size_t start = 0;
    for (;;) {
        size_t piece = length - start < SENSITIVE_CHUNK ? length - start : SENSITIVE_CHUNK;
        for (size_t i = 0; i < piece; i++)
            lower[i] = (char)tolower((unsigned char)text[start + i]);
        if (found(lower, piece))
            return true;
        if (start + piece >= length)
            return false;
        start += piece - SENSITIVE_OVERLAP;
    }
}

static bool sensitive_has_key_word(const char *lower, size_t length)
{
    for (size_t i = 0; i < sizeof SENSITIVE_KEY_WORDS / sizeof SENSITIVE_KEY_WORDS[0]; i++)
        if (memmem(lower, length, SENSITIVE_KEY_WORDS[i], strlen(SENSITIVE_KEY_WORDS[i])))
            return true;
    return false;
}

bool sensitive_key(const char *key, size_t length)
{
    return sensitive_scan_lower(key, length, sensitive_has_key_word);
}

/* `password`, optional blanks or '"', then '=' or ':' (in lower-case text). */
static bool sensitive_has_password_assignment(const char *lower, size_t length)
{
    static const char WORD[] = "password";
    const char *end = lower + length;
    const char *hit;
    for (const char *cursor = lower;
         (hit = memmem(cursor, (size_t)(end - cursor), WORD, sizeof WORD - 1)) != NULL;
         cursor = hit + 1) {
        const char *k = hit + sizeof WORD - 1;
        while (k < end && (*k == ' ' || *k == '\t' || *k == '\n' || *k == '\r' || *k == '"'))
            k++;
        if (k < end && (*k == '=' || *k == ':'))
            return true;
    }
    return false;
}

/* "://" then user info holding ':' and ending in '@' before any '/', '?', '#' or blank. */
static bool sensitive_has_url_password(const char *value, size_t length)
{
    const char *end = value + length;
    const char *hit;
    for (const char *cursor = value; (hit = memmem(cursor, (size_t)(end - cursor), "://", 3));
         cursor = hit + 1) {
        bool colon = false;
        for (const char *k = hit + 3; k < end; k++) {
            char c = *k;
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
    return sensitive_has_url_password(value, length) ||
           sensitive_scan_lower(value, length, sensitive_has_password_assignment);
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
