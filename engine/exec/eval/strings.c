/*
 * strings.c - string functions and LIKE. Strings are UTF-8: CHAR_LENGTH,
 * SUBSTRING, TRIM, POSITION and LIKE's '_' count code points; UPPER/LOWER
 * change ASCII letters only and leave other bytes alone (unlike Java, which
 * also maps non-ASCII letters). LIKE has no escape character unless ESCAPE
 * is given (SQL standard); 'abc', 'abc%', '%abc' and '%abc%' take a fast
 * path. Code points are walked with engine/base/utf8.h's lead-byte helpers.
 * REPEAT, REVERSE, LPAD, RPAD, LEFT, RIGHT count code points where Java
 * counts UTF-16 units (they differ only outside the Basic Multilingual Plane).
 */
#include <string.h>

#include "engine/base/utf8.h"
#include "engine/exec/eval/eval.h"

/* UPPER (upper) or LOWER: ASCII letters only */
static Value case_change(const Expr *expr, const EvalInput *input, bool upper)
{
    Value a = eval_expr(expr->call.args[0], input);
    if (a.is_null)
        return a;
    char *copy = eval_arena_copy(input, a.s.ptr, a.s.len);
    if (!copy)
        return eval_out_of_memory(input);
    for (uint32_t i = 0; i < a.s.len; i++) {
        char c = copy[i];
        if (upper && c >= 'a' && c <= 'z')
            copy[i] = (char)(c - 'a' + 'A');
        else if (!upper && c >= 'A' && c <= 'Z')
            copy[i] = (char)(c - 'A' + 'a');
    }
    return value_string(copy, a.s.len);
}

Value eval_upper(const Expr *expr, const EvalInput *input)
{
    return case_change(expr, input, true);
}

Value eval_lower(const Expr *expr, const EvalInput *input)
{
    return case_change(expr, input, false);
}

Value eval_char_length(const Expr *expr, const EvalInput *input)
{
    Value a = eval_expr(expr->call.args[0], input);
    return a.is_null ? a : value_int(utf8_count(a.s.ptr, a.s.len));
}

Value eval_substring(const Expr *expr, const EvalInput *input)
{
    Value s = eval_expr(expr->call.args[0], input);
    if (s.is_null)
        return s;
    Value start = eval_expr(expr->call.args[1], input);
    if (start.is_null)
        return start;
    int64_t length = INT64_MAX;
    if (expr->call.arg_count > 2) {
        Value l = eval_expr(expr->call.args[2], input);
        if (l.is_null)
            return l;
        length = l.i;
        if (length < 0)
            return value_null();
    }
    /* Flink's BinaryStringDataUtil.substringSQL */
    int64_t characters = utf8_count(s.s.ptr, s.s.len);
    int64_t first;
    if (start.i > 0) {
        first = start.i - 1;
        if (first >= characters)
            return value_string(s.s.ptr, 0);
    } else if (start.i < 0) {
        first = characters + start.i;
        if (first < 0)
            return value_string(s.s.ptr, 0);
    } else {
        first = 0;
    }
    int64_t last = characters - first < length ? characters : first + length;
    uint32_t from = utf8_offset(s.s.ptr, s.s.len, first);
    uint32_t to = utf8_offset(s.s.ptr, s.s.len, last);
    return value_string(s.s.ptr + from, to - from);
}

Value eval_concat(const Expr *expr, const EvalInput *input)
{
    uint32_t count = expr->call.arg_count;
    Value parts[16];
    Value *values = parts;
    if (count > 16) {
        values = arena_alloc(input->context->arena, count * sizeof *values);
        if (!values)
            return eval_out_of_memory(input);
    }
    size_t total = 0;
    for (uint32_t i = 0; i < count; i++) {
        values[i] = eval_expr(expr->call.args[i], input);
        if (values[i].is_null)
            return values[i];
        total += values[i].s.len;
    }
    if (total > UINT32_MAX)
        return eval_error(input, "string too long in CONCAT");
    char *result = arena_alloc(input->context->arena, total + 1);
    if (!result)
        return eval_out_of_memory(input);
    size_t used = 0;
    for (uint32_t i = 0; i < count; i++) {
        if (values[i].s.len)
            memcpy(result + used, values[i].s.ptr, values[i].s.len);
        used += values[i].s.len;
    }
    result[used] = '\0';
    return value_string(result, (uint32_t)used);
}

/* True when the code point at text[position..] is one of the code points of `set`. */
static bool code_point_in(const char *text, uint32_t position, uint32_t width, Value set)
{
    for (uint32_t i = 0; i < set.s.len;) {
        uint32_t set_width = utf8_width((unsigned char)set.s.ptr[i]);
        if (set_width == width && i + width <= set.s.len &&
            memcmp(set.s.ptr + i, text + position, width) == 0)
            return true;
        i += set_width;
    }
    return false;
}

Value eval_trim(const Expr *expr, const EvalInput *input)
{
    Value s = eval_expr(expr->call.args[0], input);
    if (s.is_null)
        return s;
    Value set = value_string(" ", 1);
    if (expr->call.arg_count > 1) {
        set = eval_expr(expr->call.args[1], input);
        if (set.is_null)
            return set;
    }
    uint32_t begin = 0, end = s.s.len;
    TrimMode mode = expr->call.trim_mode;
    if (mode == TRIM_BOTH || mode == TRIM_LEADING) {
        while (begin < end) {
            uint32_t width = utf8_width((unsigned char)s.s.ptr[begin]);
            if (begin + width > end || !code_point_in(s.s.ptr, begin, width, set))
                break;
            begin += width;
        }
    }
    if (mode == TRIM_BOTH || mode == TRIM_TRAILING) {
        while (end > begin) {
            uint32_t start = end - 1;
            while (start > begin && ((unsigned char)s.s.ptr[start] & 0xC0) == 0x80)
                start--;
            if (!code_point_in(s.s.ptr, start, end - start, set))
                break;
            end = start;
        }
    }
    return value_string(s.s.ptr + begin, end - begin);
}

static const char *find_bytes(const char *haystack, uint32_t haystack_length, const char *needle,
                              uint32_t needle_length)
{
    if (needle_length == 0)
        return haystack;
    if (needle_length > haystack_length)
        return NULL;
    return memmem(haystack, haystack_length, needle, needle_length);
}

Value eval_position(const Expr *expr, const EvalInput *input)
{
    Value needle = eval_expr(expr->call.args[0], input);
    if (needle.is_null)
        return needle;
    Value haystack = eval_expr(expr->call.args[1], input);
    if (haystack.is_null)
        return haystack;
    const char *found = find_bytes(haystack.s.ptr, haystack.s.len, needle.s.ptr, needle.s.len);
    if (!found)
        return value_int(0);
    return value_int((int64_t)utf8_count(haystack.s.ptr, (uint32_t)(found - haystack.s.ptr)) + 1);
}

Value eval_replace(const Expr *expr, const EvalInput *input)
{
    Value s = eval_expr(expr->call.args[0], input);
    if (s.is_null)
        return s;
    Value from = eval_expr(expr->call.args[1], input);
    if (from.is_null)
        return from;
    Value to = eval_expr(expr->call.args[2], input);
    if (to.is_null)
        return to;
    if (from.s.len == 0)
        return s;
    StrBuf out = STRBUF_INIT;
    uint32_t position = 0;
    int status = 0;
    while (position <= s.s.len && status == 0) {
        const char *found =
            find_bytes(s.s.ptr + position, s.s.len - position, from.s.ptr, from.s.len);
        if (!found) {
            status = strbuf_append(&out, s.s.ptr + position, s.s.len - position);
            break;
        }
        uint32_t offset = (uint32_t)(found - s.s.ptr);
        status = strbuf_append(&out, s.s.ptr + position, offset - position);
        if (status == 0)
            status = strbuf_append(&out, to.s.ptr, to.s.len);
        position = offset + from.s.len;
    }
    return string_from_strbuf(input, &out, status);
}

/* ---- LIKE ------------------------------------------------------------- */

typedef enum LikeToken { LIKE_LITERAL, LIKE_ANY_ONE, LIKE_ANY_MANY } LikeToken;

/* Reads the pattern token at *position; advances it. */
static LikeToken like_token(Value pattern, uint32_t *position, int escape, char *literal)
{
    char c = pattern.s.ptr[*position];
    (*position)++;
    if (escape >= 0 && (unsigned char)c == (unsigned)escape && *position < pattern.s.len) {
        *literal = pattern.s.ptr[*position];
        (*position)++;
        return LIKE_LITERAL;
    }
    if (c == '%')
        return LIKE_ANY_MANY;
    if (c == '_')
        return LIKE_ANY_ONE;
    *literal = c;
    return LIKE_LITERAL;
}

static bool like_match(Value text, Value pattern, int escape)
{
    uint32_t s = 0, p = 0;
    bool star = false;
    uint32_t star_p = 0, star_s = 0;
    while (s < text.s.len) {
        if (p < pattern.s.len) {
            uint32_t next = p;
            char literal = 0;
            LikeToken token = like_token(pattern, &next, escape, &literal);
            if (token == LIKE_ANY_MANY) {
                star = true;
                star_p = next;
                star_s = s;
                p = next;
                continue;
            }
            if (token == LIKE_ANY_ONE) {
                s = utf8_next(text.s.ptr, text.s.len, s);
                p = next;
                continue;
            }
            if (text.s.ptr[s] == literal) {
                s++;
                p = next;
                continue;
            }
        }
        if (!star)
            return false;
        star_s = utf8_next(text.s.ptr, text.s.len, star_s);
        s = star_s;
        p = star_p;
    }
    while (p < pattern.s.len) {
        uint32_t next = p;
        char literal = 0;
        if (like_token(pattern, &next, escape, &literal) != LIKE_ANY_MANY)
            return false;
        p = next;
    }
    return true;
}

/* Fast paths for 'abc', 'abc%', '%abc', '%abc%' (no '_' or escape). */
static bool like_simple(Value text, Value pattern, bool *result)
{
    const char *p = pattern.s.ptr;
    uint32_t length = pattern.s.len;
    bool leading = length > 0 && p[0] == '%';
    bool trailing = length > (leading ? 1u : 0u) && p[length - 1] == '%';
    uint32_t begin = leading ? 1 : 0, end = trailing ? length - 1 : length;
    for (uint32_t i = begin; i < end; i++)
        if (p[i] == '%' || p[i] == '_')
            return false;
    uint32_t core = end - begin;
    const char *needle = p + begin;
    if (!leading && !trailing)
        *result = text.s.len == core && memcmp(text.s.ptr, needle, core) == 0;
    else if (!leading)
        *result = text.s.len >= core && memcmp(text.s.ptr, needle, core) == 0;
    else if (!trailing)
        *result = text.s.len >= core && memcmp(text.s.ptr + text.s.len - core, needle, core) == 0;
    else
        *result = find_bytes(text.s.ptr, text.s.len, needle, core) != NULL;
    return true;
}

Value eval_like(const Expr *expr, const EvalInput *input)
{
    Value text = eval_expr(expr->call.args[0], input);
    if (text.is_null)
        return text;
    Value pattern = eval_expr(expr->call.args[1], input);
    if (pattern.is_null)
        return pattern;
    int escape = -1;
    if (expr->call.arg_count > 2) {
        Value e = eval_expr(expr->call.args[2], input);
        if (e.is_null)
            return e;
        if (e.s.len != 1)
            return eval_error(input, "Invalid escape character '%.*s' in LIKE",
                              (int)(e.s.len > 32 ? 32 : e.s.len), e.s.ptr);
        escape = (unsigned char)e.s.ptr[0];
    }
    bool result;
    if (escape < 0 && like_simple(text, pattern, &result))
        return value_bool(result);
    return value_bool(like_match(text, pattern, escape));
}

/* ---- REPEAT, REVERSE, LPAD, RPAD, LEFT, RIGHT, CONCAT_WS (code points, as Flink's
   StringData functions count characters) ---- */

Value eval_repeat(const Expr *expr, const EvalInput *input)
{
    Value text = eval_expr(expr->call.args[0], input);
    Value count = eval_expr(expr->call.args[1], input);
    if (text.is_null || count.is_null)
        return value_null();
    if (count.i <= 0 || text.s.len == 0)
        return value_string(text.s.ptr, 0);
    if ((uint64_t)count.i * text.s.len > UINT32_MAX - 1)
        return eval_error(input, "string too long in REPEAT");
    uint32_t total = (uint32_t)(count.i * text.s.len);
    char *result = arena_alloc(input->context->arena, (size_t)total + 1);
    if (!result)
        return eval_out_of_memory(input);
    for (int64_t i = 0; i < count.i; i++)
        memcpy(result + i * text.s.len, text.s.ptr, text.s.len);
    result[total] = '\0';
    return value_string(result, total);
}

Value eval_reverse(const Expr *expr, const EvalInput *input)
{
    Value text = eval_expr(expr->call.args[0], input);
    if (text.is_null)
        return text;
    char *result = arena_alloc(input->context->arena, (size_t)text.s.len + 1);
    if (!result)
        return eval_out_of_memory(input);
    uint32_t end = text.s.len;
    for (uint32_t i = 0; i < text.s.len;) {
        uint32_t width = utf8_width((unsigned char)text.s.ptr[i]);
        if (width > text.s.len - i)
            width = text.s.len - i;
        end -= width;
        memcpy(result + end, text.s.ptr + i, width);
        i += width;
    }
    result[text.s.len] = '\0';
    return value_string(result, text.s.len);
}

/* LPAD (left) or RPAD: Flink's lpad / rpad over code points */
static Value pad(const Expr *expr, const EvalInput *input, bool left)
{
    Value text = eval_expr(expr->call.args[0], input);
    Value length = eval_expr(expr->call.args[1], input);
    Value filler = eval_expr(expr->call.args[2], input);
    if (text.is_null || length.is_null || filler.is_null || length.i < 0 || filler.s.len == 0)
        return value_null();
    int64_t characters = utf8_count(text.s.ptr, text.s.len);
    int64_t kept = characters < length.i ? characters : length.i;
    int64_t padding = length.i - kept;
    int64_t filler_characters = utf8_count(filler.s.ptr, filler.s.len);
    uint32_t kept_bytes = utf8_offset(text.s.ptr, text.s.len, kept);
    uint64_t bytes = kept_bytes + (uint64_t)(padding / filler_characters) * filler.s.len +
                     utf8_offset(filler.s.ptr, filler.s.len, padding % filler_characters);
    if (bytes > UINT32_MAX - 1)
        return eval_error(input, "string too long in %s", left ? "LPAD" : "RPAD");
    StrBuf out = STRBUF_INIT;
    int status = 0;
    if (!left)
        status = strbuf_append(&out, text.s.ptr, kept_bytes);
    for (int64_t done = 0; status == 0 && done < padding; done += filler_characters) {
        int64_t take = padding - done < filler_characters ? padding - done : filler_characters;
        status = strbuf_append(&out, filler.s.ptr, utf8_offset(filler.s.ptr, filler.s.len, take));
    }
    if (left && status == 0)
        status = strbuf_append(&out, text.s.ptr, kept_bytes);
    return string_from_strbuf(input, &out, status);
}

Value eval_lpad(const Expr *expr, const EvalInput *input)
{
    return pad(expr, input, true);
}

Value eval_rpad(const Expr *expr, const EvalInput *input)
{
    return pad(expr, input, false);
}

/* LEFT (left) or RIGHT: the first / last count code points, '' for a negative count */
static Value take_end(const Expr *expr, const EvalInput *input, bool left)
{
    Value text = eval_expr(expr->call.args[0], input);
    Value count = eval_expr(expr->call.args[1], input);
    if (text.is_null || count.is_null)
        return value_null();
    if (count.i <= 0)
        return value_string(text.s.ptr, 0);
    int64_t characters = utf8_count(text.s.ptr, text.s.len);
    if (count.i >= characters)
        return text;
    if (left)
        return value_string(text.s.ptr, utf8_offset(text.s.ptr, text.s.len, count.i));
    uint32_t from = utf8_offset(text.s.ptr, text.s.len, characters - count.i);
    return value_string(text.s.ptr + from, text.s.len - from);
}

Value eval_left(const Expr *expr, const EvalInput *input)
{
    return take_end(expr, input, true);
}

Value eval_right(const Expr *expr, const EvalInput *input)
{
    return take_end(expr, input, false);
}

Value eval_concat_ws(const Expr *expr, const EvalInput *input)
{
    Value separator = eval_expr(expr->call.args[0], input);
    if (separator.is_null)
        return separator;
    StrBuf out = STRBUF_INIT;
    int status = 0;
    bool first = true;
    for (uint32_t i = 1; i < expr->call.arg_count && status == 0; i++) {
        Value part = eval_expr(expr->call.args[i], input);
        if (part.is_null)
            continue;
        if (!first)
            status = strbuf_append(&out, separator.s.ptr, separator.s.len);
        if (status == 0)
            status = strbuf_append(&out, part.s.ptr, part.s.len);
        first = false;
    }
    if (status == 0 && out.length > UINT32_MAX - 1)
        status = -1;
    return string_from_strbuf(input, &out, status);
}

/* INSTR(string, substring): POSITION with the arguments the other way round */
Value eval_instr(const Expr *expr, const EvalInput *input)
{
    Value haystack = eval_expr(expr->call.args[0], input);
    Value needle = eval_expr(expr->call.args[1], input);
    if (haystack.is_null || needle.is_null)
        return value_null();
    const char *found = find_bytes(haystack.s.ptr, haystack.s.len, needle.s.ptr, needle.s.len);
    if (!found)
        return value_int(0);
    return value_int((int64_t)utf8_count(haystack.s.ptr, (uint32_t)(found - haystack.s.ptr)) + 1);
}

/* ---- LOCATE, INITCAP, SPLIT_INDEX, ASCII, CHR (Flink's SqlFunctionUtils / StringData
   semantics) ---- */

/* LOCATE(needle, string[, from]): code points from `from`, as StringData.indexOf: an empty
   needle is at 1 whatever `from` is, a start past the end finds nothing */
Value eval_locate(const Expr *expr, const EvalInput *input)
{
    Value needle = eval_expr(expr->call.args[0], input);
    Value haystack = eval_expr(expr->call.args[1], input);
    if (needle.is_null || haystack.is_null)
        return value_null();
    int64_t from = 1;
    if (expr->call.arg_count > 2) {
        Value start = eval_expr(expr->call.args[2], input);
        if (start.is_null)
            return start;
        from = start.i;
    }
    if (needle.s.len == 0)
        return value_int(1);
    uint32_t skipped = from > 1 ? utf8_offset(haystack.s.ptr, haystack.s.len, from - 1) : 0;
    const char *found =
        find_bytes(haystack.s.ptr + skipped, haystack.s.len - skipped, needle.s.ptr, needle.s.len);
    if (!found)
        return value_int(0);
    return value_int((int64_t)utf8_count(haystack.s.ptr, (uint32_t)(found - haystack.s.ptr)) + 1);
}

static bool is_ascii_alphanumeric(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

/* INITCAP: as Calcite's initcap, words are runs of ASCII letters and digits; a word's first
   letter is upper-cased and the rest lower-cased; other bytes are left alone */
Value eval_initcap(const Expr *expr, const EvalInput *input)
{
    Value a = eval_expr(expr->call.args[0], input);
    if (a.is_null)
        return a;
    char *copy = eval_arena_copy(input, a.s.ptr, a.s.len);
    if (!copy)
        return eval_out_of_memory(input);
    bool word_start = true;
    for (uint32_t i = 0; i < a.s.len; i++) {
        char c = copy[i];
        if (!is_ascii_alphanumeric(c)) {
            word_start = true;
            continue;
        }
        if (word_start && c >= 'a' && c <= 'z')
            copy[i] = (char)(c - 'a' + 'A');
        else if (!word_start && c >= 'A' && c <= 'Z')
            copy[i] = (char)(c - 'A' + 'a');
        word_start = false;
    }
    return value_string(copy, a.s.len);
}

/* Java's Character.isWhitespace over ASCII: tab to carriage return, the four separators
   0x1C-0x1F and space */
static bool is_java_whitespace(char c)
{
    return (c >= 9 && c <= 13) || (c >= 28 && c <= 32);
}

/* The part `index` (from 0) of text split at every separator (an empty separator: at every
   whitespace byte), keeping empty parts, as commons-lang's split...PreserveAllTokens; NULL
   past the last part and for an empty text (which has no parts) */
static Value split_part(Value text, const char *separator, uint32_t separator_length, int64_t index)
{
    if (index < 0 || text.s.len == 0)
        return value_null();
    uint32_t begin = 0;
    for (int64_t part = 0;; part++) {
        uint32_t end = begin;
        if (separator_length == 0) {
            while (end < text.s.len && !is_java_whitespace(text.s.ptr[end]))
                end++;
        } else {
            const char *found =
                find_bytes(text.s.ptr + begin, text.s.len - begin, separator, separator_length);
            end = found ? (uint32_t)(found - text.s.ptr) : text.s.len;
        }
        if (part == index)
            return value_string(text.s.ptr + begin, end - begin);
        if (end >= text.s.len)
            return value_null();
        begin = end + (separator_length == 0 ? 1 : separator_length);
    }
}

Value eval_split_index(const Expr *expr, const EvalInput *input)
{
    Value text = eval_expr(expr->call.args[0], input);
    Value separator = eval_expr(expr->call.args[1], input);
    Value index = eval_expr(expr->call.args[2], input);
    if (text.is_null || separator.is_null || index.is_null)
        return value_null();
    if (!type_is_integer(expr->call.args[1]->type.id))
        return split_part(text, separator.s.ptr, separator.s.len, index.i);
    if (separator.i < 1 || separator.i > 255)
        return value_null();
    char encoded[4];
    size_t width = utf8_encode((uint32_t)separator.i, encoded);
    return split_part(text, encoded, (uint32_t)width, index.i);
}

/* ASCII: the first byte as Java's signed byte (a UTF-8 lead byte is negative), 0 for '' */
Value eval_ascii(const Expr *expr, const EvalInput *input)
{
    Value a = eval_expr(expr->call.args[0], input);
    if (a.is_null)
        return a;
    return value_int(a.s.len == 0 ? 0 : (int64_t)(signed char)a.s.ptr[0]);
}

/* CHR: the character of code point code & 255 (U+0000 included), '' for a negative code */
Value eval_chr(const Expr *expr, const EvalInput *input)
{
    Value code = eval_expr(expr->call.args[0], input);
    if (code.is_null)
        return code;
    if (code.i < 0)
        return value_string("", 0);
    char encoded[4];
    size_t width = utf8_encode((uint32_t)(code.i & 0xFF), encoded);
    char *copy = eval_arena_copy(input, encoded, width);
    if (!copy)
        return eval_out_of_memory(input);
    return value_string(copy, (uint32_t)width);
}
