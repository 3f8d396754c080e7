/*
 * duration.h - durations as Flink options and hints write them.
 *
 * Accepted: "<number>[ ]<unit>" with units ms, milli(s), millisecond(s),
 * s, sec(s), second(s), min(s), minute(s), h, hour(s), d, day(s); a bare
 * number is milliseconds. Printed back in the largest exact unit ("1 h",
 * "90 s", "0 ms").
 */
#ifndef JOINERY_BASE_DURATION_H
#define JOINERY_BASE_DURATION_H

#include <stddef.h>
#include <stdint.h>

/* Returns 0 and the duration in ms, or -1 when text is not a duration. */
int duration_parse_millis(const char *text, int64_t *millis);
/* Writes the largest exact unit form ("1 h") into buffer; returns buffer. */
const char *duration_format(int64_t millis, char *buffer, size_t size);

#endif
