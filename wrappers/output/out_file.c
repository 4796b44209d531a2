/*
 * out_file.c - the user's private fallback directory for output files
 * (out_file.h), made and checked on its descriptor by the safe-file
 * service (services/safe_file.c); the files themselves are written through
 * a private directory of Tally's inside the output directory (out_stage.c).
 */
#include "output/out_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output/out_host.h"
#include "tally_shared.h"

int tly_out_private_dir(char *buf, size_t len)
{
	const char *base = tly_env_raw("TMPDIR");
	int fd;

	if (!base || base[0] != '/' || access(base, W_OK | X_OK))
		base = "/tmp";
	snprintf(buf, len, "%s/tally-%ld", base, (long)geteuid());
	fd = tly_safe_own_dir(buf, 077);   /* made, then checked on its descriptor, never by name */
	if (fd == -EPERM) {
		tly_out_log(1, "%s is not a private directory of this user (a link, not a directory, another owner "
			    "or open to others); not writing there", buf);
		return -1;
	}
	if (fd < 0) {
		tly_out_log(1, "cannot create the private directory %s: %s", buf, strerror(-fd));
		return -1;
	}
	close(fd);
	return 0;
}
