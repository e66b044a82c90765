// SPDX-License-Identifier: Apache-2.0
//
// prefetch_fifo: a first-word-fall-through FIFO of WIDTH-bit words with valid/ready on both
// sides, whose head is fetched ahead into a two-slot buffer, so that the consumer's m_ready
// never reaches the load enable of a wide register.
//
//   s_* ──► sync_fifo (RAM, DEPTH words, and its output register) ──┬──────────► m_*
//                                                                   └─► spare ──┘
//
//   * The RAM, its pointers and flags and the output register are a sync_fifo's. Its m_ready
//     is a register, "the spare slot is free", so its output register's load enable (and its
//     RAM read) never sees the consumer's m_ready.
//   * The spare slot loads the sync_fifo's head in every cycle it is free (its load enable is
//     a register); the word counts as held there when the consumer did not take it. A held
//     spare word is the older one: m_* shows it, and the sync_fifo waits.
//   * m_data is the spare slot or the sync_fifo's head through a 2:1 select whose select is
//     the spare's registered flag; the flag and the slot's load enable are kept in one copy
//     per SLICE_W bits of the word (kept apart from synthesis' merging), so no single net
//     spans the whole word. m_ready only steps those 1-bit flags.
//   * s_ready is a register (the sync_fifo's); m_valid is an OR of two registers. Full
//     throughput: a word can enter and one leave in every cycle. The FIFO holds DEPTH + 2 words.
// Latency: a word written in cycle t is on m_* in cycle t + 2 (as sync_fifo without BYPASS:
// the same m_valid and m_data for the same s_valid and m_ready while neither is full).

`default_nettype none

module prefetch_fifo #(
    // Bits per word
    parameter int WIDTH = 32,
    // Words the RAM holds (a power of two, 2 or more); the slots hold two more
    parameter int DEPTH = 16,
    // Bits per copy of the spare slot's load enable and select, and of the sync_fifo's
    // output slices: bounds the fan-out of each copy on a wide word
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

    // (DEPTH and WIDTH are checked by the sync_fifo)
    if (SLICE_W < 1) begin : g_check_slice
        $error("prefetch_fifo: SLICE_W (%0d) must be at least 1", SLICE_W);
    end

    localparam int NS = (WIDTH + SLICE_W - 1) / SLICE_W;   // slices

    logic [WIDTH-1:0] f_data;
    logic             f_valid;
    logic             f_ready;
    logic             sp_valid_q;          // the spare slot holds the older word

    assign f_ready = !sp_valid_q;

    sync_fifo #(
        .WIDTH   (WIDTH),
        .DEPTH   (DEPTH),
        .BYPASS  (1'b0),
        .SLICE_W (SLICE_W)
    ) u_fifo (
        .clk     (clk),
        .rst     (rst),
        .s_data  (s_data),
        .s_valid (s_valid),
        .s_ready (s_ready),
        .m_data  (f_data),
        .m_valid (f_valid),
        .m_ready (f_ready)
    );

    assign m_valid = sp_valid_q || f_valid;

    // a word is held in the spare next cycle when the head shown now is not taken
    always_ff @(posedge clk) begin
        sp_valid_q <= m_valid && !m_ready;
        if (rst) sp_valid_q <= 1'b0;
    end

    // The spare slot, slice by slice, each with its own copy of the flag
    for (genvar sl = 0; sl < NS; sl++) begin : g_slice
        localparam int LO = sl * SLICE_W;
        localparam int SW = (WIDTH - LO < SLICE_W) ? WIDTH - LO : SLICE_W;

        logic          sp_valid_r_q;
        logic [SW-1:0] spare_q;

        (* keep *) always_ff @(posedge clk) begin
            sp_valid_r_q <= (sp_valid_r_q || f_valid) && !m_ready;
            if (rst) sp_valid_r_q <= 1'b0;
        end

        always_ff @(posedge clk) begin
            if (!sp_valid_r_q) spare_q <= f_data[LO +: SW];
        end

        assign m_data[LO +: SW] = sp_valid_r_q ? spare_q : f_data[LO +: SW];
    end

endmodule

`default_nettype wire
