"""cocotb tests of rtl/stream/axis_splice.sv (the shared byte-shifting engine), against the golden
model wirespeed/model/splice.py.

One driver/monitor coroutine does everything at the falling edge of every cycle: it reads the
registered outputs (s_axis_tready, m_axis_*), decides this cycle's inputs (a beat on s_axis,
the descriptor strobe, the LATE_EOF verdict strobe, m_axis_tready) and so knows exactly which
handshakes the next rising edge makes. That is what lets a descriptor come "in the cycle of the
frame's first beat" (the earliest the RTL contract allows) and what makes the cycle counts exact.

random_frames: random frames (1-beat frames up to 1514 bytes) with random descriptors that the
  contract allows and the tops use (pass, GRE-like strip keeping the outer L2 header, TEB strip,
  VXLAN-decap VLAN push, VXLAN-encap insert of 50/62 bytes, and fully random segments), random
  OUT_LEN (exact, cut with padding, longer than the frame: trunc), random patches (duplicate
  positions included: the later patch index wins), random drop, bad frames (tuser on the last
  beat, eof_bad), junk on every input the RTL must ignore (bytes outside the last beat's tkeep,
  tuser on other beats, descriptor fields without desc_valid, INS bytes past INS_LEN, disabled
  patch slots, eof_bad outside its sampling point), descriptors in frame order at random cycles
  from the cycle of the frame's first beat, sometimes later than the buffer covers (s_axis_tready
  then falls: legal), LATE_EOF verdicts in frame order from the cycle of the frame's last beat,
  random idle on s_axis and backpressure on m_axis in phases. Every output frame is compared
  with the model: bytes, tkeep shape, zero bytes outside tkeep, tuser, tmeta on every beat; the
  number of output frames is the number of frames not dropped.

cycles: the deterministic timing (see the constants below), asserted exactly.

Parameters come from the DUT's port widths (DATA_W, INS_MAX, PATCHES, META_W, LEN_W) and from
the environment (the pytest entry sets them with the build parameters): WS_SPLICE_BUF_BEATS,
WS_SPLICE_LATE_EOF; WS_SPLICE_SEED (default 0) reseeds every random stream; WS_SPLICE_FRAMES
(default 1) scales random_frames' frame count.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass, field

import cocotb
from cocotb.triggers import FallingEdge

from tb.common.bench import clock_and_reset
from wirespeed.model.splice import SpliceDesc, SpliceResult, avail_bytes, beats, splice

BUF_BEATS = int(os.environ.get("WS_SPLICE_BUF_BEATS", "8"))
LATE_EOF = int(os.environ.get("WS_SPLICE_LATE_EOF", "0"))
OUT_PIPE = int(os.environ.get("WS_SPLICE_OUT_PIPE", "0"))
DESC_PIPE = int(os.environ.get("WS_SPLICE_DESC_PIPE", "0"))
END_PIPE = int(os.environ.get("WS_SPLICE_END_PIPE", "0"))
SEED = int(os.environ.get("WS_SPLICE_SEED", "0"))
FRAMES_SCALE = float(os.environ.get("WS_SPLICE_FRAMES", "1"))  # share of random_frames' frames

# ------------------------------------------------------------------------------ timing constants
# Measured on the current RTL, output always ready, input back to back, each descriptor in the
# cycle of its frame's first beat (and, LATE_EOF = 1, each verdict in the cycle of its frame's
# last beat). Cycles are counted between handshakes (rising edges). The same at LATE_EOF 0 and 1
# and with the BUF_BEATS/FRAMES the pytest entry builds. OUT_PIPE = 1 (the plan registered before
# the data path) adds one cycle to every latency and changes no cycles per frame. DESC_PIPE = 1
# (the descriptor registered) makes the descriptor usable a cycle after it comes: output beat 0
# is then computed no earlier than the cycle after the first input beat, so only latencies of 1
# grow (to 2); a frame whose beat 0 waits for a later input beat has its descriptor by then.
#
# CYCLES[kind][DATA_W] = (first-output latency, cycles per frame):
#   latency: first output handshake - first input handshake, for a frame reaching an idle
#     engine. Cut-through: output beat 0 is computed in the cycle that brings the last input beat
#     it reads (the beat arriving is used directly; INS bytes need no input beat at all) and taken
#     from the output register one cycle later. It reads the input beat holding the highest
#     frame byte of its KEEP_W positions, hence "strip 38" at 128 bits waits for byte 14 + 38 - 14
#     + 1 = 39 of the frame's SEG2, in input beat 2: latency 3. A frame of one output beat waits
#     for the input's last beat (the last output beat always does).
#   cycles per frame: from the second frame of a back-to-back burst on, both on the output (first
#     beat to first beat) and, once inserted bytes have filled the buffer, on the input:
#     max(input beats, output beats): one beat per cycle on each side. When the output has at
#     least as many beats as the input it never idles (a frame's first output beat follows the
#     previous frame's last in the next cycle); s_axis_tready stays high unless the output has
#     more beats than the input. (One input frame may take a cycle more than its beats while
#     the buffer fills: s_axis_tready is computed from the oldest beat still needed as it was
#     a cycle before.)
# `cycle_kinds` gives the frames and descriptors of each kind.
CYCLES: dict[str, dict[int, tuple[int, int]]] = {
    "pass 60":         {64: (1, 8),   128: (1, 4),  256: (1, 2),  512: (1, 1)},
    "pass 1514":       {64: (1, 190), 128: (1, 95), 256: (1, 48), 512: (1, 24)},
    "strip 38":        {64: (1, 25),  128: (3, 13), 256: (2, 7),  512: (2, 4)},
    "insert 50":       {64: (1, 19),  128: (1, 10), 256: (1, 5),  512: (1, 3)},
    "insert 50, 1514": {64: (1, 196), 128: (1, 98), 256: (1, 49), 512: (1, 25)},
    "cut 46":          {64: (1, 8),   128: (1, 4),  256: (1, 2),  512: (1, 1)},
}


def cycle_kinds() -> dict[str, tuple[int, SpliceDesc]]:
    """The frames of the cycle test: (frame length, descriptor) by kind."""
    return {
        # passthrough: the minimum frame, and a full one
        "pass 60": (60, SpliceDesc()),
        "pass 1514": (1514, SpliceDesc()),
        # GRE-like strip: outer L2 kept, 24 bytes of IPv4 + GRE removed, payload from byte 38
        "strip 38": (200, SpliceDesc(seg1_len=14, seg2_off=38, out_len=200 - 24)),
        # VXLAN encap: 50 bytes of outer headers inserted, OUT_LEN = frame + 50
        "insert 50": (100, SpliceDesc(ins=bytes(range(1, 51)), out_len=150)),
        "insert 50, 1514": (1514, SpliceDesc(ins=bytes(range(1, 51)), out_len=1564)),
        # OUT_LEN cut: a 60-byte frame whose last 14 bytes are Ethernet padding
        "cut 46": (60, SpliceDesc(seg1_len=14, seg2_off=14, out_len=46)),
    }


def predicted(n: int, desc: SpliceDesc, kw: int) -> tuple[int, int]:
    """(latency, cycles per frame) by the rules above, to cross-check the CYCLES table."""
    in_beats = beats(n, kw)
    out_beats = beats(len(splice(bytes(n), desc).output or b""), kw)
    if out_beats == 1:
        need = in_beats - 1
    else:
        if kw > desc.ins_end:  # SEG2 bytes in beat 0: the highest position reads the most
            hi: int | None = desc.seg2_off + kw - 1 - desc.ins_end
        elif desc.seg1_len:
            hi = desc.seg1_off + min(kw, desc.seg1_len) - 1
        else:
            hi = None  # INS only: the frame's first beat (it must have begun)
        need = 0 if hi is None else min(hi // kw, in_beats - 1)
    return need + 1, max(in_beats, out_beats)


# ------------------------------------------------------------------------------ cases


@dataclass
class Case:
    frame: bytes
    desc: SpliceDesc
    exp: SpliceResult
    tuser_last: bool = False  # s_axis_tuser on the last beat
    eof_bad: bool = False  # the eof_bad verdict
    anchor: int = 0  # the descriptor comes `desc_delay` cycles after this input beat's handshake
    desc_delay: int = 0
    verdict_delay: int = 0  # LATE_EOF: cycles from the last beat's handshake to the verdict
    ins_field: int = 0  # desc_ins_data as driven (INS, then junk past INS_LEN)
    patch_en: int = 0
    patch_pos: int = 0
    patch_val: int = 0
    tuser_mid: list[int] = field(default_factory=list)  # beats (not the last) with junk tuser
    label: str = ""


class Bench:
    def __init__(self, dut) -> None:
        self.dut = dut
        self.kw = len(dut.s_axis_tkeep)
        self.ins_max = len(dut.desc_ins_data) // 8
        self.n_patch = len(dut.desc_patch_en)
        self.meta_w = len(dut.desc_meta)
        self.len_w = len(dut.desc_out_len)
        self.log = dut._log
        self.cycle = 0
        self.frames_in = 0
        self.frames_out = 0
        self.frames_dropped = 0
        self.ready_low = 0  # cycles with s_axis_tready low while a beat was offered
        self._last: dict[str, int] = {}

    async def reset(self) -> None:
        await clock_and_reset(
            self.dut,
            ("s_axis_tvalid", "s_axis_tdata", "s_axis_tkeep", "s_axis_tlast", "s_axis_tuser",
             "desc_valid", "desc_drop", "desc_seg1_off", "desc_seg1_len", "desc_ins_len",
             "desc_ins_data", "desc_seg2_off", "desc_len_valid", "desc_out_len", "desc_patch_en",
             "desc_patch_pos", "desc_patch_val", "desc_meta", "eof_valid", "eof_bad",
             "m_axis_tready"),
        )

    def put(self, name: str, value: int) -> None:
        """Drive an input, skipping writes of an unchanged value (512-bit writes are slow)."""
        if self._last.get(name) != value:
            getattr(self.dut, name).value = value
            self._last[name] = value

    # -------------------------------------------------------------------------- case building

    def make_case(self, frame: bytes, desc: SpliceDesc, rng: random.Random | None = None,
                  tuser_last: bool = False, eof_bad: bool = False, anchor: int = 0,
                  desc_delay: int = 0, verdict_delay: int = 0, label: str = "") -> Case:
        """A case with its expected result; `rng` adds junk where the RTL must ignore it."""
        ins_field = int.from_bytes(desc.ins, "little")
        if rng is not None and len(desc.ins) < self.ins_max:
            junk = rng.getrandbits(8 * (self.ins_max - len(desc.ins)))
            ins_field |= junk << (8 * len(desc.ins))
        en = pos = val = 0
        slots = list(range(self.n_patch))
        assert len(desc.patches) <= self.n_patch
        if rng is not None:
            # the enabled patches keep their order over randomly chosen slots
            slots = sorted(rng.sample(slots, len(desc.patches)))
        for slot, (p, v) in zip(slots, desc.patches):
            en |= 1 << slot
            pos |= p << (8 * slot)
            val |= v << (8 * slot)
        if rng is not None:
            for slot in range(self.n_patch):
                if not en >> slot & 1:
                    pos |= rng.getrandbits(8) << (8 * slot)
                    val |= rng.getrandbits(8) << (8 * slot)
        nb = beats(len(frame), self.kw)
        mid = [b for b in range(nb - 1) if rng is not None and rng.random() < 0.05]
        return Case(
            frame=frame, desc=desc, exp=splice(frame, desc, tuser_last or eof_bad),
            tuser_last=tuser_last, eof_bad=eof_bad, anchor=anchor, desc_delay=desc_delay,
            verdict_delay=verdict_delay, ins_field=ins_field, patch_en=en, patch_pos=pos,
            patch_val=val, tuser_mid=mid, label=label or f"{len(frame)} B",
        )

    def s2_max(self) -> int:
        """Largest SEG2_OFF the random test uses: 255 (the field), or what the buffer allows.
        The RTL keeps a frame from its beat 0 until output beat 0 leaves, and with SEG1 and INS
        empty output beat 0 reads up to frame byte SEG2_OFF + KEEP_W - 1: past beat BUF_BEATS - 1
        it would wait forever with s_axis_tready low (64 bits, BUF_BEATS = 32: SEG2_OFF = 249
        hangs, 248 passes). The header comment does not state this limit; no top comes close
        (their headers end before byte 128 and BUF_BEATS is sized for that)."""
        return min(255, (BUF_BEATS - 1) * self.kw)

    def random_case(self, rng: random.Random, idx: int) -> Case:
        kw = self.kw
        r = rng.random()
        if r < 0.15:
            n = rng.randint(1, kw)
        elif r < 0.25:
            n = 60
        elif r < 0.30:
            n = 1514
        elif r < 0.40:
            n = max(1, kw * rng.randint(1, 12) + rng.choice((-1, 0, 1)))
        else:
            n = rng.randint(1, 400)
        frame = rng.randbytes(n)
        s2max = min(self.s2_max(), n - 1)  # SEG2 keeps a byte at least (see empty_seg2 test)
        ins_max = min(self.ins_max, 255)
        s1off = s1len = s2off = 0
        ins = b""
        kind = rng.choice(("pass", "pass", "strip", "teb", "push", "encap", "random", "random"))
        if kind == "strip" and s2max >= 14:
            s1len = rng.choice([x for x in (14, 18, 22) if x <= s2max])
            s2off = rng.randint(s1len, s2max)
        elif kind == "teb":
            s2off = s2max if rng.random() < 0.1 else rng.randint(0, s2max)
            s1off = rng.choice((0, s2off))
        elif kind == "push" and s2max >= 12 and ins_max >= 4:
            s1off = rng.randint(0, s2max - 12)
            s1len = 12
            ins = rng.randbytes(4)
            s2off = s1off + 12
        elif kind == "encap":
            ln = rng.choice((50, 62))
            ins = rng.randbytes(min(ln, ins_max))
            s2off = 16 if ln == 62 and s2max >= 16 else 0
        elif kind == "random":
            s2off = s2max if rng.random() < 0.1 else rng.randint(0, s2max)
            s1len = rng.randint(0, min(s2off, 64))
            s1off = rng.randint(0, s2off - s1len)
            ins = rng.randbytes(rng.choice((0, rng.randint(0, ins_max), ins_max)))
        else:
            kind = "pass"
            s1off = rng.choice((0, rng.randint(0, 255)))  # an empty SEG1 may point anywhere
        if s1len == 0 and kind != "pass" and rng.random() < 0.3:
            s1off = rng.randint(0, 255)
        avail = s1len + len(ins) + n - s2off
        r = rng.random()
        if r < 0.4:
            out_len = None
        elif r < 0.55:
            out_len = avail
        elif r < 0.75:
            out_len = rng.randint(1, avail)  # cut: the rest is padding
        elif r < 0.92:
            out_len = avail + rng.choice((1, rng.randint(1, 3 * kw), rng.randint(1, 300)))  # trunc
        else:
            out_len = rng.randint(1, min(avail + 100, (1 << self.len_w) - 1))
        patches: list[tuple[int, int]] = []
        if rng.random() < 0.5:
            top = min(255, (out_len or avail) + 4)
            for _ in range(rng.randint(1, self.n_patch)):
                if patches and rng.random() < 0.2:
                    p = rng.choice(patches)[0]  # the same position again: the later one wins
                else:
                    p = rng.randint(0, top) if rng.random() < 0.9 else rng.randint(0, 255)
                patches.append((p, rng.getrandbits(8)))
        desc = SpliceDesc(
            seg1_off=s1off, seg1_len=s1len, ins=ins, seg2_off=s2off, out_len=out_len,
            patches=tuple(patches), drop=rng.random() < 0.1, meta=rng.getrandbits(self.meta_w),
        )
        # When the descriptor comes: after the handshake of an input beat no later than the
        # buffer can hold while it waits (else nothing would ever bring that beat in), then
        # 0..40 cycles more (later than the buffer covers: s_axis_tready falls, legal).
        nb = beats(n, kw)
        cap = min(nb - 1, BUF_BEATS - 1)
        r = rng.random()
        if r < 0.35:
            anchor = 0
        elif r < 0.6:
            anchor = min(cap, min(n - 1, s2off + 16) // kw)  # "the beat completing the headers"
        elif r < 0.8:
            anchor = cap  # the last beat when the frame is short
        else:
            anchor = rng.randint(0, cap)
        r = rng.random()
        delay = 0 if r < 0.6 else rng.randint(1, 4) if r < 0.85 else rng.randint(5, 40)
        r = rng.random()
        vdelay = 0 if r < 0.4 else rng.randint(1, 4) if r < 0.8 else rng.randint(5, 30)
        bad = rng.random()
        return self.make_case(
            frame, desc, rng, tuser_last=bad < 0.08, eof_bad=0.08 <= bad < 0.16, anchor=anchor,
            desc_delay=delay, verdict_delay=vdelay, label=f"#{idx} {kind} {n} B",
        )

    # -------------------------------------------------------------------------- the run

    async def run(self, cases: list[Case], rng: random.Random, p_idle: float = 0.0,
                  p_stall: float = 0.0, junk: bool = True, where: str = "") -> dict:
        """Drive `cases`, check every output frame against its model result. Returns timing:
        handshake cycles of each frame's first/last input beat and first/last output beat
        (output lists hold the frames not dropped, in order), and the descriptor cycles."""
        d = self.dut
        kw = self.kw
        full = (1 << kw) - 1
        n = len(cases)
        expect = [c for c in cases if not c.exp.dropped]
        # the input beats: (case index, beat index, data, keep, last, user)
        stream = []
        for ci, c in enumerate(cases):
            nb = beats(len(c.frame), kw)
            for b in range(nb):
                chunk = c.frame[b * kw : (b + 1) * kw]
                data = int.from_bytes(chunk, "little")
                if junk and len(chunk) < kw:  # bytes past tkeep: junk the RTL must not leak
                    data |= rng.getrandbits(8 * (kw - len(chunk))) << (8 * len(chunk))
                last = b == nb - 1
                user = c.tuser_last if last else (b in c.tuser_mid)
                stream.append((ci, b, data, (1 << len(chunk)) - 1, int(last), int(user)))
        t: dict[str, list] = {"in_first": [None] * n, "in_last": [None] * n, "desc": [None] * n,
                              "verdict": [None] * n, "out_first": [], "out_last": []}
        desc_at: list[int | None] = [None] * n
        ver_at: list[int | None] = [None] * n
        bi = 0
        offered = False
        di = vi = 0
        outs: list[list[tuple[int, int, int, int, int]]] = []
        cur: list[tuple[int, int, int, int, int]] = []
        tot = sum(beats(len(c.frame), kw) + beats(len(c.exp.output or b"x"), kw) for c in cases)
        limit = 2000 + int(10 * tot / (1 - max(p_idle, p_stall)))
        start = self.cycle
        while True:
            await FallingEdge(d.clk)
            self.cycle += 1
            cyc = self.cycle
            assert cyc - start < limit, (
                f"{where}: stuck after {limit} cycles: input beat {bi}/{len(stream)}, descriptor "
                f"{di}/{n}, verdict {vi}/{n}, output frames {len(outs)}/{len(expect)} "
                f"(+{len(cur)} beats), s_axis_tready {int(d.s_axis_tready.value)}")
            s_ready = int(d.s_axis_tready.value)
            m_valid = int(d.m_axis_tvalid.value)

            # s_axis: a beat once offered stays until taken
            if not offered and bi < len(stream) and (p_idle == 0 or rng.random() >= p_idle):
                ci, b, data, keep, last, user = stream[bi]
                self.put("s_axis_tdata", data)
                self.put("s_axis_tkeep", keep)
                self.put("s_axis_tlast", last)
                self.put("s_axis_tuser", user)
                self.put("s_axis_tvalid", 1)
                offered = True
            elif not offered:
                self.put("s_axis_tvalid", 0)
            s_hs = offered and s_ready
            if offered and not s_ready:
                self.ready_low += 1
            cur_beat = stream[bi] if offered else None
            if s_hs:
                ci, b, _, _, last, _ = stream[bi]
                c = cases[ci]
                if b == 0:
                    t["in_first"][ci] = cyc
                if b == c.anchor:
                    desc_at[ci] = cyc + c.desc_delay
                if last:
                    t["in_last"][ci] = cyc
                    ver_at[ci] = cyc + c.verdict_delay
                    self.frames_in += 1

            # the descriptor strobe, in frame order
            at = desc_at[di] if di < n else None
            if at is not None and at <= cyc:
                c = cases[di]
                ds = c.desc
                self.put("desc_valid", 1)
                self.put("desc_drop", int(ds.drop))
                self.put("desc_seg1_off", ds.seg1_off)
                self.put("desc_seg1_len", ds.seg1_len)
                self.put("desc_ins_len", len(ds.ins))
                self.put("desc_ins_data", c.ins_field)
                self.put("desc_seg2_off", ds.seg2_off)
                self.put("desc_len_valid", int(ds.out_len is not None))
                self.put("desc_out_len", ds.out_len or 0)
                self.put("desc_patch_en", c.patch_en)
                self.put("desc_patch_pos", c.patch_pos)
                self.put("desc_patch_val", c.patch_val)
                self.put("desc_meta", ds.meta)
                t["desc"][di] = cyc
                di += 1
            else:
                self.put("desc_valid", 0)
                if junk and rng.random() < 0.1:  # fields without desc_valid: ignored
                    self.put("desc_drop", rng.getrandbits(1))
                    self.put("desc_seg1_len", rng.getrandbits(8))
                    self.put("desc_seg2_off", rng.getrandbits(8))
                    self.put("desc_out_len", rng.getrandbits(self.len_w))
                    self.put("desc_patch_en", rng.getrandbits(self.n_patch))
                    self.put("desc_meta", rng.getrandbits(self.meta_w))

            # the verdict
            if LATE_EOF:
                at = ver_at[vi] if vi < n else None
                if at is not None and at <= cyc:
                    self.put("eof_valid", 1)
                    self.put("eof_bad", int(cases[vi].eof_bad))
                    t["verdict"][vi] = cyc
                    vi += 1
                else:
                    self.put("eof_valid", 0)
                    self.put("eof_bad", int(junk and rng.random() < 0.3))  # ignored
            else:
                # sampled with the last beat's handshake only
                if cur_beat is not None and cur_beat[4]:
                    self.put("eof_bad", int(cases[cur_beat[0]].eof_bad))
                else:
                    self.put("eof_bad", int(junk and rng.random() < 0.3))
                self.put("eof_valid", int(junk and rng.random() < 0.3))  # unused
                vi = di

            # m_axis
            m_ready = int(p_stall == 0 or rng.random() >= p_stall)
            self.put("m_axis_tready", m_ready)
            if m_valid and m_ready:
                beat = (int(d.m_axis_tdata.value), int(d.m_axis_tkeep.value),
                        int(d.m_axis_tlast.value), int(d.m_axis_tuser.value),
                        int(d.m_axis_tmeta.value))
                if not cur:
                    t["out_first"].append(cyc)
                cur.append(beat)
                if beat[2]:
                    t["out_last"].append(cyc)
                    k = len(outs)
                    assert k < len(expect), f"{where}: an output frame more than the {len(expect)} expected"
                    self.check(cur, expect[k], full, where)
                    outs.append(cur)
                    cur = []

            if s_hs:
                bi += 1
                offered = False
            if bi == len(stream) and di == n and vi == n and len(outs) == len(expect) and not cur:
                break
        self.frames_out += len(outs)
        self.frames_dropped += n - len(expect)
        return t

    def check(self, beats_: list[tuple[int, int, int, int, int]], c: Case, full: int, where: str) -> None:
        kw = self.kw
        exp = c.exp
        assert exp.output is not None
        tag = f"{where}: frame {c.label} {c.desc}"
        out = bytearray()
        for i, (data, keep, last, user, meta) in enumerate(beats_):
            is_last = i == len(beats_) - 1
            assert last == int(is_last), f"{tag}: tlast {last} on beat {i} of {len(beats_)}"
            if not is_last:
                assert keep == full, f"{tag}: tkeep {keep:#x} on beat {i}, not the last"
                assert user == 0, f"{tag}: tuser on beat {i}, not the last"
            else:
                assert keep and keep & (keep + 1) == 0, f"{tag}: last tkeep {keep:#x} not 0..01..1"
                assert user == int(exp.user), f"{tag}: tuser {user} on the last beat, expected {int(exp.user)}"
            assert meta == exp.meta, f"{tag}: tmeta {meta:#x} on beat {i}, expected {exp.meta:#x}"
            nb = keep.bit_length()
            assert data >> (8 * nb) == 0, f"{tag}: beat {i}: bytes outside tkeep are not zero"
            out += data.to_bytes(kw, "little")[:nb]
        assert bytes(out) == exp.output, (
            f"{tag}: {len(out)} bytes out, {len(exp.output)} expected\n"
            f"  got      {bytes(out).hex()}\n  expected {exp.output.hex()}")

    async def idle_check(self, cycles: int) -> None:
        """Nothing leaves while nothing comes in."""
        d = self.dut
        self.put("s_axis_tvalid", 0)
        self.put("desc_valid", 0)
        self.put("eof_valid", 0)
        self.put("m_axis_tready", 1)
        for _ in range(cycles):
            await FallingEdge(d.clk)
            self.cycle += 1
            assert not int(d.m_axis_tvalid.value), "an output beat nobody asked for"
            assert int(d.s_axis_tready.value), "s_axis_tready low on an idle engine"


# ------------------------------------------------------------------------------ tests


@cocotb.test()
async def random_frames(dut):
    """Random frames, descriptors, verdicts, idle and backpressure against the model."""
    bench = Bench(dut)
    await bench.reset()
    kw = bench.kw
    rng = random.Random(f"axis_splice {kw} {LATE_EOF} {SEED}")
    # (frames, p_idle, p_stall); the wider the bus, the cheaper a frame
    scale = {8: 2, 16: 3, 32: 4, 64: 5}[kw]
    phases = [(600, 0.0, 0.0), (500, 0.3, 0.0), (500, 0.0, 0.5), (500, 0.3, 0.3), (300, 0.7, 0.1),
              (300, 0.05, 0.85)]
    # what the run went through (each must happen, or the test did not test it)
    cov = dict.fromkeys((
        "one-beat frame", "1514 B", "drop", "tuser", "eof_bad", "trunc", "cut (padding)",
        "INS", "INS_MAX bytes", "SEG1 and SEG2", "SEG2_OFF at the limit", "patches",
        "same patch position twice", "descriptor in the first beat's cycle",
        "descriptor after the frame's end", "descriptor later than BUF_BEATS beats",
        "verdict in the last beat's cycle", "verdict after the last beat"), 0)
    idx = 0
    for count, p_idle, p_stall in phases:
        cases = [bench.random_case(rng, idx + i) for i in range(round(count * scale * FRAMES_SCALE))]
        idx += len(cases)
        where = f"DATA_W {8 * kw} LATE_EOF {LATE_EOF}, idle {p_idle} stall {p_stall}"
        t = await bench.run(cases, rng, p_idle, p_stall, where=where)
        for i, c in enumerate(cases):
            d, n = c.desc, len(c.frame)
            avail = avail_bytes(n, d)
            pos = [p for p, _ in d.patches]
            cov["one-beat frame"] += n <= kw
            cov["1514 B"] += n == 1514
            cov["drop"] += d.drop
            cov["tuser"] += c.tuser_last
            cov["eof_bad"] += c.eof_bad
            cov["trunc"] += c.exp.trunc and not d.drop
            cov["cut (padding)"] += d.out_len is not None and d.out_len < avail and not d.drop
            cov["INS"] += bool(d.ins)
            cov["INS_MAX bytes"] += len(d.ins) == bench.ins_max
            cov["SEG1 and SEG2"] += d.seg1_len > 0 and n > d.seg2_off
            cov["SEG2_OFF at the limit"] += d.seg2_off == bench.s2_max()
            cov["patches"] += bool(pos)
            cov["same patch position twice"] += len(set(pos)) < len(pos)
            cov["descriptor in the first beat's cycle"] += t["desc"][i] == t["in_first"][i]
            cov["descriptor after the frame's end"] += t["desc"][i] > t["in_last"][i]
            cov["descriptor later than BUF_BEATS beats"] += (
                c.anchor == min(beats(n, kw) - 1, BUF_BEATS - 1) and c.desc_delay > 2 and n > BUF_BEATS * kw)
            if LATE_EOF:
                cov["verdict in the last beat's cycle"] += t["verdict"][i] == t["in_last"][i]
                cov["verdict after the last beat"] += t["verdict"][i] > t["in_last"][i]
    await bench.idle_check(2 * BUF_BEATS)
    dut._log.info("%d frames in, %d out, %d dropped; s_axis_tready low under a beat %d cycles of "
                  "%d; %s", bench.frames_in, bench.frames_out, bench.frames_dropped,
                  bench.ready_low, bench.cycle, ", ".join(f"{k}: {v}" for k, v in cov.items()))
    assert bench.frames_in == bench.frames_out + bench.frames_dropped
    assert bench.ready_low > 0, "s_axis_tready never fell: backpressure was not exercised"
    if not LATE_EOF:
        del cov["verdict in the last beat's cycle"], cov["verdict after the last beat"]
    if BUF_BEATS * kw >= 1514:
        del cov["descriptor later than BUF_BEATS beats"]  # no frame is longer than the buffer
    missed = [k for k, v in cov.items() if not v]
    assert not missed, f"never exercised: {missed}"


@cocotb.test()
async def cycles(dut):
    """Deterministic timing (CYCLES): output never stalled, input back to back, each descriptor
    in the cycle of its frame's first beat (each verdict in the cycle of its frame's last beat)."""
    bench = Bench(dut)
    await bench.reset()
    kw = bench.kw
    rng = random.Random(1)
    errors = []
    for name, (n, desc) in cycle_kinds().items():
        if len(desc.ins) > bench.ins_max:
            continue
        in_beats = beats(n, kw)
        out_beats = beats(len(splice(bytes(n), desc).output or b""), kw)
        # long enough for inserted bytes to fill the buffer (the input then slows to the
        # output's rate), and for a few steady frames after that
        burst = 6 if n > 1000 else 20
        if out_beats > in_beats:
            burst += -(-2 * BUF_BEATS // (out_beats - in_beats))
        cases = [bench.make_case(rng.randbytes(n), desc, label=f"{name} #{i}") for i in range(burst)]
        low0 = bench.ready_low
        t = await bench.run(cases, rng, junk=False, where=f"cycles {name}")
        low = bench.ready_low - low0
        lat = t["out_first"][0] - t["in_first"][0]
        per_out = [b - a for a, b in zip(t["out_first"], t["out_first"][1:])]
        per_in = [b - a for a, b in zip(t["in_first"], t["in_first"][1:])]
        gap = {b - a for a, b in zip(t["out_last"], t["out_first"][1:])}
        dut._log.info("DATA_W %d LATE_EOF %d OUT_PIPE %d DESC_PIPE %d END_PIPE %d %-16s in %3d beats, out %3d: latency %d, cycles per "
                      "frame out %s, in %s, last-to-next-first %s, s_axis_tready low %d",
                      8 * kw, LATE_EOF, OUT_PIPE, DESC_PIPE, END_PIPE, name, in_beats, out_beats, lat, sorted(set(per_out[1:])),
                      per_in, gap, low)
        exp_lat, period = CYCLES[name][8 * kw]
        if (exp_lat, period) != predicted(n, desc, kw):
            errors.append(f"{name}: the table says {(exp_lat, period)}, the rules {predicted(n, desc, kw)}")
        exp_lat = max(exp_lat - 1 + END_PIPE, DESC_PIPE) + 1 + OUT_PIPE
        if lat != exp_lat:
            errors.append(f"{name}: first output {lat} cycles after the first input beat, not {exp_lat}")
        # the first frame starts on an idle engine; from the second on, steady
        if per_out[1:] != [period] * (burst - 2):
            errors.append(f"{name}: output cycles per frame {per_out}, not {period}")
        # the input runs at its own rate until inserted bytes fill the buffer, then at the output's;
        # one frame may fall in between (s_axis_tready follows the buffer's release a cycle late)
        fill = next((i for i, p in enumerate(per_in) if p != in_beats), len(per_in))
        if fill < len(per_in) and in_beats < per_in[fill] < period:
            fill += 1
        if per_in[fill:] != [period] * (len(per_in) - fill) or per_in[-1] != period:
            errors.append(f"{name}: input cycles per frame {per_in}: not {in_beats} then {period}")
        if out_beats >= in_beats and gap != {1}:
            errors.append(f"{name}: cycles from a frame's last output beat to the next one's first: {gap}")
        if (low != 0) != (out_beats > in_beats):
            errors.append(f"{name}: s_axis_tready low {low} cycles with {in_beats} beats in, {out_beats} out")
        await bench.idle_check(2 * BUF_BEATS)
    assert not errors, "\n".join(errors)


@cocotb.test()
async def empty_seg2(dut):
    """SEG2 supplies no byte (the frame ends at or before SEG2_OFF): the output is SEG1 + INS.

    The hard case: SEG1 + INS end on a beat boundary and the output length is not known before
    the frame ends (no OUT_LEN, or an OUT_LEN the frame turns out too short for). The engine
    once sent output beat 0 before the input's last beat as a beat that is not the last, and
    when the frame ended with nothing for SEG2 all that was left was an empty last beat,
    tkeep = 0 with tlast (rtl/sim/axis_monitor.sv: AXIS-KEEP); such a beat now waits for
    SEG2's first byte or the frame's end. The controls first: OUT_LEN exact, the end not
    aligned.
    Smallest case: a 2-beat frame of KEEP_W + 1 bytes, SEG1 = [0, KEEP_W), SEG2_OFF = KEEP_W + 1,
    no INS, no OUT_LEN, the descriptor with the first beat: the output must be one beat,
    frame[0:KEEP_W] with tlast (it was beat 0 without tlast, then tkeep = 0, tlast = 1)."""
    bench = Bench(dut)
    await bench.reset()
    kw = bench.kw
    rng = random.Random(2)
    n = kw + 1  # two input beats; the descriptor comes with the first
    frame = bytes((0x10 + i) & 0xFF for i in range(n))
    ins = bytes(range(0xA0, 0xA0 + min(kw, bench.ins_max)))
    variants = [
        ("control: OUT_LEN exact", SpliceDesc(seg1_len=kw, seg2_off=n, out_len=kw)),
        ("control: SEG1 + INS not aligned", SpliceDesc(seg1_len=kw - 1, seg2_off=n)),
        ("SEG1 = the first beat, SEG2_OFF = frame length", SpliceDesc(seg1_len=kw, seg2_off=n)),
        ("SEG1 = the first beat, SEG2_OFF past the frame", SpliceDesc(seg1_len=kw, seg2_off=n + 3)),
        ("SEG1 = the first beat, trunc", SpliceDesc(seg1_len=kw, seg2_off=n, out_len=n)),
    ]
    if len(ins) == kw:
        variants.append(("INS only, one beat of it", SpliceDesc(ins=ins, seg2_off=n)))
    for label, desc in variants:
        await bench.run([bench.make_case(frame, desc, label=label)], rng, junk=False,
                        where=f"empty SEG2, DATA_W {8 * kw}")
        await bench.idle_check(4)
