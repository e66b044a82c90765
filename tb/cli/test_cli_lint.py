"""Unit tests of the lint dependency scan (wirespeed.lint)."""

from __future__ import annotations

from pathlib import Path

from wirespeed import lint


def test_closure_orders_packages_first(tmp_path: Path) -> None:
    (tmp_path / "a_pkg.sv").write_text("package a_pkg;\n  localparam int X = 1;\nendpackage\n")
    (tmp_path / "leaf.sv").write_text(
        "module leaf import a_pkg::*; #(parameter int W = 8) (input logic [W-1:0] d);\n"
        "endmodule\n")
    (tmp_path / "mid.sv").write_text(
        "// leaf u_fake (); is only a comment\nmodule mid (input logic clk);\n"
        "  leaf #(.W(4)) u_leaf (.d('0));\nendmodule\n")
    (tmp_path / "top.sv").write_text(
        "module top;\n  logic c;\n  mid u_mid (.clk(c));\n  /* leaf x(); */\nendmodule\n")
    (tmp_path / "other.sv").write_text("module other; endmodule\n")
    files = sorted(tmp_path.glob("*.sv"))
    units = lint.scan(files)
    names = lambda fs: [f.name for f in fs]  # noqa: E731
    assert units[tmp_path / "top.sv"].name == "top"
    assert units[tmp_path / "a_pkg.sv"].kind == "package"
    assert names(lint.closure(units, tmp_path / "top.sv")) == ["a_pkg.sv", "leaf.sv", "mid.sv",
                                                                "top.sv"]
    assert names(lint.closure(units, tmp_path / "mid.sv")) == ["a_pkg.sv", "leaf.sv", "mid.sv"]
    assert names(lint.closure(units, tmp_path / "other.sv")) == ["other.sv"]
