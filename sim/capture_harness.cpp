// ws_capture: a pcap through the verilated capture_top (rtl/host/capture_top.sv) into host
// memory over a PCIe link model, consumed by a host driver; one pcap per queue and a JSON
// report (docs/host.md, "ws_capture"; sim/README.md).
//
// ws_capture_gen (sim/build.sh W capture-gen: this file with WS_CAPTURE_GEN defined) runs
// capture_gen_top instead (rtl/host/capture_gen_top.sv): no pcap; the RTL generator pkt_gen,
// configured over AXI4-Lite (--gen-*), loops back into the capture, pkt_chk watches what
// enters it, and the report adds the generator's and the checker's counters (docs/host.md,
// "Generator and checker in front of the capture").
//
// Pieces: stream.hpp's StreamSource (pcap -> s_axis, line-rate pacing), clock.hpp (model,
// reset, AXI4-Lite), capture_pcie.hpp (AXI4 slave, PCIe link, host memory), capture_host.hpp
// (one CPU core per ring).

// Verilator compiles user files with -Os after our -CFLAGS; the hot loop wants -O2.
#pragma GCC optimize("O2")

#ifdef WS_CAPTURE_GEN
#include "Vcapture_gen_top.h"
#include "Vcapture_gen_top___024root.h"
#else
#include "Vcapture_top.h"
#include "Vcapture_top___024root.h"
#endif
#include "verilated.h"

#include "capture_host.hpp"
#include "capture_pcie.hpp"
#include "clock.hpp"
#include "json.hpp"
#include "pcap.hpp"
#include "regmap.hpp"
#include "stream.hpp"
#include "util.hpp"

#include <cmath>
#include <cstdio>
#include <deque>
#include <string>
#include <vector>

namespace {

using namespace ws;

#ifdef WS_CAPTURE_GEN
using Top = Vcapture_gen_top;
using Root = Vcapture_gen_top___024root;
constexpr bool kGen = true;
const char* const kProg = "ws_capture_gen";
#else
using Top = Vcapture_top;
using Root = Vcapture_top___024root;
constexpr bool kGen = false;
const char* const kProg = "ws_capture";
#endif

WS_AXIS_PORT(InPort, s_axis);
using Source = StreamSource<Top, InPort>;
constexpr unsigned KW = Source::KEEP_W;
constexpr unsigned DATA_W = KW * 8;

namespace dma = regmap::dma_ring_writer;
namespace tsr = regmap::ts_clock;
namespace cg = regmap::capture_gen_top;

// Register windows (capture_top.sv)
constexpr uint32_t W_CAP = 0x0000, W_TS = 0x1000, W_RSS = 0x2000, W_DMA = 0x3000;
// capture_gen_top's own window (wirespeed/regmap.py CAPTURE_GEN_BASE)
constexpr uint32_t W_GEN = 0x4000;
constexpr uint64_t kGenPollCycles = 256;  // STATUS / GEN_FRAMES polled this often while it runs
// capture_top's own registers
constexpr uint32_t CAP_ID = 0x000, CAP_PARAMS = 0x004, CAP_FRAMES = 0x010, CAP_BYTES = 0x018,
                   CAP_RUNTS = 0x020, CAP_GIANTS = 0x024, CAP_RXERR = 0x028;
constexpr uint32_t kCapId = 0x57534350u;  // "WSCP"
// rss_hash (docs/rss.md)
constexpr uint32_t RSS_KEY_CTRL = 0x008, RSS_INFO = 0x00C, RSS_TUPLES = 0x010,
                   RSS_DEFAULT = 0x014, RSS_INDIR = 0x800;

constexpr uint64_t kDrainCycles = 2000;  // AXI4 quiet this long: the writer has nothing left
const char* const kTypeNames[8] = {"NONE", "IPV4", "TCP_IPV4", "UDP_IPV4",
                                   "IPV6", "TCP_IPV6", "UDP_IPV6", "TYPE7"};

struct Options : CommonOptions {
    std::string in, out_dir;
    unsigned queues = 0;            // 0: every queue the top has
    uint64_t ring_bytes = 1u << 20;
    PcieConfig pcie;
    HostConfig host;
    bool prod_read = false;         // the driver reads Q_PROD (MMIO) instead of the write-back
    unsigned queue_base = 0;        // files are queue-(base + q).pcap (a second port's queues)
    // ws_capture_gen: pkt_gen's run (bus bytes, without the FCS)
    unsigned gen_len_min = 60, gen_len_max = 60, gen_flows = 256;
    uint64_t gen_count = 20000;
    double gen_rate_gbps = -1;      // < 0: --line-rate-gbps
};

const char* kUsage =
    "usage: ws_capture --in IN.pcap --out-dir DIR --json REPORT.json [options]\n"
    "  --queues N             queues used (RSS table spread over 0..N-1; default: all built)\n"
    "  --queue-base B         name queue q's file queue-(B+q).pcap (a second port's queues)\n"
    "  --ring-bytes B         bytes per ring, a power of two 4096..2^30 (default 1048576)\n"
    "  --regs FILE            AXI4-Lite writes after the harness's set-up, \"0xADDR 0xVALUE\"\n"
    "  --clock-mhz F          clock (default 322.265625, a 100G MAC's)\n"
    "  --line-rate-gbps F     input pacing (default 100); 0 = back-to-back\n"
    "  --idle-prob P          random idle input cycles (default 0)\n"
    "  --seed S               PRNG seed (default 1)\n"
    "  PCIe: --pcie-gts F (8) --pcie-lanes N (16) --pcie-mps B (256) --pcie-overhead B (24)\n"
    "        --pcie-latency-ns F (400) --pcie-read-ns F (900) --mmio-write-ns F (250)\n"
    "        --pcie-credits N (32)\n"
    "  host: --host-poll-ns F (1000) --host-ns-per-frame F (20) --host-paused\n"
    "        --host-prod-read (poll Q_PROD over MMIO, a read round trip each, not the write-back)\n"
    "  --progress             progress line on stderr about every second\n"
    "  --max-idle-cycles N    watchdog (default 100000)\n"
    "ws_capture_gen only (no --in: pkt_gen's frames loop back into the capture):\n"
    "  --gen-len-min B / --gen-len-max B   frame bytes on the bus, 60..16383 (default 60, 60)\n"
    "  --gen-count N          frames (default 20000)\n"
    "  --gen-flows F          flows, RSS spreads them (default 256)\n"
    "  --gen-rate-gbps F      the generator's rate on the wire (default --line-rate-gbps; 0 = back to back)\n"
    "exit codes: 0 ok, 2 bad input/arguments, 3 watchdog, 4 a check failed, 5 AXI4-Lite error\n";

Options parse_args(int argc, char** argv) {
    Options o;
    o.clock_mhz = 322.265625;
    o.line_rate_gbps = 100;
    ArgScanner a(argc, argv, kUsage);
    while (a.next()) {
        const std::string& f = a.flag();
        if (f == "--in") o.in = a.value();
        else if (f == "--out-dir") o.out_dir = a.value();
        else if (f == "--queues") o.queues = (unsigned)parse_u64(f, a.value());
        else if (f == "--queue-base") o.queue_base = (unsigned)parse_u64(f, a.value());
        else if (f == "--ring-bytes") o.ring_bytes = parse_u64(f, a.value());
        else if (f == "--pcie-gts") o.pcie.gts = parse_double(f, a.value());
        else if (f == "--pcie-lanes") o.pcie.lanes = (unsigned)parse_u64(f, a.value());
        else if (f == "--pcie-mps") o.pcie.mps = (unsigned)parse_u64(f, a.value());
        else if (f == "--pcie-overhead") o.pcie.overhead = (unsigned)parse_u64(f, a.value());
        else if (f == "--pcie-latency-ns") o.pcie.latency_ns = parse_double(f, a.value());
        else if (f == "--pcie-read-ns") o.pcie.read_ns = parse_double(f, a.value());
        else if (f == "--mmio-write-ns") o.pcie.mmio_write_ns = parse_double(f, a.value());
        else if (f == "--pcie-credits") o.pcie.credits = (unsigned)parse_u64(f, a.value());
        else if (f == "--host-poll-ns") o.host.poll_ns = parse_double(f, a.value());
        else if (f == "--host-ns-per-frame") o.host.ns_per_frame = parse_double(f, a.value());
        else if (f == "--host-paused") a.no_value(), o.host.paused = true;
        else if (f == "--host-prod-read") a.no_value(), o.prod_read = true;
        else if (kGen && f == "--gen-len-min") o.gen_len_min = (unsigned)parse_u64(f, a.value());
        else if (kGen && f == "--gen-len-max") o.gen_len_max = (unsigned)parse_u64(f, a.value());
        else if (kGen && f == "--gen-count") o.gen_count = parse_u64(f, a.value());
        else if (kGen && f == "--gen-flows") o.gen_flows = (unsigned)parse_u64(f, a.value());
        else if (kGen && f == "--gen-rate-gbps") o.gen_rate_gbps = parse_double(f, a.value());
        else if (!o.parse(a)) a.unknown();
    }
    if (kGen) {
        if (!o.in.empty()) die(EXIT_INPUT, "--in: ws_capture_gen generates its own frames (pkt_gen)");
        if (o.gen_len_min < 60 || o.gen_len_max < o.gen_len_min || o.gen_len_max > 16383)
            die(EXIT_INPUT, "--gen-len-min/--gen-len-max: 60 <= min <= max <= 16383 (got %u, %u)",
                o.gen_len_min, o.gen_len_max);
        if (o.gen_count == 0 || o.gen_count > 0xffffffffull)
            die(EXIT_INPUT, "--gen-count: 1..2^32-1 frames");
        if (o.gen_flows > 0xffffu) die(EXIT_INPUT, "--gen-flows: 0..65535");
    } else if (o.in.empty()) {
        die(EXIT_INPUT, "missing --in IN.pcap (see --help)");
    }
    if (o.out_dir.empty()) die(EXIT_INPUT, "missing --out-dir DIR (see --help)");
    o.validate();
    if (o.ring_bytes < 4096 || o.ring_bytes > (1ull << 30) || (o.ring_bytes & (o.ring_bytes - 1)))
        die(EXIT_INPUT, "--ring-bytes: must be a power of two from 4096 to 2^30 (got %llu)",
            (unsigned long long)o.ring_bytes);
    if (!(o.pcie.gts > 0) || o.pcie.lanes == 0 || o.pcie.mps < 64 || o.pcie.credits == 0)
        die(EXIT_INPUT, "--pcie-*: GT/s > 0, lanes > 0, max payload >= 64, credits > 0");
    if (o.pcie.latency_ns < 0 || o.pcie.read_ns < 0 || o.pcie.mmio_write_ns < 0 ||
        o.host.poll_ns <= 0 || o.host.ns_per_frame < 0)
        die(EXIT_INPUT, "latencies must be >= 0 and --host-poll-ns > 0");
    return o;
}

uint64_t ns_to_cycles(double ns, double mhz) { return (uint64_t)std::ceil(ns * mhz / 1000.0); }

class Sim {
public:
    Sim(const Options& o, PcapReader* reader, uint64_t total)
        : o_(o), k_(kGen ? "capture_gen_top" : "capture_top"),
          src_(k_.t, reader, total, o.seed, o.idle_prob, o.clock_mhz, o.line_rate_gbps) {}

    int run(const std::vector<RegWrite>& writes);

private:
    uint32_t rd(uint32_t a, const char* what) { return k_.access(false, a, 0, what, true); }
    void wr(uint32_t a, uint32_t v, const char* what) { k_.access(true, a, v, what, true); }
    void setup(const std::vector<RegWrite>& writes);
    void setup_gen();
    void wait_rss_key();
    void traffic();
    int finish();

    const Options& o_;
    Clock<Top, Root> k_;
    Source src_;
    HostMemory mem_;
    std::unique_ptr<PcieModel<Top, KW>> pcie_;
    std::unique_ptr<HostDriver> host_;
    unsigned built_q_ = 0, used_q_ = 0, align_ = 8, rss_entries_ = 0, latency_ = 0;
    uint64_t traffic_start_ = 0, end_cycle_ = 0;
    double wall_start_ = 0, wall_end_ = 0;
    // ws_capture_gen: the run as the harness saw it (polled over AXI4-Lite)
    uint32_t gen_rate_ = 0;          // GEN_RATE written (8.16 wire bytes a cycle)
    int64_t time_offset_ = 0;        // harness cycle - TIME (within the read's few cycles)
    bool gen_done_ = false;
    uint64_t gen_done_cycle_ = 0, gen_frames_seen_ = 0;
};

void Sim::setup(const std::vector<RegWrite>& writes) {
    const uint32_t id = rd(W_CAP + CAP_ID, "capture ID");
    if (id != kCapId) die(EXIT_BALANCE, "capture ID reads 0x%08x, expected 0x%08x (\"WSCP\")", id, kCapId);
    const uint32_t params = rd(W_CAP + CAP_PARAMS, "capture PARAMS");
    if ((params & 0xffffu) != DATA_W)
        die(EXIT_BALANCE, "PARAMS says DATA_W=%u but the harness was built for %u-bit ports",
            params & 0xffffu, DATA_W);
    built_q_ = params >> 16 & 0xffu;
    latency_ = params >> 24;
    used_q_ = o_.queues ? o_.queues : built_q_;
    if (used_q_ > built_q_)
        die(EXIT_INPUT, "--queues %u: the RTL was built with %u queues", used_q_, built_q_);
    const uint32_t info = rd(W_DMA + dma::INFO, "DMA INFO");
    align_ = 1u << (info >> 8 & 0xffu);
    // records are packed at 8 bytes at every bus width (docs/host.md, "The record and the ring")
    if (align_ != 8) die(EXIT_BALANCE, "DMA INFO says records align to %u bytes, expected 8", align_);
    const uint32_t burst = rd(W_DMA + dma::PARAMS, "DMA PARAMS") >> 16;
    if (burst > o_.pcie.mps)
        die(EXIT_INPUT, "the writer's bursts (%u bytes) exceed --pcie-mps %u", burst, o_.pcie.mps);

    // The timestamp clock counts nanoseconds at --clock-mhz: I = 1000 / f ns, 32.32
    const double inc = std::round(1000.0 / o_.clock_mhz * 4294967296.0);
    const uint64_t inc_u = (uint64_t)inc;
    wr(W_TS + tsr::INCR_FRAC, (uint32_t)inc_u, "ts INCR_FRAC");
    wr(W_TS + tsr::INCR_NS, (uint32_t)(inc_u >> 32), "ts INCR_NS");
    wr(W_TS + tsr::CMD, tsr::CMD_INCR, "ts CMD");

    // RSS: the indirection table spreads the hash over the used queues
    rss_entries_ = rd(W_RSS + RSS_INFO, "RSS INFO") & 0x3ffu;
    for (unsigned i = 0; i < rss_entries_; ++i) wr(W_RSS + RSS_INDIR + 4 * i, i % used_q_, "RSS INDIR");

    // Rings and write-back slots; the queues not used stay disabled
    mem_.init(used_q_, o_.ring_bytes);
    const uint32_t log2 = (uint32_t)__builtin_ctzll(o_.ring_bytes);
    for (unsigned q = 0; q < used_q_; ++q) {
        const uint32_t b = W_DMA + dma::Q_CTRL_STRIDE * q;
        wr(b + dma::Q_BASE_LO, (uint32_t)mem_.ring_base(q), "Q_BASE_LO");
        wr(b + dma::Q_BASE_HI, (uint32_t)(mem_.ring_base(q) >> 32), "Q_BASE_HI");
        wr(b + dma::Q_WB_LO, (uint32_t)mem_.wb_addr(q), "Q_WB_LO");
        wr(b + dma::Q_WB_HI, (uint32_t)(mem_.wb_addr(q) >> 32), "Q_WB_HI");
        wr(b + dma::Q_CTRL, dma::Q_CTRL_ENABLE | log2 << 8, "Q_CTRL");
    }
    k_.apply_writes(writes, o_.regs);
    wait_rss_key();
    if (kGen) setup_gen();
}

// ws_capture_gen: pkt_gen's run configured, the loopback put in force, the checker cleared;
// GEN_ENABLE is written at the start of traffic().
void Sim::setup_gen() {
    const uint32_t id = rd(W_GEN + cg::ID, "capture_gen ID");
    if (id != cg::kIdValue)
        die(EXIT_BALANCE, "capture_gen ID reads 0x%08x, expected 0x%08x (\"WSCG\")", id, cg::kIdValue);
    const uint32_t params = rd(W_GEN + cg::PARAMS, "capture_gen PARAMS");
    if ((params & cg::PARAMS_DATA_W) != DATA_W)
        die(EXIT_BALANCE, "capture_gen PARAMS says DATA_W=%u, the harness has %u", params & 0xffffu, DATA_W);
    const double gbps = o_.gen_rate_gbps < 0 ? o_.line_rate_gbps : o_.gen_rate_gbps;
    // wire bytes a cycle (the bucket counts bus bytes + 24: FCS, preamble, gap), 8.16
    const double rate = std::round(gbps * 1000.0 / 8.0 / o_.clock_mhz * 65536.0);
    if (rate >= (double)(1u << 24)) die(EXIT_INPUT, "--gen-rate-gbps %g: above the generator's 256 bytes a cycle", gbps);
    gen_rate_ = (uint32_t)rate;
    wr(W_GEN + cg::GEN_LEN, o_.gen_len_min | o_.gen_len_max << 16, "GEN_LEN");
    wr(W_GEN + cg::GEN_RATE, gen_rate_, "GEN_RATE");
    wr(W_GEN + cg::GEN_FLOWS, o_.gen_flows, "GEN_FLOWS");
    wr(W_GEN + cg::GEN_COUNT, (uint32_t)o_.gen_count, "GEN_COUNT");
    wr(W_GEN + cg::CTRL, cg::CTRL_LOOPBACK, "CTRL");
    wr(W_GEN + cg::CMD, cg::CMD_CHK_CLEAR, "CMD");
    for (int i = 0;; ++i) {
        if (rd(W_GEN + cg::STATUS, "STATUS") & cg::STATUS_LOOPBACK) break;
        if (i == 100) die(EXIT_BALANCE, "capture_gen STATUS: the loopback never comes into force");
    }
    const uint64_t c0 = k_.cycle();
    const uint64_t t = k_.read64(W_GEN + cg::TIME_LO, "TIME");
    time_offset_ = (int64_t)(c0 + 2) - (int64_t)t;   // AR reaches the register block ~2 cycles on
}

// rss_hash rebuilds its tables after reset (and after a key load): 9218 cycles of hash 0
void Sim::wait_rss_key() {
    for (int i = 0; i < 200; ++i) {
        if (!(rd(W_RSS + RSS_KEY_CTRL, "RSS KEY_CTRL") & 1u)) return;
        for (int j = 0; j < 100; ++j) k_.idle_cycle(false);
    }
    die(EXIT_BALANCE, "rss_hash stays BUSY (its key rebuild never ends)");
}

void Sim::traffic() {
    auto* t = k_.t;
    auto& axil = k_.axil();
    std::deque<MmioWrite> mmio;
    const uint64_t mmio_lat = ns_to_cycles(o_.pcie.mmio_write_ns, o_.clock_mhz);
    traffic_start_ = k_.cycle();
    src_.begin(traffic_start_);
    uint64_t last_move = traffic_start_, iter = 0;
    double last_progress = now_seconds();
    bool mmio_busy = false;
    // ws_capture_gen: the AXI4-Lite port also starts the generator and polls it
    enum class GenOp { None, Enable, Status, Frames } gen_op = GenOp::None;
    bool enabled = !kGen, poll_status = true;
    uint64_t next_poll = traffic_start_;
    for (;;) {
        const uint64_t c = k_.cycle();
        // ---- drive ----
        src_.drive(c);
        pcie_->drive(c);
        if (!mmio_busy && gen_op == GenOp::None && !axil.busy()) {
            if (!enabled) {
                axil.start_write(W_GEN + cg::CTRL, cg::CTRL_LOOPBACK | cg::CTRL_GEN_ENABLE);
                gen_op = GenOp::Enable;
            } else if (!mmio.empty() && mmio.front().not_before <= c) {
                axil.start_write(mmio.front().addr, mmio.front().data);
                mmio_busy = true;
            } else if (kGen && !gen_done_ && c >= next_poll) {
                axil.start_read(W_GEN + (poll_status ? cg::STATUS : cg::GEN_FRAMES));
                gen_op = poll_status ? GenOp::Status : GenOp::Frames;
                poll_status = !poll_status;
            }
        }
        // ---- settle, sample, edge ----
        k_.settle();
        axil.sample();
        bool moved = src_.sample(c, [](uint64_t, uint32_t) {});
        moved |= pcie_->sample(c);
        k_.edge();
        axil.after_edge();
        if (mmio_busy && !axil.busy()) {
            if (axil.resp() != 0)
                die(EXIT_AXIL, "AXI4-Lite write 0x%08x to 0x%04x (Q_CONS) answered %s", mmio.front().data,
                    mmio.front().addr, axil_resp_name(axil.resp()));
            mmio.pop_front();
            mmio_busy = false;
            moved = true;
        }
        if (gen_op != GenOp::None && !axil.busy()) {
            if (axil.resp() != 0)
                die(EXIT_AXIL, "AXI4-Lite access to capture_gen (%s) answered %s",
                    gen_op == GenOp::Enable ? "CTRL" : gen_op == GenOp::Status ? "STATUS" : "GEN_FRAMES",
                    axil_resp_name(axil.resp()));
            if (gen_op == GenOp::Enable) {
                enabled = true;
            } else if (gen_op == GenOp::Status) {
                if (axil.rdata() & cg::STATUS_GEN_DONE) gen_done_ = true, gen_done_cycle_ = c;
            } else if (axil.rdata() != (uint32_t)gen_frames_seen_) {
                gen_frames_seen_ = axil.rdata();
                moved = true;
            }
            if (gen_op != GenOp::Enable) next_poll = c + kGenPollCycles / 2;
            gen_op = GenOp::None;
        }
        pcie_->deliver(c);
        host_->step(c, mmio, mmio_lat);
        if (moved) last_move = c;

        // ---- end, watchdog, progress ----
        // The writer has nothing left once its AXI4 side was quiet for a while after the last beat
        const bool all_in = kGen ? gen_done_ : src_.all_sent();
        const uint64_t last_in = kGen ? gen_done_cycle_ : src_.last_in_cycle();
        const bool quiet = all_in && pcie_->idle() &&
                           c - std::max(pcie_->last_move(), last_in) >= kDrainCycles;
        if (quiet && host_->paused()) host_->resume();
        if (quiet && !host_->paused() && mmio.empty() && !mmio_busy && gen_op == GenOp::None &&
            host_->idle()) {
            end_cycle_ = c;
            break;
        }
        if (c - last_move >= o_.max_idle_cycles && !host_->busy() && (!all_in || !pcie_->idle())) {
            fprintf(stderr, "%s: error: watchdog: nothing moved on s_axis, m_axi or the AXI4-Lite "
                            "port for %llu cycles (now cycle %llu); s_axis: %s; AXI4 %s\n",
                    g_prog, (unsigned long long)o_.max_idle_cycles, (unsigned long long)c,
                    src_.where().c_str(), pcie_->idle() ? "idle" : "has writes in flight");
            host_->close();
            exit(EXIT_WATCHDOG);
        }
        if ((++iter & 0xffff) == 0) {
            if (k_.context()->gotFinish())
                die(EXIT_BALANCE, "the RTL called $finish at cycle %llu", (unsigned long long)c);
            if (o_.progress) {
                const double w = now_seconds();
                if (w - last_progress >= 1.0) {
                    last_progress = w;
                    uint64_t got = 0;
                    for (unsigned q = 0; q < used_q_; ++q) got += host_->stats(q).frames;
                    const uint64_t in = kGen ? gen_frames_seen_ : src_.in_done();
                    const uint64_t total = kGen ? o_.gen_count : src_.total_frames();
                    fprintf(stderr, "%s: cycle %llu  in %llu/%llu (%.0f%%)  captured %llu  %.2f Mcycles/s\n",
                            g_prog, (unsigned long long)c, (unsigned long long)in,
                            (unsigned long long)total, total ? 100.0 * in / total : 100.0,
                            (unsigned long long)got, (double)(c - traffic_start_) / (w - wall_start_) / 1e6);
                }
            }
        }
    }
}

int Sim::run(const std::vector<RegWrite>& writes) {
    wall_start_ = now_seconds();
    k_.t->pps = 0;
    src_.reset_ports();
#ifdef WS_CAPTURE_GEN
    k_.t->m_axis_tready = 1;   // the transmit side (unused in loopback) never waits
#endif
    pcie_ = std::make_unique<PcieModel<Top, KW>>(k_.t, o_.pcie, o_.clock_mhz, mem_);
    pcie_->reset_ports();
    k_.reset();
    setup(writes);
    HostConfig hc = o_.host;
    if (o_.prod_read) hc.read_ns = o_.pcie.read_ns;
    host_ = std::make_unique<HostDriver>(mem_, hc, o_.clock_mhz, used_q_, align_,
                                         W_DMA + dma::Q_CONS, dma::Q_CONS_STRIDE);
    for (unsigned q = 0; q < used_q_; ++q) {
        char name[64];
        snprintf(name, sizeof name, "/queue-%02u.pcap", q + o_.queue_base);
        host_->open(q, o_.out_dir + name);
    }
    traffic();
    return finish();
}

int Sim::finish() {
    src_.drive_idle();
    std::vector<std::string> errors = host_->errors();
    const uint64_t frames_in = k_.read64(W_CAP + CAP_FRAMES, "FRAMES");
    const uint64_t bytes_in = k_.read64(W_CAP + CAP_BYTES, "BYTES");
    const uint32_t runts = rd(W_CAP + CAP_RUNTS, "RUNTS"), giants = rd(W_CAP + CAP_GIANTS, "GIANTS"),
                   rxerr = rd(W_CAP + CAP_RXERR, "RX_ERRORS");
    const uint32_t tuples = rd(W_RSS + RSS_TUPLES, "RSS CNT_TUPLES"),
                   rss_def = rd(W_RSS + RSS_DEFAULT, "RSS CNT_DEFAULT");
    const uint32_t bresp_err = rd(W_DMA + dma::CNT_BRESP_ERR, "CNT_BRESP_ERR"),
                   wbs = rd(W_DMA + dma::CNT_WB, "CNT_WB"), bursts = rd(W_DMA + dma::CNT_BURSTS, "CNT_BURSTS");
    // ws_capture_gen: the generator's and the checker's counters
    struct Gen {
        uint64_t frames = 0, bytes = 0, t_first = 0, t_last = 0, chk_bytes = 0, lat_sum = 0;
        uint32_t chk_frames = 0, others = 0, gaps = 0, late = 0, lat_min = 0, lat_max = 0, discard = 0;
        uint32_t status = 0;
    } g;
    if (kGen) {
        g.frames = rd(W_GEN + cg::GEN_FRAMES, "GEN_FRAMES");
        g.bytes = k_.read64(W_GEN + cg::GEN_BYTES_LO, "GEN_BYTES");
        g.t_first = k_.read64(W_GEN + cg::GEN_T_FIRST_LO, "GEN_T_FIRST");
        g.t_last = k_.read64(W_GEN + cg::GEN_T_LAST_LO, "GEN_T_LAST");
        g.chk_frames = rd(W_GEN + cg::CHK_FRAMES, "CHK_FRAMES");
        g.chk_bytes = k_.read64(W_GEN + cg::CHK_BYTES_LO, "CHK_BYTES");
        g.others = rd(W_GEN + cg::CHK_OTHERS, "CHK_OTHERS");
        g.gaps = rd(W_GEN + cg::CHK_GAPS, "CHK_GAPS");
        g.late = rd(W_GEN + cg::CHK_LATE, "CHK_LATE");
        g.lat_min = rd(W_GEN + cg::CHK_LAT_MIN, "CHK_LAT_MIN");
        g.lat_max = rd(W_GEN + cg::CHK_LAT_MAX, "CHK_LAT_MAX");
        g.lat_sum = k_.read64(W_GEN + cg::CHK_LAT_SUM_LO, "CHK_LAT_SUM");
        g.discard = rd(W_GEN + cg::RX_DISCARD, "RX_DISCARD");
        g.status = rd(W_GEN + cg::STATUS, "STATUS");
    }
    // what entered the capture: the pcap's frames, or the generator's
    const uint64_t sent = kGen ? g.frames : src_.in_done();
    const uint64_t sent_bytes = kGen ? g.bytes : src_.bytes_in();
    const bool any_in = kGen ? g.frames > 0 : src_.any_in();
    const uint64_t first_in_cycle = kGen ? (uint64_t)((int64_t)g.t_first + time_offset_) : src_.first_in_cycle();
    const uint64_t last_in_cycle = kGen ? (uint64_t)((int64_t)g.t_last + time_offset_) : src_.last_in_cycle();
    struct Q {
        uint32_t frames, bytes, full, buf, off, prod;
    };
    std::vector<Q> qs(built_q_);
    uint64_t sum_in = 0, captured = 0, captured_bytes = 0, dropped = 0;
    for (unsigned q = 0; q < built_q_; ++q) {
        const uint32_t b = W_DMA + dma::Q_CTRL_STRIDE * q;
        qs[q] = {rd(b + dma::Q_FRAMES, "Q_FRAMES"), rd(b + dma::Q_BYTES, "Q_BYTES"),
                 rd(b + dma::Q_DROP_FULL, "Q_DROP_FULL"), rd(b + dma::Q_DROP_BUF, "Q_DROP_BUF"),
                 rd(b + dma::Q_DROP_OFF, "Q_DROP_OFF"), rd(b + dma::Q_PROD, "Q_PROD")};
        sum_in += (uint64_t)qs[q].frames + qs[q].full + qs[q].buf + qs[q].off;
        captured += qs[q].frames;
        if (q < used_q_) captured_bytes += host_->stats(q).bytes;
        dropped += (uint64_t)qs[q].full + qs[q].buf + qs[q].off;
    }
    wall_end_ = now_seconds();
    k_.final();
    host_->close();

    // ---- checks ----
    char e[300];
    auto fail = [&](const char* m) { errors.push_back(m); };
    if (frames_in != sent) {
        snprintf(e, sizeof e, "BALANCE: FRAMES_IN %llu != frames sent %llu", (unsigned long long)frames_in,
                 (unsigned long long)sent);
        fail(e);
    }
    if (bytes_in != sent_bytes) {
        snprintf(e, sizeof e, "BALANCE: BYTES_IN %llu != bytes sent %llu", (unsigned long long)bytes_in,
                 (unsigned long long)sent_bytes);
        fail(e);
    }
    if (sum_in != sent) {
        snprintf(e, sizeof e, "BALANCE: frames sent %llu != sum over queues of frames + drops %llu",
                 (unsigned long long)sent, (unsigned long long)sum_in);
        fail(e);
    }
    if (tuples != (uint32_t)sent) {
        snprintf(e, sizeof e, "RSS CNT_TUPLES %u != frames sent %llu", tuples, (unsigned long long)sent);
        fail(e);
    }
    if (kGen) {
        // In loopback nothing lies between the generator and the checker but registers
        if (g.frames != o_.gen_count || !(g.status & cg::STATUS_GEN_DONE)) {
            snprintf(e, sizeof e, "GENERATOR: sent %llu of %llu frames (STATUS 0x%x)",
                     (unsigned long long)g.frames, (unsigned long long)o_.gen_count, g.status);
            fail(e);
        }
        if ((uint64_t)g.chk_frames + g.others != frames_in || g.chk_frames != g.frames || g.gaps || g.late ||
            g.chk_bytes != g.bytes) {
            snprintf(e, sizeof e, "CHECKER: %u test frames (%llu bytes), %u others, %u gaps, %u late; the "
                     "generator sent %llu frames (%llu bytes), FRAMES_IN %llu", g.chk_frames,
                     (unsigned long long)g.chk_bytes, g.others, g.gaps, g.late, (unsigned long long)g.frames,
                     (unsigned long long)g.bytes, (unsigned long long)frames_in);
            fail(e);
        }
    }
    if (bresp_err) fail("CNT_BRESP_ERR is not 0");
    for (unsigned q = 0; q < built_q_; ++q) {
        const uint64_t hf = q < used_q_ ? host_->stats(q).frames : 0;
        const uint64_t hb = q < used_q_ ? host_->stats(q).bytes : 0;
        if ((uint32_t)hf != qs[q].frames || (uint32_t)hb != qs[q].bytes) {
            snprintf(e, sizeof e, "queue %u: the host read %llu frames / %llu bytes, Q_FRAMES %u / Q_BYTES %u",
                     q, (unsigned long long)hf, (unsigned long long)hb, qs[q].frames, qs[q].bytes);
            fail(e);
        }
        if (q < used_q_ && (qs[q].prod != host_->cons(q) || mem_.prod(q) != qs[q].prod)) {
            snprintf(e, sizeof e, "queue %u: Q_PROD 0x%08x, write-back 0x%08x, host CONS 0x%08x differ",
                     q, qs[q].prod, mem_.prod(q), host_->cons(q));
            fail(e);
        }
        if (q < used_q_ && host_->stats(q).ts_back) {
            snprintf(e, sizeof e, "queue %u: a record's timestamp is lower than the one before", q);
            fail(e);
        }
    }

    // ---- report ----
    const double cyc_ns = 1000.0 / o_.clock_mhz;
    const double wall = wall_end_ - wall_start_;
    const uint64_t first_in = any_in ? first_in_cycle : traffic_start_;
    const double span_cyc = std::max(1.0, std::max((double)last_in_cycle, pcie_->last_done_cycle()) -
                                              (double)first_in);
    const double span_ns = span_cyc * cyc_ns;
    const double raw_gbps = o_.pcie.bytes_per_ns() * 8;
    JsonWriter j;
    j.begin_object();
    j.field("data_width", DATA_W);
    j.field("clock_mhz", o_.clock_mhz);
    j.field("line_rate_gbps", o_.line_rate_gbps);
    j.field("latency_cycles", latency_);
    j.field("queues_built", built_q_);
    j.field("queues", used_q_);
    j.field("queue_base", o_.queue_base);
    j.field("ring_bytes", o_.ring_bytes);
    j.field("source", kGen ? "pkt_gen" : "pcap");
    j.field("packets_in", sent);
    j.field("bytes_in", sent_bytes);
    j.field("captured", captured);
    j.field("captured_bytes", captured_bytes);
    j.field("dropped", dropped);
    j.field("balanced", errors.empty() ? 1 : 0);
    j.key("counters");
    j.begin_object();
    j.field("frames_in", frames_in);
    j.field("bytes_in", bytes_in);
    j.field("runts", runts);
    j.field("giants", giants);
    j.field("rx_errors", rxerr);
    j.field("rss_tuples", tuples);
    j.field("rss_default", rss_def);
    j.field("dma_bursts", bursts);
    j.field("dma_writebacks", wbs);
    j.field("dma_bresp_errors", bresp_err);
    j.end_object();
    j.key("queue");
    j.begin_object();
    double min_share = 1, max_share = 0;
    for (unsigned q = 0; q < built_q_; ++q) {
        const uint64_t qin = (uint64_t)qs[q].frames + qs[q].full + qs[q].buf + qs[q].off;
        if (q >= used_q_ && qin == 0) continue;
        const double share = sent ? (double)qin / (double)sent : 0.0;
        min_share = std::min(min_share, share);
        max_share = std::max(max_share, share);
        char name[8];
        snprintf(name, sizeof name, "%u", q);
        j.key(name);
        j.begin_object();
        j.field("frames_in", qin);
        j.field("frames", qs[q].frames);
        j.field("bytes", q < used_q_ ? host_->stats(q).bytes : (uint64_t)0);
        j.field("drops", (uint64_t)qs[q].full + qs[q].buf + qs[q].off);
        j.field("drop_full", qs[q].full);
        j.field("drop_buf", qs[q].buf);
        j.field("drop_off", qs[q].off);
        j.field("share", share);
        if (q < used_q_) {
            const QueueStats& s = host_->stats(q);
            char file[32];
            snprintf(file, sizeof file, "queue-%02u.pcap", q + o_.queue_base);
            j.field("file", file);
            j.field("first_ts_ns", s.first_ts);
            j.field("last_ts_ns", s.last_ts);
            j.field("host_polls", s.polls);
            j.field("host_batches", s.batches);
            j.field("cons_writes", s.cons_writes);
            j.key("hash_types");
            j.begin_object();
            for (int h = 0; h < 7; ++h)
                if (s.htypes[h]) j.field(kTypeNames[h], s.htypes[h]);
            j.end_object();
        }
        j.end_object();
    }
    j.end_object();
    j.key("rss_spread");
    j.begin_object();
    j.field("min_share", used_q_ ? min_share : 0.0);
    j.field("max_share", max_share);
    j.field("imbalance", used_q_ && sent ? max_share * used_q_ : 0.0);
    j.end_object();
    j.key("pcie");
    j.begin_object();
    j.field("gts", o_.pcie.gts);
    j.field("lanes", o_.pcie.lanes);
    j.field("max_payload_bytes", o_.pcie.mps);
    j.field("tlp_overhead_bytes", o_.pcie.overhead);
    j.field("write_latency_ns", o_.pcie.latency_ns);
    j.field("read_latency_ns", o_.pcie.read_ns);
    j.field("raw_gbps", raw_gbps);
    j.field("max_payload_gbps", raw_gbps * o_.pcie.mps / (o_.pcie.mps + o_.pcie.overhead));
    j.field("tlps", pcie_->tlps());
    j.field("payload_bytes", pcie_->payload_bytes());
    j.field("wire_bytes", pcie_->payload_bytes() + pcie_->tlps() * (uint64_t)o_.pcie.overhead);
    j.field("busy_ns", pcie_->busy_ns());
    j.field("span_ns", span_ns);
    j.field("utilisation", pcie_->busy_ns() / span_ns);
    j.field("payload_gbps", (double)pcie_->payload_bytes() * 8 / span_ns);
    j.end_object();
    j.key("dma");
    j.begin_object();
    j.field("bursts", pcie_->bursts());
    j.field("beats", pcie_->beats());
    j.field("frame_bytes_per_beat", pcie_->beats() ? (double)captured_bytes / (double)pcie_->beats() : 0.0);
    j.end_object();
    j.key("host");
    j.begin_object();
    j.field("poll_ns", o_.host.poll_ns);
    j.field("ns_per_frame", o_.host.ns_per_frame);
    j.field("paused", o_.host.paused ? 1 : 0);
    j.field("prod_read", o_.prod_read ? 1 : 0);
    j.end_object();
    if (kGen) {
        j.key("generator");
        j.begin_object();
        j.field("len_min", o_.gen_len_min);
        j.field("len_max", o_.gen_len_max);
        j.field("flows", o_.gen_flows);
        j.field("count", o_.gen_count);
        j.field("rate_8_16", gen_rate_);
        j.field("rate_gbps", (double)gen_rate_ / 65536.0 * 8.0 * o_.clock_mhz / 1000.0);
        j.field("frames", g.frames);
        j.field("bytes", g.bytes);
        j.field("t_first", g.t_first);
        j.field("t_last", g.t_last);
        j.field("time_offset", time_offset_);
        j.end_object();
        j.key("checker");
        j.begin_object();
        j.field("frames", g.chk_frames);
        j.field("bytes", g.chk_bytes);
        j.field("others", g.others);
        j.field("gaps", g.gaps);
        j.field("late", g.late);
        j.field("rx_discard", g.discard);
        j.field("latency_min_cycles", g.lat_min);
        j.field("latency_max_cycles", g.lat_max);
        j.field("latency_sum_cycles", g.lat_sum);
        j.field("latency_mean_cycles", g.chk_frames ? (double)g.lat_sum / g.chk_frames : 0.0);
        j.field("latency_min_ns", g.lat_min * cyc_ns);
        j.field("latency_max_ns", g.lat_max * cyc_ns);
        j.field("latency_mean_ns", g.chk_frames ? (double)g.lat_sum / g.chk_frames * cyc_ns : 0.0);
        j.end_object();
    }
    j.field("first_in_cycle", first_in);
    j.field("last_in_cycle", last_in_cycle);
    j.field("end_cycle", end_cycle_);
    j.field("offered_gbps", any_in && last_in_cycle > first_in
                                ? (double)sent_bytes * 8 / ((double)(last_in_cycle - first_in + 1) * cyc_ns)
                                : 0.0);
    j.field("wall_seconds", wall);
    j.field("sim_cycles_per_second", wall > 0 ? (double)k_.cycle() / wall : 0.0);
    j.end_object();
    write_json(o_.json, j);

    if (!errors.empty()) {
        for (const auto& s : errors) fprintf(stderr, "%s: error: %s\n", g_prog, s.c_str());
        return EXIT_BALANCE;
    }
    return EXIT_OK;
}

}  // namespace

int main(int argc, char** argv) {
    g_prog = kProg;
    const Options o = parse_args(argc, argv);
    std::vector<RegWrite> writes;
    if (!o.regs.empty()) writes = read_regs(o.regs);
    try {
        PcapReader reader;
        const uint64_t total = kGen ? 0 : open_input(reader, o.in);
        Sim sim(o, kGen ? nullptr : &reader, total);
        return sim.run(writes);
    } catch (const FileError& e) {
        fprintf(stderr, "%s: error: %s\n", g_prog, e.msg.c_str());
        return EXIT_INPUT;
    } catch (const std::exception& e) {
        fprintf(stderr, "%s: internal error: %s\n", g_prog, e.what());
        return EXIT_INTERNAL;
    }
}
