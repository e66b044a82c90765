"""cocotb tests of geneve_decap_classify's join with several records in the tap queue's RAM whose
wait_iw bits differ (the join's pops are registers decided from a mirror of the queues, which
keeps the RAM words' wait_iw bits by slot).

Inside geneve_decap that case cannot occur: a frame's window record is queued by its last
beat + 5 cycles and the next frame's tap record no earlier than 12 cycles after that beat, so
the tap queue's head never waits while later tap records arrive and its RAM holds one word at
most. The classifier alone, fed the same frames with their tap records ahead of their
beats, reaches it. Two runs per width (tb/geneve_decap/test_geneve_join.py):

record_join_vectors (toplevel geneve_decap): contract and random frames through the block,
    checked byte for byte against the golden model (wirespeed.model.geneve) as in
    cocotb_geneve_decap.py, counters balanced; the classifier's inputs (its beats, each tap,
    the IPv4 checksum verdict a cycle later, the VNI table's answer) and every descriptor it
    made are written to GENEVE_JOIN_VECTORS (JSON).
replay_join_bursts (toplevel geneve_decap_classify): the same inputs in groups of 2..7 frames,
    mostly the group's taps first in a burst and its beats after, so the head's wait_iw record
    waits for its window while the later taps fill the RAM; every descriptor must equal the
    one recorded, in order. Coverage: cycles in which tap_fifo's RAM (its own word count, and
    the wait_iw bits of the words pushed, read before the mirror) holds two or more words of
    both wait_iw values, at least GENEVE_JOIN_MIN_MIXED of them. The classifier's simulation
    checks (the mirror against the queues, the registered pops against the in-cycle decision,
    queue overflows, the table answer's alignment) are $error, which ends the simulation and
    fails the test.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import cocotb
from cocotb.triggers import ClockCycles, RisingEdge

from cocotb_geneve_decap import random_case
from geneve_tb import Harness
from tb.common.bench import clock_and_reset
from wirespeed.model.geneve import GeneveConfig
from wirespeed.model.geneve_frames import CONTRACT_VNI, contract_cases

TAP_SIGS = ("tap_whole", "tap_rx_err", "tap_l2_short", "tap_l2_bytes", "tap_l2_len", "tap_ipv4", "tap_ipv6",
            "tap_ip_proto", "tap_short_fixed", "tap_ip_ver_bad", "tap_ip_frag", "tap_ip_frag_off", "tap_ip_pl",
            "tap_ip_ecn", "tap_ip_src", "tap_ip_dst", "tap_g", "tap_have_l4", "tap_l4")
CTRL_SIGS = ("ctrl_vni_enable", "ctrl_critical_punt", "ctrl_drop_punt", "ctrl_drop_pass", "ctrl_port")
DESC_SIGS = ("desc_drop", "desc_shift", "desc_head", "desc_head_en", "desc_out_len", "desc_min_len", "desc_sum_en",
             "desc_sum_start", "desc_sum_end", "desc_sum_seed", "desc_outcome", "desc_tvni")
LOOKUP_LATENCY = 5  # the VNI table's answer, cycles after the tap (geneve_decap_classify's V5)


def vectors_path() -> Path:
    p = os.environ.get("GENEVE_JOIN_VECTORS")
    assert p, "GENEVE_JOIN_VECTORS is not set (run through tb/geneve_decap/test_geneve_join.py)"
    return Path(p)


def join_config() -> GeneveConfig:
    return GeneveConfig(vni_table={CONTRACT_VNI: (0x123, True), 0x000777: (5, False)}, critical_punt=True)


@cocotb.test()
async def record_join_vectors(dut):
    """The frames through geneve_decap against the model; the classifier's inputs and
    descriptors recorded."""
    h = Harness(dut)
    await h.reset()
    c = dut.classify
    beats: list[list[str]] = []
    taps: list[dict[str, str]] = []
    csum: list[int] = []
    rs: list[list[int]] = []
    descs: list[dict[str, str]] = []
    state = {"csum_next": False}

    async def rec():
        while True:
            await RisingEdge(dut.clk)
            if int(dut.rst.value):
                continue
            if state["csum_next"]:
                csum.append(int(c.tap_csum_ok.value))
            state["csum_next"] = bool(int(c.tap_valid.value))
            if state["csum_next"]:
                taps.append({s: hex(int(getattr(c, s).value)) for s in TAP_SIGS})
            if int(c.s_hs.value):
                beats.append([hex(int(c.s_tdata.value)), hex(int(c.s_tkeep.value)), str(int(c.s_tlast.value)),
                              str(int(c.s_tuser.value))])
            if int(c.rs_valid.value):
                rs.append([int(c.rs_hit.value), int(c.rs_value.value)])
            if int(c.desc_valid.value):
                descs.append({s: hex(int(getattr(c, s).value)) for s in DESC_SIGS})

    cfg = join_config()
    await h.configure(cfg)
    await h.clear_counters()
    ctrl = {s: int(getattr(c, s).value) for s in CTRL_SIGS}
    rng = random.Random(0x101 + h.data_w)
    vnis = [CONTRACT_VNI, 0x000777, 0x00ABCD]
    cases = [x for x in contract_cases() if len(x.frame) <= 600]
    cases += [random_case(rng, vnis) for _ in range(110)]
    rng.shuffle(cases)
    recorder = cocotb.start_soon(rec())
    errs = await h.run_cases(cases, cfg, label="join_record")
    errs += await h.check_counters("join_record")
    await ClockCycles(dut.clk, 20)
    recorder.cancel()
    assert not errs, f"{len(errs)} mismatches against the model"
    n = len(cases)
    assert (len(taps), len(csum), len(rs), len(descs)) == (n, n, n, n), \
        f"{n} frames: {len(taps)} taps, {len(csum)} verdicts, {len(rs)} answers, {len(descs)} descriptors"
    assert sum(int(b[2]) for b in beats) == n, "beats: frames ended != frames"
    vectors_path().write_text(json.dumps({"data_w": h.data_w, "ctrl": ctrl, "beats": beats, "taps": taps,
                                          "csum": csum, "rs": rs, "descs": descs}))


def schedule(vec: dict, rng: random.Random) -> tuple[dict[int, list[str]], dict[int, int], int]:
    """Cycle -> beat and cycle -> frame whose tap is driven, in groups of 2..7 frames: the
    group's taps in a burst and its beats after them (mostly), or its beats first."""
    frames: list[list[list[str]]] = [[]]
    for b in vec["beats"]:
        frames[-1].append(b)
        if b[2] == "1":
            frames.append([])
    frames.pop()
    n = len(frames)
    beat_at: dict[int, list[str]] = {}
    tap_at: dict[int, int] = {}
    t = 10
    i = 0
    while i < n:
        g = list(range(i, min(n, i + rng.randint(2, 7))))
        i = g[-1] + 1
        taps_first = rng.random() < 0.8
        tt = t if taps_first else t + rng.randint(0, 12)
        for f in g:
            tap_at[tt] = f
            tt += 1 + (rng.random() < 0.25)
        st = tt + rng.randint(0, 8) if taps_first else t
        for f in g:
            for b in frames[f]:
                beat_at[st] = b
                st += 1 + (rng.randint(1, 3) if rng.random() < 0.15 else 0)
        t = max(tt, st) + rng.randint(12, 30)
    return beat_at, tap_at, t + 60


@cocotb.test()
async def replay_join_bursts(dut):
    """The recorded frames through geneve_decap_classify alone, taps ahead of their beats."""
    vec = json.loads(vectors_path().read_text())
    kw = len(dut.s_tkeep)
    assert vec["data_w"] == 8 * kw, f"vectors for {vec['data_w']} bits, DUT {8 * kw}"
    for s, v in vec["ctrl"].items():
        getattr(dut, s).value = v
    await clock_and_reset(dut, ("s_hs", "tap_valid", "rs_valid"), reset_cycles=5)
    await RisingEdge(dut.clk)

    rng = random.Random(0x70 + 8 * kw)
    beat_at, tap_at, end = schedule(vec, rng)
    taps, csum, rs = vec["taps"], vec["csum"], vec["rs"]
    descs: list[dict[str, str]] = []
    pushed: list[tuple[int, int]] = []   # (cycle, wait_iw) of each tap record leaving W for V5
    cov = {"mixed": 0, "max_words": 0}

    async def watch():
        cyc = 0
        while True:
            await RisingEdge(dut.clk)
            cyc += 1
            if int(dut.desc_valid.value):
                descs.append({s: hex(int(getattr(dut, s).value)) for s in DESC_SIGS})
            # tap_fifo's RAM holds the last cnt_q words pushed; a record in W in cycle c is
            # written (V5 -> queue) in c + 1 and counted from c + 2
            words = int(dut.tap_fifo.cnt_q.value)
            cov["max_words"] = max(cov["max_words"], words)
            if words >= 2:
                held = [w for (pc, w) in pushed if pc <= cyc - 2][-words:]
                if len(set(held)) == 2:
                    cov["mixed"] += 1
            if int(dut.w5_valid_q.value):
                pushed.append((cyc, int(dut.w5_wait_q.value)))

    watcher = cocotb.start_soon(watch())
    for cyc in range(end):
        b = beat_at.get(cyc)
        if b is None:
            dut.s_hs.value = 0
        else:
            dut.s_tdata.value = int(b[0], 16)
            dut.s_tkeep.value = int(b[1], 16)
            dut.s_tlast.value = int(b[2])
            dut.s_tuser.value = int(b[3])
            dut.s_hs.value = 1
        f = tap_at.get(cyc)
        dut.tap_valid.value = int(f is not None)
        if f is not None:
            for s, v in taps[f].items():
                getattr(dut, s).value = int(v, 16)
        f1 = tap_at.get(cyc - 1)
        if f1 is not None:
            dut.tap_csum_ok.value = csum[f1]
        f5 = tap_at.get(cyc - LOOKUP_LATENCY)
        dut.rs_valid.value = int(f5 is not None)
        if f5 is not None:
            dut.rs_hit.value, dut.rs_value.value = rs[f5]
        await RisingEdge(dut.clk)
    dut.s_hs.value = 0
    dut.tap_valid.value = 0
    dut.rs_valid.value = 0
    await ClockCycles(dut.clk, 40)
    watcher.cancel()

    want = vec["descs"]
    errs = []
    if len(descs) != len(want):
        errs.append(f"{len(descs)} descriptors for {len(want)} frames")
    for k, (got, exp) in enumerate(zip(descs, want)):
        diff = [s for s in DESC_SIGS if got[s] != exp[s]]
        if diff:
            errs.append(f"frame {k}: " + ", ".join(f"{s} {got[s]} != {exp[s]}" for s in diff))
    for e in errs[:12]:
        dut._log.error(e)
    need = int(os.environ.get("GENEVE_JOIN_MIN_MIXED", "20"))
    dut._log.info("join replay: %d frames, %d descriptors; tap RAM up to %d words, %d cycles with words of "
                  "both wait_iw values", len(want), len(descs), cov["max_words"], cov["mixed"])
    assert not errs, f"{len(errs)} descriptors differ from geneve_decap's"
    assert cov["mixed"] >= need, \
        f"coverage: {cov['mixed']} cycles with tap RAM words of both wait_iw values, want >= {need}"
