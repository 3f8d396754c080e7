/*
 * text.c - UTF-8 display width (see text.h). The wide ranges are the East
 * Asian Wide/Fullwidth blocks of Unicode's EastAsianWidth.txt, coarsened to
 * whole blocks; no locale is consulted, so output does not depend on LANG.
 */
#include "cli/text.h"

#include "engine/engine.h"

size_t text_code_point_width(uint32_t code_point)
{
    static const uint32_t WIDE_RANGES[][2] = {
        {0x1100, 0x115F},   {0x2E80, 0x303E},   {0x3041, 0x33FF},   {0x3400, 0x4DBF},
        {0x4E00, 0x9FFF},   {0xA000, 0xA4CF},   {0xAC00, 0xD7A3},   {0xF900, 0xFAFF},
        {0xFE30, 0xFE4F},   {0xFF00, 0xFF60},   {0xFFE0, 0xFFE6},   {0x1F300, 0x1F64F},
        {0x1F900, 0x1F9FF}, {0x20000, 0x2FFFD}, {0x30000, 0x3FFFD},
    };
    if (code_point == UINT32_MAX || code_point < 0x1100) {
        return 1;
    }
    for (size_t i = 0; i < sizeof WIDE_RANGES / sizeof WIDE_RANGES[0]; i++) {
        if (code_point >= WIDE_RANGES[i][0] && code_point <= WIDE_RANGES[i][1]) {
            return 2;
        }
    }
    return 1;
}

size_t text_display_width(const char *text, size_t length)
{
    size_t width = 0;
    size_t i = 0;
    while (i < length) {
        uint32_t code_point;
        i += joinery_utf8_decode(text + i, length - i, &code_point);
        width += text_code_point_width(code_point);
    }
    return width;
}

size_t text_prefix_for_width(const char *text, size_t length, size_t max_width, size_t *width)
{
    size_t used = 0;
    size_t i = 0;
    while (i < length) {
        uint32_t code_point;
        size_t bytes = joinery_utf8_decode(text + i, length - i, &code_point);
        size_t columns = text_code_point_width(code_point);
        if (used + columns > max_width) {
            break;
        }
        used += columns;
        i += bytes;
    }
    *width = used;
    return i;
}
