// SPDX-License-Identifier: Apache-2.0
//
// axis_edit: the pipelined edit engine (issue 27). One descriptor per frame says how the
// frame is rewritten; a frame of n input bytes leaves as L = min(out_len, n - D) bytes:
//
//     output byte i = head[i]             when i < HEAD_BYTES and head_en[i]
//                   = input byte i + D    otherwise (0 when i + D < 0: room inserted in front)
//
// or not at all (drop, or L < 1). Two checks are only known at the frame's end (the input
// shorter than min_len, a one's-complement sum of sum_seed and the bytes [sum_start,
// min(sum_end, n)) that is not 0xFFFF: the seed carries what is not in the frame, e.g. a UDP
// pseudo-header) and a MAC RX error (s_axis_tuser) only on the last beat: the last output beat waits
// for the last input beat and carries the verdict in m_axis_tuser (aborted). One status event
// per input frame reports what happened.
//
// The old engine (axis_splice) decides every output beat combinationally from the buffer and
// the descriptor; here the decision is split from the data:
//
//   s_axis -> delay FIFO (LUT RAM, read ports A, B) --+
//   s_desc -> plan FIFO (LUT RAM) -> plan regs -------+-> issue -> S0 -> S1 -> shift x NSH ->
//             head FIFO (LUT RAM) -------------------------------------> overlay -+
//                                    S1 (masked words) -> adder tree -> verdict -+-> out FIFO
//                                                                                    -> m_axis
//
// * Issue: one slot per cycle. A slot is the pair (A = input beat a, B = input beat a + 1):
//   output beat k = a - q (q = floor(D / KW)) is bytes r .. r + KW - 1 (r = D mod KW) of {B, A}
//   (the two-beat look-ahead). Each input beat is A of exactly one slot, so a frame takes one
//   cycle per input beat; for D < 0 the -q slots before beat 0 take A (and B) as zeros
//   ("virtual" beats), so a frame with room inserted takes -q cycles more. Slots with k < 0
//   (D >= KW) and after the output's end only feed the sum. The plan (counters of pre and
//   virtual slots, the output bytes left, r, A's place in the sum region) is held in
//   registers, loaded from the plan FIFO as the previous frame's last slot issues, so frames
//   follow back to back.
// * Shift: {B, A} shifted right by r bytes in NSH = ceil(log2(KW) / 2) registered stages of two
//   2:1 multiplexer levels each, tkeep lanes with the data: lane KW of the shifted keep says
//   whether the next output beat has a byte.
// * Overlay: head bytes of output beat k (read from the head FIFO by its own pointer), the
//   length mask (out_len), empty lanes zeroed; the last output beat of a frame is found here.
//   Its data goes into the out FIFO's next entry as it passes, but the entry (tlast, tuser
//   with the verdict) is completed only in the slot of the frame's last input beat (the out
//   FIFO write never needs two beats in one cycle).
// * Sum and status: S1 holds A's bytes inside the sum region as 16-bit words (masked by
//   where A is against the region's start and end beats, which the plan tracks); an adder
//   tree of two levels a stage, the frame's accumulator and one fold give the verdict
//   VS = ceil(log2(KW / 2) / 2) + 2 stages after S1, with the status fields (n, short, L)
//   computed on the way. Where that is later than the overlay (128 and 512 bits) the data
//   waits one register more (EXTRA).
//
// Backpressure: no stage stalls. The out FIFO (ODEPTH entries) gives the issue stage credits:
// a slot issues only with a free entry reserved for it, so m_axis_tready reaches only the
// output register and the out FIFO's read pointer and count (the credit counter a cycle
// later, from a register). s_axis_tready and
// s_desc_ready are registers (their FIFOs' fill levels); no path from m_axis_tready to them.
//
// Latency (s_axis beat 0 and its descriptor present in cycle 0, nothing stalled, D < KW):
// output beat 0 is taken in cycle LATENCY = 8 + NSH + EXTRA: 10 at DATA_W 64, 11 at 128 and
// 256, 12 at 512 (input register 1, FIFO write 1, beat 1 written 1, S0 1, S1 1, shift NSH,
// overlay 1 + EXTRA, out FIFO 1, output register 1). Output beat 0 reads input beats q and
// q + 1: floor(D / KW) cycles more for D >= KW; a descriptor later than its frame's first
// beat delays it by as much (plus one: it is registered too). The last output beat is taken
// LATENCY cycles after the frame's last input beat (verdict included; one cycle less for a
// frame of one input beat, which needs no B).
//
// Throughput: with m_axis_tready = 1 and descriptors ahead of the frames, a frame takes one
// issue cycle per input beat plus ceil(-D / KW) when D < 0, and frames follow with no gap:
// s_axis_tready stays high whenever every frame has D >= 0 (its output has no more beats than
// its input). Dropped frames: one cycle per input beat.
// FOLD_LAST: a frame (not dropped, no sum check) whose output ends by out_len in the slot
// whose B is its last input beat ends in that slot: that beat is popped in the next cycle
// beside the next frame's first slot if it is a virtual slot that reads no beat (else that
// slot waits a cycle). With D < 0 and -q >= 2 such a frame takes exactly its output beats;
// its last output beat is written in that slot, with the verdict (the input is all in).
//
// Status: m_stat_sum_bad is reported for dropped frames too (computed alike); m_stat_emitted
// and m_stat_out_len say what the frame's output is (L >= 1 and not dropped: L bytes); the
// event comes as the frame's last output beat is written into the out FIFO (LATENCY - 2
// cycles after the last input beat), before m_axis has taken it when the output is stalled
// (the beats are committed: they leave as m_axis_tready allows).

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
    parameter int FIFO_BEATS = 32,
    // 1: a frame whose output ends (by out_len) in the slot whose look-ahead beat B is its last
    // input beat ends in that slot ("folded"): B is popped in the next cycle, beside a virtual
    // slot of the next frame that reads no beat (a real or a last virtual slot waits a cycle).
    // A frame with room inserted in front (D < 0) then takes no slot without output. Frames
    // dropped or with the sum check are never folded. 0: every input beat is A of one slot.
    parameter bit FOLD_LAST  = 1'b0,
    // Copies of s_desc_ready (identical values), each from a flip-flop of its own: a
    // descriptor FIFO with a wide output register takes one per slice (sync_fifo READY_N)
    parameter int DESC_READY_N = 1,
    // Register stages between s_axis_tready and the beats it lets in (0 or 1). 0: AXI4-Stream
    // (a beat moves when tvalid and tready are both 1). 1: tready is a credit a cycle ahead:
    // a beat offered while tready was 1 in the cycle before is taken whatever tready is now
    // (the FIFO keeps room for one more beat), so the stage in front needs no load enable.
    parameter int IN_SLACK = 0
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
    output      logic [DESC_READY_N-1:0]  s_desc_ready,
    input  wire logic                     s_desc_drop,
    input  wire logic signed [LEN_W:0]    s_desc_shift,
    input  wire logic [HEAD_BYTES*8-1:0]  s_desc_head,
    input  wire logic [HEAD_BYTES-1:0]    s_desc_head_en,
    input  wire logic [LEN_W-1:0]         s_desc_out_len,
    input  wire logic [LEN_W-1:0]         s_desc_min_len,
    input  wire logic                     s_desc_sum_en,
    input  wire logic [LEN_W-1:0]         s_desc_sum_start,
    input  wire logic [LEN_W-1:0]         s_desc_sum_end,
    input  wire logic [15:0]              s_desc_sum_seed,
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
    if (DESC_READY_N < 1) begin : g_err_desc_ready_n
        $error("axis_edit: DESC_READY_N (%0d) must be at least 1", DESC_READY_N);
    end
    if (IN_SLACK < 0 || IN_SLACK > 1) begin : g_err_in_slack
        $error("axis_edit: IN_SLACK (%0d) must be 0 or 1", IN_SLACK);
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
    localparam int QW        = LEN_W + 1 - SW;         // q = floor(D / KW), signed
    localparam int FAW       = $clog2(FIFO_BEATS);
    localparam int DDEPTH    = 16;                     // descriptors held (plan and head FIFO)
    localparam int DAW       = 4;
    localparam int ODEPTH    = 16;                     // out FIFO: covers the slots in flight
    localparam int OAW       = 4;
    localparam int WORDS     = KW / 2;                 // 16-bit words per beat (sum)
    localparam int TREE      = $clog2(WORDS);          // adder tree levels ...
    localparam int TS        = (TREE + 1) / 2;         // ... two per stage
    localparam int SUMW      = 16 + TREE;              // one beat's sum
    localparam int IN_W      = DATA_W + KW + 2;        // {user, last, keep, data}
    localparam int A_W       = DATA_W + KW + 1;        // {user, keep, data}: the FIFO's word
    localparam int HD_W      = HEAD_BYTES * 9;         // {head_en, head}
    // Stages after S1: the data is in the overlay register at NSH + 1; the verdict (the
    // frame's sum folded) at VS = TS + 2 (tree, accumulator, fold). The last output beat is
    // written with its verdict: the data waits EXTRA stages more when the sum is longer.
    localparam int VS        = TS + 2;
    localparam int EXTRA     = (VS > NSH + 1) ? VS - NSH - 1 : 0;
    localparam int VDELAY    = (NSH + 1 > VS) ? NSH + 1 - VS : 0;
    // The status fields are complete 4 stages after S1 (byte count, n, short, L).
    localparam int STS       = (VS > 4) ? VS : 4;

    // ------------------------------------------------------------------------------------
    // Types
    // ------------------------------------------------------------------------------------
    // Per-frame plan, derived from the descriptor as it is written into the plan FIFO.
    typedef struct packed {
        logic                     drop;
        logic                     fold;     // may end in the slot whose B is its last beat
        logic                     fok;      // ... and its first slot may (fold, !pre, rpos, rle)
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
        logic [AW-1:0]            ds;       // start beat (sum_start / KW)
        logic [AW-1:0]            de;       // end beat (sum_end / KW)
        logic                     lo_eq;    // beat 0 is the start beat (sum_en)
        logic                     hi_lt;    // beat 0 is before the end beat (sum_en)
        logic                     hi_eq;    // beat 0 is the end beat (sum_en)
        logic [SW-1:0]            so;       // sum_start's byte in its beat
        logic [SW-1:0]            eo;       // sum_end's byte in its beat
        logic [LEN_W-1:0]         min_len;
        logic [15:0]              seed;     // the sum's start value
        logic [META_W-1:0]        meta;
        logic signed [LEN_W:0]    shift;
    } plan_t;

    // What the status stages need of the frame, carried with every slot.
    typedef struct packed {
        logic                     drop;
        logic                     sum_en;
        logic [LEN_W-1:0]         min_len;
        logic [15:0]              seed;
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
        logic [SW:0]              a_cnt;    // bytes in A (from stage 1)
        logic [LEN_W-1:0]         n;        // input length (on in_last, from stage 2)
        logic                     short_f;  // n < min_len (from stage 3)
        logic signed [LEN_W+1:0]  nd;       // n - D (from stage 3)
        logic                     emitted;  // L >= 1, not dropped (from stage 4)
        logic [LEN_W-1:0]         out_l;    // L (from stage 4)
        logic                     sum_bad;  // (from stage VS + 1)
        frame_t                   fr;
    } st_t;

    // ------------------------------------------------------------------------------------
    // Input delay FIFO: LUT RAM with two read ports, A (the head) and B (the entry after it),
    // read into S0. The issue decision moves only the read pointers; the head's tlast, which
    // the decision needs, is kept in a register (from a copy of the tlast bits in flip-flops).
    // A beat is registered before it is written, and the LUT RAM's write enables are
    // registers too.
    // ------------------------------------------------------------------------------------
    // LUT RAM, not block RAM: a block RAM's read (its output register merged in) is 4 ns of
    // the cycle before S1's logic on ECP5.
    // The memory is cut into groups of 8 bytes (with their keep bits; tuser in group 0) and
    // each group into banks of IBD entries (one LUT RAM cell deep). Every group has its own
    // copies of the read and write pointers and of the banks' write enables: no register
    // reaches more than one group's cells (one register for all would fan out to cells across
    // the chip at 512 bits).
    localparam int IBD = (FIFO_BEATS < 16) ? FIFO_BEATS : 16;
    localparam int INB = FIFO_BEATS / IBD;
    localparam int IBW = $clog2(IBD);
    localparam int NG  = KW / 8;
    logic [FIFO_BEATS-1:0] in_last_q;      // tlast of each entry
    logic [FAW-1:0]        in_wr_q, in_rd2_q;
    logic [FAW:0]          in_cnt_q;
    // The count compared with 1, 2 and > 2, kept in registers beside it (from its next value)
    // so that the flags and B's tlast below select from registers only
    logic                  cnt_eq1_q, cnt_eq2_q, cnt_gt2_q;
    logic                  in_ne_q;        // the FIFO holds A ...
    logic                  in_ne2_q;       // ... and B
    logic                  a_last_q;       // A is a frame's last beat
    logic                  b_last_q;       // so is B (kept so that A's next value is a
                                           // register, not a read of in_last_q)
    logic                  in_ready_q;     // s_axis_tready
    // The tlast of the entry after B (in_last_q[in_rd2_q]) from registers: the bits of the two
    // entries at in_rd2_q and in_rd2_q + 1 read a cycle early, beside in_last_q, with the
    // beat written in that cycle and the pop that moved the pointer; the one wide select stays
    // beside the bits, so b_last_q's logic (beside the issue stage) starts from registers.
    logic [FAW-1:0]        in_rd3_q;       // in_rd2_q + 1
    logic                  la0_q, la1_q;   // in_last_q[in_rd2_q], [in_rd3_q], a cycle ago
    logic                  lw0_q, lw1_q;   // ... the beat written then went there
    logic                  lw_last_q;      // ... its tlast
    logic                  lpop_q;         // ... and the pointer moved
    logic                  rd2_last;       // in_last_q[in_rd2_q] now
    logic                  in_push, in_pop;
    logic                  nx_in_ne, nx_in_ne2, nx_a_last;   // their next values (issue stage)
    logic                  in_we_q;        // a beat taken in the last cycle: written now
    logic [IN_W-1:0]       in_din_q;       // that beat
    logic [A_W-1:0]        a_beat;
    logic [DATA_W+KW-1:0]  b_beat;
    logic                  b_user;         // B's tuser (a folded frame's last beat)

    // (IN_SLACK: the beat was let in by the credit of the cycle before)
    assign in_push = s_axis_tvalid && (IN_SLACK != 0 || in_ready_q);

    for (genvar g = 0; g < NG; g++) begin : g_in
        localparam int GW = 72 + ((g == 0) ? 1 : 0);   // {user (group 0), keep, data}
        logic [GW-1:0]  din;
        logic [FAW-1:0] pp_q;              // where the next beat taken goes
        logic [IBW-1:0] wa_q;              // where the beat taken in the last cycle goes ...
        logic [INB-1:0] bwe_q;             // ... in which bank
        logic [FAW-1:0] ra_q, rb_q;        // A and B
        logic [GW-1:0]  ra_w [INB];
        logic [GW-1:0]  rb_w [INB];
        logic [GW-1:0]  a_w;
        logic [GW-1:0]  b_w;

        if (g == 0) begin : g_din
            assign din = {in_din_q[IN_W-1], in_din_q[DATA_W +: 8], in_din_q[63:0]};
            assign a_beat[A_W-1] = a_w[72];
            assign b_user        = b_w[72];
        end else begin : g_din
            assign din = {in_din_q[DATA_W + 8*g +: 8], in_din_q[64*g +: 64]};
        end
        assign a_beat[64*g +: 64]          = a_w[63:0];
        assign a_beat[DATA_W + 8*g +: 8]   = a_w[71:64];
        assign b_beat[64*g +: 64]          = b_w[63:0];
        assign b_beat[DATA_W + 8*g +: 8]   = b_w[71:64];

        for (genvar k = 0; k < INB; k++) begin : g_bank
            (* ram_style = "distributed" *)
            logic [GW-1:0] mem [IBD];
            always_ff @(posedge clk) begin
                if (bwe_q[k]) mem[wa_q] <= din;
            end
            assign ra_w[k] = mem[ra_q[IBW-1:0]];
            assign rb_w[k] = mem[rb_q[IBW-1:0]];
        end
        if (INB > 1) begin : g_sel
            assign a_w = ra_w[ra_q[FAW-1:IBW]];
            assign b_w = rb_w[rb_q[FAW-1:IBW]];
        end else begin : g_sel
            assign a_w = ra_w[0];
            assign b_w = rb_w[0];
        end

        always_ff @(posedge clk) begin
            wa_q <= pp_q[IBW-1:0];
            for (int k = 0; k < INB; k++) begin
                bwe_q[k] <= in_push && int'(pp_q) / IBD == k;
            end
            if (in_push) pp_q <= pp_q + 1'b1;
            if (in_pop) begin
                ra_q <= ra_q + 1'b1;
                rb_q <= rb_q + 1'b1;
            end
            if (rst) begin
                bwe_q <= '0;
                pp_q  <= '0;
                ra_q  <= '0;
                rb_q  <= FAW'(1);
            end
        end
    end

    // Kept (as the users' own registers of the same signals are, e.g. the header front end's
    // input register): synthesis merges identical flip-flops unless both are kept, and one
    // flip-flop would then drive both ends of the die.
    (* keep *) always_ff @(posedge clk) begin
        in_din_q <= {s_axis_tuser, s_axis_tlast, s_axis_tkeep, s_axis_tdata};
    end

    always_ff @(posedge clk) begin
        in_we_q  <= in_push;
        if (rst) begin
            in_we_q <= 1'b0;
        end
    end

    always_ff @(posedge clk) begin
        if (in_we_q) in_last_q[in_wr_q] <= in_din_q[IN_W-2];
        in_cnt_q   <= in_cnt_q + (FAW+1)'(in_we_q) - (FAW+1)'(in_pop);
        if (in_we_q && !in_pop) begin
            cnt_eq1_q <= in_cnt_q == '0;
            cnt_eq2_q <= in_cnt_q == (FAW+1)'(1);
            cnt_gt2_q <= in_cnt_q >  (FAW+1)'(1);
        end else if (in_pop && !in_we_q) begin
            cnt_eq1_q <= in_cnt_q == (FAW+1)'(2);
            cnt_eq2_q <= in_cnt_q == (FAW+1)'(3);
            cnt_gt2_q <= in_cnt_q >  (FAW+1)'(3);
        end
        // (next-state flags: see the issue stage's lookahead, nx_*)
        in_ne_q    <= nx_in_ne;
        in_ne2_q   <= nx_in_ne2;
        a_last_q   <= nx_a_last;
        la0_q     <= in_last_q[in_rd2_q];
        la1_q     <= in_last_q[in_rd3_q];
        lw0_q     <= in_we_q && in_wr_q == in_rd2_q;
        lw1_q     <= in_we_q && in_wr_q == in_rd3_q;
        lw_last_q <= in_din_q[IN_W-2];
        lpop_q    <= in_pop;
        // B's tlast: the entry after B on a pop, or the beat written now into B's place
        if (in_pop) begin
            if (cnt_gt2_q) b_last_q <= rd2_last;
            else                        b_last_q <= in_din_q[IN_W-2];
        end else if (!in_ne2_q) begin
            b_last_q <= in_din_q[IN_W-2];
        end
        // Ready leaves room for the beat being written, this cycle's beat and the next one's
        // (and IN_SLACK more in flight).
        in_ready_q <= in_cnt_q < (FAW+1)'(FIFO_BEATS - 2 - IN_SLACK);
        if (in_we_q) in_wr_q <= in_wr_q + 1'b1;
        if (in_pop) begin
            in_rd2_q <= in_rd2_q + 1'b1;
            in_rd3_q <= in_rd3_q + 1'b1;
        end
        if (rst) begin
            in_cnt_q   <= '0;
            cnt_eq1_q  <= 1'b0;
            cnt_eq2_q  <= 1'b0;
            cnt_gt2_q  <= 1'b0;
            in_ne_q    <= 1'b0;
            in_ne2_q   <= 1'b0;
            in_ready_q <= 1'b0;
            in_wr_q    <= '0;
            in_rd2_q   <= FAW'(2);
            in_rd3_q   <= FAW'(3);
            lpop_q     <= 1'b0;
            lw0_q      <= 1'b0;
            lw1_q      <= 1'b0;
        end
    end

    // in_last_q[in_rd2_q] as it is now: the pointer a cycle ago (+1 if it moved), the bit
    // written in that cycle if it went there
    assign rd2_last = lpop_q ? (lw1_q ? lw_last_q : la1_q) : (lw0_q ? lw_last_q : la0_q);

    assign s_axis_tready = in_ready_q;

    // ------------------------------------------------------------------------------------
    // Descriptor intake: plan FIFO (read by the issue stage) and head FIFO (read by the
    // overlay stage), written together; an entry is free once the head pointer has passed it
    // ------------------------------------------------------------------------------------
    (* ram_style = "distributed" *)
    plan_t           pl_mem [DDEPTH];
    (* ram_style = "distributed" *)
    logic [HD_W-1:0] hd_mem [DDEPTH];
    logic [DAW-1:0]  d_wr_q, pl_rd_q, pl_rd1_q, hd_rd_q;
    // The virt flag of every entry in flip-flops, and of the head entry in a register, so
    // that the issue decision does not wait for a LUT RAM read (as for tlast).
    logic [DDEPTH-1:0] pl_virt_q;
    logic            hd_virt_q;
    // (and the vone flag: after a folded frame the next one's first slot may not read a beat)
    logic [DDEPTH-1:0] pl_vone_q;
    logic            hd_vone_q;
    logic [DAW:0]    d_cnt_q, pl_cnt_q;
    logic            pl_ne_q, d_ready_q;
    logic            d_push, pl_pop, hd_pop;
    plan_t           d_plan;
    // The descriptor is registered (with its plan derived) before it is written, as the
    // input beats are: write enables from a register.
    logic            d_we_q;
    plan_t           d_plan_q;
    logic [HD_W-1:0] d_head_q;

    assign d_push = s_desc_valid && d_ready_q;
    // Room for a descriptor more (the count lags d_push by the cycle of d_ready_q itself).
    wire d_room = d_cnt_q < (DAW+1)'(DDEPTH - 1);

    always_comb begin
        logic signed [QW-1:0] q;
        logic [QW-1:0]        negq;
        logic [AW-1:0]        sb, eb;
        q    = QW'(s_desc_shift >>> SW);
        negq = -q;
        sb   = AW'(s_desc_sum_start[LEN_W-1:SW]);
        eb   = AW'(s_desc_sum_end[LEN_W-1:SW]);
        d_plan         = '0;
        d_plan.drop    = s_desc_drop;
        d_plan.fold    = FOLD_LAST && !s_desc_drop && !s_desc_sum_en;
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
        d_plan.fok     = d_plan.fold && !d_plan.pre && d_plan.rpos && d_plan.rle;
        d_plan.sum_en  = s_desc_sum_en;
        d_plan.ds      = sb;
        d_plan.de      = eb;
        d_plan.lo_eq   = s_desc_sum_en && sb == '0;
        d_plan.hi_lt   = s_desc_sum_en && eb != '0;
        d_plan.hi_eq   = s_desc_sum_en && eb == '0;
        d_plan.so      = s_desc_sum_start[SW-1:0];
        d_plan.eo      = s_desc_sum_end[SW-1:0];
        d_plan.min_len = s_desc_min_len;
        d_plan.seed    = s_desc_sum_seed;
        d_plan.meta    = s_desc_meta;
        d_plan.shift   = s_desc_shift;
    end

    // Kept: the descriptor's producer may register the same handshake (see in_din_q).
    (* keep *) always_ff @(posedge clk) begin
        d_we_q <= d_push;
        if (rst) d_we_q <= 1'b0;
    end

    always_ff @(posedge clk) begin
        d_plan_q <= d_plan;
        d_head_q <= {s_desc_head_en, s_desc_head};
        if (d_we_q) begin
            pl_mem[d_wr_q] <= d_plan_q;
            hd_mem[d_wr_q] <= d_head_q;
        end
    end

    // The counts' next values are selected by the late handshakes from both steps, made from
    // the registers alone: no carry chain behind the issue decision (pl_pop).
    function automatic logic [DAW:0] count_next(input logic [DAW:0] c, input logic up,
                                                input logic down);
        unique case ({up, down})
            2'b10:   count_next = c + 1'b1;
            2'b01:   count_next = c - 1'b1;
            default: count_next = c;
        endcase
    endfunction

    always_ff @(posedge clk) begin
        // d_cnt counts descriptors taken, pl_cnt those written (readable by the issue).
        d_cnt_q   <= count_next(d_cnt_q, d_push, hd_pop);
        pl_cnt_q  <= count_next(pl_cnt_q, d_we_q, pl_pop);
        pl_ne_q   <= d_we_q || pl_cnt_q > (DAW+1)'(1) || (pl_cnt_q == (DAW+1)'(1) && !pl_pop);
        d_ready_q <= d_room;
        if (d_we_q) d_wr_q  <= d_wr_q + 1'b1;
        if (d_we_q) pl_virt_q[d_wr_q] <= d_plan_q.virt;
        if (d_we_q) pl_vone_q[d_wr_q] <= d_plan_q.vone;
        // the next head: the entry after it, or the descriptor written now
        if (pl_pop) begin
            pl_rd_q  <= pl_rd_q + 1'b1;
            pl_rd1_q <= pl_rd1_q + 1'b1;
            hd_virt_q <= (pl_cnt_q > (DAW+1)'(1)) ? pl_virt_q[pl_rd1_q] : d_plan_q.virt;
            hd_vone_q <= (pl_cnt_q > (DAW+1)'(1)) ? pl_vone_q[pl_rd1_q] : d_plan_q.vone;
        end else if (!pl_ne_q) begin
            hd_virt_q <= d_plan_q.virt;
            hd_vone_q <= d_plan_q.vone;
        end
        if (hd_pop) hd_rd_q <= hd_rd_q + 1'b1;
        if (rst) begin
            d_cnt_q   <= '0;
            pl_cnt_q  <= '0;
            pl_ne_q   <= 1'b0;
            d_ready_q <= 1'b0;
            d_wr_q    <= '0;
            pl_rd_q   <= '0;
            pl_rd1_q  <= DAW'(1);
            hd_rd_q   <= '0;
        end
    end

    // s_desc_ready: copies of d_ready_q, a register each, one always_ff per copy (kept).
    for (genvar c = 0; c < DESC_READY_N; c++) begin : g_desc_ready
        (* keep *) always_ff @(posedge clk) begin
            s_desc_ready[c] <= d_room;
            if (rst) s_desc_ready[c] <= 1'b0;
        end
    end

    // ------------------------------------------------------------------------------------
    // Issue: the frame's plan in registers, one slot per cycle
    // ------------------------------------------------------------------------------------
    logic              p_valid_q;    // the plan registers hold the frame at A's
    // The frame's constant fields are read from the plan FIFO at pc_q (its entry stays until
    // the frame's last slot has passed the head read), so the plan load enables only the
    // counters below and the few fields compared before a register.
    logic [DAW-1:0]    pc_q;
    // verilator lint_off UNUSEDSIGNAL
    // (its counter fields are loaded into the p_*_q counters instead)
    plan_t             p_q;
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
    logic              p_fold_q;     // the frame may fold (FOLD_LAST)
    // p_fold_q && !p_pre_q && p_rpos_q && p_rle_q (the slot's output ends by out_len), kept
    // from the next values of its terms: the frame's end (fr_end, load_plan, pl_pop, whose
    // enables reach the plan FIFO's side) is then one LUT level fewer from registers
    logic              p_fok_q;
    // A's place in the sum region: beats to the start and end beat, where A is against them,
    // and so S1 knows which of its bytes are in the sum (with sum_start and sum_end mod KW)
    logic [AW-1:0]     p_ds_q, p_de_q;
    logic              p_lo_gt_q, p_lo_eq_q, p_hi_lt_q, p_hi_eq_q;
    // The fields compared before a register (S0's byte masks, lo_eq) in registers too: a
    // compare behind the LUT RAM read at pc_q is too long at 512 bits
    logic [SW-1:0]     p_so_q, p_eo_q;
    logic              p_sum_en_q;

    logic [OAW:0]      credit_q;     // out FIFO entries free and not reserved by a slot

    logic can_virt, can_real, issue, fr_end, load_plan;
    // A real slot that ends its frame with B (FOLD_LAST); B is popped in the next cycle (skip_q)
    logic fold, skip_q;
    // verilator lint_off UNUSEDSIGNAL
    // (the next frame's counters only; its constant fields are read at pc_q)
    plan_t pl_head;
    // verilator lint_on UNUSEDSIGNAL
    assign pl_head = pl_mem[pl_rd_q];
    assign p_q     = pl_mem[pc_q];

    // The decision whether a slot issues in a cycle is made in the cycle before, from the
    // next state of what it depends on, and registered (can_real_q, can_virt_q): the enables
    // it drives (read pointers, slot counters, plan load) start at a register. It is the
    // same decision as from the registered state (a real slot needs A, and B unless A is a
    // frame's last beat; a virtual slot waits for beat 0 too, the last one's B; both a
    // credit), cycle for cycle.
    logic nx_p_valid, nx_p_virt, nx_cr_ok, nx_can_real;
    logic can_real_q, can_virt_q;
    // A copy of can_real_q for the plan FIFO's side (its read pointers and count): the plan
    // load's enables reach across the engine, and one register driving both sides is far
    // from one of them.
    logic can_real_pl_q;
    logic fold_ok;      // the slot would fold if it is a real one

    always_comb begin
        logic c1, c2, c3;   // the registered count is 1, 2, 3 or more
        c1 = cnt_eq1_q;
        c2 = cnt_eq2_q;
        c3 = cnt_gt2_q;
        // FIFO flags from the registered count, not from the count's next value
        nx_in_ne   = in_we_q || c2 || c3 || (c1 && !in_pop);
        nx_in_ne2  = c3 || (c2 && (in_we_q || !in_pop)) || (c1 && in_we_q && !in_pop);
        // the next head's tlast: the entry after A, or the beat written now
        if (in_pop)
            nx_a_last = in_ne2_q ? b_last_q : in_din_q[IN_W-2];
        else if (!in_ne_q)
            nx_a_last = in_din_q[IN_W-2];
        else
            nx_a_last = a_last_q;
        nx_p_valid = load_plan || (p_valid_q && !fr_end);
        nx_p_virt  = load_plan ? hd_virt_q : can_virt ? !p_vone_q : p_virt_q;
        // one issue a cycle: two credits now leave one for the next cycle
        nx_cr_ok   = credit_q > (OAW+1)'(1);
        nx_can_real = nx_p_valid && !nx_p_virt && nx_in_ne && (nx_a_last || nx_in_ne2) && nx_cr_ok
                      && !fold;
    end

    (* keep *) always_ff @(posedge clk) begin
        can_real_pl_q <= nx_can_real;
        if (rst) can_real_pl_q <= 1'b0;
    end

`ifndef SYNTHESIS
    always_ff @(posedge clk) begin
        if (!rst && can_real_pl_q != can_real_q) $error("axis_edit: can_real's copies differ");
        if (!rst && p_valid_q && p_fok_q != (p_fold_q && !p_pre_q && p_rpos_q && p_rle_q))
            $error("axis_edit: p_fok_q differs from its terms");
    end
`endif

    always_ff @(posedge clk) begin
        // After a fold the FIFO's head is the folded frame's last beat, popped in the next
        // cycle: only a virtual slot that reads no beat issues then, with the next frame's
        // beat 0 behind that head.
        can_real_q <= nx_can_real;
        can_virt_q <= nx_p_valid && nx_p_virt && (fold ? nx_in_ne2 && !hd_vone_q : nx_in_ne)
                      && nx_cr_ok;
        skip_q     <= fold;
        if (rst) begin
            can_real_q <= 1'b0;
            can_virt_q <= 1'b0;
            skip_q     <= 1'b0;
        end
    end

    assign can_virt  = can_virt_q;
    assign can_real  = can_real_q;
    assign issue     = can_virt || can_real;
    // The slot's output ends by out_len and B is the frame's last beat: nothing is left for a
    // slot of that beat.
    assign fold_ok   = FOLD_LAST && !a_last_q && b_last_q && p_fok_q;
    assign fold      = can_real && fold_ok;
    assign fr_end    = can_real && (a_last_q || fold_ok);
    assign in_pop    = can_real || skip_q;
    assign load_plan = pl_ne_q && (!p_valid_q || fr_end);
    // the same as load_plan, from the copy
    assign pl_pop    = pl_ne_q && (!p_valid_q || (can_real_pl_q && (a_last_q || fold_ok)));

    // Plan registers and the slot counters.
    always_ff @(posedge clk) begin
        if (can_virt) begin
            p_vcnt_q   <= p_vcnt_q - 1'b1;
            p_virt_q   <= !p_vone_q;
            p_vone_q   <= p_vcnt_q == AW'(2);
        end
        if (can_real) begin
            logic lo_gt, lo_eq, hi_lt, hi_eq;
            p_aidx_q  <= p_aidx_q + 1'b1;
            p_first_q <= 1'b0;
            // the next beat against the sum region (no frame is long enough to wrap ds, de)
            lo_gt = p_lo_gt_q || p_lo_eq_q;
            lo_eq = p_sum_en_q && p_ds_q == AW'(1);
            hi_lt = p_hi_lt_q && p_de_q != AW'(1);
            hi_eq = p_hi_lt_q && p_de_q == AW'(1);
            p_ds_q    <= p_ds_q - 1'b1;
            p_de_q    <= p_de_q - 1'b1;
            p_lo_gt_q <= lo_gt;
            p_lo_eq_q <= lo_eq;
            p_hi_lt_q <= hi_lt;
            p_hi_eq_q <= hi_eq;
        end
        if (issue) begin
            if (p_pre_q) begin
                p_pcnt_q <= p_pcnt_q - 1'b1;
                p_pre_q  <= !p_pone_q;
                p_pone_q <= p_pcnt_q == AW'(2);
                p_fok_q  <= p_fold_q && p_pone_q && p_rpos_q && p_rle_q;
            end else if (p_rpos_q) begin
                p_rem_q  <= p_rem_q - LEN_W'(KW);
                p_rpos_q <= !p_rle_q;
                p_rle_q  <= p_rem_q <= LEN_W'(2 * KW);
                p_fok_q  <= p_fold_q && !p_rle_q && p_rem_q <= LEN_W'(2 * KW);
                if (p_hk_q != HKW'(HBEATS)) p_hk_q <= p_hk_q + 1'b1;
            end
        end
        if (load_plan) begin
            pc_q      <= pl_rd_q;
            p_virt_q  <= hd_virt_q;
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
            p_fold_q  <= pl_head.fold;
            p_fok_q   <= pl_head.fok;
            p_ds_q    <= pl_head.ds;
            p_de_q    <= pl_head.de;
            p_lo_gt_q <= 1'b0;
            p_lo_eq_q <= pl_head.lo_eq;
            p_hi_lt_q <= pl_head.hi_lt;
            p_hi_eq_q <= pl_head.hi_eq;
            p_so_q    <= pl_head.so;
            p_eo_q    <= pl_head.eo;
            p_sum_en_q <= pl_head.sum_en;
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
    // S0: the slot as issued: the two FIFO reads registered straight away (a LUT RAM read is
    // followed by nothing but its register), and what the slot needs of the plan
    // ------------------------------------------------------------------------------------
    logic [A_W-1:0]       s0_a;
    logic [DATA_W+KW-1:0] s0_b;
    // The slot's flags that select S1's beats, one copy per 8 bytes (kept: each drives the
    // select of 128 data bits, not the whole beat's). Each copy is its own always_ff: the
    // copies of one vector in one block are one flip-flop cell, which synthesis narrows to
    // one bit whatever the keep.
    logic [NG-1:0]        s0_virt, s0_vone, s0_bnone;
    logic                 s0_fold, s0_b_user;
    logic                 s0_lo_gt, s0_lo_eq, s0_hi_lt, s0_hi_eq;
    // per byte of A: at or after sum_start's byte, before sum_end's byte (compared here, so
    // that S1's mask of the sum words is two LUT levels from registers)
    logic [KW-1:0]        s0_ge_so, s0_lt_eo;
    // A's data and keep again, for the sum alone (kept, with s0_a kept too, so they stay two
    // registers): S1's sum words and the adder tree behind them are placed by their own copy,
    // not by s0_a, which the byte datapath pulls elsewhere.
    logic [DATA_W+KW-1:0] s0_sa;
    sh_t                  s0_sh;
    st_t                  s0_st;

    for (genvar g = 0; g < NG; g++) begin : g_s0_copy
        (* keep *) always_ff @(posedge clk) begin
            s0_virt[g]  <= p_virt_q;
            s0_vone[g]  <= p_vone_q;
            s0_bnone[g] <= a_last_q; // A is the frame's last beat: B is not the frame's
        end
    end

    (* keep *) always_ff @(posedge clk) begin
        s0_a <= a_beat;
    end

    (* keep *) always_ff @(posedge clk) begin
        s0_sa <= a_beat[DATA_W+KW-1:0];
    end

    always_ff @(posedge clk) begin
        s0_b     <= b_beat;
        s0_fold  <= fold;
        s0_b_user <= b_user;
        s0_lo_gt <= p_lo_gt_q;
        s0_lo_eq <= p_lo_eq_q;
        s0_hi_lt <= p_hi_lt_q;
        s0_hi_eq <= p_hi_eq_q;
        for (int b = 0; b < KW; b++) begin
            s0_ge_so[b] <= SW'(b) >= p_so_q;
            s0_lt_eo[b] <= SW'(b) <  p_eo_q;
        end

        s0_sh.valid    <= issue;
        s0_sh.r        <= p_q.r;
        s0_sh.out_ok   <= !p_q.drop && !p_pre_q && p_rpos_q;
        s0_sh.len_last <= p_rle_q;
        s0_sh.rem      <= p_rle_q ? p_rem_q[SW:0] : (SW+1)'(KW);
        s0_sh.hk       <= p_hk_q;
        s0_sh.in_last  <= fr_end;

        s0_st            <= '0;
        s0_st.valid      <= issue;
        s0_st.is_real    <= can_real;
        s0_st.first      <= p_first_q;
        s0_st.in_last    <= fr_end;
        s0_st.a_idx      <= p_aidx_q;
        s0_st.fr.drop    <= p_q.drop;
        s0_st.fr.sum_en  <= p_q.sum_en;
        s0_st.fr.min_len <= p_q.min_len;
        s0_st.fr.seed    <= p_q.seed;
        s0_st.fr.meta    <= p_q.meta;
        s0_st.fr.shift   <= p_q.shift;
        s0_st.fr.out_len <= p_q.out_len;

        if (rst) begin
            s0_sh.valid <= 1'b0;
            s0_st.valid <= 1'b0;
        end
    end

    // ------------------------------------------------------------------------------------
    // S1: the slot's two beats (virtual ones as zeros), and A's bytes in the sum region
    // ------------------------------------------------------------------------------------
    logic [DATA_W-1:0] s1_a_data, s1_b_data;
    logic [KW-1:0]     s1_a_keep, s1_b_keep;
    logic [KW-1:0]     s1_n_keep;   // the keep of the beat the frame's length is counted from
    logic [DATA_W-1:0] s1_words;    // A's bytes in the sum region, big-endian 16-bit words
    sh_t               s1_sh;
    st_t               s1_st;

    always_ff @(posedge clk) begin
        logic [DATA_W-1:0] a_data, b_data;
        logic [KW-1:0]     a_keep, b_keep;
        a_data = s0_a[DATA_W-1:0];
        a_keep = s0_a[DATA_W +: KW];
        b_data = s0_b[DATA_W-1:0];
        b_keep = s0_b[DATA_W +: KW];
        for (int g = 0; g < NG; g++) begin
            if (s0_virt[g]) begin
                // Virtual A: zeros that exist; B is beat 0 for the last virtual slot.
                s1_a_data[64*g +: 64] <= '0;
                s1_a_keep[8*g +: 8]   <= '1;
                s1_b_data[64*g +: 64] <= s0_vone[g] ? a_data[64*g +: 64] : '0;
                s1_b_keep[8*g +: 8]   <= s0_vone[g] ? a_keep[8*g +: 8] : '1;
                s1_n_keep[8*g +: 8]   <= '1;
            end else begin
                s1_a_data[64*g +: 64] <= a_data[64*g +: 64];
                s1_a_keep[8*g +: 8]   <= a_keep[8*g +: 8];
                s1_b_data[64*g +: 64] <= b_data[64*g +: 64];
                s1_b_keep[8*g +: 8]   <= s0_bnone[g] ? '0 : b_keep[8*g +: 8];
                // a folded frame's length ends in B, one beat after A
                s1_n_keep[8*g +: 8]   <= s0_fold ? b_keep[8*g +: 8] : a_keep[8*g +: 8];
            end
        end
        for (int b = 0; b < KW; b++) begin
            // byte b of A is at or after sum_start, and before sum_end (from the sum's copy)
            logic lo_ok, hi_ok;
            lo_ok = s0_lo_gt || (s0_lo_eq && s0_ge_so[b]);
            hi_ok = s0_hi_lt || (s0_hi_eq && s0_lt_eo[b]);
            s1_words[8 * (b ^ 1) +: 8] <= (s0_sa[DATA_W + b] && lo_ok && hi_ok)
                                        ? s0_sa[8*b +: 8] : 8'd0;
        end
        s1_sh      <= s0_sh;
        s1_st      <= s0_st;
        s1_st.user <= s0_fold ? s0_b_user : s0_a[A_W-1];
        if (s0_fold) s1_st.a_idx <= s0_st.a_idx + 1'b1;
        if (rst) begin
            s1_sh.valid <= 1'b0;
            s1_st.valid <= 1'b0;
        end
    end

    // ------------------------------------------------------------------------------------
    // Shift stages: {B, A} >> 8r, two bits of r per stage, most significant first
    // ------------------------------------------------------------------------------------
    for (genvar t = 0; t < NSH; t++) begin : g_shift
        // This stage shifts by r[HI:LO], one 2:1 multiplexer level a bit. After the levels
        // of r[SW-1:l] the rest of the shift is below 2**l bytes, so level l's output needs
        // KW + 2**l - 1 data bytes and one keep lane more (lane KW: the next beat's byte).
        localparam int HI = SW - 1 - 2 * t;
        localparam int LO = (HI > 0) ? HI - 1 : 0;
        localparam int IB = KW + (1 << (HI + 1)) - 1;   // data bytes in
        localparam int MB = KW + (1 << HI) - 1;         // after level HI
        localparam int OB = KW + (1 << LO) - 1;         // out

        logic [8*IB-1:0] d_in;
        logic [IB:0]     k_in;
        // Each level's result is kept as a signal of its own: a level is one LUT4 per bit
        // (2:1 multiplexers shared between neighbouring bytes), where the two levels merged
        // are mapped as 4:1 multiplexers of three LUT4s.
        (* keep *) logic [8*MB-1:0] d_mid;
        (* keep *) logic [MB:0]     k_mid;
        logic [8*OB-1:0] d_q;
        logic [OB:0]     k_q;
        sh_t             s_in, s_q;
        logic [KW-1:0]   lm_in, lm_q;   // bytes inside out_len (from stage 0's output on)

        if (t == 0) begin : g_in
            assign d_in  = (8*IB)'({s1_b_data, s1_a_data});
            assign k_in  = (IB+1)'({s1_b_keep, s1_a_keep});
            assign s_in  = s1_sh;
            // bytes j < rem of the output beat are inside out_len
            always_comb for (int j = 0; j < KW; j++) lm_in[j] = (SW+1)'(j) < s1_sh.rem;
        end else begin : g_in
            assign d_in  = g_shift[t-1].d_q;
            assign k_in  = g_shift[t-1].k_q;
            assign s_in  = g_shift[t-1].s_q;
            assign lm_in = g_shift[t-1].lm_q;
        end

        // Each level as one select of two slices (a 2:1 multiplexer per bit, as per byte):
        // a simulator copies a slice word by word, a loop byte by byte.
        always_comb begin
            d_mid = s_in.r[HI] ? d_in[8*(1 << HI) +: 8*MB] : d_in[0 +: 8*MB];
            k_mid = s_in.r[HI] ? k_in[(1 << HI) +: MB+1] : k_in[0 +: MB+1];
        end

        // A stage of one level (LO = HI) passes d_mid on (then OB = MB).
        localparam int SL = (LO < HI) ? (1 << LO) : 0;
        always_ff @(posedge clk) begin
            d_q <= (LO < HI && s_in.r[LO]) ? d_mid[8*SL +: 8*OB] : d_mid[0 +: 8*OB];
            k_q <= (LO < HI && s_in.r[LO]) ? k_mid[SL +: OB+1] : k_mid[0 +: OB+1];
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
    logic [DATA_W-1:0]   sh_d;
    logic [KW:0]         sh_k;
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
    typedef struct packed {
        logic              valid;
        logic              emit;     // an output beat
        logic              last;     // the frame's last output beat
        logic              in_last;  // the slot of the frame's last input beat
        logic [KW-1:0]     keep;
        logic [DATA_W-1:0] data;
    } ov_t;

    ov_t ov_d;

    always_comb begin
        // verilator lint_off UNUSEDSIGNAL
        // (r and rem were used by the shift stages)
        sh_t           s;
        // verilator lint_on UNUSEDSIGNAL
        logic [KW-1:0] kout;
        s    = sh_s;
        kout = sh_k[KW-1:0] & sh_lm;
        ov_d.valid   = s.valid;
        ov_d.emit    = s.valid && s.out_ok && sh_k[0];
        // The output ends in this beat by length, or the next one has no byte.
        ov_d.last    = s.len_last || !sh_k[KW];
        ov_d.in_last = s.valid && s.in_last;
        ov_d.keep    = kout;
        for (int j = 0; j < KW; j++) begin
            ov_d.data[8*j +: 8] = !kout[j] ? 8'd0
                                : hd_en_q[j] ? hd_data_q[8*j +: 8] : sh_d[8*j +: 8];
        end
    end

    // The overlay register, then EXTRA more where the verdict comes later than the overlay.
    ov_t wb;       // the slot at the out FIFO's write
    // verilator lint_off UNUSEDSIGNAL
    // (only its flags are looked at a cycle ahead)
    ov_t wb_in;    // the slot there in the next cycle
    // verilator lint_on UNUSEDSIGNAL
    for (genvar e = 0; e <= EXTRA + 1; e++) begin : g_ov
        ov_t x;
        if (e == 0) begin : g_x
            assign x = ov_d;
        end else begin : g_x
            always_ff @(posedge clk) begin
                x <= g_ov[e-1].x;
                if (rst) begin
                    x.valid   <= 1'b0;
                    x.emit    <= 1'b0;
                    x.in_last <= 1'b0;
                end
            end
        end
    end
    assign wb    = g_ov[EXTRA+1].x;
    assign wb_in = g_ov[EXTRA].x;

    // The last output beat is held until the slot of the frame's last input beat, so it is
    // written with the frame's verdict: its data and keep are written into the out FIFO's
    // next entry as they pass, its tlast and tuser (and the write pointer) only with the
    // verdict. No slot between them writes a beat (the frame's output has ended).
    logic              hold_valid_q;
    logic              to_hold, hold_valid_d, verdict;
    // Whether the slot at the write writes, and what, decided a cycle ahead from wb_in (so
    // the write enables of the out FIFO's LUT RAM come straight from registers): o_dwr the
    // beat's data and keep, o_wr its tlast and tuser, which completes the entry.
    logic              o_wr, o_dwr, release_hold, o_wr_last;

    assign to_hold      = wb.emit && wb.last && !wb.in_last;
    assign hold_valid_d = to_hold || (hold_valid_q && !release_hold);

    always_ff @(posedge clk) begin
        logic to_hold_n, rel_n;
        to_hold_n    = wb_in.emit && wb_in.last && !wb_in.in_last;
        rel_n        = wb_in.in_last && hold_valid_d;
        o_wr         <= (wb_in.emit && !to_hold_n) || rel_n;
        o_dwr        <= wb_in.emit;
        release_hold <= rel_n;
        o_wr_last    <= rel_n || (wb_in.emit && wb_in.last);
        if (rst) begin
            o_wr         <= 1'b0;
            o_dwr        <= 1'b0;
            release_hold <= 1'b0;
        end
    end

    always_ff @(posedge clk) begin
        hold_valid_q <= hold_valid_d;
        if (rst) begin
            hold_valid_q <= 1'b0;
        end
    end

    // ------------------------------------------------------------------------------------
    // Out FIFO (LUT RAM) and the output register
    // ------------------------------------------------------------------------------------
    localparam int OUT_W = 2 + KW + DATA_W;             // {user, last, keep, data}
    (* ram_style = "distributed" *)
    logic [KW+DATA_W-1:0] o_dmem [ODEPTH];              // {keep, data}
    (* ram_style = "distributed" *)
    logic [1:0]           o_fmem [ODEPTH];              // {user, last}
    logic [OAW-1:0]   o_wr_q, o_rd_q;
    logic [OAW:0]     o_cnt_q;
    logic             o_ne_q;
    logic [OUT_W-1:0] o_head;
    logic             o_load;
    logic             o_load_q;   // an entry was read out in the last cycle: its credit
    logic             m_valid_q;

    always_ff @(posedge clk) begin
        if (o_dwr) o_dmem[o_wr_q] <= {wb.keep, wb.data};
        if (o_wr)  o_fmem[o_wr_q] <= {o_wr_last && verdict, o_wr_last};
    end
    assign o_head = {o_fmem[o_rd_q], o_dmem[o_rd_q]};
    assign o_load = o_ne_q && (!m_valid_q || m_axis_tready);

    always_ff @(posedge clk) begin
        o_cnt_q  <= o_cnt_q + (OAW+1)'(o_wr) - (OAW+1)'(o_load);
        o_ne_q   <= o_wr || o_cnt_q > (OAW+1)'(1) || (o_cnt_q == (OAW+1)'(1) && !o_load);
        // A slot reserves an entry as it issues; it gives it back when it writes none. One
        // issue a cycle: two credits now leave one for the next cycle (no adder before it).
        // An entry read out returns its credit a cycle later, from a register: m_axis_tready
        // (which the output register's enables also take, across the bus) does not reach
        // the issue stage's counter in the same cycle.
        o_load_q <= o_load;
        credit_q <= credit_q - (OAW+1)'(issue) + (OAW+1)'(wb.valid && !o_wr)
                  + (OAW+1)'(o_load_q);
        if (o_wr)   o_wr_q <= o_wr_q + 1'b1;
        if (o_load) o_rd_q <= o_rd_q + 1'b1;

        if (o_load) begin
            {m_axis_tuser, m_axis_tlast, m_axis_tkeep, m_axis_tdata} <= o_head;
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
            o_load_q  <= 1'b0;
            o_wr_q    <= '0;
            o_rd_q    <= '0;
            m_valid_q <= 1'b0;
        end
    end

    assign m_axis_tvalid = m_valid_q;

    // ------------------------------------------------------------------------------------
    // Sum: adder tree from S1's words, two levels a stage; the frame's accumulator; the fold
    // ------------------------------------------------------------------------------------
    for (genvar t = 0; t < TS; t++) begin : g_tree
        // Level l of the tree has WORDS >> l sums.
        localparam int L1 = 2 * t + 1;
        localparam int L2 = (2 * t + 2 <= TREE) ? 2 * t + 2 : 2 * t + 1;

        logic [SUMW*WORDS-1:0] sum_in;
        // verilator lint_off UNUSEDSIGNAL
        // (each stage uses the sums its levels leave)
        logic [SUMW*WORDS-1:0] sum_q;
        // verilator lint_on UNUSEDSIGNAL
        logic                  first_in, real_in, first_q, real_q;

        if (t == 0) begin : g_in
            always_comb begin
                sum_in = '0;
                for (int m = 0; m < WORDS; m++) sum_in[SUMW*m +: SUMW] = SUMW'(s1_words[16*m +: 16]);
            end
            assign first_in = s1_st.first;
            assign real_in  = s1_st.valid && s1_st.is_real;
        end else begin : g_in
            assign sum_in   = g_tree[t-1].sum_q;
            assign first_in = g_tree[t-1].first_q;
            assign real_in  = g_tree[t-1].real_q;
        end

        // The first level's sums kept as a signal: each level is an adder of its own (a carry
        // chain), not one multi-operand sum mapped as LUT4 compressors.
        (* keep *) logic [SUMW*WORDS-1:0] lv;
        always_comb begin
            lv = '0;
            for (int m = 0; m < (WORDS >> L1); m++) begin
                lv[SUMW*m +: SUMW] = sum_in[SUMW*(2*m) +: SUMW] + sum_in[SUMW*(2*m+1) +: SUMW];
            end
        end

        always_ff @(posedge clk) begin
            sum_q <= lv;
            if (L2 != L1) begin
                sum_q <= '0;
                for (int m = 0; m < (WORDS >> L2); m++) begin
                    sum_q[SUMW*m +: SUMW] <= lv[SUMW*(2*m) +: SUMW] + lv[SUMW*(2*m+1) +: SUMW];
                end
            end
            first_q <= first_in;
            real_q  <= real_in;
            if (rst) real_q <= 1'b0;
        end
    end

    // Accumulator: the frame's total over its input beats, from its seed (the status stage TS
    // holds the slot the last tree stage holds).
    logic [31:0] acc_q, tot_q;
    always_ff @(posedge clk) begin
        logic [31:0] acc_d;
        acc_d = (g_tree[TS-1].first_q ? {16'd0, g_st[TS].st_q.fr.seed} : acc_q)
              + 32'(g_tree[TS-1].sum_q[SUMW-1:0]);
        if (g_tree[TS-1].real_q) acc_q <= acc_d;
        tot_q <= acc_d;
    end

    // Fold once: the one's-complement sum is 0xFFFF exactly when this is 0xFFFF or 0x1FFFE.
    logic [16:0] fold_q;
    always_ff @(posedge clk) begin
        fold_q <= 17'(tot_q[15:0]) + 17'(tot_q[31:16]);
    end

    // ------------------------------------------------------------------------------------
    // Status: byte count, n, short, L on the way; the verdict at stage VS, the status at STS
    // ------------------------------------------------------------------------------------
    logic sum_bad, vs_verdict;

    for (genvar c = 1; c <= STS; c++) begin : g_st
        st_t st_in;
        // verilator lint_off UNUSEDSIGNAL
        // (each stage uses the fields it needs)
        st_t st_q;
        // verilator lint_on UNUSEDSIGNAL
        if (c == 1) begin : g_in
            assign st_in = s1_st;
        end else begin : g_in
            assign st_in = g_st[c-1].st_q;
        end
        always_ff @(posedge clk) begin
            st_q <= st_in;
            if (c == 1) begin
                st_q.a_cnt <= (SW+1)'(stream_pkg::keep_bytes(64'(s1_n_keep)));
            end
            if (c == 2) begin
                st_q.n <= LEN_W'({st_in.a_idx, SW'(0)}) + LEN_W'(st_in.a_cnt);
            end
            if (c == 3) begin
                st_q.short_f <= st_in.n < st_in.fr.min_len;
                st_q.nd      <= (LEN_W+2)'(st_in.n) - (LEN_W+2)'(st_in.fr.shift);
            end
            if (c == 4) begin
                // L = min(out_len, n - D); nothing leaves when L < 1 or the frame is dropped
                st_q.emitted <= !st_in.fr.drop && st_in.fr.out_len != '0 && st_in.nd > 0;
                st_q.out_l   <= (st_in.nd < (LEN_W+2)'(st_in.fr.out_len))
                              ? LEN_W'(st_in.nd) : st_in.fr.out_len;
            end
            if (c == VS + 1) begin
                st_q.sum_bad <= sum_bad;
            end
            if (rst) st_q.valid <= 1'b0;
        end
    end

    // verilator lint_off UNUSEDSIGNAL
    // (the verdict needs the frame's flags only)
    st_t vs;
    // verilator lint_on UNUSEDSIGNAL
    // verilator lint_off UNUSEDSIGNAL
    // (the sum fields were used before)
    st_t sts;
    // verilator lint_on UNUSEDSIGNAL
    logic sts_sum_bad;
    assign vs          = g_st[VS].st_q;
    assign sts         = g_st[STS].st_q;
    assign sum_bad     = vs.fr.sum_en && fold_q != 17'h0FFFF && fold_q != 17'h1FFFE;
    assign vs_verdict  = vs.user || vs.short_f || sum_bad;
    assign sts_sum_bad = (STS == VS) ? sum_bad : sts.sum_bad;

    always_ff @(posedge clk) begin
        m_stat_valid   <= sts.valid && sts.in_last;
        m_stat_meta    <= sts.fr.meta;
        m_stat_emitted <= sts.emitted;
        m_stat_rx_err  <= sts.user;
        m_stat_short   <= sts.short_f;
        m_stat_sum_bad <= sts_sum_bad;
        m_stat_in_len  <= sts.n;
        m_stat_out_len <= sts.emitted ? sts.out_l : '0;
        if (rst) begin
            m_stat_valid <= 1'b0;
        end
    end

    // The verdict reaches the out FIFO's write with the frame's last slot.
    logic [VDELAY:0] vd;
    assign vd[0] = vs_verdict;
    for (genvar e = 1; e <= VDELAY; e++) begin : g_vdelay
        always_ff @(posedge clk) vd[e] <= vd[e-1];
    end
    assign verdict = vd[VDELAY];

endmodule

`default_nettype wire
