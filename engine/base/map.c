/*
 * map.c - encoding, reading and look-up of MAP values (see map.h).
 */
#include "engine/base/map.h"

#include "engine/base/composite.h"

#include <string.h>

/* Order of keys: NULL first, then value_compare. */
static int map_key_compare(DataType key_type, Value a, Value b)
{
    if (a.is_null || b.is_null)
        return a.is_null == b.is_null ? 0 : a.is_null ? -1 : 1;
    return value_compare(key_type, a, b);
}

static int map_append_element(DataType type, Value value, StrBuf *out)
{
    return composite_append_element(type, value, out);
}

int map_encode(DataType map_type, MapEntry *entries, uint32_t count, StrBuf *out)
{
    DataType key_type = type_map_key(map_type);
    DataType value_type = type_map_value(map_type);
    /* stable insertion sort: duplicate keys keep their input order */
    for (uint32_t i = 1; i < count; i++) {
        MapEntry entry = entries[i];
        uint32_t j = i;
        while (j > 0 && map_key_compare(key_type, entries[j - 1].key, entry.key) > 0) {
            entries[j] = entries[j - 1];
            j--;
        }
        entries[j] = entry;
    }
    uint32_t unique = 0;
    for (uint32_t i = 0; i < count; i++) {
        if (i + 1 < count && map_key_compare(key_type, entries[i].key, entries[i + 1].key) == 0)
            continue; /* a later duplicate wins */
        entries[unique++] = entries[i];
    }
    if (strbuf_append(out, (const char *)&unique, sizeof unique) != 0)
        return -1;
    for (uint32_t i = 0; i < unique; i++)
        if (map_append_element(key_type, entries[i].key, out) != 0 ||
            map_append_element(value_type, entries[i].value, out) != 0)
            return -1;
    return 0;
}

bool map_reader_init(MapReader *reader, DataType map_type, const char *bytes, uint32_t length)
{
    memset(reader, 0, sizeof *reader);
    reader->key_type = type_map_key(map_type);
    reader->value_type = type_map_value(map_type);
    if (length < sizeof(uint32_t))
        return false;
    memcpy(&reader->remaining, bytes, sizeof reader->remaining);
    reader->cursor = (const uint8_t *)bytes + sizeof(uint32_t);
    reader->end = (const uint8_t *)bytes + length;
    return true;
}

static bool map_read_element(MapReader *reader, DataType type, Value *value)
{
    return composite_read_element(&reader->cursor, reader->end, type, value);
}

bool map_reader_next(MapReader *reader, MapEntry *entry)
{
    if (reader->remaining == 0)
        return false;
    if (!map_read_element(reader, reader->key_type, &entry->key) ||
        !map_read_element(reader, reader->value_type, &entry->value)) {
        reader->remaining = 0;
        return false;
    }
    reader->remaining--;
    return true;
}

uint32_t map_cardinality(const char *bytes, uint32_t length)
{
    uint32_t count = 0;
    if (length >= sizeof count)
        memcpy(&count, bytes, sizeof count);
    return count;
}

bool map_lookup(DataType map_type, const char *bytes, uint32_t length, Value key, Value *value)
{
    MapReader reader;
    if (key.is_null || !map_reader_init(&reader, map_type, bytes, length))
        return false;
    MapEntry entry;
    while (map_reader_next(&reader, &entry)) {
        if (entry.key.is_null)
            continue;
        int c = value_compare(reader.key_type, entry.key, key);
        if (c == 0) {
            *value = entry.value;
            return true;
        }
        if (c > 0)
            return false; /* sorted: the key would have come already */
    }
    return false;
}

int map_append_text(DataType map_type, Value map, MapElementFormat format, StrBuf *out)
{
    MapReader reader;
    MapEntry entry;
    if (strbuf_append_char(out, '{') != 0)
        return -1;
    bool first = true;
    if (map_reader_init(&reader, map_type, map.s.ptr, map.s.len)) {
        while (map_reader_next(&reader, &entry)) {
            if ((!first && strbuf_append_cstr(out, ", ") != 0) ||
                format(reader.key_type, entry.key, out) != 0 || strbuf_append_char(out, '=') != 0 ||
                format(reader.value_type, entry.value, out) != 0)
                return -1;
            first = false;
        }
    }
    return strbuf_append_char(out, '}');
}
