// SPDX-License-Identifier: MIT
// C glue for Swift: hiredis 0.14 (Debian's libhiredis-dev) plus wrappers for what Swift
// cannot import or should not touch directly: the context's fixed-size error string, the
// variadic and macro-only parts, and the few context fields DSBridgeRedis reads.
#ifndef CHIREDIS_SHIM_H
#define CHIREDIS_SHIM_H

#include <hiredis/hiredis.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/time.h>

/// The context's error code (REDIS_ERR_IO, REDIS_ERR_EOF, ...); 0 when none.
static inline int CHiredis_err(const redisContext *c) { return c->err; }

/// The context's error text (NUL-terminated; Swift imports `char errstr[128]` as a tuple).
static inline const char *CHiredis_errstr(const redisContext *c) { return c->errstr; }

/// The context's socket, or -1.
static inline int CHiredis_fd(const redisContext *c) { return c->fd; }

/// Whether the context's output buffer still holds bytes not yet written to the socket.
static inline int CHiredis_has_pending_output(const redisContext *c) { return c->obuf != NULL && sdslen(c->obuf) > 0; }

/// A context made by redisConnect*NonBlock becomes a blocking one, as redisConnectWithTimeout
/// leaves it: O_NONBLOCK cleared on the socket and REDIS_BLOCK set, which makes
/// redisGetReply wait for replies (and redisSetTimeout accept a timeout). hiredis 0.14 has
/// no public call for this; its own connect code does exactly these two steps.
static inline int CHiredis_make_blocking(redisContext *c) {
    int flags = fcntl(c->fd, F_GETFL);
    if (flags == -1 || fcntl(c->fd, F_SETFL, flags & ~O_NONBLOCK) == -1) return REDIS_ERR;
    c->flags |= REDIS_BLOCK;
    return REDIS_OK;
}

/// Marks the context's socket close-on-exec: hiredis 0.14 opens it without SOCK_CLOEXEC, so a
/// child process started by the daemon would otherwise inherit the connection.
static inline void CHiredis_set_cloexec(const redisContext *c) {
    int flags = fcntl(c->fd, F_GETFD);
    if (flags != -1) fcntl(c->fd, F_SETFD, flags | FD_CLOEXEC);
}

/// The pending error of a non-blocking connect (SO_ERROR): 0 once connected, else an errno.
static inline int CHiredis_socket_error(int fd) {
    int error = 0;
    socklen_t length = sizeof(error);
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == -1) return errno;
    return error;
}

/// Blocks SIGPIPE in the calling thread: hiredis 0.14 writes with write(2), not
/// send(MSG_NOSIGNAL), so a write to a connection Redis has closed would otherwise kill a
/// process that has not ignored SIGPIPE. With the signal blocked the write fails with EPIPE.
static inline void CHiredis_block_sigpipe(void) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
}

/// Names the calling thread for the kernel (at most 15 bytes: /proc/PID/task/TID/comm,
/// `top -H`); prctl is variadic and pthread_setname_np needs _GNU_SOURCE, which Swift lacks.
static inline void CHiredis_name_thread(const char *name) { prctl(PR_SET_NAME, name, 0, 0, 0); }

/// The calling thread's errno (set by the system call under a failed hiredis call).
static inline int CHiredis_errno(void) { return errno; }

#endif
