"""Software side of ``hash_table`` (docs/vxlan.md, "The table: `hash_table` and its software side").

The hardware only looks up and writes one whole slot at a time; placing entries is done here.

* :func:`crc32c`, :func:`crc32`, :func:`key_bytes` and :func:`bucket_indices`: the two hash
  functions, exactly as the RTL computes them.
* :class:`HashTable`: a shadow of the table contents that decides where entries go (the first
  free of the 8 candidate ways, else cuckoo relocation found by a bounded breadth-first search)
  and returns, for every change, the register writes that make it in hardware, ordered so
  that no lookup ever misses an entry that is in the table (a moved entry is written to its
  new slot before its old slot is reused) and every slot is written whole by one command.
* :class:`TableRegisterModel`: the hardware side (register file + slot memories) in Python,
  to replay those writes and check them, or to stand in for the RTL in a model.
* Value/key packing of the VXLAN tunnel table and VNI table.

Register writes are ``(offset, value)`` pairs, offsets relative to the table's 4 KiB window,
values 32-bit; write them in order, each one completed (B received) before the next.
"""

from __future__ import annotations

import ipaddress
import zlib
from collections import deque
from dataclasses import dataclass
from typing import Iterator, NamedTuple, Optional, Union

from wirespeed.regmap import TABLE as _TABLE
from wirespeed.regmap import TBL_OP_DELETE, TBL_OP_READ, TBL_OP_WRITE

__all__ = [
    "TBL_INFO", "TBL_VALUE_W", "TBL_COUNT", "TBL_CMD", "TBL_SLOT", "TBL_STATUS", "TBL_KEY",
    "TBL_VALUE", "OP_WRITE", "OP_DELETE", "OP_READ", "WAYS", "BANKS", "LOOKUP_LATENCY",
    "crc32c", "crc32", "key_bytes", "bucket_indices", "Slot", "TableFullError", "HashTable",
    "TableRegisterModel", "RegWrite",
    "TUNNEL_KEY_W", "TUNNEL_VALUE_W", "VNI_KEY_W", "VNI_VALUE_W", "TunnelEntry",
    "pack_tunnel", "unpack_tunnel", "pack_vni", "unpack_vni", "tunnel_key", "unpack_tunnel_key",
]

# ------------------------------------------------------------------------------------------
# Register map (offsets in the table's window) and geometry
# ------------------------------------------------------------------------------------------
# From the one source, wirespeed/regmap.py (docs/vxlan.md, "the table").
TBL_INFO = _TABLE.reg("TBL_INFO")        #: RO [7:0] log2(SLOTS), [15:8] ways (4), [31:16] KEY_W
TBL_VALUE_W = _TABLE.reg("TBL_VALUE_W")  #: RO VALUE_W
TBL_COUNT = _TABLE.reg("TBL_COUNT")      #: RO number of valid slots
TBL_CMD = _TABLE.reg("TBL_CMD")          #: WO [1:0] op
TBL_SLOT = _TABLE.reg("TBL_SLOT")        #: RW [0] bank, [2:1] way, [31:3] bucket
TBL_STATUS = _TABLE.reg("TBL_STATUS")    #: RO [0] busy, [31] valid bit of the last op-3 read
TBL_KEY = _TABLE.reg("TBL_KEY")          #: RW key word i at TBL_KEY + 4*i
TBL_VALUE = _TABLE.reg("TBL_VALUE")      #: RW value word i at TBL_VALUE + 4*i

OP_WRITE = TBL_OP_WRITE
OP_DELETE = TBL_OP_DELETE
OP_READ = TBL_OP_READ

WAYS = 4
BANKS = 2
LOOKUP_LATENCY = 3   #: cycles from lk_valid to rs_valid: rtl/control/hash_table.sv's default

RegWrite = tuple[int, int]  #: (offset in the table window, 32-bit value)

# ------------------------------------------------------------------------------------------
# Hash functions
# ------------------------------------------------------------------------------------------


def _crc_table(poly: int) -> list[int]:
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ poly if c & 1 else c >> 1
        table.append(c)
    return table


_CRC32C_TABLE = _crc_table(0x82F63B78)


def crc32c(data: bytes) -> int:
    """CRC-32C (Castagnoli; reflected, init 0xFFFFFFFF, final xor 0xFFFFFFFF), the iSCSI one.

    >>> hex(crc32c(b"123456789"))
    '0xe3069283'
    """
    c = 0xFFFFFFFF
    t = _CRC32C_TABLE
    for b in data:
        c = t[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def crc32(data: bytes) -> int:
    """CRC-32 of IEEE 802.3 (the ``zlib.crc32`` one).

    >>> hex(crc32(b"123456789"))
    '0xcbf43926'
    """
    return zlib.crc32(data) & 0xFFFFFFFF


def key_bytes(key: int, key_w: int) -> bytes:
    """The key as a big-endian integer in ceil(key_w/8) bytes (what both CRCs hash)."""
    if not 0 <= key < (1 << key_w):
        raise ValueError(f"key 0x{key:x} does not fit in {key_w} bits")
    return key.to_bytes((key_w + 7) // 8, "big")


def _check_slots(slots: int) -> int:
    if slots < 16 or slots & (slots - 1):
        raise ValueError(f"slots ({slots}) must be a power of two >= 16")
    return slots // (BANKS * WAYS)


def bucket_indices(key: int, key_w: int, slots: int) -> tuple[int, int]:
    """``(h0, h1)``: the key's bucket in bank 0 (CRC-32C) and in bank 1 (CRC-32)."""
    buckets = _check_slots(slots)
    kb = key_bytes(key, key_w)
    return crc32c(kb) % buckets, crc32(kb) % buckets


# ------------------------------------------------------------------------------------------
# Slots and placement
# ------------------------------------------------------------------------------------------


class Slot(NamedTuple):
    """One slot of the table: bank (0/1), bucket in that bank, way (0..3)."""

    bank: int
    bucket: int
    way: int

    @property
    def reg(self) -> int:
        """The TBL_SLOT register value naming this slot."""
        return (self.bucket << 3) | (self.way << 1) | self.bank

    @classmethod
    def from_reg(cls, reg: int) -> "Slot":
        return cls(reg & 1, reg >> 3, (reg >> 1) & 3)


class TableFullError(Exception):
    """No place for a key: its 8 ways are taken and no relocation path was found."""

    def __init__(self, key: int, searched: int):
        super().__init__(
            f"hash table full: no slot for key 0x{key:x} (its 8 candidate ways are taken and "
            f"a cuckoo search over {searched} slots found no free one)")
        self.key = key
        self.searched = searched


class HashTable:
    """Shadow of one ``hash_table`` instance: placement, and the register writes of each change.

    ``insert`` / ``delete`` change the shadow and return the register writes that apply the
    change to the hardware (see the module docstring). A failed insert (:class:`TableFullError`)
    changes nothing.

    Placement: a new key goes to the first free way of bucket h0 in bank 0, then of bucket h1
    in bank 1. When all 8 are taken, a breadth-first search (at most ``max_search`` slots)
    looks for the shortest chain of entries, each moving to a way of its bucket in the other
    bank, that ends at a free slot; the chain is applied from its free end, each entry first
    written to its new slot, whose previous occupant has already been copied on, so an entry
    always has at least one valid copy with its value (briefly two, which the lookup resolves
    to the same value). An existing key keeps its slot: an update is one slot write.
    """

    def __init__(self, key_w: int, value_w: int, slots: int = 32768, *, max_search: int = 4096):
        if not 1 <= key_w <= 256:
            raise ValueError(f"key_w ({key_w}) must be 1..256")
        if not 1 <= value_w <= 256:
            raise ValueError(f"value_w ({value_w}) must be 1..256")
        self.key_w = key_w
        self.value_w = value_w
        self.slots = slots
        self.buckets = _check_slots(slots)
        self.max_search = max_search
        self.key_words = (key_w + 31) // 32
        self.value_words = (value_w + 31) // 32
        # flat index = (bank * buckets + bucket) * WAYS + way -> (key, value) or None
        self._cells: list[Optional[tuple[int, int]]] = [None] * slots
        self._where: dict[int, int] = {}
        self._hash_cache: dict[int, tuple[int, int]] = {}
        self.relocations = 0  #: entries moved by cuckoo relocation so far

    # -- geometry -------------------------------------------------------------------------

    def _flat(self, bank: int, bucket: int, way: int) -> int:
        return (bank * self.buckets + bucket) * WAYS + way

    def _slot(self, flat: int) -> Slot:
        bb, way = divmod(flat, WAYS)
        bank, bucket = divmod(bb, self.buckets)
        return Slot(bank, bucket, way)

    def _hashes(self, key: int) -> tuple[int, int]:
        h = self._hash_cache.get(key)
        if h is None:
            h = bucket_indices(key, self.key_w, self.slots)
            self._hash_cache[key] = h
        return h

    def candidates(self, key: int) -> list[Slot]:
        """The 8 slots a key may occupy, in placement (and hardware priority) order."""
        h = self._hashes(key)
        return [Slot(bank, h[bank], way) for bank in range(BANKS) for way in range(WAYS)]

    def _candidate_flats(self, key: int) -> list[int]:
        h = self._hashes(key)
        return [self._flat(bank, h[bank], way) for bank in range(BANKS) for way in range(WAYS)]

    # -- queries --------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._where)

    def __contains__(self, key: object) -> bool:
        return key in self._where

    def lookup(self, key: int) -> Optional[int]:
        """The key's value, or None."""
        flat = self._where.get(key)
        return None if flat is None else self._cells[flat][1]  # type: ignore[index]

    def slot_of(self, key: int) -> Optional[Slot]:
        """Where the key is, or None."""
        flat = self._where.get(key)
        return None if flat is None else self._slot(flat)

    def at(self, slot: Slot) -> Optional[tuple[int, int]]:
        """``(key, value)`` stored in a slot, or None when it is free."""
        return self._cells[self._flat(*slot)]

    def items(self) -> Iterator[tuple[int, int]]:
        """``(key, value)`` of every entry."""
        for key, flat in self._where.items():
            yield key, self._cells[flat][1]  # type: ignore[index]

    @property
    def load(self) -> float:
        return len(self._where) / self.slots

    # -- register writes ------------------------------------------------------------------

    def write_ops(self, slot: Slot, key: int, value: int) -> list[RegWrite]:
        """Register writes that store ``key``/``value`` in ``slot`` (one write command)."""
        ops = [(TBL_KEY + 4 * i, (key >> (32 * i)) & 0xFFFFFFFF) for i in range(self.key_words)]
        ops += [(TBL_VALUE + 4 * i, (value >> (32 * i)) & 0xFFFFFFFF)
                for i in range(self.value_words)]
        ops += [(TBL_SLOT, slot.reg), (TBL_CMD, OP_WRITE)]
        return ops

    @staticmethod
    def delete_ops(slot: Slot) -> list[RegWrite]:
        """Register writes that invalidate ``slot`` (one delete command)."""
        return [(TBL_SLOT, slot.reg), (TBL_CMD, OP_DELETE)]

    @staticmethod
    def read_ops(slot: Slot) -> list[RegWrite]:
        """Register writes that copy ``slot`` into TBL_KEY/TBL_VALUE/TBL_STATUS[31]."""
        return [(TBL_SLOT, slot.reg), (TBL_CMD, OP_READ)]

    # -- changes --------------------------------------------------------------------------

    def _check_kv(self, key: int, value: int) -> None:
        if not 0 <= key < (1 << self.key_w):
            raise ValueError(f"key 0x{key:x} does not fit in {self.key_w} bits")
        if not 0 <= value < (1 << self.value_w):
            raise ValueError(f"value 0x{value:x} does not fit in {self.value_w} bits")

    def insert(self, key: int, value: int) -> list[RegWrite]:
        """Add ``key`` or change its value; returns the register writes.

        Raises :class:`TableFullError` (nothing changed) when no place is found.
        """
        self._check_kv(key, value)
        flat = self._where.get(key)
        if flat is not None:  # update in place: one atomic slot write
            self._cells[flat] = (key, value)
            return self.write_ops(self._slot(flat), key, value)
        cands = self._candidate_flats(key)
        for flat in cands:
            if self._cells[flat] is None:
                return self._put(flat, key, value)
        path = self._search(key, cands)
        ops: list[RegWrite] = []
        # path = [p0, p1, ..., pk]: p0 a candidate of `key`, p_i (i < k) holds the entry that
        # moves to p_{i+1}, pk free. Move from the free end backwards.
        for i in range(len(path) - 1, 0, -1):
            k_i, v_i = self._cells[path[i - 1]]  # type: ignore[misc]
            ops += self._put(path[i], k_i, v_i)
            self.relocations += 1
        ops += self._put(path[0], key, value)
        return ops

    def _put(self, flat: int, key: int, value: int) -> list[RegWrite]:
        """Store key/value in slot ``flat`` (overwriting its occupant's record there)."""
        old = self._cells[flat]
        if old is not None and self._where.get(old[0]) == flat:
            del self._where[old[0]]
        self._cells[flat] = (key, value)
        self._where[key] = flat
        return self.write_ops(self._slot(flat), key, value)

    def _search(self, key: int, cands: list[int]) -> list[int]:
        """Shortest relocation path from one of ``cands`` (all taken) to a free slot."""
        parent: dict[int, int] = {c: -1 for c in cands}
        queue = deque(cands)
        while queue:
            s = queue.popleft()
            occ_key = self._cells[s][0]  # type: ignore[index]
            bank = self._slot(s).bank
            other = 1 - bank
            alt_bucket = self._hashes(occ_key)[other]
            for way in range(WAYS):
                t = self._flat(other, alt_bucket, way)
                if t in parent:
                    continue
                parent[t] = s
                if self._cells[t] is None:
                    path = [t]
                    while parent[path[-1]] != -1:
                        path.append(parent[path[-1]])
                    path.reverse()
                    return path
                if len(parent) >= self.max_search:
                    raise TableFullError(key, len(parent))
                queue.append(t)
        raise TableFullError(key, len(parent))

    def delete(self, key: int) -> list[RegWrite]:
        """Remove ``key``; returns the register writes. KeyError when absent."""
        flat = self._where.pop(key, None)
        if flat is None:
            raise KeyError(f"key 0x{key:x} is not in the table")
        self._cells[flat] = None
        return self.delete_ops(self._slot(flat))


# ------------------------------------------------------------------------------------------
# The hardware side, in Python
# ------------------------------------------------------------------------------------------


class TableRegisterModel:
    """``hash_table``'s control registers and slot memories, without timing.

    :meth:`write` applies one register write (returns False where the RTL answers SLVERR),
    :meth:`lookup` looks a key up as the hardware does (first valid match in the order bank 0
    way 0..3, bank 1 way 0..3).
    """

    def __init__(self, key_w: int, value_w: int, slots: int):
        self.key_w = key_w
        self.value_w = value_w
        self.slots = slots
        self.buckets = _check_slots(slots)
        self.key_words = (key_w + 31) // 32
        self.value_words = (value_w + 31) // 32
        self.mem: dict[Slot, tuple[int, int]] = {}  # valid slots only
        self.key = 0
        self.value = 0
        self.slot = 0
        self.read_valid = 0
        self.commands = 0  #: commands executed

    @property
    def count(self) -> int:
        return len(self.mem)

    def info(self) -> int:
        return (self.key_w << 16) | (WAYS << 8) | (self.slots.bit_length() - 1)

    def read(self, addr: int) -> Optional[int]:
        """Register read; None where the RTL answers SLVERR."""
        a = addr & ~3
        fixed = {TBL_INFO: self.info(), TBL_VALUE_W: self.value_w, TBL_COUNT: self.count,
                 TBL_CMD: 0, TBL_SLOT: self.slot, TBL_STATUS: self.read_valid << 31}
        if a in fixed:
            return fixed[a]
        if TBL_KEY <= a < TBL_KEY + 4 * self.key_words:
            return (self.key >> (8 * (a - TBL_KEY))) & 0xFFFFFFFF
        if TBL_VALUE <= a < TBL_VALUE + 4 * self.value_words:
            return (self.value >> (8 * (a - TBL_VALUE))) & 0xFFFFFFFF
        return None

    @staticmethod
    def _set_word(reg: int, i: int, data: int, width: int) -> int:
        reg &= ~(0xFFFFFFFF << (32 * i))
        reg |= (data & 0xFFFFFFFF) << (32 * i)
        return reg & ((1 << width) - 1)

    def write(self, addr: int, data: int) -> bool:
        """Register write (all byte lanes). False where the RTL answers SLVERR."""
        a = addr & ~3
        if a == TBL_SLOT:
            self.slot = data & 0xFFFFFFFF
        elif TBL_KEY <= a < TBL_KEY + 4 * self.key_words:
            self.key = self._set_word(self.key, (a - TBL_KEY) // 4, data, self.key_w)
        elif TBL_VALUE <= a < TBL_VALUE + 4 * self.value_words:
            self.value = self._set_word(self.value, (a - TBL_VALUE) // 4, data, self.value_w)
        elif a == TBL_CMD:
            op = data & 3
            if op == 0:
                return True
            slot = Slot.from_reg(self.slot)
            if slot.bucket >= self.buckets:
                return False
            self.commands += 1
            if op == OP_WRITE:
                self.mem[slot] = (self.key, self.value)
            elif op == OP_DELETE:
                self.mem.pop(slot, None)
            else:
                entry = self.mem.get(slot)
                self.read_valid = int(entry is not None)
                self.key, self.value = entry if entry is not None else (0, 0)
        else:
            return False
        return True

    def apply(self, ops: list[RegWrite]) -> None:
        for addr, data in ops:
            if not self.write(addr, data):
                raise ValueError(f"register write 0x{addr:03x} <- 0x{data:x} answers SLVERR")

    def lookup(self, key: int) -> Optional[int]:
        h = bucket_indices(key, self.key_w, self.slots)
        for bank in range(BANKS):
            for way in range(WAYS):
                e = self.mem.get(Slot(bank, h[bank], way))
                if e is not None and e[0] == key:
                    return e[1]
        return None


# ------------------------------------------------------------------------------------------
# VXLAN tables: keys and values (docs/vxlan.md)
# ------------------------------------------------------------------------------------------

TUNNEL_KEY_W = 45
TUNNEL_VALUE_W = 214
VNI_KEY_W = 24
VNI_VALUE_W = 13

MacLike = Union[int, str, bytes]
IpLike = Union[int, str, bytes, ipaddress.IPv4Address]


def _mac(v: MacLike) -> int:
    """A MAC address as a 48-bit integer, first octet most significant
    (``"02:00:00:00:00:01"`` -> 0x020000000001)."""
    if isinstance(v, int):
        n = v
    elif isinstance(v, bytes):
        if len(v) != 6:
            raise ValueError(f"MAC {v!r} is not 6 bytes")
        n = int.from_bytes(v, "big")
    else:
        parts = v.replace("-", ":").split(":")
        if len(parts) != 6:
            raise ValueError(f"MAC {v!r} is not six octets")
        n = int.from_bytes(bytes(int(p, 16) for p in parts), "big")
    if not 0 <= n < 1 << 48:
        raise ValueError(f"MAC {v!r} does not fit in 48 bits")
    return n


def _ip(v: IpLike) -> int:
    """An IPv4 address as a 32-bit integer, first octet most significant."""
    if isinstance(v, int):
        n = v
    elif isinstance(v, bytes):
        if len(v) != 4:
            raise ValueError(f"IPv4 address {v!r} is not 4 bytes")
        n = int.from_bytes(v, "big")
    else:
        n = int(ipaddress.IPv4Address(v))
    if not 0 <= n < 1 << 32:
        raise ValueError(f"IPv4 address {v!r} does not fit in 32 bits")
    return n


def _field(name: str, v: int, width: int) -> int:
    if not 0 <= v < 1 << width:
        raise ValueError(f"{name} ({v}) does not fit in {width} bits")
    return v


@dataclass(frozen=True)
class TunnelEntry:
    """One tunnel-table value, fields as integers. MACs and IPv4 addresses are big-endian
    integers: the first octet on the wire is the most significant byte."""

    vni: int
    dst_mac: int
    src_mac: int
    src_ip: int
    dst_ip: int
    udp_port: int
    ttl: int
    dscp: int

    def pack(self) -> int:
        return pack_tunnel(self.vni, self.dst_mac, self.src_mac, self.src_ip, self.dst_ip,
                           self.udp_port, self.ttl, self.dscp)


def pack_tunnel(vni: int, dst_mac: MacLike, src_mac: MacLike, src_ip: IpLike, dst_ip: IpLike,
                udp_port: int = 4789, ttl: int = 64, dscp: int = 0) -> int:
    """The 214-bit tunnel-table value: ``vni[23:0]``, ``dst_mac[71:24]``, ``src_mac[119:72]``,
    ``src_ip[151:120]``, ``dst_ip[183:152]``, ``udp_port[199:184]``, ``ttl[207:200]``,
    ``dscp[213:208]``. MACs: int, ``"aa:bb:cc:dd:ee:ff"`` or 6 bytes; IPs: int, dotted string,
    4 bytes or IPv4Address (outer source and destination of the encapsulated frame)."""
    return (_field("vni", vni, 24)
            | _mac(dst_mac) << 24
            | _mac(src_mac) << 72
            | _ip(src_ip) << 120
            | _ip(dst_ip) << 152
            | _field("udp_port", udp_port, 16) << 184
            | _field("ttl", ttl, 8) << 200
            | _field("dscp", dscp, 6) << 208)


def unpack_tunnel(value: int) -> TunnelEntry:
    """Inverse of :func:`pack_tunnel`."""
    if not 0 <= value < 1 << TUNNEL_VALUE_W:
        raise ValueError(f"tunnel value 0x{value:x} does not fit in {TUNNEL_VALUE_W} bits")
    return TunnelEntry(
        vni=value & 0xFFFFFF,
        dst_mac=(value >> 24) & (1 << 48) - 1,
        src_mac=(value >> 72) & (1 << 48) - 1,
        src_ip=(value >> 120) & 0xFFFFFFFF,
        dst_ip=(value >> 152) & 0xFFFFFFFF,
        udp_port=(value >> 184) & 0xFFFF,
        ttl=(value >> 200) & 0xFF,
        dscp=(value >> 208) & 0x3F,
    )


def tunnel_key(dst_ip: IpLike, vid: Optional[int] = None) -> int:
    """The 45-bit tunnel-table key ``{vlan_valid, vid[11:0], dst_ip[31:0]}`` of an inner frame:
    ``vid`` None for an untagged frame (vlan_valid 0, vid 0), else its 802.1Q VLAN ID."""
    ip = _ip(dst_ip)
    if vid is None:
        return ip
    return 1 << 44 | _field("vid", vid, 12) << 32 | ip


def unpack_tunnel_key(key: int) -> tuple[int, Optional[int]]:
    """Inverse of :func:`tunnel_key`: ``(dst_ip, vid or None)``."""
    if not 0 <= key < 1 << TUNNEL_KEY_W:
        raise ValueError(f"tunnel key 0x{key:x} does not fit in {TUNNEL_KEY_W} bits")
    ip = key & 0xFFFFFFFF
    return (ip, (key >> 32) & 0xFFF) if key >> 44 else (ip, None)


def pack_vni(vlan_id: int, push: bool) -> int:
    """The 13-bit VNI-table value: ``[11:0]`` VLAN ID, ``[12]`` push an 802.1Q tag."""
    return _field("vlan_id", vlan_id, 12) | int(bool(push)) << 12


def unpack_vni(value: int) -> tuple[int, bool]:
    """Inverse of :func:`pack_vni`: ``(vlan_id, push)``."""
    if not 0 <= value < 1 << VNI_VALUE_W:
        raise ValueError(f"VNI value 0x{value:x} does not fit in {VNI_VALUE_W} bits")
    return value & 0xFFF, bool(value >> 12 & 1)
