/*
 * composite.c - encoding, reading and printing of ROW, ARRAY and MULTISET
 * values (see composite.h); the element encoding is also map.c's.
 */
#include "engine/base/composite.h"

#include <stdlib.h>
#include <string.h>

int composite_append_element(DataType type, Value value, StrBuf *out)
{
    if (value.is_null)
        return strbuf_append_char(out, 0);
    if (strbuf_append_char(out, 1) != 0)
        return -1;
    if (type_is_variable_length(type.id)) {
        uint32_t length = value.s.len;
        if (strbuf_append(out, (const char *)&length, sizeof length) != 0)
            return -1;
        return length ? strbuf_append(out, value.s.ptr, length) : 0;
    }
    uint64_t bits;
    if (type.id == TYPE_FLOAT || type.id == TYPE_DOUBLE) {
        double d = type.id == TYPE_FLOAT ? (double)(float)value.d : value.d;
        if (d == 0.0)
            d = 0.0;
        memcpy(&bits, &d, sizeof bits);
    } else {
        bits = (uint64_t)value.i;
    }
    return strbuf_append(out, (const char *)&bits, sizeof bits);
}

bool composite_read_element(const uint8_t **cursor, const uint8_t *end, DataType type, Value *value)
{
    const uint8_t *at = *cursor;
    if (at >= end)
        return false;
    uint8_t present = *at++;
    if (!present) {
        *value = value_null();
        *cursor = at;
        return true;
    }
    if (type_is_variable_length(type.id)) {
        uint32_t length;
        if ((size_t)(end - at) < sizeof length)
            return false;
        memcpy(&length, at, sizeof length);
        at += sizeof length;
        if ((size_t)(end - at) < length)
            return false;
        *value = value_string((const char *)at, length);
        *cursor = at + length;
        return true;
    }
    uint64_t bits;
    if ((size_t)(end - at) < sizeof bits)
        return false;
    memcpy(&bits, at, sizeof bits);
    if (type.id == TYPE_FLOAT || type.id == TYPE_DOUBLE) {
        double d;
        memcpy(&d, &bits, sizeof d);
        *value = value_double(d);
    } else {
        *value = value_int((int64_t)bits);
    }
    *cursor = at + sizeof bits;
    return true;
}

int row_value_encode(DataType row_type, const Value *fields, StrBuf *out)
{
    uint32_t count = type_field_count(row_type);
    for (uint32_t i = 0; i < count; i++)
        if (composite_append_element(type_field(row_type, i), fields[i], out) != 0)
            return -1;
    return 0;
}

bool row_value_field(DataType row_type, const char *bytes, uint32_t length, uint32_t field,
                     Value *value)
{
    const uint8_t *cursor = (const uint8_t *)bytes, *end = cursor + length;
    if (field >= type_field_count(row_type))
        return false;
    for (uint32_t i = 0; i <= field; i++)
        if (!composite_read_element(&cursor, end, type_field(row_type, i), value))
            return false;
    return true;
}

int array_encode(DataType array_type, const Value *elements, uint32_t count, StrBuf *out)
{
    DataType element_type = type_element(array_type);
    if (strbuf_append(out, (const char *)&count, sizeof count) != 0)
        return -1;
    for (uint32_t i = 0; i < count; i++)
        if (composite_append_element(element_type, elements[i], out) != 0)
            return -1;
    return 0;
}

bool array_element_at(DataType array_type, const char *bytes, uint32_t length, int64_t position,
                      Value *value)
{
    CollectionReader reader;
    if (position < 1 || !collection_reader_init(&reader, array_type, bytes, length) ||
        position > (int64_t)reader.remaining)
        return false;
    int64_t multiplicity;
    for (int64_t i = 0; i < position; i++)
        if (!collection_reader_next(&reader, value, &multiplicity))
            return false;
    return true;
}

/* Order of multiset elements: NULL first, then value_compare. */
static int multiset_element_compare(DataType type, Value a, Value b)
{
    if (a.is_null || b.is_null)
        return a.is_null == b.is_null ? 0 : a.is_null ? -1 : 1;
    return value_compare(type, a, b);
}

int multiset_encode(DataType multiset_type, MultisetElement *entries, uint32_t count, StrBuf *out)
{
    DataType element_type = type_element(multiset_type);
    /* insertion sort: collections built by aggregates arrive nearly sorted */
    for (uint32_t i = 1; i < count; i++) {
        MultisetElement entry = entries[i];
        uint32_t j = i;
        while (j > 0 &&
               multiset_element_compare(element_type, entries[j - 1].element, entry.element) > 0) {
            entries[j] = entries[j - 1];
            j--;
        }
        entries[j] = entry;
    }
    uint32_t unique = 0;
    for (uint32_t i = 0; i < count;) {
        MultisetElement merged = entries[i++];
        while (i < count &&
               multiset_element_compare(element_type, merged.element, entries[i].element) == 0)
            merged.count += entries[i++].count;
        if (merged.count > 0)
            entries[unique++] = merged;
    }
    if (strbuf_append(out, (const char *)&unique, sizeof unique) != 0)
        return -1;
    for (uint32_t i = 0; i < unique; i++) {
        uint64_t multiplicity = (uint64_t)entries[i].count;
        if (composite_append_element(element_type, entries[i].element, out) != 0 ||
            strbuf_append(out, (const char *)&multiplicity, sizeof multiplicity) != 0)
            return -1;
    }
    return 0;
}

bool collection_reader_init(CollectionReader *reader, DataType collection_type, const char *bytes,
                            uint32_t length)
{
    memset(reader, 0, sizeof *reader);
    reader->element_type = type_element(collection_type);
    reader->multiset = collection_type.id == TYPE_MULTISET;
    if (length < sizeof(uint32_t))
        return false;
    memcpy(&reader->remaining, bytes, sizeof reader->remaining);
    reader->cursor = (const uint8_t *)bytes + sizeof(uint32_t);
    reader->end = (const uint8_t *)bytes + length;
    return true;
}

bool collection_reader_next(CollectionReader *reader, Value *element, int64_t *multiplicity)
{
    if (reader->remaining == 0)
        return false;
    if (!composite_read_element(&reader->cursor, reader->end, reader->element_type, element)) {
        reader->remaining = 0;
        return false;
    }
    *multiplicity = 1;
    if (reader->multiset) {
        uint64_t bits;
        if ((size_t)(reader->end - reader->cursor) < sizeof bits) {
            reader->remaining = 0;
            return false;
        }
        memcpy(&bits, reader->cursor, sizeof bits);
        reader->cursor += sizeof bits;
        *multiplicity = (int64_t)bits;
    }
    reader->remaining--;
    return true;
}

uint32_t collection_entry_count(const char *bytes, uint32_t length)
{
    uint32_t count = 0;
    if (length >= sizeof count)
        memcpy(&count, bytes, sizeof count);
    return count;
}

int composite_append_text(DataType type, Value value, const CompositeTextStyle *style, StrBuf *out)
{
    if (type.id == TYPE_ROW) {
        if (strbuf_append_cstr(out, style->row_open) != 0)
            return -1;
        uint32_t count = type_field_count(type);
        const uint8_t *cursor = (const uint8_t *)value.s.ptr, *end = cursor + value.s.len;
        for (uint32_t i = 0; i < count; i++) {
            Value field;
            if (!composite_read_element(&cursor, end, type_field(type, i), &field))
                break;
            if ((i > 0 && strbuf_append_cstr(out, ", ") != 0) ||
                style->format(type_field(type, i), field, out) != 0)
                return -1;
        }
        return strbuf_append_cstr(out, style->row_close);
    }
    bool multiset = type.id == TYPE_MULTISET;
    if (strbuf_append_char(out, multiset ? '{' : '[') != 0)
        return -1;
    CollectionReader reader;
    Value element;
    int64_t multiplicity;
    if (collection_reader_init(&reader, type, value.s.ptr, value.s.len)) {
        bool first = true;
        while (collection_reader_next(&reader, &element, &multiplicity)) {
            if ((!first && strbuf_append_cstr(out, ", ") != 0) ||
                style->format(reader.element_type, element, out) != 0)
                return -1;
            if (multiset && strbuf_printf(out, "=%lld", (long long)multiplicity) != 0)
                return -1;
            first = false;
        }
    }
    return strbuf_append_char(out, multiset ? '}' : ']');
}
