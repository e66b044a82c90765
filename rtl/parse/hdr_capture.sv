// SPDX-License-Identifier: Apache-2.0
//
// hdr_capture — the first HDR_BYTES bytes of each frame, captured into registers by beat
// position (as eth_axis_rx captures by beat pointer), handed on once per frame.
//
// Byte i of the window is written from lane i % KEEP_W of beat i / KEEP_W: a fixed wire per
// byte and a write enable per beat, no shifting. The stream's beat is first copied into a
// register (loaded every cycle, no enable) beside a one-hot of registered write enables, one
// per window beat: the window's registers see only registers on their data and enable pins,
// so the stream's handshake (s_hs, a tready from far away) reaches a few flip-flops only.
// `hdr_valid` rises for one cycle when the window holds the beat that completes it, or the
// frame's last beat when the frame is shorter. In that cycle `hdr_q` holds the window, and
// hdr_beat * KEEP_W + the bytes of hdr_keep of it belong to the frame (the rest are stale,
// never read as data: every consumer compares offsets with that count; the count is left to
// the consumer's first stage so that no tkeep tree sits on the capture path). The next frame's
// first beat may be written in that same cycle, so a consumer registers what it needs in the
// cycle `hdr_valid` is high: no copy of the window.
//
//   frame:  | beat 0 | beat 1 | ... | beat HDR_BYTES/KEEP_W - 1 | beats after: not captured
//   hdr_q:  |<--------------------- HDR_BYTES ---------------->|
//
// Latency: hdr_valid is high 2 cycles after the completing beat's handshake (input register,
// window register).

`default_nettype none

module hdr_capture #(
    // Width of the data bus in bits: 64, 128, 256 or 512.
    parameter int DATA_W = 256,
    // Bytes captured (a multiple of DATA_W/8, at most 255 so that a byte count fits 8 bits).
    parameter int HDR_BYTES = 128
) (
    input  wire logic                    clk,
    input  wire logic                    rst,

    // The stream watched (handshake = tvalid && tready); tkeep contiguous from bit 0.
    input  wire logic [DATA_W-1:0]       s_tdata,
    input  wire logic [DATA_W/8-1:0]     s_tkeep,
    input  wire logic                    s_hs,
    input  wire logic                    s_tlast,
    input  wire logic                    s_tuser,

    // The registered copy of the stream's beat and its one-hot window write enables (bit b:
    // the beat is window beat b), for fields a consumer captures itself by beat position in
    // step with the window.
    output      logic [DATA_W-1:0]       beat_tdata,
    output      logic [HDR_BYTES/(DATA_W/8)-1:0] beat_wen,

    output      logic                    hdr_valid,   // one cycle per frame
    output      logic [HDR_BYTES*8-1:0]  hdr_q,       // byte i = bits [8i +: 8]
    output      logic [7:0]              hdr_beat,    // index of the window's last beat
    output      logic [DATA_W/8-1:0]     hdr_keep,    // tkeep of that beat
    output      logic                    hdr_whole,   // the frame ended inside the window
    output      logic                    hdr_rx_err   // its last beat had tuser (hdr_whole only)
);

    localparam int KEEP_W    = DATA_W / 8;
    localparam int HDR_BEATS = HDR_BYTES / KEEP_W;
    localparam int BEAT_W    = (HDR_BEATS > 1) ? $clog2(HDR_BEATS) : 1;

    if (DATA_W != 64 && DATA_W != 128 && DATA_W != 256 && DATA_W != 512) begin : g_check_w
        $error("hdr_capture: DATA_W must be 64, 128, 256 or 512");
    end
    if (HDR_BYTES % KEEP_W != 0 || HDR_BYTES > 255 || HDR_BYTES < KEEP_W) begin : g_check_b
        $error("hdr_capture: HDR_BYTES must be a multiple of DATA_W/8, at most 255");
    end

    // Beat index within the window; `beat_full_q` once the window is complete (the frame's
    // later beats are not captured and raise nothing).
    logic [BEAT_W-1:0] beat_q;
    logic              beat_full_q;
    wire               last_win_beat = beat_q == BEAT_W'(HDR_BEATS - 1);
    wire               take = s_hs && !beat_full_q;

    always_ff @(posedge clk) begin
        if (s_hs) begin
            if (s_tlast) begin
                beat_q      <= '0;
                beat_full_q <= 1'b0;
            end else if (take) begin
                if (last_win_beat) beat_full_q <= 1'b1;
                else               beat_q <= beat_q + 1'b1;
            end
        end
        if (rst) begin
            beat_q      <= '0;
            beat_full_q <= 1'b0;
        end
    end

    // ---- input register: the beat, its window enables, the frame's end -------------------
    logic [DATA_W-1:0]    in_data_q;
    logic [HDR_BEATS-1:0] in_wen_q;
    logic                 in_fin_q, in_whole_q, in_rx_err_q;
    logic [7:0]           in_beat_q;
    logic [KEEP_W-1:0]    in_keep_q;

    // Kept: the stream's other consumers (the edit engine's input register) register the same
    // beat, and a merged register would drive both ends of the die.
    (* keep *) always_ff @(posedge clk) begin
        in_data_q <= s_tdata;
        for (int b = 0; b < HDR_BEATS; b++) begin
            in_wen_q[b] <= take && beat_q == BEAT_W'(b);
        end
        in_fin_q    <= take && (s_tlast || last_win_beat);
        in_beat_q   <= 8'(beat_q);
        in_keep_q   <= s_tkeep;
        in_whole_q  <= s_tlast;
        in_rx_err_q <= s_tlast && s_tuser;
        if (rst) begin
            in_wen_q <= '0;
            in_fin_q <= 1'b0;
        end
    end

    assign beat_tdata = in_data_q;
    assign beat_wen   = in_wen_q;

    // ---- window register -------------------------------------------------------------------
    always_ff @(posedge clk) begin
        for (int b = 0; b < HDR_BEATS; b++) begin
            if (in_wen_q[b]) hdr_q[b*DATA_W +: DATA_W] <= in_data_q;
        end
    end

    always_ff @(posedge clk) begin
        hdr_valid <= in_fin_q;
        if (in_fin_q) begin
            hdr_beat   <= in_beat_q;
            hdr_keep   <= in_keep_q;
            hdr_whole  <= in_whole_q;
            hdr_rx_err <= in_rx_err_q;
        end
        if (rst) hdr_valid <= 1'b0;
    end

endmodule

`default_nettype wire
