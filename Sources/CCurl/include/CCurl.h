// Typed wrappers around libcurl's variadic and macro-based API, for LoaderHTTP.
//
// Swift cannot call C variadic functions such as curl_easy_setopt, and several libcurl constants
// are macros with casts that Swift does not import. Every symbol here is prefixed `CCurl_`.
#ifndef CCURL_H
#define CCURL_H

#include <curl/curl.h>

/// The signature libcurl uses for CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION.
typedef size_t (*CCurl_data_callback)(char *buffer, size_t size, size_t count, void *userdata);

/// Initialises libcurl once per process (safe to call repeatedly; only the first call does work).
CURLcode CCurl_global_init(void);

// MARK: - Easy handle options

CURLcode CCurl_easy_setopt_long(CURL *easy, CURLoption option, long value);
CURLcode CCurl_easy_setopt_off_t(CURL *easy, CURLoption option, curl_off_t value);
/// Strings are copied by libcurl (it has done so for every string option since 7.17).
CURLcode CCurl_easy_setopt_string(CURL *easy, CURLoption option, const char *value);
/// For options taking an object pointer: CURLOPT_HTTPHEADER (curl_slist), CURLOPT_SHARE,
/// CURLOPT_PRIVATE and the *DATA userdata options.
CURLcode CCurl_easy_setopt_pointer(CURL *easy, CURLoption option, void *value);
CURLcode CCurl_easy_setopt_write_function(CURL *easy, CCurl_data_callback callback, void *userdata);
CURLcode CCurl_easy_setopt_header_function(CURL *easy, CCurl_data_callback callback, void *userdata);

// MARK: - Easy handle information

CURLcode CCurl_easy_getinfo_long(CURL *easy, CURLINFO info, long *value);
CURLcode CCurl_easy_getinfo_off_t(CURL *easy, CURLINFO info, curl_off_t *value);
/// The returned string belongs to the handle and lives until the handle is reset or cleaned up.
CURLcode CCurl_easy_getinfo_string(CURL *easy, CURLINFO info, const char **value);

// MARK: - Multi and share handles

CURLMcode CCurl_multi_setopt_long(CURLM *multi, CURLMoption option, long value);
CURLSHcode CCurl_share_setopt_long(CURLSH *share, CURLSHoption option, long value);

/// Reads the next message of a multi handle. Returns 1 and fills `easy`/`result` when a transfer
/// finished, 0 when there are no more messages.
int CCurl_multi_next_done(CURLM *multi, CURL **easy, CURLcode *result);

// MARK: - Constants that Swift cannot import (macros with casts)

long CCurl_auth_basic(void);
long CCurl_pipe_multiplex(void);
long CCurl_http_version_2tls(void);
/// `CURLH_HEADER`: plain server headers, for curl_easy_nextheader.
unsigned int CCurl_header_origin_server(void);

#endif
