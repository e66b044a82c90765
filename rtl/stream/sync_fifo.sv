// SPDX-License-Identifier: Apache-2.0
//
// sync_fifo — a first-word-fall-through FIFO of WIDTH-bit words with valid/ready on both
// sides, for descriptors and other per-frame records that travel beside a data stream.
//
//   s_* ──► RAM (DEPTH words, written at wr_ptr) ──► output pair ──┬──► m_*
//    └──────────────── (BYPASS: an empty FIFO passes the word on) ──┘
//
// The output pair is two registers shown in turn. One is loaded from the RAM's read port
// whenever the pair has a free register, so the load enable waits on registers only, never
// on m_ready: the consumer's m_ready reaches the pair's few state flags, not the clock enable
// of every bit of a wide record. The enables and selects are built per SLICE_W-bit slice from
// that slice's own copies of the state registers (kept apart from synthesis' merging), so no
// net fans out to the whole record.
// Every port behaves cycle for cycle as a FIFO of a DEPTH-word RAM and one output register:
// it holds DEPTH + 1 words (the RAM then at most DEPTH - 1); s_ready is a register, not full.
// Latency: a word written in cycle t is on m_* in cycle t + 2; with BYPASS = 1, a word offered
// to an empty FIFO is on m_* in the same cycle (a multiplexer between s_data and the pair)
// and, when not taken there, held in the pair.

`default_nettype none

module sync_fifo #(
    // Bits per word.
    parameter int WIDTH = 32,
    // The RAM's words (a power of two, 2 or more); the FIFO holds DEPTH + 1.
    parameter int DEPTH = 16,
    // 1: an empty FIFO shows the offered word on m_* in the same cycle.
    parameter bit BYPASS = 1'b0,
    // Bits of the output pair per copy of its enables and selects (and of the registers they
    // come from): bounds their fan-out on a wide record.
    parameter int SLICE_W = 64
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
    localparam int CNT_W = PTR_W + 2;     // 0 .. DEPTH + 1 words

    if (DEPTH < 2 || (1 << PTR_W) != DEPTH) begin : g_check_depth
        $error("sync_fifo: DEPTH must be a power of two, at least 2");
    end
    if (WIDTH < 1) begin : g_check_width
        $error("sync_fifo: WIDTH must be at least 1");
    end
    if (SLICE_W < 1) begin : g_check_slice
        $error("sync_fifo: SLICE_W must be at least 1");
    end

    localparam int NS = (WIDTH + SLICE_W - 1) / SLICE_W;   // output slices

    // The pair's state: which registers hold a word, which is loaded next (w) and shown (r).
    typedef struct packed {
        logic [1:0] held;
        logic       any;      // held != 0, as a register (m_valid, the output select)
        logic       wsel;
        logic       rsel;
    } pair_t;

    function automatic pair_t pair_next(input pair_t p, input logic enter, input logic taken);
        pair_next = p;
        if (taken) begin
            pair_next.held[p.rsel] = 1'b0;
            pair_next.rsel         = !p.rsel;
        end
        if (enter) begin
            pair_next.held[p.wsel] = 1'b1;
            pair_next.wsel         = !p.wsel;
        end
        pair_next.any = pair_next.held != 2'b00;
    endfunction

    logic [WIDTH-1:0] mem [DEPTH];
    logic [PTR_W-1:0] wr_ptr_q;
    logic [CNT_W-1:0] ram_cnt_q;           // words in the RAM
    logic [CNT_W-1:0] all_cnt_q;           // words in the RAM and the pair
    // Flags of the counts as registers, so that nothing waits for an adder or a compare.
    logic             ram_empty_q, ram_one_q, almost_q, full_q;
    pair_t            pair_q;

    wire any_held  = pair_q.any;
    // BYPASS: the offered word goes straight out when nothing older waits.
    wire direct    = BYPASS && ram_empty_q && !any_held && s_valid;
    wire push      = s_valid && s_ready && !direct;
    wire load      = !ram_empty_q && pair_q.held != 2'b11;
    wire taken     = m_ready && any_held;
    wire kept      = direct && !m_ready;      // shown, not taken: enters the pair
    wire arrive    = push || kept;

    assign m_valid = any_held || direct;

    // The RAM's free word at wr_ptr is written every cycle (the RAM never holds more than
    // DEPTH - 1 words, see the count): push only moves the pointer, the write enable is fixed.
    always_ff @(posedge clk) begin
`ifdef VERILATOR
        // (a verilated model writes the free word only when a word is offered, since a write
        // costs it every cycle: the word at wr_ptr is read only after a push has written it,
        // so every output is the same)
        if (s_valid) mem[wr_ptr_q] <= s_data;
`else
        mem[wr_ptr_q] <= s_data;
`endif
    end

    always_ff @(posedge clk) begin
        logic [CNT_W-1:0] ram_cnt_d, all_cnt_d;
        logic             full_d;
        ram_cnt_d = ram_cnt_q + CNT_W'(push) - CNT_W'(load);
        all_cnt_d = all_cnt_q + CNT_W'(arrive) - CNT_W'(taken);
        // Full next cycle: DEPTH + 1 words after this cycle's arrivals and departures.
        full_d    = (full_q || (almost_q && arrive)) && !taken;
        ram_cnt_q   <= ram_cnt_d;
        all_cnt_q   <= all_cnt_d;
        // The flags from compares of the current counts, selected by this cycle's moves:
        // push, arrive and taken come late (from s_valid and m_ready) and pass one select.
        ram_one_q   <= (push && !load) ? ram_cnt_q == CNT_W'(0)
                     : (load && !push) ? ram_cnt_q == CNT_W'(2) : ram_cnt_q == CNT_W'(1);
        almost_q    <= (arrive && !taken) ? all_cnt_q == CNT_W'(DEPTH - 1)
                     : (taken && !arrive) ? all_cnt_q == CNT_W'(DEPTH + 1)
                     : all_cnt_q == CNT_W'(DEPTH);
        full_q      <= full_d;
        s_ready     <= !full_d;
        ram_empty_q <= !push && (ram_empty_q || (ram_one_q && load));
        pair_q      <= pair_next(pair_q, load || kept, taken);
        if (push) wr_ptr_q <= wr_ptr_q + 1'b1;
        if (rst) begin
            wr_ptr_q    <= '0;
            ram_cnt_q   <= '0;
            all_cnt_q   <= '0;
            ram_one_q   <= 1'b0;
            almost_q    <= 1'b0;
            full_q      <= 1'b0;
            ram_empty_q <= 1'b1;
            pair_q      <= '0;
            s_ready     <= 1'b0;
        end
    end

    // The pair, slice by slice: each slice has its own copies of ram_empty_q, pair_q and the
    // RAM's read pointer, so its enables, selects and read address are local nets.
    for (genvar sl = 0; sl < NS; sl++) begin : g_slice
        localparam int LO = sl * SLICE_W;
        localparam int SW = (WIDTH - LO < SLICE_W) ? WIDTH - LO : SLICE_W;

        logic             ram_empty_r_q;
        pair_t            pair_r_q;
        logic [PTR_W-1:0] rd_ptr_r_q;
        logic [SW-1:0]    reg0_q, reg1_q;   // the pair (two registers, not a 2-word RAM)

        wire any_held_r = pair_r_q.any;
        wire direct_r   = BYPASS && ram_empty_r_q && !any_held_r && s_valid;
        wire push_r     = s_valid && s_ready && !direct_r;
        wire load_r     = !ram_empty_r_q && pair_r_q.held != 2'b11;
        wire taken_r    = m_ready && any_held_r;

        assign m_data[LO +: SW] = (!BYPASS || any_held_r) ? (pair_r_q.rsel ? reg1_q : reg0_q)
                                                          : s_data[LO +: SW];

        (* keep *) always_ff @(posedge clk) begin
            ram_empty_r_q <= !push_r && (ram_empty_r_q || (ram_one_q && load_r));
            pair_r_q      <= pair_next(pair_r_q, load_r || (direct_r && !m_ready), taken_r);
            if (load_r) rd_ptr_r_q <= rd_ptr_r_q + 1'b1;
            if (rst) begin
                ram_empty_r_q <= 1'b1;
                pair_r_q      <= '0;
                rd_ptr_r_q    <= '0;
            end
        end

        // The register loaded next takes the RAM's word, or the offered word when the RAM is
        // empty (BYPASS: written whether or not it is taken; kept only when not).
        wire [SW-1:0] in_r = ram_empty_r_q ? s_data[LO +: SW] : mem[rd_ptr_r_q][LO +: SW];
        always_ff @(posedge clk) begin
            if ((load_r || direct_r) && !pair_r_q.wsel) reg0_q <= in_r;
            if ((load_r || direct_r) &&  pair_r_q.wsel) reg1_q <= in_r;
        end
    end

endmodule

`default_nettype wire
