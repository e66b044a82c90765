// Host memory behind capture_top's AXI4 write master, reached over a PCIe link model
// (docs/host.md, "The PCIe and host-memory model").
//
// * Each AXI4 burst becomes one posted memory-write TLP of its strobed bytes (the writer's
//   bursts never cross BURST_BYTES = the max payload, so one burst = one TLP).
// * The link sends TLPs one after another at lanes x GT/s x 128/130 / 8 bytes per ns, each
//   costing its payload plus `overhead` bytes (framing, sequence number, 4-DW header, LCRC).
// * B is given when the TLP has left the link (a bridge answers posted writes once sent); the
//   bytes reach memory `latency_ns` later, in TLP order (PCIe keeps posted writes in order).
// * AWREADY falls while `credits` TLPs (open bursts and TLPs not yet sent) are in the bridge.
// * A write outside the rings and the write-back area, or into bytes the host still holds,
//   is an error (exit 4).
#pragma once

#include "util.hpp"

#include <cmath>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

namespace ws {

struct PcieConfig {
    double gts = 8.0;          // GT/s per lane
    unsigned lanes = 16;
    unsigned mps = 256;        // max payload (bytes): the writer's BURST_BYTES must not exceed it
    unsigned overhead = 24;    // bytes per TLP besides the payload
    double latency_ns = 400;   // TLP sent -> in host memory
    double read_ns = 900;      // an MMIO read's round trip (the final register reads)
    double mmio_write_ns = 250;  // a posted MMIO write (CONS) -> the device's register
    unsigned credits = 32;     // TLPs the bridge holds

    // Payload bytes per ns of the raw link (before TLP overheads).
    double bytes_per_ns() const { return gts * lanes * 128.0 / 130.0 / 8.0; }
};

// Host memory: QUEUES rings of `ring_bytes` at kRingBase + q * ring_bytes, and one 64-byte
// write-back slot per queue at kWbBase + 64 q.
struct HostMemory {
    static constexpr uint64_t kRingBase = 0x100000000ull;
    static constexpr uint64_t kWbBase = 0x200000000ull;

    uint64_t ring_bytes = 0;
    unsigned queues = 0;
    std::vector<uint8_t> rings, wb;
    // Per queue, what the host holds: ring positions [held_from, held_to) (free-running counters)
    std::vector<uint32_t> held_from, held_to;

    void init(unsigned q, uint64_t rb) {
        queues = q;
        ring_bytes = rb;
        rings.assign(q * rb, 0);
        wb.assign(64 * (size_t)q, 0);
        held_from.assign(q, 0);
        held_to.assign(q, 0);
    }
    uint64_t ring_base(unsigned q) const { return kRingBase + q * ring_bytes; }
    uint64_t wb_addr(unsigned q) const { return kWbBase + 64ull * q; }
    uint32_t prod(unsigned q) const {
        uint32_t v;
        memcpy(&v, &wb[64 * (size_t)q], 4);
        return v;
    }
    const uint8_t* ring(unsigned q) const { return &rings[q * ring_bytes]; }

    // One byte from the DMA; false (and `err` set) when the address is not host memory or the
    // byte is one the host has not released.
    bool write(uint64_t a, uint8_t v, std::string& err) {
        if (a >= kRingBase && a < kRingBase + rings.size()) {
            const uint64_t off = a - kRingBase;
            const unsigned q = (unsigned)(off / ring_bytes);
            const uint32_t pos = (uint32_t)(off % ring_bytes);
            const uint32_t held = held_to[q] - held_from[q];
            const uint32_t rel = (uint32_t)((pos - held_from[q]) & (ring_bytes - 1));
            if (held && rel < held) {
                char b[200];
                snprintf(b, sizeof b,
                         "DMA wrote ring %u at offset 0x%x, inside the bytes the host holds "
                         "[0x%x, 0x%x) (an unconsumed record overwritten)",
                         q, pos, held_from[q], held_to[q]);
                err = b;
                return false;
            }
            rings[off] = v;
            return true;
        }
        if (a >= kWbBase && a < kWbBase + wb.size()) {
            wb[a - kWbBase] = v;
            return true;
        }
        char b[120];
        snprintf(b, sizeof b, "DMA write to 0x%llx: outside the rings and the write-back area",
                 (unsigned long long)a);
        err = b;
        return false;
    }
};

// The AXI4 slave side: AW/W/B of capture_top's m_axi, the link, the memory.
template <class Top, unsigned KW>
class PcieModel {
public:
    PcieModel(Top* t, const PcieConfig& cfg, double clock_mhz, HostMemory& mem)
        : t_(t), cfg_(cfg), mem_(mem) {
        cyc_per_ns_ = clock_mhz / 1000.0;
        cyc_per_byte_ = cyc_per_ns_ / cfg.bytes_per_ns();
        lat_cyc_ = (uint64_t)std::ceil(cfg.latency_ns * cyc_per_ns_);
    }

    void reset_ports() {
        t_->m_axi_awready = 0;
        t_->m_axi_wready = 0;
        t_->m_axi_bvalid = 0;
        t_->m_axi_bid = 0;
        t_->m_axi_bresp = 0;
    }

    // Top of a cycle: the slave's outputs.
    void drive(uint64_t c) {
        while (!sending_.empty() && sending_.front() <= (double)c) sending_.pop_front();
        t_->m_axi_awready = (aws_.size() + sending_.size()) < cfg_.credits;
        t_->m_axi_wready = !aws_.empty();
        t_->m_axi_bvalid = !bq_.empty() && bq_.front() <= c;
        t_->m_axi_bid = 0;
        t_->m_axi_bresp = 0;
    }

    // After settling: this edge's handshakes. True when anything moved.
    bool sample(uint64_t c) {
        bool moved = false;
        if (t_->m_axi_bvalid && t_->m_axi_bready) bq_.pop_front(), moved = true;
        // W first: a beat belongs to an AW accepted in an earlier cycle (wready says so)
        if (t_->m_axi_wvalid && t_->m_axi_wready) {
            moved = true;
            Burst& b = aws_.front();
            const uint8_t* d = bytes_of(t_->m_axi_wdata);
            const uint64_t strb = (uint64_t)t_->m_axi_wstrb;
            const uint64_t base = (b.addr & ~(uint64_t)(KW - 1)) + (uint64_t)b.taken * KW;
            for (unsigned i = 0; i < KW; ++i) {
                if (strb >> i & 1) b.bytes.push_back({base + i, d[i]});
            }
            ++b.taken;
            ++beats_;
            const bool last = b.taken == b.beats;
            if ((bool)t_->m_axi_wlast != last)
                die(EXIT_BALANCE, "m_axi: WLAST %s on beat %u of a %u-beat burst at 0x%llx (cycle %llu)",
                    t_->m_axi_wlast ? "set" : "missing", b.taken, b.beats,
                    (unsigned long long)b.addr, (unsigned long long)c);
            if (last) {
                send(c, b);
                aws_.pop_front();
            }
        }
        if (t_->m_axi_awvalid && t_->m_axi_awready) {
            moved = true;
            Burst b;
            b.addr = t_->m_axi_awaddr;
            b.beats = (unsigned)t_->m_axi_awlen + 1;
            if (t_->m_axi_awsize != log2_kw() || t_->m_axi_awburst != 1)
                die(EXIT_BALANCE, "m_axi: AW at 0x%llx: AWSIZE %u / AWBURST %u, expected %u / INCR",
                    (unsigned long long)b.addr, (unsigned)t_->m_axi_awsize,
                    (unsigned)t_->m_axi_awburst, log2_kw());
            const uint64_t first = b.addr, end = (b.addr & ~(uint64_t)(KW - 1)) + (uint64_t)b.beats * KW;
            if ((first >> 12) != ((end - 1) >> 12))
                die(EXIT_BALANCE, "m_axi: burst at 0x%llx of %u beats crosses 4 KiB",
                    (unsigned long long)first, b.beats);
            if (end - (first & ~(uint64_t)(KW - 1)) > cfg_.mps)
                die(EXIT_BALANCE, "m_axi: burst at 0x%llx of %u beats exceeds the %u-byte max payload",
                    (unsigned long long)first, b.beats, cfg_.mps);
            aws_.push_back(std::move(b));
            ++bursts_;
        }
        if (moved) last_move_ = c;
        return moved;
    }

    // After the edge: TLPs that have reached memory are written.
    void deliver(uint64_t c) {
        while (!arrive_.empty() && arrive_.front().at <= c) {
            Tlp& p = arrive_.front();
            for (const auto& bv : p.bytes) {
                std::string err;
                if (!mem_.write(bv.first, bv.second, err)) die(EXIT_BALANCE, "%s (cycle %llu)", err.c_str(),
                                                                (unsigned long long)c);
            }
            arrive_.pop_front();
        }
    }

    bool idle() const { return aws_.empty() && arrive_.empty() && bq_.empty() && sending_.empty(); }
    uint64_t last_move() const { return last_move_; }

    // Report figures
    uint64_t tlps() const { return tlps_; }
    uint64_t payload_bytes() const { return payload_; }
    uint64_t bursts() const { return bursts_; }
    uint64_t beats() const { return beats_; }
    double busy_ns() const { return busy_cyc_ / cyc_per_ns_; }
    bool any() const { return tlps_ > 0; }
    double first_start_cycle() const { return first_start_; }
    double last_done_cycle() const { return link_free_; }

private:
    struct Burst {
        uint64_t addr = 0;
        unsigned beats = 0, taken = 0;
        std::vector<std::pair<uint64_t, uint8_t>> bytes;
    };
    struct Tlp {
        uint64_t at;
        std::vector<std::pair<uint64_t, uint8_t>> bytes;
    };

    static constexpr unsigned log2_kw() { return KW == 8 ? 3 : KW == 16 ? 4 : KW == 32 ? 5 : 6; }

    void send(uint64_t c, Burst& b) {
        const size_t n = b.bytes.size();
        const double start = std::max((double)c + 1, link_free_);
        const double dur = (double)(n + cfg_.overhead) * cyc_per_byte_;
        if (!tlps_) first_start_ = start;
        link_free_ = start + dur;
        busy_cyc_ += dur;
        ++tlps_;
        payload_ += n;
        sending_.push_back(link_free_);
        bq_.push_back((uint64_t)std::ceil(link_free_));
        arrive_.push_back({(uint64_t)std::ceil(link_free_) + lat_cyc_, std::move(b.bytes)});
    }

    Top* t_;
    PcieConfig cfg_;
    HostMemory& mem_;
    double cyc_per_ns_ = 0, cyc_per_byte_ = 0;
    uint64_t lat_cyc_ = 0;
    std::deque<Burst> aws_;        // AW taken, W beats being collected
    std::deque<double> sending_;   // TLPs in the bridge: the cycle each has left the link
    std::deque<uint64_t> bq_;      // the cycle each B may be given
    std::deque<Tlp> arrive_;       // TLPs on their way to memory
    double link_free_ = 0, first_start_ = 0, busy_cyc_ = 0;
    uint64_t tlps_ = 0, payload_ = 0, bursts_ = 0, beats_ = 0, last_move_ = 0;
};

}  // namespace ws
