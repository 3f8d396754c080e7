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
 *   legacy_plus_one(BIGINT) -> BIGINT    plus_one as an ABI-1 library defines it (the
 *                                        version-1 layout, followed by words that would
 *                                        crash joinery if it read them as ABI-2 fields)
 *   async_rows(BIGINT) -> (v BIGINT, k INT)   async (ABI 2): x % 3 rows (v = x * 10 + k +
 *                                        the job parameter 'test.offset', k = 0, 1, ...);
 *                                        x < 0 fails, x = 999 never completes; with
 *                                        'test.delay-polls' N a call completes at its
 *                                        N+1-th poll; with 'test.fail-first' N
 *                                        the first N calls of each x complete
 *                                        with an error, with
 *                                        'test.fail-first-start' N their start
 *                                        fails (a flaky store). Calls are
 *                                        completed newest first, all at each poll (the
 *                                        instance's eventfd is readable while any wait), so
 *                                        output in input order is joinery's doing
 *   async_rows_no_fd(BIGINT)            async_rows with no descriptor to watch (-1):
 *                                        joinery polls it on a timer
 *   counted_rows(BIGINT) -> (v BIGINT, calls BIGINT)   sync with an instance (ABI 2):
 *                                        one row (x, the instance's calls so far)
 *   async_no_open, scalar_with_open      malformed ABI-2 descriptors
 *   weighted_avg(BIGINT, INT) -> BIGINT  aggregate: SUM(v * w) / SUM(w), with retract;
 *                                        a negative weight is an error
 *   product_append(BIGINT) -> STRING     aggregate without retract ('n values, product p')
 *   count_nulls(BIGINT) -> BIGINT        aggregate called on NULL input: counts NULLs
 *   long_sum(BIGINT) -> BIGINT           aggregate: SUM, with retract and merge (NULL over
 *                                        no value)
 *   product_sum(BIGINT, BIGINT, BIGINT) -> BIGINT  aggregate of three arguments: SUM(a * b *
 *                                        c), with retract and merge
 *   aggregate_no_value                   a malformed aggregate descriptor (no get_value)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "engine/udf/joinery_udf.h"

/* the descriptors are the library's interface: declared here for -Wmissing-prototypes */
extern const JoineryUdfDescriptor plus_one, str_len, greet, null_label, fail_negative, bad_int,
    scale, split_words, repeat_row, bad_abi, bad_type, no_entry, async_rows, counted_rows,
    async_no_open, scalar_with_open, async_rows_no_fd, weighted_avg, product_append, count_nulls,
    long_sum, product_sum, aggregate_no_value;

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

/* ---------------------------------------------------------------- ABI 1 layout */

/* JoineryUdfDescriptor as joinery_udf.h version 1 declared it, then trap words */
typedef struct LegacyDescriptor {
    uint32_t abi_version;
    JoineryUdfKind kind;
    uint32_t argument_count;
    const JoineryUdfType *argument_types;
    uint32_t result_count;
    const JoineryUdfType *result_types;
    const char *const *result_names;
    int called_on_null_input;
    int (*scalar)(JoineryUdfContext *context, const JoineryUdfValue *arguments,
                  JoineryUdfValue *result);
    int (*table)(JoineryUdfContext *context, const JoineryUdfValue *arguments);
    void *user_data;
    uintptr_t trap[5]; /* where ABI 2 has open, close, start, poll, descriptor */
} LegacyDescriptor;

extern const LegacyDescriptor legacy_plus_one;
const LegacyDescriptor legacy_plus_one = {
    .abi_version = 1,
    .kind = JOINERY_UDF_SCALAR,
    .argument_count = 1,
    .argument_types = ONE_BIGINT,
    .result_count = 1,
    .result_types = ONE_BIGINT,
    .scalar = plus_one_call,
    .trap = {1, 1, 1, 1, 1},
};

/* ---------------------------------------------------------------- ABI 2 */

typedef struct AsyncInstance {
    int event_fd;
    int64_t offset;           /* the job parameter test.offset */
    int64_t delay_polls;      /* the job parameter test.delay-polls: polls a call waits */
    int64_t fail_first;       /* test.fail-first: failed completions per x before it answers */
    int64_t fail_first_start; /* test.fail-first-start: failed starts per x */
    int64_t *seen_x;          /* the x called so far, with their failures */
    int64_t *seen_failures, *seen_start_failures;
    uint32_t seen_count, seen_capacity;
    uint64_t *requests;
    int64_t *arguments;
    int64_t *polls; /* per call: polls seen */
    uint32_t count, capacity;
} AsyncInstance;

static int async_open(JoineryUdfContext *context, void **state)
{
    AsyncInstance *instance = calloc(1, sizeof *instance);
    if (!instance) {
        context->set_error(context, "out of memory");
        return JOINERY_UDF_ERROR;
    }
    const char *offset = context->job_parameter(context, "test.offset");
    instance->offset = offset ? strtoll(offset, NULL, 10) : 0;
    const char *delay = context->job_parameter(context, "test.delay-polls");
    instance->delay_polls = delay ? strtoll(delay, NULL, 10) : 0;
    const char *fail_first = context->job_parameter(context, "test.fail-first");
    instance->fail_first = fail_first ? strtoll(fail_first, NULL, 10) : 0;
    const char *fail_first_start = context->job_parameter(context, "test.fail-first-start");
    instance->fail_first_start = fail_first_start ? strtoll(fail_first_start, NULL, 10) : 0;
    instance->event_fd = eventfd(0, EFD_NONBLOCK);
    *state = instance;
    if (instance->event_fd < 0) {
        context->set_error(context, "eventfd failed");
        return JOINERY_UDF_ERROR;
    }
    return JOINERY_UDF_OK;
}

static void async_close(void *state)
{
    AsyncInstance *instance = state;
    if (instance->event_fd >= 0)
        close(instance->event_fd);
    free(instance->requests);
    free(instance->arguments);
    free(instance->polls);
    free(instance->seen_x);
    free(instance->seen_failures);
    free(instance->seen_start_failures);
    free(instance);
}

/* The index of x among the x seen (added with no failures); -1 on no memory. */
static int64_t async_seen(AsyncInstance *instance, int64_t x)
{
    for (uint32_t i = 0; i < instance->seen_count; i++)
        if (instance->seen_x[i] == x)
            return i;
    if (instance->seen_count == instance->seen_capacity) {
        uint32_t capacity = instance->seen_capacity ? instance->seen_capacity * 2 : 8;
        int64_t *xs = realloc(instance->seen_x, capacity * sizeof *xs);
        if (xs)
            instance->seen_x = xs;
        int64_t *failures =
            xs ? realloc(instance->seen_failures, capacity * sizeof *failures) : NULL;
        if (failures)
            instance->seen_failures = failures;
        int64_t *starts =
            failures ? realloc(instance->seen_start_failures, capacity * sizeof *starts) : NULL;
        if (!starts)
            return -1;
        instance->seen_start_failures = starts;
        instance->seen_capacity = capacity;
    }
    instance->seen_x[instance->seen_count] = x;
    instance->seen_failures[instance->seen_count] = 0;
    instance->seen_start_failures[instance->seen_count] = 0;
    return instance->seen_count++;
}

static int async_start(JoineryUdfContext *context, const JoineryUdfValue *arguments,
                       uint64_t request)
{
    AsyncInstance *instance = context->instance;
    if (instance->fail_first_start > 0) {
        int64_t seen = async_seen(instance, arguments[0].i);
        if (seen < 0) {
            context->set_error(context, "out of memory");
            return JOINERY_UDF_ERROR;
        }
        if (instance->seen_start_failures[seen]++ < instance->fail_first_start) {
            context->set_error(context, "flaky store: the start failed");
            return JOINERY_UDF_ERROR;
        }
    }
    if (instance->count == instance->capacity) {
        uint32_t capacity = instance->capacity ? instance->capacity * 2 : 8;
        uint64_t *requests = realloc(instance->requests, capacity * sizeof *requests);
        if (requests)
            instance->requests = requests;
        int64_t *values = requests ? realloc(instance->arguments, capacity * sizeof *values) : NULL;
        if (values)
            instance->arguments = values;
        int64_t *polls = values ? realloc(instance->polls, capacity * sizeof *polls) : NULL;
        if (!polls) {
            context->set_error(context, "out of memory");
            return JOINERY_UDF_ERROR;
        }
        instance->polls = polls;
        instance->capacity = capacity;
    }
    instance->requests[instance->count] = request;
    instance->arguments[instance->count] = arguments[0].i;
    instance->polls[instance->count] = 0;
    instance->count++;
    uint64_t one = 1;
    if (write(instance->event_fd, &one, sizeof one) != sizeof one) {
        context->set_error(context, "eventfd write failed");
        return JOINERY_UDF_ERROR;
    }
    return JOINERY_UDF_OK;
}

static int async_poll(JoineryUdfContext *context)
{
    AsyncInstance *instance = context->instance;
    uint64_t ignored;
    if (read(instance->event_fd, &ignored, sizeof ignored) < 0) {
        /* nothing to read: still complete what waits */
    }
    uint32_t kept = 0;
    /* newest first; x = 999 stays */
    for (uint32_t i = instance->count; i-- > 0;) {
        int64_t x = instance->arguments[i];
        if (x == 999 || ++instance->polls[i] <= instance->delay_polls)
            continue;
        int status;
        int64_t seen = instance->fail_first > 0 ? async_seen(instance, x) : -1;
        if (x < 0) {
            status =
                context->complete(context, instance->requests[i], NULL, 0, "negative argument");
        } else if (seen >= 0 && instance->seen_failures[seen]++ < instance->fail_first) {
            status = context->complete(context, instance->requests[i], NULL, 0,
                                       "flaky store: the call failed");
        } else {
            JoineryUdfValue rows[4];
            uint32_t count = (uint32_t)(x % 3);
            memset(rows, 0, sizeof rows);
            for (uint32_t k = 0; k < count; k++) {
                rows[k * 2].i = x * 10 + (int64_t)k + instance->offset;
                rows[k * 2 + 1].i = k;
            }
            status = context->complete(context, instance->requests[i], rows, count, NULL);
        }
        if (status != JOINERY_UDF_OK)
            return status;
        instance->arguments[i] = INT64_MIN; /* done */
    }
    for (uint32_t i = 0; i < instance->count; i++)
        if (instance->arguments[i] != INT64_MIN) {
            instance->requests[kept] = instance->requests[i];
            instance->arguments[kept] = instance->arguments[i];
            instance->polls[kept] = instance->polls[i];
            kept++;
        }
    instance->count = kept;
    uint64_t one = 1; /* calls still waiting: readable again, to be polled */
    if (kept && write(instance->event_fd, &one, sizeof one) != sizeof one) {
        context->set_error(context, "eventfd write failed");
        return JOINERY_UDF_ERROR;
    }
    return JOINERY_UDF_OK;
}

static int async_descriptor(void *state, uint32_t *events)
{
    AsyncInstance *instance = state;
    *events = 0;
    return instance->event_fd;
}

static const JoineryUdfType BIGINT_INT[] = {JOINERY_UDF_BIGINT, JOINERY_UDF_INT};
static const char *const ASYNC_NAMES[] = {"v", "k"};

const JoineryUdfDescriptor async_rows = {
    .abi_version = JOINERY_UDF_ABI_VERSION,
    .kind = JOINERY_UDF_TABLE,
    .argument_count = 1,
    .argument_types = ONE_BIGINT,
    .result_count = 2,
    .result_types = BIGINT_INT,
    .result_names = ASYNC_NAMES,
    .open = async_open,
    .close = async_close,
    .start = async_start,
    .poll = async_poll,
    .descriptor = async_descriptor,
};

static int no_descriptor(void *state, uint32_t *events)
{
    (void)state;
    *events = 0;
    return -1;
}

const JoineryUdfDescriptor async_rows_no_fd = {
    .abi_version = JOINERY_UDF_ABI_VERSION,
    .kind = JOINERY_UDF_TABLE,
    .argument_count = 1,
    .argument_types = ONE_BIGINT,
    .result_count = 2,
    .result_types = BIGINT_INT,
    .result_names = ASYNC_NAMES,
    .open = async_open,
    .close = async_close,
    .start = async_start,
    .poll = async_poll,
    .descriptor = no_descriptor,
};

const JoineryUdfDescriptor async_no_open = {
    .abi_version = JOINERY_UDF_ABI_VERSION,
    .kind = JOINERY_UDF_TABLE,
    .argument_count = 1,
    .argument_types = ONE_BIGINT,
    .result_count = 2,
    .result_types = BIGINT_INT,
    .start = async_start,
    .poll = async_poll,
    .descriptor = async_descriptor,
};

typedef struct CountedInstance {
    int64_t calls;
} CountedInstance;

static int counted_open(JoineryUdfContext *context, void **state)
{
    *state = calloc(1, sizeof(CountedInstance));
    if (!*state) {
        context->set_error(context, "out of memory");
        return JOINERY_UDF_ERROR;
    }
    return JOINERY_UDF_OK;
}

static void counted_close(void *state)
{
    free(state);
}

static int counted_call(JoineryUdfContext *context, const JoineryUdfValue *arguments)
{
    CountedInstance *instance = context->instance;
    JoineryUdfValue row[2];
    memset(row, 0, sizeof row);
    row[0].i = arguments[0].i;
    row[1].i = ++instance->calls;
    return context->emit(context, row);
}

static const JoineryUdfType TWO_BIGINT[] = {JOINERY_UDF_BIGINT, JOINERY_UDF_BIGINT};
static const char *const COUNTED_NAMES[] = {"v", "calls"};

const JoineryUdfDescriptor counted_rows = {
    .abi_version = JOINERY_UDF_ABI_VERSION,
    .kind = JOINERY_UDF_TABLE,
    .argument_count = 1,
    .argument_types = ONE_BIGINT,
    .result_count = 2,
    .result_types = TWO_BIGINT,
    .result_names = COUNTED_NAMES,
    .table = counted_call,
    .open = counted_open,
    .close = counted_close,
};

const JoineryUdfDescriptor scalar_with_open = {
    .abi_version = JOINERY_UDF_ABI_VERSION,
    .kind = JOINERY_UDF_SCALAR,
    .argument_count = 1,
    .argument_types = ONE_BIGINT,
    .result_count = 1,
    .result_types = ONE_BIGINT,
    .scalar = plus_one_call,
    .open = counted_open,
    .close = counted_close,
};

/* ---- aggregate functions (JOINERY_UDF_AGGREGATE) ---- */

/* weighted_avg(value BIGINT, weight INT) -> BIGINT: Flink's WeightedAvg example, SUM(value *
   weight) / SUM(weight) (integer division), NULL while the weights sum to 0; with retract.
   A negative weight is an error. */
typedef struct WeightedAvgAccumulator {
    int64_t sum;
    int64_t count;
} WeightedAvgAccumulator;

static int weighted_avg_init(JoineryUdfContext *context, void *accumulator)
{
    (void)context;
    WeightedAvgAccumulator *acc = accumulator;
    acc->sum = 0;
    acc->count = 0;
    return JOINERY_UDF_OK;
}

static int weighted_avg_apply(JoineryUdfContext *context, void *accumulator,
                              const JoineryUdfValue *arguments, int sign)
{
    WeightedAvgAccumulator *acc = accumulator;
    if (arguments[1].i < 0) {
        context->set_error(context, "negative weight");
        return JOINERY_UDF_ERROR;
    }
    acc->sum += sign * arguments[0].i * arguments[1].i;
    acc->count += sign * arguments[1].i;
    return JOINERY_UDF_OK;
}

static int weighted_avg_accumulate(JoineryUdfContext *context, void *accumulator,
                                   const JoineryUdfValue *arguments)
{
    return weighted_avg_apply(context, accumulator, arguments, 1);
}

static int weighted_avg_retract(JoineryUdfContext *context, void *accumulator,
                                const JoineryUdfValue *arguments)
{
    return weighted_avg_apply(context, accumulator, arguments, -1);
}

static int weighted_avg_merge(JoineryUdfContext *context, void *accumulator, const void *other)
{
    (void)context;
    WeightedAvgAccumulator *acc = accumulator;
    const WeightedAvgAccumulator *from = other;
    acc->sum += from->sum;
    acc->count += from->count;
    return JOINERY_UDF_OK;
}

static int weighted_avg_value(JoineryUdfContext *context, const void *accumulator,
                              JoineryUdfValue *result)
{
    (void)context;
    const WeightedAvgAccumulator *acc = accumulator;
    result->is_null = acc->count == 0;
    result->i = acc->count ? acc->sum / acc->count : 0;
    return JOINERY_UDF_OK;
}

const JoineryUdfDescriptor weighted_avg = {
    .abi_version = JOINERY_UDF_ABI_VERSION,
    .kind = JOINERY_UDF_AGGREGATE,
    .argument_count = 2,
    .argument_types = BIGINT_INT,
    .result_count = 1,
    .result_types = ONE_BIGINT,
    .accumulator_size = sizeof(WeightedAvgAccumulator),
    .init = weighted_avg_init,
    .accumulate = weighted_avg_accumulate,
    .retract = weighted_avg_retract,
    .merge = weighted_avg_merge,
    .get_value = weighted_avg_value,
};

/* product_append(x BIGINT) -> STRING: 'n values, product p' of the non-NULL values; no
   retract (append-only inputs only). init gives product 1. */
typedef struct ProductAccumulator {
    int64_t product;
    int64_t values;
} ProductAccumulator;

static int product_init(JoineryUdfContext *context, void *accumulator)
{
    (void)context;
    ProductAccumulator *acc = accumulator;
    acc->product = 1;
    acc->values = 0;
    return JOINERY_UDF_OK;
}

static int product_accumulate(JoineryUdfContext *context, void *accumulator,
                              const JoineryUdfValue *arguments)
{
    (void)context;
    ProductAccumulator *acc = accumulator;
    acc->product *= arguments[0].i;
    acc->values++;
    return JOINERY_UDF_OK;
}

static int product_value(JoineryUdfContext *context, const void *accumulator,
                         JoineryUdfValue *result)
{
    const ProductAccumulator *acc = accumulator;
    char *text = context->allocate(context, 64);
    if (!text) {
        context->set_error(context, "out of memory");
        return JOINERY_UDF_ERROR;
    }
    int length = snprintf(text, 64, "%lld values, product %lld", (long long)acc->values,
                          (long long)acc->product);
    result->s.ptr = text;
    result->s.len = (uint32_t)length;
    return JOINERY_UDF_OK;
}

const JoineryUdfDescriptor product_append = {
    .abi_version = JOINERY_UDF_ABI_VERSION,
    .kind = JOINERY_UDF_AGGREGATE,
    .argument_count = 1,
    .argument_types = ONE_BIGINT,
    .result_count = 1,
    .result_types = ONE_STRING_RESULT,
    .accumulator_size = sizeof(ProductAccumulator),
    .init = product_init,
    .accumulate = product_accumulate,
    .get_value = product_value,
};

/* count_nulls(x BIGINT) -> BIGINT: the rows whose x is NULL (called_on_null_input), with
   retract; the accumulator's bytes start zeroed, so init does nothing. */
static int count_nulls_init(JoineryUdfContext *context, void *accumulator)
{
    (void)context;
    (void)accumulator;
    return JOINERY_UDF_OK;
}

static int count_nulls_accumulate(JoineryUdfContext *context, void *accumulator,
                                  const JoineryUdfValue *arguments)
{
    (void)context;
    *(int64_t *)accumulator += arguments[0].is_null ? 1 : 0;
    return JOINERY_UDF_OK;
}

static int count_nulls_retract(JoineryUdfContext *context, void *accumulator,
                               const JoineryUdfValue *arguments)
{
    (void)context;
    *(int64_t *)accumulator -= arguments[0].is_null ? 1 : 0;
    return JOINERY_UDF_OK;
}

static int count_nulls_value(JoineryUdfContext *context, const void *accumulator,
                             JoineryUdfValue *result)
{
    (void)context;
    result->i = *(const int64_t *)accumulator;
    return JOINERY_UDF_OK;
}

const JoineryUdfDescriptor count_nulls = {
    .abi_version = JOINERY_UDF_ABI_VERSION,
    .kind = JOINERY_UDF_AGGREGATE,
    .argument_count = 1,
    .argument_types = ONE_BIGINT,
    .result_count = 1,
    .result_types = ONE_BIGINT,
    .called_on_null_input = 1,
    .accumulator_size = sizeof(int64_t),
    .init = count_nulls_init,
    .accumulate = count_nulls_accumulate,
    .retract = count_nulls_retract,
    .get_value = count_nulls_value,
};

/* long_sum(x BIGINT) -> BIGINT: SUM of the non-NULL values (NULL over none), with retract and
   merge; the accumulator's zeroed bytes are the empty sum. */
typedef struct LongSumAccumulator {
    int64_t sum;
    int64_t values;
} LongSumAccumulator;

static int long_sum_apply(JoineryUdfContext *context, void *accumulator,
                          const JoineryUdfValue *arguments, int sign)
{
    (void)context;
    LongSumAccumulator *acc = accumulator;
    acc->sum += sign * arguments[0].i;
    acc->values += sign;
    return JOINERY_UDF_OK;
}

static int long_sum_accumulate(JoineryUdfContext *context, void *accumulator,
                               const JoineryUdfValue *arguments)
{
    return long_sum_apply(context, accumulator, arguments, 1);
}

static int long_sum_retract(JoineryUdfContext *context, void *accumulator,
                            const JoineryUdfValue *arguments)
{
    return long_sum_apply(context, accumulator, arguments, -1);
}

static int long_sum_merge(JoineryUdfContext *context, void *accumulator, const void *other)
{
    (void)context;
    LongSumAccumulator *acc = accumulator;
    const LongSumAccumulator *from = other;
    acc->sum += from->sum;
    acc->values += from->values;
    return JOINERY_UDF_OK;
}

static int long_sum_value(JoineryUdfContext *context, const void *accumulator,
                          JoineryUdfValue *result)
{
    (void)context;
    const LongSumAccumulator *acc = accumulator;
    result->is_null = acc->values == 0;
    result->i = acc->sum;
    return JOINERY_UDF_OK;
}

const JoineryUdfDescriptor long_sum = {
    .abi_version = JOINERY_UDF_ABI_VERSION,
    .kind = JOINERY_UDF_AGGREGATE,
    .argument_count = 1,
    .argument_types = ONE_BIGINT,
    .result_count = 1,
    .result_types = ONE_BIGINT,
    .accumulator_size = sizeof(LongSumAccumulator),
    .init = count_nulls_init,
    .accumulate = long_sum_accumulate,
    .retract = long_sum_retract,
    .merge = long_sum_merge,
    .get_value = long_sum_value,
};

/* product_sum(a BIGINT, b BIGINT, c BIGINT) -> BIGINT: SUM(a * b * c) (NULL over no row),
   with retract and merge; its accumulator is long_sum's. */
static const JoineryUdfType THREE_BIGINT[] = {JOINERY_UDF_BIGINT, JOINERY_UDF_BIGINT,
                                              JOINERY_UDF_BIGINT};

static int product_sum_apply(JoineryUdfContext *context, void *accumulator,
                             const JoineryUdfValue *arguments, int sign)
{
    (void)context;
    LongSumAccumulator *acc = accumulator;
    acc->sum += sign * arguments[0].i * arguments[1].i * arguments[2].i;
    acc->values += sign;
    return JOINERY_UDF_OK;
}

static int product_sum_accumulate(JoineryUdfContext *context, void *accumulator,
                                  const JoineryUdfValue *arguments)
{
    return product_sum_apply(context, accumulator, arguments, 1);
}

static int product_sum_retract(JoineryUdfContext *context, void *accumulator,
                               const JoineryUdfValue *arguments)
{
    return product_sum_apply(context, accumulator, arguments, -1);
}

const JoineryUdfDescriptor product_sum = {
    .abi_version = JOINERY_UDF_ABI_VERSION,
    .kind = JOINERY_UDF_AGGREGATE,
    .argument_count = 3,
    .argument_types = THREE_BIGINT,
    .result_count = 1,
    .result_types = ONE_BIGINT,
    .accumulator_size = sizeof(LongSumAccumulator),
    .init = count_nulls_init,
    .accumulate = product_sum_accumulate,
    .retract = product_sum_retract,
    .merge = long_sum_merge,
    .get_value = long_sum_value,
};

/* A bad aggregate descriptor: no get_value. */
const JoineryUdfDescriptor aggregate_no_value = {
    .abi_version = JOINERY_UDF_ABI_VERSION,
    .kind = JOINERY_UDF_AGGREGATE,
    .argument_count = 1,
    .argument_types = ONE_BIGINT,
    .result_count = 1,
    .result_types = ONE_BIGINT,
    .accumulator_size = 8,
    .init = count_nulls_init,
    .accumulate = count_nulls_accumulate,
};
