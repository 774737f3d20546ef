// SPDX-License-Identifier: GPL-2.0
/*
 * bfctl redis: a filter kept in Redis, go-zero's way (a string used as a
 * bitmap), followed by kernels.
 *
 *   bfctl redis pull NAME KEY --server URL [--create] [--bits B]
 *         [--key-type T] [--chunk-size N] [-o IMG]
 *   bfctl redis push NAME KEY --server URL [--meta] [--image IMG]
 *   bfctl redis watch NAME KEY --server URL [--poll S] [--debounce S]
 *         [--empty-on-delete] [--enable-events] [--events-check S]
 *         [--no-relay] [-j]
 *   bfctl redis relay KEY --server URL [--maxlen N] [--lease-ms MS]
 *         [--sync S] [--poll S] [--debounce S] [--chunk-size N] [-j]
 *
 * Common: --password-file F (else $CREDENTIALS_DIRECTORY/redis-password,
 * $BFCTL_REDIS_PASSWORD, $REDISCLI_AUTH),
 * --timeout S, and for rediss:// --tls-ca F, --tls-cert F, --tls-key F,
 * --tls-server-name N (redis_tls.c).  The server may also come from $BFCTL_REDIS_SERVER.
 *
 * push writes like go-zero rebuilds (redis_push.c): the value into a
 * temporary key of the same hash slot, in chunks, then one MULTI/EXEC
 * renames it over KEY (and writes or drops the metadata key), so readers
 * see the old value or the new one.  A gozero filter is written as its raw Redis value
 * (what go-zero's Exists reads), any other kind as a whole kbloom image,
 * whose CRC pull checks.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "redis_delta.h"

/*
 * watch's poll while the server publishes no keyspace events: what an
 * admin who never read the manual gets, so a blocklist is at most 30 s
 * behind; a pull whose value is unchanged costs one read of it.
 */
#define POLL_OFF_S	30

static void redis_usage(FILE *f)
{
	fprintf(f,
		"usage:\n"
		"  bfctl redis pull NAME KEY --server URL [--create] [--bits M]\n"
		"        [--key-type T] [--chunk-size N] [--max-fpr P] [--force]\n"
		"  bfctl redis pull KEY -o IMG --server URL [--bits M] [--key-type T]\n"
		"        [--max-fpr P] [--force]\n"
		"  bfctl redis push NAME KEY --server URL [--meta]\n"
		"  bfctl redis push KEY --image IMG --server URL [--meta]\n"
		"  bfctl redis relay KEY --server URL [--maxlen N] [--lease-ms MS]\n"
		"        [--sync S] [--poll S] [--debounce S] [--chunk-size N] [-j]\n"
		"  bfctl redis watch NAME KEY --server URL [--create] [--bits M]\n"
		"        [--poll S] [--debounce S] [--empty-on-delete] [--max-fpr P]\n"
		"        [--force] [--enable-events] [--events-check S] [--no-relay]\n"
		"        [--resync-backoff S] [-j]\n"
		"  bfctl redis watch KEY -o IMG --server URL [--bits M] [...]\n"
		"common: [--password-file F] [--timeout S] [-q]\n"
		"pull, watch: [--read-from primary|replica]\n"
		"  rediss[-sentinel]://: [--tls-ca F] [--tls-cert F --tls-key F] [--tls-server-name N]\n"
		"URL: redis[s]://[user@]host[:port][/db], unix:///path[?db=N] or\n"
		"redis[s]-sentinel://[user@]host[:port],.../MASTER[?db=N]\n"
		"(or $BFCTL_REDIS_SERVER); the password from --password-file,\n"
		"$CREDENTIALS_DIRECTORY/redis-password (systemd), $BFCTL_REDIS_PASSWORD\n"
		"or $REDISCLI_AUTH, never the command line\n");
}

static int usage_err(const char *verb, const char *fmt, const char *arg)
{
	fprintf(stderr, "bfctl: redis %s: ", verb);
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	redis_usage(stderr);
	return BFCTL_USAGE;
}

enum {
	OPT_SERVER = 256, OPT_PWFILE, OPT_TIMEOUT, OPT_CHUNK, OPT_CREATE,
	OPT_BITS, OPT_KEYTYPE, OPT_META, OPT_IMAGE, OPT_POLL, OPT_DEBOUNCE,
	OPT_EMPTY, OPT_FORCE, OPT_MAX_FPR, OPT_ENABLE_EV, OPT_EV_CHECK,
	OPT_READ_FROM,
	OPT_TLS_CA, OPT_TLS_CERT, OPT_TLS_KEY, OPT_TLS_NAME,
	OPT_NO_RELAY, OPT_MAXLEN, OPT_LEASE_MS, OPT_SYNC, OPT_RESYNC,
};

static const struct option redis_opts[] = {
	{ "server", required_argument, NULL, OPT_SERVER },
	{ "password-file", required_argument, NULL, OPT_PWFILE },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "chunk-size", required_argument, NULL, OPT_CHUNK },
	{ "create", no_argument, NULL, OPT_CREATE },
	{ "bits", required_argument, NULL, OPT_BITS },
	{ "key-type", required_argument, NULL, OPT_KEYTYPE },
	{ "meta", no_argument, NULL, OPT_META },
	{ "image", required_argument, NULL, OPT_IMAGE },
	{ "poll", required_argument, NULL, OPT_POLL },
	{ "debounce", required_argument, NULL, OPT_DEBOUNCE },
	{ "empty-on-delete", no_argument, NULL, OPT_EMPTY },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "max-fpr", required_argument, NULL, OPT_MAX_FPR },
	{ "enable-events", no_argument, NULL, OPT_ENABLE_EV },
	{ "events-check", required_argument, NULL, OPT_EV_CHECK },
	{ "read-from", required_argument, NULL, OPT_READ_FROM },
	{ "tls-ca", required_argument, NULL, OPT_TLS_CA },
	{ "tls-cert", required_argument, NULL, OPT_TLS_CERT },
	{ "tls-key", required_argument, NULL, OPT_TLS_KEY },
	{ "tls-server-name", required_argument, NULL, OPT_TLS_NAME },
	{ "no-relay", no_argument, NULL, OPT_NO_RELAY },
	{ "resync-backoff", required_argument, NULL, OPT_RESYNC },
	{ "maxlen", required_argument, NULL, OPT_MAXLEN },
	{ "lease-ms", required_argument, NULL, OPT_LEASE_MS },
	{ "sync", required_argument, NULL, OPT_SYNC },
	{ "output", required_argument, NULL, 'o' },
	{ "json", no_argument, NULL, 'j' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct rargs {
	struct bfctl_redis_opts o;
	struct bfctl_redis_pull pl;
	struct bfctl_redis_watch_opts w;
	const char *image;
	bool meta;
	bool poll_given;
};

/* which verbs take an option (p pull, P push, w watch, r relay) */
static const char *opt_verbs(int c)
{
	switch (c) {
	case OPT_CREATE:
	case OPT_BITS:
	case OPT_KEYTYPE:
	case OPT_FORCE:
	case OPT_MAX_FPR:
	case OPT_READ_FROM:
		return "pw";
	case 'o':
		return "pw";
	case OPT_META:
	case OPT_IMAGE:
		return "P";
	case OPT_POLL:
	case OPT_DEBOUNCE:
	case 'j':
		return "wr";
	case OPT_EMPTY:
	case OPT_ENABLE_EV:
	case OPT_EV_CHECK:
	case OPT_NO_RELAY:
	case OPT_RESYNC:
		return "w";
	case OPT_MAXLEN:
	case OPT_LEASE_MS:
	case OPT_SYNC:
		return "r";
	default:
		return "pPwr";
	}
}

/*
 * getopt takes any unambiguous prefix of a long option, so "--password
 * secret" and "--pass secret" were --password-file secret, and its error
 * printed the password.  A secret-bearing option is taken only whole:
 * anything else that starts like it is refused, and neither it nor what
 * follows it is repeated.
 */
static int secret_opts(int argc, char **argv)
{
	const char *a, *name = "password-file";
	size_t n;
	int i;

	for (i = 1; i < argc; i++) {
		a = argv[i];
		if (!strcmp(a, "--"))
			break;
		if (a[0] != '-')
			continue;
		a += a[1] == '-' ? 2 : 1;
		n = strcspn(a, "=");
		if (n == strlen(name) && !strncmp(a, name, n))
			continue;
		if (n >= 2 && !strncmp(a, "pa", 2)) {
			fprintf(stderr, "bfctl: redis %s: option '%.*s%.*s' refused (what follows it is not repeated): the password never comes from the command line; give --password-file FILE in full, or $BFCTL_REDIS_PASSWORD\n",
				argv[0], (int)(a - argv[i]), argv[i], (int)n, a);
			return BFCTL_USAGE;
		}
	}
	return 0;
}

/*
 * getopt's '?': an unknown or ambiguous option, or one without its value.
 * Named up to any '=', which may be followed by a secret.
 */
static int bad_opt(const char *verb, char **argv)
{
	const char *a = argv[optind - 1];

	if (optopt > 0 && optopt < 128)
		fprintf(stderr, "bfctl: redis %s: unknown option '-%c' (or its value is missing)\n",
			verb, optopt);
	else
		fprintf(stderr, "bfctl: redis %s: unknown option '%.*s' (or ambiguous, or its value is missing)\n",
			verb, (int)strcspn(a, "="), a);
	redis_usage(stderr);
	return BFCTL_USAGE;
}

static int parse_secs(const char *s, double min, double *v)
{
	char *end;

	*v = strtod(s, &end);
	return end == s || *end || !(*v >= min) || *v > 86400 ? -EINVAL : 0;
}

static int parse_args(int argc, char **argv, struct rargs *a, char vc)
{
	const char *verb = argv[0];
	char name[32];
	double secs;
	int c, idx;
	u64 v;

	memset(a, 0, sizeof(*a));
	a->pl.key_type = -1;
	a->o.timeout_ms = 60000;
	a->o.chunk = BFCTL_REDIS_CHUNK;
	a->w.poll_s = 300;
	a->w.poll_off_s = -1;	/* 30 s, unless --poll is given */
	a->w.recheck_s = 5;
	a->w.debounce_s = 0.2;
	a->w.maxlen = 1000;
	a->w.lease_ms = 5000;
	a->w.sync_s = 60;
	a->w.resync_s = BFCTL_REDIS_SP_MIN;
	a->o.url = getenv("BFCTL_REDIS_SERVER");
	optind = 1;
	/* getopt's own messages would repeat an --opt=VALUE whole */
	opterr = 0;
	if (bfctl_json && vc != 'w' && vc != 'r')
		return usage_err(verb, "%s", "-j is not allowed here");
	c = secret_opts(argc, argv);
	if (c)
		return c;
	while ((idx = -1, c = getopt_long_only(argc, argv, "o:jqh", redis_opts,
					       &idx)) != -1) {
		if (c != '?' && c != 'h' && !strchr(opt_verbs(c), vc)) {
			snprintf(name, sizeof(name), "%s%s", idx >= 0 ? "--" : "-",
				 idx >= 0 ? redis_opts[idx].name : c == 'o' ? "o" : "j");
			return usage_err(verb, "option '%s' is not allowed here", name);
		}
		switch (c) {
		case OPT_SERVER:
			a->o.url = optarg;
			break;
		case OPT_PWFILE:
			a->o.password_file = optarg;
			break;
		case OPT_TLS_CA:
			a->o.tls_ca = optarg;
			break;
		case OPT_TLS_CERT:
			a->o.tls_cert = optarg;
			break;
		case OPT_TLS_KEY:
			a->o.tls_key = optarg;
			break;
		case OPT_TLS_NAME:
			if (!*optarg || strlen(optarg) > 253)
				return usage_err(verb, "bad --tls-server-name '%s'", optarg);
			a->o.tls_server_name = optarg;
			break;
		case OPT_TIMEOUT:
			if (parse_secs(optarg, 0.001, &secs))
				return usage_err(verb, "bad --timeout '%s' (seconds)", optarg);
			a->o.timeout_ms = (int)ceil(secs * 1000);
			break;
		case OPT_CHUNK:
			if (bfctl_parse_count(optarg, &v) || !v || v > (512u << 20))
				return usage_err(verb, "bad --chunk-size '%s' (1 byte to 512 MiB)", optarg);
			a->o.chunk = v;
			break;
		case OPT_CREATE:
			a->pl.create = true;
			break;
		case OPT_FORCE:
			a->pl.force = true;
			break;
		case OPT_MAX_FPR:
			if (bfctl_parse_max_fpr(optarg, &a->pl.max_fpr_ppb))
				return usage_err(verb, "bad --max-fpr '%s' (over 0 and at most 1: 0.01 or 1%%)", optarg);
			break;
		case OPT_BITS:
			if (bfctl_parse_count(optarg, &v) || !v ||
			    v > KB_GOZERO_BITS_MAX)
				return usage_err(verb, "bad --bits '%s' (a go-zero filter has 1 to 2^32 bits)", optarg);
			a->pl.bits = v;
			break;
		case OPT_KEYTYPE:
			a->pl.key_type = kb_key_type_from_name(optarg);
			if (a->pl.key_type < 0)
				return usage_err(verb, "unknown key type '%s'", optarg);
			break;
		case OPT_META:
			a->meta = true;
			break;
		case OPT_IMAGE:
			a->image = optarg;
			break;
		case OPT_POLL:
			if (parse_secs(optarg, 0, &a->w.poll_s))
				return usage_err(verb, "bad --poll '%s' (seconds, 0: never)", optarg);
			a->w.poll_off_s = a->w.poll_s;
			a->poll_given = true;
			break;
		case OPT_NO_RELAY:
			a->w.no_relay = true;
			break;
		case OPT_RESYNC:
			if (parse_secs(optarg, 0, &a->w.resync_s) ||
			    a->w.resync_s > BFCTL_REDIS_SP_MAX)
				return usage_err(verb, "bad --resync-backoff '%s' (seconds, up to 600; 0: none)",
						 optarg);
			break;
		case OPT_MAXLEN:
			if (bfctl_parse_count(optarg, &v) || !v || v > 100000000)
				return usage_err(verb, "bad --maxlen '%s' (1 to 10^8 entries)", optarg);
			a->w.maxlen = v;
			break;
		case OPT_LEASE_MS:
			if (bfctl_parse_count(optarg, &v) || v < 100 || v > 3600000)
				return usage_err(verb, "bad --lease-ms '%s' (100 to 3600000)", optarg);
			a->w.lease_ms = (u32)v;
			break;
		case OPT_SYNC:
			if (parse_secs(optarg, 0, &a->w.sync_s))
				return usage_err(verb, "bad --sync '%s' (seconds, 0: only when an epoch starts)", optarg);
			break;
		case OPT_EV_CHECK:
			if (parse_secs(optarg, 0, &a->w.recheck_s))
				return usage_err(verb, "bad --events-check '%s' (seconds, 0: only at a poll)", optarg);
			break;
		case OPT_ENABLE_EV:
			a->w.enable_events = true;
			break;
		case OPT_DEBOUNCE:
			if (parse_secs(optarg, 0, &a->w.debounce_s) ||
			    a->w.debounce_s > 60)
				return usage_err(verb, "bad --debounce '%s' (0 to 60 seconds)", optarg);
			break;
		case OPT_EMPTY:
			a->w.empty_on_delete = true;
			break;
		case OPT_READ_FROM:
			if (!strcmp(optarg, "primary"))
				a->o.read_from = BFCTL_REDIS_READ_PRIMARY;
			else if (!strcmp(optarg, "replica"))
				a->o.read_from = BFCTL_REDIS_READ_REPLICA;
			else
				return usage_err(verb, "bad --read-from '%s' (primary or replica)", optarg);
			break;
		case 'o':
			a->pl.out = optarg;
			break;
		case 'j':
			bfctl_json = true;
			break;
		case 'q':
			bfctl_quiet = true;
			break;
		case 'h':
			redis_usage(stdout);
			exit(BFCTL_OK);
		default:
			return bad_opt(verb, argv);
		}
	}
	if (a->w.poll_off_s < 0)
		a->w.poll_off_s = POLL_OFF_S;
	return BFCTL_OK;
}

/*
 * The --tls-* options go with rediss:// only, a certificate with its key.
 * Without them a systemd credential (LoadCredential=redis-tls-cert:...,
 * redis-tls-key:...) is the client certificate: the watcher's dynamic
 * user cannot read a key root owns, and this way needs no path in the
 * unit's configuration.
 */
static int tls_args(struct bfctl_redis_opts *o, char *err, size_t len)
{
	static char cert[4096], key[4096];
	const char *cred = getenv("CREDENTIALS_DIRECTORY");

	if (!o->tls) {
		if (o->tls_ca || o->tls_cert || o->tls_key || o->tls_server_name) {
			snprintf(err, len, "the --tls-* options need a rediss:// or rediss-sentinel:// server%s",
				 o->sentinel ? " (redis-sentinel:// reaches the sentinels in plaintext: a data node's name for TLS must not come from one)" : "");
			return -EINVAL;
		}
		return 0;
	}
	if (!o->tls_cert && !o->tls_key && cred && *cred &&
	    (size_t)snprintf(cert, sizeof(cert), "%s/redis-tls-cert", cred) < sizeof(cert) &&
	    (size_t)snprintf(key, sizeof(key), "%s/redis-tls-key", cred) < sizeof(key) &&
	    !access(cert, F_OK) && !access(key, F_OK)) {
		o->tls_cert = cert;
		o->tls_key = key;
	}
	if (!o->tls_cert != !o->tls_key) {
		snprintf(err, len, "--tls-cert and --tls-key go together (a client certificate and its key)");
		return -EINVAL;
	}
	return 0;
}

/* positional NAME KEY (or KEY alone with -o / --image), server, password */
static int finish_args(int argc, char **argv, struct rargs *a, bool alone)
{
	const char *verb = argv[0];
	char err[320];
	int npos = argc - optind;

	if (alone) {
		if (npos != 1)
			return usage_err(verb, "%s", strcmp(verb, "relay") ?
					 "give KEY alone with -o IMG or --image IMG" :
					 "give KEY");
		a->pl.key = argv[optind];
	} else {
		if (npos != 2)
			return usage_err(verb, "%s", "give NAME and KEY");
		a->pl.name = argv[optind];
		a->pl.key = argv[optind + 1];
		if (kbdev_set_name(err, a->pl.name))
			return usage_err(verb, "bad filter name '%s'", a->pl.name);
	}
	/* the keyspace channel and the sibling keys must hold it whole */
	if (!*a->pl.key || strlen(a->pl.key) > BFCTL_REDIS_KEY_MAX)
		return usage_err(verb, "%s", "KEY must have 1 to 1024 bytes");
	if (!a->o.url)
		return usage_err(verb, "%s", "--server URL is needed");
	if (bfctl_redis_parse_url(&a->o, a->o.url, err, sizeof(err)))
		return usage_err(verb, "%s", err);
	if (tls_args(&a->o, err, sizeof(err)))
		return usage_err(verb, "%s", err);
	if (a->pl.create && a->pl.out)
		return usage_err(verb, "%s", "--create is for a kernel filter, not -o");
	if (bfctl_redis_load_password(&a->o, err, sizeof(err)))
		return bfctl_fail(BFCTL_ERR, "redis", "%s", err);
	return BFCTL_OK;
}

static int do_pull(int argc, char **argv)
{
	struct bfctl_redis r, sub = { 0 };
	struct bfctl_redis_topo t;
	struct kbconn kc;
	struct rargs a;
	bool fenced;
	int ret;

	ret = parse_args(argc, argv, &a, 'p');
	if (!ret)
		ret = finish_args(argc, argv, &a, a.pl.out);
	if (ret)
		return ret;
	kbconn_init(&kc);
	/*
	 * SIGTERM and SIGINT end a pull waiting on Redis (nothing loaded),
	 * and --timeout bounds it whole, from the connect on
	 */
	bfctl_redis_signals();
	bfctl_redis_deadline(&a.o);
	/* Sentinel, --read-from and Cluster: redis_topo.c */
	bfctl_redis_topo_init(&t, &a.o, a.pl.key);
	if (bfctl_redis_topo_connect(&t, &r)) {
		ret = bfctl_fail(BFCTL_ERR, "redis pull", "%s; nothing changed", r.err);
		goto out;
	}
	if (t.note[0] && !bfctl_quiet)
		fprintf(stderr, "bfctl: redis pull: %s%s\n",
			t.failover ? "failover: " : "", t.note);
	/* events on: subscribe before the read (else WATCH fences it) */
	fenced = bfctl_redis_notify_on(&r);
	if (bfctl_redis_topo_single(&t, &r, fenced)) {
		ret = bfctl_fail(BFCTL_ERR, "redis pull", "%s; nothing changed", r.err);
		goto out;
	}
	if (fenced && (bfctl_redis_connect(&sub, r.o) ||
		       bfctl_redis_subscribe(&sub, a.pl.key))) {
		ret = bfctl_fail(BFCTL_ERR, "redis pull", "%s; nothing changed", sub.err);
		goto out;
	}
	ret = bfctl_redis_topo_pull(&t, &r, fenced ? &sub : NULL, &kc, &a.pl);
	if (ret == BFCTL_ABSENT) {
		ret = bfctl_fail(BFCTL_ABSENT, "redis pull", "%s: no such key; nothing changed",
				 a.pl.key);
	} else if (ret) {
		ret = bfctl_fail(ret, "redis pull", "%s%s; nothing changed",
				 a.pl.refused ? "refused: " : "", a.pl.why);
	} else if (!bfctl_quiet) {
		printf("%s: %llu bytes of %s (%s filter, m=%llu), %u re-reads\n",
		       a.pl.out ? a.pl.out : a.pl.name,
		       (unsigned long long)a.pl.value_len, a.pl.key,
		       kb_kind_name(a.pl.p.kind), (unsigned long long)a.pl.p.m,
		       a.pl.retries);
	}
out:
	bfctl_redis_close(&sub);
	bfctl_redis_close(&r);
	kbconn_close(&kc);
	return ret;
}

/* the image to push: --image, or the kernel filter's export */
static int push_source(struct rargs *a, u8 **img, u64 *len)
{
	struct kbconn kc;
	size_t l;
	int ret;

	if (a->image) {
		ret = kbu_read_file(a->image, img, &l);
		*len = l;
		if (ret)
			return bfctl_fail(BFCTL_ERR, a->image, "%s", strerror(-ret));
		return BFCTL_OK;
	}
	kbconn_init(&kc);
	ret = kbconn_dev(&kc);
	if (ret >= 0)
		ret = kbdev_export(kc.dev, 0, a->pl.name, img, len);
	if (ret)
		ret = bfctl_fail_err(&kc, "redis push", ret);
	kbconn_close(&kc);
	return ret;
}

static int do_push(int argc, char **argv)
{
	struct bfctl_redis r = { 0 };
	struct bfctl_redis_topo t;
	const void *payload;
	struct kb_params p;
	enum kb_img_err why;
	struct rargs a;
	char meta[160];
	u64 len, plen;
	u8 *img = NULL;
	int ret;

	ret = parse_args(argc, argv, &a, 'P');
	if (!ret)
		ret = finish_args(argc, argv, &a, a.image);
	if (ret)
		return ret;
	ret = push_source(&a, &img, &len);
	if (ret)
		return ret;
	if (kb_image_parse(img, len, 0, &p, &payload, &plen, NULL, &why)) {
		free(img);
		return bfctl_fail(BFCTL_ERR, "redis push", "%s: malformed image: %s",
				  a.image ? a.image : a.pl.name,
				  kb_image_strerror(why));
	}
	if (p.kind == KB_KIND_GOZERO) {
		/* go-zero's value ends at the last byte a SETBIT reached */
		while (plen && !((const u8 *)payload)[plen - 1])
			plen--;
		snprintf(meta, sizeof(meta), BFCTL_REDIS_META " format=gozero scheme=%s bits=%llu",
			 BFCTL_REDIS_SCHEME, (unsigned long long)p.m);
	} else {
		payload = img;
		plen = len;
		snprintf(meta, sizeof(meta), BFCTL_REDIS_META " format=image kind=%s",
			 kb_kind_name(p.kind));
	}
	/* the primary (Sentinel's), or the Cluster node of KEY's slot */
	bfctl_redis_topo_init(&t, &a.o, a.pl.key);
	if (bfctl_redis_topo_connect(&t, &r))
		ret = bfctl_fail(BFCTL_ERR, "redis push", "%s", r.err);
	else
		ret = bfctl_redis_push(&t, &r, a.pl.key, payload, plen,
				       a.meta ? meta : NULL);
	if (!ret && !bfctl_quiet)
		printf("%s: %llu bytes (%s)\n", a.pl.key, (unsigned long long)plen,
		       p.kind == KB_KIND_GOZERO ? "go-zero bitmap" : "kbloom image");
	bfctl_redis_close(&r);
	free(img);
	return ret;
}

static int do_watch(int argc, char **argv)
{
	struct rargs a;
	int ret;

	ret = parse_args(argc, argv, &a, 'w');
	if (!ret)
		ret = finish_args(argc, argv, &a, a.pl.out);
	if (ret)
		return ret;
	return bfctl_redis_watch(&a.o, &a.pl, &a.w);
}

/*
 * The relay's poll: 1 s without keyspace events (it is the only way it
 * sees a change, and a fleet waits on it), 30 s with them (a lost event)
 */
static int do_relay(int argc, char **argv)
{
	struct rargs a;
	int ret;

	ret = parse_args(argc, argv, &a, 'r');
	if (!ret)
		ret = finish_args(argc, argv, &a, true);
	if (ret)
		return ret;
	if (!a.poll_given) {
		a.w.poll_s = 30;
		a.w.poll_off_s = 1;
	}
	return bfctl_redis_relay(&a.o, &a.pl, &a.w);
}

int bfctl_redis_main(int argc, char **argv)
{
	if (argc < 2) {
		redis_usage(stderr);
		return BFCTL_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		redis_usage(stdout);
		return BFCTL_OK;
	}
	if (!strcmp(argv[1], "pull"))
		return do_pull(argc - 1, argv + 1);
	if (!strcmp(argv[1], "push"))
		return do_push(argc - 1, argv + 1);
	if (!strcmp(argv[1], "watch"))
		return do_watch(argc - 1, argv + 1);
	if (!strcmp(argv[1], "relay"))
		return do_relay(argc - 1, argv + 1);
	fprintf(stderr, "bfctl: redis: unknown verb '%s'\n", argv[1]);
	redis_usage(stderr);
	return BFCTL_USAGE;
}
