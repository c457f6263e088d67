/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Human-readable names of the shared status codes. */
#include "vmalyze/status.h"

const char *vma_status_str(int status)
{
	switch (status) {
	case VMA_OK:
		return "success";
	case VMA_END:
		return "end of data";
	case VMA_PAUSED:
		return "no record yet";
	case VMA_ERR_IO:
		return "cannot read the input";
	case VMA_ERR_FORMAT:
		return "not a trace vmalyze reads";
	case VMA_ERR_DAMAGED:
		return "input damaged beyond --tolerance";
	case VMA_ERR_NOMEM:
		return "out of memory";
	case VMA_ERR_USAGE:
		return "bad command line";
	case VMA_ERR_OUTPUT:
		return "cannot write the output";
	}
	return "unknown error";
}
