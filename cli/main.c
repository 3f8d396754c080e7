/*
 * main.c - joinery's entry point: command-line arguments, then init scripts,
 * then -f/-e actions, the interactive shell (stdin is a terminal) or piped
 * stdin as a script.
 *
 * Exit codes: 0 when every statement succeeded (the interactive shell: when
 * the user left it); 1 when one failed (also with --continue-on-error), a
 * script could not be read or stdout broke; 2 for bad arguments; 130 after an
 * interrupt stopped a script.
 *
 * Invariant: nothing heavy happens before the prompt: the session opens
 * empty and history and completion are set up lazily or cheaply.
 */
#include "cli/cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef enum MainActionKind {
    MAIN_ACTION_FILE,
    MAIN_ACTION_TEXT,
} MainActionKind;

typedef struct MainAction {
    MainActionKind kind;
    const char *argument;
} MainAction;

static void main_print_usage(FILE *out)
{
    fputs("Usage: joinery [options]\n"
          "\n"
          "A streaming-SQL shell speaking the Apache Flink SQL dialect.\n"
          "Without -f or -e, reads statements from the terminal (interactive shell)\n"
          "or from standard input when it is not a terminal.\n"
          "\n"
          "Options:\n"
          "  -f, --file FILE          run the statements of FILE, then exit; stops at the\n"
          "                           first failing statement (exit code 1)\n"
          "  -e, --execute SQL        run the given statements, then exit\n"
          "  -i, --init FILE          run FILE first (e.g. CREATE TABLE and SET statements)\n"
          "      --output FORMAT      result format: tableau (default), table, changelog, csv or\n"
          "                           json (table and changelog: a full-screen view in a\n"
          "                           terminal, tableau otherwise); in a session:\n"
          "                           SET 'sql-client.execution.result-mode' = 'csv';\n"
          "      --continue-on-error  keep running after a failing statement (exit code 1)\n"
          "      --progress           show job progress on stderr when running scripts\n"
          "      --no-wait            at the end of -f / -e, cancel the background jobs\n"
          "                           (SET 'table.dml-sync' = 'false') instead of waiting\n"
          "                           for them to finish\n"
          "  -h, --help               show this help\n"
          "      --version            show the version\n"
          "\n"
          "Statements end with ';'. In the shell: HELP; lists statements, QUIT; or Ctrl-D\n"
          "leaves, Ctrl-C stops a running query. History: ~/.joinery_history.\n",
          out);
}

enum {
    MAIN_OPTION_OUTPUT = 256,
    MAIN_OPTION_CONTINUE,
    MAIN_OPTION_PROGRESS,
    MAIN_OPTION_VERSION,
    MAIN_OPTION_NO_WAIT,
};

/* Returns -1 on bad arguments, 1 when the program is done (help, version), else 0. */
static int main_parse_arguments(int argc, char **argv, Cli *cli, MainAction *actions,
                                size_t *action_count, const char **init_files, size_t *init_count,
                                const char **output_name)
{
    static const struct option OPTIONS[] = {
        {"file", required_argument, NULL, 'f'},
        {"execute", required_argument, NULL, 'e'},
        {"init", required_argument, NULL, 'i'},
        {"output", required_argument, NULL, MAIN_OPTION_OUTPUT},
        {"continue-on-error", no_argument, NULL, MAIN_OPTION_CONTINUE},
        {"progress", no_argument, NULL, MAIN_OPTION_PROGRESS},
        {"no-wait", no_argument, NULL, MAIN_OPTION_NO_WAIT},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, MAIN_OPTION_VERSION},
        {NULL, 0, NULL, 0},
    };
    int option;
    opterr = 0;
    while ((option = getopt_long(argc, argv, ":f:e:i:h", OPTIONS, NULL)) != -1) {
        switch (option) {
        case 'f':
        case 'e':
            actions[(*action_count)++] =
                (MainAction){option == 'f' ? MAIN_ACTION_FILE : MAIN_ACTION_TEXT, optarg};
            break;
        case 'i':
            init_files[(*init_count)++] = optarg;
            break;
        case MAIN_OPTION_OUTPUT:
            if (!render_parse_format(optarg, &cli->default_format)) {
                fprintf(stderr,
                        "joinery: unknown output format '%s' (tableau, table, changelog, csv or "
                        "json)\n",
                        optarg);
                return -1;
            }
            *output_name = optarg;
            break;
        case MAIN_OPTION_CONTINUE:
            cli->continue_on_error = true;
            break;
        case MAIN_OPTION_PROGRESS:
            cli->show_progress = true;
            break;
        case MAIN_OPTION_NO_WAIT:
            cli->no_wait = true;
            break;
        case 'h':
            main_print_usage(stdout);
            return 1;
        case MAIN_OPTION_VERSION:
            printf("joinery %s\n", CLI_VERSION);
            return 1;
        case ':':
            fprintf(stderr, "joinery: option '%s' needs an argument\n", argv[optind - 1]);
            return -1;
        default:
            fprintf(stderr, "joinery: unknown option '%s'\n", argv[optind - 1]);
            return -1;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "joinery: unexpected argument '%s'\n", argv[optind]);
        return -1;
    }
    return 0;
}

/* Makes --output the session's result mode; remembers a value the engine refused. */
static void main_apply_output(Cli *cli, const char *output_name)
{
    char statement[128];
    snprintf(statement, sizeof statement, "SET '%s' = '%s';", CLI_RESULT_MODE_KEY, output_name);
    if (cli_execute_quietly(cli, statement) == 0) {
        return;
    }
    const char *value = joinery_session_get_option(cli->session, CLI_RESULT_MODE_KEY);
    if (value != NULL) {
        cli->ignored_mode_value = strdup(value);
    }
}

/* A background job that ended while the scripts' end waited for it. */
static void main_report_job(void *context, const char *line)
{
    (void)context;
    printf("[INFO] %s\n", line);
    fflush(stdout);
}

/*
 * Background jobs still running when the scripts end: waited for (Ctrl-C
 * cancels them), unless --no-wait; the shell's QUIT / Ctrl-D cancels them
 * (they run in this process, which is ending), saying so.
 */
static void main_end_jobs(Cli *cli)
{
    /* a BEGIN STATEMENT SET the input never ended: its INSERTs did not run (a script fails) */
    size_t unsubmitted = 0;
    if (joinery_session_statement_set_open(cli->session, &unsubmitted)) {
        fflush(stdout);
        fprintf(stderr,
                "[ERROR] The statement set begun with BEGIN STATEMENT SET was never ended with "
                "END; its %zu INSERT statement%s %s not submitted.\n",
                unsubmitted, unsubmitted == 1 ? "" : "s", unsubmitted == 1 ? "was" : "were");
        if (!cli->interactive)
            cli->failed = true;
    }
    size_t running = joinery_session_running_jobs(cli->session);
    if (cli->interactive || cli->no_wait || cli->interrupted) {
        if (running > 0) {
            printf("[INFO] Cancelling %zu running job%s.\n", running, running == 1 ? "" : "s");
            fflush(stdout);
            joinery_session_cancel_jobs(cli->session);
        }
        return;
    }
    /* every background job's end is said, also of one that ended while later statements
       ran: the output does not depend on how fast the jobs were */
    signals_set_statement_running(true);
    joinery_session_wait_jobs(cli->session, main_report_job, NULL);
    signals_set_statement_running(false);
}

int main(int argc, char **argv)
{
    Cli cli;
    memset(&cli, 0, sizeof cli);
    cli.default_format = CLI_OUTPUT_TABLEAU;
    size_t capacity = (size_t)argc + 1;
    MainAction *actions = calloc(capacity, sizeof *actions);
    const char **init_files = calloc(capacity, sizeof *init_files);
    if (actions == NULL || init_files == NULL) {
        fputs("joinery: out of memory\n", stderr);
        return 1;
    }
    size_t action_count = 0;
    size_t init_count = 0;
    const char *output_name = NULL;
    int parsed = main_parse_arguments(argc, argv, &cli, actions, &action_count, init_files,
                                      &init_count, &output_name);
    if (parsed != 0) {
        free(actions);
        free(init_files);
        if (parsed < 0) {
            fputs("Try 'joinery --help'.\n", stderr);
            return 2;
        }
        return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
    }

    cli.session = joinery_session_open();
    if (cli.session == NULL) {
        fputs("joinery: cannot open a session (out of memory)\n", stderr);
        free(actions);
        free(init_files);
        return 1;
    }
    signals_install(cli.session);
    if (output_name != NULL) {
        main_apply_output(&cli, output_name);
    }

    int status = 0;
    for (size_t i = 0; i < init_count && status == 0; i++) {
        status = script_run_file(&cli, init_files[i]);
    }
    if (status == 0 && !cli.quit) {
        if (action_count > 0) {
            for (size_t i = 0; i < action_count && status == 0 && !cli.quit; i++) {
                status = actions[i].kind == MAIN_ACTION_FILE
                             ? script_run_file(&cli, actions[i].argument)
                             : script_run_text(&cli, actions[i].argument);
            }
        } else if (isatty(STDIN_FILENO) == 1) {
            cli.interactive = true;
            shell_run(&cli);
            cli.failed = false; /* errors were shown; leaving the shell is a success */
        } else {
            script_run_stream(&cli, stdin);
        }
    }

    main_end_jobs(&cli);
    joinery_session_close(cli.session);
    free(cli.ignored_mode_value);
    free(actions);
    free(init_files);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        cli.output_failed = true;
    }
    if (cli.interrupted) {
        return 130;
    }
    return cli.failed || cli.output_failed ? 1 : 0;
}
