#ifndef CDIGEST_H
#define CDIGEST_H

// SHA-256, MD5 and HMAC-SHA256 over OpenSSL 3's libcrypto (EVP), behind typed functions so that
// no OpenSSL type reaches Swift. Every function returns 1 on success and 0 when libcrypto failed
// (out of memory, or a provider configuration without the algorithm, such as MD5 under FIPS).
// A NULL `bytes` is accepted when `count` is 0.

#include <stddef.h>
#include <stdint.h>

#define CDIGEST_SHA256_LENGTH 32
#define CDIGEST_MD5_LENGTH 16

/// SHA-256 of `count` bytes into `out` (32 bytes).
int cdigest_sha256(const void *bytes, size_t count, uint8_t *out);

/// MD5 of `count` bytes into `out` (16 bytes).
int cdigest_md5(const void *bytes, size_t count, uint8_t *out);

/// HMAC-SHA256 of `count` bytes with a key of `key_count` bytes (any length; NULL when 0) into `out` (32 bytes).
int cdigest_hmac_sha256(const void *key, size_t key_count, const void *bytes, size_t count, uint8_t *out);

/// An incremental SHA-256 (an `EVP_MD_CTX`), owned by one caller at a time.
typedef struct cdigest_sha256_context cdigest_sha256_context;

/// A new incremental SHA-256, or NULL when libcrypto failed. Free it with `cdigest_sha256_free`.
cdigest_sha256_context *cdigest_sha256_new(void);

/// Adds `count` bytes to the hash.
int cdigest_sha256_update(cdigest_sha256_context *context, const void *bytes, size_t count);

/// Writes the hash of everything added into `out` (32 bytes). The context takes no more updates.
int cdigest_sha256_final(cdigest_sha256_context *context, uint8_t *out);

/// Frees a context from `cdigest_sha256_new` (NULL is ignored).
void cdigest_sha256_free(cdigest_sha256_context *context);

/// 1 when the `count` bytes at `a` and `b` are equal, else 0, in time that depends only on `count`.
int cdigest_equal(const void *a, const void *b, size_t count);

#endif
