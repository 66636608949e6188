#define _GNU_SOURCE
#include "CImageProxy.h"

#include <fcntl.h>

#include <errno.h>

#if defined(__linux__)
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

_Static_assert(sizeof(struct open_how) == 24, "struct open_how is three u64 (OPEN_HOW_SIZE_VER0)");

int cimageproxy_openat2(int dirfd, const char *path, uint64_t flags, uint64_t resolve) {
#ifdef SYS_openat2
    struct open_how how = {.flags = flags, .mode = 0, .resolve = resolve};
    long fd = syscall(SYS_openat2, dirfd, path, &how, sizeof how);
    return fd < 0 ? -errno : (int)fd;
#else
    (void)dirfd; (void)path; (void)flags; (void)resolve;
    return -ENOSYS;
#endif
}

uint64_t cimageproxy_resolve_beneath_no_magiclinks(void) { return RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS; }

int cimageproxy_o_path(void) { return O_PATH; }

#else

int cimageproxy_openat2(int dirfd, const char *path, uint64_t flags, uint64_t resolve) {
    (void)dirfd; (void)path; (void)flags; (void)resolve;
    return -ENOSYS;
}

uint64_t cimageproxy_resolve_beneath_no_magiclinks(void) { return 0; }

int cimageproxy_o_path(void) { return 0; }

#endif
