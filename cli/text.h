/*
 * text.h - terminal text measurement shared by the renderers and the error
 * caret: display width of UTF-8 text and width-bounded truncation.
 *
 * Invariants: invalid UTF-8 bytes count as one column each and are never
 * split; East Asian wide and fullwidth characters count as two columns (as
 * Flink's TableauStyle counts them); all other characters as one.
 */
#ifndef JOINERY_CLI_TEXT_H
#define JOINERY_CLI_TEXT_H

#include <stddef.h>
#include <stdint.h>

/*
 * Decodes the UTF-8 sequence at text[0..length-1] (length >= 1). Returns its
 * byte length (1 for an invalid byte) and stores the code point, or
 * UINT32_MAX for an invalid byte, in *code_point.
 */
size_t text_decode_utf8(const char *text, size_t length, uint32_t *code_point);

/* Columns a code point takes on a terminal: 2 for wide characters, else 1. */
size_t text_code_point_width(uint32_t code_point);

/* Display width of text[0..length-1]. */
size_t text_display_width(const char *text, size_t length);

/*
 * The longest prefix of text[0..length-1] whose display width is at most
 * max_width; returns its byte length and stores its width in *width.
 */
size_t text_prefix_for_width(const char *text, size_t length, size_t max_width, size_t *width);

#endif
