// SPDX-License-Identifier: MIT
//
// Calls in flight on one connection. Ids go out in increasing order from FIRST_ID, always
// ten digits, so queueing a call is a copy of the connection's prebuilt call and ten bytes
// patched (masked for a WebSocket frame), from the next id's digits kept ready in ASCII.
// An answer must name a call that was sent and not yet answered: ids base .. next_id - 1
// are in flight, bit k of `answered` says base + k has its answer (answers may come in any
// order; base moves past the answered prefix).
#include "load.h"

#include <string.h>

/* The client's masking key, one for every frame (RFC 6455 5.3 asks a client to pick
 * each key unpredictably, against proxies' cache poisoning; a loopback load generator
 * has no proxy to poison, and a fixed key lets every frame be built once). */
const uint8_t mask_key[4] = { 0x37, 0xfa, 0x21, 0x3d };

void calls_init(struct conn *c)
{
	c->next_id = c->base = FIRST_ID;
	uint64_t id = FIRST_ID;
	for (int i = ID_DIGITS - 1; i >= 0; i--) {
		c->next_digits[i] = (uint8_t)('0' + id % 10);
		id /= 10;
	}
}

int id_parse(const uint8_t *p, uint64_t *id)
{
	uint64_t v = 0;
	for (int i = 0; i < ID_DIGITS; i++) {
		if (p[i] < '0' || p[i] > '9')
			return 0;
		v = v * 10 + (uint64_t)(p[i] - '0');
	}
	*id = v;
	return 1;
}

void call_queue(struct conn *c)
{
	const struct call_template *t = &c->call;
	if (c->tx_len + t->len > TX_CAP)
		fail(c, "the output buffer is full (the server does not read?)");
	uint8_t *out = c->tx + c->tx_len;
	memcpy(out, t->bytes, t->len);
	for (size_t i = 0; i < ID_DIGITS; i++) {
		/* The masking key repeats every four bytes from the payload's first byte. */
		uint8_t m = t->masked ? mask_key[(t->id_at - t->payload_at + i) & 3] : 0;
		out[t->id_at + i] = c->next_digits[i] ^ m;
	}
	/* The next id's digits: the last one up by one, carrying as on paper. */
	for (int i = ID_DIGITS - 1; i >= 0 && ++c->next_digits[i] > '9'; i--)
		c->next_digits[i] = '0';
	c->tx_len += t->len;
	if (c->w->o->latency)
		latency_sent(c, c->next_id);
	c->next_id++;
}

void call_answered(struct conn *c, uint64_t id)
{
	if (id < c->base || id >= c->next_id)
		fail(c, "an answer to call %llu, which is not in flight (in flight: %llu to %llu)",
		     (unsigned long long)id, (unsigned long long)c->base, (unsigned long long)c->next_id - 1);
	uint64_t bit = 1ULL << (id - c->base);
	if (c->answered & bit)
		fail(c, "a second answer to call %llu", (unsigned long long)id);
	c->answered |= bit;
	if (c->w->o->latency)
		latency_answered(c, id);
	while (c->answered & 1) {
		c->answered >>= 1;
		c->base++;
	}
	c->w->local_answers++;
	/* Closed loop: each answer lets the next call go, so the connection keeps its
	 * calls in flight and the server sets the rate (paced: the clock does, main.c). */
	if (c->w->o->rate <= 0 && !atomic_load_explicit(&load_stop, memory_order_relaxed))
		call_queue(c);
}
