// SPDX-License-Identifier: Apache-2.0
//
// gre_decap — GRE decapsulation at line rate (docs/gre_decap.md): the decap shell with the GRE
// classifier and the outer IPv4 allow-list on its table window.
//
//            +--------------------------- decap_shell ----------------------------+
//   s_axis ─►│ keep check ─► ip_front ─► tap_*          s_desc_* ─► queue ─► edit │─► m_axis
//   s_axil ◄►│ block_csr (0x0000)              m_axil (0x1000)                    │─► m_stat
//            +-----------------│---------------------│----------▲----------------+
//                         tap_*│              m_axil │          │ descriptor
//                              ▼                     ▼          │
//                        gre_classify ◄─ hit ── allow_list      │
//                              └────────────────────────────────┘
//
// The header front end captures each frame's first 128 bytes by beat position and parses
// Ethernet and the outer IP header in registered stages; the classifier decides in four more
// and queues one descriptor per frame; the frame's beats wait in the edit engine's delay FIFO
// and leave cut-through, shifted in registered stages. The late checks (MAC error, a frame
// shorter than its IP length, the GRE checksum) come with the frame's end from the engine.
//
// Latency (first input beat to first output beat, idle pipeline): the beat that completes the
// window (byte 127, or the frame's last beat) + 9 cycles to the descriptor + the engine's
// latency (axis_edit). Seed frame at 256 bits: docs/gre_decap.md.

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

    localparam int L4_BYTES   = 32;
    localparam int HEAD_BYTES = 40;
    localparam int LEN_W      = 17;

    if (DATA_W != 64 && DATA_W != 128 && DATA_W != 256 && DATA_W != 512) begin : g_check_w
        $error("gre_decap: DATA_W must be 64, 128, 256 or 512");
    end
    if (ALLOW_ENTRIES < 1 || ALLOW_ENTRIES > 256) begin : g_check_allow
        $error("gre_decap: ALLOW_ENTRIES must be 1..256");
    end

    logic [11:0]             t_awaddr, t_araddr;
    logic [2:0]              t_awprot, t_arprot;
    logic [31:0]             t_wdata, t_rdata;
    logic [3:0]              t_wstrb;
    logic [1:0]              t_bresp, t_rresp;
    logic                    t_awvalid, t_awready, t_wvalid, t_wready, t_bvalid, t_bready;
    logic                    t_arvalid, t_arready, t_rvalid, t_rready;
    logic [31:0]             control;

    logic                    tap_valid, tap_whole, tap_rx_err, tap_l2_short, tap_ipv4, tap_ipv6;
    logic                    tap_short_proto, tap_short_fixed, tap_ip_ver_bad, tap_short_opts;
    logic                    tap_ip_frag, tap_ip_frag_off, tap_csum_ok;
    logic                    unused_tmeta;   // no sideband (the shell's OUT_META_EN = 0)
    logic [7:0]              tap_have, tap_ip_proto, tap_g;
    logic [22*8-1:0]         tap_l2_bytes;
    logic [4:0]              tap_l2_len;
    logic [15:0]             tap_et;
    logic signed [16:0]      tap_ip_pl;
    logic [1:0]              tap_ip_ecn;
    logic [31:0]             tap_ip_src, tap_ip_dst, early_ip_src, early_ip_dst;
    logic signed [8:0]       tap_have_l4;
    logic [L4_BYTES*8-1:0]   tap_l4;
    logic [L4_BYTES-1:0]     tap_l4_ok;
    logic [DATA_W-1:0]       b_tdata;          // the beats the front end sees (not read)
    logic [DATA_W/8-1:0]     b_tkeep;
    logic                    b_hs, b_tlast, b_tuser;

    logic                    c_valid, c_drop, c_sum_en;
    logic signed [LEN_W:0]   c_shift;
    logic [HEAD_BYTES*8-1:0] c_head;
    logic [HEAD_BYTES-1:0]   c_head_en;
    logic [LEN_W-1:0]        c_out_len, c_min_len, c_sum_start, c_sum_end;
    outcome_e                c_outcome;

    // ID "WSG1", PARAMS {ALLOW_ENTRIES, DATA_W}, CONTROL bits 3:0 writable (docs/gre_decap.md)
    decap_shell #(
        .DATA_W(DATA_W),
        .HDR_BYTES(128),
        .L4_BYTES(L4_BYTES),
        .HEAD_BYTES(HEAD_BYTES),
        .LEN_W(LEN_W),
        .NUM_OUTCOMES(int'(OUT_DROP_POLICY) + 1),
        .OUT_RX_ERROR(int'(OUT_DROP_RX_ERROR)),
        .OUT_TRUNCATED(int'(OUT_DROP_TRUNCATED)),
        .OUT_SUM_BAD(int'(OUT_DROP_GRE_CHECKSUM)),
        .ID_VALUE(32'h5753_4731),
        .PARAMS_VALUE({16'(ALLOW_ENTRIES), 16'(DATA_W)}),
        .REG_WMASK(32'h0000_000F)
    ) shell (
        .clk(clk), .rst(rst),
        .s_axis_tdata(s_axis_tdata), .s_axis_tkeep(s_axis_tkeep),
        .s_axis_tvalid(s_axis_tvalid), .s_axis_tready(s_axis_tready),
        .s_axis_tlast(s_axis_tlast), .s_axis_tuser(s_axis_tuser),
        .m_axis_tdata(m_axis_tdata), .m_axis_tkeep(m_axis_tkeep),
        .m_axis_tvalid(m_axis_tvalid), .m_axis_tready(m_axis_tready),
        .m_axis_tlast(m_axis_tlast), .m_axis_tuser(m_axis_tuser),
        .m_axis_tmeta(unused_tmeta),
        .s_axil_awaddr(s_axil_awaddr), .s_axil_awprot(s_axil_awprot),
        .s_axil_awvalid(s_axil_awvalid), .s_axil_awready(s_axil_awready),
        .s_axil_wdata(s_axil_wdata), .s_axil_wstrb(s_axil_wstrb), .s_axil_wvalid(s_axil_wvalid),
        .s_axil_wready(s_axil_wready), .s_axil_bresp(s_axil_bresp), .s_axil_bvalid(s_axil_bvalid),
        .s_axil_bready(s_axil_bready), .s_axil_araddr(s_axil_araddr),
        .s_axil_arprot(s_axil_arprot), .s_axil_arvalid(s_axil_arvalid),
        .s_axil_arready(s_axil_arready), .s_axil_rdata(s_axil_rdata), .s_axil_rresp(s_axil_rresp),
        .s_axil_rvalid(s_axil_rvalid), .s_axil_rready(s_axil_rready),
        .m_axil_awaddr(t_awaddr), .m_axil_awprot(t_awprot), .m_axil_awvalid(t_awvalid),
        .m_axil_awready(t_awready), .m_axil_wdata(t_wdata), .m_axil_wstrb(t_wstrb),
        .m_axil_wvalid(t_wvalid), .m_axil_wready(t_wready), .m_axil_bresp(t_bresp),
        .m_axil_bvalid(t_bvalid), .m_axil_bready(t_bready), .m_axil_araddr(t_araddr),
        .m_axil_arprot(t_arprot), .m_axil_arvalid(t_arvalid), .m_axil_arready(t_arready),
        .m_axil_rdata(t_rdata), .m_axil_rresp(t_rresp), .m_axil_rvalid(t_rvalid),
        .m_axil_rready(t_rready),
        .control(control),
        .tap_valid(tap_valid), .tap_have(tap_have), .tap_whole(tap_whole),
        .tap_rx_err(tap_rx_err), .tap_l2_bytes(tap_l2_bytes), .tap_l2_len(tap_l2_len),
        .tap_l2_short(tap_l2_short), .tap_et(tap_et), .tap_ipv4(tap_ipv4), .tap_ipv6(tap_ipv6),
        .tap_short_proto(tap_short_proto), .tap_ip_proto(tap_ip_proto),
        .tap_short_fixed(tap_short_fixed), .tap_ip_ver_bad(tap_ip_ver_bad),
        .tap_short_opts(tap_short_opts), .tap_ip_frag(tap_ip_frag), .tap_ip_frag_off(tap_ip_frag_off),
        .tap_ip_pl(tap_ip_pl),
        .tap_ip_ecn(tap_ip_ecn), .tap_ip_src(tap_ip_src), .tap_ip_dst(tap_ip_dst),
        .early_ip_src(early_ip_src), .early_ip_dst(early_ip_dst), .tap_g(tap_g),
        .tap_have_l4(tap_have_l4), .tap_l4(tap_l4), .tap_l4_ok(tap_l4_ok),
        .tap_csum_ok(tap_csum_ok),
        .beat_tdata(b_tdata), .beat_tkeep(b_tkeep), .beat_hs(b_hs), .beat_tlast(b_tlast),
        .beat_tuser(b_tuser),
        .s_desc_valid(c_valid), .s_desc_drop(c_drop), .s_desc_shift(c_shift),
        .s_desc_head(c_head), .s_desc_head_en(c_head_en), .s_desc_out_len(c_out_len),
        .s_desc_min_len(c_min_len), .s_desc_sum_en(c_sum_en), .s_desc_sum_start(c_sum_start),
        .s_desc_sum_end(c_sum_end), .s_desc_sum_seed(16'h0000), .s_desc_outcome(c_outcome),
        .s_desc_out_meta(1'b0),
        .m_stat_valid(m_stat_valid), .m_stat_outcome(m_stat_outcome), .m_stat_emit(m_stat_emit),
        .m_stat_len(m_stat_len)
    );

    logic unused_tap;   // GRE reads the EtherType as tap_ipv4/6, lengths relative to G and
                        // the outer pair from the early tap (the allow-list takes four cycles);
                        // its header lies in the tap, not past it (the beats)
    assign unused_tap = ^{tap_et, tap_have, tap_ip_src, tap_ip_dst, control[31:4],
                          tap_ip_frag_off, unused_tmeta, b_tdata, b_tkeep, b_hs, b_tlast,
                          b_tuser};

    logic lookup_hit;

    gre_classify #(
        .HEAD_BYTES(HEAD_BYTES),
        .LEN_W(LEN_W),
        .L4_BYTES(L4_BYTES)
    ) classify (
        .clk(clk), .rst(rst),
        .tap_valid(tap_valid), .tap_whole(tap_whole),
        .tap_rx_err(tap_rx_err), .tap_l2_bytes(tap_l2_bytes), .tap_l2_len(tap_l2_len),
        .tap_l2_short(tap_l2_short), .tap_ipv4(tap_ipv4), .tap_ipv6(tap_ipv6),
        .tap_short_proto(tap_short_proto), .tap_ip_proto(tap_ip_proto),
        .tap_short_fixed(tap_short_fixed), .tap_ip_ver_bad(tap_ip_ver_bad),
        .tap_short_opts(tap_short_opts), .tap_ip_frag(tap_ip_frag), .tap_ip_pl(tap_ip_pl),
        .tap_ip_ecn(tap_ip_ecn), .tap_g(tap_g), .tap_have_l4(tap_have_l4), .tap_l4(tap_l4),
        .tap_l4_ok(tap_l4_ok), .tap_csum_ok(tap_csum_ok),
        .ctrl_allow_enable(control[0]), .ctrl_drop_pass(control[1]),
        .ctrl_drop_punt(control[2]), .ctrl_forward_malformed(control[3]),
        .lookup_hit(lookup_hit),
        .desc_valid(c_valid), .desc_drop(c_drop), .desc_shift(c_shift), .desc_head(c_head),
        .desc_head_en(c_head_en), .desc_out_len(c_out_len), .desc_min_len(c_min_len),
        .desc_sum_en(c_sum_en), .desc_sum_start(c_sum_start), .desc_sum_end(c_sum_end),
        .desc_outcome(c_outcome)
    );

    // The outer IPv4 allow-list. The pair comes from the front end in the cycle its window is
    // complete, three cycles before the tap, and is registered here, beside the table (the
    // capture's registers sit beside the front end's logic); the block-RAM CAM's words land
    // in registers beside the RAMs and again before the match (LOOKUP_LATENCY 4): the answer
    // comes two cycles after the tap, which gre_classify registers in G2.
    logic [31:0] lk_src_q, lk_dst_q;
    always_ff @(posedge clk) begin
        lk_src_q <= early_ip_src;
        lk_dst_q <= early_ip_dst;
    end

    allow_list #(
        .ENTRIES(ALLOW_ENTRIES),
        .ADDR_W(12),
        .LOOKUP_LATENCY(4)
    ) allow (
        .clk(clk), .rst(rst),
        .s_axil_awaddr(t_awaddr), .s_axil_awprot(t_awprot), .s_axil_awvalid(t_awvalid),
        .s_axil_awready(t_awready), .s_axil_wdata(t_wdata), .s_axil_wstrb(t_wstrb),
        .s_axil_wvalid(t_wvalid), .s_axil_wready(t_wready), .s_axil_bresp(t_bresp),
        .s_axil_bvalid(t_bvalid), .s_axil_bready(t_bready), .s_axil_araddr(t_araddr),
        .s_axil_arprot(t_arprot), .s_axil_arvalid(t_arvalid), .s_axil_arready(t_arready),
        .s_axil_rdata(t_rdata), .s_axil_rresp(t_rresp), .s_axil_rvalid(t_rvalid),
        .s_axil_rready(t_rready),
        .lookup_src(lk_src_q), .lookup_dst(lk_dst_q), .lookup_hit(lookup_hit)
    );

endmodule

`default_nettype wire
