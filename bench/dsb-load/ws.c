// SPDX-License-Identifier: MIT
//
// The WebSocket side of dsb-load (RFC 6455 client, text frames only).
//
// Setup: the upgrade (`GET /dsbridge`, subprotocol dsbridge.v1, or lws-echo for an echo
// server: bench/lws-echo.c needs it, uWebSockets takes any); against dsbridged the
// page's `hello` and the server's `welcome` (PROTOCOL.md 2.1). Then each connection's call
// is prebuilt as a whole masked frame:
//     {"t":"call","id":1000000001,"method":"echo.syn","arg":{"data":"xxxx…"}}
// and queued per call by calls.c. An echo server gets the very same frames.
//
// Answers: an echo server's frame must be the call's payload byte for byte (its id one in
// flight); dsbridged's `ret` (alone or in a batch) must have code 0, the call's `data`,
// an id in flight and a `seq`. The page acknowledges (`ack`) every --ack-every messages,
// well within the replay bound (PROTOCOL.md 2.3), and at the latest within a second of the
// first message it has not acknowledged (main.c's sweep), and answers pings with pongs. A close
// frame, a fragmented or binary frame, or any other message stops the run.
#include "load.h"

#include <stdio.h>
#include <string.h>

/* A masked client frame (FIN, opcode) of payload into out; returns its length. */
static size_t frame_build(uint8_t *out, int opcode, const uint8_t *payload, size_t len)
{
	size_t h = 0;
	out[h++] = (uint8_t)(0x80 | opcode);
	if (len < 126) {
		out[h++] = (uint8_t)(0x80 | len);
	} else {
		out[h++] = 0x80 | 126; /* len < 64 KiB here */
		out[h++] = (uint8_t)(len >> 8);
		out[h++] = (uint8_t)len;
	}
	memcpy(out + h, mask_key, 4);
	h += 4;
	for (size_t i = 0; i < len; i++)
		out[h + i] = payload[i] ^ mask_key[i & 3];
	return h + len;
}

/* The size of the frame at p when all of it is there (else 0); its header's size and
 * payload length. */
static size_t frame_complete(const struct conn *c, const uint8_t *p, size_t n, size_t *hdr, size_t *len)
{
	if (n < 2)
		return 0;
	if (p[1] & 0x80)
		fail(c, "a masked frame from the server");
	uint64_t l = p[1] & 0x7f;
	size_t h = 2;
	if (l == 126) {
		if (n < 4)
			return 0;
		l = (uint64_t)p[2] << 8 | p[3];
		h = 4;
	} else if (l == 127) {
		if (n < 10)
			return 0;
		l = 0;
		for (int i = 2; i < 10; i++)
			l = l << 8 | p[i];
		h = 10;
	}
	if (h + l > RX_CAP)
		fail(c, "a frame of %llu bytes (more than dsb-load reads)", (unsigned long long)l);
	if (n < h + l)
		return 0;
	*hdr = h;
	*len = (size_t)l;
	return h + (size_t)l;
}

/* Reads during setup until rx holds a whole frame; returns its size. */
static size_t read_frame(struct conn *c, size_t *hdr, size_t *len)
{
	size_t whole;
	while (!(whole = frame_complete(c, c->rx, c->rx_len, hdr, len)))
		c->rx_len += conn_read_some(c, c->rx + c->rx_len, RX_CAP - c->rx_len);
	return whole;
}

static void consume(struct conn *c, size_t n)
{
	memmove(c->rx, c->rx + n, c->rx_len - n);
	c->rx_len -= n;
}

/* The call, built once: the unmasked payload in plain, the frame in bytes. */
static void build_call(struct conn *c, const struct options *o)
{
	struct call_template *t = &c->call;
	int n = snprintf((char *)t->plain, sizeof t->plain, "{\"t\":\"call\",\"id\":%llu,\"method\":\"%s\",\"arg\":{\"data\":\"",
			 (unsigned long long)FIRST_ID, o->method);
	size_t at = (size_t)n;
	if (at + (size_t)o->payload + 3 > sizeof t->plain)
		fail(c, "--payload %d is too large", o->payload);
	t->data_at = at - 1;
	memset(t->plain + at, 'x', (size_t)o->payload - 2);
	at += (size_t)o->payload - 2;
	memcpy(t->plain + at, "\"}}", 3);
	t->data_len = (size_t)o->payload;
	t->payload_len = at + 3;
	const char *idp = strstr((const char *)t->plain, "\"id\":") + 5;
	size_t id_in_payload = (size_t)(idp - (const char *)t->plain);
	t->len = frame_build(t->bytes, 1, t->plain, t->payload_len);
	t->payload_at = t->len - t->payload_len;
	t->id_at = t->payload_at + id_in_payload;
	t->masked = 1;
}

void ws_setup(struct conn *c, const struct options *o)
{
	char req[512];
	int n = snprintf(req, sizeof req,
			 "GET /dsbridge HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
			 "Sec-WebSocket-Key: ZHNiLWxvYWQta2V5LTAwMQ==\r\nSec-WebSocket-Version: 13\r\n"
			 "Sec-WebSocket-Protocol: %s\r\n\r\n",
			 o->host, o->port, o->server == SERVER_DSBRIDGED ? "dsbridge.v1" : "lws-echo");
	conn_write_all(c, req, (size_t)n);
	/* The answer's head; what follows it (nothing, before the hello) stays in rx. */
	uint8_t *end;
	while (!(end = memmem(c->rx, c->rx_len, "\r\n\r\n", 4)))
		c->rx_len += conn_read_some(c, c->rx + c->rx_len, RX_CAP - c->rx_len);
	if (c->rx_len < 12 || memcmp(c->rx, "HTTP/1.1 101", 12) != 0)
		fail(c, "the upgrade was refused: %.*s", (int)(strchr((char *)c->rx, '\r') - (char *)c->rx), c->rx);
	consume(c, (size_t)(end + 4 - c->rx));
	if (o->server == SERVER_DSBRIDGED) {
		static const char hello[] = "{\"t\":\"hello\",\"v\":1}";
		uint8_t frame[64];
		conn_write_all(c, frame, frame_build(frame, 1, (const uint8_t *)hello, sizeof hello - 1));
		size_t hdr, len, whole = read_frame(c, &hdr, &len);
		struct message m;
		if ((c->rx[0] & 0x0f) != 1 || !scan_object(c->rx + hdr, c->rx + hdr + len, &m) || !m.t ||
		    m.t_len != 7 || memcmp(m.t, "welcome", 7) != 0)
			fail(c, "no welcome after the hello: %.*s", (int)len, c->rx + hdr);
		consume(c, whole);
	}
	build_call(c, o);
	calls_init(c);
}

void ws_start_calls(struct conn *c)
{
	for (int i = 0; i < c->w->o->inflight; i++)
		call_queue(c);
}

/* One message of dsbridged's frame (scan_frame calls it). */
static void dsbridged_message(struct conn *c, const struct message *m)
{
	if (m->t && m->t_len == 3 && memcmp(m->t, "ret", 3) == 0) {
		if (!m->has_id || !m->has_seq)
			fail(c, "a ret without id or seq");
		if (m->code != 0)
			fail(c, "call %llu failed: code %lld", (unsigned long long)m->id, m->code);
		const struct call_template *t = &c->call;
		if (m->data_len != t->data_len || memcmp(m->data, t->plain + t->data_at, t->data_len) != 0)
			fail(c, "call %llu answered with other data: %.*s", (unsigned long long)m->id, (int)m->data_len,
			     m->data);
		if (m->seq > c->highest_seq)
			c->highest_seq = m->seq;
		call_answered(c, m->id);
	} else if (!(m->t && m->t_len == 2 && memcmp(m->t, "hb", 2) == 0)) {
		fail(c, "an unexpected message: t %.*s", m->t ? (int)m->t_len : 4, m->t ? (const char *)m->t : "none");
	}
}

/* An echo server's frame: the call's payload byte for byte, with an id in flight. */
static void echo_message(struct conn *c, const uint8_t *p, size_t len)
{
	const struct call_template *t = &c->call;
	size_t id_in = t->id_at - t->payload_at;
	uint64_t id;
	if (len != t->payload_len || !id_parse(p + id_in, &id) || memcmp(p, t->plain, id_in) != 0 ||
	    memcmp(p + id_in + ID_DIGITS, t->plain + id_in + ID_DIGITS, len - id_in - ID_DIGITS) != 0)
		fail(c, "the echo is not a call sent: %.*s", (int)len, p);
	call_answered(c, id);
}

static void queue_control(struct conn *c, int opcode, const uint8_t *payload, size_t len)
{
	if (c->tx_len + len + 8 > TX_CAP)
		fail(c, "the output buffer is full (the server does not read?)");
	c->tx_len += frame_build(c->tx + c->tx_len, opcode, payload, len);
}

static void frame_received(struct conn *c, uint8_t b0, const uint8_t *p, size_t len)
{
	int opcode = b0 & 0x0f;
	if (!(b0 & 0x80) || opcode == 0)
		fail(c, "a fragmented message (not expected from these servers)");
	switch (opcode) {
	case 1:
		if (c->w->o->server == SERVER_ECHO)
			echo_message(c, p, len);
		else if (!scan_frame(p, len, dsbridged_message, c))
			fail(c, "a frame dsb-load cannot read: %.*s", (int)len, p);
		return;
	case 8: {
		if (atomic_load(&load_stop))
			return;
		int code = len >= 2 ? p[0] << 8 | p[1] : 0;
		fail(c, "the server closed the page: %d %.*s", code, len > 2 ? (int)len - 2 : 0, p + 2);
	}
	case 9:
		queue_control(c, 10, p, len);
		c->w->local_pings++;
		return;
	case 10:
		return;
	default:
		fail(c, "a frame of opcode %d", opcode);
	}
}

void ws_ack(struct conn *c)
{
	char ack[48];
	int l = snprintf(ack, sizeof ack, "{\"t\":\"ack\",\"seq\":%llu}", (unsigned long long)c->highest_seq);
	queue_control(c, 1, (const uint8_t *)ack, (size_t)l);
	c->acked_seq = c->highest_seq;
	c->w->local_acks++;
}

/* The whole frames at the start of p (conn_receive calls it); returns the bytes used. */
static size_t frames_received(struct conn *c, const uint8_t *p, size_t n)
{
	size_t off = 0, hdr, len, whole;
	while ((whole = frame_complete(c, p + off, n - off, &hdr, &len))) {
		frame_received(c, p[off], p + off + hdr, len);
		off += whole;
	}
	if (c->w->o->server == SERVER_DSBRIDGED && c->highest_seq - c->acked_seq >= (uint64_t)c->w->o->ack_every)
		ws_ack(c);
	return off;
}

void ws_received(struct conn *c)
{
	conn_receive(c, frames_received);
}
