/*
 * replay.h - application replay in tally-run (docs/passes.md): the job is
 * run once per pass (TALLY_PASS_INDEX=k, one file per pass) and the files
 * are merged into one job file by `tally-report merge-passes` (the tally
 * Python package, analysis/tally/passmerge.py), which also checks
 * that every run had the same ranks, regions, visits and kernel launches.
 */
#ifndef TALLY_RUN_REPLAY_H
#define TALLY_RUN_REPLAY_H

/* `passes` is TALLY_PASSES ("auto" or a number); argv the command (the
 * preload environment already set).  Returns -1 when replay does not apply
 * here (tally-run then runs the command once), else tally-run's exit
 * status: the first failing run's, else 0. */
int tly_replay_run(const char *passes, char **argv);

#endif /* TALLY_RUN_REPLAY_H */
