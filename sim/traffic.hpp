// The traffic phase of a harness, for any number of directions (ws::Direction) run at once:
// pacing, idle fast-forward, end of run, watchdog, progress (sim/README.md).
#pragma once

#include "clock.hpp"
#include "stream.hpp"
#include "util.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace ws {

// "<prog>: cycle N (K idle skipped)  [label ]in a/b (p%)  out o  aborted x ...  R Mpkt/s"
template <class Clk, class... D>
void progress_line(const Clk& k, double wall_start, double t, const D&... d) {
    const double el = t - wall_start;
    uint64_t in = 0;
    ((in += d.src.in_done()), ...);
    fprintf(stderr, "%s: cycle %llu (%llu idle skipped)", g_prog, (unsigned long long)k.cycle(),
            (unsigned long long)k.skipped_cycles());
    (d.print_progress(stderr), ...);
    fprintf(stderr, "  %.3f Mpkt/s\n", el > 0 ? (double)in / el / 1e6 : 0.0);
}

// Closes every output file (ignoring errors) and exits 3, saying where each direction is.
template <class... D>
[[noreturn]] void watchdog_fire(uint64_t c, uint64_t max_idle, D&... d) {
    std::vector<std::string> names;
    (
        [&] {
            for (auto& n : d.port_names()) names.push_back(n);
        }(),
        ...);
    fprintf(stderr,
            "%s: error: watchdog: frames are pending but nothing moved on %s for %llu cycles "
            "(now cycle %llu)\n",
            g_prog, join_or(names).c_str(), (unsigned long long)max_idle, (unsigned long long)c);
    (d.print_state(stderr), ...);
    (
        [&] {
            try {
                d.close();
            } catch (const FileError&) {
            }
        }(),
        ...);
    exit(EXIT_WATCHDOG);
}

// Runs every cycle of the traffic phase, until every frame of every direction has been accepted,
// has its status, every announced output frame has finished and every output has been quiet for
// kQuietCycles. `hook(c)` is called in each cycle after the sampling (extra side-band checks).
template <class Clk, class Hook, class... D>
void run_traffic(Clk& k, const CommonOptions& o, double wall_start, double& last_progress,
                 Hook&& hook, D&... d) {
    (d.src.begin(k.cycle()), ...);
    uint64_t last_move = k.cycle();
    uint64_t done_since = 0, iter = 0;
    bool done_state = false;
    // Idle fast-forward: only with constant output tready.
    const bool skip_on = o.skip_idle && !(d.sink.stall_on() || ...);
    bool prev_clean = false;
    (d.sink.set_ready(true), ...);
    for (;;) {
        // ---- fast-forward over a pacing gap once the model sits at a fixed point ----
        // Every direction drained; those with frames left wait for their pacing time (more than
        // kSkipMin cycles away); the jump goes to the earliest of those times.
        if (skip_on && (d.src.have_frame() || ...) &&
            ((d.drained() && (!d.src.have_frame() || d.src.in_gap(k.cycle()))) && ...)) {
            if (k.at_fixed_point(prev_clean)) {
                uint64_t target = ~0ull;
                ((target = d.src.have_frame() ? std::min(target, d.src.start_at()) : target), ...);
                const uint64_t gap = target - k.cycle();
                k.jump_to(target);
                (d.sink.account_skip(gap), ...);
                (d.src.account_skip(gap), ...);
                continue;
            }
        }
        const uint64_t c = k.cycle();
        // ---- drive ----
        (d.drive(c), ...);

        // ---- settle, sample ----
        k.settle();
        bool moved = false;
        ((moved |= d.sample(c)), ...);
        hook(c);
        prev_clean = !moved && ((d.sink.quiet() > 0) && ...);

        // ---- edge ----
        k.edge();

        // ---- bookkeeping: end, watchdog, progress ----
        const bool drained = (d.drained() && ...);
        if (drained && (d.all_sent() && ...)) {
            if (!done_state) done_state = true, done_since = c;
            if (((d.sink.quiet() >= kQuietCycles) && ...)) break;
            if (c - done_since > o.max_idle_cycles) {
                fprintf(stderr, "%s: error: watchdog: all frames are done but %s did not go "
                                "quiet for %llu cycles\n",
                        g_prog, join_or({d.sink.name()...}).c_str(),
                        (unsigned long long)o.max_idle_cycles);
                exit(EXIT_WATCHDOG);
            }
        } else {
            done_state = false;
        }
        if (moved || drained) {
            last_move = c;
        } else if (c - last_move >= o.max_idle_cycles) {
            watchdog_fire(c, o.max_idle_cycles, d...);
        }
        if ((++iter & 0xffff) == 0) {
            if (k.context()->gotFinish())
                die(EXIT_BALANCE, "the RTL called $finish at cycle %llu", (unsigned long long)c);
            if (o.progress) {
                const double t = now_seconds();
                if (t - last_progress >= 1.0) {
                    last_progress = t;
                    progress_line(k, wall_start, t, d...);
                }
            }
        }
    }
}

// Report field "cycles" over several directions: first offered beat to last handshake.
template <class... D>
uint64_t span_cycles(const D&... d) {
    uint64_t first = ~0ull, last = 0;
    bool any = false;
    (
        [&] {
            uint64_t f, l;
            if (d.span(f, l)) {
                any = true;
                first = std::min(first, f);
                last = std::max(last, l);
            }
        }(),
        ...);
    return any ? last - first + 1 : 0;
}

}  // namespace ws
