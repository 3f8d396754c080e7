/*
 * type.c - SQL types: construction, classification, widening, spelling.
 */
#include "engine/base/type.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

DataType type_make(TypeId id, bool nullable)
{
    DataType type = {.id = id, .nullable = nullable};
    switch (id) {
    case TYPE_VARBINARY:
    case TYPE_VARCHAR:
        type.precision = TYPE_STRING_LENGTH;
        break;
    case TYPE_CHAR:
    case TYPE_BINARY:
        type.precision = 1;
        break;
    case TYPE_DECIMAL:
        type.precision = 10;
        break;
    case TYPE_TIMESTAMP:
    case TYPE_TIMESTAMP_LTZ:
        type.precision = 6;
        break;
    default:
        break;
    }
    return type;
}

DataType type_make_decimal(int32_t precision, int32_t scale, bool nullable)
{
    DataType type = {
        .id = TYPE_DECIMAL, .precision = precision, .scale = scale, .nullable = nullable};
    return type;
}

DataType type_make_varchar(int32_t length, bool nullable)
{
    DataType type = {.id = TYPE_VARCHAR, .precision = length, .nullable = nullable};
    return type;
}

DataType type_make_timestamp(TypeId id, int32_t precision, bool nullable)
{
    DataType type = {.id = id, .precision = precision, .nullable = nullable};
    return type;
}

DataType type_make_binary(TypeId id, int32_t length, bool nullable)
{
    DataType type = {.id = id, .precision = length, .nullable = nullable};
    return type;
}

static ElementType element_from_type(DataType type)
{
    ElementType element = {.id = type.id,
                           .precision = type.precision,
                           .scale = type.scale,
                           .nullable = type.nullable,
                           .composite = type.composite};
    return element;
}

static DataType type_from_element(ElementType element)
{
    DataType type = {.id = element.id,
                     .precision = element.precision,
                     .scale = element.scale,
                     .nullable = element.nullable,
                     .composite = element.composite};
    return type;
}

/* ------------------------------------------------------------ composites */

/* The interned shapes: a list, searched under the lock (types are made while binding, not
   per row). */
typedef struct InternedComposite {
    struct InternedComposite *next;
    TypeId id;
    CompositeType shape; /* flexible: fields follow */
} InternedComposite;

static pthread_mutex_t interned_lock = PTHREAD_MUTEX_INITIALIZER;
static InternedComposite *interned_head;

/* Exact equality of two types as parts of a composite (nullability and names count). */
static bool type_identical(DataType a, DataType b)
{
    if (a.id != b.id || a.nullable != b.nullable || a.precision != b.precision ||
        a.scale != b.scale || a.composite != b.composite)
        return false;
    if (a.id == TYPE_MAP)
        return type_identical(type_from_element(a.map_key), type_from_element(b.map_key)) &&
               type_identical(type_from_element(a.map_value), type_from_element(b.map_value));
    return true;
}

static const CompositeType *type_intern(TypeId id, const char *const *names, const DataType *types,
                                        uint32_t count)
{
    pthread_mutex_lock(&interned_lock);
    for (InternedComposite *item = interned_head; item; item = item->next) {
        if (item->id != id || item->shape.field_count != count)
            continue;
        uint32_t i = 0;
        while (i < count && strcmp(item->shape.fields[i].name, names[i]) == 0 &&
               type_identical(item->shape.fields[i].type, types[i]))
            i++;
        if (i == count) {
            pthread_mutex_unlock(&interned_lock);
            return &item->shape;
        }
    }
    size_t size = sizeof(InternedComposite) + count * sizeof(TypeField);
    for (uint32_t i = 0; i < count; i++)
        size += strlen(names[i]) + 1;
    InternedComposite *item = calloc(1, size);
    if (!item) {
        pthread_mutex_unlock(&interned_lock);
        return NULL;
    }
    char *text = (char *)&item->shape.fields[count];
    item->id = id;
    item->shape.field_count = count;
    for (uint32_t i = 0; i < count; i++) {
        size_t length = strlen(names[i]);
        memcpy(text, names[i], length + 1);
        item->shape.fields[i].name = text;
        item->shape.fields[i].type = types[i];
        item->shape.fields[i].type.time_attribute = TIME_ATTRIBUTE_NONE;
        text += length + 1;
    }
    item->next = interned_head;
    interned_head = item;
    pthread_mutex_unlock(&interned_lock);
    return &item->shape;
}

bool type_make_row(const char *const *names, const DataType *types, uint32_t count, bool nullable,
                   DataType *result)
{
    if (count == 0)
        return false;
    const CompositeType *shape = type_intern(TYPE_ROW, names, types, count);
    if (!shape)
        return false;
    *result = (DataType){.id = TYPE_ROW, .nullable = nullable, .composite = shape};
    return true;
}

static bool type_make_collection(TypeId id, DataType element, bool nullable, DataType *result)
{
    const char *name = "";
    const CompositeType *shape = type_intern(id, &name, &element, 1);
    if (!shape)
        return false;
    *result = (DataType){.id = id, .nullable = nullable, .composite = shape};
    return true;
}

bool type_make_array(DataType element, bool nullable, DataType *result)
{
    return type_make_collection(TYPE_ARRAY, element, nullable, result);
}

bool type_make_multiset(DataType element, bool nullable, DataType *result)
{
    return type_make_collection(TYPE_MULTISET, element, nullable, result);
}

DataType type_element(DataType collection)
{
    if ((collection.id != TYPE_ARRAY && collection.id != TYPE_MULTISET) || !collection.composite)
        return type_make(TYPE_NULL, true);
    return collection.composite->fields[0].type;
}

uint32_t type_field_count(DataType row)
{
    return row.id == TYPE_ROW && row.composite ? row.composite->field_count : 0;
}

DataType type_field(DataType row, uint32_t field)
{
    return row.composite->fields[field].type;
}

const char *type_field_name(DataType row, uint32_t field)
{
    return row.composite->fields[field].name;
}

bool type_is_composite(TypeId id)
{
    return id == TYPE_ROW || id == TYPE_ARRAY || id == TYPE_MULTISET;
}

DataType type_make_map(DataType key, DataType value, bool nullable)
{
    DataType type = {.id = TYPE_MAP,
                     .nullable = nullable,
                     .map_key = element_from_type(key),
                     .map_value = element_from_type(value)};
    return type;
}

DataType type_map_key(DataType map)
{
    return type_from_element(map.map_key);
}

DataType type_map_value(DataType map)
{
    return type_from_element(map.map_value);
}

bool type_is_integer(TypeId id)
{
    return id == TYPE_TINYINT || id == TYPE_SMALLINT || id == TYPE_INT || id == TYPE_BIGINT;
}

bool type_is_numeric(TypeId id)
{
    return type_is_integer(id) || id == TYPE_FLOAT || id == TYPE_DOUBLE || id == TYPE_DECIMAL;
}

bool type_is_string(TypeId id)
{
    return id == TYPE_CHAR || id == TYPE_VARCHAR;
}

bool type_is_temporal(TypeId id)
{
    return id == TYPE_DATE || id == TYPE_TIME || id == TYPE_TIMESTAMP || id == TYPE_TIMESTAMP_LTZ;
}

bool type_is_interval(TypeId id)
{
    return id == TYPE_INTERVAL_DAY_TIME || id == TYPE_INTERVAL_YEAR_MONTH;
}

bool type_is_binary(TypeId id)
{
    return id == TYPE_BINARY || id == TYPE_VARBINARY;
}

bool type_is_variable_length(TypeId id)
{
    return type_is_string(id) || type_is_binary(id) || id == TYPE_MAP || type_is_composite(id);
}

static bool element_equals(ElementType a, ElementType b)
{
    return type_equals(type_from_element(a), type_from_element(b));
}

bool type_equals(DataType a, DataType b)
{
    if (a.id != b.id)
        return false;
    if (a.id == TYPE_DECIMAL)
        return a.precision == b.precision && a.scale == b.scale;
    if (a.id == TYPE_BINARY)
        return a.precision == b.precision; /* fixed length: padding differs */
    if (a.id == TYPE_MAP)
        return element_equals(a.map_key, b.map_key) && element_equals(a.map_value, b.map_value);
    if (type_is_composite(a.id)) {
        if (a.composite == b.composite)
            return true;
        if (!a.composite || !b.composite || a.composite->field_count != b.composite->field_count)
            return false;
        for (uint32_t i = 0; i < a.composite->field_count; i++) {
            const TypeField *x = &a.composite->fields[i], *y = &b.composite->fields[i];
            if (strcmp(x->name, y->name) != 0 || x->type.nullable != y->type.nullable ||
                !type_equals(x->type, y->type))
                return false;
        }
        return true;
    }
    return true;
}

/* The common type of two composites of one kind: field by field (names must agree). */
static bool type_common_composite(DataType a, DataType b, bool nullable, DataType *result)
{
    if (a.id != b.id || !a.composite || !b.composite ||
        a.composite->field_count != b.composite->field_count)
        return false;
    uint32_t count = a.composite->field_count;
    if (a.composite == b.composite) {
        *result = a;
        result->nullable = nullable;
        return true;
    }
    const char **names = malloc(count * sizeof *names);
    DataType *types = malloc(count * sizeof *types);
    bool ok = names && types;
    for (uint32_t i = 0; ok && i < count; i++) {
        const TypeField *x = &a.composite->fields[i], *y = &b.composite->fields[i];
        names[i] = x->name;
        ok = strcmp(x->name, y->name) == 0 && type_common(x->type, y->type, &types[i]);
        if (ok && types[i].id == TYPE_NULL)
            ok = false;
    }
    if (ok)
        ok = a.id == TYPE_ROW     ? type_make_row(names, types, count, nullable, result)
             : a.id == TYPE_ARRAY ? type_make_array(types[0], nullable, result)
                                  : type_make_multiset(types[0], nullable, result);
    free(names);
    free(types);
    return ok;
}

static int integer_digits(TypeId id)
{
    switch (id) {
    case TYPE_TINYINT:
        return 3;
    case TYPE_SMALLINT:
        return 5;
    case TYPE_INT:
        return 10;
    default:
        return 19;
    }
}

static int integer_rank(TypeId id)
{
    switch (id) {
    case TYPE_TINYINT:
        return 1;
    case TYPE_SMALLINT:
        return 2;
    case TYPE_INT:
        return 3;
    default:
        return 4;
    }
}

bool type_common(DataType a, DataType b, DataType *result)
{
    bool nullable = a.nullable || b.nullable;
    if (a.id == TYPE_NULL) {
        *result = b;
        result->nullable = true;
        return true;
    }
    if (b.id == TYPE_NULL) {
        *result = a;
        result->nullable = true;
        return true;
    }
    if (type_is_composite(a.id) || type_is_composite(b.id))
        return type_common_composite(a, b, nullable, result);
    if (a.id == TYPE_MAP || b.id == TYPE_MAP) {
        if (!type_equals(a, b))
            return false;
        *result = a;
        result->nullable = nullable;
        return true;
    }
    if (a.id == b.id && a.id != TYPE_DECIMAL && a.id != TYPE_BINARY) {
        *result = a;
        if (a.precision < b.precision)
            result->precision = b.precision;
        result->nullable = nullable;
        result->time_attribute = TIME_ATTRIBUTE_NONE;
        if (a.time_attribute == b.time_attribute)
            result->time_attribute = a.time_attribute;
        return true;
    }
    if (type_is_numeric(a.id) && type_is_numeric(b.id)) {
        if (a.id == TYPE_DOUBLE || b.id == TYPE_DOUBLE || a.id == TYPE_FLOAT ||
            b.id == TYPE_FLOAT) {
            TypeId id = (a.id == TYPE_DOUBLE || b.id == TYPE_DOUBLE) ? TYPE_DOUBLE
                        : (a.id == TYPE_FLOAT && b.id == TYPE_FLOAT) ? TYPE_FLOAT
                                                                     : TYPE_DOUBLE;
            *result = type_make(id, nullable);
            return true;
        }
        if (type_is_integer(a.id) && type_is_integer(b.id)) {
            *result = type_make(integer_rank(a.id) >= integer_rank(b.id) ? a.id : b.id, nullable);
            return true;
        }
        /* at least one DECIMAL */
        int a_scale = a.id == TYPE_DECIMAL ? a.scale : 0;
        int b_scale = b.id == TYPE_DECIMAL ? b.scale : 0;
        int a_int = a.id == TYPE_DECIMAL ? a.precision - a.scale : integer_digits(a.id);
        int b_int = b.id == TYPE_DECIMAL ? b.precision - b.scale : integer_digits(b.id);
        int scale = a_scale > b_scale ? a_scale : b_scale;
        int digits = a_int > b_int ? a_int : b_int;
        int precision = digits + scale;
        if (precision > TYPE_DECIMAL_MAX_PRECISION)
            precision = TYPE_DECIMAL_MAX_PRECISION;
        if (scale > precision)
            scale = precision;
        *result = type_make_decimal(precision, scale, nullable);
        return true;
    }
    if (type_is_string(a.id) && type_is_string(b.id)) {
        int32_t length = a.precision > b.precision ? a.precision : b.precision;
        *result = type_make_varchar(length, nullable);
        return true;
    }
    if (type_is_binary(a.id) && type_is_binary(b.id)) {
        if (a.id == TYPE_BINARY && b.id == TYPE_BINARY && a.precision == b.precision) {
            *result = a;
            result->nullable = nullable;
            return true;
        }
        int32_t length = a.precision > b.precision ? a.precision : b.precision;
        *result = type_make_binary(TYPE_VARBINARY, length, nullable);
        return true;
    }
    if ((a.id == TYPE_TIMESTAMP && b.id == TYPE_TIMESTAMP_LTZ) ||
        (a.id == TYPE_TIMESTAMP_LTZ && b.id == TYPE_TIMESTAMP)) {
        *result = type_make_timestamp(
            TYPE_TIMESTAMP_LTZ, a.precision > b.precision ? a.precision : b.precision, nullable);
        return true;
    }
    if ((a.id == TYPE_DATE && b.id == TYPE_TIMESTAMP) ||
        (a.id == TYPE_TIMESTAMP && b.id == TYPE_DATE)) {
        *result = type_make_timestamp(TYPE_TIMESTAMP,
                                      a.id == TYPE_TIMESTAMP ? a.precision : b.precision, nullable);
        return true;
    }
    return false;
}

/* Calcite's INTERVAL with the unit the literal was written in (TypeIntervalUnit). */
static const char *interval_unit_name(DataType type)
{
    if (type.id == TYPE_INTERVAL_YEAR_MONTH)
        return type.precision == TYPE_INTERVAL_UNIT_YEAR ? "INTERVAL YEAR" : "INTERVAL MONTH";
    switch (type.precision) {
    case TYPE_INTERVAL_UNIT_DAY:
        return "INTERVAL DAY";
    case TYPE_INTERVAL_UNIT_HOUR:
        return "INTERVAL HOUR";
    case TYPE_INTERVAL_UNIT_MINUTE:
        return "INTERVAL MINUTE";
    default:
        return "INTERVAL SECOND";
    }
}

/* Appends text to buffer (size) at *used, cutting at the end. */
static void type_text_append(char *buffer, size_t size, size_t *used, const char *text)
{
    size_t length = strlen(text);
    if (*used + 1 >= size)
        return;
    if (length > size - 1 - *used)
        length = size - 1 - *used;
    memcpy(buffer + *used, text, length);
    *used += length;
    buffer[*used] = '\0';
}

/* Flink's ROW<`a` INT, `b` STRING>, ARRAY<INT>, MULTISET<STRING>; Calcite's RecordType(INTEGER
   a, VARCHAR(2147483647) b), INTEGER ARRAY, VARCHAR(2147483647) MULTISET. */
static void type_format_composite(DataType type, unsigned flags, char *buffer, size_t size)
{
    bool calcite = flags & TYPE_FORMAT_CALCITE;
    unsigned element_flags = (flags & ~TYPE_FORMAT_TIME_ATTRIBUTE) | TYPE_FORMAT_NOT_NULL;
    size_t used = 0;
    buffer[0] = '\0';
    char *part = malloc(size);
    if (!part)
        return;
    if (type.id == TYPE_ROW) {
        type_text_append(buffer, size, &used, calcite ? "RecordType(" : "ROW<");
        for (uint32_t i = 0; i < type.composite->field_count; i++) {
            const TypeField *field = &type.composite->fields[i];
            if (i > 0)
                type_text_append(buffer, size, &used, ", ");
            type_format_as(field->type, element_flags, part, size);
            if (calcite) {
                type_text_append(buffer, size, &used, part);
                type_text_append(buffer, size, &used, " ");
                type_text_append(buffer, size, &used, field->name);
            } else {
                type_text_append(buffer, size, &used, "`");
                type_text_append(buffer, size, &used, field->name);
                type_text_append(buffer, size, &used, "` ");
                type_text_append(buffer, size, &used, part);
            }
        }
        type_text_append(buffer, size, &used, calcite ? ")" : ">");
    } else {
        const char *name = type.id == TYPE_ARRAY ? "ARRAY" : "MULTISET";
        type_format_as(type.composite->fields[0].type, element_flags, part, size);
        if (calcite) {
            type_text_append(buffer, size, &used, part);
            type_text_append(buffer, size, &used, " ");
            type_text_append(buffer, size, &used, name);
        } else {
            type_text_append(buffer, size, &used, name);
            type_text_append(buffer, size, &used, "<");
            type_text_append(buffer, size, &used, part);
            type_text_append(buffer, size, &used, ">");
        }
    }
    free(part);
}

const char *type_format_as(DataType type, unsigned flags, char *buffer, size_t size)
{
    bool calcite = flags & TYPE_FORMAT_CALCITE;
    const char *charset = flags & TYPE_FORMAT_CHARSET ? " CHARACTER SET \"UTF-16LE\"" : "";
    bool unbounded = type.precision == TYPE_STRING_LENGTH;
    char base[512];
    switch (type.id) {
    case TYPE_NULL:
        snprintf(base, sizeof base, "NULL");
        break;
    case TYPE_BOOLEAN:
        snprintf(base, sizeof base, "BOOLEAN");
        break;
    case TYPE_TINYINT:
        snprintf(base, sizeof base, "TINYINT");
        break;
    case TYPE_SMALLINT:
        snprintf(base, sizeof base, "SMALLINT");
        break;
    case TYPE_INT:
        snprintf(base, sizeof base, calcite ? "INTEGER" : "INT");
        break;
    case TYPE_BIGINT:
        snprintf(base, sizeof base, "BIGINT");
        break;
    case TYPE_FLOAT:
        snprintf(base, sizeof base, "FLOAT");
        break;
    case TYPE_DOUBLE:
        snprintf(base, sizeof base, "DOUBLE");
        break;
    case TYPE_DECIMAL:
        snprintf(base, sizeof base, "DECIMAL(%d, %d)", (int)type.precision, (int)type.scale);
        break;
    case TYPE_CHAR:
        snprintf(base, sizeof base, "CHAR(%d)%s", (int)type.precision, charset);
        break;
    case TYPE_VARCHAR:
        if (unbounded && !calcite)
            snprintf(base, sizeof base, "STRING");
        else
            snprintf(base, sizeof base, "VARCHAR(%d)%s", (int)type.precision, charset);
        break;
    case TYPE_DATE:
        snprintf(base, sizeof base, "DATE");
        break;
    case TYPE_TIME:
        snprintf(base, sizeof base, "TIME(%d)", (int)type.precision);
        break;
    case TYPE_TIMESTAMP:
        snprintf(base, sizeof base, "TIMESTAMP(%d)", (int)type.precision);
        break;
    case TYPE_TIMESTAMP_LTZ:
        snprintf(base, sizeof base,
                 calcite ? "TIMESTAMP_WITH_LOCAL_TIME_ZONE(%d)" : "TIMESTAMP_LTZ(%d)",
                 (int)type.precision);
        break;
    case TYPE_INTERVAL_DAY_TIME:
        snprintf(base, sizeof base, "%s",
                 calcite ? interval_unit_name(type) : "INTERVAL SECOND(3)");
        break;
    case TYPE_INTERVAL_YEAR_MONTH:
        snprintf(base, sizeof base, "%s", calcite ? interval_unit_name(type) : "INTERVAL MONTH");
        break;
    case TYPE_BINARY:
        snprintf(base, sizeof base, "BINARY(%d)", (int)type.precision);
        break;
    case TYPE_VARBINARY:
        if (unbounded && !calcite)
            snprintf(base, sizeof base, "BYTES");
        else
            snprintf(base, sizeof base, "VARBINARY(%d)", (int)type.precision);
        break;
    case TYPE_ROW:
    case TYPE_ARRAY:
    case TYPE_MULTISET:
        type_format_composite(type, flags, base, sizeof base);
        break;
    case TYPE_MAP: {
        /* Calcite's element names were always cut at 39 characters (a STRING key with its
           CHARACTER SET does not fit); kept so that plans stay as they were */
        char key[64], value[64];
        size_t element_size = calcite ? 40 : sizeof key;
        unsigned element_flags = flags | TYPE_FORMAT_NOT_NULL;
        type_format_as(type_map_key(type), element_flags, key, element_size);
        type_format_as(type_map_value(type), element_flags, value, element_size);
        snprintf(base, sizeof base, calcite ? "(%s, %s) MAP" : "MAP<%s, %s>", key, value);
        break;
    }
    }
    const char *attribute = "";
    if (flags & TYPE_FORMAT_TIME_ATTRIBUTE)
        attribute = type.time_attribute == TIME_ATTRIBUTE_ROWTIME    ? " *ROWTIME*"
                    : type.time_attribute == TIME_ATTRIBUTE_PROCTIME ? " *PROCTIME*"
                                                                     : "";
    const char *not_null = (flags & TYPE_FORMAT_NOT_NULL) && !type.nullable ? " NOT NULL" : "";
    snprintf(buffer, size, "%s%s%s", base, calcite ? attribute : not_null,
             calcite ? not_null : attribute);
    return buffer;
}

const char *type_format(DataType type, char *buffer, size_t size)
{
    return type_format_as(type, TYPE_FORMAT_NOT_NULL | TYPE_FORMAT_TIME_ATTRIBUTE, buffer, size);
}
