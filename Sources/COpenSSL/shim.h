/* COpenSSL: OpenSSL for chartcast-load: TLS for its HTTPS publishers and SHA-1 for the
 * Sec-WebSocket-Accept check of its raw WebSocket client (the WebSockets module gets TLS
 * through libwebsockets instead). What Swift cannot import directly is wrapped below.
 * Macros that expand to SSL_ctrl calls become tiny static inline functions. */
#ifndef CHARTCAST_COPENSSL_SHIM_H
#define CHARTCAST_COPENSSL_SHIM_H

#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>
#include <openssl/sha.h>

/* SSL_set_tlsext_host_name is a macro around SSL_ctrl with a void * cast. */
static inline int cc_ssl_set_server_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

/* SSL_CTX_set_min_proto_version is a macro around SSL_CTX_ctrl. */
static inline int cc_ssl_ctx_require_tls12(SSL_CTX *ctx) {
    return (int)SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
}

#endif
