/*
 * line_editor.h - includes the line-editing library the build selected:
 * GNU readline (-DJOINERY_USE_READLINE) or BSD editline
 * (-DJOINERY_USE_EDITLINE), both through the readline-compatible API.
 */
#ifndef JOINERY_CLI_LINE_EDITOR_H
#define JOINERY_CLI_LINE_EDITOR_H

#include <stdio.h>

#if defined(JOINERY_USE_READLINE)
#include <readline/history.h>
#include <readline/readline.h>
#elif defined(JOINERY_USE_EDITLINE)
#include <editline/readline.h>
#else
#error "build cli/ with -DJOINERY_USE_READLINE or -DJOINERY_USE_EDITLINE"
#endif

#endif
