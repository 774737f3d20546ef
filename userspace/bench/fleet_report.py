# SPDX-License-Identifier: GPL-2.0
"""bench-fleet's report: the per-N table, the model fitted to the
per-follower costs, docs/fleet.md's tables (userspace/bench/bench-fleet)."""

import json
import statistics


def stats(xs):
    if not xs:
        return None
    xs = sorted(xs)

    def q(p):
        return xs[min(len(xs) - 1, int(p * len(xs)))]
    return {"n": len(xs), "p50": round(q(0.5), 6), "p99": round(q(0.99), 6),
            "max": round(xs[-1], 6), "mean": round(statistics.mean(xs), 6)}


def out_bytes(r, names):
    return sum(r["servers"][x]["out_bytes"] for x in names
               if r["servers"].get(x))


def per_follower(r, base, names=("replica1", "replica2")):
    """bytes the servers that serve the followers (the replicas) sent per
    change per follower, less the same design's N=0 phase: the primary's
    output is the writer's, the relay's and Sentinel's, which no follower
    reads (primary_out_bytes_per_change says what it is)"""
    if not r["n"] or not r["changes"]:
        return None
    b = out_bytes(base, names) / max(base["changes"], 1) if base else 0
    return (out_bytes(r, names) / r["changes"] - b) / r["n"]


def cpu(r, names):
    v = [r["servers"][x]["cpu_s_per_change"] for x in names
         if r["servers"].get(x)]
    return sum(v) if v else None


def linfit(pts):
    """least squares y = c0 + c1 x; one point tells no slope"""
    if not pts:
        return None, None
    if len(pts) == 1:
        return pts[0][1], None
    mx = statistics.mean(x for x, _ in pts)
    my = statistics.mean(y for _, y in pts)
    sxx = sum((x - mx) ** 2 for x, _ in pts)
    c1 = sum((x - mx) * (y - my) for x, y in pts) / sxx
    return my - c1 * mx, c1


def fit(per, bits, rate, base, hosts=10000, replicas=2):
    """per-follower costs from the measured N points, and what they make
    at `hosts` followers on `replicas` replicas at `rate` changes a second
    (docs/fleet.md says what this leaves out).  Only the N whose
    followers kept up (bytes per change per follower not 10% under the
    smallest N's) and the N=0 baseline: a follower that lags pulls less
    than once a change, which is no cost per change to extrapolate."""
    pts = [p for p in per if p["bytes_per_change_per_follower"] is not None]
    if not pts:
        return None
    first = min(pts, key=lambda p: p["n"])["bytes_per_change_per_follower"]
    pts = [p for p in pts if p["bytes_per_change_per_follower"] >= 0.9 * first]
    b = statistics.mean(p["bytes_per_change_per_follower"] for p in pts)
    r0, r1 = linfit([(p["n"], p["replicas_cpu_s_per_change"]) for p in pts
                     if p["replicas_cpu_s_per_change"] is not None] + base[0])
    p0, p1 = linfit([(p["n"], p["primary_cpu_s_per_change"]) for p in pts
                     if p["primary_cpu_s_per_change"] is not None] + base[1])
    fc = statistics.mean(p["follower_cpu_s_per_change"]["mean"] for p in pts
                         if p["follower_cpu_s_per_change"])
    hwm = max(p["follower_hwm_kib"]["max"] for p in pts if p["follower_hwm_kib"])
    m = {"fitted_ns": [p["n"] for p in pts],
         "bytes_per_change_per_follower": b,
         "bytes_over_filter_bytes": b / (bits / 8),
         "replicas_cpu_s_per_change": [r0, r1],
         "primary_cpu_s_per_change": [p0, p1],
         "follower_cpu_s_per_change": fc, "follower_hwm_kib_max": hwm}
    if r1 is not None:
        m["at_%d_hosts" % hosts] = {
            "rate_per_s": rate, "replicas": replicas,
            "bytes_per_s_per_replica": b * rate * hosts / replicas,
            "replica_cpu_cores_each": max(r1, 0) * rate * hosts / replicas,
            "primary_cpu_cores": (p0 or 0) * rate + max(p1 or 0, 0) * rate * hosts,
            "replicas_for_1_core_1GBps_each": max(
                max(r1, 0) * rate * hosts, b * rate * hosts / 1e9)}
    return m


def summarize(a, runs, notes):
    out = {"quick": a.quick, "bits": 1 << a.bits_log2, "rate_per_s": a.rate,
           "secs": a.secs, "preload_keys": a.preload, "ns": a.ns,
           "follower_nice": a.follower_nice,
           "followers_via": "sentinel" if a.sentinel_urls else "replicas (redis:// URL, half on each)",
           "notes": notes, "designs": {}}
    for d in a.designs:
        rs = [r for r in runs if r["design"] == d and not r["failover"]]
        if not rs:
            continue
        base = next((r for r in rs if r["n"] == 0), None)
        per = []
        for r in rs:
            if not r["n"]:
                continue
            per.append({
                "n": r["n"], "changes": r["changes"],
                "bytes_per_change_per_follower": per_follower(r, base),
                "bytes_per_change_per_follower_all_servers": per_follower(
                    r, base, ("primary", "replica1", "replica2")),
                "primary_out_bytes_per_change":
                out_bytes(r, ["primary"]) / max(r["changes"], 1),
                "primary_cpu_s_per_change": cpu(r, ["primary"]),
                "replicas_cpu_s_per_change": cpu(r, ["replica1", "replica2"]),
                "convergence_s": r["latency_s"],
                "unconverged_changes": r["unconverged_changes"],
                "follower_rchar_per_change": r["follower_rchar_per_change"],
                "follower_cpu_s_per_change": r["follower_cpu_s_per_change"],
                "follower_hwm_kib": r["follower_hwm_kib"],
                "relay_epochs": r.get("relay_epochs"),
                "follower_status": r["follower_status"],
                "torn_filters": r["torn_filters"]})
        out["designs"][d] = {
            "model": fit(per, 1 << a.bits_log2, a.rate, (
                [(0, cpu(base, ["replica1", "replica2"]))] if base else [],
                [(0, cpu(base, ["primary"]))] if base else [])),
            "baseline_n0": {"primary_cpu_s_per_change": cpu(base, ["primary"]),
                            "out_bytes_per_change":
                            base["out_bytes_total"] / max(base["changes"], 1)}
            if base else None,
            "per_n": per}
    head = "delta" if "delta" in out["designs"] else "full"
    out["headline_design"] = head
    hp = out["designs"].get(head, {}).get("per_n", [])
    top = max(hp, key=lambda x: x["n"], default=None)
    one = next((x for x in hp if x["n"] == 1), None)
    fp = out["designs"].get("full", {}).get("per_n", [])
    ftop = next((x for x in fp if top and x["n"] == top["n"]), None)
    ratio = None
    if head == "delta" and top and ftop and top["bytes_per_change_per_follower"]:
        ratio = ftop["bytes_per_change_per_follower"] / \
            max(top["bytes_per_change_per_follower"], 1e-9)
    out["n_top"] = top["n"] if top else None
    out["bytes_per_change_ratio_vs_full_pull"] = ratio
    out["primary_cpu_growth_1_to_100"] = (
        top["primary_cpu_s_per_change"] / one["primary_cpu_s_per_change"]
        if top and one and one["primary_cpu_s_per_change"] else None)
    out["p99_convergence_s"] = top["convergence_s"]["p99"] \
        if top and top["convergence_s"] else None
    fo = [r for r in runs if r["failover"]]
    out["failover"] = [{k: r.get(k) for k in (
        "design", "n", "changes", "lost_by_failover", "lost_kept",
        "writer_retries", "killed_primary_at_s", "relay_restarted_at_s",
        "converged", "latency_s", "unconverged_changes", "torn_filters",
        "torn_detail")} for r in fo]
    for r, x in zip(fo, out["failover"]):
        x["relay_epochs"] = r.get("relay_epochs")
    out["failover_converged"] = None if not fo else all(
        r["converged"] == r["n"] and not r["unconverged_changes"] for r in fo)
    out["torn_filters"] = sum(r["torn_filters"] for r in runs)
    out["runs"] = runs
    return out


def table(path):
    """build/bench-fleet.json as docs/fleet.md's tables"""
    d = json.load(open(path))

    def f(x, k=1, fmt="%.3g"):
        return "-" if x is None else fmt % (x * k)
    print("| design | N | bytes/change/follower | primary CPU ms/change "
          "| replicas CPU ms/change | conv. p50 s | p99 s | follower CPU "
          "ms/change | follower peak RSS MiB | torn |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    rows = [(dn, p) for dn, dd in d["designs"].items() for p in dd["per_n"]]
    for dn, p in sorted(rows, key=lambda x: (x[1]["n"], x[0])):
        c = p["convergence_s"] or {}
        print("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %d |" % (
            dn, p["n"], f(p["bytes_per_change_per_follower"], 1, "%.0f"),
            f(p["primary_cpu_s_per_change"], 1e3),
            f(p["replicas_cpu_s_per_change"], 1e3), f(c.get("p50")),
            f(c.get("p99")), f((p["follower_cpu_s_per_change"] or {}).get("mean"), 1e3),
            f((p["follower_hwm_kib"] or {}).get("max"), 1 / 1024),
            p["torn_filters"]))
    for k in ("bytes_per_change_ratio_vs_full_pull", "primary_cpu_growth_1_to_100",
              "p99_convergence_s", "failover_converged", "torn_filters"):
        print("- `%s`: %s" % (k, d[k]))
    for fo in d["failover"]:
        print("- failover, %s, N=%d: %d/%d converged, %s lost by Redis, "
              "%s kept, latency %s" % (fo["design"], fo["n"], fo["converged"],
                                      fo["n"], fo["lost_by_failover"],
                                      fo["lost_kept"], fo["latency_s"]))
    for dn, dd in d["designs"].items():
        print("- model %s: %s" % (dn, json.dumps(dd["model"])))
    return 0
