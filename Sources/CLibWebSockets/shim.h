// SPDX-License-Identifier: MIT
// C glue for Swift: libwebsockets' API (with its libuv helpers: the service thread runs lws
// on a libuv loop it owns) plus wrappers for the macros Swift cannot import.
#ifndef CLIBWEBSOCKETS_SHIM_H
#define CLIBWEBSOCKETS_SHIM_H

#include <uv.h>
#include <libwebsockets.h>
#include <malloc.h>
#include <sys/prctl.h>

/// LWS_PRE: the headroom lws_write needs before the payload.
static inline size_t CLibWebSockets_pre(void) { return LWS_PRE; }

/// Writes one line into lws' own log at level `level` (LLL_*).
static inline void CLibWebSockets_log(int level, const char *line) { _lws_log(level, "%s", line); }

/// Returns free heap memory to the system (glibc's malloc_trim); 1 if some was released.
static inline int CLibWebSockets_trim_heap(void) { return malloc_trim(0); }

/// Names the calling thread for the kernel (at most 15 bytes: /proc/PID/task/TID/comm,
/// `top -H`); prctl is variadic, which Swift cannot call.
static inline void CLibWebSockets_name_thread(const char *name) { prctl(PR_SET_NAME, name, 0, 0, 0); }

#endif
