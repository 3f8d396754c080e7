/*
 * print.c - Flink's 'print' sink: every row becomes one line as Flink's
 * Row.toString writes it, "+I[1, alice, 12.50]": the row kind, then the
 * values in brackets separated by ", ", NULL as "null", values in Java's
 * toString forms (true, 1.5, 2024-01-01T12:00, 12:00:01.5 -> 12:00:01.500).
 * With 'print-identifier' the line is prefixed "<identifier>> ".
 *
 * Lines go through SinkSpec.write_line (one call per line, no '\n'); when
 * the spec has none they go to stdout, or stderr with 'standard-error'.
 * The line buffer is reused across rows.
 */
#include "engine/connector/connector.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/composite.h"
#include "engine/base/map.h"
#include "engine/base/strbuf.h"
#include "engine/base/value.h"
#include "engine/format/format.h"

typedef struct PrintWriter {
    SinkWriter base;
    const char *identifier; /* NULL when none; borrowed from the table */
    bool standard_error;
    StrBuf line;
} PrintWriter;

/* Java's LocalTime.toString: HH:mm, then :ss when seconds or fraction, then .SSS. */
static int append_java_time(int64_t millis, bool always_seconds, StrBuf *out)
{
    int64_t seconds = millis / 1000;
    int fraction = (int)(millis % 1000);
    int second = (int)(seconds % 60);
    if (strbuf_printf(out, "%02d:%02d", (int)(seconds / 3600), (int)(seconds / 60 % 60)) != 0)
        return -1;
    if (second == 0 && fraction == 0 && !always_seconds)
        return 0;
    if (strbuf_printf(out, ":%02d", second) != 0)
        return -1;
    return fraction ? strbuf_printf(out, ".%03d", fraction) : 0;
}

static int append_java_date_time(int64_t epoch_millis, bool instant, StrBuf *out)
{
    int64_t days =
        epoch_millis >= 0 ? epoch_millis / 86400000 : -((-epoch_millis + 86399999) / 86400000);
    int64_t millis = epoch_millis - days * 86400000;
    int64_t year;
    unsigned month, day;
    datetime_civil_from_days(days, &year, &month, &day);
    if (strbuf_printf(out, "%04lld-%02u-%02uT", (long long)year, month, day) != 0 ||
        append_java_time(millis, instant, out) != 0)
        return -1;
    return instant ? strbuf_append_char(out, 'Z') : 0;
}

/* Java's Duration.toString: PT8H6M12.345S, PT0S. */
static int append_java_duration(int64_t millis, StrBuf *out)
{
    if (millis == 0)
        return strbuf_append_cstr(out, "PT0S");
    const char *sign = millis < 0 ? "-" : "";
    uint64_t magnitude = millis < 0 ? (uint64_t)0 - (uint64_t)millis : (uint64_t)millis;
    uint64_t hours = magnitude / 3600000, minutes = magnitude / 60000 % 60;
    uint64_t seconds = magnitude / 1000 % 60, fraction = magnitude % 1000;
    if (strbuf_append_cstr(out, "PT") != 0)
        return -1;
    if (hours && strbuf_printf(out, "%s%lluH", sign, (unsigned long long)hours) != 0)
        return -1;
    if (minutes && strbuf_printf(out, "%s%lluM", sign, (unsigned long long)minutes) != 0)
        return -1;
    if (seconds || fraction) {
        if (strbuf_printf(out, "%s%llu", sign, (unsigned long long)seconds) != 0)
            return -1;
        if (fraction) {
            char digits[8];
            snprintf(digits, sizeof digits, "%03u", (unsigned)fraction);
            size_t n = 3;
            while (digits[n - 1] == '0')
                n--;
            digits[n] = '\0';
            if (strbuf_printf(out, ".%s", digits) != 0)
                return -1;
        }
        return strbuf_append_char(out, 'S');
    }
    return 0;
}

/* Java's Period.toString for months: P1Y2M, P0D. */
static int append_java_period(int64_t months, StrBuf *out)
{
    if (months == 0)
        return strbuf_append_cstr(out, "P0D");
    int64_t years = months / 12, rest = months % 12;
    if (strbuf_append_char(out, 'P') != 0)
        return -1;
    if (years && strbuf_printf(out, "%lldY", (long long)years) != 0)
        return -1;
    return rest ? strbuf_printf(out, "%lldM", (long long)rest) : 0;
}

static int print_append_value(DataType type, Value value, StrBuf *out)
{
    if (value.is_null)
        return strbuf_append_cstr(out, "null");
    switch (type.id) {
    case TYPE_BINARY:
    case TYPE_VARBINARY:
        /* Row.toString prints a byte[] as Arrays.toString: signed decimal bytes */
        if (strbuf_append_char(out, '[') != 0)
            return -1;
        for (uint32_t i = 0; i < value.s.len; i++)
            if (strbuf_printf(out, i ? ", %d" : "%d", (int)(int8_t)value.s.ptr[i]) != 0)
                return -1;
        return strbuf_append_char(out, ']');
    case TYPE_MAP: /* a Java Map's toString: {k1=v1, k2=v2} (entries in key order here) */
        return map_append_text(type, value, print_append_value, out);
    case TYPE_ROW:
    case TYPE_ARRAY:
    case TYPE_MULTISET: {
        /* a nested Row's toString +I[a, b]; an array as Arrays.deepToString [a, b]; a multiset
           as its Map<element, count> {a=2, b=1} */
        static const CompositeTextStyle style = {print_append_value, "+I[", "]"};
        return composite_append_text(type, value, &style, out);
    }
    case TYPE_BOOLEAN:
        return strbuf_append_cstr(out, value.i ? "true" : "false");
    case TYPE_TIME:
        return append_java_time(value.i, false, out);
    case TYPE_TIMESTAMP:
        return append_java_date_time(value.i, false, out);
    case TYPE_TIMESTAMP_LTZ:
        return append_java_date_time(value.i, true, out);
    case TYPE_INTERVAL_DAY_TIME:
        return append_java_duration(value.i, out);
    case TYPE_INTERVAL_YEAR_MONTH:
        return append_java_period(value.i, out);
    case TYPE_FLOAT: {
        /* Float.toString: shortest digits that read back as the same float */
        char text[48];
        float number = (float)value.d;
        for (int digits = 1; digits <= 9; digits++) {
            snprintf(text, sizeof text, "%.*g", digits, (double)number);
            if (strtof(text, NULL) == number)
                break;
        }
        return value_format_text(type_make(TYPE_DOUBLE, true), value_double(strtod(text, NULL)),
                                 out);
    }
    default:
        return value_format_text(type, value, out);
    }
}

static int print_write(SinkWriter *writer, const RowBatch *batch, Diag *diag)
{
    PrintWriter *print = (PrintWriter *)writer;
    const SinkSpec *spec = writer->spec;
    for (uint32_t r = 0; r < batch->count; r++) {
        const Row *row = batch->rows[r];
        StrBuf *line = &print->line;
        strbuf_clear(line);
        int failed = 0;
        if (print->identifier)
            failed |= strbuf_printf(line, "%s> ", print->identifier);
        failed |= strbuf_printf(line, "%s[", row_kind_name(row_kind(row)));
        uint32_t count =
            spec->field_count < row_field_count(row) ? spec->field_count : row_field_count(row);
        for (uint32_t field = 0; field < count && !failed; field++) {
            if (field > 0)
                failed |= strbuf_append_cstr(line, ", ");
            DataType type = spec->types[field];
            failed |= print_append_value(type, value_from_row(row, field, type), line);
        }
        failed |= strbuf_append_char(line, ']');
        failed |= strbuf_show_nul(line, 0); /* lines are C strings: a NUL shows as U+2400 */
        if (failed)
            return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory in print sink");
        if (spec->write_line) {
            int status = spec->write_line(spec->line_context, strbuf_cstr(line));
            if (status != 0)
                return diag_error(diag, JOINERY_ERROR_RUNTIME,
                                  "print sink: could not write a line (status %d)", status);
        } else {
            FILE *stream = print->standard_error ? stderr : stdout;
            if (fprintf(stream, "%s\n", strbuf_cstr(line)) < 0)
                return diag_error(diag, JOINERY_ERROR_RUNTIME, "print sink: write failed");
        }
        writer->rows_written++;
    }
    return JOINERY_OK;
}

static int print_finish(SinkWriter *writer, Diag *diag)
{
    PrintWriter *print = (PrintWriter *)writer;
    (void)diag;
    if (!writer->spec->write_line)
        fflush(print->standard_error ? stderr : stdout);
    return JOINERY_OK;
}

static void print_close(SinkWriter *writer)
{
    PrintWriter *print = (PrintWriter *)writer;
    strbuf_free(&print->line);
    free(print);
}

static const SinkWriterVtable PRINT_WRITER = {
    .write = print_write,
    .finish = print_finish,
    .close = print_close,
};

static int print_create_sink(const SinkSpec *spec, SinkWriter **writer, Diag *diag)
{
    PrintWriter *print = calloc(1, sizeof *print);
    if (!print)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory creating a sink");
    print->base.vtable = &PRINT_WRITER;
    print->base.spec = spec;
    print->base.impl = print;
    print->identifier = spec->table ? catalog_table_option(spec->table, "print-identifier") : NULL;
    const char *standard_error =
        spec->table ? catalog_table_option(spec->table, "standard-error") : NULL;
    print->standard_error = standard_error && strcasecmp(standard_error, "true") == 0;
    *writer = &print->base;
    return JOINERY_OK;
}

static int print_validate(const CatalogTable *table, Diag *diag)
{
    const char *standard_error = catalog_table_option(table, "standard-error");
    if (standard_error && strcasecmp(standard_error, "true") != 0 &&
        strcasecmp(standard_error, "false") != 0)
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Invalid value for option 'standard-error': '%s' (expected 'true' or "
                          "'false')",
                          standard_error);
    return JOINERY_OK;
}

static bool print_is_bounded(const CatalogTable *table)
{
    (void)table;
    return false;
}

static const ConnectorOption PRINT_OPTIONS[] = {
    {"print-identifier", false, "prefix of every printed line"},
    {"standard-error", false, "print to standard error instead of standard output"},
    {"sink.parallelism", false, "parallelism of the sink"},
};

const Connector connector_print = {
    .name = "print",
    .options = PRINT_OPTIONS,
    .option_count = sizeof PRINT_OPTIONS / sizeof PRINT_OPTIONS[0],
    .validate = print_validate,
    .is_bounded = print_is_bounded,
    .estimate_rows = NULL,
    .create_source = NULL,
    .create_sink = print_create_sink,
};
