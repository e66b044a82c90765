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
// Pipeline: B1 the frame's fields (length, flow, sequence) and the IPv4 checksum's sum but
// the flow word; B2 that sum with the flow, folded once; B3 the 64-byte header; H a sync_fifo
// of up to three headers held for the sender. The sender sends one beat a cycle, frames back
// to back when the bucket allows (a frame needs its header at H's head).
// Latency: a frame whose fields are loaded into B1 at clock edge t has its first beat on
// m_axis from edge t + 5 at the earliest (B2, B3, H's RAM, H's output register, the output
// register); the first frame after en rises from edge e + 7, e the edge that samples en high
// (e + 1 restarts the counters, e + 2 loads B1). tb/pkt_gen asserts the 7.

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
    // the IPv4 header's constant words, and the -14 of its total length (len - 14)
    localparam logic [18:0] IP_CONST = 19'h4500 + 19'h4011 + 19'h0a00 + 19'h0a01 + 19'h0001
                                       - 19'd14;

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
    logic [15:0] flow_last_q; // the last flow number: cfg_flows - 1 (0 for 0 or 1 flows)
    logic [31:0] count_q;
    // The token bucket in wire bytes, 8.16, signed (a frame may overdraw it): CW bits hold
    // the cap and the largest charge ((65535 + 24) << 16) below it.
    localparam int CW = 34;
    localparam logic signed [CW-1:0] CREDIT_CAP = CW'(32'sd16777216);   // 256 bytes
    logic               rate_nz_q;     // the bucket is on
    logic signed [CW-1:0] lim_q;       // L = CREDIT_CAP - rate (the sender, below)
    logic signed [CW-1:0] rmc0_q;      // rate - the 24 wire bytes every frame adds

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
            flow_last_q <= cfg_flows == '0 ? '0 : cfg_flows - 1'b1;
            count_q <= cfg_count;
            rate_nz_q <= cfg_rate != '0;
            lim_q     <= CREDIT_CAP - CW'(cfg_rate);
            rmc0_q    <= CW'(cfg_rate) - CW'(32'd24 << 16);
        end
    end

    // ---------------------------------------------------------------------------------
    // Builder B1..B3, stalled as a whole while H is full and not being taken
    // ---------------------------------------------------------------------------------
    logic        adv;         // the builder advances
    logic        h_ready;     // H has room (a register: H, below)
    logic        b1_v;
    logic        b2_v;
    logic        b3_v;
    // frames the builder may still start: left_q of cfg_count, left_nz_q beside it in a
    // register (no 32-bit compare before the builder's enables), or no limit (count 0)
    logic [31:0] left_q;
    logic        left_nz_q;
    logic        nolimit_q;
    logic        more;

    assign more = run_q && (nolimit_q || left_nz_q);
    // B3 moves into H while H has room before this cycle's take: the builder's enables
    // come from registers, not from the sender's decision (which a wide output waits for).
    assign adv  = !b3_v || h_ready;

    logic [15:0] nlen_q;      // the next frame's fields
    logic [15:0] nflow_q;
    logic [63:0] nseq_q;
    logic [15:0] b1_len;
    logic [15:0] b1_flow;
    logic [63:0] b1_seq;
    logic [18:0] b1_sum;      // the IPv4 header's words but the flow's (see B2)

    always_ff @(posedge clk) begin
        if (rst || start_q) begin
            b1_v    <= 1'b0;
            b2_v    <= 1'b0;
            b3_v    <= 1'b0;
            left_q    <= count_q;
            left_nz_q <= count_q != '0;
            nolimit_q <= count_q == '0;
            nlen_q  <= lmin_q;
            nflow_q <= '0;
            nseq_q  <= '0;
        end else if (adv) begin
            b1_v <= more;
            b2_v <= b1_v;
            b3_v <= b2_v;
            if (more) begin
                left_q    <= left_q - 1'b1;
                left_nz_q <= left_q != 32'd1;
                nlen_q  <= nlen_q >= lmax_q ? lmin_q : nlen_q + 1'b1;
                nflow_q <= nflow_q >= flow_last_q ? '0 : nflow_q + 1'b1;
                nseq_q  <= nseq_q + 1'b1;
            end
        end
    end

    always_ff @(posedge clk) begin
        if (adv) begin
            b1_len  <= nlen_q;
            b1_flow <= nflow_q;
            b1_seq  <= nseq_q;
            b1_sum  <= IP_CONST + 19'(nlen_q) + 19'(nseq_q[15:0]);
        end
    end

    // The IPv4 header's checksum, one carry chain a stage: B1 sums its constant words with
    // the total length (len - 14) and the ID (seq[15:0]), B2 adds the flow word and folds the
    // carries once, B3 folds the last carry and inverts. Words: 4500, total length, id, 0000,
    // 4011, (checksum 0), 0a00, flow, 0a01, 0001.
    logic [15:0] b2_len;
    logic [15:0] b2_flow;
    logic [63:0] b2_seq;
    logic [16:0] b2_fold;     // the sum, its carries folded once

    always_ff @(posedge clk) begin
        if (adv) begin
            logic [18:0] sum;
            sum = b1_sum + 19'(b1_flow);
            b2_fold <= 17'(sum[15:0]) + 17'(sum[18:16]);
            b2_len  <= b1_len;
            b2_flow <= b1_flow;
            b2_seq  <= b1_seq;
        end
    end

    // B3: the header bytes (byte i at [8i +: 8]), the timestamp left for the sender
    logic [8*HB-1:0] b3_hdr;
    logic [15:0]     b3_len;
    logic signed [CW-1:0] b3_rmc; // rate - the frame's wire bytes (+ FCS, preamble, gap), 8.16

    always_ff @(posedge clk) begin
        if (adv) begin
            logic [8*HB-1:0] h;
            logic [15:0]     ck;
            logic [15:0]     tl;
            logic [15:0]     ul;
            logic [15:0]     sp;
            ck = ~(b2_fold[15:0] + 16'(b2_fold[16]));
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
            b3_rmc <= rmc0_q - CW'({b2_len, 16'd0});
        end
    end

    // H: the headers waiting for the sender, a sync_fifo (two words in its RAM and one in its
    // output register): B3 writes one while the sender takes another, a frame a cycle at one
    // beat a frame. Its m_data is a register (BYPASS = 0), so the sender and the bucket's
    // adders see no slot select, and its s_ready (not full) and m_valid are registers, so the
    // builder's enables come from registers and not from the sender's decision (which a wide
    // output waits for). A header written in cycle t can start its frame in t + 2.
    // With each header, rate - charge (rmc): when its frame starts the bucket becomes
    // credit + rmc, or CREDIT_CAP - charge = L + rmc when credit + rate saturates (the sender,
    // below). rate_q does not change while H can be taken (it is sampled while en_q is low,
    // when no frame starts, and en's rise empties H).
    localparam int H_W = CW + 16 + 8*HB;  // {rmc, len, header}
    logic                 h_ne;         // H holds a header
    logic                 h_take;       // the sender takes H's head
    logic [8*HB-1:0]      h_hdr;        // the head
    logic [15:0]          h_len;
    logic signed [CW-1:0] h_rmc;

    sync_fifo #(
        .WIDTH (H_W),
        .DEPTH (2),
        .BYPASS(1'b0)
    ) u_h (
        .clk    (clk),
        .rst    (rst || start_q),
        .s_data ({b3_rmc, b3_len, b3_hdr}),
        .s_valid(b3_v),
        .s_ready(h_ready),
        .m_data ({h_rmc, h_len, h_hdr}),
        .m_valid(h_ne),
        .m_ready(h_take)
    );

    // ---------------------------------------------------------------------------------
    // Sender: the token bucket, the beats
    // ---------------------------------------------------------------------------------
    // credit + rate saturates when credit > L = CREDIT_CAP - rate: dm_q = credit - L - 1 is
    // kept beside credit_q, stepped by the same adds, so the test is dm_q's sign bit, a
    // register, and no compare follows an adder in one cycle.
    logic signed [CW-1:0] credit_q;
    logic signed [CW-1:0] dm_q;
    logic               s_v_q;        // a frame is being sent
    logic [15:0]        s_left_q;     // bytes left including this beat's
    logic [NHB:0]       s_k_q;        // one-hot: this beat is header chunk k (NHB: past the header)
    logic [8*HB-1:0]    s_hdr_q;
    logic [63:0]        s_ts_q;
    logic               o_free;       // the output register can take a beat
    logic               s_go;         // a beat leaves the sender this cycle
    logic               s_start;      // a frame's first beat
    logic               can_start;

    assign o_free    = !m_axis_tvalid || m_axis_tready;
    assign can_start = run_q && h_ne && (!rate_nz_q || !credit_q[CW-1]);
    assign s_start   = o_free && !s_v_q && can_start;
    assign s_go      = o_free && (s_v_q || s_start);
    assign h_take    = s_start;

    always_ff @(posedge clk) begin
        if (rst || start_q) begin
            credit_q <= '0;
            dm_q     <= CW'(rate_q) - CREDIT_CAP - 1'b1;
        end else begin
            // credit + rate, at most CREDIT_CAP (256 bytes saved), less the frame's charge
            // when one starts; dm_q the same less L + 1 (CREDIT_CAP - L - 1 = rate - 1)
            logic sat;
            sat = !dm_q[CW-1];
            if (s_start && rate_nz_q) begin
                credit_q <= sat ? lim_q + h_rmc : credit_q + h_rmc;
                dm_q     <= sat ? h_rmc - 1'b1 : dm_q + h_rmc;
            end else begin
                credit_q <= sat ? CREDIT_CAP : credit_q + CW'(rate_q);
                dm_q     <= sat ? CW'(rate_q) - 1'b1 : dm_q + CW'(rate_q);
            end
        end
    end

    // the beat: header chunk k (bytes [k * KW, k * KW + KW), the timestamp in 50..57) for the
    // one-hot k, zeros past 64: an AND-OR of registers, with no compare
    function automatic logic [DATA_W-1:0] beat(input logic [8*HB-1:0] h, input logic [63:0] ts,
                                               input logic [NHB:0] k);
        logic [8*HB-1:0] f;
        logic [DATA_W-1:0] o;
        f = h;
        for (int i = 0; i < 8; i++) f[(50 + i)*8 +: 8] = ts[8*(7 - i) +: 8];
        o = '0;
        for (int c = 0; c < NHB; c++) o |= {DATA_W{k[c]}} & DATA_W'(f >> (c * DATA_W));
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
                    s_v_q       <= h_len > 16'(KW);
                    sent_frames <= sent_frames + 1'b1;
                    sent_bytes  <= sent_bytes + 64'(h_len);
                end else begin
                    s_v_q <= s_left_q > 16'(KW);
                end
            end
        end
    end

    always_ff @(posedge clk) begin
        if (s_go) begin
            if (s_start) begin
                s_hdr_q  <= h_hdr;
                s_ts_q   <= ts_ns;
                s_left_q <= h_len - 16'(KW);
                s_k_q    <= (NHB+1)'(2);
            end else begin
                s_left_q <= s_left_q - 16'(KW);
                s_k_q    <= s_k_q << 1;
            end
        end
    end

    // The output loads whenever it is free, by s_v_q alone (a frame's next beat, else a new
    // frame's first, which is what leaves if one starts): no start or rate decision reaches
    // its enables, and a load that no beat follows leaves tvalid low.
    always_ff @(posedge clk) begin
        if (o_free) begin
            if (s_v_q) begin
                m_axis_tdata <= beat(s_hdr_q, s_ts_q, s_k_q);
                m_axis_tkeep <= keep(s_left_q);
                m_axis_tlast <= s_left_q <= 16'(KW);
            end else begin
                m_axis_tdata <= beat(h_hdr, ts_ns, (NHB+1)'(1));
                m_axis_tkeep <= keep(h_len);
                m_axis_tlast <= h_len <= 16'(KW);
            end
        end
    end

endmodule

`default_nettype wire
