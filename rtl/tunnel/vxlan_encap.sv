// SPDX-License-Identifier: Apache-2.0
//
// vxlan_encap — VXLAN tunnel start, host to network (docs/vxlan.md, "Encap"): a store-and-
// forward FIFO, the encap classifier beside the frames leaving it, and the edit engine.
//
//   s_axis ─► keep check ─► slice ─► axis_frame_fifo ─(frame; m_len)─┬────────────► axis_edit ─► m_axis
//             (tkeep holes:             (store and forward:          │ beats (delay    ▲ descriptor:
//              bad frame)                the length first)           │ FIFO)           │ D = -50 / -46,
//                                                       +------------▼-----------+     │ the outer headers
//                                                       │  vxlan_encap_classify  │─────┘ in the head
//                                                       │ capture, E1..E7, F1..F3│
//                                                       +----┬-------------▲-----+
//                                         key (cycle H)      │             │ hit, entry (H+7)
//                                                       +----▼-------------┴-----+
//                                       s_axil_tbl ────►│ hash_table (tunnels)   │ 16K tunnels
//                                                       +------------------------+ by default
//   s_axil ─► block_csr: CONTROL (bit 0: drop on miss), per-outcome and TX counters
//
// The frame is stored whole first because its length goes into the outer IPv4 and UDP
// headers. Its beats then pass into the edit engine's delay FIFO while the classifier
// captures its first bytes by beat position, looks its tunnel up and builds the outer
// headers in registered stages; the engine inserts the 50 bytes in front (D = -50; -46 when
// the inner 802.1Q tag is removed, the inner MAC addresses laid over its place from the head).
//
// Latency (idle pipeline, m_axis ready), first input beat to first output beat, in cycles:
//   (B - 1) + 5 + trig + 12 + LATENCY
// B the frame's input beats (it is stored whole), 5 the keep check's and the input slice's
// registers and the frame FIFO (commit, RAM read, output register), trig the index of the beat that completes the
// classifier's window (88 / 96 / 96 / 128 bytes at 64 / 128 / 256 / 512 bits) or ends the
// frame, 12 from that beat to the descriptor at the engine (capture 2, E1..E7, F1..F3),
// LATENCY the engine's (axis_edit: 10 / 11 / 11 / 12; its first beat waits for the
// descriptor). A 754-byte host frame at 256
// bits: 53 cycles (wirespeed.model.vxlan.encap_latency_cycles; tb/vtep test_encap_latency).
// Throughput: the engine takes one slot per cycle, one per output beat (axis_edit FOLD_LAST:
// a frame ends in the slot of its last output beat), so frames leave at one beat per cycle
// with no gap at 64 to 256 bits, where the room in front is two or more slots; at 512 bits
// (one slot of room) a frame folded that way is followed by a cycle without output.

`default_nettype none

module vxlan_encap
    import vxlan_encap_pkg::*;
#(
    // Width of the data bus in bits: 64, 128, 256 or 512.
    parameter int DATA_W = 256,
    // Slots of the tunnel table (2 banks x SLOTS/8 buckets x 4 ways): 32768 holds 16K tunnels
    // at 50 % load; up to 524288 for 256K tunnels.
    parameter int TUNNEL_SLOTS = 32768,
    // Bytes of the store-and-forward FIFO: two 9600-byte jumbo frames and change; at most
    // 32768 (the FIFO's lengths are 16 bits, and the longest stored frame + 50 must fit).
    parameter int FIFO_BYTES = 32768
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


    localparam int KEEP_W     = DATA_W / 8;
    localparam int LEN_W      = 17;
    // The outer headers (50 bytes) and the inner MAC addresses moved over a removed tag (12).
    localparam int HEAD_BYTES = 64;
    // Beats the engine's delay FIFO holds while the classifier decides: the window (11 beats
    // at 64 bits, 3 at 256), the 10 cycles to the descriptor and the engine's own stages.
    localparam int FIFO_BEATS = (DATA_W == 64) ? 64 : 32;
    // Frames let into the engine whose status event has not come back, at most: below its
    // plan FIFO's 15 free entries, so a descriptor (which has no ready) always finds room.
    localparam int OPEN_MAX   = 15;
    // The tunnel table's lookup latency (hash_table, see below) and the classifier's wait for it
    localparam int TUNNEL_LOOKUP_LATENCY = 7;
    localparam int OPEN_W     = 5;

    if (DATA_W != 64 && DATA_W != 128 && DATA_W != 256 && DATA_W != 512) begin : g_check_w
        $error("vxlan_encap: DATA_W must be 64, 128, 256 or 512");
    end
    if (FIFO_BYTES < 2 * 9600 || FIFO_BYTES > 32768 || (FIFO_BYTES & (FIFO_BYTES - 1)) != 0)
    begin : g_check_fifo
        $error("vxlan_encap: FIFO_BYTES must be a power of two holding two jumbo frames, <= 32768");
    end
    if (TUNNEL_SLOTS < 16 || (TUNNEL_SLOTS & (TUNNEL_SLOTS - 1)) != 0) begin : g_check_slots
        $error("vxlan_encap: TUNNEL_SLOTS must be a power of two, at least 16");
    end

    // tkeep guard (docs/robustness.md): a frame with a tkeep hole is a bad frame (tuser on its
    // last beat: DROP_RX_ERROR, never sent); the FIFO and the classifier see no hole. Its
    // registered build: the port's tkeep is a few LUTs from a register, not a suffix OR.
    logic [DATA_W-1:0] k_tdata;
    logic [KEEP_W-1:0] k_tkeep;
    logic              k_tvalid, k_tready, k_tlast, k_tuser;

    axis_keep_check #(
        .DATA_W(DATA_W),
        .REG_OUT(1'b1)
    ) keep_check (
        .clk(clk), .rst(rst),
        .s_axis_tdata(s_axis_tdata), .s_axis_tkeep(s_axis_tkeep),
        .s_axis_tvalid(s_axis_tvalid), .s_axis_tready(s_axis_tready),
        .s_axis_tlast(s_axis_tlast), .s_axis_tuser(s_axis_tuser),
        .m_axis_tdata(k_tdata), .m_axis_tkeep(k_tkeep), .m_axis_tvalid(k_tvalid),
        .m_axis_tready(k_tready), .m_axis_tlast(k_tlast), .m_axis_tuser(k_tuser)
    );

    logic [DATA_W-1:0] f_tdata;
    logic [KEEP_W-1:0] f_tkeep;
    logic              f_tvalid, f_tready, f_tlast, f_tuser, f_bad, f_oversize;
    logic [15:0]       f_len;

    // A register slice between the guard and the FIFO: the guard's last LUT of the tkeep
    // repair and the FIFO's byte count of the last beat (a log-depth tree) in separate cycles.
    logic [DATA_W-1:0] r_tdata;
    logic [KEEP_W-1:0] r_tkeep;
    logic              r_tvalid, r_tready, r_tlast, r_tuser;

    axis_skid #(
        .DATA_W(DATA_W),
        .USER_W(1)
    ) in_slice (
        .clk(clk), .rst(rst),
        .s_axis_tdata(k_tdata), .s_axis_tkeep(k_tkeep), .s_axis_tvalid(k_tvalid),
        .s_axis_tready(k_tready), .s_axis_tlast(k_tlast), .s_axis_tuser(k_tuser),
        .m_axis_tdata(r_tdata), .m_axis_tkeep(r_tkeep), .m_axis_tvalid(r_tvalid),
        .m_axis_tready(r_tready), .m_axis_tlast(r_tlast), .m_axis_tuser(r_tuser)
    );

    axis_frame_fifo #(
        .DATA_W(DATA_W),
        .DEPTH(FIFO_BYTES / KEEP_W),
        .FRAMES(32)
    ) fifo (
        .clk(clk), .rst(rst),
        .s_axis_tdata(r_tdata), .s_axis_tkeep(r_tkeep), .s_axis_tvalid(r_tvalid),
        .s_axis_tready(r_tready), .s_axis_tlast(r_tlast), .s_axis_tuser(r_tuser),
        .m_axis_tdata(f_tdata), .m_axis_tkeep(f_tkeep), .m_axis_tvalid(f_tvalid),
        .m_axis_tready(f_tready), .m_axis_tlast(f_tlast), .m_axis_tuser(f_tuser),
        .m_len(f_len), .m_bad(f_bad), .m_oversize(f_oversize)
    );

    // A frame enters the engine only while fewer than OPEN_MAX frames are in it (counted from
    // their first beat to their status event): the engine's plan FIFO always has room for the
    // classifier's descriptor. The permission is a register computed from the next counts.
    logic              e_tready, e_stat_valid;
    logic              in_frame_q, start_ok_q;
    logic [OPEN_W-1:0] open_q;
    wire               f_hs = f_tvalid && f_tready;
    assign f_tready = e_tready && start_ok_q;

    // The count's three possible next values (one more, one fewer, the same) and their room,
    // from open_q alone; then the permission for either outcome of this cycle's handshake
    // (the engine's event is a register), so that the handshake, the latest signal (the
    // engine's ready and the FIFO's valid), only selects between two precomputed values.
    logic [OPEN_W-1:0] open_up, open_dn;
    logic              room_up, room_dn, room_eq, ok_hs, ok_idle;
    assign open_up = open_q + OPEN_W'(1);
    assign open_dn = open_q - OPEN_W'(1);
    assign room_up = open_up < OPEN_W'(OPEN_MAX);
    assign room_dn = open_dn < OPEN_W'(OPEN_MAX);
    assign room_eq = open_q < OPEN_W'(OPEN_MAX);
    // a beat taken: inside a frame after it unless it is the last; a frame starts unless one
    // was open
    assign ok_hs   = !f_tlast || (in_frame_q ? (e_stat_valid ? room_dn : room_eq)
                                             : (e_stat_valid ? room_eq : room_up));
    assign ok_idle = in_frame_q || (e_stat_valid ? room_dn : room_eq);

    always_ff @(posedge clk) begin
        logic start;
        start      = f_hs && !in_frame_q;
        in_frame_q <= f_hs ? !f_tlast : in_frame_q;
        start_ok_q <= f_hs ? ok_hs : ok_idle;
        unique case ({start, e_stat_valid})
            2'b10:   open_q <= open_up;
            2'b01:   open_q <= open_dn;
            default: open_q <= open_q;
        endcase
        if (rst) begin
            in_frame_q <= 1'b0;
            open_q     <= '0;
            start_ok_q <= 1'b1;
        end
    end

    // ---- the decision ----------------------------------------------------------------------
    logic [31:0]             ctrl;
    logic                    lk_valid, rs_valid, rs_hit;
    logic [44:0]             lk_key;
    logic [213:0]            rs_value;
    logic                    d_valid, d_ready, d_drop;
    logic signed [LEN_W:0]   d_shift;
    logic [HEAD_BYTES*8-1:0] d_head;
    logic [HEAD_BYTES-1:0]   d_head_en;
    logic [LEN_W-1:0]        d_out_len;
    logic                    stat_valid, stat_emit;
    outcome_e                stat_outcome;
    logic [15:0]             stat_len;

    vxlan_encap_classify #(
        .DATA_W(DATA_W),
        .HEAD_BYTES(HEAD_BYTES),
        .LEN_W(LEN_W),
        .LOOKUP_LATENCY(TUNNEL_LOOKUP_LATENCY)
    ) classify (
        .clk(clk), .rst(rst),
        .s_tdata(f_tdata), .s_tkeep(f_tkeep), .s_hs(f_hs), .s_tlast(f_tlast),
        .s_len(f_len), .s_bad(f_bad), .s_oversize(f_oversize),
        .ctrl_drop_miss(ctrl[VXLAN_ENCAP_CONTROL_DROP_MISS]),
        .lk_valid(lk_valid), .lk_key(lk_key),
        .rs_valid(rs_valid), .rs_hit(rs_hit), .rs_value(rs_value),
        .desc_valid(d_valid), .desc_drop(d_drop), .desc_shift(d_shift), .desc_head(d_head),
        .desc_head_en(d_head_en), .desc_out_len(d_out_len),
        .stat_valid(stat_valid), .stat_outcome(stat_outcome), .stat_emit(stat_emit),
        .stat_len(stat_len)
    );

    // The tunnel table, looked up from the classifier's window in cycle H; its read words
    // landed in fabric registers beside the RAMs (the RAMs span the die), registered again
    // before the comparisons, the way hits before the select, the select's first level
    // registered (TUNNEL_LOOKUP_LATENCY 7): the answer comes from registers in H+7, taken by
    // F1. Its slot memories simple dual
    // port (SDP_MEM: on ECP5, 36-bit block RAM tiles for the 260-bit words, half the 18-bit
    // true-dual-port ones); the control side's op 3 reads between lookups, which come at most
    // one per frame. Larger tables than 2^17 slots keep true-dual-port memories.
    hash_table #(
        .KEY_W(45),
        .VALUE_W(214),
        .SLOTS(TUNNEL_SLOTS),
        .ADDR_W(12),
        .LOOKUP_LATENCY(TUNNEL_LOOKUP_LATENCY),
        .SDP_MEM(TUNNEL_SLOTS <= (1 << 17))
    ) tunnel_table (
        .clk(clk), .rst(rst),
        .lk_valid(lk_valid), .lk_key(lk_key),
        .rs_valid(rs_valid), .rs_hit(rs_hit), .rs_value(rs_value),
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

    // ---- the edit engine ---------------------------------------------------------------------
    // verilator lint_off UNUSEDSIGNAL
    // (the counters take the classifier's event: the frame's fate is known before it leaves;
    // the engine's event only closes the frame's place in OPEN_MAX)
    logic                    e_emitted, e_rx_err, e_short, e_sum_bad;
    logic [0:0]              e_meta;
    logic [LEN_W-1:0]        e_in_len, e_out_len;
    // verilator lint_on UNUSEDSIGNAL

    axis_edit #(
        .DATA_W(DATA_W),
        .HEAD_BYTES(HEAD_BYTES),
        .LEN_W(LEN_W),
        .META_W(1),
        .FIFO_BEATS(FIFO_BEATS),
        // out_len is exact (the input + 50 or 46): a frame ends in the slot of its last
        // output beat, no slot without output (but at 512 bits, where the next frame's first
        // slot reads its beat 0, see axis_edit)
        .FOLD_LAST(1'b1)
    ) edit (
        .clk(clk), .rst(rst),
        .s_axis_tdata(f_tdata), .s_axis_tkeep(f_tkeep), .s_axis_tvalid(f_tvalid && start_ok_q),
        .s_axis_tready(e_tready), .s_axis_tlast(f_tlast), .s_axis_tuser(f_tuser),
        .s_desc_valid(d_valid), .s_desc_ready(d_ready), .s_desc_drop(d_drop),
        .s_desc_shift(d_shift), .s_desc_head(d_head), .s_desc_head_en(d_head_en),
        .s_desc_out_len(d_out_len), .s_desc_min_len('0), .s_desc_sum_en(1'b0),
        .s_desc_sum_start('0), .s_desc_sum_end('0), .s_desc_sum_seed(16'd0),
        .s_desc_meta(1'b0),
        .m_axis_tdata(m_axis_tdata), .m_axis_tkeep(m_axis_tkeep), .m_axis_tvalid(m_axis_tvalid),
        .m_axis_tready(m_axis_tready), .m_axis_tlast(m_axis_tlast), .m_axis_tuser(m_axis_tuser),
        .m_stat_valid(e_stat_valid), .m_stat_meta(e_meta), .m_stat_emitted(e_emitted),
        .m_stat_rx_err(e_rx_err), .m_stat_short(e_short), .m_stat_sum_bad(e_sum_bad),
        .m_stat_in_len(e_in_len), .m_stat_out_len(e_out_len)
    );

    logic unused_d_ready;   // always ready: OPEN_MAX keeps the plan FIFO from filling
    assign unused_d_ready = d_ready;

`ifndef SYNTHESIS
    always_ff @(posedge clk) begin
        if (!rst && d_valid && !d_ready) begin
            $error("vxlan_encap: a descriptor found the edit engine's plan FIFO full");
        end
    end
`endif

    // ---- counters ----------------------------------------------------------------------------
    logic        tx_valid;
    logic [15:0] tx_len;

    axis_frame_meter #(
        .KEEP_W(KEEP_W)
    ) tx_meter (
        .clk(clk), .rst(rst),
        .tkeep(m_axis_tkeep), .tvalid(m_axis_tvalid), .tready(m_axis_tready),
        .tlast(m_axis_tlast), .tuser(m_axis_tuser),
        .frame_valid(tx_valid), .frame_len(tx_len)
    );

    logic unused_ctrl;
    assign unused_ctrl = ^ctrl[31:1];

    block_csr #(
        .ID_VALUE(VXLAN_ENCAP_ID_VALUE),
        .PARAMS_VALUE({16'($clog2(TUNNEL_SLOTS)), 16'(DATA_W)}),
        .NUM_OUTCOMES(VXLAN_ENCAP_NUM_OUTCOMES),
        .NUM_REGS(1),
        .REG_RESET(32'd0),
        .ADDR_W(12)
    ) csr (
        .clk(clk), .rst(rst),
        .s_axil_awaddr(s_axil_awaddr), .s_axil_awprot(s_axil_awprot),
        .s_axil_awvalid(s_axil_awvalid), .s_axil_awready(s_axil_awready),
        .s_axil_wdata(s_axil_wdata), .s_axil_wstrb(s_axil_wstrb),
        .s_axil_wvalid(s_axil_wvalid), .s_axil_wready(s_axil_wready),
        .s_axil_bresp(s_axil_bresp), .s_axil_bvalid(s_axil_bvalid),
        .s_axil_bready(s_axil_bready),
        .s_axil_araddr(s_axil_araddr), .s_axil_arprot(s_axil_arprot),
        .s_axil_arvalid(s_axil_arvalid), .s_axil_arready(s_axil_arready),
        .s_axil_rdata(s_axil_rdata), .s_axil_rresp(s_axil_rresp),
        .s_axil_rvalid(s_axil_rvalid), .s_axil_rready(s_axil_rready),
        .stat_valid(stat_valid), .stat_outcome(stat_outcome), .stat_len(stat_len),
        .tx_valid(tx_valid), .tx_len(tx_len),
        .regs(ctrl)
    );

    assign m_stat_valid   = stat_valid;
    assign m_stat_outcome = stat_outcome;
    assign m_stat_emit    = stat_emit;
    assign m_stat_len     = stat_len;

endmodule

`default_nettype wire
