/*
 * duration.c - parse and print durations (see duration.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "engine/base/duration.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

int duration_parse_millis(const char *text, int64_t *millis)
{
    const char *cursor = text;
    while (isspace((unsigned char)*cursor))
        cursor++;
    if (!isdigit((unsigned char)*cursor))
        return -1;
    int64_t number = 0;
    while (isdigit((unsigned char)*cursor)) {
        if (__builtin_mul_overflow(number, 10, &number) ||
            __builtin_add_overflow(number, *cursor - '0', &number))
            return -1;
        cursor++;
    }
    while (isspace((unsigned char)*cursor))
        cursor++;
    char unit[32];
    size_t length = 0;
    while (isalpha((unsigned char)*cursor) && length + 1 < sizeof unit)
        unit[length++] = (char)tolower((unsigned char)*cursor++);
    unit[length] = '\0';
    while (isspace((unsigned char)*cursor))
        cursor++;
    if (*cursor != '\0')
        return -1;
    static const struct {
        const char *name;
        int64_t factor;
    } units[] = {
        {"", 1},
        {"ms", 1},
        {"milli", 1},
        {"millis", 1},
        {"millisecond", 1},
        {"milliseconds", 1},
        {"s", 1000},
        {"sec", 1000},
        {"secs", 1000},
        {"second", 1000},
        {"seconds", 1000},
        {"min", 60000},
        {"mins", 60000},
        {"minute", 60000},
        {"minutes", 60000},
        {"m", 60000},
        {"h", 3600000},
        {"hour", 3600000},
        {"hours", 3600000},
        {"d", 86400000},
        {"day", 86400000},
        {"days", 86400000},
    };
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcmp(unit, units[i].name) == 0) {
            if (__builtin_mul_overflow(number, units[i].factor, millis))
                return -1;
            return 0;
        }
    }
    return -1;
}

const char *duration_format(int64_t millis, char *buffer, size_t size)
{
    static const struct {
        const char *name;
        int64_t factor;
    } units[] = {{"d", 86400000}, {"h", 3600000}, {"min", 60000}, {"s", 1000}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (millis != 0 && millis % units[i].factor == 0) {
            snprintf(buffer, size, "%lld %s", (long long)(millis / units[i].factor), units[i].name);
            return buffer;
        }
    }
    snprintf(buffer, size, "%lld ms", (long long)millis);
    return buffer;
}
