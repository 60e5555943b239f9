/* A slow disk for scripts/compare.sh, preloaded into the coordinator (LD_PRELOAD): every
 * fdatasync and fsync takes SLOW_SYNC_US microseconds (default 10 000) longer than the disk's
 * own, as on network storage or a busy disk. It shows what group commit does when a sync takes
 * longer than a turn of the coordinator's loop. With SLOW_SYNC_COUNT set to a path, it keeps
 * there the number of syncs so far. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void count(void) {
    static long syncs;
    const char *path = getenv("SLOW_SYNC_COUNT");
    if (!path) return;
    char text[32], temporary[4096];
    int length = snprintf(text, sizeof text, "%ld\n", __atomic_add_fetch(&syncs, 1, __ATOMIC_RELAXED));
    /* Written beside it and renamed over it: a reader never sees the file half written. */
    snprintf(temporary, sizeof temporary, "%s.tmp", path);
    int fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return;
    ssize_t written = write(fd, text, (size_t)length);
    close(fd);
    if (written == length) rename(temporary, path);
}

static useconds_t delay(void) {
    const char *value = getenv("SLOW_SYNC_US");
    return value ? (useconds_t)atoi(value) : 10000;
}

int fdatasync(int fd) {
    static int (*real)(int);
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    usleep(delay());
    count();
    return real(fd);
}

int fsync(int fd) {
    static int (*real)(int);
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    usleep(delay());
    return real(fd);
}
