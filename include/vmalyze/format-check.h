/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The event-format check of the KVM readers (src/input/format-check.c):
 * libtraceevent's format parser can crash on a damaged format text, so a
 * program that reads trace.dat files names itself here, and is run as a
 * helper process (with VMA_FORMAT_CHECK_ARG as its only argument) that
 * parses each text before the reader does.  Without it (unit tests, a
 * program that did not call vma_format_check_use()) texts are parsed
 * in-process, unchecked.
 */
#ifndef VMALYZE_FORMAT_CHECK_H
#define VMALYZE_FORMAT_CHECK_H

/* The hidden argument that makes the program the helper; not an option. */
#define VMA_FORMAT_CHECK_ARG "--internal-format-check"

/*
 * vma_format_check_use - check formats with @exe (a path execve() takes,
 * e.g. "/proc/self/exe"; NULL: stop checking).  Thread-safe.
 * Return: VMA_OK or VMA_ERR_NOMEM.
 */
int vma_format_check_use(const char *exe);

/* vma_format_check_end - stop the helper, if one runs.  Before exit. */
void vma_format_check_end(void);

/*
 * vma_format_check_serve - be the helper: serve requests on standard input
 * and output until the end of input.  Return: the exit status.
 */
int vma_format_check_serve(void);

#endif /* VMALYZE_FORMAT_CHECK_H */
