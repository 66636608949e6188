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

/// Queues one command already in the protocol's form (`*argc`, then `$length` and the bytes of
/// each argument, CRLF-terminated) into the context's output buffer. Returns 0 on success.
int chiredis_append_formatted(redisContext *context, const char *command, size_t length);

/// Writes what is queued (send with MSG_NOSIGNAL: no SIGPIPE on any thread) and reads the next
/// reply (blocking, bounded by the timeout).
/// Returns the reply (free it with chiredis_free_reply) or NULL on an error of the context.
redisReply *chiredis_next_reply(redisContext *context);

void chiredis_free_reply(redisReply *reply);
void chiredis_free(redisContext *context);

/// The context's error code (0 when none; REDIS_ERR_IO, REDIS_ERR_EOF, ...) and its message.
int chiredis_error(const redisContext *context);
const char *chiredis_error_message(const redisContext *context);
/// errno as it was when an I/O error happened (EAGAIN on a timeout), else 0.
int chiredis_error_errno(const redisContext *context);

#endif
