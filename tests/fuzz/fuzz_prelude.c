/*
 * fuzz_prelude.c - the prelude of fuzz_prelude.h: its DDL, and the table
 * descriptions the generator needs, kept next to each other so they agree.
 * Sources are bounded files or datagen and Kafka tables that are only
 * planned (nothing here runs a job or connects to a broker).
 */
#include "tests/fuzz/fuzz_prelude.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const PRELUDE[] = {
    "CREATE TABLE orders (order_id BIGINT, user_id BIGINT, product_id BIGINT, store_id BIGINT, "
    "amount DECIMAL(10, 2), order_time TIMESTAMP(3), status STRING, "
    "WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND) "
    "WITH ('connector' = 'filesystem', 'path' = 'sample-data/orders.json', 'format' = 'json')",
    "CREATE TABLE users (user_id BIGINT, user_name STRING, region_id BIGINT, level INT) "
    "WITH ('connector' = 'filesystem', 'path' = 'sample-data/users.json', 'format' = 'json')",
    "CREATE TABLE products (product_id BIGINT, product_name STRING, category STRING, "
    "price DECIMAL(10, 2)) "
    "WITH ('connector' = 'filesystem', 'path' = 'sample-data/products.json', 'format' = 'json')",
    "CREATE TABLE payments (payment_id BIGINT, order_id BIGINT, pay_time TIMESTAMP(3), "
    "pay_amount DECIMAL(10, 2), method STRING) "
    "WITH ('connector' = 'filesystem', 'path' = 'sample-data/payments.json', 'format' = 'json')",
    "CREATE TABLE gen (id BIGINT, i INT, si SMALLINT, ti TINYINT, f FLOAT, d DOUBLE, b BOOLEAN, "
    "s STRING, c CHAR(3), v VARCHAR(10), dt DATE, ts TIMESTAMP(3), dec DECIMAL(18, 4), "
    "bs BYTES) WITH ('connector' = 'datagen', 'number-of-rows' = '10')",
    "CREATE TABLE events (event_id BIGINT, user_id BIGINT, kind STRING, amount DOUBLE, "
    "event_time TIMESTAMP(3), `partition` INT METADATA VIRTUAL, "
    "`offset` BIGINT METADATA VIRTUAL, "
    "WATERMARK FOR event_time AS event_time - INTERVAL '1' SECOND) "
    "WITH ('connector' = 'kafka', 'topic' = 'events', "
    "'properties.bootstrap.servers' = '127.0.0.1:9', 'properties.group.id' = 'g', "
    "'scan.startup.mode' = 'earliest-offset', 'format' = 'json')",
    "CREATE TABLE user_latest (user_id BIGINT, user_name STRING, level INT, "
    "PRIMARY KEY (user_id) NOT ENFORCED) "
    "WITH ('connector' = 'upsert-kafka', 'topic' = 'users', "
    "'properties.bootstrap.servers' = '127.0.0.1:9', 'key.format' = 'json', "
    "'value.format' = 'json')",
    "CREATE TABLE emp_cdc (id BIGINT, name STRING, dept_id BIGINT, salary INT) "
    "WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/emp.json', "
    "'format' = 'json')",
    "CREATE TABLE out_print (k BIGINT, s STRING, n DOUBLE) WITH ('connector' = 'print')",
    "CREATE TABLE out_black (k BIGINT, s STRING, n DOUBLE) WITH ('connector' = 'blackhole')",
    "CREATE VIEW big_orders AS SELECT order_id, user_id, amount, order_time FROM orders "
    "WHERE amount > 100",
};

static const FuzzColumn ORDERS[] = {{"order_id", FUZZ_INTEGER},   {"user_id", FUZZ_INTEGER},
                                    {"product_id", FUZZ_INTEGER}, {"store_id", FUZZ_INTEGER},
                                    {"amount", FUZZ_DECIMAL},     {"order_time", FUZZ_TEMPORAL},
                                    {"status", FUZZ_STRING}};
static const FuzzColumn USERS[] = {{"user_id", FUZZ_INTEGER},
                                   {"user_name", FUZZ_STRING},
                                   {"region_id", FUZZ_INTEGER},
                                   {"level", FUZZ_INTEGER}};
static const FuzzColumn PRODUCTS[] = {{"product_id", FUZZ_INTEGER},
                                      {"product_name", FUZZ_STRING},
                                      {"category", FUZZ_STRING},
                                      {"price", FUZZ_DECIMAL}};
static const FuzzColumn PAYMENTS[] = {{"payment_id", FUZZ_INTEGER},
                                      {"order_id", FUZZ_INTEGER},
                                      {"pay_time", FUZZ_TEMPORAL},
                                      {"pay_amount", FUZZ_DECIMAL},
                                      {"method", FUZZ_STRING}};
static const FuzzColumn GEN[] = {{"id", FUZZ_INTEGER},  {"i", FUZZ_INTEGER}, {"si", FUZZ_INTEGER},
                                 {"ti", FUZZ_INTEGER},  {"f", FUZZ_DECIMAL}, {"d", FUZZ_DECIMAL},
                                 {"b", FUZZ_BOOLEAN},   {"s", FUZZ_STRING},  {"c", FUZZ_STRING},
                                 {"v", FUZZ_STRING},    {"dt", FUZZ_DATE},   {"ts", FUZZ_TEMPORAL},
                                 {"dec", FUZZ_DECIMAL}, {"bs", FUZZ_OTHER}};
static const FuzzColumn EVENTS[] = {{"event_id", FUZZ_INTEGER},    {"user_id", FUZZ_INTEGER},
                                    {"kind", FUZZ_STRING},         {"amount", FUZZ_DECIMAL},
                                    {"event_time", FUZZ_TEMPORAL}, {"`partition`", FUZZ_INTEGER},
                                    {"`offset`", FUZZ_INTEGER}};
static const FuzzColumn USER_LATEST[] = {
    {"user_id", FUZZ_INTEGER}, {"user_name", FUZZ_STRING}, {"level", FUZZ_INTEGER}};
static const FuzzColumn EMP[] = {{"id", FUZZ_INTEGER},
                                 {"name", FUZZ_STRING},
                                 {"dept_id", FUZZ_INTEGER},
                                 {"salary", FUZZ_INTEGER}};
static const FuzzColumn OUT[] = {{"k", FUZZ_INTEGER}, {"s", FUZZ_STRING}, {"n", FUZZ_DECIMAL}};
static const FuzzColumn BIG_ORDERS[] = {{"order_id", FUZZ_INTEGER},
                                        {"user_id", FUZZ_INTEGER},
                                        {"amount", FUZZ_DECIMAL},
                                        {"order_time", FUZZ_TEMPORAL}};

#define COLUMNS(array) array, sizeof array / sizeof array[0]

const FuzzTable FUZZ_TABLES[] = {
    {"orders", true, true, true, COLUMNS(ORDERS)},
    {"users", true, true, false, COLUMNS(USERS)},
    {"products", true, true, false, COLUMNS(PRODUCTS)},
    {"payments", true, true, false, COLUMNS(PAYMENTS)},
    {"gen", true, false, false, COLUMNS(GEN)},
    {"events", true, true, true, COLUMNS(EVENTS)},
    {"user_latest", true, true, false, COLUMNS(USER_LATEST)},
    {"emp_cdc", true, true, false, COLUMNS(EMP)},
    {"out_print", false, true, false, COLUMNS(OUT)},
    {"out_black", false, true, false, COLUMNS(OUT)},
    {"big_orders", true, false, true, COLUMNS(BIG_ORDERS)},
};
const size_t FUZZ_TABLE_COUNT = sizeof FUZZ_TABLES / sizeof FUZZ_TABLES[0];

JoineryResultHandler fuzz_quiet_handler(void)
{
    JoineryResultHandler handler;
    memset(&handler, 0, sizeof handler);
    return handler;
}

JoinerySession *fuzz_session_open(void)
{
    JoinerySession *session = joinery_session_open();
    if (session == NULL) {
        fprintf(stderr, "fuzz prelude: no session\n");
        abort();
    }
    JoineryResultHandler handler = fuzz_quiet_handler();
    for (size_t i = 0; i < sizeof PRELUDE / sizeof PRELUDE[0]; i++) {
        JoineryError error;
        memset(&error, 0, sizeof error);
        if (joinery_session_execute(session, PRELUDE[i], strlen(PRELUDE[i]), 1, 1, &handler,
                                    &error) != 0) {
            fprintf(stderr,
                    "fuzz prelude statement %zu failed (run from the repository root): %s\n", i + 1,
                    error.message);
            abort();
        }
    }
    return session;
}
