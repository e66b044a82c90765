"""Golden model of `axis_splice` (rtl/stream/axis_splice.sv), the byte-shifting engine every
tunnel block shares, written from the contract in the RTL's header comment.

Pure Python on bytes/ints, like the other models. Every frame is rewritten as three segments,
then byte patches:

    output = frame[SEG1_OFF : SEG1_OFF+SEG1_LEN] + INS[:INS_LEN] + frame[SEG2_OFF:]

optionally cut to exactly OUT_LEN bytes (`desc_len_valid`), or dropped (`desc_drop`).

`splice(frame, desc, bad=False)` returns a `SpliceResult`:

- `output`: the bytes that leave on `m_axis`, or None when the frame is dropped (consumed,
  nothing out). Aborted frames are included: they leave as far as they go.
- `user`:   `m_axis_tuser` of the frame's last output beat (0 on the others): the frame is bad
  (`bad`: `s_axis_tuser` on its last input beat, or the `eof_bad` verdict) or truncated.
- `trunc`:  OUT_LEN was asked for and the frame could not supply it; `output` is then every byte
  the segments could supply.
- `meta`:   `m_axis_tmeta` of every output beat (`desc_meta`).

What the RTL does, step by step (the numbers are quoted in the code):

1. SEG1: output byte o < SEG1_LEN is frame byte SEG1_OFF + o.
2. INS:  output byte o in [SEG1_LEN, SEG1_LEN+INS_LEN) is INS byte o - SEG1_LEN.
3. SEG2: output byte o >= SEG1_LEN+INS_LEN is frame byte SEG2_OFF + (o - SEG1_LEN - INS_LEN).
4. Length: the segments can supply `avail = SEG1_LEN + INS_LEN + max(0, len(frame) - SEG2_OFF)`
   bytes. With `desc_len_valid` the output is OUT_LEN bytes when OUT_LEN <= avail (trailing
   Ethernet padding discarded), else `avail` bytes and the frame is trunc; without it, `avail`.
5. Patches, after the segments, in patch index order: output byte `pos` becomes `val`, so when
   two enabled patches name the same position the higher index wins. A patch at or past the
   output's end changes nothing (the byte does not exist).
6. `user` = bad or trunc; nothing leaves for a dropped frame (its badness does not matter).

Outside the contract (the model raises ValueError, the RTL's behaviour is not defined):

- An empty frame (an AXI4-Stream frame has a byte at least).
- A non-empty SEG1 that is out of order (SEG1_OFF+SEG1_LEN > SEG2_OFF) or reaches past the
  frame's end: the RTL would read buffer bytes that are not the frame's. (An empty SEG1 may
  have any SEG1_OFF: vxlan_decap passes frames with SEG1_OFF = K, SEG1_LEN = 0, SEG2_OFF = 0.)
- A frame that is not dropped but would leave with no byte at all (OUT_LEN = 0, or nothing the
  segments can supply): the RTL then sends a one-beat frame with tkeep = 0, which the
  AXI4-Stream contract (and rtl/sim/axis_monitor.sv, AXIS-KEEP) forbids. No top produces one:
  a decapsulated frame keeps at least its payload, a passed frame is the whole frame.
- 8-bit fields out of range (SEG1_OFF, SEG1_LEN, INS_LEN, SEG2_OFF, patch positions and
  values), or a negative OUT_LEN.

The model does not know INS_MAX: an RTL built with INS_MAX < INS_LEN sends zeros for INS bytes
INS_MAX.. (pass at most INS_MAX bytes). Timing (cut-through, when a beat leaves) is not part
of the model: the test bench (tb/axis_splice/) measures it.
"""

from __future__ import annotations

from dataclasses import dataclass

from .common import beats, frame_bytes

__all__ = [
    "SpliceDesc",
    "SpliceResult",
    "splice",
    "avail_bytes",
    "beats",
]


@dataclass(frozen=True)
class SpliceDesc:
    """One edit descriptor, as the RTL's `desc_*` ports carry it.

    `patches` are the enabled patches, (output byte position, value), in patch index order
    (disabled patch slots do not matter). `out_len` None means `desc_len_valid` = 0.
    """

    seg1_off: int = 0
    seg1_len: int = 0
    ins: bytes = b""
    seg2_off: int = 0
    out_len: int | None = None
    patches: tuple[tuple[int, int], ...] = ()
    drop: bool = False
    meta: int = 0

    @property
    def ins_len(self) -> int:
        return len(self.ins)

    @property
    def ins_end(self) -> int:
        """Output offset where SEG2 starts: SEG1_LEN + INS_LEN."""
        return self.seg1_len + len(self.ins)

    def check(self, frame_len: int) -> None:
        """ValueError unless this descriptor is inside the contract for a `frame_len`-byte frame
        (see the module doc; the output-length rule is checked by `splice`)."""
        for name in ("seg1_off", "seg1_len", "seg2_off"):
            v = getattr(self, name)
            if not 0 <= v <= 0xFF:
                raise ValueError(f"{name} = {v} does not fit the 8-bit field")
        if len(self.ins) > 0xFF:
            raise ValueError(f"INS_LEN = {len(self.ins)} does not fit the 8-bit field")
        if self.out_len is not None and self.out_len < 0:
            raise ValueError(f"OUT_LEN = {self.out_len} is negative")
        for pos, val in self.patches:
            if not (0 <= pos <= 0xFF and 0 <= val <= 0xFF):
                raise ValueError(f"patch ({pos}, {val}) does not fit the 8-bit fields")
        if self.seg1_len:
            end = self.seg1_off + self.seg1_len
            if end > self.seg2_off:
                raise ValueError(f"segments out of order: SEG1 ends at {end} > SEG2_OFF {self.seg2_off}")
            if end > frame_len:
                raise ValueError(f"SEG1 ends at {end}, past the {frame_len}-byte frame")


@dataclass
class SpliceResult:
    output: bytes | None  # None: dropped, nothing leaves
    user: bool = False  # tuser on the last output beat: bad or trunc
    trunc: bool = False  # OUT_LEN asked for and not supplied
    meta: int = 0  # m_axis_tmeta of every output beat

    @property
    def dropped(self) -> bool:
        return self.output is None


def avail_bytes(frame_len: int, desc: SpliceDesc) -> int:
    """Step 4: bytes the three segments can supply for a `frame_len`-byte frame."""
    return desc.ins_end + max(0, frame_len - desc.seg2_off)


def splice(frame, desc: SpliceDesc, bad: bool = False) -> SpliceResult:
    """What `axis_splice` sends for `frame` under `desc`; `bad`: `s_axis_tuser` on the frame's
    last beat or its `eof_bad` verdict. ValueError for the cases outside the contract."""
    f = frame_bytes(frame)
    desc.check(len(f))
    if desc.drop:
        return SpliceResult(None, meta=desc.meta)

    # 1-3. the segments, as far as the frame supplies them
    out = bytearray(f[desc.seg1_off : desc.seg1_off + desc.seg1_len])
    out += desc.ins
    out += f[desc.seg2_off :]
    avail = len(out)
    assert avail == avail_bytes(len(f), desc)

    # 4. the length
    trunc = False
    if desc.out_len is not None:
        if desc.out_len <= avail:
            del out[desc.out_len :]
        else:
            trunc = True
    if not out:
        raise ValueError("no output byte: the RTL would send a beat with tkeep = 0 (outside the contract)")

    # 5. patches, later index wins
    for pos, val in desc.patches:
        if pos < len(out):
            out[pos] = val

    # 6.
    return SpliceResult(bytes(out), user=bool(bad) or trunc, trunc=trunc, meta=desc.meta)
