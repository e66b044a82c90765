"""cocotb tests of rtl/tunnel/gre_decap.sv against the golden model (docs/gre_decap.md).

(a) every contract case, random idle + backpressure, frame by frame vs the model, status stream
(b) counters over AXI-Lite == model tallies, balance in == out + drops
(c) allow-list and policy bits
(d) AXI-Lite: ID/PARAMS, unmapped / read-only accesses answer SLVERR, nothing hangs
(e) random frames from random_gre_case with idle + backpressure
"""

from __future__ import annotations

import random

import cocotb
from cocotb.triggers import ClockCycles, with_timeout
from cocotbext.axi import AxiResp

from gre_tb import (
    ID_VALUE,
    REG_ALLOW_BASE,
    REG_CNT_BASE,
    REG_CONTROL,
    REG_COUNTER_CLEAR,
    REG_ID,
    REG_PARAMS,
    REG_TX_BASE,
    Harness,
)
from wirespeed.model import frames as F
from wirespeed.model.gre import GreConfig, Outcome

ALLOW_ENTRIES = 64  # the RTL default; the tests do not override it


def ip(s: str) -> int:
    a = [int(x) for x in s.split(".")]
    return a[0] << 24 | a[1] << 16 | a[2] << 8 | a[3]


async def setup(dut) -> Harness:
    h = Harness(dut)
    await h.reset()
    return h


@cocotb.test()
async def test_registers_and_slverr(dut):
    """(d) ID, PARAMS, CONTROL read-back, allow-list read-back; SLVERR on unmapped addresses,
    on writes to read-only registers and on entries beyond ALLOW_ENTRIES; nothing hangs."""
    h = await setup(dut)
    errs = []

    async def go():
        if await h.read32(REG_ID) != ID_VALUE:
            errs.append("ID")
        params = await h.read32(REG_PARAMS)
        if params != (ALLOW_ENTRIES << 16 | h.data_w):
            errs.append(f"PARAMS 0x{params:08x}")
        for v in (0xF, 0x5, 0x0):
            await h.write32(REG_CONTROL, v)
            got = await h.read32(REG_CONTROL)
            if got & 0xF != v:
                errs.append(f"CONTROL wrote {v:#x} read {got:#x}")
        for i, (s, d, v) in enumerate([(0x0A000001, 0x0A000002, 1), (0xFFFFFFFF, 0x12345678, 0)]):
            idx = (0, ALLOW_ENTRIES - 1)[i]
            base = REG_ALLOW_BASE + 16 * idx
            await h.write32(base, s)
            await h.write32(base + 4, d)
            await h.write32(base + 8, v)
            got = (await h.read32(base), await h.read32(base + 4), (await h.read32(base + 8)) & 1)
            if got != (s, d, v):
                errs.append(f"allow entry {idx} read back {got}")
        await h.write32(REG_ALLOW_BASE + 8, 0)
        # unmapped reads / writes and writes to read-only registers
        unmapped = [0x0010, 0x0014, 0x00FC, REG_CNT_BASE + 16 * 14, REG_CNT_BASE + 16 * 15 + 12, REG_TX_BASE + 16,
                    0x0300, 0x0FFC, REG_ALLOW_BASE + 12, REG_ALLOW_BASE + 16 * ALLOW_ENTRIES,
                    REG_ALLOW_BASE + 16 * ALLOW_ENTRIES + 8, 0x2000, 0x8000, 0xFFFC]
        for a in unmapped:
            r = await h.axil.read(a, 4)
            if r.resp != AxiResp.SLVERR:
                errs.append(f"read unmapped 0x{a:04x}: {r.resp!r}")
            w = await h.axil.write(a, b"\x01\x00\x00\x00")
            if w.resp != AxiResp.SLVERR:
                errs.append(f"write unmapped 0x{a:04x}: {w.resp!r}")
        read_only = [REG_ID, REG_PARAMS, REG_CNT_BASE, REG_CNT_BASE + 4, REG_CNT_BASE + 8, REG_CNT_BASE + 12,
                     REG_CNT_BASE + 16 * 13, REG_TX_BASE, REG_TX_BASE + 4, REG_TX_BASE + 8, REG_TX_BASE + 12]
        for a in read_only:
            w = await h.axil.write(a, b"\x00\x00\x00\x00")
            if w.resp != AxiResp.SLVERR:
                errs.append(f"write read-only 0x{a:04x}: {w.resp!r}")
            r = await h.axil.read(a, 4)
            if r.resp != AxiResp.OKAY:
                errs.append(f"read 0x{a:04x}: {r.resp!r}")
        # reading the write-only COUNTER_CLEAR is not specified: it must only answer
        r = await h.axil.read(REG_COUNTER_CLEAR, 4)
        dut._log.info("read of write-only COUNTER_CLEAR answers %r", r.resp)
        # the block still works and the registers are intact after the errors
        if await h.read32(REG_ID) != ID_VALUE:
            errs.append("ID after errors")
        if await h.read32(REG_PARAMS) != (ALLOW_ENTRIES << 16 | h.data_w):
            errs.append("PARAMS after errors")

    await with_timeout(go(), 200, "us")
    for e in errs:
        dut._log.error(e)
    assert not errs, f"{len(errs)} register errors: {errs[:6]}"


@cocotb.test()
async def test_contract_cases(dut):
    """(a)+(b) every case of docs/gre_decap.md, three flow-control regimes, default config;
    counters over AXI-Lite equal the model's tallies."""
    h = await setup(dut)
    await h.clear_counters()
    cases = F.contract_cases()
    errs = []
    for n, (idle, stall) in enumerate([(0.0, 0.0), (0.3, 0.3), (0.6, 0.8)]):
        errs += await h.run_cases(cases, GreConfig(), idle, stall, seed=100 + n, label=f"contract{n}")
    # rx errors on every case
    bad = [F.Case(c.frame, True, c.kind + "+rxerr") for c in cases]
    errs += await h.run_cases(bad, GreConfig(), 0.2, 0.2, seed=7, label="contract_rxerr")
    errs += await h.check_counters("contract")
    assert not errs, f"{len(errs)} mismatches, first: {errs[0]}"


@cocotb.test()
async def test_allow_list_and_policy(dut):
    """(c) allow-list entries (listed pass, unlisted / IPv6 dropped, invalidated entries stop
    matching), POLICY_DROP_PASS / DROP_PUNT / FORWARD_MALFORMED; counters after each phase."""
    h = await setup(dut)
    rng = random.Random(3)
    errs = []
    pairs = [(ip("10.0.0.1"), ip("10.0.0.2")), (ip("192.0.2.7"), ip("198.51.100.9")),
             (ip("203.0.113.1"), ip("203.0.113.2"))]

    def g(src, dst, proto=0x0800, **kw):
        inner = F.seed_gre_frame(rng.getrandbits(16))[38:] if proto == 0x0800 else bytes(range(64))
        return F.gre_frame(inner, proto=proto, src=src, dst=dst, **kw).frame

    def C(kind, frame, bad=False):
        return F.Case(frame, bad, kind)

    allow_cases = [
        C("listed0", g("10.0.0.1", "10.0.0.2")),
        C("listed1", g("192.0.2.7", "198.51.100.9", k=True)),
        C("listed_teb", g("203.0.113.1", "203.0.113.2", proto=0x6558)),
        C("listed_punt", g("192.0.2.7", "198.51.100.9", proto=0x88BE)),
        C("swapped", g("10.0.0.2", "10.0.0.1")),
        C("half", g("10.0.0.1", "198.51.100.9")),
        C("unlisted", g("8.8.8.8", "9.9.9.9")),
        C("unlisted_punt", g("8.8.8.8", "9.9.9.9", proto=0x0000)),
        C("ipv6_outer", g("::1", "::2", v6=True)),
        C("plain", F.seed_tcp_frame(1)),
        C("malformed_unlisted", g("8.8.8.8", "9.9.9.9", frag=1)),
        C("ecn_unlisted", g("8.8.8.8", "9.9.9.9", outer_ecn=3)),
    ]
    # entries at 0, 5 and the last index; index 1 valid then invalidated
    await h.clear_counters()
    await h.program(GreConfig(), clear_to=ALLOW_ENTRIES)
    for idx, (s, d) in zip((0, 5, ALLOW_ENTRIES - 1), pairs):
        base = REG_ALLOW_BASE + 16 * idx
        await h.write32(base + 8, 0)
        await h.write32(base, s)
        await h.write32(base + 4, d)
        await h.write32(base + 8, 1)
    await h.write32(REG_ALLOW_BASE + 16 + 0, ip("8.8.8.8"))
    await h.write32(REG_ALLOW_BASE + 16 + 4, ip("9.9.9.9"))
    await h.write32(REG_ALLOW_BASE + 16 + 8, 1)
    await h.write32(REG_ALLOW_BASE + 16 + 8, 0)  # written, then invalidated
    cfg = GreConfig(allow_enable=True, allow=frozenset(pairs))
    await h.write32(REG_CONTROL, cfg.control)
    errs += await h.run_cases(allow_cases * 3, cfg, 0.2, 0.3, seed=1, label="allow")
    # disabled: the table is ignored
    await h.write32(REG_CONTROL, GreConfig().control)
    errs += await h.run_cases(allow_cases, GreConfig(), 0.0, 0.0, seed=2, label="allow_off")
    # the entry now lists 8.8.8.8 -> 9.9.9.9 (validated last)
    await h.write32(REG_ALLOW_BASE + 16 + 8, 1)
    cfg2 = GreConfig(allow_enable=True, allow=frozenset(pairs + [(ip("8.8.8.8"), ip("9.9.9.9"))]))
    await h.write32(REG_CONTROL, cfg2.control)
    errs += await h.run_cases(allow_cases, cfg2, 0.1, 0.1, seed=3, label="allow_more")
    await h.write32(REG_ALLOW_BASE + 16 + 8, 0)
    errs += await h.check_counters("allow")

    # policy bits, each alone and all together, over a mix of classes
    policy_cases = [
        C("pass", F.seed_tcp_frame(2)),
        C("pass_short", F.seed_tcp_frame(3)[:20]),
        C("pass_arp", F.plain_frame(rng, 60, kind="arp")),
        C("punt", g("1.1.1.1", "2.2.2.2", proto=0x88BE)),
        C("punt_keepalive", g("1.1.1.1", "2.2.2.2", proto=0x0000)),
        C("decap", g("1.1.1.1", "2.2.2.2")),
        C("teb", g("1.1.1.1", "2.2.2.2", proto=0x6558)),
        C("ip_header", g("1.1.1.1", "2.2.2.2", tlen=10)),
        C("ip_checksum", g("1.1.1.1", "2.2.2.2", ip_csum=0x1234)),
        C("fragment", g("1.1.1.1", "2.2.2.2", ip_flags=1)),
        C("gre_header", g("1.1.1.1", "2.2.2.2", gre_extra_flags=1)),
        C("truncated_early", g("1.1.1.1", "2.2.2.2", pad_to_min=False)[:36]),
        C("truncated_late", g("1.1.1.1", "2.2.2.2", tlen=1400)),
        C("gre_checksum", g("1.1.1.1", "2.2.2.2", c=True, gre_chksum=0x0BAD)),
        C("ecn", g("1.1.1.1", "2.2.2.2", outer_ecn=3, proto=0x86DD)),
        C("pass_rxerr", F.seed_tcp_frame(4), True),
        C("punt_rxerr", g("1.1.1.1", "2.2.2.2", proto=0x88BE), True),
        C("malformed_rxerr", g("1.1.1.1", "2.2.2.2", ip_flags=1), True),
    ]
    for n, cfgp in enumerate([GreConfig(drop_pass=True), GreConfig(drop_punt=True), GreConfig(forward_malformed=True),
                              GreConfig(drop_pass=True, drop_punt=True, forward_malformed=True)]):
        await h.clear_counters()
        await h.write32(REG_CONTROL, cfgp.control)
        errs += await h.run_cases(policy_cases * 2, cfgp, 0.2, 0.2, seed=10 + n, label=f"policy{n}")
        errs += await h.check_counters(f"policy{n}")
    await h.write32(REG_CONTROL, 0)
    assert not errs, f"{len(errs)} mismatches, first: {errs[0]}"


@cocotb.test()
async def test_random_frames(dut):
    """(e) ~1500 random frames across the contract, random idle and backpressure, three
    configurations; counters checked at the end of each."""
    h = await setup(dut)
    rng = random.Random(0xC0FFEE + h.data_w)
    errs = []
    phases = [
        (GreConfig(), None, 0.3, 0.4),
        (GreConfig(forward_malformed=True, drop_punt=True), None, 0.1, 0.6),
        (GreConfig(allow_enable=True, allow=frozenset({(ip("10.0.0.1"), ip("10.0.0.2"))}), drop_pass=True),
         [(ip("10.0.0.1"), ip("10.0.0.2"))], 0.5, 0.2),
    ]
    for n, (cfg, entries, idle, stall) in enumerate(phases):
        await h.clear_counters()
        await h.program(cfg, entries, clear_to=2)
        cases = [F.random_gre_case(rng, big=0.03) for _ in range(500)]
        errs += await h.run_cases(cases, cfg, idle, stall, seed=1000 + n, label=f"random{n}")
        errs += await h.check_counters(f"random{n}")
    assert not errs, f"{len(errs)} mismatches, first: {errs[0]}"
