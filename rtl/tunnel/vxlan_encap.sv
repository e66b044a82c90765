// SPDX-License-Identifier: Apache-2.0
//
// vxlan_encap — VXLAN tunnel start, host to network (docs/vxlan.md, "Encap").
//
//   s_axis ─► axis_keep_check ─► axis_frame_fifo ─(frame + its length)─► axis_splice ─► m_axis
//             (tkeep holes:       (store and forward)     │ beats          ▲ descriptor: outer
//              bad frame)                          +-----▼----------+     │ headers (50 bytes)
//                                                  │ encap_classify │─────┘ inserted, inner
//                                                  +-----┬-----▲----+       802.1Q tag removed
//                                     key {tag, inner dst}│     │entry
//                                                  +-----▼-----┴----+
//                                   s_axil_tbl ───►│   hash_table   │ 16K tunnels by default
//                                                  +----------------+
//   s_axil ─► block_csr: CONTROL (bit 0: drop on miss), per-outcome and TX counters
//
// The frame is stored whole first because its length goes into the outer IPv4 and UDP
// headers; it then leaves at one beat per cycle, the added bytes costing only their beats.

`default_nettype none

module vxlan_encap #(
    // Width of the data bus in bits: 64, 128, 256 or 512.
    parameter int DATA_W = 256,
    // Slots of the tunnel table (2 banks x SLOTS/8 buckets x 4 ways): 32768 holds 16K tunnels
    // at 50 % load; up to 524288 for 256K tunnels.
    parameter int TUNNEL_SLOTS = 32768,
    // Bytes of the store-and-forward FIFO: two 9600-byte jumbo frames and change.
    parameter int FIFO_BYTES = 32768,
    // Cycles of the table lookup (hash_table LOOKUP_LATENCY, 3 or 4): 4 registers the words
    // read once more, which takes the table off the critical path (docs/performance.md), at
    // one cycle more on every frame's decision.
    parameter int LOOKUP_LATENCY = 3,
    // Registers added in the splice engine, each a cycle more on every frame and a cut of its
    // critical path (docs/performance.md): 1: its plan before its data path (axis_splice
    // OUT_PIPE); 2: also its descriptor (DESC_PIPE); 3: also the live input beat taken off
    // its decision (END_PIPE). 0 to 3.
    parameter int SPLICE_PIPE = 0
) (
    input  wire logic                clk,
    input  wire logic                rst,

    input  wire logic [DATA_W-1:0]   s_axis_tdata,
    input  wire logic [DATA_W/8-1:0] s_axis_tkeep,
    input  wire logic                s_axis_tvalid,
    output      logic                s_axis_tready,
    input  wire logic                s_axis_tlast,
    input  wire logic                s_axis_tuser,

    output      logic [DATA_W-1:0]   m_axis_tdata,
    output      logic [DATA_W/8-1:0] m_axis_tkeep,
    output      logic                m_axis_tvalid,
    input  wire logic                m_axis_tready,
    output      logic                m_axis_tlast,
    output      logic                m_axis_tuser,

    // Control and counters (4 KiB window).
    input  wire logic [11:0]         s_axil_awaddr,
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
    input  wire logic [11:0]         s_axil_araddr,
    input  wire logic [2:0]          s_axil_arprot,
    input  wire logic                s_axil_arvalid,
    output      logic                s_axil_arready,
    output      logic [31:0]         s_axil_rdata,
    output      logic [1:0]          s_axil_rresp,
    output      logic                s_axil_rvalid,
    input  wire logic                s_axil_rready,

    // Tunnel table (4 KiB window, hash_table registers).
    input  wire logic [11:0]         s_axil_tbl_awaddr,
    input  wire logic [2:0]          s_axil_tbl_awprot,
    input  wire logic                s_axil_tbl_awvalid,
    output      logic                s_axil_tbl_awready,
    input  wire logic [31:0]         s_axil_tbl_wdata,
    input  wire logic [3:0]          s_axil_tbl_wstrb,
    input  wire logic                s_axil_tbl_wvalid,
    output      logic                s_axil_tbl_wready,
    output      logic [1:0]          s_axil_tbl_bresp,
    output      logic                s_axil_tbl_bvalid,
    input  wire logic                s_axil_tbl_bready,
    input  wire logic [11:0]         s_axil_tbl_araddr,
    input  wire logic [2:0]          s_axil_tbl_arprot,
    input  wire logic                s_axil_tbl_arvalid,
    output      logic                s_axil_tbl_arready,
    output      logic [31:0]         s_axil_tbl_rdata,
    output      logic [1:0]          s_axil_tbl_rresp,
    output      logic                s_axil_tbl_rvalid,
    input  wire logic                s_axil_tbl_rready,

    // One event per input frame, in order.
    output      logic                m_stat_valid,
    output      logic [3:0]          m_stat_outcome,
    output      logic                m_stat_emit,
    output      logic [15:0]         m_stat_len
);

    localparam int KEEP_W = DATA_W / 8;
    localparam int LEN_W = 17;
    localparam int INS_MAX = 64;
    // Beats held while the next frame's headers are read and its tunnel looked up (one more
    // for each of the engine's registers, SPLICE_PIPE).
    localparam int BUF_BEATS = 1 << $clog2(128 / KEEP_W + LOOKUP_LATENCY + 8 + SPLICE_PIPE);
    localparam int NUM_OUTCOMES = 6;

    if (DATA_W != 64 && DATA_W != 128 && DATA_W != 256 && DATA_W != 512) begin : g_param_check_1
        $error("vxlan_encap: DATA_W must be 64, 128, 256 or 512");
    end
    if (FIFO_BYTES < 2 * 9600 || (FIFO_BYTES & (FIFO_BYTES - 1)) != 0) begin : g_param_check_2
        $error("vxlan_encap: FIFO_BYTES must be a power of two holding two jumbo frames");
    end
    if (SPLICE_PIPE < 0 || SPLICE_PIPE > 3) begin : g_param_check_3
        $error("vxlan_encap: SPLICE_PIPE must be 0..3");
    end
    if (LOOKUP_LATENCY != 3 && LOOKUP_LATENCY != 4) begin : g_param_check_4
        $error("vxlan_encap: LOOKUP_LATENCY must be 3 or 4");
    end

    logic [DATA_W-1:0] f_tdata;
    logic [KEEP_W-1:0] f_tkeep;
    logic              f_tvalid, f_tready, f_tlast, f_tuser, f_bad, f_oversize;
    logic [15:0]       f_len;

    // tkeep guard (docs/robustness.md): a frame with a tkeep hole is a bad frame (tuser on its
    // last beat: DROP_RX_ERROR, never sent); the FIFO and the classifier see no hole.
    logic [DATA_W-1:0] k_tdata;
    logic [KEEP_W-1:0] k_tkeep;
    logic              k_tvalid, k_tready, k_tlast, k_tuser;

    axis_keep_check #(
        .DATA_W(DATA_W)
    ) keep_check (
        .clk, .rst,
        .s_axis_tdata, .s_axis_tkeep, .s_axis_tvalid, .s_axis_tready,
        .s_axis_tlast, .s_axis_tuser,
        .m_axis_tdata(k_tdata), .m_axis_tkeep(k_tkeep), .m_axis_tvalid(k_tvalid),
        .m_axis_tready(k_tready), .m_axis_tlast(k_tlast), .m_axis_tuser(k_tuser)
    );

    axis_frame_fifo #(
        .DATA_W(DATA_W),
        .DEPTH(FIFO_BYTES / KEEP_W),
        .FRAMES(32)
    ) fifo (
        .clk, .rst,
        .s_axis_tdata(k_tdata), .s_axis_tkeep(k_tkeep), .s_axis_tvalid(k_tvalid),
        .s_axis_tready(k_tready), .s_axis_tlast(k_tlast), .s_axis_tuser(k_tuser),
        .m_axis_tdata(f_tdata), .m_axis_tkeep(f_tkeep), .m_axis_tvalid(f_tvalid),
        .m_axis_tready(f_tready), .m_axis_tlast(f_tlast), .m_axis_tuser(f_tuser),
        .m_len(f_len), .m_bad(f_bad), .m_oversize(f_oversize)
    );

    wire f_hs = f_tvalid && f_tready;

    logic [31:0]          ctrl;
    wire                  ctrl_unused = ^ctrl[31:1];
    logic                 lk_valid, rs_valid, rs_hit;
    logic [44:0]          lk_key;
    logic [213:0]         rs_value;
    logic                 desc_valid, desc_drop, desc_len_valid;
    logic [7:0]           desc_ins_len, desc_seg2_off;
    logic [INS_MAX*8-1:0] desc_ins_data;
    logic [LEN_W-1:0]     desc_out_len;
    logic                 stat_valid, stat_emit;
    logic [3:0]           stat_outcome;
    logic [15:0]          stat_len;
    logic                 tx_valid;
    logic [15:0]          tx_len;
    logic                 meta_unused;

    encap_classify #(
        .DATA_W(DATA_W),
        .LOOKUP_LATENCY(LOOKUP_LATENCY),
        .INS_MAX(INS_MAX),
        .LEN_W(LEN_W)
    ) classify (
        .clk, .rst,
        .s_tdata(f_tdata), .s_tkeep(f_tkeep), .s_hs(f_hs), .s_tlast(f_tlast),
        .s_len(f_len), .s_bad(f_bad), .s_oversize(f_oversize),
        .ctrl_drop_miss(ctrl[0]),
        .lk_valid, .lk_key, .rs_valid, .rs_hit, .rs_value,
        .desc_valid, .desc_drop, .desc_ins_len, .desc_ins_data, .desc_seg2_off,
        .desc_len_valid, .desc_out_len,
        .stat_valid, .stat_outcome, .stat_emit, .stat_len
    );

    hash_table #(
        .KEY_W(45),
        .VALUE_W(214),
        .SLOTS(TUNNEL_SLOTS),
        .ADDR_W(12),
        .LOOKUP_LATENCY(LOOKUP_LATENCY)
    ) tunnel_table (
        .clk, .rst,
        .lk_valid, .lk_key, .rs_valid, .rs_hit, .rs_value,
        .s_axil_awaddr(s_axil_tbl_awaddr), .s_axil_awprot(s_axil_tbl_awprot),
        .s_axil_awvalid(s_axil_tbl_awvalid), .s_axil_awready(s_axil_tbl_awready),
        .s_axil_wdata(s_axil_tbl_wdata), .s_axil_wstrb(s_axil_tbl_wstrb),
        .s_axil_wvalid(s_axil_tbl_wvalid), .s_axil_wready(s_axil_tbl_wready),
        .s_axil_bresp(s_axil_tbl_bresp), .s_axil_bvalid(s_axil_tbl_bvalid),
        .s_axil_bready(s_axil_tbl_bready),
        .s_axil_araddr(s_axil_tbl_araddr), .s_axil_arprot(s_axil_tbl_arprot),
        .s_axil_arvalid(s_axil_tbl_arvalid), .s_axil_arready(s_axil_tbl_arready),
        .s_axil_rdata(s_axil_tbl_rdata), .s_axil_rresp(s_axil_tbl_rresp),
        .s_axil_rvalid(s_axil_tbl_rvalid), .s_axil_rready(s_axil_tbl_rready)
    );

    axis_splice #(
        .DATA_W(DATA_W),
        .BUF_BEATS(BUF_BEATS),
        .FRAMES(BUF_BEATS),
        .INS_MAX(INS_MAX),
        .PATCHES(1),
        .LEN_W(LEN_W),
        .META_W(1),
        .OUT_PIPE(SPLICE_PIPE >= 1),
        .DESC_PIPE(SPLICE_PIPE >= 2),
        .END_PIPE(SPLICE_PIPE >= 3)
    ) splice (
        .clk, .rst,
        .s_axis_tdata(f_tdata), .s_axis_tkeep(f_tkeep), .s_axis_tvalid(f_tvalid),
        .s_axis_tready(f_tready), .s_axis_tlast(f_tlast), .s_axis_tuser(f_tuser),
        .desc_valid, .desc_drop, .desc_seg1_off(8'd0), .desc_seg1_len(8'd0),
        .desc_ins_len, .desc_ins_data, .desc_seg2_off, .desc_len_valid, .desc_out_len,
        .desc_patch_en(1'b0), .desc_patch_pos(8'd0), .desc_patch_val(8'd0),
        .desc_meta(1'b0), .eof_valid(1'b0), .eof_bad(1'b0),
        .m_axis_tdata, .m_axis_tkeep, .m_axis_tvalid, .m_axis_tready,
        .m_axis_tlast, .m_axis_tuser, .m_axis_tmeta(meta_unused)
    );

    axis_frame_meter #(.KEEP_W(KEEP_W)) tx_meter (
        .clk, .rst,
        .tkeep(m_axis_tkeep), .tvalid(m_axis_tvalid), .tready(m_axis_tready),
        .tlast(m_axis_tlast), .tuser(m_axis_tuser),
        .frame_valid(tx_valid), .frame_len(tx_len)
    );

    block_csr #(
        .ID_VALUE(32'h5753_5645),                       // "WSVE"
        .PARAMS_VALUE({16'($clog2(TUNNEL_SLOTS)), 16'(DATA_W)}),
        .NUM_OUTCOMES(NUM_OUTCOMES),
        .NUM_REGS(1),
        .REG_RESET(32'd0),
        .ADDR_W(12)
    ) csr (
        .clk, .rst,
        .s_axil_awaddr, .s_axil_awprot, .s_axil_awvalid, .s_axil_awready,
        .s_axil_wdata, .s_axil_wstrb, .s_axil_wvalid, .s_axil_wready,
        .s_axil_bresp, .s_axil_bvalid, .s_axil_bready,
        .s_axil_araddr, .s_axil_arprot, .s_axil_arvalid, .s_axil_arready,
        .s_axil_rdata, .s_axil_rresp, .s_axil_rvalid, .s_axil_rready,
        .stat_valid, .stat_outcome, .stat_len,
        .tx_valid, .tx_len,
        .regs(ctrl)
    );

    assign m_stat_valid   = stat_valid;
    assign m_stat_outcome = stat_outcome;
    assign m_stat_emit    = stat_emit;
    assign m_stat_len     = stat_len;

endmodule

`default_nettype wire
