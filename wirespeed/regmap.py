"""The one source of every block's outcome codes and register map.

Each block (``gre_decap``, ``vxlan_decap``, ``vxlan_encap``, ``geneve_decap``, the ``hash_table``
control window) is described here once, as data: its outcomes (code, name, action, meaning: the
counter index of an outcome is its code) and its registers (address, name, access, reset,
meaning, bit fields).
Everything else follows from it:

* Python uses it directly: the golden models' ``Outcome`` enums
  (:meth:`Block.outcome_enum`), the config's register writes, the reports' outcome lists.
* ``scripts/gen_regmap.py`` writes the SystemVerilog packages (``gre_pkg``, ...), the C++ header
  of the Verilator harnesses (``sim/regmap.hpp``) and the tables in docs/; tb/regmap checks that
  every generated file is up to date.
* ``wirespeed regs [--block gre|vtep|...]`` prints a map by name, and ``wirespeed config``
  names the registers a config writes (:meth:`AddressMap.decode`).

Three address spaces are described (:data:`MAPS`): ``gre`` (``gre_decap``'s own AXI4-Lite
space, what ``ws_sim`` drives), ``geneve`` (``geneve_decap``'s: its registers and the VNI table,
what ``ws_geneve`` drives) and ``vtep`` (``vtep_top``: the decap and encap blocks and the two
tables, each in a 4 KiB window).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Iterator, Literal

Access = Literal["RO", "RW", "WO"]

OUTCOME_W = 4        # bits of an outcome code on m_stat_outcome (block_csr counts 16 at most)
CNT_BASE = 0x100     # outcome n's counters: CNT_BASE + CNT_STRIDE * n
CNT_STRIDE = 16
TX_BASE = 0x200      # the transmitted-frame counters
WINDOW_SIZE = 0x1000  # every block's window in a top (vtep_top)


@dataclass(frozen=True)
class OutcomeSpec:
    """One outcome: its code (also its counter index), name, action and meaning."""

    code: int
    name: str
    action: str   # forward | decapsulate | encapsulate | drop | drop (late)
    meaning: str

    @property
    def forwards(self) -> bool:
        """True when a frame of this outcome leaves the block (by default policy)."""
        return not self.action.startswith("drop")


@dataclass(frozen=True)
class BitField:
    """Bits ``[lsb + width - 1 : lsb]`` of a register."""

    name: str
    lsb: int
    width: int
    meaning: str
    values: tuple[tuple[int, str], ...] = ()   # names of some values, e.g. ((1, "write"),)

    @property
    def mask(self) -> int:
        return ((1 << self.width) - 1) << self.lsb

    def get(self, value: int) -> int:
        return (value >> self.lsb) & ((1 << self.width) - 1)

    @property
    def bits(self) -> str:
        """``[3]`` or ``[15:0]``."""
        hi = self.lsb + self.width - 1
        return f"[{self.lsb}]" if self.width == 1 else f"[{hi}:{self.lsb}]"


@dataclass(frozen=True)
class Register:
    """A 32-bit register at ``offset`` in its block's window, or an array of ``count`` of them
    ``stride`` bytes apart (``name[index]``; an ``index`` of ``"outcome"`` counts outcomes).
    ``reset`` is None where the value depends on parameters or is not a stored value."""

    offset: int
    name: str
    access: Access
    meaning: str
    reset: int | None = 0
    fields: tuple[BitField, ...] = ()
    count: int = 1
    stride: int = 0
    index: str = ""
    format: Literal["", "ipv4"] = ""   # how `decode` shows a value without fields

    @property
    def is_array(self) -> bool:
        return self.count > 1 or bool(self.index)

    def address(self, i: int = 0) -> int:
        if not 0 <= i < self.count:
            raise IndexError(f"{self.name}[{i}]: the index is not in 0..{self.count - 1}")
        return self.offset + self.stride * i

    def field(self, name: str) -> BitField:
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(f"{self.name} has no field {name}")

    def decode(self, value: int) -> str:
        """The value's fields by name, e.g. ``ALLOW_ENABLE=1 POLICY_DROP_PASS=0``."""
        if self.format == "ipv4":
            return ".".join(str(value >> s & 0xFF) for s in (24, 16, 8, 0))
        if not self.fields:
            return ""
        parts = []
        for f in self.fields:
            v = f.get(value)
            label = dict(f.values).get(v)
            parts.append(f"{f.name}={v}" + (f" ({label})" if label else ""))
        rest = value & ~sum(f.mask for f in self.fields) & 0xFFFFFFFF
        if rest:
            parts.append(f"undefined bits 0x{rest:x}")
        return " ".join(parts)


@dataclass(frozen=True)
class Block:
    """One block's outcomes and register window."""

    name: str         # the RTL module
    prefix: str       # of its generated SV/C++ constants: GRE, VXLAN_DECAP, ...
    title: str
    doc: str          # the contract page
    registers: tuple[Register, ...]
    outcomes: tuple[OutcomeSpec, ...] = ()
    sv_package: str | None = None   # the generated package (outcome_e, OUT_* and constants)
    sv_path: str | None = None      # its file, relative to the repository
    id_value: int | None = None

    def __post_init__(self) -> None:
        codes = [o.code for o in self.outcomes]
        if codes != list(range(len(codes))):
            raise ValueError(f"{self.name}: outcome codes must be 0..{len(codes) - 1} in order")
        if len(codes) > 1 << OUTCOME_W:
            raise ValueError(f"{self.name}: more than {1 << OUTCOME_W} outcomes")
        names = [r.name for r in self.registers]
        if len(set(names)) != len(names):
            raise ValueError(f"{self.name}: a register name appears twice")

    def outcome_names(self) -> tuple[str, ...]:
        return tuple(o.name for o in self.outcomes)

    def outcome(self, name: str) -> OutcomeSpec:
        for o in self.outcomes:
            if o.name == name:
                return o
        raise KeyError(f"{self.name} has no outcome {name}")

    def outcome_enum(self, enum_name: str, module: str) -> type[IntEnum]:
        """An IntEnum of the outcomes (member name = outcome name, value = code)."""
        return IntEnum(enum_name, [(o.name, o.code) for o in self.outcomes],  # type: ignore[return-value]
                       module=module, qualname=enum_name)

    def register(self, name: str) -> Register:
        for r in self.registers:
            if r.name == name:
                return r
        raise KeyError(f"{self.name} has no register {name}")

    def reg(self, name: str, i: int = 0) -> int:
        """The offset of register ``name`` (element ``i`` of an array) in the block's window."""
        return self.register(name).address(i)

    def counter(self, outcome: str, bytes_: bool = False) -> int:
        """The offset of an outcome's CNT_PKTS_LO (CNT_BYTES_LO with ``bytes_``)."""
        return self.reg("CNT_BYTES_LO" if bytes_ else "CNT_PKTS_LO", self.outcome(outcome).code)

    def index_name(self, r: Register, i: int) -> str:
        """``CNT_PKTS_LO[DROP_ECN]``, ``ALLOW_SRC[3]``, ``TBL_KEY[1]``, or the plain name."""
        if not r.is_array:
            return r.name
        if r.index == "outcome" and i < len(self.outcomes):
            return f"{r.name}[{self.outcomes[i].name}]"
        return f"{r.name}[{i}]"

    def find(self, offset: int) -> tuple[Register, int] | None:
        """The register (and array index) at ``offset`` in the window, or None."""
        for r in self.registers:
            if r.count == 1 and not r.stride:
                if offset == r.offset:
                    return r, 0
            elif offset >= r.offset and (offset - r.offset) % r.stride == 0:
                i = (offset - r.offset) // r.stride
                if i < r.count:
                    return r, i
        return None


@dataclass(frozen=True)
class Window:
    base: int
    label: str
    block: Block


@dataclass(frozen=True)
class Decoded:
    """What an address of a map is: the window, the register and its array index."""

    window: Window
    register: Register
    index: int

    @property
    def name(self) -> str:
        return f"{self.window.label}.{self.window.block.index_name(self.register, self.index)}"


@dataclass(frozen=True)
class AddressMap:
    """The AXI4-Lite address space of a top: its blocks' windows."""

    name: str       # the CLI's --block
    top: str        # the RTL module
    windows: tuple[Window, ...]

    def window(self, label: str) -> Window:
        for w in self.windows:
            if w.label == label:
                return w
        raise KeyError(f"{self.top} has no window {label}")

    def address(self, label: str, reg: str, i: int = 0) -> int:
        w = self.window(label)
        return w.base + w.block.reg(reg, i)

    def decode(self, address: int) -> Decoded | None:
        for w in sorted(self.windows, key=lambda w: -w.base):
            if address >= w.base:
                found = w.block.find(address - w.base)
                if found is not None:
                    return Decoded(w, found[0], found[1])
                return None
        return None

    def rows(self) -> Iterator[tuple[Window, Register]]:
        for w in self.windows:
            for r in w.block.registers:
                yield w, r


# ------------------------------------------------------------------------------ block_csr

def _bit(name: str, lsb: int, meaning: str) -> BitField:
    return BitField(name, lsb, 1, meaning)


def _csr(ident: str, id_value: int, params: BitField, control: tuple[BitField, ...],
         extra: tuple[Register, ...], n_outcomes: int) -> tuple[Register, ...]:
    """The block_csr layout (rtl/control/block_csr.sv) every block shares: ID, PARAMS,
    CONTROL, COUNTER_CLEAR, extra config registers at 0x010.., 64-bit counters per outcome at
    0x100 + 16 n and of transmitted frames at 0x200."""
    cnt = dict(count=n_outcomes, stride=CNT_STRIDE, index="outcome", reset=0)
    return (
        Register(0x000, "ID", "RO", f'0x{id_value:08X} ("{ident}")', reset=id_value),
        Register(0x004, "PARAMS", "RO", f"[15:0] DATA_W, [31:16] {params.meaning}", reset=None,
                 fields=(BitField("DATA_W", 0, 16, "bus width in bits"), params)),
        Register(0x008, "CONTROL", "RW", "; ".join(f"bit {f.lsb} {f.name}" for f in control),
                 fields=control),
        Register(0x00C, "COUNTER_CLEAR", "WO", "write 1 to bit 0: zero every counter (reads 0)",
                 fields=(_bit("CLEAR", 0, "zero every counter"),)),
        *extra,
        Register(CNT_BASE + 0x0, "CNT_PKTS_LO", "RO",
                 "outcome n packets, bits 31:0; reading it latches bits 63:32", **cnt),
        Register(CNT_BASE + 0x4, "CNT_PKTS_HI", "RO", "the latched bits 63:32", **cnt),
        Register(CNT_BASE + 0x8, "CNT_BYTES_LO", "RO",
                 "outcome n input bytes (bus bytes, no FCS), bits 31:0; latches bits 63:32", **cnt),
        Register(CNT_BASE + 0xC, "CNT_BYTES_HI", "RO", "the latched bits 63:32", **cnt),
        Register(TX_BASE + 0x0, "TX_PKTS_LO", "RO",
                 "frames transmitted whole (not aborted), bits 31:0; latches bits 63:32"),
        Register(TX_BASE + 0x4, "TX_PKTS_HI", "RO", "the latched bits 63:32"),
        Register(TX_BASE + 0x8, "TX_BYTES_LO", "RO", "output bytes, bits 31:0; latches bits 63:32"),
        Register(TX_BASE + 0xC, "TX_BYTES_HI", "RO", "the latched bits 63:32"),
    )


def _o(*rows: tuple[str, str, str]) -> tuple[OutcomeSpec, ...]:
    return tuple(OutcomeSpec(i, n, a, m) for i, (n, a, m) in enumerate(rows))


# ------------------------------------------------------------------------------ gre_decap

ALLOW_ENTRIES = 64   # gre_decap's ALLOW_ENTRIES default (the CLI's builds)
ALLOW_BASE = 0x1000
ALLOW_STRIDE = 16

GRE_OUTCOMES = _o(
    ("PASS", "forward", "not GRE: forwarded unchanged"),
    ("PUNT", "forward", "GRE with a protocol not decapsulated: forwarded unchanged"),
    ("DECAP_L3", "decapsulate", "IPv4/IPv6 payload: outer L2 kept, IP+GRE removed"),
    ("DECAP_TEB", "decapsulate", "Ethernet payload (0x6558): inner frame out"),
    ("DROP_TRUNCATED", "drop", "the frame ends before the bytes a step needs, or before ip_end "
                               "(late when decapsulation has begun)"),
    ("DROP_IP_HEADER", "drop", "outer IP version, IHL or length wrong"),
    ("DROP_IP_CHECKSUM", "drop", "outer IPv4 header checksum wrong"),
    ("DROP_FRAGMENT", "drop", "outer IPv4 fragment (MF = 1 or offset != 0)"),
    ("DROP_GRE_HEADER", "drop", "GRE version != 0 or a reserved flag set"),
    ("DROP_GRE_CHECKSUM", "drop (late)", "C = 1 and the GRE checksum is wrong"),
    ("DROP_NOT_ALLOWED", "drop", "allow-list enabled and the outer pair is not in it"),
    ("DROP_ECN", "drop", "outer CE over an inner Not-ECT packet (RFC 6040)"),
    ("DROP_RX_ERROR", "drop (late)", "the input's last beat has tuser = 1 (MAC RX error)"),
    ("DROP_POLICY", "drop", "a PASS or PUNT frame whose policy bit says drop"),
)

GRE = Block(
    name="gre_decap", prefix="GRE", title="GRE decapsulation", doc="docs/gre_decap.md",
    sv_package="gre_pkg", sv_path="rtl/tunnel/gre_pkg.sv", id_value=0x57534731,
    outcomes=GRE_OUTCOMES,
    registers=_csr(
        "WSG1", 0x57534731, BitField("ALLOW_ENTRIES", 16, 16, "ALLOW_ENTRIES"),
        (_bit("ALLOW_ENABLE", 0, "drop GRE frames whose outer IPv4 pair is not in the allow-list"),
         _bit("POLICY_DROP_PASS", 1, "drop PASS frames (counted as DROP_POLICY)"),
         _bit("POLICY_DROP_PUNT", 2, "drop PUNT frames (counted as DROP_POLICY)"),
         _bit("POLICY_FORWARD_MALFORMED", 3,
              "forward frames of the early drops 5-8 unchanged (still counted under their reason)")),
        (), len(GRE_OUTCOMES)) + (
        Register(ALLOW_BASE + 0x0, "ALLOW_SRC", "RW", "entry i outer IPv4 source",
                 count=ALLOW_ENTRIES, stride=ALLOW_STRIDE, index="i", format="ipv4"),
        Register(ALLOW_BASE + 0x4, "ALLOW_DST", "RW", "entry i outer IPv4 destination",
                 count=ALLOW_ENTRIES, stride=ALLOW_STRIDE, index="i", format="ipv4"),
        Register(ALLOW_BASE + 0x8, "ALLOW_VALID", "RW", "bit 0: entry i valid",
                 count=ALLOW_ENTRIES, stride=ALLOW_STRIDE, index="i",
                 fields=(_bit("VALID", 0, "entry i valid"),)),
    ),
)

# ------------------------------------------------------------------------------ VXLAN

VXLAN_PORT = 4789
LINUX_VXLAN_PORT = 8472

VXLAN_DECAP_OUTCOMES = _o(
    ("PASS", "forward", "not VXLAN: forwarded unchanged"),
    ("DECAP", "decapsulate", "the inner frame out, VNI on m_axis_tvni"),
    ("DROP_TRUNCATED", "drop", "a VXLAN frame that ends before the bytes a step needs, or "
                               "before ip_end (late when decapsulation has begun)"),
    ("DROP_IP_HEADER", "drop", "outer IP or UDP length wrong"),
    ("DROP_IP_CHECKSUM", "drop", "outer IPv4 header checksum wrong"),
    ("DROP_FRAGMENT", "drop", "outer IPv4 MF = 1"),
    ("DROP_VXLAN_FLAGS", "drop", "VXLAN flags without the I bit"),
    ("DROP_VXLAN_RESERVED", "drop", "a reserved VXLAN bit set, in strict mode"),
    ("DROP_UNKNOWN_VNI", "drop", "VNI table enabled and the VNI not in it"),
    ("DROP_ECN", "drop", "outer CE over an inner Not-ECT packet (RFC 6040)"),
    ("DROP_UDP_CHECKSUM", "drop (late)", "UDP checksum != 0 and wrong"),
    ("DROP_RX_ERROR", "drop (late)", "the input's last beat has tuser = 1 or a tkeep hole"),
    ("DROP_POLICY", "drop", "a PASS frame dropped because CONTROL says so"),
)

VXLAN_DECAP = Block(
    name="vxlan_decap", prefix="VXLAN_DECAP", title="VXLAN decapsulation", doc="docs/vxlan.md",
    sv_package="vxlan_decap_pkg", sv_path="rtl/tunnel/vxlan_decap_pkg.sv", id_value=0x57535644,
    outcomes=VXLAN_DECAP_OUTCOMES,
    registers=_csr(
        "WSVD", 0x57535644, BitField("LOG2_VNI_SLOTS", 16, 16, "log2(VNI_SLOTS)"),
        (_bit("VNI_ENABLE", 0, "drop VXLAN frames whose VNI is not in the VNI table"),
         _bit("STRICT", 1, "drop frames with reserved VXLAN bits set (DROP_VXLAN_RESERVED)"),
         _bit("PORT2_ENABLE", 2, "also take PORT2 as the VXLAN port"),
         _bit("DROP_PASS", 3, "drop PASS frames (counted as DROP_POLICY)")),
        (Register(0x010, "PORT", "RW", "UDP destination port of VXLAN", reset=VXLAN_PORT,
                  fields=(BitField("PORT", 0, 16, "UDP port"),)),
         Register(0x014, "PORT2", "RW", "a second VXLAN port (when CONTROL.PORT2_ENABLE)",
                  reset=LINUX_VXLAN_PORT, fields=(BitField("PORT", 0, 16, "UDP port"),))),
        len(VXLAN_DECAP_OUTCOMES)),
)

VXLAN_ENCAP_OUTCOMES = _o(
    ("ENCAP", "encapsulate", "a tunnel hit: outer headers added"),
    ("PASS_MISS", "forward", "no tunnel: forwarded unencapsulated"),
    ("PASS_NOT_IPV4", "forward", "not IPv4 with a complete header: forwarded unencapsulated"),
    ("DROP_MISS", "drop", "no tunnel, and CONTROL says drop on a miss"),
    ("DROP_RX_ERROR", "drop", "the input's last beat has tuser = 1 or a tkeep hole"),
    ("DROP_OVERSIZE", "drop", "longer than the store-and-forward FIFO: cut and dropped"),
)

VXLAN_ENCAP = Block(
    name="vxlan_encap", prefix="VXLAN_ENCAP", title="VXLAN encapsulation", doc="docs/vxlan.md",
    sv_package="vxlan_encap_pkg", sv_path="rtl/tunnel/vxlan_encap_pkg.sv", id_value=0x57535645,
    outcomes=VXLAN_ENCAP_OUTCOMES,
    registers=_csr(
        "WSVE", 0x57535645, BitField("LOG2_TUNNEL_SLOTS", 16, 16, "log2(TUNNEL_SLOTS)"),
        (_bit("DROP_MISS", 0, "drop host frames that hit no tunnel (DROP_MISS)"),),
        (), len(VXLAN_ENCAP_OUTCOMES)),
)

# ------------------------------------------------------------------------------ Geneve

GENEVE_PORT = 6081

GENEVE_DECAP_OUTCOMES = _o(
    ("PASS", "forward", "not Geneve: forwarded unchanged"),
    ("PUNT", "forward", "Geneve not decapsulated: a protocol type other than 0x6558/0x0800/0x86DD, "
                        "or C = 1 with CONTROL.CRITICAL_PUNT; forwarded unchanged"),
    ("PUNT_OAM", "forward", "O = 1 (an OAM frame, for the control plane): forwarded unchanged"),
    ("DECAP_L3", "decapsulate", "IPv4/IPv6 payload: the outer Ethernet header with the protocol "
                                "type as its EtherType, then the inner packet"),
    ("DECAP_TEB", "decapsulate", "Ethernet payload (0x6558): the inner frame out"),
    ("DROP_TRUNCATED", "drop", "a Geneve frame that ends before the bytes a step needs, or before "
                               "ip_end (late when decapsulation has begun)"),
    ("DROP_IP_HEADER", "drop", "outer IP or UDP length wrong, or the options run past the datagram"),
    ("DROP_IP_CHECKSUM", "drop", "outer IPv4 header checksum wrong"),
    ("DROP_FRAGMENT", "drop", "outer IPv4 MF = 1"),
    ("DROP_VERSION", "drop", "Geneve version != 0"),
    ("DROP_CRITICAL", "drop", "C = 1 (critical options present) and CONTROL.CRITICAL_PUNT = 0"),
    ("DROP_UNKNOWN_VNI", "drop", "VNI table enabled and the VNI not in it"),
    ("DROP_ECN", "drop", "outer CE over an inner Not-ECT packet (RFC 6040)"),
    ("DROP_UDP_CHECKSUM", "drop (late)", "UDP checksum != 0 and wrong"),
    ("DROP_RX_ERROR", "drop (late)", "the input's last beat has tuser = 1 or a tkeep hole"),
    ("DROP_POLICY", "drop", "a PASS, PUNT or PUNT_OAM frame dropped because CONTROL says so"),
)

GENEVE_DECAP = Block(
    name="geneve_decap", prefix="GENEVE_DECAP", title="Geneve decapsulation", doc="docs/geneve.md",
    sv_package="geneve_decap_pkg", sv_path="rtl/tunnel/geneve_decap_pkg.sv", id_value=0x5753474E,
    outcomes=GENEVE_DECAP_OUTCOMES,
    registers=_csr(
        "WSGN", 0x5753474E, BitField("LOG2_VNI_SLOTS", 16, 16, "log2(VNI_SLOTS)"),
        (_bit("VNI_ENABLE", 0, "drop Geneve frames whose VNI is not in the VNI table"),
         _bit("CRITICAL_PUNT", 1, "punt frames with C = 1 unchanged (PUNT) instead of dropping "
                                  "them (DROP_CRITICAL)"),
         _bit("DROP_PUNT", 2, "drop PUNT and PUNT_OAM frames (counted as DROP_POLICY)"),
         _bit("DROP_PASS", 3, "drop PASS frames (counted as DROP_POLICY)")),
        (Register(0x010, "PORT", "RW", "UDP destination port of Geneve", reset=GENEVE_PORT,
                  fields=(BitField("PORT", 0, 16, "UDP port"),)),),
        len(GENEVE_DECAP_OUTCOMES)),
)

# ------------------------------------------------------------------------------ hash_table

TABLE = Block(
    name="hash_table", prefix="TBL", title="hash table control", doc="docs/vxlan.md",
    registers=(
        Register(0x000, "TBL_INFO", "RO", "[7:0] log2(SLOTS), [15:8] ways per bucket (4), "
                 "[31:16] KEY_W", reset=None,
                 fields=(BitField("LOG2_SLOTS", 0, 8, "log2(SLOTS)"),
                         BitField("WAYS", 8, 8, "ways per bucket (4)"),
                         BitField("KEY_W", 16, 16, "key bits"))),
        Register(0x004, "TBL_VALUE_W", "RO", "VALUE_W", reset=None),
        Register(0x008, "TBL_COUNT", "RO", "valid slots"),
        Register(0x00C, "TBL_CMD", "WO", "[1:0] op: 1 write, 2 delete, 3 read, acting on TBL_SLOT",
                 fields=(BitField("OP", 0, 2, "1 write, 2 delete, 3 read",
                                  ((0, "none"), (1, "write"), (2, "delete"), (3, "read"))),)),
        Register(0x010, "TBL_SLOT", "RW", "[0] bank, [2:1] way, [31:3] bucket: the slot CMD acts on",
                 fields=(BitField("BANK", 0, 1, "bank"), BitField("WAY", 1, 2, "way"),
                         BitField("BUCKET", 3, 29, "bucket"))),
        Register(0x014, "TBL_STATUS", "RO", "bit 0 busy; bit 31 the valid bit of the slot last "
                 "read", reset=1,
                 fields=(_bit("BUSY", 0, "a command or the post-reset clear is running"),
                         _bit("VALID", 31, "the valid bit of the slot last read (op 3)"))),
        Register(0x020, "TBL_KEY", "RW", "key bits [32i+31:32i]", count=8, stride=4, index="i"),
        Register(0x040, "TBL_VALUE", "RW", "value bits [32i+31:32i] (up to 8 words: 256 bits)",
                 count=8, stride=4, index="i"),
    ),
)
TBL_OP_WRITE, TBL_OP_DELETE, TBL_OP_READ = 1, 2, 3

# ------------------------------------------------------------------------------ host interface

TS_CLOCK = Block(
    name="ts_clock", prefix="TS", title="timestamp clock", doc="docs/host.md",
    sv_package="ts_clock_pkg", sv_path="rtl/host/ts_clock_pkg.sv",
    registers=(
        Register(0x000, "INFO", "RO", "[7:0] version (1), [15:8] fraction bits (32), "
                 "[23:16] INC_NS_W, [31:24] PPS_SYNC", reset=None,
                 fields=(BitField("VERSION", 0, 8, "1"), BitField("FRAC_BITS", 8, 8, "32"),
                         BitField("INC_NS_W", 16, 8, "integer bits of the increment"),
                         BitField("PPS_SYNC", 24, 8, "PPS synchroniser stages"))),
        Register(0x004, "CMD", "WO", "write 1s (byte lane 0): SET loads SET_HI:SET_LO, ADJUST "
                 "adds ADJ_HI:ADJ_LO once, INCR puts INCR_NS.INCR_FRAC in force (reads 0)",
                 fields=(_bit("SET", 0, "T = SET_HI:SET_LO (ns) .0"),
                         _bit("ADJUST", 1, "T += ADJ_HI:ADJ_LO (signed ns), once"),
                         _bit("INCR", 2, "the increment becomes INCR_NS.INCR_FRAC"))),
        Register(0x008, "INCR_FRAC", "RW", "staged increment per cycle, fraction (2^-32 ns)",
                 reset=None),
        Register(0x00C, "INCR_NS", "RW", "staged increment per cycle, ns ([INC_NS_W-1:0])",
                 reset=None),
        Register(0x010, "SET_LO", "RW", "time to set, ns [31:0]"),
        Register(0x014, "SET_HI", "RW", "time to set, ns [63:32]"),
        Register(0x018, "ADJ_LO", "RW", "signed offset to add, ns [31:0]"),
        Register(0x01C, "ADJ_HI", "RW", "signed offset to add, ns [63:32] (two's complement)"),
        Register(0x020, "TIME_LO", "RO", "the time, ns [31:0]; the read latches ns [63:32] "
                 "and the fraction of the same cycle"),
        Register(0x024, "TIME_HI", "RO", "the latched ns [63:32]"),
        Register(0x028, "TIME_FRAC", "RO", "the latched fraction (2^-32 ns)"),
        Register(0x030, "PPS_LO", "RO", "time of the last PPS edge, ns [31:0]; the read "
                 "latches PPS_HI and PPS_FRAC"),
        Register(0x034, "PPS_HI", "RO", "the latched ns [63:32]"),
        Register(0x038, "PPS_FRAC", "RO", "the latched fraction"),
        Register(0x03C, "PPS_COUNT", "RO", "PPS rising edges since reset (32 bits, wraps)"),
    ),
)

DMA_QUEUES = 16          # dma_ring_writer's QUEUES default (the map describes that build)
DMA_Q_BASE = 0x100       # queue q's registers: DMA_Q_BASE + DMA_Q_STRIDE * q + offset
DMA_Q_STRIDE = 0x40
_q = dict(count=DMA_QUEUES, stride=DMA_Q_STRIDE, index="q")

DMA_RING_WRITER = Block(
    name="dma_ring_writer", prefix="DMA", title="packed DMA ring writer", doc="docs/host.md",
    sv_package="dma_ring_writer_pkg", sv_path="rtl/host/dma_ring_writer_pkg.sv",
    registers=(
        Register(0x000, "INFO", "RO", "[7:0] version (1), [15:8] log2 of the record alignment "
                 "(3: records packed at 8 bytes), [23:16] header bytes (16), [31:24] QUEUES - 1",
                 reset=None,
                 fields=(BitField("VERSION", 0, 8, "1"),
                         BitField("LOG2_ALIGN", 8, 8, "records start at multiples of 2^this"),
                         BitField("HDR_BYTES", 16, 8, "16"),
                         BitField("QUEUES_M1", 24, 8, "queues - 1"))),
        Register(0x004, "PARAMS", "RO", "[15:0] frame buffer KiB, [31:16] BURST_BYTES",
                 reset=None, fields=(BitField("BUF_KIB", 0, 16, "frame buffer, KiB"),
                                     BitField("BURST_BYTES", 16, 16, "largest burst"))),
        Register(0x010, "CNT_BRESP_ERR", "RO", "B responses other than OKAY (32 bits, wraps)"),
        Register(0x014, "CNT_WB", "RO", "producer write-backs issued (32 bits, wraps)"),
        Register(0x018, "CNT_BURSTS", "RO", "data bursts issued (32 bits, wraps)"),
        Register(DMA_Q_BASE + 0x00, "Q_CTRL", "RW", "queue q: [0] ENABLE, [12:8] LOG2_SIZE "
                 "(the ring is 2^LOG2_SIZE bytes, 12..30; reset 12)", reset=0xC00,
                 fields=(_bit("ENABLE", 0, "write the queue's frames (else drop, Q_DROP_OFF)"),
                         BitField("LOG2_SIZE", 8, 5, "log2 ring bytes, 12..30 (clamped)")), **_q),
        Register(DMA_Q_BASE + 0x04, "Q_BASE_LO", "RW", "ring base [31:0]: a multiple of the "
                 "ring size ([11:0] read 0)", **_q),
        Register(DMA_Q_BASE + 0x08, "Q_BASE_HI", "RW", "ring base [63:32]", **_q),
        Register(DMA_Q_BASE + 0x0C, "Q_WB_LO", "RW", "producer write-back address [31:0] "
                 "([1:0] read 0)", **_q),
        Register(DMA_Q_BASE + 0x10, "Q_WB_HI", "RW", "producer write-back address [63:32]", **_q),
        Register(DMA_Q_BASE + 0x14, "Q_CONS", "RW", "the host's consumer counter (bytes, "
                 "free-running 32 bits)", **_q),
        Register(DMA_Q_BASE + 0x18, "Q_PROD", "RO", "the producer counter last made visible "
                 "(bytes, free-running)", **_q),
        Register(DMA_Q_BASE + 0x20, "Q_FRAMES", "RO", "frames written (32 bits, wraps)", **_q),
        Register(DMA_Q_BASE + 0x24, "Q_BYTES", "RO", "frame bytes written (32 bits, wraps)", **_q),
        Register(DMA_Q_BASE + 0x28, "Q_DROP_FULL", "RO", "frames dropped: no room in the ring",
                 **_q),
        Register(DMA_Q_BASE + 0x2C, "Q_DROP_BUF", "RO", "frames dropped: the frame buffer full",
                 **_q),
        Register(DMA_Q_BASE + 0x30, "Q_DROP_OFF", "RO", "frames dropped: the queue disabled",
                 **_q),
    ),
)

CAPTURE_MAX_LEN = 9600      # capture_top's MAX_LEN_RESET
CAPTURE_LATENCY = 20        # capture_top: s_axis beat -> dma_ring_writer's input (cycles)

CAPTURE = Block(
    name="capture_top", prefix="CAP", title="capture top", doc="docs/host.md",
    sv_package="capture_pkg", sv_path="rtl/host/capture_pkg.sv", id_value=0x57534350,
    registers=(
        Register(0x000, "ID", "RO", '0x57534350 ("WSCP")', reset=0x57534350),
        Register(0x004, "PARAMS", "RO", f"[15:0] DATA_W, [23:16] QUEUES, [31:24] LATENCY "
                 f"({CAPTURE_LATENCY})", reset=None,
                 fields=(BitField("DATA_W", 0, 16, "bus width in bits"),
                         BitField("QUEUES", 16, 8, "queues (rings)"),
                         BitField("LATENCY", 24, 8, "s_axis -> the writer's input, cycles"))),
        Register(0x008, "PORT", "RW", "[1:0] the records' port field",
                 fields=(BitField("PORT", 0, 2, "the records' info [5:4]"),)),
        Register(0x00C, "MAX_LEN", "RW", "[15:0] longer frames are not parsed (the default "
                 "queue)", reset=CAPTURE_MAX_LEN,
                 fields=(BitField("MAX_LEN", 0, 16, "bytes"),)),
        Register(0x010, "FRAMES_LO", "RO", "frames in [31:0]; the read latches FRAMES_HI"),
        Register(0x014, "FRAMES_HI", "RO", "frames in [63:32]"),
        Register(0x018, "BYTES_LO", "RO", "frame bytes in [31:0]; the read latches BYTES_HI"),
        Register(0x01C, "BYTES_HI", "RO", "frame bytes in [63:32]"),
        Register(0x020, "RUNTS", "RO", "frames shorter than 60 bytes (32 bits, wraps)"),
        Register(0x024, "GIANTS", "RO", "frames longer than MAX_LEN (32 bits, wraps)"),
        Register(0x028, "RX_ERRORS", "RO", "frames with tuser on their last beat (32 bits, "
                 "wraps)"),
        Register(0x02C, "PARSE_CTRL", "RW", "[0] INNER: RSS hashes the inner headers of GRE "
                 "and VXLAN packets (docs/rss.md, \"Inner headers\"; the records' flags [6] "
                 "say so); a frame uses the value in force at its last beat",
                 fields=(_bit("INNER", 0, "hash GRE/VXLAN inner headers"),)),
    ),
)

CAPTURE_GEN_BASE = 0x4000   # capture_gen_top: this window; capture_top's own space at 0x0000
CAPTURE_GEN_PORT = 0x5753   # pkt_gen's and pkt_chk's UDP destination port (their PORT default)
CAPTURE_GEN_LATENCY = 2     # loopback: generator beat registered -> the checker's time (cycles)

CAPTURE_GEN = Block(
    name="capture_gen_top", prefix="CGEN", title="generator and checker in front of the capture",
    doc="docs/host.md", sv_package="capture_gen_pkg", sv_path="rtl/host/capture_gen_pkg.sv",
    id_value=0x57534347,
    registers=(
        Register(0x000, "ID", "RO", '0x57534347 ("WSCG")', reset=0x57534347),
        Register(0x004, "PARAMS", "RO", "[15:0] DATA_W, [31:16] the test frames' UDP port "
                 "(0x5753)", reset=None,
                 fields=(BitField("DATA_W", 0, 16, "bus width in bits"),
                         BitField("UDP_PORT", 16, 16, "pkt_gen's destination port"))),
        Register(0x008, "CTRL", "RW", "[0] GEN_ENABLE: the generator runs (its counters restart "
                 "when it rises); [1] LOOPBACK: capture's input is the generator (else s_axis); "
                 "takes effect between frames of both sources",
                 fields=(_bit("GEN_ENABLE", 0, "pkt_gen's en"),
                         _bit("LOOPBACK", 1, "capture takes the generator's frames, s_axis's "
                              "are dropped and counted (RX_DISCARD); else the generator "
                              "feeds m_axis"))),
        Register(0x00C, "CMD", "WO", "write 1s: [0] CHK_CLEAR zeroes the checker's counters and "
                 "its expected sequence number (reads 0)",
                 fields=(_bit("CHK_CLEAR", 0, "pkt_chk's clear"),)),
        Register(0x010, "GEN_LEN", "RW", "[15:0] LEN_MIN, [31:16] LEN_MAX: bus bytes (no FCS), "
                 "60..16383; lengths sweep min..max, one more each frame (reset 60, 60)",
                 reset=0x003C003C,
                 fields=(BitField("MIN", 0, 16, "shortest frame, bus bytes (60 at least)"),
                         BitField("MAX", 16, 16, "longest frame, bus bytes"))),
        Register(0x014, "GEN_RATE", "RW", "[23:0] wire bytes (bus bytes + 24) a cycle, 8.16 "
                 "fixed point; 0 = back to back (100 Gbit/s at 322.265625 MHz: 2542002)",
                 fields=(BitField("RATE", 0, 24, "token bucket refill, bytes a cycle x 2^16"),)),
        Register(0x018, "GEN_FLOWS", "RW", "[15:0] flows 0..n-1 in turn (source 10.0.F.F, port "
                 "1024 + F); 0 or 1: one flow", reset=1),
        Register(0x01C, "GEN_COUNT", "RW", "frames to send; 0 = until GEN_ENABLE falls"),
        Register(0x020, "STATUS", "RO", "[0] GEN_DONE: GEN_COUNT frames sent, the last beat "
                 "gone; [1] LOOPBACK: the select in force",
                 fields=(_bit("GEN_DONE", 0, "the run's frames all left the generator"),
                         _bit("LOOPBACK", 1, "capture's input is the generator now"))),
        Register(0x024, "GEN_FRAMES", "RO", "frames the generator sent (from GEN_ENABLE's rise)"),
        Register(0x028, "GEN_BYTES_LO", "RO", "their bus bytes [31:0]; the read latches [63:32] "
                 "for the next *_HI read"),
        Register(0x02C, "GEN_BYTES_HI", "RO", "the latched high word"),
        Register(0x030, "GEN_T_FIRST_LO", "RO", "TIME of the run's first beat leaving the "
                 "generator [31:0]; latches [63:32]"),
        Register(0x034, "GEN_T_FIRST_HI", "RO", "the latched high word"),
        Register(0x038, "GEN_T_LAST_LO", "RO", "TIME of the run's last frame's last beat [31:0]; "
                 "latches [63:32]"),
        Register(0x03C, "GEN_T_LAST_HI", "RO", "the latched high word"),
        Register(0x040, "CHK_FRAMES", "RO", "test frames the checker saw entering capture"),
        Register(0x044, "CHK_BYTES_LO", "RO", "their bytes [31:0]; latches [63:32]"),
        Register(0x048, "CHK_BYTES_HI", "RO", "the latched high word"),
        Register(0x04C, "CHK_OTHERS", "RO", "frames that are not test frames"),
        Register(0x050, "CHK_GAPS", "RO", "test frames missing, by sequence number"),
        Register(0x054, "CHK_LATE", "RO", "sequence numbers below the expected one"),
        Register(0x058, "CHK_LAT_MIN", "RO", "least latency, cycles of TIME (all ones until a "
                 "frame; saturates)", reset=0xFFFFFFFF),
        Register(0x05C, "CHK_LAT_MAX", "RO", "largest latency, cycles (saturates)"),
        Register(0x060, "CHK_LAT_SUM_LO", "RO", "sum of the latencies [31:0]; latches [63:32]"),
        Register(0x064, "CHK_LAT_SUM_HI", "RO", "the latched high word"),
        Register(0x068, "RX_DISCARD", "RO", "s_axis frames dropped while LOOPBACK was in force"),
        Register(0x070, "TIME_LO", "RO", "the generator's and checker's time: cycles since "
                 "reset [31:0]; latches [63:32]"),
        Register(0x074, "TIME_HI", "RO", "the latched high word"),
    ),
)

# ------------------------------------------------------------------------------ address maps

BLOCKS: dict[str, Block] = {b.name: b for b in (GRE, VXLAN_DECAP, VXLAN_ENCAP, GENEVE_DECAP, TABLE,
                                                 TS_CLOCK, DMA_RING_WRITER, CAPTURE,
                                                 CAPTURE_GEN)}

GRE_MAP = AddressMap("gre", "gre_decap", (Window(0x0000, "gre", GRE),))
VTEP_MAP = AddressMap("vtep", "vtep_top", (
    Window(0x0000, "decap", VXLAN_DECAP),
    Window(0x1000, "encap", VXLAN_ENCAP),
    Window(0x2000, "vni_table", TABLE),
    Window(0x3000, "tunnel_table", TABLE),
))
# geneve_decap: block_csr, then the decap shell's second window (the VNI table).
GENEVE_MAP = AddressMap("geneve", "geneve_decap", (
    Window(0x0000, "geneve", GENEVE_DECAP),
    Window(0x1000, "vni_table", TABLE),
))
MAPS: dict[str, AddressMap] = {m.name: m for m in (GRE_MAP, GENEVE_MAP, VTEP_MAP)}

# vtep_top's windows
VTEP_DECAP = VTEP_MAP.window("decap").base
VTEP_ENCAP = VTEP_MAP.window("encap").base
VTEP_VNI_TABLE = VTEP_MAP.window("vni_table").base
VTEP_TUNNEL_TABLE = VTEP_MAP.window("tunnel_table").base
