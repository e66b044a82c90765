// SPDX-License-Identifier: Apache-2.0
//
// ts_clock: the host interface's time (docs/host.md). A 64-bit nanosecond clock with a 32-bit
// fraction, advanced every cycle by an increment of INC_NS_W.32 ns, so any clock frequency
// keeps nanoseconds (322.265625 MHz: 3.103030303 ns = 0x3_1A60_31A6 in 32.32); settable (an
// atomic 64-bit load), adjustable (a signed offset added once, the increment changed) over
// AXI4-Lite; a PPS input that latches the time and counts pulses. The golden model is
// wirespeed/model/ts.py.
//
// Time (T(t): ts_ns/ts_frac in cycle t; I(t): the increment in force)
//   T(t + 1) = T(t) + I(t), mod 2^96 as one {ns, frac} number. The register writes below act
//   at fixed cycles after c0, the cycle a write's AW and W are both present (wr_req):
//     CMD.INCR   I(t) = {INCR_NS, INCR_FRAC} for t >= c0 + K_INC (5)
//     CMD.SET    T(c0 + K_SET) = {SET_HI, SET_LO}.0 (K_SET = 3); then it advances as before
//     CMD.ADJUST T(t + 1) = T(t) + I(t) + ADJ (ADJ: signed 64-bit ns) for t = c0 + K_ADJ (7)
//   One CMD write may carry several bits; two CMD writes are at least 3 cycles apart over
//   AXI4-Lite (axil_reg_if), which the stage timing below relies on.
//
// PPS: pps is asynchronous; PPS_SYNC flip-flops synchronise it. The first cycle p in which the
//   pin is high after a low (as sampled at the end of cycle p) latches T(p + PPS_SYNC) into
//   PPS_* and counts the pulse in PPS_COUNT.
//
// Register map: wirespeed/regmap.py (TS_CLOCK, generated ts_clock_pkg; the table in
//   docs/host.md). TIME_LO read in cycle c0 (rd_req) returns T(c0)'s ns[31:0] and holds
//   T(c0)'s ns[63:32] for TIME_HI and its fraction for TIME_FRAC (an atomic 96-bit read);
//   PPS_LO likewise for PPS_HI/PPS_FRAC (a PPS between the two reads does not tear them).
//   Writes: B in c0 + 1; reads: R 3 cycles after the AR handshake. Unmapped addresses and
//   writes to read-only registers answer SLVERR.
//
// Timing: the 96-bit sum is two 48-bit adders in successive cycles (the carry registered);
// the output register pairs the upper half with the lower half of the cycle before, so the
// time leaves whole. Every adder operand is a register.

`default_nettype none

module ts_clock
    import ts_clock_pkg::*;
#(
    // AXI4-Lite byte address width (8..16; the map uses 0x000..0x03F)
    parameter int ADDR_W = 12,
    // Integer bits of the per-cycle increment (1..16): the slowest clock is 2^-INC_NS_W GHz
    parameter int INC_NS_W = 8,
    // Increment at reset: ns (INC_NS_W bits) and fraction (2^-32 ns): 4 ns = 250 MHz
    parameter logic [15:0] INC_RESET_NS = 16'd4,
    parameter logic [31:0] INC_RESET_FRAC = 32'd0,
    // Synchroniser flip-flops on pps (2..4)
    parameter int PPS_SYNC = 2
) (
    input  wire logic              clk,
    input  wire logic              rst,

    input  wire logic              pps,       // asynchronous pulse per second

    output      logic [63:0]       ts_ns,     // T(t), ns
    output      logic [31:0]       ts_frac,   // T(t), 2^-32 ns

    // AXI4-Lite slave
    input  wire logic [ADDR_W-1:0] s_axil_awaddr,
    input  wire logic [2:0]        s_axil_awprot,
    input  wire logic              s_axil_awvalid,
    output      logic              s_axil_awready,
    input  wire logic [31:0]       s_axil_wdata,
    input  wire logic [3:0]        s_axil_wstrb,
    input  wire logic              s_axil_wvalid,
    output      logic              s_axil_wready,
    output      logic [1:0]        s_axil_bresp,
    output      logic              s_axil_bvalid,
    input  wire logic              s_axil_bready,
    input  wire logic [ADDR_W-1:0] s_axil_araddr,
    input  wire logic [2:0]        s_axil_arprot,
    input  wire logic              s_axil_arvalid,
    output      logic              s_axil_arready,
    output      logic [31:0]       s_axil_rdata,
    output      logic [1:0]        s_axil_rresp,
    output      logic              s_axil_rvalid,
    input  wire logic              s_axil_rready
);

    // ------------------------------------------------------------------------------------
    // Parameter checks
    // ------------------------------------------------------------------------------------
    if (ADDR_W < 8 || ADDR_W > 16) begin : g_check_addr_w
        $error("ts_clock: ADDR_W (%0d) must be 8..16", ADDR_W);
    end
    if (INC_NS_W < 1 || INC_NS_W > 16) begin : g_check_inc_ns_w
        $error("ts_clock: INC_NS_W (%0d) must be 1..16", INC_NS_W);
    end
    if (17'(INC_RESET_NS) >= (17'd1 << INC_NS_W)) begin : g_check_inc_reset
        $error("ts_clock: INC_RESET_NS must fit INC_NS_W bits");
    end
    if (PPS_SYNC < 2 || PPS_SYNC > 4) begin : g_check_pps_sync
        $error("ts_clock: PPS_SYNC (%0d) must be 2..4", PPS_SYNC);
    end

    localparam int WA_W = ADDR_W - 2;

    function automatic logic [31:0] apply_strb(input logic [31:0] old, input logic [31:0] d,
                                               input logic [3:0] strb);
        logic [31:0] r;
        for (int b = 0; b < 4; b++) r[8*b +: 8] = strb[b] ? d[8*b +: 8] : old[8*b +: 8];
        return r;
    endfunction

    // ------------------------------------------------------------------------------------
    // AXI4-Lite front end
    // ------------------------------------------------------------------------------------
    logic            wr_req;
    logic [WA_W-1:0] wr_addr;
    logic [31:0]     wr_data;
    logic [3:0]      wr_strb;
    logic            wr_err;
    logic            rd_req;
    logic [WA_W-1:0] rd_addr;
    logic            rd_ack;
    logic [31:0]     rd_data;
    logic            rd_err;

    axil_reg_if #(
        .ADDR_W (ADDR_W)
    ) u_axil (
        .clk            (clk),
        .rst            (rst),
        .s_axil_awaddr  (s_axil_awaddr),
        .s_axil_awprot  (s_axil_awprot),
        .s_axil_awvalid (s_axil_awvalid),
        .s_axil_awready (s_axil_awready),
        .s_axil_wdata   (s_axil_wdata),
        .s_axil_wstrb   (s_axil_wstrb),
        .s_axil_wvalid  (s_axil_wvalid),
        .s_axil_wready  (s_axil_wready),
        .s_axil_bresp   (s_axil_bresp),
        .s_axil_bvalid  (s_axil_bvalid),
        .s_axil_bready  (s_axil_bready),
        .s_axil_araddr  (s_axil_araddr),
        .s_axil_arprot  (s_axil_arprot),
        .s_axil_arvalid (s_axil_arvalid),
        .s_axil_arready (s_axil_arready),
        .s_axil_rdata   (s_axil_rdata),
        .s_axil_rresp   (s_axil_rresp),
        .s_axil_rvalid  (s_axil_rvalid),
        .s_axil_rready  (s_axil_rready),
        .wr_ready       (1'b1),
        .wr_req         (wr_req),
        .wr_addr        (wr_addr),
        .wr_data        (wr_data),
        .wr_strb        (wr_strb),
        .wr_ack         (wr_req),
        .wr_err         (wr_err),
        .rd_req         (rd_req),
        .rd_addr        (rd_addr),
        .rd_ack         (rd_ack),
        .rd_data        (rd_data),
        .rd_err         (rd_err)
    );

    function automatic logic is_rw(input logic [WA_W-1:0] wa);
        logic [31:0] a;
        a = 32'({wa, 2'b00});
        return a == TS_REG_CMD || a == TS_REG_INCR_FRAC || a == TS_REG_INCR_NS
            || a == TS_REG_SET_LO || a == TS_REG_SET_HI || a == TS_REG_ADJ_LO
            || a == TS_REG_ADJ_HI;
    endfunction

    function automatic logic is_ro(input logic [WA_W-1:0] wa);
        logic [31:0] a;
        a = 32'({wa, 2'b00});
        return a == TS_REG_INFO || a == TS_REG_TIME_LO || a == TS_REG_TIME_HI
            || a == TS_REG_TIME_FRAC || a == TS_REG_PPS_LO || a == TS_REG_PPS_HI
            || a == TS_REG_PPS_FRAC || a == TS_REG_PPS_COUNT;
    endfunction

    assign wr_err = !is_rw(wr_addr);

    // ------------------------------------------------------------------------------------
    // Writes: registered (c1), performed at the end of c1; CMD's strobes in c2
    // ------------------------------------------------------------------------------------
    logic            wq_v;
    logic [31:0]     wq_a;          // data: byte address
    logic [31:0]     wq_data;       // data
    logic [3:0]      wq_strb;       // data

    logic [31:0]     inc_frac_s_q;  // staging
    logic [15:0]     inc_ns_s_q;
    logic [63:0]     set_s_q;
    logic [63:0]     adj_s_q;
    logic            go_set_q;      // c2
    logic            go_inc_q;      // c2
    logic [2:0]      go_adj_q;      // c2..c4: ADJUST acts in c5 (go_adj)

    always_ff @(posedge clk) begin
        if (rst) begin
            wq_v <= 1'b0;
        end else begin
            wq_v <= wr_req && !wr_err;
        end
    end

    always_ff @(posedge clk) begin
        wq_a    <= 32'({wr_addr, 2'b00});
        wq_data <= wr_data;
        wq_strb <= wr_strb;
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            inc_frac_s_q <= INC_RESET_FRAC;
            inc_ns_s_q   <= INC_RESET_NS;
            set_s_q      <= '0;
            adj_s_q      <= '0;
        end else if (wq_v) begin
            if (wq_a == TS_REG_INCR_FRAC) inc_frac_s_q <= apply_strb(inc_frac_s_q, wq_data, wq_strb);
            if (wq_a == TS_REG_INCR_NS) begin
                inc_ns_s_q <= 16'(apply_strb(32'(inc_ns_s_q), wq_data, wq_strb)
                                  & ((32'd1 << INC_NS_W) - 1));
            end
            if (wq_a == TS_REG_SET_LO) set_s_q[31:0]  <= apply_strb(set_s_q[31:0], wq_data, wq_strb);
            if (wq_a == TS_REG_SET_HI) set_s_q[63:32] <= apply_strb(set_s_q[63:32], wq_data, wq_strb);
            if (wq_a == TS_REG_ADJ_LO) adj_s_q[31:0]  <= apply_strb(adj_s_q[31:0], wq_data, wq_strb);
            if (wq_a == TS_REG_ADJ_HI) adj_s_q[63:32] <= apply_strb(adj_s_q[63:32], wq_data, wq_strb);
        end
    end

    logic wq_cmd;
    assign wq_cmd = wq_v && wq_a == TS_REG_CMD && wq_strb[0];

    always_ff @(posedge clk) begin
        if (rst) begin
            go_set_q <= 1'b0;
            go_inc_q <= 1'b0;
            go_adj_q <= '0;
        end else begin
            go_set_q <= wq_cmd && wq_data[TS_CMD_SET];
            go_inc_q <= wq_cmd && wq_data[TS_CMD_INCR];
            go_adj_q <= {go_adj_q[1:0], wq_cmd && wq_data[TS_CMD_ADJUST]};
        end
    end

    // ------------------------------------------------------------------------------------
    // The increment in force, and the one-off addend of an adjustment (precomputed from
    // registers: low 48 bits with their carry, then the high 48 bits a cycle later)
    // ------------------------------------------------------------------------------------
    logic [47:0] inc_q;         // {ns, frac} of I, zero-extended to 48 bits
    logic [47:0] adjp_lo_q;     // data: inc + ADJ[15:0].0
    logic        adjp_c_q;      // data: its carry
    logic [47:0] adjp_hi_q;     // data: ADJ[63:16] + carry
    logic        go_adj_q3;     // c5: the adjusted addend goes in

    always_ff @(posedge clk) begin
        if (rst) begin
            inc_q <= {16'(INC_RESET_NS), INC_RESET_FRAC};
        end else if (go_inc_q) begin
            inc_q <= {inc_ns_s_q, inc_frac_s_q};
        end
    end

    always_ff @(posedge clk) begin
        {adjp_c_q, adjp_lo_q} <= 49'(inc_q) + 49'({adj_s_q[15:0], 32'd0});
        adjp_hi_q             <= adj_s_q[63:16] + 48'(adjp_c_q);
    end

    always_ff @(posedge clk) begin
        if (rst) go_adj_q3 <= 1'b0;
        else     go_adj_q3 <= go_adj_q[2];
    end

    // ------------------------------------------------------------------------------------
    // The accumulator: the 96-bit sum in two halves
    //   lo_q = L(k), the low 48 bits of step k; hi_q = H(k-1) with lod_q = L(k-1): T = {hi, lod}
    // ------------------------------------------------------------------------------------
    logic [47:0] add_lo_q;      // D(k): the addend of step k, low half
    logic [47:0] add_hi_q;      // high half (0 but for an adjustment)
    logic [47:0] lo_q;
    logic        c_q;           // carry of the last low add
    logic [47:0] ah_q;          // the high addend of the last step
    logic [47:0] hi_q;
    logic [47:0] lod_q;

    always_ff @(posedge clk) begin
        if (rst) begin
            add_lo_q <= {16'(INC_RESET_NS), INC_RESET_FRAC};
            add_hi_q <= '0;
        end else if (go_adj_q3) begin
            add_lo_q <= adjp_lo_q;
            add_hi_q <= adjp_hi_q;
        end else begin
            add_lo_q <= inc_q;
            add_hi_q <= '0;
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            lo_q  <= '0;
            c_q   <= 1'b0;
            ah_q  <= '0;
            hi_q  <= '0;
            lod_q <= '0;
        end else begin
            // SET: T(next) = S, and the step after it adds as usual
            {c_q, lo_q} <= 49'(go_set_q ? {set_s_q[15:0], 32'd0} : lo_q) + 49'(add_lo_q);
            ah_q        <= add_hi_q;
            hi_q        <= go_set_q ? set_s_q[63:16] : hi_q + ah_q + 48'(c_q);
            lod_q       <= go_set_q ? {set_s_q[15:0], 32'd0} : lo_q;
        end
    end

    assign ts_ns   = {hi_q, lod_q[47:32]};
    assign ts_frac = lod_q[31:0];

    // ------------------------------------------------------------------------------------
    // PPS: synchroniser, rising edge, latch and count
    // ------------------------------------------------------------------------------------
    (* async_reg = "true" *) logic [PPS_SYNC-1:0] pps_sync_q;
    logic        pps_prev_q;
    logic        pps_rise;
    logic [95:0] pps_time_q;
    logic [31:0] pps_cnt_q;

    assign pps_rise = pps_sync_q[PPS_SYNC-1] && !pps_prev_q;

    always_ff @(posedge clk) begin
        if (rst) begin
            pps_sync_q <= '0;
            pps_prev_q <= 1'b0;
        end else begin
            pps_sync_q <= {pps_sync_q[PPS_SYNC-2:0], pps};
            pps_prev_q <= pps_sync_q[PPS_SYNC-1];
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            pps_time_q <= '0;
            pps_cnt_q  <= '0;
        end else if (pps_rise) begin
            pps_time_q <= {ts_ns, ts_frac};
            pps_cnt_q  <= pps_cnt_q + 32'd1;
        end
    end

    // ------------------------------------------------------------------------------------
    // Reads: c0 snapshot (TIME_LO, PPS_LO) and address; c1 the word; c2 rd_ack (R in c3)
    // ------------------------------------------------------------------------------------
    logic            rd_v1_q;
    logic            rd_v2_q;
    logic [31:0]     rd_a1_q;   // data
    logic [95:0]     snap_t_q;  // data: T of a TIME_LO read's c0
    logic [95:0]     snap_p_q;  // data: PPS time at a PPS_LO read's c0
    logic [31:0]     rd_w_q;    // data
    logic            rd_e_q;    // data

    always_ff @(posedge clk) begin
        if (rst) begin
            rd_v1_q <= 1'b0;
            rd_v2_q <= 1'b0;
        end else begin
            rd_v1_q <= rd_req;
            rd_v2_q <= rd_v1_q;
        end
    end

    always_ff @(posedge clk) begin
        if (rd_req) rd_a1_q <= 32'({rd_addr, 2'b00});
        if (rd_req && 32'({rd_addr, 2'b00}) == TS_REG_TIME_LO) snap_t_q <= {ts_ns, ts_frac};
        if (rd_req && 32'({rd_addr, 2'b00}) == TS_REG_PPS_LO)  snap_p_q <= pps_time_q;
    end

    always_ff @(posedge clk) begin
        rd_e_q <= !(is_rw(WA_W'(rd_a1_q >> 2)) || is_ro(WA_W'(rd_a1_q >> 2)));
        case (rd_a1_q)
            TS_REG_INFO:       rd_w_q <= {8'(PPS_SYNC), 8'(INC_NS_W), 8'd32, 8'd1};
            TS_REG_INCR_FRAC:  rd_w_q <= inc_frac_s_q;
            TS_REG_INCR_NS:    rd_w_q <= 32'(inc_ns_s_q);
            TS_REG_SET_LO:     rd_w_q <= set_s_q[31:0];
            TS_REG_SET_HI:     rd_w_q <= set_s_q[63:32];
            TS_REG_ADJ_LO:     rd_w_q <= adj_s_q[31:0];
            TS_REG_ADJ_HI:     rd_w_q <= adj_s_q[63:32];
            TS_REG_TIME_LO:    rd_w_q <= snap_t_q[63:32];
            TS_REG_TIME_HI:    rd_w_q <= snap_t_q[95:64];
            TS_REG_TIME_FRAC:  rd_w_q <= snap_t_q[31:0];
            TS_REG_PPS_LO:     rd_w_q <= snap_p_q[63:32];
            TS_REG_PPS_HI:     rd_w_q <= snap_p_q[95:64];
            TS_REG_PPS_FRAC:   rd_w_q <= snap_p_q[31:0];
            TS_REG_PPS_COUNT:  rd_w_q <= pps_cnt_q;
            default:           rd_w_q <= '0;
        endcase
    end

    assign rd_ack  = rd_v2_q;
    assign rd_data = rd_w_q;
    assign rd_err  = rd_e_q;

    // Unused: CMD reads 0 (the default), wq_strb lanes of CMD above bit 7
    logic unused;
    assign unused = ^{wq_data[31:8]};

endmodule

`default_nettype wire
