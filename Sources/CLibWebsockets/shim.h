/* CLibWebsockets: what Swift cannot import from libwebsockets directly.
 * Macros that expand to expressions, variadic log macros and zeroed structs
 * become tiny static inline functions. Nothing else lives here. */
#ifndef CHARTCAST_CLIBWEBSOCKETS_SHIM_H
#define CHARTCAST_CLIBWEBSOCKETS_SHIM_H

#include <libwebsockets.h>
#include <string.h>

/* LWS_PRE is a macro expression (_LWS_PAD(...)); Swift sees it as this constant. */
static inline size_t cc_lws_pre(void) { return LWS_PRE; }

/* lwsl_* are variadic macros; logging a preformatted string is enough for Swift. */
static inline void cc_lwsl(int level, const char *message) { _lws_log(level, "%s\n", message); }

#endif
