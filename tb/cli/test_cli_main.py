"""The CLI's commands that need no harness: config, --version, --help, argument checks."""

from __future__ import annotations

from pathlib import Path

import pytest

from wirespeed import __version__
from wirespeed.cli import main


def test_config_command_prints_register_writes(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    cfg = tmp_path / "c.yaml"
    cfg.write_text("allow_list: {enabled: true, entries: [{src: 10.0.0.1, dst: 10.0.0.2}]}\n"
                   "policy: {punt: drop}\n")
    assert main(["config", str(cfg)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"# {cfg}: valid") and "CONTROL=0x5" in out[0]
    # each write named in a comment: still the harness's --regs format
    assert [line.split("#")[0].strip() for line in out[1:]] == [
        "0x1008 0x00000000", "0x1000 0x0a000001", "0x1004 0x0a000002", "0x1008 0x00000001",
        "0x0008 0x00000005"]


def test_config_command_error(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    cfg = tmp_path / "c.yaml"
    cfg.write_text("policy: {pass: maybe}\n")
    assert main(["config", str(cfg)]) == 2
    assert capsys.readouterr().err == (f"wirespeed: error: {cfg}: policy.pass: 'maybe' is not one "
                                       "of forward, drop\n")


def test_version_and_help(capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0 and __version__ in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    assert "--line-rate-gbps" in capsys.readouterr().out


@pytest.mark.parametrize("args, needle", [
    (["run", "--stall-prob", "1"], "argument --stall-prob: 1 is not in [0, 1)"),
    (["run", "--line-rate-gbps", "-5"], "argument --line-rate-gbps: -5 is not in [0, 1600]"),
    (["run", "--clock-mhz", "0"], "argument --clock-mhz: 0 is not in (0, 5000]"),
    (["run", "--clock-mhz", "fast"], "argument --clock-mhz: 'fast' is not a number"),
    (["bench", "--widths", "96"], "invalid choice: 96"),
])
def test_bad_arguments(args: list[str], needle: str, capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit) as exc:
        main(args)
    assert exc.value.code == 2 and needle in capsys.readouterr().err


def test_rtl_gen_needs_the_capture_seed_scenario(capsys: pytest.CaptureFixture) -> None:
    # --rtl-gen only means something to --scenario capture-seed: elsewhere it is an error that
    # says what to do, not an option silently ignored.
    assert main(["run", "--rtl-gen", "-q"]) == 2
    err = capsys.readouterr().err
    assert "--rtl-gen" in err and "--scenario capture-seed" in err
