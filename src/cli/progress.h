/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The progress line of a run on stderr: inputs done of all, traces read,
 * bytes read of all, rate and time left.
 */
#ifndef VMALYZE_CLI_PROGRESS_H
#define VMALYZE_CLI_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

struct vma_progress {
	unsigned long inputs_done, inputs; /* PATHs and files found in folders */
	unsigned long traces;              /* traces analysed so far, members included */
	uint64_t bytes_done, bytes;        /* bytes of the input files read, of all */
	double seconds;                    /* since the start */
};

/*
 * vma_progress_format - the line for @p, without a line end, in at most
 * @len bytes of @buf (@len >= 1).  Rate and time left appear once a
 * rate can be told.  Return: @buf.
 */
char *vma_progress_format(char *buf, size_t len, const struct vma_progress *p);

/* Bytes in binary units: "512 B", "3.2 KiB", "1.0 GiB". */
void vma_progress_bytes(char *buf, size_t len, uint64_t bytes);

#endif /* VMALYZE_CLI_PROGRESS_H */
