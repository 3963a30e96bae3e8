// Linux headers that Swift's Glibc module does not bring in.
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <signal.h>
#include <sys/timerfd.h>
#include <sys/syscall.h>
#include <unistd.h>

/// memfd_create(2), which glibc declares only under _GNU_SOURCE (not set for Swift's Glibc
/// module): an anonymous file for memory shared with an engine worker process.
static inline int legible_memfd_create(const char *name, unsigned int flags) {
    return (int)syscall(SYS_memfd_create, name, flags);
}
