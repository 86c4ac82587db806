// SPDX-License-Identifier: MIT
//
// dsb-load: a load generator that saturates the server it measures (issue 45). Shared
// types of its files:
//   main.c     options, connections set up, worker threads, the measuring window, report
//   conn.c     sockets: TCP or TLS (OpenSSL), blocking setup I/O, non-blocking read/write
//   ws.c       WebSocket: upgrade, prebuilt masked call frames, frame reader, answer checks
//   http.c     keep-alive HTTP: prebuilt requests, response reader, answer checks
//   calls.c    calls in flight: ids, queueing a call, matching an answer to its call
//   scan.c     the few JSON fields dsb-load reads from dsbridged's messages
//   latency.c  round-trip times of calls (--latency): per-worker histograms, quantiles
//
// Every call carries a ten-digit id (1000000001 up: one width, so a prebuilt frame is
// patched in place, never rebuilt); every answer is matched to a call in flight on its
// connection by that id, and anything else (a wrong id, a failed call, a close) stops the
// run with a message on stderr and exit status 1.
#ifndef DSB_LOAD_H
#define DSB_LOAD_H

#define _GNU_SOURCE /* memmem */

#include <openssl/ssl.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

enum load_mode { MODE_WS, MODE_HTTP };
enum load_server { SERVER_DSBRIDGED, SERVER_ECHO };

struct options {
	const char *host;
	int port;
	enum load_mode mode;
	enum load_server server;
	int tls;
	int conns;       /* connections (pages, or keep-alive HTTP connections) */
	int inflight;    /* calls in flight per connection (at most MAX_INFLIGHT) */
	int threads;     /* worker threads, each with its own epoll */
	double warmup;   /* seconds before the window */
	double duration; /* seconds of the window */
	int payload;     /* bytes of the call's `data` string, quotes included */
	const char *method;
	int server_pid;  /* 0: no server CPU figures */
	int ack_every;   /* dsbridged: an ack after this many unacknowledged messages */
	int json;
	int latency;     /* record each call's round trip in the window */
	double rate;     /* > 0: paced, calls per second per connection, open loop */
};

#define MAX_INFLIGHT 64
#define ID_DIGITS 10
#define FIRST_ID 1000000001ULL
#define RX_CAP (64 * 1024)
#define TX_CAP (64 * 1024)

/* The call as the server must see it, built once (ws.c / http.c) and copied per call. */
struct call_template {
	uint8_t bytes[2048]; /* a whole WebSocket frame (masked) or HTTP request */
	size_t len;
	size_t id_at;        /* where the ten id digits start in bytes */
	size_t payload_at;   /* WebSocket: where the (masked) payload starts; HTTP: the body */
	size_t payload_len;
	size_t data_at;      /* where the `data` string starts in plain (its opening quote) */
	size_t data_len;
	int masked;          /* a WebSocket frame: the id digits are masked when patched */
	uint8_t plain[2048]; /* the payload unmasked (what an echo sends back) */
};

struct worker;

struct conn {
	int fd;
	SSL *ssl;
	int index;
	struct worker *w;
	struct call_template call; /* this connection's call (HTTP to dsbridged: its token) */
	/* Calls: ids next_id - 1 down to base were sent; bit k of answered is base + k. */
	uint64_t next_id, base, answered;
	uint8_t next_digits[ID_DIGITS]; /* next_id in ASCII, unmasked */
	/* dsbridged pages: the highest seq seen and the highest acknowledged. */
	uint64_t highest_seq, acked_seq;
	/* --latency: when each call in flight was queued (slot id % MAX_INFLIGHT), ns. */
	uint64_t sent_ns[MAX_INFLIGHT];
	int want_out;   /* EPOLLOUT armed */
	double next_due; /* paced (--rate): when its next call goes, seconds (monotonic) */
	size_t rx_len;
	size_t tx_len, tx_off;
	uint8_t rx[RX_CAP];
	uint8_t tx[TX_CAP];
};

struct worker {
	int index;
	int epfd;
	struct conn **conns;
	int nconns;
	const struct options *o;
	/* Written by the worker only; read by the main thread for the window. */
	_Atomic uint64_t answers;
	_Atomic uint64_t acks, pings;
	/* The worker's own counts, published to the above once per pass of its loop. */
	uint64_t local_answers, local_acks, local_pings;
	/* --latency: calls answered in the window per round trip in µs (the last: more). */
	uint64_t *latency;
	char pad[64];
};

extern atomic_int load_stop; /* set by main: the workers return */
extern atomic_int latency_recording; /* set by main for the window (--latency) */

#define LATENCY_MAX_US 2000000

/* latency.c */
struct latency_summary {
	uint64_t count;
	double p50, p99, p999, max; /* µs */
};
void latency_init(struct worker *w);
void latency_sent(struct conn *c, uint64_t id);
void latency_answered(struct conn *c, uint64_t id);
struct latency_summary latency_summary(struct worker *ws, int n);

/* main.c */
_Noreturn void fail(const struct conn *c, const char *fmt, ...);

/* conn.c */
void conn_open(struct conn *c, const struct options *o, SSL_CTX *tls);
void conn_write_all(struct conn *c, const void *buf, size_t len);
size_t conn_read_some(struct conn *c, void *buf, size_t cap); /* blocking, > 0 */
void conn_nonblocking(struct conn *c);
long conn_read(struct conn *c, void *buf, size_t cap); /* > 0, 0 would block; fails on close */
int conn_flush(struct conn *c);                         /* 1: all written, 0: wait for EPOLLOUT */
/* Reads what is there and hands rx to parse, which returns the bytes it used up. */
void conn_receive(struct conn *c, size_t (*parse)(struct conn *c, const uint8_t *p, size_t n));
void conn_close(struct conn *c);
SSL_CTX *tls_client_context(void);

/* ws.c */
void ws_setup(struct conn *c, const struct options *o);
void ws_received(struct conn *c);
void ws_start_calls(struct conn *c);
void ws_ack(struct conn *c); /* queues an ack of highest_seq */

/* http.c */
void http_setup(struct conn *c, const struct options *o);
void http_received(struct conn *c);
void http_start_calls(struct conn *c);

/* Both: the call with the id next_id, written into tx (no allocation). */
void call_queue(struct conn *c);
void call_answered(struct conn *c, uint64_t id);
extern const uint8_t mask_key[4];
void calls_init(struct conn *c); /* ids from FIRST_ID, none in flight */
int id_parse(const uint8_t *p, uint64_t *id);

/* scan.c: one message of dsbridged's (an object), its fields dsb-load reads. */
struct message {
	const uint8_t *t;
	size_t t_len;
	int has_seq, has_id, has_code;
	uint64_t seq, id;
	long long code;
	const uint8_t *data; /* the value as written (a string: quotes included) */
	size_t data_len;
};
/* Calls each(msg) for every message of a frame (an object or an array of objects);
 * returns 0 when the frame is not that shape. */
int scan_frame(const uint8_t *p, size_t len, void (*each)(struct conn *, const struct message *),
	       struct conn *c);
/* One object from *p; fills m; returns the byte after it or NULL. */
const uint8_t *scan_object(const uint8_t *p, const uint8_t *end, struct message *m);

#endif
