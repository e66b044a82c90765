"""Smoke test of rtl/shell/gre_decap_avst.sv (N3000-style shell: Avalon-ST around gre_decap).

Frames go in on s_avst_* and are compared, in order, with the golden model
(wirespeed.model.gre); the AXI4-Lite port and the status stream are checked to pass through.
"""

from __future__ import annotations

import random

import cocotb
from cocotb.triggers import RisingEdge

from avst_tb import avst_sink, avst_source, seed_frame, setup
from tb.block_csr.axil import Axil, cnt_addr

ID_VALUE = 0x57534731  # gre_decap's ID register ("WSG1")
from wirespeed.model.gre import Outcome, gre_decap


def frames_under_test(rng: random.Random) -> list[tuple[bytes, int]]:
    from scapy.layers.inet import IP, UDP
    from scapy.layers.l2 import GRE, Dot1Q, Ether
    from scapy.packet import Raw

    seed = seed_frame()
    out = [(seed, 0)]
    eth = Ether(dst="02:00:00:00:00:01", src="02:00:00:00:00:02")
    outer = IP(src="192.0.2.1", dst="198.51.100.1")
    for n in range(60):
        pay = Raw(bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 200))))
        inner = IP(src="10.0.0.1", dst="10.0.0.2") / UDP(sport=1, dport=2) / pay
        kind = n % 6
        if kind == 0:
            pkt = eth / outer / GRE(proto=0x0800) / inner  # DECAP_L3
        elif kind == 1:
            pkt = eth / inner  # PASS
        elif kind == 2:
            pkt = eth / outer / GRE(proto=0x6558) / Ether() / inner  # DECAP_TEB
        elif kind == 3:
            pkt = eth / outer / GRE(proto=0x88BE) / pay  # PUNT
        elif kind == 4:
            pkt = eth / Dot1Q(vlan=5) / outer / GRE(proto=0x0800, key_present=1, key=7) / inner
        else:
            raw = bytearray(bytes(eth / outer / GRE(proto=0x0800) / inner))
            raw[24] ^= 0xFF  # outer IPv4 checksum broken: DROP_IP_CHECKSUM
            pkt = bytes(raw)
        out.append((bytes(pkt), int(rng.random() < 0.1)))
    return out


@cocotb.test(timeout_time=2000, timeout_unit="us")
async def shell_matches_model(dut):
    keep_w = await setup(dut)
    axil = Axil(dut)
    rng = random.Random(4242 + keep_w)
    assert await axil.rd(0x0000) == ID_VALUE

    frames = frames_under_test(rng)
    results = [gre_decap(f, bad=bool(bad), keep_w=keep_w) for f, bad in frames]
    emitted = [r for r in results if r.emit]
    expect = [(r.output, 0) if not r.aborted else (None, 1) for r in emitted]
    assert results[0].outcome == Outcome.DECAP_L3 and len(results[0].output) == 64

    stats = []

    async def stat_monitor():
        while True:
            await RisingEdge(dut.clk)
            if int(dut.m_stat_valid.value):
                stats.append((int(dut.m_stat_outcome.value), int(dut.m_stat_emit.value)))

    mon = cocotb.start_soon(stat_monitor())
    out, beat_log = [], []
    sink = cocotb.start_soon(avst_sink(dut, out, keep_w, rng, 0.3, len(expect), beat_log))
    await avst_source(dut, frames, keep_w, rng, 0.2)
    await sink
    for _ in range(20):
        await RisingEdge(dut.clk)
    mon.cancel()

    for n, ((got, err), (want, aborted)) in enumerate(zip(out, expect)):
        assert err == aborted, f"output frame {n}: error {err}, model aborted {aborted}"
        if not aborted:
            assert got == want, f"output frame {n}: {got.hex()} != {want.hex()}"
    # the seed frame leaves with its 24 bytes of IPv4 + GRE removed, in Avalon byte order
    first = beat_log[0][0]
    if keep_w == 32:
        assert (first >> 144) & 0xFFFF == 0x0800  # EtherType kept at bytes 12..13
        assert (first >> 136) & 0xFF == 0x45  # byte 14 is now the inner IPv4 header
    assert stats == [(int(r.outcome), int(r.emit)) for r in results]
    n_l3 = sum(r.outcome == Outcome.DECAP_L3 for r in results)
    assert await axil.rd(cnt_addr(int(Outcome.DECAP_L3), 0)) == n_l3
