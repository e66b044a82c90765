// SPDX-License-Identifier: Apache-2.0
//
// geneve_decap — Geneve decapsulation, network to host (docs/geneve.md, RFC 8926): the decap
// shell with the Geneve classifier and the VNI table (vxlan_decap's table and entry format) on
// its table window. The third classifier of the shell; the shell is unchanged.
//
//            +--------------------------- decap_shell ----------------------------+
//   s_axis ─►│ keep check ─► ip_front ─► tap_*          s_desc_* ─► queue ─► edit │─► m_axis
//   s_axil ◄►│ block_csr (0x0000, CONTROL, PORT)     m_axil (0x1000)  tvni FIFO ─►│─► m_axis_tvni
//            +-----│-----------│---------------------│----------▲----------------+─► m_stat
//                  │ beat_*    │ tap_*  VNI (T)      ▼          │ descriptor
//                  └──► geneve_decap_classify ◄── hash_table ───┘
//                       (inner window at K)   hit, value (T+5)
//
// The header front end captures each frame's first 128 bytes by beat position and parses
// Ethernet and the outer IP header in registered stages (its L4 window: 16 bytes from U, the
// UDP and fixed Geneve headers); the classifier reads the inner header at K (past the options,
// up to byte 375) from its own capture of the beats, keyed on K, and decides in registered
// stages; the frame's beats wait in the edit engine's delay FIFO and leave cut-through. The
// classifier watches the beats the shell's front end sees (the shell's beat_* outputs), with
// tkeep and tuser taken from the block's input and the guard's rule applied after a register
// (at 512 bits, where the shell registers its keep check, the beats lag the input: tkeep and
// tuser then come from the guard's output, beside the beat, and have no hole).
//
// Latency (first input handshake to first output handshake, idle pipeline), exactly:
//   max(t128 + 17, tK + 11) + LATENCY + slot
// t128: the input beat that completes the 128-byte window (holds byte 127, or the frame's
// last beat); tK: the beat holding byte K + 25 (or the frame's last beat), used only for a
// frame that reaches step 9 (steps 1-8 passed), else t128 alone; LATENCY the engine's (axis_edit:
// 10 / 11 / 11 / 12 at 64 / 128 / 256 / 512 bits, one more at 512 for the shell's keep
// check); slot = floor(D / (DATA_W/8)) with D the
// bytes skipped (K, K - 4 with a pushed tag; K - L2 (- 4) for DECAP_L3; 0 for PASS / PUNT);
// a one-beat output leaves from the slot of the last input beat. docs/geneve.md.

`default_nettype none

module geneve_decap
    import geneve_decap_pkg::*;
#(
    // Width of the data bus in bits: 64, 128, 256 or 512.
    parameter int DATA_W = 256,
    // Slots of the VNI table (2 banks x SLOTS/8 buckets x 4 ways); 8192 holds 4K VNIs at 50 %.
    parameter int VNI_SLOTS = 8192
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
    output      logic [23:0]         m_axis_tvni,
    output      logic                m_axis_tvni_valid,

    // 0x0000 block_csr (ID, PARAMS, CONTROL, COUNTER_CLEAR, PORT, counters); 0x1000 the VNI
    // table (hash_table registers); above: SLVERR.
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

    // One event per input frame, in input order, after its last beat (see gre_decap).
    output      logic                m_stat_valid,
    output      logic [3:0]          m_stat_outcome,
    output      logic                m_stat_emit,
    output      logic [15:0]         m_stat_len
);

    localparam int L4_BYTES   = 16;
    localparam int HEAD_BYTES = 40;
    localparam int LEN_W      = 17;

    if (DATA_W != 64 && DATA_W != 128 && DATA_W != 256 && DATA_W != 512) begin : g_check_w
        $error("geneve_decap: DATA_W must be 64, 128, 256 or 512");
    end
    if (VNI_SLOTS < 16 || (VNI_SLOTS & (VNI_SLOTS - 1)) != 0) begin : g_check_slots
        $error("geneve_decap: VNI_SLOTS must be a power of two, at least 16");
    end

    // CONTROL (reg 0): [0] VNI_ENABLE, [1] CRITICAL_PUNT, [2] DROP_PUNT, [3] DROP_PASS.
    // PORT (reg 1, 0x010).
    logic [2*32-1:0]         regs;
    logic [11:0]             t_awaddr, t_araddr;
    logic [2:0]              t_awprot, t_arprot;
    logic [31:0]             t_wdata, t_rdata;
    logic [3:0]              t_wstrb;
    logic [1:0]              t_bresp, t_rresp;
    logic                    t_awvalid, t_awready, t_wvalid, t_wready, t_bvalid, t_bready;
    logic                    t_arvalid, t_arready, t_rvalid, t_rready;

    logic                    tap_valid, tap_whole, tap_rx_err, tap_l2_short, tap_ipv4, tap_ipv6;
    logic                    tap_short_proto, tap_short_fixed, tap_ip_ver_bad, tap_short_opts;
    logic                    tap_ip_frag, tap_ip_frag_off, tap_csum_ok;
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
    logic [DATA_W-1:0]       b_tdata;          // the beats the front end sees
    logic [DATA_W/8-1:0]     b_tkeep;
    logic                    b_hs, b_tlast, b_tuser;
    // The tkeep and tuser the classifier watches: the input's while the shell's beats are the
    // input's own (its keep check unregistered, below 512 bits: decap_shell KEEP_REG).
    localparam bit BEAT_REG = DATA_W >= 512;
    logic [DATA_W/8-1:0]     w_tkeep;
    logic                    w_tuser;
    assign w_tkeep = BEAT_REG ? b_tkeep : s_axis_tkeep;
    assign w_tuser = BEAT_REG ? b_tuser : s_axis_tuser[0];

    logic                    c_valid, c_drop, c_sum_en;
    logic signed [LEN_W:0]   c_shift;
    logic [HEAD_BYTES*8-1:0] c_head;
    logic [HEAD_BYTES-1:0]   c_head_en;
    logic [LEN_W-1:0]        c_out_len, c_min_len, c_sum_start, c_sum_end;
    logic [15:0]             c_sum_seed;
    outcome_e                c_outcome;
    logic [24:0]             c_tvni;

    // ID "WSGN", PARAMS {log2(VNI_SLOTS), DATA_W}; CONTROL 4 bits, PORT 16 bits.
    decap_shell #(
        .DATA_W(DATA_W),
        .HDR_BYTES(128),
        .L4_BYTES(L4_BYTES),
        .HEAD_BYTES(HEAD_BYTES),
        .LEN_W(LEN_W),
        .NUM_OUTCOMES(GENEVE_DECAP_NUM_OUTCOMES),
        .OUT_RX_ERROR(int'(OUT_DROP_RX_ERROR)),
        .OUT_TRUNCATED(int'(OUT_DROP_TRUNCATED)),
        .OUT_SUM_BAD(int'(OUT_DROP_UDP_CHECKSUM)),
        .ID_VALUE(GENEVE_DECAP_ID_VALUE),
        .PARAMS_VALUE({16'($clog2(VNI_SLOTS)), 16'(DATA_W)}),
        .NUM_REGS(2),
        .REG_RESET({GENEVE_DECAP_REG_PORT_RESET, 32'd0}),
        .REG_WMASK({32'h0000_FFFF, 32'h0000_000F}),
        .CSR_DECODE(1'b1),
        .OUT_META_EN(1'b1),
        .OUT_META_W(25)
    ) shell (
        .clk(clk), .rst(rst),
        .s_axis_tdata(s_axis_tdata), .s_axis_tkeep(s_axis_tkeep),
        .s_axis_tvalid(s_axis_tvalid), .s_axis_tready(s_axis_tready),
        .s_axis_tlast(s_axis_tlast), .s_axis_tuser(s_axis_tuser),
        .m_axis_tdata(m_axis_tdata), .m_axis_tkeep(m_axis_tkeep),
        .m_axis_tvalid(m_axis_tvalid), .m_axis_tready(m_axis_tready),
        .m_axis_tlast(m_axis_tlast), .m_axis_tuser(m_axis_tuser),
        .m_axis_tmeta({m_axis_tvni_valid, m_axis_tvni}),
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
        .control(regs),
        .tap_valid(tap_valid), .tap_have(tap_have), .tap_whole(tap_whole),
        .tap_rx_err(tap_rx_err), .tap_l2_bytes(tap_l2_bytes), .tap_l2_len(tap_l2_len),
        .tap_l2_short(tap_l2_short), .tap_et(tap_et), .tap_ipv4(tap_ipv4), .tap_ipv6(tap_ipv6),
        .tap_short_proto(tap_short_proto), .tap_ip_proto(tap_ip_proto),
        .tap_short_fixed(tap_short_fixed), .tap_ip_ver_bad(tap_ip_ver_bad),
        .tap_short_opts(tap_short_opts), .tap_ip_frag(tap_ip_frag),
        .tap_ip_frag_off(tap_ip_frag_off), .tap_ip_pl(tap_ip_pl),
        .tap_ip_ecn(tap_ip_ecn), .tap_ip_src(tap_ip_src), .tap_ip_dst(tap_ip_dst),
        .early_ip_src(early_ip_src), .early_ip_dst(early_ip_dst), .tap_g(tap_g),
        .tap_have_l4(tap_have_l4), .tap_l4(tap_l4), .tap_l4_ok(tap_l4_ok),
        .tap_csum_ok(tap_csum_ok),
        .beat_tdata(b_tdata), .beat_tkeep(b_tkeep), .beat_hs(b_hs), .beat_tlast(b_tlast),
        .beat_tuser(b_tuser),
        .s_desc_valid(c_valid), .s_desc_drop(c_drop), .s_desc_shift(c_shift),
        .s_desc_head(c_head), .s_desc_head_en(c_head_en), .s_desc_out_len(c_out_len),
        .s_desc_min_len(c_min_len), .s_desc_sum_en(c_sum_en), .s_desc_sum_start(c_sum_start),
        .s_desc_sum_end(c_sum_end), .s_desc_sum_seed(c_sum_seed), .s_desc_outcome(c_outcome),
        .s_desc_out_meta(c_tvni),
        .m_stat_valid(m_stat_valid), .m_stat_outcome(m_stat_outcome), .m_stat_emit(m_stat_emit),
        .m_stat_len(m_stat_len)
    );

    logic unused;   // the tap fields Geneve does not read (the window count, the EtherType,
                    // the protocol's and options' short checks: the fixed header's cover them,
                    // the early pair), CONTROL's upper bits
    assign unused = ^{tap_have, tap_l4_ok, tap_et, tap_short_proto, tap_short_opts, early_ip_src,
                      early_ip_dst, regs[63:48], regs[31:4]};

    logic        lk_valid, rs_valid, rs_hit;
    logic [23:0] lk_key;
    logic [12:0] rs_value;

    geneve_decap_classify #(
        .DATA_W(DATA_W),
        .HEAD_BYTES(HEAD_BYTES),
        .LEN_W(LEN_W),
        .L4_BYTES(L4_BYTES)
    ) classify (
        .clk(clk), .rst(rst),
        .s_tdata(b_tdata), .s_tkeep(w_tkeep), .s_hs(b_hs), .s_tlast(b_tlast),
        .s_tuser(w_tuser),
        .tap_valid(tap_valid), .tap_whole(tap_whole), .tap_rx_err(tap_rx_err),
        .tap_l2_short(tap_l2_short), .tap_l2_bytes(tap_l2_bytes), .tap_l2_len(tap_l2_len),
        .tap_ipv4(tap_ipv4), .tap_ipv6(tap_ipv6),
        .tap_ip_proto(tap_ip_proto), .tap_short_fixed(tap_short_fixed),
        .tap_ip_ver_bad(tap_ip_ver_bad), .tap_ip_frag(tap_ip_frag),
        .tap_ip_frag_off(tap_ip_frag_off), .tap_ip_pl(tap_ip_pl), .tap_ip_ecn(tap_ip_ecn),
        .tap_ip_src(tap_ip_src), .tap_ip_dst(tap_ip_dst), .tap_g(tap_g),
        .tap_have_l4(tap_have_l4), .tap_l4(tap_l4), .tap_csum_ok(tap_csum_ok),
        .ctrl_vni_enable(regs[GENEVE_DECAP_CONTROL_VNI_ENABLE]),
        .ctrl_critical_punt(regs[GENEVE_DECAP_CONTROL_CRITICAL_PUNT]),
        .ctrl_drop_punt(regs[GENEVE_DECAP_CONTROL_DROP_PUNT]),
        .ctrl_drop_pass(regs[GENEVE_DECAP_CONTROL_DROP_PASS]),
        .ctrl_port(regs[47:32]),
        .lk_valid(lk_valid), .lk_key(lk_key), .rs_valid(rs_valid), .rs_hit(rs_hit),
        .rs_value(rs_value),
        .desc_valid(c_valid), .desc_drop(c_drop), .desc_shift(c_shift), .desc_head(c_head),
        .desc_head_en(c_head_en), .desc_out_len(c_out_len), .desc_min_len(c_min_len),
        .desc_sum_en(c_sum_en), .desc_sum_start(c_sum_start), .desc_sum_end(c_sum_end),
        .desc_sum_seed(c_sum_seed), .desc_outcome(c_outcome), .desc_tvni(c_tvni)
    );

    // The VNI table, looked up from the tap in cycle T; its words registered beside the block
    // RAMs, its comparisons and its way select each registered (LOOKUP_LATENCY 5): the
    // answer comes in cycle T+5.
    hash_table #(
        .KEY_W(24),
        .VALUE_W(13),
        .SLOTS(VNI_SLOTS),
        .ADDR_W(12),
        .LOOKUP_LATENCY(5)
    ) vni_table (
        .clk(clk), .rst(rst),
        .lk_valid(lk_valid), .lk_key(lk_key), .rs_valid(rs_valid), .rs_hit(rs_hit),
        .rs_value(rs_value),
        .s_axil_awaddr(t_awaddr), .s_axil_awprot(t_awprot),
        .s_axil_awvalid(t_awvalid), .s_axil_awready(t_awready),
        .s_axil_wdata(t_wdata), .s_axil_wstrb(t_wstrb),
        .s_axil_wvalid(t_wvalid), .s_axil_wready(t_wready),
        .s_axil_bresp(t_bresp), .s_axil_bvalid(t_bvalid), .s_axil_bready(t_bready),
        .s_axil_araddr(t_araddr), .s_axil_arprot(t_arprot),
        .s_axil_arvalid(t_arvalid), .s_axil_arready(t_arready),
        .s_axil_rdata(t_rdata), .s_axil_rresp(t_rresp),
        .s_axil_rvalid(t_rvalid), .s_axil_rready(t_rready)
    );

endmodule

`default_nettype wire
