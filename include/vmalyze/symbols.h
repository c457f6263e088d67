/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Guest symbols (--symbol-file): a table of "address name" lines, read in
 * any order and sorted here, so that guest EIPs can be shown as name+off.
 * Lines of System.map ("address type name") are read too; blank lines and
 * lines starting with '#' are skipped.
 */
#ifndef VMALYZE_SYMBOLS_H
#define VMALYZE_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct vma_symbols;

/*
 * vma_symbols_read - read a symbol table from @in, named @name in
 * messages, which go to @err ("NAME:LINE (byte OFFSET): ...").
 * Return: VMA_OK and *@out (owned, vma_symbols_destroy()), or VMA_ERR_IO,
 * VMA_ERR_FORMAT (a line that is not a symbol) or VMA_ERR_NOMEM.
 */
int vma_symbols_read(FILE *in, const char *name, struct vma_symbols **out, FILE *err);

/* vma_symbols_load - vma_symbols_read() of the file at @path. */
int vma_symbols_load(const char *path, struct vma_symbols **out, FILE *err);

void vma_symbols_destroy(struct vma_symbols *syms);

size_t vma_symbols_count(const struct vma_symbols *syms);

/*
 * vma_symbols_find - the symbol at or below @addr, and @addr's offset from
 * it in *@off.  Return: its name, or NULL when @addr is below every symbol
 * (or @syms is NULL).
 */
const char *vma_symbols_find(const struct vma_symbols *syms, uint64_t addr, uint64_t *off);

/*
 * vma_symbols_format - "name+0xOFF" of @addr into @buf (empty when no
 * symbol covers it).  Return: the length written.
 */
size_t vma_symbols_format(const struct vma_symbols *syms, uint64_t addr, char *buf,
			  size_t len);

#endif /* VMALYZE_SYMBOLS_H */
