/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Status codes shared by every stage, and the process exit statuses that
 * main() derives from them.  Functions return 0 (VMA_OK), VMA_END for "no
 * more", or a negative VMA_ERR_*.
 */
#ifndef VMALYZE_STATUS_H
#define VMALYZE_STATUS_H

enum vma_status {
	VMA_OK = 0,
	VMA_END = 1,           /* stream exhausted: not an error */
	VMA_PAUSED = 2,        /* streamed input: no record now, not over (input.h) */
	VMA_ERR_IO = -1,       /* the input cannot be opened or read */
	VMA_ERR_FORMAT = -2,   /* not a trace this program reads, or empty */
	VMA_ERR_DAMAGED = -3,  /* damage above --tolerance: input abandoned */
	VMA_ERR_NOMEM = -4,    /* allocation failed */
	VMA_ERR_USAGE = -5,    /* bad option or argument */
	VMA_ERR_OUTPUT = -6,   /* writing the output failed */
};

/* Exit statuses of the vmalyze program (documented in vmalyze(1)). */
enum vma_exit {
	VMA_EXIT_OK = 0,        /* every input read cleanly */
	VMA_EXIT_USAGE = 1,     /* bad command line */
	VMA_EXIT_UNREADABLE = 2,/* an input could not be read at all, or is empty or not a trace */
	VMA_EXIT_TOLERATED = 3, /* damage was found and skipped within --tolerance */
	VMA_EXIT_STOPPED = 4,   /* damage above --tolerance stopped an input early */
	VMA_EXIT_SYSTEM = 5,    /* out of memory, or the output could not be written */
};

const char *vma_status_str(int status);

#endif /* VMALYZE_STATUS_H */
