"""`wirespeed regs`, `wirespeed config` by register name, `wirespeed lint` on bad files."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from wirespeed import config, paths
from wirespeed.cli import main
from wirespeed.regmap import GRE, VTEP_MAP, VXLAN_DECAP


def _row(out: str, address: str, name: str) -> list[str]:
    """The columns of the row of `name` at `address`."""
    for line in out.splitlines():
        cols = re.split(r"\s{2,}", line.strip())
        if cols[:2] == [address, name]:
            return cols
    raise AssertionError(f"no row {address} {name} in:\n{out}")


def test_regs_gre(capsys: pytest.CaptureFixture) -> None:
    assert main(["regs", "--block", "gre"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("gre_decap: base 0x0000")
    assert _row(out, "0x0000", "ID")[2:4] == ["RO", "0x57534731"]
    assert _row(out, "0x0008", "CONTROL")[2:4] == ["RW", "0"]
    assert "[3] POLICY_FORWARD_MALFORMED: forward frames" in out
    assert _row(out, "0x1008 + 16*i", "ALLOW_VALID[i], i < 64")[2] == "RW"
    # every outcome with its counter address
    for o in GRE.outcomes:
        assert re.search(rf"^ +{o.code}  {o.name} +0x{0x100 + 16 * o.code:04X}  {re.escape(o.action)}:",
                         out, re.M), o.name
    assert "vtep_top" not in out


def test_regs_vtep_windows(capsys: pytest.CaptureFixture) -> None:
    assert main(["regs", "--block", "vtep"]) == 0
    out = capsys.readouterr().out
    for label, base in (("decap", 0x0000), ("encap", 0x1000), ("vni_table", 0x2000),
                        ("tunnel_table", 0x3000)):
        assert f"vtep_top window {label} " in out and f"base 0x{base:04X}" in out
    assert _row(out, "0x0010", "PORT")[2:4] == ["RW", "4789"]
    assert _row(out, "0x0014", "PORT2")[2:4] == ["RW", "8472"]
    assert _row(out, "0x1008", "CONTROL")[4] == "bit 0 DROP_MISS"
    assert _row(out, "0x3014", "TBL_STATUS")[2] == "RO"
    assert re.search(r"^ +10  DROP_UDP_CHECKSUM +0x01A0  drop \(late\):", out, re.M)


def test_regs_expand_names_every_counter(capsys: pytest.CaptureFixture) -> None:
    assert main(["regs", "--block", "vxlan-decap", "--expand"]) == 0
    out = capsys.readouterr().out
    for o in VXLAN_DECAP.outcomes:
        a = 0x100 + 16 * o.code
        assert _row(out, f"0x{a:04X}", f"CNT_PKTS_LO[{o.name}]")[2] == "RO"
        assert _row(out, f"0x{a + 12:04X}", f"CNT_BYTES_HI[{o.name}]")[2] == "RO"


def test_regs_default_is_both_maps_and_bad_block_is_refused(capsys: pytest.CaptureFixture) -> None:
    assert main(["regs"]) == 0
    out = capsys.readouterr().out
    assert "gre_decap: base 0x0000" in out and "vtep_top window tunnel_table" in out
    with pytest.raises(SystemExit) as exc:
        main(["regs", "--block", "nosuch"])
    assert exc.value.code == 2 and "invalid choice: 'nosuch'" in capsys.readouterr().err


BOTH = """\
policy: {pass: drop}
allow_list: {enabled: true, entries: [{src: 192.0.2.1, dst: 192.0.2.2}]}
vtep:
  strict: true
  miss: drop
"""


def _writes(out: str) -> list[tuple[int, int, str]]:
    rows = []
    for line in out.splitlines()[1:]:
        regs, _, comment = line.partition("#")
        a, v = regs.split()
        rows.append((int(a, 16), int(v, 16), comment.strip()))
    return rows


def test_config_names_gre_writes_and_warns_about_vtep(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture) -> None:
    p = tmp_path / "both.yaml"
    p.write_text(BOTH)
    assert main(["config", str(p)]) == 0
    got = capsys.readouterr()
    rows = _writes(got.out)
    assert [(a, v) for a, v, _ in rows] == config.load(p).register_writes()
    assert [c for *_, c in rows] == [
        "ALLOW_VALID[0]: VALID=0", "ALLOW_SRC[0]: 192.0.2.1", "ALLOW_DST[0]: 192.0.2.2",
        "ALLOW_VALID[0]: VALID=1",
        "CONTROL: ALLOW_ENABLE=1 POLICY_DROP_PASS=1 POLICY_DROP_PUNT=0 POLICY_FORWARD_MALFORMED=0"]
    assert got.err == (f"wirespeed: warning: {p}: vtep: not used by gre_decap (--block gre): it "
                       f"configures vtep_top; see those writes with `wirespeed config --block "
                       f"vtep {p}`\n")


def test_config_names_vtep_writes_and_warns_about_gre(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture) -> None:
    p = tmp_path / "both.yaml"
    p.write_text(BOTH)
    assert main(["config", "--block", "vtep", str(p)]) == 0
    got = capsys.readouterr()
    rows = _writes(got.out)
    assert [(a, v) for a, v, _ in rows] == config.load(p).vtep_register_writes()
    by_addr = {a: c for a, _, c in rows}
    assert by_addr[VTEP_MAP.address("decap", "PORT")] == "decap.PORT: PORT=4789"
    assert by_addr[0x0008] == "decap.CONTROL: VNI_ENABLE=0 STRICT=1 PORT2_ENABLE=0 DROP_PASS=0"
    assert by_addr[0x1008] == "encap.CONTROL: DROP_MISS=1"
    assert "allow_list, policy: not used by vtep_top (--block vtep): they configure gre_decap" \
        in got.err


def test_config_without_other_sections_warns_nothing(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture) -> None:
    p = tmp_path / "gre.yaml"
    p.write_text("data_width: 64\npolicy: {punt: drop}\n")
    assert main(["config", str(p)]) == 0
    assert capsys.readouterr().err == ""
    p.write_text("data_width: 64\nvtep: {port: 4790}\n")
    assert main(["config", "--block", "vtep", str(p)]) == 0
    got = capsys.readouterr()
    assert got.err == "" and "0x0010 0x000012b6  # decap.PORT: PORT=4790" in got.out


def test_lint_missing_file_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["lint", "nosuch.sv"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("wirespeed: error: nosuch.sv: no such file (give .sv files")
    assert "Traceback" not in err and "KeyError" not in err
    (tmp_path / "notes.txt").write_text("x\n")
    assert main(["lint", str(tmp_path / "notes.txt")]) == 2
    assert "notes.txt: not a SystemVerilog file" in capsys.readouterr().err
    assert main(["lint", str(tmp_path)]) == 2
    assert "a directory: give .sv files" in capsys.readouterr().err


def test_lint_file_outside_rtl_is_linted_not_a_keyerror(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture) -> None:
    f = tmp_path / "uses_pkg.sv"
    f.write_text("module uses_pkg import gre_pkg::*; (output logic [3:0] o);\n"
                 "    assign o = OUT_DROP_POLICY;\nendmodule\n")
    assert main(["lint", str(f)]) == 0
    assert f"lint ok    {f}" in capsys.readouterr().out
    assert paths.RTL.is_dir()
