/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libtraceevent, loaded when the first KVM input (trace.dat, raw dump)
 * needs it rather than linked: linked, it cost every run some 0.2 ms at
 * start, a xentrace file's too, which never calls it (bench/README,
 * round twenty-three).  It is loaded RTLD_GLOBAL: its plugins (the kvm
 * one prints kvm_exit) call its functions by name.  The functions the
 * KVM readers call are listed once, below; each is reached through a
 * pointer of its own prototype.
 */
#ifndef VMALYZE_INPUT_TEP_LIB_H
#define VMALYZE_INPUT_TEP_LIB_H

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#define VMA_TEP_FUNCTIONS(X) \
	X(tep_alloc) \
	X(tep_data_comm_from_pid) \
	X(tep_data_pid) \
	X(tep_find_common_field) \
	X(tep_find_event) \
	X(tep_find_event_by_name) \
	X(tep_find_field) \
	X(tep_find_function) \
	X(tep_find_function_address) \
	X(tep_free) \
	X(tep_get_events_count) \
	X(tep_get_long_size) \
	X(tep_is_pid_registered) \
	X(tep_load_plugins) \
	X(tep_parse_event) \
	X(tep_parse_header_page) \
	X(tep_parse_printk_formats) \
	X(tep_parse_saved_cmdlines) \
	X(tep_print_event) \
	X(tep_register_comm) \
	X(tep_set_cpus) \
	X(tep_set_file_bigendian) \
	X(tep_set_function_resolver) \
	X(tep_set_local_bigendian) \
	X(tep_set_long_size) \
	X(tep_set_page_size) \
	X(tep_unload_plugins) \
	X(trace_seq_destroy) \
	X(trace_seq_init) \
	X(trace_seq_reset) \
	X(trace_seq_terminate)

struct vma_tep_lib {
#define VMA_TEP_POINTER(name) __typeof__(name) *name;
	VMA_TEP_FUNCTIONS(VMA_TEP_POINTER)
#undef VMA_TEP_POINTER
};

/*
 * vma_tep_load - libtraceevent's functions, loaded by the first call (from
 * any thread; later calls return the same).  Return: NULL when it cannot
 * be loaded, and *@why then says why (dlerror()'s text, or the function
 * missing).
 */
const struct vma_tep_lib *vma_tep_load(const char **why);

/*
 * vma_tep - the functions once vma_tep_load() returned them: for the code
 * that holds a libtraceevent handle, which only a loaded library made.
 */
const struct vma_tep_lib *vma_tep(void);

#endif /* VMALYZE_INPUT_TEP_LIB_H */
