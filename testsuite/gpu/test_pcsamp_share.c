/*
 * test_pcsamp_share.c - one sampling process per GPU (no GPU needed): the
 * first process to claim a GPU key holds it, another process is told the
 * owner's pid, a claim is released when its owner exits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tharness.h"
#include "th_file.h"
#include "components/cuda/pcsamp/cuda_pcsamp_internal.h"

static const char *self;

/* Another process (exec'ed: it inherits no claims) claims key; 0 when
 * the result is `expect` and, when refused, the owner is `owner`. */
static int child_claims(const char *key, int expect, long owner)
{
	char e[16], o[32];
	pid_t p;
	int st = 0;

	snprintf(e, sizeof e, "%d", expect);
	snprintf(o, sizeof o, "%ld", owner);
	p = fork();
	if (p == 0) {
		execl(self, self, "claim", key, e, o, (char *)NULL);
		_exit(3);
	}
	waitpid(p, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 2;
}

static int claim_main(char **argv)
{
	long o = 0;
	int rc = tly_pcs_gpu_claim(argv[2], &o);

	printf("child %ld: claim %s: %d, owner %ld\n", (long)getpid(), argv[2], rc, o);
	return rc == atoi(argv[3]) && (rc == 0 || o == atol(argv[4])) ? 0 : 1;
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/tally-share-XXXXXX";
	long owner = 0;

	self = argv[0];
	if (argc == 5 && !strcmp(argv[1], "claim"))
		return claim_main(argv);
	TH_CHECK(mkdtemp(dir) != NULL);
	setenv("TMPDIR", dir, 1);
	TH_EQ(tly_pcs_gpu_claim("0000-1b-00", &owner), 0);
	TH_EQ(owner, (long)getpid());
	TH_EQ(tly_pcs_gpu_claim("0000-1b-00", &owner), 0);   /* ours already */
	/* Another process: refused, told our pid. */
	TH_EQ(child_claims("0000-1b-00", -1, (long)getpid()), 0);
	/* A different GPU is free for it; its claim ends with it. */
	TH_EQ(child_claims("0000-2c-00", 0, 0), 0);
	TH_EQ(tly_pcs_gpu_claim("0000-2c-00", &owner), 0);
	TH_EQ(owner, (long)getpid());
	TH_EQ(th_rm_tree(dir), 0);
	return th_done();
}
