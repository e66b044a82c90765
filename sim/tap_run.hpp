// The live loop of the TAP harnesses (sim/README.md "Live on TAP devices"): read frames from the
// TAPs, clock the model while anything is in flight, sleep in poll() while nothing is, show the
// rates about once a second, stop on SIGINT/SIGTERM after draining, then read the counters and
// check that they balance.
#pragma once

#include "clock.hpp"
#include "json.hpp"
#include "tap_stream.hpp"
#include "util.hpp"

#include <csignal>
#include <poll.h>
#include <string>
#include <unistd.h>
#include <vector>

namespace ws {

inline volatile sig_atomic_t g_tap_stop = 0;

inline void tap_on_signal(int sig) {
    if (g_tap_stop) {  // a second Ctrl-C: leave now (the TAPs go with the process)
        signal(sig, SIG_DFL);
        raise(sig);
    }
    g_tap_stop = sig;
}

inline void install_stop_handlers() {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = tap_on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;  // no SA_RESTART: poll() returns EINTR at once
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    sigaction(SIGHUP, &sa, nullptr);
    signal(SIGPIPE, SIG_IGN);
}

struct TapOptions {
    std::string regs;
    bool json = false, quiet = false;
    double interval = 1.0;
    double clock_mhz = 250.0;
    uint64_t max_idle_cycles = 1000000;
    size_t queue = 64;
    double duration = 0;  // stop by itself after this many seconds (0: run until a signal)
    double loss = 0, reorder = 0;  // impairments of the network-side input (no netem here)
    uint64_t seed = 1;
    // Read a TAP (every 16 clocked cycles) only while fewer than this many beats wait in its
    // port's queue; 0: at every such point, whatever is queued (the harness before issue 30's
    // profile: about four read() calls finding nothing per frame under load).
    uint32_t read_low_beats = 32;

    bool parse(ArgScanner& a) {
        const std::string& f = a.flag();
        if (f == "--regs") regs = a.value();
        else if (f == "--json") a.no_value(), json = true;
        else if (f == "--quiet") a.no_value(), quiet = true;
        else if (f == "--interval") interval = parse_double(f, a.value());
        else if (f == "--clock-mhz") clock_mhz = parse_double(f, a.value());
        else if (f == "--max-idle-cycles") max_idle_cycles = parse_u64(f, a.value());
        else if (f == "--queue") queue = parse_u64(f, a.value());
        else if (f == "--duration") duration = parse_double(f, a.value());
        else if (f == "--loss") loss = parse_double(f, a.value());
        else if (f == "--reorder") reorder = parse_double(f, a.value());
        else if (f == "--seed") seed = parse_u64(f, a.value());
        else if (f == "--read-low-beats") read_low_beats = (uint32_t)parse_u64(f, a.value());
        else return false;
        return true;
    }
    void validate() const {
        if (!(interval >= 0.05)) die(EXIT_INPUT, "--interval: must be >= 0.05 s (got %g)", interval);
        if (!(clock_mhz > 0)) die(EXIT_INPUT, "--clock-mhz: must be > 0");
        if (queue < 1 || queue > 4096) die(EXIT_INPUT, "--queue: must be 1..4096 frames");
        if (max_idle_cycles == 0) die(EXIT_INPUT, "--max-idle-cycles: must be > 0");
        if (duration < 0) die(EXIT_INPUT, "--duration: must be >= 0");
        if (loss < 0 || loss >= 1) die(EXIT_INPUT, "--loss: must be in [0, 1)");
        if (reorder < 0 || reorder >= 1) die(EXIT_INPUT, "--reorder: must be in [0, 1)");
    }
};

// Totals and rates of one port or outcome, between two views.
struct Meter {
    std::string group, name, detail;  // e.g. "port", "net rx", "wsnet (netns cloud)"
    uint64_t frames = 0, bytes = 0, prev_frames = 0, prev_bytes = 0;
    double fps = 0, bps = 0;
    void update(uint64_t f, uint64_t b, double dt) {
        prev_frames = frames, prev_bytes = bytes;
        frames = f, bytes = b;
        fps = dt > 0 ? (double)(frames - prev_frames) / dt : 0;
        bps = dt > 0 ? (double)(bytes - prev_bytes) * 8.0 / dt : 0;  // frame bytes, no FCS
    }
};

// What the live loop itself did (the harness's own profile, docs/tap.md "Figures"): cycles
// clocked with a frame in flight and without (the tail before sleeping), sleeps in poll(), and
// the TAP system calls, summed over the ports.
struct LoopStats {
    uint64_t busy_cycles = 0;   // every cycle clocked by the live loop
    uint64_t idle_cycles = 0;   // ... of them with nothing in flight in any direction
    uint64_t polls = 0;         // poll() calls (sleeps while idle)
    uint64_t reads = 0, empty_reads = 0, writes = 0;
    void json(JsonWriter& j) const {
        j.key("loop");
        j.begin_object();
        j.field("busy_cycles", busy_cycles);
        j.field("idle_cycles", idle_cycles);
        j.field("polls", polls);
        j.field("tap_reads", reads);
        j.field("tap_empty_reads", empty_reads);
        j.field("tap_writes", writes);
        j.end_object();
    }
};

// One line of JSON (the writer pretty-prints; its strings hold no raw newline).
inline std::string json_line(const JsonWriter& j) {
    std::string s = j.str(), o;
    o.reserve(s.size());
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\n') {
            while (i + 1 < s.size() && s[i + 1] == ' ') ++i;
            continue;
        }
        o += s[i];
    }
    return o + "\n";
}

class LiveView {
public:
    LiveView(const TapOptions& o, std::string title) : o_(o), title_(std::move(title)), tty_(isatty(1)) {}

    std::vector<Meter> meters;  // filled by the harness (ports first, then outcomes)
    LoopStats loop;             // kept up to date by run_live()

    // stats: (frames, bytes) of each meter in order.
    void tick(double t, const std::vector<std::pair<uint64_t, uint64_t>>& stats, uint64_t cycles,
              uint64_t busy_cycles, const char* state) {
        const double dt = t - last_t_;
        last_t_ = t;
        for (size_t i = 0; i < meters.size(); ++i) meters[i].update(stats[i].first, stats[i].second, dt);
        const double cps = dt > 0 ? (double)(cycles - last_cycles_) / dt : 0;
        last_cycles_ = cycles;
        if (o_.quiet) return;
        if (o_.json) {
            JsonWriter j;
            j.begin_object();
            j.field("t", t - t0_);
            j.field("state", state);
            fields(j, cycles, busy_cycles, cps);
            j.end_object();
            fputs(json_line(j).c_str(), stdout);
        } else {
            std::string s;
            if (tty_) s += "\033[H\033[2J";
            s += table(t, cycles, busy_cycles, cps, state);
            fputs(s.c_str(), stdout);
        }
        fflush(stdout);
    }
    void start(double t, uint64_t cycles) { t0_ = last_t_ = t, last_cycles_ = cycles; }

    // Every meter as JSON fields: "ports": {"net rx": {...}}, "outcomes": {...}.
    void fields(JsonWriter& j, uint64_t cycles, uint64_t busy_cycles, double cps) const {
        j.field("cycles", cycles);
        j.field("busy_cycles", busy_cycles);
        j.field("cycles_per_second", cps);
        loop.json(j);
        for (const char* g : {"port", "outcome"}) {
            j.key(strcmp(g, "port") == 0 ? "ports" : "outcomes");
            j.begin_object();
            for (const Meter& m : meters) {
                if (m.group != g) continue;
                j.key(m.name.c_str());
                j.begin_object();
                if (!m.detail.empty()) j.field("tap", m.detail.c_str());
                j.field("frames", m.frames);
                j.field("bytes", m.bytes);
                j.field("frames_per_second", m.fps);
                j.field("bits_per_second", m.bps);
                j.end_object();
            }
            j.end_object();
        }
    }

    std::string table(double t, uint64_t cycles, uint64_t busy_cycles, double cps, const char* state) const {
        std::string s;
        char b[256];
        snprintf(b, sizeof b, "%s  up %.1f s  %s  cycle %llu (%llu busy, %.0f cycles/s now)\n", title_.c_str(),
                 t - t0_, state, (unsigned long long)cycles, (unsigned long long)busy_cycles, cps);
        s += b;
        for (const char* g : {"port", "outcome"}) {
            snprintf(b, sizeof b, "  %-36s %11s %11s %12s %14s\n", strcmp(g, "port") == 0 ? "port" : "outcome",
                     "frames/s", "Mbit/s", "frames", "bytes");
            s += b;
            for (const Meter& m : meters) {
                if (m.group != g || (m.frames == 0 && strcmp(g, "outcome") == 0)) continue;
                std::string name = m.name + (m.detail.empty() ? "" : " " + m.detail);
                snprintf(b, sizeof b, "  %-36s %11.1f %11.3f %12llu %14llu\n", name.c_str(), m.fps, m.bps / 1e6,
                         (unsigned long long)m.frames, (unsigned long long)m.bytes);
                s += b;
            }
        }
        return s;
    }

private:
    const TapOptions& o_;
    std::string title_;
    bool tty_;
    double t0_ = 0, last_t_ = 0;
    uint64_t last_cycles_ = 0;
};

// Runs until a signal (or --duration), then drains what is in flight. `stats()` returns the
// meters' (frames, bytes).
template <class Clk, class Stats, class... D>
void run_live(Clk& k, const TapOptions& o, LiveView& view, Stats&& stats, uint64_t& busy_cycles, D&... d) {
    std::vector<pollfd> fds;
    ((fds.push_back({d.in_tap->fd(), POLLIN, 0})), ...);
    const double t_start = now_seconds();
    view.start(t_start, k.cycle());
    double next_view = t_start + o.interval;
    uint64_t last_move = k.cycle(), iter = 0;
    bool stopping = false;
    uint32_t tail = 0;  // idle cycles run after the last movement before sleeping
    LoopStats& ls = view.loop;
    auto show = [&](double t, const char* state) {
        ls.busy_cycles = busy_cycles;
        ls.reads = (d.src.reads() + ...);
        ls.empty_reads = (d.src.empty_reads() + ...);
        ls.writes = (d.sink.writes() + ...);
        view.tick(t, stats(), k.cycle(), busy_cycles, state);
        next_view = t + o.interval;
    };
    for (;;) {
        if (!stopping && (g_tap_stop || (o.duration > 0 && now_seconds() - t_start >= o.duration))) stopping = true;
        // ---- frames from the kernel: every 16 busy cycles, and always before sleeping ----
        if (!stopping && (iter & 15) == 0)
            ((d.src.full() || (o.read_low_beats && !d.src.low(o.read_low_beats)) ? 0u : d.ingest()), ...);
        const bool idle = (d.idle() && ...);
        if (idle && tail >= 8) {
            if (stopping) break;
            // Nothing in flight: the model's clock stops until a TAP has a frame (or the view is due).
            const double t = now_seconds();
            if (t >= next_view) show(t, "idle");
            int ms = (int)((next_view - t) * 1000.0) + 1;
            if (o.duration > 0) ms = std::min(ms, 100);
            for (auto& p : fds) p.revents = 0;
            ++ls.polls;
            const int r = poll(fds.data(), fds.size(), ms);
            if (r < 0 && errno != EINTR) die(EXIT_TAP, "poll(): %s", strerror(errno));
            if (r > 0) {  // frames: clock again (a wake-up for the view alone leaves the clock stopped)
                ((d.src.full() ? 0u : d.ingest()), ...);
                tail = 0;
                last_move = k.cycle();
            }
            continue;
        }
        // ---- one cycle ----
        const uint64_t c = k.cycle();
        (d.drive(c), ...);
        k.settle();
        bool moved = false;
        ((moved |= d.sample(c)), ...);
        k.edge();
        ++busy_cycles;
        ++iter;
        if (idle) ++ls.idle_cycles;
        if (moved) last_move = c, tail = 0;
        else if (idle) ++tail;
        else if (c - last_move >= o.max_idle_cycles) {
            fprintf(stderr, "%s: error: watchdog: frames are in flight but nothing moved for %llu cycles\n", g_prog,
                    (unsigned long long)o.max_idle_cycles);
            exit(EXIT_WATCHDOG);
        }
        if ((iter & 255) == 0) {
            if (k.context()->gotFinish()) die(EXIT_BALANCE, "the RTL called $finish at cycle %llu", (unsigned long long)c);
            const double t = now_seconds();
            if (t >= next_view) show(t, "busy");
        }
    }
    show(now_seconds(), "stopped");
}

// After run_live(): the model idle, every counter read over AXI4-Lite and checked; the final
// view, then per direction the registers and the balance (stdout; a JSON line with --json).
// Returns the exit code: 0, or EXIT_BALANCE when a check failed.
template <class Clk, class... D>
int finish_live(Clk& k, const TapOptions& o, LiveView& view, uint64_t busy_cycles, D&... d) {
    (d.drive_idle(), ...);
    (d.read_counters(k), ...);
    std::vector<std::string> errors;
    (d.check(errors), ...);
    using ull = unsigned long long;
    if (o.json) {
        JsonWriter j;
        j.begin_object();
        j.field("final", 1);
        view.fields(j, k.cycle(), busy_cycles, 0.0);
        j.key("counters");
        j.begin_object();
        (
            [&] {
                j.key(d.cfg.label.c_str());
                j.begin_object();
                j.field("frames_in", d.src.in_done());
                j.field("bytes_in", d.src.bytes_in());
                j.field("tx_packets", d.tx_pkts);
                j.field("tx_bytes", d.tx_bytes);
                j.field("drops", d.reg_drops());
                j.field("aborted", d.sink.aborted());
                j.field("tap_write_drops", d.sink.write_drops());
                j.field("tap_reads", d.src.reads());
                j.field("tap_empty_reads", d.src.empty_reads());
                j.field("tap_writes", d.sink.writes());
                j.field("impaired_lost", d.src.impaired_lost());
                j.field("impaired_reordered", d.src.impaired_reordered());
                d.match.json_latency(j);  // first input beat to first output beat, in cycles
                j.key("outcomes");
                j.begin_object();
                for (int n = 0; n < d.cfg.num_outcomes; ++n) {
                    j.key(d.cfg.outcome_names[n]);
                    j.begin_object();
                    j.field("packets", d.reg_pkts[n]);
                    j.field("bytes", d.reg_bytes[n]);
                    j.end_object();
                }
                j.end_object();
                j.end_object();
            }(),
            ...);
        j.end_object();
        j.field("balanced", errors.empty() ? 1 : 0);
        j.end_object();
        fputs(json_line(j).c_str(), stdout);
    } else {
        printf("final counters (registers):\n");
        (
            [&] {
                printf("  %-6s in %llu = out %llu + drops %llu", d.cfg.label.c_str(), (ull)d.reg_in(), (ull)d.tx_pkts,
                       (ull)d.reg_drops());
                const char* sep = " (";
                for (int n = 0; n < d.cfg.num_outcomes; ++n) {
                    if (!d.reg_pkts[n]) continue;
                    printf("%s%s %llu", sep, d.cfg.outcome_names[n], (ull)d.reg_pkts[n]);
                    sep = ", ";
                }
                printf("%s%s\n", *sep == ',' ? ")" : "", d.sink.write_drops() ? "  [TAP refused some frames]" : "");
                if (d.sink.write_drops())
                    printf("         %llu frame(s) the kernel refused on the output TAP\n", (ull)d.sink.write_drops());
                if (d.src.impaired_lost() || d.src.impaired_reordered())
                    printf("         impairment before the input: %llu frame(s) lost, %llu reordered (not counted in)\n",
                           (ull)d.src.impaired_lost(), (ull)d.src.impaired_reordered());
            }(),
            ...);
        printf("  %s\n", errors.empty() ? "balanced: frames in = frames out + counted drops, per direction"
                                        : "NOT BALANCED (see the errors on stderr)");
    }
    fflush(stdout);
    for (const auto& e : errors) fprintf(stderr, "%s: error: %s\n", g_prog, e.c_str());
    k.final();
    return errors.empty() ? EXIT_OK : EXIT_BALANCE;
}

}  // namespace ws
