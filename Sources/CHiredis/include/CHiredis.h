#ifndef CHIREDIS_H
#define CHIREDIS_H

#include <stddef.h>
#include <hiredis/hiredis.h>

// A thin, typed layer over hiredis for Swift: no variadic calls, no struct timeval by value,
// timeouts in microseconds, and the context's error state read through functions.

/// Connects to host:port with a connect timeout, then sets the same timeout on every read and
/// write. Returns NULL only when hiredis could not allocate; check chiredis_error otherwise.
redisContext *chiredis_connect(const char *host, int port, long timeout_us);

/// Sets the read/write timeout of a connected context. Returns 0 on success.
int chiredis_set_timeout(redisContext *context, long timeout_us);

/// Reads the next reply without writing anything first (blocking, bounded by the timeout).
/// Only one thread at a time may read a context; it may do so while another thread sends.
/// Returns the reply (free it with chiredis_free_reply), or NULL: then either `*direct` holds a
/// bulk string of 4 KB or more, received straight into a buffer of its own (`*direct_length`
/// bytes; free it with free(), it has no terminating NUL), or, with `*direct` NULL, the context failed.
redisReply *chiredis_read_reply(redisContext *context, char **direct, size_t *direct_length);

/// Sends `length` bytes (one or more commands in the protocol's form) straight to the socket,
/// bypassing the output buffer, with MSG_NOSIGNAL; the send timeout bounds it. It touches no field
/// of the context but the socket, so it may run while another thread reads replies.
/// Returns 0, or errno (EAGAIN on a timeout, EPIPE or ECONNRESET on a closed connection).
int chiredis_send(const redisContext *context, const void *bytes, size_t length);

/// Shuts the socket down both ways (without closing it): a reader blocked on it returns at once.
void chiredis_shutdown(const redisContext *context);

void chiredis_free_reply(redisReply *reply);
void chiredis_free(redisContext *context);

/// The context's error code (0 when none; REDIS_ERR_IO, REDIS_ERR_EOF, ...) and its message.
int chiredis_error(const redisContext *context);
const char *chiredis_error_message(const redisContext *context);
/// errno as it was when an I/O error happened (EAGAIN on a timeout), else 0.
int chiredis_error_errno(const redisContext *context);

#endif
