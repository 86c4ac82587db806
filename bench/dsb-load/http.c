// SPDX-License-Identifier: MIT
//
// Keep-alive HTTP calls: the sync path of PROTOCOL.md 4 (`POST /dsbridge/call`), or the
// same request against an echo server, which answers a POST with its body.
//
// Setup against dsbridged: `POST /dsbridge/session` for the connection's token. Then the
// request is prebuilt once per connection:
//     POST /dsbridge/call … X-DSBridge-Token: T … {"method":"echo.syn","arg":{"data":"1000000001xxx…"}}
// (an echo server gets a placeholder token of a real token's length). The call's id is
// the first ten characters of its data, so an answer names its call: dsbridged's
// `{"code":0,"data":"…"}` must carry that data, an echo the body byte for byte. Answers
// come in order; any other status, a `Connection: close` or a wrong body stops the run.
#include "load.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* As long as dsbridged's tokens (144 random bits in base64url), for echo servers. */
static const char placeholder_token[] = "AAAAAAAAAAAAAAAAAAAAAAAA";

struct response {
	int status;
	int closes;
	const uint8_t *body;
	size_t body_len;
	size_t whole; /* head and body */
};

/* The response at the start of p when all of it is there: 1, else 0. */
static int response_complete(const struct conn *c, const uint8_t *p, size_t n, struct response *r)
{
	const uint8_t *end = memmem(p, n, "\r\n\r\n", 4);
	if (!end)
		return 0;
	if (n < 12 || memcmp(p, "HTTP/1.", 7) != 0)
		fail(c, "not an HTTP answer: %.*s", (int)(n < 80 ? n : 80), p);
	r->status = (p[9] - '0') * 100 + (p[10] - '0') * 10 + (p[11] - '0');
	r->closes = 0;
	long long length = -1;
	/* Header lines: Content-Length and Connection, names in any case. */
	for (const uint8_t *line = memchr(p, '\n', (size_t)(end - p)) + 1; line < end + 2;) {
		const uint8_t *eol = memchr(line, '\r', (size_t)(end + 2 - line));
		size_t l = (size_t)(eol - line);
		if (l > 15 && strncasecmp((const char *)line, "content-length:", 15) == 0) {
			length = 0;
			for (size_t i = 15; i < l; i++)
				if (line[i] >= '0' && line[i] <= '9')
					length = length * 10 + (line[i] - '0');
		} else if (l > 11 && strncasecmp((const char *)line, "connection:", 11) == 0) {
			r->closes = memmem(line, l, "close", 5) != NULL;
		}
		line = eol + 2;
	}
	if (length < 0)
		fail(c, "an answer without Content-Length");
	size_t head = (size_t)(end + 4 - p);
	if (n < head + (size_t)length)
		return 0;
	r->body = p + head;
	r->body_len = (size_t)length;
	r->whole = head + (size_t)length;
	return 1;
}

/* Reads during setup until rx holds a whole response. */
static void read_response(struct conn *c, struct response *r)
{
	while (!response_complete(c, c->rx, c->rx_len, r))
		c->rx_len += conn_read_some(c, c->rx + c->rx_len, RX_CAP - c->rx_len);
}

static void build_request(struct conn *c, const struct options *o, const char *token)
{
	struct call_template *t = &c->call;
	/* The body first (its length goes into the head). */
	char body[1200];
	int n = snprintf(body, sizeof body, "{\"method\":\"%s\",\"arg\":{\"data\":\"", o->method);
	size_t at = (size_t)n;
	if (o->payload < ID_DIGITS + 2 || at + (size_t)o->payload + 3 > sizeof body)
		fail(c, "--payload %d does not fit (12 to about 1,100 bytes)", o->payload);
	size_t data_at = at - 1;
	memset(body + at, '0', ID_DIGITS);
	memset(body + at + ID_DIGITS, 'x', (size_t)o->payload - 2 - ID_DIGITS);
	at += (size_t)o->payload - 2;
	memcpy(body + at, "\"}}", 3);
	size_t body_len = at + 3;
	n = snprintf((char *)t->bytes, sizeof t->bytes,
		     "POST /dsbridge/call HTTP/1.1\r\nHost: %s:%d\r\nContent-Type: application/json\r\n"
		     "X-DSBridge-Token: %s\r\nContent-Length: %zu\r\n\r\n",
		     o->host, o->port, token, body_len);
	t->payload_at = (size_t)n;
	memcpy(t->bytes + t->payload_at, body, body_len);
	memcpy(t->plain, body, body_len);
	t->payload_len = body_len;
	t->len = t->payload_at + body_len;
	t->data_at = data_at;
	t->data_len = (size_t)o->payload;
	t->id_at = t->payload_at + data_at + 1;
	t->masked = 0;
}

void http_setup(struct conn *c, const struct options *o)
{
	char token[128];
	if (o->server == SERVER_DSBRIDGED) {
		char req[256];
		int n = snprintf(req, sizeof req, "POST /dsbridge/session HTTP/1.1\r\nHost: %s:%d\r\nContent-Length: 0\r\n\r\n",
				 o->host, o->port);
		conn_write_all(c, req, (size_t)n);
		struct response r;
		read_response(c, &r);
		const uint8_t *tok = r.status == 200 ? memmem(r.body, r.body_len, "\"token\":\"", 9) : NULL;
		const uint8_t *tok_end = tok ? memchr(tok + 9, '"', r.body_len - (size_t)(tok + 9 - r.body)) : NULL;
		if (!tok_end || tok_end - tok - 9 >= (long)sizeof token)
			fail(c, "no session: %d %.*s", r.status, (int)r.body_len, r.body);
		snprintf(token, sizeof token, "%.*s", (int)(tok_end - tok - 9), tok + 9);
		memmove(c->rx, c->rx + r.whole, c->rx_len - r.whole);
		c->rx_len -= r.whole;
	} else {
		snprintf(token, sizeof token, "%s", placeholder_token);
	}
	build_request(c, o, token);
	calls_init(c);
}

void http_start_calls(struct conn *c)
{
	for (int i = 0; i < c->w->o->inflight; i++)
		call_queue(c);
}

/* The call's data as sent (the id in its first ten characters) at p: its id, or fails. */
static uint64_t data_id(struct conn *c, const uint8_t *p, size_t len)
{
	const struct call_template *t = &c->call;
	const uint8_t *sent = t->plain + t->data_at;
	uint64_t id;
	if (len != t->data_len || p[0] != '"' || !id_parse(p + 1, &id) ||
	    memcmp(p + 1 + ID_DIGITS, sent + 1 + ID_DIGITS, len - 1 - ID_DIGITS) != 0)
		fail(c, "an answer with other data: %.*s", (int)len, p);
	return id;
}

static void response_received(struct conn *c, const struct response *r)
{
	if (r->status != 200)
		fail(c, "an answer %d: %.*s", r->status, (int)r->body_len, r->body);
	if (r->closes && !atomic_load(&load_stop))
		fail(c, "the server closes the connection after an answer");
	const struct call_template *t = &c->call;
	uint64_t id;
	if (c->w->o->server == SERVER_ECHO) {
		/* The body back: the data at the same place, the rest as sent. */
		if (r->body_len != t->payload_len || memcmp(r->body, t->plain, t->data_at) != 0)
			fail(c, "the echo is not the body sent: %.*s", (int)r->body_len, r->body);
		id = data_id(c, r->body + t->data_at, t->data_len);
		if (memcmp(r->body + t->data_at + t->data_len, t->plain + t->data_at + t->data_len,
			   t->payload_len - t->data_at - t->data_len) != 0)
			fail(c, "the echo is not the body sent: %.*s", (int)r->body_len, r->body);
	} else {
		struct message m;
		if (!scan_object(r->body, r->body + r->body_len, &m) || !m.has_code || !m.data)
			fail(c, "an answer dsb-load cannot read: %.*s", (int)r->body_len, r->body);
		if (m.code != 0)
			fail(c, "a call failed: %.*s", (int)r->body_len, r->body);
		id = data_id(c, m.data, m.data_len);
	}
	/* Answers come in order: the oldest call in flight. */
	if (id != c->base)
		fail(c, "the answer to call %llu came while %llu was the oldest in flight", (unsigned long long)id,
		     (unsigned long long)c->base);
	call_answered(c, id);
}

/* The whole responses at the start of p (conn_receive calls it); returns the bytes used. */
static size_t responses_received(struct conn *c, const uint8_t *p, size_t n)
{
	size_t off = 0;
	struct response r;
	while (response_complete(c, p + off, n - off, &r)) {
		response_received(c, &r);
		off += r.whole;
	}
	return off;
}

void http_received(struct conn *c)
{
	conn_receive(c, responses_received);
}
