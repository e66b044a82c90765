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
//   s_axil ◄───►│  CSRs     │ axil_decode: 0x0000 block_csr (CONTROL, counters),
//               +-----------+              0x1000 allow_list
//
// The classifier watches the beats entering the splice engine and, on the beat that completes
// the headers it must read, tells it what to keep, strip, cut and patch. Decapsulated and
// passed frames leave cut-through, one cycle after that beat.

`default_nettype none

module gre_decap
    import gre_pkg::*;
    import stream_pkg::*;
#(
    // Width of the data bus in bits: 64, 128, 256 or 512.
    parameter int DATA_W = 256,
    // Entries of the outer IPv4 endpoint allow-list.
    parameter int ALLOW_ENTRIES = 64,
    // Pipeline cuts in the classifier's decision chain (gre_classify PIPE_CUTS, a 5-bit mask).
    // 0 keeps the latency of docs/gre_decap.md; each bit set adds one cycle to every frame's
    // decision and output, and shortens the critical path (docs/performance.md).
    parameter int CLASSIFY_PIPE = 0,
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
    // Cycles the classifier's pipeline cuts add to each decision; a pipelined classifier's
    // frame-end verdict comes three cycles after that (gre_classify, "Pipelining").
    localparam int PIPE_LAT = $countones(5'(CLASSIFY_PIPE));
    localparam int VERDICT_LAG = (PIPE_LAT != 0) ? PIPE_LAT + 3 : 0;
    // Beats between the first byte of a frame and its decision, plus the bypass and one
    // frame's trailing beat, plus the pipeline's lag for the decision and for the verdict,
    // plus the engine's registers (SPLICE_PIPE): the buffer never fills with an unstalled output.
    localparam int DEPTH_NEED = HDR_BYTES / KEEP_W + 4 + PIPE_LAT + VERDICT_LAG + SPLICE_PIPE;
    localparam int BUF_BEATS = 1 << $clog2(DEPTH_NEED);
    localparam int LEN_W = 17;
    localparam int NUM_OUTCOMES = int'(OUT_DROP_POLICY) + 1;

    if (DATA_W != 64 && DATA_W != 128 && DATA_W != 256 && DATA_W != 512) begin : g_param_check_1
        $error("gre_decap: DATA_W must be 64, 128, 256 or 512");
    end
    if (ALLOW_ENTRIES < 1 || ALLOW_ENTRIES > 256) begin : g_param_check_2
        $error("gre_decap: ALLOW_ENTRIES must be 1..256");
    end
    if (CLASSIFY_PIPE < 0 || CLASSIFY_PIPE > 31) begin : g_param_check_3
        $error("gre_decap: CLASSIFY_PIPE is a 5-bit mask (0..31)");
    end
    if (SPLICE_PIPE < 0 || SPLICE_PIPE > 3) begin : g_param_check_4
        $error("gre_decap: SPLICE_PIPE must be 0..3");
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
        .s_axis_tlast, .s_axis_tuser(s_axis_tuser[0]),
        .m_axis_tdata(k_tdata), .m_axis_tkeep(k_tkeep), .m_axis_tvalid(k_tvalid),
        .m_axis_tready(k_tready), .m_axis_tlast(k_tlast), .m_axis_tuser(k_tuser)
    );

    wire s_hs = k_tvalid && k_tready;

    logic                ctrl_allow_enable, ctrl_drop_pass, ctrl_drop_punt, ctrl_forward_malformed;
    logic [31:0]         lookup_src, lookup_dst;
    logic                lookup_hit;
    logic                desc_valid, desc_drop, desc_len_valid, eof_valid, eof_bad;
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
        .LEN_W(LEN_W),
        .PIPE_CUTS(CLASSIFY_PIPE)
    ) classify (
        .clk, .rst,
        .s_tdata(k_tdata), .s_tkeep(k_tkeep), .s_hs,
        .s_tlast(k_tlast), .s_tuser(k_tuser),
        .ctrl_allow_enable, .ctrl_drop_pass, .ctrl_drop_punt, .ctrl_forward_malformed,
        .lookup_src, .lookup_dst, .lookup_hit,
        .desc_valid, .desc_drop, .desc_seg1_len, .desc_seg2_off, .desc_len_valid,
        .desc_out_len, .desc_patch_en, .desc_patch_pos, .desc_patch_val, .eof_valid, .eof_bad,
        .stat_valid, .stat_outcome, .stat_emit, .stat_len
    );

    axis_splice #(
        .DATA_W(DATA_W),
        .BUF_BEATS(BUF_BEATS),
        .FRAMES(BUF_BEATS),
        .INS_MAX(1),
        .PATCHES(6),
        .LEN_W(LEN_W),
        .META_W(1),
        .LATE_EOF(PIPE_LAT != 0),
        .OUT_PIPE(SPLICE_PIPE >= 1),
        .DESC_PIPE(SPLICE_PIPE >= 2),
        .END_PIPE(SPLICE_PIPE >= 3)
    ) splice (
        .clk, .rst,
        .s_axis_tdata(k_tdata), .s_axis_tkeep(k_tkeep), .s_axis_tvalid(k_tvalid),
        .s_axis_tready(k_tready), .s_axis_tlast(k_tlast), .s_axis_tuser(k_tuser),
        .desc_valid, .desc_drop,
        .desc_seg1_off(8'd0), .desc_seg1_len, .desc_ins_len(8'd0), .desc_ins_data(8'd0),
        .desc_seg2_off, .desc_len_valid, .desc_out_len,
        .desc_patch_en, .desc_patch_pos, .desc_patch_val, .desc_meta(1'b0), .eof_valid, .eof_bad,
        .m_axis_tdata, .m_axis_tkeep, .m_axis_tvalid, .m_axis_tready,
        .m_axis_tlast, .m_axis_tuser(m_axis_tuser[0]), .m_axis_tmeta(splice_meta_unused)
    );

    // Whole frames transmitted (not aborted), for the TX counters.
    logic [15:0] tx_acc;
    logic        tx_valid;
    logic [15:0] tx_len;
    logic [15:0] out_beat_len;
    always_comb out_beat_len = 16'(keep_bytes(64'(m_axis_tkeep)));   // (a log-depth tree)
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

    // Register map (docs/gre_decap.md): 0x0000 block_csr (ID, PARAMS, CONTROL, counters),
    // 0x1000 allow_list; anything above 0x1FFF answers SLVERR in the decoder.
    localparam int CSR_WINDOWS = 2;
    localparam int CSR_WIN_W   = 12;

    logic [CSR_WINDOWS*CSR_WIN_W-1:0] csr_awaddr, csr_araddr;
    logic [CSR_WINDOWS*3-1:0]         csr_awprot, csr_arprot;
    logic [CSR_WINDOWS*32-1:0]        csr_wdata, csr_rdata;
    logic [CSR_WINDOWS*4-1:0]         csr_wstrb;
    logic [CSR_WINDOWS*2-1:0]         csr_bresp, csr_rresp;
    logic [CSR_WINDOWS-1:0]           csr_awvalid, csr_awready, csr_wvalid, csr_wready;
    logic [CSR_WINDOWS-1:0]           csr_bvalid, csr_bready, csr_arvalid, csr_arready;
    logic [CSR_WINDOWS-1:0]           csr_rvalid, csr_rready;
    logic [31:0]                      control;

    axil_decode #(
        .WINDOWS(CSR_WINDOWS),
        .WIN_ADDR_W(CSR_WIN_W),
        .ADDR_W(16)
    ) csr_decode (
        .clk, .rst,
        .s_axil_awaddr, .s_axil_awprot, .s_axil_awvalid, .s_axil_awready,
        .s_axil_wdata, .s_axil_wstrb, .s_axil_wvalid, .s_axil_wready,
        .s_axil_bresp, .s_axil_bvalid, .s_axil_bready,
        .s_axil_araddr, .s_axil_arprot, .s_axil_arvalid, .s_axil_arready,
        .s_axil_rdata, .s_axil_rresp, .s_axil_rvalid, .s_axil_rready,
        .m_axil_awaddr(csr_awaddr), .m_axil_awprot(csr_awprot),
        .m_axil_awvalid(csr_awvalid), .m_axil_awready(csr_awready),
        .m_axil_wdata(csr_wdata), .m_axil_wstrb(csr_wstrb),
        .m_axil_wvalid(csr_wvalid), .m_axil_wready(csr_wready),
        .m_axil_bresp(csr_bresp), .m_axil_bvalid(csr_bvalid), .m_axil_bready(csr_bready),
        .m_axil_araddr(csr_araddr), .m_axil_arprot(csr_arprot),
        .m_axil_arvalid(csr_arvalid), .m_axil_arready(csr_arready),
        .m_axil_rdata(csr_rdata), .m_axil_rresp(csr_rresp),
        .m_axil_rvalid(csr_rvalid), .m_axil_rready(csr_rready)
    );

    // Window 0: ID "WSG1", PARAMS {ALLOW_ENTRIES, DATA_W}, CONTROL (bits 3:0 writable)
    block_csr #(
        .ID_VALUE(32'h5753_4731),
        .PARAMS_VALUE({16'(ALLOW_ENTRIES), 16'(DATA_W)}),
        .NUM_OUTCOMES(NUM_OUTCOMES),
        .NUM_REGS(1),
        .REG_RESET(32'h0),
        .REG_WMASK(32'h0000_000F),
        .ADDR_W(CSR_WIN_W)
    ) csr (
        .clk, .rst,
        .s_axil_awaddr(csr_awaddr[0*CSR_WIN_W +: CSR_WIN_W]), .s_axil_awprot(csr_awprot[0*3 +: 3]),
        .s_axil_awvalid(csr_awvalid[0]), .s_axil_awready(csr_awready[0]),
        .s_axil_wdata(csr_wdata[0*32 +: 32]), .s_axil_wstrb(csr_wstrb[0*4 +: 4]),
        .s_axil_wvalid(csr_wvalid[0]), .s_axil_wready(csr_wready[0]),
        .s_axil_bresp(csr_bresp[0*2 +: 2]), .s_axil_bvalid(csr_bvalid[0]),
        .s_axil_bready(csr_bready[0]),
        .s_axil_araddr(csr_araddr[0*CSR_WIN_W +: CSR_WIN_W]), .s_axil_arprot(csr_arprot[0*3 +: 3]),
        .s_axil_arvalid(csr_arvalid[0]), .s_axil_arready(csr_arready[0]),
        .s_axil_rdata(csr_rdata[0*32 +: 32]), .s_axil_rresp(csr_rresp[0*2 +: 2]),
        .s_axil_rvalid(csr_rvalid[0]), .s_axil_rready(csr_rready[0]),
        .stat_valid, .stat_outcome(stat_outcome), .stat_len,
        .tx_valid, .tx_len,
        .regs(control)
    );

    assign ctrl_allow_enable      = control[0];
    assign ctrl_drop_pass         = control[1];
    assign ctrl_drop_punt         = control[2];
    assign ctrl_forward_malformed = control[3];

    logic unused_control; // bits 31:4 are constant 0 (not writable)
    assign unused_control = ^control[31:4];

    // Window 1: the outer IPv4 allow-list
    allow_list #(
        .ENTRIES(ALLOW_ENTRIES),
        .ADDR_W(CSR_WIN_W)
    ) allow (
        .clk, .rst,
        .s_axil_awaddr(csr_awaddr[1*CSR_WIN_W +: CSR_WIN_W]), .s_axil_awprot(csr_awprot[1*3 +: 3]),
        .s_axil_awvalid(csr_awvalid[1]), .s_axil_awready(csr_awready[1]),
        .s_axil_wdata(csr_wdata[1*32 +: 32]), .s_axil_wstrb(csr_wstrb[1*4 +: 4]),
        .s_axil_wvalid(csr_wvalid[1]), .s_axil_wready(csr_wready[1]),
        .s_axil_bresp(csr_bresp[1*2 +: 2]), .s_axil_bvalid(csr_bvalid[1]),
        .s_axil_bready(csr_bready[1]),
        .s_axil_araddr(csr_araddr[1*CSR_WIN_W +: CSR_WIN_W]), .s_axil_arprot(csr_arprot[1*3 +: 3]),
        .s_axil_arvalid(csr_arvalid[1]), .s_axil_arready(csr_arready[1]),
        .s_axil_rdata(csr_rdata[1*32 +: 32]), .s_axil_rresp(csr_rresp[1*2 +: 2]),
        .s_axil_rvalid(csr_rvalid[1]), .s_axil_rready(csr_rready[1]),
        .lookup_src, .lookup_dst, .lookup_hit
    );

    assign m_stat_valid   = stat_valid;
    assign m_stat_outcome = stat_outcome;
    assign m_stat_emit    = stat_emit;
    assign m_stat_len     = stat_len;

endmodule

`default_nettype wire
