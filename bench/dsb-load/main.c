// SPDX-License-Identifier: MIT
//
// dsb-load: drives a server as fast as it answers (closed loop: every connection keeps its
// calls in flight, each answer lets the next call go) and reports the rate and the
// server's CPU per call over a window (issue 45). See load.h for the files.
//
//   dsb-load --port P [--mode ws|http] [--server dsbridged|echo] [--tls]
//            [--conns 64] [--inflight 8] [--threads 1] [--warmup 2] [--duration 5]
//            [--payload 64] [--method echo.syn] [--pid PID] [--ack-every 32] [--latency] [--rate R] [--json]
//
//   ws    WebSocket pages x calls in flight (dsbridged: hello, calls, acks, pongs)
//   http  keep-alive connections of `POST /dsbridge/call` (echo: the same request, echoed)
//   --tls wss:// and https:// (OpenSSL; the certificate is not checked)
//   --pid the server's process: its CPU time (/proc/PID/stat utime + stime) over the window
//   --latency  each call's round trip in the window: p50, p99, p99.9 and max (µs); with
//              --conns 1 --inflight 1 a call's latency with nothing else in flight
//   --rate R   paced, open loop: each connection calls R times a second at a random phase
//              (pages calling now and then, as in production; --inflight is ignored)
//
// Prints one line (or one JSON object with --json): calls answered per second over the
// window, and with --pid the server's CPU per call and share of a core. Exit status 1,
// with the reason on stderr, on any answer that does not match its call, a failed call,
// or a connection the server closes.
#include "load.h"

#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

atomic_int load_stop;

_Noreturn void fail(const struct conn *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (c)
		fprintf(stderr, "dsb-load: FAILED: connection %d: ", c->index);
	else
		fprintf(stderr, "dsb-load: FAILED: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	_exit(1);
}

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_seconds(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* utime + stime of a process, seconds (-1: gone). */
static double process_cpu(int pid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof path, "/proc/%d/stat", pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	/* Fields after the ")" that ends the command name: utime is field 14, stime 15. */
	char *p = strrchr(buf, ')');
	if (!p)
		return -1;
	unsigned long long utime = 0, stime = 0;
	if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime, &stime) != 2)
		return -1;
	return (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
}

static double own_cpu(void)
{
	struct rusage u;
	getrusage(RUSAGE_SELF, &u);
	return (double)u.ru_utime.tv_sec + (double)u.ru_utime.tv_usec / 1e6 + (double)u.ru_stime.tv_sec +
	       (double)u.ru_stime.tv_usec / 1e6;
}

static void arm(struct worker *w, struct conn *c, int out)
{
	struct epoll_event ev = { .events = EPOLLIN | (out ? EPOLLOUT : 0), .data.ptr = c };
	if (epoll_ctl(w->epfd, EPOLL_CTL_MOD, c->fd, &ev) != 0)
		fail(c, "epoll_ctl: %s", strerror(errno));
	c->want_out = out;
}

/* Writes what is queued; arms EPOLLOUT while some of it waits. */
static void flush(struct worker *w, struct conn *c)
{
	int done = conn_flush(c);
	if (done == c->want_out)
		arm(w, c, !done);
}

static int by_due(const void *a, const void *b)
{
	double x = (*(struct conn *const *)a)->next_due, y = (*(struct conn *const *)b)->next_due;
	return (x > y) - (x < y);
}

/* Paced (--rate): each connection's first call at a random phase of the period, in the
 * order they come due; every call after it one period later, so that order holds. */
static void paced_start(struct worker *w, double period)
{
	unsigned seed = 0x9e3779b9u * (unsigned)(w->index + 1);
	double start = now_seconds();
	for (int i = 0; i < w->nconns; i++)
		w->conns[i]->next_due = start + period * ((double)rand_r(&seed) / ((double)RAND_MAX + 1));
	qsort(w->conns, (size_t)w->nconns, sizeof *w->conns, by_due);
}

/* Paced: sends the calls that are due (from *next on, in turn); ms until the next one. */
static int paced_send(struct worker *w, int *next, double period)
{
	double now = now_seconds();
	for (int sent = 0; sent < w->nconns; sent++) {
		struct conn *c = w->conns[*next];
		if (c->next_due > now)
			return (int)((c->next_due - now) * 1000) + 1;
		/* An ack due rides in front of the call, in the same write, as dsbridge.js sends it
		 * (PROTOCOL.md 2.2): a page calling at least once a second sends no ack of its own. */
		if (w->o->mode == MODE_WS && w->o->server == SERVER_DSBRIDGED && c->highest_seq > c->acked_seq)
			ws_ack(c);
		if (c->next_id - c->base < MAX_INFLIGHT)
			call_queue(c);
		flush(w, c);
		c->next_due += period;
		*next = (*next + 1) % w->nconns;
	}
	return 0;
}

/* A worker thread: its connections on its own epoll, level-triggered. */
static void *worker_run(void *arg)
{
	struct worker *w = arg;
	struct epoll_event events[256];
	double period = w->o->rate > 0 ? 1 / w->o->rate : 0;
	int next_due = 0;
	if (period > 0)
		paced_start(w, period);
	for (int i = 0; i < w->nconns && period == 0; i++) {
		struct conn *c = w->conns[i];
		if (w->o->mode == MODE_WS)
			ws_start_calls(c);
		else
			http_start_calls(c);
		flush(w, c);
	}
	double next_sweep = now_seconds() + 0.5;
	while (!atomic_load_explicit(&load_stop, memory_order_relaxed)) {
		int timeout = period > 0 ? paced_send(w, &next_due, period) : 100;
		int n = epoll_wait(w->epfd, events, 256, timeout > 100 ? 100 : timeout);
		for (int i = 0; i < n; i++) {
			struct conn *c = events[i].data.ptr;
			if (events[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP)) {
				if (w->o->mode == MODE_WS)
					ws_received(c);
				else
					http_received(c);
			}
			if (c->tx_len > c->tx_off)
				flush(w, c);
		}
		/* Twice a second, a page acknowledges whatever it has not (PROTOCOL.md 2.3: within
		 * 1 s of unacknowledged traffic), when fewer than --ack-every came since. Paced at
		 * once a second or more, the acks ride with the calls instead (paced_send): a sweep
		 * would send every page's ack in one burst, which no set of real pages does. */
		if (w->o->mode == MODE_WS && w->o->server == SERVER_DSBRIDGED && w->o->rate < 1 && now_seconds() >= next_sweep) {
			next_sweep += 0.5;
			for (int i = 0; i < w->nconns; i++) {
				struct conn *c = w->conns[i];
				if (c->highest_seq > c->acked_seq) {
					ws_ack(c);
					flush(w, c);
				}
			}
		}
		atomic_store_explicit(&w->answers, w->local_answers, memory_order_relaxed);
		atomic_store_explicit(&w->acks, w->local_acks, memory_order_relaxed);
		atomic_store_explicit(&w->pings, w->local_pings, memory_order_relaxed);
	}
	return NULL;
}

/* The counts and clocks at one end of the window. */
struct sample {
	double at, server_cpu, own_cpu;
	uint64_t answers, acks, pings;
};

static struct sample take_sample(const struct options *o, struct worker *ws)
{
	struct sample s = { .at = now_seconds(), .server_cpu = o->server_pid ? process_cpu(o->server_pid) : 0,
			    .own_cpu = own_cpu() };
	for (int i = 0; i < o->threads; i++) {
		s.answers += atomic_load(&ws[i].answers);
		s.acks += atomic_load(&ws[i].acks);
		s.pings += atomic_load(&ws[i].pings);
	}
	return s;
}

static void usage(void)
{
	fprintf(stderr, "usage: dsb-load --port P [--host 127.0.0.1] [--mode ws|http] [--server dsbridged|echo] [--tls]\n"
			"  [--conns 64] [--inflight 8] [--threads 1] [--warmup 2] [--duration 5] [--payload 64]\n"
			"  [--method echo.syn] [--pid SERVER_PID] [--ack-every 32] [--latency] [--rate CALLS_PER_S] [--json]\n");
	exit(2);
}

/* Which of two words arg is: 0 or 1 (anything else: the usage). */
static int one_of(const char *arg, const char *first, const char *second)
{
	if (strcmp(arg, first) == 0)
		return 0;
	if (strcmp(arg, second) != 0)
		usage();
	return 1;
}

static void parse(int argc, char **argv, struct options *o)
{
	*o = (struct options){ .host = "127.0.0.1", .mode = MODE_WS, .server = SERVER_DSBRIDGED, .conns = 64,
			       .inflight = 8, .threads = 1, .warmup = 2, .duration = 5, .payload = 64,
			       .method = "echo.syn", .ack_every = 32 };
	static const struct option longs[] = {
		{ "host", 1, 0, 'h' }, { "port", 1, 0, 'p' },	   { "mode", 1, 0, 'm' },	{ "server", 1, 0, 's' },
		{ "tls", 0, 0, 'T' },  { "conns", 1, 0, 'c' },	   { "inflight", 1, 0, 'i' },	{ "threads", 1, 0, 't' },
		{ "warmup", 1, 0, 'w' }, { "duration", 1, 0, 'd' }, { "payload", 1, 0, 'l' },	{ "method", 1, 0, 'M' },
		{ "pid", 1, 0, 'P' },  { "ack-every", 1, 0, 'a' }, { "json", 0, 0, 'j' },	{ "latency", 0, 0, 'L' }, { "rate", 1, 0, 'R' }, { 0, 0, 0, 0 },
	};
	int ch;
	while ((ch = getopt_long(argc, argv, "", longs, NULL)) != -1) {
		switch (ch) {
		case 'h': o->host = optarg; break;
		case 'p': o->port = atoi(optarg); break;
		case 'm': o->mode = one_of(optarg, "ws", "http") ? MODE_HTTP : MODE_WS; break;
		case 's': o->server = one_of(optarg, "dsbridged", "echo") ? SERVER_ECHO : SERVER_DSBRIDGED; break;
		case 'T': o->tls = 1; break;
		case 'c': o->conns = atoi(optarg); break;
		case 'i': o->inflight = atoi(optarg); break;
		case 't': o->threads = atoi(optarg); break;
		case 'w': o->warmup = atof(optarg); break;
		case 'd': o->duration = atof(optarg); break;
		case 'l': o->payload = atoi(optarg); break;
		case 'M': o->method = optarg; break;
		case 'P': o->server_pid = atoi(optarg); break;
		case 'a': o->ack_every = atoi(optarg); break;
		case 'j': o->json = 1; break;
		case 'L': o->latency = 1; break;
		case 'R': o->rate = atof(optarg); break;
		default: usage();
		}
	}
	if (o->port <= 0 || o->conns < 1 || o->threads < 1 || o->inflight < 1 || o->inflight > MAX_INFLIGHT ||
	    o->duration <= 0 || o->payload < 12 || o->ack_every < 1)
		usage();
	if (o->threads > o->conns)
		o->threads = o->conns;
}

int main(int argc, char **argv)
{
	struct options o;
	parse(argc, argv, &o);
	signal(SIGPIPE, SIG_IGN);
	SSL_CTX *tls = o.tls ? tls_client_context() : NULL;

	/* Connections set up one by one (blocking), dealt to the workers in turn. */
	struct worker *workers = calloc((size_t)o.threads, sizeof *workers);
	struct conn **conns = calloc((size_t)o.conns, sizeof *conns);
	for (int i = 0; i < o.threads; i++) {
		workers[i] = (struct worker){ .index = i, .o = &o, .epfd = epoll_create1(EPOLL_CLOEXEC),
					      .conns = calloc((size_t)o.conns, sizeof(struct conn *)) };
		if (o.latency)
			latency_init(&workers[i]);
	}
	for (int i = 0; i < o.conns; i++) {
		struct conn *c = conns[i] = calloc(1, sizeof **conns);
		c->index = i;
		c->fd = -1;
		struct worker *w = &workers[i % o.threads];
		c->w = w;
		w->conns[w->nconns++] = c;
		conn_open(c, &o, tls);
		if (o.mode == MODE_WS)
			ws_setup(c, &o);
		else
			http_setup(c, &o);
		conn_nonblocking(c);
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = c };
		if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, c->fd, &ev) != 0)
			fail(c, "epoll_ctl: %s", strerror(errno));
	}

	pthread_t *threads = calloc((size_t)o.threads, sizeof *threads);
	for (int i = 0; i < o.threads; i++)
		pthread_create(&threads[i], NULL, worker_run, &workers[i]);

	/* The window: counts and CPU times read at its start and its end. */
	sleep_seconds(o.warmup);
	atomic_store(&latency_recording, 1);
	struct sample s0 = take_sample(&o, workers);
	sleep_seconds(o.duration);
	struct sample s1 = take_sample(&o, workers);
	atomic_store(&latency_recording, 0);
	atomic_store(&load_stop, 1);
	for (int i = 0; i < o.threads; i++)
		pthread_join(threads[i], NULL);
	/* What TLS the connections got (all alike: one context, one server). */
	const char *tls_version = o.tls ? SSL_get_version(conns[0]->ssl) : "none";
	const char *tls_cipher = o.tls ? SSL_get_cipher_name(conns[0]->ssl) : "none";
	for (int i = 0; i < o.conns; i++)
		conn_close(conns[i]);
	if (o.server_pid && (s0.server_cpu < 0 || s1.server_cpu < 0))
		fail(NULL, "the server (pid %d) is gone", o.server_pid);

	double seconds = s1.at - s0.at;
	double calls = (double)(s1.answers - s0.answers);
	double rate = calls / seconds;
	double srv_cpu = s1.server_cpu - s0.server_cpu;
	double us_per_call = o.server_pid && calls > 0 ? srv_cpu * 1e6 / calls : -1;
	double srv_percent = o.server_pid ? 100 * srv_cpu / seconds : -1;
	double own_percent = 100 * (s1.own_cpu - s0.own_cpu) / seconds;
	if (calls == 0)
		fail(NULL, "no call was answered in the window");
	struct latency_summary lat = o.latency ? latency_summary(workers, o.threads) : (struct latency_summary){ 0 };
	const char *mode = o.mode == MODE_WS ? (o.tls ? "wss" : "ws") : (o.tls ? "https" : "http");
	const char *server = o.server == SERVER_ECHO ? "echo" : "dsbridged";
	if (o.json) {
		printf("{\"mode\":\"%s\",\"server\":\"%s\",\"conns\":%d,\"inflight\":%d,\"threads\":%d,\"payload\":%d,"
		       "\"seconds\":%.3f,\"calls\":%.0f,\"rate\":%.1f,\"acks\":%llu,\"pings\":%llu,"
		       "\"clientCpuPercent\":%.1f,\"ratePerConnection\":%g,\"tls\":\"%s %s\"",
		       mode, server, o.conns, o.inflight, o.threads, o.payload, seconds, calls, rate,
		       (unsigned long long)(s1.acks - s0.acks), (unsigned long long)(s1.pings - s0.pings), own_percent,
		       o.rate, tls_version, tls_cipher);
		if (o.server_pid)
			printf(",\"serverCpuSeconds\":%.3f,\"serverCpuPercent\":%.1f,\"serverCpuMicrosPerCall\":%.3f", srv_cpu,
			       srv_percent, us_per_call);
		if (o.latency)
			printf(",\"latencyCalls\":%llu,\"p50Micros\":%.0f,\"p99Micros\":%.0f,\"p999Micros\":%.0f,\"maxMicros\":%.0f",
			       (unsigned long long)lat.count, lat.p50, lat.p99, lat.p999, lat.max);
		printf("}\n");
	} else {
		if (o.rate > 0)
			printf("%s %s: %d x %g call/s (paced), %d thread%s: %.0f calls/s over %.1f s (client %.0f%% of a core)",
			       mode, server, o.conns, o.rate, o.threads, o.threads == 1 ? "" : "s", rate, seconds, own_percent);
		else
			printf("%s %s: %d x %d, %d thread%s: %.0f calls/s over %.1f s (client %.0f%% of a core)", mode, server,
			       o.conns, o.inflight, o.threads, o.threads == 1 ? "" : "s", rate, seconds, own_percent);
		if (o.server_pid)
			printf("; server %.0f%% of a core, %.2f µs CPU per call", srv_percent, us_per_call);
		if (o.latency)
			printf("; round trip µs p50 %.0f, p99 %.0f, p99.9 %.0f, max %.0f (%llu calls)", lat.p50, lat.p99, lat.p999,
			       lat.max, (unsigned long long)lat.count);
		if (o.tls)
			printf("; %s %s", tls_version, tls_cipher);
		printf("\n");
	}
	return 0;
}
