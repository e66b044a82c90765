// SPDX-License-Identifier: Apache-2.0
//
// gre_decap — GRE decapsulation at line rate (docs/gre_decap.md).
//
//            +--------------+  descriptor   +-------------+
//   s_axis ─►│ gre_classify │──────────────►│ axis_splice │─► m_axis
//      │     +--------------+  (per frame)  +-------------+
//      └──────────────┬─── beats ──────────────────▲
//                     │ stat (per frame)
//               +-----▼-----+
//   s_axil ◄───►│  gre_csr  │ counters, CONTROL, allow-list
//               +-----------+
//
// The classifier watches the beats entering the splice engine and, on the beat that completes
// the headers it must read, tells it what to keep, strip, cut and patch. Decapsulated and
// passed frames leave cut-through, one cycle after that beat.

`default_nettype none

module gre_decap
    import gre_pkg::*;
#(
    // Width of the data bus in bits: 64, 128, 256 or 512.
    parameter int DATA_W = 256,
    // Entries of the outer IPv4 endpoint allow-list.
    parameter int ALLOW_ENTRIES = 64
) (
    input  wire logic                clk,
    input  wire logic                rst,

    input  wire logic [DATA_W-1:0]   s_axis_tdata,
    input  wire logic [DATA_W/8-1:0] s_axis_tkeep,
    input  wire logic                s_axis_tvalid,
    output      logic                s_axis_tready,
    input  wire logic                s_axis_tlast,
    input  wire logic [0:0]          s_axis_tuser,

    output      logic [DATA_W-1:0]   m_axis_tdata,
    output      logic [DATA_W/8-1:0] m_axis_tkeep,
    output      logic                m_axis_tvalid,
    input  wire logic                m_axis_tready,
    output      logic                m_axis_tlast,
    output      logic [0:0]          m_axis_tuser,

    input  wire logic [15:0]         s_axil_awaddr,
    input  wire logic [2:0]          s_axil_awprot,
    input  wire logic                s_axil_awvalid,
    output      logic                s_axil_awready,
    input  wire logic [31:0]         s_axil_wdata,
    input  wire logic [3:0]          s_axil_wstrb,
    input  wire logic                s_axil_wvalid,
    output      logic                s_axil_wready,
    output      logic [1:0]          s_axil_bresp,
    output      logic                s_axil_bvalid,
    input  wire logic                s_axil_bready,
    input  wire logic [15:0]         s_axil_araddr,
    input  wire logic [2:0]          s_axil_arprot,
    input  wire logic                s_axil_arvalid,
    output      logic                s_axil_arready,
    output      logic [31:0]         s_axil_rdata,
    output      logic [1:0]          s_axil_rresp,
    output      logic                s_axil_rvalid,
    input  wire logic                s_axil_rready,

    // One event per input frame, in input order, after its last beat: its outcome, whether it
    // appears on m_axis (possibly aborted), and its length. For telemetry and test benches.
    output      logic                m_stat_valid,
    output      logic [3:0]          m_stat_outcome,
    output      logic                m_stat_emit,
    output      logic [15:0]         m_stat_len
);

    localparam int KEEP_W = DATA_W / 8;
    localparam int HDR_BYTES = 128;
    // Beats between the first byte of a frame and its decision, plus the bypass and one
    // frame's trailing beat: the buffer never fills with an unstalled output.
    localparam int DEPTH_NEED = HDR_BYTES / KEEP_W + 4;
    localparam int BUF_BEATS = 1 << $clog2(DEPTH_NEED);
    localparam int LEN_W = 17;
    localparam int NUM_OUTCOMES = int'(OUT_DROP_POLICY) + 1;

    if (DATA_W != 64 && DATA_W != 128 && DATA_W != 256 && DATA_W != 512) begin : g_param_check_1
        $error("gre_decap: DATA_W must be 64, 128, 256 or 512");
    end
    if (ALLOW_ENTRIES < 1 || ALLOW_ENTRIES > 256) begin : g_param_check_2
        $error("gre_decap: ALLOW_ENTRIES must be 1..256");
    end

    wire s_hs = s_axis_tvalid && s_axis_tready;

    logic                ctrl_allow_enable, ctrl_drop_pass, ctrl_drop_punt, ctrl_forward_malformed;
    logic [31:0]         lookup_src, lookup_dst;
    logic                lookup_hit;
    logic                desc_valid, desc_drop, desc_len_valid, eof_bad;
    logic [7:0]          desc_seg1_len, desc_seg2_off;
    logic                splice_meta_unused;   // no per-frame metadata on this block's output
    logic [LEN_W-1:0]    desc_out_len;
    logic [5:0]          desc_patch_en;
    logic [47:0]         desc_patch_pos, desc_patch_val;
    logic                stat_valid, stat_emit;
    outcome_e            stat_outcome;
    logic [15:0]         stat_len;

    gre_classify #(
        .DATA_W(DATA_W),
        .HDR_BYTES(HDR_BYTES),
        .LEN_W(LEN_W)
    ) classify (
        .clk, .rst,
        .s_tdata(s_axis_tdata), .s_tkeep(s_axis_tkeep), .s_hs,
        .s_tlast(s_axis_tlast), .s_tuser(s_axis_tuser[0]),
        .ctrl_allow_enable, .ctrl_drop_pass, .ctrl_drop_punt, .ctrl_forward_malformed,
        .lookup_src, .lookup_dst, .lookup_hit,
        .desc_valid, .desc_drop, .desc_seg1_len, .desc_seg2_off, .desc_len_valid,
        .desc_out_len, .desc_patch_en, .desc_patch_pos, .desc_patch_val, .eof_bad,
        .stat_valid, .stat_outcome, .stat_emit, .stat_len
    );

    axis_splice #(
        .DATA_W(DATA_W),
        .BUF_BEATS(BUF_BEATS),
        .FRAMES(BUF_BEATS),
        .INS_MAX(1),
        .PATCHES(6),
        .LEN_W(LEN_W),
        .META_W(1)
    ) splice (
        .clk, .rst,
        .s_axis_tdata, .s_axis_tkeep, .s_axis_tvalid, .s_axis_tready,
        .s_axis_tlast, .s_axis_tuser(s_axis_tuser[0]),
        .desc_valid, .desc_drop,
        .desc_seg1_off(8'd0), .desc_seg1_len, .desc_ins_len(8'd0), .desc_ins_data(8'd0),
        .desc_seg2_off, .desc_len_valid, .desc_out_len,
        .desc_patch_en, .desc_patch_pos, .desc_patch_val, .desc_meta(1'b0), .eof_bad,
        .m_axis_tdata, .m_axis_tkeep, .m_axis_tvalid, .m_axis_tready,
        .m_axis_tlast, .m_axis_tuser(m_axis_tuser[0]), .m_axis_tmeta(splice_meta_unused)
    );

    // Whole frames transmitted (not aborted), for the TX counters.
    logic [15:0] tx_acc;
    logic        tx_valid;
    logic [15:0] tx_len;
    logic [15:0] out_beat_len;
    always_comb begin
        out_beat_len = '0;
        for (int b = 0; b < KEEP_W; b++)
            if (m_axis_tkeep[b]) out_beat_len = 16'(b + 1);
    end
    always_ff @(posedge clk) begin
        tx_valid <= 1'b0;
        if (m_axis_tvalid && m_axis_tready) begin
            tx_acc <= m_axis_tlast ? 16'd0 : tx_acc + out_beat_len;
            if (m_axis_tlast && !m_axis_tuser[0]) begin
                tx_valid <= 1'b1;
                tx_len   <= tx_acc + out_beat_len;
            end
        end
        if (rst) begin
            tx_acc   <= '0;
            tx_valid <= 1'b0;
        end
    end

    gre_csr #(
        .DATA_W(DATA_W),
        .ALLOW_ENTRIES(ALLOW_ENTRIES),
        .NUM_OUTCOMES(NUM_OUTCOMES)
    ) csr (
        .clk, .rst,
        .s_axil_awaddr, .s_axil_awprot, .s_axil_awvalid, .s_axil_awready,
        .s_axil_wdata, .s_axil_wstrb, .s_axil_wvalid, .s_axil_wready,
        .s_axil_bresp, .s_axil_bvalid, .s_axil_bready,
        .s_axil_araddr, .s_axil_arprot, .s_axil_arvalid, .s_axil_arready,
        .s_axil_rdata, .s_axil_rresp, .s_axil_rvalid, .s_axil_rready,
        .stat_valid, .stat_outcome(stat_outcome), .stat_len,
        .tx_valid, .tx_len,
        .ctrl_allow_enable, .ctrl_drop_pass, .ctrl_drop_punt, .ctrl_forward_malformed,
        .lookup_src, .lookup_dst, .lookup_hit
    );

    assign m_stat_valid   = stat_valid;
    assign m_stat_outcome = stat_outcome;
    assign m_stat_emit    = stat_emit;
    assign m_stat_len     = stat_len;

endmodule

`default_nettype wire
