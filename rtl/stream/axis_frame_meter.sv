// SPDX-License-Identifier: Apache-2.0
//
// axis_frame_meter — watches a stream's handshakes and reports each frame that leaves whole
// (its last beat without tuser): one `frame_valid` pulse with the frame's length in bytes,
// the cycle after its last beat. Feeds the TX counters of a block's CSR.
//
// The stream must keep the wirespeed contract: every beat before a frame's last is full and
// the last beat's tkeep is contiguous from bit 0 (axis_keep_check enforces it at each top's
// input; the meters watch the splice engine's output, which is whole by construction). So
// the length is (beats before the last) x KEEP_W + the last beat's bytes: a concatenation,
// or (beats before the last + 1) x KEEP_W, kept in a register, when the last beat is full.
// No adder lies between tkeep and the length register (an adder after a 64-deep priority
// chain was this block's critical path: docs/performance.md).
//
// Lengths of 65,536 bytes and more are reported as 65,535 (saturating).

`default_nettype none

module axis_frame_meter
    import stream_pkg::*;
#(
    // Bytes per beat: a power of two from 2 to 64.
    parameter int KEEP_W = 32
) (
    input  wire logic              clk,
    input  wire logic              rst,

    input  wire logic [KEEP_W-1:0] tkeep,
    input  wire logic              tvalid,
    input  wire logic              tready,
    input  wire logic              tlast,
    input  wire logic              tuser,

    output      logic              frame_valid,
    output      logic [15:0]       frame_len      // saturating
);

    localparam int BYTE_SH = $clog2(KEEP_W);
    // Full beats that fit in 16 bits of length; one more bit marks "65,536 bytes or more".
    localparam int BEATS_W = 16 - BYTE_SH;

    if ((1 << BYTE_SH) != KEEP_W || KEEP_W < 2 || KEEP_W > 64) begin : g_param_check
        $error("axis_frame_meter: KEEP_W (%0d) must be a power of two from 2 to 64", KEEP_W);
    end

    // Full beats of the frame before this one, and that plus one; bit BEATS_W set (sticky)
    // once the count reaches 2^BEATS_W beats, i.e. 65,536 bytes.
    logic [BEATS_W:0] beats, beats_p1;

    wire  [BYTE_SH:0] last_bytes = (BYTE_SH+1)'(keep_bytes(64'(tkeep)));
    wire              last_full  = last_bytes[BYTE_SH];

    logic [15:0] len;
    always_comb begin
        if (last_full) begin
            len = beats_p1[BEATS_W] ? 16'hFFFF : {beats_p1[BEATS_W-1:0], {BYTE_SH{1'b0}}};
        end else begin
            len = beats[BEATS_W] ? 16'hFFFF : {beats[BEATS_W-1:0], last_bytes[BYTE_SH-1:0]};
        end
    end

    always_ff @(posedge clk) begin
        frame_valid <= 1'b0;
        if (tvalid && tready) begin
            if (tlast) begin
                beats    <= '0;
                beats_p1 <= (BEATS_W+1)'(1);
            end else begin
                beats    <= beats_p1;
                if (!beats_p1[BEATS_W]) beats_p1 <= beats_p1 + 1'b1;
            end
            if (tlast && !tuser) begin
                frame_valid <= 1'b1;
                frame_len   <= len;
            end
        end
        if (rst) begin
            beats       <= '0;
            beats_p1    <= (BEATS_W+1)'(1);
            frame_valid <= 1'b0;
        end
    end

endmodule

`default_nettype wire
