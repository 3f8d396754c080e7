/*
 * check_rules.c - Check suite for the optimizer passes through plan_optimize
 * and plan_explain (engine/plan/rules/, physical.c, derive.c), over a
 * catalog filled here from CREATE TABLE text:
 *
 * - push_filters: into scans (filter=[...]), through projections, into the
 *   non-NULL-generating side only, LEFT -> INNER and FULL -> LEFT/RIGHT
 *   when a WHERE rejects the padded rows, ON conditions of outer joins,
 *   aggregates (filters on grouping keys go below, others stay), unions,
 *   and nothing below a watermark assigner;
 * - prune_fields: project=[...], filter-only columns read but not emitted;
 * - physical planning: Exchange hash/single, equi keys (computed keys get a
 *   Calc below), residuals, null-safe keys, Calc merging, semi and anti
 *   joins refused (not supported yet);
 * - fuse_multi_join with 'table.optimizer.multi-join.enabled': common keys
 *   (also transitive), groups split where no key is shared, no fusion when a
 *   step joins on another column, RIGHT/FULL fused, hints' TTL per input;
 * - derive: changelog modes (EXPLAIN CHANGELOG_MODE), input specs, stateTtl
 *   from the option and from hints, upsert sources.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/strbuf.h"
#include "engine/plan/planner.h"
#include "engine/sql/parser.h"
#include "tests/unit/planner_fixture.h"

#define FS " WITH ('connector' = 'filesystem', 'path' = '/nonexistent/t.json', 'format' = 'json')"

static const char *const TABLES[] = {
    "CREATE TABLE orders (order_id BIGINT NOT NULL, user_id BIGINT, product_id BIGINT, "
    "amount DECIMAL(10, 2), ts TIMESTAMP(3))" FS,
    "CREATE TABLE users (user_id BIGINT NOT NULL, name STRING, city STRING, "
    "PRIMARY KEY (user_id) NOT ENFORCED)" FS,
    "CREATE TABLE products (product_id BIGINT, title STRING, price DOUBLE)" FS,
    "CREATE TABLE clicks (user_id INT, url STRING, n INT NOT NULL)" FS,
    "CREATE TABLE events (id BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' "
    "SECOND)" FS,
    "CREATE TABLE up (k BIGINT, v BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = "
    "'upsert-kafka', 'topic' = 't', 'properties.bootstrap.servers' = 'localhost:1', "
    "'key.format' = 'json', 'value.format' = 'json')",
};

/* ---- harness: a catalog filled from DDL text, and the planner over it ---- */

/* The optimized physical plan of a query. */
static const char *physical(Fixture *f, const char *sql)
{
    explain(f, sql, 0);
    return section(f, "Optimized Physical Plan");
}

static const char *physical_changelog(Fixture *f, const char *sql)
{
    explain(f, sql, AST_EXPLAIN_CHANGELOG_MODE);
    return section(f, "Optimized Physical Plan");
}

#define CONTAINS(text, needle)                                                                     \
    ck_assert_msg(strstr((text), (needle)) != NULL, "'%s' not in\n%s", (needle), (text))
#define LACKS(text, needle)                                                                        \
    ck_assert_msg(strstr((text), (needle)) == NULL, "'%s' unexpectedly in\n%s", (needle), (text))

static size_t count_of(const char *text, const char *needle)
{
    size_t count = 0;
    for (const char *at = strstr(text, needle); at; at = strstr(at + 1, needle))
        count++;
    return count;
}

#define TABLE(name) "TableSourceScan(table=[[default_catalog, default_database, " name

/* ---- filter pushdown ---- */

START_TEST(test_push_into_scans_and_through_projections)
{
    Fixture f;
    fixture_open(&f, TABLES, sizeof TABLES / sizeof TABLES[0]);
    /* the filter's column is read but not emitted */
    ck_assert_str_eq(physical(&f, "SELECT order_id FROM orders WHERE amount > 5"),
                     TABLE("orders") ", filter=[>(amount, 5)], project=[order_id]]], "
                                     "fields=[order_id])\n");
    ck_assert_int_eq(f.physical->kind, PLAN_TABLE_SOURCE_SCAN);
    ck_assert_uint_eq(f.physical->scan.column_count, 1);
    ck_assert_uint_eq(f.physical->scan.read_count, 2);
    ck_assert_uint_eq(f.physical->scan.columns[0], 0);
    ck_assert_uint_eq(f.physical->scan.columns[1], 3);
    /* through a projection: the projected expression is substituted */
    ck_assert_str_eq(
        physical(&f, "SELECT x FROM (SELECT amount * 2 AS x, order_id FROM orders) WHERE x > 10"),
        "Calc(select=[*(amount, 2) AS x])\n"
        "+- " TABLE("orders") ", filter=[>(*(amount, 2), 10)], project=[amount]]], "
                              "fields=[amount])\n");
    /* conjuncts of a WHERE and of a view's WHERE meet in the scan */
    ck_assert_str_eq(physical(&f, "SELECT * FROM (SELECT * FROM users WHERE city = 'a') WHERE "
                                  "user_id > 1"),
                     TABLE("users") ", filter=[AND(>(user_id, 1), =(city, _UTF-16LE'a'))]]], "
                                    "fields=[user_id, name, city])\n");
    /* no columns used at all: the scan still reads one */
    ck_assert_str_eq(physical(&f, "SELECT 1 FROM products"),
                     "Calc(select=[1 AS EXPR$0])\n"
                     "+- " TABLE("products") ", project=[product_id]]], fields=[product_id])\n");
    fixture_close(&f);
}
END_TEST

START_TEST(test_push_into_joins)
{
    Fixture f;
    fixture_open(&f, TABLES, sizeof TABLES / sizeof TABLES[0]);
    /* WHERE on both sides of an inner join: each to its scan, the cross-side one to ON */
    const char *plan = physical(&f, "SELECT o.order_id FROM orders o JOIN users u ON o.user_id = "
                                    "u.user_id WHERE o.amount > 5 AND u.city = 'x' AND "
                                    "o.product_id < u.user_id");
    CONTAINS(plan, "where=[AND(=(user_id, user_id0), <(product_id, user_id0))]");
    CONTAINS(plan, TABLE("orders") ", filter=[>(amount, 5)]");
    CONTAINS(plan, TABLE("users") ", filter=[=(city, _UTF-16LE'x')]");
    /* LEFT JOIN: a WHERE on the preserved side goes down, the join stays LEFT */
    plan = physical(&f, "SELECT o.order_id, u.name FROM orders o LEFT JOIN users u ON o.user_id "
                        "= u.user_id WHERE o.amount > 5");
    CONTAINS(plan, "joinType=[LeftOuterJoin]");
    CONTAINS(plan, TABLE("orders") ", filter=[>(amount, 5)]");
    /* IS NULL on the padded side does not reject NULLs: it stays above, LEFT stays */
    plan = physical(&f, "SELECT o.order_id FROM orders o LEFT JOIN users u ON o.user_id = "
                        "u.user_id WHERE u.name IS NULL");
    ck_assert_str_eq(
        plan,
        "Calc(select=[order_id], where=[IS NULL(name)])\n"
        "+- Join(joinType=[LeftOuterJoin], where=[=(user_id, user_id0)], "
        "select=[order_id, user_id, user_id0, name], leftInputSpec=[NoUniqueKey], "
        "rightInputSpec=[JoinKeyContainsUniqueKey], stateTtl=[forever])\n"
        "   :- Exchange(distribution=[hash[user_id]])\n"
        "   :  +- " TABLE("orders") ", project=[order_id, user_id]]], "
                                    "fields=[order_id, user_id])\n"
                                    "   +- Exchange(distribution=[hash[user_id]])\n"
                                    "      +- " TABLE(
                                        "users") ", project=[user_id, name]]], fields=[user_id, "
                                                 "name])\n");
    /* ON of an outer join: the padded side's conjunct goes into its scan, the preserved
       side's conjunct stays in the join */
    plan = physical(&f, "SELECT o.order_id FROM orders o LEFT JOIN users u ON o.user_id = "
                        "u.user_id AND o.amount > 5 AND u.city = 'x'");
    CONTAINS(plan, "Join(joinType=[LeftOuterJoin], where=[AND(=(user_id, user_id0), >(amount, "
                   "5))]");
    CONTAINS(plan, TABLE("users") ", filter=[=(city, _UTF-16LE'x')], project=[user_id]]]");
    CONTAINS(plan, TABLE("orders") ", project=[order_id, user_id, amount]]]");
    plan = physical(&f, "SELECT o.order_id FROM orders o RIGHT JOIN users u ON o.user_id = "
                        "u.user_id AND o.amount > 5 AND u.city = 'x'");
    CONTAINS(plan, "Join(joinType=[RightOuterJoin], where=[AND(=(user_id, user_id0), =(city, "
                   "_UTF-16LE'x'))]");
    CONTAINS(plan, TABLE("orders") ", filter=[>(amount, 5)]");
    /* FULL: nothing of the ON moves */
    plan = physical(&f, "SELECT o.order_id FROM orders o FULL JOIN users u ON o.user_id = "
                        "u.user_id AND o.amount > 5 AND u.city = 'x'");
    CONTAINS(plan, "where=[AND(=(user_id, user_id0), >(amount, 5), =(city, _UTF-16LE'x'))]");
    LACKS(plan, "filter=[");
    fixture_close(&f);
}
END_TEST

START_TEST(test_outer_join_simplification)
{
    Fixture f;
    fixture_open(&f, TABLES, sizeof TABLES / sizeof TABLES[0]);
    static const struct {
        const char *join;
        const char *where;
        const char *result;
    } cases[] = {
        {"LEFT", "u.city = 'x'", "InnerJoin"},
        {"LEFT", "o.amount > 1", "LeftOuterJoin"},
        {"LEFT", "u.city IS NULL", "LeftOuterJoin"},
        {"LEFT", "u.city IS NOT NULL", "InnerJoin"},
        {"RIGHT", "o.amount > 1", "InnerJoin"},
        {"RIGHT", "u.city = 'x'", "RightOuterJoin"},
        {"FULL", "o.amount > 1", "LeftOuterJoin"},
        {"FULL", "u.name = 'a'", "RightOuterJoin"},
        {"FULL", "u.name = 'a' AND o.amount > 1", "InnerJoin"},
        {"FULL", "o.amount > 1 OR u.name = 'a'", "FullOuterJoin"},
        {"FULL", "COALESCE(u.name, 'z') = 'a'", "FullOuterJoin"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char sql[512], expected[64];
        snprintf(sql, sizeof sql,
                 "SELECT o.order_id FROM orders o %s JOIN users u ON o.user_id = u.user_id "
                 "WHERE %s",
                 cases[i].join, cases[i].where);
        snprintf(expected, sizeof expected, "joinType=[%s]", cases[i].result);
        const char *plan = physical(&f, sql);
        ck_assert_msg(strstr(plan, expected) != NULL, "%s: expected %s in\n%s", sql, expected,
                      plan);
    }
    /* the simplified join's preserved fields are NOT NULL again */
    physical(&f, "SELECT * FROM orders o LEFT JOIN users u ON o.user_id = u.user_id WHERE "
                 "u.city = 'x'");
    ck_assert_int_eq(f.physical->kind, PLAN_JOIN);
    ck_assert(!f.physical->fields[5].type.nullable); /* users.user_id */
    ck_assert(f.physical->fields[6].type.nullable);  /* users.name */
    fixture_close(&f);
}
END_TEST

START_TEST(test_push_through_aggregates_unions_watermarks)
{
    Fixture f;
    fixture_open(&f, TABLES, sizeof TABLES / sizeof TABLES[0]);
    /* a filter on the grouping key goes below; one on the aggregate stays above */
    ck_assert_str_eq(physical(&f, "SELECT * FROM (SELECT user_id, COUNT(*) AS c FROM orders "
                                  "GROUP BY user_id) WHERE user_id > 3 AND c > 1"),
                     "Calc(select=[user_id, c], where=[>(c, 1)])\n"
                     "+- GroupAggregate(groupBy=[user_id], select=[user_id, COUNT(*) AS c], "
                     "stateTtl=[forever])\n"
                     "   +- Exchange(distribution=[hash[user_id]])\n"
                     "      +- " TABLE("orders") ", filter=[>(user_id, 3)], project=[user_id]]], "
                                                 "fields=[user_id])\n");
    /* HAVING on a key is a WHERE in disguise */
    CONTAINS(physical(&f, "SELECT user_id, COUNT(*) FROM orders GROUP BY user_id HAVING "
                          "user_id = 7"),
             TABLE("orders") ", filter=[=(user_id, 7)]");
    /* a global aggregate emits a row for empty input: its filter stays above */
    const char *plan = physical(&f, "SELECT * FROM (SELECT COUNT(*) AS c FROM orders) WHERE c > 0");
    CONTAINS(plan, "Calc(select=[c], where=[>(c, 0)])");
    CONTAINS(plan, "Exchange(distribution=[single])");
    /* into both inputs of a union, through the widening cast */
    ck_assert_str_eq(
        physical(&f, "SELECT * FROM (SELECT user_id FROM clicks UNION ALL SELECT "
                     "user_id FROM orders) WHERE user_id = 1"),
        "Union(all=[true], union=[user_id])\n"
        ":- Calc(select=[CAST(user_id AS BIGINT) AS user_id])\n"
        ":  +- " TABLE("clicks") ", filter=[=(CAST(user_id AS BIGINT), 1)], "
                                 "project=[user_id]]], fields=[user_id])\n"
                                 "+- " TABLE(
                                     "orders") ", filter=[=(user_id, 1)], project=[user_id]]], "
                                               "fields=[user_id])\n");
    /* watermarks see every row: the filter stays above the assigner */
    plan = physical(&f, "SELECT id FROM events WHERE id > 1");
    ck_assert_str_eq(plan, "Calc(select=[id], where=[>(id, 1)])\n"
                           "+- WatermarkAssigner(rowtime=[ts], watermark=[-(ts, 5000:INTERVAL "
                           "SECOND)])\n"
                           "   +- " TABLE("events") "]], fields=[id, ts])\n");
    fixture_close(&f);
}
END_TEST

/* ---- physical planning ---- */

START_TEST(test_physical_exchanges_and_keys)
{
    Fixture f;
    fixture_open(&f, TABLES, sizeof TABLES / sizeof TABLES[0]);
    /* a computed key gets a Calc below its Exchange; the rest is residual */
    ck_assert_str_eq(
        physical(&f, "SELECT o.order_id, p.title FROM orders o JOIN products p ON "
                     "o.product_id + 1 = p.product_id AND o.amount > p.price"),
        "Calc(select=[order_id, title])\n"
        "+- Join(joinType=[InnerJoin], where=[AND(=($f3, product_id0), >(amount, price))], "
        "select=[order_id, product_id, amount, $f3, product_id0, title, price], "
        "leftInputSpec=[NoUniqueKey], rightInputSpec=[NoUniqueKey], stateTtl=[forever])\n"
        "   :- Exchange(distribution=[hash[$f3]])\n"
        "   :  +- Calc(select=[order_id, product_id, amount, +(product_id, 1) AS $f3])\n"
        "   :     +- " TABLE("orders") ", project=[order_id, product_id, amount]]], "
                                       "fields=[order_id, product_id, amount])\n"
                                       "   +- Exchange(distribution=[hash[product_id]])\n"
                                       "      +- " TABLE(
                                           "products") "]], fields=[product_id, title, price])\n");
    const PlanNode *join = f.physical->inputs[0];
    ck_assert_int_eq(join->kind, PLAN_JOIN);
    ck_assert_uint_eq(join->join.key_count, 1);
    ck_assert_uint_eq(join->join.left_keys[0], 3);
    ck_assert_uint_eq(join->join.right_keys[0], 0);
    ck_assert_ptr_nonnull(join->join.residual);
    /* no equi key: both sides go to a single task */
    const char *plan = physical(&f, "SELECT o.order_id FROM orders o JOIN products p ON o.amount > "
                                    "p.price");
    ck_assert_uint_eq(count_of(plan, "Exchange(distribution=[single])"), 2);
    CONTAINS(plan, "where=[>(amount, price)]");
    /* several keys, reversed sides, and a null-safe key */
    physical(&f, "SELECT * FROM orders o JOIN products p ON p.product_id = o.product_id AND "
                 "o.user_id IS NOT DISTINCT FROM p.product_id");
    ck_assert_int_eq(f.physical->kind, PLAN_JOIN);
    ck_assert_uint_eq(f.physical->join.key_count, 2);
    ck_assert_uint_eq(f.physical->join.left_keys[0], 2);
    ck_assert_uint_eq(f.physical->join.left_keys[1], 1);
    ck_assert(!f.physical->join.null_safe[0]);
    ck_assert(f.physical->join.null_safe[1]);
    ck_assert_ptr_null(f.physical->join.residual);
    CONTAINS(section(&f, "Optimized Physical Plan"),
             "Exchange(distribution=[hash[product_id, user_id]])");
    /* a cross join and a global aggregate */
    plan = physical(&f, "SELECT COUNT(*) FROM orders, products");
    CONTAINS(plan, "where=[true]");
    ck_assert_uint_eq(count_of(plan, "Exchange(distribution=[single])"), 3);
    /* grouping keys hash the input */
    CONTAINS(physical(&f, "SELECT DISTINCT user_id, city FROM users"),
             "Exchange(distribution=[hash[user_id, city]])");
    fixture_close(&f);
}
END_TEST

START_TEST(test_calc_merging)
{
    Fixture f;
    fixture_open(&f, TABLES, sizeof TABLES / sizeof TABLES[0]);
    /* projections and filters over projections become one Calc */
    ck_assert_str_eq(physical(&f, "SELECT y + 1 AS z FROM (SELECT x * 2 AS y FROM (SELECT "
                                  "n + 1 AS x, url FROM clicks WHERE url <> 'a') WHERE x > 0) "
                                  "WHERE y < 100"),
                     "Calc(select=[+(*(+(n, 1), 2), 1) AS z])\n"
                     "+- " TABLE("clicks") ", filter=[AND(<(*(+(n, 1), 2), 100), >(+(n, 1), 0), "
                                           "<>(url, _UTF-16LE'a'))], project=[n]]], "
                                           "fields=[n])\n");
    /* an identity projection disappears */
    ck_assert_str_eq(physical(&f, "SELECT * FROM (SELECT user_id, url, n FROM clicks)"),
                     TABLE("clicks") "]], fields=[user_id, url, n])\n");
    /* a filter that cannot move (over an aggregate) merges with the projection above it */
    ck_assert_str_eq(physical(&f, "SELECT c * 2 AS d FROM (SELECT user_id, COUNT(*) AS c FROM "
                                  "orders GROUP BY user_id) WHERE c > 1"),
                     "Calc(select=[*(c, 2) AS d], where=[>(c, 1)])\n"
                     "+- GroupAggregate(groupBy=[user_id], select=[user_id, COUNT(*) AS c], "
                     "stateTtl=[forever])\n"
                     "   +- Exchange(distribution=[hash[user_id]])\n"
                     "      +- " TABLE("orders") ", project=[user_id]]], fields=[user_id])\n");
    fixture_close(&f);
}
END_TEST

/* ---- MultiJoin fusion ---- */

START_TEST(test_multi_join_fusion)
{
    Fixture f;
    fixture_open(&f, TABLES, sizeof TABLES / sizeof TABLES[0]);
    const char *chain = "SELECT o.order_id FROM orders o JOIN users u ON o.user_id = u.user_id "
                        "JOIN orders o2 ON u.user_id = o2.user_id";
    /* off by default */
    LACKS(physical(&f, chain), "MultiJoin");
    set_option(&f, "table.optimizer.multi-join.enabled", "true");
    /* a.k = b.k and b.k = c.k: one MultiJoin on the transitive common key */
    const char *plan = physical(&f, chain);
    ck_assert_uint_eq(count_of(plan, "MultiJoin("), 1);
    LACKS(plan, "Join(joinType");
    CONTAINS(plan, "MultiJoin(commonJoinKey=[user_id], joinTypes=[INNER, INNER], "
                   "inputUniqueKeys=[noUniqueKey, (user_id), noUniqueKey], "
                   "joinConditions=[=(user_id, user_id0), =(user_id0, user_id1)]");
    ck_assert_uint_eq(count_of(plan, "Exchange(distribution=[hash[user_id]])"), 3);
    const PlanNode *fused = f.physical->inputs[0];
    ck_assert_int_eq(fused->kind, PLAN_MULTI_JOIN);
    ck_assert_uint_eq(fused->input_count, 3);
    ck_assert_uint_eq(fused->multi_join.common_key_count, 1);
    ck_assert_uint_eq(fused->multi_join.key_fields[0][0], 1); /* orders.user_id */
    ck_assert_uint_eq(fused->multi_join.key_fields[1][0], 0); /* users.user_id */
    ck_assert_uint_eq(fused->multi_join.key_fields[2][0], 0);
    /* two keys: the chain is split where the key changes */
    plan = physical(&f, "SELECT o.order_id FROM orders o JOIN users u ON o.user_id = u.user_id "
                        "JOIN products p ON o.product_id = p.product_id");
    ck_assert_uint_eq(count_of(plan, "MultiJoin("), 2);
    CONTAINS(plan, "MultiJoin(commonJoinKey=[product_id], joinTypes=[INNER]");
    CONTAINS(plan, "MultiJoin(commonJoinKey=[user_id], joinTypes=[INNER]");
    /* RIGHT and FULL steps fuse too */
    plan = physical(&f, "SELECT o.order_id FROM orders o LEFT JOIN users u ON o.user_id = "
                        "u.user_id FULL JOIN orders o2 ON o.user_id = o2.user_id RIGHT JOIN "
                        "users u2 ON o.user_id = u2.user_id");
    ck_assert_uint_eq(count_of(plan, "MultiJoin("), 1);
    CONTAINS(plan, "commonJoinKey=[user_id], joinTypes=[LEFT, FULL, RIGHT]");
    /* a step joining its input on another column: the common class holds two fields of the
       first two inputs' result, so the outer step stays a binary join */
    plan = physical(&f, "SELECT a.order_id FROM orders a JOIN orders b ON a.product_id = "
                        "b.product_id LEFT JOIN users u ON a.user_id = u.user_id AND b.user_id = "
                        "u.user_id");
    ck_assert_uint_eq(count_of(plan, "MultiJoin("), 1);
    CONTAINS(plan, "MultiJoin(commonJoinKey=[product_id], joinTypes=[INNER]");
    CONTAINS(plan, "Join(joinType=[LeftOuterJoin]");
    /* keys of different types are no common key */
    plan = physical(&f, "SELECT o.order_id FROM orders o JOIN users u ON o.user_id = u.user_id "
                        "JOIN clicks c ON u.user_id = c.user_id");
    ck_assert_uint_eq(count_of(plan, "MultiJoin("), 1);
    CONTAINS(plan, "Join(joinType=[InnerJoin]");
    /* no equi condition at all: no fusion */
    LACKS(physical(&f, "SELECT o.order_id FROM orders o JOIN products p ON o.amount > p.price "
                       "JOIN users u ON o.user_id > u.user_id"),
          "MultiJoin");
    /* a hint's TTL reaches its input; the others take the session default */
    set_option(&f, "table.exec.state.ttl", "2 h");
    CONTAINS(physical(&f, "SELECT /*+ STATE_TTL('o2' = '1d') */ o.order_id FROM orders o JOIN "
                          "users u ON o.user_id = u.user_id JOIN orders o2 ON u.user_id = "
                          "o2.user_id"),
             "stateTtl=[2 h, 2 h, 1 d]");
    fixture_close(&f);
}
END_TEST

START_TEST(test_multi_join_hint)
{
    Fixture f;
    fixture_open(&f, TABLES, sizeof TABLES / sizeof TABLES[0]);
    CONTAINS(physical(&f, "SELECT /*+ MULTI_JOIN(o, u, o2) */ o.order_id FROM orders o JOIN "
                          "users u ON o.user_id = u.user_id JOIN orders o2 ON u.user_id = "
                          "o2.user_id"),
             "MultiJoin(commonJoinKey=[user_id], joinTypes=[INNER, INNER]");
    /* the hint is per statement */
    LACKS(physical(&f, "SELECT o.order_id FROM orders o JOIN users u ON o.user_id = u.user_id "
                       "JOIN orders o2 ON u.user_id = o2.user_id"),
          "MultiJoin");
    fixture_close(&f);
}
END_TEST

/* ---- derived properties ---- */

START_TEST(test_changelog_modes_and_specs)
{
    Fixture f;
    fixture_open(&f, TABLES, sizeof TABLES / sizeof TABLES[0]);
    const char *plan = physical_changelog(
        &f, "SELECT o.order_id, u.name FROM orders o LEFT JOIN users u ON o.user_id = u.user_id");
    CONTAINS(plan, "Calc(select=[order_id, name], changelogMode=[I,UB,UA,D])");
    CONTAINS(plan, "leftInputSpec=[NoUniqueKey], rightInputSpec=[JoinKeyContainsUniqueKey], "
                   "stateTtl=[forever], changelogMode=[I,UB,UA,D]");
    CONTAINS(plan, "fields=[order_id, user_id], changelogMode=[I])");
    /* an inner join of append-only inputs is append-only */
    CONTAINS(physical_changelog(&f, "SELECT o.order_id FROM orders o JOIN users u ON "
                                    "o.user_id = u.user_id"),
             "Calc(select=[order_id], changelogMode=[I])");
    /* a group aggregate updates; over an append-only input it never deletes */
    CONTAINS(physical_changelog(&f, "SELECT user_id, COUNT(*) FROM orders GROUP BY user_id"),
             "select=[user_id, COUNT(*) AS EXPR$1], stateTtl=[forever], changelogMode=[I,UB,UA])");
    /* the aggregate is unique on its key: a join on it sees JoinKeyContainsUniqueKey */
    plan = physical_changelog(&f, "SELECT a.user_id, a.c, u.name FROM (SELECT user_id, COUNT(*) "
                                  "AS c FROM orders GROUP BY user_id) a JOIN users u ON "
                                  "a.user_id = u.user_id");
    CONTAINS(plan, "leftInputSpec=[JoinKeyContainsUniqueKey], "
                   "rightInputSpec=[JoinKeyContainsUniqueKey], stateTtl=[forever], "
                   "changelogMode=[I,UB,UA])");
    /* a key that is unique but not the join key */
    CONTAINS(physical(&f, "SELECT * FROM users u JOIN products p ON u.name = p.title"),
             "leftInputSpec=[HasUniqueKey], rightInputSpec=[NoUniqueKey]");
    /* an upsert source: Exchange on its key, then ChangelogNormalize; key filters go into the
       scan */
    ck_assert_str_eq(
        physical_changelog(&f, "SELECT k, COUNT(*) FROM up WHERE k > 1 GROUP BY k"),
        "GroupAggregate(groupBy=[k], select=[k, COUNT(*) AS EXPR$1], stateTtl=[forever], "
        "changelogMode=[I,UB,UA,D])\n"
        "+- Exchange(distribution=[hash[k]], changelogMode=[I,UB,UA,D])\n"
        "   +- ChangelogNormalize(key=[k], stateTtl=[forever], changelogMode=[I,UB,UA,D])\n"
        "      +- Exchange(distribution=[hash[k]], changelogMode=[UA,D])\n"
        "         +- " TABLE("up") ", filter=[>(k, 1)], project=[k]]], fields=[k], "
                                   "changelogMode=[UA,D])\n");
    /* a union of an append-only and an updating input updates */
    CONTAINS(physical_changelog(&f, "SELECT k FROM up UNION ALL SELECT user_id FROM orders"),
             "Union(all=[true], union=[k], changelogMode=[I,UB,UA,D])");
    fixture_close(&f);
}
END_TEST

START_TEST(test_state_ttl)
{
    Fixture f;
    fixture_open(&f, TABLES, sizeof TABLES / sizeof TABLES[0]);
    const char *join = "SELECT o.order_id FROM orders o JOIN users u ON o.user_id = u.user_id";
    CONTAINS(physical(&f, join), "stateTtl=[forever]");
    ck_assert_int_eq(f.physical->inputs[0]->state_ttl_millis, 0);
    set_option(&f, "table.exec.state.ttl", "90 s");
    CONTAINS(physical(&f, join), "stateTtl=[90 s]");
    ck_assert_int_eq(f.physical->inputs[0]->state_ttl_millis, 90000);
    ck_assert_int_eq(f.physical->inputs[0]->state_ttl_right_millis, 90000);
    ck_assert(!f.physical->inputs[0]->ttl_from_hint);
    CONTAINS(physical(&f, "SELECT user_id, COUNT(*) FROM orders GROUP BY user_id"),
             "stateTtl=[90 s]");
    CONTAINS(physical(&f, "SELECT * FROM up"), "ChangelogNormalize(key=[k], stateTtl=[90 s])");
    /* hints win over the option, per side */
    CONTAINS(physical(&f, "SELECT /*+ STATE_TTL('o' = '1d', 'u' = '1d') */ o.order_id FROM orders "
                          "o JOIN users u ON o.user_id = u.user_id"),
             "stateTtl=[1 d]");
    ck_assert(f.physical->inputs[0]->ttl_from_hint);
    CONTAINS(physical(&f, "SELECT /*+ STATE_TTL('users' = '10 min') */ o.order_id FROM orders o "
                          "JOIN users ON o.user_id = users.user_id"),
             "stateTtl=[left=90 s, right=10 min]");
    /* bad option values are refused by the session options */
    Diag diag;
    diag_clear(&diag);
    ck_assert_int_ne(options_set(&f.options, "table.exec.state.ttl", "5 parsecs", &diag),
                     JOINERY_OK);
    ck_assert_int_ne(options_set(&f.options, "table.optimizer.multi-join.enabled", "maybe", &diag),
                     JOINERY_OK);
    fixture_close(&f);
}
END_TEST

/* The first node of `kind` in a pre-order walk, or NULL. */
static PlanNode *find_kind(PlanNode *node, PlanKind kind)
{
    if (node->kind == kind)
        return node;
    for (uint32_t i = 0; i < node->input_count; i++) {
        PlanNode *found = find_kind(node->inputs[i], kind);
        if (found)
            return found;
    }
    return NULL;
}

/* IN / EXISTS subqueries plan as semi / anti Joins (Flink's names), keyed by their
   equalities, emitting the left input's fields; NOT IN's NULL-aware condition has no key. */
START_TEST(test_semi_and_anti_joins)
{
    ck_assert_str_eq(join_type_logical_name(JOIN_TYPE_SEMI), "semi");
    ck_assert_str_eq(join_type_name(JOIN_TYPE_SEMI), "LeftSemiJoin");
    ck_assert_str_eq(join_type_multi_join_name(JOIN_TYPE_SEMI), "SEMI");
    ck_assert_str_eq(join_type_logical_name(JOIN_TYPE_ANTI), "anti");
    ck_assert_str_eq(join_type_name(JOIN_TYPE_ANTI), "LeftAntiJoin");
    ck_assert_str_eq(join_type_multi_join_name(JOIN_TYPE_ANTI), "ANTI");
    static const char *const queries[] = {
        "SELECT o.order_id FROM orders o WHERE o.user_id IN (SELECT u.user_id FROM users u)",
        "SELECT o.order_id FROM orders o WHERE NOT EXISTS (SELECT * FROM users u WHERE "
        "u.user_id = o.user_id)",
        "SELECT o.order_id FROM orders o WHERE o.user_id NOT IN (SELECT u.user_id FROM users u)",
    };
    static const JoinType types[] = {JOIN_TYPE_SEMI, JOIN_TYPE_ANTI, JOIN_TYPE_ANTI};
    static const uint32_t keys[] = {1, 1, 0};
    Fixture f;
    fixture_open(&f, TABLES, sizeof TABLES / sizeof TABLES[0]);
    for (int q = 0; q < 3; q++) {
        ck_assert_int_eq(bind(&f, queries[q]), JOINERY_OK);
        ck_assert_int_eq(plan_optimize(&f.context, f.logical, &f.physical), JOINERY_OK);
        PlanNode *join = find_kind(f.physical, PLAN_JOIN);
        ck_assert_ptr_nonnull(join);
        ck_assert_int_eq(join->join.join_type, types[q]);
        ck_assert_uint_eq(join->field_count, join->inputs[0]->field_count);
        ck_assert_uint_eq(join->join.key_count, keys[q]);
        if (keys[q] == 0) /* OR(IS NULL(o.user_id), =(o.user_id, u.user_id)) */
            ck_assert_ptr_nonnull(join->join.residual);
    }
    fixture_close(&f);
}
END_TEST

static Suite *rules_suite(void)
{
    Suite *suite = suite_create("rules");
    TCase *filters = tcase_create("push_filters");
    tcase_add_test(filters, test_push_into_scans_and_through_projections);
    tcase_add_test(filters, test_push_into_joins);
    tcase_add_test(filters, test_outer_join_simplification);
    tcase_add_test(filters, test_push_through_aggregates_unions_watermarks);
    suite_add_tcase(suite, filters);
    TCase *physical_plans = tcase_create("physical");
    tcase_add_test(physical_plans, test_physical_exchanges_and_keys);
    tcase_add_test(physical_plans, test_calc_merging);
    tcase_add_test(physical_plans, test_semi_and_anti_joins);
    suite_add_tcase(suite, physical_plans);
    TCase *fusion = tcase_create("multi_join");
    tcase_add_test(fusion, test_multi_join_fusion);
    tcase_add_test(fusion, test_multi_join_hint);
    suite_add_tcase(suite, fusion);
    TCase *derive = tcase_create("derive");
    tcase_add_test(derive, test_changelog_modes_and_specs);
    tcase_add_test(derive, test_state_ttl);
    suite_add_tcase(suite, derive);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(rules_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? 0 : 1;
}
