// SPDX-License-Identifier: Apache-2.0
//
// region_sum_pipe — the one's-complement sum of a frame region, in registered steps, for a
// pipelined parser's frame-end verdict (GRE checksum, UDP checksum).
//
// A parser without pipeline cuts has hdr_window sum the region from the live beat, in the
// cycle the region becomes known. A pipelined parser knows the region only after its cuts,
// so it sums the beats as they leave its last cut instead: how many leading bytes of the beat
// lie before the region end (v0), their word sum (v1), then the running sum (out), with the
// bytes before the region start taken out once by `head` (the complement of their sum, given
// with the beat the region becomes known on).
//
//   frame:  |<-- taken out by head -->|<------ summed region ------>|<- padding ->|
//           0                         start                          end
//
//   beat ─► v0: bytes in the region ─► v1: beat word sum ─► running sum (out_*, combinational)
//
// `out_valid` is high two cycles after a frame's last beat, with the frame's sum and the
// `meta` given with that beat; the caller registers its verdict from them.

`default_nettype none

module region_sum_pipe
    import parse_pkg::*;
#(
    // Width of the data bus in bits: 64, 128, 256 or 512.
    parameter int DATA_W = 256,
    // Bytes per beat.
    parameter int KEEP_W = DATA_W / 8,
    // Width of byte positions.
    parameter int POS_W = 24,
    // Width of the region end.
    parameter int END_W = 17,
    // Width of the per-beat data carried beside the sum (the caller's frame-end figures).
    parameter int META_W = 1
) (
    input  wire logic                     clk,
    input  wire logic                     rst,

    // A beat of the stream, as the parser's last cut hands it on.
    input  wire logic                     s_hs,
    input  wire logic                     s_tlast,
    input  wire logic [DATA_W-1:0]        s_tdata,
    input  wire logic [$clog2(KEEP_W):0]  s_len,    // bytes of the frame in this beat
    input  wire logic [POS_W-1:0]         s_have,   // bytes of the frame up to its end
    input  wire logic [META_W-1:0]        s_meta,

    input  wire logic                     region_known,   // in or before this beat
    input  wire logic [END_W-1:0]         region_end,
    input  wire logic [15:0]              head,           // added once; 0 on other beats

    output      logic                     out_valid,      // the frame's last beat's sum
    output      logic [15:0]              out_sum,
    output      logic [META_W-1:0]        out_meta
);

    localparam int LEN_BITS = $clog2(KEEP_W) + 1;

    if (DATA_W != 64 && DATA_W != 128 && DATA_W != 256 && DATA_W != 512) begin : g_param_check_1
        $error("region_sum_pipe: DATA_W must be 64, 128, 256 or 512");
    end
    if (END_W > POS_W) begin : g_param_check_2
        $error("region_sum_pipe: END_W must not exceed POS_W");
    end

    // Leading bytes of this beat in the region: one subtraction and a clamp, then per-byte
    // compares with constants (not a position compare per byte).
    logic [POS_W-1:0]        pos;
    logic signed [POS_W+1:0] to_end;
    logic [LEN_BITS-1:0]     take;
    always_comb begin
        pos    = s_have - POS_W'(s_len);
        to_end = signed'((POS_W+2)'(region_end)) - signed'((POS_W+2)'(pos));
        take   = s_len;
        if (region_known) begin
            if (to_end <= 0) take = '0;
            else if (to_end < signed'((POS_W+2)'(s_len))) take = LEN_BITS'(to_end);
        end
    end

    // v0: the beat and its bytes in the region.
    logic                v0_hs, v0_last;
    logic [DATA_W-1:0]   v0_tdata;
    logic [LEN_BITS-1:0] v0_take;
    logic [15:0]         v0_head;
    logic [META_W-1:0]   v0_meta;
    always_ff @(posedge clk) begin
        v0_hs <= s_hs;
        if (s_hs) begin
            v0_tdata <= s_tdata;
            v0_take  <= take;
            v0_last  <= s_tlast;
            v0_head  <= head;
            v0_meta  <= s_meta;
        end
        if (rst) v0_hs <= 1'b0;
    end

    logic [31:0]       beat_sum;
    logic [63:0][15:0] bw;
    always_comb begin
        bw = '0;
        for (int w = 0; w < KEEP_W / 2; w++) begin
            logic [7:0] hi, lo;
            hi = (2*w     < int'(v0_take)) ? v0_tdata[16*w +: 8]     : 8'h00;
            lo = (2*w + 1 < int'(v0_take)) ? v0_tdata[16*w + 8 +: 8] : 8'h00;
            bw[w] = {hi, lo};
        end
        beat_sum = word_sum(bw);
    end

    // v1: the beat's sum.
    logic              v1_hs, v1_last, v1_first;
    logic              v1_in_first;      // the next beat into v1 starts a frame
    logic [31:0]       v1_sum;           // unfolded: the fold is the running sum's
    logic [15:0]       v1_head;
    logic [META_W-1:0] v1_meta;
    always_ff @(posedge clk) begin
        v1_hs <= v0_hs;
        if (v0_hs) begin
            v1_in_first <= v0_last;
            v1_first    <= v1_in_first;
            v1_last     <= v0_last;
            v1_sum      <= beat_sum;
            v1_head     <= v0_head;
            v1_meta     <= v0_meta;
        end
        if (rst) begin
            v1_hs       <= 1'b0;
            v1_in_first <= 1'b1;
        end
    end

    // The running sum, kept per beat; the frame's on its last beat.
    logic [15:0] acc;
    always_comb begin
        // (v1_sum < 2^21: no carry out of 32 bits.)
        out_sum   = oc_fold({16'h0, v1_first ? 16'h0 : acc} + v1_sum + {16'h0, v1_head});
        out_valid = v1_hs && v1_last;
        out_meta  = v1_meta;
    end
    always_ff @(posedge clk) begin
        if (v1_hs) acc <= out_sum;
    end

endmodule

`default_nettype wire
