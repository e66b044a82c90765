"""Pure-Python tests of wirespeed/table.py: hash functions, placement, cuckoo relocation, the
order of the register writes (replayed on the Python register model after every command), and
the VXLAN key/value packing."""

from __future__ import annotations

import random
import zlib

import pytest

from wirespeed.table import (
    OP_DELETE, OP_WRITE, TBL_CMD, TBL_KEY, TBL_SLOT, TBL_VALUE, HashTable, Slot, TableFullError,
    TableRegisterModel, TunnelEntry, bucket_indices, crc32, crc32c, key_bytes, pack_tunnel,
    pack_vni, tunnel_key, unpack_tunnel, unpack_tunnel_key, unpack_vni,
)


def bitwise_crc(data: bytes, poly: int) -> int:
    """Reference reflected CRC-32, bit at a time (the RTL's loop)."""
    c = 0xFFFFFFFF
    for b in data:
        for j in range(8):
            fb = (c ^ (b >> j)) & 1
            c = (c >> 1) ^ (poly if fb else 0)
    return c ^ 0xFFFFFFFF


# ---------------------------------------------------------------------------------------------
# Hashes
# ---------------------------------------------------------------------------------------------


def test_crc_check_values() -> None:
    assert crc32c(b"123456789") == 0xE3069283
    assert crc32(b"123456789") == 0xCBF43926
    assert crc32c(b"") == 0 and crc32(b"") == 0
    # RFC 3720 B.4 test vectors
    assert crc32c(bytes(32)) == 0x8A9136AA
    assert crc32c(b"\xff" * 32) == 0x62A8AB43
    assert crc32c(bytes(range(32))) == 0x46DD794E


def test_crc_matches_bitwise_reference() -> None:
    rng = random.Random(1)
    for n in range(0, 40):
        data = bytes(rng.randrange(256) for _ in range(n))
        assert crc32c(data) == bitwise_crc(data, 0x82F63B78)
        assert crc32(data) == bitwise_crc(data, 0xEDB88320) == zlib.crc32(data)


def test_key_bytes_and_buckets() -> None:
    assert key_bytes(0x1_0203_0405, 45) == bytes([0, 1, 2, 3, 4, 5])
    assert key_bytes(0xABCDEF, 24) == bytes([0xAB, 0xCD, 0xEF])
    assert key_bytes(1, 1) == b"\x01"
    with pytest.raises(ValueError):
        key_bytes(1 << 45, 45)
    key = 0x1234_5678_9AB
    kb = key.to_bytes(6, "big")
    assert bucket_indices(key, 45, 32768) == (crc32c(kb) % 4096, zlib.crc32(kb) % 4096)
    assert bucket_indices(key, 45, 16) == (crc32c(kb) % 2, zlib.crc32(kb) % 2)
    with pytest.raises(ValueError):
        bucket_indices(key, 45, 100)
    with pytest.raises(ValueError):
        bucket_indices(key, 45, 8)


def test_slot_register() -> None:
    s = Slot(bank=1, bucket=4095, way=3)
    assert s.reg == (4095 << 3) | (3 << 1) | 1
    assert Slot.from_reg(s.reg) == s


# ---------------------------------------------------------------------------------------------
# Placement
# ---------------------------------------------------------------------------------------------


def check_consistent(t: HashTable, expect: dict[int, int]) -> None:
    """The shadow holds exactly `expect`, each key in one of its candidates, no duplicates."""
    assert len(t) == len(expect)
    seen: set[Slot] = set()
    for k, v in expect.items():
        assert t.lookup(k) == v
        s = t.slot_of(k)
        assert s in t.candidates(k)
        assert t.at(s) == (k, v)
        assert s not in seen
        seen.add(s)


def test_full_load_32768() -> None:
    """16384 random 45-bit keys (50 % load) in the default table: all placed, all found."""
    rng = random.Random(2024)
    t = HashTable(45, 214, 32768)
    expect: dict[int, int] = {}
    while len(expect) < 16384:
        k = rng.getrandbits(45)
        if k in expect:
            continue
        v = rng.getrandbits(214)
        ops = t.insert(k, v)
        assert ops[-1] == (TBL_CMD, OP_WRITE)
        expect[k] = v
    check_consistent(t, expect)
    for _ in range(2000):
        k = rng.getrandbits(45)
        if k not in expect:
            assert t.lookup(k) is None and t.slot_of(k) is None


def test_first_free_way_order() -> None:
    """Keys sharing both buckets fill bank 0 ways 0..3, then bank 1 ways 0..3."""
    t = HashTable(24, 13, 64)
    target = bucket_indices(0, 24, 64)
    same = [k for k in range(200000) if bucket_indices(k, 24, 64) == target][:9]
    assert len(same) == 9
    for i, k in enumerate(same[:8]):
        ops = t.insert(k, i)
        assert t.slot_of(k) == Slot(i // 4, target[i // 4], i % 4)
        assert len(ops) == 1 + 1 + 2  # KEY, VALUE, SLOT, CMD
    with pytest.raises(TableFullError, match=f"0x{same[8]:x}"):
        t.insert(same[8], 9)  # all 8 candidates hold keys whose alternatives are the same 8
    assert len(t) == 8 and same[8] not in t


def test_update_same_slot() -> None:
    t = HashTable(45, 214, 256)
    t.insert(5, 1)
    s = t.slot_of(5)
    ops = t.insert(5, 2)
    assert t.slot_of(5) == s and t.lookup(5) == 2 and len(t) == 1
    assert ops == t.write_ops(s, 5, 2)
    assert [a for a, _ in ops] == [TBL_KEY, TBL_KEY + 4] + [TBL_VALUE + 4 * i for i in range(7)] \
        + [TBL_SLOT, TBL_CMD]


def test_write_ops_words() -> None:
    t = HashTable(45, 214, 256)
    key = 0x1ABC_1234_5678
    value = (1 << 213) | 0xDEADBEEF_CAFEF00D
    ops = t.write_ops(Slot(1, 7, 2), key, value)
    assert ops[0] == (TBL_KEY, 0x12345678)
    assert ops[1] == (TBL_KEY + 4, 0x1ABC)
    assert ops[2] == (TBL_VALUE, 0xCAFEF00D)
    assert ops[3] == (TBL_VALUE + 4, 0xDEADBEEF)
    assert ops[8] == (TBL_VALUE + 24, 1 << (213 - 192))
    assert ops[9:] == [(TBL_SLOT, (7 << 3) | (2 << 1) | 1), (TBL_CMD, OP_WRITE)]
    assert t.delete_ops(Slot(0, 3, 1)) == [(TBL_SLOT, (3 << 3) | 2), (TBL_CMD, OP_DELETE)]


class Replay:
    """Replays register writes on the register model; after every command checks that every
    key the table holds (both before and after the change in progress) is found with its
    value, i.e. a lookup in hardware never misses an entry that is in the table."""

    def __init__(self, key_w: int, value_w: int, slots: int):
        self.hw = TableRegisterModel(key_w, value_w, slots)
        self.key_w = key_w

    def apply(self, ops, stable: dict[int, int], changing: dict[int, set]) -> None:
        """stable: key -> value that must be found after every command; changing: key -> the
        set of results allowed while the change runs (None = miss)."""
        for addr, data in ops:
            assert self.hw.write(addr, data), f"SLVERR on 0x{addr:x}"
            if addr == TBL_CMD:
                for k, v in stable.items():
                    assert self.hw.lookup(k) == v, f"key 0x{k:x} lost during a change"
                for k, allowed in changing.items():
                    assert self.hw.lookup(k) in allowed


def test_cuckoo_relocation_tiny_table() -> None:
    """64 slots filled to 56 entries (87.5 %): relocation is needed and keeps every entry
    visible after every single command; deletes then re-inserts."""
    rng = random.Random(7)
    relocations = 0
    for trial in range(20):
        t = HashTable(45, 214, 64)
        rp = Replay(45, 214, 64)
        expect: dict[int, int] = {}
        while len(expect) < 56:
            k = rng.getrandbits(45)
            if k in expect:
                continue
            v = rng.getrandbits(214)
            try:
                ops = t.insert(k, v)
            except TableFullError:
                continue  # possible at this load for some key sets; nothing changed
            rp.apply(ops, dict(expect), {k: {None, v}})
            expect[k] = v
            check_consistent(t, expect)
            assert rp.hw.count == len(expect)
        relocations += t.relocations
        # delete half, re-insert them with new values, then update everything
        keys = list(expect)
        rng.shuffle(keys)
        for k in keys[:28]:
            old = expect.pop(k)
            rp.apply(t.delete(k), dict(expect), {k: {old, None}})
            assert t.lookup(k) is None and rp.hw.lookup(k) is None
        for k in keys[:28]:
            v = rng.getrandbits(214)
            rp.apply(t.insert(k, v), dict(expect), {k: {None, v}})
            expect[k] = v
        for k in keys:
            v = rng.getrandbits(214)
            old = expect.pop(k)
            rp.apply(t.insert(k, v), dict(expect), {k: {old, v}})
            expect[k] = v
        check_consistent(t, expect)
        assert rp.hw.count == len(expect) == 56
        for k, v in expect.items():
            assert rp.hw.lookup(k) == v
    assert relocations > 20


def test_forced_relocation() -> None:
    """Both candidate buckets of a key full: one entry moves to its other bank first (its new
    copy written before the slot is overwritten), then the key takes its place."""
    slots = 64
    h = {k: bucket_indices(k, 24, slots) for k in range(50000)}
    a, b = h[0]
    c = next(x for x in range(8) if x != a)
    t = HashTable(24, 13, slots)
    rp = Replay(24, 13, slots)
    expect: dict[int, int] = {}

    def add(keys):
        for k in keys:
            rp.apply(t.insert(k, k & 0x1FFF), dict(expect), {k: {None, k & 0x1FFF}})
            expect[k] = k & 0x1FFF

    in_a = [k for k in range(1, 50000) if h[k][0] == a and h[k][1] != b][:4]
    in_c = [k for k in range(1, 50000) if h[k][0] == c and h[k][1] != b][:4]
    to_b = [k for k in range(1, 50000) if h[k] == (c, b)][:4]
    add(in_a + in_c + to_b)
    assert all(t.slot_of(k).bank == 0 for k in in_a + in_c)
    assert all(t.slot_of(k) == Slot(1, b, i) for i, k in enumerate(to_b))
    assert t.relocations == 0
    ops = t.insert(0, 0x1234)
    assert t.relocations == 1
    assert t.slot_of(0) == Slot(0, a, 0)  # took the moved entry's slot
    moved = in_a[0]
    assert t.slot_of(moved) == Slot(1, h[moved][1], 0)
    # two write commands: the moved entry's new copy first, then the new key over the old copy
    cmds = [i for i, (addr, _) in enumerate(ops) if addr == TBL_CMD]
    assert len(cmds) == 2
    assert (TBL_SLOT, Slot(1, h[moved][1], 0).reg) in ops[:cmds[0]]
    assert (TBL_SLOT, Slot(0, a, 0).reg) in ops[cmds[0]:]
    rp.apply(ops, dict(expect), {0: {None, 0x1234}})
    expect[0] = 0x1234
    check_consistent(t, expect)


def test_relocations_counted_and_all_placed_at_high_load() -> None:
    """A 1024-slot table filled to 90 %: BFS relocation places every key."""
    rng = random.Random(3)
    t = HashTable(24, 13, 1024)
    rp = Replay(24, 13, 1024)
    expect: dict[int, int] = {}
    while len(expect) < 921:
        k = rng.getrandbits(24)
        if k in expect:
            continue
        v = rng.getrandbits(13)
        rp.apply(t.insert(k, v), {}, {})
        expect[k] = v
    check_consistent(t, expect)
    assert t.relocations > 0
    assert rp.hw.count == 921
    for k, v in expect.items():
        assert rp.hw.lookup(k) == v


def test_table_full_leaves_table_unchanged() -> None:
    rng = random.Random(9)
    t = HashTable(24, 13, 16)
    placed = {}
    failures = 0
    while len(placed) < 16 and failures < 200:
        k = rng.getrandbits(24)
        if k in placed:
            continue
        snapshot = list(t.items())
        try:
            t.insert(k, 1)
            placed[k] = 1
        except TableFullError as e:
            failures += 1
            assert e.key == k and f"0x{k:x}" in str(e)
            assert sorted(t.items()) == sorted(snapshot)
    assert len(t) == len(placed)
    with pytest.raises(KeyError):
        t.delete(0xFFFFFF if 0xFFFFFF not in placed else 0xFFFFFE)


def test_bad_arguments() -> None:
    t = HashTable(24, 13, 64)
    with pytest.raises(ValueError):
        t.insert(1 << 24, 0)
    with pytest.raises(ValueError):
        t.insert(0, 1 << 13)
    with pytest.raises(ValueError):
        HashTable(24, 13, 48)


def test_register_model() -> None:
    hw = TableRegisterModel(45, 214, 256)
    assert hw.read(0x000) == (45 << 16) | (4 << 8) | 8
    assert hw.read(0x004) == 214
    assert hw.read(0x028) is None and hw.read(0x05C) is None
    assert hw.read(0x058) == 0
    assert not hw.write(0x000, 1)
    assert not hw.write(0x05C, 1)
    assert hw.write(TBL_KEY + 4, 0xFFFFFFFF) and hw.read(TBL_KEY + 4) == 0x1FFF
    assert hw.write(TBL_SLOT, 32 << 3) and not hw.write(TBL_CMD, OP_WRITE)  # bucket 32 of 32


# ---------------------------------------------------------------------------------------------
# VXLAN packing
# ---------------------------------------------------------------------------------------------


def test_pack_tunnel() -> None:
    v = pack_tunnel(vni=0xABCDEF, dst_mac="02:00:00:00:00:01", src_mac=0x0A0B0C0D0E0F,
                    src_ip="10.0.0.1", dst_ip=b"\xc0\xa8\x01\x02", udp_port=4789, ttl=64, dscp=46)
    assert v & 0xFFFFFF == 0xABCDEF
    assert (v >> 24) & (1 << 48) - 1 == 0x020000000001
    assert (v >> 72) & (1 << 48) - 1 == 0x0A0B0C0D0E0F
    assert (v >> 120) & 0xFFFFFFFF == 0x0A000001
    assert (v >> 152) & 0xFFFFFFFF == 0xC0A80102
    assert (v >> 184) & 0xFFFF == 4789
    assert (v >> 200) & 0xFF == 64
    assert v >> 208 == 46
    assert v < 1 << 214
    e = unpack_tunnel(v)
    assert e == TunnelEntry(0xABCDEF, 0x020000000001, 0x0A0B0C0D0E0F, 0x0A000001, 0xC0A80102,
                            4789, 64, 46)
    assert e.pack() == v
    rng = random.Random(4)
    for _ in range(200):
        v = rng.getrandbits(214)
        assert unpack_tunnel(v).pack() == v
    with pytest.raises(ValueError):
        pack_tunnel(1 << 24, 0, 0, 0, 0)
    with pytest.raises(ValueError):
        pack_tunnel(0, 0, 0, 0, 0, dscp=64)
    with pytest.raises(ValueError):
        pack_tunnel(0, "02:00:00:00:01", 0, 0, 0)


def test_tunnel_key_and_vni() -> None:
    assert tunnel_key("192.168.1.2") == 0xC0A80102
    assert tunnel_key(0xC0A80102, vid=100) == (1 << 44) | (100 << 32) | 0xC0A80102
    assert tunnel_key(0, vid=0) == 1 << 44  # VID 0 tag still selects a different tunnel
    assert unpack_tunnel_key(tunnel_key("1.2.3.4", 4095)) == (0x01020304, 4095)
    assert unpack_tunnel_key(tunnel_key("1.2.3.4")) == (0x01020304, None)
    assert tunnel_key("255.255.255.255", 4095) < 1 << 45
    with pytest.raises(ValueError):
        tunnel_key(0, vid=4096)
    assert pack_vni(100, True) == (1 << 12) | 100
    assert pack_vni(4095, False) == 4095
    assert unpack_vni(pack_vni(7, True)) == (7, True)
    with pytest.raises(ValueError):
        pack_vni(4096, False)
