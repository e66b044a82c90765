"""cocotb tests of rtl/tunnel/vtep_top.sv against the golden model (docs/vxlan.md).

Both directions always run at once (s_net_axis -> m_host_axis decap, s_host_axis -> m_net_axis
encap), with random idle on the inputs and backpressure on the outputs.

(a) registers: IDs, PORT/PORT2 reset values, CONTROL read-back, table geometry, SLVERR
(b) every contract case of both directions, three flow-control regimes; counters == model tallies
(c) configuration: VNI table (push / no push / unknown), strict, PORT/PORT2, drop PASS, drop miss
(d) random frames of both directions, random configuration changes between batches
(e) the seed's traffic (804-byte VXLAN frames, VNIs and tunnels per direction; scaled down)
(f) the decap's latency in cycles, exactly (docs/vxlan.md, "Structure and latency")
(g) the encap's latency in cycles, exactly (docs/vxlan.md, "Encap")
(replay) env WIRESPEED_VTEP_JOB: run a job file (tb/vtep/vtep_job.py) and write the outputs
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import cocotb
from cocotb.triggers import ClockCycles, RisingEdge, with_timeout
from cocotbext.axi import AxiResp

from vtep_job import ENV_JOB, ENV_RESULT, Job, OutFrame, Result
from vtep_tb import (
    DECAP,
    DECAP_ID,
    ENCAP,
    ENCAP_ID,
    REG_CNT,
    REG_CONTROL,
    REG_ID,
    REG_PORT,
    REG_PORT2,
    TUN_TBL,
    VNI_TBL,
    Case,
    Harness,
)
from wirespeed.model import vxlan_frames as VF
from wirespeed.model import vxlan as VM
from wirespeed.model.vxlan import NUM_DECAP_OUTCOMES, NUM_ENCAP_OUTCOMES, DecapConfig, EncapConfig
from wirespeed.regmap import CNT_STRIDE
from wirespeed.table import TBL_INFO, TBL_VALUE_W

REPLAY = bool(os.environ.get(ENV_JOB))
SEED_VNIS = int(os.environ.get("WS_SEED_VNIS", "256"))
RANDOM_N = int(os.environ.get("WS_RANDOM_N", "300"))


def cases(lst) -> list[Case]:
    return [Case(c.frame, c.bad, c.kind) for c in lst]


async def setup(dut) -> Harness:
    h = Harness(dut)
    await h.reset()
    return h


@cocotb.test(skip=REPLAY)
async def test_registers(dut):
    """(a) IDs, PORT/PORT2 reset values and read-back, CONTROL read-back, table geometry;
    SLVERR on unmapped addresses and on writes to read-only registers."""
    h = await setup(dut)
    errs = []

    async def go():
        if await h.read32(DECAP + REG_ID) != DECAP_ID:
            errs.append("decap ID")
        if await h.read32(ENCAP + REG_ID) != ENCAP_ID:
            errs.append("encap ID")
        if (v := await h.read32(DECAP + REG_PORT)) & 0xFFFF != 4789:
            errs.append(f"PORT reset {v}")
        if (v := await h.read32(DECAP + REG_PORT2)) & 0xFFFF != 8472:
            errs.append(f"PORT2 reset {v}")
        for v in (0xF, 0x5, 0xA, 0x0):
            await h.write32(DECAP + REG_CONTROL, v)
            if (g := await h.read32(DECAP + REG_CONTROL)) & 0xF != v:
                errs.append(f"decap CONTROL wrote {v:#x} read {g:#x}")
        for v in (1, 0):
            await h.write32(ENCAP + REG_CONTROL, v)
            if (g := await h.read32(ENCAP + REG_CONTROL)) & 1 != v:
                errs.append(f"encap CONTROL wrote {v:#x} read {g:#x}")
        for reg, v in ((REG_PORT, 9999), (REG_PORT, 4789), (REG_PORT2, 1234), (REG_PORT2, 8472)):
            await h.write32(DECAP + reg, v)
            if (g := await h.read32(DECAP + reg)) & 0xFFFF != v:
                errs.append(f"port reg {reg:#x} wrote {v} read {g}")
        for base, kw, vw in ((VNI_TBL, 24, 13), (TUN_TBL, 45, 214)):
            info = await h.read32(base + TBL_INFO)
            if info >> 16 != kw or (info >> 8) & 0xFF != 4:
                errs.append(f"table 0x{base:04x} TBL_INFO 0x{info:08x}")
            if await h.read32(base + TBL_VALUE_W) != vw:
                errs.append(f"table 0x{base:04x} TBL_VALUE_W")
            dut._log.info("table 0x%04x: %d slots", base, 1 << (info & 0xFF))
        # the first counter slot past each block's outcomes is unmapped
        for a in (0x4000, 0x8000, 0xFFFC, DECAP + 0x0FFC, ENCAP + 0x0FFC,
                  DECAP + REG_CNT + CNT_STRIDE * NUM_DECAP_OUTCOMES,
                  ENCAP + REG_CNT + CNT_STRIDE * NUM_ENCAP_OUTCOMES):
            r = await h.axil.read(a, 4)
            if r.resp != AxiResp.SLVERR:
                errs.append(f"read unmapped 0x{a:04x}: {r.resp!r}")
            w = await h.axil.write(a, b"\x01\x00\x00\x00")
            if w.resp != AxiResp.SLVERR:
                errs.append(f"write unmapped 0x{a:04x}: {w.resp!r}")
        for a in (DECAP + REG_ID, ENCAP + REG_ID, DECAP + REG_CNT, DECAP + REG_CNT + 4, ENCAP + REG_CNT, VNI_TBL + TBL_INFO,
                  TUN_TBL + TBL_VALUE_W):
            w = await h.axil.write(a, b"\x00\x00\x00\x00")
            if w.resp != AxiResp.SLVERR:
                errs.append(f"write read-only 0x{a:04x}: {w.resp!r}")
        if await h.read32(DECAP + REG_ID) != DECAP_ID:
            errs.append("decap ID after errors")

    await with_timeout(go(), 500, "us")
    for e in errs:
        dut._log.error(e)
    assert not errs, f"{len(errs)} register errors: {errs[:6]}"


def _tables(seed=5):
    rng = random.Random(seed)
    tunnels = VF.random_tunnels(rng, 24)
    vnis = {42: (100, True), 0x123456: (0, False), 7: (4095, True), 0xFFFFFF: (1, False)}
    return tunnels, vnis


@cocotb.test(skip=REPLAY)
async def test_contract_both_directions(dut):
    """(b) every decap and encap contract case, both directions at once, three flow-control
    regimes; default decap config then the VNI table; counters == model tallies."""
    h = await setup(dut)
    tunnels, vnis = _tables()
    dcases = cases(VF.decap_contract_cases(vnis=(42, 0x123456)))
    ecases = cases(VF.encap_contract_cases(tunnels))
    errs = []
    for n, (dcfg, idle, stall) in enumerate([
        (DecapConfig(), 0.0, 0.0),
        (DecapConfig(), 0.3, 0.3),
        (DecapConfig(vni_table=vnis), 0.6, 0.8),
        (DecapConfig(vni_table=vnis, strict=True, port2=8472), 0.1, 0.5),
    ]):
        ecfg = EncapConfig(tunnels=tunnels, drop_miss=(n == 3))
        await h.configure(dcfg, ecfg)
        before = await h.snapshot()
        mark_d, mark_e = len(h.decap_results), len(h.encap_results)
        e, *_ = await h.run(dcases, ecases, dcfg, ecfg, idle, stall, seed=100 + n, label=f"contract{n}")
        errs += e
        errs += await h.check_counters(before, h.decap_results[mark_d:], h.encap_results[mark_e:], f"contract{n}")
    assert not errs, f"{len(errs)} mismatches, first: {errs[0]}"


@cocotb.test(skip=REPLAY)
async def test_configuration(dut):
    """(c) PORT/PORT2, strict reserved bits, drop PASS, drop on miss, table entries added,
    changed and deleted between batches."""
    h = await setup(dut)
    rng = random.Random(9)
    tunnels, vnis = _tables(6)
    inner = VF.inner_frame(rng, 100, "tcp4")
    net = [
        Case(VF.vxlan_frame(42, inner).frame, kind="vni42"),
        Case(VF.vxlan_frame(43, inner).frame, kind="vni43"),
        Case(VF.vxlan_frame(42, inner, dport=8472).frame, kind="port8472"),
        Case(VF.vxlan_frame(42, inner, dport=9999).frame, kind="port9999"),
        Case(VF.vxlan_frame(42, inner, rsv1=5).frame, kind="reserved"),
        Case(VF.vxlan_frame(42, inner, flags=0x0C).frame, kind="reserved_flag"),
        Case(VF.inner_frame(rng, 80, "udp4"), kind="plain"),
        Case(VF.vxlan_frame(7, inner).frame, kind="vni7"),
    ]
    keys = list(tunnels)
    host = [Case(VF.host_frame(rng, dst, vid, 120), kind="hit") for vid, dst in keys[:6]]
    host += [Case(VF.host_frame(rng, "203.0.113.5", None, 120), kind="miss"),
             Case(VF.inner_frame(rng, 100, "udp6"), kind="ipv6")]
    configs = [
        (DecapConfig(), EncapConfig(tunnels)),
        (DecapConfig(port2=8472), EncapConfig(tunnels, drop_miss=True)),
        (DecapConfig(port=9999), EncapConfig(dict(keys and {keys[0]: tunnels[keys[0]]}))),
        (DecapConfig(port=9999, port2=4789, strict=True), EncapConfig({})),
        (DecapConfig(vni_table={42: (5, True)}, drop_pass=True), EncapConfig(tunnels)),
        (DecapConfig(vni_table={42: (6, False), 7: (1, True)}), EncapConfig(dict(list(tunnels.items())[3:]))),
        (DecapConfig(vni_table={}), EncapConfig(tunnels, drop_miss=True)),
        (DecapConfig(), EncapConfig(tunnels)),
    ]
    errs = []
    for n, (dcfg, ecfg) in enumerate(configs):
        await h.configure(dcfg, ecfg)
        before = await h.snapshot()
        mark_d, mark_e = len(h.decap_results), len(h.encap_results)
        e, *_ = await h.run(net * 2, host * 2, dcfg, ecfg, 0.2, 0.2, seed=n, label=f"config{n}")
        errs += e
        errs += await h.check_counters(before, h.decap_results[mark_d:], h.encap_results[mark_e:], f"config{n}")
    assert not errs, f"{len(errs)} mismatches, first: {errs[0]}"


@cocotb.test(skip=REPLAY)
async def test_oversize(dut):
    """Host frames around the encap FIFO size (32768 bytes): the largest that fits is
    encapsulated, longer ones are DROP_OVERSIZE (also with an RX error), and the frames after
    them are not disturbed. The network port carries big frames at the same time."""
    h = await setup(dut)
    rng = random.Random(12)
    tunnels, vnis = _tables(7)
    ecfg = EncapConfig(tunnels)
    dcfg = DecapConfig()
    await h.configure(dcfg, ecfg)
    vid, dst = next(iter(tunnels))
    base = VF.host_frame(rng, dst, vid, 100, "udp")
    host = []
    for n, bad in ((32768, False), (32769, False), (9600, False), (40000, False), (33000, True), (32768, True),
                   (100, False), (32767, False), (64, False)):
        host.append(Case(base + bytes(max(0, n - len(base))) if n >= len(base) else base[:n], bad, f"len{n}"))
    net = [Case(VF.vxlan_frame(42, VF.inner_frame(rng, n, "udp4"), pad_to_min=False).frame, kind=f"net{n}")
           for n in (9000, 20000, 30000, 100)]
    before = await h.snapshot()
    e, *_ = await h.run(net, host, dcfg, ecfg, 0.1, 0.2, seed=5, label="oversize")
    e += await h.check_counters(before, h.decap_results, h.encap_results, "oversize")
    assert not e, f"{len(e)} mismatches, first: {e[0]}"


@cocotb.test(skip=REPLAY)
async def test_random_both_directions(dut):
    """(d) random frames across both contracts, random configuration per batch, random idle and
    backpressure on every stream."""
    h = await setup(dut)
    rng = random.Random(int(os.environ.get("WS_SEED", "1")))
    errs = []
    batches = 3
    per = max(1, RANDOM_N // batches)
    for b in range(batches):
        tunnels = VF.random_tunnels(rng, rng.choice((8, 40)))
        vni_list = [rng.getrandbits(24) for _ in range(6)]
        vt = {v: (rng.randint(0, 4095), rng.random() < 0.5) for v in vni_list[:4]} if rng.random() < 0.6 else None
        dcfg = DecapConfig(port2=8472 if rng.random() < 0.5 else None, strict=rng.random() < 0.3, vni_table=vt,
                           drop_pass=rng.random() < 0.2)
        ecfg = EncapConfig(tunnels, drop_miss=rng.random() < 0.3)
        await h.configure(dcfg, ecfg)
        net = cases(VF.random_vxlan_case(rng, max_len=9600, big=0.03, vnis=vni_list) for _ in range(per))
        host = cases(VF.random_host_frame(rng, tunnels, max_len=9600, big=0.03) for _ in range(per))
        before = await h.snapshot()
        mark_d, mark_e = len(h.decap_results), len(h.encap_results)
        idle, stall = rng.choice((0.0, 0.2, 0.5)), rng.choice((0.0, 0.3, 0.7))
        e, *_ = await h.run(net, host, dcfg, ecfg, idle, stall, seed=1000 + b, label=f"random{b}")
        errs += e
        errs += await h.check_counters(before, h.decap_results[mark_d:], h.encap_results[mark_e:], f"random{b}")
    assert not errs, f"{len(errs)} mismatches, first: {errs[0]}"


@cocotb.test(skip=REPLAY)
async def test_seed_traffic(dut):
    """(e) the seed's traffic: 804-byte VXLAN frames on the network port (one VNI per stream,
    pushed as a VLAN), 758-byte VLAN-tagged host frames encapsulated to 804 bytes, both ports
    back to back; WS_SEED_VNIS streams per direction (the seed's 4096 with WS_SEED_VNIS=4096)."""
    h = await setup(dut)
    st = VF.seed_vxlan_frames(2 * SEED_VNIS, vnis=SEED_VNIS)
    await h.configure(st.decap_cfg, st.encap_cfg)
    before = await h.snapshot()
    start = h.cycle
    e, host_rx, net_rx, _ = await h.run([Case(f, kind="seed") for f in st.net], [Case(f, kind="seed") for f in st.host],
                                        st.decap_cfg, st.encap_cfg, label="seed")
    cycles = h.cycle - start
    errs = e + await h.check_counters(before, h.decap_results, h.encap_results, "seed")
    beats_in = len(st.net) * -(-804 // h.keep_w)
    dut._log.info("seed: %d + %d frames in %d cycles (%d input beats per direction)", len(st.net), len(st.host),
                  cycles, beats_in)
    assert not errs, f"{len(errs)} mismatches, first: {errs[0]}"


@cocotb.test(skip=REPLAY)
async def test_decap_latency(dut):
    """(f) One frame at a time into the idle decap, output never stalled: the cycles from its
    first input handshake to its first output handshake are exactly the contract's
    (wirespeed.model.vxlan.latency_cycles: the beat completing the 128-byte window + 11 + the
    edit engine's latency + the slot of the first byte kept), and its last output beat is
    taken the window's beat + 11 + the engine's latency after its last input beat (the
    engine issues one slot per input beat: the lag of the descriptor stays to the end). Frames of every kind of D: PASS (0), VXLAN
    over IPv4 with and without a pushed tag (K - 4, K), options and tags (larger K), IPv6,
    frames shorter and longer than the window."""
    h = await setup(dut)
    rng = random.Random(27)
    dcfg = DecapConfig(vni_table={42: (100, True), 7: (5, False)})
    await h.configure(dcfg, EncapConfig({}))
    frames = []
    for n in (60, 100, 300, 1500):
        inner = VF.inner_frame(rng, n, "udp4")
        frames += [VF.vxlan_frame(42, inner).frame, VF.vxlan_frame(7, inner).frame]
    inner = VF.inner_frame(rng, 200, "tcp4")
    frames += [VF.vxlan_frame(7, inner, ihl=8, tags=(("q", 5), ("q", 6))).frame,
               VF.vxlan_frame(42, inner, v6=True).frame,
               VF.inner_frame(rng, 64, "udp4"), VF.inner_frame(rng, 900, "tcp4")]
    dut = h.dut
    kw = h.keep_w
    lat = VM.EDIT_LATENCY[8 * kw]
    errs = []
    for k, f in enumerate(frames):
        r = VM.decap(f, dcfg, keep_w=kw)
        assert r.output is not None, f"frame {k}: the model does not forward it"
        marks: dict[str, int] = {}

        async def watch():
            while "out_last" not in marks:
                await RisingEdge(dut.clk)
                if int(dut.s_net_axis_tvalid.value) and int(dut.s_net_axis_tready.value):
                    marks.setdefault("in_first", h.cycle)
                    if int(dut.s_net_axis_tlast.value):
                        marks["in_last"] = h.cycle
                if int(dut.m_host_axis_tvalid.value) and int(dut.m_host_axis_tready.value):
                    marks.setdefault("out_first", h.cycle)
                    if int(dut.m_host_axis_tlast.value):
                        marks["out_last"] = h.cycle

        w = cocotb.start_soon(watch())
        await h.net_src.send(bytes(f))
        out = await with_timeout(h.host_snk.recv(), 100, "us")
        await w
        await ClockCycles(dut.clk, 40)
        want = VM.latency_cycles(f, kw, dcfg)
        got = marks["out_first"] - marks["in_first"]
        tail = marks["out_last"] - marks["in_last"]
        want_tail = ((min(len(f), VM.HDR_WINDOW) - 1) // kw + VM.DECIDE_CYCLES
                     + VM.KEEP_CHECK_CYCLES[8 * kw] + lat)
        if bytes(out.tdata) != r.output or got != want or tail != want_tail:
            errs.append(f"frame {k} ({len(f)} B, {r.outcome.name}, D {VM.decap_skip(f, dcfg)}): "
                        f"first beat {got} cycles (contract {want}), last beat {tail} "
                        f"(contract {want_tail}), output {'ok' if bytes(out.tdata) == r.output else 'WRONG'}")
        else:
            dut._log.info("frame %d (%d B, %s): %d cycles, last beat +%d", k, len(f), r.outcome.name,
                          got, tail)
    assert not errs, f"{len(errs)} latency errors: {errs}"


@cocotb.test(skip=REPLAY)
async def test_encap_latency(dut):
    """(g) One host frame at a time into the idle encap, output never stalled: the cycles from
    its first input handshake to its first output handshake are exactly the contract's
    (wirespeed.model.vxlan.encap_latency_cycles: the frame stored whole, the input registers'
    and the FIFO's 5 cycles, the beat completing the classifier's window + 10 + the edit engine's
    latency), and its output takes the cycles of encap_output_cycles (its beats, or the
    engine's slots).
    Encapsulated with and without the tag removed (D -50, -46), IPv4 options, a miss and a
    non-IPv4 frame (D 0), frames shorter and longer than the window."""
    h = await setup(dut)
    rng = random.Random(28)
    dst_plain, dst_tag = 0x0A000001, 0x0A000002
    tun = VM.Tunnel(vni=0x123456, dst_mac=bytes(range(1, 7)), src_mac=bytes(range(7, 13)),
                    src_ip=0xC0A80001, dst_ip=0xC0A80002, ttl=33, dscp=5)
    ecfg = EncapConfig({(None, dst_plain): tun, (100, dst_tag): tun})
    await h.configure(DecapConfig(), ecfg)
    frames = []
    for n in (60, 64, 100, 300, 754, 1500):
        frames += [VF.host_frame(rng, dst_plain, length=n, l4="udp"),
                   VF.host_frame(rng, dst_tag, vlan=100, length=n, l4="tcp")]
    frames += [VF.host_frame(rng, dst_plain, length=200, l4="tcp", ihl=15),
               VF.host_frame(rng, 0x0B000001, length=120, l4="udp"),
               bytes(12) + b"\x08\x06" + bytes(rng.getrandbits(8) for _ in range(80))]
    dut = h.dut
    kw = h.keep_w
    errs = []
    for k, f in enumerate(frames):
        r = VM.encap(f, ecfg)
        assert r.output is not None, f"frame {k}: the model does not forward it"
        marks: dict[str, int] = {}

        async def watch():
            while "out_last" not in marks:
                await RisingEdge(dut.clk)
                if int(dut.s_host_axis_tvalid.value) and int(dut.s_host_axis_tready.value):
                    marks.setdefault("in_first", h.cycle)
                if int(dut.m_net_axis_tvalid.value) and int(dut.m_net_axis_tready.value):
                    marks.setdefault("out_first", h.cycle)
                    if int(dut.m_net_axis_tlast.value):
                        marks["out_last"] = h.cycle

        w = cocotb.start_soon(watch())
        await h.host_src.send(bytes(f))
        out = await with_timeout(h.net_snk.recv(), 100, "us")
        await w
        await ClockCycles(dut.clk, 40)
        want = VM.encap_latency_cycles(f, kw)
        got = marks["out_first"] - marks["in_first"]
        span = marks["out_last"] - marks["out_first"] + 1
        want_span = VM.encap_output_cycles(f, kw, ecfg)
        if bytes(out.tdata) != r.output or got != want or span != want_span:
            errs.append(f"frame {k} ({len(f)} B, {r.outcome.name}): first beat {got} cycles "
                        f"(contract {want}), output in {span} cycles (contract {want_span}), output "
                        f"{'ok' if bytes(out.tdata) == r.output else 'WRONG'}")
        else:
            dut._log.info("frame %d (%d B, %s): %d cycles", k, len(f), r.outcome.name, got)
    assert not errs, f"{len(errs)} latency errors: {errs}"


@cocotb.test(skip=not REPLAY)
async def test_replay(dut):
    """Run the job file named by WIRESPEED_VTEP_JOB, write the outputs to WIRESPEED_VTEP_RESULT."""
    job = Job.from_json(Path(os.environ[ENV_JOB]).read_text())
    h = await setup(dut)
    await h.configure(job.decap, job.encap)
    before = await h.snapshot()
    net = [Case(f, bool(job.net_bad and job.net_bad[i])) for i, f in enumerate(job.net)]
    host = [Case(f, bool(job.host_bad and job.host_bad[i])) for i, f in enumerate(job.host)]
    _, host_rx, net_rx, tv = await h.run(net, host, job.decap, job.encap, job.idle, job.stall, job.seed,
                                         label="replay", check=False)
    after = await h.snapshot()
    host_out = []
    for j, f in enumerate(host_rx):
        t = tv[j] if j < len(tv) else None
        host_out.append(OutFrame(bytes(f.tdata), h._aborted(f), min(t.tvni) if t and t.tvni else 0,
                                 bool(t and 1 in t.tvni_valid)))
    net_out = [OutFrame(bytes(f.tdata), h._aborted(f)) for f in net_rx]
    res = Result(host_out, net_out, [a - b for a, b in zip(after[0][0], before[0][0])],
                 [a - b for a, b in zip(after[1][0], before[1][0])])
    Path(os.environ[ENV_RESULT]).write_text(res.to_json())
