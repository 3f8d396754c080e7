/*
 * query_ck_awscdn_cf_log_tudf.c - a sample user-defined C table function:
 * seed 004's query_ck_awscdn_cf_log_tudf(ips, domain, window_end), built by
 * the Makefile into build/udf/libjoinery_cdn_log_udf.so and registered with
 *
 *   CREATE TEMPORARY FUNCTION query_ck_awscdn_cf_log_tudf
 *     AS 'query_ck_awscdn_cf_log_tudf' LANGUAGE C
 *     USING JAR 'build/udf/libjoinery_cdn_log_udf.so';
 *
 * The seed's function queries a log store (ClickHouse) for the AWS CDN and
 * Cloudflare edge logs of a window's IPs; this one reads the same kind of
 * records from a CSV file, $JOINERY_CDN_LOG or sample-data/udf/cdn_log.csv
 * (relative to the working directory), one record a line:
 *
 *   time (yyyy-MM-dd HH:mm:ss),ip,source (aws | cf),domain,http status
 *
 * Arguments: ips, a comma-separated list (the window's LISTAGG); domain, ''
 * for every domain; window_end, 'yyyy-MM-dd HH:mm:ss'. The records looked at
 * are those of the IPs (and domain) in the 3 minutes before window_end
 * (window_end - 3 min <= time < window_end). Result: one row
 * (aws_cdnlog_flag, cf_edge_log_flag) when either source has a record, each
 * flag 'CDN_NORMAL_DATA' when every record of that source has a status
 * below 400, 'CDN_ABNORMAL_DATA' when one has 400 or more, NULL when the
 * source has none; no row when neither has. A log file that cannot be read
 * and a window_end that does not parse are errors (returned, never a crash).
 *
 * Stateless: the file is read at every call (a sample, not a cache), so the
 * function is safe from several threads.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/udf/joinery_udf.h"

extern const JoineryUdfDescriptor query_ck_awscdn_cf_log_tudf;

enum { LINE_SIZE = 512, WINDOW_SECONDS = 180 };

/* Seconds since the epoch of 'yyyy-MM-dd HH:mm:ss' (UTC); -1 when it does not parse. */
static long long parse_time(const char *text, size_t length)
{
    char buffer[32];
    if (length != 19)
        return -1;
    memcpy(buffer, text, length);
    buffer[length] = '\0';
    int year, month, day, hour, minute, second;
    if (sscanf(buffer, "%4d-%2d-%2d %2d:%2d:%2d", &year, &month, &day, &hour, &minute, &second) !=
        6)
        return -1;
    /* days from civil (Howard Hinnant's algorithm), no time zone involved */
    year -= month <= 2;
    long long era = (year >= 0 ? year : year - 399) / 400;
    long long year_of_era = year - era * 400;
    long long day_of_year = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
    long long day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    long long days = era * 146097 + day_of_era - 719468;
    return days * 86400 + hour * 3600 + minute * 60 + second;
}

/* True when `ip` (length) is one of the comma-separated `ips`. */
static int ip_listed(const char *ips, size_t ips_length, const char *ip, size_t ip_length)
{
    size_t start = 0;
    for (size_t i = 0; i <= ips_length; i++) {
        if (i < ips_length && ips[i] != ',')
            continue;
        size_t from = start, to = i;
        while (from < to && ips[from] == ' ')
            from++;
        while (to > from && ips[to - 1] == ' ')
            to--;
        if (to - from == ip_length && memcmp(ips + from, ip, ip_length) == 0)
            return 1;
        start = i + 1;
    }
    return 0;
}

static int fail(JoineryUdfContext *context, const char *message)
{
    context->set_error(context, message);
    return JOINERY_UDF_ERROR;
}

static int query_call(JoineryUdfContext *context, const JoineryUdfValue *arguments)
{
    const JoineryUdfValue *ips = &arguments[0], *domain = &arguments[1], *end = &arguments[2];
    long long window_end = parse_time(end->s.ptr, end->s.len);
    if (window_end < 0)
        return fail(context, "window_end is not 'yyyy-MM-dd HH:mm:ss'");
    const char *path = getenv("JOINERY_CDN_LOG");
    if (!path || !path[0])
        path = "sample-data/udf/cdn_log.csv";
    FILE *file = fopen(path, "r");
    if (!file) {
        char message[300];
        snprintf(message, sizeof message, "cannot read the CDN log '%s'", path);
        return fail(context, message);
    }
    /* per source (0 aws, 1 cf): 0 no record, 1 normal, 2 abnormal */
    int found[2] = {0, 0};
    char line[LINE_SIZE];
    while (fgets(line, sizeof line, file)) {
        char *fields[5];
        size_t count = 0;
        char *cursor = line;
        line[strcspn(line, "\r\n")] = '\0';
        while (count < 5) {
            fields[count++] = cursor;
            char *comma = strchr(cursor, ',');
            if (!comma)
                break;
            *comma = '\0';
            cursor = comma + 1;
        }
        if (count != 5 || line[0] == '#')
            continue;
        long long time = parse_time(fields[0], strlen(fields[0]));
        if (time < 0 || time < window_end - WINDOW_SECONDS || time >= window_end)
            continue;
        if (!ip_listed(ips->s.ptr, ips->s.len, fields[1], strlen(fields[1])))
            continue;
        if (domain->s.len && (strlen(fields[3]) != domain->s.len ||
                              memcmp(fields[3], domain->s.ptr, domain->s.len) != 0))
            continue;
        int source = strcmp(fields[2], "aws") == 0 ? 0 : strcmp(fields[2], "cf") == 0 ? 1 : -1;
        if (source < 0)
            continue;
        int status = atoi(fields[4]);
        int flag = status >= 400 ? 2 : 1;
        if (flag > found[source])
            found[source] = flag;
    }
    int read_error = ferror(file);
    fclose(file);
    if (read_error)
        return fail(context, "error reading the CDN log");
    if (!found[0] && !found[1])
        return JOINERY_UDF_OK;
    JoineryUdfValue row[2];
    memset(row, 0, sizeof row);
    for (int s = 0; s < 2; s++) {
        const char *flag = found[s] == 2 ? "CDN_ABNORMAL_DATA" : "CDN_NORMAL_DATA";
        row[s].is_null = found[s] == 0;
        row[s].s.ptr = flag;
        row[s].s.len = (uint32_t)strlen(flag);
    }
    return context->emit(context, row);
}

static const JoineryUdfType ARGUMENTS[] = {JOINERY_UDF_STRING, JOINERY_UDF_STRING,
                                           JOINERY_UDF_STRING};
static const JoineryUdfType RESULTS[] = {JOINERY_UDF_STRING, JOINERY_UDF_STRING};
static const char *const RESULT_NAMES[] = {"aws_cdnlog_flag", "cf_edge_log_flag"};

const JoineryUdfDescriptor query_ck_awscdn_cf_log_tudf = {
    .abi_version = JOINERY_UDF_ABI_VERSION,
    .kind = JOINERY_UDF_TABLE,
    .argument_count = 3,
    .argument_types = ARGUMENTS,
    .result_count = 2,
    .result_types = RESULTS,
    .result_names = RESULT_NAMES,
    .table = query_call,
};
