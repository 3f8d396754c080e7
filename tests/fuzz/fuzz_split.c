/*
 * fuzz_split.c - libFuzzer target: the CLI's statement splitter
 * (engine/sql/split.c, engine.h joinery_statement_end), and the secret
 * finder the shell runs on every entry (joinery_statement_find_secrets).
 * Checks the contracts, not only the absence of crashes: a statement end
 * lies inside the text and moves forward, a statement ends with ';', the
 * blank skip stays inside the text, secret ranges are inside the text, in
 * order and disjoint. A broken contract aborts (a finding).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "engine/engine.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct RangeCheck {
    size_t length;
    size_t previous_end;
} RangeCheck;

static void fuzz_check_range(void *context, size_t offset, size_t length)
{
    RangeCheck *check = context;
    if (length == 0 || offset < check->previous_end || offset + length > check->length) {
        fprintf(stderr,
                "secret range [%zu, +%zu) breaks its contract (text %zu, previous end %zu)\n",
                offset, length, check->length, check->previous_end);
        abort();
    }
    check->previous_end = offset + length;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    size_t offset = 0;
    while (offset < size) {
        bool blank = false;
        size_t length = joinery_statement_end(text + offset, size - offset, &blank);
        if (length > size - offset) {
            fprintf(stderr, "statement end %zu beyond the text (%zu left)\n", length,
                    size - offset);
            abort();
        }
        if (length == 0)
            break;
        if (text[offset + length - 1] != ';') {
            fprintf(stderr, "a complete statement does not end with ';'\n");
            abort();
        }
        size_t skip = joinery_statement_skip_blank(text + offset, length);
        if (skip > length) {
            fprintf(stderr, "blank skip %zu beyond the statement (%zu)\n", skip, length);
            abort();
        }
        RangeCheck check = {.length = length, .previous_end = 0};
        joinery_statement_find_secrets(text + offset, length, fuzz_check_range, &check);
        offset += length;
    }
    RangeCheck check = {.length = size - offset, .previous_end = 0};
    joinery_statement_find_secrets(text + offset, size - offset, fuzz_check_range, &check);
    return 0;
}
