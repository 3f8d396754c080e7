/*
 * text.h - terminal text measurement shared by the renderers and the error
 * caret: display width of UTF-8 text and width-bounded truncation.
 *
 * Invariants: invalid UTF-8 bytes count as one column each and are never
 * split; East Asian wide and fullwidth characters count as two columns (as
 * Flink's TableauStyle counts them); all other characters as one. UTF-8 is
 * decoded by the engine's decoder (joinery_utf8_decode, engine/engine.h).
 */
#ifndef JOINERY_CLI_TEXT_H
#define JOINERY_CLI_TEXT_H

#include <stddef.h>
#include <stdint.h>

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
