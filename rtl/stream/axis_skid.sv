// SPDX-License-Identifier: Apache-2.0
//
// axis_skid: AXI4-Stream register slice ("skid buffer").
//
// Every output, s_axis_tready included, comes straight from a flip-flop, so the slice cuts
// every combinational path between its two sides (tvalid/tdata forward, tready backward).
// It moves one beat per cycle when the output is not stalled and adds one cycle of latency.
//
// Structure: an output register (m_*) and one temporary register (tmp_*). s_axis_tready is
// registered, so when the output stalls the slice has already promised to take the beat
// offered in that cycle; that beat lands in the temporary register and s_axis_tready falls
// for the next cycle. When the output drains, the temporary beat moves to the output first.
//
//   s_axis_tready(next) = m_axis_tready
//                      || (!tmp_valid && (!m_valid || !s_axis_tvalid))
//
// i.e. ready stays high while the output moves, or while the temporary register is empty and
// will not be filled in this cycle.

`default_nettype none

module axis_skid #(
    // Width of tdata in bits (a multiple of 8)
    parameter int DATA_W = 64,
    // Width of tkeep in bits (one bit per byte of tdata)
    parameter int KEEP_W = DATA_W / 8,
    // Width of tuser in bits
    parameter int USER_W = 1
) (
    input  wire logic              clk,
    input  wire logic              rst,

    // AXI4-Stream input
    input  wire logic [DATA_W-1:0] s_axis_tdata,
    input  wire logic [KEEP_W-1:0] s_axis_tkeep,
    input  wire logic              s_axis_tvalid,
    output      logic              s_axis_tready,
    input  wire logic              s_axis_tlast,
    input  wire logic [USER_W-1:0] s_axis_tuser,

    // AXI4-Stream output
    output      logic [DATA_W-1:0] m_axis_tdata,
    output      logic [KEEP_W-1:0] m_axis_tkeep,
    output      logic              m_axis_tvalid,
    input  wire logic              m_axis_tready,
    output      logic              m_axis_tlast,
    output      logic [USER_W-1:0] m_axis_tuser
);

    // ------------------------------------------------------------------------------------
    // Elaboration-time parameter checks
    // ------------------------------------------------------------------------------------
    if (DATA_W < 8 || DATA_W % 8 != 0) begin : g_err_data_w
        $error("axis_skid: DATA_W (%0d) must be a positive multiple of 8", DATA_W);
    end
    if (KEEP_W * 8 != DATA_W) begin : g_err_keep_w
        $error("axis_skid: KEEP_W (%0d) must be DATA_W/8", KEEP_W);
    end
    if (USER_W < 1) begin : g_err_user_w
        $error("axis_skid: USER_W (%0d) must be at least 1", USER_W);
    end

    // One beat, packed: {tuser, tlast, tkeep, tdata}
    localparam int BEAT_W = USER_W + 1 + KEEP_W + DATA_W;

    // ------------------------------------------------------------------------------------
    // State
    // ------------------------------------------------------------------------------------
    logic              ready_q;     // registered s_axis_tready
    logic              out_valid_q; // output register holds a beat
    logic              tmp_valid_q; // temporary register holds a beat
    logic [BEAT_W-1:0] out_beat_q;  // output register (data: not reset)
    logic [BEAT_W-1:0] tmp_beat_q;  // temporary register (data: not reset)

    logic [BEAT_W-1:0] in_beat;
    assign in_beat = {s_axis_tuser, s_axis_tlast, s_axis_tkeep, s_axis_tdata};

    // ------------------------------------------------------------------------------------
    // Next-state logic
    // ------------------------------------------------------------------------------------
    logic ready_d;
    logic out_valid_d;
    logic tmp_valid_d;
    logic load_out_from_in;  // output register <- input beat
    logic load_out_from_tmp; // output register <- temporary register
    logic load_tmp_from_in;  // temporary register <- input beat

    // The output register may be (re)loaded when it is empty or being consumed.
    logic out_free;
    assign out_free = m_axis_tready || !out_valid_q;

    assign ready_d = m_axis_tready || (!tmp_valid_q && (!out_valid_q || !s_axis_tvalid));

    always_comb begin
        out_valid_d       = out_valid_q;
        tmp_valid_d       = tmp_valid_q;
        load_out_from_in  = 1'b0;
        load_out_from_tmp = 1'b0;
        load_tmp_from_in  = 1'b0;

        if (ready_q) begin
            // The input side is open (so the temporary register is empty).
            if (out_free) begin
                out_valid_d      = s_axis_tvalid;
                load_out_from_in = s_axis_tvalid;
            end else begin
                tmp_valid_d      = s_axis_tvalid;
                load_tmp_from_in = s_axis_tvalid;
            end
        end else if (m_axis_tready) begin
            // Input closed (temporary register full): drain it into the output register.
            out_valid_d       = tmp_valid_q;
            tmp_valid_d       = 1'b0;
            load_out_from_tmp = 1'b1;
        end
    end

    // ------------------------------------------------------------------------------------
    // Registers
    // ------------------------------------------------------------------------------------
    // Control state: synchronous reset.
    always_ff @(posedge clk) begin
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

    // Data: no reset.
    always_ff @(posedge clk) begin
        if (load_out_from_in) begin
            out_beat_q <= in_beat;
        end else if (load_out_from_tmp) begin
            out_beat_q <= tmp_beat_q;
        end
        if (load_tmp_from_in) begin
            tmp_beat_q <= in_beat;
        end
    end

    // ------------------------------------------------------------------------------------
    // Outputs
    // ------------------------------------------------------------------------------------
    assign s_axis_tready = ready_q;
    assign m_axis_tvalid = out_valid_q;
    assign {m_axis_tuser, m_axis_tlast, m_axis_tkeep, m_axis_tdata} = out_beat_q;

endmodule

`default_nettype wire
