"""The YAML configuration of ``wirespeed capture`` (docs/config.md, "wirespeed capture"),
validated strictly, and what it becomes: the harness's flags, the AXI4-Lite writes to
capture_top's windows (rss_hash at 0x2000, the capture registers at 0x0000) and the golden
model's :class:`wirespeed.capture_check.CaptureModel`.

Every key is optional::

    data_width: 512            # 64, 128, 256, 512
    clock_mhz: 322.265625
    line_rate_gbps: 100        # 0 = back to back
    queues: 16                 # queues used: 1 .. the build's 16
    ring_bytes: 1048576        # per queue, a power of two 4096 .. 2^30
    max_len: 9600              # longer frames are not parsed (the default queue)
    port: 0                    # the records' port field, 0..3
    rss:
      key: 6d5a56da255b...     # 40 bytes in hex (default: Microsoft's)
      types: [ipv4, tcp_ipv4, udp_ipv4, ipv6, tcp_ipv6, udp_ipv6]
      symmetric: false
      inner: false             # hash GRE/VXLAN packets by their inner headers (PARSE_CTRL)
      default_queue: 0
      table: [0, 1, 2, 3]      # repeated over the 128 entries (default: 0 .. queues-1)
    pcie: {gts: 8, lanes: 16, max_payload: 256, tlp_overhead: 24, latency_ns: 400,
           read_ns: 900, mmio_write_ns: 250, credits: 32}
    host: {poll_ns: 1000, ns_per_frame: 20, paused: false, prod_read: false}
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import yaml

from wirespeed.capture_check import DEFAULT_MAX_LEN, RSS_TABLE_ENTRIES, CaptureModel
from wirespeed.model import rss
from wirespeed.regmap import CAPTURE

WIDTHS = (64, 128, 256, 512)
BUILT_QUEUES = 16
TYPE_NAMES = {"ipv4": 1, "tcp_ipv4": 2, "udp_ipv4": 3, "ipv6": 4, "tcp_ipv6": 5, "udp_ipv6": 6}

# capture_top's windows and the registers written (docs/host.md, docs/rss.md)
W_CAP, W_RSS = 0x0000, 0x2000
CAP_PORT, CAP_MAX_LEN = CAPTURE.reg("PORT"), CAPTURE.reg("MAX_LEN")
CAP_PARSE_CTRL = CAPTURE.reg("PARSE_CTRL")
CAP_INNER = CAPTURE.register("PARSE_CTRL").field("INNER").mask
RSS_CTRL, RSS_DEFQ, RSS_KEY_CTRL, RSS_KEY, RSS_INDIR = 0x000, 0x004, 0x008, 0x040, 0x800

_PCIE_KEYS = {"gts": "--pcie-gts", "lanes": "--pcie-lanes", "max_payload": "--pcie-mps",
              "tlp_overhead": "--pcie-overhead", "latency_ns": "--pcie-latency-ns",
              "read_ns": "--pcie-read-ns", "mmio_write_ns": "--mmio-write-ns",
              "credits": "--pcie-credits"}
_HOST_NUM = {"poll_ns": "--host-poll-ns", "ns_per_frame": "--host-ns-per-frame"}
_HOST_FLAGS = {"paused": "--host-paused", "prod_read": "--host-prod-read"}
_TOP = ("data_width", "clock_mhz", "line_rate_gbps", "queues", "ring_bytes", "max_len", "port",
        "rss", "pcie", "host")
_RSS = ("key", "types", "symmetric", "inner", "default_queue", "table")


class CaptureConfigError(ValueError):
    """A config that cannot be used; the message names the file and the key."""


@dataclass(frozen=True)
class CaptureConfig:
    data_width: int = 512
    clock_mhz: float = 322.265625
    line_rate_gbps: float = 100.0
    queues: int = BUILT_QUEUES
    ring_bytes: int = 1 << 20
    max_len: int = DEFAULT_MAX_LEN
    port: int = 0
    key: bytes = rss.MS_KEY
    enables: int = rss.ALL_TYPES
    symmetric: bool = False
    inner: bool = False
    default_queue: int = 0
    table: tuple[int, ...] = ()
    pcie: Mapping[str, float] = field(default_factory=dict)
    host: Mapping[str, Any] = field(default_factory=dict)

    def replace(self, **kw: Any) -> "CaptureConfig":
        return dataclasses.replace(self, **kw)

    def validate(self, where: str = "capture") -> None:
        def bad(msg: str) -> CaptureConfigError:
            return CaptureConfigError(f"{where}: {msg}")

        if self.data_width not in WIDTHS:
            raise bad(f"data_width {self.data_width} is not one of {', '.join(map(str, WIDTHS))}")
        if not 1 <= self.queues <= BUILT_QUEUES:
            raise bad(f"queues {self.queues}: must be 1..{BUILT_QUEUES} (the RTL's build)")
        rb = self.ring_bytes
        if rb < 4096 or rb > 1 << 30 or rb & (rb - 1):
            raise bad(f"ring_bytes {rb}: must be a power of two from 4096 to 1073741824")
        if not 0 < self.clock_mhz <= 5000:
            raise bad(f"clock_mhz {self.clock_mhz}: must be in (0, 5000]")
        if not 0 <= self.line_rate_gbps <= 1600:
            raise bad(f"line_rate_gbps {self.line_rate_gbps}: must be in [0, 1600]")
        if not 0 <= self.max_len <= 0xFFFF:
            raise bad(f"max_len {self.max_len}: must be 0..65535")
        if not 0 <= self.port <= 3:
            raise bad(f"port {self.port}: must be 0..3")
        if not 0 <= self.default_queue < self.queues:
            raise bad(f"rss.default_queue {self.default_queue}: must be a used queue "
                      f"(0..{self.queues - 1})")
        for q in self.table:
            if not 0 <= q < self.queues:
                raise bad(f"rss.table: queue {q} is not a used queue (0..{self.queues - 1})")

    # -------------------------------------------------------------- what it becomes

    def full_table(self) -> list[int]:
        """The 128 indirection entries."""
        src = list(self.table) or list(range(self.queues))
        return [src[i % len(src)] for i in range(RSS_TABLE_ENTRIES)]

    def register_writes(self) -> list[tuple[int, int]]:
        """(address, value) writes after ws_capture's own set-up; empty for the defaults."""
        w: list[tuple[int, int]] = []
        if self.port:
            w.append((W_CAP + CAP_PORT, self.port))
        if self.max_len != DEFAULT_MAX_LEN:
            w.append((W_CAP + CAP_MAX_LEN, self.max_len))
        if self.inner:
            w.append((W_CAP + CAP_PARSE_CTRL, CAP_INNER))
        if self.enables != rss.ALL_TYPES or self.symmetric:
            w.append((W_RSS + RSS_CTRL, self.enables | int(self.symmetric) << 8))
        if self.default_queue:
            w.append((W_RSS + RSS_DEFQ, self.default_queue))
        if self.table:
            w += [(W_RSS + RSS_INDIR + 4 * i, q) for i, q in enumerate(self.full_table())]
        if self.key != rss.MS_KEY:
            w += [(W_RSS + RSS_KEY + 4 * i, int.from_bytes(self.key[4 * i:4 * i + 4], "big"))
                  for i in range(10)]
            w.append((W_RSS + RSS_KEY_CTRL, 1))
        return w

    def harness_flags(self) -> list[str]:
        flags = ["--queues", str(self.queues), "--ring-bytes", str(self.ring_bytes),
                 "--clock-mhz", repr(float(self.clock_mhz)),
                 "--line-rate-gbps", repr(float(self.line_rate_gbps))]
        for k, v in self.pcie.items():
            flags += [_PCIE_KEYS[k], _fmt(v)]
        for k, v in self.host.items():
            if k in _HOST_FLAGS:
                flags += [_HOST_FLAGS[k]] if v else []
            else:
                flags += [_HOST_NUM[k], _fmt(v)]
        return flags

    def model(self) -> CaptureModel:
        return CaptureModel(queues=self.queues, key=self.key, enables=self.enables,
                            symmetric=self.symmetric, default_queue=self.default_queue,
                            max_len=self.max_len, table=self.full_table(), inner=self.inner)


def _fmt(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else repr(float(v))


def _num(where: str, v: Any, kind: type) -> Any:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or (kind is int and not isinstance(v, int)):
        raise CaptureConfigError(f"{where}: {v!r} is not {'an integer' if kind is int else 'a number'}")
    return kind(v)


def _keys(where: str, d: Any, allowed: tuple[str, ...] | Mapping[str, Any]) -> dict[str, Any]:
    if not isinstance(d, dict):
        raise CaptureConfigError(f"{where}: expected a mapping, found {type(d).__name__}")
    for k in d:
        if k not in allowed:
            raise CaptureConfigError(f"{where} unknown key {k!r} (known: {', '.join(allowed)})")
    return d


def parse(data: Any, name: str = "config") -> CaptureConfig:
    """A :class:`CaptureConfig` from the YAML document ``data`` (``name`` for messages)."""
    if data is None:
        data = {}
    d = _keys(f"{name}:", data, _TOP)
    kw: dict[str, Any] = {}
    for k in ("data_width", "queues", "ring_bytes", "max_len", "port"):
        if k in d:
            kw[k] = _num(f"{name}: {k}", d[k], int)
    for k in ("clock_mhz", "line_rate_gbps"):
        if k in d:
            kw[k] = _num(f"{name}: {k}", d[k], float)
    r = _keys(f"{name}: rss:", d.get("rss") or {}, _RSS)
    if "key" in r:
        try:
            key = bytes.fromhex(str(r["key"]).replace(":", "").replace(" ", ""))
        except ValueError:
            raise CaptureConfigError(f"{name}: rss.key: not hex") from None
        if len(key) != rss.KEY_BYTES:
            raise CaptureConfigError(f"{name}: rss.key: {len(key)} bytes, need {rss.KEY_BYTES}")
        kw["key"] = key
    if "types" in r:
        en = 0
        for t in r["types"] or []:
            if str(t).lower() not in TYPE_NAMES:
                raise CaptureConfigError(f"{name}: rss.types: {t!r} is not one of "
                                         f"{', '.join(TYPE_NAMES)}")
            en |= 1 << (TYPE_NAMES[str(t).lower()] - 1)
        kw["enables"] = en
    if "symmetric" in r:
        if not isinstance(r["symmetric"], bool):
            raise CaptureConfigError(f"{name}: rss.symmetric: {r['symmetric']!r} is not true/false")
        kw["symmetric"] = r["symmetric"]
    if "inner" in r:
        if not isinstance(r["inner"], bool):
            raise CaptureConfigError(f"{name}: rss.inner: {r['inner']!r} is not true/false")
        kw["inner"] = r["inner"]
    if "default_queue" in r:
        kw["default_queue"] = _num(f"{name}: rss.default_queue", r["default_queue"], int)
    if "table" in r:
        t = r["table"]
        if not isinstance(t, list) or not t or len(t) > RSS_TABLE_ENTRIES:
            raise CaptureConfigError(f"{name}: rss.table: a list of 1..{RSS_TABLE_ENTRIES} queues")
        kw["table"] = tuple(_num(f"{name}: rss.table", q, int) for q in t)
    p = _keys(f"{name}: pcie:", d.get("pcie") or {}, _PCIE_KEYS)
    kw["pcie"] = {k: _num(f"{name}: pcie.{k}", v, float) for k, v in p.items()}
    h = _keys(f"{name}: host:", d.get("host") or {}, {**_HOST_NUM, **_HOST_FLAGS})
    host: dict[str, Any] = {}
    for k, v in h.items():
        if k in _HOST_FLAGS:
            if not isinstance(v, bool):
                raise CaptureConfigError(f"{name}: host.{k}: {v!r} is not true/false")
            host[k] = v
        else:
            host[k] = _num(f"{name}: host.{k}", v, float)
    kw["host"] = host
    cfg = CaptureConfig(**kw)
    cfg.validate(name)
    return cfg


def load(path: Path) -> CaptureConfig:
    try:
        text = Path(path).read_text()
    except OSError as exc:
        raise CaptureConfigError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise CaptureConfigError(f"{path}: not valid YAML: {exc}") from exc
    return parse(data, str(path))
