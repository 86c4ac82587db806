// SPDX-License-Identifier: MIT
//
// ws-min: the smallest epoll WebSocket client that drives an echo server at N pages x K
// frames in flight: the reference dsb-load's rate is held against (issue 45: a generator
// saturates when it reaches at least 80% of what this reaches on the same server).
//
// One thread, one epoll, level-triggered. The frame is built once (masked, the same shape
// and size as dsb-load's call); each connection sends K copies, then, per wake-up, reads
// once, counts the whole frames that arrived (walking their headers, nothing copied or
// checked) and writes as many copies back in one write. No ids, no checks: this is the
// ceiling of a client, not a test.
//
//   cc -O2 -o ws-min bench/ws-min.c
//   ws-min PORT [CONNS 64] [INFLIGHT 8] [SECONDS 5] [WARMUP 2]   (127.0.0.1)
// Prints "ws-min: R frames/s".
#define _GNU_SOURCE /* memmem */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#define PAYLOAD "{\"t\":\"call\",\"id\":1000000001,\"method\":\"echo.syn\",\"arg\":{\"data\":\"" \
		"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}}"
#define MAXK 64

struct conn {
	int fd;
	uint64_t left; /* bytes of the frame being read still to come (header included) */
	uint8_t head[10];
	int head_len;  /* bytes of a split header read so far */
};

static uint8_t frames[MAXK * 200]; /* MAXK copies of the frame, back to back */
static size_t frame_len;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* Counts the whole frames in p..p+n, carrying a partial one over to the next read. */
static int count_frames(struct conn *c, const uint8_t *p, size_t n)
{
	int whole = 0;
	while (n > 0) {
		if (c->left > 0) { /* inside a frame's payload */
			size_t take = n < c->left ? n : (size_t)c->left;
			c->left -= take;
			p += take;
			n -= take;
			if (c->left == 0)
				whole++;
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

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: ws-min PORT [CONNS] [INFLIGHT] [SECONDS] [WARMUP]\n");
		return 2;
	}
	int port = atoi(argv[1]), conns = argc > 2 ? atoi(argv[2]) : 64, k = argc > 3 ? atoi(argv[3]) : 8;
	double seconds = argc > 4 ? atof(argv[4]) : 5, warmup = argc > 5 ? atof(argv[5]) : 2;
	if (k < 1 || k > MAXK)
		k = 8;

	/* The frame: FIN + text, masked, 16-bit length when it needs it. */
	static const uint8_t key[4] = { 0x37, 0xfa, 0x21, 0x3d };
	size_t len = sizeof PAYLOAD - 1, h = 0;
	uint8_t *f = frames;
	f[h++] = 0x81;
	if (len < 126) {
		f[h++] = (uint8_t)(0x80 | len);
	} else {
		f[h++] = 0x80 | 126;
		f[h++] = (uint8_t)(len >> 8);
		f[h++] = (uint8_t)len;
	}
	memcpy(f + h, key, 4);
	h += 4;
	for (size_t i = 0; i < len; i++)
		f[h + i] = (uint8_t)PAYLOAD[i] ^ key[i & 3];
	frame_len = h + len;
	for (int i = 1; i < MAXK; i++)
		memcpy(frames + i * frame_len, frames, frame_len);

	int ep = epoll_create1(0);
	struct conn *cs = calloc((size_t)conns, sizeof *cs);
	struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
	static const char upgrade[] = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
				      "Sec-WebSocket-Key: ZHNiLWxvYWQta2V5LTAwMQ==\r\nSec-WebSocket-Version: 13\r\n"
				      "Sec-WebSocket-Protocol: lws-echo\r\n\r\n";
	for (int i = 0; i < conns; i++) {
		int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
		if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0)
			die("connect");
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
		if (write(fd, upgrade, sizeof upgrade - 1) != (ssize_t)sizeof upgrade - 1)
			die("write");
		char buf[1024];
		size_t got = 0;
		while (!memmem(buf, got, "\r\n\r\n", 4)) { /* the 101 (nothing follows it yet) */
			ssize_t n = read(fd, buf + got, sizeof buf - got);
			if (n <= 0)
				die("upgrade");
			got += (size_t)n;
		}
		cs[i].fd = fd;
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &cs[i] };
		epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
		if (write(fd, frames, frame_len * (size_t)k) != (ssize_t)(frame_len * (size_t)k))
			die("write");
	}

	uint64_t answered = 0, at_start = 0;
	double start = now(), window = 0;
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
			int whole = count_frames(c, buf, (size_t)got);
			answered += (uint64_t)whole;
			/* As many frames back as came; a short write is not expected at these sizes. */
			while (whole > 0) {
				int now_k = whole < MAXK ? whole : MAXK;
				if (write(c->fd, frames, frame_len * (size_t)now_k) != (ssize_t)(frame_len * (size_t)now_k))
					die("write");
				whole -= now_k;
			}
		}
		double t = now();
		if (!measuring && t - start >= warmup) {
			measuring = 1;
			at_start = answered;
			window = t;
		} else if (measuring && t - window >= seconds) {
			printf("ws-min: %.0f frames/s\n", (double)(answered - at_start) / (t - window));
			return 0;
		}
	}
}
