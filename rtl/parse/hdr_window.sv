// SPDX-License-Identifier: Apache-2.0
//
// hdr_window — the first HDR_BYTES bytes of the frame on a stream, as a parser sees them.
//
// Watches the handshakes of a stream and keeps each frame's leading bytes in registers. The
// `view` merges them with the beat being handed over in this cycle, so a parser can decide in
// the cycle of the beat that completes its headers: byte i of `view` is valid when i < `have`.
//
// It also keeps a running one's-complement sum of the frame's bytes, for checksums that cover
// a frame from a header to the IP end (GRE checksum, UDP checksum): once the parser knows the
// region [region_start, region_end) — `region_known`, from the cycle it decides — bytes at and
// past region_end are left out, the bytes before region_start are taken out, and
// `region_sum` on the frame's last beat is the sum over the region.
//
//   frame:  |<-- region_start -->|<------ summed region ------>|<- padding ->|
//           0                    start                          end

`default_nettype none

module hdr_window
    import parse_pkg::*;
    import stream_pkg::*;
#(
    // Width of the data bus in bits: 64, 128, 256 or 512.
    parameter int DATA_W = 256,
    // Bytes per beat.
    parameter int KEEP_W = DATA_W / 8,
    // Leading bytes kept for parsing (a multiple of KEEP_W).
    parameter int HDR_BYTES = 128,
    // Width of byte positions (saturating).
    parameter int POS_W = 24,
    // Largest region_start a parser uses (bytes before the region taken out of the sum).
    parameter int HEAD_MAX = 96
) (
    input  wire logic                   clk,
    input  wire logic                   rst,

    input  wire logic [DATA_W-1:0]      s_tdata,
    input  wire logic [KEEP_W-1:0]      s_tkeep,
    input  wire logic                   s_hs,        // tvalid && tready
    input  wire logic                   s_tlast,

    output      logic [7:0]             view [HDR_BYTES],
    output      logic [POS_W-1:0]       have,        // bytes of the frame up to this beat's end
    output      logic [$clog2(KEEP_W):0] beat_len,   // bytes of the frame in this beat

    input  wire logic                   region_known,     // this cycle or earlier
    input  wire logic                   region_decide,    // region_known rises in this cycle
    input  wire logic [6:0]             region_start,     // < HDR_BYTES, even
    input  wire logic [16:0]            region_end,
    output      logic [15:0]            region_sum        // with the last beat
);

    localparam int BYTE_SH   = $clog2(KEEP_W);
    localparam int HDR_BEATS = HDR_BYTES / KEEP_W;

    if (HDR_BYTES % KEEP_W != 0 || HDR_BYTES > 128) begin : g_param_check_1
        $error("hdr_window: HDR_BYTES must be a multiple of KEEP_W and at most 128");
    end
    if (HEAD_MAX % 2 != 0 || HEAD_MAX > HDR_BYTES) begin : g_param_check_2
        $error("hdr_window: HEAD_MAX must be even and at most HDR_BYTES");
    end

    logic [7:0]       hdr [HDR_BYTES];
    logic [POS_W-1:0] in_pos;
    logic [POS_W-1:0] pos;          // bytes of the frame before this beat
    logic             in_first;
    logic [BYTE_SH:0] live_len;
    logic [15:0]      acc;

    always_comb begin
        // (keep_bytes: a log-depth tree, not a KEEP_W-deep priority chain.)
        live_len = s_tlast ? (BYTE_SH+1)'(keep_bytes(64'(s_tkeep))) : (BYTE_SH+1)'(KEEP_W);
        pos   = in_first ? '0 : in_pos;
        have  = pos + POS_W'(live_len);
        beat_len = live_len;
        // Beat slot s of the window is the live beat when the frame is at that beat.
        for (int s = 0; s < HDR_BEATS; s++) begin
            if (pos == POS_W'(s * KEEP_W))
                for (int b = 0; b < KEEP_W; b++) view[s*KEEP_W + b] = s_tdata[8*b +: 8];
            else
                for (int b = 0; b < KEEP_W; b++) view[s*KEEP_W + b] = hdr[s*KEEP_W + b];
        end
    end

    // Running sum: this beat's bytes below the region end, plus (once) the complement of the
    // bytes before the region start.
    logic [31:0] beat_sum, head_sum;
    logic [63:0][15:0] bw, hw;
    always_comb begin
        bw = '0;
        for (int w = 0; w < KEEP_W / 2; w++) begin
            logic [POS_W-1:0] p;
            logic [7:0] hi, lo;
            p  = pos + POS_W'(2*w);
            hi = s_tdata[16*w +: 8];
            lo = s_tdata[16*w + 8 +: 8];
            if ((region_known && p >= POS_W'(region_end)) || 2*w >= int'(live_len)) hi = 8'h00;
            if ((region_known && p + 1 >= POS_W'(region_end)) || 2*w + 1 >= int'(live_len)) lo = 8'h00;
            bw[w] = {hi, lo};
        end
        beat_sum = word_sum(bw);        // adder trees (parse_pkg)
        hw = '0;
        for (int w = 0; w < HEAD_MAX / 2; w++)
            if (7'(2*w) < region_start) hw[w] = {view[2*w], view[2*w + 1]};
        head_sum = word_sum(hw);
        region_sum = oc_fold({16'h0, in_first ? 16'h0 : acc} + {16'h0, oc_fold(beat_sum)} +
                             {16'h0, region_decide ? ~oc_fold(head_sum) : 16'h0});
    end

    always_ff @(posedge clk) begin
        if (s_hs) begin
            for (int s = 0; s < HDR_BEATS; s++)
                if (pos == POS_W'(s * KEEP_W))
                    for (int b = 0; b < KEEP_W; b++) hdr[s*KEEP_W + b] <= s_tdata[8*b +: 8];
            in_pos   <= (have < pos) ? '1 : have;    // saturate
            in_first <= s_tlast;
            acc      <= region_sum;
        end
        if (rst) begin
            in_first <= 1'b1;
            in_pos   <= '0;
        end
    end

endmodule

`default_nettype wire
