#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# The capture that tests/replay_test.sh and the `make realworld` replay
# (tests/qemu/realworld-net.sh) send with tcpreplay across a veth pair:
# a mix of the traffic a tap on a busy link sees, made here with scapy
# (python3-scapy) from a fixed seed, so that every build writes the same
# bytes (no network fetch, no capture of anyone's traffic):
#
#  - TCP connections over IPv4 and IPv6: handshake, data segments with
#    options, pure ACKs, retransmitted segments (the same bytes again),
#    FIN;
#  - UDP request/response pairs (DNS-like), some with an empty payload;
#  - ICMP and ICMPv6 echo request/reply;
#  - IPv4 fragments (large UDP datagrams and pings cut in three) and IPv6
#    fragments (a Fragment extension header), and IPv6 UDP behind a
#    Destination Options header;
#  - GRE (a protocol without ports), ARP (not IP);
#  - duplicated frames (the same frame twice, as a mirror port gives).
#
# Every frame is addressed to 02:00:00:00:00:02, the address the tests
# give the receiving veth, so that the kernel takes every one as its own.
#
#   gen_replay_pcap.py OUT.pcap [PACKETS]

import random
import sys

from scapy.all import (ARP, GRE, ICMP, IP, IPv6, TCP, UDP, Ether,
                       ICMPv6EchoReply, ICMPv6EchoRequest,
                       IPv6ExtHdrDestOpt, IPv6ExtHdrFragment, PadN, Raw,
                       fragment, fragment6, wrpcap)

SEED = 0x6D656D66696C7472  # "memfiltr"
SMAC, DMAC = "02:00:00:00:00:01", "02:00:00:00:00:02"


def v4(i):
    return "10.1.%d.%d" % (i // 250, i % 250 + 1)


def v6(i):
    return "2001:db8:1::%x" % (i + 1)


class Gen:
    def __init__(self, rnd):
        self.rnd = rnd
        self.out = []
        self.ipid = 1

    def payload(self, lo, hi):
        n = self.rnd.randint(lo, hi)
        return bytes(self.rnd.getrandbits(8) for _ in range(n))

    def ip(self, src, dst, six):
        if six:
            return IPv6(src=src, dst=dst, hlim=64)
        self.ipid = (self.ipid + 1) & 0xFFFF
        return IP(src=src, dst=dst, ttl=64, id=self.ipid)

    def emit(self, pkt):
        self.out.append(Ether(src=SMAC, dst=DMAC) / pkt)
        # A mirror port now and then delivers a frame twice.
        if self.rnd.random() < 0.03:
            self.out.append(Ether(src=SMAC, dst=DMAC) / pkt)

    def tcp_flow(self, cli, srv, six):
        r = self.rnd
        sport, dport = r.randint(32768, 60999), r.choice([80, 443, 22, 5432])
        cs, ss = r.getrandbits(32), r.getrandbits(32)
        opts = [("MSS", 1460), ("SAckOK", b""), ("WScale", 7)]
        self.emit(self.ip(cli, srv, six) /
                  TCP(sport=sport, dport=dport, flags="S", seq=cs, options=opts))
        self.emit(self.ip(srv, cli, six) /
                  TCP(sport=dport, dport=sport, flags="SA", seq=ss, ack=cs + 1,
                      options=opts))
        cs += 1
        ss += 1
        self.emit(self.ip(cli, srv, six) /
                  TCP(sport=sport, dport=dport, flags="A", seq=cs, ack=ss))
        for _ in range(r.randint(1, 8)):
            fwd = r.random() < 0.5
            data = self.payload(1, 1200)
            a, b, p, q = (cli, srv, sport, dport) if fwd else (srv, cli, dport, sport)
            seq, ack = (cs, ss) if fwd else (ss, cs)
            seg = (self.ip(a, b, six) /
                   TCP(sport=p, dport=q, flags="PA", seq=seq, ack=ack,
                       options=[("NOP", None), ("NOP", None),
                                ("Timestamp", (r.getrandbits(32), 0))]) /
                   Raw(data))
            self.emit(seg)
            if r.random() < 0.15:           # lost ACK: retransmitted
                self.emit(seg.copy())
            if fwd:
                cs += len(data)
            else:
                ss += len(data)
            self.emit(self.ip(b, a, six) /
                      TCP(sport=q, dport=p, flags="A", seq=ack,
                          ack=seq + len(data)))
        self.emit(self.ip(cli, srv, six) /
                  TCP(sport=sport, dport=dport, flags="FA", seq=cs, ack=ss))
        self.emit(self.ip(srv, cli, six) /
                  TCP(sport=dport, dport=sport, flags="FA", seq=ss, ack=cs + 1))

    def udp_pair(self, cli, srv, six):
        r = self.rnd
        sport = r.randint(32768, 60999)
        dport = r.choice([53, 123, 514, 4789])
        query = self.payload(0, 60) if r.random() < 0.9 else b""
        self.emit(self.ip(cli, srv, six) / UDP(sport=sport, dport=dport) / Raw(query))
        self.emit(self.ip(srv, cli, six) / UDP(sport=dport, dport=sport) /
                  Raw(self.payload(20, 500)))

    def ping(self, cli, srv, six):
        r = self.rnd
        ident, seq = r.getrandbits(16), r.randint(1, 100)
        data = self.payload(8, 56)
        if six:
            self.emit(IPv6(src=cli, dst=srv) / ICMPv6EchoRequest(id=ident, seq=seq, data=data))
            self.emit(IPv6(src=srv, dst=cli) / ICMPv6EchoReply(id=ident, seq=seq, data=data))
        else:
            self.emit(self.ip(cli, srv, False) / ICMP(type=8, id=ident, seq=seq) / Raw(data))
            self.emit(self.ip(srv, cli, False) / ICMP(type=0, id=ident, seq=seq) / Raw(data))

    def fragments(self, cli, srv, six):
        r = self.rnd
        if six:
            pkt = (IPv6(src=cli, dst=srv) /
                   IPv6ExtHdrFragment(id=r.getrandbits(32)) /
                   UDP(sport=r.randint(32768, 60999), dport=4789) /
                   Raw(self.payload(2000, 3000)))
            frags = fragment6(pkt, 1280)
        else:
            inner = (UDP(sport=r.randint(32768, 60999), dport=2049) /
                     Raw(self.payload(2000, 3500))
                     if r.random() < 0.7 else
                     ICMP(type=8, id=r.getrandbits(16), seq=1) /
                     Raw(self.payload(2000, 3000)))
            frags = fragment(self.ip(cli, srv, False) / inner, 1400)
        for f in frags:
            self.emit(f)

    def destopt(self, cli, srv):
        r = self.rnd
        self.emit(IPv6(src=cli, dst=srv) /
                  IPv6ExtHdrDestOpt(options=[PadN(optdata=b"\x00\x00\x00\x00")]) /
                  UDP(sport=r.randint(32768, 60999), dport=53) /
                  Raw(self.payload(10, 80)))

    def gre(self, cli, srv):
        self.emit(self.ip(cli, srv, False) / GRE(proto=0x0800) /
                  IP(src="192.168.0.1", dst="192.168.0.2") / ICMP() /
                  Raw(self.payload(8, 64)))


def main():
    out = sys.argv[1]
    want = int(sys.argv[2]) if len(sys.argv) > 2 else 1500
    rnd = random.Random(SEED)
    g = Gen(rnd)
    srv4, srv6 = "10.2.0.1", "2001:db8:2::1"
    g.out.append(Ether(src=SMAC, dst="ff:ff:ff:ff:ff:ff") /
                 ARP(op=1, hwsrc=SMAC, psrc="10.1.0.1", pdst="10.2.0.1"))
    while len(g.out) < want:
        six = rnd.random() < 0.35
        host = rnd.randrange(400 if not six else 200)
        cli = v6(host) if six else v4(host)
        srv = srv6 if six else srv4
        what = rnd.random()
        if what < 0.30:
            g.tcp_flow(cli, srv, six)
        elif what < 0.60:
            g.udp_pair(cli, srv, six)
        elif what < 0.75:
            g.ping(cli, srv, six)
        elif what < 0.88:
            g.fragments(cli, srv, six)
        elif what < 0.94:
            if six:
                g.destopt(cli, srv)
            else:
                g.gre(cli, srv)
        else:
            g.out.append(Ether(src=SMAC, dst="ff:ff:ff:ff:ff:ff") /
                         ARP(op=1, hwsrc=SMAC, psrc=cli if not six else "10.1.0.1",
                             pdst="10.2.0.1"))
    # Fixed timestamps, 1 ms apart: the file is the same on every build.
    for i, p in enumerate(g.out):
        p.time = 1767225600 + i / 1000
    wrpcap(out, g.out)


if __name__ == "__main__":
    main()
