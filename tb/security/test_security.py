"""pytest entry: the security properties of issue #5 (tb/security/cocotb_sec_*.py) against the
real tops, gre_decap and vtep_top.

Isolation runs at every bus width; injection, control-interface and table-update tests at 64
bits (the most beats per header, addresses split across beats) and 256 bits (the default).
The builds are the ones tb/gre_decap and tb/vtep use (same top, parameters and sources, with
the AXI4-Stream monitors of rtl/sim bound in).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tb.common.runner import run_cocotb
from wirespeed.paths import RTL

HERE = Path(__file__).resolve().parent
TB = HERE.parent

GRE_TESTS = {
    64: ["injection", "isolation", "control_slverr_under_traffic", "allow_list_update_under_traffic",
         "counters_64bit"],
    128: ["isolation"],
    256: ["injection", "isolation", "control_slverr_under_traffic", "allow_list_update_under_traffic"],
    512: ["isolation"],
}
VTEP_TESTS = {
    64: ["vni_injection", "isolation", "control", "table_updates"],
    128: ["isolation"],
    256: ["vni_injection", "isolation", "control", "table_updates", "cuckoo_moves_under_traffic",
          "counters_64bit"],
    512: ["isolation"],
}


# The benches import the harnesses of tb/gre_decap (gre_tb) and tb/vtep (vtep_tb). cocotb's
# runner hands the simulator this process's sys.path as PYTHONPATH, so they go there.
for _p in (HERE, TB / "gre_decap", TB / "vtep"):
    if str(_p) not in sys.path:
        sys.path.append(str(_p))


@pytest.mark.parametrize("data_w", sorted(GRE_TESTS))
def test_security_gre_decap(data_w: int) -> None:
    run_cocotb(toplevel="gre_decap", test_module="cocotb_sec_gre", test_dir=HERE,
               parameters={"DATA_W": data_w}, testcase=",".join(GRE_TESTS[data_w]))


@pytest.mark.skipif(not (RTL / "tunnel" / "vtep_top.sv").exists(), reason="no vtep_top.sv")
@pytest.mark.parametrize("data_w", sorted(VTEP_TESTS))
def test_security_vtep(data_w: int) -> None:
    run_cocotb(toplevel="vtep_top", test_module="cocotb_sec_vtep", test_dir=HERE,
               parameters={"DATA_W": data_w}, testcase=",".join(VTEP_TESTS[data_w]))
