// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF side of make bench-bpf (selftests/bench/bpf.sh runs it in the VM):
 *
 *   kb_bench_bpf measure --ips FILE --absent FILE --name NAME --fpr P
 *                        [--reps N] [--repeat N] [--check N]
 *                        [--load-into NAME2] --json OUT
 *	BPF_MAP_TYPE_BLOOM_FILTER on the addresses of --ips (one per line):
 *	load time (map create + one BPF_MAP_UPDATE_ELEM per key: the map has
 *	no batch op; the same parsed keys into the empty kbloom filter NAME2
 *	through /dev/kbloom, one KB_IOC_ADD: both from memory), memory
 *	(fdinfo memlock), measured FPR over --absent
 *	(BPF_MAP_LOOKUP_ELEM answers 0 or -ENOENT); then the per-packet cost
 *	of four XDP programs of one shape (kb_bench_xdp.h): no lookup, the
 *	bloom map, and kbloom filter NAME by name (bpf_kbloom_xdp_test_addr())
 *	and by id (bpf_kbloom_xdp_test_addr_id(), the name resolved once),
 *	by BPF_PROG_TEST_RUN with repeat over packets whose sources are
 *	present and absent; and kbloom's measured FPR, each --absent address
 *	a packet through the kbloom program (one test run each; the count
 *	over the first --check addresses too, for the caller to compare with
 *	bfctl test).  The caller has loaded NAME with the same addresses.
 *   kb_bench_bpf attach DEV NAME [generic] / detach DEV [generic]
 *	the kbloom program as an XDP blocklist on DEV, native or generic
 *	(the flood part, where bfctl has no xdp verb).
 *
 * The map is sized as its documentation says: max_entries the number of
 * entries, map_extra the number of hash functions, here the one optimal
 * for the target rate, ceil(log2(1 / P)).  The kernel then rounds the bit
 * array up to a power of two of about max_entries * k / ln 2 bits.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/ioctl.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/kbloom.h>

#include "kb_bench_bloom.skel.h"
#include "kb_bench_kbloom.skel.h"

#define NSRC 32			/* packets of each kind: present, absent */
#define NPROG 4

struct bb_addrs {
	__u32 *a;		/* network byte order */
	size_t n;
};

struct bb_opts {
	const char *ips, *absent, *name, *json, *load_into;
	double fpr;
	int reps, repeat, check;
};

static double bb_now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int bb_read(const char *path, struct bb_addrs *out)
{
	size_t cap = 1 << 16;
	char line[64];
	FILE *f;

	f = fopen(path, "r");
	if (!f) {
		perror(path);
		return -1;
	}
	out->n = 0;
	out->a = malloc(cap * sizeof(*out->a));
	while (out->a && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (out->n == cap) {
			cap *= 2;
			out->a = realloc(out->a, cap * sizeof(*out->a));
			if (!out->a)
				break;
		}
		if (inet_pton(AF_INET, line, &out->a[out->n]) != 1) {
			fprintf(stderr, "%s: bad address '%s'\n", path, line);
			fclose(f);
			return -1;
		}
		out->n++;
	}
	fclose(f);
	if (!out->a || !out->n) {
		fprintf(stderr, "%s: no addresses\n", path);
		return -1;
	}
	return 0;
}

/*
 * kbloom's bulk path on the map's terms: the same parsed keys, from
 * memory, into the empty filter name (the caller created it: a netlink
 * call, as cheap as the map's create).  One KB_IOC_ADD of all of them; the
 * kernel walks it in chunks and yields between them.
 */
static int bb_load_kbloom_keys(const char *name, const struct bb_addrs *ips,
			       double *ms)
{
	struct kb_ioc_keys a = {
		.size = sizeof(a),
		.key_size = sizeof(*ips->a),
		.keys = (__u64)(unsigned long)ips->a,
		.keys_len = ips->n * sizeof(*ips->a),
		.count = ips->n,
	};
	double t0;
	int fd, ret;

	if (strlen(name) >= sizeof(a.name)) {
		fprintf(stderr, "--load-into: name too long\n");
		return -1;
	}
	strcpy(a.name, name);
	fd = open("/dev/kbloom", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		perror("/dev/kbloom");
		return -1;
	}
	t0 = bb_now_ms();
	ret = ioctl(fd, KB_IOC_ADD, &a);
	*ms = bb_now_ms() - t0;
	if (ret)
		perror("KB_IOC_ADD");
	else if (a.processed != ips->n)
		fprintf(stderr, "KB_IOC_ADD: %llu of %zu keys\n",
			(unsigned long long)a.processed, ips->n);
	close(fd);
	return ret || a.processed != ips->n ? -1 : 0;
}

/* The map's charge as the kernel reports it (bpftool map show's memlock). */
static long long bb_memlock(int fd)
{
	char path[64], line[128];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "memlock: %lld", &v) == 1)
			break;
	fclose(f);
	return v;
}

/* An Ethernet + IPv4 + UDP packet from src to 10.99.0.1, port 9. */
static void bb_packet(unsigned char *pkt, size_t len, __u32 src)
{
	struct ethhdr *eth = (void *)pkt;
	struct iphdr *iph = (void *)(eth + 1);
	struct udphdr *udp = (void *)(iph + 1);

	memset(pkt, 0, len);
	memset(eth->h_dest, 0x02, ETH_ALEN);
	memset(eth->h_source, 0x04, ETH_ALEN);
	eth->h_proto = htons(ETH_P_IP);
	iph->version = 4;
	iph->ihl = 5;
	iph->ttl = 64;
	iph->protocol = IPPROTO_UDP;
	iph->tot_len = htons(len - sizeof(*eth));
	iph->saddr = src;
	iph->daddr = htonl(0x0a630001);
	udp->source = htons(4096);
	udp->dest = htons(9);
	udp->len = htons(len - sizeof(*eth) - sizeof(*iph));
}

/* One test run of prog over pkt: the verdict, and *ns the mean per run. */
static int bb_run(int prog, unsigned char *pkt, size_t len, int repeat, double *ns)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = pkt, .data_size_in = len,
		    .repeat = repeat);
	int err = bpf_prog_test_run_opts(prog, &o);

	if (err) {
		fprintf(stderr, "BPF_PROG_TEST_RUN: %s\n", strerror(-err));
		return -1;
	}
	if (ns)
		*ns = o.duration;
	return o.retval;
}

static int bb_load_kbloom(const char *name, struct kb_bench_kbloom **out)
{
	struct kb_bench_kbloom *sk = kb_bench_kbloom__open();
	int err;

	if (!sk || strlen(name) >= sizeof(sk->data->kb_bench_name)) {
		fprintf(stderr, "kbloom program: cannot open (or name too long)\n");
		kb_bench_kbloom__destroy(sk);
		return -1;
	}
	strcpy(sk->data->kb_bench_name, name);
	err = kb_bench_kbloom__load(sk);
	if (err) {
		fprintf(stderr, "kbloom program does not load (%s): no kfuncs?\n",
			strerror(-err));
		kb_bench_kbloom__destroy(sk);
		return -1;
	}
	*out = sk;
	return 0;
}

static int bb_measure(struct bb_opts *o)
{
	static const char * const prog_name[NPROG] = {
		"base", "bloom", "kbloom", "kbloom_id"
	};
	unsigned char pkt[NSRC * 2][14 + 20 + 8 + 16];
	double best[NPROG], load_ms, kb_load_ms = -1, t0;
	char kb_load_json[32] = "null";
	struct kb_bench_kbloom *kb = NULL;
	struct kb_bench_bloom *bl;
	struct bb_addrs ips, absent;
	int prog[NPROG], fd, k, err, r, i, p, npkt = 0, nabs = 0;
	long long memlock, fp = 0, kb_fp = -1, kb_fp_check = -1;
	unsigned long long bits;
	FILE *js;

	if (bb_read(o->ips, &ips) || bb_read(o->absent, &absent))
		return 1;
	k = (int)ceil(log2(1 / o->fpr));
	k = k < 1 ? 1 : k > 15 ? 15 : k;
	/* the kernel's rounding (kernel/bpf/bloom_filter.c), for the record */
	bits = ips.n * k * 7ULL / 5;
	bits = bits <= 1 ? 1 : 1ULL << (64 - __builtin_clzll(bits - 1));

	t0 = bb_now_ms();
	{
		LIBBPF_OPTS(bpf_map_create_opts, mo, .map_extra = k);

		fd = bpf_map_create(BPF_MAP_TYPE_BLOOM_FILTER, "kb_bench_bloom", 0,
				    sizeof(__u32), ips.n, &mo);
	}
	if (fd < 0) {
		fprintf(stderr, "bloom map create: %s\n", strerror(-fd));
		return 1;
	}
	for (i = 0; i < (int)ips.n; i++) {
		err = bpf_map_update_elem(fd, NULL, &ips.a[i], BPF_ANY);
		if (err) {
			fprintf(stderr, "bloom map update: %s\n", strerror(-err));
			return 1;
		}
	}
	load_ms = bb_now_ms() - t0;
	if (o->load_into && bb_load_kbloom_keys(o->load_into, &ips, &kb_load_ms))
		return 1;
	memlock = bb_memlock(fd);
	/* no false negatives, then the false positives of absent addresses */
	for (i = 0; i < (int)ips.n; i += 97)
		if (bpf_map_lookup_elem(fd, NULL, &ips.a[i])) {
			fprintf(stderr, "bloom map: listed address not found\n");
			return 1;
		}
	t0 = bb_now_ms();
	for (i = 0; i < (int)absent.n; i++) {
		err = bpf_map_lookup_elem(fd, NULL, &absent.a[i]);
		if (!err)
			fp++;
		else if (errno != ENOENT) {
			perror("bloom map lookup");
			return 1;
		}
	}
	printf("bloom map: k=%d, %llu bits, memlock %lld, load %.0f ms, FPR %.5f (%.0f ms)\n",
	       k, bits, memlock, load_ms, (double)fp / absent.n, bb_now_ms() - t0);

	bl = kb_bench_bloom__open();
	if (!bl || bpf_map__reuse_fd(bl->maps.kb_bench_bloom, fd) ||
	    kb_bench_bloom__load(bl)) {
		fprintf(stderr, "bloom programs do not load\n");
		return 1;
	}
	prog[0] = bpf_program__fd(bl->progs.xdp_base);
	prog[1] = bpf_program__fd(bl->progs.xdp_bloom);
	prog[2] = -1;
	prog[3] = -1;
	if (!bb_load_kbloom(o->name, &kb)) {
		prog[2] = bpf_program__fd(kb->progs.xdp_kbloom);
		prog[3] = bpf_program__fd(kb->progs.xdp_kbloom_id);
	}

	if (prog[2] >= 0) {
		kb_fp = 0;
		t0 = bb_now_ms();
		for (i = 0; i < (int)absent.n; i++) {
			bb_packet(pkt[0], sizeof(pkt[0]), absent.a[i]);
			r = bb_run(prog[2], pkt[0], sizeof(pkt[0]), 1, NULL);
			if (r < 0)
				return 1;
			kb_fp += r == XDP_DROP;
			if (i + 1 == o->check)
				kb_fp_check = kb_fp;
		}
		printf("kbloom (kfunc): FPR %.5f (%.0f ms)\n",
		       (double)kb_fp / absent.n, bb_now_ms() - t0);
	}

	/*
	 * Sources: NSRC listed ones, which both must drop, and NSRC absent
	 * ones that neither reports (false positives skipped), which both
	 * pass: the two programs then do the same work on every packet.
	 */
	for (i = 0; i < NSRC; i++) {
		bb_packet(pkt[npkt], sizeof(pkt[0]), ips.a[i * (ips.n / NSRC)]);
		for (p = 1; p < NPROG; p++)
			if (prog[p] >= 0 &&
			    bb_run(prog[p], pkt[npkt], sizeof(pkt[0]), 1, NULL) != XDP_DROP) {
				fprintf(stderr, "%s: listed source passed\n", prog_name[p]);
				return 1;
			}
		npkt++;
	}
	for (i = 0; i < (int)absent.n && nabs < NSRC; i++) {
		bb_packet(pkt[npkt], sizeof(pkt[0]), absent.a[i]);
		for (p = 1; p < NPROG; p++)
			if (prog[p] >= 0 &&
			    bb_run(prog[p], pkt[npkt], sizeof(pkt[0]), 1, NULL) != XDP_PASS)
				break;
		if (p == NPROG) {
			npkt++;
			nabs++;
		}
	}
	for (p = 0; p < NPROG; p++)
		best[p] = -1;
	/*
	 * The programs alternate within each repetition and each keeps its
	 * fastest: other load on the host only ever adds time.
	 */
	for (r = 0; r < o->reps; r++) {
		for (p = 0; p < NPROG; p++) {
			int q = (p + r) % NPROG;
			double sum = 0, ns;

			if (prog[q] < 0)
				continue;
			for (i = 0; i < npkt; i++) {
				if (bb_run(prog[q], pkt[i], sizeof(pkt[0]), o->repeat, &ns) < 0)
					return 1;
				sum += ns;
			}
			sum /= npkt;
			if (best[q] < 0 || sum < best[q])
				best[q] = sum;
		}
	}
	printf("XDP ns per packet: base %.1f, bloom map %.1f, kbloom by name %.1f, by id %.1f\n",
	       best[0], best[1], best[2], best[3]);

	if (kb_load_ms >= 0)
		snprintf(kb_load_json, sizeof(kb_load_json), "%.1f", kb_load_ms);
	js = fopen(o->json, "w");
	if (!js) {
		perror(o->json);
		return 1;
	}
	fprintf(js, "{\"n\": %zu, \"n_absent\": %zu, \"target_fpr\": %g,\n"
		" \"bpf_bloom_nr_hash_funcs\": %d, \"bpf_bloom_bits\": %llu,\n"
		" \"bpf_bloom_load_ms\": %.1f, \"bpf_bloom_memlock_bytes\": %lld,\n"
		" \"bpf_bloom_false_positives\": %lld,\n"
		" \"kbloom_ioctl_load_ms\": %s,\n"
		" \"xdp_pkts\": %d, \"xdp_pkts_absent\": %d, \"xdp_reps\": %d, \"xdp_repeat\": %d,\n"
		" \"xdp_base_ns\": %.2f, \"xdp_bloom_ns\": %.2f, ",
		ips.n, absent.n, o->fpr, k, bits, load_ms, memlock, fp, kb_load_json,
		npkt, nabs, o->reps, o->repeat, best[0], best[1]);
	if (best[2] >= 0 && best[3] >= 0)
		fprintf(js, "\"xdp_kbloom_name_ns\": %.2f, \"xdp_kbloom_ns\": %.2f,\n"
			" \"kbloom_false_positives\": %lld,\n"
			" \"kbloom_check_n\": %d, \"kbloom_check_false_positives\": %lld}\n",
			best[2], best[3], kb_fp, o->check, kb_fp_check);
	else
		fprintf(js, "\"xdp_kbloom_ns\": null, \"xdp_kbloom_error\": \"the kbloom program does not load\"}\n");
	fclose(js);
	kb_bench_kbloom__destroy(kb);
	kb_bench_bloom__destroy(bl);
	return 0;
}

static int bb_xdp(int argc, char **argv)
{
	struct kb_bench_kbloom *kb;
	unsigned int ifindex;
	__u32 mode;
	int err;

	ifindex = argc > 2 ? if_nametoindex(argv[2]) : 0;
	if (!ifindex) {
		fprintf(stderr, "kb_bench_bpf: no device %s\n", argc > 2 ? argv[2] : "");
		return 2;
	}
	mode = !strcmp(argv[argc - 1], "generic") ? XDP_FLAGS_SKB_MODE :
						    XDP_FLAGS_DRV_MODE;
	if (!strcmp(argv[1], "detach"))
		return bpf_xdp_detach(ifindex, mode, NULL) ? 1 : 0;
	if (argc < 4 || bb_load_kbloom(argv[3], &kb))
		return 1;
	/* a netlink attachment: it outlives this process, until detach */
	err = bpf_xdp_attach(ifindex, bpf_program__fd(kb->progs.xdp_kbloom),
			     mode, NULL);
	if (err)
		fprintf(stderr, "XDP attach: %s\n", strerror(-err));
	kb_bench_kbloom__destroy(kb);
	return err ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct bb_opts o = { .fpr = 0.01, .reps = 5, .repeat = 1000 };
	int i;

	if (argc > 1 && (!strcmp(argv[1], "attach") || !strcmp(argv[1], "detach")))
		return bb_xdp(argc, argv);
	if (argc < 2 || strcmp(argv[1], "measure"))
		goto usage;
	for (i = 2; i + 1 < argc; i += 2) {
		const char *a = argv[i], *v = argv[i + 1];

		if (!strcmp(a, "--ips"))
			o.ips = v;
		else if (!strcmp(a, "--absent"))
			o.absent = v;
		else if (!strcmp(a, "--name"))
			o.name = v;
		else if (!strcmp(a, "--json"))
			o.json = v;
		else if (!strcmp(a, "--fpr"))
			o.fpr = atof(v);
		else if (!strcmp(a, "--reps"))
			o.reps = atoi(v);
		else if (!strcmp(a, "--repeat"))
			o.repeat = atoi(v);
		else if (!strcmp(a, "--check"))
			o.check = atoi(v);
		else if (!strcmp(a, "--load-into"))
			o.load_into = v;
		else
			goto usage;
	}
	if (i != argc || !o.ips || !o.absent || !o.name || !o.json ||
	    !(o.fpr > 0 && o.fpr < 1) || o.reps < 1 || o.repeat < 1 || o.check < 0)
		goto usage;
	return bb_measure(&o);
usage:
	fprintf(stderr, "usage: kb_bench_bpf measure --ips FILE --absent FILE --name NAME --fpr P [--reps N] [--repeat N] [--check N] [--load-into NAME2] --json OUT\n"
		"       kb_bench_bpf attach DEV NAME [generic] | detach DEV [generic]\n");
	return 2;
}
