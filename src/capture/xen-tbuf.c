/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The real hypervisor behind struct vma_tbuf_ops: libxenctrl for the
 * trace-buffer controls and the host's description (xc_physinfo),
 * libxenforeignmemory to map Xen's pages (DOMID_XEN), libxenevtchn for
 * VIRQ_TBUF, which Xen raises when a buffer is getting full.
 *
 * Before touching libxenctrl, the environment is checked so that a host
 * without Xen, a guest or an unprivileged user gets one line saying which
 * (vmalyze record), or nothing and no delay (the analysis's --cpu-hz default).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <xentoollog.h>

#include "capture/xen-lib.h"
#include "vmalyze/capture.h"
#include "vmalyze/diag.h"
#include "vmalyze/status.h"

struct xen_hv {
	const struct vma_xenlib *x; /* the libraries' functions (xen-lib.h) */
	xentoollog_logger_stdiostream *log;
	xc_interface *xch;
	xenforeignmemory_handle *fmem;
	xenevtchn_handle *xce;
	xenevtchn_port_or_error_t port;
	uint32_t nr_cpus, cpu_khz;
};

static uint32_t hv_nr_cpus(void *arg)
{
	return ((struct xen_hv *)arg)->nr_cpus;
}

static uint32_t hv_cpu_khz(void *arg)
{
	return ((struct xen_hv *)arg)->cpu_khz;
}

static int neg_errno(int rc)
{
	return rc ? -(errno ? errno : EIO) : 0;
}

static int hv_set_size(void *arg, uint32_t pages)
{
	struct xen_hv *hv = arg;

	return neg_errno(hv->x->xc_tbuf_set_size(hv->xch, pages));
}

static int hv_set_evt_mask(void *arg, uint32_t mask)
{
	struct xen_hv *hv = arg;

	return neg_errno(hv->x->xc_tbuf_set_evt_mask(hv->xch, mask));
}

static int hv_set_cpu_mask(void *arg, const uint8_t *mask, uint32_t nr_cpus)
{
	struct xen_hv *hv = arg;
	xc_cpumap_t map = hv->x->xc_cpumap_alloc(hv->xch);
	int size = hv->x->xc_get_cpumap_size(hv->xch), rc;
	uint32_t bytes = (nr_cpus + 7) / 8;

	if (!map || size <= 0) {
		free(map);
		return -ENOMEM;
	}
	memcpy(map, mask, bytes < (uint32_t)size ? bytes : (uint32_t)size);
	rc = neg_errno(hv->x->xc_tbuf_set_cpu_mask(hv->xch, map));
	free(map);
	return rc;
}

static int hv_enable(void *arg, uint32_t pages, uint64_t *tinfo_mfn, uint64_t *tinfo_bytes)
{
	struct xen_hv *hv = arg;
	unsigned long mfn = 0, size = 0;
	int rc = neg_errno(hv->x->xc_tbuf_enable(hv->xch, pages, &mfn, &size));

	*tinfo_mfn = mfn;
	*tinfo_bytes = size;
	return rc;
}

static int hv_disable(void *arg)
{
	struct xen_hv *hv = arg;

	return neg_errno(hv->x->xc_tbuf_disable(hv->xch));
}

static void *hv_map(void *arg, const uint64_t *mfns, uint32_t nr, bool writable)
{
	struct xen_hv *hv = arg;
	xen_pfn_t *pfns = calloc(nr, sizeof(*pfns));
	int prot = writable ? PROT_READ | PROT_WRITE : PROT_READ;
	void *p;
	uint32_t i;

	if (!pfns)
		return NULL;
	for (i = 0; i < nr; i++)
		pfns[i] = (xen_pfn_t)mfns[i];
	p = hv->x->xenforeignmemory_map(hv->fmem, DOMID_XEN, prot, nr, pfns, NULL);
	free(pfns);
	return p;
}

static void hv_unmap(void *arg, void *addr, uint32_t nr)
{
	struct xen_hv *hv = arg;

	hv->x->xenforeignmemory_unmap(hv->fmem, addr, nr);
}

static int hv_wait(void *arg, int timeout_ms)
{
	struct xen_hv *hv = arg;
	struct pollfd p = { .fd = hv->x->xenevtchn_fd(hv->xce), .events = POLLIN };
	xenevtchn_port_or_error_t port;
	int rc = poll(&p, 1, timeout_ms);

	if (rc < 0)
		return errno == EINTR ? 0 : -errno;
	if (rc == 0)
		return 0;
	port = hv->x->xenevtchn_pending(hv->xce);
	if (port >= 0)
		hv->x->xenevtchn_unmask(hv->xce, (evtchn_port_t)port);
	return 1;
}

static void hv_close(void *arg)
{
	struct xen_hv *hv = arg;

	if (hv->xce) {
		if (hv->port >= 0)
			hv->x->xenevtchn_unbind(hv->xce, (evtchn_port_t)hv->port);
		hv->x->xenevtchn_close(hv->xce);
	}
	if (hv->fmem)
		hv->x->xenforeignmemory_close(hv->fmem);
	if (hv->xch)
		hv->x->xc_interface_close(hv->xch);
	xtl_logger_destroy((xentoollog_logger *)hv->log);
	free(hv);
}

static const struct vma_tbuf_ops xen_ops = {
	.nr_cpus = hv_nr_cpus,
	.cpu_khz = hv_cpu_khz,
	.set_size = hv_set_size,
	.set_evt_mask = hv_set_evt_mask,
	.set_cpu_mask = hv_set_cpu_mask,
	.enable = hv_enable,
	.disable = hv_disable,
	.map = hv_map,
	.unmap = hv_unmap,
	.wait = hv_wait,
	.close = hv_close,
};

/* Only the host's description (vma_xen_host_open()): no buffer calls. */
static const struct vma_tbuf_ops host_ops = {
	.nr_cpus = hv_nr_cpus,
	.cpu_khz = hv_cpu_khz,
	.close = hv_close,
};

/*
 * Why this process cannot use Xen's hypervisor interface, or NULL when it
 * may; *advice completes the sentence for vmalyze record.  Cheap: a host
 * without Xen costs two access() calls, and libxenctrl is not touched.
 */
static const char *environment_problem(const char **advice)
{
	char caps[256] = "";
	FILE *f;

	if (access("/dev/xen/privcmd", F_OK) && access("/proc/xen/privcmd", F_OK)) {
		*advice = " (vmalyze record runs in a Xen dom0)";
		return "Not running on Xen: there is no /dev/xen/privcmd";
	}
	f = fopen("/proc/xen/capabilities", "r");
	if (f) {
		size_t n = fread(caps, 1, sizeof(caps) - 1, f);

		caps[n] = '\0';
		fclose(f);
		if (!strstr(caps, "control_d")) {
			*advice = "; record from dom0";
			return "Not dom0: this Xen domain has no control_d capability "
			       "(/proc/xen/capabilities)";
		}
	}
	if (access("/dev/xen/privcmd", R_OK | W_OK) && access("/proc/xen/privcmd", R_OK | W_OK)) {
		*advice = ": run vmalyze record as root in dom0";
		return "No permission to use /dev/xen/privcmd";
	}
	return NULL;
}

/*
 * libxenctrl and the host's description (xc_physinfo).  Return: VMA_OK
 * with *out set, VMA_ERR_NOMEM, or VMA_ERR_IO with *why (and *advice, *err:
 * an errno value or 0) saying what stopped it; nothing is printed.
 */
static int open_host(struct xen_hv **out, const char **why, const char **advice, int *err)
{
	struct xen_hv *hv;
	xc_physinfo_t info = { 0 };
	const char *failure;

	*advice = "";
	*err = 0;
	*why = environment_problem(advice);
	if (*why)
		return VMA_ERR_IO;
	hv = calloc(1, sizeof(*hv));
	if (!hv)
		return VMA_ERR_NOMEM;
	hv->port = -1;
	hv->x = vma_xenlib_get(&failure);
	if (!hv->x) {
		/* a dom0 without the libraries' runtime packages */
		*why = failure;
		*advice = " (Debian's libxenmisc, libxenforeignmemory1 and libxenevtchn1)";
		free(hv);
		return VMA_ERR_IO;
	}
	/* libxenctrl's own messages only when critical: ours name the step. */
	hv->log = xtl_createlogger_stdiostream(stderr, XTL_CRITICAL, 0);
	hv->xch = hv->x->xc_interface_open((xentoollog_logger *)hv->log, NULL, 0);
	if (!hv->xch) {
		*err = errno;
		*why = *err == EACCES || *err == EPERM
			       ? "No permission to open the hypervisor interface (run as root in "
				 "dom0)"
			       : "Cannot open the hypervisor interface (libxenctrl)";
		hv_close(hv);
		return VMA_ERR_IO;
	}
	if (hv->x->xc_physinfo(hv->xch, &info)) {
		*err = errno;
		*why = "xc_physinfo failed (not dom0?)";
		hv_close(hv);
		return VMA_ERR_IO;
	}
	hv->nr_cpus = info.max_cpu_id + 1;
	hv->cpu_khz = info.cpu_khz;
	*out = hv;
	return VMA_OK;
}

static int refuse(struct vma_diag *diag, const char *why, const char *advice, int err)
{
	if (err) {
		vma_diag_report(diag, VMA_LVL_INPUT, NULL, UINT64_MAX, "%s%s: %s", why, advice,
				strerror(err));
	} else {
		vma_diag_report(diag, VMA_LVL_INPUT, NULL, UINT64_MAX, "%s%s", why, advice);
	}
	return VMA_ERR_IO;
}

int vma_xen_host_open(struct vma_diag *diag, const struct vma_tbuf_ops **ops, void **out)
{
	const char *why, *advice;
	struct xen_hv *hv;
	int err, rc = open_host(&hv, &why, &advice, &err);

	if (rc == VMA_ERR_NOMEM)
		return rc;
	if (rc) {
		vma_diag_info(diag, "Not a Xen host whose TSC frequency can be read: %s%s%s", why,
			      err ? ": " : "", err ? strerror(err) : "");
		return VMA_ERR_IO;
	}
	*ops = &host_ops;
	*out = hv;
	return VMA_OK;
}

int vma_xen_tbuf_open(struct vma_diag *diag, const struct vma_tbuf_ops **ops, void **out)
{
	const char *why, *advice;
	struct xen_hv *hv;
	int err, rc = open_host(&hv, &why, &advice, &err);

	if (rc == VMA_ERR_NOMEM)
		return rc;
	if (rc)
		return refuse(diag, why, advice, err);
	hv->fmem = hv->x->xenforeignmemory_open((xentoollog_logger *)hv->log, 0);
	hv->xce = hv->x->xenevtchn_open((xentoollog_logger *)hv->log, 0);
	if (!hv->fmem || !hv->xce) {
		err = errno;
		hv_close(hv);
		return refuse(diag, "Cannot open libxenforeignmemory or libxenevtchn", "", err);
	}
	hv->port = hv->x->xenevtchn_bind_virq(hv->xce, VIRQ_TBUF);
	if (hv->port < 0) {
		err = errno;
		hv_close(hv);
		return refuse(diag, "Cannot bind VIRQ_TBUF", "", err);
	}
	*ops = &xen_ops;
	*out = hv;
	return VMA_OK;
}
