/*
 * binary.h - byte-string helpers for the BINARY / VARBINARY / BYTES types:
 * hexadecimal (literals X'0A1B', printing x'0a1b'), base64 (JSON and CSV
 * formats, as Jackson writes byte arrays: RFC 4648 alphabet with padding),
 * and UTF-8 decoding as Java's new String(bytes, UTF_8) does it
 * (CAST(bytes AS STRING)).
 *
 * Invariants: every function appends to a StrBuf or writes into caller
 * memory of the documented size; none reads past the given length; none
 * allocates except through the StrBuf.
 */
#ifndef JOINERY_BASE_BINARY_H
#define JOINERY_BASE_BINARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/base/strbuf.h"

/* Appends two lowercase hex digits per byte. Returns 0 or -1 (no memory). */
int binary_append_hex(const uint8_t *bytes, size_t length, StrBuf *out);

/*
 * Decodes hex digits (either case) into bytes appended to out. An odd number
 * of digits or a non-hex character is an error. Returns 0, 1 (not valid hex)
 * or -1 (no memory).
 */
int binary_decode_hex(const char *text, size_t length, StrBuf *out);
/* The value of hex digit `c` (0-9, a-f, A-F), or -1. */
int binary_hex_digit(char c);

/* Appends the base64 text of the bytes (with '=' padding). Returns 0 or -1. */
int binary_append_base64(const uint8_t *bytes, size_t length, StrBuf *out);

/*
 * Decodes base64 text (standard alphabet; padding optional; no blanks) into
 * bytes appended to out. Returns 0, 1 (not valid base64) or -1 (no memory).
 */
int binary_decode_base64(const char *text, size_t length, StrBuf *out);

/*
 * Appends the bytes as valid UTF-8: well-formed sequences are copied, each
 * maximal ill-formed subsequence becomes U+FFFD (EF BF BD), as Java decodes.
 * Returns 0 or -1 (no memory).
 */
int binary_append_utf8(const uint8_t *bytes, size_t length, StrBuf *out);

/* True when the bytes are well-formed UTF-8. */
bool binary_is_utf8(const uint8_t *bytes, size_t length);

#endif
