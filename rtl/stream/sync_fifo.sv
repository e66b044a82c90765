// SPDX-License-Identifier: Apache-2.0
//
// sync_fifo — a first-word-fall-through FIFO of WIDTH-bit words with valid/ready on both
// sides, for descriptors and other per-frame records that travel beside a data stream.
//
//   s_* ──► RAM (DEPTH words, written at wr_ptr) ──► output register ──┬──► m_*
//    └────────────── (BYPASS: an empty FIFO passes the word on) ────────┘
//
// The output register is loaded from the RAM's read port whenever it is empty or being taken,
// so nothing downstream sees the RAM's read path. s_ready is a register: not full.
// The output register's load enable depends on m_ready in the same cycle, so one enable net
// would fan out to every bit of a wide record across the die; it is built per SLICE_W-bit
// slice instead, from its own copies of the state registers (kept apart from synthesis'
// merging), so each enable drives one slice. A consumer whose ready is a register may hand in
// READY_N copies of it (each from a flip-flop of its own): slice sl then takes copy
// sl % READY_N, so no one net reaches every slice across the die.
// LUT_RAM = 1 keeps the RAM in LUTs: a block RAM's clock-to-output (about 4 ns on ECP5) would
// leave the consumer of m_data little of the cycle, since the output register is the block
// RAM's own read register.
// Latency: a word written in cycle t is on m_* in cycle t + 2; with BYPASS = 1, a word offered
// to an empty FIFO is on m_* in the same cycle (a 2:1 multiplexer between s_data and the
// output register) and, when not taken there, held in the output register.

`default_nettype none

module sync_fifo #(
    // Bits per word.
    parameter int WIDTH = 32,
    // Words the RAM holds (a power of two, 2 or more); the output register holds one more.
    parameter int DEPTH = 16,
    // 1: an empty FIFO shows the offered word on m_* in the same cycle.
    parameter bit BYPASS = 1'b0,
    // Bits of the output register per copy of its load enable (and of the registers it
    // comes from): bounds the enable's fan-out on a wide record.
    parameter int SLICE_W = 64,
    // Copies of m_ready (identical values) the consumer hands in: slice sl uses copy
    // sl % READY_N, the FIFO's own flags copy 0.
    parameter int READY_N = 1,
    // 1: the RAM in LUTs (distributed), never in block RAM. (Read by the RAM's synthesis
    // attribute alone, which Verilator's lint does not count as a use.)
    /* verilator lint_off UNUSEDPARAM */
    parameter bit LUT_RAM = 1'b0
    /* verilator lint_on UNUSEDPARAM */
) (
    input  wire logic             clk,
    input  wire logic             rst,

    input  wire logic [WIDTH-1:0] s_data,
    input  wire logic             s_valid,
    output      logic             s_ready,

    output      logic [WIDTH-1:0] m_data,
    output      logic             m_valid,
    input  wire logic [READY_N-1:0] m_ready
);

    localparam int PTR_W = $clog2(DEPTH);

    if (DEPTH < 2 || (1 << PTR_W) != DEPTH) begin : g_check_depth
        $error("sync_fifo: DEPTH must be a power of two, at least 2");
    end
    if (WIDTH < 1) begin : g_check_width
        $error("sync_fifo: WIDTH must be at least 1");
    end
    if (SLICE_W < 1) begin : g_check_slice
        $error("sync_fifo: SLICE_W must be at least 1");
    end
    if (READY_N < 1) begin : g_check_ready_n
        $error("sync_fifo: READY_N must be at least 1");
    end

    localparam int NS = (WIDTH + SLICE_W - 1) / SLICE_W;   // output slices

    (* ram_style = (LUT_RAM ? "distributed" : "auto") *) logic [WIDTH-1:0] mem [DEPTH];
    logic [PTR_W-1:0] wr_ptr_q;
    logic [PTR_W:0]   cnt_q;               // words in the RAM
    logic             out_valid_q;
    // The RAM's state as flags registered from the count: `load` and s_ready (which feeds
    // `push`) then wait for no adder or compare.
    logic             ram_empty_q, one_q, almost_q, full_q;

    // BYPASS: the offered word goes straight out when nothing older waits.
    wire direct    = BYPASS && ram_empty_q && !out_valid_q && s_valid;
    wire push      = s_valid && s_ready && !direct;
    wire load      = !ram_empty_q && (!out_valid_q || m_ready[0]);

    assign m_valid = out_valid_q || direct;
    // The free word at wr_ptr is written every cycle the RAM is not full; push only moves the
    // pointer. So the RAM's write enable is a register (fanning out to every bit) and push
    // stays a local net of the pointer and flag logic.
    always_ff @(posedge clk) begin
`ifdef VERILATOR
        // (a verilated model writes the free word only when a word is offered, since a write
        // costs it every cycle: the word at wr_ptr is read only after a push has written it,
        // so every output is the same)
        if (!full_q && s_valid) mem[wr_ptr_q] <= s_data;
`else
        if (!full_q) mem[wr_ptr_q] <= s_data;
`endif
    end

    always_ff @(posedge clk) begin
        logic [PTR_W:0] cnt_d;
        logic           full_d;
        cnt_d  = cnt_q + (PTR_W+1)'(push) - (PTR_W+1)'(load);
        // Full next cycle: the RAM holds DEPTH words after this cycle's push and read.
        full_d = (full_q && !load) || (almost_q && push && !load);
        cnt_q       <= cnt_d;
        // The flags from compares of the current count, selected by this cycle's moves: push
        // and load come late (from s_valid and m_ready) and pass one select.
        one_q       <= (push && !load) ? cnt_q == (PTR_W+1)'(0)
                     : (load && !push) ? cnt_q == (PTR_W+1)'(2) : cnt_q == (PTR_W+1)'(1);
        almost_q    <= (push && !load) ? cnt_q == (PTR_W+1)'(DEPTH - 2)
                     : (load && !push) ? cnt_q == (PTR_W+1)'(DEPTH)
                     : cnt_q == (PTR_W+1)'(DEPTH - 1);
        full_q      <= full_d;
        s_ready     <= !full_d;
        ram_empty_q <= !push && (ram_empty_q || (one_q && load));
        if (push) wr_ptr_q <= wr_ptr_q + 1'b1;
        if (load || (direct && !m_ready[0])) out_valid_q <= 1'b1;
        else if (m_ready[0])                 out_valid_q <= 1'b0;
        if (rst) begin
            wr_ptr_q    <= '0;
            cnt_q       <= '0;
            one_q       <= 1'b0;
            almost_q    <= 1'b0;
            full_q      <= 1'b0;
            ram_empty_q <= 1'b1;
            out_valid_q <= 1'b0;
            s_ready     <= 1'b0;
        end
    end

    // The output register, slice by slice: each slice has its own copies of ram_empty_q,
    // out_valid_q and rd_ptr_q, so its load enable and read address are local nets.
    for (genvar sl = 0; sl < NS; sl++) begin : g_slice
        localparam int LO = sl * SLICE_W;
        localparam int SW = (WIDTH - LO < SLICE_W) ? WIDTH - LO : SLICE_W;

        logic             ram_empty_r_q, out_valid_r_q;
        logic [PTR_W-1:0] rd_ptr_r_q;
        logic [SW-1:0]    slice_q;

        wire direct_r = BYPASS && ram_empty_r_q && !out_valid_r_q && s_valid;
        wire push_r   = s_valid && s_ready && !direct_r;
        wire ready_r  = m_ready[sl % READY_N];
        wire load_r   = !ram_empty_r_q && (!out_valid_r_q || ready_r);

        // (without BYPASS m_data is the register alone: no multiplexer in front of the consumer)
        assign m_data[LO +: SW] = (!BYPASS || out_valid_r_q) ? slice_q : s_data[LO +: SW];

        (* keep *) always_ff @(posedge clk) begin
            ram_empty_r_q <= !push_r && (ram_empty_r_q || (one_q && load_r));
            if (load_r) rd_ptr_r_q <= rd_ptr_r_q + 1'b1;
            if (load_r || (direct_r && !ready_r)) out_valid_r_q <= 1'b1;
            else if (ready_r)                     out_valid_r_q <= 1'b0;
            if (rst) begin
                ram_empty_r_q <= 1'b1;
                rd_ptr_r_q    <= '0;
                out_valid_r_q <= 1'b0;
            end
        end

        // The slice loads whenever it is free, from the RAM or (BYPASS, RAM empty) the offered
        // word, with or without a word to take (out_valid_r_q says what it holds): its enable
        // is one LUT of out_valid_r_q and m_ready, and the late s_valid reaches no enable.
        wire free_r = !out_valid_r_q || ready_r;
        always_ff @(posedge clk) begin
            if (free_r) slice_q <= (BYPASS && ram_empty_r_q) ? s_data[LO +: SW]
                                                             : mem[rd_ptr_r_q][LO +: SW];
        end
    end

endmodule

`default_nettype wire
