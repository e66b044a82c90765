// SPDX-License-Identifier: Apache-2.0
//
// axis_skid: AXI4-Stream register slice ("skid buffer"): reg_slice (rtl/stream/) on the
// packed beat {tuser, tlast, tkeep, tdata}.
//
// Every output, s_axis_tready included, comes straight from a flip-flop, so the slice cuts
// every combinational path between its two sides (tvalid/tdata forward, tready backward).
// It moves one beat per cycle when the output is not stalled. Latency one cycle: a beat
// taken in cycle t is on m_axis in cycle t+1 when the slice was empty. The structure (an
// output register and a temporary register behind a registered s_axis_tready) is
// reg_slice's, SLICE_W and READY_N included: a wide slice is built in SLICE_W-bit pieces of
// the packed beat (tdata's low bits first), each with its own copies of the flags, and slice
// sl of them takes copy sl % READY_N of m_axis_tready.

`default_nettype none

module axis_skid #(
    // Width of tdata in bits (a multiple of 8)
    parameter int DATA_W = 64,
    // Width of tkeep in bits (one bit per byte of tdata)
    parameter int KEEP_W = DATA_W / 8,
    // Width of tuser in bits
    parameter int USER_W = 1,
    // Bits of the packed beat per copy of the load enables (reg_slice; default: one piece)
    parameter int SLICE_W = DATA_W + KEEP_W + 1 + USER_W,
    // Copies of m_axis_tready (identical values) the consumer hands in (reg_slice)
    parameter int READY_N = 1
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
    input  wire logic [READY_N-1:0] m_axis_tready,
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
    if (SLICE_W < 1 || READY_N < 1) begin : g_err_slice
        $error("axis_skid: SLICE_W (%0d) and READY_N (%0d) must be at least 1", SLICE_W, READY_N);
    end

    // One beat, packed: {tuser, tlast, tkeep, tdata}
    localparam int BEAT_W = USER_W + 1 + KEEP_W + DATA_W;

    logic [BEAT_W-1:0] out_beat;

    reg_slice #(
        .BEAT_W(BEAT_W),
        .SLICE_W(SLICE_W),
        .READY_N(READY_N)
    ) u_slice (
        .clk    (clk),
        .rst    (rst),
        .s_beat ({s_axis_tuser, s_axis_tlast, s_axis_tkeep, s_axis_tdata}),
        .s_valid(s_axis_tvalid),
        .s_ready(s_axis_tready),
        .m_beat (out_beat),
        .m_valid(m_axis_tvalid),
        .m_ready(m_axis_tready)
    );

    assign {m_axis_tuser, m_axis_tlast, m_axis_tkeep, m_axis_tdata} = out_beat;

endmodule

`default_nettype wire
