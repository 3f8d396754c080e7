/* state_lmdb.c - placeholder until the LMDB backend lands on this branch. */
#include "engine/state/state.h"

int state_lmdb_store_open(const StateStoreConfig *config, StateStore **store, Diag *diag)
{
    (void)config;
    *store = NULL;
    return diag_error(diag, JOINERY_ERROR_UNSUPPORTED, "the LMDB state backend is not built yet");
}
