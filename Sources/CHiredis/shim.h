/* CHiredis: what Swift cannot use from hiredis directly.
 * Commands go through redisCommandArgv / redisAppendCommandArgv and redisGetReply, which Swift
 * calls as they are (the variadic, printf-style redisCommand and redisAppendCommand are never
 * used: Swift cannot call C variadic functions, and argv commands are binary-safe anyway).
 * What needs a wrapper is listed below, each with the reason. Nothing else lives here. */
#ifndef CHARTCAST_CHIREDIS_SHIM_H
#define CHARTCAST_CHIREDIS_SHIM_H

#include <hiredis/hiredis.h>

/* redisContext.errstr is a fixed `char[128]` array, which Swift imports as a 128-element tuple
 * that cannot be read as a C string without copying it element by element; this returns a
 * pointer to it (NUL-terminated by hiredis; empty when no error was set). */
static inline const char *cc_redis_errstr(const redisContext *context) {
    return context->errstr;
}

#endif
