/*
 * check_composite.c - Check suite for ROW, ARRAY and MULTISET: their types
 * (engine/base/type.c: interning, spellings, widening), their value encoding
 * (engine/base/composite.c: round trips, NULLs, nesting, canonical bytes),
 * rows holding them (equal content gives equal bytes and hash, so keys work),
 * their text forms, state on both backends (keys and values holding nested
 * composites found again after a commit, and a snapshot of one backend
 * restored on the other), and the COLLECT / ARRAY_AGG accumulators
 * (engine/exec/aggregate/collection_aggregate.c) with retraction.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/composite.h"
#include "engine/base/map.h"
#include "engine/base/row.h"
#include "engine/base/strbuf.h"
#include "engine/base/type.h"
#include "engine/base/value.h"
#include "engine/exec/aggregate/collection_aggregate.h"
#include "engine/state/state.h"

/* ---- helpers ---- */

static DataType t_int(void)
{
    return type_make(TYPE_INT, true);
}

static DataType t_string(void)
{
    return type_make(TYPE_VARCHAR, true);
}

static DataType t_double(void)
{
    return type_make(TYPE_DOUBLE, true);
}

static DataType array_of(DataType element)
{
    DataType type;
    ck_assert(type_make_array(element, true, &type));
    return type;
}

static DataType multiset_of(DataType element)
{
    DataType type;
    ck_assert(type_make_multiset(element, true, &type));
    return type;
}

/* ROW<a INT, b STRING, c ARRAY<DOUBLE>> */
static DataType sample_row_type(void)
{
    const char *names[] = {"a", "b", "c"};
    DataType types[] = {t_int(), t_string(), array_of(t_double())};
    DataType type;
    ck_assert(type_make_row(names, types, 3, true, &type));
    return type;
}

static const char *format_type(DataType type, unsigned flags)
{
    static char text[512];
    return type_format_as(type, flags, text, sizeof text);
}

/* The text of a value (value_format_text) in a static buffer. */
static const char *format_value(DataType type, Value value)
{
    static char text[512];
    StrBuf out = STRBUF_INIT;
    ck_assert_int_eq(value_format_text(type, value, &out), 0);
    snprintf(text, sizeof text, "%s", strbuf_cstr(&out));
    strbuf_free(&out);
    return text;
}

/* Encodes an ARRAY<INT> of `count` values (INT32_MIN is NULL) into out. */
static Value int_array(StrBuf *out, const int *values, uint32_t count)
{
    Value elements[16];
    for (uint32_t i = 0; i < count; i++)
        elements[i] = values[i] == INT32_MIN ? value_null() : value_int(values[i]);
    strbuf_clear(out);
    ck_assert_int_eq(array_encode(array_of(t_int()), elements, count, out), 0);
    return value_string(out->data, (uint32_t)out->length);
}

/* ---- types ---- */

START_TEST(test_types)
{
    DataType a = sample_row_type(), b = sample_row_type();
    ck_assert_ptr_eq(a.composite, b.composite); /* interned */
    ck_assert(type_equals(a, b));
    ck_assert_uint_eq(type_field_count(a), 3);
    ck_assert_str_eq(type_field_name(a, 1), "b");
    ck_assert_int_eq(type_field(a, 2).id, TYPE_ARRAY);
    ck_assert_int_eq(type_element(type_field(a, 2)).id, TYPE_DOUBLE);
    ck_assert(type_is_variable_length(TYPE_ROW) && type_is_variable_length(TYPE_ARRAY) &&
              type_is_variable_length(TYPE_MULTISET));
    ck_assert_str_eq(format_type(a, TYPE_FORMAT_NOT_NULL),
                     "ROW<`a` INT, `b` STRING, `c` ARRAY<DOUBLE>>");
    ck_assert_str_eq(format_type(a, TYPE_FORMAT_CALCITE),
                     "RecordType(INTEGER a, VARCHAR(2147483647) b, DOUBLE ARRAY c)");
    DataType strict_int = type_make(TYPE_INT, false);
    DataType strict;
    ck_assert(type_make_array(strict_int, false, &strict));
    ck_assert_str_eq(format_type(strict, TYPE_FORMAT_NOT_NULL), "ARRAY<INT NOT NULL> NOT NULL");
    ck_assert_str_eq(format_type(multiset_of(t_string()), TYPE_FORMAT_CALCITE),
                     "VARCHAR(2147483647) MULTISET");
    /* element nullability is part of the shape; widening makes it nullable */
    ck_assert(!type_equals(strict, array_of(t_int())));
    DataType common;
    ck_assert(type_common(strict, array_of(t_int()), &common));
    ck_assert_str_eq(format_type(common, TYPE_FORMAT_NOT_NULL), "ARRAY<INT>");
    ck_assert(!type_common(array_of(t_int()), multiset_of(t_int()), &common));
    ck_assert(!type_common(a, t_int(), &common));
    /* field names must agree */
    const char *other_names[] = {"a", "x", "c"};
    DataType other_types[] = {t_int(), t_string(), array_of(t_double())};
    DataType other;
    ck_assert(type_make_row(other_names, other_types, 3, true, &other));
    ck_assert(!type_equals(a, other));
    ck_assert(!type_common(a, other, &common));
    /* a MAP holding a composite value */
    DataType map = type_make_map(t_string(), array_of(t_int()), true);
    ck_assert_str_eq(format_type(map, TYPE_FORMAT_NOT_NULL), "MAP<STRING, ARRAY<INT>>");
    ck_assert(type_equals(type_map_value(map), array_of(t_int())));
}
END_TEST

/* ---- values ---- */

START_TEST(test_row_round_trip)
{
    DataType type = sample_row_type();
    StrBuf inner = STRBUF_INIT, encoded = STRBUF_INIT;
    Value doubles[] = {value_double(-0.0), value_null(), value_double(2.5)};
    ck_assert_int_eq(array_encode(type_field(type, 2), doubles, 3, &inner), 0);
    Value fields[] = {value_int(-7), value_string("h,i", 3),
                      value_string(inner.data, (uint32_t)inner.length)};
    ck_assert_int_eq(row_value_encode(type, fields, &encoded), 0);
    Value field;
    ck_assert(row_value_field(type, encoded.data, (uint32_t)encoded.length, 0, &field));
    ck_assert(!field.is_null);
    ck_assert_int_eq(field.i, -7);
    ck_assert(row_value_field(type, encoded.data, (uint32_t)encoded.length, 1, &field));
    ck_assert_uint_eq(field.s.len, 3);
    ck_assert_int_eq(memcmp(field.s.ptr, "h,i", 3), 0);
    ck_assert(row_value_field(type, encoded.data, (uint32_t)encoded.length, 2, &field));
    Value element;
    ck_assert(array_element_at(type_field(type, 2), field.s.ptr, field.s.len, 1, &element));
    ck_assert(!element.is_null && element.d == 0.0 && !signbit(element.d)); /* -0.0 stored 0.0 */
    ck_assert(array_element_at(type_field(type, 2), field.s.ptr, field.s.len, 2, &element));
    ck_assert(element.is_null);
    ck_assert(array_element_at(type_field(type, 2), field.s.ptr, field.s.len, 3, &element));
    ck_assert(element.d == 2.5);
    ck_assert(!array_element_at(type_field(type, 2), field.s.ptr, field.s.len, 4, &element));
    ck_assert(!array_element_at(type_field(type, 2), field.s.ptr, field.s.len, 0, &element));
    ck_assert(!row_value_field(type, encoded.data, (uint32_t)encoded.length, 3, &field));
    /* truncated bytes are refused, not overread */
    ck_assert(!row_value_field(type, encoded.data, (uint32_t)encoded.length - 1, 2, &field));
    ck_assert_str_eq(format_value(type, value_string(encoded.data, (uint32_t)encoded.length)),
                     "(-7, h,i, [0.0, null, 2.5])");
    /* NULL fields */
    Value nulls[] = {value_null(), value_null(), value_null()};
    strbuf_clear(&encoded);
    ck_assert_int_eq(row_value_encode(type, nulls, &encoded), 0);
    ck_assert_uint_eq(encoded.length, 3);
    ck_assert_str_eq(format_value(type, value_string(encoded.data, (uint32_t)encoded.length)),
                     "(null, null, null)");
    strbuf_free(&inner);
    strbuf_free(&encoded);
}
END_TEST

START_TEST(test_multiset_canonical)
{
    DataType type = multiset_of(t_string());
    MultisetElement first[] = {{value_string("b", 1), 1},
                               {value_string("a", 1), 1},
                               {value_null(), 1},
                               {value_string("b", 1), 1},
                               {value_string("c", 1), 0}};
    MultisetElement second[] = {
        {value_string("b", 1), 2}, {value_null(), 1}, {value_string("a", 1), 1}};
    StrBuf x = STRBUF_INIT, y = STRBUF_INIT;
    ck_assert_int_eq(multiset_encode(type, first, 5, &x), 0);
    ck_assert_int_eq(multiset_encode(type, second, 3, &y), 0);
    ck_assert_uint_eq(x.length, y.length);
    ck_assert_int_eq(memcmp(x.data, y.data, x.length), 0); /* equal multisets, equal bytes */
    ck_assert_uint_eq(collection_entry_count(x.data, (uint32_t)x.length), 3);
    ck_assert_str_eq(format_value(type, value_string(x.data, (uint32_t)x.length)),
                     "{null=1, a=1, b=2}");
    CollectionReader reader;
    ck_assert(collection_reader_init(&reader, type, x.data, (uint32_t)x.length));
    Value element;
    int64_t multiplicity;
    ck_assert(collection_reader_next(&reader, &element, &multiplicity));
    ck_assert(element.is_null);
    ck_assert(collection_reader_next(&reader, &element, &multiplicity));
    ck_assert(collection_reader_next(&reader, &element, &multiplicity));
    ck_assert_int_eq(multiplicity, 2);
    ck_assert(!collection_reader_next(&reader, &element, &multiplicity));
    strbuf_free(&x);
    strbuf_free(&y);
}
END_TEST

START_TEST(test_nesting)
{
    /* ARRAY<ARRAY<INT>> inside a MAP<STRING, ...>, five levels deep through ROWs */
    DataType inner = array_of(t_int());
    DataType outer = array_of(inner);
    StrBuf a = STRBUF_INIT, b = STRBUF_INIT, out = STRBUF_INIT;
    int first[] = {1, INT32_MIN};
    Value one = int_array(&a, first, 2);
    int second[] = {3};
    Value two = int_array(&b, second, 1);
    Value elements[] = {one, value_null(), two};
    ck_assert_int_eq(array_encode(outer, elements, 3, &out), 0);
    Value nested = value_string(out.data, (uint32_t)out.length);
    ck_assert_str_eq(format_value(outer, nested), "[[1, null], null, [3]]");
    DataType type = outer;
    StrBuf levels[5];
    Value value = nested;
    for (int level = 0; level < 5; level++) {
        const char *name = "f";
        DataType row;
        ck_assert(type_make_row(&name, &type, 1, true, &row));
        levels[level] = (StrBuf)STRBUF_INIT;
        ck_assert_int_eq(row_value_encode(row, &value, &levels[level]), 0);
        value = value_string(levels[level].data, (uint32_t)levels[level].length);
        type = row;
    }
    ck_assert_str_eq(format_value(type, value), "((((([[1, null], null, [3]])))))");
    ck_assert_str_eq(format_type(type, TYPE_FORMAT_NOT_NULL),
                     "ROW<`f` ROW<`f` ROW<`f` ROW<`f` ROW<`f` ARRAY<ARRAY<INT>>>>>>>");
    /* walk back down */
    for (int level = 4; level >= 0; level--) {
        ck_assert(row_value_field(type, value.s.ptr, value.s.len, 0, &value));
        type = type_field(type, 0);
    }
    ck_assert_uint_eq(value.s.len, nested.s.len);
    ck_assert_int_eq(memcmp(value.s.ptr, nested.s.ptr, nested.s.len), 0);
    Value element;
    ck_assert(array_element_at(outer, value.s.ptr, value.s.len, 2, &element));
    ck_assert(element.is_null);
    for (int level = 0; level < 5; level++)
        strbuf_free(&levels[level]);
    strbuf_free(&a);
    strbuf_free(&b);
    strbuf_free(&out);
}
END_TEST

/* A row [id INT, value of `type`] built from an encoded composite. */
static Row *build_row(RowBuilder *builder, int64_t id, DataType type, Value value)
{
    row_builder_begin(builder, 2, ROW_KIND_INSERT);
    row_builder_set_int64(builder, 0, id);
    value_to_builder(builder, 1, type, value);
    Row *row = row_builder_finish(builder);
    ck_assert_ptr_nonnull(row);
    return row_copy_heap(row);
}

START_TEST(test_rows_as_keys)
{
    DataType type = array_of(t_int());
    StrBuf x = STRBUF_INIT, y = STRBUF_INIT;
    int values[] = {4, INT32_MIN, 6};
    Value first = int_array(&x, values, 3);
    Value second = int_array(&y, values, 3);
    RowBuilder builder;
    row_builder_init(&builder);
    Row *a = build_row(&builder, 1, type, first);
    Row *b = build_row(&builder, 1, type, second);
    row_set_kind(b, ROW_KIND_DELETE);
    ck_assert(row_content_equals(a, b));
    ck_assert_uint_eq(row_content_hash(a), row_content_hash(b));
    int others[] = {4, 6, INT32_MIN};
    Row *c = build_row(&builder, 1, type, int_array(&y, others, 3));
    ck_assert(!row_content_equals(a, c));
    Value read = value_from_row(a, 1, type);
    ck_assert_str_eq(format_value(type, read), "[4, null, 6]");
    ck_assert_int_eq(value_compare(type, read, value_from_row(b, 1, type)), 0);
    ck_assert_int_ne(value_compare(type, read, value_from_row(c, 1, type)), 0);
    free(a);
    free(b);
    free(c);
    row_builder_free(&builder);
    strbuf_free(&x);
    strbuf_free(&y);
}
END_TEST

/* ---- state on both backends (loop index: the StateBackendKind) ---- */

typedef struct Buffer {
    unsigned char *bytes;
    size_t size;
    size_t capacity;
    size_t read;
} Buffer;

static int buffer_write(void *context, const void *bytes, size_t length)
{
    Buffer *buffer = context;
    if (buffer->size + length > buffer->capacity) {
        size_t capacity = buffer->capacity ? buffer->capacity : 4096;
        while (capacity < buffer->size + length)
            capacity *= 2;
        unsigned char *grown = realloc(buffer->bytes, capacity);
        if (!grown)
            return JOINERY_ERROR_NO_MEMORY;
        buffer->bytes = grown;
        buffer->capacity = capacity;
    }
    memcpy(buffer->bytes + buffer->size, bytes, length);
    buffer->size += length;
    return JOINERY_OK;
}

static int buffer_read(void *context, void *bytes, size_t length)
{
    Buffer *buffer = context;
    if (buffer->read + length > buffer->size)
        return JOINERY_ERROR;
    memcpy(bytes, buffer->bytes + buffer->read, length);
    buffer->read += length;
    return JOINERY_OK;
}

static StateStore *open_store(int backend)
{
    StateStoreConfig config = {
        .backend = (StateBackendKind)backend, .directory = NULL, .budget = NULL};
    StateStore *store = NULL;
    Diag diag;
    diag_clear(&diag);
    ck_assert_msg(state_store_open(&config, &store, &diag) == JOINERY_OK, "%s", diag.message);
    return store;
}

static void commit(StateStore *store)
{
    Diag diag;
    diag_clear(&diag);
    ck_assert_msg(state_store_commit(store, &diag) == JOINERY_OK, "%s", diag.message);
}

/* Key i: [i, ROW<a, b, c>(i, "k<i>", [i / 2, NULL])]; value: [i, MULTISET {k<i>=i+1}]. */
static void make_entry(int i, RowBuilder *builder, Row **key, Row **value)
{
    DataType row_type = sample_row_type();
    StrBuf inner = STRBUF_INIT, encoded = STRBUF_INIT, bag = STRBUF_INIT;
    char text[16];
    int length = snprintf(text, sizeof text, "k%d", i);
    Value doubles[] = {value_double(i / 2.0), value_null()};
    ck_assert_int_eq(array_encode(type_field(row_type, 2), doubles, 2, &inner), 0);
    Value fields[] = {value_int(i), value_string(text, (uint32_t)length),
                      value_string(inner.data, (uint32_t)inner.length)};
    ck_assert_int_eq(row_value_encode(row_type, fields, &encoded), 0);
    *key = build_row(builder, i, row_type, value_string(encoded.data, (uint32_t)encoded.length));
    MultisetElement entry = {value_string(text, (uint32_t)length), i + 1};
    DataType bag_type = multiset_of(t_string());
    ck_assert_int_eq(multiset_encode(bag_type, &entry, 1, &bag), 0);
    *value = build_row(builder, i, bag_type, value_string(bag.data, (uint32_t)bag.length));
    strbuf_free(&inner);
    strbuf_free(&encoded);
    strbuf_free(&bag);
}

static void check_entries(ValueState *state, int count, RowBuilder *builder)
{
    for (int i = 0; i < count; i++) {
        Row *key, *value;
        make_entry(i, builder, &key, &value);
        const ValueEntry *entry = value_state_find(state, key, row_content_hash(key), 0);
        ck_assert_msg(entry && entry->value, "key %d not found", i);
        ck_assert(row_content_equals(entry->value, value));
        char expected[32];
        snprintf(expected, sizeof expected, "{k%d=%d}", i, i + 1);
        ck_assert_str_eq(format_value(multiset_of(t_string()),
                                      value_from_row(entry->value, 1, multiset_of(t_string()))),
                         expected);
        free(key);
        free(value);
    }
}

START_TEST(test_state_backends)
{
    enum { ENTRIES = 300 };
    StateStore *store = open_store(_i);
    ValueState *state = value_state_create(store, 0);
    ck_assert_ptr_nonnull(state);
    RowBuilder builder;
    row_builder_init(&builder);
    for (int i = 0; i < ENTRIES; i++) {
        Row *key, *value;
        make_entry(i, &builder, &key, &value);
        const ValueEntry *entry = value_state_insert(state, key, row_content_hash(key), 0);
        ck_assert_ptr_nonnull(entry);
        ck_assert_int_eq(value_state_set(state, entry, value, 0), JOINERY_OK);
        free(key);
        free(value);
    }
    commit(store);
    check_entries(state, ENTRIES, &builder);
    /* a snapshot restored on the other backend finds the same keys */
    Buffer buffer = {0};
    StateWriter writer = {buffer_write, &buffer};
    Diag diag;
    diag_clear(&diag);
    ck_assert_int_eq(value_state_snapshot(state, &writer, &diag), JOINERY_OK);
    StateStore *other = open_store(1 - _i);
    ValueState *restored = value_state_create(other, 0);
    StateReader reader = {buffer_read, &buffer};
    ck_assert_int_eq(value_state_restore(restored, &reader, &diag), JOINERY_OK);
    commit(other);
    ck_assert_uint_eq(value_state_counters(restored).keys, ENTRIES);
    check_entries(restored, ENTRIES, &builder);
    value_state_destroy(restored);
    state_store_close(other);
    free(buffer.bytes);
    value_state_destroy(state);
    state_store_close(store);
    row_builder_free(&builder);
}
END_TEST

/* ---- COLLECT and ARRAY_AGG accumulators ---- */

typedef struct Accumulator {
    Value value;
    int64_t count;
    StrBuf buffers[2];
} Accumulator;

static void apply(const AggregateCall *call, Accumulator *accumulator, Value value, bool add)
{
    ck_assert_int_eq(collection_aggregate_apply(call, value, add, &accumulator->value,
                                                &accumulator->count, &accumulator->buffers[0],
                                                &accumulator->buffers[1]),
                     JOINERY_OK);
}

static const char *result_text(const AggregateCall *call, const Accumulator *accumulator)
{
    Value result = collection_aggregate_result(call, accumulator->value, accumulator->count);
    return result.is_null ? "NULL" : format_value(call->result_type, result);
}

START_TEST(test_collection_aggregates)
{
    AggregateCall collect = {.kind = AGGREGATE_COLLECT,
                             .argument_type = t_string(),
                             .result_type = multiset_of(t_string())};
    AggregateCall array_agg = {.kind = AGGREGATE_ARRAY_AGG,
                               .argument_type = t_string(),
                               .result_type = array_of(t_string())};
    Accumulator bag = {.value = value_null()}, list = {.value = value_null()};
    ck_assert_str_eq(result_text(&collect, &bag), "{}");
    ck_assert_str_eq(result_text(&array_agg, &list), "NULL");
    const char *inputs[] = {"b", "a", "b", NULL, "c"};
    for (int i = 0; i < 5; i++) {
        Value value = inputs[i] ? value_string(inputs[i], 1) : value_null();
        if (!value.is_null) /* COLLECT skips NULLs (the operators do not pass them) */
            apply(&collect, &bag, value, true);
        apply(&array_agg, &list, value, true);
    }
    ck_assert_str_eq(result_text(&collect, &bag), "{a=1, b=2, c=1}");
    ck_assert_str_eq(result_text(&array_agg, &list), "[b, a, b, null, c]");
    ck_assert_int_eq(bag.count, 4);
    ck_assert_int_eq(list.count, 5);
    /* retractions: counts go down, an element at zero goes; ARRAY_AGG drops the first equal */
    apply(&collect, &bag, value_string("b", 1), false);
    apply(&collect, &bag, value_string("c", 1), false);
    apply(&collect, &bag, value_string("z", 1), false); /* absent: nothing */
    ck_assert_str_eq(result_text(&collect, &bag), "{a=1, b=1}");
    ck_assert_int_eq(bag.count, 2);
    apply(&array_agg, &list, value_string("b", 1), false);
    apply(&array_agg, &list, value_null(), false);
    apply(&array_agg, &list, value_string("z", 1), false);
    ck_assert_str_eq(result_text(&array_agg, &list), "[a, b, c]");
    ck_assert_int_eq(list.count, 3);
    for (int i = 0; i < 3; i++)
        apply(&array_agg, &list, value_string(i == 0 ? "a" : i == 1 ? "b" : "c", 1), false);
    ck_assert_str_eq(result_text(&array_agg, &list), "NULL");
    apply(&collect, &bag, value_string("a", 1), false);
    apply(&collect, &bag, value_string("b", 1), false);
    ck_assert_str_eq(result_text(&collect, &bag), "{}");
    for (int i = 0; i < 2; i++) {
        strbuf_free(&bag.buffers[i]);
        strbuf_free(&list.buffers[i]);
    }
}
END_TEST

static Suite *composite_suite(void)
{
    Suite *suite = suite_create("composite");
    TCase *core = tcase_create("core");
    tcase_add_test(core, test_types);
    tcase_add_test(core, test_row_round_trip);
    tcase_add_test(core, test_multiset_canonical);
    tcase_add_test(core, test_nesting);
    tcase_add_test(core, test_rows_as_keys);
    tcase_add_loop_test(core, test_state_backends, 0, 2);
    tcase_add_test(core, test_collection_aggregates);
    tcase_set_timeout(core, 60);
    suite_add_tcase(suite, core);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(composite_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
