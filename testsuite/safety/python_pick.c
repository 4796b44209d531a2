/*
 * python_pick.c - tally-run's choice of Python (wrappers/tally-run/python.c)
 * built with a configured interpreter that does not exist, so that PATH
 * decides (run_found_paths.sh): prints the interpreter chosen.
 */
#include <stdio.h>

#include "tally-run/python.h"

int main(void)
{
	puts(tly_python());
	return 0;
}
