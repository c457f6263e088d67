/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shadow-paging records (TRC_SHADOW), in xenalyze's dump wording, and the
 * page-table arithmetic they share with the HVM page-fault record.
 *
 * Bits 11:8 of the event hold the guest's paging levels minus two, which
 * sets the width of the guest addresses and entries in the payload.  Xen
 * packs the payload; the fields sit at the same offsets as in xenalyze's
 * unpacked view, so both readings agree.
 */
#include "output/xen-describe-internal.h"

#define XD_SHADOW_MINOR(event) ((event) & 0xffu)
#define XD_SHADOW_LEVELS(event) ((((event) >> 8) & 0xfu) + 2)

/* Xen's trace_shadow_path_flags bits, and the letter xenalyze shows for each. */
#define XD_SPF_SET_AD        (1u << 0)
#define XD_SPF_SET_A         (1u << 1)
#define XD_SPF_UNSYNC        (1u << 18)

static const struct {
	uint32_t bit;
	char letter;
} path_flags[] = {
	{ 1u << 2, 'g' },  /* shadow_l1_get_ref */
	{ 1u << 3, 'p' },  /* shadow_l1_put_ref */
	{ 1u << 8, 'D' },  /* demote */
	{ 1u << 9, 'P' },  /* promote */
	{ 1u << 10, 'w' }, /* wrmap */
	{ 1u << 11, 'G' }, /* wrmap_guess_found */
	{ 1u << 13, 'e' }, /* early_unshadow */
	{ 1u << 17, 'H' }, /* prealloc_unhook */
	{ 1u << 18, 'u' }, /* unsync */
	{ 1u << 19, 'a' }, /* oos_fixup_add */
	{ 1u << 20, 'x' }, /* oos_fixup_evict */
};

#define XD_NFLAGS (sizeof(path_flags) / sizeof(path_flags[0]))

/* One column per flag, '-' when clear; the first is 'd' (A and D set) or 'a'. */
static void flag_string(char out[XD_NFLAGS + 2], uint32_t flags)
{
	unsigned int i;

	out[0] = (flags & XD_SPF_SET_AD) ? 'd' : (flags & XD_SPF_SET_A) ? 'a' : '-';
	for (i = 0; i < XD_NFLAGS; i++)
		out[i + 1] = (flags & path_flags[i].bit) ? path_flags[i].letter : '-';
	out[XD_NFLAGS + 1] = '\0';
}

static uint64_t low_ones(unsigned int bits)
{
	return (1ull << bits) - 1;
}

static uint32_t bits_at(uint64_t v, unsigned int shift, unsigned int width)
{
	return (uint32_t)((v >> shift) & low_ones(width));
}

/*
 * Windows maps its page tables at a fixed slot of the top level (768 for
 * 2-level paging, 3 for PAE, 0x1ed for 4-level); an access through that
 * self-map is an access to a page-table entry, whose level is the number
 * of times the slot repeats and whose "corresponding" address is the
 * range that entry maps.
 */
static void linear_pt_2(struct xd_pt_walk *pt)
{
	const unsigned int *ix = pt->index;

	if (ix[2] != 768)
		return;
	if (ix[1] == 768) {
		pt->level = 2;
		pt->corresponding = low_ones(22) | (uint64_t)ix[0] << 22;
	} else {
		pt->level = 1;
		pt->corresponding = low_ones(12) | (uint64_t)ix[1] << 22 | (uint64_t)ix[0] << 12;
	}
}

static void linear_pt_3(struct xd_pt_walk *pt)
{
	const unsigned int *ix = pt->index;

	if (ix[3] != 3 || (ix[2] >> 2) != 0)
		return;
	if (ix[2] == 3 && (ix[1] >> 2) == 0) {
		if (ix[1] == 3 && (ix[0] >> 2) == 0) {
			pt->level = 3;
			pt->corresponding = low_ones(30) | (uint64_t)ix[0] << 30;
		} else {
			pt->level = 2;
			pt->corresponding = low_ones(21) | (uint64_t)ix[1] << 30 |
					    (uint64_t)ix[2] << 21;
		}
	} else {
		pt->level = 1;
		pt->corresponding = low_ones(12) | (uint64_t)ix[0] << 12 | (uint64_t)ix[1] << 21 |
				    (uint64_t)ix[2] << 30;
	}
}

static void linear_pt_4(struct xd_pt_walk *pt)
{
	const unsigned int *ix = pt->index;
	const unsigned int slot = 0x1ed;
	unsigned int repeats = 1, i;
	uint64_t corr;

	if (ix[4] != slot)
		return;
	/* The slot repeats at levels 3, 2, 1 for deeper page-table levels. */
	while (repeats < 4 && ix[4 - repeats] == slot)
		repeats++;
	/* Remaining indices, lowest first, shift into place above the offset. */
	corr = low_ones(12 + 9 * (repeats - 1));
	for (i = 0; i + repeats < 5; i++)
		corr |= (uint64_t)ix[i] << (12 + 9 * (repeats - 1) + 9 * i);
	pt->level = (int)repeats;
	if (corr & (1ull << 47))
		corr |= ~low_ones(48);
	pt->corresponding = corr;
}

void xd_pt_walk(struct xd_pt_walk *pt, uint64_t va, unsigned int levels)
{
	unsigned int i;

	for (i = 0; i < 5; i++)
		pt->index[i] = 0;
	pt->level = 0;
	pt->corresponding = UINT64_MAX;
	switch (levels) {
	case 4:
		pt->index[4] = bits_at(va, 39, 9);
		pt->index[3] = bits_at(va, 30, 9);
		pt->index[2] = bits_at(va, 21, 9);
		pt->index[1] = bits_at(va, 12, 9);
		pt->index[0] = bits_at(va, 3, 9);
		linear_pt_4(pt);
		break;
	case 3:
		pt->index[3] = bits_at(va, 30, 2);
		pt->index[2] = bits_at(va, 21, 9);
		pt->index[1] = bits_at(va, 12, 9);
		pt->index[0] = bits_at(va, 3, 9);
		linear_pt_3(pt);
		break;
	case 2:
		pt->index[2] = bits_at(va, 22, 10);
		pt->index[1] = bits_at(va, 12, 10);
		pt->index[0] = bits_at(va, 2, 10);
		linear_pt_2(pt);
		break;
	default:
		break;
	}
}

/* xenalyze's generic form: "shadow <class> gl <levels-2> [ first 4 words ]". */
static void fault_generic(struct xd_out *o, const struct vma_record *rec)
{
	uint32_t minor = XD_SHADOW_MINOR(rec->event);
	const char *name = vma_shadow_fault_name(minor);
	unsigned int i;

	if (name)
		xd_printf(o, "shadow %s", name);
	else
		xd_printf(o, "shadow %u", minor);
	xd_printf(o, " gl %u [", (rec->event >> 8) & 0xfu);
	for (i = 0; i < 4 && i < rec->nr_data; i++)
		xd_printf(o, " %x", rec->data[i]);
	xd_puts(o, " ]");
}

/*
 * A guest address and a guest entry: the entry is 32-bit for 2 levels,
 * 64-bit otherwise; the address is 64-bit for 4 levels only.  @addr_first
 * says the address precedes the entry in the payload.
 */
struct gl1e_va {
	uint64_t gl1e, va;
	unsigned int next; /* first word after the two */
};

static bool read_gl1e_va(const struct vma_record *rec, unsigned int levels, struct gl1e_va *f)
{
	unsigned int entry_words = levels == 2 ? 1 : 2;
	unsigned int va_words = levels == 4 ? 2 : 1;

	if (levels < 2 || levels > 4 || rec->nr_data < entry_words + va_words)
		return false;
	f->gl1e = entry_words == 2 ? xd_q(rec, 0) : rec->data[0];
	f->va = va_words == 2 ? xd_q(rec, entry_words) : rec->data[entry_words];
	f->next = entry_words + va_words;
	return true;
}

/* TRC_SHADOW_NOT_SHADOW and TRC_SHADOW_FIXUP: {gl1e; va; flags}. */
static bool gl1e_va_flags(struct xd_out *o, const struct vma_record *rec, bool fixup)
{
	unsigned int levels = XD_SHADOW_LEVELS(rec->event);
	char fs[XD_NFLAGS + 2];
	struct gl1e_va f;
	uint32_t flags;

	if (!read_gl1e_va(rec, levels, &f) || rec->nr_data <= f.next)
		return false;
	flags = rec->data[f.next];
	flag_string(fs, flags);
	o->mark = ']';
	if (fixup && (flags & XD_SPF_UNSYNC)) {
		struct xd_pt_walk pt;

		xd_pt_walk(&pt, f.va, levels);
		xd_printf(o, "fixup:unsync va %llx gl1e %llx corr %llx flags (%x)%s",
			  (unsigned long long)f.va, (unsigned long long)f.gl1e,
			  (unsigned long long)pt.corresponding, flags, fs);
	} else {
		xd_printf(o, "%s va %llx gl1e %llx flags (%x)%s", fixup ? "fixup" : "propagate",
			  (unsigned long long)f.va, (unsigned long long)f.gl1e, flags, fs);
	}
	return true;
}

/* TRC_SHADOW_EMULATE: {gl1e, written value; va; flags:29, count:3}. */
static bool emulate(struct xd_out *o, const struct vma_record *rec)
{
	unsigned int levels = XD_SHADOW_LEVELS(rec->event);
	unsigned int entry_words = levels == 2 ? 1 : 2;
	unsigned int va_words = levels == 4 ? 2 : 1;
	unsigned int n = 2 * entry_words + va_words;
	uint64_t gl1e, wval, va;
	uint32_t flags;
	struct xd_pt_walk pt;
	char fs[XD_NFLAGS + 2];

	if (levels < 2 || levels > 4 || rec->nr_data <= n)
		return false;
	gl1e = entry_words == 2 ? xd_q(rec, 0) : rec->data[0];
	wval = entry_words == 2 ? xd_q(rec, 2) : rec->data[1];
	va = va_words == 2 ? xd_q(rec, 2 * entry_words) : rec->data[2 * entry_words];
	flags = rec->data[n] & 0x1fffffffu;
	flag_string(fs, flags);
	xd_pt_walk(&pt, va, levels);
	o->mark = ']';
	xd_printf(o, "emulate va %llx gl1e %8llx wval %8llx flags %s(%x) pt_level %d corr %8llx",
		  (unsigned long long)va, (unsigned long long)gl1e, (unsigned long long)wval, fs,
		  flags, pt.level, (unsigned long long)pt.corresponding);
	return true;
}

/* TRC_SHADOW_MMIO, TRC_SHADOW_FAST_MMIO: {va}. */
static bool mmio(struct xd_out *o, const struct vma_record *rec)
{
	unsigned int levels = XD_SHADOW_LEVELS(rec->event);
	bool wide = levels == 4;

	if (levels < 2 || levels > 4 || rec->nr_data < (wide ? 2u : 1u))
		return false;
	o->mark = ']';
	xd_printf(o, "%smmio va %llx",
		  (rec->event & ~0xf00u) == TRC_SHADOW_FAST_MMIO ? "fast " : "",
		  (unsigned long long)(wide ? xd_q(rec, 0) : rec->data[0]));
	return true;
}

/* The unshadow cases of emulation: {gfn; va; flags}, gfn 32-bit for 2 levels. */
static bool unshadow(struct xd_out *o, const struct vma_record *rec)
{
	unsigned int levels = XD_SHADOW_LEVELS(rec->event);
	struct gl1e_va f;

	if (!read_gl1e_va(rec, levels, &f))
		return false;
	o->mark = ']';
	xd_printf(o, "shadow %s gfn %llx va %llx",
		  vma_shadow_fault_name(XD_SHADOW_MINOR(rec->event)), (unsigned long long)f.gl1e,
		  (unsigned long long)f.va);
	return true;
}

/* Records with a single 64-bit gfn. */
static bool gfn_record(struct xd_out *o, const struct vma_record *rec)
{
	uint64_t gfn = xd_q(rec, 0);

	if (rec->nr_data < 2)
		return false;
	switch (rec->event & ~0xf00u) {
	case TRC_SHADOW_RESYNC_FULL:
	case TRC_SHADOW_RESYNC_ONLY:
		xd_printf(o, "oos resync %s gfn %llx",
			  (rec->event & ~0xf00u) == TRC_SHADOW_RESYNC_FULL ? "full" : "only",
			  (unsigned long long)gfn);
		return true;
	case TRC_SHADOW_PREALLOC_UNPIN:
		xd_printf(o, "prealloc-unpin gfn %llx", (unsigned long long)gfn);
		return true;
	default: /* TRC_SHADOW_WRMAP_BF */
		xd_printf(o, "wrmap-bf gfn %llx", (unsigned long long)gfn);
		return true;
	}
}

bool xd_shadow(struct xd_out *o, const struct vma_record *rec,
	       const struct vma_describe_ctx *ctx)
{
	uint32_t event = rec->event & ~0xf00u; /* without the paging levels */

	if (ctx->orphan) {
		o->mark = '!';
		fault_generic(o, rec);
		return true;
	}
	switch (event) {
	case TRC_SHADOW_NOT_SHADOW:
		return gl1e_va_flags(o, rec, false);
	case TRC_SHADOW_FIXUP:
		return gl1e_va_flags(o, rec, true);
	case TRC_SHADOW_EMULATE:
		return emulate(o, rec);
	case TRC_SHADOW_MMIO:
	case TRC_SHADOW_FAST_MMIO:
		return mmio(o, rec);
	case TRC_SHADOW_EMULATE_UNSHADOW_USER:
	case TRC_SHADOW_EMULATE_UNSHADOW_EVTINJ:
	case TRC_SHADOW_EMULATE_UNSHADOW_UNHANDLED:
		return unshadow(o, rec);
	case TRC_SHADOW_RESYNC_FULL:
	case TRC_SHADOW_RESYNC_ONLY:
	case TRC_SHADOW_PREALLOC_UNPIN:
	case TRC_SHADOW_WRMAP_BF:
		return gfn_record(o, rec);
	default:
		/* Other fault classes (fast propagate, false fast path, dying). */
		if (XD_SHADOW_MINOR(rec->event) <=
		    XD_SHADOW_MINOR(TRC_SHADOW_EMULATE_UNSHADOW_UNHANDLED)) {
			o->mark = ']';
			fault_generic(o, rec);
			return true;
		}
		return false;
	}
}
