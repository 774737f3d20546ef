// SPDX-License-Identifier: GPL-2.0
/*
 * bfctl redis: TLS (rediss://) with OpenSSL under hiredis 0.14's reader.
 *
 * Debian 12's hiredis (0.14) has no TLS, and bfctl does not use hiredis'
 * socket loops anyway (redis_io.c reads the socket itself, to bound
 * replies and to keep deadlines and signals).  So hiredis stays what it
 * is here, a command formatter (redisAppendCommandArgv fills c->obuf)
 * and a reply parser (c->reader), and the bytes move through an SSL* on
 * hiredis' own non-blocking socket: bfctl_redis_tls_write() sends obuf
 * with SSL_write, bfctl_redis_tls_read() feeds what SSL_read gives to the
 * reader.  redis_io.c picks these or hiredis' plain read and write in
 * one place each (the transport is a pointer, NULL for plain), so every
 * bound, deadline and signal check there holds for both unchanged.
 *
 * The server's certificate is verified against --tls-ca (else the system
 * store) and its name against --tls-server-name (else the URL's host),
 * always: there is no option to skip it.  A follower that accepted any
 * certificate would load whatever filter a machine in the path served.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/stat.h>
#include <hiredis/sds.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include "redis.h"

/* one SSL_read: what hiredis reads at once from a plain socket */
#define TLS_READ	(16 << 10)

struct bfctl_redis_tls {
	SSL_CTX *ctx;
	SSL *ssl;
	bool want_write;	/* SSL_read needs the socket writable */
	bool write_wants_read;	/* SSL_write needs a read first */
	bool got_data;		/* the server has answered something */
};

/* the connection is unusable: "URL: TLS: why" in r->err, -1 */
#define tls_fail(r, fmt, ...) \
	bfctl_redis_io_fail(r, "TLS: " fmt, ##__VA_ARGS__)

/* OpenSSL's first queued error as text, or dflt */
static const char *ssl_reason(const char *dflt)
{
	static char buf[160];
	unsigned long e = ERR_peek_error();

	if (!e)
		return dflt;
	ERR_error_string_n(e, buf, sizeof(buf));
	ERR_clear_error();
	return buf;
}

/*
 * The client key: like the password, refused when others may read it
 * (group may: Debian's ssl-cert group convention)
 */
static int key_private(struct bfctl_redis *r, const char *f)
{
	struct stat st;

	if (stat(f, &st))
		return tls_fail(r, "--tls-key %s: %s", f, strerror(errno));
	if (st.st_mode & 0007)
		return tls_fail(r, "--tls-key %s: readable by others (mode %03o): chmod o-rwx it",
				f, (unsigned int)(st.st_mode & 0777));
	return 0;
}

static int ctx_setup(struct bfctl_redis *r, SSL_CTX *ctx)
{
	const struct bfctl_redis_opts *o = r->o;
	struct stat st;

	SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
	SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
	/* a retried SSL_write may see obuf moved and grown by appends */
	SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE |
			 SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
	if (o->tls_ca) {
		bool dir = !stat(o->tls_ca, &st) && S_ISDIR(st.st_mode);

		if (!SSL_CTX_load_verify_locations(ctx, dir ? NULL : o->tls_ca,
						   dir ? o->tls_ca : NULL))
			return tls_fail(r, "--tls-ca %s: %s", o->tls_ca,
					ssl_reason("cannot load it"));
	} else if (!SSL_CTX_set_default_verify_paths(ctx)) {
		return tls_fail(r, "the system's CA store: %s",
				ssl_reason("cannot load it"));
	}
	if (!o->tls_cert)
		return 0;
	if (key_private(r, o->tls_key))
		return -1;
	if (SSL_CTX_use_certificate_chain_file(ctx, o->tls_cert) != 1)
		return tls_fail(r, "--tls-cert %s: %s", o->tls_cert,
				ssl_reason("cannot load it"));
	if (SSL_CTX_use_PrivateKey_file(ctx, o->tls_key, SSL_FILETYPE_PEM) != 1)
		return tls_fail(r, "--tls-key %s: %s", o->tls_key,
				ssl_reason("cannot load it"));
	if (SSL_CTX_check_private_key(ctx) != 1)
		return tls_fail(r, "--tls-key %s does not match --tls-cert %s",
				o->tls_key, o->tls_cert);
	return 0;
}

/* the name to send (SNI) and verify: a DNS name, or an IP address's SAN */
static int ssl_setup(struct bfctl_redis *r, SSL *ssl)
{
	const char *name = r->o->tls_server_name ? r->o->tls_server_name :
			   r->o->host;
	unsigned char ip[16];
	bool is_ip = inet_pton(AF_INET, name, ip) == 1 ||
		     inet_pton(AF_INET6, name, ip) == 1;

	if (!SSL_set_fd(ssl, r->c->fd))
		return tls_fail(r, "%s", ssl_reason("SSL_set_fd failed"));
	if (is_ip) {
		if (!X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), name))
			return tls_fail(r, "bad server address %s", name);
		return 0;
	}
	/* SNI is for names only (RFC 6066) */
	if (!SSL_set_tlsext_host_name(ssl, name) || !SSL_set1_host(ssl, name))
		return tls_fail(r, "bad server name %s", name);
	return 0;
}

/*
 * A verify error that says the chain reached no CA bfctl trusts (an
 * unknown issuer, a self-signed certificate): --tls-ca is the fix.  An
 * expired certificate or a wrong purpose is not, and is told as it is.
 */
static bool issuer_unknown(long v)
{
	return v == X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT ||
	       v == X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY ||
	       v == X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE ||
	       v == X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT ||
	       v == X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN;
}

/* why the handshake failed, naming the option that can fix it */
static int handshake_fail(struct bfctl_redis *r, SSL *ssl, int err)
{
	long v = SSL_get_verify_result(ssl);
	const char *name = r->o->tls_server_name ? r->o->tls_server_name :
			   r->o->host;

	if (v == X509_V_ERR_HOSTNAME_MISMATCH || v == X509_V_ERR_IP_ADDRESS_MISMATCH) {
		ERR_clear_error();
		return tls_fail(r, "the server's certificate was refused: %s: it is not for %s (--tls-server-name names the one it is for)",
				X509_verify_cert_error_string(v), name);
	}
	if (v != X509_V_OK) {
		ERR_clear_error();
		if (!issuer_unknown(v))
			return tls_fail(r, "the server's certificate was refused: %s",
					X509_verify_cert_error_string(v));
		return tls_fail(r, "the server's certificate was refused: %s (%s)",
				X509_verify_cert_error_string(v),
				r->o->tls_ca ? "not signed by a CA in --tls-ca" :
				"not signed by a CA in the system store: --tls-ca FILE");
	}
	if (err == SSL_ERROR_SYSCALL && !ERR_peek_error())
		return tls_fail(r, "handshake: %s", errno ? strerror(errno) :
				"the server closed the connection (not a TLS port?)");
	return tls_fail(r, "handshake: %s%s", ssl_reason("failed"),
			r->o->tls_cert ? "" :
			" (a server that wants a client certificate: --tls-cert and --tls-key)");
}

int bfctl_redis_tls_start(struct bfctl_redis *r)
{
	struct bfctl_redis_tls *t = calloc(1, sizeof(*t));
	double idle_from = bfctl_redis_now();
	short rev;
	int ret, err;

	if (!t)
		return tls_fail(r, "out of memory");
	r->tls = t;
	ERR_clear_error();
	t->ctx = SSL_CTX_new(TLS_client_method());
	if (!t->ctx)
		return tls_fail(r, "%s", ssl_reason("SSL_CTX_new failed"));
	if (ctx_setup(r, t->ctx))
		return -1;
	t->ssl = SSL_new(t->ctx);
	if (!t->ssl)
		return tls_fail(r, "%s", ssl_reason("SSL_new failed"));
	if (ssl_setup(r, t->ssl))
		return -1;
	/* the socket is non-blocking: wait (deadline, signals) as for replies */
	for (;;) {
		ERR_clear_error();
		errno = 0;
		ret = SSL_connect(t->ssl);
		if (ret == 1)
			return 0;
		err = SSL_get_error(t->ssl, ret);
		if (err != SSL_ERROR_WANT_READ && err != SSL_ERROR_WANT_WRITE)
			return handshake_fail(r, t->ssl, err);
		if (bfctl_redis_wait(r, err == SSL_ERROR_WANT_READ ? POLLIN :
				     POLLOUT, idle_from, &rev))
			return -1;
		idle_from = bfctl_redis_now();
	}
}

/*
 * An error of SSL_read/SSL_write as r->err; -1.  With TLS 1.3 a server
 * refuses a client without a certificate only after the handshake (its
 * alert, or a reset, comes at the first command): said so then.
 */
static int io_error(struct bfctl_redis *r, int err, const char *what)
{
	const char *hint = r->o->tls_cert || r->tls->got_data ? "" :
		" (a server that wants a client certificate: --tls-cert and --tls-key)";

	if (err == SSL_ERROR_ZERO_RETURN)
		return tls_fail(r, "the server closed the connection%s", hint);
	if (err == SSL_ERROR_SYSCALL && !ERR_peek_error())
		return tls_fail(r, "%s: %s%s", what, errno ? strerror(errno) :
				"connection lost", hint);
	return tls_fail(r, "%s: %s%s", what, ssl_reason("failed"), hint);
}

int bfctl_redis_tls_read(struct bfctl_redis *r)
{
	struct bfctl_redis_tls *t = r->tls;
	char buf[TLS_READ];
	int n, err;

	t->want_write = false;
	t->write_wants_read = false;
	ERR_clear_error();
	errno = 0;
	n = SSL_read(t->ssl, buf, sizeof(buf));
	if (n > 0) {
		t->got_data = true;
		if (redisReaderFeed(r->c->reader, buf, (size_t)n) != REDIS_OK)
			return tls_fail(r, "out of memory");
		return 0;
	}
	err = SSL_get_error(t->ssl, n);
	if (err == SSL_ERROR_WANT_READ)
		return 0;	/* a record not whole yet, or no data in it */
	if (err == SSL_ERROR_WANT_WRITE) {
		t->want_write = true;
		return 0;
	}
	return io_error(r, err, "read");
}

/*
 * A broken connection would raise SIGPIPE in SSL_write (plain hiredis
 * would too, but there bfctl rarely writes to a dead peer): held off
 * while writing and taken back if it came, so EPIPE is just an error.
 */
static int ssl_write_nosig(SSL *ssl, const void *p, int n)
{
	sigset_t pipe, old;
	struct timespec zero = { 0 };
	int ret;

	sigemptyset(&pipe);
	sigaddset(&pipe, SIGPIPE);
	sigprocmask(SIG_BLOCK, &pipe, &old);
	ret = SSL_write(ssl, p, n);
	if (ret <= 0 && errno == EPIPE)
		sigtimedwait(&pipe, NULL, &zero);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ret;
}

int bfctl_redis_tls_write(struct bfctl_redis *r, int *done)
{
	redisContext *c = r->c;
	size_t len;
	int n, err;

	while ((len = sdslen(c->obuf))) {
		ERR_clear_error();
		errno = 0;
		n = ssl_write_nosig(r->tls->ssl, c->obuf,
				    len > (1u << 30) ? 1 << 30 : (int)len);
		if (n <= 0) {
			err = SSL_get_error(r->tls->ssl, n);
			r->tls->write_wants_read = err == SSL_ERROR_WANT_READ;
			if (err == SSL_ERROR_WANT_WRITE ||
			    err == SSL_ERROR_WANT_READ)
				break;
			return io_error(r, err, "write");
		}
		sdsrange(c->obuf, n, -1);
	}
	*done = !sdslen(c->obuf);
	return 0;
}

short bfctl_redis_tls_events(const struct bfctl_redis *r, short ev)
{
	if (!r->tls)
		return ev;
	/* a write that waits for a read polls for POLLIN alone, not spins */
	if (r->tls->write_wants_read)
		ev &= ~POLLOUT;
	if (r->tls->want_write)
		ev |= POLLOUT;
	return ev;
}

bool bfctl_redis_tls_pending(const struct bfctl_redis *r)
{
	return r->tls && r->tls->ssl && SSL_pending(r->tls->ssl) > 0;
}

void bfctl_redis_tls_close(struct bfctl_redis *r)
{
	struct bfctl_redis_tls *t = r->tls;

	if (!t)
		return;
	/*
	 * No close_notify: the socket may be broken or the peer hostile,
	 * and a watcher must not wait on it; Redis needs none.
	 */
	SSL_free(t->ssl);
	SSL_CTX_free(t->ctx);
	free(t);
	r->tls = NULL;
}
