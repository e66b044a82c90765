// SPDX-License-Identifier: Apache-2.0
//
// vxlan_classify — decides the fate of each frame arriving from the network for VXLAN
// termination (docs/vxlan.md, "Decap"), as early as the bytes it needs allow, and describes
// the edit to axis_splice. Like gre_classify it only watches the stream's handshakes.
//
// Headers parsed (offsets from the start of the frame; L2 ∈ {14,18,22}, U = L2 + IHL*4 or L2+40):
//
//   L2    outer IPv4 (or IPv6, 40 bytes)      U   UDP                        U+8  VXLAN
//   +0  |ver|ihl| TOS | total length |        +0 | source port | dest port |  +0 |flags|  reserved (3)  |
//   +4  | identification | fl | offset |      +4 | length      | checksum  |  +4 |   VNI (3)   |rsvd |
//   +8  | TTL | proto=17 | checksum    |      K = U+16: inner Ethernet frame (dst, src, type, IP header)
//   +12 | source address              |
//   +16 | destination address         |
//
// The decision is made on the beat completing the headers; the VNI table is then consulted
// (LOOKUP_LATENCY cycles), and the descriptor and the frame's outcome follow. The UDP
// checksum, when not zero, is verified at the frame's end over the pseudo-header and
// [U, ip_end): the frame is cut through and aborted when it is wrong.
//
// Pipelining (PIPE_CUTS), as in gre_classify: the decision is one combinational function of a
// snapshot of the stream (header window, bytes seen, this cycle's handshake), written as
// four stages with an optional register cut before each and after the last:
//
//   window ─[cut 0]─► S1: L2 walk, the outer IP  ─[cut S]─► header sums ─[cut 1]─►
//                         header's bytes, the bytes
//                         after it (U...)
//   \____________________ outer_ip_front ____________________/
//          ─► S2: steps 1-5 (L2, outer IP, UDP port, lengths, VXLAN)
//          ─[cut 2]─► S3: step 7 (inner frame, ECN), lengths, patches, policy ─[cut 3]─►
//                     decision, VNI lookup, frame-end verdict
//
// With PIPE_CUTS = 0 the decision comes in the cycle of the beat completing the headers and
// `eof_bad` with the frame's last beat. Each cut set moves the lookup, the descriptor and the
// stat event one cycle later; the UDP checksum is then summed from the beats leaving the last
// cut (region_sum_pipe), and the verdict comes on its own strobe (`eof_valid`) three cycles
// after the frame's last beat leaves the last cut: the splice engine takes it with LATE_EOF.

`default_nettype none

module vxlan_classify
    import parse_pkg::*;
#(
    // Width of the data bus in bits: 64, 128, 256 or 512.
    parameter int DATA_W = 256,
    // Bytes per beat.
    parameter int KEEP_W = DATA_W / 8,
    // Cycles from lk_valid to rs_valid of the VNI table.
    parameter int LOOKUP_LATENCY = 3,
    // Width of the output length field.
    parameter int LEN_W = 17,
    // Pipeline cuts: bit i registers the decision chain at cut i (see above; bit 4 is cut S,
    // before the header sums). Latency of the lookup, descriptor and stat event grows by the
    // number of bits set. 0 = no cut; 31 = every cut.
    parameter int PIPE_CUTS = 0
) (
    input  wire logic                clk,
    input  wire logic                rst,

    // The stream, observed.
    input  wire logic [DATA_W-1:0]   s_tdata,
    input  wire logic [KEEP_W-1:0]   s_tkeep,
    input  wire logic                s_hs,
    input  wire logic                s_tlast,
    input  wire logic                s_tuser,

    input  wire logic                ctrl_vni_enable,
    input  wire logic                ctrl_strict,
    input  wire logic                ctrl_port2_enable,
    input  wire logic                ctrl_drop_pass,
    input  wire logic [15:0]         ctrl_port,
    input  wire logic [15:0]         ctrl_port2,

    // VNI table: key = VNI; value = {push, VLAN ID}.
    output      logic                lk_valid,
    output      logic [23:0]         lk_key,
    input  wire logic                rs_valid,
    input  wire logic                rs_hit,
    input  wire logic [12:0]         rs_value,

    // Edit descriptor for axis_splice, in frame order.
    output      logic                desc_valid,
    output      logic                desc_drop,
    output      logic [7:0]          desc_seg1_off,
    output      logic [7:0]          desc_seg1_len,
    output      logic [7:0]          desc_ins_len,
    output      logic [31:0]         desc_ins_data,
    output      logic [7:0]          desc_seg2_off,
    output      logic                desc_len_valid,
    output      logic [LEN_W-1:0]    desc_out_len,
    output      logic [2:0]          desc_patch_en,
    output      logic [23:0]         desc_patch_pos,
    output      logic [23:0]         desc_patch_val,
    output      logic [24:0]         desc_meta,       // {decapsulated, VNI}
    // Frame-end verdict: one strobe per frame, with its last beat when PIPE_CUTS = 0.
    output      logic                eof_valid,
    output      logic                eof_bad,

    // One event per frame, in frame order.
    output      logic                stat_valid,
    output      logic [3:0]          stat_outcome,
    output      logic                stat_emit,
    output      logic [15:0]         stat_len
);

    localparam int HDR_BYTES = 128;
    localparam int POS_W     = 24;
    localparam int QDEPTH    = 8;       // frames between decision/end and their stat event
    localparam logic [4:0] CUTS = 5'(PIPE_CUTS);
    localparam bit PIPED     = CUTS != 5'b00000;

    // Outcome codes (docs/vxlan.md).
    localparam logic [3:0] O_PASS = 4'd0, O_DECAP = 4'd1, O_TRUNC = 4'd2, O_IP_HEADER = 4'd3,
                           O_IP_CSUM = 4'd4, O_FRAG = 4'd5, O_FLAGS = 4'd6, O_RESERVED = 4'd7,
                           O_UNKNOWN_VNI = 4'd8, O_ECN = 4'd9, O_UDP_CSUM = 4'd10,
                           O_RX_ERROR = 4'd11, O_POLICY = 4'd12;

    if (DATA_W != 64 && DATA_W != 128 && DATA_W != 256 && DATA_W != 512) begin : g_param_check_1
        $error("vxlan_classify: DATA_W must be 64, 128, 256 or 512");
    end
    if (LOOKUP_LATENCY < 1) begin : g_param_check_2
        $error("vxlan_classify: LOOKUP_LATENCY must be at least 1");
    end
    if (PIPE_CUTS < 0 || PIPE_CUTS > 31) begin : g_param_check_3
        $error("vxlan_classify: PIPE_CUTS is a 5-bit mask (0..31)");
    end

    // The beat a snapshot belongs to; `hs` is the lowest bit so pipe_reg can reset it.
    localparam int LEN_BITS = $clog2(KEEP_W) + 1;
    typedef struct packed {
        logic [POS_W-1:0]    have;     // bytes of the frame up to this beat's end
        logic [LEN_BITS-1:0] len;      // bytes of the frame in this beat
        logic [DATA_W-1:0]   tdata;
        logic                tlast;
        logic                tuser;
        logic                hs;
    } beat_t;

    typedef logic [HDR_BYTES-1:0][7:0] view_t;
    // The header after the outer IP header (U: UDP, VXLAN at U+8, inner frame at U+16), as
    // outer_ip_front selects it: bytes [U, U + L4_BYTES) at fixed positions.
    localparam int L4_BYTES = 42;       // the deepest read: the inner IPv4 checksum, K+25
    typedef logic [L4_BYTES-1:0][7:0] l4_t;

    function automatic logic [15:0] w16(input l4_t v, input int at);
        w16 = {v[at], v[at + 1]};
    endfunction

    // ------------------------------------------------------------------ window, L2, outer IP
    logic [15:0]         region_sum;
    // Region hooks, from the decision domain (after the last cut).
    logic                region_known, region_decide;
    logic [6:0]          region_start;
    logic [LEN_W-1:0]    region_end;

    view_t               f_view;       // (the decision reads f_l4h)
    logic [6:0]          f_l4;
    l4_t                 f_l4h;
    beat_t               f_beat;
    logic [6:0]          f_l2;
    logic [15:0]         f_et;
    logic                f_l2_wait, f_tags3;
    logic [59:0][7:0]    f_iph;
    logic [31:0]         f_iph_sum, f_ip6_sum, f_eth_sum, f_ps4_sum, f_ps6_sum;

    outer_ip_front #(
        .DATA_W(DATA_W), .HDR_BYTES(HDR_BYTES), .POS_W(POS_W),
        .HEAD_MAX(82),                  // U <= 22 + 60
        .CUTS(4 * int'(CUTS[4]) + int'(CUTS[1:0]))
    ) front (
        .clk, .rst,
        .s_tdata, .s_tkeep, .s_hs, .s_tlast, .s_tuser,
        // A pipelined build sums the checksum region after the last cut (below).
        .region_known(!PIPED && region_known), .region_decide(!PIPED && region_decide),
        .region_start(PIPED ? 7'd0 : region_start), .region_end(PIPED ? 17'd0 : region_end),
        .region_sum,
        .view(f_view), .have(f_beat.have), .beat_len(f_beat.len), .tdata(f_beat.tdata),
        .tlast(f_beat.tlast), .tuser(f_beat.tuser), .hs(f_beat.hs),
        .l2(f_l2), .et(f_et), .l2_wait(f_l2_wait), .tags3(f_tags3),
        .iph(f_iph), .iph_sum(f_iph_sum), .ip6_sum(f_ip6_sum), .eth_sum(f_eth_sum),
        .ps4_sum(f_ps4_sum), .ps6_sum(f_ps6_sum), .l4(f_l4), .l4h(f_l4h)
    );

    // ------------------------------------------------------------------ S2: steps 1-5
    typedef struct packed {
        l4_t              l4h;
        logic             stop;
        logic             done;
        logic [3:0]       outcome;
        logic [6:0]       u;
        logic [6:0]       k;
        logic [LEN_W-1:0] ip_end;
        logic [1:0]       ecn_o;
        logic             csum_check;   // the UDP checksum is not zero
        logic [23:0]      vni;
        logic [31:0]      head_raw;     // word sum of the bytes before U (folded in S3)
        logic [31:0]      pseudo_raw;   // UDP pseudo-header word sum (folded in S3)
        beat_t            beat;
    } s2_t;
    s2_t s2_d, s2_q;

    always_comb begin : stage2
        logic             stop, v4, v6, ended;
        logic [6:0]       l2, u, k, k_any;
        logic [15:0]      et, tlen, plen, ulen;
        logic [3:0]       ihl;
        logic [7:0]       flags;
        logic [LEN_W-1:0] ip_end, ip_end_any;
        logic [POS_W-1:0] have;
        logic [7:0]       iph [60];
        l4_t              h;

        for (int i = 0; i < 60; i++) iph[i] = f_iph[i];
        h     = f_l4h;
        have  = f_beat.have;
        ended = f_beat.tlast;
        s2_d.l4h  = f_l4h;
        s2_d.beat = f_beat;
        s2_d.done = 1'b0; s2_d.outcome = O_PASS; s2_d.ecn_o = '0;
        stop = 1'b0; v4 = 1'b0; v6 = 1'b0; u = '0; ip_end = '0;
        ihl = iph[0][3:0];

        // 1. L2: Ethernet and up to two VLAN tags (l2_parse).
        l2 = f_l2; et = f_et;
        // Offsets and lengths computed whether or not the checks before them pass (the
        // checks only select them): as values chosen by the chain of checks they put its
        // depth in series with their adders. U = f_l4 and ip_end = ip_end_any wherever the
        // checks below read them (steps 3-5 run only once step 2 or 4 has set them so).
        tlen = {iph[2], iph[3]};
        plen = {iph[4], iph[5]};
        ip_end_any = (et == 16'h86DD) ? LEN_W'(l2) + LEN_W'(40) + LEN_W'(plen)
                                      : LEN_W'(l2) + LEN_W'(tlen);
        k_any = f_l4 + 7'd16;
        if (f_l2_wait) begin
            s2_d.done = ended; stop = 1'b1;
        end else if (f_tags3) begin
            s2_d.done = 1'b1; stop = 1'b1;
        end

        // 2. Outer IP, as far as the UDP header.
        if (!stop) begin
            if (et == 16'h0800) begin
                if (have < POS_W'(l2) + 20) begin
                    s2_d.done = ended; stop = 1'b1;
                end else if (iph[0][7:4] != 4'd4 || ihl < 4'd5 || iph[9] != 8'd17 ||
                             {iph[6][4:0], iph[7]} != 13'd0) begin
                    s2_d.done = 1'b1; stop = 1'b1;
                end else begin
                    v4 = 1'b1; u = f_l4;        // L2 + IHL*4, from outer_ip_front
                end
            end else if (et == 16'h86DD) begin
                if (have < POS_W'(l2) + 40) begin
                    s2_d.done = ended; stop = 1'b1;
                end else if (iph[0][7:4] != 4'd6 || iph[6] != 8'd17) begin
                    s2_d.done = 1'b1; stop = 1'b1;
                end else begin
                    v6 = 1'b1; u = f_l4;        // L2 + 40
                end
            end else begin
                s2_d.done = 1'b1; stop = 1'b1;
            end
        end

        // 3. The UDP port makes it VXLAN.
        if (!stop) begin
            if (have < POS_W'(f_l4) + 4) begin
                s2_d.done = ended; stop = 1'b1;
            end else if (w16(h, 2) != ctrl_port &&
                         !(ctrl_port2_enable && w16(h, 2) == ctrl_port2)) begin
                s2_d.done = 1'b1; stop = 1'b1;
            end else begin
                s2_d.outcome = O_TRUNC;    // it is VXLAN: ending early from here on is a truncation
            end
        end

        // 4. Outer checks.
        if (!stop && v4) begin
            if (have < POS_W'(f_l4)) begin
                s2_d.done = ended; stop = 1'b1;
            end else if (!oc_sum_is_ones(f_iph_sum)) begin
                s2_d.outcome = O_IP_CSUM; s2_d.done = 1'b1; stop = 1'b1;
            end else if (iph[6][5]) begin
                s2_d.outcome = O_FRAG; s2_d.done = 1'b1; stop = 1'b1;
            end else if (tlen < 16'({ihl, 2'b00}) + 16'd16) begin
                s2_d.outcome = O_IP_HEADER; s2_d.done = 1'b1; stop = 1'b1;
            end else begin
                ip_end = ip_end_any;
                s2_d.ecn_o = iph[1][1:0];
            end
        end
        if (!stop && v6) begin
            if (plen < 16'd16) begin
                s2_d.outcome = O_IP_HEADER; s2_d.done = 1'b1; stop = 1'b1;
            end else begin
                ip_end = ip_end_any;
                s2_d.ecn_o = iph[1][5:4];
            end
        end
        ulen = w16(h, 4);
        s2_d.csum_check = w16(h, 6) != 16'h0000;
        if (!stop) begin
            if (have < POS_W'(f_l4) + 8) begin
                s2_d.done = ended; stop = 1'b1;
            end else if (LEN_W'(ulen) + LEN_W'(f_l4) != ip_end_any) begin
                s2_d.outcome = O_IP_HEADER; s2_d.done = 1'b1; stop = 1'b1;
            end
        end

        // 5. VXLAN header.
        flags = h[8];
        k = u + 7'd16;
        if (!stop) begin
            if (have < POS_W'(k_any)) begin
                s2_d.done = ended; stop = 1'b1;
            end else if (!flags[3]) begin
                s2_d.outcome = O_FLAGS; s2_d.done = 1'b1; stop = 1'b1;
            end else if (ctrl_strict && ((flags & 8'hF7) != 8'h00 || h[9] != 8'h00 ||
                         h[10] != 8'h00 || h[11] != 8'h00 || h[15] != 8'h00)) begin
                s2_d.outcome = O_RESERVED; s2_d.done = 1'b1; stop = 1'b1;
            end
        end
        s2_d.vni = {h[12], h[13], h[14]};

        // The bytes before U, and the pseudo-header (addresses, 17, UDP length).
        // (Both < 2^22: no carry out. Folded a stage later, off this stage's longest path.)
        s2_d.head_raw   = f_eth_sum + (v6 ? f_ip6_sum : f_iph_sum);
        s2_d.pseudo_raw = (v4 ? f_ps4_sum : f_ps6_sum) + 32'd17 + {16'h0, ulen};
        s2_d.stop   = stop;
        s2_d.u      = u;
        s2_d.k      = k;
        s2_d.ip_end = ip_end;
    end

    pipe_reg #(.W($bits(s2_t)), .EN(CUTS[2]), .RST_BITS(1))
        cut2 (.clk, .rst, .d(s2_d), .q(s2_q));

    // ------------------------------------------------------------------ S3: step 7, policy
    typedef struct packed {
        logic             done;
        logic             decap;
        logic             csum_check;
        logic             hdr_ok;       // passed steps 1-5: the VNI table has the next word
        logic [3:0]       outcome;      // before the VNI table
        logic [LEN_W-1:0] ip_end;
        logic [LEN_W-1:0] inner_len;
        logic [6:0]       k;
        logic [6:0]       udp_at;
        logic [23:0]      vni;
        logic [15:0]      pseudo;
        logic [15:0]      head_sum;
        logic [2:0]       pen;
        logic [7:0]       tos_val, hc_hi, hc_lo;
        beat_t            beat;
    } s3_t;
    s3_t s3_d, s3_q;

    always_comb begin : stage3
        logic             stop, ended, ecn_needed, inner_v4, inner_ip;
        logic [6:0]       k, inner_need;
        logic [15:0]      inner_et, hc, m_old, m_new, hc_new;
        logic [1:0]       ecn_o, ecn_i, ecn_n;
        logic [7:0]       tos, tos_n;
        logic [LEN_W-1:0] ip_end;
        logic [POS_W-1:0] have;
        logic [3:0]       outcome;
        logic             done;
        l4_t              h;            // U + i; the inner frame at K = U + 16

        h       = s2_q.l4h;
        have    = s2_q.beat.have;
        ended   = s2_q.beat.tlast;
        stop    = s2_q.stop;
        done    = s2_q.done;
        outcome = s2_q.outcome;
        k       = s2_q.k;
        ip_end  = s2_q.ip_end;
        ecn_o   = s2_q.ecn_o;
        s3_d.beat     = s2_q.beat;
        s3_d.vni      = s2_q.vni;
        s3_d.pseudo   = oc_fold(s2_q.pseudo_raw);
        s3_d.head_sum = oc_fold(s2_q.head_raw);
        s3_d.hdr_ok   = !stop;
        s3_d.decap = 1'b0; s3_d.csum_check = 1'b0; s3_d.ip_end = '0; s3_d.inner_len = '0;
        s3_d.k = '0; s3_d.udp_at = '0;
        s3_d.pen = '0; s3_d.tos_val = '0; s3_d.hc_hi = '0; s3_d.hc_lo = '0;

        // 6. (VNI table: after the lookup.)  7. Inner frame and ECN.
        inner_et = w16(h, 16 + 12);
        inner_v4 = (inner_et == 16'h0800);
        inner_ip = inner_v4 || (inner_et == 16'h86DD);
        ecn_needed = inner_ip && ecn_o[0];
        inner_need = 7'd14 + (inner_v4 ? 7'd12 : 7'd2);
        tos   = h[16 + 15];
        ecn_i = inner_v4 ? tos[1:0] : tos[5:4];
        ecn_n = ecn_combine(ecn_o, ecn_i);
        tos_n = inner_v4 ? {tos[7:2], ecn_n} : {tos[7:6], ecn_n, tos[3:0]};
        m_old = {h[16 + 14], tos};
        m_new = {h[16 + 14], tos_n};
        hc    = w16(h, 16 + 24);
        hc_new = csum_update(hc, m_old, m_new);
        if (!stop) begin
            if (ip_end < LEN_W'(k) + 14) begin
                done = 1'b1; stop = 1'b1;
            end else if (have < POS_W'(k) + 14) begin
                done = ended; stop = 1'b1;
            end else if (ecn_needed && ip_end < LEN_W'(k) + LEN_W'(inner_need)) begin
                done = 1'b1; stop = 1'b1;
            end else if (ecn_needed && have < POS_W'(k) + POS_W'(inner_need)) begin
                done = ended; stop = 1'b1;
            end else if (ecn_needed && ecn_drop(ecn_o, ecn_i)) begin
                outcome = O_ECN; done = 1'b1; stop = 1'b1;
            end
        end

        // 8./9. Decapsulate, unless the frame is already known to be short.
        if (!stop) begin
            done = 1'b1;
            if (ended && have < POS_W'(ip_end)) begin
                outcome = O_TRUNC;
            end else begin
                outcome          = O_DECAP;
                s3_d.decap       = 1'b1;
                s3_d.ip_end      = ip_end;
                s3_d.k           = k;
                s3_d.inner_len   = ip_end - LEN_W'(k);
                s3_d.csum_check  = s2_q.csum_check;
                s3_d.udp_at      = s2_q.u;
                if (ecn_needed && tos_n != tos) begin
                    s3_d.pen[0] = 1'b1; s3_d.tos_val = tos_n;
                    if (inner_v4) begin
                        s3_d.pen[1] = 1'b1; s3_d.pen[2] = 1'b1;
                        s3_d.hc_hi = hc_new[15:8]; s3_d.hc_lo = hc_new[7:0];
                    end
                end
            end
        end

        // Nothing the procedure needs lies beyond the header window.
        if (!done && have >= POS_W'(HDR_BYTES)) begin
            done = 1'b1; outcome = O_PASS;
        end
        if (outcome == O_PASS && ctrl_drop_pass) outcome = O_POLICY;
        s3_d.done    = done;
        s3_d.outcome = outcome;
    end

    pipe_reg #(.W($bits(s3_t)), .EN(CUTS[3]), .RST_BITS(1))
        cut3 (.clk, .rst, .d(s3_d), .q(s3_q));

    // ------------------------------------------------------------------ decision state
    beat_t            fin_beat;         // the snapshot's beat after the last cut
    logic             decided, decide_now;
    logic             d_decap, d_csum_check;
    logic [LEN_W-1:0] d_ip_end;
    logic [6:0]       d_udp_at;
    logic [15:0]      d_pseudo;
    logic [LEN_W-1:0] lim;

    assign fin_beat   = s3_q.beat;
    assign decide_now = fin_beat.hs && !decided && s3_q.done;
    assign lim        = decided ? d_ip_end : s3_q.ip_end;

    assign region_known  = decided || decide_now;
    assign region_decide = decide_now;
    assign region_start  = decided ? d_udp_at : s3_q.udp_at;
    assign region_end    = lim;

    wire              f_decap    = decided ? d_decap : s3_q.decap;
    wire              f_csum     = decided ? d_csum_check : s3_q.csum_check;
    wire [15:0]       f_pseudo   = decided ? d_pseudo : s3_q.pseudo;
    wire [POS_W-1:0]  flen       = fin_beat.have;
    wire [15:0]       f_len16    = (flen > POS_W'(16'hFFFF)) ? 16'hFFFF : flen[15:0];
    wire              late_trunc = f_decap && flen < POS_W'(lim);

    always_ff @(posedge clk) begin
        if (fin_beat.hs) begin
            if (decide_now) begin
                decided      <= 1'b1;
                d_decap      <= s3_q.decap;
                d_csum_check <= s3_q.csum_check;
                d_ip_end     <= s3_q.ip_end;
                d_udp_at     <= s3_q.udp_at;
                d_pseudo     <= s3_q.pseudo;
            end
            if (fin_beat.tlast) decided <= 1'b0;
        end
        if (rst) decided <= 1'b0;
    end

    // ------------------------------------------------------------------ frame-end verdict
    // One event per frame: rx error, late truncation, UDP checksum; and its length.
    logic        end_valid, end_tuser, end_trunc, end_csum;
    logic [15:0] end_len;

    if (!PIPED) begin : g_verdict
        // The window sums [U, ip_end) from the live beat; with the pseudo-header the UDP
        // checksum's sum is 0xFFFF (or +0).
        wire [15:0] udp_sum = oc_fold({16'h0, region_sum} + {16'h0, f_pseudo});
        assign end_valid = fin_beat.hs && fin_beat.tlast;
        assign end_tuser = fin_beat.tuser;
        assign end_trunc = late_trunc;
        assign end_csum  = f_decap && f_csum && udp_sum != 16'hFFFF && udp_sum != 16'h0000;
        assign end_len   = f_len16;
        assign eof_valid = end_valid;
        assign eof_bad   = end_tuser || end_trunc || end_csum;
    end else begin : g_verdict_piped
        // The region summed from the beats leaving the last cut; the verdict registered.
        typedef struct packed {
            logic        tuser;
            logic        trunc;
            logic        decap;
            logic        csum;
            logic [15:0] pseudo;
            logic [15:0] len;
        } end_meta_t;
        end_meta_t   m_in, m_out;
        logic        sum_valid;
        logic [15:0] sum, udp_sum;
        logic        v2_valid, v2_tuser, v2_trunc, v2_csum;
        logic [15:0] v2_len;

        assign m_in = '{tuser: fin_beat.tuser, trunc: late_trunc, decap: f_decap, csum: f_csum,
                        pseudo: f_pseudo, len: f_len16};

        region_sum_pipe #(
            .DATA_W(DATA_W), .POS_W(POS_W), .END_W(LEN_W), .META_W($bits(end_meta_t))
        ) udp_region (
            .clk, .rst,
            .s_hs(fin_beat.hs), .s_tlast(fin_beat.tlast), .s_tdata(fin_beat.tdata),
            .s_len(fin_beat.len), .s_have(fin_beat.have), .s_meta(m_in),
            .region_known, .region_end(lim),
            .head(decide_now ? ~s3_q.head_sum : 16'h0000),
            .out_valid(sum_valid), .out_sum(sum), .out_meta(m_out)
        );

        assign udp_sum = oc_fold({16'h0, sum} + {16'h0, m_out.pseudo});
        always_ff @(posedge clk) begin
            v2_valid <= sum_valid;
            if (sum_valid) begin
                v2_tuser <= m_out.tuser;
                v2_trunc <= m_out.trunc;
                v2_csum  <= m_out.decap && m_out.csum && udp_sum != 16'hFFFF &&
                            udp_sum != 16'h0000;
                v2_len   <= m_out.len;
            end
            if (rst) v2_valid <= 1'b0;
        end
        assign end_valid = v2_valid;
        assign end_tuser = v2_tuser;
        assign end_trunc = v2_trunc;
        assign end_csum  = v2_csum;
        assign end_len   = v2_len;
        assign eof_valid = v2_valid;
        assign eof_bad   = v2_tuser || v2_trunc || v2_csum;

        logic unused_region;
        assign unused_region = ^region_sum;     // the window's own sum: hooks tied off
    end

    // Without cuts the window sums the region from the live beat itself.
    logic unused_beat;
    assign unused_beat = (PIPED ? 1'b0 : ^{fin_beat.tdata, fin_beat.len, s3_q.head_sum}) ^
                         (^f_view);

    // ------------------------------------------------------------------ VNI lookup pipeline
    // The decision travels LOOKUP_LATENCY cycles beside the VNI lookup.
    typedef struct packed {
        logic             decap;
        logic             hdr_ok;
        logic             known_bad;     // the decision beat was the last one, marked bad
        logic [3:0]       outcome;
        logic [LEN_W-1:0] inner_len;
        logic [6:0]       k;
        logic [23:0]      vni;
        logic [2:0]       pen;
        logic [7:0]       tos_val, hc_hi, hc_lo;
    } decision_t;

    decision_t pipe [LOOKUP_LATENCY];
    logic      pipe_v [LOOKUP_LATENCY];
    decision_t dec_in, dec_out;

    always_comb begin
        dec_in.decap     = s3_q.decap;
        dec_in.hdr_ok    = s3_q.hdr_ok;
        dec_in.known_bad = fin_beat.tlast && fin_beat.tuser;
        dec_in.outcome   = s3_q.outcome;
        dec_in.inner_len = s3_q.inner_len;
        dec_in.k         = s3_q.k;
        dec_in.vni       = s3_q.vni;
        dec_in.pen       = s3_q.pen;
        dec_in.tos_val   = s3_q.tos_val;
        dec_in.hc_hi     = s3_q.hc_hi;
        dec_in.hc_lo     = s3_q.hc_lo;
        lk_valid = decide_now;
        lk_key   = s3_q.vni;
        dec_out  = pipe[LOOKUP_LATENCY-1];
    end

    // Final decision once the table has answered.
    logic [3:0] fin_outcome;
    logic       fin_fwd, fin_push;
    always_comb begin
        fin_outcome = dec_out.outcome;
        fin_push    = 1'b0;
        // Step 6 comes before the inner-frame checks: an unknown VNI wins over them.
        if (dec_out.hdr_ok && ctrl_vni_enable && !rs_hit) fin_outcome = O_UNKNOWN_VNI;
        else if (dec_out.decap && ctrl_vni_enable) fin_push = rs_value[12];
        fin_fwd = (fin_outcome == O_PASS || fin_outcome == O_DECAP) && !dec_out.known_bad;

        desc_valid     = pipe_v[LOOKUP_LATENCY-1];
        desc_drop      = !fin_fwd;
        desc_seg1_off  = 8'(dec_out.k);
        desc_seg1_len  = fin_push ? 8'd12 : 8'd0;
        desc_ins_len   = fin_push ? 8'd4 : 8'd0;
        desc_ins_data  = {rs_value[7:0], 4'h0, rs_value[11:8], 8'h00, 8'h81};
        desc_seg2_off  = (fin_outcome == O_DECAP) ? 8'(dec_out.k) + (fin_push ? 8'd12 : 8'd0) : 8'd0;
        desc_len_valid = (fin_outcome == O_DECAP);
        desc_out_len   = dec_out.inner_len + (fin_push ? LEN_W'(4) : LEN_W'(0));
        desc_patch_en  = (fin_outcome == O_DECAP) ? dec_out.pen : 3'b000;
        // Inner IP header at output byte 14, or 18 after a pushed tag.
        desc_patch_pos = {8'd25 + (fin_push ? 8'd4 : 8'd0), 8'd24 + (fin_push ? 8'd4 : 8'd0),
                          8'd15 + (fin_push ? 8'd4 : 8'd0)};
        desc_patch_val = {dec_out.hc_lo, dec_out.hc_hi, dec_out.tos_val};
        desc_meta      = {fin_outcome == O_DECAP, dec_out.vni};
    end

    // ------------------------------------------------------------------ stat join
    // Decisions (after the lookup) and frame ends (with late verdicts) both come in frame
    // order; a frame's event leaves when both are known.
    logic [3:0]  dq_outcome [QDEPTH];
    logic        dq_fwd     [QDEPTH];
    logic [1:0]  eq_late    [QDEPTH];    // {rx error, late: 1 truncated / 0 checksum}
    logic        eq_bad     [QDEPTH];
    logic [15:0] eq_len     [QDEPTH];
    logic [$clog2(QDEPTH):0] dq_wr, dq_rd, eq_wr, eq_rd;

    wire dq_has = dq_wr != dq_rd;
    wire eq_has = eq_wr != eq_rd;
    wire [$clog2(QDEPTH)-1:0] dq_ri = dq_rd[$clog2(QDEPTH)-1:0];
    wire [$clog2(QDEPTH)-1:0] eq_ri = eq_rd[$clog2(QDEPTH)-1:0];

    always_ff @(posedge clk) begin
        // Lookup pipeline.
        pipe[0]   <= dec_in;
        pipe_v[0] <= decide_now;
        for (int i = 1; i < LOOKUP_LATENCY; i++) begin
            pipe[i]   <= pipe[i-1];
            pipe_v[i] <= pipe_v[i-1];
        end
        // Queues for the stat event.
        if (desc_valid) begin
            dq_outcome[dq_wr[$clog2(QDEPTH)-1:0]] <= fin_outcome;
            dq_fwd[dq_wr[$clog2(QDEPTH)-1:0]]     <= fin_fwd;
            dq_wr <= dq_wr + 1'b1;
        end
        if (end_valid) begin
            eq_bad[eq_wr[$clog2(QDEPTH)-1:0]]  <= end_tuser;
            eq_late[eq_wr[$clog2(QDEPTH)-1:0]] <= {end_trunc, end_csum};
            eq_len[eq_wr[$clog2(QDEPTH)-1:0]]  <= end_len;
            eq_wr <= eq_wr + 1'b1;
        end
        stat_valid <= 1'b0;
        if (dq_has && eq_has) begin
            stat_valid <= 1'b1;
            stat_len   <= eq_len[eq_ri];
            stat_emit  <= dq_fwd[dq_ri];
            if (eq_bad[eq_ri])                                        stat_outcome <= O_RX_ERROR;
            else if (dq_outcome[dq_ri] == O_DECAP && eq_late[eq_ri][1]) stat_outcome <= O_TRUNC;
            else if (dq_outcome[dq_ri] == O_DECAP && eq_late[eq_ri][0]) stat_outcome <= O_UDP_CSUM;
            else                                                      stat_outcome <= dq_outcome[dq_ri];
            dq_rd <= dq_rd + 1'b1;
            eq_rd <= eq_rd + 1'b1;
        end
        if (rst) begin
            stat_valid <= 1'b0;
            dq_wr <= '0; dq_rd <= '0; eq_wr <= '0; eq_rd <= '0;
            for (int i = 0; i < LOOKUP_LATENCY; i++) pipe_v[i] <= 1'b0;
        end
    end

`ifndef SYNTHESIS
    // The decision pipeline must line up with the table's answers.
    always_ff @(posedge clk)
        if (!rst && pipe_v[LOOKUP_LATENCY-1] != rs_valid)
            $error("vxlan_classify: VNI table latency differs from LOOKUP_LATENCY");
`endif

endmodule

`default_nettype wire
