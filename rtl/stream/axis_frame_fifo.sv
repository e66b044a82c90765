// SPDX-License-Identifier: Apache-2.0
//
// axis_frame_fifo — store-and-forward frame FIFO that announces each frame's length.
//
// A frame leaves only once its last beat is in, and from its first beat on the output carries
// the frame's byte length and whether it is bad (input tuser on the last beat, or longer than
// the FIFO can hold). Blocks that must write a frame's length in front of it (tunnel encap:
// IP total length, UDP length) sit behind it.
//
//   s_axis ──► beat RAM (DEPTH beats) ──► output register ──► m_axis  (+ m_len, m_bad)
//                 └─ on tlast: {length, bad} ──► length queue ──┘
//
// A frame longer than the RAM is cut where the RAM is full: the rest of it is discarded as it
// arrives (the FIFO never stalls on it), and at its last beat the stored part is released
// marked bad (m_oversize), with the frame's real length.
// Output: one beat per cycle while frames are complete (registered RAM read with a one-beat
// prefetch).

`default_nettype none

module axis_frame_fifo #(
    // Width of the data bus in bits (a multiple of 8).
    parameter int DATA_W = 256,
    // Bytes per beat.
    parameter int KEEP_W = DATA_W / 8,
    // Beats the RAM holds; a power of two.
    parameter int DEPTH = 1024,
    // Complete frames that may wait at once; a power of two.
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

    if ((1 << AW) != DEPTH || DEPTH < 4) begin : g_param_check_1
        $error("axis_frame_fifo: DEPTH must be a power of two >= 4");
    end
    if ((1 << FW) != FRAMES || FRAMES < 2) begin : g_param_check_2
        $error("axis_frame_fifo: FRAMES must be a power of two >= 2");
    end

    // Beat RAM: {last, keep, data}.
    localparam int BW = 1 + KEEP_W + DATA_W;
    logic [BW-1:0] ram [DEPTH];

    logic [AW:0]  wr_ptr, wr_start, rd_ptr;     // wr_start: first beat of the frame being written
    logic         dropping;                     // discarding the tail of an oversize frame
    logic [23:0]  wr_len;                       // bytes of the frame being written

    // Length queue of complete frames: {oversize, bad, len}.
    logic [15:0]  lq_len  [FRAMES];
    logic         lq_bad  [FRAMES];
    logic         lq_over [FRAMES];
    logic [FW:0]  lq_wr, lq_rd;

    wire          s_hs     = s_axis_tvalid && s_axis_tready;
    wire [AW:0]   used     = wr_ptr - rd_ptr;
    wire          ram_full = used == (AW+1)'(DEPTH);
    wire          lq_full  = (lq_wr - lq_rd) == (FW+1)'(FRAMES);

    logic [BYTE_SH:0] live_len;
    always_comb begin
        live_len = '0;
        for (int b = 0; b < KEEP_W; b++)
            if (s_axis_tkeep[b]) live_len = (BYTE_SH+1)'(b + 1);
        if (!s_axis_tlast) live_len = (BYTE_SH+1)'(KEEP_W);
    end

    // Accept a beat while there is room, always while discarding, and never start a frame
    // without a free length-queue entry.
    assign s_axis_tready = !lq_full && (dropping || !ram_full);

    wire          store    = s_hs && !dropping && !ram_full;
    wire [23:0]   len_next = wr_len + 24'(live_len);
    // The frame alone fills the RAM on this beat and is still open: discard the rest of it.
    // A RAM full of other frames only stalls.
    wire          overflow = store && !s_axis_tlast && (wr_ptr + 1'b1 - wr_start) == (AW+1)'(DEPTH);

    // ------------------------------------------------------------------ read side
    // Beats of committed frames are [rd_ptr, wr_start).
    logic          pf_valid;                // prefetch register holds the next beat
    logic [BW-1:0] pf_beat;
    logic [FW-1:0] rd_fr, pf_fr;            // length-queue entry of the beat read / prefetched
    wire           out_take = pf_valid && (!m_axis_tvalid || m_axis_tready);
    wire           rd_en    = (rd_ptr != wr_start) && (!pf_valid || out_take);

    always_ff @(posedge clk) begin
        if (store) begin
            ram[wr_ptr[AW-1:0]] <= {s_axis_tlast || overflow, s_axis_tkeep, s_axis_tdata};
        end
        if (s_hs) begin
            wr_len <= s_axis_tlast ? 24'd0 : len_next;
            if (store) wr_ptr <= wr_ptr + 1'b1;
            if (s_axis_tlast) dropping <= 1'b0;
            if (overflow) dropping <= 1'b1;
            // A frame is committed at its last beat, an oversize one too: its stored part waits
            // (alone in the RAM) so that it is counted with its real length.
            if (s_axis_tlast && (store || dropping)) begin
                lq_len[lq_wr[FW-1:0]]  <= (len_next > 24'hFFFF) ? 16'hFFFF : len_next[15:0];
                lq_bad[lq_wr[FW-1:0]]  <= s_axis_tuser || dropping;
                lq_over[lq_wr[FW-1:0]] <= dropping;
                lq_wr <= lq_wr + 1'b1;
                wr_start <= store ? wr_ptr + 1'b1 : wr_ptr;
            end
        end

        // RAM read into the prefetch register.
        if (rd_en) begin
            pf_beat <= ram[rd_ptr[AW-1:0]];
            pf_fr   <= rd_fr;
            if (ram[rd_ptr[AW-1:0]][BW-1]) rd_fr <= rd_fr + 1'b1;
        end
        if (rd_en) rd_ptr <= rd_ptr + 1'b1;
        if (rd_en) pf_valid <= 1'b1;
        else if (out_take) pf_valid <= 1'b0;

        // Output register.
        if (out_take) begin
            {m_axis_tlast, m_axis_tkeep, m_axis_tdata} <= pf_beat;
            m_axis_tuser <= pf_beat[BW-1] && lq_bad[pf_fr];
            m_len        <= lq_len[pf_fr];
            m_bad        <= lq_bad[pf_fr];
            m_oversize   <= lq_over[pf_fr];
        end
        if (out_take) m_axis_tvalid <= 1'b1;
        else if (m_axis_tready) m_axis_tvalid <= 1'b0;
        // A frame's queue entry is freed when its last beat leaves.
        if (m_axis_tvalid && m_axis_tready && m_axis_tlast) lq_rd <= lq_rd + 1'b1;

        if (rst) begin
            wr_ptr <= '0; wr_start <= '0; rd_ptr <= '0; wr_len <= '0; dropping <= 1'b0;
            lq_wr <= '0; lq_rd <= '0; pf_valid <= 1'b0; m_axis_tvalid <= 1'b0;
            rd_fr <= '0; pf_fr <= '0;
        end
    end

endmodule

`default_nettype wire
