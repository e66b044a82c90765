// AXI4-Stream traffic for the harnesses (sim/README.md): a pcap-fed source with line-rate
// pacing and random idle cycles, an output monitor that reassembles frames (aborted ones, tuser
// on the last beat, are counted, not written) into a pcap, the per-frame status stream that pairs
// output frames with input frames (latency), and `Direction`, which bundles the three with the
// block's counters, the balance checks and the report fields of one data direction.
//
// Every class is a template on the verilated top `Top` and on port accessors declared with
// WS_AXIS_PORT / WS_STAT_PORT, so one harness drives as many streams as its top has, with
// direct member access (no indirection in the hot loop).
#pragma once

#include "clock.hpp"
#include "json.hpp"
#include "pcap.hpp"
#include "regmap.hpp"
#include "util.hpp"

#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

// Port accessors: WS_AXIS_PORT(NetIn, s_net_axis) declares `struct NetIn` whose static functions
// return the model's s_net_axis_tdata, _tkeep, _tvalid, _tready, _tlast and _tuser, and whose
// `name` is "s_net_axis". The same macro serves inputs and outputs of the DUT.
#define WS_AXIS_PORT(NAME, P)                                              \
    struct NAME {                                                          \
        static constexpr const char* name = #P;                            \
        template <class T> static auto& tdata(T* t) { return t->P##_tdata; }   \
        template <class T> static auto& tkeep(T* t) { return t->P##_tkeep; }   \
        template <class T> static auto& tvalid(T* t) { return t->P##_tvalid; } \
        template <class T> static auto& tready(T* t) { return t->P##_tready; } \
        template <class T> static auto& tlast(T* t) { return t->P##_tlast; }   \
        template <class T> static auto& tuser(T* t) { return t->P##_tuser; }   \
    }
// WS_STAT_PORT(Stat, m_stat): P_valid, P_outcome, P_emit, P_len (one pulse per input frame).
#define WS_STAT_PORT(NAME, P)                                                \
    struct NAME {                                                            \
        static constexpr const char* name = #P;                              \
        template <class T> static auto& valid(T* t) { return t->P##_valid; }     \
        template <class T> static auto& outcome(T* t) { return t->P##_outcome; } \
        template <class T> static auto& emit(T* t) { return t->P##_emit; }       \
        template <class T> static auto& len(T* t) { return t->P##_len; }         \
    }

namespace ws {

constexpr uint32_t kQuietCycles = 32;      // output quiet this long before the final readout
constexpr size_t kMaxOutFrame = 1u << 20;  // an output frame longer than this has lost its tlast
constexpr int kMaxOutcomes = 16;           // 4-bit outcome codes

// Bus geometry of an AXI4-Stream port, from the verilated port types.
template <class Top, class P>
struct AxisGeometry {
    using TData = std::remove_reference_t<decltype(P::tdata(std::declval<Top*>()))>;
    using TKeep = std::remove_reference_t<decltype(P::tkeep(std::declval<Top*>()))>;
    static constexpr unsigned KEEP_W = sizeof(TData);  // bytes per beat
    static constexpr unsigned DATA_W = KEEP_W * 8;
    static_assert(KEEP_W == 8 || KEEP_W == 16 || KEEP_W == 32 || KEEP_W == 64,
                  "DATA_W must be 64, 128, 256 or 512");
    static_assert(sizeof(TKeep) * 8 >= KEEP_W, "tkeep port narrower than DATA_W/8");
    static constexpr uint64_t KEEP_ALL = KEEP_W == 64 ? ~0ull : ((1ull << KEEP_W) - 1);
};

// ------------------------------------------------------------------------------------------------
// Source: frames from a pcap onto a DUT input port.
//
// Pacing: frame i may start at T0 + ceil(bits(0..i-1) * clock_mhz / (1000 * gbps)), bits =
// (len + 24) * 8 per frame, T0 = begin()'s cycle; gbps 0 = back-to-back. In every cycle in which
// a beat could be offered it is instead held back with probability idle_prob. A beat once offered
// stays valid until accepted. tkeep: all ones, contiguous from bit 0 on the last beat, whose
// unused bytes are zero; tuser 0.

template <class Top, class P>
class StreamSource : public AxisGeometry<Top, P> {
    using G = AxisGeometry<Top, P>;

public:
    using typename G::TKeep;
    using G::KEEP_ALL;
    using G::KEEP_W;
    // `reader` may be null (no input on this port); otherwise validated already.
    StreamSource(Top* t, PcapReader* reader, uint64_t total, uint64_t seed, double idle_prob,
                 double clock_mhz, double gbps)
        : t_(t), reader_(reader), total_frames_(reader ? total : 0), rng_idle_(seed),
          idle_prob_(idle_prob), idle_on_(idle_prob > 0) {
        cur_.assign(kMaxFrame + 2 * KEEP_W, 0);
        if (gbps > 0) cycles_per_bit_ = clock_mhz / (gbps * 1000.0);
    }

    static const char* name() { return P::name; }

    // Idle port values (tdata zeroed too) for reset.
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

    // Start of traffic: T0 of the pacing schedule; loads the first frame.
    void begin(uint64_t c) {
        traffic_start_ = c;
        load_next_frame();
    }

    // Top of a cycle: offer a beat (or not).
    inline void drive(uint64_t c) {
        if (offered_) return;
        if (have_frame_ && (beat_ != 0 || c >= start_at_) && !(idle_on_ && rng_idle_.hit(idle_prob_))) {
            present_beat();
            if (!any_offer_) any_offer_ = true, first_offer_cycle_ = c;
        } else {
            P::tvalid(t_) = 0;
        }
    }

    // After settling: the handshake of this edge. on_first(index, len) is called when a frame's
    // first beat is accepted. Returns true when a beat was accepted.
    template <class OnFirst>
    inline bool sample(uint64_t c, OnFirst&& on_first) {
        const bool s_ready = P::tready(t_);
        last_ready_ = s_ready;
        if (!s_ready) ++ready_low_cycles_;
        if (!offered_) return false;
        if (!s_ready) {
            ++in_stall_cycles_;
            return false;
        }
        offered_ = false;
        if (!any_in_) any_in_ = true, first_in_cycle_ = c;
        last_in_cycle_ = c;
        if (beat_ == 0) {
            on_first(cur_index_, cur_len_);
            ++frames_started_;
        }
        if (++beat_ == cur_beats_) {
            ++in_done_;
            bytes_in_ += cur_len_;
            load_next_frame();
        }
        return true;
    }

    // Between frames, waiting for the next one's pacing time, more than kSkipMin cycles away:
    // proving a fixed point takes two or three idle cycles and a pass over the whole state, so
    // a shorter gap is cheaper to simulate than to test (a pipeline that drains only just
    // before the next frame would pay the test in every gap and never skip).
    static constexpr uint64_t kSkipMin = 8;
    bool in_gap(uint64_t c) const {
        return !offered_ && beat_ == 0 && have_frame_ && start_at_ > c + kSkipMin;
    }
    // An idle-skip of `gap` cycles: s_axis_tready stays as it was in the last cycle.
    void account_skip(uint64_t gap) {
        if (!last_ready_) ready_low_cycles_ += gap;
    }

    bool offered() const { return offered_; }
    bool have_frame() const { return have_frame_; }
    bool all_sent() const { return !have_frame_ && in_done_ == total_frames_; }
    bool ready() const { return P::tready(t_); }
    uint64_t start_at() const { return start_at_; }
    uint64_t total_frames() const { return total_frames_; }
    uint64_t frames_started() const { return frames_started_; }
    uint64_t in_done() const { return in_done_; }
    uint64_t bytes_in() const { return bytes_in_; }
    bool any_in() const { return any_in_; }
    bool any_offer() const { return any_offer_; }
    uint64_t first_in_cycle() const { return first_in_cycle_; }
    uint64_t last_in_cycle() const { return last_in_cycle_; }
    uint64_t first_offer_cycle() const { return first_offer_cycle_; }
    uint64_t in_stall_cycles() const { return in_stall_cycles_; }
    uint64_t ready_low_cycles() const { return ready_low_cycles_; }
    // Where the source is, for the watchdog message.
    std::string where() const {
        char w[160];
        if (have_frame_)
            snprintf(w, sizeof w, "%s (frame %llu, beat %u of %u)",
                     offered_ ? "a beat is offered and not accepted" : "no beat offered",
                     (unsigned long long)cur_index_, beat_ + 1, cur_beats_);
        else
            snprintf(w, sizeof w, "every frame sent");
        return w;
    }

private:
    // Loads the next input frame (if any) and its earliest start cycle.
    void load_next_frame() {
        uint32_t len = 0;
        if (!reader_ || !reader_->next(cur_.data(), len)) {
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
        memcpy(bytes_of(P::tdata(t_)), cur_.data() + (size_t)beat_ * KEEP_W, KEEP_W);
        const bool last = beat_ + 1 == cur_beats_;
        P::tkeep(t_) = (TKeep)(last ? last_keep_ : KEEP_ALL);
        P::tlast(t_) = last;
        P::tuser(t_) = 0;
        P::tvalid(t_) = 1;
        offered_ = true;
    }

    Top* t_;
    PcapReader* reader_;
    const uint64_t total_frames_;
    Rng rng_idle_;
    const double idle_prob_;
    const bool idle_on_;
    double cycles_per_bit_ = 0;

    std::vector<uint8_t> cur_;
    bool have_frame_ = false, offered_ = false, last_ready_ = true;
    uint32_t cur_len_ = 0, cur_beats_ = 0, beat_ = 0;
    uint64_t last_keep_ = 0, cur_index_ = 0, next_index_ = 0;
    uint64_t traffic_start_ = 0, start_at_ = 0, wire_bits_ = 0;
    uint64_t frames_started_ = 0, in_done_ = 0, bytes_in_ = 0;
    bool any_in_ = false, any_offer_ = false;
    uint64_t first_in_cycle_ = 0, last_in_cycle_ = 0, first_offer_cycle_ = 0;
    uint64_t in_stall_cycles_ = 0, ready_low_cycles_ = 0;
};

// ------------------------------------------------------------------------------------------------
// Sink: monitors a DUT output port, reassembles frames, writes the whole ones to a pcap.
//
// tready is 1, or 0 with probability stall_prob in each traffic cycle. A frame ends after the
// highest set tkeep bit of its last beat; tuser on the last beat = aborted (counted, not written).
// pcap timestamps: when the frame has left the port, the cycle of its last beat at clock_mhz,
// in nanoseconds (rounded down).

template <class Top, class P>
class StreamSink : public AxisGeometry<Top, P> {
    using G = AxisGeometry<Top, P>;

public:
    using G::KEEP_ALL;
    using G::KEEP_W;
    enum : unsigned { BEAT = 1, FIRST = 2, LAST = 4, WRITTEN = 8 };

    StreamSink(Top* t, uint64_t seed, double stall_prob, double clock_mhz)
        : t_(t), rng_stall_(seed), stall_prob_(stall_prob), stall_on_(stall_prob > 0),
          clock_mhz_(clock_mhz) {
        out_.assign(kMaxOutFrame + KEEP_W, 0);
    }

    static const char* name() { return P::name; }

    // Whole frames go to `path` (else they are only counted).
    void open(const std::string& path) {
        pcap_.open(path);
        write_on_ = true;
    }
    void close() {
        if (write_on_) pcap_.close();
    }

    void set_ready(bool r) { P::tready(t_) = r; }
    bool stall_on() const { return stall_on_; }
    inline void drive() {
        if (stall_on_) P::tready(t_) = !rng_stall_.hit(stall_prob_);
    }

    // After settling: the handshake of this edge. Returns BEAT|FIRST|LAST|WRITTEN flags.
    inline unsigned sample(uint64_t c) {
        if (!P::tvalid(t_)) {
            ++m_quiet_;
            return 0;
        }
        m_quiet_ = 0;
        if (!P::tready(t_)) {
            ++out_stall_cycles_;
            return 0;
        }
        return beat(c);
    }

    // An idle-skip of `gap` cycles (tvalid low throughout).
    void account_skip(uint64_t gap) { m_quiet_ += gap; }

    bool active() const { return out_active_; }
    uint64_t quiet() const { return m_quiet_; }
    uint64_t outs_done() const { return outs_done_; }
    uint64_t packets_out() const { return packets_out_; }
    uint64_t bytes_out() const { return bytes_out_; }
    uint64_t aborted() const { return aborted_; }
    bool any_out() const { return any_out_; }
    uint64_t first_out_cycle() const { return first_out_cycle_; }
    uint64_t last_out_cycle() const { return last_out_cycle_; }
    uint64_t out_stall_cycles() const { return out_stall_cycles_; }
    uint64_t keep_issues() const { return keep_issues_; }
    unsigned tvalid() const { return P::tvalid(t_); }
    unsigned tready() const { return P::tready(t_); }

private:
    inline unsigned beat(uint64_t c) {
        unsigned flags = BEAT;
        if (!out_active_) {
            out_active_ = true;
            out_pos_ = 0;
            if (!any_out_) any_out_ = true, first_out_cycle_ = c;
            flags |= FIRST;
        }
        last_out_cycle_ = c;
        if (out_pos_ + KEEP_W > kMaxOutFrame)
            die(EXIT_BALANCE, "%s frame longer than %zu bytes without tlast (cycle %llu)", P::name,
                kMaxOutFrame, (unsigned long long)c);
        memcpy(out_.data() + out_pos_, bytes_of(P::tdata(t_)), KEEP_W);
        const uint64_t keep = (uint64_t)P::tkeep(t_) & KEEP_ALL;
        if (!P::tlast(t_)) {
            if (keep != KEEP_ALL) note_keep_issue(c, "tkeep not all ones on a beat without tlast");
            out_pos_ += KEEP_W;
            return flags;
        }
        // Last beat: the frame ends after the highest byte whose tkeep bit is set.
        unsigned n = keep ? 64u - (unsigned)__builtin_clzll(keep) : 0u;
        if (keep != (n == 64 ? ~0ull : ((1ull << n) - 1)))
            note_keep_issue(c, "tkeep not contiguous from bit 0 on the last beat");
        if (n == 0) note_keep_issue(c, "tkeep all zero on the last beat");
        const uint32_t len = (uint32_t)(out_pos_ + n);
        out_active_ = false;
        ++outs_done_;
        flags |= LAST;
        if (P::tuser(t_) & 1u) {
            ++aborted_;
        } else {
            ++packets_out_;
            bytes_out_ += len;
            flags |= WRITTEN;
            if (write_on_) {
                pcap_.write((uint64_t)((double)c * 1000.0 / clock_mhz_), out_.data(), len);
            }
        }
        return flags;
    }

    void note_keep_issue(uint64_t c, const char* what) {
        if (keep_issues_++ < 5)
            warn("%s protocol: %s (cycle %llu, output frame %llu)", P::name, what,
                 (unsigned long long)c, (unsigned long long)outs_done_);
    }

    Top* t_;
    Rng rng_stall_;
    const double stall_prob_;
    const bool stall_on_;
    const double clock_mhz_;
    PcapWriter pcap_;
    bool write_on_ = false;

    std::vector<uint8_t> out_;
    bool out_active_ = false, any_out_ = false;
    size_t out_pos_ = 0;
    uint64_t first_out_cycle_ = 0, last_out_cycle_ = 0;
    uint64_t outs_done_ = 0, packets_out_ = 0, bytes_out_ = 0, aborted_ = 0;
    uint64_t m_quiet_ = 0, keep_issues_ = 0, out_stall_cycles_ = 0;
};

// ------------------------------------------------------------------------------------------------
// Status stream and matching.
//
// Status pulses arrive in input order, one per frame. Frames whose first beat was accepted wait
// in a queue (with that cycle); each pulse pops one. An emit=1 pulse is paired with the oldest
// output frame whose first beat has been seen and not yet paired; if there is none yet, the input
// waits for the next output first beat. Latency = output first-beat cycle - input first-beat
// cycle. Optional CSV: index_in,first_in_cycle,first_out_cycle,latency per paired frame.

template <class Top, class S>
class StatMatcher {
public:
    StatMatcher(Top* t, int num_outcomes) : t_(t), nout_(num_outcomes) {}

    static const char* name() { return S::name; }

    void open_csv(const std::string& path) {
        csv_.open(path, 1u << 20);
        csv_.put_str("index_in,first_in_cycle,first_out_cycle,latency\n");
        csv_on_ = true;
    }
    // Optional per-frame status CSV: index_in,outcome,emit,len for every status pulse, in input
    // order (the status stream as the DUT reported it, before any check).
    void open_stat_csv(const std::string& path) {
        stat_csv_.open(path, 1u << 20);
        stat_csv_.put_str("index_in,outcome,emit,len\n");
        stat_csv_on_ = true;
    }
    void close() {
        if (csv_on_) csv_.close();
        if (stat_csv_on_) stat_csv_.close();
    }

    // A frame's first beat was accepted.
    inline void started(uint64_t index, uint64_t c, uint32_t len) { inflight_.push({index, c, len}); }

    // An output frame's first beat.
    inline void on_out_first(uint64_t c) {
        if (!waiting_.empty()) {
            const Waiting w = waiting_.pop();
            record_latency(w.index, w.first_cycle, c);
        } else {
            unmatched_out_.push(c);
        }
    }

    // After settling: a status pulse? `in_done`, `frames_started`: the source's counts.
    inline bool sample(uint64_t c, uint64_t in_done, uint64_t frames_started) {
        if (!S::valid(t_)) return false;
        on_stat(c, S::outcome(t_) & 0xfu, S::emit(t_) & 1u, S::len(t_), in_done, frames_started);
        return true;
    }

    bool settled(uint64_t frames_started) const { return frames_started == stats_; }
    uint64_t stats() const { return stats_; }
    uint64_t emit_count() const { return emit_count_; }
    uint64_t len_mismatch() const { return len_mismatch_; }
    uint64_t bad_outcome() const { return bad_outcome_; }
    const uint64_t* stat_pkts() const { return stat_pkts_; }
    const uint64_t* stat_bytes() const { return stat_bytes_; }

    void json_latency(JsonWriter& j) const {
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
    }

private:
    struct InFlight {  // a frame whose first beat was accepted and whose status has not come yet
        uint64_t index;
        uint64_t first_cycle;
        uint32_t len;
    };
    struct Waiting {  // an emit=1 status whose output frame has not started yet
        uint64_t index;
        uint64_t first_cycle;
    };

    inline void on_stat(uint64_t c, unsigned outcome, unsigned emit, uint32_t len, uint64_t in_done,
                        uint64_t frames_started) {
        const uint64_t k = stats_++;
        if (inflight_.empty())
            die(EXIT_BALANCE,
                "%s pulse #%llu at cycle %llu, but no input frame is waiting for a status "
                "(%llu frame(s) started, %llu statuses already received)",
                S::name, (unsigned long long)k, (unsigned long long)c,
                (unsigned long long)frames_started, (unsigned long long)k);
        const InFlight f = inflight_.pop();
        if (stat_csv_on_) {
            stat_csv_.put_u64(f.index);
            stat_csv_.put_char(',');
            stat_csv_.put_u64(outcome);
            stat_csv_.put_char(',');
            stat_csv_.put_u64(emit);
            stat_csv_.put_char(',');
            stat_csv_.put_u64(len);
            stat_csv_.put_char('\n');
        }
        if (f.index >= in_done)
            die(EXIT_BALANCE,
                "%s pulse for input frame %llu at cycle %llu came before that frame's last "
                "input beat was accepted",
                S::name, (unsigned long long)f.index, (unsigned long long)c);
        if (len != f.len) {
            if (len_mismatch_++ < 5)
                warn("%s_len %u for input frame %llu, which is %u bytes (cycle %llu)", S::name, len,
                     (unsigned long long)f.index, f.len, (unsigned long long)c);
        }
        if (outcome >= (unsigned)nout_) {
            if (bad_outcome_++ < 5)
                warn("%s_outcome %u (no such outcome) for input frame %llu (cycle %llu)", S::name,
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

    Top* t_;
    const int nout_;
    BufferedFile csv_, stat_csv_;
    bool csv_on_ = false, stat_csv_on_ = false;
    Ring<InFlight> inflight_;
    Ring<Waiting> waiting_;
    Ring<uint64_t> unmatched_out_;
    uint64_t stats_ = 0, emit_count_ = 0, len_mismatch_ = 0, bad_outcome_ = 0;
    uint64_t stat_pkts_[kMaxOutcomes] = {}, stat_bytes_[kMaxOutcomes] = {};
    int64_t lat_min_ = INT64_MAX, lat_max_ = INT64_MIN, lat_sum_ = 0;
    uint64_t lat_count_ = 0;
};

// ------------------------------------------------------------------------------------------------
// One data direction of a block: input port -> DUT -> output port, with the block's status stream
// and its counters (outcome n at base + 0x100 + 16n, TX at base + 0x200: packets LO, HI, bytes LO,
// HI). `label` ("" for a single-direction harness, else e.g. "decap") prefixes messages.

struct DirConfig {
    std::string label;
    const char* const* outcome_names;
    int num_outcomes;
    uint64_t idle_seed, stall_seed;
};

template <class Top, class In, class Out, class S>
class Direction {
    DirConfig cfg_;

public:
    using Source = StreamSource<Top, In>;
    using Sink = StreamSink<Top, Out>;
    using Matcher = StatMatcher<Top, S>;

    Direction(Top* t, const DirConfig& cfg, const CommonOptions& o, PcapReader* reader, uint64_t total)
        : cfg_(cfg),
          src(t, reader, total, cfg.idle_seed, o.idle_prob, o.clock_mhz, o.line_rate_gbps),
          sink(t, cfg.stall_seed, o.stall_prob, o.clock_mhz), match(t, cfg.num_outcomes) {
        static_assert(Source::KEEP_W == Sink::KEEP_W, "input and output widths differ");
        if (cfg.num_outcomes < 1 || cfg.num_outcomes > kMaxOutcomes) die(EXIT_INTERNAL, "bad outcome count");
    }

    Source src;
    Sink sink;
    Matcher match;

    const std::string& label() const { return cfg_.label; }
    // "label " or "" (message prefix).
    std::string prefix() const { return cfg_.label.empty() ? "" : cfg_.label + " "; }
    std::vector<std::string> port_names() const { return {In::name, Out::name, S::name}; }

    // ---- per cycle ----
    void reset_ports() {
        src.reset_ports();
        sink.set_ready(true);
    }
    void drive_idle() {
        src.drive_idle();
        sink.set_ready(true);
    }
    inline void drive(uint64_t c) {
        src.drive(c);
        sink.drive();
    }
    // Output and status stream (every cycle after reset). Returns the sink's flags, with
    // kStatFlag added for a status pulse.
    static constexpr unsigned kStatFlag = 16;
    inline unsigned monitor(uint64_t c) {
        unsigned f = sink.sample(c);
        if (f & Sink::FIRST) match.on_out_first(c);
        if (match.sample(c, src.in_done(), src.frames_started())) f |= kStatFlag;
        return f;
    }
    // Input handshake, then monitor(). Returns true when anything moved.
    inline bool sample(uint64_t c) {
        bool moved = src.sample(c, [&](uint64_t index, uint32_t len) { match.started(index, c, len); });
        last_flags_ = monitor(c);
        return moved || (last_flags_ & (Sink::BEAT | kStatFlag));
    }
    // The sink's flags of the last sample() (BEAT, FIRST, LAST, WRITTEN).
    unsigned last_flags() const { return last_flags_; }

    // Nothing in flight: every started frame has its status, every announced output frame is done.
    bool drained() const {
        return !src.offered() && match.settled(src.frames_started()) &&
               sink.outs_done() >= match.emit_count() && !sink.active();
    }
    bool all_sent() const { return src.all_sent(); }

    // ---- results ----
    // Reads the block's counters (register window at `base`).
    template <class Clk>
    void read_counters(Clk& k, uint32_t base) {
        char name[96];
        for (int n = 0; n < cfg_.num_outcomes; ++n) {
            snprintf(name, sizeof name, "%s%s packets", prefix().c_str(), cfg_.outcome_names[n]);
            reg_pkts_[n] = k.read64(base + regmap::CNT_BASE + regmap::CNT_STRIDE * n + regmap::PKTS_LO, name);
            snprintf(name, sizeof name, "%s%s bytes", prefix().c_str(), cfg_.outcome_names[n]);
            reg_bytes_[n] = k.read64(base + regmap::CNT_BASE + regmap::CNT_STRIDE * n + regmap::BYTES_LO, name);
        }
        snprintf(name, sizeof name, "%sTX packets", prefix().c_str());
        tx_pkts_ = k.read64(base + regmap::TX_BASE + regmap::PKTS_LO, name);
        snprintf(name, sizeof name, "%sTX bytes", prefix().c_str());
        tx_bytes_ = k.read64(base + regmap::TX_BASE + regmap::BYTES_LO, name);
    }

    void close() {
        sink.close();
        match.close();
    }

    // The balance checks (sim/README.md "End of run and checks"); failures appended to `errors`.
    void check(std::vector<std::string>& errors) const {
        std::string p = cfg_.label.empty() ? "" : cfg_.label + ": ";
        auto check = [&](bool ok, std::string msg) {
            if (!ok) errors.push_back(p + msg);
        };
        using ull = unsigned long long;
        const int nout = cfg_.num_outcomes;
        uint64_t sum_pkts = 0, sum_bytes = 0;
        for (int n = 0; n < nout; ++n) sum_pkts += reg_pkts_[n], sum_bytes += reg_bytes_[n];
        const uint64_t in_done = src.in_done();
        check(in_done == sum_pkts,
              fmt("BALANCE: frames in (%llu) != sum of the outcome packet counters (%llu)",
                  (ull)in_done, (ull)sum_pkts));
        check(sink.packets_out() + sink.aborted() == match.emit_count(),
              fmt("BALANCE: frames written (%llu) + aborted (%llu) != %s pulses with emit=1 "
                  "(%llu)",
                  (ull)sink.packets_out(), (ull)sink.aborted(), S::name, (ull)match.emit_count()));
        check(src.bytes_in() == sum_bytes,
              fmt("bytes in (%llu) != sum of the outcome byte counters (%llu)", (ull)src.bytes_in(),
                  (ull)sum_bytes));
        check(match.stats() == in_done,
              fmt("%s pulses (%llu) != frames in (%llu)", S::name, (ull)match.stats(), (ull)in_done));
        for (int n = 0; n < nout; ++n) {
            check(reg_pkts_[n] == match.stat_pkts()[n] && reg_bytes_[n] == match.stat_bytes()[n],
                  fmt("outcome %s: counters say %llu packets / %llu bytes, %s says %llu / %llu",
                      cfg_.outcome_names[n], (ull)reg_pkts_[n], (ull)reg_bytes_[n], S::name,
                      (ull)match.stat_pkts()[n], (ull)match.stat_bytes()[n]));
        }
        check(tx_pkts_ == sink.packets_out() && tx_bytes_ == sink.bytes_out(),
              fmt("TX counters say %llu packets / %llu bytes, but %llu whole frames / %llu bytes "
                  "left %s",
                  (ull)tx_pkts_, (ull)tx_bytes_, (ull)sink.packets_out(), (ull)sink.bytes_out(), Out::name));
        check(match.len_mismatch() == 0,
              fmt("%llu %s pulse(s) gave a length different from the input frame's",
                  (ull)match.len_mismatch(), S::name));
        check(match.bad_outcome() == 0,
              fmt("%llu %s pulse(s) carried an outcome code above %d", (ull)match.bad_outcome(),
                  S::name, nout - 1));
    }

    // First offered cycle and last handshake cycle (input or output); false without traffic.
    bool span(uint64_t& first, uint64_t& last) const {
        if (!src.any_offer()) return false;
        first = src.first_offer_cycle();
        last = sink.any_out() ? sink.last_out_cycle() : src.last_in_cycle();
        if (src.any_in() && src.last_in_cycle() > last) last = src.last_in_cycle();
        return true;
    }

    // The report fields of this direction (sim/README.md "Outputs"), in their order.
    void json_fields(JsonWriter& j) const {
        j.field("packets_in", src.in_done());
        j.field("bytes_in", src.bytes_in());
        j.field("packets_out", sink.packets_out());
        j.field("bytes_out", sink.bytes_out());
        j.field("aborted", sink.aborted());
        uint64_t first = 0, last = 0, cycles = 0;
        if (span(first, last)) cycles = last - first + 1;
        j.field("cycles", cycles);
        j.field("first_in_cycle", src.first_in_cycle());
        j.field("last_in_cycle", src.last_in_cycle());
        j.field("first_out_cycle", sink.first_out_cycle());
        j.field("last_out_cycle", sink.last_out_cycle());
        j.field("in_stall_cycles", src.in_stall_cycles());
        j.field("out_stall_cycles", sink.out_stall_cycles());
        j.field("ready_low_cycles", src.ready_low_cycles());
        match.json_latency(j);
        auto outcomes = [&](const char* key, const uint64_t* p, const uint64_t* b) {
            j.key(key);
            j.begin_object();
            for (int n = 0; n < cfg_.num_outcomes; ++n) {
                j.key(cfg_.outcome_names[n]);
                j.begin_object();
                j.field("packets", p[n]);
                j.field("bytes", b[n]);
                j.end_object();
            }
            j.end_object();
        };
        outcomes("outcomes", reg_pkts_, reg_bytes_);
        outcomes("stat_outcomes", match.stat_pkts(), match.stat_bytes());
        j.field("tx_packets", tx_pkts_);
        j.field("tx_bytes", tx_bytes_);
    }

    void warn_keep_issues() const {
        if (sink.keep_issues())
            warn("%llu %s beat(s) had unexpected tkeep (see the first warnings above)",
                 (unsigned long long)sink.keep_issues(), Out::name);
    }

    // The watchdog's description of this direction.
    void print_state(FILE* f) const {
        const std::string p = prefix();
        fprintf(f,
                "  %sinput: %llu of %llu frames fully accepted; %s; %s_tready=%u\n"
                "  %sstatus: %llu of %llu %s pulses received (%llu with emit=1)\n"
                "  %soutput: %llu frames finished (%llu written, %llu aborted)%s; %s_tvalid=%u, "
                "%s_tready=%u\n",
                p.c_str(), (unsigned long long)src.in_done(), (unsigned long long)src.total_frames(),
                src.where().c_str(), In::name, (unsigned)src.ready(), p.c_str(),
                (unsigned long long)match.stats(), (unsigned long long)src.total_frames(), S::name,
                (unsigned long long)match.emit_count(), p.c_str(),
                (unsigned long long)sink.outs_done(), (unsigned long long)sink.packets_out(),
                (unsigned long long)sink.aborted(), sink.active() ? ", one frame in progress" : "",
                Out::name, sink.tvalid(), Out::name, sink.tready());
    }

    // This direction's part of the progress line.
    void print_progress(FILE* f) const {
        const uint64_t in = src.in_done(), total = src.total_frames();
        if (total == 0 && prefix().size()) return;  // a direction without input: nothing to say
        fprintf(f, "  %sin %llu/%llu (%.1f%%)  out %llu  aborted %llu", prefix().c_str(),
                (unsigned long long)in, (unsigned long long)total,
                total ? 100.0 * (double)in / (double)total : 100.0,
                (unsigned long long)sink.packets_out(), (unsigned long long)sink.aborted());
    }

private:
    unsigned last_flags_ = 0;
    uint64_t reg_pkts_[kMaxOutcomes] = {}, reg_bytes_[kMaxOutcomes] = {};
    uint64_t tx_pkts_ = 0, tx_bytes_ = 0;
};

}  // namespace ws

namespace ws {

// Opens and validates an input pcap (warning about records cut by the snap length); returns the
// number of records. Throws FileError.
inline uint64_t open_input(PcapReader& reader, const std::string& path) {
    reader.open(path);
    const uint64_t total = reader.validate();
    if (reader.snapped())
        warn("%s: %llu record(s) were cut short by the capture's snap length; only the "
             "captured bytes are simulated",
             path.c_str(), (unsigned long long)reader.snapped());
    return total;
}

// Writes the finished report; exit 2 when the file cannot be written.
inline void write_json(const std::string& path, const JsonWriter& j) {
    const std::string doc = j.str();
    FILE* jf = fopen(path.c_str(), "w");
    if (!jf) die(EXIT_INPUT, "%s: cannot open for writing: %s", path.c_str(), strerror(errno));
    if (fwrite(doc.data(), 1, doc.size(), jf) != doc.size() || fclose(jf) != 0)
        die(EXIT_INPUT, "%s: write failed: %s", path.c_str(), strerror(errno));
}

}  // namespace ws
