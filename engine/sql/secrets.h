/*
 * secrets.h - where a statement's text holds secrets, found on the lexer's
 * tokens (so comments, quoting and spacing cannot hide them): for the
 * shell's history, which keeps no statement with a secret, and for the
 * source line echoed under an error, which masks them.
 */
#ifndef JOINERY_SQL_SECRETS_H
#define JOINERY_SQL_SECRETS_H

#include <stddef.h>

/* Called for each secret, in text order: bytes text[offset .. offset + length). */
typedef void (*SqlSecretEmit)(void *context, size_t offset, size_t length);

/*
 * Finds the secrets of text[0..length) (need not be NUL-terminated), which
 * may hold several statements or an unfinished one. A secret is:
 * - the value token after a sensitive key (engine/base/sensitive.h): a key
 *   is a 'string', a `quoted` or plain identifier, or a dotted chain of
 *   words written without spaces (properties.sasl.password); the value is
 *   the next token after the key's '=', or after the key itself when '=' is
 *   missing (so a syntax error cannot let it through), and for a value not
 *   quoted the run of tokens written without spaces;
 * - any 'string' whose content carries a credential (sensitive_value);
 * - inside a hint comment (/ *+ OPTIONS(...) * /), the same, recursively;
 * - from an unterminated string, identifier or comment to the end of the
 *   text, when that rest or the text before it names a sensitive key or
 *   value.
 * A character that starts no token is skipped. emit may be NULL. Returns
 * the number of secrets found.
 */
size_t sql_find_secrets(const char *text, size_t length, SqlSecretEmit emit, void *context);

#endif
