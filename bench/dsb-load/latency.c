// SPDX-License-Identifier: MIT
//
// Round-trip times of calls (--latency): each call's send time is kept in its slot (id
// modulo MAX_INFLIGHT: at most that many are in flight, so slots never collide), and each
// answer inside the window adds its round trip, in whole microseconds, to its worker's
// histogram (one bucket per microsecond up to LATENCY_MAX_US, the rest in the last one).
// No allocation per call; off unless --latency.
#include "load.h"

#include <stdlib.h>
#include <time.h>

atomic_int latency_recording;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void latency_init(struct worker *w)
{
	w->latency = calloc(LATENCY_MAX_US + 1, sizeof *w->latency);
	if (!w->latency)
		fail(NULL, "no memory for the latency histogram");
}

void latency_sent(struct conn *c, uint64_t id)
{
	c->sent_ns[id % MAX_INFLIGHT] = now_ns();
}

void latency_answered(struct conn *c, uint64_t id)
{
	if (!atomic_load_explicit(&latency_recording, memory_order_relaxed))
		return;
	uint64_t us = (now_ns() - c->sent_ns[id % MAX_INFLIGHT]) / 1000;
	c->w->latency[us > LATENCY_MAX_US ? LATENCY_MAX_US : us]++;
}

/* The smallest round trip (µs) that `share` of the recorded calls did not exceed. */
static double quantile(const uint64_t *h, uint64_t total, double share)
{
	uint64_t rank = (uint64_t)((double)total * share + 0.5), seen = 0;
	if (rank < 1)
		rank = 1;
	for (uint32_t us = 0; us <= LATENCY_MAX_US; us++) {
		seen += h[us];
		if (seen >= rank)
			return us;
	}
	return LATENCY_MAX_US;
}

struct latency_summary latency_summary(struct worker *ws, int n)
{
	struct latency_summary s = { 0 };
	uint64_t *all = calloc(LATENCY_MAX_US + 1, sizeof *all);
	if (!all)
		fail(NULL, "no memory for the latency histogram");
	for (int i = 0; i < n; i++)
		for (uint32_t us = 0; us <= LATENCY_MAX_US; us++)
			all[us] += ws[i].latency[us];
	for (uint32_t us = 0; us <= LATENCY_MAX_US; us++) {
		s.count += all[us];
		if (all[us])
			s.max = us;
	}
	if (s.count) {
		s.p50 = quantile(all, s.count, 0.50);
		s.p99 = quantile(all, s.count, 0.99);
		s.p999 = quantile(all, s.count, 0.999);
	}
	free(all);
	return s;
}
