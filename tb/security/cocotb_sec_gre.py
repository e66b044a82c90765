"""Security properties of rtl/tunnel/gre_decap.sv (issue #5, section 3), cocotb + cocotbext-axi,
scapy frames, the golden model (wirespeed/model/gre.py) for the expected bytes.

  injection   allow-list on with four pairs: every single-bit flip of each pair's source and of
              its destination, swapped and crossed pairs, an invalid entry holding a spoofed pair,
              random spoofed sources, IPv6 outers: none decapsulated (DROP_NOT_ALLOWED, no
              output, counters), the listed pairs are.
  isolation   jumbo frames followed by short ones with every partial last beat, an aborted
              jumbo, PASS frames: every output frame equals the model byte for byte and every
              output byte lane with tkeep = 0 is 0x00.
  control     unmapped and read-only addresses answer SLVERR within a bounded number of cycles
              while traffic runs at full rate, and the traffic is unaffected; an allow-list entry
              rewritten A <-> B under traffic (VALID=0, SRC, DST, VALID=1) never admits a torn
              (A.src, B.dst) / (B.src, A.dst) pair.
  counters    64-bit counters: a counter set near 2^32 through the simulator (backdoor) carries
              into the high word as read over AXI4-Lite (LO latches HI), no 32-bit wrap.

Every test also reads the bound protocol monitors (gre_decap.mon_s_axis / mon_m_axis) to show
they saw the traffic.
"""

from __future__ import annotations

import random

import cocotb
from cocotb.triggers import ClockCycles, RisingEdge
from cocotbext.axi import AxiStreamFrame

from gre_tb import REG_ALLOW_BASE, REG_CNT_BASE, REG_CONTROL, REG_COUNTER_CLEAR, REG_TX_BASE, Harness
from tb.block_csr.backdoor import TX_SLOT, set_counter
from sec_util import ControlAttack, KeepZeroChecker, gre_pkt, ip4, monitor_counts, plain_pkt, set_outer_v4
from wirespeed.model import frames as F
from wirespeed.model.frames import Case
from wirespeed.model.gre import GreConfig, Outcome, gre_decap

ALLOW_ENTRIES = 64
PAIRS = [(0x0A010203, 0xC0A80709), (0xAC100001, 0xAC100002), (0xC0A80001, 0x08080808), (0x01020304, 0x05060708)]
SLOTS = [0, 17, 42, 63]   # allow-list entries holding PAIRS (the others invalid)
DECOY_SLOT = 5            # holds a spoofed pair with VALID = 0
DECOY = (0x0A0A0A0A, 0x0B0B0B0B)


async def setup(dut) -> Harness:
    h = Harness(dut)
    await h.reset()
    return h


async def program_allow(h: Harness, cfg: GreConfig) -> None:
    for i in range(ALLOW_ENTRIES):
        await h.write32(REG_ALLOW_BASE + 16 * i + 8, 0)
    for slot, (s, d) in zip(SLOTS, PAIRS):
        await h.write32(REG_ALLOW_BASE + 16 * slot + 0, s)
        await h.write32(REG_ALLOW_BASE + 16 * slot + 4, d)
        await h.write32(REG_ALLOW_BASE + 16 * slot + 8, 1)
    await h.write32(REG_ALLOW_BASE + 16 * DECOY_SLOT + 0, DECOY[0])
    await h.write32(REG_ALLOW_BASE + 16 * DECOY_SLOT + 4, DECOY[1])   # VALID stays 0
    await h.write32(REG_CONTROL, cfg.control)


def injection_cases(rng: random.Random, n_random: int) -> list[Case]:
    """Spoofed and listed frames, shuffled. Each listed pair gets scapy-built frames of several
    flavours (IPv4 or Ethernet payload, key, 802.1Q); the spoofed ones are those frames
    re-addressed (every single-bit flip of the source and of the destination, swapped, crossed,
    random sources), so the frames differ from a listed one only in the outer addresses."""
    allowed = set(PAIRS)
    cases: list[Case] = []
    flavours = [dict(), dict(teb=True, key=True), dict(vlan=100, key=True), dict(teb=True, vlan=4094)]
    base = {p: [gre_pkt(rng, s, d, rng.randint(40, 120), **fl) for fl in flavours]
            for p, (s, d) in enumerate(PAIRS)}

    def spoof(p, s, d, kind):
        assert (s, d) not in allowed
        cases.append(Case(set_outer_v4(rng.choice(base[p]), s, d), False, "spoof-" + kind))

    for p, (s, d) in enumerate(PAIRS):
        for f in base[p]:
            cases.append(Case(f, False, "allowed"))
        for bit in range(32):
            for _ in range(2):
                spoof(p, s ^ (1 << bit), d, f"src-bit{bit}")
                spoof(p, s, d ^ (1 << bit), f"dst-bit{bit}")
            if bit % 2 == 0:
                cases.append(Case(rng.choice(base[p]), False, "allowed"))
        spoof(p, d, s, "swapped")
        for q, (s2, d2) in enumerate(PAIRS):
            if q != p:
                spoof(p, s, d2, "crossed")
                spoof(p, s2, d, "crossed")
    for _ in range(4):
        spoof(0, *DECOY, "invalid-entry")
    for i in range(n_random):
        p = i % len(PAIRS)
        d = PAIRS[p][1] if i % 2 == 0 else rng.getrandbits(32)
        s = rng.getrandbits(32)
        if (s, d) not in allowed:
            spoof(p, s, d, "random-src")
    for i in range(40):   # IPv6 outer, including v4-mapped and v4-compatible forms of listed pairs
        s, d = PAIRS[i % len(PAIRS)]
        forms = [(f"::ffff:{ip4(s)}", f"::ffff:{ip4(d)}"), (f"::{ip4(s)}", f"::{ip4(d)}"),
                 (f"2001:db8::{i:x}", f"2001:db8:1::{i:x}")]
        a, b = forms[i % 3]
        cases.append(Case(gre_pkt(rng, a, b, rng.randint(40, 120), v6=True, teb=i % 2 == 1), False, "spoof-ipv6"))
    rng.shuffle(cases)
    return cases


@cocotb.test()
async def injection(dut):
    """Allow-list: nothing unlisted is ever decapsulated; the listed pairs are."""
    h = await setup(dut)
    cfg = GreConfig(allow_enable=True, allow=PAIRS)
    await program_allow(h, cfg)
    await h.clear_counters()
    rng = random.Random(0x5EC + h.data_w)
    cases = injection_cases(rng, n_random=1500)
    n_spoof = sum(c.kind.startswith("spoof") for c in cases)
    n_good = len(cases) - n_spoof
    stat0 = len(h.stats)
    rx0 = monitor_counts(dut.mon_m_axis)[0]
    errs = await h.run_cases(cases, cfg, idle=0.2, stall=0.3, seed=7, label="injection")
    stats = h.stats[stat0:]
    assert len(stats) == len(cases), f"{len(stats)} statuses for {len(cases)} frames"
    # The property itself, independently of the model's opinion.
    leaks = [(i, c.kind, Outcome(s.outcome).name) for i, (c, s) in enumerate(zip(cases, stats))
             if c.kind.startswith("spoof") and (s.emit or s.outcome != Outcome.DROP_NOT_ALLOWED)]
    missed = [(i, Outcome(s.outcome).name) for i, (c, s) in enumerate(zip(cases, stats))
              if c.kind == "allowed" and (not s.emit or s.outcome not in (Outcome.DECAP_L3, Outcome.DECAP_TEB))]
    assert not leaks, f"{len(leaks)} unlisted frames not dropped as DROP_NOT_ALLOWED, first: {leaks[:5]}"
    assert not missed, f"{len(missed)} listed frames not decapsulated, first: {missed[:5]}"
    pkts, _, tx_p, _ = await h.counters()
    assert pkts[Outcome.DROP_NOT_ALLOWED] == n_spoof, (pkts[Outcome.DROP_NOT_ALLOWED], n_spoof)
    assert pkts[Outcome.DECAP_L3] + pkts[Outcome.DECAP_TEB] == n_good == tx_p
    errs += await h.check_counters("injection")
    assert not errs, f"{len(errs)} mismatches against the model, first: {errs[0]}"
    assert monitor_counts(dut.mon_m_axis)[0] - rx0 == n_good
    dut._log.info("injection: %d spoofed frames dropped, %d listed decapsulated", n_spoof, n_good)


def isolation_cases(rng: random.Random, keep_w: int) -> list[Case]:
    """Long frames, each followed by short ones whose (input and output) last beats end at every
    byte position of the bus; an aborted jumbo; PASS frames long and short."""
    cases: list[Case] = []
    s, d = PAIRS[0]
    for r in range(3):
        big = rng.choice([9000, 9600 - 60, 4000 + rng.randrange(keep_w)])
        if r == 1:
            cases.append(Case(plain_pkt(rng, big), False, "jumbo-pass"))
        else:
            cases.append(Case(gre_pkt(rng, s, d, big - 38, teb=r == 2), r == 2, "jumbo-gre"))  # r=2: RX error, aborted
        for k in range(keep_w + 1):
            # GRE: output = input - 24 bytes (IPv4 outer + GRE), so both sides get every residue.
            cases.append(Case(gre_pkt(rng, s, d, 40 + k + (r * 7) % keep_w, key=k % 3 == 0), False, "short-gre"))
            cases.append(Case(plain_pkt(rng, 60 + k), False, "short-pass"))
    return cases


@cocotb.test()
async def isolation(dut):
    """Nothing of an earlier frame in a later one: frames equal the model, empty lanes are 0."""
    h = await setup(dut)
    chk = KeepZeroChecker(dut, "m_axis")
    cfg = GreConfig()
    await h.write32(REG_CONTROL, cfg.control)
    await h.clear_counters()
    rng = random.Random(0x150 + h.data_w)
    cases = isolation_cases(rng, h.keep_w)
    errs = await h.run_cases(cases, cfg, idle=0.1, stall=0.4, seed=11, label="isolation")
    errs += await h.check_counters("isolation")
    assert not errs, f"{len(errs)} mismatches against the model, first: {errs[0]}"
    assert chk.partial_beats >= h.keep_w, chk.partial_beats
    assert not chk.errors, "\n".join(chk.errors)
    dut._log.info("isolation: %d frames, %d output beats, %d partial, empty lanes all zero",
                  len(cases), chk.beats, chk.partial_beats)


UNMAPPED = [0x0010, 0x0014, 0x00FC, 0x0300, 0x0FFC, 0x1000 + 16 * ALLOW_ENTRIES, 0x1FFC, 0x2000, 0x4000,
            0x8000, 0xFFFC]
READ_ONLY = [0x0000, 0x0004, REG_CNT_BASE, REG_CNT_BASE + 4, REG_CNT_BASE + 16 * 2 + 8, REG_CNT_BASE + 16 * 13 + 12,
             REG_TX_BASE, REG_TX_BASE + 12]


@cocotb.test()
async def control_slverr_under_traffic(dut):
    """SLVERR for unmapped / read-only accesses within RESP_LIMIT cycles, at full traffic; the
    traffic and the counters are exactly the model's."""
    h = await setup(dut)
    cfg = GreConfig()
    await h.write32(REG_CONTROL, cfg.control)
    await h.clear_counters()
    rng = random.Random(0xC7 + h.data_w)
    cases = [F.random_gre_case(rng, max_len=2000, big=0.05) for _ in range(250)]
    atk = ControlAttack(h, rng, UNMAPPED, READ_ONLY, 0x0000, 0x57534731)
    task = cocotb.start_soon(atk.run())
    errs = await h.run_cases(cases, cfg, idle=0.0, stall=0.0, seed=3, label="control")
    atk.done = True
    await task
    assert not atk.bad, atk.bad[:10]
    assert atk.counts["slverr"] >= 40, atk.counts
    errs += await h.check_counters("control")
    assert not errs, f"{len(errs)} mismatches against the model, first: {errs[0]}"
    dut._log.info("control: %d SLVERR answers (slowest %d cycles), %d OKAY, %d frames unaffected",
                  atk.counts["slverr"], atk.counts["max"], atk.counts["okay"], len(cases))


@cocotb.test()
async def allow_list_update_under_traffic(dut):
    """Entry 0 rewritten A <-> B as the contract says (VALID=0, SRC, DST, VALID=1) while frames
    of A, B and the torn pairs (A.src, B.dst), (B.src, A.dst) flow back to back: a torn pair is
    never decapsulated; A and B frames are either decapsulated exactly as the model says or
    dropped as DROP_NOT_ALLOWED."""
    h = await setup(dut)
    A, B = (0x0A000001, 0x0A000002), (0xC0A80101, 0xC0A80202)
    torn = [(A[0], B[1]), (B[0], A[1])]
    await h.write32(REG_ALLOW_BASE + 0, A[0])
    await h.write32(REG_ALLOW_BASE + 4, A[1])
    await h.write32(REG_ALLOW_BASE + 8, 1)
    await h.write32(REG_CONTROL, 1)
    rng = random.Random(0xAB + h.data_w)
    kinds = []
    frames = []
    # A SRC/DST write takes 13 + 2 * NCHUNK * (ENTRIES + 3) cycles (allow_list.sv: the table
    # words rebuilt one at a time, the entry off meanwhile); a rewrite is two of them, and the
    # new pair then stays up to two write times. The traffic lasts at least four rewrites
    # (frames of ~100 bytes back to back).
    write_cycles = 13 + 2 * 7 * (64 + 3)
    n_frames = max(500, 4 * (4 * write_cycles + 40) * (h.data_w // 8) // 100)
    for i in range(n_frames):
        k = rng.choice(["A", "B", "T0", "T1"])
        s, d = {"A": A, "B": B, "T0": torn[0], "T1": torn[1]}[k]
        kinds.append(k)
        frames.append(gre_pkt(rng, s, d, rng.randint(30, 90), key=rng.random() < 0.5))
    done = False
    rewrites = 0

    async def rewrite():
        nonlocal rewrites
        cur = A
        while not done:
            cur = B if cur == A else A
            await h.write32(REG_ALLOW_BASE + 8, 0)
            await h.write32(REG_ALLOW_BASE + 0, cur[0])
            await h.write32(REG_ALLOW_BASE + 4, cur[1])
            await h.write32(REG_ALLOW_BASE + 8, 1)
            rewrites += 1
            await ClockCycles(dut.clk, rng.randrange(0, 2 * write_cycles))

    h.unpause()   # full rate: no idle, no backpressure
    stat0 = len(h.stats)
    task = cocotb.start_soon(rewrite())
    for f in frames:
        await h.src.send(AxiStreamFrame(f, tuser=0))
    rx = []
    for _ in range(100000):
        await RisingEdge(dut.clk)
        while not h.snk.empty():
            rx.append(h.snk.recv_nowait())
        if len(h.stats) - stat0 >= len(frames) and h.src.idle():
            break
    await ClockCycles(dut.clk, 100)
    while not h.snk.empty():
        rx.append(h.snk.recv_nowait())
    done = True
    await task
    h.unpause()
    stats = h.stats[stat0:]
    assert len(stats) == len(frames)
    emitted = [i for i, s in enumerate(stats) if s.emit]
    assert len(rx) == len(emitted), (len(rx), len(emitted))
    tally = {k: [0, 0] for k in ("A", "B", "T0", "T1")}
    errs = []
    for i, (k, s) in enumerate(zip(kinds, stats)):
        tally[k][int(s.emit)] += 1
        if k.startswith("T"):
            if s.emit or s.outcome != Outcome.DROP_NOT_ALLOWED:
                errs.append(f"torn pair frame #{i} ({k}): {Outcome(s.outcome).name} emit={int(s.emit)}")
        elif s.outcome not in (Outcome.DECAP_L3, Outcome.DROP_NOT_ALLOWED) or s.emit != (s.outcome == Outcome.DECAP_L3):
            errs.append(f"frame #{i} ({k}): {Outcome(s.outcome).name} emit={int(s.emit)}")
    for j, i in enumerate(emitted):
        pair = A if kinds[i] == "A" else B
        want = gre_decap(frames[i], GreConfig(allow_enable=True, allow=[pair]), False, h.keep_w)
        if bytes(rx[j].tdata) != want.output:
            errs.append(f"frame #{i} ({kinds[i]}): output differs from the model")
    assert not errs, f"{len(errs)} problems, first: {errs[:5]}"
    # The race was real: the entry changed many times, and A and B frames were both admitted
    # and refused while it did.
    assert rewrites >= 4, rewrites
    for k in ("A", "B"):
        assert tally[k][0] > 0 and tally[k][1] > 0, tally
    dut._log.info("allow-list rewrites under traffic: %d rewrites, tally (dropped, decapsulated) %s",
                  rewrites, tally)


@cocotb.test()
async def counters_64bit(dut):
    """Counters are 64 bits: one set just below 2^32 (backdoor into block_csr) carries into the
    high word as read over AXI4-Lite; bytes too; TX too; COUNTER_CLEAR zeroes all 64 bits."""
    h = await setup(dut)
    await h.write32(REG_CONTROL, 0)
    await h.clear_counters()
    await ClockCycles(dut.clk, 2)  # block_csr acts on a clear two cycles after accepting it
    n = Outcome.DECAP_L3
    base_p, base_b = (1 << 32) - 3, (1 << 32) - 100
    set_counter(dut.shell.csr, int(n), "pkts", base_p)
    set_counter(dut.shell.csr, int(n), "bytes", base_b)
    set_counter(dut.shell.csr, TX_SLOT, "pkts", (1 << 32) - 1)
    set_counter(dut.shell.csr, TX_SLOT, "bytes", (5 << 32) - 7)
    await ClockCycles(dut.clk, 2)
    assert await h.read64(REG_CNT_BASE + 16 * n) == base_p
    rng = random.Random(64)
    frames = [gre_pkt(rng, 0x0A000001, 0x0A000002, 60) for _ in range(5)]
    cfg = GreConfig()
    model = [gre_decap(f, cfg, False, h.keep_w) for f in frames]
    assert all(m.outcome == n for m in model)
    errs = await h.run_cases([Case(f, False, "gre") for f in frames], cfg, label="counters")
    assert not errs, errs[0]
    pkts = await h.read64(REG_CNT_BASE + 16 * n)
    byts = await h.read64(REG_CNT_BASE + 16 * n + 8)
    assert pkts == base_p + 5, hex(pkts)
    assert byts == base_b + sum(len(f) for f in frames), hex(byts)
    assert pkts >> 32 == 1 and byts >> 32 == 1
    assert await h.read64(REG_TX_BASE) == (1 << 32) - 1 + 5
    assert await h.read64(REG_TX_BASE + 8) == (5 << 32) - 7 + sum(len(m.output) for m in model)
    await h.write32(REG_COUNTER_CLEAR, 1)
    assert await h.read64(REG_CNT_BASE + 16 * n) == 0
    assert await h.read64(REG_TX_BASE + 8) == 0
