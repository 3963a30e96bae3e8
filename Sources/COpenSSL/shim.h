#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>

/* What Swift cannot call directly: macros of OpenSSL's API, and the ALPN callback. */

static inline int legible_ssl_ctx_require_tls12(SSL_CTX *context) {
  return (int)SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION);
}

/* Partial writes (a non-blocking socket takes what it can) from a buffer that may move
 * between the retries of one write (Swift arrays do). */
static inline void legible_ssl_ctx_set_nonblocking_writes(SSL_CTX *context) {
  SSL_CTX_set_mode(context, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
}

/* ALPN: "h2" when the client offers it (gRPC clients require it); otherwise no protocol is
 * selected and the connection goes on (the framed protocol needs none): a connection's first
 * decrypted bytes tell the protocols apart, as on a cleartext listener. */
static int legible_alpn_select(SSL *ssl, const unsigned char **out, unsigned char *out_length,
                               const unsigned char *offered, unsigned int offered_length, void *unused) {
  static const unsigned char h2[] = {2, 'h', '2'};
  unsigned char *selected = NULL;
  unsigned char selected_length = 0;
  (void)ssl;
  (void)unused;
  if (SSL_select_next_proto(&selected, &selected_length, h2, sizeof h2, offered, offered_length) ==
      OPENSSL_NPN_NEGOTIATED) {
    *out = selected;
    *out_length = selected_length;
    return SSL_TLSEXT_ERR_OK;
  }
  return SSL_TLSEXT_ERR_NOACK;
}

static inline void legible_ssl_ctx_select_h2(SSL_CTX *context) {
  SSL_CTX_set_alpn_select_cb(context, legible_alpn_select, NULL);
}

/* A client's server name: SNI in its ClientHello (a macro in OpenSSL's API). */
static inline int legible_ssl_set_server_name(SSL *ssl, const char *name) {
  return (int)SSL_set_tlsext_host_name(ssl, name);
}
