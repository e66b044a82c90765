"""Shared cocotb harness for rtl/tunnel/geneve_decap.sv: clock/reset, cocotbext-axi source/sink
with random idle and backpressure, AXI-Lite access to the register map and the VNI table
(wirespeed.table placement), monitors of the status stream, of m_axis_tvni and of every
handshake's cycle, and a frame-by-frame scoreboard against wirespeed/model/geneve.py."""

from __future__ import annotations

import os
import random
from dataclasses import dataclass
from pathlib import Path

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, RisingEdge
from cocotbext.axi import AxiLiteBus, AxiLiteMaster, AxiResp, AxiStreamBus, AxiStreamFrame, AxiStreamSink, AxiStreamSource

from wirespeed.model.frames import Case
from wirespeed.model.geneve import NUM_OUTCOMES, GeneveConfig, Outcome, decap, tally
from wirespeed.regmap import CNT_BASE, GENEVE_DECAP, TX_BASE
from wirespeed.table import TBL_INFO, TBL_VALUE_W, VNI_KEY_W, VNI_VALUE_W, HashTable, pack_vni

REG_ID = GENEVE_DECAP.reg("ID")
REG_PARAMS = GENEVE_DECAP.reg("PARAMS")
REG_CONTROL = GENEVE_DECAP.reg("CONTROL")
REG_COUNTER_CLEAR = GENEVE_DECAP.reg("COUNTER_CLEAR")
REG_PORT = GENEVE_DECAP.reg("PORT")
VNI_TBL = 0x1000  # the shell's second window: the VNI table's hash_table registers
ID_VALUE = GENEVE_DECAP.id_value


def mismatch_dir() -> Path:
    root = Path(os.environ.get("WIRESPEED_BUILD", Path(__file__).resolve().parents[2] / "build"))
    d = root / "geneve_decap_mismatches"
    d.mkdir(parents=True, exist_ok=True)
    return d


def pause_gen(p: float, seed: int):
    rng = random.Random(seed)
    while True:
        yield rng.random() < p


@dataclass
class Stat:
    outcome: int
    emit: bool
    length: int


class Harness:
    def __init__(self, dut):
        self.dut = dut
        self.keep_w = len(dut.s_axis_tkeep)
        self.data_w = 8 * self.keep_w
        self.log = dut._log
        Clock(dut.clk, 4, unit="ns").start()
        self.src = AxiStreamSource(AxiStreamBus.from_prefix(dut, "s_axis"), dut.clk, dut.rst)
        self.snk = AxiStreamSink(AxiStreamBus.from_prefix(dut, "m_axis"), dut.clk, dut.rst)
        self.axil = AxiLiteMaster(AxiLiteBus.from_prefix(dut, "s_axil"), dut.clk, dut.rst)
        self.stats: list[Stat] = []
        self.tvni: list[tuple[int, int]] = []  # (tvni_valid, tvni) at each output frame's last beat
        self.in_first: list[int] = []  # cycle of each input frame's first handshake
        self.out_first: list[int] = []  # cycle of each output frame's first handshake
        self.cycle = 0
        self.results = []  # model results since the last counter clear
        self.vni_table: HashTable | None = None
        cocotb.start_soon(self._monitor())

    async def reset(self):
        self.dut.rst.value = 1
        await ClockCycles(self.dut.clk, 5)
        self.dut.rst.value = 0
        await ClockCycles(self.dut.clk, 2)

    async def _monitor(self):
        dut = self.dut
        in_mid = out_mid = False
        while True:
            await RisingEdge(dut.clk)
            self.cycle += 1
            if int(dut.rst.value):
                continue
            if int(dut.m_stat_valid.value):
                self.stats.append(Stat(int(dut.m_stat_outcome.value), bool(int(dut.m_stat_emit.value)),
                                       int(dut.m_stat_len.value)))
            if int(dut.s_axis_tvalid.value) and int(dut.s_axis_tready.value):
                if not in_mid:
                    self.in_first.append(self.cycle)
                in_mid = not int(dut.s_axis_tlast.value)
            if int(dut.m_axis_tvalid.value) and int(dut.m_axis_tready.value):
                if not out_mid:
                    self.out_first.append(self.cycle)
                out_mid = not int(dut.m_axis_tlast.value)
                if not out_mid:
                    self.tvni.append((int(dut.m_axis_tvni_valid.value), int(dut.m_axis_tvni.value)))

    # ---- AXI-Lite ----------------------------------------------------------------------------
    async def read32(self, addr: int) -> int:
        r = await self.axil.read(addr, 4)
        assert r.resp == AxiResp.OKAY, f"read 0x{addr:04x}: {r.resp!r}"
        return int.from_bytes(r.data, "little")

    async def write32(self, addr: int, value: int) -> None:
        r = await self.axil.write(addr, (value & 0xFFFFFFFF).to_bytes(4, "little"))
        assert r.resp == AxiResp.OKAY, f"write 0x{addr:04x}: {r.resp!r}"

    async def read64(self, addr: int) -> int:
        lo = await self.read32(addr)
        hi = await self.read32(addr + 4)
        return hi << 32 | lo

    async def clear_counters(self):
        await self.write32(REG_COUNTER_CLEAR, 1)
        self.results = []

    async def configure(self, cfg: GeneveConfig) -> None:
        """CONTROL, PORT and the VNI table from `cfg` (entries no longer wanted deleted)."""
        if self.vni_table is None:
            info = await self.read32(VNI_TBL + TBL_INFO)
            vw = await self.read32(VNI_TBL + TBL_VALUE_W)
            assert (info >> 16, vw) == (VNI_KEY_W, VNI_VALUE_W), f"VNI table geometry {info:#x} {vw}"
            self.vni_table = HashTable(VNI_KEY_W, VNI_VALUE_W, 1 << (info & 0xFF))
        want = {v: pack_vni(vid, push) for v, (vid, push) in (cfg.vni_table or {}).items()}
        for k, _ in list(self.vni_table.items()):
            if k not in want:
                for off, val in self.vni_table.delete(k):
                    await self.write32(VNI_TBL + off, val)
        for k, v in want.items():
            if self.vni_table.lookup(k) != v:
                for off, val in self.vni_table.insert(k, v):
                    await self.write32(VNI_TBL + off, val)
        await self.write32(REG_PORT, cfg.port)
        await self.write32(REG_CONTROL, cfg.control)

    async def counters(self):
        pkts, byts = [], []
        for n in range(NUM_OUTCOMES):
            pkts.append(await self.read64(CNT_BASE + 16 * n))
            byts.append(await self.read64(CNT_BASE + 16 * n + 8))
        return pkts, byts, await self.read64(TX_BASE), await self.read64(TX_BASE + 8)

    async def check_counters(self, label: str = "") -> list[str]:
        """Counters over AXI-Lite == the model's tallies since the last clear; frames in = the
        sum of the outcome counters; frames out whole = the forwarding outcomes."""
        got = await self.counters()
        want = tally(self.results)
        errs = []
        for n in range(NUM_OUTCOMES):
            if got[0][n] != want[0][n] or got[1][n] != want[1][n]:
                errs.append(f"{label} counter {Outcome(n).name}: pkts {got[0][n]} bytes {got[1][n]}, "
                            f"model pkts {want[0][n]} bytes {want[1][n]}")
        if got[2:] != want[2:]:
            errs.append(f"{label} TX pkts/bytes {got[2]}/{got[3]}, model {want[2]}/{want[3]}")
        if sum(got[0]) != len(self.results):
            errs.append(f"{label} sum of outcome counters {sum(got[0])} != frames in {len(self.results)}")
        fwd = sum(got[0][o] for o in (Outcome.PASS, Outcome.PUNT, Outcome.PUNT_OAM, Outcome.DECAP_L3,
                                      Outcome.DECAP_TEB))
        if got[2] != fwd:
            errs.append(f"{label} TX pkts {got[2]} != PASS + PUNT + PUNT_OAM + DECAP_L3 + DECAP_TEB {fwd}")
        if sum(got[1]) != sum(r.in_len for r in self.results):
            errs.append(f"{label} byte counters {sum(got[1])} != bytes in {sum(r.in_len for r in self.results)}")
        for e in errs:
            self.log.error(e)
        return errs

    # ---- frames -------------------------------------------------------------------------------
    def unpause(self):
        self.src.set_pause_generator(None)
        self.snk.set_pause_generator(None)
        self.src.pause = False
        self.snk.pause = False

    async def run_cases(self, cases: list[Case], cfg: GeneveConfig, idle: float = 0.0, stall: float = 0.0,
                        seed: int = 0, label: str = "run", sequential: bool = False, latency=None) -> list[str]:
        """Send `cases`, collect the output, the status stream and m_axis_tvni, compare frame by
        frame with the model. `sequential`: one frame at a time on an idle pipeline; `latency`
        (with it): a function (frame, keep_w, cfg) -> the contract's cycles, checked for every
        frame that leaves whole."""
        kw = self.keep_w
        model = [decap(c.frame, cfg, c.bad, kw) for c in cases]
        self.results.extend(model)
        self.unpause()
        if idle:
            self.src.set_pause_generator(pause_gen(idle, seed))
        if stall:
            self.snk.set_pause_generator(pause_gen(stall, seed + 1))
        stat0, tv0, in0, out0 = len(self.stats), len(self.tvni), len(self.in_first), len(self.out_first)
        rx = []
        n_emit = sum(r.emit for r in model)
        beats = sum(-(-len(c.frame) // kw) for c in cases)
        budget = int(beats / max(0.05, 1 - idle) / max(0.05, 1 - stall)) + 200 * len(cases) + 2000
        start = self.cycle
        for c in cases:
            n = len(c.frame)
            await self.src.send(AxiStreamFrame(c.frame, tuser=[0] * (n - 1) + [int(c.bad)]))
            if sequential:
                while not self.src.idle():
                    await RisingEdge(self.dut.clk)
                await ClockCycles(self.dut.clk, 80 + 2 * (-(-n // kw)))
        while self.cycle - start < budget:
            await ClockCycles(self.dut.clk, 16)
            while not self.snk.empty():
                rx.append(self.snk.recv_nowait())
            if len(self.stats) - stat0 >= len(cases) and len(rx) >= n_emit and self.src.idle():
                break
        await ClockCycles(self.dut.clk, 60 + 2 * max((-(-len(c.frame) // kw) for c in cases), default=1))
        while not self.snk.empty():
            rx.append(self.snk.recv_nowait())
        self.unpause()
        stats = self.stats[stat0:]
        tvni = self.tvni[tv0:]
        lat = None
        if sequential:
            lat = (self.in_first[in0:], self.out_first[out0:])
        return self._compare(cases, model, stats, rx, tvni, label, cfg, lat, latency)

    def _compare(self, cases, model, stats, rx, tvni, label, cfg, lat, latency) -> list[str]:
        errs: list[str] = []
        detail: list[str] = []
        lat_hist: dict[int, int] = {}
        if len(stats) != len(cases):
            errs.append(f"{label}: {len(stats)} status events for {len(cases)} input frames")
        rtl_emit_idx = [i for i, s in enumerate(stats) if s.emit]
        if len(rx) != len(rtl_emit_idx):
            errs.append(f"{label}: {len(rx)} output frames but {len(rtl_emit_idx)} status events with emit=1 "
                        f"(model: {sum(r.emit for r in model)} emitted)")
            rtl_emit_idx = [i for i, r in enumerate(model) if r.emit]
        out_of = dict(zip(rtl_emit_idx, range(len(rx))))
        for i, (c, r) in enumerate(zip(cases, model)):
            problems = []
            s = stats[i] if i < len(stats) else None
            if s is not None:
                if s.outcome != r.outcome:
                    name = Outcome(s.outcome).name if s.outcome < NUM_OUTCOMES else str(s.outcome)
                    problems.append(f"outcome {name} != model {r.outcome.name}")
                if s.emit != r.emit:
                    problems.append(f"emit {int(s.emit)} != model {int(r.emit)}")
                if s.length != min(len(c.frame), 0xFFFF):
                    problems.append(f"m_stat_len {s.length} != {len(c.frame)}")
            j = out_of.get(i)
            if j is not None:
                f = rx[j]
                data = bytes(f.tdata)
                tuser = f.tuser if isinstance(f.tuser, list) else [f.tuser or 0]
                aborted = bool(tuser[-1]) if tuser else False
                if not r.emit:
                    problems.append(f"unexpected output frame (aborted={int(aborted)}) {data.hex()}")
                elif aborted != r.aborted:
                    problems.append(f"aborted {int(aborted)} != model {int(r.aborted)}")
                elif not r.aborted and data != r.output:
                    k = next((x for x in range(min(len(data), len(r.output))) if data[x] != r.output[x]),
                             min(len(data), len(r.output)))
                    problems.append(f"output differs at byte {k} (len {len(data)} vs model {len(r.output)}):\n"
                                    f"      got      {data.hex()}\n      expected {r.output.hex()}")
                if j < len(tvni) and r.emit:
                    want = (1, r.vni) if r.tvni_valid else (0, None)
                    got = tvni[j]
                    if got[0] != want[0] or (want[0] and got[1] != want[1]):
                        problems.append(f"m_axis_tvni {got} != model {want}")
                if lat is not None and latency is not None and r.emit and not r.aborted:
                    ins, outs = lat
                    if i < len(ins) and j < len(outs):
                        got_l = outs[j] - ins[i]
                        want_l = latency(c.frame, self.keep_w, cfg)
                        lat_hist[got_l] = lat_hist.get(got_l, 0) + 1
                        if got_l != want_l:
                            problems.append(f"latency {got_l} cycles != contract {want_l}")
            elif r.emit and i < len(stats):
                problems.append("model emits a frame, none came out")
            if problems:
                errs.append(f"{label} #{i} kind={c.kind} len={len(c.frame)} bad={int(c.bad)} "
                            f"model={r.outcome.name}/emit={int(r.emit)}/aborted={int(r.aborted)}/need={r.need}: "
                            + "; ".join(p.splitlines()[0] for p in problems))
                detail.append(f"#{i} kind={c.kind} len={len(c.frame)} bad={int(c.bad)} frame={c.frame.hex()}\n  "
                              + "\n  ".join(problems))
        if errs:
            path = mismatch_dir() / f"{label}_w{self.data_w}.txt"
            path.write_text("\n".join(errs) + "\n\n---- details ----\n" + "\n\n".join(detail) + "\n")
            for e in errs[:12]:
                self.log.error(e)
            self.log.error("%d mismatches in %s; all details in %s", len(errs), label, path)
        else:
            self.log.info("%s: %d frames, %d emitted, all match the model", label, len(cases), len(rx))
        if lat_hist:
            self.log.info("%s: %d latencies checked against the contract {cycles: frames}: %s", label,
                          sum(lat_hist.values()), dict(sorted(lat_hist.items())))
        return errs
