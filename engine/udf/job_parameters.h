/*
 * job_parameters.h - the value of 'pipeline.global-job-parameters' (Flink's
 * map syntax, 'key1:value1,key2:value2') parsed into key / value pairs, for
 * user-defined functions' context->job_parameter (joinery_udf.h).
 *
 * Syntax: entries separated by ',', each `key:value` split at its first
 * ':'; spaces around keys and values are dropped; a key or value in double
 * quotes may hold ',' and ':' ("" stands for one quote). An empty text has
 * no entries. A later entry of a key replaces an earlier one. Includes only
 * engine/base.
 */
#ifndef JOINERY_UDF_JOB_PARAMETERS_H
#define JOINERY_UDF_JOB_PARAMETERS_H

#include <stdint.h>

#include "engine/base/diag.h"

typedef struct JobParameters {
    char **keys; /* heap, owned */
    char **values;
    uint32_t count;
} JobParameters;

/*
 * Parses `text` (NULL: no entries) into *parameters (zeroed first; free it
 * with job_parameters_free, also after an error). JOINERY_OK, or
 * JOINERY_ERROR_VALIDATE naming the bad entry (an entry without ':', an
 * empty key, an unclosed quote) or JOINERY_ERROR_NO_MEMORY.
 */
int job_parameters_parse(const char *text, JobParameters *parameters, Diag *diag);

/* The value of `key`, NULL when absent; valid until job_parameters_free. */
const char *job_parameters_get(const JobParameters *parameters, const char *key);

void job_parameters_free(JobParameters *parameters);

#endif
