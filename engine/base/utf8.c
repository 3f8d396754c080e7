/*
 * utf8.c - the UTF-8 decoder and encoder (see utf8.h).
 */
#include "engine/base/utf8.h"

#include <string.h>

size_t utf8_decode(const char *text, size_t length, uint32_t *code_point, size_t *consumed)
{
    const unsigned char *bytes = (const unsigned char *)text;
    unsigned char lead = bytes[0];
    size_t need; /* continuation bytes */
    uint32_t value;
    /* the range of the first continuation byte excludes overlong forms, surrogates and
       code points above U+10FFFF (Unicode Table 3-7); later ones are 0x80..0xBF */
    unsigned char low = 0x80, high = 0xBF;
    if (lead < 0x80) {
        *code_point = lead;
        *consumed = 1;
        return 1;
    } else if (lead >= 0xC2 && lead <= 0xDF) {
        need = 1;
        value = lead & 0x1F;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        need = 2;
        value = lead & 0x0F;
        if (lead == 0xE0)
            low = 0xA0;
        else if (lead == 0xED)
            high = 0x9F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        need = 3;
        value = lead & 0x07;
        if (lead == 0xF0)
            low = 0x90;
        else if (lead == 0xF4)
            high = 0x8F;
    } else {
        *code_point = UTF8_INVALID;
        *consumed = 1;
        return 0;
    }
    size_t i = 1;
    for (; i <= need; i++) {
        if (i >= length)
            break;
        unsigned char c = bytes[i];
        unsigned char lo = i == 1 ? low : 0x80, hi = i == 1 ? high : 0xBF;
        if (c < lo || c > hi)
            break;
        value = (value << 6) | (c & 0x3F);
    }
    *consumed = i;
    if (i != need + 1) {
        *code_point = UTF8_INVALID;
        return 0;
    }
    *code_point = value;
    return i;
}

size_t utf8_encode(uint32_t code_point, char *out)
{
    if (code_point < 0x80) {
        out[0] = (char)code_point;
        return 1;
    }
    if (code_point < 0x800) {
        out[0] = (char)(0xC0 | (code_point >> 6));
        out[1] = (char)(0x80 | (code_point & 0x3F));
        return 2;
    }
    if (code_point < 0x10000) {
        out[0] = (char)(0xE0 | (code_point >> 12));
        out[1] = (char)(0x80 | ((code_point >> 6) & 0x3F));
        out[2] = (char)(0x80 | (code_point & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (code_point >> 18));
    out[1] = (char)(0x80 | ((code_point >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((code_point >> 6) & 0x3F));
    out[3] = (char)(0x80 | (code_point & 0x3F));
    return 4;
}

size_t utf8_valid_prefix(const char *text, size_t length)
{
    size_t i = 0;
    while (i < length) {
        /* ASCII runs, a word at a time */
        while (i + 8 <= length) {
            uint64_t word;
            memcpy(&word, text + i, 8);
            if (word & 0x8080808080808080ull)
                break;
            i += 8;
        }
        if (i >= length)
            break;
        if ((unsigned char)text[i] < 0x80) {
            i++;
            continue;
        }
        uint32_t code_point;
        size_t consumed;
        if (!utf8_decode(text + i, length - i, &code_point, &consumed))
            return i;
        i += consumed;
    }
    return length;
}
