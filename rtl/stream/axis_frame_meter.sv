// SPDX-License-Identifier: Apache-2.0
//
// axis_frame_meter — watches a stream's handshakes and reports each frame that leaves whole
// (its last beat without tuser): one `frame_valid` pulse with the frame's length in bytes,
// the cycle after its last beat. Feeds the TX counters of a block's CSR.

`default_nettype none

module axis_frame_meter #(
    // Bytes per beat.
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

    logic [15:0] acc;
    logic [15:0] beat_len;
    logic [16:0] total;

    always_comb begin
        beat_len = '0;
        for (int b = 0; b < KEEP_W; b++)
            if (tkeep[b]) beat_len = 16'(b + 1);
        total = {1'b0, acc} + {1'b0, beat_len};
    end

    always_ff @(posedge clk) begin
        frame_valid <= 1'b0;
        if (tvalid && tready) begin
            acc <= tlast ? 16'd0 : (total[16] ? 16'hFFFF : total[15:0]);
            if (tlast && !tuser) begin
                frame_valid <= 1'b1;
                frame_len   <= total[16] ? 16'hFFFF : total[15:0];
            end
        end
        if (rst) begin
            acc         <= '0;
            frame_valid <= 1'b0;
        end
    end

endmodule

`default_nettype wire
