/* SPDX-License-Identifier: GPL-2.0-or-later */
/* `vmalyze record`: capture Xen's trace buffers (record.c). */
#ifndef VMALYZE_CLI_RECORD_H
#define VMALYZE_CLI_RECORD_H

#include <signal.h>

#include "vmalyze/capture.h"

/* How the hypervisor is reached: vma_xen_tbuf_open(), or a simulation in tests. */
typedef int (*vma_tbuf_open_fn)(struct vma_diag *diag, const struct vma_tbuf_ops **ops,
				void **hv);

/*
 * vma_record_main - run `vmalyze record` with @argv (argv[0] is "record").
 * @stop: set by SIGINT/SIGTERM.
 * Return: the process exit status (enum vma_exit).
 */
int vma_record_main(int argc, char **argv, volatile sig_atomic_t *stop,
		    vma_tbuf_open_fn open_hypervisor);

#endif /* VMALYZE_CLI_RECORD_H */
