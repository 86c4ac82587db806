// SPDX-License-Identifier: MIT
// Counts the strong retains and releases that the Swift runtime performs, on every thread,
// through the runtime's own instrumentation entry points (the ones ordo-one/benchmark's ARC
// metrics use), with a fix for the Swift 6.3 Linux retain hook. See RefCountProbe.c.
#ifndef REFCOUNT_PROBE_H
#define REFCOUNT_PROBE_H

#include <stdint.h>

/// Retains (swift_retain, and so swift_bridgeObjectRetain; swift_retain_n counts n;
/// a successful swift_tryRetain counts one) and releases (swift_release, and so
/// swift_bridgeObjectRelease; swift_release_n counts n), summed over all threads since
/// the hooks were installed.
typedef struct {
    uint64_t retains;
    uint64_t releases;
} refcount_probe_counts;

/// Installs the hooks, once. Returns 0 when counting works, or -1 with a reason in
/// refcount_probe_error(). Call from one thread before counting.
int refcount_probe_install(void);

/// Why refcount_probe_install() failed, or NULL.
const char *refcount_probe_error(void);

/// Routes retains and releases through the counters (1) or lets the runtime take its fast
/// path again (0). Any thread.
void refcount_probe_set_enabled(int enabled);

/// The counters now. Any thread; counts of other threads still running may be a few
/// operations behind.
refcount_probe_counts refcount_probe_read(void);

#endif
