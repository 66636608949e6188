#ifndef CIMAGEPROXY_H
#define CIMAGEPROXY_H

#include <stdint.h>

/// openat2(2) with `how.flags = flags`, `how.mode = 0`, `how.resolve = resolve`, through syscall(2)
/// (glibc 2.36 has no wrapper). Returns the new descriptor, or -errno (-ENOSYS where the kernel
/// predates openat2, Linux 5.6; -ENOSYS on systems without it at all).
int cimageproxy_openat2(int dirfd, const char *path, uint64_t flags, uint64_t resolve);

/// RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS from <linux/openat2.h> (0 where the header is missing).
uint64_t cimageproxy_resolve_beneath_no_magiclinks(void);

/// O_PATH (Linux), which Glibc's Swift module leaves out without _GNU_SOURCE; 0 elsewhere.
int cimageproxy_o_path(void);

#endif
