// ws_sim: streams a pcap through the verilated `gre_decap`, cycle by cycle, and writes the output
// pcap, a JSON report and (optionally) per-frame latencies. See sim/README.md.
//
// One simulated clock cycle is two eval() calls:
//   drive inputs -> clk=0, eval (settles the logic that depends on the new inputs)
//   -> sample every valid/ready pair (these are the handshakes of this cycle's rising edge)
//   -> clk=1, eval (the edge)
// The bus width is taken from the verilated port type, so one source builds for every DATA_W.

// Verilator compiles user files with -Os after our -CFLAGS; the hot loop wants -O2.
#pragma GCC optimize("O2")

#include "Vgre_decap.h"
#include "Vgre_decap___024root.h"
#include "verilated.h"

#include "axil.hpp"
#include "json.hpp"
#include "pcap.hpp"

#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

using Top = Vgre_decap;
using Root = Vgre_decap___024root;  // the model's whole state, for the idle fixed-point test
using TData = std::remove_reference_t<decltype(std::declval<Top&>().s_axis_tdata)>;
using TKeep = std::remove_reference_t<decltype(std::declval<Top&>().s_axis_tkeep)>;
constexpr unsigned KEEP_W = sizeof(TData);  // bytes per beat
constexpr unsigned DATA_W = KEEP_W * 8;
static_assert(KEEP_W == 8 || KEEP_W == 16 || KEEP_W == 32 || KEEP_W == 64,
              "DATA_W must be 64, 128, 256 or 512");
static_assert(sizeof(TKeep) * 8 >= KEEP_W, "tkeep port narrower than DATA_W/8");
constexpr uint64_t KEEP_ALL = KEEP_W == 64 ? ~0ull : ((1ull << KEEP_W) - 1);

constexpr int kNumOutcomes = 14;
const char* const kOutcomeNames[kNumOutcomes] = {
    "PASS",           "PUNT",          "DECAP_L3",         "DECAP_TEB",     "DROP_TRUNCATED",
    "DROP_IP_HEADER", "DROP_IP_CHECKSUM", "DROP_FRAGMENT", "DROP_GRE_HEADER",
    "DROP_GRE_CHECKSUM", "DROP_NOT_ALLOWED", "DROP_ECN", "DROP_RX_ERROR", "DROP_POLICY"};

// Exit codes.
constexpr int EXIT_OK = 0;
constexpr int EXIT_INTERNAL = 1;
constexpr int EXIT_INPUT = 2;     // bad command line, unreadable/invalid input, unwritable output
constexpr int EXIT_WATCHDOG = 3;  // frames pending but nothing moved for --max-idle-cycles
constexpr int EXIT_BALANCE = 4;   // counters/status/output disagree, or a DUT protocol violation
constexpr int EXIT_AXIL = 5;      // AXI4-Lite error response or no response

constexpr uint32_t kResetCycles = 8;
constexpr uint32_t kQuietCycles = 32;       // output quiet this long before the final readout
constexpr uint64_t kAxilTimeout = 10000;    // cycles for one AXI4-Lite transaction
constexpr size_t kMaxOutFrame = 1u << 20;   // an output frame longer than this has lost its tlast

[[noreturn]] void die(int code, const char* f, ...) __attribute__((format(printf, 2, 3)));
void die(int code, const char* f, ...) {
    va_list ap;
    va_start(ap, f);
    fputs("ws_sim: error: ", stderr);
    vfprintf(stderr, f, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(code);
}

void warn(const char* f, ...) __attribute__((format(printf, 1, 2)));
void warn(const char* f, ...) {
    va_list ap;
    va_start(ap, f);
    fputs("ws_sim: warning: ", stderr);
    vfprintf(stderr, f, ap);
    fputc('\n', stderr);
    va_end(ap);
}

// ------------------------------------------------------------------------------------------------
// Command line

struct Options {
    std::string in, out, json, regs, latency_csv;
    double clock_mhz = 250.0;
    double line_rate_gbps = 10.0;
    double idle_prob = 0.0, stall_prob = 0.0;
    uint64_t seed = 1;
    bool progress = false;
    uint64_t max_idle_cycles = 100000;
    bool skip_idle = true;
};

const char* kUsage =
    "usage: ws_sim --in IN.pcap --out OUT.pcap --json REPORT.json [options]\n"
    "  --regs FILE            AXI4-Lite writes after reset, lines \"0xADDR 0xVALUE\" ('#' comments)\n"
    "  --clock-mhz F          clock frequency (default 250)\n"
    "  --line-rate-gbps F     input pacing (default 10); 0 = back-to-back\n"
    "  --idle-prob P          probability of an idle s_axis cycle (default 0)\n"
    "  --stall-prob P         probability of m_axis_tready=0 in a cycle (default 0)\n"
    "  --seed S               PRNG seed (default 1)\n"
    "  --latency-csv FILE     per emitted frame: index_in,first_in_cycle,first_out_cycle,latency\n"
    "  --progress             progress line on stderr about every second\n"
    "  --max-idle-cycles N    stall watchdog (default 100000)\n"
    "  --no-skip-idle         evaluate every idle cycle of a pacing gap (see sim/README.md)\n"
    "exit codes: 0 ok, 2 bad input/arguments, 3 watchdog, 4 balance check failed,\n"
    "            5 AXI4-Lite error\n";

double parse_double(const std::string& flag, const std::string& v) {
    char* end = nullptr;
    errno = 0;
    double d = strtod(v.c_str(), &end);
    if (v.empty() || *end || errno || !std::isfinite(d))
        die(EXIT_INPUT, "%s: '%s' is not a number", flag.c_str(), v.c_str());
    return d;
}

uint64_t parse_u64(const std::string& flag, const std::string& v) {
    char* end = nullptr;
    errno = 0;
    if (v.empty() || v[0] == '-') die(EXIT_INPUT, "%s: '%s' is not a non-negative integer", flag.c_str(), v.c_str());
    unsigned long long x = strtoull(v.c_str(), &end, 0);
    if (*end || errno) die(EXIT_INPUT, "%s: '%s' is not a non-negative integer", flag.c_str(), v.c_str());
    return x;
}

Options parse_args(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i], val;
        bool has_val = false;
        if (a == "-h" || a == "--help") {
            fputs(kUsage, stdout);
            exit(EXIT_OK);
        }
        if (a.rfind("--", 0) == 0) {
            size_t eq = a.find('=');
            if (eq != std::string::npos) {
                val = a.substr(eq + 1);
                a = a.substr(0, eq);
                has_val = true;
            }
        }
        auto need = [&]() -> std::string {
            if (has_val) return val;
            if (i + 1 >= argc) die(EXIT_INPUT, "option %s needs a value (see --help)", a.c_str());
            return argv[++i];
        };
        if (a == "--in") o.in = need();
        else if (a == "--out") o.out = need();
        else if (a == "--json") o.json = need();
        else if (a == "--regs") o.regs = need();
        else if (a == "--latency-csv") o.latency_csv = need();
        else if (a == "--clock-mhz") o.clock_mhz = parse_double(a, need());
        else if (a == "--line-rate-gbps") o.line_rate_gbps = parse_double(a, need());
        else if (a == "--idle-prob") o.idle_prob = parse_double(a, need());
        else if (a == "--stall-prob") o.stall_prob = parse_double(a, need());
        else if (a == "--seed") o.seed = parse_u64(a, need());
        else if (a == "--max-idle-cycles") o.max_idle_cycles = parse_u64(a, need());
        else if (a == "--progress" || a == "--no-skip-idle") {
            if (has_val) die(EXIT_INPUT, "option %s takes no value", a.c_str());
            if (a == "--progress") o.progress = true;
            else o.skip_idle = false;
        } else {
            die(EXIT_INPUT, "unknown option '%s' (see --help)", argv[i]);
        }
    }
    if (o.in.empty()) die(EXIT_INPUT, "missing --in IN.pcap (see --help)");
    if (o.out.empty()) die(EXIT_INPUT, "missing --out OUT.pcap (see --help)");
    if (o.json.empty()) die(EXIT_INPUT, "missing --json REPORT.json (see --help)");
    if (!(o.clock_mhz > 0)) die(EXIT_INPUT, "--clock-mhz: must be > 0 (got %g)", o.clock_mhz);
    if (o.line_rate_gbps < 0) die(EXIT_INPUT, "--line-rate-gbps: must be >= 0 (got %g)", o.line_rate_gbps);
    if (o.idle_prob < 0 || o.idle_prob >= 1)
        die(EXIT_INPUT, "--idle-prob: must be in [0, 1) (got %g)", o.idle_prob);
    if (o.stall_prob < 0 || o.stall_prob > 1)
        die(EXIT_INPUT, "--stall-prob: must be in [0, 1] (got %g)", o.stall_prob);
    if (o.max_idle_cycles == 0) die(EXIT_INPUT, "--max-idle-cycles: must be > 0");
    return o;
}

struct RegWrite {
    uint32_t addr, value;
    int line;
};

std::vector<RegWrite> read_regs(const std::string& path) {
    FILE* f = fopen(path.c_str(), "r");
    if (!f) die(EXIT_INPUT, "%s: cannot open for reading: %s", path.c_str(), strerror(errno));
    std::vector<RegWrite> out;
    char line[4096];
    int ln = 0;
    while (fgets(line, sizeof line, f)) {
        ++ln;
        if (char* h = strchr(line, '#')) *h = 0;
        char* tok[3] = {nullptr, nullptr, nullptr};
        int nt = 0;
        for (char* p = strtok(line, " \t\r\n,"); p && nt < 3; p = strtok(nullptr, " \t\r\n,"))
            tok[nt++] = p;
        if (nt == 0) continue;
        if (nt != 2)
            die(EXIT_INPUT, "%s:%d: expected \"0xADDR 0xVALUE\", found %d field(s)", path.c_str(), ln, nt);
        unsigned long long v[2];
        for (int k = 0; k < 2; ++k) {
            char* end = nullptr;
            errno = 0;
            v[k] = strtoull(tok[k], &end, 0);
            if (*end || errno || tok[k][0] == '-')
                die(EXIT_INPUT, "%s:%d: '%s' is not a number", path.c_str(), ln, tok[k]);
        }
        if (v[0] > 0xffff) die(EXIT_INPUT, "%s:%d: address %s is beyond the 16-bit AXI4-Lite space", path.c_str(), ln, tok[0]);
        if (v[0] & 3) die(EXIT_INPUT, "%s:%d: address %s is not 32-bit aligned", path.c_str(), ln, tok[0]);
        if (v[1] > 0xffffffffull) die(EXIT_INPUT, "%s:%d: value %s does not fit in 32 bits", path.c_str(), ln, tok[1]);
        out.push_back({(uint32_t)v[0], (uint32_t)v[1], ln});
    }
    if (ferror(f)) die(EXIT_INPUT, "%s: read error: %s", path.c_str(), strerror(errno));
    fclose(f);
    return out;
}

// ------------------------------------------------------------------------------------------------
// Small utilities

// xoshiro256** seeded through splitmix64; draw() < p with 53-bit resolution.
class Rng {
public:
    explicit Rng(uint64_t seed) {
        for (auto& w : s_) w = splitmix(seed);
    }
    uint64_t next() {
        const uint64_t r = rotl(s_[1] * 5, 7) * 9, t = s_[1] << 17;
        s_[2] ^= s_[0];
        s_[3] ^= s_[1];
        s_[1] ^= s_[2];
        s_[0] ^= s_[3];
        s_[2] ^= t;
        s_[3] = rotl(s_[3], 45);
        return r;
    }
    bool hit(double p) { return (double)(next() >> 11) * 0x1.0p-53 < p; }

private:
    static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    static uint64_t splitmix(uint64_t& x) {
        uint64_t z = (x += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    uint64_t s_[4];
};

// FIFO that grows by doubling and never shrinks (no allocation in the steady state).
template <class T>
class Ring {
public:
    Ring() : v_(64) {}
    bool empty() const { return head_ == tail_; }
    size_t size() const { return tail_ - head_; }
    void push(const T& x) {
        if (tail_ - head_ == v_.size()) grow();
        v_[tail_++ & (v_.size() - 1)] = x;
    }
    T& front() { return v_[head_ & (v_.size() - 1)]; }
    T pop() { return v_[head_++ & (v_.size() - 1)]; }

private:
    void grow() {
        std::vector<T> n(v_.size() * 2);
        size_t k = 0;
        for (size_t i = head_; i != tail_; ++i) n[k++] = v_[i & (v_.size() - 1)];
        v_.swap(n);
        head_ = 0;
        tail_ = k;
    }
    std::vector<T> v_;
    size_t head_ = 0, tail_ = 0;
};

template <class T>
inline uint8_t* bytes_of(T& port) {
    return reinterpret_cast<uint8_t*>(&port);  // QData or VlWide<N> (its only member is the array)
}

double now_seconds() {
    using namespace std::chrono;
    return duration<double>(steady_clock::now().time_since_epoch()).count();
}

// ------------------------------------------------------------------------------------------------
// The simulation

struct InFlight {   // a frame whose first beat was accepted and whose m_stat has not come yet
    uint64_t index;
    uint64_t first_cycle;
    uint32_t len;
};
struct Waiting {    // an emit=1 status whose output frame has not started yet
    uint64_t index;
    uint64_t first_cycle;
};

class Sim {
public:
    Sim(const Options& o, ws::PcapReader& reader, uint64_t total)
        : o_(o), reader_(reader), total_frames_(total), rng_idle_(o.seed),
          rng_stall_(o.seed ^ 0x5eed5eed5eed5eedull) {
        ctx_ = std::make_unique<VerilatedContext>();
        ctx_->debug(0);
        top_ = std::make_unique<Top>(ctx_.get(), "gre_decap");
        t_ = top_.get();
        axil_ = std::make_unique<ws::AxilMaster<Top>>(t_);
        cur_.assign(ws::kMaxFrame + 2 * KEEP_W, 0);
        out_.assign(kMaxOutFrame + KEEP_W, 0);
        idle_on_ = o.idle_prob > 0;
        stall_on_ = o.stall_prob > 0;
        if (o.line_rate_gbps > 0) cycles_per_bit_ = o.clock_mhz / (o.line_rate_gbps * 1000.0);
    }

    int run(const std::vector<RegWrite>& writes);

private:
    // ---- clocking ------------------------------------------------------------------------------
    void settle() {
        t_->clk = 0;
        t_->eval();
    }
    void edge() {
        t_->clk = 1;
        t_->eval();
        ++cycle_;
    }
    // A cycle outside the traffic loop (reset, register access, final readout).
    void idle_cycle(bool monitor) {
        settle();
        axil_->sample();
        if (monitor) monitor_sample(cycle_);
        edge();
        axil_->after_edge();
    }

    // ---- m_axis and m_stat monitor (every cycle after reset) ------------------------------------
    inline bool monitor_sample(uint64_t c) {
        bool moved = false;
        if (t_->m_axis_tvalid) {
            if (t_->m_axis_tready) {
                out_beat(c);
                moved = true;
            } else {
                ++out_stall_cycles_;
            }
            m_quiet_ = 0;
        } else {
            ++m_quiet_;
        }
        if (t_->m_stat_valid) {
            on_stat(c, t_->m_stat_outcome & 0xfu, t_->m_stat_emit & 1u, t_->m_stat_len);
            moved = true;
        }
        return moved;
    }

    inline void out_beat(uint64_t c) {
        if (!out_active_) {
            out_active_ = true;
            out_pos_ = 0;
            if (!any_out_) any_out_ = true, first_out_cycle_ = c;
            on_out_first(c);
        }
        last_out_cycle_ = c;
        if (out_pos_ + KEEP_W > kMaxOutFrame)
            die(EXIT_BALANCE, "m_axis frame longer than %zu bytes without tlast (cycle %llu)",
                kMaxOutFrame, (unsigned long long)c);
        memcpy(out_.data() + out_pos_, bytes_of(t_->m_axis_tdata), KEEP_W);
        const uint64_t keep = (uint64_t)t_->m_axis_tkeep & KEEP_ALL;
        if (!t_->m_axis_tlast) {
            if (keep != KEEP_ALL) note_keep_issue(c, "tkeep not all ones on a beat without tlast");
            out_pos_ += KEEP_W;
            return;
        }
        // Last beat: the frame ends after the highest byte whose tkeep bit is set.
        unsigned n = keep ? 64u - (unsigned)__builtin_clzll(keep) : 0u;
        if (keep != (n == 64 ? ~0ull : ((1ull << n) - 1)))
            note_keep_issue(c, "tkeep not contiguous from bit 0 on the last beat");
        if (n == 0) note_keep_issue(c, "tkeep all zero on the last beat");
        const uint32_t len = (uint32_t)(out_pos_ + n);
        out_active_ = false;
        ++outs_done_;
        if (t_->m_axis_tuser & 1u) {
            ++aborted_;
        } else {
            ++packets_out_;
            bytes_out_ += len;
            const uint64_t us = (uint64_t)((double)out_first_cycle_cur_ / o_.clock_mhz);
            pcap_out_.write((uint32_t)(us / 1000000u), (uint32_t)(us % 1000000u), out_.data(), len);
        }
    }

    void note_keep_issue(uint64_t c, const char* what) {
        if (keep_issues_++ < 5)
            warn("m_axis protocol: %s (cycle %llu, output frame %llu)", what, (unsigned long long)c,
                 (unsigned long long)outs_done_);
    }

    inline void on_out_first(uint64_t c) {
        out_first_cycle_cur_ = c;
        if (!waiting_.empty()) {
            const Waiting w = waiting_.pop();
            record_latency(w.index, w.first_cycle, c);
        } else {
            unmatched_out_.push(c);
        }
    }

    inline void on_stat(uint64_t c, unsigned outcome, unsigned emit, uint32_t len) {
        const uint64_t k = stats_++;
        if (inflight_.empty())
            die(EXIT_BALANCE,
                "m_stat pulse #%llu at cycle %llu, but no input frame is waiting for a status "
                "(%llu frame(s) started, %llu statuses already received)",
                (unsigned long long)k, (unsigned long long)c, (unsigned long long)frames_started_,
                (unsigned long long)k);
        const InFlight f = inflight_.pop();
        if (f.index >= in_done_)
            die(EXIT_BALANCE,
                "m_stat pulse for input frame %llu at cycle %llu came before that frame's last "
                "input beat was accepted",
                (unsigned long long)f.index, (unsigned long long)c);
        if (len != f.len) {
            if (len_mismatch_++ < 5)
                warn("m_stat_len %u for input frame %llu, which is %u bytes (cycle %llu)", len,
                     (unsigned long long)f.index, f.len, (unsigned long long)c);
        }
        if (outcome >= (unsigned)kNumOutcomes) {
            if (bad_outcome_++ < 5)
                warn("m_stat_outcome %u (no such outcome) for input frame %llu (cycle %llu)",
                     outcome, (unsigned long long)f.index, (unsigned long long)c);
        } else {
            stat_pkts_[outcome] += 1;
            stat_bytes_[outcome] += len;
        }
        if (emit) {
            ++emit_count_;
            if (!unmatched_out_.empty()) {
                record_latency(f.index, f.first_cycle, unmatched_out_.pop());
            } else {
                waiting_.push({f.index, f.first_cycle});
            }
        }
    }

    inline void record_latency(uint64_t index, uint64_t in_cycle, uint64_t out_cycle) {
        const int64_t lat = (int64_t)out_cycle - (int64_t)in_cycle;
        if (lat < lat_min_) lat_min_ = lat;
        if (lat > lat_max_) lat_max_ = lat;
        lat_sum_ += lat;
        ++lat_count_;
        if (csv_on_) {
            csv_.put_u64(index);
            csv_.put_char(',');
            csv_.put_u64(in_cycle);
            csv_.put_char(',');
            csv_.put_u64(out_cycle);
            csv_.put_char(',');
            csv_.put_i64(lat);
            csv_.put_char('\n');
        }
    }

    // ---- input side ------------------------------------------------------------------------------
    // Loads the next input frame (if any) and its earliest start cycle.
    void load_next_frame() {
        uint32_t len = 0;
        if (!reader_.next(cur_.data(), len)) {
            have_frame_ = false;
            return;
        }
        have_frame_ = true;
        cur_len_ = len;
        cur_beats_ = (len + KEEP_W - 1) / KEEP_W;
        // Zero the tail of the last beat so that the bytes beyond tkeep are deterministic.
        memset(cur_.data() + len, 0, (size_t)cur_beats_ * KEEP_W - len);
        last_keep_ = (len % KEEP_W) ? ((1ull << (len % KEEP_W)) - 1) : KEEP_ALL;
        beat_ = 0;
        cur_index_ = next_index_++;
        if (cycles_per_bit_ > 0) {
            start_at_ = traffic_start_ + (uint64_t)std::ceil((double)wire_bits_ * cycles_per_bit_ - 1e-6);
            wire_bits_ += ((uint64_t)len + 24) * 8;
        } else {
            start_at_ = 0;
        }
    }

    inline void present_beat() {
        memcpy(bytes_of(t_->s_axis_tdata), cur_.data() + (size_t)beat_ * KEEP_W, KEEP_W);
        const bool last = beat_ + 1 == cur_beats_;
        t_->s_axis_tkeep = (TKeep)(last ? last_keep_ : KEEP_ALL);
        t_->s_axis_tlast = last;
        t_->s_axis_tuser = 0;
        t_->s_axis_tvalid = 1;
        offered_ = true;
    }

    void drive_idle_stream() {
        t_->s_axis_tvalid = 0;
        t_->s_axis_tlast = 0;
        t_->s_axis_tuser = 0;
        t_->s_axis_tkeep = 0;
        t_->m_axis_tready = 1;
    }

    // Called at the top of an idle cycle inside a pacing gap, with nothing in flight. If the
    // model's entire state (every byte of the verilated root, inputs included) is unchanged
    // over the previous cycle, which was idle with the same inputs, the model is at a fixed
    // point: every further idle cycle would leave it (and its outputs) exactly as they are.
    // Then jump to the cycle where the next frame may start, accounting the skipped cycles.
    // Otherwise take a snapshot to compare with at the next cycle. Returns true after a jump.
    bool skip_gap(bool prev_clean, bool prev_s_ready) {
        const uint64_t c = cycle_;
        const void* root = static_cast<const void*>(t_->rootp);
        if (snap_cycle_ + 1 == c && prev_clean) {
            if (memcmp(snap_.data(), root, sizeof(Root)) == 0) {
                const uint64_t gap = start_at_ - c;
                cycle_ = start_at_;
                skipped_cycles_ += gap;
                m_quiet_ += gap;
                if (!prev_s_ready) ready_low_cycles_ += gap;
                skip_fails_ = 0;
                snap_cycle_ = ~0ull;
                return true;
            }
            ++skip_fails_;
        }
        // A model that never settles (a free-running counter, say) is re-checked less often.
        if (skip_fails_ < 64 || (c & 63) == 0) {
            memcpy(snap_.data(), root, sizeof(Root));
            snap_cycle_ = c;
        }
        return false;
    }

    void traffic();
    uint32_t axil_access(bool write, uint32_t addr, uint32_t data, const char* what, bool fatal_on_err);
    void progress_line(double t);
    void watchdog_fire(uint64_t c);
    int finish();

    const Options& o_;
    ws::PcapReader& reader_;
    const uint64_t total_frames_;
    std::unique_ptr<VerilatedContext> ctx_;
    std::unique_ptr<Top> top_;
    Top* t_ = nullptr;
    std::unique_ptr<ws::AxilMaster<Top>> axil_;
    Rng rng_idle_, rng_stall_;
    bool idle_on_ = false, stall_on_ = false;
    double cycles_per_bit_ = 0;

public:
    ws::PcapWriter pcap_out_;
    ws::BufferedFile csv_;
    bool csv_on_ = false;

private:
    uint64_t cycle_ = 0;
    double wall_start_ = 0, wall_end_ = 0;

    // input side
    std::vector<uint8_t> cur_;
    bool have_frame_ = false, offered_ = false;
    uint32_t cur_len_ = 0, cur_beats_ = 0, beat_ = 0;
    uint64_t last_keep_ = 0, cur_index_ = 0, next_index_ = 0;
    uint64_t traffic_start_ = 0, start_at_ = 0, wire_bits_ = 0;
    uint64_t frames_started_ = 0, in_done_ = 0, bytes_in_ = 0;
    bool any_in_ = false, any_offer_ = false;
    uint64_t first_in_cycle_ = 0, last_in_cycle_ = 0, first_offer_cycle_ = 0;
    uint64_t in_stall_cycles_ = 0, ready_low_cycles_ = 0, out_stall_cycles_ = 0;

    // output side
    std::vector<uint8_t> out_;
    bool out_active_ = false, any_out_ = false;
    size_t out_pos_ = 0;
    uint64_t out_first_cycle_cur_ = 0, first_out_cycle_ = 0, last_out_cycle_ = 0;
    uint64_t outs_done_ = 0, packets_out_ = 0, bytes_out_ = 0, aborted_ = 0;
    uint64_t m_quiet_ = 0, keep_issues_ = 0;

    // status stream and matching
    Ring<InFlight> inflight_;
    Ring<Waiting> waiting_;
    Ring<uint64_t> unmatched_out_;
    uint64_t stats_ = 0, emit_count_ = 0, len_mismatch_ = 0, bad_outcome_ = 0;
    uint64_t stat_pkts_[kNumOutcomes] = {}, stat_bytes_[kNumOutcomes] = {};
    int64_t lat_min_ = INT64_MAX, lat_max_ = INT64_MIN, lat_sum_ = 0;
    uint64_t lat_count_ = 0;

    // progress
    double last_progress_ = 0;

    // idle fast-forward
    std::vector<uint8_t> snap_ = std::vector<uint8_t>(sizeof(Root));
    uint64_t snap_cycle_ = ~0ull, skipped_cycles_ = 0, skip_fails_ = 0;
};

uint32_t Sim::axil_access(bool write, uint32_t addr, uint32_t data, const char* what,
                          bool fatal_on_err) {
    if (write) axil_->start_write(addr, data);
    else axil_->start_read(addr);
    const uint64_t t0 = cycle_;
    while (axil_->busy()) {
        if (cycle_ - t0 > kAxilTimeout)
            die(EXIT_AXIL, "AXI4-Lite %s 0x%04x (%s): no answer after %llu cycles (waiting for %s)",
                write ? "write to" : "read of", addr, what, (unsigned long long)kAxilTimeout,
                axil_->waiting_for());
        idle_cycle(true);
    }
    if (axil_->resp() != 0 && fatal_on_err) {
        if (write)
            die(EXIT_AXIL, "AXI4-Lite write 0x%08x to 0x%04x (%s) answered %s", data, addr, what,
                ws::axil_resp_name(axil_->resp()));
        die(EXIT_AXIL, "AXI4-Lite read of 0x%04x (%s) answered %s", addr, what,
            ws::axil_resp_name(axil_->resp()));
    }
    return write ? axil_->resp() : axil_->rdata();
}

void Sim::progress_line(double t) {
    const double el = t - wall_start_;
    fprintf(stderr,
            "ws_sim: cycle %llu (%llu idle skipped)  in %llu/%llu (%.1f%%)  out %llu  aborted "
            "%llu  %.3f Mpkt/s\n",
            (unsigned long long)cycle_, (unsigned long long)skipped_cycles_,
            (unsigned long long)in_done_,
            (unsigned long long)total_frames_,
            total_frames_ ? 100.0 * (double)in_done_ / (double)total_frames_ : 100.0,
            (unsigned long long)packets_out_, (unsigned long long)aborted_,
            el > 0 ? (double)in_done_ / el / 1e6 : 0.0);
}

void Sim::watchdog_fire(uint64_t c) {
    fprintf(stderr,
            "ws_sim: error: watchdog: frames are pending but nothing moved on s_axis, m_axis or "
            "m_stat for %llu cycles (now cycle %llu)\n",
            (unsigned long long)o_.max_idle_cycles, (unsigned long long)c);
    char where[160];
    if (have_frame_)
        snprintf(where, sizeof where, "%s (frame %llu, beat %u of %u)",
                 offered_ ? "a beat is offered and not accepted" : "no beat offered",
                 (unsigned long long)cur_index_, beat_ + 1, cur_beats_);
    else
        snprintf(where, sizeof where, "every frame sent");
    fprintf(stderr,
            "  input: %llu of %llu frames fully accepted; %s; s_axis_tready=%u\n"
            "  status: %llu of %llu m_stat pulses received (%llu with emit=1)\n"
            "  output: %llu frames finished (%llu written, %llu aborted)%s; m_axis_tvalid=%u, "
            "m_axis_tready=%u\n",
            (unsigned long long)in_done_, (unsigned long long)total_frames_, where,
            (unsigned)t_->s_axis_tready,
            (unsigned long long)stats_, (unsigned long long)total_frames_,
            (unsigned long long)emit_count_, (unsigned long long)outs_done_,
            (unsigned long long)packets_out_, (unsigned long long)aborted_,
            out_active_ ? ", one frame in progress" : "", (unsigned)t_->m_axis_tvalid,
            (unsigned)t_->m_axis_tready);
    try {
        pcap_out_.close();
        if (csv_on_) csv_.close();
    } catch (const ws::FileError&) {
    }
    exit(EXIT_WATCHDOG);
}

// The hot loop: every cycle of the traffic phase.
void Sim::traffic() {
    traffic_start_ = cycle_;
    load_next_frame();
    uint64_t last_move = cycle_;
    uint64_t done_since = 0, iter = 0;
    bool done_state = false;
    // Idle fast-forward (see skip_gap()); only with a constant m_axis_tready.
    const bool skip_on = o_.skip_idle && !stall_on_;
    bool prev_clean = false, prev_s_ready = true;
    t_->m_axis_tready = 1;
    for (;;) {
        // ---- fast-forward over a pacing gap once the model sits at a fixed point ----
        if (skip_on && !offered_ && beat_ == 0 && have_frame_ && start_at_ > cycle_ + 2 &&
            frames_started_ == stats_ && outs_done_ >= emit_count_ && !out_active_) {
            if (skip_gap(prev_clean, prev_s_ready)) continue;
        }
        const uint64_t c = cycle_;
        // ---- drive ----
        if (!offered_) {
            if (have_frame_ && (beat_ != 0 || c >= start_at_) &&
                !(idle_on_ && rng_idle_.hit(o_.idle_prob))) {
                present_beat();
                if (!any_offer_) any_offer_ = true, first_offer_cycle_ = c;
            } else {
                t_->s_axis_tvalid = 0;
            }
        }
        if (stall_on_) t_->m_axis_tready = !rng_stall_.hit(o_.stall_prob);

        // ---- settle, sample ----
        settle();
        bool moved = false;
        const bool s_ready = t_->s_axis_tready;
        if (!s_ready) ++ready_low_cycles_;
        if (offered_) {
            if (s_ready) {
                moved = true;
                offered_ = false;
                if (!any_in_) any_in_ = true, first_in_cycle_ = c;
                last_in_cycle_ = c;
                if (beat_ == 0) {
                    inflight_.push({cur_index_, c, cur_len_});
                    ++frames_started_;
                }
                if (++beat_ == cur_beats_) {
                    ++in_done_;
                    bytes_in_ += cur_len_;
                    load_next_frame();
                }
            } else {
                ++in_stall_cycles_;
            }
        }
        moved |= monitor_sample(c);
        prev_clean = !moved && m_quiet_ > 0;
        prev_s_ready = s_ready;

        // ---- edge ----
        edge();

        // ---- bookkeeping: end, watchdog, progress ----
        const bool drained = !offered_ && frames_started_ == stats_ && outs_done_ >= emit_count_ &&
                             !out_active_;
        if (drained && !have_frame_ && in_done_ == total_frames_) {
            if (!done_state) done_state = true, done_since = c;
            if (m_quiet_ >= kQuietCycles) break;
            if (c - done_since > o_.max_idle_cycles) {
                fprintf(stderr, "ws_sim: error: watchdog: all frames are done but m_axis did not go "
                                "quiet for %llu cycles\n",
                        (unsigned long long)o_.max_idle_cycles);
                exit(EXIT_WATCHDOG);
            }
        } else {
            done_state = false;
        }
        if (moved || drained) {
            last_move = c;
        } else if (c - last_move >= o_.max_idle_cycles) {
            watchdog_fire(c);
        }
        if ((++iter & 0xffff) == 0) {
            if (ctx_->gotFinish()) die(EXIT_BALANCE, "the RTL called $finish at cycle %llu", (unsigned long long)c);
            if (o_.progress) {
                const double t = now_seconds();
                if (t - last_progress_ >= 1.0) {
                    last_progress_ = t;
                    progress_line(t);
                }
            }
        }
    }
}

int Sim::run(const std::vector<RegWrite>& writes) {
    wall_start_ = now_seconds();
    last_progress_ = wall_start_;

    // ---- reset ----
    axil_->idle_signals();
    drive_idle_stream();
    memset(bytes_of(t_->s_axis_tdata), 0, KEEP_W);
    t_->clk = 0;
    t_->rst = 1;
    for (uint32_t i = 0; i < kResetCycles; ++i) idle_cycle(false);
    t_->rst = 0;
    for (int i = 0; i < 2; ++i) idle_cycle(true);

    // ---- identify, configure ----
    const uint32_t id = axil_access(false, 0x0000, 0, "ID", false);
    if (axil_->resp() != 0 || id != 0x57534731u)
        warn("ID register reads 0x%08x (%s); expected 0x57534731 (\"WSG1\")", id,
             ws::axil_resp_name(axil_->resp()));
    const uint32_t params = axil_access(false, 0x0004, 0, "PARAMS", false);
    if (axil_->resp() == 0 && (params & 0xffffu) != DATA_W)
        die(EXIT_BALANCE, "PARAMS says DATA_W=%u but the harness was built for %u-bit ports",
            params & 0xffffu, DATA_W);
    for (const RegWrite& w : writes) {
        axil_access(true, w.addr, w.value, "", false);
        if (axil_->resp() != 0)
            die(EXIT_AXIL, "%s:%d: AXI4-Lite write 0x%08x to 0x%04x answered %s", o_.regs.c_str(),
                w.line, w.value, w.addr, ws::axil_resp_name(axil_->resp()));
    }

    // ---- traffic ----
    traffic();
    return finish();
}

int Sim::finish() {
    drive_idle_stream();
    uint64_t reg_pkts[kNumOutcomes], reg_bytes[kNumOutcomes];
    char what[64];
    auto read64 = [&](uint32_t addr, const char* name) -> uint64_t {
        snprintf(what, sizeof what, "%s lo", name);
        const uint64_t lo = axil_access(false, addr, 0, what, true);
        snprintf(what, sizeof what, "%s hi", name);
        const uint64_t hi = axil_access(false, addr + 4, 0, what, true);
        return (hi << 32) | lo;
    };
    for (int n = 0; n < kNumOutcomes; ++n) {
        char name[64];
        snprintf(name, sizeof name, "%s packets", kOutcomeNames[n]);
        reg_pkts[n] = read64(0x100 + 16 * n, name);
        snprintf(name, sizeof name, "%s bytes", kOutcomeNames[n]);
        reg_bytes[n] = read64(0x108 + 16 * n, name);
    }
    const uint64_t tx_pkts = read64(0x200, "TX packets");
    const uint64_t tx_bytes = read64(0x208, "TX bytes");
    wall_end_ = now_seconds();
    if (o_.progress) progress_line(wall_end_);
    top_->final();

    pcap_out_.close();
    if (csv_on_) csv_.close();

    // ---- checks ----
    std::vector<std::string> errors;
    uint64_t sum_pkts = 0, sum_bytes = 0;
    for (int n = 0; n < kNumOutcomes; ++n) sum_pkts += reg_pkts[n], sum_bytes += reg_bytes[n];
    auto check = [&](bool ok, std::string msg) {
        if (!ok) errors.push_back(std::move(msg));
    };
    using ull = unsigned long long;
    check(in_done_ == sum_pkts,
          ws::fmt("BALANCE: frames in (%llu) != sum of the outcome packet counters (%llu)",
                  (ull)in_done_, (ull)sum_pkts));
    check(packets_out_ + aborted_ == emit_count_,
          ws::fmt("BALANCE: frames written (%llu) + aborted (%llu) != m_stat pulses with emit=1 "
                  "(%llu)",
                  (ull)packets_out_, (ull)aborted_, (ull)emit_count_));
    check(bytes_in_ == sum_bytes,
          ws::fmt("bytes in (%llu) != sum of the outcome byte counters (%llu)", (ull)bytes_in_,
                  (ull)sum_bytes));
    check(stats_ == in_done_, ws::fmt("m_stat pulses (%llu) != frames in (%llu)", (ull)stats_,
                                       (ull)in_done_));
    for (int n = 0; n < kNumOutcomes; ++n) {
        check(reg_pkts[n] == stat_pkts_[n] && reg_bytes[n] == stat_bytes_[n],
              ws::fmt("outcome %s: counters say %llu packets / %llu bytes, m_stat says %llu / %llu",
                      kOutcomeNames[n], (ull)reg_pkts[n], (ull)reg_bytes[n], (ull)stat_pkts_[n],
                      (ull)stat_bytes_[n]));
    }
    check(tx_pkts == packets_out_ && tx_bytes == bytes_out_,
          ws::fmt("TX counters say %llu packets / %llu bytes, but %llu whole frames / %llu bytes "
                  "left m_axis",
                  (ull)tx_pkts, (ull)tx_bytes, (ull)packets_out_, (ull)bytes_out_));
    check(len_mismatch_ == 0,
          ws::fmt("%llu m_stat pulse(s) gave a length different from the input frame's",
                  (ull)len_mismatch_));
    check(bad_outcome_ == 0,
          ws::fmt("%llu m_stat pulse(s) carried an outcome code above 13", (ull)bad_outcome_));

    // ---- report ----
    const double wall = wall_end_ - wall_start_;
    ws::JsonWriter j;
    j.begin_object();
    j.field("data_width", DATA_W);
    j.field("clock_mhz", o_.clock_mhz);
    j.field("line_rate_gbps", o_.line_rate_gbps);
    j.field("packets_in", in_done_);
    j.field("bytes_in", bytes_in_);
    j.field("packets_out", packets_out_);
    j.field("bytes_out", bytes_out_);
    j.field("aborted", aborted_);
    uint64_t cycles = 0;
    if (any_offer_) {
        uint64_t last = any_out_ ? last_out_cycle_ : last_in_cycle_;
        if (any_in_ && last_in_cycle_ > last) last = last_in_cycle_;
        cycles = last - first_offer_cycle_ + 1;
    }
    j.field("cycles", cycles);
    j.field("first_in_cycle", first_in_cycle_);
    j.field("last_in_cycle", last_in_cycle_);
    j.field("first_out_cycle", first_out_cycle_);
    j.field("last_out_cycle", last_out_cycle_);
    j.field("in_stall_cycles", in_stall_cycles_);
    j.field("out_stall_cycles", out_stall_cycles_);
    j.field("ready_low_cycles", ready_low_cycles_);
    j.key("latency_cycles");
    j.begin_object();
    if (lat_count_) {
        j.field("min", lat_min_);
        j.field("max", lat_max_);
        j.field("mean", (double)lat_sum_ / (double)lat_count_);
    } else {
        j.key("min"), j.null();
        j.key("max"), j.null();
        j.key("mean"), j.null();
    }
    j.field("count", lat_count_);
    j.end_object();
    auto outcomes = [&](const char* key, const uint64_t* p, const uint64_t* b) {
        j.key(key);
        j.begin_object();
        for (int n = 0; n < kNumOutcomes; ++n) {
            j.key(kOutcomeNames[n]);
            j.begin_object();
            j.field("packets", p[n]);
            j.field("bytes", b[n]);
            j.end_object();
        }
        j.end_object();
    };
    outcomes("outcomes", reg_pkts, reg_bytes);
    outcomes("stat_outcomes", stat_pkts_, stat_bytes_);
    j.field("tx_packets", tx_pkts);
    j.field("tx_bytes", tx_bytes);
    j.field("wall_seconds", wall);
    j.field("sim_packets_per_second", wall > 0 ? (double)in_done_ / wall : 0.0);
    j.end_object();
    const std::string doc = j.str();
    FILE* jf = fopen(o_.json.c_str(), "w");
    if (!jf) die(EXIT_INPUT, "%s: cannot open for writing: %s", o_.json.c_str(), strerror(errno));
    if (fwrite(doc.data(), 1, doc.size(), jf) != doc.size() || fclose(jf) != 0)
        die(EXIT_INPUT, "%s: write failed: %s", o_.json.c_str(), strerror(errno));

    if (keep_issues_)
        warn("%llu m_axis beat(s) had unexpected tkeep (see the first warnings above)", (ull)keep_issues_);
    if (!errors.empty()) {
        for (const auto& e : errors) fprintf(stderr, "ws_sim: error: %s\n", e.c_str());
        return EXIT_BALANCE;
    }
    return EXIT_OK;
}

}  // namespace

int main(int argc, char** argv) {
    const Options o = parse_args(argc, argv);
    std::vector<RegWrite> writes;
    if (!o.regs.empty()) writes = read_regs(o.regs);
    try {
        ws::PcapReader reader;
        reader.open(o.in);
        const uint64_t total = reader.validate();
        if (reader.snapped())
            warn("%s: %llu record(s) were cut short by the capture's snap length; only the "
                 "captured bytes are simulated",
                 o.in.c_str(), (unsigned long long)reader.snapped());
        Sim sim(o, reader, total);
        sim.pcap_out_.open(o.out);
        if (!o.latency_csv.empty()) {
            sim.csv_.open(o.latency_csv, 1u << 20);
            sim.csv_.put_str("index_in,first_in_cycle,first_out_cycle,latency\n");
            sim.csv_on_ = true;
        }
        return sim.run(writes);
    } catch (const ws::FileError& e) {
        fprintf(stderr, "ws_sim: error: %s\n", e.msg.c_str());
        return EXIT_INPUT;
    } catch (const std::exception& e) {
        fprintf(stderr, "ws_sim: internal error: %s\n", e.what());
        return EXIT_INTERNAL;
    }
}
