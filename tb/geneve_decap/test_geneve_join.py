"""pytest entry: geneve_decap_classify's join with tap records of both wait_iw values queued
together in the tap queue's RAM (cocotb_geneve_join.py): frames through geneve_decap against
the model, the classifier's inputs and descriptors recorded, then replayed into the classifier
alone with the taps ahead of the beats, descriptors equal and the case covered, every width."""

from pathlib import Path

import pytest

from tb.common.runner import run_cocotb

HERE = Path(__file__).resolve().parent


@pytest.mark.parametrize("data_w", [64, 128, 256, 512])
def test_geneve_join(data_w: int, tmp_path: Path) -> None:
    env = {"GENEVE_JOIN_VECTORS": str(tmp_path / f"join_w{data_w}.json")}
    run_cocotb(toplevel="geneve_decap", test_module="cocotb_geneve_join", test_dir=HERE,
               parameters={"DATA_W": data_w}, extra_env=env, testcase="record_join_vectors")
    run_cocotb(toplevel="geneve_decap_classify", test_module="cocotb_geneve_join", test_dir=HERE,
               parameters={"DATA_W": data_w}, extra_env=env, testcase="replay_join_bursts")
