"""Test-only access to block_csr's counters (rtl/control/block_csr.sv): set a counter to a
value through the simulator, e.g. just below 2^32 to see it carry.

The outcome counters are words of two LUT-RAM copies (cnt_mem_a, read by the events;
cnt_mem_b, read by AXI4-Lite), {packets, bytes}, with a "reads as zero" flag per outcome
(cnt_zero_q); the TX counters are flip-flops, a low and an upper 32-bit half and the low half's
carry not yet added to the upper (tx_pkts_lo_q, tx_pkts_up_q, tx_pkts_c_q; tx_bytes_*). The
values are written at once (Immediate), so several calls in one time step see each other's
writes. block_csr
acts on a COUNTER_CLEAR two cycles after accepting it: set counters after that.
"""

from __future__ import annotations

from cocotb.handle import Immediate

TX_SLOT = 16
MASK64 = (1 << 64) - 1


def set_counter(csr, slot: int, which: str, value: int) -> None:
    """Counter `which` ('pkts' or 'bytes') of outcome `slot` (16: TX) of the block_csr
    instance `csr` becomes `value`; the other counter of the pair keeps its value."""
    assert which in ("pkts", "bytes"), which
    if slot == TX_SLOT:
        value &= MASK64
        getattr(csr, f"tx_{which}_lo_q").value = Immediate(value & 0xFFFF_FFFF)
        getattr(csr, f"tx_{which}_up_q").value = Immediate(value >> 32)
        getattr(csr, f"tx_{which}_c_q").value = Immediate(0)
        return
    zero = int(csr.cnt_zero_q.value) >> slot & 1
    word = 0 if zero else int(csr.cnt_mem_a[slot].value)
    if which == "pkts":
        word = (word & MASK64) | ((value & MASK64) << 64)
    else:
        word = (word & ~MASK64) | (value & MASK64)
    csr.cnt_mem_a[slot].value = Immediate(word)
    csr.cnt_mem_b[slot].value = Immediate(word)
    if zero:
        csr.cnt_zero_q.value = Immediate(int(csr.cnt_zero_q.value) & ~(1 << slot))
