"""pytest entry: hash_table (rtl/control/hash_table.sv) against wirespeed/table.py.

Configurations:
  * tunnel table geometry (KEY_W 45, VALUE_W 214) in a 256-slot table: every test;
  * VNI table geometry (KEY_W 24, VALUE_W 13) at the minimum size, 16 slots: every test;
  * widest registers (KEY_W 64: 2 full key words, VALUE_W 256: 8 value words), 7-bit window;
  * the default 32768-slot tunnel table at full load: 16384 entries written over AXI4-Lite,
    then all of them and 16384 absent keys looked up (test `full_load`), plus the register
    and command tests;
  * the tunnel geometry with LOOKUP_LATENCY = 4 (read words registered before the
    comparisons): every test, each lookup answered exactly 4 cycles later;
  * the VNI geometry with LOOKUP_LATENCY = 5 (also the way hits registered before the select,
    as vxlan_decap builds it): every test, each lookup answered exactly 5 cycles later;
  * the last two built as the ECP5 synthesis builds them (WIRESPEED_ECP5_EBR: ram_tdp_reg's
    DP16KD tiles, with tb/common/dp16kd_model.sv standing in for the primitive);
  * the tunnel geometry with LOOKUP_LATENCY = 7 and SDP_MEM = 1 (simple dual-port slot
    memories, the control side reading through the lookup's port; the words read landed in
    fabric registers before the comparisons, the select's first level registered; as
    vxlan_encap builds it):
    every test, inferred and as ECP5 tiles (its 36-bit pseudo-dual-port DP16KD tiles, with
    tb/common/dp16kd_model.sv standing in), and the VNI geometry with
    LOOKUP_LATENCY = 4 and SDP_MEM = 1 as tiles (the smallest table: 2 buckets per bank);
  * the VNI geometry with LOOKUP_LATENCY = 6 (the words landed, the select in one stage).
"""

from pathlib import Path

import pytest

from tb.common.runner import run_cocotb
from wirespeed.table import LOOKUP_LATENCY
from wirespeed.paths import RTL

HERE = Path(__file__).resolve().parent

from tb.common.sweep import full_sweep

ALL = None
BIG = ["registers", "commands", "full_load"]


@pytest.mark.parametrize(
    "slots, key_w, value_w, addr_w, full_n, latency, tests, tiles, sdp",
    [
        (256, 45, 214, 12, 0, LOOKUP_LATENCY, ALL, 0, 0),
        (16, 24, 13, 12, 0, LOOKUP_LATENCY, ALL, 0, 0),
        (32768, 45, 214, 12, 16384, LOOKUP_LATENCY, BIG, 0, 0),
        (256, 45, 214, 12, 0, 4, ALL, 0, 0),
        (16, 24, 13, 12, 0, 5, ALL, 0, 0),
        (256, 45, 214, 12, 0, 4, ALL, 1, 0),
        (16, 24, 13, 12, 0, 5, ALL, 1, 0),
        (256, 45, 214, 12, 0, 7, ALL, 0, 1),
        (256, 45, 214, 12, 0, 7, ALL, 1, 1),
        (16, 24, 13, 12, 0, 4, ALL, 1, 1),
        (16, 24, 13, 12, 0, 6, ALL, 0, 0),
    ] + ([(64, 64, 256, 7, 0, LOOKUP_LATENCY, ALL, 0, 0)] if full_sweep() else []),
    ids=["tunnel-256", "vni-16", "tunnel-32768-full", "tunnel-256-latency4",
         "vni-16-latency5", "tunnel-256-latency4-ecp5", "vni-16-latency5-ecp5",
         "tunnel-256-latency7-sdp", "tunnel-256-latency7-sdp-ecp5", "vni-16-latency4-sdp-ecp5",
         "vni-16-latency6"]
    + (["wide-64"] if full_sweep() else []),
)
def test_hash_table(slots: int, key_w: int, value_w: int, addr_w: int, full_n: int,
                    latency: int, tests, tiles: int, sdp: int) -> None:
    params = {"SLOTS": slots, "KEY_W": key_w, "VALUE_W": value_w, "ADDR_W": addr_w}
    if latency != LOOKUP_LATENCY:   # (the RTL's default: those builds stay as they were)
        params["LOOKUP_LATENCY"] = latency
    if sdp:
        params["SDP_MEM"] = 1
    model = HERE.parent / "common" / "dp16kd_model.sv"
    run_cocotb(
        toplevel="hash_table",
        test_module="hash_table_tb",
        test_dir=HERE,
        parameters=params,
        sources=([model] if tiles else [])
        + [RTL / "mem" / "ram_tdp_reg.sv", RTL / "mem" / "ram_sdp_reg.sv",
           RTL / "control" / "axil_reg_if.sv", RTL / "control" / "hash_table.sv"],
        defines={"WIRESPEED_ECP5_EBR": 1} if tiles else None,
        extra_env={"WS_SLOTS": str(slots), "WS_KEY_W": str(key_w), "WS_VALUE_W": str(value_w),
                   "WS_ADDR_W": str(addr_w), "WS_FULL_N": str(full_n),
                   "WS_LOOKUP_LATENCY": str(latency)},
        testcase=tests,
    )
