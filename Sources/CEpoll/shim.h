/* CEpoll: the Linux socket calls chartcast-load's raw WebSocket client (and its send() floor
 * measurement) needs beyond Swift's Glibc module. epoll and pipe2 are part of glibc, but the Glibc
 * module does not include <sys/epoll.h>, and it declares pipe2 only with _GNU_SOURCE, which it is
 * not built with; the receive-timestamp and thread-pinning helpers below exist because their C
 * API is macros. Nothing to link: the functions are libc's. */
#ifndef CHARTCAST_CEPOLL_SHIM_H
#define CHARTCAST_CEPOLL_SHIM_H

#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <errno.h>

/* pipe2 is declared by <unistd.h> only under _GNU_SOURCE. */
int pipe2(int pipefd[2], int flags);

/* Asks the kernel to stamp the socket's received segments (SO_TIMESTAMPNS). Swift cannot use the
 * constant: glibc defines SO_TIMESTAMPNS as an expression choosing between the 32- and 64-bit
 * time variants. Returns setsockopt's result. */
static inline int chartcast_enable_receive_timestamps(int fd) {
    int one = 1;
    return setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one);
}

/* read(fd, buffer, length) that also reports when the newest segment it read reached the socket:
 * *stamp is that CLOCK_REALTIME time in nanoseconds, or 0 when the kernel sent no stamp. The stamp
 * comes as a control message of recvmsg, and CMSG_FIRSTHDR, CMSG_NXTHDR and CMSG_DATA, which
 * walk those, are macros Swift cannot call. */
static inline ssize_t chartcast_read_stamped(int fd, void *buffer, size_t length, long long *stamp) {
    union { char bytes[CMSG_SPACE(sizeof(struct timespec)) * 2]; struct cmsghdr align; } control;
    struct iovec vector = { buffer, length };
    struct msghdr message;
    memset(&message, 0, sizeof message);
    message.msg_iov = &vector;
    message.msg_iovlen = 1;
    message.msg_control = control.bytes;
    message.msg_controllen = sizeof control.bytes;
    ssize_t count = recvmsg(fd, &message, 0);
    *stamp = 0;
    if (count <= 0) return count;
    for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header; header = CMSG_NXTHDR(&message, header)) {
        if (header->cmsg_level == SOL_SOCKET && header->cmsg_type == SCM_TIMESTAMPNS) {
            struct timespec when;
            memcpy(&when, CMSG_DATA(header), sizeof when);
            *stamp = (long long)when.tv_sec * 1000000000LL + when.tv_nsec;
        }
    }
    return count;
}

/* Pins the calling thread to one CPU (0-based); returns 0, or -1 with errno set. The glibc call
 * and the CPU_SET macros that fill its mask exist only under _GNU_SOURCE, which Swift's Glibc
 * module is not built with, so the mask is a plain bit array handed to the system call. */
static inline int chartcast_pin_thread(int cpu) {
    unsigned long mask[16];
    const int bits = (int)(8 * sizeof(unsigned long));
    if (cpu < 0 || cpu >= 16 * bits) { errno = EINVAL; return -1; }
    memset(mask, 0, sizeof mask);
    mask[cpu / bits] = 1UL << (cpu % bits);
    return (int)syscall(SYS_sched_setaffinity, 0, sizeof mask, mask);
}

#endif
