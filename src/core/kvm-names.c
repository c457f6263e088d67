/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The KVM vocabulary's names, classes and payload sizes, from the one list
 * in kvm-events.h, beside the Xen and arm64 name tables: the state and
 * output stages name KVM records without reaching into the readers.
 */
#include <stddef.h>

#include "vmalyze/kvm-events.h"

struct kvm_row {
	const char *name;
	enum vma_kvm_class cls;
	uint32_t words;
};

#define ROW_(id, name, cls, words) [VMA_KVM_##id - VMA_ID_KVM_BASE] = { name, cls, words },
static const struct kvm_row rows[VMA_KVM_NR_IDS] = { VMA_KVM_EVENTS(ROW_) };
#undef ROW_

/* Records carry at most VMA_REC_MAX_WORDS words. */
#define WORDS_FIT_(id, name, cls, words) \
	_Static_assert((words) <= VMA_REC_MAX_WORDS, name " has more words than a record holds");
VMA_KVM_EVENTS(WORDS_FIT_)
#undef WORDS_FIT_
_Static_assert(VMA_KVM_EXIT_X86_WORDS <= VMA_REC_MAX_WORDS, "kvm_exit does not fit a record");

const char *vma_kvm_event_name(uint32_t event)
{
	return vma_id_is_kvm(event) ? rows[event - VMA_ID_KVM_BASE].name : NULL;
}

enum vma_kvm_class vma_kvm_event_class(uint32_t event)
{
	return vma_id_is_kvm(event) ? rows[event - VMA_ID_KVM_BASE].cls : VMA_KVM_CLASS_COUNTED;
}

uint32_t vma_kvm_event_words(uint32_t event)
{
	return vma_id_is_kvm(event) ? rows[event - VMA_ID_KVM_BASE].words : 0;
}
