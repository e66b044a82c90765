// AXI4-Stream ports fed from and drained into TAP devices, for the live harnesses: `TapSource`
// (frames the kernel wrote into a TAP, queued, onto a DUT input), `TapSink` (whole output frames
// written to a TAP) and `TapDirection` (the two plus the status stream, stream.hpp's
// StatMatcher, and the block's counters). Same per-cycle protocol as stream.hpp's classes.
#pragma once

#include "clock.hpp"
#include "stream.hpp"
#include "tap_dev.hpp"
#include "util.hpp"

#include <algorithm>
#include <string>
#include <unistd.h>
#include <vector>

namespace ws {

constexpr size_t kTapMaxFrame = 65536;  // one read() of a TAP returns at most one frame

// ------------------------------------------------------------------------------------------------
// Source: a bounded queue of frames read from a TAP, offered back to back (no pacing: the kernel
// is the pacing). tkeep/tlast/tuser as stream.hpp's StreamSource.

template <class Top, class P>
class TapSource : public AxisGeometry<Top, P> {
    using G = AxisGeometry<Top, P>;

public:
    using typename G::TKeep;
    using G::KEEP_ALL;
    using G::KEEP_W;

    TapSource(Top* t, size_t depth) : t_(t), q_(depth) {
        for (auto& b : q_) b.data.assign(kTapMaxFrame + KEEP_W, 0);
    }

    void reset_ports() {
        drive_idle();
        memset(bytes_of(P::tdata(t_)), 0, KEEP_W);
    }
    void drive_idle() {
        P::tvalid(t_) = 0;
        P::tlast(t_) = 0;
        P::tuser(t_) = 0;
        P::tkeep(t_) = 0;
    }

    // Impairments of the link into this port, for kernels without netem: each frame read is lost
    // with probability `loss`, or with probability `reorder` held back and queued after the next
    // frame read (released alone when no frame is waiting behind it).
    void impair(double loss, double reorder, uint64_t seed) {
        loss_ = loss, reorder_ = reorder, rng_ = Rng(seed);
        held_.data.assign(kTapMaxFrame, 0);
    }
    uint64_t impaired_lost() const { return lost_; }
    uint64_t impaired_reordered() const { return reordered_; }

    // Reads frames from `fd` (nonblocking) while the queue has room. Returns frames read.
    unsigned ingest(int fd, const char* what) {
        unsigned n = 0;
        while (count_ + (held_len_ ? 1 : 0) < q_.size()) {
            Buf& b = q_[(head_ + count_) % q_.size()];
            const ssize_t r = read(fd, b.data.data(), kTapMaxFrame);
            ++reads_;
            if (r < 0) {
                if (errno == EAGAIN || errno == EINTR) {
                    ++empty_reads_;
                    break;
                }
                die(EXIT_TAP, "reading TAP %s: %s", what, strerror(errno));
            }
            if (r == 0) break;
            ++n;
            if (loss_ > 0 && rng_.hit(loss_)) {
                ++lost_;
                continue;
            }
            if (reorder_ > 0 && !held_len_ && rng_.hit(reorder_)) {
                memcpy(held_.data.data(), b.data.data(), (size_t)r);
                held_len_ = (uint32_t)r;
                continue;
            }
            b.len = (uint32_t)r;
            ++count_;
            q_bytes_ += (uint64_t)r;
            if (held_len_) release_held(), ++reordered_;
        }
        if (held_len_ && n == 0) release_held();
        return n;
    }
    bool queued() const { return count_ > 0 || held_len_ > 0; }
    bool full() const { return count_ == q_.size(); }
    // Fewer than `beats` beats left to offer (queued frames, the rest of the one in flight):
    // time to read the TAP again. While more wait here the kernel keeps the new frames in the
    // TAP's queue and the harness makes no read() that would find none (sim/README.md).
    bool low(uint32_t beats) const {
        const uint64_t sent = active_ ? (uint64_t)beat_ * KEEP_W : 0;
        return q_bytes_ - std::min(q_bytes_, sent) < (uint64_t)beats * KEEP_W;
    }
    uint64_t reads() const { return reads_; }              // read() calls on the TAP
    uint64_t empty_reads() const { return empty_reads_; }  // ... that found no frame (EAGAIN)

    inline void drive(uint64_t) {
        if (offered_) return;
        if (!active_ && count_ == 0 && held_len_) release_held();  // nothing came after it
        if (!active_ && count_ > 0) start_frame();
        if (active_) present_beat();
        else P::tvalid(t_) = 0;
    }

    template <class OnFirst>
    inline bool sample(uint64_t c, OnFirst&& on_first) {
        if (!offered_) return false;
        if (!P::tready(t_)) {
            ++in_stall_cycles_;
            return false;
        }
        offered_ = false;
        if (beat_ == 0) {
            on_first(frames_started_, cur_len_);
            ++frames_started_;
        }
        (void)c;
        if (++beat_ == cur_beats_) {
            ++in_done_;
            bytes_in_ += cur_len_;
            active_ = false;
            head_ = (head_ + 1) % q_.size();
            --count_;
            q_bytes_ -= cur_len_;
        }
        return true;
    }

    bool offered() const { return offered_; }
    bool active() const { return active_; }
    uint64_t frames_started() const { return frames_started_; }
    uint64_t in_done() const { return in_done_; }
    uint64_t bytes_in() const { return bytes_in_; }
    uint64_t in_stall_cycles() const { return in_stall_cycles_; }
    bool ready() const { return P::tready(t_); }

private:
    struct Buf {
        std::vector<uint8_t> data;
        uint32_t len = 0;
    };
    void release_held() {
        Buf& b = q_[(head_ + count_) % q_.size()];
        memcpy(b.data.data(), held_.data.data(), held_len_);
        b.len = held_len_;
        q_bytes_ += held_len_;
        held_len_ = 0;
        ++count_;
    }
    void start_frame() {
        Buf& b = q_[head_];
        cur_len_ = b.len;
        cur_beats_ = (b.len + KEEP_W - 1) / KEEP_W;
        // Zero the tail of the last beat so that the bytes beyond tkeep are deterministic.
        memset(b.data.data() + b.len, 0, (size_t)cur_beats_ * KEEP_W - b.len);
        last_keep_ = (b.len % KEEP_W) ? ((1ull << (b.len % KEEP_W)) - 1) : KEEP_ALL;
        beat_ = 0;
        active_ = true;
    }
    inline void present_beat() {
        memcpy(bytes_of(P::tdata(t_)), q_[head_].data.data() + (size_t)beat_ * KEEP_W, KEEP_W);
        const bool last = beat_ + 1 == cur_beats_;
        P::tkeep(t_) = (TKeep)(last ? last_keep_ : KEEP_ALL);
        P::tlast(t_) = last;
        P::tuser(t_) = 0;
        P::tvalid(t_) = 1;
        offered_ = true;
    }

    Top* t_;
    std::vector<Buf> q_;
    size_t head_ = 0, count_ = 0;
    bool active_ = false, offered_ = false;
    uint32_t cur_len_ = 0, cur_beats_ = 0, beat_ = 0;
    uint64_t last_keep_ = 0;
    uint64_t frames_started_ = 0, in_done_ = 0, bytes_in_ = 0, in_stall_cycles_ = 0;
    uint64_t q_bytes_ = 0;  // bytes of the frames in q_ (the one in flight included)
    uint64_t reads_ = 0, empty_reads_ = 0;
    double loss_ = 0, reorder_ = 0;
    Rng rng_{1};
    Buf held_;
    uint32_t held_len_ = 0;
    uint64_t lost_ = 0, reordered_ = 0;
};

// Counts of one output TAP's write() calls and of the frames the kernel refused.
struct TapWriteStats {
    uint64_t writes = 0, drops = 0;
};

// ------------------------------------------------------------------------------------------------
// Sink: tready always 1; reassembles output frames and writes each whole one (tuser = 0 on its
// last beat) to the TAP. Aborted frames are counted, never written. A write the kernel refuses
// (its backlog full) loses that frame, counted as a TAP write drop.

template <class Top, class P>
class TapSink : public AxisGeometry<Top, P> {
    using G = AxisGeometry<Top, P>;

public:
    using G::KEEP_ALL;
    using G::KEEP_W;
    enum : unsigned { BEAT = 1, FIRST = 2 };

    explicit TapSink(Top* t) : t_(t) { out_.assign(kMaxOutFrame + KEEP_W, 0); }

    void set_fd(int fd, std::string what) {
        fd_ = fd;
        what_ = std::move(what);
    }
    void set_ready() { P::tready(t_) = 1; }

    inline unsigned sample(uint64_t c) {
        if (!P::tvalid(t_)) return 0;
        unsigned flags = BEAT;
        if (!active_) active_ = true, pos_ = 0, flags |= FIRST;
        if (pos_ + KEEP_W > kMaxOutFrame)
            die(EXIT_BALANCE, "%s frame longer than %zu bytes without tlast (cycle %llu)", P::name,
                kMaxOutFrame, (unsigned long long)c);
        memcpy(out_.data() + pos_, bytes_of(P::tdata(t_)), KEEP_W);
        if (!P::tlast(t_)) {
            pos_ += KEEP_W;
            return flags;
        }
        const uint64_t keep = (uint64_t)P::tkeep(t_) & KEEP_ALL;
        const unsigned n = keep ? 64u - (unsigned)__builtin_clzll(keep) : 0u;
        const uint32_t len = (uint32_t)(pos_ + n);
        active_ = false;
        ++outs_done_;
        if (P::tuser(t_) & 1u) {
            ++aborted_;
            return flags;
        }
        ++packets_out_;
        bytes_out_ += len;
        if (fd_ >= 0) {
            ++ws_.writes;
            const ssize_t w = write(fd_, out_.data(), len);
            if (w != (ssize_t)len) {
                if (w < 0 && errno != EAGAIN && errno != ENOBUFS && errno != EINTR && errno != EIO)
                    die(EXIT_TAP, "writing TAP %s: %s", what_.c_str(), strerror(errno));
                ++ws_.drops;
            }
        }
        return flags;
    }

    bool active() const { return active_; }
    uint64_t outs_done() const { return outs_done_; }
    uint64_t packets_out() const { return packets_out_; }
    uint64_t bytes_out() const { return bytes_out_; }
    uint64_t aborted() const { return aborted_; }
    uint64_t write_drops() const { return ws_.drops; }
    uint64_t writes() const { return ws_.writes; }  // write() calls on the TAP

private:
    Top* t_;
    int fd_ = -1;
    std::string what_;
    std::vector<uint8_t> out_;
    bool active_ = false;
    size_t pos_ = 0;
    uint64_t outs_done_ = 0, packets_out_ = 0, bytes_out_ = 0, aborted_ = 0;
    TapWriteStats ws_;
};

// ------------------------------------------------------------------------------------------------
// One data direction: input TAP -> DUT -> output TAP, with the status stream (per-outcome counts
// live, without register reads) and the block's counters read at the end.

struct TapDirConfig {
    std::string label;     // "decap", "encap", "gre"
    std::string in_port;   // "net", "host", "in"
    std::string out_port;  // "host", "net", "out"
    const char* const* outcome_names;
    int num_outcomes;
    uint32_t reg_base;     // the block's register window
};

template <class Top, class In, class Out, class S>
class TapDirection {
public:
    using Source = TapSource<Top, In>;
    using Sink = TapSink<Top, Out>;
    using Matcher = StatMatcher<Top, S>;

    TapDirection(Top* t, const TapDirConfig& cfg, size_t depth)
        : cfg(cfg), src(t, depth), sink(t), match(t, cfg.num_outcomes) {}

    TapDirConfig cfg;
    Source src;
    Sink sink;
    Matcher match;
    const TapDevice* in_tap = nullptr;
    const TapDevice* out_tap = nullptr;

    void bind(const TapDevice& in, const TapDevice& out) {
        in_tap = &in;
        out_tap = &out;
        sink.set_fd(out.fd(), out.where());
    }
    unsigned ingest() { return src.ingest(in_tap->fd(), in_tap->where().c_str()); }

    void reset_ports() {
        src.reset_ports();
        sink.set_ready();
    }
    void drive_idle() {
        src.drive_idle();
        sink.set_ready();
    }
    inline void drive(uint64_t c) { src.drive(c); }
    // Every cycle after settling (reset and register accesses included): output and statuses.
    inline bool monitor(uint64_t c) {
        const unsigned f = sink.sample(c);
        if (f & Sink::FIRST) match.on_out_first(c);
        const bool st = match.sample(c, src.in_done(), src.frames_started());
        return f || st;
    }
    inline bool sample(uint64_t c) {
        const bool moved = src.sample(c, [&](uint64_t index, uint32_t len) { match.started(index, c, len); });
        return monitor(c) || moved;
    }
    // Nothing in flight inside the DUT for this direction.
    bool drained() const {
        return !src.offered() && !src.active() && match.settled(src.frames_started()) &&
               sink.outs_done() >= match.emit_count() && !sink.active();
    }
    bool idle() const { return drained() && !src.queued(); }

    // ---- final counters (registers) and balance ----
    template <class Clk>
    void read_counters(Clk& k) {
        char name[96];
        for (int n = 0; n < cfg.num_outcomes; ++n) {
            snprintf(name, sizeof name, "%s %s packets", cfg.label.c_str(), cfg.outcome_names[n]);
            reg_pkts[n] = k.read64(cfg.reg_base + regmap::CNT_BASE + regmap::CNT_STRIDE * n + regmap::PKTS_LO, name);
            snprintf(name, sizeof name, "%s %s bytes", cfg.label.c_str(), cfg.outcome_names[n]);
            reg_bytes[n] = k.read64(cfg.reg_base + regmap::CNT_BASE + regmap::CNT_STRIDE * n + regmap::BYTES_LO, name);
        }
        snprintf(name, sizeof name, "%s TX packets", cfg.label.c_str());
        tx_pkts = k.read64(cfg.reg_base + regmap::TX_BASE + regmap::PKTS_LO, name);
        snprintf(name, sizeof name, "%s TX bytes", cfg.label.c_str());
        tx_bytes = k.read64(cfg.reg_base + regmap::TX_BASE + regmap::BYTES_LO, name);
    }
    static bool is_drop(const char* outcome) { return strncmp(outcome, "DROP_", 5) == 0; }
    uint64_t reg_in() const {
        uint64_t s = 0;
        for (int n = 0; n < cfg.num_outcomes; ++n) s += reg_pkts[n];
        return s;
    }
    uint64_t reg_drops() const {
        uint64_t s = 0;
        for (int n = 0; n < cfg.num_outcomes; ++n)
            if (is_drop(cfg.outcome_names[n])) s += reg_pkts[n];
        return s;
    }
    // Frames in (from the TAP) = frames out (TX counter) + the drop outcomes' counters, and the
    // counters agree with what the harness saw on the ports and the status stream.
    void check(std::vector<std::string>& errors) const {
        using ull = unsigned long long;
        auto need = [&](bool ok, std::string msg) {
            if (!ok) errors.push_back(cfg.label + ": " + msg);
        };
        need(src.in_done() == reg_in(),
             fmt("BALANCE: frames in (%llu) != sum of the outcome counters (%llu)", (ull)src.in_done(), (ull)reg_in()));
        need(reg_in() == tx_pkts + reg_drops(),
             fmt("BALANCE: counted in (%llu) != TX (%llu) + drops (%llu)", (ull)reg_in(), (ull)tx_pkts,
                 (ull)reg_drops()));
        need(tx_pkts == sink.packets_out() && tx_bytes == sink.bytes_out(),
             fmt("TX counters %llu/%llu bytes, but %llu/%llu bytes left %s whole", (ull)tx_pkts, (ull)tx_bytes,
                 (ull)sink.packets_out(), (ull)sink.bytes_out(), Out::name));
        need(sink.packets_out() + sink.aborted() == match.emit_count(),
             fmt("frames written (%llu) + aborted (%llu) != statuses with emit=1 (%llu)", (ull)sink.packets_out(),
                 (ull)sink.aborted(), (ull)match.emit_count()));
        for (int n = 0; n < cfg.num_outcomes; ++n)
            need(reg_pkts[n] == match.stat_pkts()[n],
                 fmt("outcome %s: counter %llu, %s pulses %llu", cfg.outcome_names[n], (ull)reg_pkts[n], S::name,
                     (ull)match.stat_pkts()[n]));
    }

    uint64_t reg_pkts[kMaxOutcomes] = {}, reg_bytes[kMaxOutcomes] = {};
    uint64_t tx_pkts = 0, tx_bytes = 0;
};

}  // namespace ws
