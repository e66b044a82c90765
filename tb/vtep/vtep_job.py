"""A replay job for `vtep_top`: frames for both ports plus the configuration, as JSON, so that a
process outside the simulator (tb/linux/, scripts) can have the RTL run arbitrary frames.

    job = Job(net=[...], host=[...], decap=DecapConfig(...), encap=EncapConfig(...))
    result = run_rtl(job, data_w=256)        # builds/runs tb/vtep/cocotb_vtep.py::test_replay
    result.host_out  -> [OutFrame(data, aborted, tvni, tvni_valid)], in output order
    result.net_out   -> [OutFrame(data, aborted)]

No cocotb import here: this module is used by pytest processes too.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from wirespeed.model.vxlan import DecapConfig, EncapConfig, Tunnel

HERE = Path(__file__).resolve().parent
ENV_JOB = "WIRESPEED_VTEP_JOB"
ENV_RESULT = "WIRESPEED_VTEP_RESULT"


@dataclass
class Job:
    net: list[bytes] = field(default_factory=list)
    host: list[bytes] = field(default_factory=list)
    net_bad: list[bool] | None = None
    host_bad: list[bool] | None = None
    decap: DecapConfig = field(default_factory=DecapConfig)
    encap: EncapConfig = field(default_factory=EncapConfig)
    idle: float = 0.0
    stall: float = 0.0
    seed: int = 1

    def to_json(self) -> str:
        d = self.decap
        return json.dumps({
            "net": [f.hex() for f in self.net],
            "host": [f.hex() for f in self.host],
            "net_bad": self.net_bad, "host_bad": self.host_bad,
            "decap": {"port": d.port, "port2": d.port2, "strict": d.strict, "drop_pass": d.drop_pass,
                      "vni_table": None if d.vni_table is None else [[v, vid, bool(p)] for v, (vid, p) in
                                                                     d.vni_table.items()]},
            "encap": {"drop_miss": self.encap.drop_miss,
                      "tunnels": [[vid, dst, {"vni": t.vni, "dst_mac": t.dst_mac.hex(), "src_mac": t.src_mac.hex(),
                                              "src_ip": t.src_ip, "dst_ip": t.dst_ip, "udp_port": t.udp_port,
                                              "ttl": t.ttl, "dscp": t.dscp}]
                                  for (vid, dst), t in self.encap.tunnels.items()]},
            "idle": self.idle, "stall": self.stall, "seed": self.seed,
        })

    @classmethod
    def from_json(cls, s: str) -> "Job":
        j = json.loads(s)
        d = j["decap"]
        vt = None if d["vni_table"] is None else {v: (vid, bool(p)) for v, vid, p in d["vni_table"]}
        tunnels = {}
        for vid, dst, t in j["encap"]["tunnels"]:
            tunnels[(vid, dst)] = Tunnel(vni=t["vni"], dst_mac=bytes.fromhex(t["dst_mac"]),
                                         src_mac=bytes.fromhex(t["src_mac"]), src_ip=t["src_ip"], dst_ip=t["dst_ip"],
                                         udp_port=t["udp_port"], ttl=t["ttl"], dscp=t["dscp"])
        return cls(net=[bytes.fromhex(x) for x in j["net"]], host=[bytes.fromhex(x) for x in j["host"]],
                   net_bad=j.get("net_bad"), host_bad=j.get("host_bad"),
                   decap=DecapConfig(port=d["port"], port2=d["port2"], strict=d["strict"], vni_table=vt,
                                     drop_pass=d["drop_pass"]),
                   encap=EncapConfig(tunnels=tunnels, drop_miss=j["encap"]["drop_miss"]),
                   idle=j.get("idle", 0.0), stall=j.get("stall", 0.0), seed=j.get("seed", 1))


@dataclass
class OutFrame:
    data: bytes
    aborted: bool = False
    tvni: int = 0
    tvni_valid: bool = False


@dataclass
class Result:
    host_out: list[OutFrame]
    net_out: list[OutFrame]
    decap_counters: list[int] = field(default_factory=list)  # packets per decap outcome
    encap_counters: list[int] = field(default_factory=list)

    def to_json(self) -> str:
        def fr(o):
            return {"data": o.data.hex(), "aborted": o.aborted, "tvni": o.tvni, "tvni_valid": o.tvni_valid}

        return json.dumps({"host_out": [fr(o) for o in self.host_out], "net_out": [fr(o) for o in self.net_out],
                           "decap_counters": self.decap_counters, "encap_counters": self.encap_counters})

    @classmethod
    def from_json(cls, s: str) -> "Result":
        j = json.loads(s)

        def fr(o):
            return OutFrame(bytes.fromhex(o["data"]), o["aborted"], o["tvni"], o["tvni_valid"])

        return cls([fr(o) for o in j["host_out"]], [fr(o) for o in j["net_out"]], j.get("decap_counters", []),
                   j.get("encap_counters", []))


def rtl_available() -> bool:
    from wirespeed.paths import RTL

    return (RTL / "tunnel" / "vtep_top.sv").exists()


def run_rtl(job: Job, data_w: int = 256, workdir: Path | None = None) -> Result:
    """Run `job` through the RTL (cocotb + Verilator, tb/vtep/cocotb_vtep.py::test_replay).

    Uses its own build directory (build/cocotb/vtep_top_replay_W<w>), so it never races a
    concurrent tb/vtep run on the same build."""
    import fcntl
    import os

    from cocotb_tools.runner import get_results, get_runner

    from wirespeed.paths import BUILD, ROOT, rtl_sources, use_verilator_env

    wd = Path(workdir) if workdir else Path(tempfile.mkdtemp(prefix="vtep_job_"))
    wd.mkdir(parents=True, exist_ok=True)
    jp, rp = wd / "job.json", wd / "result.json"
    jp.write_text(job.to_json())
    if rp.exists():
        rp.unlink()
    use_verilator_env()
    build_dir = BUILD / "cocotb" / f"vtep_top_replay_W{data_w}"
    runner = get_runner("verilator")
    build_dir.mkdir(parents=True, exist_ok=True)
    with open(build_dir.parent / f".{build_dir.name}.lock", "w") as lock:  # xdist workers share it
        fcntl.flock(lock, fcntl.LOCK_EX)
        runner.build(sources=[str(s) for s in rtl_sources()], hdl_toplevel="vtep_top", build_dir=str(build_dir),
                     parameters={"DATA_W": data_w}, build_args=["-Wno-fatal", "--assert", "-O2", "-j", "2"],
                     always=False)
    results = runner.test(hdl_toplevel="vtep_top", test_module="cocotb_vtep", build_dir=str(build_dir),
                          test_dir=str(wd), testcase="test_replay", results_xml=str(wd / "results.xml"),
                          extra_env={"PYTHONPATH": os.pathsep.join([str(ROOT), str(HERE)]), ENV_JOB: str(jp),
                                     ENV_RESULT: str(rp)})
    _, failed = get_results(results)
    if failed or not rp.exists():
        raise RuntimeError(f"vtep_top replay failed; see {wd} and {build_dir}")
    return Result.from_json(rp.read_text())


def model_run(job: Job) -> Result:
    """What the golden model says `vtep_top` outputs for `job` (emitted frames, in order)."""
    from wirespeed.model.vxlan import EncapOutcome, decap, encap

    host_out, net_out = [], []
    dc = [0] * 13
    ec = [0] * len(EncapOutcome)
    for i, f in enumerate(job.net):
        r = decap(f, job.decap, bool(job.net_bad and job.net_bad[i]))
        dc[r.outcome] += 1
        if r.emit:
            host_out.append(OutFrame(r.output or b"", r.aborted, (r.vni or 0) if r.tvni_valid else 0, r.tvni_valid))
    for i, f in enumerate(job.host):
        r = encap(f, job.encap, bool(job.host_bad and job.host_bad[i]))
        ec[r.outcome] += 1
        if r.emit:
            net_out.append(OutFrame(r.output or b"", r.aborted))
    return Result(host_out, net_out, dc, ec)


__all__ = ["Job", "OutFrame", "Result", "run_rtl", "model_run", "rtl_available", "ENV_JOB", "ENV_RESULT"]
