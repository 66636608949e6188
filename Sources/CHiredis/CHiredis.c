#include "CHiredis.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

_Static_assert(sizeof(size_t) == sizeof(void *), "argument lengths are passed as Swift Int");
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
    }
    return context;
}

int chiredis_set_timeout(redisContext *context, long timeout_us) {
    return redisSetTimeout(context, chiredis_timeval(timeout_us)) == REDIS_OK ? 0 : -1;
}

int chiredis_append(redisContext *context, int argc, const char **argv, const size_t *lengths) {
    return redisAppendCommandArgv(context, argc, argv, lengths) == REDIS_OK ? 0 : -1;
}

redisReply *chiredis_next_reply(redisContext *context) {
    void *reply = NULL;
    if (redisGetReply(context, &reply) != REDIS_OK) return NULL;
    return (redisReply *)reply;
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

void chiredis_block_sigpipe_on_this_thread(void) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
}

void chiredis_discard_pending_sigpipe(void) {
    sigset_t set, pending;
    sigemptyset(&set);
    sigaddset(&set, SIGPIPE);
    sigemptyset(&pending);
    if (sigpending(&pending) != 0 || !sigismember(&pending, SIGPIPE)) return;
    struct timespec zero = {0, 0};
    sigtimedwait(&set, NULL, &zero);
}
