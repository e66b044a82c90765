"""The capture config (wirespeed/capture_config.py) and the capture summary, without a build."""

from __future__ import annotations

import pytest

from wirespeed.capture import summary
from wirespeed.capture_config import CaptureConfig, CaptureConfigError, parse
from wirespeed.model import rss


def test_defaults_write_nothing() -> None:
    cfg = parse(None)
    assert cfg == CaptureConfig()
    assert cfg.register_writes() == []
    assert cfg.full_table() == [i % 16 for i in range(128)]
    assert "--queues" in cfg.harness_flags()


def test_writes_and_model() -> None:
    key = bytes(range(40))
    cfg = parse({"queues": 4, "port": 1, "max_len": 1500,
                 "rss": {"key": key.hex(), "types": ["ipv4", "udp_ipv6"], "symmetric": True,
                         "default_queue": 3, "table": [3, 1]},
                 "pcie": {"lanes": 8, "latency_ns": 600.5},
                 "host": {"paused": True, "ns_per_frame": 10}})
    w = dict(cfg.register_writes())
    assert w[0x0008] == 1 and w[0x000C] == 1500
    assert w[0x2000] == (1 | 1 << 5) | 1 << 8
    assert w[0x2004] == 3
    assert w[0x2040] == 0x00010203 and w[0x2064] == 0x24252627 and w[0x2008] == 1
    assert w[0x2800] == 3 and w[0x2804] == 1 and w[0x2800 + 4 * 127] == 1
    flags = cfg.harness_flags()
    assert flags[flags.index("--pcie-lanes") + 1] == "8"
    assert flags[flags.index("--pcie-latency-ns") + 1] == "600.5"
    assert "--host-paused" in flags
    m = cfg.model()
    assert m.config().key == key and m.symmetric and m.max_len == 1500
    assert m.config().enables == 1 | 1 << 5
    long = bytes(1501)
    assert m.queue_of(long) == 3


@pytest.mark.parametrize("data, msg", [
    ({"queue": 4}, "unknown key 'queue'"),
    ({"queues": 0}, "queues 0"),
    ({"queues": 17}, "queues 17"),
    ({"ring_bytes": 6000}, "ring_bytes 6000"),
    ({"rss": {"key": "abcd"}}, "rss.key: 2 bytes"),
    ({"rss": {"types": ["tcp"]}}, "rss.types: 'tcp'"),
    ({"rss": {"symmetric": "yes"}}, "rss.symmetric"),
    ({"queues": 2, "rss": {"table": [0, 2]}}, "queue 2 is not a used queue"),
    ({"queues": 2, "rss": {"default_queue": 5}}, "default_queue 5"),
    ({"pcie": {"speed": 1}}, "unknown key 'speed'"),
    ({"host": {"paused": 1}}, "host.paused"),
    ({"data_width": 96}, "data_width 96"),
    ({"port": 4}, "port 4"),
])
def test_errors(data: dict, msg: str) -> None:
    with pytest.raises(CaptureConfigError) as e:
        parse(data, "my.yaml")
    assert msg in str(e.value) and "my.yaml" in str(e.value)


def test_summary_table() -> None:
    rep = {"data_width": 512, "clock_mhz": 322.265625, "line_rate_gbps": 100.0, "queues": 2,
           "ring_bytes": 4096, "packets_in": 10, "captured": 8, "dropped": 2, "balanced": 1,
           "offered_gbps": 50.0,
           "counters": {"rss_default": 1, "runts": 1, "giants": 0},
           "rss_spread": {"imbalance": 1.2},
           "pcie": {"lanes": 16, "raw_gbps": 126.0, "max_payload_gbps": 115.2,
                    "max_payload_bytes": 256, "payload_gbps": 60.0, "utilisation": 0.5},
           "queue": {"0": {"frames_in": 6, "frames": 5, "drops": 1, "drop_full": 1,
                           "drop_buf": 0, "drop_off": 0, "share": 0.6, "file": "queue-00.pcap"},
                     "1": {"frames_in": 4, "frames": 3, "drops": 1, "drop_full": 0,
                           "drop_buf": 1, "drop_off": 0, "share": 0.4, "file": "queue-01.pcap"}}}
    text = summary(rep, "in.pcap", "out")
    assert "queue-01.pcap" in text and "(1/0/0)" in text and "(0/1/0)" in text
    assert "frames in = captured + counted drops: yes" in text
