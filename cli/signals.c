/*
 * signals.c - SIGINT and SIGPIPE handling for the shell (see cli.h).
 *
 * SIGINT means, depending on what the program is doing:
 * - a statement runs: joinery_session_cancel (async-signal-safe by the
 *   engine's contract); pressing it three times while the engine does not
 *   stop ends the program as SIGINT normally would;
 * - the interactive prompt waits: one byte into a self-pipe, which the shell
 *   loop polls (so the line editor is only touched outside the handler);
 * - otherwise (a script between statements): the default action.
 * SIGPIPE is ignored: a closed stdout shows up as a write error instead.
 * SIGINT is installed without SA_RESTART, so it interrupts a blocking call.
 *
 * Invariant: the handler touches only volatile sig_atomic_t flags, write(2),
 * signal(2), raise(3) and joinery_session_cancel.
 */
#include "cli/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static JoinerySession *signals_session;
static volatile sig_atomic_t signals_running;
static volatile sig_atomic_t signals_cancel_count;
static volatile sig_atomic_t signals_at_prompt;
static unsigned signals_started_count; /* main thread only */
static int signals_pipe[2] = {-1, -1};

static void signals_on_interrupt(int signal_number)
{
    int saved_errno = errno;
    if (signals_running && signals_cancel_count < 2) {
        signals_cancel_count++;
        joinery_session_cancel(signals_session);
    } else if (signals_at_prompt && !signals_running && signals_pipe[1] >= 0) {
        ssize_t written = write(signals_pipe[1], "i", 1);
        (void)written; /* a full pipe already holds a pending interrupt */
    } else {
        signal(signal_number, SIG_DFL);
        raise(signal_number);
    }
    errno = saved_errno;
}

void signals_install(JoinerySession *session)
{
    signals_session = session;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = SIG_IGN;
    sigemptyset(&action.sa_mask);
    sigaction(SIGPIPE, &action, NULL);
    /* no SA_RESTART: a call blocked when Ctrl-C comes (a write to a full pipe, a wait)
       returns EINTR, so the cancel reaches whoever waits instead of the call resuming;
       every caller that waits treats EINTR as "look again" or as a failed write */
    action.sa_handler = signals_on_interrupt;
    action.sa_flags = 0;
    sigaction(SIGINT, &action, NULL);
}

void signals_set_statement_running(bool running)
{
    if (running) {
        signals_cancel_count = 0;
        signals_started_count++;
    }
    signals_running = running ? 1 : 0;
}

unsigned signals_statements_started(void)
{
    return signals_started_count;
}

bool signals_take_cancel_request(void)
{
    bool requested = signals_cancel_count > 0;
    signals_cancel_count = 0;
    return requested;
}

int signals_set_prompt_mode(bool at_prompt)
{
    if (at_prompt && signals_pipe[0] < 0) {
        if (pipe(signals_pipe) != 0) {
            signals_pipe[0] = signals_pipe[1] = -1;
            return -1;
        }
        for (int i = 0; i < 2; i++) {
            fcntl(signals_pipe[i], F_SETFL, fcntl(signals_pipe[i], F_GETFL) | O_NONBLOCK);
            fcntl(signals_pipe[i], F_SETFD, FD_CLOEXEC);
        }
    }
    signals_at_prompt = at_prompt ? 1 : 0;
    return signals_pipe[0];
}

bool signals_take_prompt_interrupt(void)
{
    bool interrupted = false;
    char bytes[64];
    while (signals_pipe[0] >= 0 && read(signals_pipe[0], bytes, sizeof bytes) > 0) {
        interrupted = true;
    }
    return interrupted;
}
