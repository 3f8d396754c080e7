/*
 * check_interval_bounds.c - Check suite for recognising interval joins
 * (engine/plan/interval_bounds.c, the conversion in node_join.c) through
 * plan_optimize and EXPLAIN, after Flink's IntervalJoinTest: the bounds of
 * testJoinTimeBoundary (BETWEEN, strict comparisons, operands either way
 * round, constant arithmetic on both sides, negative bounds), isRowTime for
 * rowtime and proctime, equal times, the time indexes, and the conditions
 * that stay regular joins (a single time predicate, time attributes of
 * different kinds, an OR, a bound on a plain column); join reordering and
 * MultiJoin fusion leave an interval join in place.
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

/* Flink's MyTable / MyTable2: (a, b, c, proctime, rowtime). */
static const char *const TABLES[] = {
    "CREATE TABLE MyTable (a INT, b STRING, c BIGINT, proctime AS PROCTIME(), rowtime "
    "TIMESTAMP(3), WATERMARK FOR rowtime AS rowtime)" FS,
    "CREATE TABLE MyTable2 (a INT, b STRING, c BIGINT, proctime AS PROCTIME(), rowtime "
    "TIMESTAMP(3), WATERMARK FOR rowtime AS rowtime)" FS,
    "CREATE TABLE MyTable3 (a INT, d TIMESTAMP(3), rowtime TIMESTAMP(3), WATERMARK FOR "
    "rowtime AS rowtime)" FS,
};

#define QUERY "SELECT t1.a, t2.b FROM MyTable AS t1 JOIN MyTable2 AS t2 ON t1.a = t2.a AND "

static const char *physical(Fixture *f, const char *sql)
{
    explain(f, sql, 0);
    return section(f, "Optimized Physical Plan");
}

#define CONTAINS(text, needle)                                                                     \
    ck_assert_msg(strstr((text), (needle)) != NULL, "'%s' not in\n%s", (needle), (text))
#define LACKS(text, needle)                                                                        \
    ck_assert_msg(strstr((text), (needle)) == NULL, "'%s' unexpectedly in\n%s", (needle), (text))

/* The windowBounds=[...] text of the plan's IntervalJoin for `condition`. */
static void expect_bounds(Fixture *f, const char *condition, const char *bounds)
{
    char sql[1024];
    snprintf(sql, sizeof sql, QUERY "%s", condition);
    const char *plan = physical(f, sql);
    char needle[256];
    snprintf(needle, sizeof needle, "windowBounds=[%s", bounds);
    CONTAINS(plan, needle);
}

static void expect_regular(Fixture *f, const char *sql)
{
    const char *plan = physical(f, sql);
    LACKS(plan, "IntervalJoin");
    CONTAINS(plan, "Join(joinType=[InnerJoin]");
}

START_TEST(test_time_boundaries)
{
    Fixture f;
    fixture_open(&f, TABLES, sizeof TABLES / sizeof TABLES[0]);
    /* MyTable's projected row: a, proctime or rowtime; MyTable2's: a, b, its time */
    expect_bounds(&f,
                  "t1.proctime BETWEEN t2.proctime - INTERVAL '1' HOUR AND t2.proctime + "
                  "INTERVAL '1' HOUR",
                  "isRowTime=false, leftLowerBound=-3600000, leftUpperBound=3600000, "
                  "leftTimeIndex=1, rightTimeIndex=2");
    expect_bounds(&f,
                  "t1.proctime > t2.proctime - INTERVAL '1' SECOND AND t1.proctime < "
                  "t2.proctime + INTERVAL '1' SECOND",
                  "isRowTime=false, leftLowerBound=-999, leftUpperBound=999, leftTimeIndex=1, "
                  "rightTimeIndex=2");
    expect_bounds(&f,
                  "t1.rowtime >= t2.rowtime - INTERVAL '1' SECOND AND t1.rowtime <= t2.rowtime + "
                  "INTERVAL '1' SECOND",
                  "isRowTime=true, leftLowerBound=-1000, leftUpperBound=1000, leftTimeIndex=1, "
                  "rightTimeIndex=2");
    expect_bounds(&f, "t1.rowtime >= t2.rowtime AND t1.rowtime <= t2.rowtime + INTERVAL '1' SECOND",
                  "isRowTime=true, leftLowerBound=0, leftUpperBound=1000");
    expect_bounds(&f,
                  "t1.rowtime >= t2.rowtime + INTERVAL '1' SECOND AND t1.rowtime <= t2.rowtime "
                  "+ INTERVAL '10' SECOND",
                  "isRowTime=true, leftLowerBound=1000, leftUpperBound=10000");
    expect_bounds(&f,
                  "t2.rowtime - INTERVAL '1' SECOND <= t1.rowtime AND t2.rowtime + INTERVAL '10' "
                  "SECOND >= t1.rowtime",
                  "isRowTime=true, leftLowerBound=-1000, leftUpperBound=10000");
    expect_bounds(&f,
                  "t1.rowtime - INTERVAL '2' SECOND >= t2.rowtime + INTERVAL '1' SECOND - "
                  "INTERVAL '10' SECOND AND t1.rowtime <= t2.rowtime + INTERVAL '10' SECOND",
                  "isRowTime=true, leftLowerBound=-7000, leftUpperBound=10000");
    expect_bounds(&f,
                  "t1.rowtime >= t2.rowtime - INTERVAL '10' SECOND AND t1.rowtime <= t2.rowtime "
                  "- INTERVAL '5' SECOND",
                  "isRowTime=true, leftLowerBound=-10000, leftUpperBound=-5000");
    /* equal times: one equality is enough (Flink's testJoinWithEquiRowTime), and it is not
       an equi key */
    expect_bounds(&f, "t1.rowtime = t2.rowtime",
                  "isRowTime=true, leftLowerBound=0, leftUpperBound=0");
    CONTAINS(physical(&f, QUERY "t1.proctime = t2.proctime"), "Exchange(distribution=[hash[a]])");
    /* milliseconds */
    expect_bounds(&f,
                  "t1.rowtime BETWEEN t2.rowtime - INTERVAL '0.25' SECOND AND t2.rowtime + "
                  "INTERVAL '1.001' SECOND",
                  "isRowTime=true, leftLowerBound=-250, leftUpperBound=1001");
    fixture_close(&f);
}
END_TEST

START_TEST(test_regular_joins)
{
    Fixture f;
    fixture_open(&f, TABLES, sizeof TABLES / sizeof TABLES[0]);
    /* one range predicate alone (testInteravlJoinSingleTimeCondition) */
    expect_regular(&f, QUERY "t1.proctime > t2.proctime - INTERVAL '5' SECOND");
    /* proctime against rowtime (testInteravalDiffTimeIndicator) */
    expect_regular(&f, QUERY "t1.proctime > t2.proctime - INTERVAL '5' SECOND AND t1.proctime "
                             "< t2.rowtime + INTERVAL '5' SECOND");
    /* not a conjunction of time predicates (testInteravalNotCnfCondition) */
    expect_regular(&f, QUERY "(t1.proctime > t2.proctime - INTERVAL '5' SECOND OR t1.proctime "
                             "< t2.proctime + INTERVAL '5' SECOND)");
    /* a bound on a plain TIMESTAMP (Nexmark q4's B.dateTime BETWEEN A.dateTime AND A.expires) */
    expect_regular(&f, "SELECT t1.a FROM MyTable3 AS t1 JOIN MyTable2 AS t2 ON t1.a = t2.a AND "
                       "t2.rowtime BETWEEN t1.rowtime AND t1.d");
    /* a time attribute that came through a regular join is a plain TIMESTAMP there */
    expect_regular(&f, "SELECT j.a FROM (SELECT t1.a, t1.rowtime FROM MyTable t1 JOIN MyTable3 t3 "
                       "ON t1.a = t3.a) j JOIN MyTable2 t2 ON j.a = t2.a AND j.rowtime BETWEEN "
                       "t2.rowtime - INTERVAL '1' SECOND AND t2.rowtime");
    /* ... but not one that came through an interval join */
    CONTAINS(physical(&f, "SELECT j.a FROM (SELECT t1.a, t1.rowtime FROM MyTable t1 JOIN MyTable3 "
                          "t3 ON t1.a = t3.a AND t1.rowtime = t3.rowtime) j JOIN MyTable2 t2 ON "
                          "j.a = t2.a AND j.rowtime BETWEEN t2.rowtime - INTERVAL '1' SECOND AND "
                          "t2.rowtime"),
             "IntervalJoin(joinType=[InnerJoin], windowBounds=[isRowTime=true, "
             "leftLowerBound=-1000, leftUpperBound=0");
    /* three time predicates */
    expect_regular(&f, QUERY "t1.rowtime >= t2.rowtime AND t1.rowtime <= t2.rowtime + INTERVAL "
                             "'1' SECOND AND t1.rowtime < t2.rowtime + INTERVAL '2' SECOND");
    fixture_close(&f);
}
END_TEST

START_TEST(test_outer_and_no_key)
{
    Fixture f;
    fixture_open(&f, TABLES, sizeof TABLES / sizeof TABLES[0]);
    const char *plan = physical(&f, "SELECT t1.a, t2.b FROM MyTable t1 FULL OUTER JOIN MyTable2 "
                                    "t2 ON t1.a = t2.a AND t1.rowtime BETWEEN t2.rowtime - "
                                    "INTERVAL '10' SECOND AND t2.rowtime + INTERVAL '1' HOUR");
    CONTAINS(plan, "IntervalJoin(joinType=[FullOuterJoin], windowBounds=[isRowTime=true, "
                   "leftLowerBound=-10000, leftUpperBound=3600000");
    /* a WHERE rejecting the padded rows makes it inner (testOuterJoinOpt) */
    plan = physical(&f, "SELECT t1.a, t2.b FROM MyTable t1 FULL OUTER JOIN MyTable2 t2 ON t1.a "
                        "= t2.a AND t1.rowtime BETWEEN t2.rowtime - INTERVAL '10' SECOND AND "
                        "t2.rowtime + INTERVAL '1' HOUR WHERE t1.b LIKE t2.b");
    CONTAINS(plan, "IntervalJoin(joinType=[InnerJoin]");
    CONTAINS(plan, "LIKE(b, b0))]");
    /* no equi key: single exchanges (testProcessingTimeInnerJoinWithoutEqualCondition) */
    plan = physical(&f, "SELECT t1.a, t2.b FROM MyTable t1 JOIN MyTable2 t2 ON t1.proctime "
                        "BETWEEN t2.proctime - INTERVAL '1' HOUR AND t2.proctime + INTERVAL '1' "
                        "HOUR");
    CONTAINS(plan, "IntervalJoin(joinType=[InnerJoin], windowBounds=[isRowTime=false, "
                   "leftLowerBound=-3600000, leftUpperBound=3600000, leftTimeIndex=1, "
                   "rightTimeIndex=1]");
    CONTAINS(plan, "Exchange(distribution=[single])");
    fixture_close(&f);
}
END_TEST

/* Neither join reordering nor MultiJoin fusion touch an interval join. */
START_TEST(test_rules_leave_interval_joins)
{
    static const char *const sql =
        "SELECT t1.a FROM MyTable t1 JOIN MyTable2 t2 ON t1.a = t2.a AND t1.rowtime BETWEEN "
        "t2.rowtime - INTERVAL '1' SECOND AND t2.rowtime JOIN MyTable3 t3 ON t1.a = t3.a JOIN "
        "MyTable t4 ON t1.a = t4.a";
    Fixture f;
    fixture_open(&f, TABLES, sizeof TABLES / sizeof TABLES[0]);
    set_option(&f, "table.optimizer.join-reorder-enabled", "true");
    const char *plan = physical(&f, sql);
    CONTAINS(plan, "IntervalJoin(joinType=[InnerJoin], windowBounds=[isRowTime=true, "
                   "leftLowerBound=-1000, leftUpperBound=0");
    set_option(&f, "table.optimizer.join-reorder-enabled", "false");
    set_option(&f, "table.optimizer.multi-join.enabled", "true");
    plan = physical(&f, sql);
    CONTAINS(plan, "MultiJoin(commonJoinKey=[a]");
    CONTAINS(plan, "IntervalJoin(joinType=[InnerJoin], windowBounds=[isRowTime=true, "
                   "leftLowerBound=-1000, leftUpperBound=0");
    /* time bounds on attributes that came through a regular join: a regular join, fused */
    plan = physical(&f, "SELECT t1.a FROM MyTable t1 JOIN MyTable3 t3 ON t1.a = t3.a JOIN "
                        "MyTable2 t2 ON t1.a = t2.a AND t1.rowtime BETWEEN t2.rowtime - INTERVAL "
                        "'1' SECOND AND t2.rowtime");
    CONTAINS(plan, "MultiJoin(commonJoinKey=[a], joinTypes=[INNER, INNER]");
    LACKS(plan, "IntervalJoin");
    fixture_close(&f);
}
END_TEST

static Suite *interval_bounds_suite(void)
{
    Suite *suite = suite_create("interval_bounds");
    TCase *core = tcase_create("core");
    tcase_add_test(core, test_time_boundaries);
    tcase_add_test(core, test_regular_joins);
    tcase_add_test(core, test_outer_and_no_key);
    tcase_add_test(core, test_rules_leave_interval_joins);
    suite_add_tcase(suite, core);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(interval_bounds_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
