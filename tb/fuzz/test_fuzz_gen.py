"""Unit tests of the fuzz campaign's generator (wirespeed/fuzz.py): determinism per seed, the
pool's and the generator's class coverage, what each mutation does to a frame, the chunk
schedule and the replay config. No harness runs here (tb/fuzz/test_fuzz_short.py runs them)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from wirespeed import config as wconfig
from wirespeed import fuzz
from wirespeed.model.common import ones_sum
from wirespeed.paths import CAPTURES

POOL_SEED = 11


@pytest.fixture(scope="module")
def pool() -> fuzz.Pool:
    return fuzz.build_pool(POOL_SEED)


def _frames(pool: fuzz.Pool, seed: int, direction: str, n: int) -> list[fuzz.Frame]:
    return fuzz.generate(pool, random.Random(seed), direction, n)


# ---------------------------------------------------------------------------- determinism

def test_pool_is_deterministic_per_seed(pool: fuzz.Pool) -> None:
    again = fuzz.build_pool(POOL_SEED)
    assert {k: [b.frame for b in v] for k, v in pool.families.items()} == \
           {k: [b.frame for b in v] for k, v in again.families.items()}
    assert again.tunnels == pool.tunnels and again.vnis == pool.vnis
    other = fuzz.build_pool(POOL_SEED + 1)
    assert [b.frame for b in other.families["gre"]] != [b.frame for b in pool.families["gre"]]


@pytest.mark.parametrize("direction", ["gre", "decap", "encap", "geneve"])
def test_generator_is_deterministic_per_seed(pool: fuzz.Pool, direction: str) -> None:
    a = _frames(pool, 5, direction, 2000)
    b = _frames(pool, 5, direction, 2000)
    c = _frames(pool, 6, direction, 2000)
    assert a == b
    assert [f.data for f in a] != [f.data for f in c]


def test_chunk_plans_follow_the_seed(pool: fuzz.Pool) -> None:
    p1, r1 = fuzz.plan_chunk(pool, 9, 3, "vtep", 128, {"decap": 10, "encap": 10}, 5000)
    p2, r2 = fuzz.plan_chunk(pool, 9, 3, "vtep", 128, {"decap": 10, "encap": 10}, 5000)
    assert p1 == p2 and p1.cfg.vtep_register_writes() == p2.cfg.vtep_register_writes()
    assert fuzz.generate(pool, r1, "decap", 50) == fuzz.generate(pool, r2, "decap", 50)
    seeds = {fuzz.chunk_seed(9, i) for i in range(1000)}
    assert len(seeds) == 1000 and all(0 <= s < 2 ** 31 for s in seeds)
    assert fuzz.chunk_seed(9, 3) != fuzz.chunk_seed(10, 3)


# ---------------------------------------------------------------------------- coverage

def test_pool_covers_the_gre_and_vxlan_variants(pool: fuzz.Pool) -> None:
    seen = Counter()
    for b in pool.families["gre"]:
        lay, f = b.layout, b.frame
        assert lay.kind == "gre"
        flags = (f[lay.l4] << 8 | f[lay.l4 + 1]) & 0xB000
        proto = f[lay.l4 + 2] << 8 | f[lay.l4 + 3]
        ecn = (f[lay.l3 + 1] >> 4 & 3) if lay.v6 else (f[lay.l3 + 1] & 3)
        seen["flags", flags] += 1
        seen["v6", lay.v6] += 1
        seen["l2", lay.l2] += 1
        seen["proto", proto if proto in (0x0800, 0x86DD, 0x6558) else "punt"] += 1
        seen["ecn", ecn] += 1
    assert {k[1] for k in seen if k[0] == "flags"} == {c | k | s for c in (0, 0x8000)
                                                       for k in (0, 0x2000) for s in (0, 0x1000)}
    assert {k[1] for k in seen if k[0] == "v6"} == {False, True}
    assert {k[1] for k in seen if k[0] == "l2"} == {14, 18, 22}
    assert {k[1] for k in seen if k[0] == "proto"} == {0x0800, 0x86DD, 0x6558, "punt"}
    assert {k[1] for k in seen if k[0] == "ecn"} == {0, 1, 2, 3}
    vx = [b for b in pool.families["vxlan"]]
    assert all(b.layout.kind == "vxlan" for b in vx)
    assert {b.layout.v6 for b in vx} == {False, True}
    assert {b.layout.l2 for b in vx} == {14, 18, 22}
    csums = {b.frame[b.layout.l4 + 6:b.layout.l4 + 8] == b"\0\0" for b in vx}
    assert csums == {True, False}
    sizes = [len(b.frame) for fam in pool.families.values() for b in fam]
    assert max(sizes) > 1518 and min(sizes) < 60 and max(sizes) <= fuzz.MAX_LEN


def test_pool_holds_every_capture(pool: fuzz.Pool) -> None:
    files = sorted(p.stem for p in CAPTURES.glob("*.pcap"))
    assert files, f"no captures in {CAPTURES}: the end-to-end set-up needs them"
    assert list(pool.captures) == files and not pool.skipped_captures
    for name in files:
        assert pool.families[f"capture:{name}"]


@pytest.mark.parametrize("direction", ["gre", "decap", "encap", "geneve"])
def test_generator_covers_every_class_family(pool: fuzz.Pool, direction: str) -> None:
    frames = _frames(pool, 21, direction, 6000)
    fams = Counter(f.label.split("/")[0] for f in frames)
    muts = Counter(fuzz._mutation(f.label) for f in frames)
    want = {"random", "gre", "vxlan", "host", "plain"} | {f"capture:{c}" for c in pool.captures}
    want |= {"gre": {"gre-case"}, "decap": {"vxlan-case"}, "encap": {"host-case"},
             "geneve": {"geneve", "geneve-case"}}[direction]
    assert want <= set(fams), want - set(fams)
    assert {"none", "case", "bytes", *fuzz.MUTATIONS} <= set(muts), set(muts)
    sizes = Counter(f.label.split(":")[1].split("-")[0] for f in frames
                    if f.label.startswith("random/"))
    assert {"runt", "std", "jumbo"} <= set(sizes)
    for f in frames:
        lo, hi = (fuzz.GIANT_RANGE if f.label.startswith("random/bytes:giant") else
                  (1, fuzz.MAX_LEN))
        assert lo <= len(f.data) <= hi, (f.label, len(f.data))
        if f.label.startswith("random/bytes:runt"):
            assert len(f.data) <= 59


# ---------------------------------------------------------------------------- mutations

def _mutations(pool: fuzz.Pool, family: str, n: int = 3000):
    rng = random.Random(77)
    bases = pool.families[family]
    for _ in range(n):
        base = bases[rng.randrange(len(bases))]
        data, label = fuzz.mutate(rng, base)
        yield base, data, label


def _diff(a: bytes, b: bytes) -> list[int]:
    return [i for i in range(min(len(a), len(b))) if a[i] != b[i]]


@pytest.mark.parametrize("family", ["gre", "vxlan", "host", "geneve"])
def test_mutations_do_what_their_label_says(pool: fuzz.Pool, family: str) -> None:
    labels = Counter()
    for base, data, label in _mutations(pool, family):
        labels[label.split(":")[0]] += 1
        lay, f = base.layout, base.frame
        assert 1 <= len(data) <= fuzz.MAX_LEN
        if label.startswith("trunc:"):
            assert f.startswith(data) and len(data) < len(f)
            if label == "trunc:beat":  # within one byte of a multiple of 8 (every width's beat)
                assert any((len(data) + d) % 8 == 0 for d in (-1, 0, 1)), len(data)
            elif label != "trunc:random":
                cut = fuzz.boundaries(lay)[label[6:]]
                assert len(data) - cut in (-1, 0, 1), (label, cut, len(data))
        elif label == "bitflip":
            assert len(data) == len(f)
            flipped = sum(bin(x ^ y).count("1") for x, y in zip(data, f))
            assert flipped <= 8
        elif label.startswith("byte:"):
            lo, hi = fuzz.regions(lay, len(f))[label[5:]]
            assert len(data) == len(f) and all(lo <= i < hi for i in _diff(data, f))
        elif label == "pad":
            assert data.startswith(f[:fuzz.MAX_LEN])
            assert len(data) > len(f) or len(f) == fuzz.MAX_LEN
        elif label.startswith("csum:"):
            at = {"ip": lay.l3 + 10 if lay.l3 is not None else None,
                  "udp": lay.l4 + 6 if lay.l4 is not None else None,
                  "gre": lay.l4 + 4 if lay.l4 is not None else None,
                  "inner_ip": lay.inner_ip + 10 if lay.inner_ip is not None else None}[label[5:]]
            assert at is not None and len(data) == len(f)
            assert set(_diff(data, f)) <= {at, at + 1} and _diff(data, f)
            if label == "csum:ip":  # the header checksum is now wrong
                assert ones_sum(data[lay.l3:lay.l3 + lay.hl]) != 0xFFFF
        elif label.startswith("lie:"):
            what = label[4:]
            assert len(data) == len(f)
            d = set(_diff(data, f))
            if what == "ipv4_tlen":
                assert {lay.l3 + 2, lay.l3 + 3} & d
                assert d <= {lay.l3 + 2, lay.l3 + 3, lay.l3 + 10, lay.l3 + 11}
                if d & {lay.l3 + 10, lay.l3 + 11}:  # checksum fixed: only the length lies
                    assert ones_sum(data[lay.l3:lay.l3 + lay.hl]) == 0xFFFF
            elif what == "ipv4_ihl":
                assert data[lay.l3] & 0xF != f[lay.l3] & 0xF
                assert d <= {lay.l3, lay.l3 + 10, lay.l3 + 11}
            elif what == "ipv6_plen":
                assert lay.v6 and d and d <= {lay.l3 + 4, lay.l3 + 5}
            elif what == "udp_len":
                assert d and d <= {lay.l4 + 4, lay.l4 + 5}
            elif what == "gre_flags":
                assert d == {lay.l4} and (data[lay.l4] ^ f[lay.l4]) & 0x4F == 0
            elif what == "geneve_optlen":  # Opt Len only
                assert d == {lay.l4 + 8} and (data[lay.l4 + 8] ^ f[lay.l4 + 8]) & 0xC0 == 0
            elif what == "geneve_bits":  # version, O, C or reserved bits
                assert d and d <= {lay.l4 + 8, lay.l4 + 9}
                assert (data[lay.l4 + 8] ^ f[lay.l4 + 8]) & 0x3F == 0
            else:
                raise AssertionError(f"unknown lie {label}")
        elif label == "multi":
            assert data != f or len(data) != len(f)
        else:
            raise AssertionError(f"unknown mutation label {label}")
    assert {"trunc", "bitflip", "byte", "lie", "csum", "pad", "multi"} <= set(labels), labels


def test_truncation_reaches_every_header_boundary(pool: fuzz.Pool) -> None:
    names = Counter()
    for fam in ("gre", "vxlan", "host", "geneve"):
        for _, _, label in _mutations(pool, fam, 6000):
            if label.startswith("trunc:"):
                names[label[6:]] += 1
    assert {"ethertype", "l2", "ip_proto", "ip_fixed", "ip_hdr", "l4_4", "udp_hdr",
            "tunnel_hdr", "inner_14", "inner_ecn", "inner_ip_hdr", "ip_end", "ports",
            "beat", "random", "geneve_fixed", "geneve_option"} <= \
        set(names), names


def test_locate_reads_the_headers(pool: fuzz.Pool) -> None:
    assert fuzz.locate(b"\x01" * 10).kind == "runt"
    vx = pool.families["vxlan"][0]
    lay = vx.layout
    assert lay.k == lay.l4 + 16 and lay.ip_end is not None
    assert vx.frame[lay.l4 + 2:lay.l4 + 4] in (b"\x12\xb5", b"\x21\x18")  # 4789, 8472
    gre = pool.families["gre"][0].layout
    assert gre.kind == "gre" and gre.k >= gre.l4 + 4
    for b in pool.families["geneve"]:  # K past the options (Opt Len), an L3 payload's IP at K
        lay, f = b.layout, b.frame
        assert lay.kind == "geneve" and f[lay.l4 + 2:lay.l4 + 4] == b"\x17\xc1"  # 6081
        assert lay.k == lay.l4 + 16 + 4 * (f[lay.l4 + 8] & 0x3F)
        if f[lay.l4 + 10:lay.l4 + 12] in (b"\x08\x00", b"\x86\xdd"):
            assert lay.inner_ip == lay.k


def test_pool_covers_the_geneve_variants(pool: fuzz.Pool) -> None:
    """Geneve frames: options from none to 252 bytes, O and C bits, every protocol type kind,
    outer IPv4/IPv6, tags, zero and computed UDP checksums; the contract cases."""
    gn = pool.families["geneve"]
    opts = {4 * (b.frame[b.layout.l4 + 8] & 0x3F) for b in gn}
    assert 0 in opts and max(opts) >= 200 and len(opts) >= 30, sorted(opts)
    bits = {b.frame[b.layout.l4 + 9] & 0xC0 for b in gn}
    assert {0, 0x80, 0x40} <= bits
    protos = {b.frame[b.layout.l4 + 10:b.layout.l4 + 12] for b in gn}
    assert {b"\x65\x58", b"\x08\x00", b"\x86\xdd"} < protos
    assert {b.layout.v6 for b in gn} == {False, True} and {b.layout.l2 for b in gn} == {14, 18, 22}
    assert {b.frame[b.layout.l4 + 6:b.layout.l4 + 8] == b"\0\0" for b in gn} == {True, False}
    assert {b.case for b in pool.families["geneve-case"]} >= {"teb", "teb_options_252", "punt_oam", "critical"}


# ---------------------------------------------------------------------------- schedule, replay

def test_schedule_covers_every_block_at_every_width() -> None:
    plans = fuzz.schedule(fuzz.BLOCKS, fuzz.WIDTHS, 50_000, 2500)
    assert sum(sum(s.values()) for _, _, s in plans) == 50_000
    first = {(k, w) for k, w, _ in plans[:12]}
    assert first == {(k, w) for k in ("gre", "vtep", "geneve") for w in fuzz.WIDTHS}
    assert all(s == {"geneve": 2500} for k, _, s in plans[:12] if k == "geneve")
    assert all(set(s) == {"decap", "encap"} for k, _, s in plans if k == "vtep" and
               sum(s.values()) == 5000)
    only = fuzz.schedule(("vxlan-encap",), (64,), 7, 3)
    assert [s for _, _, s in only] == [{"encap": 3}, {"encap": 3}, {"encap": 1}]
    with pytest.raises(fuzz.FuzzError):
        fuzz.schedule((), (64,), 10, 5)


@pytest.mark.parametrize("kind", ["gre", "vtep"])
def test_replay_config_reads_back_identically(pool: fuzz.Pool, kind: str) -> None:
    for i in range(12):
        sizes = {"gre": 1} if kind == "gre" else {"decap": 1, "encap": 1}
        plan, _ = fuzz.plan_chunk(pool, 4, i, kind, 256, sizes, 5000, turn=i)
        back = wconfig.from_mapping(fuzz.config_mapping(plan.cfg, kind), "replay.yaml")
        if kind == "gre":
            assert back.register_writes() == plan.cfg.register_writes()
            assert back.gre_config() == plan.cfg.gre_config()
        else:
            assert back.vtep_register_writes() == plan.cfg.vtep_register_writes()
            assert back.vtep.decap_config() == plan.cfg.vtep.decap_config()
            assert back.vtep.encap_config() == plan.cfg.vtep.encap_config()


def test_every_four_chunks_of_a_harness_force_each_config_feature(pool: fuzz.Pool) -> None:
    gre = [fuzz.plan_chunk(pool, 8, 2 * t, "gre", 64, {"gre": 1}, 5000, turn=t)[0].cfg
           for t in range(4)]
    assert any(c.allow_enabled for c in gre)
    assert any(c.policy_pass == "drop" for c in gre)
    assert any(c.policy_punt == "drop" for c in gre)
    assert any(c.policy_malformed == "forward" for c in gre)
    vt = [fuzz.plan_chunk(pool, 8, 2 * t + 1, "vtep", 64, {"decap": 1}, 5000, turn=t)[0].cfg.vtep
          for t in range(4)]
    assert any(v.vni_enabled for v in vt) and any(v.strict for v in vt)
    assert any(v.drop_pass for v in vt) and any(v.port2 == 8472 for v in vt)
    assert any(v.miss == "drop" for v in vt) and any(not v.tunnels for v in vt)
    assert any(v.tunnels for v in vt)
    gn = [fuzz.plan_chunk(pool, 8, 3 * t + 2, "geneve", 64, {"geneve": 1}, 5000, turn=t)[0].cfg
          for t in range(4)]
    assert any(g.vni_table is not None for g in gn) and any(g.critical_punt for g in gn)
    assert any(g.drop_pass for g in gn) and any(g.drop_punt for g in gn)


def test_geneve_replay_files(pool: fuzz.Pool) -> None:
    """A Geneve chunk's regs file is the model configuration's writes (VNI table entries, PORT,
    CONTROL), and its config mapping names every field."""
    for t in range(4):
        plan, _ = fuzz.plan_chunk(pool, 4, t, "geneve", 256, {"geneve": 1}, 5000, turn=t)
        lines = fuzz.geneve_register_file_text(plan.cfg).splitlines()
        assert lines[-1] == f"0x0008 0x{plan.cfg.control:08x}" and lines[-2] == f"0x0010 0x{plan.cfg.port:08x}"
        assert all(0x1000 <= int(x.split()[0], 16) < 0x2000 for x in lines[:-2])
        assert (len(lines) > 2) == bool(plan.cfg.vni_table)
        m = fuzz.config_mapping(plan.cfg, "geneve")["geneve"]
        assert m["port"] == plan.cfg.port and (m["vni_table"] is None) == (plan.cfg.vni_table is None)
