"""cocotb tests of rtl/tunnel/geneve_decap.sv against the golden model (docs/geneve.md).

(a) registers: ID, PARAMS, PORT's reset, CONTROL read back, SLVERR above the table's window
(b) every contract case (wirespeed.model.geneve_frames) under four configurations, random idle
    and backpressure, frame by frame and byte for byte, m_axis_tvni, counters balanced
(c) random frames: options of 0..252 bytes, tags, IPv4/IPv6 outers, every protocol type, ECN,
    O/C/version, bad UDP checksums, truncations at random, RX errors, random configurations
(d) latency: one frame at a time on an idle pipeline, every frame that leaves whole against
    the contract's formula (wirespeed.model.geneve.latency_cycles)
(e) a real capture (geneve.pcap from the shared captures) under three configurations

GENEVE_RANDOM (frames for (c)) and GENEVE_LATENCY (frames for (d)) size the runs.
"""

from __future__ import annotations

import os
import random

import cocotb
from cocotbext.axi import AxiResp
from scapy.layers.inet import ICMP, IP, TCP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import ARP, Ether
from scapy.packet import Raw

from geneve_tb import ID_VALUE, REG_CONTROL, REG_ID, REG_PARAMS, REG_PORT, Harness
from wirespeed import pcap
from wirespeed.model.frames import MAC_A, MAC_B, Case
from wirespeed.model.geneve import GENEVE_PORT, GeneveConfig, Outcome, decap, latency_cycles
from wirespeed.model.geneve_frames import CONTRACT_VNI, contract_cases, geneve_frame, option_tlvs
from wirespeed.paths import CAPTURES

VNI_SLOTS = 8192


async def setup(dut) -> Harness:
    h = Harness(dut)
    await h.reset()
    return h


@cocotb.test()
async def test_registers(dut):
    """(a)"""
    h = await setup(dut)
    errs = []
    if await h.read32(REG_ID) != ID_VALUE:
        errs.append("ID")
    params = await h.read32(REG_PARAMS)
    if params != ((VNI_SLOTS.bit_length() - 1) << 16 | h.data_w):
        errs.append(f"PARAMS {params:#x}")
    if await h.read32(REG_PORT) != GENEVE_PORT:
        errs.append("PORT reset")
    for v in (0xF, 0x5, 0x0):
        await h.write32(REG_CONTROL, v)
        if (await h.read32(REG_CONTROL)) != v:
            errs.append(f"CONTROL {v:#x}")
    for a in (0x2000, 0x8000, 0xFFFC):
        r = await h.axil.read(a, 4)
        if r.resp != AxiResp.SLVERR:
            errs.append(f"read {a:#x}: {r.resp!r}")
    assert not errs, errs


def configs() -> list[tuple[str, GeneveConfig]]:
    return [
        ("reset", GeneveConfig()),
        ("table_push", GeneveConfig(vni_table={CONTRACT_VNI: (0x123, True), 0x000777: (5, False)})),
        ("table_plain_critpunt", GeneveConfig(vni_table={CONTRACT_VNI: (9, False)}, critical_punt=True)),
        ("drops", GeneveConfig(drop_pass=True, drop_punt=True)),
    ]


@cocotb.test()
async def test_contract_cases(dut):
    """(b)"""
    h = await setup(dut)
    errs = []
    cases = contract_cases()
    for k, (name, cfg) in enumerate(configs()):
        await h.configure(cfg)
        await h.clear_counters()
        errs += await h.run_cases(cases, cfg, idle=0.3, stall=0.3, seed=k, label=f"contract_{name}")
        errs += await h.check_counters(f"contract_{name}")
    assert not errs, f"{len(errs)} mismatches"


def _inner(rng: random.Random):
    tos = rng.randrange(256)
    pay = Raw(bytes(rng.getrandbits(8) for _ in range(rng.choice((0, 6, 30, 200, 700)))))
    k = rng.randrange(6)
    if k == 0:
        return (Ether(dst="aa:bb:cc:dd:ee:01", src="aa:bb:cc:dd:ee:02") / IP(src="192.168.1.1", dst="192.168.2.2",
                tos=tos) / TCP(sport=1, dport=2) / pay), None
    if k == 1:
        return (Ether(dst="aa:bb:cc:dd:ee:01", src="aa:bb:cc:dd:ee:02") / IPv6(tc=tos) / UDP(sport=3, dport=4)
                / pay), None
    if k == 2:
        return Ether(dst="ff:ff:ff:ff:ff:ff", src="aa:bb:cc:dd:ee:02") / ARP(), None
    if k == 3:
        return IP(src="192.168.1.1", dst="192.168.2.2", tos=tos) / ICMP() / pay, None
    if k == 4:
        return IPv6(tc=tos) / UDP(sport=5, dport=6) / pay, None
    return Raw(bytes(rng.getrandbits(8) for _ in range(rng.choice((2, 13, 40, 120))))), rng.choice(
        (0x6558, 0x0800, 0x86DD, 0x8847, 0x894F))


def random_case(rng: random.Random, vnis: list[int]) -> Case:
    """One frame of (c)."""
    if rng.random() < 0.08:
        f = bytes(Ether(dst=MAC_B, src=MAC_A) / IP() / UDP(dport=rng.choice((53, 4789, 6080)))
                  / Raw(bytes(rng.randrange(300))))
        return Case(f, rng.random() < 0.1, "pass")
    payload, proto = _inner(rng)
    r = rng.random()
    opt = 0 if r < 0.3 else rng.choice((4, 8, 40, 64, 100, 128, 200, 240, 252)) if r < 0.8 else 4 * rng.randrange(64)
    kw = dict(
        vni=rng.choice(vnis),
        options=option_tlvs(opt, rng) if opt else (),
        tags=rng.choice(((), (), (("q", 10),), (("ad", 7), ("q", 8)))),
        v6=rng.random() < 0.3,
        ecn=rng.randrange(4),
        oam=rng.random() < 0.06,
        critical=rng.random() < 0.06,
        version=1 if rng.random() < 0.03 else 0,
        udp_csum=rng.choice(("auto", "auto", "zero", "bad")) if rng.random() < 0.5 else "auto",
        pad=bytes(rng.choice((0, 0, 0, 7))),
    )
    if proto is not None:
        kw["proto"] = proto
    f = geneve_frame(payload, **kw).frame
    kind = f"opt{opt}"
    if rng.random() < 0.15:
        f = f[: rng.randrange(1, len(f))]
        kind += "_cut"
    bad = rng.random() < 0.08
    return Case(f, bad, kind)


@cocotb.test()
async def test_random(dut):
    """(c)"""
    h = await setup(dut)
    n = int(os.environ.get("GENEVE_RANDOM", "200"))
    rng = random.Random(0x6E5E + h.data_w)
    errs = []
    batch = 50
    for b in range(max(1, n // batch)):
        vnis = [CONTRACT_VNI, 0x000777, rng.randrange(1 << 24)]
        table = None
        if rng.random() < 0.7:
            table = {v: (rng.randrange(4096), rng.random() < 0.5) for v in vnis[: rng.randrange(1, 3)]}
        cfg = GeneveConfig(vni_table=table, critical_punt=rng.random() < 0.5, drop_punt=rng.random() < 0.15,
                           drop_pass=rng.random() < 0.15)
        await h.configure(cfg)
        await h.clear_counters()
        cases = [random_case(rng, vnis) for _ in range(batch)]
        idle, stall = rng.choice(((0.0, 0.0), (0.3, 0.3), (0.0, 0.6), (0.5, 0.0)))
        errs += await h.run_cases(cases, cfg, idle=idle, stall=stall, seed=b, label=f"random{b}")
        errs += await h.check_counters(f"random{b}")
    assert not errs, f"{len(errs)} mismatches"


@cocotb.test()
async def test_latency(dut):
    """(d) latency = model.geneve.latency_cycles (max(t128 + DECIDE_CYCLES, tK + INNER_CYCLES)
    + LATENCY + slot), every frame that leaves whole."""
    h = await setup(dut)
    n = int(os.environ.get("GENEVE_LATENCY", "40"))
    rng = random.Random(0x1A7 + h.data_w)
    cfg = GeneveConfig(vni_table={CONTRACT_VNI: (0x42, True), 0x000777: (3, False)}, critical_punt=True)
    await h.configure(cfg)
    await h.clear_counters()
    cases = [c for c in contract_cases() if not c.bad]
    for opt in (0, 4, 60, 64, 100, 200, 252):
        for pay in (0, 40, 400):
            cases.append(Case(geneve_frame(Ether(dst=MAC_B, src=MAC_A) / IP(tos=1) / Raw(bytes(pay)), ecn=3,
                                           options=opt, vni=0x000777).frame, False, f"teb_opt{opt}"))
    while len(cases) < n + 31:
        c = random_case(rng, [CONTRACT_VNI, 0x000777])
        cases.append(Case(c.frame, False, c.kind))
    errs = await h.run_cases(cases, cfg, label="latency", sequential=True, latency=latency_cycles)
    errs += await h.check_counters("latency")
    assert not errs, f"{len(errs)} mismatches"


@cocotb.test()
async def test_real_capture(dut):
    """(e) a real capture (geneve.pcap, /work/shared/captures/SOURCES.md: ARP and ICMP between
    two hosts over Geneve, VNI 0x7b, Linux-built): every frame decapsulated as the model says,
    with the table off, with the VNI known (a pushed tag) and with the VNI unknown (dropped)."""
    src = CAPTURES / "geneve.pcap"
    assert src.is_file(), f"{src} is missing (the shared captures folder, wirespeed.paths.CAPTURES)"
    h = await setup(dut)
    cases = [Case(f, False, f"geneve_pcap_{i}") for i, f in enumerate(pcap.read_ethernet(src))]
    errs = []
    for k, (name, cfg, outcome) in enumerate((
            ("table_off", GeneveConfig(), Outcome.DECAP_TEB),
            ("vni_push", GeneveConfig(vni_table={0x7B: (0x0AB, True)}), Outcome.DECAP_TEB),
            ("vni_unknown", GeneveConfig(vni_table={0x7C: (1, False)}), Outcome.DROP_UNKNOWN_VNI))):
        # The capture is what it says it is: the model's verdict on every frame.
        assert all(decap(c.frame, cfg).outcome == outcome for c in cases), name
        await h.configure(cfg)
        await h.clear_counters()
        errs += await h.run_cases(cases, cfg, idle=0.2, stall=0.2, seed=k, label=f"pcap_{name}")
        errs += await h.check_counters(f"pcap_{name}")
    assert not errs, f"{len(errs)} mismatches"
