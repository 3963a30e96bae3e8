// Linux headers that Swift's Glibc module does not bring in.
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <signal.h>
#include <sys/timerfd.h>
