/*
 * fuzz_prelude.h - the tables every statement fuzz target and the
 * statement generator plan against: a session holding them, and their
 * names and columns for the generator.
 *
 * The prelude reads sample-data/ and tests/sql/data/ by relative paths:
 * fuzz programs run from the repository root (scripts/run-fuzz.sh does).
 */
#ifndef JOINERY_FUZZ_PRELUDE_H
#define JOINERY_FUZZ_PRELUDE_H

#include <stdbool.h>
#include <stddef.h>

#include "engine/engine.h"

typedef enum FuzzColumnClass {
    FUZZ_INTEGER,  /* TINYINT .. BIGINT */
    FUZZ_DECIMAL,  /* DECIMAL, FLOAT, DOUBLE */
    FUZZ_STRING,   /* CHAR, VARCHAR, STRING */
    FUZZ_BOOLEAN,  /* BOOLEAN */
    FUZZ_TEMPORAL, /* TIMESTAMP(3), with or without a rowtime */
    FUZZ_DATE,     /* DATE */
    FUZZ_OTHER,    /* BYTES, TIME, MAP: only projected or compared with IS NULL */
} FuzzColumnClass;

typedef struct FuzzColumn {
    const char *name;
    FuzzColumnClass kind;
} FuzzColumn;

typedef struct FuzzTable {
    const char *name;
    bool is_source; /* can be read (a sink-only table cannot) */
    bool is_sink;   /* can be written by INSERT */
    bool rowtime;   /* its first temporal column is a rowtime attribute */
    const FuzzColumn *columns;
    size_t column_count;
} FuzzTable;

/* The prelude's tables and views, in creation order. */
extern const FuzzTable FUZZ_TABLES[];
extern const size_t FUZZ_TABLE_COUNT;

/* A session with the prelude executed. Aborts when the prelude fails (a harness bug). */
JoinerySession *fuzz_session_open(void);

/* Result handler that discards everything (results, plans, messages). */
JoineryResultHandler fuzz_quiet_handler(void);

#endif
