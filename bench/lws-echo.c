// SPDX-License-Identifier: MIT
//
// lws-echo: a minimal WebSocket echo server on libwebsockets (4.1.x), the transport
// ceiling dsbridged is compared with (scripts/load-test.sh). It does what dsbridged's
// transport does minus JSON and dispatch: one service thread, messages reassembled,
// echoes queued per connection and written only from WRITEABLE (several per callback
// while the socket is not choked).
//
// HTTP on the same port: any POST is answered 200 with its body back (Content-Length,
// the connection kept alive), the ceiling of dsbridged's sync HTTP path (`dsbridge-bench
// http --raw-echo`). lws' HTTP callbacks read the body; the answer (head and body) goes
// out in one write as soon as the body is complete, as dsbridged writes its answers.
// Other requests get lws' default answer (404).
//
//   cc -O2 -o lws-echo bench/lws-echo.c $(pkg-config --cflags --libs libwebsockets)
//   lws-echo [PORT [RX_BUFFER [uv]]]  PORT 0 or none: any free port (127.0.0.1 only);
//                                 RX_BUFFER: the protocol's rx_buffer_size (default 1024,
//                                 as dsbridged's dsbridge.v1 protocol); "uv": run lws on
//                                 libuv (epoll, as dsbridged does) instead of its poll loop
//
// Prints "listening port=P" as its first stdout line; SIGTERM or SIGINT stop it.

#include <libwebsockets.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One message waiting to be echoed, with LWS_PRE bytes of headroom before it. */
struct echo_msg {
	struct echo_msg *next;
	size_t len;
	unsigned char buf[]; /* LWS_PRE + len */
};

/* Per connection: the queue of echoes and the message being reassembled. */
struct echo_conn {
	struct echo_msg *head, *tail;
	unsigned char *rx;
	size_t rx_len, rx_cap;
};

/* Per HTTP transaction (lws allocates it afresh for each request of a connection): the
 * body read so far. */
struct http_conn {
	unsigned char *body;
	size_t len, cap;
};

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static void queue_free(struct echo_conn *c)
{
	while (c->head) {
		struct echo_msg *m = c->head;
		c->head = m->next;
		free(m);
	}
	c->tail = NULL;
	free(c->rx);
	c->rx = NULL;
	c->rx_len = c->rx_cap = 0;
}

static int enqueue(struct echo_conn *c, const void *data, size_t len)
{
	struct echo_msg *m = malloc(sizeof(*m) + LWS_PRE + len);
	if (!m)
		return -1;
	m->next = NULL;
	m->len = len;
	memcpy(m->buf + LWS_PRE, data, len);
	if (c->tail)
		c->tail->next = m;
	else
		c->head = m;
	c->tail = m;
	return 0;
}

static int callback_echo(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len)
{
	struct echo_conn *c = user;

	switch (reason) {
	case LWS_CALLBACK_ESTABLISHED:
		memset(c, 0, sizeof(*c));
		break;

	case LWS_CALLBACK_RECEIVE: {
		int final = lws_is_final_fragment(wsi) && !lws_remaining_packet_payload(wsi);
		if (final && !c->rx_len) {
			/* the common case: a whole message in one callback */
			if (enqueue(c, in, len))
				return -1;
		} else {
			if (c->rx_len + len > c->rx_cap) {
				size_t cap = (c->rx_len + len) * 2;
				unsigned char *p = realloc(c->rx, cap);
				if (!p)
					return -1;
				c->rx = p;
				c->rx_cap = cap;
			}
			memcpy(c->rx + c->rx_len, in, len);
			c->rx_len += len;
			if (!final)
				break;
			if (enqueue(c, c->rx, c->rx_len))
				return -1;
			c->rx_len = 0;
		}
		lws_callback_on_writable(wsi);
		break;
	}

	case LWS_CALLBACK_SERVER_WRITEABLE:
		while (c->head) {
			struct echo_msg *m = c->head;
			if (lws_write(wsi, m->buf + LWS_PRE, m->len, LWS_WRITE_TEXT) < (int)m->len)
				return -1;
			c->head = m->next;
			if (!c->head)
				c->tail = NULL;
			free(m);
			if (c->head && lws_send_pipe_choked(wsi)) {
				lws_callback_on_writable(wsi);
				break;
			}
		}
		break;

	case LWS_CALLBACK_CLOSED:
		queue_free(c);
		break;

	default:
		break;
	}
	return 0;
}

/* The body is complete: answer 200 with it, head and body in one write, then get ready
 * for the connection's next request (or close it when the client asked to). */
static int http_answer(struct lws *wsi, struct http_conn *h)
{
	enum { HEAD_ROOM = 256 };
	unsigned char stack_buf[LWS_PRE + HEAD_ROOM + 2048];
	size_t need = LWS_PRE + HEAD_ROOM + h->len;
	unsigned char *buf = need <= sizeof(stack_buf) ? stack_buf : malloc(need);
	unsigned char *start, *p;
	int n;

	if (!buf)
		return -1;
	start = p = buf + LWS_PRE;
	if (lws_add_http_common_headers(wsi, HTTP_STATUS_OK, "application/json", h->len, &p, start + HEAD_ROOM) ||
	    lws_finalize_http_header(wsi, &p, start + HEAD_ROOM)) {
		if (buf != stack_buf)
			free(buf);
		return -1;
	}
	if (h->len)
		memcpy(p, h->body, h->len);
	p += h->len;
	n = lws_write(wsi, start, (size_t)(p - start), LWS_WRITE_HTTP_HEADERS);
	if (buf != stack_buf)
		free(buf);
	if (n < 0)
		return -1;
	/* lws keeps what the socket did not take and completes the transaction after it */
	return lws_http_transaction_completed(wsi) ? -1 : 0;
}

static int callback_http(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len)
{
	struct http_conn *h = user;

	switch (reason) {
	case LWS_CALLBACK_HTTP:
		if (h && lws_hdr_total_length(wsi, WSI_TOKEN_POST_URI)) {
			h->len = 0;
			return 0; /* the body follows (HTTP_BODY, HTTP_BODY_COMPLETION) */
		}
		break;

	case LWS_CALLBACK_HTTP_BODY:
		if (!h)
			return -1;
		if (h->len + len > h->cap) {
			size_t cap = (h->len + len) * 2;
			unsigned char *b = realloc(h->body, cap);
			if (!b)
				return -1;
			h->body = b;
			h->cap = cap;
		}
		if (len)
			memcpy(h->body + h->len, in, len);
		h->len += len;
		return 0;

	case LWS_CALLBACK_HTTP_BODY_COMPLETION:
		if (!h)
			return -1;
		return http_answer(wsi, h);

	case LWS_CALLBACK_HTTP_DROP_PROTOCOL:
	case LWS_CALLBACK_CLOSED_HTTP:
		if (h) {
			free(h->body);
			h->body = NULL;
			h->len = h->cap = 0;
		}
		break;

	default:
		break;
	}
	return lws_callback_http_dummy(wsi, reason, user, in, len);
}

static struct lws_protocols protocols[] = {
	{ "http", callback_http, sizeof(struct http_conn), 0, 0, NULL, 0 },
	{ "lws-echo", callback_echo, sizeof(struct echo_conn), 1024, 0, NULL, 0 },
	{ NULL, NULL, 0, 0, 0, NULL, 0 }
};

int main(int argc, char **argv)
{
	struct lws_context_creation_info info;
	struct lws_context *context;
	struct lws_vhost *vhost;
	int port = argc > 1 ? atoi(argv[1]) : 0;
	int uv = argc > 3 && !strcmp(argv[3], "uv");

	if (argc > 2 && atol(argv[2]) > 0)
		protocols[1].rx_buffer_size = (size_t)atol(argv[2]);

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);
	lws_set_log_level(LLL_ERR | LLL_WARN, NULL);

	memset(&info, 0, sizeof(info));
	info.options = LWS_SERVER_OPTION_EXPLICIT_VHOSTS | LWS_SERVER_OPTION_DISABLE_IPV6;
	if (uv)
		info.options |= LWS_SERVER_OPTION_LIBUV; /* lws' own loop; its handlers take SIGINT/SIGTERM */
	info.gid = -1;
	info.uid = -1;
	context = lws_create_context(&info);
	if (!context) {
		fprintf(stderr, "lws-echo: context creation failed\n");
		return 1;
	}

	memset(&info, 0, sizeof(info));
	info.vhost_name = "echo";
	info.port = port;
	info.iface = "127.0.0.1";
	info.protocols = protocols;
	info.options = LWS_SERVER_OPTION_DISABLE_IPV6;
	vhost = lws_create_vhost(context, &info);
	if (!vhost) {
		fprintf(stderr, "lws-echo: cannot listen on 127.0.0.1:%d\n", port);
		lws_context_destroy(context);
		return 1;
	}
	printf("listening port=%d\n", lws_get_vhost_listen_port(vhost));
	fflush(stdout);

	if (uv)
		lws_service(context, 0); /* runs the libuv loop until a signal stops it */
	else
		while (!interrupted)
			if (lws_service(context, 0) < 0)
				break;

	lws_context_destroy(context);
	return 0;
}
