// SPDX-License-Identifier: Apache-2.0
//
// pkt_chk: the checker of pkt_gen's frames (docs/host.md, "Generator and checker"). It
// watches an AXI4-Stream (tready is 1 after reset: it never stalls what it watches), keeps
// each frame's first 64 bytes by beat position and, at the frame's end, recognises a test
// frame (IPv4, UDP to PORT, at least 58 bytes): counts it and its bytes, compares its sequence
// number with the one expected (gaps: frames missing before it; late: a number below the
// expected), and measures its latency: ts_ns at its first beat here minus the timestamp in
// its payload (min, max, sum). Other frames are counted apart.
//
// Pipeline: C0 the beat registered; C1 the first 64 bytes gathered, the first beat's time
// latched; at the last beat, E1 the fields; E2 the counters, the sequence number compared;
// E3 the gap and late counters (their values one cycle after the others').

`default_nettype none

module pkt_chk #(
    // AXI4-Stream data width in bits (64, 128, 256 or 512)
    parameter int DATA_W = 512,
    // tkeep bits: one per byte
    parameter int KEEP_W = DATA_W / 8,
    parameter logic [15:0] PORT = 16'h5753
) (
    input  wire logic              clk,
    input  wire logic              rst,
    input  wire logic              clear,         // counters to zero, the expected number to 0

    input  wire logic [DATA_W-1:0] s_axis_tdata,
    input  wire logic [KEEP_W-1:0] s_axis_tkeep,
    input  wire logic              s_axis_tvalid,
    output      logic              s_axis_tready,
    input  wire logic              s_axis_tlast,
    input  wire logic [63:0]       ts_ns,

    output      logic [31:0]       frames,        // test frames
    output      logic [63:0]       bytes,         // their bytes
    output      logic [31:0]       others,        // frames that are not test frames
    output      logic [31:0]       gaps,          // test frames missing (by sequence number)
    output      logic [31:0]       late,          // numbers below the expected (reordered, repeated)
    output      logic [63:0]       lat_min,       // latency, ns (all ones until a frame)
    output      logic [63:0]       lat_max,
    output      logic [63:0]       lat_sum
);

    localparam int KW  = DATA_W / 8;
    localparam int HB  = 64;
    localparam int NHB = HB > KW ? HB / KW : 1;

    if (DATA_W != 64 && DATA_W != 128 && DATA_W != 256 && DATA_W != 512) begin : g_chk_dw
        $error("pkt_chk: DATA_W (%0d) must be 64, 128, 256 or 512", DATA_W);
    end
    if (KEEP_W * 8 != DATA_W) begin : g_chk_kw
        $error("pkt_chk: KEEP_W must be DATA_W / 8");
    end

    // C0
    logic              c0_v;
    logic [DATA_W-1:0] c0_data;
    logic              c0_last;
    logic [15:0]       c0_n;         // bytes in the beat
    logic [63:0]       c0_ts;
    logic              rdy_q;

    assign s_axis_tready = rdy_q;

    function automatic logic [15:0] count_keep(input logic [KEEP_W-1:0] k);
        logic [15:0] n;
        n = '0;
        for (int b = 0; b < KEEP_W; b++) begin
            if (k[b] && (b == KEEP_W - 1 || !k[(b + 1) % KEEP_W])) n = n | 16'(b + 1);
        end
        return n;
    endfunction

    always_ff @(posedge clk) begin
        if (rst) begin
            c0_v  <= 1'b0;
            rdy_q <= 1'b0;
        end else begin
            c0_v  <= s_axis_tvalid && rdy_q;
            rdy_q <= 1'b1;
        end
    end

    always_ff @(posedge clk) begin
        c0_data <= s_axis_tdata;
        c0_last <= s_axis_tlast;
        c0_n    <= count_keep(s_axis_tkeep);
        c0_ts   <= ts_ns;
    end

    // C1: the frame's first 64 bytes by beat position, its length, its first beat's time
    logic [8*HB-1:0] c1_hdr_q;
    logic [15:0]     c1_pos_q;      // bytes of the frame before this beat
    logic [63:0]     c1_t0_q;
    logic            e1_v;
    logic [8*HB-1:0] e1_hdr;
    logic [15:0]     e1_len;
    logic [63:0]     e1_t0;

    always_ff @(posedge clk) begin
        if (rst) begin
            c1_pos_q <= '0;
            e1_v     <= 1'b0;
        end else begin
            e1_v <= c0_v && c0_last;
            if (c0_v) c1_pos_q <= c0_last ? '0 : c1_pos_q + 16'(KW);
        end
    end

    always_ff @(posedge clk) begin
        logic [8*HB-1:0] h;
        logic [63:0]     t0;
        h  = c1_hdr_q;
        t0 = c1_pos_q == '0 ? c0_ts : c1_t0_q;
        for (int k = 0; k < NHB; k++) begin
            if (32'(c1_pos_q) == k * KW) begin
                for (int b = 0; b < KW && b < HB; b++) h[(k * KW + b)*8 +: 8] = c0_data[8*b +: 8];
            end
        end
        if (c0_v) begin
            c1_hdr_q <= h;
            c1_t0_q  <= t0;
        end
        e1_hdr <= h;
        e1_len <= c1_pos_q + c0_n;
        e1_t0  <= t0;
    end

    // E1 -> E2: the fields
    function automatic logic [63:0] be64(input logic [8*HB-1:0] h, input int at);
        logic [63:0] v;
        for (int i = 0; i < 8; i++) v[8*(7 - i) +: 8] = h[(at + i)*8 +: 8];
        return v;
    endfunction

    logic        e2_v;
    logic        e2_test;
    logic [15:0] e2_len;
    logic [63:0] e2_seq;
    logic [63:0] e2_lat;

    always_ff @(posedge clk) begin
        if (rst) begin
            e2_v <= 1'b0;
        end else begin
            e2_v <= e1_v;
        end
    end

    always_ff @(posedge clk) begin
        e2_test <= e1_len >= 16'd58 && e1_hdr[12*8 +: 16] == 16'h00_08 && e1_hdr[14*8 +: 4] == 4'h5
                   && e1_hdr[14*8 + 4 +: 4] == 4'h4 && e1_hdr[23*8 +: 8] == 8'h11
                   && e1_hdr[36*8 +: 16] == {PORT[7:0], PORT[15:8]};
        e2_len  <= e1_len;
        e2_seq  <= be64(e1_hdr, 42);
        e2_lat  <= e1_t0 - be64(e1_hdr, 50);
    end

    // E2: the counters a frame's fields decide alone, and the sequence number against the
    // expected one (compared and subtracted here, counted in E3: no 64-bit compare before a
    // counter's enable). The running minimum and maximum compare their 64 bits as two 32-bit
    // halves side by side.
    logic [63:0] exp_q;
    logic        e3_v, e3_gap, e3_late;
    logic [31:0] e3_gap_n;

    function automatic logic lt64(input logic [63:0] a, input logic [63:0] b);
        return a[63:32] < b[63:32] || (a[63:32] == b[63:32] && a[31:0] < b[31:0]);
    endfunction

    always_ff @(posedge clk) begin
        if (rst || clear) begin
            frames  <= '0;
            bytes   <= '0;
            others  <= '0;
            gaps    <= '0;
            late    <= '0;
            lat_min <= '1;
            lat_max <= '0;
            lat_sum <= '0;
            exp_q   <= '0;
            e3_v    <= 1'b0;
        end else begin
            e3_v <= e2_v && e2_test;
            if (e2_v) begin
                if (e2_test) begin
                    frames  <= frames + 1'b1;
                    bytes   <= bytes + 64'(e2_len);
                    exp_q   <= e2_seq + 1'b1;
                    if (lt64(e2_lat, lat_min)) lat_min <= e2_lat;
                    if (lt64(lat_max, e2_lat)) lat_max <= e2_lat;
                    lat_sum <= lat_sum + e2_lat;
                end else begin
                    others <= others + 1'b1;
                end
            end
            if (e3_v) begin
                gaps <= gaps + (e3_gap ? e3_gap_n : '0);
                late <= late + 32'(e3_late);
            end
        end
    end

    always_ff @(posedge clk) begin
        e3_gap   <= e2_seq > exp_q;
        e3_late  <= e2_seq < exp_q;
        e3_gap_n <= 32'(e2_seq - exp_q);
    end

endmodule

`default_nettype wire
