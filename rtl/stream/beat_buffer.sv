// SPDX-License-Identifier: Apache-2.0
//
// beat_buffer: two-slot buffer of one opaque beat per slot, with valid/ready handshakes on
// both sides (a beat moves in a cycle where valid and ready are both 1, as in AXI4-Stream).
//
//   * Two slots; s_ready and m_valid are registers (s_ready = fewer than two beats held,
//     m_valid = at least one held), so neither depends on the other side in the same cycle.
//   * Full throughput: a beat can enter and one leave in every cycle.
//   * Latency one cycle: a beat taken in cycle t is on m_beat in cycle t+1 when the buffer was
//     empty.
//   * No port reaches the load enable of a wide register, and m_beat is a 2:1 select.
//   * Slot k loads s_beat in every cycle in which it is free and under the write pointer, a
//     condition kept in a register of its own (wr_en_q[k]); a beat written while s_valid is
//     low is junk in a free slot, never read, since the pointer only moves on a transfer.
//     s_valid and m_ready only step the 1-bit pointers, the count and the ready/valid
//     registers.
//   * m_beat is the slot under the read pointer through a 2:1 select. The read pointer is
//     kept in one copy per SEL_BITS bits of the beat, so that no single net selects the whole
//     beat; each copy toggles from its own output on a pop, which keeps synthesis from
//     merging the copies back into one register. Each copy has its own copy of m_valid to
//     make its pop from (with m_ready), so no shared pop LUT sits between two long nets.
// A consumer that needs m_beat straight from a register (no select in front of its own
// decode) uses the register slice axis_skid (rtl/stream/) instead.

`default_nettype none

module beat_buffer #(
    // Width of a beat in bits (at least 1); the buffer does not look inside it
    parameter int BEAT_W   = 64,
    // Beat bits per copy of the read pointer and of m_valid (at least 1): the fan-out of each
    parameter int SEL_BITS = 32
) (
    input  wire logic              clk,
    input  wire logic              rst,

    // Input side
    input  wire logic [BEAT_W-1:0] s_beat,
    input  wire logic              s_valid,
    output      logic              s_ready,

    // Output side
    output      logic [BEAT_W-1:0] m_beat,
    output      logic              m_valid,
    input  wire logic              m_ready
);

    // ------------------------------------------------------------------------------------
    // Elaboration-time parameter checks
    // ------------------------------------------------------------------------------------
    if (BEAT_W < 1) begin : g_err_beat_w
        $error("beat_buffer: BEAT_W (%0d) must be >= 1", BEAT_W);
    end
    if (SEL_BITS < 1) begin : g_err_sel_bits
        $error("beat_buffer: SEL_BITS (%0d) must be >= 1", SEL_BITS);
    end

    localparam int NSEL = (BEAT_W + SEL_BITS - 1) / SEL_BITS;

    // ------------------------------------------------------------------------------------
    // Count, ready and valid
    // ------------------------------------------------------------------------------------
    logic [1:0]        count_q;           // beats held, 0..2
    logic              ready_q;           // s_ready: count_q != 2
    logic              valid_q;           // m_valid: count_q != 0
    (* keep *)
    logic [NSEL-1:0]   valid_c_q;         // copies of valid_q, one per SEL_BITS beat bits

    logic       push, pop;
    logic [1:0] count_d;
    logic       ready_d;

    assign push     = s_valid && ready_q;
    assign pop      = valid_q && m_ready;
    assign count_d  = count_q + 2'(push) - 2'(pop);
    // Room for a beat in the next cycle, whatever the output does then.
    assign ready_d  = count_d != 2'd2;

    always_ff @(posedge clk) begin
        count_q   <= count_d;
        ready_q   <= ready_d;
        valid_q   <= count_d != 2'd0;
        valid_c_q <= {NSEL{count_d != 2'd0}};
        if (rst) begin
            count_q   <= '0;
            ready_q   <= 1'b0;
            valid_q   <= 1'b0;
            valid_c_q <= '0;
        end
    end

    assign s_ready = ready_q;
    assign m_valid = valid_q;

    // ------------------------------------------------------------------------------------
    // Two slots under write and read pointers
    // ------------------------------------------------------------------------------------
    logic [BEAT_W-1:0] slot0_q, slot1_q;  // the two slots (data: not reset)
    logic [1:0]        wr_en_q;           // slot k is free and under the write pointer
    logic              wr_ptr_q;          // slot the next input beat goes to
    logic [NSEL-1:0]   rd_sel_q;          // the read pointer, one copy per SEL_BITS bits
    logic              wr_ptr_d;

    assign wr_ptr_d = wr_ptr_q ^ push;

    always_ff @(posedge clk) begin
        wr_ptr_q <= wr_ptr_d;
        // Each copy toggles from its own output, so synthesis does not merge the copies.
        rd_sel_q <= rd_sel_q ^ (valid_c_q & {NSEL{m_ready}});
        wr_en_q  <= {ready_d && wr_ptr_d, ready_d && !wr_ptr_d};
        if (rst) begin
            wr_ptr_q <= 1'b0;
            rd_sel_q <= '0;
            wr_en_q  <= '0;
        end
    end

    always_ff @(posedge clk) begin
        if (wr_en_q[0]) slot0_q <= s_beat;
        if (wr_en_q[1]) slot1_q <= s_beat;
    end

    // The slot under the read pointer
    for (genvar b = 0; b < BEAT_W; b++) begin : g_out
        assign m_beat[b] = rd_sel_q[b / SEL_BITS] ? slot1_q[b] : slot0_q[b];
    end

endmodule

`default_nettype wire
