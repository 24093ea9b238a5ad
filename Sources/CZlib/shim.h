/* CZlib: what Swift cannot import from zlib directly.
 * inflateInit2 and deflateInit2 are function-like macros (they pass ZLIB_VERSION and
 * sizeof(z_stream) to inflateInit2_ / deflateInit2_), so Swift does not see them; these
 * static inline functions are the same calls with the gzip window bits fixed.
 * Nothing else lives here. */
#ifndef CHARTCAST_CZLIB_SHIM_H
#define CHARTCAST_CZLIB_SHIM_H

#include <zlib.h>

/* inflateInit2 with windowBits 16 + MAX_WBITS: a gzip wrapper (header and CRC-32 trailer
 * checked) around a deflate stream with the largest window. */
static inline int cc_inflate_init_gzip(z_streamp strm) {
    return inflateInit2(strm, 16 + MAX_WBITS);
}

/* deflateInit2 writing a gzip wrapper (16 + MAX_WBITS), default memory level and strategy. */
static inline int cc_deflate_init_gzip(z_streamp strm, int level) {
    return deflateInit2(strm, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
}

/* inflateInit2 with windowBits -MAX_WBITS: a raw deflate stream (no wrapper), as
 * permessage-deflate (RFC 7692) carries it; the largest window inflates any smaller one. */
static inline int cc_inflate_init_raw(z_streamp strm) {
    return inflateInit2(strm, -MAX_WBITS);
}

#endif
