// SPDX-License-Identifier: MIT
//
// lws-echo: a minimal WebSocket echo server on libwebsockets (4.1.x), the transport
// ceiling dsbridged is compared with (scripts/load-test.sh). It does what dsbridged's
// transport does minus JSON and dispatch: one service thread, messages reassembled,
// echoes queued per connection and written only from WRITEABLE (several per callback
// while the socket is not choked).
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

static struct lws_protocols protocols[] = {
	{ "http", lws_callback_http_dummy, 0, 0, 0, NULL, 0 },
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
