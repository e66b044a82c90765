// The host driver of ws_capture (docs/host.md, "The host driver"): one CPU core per queue,
// each polling its ring's producer write-back in host memory, reading the records from its
// consumer position up to that PROD, writing each frame to the queue's pcap (the record's
// timestamp, nanoseconds), and, after the batch's processing time, releasing the bytes by
// writing Q_CONS over AXI4-Lite (a posted MMIO write, queued for the one AXI4-Lite master).
#pragma once

#include "capture_pcie.hpp"
#include "pcap.hpp"
#include "util.hpp"

#include <array>
#include <cstdarg>
#include <cmath>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

namespace ws {

struct HostConfig {
    double poll_ns = 1000;        // an idle core looks at its PROD this often
    double ns_per_frame = 20;     // a core's time per record (parse, copy, account)
    bool paused = false;          // consume nothing until the input is done and the DMA idle
    double read_ns = 0;           // > 0: PROD is read from the device (Q_PROD), a round trip
};

// A queued AXI4-Lite write (CONS), started no earlier than `not_before`.
struct MmioWrite {
    uint32_t addr, data;
    uint64_t not_before;
};

constexpr unsigned kRecordHdr = 16;

struct QueueStats {
    uint64_t frames = 0, bytes = 0, polls = 0, batches = 0, cons_writes = 0;
    std::array<uint64_t, 8> htypes{};
    uint64_t rx_errors = 0;
    uint64_t first_ts = 0, last_ts = 0;
    bool ts_back = false;           // a timestamp lower than the one before
};

class HostDriver {
public:
    HostDriver(HostMemory& mem, const HostConfig& cfg, double clock_mhz, unsigned queues,
               unsigned align, uint32_t cons_reg_base, uint32_t cons_stride)
        : mem_(mem), cfg_(cfg), queues_(queues), align_(align), cons_base_(cons_reg_base),
          cons_stride_(cons_stride), cores_(queues), stats_(queues), pcaps_(queues) {
        cyc_per_ns_ = clock_mhz / 1000.0;
        poll_cyc_ = std::max<uint64_t>(1, (uint64_t)std::llround(cfg.poll_ns * cyc_per_ns_));
        frame_cyc_ = cfg.ns_per_frame * cyc_per_ns_;
        read_cyc_ = (uint64_t)std::ceil(cfg.read_ns * cyc_per_ns_);
        paused_ = cfg.paused;
        buf_.resize(65536 + 64);
    }

    void open(unsigned q, const std::string& path) {
        pcaps_[q].open(path);
        open_[q] = true;
    }
    void close() {
        for (unsigned q = 0; q < queues_; ++q)
            if (open_[q]) pcaps_[q].close();
    }
    void resume() { paused_ = false; }
    bool paused() const { return paused_; }

    // Once a cycle, after the edge. Writes to Q_CONS go to `mmio`.
    void step(uint64_t c, std::deque<MmioWrite>& mmio, uint64_t mmio_lat_cyc) {
        if (paused_ || c < next_event_) return;
        uint64_t next = ~0ull;
        for (unsigned q = 0; q < queues_; ++q) {
            Core& k = cores_[q];
            if (k.busy && c >= k.busy_until) {
                k.busy = false;
                mem_.held_from[q] = k.cons;  // released: the writer may reuse them
                mmio.push_back({cons_base_ + cons_stride_ * q, k.cons, c + mmio_lat_cyc});
                ++stats_[q].cons_writes;
                k.next_poll = c;
            }
            if (!k.busy && c >= k.next_poll) {
                if (read_cyc_ && !k.reading) {
                    // The PROD read's completion comes a round trip later
                    k.reading = true;
                    k.next_poll = c + read_cyc_;
                } else {
                    k.reading = false;
                    poll(q, c);
                }
            }
            next = std::min(next, k.busy ? k.busy_until : k.next_poll);
        }
        next_event_ = next;
    }

    // Every core idle with nothing new in its ring.
    bool idle() const {
        for (unsigned q = 0; q < queues_; ++q)
            if (cores_[q].busy || mem_.prod(q) != cores_[q].cons) return false;
        return true;
    }
    bool busy() const {
        for (const Core& k : cores_)
            if (k.busy) return true;
        return false;
    }

    const QueueStats& stats(unsigned q) const { return stats_[q]; }
    uint32_t cons(unsigned q) const { return cores_[q].cons; }
    const std::vector<std::string>& errors() const { return errors_; }

private:
    struct Core {
        uint32_t cons = 0;
        bool busy = false, reading = false;
        uint64_t busy_until = 0, next_poll = 0;
    };

    void poll(unsigned q, uint64_t c) {
        Core& k = cores_[q];
        QueueStats& s = stats_[q];
        ++s.polls;
        const uint32_t prod = mem_.prod(q);
        const uint32_t avail = prod - k.cons;
        if (avail == 0) {
            k.next_poll = c + poll_cyc_;
            return;
        }
        if (avail > mem_.ring_bytes) {
            error("queue %u: PROD 0x%08x is more than a ring (%llu bytes) ahead of CONS 0x%08x", q,
                  prod, (unsigned long long)mem_.ring_bytes, k.cons);
            k.cons = prod;
            return;
        }
        mem_.held_to[q] = prod;
        const uint8_t* ring = mem_.ring(q);
        const uint64_t mask = mem_.ring_bytes - 1;
        uint32_t pos = k.cons;
        uint64_t n = 0;
        while (pos != prod) {
            uint8_t h[kRecordHdr];
            copy_out(ring, pos, h, kRecordHdr, mask);
            uint16_t len;
            uint64_t ts;
            memcpy(&len, h, 2);
            memcpy(&ts, h + 8, 8);
            const unsigned rq = h[2], info = h[3];
            const uint32_t rec = (uint32_t)((kRecordHdr + len + align_ - 1) / align_ * align_);
            if (len == 0 || rec > prod - pos) {
                error("queue %u: record at 0x%08x of %u bytes runs past PROD 0x%08x", q, pos,
                      (unsigned)len, prod);
                break;
            }
            if (rq != q) error("queue %u: record at 0x%08x says queue %u", q, pos, rq);
            copy_out(ring, pos + kRecordHdr, buf_.data(), len, mask);
            if (open_[q]) pcaps_[q].write(ts, buf_.data(), len);
            if (s.frames && ts < s.last_ts) s.ts_back = true;
            if (!s.frames) s.first_ts = ts;
            s.last_ts = ts;
            ++s.frames;
            s.bytes += len;
            ++s.htypes[info & 7];
            if (info >> 3 & 1) ++s.rx_errors;
            pos += rec;
            ++n;
        }
        k.cons = pos;
        ++s.batches;
        k.busy = true;
        k.busy_until = c + std::max<uint64_t>(1, (uint64_t)std::ceil((double)n * frame_cyc_));
    }

    static void copy_out(const uint8_t* ring, uint32_t pos, uint8_t* dst, size_t n, uint64_t mask) {
        const uint64_t off = pos & mask, size = mask + 1;
        const size_t first = (size_t)std::min<uint64_t>(n, size - off);
        memcpy(dst, ring + off, first);
        memcpy(dst + first, ring, n - first);
    }

    void error(const char* f, ...) __attribute__((format(printf, 2, 3))) {
        char b[300];
        va_list ap;
        va_start(ap, f);
        vsnprintf(b, sizeof b, f, ap);
        va_end(ap);
        if (errors_.size() < 20) errors_.push_back(b);
    }

    HostMemory& mem_;
    HostConfig cfg_;
    unsigned queues_, align_;
    uint32_t cons_base_, cons_stride_;
    double cyc_per_ns_ = 0, frame_cyc_ = 0;
    uint64_t poll_cyc_ = 1, next_event_ = 0, read_cyc_ = 0;
    bool paused_ = false;
    std::vector<Core> cores_;
    std::vector<QueueStats> stats_;
    std::vector<PcapWriter> pcaps_;
    std::array<bool, 256> open_{};
    std::vector<uint8_t> buf_;
    std::vector<std::string> errors_;
};

}  // namespace ws
