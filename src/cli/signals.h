/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Stopping on SIGINT/SIGTERM with a report of what was read. */
#ifndef VMALYZE_CLI_SIGNALS_H
#define VMALYZE_CLI_SIGNALS_H

#include <signal.h>

/*
 * vma_stop_install - catch SIGINT and SIGTERM once.
 * Return: the flag they set (to the signal's number); never NULL.
 */
volatile sig_atomic_t *vma_stop_install(void);

#endif /* VMALYZE_CLI_SIGNALS_H */
