/*
 * utf8.h - reading and writing UTF-8, for every layer.
 *
 * Two ways to read it, on purpose:
 * - utf8_decode validates: only Unicode's well-formed sequences (Table 3-7:
 *   no overlong forms, no surrogates, nothing above U+10FFFF) decode, and a
 *   bad sequence reports its maximal ill-formed subpart, the unit a decoder
 *   replaces with one U+FFFD (as Java's new String(bytes, UTF_8) does). For
 *   bytes from outside: BYTES -> STRING, JSON output, terminal width.
 * - utf8_width / utf8_next / utf8_count / utf8_offset walk by lead bytes and
 *   never fail: a lead byte says how many bytes its character takes (1 for a
 *   byte that cannot lead), continuation bytes are not counted, nothing is
 *   validated. The SQL string functions (CHAR_LENGTH, SUBSTRING, POSITION,
 *   TRIM, LIKE) walk strings this way, so an ill-formed string gives the
 *   same results it always has. They are inline: they sit in inner loops.
 *
 * utf8_encode is the one encoder.
 */
#ifndef JOINERY_BASE_UTF8_H
#define JOINERY_BASE_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* The code point utf8_decode reports for an ill-formed sequence. */
#define UTF8_INVALID UINT32_MAX

/*
 * Decodes the sequence at text[0..length) (length >= 1). For a well-formed
 * sequence returns its length (1 to 4) with the code point in *code_point;
 * for an ill-formed one returns 0 with UTF8_INVALID. Either way *consumed is
 * the bytes to step over: the sequence, or its maximal ill-formed subpart
 * (at least 1). Never reads past text[length - 1].
 */
size_t utf8_decode(const char *text, size_t length, uint32_t *code_point, size_t *consumed);

/*
 * Length of the longest well-formed prefix of text[0..length) (utf8_decode's
 * rules): length when all of it is well-formed, else the offset of the
 * first ill-formed sequence. ASCII runs are skipped 8 bytes at a time.
 */
size_t utf8_valid_prefix(const char *text, size_t length);

/*
 * Writes the UTF-8 form of code_point (a Unicode scalar value) at out, which
 * has room for 4 bytes; returns the bytes written (1 to 4).
 */
size_t utf8_encode(uint32_t code_point, char *out);

/* Bytes of the character whose lead byte is c, by c alone (1 for a byte that cannot lead). */
static inline uint32_t utf8_width(unsigned char c)
{
    if (c < 0x80)
        return 1;
    if ((c & 0xE0) == 0xC0)
        return 2;
    if ((c & 0xF0) == 0xE0)
        return 3;
    if ((c & 0xF8) == 0xF0)
        return 4;
    return 1;
}

/* Offset of the character after the one at `position` (clamped to length). */
static inline uint32_t utf8_next(const char *text, uint32_t length, uint32_t position)
{
    uint32_t next = position + utf8_width((unsigned char)text[position]);
    return next > length ? length : next;
}

/* Characters in text[0..length): the bytes that are not continuation bytes. */
static inline uint32_t utf8_count(const char *text, uint32_t length)
{
    uint32_t count = 0;
    for (uint32_t i = 0; i < length; i++)
        if (((unsigned char)text[i] & 0xC0) != 0x80)
            count++;
    return count;
}

/* Byte offset of character `index` (clamped to length). */
static inline uint32_t utf8_offset(const char *text, uint32_t length, int64_t index)
{
    uint32_t position = 0;
    for (int64_t i = 0; i < index && position < length; i++)
        position = utf8_next(text, length, position);
    return position;
}

#endif
