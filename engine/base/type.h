/*
 * type.h - SQL data types as Flink names them, and how each is stored.
 *
 * Every value lives in one 8-byte row slot (see row.h):
 *   BOOLEAN                      int64 0/1
 *   TINYINT SMALLINT INT BIGINT  int64
 *   FLOAT DOUBLE                 double (FLOAT is rounded to float on store)
 *   DECIMAL(p,s), p <= 18        int64 holding value * 10^s
 *   CHAR VARCHAR STRING          offset/length into the row's variable tail
 *   BINARY VARBINARY BYTES       offset/length into the tail (raw bytes)
 *   MAP<K, V>                    offset/length into the tail: the entries
 *                                encoded by map.h (sorted by key, canonical)
 *   ROW<f1 T1, ...>              offset/length into the tail: the fields
 *                                encoded by composite.h
 *   ARRAY<T>                     offset/length into the tail: the elements
 *                                in order (composite.h)
 *   MULTISET<T>                  offset/length into the tail: distinct
 *                                elements sorted, each with its count
 *                                (composite.h, canonical)
 *   DATE                         int64 days since 1970-01-01
 *   TIME(p)                      int64 milliseconds since midnight
 *   TIMESTAMP(p), TIMESTAMP_LTZ  int64 milliseconds since the epoch (UTC)
 *   INTERVAL DAY TO SECOND       int64 milliseconds
 *   INTERVAL YEAR TO MONTH       int64 months
 * Precision above 3 for time types is accepted and printed, but values are
 * kept to the millisecond; DECIMAL precision above 18 is rejected.
 * A MAP's key and value types are kept inline in the DataType (map_key,
 * map_value; no MAP directly inside a MAP), so DataType stays a plain value
 * that is copied freely. ROW, ARRAY and MULTISET point at an interned
 * CompositeType (their fields or element): created once per distinct shape
 * by type_make_row / type_make_array / type_make_multiset, never freed and
 * never changed, shared by every thread, so the pointer is as freely copied
 * as the rest of the DataType. Composites nest to any depth (bounded by the
 * parser's depth guard).
 */
#ifndef JOINERY_BASE_TYPE_H
#define JOINERY_BASE_TYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum TypeId {
    TYPE_NULL = 0, /* the type of the NULL literal before it is widened */
    TYPE_BOOLEAN,
    TYPE_TINYINT,
    TYPE_SMALLINT,
    TYPE_INT,
    TYPE_BIGINT,
    TYPE_FLOAT,
    TYPE_DOUBLE,
    TYPE_DECIMAL,
    TYPE_CHAR,
    TYPE_VARCHAR, /* STRING is VARCHAR(2147483647) */
    TYPE_DATE,
    TYPE_TIME,
    TYPE_TIMESTAMP,
    TYPE_TIMESTAMP_LTZ,
    TYPE_INTERVAL_DAY_TIME,
    TYPE_INTERVAL_YEAR_MONTH,
    TYPE_BINARY,    /* BINARY(n): exactly n bytes */
    TYPE_VARBINARY, /* VARBINARY(n); BYTES is VARBINARY(2147483647) */
    TYPE_MAP,       /* MAP<map_key, map_value> */
    TYPE_ROW,       /* ROW<name type, ...>: composite->fields */
    TYPE_ARRAY,     /* ARRAY<element>: composite->fields[0].type */
    TYPE_MULTISET,  /* MULTISET<element>: composite->fields[0].type */
} TypeId;

/* Time attribute marker carried by a TIMESTAMP column (Flink's *ROWTIME*). */
typedef enum TimeAttribute {
    TIME_ATTRIBUTE_NONE = 0,
    TIME_ATTRIBUTE_ROWTIME,
    TIME_ATTRIBUTE_PROCTIME,
} TimeAttribute;

enum { TYPE_STRING_LENGTH = 2147483647, TYPE_DECIMAL_MAX_PRECISION = 18 };

typedef struct CompositeType CompositeType;

/* The key or value type of a MAP: a type without time attribute. */
typedef struct ElementType {
    TypeId id; /* never TYPE_MAP */
    int32_t precision;
    int32_t scale;
    bool nullable;
    const CompositeType *composite; /* ROW, ARRAY, MULTISET only */
} ElementType;

typedef struct DataType {
    TypeId id;
    int32_t precision; /* DECIMAL p, CHAR/VARCHAR/BINARY/VARBINARY length, TIME/TIMESTAMP p */
    int32_t scale;     /* DECIMAL s */
    bool nullable;
    TimeAttribute time_attribute;
    ElementType map_key;            /* MAP only, else zero */
    ElementType map_value;          /* MAP only, else zero */
    const CompositeType *composite; /* ROW, ARRAY, MULTISET only (interned), else NULL */
} DataType;

/* One field of a ROW (name as written, case kept), or the element of an ARRAY or MULTISET
   (name ""). */
typedef struct TypeField {
    const char *name;
    DataType type;
} TypeField;

/* What a ROW, ARRAY or MULTISET type is made of; interned, immutable, never freed. */
struct CompositeType {
    uint32_t field_count; /* ROW: its fields (at least 1); ARRAY, MULTISET: 1 */
    TypeField fields[];
};

DataType type_make(TypeId id, bool nullable);
DataType type_make_decimal(int32_t precision, int32_t scale, bool nullable);
DataType type_make_varchar(int32_t length, bool nullable);
DataType type_make_timestamp(TypeId id, int32_t precision, bool nullable);
/* BINARY(length) or VARBINARY(length) (BYTES: length TYPE_STRING_LENGTH). */
DataType type_make_binary(TypeId id, int32_t length, bool nullable);
/* MAP<key, value>; key and value must not be MAP (the caller checks). */
DataType type_make_map(DataType key, DataType value, bool nullable);
/* The key / value type of a MAP type as a DataType. */
DataType type_map_key(DataType map);
DataType type_map_value(DataType map);

/*
 * ROW<names[0] types[0], ...> (count >= 1), ARRAY<element>, MULTISET<element>:
 * the shape is interned (names copied), so equal shapes share one
 * CompositeType. Return false only when memory is exhausted (or count is 0).
 */
bool type_make_row(const char *const *names, const DataType *types, uint32_t count, bool nullable,
                   DataType *result);
bool type_make_array(DataType element, bool nullable, DataType *result);
bool type_make_multiset(DataType element, bool nullable, DataType *result);
/* The element type of an ARRAY or MULTISET. */
DataType type_element(DataType collection);
/* Number of fields of a ROW (0 for other types), field i's type and name. */
uint32_t type_field_count(DataType row);
DataType type_field(DataType row, uint32_t field);
const char *type_field_name(DataType row, uint32_t field);
/* True for ROW, ARRAY and MULTISET. */
bool type_is_composite(TypeId id);

bool type_is_integer(TypeId id);  /* TINYINT..BIGINT */
bool type_is_numeric(TypeId id);  /* integers, FLOAT, DOUBLE, DECIMAL */
bool type_is_string(TypeId id);   /* CHAR, VARCHAR */
bool type_is_temporal(TypeId id); /* DATE, TIME, TIMESTAMP, TIMESTAMP_LTZ */
bool type_is_interval(TypeId id);
bool type_is_binary(TypeId id); /* BINARY, VARBINARY */
/* True when values of the type live in the row's variable tail. */
bool type_is_variable_length(TypeId id);
/* True when two types have identical storage and meaning (ignores nullability at the top;
   the fields and elements of composites must agree in name, type and nullability). */
bool type_equals(DataType a, DataType b);

/*
 * Least restrictive common type of a and b as Flink widens them for
 * comparison, arithmetic, CASE, COALESCE, UNION (INT+BIGINT -> BIGINT,
 * INT+DECIMAL(10,2) -> DECIMAL(12,2), numeric+DOUBLE -> DOUBLE, CHAR+VARCHAR ->
 * VARCHAR, NULL+T -> T nullable; ROWs with the same field names and ARRAYs or MULTISETs
 * field by field / element by element). Returns false when there is none.
 */
bool type_common(DataType a, DataType b, DataType *result);

/*
 * Unit an INTERVAL literal was written in, kept in its DataType's
 * `precision` (unused otherwise for intervals) so that EXPLAIN prints
 * 3600000:INTERVAL HOUR as Flink does. 0 means SECOND (day-time) or MONTH
 * (year-month). The value is always milliseconds or months.
 */
typedef enum TypeIntervalUnit {
    TYPE_INTERVAL_UNIT_DEFAULT = 0,
    TYPE_INTERVAL_UNIT_YEAR,
    TYPE_INTERVAL_UNIT_MONTH,
    TYPE_INTERVAL_UNIT_DAY,
    TYPE_INTERVAL_UNIT_HOUR,
    TYPE_INTERVAL_UNIT_MINUTE,
    TYPE_INTERVAL_UNIT_SECOND,
} TypeIntervalUnit;

/* What type_format_as writes besides the type's name. */
enum {
    /* Calcite's spelling, as Flink's plans and validation messages show it: INTEGER,
       VARCHAR(2147483647), TIMESTAMP_WITH_LOCAL_TIME_ZONE(3), (K, V) MAP, INTERVAL HOUR (the
       literal's unit), a time attribute before NOT NULL. Without it Flink's own: INT, STRING,
       TIMESTAMP_LTZ(3), MAP<K, V>, INTERVAL SECOND(3), BYTES, NOT NULL before *ROWTIME*. */
    TYPE_FORMAT_CALCITE = 1 << 0,
    TYPE_FORMAT_CHARSET = 1 << 1,        /* CHARACTER SET "UTF-16LE" after CHAR/VARCHAR */
    TYPE_FORMAT_NOT_NULL = 1 << 2,       /* " NOT NULL" when not nullable */
    TYPE_FORMAT_TIME_ATTRIBUTE = 1 << 3, /* " *ROWTIME*", " *PROCTIME*" */
};

/*
 * Writes the type's name into buffer as `flags` (TYPE_FORMAT_*) ask;
 * returns buffer. Both spellings of a type come from here.
 */
const char *type_format_as(DataType type, unsigned flags, char *buffer, size_t size);

/*
 * Writes the Flink spelling ("BIGINT", "STRING", "DECIMAL(10, 2)",
 * "TIMESTAMP(3)", "TIMESTAMP(3) *ROWTIME*", "BYTES", "MAP<STRING, BYTES>", with
 * " NOT NULL" when not nullable) into buffer; returns buffer.
 */
const char *type_format(DataType type, char *buffer, size_t size);

#endif
