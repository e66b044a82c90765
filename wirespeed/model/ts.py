"""Golden model of the timestamp clock ``rtl/host/ts_clock.sv`` (docs/host.md).

The time is one 96-bit number: 64 bits of nanoseconds and 32 bits of fraction (2^-32 ns).
Each cycle it advances by the increment in force (``INC_NS_W`` integer bits and a 32-bit
fraction), so any clock frequency keeps nanoseconds: at 322.265625 MHz (a 100G MAC's clock)
the increment is 3.103030303 ns = ``incr_for_mhz(322.265625)``.

Register writes act at fixed cycles after c0, the cycle a write's AW and W are both present:
``K_INC``, ``K_SET``, ``K_ADJ`` below (the RTL's pipeline; tb/ts_clock asserts each at its
boundary cycle). :class:`TsClock` steps cycle by cycle; :func:`replay` turns a log of register
writes into the time of every cycle.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

FRAC_BITS = 32
MASK96 = (1 << 96) - 1
MASK64 = (1 << 64) - 1

# Register offsets (wirespeed/regmap.py, TS_CLOCK)
from wirespeed.regmap import TS_CLOCK  # noqa: E402

A_CMD = TS_CLOCK.reg("CMD")
A_INCR_FRAC = TS_CLOCK.reg("INCR_FRAC")
A_INCR_NS = TS_CLOCK.reg("INCR_NS")
A_SET_LO, A_SET_HI = TS_CLOCK.reg("SET_LO"), TS_CLOCK.reg("SET_HI")
A_ADJ_LO, A_ADJ_HI = TS_CLOCK.reg("ADJ_LO"), TS_CLOCK.reg("ADJ_HI")
CMD_SET = TS_CLOCK.register("CMD").field("SET").mask
CMD_ADJUST = TS_CLOCK.register("CMD").field("ADJUST").mask
CMD_INCR = TS_CLOCK.register("CMD").field("INCR").mask

# Cycles from c0 (the write's cycle) to its effect (docs/host.md)
K_INC = 5    # the new increment is I(t) for t >= c0 + K_INC
K_SET = 3    # T(c0 + K_SET) = the set value
K_ADJ = 7    # T(t + 1) = T(t) + I(t) + ADJ for t = c0 + K_ADJ
PPS_SYNC = 2  # the default synchroniser: a pulse first high in cycle p latches T(p + 2)


def incr_for_mhz(mhz: float | Fraction, ns_bits: int = 8) -> int:
    """The increment (ns << 32 | fraction) nearest to one clock period at ``mhz``."""
    v = round(Fraction(1000) / Fraction(mhz) * (1 << FRAC_BITS))
    if not 0 < v < 1 << (ns_bits + FRAC_BITS):
        raise ValueError(f"{mhz} MHz: the period does not fit {ns_bits}.32 ns")
    return v


def to_ns(t96: int) -> int:
    """The nanoseconds of a 96-bit time."""
    return (t96 >> FRAC_BITS) & MASK64


@dataclass
class TsClock:
    """The clock's state, cycle by cycle: ``value`` (96-bit) is T(t); :meth:`step` goes to
    t + 1 with the increment in force (and a one-off offset ``adj``, in ns, signed)."""

    value: int = 0
    incr: int = 4 << FRAC_BITS

    def step(self, adj: int = 0) -> int:
        self.value = (self.value + self.incr + ((adj & MASK64) << FRAC_BITS)) & MASK96
        return self.value

    def set(self, ns: int) -> None:
        self.value = (ns & MASK64) << FRAC_BITS


@dataclass
class Staging:
    """The staged registers as a sequence of writes leaves them."""

    incr_frac: int = 0
    incr_ns: int = 4
    set_ns: int = 0
    adj_ns: int = 0
    ns_bits: int = 8

    def write(self, addr: int, data: int, strb: int = 0xF) -> None:
        def lanes(old: int) -> int:
            m = sum(0xFF << 8 * b for b in range(4) if strb >> b & 1)
            return (old & ~m | data & m) & 0xFFFFFFFF
        if addr == A_INCR_FRAC:
            self.incr_frac = lanes(self.incr_frac)
        elif addr == A_INCR_NS:
            self.incr_ns = lanes(self.incr_ns) & ((1 << self.ns_bits) - 1)
        elif addr == A_SET_LO:
            self.set_ns = self.set_ns & ~0xFFFFFFFF | lanes(self.set_ns & 0xFFFFFFFF)
        elif addr == A_SET_HI:
            self.set_ns = self.set_ns & 0xFFFFFFFF | lanes(self.set_ns >> 32) << 32
        elif addr == A_ADJ_LO:
            self.adj_ns = self.adj_ns & ~0xFFFFFFFF | lanes(self.adj_ns & 0xFFFFFFFF)
        elif addr == A_ADJ_HI:
            self.adj_ns = self.adj_ns & 0xFFFFFFFF | lanes(self.adj_ns >> 32) << 32

    @property
    def incr(self) -> int:
        return self.incr_ns << FRAC_BITS | self.incr_frac


@dataclass
class Events:
    """What the writes do, by cycle: increments from a cycle on, sets and adjustments."""

    incr_from: dict[int, int] = field(default_factory=dict)
    set_at: dict[int, int] = field(default_factory=dict)
    adj_at: dict[int, int] = field(default_factory=dict)


def events(writes: list[tuple[int, int, int, int]], staging: Staging | None = None) -> Events:
    """The effects of ``writes`` ((c0, byte address, data, strb), in order)."""
    st = staging or Staging()
    ev = Events()
    for c0, a, d, s in writes:
        if a == A_CMD:
            if not s & 1:
                continue
            if d & CMD_INCR:
                ev.incr_from[c0 + K_INC] = st.incr
            if d & CMD_SET:
                ev.set_at[c0 + K_SET] = st.set_ns
            if d & CMD_ADJUST:
                ev.adj_at[c0 + K_ADJ] = st.adj_ns
        else:
            st.write(a, d, s)
    return ev


def replay(t0: int, v0: int, incr0: int, ev: Events, t_end: int) -> dict[int, int]:
    """T(t) for t0 <= t <= t_end, from T(t0) = v0 with the increment incr0 in force at t0."""
    clk = TsClock(v0, incr0)
    out = {t0: v0}
    for t in range(t0, t_end):
        if t in ev.incr_from:
            clk.incr = ev.incr_from[t]
        adj = ev.adj_at.get(t, 0)
        clk.step(adj)
        if t + 1 in ev.set_at:
            clk.set(ev.set_at[t + 1])
        out[t + 1] = clk.value
    return out
