/* SPDX-License-Identifier: GPL-2.0-or-later */
/* `vmalyze record`: capture Xen's trace buffers (record.c). */
#ifndef VMALYZE_CLI_RECORD_H
#define VMALYZE_CLI_RECORD_H

#include <signal.h>

/*
 * vma_record_main - run `vmalyze record` with @argv (argv[0] is "record").
 * @stop: set by SIGINT/SIGTERM.
 * Return: the process exit status (enum vma_exit).
 */
int vma_record_main(int argc, char **argv, volatile sig_atomic_t *stop);

#endif /* VMALYZE_CLI_RECORD_H */
