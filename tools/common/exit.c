// SPDX-License-Identifier: GPL-2.0
/* The format library's errors, as the shared exit statuses (exit.h). */
#include "exit.h"

int tool_exit_for(enum crib_err code)
{
	switch (code) {
	case CRIB_OK:
		return TOOL_EXIT_OK;
	case CRIB_E_IO:
	case CRIB_E_NOMEM:
		return TOOL_EXIT_IO;
	case CRIB_E_MAGIC:
	case CRIB_E_VERSION:
	case CRIB_E_CRITICAL:
		return TOOL_EXIT_UNSUPPORTED;
	default:
		return TOOL_EXIT_CORRUPT;
	}
}
