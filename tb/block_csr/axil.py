"""Hand-written AXI4-Lite master and protocol checker for the CSR benches (block_csr,
allow_list, axil_decode, and the blocks built from them).

The master drives one transaction at a time and controls the order and timing of AW, W, B,
AR and R per call, so the tests choose exactly which handshake orders and back-pressure the
slave sees. Every wait is bounded: a slave that never answers fails the test with "hang"
instead of stalling it.
"""

from __future__ import annotations

from cocotb.triggers import RisingEdge

from wirespeed.regmap import CNT_BASE, CNT_STRIDE

OKAY, EXOKAY, SLVERR, DECERR = 0, 1, 2, 3
TIMEOUT = 64  # cycles any handshake may take before the test calls it a hang


def cnt_addr(slot: int, reg: int) -> int:
    """block_csr counter register. reg: 0 PKTS_LO, 1 PKTS_HI, 2 BYTES_LO, 3 BYTES_HI;
    slot 16 = TX (0x200)."""
    return CNT_BASE + CNT_STRIDE * slot + 4 * reg


class Axil:
    """Minimal AXI4-Lite master on the signals `<prefix>_*` of `dut`."""

    def __init__(self, dut, prefix: str = "s_axil", clk=None, timeout: int = TIMEOUT):
        self.dut = dut
        self.clk = clk if clk is not None else dut.clk
        self.timeout = timeout
        self.s = {n: getattr(dut, f"{prefix}_{n}") for n in (
            "awaddr", "awprot", "awvalid", "awready", "wdata", "wstrb", "wvalid", "wready",
            "bresp", "bvalid", "bready", "araddr", "arprot", "arvalid", "arready",
            "rdata", "rresp", "rvalid", "rready")}
        for n in ("awvalid", "wvalid", "bready", "arvalid", "rready", "awaddr", "awprot",
                  "wdata", "wstrb", "araddr", "arprot"):
            self.s[n].value = 0

    async def write(self, addr, data, strb=0xF, aw_delay=0, w_delay=0, b_delay=0, prot=0) -> int:
        """One write; AW raised after aw_delay cycles, W after w_delay, BREADY after b_delay
        (counted from the start). Returns BRESP."""
        s = self.s
        s["awaddr"].value = addr
        s["awprot"].value = prot
        s["wdata"].value = data & 0xFFFFFFFF
        s["wstrb"].value = strb
        aw_done = w_done = False
        cyc = 0
        while not (aw_done and w_done):
            s["awvalid"].value = int(not aw_done and cyc >= aw_delay)
            s["wvalid"].value = int(not w_done and cyc >= w_delay)
            s["bready"].value = int(cyc >= b_delay)
            await RisingEdge(self.clk)
            if int(s["awvalid"].value) and int(s["awready"].value):
                aw_done = True
            if int(s["wvalid"].value) and int(s["wready"].value):
                w_done = True
            cyc += 1
            assert cyc < self.timeout + aw_delay + w_delay, f"write 0x{addr:04x}: AW/W hang"
        s["awvalid"].value = 0
        s["wvalid"].value = 0
        while True:
            s["bready"].value = int(cyc >= b_delay)
            await RisingEdge(self.clk)
            if int(s["bvalid"].value) and int(s["bready"].value):
                resp = int(s["bresp"].value)
                break
            cyc += 1
            assert cyc < self.timeout + b_delay, f"write 0x{addr:04x}: B hang"
        s["bready"].value = 0
        return resp

    async def read(self, addr, r_delay=0, prot=0) -> tuple[int, int]:
        """One read; RREADY raised after r_delay cycles. Returns (RDATA, RRESP)."""
        s = self.s
        s["araddr"].value = addr
        s["arprot"].value = prot
        s["arvalid"].value = 1
        cyc = 0
        while True:
            s["rready"].value = int(cyc >= r_delay)
            await RisingEdge(self.clk)
            cyc += 1
            if int(s["arvalid"].value) and int(s["arready"].value):
                break
            assert cyc < self.timeout, f"read 0x{addr:04x}: AR hang"
        s["arvalid"].value = 0
        while True:
            s["rready"].value = int(cyc >= r_delay)
            await RisingEdge(self.clk)
            if int(s["rvalid"].value) and int(s["rready"].value):
                out = (int(s["rdata"].value), int(s["rresp"].value))
                break
            cyc += 1
            assert cyc < self.timeout + r_delay, f"read 0x{addr:04x}: R hang"
        s["rready"].value = 0
        return out

    async def rd(self, addr, **kw) -> int:
        data, resp = await self.read(addr, **kw)
        assert resp == OKAY, f"read 0x{addr:04x}: resp {resp}"
        return data

    async def wr(self, addr, data, **kw) -> None:
        resp = await self.write(addr, data, **kw)
        assert resp == OKAY, f"write 0x{addr:04x}: resp {resp}"

    async def rd64(self, slot, which) -> int:
        """block_csr counter: which 0 packets, 1 bytes. LO first (latches HI), then HI."""
        lo = await self.rd(cnt_addr(slot, 2 * which))
        hi = await self.rd(cnt_addr(slot, 2 * which + 1))
        return (hi << 32) | lo


async def protocol_checker(dut, prefix: str = "s_axil", clk=None):
    """Slave-side rules on `<prefix>_*`: B never precedes its AW and W; R never precedes its
    AR; BVALID/RVALID and their payload hold until taken."""
    clk = clk if clk is not None else dut.clk

    def sig(n):
        return getattr(dut, f"{prefix}_{n}")

    aw = w = b = ar = r = 0
    prev_b = prev_r = None
    while True:
        await RisingEdge(clk)
        aw += int(sig("awvalid").value) & int(sig("awready").value)
        w += int(sig("wvalid").value) & int(sig("wready").value)
        ar += int(sig("arvalid").value) & int(sig("arready").value)
        bv, rv = int(sig("bvalid").value), int(sig("rvalid").value)
        if prev_b is not None and prev_b[0] and not prev_b[1]:
            assert bv and int(sig("bresp").value) == prev_b[2], f"{prefix}: B dropped or changed before ready"
        if prev_r is not None and prev_r[0] and not prev_r[1]:
            assert rv and (int(sig("rdata").value), int(sig("rresp").value)) == prev_r[2], \
                f"{prefix}: R dropped or changed before ready"
        assert b + bv <= min(aw, w), f"{prefix}: B before AW and W"
        assert r + rv <= ar, f"{prefix}: R before AR"
        bh = bv & int(sig("bready").value)
        rh = rv & int(sig("rready").value)
        prev_b = (bv, bh, int(sig("bresp").value) if bv else 0)
        prev_r = (rv, rh, (int(sig("rdata").value), int(sig("rresp").value)) if rv else (0, 0))
        b += bh
        r += rh
