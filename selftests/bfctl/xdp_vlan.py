#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# The VLAN frames of bfctl_xdp.sh, crafted with scapy:
#   xdp_vlan.py build DSTMAC SRCMAC OUT   (one line per frame: PORT NAME HEX,
#                                          the last one named sentinel)
#   xdp_vlan.py send DEV FILE             (each frame once, on a packet socket)
# Each frame is a UDP datagram to its own port, from a listed (10.98.0.2,
# fd00:98::2) or an unlisted (10.98.0.3, fd00:98::3) source to the
# receiving host (10.98.0.1, fd00:98::1), behind a stack of tags; the
# receiving side counts each port's datagrams with iptables rules.
# The frames are built once: importing scapy takes seconds under TCG, a
# packet socket does not.
import socket
import sys

# NAME: the tags, outside first: (VID, 'q' 802.1Q or 'ad' 802.1ad).
# kbxd has vlan devices 10 (802.1Q), and 100 (802.1ad) > 20 > 30 (802.1Q)
STACKS = [
    ('none', []),
    ('0', [(0, 'q')]),
    ('10', [(10, 'q')]),
    ('7-nodev', [(7, 'q')]),
    ('0.0', [(0, 'q'), (0, 'q')]),
    ('100.99-nodev', [(100, 'ad'), (99, 'q')]),
    ('0.0.0', [(0, 'q')] * 3),
    ('100.20.30', [(100, 'ad'), (20, 'q'), (30, 'q')]),
    ('0.0.10', [(0, 'q'), (0, 'q'), (10, 'q')]),
    ('0ad.0.10', [(0, 'ad'), (0, 'q'), (10, 'q')]),
    ('0x5', [(0, 'q')] * 5),
    ('100.0.20.0.30', [(100, 'ad'), (0, 'q'), (20, 'q'), (0, 'q'), (30, 'q')]),
    ('5.6.7.8.9-nodev', [(v, 'q') for v in (5, 6, 7, 8, 9)]),
    ('0x8', [(0, 'q')] * 8),
    # more tags than the blocklist parses (KB_VLAN_MAX): it drops these
    ('deep:0x9', [(0, 'q')] * 9),
    ('deep:0x12.10', [(0, 'q')] * 12 + [(10, 'q')]),
]
# IPv6 behind a few of them too
STACKS6 = ['none', '0.0.10', '0x5', '100.20.30', 'deep:0x9']
BASE = 20000


def build(dmac, smac, out):
    from scapy.layers.l2 import Ether, Dot1Q, Dot1AD
    from scapy.layers.inet import IP, UDP
    from scapy.layers.inet6 import IPv6

    frames = []
    port = BASE
    for fam, stacks in (('4', [s[0] for s in STACKS]), ('6', STACKS6)):
        for name in stacks:
            tags = dict(STACKS)[name]
            for listed in (True, False):
                p = Ether(dst=dmac, src=smac)
                for vid, kind in tags:
                    p = p / (Dot1AD(vlan=vid) if kind == 'ad' else Dot1Q(vlan=vid))
                if fam == '4':
                    src = '10.98.0.2' if listed else '10.98.0.3'
                    p = p / IP(src=src, dst='10.98.0.1')
                else:
                    src = 'fd00:98::2' if listed else 'fd00:98::3'
                    p = p / IPv6(src=src, dst='fd00:98::1')
                p = p / UDP(sport=40000, dport=port) / b'kbloom'
                label = '%s/%s/%s' % (fam, name, 'listed' if listed else 'unlisted')
                frames.append('%d %s %s' % (port, label, bytes(p).hex()))
                port += 1
    # last: the receiver has seen every frame once it has seen this one
    p = Ether(dst=dmac, src=smac) / IP(src='10.98.0.3', dst='10.98.0.1')
    p = p / UDP(sport=40000, dport=port) / b'kbloom'
    frames.append('%d sentinel %s' % (port, bytes(p).hex()))
    with open(out, 'w') as f:
        f.write('\n'.join(frames) + '\n')


def send(dev, path):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((dev, 0))
    with open(path) as f:
        for line in f:
            s.send(bytes.fromhex(line.split()[2]))


if sys.argv[1] == 'build':
    build(sys.argv[2], sys.argv[3], sys.argv[4])
else:
    send(sys.argv[2], sys.argv[3])
