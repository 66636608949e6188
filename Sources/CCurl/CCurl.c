#include "CCurl.h"

#include <stdint.h>

// LoaderHTTP passes sizes as Int64 and longs as Int; both must match libcurl's types.
_Static_assert(sizeof(curl_off_t) == sizeof(int64_t), "curl_off_t must be 64 bits");
_Static_assert(sizeof(long) == sizeof(intptr_t), "long must be pointer-sized (LP64)");

CURLcode CCurl_global_init(void) {
    return curl_global_init(CURL_GLOBAL_DEFAULT);
}

CURLcode CCurl_easy_setopt_long(CURL *easy, CURLoption option, long value) {
    return curl_easy_setopt(easy, option, value);
}

CURLcode CCurl_easy_setopt_off_t(CURL *easy, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(easy, option, value);
}

CURLcode CCurl_easy_setopt_string(CURL *easy, CURLoption option, const char *value) {
    return curl_easy_setopt(easy, option, value);
}

CURLcode CCurl_easy_setopt_pointer(CURL *easy, CURLoption option, void *value) {
    return curl_easy_setopt(easy, option, value);
}

CURLcode CCurl_easy_setopt_write_function(CURL *easy, CCurl_data_callback callback, void *userdata) {
    CURLcode code = curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, callback);
    if (code != CURLE_OK) return code;
    return curl_easy_setopt(easy, CURLOPT_WRITEDATA, userdata);
}

CURLcode CCurl_easy_setopt_header_function(CURL *easy, CCurl_data_callback callback, void *userdata) {
    CURLcode code = curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, callback);
    if (code != CURLE_OK) return code;
    return curl_easy_setopt(easy, CURLOPT_HEADERDATA, userdata);
}

CURLcode CCurl_easy_getinfo_long(CURL *easy, CURLINFO info, long *value) {
    return curl_easy_getinfo(easy, info, value);
}

CURLcode CCurl_easy_getinfo_off_t(CURL *easy, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(easy, info, value);
}

CURLcode CCurl_easy_getinfo_string(CURL *easy, CURLINFO info, const char **value) {
    char *result = NULL;
    CURLcode code = curl_easy_getinfo(easy, info, &result);
    *value = result;
    return code;
}

CURLMcode CCurl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

CURLSHcode CCurl_share_setopt_long(CURLSH *share, CURLSHoption option, long value) {
    // CURLSHOPT_SHARE / CURLSHOPT_UNSHARE read an int-sized lock_data value.
    return curl_share_setopt(share, option, (int)value);
}

int CCurl_multi_next_done(CURLM *multi, CURL **easy, CURLcode *result) {
    int remaining = 0;
    CURLMsg *message;
    while ((message = curl_multi_info_read(multi, &remaining)) != NULL) {
        if (message->msg == CURLMSG_DONE) {
            *easy = message->easy_handle;
            *result = message->data.result;
            return 1;
        }
    }
    return 0;
}

long CCurl_auth_basic(void) { return (long)CURLAUTH_BASIC; }
long CCurl_pipe_multiplex(void) { return CURLPIPE_MULTIPLEX; }
long CCurl_http_version_2tls(void) { return CURL_HTTP_VERSION_2TLS; }
unsigned int CCurl_header_origin_server(void) { return CURLH_HEADER; }
