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
    parameter bit BYPASS = 1'b0
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
        $error("sync_fifo: DEPTH must be a power of two, at least 2");
    end
    if (WIDTH < 1) begin : g_check_width
        $error("sync_fifo: WIDTH must be at least 1");
    end

    logic [WIDTH-1:0] mem [DEPTH];
    logic [PTR_W:0]   wr_ptr_q, rd_ptr_q;
    logic [WIDTH-1:0] out_q;
    logic             out_valid_q;
    // The RAM is empty (wr_ptr_q == rd_ptr_q), as a register: `load` selects and enables
    // every bit of the output register, so it comes from registers through one LUT.
    logic             ram_empty_q;

    // BYPASS: the offered word goes straight out when nothing older waits.
    wire direct    = BYPASS && ram_empty_q && !out_valid_q && s_valid;
    wire push      = s_valid && s_ready && !direct;
    wire load      = !ram_empty_q && (!out_valid_q || m_ready);

    assign m_valid = out_valid_q || direct;
    assign m_data  = out_valid_q ? out_q : s_data;

    always_ff @(posedge clk) begin
        if (push) mem[wr_ptr_q[PTR_W-1:0]] <= s_data;
    end

    always_ff @(posedge clk) begin
        logic [PTR_W:0] wr_ptr_d, rd_ptr_d;
        wr_ptr_d = wr_ptr_q + (PTR_W+1)'(push);
        rd_ptr_d = rd_ptr_q + (PTR_W+1)'(load);
        wr_ptr_q    <= wr_ptr_d;
        rd_ptr_q    <= rd_ptr_d;
        ram_empty_q <= wr_ptr_d == rd_ptr_d;
        if (load) begin
            out_q    <= mem[rd_ptr_q[PTR_W-1:0]];
        end else if (direct && !m_ready) begin
            out_q    <= s_data;      // shown but not taken: held in the output register
        end
        if (load || (direct && !m_ready)) out_valid_q <= 1'b1;
        else if (m_ready)                 out_valid_q <= 1'b0;
        // Full next cycle: the RAM holds DEPTH words after this cycle's push and read.
        s_ready <= wr_ptr_d - rd_ptr_d != (PTR_W+1)'(DEPTH);
        if (rst) begin
            wr_ptr_q    <= '0;
            rd_ptr_q    <= '0;
            ram_empty_q <= 1'b1;
            out_valid_q <= 1'b0;
            s_ready     <= 1'b0;
        end
    end

endmodule

`default_nettype wire
