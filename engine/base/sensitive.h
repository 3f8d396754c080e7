/*
 * sensitive.h - the one rule that decides what is secret: which option keys
 * hold secrets and which values carry credentials whatever their key. Every
 * place that prints, logs or stores an option (SHOW CREATE TABLE, error
 * messages, the shell's history and echoed source lines) asks here.
 *
 * The rule:
 * - A key is sensitive when its lower-case form contains one of Flink 2.x's
 *   sensitive words (GlobalConfiguration.isSensitive: password, secret,
 *   fs.azure.account.key, apikey, api-key, auth-params, service-key, token,
 *   basic-auth, jaas.config, http-headers), one of librdkafka's sensitive
 *   properties (ssl.key.location, ssl.key.password, ssl.key.pem, ssl_key,
 *   ssl.ca.pem, ssl.keystore.password, sasl.username, sasl.password,
 *   sasl.oauthbearer.config), or "credential" (e.g. sasl.credentials).
 * - A value is credential-bearing when it holds a JAAS-style `password=`
 *   assignment (any case, spaces allowed before '=') or a URL with a
 *   password in its user info (`scheme://user:password@host`).
 * - An option is sensitive when its key or its value is.
 * A sensitive value is shown as SENSITIVE_MASK, the whole value: no part of
 * it, not its length.
 */
#ifndef JOINERY_BASE_SENSITIVE_H
#define JOINERY_BASE_SENSITIVE_H

#include <stdbool.h>
#include <stddef.h>

/* What a sensitive value is printed as (Flink's HIDDEN_CONTENT). */
#define SENSITIVE_MASK "******"

/* True when key[0..length) names a secret (see the rule above). */
bool sensitive_key(const char *key, size_t length);

/* True when value[0..length) carries a credential whatever its key. */
bool sensitive_value(const char *value, size_t length);

/* True when the option (NUL-terminated key and value; value may be NULL) is sensitive. */
bool sensitive_option(const char *key, const char *value);

/* The value to print for the option: SENSITIVE_MASK when sensitive, else value. */
const char *sensitive_option_shown(const char *key, const char *value);

#endif
