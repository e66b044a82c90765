// The verilated model, its clock and its AXI4-Lite port, for the harnesses (sim/README.md,
// "The cycle model").
//
// One simulated clock cycle is two eval() calls:
//   drive inputs -> settle(): clk=0, eval (settles the logic that depends on the new inputs)
//   -> sample every valid/ready pair (the handshakes of this cycle's rising edge)
//   -> edge(): clk=1, eval
// or one, where the model allows it (ws_model.h defines WS_CLK_PREV): no output port depends
// combinationally on an input, so the outputs sampled are the ones the last edge left, and
// settle() only lowers clk and the edge detector's memory of it, which is all its eval() would
// have changed that outlives the next eval() (every eval() first recomputes the logic that
// depends on the inputs). Same cycles, same values. Where ws_model.h also names the root's eval
// function (WS_ROOT_EVAL), eval() calls it directly after the first one, without the two mutexes
// of the model's end-of-eval bookkeeping, which a single-threaded model without class objects
// does not need. WS_SIM_PLAIN_EVAL=1 in the environment turns both off: two model eval() calls
// per cycle, as before (the self-test compares the two).
// Cycle numbers count rising edges from the start of the simulation.
#pragma once

#include "axil.hpp"
#include "regmap.hpp"
#include "util.hpp"
#include "verilated.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <vector>

// The model's free-running counters (sim/README.md, "Idle fast-forward"): the simulation-only
// AXI4-Stream monitors' `cycle` registers (rtl/sim/axis_monitor.sv), which count every clock
// and feed nothing but their messages. sim/build.sh writes this header into the build
// directory after verilating, as WS_FREE_COUNTERS(X) = X(member) for each such member of the
// root class; a build without monitors gets an empty list.
#if __has_include("ws_free_counters.h")
#include "ws_free_counters.h"
#endif
#ifndef WS_FREE_COUNTERS
#define WS_FREE_COUNTERS(X)
#endif
// WS_CLK_PREV: the root member holding clk's value at the last eval() (Verilator's edge
// detector), defined by sim/build.sh only when one eval() per cycle is exact (see above).
#if __has_include("ws_model.h")
#include "ws_model.h"
#endif

namespace ws {

constexpr uint32_t kResetCycles = 8;
constexpr uint64_t kAxilTimeout = 10000;  // cycles for one AXI4-Lite transaction

// Top: the verilated class (V<top>); Root: its root state class (V<top>___024root), compared
// byte for byte by the idle fixed-point test.
template <class Top, class Root>
class Clock {
public:
    explicit Clock(const char* name) {
        ctx_ = std::make_unique<VerilatedContext>();
        ctx_->debug(0);
        top_ = std::make_unique<Top>(ctx_.get(), name);
        t = top_.get();
        axil_ = std::make_unique<AxilMaster<Top>>(t);
        const char* plain = getenv("WS_SIM_PLAIN_EVAL");
        plain_ = plain && *plain && strcmp(plain, "0") != 0;
#ifdef WS_CLK_PREV
        one_eval_ = !plain_;
#endif
#define WS_FREE_COUNTER_ADD(m) free_.push_back(&t->rootp->m);
        WS_FREE_COUNTERS(WS_FREE_COUNTER_ADD)
#undef WS_FREE_COUNTER_ADD
    }

    Top* t = nullptr;  // the model's ports

    uint64_t cycle() const { return cycle_; }
    VerilatedContext* context() { return ctx_.get(); }
    AxilMaster<Top>& axil() { return *axil_; }
    void final() { top_->final(); }

    void settle() {
        t->clk = 0;
#ifdef WS_CLK_PREV
        // (the first call evaluates: the model's initialisation runs in its first eval())
        if (one_eval_ && evaluated_) {
            t->rootp->WS_CLK_PREV = 0;
            return;
        }
#endif
        eval();
    }
    // True when a cycle takes one eval() (see the top of this file).
    bool one_eval() const { return one_eval_; }

    // The model's eval(), or its root eval function once the model is initialised.
    void eval() {
#ifdef WS_ROOT_EVAL
        if (evaluated_ && !plain_) {
            WS_ROOT_EVAL(t->rootp);
            return;
        }
#endif
        t->eval();
        evaluated_ = true;
    }
    void edge() {
        t->clk = 1;
        eval();
        ++cycle_;
    }

    // Called with the cycle number in every cycle outside the traffic loop, after settling,
    // when `monitor` is asked for (it samples the output streams).
    void set_monitor(std::function<void(uint64_t)> m) { monitor_ = std::move(m); }

    // A cycle outside the traffic loop (reset, register access, final readout).
    void idle_cycle(bool monitor) {
        settle();
        axil_->sample();
        if (monitor && monitor_) monitor_(cycle_);
        edge();
        axil_->after_edge();
    }

    // Reset: kResetCycles with rst=1, then 2 idle cycles. The streams must be idle already.
    void reset() {
        axil_->idle_signals();
        t->clk = 0;
        t->rst = 1;
        for (uint32_t i = 0; i < kResetCycles; ++i) idle_cycle(false);
        t->rst = 0;
        for (int i = 0; i < 2; ++i) idle_cycle(true);
    }

    // One AXI4-Lite transaction, run to its end. Returns the read data (or, for a write, the
    // response code); axil().resp() holds the response. No answer within kAxilTimeout cycles:
    // exit 5. An error response exits 5 when `fatal_on_err`.
    uint32_t access(bool write, uint32_t addr, uint32_t data, const char* what, bool fatal_on_err) {
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
                    axil_resp_name(axil_->resp()));
            die(EXIT_AXIL, "AXI4-Lite read of 0x%04x (%s) answered %s", addr, what,
                axil_resp_name(axil_->resp()));
        }
        return write ? axil_->resp() : axil_->rdata();
    }

    // 64-bit counter: LO (latches HI) then HI.
    uint64_t read64(uint32_t addr, const char* name) {
        char what[96];
        snprintf(what, sizeof what, "%s lo", name);
        const uint64_t lo = access(false, addr, 0, what, true);
        snprintf(what, sizeof what, "%s hi", name);
        const uint64_t hi = access(false, addr + 4, 0, what, true);
        return (hi << 32) | lo;
    }

    // The --regs writes in file order, each waiting for its B response; an error answer exits 5
    // naming the file and line.
    void apply_writes(const std::vector<RegWrite>& writes, const std::string& path) {
        for (const RegWrite& w : writes) {
            access(true, w.addr, w.value, "", false);
            if (axil_->resp() != 0)
                die(EXIT_AXIL, "%s:%d: AXI4-Lite write 0x%08x to 0x%04x answered %s", path.c_str(),
                    w.line, w.value, w.addr, axil_resp_name(axil_->resp()));
        }
    }

    // ---- idle fast-forward (sim/README.md) ----
    // Called at the top of an idle cycle with nothing in flight; `prev_clean`: the previous
    // cycle was idle too (nothing moved, no output valid). True when the model's entire state
    // (every byte of the verilated root, inputs included) equals its state one cycle earlier:
    // the model is at a fixed point, and the caller may jump with jump_to().
    //
    // Exact, and cheap for a large state (table memories): a snapshot of the state is kept in
    // sync incrementally. Every call first re-checks only the "hot" ranges, the parts of the state
    // seen changing before. Once they were stable over a cycle, a full pass syncs the whole state
    // into the snapshot (the snapshot is then exactly this cycle's state); at the next cycle, hot
    // ranges unchanged and a full pass that finds no difference at all prove a fixed point. A part
    // that changes for the first time is found by a full pass and becomes hot. A model that never
    // settles keeps failing the cheap check and costs only that.
    //
    // The free-running counters (WS_FREE_COUNTERS) advance by one every cycle whatever else
    // happens, so the state is compared with each of them taken relative to the cycle number
    // (counter - cycle, constant while it counts), and jump_to() advances them by the cycles
    // skipped: the state after a jump is exactly the state a cycle-by-cycle run reaches.
    bool at_fixed_point(bool prev_clean) {
        for (uint64_t* p : free_) *p -= cycle_;
        const bool r = fixed_point_test(prev_clean);
        for (uint64_t* p : free_) *p += cycle_;
        return r;
    }
    void jump_to(uint64_t c) {
        for (uint64_t* p : free_) *p += c - cycle_;
        skipped_cycles_ += c - cycle_;
        cycle_ = c;
    }
    uint64_t skipped_cycles() const { return skipped_cycles_; }
    size_t free_counters() const { return free_.size(); }

private:
    bool fixed_point_test(bool prev_clean) {
        const uint64_t c = cycle_;
        const uint8_t* s = reinterpret_cast<const uint8_t*>(t->rootp);
        if (!snap_init_) {
            memcpy(snap_.data(), s, kStateSize);
            snap_init_ = true;
            whole_cycle_ = hot_cycle_ = c;
            return false;
        }
        const bool hot_stable = !sync_hot(s) && hot_cycle_ + 1 == c;
        hot_cycle_ = c;
        const bool whole_prev = whole_cycle_ + 1 == c;
        whole_cycle_ = ~0ull;  // the snapshot now mixes this cycle (hot) and earlier ones
        if (!hot_stable || !prev_clean) return false;
        const bool diff = sync_all(s);  // the snapshot is this cycle's whole state
        whole_cycle_ = c;
        return whole_prev && !diff;
    }

    std::unique_ptr<VerilatedContext> ctx_;
    std::unique_ptr<Top> top_;
    std::unique_ptr<AxilMaster<Top>> axil_;
    std::function<void(uint64_t)> monitor_;
    uint64_t cycle_ = 0;
    bool one_eval_ = false, evaluated_ = false, plain_ = false;

    // ---- idle fast-forward state ----
    static constexpr size_t kStateSize = sizeof(Root);
    static constexpr size_t kChunk = 64;    // granularity of the hot ranges
    static constexpr size_t kBlock = 4096;  // compared at once in a full pass
    struct Range {
        size_t off, len;
    };
    // Syncs every differing chunk into the snapshot and marks it hot. True when any differed.
    bool sync_all(const uint8_t* s) {
        bool diff = false, added = false;
        uint8_t* d = snap_.data();
        for (size_t b = 0; b < kStateSize; b += kBlock) {
            const size_t n = std::min(kBlock, kStateSize - b);
            if (memcmp(d + b, s + b, n) == 0) continue;
            diff = true;
            for (size_t k = b; k < b + n; k += kChunk) {
                const size_t m = std::min(kChunk, b + n - k);
                if (memcmp(d + k, s + k, m) == 0) continue;
                memcpy(d + k, s + k, m);
                if (!hot_mark_[k / kChunk]) hot_mark_[k / kChunk] = 1, added = true;
            }
        }
        if (added) {  // rebuild the hot ranges, adjacent chunks merged
            hot_.clear();
            for (size_t i = 0; i < hot_mark_.size(); ++i) {
                if (!hot_mark_[i]) continue;
                const size_t off = i * kChunk, len = std::min(kChunk, kStateSize - off);
                if (!hot_.empty() && hot_.back().off + hot_.back().len == off) hot_.back().len += len;
                else hot_.push_back({off, len});
            }
        }
        return diff;
    }
    // Syncs the hot ranges only. True when any differed.
    bool sync_hot(const uint8_t* s) {
        bool diff = false;
        uint8_t* d = snap_.data();
        for (const Range& r : hot_) {
            if (memcmp(d + r.off, s + r.off, r.len) == 0) continue;
            memcpy(d + r.off, s + r.off, r.len);
            diff = true;
        }
        return diff;
    }
    std::vector<uint8_t> snap_ = std::vector<uint8_t>(kStateSize);
    std::vector<uint8_t> hot_mark_ = std::vector<uint8_t>((kStateSize + kChunk - 1) / kChunk);
    std::vector<Range> hot_;
    bool snap_init_ = false;
    uint64_t hot_cycle_ = ~0ull;    // the snapshot's hot ranges hold the state of this cycle
    uint64_t whole_cycle_ = ~0ull;  // the whole snapshot holds the state of this cycle
    uint64_t skipped_cycles_ = 0;
    std::vector<uint64_t*> free_;  // WS_FREE_COUNTERS
};

// After reset a hash_table clears itself (TBL_STATUS.busy); register writes and traffic wait
// for it. `base`: the table's window; `what` names it in the errors.
template <class Clk>
void wait_table_clear(Clk& k, uint32_t base, const char* what) {
    constexpr uint64_t kLimit = 1u << 22;  // cycles
    const uint64_t t0 = k.cycle();
    char name[64];
    snprintf(name, sizeof name, "%s TBL_STATUS", what);
    while (k.access(false, base + regmap::hash_table::TBL_STATUS, 0, name, true) & 1u) {
        if (k.cycle() - t0 > kLimit)
            die(EXIT_AXIL, "%s (0x%04x): TBL_STATUS still busy %llu cycles after reset", what, base,
                (unsigned long long)(k.cycle() - t0));
    }
}

}  // namespace ws
