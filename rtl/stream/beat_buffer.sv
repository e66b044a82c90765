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
//
// REG_OUT = 0: no port reaches the load enable of a wide register, and m_beat is a 2:1
// select.
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
//
// REG_OUT = 1: m_beat comes straight from a register, for a consumer that decodes the beat
// before its own first register (the select of REG_OUT = 0 would add a LUT and a long net
// in front of that decode).
//   * The output register holds the oldest beat, the spare register the second. The output
//     register loads when it is free (empty, or popped: m_ready reaches its load enable, one
//     LUT with a copy of m_valid), from s_beat while the spare is empty (s_ready high), else
//     from the spare. The spare loads s_beat in every cycle s_ready is high (junk unless the
//     output register stays full), so s_valid reaches no wide load enable.
//   * The copies of m_valid and s_ready that steer the registers are kept one per SEL_BITS
//     bits of the beat, so that no single net enables or selects the whole beat.

`default_nettype none

module beat_buffer #(
    // Width of a beat in bits (at least 1); the buffer does not look inside it
    parameter int BEAT_W   = 64,
    // Beat bits per copy of the select / enable state (at least 1): the fan-out of each copy
    parameter int SEL_BITS = 32,
    // 0: m_beat is a 2:1 select of two slots; 1: m_beat is a register (see above)
    parameter bit REG_OUT  = 1'b0
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
    if (REG_OUT !== 1'b0 && REG_OUT !== 1'b1) begin : g_err_reg_out
        $error("beat_buffer: REG_OUT must be 0 or 1");
    end

    localparam int NSEL = (BEAT_W + SEL_BITS - 1) / SEL_BITS;

    // ------------------------------------------------------------------------------------
    // Count, ready and valid (both modes)
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

    if (REG_OUT) begin : g_reg_out
        // --------------------------------------------------------------------------------
        // Output register and spare register
        // --------------------------------------------------------------------------------
        logic [BEAT_W-1:0] out_q, spare_q;  // oldest and second beat (data: not reset)
        (* keep *)
        logic [NSEL-1:0]   ready_c_q;       // copies of ready_q, one per SEL_BITS beat bits

        always_ff @(posedge clk) begin
            ready_c_q <= {NSEL{ready_d}};
            if (rst) ready_c_q <= '0;
        end

        for (genvar g = 0; g < NSEL; g++) begin : g_grp
            localparam int LO = g * SEL_BITS;
            localparam int HI = (LO + SEL_BITS < BEAT_W ? LO + SEL_BITS : BEAT_W) - 1;

            always_ff @(posedge clk) begin
                if (ready_c_q[g]) spare_q[HI:LO] <= s_beat[HI:LO];
                // Free when empty or popped; the spare is full exactly when s_ready is low.
                if (!valid_c_q[g] || m_ready) begin
                    out_q[HI:LO] <= ready_c_q[g] ? s_beat[HI:LO] : spare_q[HI:LO];
                end
            end
        end

        assign m_beat = out_q;
    end else begin : g_sel_out
        // --------------------------------------------------------------------------------
        // Two slots under write and read pointers
        // --------------------------------------------------------------------------------
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
    end

endmodule

`default_nettype wire
