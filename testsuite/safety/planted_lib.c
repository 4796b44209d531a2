/*
 * planted_lib.c - a library someone else planted where Tally must not
 * look (run_found_paths.sh): loading it creates $PLANTED_MARKER.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((constructor)) static void planted(void)
{
	const char *m = getenv("PLANTED_MARKER");
	int fd = m ? open(m, O_WRONLY | O_CREAT, 0644) : -1;

	if (fd >= 0)
		close(fd);
}
