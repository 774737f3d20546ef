# SPDX-License-Identifier: GPL-2.0
# lsm_storm.py DIR STOPFILE: for bfctl_lsm.sh, as an unprivileged user:
# four processes rename DIR/rN/a to b and back, 64 open DIR/rN/a/f through
# a directory fd, until STOPFILE exists (at most two minutes).  Each open
# is a path filter check whose bpf_d_path() walks a directory being
# renamed (on PREEMPT_RT it then sleeps on rename_lock).  Exit 1 if an
# open (of these files nobody listed) was denied: a process stops at its
# first EPERM.
import os, sys, time
top, stop = sys.argv[1], sys.argv[2]
end = time.monotonic() + 120
kids = []
def loop(make):
    pid = os.fork()
    if pid:
        kids.append(pid)
        return
    denied = 0
    try:
        body = make()
        while not os.path.exists(stop) and time.monotonic() < end:
            for _ in range(20):
                body()
    except PermissionError:
        denied = 1
    os._exit(denied)
def renamer(d):
    def make():
        def body():
            os.rename(d + '/a', d + '/b')
            os.rename(d + '/b', d + '/a')
        return body
    return make
def opener(d):
    def make():
        while True:     # a renamer may have it as b for the moment
            try:
                fd = os.open(d + '/a', os.O_RDONLY | os.O_DIRECTORY)
                break
            except FileNotFoundError:
                pass
        def body():
            try:
                os.close(os.open('f', os.O_RDONLY, dir_fd=fd))
            except FileNotFoundError:
                pass
        return body
    return make
for i in range(4):
    loop(renamer('%s/r%d' % (top, i)))
for i in range(64):
    loop(opener('%s/r%d' % (top, i % 4)))
denied = 0
for p in kids:
    denied += os.waitstatus_to_exitcode(os.waitpid(p, 0)[1]) != 0
if denied:
    sys.exit('lsm_storm: %d of %d processes had an open denied' %
             (denied, len(kids)))
