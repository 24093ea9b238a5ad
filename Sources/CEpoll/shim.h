/* CEpoll: Linux's epoll and pipe2 for chartcast-load's raw WebSocket client. They are part of
 * glibc, but Swift's Glibc module does not include <sys/epoll.h>, and it declares pipe2 only
 * with _GNU_SOURCE, which it is not built with; this header makes both importable. Nothing to
 * link: the functions are libc's. */
#ifndef CHARTCAST_CEPOLL_SHIM_H
#define CHARTCAST_CEPOLL_SHIM_H

#include <sys/epoll.h>
#include <fcntl.h>
#include <unistd.h>

/* pipe2 is declared by <unistd.h> only under _GNU_SOURCE. */
int pipe2(int pipefd[2], int flags);

#endif
