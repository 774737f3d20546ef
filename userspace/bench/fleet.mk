# SPDX-License-Identifier: GPL-2.0
#
# ---- make bench-fleet [BENCH_SMALL=1]: a fleet of watchers (issue 28) ----
# Natively, on loopback: a Redis primary, two replicas and three sentinels
# from Debian's redis-server; go-zero's Add at a steady rate; N followers
# (bfctl redis watch KEY -o FILE) for N = 1, 10, 50, 100 on a 2^27-bit
# key, today's full pull and the relay's deltas, and a failover
# (userspace/bench/bench-fleet; docs/fleet.md).  BENCH_SMALL=1: the quick
# mode (N = 1 and 4, 2^20 bits, about 90 s).  FLEET_ARGS: more
# options (--ns, --bits-log2, --rate, --secs, --designs, --failover-n).
# Writes build/bench-fleet.json.  Never part of make check.
BENCH_TARGETS += bench-fleet
.PHONY: bench-fleet
bench-fleet: $(UBUILD)/bfctl $(UBUILD)/tests/gozero-oracle
	$(CURDIR)/userspace/bench/bench-fleet $(if $(BENCH_SMALL),--quick) \
		--bfctl $(UBUILD)/bfctl --oracle $(UBUILD)/tests/gozero-oracle \
		--out $(BUILD)/bench-fleet.json $(FLEET_ARGS)
	@python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); \
		[print("%s: %s" % (k, d[k])) for k in ("headline_design", "n_top", \
		"bytes_per_change_ratio_vs_full_pull", "primary_cpu_growth_1_to_100", \
		"p99_convergence_s", "failover_converged", "torn_filters", "notes")]' \
		$(BUILD)/bench-fleet.json
