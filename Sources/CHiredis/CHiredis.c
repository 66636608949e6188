#include "CHiredis.h"

#include <errno.h>
#include <stdlib.h>
#include <hiredis/sds.h>
#include <stdio.h>
#include <sys/socket.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

_Static_assert(REDIS_REPLY_STRING == 1 && REDIS_REPLY_ARRAY == 2 && REDIS_REPLY_INTEGER == 3 &&
               REDIS_REPLY_NIL == 4 && REDIS_REPLY_STATUS == 5 && REDIS_REPLY_ERROR == 6,
               "reply types as the Swift side reads them");

/// Bulk strings from this size on are received into a buffer of their own (no copy by hiredis).
#define CHIREDIS_DIRECT_MIN 4096
/// What an empty reader buffer receives first: any header, and little of a large payload.
#define CHIREDIS_HEADER_READ 1024

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

/// recv() that retries on EINTR and turns an error or a closed socket into the context's error.
/// The socket's receive timeout bounds the wait (EAGAIN then, which chiredis_error_errno reports).
static ssize_t chiredis_recv(redisContext *context, char *into, size_t capacity) {
    ssize_t n;
    do {
        n = recv(context->fd, into, capacity, 0);
    } while (n < 0 && errno == EINTR);
    if (n < 0) return chiredis_fail(context, REDIS_ERR_IO, strerror(errno));
    if (n == 0) return chiredis_fail(context, REDIS_ERR_EOF, "Server closed the connection");
    return n;
}

/// Receives up to `most` bytes that the socket holds straight into the reader's buffer (hiredis
/// reads 16 KB into a stack buffer and copies it in).
static int chiredis_fill(redisContext *context, size_t most) {
    redisReader *reader = context->reader;
    if (reader->pos > 0 && (reader->pos == reader->len || reader->pos >= 16 * 1024)) {
        // Drop what was read (moving at most a partial reply to the front) so the buffer stays small.
        sdsrange(reader->buf, (int)reader->pos, -1);
        reader->pos = 0;
        reader->len = sdslen(reader->buf);
    }
    sds buffer = sdsMakeRoomFor(reader->buf, most);
    if (buffer == NULL) return chiredis_fail(context, REDIS_ERR_OOM, "out of memory");
    reader->buf = buffer;
    ssize_t n = chiredis_recv(context, buffer + sdslen(buffer), most);
    if (n < 0) return -1;
    sdsIncrLen(buffer, (int)n);
    reader->len = sdslen(buffer);
    return 0;
}

/// The length of the bulk string whose header (`$<length>\r\n`) starts the unread part of the
/// reader's buffer, with the header's size; -1 when the next reply is something else, -2 when
/// the header has not fully arrived. Only called between replies (no partial reply in the reader).
static long long chiredis_bulk_header(const redisReader *reader, size_t *header_size) {
    const char *start = reader->buf + reader->pos;
    size_t available = reader->len - reader->pos;
    if (available == 0) return -2;
    if (start[0] != '$') return -1;
    long long length = 0;
    for (size_t i = 1; i < available; i++) {
        char c = start[i];
        if (c == '\r') {
            if (i + 1 >= available) return -2;
            if (i == 1 || start[i + 1] != '\n') return -1;
            *header_size = i + 2;
            return length;
        }
        if (c < '0' || c > '9' || i > 18) return -1;  // "$-1" (nil) and anything odd: hiredis decides
        length = length * 10 + (c - '0');
    }
    return -2;
}

/// Takes a bulk string of `length` bytes whose header is at the reader's position: what the
/// reader already holds is copied, the rest is received straight into the new buffer.
static char *chiredis_take_bulk(redisContext *context, size_t header_size, size_t length) {
    redisReader *reader = context->reader;
    char *bytes = malloc(length);
    if (bytes == NULL) {
        chiredis_fail(context, REDIS_ERR_OOM, "out of memory");
        return NULL;
    }
    reader->pos += header_size;
    size_t have = reader->len - reader->pos;
    if (have > length) have = length;
    memcpy(bytes, reader->buf + reader->pos, have);
    reader->pos += have;
    while (have < length) {
        ssize_t n = chiredis_recv(context, bytes + have, length - have);
        if (n < 0) {
            free(bytes);
            return NULL;
        }
        have += (size_t)n;
    }
    while (reader->len - reader->pos < 2) {
        if (chiredis_fill(context, CHIREDIS_HEADER_READ) != 0) {
            free(bytes);
            return NULL;
        }
    }
    if (memcmp(reader->buf + reader->pos, "\r\n", 2) != 0) {
        free(bytes);
        chiredis_fail(context, REDIS_ERR_PROTOCOL, "bulk string without its CRLF");
        return NULL;
    }
    reader->pos += 2;
    return bytes;
}

redisReply *chiredis_read_reply(redisContext *context, char **direct, size_t *direct_length) {
    *direct = NULL;
    *direct_length = 0;
    if (context->err != 0) return NULL;
    redisReader *reader = context->reader;
    // Between replies, peek: a large bulk string skips hiredis' copy of it.
    while (reader->ridx == -1) {
        size_t header_size = 0;
        long long length = chiredis_bulk_header(reader, &header_size);
        if (length == -2) {
            // An empty buffer reads little, so that a large payload's bulk lands in its own buffer.
            if (chiredis_fill(context, reader->pos == reader->len ? CHIREDIS_HEADER_READ : 64 * 1024) != 0) return NULL;
            continue;
        }
        if (length < CHIREDIS_DIRECT_MIN) break;
        *direct = chiredis_take_bulk(context, header_size, (size_t)length);
        if (*direct == NULL) return NULL;
        *direct_length = (size_t)length;
        return NULL;
    }
    void *reply = NULL;
    do {
        if (redisGetReplyFromReader(context, &reply) != REDIS_OK) return NULL;
        if (reply == NULL && chiredis_fill(context, 64 * 1024) != 0) return NULL;
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
