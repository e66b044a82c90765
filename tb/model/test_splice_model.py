"""Unit tests of the golden model wirespeed/model/splice.py (axis_splice's contract, the header
comment of rtl/stream/axis_splice.sv): the edits the tops make, OUT_LEN cut and trunc, patches,
drop and bad frames, the cases outside the contract, and a byte-by-byte cross-check against the
RTL's own per-output-byte selection (SEG1 / INS / SEG2 by output offset, then patches, then
the length)."""

from __future__ import annotations

import random

import pytest

from wirespeed.model.splice import SpliceDesc, avail_bytes, beats, splice

FRAME = bytes(range(256)) * 6  # byte i is i & 0xFF: every output byte says where it came from


def test_pass_is_identity() -> None:
    r = splice(FRAME[:60], SpliceDesc())
    assert r.output == FRAME[:60] and not r.user and not r.trunc


def test_gre_strip_keeps_outer_l2() -> None:
    # gre_decap, L3 payload: SEG1 = [0, L2), SEG2_OFF = K, OUT_LEN = L2 + ip_end - K
    f = FRAME[:200]
    r = splice(f, SpliceDesc(seg1_len=14, seg2_off=38, out_len=14 + 150 - 38))
    assert r.output == f[:14] + f[38:150]
    assert not r.trunc and not r.user


def test_teb_strip_and_padding_cut() -> None:
    # TEB: SEG1 empty, everything before K stripped; the inner frame's 20 bytes of padding cut
    f = FRAME[:120]
    r = splice(f, SpliceDesc(seg2_off=50, out_len=50))
    assert r.output == f[50:100]


def test_vxlan_push_tag() -> None:
    # vxlan_decap with a pushed 802.1Q tag: SEG1 = the inner MACs at K, INS = the tag
    k = 50
    f = FRAME[:200]
    tag = bytes([0x81, 0x00, 0x00, 0x2A])
    r = splice(f, SpliceDesc(seg1_off=k, seg1_len=12, ins=tag, seg2_off=k + 12, meta=0x1ABCDEF))
    assert r.output == f[k : k + 12] + tag + f[k + 12 :]
    assert r.meta == 0x1ABCDEF


def test_vxlan_pass_with_stray_seg1_off() -> None:
    # vxlan_decap passes frames with SEG1_OFF = K, SEG1_LEN = 0, SEG2_OFF = 0: an empty SEG1 may
    # point anywhere, even past SEG2_OFF and past the frame
    f = FRAME[:40]
    assert splice(f, SpliceDesc(seg1_off=200, seg2_off=0)).output == f


def test_encap_insert_and_vlan_removal() -> None:
    outer = bytes(range(100, 150))
    f = FRAME[:80]
    assert splice(f, SpliceDesc(ins=outer, out_len=130)).output == outer + f
    # 62 bytes inserted (outer headers + inner MACs), inner frame from byte 16 (tag removed)
    ins = outer + f[:12]
    assert splice(f, SpliceDesc(ins=ins, seg2_off=16, out_len=80 + 50 - 4)).output == ins + f[16:]


def test_out_len_longer_than_frame_is_trunc() -> None:
    f = FRAME[:60]
    r = splice(f, SpliceDesc(seg1_len=14, seg2_off=20, out_len=100))
    assert r.trunc and r.user
    assert r.output == f[:14] + f[20:]  # sent as far as it goes
    assert avail_bytes(60, SpliceDesc(seg1_len=14, seg2_off=20)) == 54


def test_out_len_exact_is_not_trunc() -> None:
    f = FRAME[:60]
    r = splice(f, SpliceDesc(seg1_len=14, seg2_off=20, out_len=54))
    assert not r.trunc and r.output == f[:14] + f[20:]


def test_patches_later_index_wins_and_past_end_ignored() -> None:
    f = FRAME[:30]
    r = splice(f, SpliceDesc(out_len=20, patches=((3, 0xAA), (5, 0xBB), (3, 0xCC), (20, 0xDD), (255, 1))))
    exp = bytearray(f[:20])
    exp[3], exp[5] = 0xCC, 0xBB
    assert r.output == bytes(exp)


def test_patches_apply_after_segments() -> None:
    # a patch lands on an output offset, whatever segment the byte came from
    ins = b"\x01\x02\x03\x04"
    r = splice(FRAME[:40], SpliceDesc(seg1_len=12, ins=ins, seg2_off=12, patches=((13, 0x99), (20, 0x77))))
    exp = bytearray(FRAME[:12] + ins + FRAME[12:40])
    exp[13], exp[20] = 0x99, 0x77
    assert r.output == bytes(exp)


def test_drop_and_bad() -> None:
    f = FRAME[:64]
    assert splice(f, SpliceDesc(drop=True)).output is None
    assert splice(f, SpliceDesc(drop=True), bad=True).dropped
    r = splice(f, SpliceDesc(out_len=40), bad=True)
    assert r.output == f[:40] and r.user and not r.trunc


@pytest.mark.parametrize(
    "n,desc",
    [
        (0, SpliceDesc()),  # empty frame
        (60, SpliceDesc(seg1_off=10, seg1_len=14, seg2_off=20)),  # SEG1 past SEG2_OFF
        (20, SpliceDesc(seg1_off=10, seg1_len=14, seg2_off=30)),  # SEG1 past the frame
        (60, SpliceDesc(out_len=0)),  # no output byte
        (60, SpliceDesc(seg2_off=60)),  # nothing to supply
        (60, SpliceDesc(seg2_off=70, out_len=10)),  # nothing to supply, trunc
        (60, SpliceDesc(seg2_off=256)),  # 8-bit fields
        (60, SpliceDesc(ins=bytes(256))),
        (60, SpliceDesc(patches=((256, 0),))),
        (60, SpliceDesc(patches=((0, 256),))),
        (60, SpliceDesc(out_len=-1)),
    ],
)
def test_outside_contract(n: int, desc: SpliceDesc) -> None:
    with pytest.raises(ValueError):
        splice(FRAME[:n], desc)


def test_drop_needs_no_output_byte() -> None:
    # a dropped frame sends nothing, so a zero-length edit is fine there
    assert splice(FRAME[:60], SpliceDesc(out_len=0, drop=True)).dropped


def test_beats() -> None:
    assert [beats(n, 8) for n in (1, 8, 9, 60, 1514)] == [1, 1, 2, 8, 190]


def rtl_bytes(f: bytes, d: SpliceDesc, bad: bool) -> tuple[bytes, bool]:
    """The RTL's selection, output byte by output byte (axis_splice.sv, "output beat")."""
    ins_end = d.seg1_len + len(d.ins)
    avail = ins_end + max(0, len(f) - d.seg2_off)
    trunc = d.out_len is not None and d.out_len > avail
    total = avail if d.out_len is None or trunc else d.out_len
    out = []
    for o in range(total):
        if o < d.seg1_len:
            b = f[d.seg1_off + o]
        elif o < ins_end:
            b = d.ins[o - d.seg1_len]
        else:
            b = f[d.seg2_off + o - ins_end]
        for pos, val in d.patches:
            if o == pos:
                b = val
        out.append(b)
    return bytes(out), bad or trunc


def test_random_against_byte_selection() -> None:
    rng = random.Random(7)
    for _ in range(3000):
        n = rng.randint(1, 400)
        f = rng.randbytes(n)
        s2 = rng.randint(0, min(255, n - 1))
        s1len = rng.randint(0, s2)
        s1off = rng.randint(0, s2 - s1len)
        ins = rng.randbytes(rng.randint(0, 64))
        avail = s1len + len(ins) + n - s2
        out_len = rng.choice((None, rng.randint(1, avail + 50)))
        patches = tuple((rng.randint(0, 255), rng.getrandbits(8)) for _ in range(rng.randint(0, 6)))
        d = SpliceDesc(s1off, s1len, ins, s2, out_len, patches)
        bad = rng.random() < 0.2
        r = splice(f, d, bad)
        assert (r.output, r.user) == rtl_bytes(f, d, bad), d
