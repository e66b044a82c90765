// SPDX-License-Identifier: Apache-2.0
//
// decap_shell — everything of a decapsulation block but its classifier (docs/architecture.md):
// the tkeep guard, the header front end, the descriptor queue, the edit engine, the frame's
// final outcome, the counters and the register decoder. A block is this shell, a classifier
// that turns the front end's tap into one edit descriptor per frame, and the classifier's
// table on the second register window.
//
//            +-----------+  beats   +----------+  tap_*        +------------+
//   s_axis ─►│keep check │──┬──────►│ ip_front │──────────────►│ classifier │ (outside)
//            +-----------+  │       +----------+               +-----+------+
//                           │                                  s_desc_* │
//                           │                          +-------------▼--+
//                           │                          │ descriptor queue│
//                           │  beats (delay FIFO)      +--------+--------+
//                           └─────────────────────────►+--------▼-------+
//                                                      │   axis_edit    │─► m_axis
//                                                      +--------+-------+
//               +-----------+   outcome, lengths       +--------▼-------+
//   s_axil ◄───►│ block_csr │◄─────────────────────────│ final outcome  │─► m_stat
//               +-----------+                          +----------------+
//   0x0000-0x0FFF block_csr (ID, PARAMS, CONTROL and NUM_REGS-1 more -> `control`, counters)
//   0x1000-0x1FFF m_axil (the classifier's table); above: SLVERR from the decoder
//   (CSR_DECODE = 0: no decoder; s_axil is block_csr's 4 KiB window alone, the caller decodes
//   and reaches the table by its own port; m_axil is idle)
//
// The classifier's contract: exactly one s_desc_valid per tap_valid, in frame order, at most
// DESC_DEPTH frames after it (the shell starts a frame only while fewer than DESC_DEPTH frames
// are started and not yet taken by the engine, so the queue has room and the descriptor needs
// no ready). Late checks override the descriptor's outcome, first match: a MAC error
// (OUT_RX_ERROR), a frame shorter than s_desc_min_len (OUT_TRUNCATED), a bad sum over
// [s_desc_sum_start, s_desc_sum_end) plus s_desc_sum_seed (OUT_SUM_BAD).
//
// OUT_META_EN: s_desc_out_meta leaves on m_axis_tmeta with every beat of the frame's output
// (a FIFO beside m_axis, written as the engine takes the descriptor, read at tlast; its last
// four words in registers, m_axis_tmeta a 4:1 multiplexer of them). So the
// classifier must then never send drop = 0 for a frame that leaves nothing (L < 1).
//
// Latency: tap_valid 5 cycles after the input beat that completes the front end's window
// (ip_front); the engine's output beat 0 LATENCY cycles (axis_edit) after the descriptor is
// taken (one cycle after s_desc_valid, the queue's bypass register).

`default_nettype none

module decap_shell #(
    // Width of the data bus in bits: 64, 128, 256 or 512.
    parameter int DATA_W = 256,
    // Bytes of the front end's window (ip_front) and of its L4 window from G.
    parameter int HDR_BYTES = 128,
    parameter int L4_BYTES = 32,
    // Bytes at the start of the output a descriptor may overlay (axis_edit HEAD_BYTES).
    parameter int HEAD_BYTES = 40,
    // Frame length bits of the descriptor's lengths (frames shorter than 2**LEN_W bytes).
    parameter int LEN_W = 17,
    // Outcome codes: how many the counters keep, and the three that late checks set.
    parameter int NUM_OUTCOMES = 16,
    parameter int OUT_RX_ERROR = 0,
    parameter int OUT_TRUNCATED = 0,
    parameter int OUT_SUM_BAD = 0,
    // block_csr's ID and PARAMS words; its registers from 0x008 (CONTROL, then 0x010 on), their
    // reset values and writable bits.
    parameter logic [31:0] ID_VALUE = 32'h0,
    parameter logic [31:0] PARAMS_VALUE = 32'h0,
    parameter int NUM_REGS = 1,
    parameter logic [NUM_REGS*32-1:0] REG_RESET = '0,
    parameter logic [NUM_REGS*32-1:0] REG_WMASK = '0,
    // 1: the register decoder (block_csr at 0x0000, m_axil at 0x1000); 0: s_axil is block_csr's.
    parameter bit CSR_DECODE = 1'b1,
    // 1: a per-frame sideband of OUT_META_W bits travels beside m_axis (see above).
    parameter bit OUT_META_EN = 1'b0,
    parameter int OUT_META_W = 1
) (
    input  wire logic                    clk,
    input  wire logic                    rst,

    input  wire logic [DATA_W-1:0]       s_axis_tdata,
    input  wire logic [DATA_W/8-1:0]     s_axis_tkeep,
    input  wire logic                    s_axis_tvalid,
    output      logic                    s_axis_tready,
    input  wire logic                    s_axis_tlast,
    input  wire logic [0:0]              s_axis_tuser,

    output      logic [DATA_W-1:0]       m_axis_tdata,
    output      logic [DATA_W/8-1:0]     m_axis_tkeep,
    output      logic                    m_axis_tvalid,
    input  wire logic                    m_axis_tready,
    output      logic                    m_axis_tlast,
    output      logic [0:0]              m_axis_tuser,
    output      logic [OUT_META_W-1:0]   m_axis_tmeta,     // OUT_META_EN, else 0

    input  wire logic [15:0]             s_axil_awaddr,
    input  wire logic [2:0]              s_axil_awprot,
    input  wire logic                    s_axil_awvalid,
    output      logic                    s_axil_awready,
    input  wire logic [31:0]             s_axil_wdata,
    input  wire logic [3:0]              s_axil_wstrb,
    input  wire logic                    s_axil_wvalid,
    output      logic                    s_axil_wready,
    output      logic [1:0]              s_axil_bresp,
    output      logic                    s_axil_bvalid,
    input  wire logic                    s_axil_bready,
    input  wire logic [15:0]             s_axil_araddr,
    input  wire logic [2:0]              s_axil_arprot,
    input  wire logic                    s_axil_arvalid,
    output      logic                    s_axil_arready,
    output      logic [31:0]             s_axil_rdata,
    output      logic [1:0]              s_axil_rresp,
    output      logic                    s_axil_rvalid,
    input  wire logic                    s_axil_rready,

    // The second register window (0x1000): the classifier's table.
    output      logic [11:0]             m_axil_awaddr,
    output      logic [2:0]              m_axil_awprot,
    output      logic                    m_axil_awvalid,
    input  wire logic                    m_axil_awready,
    output      logic [31:0]             m_axil_wdata,
    output      logic [3:0]              m_axil_wstrb,
    output      logic                    m_axil_wvalid,
    input  wire logic                    m_axil_wready,
    input  wire logic [1:0]              m_axil_bresp,
    input  wire logic                    m_axil_bvalid,
    output      logic                    m_axil_bready,
    output      logic [11:0]             m_axil_araddr,
    output      logic [2:0]              m_axil_arprot,
    output      logic                    m_axil_arvalid,
    input  wire logic                    m_axil_arready,
    input  wire logic [31:0]             m_axil_rdata,
    input  wire logic [1:0]              m_axil_rresp,
    input  wire logic                    m_axil_rvalid,
    output      logic                    m_axil_rready,

    // block_csr's registers (CONTROL in bits 31:0), for the classifier.
    output      logic [NUM_REGS*32-1:0]  control,

    // The front end's tap (ip_front: what each field means).
    output      logic                    tap_valid,
    output      logic [7:0]              tap_have,
    output      logic                    tap_whole,
    output      logic                    tap_rx_err,
    output      logic [22*8-1:0]         tap_l2_bytes,
    output      logic [4:0]              tap_l2_len,
    output      logic                    tap_l2_short,
    output      logic [15:0]             tap_et,
    output      logic                    tap_ipv4,
    output      logic                    tap_ipv6,
    output      logic                    tap_short_proto,
    output      logic [7:0]              tap_ip_proto,
    output      logic                    tap_short_fixed,
    output      logic                    tap_ip_ver_bad,
    output      logic                    tap_short_opts,
    output      logic                    tap_ip_frag,
    output      logic                    tap_ip_frag_off,
    output      logic signed [16:0]      tap_ip_pl,
    output      logic [1:0]              tap_ip_ecn,
    output      logic [31:0]             tap_ip_src,
    output      logic [31:0]             tap_ip_dst,
    output      logic [31:0]             early_ip_src,
    output      logic [31:0]             early_ip_dst,
    output      logic [7:0]              tap_g,
    output      logic signed [8:0]       tap_have_l4,
    output      logic [L4_BYTES*8-1:0]   tap_l4,
    output      logic [L4_BYTES-1:0]     tap_l4_ok,
    output      logic                    tap_csum_ok,

    // The beats the front end sees (after the tkeep guard) and their handshake, for a
    // classifier that reads the stream itself (Geneve's options run past the tap's window).
    output      logic [DATA_W-1:0]       beat_tdata,
    output      logic [DATA_W/8-1:0]     beat_tkeep,
    output      logic                    beat_hs,
    output      logic                    beat_tlast,
    output      logic                    beat_tuser,

    // One edit descriptor per frame (axis_edit's s_desc_*: what each field means).
    input  wire logic                    s_desc_valid,
    input  wire logic                    s_desc_drop,
    input  wire logic signed [LEN_W:0]   s_desc_shift,
    input  wire logic [HEAD_BYTES*8-1:0] s_desc_head,
    input  wire logic [HEAD_BYTES-1:0]   s_desc_head_en,
    input  wire logic [LEN_W-1:0]        s_desc_out_len,
    input  wire logic [LEN_W-1:0]        s_desc_min_len,
    input  wire logic                    s_desc_sum_en,
    input  wire logic [LEN_W-1:0]        s_desc_sum_start,
    input  wire logic [LEN_W-1:0]        s_desc_sum_end,
    input  wire logic [15:0]             s_desc_sum_seed,
    input  wire logic [3:0]              s_desc_outcome,
    input  wire logic [OUT_META_W-1:0]   s_desc_out_meta,

    // One event per input frame, in input order, after its last beat: its outcome, whether it
    // appears on m_axis (possibly aborted), and its length. For telemetry and test benches.
    output      logic                    m_stat_valid,
    output      logic [3:0]              m_stat_outcome,
    output      logic                    m_stat_emit,
    output      logic [15:0]             m_stat_len
);

    localparam int KEEP_W = DATA_W / 8;
    // Beats the edit engine's delay FIFO holds: the window (16 beats at 64 bits, 4 at 256),
    // the front end's and classifier's stages and the engine's own, so that an unstalled
    // output never stalls the input.
    localparam int FIFO_BEATS = (DATA_W == 64) ? 64 : 32;
    // Frames whose descriptor is not yet taken by the engine, at most (the descriptor queue).
    localparam int DESC_DEPTH = 16;
    localparam int DESC_W = 1 + (LEN_W + 1) + HEAD_BYTES * 8 + HEAD_BYTES + 4 * LEN_W + 1 + 16
                          + 4 + OUT_META_W;
    // Frames whose descriptor the engine has taken and whose output has not ended, at most: its
    // plan FIFO (16), the slots in flight and its out FIFO (16 credits), the output register.
    localparam int META_DEPTH = 64;
    // The descriptor queue's output register is built in 64-bit slices (sync_fifo SLICE_W);
    // the engine hands in a copy of its ready per slice and one more for the shell's logic.
    localparam int DQ_SLICES  = (DESC_W + 63) / 64;
    localparam int DQ_READY_N = DQ_SLICES + 1;
    // The keep check registered at 512 bits, where its fill (a 64-bit suffix OR) would sit
    // between the input register and the front end's capture: one cycle more there.
    localparam bit KEEP_REG = DATA_W >= 512;
    // Its register loads every cycle (CREDIT): a load enable from the engine's ready would
    // reach every bit of the beat across the die. The engine's ready is then a credit a
    // cycle ahead (axis_edit IN_SLACK), and every beat leaving the register is taken.

    if (DATA_W != 64 && DATA_W != 128 && DATA_W != 256 && DATA_W != 512) begin : g_check_w
        $error("decap_shell: DATA_W must be 64, 128, 256 or 512");
    end
    if (NUM_OUTCOMES < 1 || NUM_OUTCOMES > 16 || OUT_RX_ERROR >= NUM_OUTCOMES
        || OUT_TRUNCATED >= NUM_OUTCOMES || OUT_SUM_BAD >= NUM_OUTCOMES) begin : g_check_out
        $error("decap_shell: NUM_OUTCOMES must be 1..16 and hold the late outcome codes");
    end
    if (LEN_W < 16 || LEN_W > 17) begin : g_check_len
        $error("decap_shell: LEN_W must be 16 or 17");
    end
    if (NUM_REGS < 1 || NUM_REGS > 61) begin : g_check_regs
        $error("decap_shell: NUM_REGS must be 1..61 (block_csr)");
    end
    if (OUT_META_W < 1) begin : g_check_meta
        $error("decap_shell: OUT_META_W must be at least 1");
    end

    // tkeep guard (docs/robustness.md): a frame with a tkeep hole is a bad frame (tuser on its
    // last beat, counted as OUT_RX_ERROR); the front end and the engine see no hole. The start
    // permission (below) gates its input.
    logic [DATA_W-1:0] k_tdata;
    logic [KEEP_W-1:0] k_tkeep;
    logic              k_tvalid, k_tready, k_tlast, k_tuser;
    logic              kc_s_ready, start_ok_q;

    axis_keep_check #(
        .DATA_W(DATA_W),
        .REG_OUT(KEEP_REG),
        .CREDIT(KEEP_REG)
    ) keep_check (
        .clk(clk), .rst(rst),
        .s_axis_tdata(s_axis_tdata), .s_axis_tkeep(s_axis_tkeep),
        .s_axis_tvalid(s_axis_tvalid && start_ok_q), .s_axis_tready(kc_s_ready),
        .s_axis_tlast(s_axis_tlast), .s_axis_tuser(s_axis_tuser[0]),
        .m_axis_tdata(k_tdata), .m_axis_tkeep(k_tkeep), .m_axis_tvalid(k_tvalid),
        .m_axis_tready(k_tready), .m_axis_tlast(k_tlast), .m_axis_tuser(k_tuser)
    );

    // A frame starts only while the descriptor queue has room for it (frames started and
    // not yet taken by the engine < DESC_DEPTH): the classifier has no backpressure. Frames
    // are counted as they enter the keep check (at 512 bits a beat ahead of the front end:
    // the count is then one high for a while, never low). The permission is a register,
    // computed from the next counts, so that s_axis_tready is the AND of two registers.
    // A descriptor taken by the engine is counted a cycle later, from a register (took_q):
    // the count may be one high for a cycle, never low, and the queue's output logic does
    // not reach the input's gate in one cycle.
    localparam int OPEN_W = $clog2(DESC_DEPTH) + 1;

    logic                          e_tready;      // the engine's ready (a credit at KEEP_REG)
    logic                          in_frame_q, took_q;
    logic [OPEN_W-1:0]             open_q;
    logic [DQ_READY_N-1:0]         d_ready_n;     // engine takes a descriptor (copies)
    logic                          d_ready;       // the shell's copy
    assign d_ready = d_ready_n[DQ_SLICES];
    logic                          dq_valid;
    // (at KEEP_REG every beat leaving the keep check is taken)
    wire                           s_hs = k_tvalid && (KEEP_REG || k_tready);
    wire                           in_hs = s_axis_tvalid && s_axis_tready;
    assign k_tready = e_tready;
    assign s_axis_tready = kc_s_ready && start_ok_q;

    assign beat_tdata = k_tdata;
    assign beat_tkeep = k_tkeep;
    assign beat_hs    = s_hs;
    assign beat_tlast = k_tlast;
    assign beat_tuser = k_tuser;

    // The count's three possible next values (one more, one fewer, the same) and their room,
    // from open_q alone; took_q and the cycle's start then only select (no adder or compare
    // after either). took_q is kept apart (as the engine keeps its own): synthesis merges
    // identical flip-flops unless both are kept, and the engine's is far from this logic.
    logic [OPEN_W-1:0] open_up, open_dn;   // one frame started and none taken / the reverse
    logic              room_up, room_dn, room_eq;
    assign open_up = open_q + OPEN_W'(1);
    assign open_dn = open_q - OPEN_W'(1);
    assign room_up = open_q != OPEN_W'(DESC_DEPTH - 1);   // open_up != DESC_DEPTH
    assign room_dn = open_q != OPEN_W'(DESC_DEPTH + 1);   // open_dn != DESC_DEPTH
    assign room_eq = open_q != OPEN_W'(DESC_DEPTH);

    (* keep *) always_ff @(posedge clk) begin
        took_q <= dq_valid && d_ready;
        if (rst) took_q <= 1'b0;
    end

    always_ff @(posedge clk) begin
        logic start, in_frame_d;
        start      = in_hs && !in_frame_q;
        in_frame_d = in_hs ? !s_axis_tlast : in_frame_q;
        in_frame_q <= in_frame_d;
        unique case ({start, took_q})
            2'b10:   begin open_q <= open_up; start_ok_q <= in_frame_d || room_up; end
            2'b01:   begin open_q <= open_dn; start_ok_q <= in_frame_d || room_dn; end
            default: begin open_q <= open_q;  start_ok_q <= in_frame_d || room_eq; end
        endcase
        if (rst) begin
            in_frame_q <= 1'b0;
            open_q     <= '0;
            start_ok_q <= 1'b1;
        end
    end

    // ---- header front end --------------------------------------------------------------
    ip_front #(
        .DATA_W(DATA_W),
        .HDR_BYTES(HDR_BYTES),
        .L4_BYTES(L4_BYTES)
    ) front (
        .clk(clk), .rst(rst),
        .s_tdata(k_tdata), .s_tkeep(k_tkeep), .s_hs(s_hs), .s_tlast(k_tlast), .s_tuser(k_tuser),
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
        .tap_csum_ok(tap_csum_ok)
    );

    // ---- descriptor queue and edit engine -------------------------------------------------
    logic [DESC_W-1:0]       dq_data;
    logic                    dq_s_ready;
    logic                    d_drop, d_sum_en;
    logic signed [LEN_W:0]   d_shift;
    logic [HEAD_BYTES*8-1:0] d_head;
    logic [HEAD_BYTES-1:0]   d_head_en;
    logic [LEN_W-1:0]        d_out_len, d_min_len, d_sum_start, d_sum_end;
    logic [15:0]             d_sum_seed;
    logic [3:0]              d_outcome;
    logic [OUT_META_W-1:0]   d_out_meta;

    sync_fifo #(
        .WIDTH(DESC_W),
        .DEPTH(DESC_DEPTH),
        .BYPASS(1'b1),
        .SLICE_W(64),
        .READY_N(DQ_READY_N),
        .LUT_RAM(1'b0)
    ) desc_queue (
        .clk(clk), .rst(rst),
        .s_data({s_desc_drop, s_desc_shift, s_desc_head, s_desc_head_en, s_desc_out_len,
                 s_desc_min_len, s_desc_sum_start, s_desc_sum_end, s_desc_sum_en,
                 s_desc_sum_seed, s_desc_outcome, s_desc_out_meta}),
        .s_valid(s_desc_valid), .s_ready(dq_s_ready),
        .m_data(dq_data), .m_valid(dq_valid), .m_ready(d_ready_n)
    );

    logic unused_dq_ready;   // never full: frames are started only with room (open_q)
    assign unused_dq_ready = dq_s_ready;
    assign {d_drop, d_shift, d_head, d_head_en, d_out_len, d_min_len, d_sum_start, d_sum_end,
            d_sum_en, d_sum_seed, d_outcome, d_out_meta} = dq_data;

    logic                    st_valid, st_emitted, st_rx_err, st_short, st_sum_bad;
    logic [3:0]              st_meta;
    logic [LEN_W-1:0]        st_in_len, st_out_len;

    axis_edit #(
        .DATA_W(DATA_W),
        .HEAD_BYTES(HEAD_BYTES),
        .LEN_W(LEN_W),
        .META_W(4),
        .FIFO_BEATS(FIFO_BEATS),
        .DESC_READY_N(DQ_READY_N),
        .IN_SLACK(KEEP_REG ? 1 : 0)
    ) edit (
        .clk(clk), .rst(rst),
        .s_axis_tdata(k_tdata), .s_axis_tkeep(k_tkeep), .s_axis_tvalid(k_tvalid),
        .s_axis_tready(e_tready), .s_axis_tlast(k_tlast), .s_axis_tuser(k_tuser),
        .s_desc_valid(dq_valid), .s_desc_ready(d_ready_n), .s_desc_drop(d_drop),
        .s_desc_shift(d_shift), .s_desc_head(d_head), .s_desc_head_en(d_head_en),
        .s_desc_out_len(d_out_len), .s_desc_min_len(d_min_len), .s_desc_sum_en(d_sum_en),
        .s_desc_sum_start(d_sum_start), .s_desc_sum_end(d_sum_end),
        .s_desc_sum_seed(d_sum_seed), .s_desc_meta(d_outcome),
        .m_axis_tdata(m_axis_tdata), .m_axis_tkeep(m_axis_tkeep), .m_axis_tvalid(m_axis_tvalid),
        .m_axis_tready(m_axis_tready), .m_axis_tlast(m_axis_tlast), .m_axis_tuser(m_axis_tuser[0]),
        .m_stat_valid(st_valid), .m_stat_meta(st_meta), .m_stat_emitted(st_emitted),
        .m_stat_rx_err(st_rx_err), .m_stat_short(st_short), .m_stat_sum_bad(st_sum_bad),
        .m_stat_in_len(st_in_len), .m_stat_out_len(st_out_len)
    );

    logic unused_len;   // frames are shorter than 64 KiB: the counters take 16 bits
    assign unused_len = st_in_len[LEN_W-1] ^ st_out_len[LEN_W-1];

    // ---- the frame's final outcome: a late check overrides the early one --------------------
    logic        stat_valid, stat_emit, tx_valid;
    logic [3:0]  stat_outcome;
    logic [15:0] stat_len, tx_len;

    always_ff @(posedge clk) begin
        stat_valid <= st_valid;
        tx_valid   <= st_valid && st_emitted && !(st_rx_err || st_short || st_sum_bad);
        if (st_valid) begin
            stat_outcome <= st_rx_err  ? 4'(OUT_RX_ERROR)
                          : st_short   ? 4'(OUT_TRUNCATED)
                          : st_sum_bad ? 4'(OUT_SUM_BAD)
                          : st_meta;
            stat_emit    <= st_emitted;
            stat_len     <= st_in_len[15:0];
            tx_len       <= st_out_len[15:0];
        end
        if (rst) begin
            stat_valid <= 1'b0;
            tx_valid   <= 1'b0;
        end
    end

    // ---- the per-frame sideband beside m_axis ------------------------------------------------
    if (OUT_META_EN) begin : g_meta
        // Written the cycle after the engine takes a descriptor that leaves output (from
        // registers: the engine's ready reaches no FIFO state), in frame order. The FIFO's
        // head is taken by a credit (a register), lands in a register loaded every cycle and
        // then in a four-word ring; m_axis_tmeta is the ring's word at the read pointer. So the
        // pop at m_axis's tlast (a late port) moves a 2-bit pointer and the credit, and
        // reaches neither the FIFO's RAM nor a wide enable. The RAM is in LUTs (LUT_RAM): its
        // read register is the FIFO's output register, and a block RAM's clock-to-output
        // would leave the register behind it no time. A word is in the ring five cycles after its descriptor is taken; the
        // frame's first beat leaves LATENCY (>= 10) cycles after.
        logic                    meta_s_ready, f_valid, f_take, take_q, x_valid_q;
        logic                    meta_we_q;
        logic [OUT_META_W-1:0]   meta_q, f_data, x_data_q;
        logic [3:0][OUT_META_W-1:0] ring_q;
        logic [1:0]              wp_q, rp_q;
        logic [2:0]              credit_q;      // words taken from the FIFO and not yet popped
        logic                    pop;
        always_ff @(posedge clk) begin
            meta_we_q <= dq_valid && d_ready && !d_drop;
            meta_q    <= d_out_meta;
            if (rst) meta_we_q <= 1'b0;
        end
        sync_fifo #(
            .WIDTH(OUT_META_W),
            .DEPTH(META_DEPTH),
            .BYPASS(1'b0),
            .SLICE_W(64),
            .READY_N(1),
            .LUT_RAM(1'b1)
        ) meta_fifo (
            .clk(clk), .rst(rst),
            .s_data(meta_q), .s_valid(meta_we_q),
            .s_ready(meta_s_ready),
            .m_data(f_data), .m_valid(f_valid),
            .m_ready(take_q)
        );
        assign f_take = f_valid && take_q;
        // pop only with a word in the ring: the frame's word is there before its tlast
        assign pop    = m_axis_tvalid && m_axis_tready && m_axis_tlast;
        always_ff @(posedge clk) begin
            logic [2:0] credit_d;
            credit_d  = credit_q + 3'(f_take) - 3'(pop);
            credit_q  <= credit_d;
            take_q    <= credit_d < 3'd4;   // the ring holds every word taken
            x_valid_q <= f_take;
            x_data_q  <= f_data;
            if (x_valid_q) begin
                ring_q[wp_q] <= x_data_q;
                wp_q         <= wp_q + 2'd1;
            end
            if (pop) rp_q <= rp_q + 2'd1;
            if (rst) begin
                credit_q  <= '0;
                take_q    <= 1'b0;
                x_valid_q <= 1'b0;
                wp_q      <= '0;
                rp_q      <= '0;
            end
        end
        assign m_axis_tmeta = ring_q[rp_q];
        logic unused_meta;   // never full: the engine holds fewer frames (META_DEPTH)
        assign unused_meta = meta_s_ready;
    end else begin : g_no_meta
        assign m_axis_tmeta = '0;
        logic unused_meta;
        assign unused_meta = ^d_out_meta;
    end

    // Register windows: 0x0000 block_csr, 0x1000 m_axil; above 0x1FFF SLVERR (the decoder).
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

    if (CSR_DECODE) begin : g_decode
        axil_decode #(
            .WINDOWS(CSR_WINDOWS),
            .WIN_ADDR_W(CSR_WIN_W),
            .ADDR_W(16)
        ) csr_decode (
            .clk(clk), .rst(rst),
            .s_axil_awaddr(s_axil_awaddr), .s_axil_awprot(s_axil_awprot),
            .s_axil_awvalid(s_axil_awvalid), .s_axil_awready(s_axil_awready),
            .s_axil_wdata(s_axil_wdata), .s_axil_wstrb(s_axil_wstrb), .s_axil_wvalid(s_axil_wvalid),
            .s_axil_wready(s_axil_wready), .s_axil_bresp(s_axil_bresp), .s_axil_bvalid(s_axil_bvalid),
            .s_axil_bready(s_axil_bready), .s_axil_araddr(s_axil_araddr),
            .s_axil_arprot(s_axil_arprot), .s_axil_arvalid(s_axil_arvalid),
            .s_axil_arready(s_axil_arready), .s_axil_rdata(s_axil_rdata), .s_axil_rresp(s_axil_rresp),
            .s_axil_rvalid(s_axil_rvalid), .s_axil_rready(s_axil_rready),
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
    end else begin : g_no_decode
        // The caller decodes: window 0 is s_axil (its low 12 bits), window 1 is idle.
        assign csr_awaddr[0 +: CSR_WIN_W] = s_axil_awaddr[CSR_WIN_W-1:0];
        assign csr_awprot[0 +: 3]   = s_axil_awprot;
        assign csr_awvalid[0]       = s_axil_awvalid;
        assign s_axil_awready       = csr_awready[0];
        assign csr_wdata[0 +: 32]   = s_axil_wdata;
        assign csr_wstrb[0 +: 4]    = s_axil_wstrb;
        assign csr_wvalid[0]        = s_axil_wvalid;
        assign s_axil_wready        = csr_wready[0];
        assign s_axil_bresp         = csr_bresp[0 +: 2];
        assign s_axil_bvalid        = csr_bvalid[0];
        assign csr_bready[0]        = s_axil_bready;
        assign csr_araddr[0 +: CSR_WIN_W] = s_axil_araddr[CSR_WIN_W-1:0];
        assign csr_arprot[0 +: 3]   = s_axil_arprot;
        assign csr_arvalid[0]       = s_axil_arvalid;
        assign s_axil_arready       = csr_arready[0];
        assign s_axil_rdata         = csr_rdata[0 +: 32];
        assign s_axil_rresp         = csr_rresp[0 +: 2];
        assign s_axil_rvalid        = csr_rvalid[0];
        assign csr_rready[0]        = s_axil_rready;
        assign csr_awaddr[CSR_WIN_W +: CSR_WIN_W] = '0;
        assign csr_araddr[CSR_WIN_W +: CSR_WIN_W] = '0;
        assign csr_awprot[3 +: 3]   = '0;
        assign csr_arprot[3 +: 3]   = '0;
        assign csr_wdata[32 +: 32]  = '0;
        assign csr_wstrb[4 +: 4]    = '0;
        assign {csr_awvalid[1], csr_wvalid[1], csr_bready[1], csr_arvalid[1], csr_rready[1]} = '0;
        logic unused_addr;   // the window's upper address bits (the caller decoded them), the
                             // idle window 1's answers
        assign unused_addr = ^{s_axil_awaddr[15:CSR_WIN_W], s_axil_araddr[15:CSR_WIN_W],
                               csr_rdata[32 +: 32], csr_bresp[2 +: 2], csr_rresp[2 +: 2],
                               csr_awready[1], csr_wready[1], csr_bvalid[1], csr_arready[1],
                               csr_rvalid[1]};
    end

    // Window 0: ID, PARAMS, CONTROL and the other registers, the counters
    block_csr #(
        .ID_VALUE(ID_VALUE),
        .PARAMS_VALUE(PARAMS_VALUE),
        .NUM_OUTCOMES(NUM_OUTCOMES),
        .NUM_REGS(NUM_REGS),
        .REG_RESET(REG_RESET),
        .REG_WMASK(REG_WMASK),
        .ADDR_W(CSR_WIN_W)
    ) csr (
        .clk(clk), .rst(rst),
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
        .stat_valid(stat_valid), .stat_outcome(stat_outcome), .stat_len(stat_len),
        .tx_valid(tx_valid), .tx_len(tx_len),
        .regs(control)
    );

    // Window 1: the classifier's table
    assign m_axil_awaddr  = csr_awaddr[1*CSR_WIN_W +: CSR_WIN_W];
    assign m_axil_awprot  = csr_awprot[1*3 +: 3];
    assign m_axil_awvalid = csr_awvalid[1];
    assign csr_awready[1] = m_axil_awready;
    assign m_axil_wdata   = csr_wdata[1*32 +: 32];
    assign m_axil_wstrb   = csr_wstrb[1*4 +: 4];
    assign m_axil_wvalid  = csr_wvalid[1];
    assign csr_wready[1]  = m_axil_wready;
    assign csr_bresp[1*2 +: 2] = m_axil_bresp;
    assign csr_bvalid[1]  = m_axil_bvalid;
    assign m_axil_bready  = csr_bready[1];
    assign m_axil_araddr  = csr_araddr[1*CSR_WIN_W +: CSR_WIN_W];
    assign m_axil_arprot  = csr_arprot[1*3 +: 3];
    assign m_axil_arvalid = csr_arvalid[1];
    assign csr_arready[1] = m_axil_arready;
    assign csr_rdata[1*32 +: 32] = m_axil_rdata;
    assign csr_rresp[1*2 +: 2] = m_axil_rresp;
    assign csr_rvalid[1]  = m_axil_rvalid;
    assign m_axil_rready  = csr_rready[1];

    assign m_stat_valid   = stat_valid;
    assign m_stat_outcome = stat_outcome;
    assign m_stat_emit    = stat_emit;
    assign m_stat_len     = stat_len;

endmodule

`default_nettype wire
