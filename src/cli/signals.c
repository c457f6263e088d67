/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * SIGINT and SIGTERM end the inputs early instead of killing the program,
 * so that what was read is still reported (the summary of a pipe that
 * never ends, a capture stopped by hand).  The handlers are installed
 * without SA_RESTART, so a read blocked on a pipe returns at once; a
 * second signal kills as usual (SA_RESETHAND).
 */
#include <signal.h>
#include <stddef.h>

#include "cli/signals.h"

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
}

volatile sig_atomic_t *vma_stop_install(void)
{
	struct sigaction sa = { .sa_handler = on_stop, .sa_flags = SA_RESETHAND };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	return &stop_signal;
}
