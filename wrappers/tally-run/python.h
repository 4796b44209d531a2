/*
 * python.h - the Python interpreter tally-run runs tally-report's commands
 * with (python.c): for the pass merge (replay.c) and --summary
 * (tally_run.c).
 */
#ifndef TALLY_RUN_PYTHON_H
#define TALLY_RUN_PYTHON_H

/* The interpreter for tally-run's Python commands (TALLY_PYTHON, else the
 * first with h5py of the configured ones and python3 on PATH). */
const char *tly_python(void);
/* The first TLY_REPORT_ARGS words of a command line that runs tally-report
 * (the tally package installed beside tally-run) with that interpreter;
 * the caller appends the command, its arguments and NULL. */
#define TLY_REPORT_ARGS 5
int tly_report_argv(char **av);

#endif /* TALLY_RUN_PYTHON_H */
