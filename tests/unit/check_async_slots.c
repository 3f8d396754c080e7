/*
 * check_async_slots.c - an operator's asynchronous request slots
 * (engine/exec/async_slots.h): the capacity is the bound, the order is the
 * order taken, a released slot is handed out again under a new request id,
 * and ids out of range are refused.
 */
#include <check.h>
#include <stdlib.h>

#include "engine/base/diag.h"
#include "engine/exec/async_slots.h"

START_TEST(test_capacity_and_order)
{
    AsyncSlots slots;
    ck_assert_int_eq(async_slots_init(&slots, 3), JOINERY_OK);
    uint64_t ids[3];
    uint32_t taken[3];
    for (int i = 0; i < 3; i++) {
        ck_assert(!async_slots_full(&slots));
        taken[i] = async_slots_acquire(&slots, &ids[i]);
    }
    ck_assert(async_slots_full(&slots));
    ck_assert_uint_ne(taken[0], taken[1]);
    ck_assert_uint_ne(taken[1], taken[2]);
    ck_assert_uint_ne(taken[0], taken[2]);
    for (int i = 0; i < 3; i++) {
        uint32_t slot;
        ck_assert(async_slots_index(&slots, ids[i], &slot));
        ck_assert_uint_eq(slot, taken[i]);
    }
    /* the oldest first, then a freed slot again, appended behind the others */
    uint32_t oldest;
    ck_assert(async_slots_oldest(&slots, &oldest));
    ck_assert_uint_eq(oldest, taken[0]);
    async_slots_pop_oldest(&slots);
    async_slots_release(&slots, oldest);
    ck_assert(!async_slots_full(&slots));
    uint64_t again;
    uint32_t reused = async_slots_acquire(&slots, &again);
    ck_assert_uint_eq(reused, taken[0]);
    ck_assert(again != ids[0]); /* a new use of the slot: the stale id no longer matches */
    uint32_t expected[3] = {taken[1], taken[2], reused};
    for (int i = 0; i < 3; i++) {
        ck_assert(async_slots_oldest(&slots, &oldest));
        ck_assert_uint_eq(oldest, expected[i]);
        async_slots_pop_oldest(&slots);
        async_slots_release(&slots, oldest);
    }
    ck_assert(!async_slots_oldest(&slots, &oldest));
    ck_assert_uint_eq(slots.used, 0);
    ck_assert_uint_eq(slots.free_count, 3);
    async_slots_free(&slots);
}
END_TEST

START_TEST(test_ids_out_of_range_and_unordered_release)
{
    AsyncSlots slots;
    ck_assert_int_eq(async_slots_init(&slots, 2), JOINERY_OK);
    uint32_t slot;
    ck_assert(!async_slots_index(&slots, ((uint64_t)1 << 32) | 2u, &slot));
    uint64_t first, second;
    uint32_t a = async_slots_acquire(&slots, &first);
    uint32_t b = async_slots_acquire(&slots, &second);
    /* released in completion order (unordered output): both free again */
    async_slots_release(&slots, b);
    async_slots_release(&slots, a);
    ck_assert_uint_eq(slots.used, 0);
    ck_assert_uint_eq(slots.free_count, 2);
    ck_assert(!async_slots_full(&slots));
    async_slots_free(&slots);
    async_slots_free(&slots); /* safe twice */
}
END_TEST

static Suite *async_slots_suite(void)
{
    Suite *suite = suite_create("async_slots");
    TCase *core = tcase_create("core");
    tcase_add_test(core, test_capacity_and_order);
    tcase_add_test(core, test_ids_out_of_range_and_unordered_release);
    suite_add_tcase(suite, core);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(async_slots_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
