// SPDX-License-Identifier: Apache-2.0
//
// axis_timestamp: stamps every frame at its first beat (docs/host.md). The stream passes
// through a register slice unchanged; m_axis_tts carries, on every beat of a frame, ts_ns as
// it was in the cycle the frame's first beat was accepted (s_axis_tvalid && s_axis_tready).
// Consumers sample it on any beat (dma_ring_writer: on tlast).
//
// Latency 1 cycle; one beat per cycle. s_axis_tready is a register (the slice's second
// entry takes the beat the output could not), so m_axis_tready reaches only flip-flops.
// Stamps of successive frames never decrease unless the clock is set or adjusted backwards.

`default_nettype none

module axis_timestamp #(
    // Bus width in bits (64, 128, 256 or 512)
    parameter int DATA_W = 256,
    // tkeep bits: one per byte
    parameter int KEEP_W = DATA_W / 8,
    // tuser bits (1..64), passed through
    parameter int USER_W = 1
) (
    input  wire logic              clk,
    input  wire logic              rst,

    input  wire logic [63:0]       ts_ns,          // ts_clock's time

    input  wire logic [DATA_W-1:0] s_axis_tdata,
    input  wire logic [KEEP_W-1:0] s_axis_tkeep,
    input  wire logic              s_axis_tvalid,
    output      logic              s_axis_tready,
    input  wire logic              s_axis_tlast,
    input  wire logic [USER_W-1:0] s_axis_tuser,

    output      logic [DATA_W-1:0] m_axis_tdata,
    output      logic [KEEP_W-1:0] m_axis_tkeep,
    output      logic              m_axis_tvalid,
    input  wire logic              m_axis_tready,
    output      logic              m_axis_tlast,
    output      logic [USER_W-1:0] m_axis_tuser,
    output      logic [63:0]       m_axis_tts      // the frame's stamp, on every beat
);

    if (DATA_W != 64 && DATA_W != 128 && DATA_W != 256 && DATA_W != 512) begin : g_check_data_w
        $error("axis_timestamp: DATA_W (%0d) must be 64, 128, 256 or 512", DATA_W);
    end
    if (KEEP_W * 8 != DATA_W) begin : g_check_keep_w
        $error("axis_timestamp: KEEP_W must be DATA_W / 8");
    end
    if (USER_W < 1 || USER_W > 64) begin : g_check_user_w
        $error("axis_timestamp: USER_W (%0d) must be 1..64", USER_W);
    end

    localparam int BW = DATA_W + KEEP_W + 1 + USER_W + 64;

    logic          first_q;     // the next accepted beat starts a frame
    logic [63:0]   held_q;      // data: the current frame's stamp
    logic [63:0]   stamp;
    logic          s_hs;
    logic [BW-1:0] in_beat;

    assign s_hs    = s_axis_tvalid && s_axis_tready;
    assign stamp   = first_q ? ts_ns : held_q;
    assign in_beat = {s_axis_tdata, s_axis_tkeep, s_axis_tlast, s_axis_tuser, stamp};

    always_ff @(posedge clk) begin
        if (rst) begin
            first_q <= 1'b1;
        end else if (s_hs) begin
            first_q <= s_axis_tlast;
        end
    end

    always_ff @(posedge clk) begin
        if (s_hs && first_q) held_q <= ts_ns;
    end

    // Register slice: output register and one spare entry
    logic          out_v_q;
    logic          tmp_v_q;
    logic [BW-1:0] out_q;       // data
    logic [BW-1:0] tmp_q;       // data
    logic          ready_q;

    assign s_axis_tready = ready_q;
    assign m_axis_tvalid = out_v_q;
    assign {m_axis_tdata, m_axis_tkeep, m_axis_tlast, m_axis_tuser, m_axis_tts} = out_q;

    logic take;   // the output register is free or being emptied
    assign take = !out_v_q || m_axis_tready;

    always_ff @(posedge clk) begin
        if (rst) begin
            out_v_q <= 1'b0;
            tmp_v_q <= 1'b0;
            ready_q <= 1'b0;
        end else begin
            if (take) begin
                out_v_q <= tmp_v_q || s_hs;
                tmp_v_q <= 1'b0;
            end else if (s_hs) begin
                tmp_v_q <= 1'b1;
            end
            // Ready next cycle when the spare entry will be empty
            ready_q <= take ? 1'b1 : !(tmp_v_q || s_hs);
        end
    end

    always_ff @(posedge clk) begin
        if (take) begin
            out_q <= tmp_v_q ? tmp_q : in_beat;
        end
        if (s_hs && !(take && !tmp_v_q)) begin
            tmp_q <= in_beat;
        end
    end

endmodule

`default_nettype wire
