"""Shared cocotb harness for rtl/tunnel/vtep_top.sv: clock/reset, both directions driven at once
(cocotbext-axi sources/sinks with random idle and backpressure on every stream), AXI-Lite access
to the register map, table programming through wirespeed.table's register writes, an
`m_host_axis_tvni` monitor, and frame-by-frame scoreboards against wirespeed/model/vxlan.py."""

from __future__ import annotations

import logging
import os
import random
from dataclasses import dataclass, field
from pathlib import Path

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, RisingEdge
from cocotbext.axi import (
    AxiLiteBus,
    AxiLiteMaster,
    AxiResp,
    AxiStreamBus,
    AxiStreamFrame,
    AxiStreamSink,
    AxiStreamSource,
)

from wirespeed.model.vxlan import (
    NUM_DECAP_OUTCOMES,
    NUM_ENCAP_OUTCOMES,
    DecapConfig,
    DecapOutcome,
    DecapResult,
    EncapConfig,
    EncapOutcome,
    EncapResult,
    decap,
    encap,
    tally_decap,
    tally_encap,
)
from wirespeed.regmap import (
    CNT_BASE,
    TX_BASE,
    VTEP_DECAP,
    VTEP_ENCAP,
    VTEP_TUNNEL_TABLE,
    VTEP_VNI_TABLE,
    VXLAN_DECAP,
    VXLAN_ENCAP,
)
from wirespeed.table import (
    TBL_INFO,
    TBL_STATUS,
    TBL_VALUE_W,
    TUNNEL_KEY_W,
    TUNNEL_VALUE_W,
    VNI_KEY_W,
    VNI_VALUE_W,
    HashTable,
    pack_tunnel,
    pack_vni,
    tunnel_key,
)

# ---- register map (docs/vxlan.md), from the one source wirespeed/regmap.py ----------------------
DECAP = VTEP_DECAP
ENCAP = VTEP_ENCAP
VNI_TBL = VTEP_VNI_TABLE
TUN_TBL = VTEP_TUNNEL_TABLE
REG_ID = VXLAN_DECAP.reg("ID")
REG_CONTROL = VXLAN_DECAP.reg("CONTROL")
REG_COUNTER_CLEAR = VXLAN_DECAP.reg("COUNTER_CLEAR")
REG_PORT = VXLAN_DECAP.reg("PORT")
REG_PORT2 = VXLAN_DECAP.reg("PORT2")
REG_CNT = CNT_BASE
REG_TX = TX_BASE
DECAP_ID = VXLAN_DECAP.id_value  # "WSVD"
ENCAP_ID = VXLAN_ENCAP.id_value  # "WSVE"


def mismatch_dir() -> Path:
    root = Path(os.environ.get("WIRESPEED_BUILD", Path(__file__).resolve().parents[2] / "build"))
    d = root / "vtep_mismatches"
    d.mkdir(parents=True, exist_ok=True)
    return d


def pause_gen(p: float, seed: int):
    rng = random.Random(seed)
    while True:
        yield rng.random() < p


@dataclass
class Case:
    frame: bytes
    bad: bool = False
    kind: str = ""


@dataclass
class Stat:
    outcome: int
    emit: bool
    length: int


@dataclass
class OutBeatInfo:
    tvni: set = field(default_factory=set)
    tvni_valid: set = field(default_factory=set)


class Harness:
    def __init__(self, dut):
        self.dut = dut
        self.log = dut._log
        self.keep_w = len(dut.s_net_axis_tkeep)
        self.data_w = 8 * self.keep_w
        Clock(dut.clk, 4, unit="ns").start()
        self.net_src = AxiStreamSource(AxiStreamBus.from_prefix(dut, "s_net_axis"), dut.clk, dut.rst)
        self.host_src = AxiStreamSource(AxiStreamBus.from_prefix(dut, "s_host_axis"), dut.clk, dut.rst)
        self.host_snk = AxiStreamSink(AxiStreamBus.from_prefix(dut, "m_host_axis"), dut.clk, dut.rst)
        self.net_snk = AxiStreamSink(AxiStreamBus.from_prefix(dut, "m_net_axis"), dut.clk, dut.rst)
        self.axil = AxiLiteMaster(AxiLiteBus.from_prefix(dut, "s_axil"), dut.clk, dut.rst)
        for bus in (self.net_src, self.host_src, self.host_snk, self.net_snk, self.axil.write_if, self.axil.read_if):
            bus.log.setLevel(logging.WARNING)
        self.tvni_name = next((n for n in ("m_host_axis_tvni", "m_axis_tvni") if hasattr(dut, n)), None)
        self.tvni_valid_name = next((n for n in ("m_host_axis_tvni_valid", "m_axis_tvni_valid") if hasattr(dut, n)),
                                    None)
        self.tvni_frames: list[OutBeatInfo] = []  # per output frame on m_host_axis
        self.stat_prefix = {d: next((p for p in (f"m_{d}_stat", "m_stat") if hasattr(dut, p + "_valid")), None)
                            for d in ("decap", "encap")}
        self.stats: dict[str, list[Stat]] = {"decap": [], "encap": []}
        self.cycle = 0
        self.decap_results: list[DecapResult] = []
        self.encap_results: list[EncapResult] = []
        self.vni_table = None
        self.tun_table = None
        cocotb.start_soon(self._monitor())

    async def reset(self):
        self.dut.rst.value = 1
        await ClockCycles(self.dut.clk, 5)
        self.dut.rst.value = 0
        await ClockCycles(self.dut.clk, 2)
        # the tables clear themselves after reset (TBL_STATUS.busy): wait for both
        for base in (VNI_TBL, TUN_TBL):
            for _ in range(20000):
                if not (await self.read32(base + TBL_STATUS)) & 1:
                    break
                await ClockCycles(self.dut.clk, 64)
        self.decap_results = []
        self.encap_results = []

    async def _monitor(self):
        dut = self.dut
        cur = OutBeatInfo()
        tv = getattr(dut, self.tvni_name) if self.tvni_name else None
        tvv = getattr(dut, self.tvni_valid_name) if self.tvni_valid_name else None
        stat_sigs = {}
        for d, p in self.stat_prefix.items():
            if p is not None:
                stat_sigs[d] = tuple(getattr(dut, f"{p}_{n}") for n in ("valid", "outcome", "emit", "len"))
        while True:
            await RisingEdge(dut.clk)
            self.cycle += 1
            if int(dut.rst.value):
                continue
            for d, (v, o, e, ln) in stat_sigs.items():
                if int(v.value):
                    self.stats[d].append(Stat(int(o.value), bool(int(e.value)), int(ln.value)))
            if tv is None:
                continue
            if int(dut.m_host_axis_tvalid.value) and int(dut.m_host_axis_tready.value):
                cur.tvni.add(int(tv.value))
                cur.tvni_valid.add(int(tvv.value) if tvv is not None else 1)
                if int(dut.m_host_axis_tlast.value):
                    self.tvni_frames.append(cur)
                    cur = OutBeatInfo()

    # ---- AXI-Lite --------------------------------------------------------------------------------
    async def read32(self, addr: int) -> int:
        r = await self.axil.read(addr, 4)
        assert r.resp == AxiResp.OKAY, f"read 0x{addr:04x}: {r.resp!r}"
        return int.from_bytes(r.data, "little")

    async def write32(self, addr: int, value: int) -> None:
        r = await self.axil.write(addr, (value & 0xFFFFFFFF).to_bytes(4, "little"))
        assert r.resp == AxiResp.OKAY, f"write 0x{addr:04x} <- 0x{value:x}: {r.resp!r}"

    async def read64(self, addr: int) -> int:
        lo = await self.read32(addr)
        hi = await self.read32(addr + 4)
        return hi << 32 | lo

    async def table_geometry(self, base: int) -> tuple[int, int, int]:
        info = await self.read32(base + TBL_INFO)
        vw = await self.read32(base + TBL_VALUE_W)
        return 1 << (info & 0xFF), info >> 16, vw

    async def apply(self, base: int, ops) -> None:
        for off, val in ops:
            await self.write32(base + off, val)

    async def configure(self, dcfg: DecapConfig, ecfg: EncapConfig) -> None:
        """CONTROL/PORT registers and both tables from the model configurations. Entries no longer
        wanted are deleted, new ones inserted (wirespeed.table placement and register writes)."""
        if self.vni_table is None:
            slots, kw, vw = await self.table_geometry(VNI_TBL)
            assert (kw, vw) == (VNI_KEY_W, VNI_VALUE_W), f"VNI table geometry KEY_W {kw} VALUE_W {vw}"
            self.vni_table = HashTable(VNI_KEY_W, VNI_VALUE_W, slots)
            slots, kw, vw = await self.table_geometry(TUN_TBL)
            assert (kw, vw) == (TUNNEL_KEY_W, TUNNEL_VALUE_W), f"tunnel table geometry KEY_W {kw} VALUE_W {vw}"
            self.tun_table = HashTable(TUNNEL_KEY_W, TUNNEL_VALUE_W, slots)
        want_vni = {vni: pack_vni(vid, push) for vni, (vid, push) in (dcfg.vni_table or {}).items()}
        for k, _ in list(self.vni_table.items()):
            if k not in want_vni:
                await self.apply(VNI_TBL, self.vni_table.delete(k))
        for k, v in want_vni.items():
            if self.vni_table.lookup(k) != v:
                await self.apply(VNI_TBL, self.vni_table.insert(k, v))
        want_tun = {tunnel_key(dst, vid): pack_tunnel(t.vni, t.dst_mac, t.src_mac, t.src_ip, t.dst_ip, t.udp_port,
                                                      t.ttl, t.dscp)
                    for (vid, dst), t in ecfg.tunnels.items()}
        for k, _ in list(self.tun_table.items()):
            if k not in want_tun:
                await self.apply(TUN_TBL, self.tun_table.delete(k))
        for k, v in want_tun.items():
            if self.tun_table.lookup(k) != v:
                await self.apply(TUN_TBL, self.tun_table.insert(k, v))
        await self.write32(DECAP + REG_PORT, dcfg.port)
        await self.write32(DECAP + REG_PORT2, dcfg.port2 if dcfg.port2 is not None else 8472)
        await self.write32(DECAP + REG_CONTROL, dcfg.control)
        await self.write32(ENCAP + REG_CONTROL, ecfg.control)

    async def counters(self, base: int, n: int):
        pkts, byts = [], []
        for k in range(n):
            pkts.append(await self.read64(base + REG_CNT + 16 * k))
            byts.append(await self.read64(base + REG_CNT + 16 * k + 8))
        tx = []
        for off in (0, 8):
            r = await self.axil.read(base + REG_TX + off, 4)
            if r.resp != AxiResp.OKAY:
                tx = None
                break
            tx.append(await self.read64(base + REG_TX + off))
        return pkts, byts, tx

    async def snapshot(self):
        return (await self.counters(DECAP, NUM_DECAP_OUTCOMES), await self.counters(ENCAP, NUM_ENCAP_OUTCOMES))

    async def check_counters(self, before, d_results, e_results, label="") -> list[str]:
        """Counter deltas since `before` == the model's tallies of the frames sent since."""
        after = await self.snapshot()
        errs = []
        for (name, b, a, want, names) in (
            ("decap", before[0], after[0], tally_decap(d_results), [o.name for o in DecapOutcome]),
            ("encap", before[1], after[1], tally_encap(e_results), [o.name for o in EncapOutcome]),
        ):
            for k in range(len(names)):
                dp, db = a[0][k] - b[0][k], a[1][k] - b[1][k]
                if dp != want[0][k] or db != want[1][k]:
                    errs.append(f"{label} {name} counter {names[k]}: pkts {dp} bytes {db}, model pkts {want[0][k]} "
                                f"bytes {want[1][k]}")
            if a[2] is not None and b[2] is not None:
                dtx = [a[2][0] - b[2][0], a[2][1] - b[2][1]]
                if dtx != [want[2], want[3]]:
                    errs.append(f"{label} {name} TX pkts/bytes {dtx}, model {[want[2], want[3]]}")
        for e in errs:
            self.log.error(e)
        return errs

    # ---- frames -----------------------------------------------------------------------------------
    def unpause(self):
        for s in (self.net_src, self.host_src, self.host_snk, self.net_snk):
            s.set_pause_generator(None)
            s.pause = False

    async def run(self, net: list[Case], host: list[Case], dcfg: DecapConfig, ecfg: EncapConfig,
                  idle: float = 0.0, stall: float = 0.0, seed: int = 0, label: str = "run",
                  check: bool = True):
        """Send `net` on s_net_axis and `host` on s_host_axis at the same time, collect both outputs,
        compare each with the model in order. Returns (errors, host_out, net_out, tvni_frames)."""
        kw = self.keep_w
        dmodel = [decap(c.frame, dcfg, c.bad, kw) for c in net]
        emodel = [encap(c.frame, ecfg, c.bad) for c in host]
        self.decap_results.extend(dmodel)
        self.encap_results.extend(emodel)
        self.unpause()
        if idle:
            self.net_src.set_pause_generator(pause_gen(idle, seed))
            self.host_src.set_pause_generator(pause_gen(idle, seed + 1))
        if stall:
            self.host_snk.set_pause_generator(pause_gen(stall, seed + 2))
            self.net_snk.set_pause_generator(pause_gen(stall, seed + 3))
        tv0 = len(self.tvni_frames)
        st0 = {d: len(v) for d, v in self.stats.items()}
        n_host_out = sum(r.emit for r in dmodel)
        n_net_out = sum(r.emit for r in emodel)

        async def feed(src, cases):
            for c in cases:
                n = len(c.frame)
                await src.send(AxiStreamFrame(c.frame, tuser=[0] * (n - 1) + [int(c.bad)]))

        t1 = cocotb.start_soon(feed(self.net_src, net))
        t2 = cocotb.start_soon(feed(self.host_src, host))
        beats = sum(-(-len(c.frame) // kw) for c in net) + sum(-(-(len(c.frame) + 50) // kw) for c in host)
        budget = int(beats / max(0.05, 1 - idle) / max(0.05, 1 - stall)) * 3 + 300 * (len(net) + len(host)) + 5000
        host_rx, net_rx = [], []
        start = self.cycle
        while self.cycle - start < budget:
            await ClockCycles(self.dut.clk, 32)
            while not self.host_snk.empty():
                host_rx.append(self.host_snk.recv_nowait())
            while not self.net_snk.empty():
                net_rx.append(self.net_snk.recv_nowait())
            stats_in = all(self.stat_prefix[d] is None or len(self.stats[d]) - st0[d] >= n
                           for d, n in (("decap", len(net)), ("encap", len(host))))
            if (len(host_rx) >= n_host_out and len(net_rx) >= n_net_out and t1.done() and t2.done()
                    and self.net_src.idle() and self.host_src.idle() and stats_in):
                break
        await ClockCycles(self.dut.clk, 100 + 4 * (9700 // kw))  # anything extra shows up now
        while not self.host_snk.empty():
            host_rx.append(self.host_snk.recv_nowait())
        while not self.net_snk.empty():
            net_rx.append(self.net_snk.recv_nowait())
        self.unpause()
        tv = self.tvni_frames[tv0:]
        errs = []
        if check:
            errs += self._compare_decap(net, dmodel, host_rx, tv, label, self.stats["decap"][st0["decap"]:])
            errs += self._compare_encap(host, emodel, net_rx, label, self.stats["encap"][st0["encap"]:])
        return errs, host_rx, net_rx, tv

    @staticmethod
    def _aborted(f) -> bool:
        tuser = f.tuser if isinstance(f.tuser, list) else [f.tuser or 0]
        return bool(tuser[-1]) if tuser else False

    @staticmethod
    def _diff(got: bytes, exp: bytes) -> str:
        k = next((j for j in range(min(len(got), len(exp))) if got[j] != exp[j]), min(len(got), len(exp)))
        return (f"differs at byte {k} (len {len(got)} vs model {len(exp)}):\n      got      {got.hex()}\n"
                f"      expected {exp.hex()}")

    def _report(self, errs, detail, label, direction):
        if errs:
            path = mismatch_dir() / f"{label}_{direction}_w{self.data_w}.txt"
            path.write_text("\n".join(errs) + "\n\n---- details ----\n" + "\n\n".join(detail) + "\n")
            for e in errs[:10]:
                self.log.error(e)
            self.log.error("%d %s mismatches in %s; details in %s", len(errs), direction, label, path)
        return errs

    def _compare_stats(self, cases, model, stats, names, label, direction) -> list[str]:
        """Per-frame outcome events (m_<dir>_stat_*) against the model, in input order."""
        errs, detail = [], []
        if self.stat_prefix[direction] is None:
            return errs
        if len(stats) != len(cases):
            errs.append(f"{label} {direction}: {len(stats)} stat events for {len(cases)} input frames")
        for i, (c, r, s) in enumerate(zip(cases, model, stats)):
            probs = []
            if s.outcome != r.outcome:
                name = names[s.outcome] if s.outcome < len(names) else str(s.outcome)
                probs.append(f"outcome {name} != model {r.outcome.name}")
            if s.emit != r.emit:
                probs.append(f"emit {int(s.emit)} != model {int(r.emit)}")
            if s.length != min(len(c.frame), 0xFFFF):
                probs.append(f"stat_len {s.length} != {len(c.frame)}")
            if probs:
                head = f"{label} {direction} stat in#{i} kind={c.kind} len={len(c.frame)} bad={int(c.bad)}: "
                errs.append(head + "; ".join(probs))
                detail.append(head + "; ".join(probs) + f"\n  frame {c.frame.hex()}")
        return self._report(errs, detail, label, direction + "_stat")

    def _compare_decap(self, cases, model, rx, tv, label, stats=()) -> list[str]:
        stat_errs = self._compare_stats(cases, model, stats, [o.name for o in DecapOutcome], label, "decap")
        errs, detail = [], []
        emitted = [i for i, r in enumerate(model) if r.emit]
        if len(rx) != len(emitted):
            errs.append(f"{label} decap: {len(rx)} frames on m_host_axis, model emits {len(emitted)}")
        for j, i in enumerate(emitted):
            if j >= len(rx):
                break
            c, r, f = cases[i], model[i], rx[j]
            data = bytes(f.tdata)
            ab = self._aborted(f)
            probs = []
            if ab != r.aborted:
                probs.append(f"aborted {int(ab)} != model {int(r.aborted)}")
            elif not ab and data != r.output:
                probs.append("output " + self._diff(data, r.output))
            if j < len(tv) and not ab:
                t = tv[j]
                want_v = int(r.tvni_valid)
                if t.tvni_valid != {want_v}:
                    probs.append(f"tvni_valid {sorted(t.tvni_valid)} != model {want_v}")
                elif want_v and t.tvni != {r.vni}:
                    probs.append(f"tvni {sorted(hex(x) for x in t.tvni)} != model {r.vni:#x}")
            if probs:
                head = (f"{label} decap in#{i} out#{j} kind={c.kind} len={len(c.frame)} bad={int(c.bad)} "
                        f"model={r.outcome.name}/aborted={int(r.aborted)}/need={r.need}: ")
                errs.append(head + "; ".join(p.splitlines()[0] for p in probs))
                detail.append(head + f"\n  frame {c.frame.hex()}\n  " + "\n  ".join(probs))
        return stat_errs + self._report(errs, detail, label, "decap")

    def _compare_encap(self, cases, model, rx, label, stats=()) -> list[str]:
        stat_errs = self._compare_stats(cases, model, stats, [o.name for o in EncapOutcome], label, "encap")
        errs, detail = [], []
        emitted = [i for i, r in enumerate(model) if r.emit]
        if len(rx) != len(emitted):
            errs.append(f"{label} encap: {len(rx)} frames on m_net_axis, model emits {len(emitted)}")
        for j, i in enumerate(emitted):
            if j >= len(rx):
                break
            c, r, f = cases[i], model[i], rx[j]
            data = bytes(f.tdata)
            probs = []
            if self._aborted(f):
                probs.append("aborted (encap never aborts)")
            elif data != r.output:
                probs.append("output " + self._diff(data, r.output))
            if probs:
                head = f"{label} encap in#{i} out#{j} kind={c.kind} len={len(c.frame)} model={r.outcome.name}: "
                errs.append(head + "; ".join(p.splitlines()[0] for p in probs))
                detail.append(head + f"\n  frame {c.frame.hex()}\n  " + "\n  ".join(probs))
        return stat_errs + self._report(errs, detail, label, "encap")
