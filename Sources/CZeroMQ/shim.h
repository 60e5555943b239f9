#ifndef CZEROMQ_SHIM_H
#define CZEROMQ_SHIM_H

#include <zmq.h>
#include <stdint.h>

#ifdef __linux__
// Glibc's Swift module does not export <sys/eventfd.h>; the I/O loop wakes its thread with one.
// Darwin has no eventfd: WakeSignal uses a pipe there.
int eventfd(unsigned int initval, int flags);
#define CZMQ_EFD_CLOEXEC 02000000
#define CZMQ_EFD_NONBLOCK 04000
#endif

#endif
