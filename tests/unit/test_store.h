/*
 * test_store.h - the state store of an operator test: of the run's default
 * backend (state_backend_default: JOINERY_STATE_BACKEND=lmdb makes every
 * operator suite run on LMDB), in a temporary folder. Header-only.
 */
#ifndef JOINERY_TESTS_TEST_STORE_H
#define JOINERY_TESTS_TEST_STORE_H

#include <check.h>

#include "engine/state/state.h"

/* Opens a store of `backend`; fails the test when it cannot. */
static inline StateStore *test_store_open_backend(StateBackendKind backend)
{
    Diag diag;
    diag_clear(&diag);
    StateStoreConfig config = {backend, NULL, NULL};
    StateStore *store = NULL;
    int status = state_store_open(&config, &store, &diag);
    ck_assert_msg(status == JOINERY_OK, "state store: %s", diag.message);
    return store;
}

/* Opens a store of the run's default backend; fails the test when it cannot. */
static inline StateStore *test_store_open(void)
{
    return test_store_open_backend(state_backend_default());
}

/* Ends the unit of work, as the task loop does after each batch. */
static inline void test_store_commit(StateStore *store)
{
    if (!store)
        return;
    Diag diag;
    diag_clear(&diag);
    ck_assert_msg(state_store_commit(store, &diag) == JOINERY_OK, "commit: %s", diag.message);
}

#endif
