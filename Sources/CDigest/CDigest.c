#include "CDigest.h"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/sha.h>
#include <openssl/md5.h>
#include <pthread.h>

_Static_assert(CDIGEST_SHA256_LENGTH == SHA256_DIGEST_LENGTH, "SHA-256 length");
_Static_assert(CDIGEST_MD5_LENGTH == MD5_DIGEST_LENGTH, "MD5 length");

// Fetched once for the process: OpenSSL 3 would otherwise look each algorithm up by name (under a
// lock) on every call made with EVP_sha256() or HMAC(). They live as long as the process.
static EVP_MD *sha256_md;
static EVP_MD *md5_md;
static EVP_MAC *hmac_mac;
static pthread_once_t fetch_once = PTHREAD_ONCE_INIT;

static void fetch_algorithms(void) {
    sha256_md = EVP_MD_fetch(NULL, "SHA2-256", NULL);
    md5_md = EVP_MD_fetch(NULL, "MD5", NULL);
    hmac_mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
}

// Stands in for a NULL pointer of an empty buffer: OpenSSL reads nothing from it.
static const unsigned char empty_input[1] = {0};

static const void *nonnull(const void *bytes, size_t count) {
    return (bytes == NULL || count == 0) ? empty_input : bytes;
}

static int digest(const EVP_MD *md, const void *bytes, size_t count, uint8_t *out, unsigned int length) {
    if (md == NULL) return 0;
    unsigned int written = 0;
    return EVP_Digest(nonnull(bytes, count), count, out, &written, md, NULL) == 1 && written == length;
}

int cdigest_sha256(const void *bytes, size_t count, uint8_t *out) {
    pthread_once(&fetch_once, fetch_algorithms);
    return digest(sha256_md, bytes, count, out, CDIGEST_SHA256_LENGTH);
}

int cdigest_md5(const void *bytes, size_t count, uint8_t *out) {
    pthread_once(&fetch_once, fetch_algorithms);
    return digest(md5_md, bytes, count, out, CDIGEST_MD5_LENGTH);
}

int cdigest_hmac_sha256(const void *key, size_t key_count, const void *bytes, size_t count, uint8_t *out) {
    pthread_once(&fetch_once, fetch_algorithms);
    if (hmac_mac == NULL) return 0;
    EVP_MAC_CTX *context = EVP_MAC_CTX_new(hmac_mac);
    if (context == NULL) return 0;
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)"SHA2-256", 0),
        OSSL_PARAM_construct_end(),
    };
    size_t written = 0;
    // A NULL key would mean "keep the previous key" to EVP_MAC_init; an empty key is a real key.
    int ok = EVP_MAC_init(context, nonnull(key, key_count), key_count, params) == 1
        && EVP_MAC_update(context, nonnull(bytes, count), count) == 1
        && EVP_MAC_final(context, out, &written, CDIGEST_SHA256_LENGTH) == 1
        && written == CDIGEST_SHA256_LENGTH;
    EVP_MAC_CTX_free(context);
    return ok;
}

cdigest_sha256_context *cdigest_sha256_new(void) {
    pthread_once(&fetch_once, fetch_algorithms);
    if (sha256_md == NULL) return NULL;
    EVP_MD_CTX *context = EVP_MD_CTX_new();
    if (context == NULL) return NULL;
    if (EVP_DigestInit_ex2(context, sha256_md, NULL) != 1) {
        EVP_MD_CTX_free(context);
        return NULL;
    }
    return (cdigest_sha256_context *)context;
}

int cdigest_sha256_update(cdigest_sha256_context *context, const void *bytes, size_t count) {
    if (count == 0) return 1;
    return EVP_DigestUpdate((EVP_MD_CTX *)context, bytes, count) == 1;
}

int cdigest_sha256_final(cdigest_sha256_context *context, uint8_t *out) {
    unsigned int written = 0;
    return EVP_DigestFinal_ex((EVP_MD_CTX *)context, out, &written) == 1 && written == CDIGEST_SHA256_LENGTH;
}

void cdigest_sha256_free(cdigest_sha256_context *context) {
    EVP_MD_CTX_free((EVP_MD_CTX *)context);
}

int cdigest_equal(const void *a, const void *b, size_t count) {
    if (count == 0) return 1;
    return CRYPTO_memcmp(a, b, count) == 0;
}
