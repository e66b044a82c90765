"""Register maps and register writes by name, for ``wirespeed regs`` and ``wirespeed config``.

Everything printed here comes from :mod:`wirespeed.regmap`, the one source the RTL packages,
the harnesses' header and the docs tables are generated from.
"""

from __future__ import annotations

from wirespeed.regmap import BLOCKS, MAPS, AddressMap, Block, Register, Window

# What `wirespeed regs --block` takes: the two address spaces, then each block's own window.
CHOICES: tuple[str, ...] = tuple(MAPS) + tuple(b.replace("_", "-") for b in BLOCKS)


def lookup(choice: str) -> AddressMap:
    """The address map of a ``--block`` choice (a block alone: its window at 0)."""
    if choice in MAPS:
        return MAPS[choice]
    name = choice.replace("-", "_")
    if name not in BLOCKS:
        raise KeyError(f"no block {choice!r} (known: {', '.join(CHOICES)})")
    b = BLOCKS[name]
    return AddressMap(choice, b.name, (Window(0, b.name, b),))


def _reset(r: Register) -> str:
    if r.reset is None:
        return "param."
    return f"0x{r.reset:08X}" if r.name == "ID" else str(r.reset)


def _rows(w: Window, r: Register, expand: bool) -> list[tuple[int, str, str, str, str, str]]:
    """(sort key, address, name, access, reset, meaning) rows of one register: an array once
    (``0x0100 + 16*n``), or with ``expand`` element by element (outcome arrays by name)."""
    b = w.block
    if r.is_array and expand:
        rows = []
        for i in range(r.count):
            meaning = r.meaning
            if r.index == "outcome":
                o = b.outcomes[i]
                meaning = meaning.replace("outcome n", f"outcome {o.code} ({o.name})")
            a = w.base + r.address(i)
            rows.append((a, f"0x{a:04X}", b.index_name(r, i), r.access, _reset(r), meaning))
        return rows
    addr = f"0x{w.base + r.offset:04X}"
    name = r.name
    if r.is_array:
        idx = "n" if r.index == "outcome" else (r.index or "i")
        addr += f" + {r.stride}*{idx}"
        name += f"[{idx}]" + (", n = outcome code" if r.index == "outcome" else f", {idx} < {r.count}")
    return [(w.base + r.offset, addr, name, r.access, _reset(r), r.meaning)]


def render(m: AddressMap, expand: bool = False) -> str:
    """The map as a table: every register by name with address, access, reset and meaning,
    bit fields under their register, then each block's outcomes with their counters.
    ``expand`` lists every element of an array (the counters by outcome name)."""
    out: list[str] = []
    for w in m.windows:
        b = w.block
        title = m.top + (f" window {w.label} ({b.name})" if len(m.windows) > 1 else "")
        out.append(f"{title}: base 0x{w.base:04X}, 32-bit registers, byte addresses ({b.doc})")
        rows: list[tuple[int, str, str, str, str, str]] = []
        sub: dict[str, list[str]] = {}
        for r in b.registers:
            rows += _rows(w, r, expand)
            if r.fields and not r.is_array and (len(r.fields) > 1 or r.name == "CONTROL"):
                sub[r.name] = [f"{f.bits} {f.name}: {f.meaning}" for f in r.fields]
        rows.sort(key=lambda row: row[0])
        table = [("address", "name", "access", "reset", "meaning")] + [row[1:] for row in rows]
        widths = [max(len(row[i]) for row in table) for i in range(4)]
        indent = " " * (sum(widths) + 10)
        for row in table:
            out.append("  " + "  ".join(c.ljust(widths[i]) for i, c in enumerate(row[:4]))
                       + "  " + row[4])
            out += [indent + line for line in sub.get(row[1], [])]
        if b.outcomes:
            out.append(f"  outcomes of {b.name} (code n; CNT_PKTS_LO[n] address; action: meaning):")
            width = max(len(o.name) for o in b.outcomes)
            for o in b.outcomes:
                out.append(f"    {o.code:2d}  {o.name.ljust(width)}  "
                           f"0x{w.base + b.counter(o.name):04X}  {o.action}: {o.meaning}")
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def describe(m: AddressMap, address: int, value: int) -> str:
    """One write by name: ``CONTROL: ALLOW_ENABLE=1 ...`` or ``tunnel_table.TBL_KEY[0]``."""
    d = m.decode(address)
    if d is None:
        return "not a register of " + m.top
    name = d.name if len(m.windows) > 1 else d.window.block.index_name(d.register, d.index)
    bits = d.register.decode(value)
    return f"{name}: {bits}" if bits else name


def annotated(m: AddressMap, writes: list[tuple[int, int]]) -> str:
    """The harness's ``--regs`` text (``0xADDR 0xVALUE``), each write named in a comment."""
    return "".join(f"0x{a:04x} 0x{v:08x}  # {describe(m, a, v)}\n" for a, v in writes)


def block_of(choice: str) -> Block | None:
    """The block of a single-block choice, else None."""
    return BLOCKS.get(choice.replace("-", "_"))
