// SPDX-License-Identifier: MIT
//
// dsb-load's sockets: a TCP connection to the server, with TLS over it (OpenSSL) for
// wss:// and https://. Setup (connect, TLS handshake, upgrade, hello) is blocking and
// happens before the load starts; then the socket turns non-blocking and the worker's
// epoll drives it: one read per wake-up (TLS: until OpenSSL has nothing buffered), and
// everything due written with one write (one TLS record).
#include "load.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

SSL_CTX *tls_client_context(void)
{
	SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
	if (!ctx)
		fail(NULL, "cannot make a TLS context");
	/* The test server's certificate is self-signed: not checked (loopback only). */
	SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);
	/* A write may take part of the buffer; the rest is retried from where it stopped. */
	SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
	return ctx;
}

static const char *tls_error(void)
{
	static __thread char text[256];
	unsigned long e = ERR_get_error();
	if (!e)
		return errno ? strerror(errno) : "connection closed";
	ERR_error_string_n(e, text, sizeof text);
	return text;
}

void conn_open(struct conn *c, const struct options *o, SSL_CTX *tls)
{
	struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons((uint16_t)o->port) };
	if (inet_pton(AF_INET, o->host, &addr.sin_addr) != 1)
		fail(c, "--host %s is not an IPv4 address", o->host);
	c->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->fd < 0 || connect(c->fd, (struct sockaddr *)&addr, sizeof addr) != 0)
		fail(c, "cannot connect to %s:%d: %s", o->host, o->port, strerror(errno));
	int one = 1;
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	if (tls) {
		c->ssl = SSL_new(tls);
		SSL_set_fd(c->ssl, c->fd);
		if (SSL_connect(c->ssl) != 1)
			fail(c, "TLS handshake: %s", tls_error());
	}
}

void conn_write_all(struct conn *c, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	while (len > 0) {
		long n = c->ssl ? SSL_write(c->ssl, p, (int)len) : write(c->fd, p, len);
		if (n <= 0)
			fail(c, "write during setup: %s", c->ssl ? tls_error() : strerror(errno));
		p += n;
		len -= (size_t)n;
	}
}

size_t conn_read_some(struct conn *c, void *buf, size_t cap)
{
	long n = c->ssl ? SSL_read(c->ssl, buf, (int)cap) : read(c->fd, buf, cap);
	if (n <= 0)
		fail(c, "read during setup: %s", c->ssl ? tls_error() : (n == 0 ? "closed" : strerror(errno)));
	return (size_t)n;
}

void conn_nonblocking(struct conn *c)
{
	fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) | O_NONBLOCK);
}

long conn_read(struct conn *c, void *buf, size_t cap)
{
	if (c->ssl) {
		int n = SSL_read(c->ssl, buf, (int)cap);
		if (n > 0)
			return n;
		int e = SSL_get_error(c->ssl, n);
		if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE)
			return 0;
		if (atomic_load(&load_stop))
			return 0;
		fail(c, "the server closed the connection (TLS: %s)", tls_error());
	}
	long n = read(c->fd, buf, cap);
	if (n > 0)
		return n;
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (atomic_load(&load_stop))
		return 0;
	fail(c, "the server closed the connection (%s)", n == 0 ? "end of stream" : strerror(errno));
}

int conn_flush(struct conn *c)
{
	while (c->tx_off < c->tx_len) {
		size_t left = c->tx_len - c->tx_off;
		long n;
		if (c->ssl) {
			n = SSL_write(c->ssl, c->tx + c->tx_off, (int)left);
			if (n <= 0) {
				int e = SSL_get_error(c->ssl, (int)n);
				if (e == SSL_ERROR_WANT_WRITE || e == SSL_ERROR_WANT_READ)
					return 0;
				fail(c, "TLS write: %s", tls_error());
			}
		} else {
			n = write(c->fd, c->tx + c->tx_off, left);
			if (n < 0) {
				if (errno == EAGAIN || errno == EINTR)
					return 0;
				if (atomic_load(&load_stop))
					return 1;
				fail(c, "write: %s", strerror(errno));
			}
		}
		c->tx_off += (size_t)n;
	}
	c->tx_off = c->tx_len = 0;
	return 1;
}

void conn_receive(struct conn *c, size_t (*parse)(struct conn *c, const uint8_t *p, size_t n))
{
	for (;;) {
		size_t room = RX_CAP - c->rx_len;
		long n = conn_read(c, c->rx + c->rx_len, room);
		if (n <= 0)
			return;
		c->rx_len += (size_t)n;
		size_t used = parse(c, c->rx, c->rx_len);
		/* What is left is the start of the next frame or answer: moved to the front. */
		memmove(c->rx, c->rx + used, c->rx_len - used);
		c->rx_len -= used;
		/* One read per wake-up, unless it filled the buffer or TLS may hold more. */
		if (!c->ssl && (size_t)n < room)
			return;
	}
}

void conn_close(struct conn *c)
{
	if (c->ssl) {
		SSL_free(c->ssl);
		c->ssl = NULL;
	}
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}
