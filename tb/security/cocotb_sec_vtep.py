"""Security properties of rtl/tunnel/vtep_top.sv (issue #5, section 3), cocotb + cocotbext-axi,
scapy frames, the golden model (wirespeed/model/vxlan.py) for the expected bytes.

  vni_injection  VNI table on with four VNIs: every VNI one bit away from each (24 flips, outer
                 IPv4, 802.1Q-tagged outer, IPv6 outer) and random VNIs are never
                 decapsulated (DROP_UNKNOWN_VNI, no output, counters); the listed ones are.
  isolation      jumbo frames followed by short ones with every partial last beat, both
                 directions at once: every output frame equals the model byte for byte and
                 every byte lane with tkeep = 0 is 0x00, on m_host_axis and m_net_axis.
  control        unmapped and read-only addresses of every window answer SLVERR within a bounded
                 number of cycles while both directions run at full rate; traffic unaffected.
  table_updates  a VNI-table entry and a tunnel-table entry rewritten A <-> B continuously while
                 frames flow: every frame's output equals the model's output for A or for B,
                 never a mix (the tunnel value is 7 register words).
  cuckoo_moves_under_traffic  VNIs inserted into full buckets while resident VNIs' frames
                 flow: every relocation keeps every resident decapsulated with its own value.
  counters       a 64-bit counter set near 2^32 (backdoor) carries into its high word.
"""

from __future__ import annotations

import copy
import random

import cocotb
from cocotb.triggers import ClockCycles

from tb.block_csr.backdoor import TX_SLOT, set_counter
from sec_util import ControlAttack, KeepZeroChecker, monitor_counts
from vtep_tb import DECAP, DECAP_ID, ENCAP, REG_CNT, REG_COUNTER_CLEAR, REG_TX, TUN_TBL, VNI_TBL, \
    Case, Harness
from wirespeed.model import vxlan_frames as VF
from wirespeed.model.vxlan import DecapConfig, DecapOutcome, EncapConfig, EncapOutcome, Tunnel, decap, encap
from wirespeed.table import bucket_indices, pack_tunnel, pack_vni, tunnel_key

VNIS = {42: (100, True), 0x123456: (0, False), 0xABCDEF: (7, True), 0x800001: (4095, False)}


async def setup(dut) -> Harness:
    h = Harness(dut)
    await h.reset()
    return h


def vxf(rng: random.Random, vni: int, inner_len: int, **kw) -> VF.VxlanFrame:
    """A scapy-built VXLAN frame (wirespeed.model.vxlan_frames.vxlan_frame)."""
    inner = VF.inner_frame(rng, inner_len, kind=rng.choice(("tcp4", "udp4", "tcp6", "arp")))
    return VF.vxlan_frame(vni, inner, **kw)


def vx(rng: random.Random, vni: int, inner_len: int, **kw) -> bytes:
    return vxf(rng, vni, inner_len, **kw).frame


def with_vni(f: VF.VxlanFrame, vni: int) -> bytes:
    """`f` with another VNI, its UDP checksum (when not zero) recomputed: the frame differs from
    `f` in the VNI only, as a spoofed frame would."""
    b = bytearray(f.frame)
    b[f.U + 12:f.U + 15] = vni.to_bytes(3, "big")
    if b[f.U + 6] or b[f.U + 7]:
        c = VF.udp_checksum(bytes(b), f.L2, f.U, f.v6)
        b[f.U + 6], b[f.U + 7] = c >> 8, c & 0xFF
    return bytes(b)


@cocotb.test()
async def vni_injection(dut):
    """No frame of an unlisted VNI is decapsulated; the listed VNIs are."""
    h = await setup(dut)
    dcfg, ecfg = DecapConfig(vni_table=VNIS), EncapConfig()
    await h.configure(dcfg, ecfg)
    rng = random.Random(0x5EC + h.data_w)
    net: list[Case] = []
    outers = [dict(), dict(tags=(("q", 300),)), dict(v6=True, outer_src="2001:db8::1", outer_dst="2001:db8::2")]
    # Scapy-built frames of every listed VNI and outer flavour; the spoofed frames are these
    # with the VNI changed (one bit away, or random) and the UDP checksum kept valid.
    base = {vni: [vxf(rng, vni, rng.randint(40, 140), **o) for o in outers for _ in range(2)] for vni in VNIS}
    for vni in VNIS:
        for f in base[vni]:
            net.append(Case(f.frame, False, "allowed"))
        for bit in range(24):
            bad = vni ^ (1 << bit)
            assert bad not in VNIS
            for k in range(len(outers)):
                net.append(Case(with_vni(base[vni][2 * k + (bit & 1)], bad), False, "spoof-vni"))
    for i in range(1500):
        v = rng.getrandbits(24)
        if v not in VNIS:
            net.append(Case(with_vni(rng.choice(base[list(VNIS)[i % len(VNIS)]]), v), False, "spoof-vni"))
    rng.shuffle(net)
    n_spoof = sum(c.kind == "spoof-vni" for c in net)
    before = await h.snapshot()
    mark = len(h.decap_results)
    st0 = len(h.stats["decap"])
    errs, host_rx, _, tv = await h.run(net, [], dcfg, ecfg, idle=0.2, stall=0.3, seed=9, label="vni_injection")
    stats = h.stats["decap"][st0:]
    assert len(stats) == len(net)
    leaks = [(i, DecapOutcome(s.outcome).name) for i, (c, s) in enumerate(zip(net, stats))
             if c.kind == "spoof-vni" and (s.emit or s.outcome != DecapOutcome.DROP_UNKNOWN_VNI)]
    missed = [(i, DecapOutcome(s.outcome).name) for i, (c, s) in enumerate(zip(net, stats))
              if c.kind == "allowed" and (not s.emit or s.outcome != DecapOutcome.DECAP)]
    assert not leaks, f"{len(leaks)} frames of unlisted VNIs not dropped as DROP_UNKNOWN_VNI: {leaks[:5]}"
    assert not missed, f"{len(missed)} frames of listed VNIs not decapsulated: {missed[:5]}"
    assert all(t.tvni <= set(VNIS) and t.tvni_valid == {1} for t in tv), "a host frame with an unlisted VNI"
    assert len(host_rx) == len(net) - n_spoof
    errs += await h.check_counters(before, h.decap_results[mark:], [], "vni_injection")
    after = await h.snapshot()
    assert after[0][0][DecapOutcome.DROP_UNKNOWN_VNI] - before[0][0][DecapOutcome.DROP_UNKNOWN_VNI] == n_spoof
    assert not errs, f"{len(errs)} mismatches against the model, first: {errs[0]}"
    dut._log.info("vni_injection: %d unlisted-VNI frames dropped, %d decapsulated", n_spoof, len(host_rx))


def _tunnels(rng: random.Random) -> dict:
    return VF.random_tunnels(rng, 8, tagged=0.5)


@cocotb.test()
async def isolation(dut):
    """Jumbo then short frames, both directions: frames equal the model, empty lanes are 0."""
    h = await setup(dut)
    rng = random.Random(0x150 + h.data_w)
    tunnels = _tunnels(rng)
    dcfg = DecapConfig(vni_table={42: (100, True), 43: (0, False)})
    ecfg = EncapConfig(tunnels=tunnels)
    await h.configure(dcfg, ecfg)
    chk_host = KeepZeroChecker(dut, "m_host_axis")
    chk_net = KeepZeroChecker(dut, "m_net_axis")
    kw = h.keep_w
    keys = list(tunnels)
    net, host = [], []
    for r in range(3):
        net.append(Case(vx(rng, 42 + (r & 1), 9000 - 50 - 4 * r), r == 2, "jumbo"))   # r=2: RX error
        if r == 1:
            net.append(Case(VF.inner_frame(rng, 9000, kind="udp4"), False, "jumbo-pass"))
        vid, dst = keys[r % len(keys)]
        host.append(Case(VF.host_frame(rng, dst, vid, 9000 - r), r == 2, "jumbo"))
        for k in range(kw + 1):
            net.append(Case(vx(rng, 42 + (k & 1), 46 + k + r), False, "short"))
            vid, dst = keys[(k + r) % len(keys)]
            host.append(Case(VF.host_frame(rng, dst, vid, 60 + k + r), False, "short"))
    before = await h.snapshot()
    md, me = len(h.decap_results), len(h.encap_results)
    errs, *_ = await h.run(net, host, dcfg, ecfg, idle=0.1, stall=0.4, seed=13, label="isolation")
    errs += await h.check_counters(before, h.decap_results[md:], h.encap_results[me:], "isolation")
    assert not errs, f"{len(errs)} mismatches against the model, first: {errs[0]}"
    for chk in (chk_host, chk_net):
        assert chk.partial_beats >= kw, (chk.prefix, chk.partial_beats)
        assert not chk.errors, "\n".join(chk.errors)
    dut._log.info("isolation: host %d beats (%d partial), net %d beats (%d partial), empty lanes all zero",
                  chk_host.beats, chk_host.partial_beats, chk_net.beats, chk_net.partial_beats)


UNMAPPED = [0x4000, 0x8000, 0xFFFC, DECAP + 0x0FFC, DECAP + 0x018, DECAP + 0x300, DECAP + 0x100 + 16 * 13,
            ENCAP + 0x0FFC, ENCAP + 0x010, ENCAP + 0x100 + 16 * 6, VNI_TBL + 0x0FFC, TUN_TBL + 0x0FFC]
READ_ONLY = [DECAP + 0x000, DECAP + 0x004, ENCAP + 0x000, DECAP + REG_CNT, DECAP + REG_CNT + 4, ENCAP + REG_CNT + 8,
             DECAP + REG_TX, ENCAP + REG_TX + 12, VNI_TBL + 0x000, VNI_TBL + 0x004, VNI_TBL + 0x008, TUN_TBL + 0x014]


@cocotb.test()
async def control(dut):
    """SLVERR within RESP_LIMIT cycles on every window while both directions run at full rate;
    the traffic and the counters are exactly the model's."""
    h = await setup(dut)
    rng = random.Random(0xC7 + h.data_w)
    tunnels = _tunnels(rng)
    dcfg, ecfg = DecapConfig(vni_table=dict(VNIS)), EncapConfig(tunnels=tunnels)
    await h.configure(dcfg, ecfg)
    net = [Case(c.frame, c.bad, c.kind) for c in
           (VF.random_vxlan_case(rng, max_len=2000, big=0.05, vnis=list(VNIS)) for _ in range(150))]
    host = [Case(c.frame, c.bad, c.kind) for c in
            (VF.random_host_frame(rng, tunnels, max_len=2000) for _ in range(150))]
    atk = ControlAttack(h, rng, UNMAPPED, READ_ONLY, DECAP, DECAP_ID)
    before = await h.snapshot()
    md, me = len(h.decap_results), len(h.encap_results)
    task = cocotb.start_soon(atk.run())
    errs, *_ = await h.run(net, host, dcfg, ecfg, idle=0.0, stall=0.0, seed=17, label="control")
    atk.done = True
    await task
    assert not atk.bad, atk.bad[:10]
    assert atk.counts["slverr"] >= 40, atk.counts
    errs += await h.check_counters(before, h.decap_results[md:], h.encap_results[me:], "control")
    assert not errs, f"{len(errs)} mismatches against the model, first: {errs[0]}"
    dut._log.info("control: %d SLVERR answers (slowest %d cycles), %d OKAY reads, traffic unaffected",
                  atk.counts["slverr"], atk.counts["max"], atk.counts["okay"])


@cocotb.test()
async def table_updates(dut):
    """VNI X: (VLAN 100, push) <-> (VLAN 0, no push); tunnel T: every field A <-> B; rewritten
    continuously while both directions run: each output equals the model's for A or for B."""
    h = await setup(dut)
    rng = random.Random(0x7AB + h.data_w)
    X = 0x00BEEF
    va, vb = (100, True), (0, False)
    key_vid, key_dst = 7, 0x0A0B0C0D
    ta = Tunnel(vni=0x111111, dst_mac="02:aa:aa:aa:aa:aa", src_mac="02:a1:a1:a1:a1:a1", src_ip=0x0A000001,
                dst_ip=0x0A0000A1, udp_port=4789, ttl=64, dscp=0)
    tb = Tunnel(vni=0xEEEEEE, dst_mac="02:bb:bb:bb:bb:bb", src_mac="02:b1:b1:b1:b1:b1", src_ip=0xC0A80001,
                dst_ip=0xC0A800B1, udp_port=8472, ttl=3, dscp=46)
    dA = DecapConfig(vni_table={X: va})
    dB = DecapConfig(vni_table={X: vb})
    eA = EncapConfig(tunnels={(key_vid, key_dst): ta})
    eB = EncapConfig(tunnels={(key_vid, key_dst): tb})
    await h.configure(dA, eA)
    net = [Case(vx(rng, X, rng.randint(40, 200)), False, "x") for _ in range(300)]
    host = [Case(VF.host_frame(rng, key_dst, key_vid, rng.randint(60, 200)), False, "t") for _ in range(300)]
    vkey = X
    tkey = tunnel_key(key_dst, key_vid)
    vals_v = [pack_vni(*va), pack_vni(*vb)]
    vals_t = [pack_tunnel(t.vni, t.dst_mac, t.src_mac, t.src_ip, t.dst_ip, t.udp_port, t.ttl, t.dscp)
              for t in (ta, tb)]
    done = False
    rewrites = {"vni": 0, "tunnel": 0}

    async def rewriter():
        i = 0
        while not done:
            i ^= 1
            await h.apply(VNI_TBL, h.vni_table.insert(vkey, vals_v[i]))
            rewrites["vni"] += 1
            await h.apply(TUN_TBL, h.tun_table.insert(tkey, vals_t[i]))
            rewrites["tunnel"] += 1
            await ClockCycles(dut.clk, rng.randrange(0, 8))

    st0 = {d: len(v) for d, v in h.stats.items()}
    task = cocotb.start_soon(rewriter())
    _, host_rx, net_rx, tv = await h.run(net, host, dA, eA, idle=0.0, stall=0.0, seed=21, label="table_updates",
                                         check=False)
    done = True
    await task
    dstats = h.stats["decap"][st0["decap"]:]
    estats = h.stats["encap"][st0["encap"]:]
    assert [s.outcome for s in dstats] == [DecapOutcome.DECAP] * len(net), "a VNI-X frame not decapsulated"
    assert [s.outcome for s in estats] == [EncapOutcome.ENCAP] * len(host), "a tunnel-T frame not encapsulated"
    assert len(host_rx) == len(net) and len(net_rx) == len(host)
    errs, used = [], {"vA": 0, "vB": 0, "tA": 0, "tB": 0}
    for i, (c, f) in enumerate(zip(net, host_rx)):
        got = bytes(f.tdata)
        a, b = decap(c.frame, dA, False, h.keep_w).output, decap(c.frame, dB, False, h.keep_w).output
        if got == a:
            used["vA"] += 1
        elif got == b:
            used["vB"] += 1
        else:
            errs.append(f"decap #{i}: output is neither the A nor the B decapsulation")
    for i, (c, f) in enumerate(zip(host, net_rx)):
        got = bytes(f.tdata)
        a, b = encap(c.frame, eA).output, encap(c.frame, eB).output
        if got == a:
            used["tA"] += 1
        elif got == b:
            used["tB"] += 1
        else:
            errs.append(f"encap #{i}: output is neither the A nor the B encapsulation: {got[:50].hex()}")
    assert not errs, f"{len(errs)} torn frames, first: {errs[:3]}"
    assert all(used[k] > 0 for k in used), used   # both values were really in use under traffic
    assert rewrites["tunnel"] >= 10, rewrites
    dut._log.info("table updates under traffic: %s rewrites, outputs per value %s", rewrites, used)


def _fillers(rng: random.Random, target: int, slots: int, taken: set[int]) -> list[int]:
    """VNIs that, inserted in this order into a table placing keys bank 0 first, fill both
    buckets of `target`: four sharing its bank-0 bucket, then four sharing its bank-1 bucket,
    each after four keys that fill its own bank-0 bucket (so it has to go to bank 1)."""
    h0, h1 = bucket_indices(target, 24, slots)

    def scan(pred) -> tuple[int, tuple[int, int]]:
        while True:
            k = rng.getrandbits(24)
            if k in taken:
                continue
            b = bucket_indices(k, 24, slots)
            if pred(b):
                taken.add(k)
                return k, b

    order = [scan(lambda b: b[0] == h0)[0] for _ in range(4)]
    for _ in range(4):
        k, (b0k, _) = scan(lambda b: b[1] == h1 and b[0] != h0)
        order += [scan(lambda b, x=b0k: b[0] == x)[0] for _ in range(4)]
        order.append(k)
    return order


@cocotb.test()
async def cuckoo_moves_under_traffic(dut):
    """VNIs whose two buckets are full are inserted while frames of the resident VNIs flow at
    full rate: each insert relocates a resident (cuckoo move: copied to its other bucket, then
    overwritten by the new VNI). No resident frame may miss or take another entry's value."""
    h = await setup(dut)
    rng = random.Random(0xC0C + h.data_w)
    await h.configure(DecapConfig(vni_table={}), EncapConfig())
    slots = h.vni_table.slots
    targets, taken = [], set()
    while len(targets) < 8:
        t = rng.getrandbits(24)
        if t not in taken:
            taken.add(t)
            targets.append(t)
    value = {}
    for t in targets:   # fill both buckets of every target (no traffic yet)
        for k in _fillers(rng, t, slots, taken):
            value[k] = (k & 0xFFF, bool(k & 1))
            await h.apply(VNI_TBL, h.vni_table.insert(k, pack_vni(*value[k])))
        assert all(h.vni_table.at(c) is not None for c in h.vni_table.candidates(t)), "target buckets not full"
    residents = sorted(value)
    # The residents the inserts will relocate (the model on a copy): half the traffic is theirs.
    trial = copy.deepcopy(h.vni_table)
    before = {k: trial.slot_of(k) for k in residents}
    for t in targets:
        trial.insert(t, pack_vni(1, True))
    movers = sorted(k for k in residents if trial.slot_of(k) != before[k])
    assert movers, "no relocation planned"
    dcfg = DecapConfig(vni_table=dict(value))
    base = [vxf(rng, residents[0], rng.randint(40, 160)) for _ in range(6)]
    net = [Case(with_vni(rng.choice(base), rng.choice(movers if i % 2 else residents)), False, "resident")
           for i in range(500)]
    moved0 = h.vni_table.relocations

    async def insert_targets():
        for t in targets:
            await h.apply(VNI_TBL, h.vni_table.insert(t, pack_vni(1, True)))
            await ClockCycles(dut.clk, rng.randrange(20, 60))

    st0 = len(h.stats["decap"])
    task = cocotb.start_soon(insert_targets())
    _, host_rx, _, tv = await h.run(net, [], dcfg, EncapConfig(), idle=0.0, stall=0.0, seed=23,
                                    label="cuckoo", check=False)
    done = task.done()
    await task
    moves = h.vni_table.relocations - moved0
    stats = h.stats["decap"][st0:]
    misses = [(i, DecapOutcome(s.outcome).name) for i, s in enumerate(stats) if s.outcome != DecapOutcome.DECAP]
    assert not misses, f"{len(misses)} resident frames not decapsulated during cuckoo moves: {misses[:5]}"
    assert len(host_rx) == len(net)
    wrong = [i for i, (c, f) in enumerate(zip(net, host_rx))
             if bytes(f.tdata) != decap(c.frame, dcfg, False, h.keep_w).output]
    assert not wrong, f"{len(wrong)} frames decapsulated with another entry's value, first #{wrong[0]}"
    assert moves >= len(targets), f"only {moves} relocations"
    assert done, "the inserts outlasted the traffic: make the traffic longer"
    dut._log.info("cuckoo moves under traffic: %d relocations (%d residents moved), %d resident frames "
                  "all decapsulated with their own entry", moves, len(movers), len(net))


@cocotb.test()
async def counters_64bit(dut):
    """64-bit counters: decap DECAP and encap TX set near 2^32 (backdoor) carry into the high word."""
    h = await setup(dut)
    rng = random.Random(77)
    tunnels = _tunnels(rng)
    dcfg, ecfg = DecapConfig(), EncapConfig(tunnels=tunnels)
    await h.configure(dcfg, ecfg)
    await h.write32(DECAP + REG_COUNTER_CLEAR, 1)
    await h.write32(ENCAP + REG_COUNTER_CLEAR, 1)
    await ClockCycles(dut.clk, 2)  # block_csr acts on a clear two cycles after accepting it
    # (vxlan_decap's block_csr sits in its decap shell, as gre_decap's does)
    set_counter(dut.decap.shell.csr, int(DecapOutcome.DECAP), "pkts", (1 << 32) - 2)
    set_counter(dut.decap.shell.csr, int(DecapOutcome.DECAP), "bytes", (1 << 32) - 10)
    set_counter(dut.encap.csr, TX_SLOT, "pkts", (3 << 32) - 1)
    set_counter(dut.encap.csr, TX_SLOT, "bytes", (1 << 32) - 1)
    await ClockCycles(dut.clk, 2)
    net = [Case(vx(rng, 5, 80), False, "x") for _ in range(4)]
    vid, dst = next(iter(tunnels))
    host = [Case(VF.host_frame(rng, dst, vid, 100), False, "t") for _ in range(3)]
    errs, *_ = await h.run(net, host, dcfg, ecfg, label="counters")
    assert not errs, errs[0]
    assert await h.read64(DECAP + REG_CNT + 16 * int(DecapOutcome.DECAP)) == (1 << 32) + 2
    assert await h.read64(DECAP + REG_CNT + 16 * int(DecapOutcome.DECAP) + 8) == \
        (1 << 32) - 10 + sum(len(c.frame) for c in net)
    assert await h.read64(ENCAP + REG_TX) == (3 << 32) + 2
    assert await h.read64(ENCAP + REG_TX + 8) == (1 << 32) - 1 + sum(len(encap(c.frame, ecfg).output) for c in host)
    f_host, _ = monitor_counts(dut.mon_m_host_axis)
    f_net, _ = monitor_counts(dut.mon_m_net_axis)
    assert (f_host, f_net) == (len(net), len(host)), (f_host, f_net)
