#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Prove uapi/kbloom.yaml matches the kernel: drive the "kbloom" family
with the kernel's own tools/net/ynl/cli.py (from Debian's
linux-source-6.12, extracted to $(BUILD)/ynl by selftests/build.mk).

usage: kbloom_ynl.py YNL_DIR SPEC      (prints TAP; run as root in the VM)

Without python3-jsonschema cli.py cannot validate the spec against
genetlink-legacy.yaml: it then runs with --no-schema (noted in the TAP).
"""
import json
import os
import subprocess
import sys

ynl_dir, spec = sys.argv[1], sys.argv[2]
cli = os.path.join(ynl_dir, 'tools/net/ynl/cli.py')
results = []


def tap(ok, what, diag=''):
    results.append(ok)
    print(f"{'ok' if ok else 'not ok'} {len(results)} {what}")
    for line in str(diag).splitlines():
        print(f'# {line}')


if not os.path.exists(cli):
    print('1..1')
    print(f'ok 1 # SKIP {cli} missing (linux-source-6.12 not installed)')
    sys.exit(0)

# The spec lives in uapi/, not beside the schemas as in the kernel tree:
# name the schema explicitly.
schema_path = os.path.join(ynl_dir, 'Documentation/netlink/genetlink-legacy.yaml')
try:
    import jsonschema  # noqa: F401
    schema = ['--schema', schema_path]
except ImportError:
    schema = ['--no-schema']
    print('# python3-jsonschema missing: spec not validated against '
          'genetlink-legacy.yaml')


class Reply:
    """what cli.py would have printed, and its exit status"""
    def __init__(self, returncode, stdout, stderr=''):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def cli_run(*args):
    """cli.py itself, in a process of its own (validates the spec too)"""
    cmd = [sys.executable, cli, '--spec', spec, *schema, '--output-json',
           *args]
    p = subprocess.run(cmd, capture_output=True, text=True)
    return Reply(p.returncode, p.stdout, p.stderr)


def run(*args, js=None, check=True):
    """cli.py --do/--dump OP --json JS, through cli.py's own library in
    this process: one spec load and schema validation for all the steps
    instead of one per command (minutes under TCG on the debug kernel)."""
    mode, op = args
    try:
        if mode == '--do':
            reply = ynl.do(op, js or {})
        else:
            reply = ynl.dump(op, js or {})
        p = Reply(0, json.dumps(reply, cls=cli_mod.YnlEncoder) + '\n')
    except NlError as e:  # cli.py prints the error and exits 1
        p = Reply(1, f'{e}\n')
    if check and p.returncode:
        raise RuntimeError(f'{" ".join(args)}: {p.stdout}')
    return p


def out(p):
    lines = [x for x in p.stdout.splitlines() if x.strip()]
    return json.loads(lines[-1]) if lines else None


def step(what, fn):
    try:
        r = fn()
        tap(r is None or r is True, what, '' if r in (None, True) else r)
    except Exception as e:  # a failed step must not stop the rest
        tap(False, what, e)


print('1..11')

# an events listener first: cli.py's own library (cli.py --subscribe can
# only sleep a fixed time before printing), subscribed synchronously
sys.path.insert(0, os.path.dirname(cli))
from lib import YnlFamily, NlError  # noqa: E402
import cli as cli_mod  # noqa: E402  (its YnlEncoder: bytes as hex)
schema_arg = schema_path if schema[0] == '--schema' else ''
try:
    listener = YnlFamily(spec, schema_arg)
    listener.ntf_subscribe('events')
except Exception as e:  # reported by the events step
    listener = e
ynl = YnlFamily(spec, schema_arg)


def create():
    run('--do', 'create', js={'name': 'y.a', 'kind': 'counting',
                              'key-type': 'str', 'items': 1000,
                              'fpr-ppb': 1000000})
    run('--do', 'create', js={'name': 'y.b', 'bits-per-key': 10,
                              'items': 100, 'writers': 4242})


def get():
    r = out(run('--do', 'get', js={'name': 'y.a'}))
    want = {'name': 'y.a', 'kind': 'counting', 'key-type': 'str',
            'hash': 'xxh64', 'items': 1000, 'fpr-ppb': 1000000,
            'count': 0, 'refs': 0, 'over-capacity': 0}
    bad = {k: (r.get(k), v) for k, v in want.items() if r.get(k) != v}
    if bad or r['m'] <= 0 or r['bytes'] != r['m'] // 2 or \
       not 1 <= r['k'] <= 32 or 'generation' not in r:
        return f'got {r}, mismatches {bad}'


def dump():
    r = out(run('--dump', 'get'))
    names = [x['name'] for x in r]
    if names.count('y.a') != 1 or names.count('y.b') != 1:
        return f'dump names {names}'
    b = [x for x in r if x['name'] == 'y.b'][0]
    if b['kind'] != 'blocked' or b['key-type'] != 'bytes' or \
       b.get('writers') != 4242 or 'readers' in b:
        return f'y.b {b}'


def keys():
    run('--do', 'add', js={'name': 'y.a',
                           'keys': {'data': ['hello'.encode().hex(),
                                             'world'.encode().hex()]}})
    r = out(run('--do', 'test',
                js={'name': 'y.a',
                    'keys': {'data': ['hello'.encode().hex(),
                                      'absent'.encode().hex()]}}))
    if r.get('name') != 'y.a' or r.get('result') != '0100' or \
       r.get('matches') != 1:
        return f'test reply {r}'


def export():
    r = out(run('--dump', 'export', js={'name': 'y.a'}))
    size = r[0]['image-size']
    off = 0
    for m in r:
        if m['offset'] != off or m['image-size'] != size:
            return f'chunk at {m["offset"]}, expected {off}'
        off += len(bytes.fromhex(m['chunk']))
    if off != size or not bytes.fromhex(r[0]['chunk']).startswith(b'KBLM'):
        return f'{off} bytes of {size}'


def errors():
    p = run('--do', 'create', js={'name': 'y.a', 'bits-per-key': 10},
            check=False)
    if p.returncode == 0 or 'exists' not in p.stdout:
        return f'duplicate create: rc {p.returncode}: {p.stdout}'
    p = run('--do', 'create', js={'bits-per-key': 10}, check=False)
    if p.returncode == 0 or 'missing attribute NAME' not in p.stdout:
        return f'missing name: rc {p.returncode}: {p.stdout}'


def grant():
    run('--do', 'grant', js={'name': 'y.b', 'readers': 7,
                             'writers': 0xffffffff})
    r = out(run('--do', 'get', js={'name': 'y.b'}))
    if r.get('readers') != 7 or 'writers' in r:
        return f'after grant: {r}'


def rename_destroy():
    run('--do', 'rename', js={'name': 'y.b', 'name2': 'y.c'})
    run('--do', 'destroy', js={'name': 'y.a'})
    run('--do', 'destroy', js={'name': 'y.c'})
    p = run('--do', 'get', js={'name': 'y.a'}, check=False)
    if p.returncode == 0 or 'no such filter' not in p.stdout:
        return f'get after destroy: rc {p.returncode}: {p.stdout}'


step('create (counting str, bits-per-key defaults)', create)
step('get: enums by name, parameters', get)
step('dump: each filter once', dump)
step('add + test: nested multi-attr keys, per-key result', keys)
step('export: contiguous chunks of one image', export)
step('errors carry the extack message', errors)
step('grant: set one group, clear the other', grant)
step('rename + destroy, get fails after', rename_destroy)


def events():
    if isinstance(listener, Exception):
        return f'subscribe: {listener}'
    listener.check_ntf()
    evs = listener.async_msg_queue
    got = [(e['msg']['event'], e['msg']['name'], e['msg'].get('name2'))
           for e in evs if e['name'] == 'event']
    want = [('created', 'y.a', None), ('created', 'y.b', None),
            ('granted', 'y.b', None), ('renamed', 'y.b', 'y.c'), ('destroyed', 'y.a', None),
            ('destroyed', 'y.c', None)]
    if got != want:
        return f'events {got}'


step('events group: created, granted, renamed, destroyed', events)

# the spec's operations, as cli.py sees them
p = cli_run('--list-ops')
ok = p.returncode == 0 and 'export  [ dump ]' in p.stdout
tap(ok, 'list-ops', '' if ok else p.stdout + p.stderr)


def c_enums(path):
    """name -> value of every enum constant of the C header"""
    import re
    vals = {}
    text = open(path).read()
    for body in re.findall(r'enum \w+ \{(.*?)\};', text, re.S):
        v = -1
        for name, _, val in re.findall(r'^\s*(\w+)\s*(=\s*(\w+))?,',
                                       body, re.M):
            v = int(val, 0) if val and val[0].isdigit() else \
                vals[val] if val else v + 1
            vals[name] = v
    for name, val in re.findall(r'#define (KB_\w+)\s+(\d+)U?\b', text):
        vals[name] = int(val)
    return vals


def spec_matches_header():
    from lib.nlspec import SpecFamily
    f = SpecFamily(spec, '')
    # the netlink enums are generated from the spec (make regen) into
    # kbloom_netlink.h; kinds, hashes, key types and limits stay in kbloom.h
    c = {}
    for h in ('linux/kbloom.h', 'linux/kbloom_netlink.h'):
        c.update(c_enums(os.path.join(os.path.dirname(spec), h)))

    def cname(prefix, name):
        return (prefix + name).upper().replace('-', '_')
    want = {}
    for set_name, prefix in (('filter', 'kb-a-'), ('keys', 'kb-ka-')):
        for name, a in f.attr_sets[set_name].items():
            want[cname(prefix, name)] = a.value
    for name, op in f.msgs.items():
        want[cname('kb-cmd-', name)] = op.value
    for name, d in f.consts.items():
        if d['type'] == 'const':
            want[cname('kb-', name)] = d['value']
        else:
            for e in d.entries.values():
                want[cname(d['name-prefix'], e.name)] = e.value
    bad = {k: (v, c.get(k)) for k, v in want.items() if c.get(k) != v}
    if bad:
        return f'spec value, header value: {bad}'


step('spec values match uapi/linux/kbloom.h and kbloom_netlink.h',
     spec_matches_header)
sys.exit(0 if all(results) else 1)
