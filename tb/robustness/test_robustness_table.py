"""The robustness table itself (wirespeed/robustness.py): every row's frames get the row's outcome
and action from the golden model at every bus width, the table covers every input class of
issue #5 for every block it applies to, and docs/robustness.md is the table's rendering."""

from __future__ import annotations

import pytest

from wirespeed import robustness as RB
from wirespeed.robustness import Beat, bus_frame


def _items(row: RB.Row, keep_w: int):
    if row.bus == "pcap":
        return [(f, False) for f in row.frames()]
    return [bus_frame(b, keep_w) for b in row.beats(keep_w)]


@pytest.mark.parametrize("row", RB.ROWS, ids=[r.id for r in RB.ROWS])
def test_row_model(row: RB.Row) -> None:
    """The model gives every frame of the row the stated outcome, at every width, and the stated
    action (drop/abort: one of the two at each width)."""
    assert row.block in RB.BLOCKS and row.action in RB.ACTIONS and row.group in RB.GROUPS
    assert row.outcome in RB.OUTCOMES[row.block].__members__
    for w in RB.WIDTHS:
        items = _items(row, w // 8)
        assert items, f"{row.id}: no frames at {w} bits"
        for k, (f, bad) in enumerate(items):
            assert len(f) >= 1
            if row.bus == "axis":
                assert bad, f"{row.id} #{k} at {w} bits: the bus frame is not a bad frame"
            r = RB.model_result(row, f, bad, w // 8)
            assert r.outcome.name == row.outcome, (
                f"{row.id} frame #{k} ({len(f)} B) at {w} bits: model {r.outcome.name}, table {row.outcome}")
    acts = RB.row_actions(row)
    for w, a in acts.items():
        allowed = {"drop", "abort"} if row.action == "drop/abort" else {row.action}
        assert a <= allowed, f"{row.id} at {w} bits: model actions {sorted(a)}, table {row.action}"


def test_doc_is_generated() -> None:
    """docs/robustness.md == render(): the committed contract cannot drift from the table."""
    want = RB.render()
    got = RB.DOC_PATH.read_text()
    assert got == want, "docs/robustness.md differs from wirespeed/robustness.py: run " \
                        "`python -m wirespeed.robustness --write`"


def test_counter_addresses() -> None:
    """Counter addresses: 0x0100 + 16*code in gre_decap's map and vtep_top's decap window,
    0x1100 + 16*code in the encap window."""
    assert RB.counter_address("gre_decap", "DROP_RX_ERROR") == 0x0100 + 16 * 12
    assert RB.counter_address("vxlan_decap", "DROP_UDP_CHECKSUM") == 0x0100 + 16 * 10
    assert RB.counter_address("vxlan_encap", "DROP_OVERSIZE") == 0x1100 + 16 * 5
    assert RB.counter_address("geneve_decap", "DROP_UNKNOWN_VNI") == 0x0100 + 16 * 11
    assert RB.regs_writes("geneve_decap", "default") == [(0x010, 6081), (0x008, 0)]
    vni = RB.regs_writes("geneve_decap", "vni")
    assert vni[-1] == (0x008, 0b11) and all(0x1000 <= a < 0x2000 for a, _ in vni[:-2])


# ---- coverage of the classes ----------------------------------------------------------

REQUIRED = {
    "gre_decap": ["trunc.eth", "trunc.vlan", "trunc.vlan2", "trunc.ipv4_pre_proto", "trunc.ipv4_post_proto",
                  "trunc.ipv4_options", "trunc.ipv6_pre_nh", "trunc.ipv6_post_nh", "trunc.gre_base",
                  "trunc.gre_csum", "trunc.gre_key", "trunc.gre_seq", "trunc.inner_ipv4", "trunc.inner_eth",
                  "trunc.payload", "len.ipv4_lt_ihl", "len.ipv4_gt_frame", "len.ipv4_lt_frame",
                  "len.ipv4_lt_gre_opts", "len.ipv6_lt_gre", "len.ipv6_gt_frame", "len.gre_ks_lie",
                  "len.gre_c_lie", "ihl.lt5", "ihl.options", "frag.mf", "frag.offset", "csum.ipv4_bad",
                  "csum.gre_bad", "flags.reserved", "vlan.one", "vlan.two", "vlan.three", "runt.plain",
                  "jumbo.gre", "beat1.plain", "rx.tuser", "keep.nonlast", "keep.last_gap", "keep.last_zero",
                  "keep.single_zero"],
    "vxlan_decap": ["trunc.eth", "trunc.vlan", "trunc.ipv4", "trunc.ipv4_options", "trunc.ipv6",
                    "trunc.udp_ports", "trunc.udp_len", "trunc.vxlan", "trunc.inner_eth", "trunc.inner",
                    "len.ipv4_small", "len.ipv4_big", "len.ipv4_big_udp_ok", "len.udp", "len.ipv4_lt_frame",
                    "len.inner_short", "len.ipv6_small", "len.ipv6_big", "len.ipv6_udp", "ihl.lt5",
                    "ihl.options", "frag.mf", "frag.offset", "csum.ipv4_bad", "csum.udp_bad", "csum.udp_zero",
                    "flags.no_i", "rsvd.flags", "rsvd.bytes123", "rsvd.byte7", "rsvd.flags_strict",
                    "rsvd.bytes123_strict", "rsvd.byte7_strict", "vlan.one", "vlan.two", "vlan.three",
                    "runt.plain", "jumbo.vxlan", "beat1.plain", "rx.tuser", "keep.nonlast", "keep.last_gap",
                    "keep.last_zero", "keep.single_zero"],
    "vxlan_encap": ["trunc.eth", "trunc.vlan", "trunc.ipv4", "trunc.l4", "len.ipv4", "ihl.lt5", "ihl.options",
                    "frag", "csum.inner_bad", "ip6ext", "vlan.hit", "vlan.other", "runt.short", "runt.hit",
                    "jumbo.hit", "jumbo.fifo", "beat1.plain", "rx.tuser", "keep.nonlast", "keep.last_gap",
                    "keep.last_zero", "keep.single_zero"],
    "geneve_decap": ["ok.teb", "ok.l3", "punt.proto", "pass.other", "trunc.eth", "trunc.vlan", "trunc.ipv4",
                     "trunc.ipv4_options", "trunc.ipv6", "trunc.udp_ports", "trunc.udp_len", "trunc.geneve",
                     "trunc.options", "trunc.inner_eth", "trunc.inner", "len.ipv4_small", "len.ipv4_big",
                     "len.ipv4_big_udp_ok", "len.udp", "len.ipv4_lt_frame", "len.inner_short", "len.opt_past",
                     "len.ipv6_small", "len.ipv6_big", "len.ipv6_udp", "ihl.lt5", "ihl.options", "frag.mf",
                     "frag.offset", "csum.ipv4_bad", "csum.udp_bad", "csum.udp_zero", "version", "flags.o",
                     "flags.c", "flags.c_punt", "rsvd", "opts.every_len", "vni.known", "vni.push", "vni.unknown",
                     "ecn.drop", "policy.pass", "policy.punt", "vlan.one", "vlan.two", "vlan.three",
                     "runt.plain", "jumbo.geneve", "beat1.plain", "rx.tuser", "keep.nonlast", "keep.last_gap",
                     "keep.last_zero", "keep.single_zero"],
}


@pytest.mark.parametrize("block", RB.BLOCKS)
def test_required_classes(block: str) -> None:
    ids = {r.id for r in RB.rows(block)}
    missing = [c for c in REQUIRED[block] if f"{RB._PREFIX[block]}.{c}" not in ids]
    assert not missing, f"{block}: no row for {missing}"
    groups = {r.group for r in RB.rows(block)}
    own = {"gre_decap": {"GRE flags and version"}, "vxlan_decap": {"VXLAN flags and reserved bits"},
           "geneve_decap": {"Geneve version, flags and options", "VNI table, ECN and policy"}}
    need = (set(RB.GROUPS) - set().union(*own.values())) | own.get(block, set())
    assert need <= groups, f"{block}: groups without rows: {sorted(need - groups)}"


def test_gre_every_flag_and_version() -> None:
    """All 16 C/R/K/S combinations at each of the versions 0..7 appear in the GRE flags rows."""
    seen = set()
    for r in RB.rows("gre_decap"):
        if r.group != "GRE flags and version":
            continue
        for f in r.frames():
            w = f[34] << 8 | f[35]
            seen.add((w >> 12, w & 7, w & 0x0FF8))
    combos = {(crks, ver) for crks, ver, rest in seen if rest == 0}
    assert combos == {(b, v) for b in range(16) for v in range(8)}
    reserved = {rest for _, _, rest in seen if rest}
    assert reserved == {1 << b for b in range(3, 12)}


def test_vxlan_every_reserved_bit() -> None:
    """Each of the 39 reserved bits of the VXLAN header (7 flag bits, bytes 1..3, byte 7) is set
    alone in some frame, in the default (accepted) and the strict (dropped) rows."""
    for cfg in ("default", "strict"):
        bits = set()
        for r in RB.rows("vxlan_decap", cfg=cfg):
            if not r.id.split(".")[1].startswith("rsvd"):
                continue
            for f in r.frames():
                hdr = int.from_bytes(f[42:50], "big") & ~(0x08 << 56) & ~(0xFFFFFF << 8)
                if bin(hdr).count("1") == 1:
                    bits.add(hdr.bit_length() - 1)
        assert bits == {b for b in range(64) if b < 8 or b >= 32} - {59}, cfg


@pytest.mark.parametrize("block", RB.BLOCKS)
def test_runts_every_length(block: str) -> None:
    lengths = {len(f) for r in RB.rows(block, bus="pcap") if r.group == "Runt and jumbo frames"
               for f in r.frames()}
    assert set(range(1, 60)) <= lengths
    assert max(lengths) >= 9600


@pytest.mark.parametrize("block", RB.BLOCKS)
def test_one_beat_every_width(block: str) -> None:
    """A frame of exactly one beat (tlast on the first beat) at every width, and the bus rows'
    one-beat frames."""
    lengths = {len(f) for r in RB.rows(block, bus="pcap") if r.group.startswith("One-beat") for f in r.frames()}
    assert {8, 16, 32, 64} <= lengths
    for w in RB.WIDTHS:
        one = [b for r in RB.rows(block, bus="axis") for b in r.beats(w // 8) if len(b) == 1]
        assert any(b[0].user for b in one) and any(b[0].keep == 0 for b in one), w


def test_ipv6_extension_headers() -> None:
    for block in ("gre_decap", "vxlan_decap", "vxlan_encap", "geneve_decap"):
        nhs = set()
        for r in RB.rows(block, bus="pcap"):
            if r.group != "IPv6 extension headers":
                continue
            for f in r.frames():
                if f[12:14] == b"\x86\xdd":
                    nhs.add(f[20])
        assert {0, 43, 44, 60} <= nhs, (block, nhs)


def test_geneve_every_option_length() -> None:
    """Options of every length the 6-bit Opt Len allows (0 .. 252 bytes), decapsulated; Opt Len
    past the datagram dropped; truncation inside the options at every 4th byte of 252."""
    lens = set()
    for r in RB.rows("geneve_decap", bus="pcap"):
        for f in r.frames():
            if len(f) >= 51 and f[12:14] == b"\x08\x00" and f[23] == 17 and f[36:38] == (6081).to_bytes(2, "big"):
                res = RB.model_result(r, f)
                if res.outcome.name.startswith("DECAP"):
                    lens.add((f[42] & 0x3F) * 4)
    assert set(range(0, 253, 4)) <= lens, sorted(set(range(0, 253, 4)) - lens)
    assert {r.id for r in RB.rows("geneve_decap") if r.outcome == "DROP_VERSION"}
    cuts = {len(f) for f in next(r for r in RB.ROWS if r.id == "gnv.trunc.options").frames()}
    assert set(range(50, 302, 4)) <= cuts


# ---- the bus view of a frame ---------------------------------------------------------------------


def test_bus_frame() -> None:
    """bus_frame: contiguous beats are the frame itself; a hole anywhere makes it bad; the last
    beat ends after its highest set tkeep bit, with one byte at least."""
    f = bytes(range(20))
    assert bus_frame(RB.split_beats(f, 8), 8) == (f, False)
    assert bus_frame(RB.split_beats(f, 64), 64) == (f, False)
    bs = RB.split_beats(f, 8)
    assert bus_frame([bs[0], Beat(bs[1].data, 0xFE, False), bs[2]], 8) == (f, True)
    assert bus_frame([bs[0], bs[1], Beat(bs[2].data, 0b1011, True)], 8) == (f, True)
    assert bus_frame([bs[0], bs[1], Beat(bs[2].data, 0b0011, True)], 8) == (f[:18], False)
    assert bus_frame([bs[0], bs[1], Beat(bs[2].data, 0b1000, True)], 8) == (f, True)
    assert bus_frame([bs[0], bs[1], Beat(bs[2].data, 0, True)], 8) == (f[:17], True)
    assert bus_frame([Beat(b"\x55" * 8, 0, True)], 8) == (b"\x55", True)
    assert bus_frame([bs[0], bs[1], Beat(bs[2].data, 0b1111, True, True)], 8) == (f, True)
