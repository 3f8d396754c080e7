/*
 * memory_size.h - memory sizes as Flink options write them ("512 mb").
 *
 * Accepted: "<number>[ ]<unit>" with units b, bytes, k, kb, kibibytes, m,
 * mb, mebibytes, g, gb, gibibytes, t, tb, tebibytes (case-insensitive;
 * every unit is a power of 1024, as in Flink's MemorySize); a bare number
 * is bytes.
 */
#ifndef JOINERY_BASE_MEMORY_SIZE_H
#define JOINERY_BASE_MEMORY_SIZE_H

#include <stdint.h>

/* Returns 0 and the size in bytes, or -1 when text is not a memory size (or overflows). */
int memory_size_parse(const char *text, uint64_t *bytes);

#endif
