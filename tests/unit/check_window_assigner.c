/*
 * check_window_assigner.c - Check suite for the window assigners
 * (engine/exec/window/window_assigner.h): the windows of a time under
 * TUMBLE, HOP and CUMULATE with and without offsets, negative times, the
 * order Flink's assigners give them in, the spec validation
 * (plan/window_spec.h), and the merging of session windows.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "engine/base/strbuf.h"
#include "engine/exec/window/window_assigner.h"

/* The windows of `timestamp` as text: "[start,end) [start,end)". */
static const char *assigned(const WindowSpec *spec, int64_t timestamp)
{
    static char text[512];
    WindowBounds windows[64];
    uint32_t count = window_assign(spec, timestamp, windows, 64);
    ck_assert_uint_le(count, window_assign_max(spec));
    size_t used = 0;
    text[0] = '\0';
    for (uint32_t i = 0; i < count; i++)
        used += (size_t)snprintf(text + used, sizeof text - used, "%s[%lld,%lld)", i ? " " : "",
                                 (long long)windows[i].start, (long long)windows[i].end);
    return text;
}

START_TEST(test_tumble)
{
    WindowSpec spec = {.kind = WINDOW_TUMBLE, .size_millis = 10};
    ck_assert_str_eq(assigned(&spec, 0), "[0,10)");
    ck_assert_str_eq(assigned(&spec, 9), "[0,10)");
    ck_assert_str_eq(assigned(&spec, 10), "[10,20)");
    ck_assert_str_eq(assigned(&spec, -1), "[-10,0)");
    ck_assert_str_eq(assigned(&spec, -10), "[-10,0)");
    spec.offset_millis = 3;
    ck_assert_str_eq(assigned(&spec, 2), "[-7,3)");
    ck_assert_str_eq(assigned(&spec, 3), "[3,13)");
    spec.offset_millis = -3;
    ck_assert_str_eq(assigned(&spec, 6), "[-3,7)");
    ck_assert_str_eq(assigned(&spec, 7), "[7,17)");
    /* an offset larger than the size counts by its remainder */
    spec.offset_millis = 23;
    ck_assert_str_eq(assigned(&spec, 3), "[3,13)");
    ck_assert_int_eq(window_start_with_offset(INT64_C(1700000123456), 0, 300000),
                     INT64_C(1700000100000));
}
END_TEST

START_TEST(test_hop)
{
    WindowSpec spec = {.kind = WINDOW_HOP, .size_millis = 10, .slide_millis = 5};
    ck_assert_uint_eq(window_assign_max(&spec), 2);
    ck_assert_str_eq(assigned(&spec, 0), "[0,10) [-5,5)");
    ck_assert_str_eq(assigned(&spec, 7), "[5,15) [0,10)");
    ck_assert_str_eq(assigned(&spec, -1), "[-5,5) [-10,0)");
    /* size not a multiple of slide: 3 or 4 windows hold a time */
    spec = (WindowSpec){.kind = WINDOW_HOP, .size_millis = 10, .slide_millis = 3};
    ck_assert_uint_eq(window_assign_max(&spec), 4);
    ck_assert_str_eq(assigned(&spec, 9), "[9,19) [6,16) [3,13) [0,10)");
    ck_assert_str_eq(assigned(&spec, 10), "[9,19) [6,16) [3,13)");
    /* slide larger than size: some times fall into no window */
    spec = (WindowSpec){.kind = WINDOW_HOP, .size_millis = 2, .slide_millis = 5};
    ck_assert_str_eq(assigned(&spec, 1), "[0,2)");
    ck_assert_str_eq(assigned(&spec, 3), "");
    spec =
        (WindowSpec){.kind = WINDOW_HOP, .size_millis = 10, .slide_millis = 5, .offset_millis = 2};
    ck_assert_str_eq(assigned(&spec, 7), "[7,17) [2,12)");
    ck_assert_str_eq(assigned(&spec, 6), "[2,12) [-3,7)");
}
END_TEST

START_TEST(test_cumulate)
{
    WindowSpec spec = {.kind = WINDOW_CUMULATE, .size_millis = 10, .step_millis = 2};
    ck_assert_uint_eq(window_assign_max(&spec), 5);
    ck_assert_str_eq(assigned(&spec, 0), "[0,2) [0,4) [0,6) [0,8) [0,10)");
    ck_assert_str_eq(assigned(&spec, 5), "[0,6) [0,8) [0,10)");
    ck_assert_str_eq(assigned(&spec, 9), "[0,10)");
    ck_assert_str_eq(assigned(&spec, 10), "[10,12) [10,14) [10,16) [10,18) [10,20)");
    ck_assert_str_eq(assigned(&spec, -3), "[-10,-2) [-10,0)");
    spec.offset_millis = 1;
    ck_assert_str_eq(assigned(&spec, 0), "[-9,1)");
    ck_assert_str_eq(assigned(&spec, 1), "[1,3) [1,5) [1,7) [1,9) [1,11)");
}
END_TEST

START_TEST(test_validate_and_print)
{
    WindowSpec spec = {.kind = WINDOW_TUMBLE, .size_millis = 0};
    ck_assert_ptr_nonnull(window_spec_validate(&spec));
    spec.size_millis = 900000;
    ck_assert_ptr_null(window_spec_validate(&spec));
    WindowSpec cumulate = {.kind = WINDOW_CUMULATE, .size_millis = 3600000, .step_millis = 1500000};
    ck_assert_ptr_nonnull(window_spec_validate(&cumulate));
    cumulate.step_millis = 600000;
    ck_assert_ptr_null(window_spec_validate(&cumulate));
    WindowSpec hop = {.kind = WINDOW_HOP, .size_millis = 10, .slide_millis = 3};
    ck_assert_ptr_null(window_spec_validate(&hop));
    hop.slide_millis = -3;
    ck_assert_ptr_nonnull(window_spec_validate(&hop));

    StrBuf out = STRBUF_INIT;
    window_spec_append_lengths(&out, &spec, false);
    ck_assert_str_eq(strbuf_cstr(&out), "size=[15 min]");
    strbuf_clear(&out);
    window_spec_append_lengths(&out, &cumulate, true);
    ck_assert_str_eq(strbuf_cstr(&out), ", max_size=[1 h], step=[10 min]");
    strbuf_clear(&out);
    WindowSpec hop_offset = {.kind = WINDOW_HOP,
                             .size_millis = 900000,
                             .slide_millis = 60000,
                             .offset_millis = -300000,
                             .has_offset = true};
    window_spec_append_lengths(&out, &hop_offset, false);
    ck_assert_str_eq(strbuf_cstr(&out), "size=[15 min], slide=[1 min], offset=[-5 min]");
    strbuf_clear(&out);
    WindowSpec session = {.kind = WINDOW_SESSION, .gap_millis = 900000};
    window_spec_append_lengths(&out, &session, false);
    ck_assert_str_eq(strbuf_cstr(&out), "gap=[15 min]");
    strbuf_free(&out);

    WindowSpec other = spec;
    ck_assert(window_spec_equal(&spec, &other));
    other.offset_millis = 1;
    ck_assert(!window_spec_equal(&spec, &other));
    ck_assert(!window_spec_equal(&spec, &hop));
}
END_TEST

static const char *sessions_text(const SessionWindows *set)
{
    static char text[256];
    size_t used = 0;
    text[0] = '\0';
    for (uint32_t i = 0; i < set->count; i++)
        used += (size_t)snprintf(text + used, sizeof text - used, "%s[%lld,%lld)", i ? " " : "",
                                 (long long)set->windows[i].start, (long long)set->windows[i].end);
    return text;
}

START_TEST(test_session_merging)
{
    SessionWindows set = {0};
    WindowBounds result, absorbed[8];
    uint32_t absorbed_count;
    ck_assert(session_windows_add(&set, 10, 5, &result, absorbed, 8, &absorbed_count));
    ck_assert_uint_eq(absorbed_count, 0);
    ck_assert_str_eq(sessions_text(&set), "[10,15)");
    ck_assert(session_windows_add(&set, 30, 5, &result, absorbed, 8, &absorbed_count));
    ck_assert(session_windows_add(&set, 0, 5, &result, absorbed, 8, &absorbed_count));
    ck_assert_str_eq(sessions_text(&set), "[0,5) [10,15) [30,35)");
    /* inside an existing window: that window, absorbed */
    ck_assert(session_windows_add(&set, 11, 2, &result, absorbed, 8, &absorbed_count));
    ck_assert_uint_eq(absorbed_count, 1);
    ck_assert_int_eq(result.start, 10);
    ck_assert_int_eq(result.end, 15);
    /* touching ends merge (Flink's TimeWindow.intersects is inclusive) */
    ck_assert(session_windows_add(&set, 15, 5, &result, absorbed, 8, &absorbed_count));
    ck_assert_str_eq(sessions_text(&set), "[0,5) [10,20) [30,35)");
    /* a window bridging two merges all three */
    ck_assert(session_windows_add(&set, 4, 6, &result, absorbed, 8, &absorbed_count));
    ck_assert_uint_eq(absorbed_count, 2);
    ck_assert_int_eq(absorbed[0].start, 0);
    ck_assert_int_eq(absorbed[1].start, 10);
    ck_assert_str_eq(sessions_text(&set), "[0,20) [30,35)");
    ck_assert_uint_eq(session_windows_remove_ended(&set, 20), 1);
    ck_assert_str_eq(sessions_text(&set), "[30,35)");
    /* many windows grow the array */
    for (int i = 0; i < 100; i++)
        ck_assert(session_windows_add(&set, 100 + 10 * i, 3, &result, NULL, 0, &absorbed_count));
    ck_assert_uint_eq(set.count, 101);
    session_windows_free(&set);
    session_windows_free(&set);
}
END_TEST

static Suite *window_assigner_suite(void)
{
    Suite *suite = suite_create("window_assigner");
    TCase *assign = tcase_create("assign");
    tcase_add_test(assign, test_tumble);
    tcase_add_test(assign, test_hop);
    tcase_add_test(assign, test_cumulate);
    tcase_add_test(assign, test_validate_and_print);
    suite_add_tcase(suite, assign);
    TCase *session = tcase_create("session");
    tcase_add_test(session, test_session_merging);
    suite_add_tcase(suite, session);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(window_assigner_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
