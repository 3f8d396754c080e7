/*
 * datagen.c - Flink's 'datagen' source: random or sequence values for
 * every physical column, optionally bounded, at a given rate.
 *
 * Options: rows-per-second (default 10000, for the whole source),
 * number-of-rows (bounded when set), and per column fields.<name>.kind
 * (random | sequence), .min/.max (random numbers), .max-past (random
 * DATE/TIMESTAMP: at most this far before now), .length and .var-len
 * (random strings), .start/.end (sequences), .null-rate (random).
 *
 * Determinism: the values of the row with global index g depend only on
 * SourceSpec.seed, the table name and g (a splitmix64 stream seeded from
 * them, drawn once per field in column order). Random DATE/TIMESTAMP values
 * are offsets back from the poll's now_millis. So equal specs give equal
 * rows, and with parallelism p the reader of subtask i produces exactly the
 * rows g = i, i + p, i + 2p, ... of the parallelism-1 output: the union over
 * subtasks equals it (same values, same count).
 *
 * Bounds: the source ends after number-of-rows rows or when the shortest
 * sequence is exhausted (as in Flink), whichever is first.
 *
 * Rate: each reader gets rows-per-second / p. Measured from its first poll,
 * by time t it may have produced 1 + floor((t - t0) * rate / 1000) rows;
 * ahead of that, poll returns SOURCE_POLL_IDLE with the time the next row
 * is due. poll never sleeps.
 */
#include "engine/connector/connector.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/duration.h"
#include "engine/base/value.h"

enum { DATAGEN_DEFAULT_ROWS_PER_SECOND = 10000, DATAGEN_DEFAULT_STRING_LENGTH = 100 };

typedef enum DatagenKind {
    DATAGEN_RANDOM = 0,
    DATAGEN_SEQUENCE = 1,
    DATAGEN_NULL = 2, /* not a physical column (metadata): always NULL */
} DatagenKind;

typedef struct DatagenField {
    DataType type;
    DatagenKind kind;
    int64_t min_int, max_int; /* integers, DECIMAL (scaled) */
    double min_double, max_double;
    int64_t start, end; /* sequence */
    uint32_t length;    /* strings */
    bool var_len;
    int64_t max_past_millis;
    double null_rate;
} DatagenField;

typedef struct DatagenReader {
    SourceReader base;
    uint32_t field_count;
    DatagenField *fields;
    uint64_t base_seed;
    bool bounded;
    uint64_t local_rows; /* rows this reader produces when bounded */
    uint64_t emitted;
    int parallelism;
    int subtask;
    double rate; /* rows per second for this reader */
    bool started;
    int64_t first_poll_millis;
    RowBuilder builder;
    char *text; /* string value being generated */
    size_t text_capacity;
} DatagenReader;

static uint64_t splitmix64_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double unit_interval(uint64_t bits)
{
    return (double)(bits >> 11) * 0x1.0p-53;
}

static uint64_t hash_text(const char *text, uint64_t hash)
{
    for (const unsigned char *p = (const unsigned char *)text; p && *p; p++)
        hash = (hash ^ *p) * 0x100000001B3ull;
    return hash;
}

static const char *field_option(const CatalogTable *table, const char *column, const char *name)
{
    char key[512];
    snprintf(key, sizeof key, "fields.%s.%s", column, name);
    return catalog_table_option(table, key);
}

static bool parse_double(const char *text, double *result)
{
    char *stop;
    errno = 0;
    double value = strtod(text, &stop);
    while (*stop == ' ')
        stop++;
    if (stop == text || *stop != '\0')
        return false;
    *result = value;
    return true;
}

static void integer_range(DataType type, int64_t *low, int64_t *high)
{
    switch (type.id) {
    case TYPE_TINYINT:
        *low = -128;
        *high = 127;
        break;
    case TYPE_SMALLINT:
        *low = -32768;
        *high = 32767;
        break;
    case TYPE_INT:
        *low = INT32_MIN;
        *high = INT32_MAX;
        break;
    case TYPE_DECIMAL: {
        int precision = type.precision > 18 ? 18 : type.precision;
        int64_t limit = decimal_power_of_ten(precision) - 1;
        *low = -limit;
        *high = limit;
        break;
    }
    default:
        *low = INT64_MIN;
        *high = INT64_MAX;
        break;
    }
}

static bool datagen_type_supported(TypeId id)
{
    return id != TYPE_NULL && id != TYPE_INTERVAL_DAY_TIME && id != TYPE_INTERVAL_YEAR_MONTH &&
           id != TYPE_MAP;
}

/* Reads the options of one physical column. Returns JOINERY_OK or a validate error. */
static int datagen_parse_field(const CatalogTable *table, const char *column, DataType type,
                               DatagenField *field, Diag *diag)
{
    char type_name[64];
    memset(field, 0, sizeof *field);
    field->type = type;
    if (!datagen_type_supported(type.id))
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "datagen cannot generate values of type %s (column '%s')",
                          type_format(type, type_name, sizeof type_name), column);
    const char *kind = field_option(table, column, "kind");
    if (kind && strcmp(kind, "sequence") == 0) {
        field->kind = DATAGEN_SEQUENCE;
    } else if (!kind || strcmp(kind, "random") == 0) {
        field->kind = DATAGEN_RANDOM;
    } else {
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Invalid value for option 'fields.%s.kind': '%s' (expected 'random' or "
                          "'sequence')",
                          column, kind);
    }
    const char *start = field_option(table, column, "start");
    const char *end = field_option(table, column, "end");
    const char *min = field_option(table, column, "min");
    const char *max = field_option(table, column, "max");
    if (field->kind == DATAGEN_SEQUENCE) {
        if (!type_is_numeric(type.id) && !type_is_string(type.id))
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "datagen cannot generate a sequence of type %s (column '%s')",
                              type_format(type, type_name, sizeof type_name), column);
        if (!start || !end)
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "Could not find required property 'fields.%s.%s' for sequence "
                              "generator.",
                              column, !start ? "start" : "end");
        if (!connector_parse_int64(start, &field->start) ||
            !connector_parse_int64(end, &field->end))
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "Invalid sequence bounds for column '%s': start and end must be "
                              "integers ('%s', '%s')",
                              column, start, end);
        if (field->start > field->end)
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "Invalid sequence for column '%s': start %lld is greater than end "
                              "%lld",
                              column, (long long)field->start, (long long)field->end);
        int64_t low, high;
        integer_range(type, &low, &high);
        if (type.id == TYPE_DECIMAL) {
            int64_t unscaled_high = high / decimal_power_of_ten(type.scale);
            low = -unscaled_high;
            high = unscaled_high;
        }
        if (type_is_integer(type.id) || type.id == TYPE_DECIMAL) {
            if (field->start < low || field->end > high)
                return diag_error(diag, JOINERY_ERROR_VALIDATE,
                                  "Sequence bounds of column '%s' are out of range for %s", column,
                                  type_format(type, type_name, sizeof type_name));
        }
        if (min || max)
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "Options 'fields.%s.min'/'max' apply to random fields; column "
                              "'%s' is a sequence (use start and end)",
                              column, column);
    } else if (start || end) {
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Options 'fields.%s.start'/'end' apply to sequence fields; set "
                          "'fields.%s.kind' = 'sequence'",
                          column, column);
    }

    /* random bounds */
    integer_range(type, &field->min_int, &field->max_int);
    field->min_double = type.id == TYPE_FLOAT ? 1.4e-45 : 4.9e-324;
    field->max_double = type.id == TYPE_FLOAT ? 3.4028234663852886e38 : 1.7976931348623157e308;
    if ((min || max) && !type_is_numeric(type.id))
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Options 'fields.%s.min'/'max' apply to numeric columns; '%s' is %s",
                          column, column, type_format(type, type_name, sizeof type_name));
    const char *bounds[2] = {min, max};
    for (int i = 0; i < 2; i++) {
        if (!bounds[i])
            continue;
        const char *which = i == 0 ? "min" : "max";
        if (type.id == TYPE_FLOAT || type.id == TYPE_DOUBLE) {
            double value;
            if (!parse_double(bounds[i], &value))
                return diag_error(diag, JOINERY_ERROR_VALIDATE,
                                  "Invalid value for option 'fields.%s.%s': '%s'", column, which,
                                  bounds[i]);
            *(i == 0 ? &field->min_double : &field->max_double) = value;
        } else {
            Value value;
            char reason[96];
            if (value_parse_text(type, bounds[i], (uint32_t)strlen(bounds[i]), NULL, &value, reason,
                                 sizeof reason) != 0)
                return diag_error(diag, JOINERY_ERROR_VALIDATE,
                                  "Invalid value for option 'fields.%s.%s': '%s' (%s)", column,
                                  which, bounds[i], reason);
            *(i == 0 ? &field->min_int : &field->max_int) = value.i;
        }
    }
    if (field->min_int > field->max_int || field->min_double > field->max_double)
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Invalid bounds for column '%s': min is greater than max", column);

    const char *length = field_option(table, column, "length");
    field->length = DATAGEN_DEFAULT_STRING_LENGTH;
    bool sized = type_is_string(type.id) || type_is_binary(type.id);
    if (sized && type.precision > 0 && (uint32_t)type.precision < field->length)
        field->length = (uint32_t)type.precision;
    if (length) {
        int64_t parsed;
        if (!connector_parse_int64(length, &parsed) || parsed < 0 || parsed > (1 << 24))
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "Invalid value for option 'fields.%s.length': '%s'", column, length);
        if (!sized)
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "Option 'fields.%s.length' applies to string and bytes columns only",
                              column);
        if (type.id == TYPE_CHAR || type.id == TYPE_BINARY)
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "Custom length for fixed-length type (%s) field '%s' is not "
                              "supported.",
                              type.id == TYPE_CHAR ? "CHAR" : "BINARY", column);
        field->length = (uint32_t)parsed;
        if (type.precision > 0 && field->length > (uint32_t)type.precision)
            field->length = (uint32_t)type.precision;
    }
    const char *var_len = field_option(table, column, "var-len");
    if (var_len && !connector_parse_bool(var_len, &field->var_len))
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Invalid value for option 'fields.%s.var-len': '%s'", column, var_len);
    const char *max_past = field_option(table, column, "max-past");
    if (max_past) {
        if (duration_parse_millis(max_past, &field->max_past_millis) != 0 ||
            field->max_past_millis < 0)
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "Invalid value for option 'fields.%s.max-past': '%s' (expected a "
                              "duration such as '5 s' or '1 h')",
                              column, max_past);
        if (!type_is_temporal(type.id))
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "Option 'fields.%s.max-past' applies to DATE and TIMESTAMP columns",
                              column);
    }
    const char *null_rate = field_option(table, column, "null-rate");
    if (null_rate) {
        if (!parse_double(null_rate, &field->null_rate) || field->null_rate < 0 ||
            field->null_rate > 1)
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "Invalid value for option 'fields.%s.null-rate': '%s' (expected a "
                              "number between 0 and 1)",
                              column, null_rate);
    }
    return JOINERY_OK;
}

static int parse_source_options(const CatalogTable *table, int64_t *rows_per_second,
                                int64_t *number_of_rows, Diag *diag)
{
    *rows_per_second = DATAGEN_DEFAULT_ROWS_PER_SECOND;
    *number_of_rows = -1;
    const char *rate = catalog_table_option(table, "rows-per-second");
    if (rate && (!connector_parse_int64(rate, rows_per_second) || *rows_per_second <= 0))
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Invalid value for option 'rows-per-second': '%s' (expected a positive "
                          "integer)",
                          rate);
    const char *count = catalog_table_option(table, "number-of-rows");
    if (count && (!connector_parse_int64(count, number_of_rows) || *number_of_rows < 0))
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Invalid value for option 'number-of-rows': '%s' (expected a "
                          "non-negative integer)",
                          count);
    return JOINERY_OK;
}

static int datagen_validate(const CatalogTable *table, Diag *diag)
{
    int64_t rows_per_second, number_of_rows;
    int status = parse_source_options(table, &rows_per_second, &number_of_rows, diag);
    if (status != JOINERY_OK)
        return status;
    for (size_t i = 0; i < table->option_count; i++) {
        const char *key = table->options[i].key;
        if (strncmp(key, "fields.", 7) != 0)
            continue;
        const char *name = key + 7;
        const char *dot = strrchr(name, '.');
        size_t length = dot ? (size_t)(dot - name) : strlen(name);
        bool found = false;
        for (size_t c = 0; c < table->column_count && !found; c++)
            found = table->columns[c].kind == CATALOG_COLUMN_PHYSICAL &&
                    strlen(table->columns[c].name) == length &&
                    strncmp(table->columns[c].name, name, length) == 0;
        if (!found)
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "Unsupported option '%s' for connector 'datagen': '%.*s' is not a "
                              "physical column of table '%s'",
                              key, (int)length, name, table->name);
    }
    for (size_t c = 0; c < table->column_count; c++) {
        const CatalogColumn *column = &table->columns[c];
        if (column->kind == CATALOG_COLUMN_METADATA)
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "Connector 'datagen' provides no metadata (column '%s')",
                              column->name);
        if (column->kind != CATALOG_COLUMN_PHYSICAL)
            continue;
        DatagenField field;
        status = datagen_parse_field(table, column->name, column->type, &field, diag);
        if (status != JOINERY_OK)
            return status;
    }
    return JOINERY_OK;
}

/* Rows of the whole (parallelism-1) source, or -1 when unbounded. */
static int64_t datagen_total_rows(const CatalogTable *table, const DatagenField *fields,
                                  uint32_t field_count, int64_t number_of_rows)
{
    int64_t total = number_of_rows;
    for (uint32_t i = 0; i < field_count; i++) {
        if (fields[i].kind != DATAGEN_SEQUENCE)
            continue;
        uint64_t span = (uint64_t)fields[i].end - (uint64_t)fields[i].start + 1;
        int64_t count = span == 0 || span > INT64_MAX ? INT64_MAX : (int64_t)span;
        if (total < 0 || count < total)
            total = count;
    }
    (void)table;
    return total;
}

static bool datagen_is_bounded(const CatalogTable *table)
{
    if (catalog_table_option(table, "number-of-rows"))
        return true;
    for (size_t i = 0; i < table->option_count; i++) {
        const char *key = table->options[i].key;
        size_t length = strlen(key);
        if (strncmp(key, "fields.", 7) == 0 && length > 5 &&
            strcmp(key + length - 5, ".kind") == 0 &&
            strcmp(table->options[i].value, "sequence") == 0)
            return true;
    }
    return false;
}

static double datagen_estimate_rows(const CatalogTable *table)
{
    const char *count = catalog_table_option(table, "number-of-rows");
    int64_t parsed;
    if (count && connector_parse_int64(count, &parsed))
        return (double)parsed;
    return -1;
}

static bool reserve_text(DatagenReader *reader, size_t size)
{
    if (size <= reader->text_capacity)
        return true;
    size_t capacity = reader->text_capacity ? reader->text_capacity : 128;
    while (capacity < size)
        capacity *= 2;
    char *text = realloc(reader->text, capacity);
    if (!text)
        return false;
    reader->text = text;
    reader->text_capacity = capacity;
    return true;
}

static uint64_t bounded_draw(uint64_t bits, uint64_t span)
{
    return span == 0 ? bits : bits % span;
}

/* Generates field `index` of the row with global index g into the builder. */
static bool datagen_generate_field(DatagenReader *reader, uint32_t index, uint64_t g,
                                   uint64_t *state, int64_t now_millis)
{
    const DatagenField *field = &reader->fields[index];
    RowBuilder *builder = &reader->builder;
    DataType type = field->type;
    if (field->kind == DATAGEN_NULL) {
        row_builder_set_null(builder, index);
        return true;
    }
    if (field->kind == DATAGEN_SEQUENCE) {
        int64_t value = field->start + (int64_t)g;
        if (type_is_string(type.id)) {
            char text[32];
            int length = snprintf(text, sizeof text, "%lld", (long long)value);
            row_builder_set_string(builder, index, text, (uint32_t)length);
        } else if (type.id == TYPE_FLOAT || type.id == TYPE_DOUBLE) {
            double number = (double)value;
            row_builder_set_double(builder, index, type.id == TYPE_FLOAT ? (float)number : number);
        } else if (type.id == TYPE_DECIMAL) {
            row_builder_set_int64(builder, index, value * decimal_power_of_ten(type.scale));
        } else {
            row_builder_set_int64(builder, index, value);
        }
        return true;
    }
    uint64_t bits = splitmix64_next(state);
    if (field->null_rate > 0 && unit_interval(splitmix64_next(state)) < field->null_rate) {
        row_builder_set_null(builder, index);
        return true;
    }
    switch (type.id) {
    case TYPE_BOOLEAN:
        row_builder_set_int64(builder, index, (int64_t)(bits >> 63));
        break;
    case TYPE_TINYINT:
    case TYPE_SMALLINT:
    case TYPE_INT:
    case TYPE_BIGINT:
    case TYPE_DECIMAL: {
        uint64_t span = (uint64_t)field->max_int - (uint64_t)field->min_int + 1;
        row_builder_set_int64(builder, index,
                              (int64_t)((uint64_t)field->min_int + bounded_draw(bits, span)));
        break;
    }
    case TYPE_FLOAT:
    case TYPE_DOUBLE: {
        double u = unit_interval(bits);
        double value = field->min_double + u * (field->max_double - field->min_double);
        if (!isfinite(value))
            value = field->min_double * (1 - u) + field->max_double * u;
        if (value > field->max_double)
            value = field->max_double;
        row_builder_set_double(builder, index, type.id == TYPE_FLOAT ? (float)value : value);
        break;
    }
    case TYPE_CHAR:
    case TYPE_VARCHAR: {
        static const char HEX[] = "0123456789abcdef";
        uint32_t length = field->length;
        if (field->var_len && length > 0)
            length = 1 + (uint32_t)(bits % length);
        if (!reserve_text(reader, length + 1))
            return false;
        uint64_t pool = splitmix64_next(state);
        for (uint32_t i = 0; i < length; i++) {
            if (i % 16 == 0 && i > 0)
                pool = splitmix64_next(state);
            reader->text[i] = HEX[(pool >> (4 * (i % 16))) & 15];
        }
        row_builder_set_string(builder, index, reader->text, length);
        break;
    }
    case TYPE_BINARY:
    case TYPE_VARBINARY: {
        /* random bytes: `length` of them (BINARY(n): n), fewer with var-len */
        uint32_t length = type.id == TYPE_BINARY ? (uint32_t)type.precision : field->length;
        if (field->var_len && length > 0 && type.id != TYPE_BINARY)
            length = 1 + (uint32_t)(bits % length);
        if (!reserve_text(reader, length + 1))
            return false;
        uint64_t pool = 0;
        for (uint32_t i = 0; i < length; i++) {
            if (i % 8 == 0)
                pool = splitmix64_next(state);
            reader->text[i] = (char)(pool >> (8 * (i % 8)));
        }
        row_builder_set_string(builder, index, reader->text, length);
        break;
    }
    case TYPE_DATE: {
        int64_t today = now_millis >= 0 ? now_millis / 86400000 : 0;
        int64_t past_days = field->max_past_millis / 86400000;
        row_builder_set_int64(builder, index,
                              today - (int64_t)bounded_draw(bits, (uint64_t)past_days + 1));
        break;
    }
    case TYPE_TIME:
        row_builder_set_int64(builder, index, (int64_t)(bits % 86400000u));
        break;
    case TYPE_TIMESTAMP:
    case TYPE_TIMESTAMP_LTZ:
        row_builder_set_int64(
            builder, index,
            now_millis - (int64_t)bounded_draw(bits, (uint64_t)field->max_past_millis + 1));
        break;
    default:
        row_builder_set_null(builder, index);
        break;
    }
    return true;
}

static int datagen_poll(SourceReader *base, RowBatch *out, Arena *arena, uint32_t max_rows,
                        int64_t now_millis, int64_t *next_poll_millis, Diag *diag)
{
    DatagenReader *reader = (DatagenReader *)base;
    if (reader->bounded && reader->emitted >= reader->local_rows)
        return SOURCE_POLL_END;
    if (!reader->started) {
        /* a restored reader goes on at its rate as if it had started that much earlier */
        reader->started = true;
        reader->first_poll_millis =
            now_millis - (int64_t)floor((double)reader->emitted * 1000.0 / reader->rate);
    }
    uint64_t limit = max_rows;
    if (out->count >= out->capacity)
        return SOURCE_POLL_ROWS;
    if (limit > out->capacity - out->count)
        limit = out->capacity - out->count;
    if (reader->bounded && limit > reader->local_rows - reader->emitted)
        limit = reader->local_rows - reader->emitted;
    double elapsed = (double)(now_millis - reader->first_poll_millis);
    double allowed = elapsed < 0 ? 1 : floor(elapsed * reader->rate / 1000.0) + 1;
    if (allowed <= (double)reader->emitted) {
        double due = ceil((double)reader->emitted * 1000.0 / reader->rate);
        *next_poll_millis = reader->first_poll_millis + (int64_t)due;
        if (*next_poll_millis <= now_millis)
            *next_poll_millis = now_millis + 1;
        return SOURCE_POLL_IDLE;
    }
    if (allowed - (double)reader->emitted < (double)limit)
        limit = (uint64_t)(allowed - (double)reader->emitted);
    uint32_t field_count = reader->field_count;
    for (uint64_t n = 0; n < limit; n++) {
        uint64_t g = (uint64_t)reader->subtask + reader->emitted * (uint64_t)reader->parallelism;
        uint64_t state = reader->base_seed ^ ((g + 1) * 0xD1B54A32D192ED03ull);
        splitmix64_next(&state);
        row_builder_begin(&reader->builder, field_count, ROW_KIND_INSERT);
        for (uint32_t i = 0; i < field_count; i++)
            if (!datagen_generate_field(reader, i, g, &state, now_millis))
                return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory in datagen");
        Row *row = row_builder_finish(&reader->builder);
        Row *copy = row ? row_copy(arena, row) : NULL;
        if (!copy)
            return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory in datagen");
        out->rows[out->count++] = copy;
        reader->emitted++;
    }
    return SOURCE_POLL_ROWS;
}

static void datagen_close(SourceReader *base)
{
    DatagenReader *reader = (DatagenReader *)base;
    if (!reader)
        return;
    row_builder_free(&reader->builder);
    free(reader->fields);
    free(reader->text);
    free(reader);
}

/* The position: rows this reader produced (row g's values depend only on g). */
static int datagen_snapshot_position(SourceReader *base, const ByteWriter *out)
{
    DatagenReader *reader = (DatagenReader *)base;
    return byte_write_int64(out, (int64_t)reader->emitted);
}

static int datagen_restore_position(SourceReader *base, const ByteReader *in, Diag *diag)
{
    DatagenReader *reader = (DatagenReader *)base;
    int64_t emitted = 0;
    if (byte_read_int64(in, &emitted) != JOINERY_OK || emitted < 0 ||
        (reader->bounded && (uint64_t)emitted > reader->local_rows))
        return diag_error(diag, JOINERY_ERROR_RUNTIME,
                          "The checkpointed position of datagen table '%s' does not fit it",
                          base->spec->table->name);
    reader->emitted = (uint64_t)emitted;
    return JOINERY_OK;
}

static const SourceReaderVtable DATAGEN_READER = {
    .poll = datagen_poll,
    .close = datagen_close,
    .snapshot_position = datagen_snapshot_position,
    .restore_position = datagen_restore_position,
};

static int datagen_create_source(const SourceSpec *spec, SourceReader **result, Diag *diag)
{
    const CatalogTable *table = spec->table;
    int64_t rows_per_second, number_of_rows;
    int status = parse_source_options(table, &rows_per_second, &number_of_rows, diag);
    if (status != JOINERY_OK)
        return status;
    DatagenReader *reader = calloc(1, sizeof *reader);
    if (reader)
        reader->fields = calloc(spec->field_count ? spec->field_count : 1, sizeof *reader->fields);
    if (!reader || !reader->fields) {
        free(reader);
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory creating datagen");
    }
    reader->base.vtable = &DATAGEN_READER;
    reader->base.spec = spec;
    reader->base.impl = reader;
    reader->field_count = spec->field_count;
    row_builder_init(&reader->builder);
    for (uint32_t i = 0; i < spec->field_count; i++) {
        const CatalogColumn *column = &table->columns[spec->columns[i]];
        if (column->kind != CATALOG_COLUMN_PHYSICAL) {
            reader->fields[i].kind = DATAGEN_NULL;
            reader->fields[i].type = spec->types[i];
            continue;
        }
        status = datagen_parse_field(table, column->name, spec->types[i], &reader->fields[i], diag);
        if (status != JOINERY_OK) {
            datagen_close(&reader->base);
            return status;
        }
    }
    int parallelism = spec->parallelism > 0 ? spec->parallelism : 1;
    int subtask =
        spec->subtask_index >= 0 && spec->subtask_index < parallelism ? spec->subtask_index : 0;
    reader->parallelism = parallelism;
    reader->subtask = subtask;
    int64_t total = datagen_total_rows(table, reader->fields, reader->field_count, number_of_rows);
    reader->bounded = total >= 0;
    if (reader->bounded)
        reader->local_rows = (uint64_t)total / (uint64_t)parallelism +
                             ((uint64_t)total % (uint64_t)parallelism > (uint64_t)subtask);
    reader->rate = (double)rows_per_second / parallelism;
    reader->base_seed = hash_text(table->name, 0xCBF29CE484222325ull ^ spec->seed);
    *result = &reader->base;
    return JOINERY_OK;
}

static const ConnectorOption DATAGEN_OPTIONS[] = {
    {"rows-per-second", false, "rows generated per second, default 10000"},
    {"number-of-rows", false, "total rows; the source is bounded when set"},
    {"scan.parallelism", false, "parallelism of the source"},
    {"fields.#.kind", false, "random or sequence"},
    {"fields.#.min", false, "minimum random value"},
    {"fields.#.max", false, "maximum random value"},
    {"fields.#.max-past", false, "how far before now random DATE/TIMESTAMP values go"},
    {"fields.#.length", false, "length of random strings, default 100"},
    {"fields.#.var-len", false, "random string lengths between 1 and length"},
    {"fields.#.start", false, "first value of a sequence"},
    {"fields.#.end", false, "last value of a sequence"},
    {"fields.#.null-rate", false, "fraction of NULL random values"},
};

const Connector connector_datagen = {
    .name = "datagen",
    .options = DATAGEN_OPTIONS,
    .option_count = sizeof DATAGEN_OPTIONS / sizeof DATAGEN_OPTIONS[0],
    .validate = datagen_validate,
    .is_bounded = datagen_is_bounded,
    .estimate_rows = datagen_estimate_rows,
    .create_source = datagen_create_source,
    .create_sink = NULL,
};
