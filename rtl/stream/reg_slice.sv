// SPDX-License-Identifier: Apache-2.0
//
// reg_slice: register slice ("skid buffer") of one opaque beat, with valid/ready handshakes
// on both sides (a beat moves in a cycle where valid and ready are both 1, as in
// AXI4-Stream). axis_skid is its AXI4-Stream form; avst_to_axis uses it on a packed beat
// (its input is Avalon-ST, whose valid may fall before a transfer).
//
// Every output, s_ready included, comes straight from a flip-flop, so the slice cuts every
// combinational path between its two sides (valid/beat forward, ready backward). It moves
// one beat per cycle when the output is not stalled. Latency one cycle: a beat taken in
// cycle t is on m_beat in cycle t+1 when the slice was empty.
//
// Structure: an output register (out_*) and one temporary register (tmp_*). s_ready is
// registered, so when the output stalls the slice has already promised to take the beat
// offered in that cycle; that beat lands in the temporary register and s_ready falls for
// the next cycle. When the output drains, the temporary beat moves to the output first.
//
//   s_ready(next) = m_ready || (!tmp_valid && (!m_valid || !s_valid))
//
// i.e. ready stays high while the output moves, or while the temporary register is empty and
// will not be filled in this cycle.
//
// The data registers load whenever their side is free, with or without a beat (the valid
// flags say what they hold), so a data enable is one LUT from ready_q, out_valid_q and
// m_ready: the input valid, which may arrive late, only reaches the valid flags.
// On a wide beat one enable net would still reach every bit across the die, so the registers
// are built per SLICE_W-bit slice, each from its own copies of the three flags (kept apart
// from synthesis' merging). A consumer whose ready is a register may hand in READY_N copies
// of it (each from a flip-flop of its own): slice sl takes copy sl % READY_N. With more than
// one slice, s_ready and m_valid come from two more copies of the flags that load no data, so
// each may sit beside its own consumer. The copies hold equal values: every slice moves alike.

`default_nettype none

module reg_slice #(
    // Width of a beat in bits (at least 1); the slice does not look inside it
    parameter int BEAT_W = 64,
    // Bits of the beat registers per copy of the flags and their load enables (the default:
    // one slice): bounds an enable's fan-out on a wide beat.
    parameter int SLICE_W = BEAT_W,
    // Copies of m_ready (identical values) the consumer hands in: slice sl uses copy
    // sl % READY_N.
    parameter int READY_N = 1
) (
    input  wire logic               clk,
    input  wire logic               rst,

    // Input side
    input  wire logic [BEAT_W-1:0]  s_beat,
    input  wire logic               s_valid,
    output      logic               s_ready,

    // Output side
    output      logic [BEAT_W-1:0]  m_beat,
    output      logic               m_valid,
    input  wire logic [READY_N-1:0] m_ready
);

    // ------------------------------------------------------------------------------------
    // Elaboration-time parameter checks
    // ------------------------------------------------------------------------------------
    if (BEAT_W < 1) begin : g_err_beat_w
        $error("reg_slice: BEAT_W (%0d) must be >= 1", BEAT_W);
    end
    if (SLICE_W < 1) begin : g_err_slice_w
        $error("reg_slice: SLICE_W (%0d) must be >= 1", SLICE_W);
    end
    if (READY_N < 1) begin : g_err_ready_n
        $error("reg_slice: READY_N (%0d) must be >= 1", READY_N);
    end

    localparam int NS = (BEAT_W + SLICE_W - 1) / SLICE_W;   // slices
    // Copies of the flags: one per slice, and with more than one slice one for m_valid (NS)
    // and one for s_ready (NS + 1).
    localparam int NC = (NS > 1) ? NS + 2 : 1;
    localparam int C_VALID = (NS > 1) ? NS : 0;
    localparam int C_READY = (NS > 1) ? NS + 1 : 0;

    logic [NC-1:0] ready_r, out_valid_r;   // each copy's s_ready and m_valid

    for (genvar sl = 0; sl < NC; sl++) begin : g_slice
        // --------------------------------------------------------------------------------
        // State (this copy of the flags)
        // --------------------------------------------------------------------------------
        logic          ready_q;     // registered s_ready
        logic          out_valid_q; // output register holds a beat
        logic          tmp_valid_q; // temporary register holds a beat

        // --------------------------------------------------------------------------------
        // Next-state logic
        // --------------------------------------------------------------------------------
        logic ready_d;
        logic out_valid_d;
        logic tmp_valid_d;
        logic load_out_from_in;  // output register <- input beat
        logic load_out_from_tmp; // output register <- temporary register
        logic load_tmp_from_in;  // temporary register <- input beat

        wire out_ready = m_ready[sl % READY_N];

        // The output register may be (re)loaded when it is empty or being consumed.
        logic out_free;
        assign out_free = out_ready || !out_valid_q;

        assign ready_d = out_ready || (!tmp_valid_q && (!out_valid_q || !s_valid));

        always_comb begin
            out_valid_d       = out_valid_q;
            tmp_valid_d       = tmp_valid_q;
            load_out_from_in  = 1'b0;
            load_out_from_tmp = 1'b0;
            load_tmp_from_in  = 1'b0;

            if (ready_q) begin
                // The input side is open (so the temporary register is empty).
                if (out_free) begin
                    out_valid_d      = s_valid;
                    load_out_from_in = 1'b1;
                end else begin
                    tmp_valid_d      = s_valid;
                    load_tmp_from_in = 1'b1;
                end
            end else if (out_ready) begin
                // Input closed (temporary register full): drain it into the output register.
                out_valid_d       = tmp_valid_q;
                tmp_valid_d       = 1'b0;
                load_out_from_tmp = 1'b1;
            end
        end

        // --------------------------------------------------------------------------------
        // Registers
        // --------------------------------------------------------------------------------
        // Control state: synchronous reset; kept, so that the slices' copies stay apart.
        (* keep *) always_ff @(posedge clk) begin
            if (rst) begin
                ready_q     <= 1'b0;
                out_valid_q <= 1'b0;
                tmp_valid_q <= 1'b0;
            end else begin
                ready_q     <= ready_d;
                out_valid_q <= out_valid_d;
                tmp_valid_q <= tmp_valid_d;
            end
        end

        assign ready_r[sl]     = ready_q;
        assign out_valid_r[sl] = out_valid_q;

        if (sl < NS) begin : g_data
            localparam int LO = sl * SLICE_W;
            localparam int SW = (BEAT_W - LO < SLICE_W) ? BEAT_W - LO : SLICE_W;

            logic [SW-1:0] out_beat_q;  // output register (data: not reset)
            logic [SW-1:0] tmp_beat_q;  // temporary register (data: not reset)

            // Data: no reset.
            always_ff @(posedge clk) begin
                if (load_out_from_in) begin
                    out_beat_q <= s_beat[LO +: SW];
                end else if (load_out_from_tmp) begin
                    out_beat_q <= tmp_beat_q;
                end
                if (load_tmp_from_in) begin
                    tmp_beat_q <= s_beat[LO +: SW];
                end
            end

            assign m_beat[LO +: SW] = out_beat_q;
        end else begin : g_flags_only
            logic unused_loads;
            assign unused_loads = load_out_from_in ^ load_out_from_tmp ^ load_tmp_from_in;
        end
    end

    // ------------------------------------------------------------------------------------
    // Outputs
    // ------------------------------------------------------------------------------------
    assign s_ready = ready_r[C_READY];
    assign m_valid = out_valid_r[C_VALID];

    // The other copies drive only their own slice.
    logic unused_copies;
    assign unused_copies = ^{ready_r, out_valid_r};

endmodule

`default_nettype wire
