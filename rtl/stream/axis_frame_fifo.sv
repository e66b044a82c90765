// SPDX-License-Identifier: Apache-2.0
//
// axis_frame_fifo — store-and-forward frame FIFO that announces each frame's length.
//
// A frame leaves only once its last beat is in, and from its first beat on the output carries
// the frame's byte length and whether it is bad (input tuser on the last beat, or longer than
// the FIFO can hold). Blocks that must write a frame's length in front of it (tunnel encap:
// IP total length, UDP length) sit behind it.
//
//   s_axis ──► write register ──► beat RAM (DEPTH beats) ──┬────────────────────► output register ──► m_axis
//                 │                                        └─► 2-entry queue ──┘      ▲ (+ m_len, m_bad)
//                 └─ on tlast: {length, bad} ──► length queue ────────────────────────┘
//
// A frame longer than the RAM is cut where the RAM is full: the rest of it is discarded as it
// arrives (the FIFO never stalls on it), and at its last beat the stored part is released
// marked bad (m_oversize), with the frame's real length.
// Output: one beat per cycle while frames are complete; a frame's first beat is taken 3 cycles
// after its last input beat at the earliest (idle FIFO, output ready).
//
// Timing. Every decision is a few LUTs from registers (ECP5 out of context: docs/performance.md):
// - s_axis_tready is a register. It holds what "no free length-queue entry, or the RAM is full
//   and the frame is not being discarded" says of the next cycle, from fill counts kept with
//   "is full" / "is one short of full" flags, so no pointer subtraction is on its path.
// - the frame's length at its last beat needs no adder: every beat before the last is full,
//   so the length is (beats before) × KEEP_W + the last beat's bytes, a concatenation, or
//   (beats before + 1) × KEEP_W, kept in a register, when the last beat is full. The last
//   beat's bytes come from a log-depth "highest tkeep bit" tree, registered with the commit;
//   the length is saturated and written into the length queue a cycle later (a frame's
//   length is read two cycles after its commit at the earliest).
// - the beat RAM's words leave through the block RAM's own output register (ram_sdp_reg: a
//   block RAM's clock-to-output without it is most of a cycle), so a read takes two cycles
//   (I: address, R: read, L: the word lands). To keep the stream at one beat per cycle under
//   any backpressure, reads are issued up to 3 beats ahead of the consumer: the output
//   register and a 2-entry queue catch the words still in flight when it stalls.
// - the RAM's write port is registered (enable, address and data): a beat is written into the
//   RAM a cycle after its handshake. The enable and address are kept as one copy per RAM
//   slice (one ECP5 block RAM tile's width), each in a flip-flop that can sit beside its tile,
//   so the handshake's logic never drives a block RAM's write enable across the die. The fill
//   counts the beat at its handshake, so the write in flight is never overwritten or lost.
// - the consumer's ready reaches only the read side's few registers and the output register,
//   never the fill counts or s_axis_tready. The RAM's count takes a read a cycle after it is
//   issued (rd_free_q): high for that cycle, never low, so a slot is reused a cycle later at
//   worst. A length-queue entry is freed when its frame's last beat lands (lq_free_q, a cycle
//   after R): its length and flags travel with the beats from there, so the frames counted
//   are those whose last beat is still in the RAM or being read. The queue behind the output
//   register is written at every landing beat (its free slot), so its write enable is a
//   register too.
// - to keep the latency, a frame's first read is issued in the cycle it commits (from the
//   commit itself, not the registered pointers). The RAM cannot return a beat that is not in
//   it yet: the one stored in that cycle (a one-beat frame's) or the one written in it (the
//   beat stored a cycle before, at wr_lastb). Such a beat is carried beside the read from the
//   input (registers) and lands in its place; which one is known when the read is issued.
// - nothing is computed from the RAM's read data: which length-queue entry a beat belongs to,
//   and whether it is its frame's last, is known when its read is issued, from the address of
//   each frame's last stored beat kept in the length queue; the entry's length and flags are
//   read when the beat lands.

`default_nettype none

module axis_frame_fifo
    import stream_pkg::*;
#(
    // Width of the data bus in bits: a power of two, 16 to 512 (2 to 64 bytes per beat).
    parameter int DATA_W = 256,
    // Bytes per beat.
    parameter int KEEP_W = DATA_W / 8,
    // Beats the RAM holds; a power of two.
    parameter int DEPTH = 1024,
    // Complete frames that may wait in the RAM at once (beside the up to 3 beats read out
    // ahead of the output); a power of two.
    parameter int FRAMES = 32
) (
    input  wire logic              clk,
    input  wire logic              rst,

    input  wire logic [DATA_W-1:0] s_axis_tdata,
    input  wire logic [KEEP_W-1:0] s_axis_tkeep,
    input  wire logic              s_axis_tvalid,
    output      logic              s_axis_tready,
    input  wire logic              s_axis_tlast,
    input  wire logic              s_axis_tuser,

    output      logic [DATA_W-1:0] m_axis_tdata,
    output      logic [KEEP_W-1:0] m_axis_tkeep,
    output      logic              m_axis_tvalid,
    input  wire logic              m_axis_tready,
    output      logic              m_axis_tlast,
    output      logic              m_axis_tuser,
    output      logic [15:0]       m_len,        // the frame's length in bytes (saturating)
    output      logic              m_bad,        // tuser of its last beat, or oversize
    output      logic              m_oversize
);

    localparam int AW      = $clog2(DEPTH);
    localparam int FW      = $clog2(FRAMES);
    localparam int BYTE_SH = $clog2(KEEP_W);
    // Frame lengths are counted in 24 bits (wrapping beyond 16 MiB) and reported saturated
    // to 16 bits; the count of full beats before the last is what is kept.
    localparam int LEN_W   = 24;
    localparam int BEATS_W = LEN_W - BYTE_SH;

    if ((1 << AW) != DEPTH || DEPTH < 4) begin : g_param_check_1
        $error("axis_frame_fifo: DEPTH must be a power of two >= 4");
    end
    if ((1 << FW) != FRAMES || FRAMES < 2) begin : g_param_check_2
        $error("axis_frame_fifo: FRAMES must be a power of two >= 2");
    end
    if (KEEP_W * 8 != DATA_W || (1 << BYTE_SH) != KEEP_W || KEEP_W < 2 || KEEP_W > 64)
    begin : g_param_check_3
        $error("axis_frame_fifo: DATA_W must be a power of two from 16 to 512");
    end

    // Beat RAM: {keep, data} (a beat's tlast is known from the length queue).
    localparam int BW = KEEP_W + DATA_W;
    // An output beat: {tuser, oversize, bad, len, tlast, tkeep, tdata}.
    localparam int EW = 4 + 16 + BW;

    logic [AW:0]  wr_ptr, wr_start, rd_ptr;     // wr_start: first beat of the frame being written
    logic         dropping;                     // discarding the tail of an oversize frame
    // Beats of the frame being written before this one (all full), and that plus one.
    logic [BEATS_W-1:0] wr_beats, wr_beats_p1;
    logic [AW:0]  fr_stored;                    // beats of the frame being written in the RAM
    logic [AW:0]  wr_lastb;                     // address of the last beat written (wr_ptr - 1)

    // RAM fill (wr_ptr - rd_ptr, a read counted a cycle late) and length-queue fill (frames
    // committed and their last beat not landed), counted, with flags.
    logic [AW:0]  ram_used;
    logic [FW:0]  lq_used;
    logic         ram_full, ram_full_m1;        // ram_used == DEPTH, == DEPTH - 1
    logic         lq_full, lq_full_m1;          // lq_used == FRAMES, == FRAMES - 1
    logic         rd_free_q;                    // a read was issued in the last cycle
    logic         lq_free_q;                    // a frame's last beat lands (cycle L)

    // Length queue of complete frames: {oversize, bad, len}, and where each ends in the RAM.
    logic [15:0]  lq_len  [FRAMES];
    logic [AW:0]  lq_lastb [FRAMES];
    logic         lq_bad  [FRAMES];
    logic         lq_over [FRAMES];
    logic [FW:0]  lq_wr;

    wire          s_hs = s_axis_tvalid && s_axis_tready;

    // Bytes in the last beat: up to and including its highest set tkeep bit (0 if none), from
    // a log-depth tree (stream_pkg::keep_bytes).
    wire  [BYTE_SH:0] last_bytes = (BYTE_SH+1)'(keep_bytes(64'(s_axis_tkeep)));

    // The frame's length at its last beat, as (beats, bytes) whose concatenation is the length:
    // (full beats before + 1, 0) when the last beat is full, else (full beats before, its
    // bytes). Registered with the commit and written into the length queue a cycle later (the
    // read side takes a frame's length two cycles after its commit at the earliest), so the
    // last beat's byte count is not in series with the saturation and the queue's write.
    logic [BEATS_W-1:0] len_beats;
    logic [BYTE_SH-1:0] len_bytes;
    always_comb begin
        if (last_bytes[BYTE_SH]) begin          // a full last beat
            len_beats = wr_beats_p1;
            len_bytes = '0;
        end else begin
            len_beats = wr_beats;
            len_bytes = last_bytes[BYTE_SH-1:0];
        end
    end

    logic               cl_we_q;                // a commit in the last cycle
    logic [FW-1:0]      cl_idx_q;               // its length-queue entry
    logic [LEN_W-1:0]   cl_len_q;               // its length

    // Accept a beat while there is room, always while discarding, and never start a frame
    // without a free length-queue entry (the register below holds this for each cycle).
    wire          store    = s_hs && !dropping && !ram_full;
    // The frame alone fills the RAM on this beat and is still open: discard the rest of it.
    // A RAM full of other frames only stalls.
    wire          overflow = store && !s_axis_tlast && fr_stored == (AW+1)'(DEPTH - 1);
    wire          commit   = s_hs && s_axis_tlast && (store || dropping);

    // ------------------------------------------------------------------ read side
    // Beats of committed frames are [rd_ptr, wr_start). A read is issued (cycle I) for the beat
    // at rd_ptr while fewer than 3 beats are issued and not taken; its word lands two cycles
    // later (L) and goes to the output register, or to the queue behind it when that is full.
    logic          fr_empty;                // the frame being written has no beat stored
    logic [1:0]    out_cnt;                 // beats issued and not yet taken (0..3)
    logic [FW-1:0] rd_fr;                   // length-queue entry of the beat at rd_ptr
    wire           take     = m_axis_tvalid && m_axis_tready;
    wire           avail    = rd_ptr != wr_start;
    // A frame committing now is readable now: its first beat is at rd_ptr when nothing
    // committed is left.
    wire           rd_en    = (avail || commit) && (out_cnt != 2'd3 || take);
    // Its first beat is the beat stored now (a one-beat frame): taken from the input.
    wire           rd_fwd   = !avail && fr_empty;
    wire           rd_last  = avail ? (rd_ptr == lq_lastb[rd_fr]) : fr_empty;

    // The beat written into the RAM in this cycle (stored a cycle before, at wr_lastb): a read
    // of it now would return the word it replaces.
    logic          w_busy;                  // a write in this cycle
    wire           rd_col   = w_busy && rd_ptr == wr_lastb;

    logic [BW-1:0] ram_rdata;               // the word read at I, in cycle L
    logic [BW-1:0] w_data_q;                // the last cycle's input beat: written now if stored

    // Beat RAM in slices of one ECP5 block RAM tile's width (ram_sdp_reg's DP16KD port width
    // for AW address bits), each with its own registered write enable and address: copies of one register
    // (each in an always_ff of its own, or synthesis makes them one flip-flop), so that each
    // tile's write enable and address come from flip-flops placed beside it.
    localparam int SW = (AW <= 10) ? 18 : (AW == 11) ? 9 : (AW == 12) ? 4 : (AW == 13) ? 2 : 1;
    localparam int NS = (BW + SW - 1) / SW;
    logic [NS-1:0]    w_we_q;
    logic [NS*AW-1:0] w_addr_q;

    for (genvar k = 0; k < NS; k++) begin : g_slice
        localparam int W = (k == NS - 1) ? BW - k * SW : SW;   // the last slice: the rest

        (* keep *) always_ff @(posedge clk) begin
            if (rst) w_we_q[k] <= 1'b0;
            else     w_we_q[k] <= store;
            w_addr_q[k*AW +: AW] <= wr_ptr[AW-1:0];
        end

        ram_sdp_reg #(
            .ADDR_W (AW),
            .DATA_W (W)
        ) u_ram (
            .clk   (clk),
            .we    (w_we_q[k]),
            .waddr (w_addr_q[k*AW +: AW]),
            .wdata (w_data_q[k*SW +: W]),
            .raddr (rd_ptr[AW-1:0]),
            .rdata (ram_rdata[k*SW +: W])
        );
    end

    // The read in flight: after I (r1) and after R (r2); the input beat that lands in its place
    // (r1_fwd; the one of the cycle before the read when that one was being written: r1_col).
    logic          r1_v, r1_fwd, r1_col, r1_last, r2_v, r2_fwd, r2_last;
    logic [FW-1:0] r1_fr, r2_fr;
    logic [BW-1:0] fwp_q, fw2_q;

    // The beat landing (cycle L), with its frame's length and flags.
    logic [EW-1:0] land;
    always_comb begin
        land = {r2_last && lq_bad[r2_fr], lq_over[r2_fr], lq_bad[r2_fr], lq_len[r2_fr],
                r2_last, r2_fwd ? fw2_q : ram_rdata};
    end

    // Queue behind the output register (2 entries, circular). A landing beat is written into
    // the slot at q_wr whether it stays there (q_push) or goes on to the output register: that
    // slot is free whenever a beat lands (the output register, the queue and the reads in
    // flight hold at most 3 beats, and the output register is never empty while the queue
    // holds one), so the write enable is r2_v and not the consumer's ready.
    logic [EW-1:0] q_e [2];
    logic          q_wr, q_rd;
    logic [1:0]    q_n;
    wire           m_free = !m_axis_tvalid || m_axis_tready;
    wire           q_pop  = m_free && q_n != 2'd0;
    // A landing beat goes to the output register when nothing waits before it.
    wire           q_push = r2_v && !(m_free && q_n == 2'd0);

    // Next fills as flags: one more, one fewer, or the same.
    logic ram_full_n, ram_full_m1_n, lq_full_n, lq_full_m1_n, dropping_n;
    always_comb begin
        // The RAM only grows when it is not full, and only shrinks when it is not empty (a
        // read counted a cycle late, a frame when its last beat lands).
        ram_full_n    = (store && !rd_free_q) ? ram_full_m1
                      : (!store && rd_free_q) ? 1'b0 : ram_full;
        ram_full_m1_n = (store && !rd_free_q) ? (ram_used == (AW+1)'(DEPTH - 2))
                      : (!store && rd_free_q) ? ram_full : ram_full_m1;
        lq_full_n     = (commit && !lq_free_q) ? lq_full_m1
                      : (!commit && lq_free_q) ? 1'b0 : lq_full;
        lq_full_m1_n  = (commit && !lq_free_q) ? (lq_used == (FW+1)'(FRAMES - 2))
                      : (!commit && lq_free_q) ? lq_full : lq_full_m1;
        dropping_n    = dropping;
        if (s_hs && s_axis_tlast) dropping_n = 1'b0;
        if (overflow) dropping_n = 1'b1;
    end

    always_ff @(posedge clk) begin
        // The RAM's write data (its enable and address are the slices' copies above).
        w_data_q <= {s_axis_tkeep, s_axis_tdata};
        w_busy   <= store;
        if (store) begin
            wr_ptr   <= wr_ptr + 1'b1;
            wr_lastb <= wr_ptr;
        end
        if (s_hs) begin
            wr_beats    <= s_axis_tlast ? '0 : wr_beats_p1;
            wr_beats_p1 <= s_axis_tlast ? BEATS_W'(1) : wr_beats_p1 + 1'b1;
        end
        if (commit) begin
            // A frame is committed at its last beat, an oversize one too: its stored part waits
            // (alone in the RAM) so that it is counted with its real length.
            lq_bad[lq_wr[FW-1:0]]  <= s_axis_tuser || dropping;
            lq_over[lq_wr[FW-1:0]] <= dropping;
            lq_lastb[lq_wr[FW-1:0]] <= store ? wr_ptr : wr_lastb;
            lq_wr    <= lq_wr + 1'b1;
            wr_start <= store ? wr_ptr + 1'b1 : wr_ptr;
            fr_stored <= '0;
            fr_empty  <= 1'b1;
        end else if (store) begin
            fr_stored <= fr_stored + 1'b1;
            fr_empty  <= 1'b0;
        end
        dropping <= dropping_n;

        // The committed frame's length, written a cycle later (saturated to 16 bits).
        cl_we_q  <= commit;
        cl_idx_q <= lq_wr[FW-1:0];
        cl_len_q <= {len_beats, len_bytes};
        if (cl_we_q) lq_len[cl_idx_q] <= (|cl_len_q[LEN_W-1:16]) ? 16'hFFFF : cl_len_q[15:0];

        rd_free_q   <= rd_en;
        lq_free_q   <= r1_v && r1_last;
        ram_used    <= ram_used + (AW+1)'(store) - (AW+1)'(rd_free_q);
        lq_used     <= lq_used + (FW+1)'(commit) - (FW+1)'(lq_free_q);
        ram_full    <= ram_full_n;
        ram_full_m1 <= ram_full_m1_n;
        lq_full     <= lq_full_n;
        lq_full_m1  <= lq_full_m1_n;
        s_axis_tready <= !lq_full_n && (dropping_n || !ram_full_n);

        // Read issue (I); after a frame's last beat, the next frame.
        if (rd_en) begin
            if (rd_last) rd_fr <= rd_fr + 1'b1;
            rd_ptr <= rd_ptr + 1'b1;
        end
        out_cnt <= out_cnt + 2'(rd_en) - 2'(take);
        r1_v    <= rd_en;
        r1_fwd  <= rd_fwd || rd_col;
        r1_col  <= rd_col;
        r1_last <= rd_last;
        r1_fr   <= rd_fr;
        r2_v    <= r1_v;
        r2_fwd  <= r1_fwd;
        r2_last <= r1_last;
        r2_fr   <= r1_fr;
        // The input beat of the read's cycle (w_data_q), or of the cycle before it (fwp_q).
        fwp_q   <= w_data_q;
        fw2_q   <= r1_col ? fwp_q : w_data_q;

        // Landing (L): into the queue, or straight into the output register.
        if (r2_v) q_e[q_wr] <= land;
        q_wr <= q_wr ^ q_push;
        q_rd <= q_rd ^ q_pop;
        q_n  <= q_n + 2'(q_push) - 2'(q_pop);

        // Output register: its data loads whenever it is free, with a beat or not (tvalid
        // says which), so its enable over the whole beat is one LUT from two registers.
        if (m_free) begin
            {m_axis_tuser, m_oversize, m_bad, m_len, m_axis_tlast, m_axis_tkeep, m_axis_tdata}
                <= (q_n != 2'd0) ? q_e[q_rd] : land;
        end
        if (m_free) m_axis_tvalid <= q_n != 2'd0 || r2_v;

        if (rst) begin
            wr_ptr <= '0; wr_start <= '0; rd_ptr <= '0; dropping <= 1'b0;
            wr_beats <= '0; wr_beats_p1 <= BEATS_W'(1); fr_stored <= '0; wr_lastb <= '0;
            ram_used <= '0; lq_used <= '0; rd_free_q <= 1'b0; lq_free_q <= 1'b0;
            ram_full <= 1'b0; ram_full_m1 <= 1'b0; lq_full <= 1'b0; lq_full_m1 <= 1'b0;
            s_axis_tready <= 1'b1;
            lq_wr <= '0; m_axis_tvalid <= 1'b0;
            rd_fr <= '0; fr_empty <= 1'b1; out_cnt <= '0;
            r1_v <= 1'b0; r2_v <= 1'b0; w_busy <= 1'b0; q_wr <= 1'b0; q_rd <= 1'b0; q_n <= '0;
            cl_we_q <= 1'b0;
        end
    end

`ifndef SYNTHESIS
    always_ff @(posedge clk) begin
        if (!rst && r2_v && q_n == 2'd2) begin
            $error("axis_frame_fifo: a beat landed with the queue behind the output register full");
        end
    end
`endif

endmodule

`default_nettype wire
