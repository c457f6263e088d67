/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which of the traces given together are one system (pipeline.h): a host
 * trace.dat whose GUEST option names another file's TRACEID is linked to
 * it, as `trace-cmd record -A` writes them.  Everything else stays a trace
 * of its own.  The files' headers are read once more here, quietly; their
 * records are not.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "vmalyze/diag.h"
#include "vmalyze/kvm-input.h"
#include "vmalyze/pipeline.h"
#include "vmalyze/status.h"

static int no_stream(void *arg, struct vma_stream *stream)
{
	(void)arg;
	(void)stream;
	return VMA_OK;
}

/* The ids a file has, or zeros when it is not a trace.dat or cannot be read. */
struct ids {
	uint64_t trace_id;
	uint64_t *guests;   /* owned: the GUEST options' trace ids */
	uint32_t nr_guests;
};

static int read_ids(const char *path, const struct vma_input_options *inopts, struct ids *ids)
{
	struct vma_diag *quiet = vma_diag_create(VMA_LVL_MAX_TOLERABLE, VMA_VERB_QUIET);
	const struct vma_kvm_file_info *info;
	struct vma_input *in = NULL;
	struct stat st;
	uint32_t g;
	int rc = VMA_OK;

	if (!quiet)
		return VMA_ERR_NOMEM;
	/*
	 * Standard input, a pipe or a FIFO can be read once only: it is never
	 * linked, nor opened here (a FIFO's bytes read here were lost to its
	 * run, and its open waited for a writer that had gone: -a with two
	 * FIFOs hung).  Only a trace.dat names trace ids: any other file (a
	 * large xentrace, an archive, a folder) is not opened here at all.
	 */
	if ((path[0] == '-' && !path[1]) || stat(path, &st) < 0 || !S_ISREG(st.st_mode) ||
	    !vma_kvm_is_tracedat(path)) {
		vma_diag_destroy(quiet);
		return VMA_OK;
	}
	if (vma_input_open(path, inopts, quiet, no_stream, NULL, &in) == VMA_OK &&
	    (info = vma_kvm_file_info(in))) {
		ids->trace_id = info->trace_id;
		if (info->nr_guests) {
			ids->guests = calloc(info->nr_guests, sizeof(*ids->guests));
			if (!ids->guests)
				rc = VMA_ERR_NOMEM;
			for (g = 0; ids->guests && g < info->nr_guests; g++)
				ids->guests[g] = info->guests[g].trace_id;
			ids->nr_guests = ids->guests ? info->nr_guests : 0;
		}
	}
	vma_input_close(in);
	vma_diag_destroy(quiet);
	return rc;
}

static bool names_guest(const struct ids *host, uint64_t trace_id)
{
	uint32_t g;

	for (g = 0; trace_id && g < host->nr_guests; g++) {
		if (host->guests[g] == trace_id)
			return true;
	}
	return false;
}

int vma_link_traces(const char *const *paths, uint32_t nr, const struct vma_input_options *inopts,
		    const bool *by_hand, uint32_t *host_of)
{
	struct ids *ids = calloc(nr ? nr : 1, sizeof(*ids));
	uint32_t i, h;
	int rc = ids ? VMA_OK : VMA_ERR_NOMEM;

	for (i = 0; i < nr; i++)
		host_of[i] = i;
	for (i = 0; i < nr && rc == VMA_OK && nr > 1; i++)
		rc = read_ids(paths[i], inopts, &ids[i]);
	for (i = 0; i < nr && rc == VMA_OK; i++) {
		for (h = 0; h < nr; h++) {
			/* a host is never itself a guest here: one level, as trace-cmd */
			if (h != i && host_of[h] == h && ids[h].nr_guests &&
			    names_guest(&ids[h], ids[i].trace_id) && !ids[i].nr_guests) {
				host_of[i] = h;
				break;
			}
		}
	}
	/* clocks mapped by hand join the first trace whose clock is its own */
	for (h = 0; by_hand && h < nr && (by_hand[h] || host_of[h] != h); h++)
		;
	for (i = 0; by_hand && h < nr && i < nr && rc == VMA_OK; i++) {
		if (by_hand[i] && host_of[i] == i)
			host_of[i] = h;
	}
	for (i = 0; ids && i < nr; i++)
		free(ids[i].guests);
	free(ids);
	return rc;
}
