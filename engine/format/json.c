/*
 * json.c - Flink's 'json' format: one JSON object per record.
 *
 * Decoding tokenizes the record with jsmn (numbers stay text, so BIGINT and
 * DECIMAL keep every digit), finds each top-level key's field by name
 * (case-sensitive, as Flink; the next field in schema order is tried first
 * since producers usually write keys in that order), then converts each
 * field's token: null -> NULL, nested object/array -> its raw JSON text for
 * string fields (as Flink) and an error otherwise, strings are unescaped
 * into the decoder's scratch only when they contain a backslash.
 *
 * Tokenizing: a record without NUL bytes, nested at most JSON_FAST_MAX_DEPTH
 * deep, is first tokenized by json_scan_fast, a single pass over valid
 * JSON that finds strings' ends with memchr and yields exactly the
 * tokens jsmn would (same types, offsets, sizes and parent links); any other
 * record, or one json_scan_fast does not take (anything outside valid JSON,
 * too many tokens), goes to jsmn and its diagnosis as before, so what is
 * accepted, rejected and said about it does not change.
 *
 * Invariant: the jsmn token array and scratch belong to the decoder and are
 * reused across records; nothing is allocated per field.
 */
#define JSMN_STATIC
#define JSMN_STRICT
#define JSMN_PARENT_LINKS
#include <jsmn.h>

#include "engine/format/format_internal.h"

#include "engine/base/binary.h"
#include "engine/base/composite.h"
#include "engine/base/map.h"
#include "engine/base/utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * JSON_MAX_DEPTH: Jackson's default StreamReadConstraints (2.15, the Flink 1.19+
 * and 2.x shaded version) reject a document nested deeper than 1,000 arrays
 * and objects; jsmn closes each bracket by walking up from the last token,
 * quadratic in the nesting, so a deeper record is refused before it runs.
 */
enum { JSON_INITIAL_TOKENS = 256, JSON_MAX_TOKENS = 1 << 26, JSON_MAX_DEPTH = 1000 };

/* The deepest nesting json_scan_fast takes (its stack); deeper records go to jsmn. */
enum { JSON_FAST_MAX_DEPTH = 64 };

void format_json_decoder_release(FormatDecoder *decoder)
{
    free(decoder->json_tokens);
    decoder->json_tokens = NULL;
    decoder->json_token_capacity = 0;
}

static int json_malformed(char *error, size_t error_size, size_t offset, const char *what)
{
    snprintf(error, error_size, "malformed JSON at byte %zu%s%s", offset + 1, what ? ": " : "",
             what ? what : "");
    return JOINERY_ERROR_RUNTIME;
}

/* Index of the token after the subtree rooted at `index`. */
static int json_skip(const jsmntok_t *tokens, int count, int index)
{
    int pending = 1;
    while (pending > 0 && index < count) {
        pending += tokens[index].size - 1;
        index++;
    }
    return index;
}

static bool read_hex4(const char *text, const char *end, unsigned *code)
{
    if (end - text < 4)
        return false;
    unsigned value = 0;
    for (int i = 0; i < 4; i++) {
        int digit = binary_hex_digit(text[i]);
        if (digit < 0)
            return false;
        value = value * 16 + (unsigned)digit;
    }
    *code = value;
    return true;
}

/*
 * Unescapes text into out (at least `length` bytes); returns the length
 * written. The output is never longer than the input (a 6-byte \uXXXX gives
 * at most 3 bytes, a 12-byte surrogate pair 4). Lone surrogates become
 * U+FFFD.
 */
static size_t json_unescape(const char *text, size_t length, char *out)
{
    const char *cursor = text, *end = text + length;
    char *start = out;
    while (cursor < end) {
        const char *backslash = memchr(cursor, '\\', (size_t)(end - cursor));
        if (!backslash) {
            memcpy(out, cursor, (size_t)(end - cursor));
            out += end - cursor;
            break;
        }
        memcpy(out, cursor, (size_t)(backslash - cursor));
        out += backslash - cursor;
        cursor = backslash + 1;
        if (cursor >= end)
            break;
        char c = *cursor++;
        switch (c) {
        case 'n':
            *out++ = '\n';
            break;
        case 't':
            *out++ = '\t';
            break;
        case 'r':
            *out++ = '\r';
            break;
        case 'b':
            *out++ = '\b';
            break;
        case 'f':
            *out++ = '\f';
            break;
        case 'u': {
            unsigned code;
            if (!read_hex4(cursor, end, &code)) {
                out += utf8_encode(0xFFFD, out);
                break;
            }
            cursor += 4;
            if (code >= 0xD800 && code <= 0xDBFF) {
                unsigned low;
                if (end - cursor >= 6 && cursor[0] == '\\' && cursor[1] == 'u' &&
                    read_hex4(cursor + 2, end, &low) && low >= 0xDC00 && low <= 0xDFFF) {
                    cursor += 6;
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                } else {
                    code = 0xFFFD;
                }
            } else if (code >= 0xDC00 && code <= 0xDFFF) {
                code = 0xFFFD;
            }
            out += utf8_encode(code, out);
            break;
        }
        default: /* \" \\ \/ */
            *out++ = c;
            break;
        }
    }
    return (size_t)(out - start);
}

/* Matches a key token to a field; -1 when the key names no field. */
static int json_find_field(const FormatDecoder *decoder, const char *key, size_t key_length,
                           uint32_t hint)
{
    uint32_t count = decoder->field_count;
    for (uint32_t step = 0; step < count; step++) {
        uint32_t field = hint + step;
        if (field >= count)
            field -= count;
        if (decoder->name_lengths[field] == key_length &&
            memcmp(decoder->names[field], key, key_length) == 0)
            return (int)field;
    }
    return -1;
}

/* ------------------------------------------------------------ what is wrong */

enum { JSON_DIAGNOSE_MAX_DEPTH = 512 };

/* How a byte is shown in a message: 'x' when printable ASCII, else its code. */
static void json_describe_byte(unsigned char c, char *out, size_t size)
{
    if (c >= 0x20 && c < 0x7f)
        snprintf(out, size, "'%c'", c);
    else
        snprintf(out, size, "byte 0x%02x", c);
}

/* Reads a JSON string from data[*at] (its opening quote) to after its closing quote: NULL,
   or what is wrong with *at at the offending byte. */
static const char *json_check_string(const char *data, size_t length, size_t *at, char *what,
                                     size_t what_size)
{
    size_t i = *at + 1;
    while (i < length) {
        unsigned char c = (unsigned char)data[i];
        if (c == '"') {
            *at = i + 1;
            return NULL;
        }
        if (c < 0x20) {
            *at = i;
            snprintf(what, what_size,
                     "a control character (byte 0x%02x) in a string must be "
                     "escaped",
                     c);
            return what;
        }
        if (c == '\\') {
            if (i + 1 >= length)
                break;
            char e = data[i + 1];
            if (e == 'u') {
                for (size_t k = 0; k < 4; k++)
                    if (i + 2 + k >= length || binary_hex_digit(data[i + 2 + k]) < 0) {
                        *at = i;
                        snprintf(what, what_size, "invalid escape \\u: four hex digits expected");
                        return what;
                    }
                i += 6;
                continue;
            }
            if (!strchr("\"\\/bfnrt", e) || e == '\0') {
                *at = i;
                char shown[16];
                json_describe_byte((unsigned char)e, shown, sizeof shown);
                if (e >= 0x20 && e < 0x7f)
                    snprintf(what, what_size, "invalid escape \\%c", e);
                else
                    snprintf(what, what_size, "invalid escape: backslash before %s", shown);
                return what;
            }
            i += 2;
            continue;
        }
        if (c >= 0x80) {
            uint32_t code_point;
            size_t consumed;
            if (!utf8_decode(data + i, length - i, &code_point, &consumed)) {
                *at = i;
                snprintf(what, what_size, "invalid UTF-8 (byte 0x%02x)", c);
                return what;
            }
            i += consumed;
            continue;
        }
        i++;
    }
    *at = length;
    snprintf(what, what_size, "unterminated string");
    return what;
}

/* A number or a literal (true, false, null) at data[*at]: NULL when it is one (*at after
   it), else what is wrong. */
static const char *json_check_scalar(const char *data, size_t length, size_t *at, char *what,
                                     size_t what_size)
{
    size_t i = *at;
    unsigned char c = (unsigned char)data[i];
    if (c == 't' || c == 'f' || c == 'n') {
        const char *word = c == 't' ? "true" : c == 'f' ? "false" : "null";
        size_t word_length = strlen(word);
        size_t end = i;
        while (end < length &&
               ((data[end] >= 'a' && data[end] <= 'z') || (data[end] >= 'A' && data[end] <= 'Z')))
            end++;
        if (end - i == word_length && memcmp(data + i, word, word_length) == 0) {
            *at = end;
            return NULL;
        }
        snprintf(what, what_size, "invalid literal '%.*s' (true, false or null expected)",
                 (int)(end - i > 24 ? 24 : end - i), data + i);
        return what;
    }
    /* -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)? */
    size_t start = i;
    if (i < length && data[i] == '-')
        i++;
    size_t digits = i;
    while (i < length && data[i] >= '0' && data[i] <= '9')
        i++;
    bool ok = i > digits && !(data[digits] == '0' && i - digits > 1);
    if (ok && i < length && data[i] == '.') {
        size_t fraction = ++i;
        while (i < length && data[i] >= '0' && data[i] <= '9')
            i++;
        ok = i > fraction;
    }
    if (ok && i < length && (data[i] == 'e' || data[i] == 'E')) {
        i++;
        if (i < length && (data[i] == '+' || data[i] == '-'))
            i++;
        size_t exponent = i;
        while (i < length && data[i] >= '0' && data[i] <= '9')
            i++;
        ok = i > exponent;
    }
    if (ok) {
        *at = i;
        return NULL;
    }
    *at = start;
    if (i == start || (i == start + 1 && data[start] == '-' && i == digits)) {
        char shown[16];
        json_describe_byte(c, shown, sizeof shown);
        snprintf(what, what_size, "expected a value but found %s", shown);
    } else {
        snprintf(what, what_size, "invalid number");
    }
    return what;
}

/* A primitive token (number or literal) as JSON's grammar has it; else false with the
   offset in it and the reason. */
static bool json_primitive_is_valid(const char *text, size_t length, size_t *wrong_at, char *what,
                                    size_t what_size)
{
    size_t end = 0;
    if (json_check_scalar(text, length, &end, what, what_size)) {
        *wrong_at = end;
        return false;
    }
    if (end != length) {
        *wrong_at = end;
        snprintf(what, what_size, "invalid number");
        return false;
    }
    return true;
}

/*
 * Says what is wrong with a record the tokenizer rejected (or with the UTF-8
 * of one it accepted): a walk of the JSON grammar with a stack of open
 * containers (no recursion), stopping at the first error: its offset in
 * *offset and the reason in `what` ("expected a string key", "invalid
 * escape \x", "expected ',' or '}'", ...). Returns false when the record is
 * well-formed after all.
 */
static bool json_diagnose(const char *data, size_t length, size_t *offset, char *what,
                          size_t what_size)
{
    enum { VALUE, VALUE_OR_END, KEY, KEY_OR_END, COLON, AFTER_VALUE, DONE } state = VALUE;
    char stack[JSON_DIAGNOSE_MAX_DEPTH];
    size_t opened_at[JSON_DIAGNOSE_MAX_DEPTH];
    size_t depth = 0;
    size_t i = 0;
    char shown[16];
    for (;;) {
        while (i < length &&
               (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r'))
            i++;
        if (i >= length) {
            if (state == DONE)
                return false;
            *offset = length;
            if (depth)
                snprintf(what, what_size,
                         "unexpected end of record (the %s opened at byte %zu is not closed)",
                         stack[depth - 1] == '{' ? "object" : "array", opened_at[depth - 1] + 1);
            else
                snprintf(what, what_size, "unexpected end of record");
            return true;
        }
        unsigned char c = (unsigned char)data[i];
        *offset = i;
        json_describe_byte(c, shown, sizeof shown);
        switch (state) {
        case VALUE:
        case VALUE_OR_END:
            if (c == ']' && state == VALUE_OR_END) {
                depth--;
                i++;
                state = depth ? AFTER_VALUE : DONE;
            } else if (c == '{' || c == '[') {
                if (depth == JSON_DIAGNOSE_MAX_DEPTH) {
                    snprintf(what, what_size, "nested more than %d levels deep",
                             JSON_DIAGNOSE_MAX_DEPTH);
                    return true;
                }
                opened_at[depth] = i;
                stack[depth++] = (char)c;
                i++;
                state = c == '{' ? KEY_OR_END : VALUE_OR_END;
            } else if (c == '"') {
                if (json_check_string(data, length, &i, what, what_size)) {
                    *offset = i;
                    return true;
                }
                state = AFTER_VALUE;
            } else {
                if (json_check_scalar(data, length, &i, what, what_size)) {
                    *offset = i;
                    return true;
                }
                state = AFTER_VALUE;
            }
            if (state == AFTER_VALUE && depth == 0)
                state = DONE;
            break;
        case KEY:
        case KEY_OR_END:
            if (c == '}' && state == KEY_OR_END) {
                depth--;
                i++;
                state = depth ? AFTER_VALUE : DONE;
            } else if (c == '"') {
                if (json_check_string(data, length, &i, what, what_size)) {
                    *offset = i;
                    return true;
                }
                state = COLON;
            } else {
                snprintf(what, what_size, "expected a string key but found %s", shown);
                return true;
            }
            break;
        case COLON:
            if (c != ':') {
                snprintf(what, what_size, "expected ':' after the key but found %s", shown);
                return true;
            }
            i++;
            state = VALUE;
            break;
        case AFTER_VALUE: {
            char open = stack[depth - 1];
            char close = open == '{' ? '}' : ']';
            if (c == ',') {
                i++;
                state = open == '{' ? KEY : VALUE;
            } else if ((char)c == close) {
                depth--;
                i++;
                state = depth ? AFTER_VALUE : DONE;
            } else {
                snprintf(what, what_size, "expected ',' or '%c' but found %s", close, shown);
                return true;
            }
            break;
        }
        case DONE:
            snprintf(what, what_size, "unexpected content after the object");
            return true;
        }
    }
}

/* The offset of the bracket that nests deeper than JSON_MAX_DEPTH, or SIZE_MAX. */
static size_t json_too_deep(const char *data, size_t length)
{
    int depth = 0;
    bool in_string = false;
    for (size_t i = 0; i < length; i++) {
        char c = data[i];
        if (in_string) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth > JSON_MAX_DEPTH)
                return i;
        } else if (c == ']' || c == '}') {
            depth--;
        }
    }
    return SIZE_MAX;
}

static inline bool json_is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* The bytes json_scan_fast takes in a primitive (jsmn takes more; JSON's grammar fewer). */
static inline bool json_is_primitive_byte(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' ||
           c == '+' || c == '.';
}

/* A new token as jsmn makes it: end -1 until closed, size 0, parent as given. */
static inline void json_fast_token(jsmntok_t *token, jsmntype_t type, int start, int end,
                                   int parent)
{
    token->type = type;
    token->start = start;
    token->end = end;
    token->size = 0;
    token->parent = parent;
}

/*
 * The closing quote of the string whose opening quote is at `open`, as jsmn
 * finds it (escapes \" \/ \\ \b \f \r \n \t and \u with four hex digits
 * skipped), or NULL for anything else: then jsmn decides. Each byte is
 * looked at a bounded number of times (memchr for quotes and backslashes).
 */
static const char *json_fast_string_end(const char *open, const char *end)
{
    const char *at = open + 1;
    const char *quote = memchr(at, '"', (size_t)(end - at));
    while (quote) {
        const char *backslash = memchr(at, '\\', (size_t)(quote - at));
        if (!backslash)
            return quote;
        const char *escaped = backslash + 1; /* before quote, so inside the record */
        switch (*escaped) {
        case '"':
        case '/':
        case '\\':
        case 'b':
        case 'f':
        case 'r':
        case 'n':
        case 't':
            at = escaped + 1;
            break;
        case 'u':
            if (end - escaped < 5)
                return NULL;
            for (int i = 1; i <= 4; i++)
                if (binary_hex_digit(escaped[i]) < 0)
                    return NULL;
            at = escaped + 5;
            break;
        default:
            return NULL;
        }
        if (at > quote)
            quote = memchr(at, '"', (size_t)(end - at));
    }
    return NULL;
}

/*
 * jsmn's tokens (strict mode, parent links) for a record that is one JSON
 * object of plain JSON: strings whose escapes jsmn takes (the caller made
 * sure the record has no NUL byte, where jsmn stops), primitives of
 * letters, digits, '+', '-' and '.', containers at most JSON_FAST_MAX_DEPTH
 * deep, whitespace only after the object. As jsmn: an object's size is its
 * keys, a key's 1 (its value), an array's its elements; a value's parent is
 * its key or array. Returns the token count, or -1 when the record is not of
 * that kind or needs more than `capacity` tokens: then jsmn decides.
 */
static int json_scan_fast(const char *data, size_t length, jsmntok_t *tokens, int capacity)
{
    const char *p = data, *end = data + length;
    int stack[JSON_FAST_MAX_DEPTH]; /* open containers, innermost last */
    int depth = 0, count = 0, parent = -1;
    while (p < end && json_is_space(*p))
        p++;
    if (p == end || *p != '{')
        return -1;
value: /* a value at p, whose parent is `parent` */
    if (p == end || count >= capacity)
        return -1;
    if (*p == '{' || *p == '[') {
        if (depth == JSON_FAST_MAX_DEPTH)
            return -1;
        bool object = *p == '{';
        int index = count++;
        json_fast_token(&tokens[index], object ? JSMN_OBJECT : JSMN_ARRAY, (int)(p - data), -1,
                        parent);
        if (parent >= 0)
            tokens[parent].size++;
        stack[depth++] = index;
        p++;
        while (p < end && json_is_space(*p))
            p++;
        if (p < end && *p == (object ? '}' : ']')) {
            tokens[index].end = (int)(p - data) + 1;
            depth--;
            p++;
            goto after;
        }
        if (object)
            goto key;
        parent = index;
        goto value;
    }
    if (*p == '"') {
        const char *close = json_fast_string_end(p, end);
        if (!close)
            return -1;
        json_fast_token(&tokens[count++], JSMN_STRING, (int)(p + 1 - data), (int)(close - data),
                        parent);
        tokens[parent].size++;
        p = close + 1;
        goto after;
    }
    if ((*p >= '0' && *p <= '9') || *p == '-' || *p == 't' || *p == 'f' || *p == 'n') {
        const char *start = p;
        while (p < end && json_is_primitive_byte(*p))
            p++;
        /* jsmn ends a primitive only at one of these; at the end of the record it fails */
        if (p == end || !(json_is_space(*p) || *p == ',' || *p == '}' || *p == ']'))
            return -1;
        json_fast_token(&tokens[count++], JSMN_PRIMITIVE, (int)(start - data), (int)(p - data),
                        parent);
        tokens[parent].size++;
        goto after;
    }
    return -1;
key: /* a key of the object stack[depth - 1] at p, then ':' and its value */
    if (p == end || *p != '"' || count >= capacity)
        return -1;
    {
        const char *close = json_fast_string_end(p, end);
        if (!close)
            return -1;
        int object = stack[depth - 1];
        json_fast_token(&tokens[count], JSMN_STRING, (int)(p + 1 - data), (int)(close - data),
                        object);
        tokens[object].size++;
        parent = count++;
        p = close + 1;
        while (p < end && json_is_space(*p))
            p++;
        if (p == end || *p != ':')
            return -1;
        p++;
        while (p < end && json_is_space(*p))
            p++;
        goto value;
    }
after: /* after a value: ',' and the next, or the container's end */
    while (p < end && json_is_space(*p))
        p++;
    if (depth == 0)
        return p == end ? count : -1;
    {
        int container = stack[depth - 1];
        bool object = tokens[container].type == JSMN_OBJECT;
        if (p == end)
            return -1;
        if (*p == ',') {
            p++;
            while (p < end && json_is_space(*p))
                p++;
            if (object)
                goto key;
            parent = container;
            goto value;
        }
        if (*p != (object ? '}' : ']'))
            return -1;
        tokens[container].end = (int)(p - data) + 1;
        depth--;
        p++;
        goto after;
    }
}

/* A record tokenized into `result` tokens: it must also be UTF-8, as Jackson (Flink's JSON
   format) requires, which neither tokenizer checks inside strings. */
static int json_tokens_found(const char *data, size_t length, int result, int *count, char *error,
                             size_t error_size)
{
    size_t valid = utf8_valid_prefix(data, length);
    if (valid < length) {
        char what[64];
        snprintf(what, sizeof what, "invalid UTF-8 (byte 0x%02x)", (unsigned char)data[valid]);
        return json_malformed(error, error_size, valid, what);
    }
    *count = result;
    return JOINERY_OK;
}

static int json_tokenize(FormatDecoder *decoder, const char *data, size_t length, int *count,
                         char *error, size_t error_size)
{
    if (!decoder->json_tokens) {
        decoder->json_tokens = malloc(JSON_INITIAL_TOKENS * sizeof(jsmntok_t));
        if (!decoder->json_tokens) {
            snprintf(error, error_size, "out of memory");
            return JOINERY_ERROR_NO_MEMORY;
        }
        decoder->json_token_capacity = JSON_INITIAL_TOKENS;
    }
    if (!decoder->json_scan_fast_off && length < (size_t)INT32_MAX && !memchr(data, '\0', length)) {
        int result =
            json_scan_fast(data, length, decoder->json_tokens, (int)decoder->json_token_capacity);
        if (result >= 0)
            return json_tokens_found(data, length, result, count, error, error_size);
    }
    size_t too_deep = json_too_deep(data, length);
    if (too_deep != SIZE_MAX)
        return json_malformed(error, error_size, too_deep,
                              "nesting depth exceeds the maximum allowed (1000)");
    for (;;) {
        jsmn_parser parser;
        jsmn_init(&parser);
        int result =
            jsmn_parse(&parser, data, length, decoder->json_tokens, decoder->json_token_capacity);
        if (result >= 0)
            return json_tokens_found(data, length, result, count, error, error_size);
        if (result != JSMN_ERROR_NOMEM) {
            size_t position = parser.pos < length ? parser.pos : length;
            char what[160];
            if (json_diagnose(data, length, &position, what, sizeof what))
                return json_malformed(error, error_size, position, what);
            return json_malformed(error, error_size, position,
                                  result == JSMN_ERROR_PART ? "unexpected end of record" : NULL);
        }
        if (decoder->json_token_capacity >= JSON_MAX_TOKENS) {
            snprintf(error, error_size, "JSON record has too many values");
            return JOINERY_ERROR_RUNTIME;
        }
        uint32_t capacity = decoder->json_token_capacity * 2;
        jsmntok_t *tokens = realloc(decoder->json_tokens, capacity * sizeof(jsmntok_t));
        if (!tokens) {
            snprintf(error, error_size, "out of memory");
            return JOINERY_ERROR_NO_MEMORY;
        }
        decoder->json_tokens = tokens;
        decoder->json_token_capacity = capacity;
    }
}

/* The text of a JSON string token, unescaped into the record arena when needed. */
static bool json_token_text(FormatDecoder *decoder, const char *data, const jsmntok_t *token,
                            const char **text, size_t *length)
{
    *text = data + token->start;
    *length = (size_t)(token->end - token->start);
    if (token->type == JSMN_STRING && memchr(*text, '\\', *length)) {
        char *out = arena_alloc(&decoder->record_arena, *length + 1);
        if (!out)
            return false;
        *length = json_unescape(*text, *length, out);
        *text = out;
    }
    return true;
}

/*
 * One BYTES value or MAP element from a JSON token: strings as they are,
 * bytes from base64 (as Flink's JSON format writes them), other types parsed
 * from the token's text. Values live in the record arena. Returns 0, or -1
 * with a reason.
 */
static int json_map_value(FormatDecoder *decoder, DataType type, const char *data,
                          const jsmntok_t *object, Value *value, char *reason, size_t reason_size);
static int json_composite_value(FormatDecoder *decoder, DataType type, const char *data,
                                const jsmntok_t *token, Value *value, char *reason,
                                size_t reason_size);

static int json_element_value(FormatDecoder *decoder, DataType type, const char *data,
                              const jsmntok_t *token, Value *value, char *reason,
                              size_t reason_size)
{
    char type_name[64];
    const char *text;
    size_t length;
    if (token->type == JSMN_PRIMITIVE && data[token->start] == 'n') {
        *value = value_null();
        return 0;
    }
    if (type.id == TYPE_MAP)
        return json_map_value(decoder, type, data, token, value, reason, reason_size);
    if (type_is_composite(type.id))
        return json_composite_value(decoder, type, data, token, value, reason, reason_size);
    if (token->type == JSMN_OBJECT || token->type == JSMN_ARRAY) {
        snprintf(reason, reason_size, "expected a %s but found a JSON %s",
                 type_format(type, type_name, sizeof type_name),
                 token->type == JSMN_OBJECT ? "object" : "array");
        return -1;
    }
    if (!json_token_text(decoder, data, token, &text, &length)) {
        snprintf(reason, reason_size, "out of memory");
        return -1;
    }
    if (type_is_binary(type.id)) {
        strbuf_clear(&decoder->convert);
        int status =
            token->type == JSMN_STRING ? binary_decode_base64(text, length, &decoder->convert) : 1;
        if (status != 0) {
            snprintf(reason, reason_size, status < 0 ? "out of memory" : "not valid base64");
            return -1;
        }
        char *bytes = arena_alloc(&decoder->record_arena, decoder->convert.length + 1);
        if (!bytes) {
            snprintf(reason, reason_size, "out of memory");
            return -1;
        }
        if (decoder->convert.length)
            memcpy(bytes, decoder->convert.data, decoder->convert.length);
        *value = value_string(bytes, (uint32_t)decoder->convert.length);
        return 0;
    }
    if (type_is_string(type.id)) {
        *value = value_string(text, (uint32_t)length);
        return 0;
    }
    return value_parse_text(type, text, (uint32_t)length, &decoder->record_arena, value, reason,
                            reason_size);
}

/* A JSON object as a MAP value (keys are the member names), encoded into the record arena. */
static int json_map_value(FormatDecoder *decoder, DataType type, const char *data,
                          const jsmntok_t *object, Value *value, char *reason, size_t reason_size)
{
    char type_name[64];
    if (object->type != JSMN_OBJECT) {
        snprintf(reason, reason_size, "expected a %s (a JSON object)",
                 type_format(type, type_name, sizeof type_name));
        return -1;
    }
    uint32_t count = (uint32_t)object->size;
    MapEntry *entries = arena_alloc(&decoder->record_arena, (count ? count : 1) * sizeof *entries);
    if (!entries) {
        snprintf(reason, reason_size, "out of memory");
        return -1;
    }
    const jsmntok_t *tokens = decoder->json_tokens;
    int index = (int)(object - tokens) + 1;
    DataType key_type = type_map_key(type), value_type = type_map_value(type);
    for (uint32_t i = 0; i < count; i++) {
        if (json_element_value(decoder, key_type, data, &tokens[index], &entries[i].key, reason,
                               reason_size) != 0 ||
            json_element_value(decoder, value_type, data, &tokens[index + 1], &entries[i].value,
                               reason, reason_size) != 0)
            return -1;
        index = json_skip(tokens, INT32_MAX, index + 1);
    }
    StrBuf encoded = STRBUF_INIT;
    if (map_encode(type, entries, count, &encoded) != 0) {
        strbuf_free(&encoded);
        snprintf(reason, reason_size, "out of memory");
        return -1;
    }
    char *bytes = arena_alloc(&decoder->record_arena, encoded.length);
    if (bytes)
        memcpy(bytes, encoded.data, encoded.length);
    *value = value_string(bytes, (uint32_t)encoded.length);
    strbuf_free(&encoded);
    if (!bytes) {
        snprintf(reason, reason_size, "out of memory");
        return -1;
    }
    return 0;
}

/* Moves an encoded value into the record arena; 0, or -1 with a reason. */
static int json_encoded_value(FormatDecoder *decoder, StrBuf *encoded, int status, Value *value,
                              char *reason, size_t reason_size)
{
    char *bytes = status == 0 ? arena_alloc(&decoder->record_arena, encoded->length + 1) : NULL;
    if (bytes && encoded->length)
        memcpy(bytes, encoded->data, encoded->length);
    *value = value_string(bytes, (uint32_t)encoded->length);
    strbuf_free(encoded);
    if (!bytes) {
        snprintf(reason, reason_size, "out of memory");
        return -1;
    }
    return 0;
}

/*
 * A ROW from a JSON object (fields by name, absent ones NULL, other members ignored, as
 * Flink's JSON format reads them), an ARRAY from a JSON array, a MULTISET from a JSON object
 * of element -> count (Flink writes multisets as maps to counts) or, leniently, from a JSON
 * array of its elements. Nested values are read by json_element_value; the JSON's depth is
 * bounded by json_too_deep and the type's by the parser.
 */
static int json_composite_value(FormatDecoder *decoder, DataType type, const char *data,
                                const jsmntok_t *token, Value *value, char *reason,
                                size_t reason_size)
{
    char type_name[256];
    const jsmntok_t *tokens = decoder->json_tokens;
    int index = (int)(token - tokens) + 1;
    uint32_t count = (uint32_t)token->size;
    Arena *arena = &decoder->record_arena;
    StrBuf encoded = STRBUF_INIT;
    bool object = token->type == JSMN_OBJECT, array = token->type == JSMN_ARRAY;
    if ((type.id == TYPE_ROW && !object) || (type.id == TYPE_ARRAY && !array) ||
        (type.id == TYPE_MULTISET && !object && !array)) {
        snprintf(reason, reason_size, "expected a %s (a JSON %s)",
                 type_format(type, type_name, sizeof type_name),
                 type.id == TYPE_ARRAY ? "array" : "object");
        return -1;
    }
    if (type.id == TYPE_ROW) {
        uint32_t fields = type_field_count(type);
        Value *values = arena_alloc(arena, fields * sizeof *values);
        if (!values) {
            snprintf(reason, reason_size, "out of memory");
            return -1;
        }
        for (uint32_t i = 0; i < fields; i++)
            values[i] = value_null();
        /* field names are unique (the parser says so): the search starts after the last
           key's field, since writers usually keep the fields' order */
        uint32_t hint = 0;
        for (uint32_t i = 0; i < count; i++) {
            const char *name;
            size_t name_length;
            if (!json_token_text(decoder, data, &tokens[index], &name, &name_length)) {
                snprintf(reason, reason_size, "out of memory");
                return -1;
            }
            for (uint32_t step = 0; step < fields; step++) {
                uint32_t f = hint + step < fields ? hint + step : hint + step - fields;
                const char *field_name = type_field_name(type, f);
                if (strlen(field_name) == name_length &&
                    memcmp(field_name, name, name_length) == 0) {
                    if (json_element_value(decoder, type_field(type, f), data, &tokens[index + 1],
                                           &values[f], reason, reason_size) != 0)
                        return -1;
                    hint = f + 1 < fields ? f + 1 : 0;
                    break;
                }
            }
            index = json_skip(tokens, INT32_MAX, index + 1);
        }
        return json_encoded_value(decoder, &encoded, row_value_encode(type, values, &encoded),
                                  value, reason, reason_size);
    }
    DataType element_type = type_element(type);
    MultisetElement *entries = arena_alloc(arena, (count ? count : 1) * sizeof *entries);
    Value *elements = arena_alloc(arena, (count ? count : 1) * sizeof *elements);
    if (!entries || !elements) {
        snprintf(reason, reason_size, "out of memory");
        return -1;
    }
    for (uint32_t i = 0; i < count; i++) {
        if (json_element_value(decoder, element_type, data, &tokens[index], &elements[i], reason,
                               reason_size) != 0)
            return -1;
        if (type.id == TYPE_MULTISET && elements[i].is_null) {
            /* Flink's JSON format has no null keys by default (map-null-key.mode FAIL) */
            snprintf(reason, reason_size, "a MULTISET element is null");
            return -1;
        }
        entries[i].element = elements[i];
        entries[i].count = 1;
        if (object) {
            Value multiplicity;
            if (json_element_value(decoder, type_make(TYPE_INT, false), data, &tokens[index + 1],
                                   &multiplicity, reason, reason_size) != 0)
                return -1;
            entries[i].count = multiplicity.is_null ? 0 : multiplicity.i;
            index = json_skip(tokens, INT32_MAX, index + 1);
        } else {
            index = json_skip(tokens, INT32_MAX, index);
        }
    }
    int status = type.id == TYPE_ARRAY ? array_encode(type, elements, count, &encoded)
                                       : multiset_encode(type, entries, count, &encoded);
    return json_encoded_value(decoder, &encoded, status, value, reason, reason_size);
}

static int json_convert_field(FormatDecoder *decoder, uint32_t field, const char *data,
                              bool record_has_escapes, const jsmntok_t *token, Value *value,
                              char *error, size_t error_size)
{
    DataType type = decoder->types[field];
    if (type_is_binary(type.id) || type.id == TYPE_MAP || type_is_composite(type.id)) {
        char reason[320];
        int status = 0;
        if (token->type == JSMN_PRIMITIVE && data[token->start] == 'n')
            *value = value_null();
        else
            status = json_element_value(decoder, type, data, token, value, reason, sizeof reason);
        if (status != 0)
            return format_field_error(error, error_size, decoder->names[field], reason,
                                      data + token->start, (size_t)(token->end - token->start));
        return 0;
    }
    const char *text = data + token->start;
    size_t length = (size_t)(token->end - token->start);
    bool is_string_type = type_is_string(type.id);
    size_t wrong_at;
    char what[96];
    switch (token->type) {
    case JSMN_PRIMITIVE:
        /* the tokenizer takes any run of number characters: JSON's grammar decides */
        if (!json_primitive_is_valid(text, length, &wrong_at, what, sizeof what))
            return json_malformed(error, error_size, (size_t)token->start + wrong_at, what);
        if (text[0] == 'n') {
            if (length != 4 || memcmp(text, "null", 4) != 0)
                return json_malformed(error, error_size, (size_t)token->start,
                                      "invalid literal (true, false or null expected)");
            *value = value_null();
            return 0;
        }
        if (text[0] == 't' || text[0] == 'f') {
            if (!(length == 4 && memcmp(text, "true", 4) == 0) &&
                !(length == 5 && memcmp(text, "false", 5) == 0))
                return json_malformed(error, error_size, (size_t)token->start,
                                      "invalid literal (true, false or null expected)");
            if (type.id != TYPE_BOOLEAN && !is_string_type)
                return format_parse_field(decoder, field, text, length, false, value, error,
                                          error_size);
        } else if (!type_is_numeric(type.id) && !is_string_type) {
            char reason[96], type_name[64];
            snprintf(reason, sizeof reason, "expected a %s but found a JSON number",
                     type_format(type, type_name, sizeof type_name));
            return format_field_error(error, error_size, decoder->names[field], reason, text,
                                      length);
        }
        if (is_string_type) {
            *value = value_string(text, (uint32_t)length);
            return 0;
        }
        return format_parse_field(decoder, field, text, length, false, value, error, error_size);
    case JSMN_STRING:
        if (record_has_escapes && memchr(text, '\\', length)) {
            char *out = decoder->scratch + decoder->scratch_used;
            length = json_unescape(text, length, out);
            decoder->scratch_used += length;
            text = out;
        }
        if (is_string_type) {
            *value = value_string(text, (uint32_t)length);
            return 0;
        }
        return format_parse_field(decoder, field, text, length, decoder->options.timestamp_iso_8601,
                                  value, error, error_size);
    case JSMN_OBJECT:
    case JSMN_ARRAY:
        if (is_string_type) {
            *value = value_string(text, (uint32_t)length);
            return 0;
        } else {
            char reason[96], type_name[64];
            snprintf(reason, sizeof reason, "expected a %s but found a JSON %s",
                     type_format(type, type_name, sizeof type_name),
                     token->type == JSMN_OBJECT ? "object" : "array");
            return format_field_error(error, error_size, decoder->names[field], reason, text,
                                      length);
        }
    default:
        return json_malformed(error, error_size, (size_t)token->start, "expected a value");
    }
}

int format_json_decode(FormatDecoder *decoder, const char *data, size_t length, Value *values,
                       char *error, size_t error_size)
{
    size_t first = 0;
    while (first < length && (data[first] == ' ' || data[first] == '\t' || data[first] == '\r'))
        first++;
    if (first == length)
        return FORMAT_RECORD_EMPTY;
    if (data[first] != '{')
        return json_malformed(error, error_size, first, "expected a JSON object");
    int count;
    int status = json_tokenize(decoder, data, length, &count, error, error_size);
    if (status != JOINERY_OK)
        return status;
    const jsmntok_t *tokens = decoder->json_tokens;
    if (count < 1 || tokens[0].type != JSMN_OBJECT)
        return json_malformed(error, error_size, first, "expected a JSON object");
    int end = json_skip(tokens, count, 0);
    if (end != count)
        return json_malformed(error, error_size, (size_t)tokens[end].start,
                              "unexpected content after the object");

    /* one scan of the record spares a scan of every string without escapes */
    bool has_escapes = memchr(data, '\\', length) != NULL;
    int32_t *field_tokens = decoder->json_field_tokens;
    for (uint32_t i = 0; i < decoder->field_count; i++)
        field_tokens[i] = -1;
    uint32_t hint = 0;
    int index = 1;
    for (int key = 0; key < tokens[0].size; key++) {
        if (index >= count)
            return json_malformed(error, error_size, length, "unexpected end of record");
        const jsmntok_t *key_token = &tokens[index];
        if (key_token->type != JSMN_STRING || key_token->size != 1 || index + 1 >= count) {
            /* the tokenizer let a structural mistake through (a missing ','): say which */
            size_t position = (size_t)key_token->start;
            char what[160];
            if (json_diagnose(data, length, &position, what, sizeof what))
                return json_malformed(error, error_size, position, what);
            return json_malformed(error, error_size, (size_t)key_token->start,
                                  "expected \"key\": value");
        }
        const char *name = data + key_token->start;
        size_t name_length = (size_t)(key_token->end - key_token->start);
        char unescaped[256];
        if (has_escapes && memchr(name, '\\', name_length)) {
            if (name_length > sizeof unescaped)
                name_length = 0; /* matches no field */
            else
                name_length = json_unescape(name, name_length, unescaped);
            name = unescaped;
        }
        int field = json_find_field(decoder, name, name_length, hint);
        if (field >= 0) {
            field_tokens[field] = index + 1;
            hint = (uint32_t)field + 1;
        }
        index = json_skip(tokens, count, index + 1);
    }

    for (uint32_t field = 0; field < decoder->field_count; field++) {
        if (field_tokens[field] < 0) {
            if (decoder->options.fail_on_missing_field) {
                snprintf(error, error_size,
                         "field '%s': missing (json.fail-on-missing-field "
                         "is true)",
                         decoder->names[field]);
                return JOINERY_ERROR_RUNTIME;
            }
            values[field] = value_null();
            continue;
        }
        status = json_convert_field(decoder, field, data, has_escapes, &tokens[field_tokens[field]],
                                    &values[field], error, error_size);
        if (status != 0)
            return status;
    }
    return FORMAT_RECORD_ROW;
}

int format_json_quote(const char *text, size_t length, FormatJsonQuote mode,
                      int (*write)(void *context, const char *bytes, size_t length), void *context)
{
    static const char HEX[] = "0123456789abcdef";
    bool valid_utf8 = mode == FORMAT_JSON_QUOTE_VALID_UTF8;
    int status = write(context, "\"", 1);
    size_t run = 0, i = 0;
    while (i < length && status == 0) {
        unsigned char c = (unsigned char)text[i];
        size_t width = 1;           /* bytes the escape replaces */
        char escape[8];             /* room for \" \\ and \u00xx */
        const char *escaped = NULL; /* what replaces text[i..i + width) */
        if (c == '"' || c == '\\') {
            escape[0] = '\\';
            escape[1] = (char)c;
            escape[2] = '\0';
            escaped = escape;
        } else if (c < 0x20 || (valid_utf8 && c == 0x7F)) {
            escaped = c == '\n'   ? "\\n"
                      : c == '\r' ? "\\r"
                      : c == '\t' ? "\\t"
                      : c == '\b' ? "\\b"
                      : c == '\f' ? "\\f"
                                  : NULL; /* else \u00xx */
        } else if (valid_utf8 && c >= 0x80) {
            uint32_t code_point;
            size_t consumed;
            size_t bytes = utf8_decode(text + i, length - i, &code_point, &consumed);
            if (bytes && code_point != 0x2028 && code_point != 0x2029) {
                i += bytes; /* well-formed: part of the run */
                continue;
            }
            if (bytes) {
                escaped = code_point == 0x2028 ? "\\u2028" : "\\u2029";
                width = bytes;
            } else {
                /* an ill-formed sequence (its maximal subpart) is one U+FFFD, as Java's
                   UTF-8 decoder would have made it */
                escaped = "\\ufffd";
                width = consumed;
            }
        } else {
            i++;
            continue;
        }
        if (!escaped) {
            memcpy(escape, "\\u00", 4);
            escape[4] = HEX[c >> 4];
            escape[5] = HEX[c & 15];
            escape[6] = '\0';
            escaped = escape;
        }
        if (i > run)
            status = write(context, text + run, i - run);
        if (status == 0)
            status = write(context, escaped, strlen(escaped));
        i += width;
        run = i;
    }
    if (status == 0 && length > run)
        status = write(context, text + run, length - run);
    return status == 0 ? write(context, "\"", 1) : status;
}

static int json_write_strbuf(void *context, const char *bytes, size_t length)
{
    return strbuf_append(context, bytes, length);
}

static int json_append_string(const char *text, size_t length, StrBuf *out)
{
    if (strbuf_reserve(out, length + 2) != 0)
        return -1;
    return format_json_quote(text, length, FORMAT_JSON_QUOTE_MINIMAL, json_write_strbuf, out);
}

/* One value as JSON: numbers and booleans bare, bytes as base64, maps as objects, the rest
   as strings of their text form. */
static int json_append_value(FormatEncoder *encoder, DataType type, Value value, StrBuf *out)
{
    if (value.is_null)
        return strbuf_append_cstr(out, "null");
    switch (type.id) {
    case TYPE_BOOLEAN:
    case TYPE_TINYINT:
    case TYPE_SMALLINT:
    case TYPE_INT:
    case TYPE_BIGINT:
    case TYPE_DECIMAL:
        return format_append_value_text(type, value, false, out);
    case TYPE_FLOAT:
    case TYPE_DOUBLE:
        if (value.d != value.d || value.d - value.d != 0) { /* NaN, infinities */
            strbuf_clear(&encoder->scratch);
            if (format_append_value_text(type, value, false, &encoder->scratch) != 0)
                return -1;
            return json_append_string(encoder->scratch.data, encoder->scratch.length, out);
        }
        return format_append_value_text(type, value, false, out);
    case TYPE_CHAR:
    case TYPE_VARCHAR:
        return json_append_string(value.s.ptr, value.s.len, out);
    case TYPE_BINARY:
    case TYPE_VARBINARY:
        strbuf_clear(&encoder->scratch);
        if (binary_append_base64((const uint8_t *)value.s.ptr, value.s.len, &encoder->scratch) != 0)
            return -1;
        return json_append_string(encoder->scratch.data ? encoder->scratch.data : "",
                                  encoder->scratch.length, out);
    case TYPE_MAP: {
        MapReader reader;
        MapEntry entry;
        bool first = true;
        if (strbuf_append_char(out, '{') != 0)
            return -1;
        if (map_reader_init(&reader, type, value.s.ptr, value.s.len)) {
            while (map_reader_next(&reader, &entry)) {
                if (!first && strbuf_append_char(out, ',') != 0)
                    return -1;
                first = false;
                /* member names are the keys' text ("null" for a NULL key) */
                strbuf_clear(&encoder->scratch);
                int status = 0;
                if (entry.key.is_null)
                    status = strbuf_append_cstr(&encoder->scratch, "null");
                else if (type_is_binary(reader.key_type.id))
                    status = binary_append_base64((const uint8_t *)entry.key.s.ptr, entry.key.s.len,
                                                  &encoder->scratch);
                else
                    status = format_append_value_text(reader.key_type, entry.key,
                                                      encoder->options.timestamp_iso_8601,
                                                      &encoder->scratch);
                if (status != 0 ||
                    json_append_string(encoder->scratch.data ? encoder->scratch.data : "",
                                       encoder->scratch.length, out) != 0 ||
                    strbuf_append_char(out, ':') != 0 ||
                    json_append_value(encoder, reader.value_type, entry.value, out) != 0)
                    return -1;
            }
        }
        return strbuf_append_char(out, '}');
    }
    case TYPE_ROW: {
        /* an object of the fields by name, NULL fields as null (Flink's JSON format) */
        const uint8_t *cursor = (const uint8_t *)value.s.ptr, *end = cursor + value.s.len;
        if (strbuf_append_char(out, '{') != 0)
            return -1;
        for (uint32_t i = 0; i < type_field_count(type); i++) {
            Value field;
            const char *name = type_field_name(type, i);
            if (!composite_read_element(&cursor, end, type_field(type, i), &field))
                break;
            if ((i > 0 && strbuf_append_char(out, ',') != 0) ||
                json_append_string(name, strlen(name), out) != 0 ||
                strbuf_append_char(out, ':') != 0 ||
                json_append_value(encoder, type_field(type, i), field, out) != 0)
                return -1;
        }
        return strbuf_append_char(out, '}');
    }
    case TYPE_ARRAY:
    case TYPE_MULTISET: {
        /* an ARRAY as a JSON array; a MULTISET as an object of element -> count */
        bool multiset = type.id == TYPE_MULTISET;
        CollectionReader reader;
        Value element;
        int64_t multiplicity;
        bool first = true;
        if (strbuf_append_char(out, multiset ? '{' : '[') != 0)
            return -1;
        if (collection_reader_init(&reader, type, value.s.ptr, value.s.len)) {
            while (collection_reader_next(&reader, &element, &multiplicity)) {
                if (!first && strbuf_append_char(out, ',') != 0)
                    return -1;
                first = false;
                if (!multiset) {
                    if (json_append_value(encoder, reader.element_type, element, out) != 0)
                        return -1;
                    continue;
                }
                strbuf_clear(&encoder->scratch);
                int status = element.is_null
                                 ? strbuf_append_cstr(&encoder->scratch, "null")
                                 : format_append_value_text(reader.element_type, element,
                                                            encoder->options.timestamp_iso_8601,
                                                            &encoder->scratch);
                if (status != 0 ||
                    json_append_string(encoder->scratch.data ? encoder->scratch.data : "",
                                       encoder->scratch.length, out) != 0 ||
                    strbuf_printf(out, ":%lld", (long long)multiplicity) != 0)
                    return -1;
            }
        }
        return strbuf_append_char(out, multiset ? '}' : ']');
    }
    default:
        strbuf_clear(&encoder->scratch);
        if (format_append_value_text(type, value, encoder->options.timestamp_iso_8601,
                                     &encoder->scratch) != 0)
            return -1;
        return json_append_string(encoder->scratch.data ? encoder->scratch.data : "",
                                  encoder->scratch.length, out);
    }
}

int format_json_encode(FormatEncoder *encoder, const Row *row, StrBuf *out)
{
    if (strbuf_append_char(out, '{') != 0)
        return -1;
    for (uint32_t field = 0; field < encoder->field_count; field++) {
        DataType type = encoder->types[field];
        if (field > 0 && strbuf_append_char(out, ',') != 0)
            return -1;
        if (json_append_string(encoder->names[field], strlen(encoder->names[field]), out) != 0 ||
            strbuf_append_char(out, ':') != 0)
            return -1;
        Value value = value_from_row(row, field, type);
        if (value.is_null) {
            if (strbuf_append_cstr(out, "null") != 0)
                return -1;
            continue;
        }
        if (json_append_value(encoder, type, value, out) != 0)
            return -1;
    }
    return strbuf_append_char(out, '}');
}
