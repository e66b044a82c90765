// SPDX-License-Identifier: Apache-2.0
//
// prefetch_fifo: a first-word-fall-through FIFO of WIDTH-bit words with valid/ready on both
// sides, whose head is fetched ahead into a two-slot buffer, so that the consumer's m_ready
// never reaches the load enable of a wide register.
//
//   s_* ──► RAM (DEPTH words, written at wr_ptr) ──► two slots ──► slot at rd_sel ──► m_*
//
//   * The slots fill from the RAM's read port while one is free (a registered flag of the
//     slots' count), so the RAM's read pointer and each slot's load enable are registers or
//     one LUT of registers. m_ready only steps the slots' flags (one LUT each) and the 1-bit
//     read select.
//   * m_data is the slot under the read select through a 2:1 select; the select, the slots'
//     load enables and the RAM's read pointer are kept in one copy per SLICE_W bits of the
//     word (kept apart from synthesis' merging), so no single net spans the whole word.
//   * s_ready and m_valid are registers. Full throughput: a word can enter and one leave in
//     every cycle. The FIFO holds DEPTH + 2 words.
// Latency: a word written in cycle t is on m_* in cycle t + 2 (as sync_fifo without BYPASS:
// the same m_valid and m_data for the same s_valid and m_ready while neither is full).

`default_nettype none

module prefetch_fifo #(
    // Bits per word
    parameter int WIDTH = 32,
    // Words the RAM holds (a power of two, 2 or more); the slots hold two more
    parameter int DEPTH = 16,
    // Bits of the slots per copy of their load enables, the read select and the RAM's read
    // pointer: bounds the fan-out of each copy on a wide word
    parameter int SLICE_W = 32
) (
    input  wire logic             clk,
    input  wire logic             rst,

    input  wire logic [WIDTH-1:0] s_data,
    input  wire logic             s_valid,
    output      logic             s_ready,

    output      logic [WIDTH-1:0] m_data,
    output      logic             m_valid,
    input  wire logic             m_ready
);

    localparam int PTR_W = $clog2(DEPTH);

    if (DEPTH < 2 || (1 << PTR_W) != DEPTH) begin : g_check_depth
        $error("prefetch_fifo: DEPTH (%0d) must be a power of two, at least 2", DEPTH);
    end
    if (WIDTH < 1) begin : g_check_width
        $error("prefetch_fifo: WIDTH (%0d) must be at least 1", WIDTH);
    end
    if (SLICE_W < 1) begin : g_check_slice
        $error("prefetch_fifo: SLICE_W (%0d) must be at least 1", SLICE_W);
    end

    localparam int NS = (WIDTH + SLICE_W - 1) / SLICE_W;   // slices

    // ------------------------------------------------------------------------------------
    // The RAM: its count and flags (registered, so the fill waits for no compare)
    // ------------------------------------------------------------------------------------
    logic [WIDTH-1:0] mem [DEPTH];
    logic [PTR_W-1:0] wr_ptr_q;
    logic [PTR_W:0]   cnt_q;               // words in the RAM
    logic             ram_empty_q, one_q, almost_q, full_q;

    // The slots' count (0..2) as two registered flags, hvalid_q (1 or 2: m_valid) and
    // hready_q (0 or 1: a slot is free), so the next state is one LUT of m_ready and a few
    // registers, with no adder between the consumer's take and the slots' enables
    logic             hvalid_q;
    logic             hready_q;
    logic             hwp_q;               // the slot the next fill goes to

    logic             push, fill;
    logic             hvalid_d, hready_d, hwp_d;

    assign push     = s_valid && s_ready;
    assign fill     = !ram_empty_q && hready_q;
    assign hwp_d    = hwp_q ^ fill;
    // two words held next cycle: two now, or one and a fill, and no take
    assign hready_d = !(hvalid_q && (!hready_q || fill) && !m_ready);
    // none held next cycle: no fill, and none now or the one held taken
    assign hvalid_d = fill || (hvalid_q && !(hready_q && m_ready));

    // The free word at wr_ptr is written every cycle the RAM is not full; push only moves the
    // pointer, so the RAM's write enable is a register
    always_ff @(posedge clk) begin
`ifdef VERILATOR
        // (a verilated model writes only an offered word: the word at wr_ptr is read only
        // after a push has written it, so every output is the same)
        if (!full_q && s_valid) mem[wr_ptr_q] <= s_data;
`else
        if (!full_q) mem[wr_ptr_q] <= s_data;
`endif
    end

    always_ff @(posedge clk) begin
        logic [PTR_W:0] cnt_d;
        logic           full_d;
        cnt_d  = cnt_q + (PTR_W+1)'(push) - (PTR_W+1)'(fill);
        full_d = (full_q && !fill) || (almost_q && push && !fill);
        cnt_q       <= cnt_d;
        one_q       <= (push && !fill) ? cnt_q == (PTR_W+1)'(0)
                     : (fill && !push) ? cnt_q == (PTR_W+1)'(2) : cnt_q == (PTR_W+1)'(1);
        almost_q    <= (push && !fill) ? cnt_q == (PTR_W+1)'(DEPTH - 2)
                     : (fill && !push) ? cnt_q == (PTR_W+1)'(DEPTH)
                     : cnt_q == (PTR_W+1)'(DEPTH - 1);
        full_q      <= full_d;
        s_ready     <= !full_d;
        ram_empty_q <= !push && (ram_empty_q || (one_q && fill));
        if (push) wr_ptr_q <= wr_ptr_q + 1'b1;
        hwp_q       <= hwp_d;
        hready_q    <= hready_d;
        hvalid_q    <= hvalid_d;
        if (rst) begin
            wr_ptr_q    <= '0;
            cnt_q       <= '0;
            one_q       <= 1'b0;
            almost_q    <= 1'b0;
            full_q      <= 1'b0;
            ram_empty_q <= 1'b1;
            s_ready     <= 1'b0;
            hwp_q       <= 1'b0;
            hready_q    <= 1'b0;
            hvalid_q    <= 1'b0;
        end
    end

    assign m_valid = hvalid_q;

    // ------------------------------------------------------------------------------------
    // The slots, slice by slice: each slice has its own copies of the RAM's empty flag and
    // read pointer, the slots' flags and fill pointer, their load enables and the read select
    // ------------------------------------------------------------------------------------
    for (genvar sl = 0; sl < NS; sl++) begin : g_slice
        localparam int LO = sl * SLICE_W;
        localparam int SW = (WIDTH - LO < SLICE_W) ? WIDTH - LO : SLICE_W;

        logic             ram_empty_r_q, hvalid_r_q, hready_r_q, hwp_r_q, rd_sel_r_q;
        logic [PTR_W-1:0] rd_ptr_r_q;
        logic [1:0]       wr_en_r_q;       // slot k is free and under the fill pointer

        logic [SW-1:0]    slot0_q, slot1_q;
        logic             fill_r, hwp_r_d, hready_r_d;

        // the slots' next state as above, from this slice's copies
        assign fill_r     = !ram_empty_r_q && hready_r_q;
        assign hwp_r_d    = hwp_r_q ^ fill_r;
        assign hready_r_d = !(hvalid_r_q && (!hready_r_q || fill_r) && !m_ready);

        (* keep *) always_ff @(posedge clk) begin
            ram_empty_r_q <= !push && (ram_empty_r_q || (one_q && fill_r));
            hvalid_r_q    <= fill_r || (hvalid_r_q && !(hready_r_q && m_ready));
            hready_r_q    <= hready_r_d;
            hwp_r_q       <= hwp_r_d;
            wr_en_r_q     <= {hready_r_d && hwp_r_d, hready_r_d && !hwp_r_d};
            if (fill_r) rd_ptr_r_q <= rd_ptr_r_q + 1'b1;
            // toggled from its own output, so the copies stay apart
            rd_sel_r_q    <= rd_sel_r_q ^ (hvalid_r_q && m_ready);
            if (rst) begin
                ram_empty_r_q <= 1'b1;
                hvalid_r_q    <= 1'b0;
                hready_r_q    <= 1'b0;
                hwp_r_q       <= 1'b0;
                wr_en_r_q     <= '0;
                rd_ptr_r_q    <= '0;
                rd_sel_r_q    <= 1'b0;
            end
        end

        // a free slot under the fill pointer loads the RAM's word at the read pointer every
        // cycle (a word loaded while the RAM is empty is never counted, so never read)
        always_ff @(posedge clk) begin
            if (wr_en_r_q[0]) slot0_q <= mem[rd_ptr_r_q][LO +: SW];
            if (wr_en_r_q[1]) slot1_q <= mem[rd_ptr_r_q][LO +: SW];
        end

        assign m_data[LO +: SW] = rd_sel_r_q ? slot1_q : slot0_q;
    end

endmodule

`default_nettype wire
