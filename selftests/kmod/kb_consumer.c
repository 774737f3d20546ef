// SPDX-License-Identifier: GPL-2.0
/*
 * kb_consumer: a test-only user of the kbloom consumer API (kmod/kbloom.h).
 *
 * Driven through /sys/module/kb_consumer/parameters/cmd (write) and
 * .../result (read), in the writer's network namespace:
 *   get NAME          take a reference (write fails with the errno)
 *   put               drop it
 *   test HEX          kbloom_test() of the bytes -> result "1" or "0"
 *   addr4 A.B.C.D     kbloom_test_addr(AF_INET)  -> result "1" or "0"
 *   addr6 ADDR        kbloom_test_addr(AF_INET6) -> result "1" or "0"
 *   keytype           kbloom_key_type()          -> result
 *   id NAME           kbloom_id_rcu()            -> result the id (0: none)
 *   name ID           kbloom_name_rcu()          -> result the name
 *   chase PFX N       while PFX0 is renamed PFX1, PFX2 ... PFXN by
 *                     another task: lockless lookups of the names from
 *                     the last found on, in order, until PFXN is found
 *                     -> result "MISSES WRONG SEEN ROUNDS": rounds that
 *                     found no name, names found with another id, names
 *                     found once at least, rounds
 *   bench N           N lookups of distinct IPv6 addresses through
 *                     kbloom_test_addr_rcu(), as xt_bloom makes them
 *                     -> result "picoseconds per lookup"
 *                     (make bench-kmod; absolute numbers mean nothing)
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include <linux/kernel.h>
#include <linux/inet.h>
#include <linux/socket.h>
#include <linux/nsproxy.h>
#include <linux/ktime.h>
#include <linux/rcupdate.h>
#include <linux/jiffies.h>
#include <linux/sched.h>
#include <net/net_namespace.h>

#include "../../kmod/kbloom.h"

static DEFINE_MUTEX(kbc_lock);
static struct kbloom_ref *kbc_ref;
static char kbc_result[64] = "none";

static int kbc_test_hex(const char *hex)
{
	u8 key[128];
	size_t n = strlen(hex);

	if (!n || n % 2 || n / 2 > sizeof(key) || hex2bin(key, hex, n / 2))
		return -EINVAL;
	return kbloom_test(kbc_ref, key, n / 2);
}

/*
 * Lookups in rounds of 4096 under one rcu_read_lock(), yielding between
 * rounds; the addresses are a counter spread by a multiplication, so that
 * no two hash alike.
 */
static int kbc_bench(const char *arg, u64 *ps)
{
	u64 n, i, t;
	__be64 addr[2];

	if (kstrtou64(arg, 0, &n) || !n || n > (1ULL << 32))
		return -EINVAL;
	t = ktime_get_ns();
	for (i = 0; i < n;) {
		u64 end = min(n, i + 4096);

		rcu_read_lock();
		for (; i < end; i++) {
			addr[0] = cpu_to_be64(0x20010db800000000ULL);
			addr[1] = cpu_to_be64(i * 0x9e3779b97f4a7c15ULL);
			kbloom_test_addr_rcu(kbc_ref, AF_INET6, addr);
		}
		rcu_read_unlock();
		cond_resched();
	}
	t = ktime_get_ns() - t;
	*ps = div64_u64(t * 1000, n);
	return 0;
}

static u64 kbc_id(struct net *net, const char *pfx, u32 k)
{
	char name[32];
	u64 id;

	snprintf(name, sizeof(name), "%s%u", pfx, k);
	rcu_read_lock();
	id = kbloom_id_rcu(net, name);
	rcu_read_unlock();
	return id;
}

/* at most a minute: the renaming task may have failed */
static int kbc_chase(struct net *net, char *line)
{
	char *pfx = strsep(&line, " ");
	u64 id, want, misses = 0, wrong = 0, seen = 1, rounds = 0;
	unsigned long until = jiffies + 60 * HZ;
	u32 n, j = 0, k;

	if (!line || kstrtou32(line, 0, &n) || !n || n > 100000 ||
	    strlen(pfx) > 20)
		return -EINVAL;
	want = kbc_id(net, pfx, 0);
	if (!want)
		return -ENOENT;
	while (j < n) {
		if (time_after(jiffies, until))
			return -ETIMEDOUT;
		rounds++;
		for (k = j; k <= n; k++) {
			id = kbc_id(net, pfx, k);
			if (id)
				break;
		}
		if (k > n) {
			misses++;
		} else {
			wrong += id != want;
			seen += k != j;
			j = k;
		}
		cond_resched();
	}
	snprintf(kbc_result, sizeof(kbc_result), "%llu %llu %llu %llu",
		 misses, wrong, seen, rounds);
	return 0;
}

static int kbc_do(char *line)
{
	char *cmd = strsep(&line, " ");
	struct net *net = current->nsproxy->net_ns;
	u8 addr[16];
	int r;

	if (!strcmp(cmd, "get")) {
		struct kbloom_ref *ref;

		if (kbc_ref || !line)
			return -EBUSY;
		ref = kbloom_get(net, line);
		if (IS_ERR(ref))
			return PTR_ERR(ref);
		kbc_ref = ref;
		return 0;
	}
	if (!strcmp(cmd, "id") && line) {
		u64 id;

		rcu_read_lock();
		id = kbloom_id_rcu(net, line);
		rcu_read_unlock();
		snprintf(kbc_result, sizeof(kbc_result), "%llu", id);
		return 0;
	}
	if (!strcmp(cmd, "name") && line) {
		char name[32];
		u64 id;

		if (kstrtou64(line, 0, &id))
			return -EINVAL;
		rcu_read_lock();
		r = kbloom_name_rcu(net, id, name);
		rcu_read_unlock();
		if (r)
			return r;
		strscpy(kbc_result, name, sizeof(kbc_result));
		return 0;
	}
	if (!strcmp(cmd, "chase") && line)
		return kbc_chase(net, line);
	if (!kbc_ref)
		return -ENOENT;
	if (!strcmp(cmd, "put")) {
		kbloom_put(kbc_ref);
		kbc_ref = NULL;
		return 0;
	}
	if (!strcmp(cmd, "keytype")) {
		r = kbloom_key_type(kbc_ref);
	} else if (!strcmp(cmd, "test") && line) {
		r = kbc_test_hex(line);
	} else if (!strcmp(cmd, "bench") && line) {
		u64 ps;

		r = kbc_bench(line, &ps);
		if (r)
			return r;
		snprintf(kbc_result, sizeof(kbc_result), "%llu", ps);
		return 0;
	} else if (!strcmp(cmd, "addr4") && line) {
		if (!in4_pton(line, -1, addr, -1, NULL))
			return -EINVAL;
		r = kbloom_test_addr(kbc_ref, AF_INET, addr);
	} else if (!strcmp(cmd, "addr6") && line) {
		if (!in6_pton(line, -1, addr, -1, NULL))
			return -EINVAL;
		r = kbloom_test_addr(kbc_ref, AF_INET6, addr);
	} else {
		return -EINVAL;
	}
	if (r < 0)
		return r;
	snprintf(kbc_result, sizeof(kbc_result), "%d", r);
	return 0;
}

static int kbc_cmd_set(const char *val, const struct kernel_param *kp)
{
	char buf[128];
	int ret;

	strscpy(buf, val, sizeof(buf));
	strim(buf);
	mutex_lock(&kbc_lock);
	ret = kbc_do(buf);
	mutex_unlock(&kbc_lock);
	return ret;
}

static int kbc_result_get(char *buf, const struct kernel_param *kp)
{
	int ret;

	mutex_lock(&kbc_lock);
	ret = sysfs_emit(buf, "%s\n", kbc_result);
	mutex_unlock(&kbc_lock);
	return ret;
}

static const struct kernel_param_ops kbc_cmd_ops = {
	.set = kbc_cmd_set,
};

static const struct kernel_param_ops kbc_result_ops = {
	.get = kbc_result_get,
};

module_param_cb(cmd, &kbc_cmd_ops, NULL, 0200);
MODULE_PARM_DESC(cmd, "command: get NAME | put | test HEX | addr4 A | addr6 A | keytype | bench N | id NAME | name ID | chase PFX N");
module_param_cb(result, &kbc_result_ops, NULL, 0400);
MODULE_PARM_DESC(result, "result of the last command");

static int __init kbc_init(void)
{
	return 0;
}

static void __exit kbc_exit(void)
{
	if (kbc_ref)
		kbloom_put(kbc_ref);
}

module_init(kbc_init);
module_exit(kbc_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kbloom consumer API test fixture");
