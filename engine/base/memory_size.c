/* memory_size.c - parsing memory sizes (see memory_size.h). */
#include "engine/base/memory_size.h"

#include <ctype.h>
#include <stddef.h>
#include <strings.h>

int memory_size_parse(const char *text, uint64_t *bytes)
{
    static const struct {
        const char *name;
        unsigned shift;
    } units[] = {
        {"", 0},           {"b", 0},          {"bytes", 0}, {"k", 10},         {"kb", 10},
        {"kibibytes", 10}, {"m", 20},         {"mb", 20},   {"mebibytes", 20}, {"g", 30},
        {"gb", 30},        {"gibibytes", 30}, {"t", 40},    {"tb", 40},        {"tebibytes", 40},
    };
    const char *cursor = text;
    while (isspace((unsigned char)*cursor))
        cursor++;
    if (!isdigit((unsigned char)*cursor))
        return -1;
    uint64_t number = 0;
    for (; isdigit((unsigned char)*cursor); cursor++) {
        if (number > (UINT64_MAX - 9) / 10)
            return -1;
        number = number * 10 + (uint64_t)(*cursor - '0');
    }
    while (isspace((unsigned char)*cursor))
        cursor++;
    const char *unit = cursor;
    size_t length = 0;
    while (unit[length] && !isspace((unsigned char)unit[length]))
        length++;
    for (const char *rest = unit + length; *rest; rest++)
        if (!isspace((unsigned char)*rest))
            return -1;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        size_t name_length = 0;
        while (units[i].name[name_length])
            name_length++;
        if (name_length != length || strncasecmp(units[i].name, unit, length) != 0)
            continue;
        if (units[i].shift && number > (UINT64_MAX >> units[i].shift))
            return -1;
        *bytes = number << units[i].shift;
        return 0;
    }
    return -1;
}
