// SPDX-License-Identifier: Apache-2.0
//
// pkt_gen: a line-rate test frame generator, the seed's "traffic generation inside our FPGA
// firmware" (CESNET/Netcope capture demo; docs/host.md, "Generator and checker").
//
// Frames are Ethernet / IPv4 / UDP, bus bytes (no FCS):
//   0 dst 02:00:00:00:00:02, 6 src 02:00:00:00:00:01, 12 0x0800
//   14 IPv4: 45 00 total-length id=seq[15:0] 00 00 40 11 checksum, src 10.0.F.F (F = the
//      flow, 16 bits), dst 10.1.0.1
//   34 UDP: sport 1024 + flow, dport PORT (0x5753), length, checksum 0
//   42 u64 sequence number (big-endian, from 0), 50 u64 timestamp: ts_ns when the frame's
//      first beat leaves (big-endian); then zeros.
// Lengths sweep cfg_len_min .. cfg_len_max (bus bytes, 60..16383), one more each frame,
// wrapping; the flow counts 0 .. cfg_flows - 1 (0 or 1: one flow), wrapping. Rate: a token
// bucket of wire bytes (frame + FCS + preamble + gap = bus bytes + 24) refilled by cfg_rate
// bytes a cycle (8.16 fixed point; 0: back to back); cfg_count frames (0: until en falls).
// Configuration is sampled while en is low; counters restart when en rises; when en falls
// the frame being sent is finished and no other starts.
//
// Pipeline: B1 the frame's fields (length, flow, sequence); B2 the IPv4 checksum's partial
// sums; B3 the 64-byte header; H the header held for the sender. The sender sends one beat a
// cycle, frames back to back when the bucket allows (a frame needs its header in H).

`default_nettype none

module pkt_gen #(
    // AXI4-Stream data width in bits (64, 128, 256 or 512)
    parameter int DATA_W = 512,
    // tkeep bits: one per byte
    parameter int KEEP_W = DATA_W / 8,
    // the UDP destination port the checker recognises
    parameter logic [15:0] PORT = 16'h5753
) (
    input  wire logic              clk,
    input  wire logic              rst,

    input  wire logic              en,
    input  wire logic [15:0]       cfg_len_min,
    input  wire logic [15:0]       cfg_len_max,
    input  wire logic [23:0]       cfg_rate,     // wire bytes a cycle, 8.16; 0 = back to back
    input  wire logic [15:0]       cfg_flows,
    input  wire logic [31:0]       cfg_count,    // 0 = no limit
    input  wire logic [63:0]       ts_ns,

    output      logic [DATA_W-1:0] m_axis_tdata,
    output      logic [KEEP_W-1:0] m_axis_tkeep,
    output      logic              m_axis_tvalid,
    input  wire logic              m_axis_tready,
    output      logic              m_axis_tlast,

    output      logic [31:0]       sent_frames,
    output      logic [63:0]       sent_bytes
);

    localparam int KW    = DATA_W / 8;
    localparam int HB    = 64;                    // header bytes kept (58 used)
    localparam int NHB   = HB > KW ? HB / KW : 1; // beats that carry header bytes

    if (DATA_W != 64 && DATA_W != 128 && DATA_W != 256 && DATA_W != 512) begin : g_chk_dw
        $error("pkt_gen: DATA_W (%0d) must be 64, 128, 256 or 512", DATA_W);
    end
    if (KEEP_W * 8 != DATA_W) begin : g_chk_kw
        $error("pkt_gen: KEEP_W must be DATA_W / 8");
    end

    // ---------------------------------------------------------------------------------
    // Run control: configuration latched while idle, counters from en's rising edge
    // ---------------------------------------------------------------------------------
    logic        en_q;
    logic        run_q;
    logic        start_q;     // the cycle after en rose: counters and builder restart
    logic [15:0] lmin_q;
    logic [15:0] lmax_q;
    logic [23:0] rate_q;
    logic [15:0] flows_q;
    logic [31:0] count_q;

    always_ff @(posedge clk) begin
        if (rst) begin
            en_q    <= 1'b0;
            run_q   <= 1'b0;
            start_q <= 1'b0;
        end else begin
            en_q    <= en;
            run_q   <= en && en_q;
            start_q <= en && !en_q;
        end
    end

    always_ff @(posedge clk) begin
        if (!en_q) begin
            lmin_q  <= cfg_len_min < 16'd60 ? 16'd60 : cfg_len_min;
            lmax_q  <= cfg_len_max < cfg_len_min ? cfg_len_min : cfg_len_max;
            rate_q  <= cfg_rate;
            flows_q <= cfg_flows;
            count_q <= cfg_count;
        end
    end

    // ---------------------------------------------------------------------------------
    // Builder B1..B3, stalled as a whole while H is full and not being taken
    // ---------------------------------------------------------------------------------
    logic        adv;         // the builder advances
    logic        h_v_q;       // H holds a header
    logic        h_take;      // the sender takes H
    logic        b1_v;
    logic        b2_v;
    logic        b3_v;
    logic [31:0] made_q;      // frames started into the builder
    logic        more;

    assign more = run_q && (count_q == '0 || made_q != count_q);
    assign adv  = !b3_v || !h_v_q || h_take;

    logic [15:0] nlen_q;      // the next frame's fields
    logic [15:0] nflow_q;
    logic [63:0] nseq_q;
    logic [15:0] b1_len;
    logic [15:0] b1_flow;
    logic [63:0] b1_seq;

    always_ff @(posedge clk) begin
        if (rst || start_q) begin
            b1_v    <= 1'b0;
            b2_v    <= 1'b0;
            b3_v    <= 1'b0;
            made_q  <= '0;
            nlen_q  <= lmin_q;
            nflow_q <= '0;
            nseq_q  <= '0;
        end else if (adv) begin
            b1_v <= more;
            b2_v <= b1_v;
            b3_v <= b2_v;
            if (more) begin
                made_q  <= made_q + 1'b1;
                nlen_q  <= nlen_q >= lmax_q ? lmin_q : nlen_q + 1'b1;
                nflow_q <= 32'(nflow_q) + 1 >= 32'(flows_q) ? '0 : nflow_q + 1'b1;
                nseq_q  <= nseq_q + 1'b1;
            end
        end
    end

    always_ff @(posedge clk) begin
        if (adv) begin
            b1_len  <= nlen_q;
            b1_flow <= nflow_q;
            b1_seq  <= nseq_q;
        end
    end

    // B2: the IPv4 header's 16-bit words summed in two halves (ones' complement later)
    logic [15:0] b2_len;
    logic [15:0] b2_flow;
    logic [63:0] b2_seq;
    logic [18:0] b2_sum_a;
    logic [18:0] b2_sum_b;

    always_ff @(posedge clk) begin
        if (adv) begin
            // words: 4500, total length, id, 0000, 4011, (checksum 0), 0a00, flow, 0a01, 0001
            b2_sum_a <= 19'h4500 + 19'(b1_len - 16'd14) + 19'(b1_seq[15:0]) + 19'h4011;
            b2_sum_b <= 19'h0a00 + 19'(b1_flow) + 19'h0a01 + 19'h0001;
            b2_len   <= b1_len;
            b2_flow  <= b1_flow;
            b2_seq   <= b1_seq;
        end
    end

    // B3: the header bytes (byte i at [8i +: 8]), the timestamp left for the sender
    logic [8*HB-1:0] b3_hdr;
    logic [15:0]     b3_len;

    function automatic logic [15:0] csum(input logic [18:0] a, input logic [18:0] b);
        logic [19:0] s;
        logic [16:0] f;
        s = 20'(a) + 20'(b);
        f = 17'(s[15:0]) + 17'(s[19:16]);
        return ~(f[15:0] + 16'(f[16]));
    endfunction

    always_ff @(posedge clk) begin
        if (adv) begin
            logic [8*HB-1:0] h;
            logic [15:0]     ck;
            logic [15:0]     tl;
            logic [15:0]     ul;
            logic [15:0]     sp;
            ck = csum(b2_sum_a, b2_sum_b);
            tl = b2_len - 16'd14;
            ul = b2_len - 16'd34;
            sp = 16'd1024 + b2_flow;
            h  = '0;
            h[0*8 +: 48]  = 48'h02_00_00_00_00_02;          // byte 0 first: bytes 0..5 LE
            h[6*8 +: 48]  = 48'h01_00_00_00_00_02;
            h[12*8 +: 16] = 16'h00_08;
            h[14*8 +: 8]  = 8'h45;
            h[16*8 +: 16] = {tl[7:0], tl[15:8]};
            h[18*8 +: 16] = {b2_seq[7:0], b2_seq[15:8]};
            h[22*8 +: 16] = 16'h11_40;
            h[24*8 +: 16] = {ck[7:0], ck[15:8]};
            h[26*8 +: 32] = {b2_flow[7:0], b2_flow[15:8], 16'h00_0a};
            h[30*8 +: 32] = 32'h01_00_01_0a;
            h[34*8 +: 16] = {sp[7:0], sp[15:8]};
            h[36*8 +: 16] = {PORT[7:0], PORT[15:8]};
            h[38*8 +: 16] = {ul[7:0], ul[15:8]};
            for (int i = 0; i < 8; i++) h[(42 + i)*8 +: 8] = b2_seq[8*(7 - i) +: 8];
            b3_hdr <= h;
            b3_len <= b2_len;
        end
    end

    // H: the header waiting for the sender
    logic [8*HB-1:0] h_hdr_q;
    logic [15:0]     h_len_q;

    always_ff @(posedge clk) begin
        if (rst || start_q) begin
            h_v_q <= 1'b0;
        end else if (adv && b3_v) begin
            h_v_q <= 1'b1;                  // B3 moves in (H free or taken now)
        end else if (h_take) begin
            h_v_q <= 1'b0;
        end
    end

    always_ff @(posedge clk) begin
        if (adv && b3_v) begin
            h_hdr_q <= b3_hdr;
            h_len_q <= b3_len;
        end
    end

    // ---------------------------------------------------------------------------------
    // Sender: the token bucket, the beats
    // ---------------------------------------------------------------------------------
    logic signed [40:0] credit_q;     // wire bytes, 8.16 (signed: a frame may overdraw it)
    logic               s_v_q;        // a frame is being sent
    logic [15:0]        s_left_q;     // bytes left including this beat's
    logic [15:0]        s_off_q;      // this beat's first byte
    logic [8*HB-1:0]    s_hdr_q;
    logic [63:0]        s_ts_q;
    logic               o_free;       // the output register can take a beat
    logic               s_go;         // a beat leaves the sender this cycle
    logic               s_start;      // a frame's first beat
    logic               can_start;

    assign o_free    = !m_axis_tvalid || m_axis_tready;
    assign can_start = run_q && h_v_q && (rate_q == '0 || !credit_q[40]);
    assign s_start   = o_free && !s_v_q && can_start;
    assign s_go      = o_free && (s_v_q || s_start);
    assign h_take    = s_start;

    always_ff @(posedge clk) begin
        if (rst || start_q) begin
            credit_q <= '0;
        end else begin
            logic signed [40:0] c;
            c = credit_q + 41'(rate_q);
            if (c > 41'sd16777216) c = 41'sd16777216;            // at most 256 bytes saved
            if (s_start && rate_q != '0) c = c - 41'({h_len_q + 16'd24, 16'd0});
            credit_q <= c;
        end
    end

    // the beat: header bytes [off, off + KW) (the timestamp in 50..57), zeros past 64
    function automatic logic [DATA_W-1:0] beat(input logic [8*HB-1:0] h, input logic [63:0] ts,
                                               input logic [15:0] off);
        logic [8*HB-1:0] f;
        logic [DATA_W-1:0] o;
        f = h;
        for (int i = 0; i < 8; i++) f[(50 + i)*8 +: 8] = ts[8*(7 - i) +: 8];
        o = '0;
        for (int k = 0; k < NHB; k++) begin
            if (32'(off) == k * KW) o = DATA_W'(f >> (k * DATA_W));
        end
        return o;
    endfunction

    function automatic logic [KEEP_W-1:0] keep(input logic [15:0] left);
        logic [KEEP_W-1:0] m;
        for (int b = 0; b < KEEP_W; b++) m[b] = 32'(left) > b;
        return m;
    endfunction

    always_ff @(posedge clk) begin
        if (rst) begin
            s_v_q         <= 1'b0;
            m_axis_tvalid <= 1'b0;
            sent_frames   <= '0;
            sent_bytes    <= '0;
        end else begin
            if (start_q) begin
                sent_frames <= '0;
                sent_bytes  <= '0;
            end
            if (m_axis_tready) m_axis_tvalid <= 1'b0;
            if (s_go) begin
                m_axis_tvalid <= 1'b1;
                if (s_start) begin
                    s_v_q       <= h_len_q > 16'(KW);
                    sent_frames <= sent_frames + 1'b1;
                    sent_bytes  <= sent_bytes + 64'(h_len_q);
                end else begin
                    s_v_q <= s_left_q > 16'(KW);
                end
            end
        end
    end

    always_ff @(posedge clk) begin
        if (s_go) begin
            if (s_start) begin
                s_hdr_q      <= h_hdr_q;
                s_ts_q       <= ts_ns;
                s_left_q     <= h_len_q - 16'(KW);
                s_off_q      <= 16'(KW);
                m_axis_tdata <= beat(h_hdr_q, ts_ns, '0);
                m_axis_tkeep <= keep(h_len_q);
                m_axis_tlast <= h_len_q <= 16'(KW);
            end else begin
                s_left_q     <= s_left_q - 16'(KW);
                s_off_q      <= s_off_q + 16'(KW);
                m_axis_tdata <= beat(s_hdr_q, s_ts_q, s_off_q);
                m_axis_tkeep <= keep(s_left_q);
                m_axis_tlast <= s_left_q <= 16'(KW);
            end
        end
    end

endmodule

`default_nettype wire
