/*
 * kafka_jaas.c - Flink's (Kafka's Java client's) SASL login given as
 * 'properties.sasl.jaas.config', translated for librdkafka, which has no
 * JAAS: the PLAIN and SCRAM login modules become 'sasl.username' and
 * 'sasl.password'; the mechanism stays the table's 'properties.sasl.mechanism'.
 *
 * The value follows Kafka's JaasConfig: exactly one login module,
 *   <class> <required|requisite|sufficient|optional> [name=value ...] ;
 * a value being a word or a "double-quoted" string (\" \\ and other
 * backslash escapes as Java's StreamTokenizer reads them), comments
 * (/ * * / and //) allowed between tokens.
 *
 * Accepted: org.apache.kafka.common.security.plain.PlainLoginModule with
 * mechanism PLAIN, ...scram.ScramLoginModule with SCRAM-SHA-256 or
 * SCRAM-SHA-512 (also under a shading prefix, as Flink's SQL jar has it),
 * with username and password. Rejected with an error naming the reason:
 * any other module (GSSAPI, OAUTHBEARER: use librdkafka's own sasl.*
 * properties), a missing or mismatched mechanism (Kafka's default GSSAPI
 * fails with these modules too), a missing username or password,
 * tokenauth=true (delegation tokens), 'properties.sasl.username' or
 * 'properties.sasl.password' given as well, and malformed text.
 *
 * Invariants: no message quotes the value or any part of it after the
 * class name; the decoded password lives only in a buffer cleared before
 * it is freed.
 */
#include "engine/connector/kafka_internal.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define JAAS_OPTION "properties.sasl.jaas.config"

typedef struct JaasReader {
    const char *text;
    size_t length;
    size_t offset;
} JaasReader;

/* Skips blanks and comments; false for an unterminated block comment. */
static bool jaas_skip_blank(JaasReader *reader)
{
    while (reader->offset < reader->length) {
        char c = reader->text[reader->offset];
        if (isspace((unsigned char)c)) {
            reader->offset++;
        } else if (c == '/' && reader->offset + 1 < reader->length &&
                   reader->text[reader->offset + 1] == '/') {
            while (reader->offset < reader->length && reader->text[reader->offset] != '\n')
                reader->offset++;
        } else if (c == '/' && reader->offset + 1 < reader->length &&
                   reader->text[reader->offset + 1] == '*') {
            const char *end = NULL;
            for (size_t i = reader->offset + 2; i + 1 < reader->length; i++)
                if (reader->text[i] == '*' && reader->text[i + 1] == '/') {
                    end = reader->text + i;
                    break;
                }
            if (end == NULL)
                return false;
            reader->offset = (size_t)(end - reader->text) + 2;
        } else {
            break;
        }
    }
    return true;
}

static bool jaas_is_word_char(char c)
{
    return isalnum((unsigned char)c) || c == '.' || c == '_' || c == '-' || c == '$';
}

/*
 * Reads a word or a quoted string into out (NUL-terminated, at most size - 1
 * bytes). Returns 1 read, 0 no word here, -1 malformed (unterminated quote,
 * too long).
 */
static int jaas_read_value(JaasReader *reader, char *out, size_t size)
{
    size_t used = 0;
    if (reader->offset < reader->length && reader->text[reader->offset] == '"') {
        reader->offset++;
        while (reader->offset < reader->length && reader->text[reader->offset] != '"') {
            char c = reader->text[reader->offset++];
            if (c == '\\' && reader->offset < reader->length) {
                char escaped = reader->text[reader->offset++];
                c = escaped == 'n' ? '\n' : escaped == 't' ? '\t' : escaped == 'r' ? '\r' : escaped;
            }
            if (used + 1 >= size)
                return -1;
            out[used++] = c;
        }
        if (reader->offset >= reader->length)
            return -1;
        reader->offset++; /* closing quote */
        out[used] = '\0';
        return 1;
    }
    while (reader->offset < reader->length && jaas_is_word_char(reader->text[reader->offset])) {
        if (used + 1 >= size)
            return -1;
        out[used++] = reader->text[reader->offset++];
    }
    out[used] = '\0';
    return used > 0 ? 1 : 0;
}

static bool jaas_accept(JaasReader *reader, char c)
{
    if (reader->offset < reader->length && reader->text[reader->offset] == c) {
        reader->offset++;
        return true;
    }
    return false;
}

/* True when class_name is `suffix`, alone or after a shading prefix ending in '.'. */
static bool jaas_class_is(const char *class_name, const char *suffix)
{
    size_t length = strlen(class_name), suffix_length = strlen(suffix);
    if (length < suffix_length || strcmp(class_name + length - suffix_length, suffix) != 0)
        return false;
    return length == suffix_length || class_name[length - suffix_length - 1] == '.';
}

typedef enum JaasModule { JAAS_PLAIN, JAAS_SCRAM } JaasModule;

typedef struct JaasLogin {
    JaasModule module;
    char username[1024];
    char password[1024];
    bool have_username;
    bool have_password;
} JaasLogin;

static int jaas_malformed(Diag *diag, const char *what)
{
    return diag_error(diag, JOINERY_ERROR_VALIDATE,
                      "Invalid value for option '" JAAS_OPTION "': %s (expected a login module "
                      "as Kafka's JAAS syntax has it: '<LoginModule class> required "
                      "username=\"...\" password=\"...\";')",
                      what);
}

/* Parses value into *login; diag says what is wrong, never what the value holds. */
static int jaas_parse(const char *value, JaasLogin *login, Diag *diag)
{
    JaasReader reader = {.text = value, .length = strlen(value), .offset = 0};
    char word[1024];
    if (!jaas_skip_blank(&reader))
        return jaas_malformed(diag, "unterminated comment");
    if (jaas_read_value(&reader, word, sizeof word) != 1)
        return jaas_malformed(diag, "no login module class");
    if (jaas_class_is(word, "org.apache.kafka.common.security.plain.PlainLoginModule"))
        login->module = JAAS_PLAIN;
    else if (jaas_class_is(word, "org.apache.kafka.common.security.scram.ScramLoginModule"))
        login->module = JAAS_SCRAM;
    else if (strlen(word) < 11 || strcmp(word + strlen(word) - 11, "LoginModule") != 0)
        return jaas_malformed(diag, "it does not start with a login module class");
    else
        return diag_error(
            diag, JOINERY_ERROR_VALIDATE,
            "Unsupported login module '%.200s' in option '" JAAS_OPTION "': joinery's Kafka "
            "client (librdkafka) has no JAAS; it translates PlainLoginModule and "
            "ScramLoginModule only. For GSSAPI or OAUTHBEARER set librdkafka's own "
            "properties ('properties.sasl.kerberos.*', 'properties.sasl.oauthbearer.*')",
            word);
    if (!jaas_skip_blank(&reader))
        return jaas_malformed(diag, "unterminated comment");
    static const char *const FLAGS[] = {"required", "requisite", "sufficient", "optional"};
    bool flag_ok = false;
    if (jaas_read_value(&reader, word, sizeof word) == 1)
        for (size_t i = 0; i < sizeof FLAGS / sizeof FLAGS[0]; i++)
            flag_ok = flag_ok || strcasecmp(word, FLAGS[i]) == 0;
    if (!flag_ok)
        return jaas_malformed(diag, "the control flag (required, requisite, sufficient or "
                                    "optional) is missing after the login module class");
    for (;;) {
        if (!jaas_skip_blank(&reader))
            return jaas_malformed(diag, "unterminated comment");
        if (jaas_accept(&reader, ';'))
            break;
        char name[128];
        if (jaas_read_value(&reader, name, sizeof name) != 1)
            return jaas_malformed(diag, reader.offset >= reader.length
                                            ? "the login module does not end with ';'"
                                            : "an option name is expected");
        if (!jaas_skip_blank(&reader) || !jaas_accept(&reader, '='))
            return jaas_malformed(diag, "an option of the login module has no '='");
        if (!jaas_skip_blank(&reader))
            return jaas_malformed(diag, "unterminated comment");
        char *target = word;
        size_t target_size = sizeof word;
        if (strcmp(name, "username") == 0) {
            target = login->username;
            target_size = sizeof login->username;
            login->have_username = true;
        } else if (strcmp(name, "password") == 0) {
            target = login->password;
            target_size = sizeof login->password;
            login->have_password = true;
        }
        if (jaas_read_value(&reader, target, target_size) != 1)
            return jaas_malformed(diag, "an option value is missing, unterminated or too long");
        if (strcmp(name, "tokenauth") == 0 && strcasecmp(word, "true") == 0)
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "Unsupported option tokenauth=true in '" JAAS_OPTION
                              "': joinery's Kafka client does not authenticate with "
                              "delegation tokens");
    }
    if (!jaas_skip_blank(&reader))
        return jaas_malformed(diag, "unterminated comment");
    if (reader.offset < reader.length)
        return jaas_malformed(diag, "it holds more than one login module");
    if (!login->have_username || !login->have_password)
        return jaas_malformed(diag,
                              login->have_username ? "password is missing" : "username is missing");
    return JOINERY_OK;
}

/* The table's SASL mechanism ('properties.sasl.mechanism' or librdkafka's plural). */
static const char *jaas_table_mechanism(const CatalogTable *table)
{
    const char *mechanism = catalog_table_option(table, "properties.sasl.mechanism");
    return mechanism ? mechanism : catalog_table_option(table, "properties.sasl.mechanisms");
}

int kafka_conf_set_jaas(rd_kafka_conf_t *conf, const CatalogTable *table, const char *value,
                        Diag *diag)
{
    if (catalog_table_option(table, "properties.sasl.username") ||
        catalog_table_option(table, "properties.sasl.password"))
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Options '" JAAS_OPTION "' and 'properties.sasl.username' / "
                          "'properties.sasl.password' both give the SASL login: give one");
    JaasLogin *login = calloc(1, sizeof *login);
    if (login == NULL)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    int status = jaas_parse(value, login, diag);
    const char *mechanism = jaas_table_mechanism(table);
    if (status == JOINERY_OK) {
        bool plain = login->module == JAAS_PLAIN;
        bool fits = mechanism != NULL && (plain ? strcmp(mechanism, "PLAIN") == 0
                                                : strcmp(mechanism, "SCRAM-SHA-256") == 0 ||
                                                      strcmp(mechanism, "SCRAM-SHA-512") == 0);
        if (!fits)
            status = diag_error(
                diag, JOINERY_ERROR_VALIDATE,
                "Option '" JAAS_OPTION "' uses %s, which needs 'properties.sasl.mechanism' = "
                "%s, but it is %s%s%s",
                plain ? "PlainLoginModule" : "ScramLoginModule",
                plain ? "'PLAIN'" : "'SCRAM-SHA-256' or 'SCRAM-SHA-512'", mechanism ? "'" : "",
                mechanism ? mechanism : "not set (Kafka's default: GSSAPI)", mechanism ? "'" : "");
    }
    if (status == JOINERY_OK)
        status = kafka_conf_set(conf, "sasl.username", login->username, JAAS_OPTION, diag);
    if (status == JOINERY_OK)
        status = kafka_conf_set(conf, "sasl.password", login->password, JAAS_OPTION, diag);
    memset(login, 0, sizeof *login); /* the password does not outlive its use */
    free(login);
    return status;
}
