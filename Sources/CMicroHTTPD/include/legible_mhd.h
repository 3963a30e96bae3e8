// A non-variadic door into libmicrohttpd for Swift: MHD_start_daemon takes its options as
// C varargs, which Swift cannot call.
#ifndef LEGIBLE_MHD_H
#define LEGIBLE_MHD_H

#include <stdint.h>
#include <sys/socket.h>
#include <microhttpd.h>

/// Starts a daemon with its own polling thread (epoll where available) on `address` (an
/// AF_INET or AF_INET6 sockaddr, `port` repeated as MHD wants it), answering every request
/// through `handler` with `context`. At most `connection_limit` connections at once, each
/// closed after `timeout_seconds` idle. NULL on failure (errno says why).
struct MHD_Daemon *legible_mhd_start(const struct sockaddr *address, uint16_t port,
                                     MHD_AccessHandlerCallback handler, void *context,
                                     unsigned int connection_limit, unsigned int timeout_seconds);



/// The port a daemon listens on (for port 0: the one the kernel chose); 0 when unknown.
uint16_t legible_mhd_port(struct MHD_Daemon *daemon);
#endif
