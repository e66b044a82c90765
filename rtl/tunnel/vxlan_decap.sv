// SPDX-License-Identifier: Apache-2.0
//
// vxlan_decap — VXLAN termination, network to host (docs/vxlan.md, "Decap").
//
//                               +----------------+ descriptor +-------------+
//   s_axis ─► axis_keep_check ─►│ vxlan_classify │───────────►│ axis_splice │─► m_axis
//             (tkeep holes:  │   +----------------+            +-------------+  (+ m_axis_tvni)
//              bad frame)    │        │ VNI ▲ {push, VLAN ID}         ▲
//                            │   +----▼─────┴---+                     │
//                            │   │ hash_table   │◄── s_axil_vni       │
//                            │   +--------------+                     │
//                            └─────────────── beats ──────────────────┘
//   s_axil ─► block_csr: CONTROL, PORT, PORT2, per-outcome and TX counters
//
// Cut-through: the frame leaves as soon as its headers are read and the VNI table answered
// (CLASSIFY_PIPE cycles later with the classifier pipelined).

`default_nettype none

module vxlan_decap #(
    // Width of the data bus in bits: 64, 128, 256 or 512.
    parameter int DATA_W = 256,
    // Slots of the VNI table (2 banks x SLOTS/8 buckets x 4 ways); 8192 holds 4K VNIs at 50 %.
    parameter int VNI_SLOTS = 8192,
    // Pipeline cuts in the classifier's decision chain (vxlan_classify PIPE_CUTS, a 5-bit
    // mask). 0 keeps the latency of docs/vxlan.md; each bit set adds one cycle to every
    // frame's decision and output, and shortens the critical path (docs/performance.md).
    parameter int CLASSIFY_PIPE = 0,
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
    output      logic [23:0]         m_axis_tvni,
    output      logic                m_axis_tvni_valid,

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

    // VNI table (4 KiB window, hash_table registers).
    input  wire logic [11:0]         s_axil_vni_awaddr,
    input  wire logic [2:0]          s_axil_vni_awprot,
    input  wire logic                s_axil_vni_awvalid,
    output      logic                s_axil_vni_awready,
    input  wire logic [31:0]         s_axil_vni_wdata,
    input  wire logic [3:0]          s_axil_vni_wstrb,
    input  wire logic                s_axil_vni_wvalid,
    output      logic                s_axil_vni_wready,
    output      logic [1:0]          s_axil_vni_bresp,
    output      logic                s_axil_vni_bvalid,
    input  wire logic                s_axil_vni_bready,
    input  wire logic [11:0]         s_axil_vni_araddr,
    input  wire logic [2:0]          s_axil_vni_arprot,
    input  wire logic                s_axil_vni_arvalid,
    output      logic                s_axil_vni_arready,
    output      logic [31:0]         s_axil_vni_rdata,
    output      logic [1:0]          s_axil_vni_rresp,
    output      logic                s_axil_vni_rvalid,
    input  wire logic                s_axil_vni_rready,

    // One event per input frame, in order (see gre_decap).
    output      logic                m_stat_valid,
    output      logic [3:0]          m_stat_outcome,
    output      logic                m_stat_emit,
    output      logic [15:0]         m_stat_len
);

    localparam int KEEP_W = DATA_W / 8;
    localparam int LEN_W = 17;
    // Cycles the classifier's pipeline cuts add to each decision; a pipelined classifier's
    // frame-end verdict comes three cycles after that (vxlan_classify, "Pipelining").
    localparam int PIPE_LAT = $countones(5'(CLASSIFY_PIPE));
    localparam int VERDICT_LAG = (PIPE_LAT != 0) ? PIPE_LAT + 3 : 0;
    // Beats from a frame's first byte to its descriptor: 124 header bytes, the table, margin,
    // the pipeline's lag for the decision and for the verdict, and the engine's registers.
    localparam int BUF_BEATS = 1 << $clog2(128 / KEEP_W + LOOKUP_LATENCY + 4 + PIPE_LAT
                                           + VERDICT_LAG + SPLICE_PIPE);
    localparam int NUM_OUTCOMES = 13;

    if (DATA_W != 64 && DATA_W != 128 && DATA_W != 256 && DATA_W != 512) begin : g_param_check_1
        $error("vxlan_decap: DATA_W must be 64, 128, 256 or 512");
    end
    if (CLASSIFY_PIPE < 0 || CLASSIFY_PIPE > 31) begin : g_param_check_2
        $error("vxlan_decap: CLASSIFY_PIPE is a 5-bit mask (0..31)");
    end
    if (LOOKUP_LATENCY != 3 && LOOKUP_LATENCY != 4) begin : g_param_check_4
        $error("vxlan_decap: LOOKUP_LATENCY must be 3 or 4");
    end
    if (SPLICE_PIPE < 0 || SPLICE_PIPE > 3) begin : g_param_check_3
        $error("vxlan_decap: SPLICE_PIPE must be 0..3");
    end

    // tkeep guard (docs/robustness.md): a frame with a tkeep hole is a bad frame (tuser on its
    // last beat, counted as DROP_RX_ERROR); the classifier and the splice engine see no hole.
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

    wire s_hs = k_tvalid && k_tready;

    // CONTROL (reg 0): [0] VNI table enable, [1] strict reserved bits, [2] PORT2 enable,
    // [3] drop PASS. PORT (reg 1, 0x010), PORT2 (reg 2, 0x014).
    logic [3*32-1:0] regs;
    wire [3:0]       ctrl  = regs[3:0];
    wire [15:0]      port  = regs[47:32];
    wire [15:0]      port2 = regs[79:64];
    wire             regs_unused = ^{regs[95:80], regs[63:48], regs[31:4]};

    logic                lk_valid, rs_valid, rs_hit;
    logic [23:0]         lk_key;
    logic [12:0]         rs_value;
    logic                desc_valid, desc_drop, desc_len_valid, eof_valid, eof_bad;
    logic [7:0]          desc_seg1_off, desc_seg1_len, desc_ins_len, desc_seg2_off;
    logic [31:0]         desc_ins_data;
    logic [LEN_W-1:0]    desc_out_len;
    logic [2:0]          desc_patch_en;
    logic [23:0]         desc_patch_pos, desc_patch_val;
    logic [24:0]         desc_meta;
    logic                stat_valid, stat_emit;
    logic [3:0]          stat_outcome;
    logic [15:0]         stat_len;
    logic                tx_valid;
    logic [15:0]         tx_len;

    vxlan_classify #(
        .DATA_W(DATA_W),
        .LOOKUP_LATENCY(LOOKUP_LATENCY),
        .LEN_W(LEN_W),
        .PIPE_CUTS(CLASSIFY_PIPE)
    ) classify (
        .clk, .rst,
        .s_tdata(k_tdata), .s_tkeep(k_tkeep), .s_hs,
        .s_tlast(k_tlast), .s_tuser(k_tuser),
        .ctrl_vni_enable(ctrl[0]), .ctrl_strict(ctrl[1]), .ctrl_port2_enable(ctrl[2]),
        .ctrl_drop_pass(ctrl[3]), .ctrl_port(port), .ctrl_port2(port2),
        .lk_valid, .lk_key, .rs_valid, .rs_hit, .rs_value,
        .desc_valid, .desc_drop, .desc_seg1_off, .desc_seg1_len, .desc_ins_len, .desc_ins_data,
        .desc_seg2_off, .desc_len_valid, .desc_out_len, .desc_patch_en, .desc_patch_pos,
        .desc_patch_val, .desc_meta, .eof_valid, .eof_bad,
        .stat_valid, .stat_outcome, .stat_emit, .stat_len
    );

    hash_table #(
        .KEY_W(24),
        .VALUE_W(13),
        .SLOTS(VNI_SLOTS),
        .ADDR_W(12),
        .LOOKUP_LATENCY(LOOKUP_LATENCY)
    ) vni_table (
        .clk, .rst,
        .lk_valid, .lk_key, .rs_valid, .rs_hit, .rs_value,
        .s_axil_awaddr(s_axil_vni_awaddr), .s_axil_awprot(s_axil_vni_awprot),
        .s_axil_awvalid(s_axil_vni_awvalid), .s_axil_awready(s_axil_vni_awready),
        .s_axil_wdata(s_axil_vni_wdata), .s_axil_wstrb(s_axil_vni_wstrb),
        .s_axil_wvalid(s_axil_vni_wvalid), .s_axil_wready(s_axil_vni_wready),
        .s_axil_bresp(s_axil_vni_bresp), .s_axil_bvalid(s_axil_vni_bvalid),
        .s_axil_bready(s_axil_vni_bready),
        .s_axil_araddr(s_axil_vni_araddr), .s_axil_arprot(s_axil_vni_arprot),
        .s_axil_arvalid(s_axil_vni_arvalid), .s_axil_arready(s_axil_vni_arready),
        .s_axil_rdata(s_axil_vni_rdata), .s_axil_rresp(s_axil_vni_rresp),
        .s_axil_rvalid(s_axil_vni_rvalid), .s_axil_rready(s_axil_vni_rready)
    );

    axis_splice #(
        .DATA_W(DATA_W),
        .BUF_BEATS(BUF_BEATS),
        .FRAMES(BUF_BEATS),
        .INS_MAX(4),
        .PATCHES(3),
        .LEN_W(LEN_W),
        .META_W(25),
        .LATE_EOF(PIPE_LAT != 0),
        .OUT_PIPE(SPLICE_PIPE >= 1),
        .DESC_PIPE(SPLICE_PIPE >= 2),
        .END_PIPE(SPLICE_PIPE >= 3)
    ) splice (
        .clk, .rst,
        .s_axis_tdata(k_tdata), .s_axis_tkeep(k_tkeep), .s_axis_tvalid(k_tvalid),
        .s_axis_tready(k_tready), .s_axis_tlast(k_tlast), .s_axis_tuser(k_tuser),
        .desc_valid, .desc_drop, .desc_seg1_off, .desc_seg1_len, .desc_ins_len, .desc_ins_data,
        .desc_seg2_off, .desc_len_valid, .desc_out_len, .desc_patch_en, .desc_patch_pos,
        .desc_patch_val, .desc_meta, .eof_valid, .eof_bad,
        .m_axis_tdata, .m_axis_tkeep, .m_axis_tvalid, .m_axis_tready,
        .m_axis_tlast, .m_axis_tuser, .m_axis_tmeta({m_axis_tvni_valid, m_axis_tvni})
    );

    axis_frame_meter #(.KEEP_W(KEEP_W)) tx_meter (
        .clk, .rst,
        .tkeep(m_axis_tkeep), .tvalid(m_axis_tvalid), .tready(m_axis_tready),
        .tlast(m_axis_tlast), .tuser(m_axis_tuser),
        .frame_valid(tx_valid), .frame_len(tx_len)
    );

    block_csr #(
        .ID_VALUE(32'h5753_5644),                       // "WSVD"
        .PARAMS_VALUE({16'($clog2(VNI_SLOTS)), 16'(DATA_W)}),
        .NUM_OUTCOMES(NUM_OUTCOMES),
        .NUM_REGS(3),
        .REG_RESET({32'd8472, 32'd4789, 32'd0}),
        .REG_WMASK({32'hFFFF, 32'hFFFF, 32'hF}),       // PORT2, PORT: 16 bits; CONTROL: 4
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
        .regs
    );

    assign m_stat_valid   = stat_valid;
    assign m_stat_outcome = stat_outcome;
    assign m_stat_emit    = stat_emit;
    assign m_stat_len     = stat_len;

endmodule

`default_nettype wire
