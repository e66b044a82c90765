// AXI4-Lite master for the harness: one transaction at a time, full handshakes on every channel.
//
// The harness owns the clock. Per cycle it calls:
//   (inputs set) -> eval with clk=0 (settles) -> sample() -> eval with clk=1 -> after_edge()
// sample() notes the handshakes that happen at this edge (valid && ready, seen before the edge);
// after_edge() drops the valids that were accepted and raises bready/rready once the address
// (and data) phases are done. Nothing assumes a slave answers in a fixed number of cycles.
#pragma once

#include <cstdint>

namespace ws {

template <class Top>
class AxilMaster {
public:
    enum class Op { None, Write, Read };

    explicit AxilMaster(Top* t) : t_(t) {}

    // Drives every master output to its idle value.
    void idle_signals() {
        t_->s_axil_awaddr = 0;
        t_->s_axil_awprot = 0;
        t_->s_axil_awvalid = 0;
        t_->s_axil_wdata = 0;
        t_->s_axil_wstrb = 0;
        t_->s_axil_wvalid = 0;
        t_->s_axil_bready = 0;
        t_->s_axil_araddr = 0;
        t_->s_axil_arprot = 0;
        t_->s_axil_arvalid = 0;
        t_->s_axil_rready = 0;
        op_ = Op::None;
        done_ = false;
    }

    void start_write(uint32_t addr, uint32_t data, uint8_t strb = 0xf) {
        op_ = Op::Write;
        done_ = false;
        aw_done_ = w_done_ = false;
        t_->s_axil_awaddr = addr;
        t_->s_axil_awprot = 0;
        t_->s_axil_awvalid = 1;
        t_->s_axil_wdata = data;
        t_->s_axil_wstrb = strb;
        t_->s_axil_wvalid = 1;
        t_->s_axil_bready = 0;
        resp_ = 0;
    }

    void start_read(uint32_t addr) {
        op_ = Op::Read;
        done_ = false;
        ar_done_ = false;
        t_->s_axil_araddr = addr;
        t_->s_axil_arprot = 0;
        t_->s_axil_arvalid = 1;
        t_->s_axil_rready = 0;
        resp_ = 0;
        rdata_ = 0;
    }

    bool busy() const { return op_ != Op::None && !done_; }
    bool done() const { return done_; }
    uint32_t resp() const { return resp_; }    // 0 OKAY, 1 EXOKAY, 2 SLVERR, 3 DECERR
    uint32_t rdata() const { return rdata_; }
    // A short description of where a stuck transaction waits, for error messages.
    const char* waiting_for() const {
        if (op_ == Op::Write) {
            if (!aw_done_ && !w_done_) return "awready and wready";
            if (!aw_done_) return "awready";
            if (!w_done_) return "wready";
            return "bvalid";
        }
        if (op_ == Op::Read) return ar_done_ ? "rvalid" : "arready";
        return "nothing";
    }

    // Before the clock edge, after the settling eval.
    void sample() {
        if (op_ == Op::Write) {
            aw_hs_ = t_->s_axil_awvalid && t_->s_axil_awready;
            w_hs_ = t_->s_axil_wvalid && t_->s_axil_wready;
            if (t_->s_axil_bready && t_->s_axil_bvalid) {
                resp_ = t_->s_axil_bresp & 3u;
                done_ = true;
            }
        } else if (op_ == Op::Read) {
            ar_hs_ = t_->s_axil_arvalid && t_->s_axil_arready;
            if (t_->s_axil_rready && t_->s_axil_rvalid) {
                resp_ = t_->s_axil_rresp & 3u;
                rdata_ = t_->s_axil_rdata;
                done_ = true;
            }
        }
    }

    // After the clock edge.
    void after_edge() {
        if (op_ == Op::Write) {
            if (aw_hs_) aw_done_ = true, t_->s_axil_awvalid = 0;
            if (w_hs_) w_done_ = true, t_->s_axil_wvalid = 0;
            aw_hs_ = w_hs_ = false;
            t_->s_axil_bready = (aw_done_ && w_done_ && !done_) ? 1 : 0;
        } else if (op_ == Op::Read) {
            if (ar_hs_) ar_done_ = true, t_->s_axil_arvalid = 0;
            ar_hs_ = false;
            t_->s_axil_rready = (ar_done_ && !done_) ? 1 : 0;
        }
        if (done_) op_ = Op::None;
    }

private:
    Top* t_;
    Op op_ = Op::None;
    bool done_ = false;
    bool aw_done_ = false, w_done_ = false, ar_done_ = false;
    bool aw_hs_ = false, w_hs_ = false, ar_hs_ = false;
    uint32_t resp_ = 0, rdata_ = 0;
};

inline const char* axil_resp_name(uint32_t r) {
    switch (r & 3u) {
    case 0: return "OKAY";
    case 1: return "EXOKAY";
    case 2: return "SLVERR";
    default: return "DECERR";
    }
}

}  // namespace ws
