/*
 * map.h - the encoding of one MAP<K, V> value: all its entries in one byte
 * string, stored in a row's variable tail like a string.
 *
 *   [uint32 count][entry]*count     entry = key element, value element
 *   element = [uint8 0: NULL] | [uint8 1][8 bytes: int64 or double bits]
 *             | [uint8 1][uint32 length][bytes]   (variable-length types)
 *   (the element encoding of composite.h, which ROW / ARRAY / MULTISET share)
 *
 * Integers are little-endian, unaligned (read with memcpy).
 *
 * Canonical form (what map_encode produces): entries sorted by key
 * (value_compare of the key type, a NULL key first), keys unique (the last
 * of duplicate keys wins, as Java's HashMap.put), doubles with -0.0 stored as
 * 0.0. Equal maps are therefore byte-identical, so rows holding maps keep
 * row.h's memcmp equality and hashing. Entries are printed in key order
 * (Flink prints a hash map's order, which SQL does not define).
 */
#ifndef JOINERY_BASE_MAP_H
#define JOINERY_BASE_MAP_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/base/strbuf.h"
#include "engine/base/type.h"
#include "engine/base/value.h"

typedef struct MapEntry {
    Value key;
    Value value;
} MapEntry;

/*
 * Sorts entries (in place) by key, drops duplicate keys keeping the last,
 * and appends the canonical encoding to out. map_type is a TYPE_MAP type.
 * Returns 0 or -1 (no memory).
 */
int map_encode(DataType map_type, MapEntry *entries, uint32_t count, StrBuf *out);

/* Reads entries of an encoded map one by one. */
typedef struct MapReader {
    const uint8_t *cursor;
    const uint8_t *end;
    uint32_t remaining;
    DataType key_type;
    DataType value_type;
} MapReader;

/* Starts reading; false when the bytes are not an encoded map. */
bool map_reader_init(MapReader *reader, DataType map_type, const char *bytes, uint32_t length);
/* Next entry into *entry (strings point into the map); false at the end or on bad bytes. */
bool map_reader_next(MapReader *reader, MapEntry *entry);

/* Number of entries (0 for bytes that are not an encoded map). */
uint32_t map_cardinality(const char *bytes, uint32_t length);

/* Formats one element (a key or a value, possibly NULL) of a map; 0 or -1 (no memory). */
typedef int (*MapElementFormat)(DataType type, Value value, StrBuf *out);
/*
 * Appends the map as Java's Map.toString does, {k1=v1, k2=v2} (entries in
 * key order), each element written by `format`. 0 or -1 (no memory).
 */
int map_append_text(DataType map_type, Value map, MapElementFormat format, StrBuf *out);

/* The value for `key` (non-NULL); false when the key is absent. */
bool map_lookup(DataType map_type, const char *bytes, uint32_t length, Value key, Value *value);

#endif
