/*
 * diag.c - diagnostics (see diag.h). The first recorded error wins.
 */
#include "engine/base/diag.h"

#include <stdarg.h>
#include <stdio.h>

void diag_clear(Diag *diag)
{
    diag->status = JOINERY_OK;
    diag->line = diag->column = 0;
    diag->message[0] = '\0';
}

static JoineryStatus diag_record(Diag *diag, JoineryStatus status, int line, int column,
                                 const char *format, va_list args)
{
    if (!diag || diag->status != JOINERY_OK)
        return diag ? diag->status : status;
    diag->status = status;
    diag->line = line;
    diag->column = column;
    vsnprintf(diag->message, sizeof diag->message, format, args);
    return status;
}

JoineryStatus diag_error(Diag *diag, JoineryStatus status, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    JoineryStatus result = diag_record(diag, status, 0, 0, format, args);
    va_end(args);
    return result;
}

JoineryStatus diag_error_at(Diag *diag, JoineryStatus status, int line, int column,
                            const char *format, ...)
{
    va_list args;
    va_start(args, format);
    JoineryStatus result = diag_record(diag, status, line, column, format, args);
    va_end(args);
    return result;
}

bool diag_failed(const Diag *diag)
{
    return diag->status != JOINERY_OK;
}
