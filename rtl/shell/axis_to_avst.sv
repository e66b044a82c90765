// SPDX-License-Identifier: Apache-2.0
//
// axis_to_avst: AXI4-Stream to Avalon-ST packet sink (e.g. the Intel PAC N3000 MAC TX side).
// The reverse of avst_to_axis; the Avalon-ST conventions are the same:
//
//   * readyLatency = 0: a beat moves in a cycle where avst_valid and avst_ready are both 1.
//   * firstSymbolInHighOrderBits: byte 0 of the frame (s_axis_tdata[7:0]) goes to
//     avst_data[DATA_W-1 -: 8].
//   * avst_sop = 1 on the first beat of every frame (the beat after a tlast, or the first
//     beat after reset).
//   * avst_eop = tlast. avst_empty (meaningful with eop, 0 otherwise) = the number of unused
//     bytes at the end of the last beat = KEEP_W - (index of the lowest clear tkeep bit), 0
//     for a full beat. tkeep is expected contiguous from bit 0 and non-zero on tlast, as
//     axis_keep_check makes it at each top's input (holes are not represented; a last beat
//     with tkeep = 0 reads as a full one); on other beats tkeep is ignored (every byte is
//     data).
//   * avst_error = tuser on the tlast beat (aborted / bad frame), 0 on the others.
//
// Timing: the conversion is done before a two-slot beat_buffer (rtl/stream/); s_axis_tready
// and avst_valid are registers, and the other Avalon-ST outputs (sop and empty included) come
// from its slots through a 2:1 select on a register. Full throughput; latency one cycle (a
// beat taken in cycle t is on avst_* in cycle t+1 when the buffer was empty). No port reaches
// the load enable of a wide register: s_axis_tvalid and avst_ready steer only 1-bit state
// (the buffer's pointers and first_q).

`default_nettype none

module axis_to_avst
    import stream_pkg::*;
#(
    // Width of the data buses in bits (a power of two, at least 16)
    parameter int DATA_W = 256,
    // Width of tkeep (bytes per beat); not to be overridden
    parameter int KEEP_W = DATA_W / 8
) (
    input  wire logic                      clk,
    input  wire logic                      rst,

    // AXI4-Stream sink
    input  wire logic [DATA_W-1:0]         s_axis_tdata,
    input  wire logic [KEEP_W-1:0]         s_axis_tkeep,
    input  wire logic                      s_axis_tvalid,
    output      logic                      s_axis_tready,
    input  wire logic                      s_axis_tlast,
    input  wire logic                      s_axis_tuser,

    // Avalon-ST source (ready latency 0)
    output      logic [DATA_W-1:0]         avst_data,
    output      logic                      avst_valid,
    input  wire logic                      avst_ready,
    output      logic                      avst_sop,
    output      logic                      avst_eop,
    output      logic [$clog2(KEEP_W)-1:0] avst_empty,
    output      logic                      avst_error
);

    // ------------------------------------------------------------------------------------
    // Elaboration-time parameter checks
    // ------------------------------------------------------------------------------------
    if (DATA_W < 16 || (DATA_W & (DATA_W - 1)) != 0) begin : g_err_data_w
        $error("axis_to_avst: DATA_W (%0d) must be a power of two >= 16", DATA_W);
    end
    if (KEEP_W * 8 != DATA_W) begin : g_err_keep_w
        $error("axis_to_avst: KEEP_W (%0d) must be DATA_W/8", KEEP_W);
    end

    localparam int EMPTY_W = $clog2(KEEP_W);

    // ------------------------------------------------------------------------------------
    // Conversion (combinational)
    // ------------------------------------------------------------------------------------
    logic               first_q;      // the next input beat starts a frame
    logic [DATA_W-1:0]  conv_data;
    logic [KEEP_W-1:0]  unused_rev;   // unused byte lanes, bit-reversed
    logic [EMPTY_W-1:0] conv_empty;
    logic               conv_error;

    for (genvar i = 0; i < KEEP_W; i++) begin : g_byte
        assign conv_data[DATA_W-1-8*i -: 8] = s_axis_tdata[8*i +: 8];
    end

    // Unused bytes of a contiguous tkeep are its clear bits: bit-reversed and inverted, they
    // are a contiguous tkeep of `empty` bytes, counted by the log-depth tree of
    // stream_pkg::keep_bytes (a priority chain over tkeep then a subtraction was the 512-bit
    // build's critical path). A full beat counts KEEP_W, which is 0 in EMPTY_W bits.
    always_comb begin
        for (int i = 0; i < KEEP_W; i++) unused_rev[i] = !s_axis_tkeep[KEEP_W-1-i];
    end
    assign conv_empty = s_axis_tlast ? EMPTY_W'(keep_bytes(64'(unused_rev))) : '0;
    assign conv_error = s_axis_tlast && s_axis_tuser;

    // ------------------------------------------------------------------------------------
    // Two-slot beat buffer: registered s_axis_tready and Avalon-ST outputs
    // ------------------------------------------------------------------------------------
    localparam int BEAT_W = 3 + EMPTY_W + DATA_W; // {sop, empty, error, eop, data}

    logic [BEAT_W-1:0] in_beat, out_beat;
    assign in_beat = {first_q, conv_empty, conv_error, s_axis_tlast, conv_data};

    beat_buffer #(
        .BEAT_W  (BEAT_W),
        .SEL_BITS(32)
    ) u_buf (
        .clk    (clk),
        .rst    (rst),
        .s_beat (in_beat),
        .s_valid(s_axis_tvalid),
        .s_ready(s_axis_tready),
        .m_beat (out_beat),
        .m_valid(avst_valid),
        .m_ready(avst_ready)
    );

    // sop of the next input beat: the tlast of the beat taken last (1 after reset).
    always_ff @(posedge clk) begin
        if (s_axis_tvalid && s_axis_tready) first_q <= s_axis_tlast;
        if (rst) first_q <= 1'b1;
    end

    assign {avst_sop, avst_empty, avst_error, avst_eop, avst_data} = out_beat;

endmodule

`default_nettype wire
