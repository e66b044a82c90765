"""The `vtep:` config section (no harness): register writes, the model's config, the error
messages (file and key named), `wirespeed config --block vtep` and the VTEP CLI's argument
checks."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from vtep_util import run_cli, tunnels_yaml
from wirespeed import config
from wirespeed.cli import main
from wirespeed.config import ConfigError
from wirespeed.model.vxlan_frames import random_tunnels
from wirespeed.table import (TUNNEL_KEY_W, TUNNEL_VALUE_W, VNI_KEY_W, VNI_VALUE_W,
                             TableRegisterModel, pack_tunnel, pack_vni, tunnel_key)

FULL = """
vtep:
  port: 4789
  port2: 8472
  strict: true
  drop_pass: true
  miss: drop
  tunnel_slots: 32768
  vni_table:
    enabled: true
    entries:
      - {vni: 42, vlan: 100}
      - {vni: 7}
  tunnels:
    - {inner_dst: "192.168.1.2", vlan: 100, vni: 42, outer_dst_mac: "02:00:00:00:00:02",
       outer_src_mac: "02:00:00:00:00:01", outer_src: "10.0.0.1", outer_dst: "10.0.0.2",
       udp_port: 4789, ttl: 64, dscp: 0}
    - {inner_dst: "192.168.1.3", vni: 43, outer_dst_mac: "02:00:00:00:00:03",
       outer_src_mac: "02:00:00:00:00:01", outer_src: "10.0.0.1", outer_dst: "10.0.0.3",
       ttl: 7, dscp: 46, udp_port: 8472}
"""


def write(tmp_path: Path, text: str, name: str = "config.yaml") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def test_defaults() -> None:
    v = config.Config().vtep
    assert (v.port, v.port2, v.strict, v.vni_enabled, v.miss, v.drop_pass) == (
        4789, None, False, False, "forward", False)
    assert v.tunnel_slots == 32768 and v.tunnels == () and v.vni_entries == ()
    assert v.register_writes() == [(0x0010, 4789), (0x0008, 0), (0x1008, 0)]
    d = v.decap_config()
    assert (d.port, d.port2, d.strict, d.vni_table, d.drop_pass) == (4789, None, False, None,
                                                                     False)
    assert d.control == 0
    assert v.encap_config().tunnels == {} and not v.encap_config().drop_miss


def test_full_section_writes_and_model(tmp_path: Path) -> None:
    cfg = config.load(write(tmp_path, FULL))
    v = cfg.vtep
    assert v.decap_control == 0b1111 and v.encap_control == 1
    w = v.register_writes()
    assert w[:2] == [(0x0010, 4789), (0x0014, 8472)]
    assert w[-2:] == [(0x0008, 0xF), (0x1008, 1)]
    tables = w[2:-2]
    vni = [(a, x) for a, x in tables if 0x2000 <= a < 0x3000]
    tun = [(a, x) for a, x in tables if 0x3000 <= a < 0x4000]
    assert vni + tun == tables, "VNI table writes first, then the tunnel table's"
    # Replaying the writes into the table's register model gives exactly the configured tables.
    vm = TableRegisterModel(VNI_KEY_W, VNI_VALUE_W, 8192)
    vm.apply([(a - 0x2000, x) for a, x in vni])
    assert vm.lookup(42) == pack_vni(100, True) and vm.lookup(7) == pack_vni(0, False)
    assert vm.count == 2
    tm = TableRegisterModel(TUNNEL_KEY_W, TUNNEL_VALUE_W, 32768)
    tm.apply([(a - 0x3000, x) for a, x in tun])
    assert tm.lookup(tunnel_key("192.168.1.2", 100)) == pack_tunnel(
        42, "02:00:00:00:00:02", "02:00:00:00:00:01", "10.0.0.1", "10.0.0.2", 4789, 64, 0)
    assert tm.lookup(tunnel_key("192.168.1.3")) == pack_tunnel(
        43, "02:00:00:00:00:03", "02:00:00:00:00:01", "10.0.0.1", "10.0.0.3", 8472, 7, 46)
    assert tm.lookup(tunnel_key("192.168.1.2")) is None  # the VLAN is part of the key
    d = v.decap_config()
    assert d.control == v.decap_control
    assert d.vni_table == {42: (100, True), 7: (0, False)}
    assert (d.port, d.port2, d.strict, d.drop_pass) == (4789, 8472, True, True)
    e = v.encap_config()
    assert e.drop_miss and e.control == v.encap_control
    assert set(e.tunnels) == {(100, 0xC0A80102), (None, 0xC0A80103)}
    t = e.tunnels[(None, 0xC0A80103)]
    assert (t.vni, t.udp_port, t.ttl, t.dscp, t.dst_ip) == (43, 8472, 7, 46, 0x0A000003)
    text = v.register_file_text().splitlines()
    assert text[0] == "0x0010 0x000012b5" and text[-1] == "0x1008 0x00000001"


def test_random_tunnels_round_trip(tmp_path: Path) -> None:
    """200 random tunnels (tagged and untagged) through YAML: the model's table equals the
    generator's, and the hardware table (writes replayed) holds every value."""
    tunnels = random_tunnels(random.Random(5), 200)
    cfg = config.load(write(tmp_path, "vtep:\n" + tunnels_yaml(tunnels)))
    e = cfg.vtep.encap_config()
    assert e.tunnels == tunnels
    tm = TableRegisterModel(TUNNEL_KEY_W, TUNNEL_VALUE_W, 32768)
    tm.apply([(a - 0x3000, x) for a, x in cfg.vtep.register_writes() if a >= 0x3000])
    for (vid, dst), t in tunnels.items():
        assert tm.lookup(tunnel_key(dst, vid)) == pack_tunnel(
            t.vni, t.dst_mac, t.src_mac, t.src_ip, t.dst_ip, t.udp_port, t.ttl, t.dscp)


_T = ('{inner_dst: "1.2.3.4", vni: 1, outer_dst_mac: "02:00:00:00:00:02", '
      'outer_src_mac: "02:00:00:00:00:01", outer_src: "10.0.0.1", outer_dst: "10.0.0.2"')


@pytest.mark.parametrize("text, needle", [
    ("vtep: 5\n", "vtep: must be a mapping, not int"),
    ("vtep: {prot: 4789}\n", "vtep.prot: unknown key (known: port, port2, strict, vni_table, "
                             "tunnels, tunnel_slots, miss, drop_pass)"),
    ("vtep: {port: 0}\n", "vtep.port: 0 is not in 1..65535"),
    ("vtep: {port: '4789'}\n", "vtep.port: '4789' is not an integer"),
    ("vtep: {port2: 70000}\n", "vtep.port2: 70000 is not in 1..65535"),
    ("vtep: {strict: yes please}\n", "vtep.strict: 'yes please' is not true or false"),
    ("vtep: {miss: dorp}\n", "vtep.miss: 'dorp' is not one of forward, drop"),
    ("vtep: {drop_pass: 1}\n", "vtep.drop_pass: 1 is not true or false"),
    ("vtep: {tunnel_slots: 1000}\n", "vtep.tunnel_slots: 1000 is not a power of two from 16 "
                                     "to 524288"),
    ("vtep: {tunnel_slots: 1048576}\n", "vtep.tunnel_slots: 1048576 is not a power of two"),
    ("vtep: {vni_table: [42]}\n", "vtep.vni_table: must be a mapping with enabled and entries"),
    ("vtep: {vni_table: {enabled: 2, entries: []}}\n",
     "vtep.vni_table.enabled: 2 is not true or false"),
    ("vtep: {vni_table: {entries: [{vni: 16777216}]}}\n",
     "vtep.vni_table.entries[0].vni: 16777216 is not in 0..16777215"),
    ("vtep: {vni_table: {entries: [{vlan: 5}]}}\n", "vtep.vni_table.entries[0].vni: missing"),
    ("vtep: {vni_table: {entries: [{vni: 1, vlan: 4096}]}}\n",
     "vtep.vni_table.entries[0].vlan: 4096 is not in 0..4095"),
    ("vtep: {vni_table: {entries: [{vni: 1}, {vni: 1}]}}\n",
     "vtep.vni_table.entries[1].vni: 1 is already in vtep.vni_table.entries[0]"),
    ("vtep: {vni_table: {entries: [{vni: 1, push: true}]}}\n",
     "vtep.vni_table.entries[0].push: unknown key (known: vni, vlan)"),
    ("vtep: {tunnels: {a: 1}}\n", "vtep.tunnels: must be a list, not a mapping"),
    ("vtep: {tunnels: [{inner_dst: \"1.2.3.4\", vni: 1}]}\n",
     "vtep.tunnels[0].outer_dst_mac: missing"),
    (f"vtep: {{tunnels: [{_T}, ttl: 256}}]}}\n", "vtep.tunnels[0].ttl: 256 is not in 0..255"),
    (f"vtep: {{tunnels: [{_T}, dscp: 64}}]}}\n", "vtep.tunnels[0].dscp: 64 is not in 0..63"),
    (f"vtep: {{tunnels: [{_T}, vlan: -1}}]}}\n", "vtep.tunnels[0].vlan: -1 is not in 0..4095"),
    (f"vtep: {{tunnels: [{_T}, udp_port: 65536}}]}}\n",
     "vtep.tunnels[0].udp_port: 65536 is not in 0..65535"),
    (f"vtep: {{tunnels: [{_T}, colour: red}}]}}\n", "vtep.tunnels[0].colour: unknown key"),
    (f"vtep: {{tunnels: [{_T}}}, {_T}}}]}}\n",
     "vtep.tunnels[1]: the key (1.2.3.4 untagged) is already vtep.tunnels[0]'s"),
    (f"vtep: {{tunnels: [{_T}, vlan: 3}}, {_T}}}]}}\n", None),  # other VLAN: another key
    (_T.replace('"1.2.3.4"', '"1.2.3"').join(("vtep: {tunnels: [", "}]}\n")),
     "vtep.tunnels[0].inner_dst: '1.2.3' is not an IPv4 address"),
    (_T.replace('"02:00:00:00:00:02"', '"02:00:00:00:02"').join(("vtep: {tunnels: [", "}]}\n")),
     "vtep.tunnels[0].outer_dst_mac: '02:00:00:00:02' is not a MAC address"),
    (_T.replace('"10.0.0.2"', '10').join(("vtep: {tunnels: [", "}]}\n")),
     "vtep.tunnels[0].outer_dst: 10 is not an IPv4 address in quotes"),
    ("vtpe: {port: 1}\n", "vtpe: unknown key (known: data_width, clock_mhz, line_rate_gbps, "
                          "allow_list, policy) or vtep (the VXLAN VTEP's section)"),
])
def test_errors_name_file_and_key(tmp_path: Path, text: str, needle: str | None) -> None:
    p = write(tmp_path, text)
    if needle is None:
        config.load(p)
        return
    with pytest.raises(ConfigError) as exc:
        config.load(p)
    assert str(exc.value).startswith(f"{p}: "), str(exc.value)
    assert needle in str(exc.value), str(exc.value)


def test_table_full_is_a_config_error(tmp_path: Path) -> None:
    """17 tunnels cannot fit a 16-slot table: the message names the entry that did not fit."""
    lines = ["vtep:", "  tunnel_slots: 16", "  tunnels:"]
    for i in range(17):
        lines.append(f"    - {_T.replace('1.2.3.4', f'1.2.3.{i}')}}}")
    p = write(tmp_path, "\n".join(lines) + "\n")
    with pytest.raises(ConfigError) as exc:
        config.load(p)
    assert f"{p}: vtep.tunnels: 17 tunnels do not fit tunnel_slots 16" in str(exc.value)
    lines = ["vtep:", "  tunnel_slots: 16", "  tunnels:"]
    for i in range(16):
        lines.append(f"    - {_T.replace('1.2.3.4', f'1.2.{i}.9')}}}")
    p = write(tmp_path, "\n".join(lines) + "\n")
    try:  # 16 keys in 16 slots: fits only if the hashes allow; a failure names the entry
        config.load(p)
    except ConfigError as exc:
        assert f"{p}: vtep.tunnels[" in str(exc) and "hash table full" in str(exc)


def test_config_command_vtep(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    p = write(tmp_path, FULL)
    assert main(["config", "--block", "vtep", str(p)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"# {p}: valid; vtep_top") and "decap CONTROL=0xf" in out[0]
    assert "2 VNI table entries, 2 tunnels" in out[0]
    want = config.load(p).vtep.register_file_text().splitlines()
    assert [line.split("#")[0].strip() for line in out[1:]] == want
    # the GRE view of the same file is unchanged (CONTROL only), and says the vtep: section
    # is not used by it
    assert main(["config", str(p)]) == 0
    got = capsys.readouterr()
    assert [line.split("#")[0].strip() for line in got.out.splitlines()[1:]] == ["0x0008 0x00000000"]
    assert f"{p}: vtep: not used by gre_decap" in got.err


@pytest.mark.parametrize("args, needle", [
    (["run", "--block", "vtep"], "--block vtep needs --net-in NET.pcap --host-out OUT.pcap"),
    (["run", "--block", "vtep", "--net-in", "x.pcap"], "--net-in needs --host-out"),
    (["run", "--block", "vtep", "--net-out", "x.pcap"], "--net-out is the output of --host-in"),
    (["run", "--block", "vtep", "--in", "x.pcap", "--out", "y.pcap"],
     "--block vtep has two ports: use --net-in/--net-out"),
    (["run", "--block", "gre", "--net-in", "x.pcap"], "--net-in belong to --block vtep"),
    (["run", "--block", "gre", "--scenario", "vxlan-seed"], "--scenario vxlan-seed runs the VXLAN"),
    (["run", "--scenario", "vxlan-seed", "--net-in", "x.pcap"],
     "--scenario vxlan-seed generates its own input"),
    (["run", "--scenario", "vxlan-seed", "--frames", "0"], "--frames must be at least 1"),
    (["run", "--host-rate", "line"], "--host-rate applies to --scenario vxlan-seed only"),
    (["run", "--block", "vtep", "--net-in", "/nonexistent.pcap", "--host-out", "o.pcap"],
     "/nonexistent.pcap"),
    (["bench", "--no-large-table"], "--no-large-table applies to --block vtep"),
])
def test_cli_argument_errors(tmp_path: Path, args: list[str], needle: str) -> None:
    proc = run_cli(args)
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert proc.stderr.startswith("wirespeed: error: ") and needle in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr


def test_run_with_bad_vtep_config(tmp_path: Path) -> None:
    p = write(tmp_path, "vtep: {miss: maybe}\n")
    proc = run_cli(["run", "--block", "vtep", "--net-in", "x.pcap", "--host-out", "y.pcap",
                    "--config", p])
    assert proc.returncode == 2
    assert f"wirespeed: error: {p}: vtep.miss: 'maybe' is not one of forward, drop" in proc.stderr
