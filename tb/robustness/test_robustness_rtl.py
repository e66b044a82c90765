"""The robustness table (wirespeed/robustness.py), pcap rows, through the RTL at 64 and 256 bits
(every width with `make test-full`: the 128- and 512-bit harnesses are four of the slowest
builds of a clean `make test`, and the cocotb benches sweep every width). One harness run per block/configuration/width (tb/robustness/rtl_rows.py), cached for
the session; then, row by row: every frame of the row gets the model's outcome, emit decision
and length in the RTL's status stream, and its output bytes are the model's; and run by run:
every counter (packets and bytes) and TX counter equals the model's tally, and the run balances."""

from __future__ import annotations

import pytest

from rtl_rows import RUNS, compare, run, side
from tb.common.sweep import full_sweep
from wirespeed import robustness as RB

RUN_OF = {(b, c): name for name, parts in RUNS.items() for b, c, _ in parts}


@pytest.fixture(scope="session")
def rtl_result(tmp_path_factory):
    """result(run_name, width): the run's (sides, diffs), simulated once per session (per worker)."""
    cache: dict = {}

    def result(run_name: str, width: int):
        key = (run_name, width)
        if key not in cache:
            cache[key] = run(run_name, width, tmp_path_factory.mktemp(f"{run_name}_w{width}"))
        return cache[key]

    return result


PCAP_ROWS = RB.rows(bus="pcap")
WIDTHS = RB.WIDTHS if full_sweep() else (64, 256)


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("row", PCAP_ROWS, ids=[r.id for r in PCAP_ROWS])
def test_row_rtl(row: RB.Row, width: int, rtl_result) -> None:
    sides, diffs = rtl_result(RUN_OF[(row.block, row.config)], width)
    n = sum(1 for s in sides for it in s.items if it.row.id == row.id)
    assert n == len(row.frames())
    assert not any(" exit " in m for m in diffs.run), diffs.run[0]
    errs = diffs.rows.get(row.id, [])
    assert not errs, f"{row.id} at {width} bits ({n} frames):\n  " + "\n  ".join(errs[:20])


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("run_name", list(RUNS))
def test_run_counters_rtl(run_name: str, width: int, rtl_result) -> None:
    """Counters, TX, aborted frames, frame counts and balance of the whole run."""
    sides, diffs = rtl_result(run_name, width)
    assert sum(len(s.items) for s in sides) > 0
    assert not diffs.run, f"{run_name} at {width} bits:\n  " + "\n  ".join(diffs.run[:30])


def test_every_pcap_row_runs() -> None:
    assert {(r.block, r.config) for r in PCAP_ROWS} <= set(RUN_OF)


def test_compare_catches_differences() -> None:
    """The comparison itself: a run that matches the model has no difference; a wrong outcome, a
    wrong emit, a changed output byte or a counter off is reported (against its row)."""
    s = side("gre_decap", "default", 64)
    stats = [(i, int(it.result.outcome), int(it.result.emit), len(it.frame)) for i, it in enumerate(s.items)]
    outs = [it.result.output for it in s.items if it.result.output is not None]
    names = type(s.items[0].result.outcome)
    rep = {"aborted": sum(it.result.aborted for it in s.items), "outcomes": {}, "tx_packets": len(outs),
           "tx_bytes": sum(map(len, outs))}
    for n in names.__members__:
        mine = [it for it in s.items if it.result.outcome.name == n]
        rep["outcomes"][n] = {"packets": len(mine), "bytes": sum(len(it.frame) for it in mine)}
    assert compare(s, stats, outs, rep).all() == []

    k = next(i for i, it in enumerate(s.items) if it.row.id == "gre.flags.R")
    bad = list(stats)
    bad[k] = (k, int(names.DECAP_L3), 1, stats[k][3])
    d = compare(s, bad, outs, rep)
    assert list(d.rows) == ["gre.flags.R"] and "outcome DECAP_L3" in d.rows["gre.flags.R"][0]

    outs2 = list(outs)
    outs2[3] = outs2[3][:-1] + bytes([outs2[3][-1] ^ 1])
    assert any("output frame 3" in e for e in compare(s, stats, outs2, rep).all())

    rep2 = {**rep, "outcomes": {**rep["outcomes"], "DROP_FRAGMENT": {"packets": 0, "bytes": 0}}}
    d = compare(s, stats, outs, rep2)
    assert any("counter DROP_FRAGMENT" in e and "gre.frag.mf" in e for e in d.run), d.run


def test_compare_vnis_catches_differences(tmp_path) -> None:
    """geneve_decap's m_axis_tvni check: the model's VNIs of the decapsulated output frames pass;
    a wrong VNI, a missing one and one on a PASS frame are reported against their row."""
    from rtl_rows import Diffs, compare_vnis

    s = side("geneve_decap", "vni", 64)
    want, k = [], 0
    for it in s.items:
        if it.result.output is None:
            continue
        if it.result.tvni_valid:
            want.append((k, it.result.vni))
        k += 1
    assert want and any(v == RB.GN_VNI_PUSH for _, v in want)

    def check(rows) -> Diffs:
        p = tmp_path / "vni.csv"
        p.write_text("index,vni\n" + "".join(f"{i},{v}\n" for i, v in rows))
        return compare_vnis(s, p, Diffs())

    assert check(want).all() == []
    assert check(want[:3] + [(want[3][0], want[3][1] ^ 1)] + want[4:]).rows
    assert check(want[:-1]).rows
    assert check([(0, 7)] + want if want[0][0] != 0 else want[1:]).rows
