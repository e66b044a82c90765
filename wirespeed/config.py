"""The YAML configuration of a run, validated strictly.

Every key is optional; see docs/config.md for the reference. A wrong key or value raises
:class:`ConfigError` whose message names the file and the key, e.g.
``config.yaml: policy.punt: 'dorp' is not one of forward, drop``.

A :class:`Config` converts itself to the register writes the Verilator harness applies over
AXI4-Lite before traffic (:meth:`Config.register_writes`) and to the golden model's
``GreConfig`` (:meth:`Config.gre_config`), so the RTL and the model always see the same setup.
"""

from __future__ import annotations

import dataclasses
import ipaddress
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

import yaml

if TYPE_CHECKING:  # the model is imported lazily: the CLI works without it for --help
    from wirespeed.model.gre import GreConfig

WIDTHS = (64, 128, 256, 512)
MAX_ALLOW_ENTRIES = 64

# Register map (docs/gre_decap.md).
REG_CONTROL = 0x0008
REG_ALLOW_BASE = 0x1000
REG_ALLOW_STRIDE = 16
CONTROL_ALLOW_ENABLE = 1 << 0
CONTROL_DROP_PASS = 1 << 1
CONTROL_DROP_PUNT = 1 << 2
CONTROL_FORWARD_MALFORMED = 1 << 3

_TOP_KEYS = ("data_width", "clock_mhz", "line_rate_gbps", "allow_list", "policy")
_ALLOW_KEYS = ("enabled", "entries")
_ENTRY_KEYS = ("src", "dst")
_POLICY_CHOICES = {"pass": ("forward", "drop"), "punt": ("forward", "drop"),
                   "malformed": ("drop", "forward")}


class ConfigError(ValueError):
    """An invalid configuration; the message names the file and the offending key."""


@dataclass(frozen=True)
class Config:
    """A validated run configuration (defaults = the seed's setup on a 256-bit bus)."""

    data_width: int = 256
    clock_mhz: float = 250.0
    line_rate_gbps: float = 10.0
    allow_enabled: bool = False
    allow_entries: tuple[tuple[str, str], ...] = ()
    policy_pass: str = "forward"
    policy_punt: str = "forward"
    policy_malformed: str = "drop"
    source: str = "<defaults>"

    def replace(self, **changes: Any) -> "Config":
        """A copy with some fields changed (CLI overrides), validated again."""
        cfg = dataclasses.replace(self, **changes)
        _check_numbers(cfg, cfg.source)
        return cfg

    @property
    def control(self) -> int:
        """The CONTROL register value."""
        return (
            (CONTROL_ALLOW_ENABLE if self.allow_enabled else 0)
            | (CONTROL_DROP_PASS if self.policy_pass == "drop" else 0)
            | (CONTROL_DROP_PUNT if self.policy_punt == "drop" else 0)
            | (CONTROL_FORWARD_MALFORMED if self.policy_malformed == "forward" else 0)
        )

    def register_writes(self) -> list[tuple[int, int]]:
        """(address, value) AXI4-Lite writes, in order: allow entries (VALID last), CONTROL."""
        writes: list[tuple[int, int]] = []
        for i, (src, dst) in enumerate(self.allow_entries):
            base = REG_ALLOW_BASE + REG_ALLOW_STRIDE * i
            writes += [
                (base + 8, 0),
                (base + 0, int(ipaddress.IPv4Address(src))),
                (base + 4, int(ipaddress.IPv4Address(dst))),
                (base + 8, 1),
            ]
        writes.append((REG_CONTROL, self.control))
        return writes

    def register_file_text(self) -> str:
        """The harness's ``--regs`` file: one ``0xADDR 0xVALUE`` line per write."""
        return "".join(f"0x{a:04x} 0x{v:08x}\n" for a, v in self.register_writes())

    def gre_config(self) -> "GreConfig":
        """The golden model's configuration for the same setup."""
        from wirespeed.model.gre import GreConfig

        return GreConfig(
            allow_enable=self.allow_enabled,
            allow=frozenset(
                (int(ipaddress.IPv4Address(s)), int(ipaddress.IPv4Address(d)))
                for s, d in self.allow_entries
            ),
            drop_pass=self.policy_pass == "drop",
            drop_punt=self.policy_punt == "drop",
            forward_malformed=self.policy_malformed == "forward",
        )


def load(path: str | Path) -> Config:
    """Read and validate a YAML config file."""
    name = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{name}: cannot read: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{name}: not a UTF-8 text file ({exc.reason})") from exc
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        where = ""
        mark = getattr(exc, "problem_mark", None)
        if mark is not None:
            where = f" at line {mark.line + 1}, column {mark.column + 1}"
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError(f"{name}: invalid YAML{where}: {problem}") from exc
    return from_mapping(data, name)


def from_mapping(data: Any, source: str = "<config>") -> Config:
    """Validate an already-parsed mapping (``None`` = all defaults)."""
    if data is None:
        data = {}
    if not isinstance(data, Mapping):
        raise ConfigError(f"{source}: the top level must be a mapping of keys, not {_kind(data)}")
    _known(data, _TOP_KEYS, "", source)
    d = Config()
    width = data.get("data_width", d.data_width)
    if isinstance(width, bool) or not isinstance(width, int) or width not in WIDTHS:
        raise ConfigError(
            f"{source}: data_width: {width!r} is not one of {', '.join(map(str, WIDTHS))}"
        )
    clock = _number(data.get("clock_mhz", d.clock_mhz), "clock_mhz", source)
    rate = _number(data.get("line_rate_gbps", d.line_rate_gbps), "line_rate_gbps", source)

    allow = data.get("allow_list", {}) or {}
    if not isinstance(allow, Mapping):
        raise ConfigError(f"{source}: allow_list: must be a mapping with enabled and entries, "
                          f"not {_kind(allow)}")
    _known(allow, _ALLOW_KEYS, "allow_list.", source)
    enabled = allow.get("enabled", False)
    if not isinstance(enabled, bool):
        raise ConfigError(f"{source}: allow_list.enabled: {enabled!r} is not true or false")
    raw_entries = allow.get("entries", []) or []
    if not isinstance(raw_entries, list):
        raise ConfigError(f"{source}: allow_list.entries: must be a list, not {_kind(raw_entries)}")
    if len(raw_entries) > MAX_ALLOW_ENTRIES:
        raise ConfigError(f"{source}: allow_list.entries: {len(raw_entries)} entries, "
                          f"at most {MAX_ALLOW_ENTRIES} fit the table")
    entries: list[tuple[str, str]] = []
    for i, e in enumerate(raw_entries):
        where = f"allow_list.entries[{i}]"
        if not isinstance(e, Mapping):
            raise ConfigError(f"{source}: {where}: must be a mapping with src and dst, "
                              f"not {_kind(e)}")
        _known(e, _ENTRY_KEYS, where + ".", source)
        pair = []
        for k in _ENTRY_KEYS:
            if k not in e:
                raise ConfigError(f"{source}: {where}.{k}: missing (an IPv4 address)")
            pair.append(_ipv4(e[k], f"{where}.{k}", source))
        entries.append((pair[0], pair[1]))

    policy = data.get("policy", {}) or {}
    if not isinstance(policy, Mapping):
        raise ConfigError(f"{source}: policy: must be a mapping, not {_kind(policy)}")
    _known(policy, tuple(_POLICY_CHOICES), "policy.", source)
    chosen = {}
    for k, choices in _POLICY_CHOICES.items():
        v = policy.get(k, choices[0])
        if v not in choices:
            raise ConfigError(f"{source}: policy.{k}: {v!r} is not one of {', '.join(choices)}")
        chosen[k] = v

    cfg = Config(
        data_width=width,
        clock_mhz=float(clock),
        line_rate_gbps=float(rate),
        allow_enabled=enabled,
        allow_entries=tuple(entries),
        policy_pass=chosen["pass"],
        policy_punt=chosen["punt"],
        policy_malformed=chosen["malformed"],
        source=source,
    )
    _check_numbers(cfg, source)
    return cfg


def _check_numbers(cfg: Config, source: str) -> None:
    if cfg.data_width not in WIDTHS:
        raise ConfigError(f"{source}: data_width: {cfg.data_width!r} is not one of "
                          f"{', '.join(map(str, WIDTHS))}")
    if not 0 < cfg.clock_mhz <= 5000:
        raise ConfigError(f"{source}: clock_mhz: {cfg.clock_mhz!r} must be > 0 and <= 5000")
    if not 0 <= cfg.line_rate_gbps <= 1600:
        raise ConfigError(f"{source}: line_rate_gbps: {cfg.line_rate_gbps!r} must be between 0 "
                          f"(back-to-back) and 1600")


def _known(data: Mapping[Any, Any], keys: tuple[str, ...], prefix: str, source: str) -> None:
    for k in data:
        if k not in keys:
            raise ConfigError(f"{source}: {prefix}{k}: unknown key (known: {', '.join(keys)})")


def _number(v: Any, key: str, source: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ConfigError(f"{source}: {key}: {v!r} is not a number")
    return float(v)


def _ipv4(v: Any, key: str, source: str) -> str:
    if not isinstance(v, str):
        raise ConfigError(f"{source}: {key}: {v!r} is not an IPv4 address in quotes")
    try:
        return str(ipaddress.IPv4Address(v))
    except ValueError:
        raise ConfigError(f"{source}: {key}: {v!r} is not an IPv4 address") from None


def _kind(v: Any) -> str:
    return {list: "a list", dict: "a mapping", str: "a string"}.get(type(v), type(v).__name__)
