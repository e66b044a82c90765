// blockbench: back-to-back throughput and idle-pipeline latency of ONE wirespeed block, cycle by
// cycle in C++ (no Python per cycle). Built by scripts/report/bench.py with Verilator, once per
// (block, DATA_W), with one of these defines naming the block under test:
//
//   DUT_SKID      axis_skid        s_axis -> m_axis
//   DUT_DECAP     gre_decap        s_axis -> m_axis, AXI4-Lite idle (default registers)
//   DUT_AVST      gre_decap_avst   Avalon-ST in -> Avalon-ST out, AXI4-Lite idle
//
// and VTOP naming the Verilator class (its header is VTOP.h).
//
// Input (--scen FILE): one scenario per line, whitespace separated:
//   name count explen hexbytes
// name     label echoed in the output
// count    frames sent back to back (all identical: the frame `hexbytes`)
// explen   expected output frame length (bytes), checked on every output frame
//
// Each scenario starts on an idle, drained pipeline, so frame 0's latency is the idle-pipeline
// latency. One clock cycle = drive inputs, clk=0 eval, sample handshakes, clk=1 eval.
// Output (--json FILE): an array with one object per scenario (see write_result()).

#define BB_STR2(x) #x
#define BB_STR(x) BB_STR2(x)
#include BB_STR(VTOP.h)
#include "verilated.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using Top = VTOP;

#if defined(DUT_AVST)
using TData = std::remove_reference_t<decltype(std::declval<Top&>().s_avst_data)>;
#else
using TData = std::remove_reference_t<decltype(std::declval<Top&>().s_axis_tdata)>;
using TKeep = std::remove_reference_t<decltype(std::declval<Top&>().s_axis_tkeep)>;
#endif
constexpr unsigned KEEP_W = sizeof(TData);
static_assert(KEEP_W == 8 || KEEP_W == 16 || KEEP_W == 32 || KEEP_W == 64, "DATA_W");
constexpr uint64_t KEEP_ALL = KEEP_W == 64 ? ~0ull : ((1ull << KEEP_W) - 1);

template <class T>
inline uint8_t* bytes_of(T& port) { return reinterpret_cast<uint8_t*>(&port); }

double now_s() {
    using namespace std::chrono;
    return duration<double>(steady_clock::now().time_since_epoch()).count();
}

[[noreturn]] void die(const std::string& m) {
    fprintf(stderr, "blockbench: error: %s\n", m.c_str());
    exit(2);
}

struct Scenario {
    std::string name;
    uint32_t count = 0, explen = 0;
    std::vector<uint8_t> frame;
};

std::vector<Scenario> read_scenarios(const char* path) {
    FILE* f = fopen(path, "r");
    if (!f) die(std::string("cannot open ") + path);
    std::vector<Scenario> out;
    std::vector<char> line(1 << 20);
    while (fgets(line.data(), (int)line.size(), f)) {
        if (line[0] == '#' || line[0] == '\n') continue;
        Scenario s;
        char name[256];
        char* hex = nullptr;
        int n = 0;
        if (sscanf(line.data(), "%255s %u %u %n", name, &s.count, &s.explen, &n) != 3)
            die("bad scenario line");
        s.name = name;
        hex = line.data() + n;
        for (char* p = hex; p[0] && p[1] && p[0] != '\n'; p += 2) {
            unsigned b;
            if (sscanf(p, "%2x", &b) != 1) die("bad hex in scenario " + s.name);
            s.frame.push_back((uint8_t)b);
        }
        if (s.frame.empty() || s.count == 0) die("empty scenario " + s.name);
        out.push_back(std::move(s));
    }
    fclose(f);
    return out;
}

struct Result {
    std::string name;
    uint32_t len = 0, count = 0;
    uint64_t frames_out = 0, len_errors = 0, extra_out = 0;
    std::vector<uint64_t> in_first, in_last, out_first, out_last;
    uint64_t in_stall = 0, cycles = 0;
    double wall = 0;
};

class Bench {
public:
    Bench() {
        ctx_ = std::make_unique<VerilatedContext>();
        top_ = std::make_unique<Top>(ctx_.get(), "top");
        t_ = top_.get();
        idle_inputs();
        t_->rst = 1;
        for (int i = 0; i < 8; ++i) cycle_idle();
        t_->rst = 0;
        for (int i = 0; i < 4; ++i) cycle_idle();
    }
    ~Bench() { top_->final(); }

    Result run(const Scenario& s);

private:
    void idle_inputs() {
#if defined(DUT_AVST)
        t_->s_avst_valid = 0;
        t_->s_avst_sop = 0;
        t_->s_avst_eop = 0;
        t_->s_avst_empty = 0;
        t_->s_avst_error = 0;
        t_->m_avst_ready = 1;
#else
        t_->s_axis_tvalid = 0;
        t_->s_axis_tlast = 0;
        t_->s_axis_tuser = 0;
        t_->s_axis_tkeep = 0;
        t_->m_axis_tready = 1;
#endif
#if defined(DUT_DECAP) || defined(DUT_AVST)
        t_->s_axil_awvalid = 0;
        t_->s_axil_wvalid = 0;
        t_->s_axil_arvalid = 0;
        t_->s_axil_bready = 1;
        t_->s_axil_rready = 1;
#endif
    }
    void settle() { t_->clk = 0; t_->eval(); }
    void edge() { t_->clk = 1; t_->eval(); ++cycle_; }
    void cycle_idle() { settle(); edge(); }

    // Drive beat `b` of a frame of `len` bytes from `data` (valid), or nothing.
    void drive(const uint8_t* data, uint32_t len, uint32_t b, uint32_t beats, bool valid) {
#if defined(DUT_AVST)
        t_->s_avst_valid = valid;
        if (!valid) return;
        uint8_t* d = bytes_of(t_->s_avst_data);
        memset(d, 0, KEEP_W);
        const uint32_t off = b * KEEP_W, n = std::min<uint32_t>(KEEP_W, len - off);
        for (uint32_t i = 0; i < n; ++i) d[KEEP_W - 1 - i] = data[off + i];  // byte 0 high
        t_->s_avst_sop = b == 0;
        t_->s_avst_eop = b + 1 == beats;
        t_->s_avst_empty = b + 1 == beats ? KEEP_W - n : 0;
        t_->s_avst_error = 0;
#else
        const uint32_t off = b * KEEP_W, n = valid ? std::min<uint32_t>(KEEP_W, len - off) : 0;
        t_->s_axis_tvalid = valid;
        uint8_t* d = bytes_of(t_->s_axis_tdata);
        if (!valid) return;
        memset(d, 0, KEEP_W);
        memcpy(d, data + off, n);
        const bool last = b + 1 == beats;
        const uint64_t keep = last ? (n == 64 ? ~0ull : ((1ull << n) - 1)) : KEEP_ALL;
        t_->s_axis_tkeep = (TKeep)keep;
        t_->s_axis_tlast = last;
        t_->s_axis_tuser = 0;
#endif
    }

    bool in_ready() {
#if defined(DUT_AVST)
        return t_->s_avst_ready;
#else
        return t_->s_axis_tready;
#endif
    }

    // Output side, sampled after settle(): returns 1 = a beat moved (first beat flag and last
    // flag and byte count in out params).
    int out_sample(bool& last, uint32_t& nbytes) {
#if defined(DUT_AVST)
        if (!(t_->m_avst_valid && t_->m_avst_ready)) return 0;
        last = t_->m_avst_eop;
        nbytes = last ? KEEP_W - (uint32_t)t_->m_avst_empty : KEEP_W;
        return 1;
#else
        if (!(t_->m_axis_tvalid && t_->m_axis_tready)) return 0;
        last = t_->m_axis_tlast;
        const uint64_t k = (uint64_t)t_->m_axis_tkeep & KEEP_ALL;
        nbytes = last ? (k ? 64u - (unsigned)__builtin_clzll(k) : 0u) : KEEP_W;
        return 1;
#endif
    }

    std::unique_ptr<VerilatedContext> ctx_;
    std::unique_ptr<Top> top_;
    Top* t_ = nullptr;
    uint64_t cycle_ = 0;
};

Result Bench::run(const Scenario& s) {
    Result r;
    r.name = s.name;
    r.len = (uint32_t)s.frame.size();
    r.count = s.count;
    const uint32_t len = r.len, beats = (len + KEEP_W - 1) / KEEP_W;
    r.in_first.reserve(s.count);
    r.out_first.reserve(s.count);
    uint32_t frame = 0, beat = 0;
    bool out_active = false;
    uint32_t out_bytes = 0;
    uint64_t quiet = 0;
    const uint64_t c0 = cycle_;
    const double w0 = now_s();
    const uint64_t limit = c0 + (uint64_t)s.count * (beats + 64) * 4 + 100000;
    for (;;) {
        const bool offer = frame < s.count;
        drive(s.frame.data(), len, beat, beats, offer);
        settle();
        if (offer) {
            if (in_ready()) {
                if (beat == 0) r.in_first.push_back(cycle_);
                if (++beat == beats) {
                    r.in_last.push_back(cycle_);
                    beat = 0;
                    ++frame;
                }
            } else {
                ++r.in_stall;
            }
        }
        bool last = false;
        uint32_t nb = 0;
        const int o = out_sample(last, nb);
        if (o) {
            quiet = 0;
            if (!out_active) {
                out_active = true;
                out_bytes = 0;
                r.out_first.push_back(cycle_);
            }
            out_bytes += nb;
            if (last) {
                out_active = false;
                r.out_last.push_back(cycle_);
                ++r.frames_out;
                if (o == 1 && out_bytes != s.explen) ++r.len_errors;
            }
        } else {
            ++quiet;
        }
        edge();
        if (!offer && quiet > 64) break;
        if (cycle_ > limit) die("scenario " + s.name + ": no progress (watchdog)");
    }
    drive(nullptr, 0, 0, 1, false);
    r.cycles = cycle_ - c0;
    r.wall = now_s() - w0;
    if (r.frames_out > s.count) r.extra_out = r.frames_out - s.count;
    return r;
}

// Steady-state cycles per frame from a series of per-frame start cycles (second half).
double steady(const std::vector<uint64_t>& v) {
    if (v.size() < 4) return v.size() >= 2 ? (double)(v.back() - v.front()) / (double)(v.size() - 1) : 0;
    const size_t k = v.size() / 2;
    return (double)(v.back() - v[k]) / (double)(v.size() - 1 - k);
}

void write_result(FILE* f, const Result& r, bool first) {
    const double in_cpf = steady(r.in_first);
    const double out_cpf = steady(r.out_first);
    const long long lat = (!r.in_first.empty() && !r.out_first.empty())
                              ? (long long)r.out_first[0] - (long long)r.in_first[0] : -1;
    const long long lat_last = (!r.in_last.empty() && !r.out_last.empty())
                                   ? (long long)r.out_last[0] - (long long)r.in_last[0] : -1;
    fprintf(f,
            "%s{\"name\":\"%s\",\"len\":%u,\"frames\":%u,\"frames_out\":%llu,"
            "\"len_errors\":%llu,\"extra_out\":%llu,\"in_cycles_per_frame\":%.6f,"
            "\"out_cycles_per_frame\":%.6f,\"latency_first_cycles\":%lld,"
            "\"latency_last_cycles\":%lld,\"in_stall_cycles\":%llu,\"cycles\":%llu,"
            "\"wall_seconds\":%.6f}",
            first ? "" : ",\n", r.name.c_str(), r.len, r.count, (unsigned long long)r.frames_out,
            (unsigned long long)r.len_errors, (unsigned long long)r.extra_out, in_cpf, out_cpf,
            lat, lat_last, (unsigned long long)r.in_stall, (unsigned long long)r.cycles, r.wall);
}

}  // namespace

int main(int argc, char** argv) {
    const char *scen = nullptr, *json = nullptr;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--scen" && i + 1 < argc) scen = argv[++i];
        else if (a == "--json" && i + 1 < argc) json = argv[++i];
        else if (a == "--keep-w") { printf("%u\n", KEEP_W); return 0; }
        else die("usage: blockbench --scen FILE --json FILE | --keep-w");
    }
    if (!scen || !json) die("usage: blockbench --scen FILE --json FILE");
    const auto list = read_scenarios(scen);
    Bench b;
    FILE* f = fopen(json, "w");
    if (!f) die(std::string("cannot write ") + json);
    fprintf(f, "{\"keep_w\":%u,\"results\":[\n", KEEP_W);
    bool first = true;
    for (const auto& s : list) {
        write_result(f, b.run(s), first);
        first = false;
    }
    fprintf(f, "\n]}\n");
    fclose(f);
    return 0;
}
