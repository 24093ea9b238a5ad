/* CLibev: libev (Debian libev-dev), the epoll event loop the WebSockets module creates and runs
 * when libwebsockets is asked to use its libev plugin (libwebsockets-evlib-ev) on a foreign
 * loop. Swift calls ev.h's functions (ev_loop_new, ev_run, ev_loop_destroy) directly; the loop
 * is an opaque struct. libev ships no pkg-config file: the module map links -lev. */
#ifndef CHARTCAST_CLIBEV_SHIM_H
#define CHARTCAST_CLIBEV_SHIM_H

#include <ev.h>

/* A timer that calls fn(arg). Why a wrapper: ev_timer_init, ev_timer_start and
 * ev_timer_stop are macros (Swift cannot call them) and the watcher's callback receives the
 * watcher, from which the argument is found by the struct's layout (the watcher comes first). */
typedef struct cc_ev_tick {
    ev_timer timer;
    void (*fn)(void *arg);
    void *arg;
} cc_ev_tick;

static void cc_ev_tick_fired(struct ev_loop *loop, ev_timer *watcher, int revents) {
    (void)loop; (void)revents;
    cc_ev_tick *tick = (cc_ev_tick *)watcher;
    tick->fn(tick->arg);
}

/* Arms tick to call fn(arg) once, `seconds` from now, re-arming it if it was armed; tick must
 * be zeroed or have been armed before. The loop's cached time is brought up to date first, so
 * the delay runs from now, not from the start of the loop's current pass. */
static inline void cc_ev_tick_arm_once(struct ev_loop *loop, cc_ev_tick *tick, double seconds,
                                       void (*fn)(void *arg), void *arg) {
    ev_timer_stop(loop, &tick->timer);
    tick->fn = fn;
    tick->arg = arg;
    ev_now_update(loop);
    ev_timer_init(&tick->timer, cc_ev_tick_fired, seconds, 0.);
    ev_timer_start(loop, &tick->timer);
}

static inline void cc_ev_tick_stop(struct ev_loop *loop, cc_ev_tick *tick) {
    ev_timer_stop(loop, &tick->timer);
}

#endif
