"""The YAML configuration of a run, validated strictly.

Every key is optional; see docs/config.md for the reference. A wrong key or value raises
:class:`ConfigError` whose message names the file and the key, e.g.
``config.yaml: policy.punt: 'dorp' is not one of forward, drop``.

A :class:`Config` converts itself to the register writes the Verilator harness applies over
AXI4-Lite before traffic (:meth:`Config.register_writes`) and to the golden model's
``GreConfig`` (:meth:`Config.gre_config`), so the RTL and the model always see the same setup.

The ``vtep:`` section (:class:`VtepConfig`, the VXLAN VTEP of docs/vxlan.md) does the same for
``vtep_top``: :meth:`VtepConfig.register_writes` (decap and encap CONTROL, the UDP ports, the
VNI table and the tunnel table placed by :class:`wirespeed.table.HashTable`) and the golden
model's ``DecapConfig`` / ``EncapConfig`` (:meth:`VtepConfig.decap_config`,
:meth:`VtepConfig.encap_config`).
"""

from __future__ import annotations

import dataclasses
import ipaddress
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

import yaml

from wirespeed.regmap import GRE, VTEP_MAP, VXLAN_DECAP, VXLAN_ENCAP
from wirespeed.regmap import VXLAN_PORT as REGMAP_VXLAN_PORT

if TYPE_CHECKING:  # the model is imported lazily: the CLI works without it for --help
    from wirespeed.model.gre import GreConfig
    from wirespeed.model.vxlan import DecapConfig, EncapConfig

WIDTHS = (64, 128, 256, 512)
MAX_ALLOW_ENTRIES = 64

# Register map (docs/gre_decap.md), from the one source wirespeed/regmap.py.
REG_CONTROL = GRE.reg("CONTROL")
REG_ALLOW_BASE = GRE.reg("ALLOW_SRC")
REG_ALLOW_STRIDE = GRE.register("ALLOW_SRC").stride
_ALLOW_DST = GRE.reg("ALLOW_DST") - REG_ALLOW_BASE
_ALLOW_VALID = GRE.reg("ALLOW_VALID") - REG_ALLOW_BASE
_GRE_CONTROL = GRE.register("CONTROL")
CONTROL_ALLOW_ENABLE = _GRE_CONTROL.field("ALLOW_ENABLE").mask
CONTROL_DROP_PASS = _GRE_CONTROL.field("POLICY_DROP_PASS").mask
CONTROL_DROP_PUNT = _GRE_CONTROL.field("POLICY_DROP_PUNT").mask
CONTROL_FORWARD_MALFORMED = _GRE_CONTROL.field("POLICY_FORWARD_MALFORMED").mask

_TOP_KEYS = ("data_width", "clock_mhz", "line_rate_gbps", "allow_list", "policy")
# The sections that configure one block only (the others apply to every block).
BLOCK_SECTIONS = {"gre": ("allow_list", "policy"), "vtep": ("vtep",)}
# The VXLAN VTEP's section; listed apart in messages ("... policy) or vtep ...").
_VTEP_KEY = "vtep"
# `pipeline: [gre, vxlan]`: blocks chained on one `wirespeed run --in` (docs/config.md): gre =
# gre_decap (allow_list, policy), vxlan = the VTEP's decapsulator (the vtep: section).
_PIPELINE_KEY = "pipeline"
PIPELINE_STAGES = ("gre", "vxlan")
MAX_PIPELINE = 4
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
    vtep: "VtepConfig" = dataclasses.field(default_factory=lambda: VtepConfig())
    keys: tuple[str, ...] = ()   # the top-level keys the file gave (what it configures)
    pipeline: tuple[str, ...] = ()  # blocks chained by `run --in` (empty: the one --block)

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
                (base + _ALLOW_VALID, 0),
                (base, int(ipaddress.IPv4Address(src))),
                (base + _ALLOW_DST, int(ipaddress.IPv4Address(dst))),
                (base + _ALLOW_VALID, 1),
            ]
        writes.append((REG_CONTROL, self.control))
        return writes

    def register_file_text(self) -> str:
        """The harness's ``--regs`` file: one ``0xADDR 0xVALUE`` line per write."""
        return "".join(f"0x{a:04x} 0x{v:08x}\n" for a, v in self.register_writes())

    def ignored_sections(self, block: str) -> tuple[str, ...]:
        """The sections of the file that a run of ``block`` (gre or vtep) does not use."""
        return tuple(k for b, keys in BLOCK_SECTIONS.items() if b != block
                     for k in keys if k in self.keys)

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


    # -- the VXLAN VTEP (vtep_top) ------------------------------------------------------------

    def vtep_register_writes(self) -> list[tuple[int, int]]:
        """``vtep_top``'s AXI4-Lite writes for the ``vtep:`` section (see :class:`VtepConfig`)."""
        return self.vtep.register_writes()

    def vtep_register_file_text(self) -> str:
        """The ``ws_vtep --regs`` file of the ``vtep:`` section."""
        return self.vtep.register_file_text()


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
    for k in data:
        if k not in _TOP_KEYS and k not in (_VTEP_KEY, _PIPELINE_KEY):
            raise ConfigError(f"{source}: {k}: unknown key (known: {', '.join(_TOP_KEYS)}) "
                              f"or {_VTEP_KEY} (the VXLAN VTEP's section)")
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
        vtep=vtep_from_mapping(data.get(_VTEP_KEY), source),
        keys=tuple(str(k) for k in data),
        pipeline=_pipeline(data.get(_PIPELINE_KEY), source),
    )
    _check_numbers(cfg, source)
    return cfg


def _pipeline(v: Any, source: str) -> tuple[str, ...]:
    """``pipeline:``: a list of 2..MAX_PIPELINE of PIPELINE_STAGES, e.g. [gre, vxlan]."""
    if v is None:
        return ()
    if isinstance(v, str) or not isinstance(v, list):
        raise ConfigError(f"{source}: {_PIPELINE_KEY}: must be a list of blocks in order, e.g. "
                          f"[gre, vxlan], not {_kind(v)}")
    if not 2 <= len(v) <= MAX_PIPELINE:
        raise ConfigError(f"{source}: {_PIPELINE_KEY}: {len(v)} block{'' if len(v) == 1 else 's'}; a pipeline chains 2 to "
                          f"{MAX_PIPELINE} (one block: leave pipeline out)")
    for i, s in enumerate(v):
        if s not in PIPELINE_STAGES:
            raise ConfigError(f"{source}: {_PIPELINE_KEY}[{i}]: {s!r} is not one of "
                              f"{', '.join(PIPELINE_STAGES)} (gre: gre_decap; vxlan: the VTEP's "
                              "decapsulator)")
    return tuple(v)


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


# ================================================================================ VXLAN VTEP

# vtep_top register map (docs/vxlan.md, "vtep_top register map"), from wirespeed/regmap.py.
VTEP_DECAP_CONTROL = VTEP_MAP.address("decap", "CONTROL")
VTEP_DECAP_PORT = VTEP_MAP.address("decap", "PORT")
VTEP_DECAP_PORT2 = VTEP_MAP.address("decap", "PORT2")
VTEP_ENCAP_CONTROL = VTEP_MAP.address("encap", "CONTROL")
VTEP_VNI_TABLE = VTEP_MAP.window("vni_table").base
VTEP_TUNNEL_TABLE = VTEP_MAP.window("tunnel_table").base
_DECAP_CONTROL = VXLAN_DECAP.register("CONTROL")
DECAP_VNI_ENABLE = _DECAP_CONTROL.field("VNI_ENABLE").mask
DECAP_STRICT = _DECAP_CONTROL.field("STRICT").mask
DECAP_PORT2_ENABLE = _DECAP_CONTROL.field("PORT2_ENABLE").mask
DECAP_DROP_PASS = _DECAP_CONTROL.field("DROP_PASS").mask
ENCAP_DROP_MISS = VXLAN_ENCAP.register("CONTROL").field("DROP_MISS").mask

VXLAN_PORT = REGMAP_VXLAN_PORT
VNI_SLOTS = 8192            # vtep_top's VNI_SLOTS (not a build option of the CLI)
TUNNEL_SLOTS = 32768        # vtep_top's TUNNEL_SLOTS default: 16K tunnels at 50 % load
MAX_TUNNEL_SLOTS = 524288   # the contract's largest table: 256K tunnels
MIN_TUNNEL_SLOTS = 16

_VTEP_KEYS = ("port", "port2", "strict", "vni_table", "tunnels", "tunnel_slots", "miss",
              "drop_pass")
_VNI_TABLE_KEYS = ("enabled", "entries")
_VNI_ENTRY_KEYS = ("vni", "vlan")
_TUNNEL_KEYS = ("inner_dst", "vlan", "vni", "outer_dst_mac", "outer_src_mac", "outer_src",
                "outer_dst", "udp_port", "ttl", "dscp")
_TUNNEL_REQUIRED = ("inner_dst", "vni", "outer_dst_mac", "outer_src_mac", "outer_src",
                    "outer_dst")
_MISS_CHOICES = ("forward", "drop")


@dataclass(frozen=True)
class TunnelSpec:
    """One tunnel-table entry: the key (inner destination IPv4, optional 802.1Q VLAN ID) and
    the outer headers of the encapsulation. Addresses are normalised strings
    (``"10.0.0.1"``, ``"02:00:00:00:00:01"``)."""

    inner_dst: str
    vni: int
    outer_dst_mac: str
    outer_src_mac: str
    outer_src: str
    outer_dst: str
    vlan: int | None = None
    udp_port: int = VXLAN_PORT
    ttl: int = 64
    dscp: int = 0

    def key(self) -> int:
        """The 45-bit tunnel-table key ``{vlan_valid, vid, inner dst}``."""
        from wirespeed.table import tunnel_key

        return tunnel_key(self.inner_dst, self.vlan)

    def value(self) -> int:
        """The 214-bit tunnel-table value."""
        from wirespeed.table import pack_tunnel

        return pack_tunnel(self.vni, self.outer_dst_mac, self.outer_src_mac, self.outer_src,
                           self.outer_dst, self.udp_port, self.ttl, self.dscp)


@dataclass(frozen=True)
class VtepConfig:
    """The ``vtep:`` section: ``vtep_top``'s decap and encap setup and its two tables.

    ``vni_entries``: ``(vni, vlan or None)``; a VLAN ID means "push an 802.1Q tag with it".
    The register writes (and the table placement behind them) are computed once and cached.
    """

    port: int = VXLAN_PORT
    port2: int | None = None
    strict: bool = False
    vni_enabled: bool = False
    vni_entries: tuple[tuple[int, int | None], ...] = ()
    tunnels: tuple[TunnelSpec, ...] = ()
    tunnel_slots: int = TUNNEL_SLOTS
    miss: str = "forward"
    drop_pass: bool = False
    source: str = "<defaults>"

    # -- registers ------------------------------------------------------------------------

    @property
    def decap_control(self) -> int:
        """Decap CONTROL (0x0008): VNI table enable, strict, PORT2 enable, drop PASS."""
        return ((DECAP_VNI_ENABLE if self.vni_enabled else 0)
                | (DECAP_STRICT if self.strict else 0)
                | (DECAP_PORT2_ENABLE if self.port2 is not None else 0)
                | (DECAP_DROP_PASS if self.drop_pass else 0))

    @property
    def encap_control(self) -> int:
        """Encap CONTROL (0x1008): bit 0 drop on a tunnel-table miss."""
        return ENCAP_DROP_MISS if self.miss == "drop" else 0

    def table_writes(self) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
        """(VNI-table writes, tunnel-table writes), window offsets added, in the order
        :meth:`wirespeed.table.HashTable.insert` returns them. Raises :class:`ConfigError`
        (naming the entry) when a table cannot place an entry."""
        cached = self.__dict__.get("_table_writes")
        if cached is not None:
            return cached
        from wirespeed.table import (TUNNEL_KEY_W, TUNNEL_VALUE_W, VNI_KEY_W, VNI_VALUE_W,
                                     HashTable, TableFullError, pack_vni)

        vni_ops: list[tuple[int, int]] = []
        vt = HashTable(VNI_KEY_W, VNI_VALUE_W, VNI_SLOTS)
        for i, (vni, vlan) in enumerate(self.vni_entries):
            try:
                ops = vt.insert(vni, pack_vni(vlan or 0, vlan is not None))
            except TableFullError as exc:
                raise ConfigError(f"{self.source}: vtep.vni_table.entries[{i}]: {exc}") from None
            vni_ops += [(VTEP_VNI_TABLE + a, v) for a, v in ops]
        tun_ops: list[tuple[int, int]] = []
        tt = HashTable(TUNNEL_KEY_W, TUNNEL_VALUE_W, self.tunnel_slots)
        base = VTEP_TUNNEL_TABLE
        for i, t in enumerate(self.tunnels):
            try:
                ops = tt.insert(t.key(), t.value())
            except TableFullError as exc:
                raise ConfigError(f"{self.source}: vtep.tunnels[{i}]: {exc} (tunnel_slots "
                                  f"{self.tunnel_slots})") from None
            tun_ops += [(base + a, v) for a, v in ops]
        result = (vni_ops, tun_ops)
        object.__setattr__(self, "_table_writes", result)  # frozen: cache by hand
        return result

    def register_writes(self) -> list[tuple[int, int]]:
        """(address, value) AXI4-Lite writes for ``vtep_top``, in order: decap PORT (and PORT2
        when enabled), the VNI table, the tunnel table, then decap CONTROL and encap CONTROL
        (the tables are complete before the VNI table is switched on)."""
        writes = [(VTEP_DECAP_PORT, self.port)]
        if self.port2 is not None:
            writes.append((VTEP_DECAP_PORT2, self.port2))
        vni_ops, tun_ops = self.table_writes()
        writes += vni_ops
        writes += tun_ops
        writes += [(VTEP_DECAP_CONTROL, self.decap_control),
                   (VTEP_ENCAP_CONTROL, self.encap_control)]
        return writes

    def register_file_text(self) -> str:
        """The harness's ``--regs`` file: one ``0xADDR 0xVALUE`` line per write."""
        return "".join(f"0x{a:04x} 0x{v:08x}\n" for a, v in self.register_writes())

    # -- the golden model -----------------------------------------------------------------

    def decap_config(self) -> "DecapConfig":
        """The golden model's decap configuration for the same setup."""
        from wirespeed.model.vxlan import DecapConfig

        table = None
        if self.vni_enabled:
            table = {vni: ((vlan or 0), vlan is not None) for vni, vlan in self.vni_entries}
        return DecapConfig(port=self.port, port2=self.port2, strict=self.strict,
                           vni_table=table, drop_pass=self.drop_pass)

    def encap_config(self) -> "EncapConfig":
        """The golden model's encap configuration for the same setup."""
        from wirespeed.model.vxlan import EncapConfig, Tunnel

        tunnels = {}
        for t in self.tunnels:
            tunnels[(t.vlan, int(ipaddress.IPv4Address(t.inner_dst)))] = Tunnel(
                vni=t.vni, dst_mac=t.outer_dst_mac, src_mac=t.outer_src_mac,
                src_ip=t.outer_src, dst_ip=t.outer_dst, udp_port=t.udp_port, ttl=t.ttl,
                dscp=t.dscp)
        return EncapConfig(tunnels=tunnels, drop_miss=self.miss == "drop")

    def summary(self) -> dict[str, Any]:
        """The report's description of the section."""
        return {"port": self.port, "port2": self.port2, "strict": self.strict,
                "vni_table_enabled": self.vni_enabled, "vni_entries": len(self.vni_entries),
                "tunnels": len(self.tunnels), "tunnel_slots": self.tunnel_slots,
                "miss": self.miss, "drop_pass": self.drop_pass,
                "decap_control": self.decap_control, "encap_control": self.encap_control}


def vtep_from_mapping(data: Any, source: str = "<config>") -> VtepConfig:
    """Validate the ``vtep:`` section (``None`` = defaults); table placement included."""
    if data is None:
        return VtepConfig(source=source)
    if not isinstance(data, Mapping):
        raise ConfigError(f"{source}: vtep: must be a mapping, not {_kind(data)}")
    _known(data, _VTEP_KEYS, "vtep.", source)
    port = _int_in(data.get("port", VXLAN_PORT), "vtep.port", source, 1, 65535)
    port2 = data.get("port2")
    if port2 is not None:
        port2 = _int_in(port2, "vtep.port2", source, 1, 65535)
    strict = _bool(data.get("strict", False), "vtep.strict", source)
    drop_pass = _bool(data.get("drop_pass", False), "vtep.drop_pass", source)
    miss = data.get("miss", "forward")
    if miss not in _MISS_CHOICES:
        raise ConfigError(f"{source}: vtep.miss: {miss!r} is not one of "
                          f"{', '.join(_MISS_CHOICES)}")
    slots = data.get("tunnel_slots", TUNNEL_SLOTS)
    if (isinstance(slots, bool) or not isinstance(slots, int) or slots < MIN_TUNNEL_SLOTS
            or slots > MAX_TUNNEL_SLOTS or slots & (slots - 1)):
        raise ConfigError(f"{source}: vtep.tunnel_slots: {slots!r} is not a power of two from "
                          f"{MIN_TUNNEL_SLOTS} to {MAX_TUNNEL_SLOTS}")

    vt = data.get("vni_table", {}) or {}
    if not isinstance(vt, Mapping):
        raise ConfigError(f"{source}: vtep.vni_table: must be a mapping with enabled and "
                          f"entries, not {_kind(vt)}")
    _known(vt, _VNI_TABLE_KEYS, "vtep.vni_table.", source)
    vni_enabled = _bool(vt.get("enabled", False), "vtep.vni_table.enabled", source)
    raw = vt.get("entries", []) or []
    if not isinstance(raw, list):
        raise ConfigError(f"{source}: vtep.vni_table.entries: must be a list, not {_kind(raw)}")
    vni_entries: list[tuple[int, int | None]] = []
    seen_vni: dict[int, int] = {}
    for i, e in enumerate(raw):
        where = f"vtep.vni_table.entries[{i}]"
        if not isinstance(e, Mapping):
            raise ConfigError(f"{source}: {where}: must be a mapping with vni (and vlan), "
                              f"not {_kind(e)}")
        _known(e, _VNI_ENTRY_KEYS, where + ".", source)
        if "vni" not in e:
            raise ConfigError(f"{source}: {where}.vni: missing (a VNI, 0 to 16777215)")
        vni = _int_in(e["vni"], f"{where}.vni", source, 0, (1 << 24) - 1)
        if vni in seen_vni:
            raise ConfigError(f"{source}: {where}.vni: {vni} is already in "
                              f"vtep.vni_table.entries[{seen_vni[vni]}]")
        seen_vni[vni] = i
        vlan = e.get("vlan")
        if vlan is not None:
            vlan = _int_in(vlan, f"{where}.vlan", source, 0, 4095)
        vni_entries.append((vni, vlan))
    if len(vni_entries) > VNI_SLOTS:
        raise ConfigError(f"{source}: vtep.vni_table.entries: {len(vni_entries)} entries, the "
                          f"table has {VNI_SLOTS} slots")

    raw_t = data.get("tunnels", []) or []
    if not isinstance(raw_t, list):
        raise ConfigError(f"{source}: vtep.tunnels: must be a list, not {_kind(raw_t)}")
    if len(raw_t) > slots:
        raise ConfigError(f"{source}: vtep.tunnels: {len(raw_t)} tunnels do not fit "
                          f"tunnel_slots {slots}")
    tunnels: list[TunnelSpec] = []
    seen_key: dict[tuple[int | None, str], int] = {}
    for i, e in enumerate(raw_t):
        where = f"vtep.tunnels[{i}]"
        if not isinstance(e, Mapping):
            raise ConfigError(f"{source}: {where}: must be a mapping with "
                              f"{', '.join(_TUNNEL_REQUIRED)}, not {_kind(e)}")
        _known(e, _TUNNEL_KEYS, where + ".", source)
        for k in _TUNNEL_REQUIRED:
            if k not in e:
                raise ConfigError(f"{source}: {where}.{k}: missing")
        vlan = e.get("vlan")
        if vlan is not None:
            vlan = _int_in(vlan, f"{where}.vlan", source, 0, 4095)
        t = TunnelSpec(
            inner_dst=_ipv4(e["inner_dst"], f"{where}.inner_dst", source),
            vni=_int_in(e["vni"], f"{where}.vni", source, 0, (1 << 24) - 1),
            outer_dst_mac=_mac(e["outer_dst_mac"], f"{where}.outer_dst_mac", source),
            outer_src_mac=_mac(e["outer_src_mac"], f"{where}.outer_src_mac", source),
            outer_src=_ipv4(e["outer_src"], f"{where}.outer_src", source),
            outer_dst=_ipv4(e["outer_dst"], f"{where}.outer_dst", source),
            vlan=vlan,
            udp_port=_int_in(e.get("udp_port", VXLAN_PORT), f"{where}.udp_port", source, 0,
                             65535),
            ttl=_int_in(e.get("ttl", 64), f"{where}.ttl", source, 0, 255),
            dscp=_int_in(e.get("dscp", 0), f"{where}.dscp", source, 0, 63),
        )
        key = (t.vlan, t.inner_dst)
        if key in seen_key:
            what = t.inner_dst + (f" on VLAN {t.vlan}" if t.vlan is not None else " untagged")
            raise ConfigError(f"{source}: {where}: the key ({what}) is already "
                              f"vtep.tunnels[{seen_key[key]}]'s")
        seen_key[key] = i
        tunnels.append(t)
    cfg = VtepConfig(port=port, port2=port2, strict=strict, vni_enabled=vni_enabled,
                     vni_entries=tuple(vni_entries), tunnels=tuple(tunnels), tunnel_slots=slots,
                     miss=miss, drop_pass=drop_pass, source=source)
    cfg.table_writes()  # place every entry now: a full table is a config error
    return cfg


def _int_in(v: Any, key: str, source: str, lo: int, hi: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise ConfigError(f"{source}: {key}: {v!r} is not an integer")
    if not lo <= v <= hi:
        raise ConfigError(f"{source}: {key}: {v} is not in {lo}..{hi}")
    return v


def _bool(v: Any, key: str, source: str) -> bool:
    if not isinstance(v, bool):
        raise ConfigError(f"{source}: {key}: {v!r} is not true or false")
    return v


def _sexagesimal_mac(v: int) -> str | None:
    """The MAC address YAML 1.1 read as a base-60 number (an unquoted 12:34:56:00:00:02 is
    12·60⁵ + 34·60⁴ + ...), or None when ``v`` cannot be one."""
    if v < 0:
        return None
    groups = []
    while v:
        v, d = divmod(v, 60)
        groups.append(d)
    if len(groups) > 6:
        return None
    groups += [0] * (6 - len(groups))
    return ":".join(f"{d:02d}" for d in reversed(groups))


def _mac(v: Any, key: str, source: str) -> str:
    if isinstance(v, int) and not isinstance(v, bool):
        guess = _sexagesimal_mac(v)
        if guess is not None:
            raise ConfigError(f"{source}: {key}: {v!r} is a number: YAML reads an unquoted MAC "
                              f"address of decimal digits such as {guess} as a base-60 number; "
                              f"quote the MAC address: \"{guess}\"")
    parts = v.replace("-", ":").split(":") if isinstance(v, str) else []
    if (len(parts) != 6 or not all(len(p) == 2 and all(c in "0123456789abcdefABCDEF" for c in p)
                                   for p in parts)):
        raise ConfigError(f"{source}: {key}: {v!r} is not a MAC address "
                          f"(six hex octets, e.g. \"02:00:00:00:00:01\")")
    return ":".join(p.lower() for p in parts)
