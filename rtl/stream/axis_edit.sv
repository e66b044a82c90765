// SPDX-License-Identifier: Apache-2.0
//
// axis_edit: the pipelined edit engine (issue 27). One descriptor per frame says how the
// frame is rewritten; a frame of n input bytes leaves as L = min(out_len, n - D) bytes:
//
//     output byte i = head[i]             when i < HEAD_BYTES and head_en[i]
//                   = input byte i + D    otherwise (0 when i + D < 0: room inserted in front)
//
// or not at all (drop, or L < 1). Two checks are only known at the frame's end (the input
// shorter than min_len, a one's-complement sum over [sum_start, min(sum_end, n)) that is not
// 0xFFFF) and a MAC RX error (s_axis_tuser) only on the last beat: the last output beat waits
// for the last input beat and carries the verdict in m_axis_tuser (aborted). One status event
// per input frame reports what happened.
//
// The old engine (axis_splice) decides every output beat combinationally from the buffer and
// the descriptor; here the decision is split from the data:
//
//   s_axis -> delay FIFO (LUT RAM) -> A register --+
//   s_desc -> plan FIFO (LUT RAM) -> plan regs ----+-> issue -> S1 -> shift x NSH -> overlay ->
//             head FIFO (LUT RAM) ------------------------------------^            out FIFO -> m_axis
//                                                 S1 -> sum / status pipeline -> verdict FIFO ^
//
// * Issue: one slot per cycle. A slot is the pair (A = input beat a, B = input beat a + 1):
//   output beat k = a - q (q = floor(D / KW)) is bytes r .. r + KW - 1 (r = D mod KW) of {B, A}
//   (the two-beat look-ahead). Each input beat is A of exactly one slot, so a frame takes one
//   cycle per input beat; for D < 0 the -q slots before beat 0 take A (and B) as zeros
//   ("virtual" beats), so a frame with room inserted takes -q cycles more. Slots with k < 0
//   (D >= KW) and after the output's end only feed the sum. The plan (counters of pre and
//   virtual slots, the output bytes left, r) is held in registers, loaded from the plan FIFO as
//   the previous frame's last slot issues, so frames follow back to back.
// * Shift: {B, A} shifted right by r bytes in NSH = ceil(log2(KW) / 2) registered stages of two
//   2:1 multiplexer levels each, tkeep lanes with the data: lane KW of the shifted keep says
//   whether the next output beat has a byte.
// * Overlay: head bytes of output beat k (read from the head FIFO by its own pointer), the
//   length mask (out_len), empty lanes zeroed; the last output beat of a frame is found here
//   and held until the slot of the frame's last input beat passes, so it is written in that
//   slot: the out FIFO write never needs two beats in one cycle.
// * Sum / status: from S1 in parallel: byte masks, a registered adder tree, the frame's
//   accumulator, the fold, the verdict; then m_stat_* and, for frames that emitted, the verdict
//   into a small FIFO. The output side holds a frame's last beat until its verdict is there.
//
// Backpressure: no stage stalls. The out FIFO (OUT_DEPTH entries) gives the issue stage
// credits: a slot issues only with a free entry reserved for it, so m_axis_tready reaches only
// the output register, the out FIFO read pointer and the credit counter. s_axis_tready and
// s_desc_ready are registers (their FIFOs' fill levels); no path from m_axis_tready to them.
//
// Latency (s_axis beat 0 and its descriptor present in cycle 0, m_axis_tvalid of output beat
// 0 in cycle LATENCY, nothing stalled): LATENCY = 6 + NSH cycles: 8 at DATA_W 64 and 128,
// 9 at 256 and 512. (FIFO write 1, A register 1, S1 1, shift NSH, overlay 1, out FIFO 1,
// output register 1; a beat 1 waits for beat 1 as B only when beat 0 is not the last.) A
// descriptor that comes later than its frame's first beat delays the output by as much.
// The frame's last output beat leaves VERDICT_WAIT = 3 + TREE - NSH cycles after the slot of
// the frame's last input beat would have let it go (TREE = log2(KW / 2)): the sum's stages.
//
// Throughput: with m_axis_tready = 1 and descriptors ahead of the frames, a frame takes one
// issue cycle per input beat plus ceil(-D / KW) when D < 0, and frames follow with no gap:
// s_axis_tready stays high whenever every frame has D >= 0 (its output has no more beats than
// its input). Dropped frames: one cycle per input beat.
//
// Status: m_stat_sum_bad is reported for dropped frames too (computed alike); m_stat_emitted
// and m_stat_out_len say what the frame's output is (L >= 1 and not dropped: L bytes); the
// event comes when the verdict is known, which may be before the frame's last output beat has
// been taken by m_axis (the beats are committed: they leave as m_axis_tready allows).

`default_nettype none

module axis_edit #(
    // Width of tdata in bits: 64, 128, 256 or 512
    parameter int DATA_W     = 256,
    // Bytes at the start of the output the descriptor may overlay (a multiple of 8, <= 128)
    parameter int HEAD_BYTES = 64,
    // Frame length bits (frames shorter than 2**LEN_W bytes; 8 .. 17)
    parameter int LEN_W      = 16,
    // Per-frame metadata carried to the status output
    parameter int META_W     = 8,
    // Depth of the input delay FIFO in beats (a power of 2, >= 4): how far the input may run
    // ahead of its descriptor
    parameter int FIFO_BEATS = 32
) (
    input  wire logic                     clk,
    input  wire logic                     rst,

    // Frames in
    input  wire logic [DATA_W-1:0]        s_axis_tdata,
    input  wire logic [DATA_W/8-1:0]      s_axis_tkeep,
    input  wire logic                     s_axis_tvalid,
    output      logic                     s_axis_tready,
    input  wire logic                     s_axis_tlast,
    input  wire logic                     s_axis_tuser,

    // One descriptor per input frame, in frame order
    input  wire logic                     s_desc_valid,
    output      logic                     s_desc_ready,
    input  wire logic                     s_desc_drop,
    input  wire logic signed [LEN_W:0]    s_desc_shift,
    input  wire logic [HEAD_BYTES*8-1:0]  s_desc_head,
    input  wire logic [HEAD_BYTES-1:0]    s_desc_head_en,
    input  wire logic [LEN_W-1:0]         s_desc_out_len,
    input  wire logic [LEN_W-1:0]         s_desc_min_len,
    input  wire logic                     s_desc_sum_en,
    input  wire logic [LEN_W-1:0]         s_desc_sum_start,
    input  wire logic [LEN_W-1:0]         s_desc_sum_end,
    input  wire logic [META_W-1:0]        s_desc_meta,

    // Frames out (tuser on the last beat: aborted)
    output      logic [DATA_W-1:0]        m_axis_tdata,
    output      logic [DATA_W/8-1:0]      m_axis_tkeep,
    output      logic                     m_axis_tvalid,
    input  wire logic                     m_axis_tready,
    output      logic                     m_axis_tlast,
    output      logic                     m_axis_tuser,

    // One status event per input frame, in order
    output      logic                     m_stat_valid,
    output      logic [META_W-1:0]        m_stat_meta,
    output      logic                     m_stat_emitted,
    output      logic                     m_stat_rx_err,
    output      logic                     m_stat_short,
    output      logic                     m_stat_sum_bad,
    output      logic [LEN_W-1:0]         m_stat_in_len,
    output      logic [LEN_W-1:0]         m_stat_out_len
);

    // ------------------------------------------------------------------------------------
    // Elaboration-time parameter checks
    // ------------------------------------------------------------------------------------
    if (DATA_W != 64 && DATA_W != 128 && DATA_W != 256 && DATA_W != 512) begin : g_err_data_w
        $error("axis_edit: DATA_W (%0d) must be 64, 128, 256 or 512", DATA_W);
    end
    if (HEAD_BYTES < 8 || HEAD_BYTES > 128 || HEAD_BYTES % 8 != 0) begin : g_err_head
        $error("axis_edit: HEAD_BYTES (%0d) must be a multiple of 8 in 8 .. 128", HEAD_BYTES);
    end
    // The frame's sum is accumulated in 32 bits: 2**(LEN_W-1) words of 16 bits fit.
    if (LEN_W < 8 || LEN_W > 17) begin : g_err_len_w
        $error("axis_edit: LEN_W (%0d) must be in 8 .. 17", LEN_W);
    end
    if (META_W < 1) begin : g_err_meta_w
        $error("axis_edit: META_W (%0d) must be at least 1", META_W);
    end
    if (FIFO_BEATS < 4 || (FIFO_BEATS & (FIFO_BEATS - 1)) != 0) begin : g_err_fifo
        $error("axis_edit: FIFO_BEATS (%0d) must be a power of 2, at least 4", FIFO_BEATS);
    end

    // ------------------------------------------------------------------------------------
    // Sizes
    // ------------------------------------------------------------------------------------
    localparam int KW        = DATA_W / 8;             // bytes per beat
    localparam int SW        = $clog2(KW);             // bits of the in-beat shift r
    localparam int NSH       = (SW + 1) / 2;           // shift stages (2 mux levels each)
    localparam int HBEATS    = (HEAD_BYTES + KW - 1) / KW;  // output beats the head reaches
    localparam int HKW       = $clog2(HBEATS + 1);     // head beat index, HBEATS = "none"
    localparam int AW        = LEN_W - SW + 1;         // beat indices and slot counters
    localparam int BW        = LEN_W - SW;             // beat part of a byte position
    localparam int QW        = LEN_W + 1 - SW;         // q = floor(D / KW), signed
    localparam int FAW       = $clog2(FIFO_BEATS);
    localparam int DDEPTH    = 16;                     // descriptors held (plan and head FIFO)
    localparam int DAW       = 4;
    localparam int ODEPTH    = 32;                     // out FIFO: slots in flight + verdict wait
    localparam int OAW       = 5;
    localparam int VDEPTH    = 64;                     // verdicts of frames in the out FIFO
    localparam int VAW       = 6;
    localparam int WORDS     = KW / 2;                 // 16-bit words per beat (sum)
    localparam int TREE      = $clog2(WORDS);          // adder tree levels, one per stage
    localparam int SUMW      = 16 + TREE;              // one beat's sum
    localparam int IN_W      = DATA_W + KW + 2;        // {user, last, keep, data}
    localparam int HD_W      = HEAD_BYTES * 9;         // {head_en, head}

    // Stages of the sum / status pipeline after S1: 1 byte-mask flags, 2 masked words and n,
    // 3 .. 2+TREE adder tree, 3+TREE accumulator (frame total), 4+TREE fold, then the verdict
    // (into the verdict FIFO, and m_stat_* registered).

    // ------------------------------------------------------------------------------------
    // Types
    // ------------------------------------------------------------------------------------
    // Per-frame plan, derived from the descriptor as it is written into the plan FIFO.
    typedef struct packed {
        logic                     drop;
        logic [SW-1:0]            r;        // D mod KW
        logic                     virt;     // virtual slots before beat 0 (D < 0) ...
        logic                     vone;     // ... exactly one
        logic [AW-1:0]            vcnt;     // ... how many: -q
        logic                     pre;      // slots before output beat 0 (D >= KW) ...
        logic                     pone;     // ... exactly one
        logic [AW-1:0]            pcnt;     // ... how many: q
        logic [LEN_W-1:0]         out_len;
        logic                     rpos;     // out_len > 0
        logic                     rle;      // out_len <= KW
        logic                     sum_en;
        logic [BW-1:0]            sb;       // sum_start = sb * KW + so
        logic [SW-1:0]            so;
        logic [BW-1:0]            eb;       // sum_end = eb * KW + eo
        logic [SW-1:0]            eo;
        logic [LEN_W-1:0]         min_len;
        logic [META_W-1:0]        meta;
        logic signed [LEN_W:0]    shift;
    } plan_t;

    // What the sum and status stages need of the frame, carried with every slot.
    typedef struct packed {
        logic                     drop;
        logic                     sum_en;
        logic [BW-1:0]            sb;
        logic [SW-1:0]            so;
        logic [BW-1:0]            eb;
        logic [SW-1:0]            eo;
        logic [LEN_W-1:0]         min_len;
        logic [META_W-1:0]        meta;
        logic signed [LEN_W:0]    shift;
        logic [LEN_W-1:0]         out_len;
    } frame_t;

    // A slot's side band through the shift stages.
    typedef struct packed {
        logic                     valid;
        logic [SW-1:0]            r;
        logic                     out_ok;   // an output beat of the frame (k >= 0, not cut)
        logic                     len_last; // the output bytes left (out_len) end in it
        logic [SW:0]              rem;      // output bytes left, capped at KW
        logic [HKW-1:0]           hk;       // output beat index for the head, HBEATS = none
        logic                     in_last;  // A is the frame's last input beat
    } sh_t;

    // A slot's side band through the sum / status stages.
    typedef struct packed {
        logic                     valid;
        logic                     is_real;  // A is an input beat (not virtual)
        logic                     first;    // A is the frame's input beat 0
        logic                     in_last;
        logic                     user;     // s_axis_tuser of A
        logic [AW-1:0]            a_idx;    // A's beat index
        logic [SW:0]              a_cnt;    // bytes in A
        logic [LEN_W-1:0]         n;        // input length (valid on in_last, from stage 2)
        logic                     short_f;  // n < min_len (from stage 3)
        logic signed [LEN_W+1:0]  nd;       // n - D (from stage 3)
        logic                     emitted;  // L >= 1, not dropped (from stage 4)
        logic [LEN_W-1:0]         out_l;    // L (from stage 4)
        frame_t                   fr;
    } st_t;

    // ------------------------------------------------------------------------------------
    // Input delay FIFO: LUT RAM, read through the A register and S1 (registered read)
    // ------------------------------------------------------------------------------------
    logic [IN_W-1:0] in_mem [FIFO_BEATS];
    logic [FAW-1:0]  in_wr_q, in_rd_q;
    logic [FAW:0]    in_cnt_q;
    logic            in_ne_q;       // in_cnt_q != 0
    logic            in_ready_q;    // s_axis_tready
    logic            in_push, in_pop;
    logic [IN_W-1:0] in_head;

    assign in_push = s_axis_tvalid && in_ready_q;
    assign in_head = in_mem[in_rd_q];

    always_ff @(posedge clk) begin
        if (in_push) begin
            in_mem[in_wr_q] <= {s_axis_tuser, s_axis_tlast, s_axis_tkeep, s_axis_tdata};
        end
    end

    always_ff @(posedge clk) begin
        logic [FAW:0] cnt_d;
        cnt_d = in_cnt_q + (FAW+1)'(in_push) - (FAW+1)'(in_pop);
        in_cnt_q   <= cnt_d;
        in_ne_q    <= cnt_d != '0;
        // Room for a beat in the next cycle whatever is read then.
        in_ready_q <= cnt_d != (FAW+1)'(FIFO_BEATS);
        if (in_push) in_wr_q <= in_wr_q + 1'b1;
        if (in_pop)  in_rd_q <= in_rd_q + 1'b1;
        if (rst) begin
            in_cnt_q   <= '0;
            in_ne_q    <= 1'b0;
            in_ready_q <= 1'b0;
            in_wr_q    <= '0;
            in_rd_q    <= '0;
        end
    end

    assign s_axis_tready = in_ready_q;

    // ------------------------------------------------------------------------------------
    // Descriptor intake: plan FIFO (read by the issue stage) and head FIFO (read by the
    // overlay stage), written together; an entry is free once the head pointer has passed it
    // ------------------------------------------------------------------------------------
    plan_t           pl_mem [DDEPTH];
    logic [HD_W-1:0] hd_mem [DDEPTH];
    logic [DAW-1:0]  d_wr_q, pl_rd_q, hd_rd_q;
    logic [DAW:0]    d_cnt_q, pl_cnt_q;
    logic            pl_ne_q, d_ready_q;
    logic            d_push, pl_pop, hd_pop;
    plan_t           d_plan;

    assign d_push = s_desc_valid && d_ready_q;

    always_comb begin
        logic signed [QW-1:0] q;
        logic [QW-1:0]        negq;
        q    = QW'(s_desc_shift >>> SW);
        negq = -q;
        d_plan         = '0;
        d_plan.drop    = s_desc_drop;
        d_plan.r       = s_desc_shift[SW-1:0];
        // A dropped frame has no virtual slots: its slots are its beats.
        d_plan.virt    = q < 0 && !s_desc_drop;
        d_plan.vone    = q == -1;
        d_plan.vcnt    = AW'(negq);
        d_plan.pre     = q > 0;
        d_plan.pone    = q == 1;
        d_plan.pcnt    = AW'(q);
        d_plan.out_len = s_desc_out_len;
        d_plan.rpos    = s_desc_out_len != '0;
        d_plan.rle     = s_desc_out_len <= LEN_W'(KW);
        d_plan.sum_en  = s_desc_sum_en;
        d_plan.sb      = s_desc_sum_start[LEN_W-1:SW];
        d_plan.so      = s_desc_sum_start[SW-1:0];
        d_plan.eb      = s_desc_sum_end[LEN_W-1:SW];
        d_plan.eo      = s_desc_sum_end[SW-1:0];
        d_plan.min_len = s_desc_min_len;
        d_plan.meta    = s_desc_meta;
        d_plan.shift   = s_desc_shift;
    end

    always_ff @(posedge clk) begin
        if (d_push) begin
            pl_mem[d_wr_q] <= d_plan;
            hd_mem[d_wr_q] <= {s_desc_head_en, s_desc_head};
        end
    end

    always_ff @(posedge clk) begin
        logic [DAW:0] dc_d, pc_d;
        dc_d = d_cnt_q + (DAW+1)'(d_push) - (DAW+1)'(hd_pop);
        pc_d = pl_cnt_q + (DAW+1)'(d_push) - (DAW+1)'(pl_pop);
        d_cnt_q   <= dc_d;
        pl_cnt_q  <= pc_d;
        pl_ne_q   <= pc_d != '0;
        d_ready_q <= dc_d != (DAW+1)'(DDEPTH);
        if (d_push) d_wr_q  <= d_wr_q + 1'b1;
        if (pl_pop) pl_rd_q <= pl_rd_q + 1'b1;
        if (hd_pop) hd_rd_q <= hd_rd_q + 1'b1;
        if (rst) begin
            d_cnt_q   <= '0;
            pl_cnt_q  <= '0;
            pl_ne_q   <= 1'b0;
            d_ready_q <= 1'b0;
            d_wr_q    <= '0;
            pl_rd_q   <= '0;
            hd_rd_q   <= '0;
        end
    end

    assign s_desc_ready = d_ready_q;

    // ------------------------------------------------------------------------------------
    // Issue: the A register, the frame's plan in registers, one slot per cycle
    // ------------------------------------------------------------------------------------
    logic              a_valid_q;
    logic [DATA_W-1:0] a_data_q;
    logic [KW-1:0]     a_keep_q;
    logic              a_last_q, a_user_q;

    logic              p_valid_q;    // the plan registers hold the frame at A's
    // verilator lint_off UNUSEDSIGNAL
    // (its counter fields are loaded into the p_*_q counters instead)
    plan_t             p_q;          // counters below overwrite their fields' use
    // verilator lint_on UNUSEDSIGNAL
    logic              p_virt_q, p_vone_q;
    logic [AW-1:0]     p_vcnt_q;
    logic              p_pre_q, p_pone_q;
    logic [AW-1:0]     p_pcnt_q;
    logic [LEN_W-1:0]  p_rem_q;      // output bytes left
    logic              p_rpos_q, p_rle_q;
    logic [HKW-1:0]    p_hk_q;
    logic [AW-1:0]     p_aidx_q;     // index of the next real A
    logic              p_first_q;    // no real slot of the frame issued yet

    logic [OAW:0]      credit_q;     // out FIFO entries free and not reserved by a slot
    logic              cr_ok_q;      // credit_q != 0

    logic can_virt, can_real, issue, fr_end, load_plan;
    plan_t pl_head;
    assign pl_head = pl_mem[pl_rd_q];

    assign can_virt  = p_valid_q && p_virt_q && a_valid_q && cr_ok_q;
    assign can_real  = p_valid_q && !p_virt_q && a_valid_q && (a_last_q || in_ne_q) && cr_ok_q;
    assign issue     = can_virt || can_real;
    assign fr_end    = can_real && a_last_q;
    assign in_pop    = in_ne_q && (!a_valid_q || can_real);
    assign load_plan = pl_ne_q && (!p_valid_q || fr_end);
    assign pl_pop    = load_plan;

    // A register: the next input beat to be a slot's A.
    always_ff @(posedge clk) begin
        if (in_pop) begin
            {a_user_q, a_last_q, a_keep_q, a_data_q} <= in_head;
        end
        if (in_pop) begin
            a_valid_q <= 1'b1;
        end else if (can_real) begin
            a_valid_q <= 1'b0;
        end
        if (rst) begin
            a_valid_q <= 1'b0;
        end
    end

    // Plan registers and the slot counters.
    always_ff @(posedge clk) begin
        if (can_virt) begin
            p_vcnt_q <= p_vcnt_q - 1'b1;
            p_virt_q <= !p_vone_q;
            p_vone_q <= p_vcnt_q == AW'(2);
        end
        if (can_real) begin
            p_aidx_q  <= p_aidx_q + 1'b1;
            p_first_q <= 1'b0;
        end
        if (issue) begin
            if (p_pre_q) begin
                p_pcnt_q <= p_pcnt_q - 1'b1;
                p_pre_q  <= !p_pone_q;
                p_pone_q <= p_pcnt_q == AW'(2);
            end else if (p_rpos_q) begin
                p_rem_q  <= p_rem_q - LEN_W'(KW);
                p_rpos_q <= !p_rle_q;
                p_rle_q  <= p_rem_q <= LEN_W'(2 * KW);
                if (p_hk_q != HKW'(HBEATS)) p_hk_q <= p_hk_q + 1'b1;
            end
        end
        if (load_plan) begin
            p_q       <= pl_head;
            p_virt_q  <= pl_head.virt;
            p_vone_q  <= pl_head.vone;
            p_vcnt_q  <= pl_head.vcnt;
            p_pre_q   <= pl_head.pre;
            p_pone_q  <= pl_head.pone;
            p_pcnt_q  <= pl_head.pcnt;
            p_rem_q   <= pl_head.out_len;
            p_rpos_q  <= pl_head.rpos;
            p_rle_q   <= pl_head.rle;
            p_hk_q    <= '0;
            p_aidx_q  <= '0;
            p_first_q <= 1'b1;
        end
        if (load_plan) begin
            p_valid_q <= 1'b1;
        end else if (fr_end) begin
            p_valid_q <= 1'b0;
        end
        if (rst) begin
            p_valid_q <= 1'b0;
        end
    end

    // ------------------------------------------------------------------------------------
    // S1: the slot, registered (no enable: valid says whether it is one)
    // ------------------------------------------------------------------------------------
    logic [DATA_W-1:0] s1_a_data, s1_b_data;
    logic [KW-1:0]     s1_a_keep, s1_b_keep;
    sh_t               s1_sh;
    st_t               s1_st;

    always_ff @(posedge clk) begin
        if (p_virt_q) begin
            // Virtual A: zeros that exist; B is beat 0 for the last virtual slot.
            s1_a_data <= '0;
            s1_a_keep <= '1;
            s1_b_data <= p_vone_q ? a_data_q : '0;
            s1_b_keep <= p_vone_q ? a_keep_q : '1;
        end else begin
            s1_a_data <= a_data_q;
            s1_a_keep <= a_keep_q;
            s1_b_data <= in_head[DATA_W-1:0];
            s1_b_keep <= a_last_q ? '0 : in_head[DATA_W +: KW];
        end

        s1_sh.valid    <= issue;
        s1_sh.r        <= p_q.r;
        s1_sh.out_ok   <= !p_q.drop && !p_pre_q && p_rpos_q;
        s1_sh.len_last <= p_rle_q;
        s1_sh.rem      <= p_rle_q ? p_rem_q[SW:0] : (SW+1)'(KW);
        s1_sh.hk       <= p_hk_q;
        s1_sh.in_last  <= fr_end;

        s1_st            <= '0;
        s1_st.valid      <= issue;
        s1_st.is_real    <= can_real;
        s1_st.first      <= p_first_q;
        s1_st.in_last    <= fr_end;
        s1_st.user       <= a_user_q;
        s1_st.a_idx      <= p_aidx_q;
        s1_st.fr.drop    <= p_q.drop;
        s1_st.fr.sum_en  <= p_q.sum_en;
        s1_st.fr.sb      <= p_q.sb;
        s1_st.fr.so      <= p_q.so;
        s1_st.fr.eb      <= p_q.eb;
        s1_st.fr.eo      <= p_q.eo;
        s1_st.fr.min_len <= p_q.min_len;
        s1_st.fr.meta    <= p_q.meta;
        s1_st.fr.shift   <= p_q.shift;
        s1_st.fr.out_len <= p_q.out_len;

        if (rst) begin
            s1_sh.valid <= 1'b0;
            s1_st.valid <= 1'b0;
        end
    end

    // ------------------------------------------------------------------------------------
    // Shift stages: {B, A} >> 8r, two bits of r per stage, most significant first
    // ------------------------------------------------------------------------------------
    for (genvar t = 0; t < NSH; t++) begin : g_shift
        // This stage shifts by r[HI:LO] * 2**LO bytes.
        localparam int HI = SW - 1 - 2 * t;
        localparam int LO = (SW - 2 * (t + 1)) > 0 ? SW - 2 * (t + 1) : 0;

        logic [2*DATA_W-1:0] d_in, d_q;
        logic [2*KW-1:0]     k_in, k_q;
        sh_t                 s_in, s_q;
        logic [KW-1:0]       lm_in, lm_q;   // bytes inside out_len (from stage 0's output on)

        if (t == 0) begin : g_in
            assign d_in  = {s1_b_data, s1_a_data};
            assign k_in  = {s1_b_keep, s1_a_keep};
            assign s_in  = s1_sh;
            // bytes j < rem of the output beat are inside out_len
            always_comb for (int j = 0; j < KW; j++) lm_in[j] = (SW+1)'(j) < s1_sh.rem;
        end else begin : g_in
            assign d_in  = g_shift[t-1].d_q;
            assign k_in  = g_shift[t-1].k_q;
            assign s_in  = g_shift[t-1].s_q;
            assign lm_in = g_shift[t-1].lm_q;
        end

        // the bytes this stage shifts by: r[HI:LO] * 2**LO
        logic [HI:0] sa;
        assign sa = (HI+1)'(s_in.r[HI:LO]) << LO;

        always_ff @(posedge clk) begin
            d_q  <= d_in >> {sa, 3'b000};
            k_q  <= k_in >> sa;
            s_q  <= s_in;
            lm_q <= lm_in;
            if (rst) s_q.valid <= 1'b0;
        end
    end

    // The slot entering the last shift stage, and the result.
    // verilator lint_off UNUSEDSIGNAL
    // (the head read needs only the beat index and the frame's end)
    sh_t                 sh_pre;
    // verilator lint_on UNUSEDSIGNAL
    logic [2*DATA_W-1:0] sh_d;
    logic [2*KW-1:0]     sh_k;
    sh_t                 sh_s;
    logic [KW-1:0]       sh_lm;
    assign sh_pre = g_shift[NSH-1].s_in;
    assign sh_d   = g_shift[NSH-1].d_q;
    assign sh_k   = g_shift[NSH-1].k_q;
    assign sh_s   = g_shift[NSH-1].s_q;
    assign sh_lm  = g_shift[NSH-1].lm_q;

    // Head FIFO read for the slot entering the last shift stage (the bytes of its output
    // beat); the frame's descriptor is released as its last slot passes.
    logic [KW*8-1:0] hd_data_q;
    logic [KW-1:0]   hd_en_q;

    always_ff @(posedge clk) begin
        logic [HD_W-1:0]        hd;
        logic [HBEATS*KW*8-1:0] all_d;
        logic [HBEATS*KW-1:0]   all_e;
        hd    = hd_mem[hd_rd_q];
        all_d = (HBEATS*KW*8)'(hd[HEAD_BYTES*8-1:0]);
        all_e = (HBEATS*KW)'(hd[HD_W-1:HEAD_BYTES*8]);
        hd_data_q <= '0;
        hd_en_q   <= '0;
        for (int b = 0; b < HBEATS; b++) begin
            if (sh_pre.hk == HKW'(b)) begin
                hd_data_q <= all_d[b*KW*8 +: KW*8];
                hd_en_q   <= all_e[b*KW +: KW];
            end
        end
    end
    assign hd_pop = sh_pre.valid && sh_pre.in_last;

    // ------------------------------------------------------------------------------------
    // Overlay: head bytes, length mask, empty lanes zeroed; which beat is the last
    // ------------------------------------------------------------------------------------
    logic              ov_valid_q, ov_emit_q, ov_last_q, ov_in_last_q;
    logic [DATA_W-1:0] ov_data_q;
    logic [KW-1:0]     ov_keep_q;

    always_ff @(posedge clk) begin
        // verilator lint_off UNUSEDSIGNAL
        // (r and rem were used by the shift stages)
        sh_t           s;
        // verilator lint_on UNUSEDSIGNAL
        logic [KW-1:0] kout;
        s    = sh_s;
        kout = sh_k[KW-1:0] & sh_lm;
        ov_valid_q   <= s.valid;
        ov_emit_q    <= s.valid && s.out_ok && sh_k[0];
        // The output ends in this beat by length, or the next one has no byte.
        ov_last_q    <= s.len_last || !sh_k[KW];
        ov_in_last_q <= s.valid && s.in_last;
        ov_keep_q    <= kout;
        for (int j = 0; j < KW; j++) begin
            ov_data_q[8*j +: 8] <= !kout[j] ? 8'd0
                                 : hd_en_q[j] ? hd_data_q[8*j +: 8] : sh_d[8*j +: 8];
        end
        if (rst) begin
            ov_valid_q   <= 1'b0;
            ov_emit_q    <= 1'b0;
            ov_in_last_q <= 1'b0;
        end
    end

    // The last output beat is held until the slot of the frame's last input beat.
    logic              hold_valid_q;
    logic [DATA_W-1:0] hold_data_q;
    logic [KW-1:0]     hold_keep_q;
    logic              to_hold, release_hold, o_wr, o_wr_last;

    assign to_hold      = ov_emit_q && ov_last_q && !ov_in_last_q;
    assign release_hold = ov_in_last_q && hold_valid_q;
    assign o_wr         = (ov_emit_q && !to_hold) || release_hold;
    assign o_wr_last    = release_hold || (ov_emit_q && ov_last_q);

    always_ff @(posedge clk) begin
        if (to_hold) begin
            hold_data_q <= ov_data_q;
            hold_keep_q <= ov_keep_q;
        end
        if (to_hold) begin
            hold_valid_q <= 1'b1;
        end else if (release_hold) begin
            hold_valid_q <= 1'b0;
        end
        if (rst) begin
            hold_valid_q <= 1'b0;
        end
    end

    // ------------------------------------------------------------------------------------
    // Out FIFO (LUT RAM) and the output register
    // ------------------------------------------------------------------------------------
    localparam int OUT_W = 1 + KW + DATA_W;             // {last, keep, data}
    logic [OUT_W-1:0] o_mem [ODEPTH];
    logic [OAW-1:0]   o_wr_q, o_rd_q;
    logic [OAW:0]     o_cnt_q;
    logic             o_ne_q;
    logic [OUT_W-1:0] o_head;
    logic             o_go, o_load;

    // Verdicts of frames that emitted, in order.
    logic [VDEPTH-1:0] v_mem_q;
    logic [VAW-1:0]    v_wr_q, v_rd_q;
    logic [VAW:0]      v_cnt_q;
    logic              v_ne_q;
    logic              v_push, v_val, v_pop;

    logic              m_valid_q;

    always_ff @(posedge clk) begin
        if (o_wr) begin
            o_mem[o_wr_q] <= release_hold ? {1'b1, hold_keep_q, hold_data_q}
                                          : {o_wr_last, ov_keep_q, ov_data_q};
        end
    end
    assign o_head = o_mem[o_rd_q];

    // A last beat goes only with its verdict.
    assign o_go   = o_ne_q && (!o_head[OUT_W-1] || v_ne_q);
    assign o_load = o_go && (!m_valid_q || m_axis_tready);
    assign v_pop  = o_load && o_head[OUT_W-1];

    always_ff @(posedge clk) begin
        logic [OAW:0] oc_d, cr_d;
        logic [VAW:0] vc_d;
        oc_d = o_cnt_q + (OAW+1)'(o_wr) - (OAW+1)'(o_load);
        // A slot reserves an entry as it issues; it gives it back when it writes none.
        cr_d = credit_q - (OAW+1)'(issue) + (OAW+1)'(ov_valid_q && !o_wr)
             + (OAW+1)'(o_load);
        vc_d = v_cnt_q + (VAW+1)'(v_push) - (VAW+1)'(v_pop);
        o_cnt_q  <= oc_d;
        o_ne_q   <= oc_d != '0;
        credit_q <= cr_d;
        cr_ok_q  <= cr_d != '0;
        v_cnt_q  <= vc_d;
        v_ne_q   <= vc_d != '0;
        if (o_wr)   o_wr_q <= o_wr_q + 1'b1;
        if (o_load) o_rd_q <= o_rd_q + 1'b1;
        if (v_push) begin
            v_mem_q[v_wr_q] <= v_val;
            v_wr_q <= v_wr_q + 1'b1;
        end
        if (v_pop) v_rd_q <= v_rd_q + 1'b1;

        if (o_load) begin
            m_axis_tdata <= o_head[DATA_W-1:0];
            m_axis_tkeep <= o_head[DATA_W +: KW];
            m_axis_tlast <= o_head[OUT_W-1];
            m_axis_tuser <= o_head[OUT_W-1] && v_mem_q[v_rd_q];
        end
        if (o_load) begin
            m_valid_q <= 1'b1;
        end else if (m_axis_tready) begin
            m_valid_q <= 1'b0;
        end

        if (rst) begin
            o_cnt_q   <= '0;
            o_ne_q    <= 1'b0;
            credit_q  <= (OAW+1)'(ODEPTH);
            cr_ok_q   <= 1'b1;
            v_cnt_q   <= '0;
            v_ne_q    <= 1'b0;
            o_wr_q    <= '0;
            o_rd_q    <= '0;
            v_wr_q    <= '0;
            v_rd_q    <= '0;
            m_valid_q <= 1'b0;
        end
    end

    assign m_axis_tvalid = m_valid_q;

    // ------------------------------------------------------------------------------------
    // Sum and status pipeline (from S1, in parallel with the shift stages)
    // ------------------------------------------------------------------------------------
    // Stage 1: which bytes of A are in the sum region, as flags and thermometers; A's bytes.
    st_t               t1_st_q;
    logic [DATA_W-1:0] t1_data_q;
    logic [KW-1:0]     t1_keep_q;
    logic              t1_lo_gt_q, t1_lo_eq_q, t1_hi_lt_q, t1_hi_eq_q;
    logic [KW-1:0]     t1_ge_so_q, t1_lt_eo_q;

    always_ff @(posedge clk) begin
        logic [AW-1:0] sb, eb;
        sb = AW'(s1_st.fr.sb);
        eb = AW'(s1_st.fr.eb);
        t1_data_q  <= s1_a_data;
        t1_keep_q  <= s1_a_keep & {KW{s1_st.is_real && s1_st.fr.sum_en}};
        t1_lo_gt_q <= s1_st.a_idx > sb;
        t1_lo_eq_q <= s1_st.a_idx == sb;
        t1_hi_lt_q <= s1_st.a_idx < eb;
        t1_hi_eq_q <= s1_st.a_idx == eb;
        for (int b = 0; b < KW; b++) begin
            t1_ge_so_q[b] <= SW'(b) >= s1_st.fr.so;
            t1_lt_eo_q[b] <= SW'(b) <  s1_st.fr.eo;
        end
        t1_st_q       <= s1_st;
        t1_st_q.a_cnt <= (SW+1)'(stream_pkg::keep_bytes(64'(s1_a_keep)));
        if (rst) t1_st_q.valid <= 1'b0;
    end

    // Stage 2: masked 16-bit words (bytes 2m, 2m+1 big-endian); n on the last beat.
    st_t                 t2_st_q;
    logic [16*WORDS-1:0] t2_words_q;

    always_ff @(posedge clk) begin
        for (int m = 0; m < WORDS; m++) begin
            for (int h = 0; h < 2; h++) begin
                logic in_sum;
                in_sum = t1_keep_q[2*m+h]
                      && (t1_lo_gt_q || (t1_lo_eq_q && t1_ge_so_q[2*m+h]))
                      && (t1_hi_lt_q || (t1_hi_eq_q && t1_lt_eo_q[2*m+h]));
                t2_words_q[16*m + 8*(1-h) +: 8] <= in_sum ? t1_data_q[8*(2*m+h) +: 8] : 8'd0;
            end
        end
        t2_st_q   <= t1_st_q;
        t2_st_q.n <= LEN_W'({t1_st_q.a_idx, SW'(0)}) + LEN_W'(t1_st_q.a_cnt);
        if (rst) t2_st_q.valid <= 1'b0;
    end

    // Stages 3 .. 2+TREE: adder tree, one level per stage; the status fields on the way.
    for (genvar l = 1; l <= TREE; l++) begin : g_tree
        // verilator lint_off UNUSEDSIGNAL
        // (each level uses the lower half of the sums before it)
        logic [SUMW*WORDS-1:0] sum_in, sum_q;
        // verilator lint_on UNUSEDSIGNAL
        st_t                   st_in, st_q;

        if (l == 1) begin : g_in
            always_comb begin
                sum_in = '0;
                for (int m = 0; m < WORDS; m++) sum_in[SUMW*m +: SUMW] = SUMW'(t2_words_q[16*m +: 16]);
            end
            assign st_in = t2_st_q;
        end else begin : g_in
            assign sum_in = g_tree[l-1].sum_q;
            assign st_in  = g_tree[l-1].st_q;
        end

        always_ff @(posedge clk) begin
            sum_q <= '0;
            for (int m = 0; m < (WORDS >> l); m++) begin
                sum_q[SUMW*m +: SUMW] <= sum_in[SUMW*(2*m) +: SUMW] + sum_in[SUMW*(2*m+1) +: SUMW];
            end
            st_q <= st_in;
            if (l == 1) begin
                st_q.short_f <= st_in.n < st_in.fr.min_len;
                st_q.nd      <= (LEN_W+2)'(st_in.n) - (LEN_W+2)'(st_in.fr.shift);
            end
            if (l == 2) begin
                // L = min(out_len, n - D); nothing leaves when L < 1 or the frame is dropped
                st_q.emitted <= !st_in.fr.drop && st_in.fr.out_len != '0 && st_in.nd > 0;
                st_q.out_l   <= (st_in.nd < (LEN_W+2)'(st_in.fr.out_len))
                              ? LEN_W'(st_in.nd) : st_in.fr.out_len;
            end
            if (rst) st_q.valid <= 1'b0;
        end
    end

    // Accumulator: the frame's total over its input beats.
    st_t         tr_st;
    logic [31:0] acc_q, tot_q;
    st_t         acc_st_q;
    assign tr_st = g_tree[TREE].st_q;

    always_ff @(posedge clk) begin
        logic [31:0] acc_d;
        acc_d = (tr_st.first ? 32'd0 : acc_q) + 32'(g_tree[TREE].sum_q[SUMW-1:0]);
        if (tr_st.valid && tr_st.is_real) acc_q <= acc_d;
        tot_q    <= acc_d;
        acc_st_q <= tr_st;
        if (rst) acc_st_q.valid <= 1'b0;
    end

    // Fold once: the one's-complement sum is 0xFFFF exactly when this is 0xFFFF or 0x1FFFE.
    logic [16:0] fold_q;
    // verilator lint_off UNUSEDSIGNAL
    // (the sum fields were used before)
    st_t         fold_st_q;
    // verilator lint_on UNUSEDSIGNAL
    always_ff @(posedge clk) begin
        fold_q    <= 17'(tot_q[15:0]) + 17'(tot_q[31:16]);
        fold_st_q <= acc_st_q;
        if (rst) fold_st_q.valid <= 1'b0;
    end

    // Verdict and status.
    logic sum_bad;
    assign sum_bad = fold_st_q.fr.sum_en && fold_q != 17'h0FFFF && fold_q != 17'h1FFFE;

    always_ff @(posedge clk) begin
        m_stat_valid   <= fold_st_q.valid && fold_st_q.in_last;
        m_stat_meta    <= fold_st_q.fr.meta;
        m_stat_emitted <= fold_st_q.emitted;
        m_stat_rx_err  <= fold_st_q.user;
        m_stat_short   <= fold_st_q.short_f;
        m_stat_sum_bad <= sum_bad;
        m_stat_in_len  <= fold_st_q.n;
        m_stat_out_len <= fold_st_q.emitted ? fold_st_q.out_l : '0;
        if (rst) begin
            m_stat_valid <= 1'b0;
        end
    end

    assign v_push = fold_st_q.valid && fold_st_q.in_last && fold_st_q.emitted;
    assign v_val  = fold_st_q.user || fold_st_q.short_f || sum_bad;

endmodule

`default_nettype wire
