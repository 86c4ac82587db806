// SPDX-License-Identifier: MIT
//
// min-load: the smallest epoll client that drives an echo server at N connections x K
// messages in flight: the reference dsb-load's rate is held against (issue 45: a generator
// saturates when it reaches at least 80% of what this reaches on the same server).
//
// One thread, one epoll, level-triggered. The message is built once, the same shape and
// size as dsb-load's call: a masked WebSocket frame, or (http) a keep-alive
// `POST /dsbridge/call` request whose body an echo server sends back. Each connection sends
// K copies, then, per wake-up, reads once, counts the whole answers that arrived (walking
// frame headers, or finding each answer's blank line and skipping the body's known length;
// nothing copied or checked) and writes as many copies back in one write. No ids, no
// checks: this is the ceiling of a client, not a test.
//
//   cc -O2 -o min-load bench/min-load.c
//   min-load PORT [CONNS 64] [INFLIGHT 8] [SECONDS 5] [WARMUP 2] [ws|http]   (127.0.0.1)
// Prints "min-load: R answers/s, C% of a core" (its own CPU time over the window).
#define _GNU_SOURCE /* memmem */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* dsb-load's call (data: 64 bytes with its quotes), as a frame's payload or a POST body. */
#define CALL "{\"t\":\"call\",\"id\":1000000001,\"method\":\"echo.syn\",\"arg\":{\"data\":\"" \
	     "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}}"
#define BODY "{\"method\":\"echo.syn\",\"arg\":{\"data\":\"" \
	     "1000000001xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}}"
#define MAXK 64

struct conn {
	int fd;
	uint64_t left; /* bytes of the answer being read still to come */
	uint8_t head[10];
	int head_len;  /* ws: bytes of a split frame header so far; http: of "\r\n\r\n" matched */
};

static int http;
static uint8_t msgs[MAXK * 512]; /* MAXK copies of the message, back to back */
static size_t msg_len;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* This process's CPU time, seconds. */
static double cpu(void)
{
	struct rusage u;
	getrusage(RUSAGE_SELF, &u);
	return (double)u.ru_utime.tv_sec + (double)u.ru_utime.tv_usec / 1e6 + (double)u.ru_stime.tv_sec +
	       (double)u.ru_stime.tv_usec / 1e6;
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* Skips what is there of the rest of an answer (c->left bytes); 1 when it ended. */
static int skip(struct conn *c, const uint8_t **p, size_t *n)
{
	size_t take = *n < c->left ? *n : (size_t)c->left;
	c->left -= take;
	*p += take;
	*n -= take;
	return c->left == 0;
}

/* Counts the whole frames in p..p+n, carrying a partial one over to the next read. */
static int count_frames(struct conn *c, const uint8_t *p, size_t n)
{
	int whole = 0;
	while (n > 0) {
		if (c->left > 0) { /* inside a frame's payload */
			whole += skip(c, &p, &n);
			continue;
		}
		c->head[c->head_len++] = *p++; /* a header, byte by byte */
		n--;
		if (c->head_len < 2)
			continue;
		int len7 = c->head[1] & 0x7f, need = len7 == 126 ? 4 : len7 == 127 ? 10 : 2;
		if (c->head_len < need)
			continue;
		uint64_t len = (uint64_t)len7;
		if (len7 == 126)
			len = (uint64_t)c->head[2] << 8 | c->head[3];
		c->head_len = 0;
		c->left = len;
		if (len == 0)
			whole++;
	}
	return whole;
}

/* Counts the whole HTTP answers: up to the blank line, then the body (as long as the
 * request's: an echo). */
static int count_answers(struct conn *c, const uint8_t *p, size_t n)
{
	static const char blank[] = "\r\n\r\n";
	int whole = 0;
	while (n > 0) {
		if (c->left > 0) { /* inside an answer's body */
			whole += skip(c, &p, &n);
			continue;
		}
		c->head_len = *p == blank[c->head_len] ? c->head_len + 1 : (*p == '\r' ? 1 : 0);
		p++;
		n--;
		if (c->head_len == 4) {
			c->head_len = 0;
			c->left = sizeof BODY - 1;
		}
	}
	return whole;
}

/* The message, built once: a masked text frame of CALL, or the POST of BODY. */
static void build(int port)
{
	if (http) {
		msg_len = (size_t)snprintf((char *)msgs, 512,
					   "POST /dsbridge/call HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
					   "Content-Type: application/json\r\nX-DSBridge-Token: AAAAAAAAAAAAAAAAAAAAAAAA\r\n"
					   "Content-Length: %zu\r\n\r\n%s",
					   port, sizeof BODY - 1, BODY);
	} else {
		static const uint8_t key[4] = { 0x37, 0xfa, 0x21, 0x3d };
		size_t len = sizeof CALL - 1, h = 0;
		msgs[h++] = 0x81; /* FIN, text */
		if (len < 126) {
			msgs[h++] = (uint8_t)(0x80 | len);
		} else {
			msgs[h++] = 0x80 | 126;
			msgs[h++] = (uint8_t)(len >> 8);
			msgs[h++] = (uint8_t)len;
		}
		memcpy(msgs + h, key, 4);
		h += 4;
		for (size_t i = 0; i < len; i++)
			msgs[h + i] = (uint8_t)CALL[i] ^ key[i & 3];
		msg_len = h + len;
	}
	for (int i = 1; i < MAXK; i++)
		memcpy(msgs + i * msg_len, msgs, msg_len);
}

/* Connects; a WebSocket connection is upgraded (the 101 read, nothing follows it yet). */
static int open_conn(const struct sockaddr_in *addr)
{
	static const char upgrade[] = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
				      "Sec-WebSocket-Key: ZHNiLWxvYWQta2V5LTAwMQ==\r\nSec-WebSocket-Version: 13\r\n"
				      "Sec-WebSocket-Protocol: lws-echo\r\n\r\n";
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	if (fd < 0 || connect(fd, (const struct sockaddr *)addr, sizeof *addr) != 0)
		die("connect");
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	if (http)
		return fd;
	if (write(fd, upgrade, sizeof upgrade - 1) != (ssize_t)sizeof upgrade - 1)
		die("write");
	char buf[1024];
	size_t got = 0;
	while (!memmem(buf, got, "\r\n\r\n", 4)) {
		ssize_t n = read(fd, buf + got, sizeof buf - got);
		if (n <= 0)
			die("upgrade");
		got += (size_t)n;
	}
	return fd;
}

static void send_copies(int fd, int k)
{
	while (k > 0) {
		int now_k = k < MAXK ? k : MAXK;
		/* A short write is not expected at these sizes. */
		if (write(fd, msgs, msg_len * (size_t)now_k) != (ssize_t)(msg_len * (size_t)now_k))
			die("write");
		k -= now_k;
	}
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: min-load PORT [CONNS] [INFLIGHT] [SECONDS] [WARMUP] [ws|http]\n");
		return 2;
	}
	int port = atoi(argv[1]), conns = argc > 2 ? atoi(argv[2]) : 64, k = argc > 3 ? atoi(argv[3]) : 8;
	double seconds = argc > 4 ? atof(argv[4]) : 5, warmup = argc > 5 ? atof(argv[5]) : 2;
	http = argc > 6 && strcmp(argv[6], "http") == 0;
	if (k < 1 || k > MAXK)
		k = 8;
	build(port);

	int ep = epoll_create1(0);
	struct conn *cs = calloc((size_t)conns, sizeof *cs);
	struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
	for (int i = 0; i < conns; i++) {
		cs[i].fd = open_conn(&addr);
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &cs[i] };
		epoll_ctl(ep, EPOLL_CTL_ADD, cs[i].fd, &ev);
		send_copies(cs[i].fd, k);
	}

	uint64_t answered = 0, at_start = 0;
	double start = now(), window = 0, cpu_start = 0;
	int measuring = 0;
	uint8_t buf[65536];
	struct epoll_event evs[256];
	for (;;) {
		int n = epoll_wait(ep, evs, 256, 100);
		for (int i = 0; i < n; i++) {
			struct conn *c = evs[i].data.ptr;
			ssize_t got = read(c->fd, buf, sizeof buf);
			if (got <= 0)
				die("read (the server closed?)");
			int whole = http ? count_answers(c, buf, (size_t)got) : count_frames(c, buf, (size_t)got);
			answered += (uint64_t)whole;
			send_copies(c->fd, whole);
		}
		double t = now();
		if (!measuring && t - start >= warmup) {
			measuring = 1;
			at_start = answered;
			window = t;
			cpu_start = cpu();
		} else if (measuring && t - window >= seconds) {
			printf("min-load: %.0f answers/s, %.1f%% of a core\n", (double)(answered - at_start) / (t - window),
			       100 * (cpu() - cpu_start) / (t - window));
			return 0;
		}
	}
}
