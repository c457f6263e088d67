/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests that run vmalyze on a trace from the project's writer: the trace
 * written to a temporary file.
 */
#ifndef VMALYZE_TEST_XTW_FILE_H
#define VMALYZE_TEST_XTW_FILE_H

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xtwriter.h"

/*
 * Finish @w's trace and write it to a new temporary file made from
 * @template ("/tmp/NAME-XXXXXX"), whose name goes into @path (room for
 * the template); @w is freed.  The caller unlinks the file.
 */
static inline void xtw_to_temp_file(struct vma_xtw *w, const char *template, char *path)
{
	const unsigned char *data;
	size_t len;
	int fd;

	cr_assert_eq(vma_xtw_finish(w), 0);
	data = vma_xtw_data(w, &len);
	strcpy(path, template);
	fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, data, len), (ssize_t)len);
	close(fd);
	vma_xtw_free(w);
}

#endif /* VMALYZE_TEST_XTW_FILE_H */
