"""cocotb tests of the performance contract of gre_decap (docs/gre_decap.md, "Performance contract").

A direct driver/monitor samples every rising edge (no cocotbext timestamps):
(i)   with m_axis_tready always 1 and frames sent back to back, s_axis_tready never falls after
      reset, over every length 60..200 and a sweep up to 9600, mixed GRE / non-GRE;
(ii)  every output frame takes exactly ceil(len/KEEP_W) beats, full tkeep except a contiguous
      last beat, and carries the model's bytes;
(iii) idle pipeline, one frame at a time: the latency (first input handshake to first output
      handshake) of every frame that leaves whole is exactly
          trig + DECIDE + axis_edit LATENCY + floor(D / KEEP_W)
      where trig is the input beat that completes the 128-byte header window (or the frame's
      last beat), DECIDE the cycles from it to the descriptor at the engine (hdr_capture, three
      ip_front stages, three gre_classify stages), LATENCY the engine's own first-beat latency
      (tb/axis_edit) and D the bytes the output skips (K - L2 or K): the engine issues one slot
      per input beat, and output beat 0 comes from the slot of beat floor(D / KEEP_W); a
      one-beat output, being the frame's last beat, from the slot of its last input beat.
"""

from __future__ import annotations

import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, RisingEdge

from gre_tb import mismatch_dir
from tb.axis_edit.axis_edit_tb import LATENCY as EDIT_TB_LATENCY
from wirespeed.model import frames as F
from wirespeed.model.gre import EDIT_LATENCY, GreConfig, Outcome, gre_decap, latency_cycles

def exact_latency(r, kw: int) -> int:
    """The contract's latency of a frame that leaves whole (see the module doc), from the
    model; the engine latency it assumes must be the one tb/axis_edit asserts."""
    assert EDIT_LATENCY[8 * kw] == EDIT_TB_LATENCY[8 * kw]
    return latency_cycles(r, kw)


class Bench:
    def __init__(self, dut):
        self.dut = dut
        self.kw = len(dut.s_axis_tkeep)
        self.log = dut._log
        Clock(dut.clk, 4, unit="ns").start()

    async def reset(self):
        d = self.dut
        d.rst.value = 1
        d.s_axis_tvalid.value = 0
        d.s_axis_tdata.value = 0
        d.s_axis_tkeep.value = 0
        d.s_axis_tlast.value = 0
        d.s_axis_tuser.value = 0
        d.m_axis_tready.value = 1
        for sig in ("awvalid", "wvalid", "bready", "arvalid", "rready"):
            getattr(d, "s_axil_" + sig).value = 0
        await ClockCycles(d.clk, 5)
        d.rst.value = 0
        await ClockCycles(d.clk, 1)

    def beats(self, frame: bytes, bad: bool):
        kw = self.kw
        out = []
        n = len(frame)
        for off in range(0, n, kw):
            chunk = frame[off : off + kw]
            last = off + kw >= n
            out.append((int.from_bytes(chunk, "little"), (1 << len(chunk)) - 1, int(last), int(last and bad)))
        return out

    async def run(self, cases, cfg: GreConfig, sequential: bool, max_cycles: int):
        """Drive `cases` back to back (or one at a time when `sequential`), monitor everything.
        Returns (model results, per-frame input first/last cycles, output frames, stats, ready_low)."""
        d = self.dut
        kw = self.kw
        full = (1 << kw) - 1
        model = [gre_decap(c.frame, cfg, c.bad, kw) for c in cases]
        n_model_emit = sum(r.emit for r in model)
        in_first = [None] * len(cases)
        in_last = [None] * len(cases)
        outs = []  # dicts: first, last, beats, data, tuser, keep_err
        stats = []
        ready_low = []
        st = {"cur_out": None, "cyc": 0, "rtl_emit": 0}

        def sample():
            st["cyc"] += 1
            cyc = st["cyc"]
            if int(d.m_axis_tvalid.value) and int(d.m_axis_tready.value):
                keep = int(d.m_axis_tkeep.value)
                last = int(d.m_axis_tlast.value)
                data = int(d.m_axis_tdata.value)
                o = st["cur_out"]
                if o is None:
                    o = st["cur_out"] = {"first": cyc, "beats": 0, "data": bytearray(), "tuser": 0, "keep_err": []}
                o["beats"] += 1
                nb = kw if keep == full else keep.bit_length()
                if not last and keep != full:
                    o["keep_err"].append(f"beat {o['beats'] - 1} not last, tkeep={keep:#x}")
                if last and (keep == 0 or keep & (keep + 1)):
                    o["keep_err"].append(f"last beat tkeep={keep:#x} not contiguous from byte 0")
                o["data"] += data.to_bytes(kw, "little")[:nb]
                if last:
                    o["tuser"] = int(d.m_axis_tuser.value)
                    o["last"] = cyc
                    outs.append(o)
                    st["cur_out"] = None
            if int(d.m_stat_valid.value):
                em = int(d.m_stat_emit.value)
                st["rtl_emit"] += em
                stats.append((int(d.m_stat_outcome.value), em, int(d.m_stat_len.value)))
            return cyc

        def settled(n_frames):
            # every status of the first n frames arrived and every frame the RTL said it emits left
            return len(stats) >= n_frames and len(outs) >= st["rtl_emit"] and st["cur_out"] is None

        fi, bi = 0, 0
        cur_beats = []
        presenting = False
        waiting_done = False
        wait_until = 0

        def present():
            data, keep, last, user = cur_beats[bi]
            d.s_axis_tdata.value = data
            d.s_axis_tkeep.value = keep
            d.s_axis_tlast.value = last
            d.s_axis_tuser.value = user
            d.s_axis_tvalid.value = 1

        if cases:
            cur_beats = self.beats(cases[0].frame, cases[0].bad)
            presenting = True
            present()
        while st["cyc"] < max_cycles:
            await RisingEdge(d.clk)
            s_ready = int(d.s_axis_tready.value)
            cyc = sample()
            if not s_ready:
                ready_low.append(cyc)
            if presenting and s_ready:
                if bi == 0:
                    in_first[fi] = cyc
                bi += 1
                if bi == len(cur_beats):
                    in_last[fi] = cyc
                    fi += 1
                    bi = 0
                    presenting = False
                    waiting_done = sequential
            if waiting_done:
                if settled(fi):
                    waiting_done = False
                    wait_until = cyc + 3
                elif cyc - in_last[fi - 1] > 400 + 4 * (9600 // kw):
                    self.log.error("frame %d: no completion after %d cycles", fi - 1, cyc - in_last[fi - 1])
                    waiting_done = False
            if not presenting and fi < len(cases) and not waiting_done and cyc >= wait_until:
                cur_beats = self.beats(cases[fi].frame, cases[fi].bad)
                presenting = True
            if presenting:
                present()
            else:
                d.s_axis_tvalid.value = 0
                d.s_axis_tlast.value = 0
            if fi >= len(cases) and not presenting and settled(len(cases)) and len(outs) >= n_model_emit:
                break
        # drain: anything extra shows up now
        n_before = len(outs)
        for _ in range(50 + 2 * (9600 // kw)):
            await RisingEdge(d.clk)
            sample()
        if len(outs) != n_before or st["cur_out"] is not None:
            self.log.error("output after the run was complete: %d frames%s", len(outs) - n_before,
                           " and a partial frame" if st["cur_out"] is not None else "")
        return model, in_first, in_last, outs, stats, ready_low

    def check(self, cases, model, in_first, outs, stats, label, latency=False):
        kw = self.kw
        errs = []
        if len(stats) != len(cases):
            errs.append(f"{label}: {len(stats)} status events for {len(cases)} frames")
        rtl_emit = [i for i, s in enumerate(stats) if s[1]]
        if len(rtl_emit) != len(outs):
            errs.append(f"{label}: {len(outs)} output frames, {len(rtl_emit)} status emit=1; pairing by the model")
            rtl_emit = [i for i, r in enumerate(model) if r.emit]
        pair = dict(zip(rtl_emit, outs))
        lat_hist = {}
        for i, (c, r) in enumerate(zip(cases, model)):
            p = []
            if i < len(stats):
                oc, em, ln = stats[i]
                if oc != r.outcome or bool(em) != r.emit:
                    p.append(f"status {Outcome(oc).name if oc < 14 else oc}/emit={em} != model "
                             f"{r.outcome.name}/emit={int(r.emit)}")
            o = pair.get(i)
            if o is not None and r.emit:
                if o["keep_err"]:
                    p.append("; ".join(o["keep_err"]))
                if bool(o["tuser"]) != r.aborted:
                    p.append(f"tuser(abort)={o['tuser']} != model aborted={int(r.aborted)}")
                elif not r.aborted:
                    want_beats = -(-len(r.output) // kw)
                    if o["beats"] != want_beats:
                        p.append(f"{o['beats']} beats for a {len(r.output)}-byte output, contract {want_beats}")
                    if bytes(o["data"]) != r.output:
                        p.append(f"output bytes differ: got {bytes(o['data']).hex()} expected {r.output.hex()}")
                if latency and in_first[i] is not None and not r.aborted:
                    lat = o["first"] - in_first[i]
                    want = exact_latency(r, kw)
                    lat_hist[(lat, want)] = lat_hist.get((lat, want), 0) + 1
                    if lat != want:
                        p.append(f"latency {lat} cycles != contract {want}")
            elif o is not None and not r.emit:
                p.append("unexpected output frame")
            elif r.emit and i < len(stats):
                p.append("no output frame")
            if p:
                errs.append(f"{label} #{i} kind={c.kind} len={len(c.frame)} bad={int(c.bad)} "
                            f"model={r.outcome.name} need={r.need}: " + " | ".join(p) + f"\n    frame={c.frame.hex()}")
        if latency:
            self.log.info("%s latency histogram {(latency, contract): count}: %s", label,
                          dict(sorted(lat_hist.items())))
        if errs:
            path = mismatch_dir() / f"{label}_w{8 * kw}.txt"
            path.write_text("\n".join(errs) + "\n")
            for e in errs[:10]:
                self.log.error(e.splitlines()[0])
            self.log.error("%d problems in %s; details in %s", len(errs), label, path)
        return errs


def sized_frame(kind: str, L: int, rng: random.Random) -> bytes:
    """A frame of exactly L bytes of the given class."""
    if kind in ("plain", "plain_v6", "plain_vlan"):
        tags = (("q", 5),) if kind == "plain_vlan" else ()
        f = F.plain_frame(rng, L, tags, kind="udp6" if kind == "plain_v6" else "udp4")
        return (f + bytes(L))[:L] if len(f) < L else f[:L] if len(f) > L else f
    kw = dict(
        gre_l3=dict(proto=0x0800),
        gre_teb=dict(proto=0x6558),
        gre_v6=dict(proto=0x86DD, v6=True),
        gre_cks=dict(proto=0x0800, c=True, k=True, s=True),
        punt=dict(proto=0x88BE),
        drop_csum=dict(proto=0x0800, ip_csum=0x0101),
        gre_ecn=dict(proto=0x0800, outer_ecn=3),
        vlan_gre=dict(proto=0x0800, tags=(("ad", 3), ("q", 4)), ihl=7),
        gre_pad=dict(proto=0x0800),
    )[kind]
    hdr = F.gre_frame(b"", pad_to_min=False, **kw).K
    room = L - hdr
    if kind == "gre_pad":
        room = max(0, room - 17)
    if kind in ("gre_ecn",) and room >= 20:
        inner = bytes(F._inner_ipv4(rng, room - 28, 2, "udp"))
    else:
        inner = bytes(rng.getrandbits(8) for _ in range(max(0, room)))
    f = F.gre_frame(inner, pad_to_min=False, **kw).frame
    if len(f) < L:
        f += bytes(L - len(f))  # Ethernet padding beyond ip_end
    return f[:L]


KINDS = ["plain", "gre_l3", "gre_teb", "gre_v6", "gre_cks", "punt", "drop_csum", "gre_ecn", "vlan_gre",
         "plain_v6", "gre_pad", "plain_vlan"]


@cocotb.test()
async def test_full_throughput(dut):
    """(i)+(ii) back to back, no backpressure: s_axis_tready never falls; beats per frame."""
    b = Bench(dut)
    await b.reset()
    rng = random.Random(4242)
    lengths = list(range(60, 201)) + list(range(201, 2100, 37)) + [2048, 3001, 4096, 5555, 7000, 8191, 9000, 9599, 9600]
    cases = []
    for n, L in enumerate(lengths):
        kind = KINDS[n % len(KINDS)]
        f = sized_frame(kind, L, rng)
        assert len(f) == L
        cases.append(F.Case(f, False, f"{kind}_{L}"))
    # a few RX errors in the stream too
    for i in range(5, len(cases), 41):
        cases[i] = F.Case(cases[i].frame, True, cases[i].kind + "_rxerr")
    total_beats = sum(-(-len(c.frame) // b.kw) for c in cases)
    model, in_first, in_last, outs, stats, ready_low = await b.run(cases, GreConfig(), False, 4 * total_beats + 5000)
    errs = b.check(cases, model, in_first, outs, stats, "throughput")
    if ready_low:
        errs.append(f"s_axis_tready low in {len(ready_low)} cycles, first at cycles {ready_low[:10]}")
        dut._log.error(errs[-1])
    # back to back: every input beat in consecutive cycles
    gaps = [i for i in range(1, len(cases)) if in_first[i] is not None and in_last[i - 1] is not None
            and in_first[i] != in_last[i - 1] + 1]
    if gaps:
        errs.append(f"input not back to back before frames {gaps[:10]}")
    span = in_last[-1] - in_first[0] + 1 if in_last[-1] else -1
    dut._log.info("%d frames, %d input beats in %d cycles, %d outputs", len(cases), total_beats, span, len(outs))
    assert not errs, f"{len(errs)} problems, first: {errs[0].splitlines()[0]}"


@cocotb.test()
async def test_latency(dut):
    """(iii) idle pipeline, one frame at a time: every frame's exact latency; the seed frame's."""
    b = Bench(dut)
    await b.reset()
    cases = [F.Case(F.seed_gre_frame(i), False, "seed_gre") for i in range(3)]
    cases += [F.Case(F.seed_tcp_frame(i), False, "seed_tcp") for i in range(3)]
    cases += [c for c in F.contract_cases()]
    rng = random.Random(77)
    cases += [F.random_gre_case(rng, max_len=3000, big=0.0, bad_prob=0.0) for _ in range(150)]
    model, in_first, in_last, outs, stats, ready_low = await b.run(cases, GreConfig(), True, 2_000_000)
    errs = b.check(cases, model, in_first, outs, stats, "latency", latency=True)
    # the seed GRE frame (88 bytes: the window is complete with its last beat)
    rtl_emit = [i for i, s in enumerate(stats) if s[1]]
    pair = dict(zip(rtl_emit, outs))
    seed_lat = [pair[i]["first"] - in_first[i] for i in range(3) if i in pair]
    want = exact_latency(model[0], b.kw)
    dut._log.info("seed GRE frame latency at %d bits: %s cycles (contract %d)", 8 * b.kw, seed_lat, want)
    if seed_lat != [want] * 3:
        errs.append(f"seed GRE frame latency {seed_lat}, contract: {want} cycles")
    if ready_low:
        errs.append(f"s_axis_tready low in {len(ready_low)} cycles (first {ready_low[:5]})")
    assert not errs, f"{len(errs)} problems, first: {errs[0].splitlines()[0]}"
