/* A slow disk for scripts/perf/compare.sh, preloaded into the coordinator (LD_PRELOAD): every
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

static int (*real_fdatasync)(int);
static int (*real_fsync)(int);
static useconds_t delay = 10000;
static const char *count_path;

/* Looked up once, before the program's own code runs (no thread races to set them). */
__attribute__((constructor)) static void start(void) {
    real_fdatasync = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    real_fsync = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    if (!real_fdatasync || !real_fsync) {
        fprintf(stderr, "slowsync: fdatasync or fsync not found\n");
        abort();
    }
    const char *value = getenv("SLOW_SYNC_US");
    if (value) {
        long microseconds = atol(value);
        delay = (useconds_t)(microseconds < 0 ? 0 : microseconds > 1000000 ? 1000000 : microseconds);
    }
    count_path = getenv("SLOW_SYNC_COUNT");
}

static void count(void) {
    static long syncs;
    if (!count_path) return;
    char text[32], temporary[4096];
    int length = snprintf(text, sizeof text, "%ld\n", __atomic_add_fetch(&syncs, 1, __ATOMIC_RELAXED));
    /* Written beside it and renamed over it: a reader never sees the file half written. */
    snprintf(temporary, sizeof temporary, "%s.tmp", count_path);
    int fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return;
    ssize_t written = write(fd, text, (size_t)length);
    close(fd);
    if (written == length) rename(temporary, count_path);
}

int fdatasync(int fd) {
    usleep(delay);
    count();
    return real_fdatasync(fd);
}

int fsync(int fd) {
    usleep(delay);
    count();
    return real_fsync(fd);
}
