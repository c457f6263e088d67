/* SPDX-License-Identifier: GPL-2.0-or-later */
/* `vmalyze record`: capture Xen's trace buffers (record.c). */
#ifndef VMALYZE_CLI_RECORD_H
#define VMALYZE_CLI_RECORD_H

#include <signal.h>
#include <stdint.h>

#include "vmalyze/capture.h"

#include "vmalyze/diag.h"

/*
 * vma_record_main - run `vmalyze record` with @argv (argv[0] is "record").
 * @stop: set by SIGINT/SIGTERM.
 * Return: the process exit status (enum vma_exit).
 */
int vma_record_main(int argc, char **argv, volatile sig_atomic_t *stop,
		    vma_tbuf_open_fn open_hypervisor);

/*
 * vma_record_default_hz - the --cpu-hz of an analysis that was not given
 * one: the TSC frequency of the Xen host it runs on (reached with @open,
 * vma_xen_host_open()), else VMA_DEFAULT_CPU_HZ.  At -v one line says which.
 */
uint64_t vma_record_default_hz(enum vma_verbosity verbosity, vma_tbuf_open_fn open);

#endif /* VMALYZE_CLI_RECORD_H */
