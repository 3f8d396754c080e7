/*
 * job_parameters.c - 'pipeline.global-job-parameters' parsed
 * (job_parameters.h). One pass over the text: a token is a run up to the
 * next unquoted ',' (entry end) or, in a key, ':' (key end).
 */
#include "engine/udf/job_parameters.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/strbuf.h"

/* Reads one key or value from *cursor up to an unquoted stop character ("," or ",:");
 *cursor is left at the stop (or the end). False on an unclosed quote. */
static bool read_token(const char **cursor, const char *stops, StrBuf *out)
{
    const char *p = *cursor;
    while (*p == ' ')
        p++;
    if (*p == '"') {
        p++;
        for (;;) {
            if (!*p)
                return false;
            if (*p == '"' && p[1] == '"') {
                strbuf_append_char(out, '"');
                p += 2;
            } else if (*p == '"') {
                p++;
                break;
            } else {
                strbuf_append_char(out, *p++);
            }
        }
        while (*p == ' ')
            p++;
        *cursor = p;
        return true;
    }
    const char *start = p;
    while (*p && !strchr(stops, *p))
        p++;
    const char *end = p;
    while (end > start && end[-1] == ' ')
        end--;
    strbuf_append(out, start, (size_t)(end - start));
    *cursor = p;
    return true;
}

static int add_entry(JobParameters *parameters, StrBuf *key, StrBuf *value, Diag *diag)
{
    char *key_copy = strdup(strbuf_cstr(key));
    char *value_copy = strdup(strbuf_cstr(value));
    if (!key_copy || !value_copy) {
        free(key_copy);
        free(value_copy);
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    }
    for (uint32_t i = 0; i < parameters->count; i++)
        if (strcmp(parameters->keys[i], key_copy) == 0) {
            free(key_copy);
            free(parameters->values[i]);
            parameters->values[i] = value_copy;
            return JOINERY_OK;
        }
    char **keys = realloc(parameters->keys, (parameters->count + 1) * sizeof *keys);
    if (keys)
        parameters->keys = keys;
    char **values =
        keys ? realloc(parameters->values, (parameters->count + 1) * sizeof *values) : NULL;
    if (values)
        parameters->values = values;
    if (!keys || !values) {
        free(key_copy);
        free(value_copy);
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    }
    parameters->keys[parameters->count] = key_copy;
    parameters->values[parameters->count] = value_copy;
    parameters->count++;
    return JOINERY_OK;
}

int job_parameters_parse(const char *text, JobParameters *parameters, Diag *diag)
{
    memset(parameters, 0, sizeof *parameters);
    if (!text)
        return JOINERY_OK;
    const char *cursor = text;
    while (*cursor == ' ')
        cursor++;
    if (!*cursor)
        return JOINERY_OK;
    StrBuf key = STRBUF_INIT, value = STRBUF_INIT;
    int status = JOINERY_OK;
    for (uint32_t entry = 1; status == JOINERY_OK; entry++) {
        strbuf_clear(&key);
        strbuf_clear(&value);
        if (!read_token(&cursor, ",:", &key))
            status = diag_error(diag, JOINERY_ERROR_VALIDATE,
                                "Invalid value for option 'pipeline.global-job-parameters': "
                                "entry %u has an unclosed quote",
                                entry);
        else if (*cursor != ':')
            status = diag_error(diag, JOINERY_ERROR_VALIDATE,
                                "Invalid value for option 'pipeline.global-job-parameters': "
                                "entry %u is not 'key:value' (expected 'k1:v1,k2:v2')",
                                entry);
        else if (key.length == 0)
            status = diag_error(diag, JOINERY_ERROR_VALIDATE,
                                "Invalid value for option 'pipeline.global-job-parameters': "
                                "entry %u has an empty key",
                                entry);
        else if (cursor++, !read_token(&cursor, ",", &value))
            status = diag_error(diag, JOINERY_ERROR_VALIDATE,
                                "Invalid value for option 'pipeline.global-job-parameters': "
                                "entry %u has an unclosed quote",
                                entry);
        else if (*cursor && *cursor != ',')
            status = diag_error(diag, JOINERY_ERROR_VALIDATE,
                                "Invalid value for option 'pipeline.global-job-parameters': "
                                "entry %u has text after its quoted value",
                                entry);
        else
            status = add_entry(parameters, &key, &value, diag);
        if (status != JOINERY_OK || !*cursor)
            break;
        cursor++; /* the ',' */
    }
    strbuf_free(&key);
    strbuf_free(&value);
    return status;
}

const char *job_parameters_get(const JobParameters *parameters, const char *key)
{
    for (uint32_t i = 0; i < parameters->count; i++)
        if (strcmp(parameters->keys[i], key) == 0)
            return parameters->values[i];
    return NULL;
}

void job_parameters_free(JobParameters *parameters)
{
    for (uint32_t i = 0; i < parameters->count; i++) {
        free(parameters->keys[i]);
        free(parameters->values[i]);
    }
    free(parameters->keys);
    free(parameters->values);
    memset(parameters, 0, sizeof *parameters);
}
