"""Shared cocotb harness for rtl/tunnel/gre_decap.sv: clock/reset, cocotbext-axi source/sink,
AXI-Lite access to the register map, a status-stream monitor and a frame-by-frame scoreboard
against the golden model (wirespeed/model/gre.py)."""

from __future__ import annotations

import os
import random
from dataclasses import dataclass
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

from wirespeed.model.gre import MALFORMED_OUTCOMES, NUM_OUTCOMES, GreConfig, Outcome, Result, gre_decap, tally

# ---- register map (docs/gre_decap.md) -------------------------------------------------------
REG_ID = 0x0000
REG_PARAMS = 0x0004
REG_CONTROL = 0x0008
REG_COUNTER_CLEAR = 0x000C
REG_CNT_BASE = 0x0100  # + 16*n: PKTS_LO, PKTS_HI, BYTES_LO, BYTES_HI
REG_TX_BASE = 0x0200  # TX_PKTS_LO/HI, TX_BYTES_LO/HI
REG_ALLOW_BASE = 0x1000  # + 16*i: SRC, DST, VALID
ID_VALUE = 0x57534731


def mismatch_dir() -> Path:
    root = Path(os.environ.get("WIRESPEED_BUILD", Path(__file__).resolve().parents[2] / "build"))
    d = root / "gre_decap_mismatches"
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
        self.cycle = 0
        self.results: list[Result] = []  # model results since the last counter clear
        cocotb.start_soon(self._stat_monitor())

    async def reset(self):
        self.dut.rst.value = 1
        await ClockCycles(self.dut.clk, 5)
        self.dut.rst.value = 0
        await ClockCycles(self.dut.clk, 2)

    async def _stat_monitor(self):
        dut = self.dut
        while True:
            await RisingEdge(dut.clk)
            self.cycle += 1
            if int(dut.rst.value):
                continue
            if int(dut.m_stat_valid.value):
                self.stats.append(
                    Stat(int(dut.m_stat_outcome.value), bool(int(dut.m_stat_emit.value)), int(dut.m_stat_len.value))
                )

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

    async def program(self, cfg: GreConfig, entries: list[tuple[int, int]] | None = None, clear_to: int = 0):
        """CONTROL from `cfg`; allow-list entries 0.. from `entries` (VALID=0, SRC, DST, VALID=1),
        entries len(entries)..clear_to-1 invalidated."""
        entries = entries or []
        for i, (s, d) in enumerate(entries):
            base = REG_ALLOW_BASE + 16 * i
            await self.write32(base + 8, 0)
            await self.write32(base + 0, s)
            await self.write32(base + 4, d)
            await self.write32(base + 8, 1)
        for i in range(len(entries), clear_to):
            await self.write32(REG_ALLOW_BASE + 16 * i + 8, 0)
        await self.write32(REG_CONTROL, cfg.control)

    async def counters(self):
        pkts, byts = [], []
        for n in range(NUM_OUTCOMES):
            pkts.append(await self.read64(REG_CNT_BASE + 16 * n))
            byts.append(await self.read64(REG_CNT_BASE + 16 * n + 8))
        tx_p = await self.read64(REG_TX_BASE)
        tx_b = await self.read64(REG_TX_BASE + 8)
        return pkts, byts, tx_p, tx_b

    async def check_counters(self, label: str = "") -> list[str]:
        """Counters over AXI-Lite == the model's tallies since the last clear."""
        got = await self.counters()
        want = tally(self.results)
        errs = []
        for n in range(NUM_OUTCOMES):
            if got[0][n] != want[0][n] or got[1][n] != want[1][n]:
                errs.append(f"{label} counter {Outcome(n).name}: pkts {got[0][n]} bytes {got[1][n]}, "
                            f"model pkts {want[0][n]} bytes {want[1][n]}")
        if got[2:] != want[2:]:
            errs.append(f"{label} TX pkts/bytes {got[2]}/{got[3]}, model {want[2]}/{want[3]}")
        # balance: frames in == sum of outcome counters; frames out == forwarded
        if sum(got[0]) != len(self.results):
            errs.append(f"{label} sum of outcome counters {sum(got[0])} != frames in {len(self.results)}")
        fwd_malformed = sum(1 for r in self.results if r.outcome in MALFORMED_OUTCOMES and r.output is not None)
        if got[2] != sum(got[0][:4]) + fwd_malformed:
            errs.append(f"{label} TX pkts {got[2]} != PASS+PUNT+DECAP_L3+DECAP_TEB {sum(got[0][:4])} "
                        f"+ forwarded malformed {fwd_malformed}")
        if sum(got[1]) != sum(r.in_len for r in self.results):
            errs.append(f"{label} sum of byte counters {sum(got[1])} != bytes in {sum(r.in_len for r in self.results)}")
        for e in errs:
            self.log.error(e)
        return errs

    # ---- frames -------------------------------------------------------------------------------
    def unpause(self):
        # clearing a pause generator leaves `pause` at its last value: release both ends
        self.src.set_pause_generator(None)
        self.snk.set_pause_generator(None)
        self.src.pause = False
        self.snk.pause = False

    async def run_cases(self, cases, cfg: GreConfig, idle: float = 0.0, stall: float = 0.0, seed: int = 0,
                        label: str = "run") -> list[str]:
        """Send `cases` (frame, bad, kind), collect the output and the status stream, compare
        frame by frame with the model. Returns a list of mismatch descriptions (also written to
        build/gre_decap_mismatches/<label>_w<DATA_W>.txt)."""
        kw = self.keep_w
        model = [gre_decap(c.frame, cfg, c.bad, kw) for c in cases]
        self.results.extend(model)
        self.unpause()
        if idle:
            self.src.set_pause_generator(pause_gen(idle, seed))
        if stall:
            self.snk.set_pause_generator(pause_gen(stall, seed + 1))
        stat0 = len(self.stats)
        rx = []
        beats = sum(-(-len(c.frame) // kw) for c in cases)
        budget = int(beats / max(0.05, 1 - idle) / max(0.05, 1 - stall)) + 200 * len(cases) + 2000
        for c in cases:
            n = len(c.frame)
            await self.src.send(AxiStreamFrame(c.frame, tuser=[0] * (n - 1) + [int(c.bad)]))
        n_emit = sum(r.emit for r in model)
        start = self.cycle
        while self.cycle - start < budget:
            await ClockCycles(self.dut.clk, 16)
            while not self.snk.empty():
                rx.append(self.snk.recv_nowait())
            if len(self.stats) - stat0 >= len(cases) and len(rx) >= n_emit and self.src.idle():
                break
        longest = max((-(-len(c.frame) // kw) for c in cases), default=1)
        await ClockCycles(self.dut.clk, 40 + 2 * longest)  # anything extra would show up now
        while not self.snk.empty():
            rx.append(self.snk.recv_nowait())
        self.unpause()
        stats = self.stats[stat0:]
        return self._compare(cases, model, stats, rx, label)

    def _compare(self, cases, model, stats, rx, label) -> list[str]:
        errs: list[str] = []
        detail: list[str] = []

        def frame_info(i):
            c = cases[i]
            return f"#{i} kind={c.kind} len={len(c.frame)} bad={int(c.bad)} frame={c.frame.hex()}"

        if len(stats) != len(cases):
            errs.append(f"{label}: {len(stats)} status events for {len(cases)} input frames")
        # RTL emitted frames belong to the inputs whose status says emit (input order)
        rtl_emit_idx = [i for i, s in enumerate(stats) if s.emit]
        if len(rx) != len(rtl_emit_idx):
            errs.append(f"{label}: {len(rx)} output frames but {len(rtl_emit_idx)} status events with emit=1 "
                        f"(model: {sum(r.emit for r in model)} emitted); per-frame pairing below follows the model")
            rtl_emit_idx = [i for i, r in enumerate(model) if r.emit]
        out_of = dict(zip(rtl_emit_idx, rx))
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
            f = out_of.get(i)
            if f is not None:
                data = bytes(f.tdata)
                tuser = f.tuser if isinstance(f.tuser, list) else [f.tuser or 0]
                aborted = bool(tuser[-1]) if tuser else False
                if not r.emit:
                    problems.append(f"unexpected output frame (aborted={int(aborted)}) {data.hex()}")
                elif aborted != r.aborted:
                    problems.append(f"aborted {int(aborted)} != model {int(r.aborted)}")
                elif not r.aborted and data != r.output:
                    k = next((j for j in range(min(len(data), len(r.output))) if data[j] != r.output[j]),
                             min(len(data), len(r.output)))
                    problems.append(f"output differs at byte {k} (len {len(data)} vs model {len(r.output)}):\n"
                                    f"      got      {data.hex()}\n      expected {r.output.hex()}")
            elif r.emit and (i < len(stats)):
                problems.append("model emits a frame, none came out")
            if problems:
                errs.append(f"{label} #{i} kind={c.kind} len={len(c.frame)} bad={int(c.bad)} "
                            f"model={r.outcome.name}/emit={int(r.emit)}/aborted={int(r.aborted)}/need={r.need}: "
                            + "; ".join(p.splitlines()[0] for p in problems))
                detail.append(frame_info(i) + "\n  model " + repr(r.outcome.name) + " emit=" + str(int(r.emit))
                              + " aborted=" + str(int(r.aborted)) + " need=" + str(r.need) + "\n  "
                              + "\n  ".join(problems))
        if errs:
            path = mismatch_dir() / f"{label}_w{self.data_w}.txt"
            path.write_text("\n".join(errs) + "\n\n---- details ----\n" + "\n\n".join(detail) + "\n")
            for e in errs[:12]:
                self.log.error(e)
            self.log.error("%d mismatches in %s; all details in %s", len(errs), label, path)
        else:
            self.log.info("%s: %d frames, %d emitted, all match the model", label, len(cases), len(rx))
        return errs
