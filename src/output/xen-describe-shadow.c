/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shadow-paging records (TRC_SHADOW), in xenalyze's dump wording, and the
 * page-table arithmetic they share with the HVM page-fault record.
 *
 * Each record is a row of the event table (xen-events.h), which says its
 * size and reads its fields: bits 11:8 of the event hold the guest's
 * paging levels minus two, which set the width of the guest addresses and
 * entries in the payload.  Xen packs the payload; the fields sit at the
 * same offsets as in xenalyze's unpacked view, so both readings agree.
 */
#include "output/xen-describe-internal.h"
#include "vmalyze/xen-events.h"

/* Xen's trace_shadow_path_flags bits (xen-events.h), and the letter xenalyze shows for each. */
static const struct {
	uint32_t bit;
	char letter;
} path_flags[] = {
	{ VMA_SHF_L1_GET_REF, 'g' },
	{ VMA_SHF_L1_PUT_REF, 'p' },
	{ VMA_SHF_DEMOTE, 'D' },
	{ VMA_SHF_PROMOTE, 'P' },
	{ VMA_SHF_WRMAP, 'w' },
	{ VMA_SHF_WRMAP_GUESS_FOUND, 'G' },
	{ VMA_SHF_EARLY_UNSHADOW, 'e' },
	{ VMA_SHF_PREALLOC_UNHOOK, 'H' },
	{ VMA_SHF_UNSYNC, 'u' },
	{ VMA_SHF_OOS_FIXUP_ADD, 'a' },
	{ VMA_SHF_OOS_FIXUP_EVICT, 'x' },
};

#define XD_NFLAGS (sizeof(path_flags) / sizeof(path_flags[0]))

/* One column per flag, '-' when clear; the first is 'd' (A and D set) or 'a'. */
static void flag_string(char out[XD_NFLAGS + 2], uint32_t flags)
{
	unsigned int i;

	out[0] = (flags & VMA_SHF_SET_AD) ? 'd' : (flags & VMA_SHF_SET_A) ? 'a' : '-';
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
static void generic_form(struct xd_out *o, const struct vma_record *rec)
{
	uint32_t minor = vma_xf_sh_minor(rec);
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

/* TRC_SHADOW_NOT_SHADOW and TRC_SHADOW_FIXUP: {gl1e; va; flags}. */
static bool gl1e_va_flags(struct xd_out *o, const struct vma_record *rec, bool fixup)
{
	unsigned int levels = vma_xf_sh_levels(rec);
	uint64_t gl1e = vma_xf_sh_fault_gl1e(rec), va = vma_xf_sh_fault_va(rec);
	uint32_t flags = vma_xf_sh_fault_flags(rec);
	char fs[XD_NFLAGS + 2];

	flag_string(fs, flags);
	o->mark = ']';
	if (fixup && (flags & VMA_SHF_UNSYNC)) {
		struct xd_pt_walk pt;

		xd_pt_walk(&pt, va, levels);
		xd_printf(o, "fixup:unsync va %llx gl1e %llx corr %llx flags (%x)%s",
			  (unsigned long long)va, (unsigned long long)gl1e,
			  (unsigned long long)pt.corresponding, flags, fs);
	} else {
		xd_printf(o, "%s va %llx gl1e %llx flags (%x)%s", fixup ? "fixup" : "propagate",
			  (unsigned long long)va, (unsigned long long)gl1e, flags, fs);
	}
	return true;
}

static bool propagate(struct xd_out *o, const struct vma_record *rec)
{
	return gl1e_va_flags(o, rec, false);
}

static bool fixup(struct xd_out *o, const struct vma_record *rec)
{
	return gl1e_va_flags(o, rec, true);
}

/* TRC_SHADOW_EMULATE: {gl1e, written value; va; flags:29, count:3}. */
static bool emulate(struct xd_out *o, const struct vma_record *rec)
{
	uint64_t va = vma_xf_sh_emul_va(rec);
	uint32_t flags = vma_xf_sh_emul_flags(rec);
	struct xd_pt_walk pt;
	char fs[XD_NFLAGS + 2];

	flag_string(fs, flags);
	xd_pt_walk(&pt, va, vma_xf_sh_levels(rec));
	o->mark = ']';
	xd_printf(o, "emulate va %llx gl1e %8llx wval %8llx flags %s(%x) pt_level %d corr %8llx",
		  (unsigned long long)va, (unsigned long long)vma_xf_sh_emul_gl1e(rec),
		  (unsigned long long)vma_xf_sh_emul_wval(rec), fs, flags, pt.level,
		  (unsigned long long)pt.corresponding);
	return true;
}

/* TRC_SHADOW_MMIO, TRC_SHADOW_FAST_MMIO: {va}. */
static bool mmio(struct xd_out *o, const struct vma_record *rec)
{
	o->mark = ']';
	xd_printf(o, "%smmio va %llx",
		  (rec->event & ~0xf00u) == TRC_SHADOW_FAST_MMIO ? "fast " : "",
		  (unsigned long long)vma_xf_sh_mmio_va(rec));
	return true;
}

/* The unshadow cases of emulation: {gfn; va; flags}, gfn 32-bit for 2 levels. */
static bool unshadow(struct xd_out *o, const struct vma_record *rec)
{
	o->mark = ']';
	xd_printf(o, "shadow %s gfn %llx va %llx", vma_shadow_fault_name(vma_xf_sh_minor(rec)),
		  (unsigned long long)vma_xf_sh_fault_gl1e(rec),
		  (unsigned long long)vma_xf_sh_fault_va(rec));
	return true;
}

/* Other fault classes (fast propagate, false fast path, dying): the generic form. */
static bool fault_generic(struct xd_out *o, const struct vma_record *rec)
{
	o->mark = ']';
	generic_form(o, rec);
	return true;
}

/* Records with a single 64-bit gfn. */
static bool gfn_record(struct xd_out *o, const struct vma_record *rec)
{
	uint64_t gfn = vma_xf_sh_gfn(rec);

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

/* A row of the shadow list (xen-events.h): raw when too short for it. */
#define SHADOW_CASE(sym, id, name, words, flags, state, describe) \
	case (id):                                                 \
		return !vma_xe_short(rec, (words), (flags)) && describe(o, rec);

bool xd_shadow(struct xd_out *o, const struct vma_record *rec,
	       const struct vma_describe_ctx *ctx)
{
	if (ctx->orphan) {
		o->mark = '!';
		generic_form(o, rec);
		return true;
	}
	switch (rec->event & ~0xf00u) { /* without the paging levels */
		VMA_XEN_SHADOW_EVENTS(SHADOW_CASE)
	default:
		/* A fault class of no row (0). */
		if (vma_xf_sh_minor(rec) <= TRC_SHADOW_EMULATE_UNSHADOW_UNHANDLED - TRC_SHADOW) {
			o->mark = ']';
			generic_form(o, rec);
			return true;
		}
		return false;
	}
}
#undef SHADOW_CASE
