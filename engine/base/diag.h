/*
 * diag.h - the diagnostic that travels with a failing status code.
 *
 * Every fallible engine function returns a JoineryStatus (0 = JOINERY_OK) and,
 * on failure, fills the caller's Diag with a message and, for errors tied to
 * the statement text, the 1-based line and column of the offending token.
 * The first error wins: diag_error does not overwrite an error already set,
 * so low-level causes are not replaced by vaguer messages further up.
 */
#ifndef JOINERY_BASE_DIAG_H
#define JOINERY_BASE_DIAG_H

#include <stdbool.h>

typedef enum JoineryStatus {
    JOINERY_OK = 0,
    JOINERY_ERROR = -1,             /* generic failure, see the message */
    JOINERY_ERROR_PARSE = -2,       /* statement text does not parse */
    JOINERY_ERROR_VALIDATE = -3,    /* names, types, options */
    JOINERY_ERROR_UNSUPPORTED = -4, /* recognised but not supported yet */
    JOINERY_ERROR_RUNTIME = -5,     /* a running job failed (bad record, I/O) */
    JOINERY_ERROR_NO_MEMORY = -6,
    JOINERY_CANCELLED = -7, /* the user cancelled (Ctrl-C) */
} JoineryStatus;

enum { DIAG_MESSAGE_MAX = 2048 };

typedef struct Diag {
    JoineryStatus status;
    int line;   /* 1-based; 0 when the error has no position */
    int column; /* 1-based; 0 when the error has no position */
    char message[DIAG_MESSAGE_MAX];
} Diag;

/* Clears the diagnostic (status JOINERY_OK, empty message). */
void diag_clear(Diag *diag);
/* Records an error without position unless one is set already; returns status. */
JoineryStatus diag_error(Diag *diag, JoineryStatus status, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
/* Records an error at line:column unless one is set already; returns status. */
JoineryStatus diag_error_at(Diag *diag, JoineryStatus status, int line, int column,
                            const char *format, ...) __attribute__((format(printf, 5, 6)));
/* True when an error has been recorded. */
bool diag_failed(const Diag *diag);

#endif
