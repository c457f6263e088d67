/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The Xen event table: one row per event id that the state stage or the
 * dump decodes field by field, saying in one place what both need to know
 * of it.  The rows are listed by class (the class is the list's):
 * trace-buffer, scheduler, dom0, HVM, memory, PV and hardware records.
 *
 *   X(SYM, ID, NAME, WORDS, FLAGS, STATE, DESCRIBE)
 *
 * SYM      the row's enum suffix (VMA_XE_SYM)
 * ID       the event id
 * NAME     xenalyze's name of the record (handler records: without "64";
 *          vma_hvm_handler_name() and vma_mem_event_name() are these)
 * WORDS    the payload words the row's fields need: a shorter record is
 *          judged by vma_xen_event_short(), the same for both stages (the
 *          state stage does not use it, the dump prints it raw)
 * FLAGS    VMA_XE_* below
 * STATE    the state stage's handler (expanded by the class's file in
 *          src/state: sched.c for GEN, hvm.c, mem.c, shadow.c; dom0
 *          records have no state)
 * DESCRIBE the dump's decoder (expanded by the class's xen-describe*.c)
 *
 * Each stage expands only its own column, so neither names the other's
 * functions.  The payload is read through the named accessors below, by
 * both stages.  Adding a record: a row here, its accessors, and the STATE
 * and DESCRIBE functions in the class's two files.
 *
 * Runstate changes (an id per transition: see vma_xf_runstate()) are not
 * rows.  Shadow records are, by their id without the guest's paging
 * levels (bits 11:8), which set the width of their fields: their WORDS is
 * a VMA_XE_SHAPE().
 */
#ifndef VMALYZE_XEN_EVENTS_H
#define VMALYZE_XEN_EVENTS_H

#include <stdbool.h>
#include <stdint.h>

#include "vmalyze/record.h"
#include "vmalyze/trace-ids.h"

/* xenalyze's handler minor for a guest process being destroyed; Xen lacks it. */
#define VMA_TRC_HVM_OP_DESTROY_PROC (TRC_HVM_HANDLER + 0x100)

enum vma_xe_flags {
	VMA_XE_WIDE = 1u << 0,      /* the 64-bit layout (TRC_64_FLAG) */
	VMA_XE_EXIT = 1u << 1,      /* refines the open exit: with none it is an orphan */
	VMA_XE_EXACT = 1u << 2,     /* WORDS exactly, no more */
	VMA_XE_LEVELS = 1u << 3,    /* shadow: WORDS is a VMA_XE_SHAPE() of the paging levels */
};

/*
 * A shadow record's payload: @entries guest page-table entries (one word
 * for 2-level guests, two otherwise), then @addrs guest addresses (two
 * words for 4-level guests, one otherwise), then @words plain words.
 */
#define VMA_XE_SHAPE(entries, addrs, words) ((entries) << 5 | (addrs) << 3 | (words))

#define VMA_XEN_GEN_EVENTS(X) \
	X(LOST_RECORDS, TRC_LOST_RECORDS, "lost_records", 4, VMA_XE_EXACT, lost_begin, \
	  lost_records) \
	X(LOST_END, VMA_SYNTH_LOST_END, "lost_records end", 2, 0, lost_end, lost_end) \
	X(TRACE_WRAP_BUFFER, TRC_TRACE_WRAP_BUFFER, "trace_wrap_buffer", 0, 0, nothing, \
	  wrap_buffer) \
	X(TRACE_CPU_CHANGE, TRC_TRACE_CPU_CHANGE, "cpu_change", 2, 0, nothing, cpu_change)

/*
 * Scheduler-class event ids.  Xen defines them privately in each
 * scheduler's source (xen/common/sched/credit.c, credit2.c, rt.c, null.c),
 * not in the public trace.h, so they are spelled out once here.
 */
#define TRC_CSCHED_SCHED_TASKLET     TRC_SCHED_CLASS_EVT(CSCHED, 1)
#define TRC_CSCHED_ACCOUNT_START     TRC_SCHED_CLASS_EVT(CSCHED, 2)
#define TRC_CSCHED_ACCOUNT_STOP      TRC_SCHED_CLASS_EVT(CSCHED, 3)
#define TRC_CSCHED_STOLEN_UNIT       TRC_SCHED_CLASS_EVT(CSCHED, 4)
#define TRC_CSCHED_PICKED_CPU        TRC_SCHED_CLASS_EVT(CSCHED, 5)
#define TRC_CSCHED_TICKLE            TRC_SCHED_CLASS_EVT(CSCHED, 6)
#define TRC_CSCHED_BOOST_START       TRC_SCHED_CLASS_EVT(CSCHED, 7)
#define TRC_CSCHED_BOOST_END         TRC_SCHED_CLASS_EVT(CSCHED, 8)
#define TRC_CSCHED_SCHEDULE          TRC_SCHED_CLASS_EVT(CSCHED, 9)
#define TRC_CSCHED_RATELIMIT         TRC_SCHED_CLASS_EVT(CSCHED, 10)
#define TRC_CSCHED_STEAL_CHECK       TRC_SCHED_CLASS_EVT(CSCHED, 11)

#define TRC_CSCHED2_TICK             TRC_SCHED_CLASS_EVT(CSCHED2, 1)
#define TRC_CSCHED2_RUNQ_POS         TRC_SCHED_CLASS_EVT(CSCHED2, 2)
#define TRC_CSCHED2_CREDIT_BURN      TRC_SCHED_CLASS_EVT(CSCHED2, 3)
#define TRC_CSCHED2_CREDIT_ADD       TRC_SCHED_CLASS_EVT(CSCHED2, 4)
#define TRC_CSCHED2_TICKLE_CHECK     TRC_SCHED_CLASS_EVT(CSCHED2, 5)
#define TRC_CSCHED2_TICKLE           TRC_SCHED_CLASS_EVT(CSCHED2, 6)
#define TRC_CSCHED2_CREDIT_RESET     TRC_SCHED_CLASS_EVT(CSCHED2, 7)
#define TRC_CSCHED2_SCHED_TASKLET    TRC_SCHED_CLASS_EVT(CSCHED2, 8)
#define TRC_CSCHED2_UPDATE_LOAD      TRC_SCHED_CLASS_EVT(CSCHED2, 9)
#define TRC_CSCHED2_RUNQ_ASSIGN      TRC_SCHED_CLASS_EVT(CSCHED2, 10)
#define TRC_CSCHED2_UPDATE_UNIT_LOAD TRC_SCHED_CLASS_EVT(CSCHED2, 11)
#define TRC_CSCHED2_UPDATE_RUNQ_LOAD TRC_SCHED_CLASS_EVT(CSCHED2, 12)
#define TRC_CSCHED2_TICKLE_NEW       TRC_SCHED_CLASS_EVT(CSCHED2, 13)
#define TRC_CSCHED2_RUNQ_MAX_WEIGHT  TRC_SCHED_CLASS_EVT(CSCHED2, 14)
#define TRC_CSCHED2_MIGRATE          TRC_SCHED_CLASS_EVT(CSCHED2, 15)
#define TRC_CSCHED2_LOAD_CHECK       TRC_SCHED_CLASS_EVT(CSCHED2, 16)
#define TRC_CSCHED2_LOAD_BALANCE     TRC_SCHED_CLASS_EVT(CSCHED2, 17)
#define TRC_CSCHED2_PICKED_CPU       TRC_SCHED_CLASS_EVT(CSCHED2, 19)
#define TRC_CSCHED2_RUNQ_CANDIDATE   TRC_SCHED_CLASS_EVT(CSCHED2, 20)
#define TRC_CSCHED2_SCHEDULE         TRC_SCHED_CLASS_EVT(CSCHED2, 21)
#define TRC_CSCHED2_RATELIMIT        TRC_SCHED_CLASS_EVT(CSCHED2, 22)
#define TRC_CSCHED2_RUNQ_CAND_CHECK  TRC_SCHED_CLASS_EVT(CSCHED2, 23)

#define TRC_RTDS_TICKLE              TRC_SCHED_CLASS_EVT(RTDS, 1)
#define TRC_RTDS_RUNQ_PICK           TRC_SCHED_CLASS_EVT(RTDS, 2)
#define TRC_RTDS_BUDGET_BURN         TRC_SCHED_CLASS_EVT(RTDS, 3)
#define TRC_RTDS_BUDGET_REPLENISH    TRC_SCHED_CLASS_EVT(RTDS, 4)
#define TRC_RTDS_SCHED_TASKLET       TRC_SCHED_CLASS_EVT(RTDS, 5)
#define TRC_RTDS_SCHEDULE            TRC_SCHED_CLASS_EVT(RTDS, 6)

#define TRC_SNULL_PICKED_CPU         TRC_SCHED_CLASS_EVT(SNULL, 1)
#define TRC_SNULL_UNIT_ASSIGN        TRC_SCHED_CLASS_EVT(SNULL, 2)
#define TRC_SNULL_UNIT_DEASSIGN      TRC_SCHED_CLASS_EVT(SNULL, 3)
#define TRC_SNULL_MIGRATE            TRC_SCHED_CLASS_EVT(SNULL, 4)
#define TRC_SNULL_SCHEDULE           TRC_SCHED_CLASS_EVT(SNULL, 5)
#define TRC_SNULL_TASKLET            TRC_SCHED_CLASS_EVT(SNULL, 6)

/*
 * Scheduler records other than runstate changes (whose id encodes the
 * change, so they are not rows): the dump decodes them and the state stage
 * does not read them (STATE column "none").
 */
#define VMA_XEN_SCHED_EVENTS(X) \
	X(SCHED_DOM_ADD, TRC_SCHED_DOM_ADD, "sched_init_domain", 1, 0, none, dom_op) \
	X(SCHED_DOM_REM, TRC_SCHED_DOM_REM, "sched_destroy_domain", 1, 0, none, dom_op) \
	X(SCHED_SLEEP, TRC_SCHED_SLEEP, "vcpu_sleep", 2, 0, none, vcpu_action) \
	X(SCHED_WAKE, TRC_SCHED_WAKE, "vcpu_wake", 2, 0, none, vcpu_action) \
	X(SCHED_YIELD, TRC_SCHED_YIELD, "vcpu_yield", 2, 0, none, vcpu_action) \
	X(SCHED_BLOCK, TRC_SCHED_BLOCK, "vcpu_block", 2, 0, none, vcpu_action) \
	X(SCHED_SHUTDOWN, TRC_SCHED_SHUTDOWN, "sched_shutdown", 3, 0, none, shutdown) \
	X(SCHED_SHUTDOWN_CODE, TRC_SCHED_SHUTDOWN_CODE, "sched_shutdown_code", 3, 0, none, \
	  shutdown) \
	X(SCHED_ADJDOM, TRC_SCHED_ADJDOM, "sched_adjust", 1, 0, none, dom_op) \
	X(SCHED_SWITCH, TRC_SCHED_SWITCH, "sched_switch", 4, 0, none, sched_switch) \
	X(SCHED_SWITCH_INFPREV, TRC_SCHED_SWITCH_INFPREV, "sched_switch prev", 3, 0, none, \
	  switch_infprev) \
	X(SCHED_SWITCH_INFNEXT, TRC_SCHED_SWITCH_INFNEXT, "sched_switch next", 4, 0, none, \
	  switch_infnext) \
	X(SCHED_SWITCH_INFCONT, TRC_SCHED_SWITCH_INFCONT, "sched_switch continue", 4, 0, none, \
	  switch_infcont) \
	X(SCHED_CTL, TRC_SCHED_CTL, "sched_ctl", 0, 0, none, silent_plain) \
	X(SCHED_S_TIMER_FN, TRC_SCHED_S_TIMER_FN, "sched_s_timer_fn", 0, 0, none, silent_plain) \
	X(SCHED_T_TIMER_FN, TRC_SCHED_T_TIMER_FN, "sched_t_timer_fn", 0, 0, none, silent_plain) \
	X(SCHED_DOM_TIMER_FN, TRC_SCHED_DOM_TIMER_FN, "sched_dom_timer_fn", 0, 0, none, \
	  silent_plain) \
	X(CSCHED_SCHED_TASKLET, TRC_CSCHED_SCHED_TASKLET, "csched:sched_tasklet", 0, 0, none, \
	  plain) \
	X(CSCHED_ACCOUNT_START, TRC_CSCHED_ACCOUNT_START, "csched:acct_start", 3, 0, none, \
	  csched_acct) \
	X(CSCHED_ACCOUNT_STOP, TRC_CSCHED_ACCOUNT_STOP, "csched:acct_stop", 3, 0, none, \
	  csched_acct) \
	X(CSCHED_STOLEN_UNIT, TRC_CSCHED_STOLEN_UNIT, "csched:stolen_vcpu", 3, 0, none, \
	  csched_stolen) \
	X(CSCHED_PICKED_CPU, TRC_CSCHED_PICKED_CPU, "csched:pick_cpu", 3, 0, none, csched_pick) \
	X(CSCHED_TICKLE, TRC_CSCHED_TICKLE, "csched:runq_tickle", 1, 0, none, csched_tickle) \
	X(CSCHED_BOOST_START, TRC_CSCHED_BOOST_START, "csched:boost_start", 2, 0, none, \
	  csched_boost) \
	X(CSCHED_BOOST_END, TRC_CSCHED_BOOST_END, "csched:boost_end", 2, 0, none, csched_boost) \
	X(CSCHED_SCHEDULE, TRC_CSCHED_SCHEDULE, "csched:schedule", 1, 0, none, csched_schedule) \
	X(CSCHED_RATELIMIT, TRC_CSCHED_RATELIMIT, "csched:ratelimit", 2, 0, none, \
	  csched_ratelimit) \
	X(CSCHED_STEAL_CHECK, TRC_CSCHED_STEAL_CHECK, "csched:load_balance", 2, 0, none, \
	  csched_steal) \
	X(CSCHED2_TICK, TRC_CSCHED2_TICK, "csched2:tick", 0, 0, none, silent_plain) \
	X(CSCHED2_RUNQ_POS, TRC_CSCHED2_RUNQ_POS, "csched2:runq_insert", 2, 0, none, \
	  csched2_runq_pos) \
	X(CSCHED2_CREDIT_BURN, TRC_CSCHED2_CREDIT_BURN, "csched2:burn_credits", 4, 0, none, \
	  csched2_burn) \
	X(CSCHED2_CREDIT_ADD, TRC_CSCHED2_CREDIT_ADD, "csched2:credit_add", 0, 0, none, \
	  silent_plain) \
	X(CSCHED2_TICKLE_CHECK, TRC_CSCHED2_TICKLE_CHECK, "csched2:tickle_check", 3, 0, none, \
	  csched2_tickle_check) \
	X(CSCHED2_TICKLE, TRC_CSCHED2_TICKLE, "csched2:runq_tickle", 1, 0, none, csched2_tickle) \
	X(CSCHED2_CREDIT_RESET, TRC_CSCHED2_CREDIT_RESET, "csched2:reset_credits", 3, 0, none, \
	  csched2_reset) \
	X(CSCHED2_SCHED_TASKLET, TRC_CSCHED2_SCHED_TASKLET, "csched2:sched_tasklet", 0, 0, none, \
	  plain) \
	X(CSCHED2_UPDATE_LOAD, TRC_CSCHED2_UPDATE_LOAD, "csched2:update_load", 0, 0, none, plain) \
	X(CSCHED2_RUNQ_ASSIGN, TRC_CSCHED2_RUNQ_ASSIGN, "csched2:runq_assign", 2, 0, none, \
	  csched2_runq_assign) \
	X(CSCHED2_UPDATE_UNIT_LOAD, TRC_CSCHED2_UPDATE_UNIT_LOAD, "csched2:update_vcpu_load", 4, \
	  0, none, csched2_unit_load) \
	X(CSCHED2_UPDATE_RUNQ_LOAD, TRC_CSCHED2_UPDATE_RUNQ_LOAD, "csched2:update_rq_load", 5, 0, \
	  none, csched2_runq_load) \
	X(CSCHED2_TICKLE_NEW, TRC_CSCHED2_TICKLE_NEW, "csched2:runq_tickle_new", 3, 0, none, \
	  csched2_tickle_new) \
	X(CSCHED2_RUNQ_MAX_WEIGHT, TRC_CSCHED2_RUNQ_MAX_WEIGHT, "csched2:update_max_weight", 1, 0, \
	  none, csched2_max_weight) \
	X(CSCHED2_MIGRATE, TRC_CSCHED2_MIGRATE, "csched2:migrate", 2, 0, none, csched2_migrate) \
	X(CSCHED2_LOAD_CHECK, TRC_CSCHED2_LOAD_CHECK, "csched2:load_balance_check", 2, 0, none, \
	  csched2_load_check) \
	X(CSCHED2_LOAD_BALANCE, TRC_CSCHED2_LOAD_BALANCE, "csched2:load_balance_begin", 5, 0, \
	  none, csched2_load_balance) \
	X(CSCHED2_PICKED_CPU, TRC_CSCHED2_PICKED_CPU, "csched2:picked_cpu", 4, 0, none, \
	  csched2_picked_cpu) \
	X(CSCHED2_RUNQ_CANDIDATE, TRC_CSCHED2_RUNQ_CANDIDATE, "csched2:runq_candidate", 3, 0, \
	  none, csched2_candidate) \
	X(CSCHED2_SCHEDULE, TRC_CSCHED2_SCHEDULE, "csched2:schedule", 2, 0, none, \
	  csched2_schedule) \
	X(CSCHED2_RATELIMIT, TRC_CSCHED2_RATELIMIT, "csched2:ratelimit", 2, 0, none, \
	  csched2_ratelimit) \
	X(CSCHED2_RUNQ_CAND_CHECK, TRC_CSCHED2_RUNQ_CAND_CHECK, "csched2:runq_cand_check", 1, 0, \
	  none, csched2_cand_check) \
	X(RTDS_TICKLE, TRC_RTDS_TICKLE, "rtds:runq_tickle", 1, 0, none, rtds_tickle) \
	X(RTDS_RUNQ_PICK, TRC_RTDS_RUNQ_PICK, "rtds:runq_pick", 5, 0, none, rtds_pick) \
	X(RTDS_BUDGET_BURN, TRC_RTDS_BUDGET_BURN, "rtds:burn_budget", 4, 0, none, rtds_burn) \
	X(RTDS_BUDGET_REPLENISH, TRC_RTDS_BUDGET_REPLENISH, "rtds:repl_budget", 6, 0, none, \
	  rtds_repl) \
	X(RTDS_SCHED_TASKLET, TRC_RTDS_SCHED_TASKLET, "rtds:sched_tasklet", 0, 0, none, plain) \
	X(RTDS_SCHEDULE, TRC_RTDS_SCHEDULE, "rtds:schedule", 1, 0, none, rtds_schedule) \
	X(SNULL_PICKED_CPU, TRC_SNULL_PICKED_CPU, "null:picked_cpu", 2, 0, none, snull_picked) \
	X(SNULL_UNIT_ASSIGN, TRC_SNULL_UNIT_ASSIGN, "null:vcpu_assign", 2, 0, none, snull_assign) \
	X(SNULL_UNIT_DEASSIGN, TRC_SNULL_UNIT_DEASSIGN, "null:vcpu_deassign", 2, 0, none, \
	  snull_assign) \
	X(SNULL_MIGRATE, TRC_SNULL_MIGRATE, "null:migrate", 2, 0, none, snull_migrate) \
	X(SNULL_SCHEDULE, TRC_SNULL_SCHEDULE, "null:schedule", 2, 0, none, snull_schedule) \
	X(SNULL_TASKLET, TRC_SNULL_TASKLET, "null:sched_tasklet", 0, 0, none, plain)

/* Hardware records (power management, IRQs); the state stage does not read them. */
#define VMA_XEN_HW_EVENTS(X) \
	X(PM_FREQ_CHANGE, TRC_PM_FREQ_CHANGE, "pm_freq_change", 2, 0, none, pm_freq) \
	X(PM_IDLE_ENTRY, TRC_PM_IDLE_ENTRY, "pm_idle_start", 1, 0, none, pm_idle) \
	X(PM_IDLE_EXIT, TRC_PM_IDLE_EXIT, "pm_idle_end", 1, 0, none, pm_idle) \
	X(HW_IRQ_MOVE_CLEANUP_DELAY, TRC_HW_IRQ_MOVE_CLEANUP_DELAY, "irq_move_cleanup_delay", 3, \
	  0, none, irq_move) \
	X(HW_IRQ_MOVE_CLEANUP, TRC_HW_IRQ_MOVE_CLEANUP, "irq_move_cleanup", 3, 0, none, irq_move) \
	X(HW_IRQ_BIND_VECTOR, TRC_HW_IRQ_BIND_VECTOR, "irq_bind_vector", 1, 0, none, irq_vector) \
	X(HW_IRQ_CLEAR_VECTOR, TRC_HW_IRQ_CLEAR_VECTOR, "irq_clear_vector", 1, 0, none, \
	  irq_vector) \
	X(HW_IRQ_MOVE_FINISH, TRC_HW_IRQ_MOVE_FINISH, "irq_move_finish", 3, 0, none, irq_move) \
	X(HW_IRQ_ASSIGN_VECTOR, TRC_HW_IRQ_ASSIGN_VECTOR, "irq_assign_vector", 1, 0, none, \
	  irq_vector) \
	X(HW_IRQ_UNMAPPED_VECTOR, TRC_HW_IRQ_UNMAPPED_VECTOR, "irq_unmapped_vector", 1, 0, none, \
	  irq_unmapped) \
	X(HW_IRQ_HANDLED, TRC_HW_IRQ_HANDLED, "irq_handled", 3, 0, none, irq_handled)

#define VMA_XEN_DOM0_EVENTS(X) \
	X(DOM0_DOM_ADD, TRC_DOM0_DOM_ADD, "creating domain", 1, 0, nothing, dom_op) \
	X(DOM0_DOM_REM, TRC_DOM0_DOM_REM, "destroying domain", 1, 0, nothing, dom_op)

#define VMA_XEN_MEM_EVENTS(X) \
	X(MEM_PAGE_GRANT_MAP, TRC_MEM_PAGE_GRANT_MAP, "grant-map", 1, 0, grant, grant) \
	X(MEM_PAGE_GRANT_UNMAP, TRC_MEM_PAGE_GRANT_UNMAP, "grant-unmap", 1, 0, grant, grant) \
	X(MEM_PAGE_GRANT_TRANSFER, TRC_MEM_PAGE_GRANT_TRANSFER, "grant-transfer", 1, 0, grant, \
	  grant) \
	X(MEM_SET_P2M_ENTRY, TRC_MEM_SET_P2M_ENTRY, "set-p2m", 6, 0, nothing, \
	  set_p2m_entry) \
	X(MEM_DECREASE_RESERVATION, TRC_MEM_DECREASE_RESERVATION, "decrease-reservation", 4, 0, \
	  nothing, decrease_reservation) \
	X(MEM_POD_POPULATE, TRC_MEM_POD_POPULATE, "pod-populate", 6, 0, pod_populate, pod) \
	X(MEM_POD_ZERO_RECLAIM, TRC_MEM_POD_ZERO_RECLAIM, "pod-zero-reclaim", 6, 0, \
	  pod_reclaim, pod) \
	X(MEM_POD_SUPERPAGE_SPLINTER, TRC_MEM_POD_SUPERPAGE_SPLINTER, "pod-superpage-splinter", 4, \
	  0, nothing, pod_splinter)

#define VMA_XEN_HVM_EVENTS(X) \
	X(VMENTRY, TRC_HVM_VMENTRY, "vmentry", 0, 0, vmentry, entry) \
	X(VMX_EXIT, TRC_HVM_VMX_EXIT, "vmexit", 2, 0, vmexit, vmexit) \
	X(VMX_EXIT64, TRC_HVM_VMX_EXIT64, "vmexit", 3, VMA_XE_WIDE, vmexit, vmexit) \
	X(SVM_EXIT, TRC_HVM_SVM_EXIT, "vmexit", 2, 0, vmexit, vmexit) \
	X(SVM_EXIT64, TRC_HVM_SVM_EXIT64, "vmexit", 3, VMA_XE_WIDE, vmexit, vmexit) \
	X(PF_XEN, TRC_HVM_PF_XEN, "pf_xen", 2, VMA_XE_EXIT, refine, pf_xen) \
	X(PF_XEN64, TRC_HVM_PF_XEN64, "pf_xen", 3, VMA_XE_EXIT | VMA_XE_WIDE, refine, pf_xen) \
	X(PF_INJECT, TRC_HVM_PF_INJECT, "pf_inject", 2, 0, nothing, pf_inject) \
	X(PF_INJECT64, TRC_HVM_PF_INJECT64, "pf_inject", 3, VMA_XE_WIDE, nothing, pf_inject) \
	X(INJ_EXC, TRC_HVM_INJ_EXC, "inj_exc", 2, 0, nothing, inj_exc) \
	X(INJ_VIRQ, TRC_HVM_INJ_VIRQ, "inj_virq", 2, 0, inj_virq, inj_virq) \
	X(REINJ_VIRQ, TRC_HVM_REINJ_VIRQ, "reinj_virq", 1, 0, nothing, reinj_virq) \
	X(IO_READ, TRC_HVM_IO_READ, "io_read", 0, VMA_XE_EXIT, refine, generic) \
	X(IO_WRITE, TRC_HVM_IO_WRITE, "io_write", 0, VMA_XE_EXIT, refine, generic) \
	X(CR_READ, TRC_HVM_CR_READ, "cr_read", 1, VMA_XE_EXIT, refine, generic) \
	X(CR_READ64, TRC_HVM_CR_READ64, "cr_read", 1, VMA_XE_EXIT | VMA_XE_WIDE, refine, generic) \
	X(CR_WRITE, TRC_HVM_CR_WRITE, "cr_write", 2, VMA_XE_EXIT, refine, cr_write) \
	X(CR_WRITE64, TRC_HVM_CR_WRITE64, "cr_write", 3, VMA_XE_EXIT | VMA_XE_WIDE, refine, \
	  cr_write) \
	X(DR_READ, TRC_HVM_DR_READ, "dr_read", 0, VMA_XE_EXIT, refine, generic) \
	X(DR_WRITE, TRC_HVM_DR_WRITE, "dr_write", 0, VMA_XE_EXIT, refine, generic) \
	X(MSR_READ, TRC_HVM_MSR_READ, "msr_read", 3, VMA_XE_EXIT, refine, msr) \
	X(MSR_WRITE, TRC_HVM_MSR_WRITE, "msr_write", 3, VMA_XE_EXIT, msr_write, msr) \
	X(CPUID, TRC_HVM_CPUID, "cpuid", 0, VMA_XE_EXIT, refine, generic) \
	X(INTR, TRC_HVM_INTR, "intr", 0, VMA_XE_EXIT, intr_exit, intr) \
	X(NMI, TRC_HVM_NMI, "nmi", 0, VMA_XE_EXIT, refine, generic) \
	X(SMI, TRC_HVM_SMI, "smi", 0, VMA_XE_EXIT, refine, generic) \
	X(VMMCALL, TRC_HVM_VMMCALL, "vmcall", 1, VMA_XE_EXIT, refine, vmcall) \
	X(HLT, TRC_HVM_HLT, "hlt", 0, VMA_XE_EXIT, refine, generic) \
	X(INVLPG, TRC_HVM_INVLPG, "invlpg", 0, VMA_XE_EXIT, refine, generic) \
	X(INVLPG64, TRC_HVM_INVLPG64, "invlpg", 0, VMA_XE_EXIT | VMA_XE_WIDE, refine, generic) \
	X(MCE, TRC_HVM_MCE, "mce", 0, VMA_XE_EXIT, refine, generic) \
	X(IOPORT_READ, TRC_HVM_IOPORT_READ, "io_assist", 1, VMA_XE_EXIT, refine, io_assist) \
	X(IOPORT_WRITE, TRC_HVM_IOPORT_WRITE, "io_assist", 1, VMA_XE_EXIT, refine, io_assist) \
	X(IOMEM_READ, TRC_HVM_IOMEM_READ, "mmio_assist", 1, VMA_XE_EXIT, mmio, mmio_assist) \
	X(IOMEM_READ64, TRC_HVM_IOMEM_READ | TRC_64_FLAG, "mmio_assist", 2, \
	  VMA_XE_EXIT | VMA_XE_WIDE, mmio, mmio_assist) \
	X(IOMEM_WRITE, TRC_HVM_IOMEM_WRITE, "mmio_assist", 1, VMA_XE_EXIT, mmio, mmio_assist) \
	X(IOMEM_WRITE64, TRC_HVM_IOMEM_WRITE | TRC_64_FLAG, "mmio_assist", 2, \
	  VMA_XE_EXIT | VMA_XE_WIDE, mmio, mmio_assist) \
	X(CLTS, TRC_HVM_CLTS, "clts", 0, VMA_XE_EXIT, refine, generic) \
	X(LMSW, TRC_HVM_LMSW, "lmsw", 0, VMA_XE_EXIT, refine, generic) \
	X(LMSW64, TRC_HVM_LMSW64, "lmsw", 0, VMA_XE_EXIT | VMA_XE_WIDE, refine, generic) \
	X(RDTSC, TRC_HVM_RDTSC, "rdtsc", 2, VMA_XE_EXIT, rdtsc, rdtsc) \
	X(INTR_WINDOW, TRC_HVM_INTR_WINDOW, "intr_window", 3, 0, nothing, intr_window) \
	X(NPF, TRC_HVM_NPF, "npf", 6, VMA_XE_EXIT, refine, npf) \
	X(REALMODE_EMULATE, TRC_HVM_REALMODE_EMULATE, "realmode_emulate", 0, VMA_XE_EXIT, refine, \
	  generic) \
	X(TRAP, TRC_HVM_TRAP, "trap", 0, VMA_XE_EXIT, refine, generic) \
	X(TRAP_DEBUG, TRC_HVM_TRAP_DEBUG, "trap_debug", 0, VMA_XE_EXIT, refine, generic) \
	X(VLAPIC, TRC_HVM_VLAPIC, "vlapic", 0, VMA_XE_EXIT, refine, generic) \
	X(XCR_READ64, TRC_HVM_XCR_READ64, "xcr_read", 3, VMA_XE_EXIT | VMA_XE_WIDE, refine, xcr) \
	X(XCR_WRITE64, TRC_HVM_XCR_WRITE64, "xcr_write", 3, VMA_XE_EXIT | VMA_XE_WIDE, refine, \
	  xcr) \
	X(DESTROY_PROC, VMA_TRC_HVM_OP_DESTROY_PROC, "destroy_proc", 0, 0, nothing, \
	  destroy_proc) \
	X(EMUL_HPET_START_TIMER, TRC_HVM_EMUL_HPET_START_TIMER, "hpet_start_timer", 6, 0, \
	  nothing, hpet_start) \
	X(EMUL_PIT_START_TIMER, TRC_HVM_EMUL_PIT_START_TIMER, "pit_start_timer", 2, 0, nothing, \
	  timer_start) \
	X(EMUL_RTC_START_TIMER, TRC_HVM_EMUL_RTC_START_TIMER, "rtc_start_timer", 2, 0, nothing, \
	  timer_start) \
	X(EMUL_LAPIC_START_TIMER, TRC_HVM_EMUL_LAPIC_START_TIMER, "lapic_start_timer", 5, 0, \
	  nothing, lapic_start) \
	X(EMUL_HPET_STOP_TIMER, TRC_HVM_EMUL_HPET_STOP_TIMER, "hpet_stop_timer", 1, 0, nothing, \
	  hpet_stop) \
	X(EMUL_PIT_STOP_TIMER, TRC_HVM_EMUL_PIT_STOP_TIMER, "pit_stop_timer", 0, 0, nothing, \
	  emul_plain) \
	X(EMUL_RTC_STOP_TIMER, TRC_HVM_EMUL_RTC_STOP_TIMER, "rtc_stop_timer", 0, 0, nothing, \
	  emul_plain) \
	X(EMUL_LAPIC_STOP_TIMER, TRC_HVM_EMUL_LAPIC_STOP_TIMER, "lapic_stop_timer", 0, 0, \
	  nothing, emul_plain) \
	X(EMUL_PIT_TIMER_CB, TRC_HVM_EMUL_PIT_TIMER_CB, "pit_timer_cb", 0, 0, nothing, \
	  emul_plain) \
	X(EMUL_LAPIC_TIMER_CB, TRC_HVM_EMUL_LAPIC_TIMER_CB, "lapic_timer_cb", 0, 0, nothing, \
	  emul_plain) \
	X(EMUL_PIC_INT_OUTPUT, TRC_HVM_EMUL_PIC_INT_OUTPUT, "pic_int_output", 3, 0, nothing, \
	  pic_int_output) \
	X(EMUL_PIC_KICK, TRC_HVM_EMUL_PIC_KICK, "pic_kick", 1, 0, nothing, pic_kick) \
	X(EMUL_PIC_INTACK, TRC_HVM_EMUL_PIC_INTACK, "pic_intack", 2, 0, nothing, pic_intack) \
	X(EMUL_PIC_POSEDGE, TRC_HVM_EMUL_PIC_POSEDGE, "pic_posedge", 1, 0, nothing, pic_edge) \
	X(EMUL_PIC_NEGEDGE, TRC_HVM_EMUL_PIC_NEGEDGE, "pic_negedge", 1, 0, nothing, pic_edge) \
	X(EMUL_PIC_PEND_IRQ_CALL, TRC_HVM_EMUL_PIC_PEND_IRQ_CALL, "pic_pend_irq_call", 2, 0, \
	  nothing, pic_pend_irq_call) \
	X(EMUL_LAPIC_PIC_INTR, TRC_HVM_EMUL_LAPIC_PIC_INTR, "lapic_pic_intr", 2, 0, nothing, \
	  lapic_pic_intr)

/*
 * PV records: the entry points, each also in its 64-bit form (addresses of
 * 64-bit guests), and the multicall sub-call.  The page-table write record
 * of a 64-bit guest is 64-bit whatever its flag says; the PAE one never is.
 */
#define VMA_XEN_PV_EVENTS(X) \
	X(PV_HYPERCALL, TRC_PV_HYPERCALL, "hypercall", 2, 0, hypercall_v1, hypercall_v1) \
	X(PV_HYPERCALL64, TRC_PV_HYPERCALL | TRC_64_FLAG, "hypercall", 3, VMA_XE_WIDE, \
	  hypercall_v1, hypercall_v1) \
	X(PV_TRAP, TRC_PV_TRAP, "trap", 2, 0, pv_trap, trap) \
	X(PV_TRAP64, TRC_PV_TRAP | TRC_64_FLAG, "trap", 3, VMA_XE_WIDE, pv_trap, trap) \
	PV_PLAIN(X, PAGE_FAULT, "page_fault") \
	PV_PLAIN(X, FORCED_INVALID_OP, "forced_invalid_op") \
	PV_PLAIN(X, EMULATE_PRIVOP, "emulate privop") \
	PV_PLAIN(X, EMULATE_4GB, "emulate 4g") \
	PV_PLAIN(X, MATH_STATE_RESTORE, "math state restore") \
	PV_PLAIN(X, PAGING_FIXUP, "paging fixup") \
	PV_PLAIN(X, GDT_LDT_MAPPING_FAULT, "gdt/ldt mapping fault") \
	X(PV_PTWR_EMULATION, TRC_PV_PTWR_EMULATION, "ptwr", 6, 0, count, ptwr) \
	X(PV_PTWR_EMULATION64, TRC_PV_PTWR_EMULATION | TRC_64_FLAG, "ptwr", 6, VMA_XE_WIDE, \
	  count, ptwr) \
	X(PV_PTWR_EMULATION_PAE, TRC_PV_PTWR_EMULATION_PAE, "ptwr(pae)", 4, 0, count, ptwr) \
	X(PV_PTWR_EMULATION_PAE64, TRC_PV_PTWR_EMULATION_PAE | TRC_64_FLAG, "ptwr(pae)", 4, \
	  VMA_XE_WIDE, count, ptwr) \
	X(PV_HYPERCALL_V2, TRC_PV_HYPERCALL_V2, "hypercall", 1, 0, hypercall_v2, hypercall_v2) \
	X(PV_HYPERCALL_V2_64, TRC_PV_HYPERCALL_V2 | TRC_64_FLAG, "hypercall", 1, VMA_XE_WIDE, \
	  hypercall_v2, hypercall_v2) \
	X(PV_HYPERCALL_SUBCALL, TRC_PV_HYPERCALL_SUBCALL, "hypercall (subcall)", 1, 0, \
	  hypercall_v2, subcall) \
	X(PV_HYPERCALL_SUBCALL64, TRC_PV_HYPERCALL_SUBCALL | TRC_64_FLAG, "hypercall (subcall)", \
	  1, VMA_XE_WIDE, hypercall_v2, subcall)

/* A PV entry point the dump lists as "name[ words ]" and the state counts. */
#define PV_PLAIN(X, sym, name) \
	X(PV_##sym, TRC_PV_##sym, name, 0, 0, count, generic) \
	X(PV_##sym##64, TRC_PV_##sym | TRC_64_FLAG, name, 0, VMA_XE_WIDE, count, generic)

/*
 * Shadow-paging records (TRC_SHADOW), each refining the open exit (a
 * shadow page fault): the fault's class, the page-table entry and address
 * it was about, the path it took (flags, VMA_SHF_*), or an event on the
 * way (a shadow unpinned to make room, a brute-force search, a resync).
 * Names are xenalyze's (its pf_xen_name[] and dump words).
 */
#define VMA_XE_SH (VMA_XE_EXIT | VMA_XE_LEVELS)
#define VMA_XEN_SHADOW_EVENTS(X) \
	X(SH_NOT_SHADOW, TRC_SHADOW_NOT_SHADOW, "propagate", VMA_XE_SHAPE(1, 1, 1), VMA_XE_SH, \
	  fault_flags, propagate) \
	X(SH_FAST_PROPAGATE, TRC_SHADOW_FAST_PROPAGATE, "fast propagate", 0, VMA_XE_EXIT, fault, \
	  fault_generic) \
	X(SH_FAST_MMIO, TRC_SHADOW_FAST_MMIO, "fast mmio", VMA_XE_SHAPE(0, 1, 0), VMA_XE_SH, \
	  fault, mmio) \
	X(SH_FALSE_FAST_PATH, TRC_SHADOW_FALSE_FAST_PATH, "false fast path", 0, VMA_XE_EXIT, \
	  fault, fault_generic) \
	X(SH_MMIO, TRC_SHADOW_MMIO, "mmio", VMA_XE_SHAPE(0, 1, 0), VMA_XE_SH, fault, mmio) \
	X(SH_FIXUP, TRC_SHADOW_FIXUP, "fixup", VMA_XE_SHAPE(1, 1, 1), VMA_XE_SH, fault_flags, \
	  fixup) \
	X(SH_DOMF_DYING, TRC_SHADOW_DOMF_DYING, "dom dying", 0, VMA_XE_EXIT, fault, fault_generic) \
	X(SH_EMULATE, TRC_SHADOW_EMULATE, "emulate", VMA_XE_SHAPE(2, 1, 1), VMA_XE_SH, emulate, \
	  emulate) \
	X(SH_UNSHADOW_USER, TRC_SHADOW_EMULATE_UNSHADOW_USER, "unshadow:user-mode", \
	  VMA_XE_SHAPE(1, 1, 0), VMA_XE_SH, fault, unshadow) \
	X(SH_UNSHADOW_EVTINJ, TRC_SHADOW_EMULATE_UNSHADOW_EVTINJ, "unshadow:evt inj", \
	  VMA_XE_SHAPE(1, 1, 0), VMA_XE_SH, fault, unshadow) \
	X(SH_UNSHADOW_UNHANDLED, TRC_SHADOW_EMULATE_UNSHADOW_UNHANDLED, \
	  "unshadow:unhandled instr", VMA_XE_SHAPE(1, 1, 0), VMA_XE_SH, fault, unshadow) \
	X(SH_WRMAP_BF, TRC_SHADOW_WRMAP_BF, "wrmap-bf", 2, VMA_XE_EXIT, nothing, gfn_record) \
	X(SH_PREALLOC_UNPIN, TRC_SHADOW_PREALLOC_UNPIN, "prealloc-unpin", 2, VMA_XE_EXIT, \
	  prealloc_unpin, gfn_record) \
	X(SH_RESYNC_FULL, TRC_SHADOW_RESYNC_FULL, "oos resync full", 2, VMA_XE_EXIT, nothing, \
	  gfn_record) \
	X(SH_RESYNC_ONLY, TRC_SHADOW_RESYNC_ONLY, "oos resync only", 2, VMA_XE_EXIT, nothing, \
	  gfn_record)

#define VMA_XEN_EVENTS(X) \
	VMA_XEN_GEN_EVENTS(X) VMA_XEN_SCHED_EVENTS(X) VMA_XEN_DOM0_EVENTS(X) VMA_XEN_HVM_EVENTS(X) \
	VMA_XEN_MEM_EVENTS(X) VMA_XEN_PV_EVENTS(X) VMA_XEN_SHADOW_EVENTS(X) VMA_XEN_HW_EVENTS(X)

enum vma_xe_index {
#define VMA_XE_ENUM(sym, id, name, words, flags, state, describe) VMA_XE_##sym,
	VMA_XEN_EVENTS(VMA_XE_ENUM)
#undef VMA_XE_ENUM
	VMA_XE_COUNT,
	VMA_XE_NONE = VMA_XE_COUNT /* an id without a row */
};

struct vma_xen_event {
	uint32_t id;
	uint8_t words;
	uint8_t flags;
	uint8_t cls;    /* enum vma_xen_class */
	const char *name;
};

/* The rows' id, name, size and flags, indexed by enum vma_xe_index (xen-events.c). */
extern const struct vma_xen_event vma_xen_events[VMA_XE_COUNT];

/*
 * vma_xen_event_index - the row of @event, VMA_XE_NONE when it has none.
 * For names and the rarer records; the per-record paths expand the list
 * as the cases of their own switch, with the row's columns as constants.
 */
enum vma_xe_index vma_xen_event_index(uint32_t event);

/*
 * vma_xe_short - a record of @words and @flags (a row's) is too short for
 * it (or, for an exact row, not its size): the state stage does not use it
 * and the dump prints it raw.  The one rule; callers that expand the list
 * pass the row's constants, others call vma_xen_event_short().
 */
/* A shadow record's paging levels, 2 to 4 in a sound one (bits 11:8 + 2). */
static inline unsigned int vma_xf_sh_levels(const struct vma_record *r)
{
	return ((r->event >> 8) & 0xfu) + 2;
}

/* Words of a shadow entry and address for @r's levels. */
static inline unsigned int vma_xf_sh_entry_words(const struct vma_record *r)
{
	return vma_xf_sh_levels(r) == 2 ? 1 : 2;
}

static inline unsigned int vma_xf_sh_addr_words(const struct vma_record *r)
{
	return vma_xf_sh_levels(r) == 4 ? 2 : 1;
}

/* The words a VMA_XE_SHAPE() needs at @r's levels; more than any record for bad levels. */
static inline unsigned int vma_xe_shape_words(const struct vma_record *r, unsigned int shape)
{
	if (vma_xf_sh_levels(r) > 4)
		return 0x10000u;
	return (shape >> 5) * vma_xf_sh_entry_words(r) +
	       ((shape >> 3) & 3u) * vma_xf_sh_addr_words(r) + (shape & 7u);
}

static inline bool vma_xe_short(const struct vma_record *rec, unsigned int words,
				unsigned int flags)
{
	if (flags & VMA_XE_LEVELS)
		words = vma_xe_shape_words(rec, words);
	/* Fewer words wrap around to far more than any allowance. */
	return (uint32_t)rec->nr_data - words > ((flags & VMA_XE_EXACT) ? 0u : 0xffffu);
}

static inline bool vma_xen_event_short(enum vma_xe_index row, const struct vma_record *rec)
{
	return vma_xe_short(rec, vma_xen_events[row].words, vma_xen_events[row].flags);
}

/*
 * --- Field accessors ---
 *
 * Named by record and field; both stages read payloads only through
 * these.  A record's row guarantees the words they read, except where an
 * accessor says a field is optional.
 */

/* Payload word @i, or 0 past the end of the record. */
static inline uint32_t vma_xw(const struct vma_record *rec, unsigned int i)
{
	return i < rec->nr_data ? rec->data[i] : 0;
}

/* Payload words @i and @i+1 as one little-endian 64-bit value (the row has them). */
static inline uint64_t vma_xq(const struct vma_record *rec, unsigned int i)
{
	return vma_rec_u64(rec, i);
}

static inline bool vma_xe_wide(const struct vma_record *rec)
{
	return (rec->event & TRC_64_FLAG) != 0;
}

/* A field that is one word in the 32-bit layout and two in the 64-bit one. */
static inline uint64_t vma_xe_long(const struct vma_record *rec, unsigned int i)
{
	return vma_xe_wide(rec) ? vma_xq(rec, i) : rec->data[i];
}

/*
 * Runstate records (TRC_SCHED_MIN) are no rows: the id is the change,
 * minor = old:4 new:4 type:4 (type 1 a change, 2 a "continue", that is
 * running->running), payload {vcpu:16, dom:16}, perhaps followed by two
 * u64 performance counters.  Both stages read one only when it is of
 * type 1 or 2 and has its vcpu word: vma_xf_runstate() says so, and gives
 * the change.  (Of changes naming states Xen does not have, the dump names
 * xenalyze's pseudo-states; the analysis takes none.)
 */
enum vma_xf_runstate_fit {
	VMA_XF_RUNSTATE_OK,
	VMA_XF_RUNSTATE_BAD_TYPE,  /* neither a change nor a continue */
	VMA_XF_RUNSTATE_SHORT,     /* no vcpu word */
};

struct vma_xf_runstate {
	enum vma_xf_runstate_fit fit;
	uint32_t old_state, new_state; /* Xen's numbering; running->running for a continue */
};

static inline struct vma_xf_runstate vma_xf_runstate(const struct vma_record *r)
{
	uint32_t type = r->event & 0xfu;
	struct vma_xf_runstate rs = { VMA_XF_RUNSTATE_OK, 0, 0 };

	if (type != 1 && type != 2)
		rs.fit = VMA_XF_RUNSTATE_BAD_TYPE;
	else if (r->nr_data < 1)
		rs.fit = VMA_XF_RUNSTATE_SHORT;
	else if (type == 1) {
		rs.old_state = (r->event >> 8) & 0xfu;
		rs.new_state = (r->event >> 4) & 0xfu;
	}
	return rs;
}

static inline bool vma_xf_runstate_continue(const struct vma_record *r)
{
	return (r->event & 0xfu) == 2;
}
static inline uint32_t vma_xf_runstate_dom(const struct vma_record *r) { return r->data[0] >> 16; }
static inline uint32_t vma_xf_runstate_vcpu(const struct vma_record *r)
{
	return r->data[0] & 0xffffu;
}
static inline bool vma_xf_runstate_has_counters(const struct vma_record *r)
{
	return r->nr_data == 5;
}

/* lost_records {u32 lost; u16 did, vid; u64 first_tsc} (also the end-of-gap record's) */
static inline uint32_t vma_xf_lost_count(const struct vma_record *r) { return r->data[0]; }
static inline uint32_t vma_xf_lost_did(const struct vma_record *r) { return r->data[1] & 0xffffu; }
static inline uint32_t vma_xf_lost_vid(const struct vma_record *r) { return r->data[1] >> 16; }
static inline uint64_t vma_xf_lost_first_tsc(const struct vma_record *r) { return vma_xq(r, 2); }

/* cpu_change {cpu, window size} */
static inline uint32_t vma_xf_cpu_change_cpu(const struct vma_record *r) { return r->data[0]; }
static inline uint32_t vma_xf_cpu_change_window(const struct vma_record *r) { return r->data[1]; }

/* dom0 domain operations {domain} */
static inline uint32_t vma_xf_dom_op_domain(const struct vma_record *r) { return r->data[0]; }

/*
 * grant_* {domid}: Xen writes a 16-bit domid, so the word's upper half is
 * whatever followed it; the dump prints the whole word, as xenalyze does.
 */
static inline uint32_t vma_xf_grant_word(const struct vma_record *r) { return r->data[0]; }
static inline uint32_t vma_xf_grant_domain(const struct vma_record *r)
{
	return r->data[0] & 0xffffu;
}

/* set_p2m_entry {u64 gfn, u64 mfn; p2m type; domain:16, order:16} */
static inline uint64_t vma_xf_p2m_gfn(const struct vma_record *r) { return vma_xq(r, 0); }
static inline uint64_t vma_xf_p2m_mfn(const struct vma_record *r) { return vma_xq(r, 2); }
static inline uint32_t vma_xf_p2m_type(const struct vma_record *r) { return r->data[4]; }
static inline uint32_t vma_xf_p2m_domain(const struct vma_record *r)
{
	return r->data[5] & 0xffffu;
}
static inline uint32_t vma_xf_p2m_order(const struct vma_record *r) { return r->data[5] >> 16; }

/* decrease_reservation, pod_spage_splinter {u64 gfn; domain, order} */
static inline uint64_t vma_xf_gfn_gfn(const struct vma_record *r) { return vma_xq(r, 0); }
static inline uint32_t vma_xf_gfn_domain(const struct vma_record *r) { return r->data[2]; }
static inline uint32_t vma_xf_gfn_order(const struct vma_record *r) { return r->data[3]; }

/* pod_populate, pod_zero_reclaim {u64 gfn, u64 mfn; domain, order} */
static inline uint64_t vma_xf_pod_gfn(const struct vma_record *r) { return vma_xq(r, 0); }
static inline uint64_t vma_xf_pod_mfn(const struct vma_record *r) { return vma_xq(r, 2); }
static inline uint32_t vma_xf_pod_domain(const struct vma_record *r) { return r->data[4]; }
static inline uint32_t vma_xf_pod_order(const struct vma_record *r) { return r->data[5]; }

/* Why populate-on-demand memory was reclaimed, judged by the open exit. */
enum vma_pod_reason { VMA_POD_REASON_UNKNOWN, VMA_POD_REASON_FAULT, VMA_POD_REASON_BALLOON };

/*
 * The open exit's VMX reason says it (xenalyze's rule: EXCEPTION_NMI and
 * EPT_VIOLATION are faults, VMCALL is the balloon driver); SVM's codes mean
 * other things, so an SVM exit says nothing.
 */
static inline enum vma_pod_reason vma_xen_pod_reason(bool exit_open, uint32_t reason, bool svm)
{
	if (!exit_open || svm)
		return VMA_POD_REASON_UNKNOWN;
	switch (reason) {
	case 0:  /* EXCEPTION_NMI */
	case 48: /* EPT_VIOLATION */
		return VMA_POD_REASON_FAULT;
	case 18: /* VMCALL */
		return VMA_POD_REASON_BALLOON;
	}
	return VMA_POD_REASON_UNKNOWN;
}

/* PV hypercall, first form {eip (long); eax} */
static inline uint64_t vma_xf_hc1_eip(const struct vma_record *r) { return vma_xe_long(r, 0); }
static inline uint32_t vma_xf_hc1_eax(const struct vma_record *r)
{
	return r->data[vma_xe_wide(r) ? 2 : 1];
}

/* PV hypercall v2 and sub-call {op | argument kinds; arguments...} */
static inline uint32_t vma_xf_hc2_op(const struct vma_record *r)
{
	return r->data[0] & ~(uint32_t)TRC_PV_HYPERCALL_V2_ARG_MASK;
}

/* How argument @i is present: 0 absent, 1 one word, 2 two words. */
static inline unsigned int vma_xf_hc2_arg_kind(const struct vma_record *r, unsigned int i)
{
	return (r->data[0] >> (20 + 2 * i)) & 0x3u;
}

/* PV trap {eip (long); trapnr:15, use_error_code:1, error_code:16} */
static inline uint64_t vma_xf_trap_eip(const struct vma_record *r) { return vma_xe_long(r, 0); }
static inline uint32_t vma_xf_trap_info(const struct vma_record *r)
{
	return r->data[vma_xe_wide(r) ? 2 : 1];
}

/* ptwr {u64 pte; addr, eip}, both u64 in the 64-bit guest's record */
static inline bool vma_xf_ptwr_wide(const struct vma_record *r)
{
	return (r->event & 0xffu) == (TRC_PV_PTWR_EMULATION & 0xffu);
}
static inline uint64_t vma_xf_ptwr_pte(const struct vma_record *r) { return vma_xq(r, 0); }
static inline uint64_t vma_xf_ptwr_addr(const struct vma_record *r)
{
	return vma_xf_ptwr_wide(r) ? vma_xq(r, 2) : r->data[2];
}
static inline uint64_t vma_xf_ptwr_eip(const struct vma_record *r)
{
	return vma_xf_ptwr_wide(r) ? vma_xq(r, 4) : r->data[3];
}

/* vmexit {reason; rip (long)} */
static inline uint32_t vma_xf_exit_reason(const struct vma_record *r) { return r->data[0]; }
static inline uint64_t vma_xf_exit_rip(const struct vma_record *r) { return vma_xe_long(r, 1); }

/* Handler records whose first word is their key (port, CR, MSR, eax...). */
static inline uint32_t vma_xf_key(const struct vma_record *r) { return vma_xw(r, 0); }

/* cr_read, cr_write {cr; value (long)} */
static inline uint32_t vma_xf_cr(const struct vma_record *r) { return r->data[0]; }
static inline uint64_t vma_xf_cr_value(const struct vma_record *r) { return vma_xe_long(r, 1); }

/* msr_read, msr_write {msr; u64 value} */
static inline uint32_t vma_xf_msr(const struct vma_record *r) { return r->data[0]; }
static inline uint64_t vma_xf_msr_value(const struct vma_record *r) { return vma_xq(r, 1); }

/* vmcall {eax}: the hypercall number */
static inline uint32_t vma_xf_vmcall_eax(const struct vma_record *r) { return r->data[0]; }

/* io_assist {port; data}; string I/O has no data word. */
static inline uint32_t vma_xf_io_port(const struct vma_record *r) { return r->data[0]; }
static inline bool vma_xf_io_has_data(const struct vma_record *r) { return r->nr_data >= 2; }
static inline uint32_t vma_xf_io_data(const struct vma_record *r) { return r->data[1]; }
static inline bool vma_xf_io_write(const struct vma_record *r)
{
	return (r->event & ~(uint32_t)TRC_64_FLAG) == TRC_HVM_IOPORT_WRITE;
}

/* mmio_assist {gpa (long); data}: the data word only in the full-size record. */
static inline uint64_t vma_xf_mmio_gpa(const struct vma_record *r) { return vma_xe_long(r, 0); }
static inline bool vma_xf_mmio_has_data(const struct vma_record *r)
{
	return r->nr_data == (vma_xe_wide(r) ? 4u : 2u);
}
static inline uint32_t vma_xf_mmio_data(const struct vma_record *r)
{
	return r->data[vma_xe_wide(r) ? 2 : 1];
}
static inline bool vma_xf_mmio_write(const struct vma_record *r)
{
	return (r->event & ~(uint32_t)TRC_64_FLAG) == TRC_HVM_IOMEM_WRITE;
}

/* intr {vector}: VMX's only; SVM's interrupt exit carries none (0). */
static inline uint32_t vma_xf_intr_vector(const struct vma_record *r, bool svm)
{
	return svm ? 0 : vma_xw(r, 0);
}

/* inj_virq {vector, fake}; reinj_virq {vector} */
static inline uint32_t vma_xf_virq_vector(const struct vma_record *r) { return r->data[0]; }
static inline bool vma_xf_virq_fake(const struct vma_record *r) { return r->data[1] != 0; }

/* rdtsc {u64 tsc}: the value the guest read */
static inline uint64_t vma_xf_rdtsc_value(const struct vma_record *r) { return vma_xq(r, 0); }

/* pf_xen {va (long); error code} */
static inline uint64_t vma_xf_pf_va(const struct vma_record *r) { return vma_xe_long(r, 0); }
static inline uint32_t vma_xf_pf_ec(const struct vma_record *r)
{
	return r->data[vma_xe_wide(r) ? 2 : 1];
}

/* pf_inject {error code; cr2 (long)} */
static inline uint32_t vma_xf_pf_inject_ec(const struct vma_record *r) { return r->data[0]; }
static inline uint64_t vma_xf_pf_inject_cr2(const struct vma_record *r)
{
	return vma_xe_long(r, 1);
}

/* inj_exc {vector, error code} */
static inline uint32_t vma_xf_exc_vector(const struct vma_record *r) { return r->data[0]; }
static inline uint32_t vma_xf_exc_ec(const struct vma_record *r) { return r->data[1]; }

/* intr_window {vector, source, pending vector or -1} */
static inline uint32_t vma_xf_iw_vector(const struct vma_record *r) { return r->data[0]; }
static inline uint32_t vma_xf_iw_source(const struct vma_record *r) { return r->data[1]; }
static inline int32_t vma_xf_iw_pending(const struct vma_record *r) { return (int32_t)r->data[2]; }

/* npf {u64 gpa, u64 mfn, qualification, p2m type} */
static inline uint64_t vma_xf_npf_gpa(const struct vma_record *r) { return vma_xq(r, 0); }
static inline uint64_t vma_xf_npf_mfn(const struct vma_record *r) { return vma_xq(r, 2); }
static inline uint32_t vma_xf_npf_qual(const struct vma_record *r) { return r->data[4]; }
static inline int32_t vma_xf_npf_type(const struct vma_record *r) { return (int32_t)r->data[5]; }

/* xcr_read, xcr_write {xcr; u64 value} */
static inline uint32_t vma_xf_xcr(const struct vma_record *r) { return r->data[0]; }
static inline uint64_t vma_xf_xcr_value(const struct vma_record *r) { return vma_xq(r, 1); }

/* Emulated timers: hpet {timer, irq, u64 delta, u64 period}, pit/rtc {delta, period},
 * lapic {u64 delta, u64 period, irq}; pic records: their words in order. */
static inline uint32_t vma_xf_emul_word(const struct vma_record *r, unsigned int i)
{
	return r->data[i];
}

/*
 * Shadow records (their rows say which fields each has): an entry, then an
 * address, then flags; the emulation record has two entries (the entry
 * and the value written).  The flags are Xen's trace_shadow_path_flags.
 */
enum vma_sh_flag {
	VMA_SHF_SET_AD = 1u << 0,
	VMA_SHF_SET_A = 1u << 1,
	VMA_SHF_L1_GET_REF = 1u << 2,
	VMA_SHF_L1_PUT_REF = 1u << 3,
	VMA_SHF_DEMOTE = 1u << 8,
	VMA_SHF_PROMOTE = 1u << 9,
	VMA_SHF_WRMAP = 1u << 10,
	VMA_SHF_WRMAP_GUESS_FOUND = 1u << 11,
	VMA_SHF_EARLY_UNSHADOW = 1u << 13,
	VMA_SHF_PREALLOC_UNHOOK = 1u << 17,
	VMA_SHF_UNSYNC = 1u << 18,
	VMA_SHF_OOS_FIXUP_ADD = 1u << 19,
	VMA_SHF_OOS_FIXUP_EVICT = 1u << 20,
};

static inline uint32_t vma_xf_sh_minor(const struct vma_record *r) { return r->event & 0xffu; }

/* Entry @i (of the leading entries): 32-bit for 2-level guests. */
static inline uint64_t vma_xf_sh_entry(const struct vma_record *r, unsigned int i)
{
	unsigned int w = vma_xf_sh_entry_words(r);

	return w == 2 ? vma_xq(r, 2 * i) : r->data[i];
}

/* The address after @entries entries: 64-bit for 4-level guests. */
static inline uint64_t vma_xf_sh_addr(const struct vma_record *r, unsigned int entries)
{
	unsigned int at = entries * vma_xf_sh_entry_words(r);

	return vma_xf_sh_addr_words(r) == 2 ? vma_xq(r, at) : r->data[at];
}

/* The word after @entries entries and one address. */
static inline uint32_t vma_xf_sh_word(const struct vma_record *r, unsigned int entries)
{
	return r->data[entries * vma_xf_sh_entry_words(r) + vma_xf_sh_addr_words(r)];
}

/* propagate, fixup {gl1e; va; flags}; the unshadow cases {gfn; va} */
static inline uint64_t vma_xf_sh_fault_gl1e(const struct vma_record *r)
{
	return vma_xf_sh_entry(r, 0);
}
static inline uint64_t vma_xf_sh_fault_va(const struct vma_record *r)
{
	return vma_xf_sh_addr(r, 1);
}
static inline uint32_t vma_xf_sh_fault_flags(const struct vma_record *r)
{
	return vma_xf_sh_word(r, 1);
}

/* emulate {gl1e, value written; va; flags:29, emulation count:3} */
static inline uint64_t vma_xf_sh_emul_gl1e(const struct vma_record *r)
{
	return vma_xf_sh_entry(r, 0);
}
static inline uint64_t vma_xf_sh_emul_wval(const struct vma_record *r)
{
	return vma_xf_sh_entry(r, 1);
}
static inline uint64_t vma_xf_sh_emul_va(const struct vma_record *r)
{
	return vma_xf_sh_addr(r, 2);
}
static inline uint32_t vma_xf_sh_emul_flags(const struct vma_record *r)
{
	return vma_xf_sh_word(r, 2) & 0x1fffffffu;
}

/* mmio, fast mmio {va} */
static inline uint64_t vma_xf_sh_mmio_va(const struct vma_record *r)
{
	return vma_xf_sh_addr(r, 0);
}

/* wrmap-bf, prealloc-unpin, resync {gfn (u64)} */
static inline uint64_t vma_xf_sh_gfn(const struct vma_record *r) { return vma_xq(r, 0); }

#endif /* VMALYZE_XEN_EVENTS_H */
