"""The inner-header option end to end: `wirespeed capture --check` (capture_top: rss_parse's
inner tuple, rss_hash, the rings) with `rss: inner: true` in the config, every frame's queue
and each queue's hash types as the model says (docs/rss.md, "Inner headers")."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tb.capture.capture_util import (capture, check_balance, check_model, config,
                                     hash_types_by_queue, write)
from tb.rss import tunnel_frames as tf
from wirespeed.model.rss import parse_frame


def _one_tunnel(kind: str, n: int) -> list[bytes]:
    """``n`` frames of one tunnel (outer addresses, and VXLAN's UDP source port, constant),
    each a different inner TCP/UDP flow."""
    rng = random.Random(31)
    out = []
    for i in range(n):
        inn = tf.inner_packet(rng, i % 3 == 0, "tcp" if i % 2 else "udp", frag=False)
        r = random.Random(4)
        if kind == "vxlan":
            out.append(tf.vxlan_frame(r, inn, tf.is_v6(inn), v6=False, tags=0, opts=False))
        else:
            out.append(tf.gre_frame(r, inn, teb=i % 4 == 1, inner_v6=tf.is_v6(inn), c=False,
                                    k=True, s=False, v6=False, tags=0, opts=False))
    return out


@pytest.mark.parametrize("kind", ["gre", "vxlan"])
def test_one_tunnel_spreads_only_with_the_option(tmp_path: Path, kind: str) -> None:
    frames = _one_tunnel(kind, 96)
    assert len({parse_frame(f) for f in frames}) == 1          # the outer tuple is constant
    inp = write(tmp_path / "in.pcap", frames)
    used = {}
    for inner in (False, True):
        text = f"queues: 8\nrss:\n  inner: {'true' if inner else 'false'}\n"
        out = tmp_path / f"out-{inner}"
        rep = capture(inp, out, "--check", config=text)
        check_balance(rep)
        cfg = config(text)
        check_model(inp, out, rep, cfg)
        want = hash_types_by_queue(frames, cfg)
        for qs, q in rep["queue"].items():
            assert q["hash_types"] == want.get(int(qs), {}), qs
        used[inner] = sorted(int(qs) for qs, q in rep["queue"].items() if q["frames_in"])
    assert len(used[False]) == 1, used
    assert len(used[True]) >= 6, used


def test_mixed_tunnels_symmetric(tmp_path: Path) -> None:
    """Good, malformed and plain frames, the deepest header, and both directions of inner
    flows; the option on in symmetric mode: every frame's queue as the model says, each
    flow's two directions in one queue."""
    rng = random.Random(41)
    frames = tf.mixed(rng, 500)
    pairs = []
    for kind in ("gre", "teb", "vxlan"):
        for v6 in (False, True):
            for l4 in ("tcp", "udp", "icmp"):
                pairs.append(tf.flow_pair(rng, kind, v6, l4))
    for a, b in pairs:
        frames.insert(rng.randrange(len(frames)), a)
        frames.insert(rng.randrange(len(frames)), b)
    inp = write(tmp_path / "in.pcap", frames)
    text = "queues: 16\nrss:\n  inner: true\n  symmetric: true\n"
    rep = capture(inp, tmp_path / "out", "--check", config=text)
    check_balance(rep)
    cfg = config(text)
    check_model(inp, tmp_path / "out", rep, cfg)
    want = hash_types_by_queue(frames, cfg)
    for qs, q in rep["queue"].items():
        assert q["hash_types"] == want.get(int(qs), {}), qs
    m = cfg.model()
    # one outer tuple per tunnel kind (GRE and TEB share theirs: the same outer IPv4 pair)
    assert len({parse_frame(f) for p in pairs[:12] for f in p}) == 1
    assert len({parse_frame(f) for p in pairs[12:] for f in p}) == 1
    for a, b in pairs:
        assert m.queue_of(a) == m.queue_of(b)
    assert len({m.queue_of(a) for a, _ in pairs}) >= 6
