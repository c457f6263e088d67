/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Guest symbols in a host's dump (kvm-input.h).  libtraceevent's kvm
 * plugin prints a guest rip of kvm_exit and kvm_entry, and asks the
 * program for its function through tep_plugin_kvm_get_func(), a weak
 * symbol the program may define (trace-cmd does, for `report -i HOST -i
 * GUEST`).  The hook has no argument of the program's own, so the links
 * are kept here, in one table of this file: (host event parser, vcpu
 * thread) -> guest event parser, whose kallsyms name the address.  The
 * program exports the symbol (src/cli/cli.am) so the plugin, loaded with
 * dlopen(), finds it.
 */
#include <stdlib.h>

#include <event-parse.h>

#include "input/kvm-internal.h"
#include "input/tep-lib.h"
#include "vmalyze/grow.h"
#include "vmalyze/kvm-input.h"
#include "vmalyze/status.h"

struct guest_link {
	const struct tep_handle *host;
	int pid;                   /* the host thread that runs a vcpu of... */
	struct tep_handle *guest;  /* ...this guest */
};

static struct guest_link *links;
static size_t nr_links, cap_links;

/* Called by the kvm plugin for each rip it prints; NULL leaves the rip bare. */
const char *tep_plugin_kvm_get_func(struct tep_event *event, struct tep_record *record,
				    unsigned long long *val);

const char *tep_plugin_kvm_get_func(struct tep_event *event, struct tep_record *record,
				    unsigned long long *val)
{
	int pid = vma_tep()->tep_data_pid(event->tep, record);
	const char *func;
	size_t i;

	for (i = 0; i < nr_links; i++) {
		if (links[i].host != event->tep || links[i].pid != pid)
			continue;
		func = vma_tep()->tep_find_function(links[i].guest, *val);
		if (func) {
			/* the plugin prints the offset from the function's start */
			*val = vma_tep()->tep_find_function_address(links[i].guest, *val);
		}
		return func;
	}
	return NULL;
}

bool vma_kvm_has_guest_links(const struct tep_handle *host)
{
	size_t i;

	for (i = 0; i < nr_links; i++) {
		if (links[i].host == host)
			return true;
	}
	return false;
}

int vma_kvm_link_guest(struct vma_input *host, struct vma_input *guest, const uint32_t *pids,
		       uint32_t nr_pids)
{
	struct vma_kvm_priv *h = vma_kvm_priv_of(host);
	struct vma_kvm_priv *g = vma_kvm_priv_of(guest);
	uint32_t i;

	if (!h || !g || !h->tep || !g->tep)
		return VMA_OK;
	/* the guest's kallsyms go into its parser now, not at its first dump line */
	vma_kvm_print_setup(g);
	for (i = 0; i < nr_pids; i++) {
		if (!pids[i] || pids[i] > INT32_MAX)
			continue;
		if (vma_grow(links, &cap_links, nr_links + 1, 8))
			return VMA_ERR_NOMEM;
		links[nr_links++] = (struct guest_link){ h->tep, (int)pids[i], g->tep };
	}
	return VMA_OK;
}

void vma_kvm_unlink(const struct tep_handle *tep)
{
	size_t i, kept = 0;

	for (i = 0; i < nr_links; i++) {
		if (links[i].host != tep && links[i].guest != tep)
			links[kept++] = links[i];
	}
	nr_links = kept;
	if (!nr_links) {
		free(links);
		links = NULL;
		cap_links = 0;
	}
}
