/*
 * composite.h - the encoding of one ROW, ARRAY or MULTISET value: all its
 * parts in one byte string, stored in a row's variable tail like a string
 * (and like a MAP, whose element encoding it shares, see map.h).
 *
 *   ROW       [element]*field_count            (the type gives the count)
 *   ARRAY     [uint32 count][element]*count    (in order)
 *   MULTISET  [uint32 count]([element][uint64 multiplicity])*count
 *   element = [uint8 0: NULL] | [uint8 1][8 bytes: int64 or double bits]
 *             | [uint8 1][uint32 length][bytes]   (variable-length types,
 *               a nested MAP, ROW, ARRAY or MULTISET included)
 *
 * Integers are little-endian, unaligned (read with memcpy), so a value may
 * sit anywhere in a row's tail.
 *
 * Canonical form (what the encoders here produce): doubles with -0.0 stored
 * as 0.0, FLOAT values rounded to float, a MULTISET's elements distinct,
 * sorted (NULL first, then value_compare of the element type) with
 * multiplicities above zero. Nested values are canonical because they were
 * built by these encoders. Equal values are therefore byte-identical, so
 * rows holding them keep row.h's memcmp equality and hashing, and state
 * (both backends), checkpoints, GROUP BY, DISTINCT and join keys need
 * nothing more. Ownership: encoders append to a StrBuf the caller owns;
 * readers give Values that point into the bytes they read.
 */
#ifndef JOINERY_BASE_COMPOSITE_H
#define JOINERY_BASE_COMPOSITE_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/base/strbuf.h"
#include "engine/base/type.h"
#include "engine/base/value.h"

/* Appends one element (NULL or a value of `type`) in the encoding above; 0 or -1 (no memory). */
int composite_append_element(DataType type, Value value, StrBuf *out);
/* Reads one element of `type` at *cursor (advanced); false on truncated bytes. */
bool composite_read_element(const uint8_t **cursor, const uint8_t *end, DataType type,
                            Value *value);

/* Appends the encoding of a ROW value from its field values (type_field_count of them). */
int row_value_encode(DataType row_type, const Value *fields, StrBuf *out);
/* Field `field` of an encoded ROW value; false on bad bytes. */
bool row_value_field(DataType row_type, const char *bytes, uint32_t length, uint32_t field,
                     Value *value);

/* Appends the encoding of an ARRAY value. */
int array_encode(DataType array_type, const Value *elements, uint32_t count, StrBuf *out);
/* Element `position` (1-based, as SQL) of an encoded array; false when out of range. */
bool array_element_at(DataType array_type, const char *bytes, uint32_t length, int64_t position,
                      Value *value);

typedef struct MultisetElement {
    Value element;
    int64_t count;
} MultisetElement;

/*
 * Sorts entries in place, adds the counts of equal elements, drops elements
 * whose count is not positive, and appends the canonical encoding.
 */
int multiset_encode(DataType multiset_type, MultisetElement *entries, uint32_t count, StrBuf *out);

/* Reads the elements of an ARRAY (multiplicity 1 each) or MULTISET one by one. */
typedef struct CollectionReader {
    const uint8_t *cursor;
    const uint8_t *end;
    uint32_t remaining;
    bool multiset;
    DataType element_type;
} CollectionReader;

/* Starts reading; false when the bytes are too short to be a collection. */
bool collection_reader_init(CollectionReader *reader, DataType collection_type, const char *bytes,
                            uint32_t length);
/* Next element and its multiplicity; false at the end or on bad bytes. */
bool collection_reader_next(CollectionReader *reader, Value *element, int64_t *multiplicity);
/* Number of entries: an ARRAY's elements, a MULTISET's distinct elements. */
uint32_t collection_entry_count(const char *bytes, uint32_t length);

/* Formats one element (possibly NULL) inside a composite; 0 or -1 (no memory). */
typedef int (*CompositeElementFormat)(DataType type, Value value, StrBuf *out);

/* How composite_append_text writes a ROW: "(" ")" (Flink's CAST to STRING, the SQL client),
   "+I[" "]" (Java's Row.toString, the print connector). */
typedef struct CompositeTextStyle {
    CompositeElementFormat format;
    const char *row_open;
    const char *row_close;
} CompositeTextStyle;

/*
 * Appends a ROW as (f1, f2), an ARRAY as [e1, e2], a MULTISET as Java's
 * Map.toString {e1=2, e2=1} (sorted), each part written by style->format.
 */
int composite_append_text(DataType type, Value value, const CompositeTextStyle *style, StrBuf *out);

#endif
