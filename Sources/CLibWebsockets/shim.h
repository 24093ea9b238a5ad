/* CLibWebsockets: what Swift cannot import from libwebsockets directly.
 * Macros that expand to expressions, variadic log macros and zeroed structs
 * become tiny static inline functions. Nothing else lives here. */
#ifndef CHARTCAST_CLIBWEBSOCKETS_SHIM_H
#define CHARTCAST_CLIBWEBSOCKETS_SHIM_H

#include <libwebsockets.h>
#include <string.h>
#include <stdlib.h>
#include <sys/ioctl.h>

/* LWS_PRE is a macro expression (_LWS_PAD(...)); Swift sees it as this constant. */
static inline size_t cc_lws_pre(void) { return LWS_PRE; }

/* lwsl_* are variadic macros; logging a preformatted string is enough for Swift. */
static inline void cc_lwsl(int level, const char *message) { _lws_log(level, "%s\n", message); }

/* Zeroed structs: every field lws does not know about stays 0 / NULL. */
static inline struct lws_context_creation_info cc_zeroed_context_info(void) {
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof(info));
    info.gid = -1;
    info.uid = -1;
    return info;
}

static inline struct lws_client_connect_info cc_zeroed_connect_info(void) {
    struct lws_client_connect_info info;
    memset(&info, 0, sizeof(info));
    return info;
}

/* A sul timer element plus an opaque owner pointer. The sul is the first
 * member, so the sul pointer handed to the callback is the cc_timer pointer. */
typedef struct cc_timer {
    lws_sorted_usec_list_t sul;
    void *owner;
} cc_timer_t;

static inline cc_timer_t *cc_timer_create(void *owner) {
    cc_timer_t *t = (cc_timer_t *)calloc(1, sizeof(*t));
    if (t)
        t->owner = owner;
    return t;
}

static inline void *cc_timer_owner(lws_sorted_usec_list_t *sul) {
    return lws_container_of(sul, cc_timer_t, sul)->owner;
}

static inline void cc_timer_schedule(struct lws_context *context, cc_timer_t *t,
                                     sul_cb_t cb, int64_t delay_us) {
    lws_sul_schedule(context, 0, &t->sul, cb, (lws_usec_t)delay_us);
}

static inline void cc_timer_cancel(cc_timer_t *t) { lws_sul_cancel(&t->sul); }

static inline void cc_timer_destroy(cc_timer_t *t) { free(t); }

/* LWS_WRITE_* values combined with the NO_FIN flag, as plain ints. */
static inline int cc_write_flags(int first, int binary, int final) {
    int flags = first ? (binary ? LWS_WRITE_BINARY : LWS_WRITE_TEXT) : LWS_WRITE_CONTINUATION;
    if (!final)
        flags |= LWS_WRITE_NO_FIN;
    return flags;
}

/* Bytes in a socket's send queue not yet acknowledged by the peer, or -1: ioctl is variadic,
 * which Swift cannot call, and TIOCOUTQ is a macro of <asm/ioctls.h> that Swift does not see. */
static inline int cc_socket_unsent_bytes(int fd) {
    int queued = 0;
    return ioctl(fd, TIOCOUTQ, &queued) == 0 ? queued : -1;
}

/* lws_write with the protocol given as an int (Swift cannot OR C enums). */
static inline int cc_lws_write(struct lws *wsi, unsigned char *payload, size_t len, int flags) {
    return lws_write(wsi, payload, len, (enum lws_write_protocol)flags);
}

#endif
