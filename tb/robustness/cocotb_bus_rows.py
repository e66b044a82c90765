"""cocotb bench for the robustness table's bus rows (wirespeed/robustness.py, bus="axis"): MAC RX
errors (tuser = 1 on the last beat) and tkeep holes, which no pcap can carry.

Every bad frame of every row goes in between two good frames (a frame the block decapsulates or
encapsulates), beat by beat exactly as the row says (any tkeep, tuser), with random idle input
cycles and random output backpressure. Checked against the golden model, which sees what
`robustness.bus_frame` says the block sees (the frame up to the last beat's highest set tkeep
bit, at least one byte; bad = tuser or a hole):

- per frame (m_stat): outcome (DROP_RX_ERROR for every bad frame), emit, length;
- the output: the neighbours' bytes exactly as the model's, aborted frames where the model
  aborts, no other frame, and no tkeep hole on the output bus;
- the counters over AXI4-Lite (every outcome, packets and bytes; TX) and the balance.

Tops: `gre_decap` and `geneve_decap` (axis_keep_check inside) and
`vtep_top` (both directions at once). The DUT's ports tell which.
"""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass, field

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, RisingEdge
from cocotbext.axi import AxiLiteBus, AxiLiteMaster, AxiResp

from wirespeed import robustness as RB
from wirespeed.regmap import CNT_BASE, CNT_STRIDE, TX_BASE, VTEP_DECAP, VTEP_ENCAP
from wirespeed.robustness import bus_frame, split_beats

PORTS = {
    "gre_decap": dict(src="s_axis", snk="m_axis", stat="m_stat", base=0x0000),
    "vxlan_decap": dict(src="s_net_axis", snk="m_host_axis", stat="m_decap_stat", base=VTEP_DECAP),
    "vxlan_encap": dict(src="s_host_axis", snk="m_net_axis", stat="m_encap_stat", base=VTEP_ENCAP),
    "geneve_decap": dict(src="s_axis", snk="m_axis", stat="m_stat", base=0x0000),
}
GOOD = {"gre_decap": lambda: RB.gre(), "vxlan_decap": lambda: RB.vx(), "vxlan_encap": lambda: RB.host(),
        "geneve_decap": lambda: RB.gn()}


@dataclass
class Sent:
    label: str            # row id, or "neighbour"
    beats: list
    frame: bytes          # what the block sees
    bad: bool
    result: object = None


@dataclass
class Direction:
    block: str
    sent: list = field(default_factory=list)
    stats: list = field(default_factory=list)       # (outcome, emit, len)
    outs: list = field(default_factory=list)        # (bytes, tuser)
    errors: list = field(default_factory=list)


def sequence(block: str, kw: int) -> list[Sent]:
    good = GOOD[block]()
    seq = [Sent("neighbour", split_beats(good, kw), good, False)]
    for row in RB.rows(block, bus="axis"):
        for beats in row.beats(kw):
            f, bad = bus_frame(beats, kw)
            seq.append(Sent(row.id, beats, f, bad))
            seq.append(Sent("neighbour", split_beats(good, kw), good, False))
    for s in seq:
        s.result = RB.model(block, "default", s.frame, s.bad, kw)
    return seq


async def drive(dut, prefix: str, seq: list[Sent], kw: int, rng: random.Random):
    sig = {n: getattr(dut, f"{prefix}_{n}") for n in ("tdata", "tkeep", "tvalid", "tready", "tlast", "tuser")}
    for s in seq:
        for b in s.beats:
            while rng.random() < 0.2:
                sig["tvalid"].value = 0
                sig["tkeep"].value = rng.getrandbits(kw)  # anything while tvalid is low
                await RisingEdge(dut.clk)
            sig["tdata"].value = int.from_bytes(bytes(b.data).ljust(kw, b"\0"), "little")
            sig["tkeep"].value = b.keep
            sig["tlast"].value = int(b.last)
            sig["tuser"].value = int(b.user)
            sig["tvalid"].value = 1
            while True:
                await RisingEdge(dut.clk)
                if int(sig["tready"].value):
                    break
    sig["tvalid"].value = 0


async def monitor(dut, d: Direction, kw: int, rng: random.Random):
    p = PORTS[d.block]
    snk, stat = p["snk"], p["stat"]
    tvalid, tready = getattr(dut, f"{snk}_tvalid"), getattr(dut, f"{snk}_tready")
    cur = bytearray()
    full = (1 << kw) - 1
    tready.value = 1
    while True:
        await RisingEdge(dut.clk)
        # values as the edge saw them (the handshakes of this edge)
        if int(getattr(dut, f"{stat}_valid").value):
            d.stats.append((int(getattr(dut, f"{stat}_outcome").value), int(getattr(dut, f"{stat}_emit").value),
                            int(getattr(dut, f"{stat}_len").value)))
        if int(tvalid.value) and int(tready.value):
            keep = int(getattr(dut, f"{snk}_tkeep").value)
            last = int(getattr(dut, f"{snk}_tlast").value)
            data = int(getattr(dut, f"{snk}_tdata").value).to_bytes(kw, "little")
            n = keep.bit_length()
            if (not last and keep != full) or (last and (keep == 0 or keep != (1 << n) - 1)):
                d.errors.append(f"{snk}: tkeep {keep:0{kw}b} (last={last}) on the output bus")
            cur += data[: n if last else kw]
            if last:
                d.outs.append((bytes(cur), int(getattr(dut, f"{snk}_tuser").value)))
                cur = bytearray()
        tready.value = int(rng.random() < 0.75)


def compare(d: Direction) -> list[str]:
    errs = list(d.errors)
    names = RB.OUTCOMES[d.block]
    if len(d.stats) != len(d.sent):
        errs.append(f"{d.block}: {len(d.stats)} statuses for {len(d.sent)} frames")
    for i, (s, st) in enumerate(zip(d.sent, d.stats)):
        r = s.result
        oc, emit, ln = st
        if oc != int(r.outcome) or bool(emit) != bool(r.emit) or ln != len(s.frame):
            got = names(oc).name if oc < len(names) else str(oc)
            errs.append(f"{s.label} (frame {i}, {len(s.frame)} B, bad={int(s.bad)}): status {got}/emit={emit}/"
                        f"len={ln}, model {r.outcome.name}/emit={int(r.emit)}/len={len(s.frame)}")
    want = [s for s in d.sent if s.result.emit]
    if len(d.outs) != len(want):
        errs.append(f"{d.block}: {len(d.outs)} frames on the output, model {len(want)}")
    for (data, user), s in zip(d.outs, want):
        r = s.result
        if bool(user) != bool(r.aborted):
            errs.append(f"{s.label}: output tuser={user}, model aborted={int(r.aborted)}")
        elif not user and data != bytes(r.output):
            errs.append(f"{s.label}: output bytes differ from the model's ({len(data)} vs {len(r.output)} B)")
    return errs


async def read64(axil, addr: int) -> int:
    lo = await axil.read(addr, 4)
    hi = await axil.read(addr + 4, 4)
    assert lo.resp == AxiResp.OKAY and hi.resp == AxiResp.OKAY, hex(addr)
    return int.from_bytes(hi.data, "little") << 32 | int.from_bytes(lo.data, "little")


async def check_counters(axil, d: Direction) -> list[str]:
    base = PORTS[d.block]["base"]
    names = RB.OUTCOMES[d.block]
    errs = []
    pk = [0] * len(names)
    by = [0] * len(names)
    for s in d.sent:
        pk[int(s.result.outcome)] += 1
        by[int(s.result.outcome)] += len(s.frame)
    tot = 0
    for n in range(len(names)):
        p = await read64(axil, base + CNT_BASE + CNT_STRIDE * n)
        b = await read64(axil, base + CNT_BASE + CNT_STRIDE * n + 8)
        tot += p
        if (p, b) != (pk[n], by[n]):
            errs.append(f"{d.block}: counter {names(n).name} = {p} pkts / {b} B, model {pk[n]} / {by[n]}")
    txs = [s.result.output for s in d.sent if s.result.output is not None]
    tx_p = await read64(axil, base + TX_BASE)
    tx_b = await read64(axil, base + TX_BASE + 8)
    if (tx_p, tx_b) != (len(txs), sum(map(len, txs))):
        errs.append(f"{d.block}: TX {tx_p} / {tx_b} B, model {len(txs)} / {sum(map(len, txs))} B")
    if tot != len(d.sent):
        errs.append(f"{d.block}: BALANCE: Σ counters {tot} != {len(d.sent)} frames in")
    return errs


@cocotb.test(timeout_time=20, timeout_unit="ms")
async def bus_rows(dut):
    """Every bus row at this width: statuses, output bytes, counters, balance."""
    vtep = hasattr(dut, "s_net_axis_tdata")
    geneve = hasattr(dut, "m_axis_tvni")
    blocks = ["vxlan_decap", "vxlan_encap"] if vtep else ["geneve_decap"] if geneve else ["gre_decap"]
    kw = len(getattr(dut, PORTS[blocks[0]]["src"] + "_tkeep"))
    Clock(dut.clk, 4, unit="ns").start()
    for b in blocks:
        getattr(dut, PORTS[b]["src"] + "_tvalid").value = 0
        getattr(dut, PORTS[b]["snk"] + "_tready").value = 0
    axil = AxiLiteMaster(AxiLiteBus.from_prefix(dut, "s_axil"), dut.clk, dut.rst)
    for bus in (axil.write_if, axil.read_if):
        bus.log.setLevel(logging.WARNING)
    dut.rst.value = 1
    await ClockCycles(dut.clk, 5)
    dut.rst.value = 0
    await ClockCycles(dut.clk, 2)
    if vtep or geneve:  # the tables clear themselves after reset
        tables = (0x2000, 0x3000) if vtep else (RB.GENEVE_VNI_TABLE,)
        for st in (t + 0x14 for t in tables):
            for _ in range(20000):
                r = await axil.read(st, 4)
                if not int.from_bytes(r.data, "little") & 1:
                    break
    for b in blocks:
        for a, v in RB.regs_writes(b, "default"):
            r = await axil.write(a, v.to_bytes(4, "little"))
            assert r.resp == AxiResp.OKAY, hex(a)

    dirs = [Direction(b) for b in blocks]
    rng = random.Random(kw * 31 + len(blocks))
    for d in dirs:
        d.sent = sequence(d.block, kw)
        cocotb.start_soon(monitor(dut, d, kw, random.Random(rng.random())))
    drivers = [cocotb.start_soon(drive(dut, PORTS[d.block]["src"], d.sent, kw, random.Random(rng.random())))
               for d in dirs]
    for t in drivers:
        await t
    for _ in range(400):
        await ClockCycles(dut.clk, 50)
        if all(len(d.stats) >= len(d.sent) and len(d.outs) >= sum(s.result.emit for s in d.sent) for d in dirs):
            break
    await ClockCycles(dut.clk, 300)  # anything extra would show up now
    errs = []
    for d in dirs:
        errs += compare(d)
        errs += await check_counters(axil, d)
        bad = sum(s.bad for s in d.sent)
        dut._log.info("%s at %d bits: %d frames (%d bad) from %d rows, %d statuses, %d frames out",
                      d.block, 8 * kw, len(d.sent), bad, len(RB.rows(d.block, bus="axis")), len(d.stats), len(d.outs))
    assert not errs, "\n".join(errs[:30])
