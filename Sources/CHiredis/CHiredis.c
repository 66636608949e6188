#include "CHiredis.h"

#include <errno.h>
#include <hiredis/sds.h>
#include <stdio.h>
#include <sys/socket.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

_Static_assert(REDIS_REPLY_STRING == 1 && REDIS_REPLY_ARRAY == 2 && REDIS_REPLY_INTEGER == 3 &&
               REDIS_REPLY_NIL == 4 && REDIS_REPLY_STATUS == 5 && REDIS_REPLY_ERROR == 6,
               "reply types as the Swift side reads them");

static struct timeval chiredis_timeval(long timeout_us) {
    struct timeval tv;
    if (timeout_us < 1) timeout_us = 1;
    tv.tv_sec = timeout_us / 1000000;
    tv.tv_usec = timeout_us % 1000000;
    return tv;
}

redisContext *chiredis_connect(const char *host, int port, long timeout_us) {
    redisContext *context = redisConnectWithTimeout(host, port, chiredis_timeval(timeout_us));
    if (context != NULL && context->err == 0) {
        redisSetTimeout(context, chiredis_timeval(timeout_us));
        // Keep the reader's buffer between replies: by default hiredis frees a buffer with more
        // than 16 KB unused, so every large reply would allocate (and fault in) a fresh one.
        if (context->reader != NULL) context->reader->maxbuf = 0;
    }
    return context;
}

int chiredis_set_timeout(redisContext *context, long timeout_us) {
    return redisSetTimeout(context, chiredis_timeval(timeout_us)) == REDIS_OK ? 0 : -1;
}

static int chiredis_fail(redisContext *context, int code, const char *message) {
    context->err = code;
    snprintf(context->errstr, sizeof(context->errstr), "%s", message);
    return -1;
}

/// Receives what the socket holds, up to 64 KB at a time, straight into the reader's buffer
/// (hiredis reads 16 KB into a stack buffer and copies it in: four reads and a copy per 50 KB hit).
/// The socket's receive timeout bounds the wait.
static int chiredis_fill(redisContext *context) {
    redisReader *reader = context->reader;
    sds buffer = sdsMakeRoomFor(reader->buf, 64 * 1024);
    if (buffer == NULL) return chiredis_fail(context, REDIS_ERR_OOM, "out of memory");
    reader->buf = buffer;
    ssize_t n;
    do {
        n = recv(context->fd, buffer + sdslen(buffer), sdsavail(buffer), 0);
    } while (n < 0 && errno == EINTR);
    if (n < 0) return chiredis_fail(context, REDIS_ERR_IO, strerror(errno));
    if (n == 0) return chiredis_fail(context, REDIS_ERR_EOF, "Server closed the connection");
    sdsIncrLen(buffer, (int)n);
    reader->len = sdslen(buffer);
    return 0;
}

redisReply *chiredis_read_reply(redisContext *context) {
    if (context->err != 0) return NULL;
    void *reply = NULL;
    do {
        if (redisGetReplyFromReader(context, &reply) != REDIS_OK) return NULL;
        if (reply == NULL && chiredis_fill(context) != 0) return NULL;
    } while (reply == NULL);
    return (redisReply *)reply;
}

int chiredis_send(const redisContext *context, const void *bytes, size_t length) {
    size_t sent = 0;
    while (sent < length) {
        ssize_t n = send(context->fd, (const char *)bytes + sent, length - sent, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return n < 0 ? errno : EIO;
        sent += (size_t)n;
    }
    return 0;
}

void chiredis_shutdown(const redisContext *context) {
    if (context != NULL && context->fd >= 0) shutdown(context->fd, SHUT_RDWR);
}

void chiredis_free_reply(redisReply *reply) {
    if (reply != NULL) freeReplyObject(reply);
}

void chiredis_free(redisContext *context) {
    if (context != NULL) redisFree(context);
}

int chiredis_error(const redisContext *context) { return context == NULL ? REDIS_ERR_OOM : context->err; }

const char *chiredis_error_message(const redisContext *context) {
    return context == NULL ? "out of memory" : context->errstr;
}

int chiredis_error_errno(const redisContext *context) {
    if (context == NULL || context->err != REDIS_ERR_IO) return 0;
    // hiredis keeps errno's text in errstr; EAGAIN/EWOULDBLOCK is how a socket timeout reads.
    return (strcmp(context->errstr, strerror(EAGAIN)) == 0) ? EAGAIN : EIO;
}
