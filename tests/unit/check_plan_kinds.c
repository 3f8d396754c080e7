/*
 * check_plan_kinds.c - Check suite for the node kind tables: every PlanKind
 * has its descriptor in plan_kinds[] (engine/plan/nodes/nodes.c) at its own
 * index, with a name, an EXPLAIN printer and the hooks its side of the plan
 * needs (logical kinds convert, physical kinds derive), every physical kind
 * its builder in job_kinds[] (engine/exec/job_build.c), and plan_kind_name /
 * plan_node_is_stateful answer from the descriptors.
 */
#include <check.h>
#include <string.h>

#include "engine/exec/job_internal.h"
#include "engine/plan/nodes/nodes.h"

START_TEST(test_every_kind_has_its_descriptor)
{
    for (int kind = 0; kind < PLAN_KIND_COUNT; kind++) {
        const PlanKindInfo *info = plan_kind_info((PlanKind)kind);
        ck_assert_msg(info != NULL, "PlanKind %d has no descriptor", kind);
        ck_assert_msg(info->kind == (PlanKind)kind, "plan_kinds[%d] is the descriptor of %s", kind,
                      info->name);
        ck_assert_msg(info->name && info->name[0], "PlanKind %d has no name", kind);
        ck_assert_msg(info->explain != NULL, "%s has no EXPLAIN printer", info->name);
        ck_assert_msg(!info->stateful || info->physical, "logical %s is stateful", info->name);
        ck_assert_msg(!info->physical || info->derive, "physical %s derives nothing", info->name);
        ck_assert_msg(info->physical || info->convert || (info->twin && info->twin->physical),
                      "logical %s has no conversion", info->name);
        ck_assert_msg(info->physical == (strncmp(info->name, "Logical", 7) != 0),
                      "%s: logical kinds, and only they, are named Logical...", info->name);
    }
}
END_TEST

START_TEST(test_every_physical_kind_can_run)
{
    for (int kind = 0; kind < PLAN_KIND_COUNT; kind++) {
        const PlanKindInfo *info = plan_kind_info((PlanKind)kind);
        const JobKind *job = &job_kinds[kind];
        ck_assert_msg(info != NULL, "PlanKind %d has no descriptor", kind);
        if (info->physical)
            ck_assert_msg((job->build != NULL) != (job->create != NULL),
                          "%s needs one builder in job_kinds[]", info->name);
        else
            ck_assert_msg(!job->build && !job->create && !job->format_metrics,
                          "logical %s has a builder", info->name);
    }
}
END_TEST

START_TEST(test_names_and_flags_come_from_the_descriptors)
{
    ck_assert_str_eq(plan_kind_name(PLAN_JOIN), "Join");
    ck_assert_str_eq(plan_kind_name(PLAN_LOGICAL_MULTI_JOIN), "LogicalMultiJoin");
    ck_assert_str_eq(plan_kind_name(PLAN_TABLE_SOURCE_SCAN), "TableSourceScan");
    PlanNode node = {.kind = PLAN_GROUP_AGGREGATE};
    ck_assert(plan_node_is_stateful(&node));
    node.kind = PLAN_CALC;
    ck_assert(!plan_node_is_stateful(&node));
}
END_TEST

static Suite *plan_kinds_suite(void)
{
    Suite *suite = suite_create("plan_kinds");
    TCase *tables = tcase_create("tables");
    tcase_add_test(tables, test_every_kind_has_its_descriptor);
    tcase_add_test(tables, test_every_physical_kind_can_run);
    tcase_add_test(tables, test_names_and_flags_come_from_the_descriptors);
    suite_add_tcase(suite, tables);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(plan_kinds_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? 0 : 1;
}
