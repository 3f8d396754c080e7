/*
 * test_udfs.c - user-defined C functions for the tests (check_udf, the
 * udf_functions golden script), built into build/udf/libjoinery_test_udf.so
 * against engine/udf/joinery_udf.h only, as a function author would.
 *
 *   plus_one(BIGINT) -> BIGINT           x + 1
 *   str_len(STRING) -> INT               bytes of s
 *   greet(STRING) -> STRING              'hello, ' || s (memory from context->allocate)
 *   null_label(INT) -> STRING            'null' or 'value' (called on NULL input)
 *   fail_negative(BIGINT) -> BIGINT      x, or an error for x < 0
 *   bad_int(BIGINT) -> INT               x (an error when x does not fit INT)
 *   scale(DOUBLE, BOOLEAN) -> DOUBLE     x * 2 when the flag is TRUE, else x
 *   split_words(STRING) -> (word STRING, pos INT)   the space-separated words
 *   repeat_row(STRING, INT) -> (EXPR$0 STRING)      s, n times (n < 0: an error)
 *   bad_abi, bad_type, no_entry          malformed descriptors
 */
#include <stdint.h>
#include <string.h>

#include "engine/udf/joinery_udf.h"

/* the descriptors are the library's interface: declared here for -Wmissing-prototypes */
extern const JoineryUdfDescriptor plus_one, str_len, greet, null_label, fail_negative, bad_int,
    scale, split_words, repeat_row, bad_abi, bad_type, no_entry;

static const JoineryUdfType ONE_BIGINT[] = {JOINERY_UDF_BIGINT};
static const JoineryUdfType ONE_INT[] = {JOINERY_UDF_INT};
static const JoineryUdfType ONE_STRING[] = {JOINERY_UDF_STRING};
static const JoineryUdfType STRING_INT[] = {JOINERY_UDF_STRING, JOINERY_UDF_INT};

static int plus_one_call(JoineryUdfContext *context, const JoineryUdfValue *arguments,
                         JoineryUdfValue *result)
{
    (void)context;
    result->i = arguments[0].i + 1;
    return JOINERY_UDF_OK;
}

const JoineryUdfDescriptor plus_one = {
    .abi_version = JOINERY_UDF_ABI_VERSION,
    .kind = JOINERY_UDF_SCALAR,
    .argument_count = 1,
    .argument_types = ONE_BIGINT,
    .result_count = 1,
    .result_types = ONE_BIGINT,
    .scalar = plus_one_call,
};

static int str_len_call(JoineryUdfContext *context, const JoineryUdfValue *arguments,
                        JoineryUdfValue *result)
{
    (void)context;
    result->i = arguments[0].s.len;
    return JOINERY_UDF_OK;
}

const JoineryUdfDescriptor str_len = {
    .abi_version = JOINERY_UDF_ABI_VERSION,
    .kind = JOINERY_UDF_SCALAR,
    .argument_count = 1,
    .argument_types = ONE_STRING,
    .result_count = 1,
    .result_types = ONE_INT,
    .scalar = str_len_call,
};

static int greet_call(JoineryUdfContext *context, const JoineryUdfValue *arguments,
                      JoineryUdfValue *result)
{
    static const char prefix[] = "hello, ";
    uint32_t length = (uint32_t)(sizeof prefix - 1) + arguments[0].s.len;
    char *text = context->allocate(context, length);
    if (!text) {
        context->set_error(context, "out of memory");
        return JOINERY_UDF_ERROR;
    }
    memcpy(text, prefix, sizeof prefix - 1);
    memcpy(text + sizeof prefix - 1, arguments[0].s.ptr, arguments[0].s.len);
    result->s.ptr = text;
    result->s.len = length;
    return JOINERY_UDF_OK;
}

const JoineryUdfDescriptor greet = {
    .abi_version = JOINERY_UDF_ABI_VERSION,
    .kind = JOINERY_UDF_SCALAR,
    .argument_count = 1,
    .argument_types = ONE_STRING,
    .result_count = 1,
    .result_types = ONE_STRING,
    .scalar = greet_call,
};

static const JoineryUdfType ONE_STRING_RESULT[] = {JOINERY_UDF_STRING};

static int null_label_call(JoineryUdfContext *context, const JoineryUdfValue *arguments,
                           JoineryUdfValue *result)
{
    (void)context;
    result->s.ptr = arguments[0].is_null ? "null" : "value";
    result->s.len = (uint32_t)strlen(result->s.ptr);
    return JOINERY_UDF_OK;
}

const JoineryUdfDescriptor null_label = {
    .abi_version = JOINERY_UDF_ABI_VERSION,
    .kind = JOINERY_UDF_SCALAR,
    .argument_count = 1,
    .argument_types = ONE_INT,
    .result_count = 1,
    .result_types = ONE_STRING_RESULT,
    .called_on_null_input = 1,
    .scalar = null_label_call,
};

static int fail_negative_call(JoineryUdfContext *context, const JoineryUdfValue *arguments,
                              JoineryUdfValue *result)
{
    if (arguments[0].i < 0) {
        context->set_error(context, "negative input");
        return JOINERY_UDF_ERROR;
    }
    result->i = arguments[0].i;
    return JOINERY_UDF_OK;
}

const JoineryUdfDescriptor fail_negative = {
    .abi_version = JOINERY_UDF_ABI_VERSION,
    .kind = JOINERY_UDF_SCALAR,
    .argument_count = 1,
    .argument_types = ONE_BIGINT,
    .result_count = 1,
    .result_types = ONE_BIGINT,
    .scalar = fail_negative_call,
};

static int bad_int_call(JoineryUdfContext *context, const JoineryUdfValue *arguments,
                        JoineryUdfValue *result)
{
    (void)context;
    result->i = arguments[0].i;
    return JOINERY_UDF_OK;
}

const JoineryUdfDescriptor bad_int = {
    .abi_version = JOINERY_UDF_ABI_VERSION,
    .kind = JOINERY_UDF_SCALAR,
    .argument_count = 1,
    .argument_types = ONE_BIGINT,
    .result_count = 1,
    .result_types = ONE_INT,
    .scalar = bad_int_call,
};

static const JoineryUdfType DOUBLE_BOOLEAN[] = {JOINERY_UDF_DOUBLE, JOINERY_UDF_BOOLEAN};
static const JoineryUdfType ONE_DOUBLE[] = {JOINERY_UDF_DOUBLE};

static int scale_call(JoineryUdfContext *context, const JoineryUdfValue *arguments,
                      JoineryUdfValue *result)
{
    (void)context;
    result->d = arguments[1].i ? arguments[0].d * 2 : arguments[0].d;
    return JOINERY_UDF_OK;
}

const JoineryUdfDescriptor scale = {
    .abi_version = JOINERY_UDF_ABI_VERSION,
    .kind = JOINERY_UDF_SCALAR,
    .argument_count = 2,
    .argument_types = DOUBLE_BOOLEAN,
    .result_count = 1,
    .result_types = ONE_DOUBLE,
    .scalar = scale_call,
};

static const JoineryUdfType WORD_POS[] = {JOINERY_UDF_STRING, JOINERY_UDF_INT};
static const char *const WORD_POS_NAMES[] = {"word", "pos"};

static int split_words_call(JoineryUdfContext *context, const JoineryUdfValue *arguments)
{
    const char *text = arguments[0].s.ptr;
    uint32_t length = arguments[0].s.len, start = 0;
    int64_t position = 0;
    for (uint32_t i = 0; i <= length; i++) {
        if (i < length && text[i] != ' ')
            continue;
        if (i > start) {
            JoineryUdfValue row[2] = {{0}, {0}};
            row[0].s.ptr = text + start;
            row[0].s.len = i - start;
            row[1].i = ++position;
            if (context->emit(context, row) != JOINERY_UDF_OK)
                return JOINERY_UDF_ERROR;
        }
        start = i + 1;
    }
    return JOINERY_UDF_OK;
}

const JoineryUdfDescriptor split_words = {
    .abi_version = JOINERY_UDF_ABI_VERSION,
    .kind = JOINERY_UDF_TABLE,
    .argument_count = 1,
    .argument_types = ONE_STRING,
    .result_count = 2,
    .result_types = WORD_POS,
    .result_names = WORD_POS_NAMES,
    .table = split_words_call,
};

static int repeat_row_call(JoineryUdfContext *context, const JoineryUdfValue *arguments)
{
    if (arguments[1].i < 0) {
        context->set_error(context, "negative count");
        return JOINERY_UDF_ERROR;
    }
    for (int64_t n = 0; n < arguments[1].i; n++)
        if (context->emit(context, &arguments[0]) != JOINERY_UDF_OK)
            return JOINERY_UDF_ERROR;
    return JOINERY_UDF_OK;
}

const JoineryUdfDescriptor repeat_row = {
    .abi_version = JOINERY_UDF_ABI_VERSION,
    .kind = JOINERY_UDF_TABLE,
    .argument_count = 2,
    .argument_types = STRING_INT,
    .result_count = 1,
    .result_types = ONE_STRING_RESULT,
    .table = repeat_row_call,
};

const JoineryUdfDescriptor bad_abi = {
    .abi_version = 99,
    .kind = JOINERY_UDF_SCALAR,
    .argument_count = 1,
    .argument_types = ONE_BIGINT,
    .result_count = 1,
    .result_types = ONE_BIGINT,
    .scalar = plus_one_call,
};

static const JoineryUdfType UNKNOWN_TYPE[] = {(JoineryUdfType)42};

const JoineryUdfDescriptor bad_type = {
    .abi_version = JOINERY_UDF_ABI_VERSION,
    .kind = JOINERY_UDF_SCALAR,
    .argument_count = 1,
    .argument_types = UNKNOWN_TYPE,
    .result_count = 1,
    .result_types = ONE_BIGINT,
    .scalar = plus_one_call,
};

const JoineryUdfDescriptor no_entry = {
    .abi_version = JOINERY_UDF_ABI_VERSION,
    .kind = JOINERY_UDF_TABLE,
    .argument_count = 1,
    .argument_types = ONE_BIGINT,
    .result_count = 1,
    .result_types = ONE_BIGINT,
};
