/*
 * options.h - session options (SET / RESET): the known keys, their defaults,
 * validation of values, and typed reads for the planner and executor.
 *
 * Invariants: only known keys are stored; every stored value has been
 * validated for its kind (duration, integer, boolean, enum). A key joinery
 * knows from Flink but does not run yet is rejected with
 * JOINERY_ERROR_UNSUPPORTED, never stored and ignored.
 */
#ifndef JOINERY_OPTIONS_H
#define JOINERY_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/base/diag.h"

typedef enum OptionKind {
    OPTION_KIND_STRING,
    OPTION_KIND_BOOLEAN,
    OPTION_KIND_INTEGER,
    OPTION_KIND_DURATION,
    OPTION_KIND_ENUM, /* one of OptionSpec.choices (case-insensitive) */
} OptionKind;

typedef struct OptionSpec {
    const char *key;
    OptionKind kind;
    const char *default_value; /* NULL: no default (unset) */
    const char *choices;       /* ENUM: '|'-separated values */
    const char *description;
} OptionSpec;

typedef struct SessionOptions {
    char **keys;   /* set keys (heap) */
    char **values; /* their values (heap) */
    size_t count;
    size_t capacity;
} SessionOptions;

/* Keys joinery knows, in listing order. */
const OptionSpec *options_specs(size_t *count);
void options_init(SessionOptions *options);
void options_free(SessionOptions *options);
/*
 * Validates and sets key = value. Unknown key: JOINERY_ERROR_VALIDATE with a
 * "did you mean" when close to a known key. Bad value: the message names the
 * expected kind (e.g. "'5 parsecs' is not a duration such as '1 h'").
 */
int options_set(SessionOptions *options, const char *key, const char *value, Diag *diag);
/* Removes a set key (back to its default); unknown keys are an error. */
int options_reset(SessionOptions *options, const char *key, Diag *diag);
void options_reset_all(SessionOptions *options);
/* The set value, else the default, else NULL. */
const char *options_get(const SessionOptions *options, const char *key);
/* Typed reads of known keys (values are valid by construction). */
int64_t options_get_duration_millis(const SessionOptions *options, const char *key);
int64_t options_get_integer(const SessionOptions *options, const char *key);
bool options_get_boolean(const SessionOptions *options, const char *key);

#endif
