"""Unit tests of wirespeed.config: validation messages, register writes, model config."""

from __future__ import annotations

from pathlib import Path

import pytest

from wirespeed import config
from wirespeed.config import Config, ConfigError


def write(tmp_path: Path, text: str, name: str = "config.yaml") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def test_defaults_empty_file(tmp_path: Path) -> None:
    cfg = config.load(write(tmp_path, ""))
    assert (cfg.data_width, cfg.clock_mhz, cfg.line_rate_gbps) == (256, 250.0, 10.0)
    assert not cfg.allow_enabled and cfg.allow_entries == ()
    assert (cfg.policy_pass, cfg.policy_punt, cfg.policy_malformed) == ("forward", "forward", "drop")
    assert cfg.control == 0
    assert cfg.register_writes() == [(0x0008, 0)]


def test_full_config(tmp_path: Path) -> None:
    cfg = config.load(write(tmp_path, """
data_width: 64
clock_mhz: 322.265625
line_rate_gbps: 0
allow_list:
  enabled: true
  entries:
    - {src: "10.0.0.1", dst: "10.0.0.2"}
    - {src: 192.168.1.1, dst: 192.168.1.254}
policy: {pass: drop, punt: drop, malformed: forward}
"""))
    assert cfg.data_width == 64 and cfg.clock_mhz == 322.265625 and cfg.line_rate_gbps == 0
    assert cfg.allow_entries == (("10.0.0.1", "10.0.0.2"), ("192.168.1.1", "192.168.1.254"))
    assert cfg.control == 0b1111
    assert cfg.register_writes() == [
        (0x1008, 0), (0x1000, 0x0A000001), (0x1004, 0x0A000002), (0x1008, 1),
        (0x1018, 0), (0x1010, 0xC0A80101), (0x1014, 0xC0A801FE), (0x1018, 1),
        (0x0008, 0xF),
    ]
    text = cfg.register_file_text().splitlines()
    assert text[0] == "0x1008 0x00000000" and text[-1] == "0x0008 0x0000000f"


def test_gre_config(tmp_path: Path) -> None:
    cfg = config.load(write(tmp_path, """
allow_list: {enabled: true, entries: [{src: 10.0.0.1, dst: 10.0.0.2}]}
policy: {punt: drop}
"""))
    g = cfg.gre_config()
    assert g.allow_enable is True
    assert g.allow == frozenset({(0x0A000001, 0x0A000002)})
    assert (g.drop_pass, g.drop_punt, g.forward_malformed) == (False, True, False)


@pytest.mark.parametrize("text, message", [
    ("policy: {punt: dorp}", "config.yaml: policy.punt: 'dorp' is not one of forward, drop"),
    ("policy: {malformed: keep}", "config.yaml: policy.malformed: 'keep' is not one of drop, forward"),
    ("data_widht: 256", "config.yaml: data_widht: unknown key"),
    ("policy: {drop: pass}", "config.yaml: policy.drop: unknown key"),
    ("data_width: 100", "config.yaml: data_width: 100 is not one of 64, 128, 256, 512"),
    ("data_width: true", "config.yaml: data_width: True is not one of"),
    ("clock_mhz: fast", "config.yaml: clock_mhz: 'fast' is not a number"),
    ("clock_mhz: 0", "config.yaml: clock_mhz: 0.0 must be > 0"),
    ("line_rate_gbps: -1", "config.yaml: line_rate_gbps: -1.0 must be between 0"),
    ("allow_list: {enabled: yes please}", "config.yaml: allow_list.enabled: 'yes please' is not true or false"),
    ("allow_list: {entries: [{src: 10.0.0.1}]}", "config.yaml: allow_list.entries[0].dst: missing"),
    ("allow_list: {entries: [{src: 10.0.0.1, dst: 10.0.0.256}]}",
     "config.yaml: allow_list.entries[0].dst: '10.0.0.256' is not an IPv4 address"),
    ("allow_list: {entries: [{src: 10.0.0.1, dst: 10.0.0.2, port: 1}]}",
     "config.yaml: allow_list.entries[0].port: unknown key"),
    ("allow_list: [1, 2]", "config.yaml: allow_list: must be a mapping"),
    ("- 1\n- 2", "config.yaml: the top level must be a mapping"),
    ("policy: {punt: [drop}", "config.yaml: invalid YAML at line 1"),
])
def test_errors_name_file_and_key(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ConfigError) as exc:
        config.load(write(tmp_path, text))
    msg = str(exc.value)
    assert msg.startswith(str(tmp_path / "config.yaml")), msg
    assert message.split("config.yaml", 1)[1] in msg, msg


def test_too_many_entries(tmp_path: Path) -> None:
    entries = "\n".join(f"    - {{src: 10.0.0.{i}, dst: 10.0.1.{i}}}" for i in range(65))
    with pytest.raises(ConfigError, match=r"allow_list.entries: 65 entries, at most 64"):
        config.load(write(tmp_path, f"allow_list:\n  entries:\n{entries}\n"))
    ok = "\n".join(f"    - {{src: 10.0.0.{i}, dst: 10.0.1.{i}}}" for i in range(64))
    cfg = config.load(write(tmp_path, f"allow_list:\n  entries:\n{ok}\n"))
    assert len(cfg.register_writes()) == 64 * 4 + 1
    assert cfg.register_writes()[-2] == (0x1000 + 16 * 63 + 8, 1)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="nope.yaml: cannot read"):
        config.load(tmp_path / "nope.yaml")


def test_replace_validates() -> None:
    assert Config().replace(data_width=64).data_width == 64
    with pytest.raises(ConfigError, match="data_width: 96"):
        Config().replace(data_width=96)
