// SPDX-License-Identifier: Apache-2.0
//
// rss_parse: the flow tuple of each frame for rss_hash (docs/rss.md, "Parsing" and "Inner
// headers"), from a stream it only watches (no backpressure: s_hs is the beat's handshake). The
// contract is the golden model's wirespeed.model.rss.parse_frame(frame, inner), plus one rule
// of the capture top: a frame longer than max_len is not parsed (type NONE, the default queue).
//
// A frame gives one tuple, LATENCY (9) cycles after its last beat's handshake (t_valid high
// for one cycle), and one tuple per cycle at most, so frames of one beat back to back are
// parsed at full rate. The tuple is decided at the frame's end because the model's checks need
// the frame's length (an IPv4 total length or IPv6 payload length beyond the frame: NONE).
//
// Inner headers (inner_en, sampled with the frame's last beat): a well-formed outer packet,
// not a fragment, carrying GRE or VXLAN gives its inner tuple (t_inner = 1) when the tunnel
// and inner headers are well formed; anything else gives the outer tuple (t_inner = 0).
//
//   outer L2 (14..22: 0-2 tags)  outer IP (IPv4 20..60 / IPv6 40)   L4 = outer IP payload
//   +--------------------------+-------------------------------+---------------------------
//   | dst src [tag][tag] type  | ver/ihl .. proto .. src dst   | GRE or UDP/4789 (below)
//   +--------------------------+-------------------------------+---------------------------
//   GRE (proto 47):  |C0KS 0000|00000 ver| ptype | [csum+rsvd] [key] [seq] |   (0s, ver 0)
//                    0         1         2..3    4 .. 4+4*(C+K+S)
//       ptype 0x0800 / 0x86DD: the inner IP header follows
//       ptype 0x6558: | inner dst src | type (0x0800 / 0x86DD, no tags) | inner IP ...
//   VXLAN (UDP, dport 4789): | UDP (8) | flags(I=0x08) rsvd vni rsvd (8) | inner dst src type
//                            L4        L4+8                             L4+16      L4+28
//   inner IP (at most L4 + 30, at most byte 112 of the frame) + 64 bytes: window of 192
//
// Stages (registers at the end of each; t = the last beat's cycle)
//   t     C0: the first HDR_BYTES (192) bytes (the window, the last beat merged in), length,
//             the VLAN tags (0..2) counted by their TPIDs
//   t+1   P1: the tags -> the IP header's offset, EtherType; 154 bytes from there; the
//             length against max_len (f_* out)
//   t+2   P2: IPv4 / IPv6 fields, the 16 bytes holding the L4 ports (by the IHL's
//             bits [3:2]), length - offset; inner: the bytes from L4 = IP + (IHL*4 or 40),
//             first shift (by 16s)
//   t+3   P3: each length check compared on its own; the ports (by the IHL's bits [1:0]);
//             inner: second shift (by 4s), the outer protocol GRE / UDP to 4789, the outer
//             IP payload's length
//   t+4   P4: the checks joined -> the outer tuple; inner: the GRE flags and protocol type
//             decoded, shift past GRE's 4..16 bytes or VXLAN's 16 (the C/K/S count); the
//             inner EtherType compared at each of its four places, picked by that count
//   t+5   I5: shift past the inner Ethernet header (TEB, VXLAN); the tunnel's checks
//             joined; the bytes left for the inner packet
//   t+6   I6: inner IPv4 / IPv6 fields (as P2); the 16 bytes holding the ports
//   t+7   I7: inner length checks (as P3), joined; the ports
//   t+8   I8: the inner tuple when it is whole, else the outer one (the outputs)
// Window bytes past the frame's end may hold an earlier frame's bytes: every field read is
// guarded by a length check, as in the model (the inner packet's bytes lie inside the outer
// IP packet, itself checked against the frame's length). The window holds every inner header
// the rules admit (the deepest: 2 tags, a 60-byte IPv4 header, GRE with C, K and S, TEB: the
// inner IP header at byte 112, its ports at most at 172..175), so none falls back for want of
// bytes.

`default_nettype none

module rss_parse #(
    // Bus width in bits (64, 128, 256 or 512)
    parameter int DATA_W = 256,
    // tkeep bits: one per byte
    parameter int KEEP_W = DATA_W / 8
) (
    input  wire logic              clk,
    input  wire logic              rst,

    input  wire logic [DATA_W-1:0] s_tdata,
    input  wire logic [KEEP_W-1:0] s_tkeep,    // contiguous from bit 0; all ones but on tlast
    input  wire logic              s_hs,       // a beat taken this cycle
    input  wire logic              s_tlast,

    input  wire logic [15:0]       max_len,    // longer frames: NONE
    input  wire logic              inner_en,   // hash GRE/VXLAN inner headers (at tlast)

    output      logic              t_valid,
    output      logic              t_ipv4,
    output      logic              t_ipv6,
    output      logic              t_tcp,
    output      logic              t_udp,
    output      logic [127:0]      t_src,
    output      logic [127:0]      t_dst,
    output      logic [15:0]       t_sport,
    output      logic [15:0]       t_dport,
    output      logic              t_inner,    // the tuple is a tunnel's inner one

    // The frame's length and size class, with the P1 stage (two cycles after the last beat)
    output      logic              f_valid,
    output      logic [17:0]       f_len,      // saturates at 2^18 - 1
    output      logic              f_giant     // f_len > max_len
);

    if (DATA_W != 64 && DATA_W != 128 && DATA_W != 256 && DATA_W != 512) begin : g_check_data_w
        $error("rss_parse: DATA_W (%0d) must be 64, 128, 256 or 512", DATA_W);
    end
    if (KEEP_W * 8 != DATA_W) begin : g_check_keep_w
        $error("rss_parse: KEEP_W must be DATA_W / 8");
    end

    localparam int KW      = DATA_W / 8;
    localparam int LOG_KW  = $clog2(KW);
    // Inner IP header at most at 22 + 60 + 16 + 14 = 112, + 64 bytes (a 60-byte IPv4 header and
    // the ports) = 176: a window of 192 bytes (a whole number of beats at every width)
    localparam int HDR     = 192;
    localparam int HB      = HDR / KW;             // window beats
    localparam int HB_W    = $clog2(HB + 1);
    localparam int IPB     = 64;                   // IP header bytes kept (60 + the ports)
    localparam int GB      = 154;                  // bytes kept from the IP header (P1)
    localparam int AB      = 106;                  // after the first inner shift (P2)
    localparam int WB      = 94;                   // from L4 (P3): 30 of tunnel + 64
    localparam int EB      = 78;                   // after GRE/VXLAN (P4): 14 of L2 + 64
    localparam int LEN_W   = 18;
    localparam logic [LEN_W-1:0] LEN_MAX = '1;

    // Bytes in the last beat: the position of tkeep's last one (contiguous keep)
    function automatic logic [LOG_KW:0] count_keep(input logic [KEEP_W-1:0] k);
        logic [LOG_KW:0] n;
        n = '0;
        for (int b = 0; b < KEEP_W; b++) begin
            if (k[b] && (b == KEEP_W - 1 || !k[(b + 1) % KEEP_W])) n = n | (LOG_KW+1)'(b + 1);
        end
        return n;
    endfunction

    // ---- capture ------------------------------------------------------------------------
    logic [HB_W-1:0]    beat_q;      // beats of the frame so far (saturates at HB)
    logic [LEN_W-1:0]   len_q;       // bytes before this beat
    logic [HDR*8-1:0]   win_q;       // data: window bytes of the frame so far
    logic [DATA_W-1:0]  masked;      // the beat, bytes past tkeep zeroed
    logic [LEN_W-1:0]   len_next;    // the frame's length, on its last beat
    logic [LEN_W-1:0]   len_beat;    // bytes after a beat that is not the last
    logic [HDR*8-1:0]   win_next;

    always_comb begin
        for (int b = 0; b < KW; b++) masked[8*b +: 8] = s_tkeep[b] ? s_tdata[8*b +: 8] : 8'd0;
        win_next = win_q;
        for (int j = 0; j < HB; j++) begin
            if (beat_q == HB_W'(j)) win_next[j*DATA_W +: DATA_W] = masked;
        end
        // A beat has at most 64 bytes: one saturating add. len_q moves by whole beats only,
        // so tkeep's count reaches the frame's length (C0), never the running count; and
        // below saturation len_q is a multiple of KW, so the length is len_q + KW (a full
        // beat) or len_q with tkeep's count in its low bits: no adder behind tkeep.
        len_beat = (len_q > LEN_MAX - LEN_W'(KW)) ? LEN_MAX : len_q + LEN_W'(KW);
        if (len_q > LEN_MAX - LEN_W'(KW) || s_tkeep[KEEP_W-1]) begin
            len_next = len_beat;
        end else begin
            len_next = {len_q[LEN_W-1:LOG_KW], LOG_KW'(count_keep(s_tkeep))};
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            beat_q <= '0;
            len_q  <= '0;
        end else if (s_hs) begin
            beat_q <= s_tlast ? '0 : (beat_q == HB_W'(HB) ? beat_q : beat_q + 1'b1);
            len_q  <= s_tlast ? '0 : len_beat;
        end
    end

    always_ff @(posedge clk) begin
        if (s_hs) win_q <= win_next;
    end

    function automatic logic [15:0] be16(input logic [HDR*8-1:0] w, input int i);
        be16 = {w[8*i +: 8], w[8*(i+1) +: 8]};
    endfunction

    function automatic logic is_tpid(input logic [15:0] et);
        is_tpid = et == 16'h8100 || et == 16'h88A8;
    endfunction

    // ---- C0: the frame's window and length --------------------------------------------------
    localparam int TC = 8;           // copies of the tag count: each selects GB*8/TC bits of P1
    logic               c0_v_q;
    logic [HDR*8-1:0]   c0_win_q;    // data
    logic [LEN_W-1:0]   c0_len_q;    // data
    logic               c0_en_q;     // data: inner_en at the last beat
    logic [TC-1:0][1:0] c0_tags_q;   // data: VLAN tags (0..2), by their TPIDs at 12 and 16
    logic [TC:0][1:0]   p1_l3s_q;    // data: the L3 length's bits [5:4] (IHL * 4 or 40), copies

    always_ff @(posedge clk) begin
        if (rst) c0_v_q <= 1'b0;
        else     c0_v_q <= s_hs && s_tlast;
    end

    always_ff @(posedge clk) begin
        if (s_hs && s_tlast) begin
            c0_win_q   <= win_next;
            c0_len_q   <= len_next;
            c0_en_q    <= inner_en;
        end
    end

    // The tags counted here, so P1's wide select by them takes registers (kept apart: each
    // copy drives a part of it)
    (* keep *) always_ff @(posedge clk) begin
        logic [1:0] tags;
        tags = !is_tpid(be16(win_next, 12)) ? 2'd0 : !is_tpid(be16(win_next, 16)) ? 2'd1 : 2'd2;
        if (s_hs && s_tlast) c0_tags_q <= {TC{tags}};
    end

    // ---- P1: tags, EtherType, the IP header's bytes -------------------------------------------
    logic               p1_v_q;
    logic               p1_ok_q;     // data: the L2 header is whole, not giant
    logic               p1_v4_q;     // data: EtherType IPv4
    logic               p1_v6_q;     // data: EtherType IPv6
    logic [4:0]         p1_ip_q;     // data: IP header offset (14, 18, 22)
    logic [GB*8-1:0]    p1_h_q;      // data: bytes ip .. ip + GB - 1
    logic               p1_en_q;     // data
    logic [LEN_W-1:0]   p1_len_q;    // data
    logic               p1_giant_q;  // data: longer than max_len

    always_ff @(posedge clk) begin
        if (rst) p1_v_q <= 1'b0;
        else     p1_v_q <= c0_v_q;
    end

    assign f_valid = p1_v_q;
    assign f_len   = p1_len_q;
    assign f_giant = p1_giant_q;

    localparam int GS = GB * 8 / TC;   // bits of P1's select per tag copy (TC divides GB * 8)
    localparam int AS = AB * 8 / TC;   // bits of P2's first inner shift per copy of its select

    always_ff @(posedge clk) begin
        logic [1:0]  tags;
        logic        ok, giant;
        logic [2:0]  e4, e6;   // the EtherType after 0, 1, 2 tags: IPv4, IPv6
        logic [GB*8-1:0] h;
        tags  = c0_tags_q[0];
        for (int k = 0; k < 3; k++) begin
            e4[k] = be16(c0_win_q, 12 + 4*k) == 16'h0800;
            e6[k] = be16(c0_win_q, 12 + 4*k) == 16'h86DD;
        end
        giant = c0_len_q > LEN_W'(max_len);
        ok    = c0_len_q >= LEN_W'(14 + 4 * 32'(tags)) && !giant;
        p1_ok_q  <= ok;
        p1_giant_q <= giant;
        p1_v4_q  <= e4[tags];
        p1_v6_q  <= e6[tags];
        p1_ip_q  <= 5'd14 + {tags, 2'b00};
        p1_len_q <= c0_len_q;
        p1_en_q  <= c0_en_q;
        for (int c = 0; c < TC; c++) begin
            unique case (c0_tags_q[c])
                2'd0:    h[c*GS +: GS] = c0_win_q[8*14 + c*GS +: GS];
                2'd1:    h[c*GS +: GS] = c0_win_q[8*18 + c*GS +: GS];
                default: h[c*GS +: GS] = c0_win_q[8*22 + c*GS +: GS];
            endcase
        end
        p1_h_q <= h;
    end

    // The L3 length's 16s (IPv6: 40; else the IHL at the IP header's first byte, whatever its
    // EtherType, as P2 reads it), for P2's selects by them: registers, one copy per part
    (* keep *) always_ff @(posedge clk) begin
        logic [3:2] ihl;
        unique case (c0_tags_q[1])
            2'd0:    ihl = c0_win_q[8*14 + 2 +: 2];
            2'd1:    ihl = c0_win_q[8*18 + 2 +: 2];
            default: ihl = c0_win_q[8*22 + 2 +: 2];
        endcase
        p1_l3s_q <= {(TC+1){be16(c0_win_q, 12 + 4 * 32'(c0_tags_q[1])) == 16'h86DD ? 2'd2 : ihl}};
    end

    function automatic logic [7:0] hb(input logic [GB*8-1:0] h, input int i);
        hb = h[8*i +: 8];
    endfunction

    function automatic logic [7:0] ib(input logic [IPB*8-1:0] h, input int i);
        ib = h[8*i +: 8];
    endfunction

    // ---- P2: IP fields ------------------------------------------------------------------
    logic               p2_v_q;
    logic               p2_ok_q, p2_v4_q, p2_v6_q;   // data
    logic               p2_ver_q;      // data: the version nibble matches the EtherType
    logic [5:0]         p2_ihl_q;      // data: IPv4 header bytes (IHL * 4)
    logic [15:0]        p2_iplen_q;    // data: IPv4 total length / IPv6 payload length
    logic               p2_frag_q;     // data: IPv4 MF or fragment offset
    logic [7:0]         p2_proto_q;    // data
    logic [127:0]       p2_src_q, p2_dst_q;          // data
    logic [127:0]       p2_pr_q;       // data: 16 bytes holding the ports (see P3)
    logic [1:0]         p2_pw_q;       // data: the ports' word in them
    logic               p2_pz_q;       // data: IPv4 with IHL < 5: ports 0
    logic [3:0]         p2_vxc_q;      // data: per word of p2_pr_q, its dport is 4789
    logic [LEN_W-1:0]   p2_rem_q;      // data: frame bytes from the IP header on
    logic [AB*8-1:0]    i2_a_q;        // data: bytes from IP + 16 * (L3 length / 16)
    logic [1:0]         i2_b_q;        // data: (L3 length / 4) mod 4, the shift left to do
    logic               p2_en_q;       // data

    always_ff @(posedge clk) begin
        if (rst) p2_v_q <= 1'b0;
        else     p2_v_q <= p1_v_q;
    end

    // The ports lie at word IHL (IPv4; 5..15, a smaller IHL fails a check in P3 and its ports
    // are 0) or word 10 (IPv6) of the IP header: selected in two 4:1 steps, by the word's
    // bits [3:2] here and [1:0] in P3, so the IHL's fan-out drives no wide select in one
    // stage. VXLAN's destination port (4789) is compared here at each word the first step
    // keeps, and picked with the ports in P3.
    always_ff @(posedge clk) begin
        logic [7:0]  b0;
        logic [5:0]  b6;    // the fragment offset's high bits
        logic [3:0]  ihl;
        logic [3:2]  l3len;   // the L3 length / 4 (IHL, or 10 for IPv6), bits [3:2]; bits
                              // [5:4] (the ports' 16 bytes, the first shift) come from P1
        logic [3:1][3:0] vx;   // per 16-byte group (the ports are at word 5 or later)
        b0     = hb(p1_h_q, 0);
        b6     = p1_h_q[8*6 +: 6];
        ihl    = b0[3:0];
        l3len  = p1_v6_q ? 2'd2 : ihl[1:0];
        for (int i = 1; i < 4; i++) begin
            for (int k = 0; k < 4; k++) begin
                vx[i][k] = {hb(p1_h_q, 16*i + 4*k + 2), hb(p1_h_q, 16*i + 4*k + 3)} == 16'd4789;
            end
        end
        unique case (p1_l3s_q[TC])
            2'd0, 2'd1: begin
                p2_pr_q  <= p1_h_q[8*16 +: 128];
                p2_vxc_q <= vx[1];
            end
            2'd2: begin
                p2_pr_q  <= p1_h_q[8*32 +: 128];
                p2_vxc_q <= vx[2];
            end
            default: begin
                p2_pr_q  <= p1_h_q[8*48 +: 128];
                p2_vxc_q <= vx[3];
            end
        endcase
        p2_pw_q   <= l3len[3:2];
        p2_pz_q   <= !p1_v6_q && ihl < 4'd5;
        // Inner: the outer L4 starts at the L3 length (IHL * 4, or 40): shifted in two steps
        // of one 4:1 select each, by its bits [5:4] here and [3:2] in P3
        for (int c = 0; c < TC; c++) begin
            unique case (p1_l3s_q[c])
                2'd0:    i2_a_q[c*AS +: AS] <= p1_h_q[c*AS         +: AS];
                2'd1:    i2_a_q[c*AS +: AS] <= p1_h_q[8*16 + c*AS  +: AS];
                2'd2:    i2_a_q[c*AS +: AS] <= p1_h_q[8*32 + c*AS  +: AS];
                default: i2_a_q[c*AS +: AS] <= p1_h_q[8*48 + c*AS  +: AS];
            endcase
        end
        i2_b_q    <= l3len[3:2];
        p2_en_q   <= p1_en_q;
        p2_ok_q   <= p1_ok_q;
        p2_v4_q   <= p1_v4_q;
        p2_v6_q   <= p1_v6_q;
        p2_ihl_q  <= {ihl, 2'b00};
        p2_rem_q  <= p1_len_q - LEN_W'(p1_ip_q);
        p2_frag_q <= {b6, hb(p1_h_q, 7)} != 14'd0;
        if (p1_v6_q) begin
            p2_ver_q   <= b0[7:4] == 4'd6;
            p2_iplen_q <= {hb(p1_h_q, 4), hb(p1_h_q, 5)};
            p2_proto_q <= hb(p1_h_q, 6);
            for (int i = 0; i < 16; i++) begin
                p2_src_q[8*(15-i) +: 8] <= hb(p1_h_q, 8 + i);
                p2_dst_q[8*(15-i) +: 8] <= hb(p1_h_q, 24 + i);
            end
        end else begin
            p2_ver_q   <= b0[7:4] == 4'd4;
            p2_iplen_q <= {hb(p1_h_q, 2), hb(p1_h_q, 3)};
            p2_proto_q <= hb(p1_h_q, 9);
            p2_src_q   <= {96'd0, hb(p1_h_q, 12), hb(p1_h_q, 13), hb(p1_h_q, 14), hb(p1_h_q, 15)};
            p2_dst_q   <= {96'd0, hb(p1_h_q, 16), hb(p1_h_q, 17), hb(p1_h_q, 18), hb(p1_h_q, 19)};
        end
    end

    // ---- P3: each check compared on its own; P4: the checks joined, the tuple ------------
    logic         p3_v_q;
    logic         p3_ok_q, p3_v4_q, p3_v6_q, p3_ver_q, p3_frag_q;   // data
    logic         p3_tcp_q, p3_udp_q;                                // data: the protocol
    logic         p3_ge20_q;     // data: rem >= 20
    logic         p3_ge40_q;     // data: rem >= 40
    logic         p3_ihl20_q;    // data: IHL * 4 >= 20
    logic         p3_geihl_q;    // data: rem >= IHL * 4
    logic         p3_lenihl_q;   // data: the IP length >= IHL * 4
    logic         p3_gelen_q;    // data: rem >= the IP length
    logic         p3_ge6_q;      // data: rem >= the IPv6 payload length + 40
    logic         p3_shtcp_q;    // data: the IP payload too short for a TCP header
    logic         p3_shudp_q;    // data: for a UDP header
    logic [127:0] p3_src_q, p3_dst_q;                      // data
    logic [15:0]  p3_sport_q, p3_dport_q;                  // data
    logic [WB*8-1:0] i3_w_q;     // data: the outer IP payload's first bytes (GRE, UDP)
    logic         i3_gre_q;      // data: protocol 47
    logic         i3_vx_q;       // data: UDP to port 4789
    logic [15:0]  i3_pay_q;      // data: the outer IP payload's length (wraps if malformed)
    logic         p3_en_q;       // data

    always_ff @(posedge clk) begin
        if (rst) p3_v_q <= 1'b0;
        else     p3_v_q <= p2_v_q;
    end

    always_ff @(posedge clk) begin
        logic [16:0] hl;   // the IPv4 header's bytes counted in its total length (0: IPv6)
        hl = p2_v4_q ? 17'(p2_ihl_q) : 17'd0;
        p3_ok_q     <= p2_ok_q;
        p3_v4_q     <= p2_v4_q;
        p3_v6_q     <= p2_v6_q;
        p3_ver_q    <= p2_ver_q;
        p3_frag_q   <= p2_frag_q;
        p3_tcp_q    <= p2_proto_q == 8'd6;
        p3_udp_q    <= p2_proto_q == 8'd17;
        p3_ge20_q   <= p2_rem_q >= LEN_W'(20);
        p3_ge40_q   <= p2_rem_q >= LEN_W'(40);
        p3_ihl20_q  <= p2_ihl_q >= 6'd20;
        p3_geihl_q  <= p2_rem_q >= LEN_W'(p2_ihl_q);
        p3_lenihl_q <= p2_iplen_q >= 16'(p2_ihl_q);
        p3_gelen_q  <= p2_rem_q >= LEN_W'(p2_iplen_q);
        p3_ge6_q    <= p2_rem_q >= LEN_W'(17'(p2_iplen_q) + 17'd40);
        // IPv4 payload = total length - IHL * 4; IPv6 payload = its length
        p3_shtcp_q  <= 17'(p2_iplen_q) < hl + 17'd20;
        p3_shudp_q  <= 17'(p2_iplen_q) < hl + 17'd8;
        p3_src_q    <= p2_src_q;
        p3_dst_q    <= p2_dst_q;
        p3_sport_q  <= p2_pz_q ? 16'd0
                     : {p2_pr_q[8*(4*p2_pw_q)     +: 8], p2_pr_q[8*(4*p2_pw_q + 1) +: 8]};
        p3_dport_q  <= p2_pz_q ? 16'd0
                     : {p2_pr_q[8*(4*p2_pw_q + 2) +: 8], p2_pr_q[8*(4*p2_pw_q + 3) +: 8]};
        unique case (i2_b_q)
            2'd0:    i3_w_q <= i2_a_q[0     +: WB*8];
            2'd1:    i3_w_q <= i2_a_q[8*4   +: WB*8];
            2'd2:    i3_w_q <= i2_a_q[8*8   +: WB*8];
            default: i3_w_q <= i2_a_q[8*12  +: WB*8];
        endcase
        i3_gre_q    <= p2_proto_q == 8'd47;
        i3_vx_q     <= p2_proto_q == 8'd17 && !p2_pz_q && p2_vxc_q[p2_pw_q];
        i3_pay_q    <= p2_iplen_q - 16'(hl);
        p3_en_q     <= p2_en_q;
    end

    logic         p4_v_q;
    logic         p4_v4_q, p4_v6_q, p4_tcp_q, p4_udp_q;   // data
    logic [127:0] p4_src_q, p4_dst_q;                      // data
    logic [15:0]  p4_sport_q, p4_dport_q;                  // data
    logic         p4_nofrag_q;   // data: a well-formed outer packet, not a fragment
    logic         p4_en_q;       // data
    logic [EB*8-1:0] i4_w_q;     // data: the bytes after the GRE header / at the inner L2
    logic         i4_gre_q;      // data: GRE, version 0, reserved bits 0
    logic         i4_pt4_q, i4_pt6_q, i4_teb_q;   // data: GRE's protocol type
    logic         i4_vx_q;       // data: VXLAN with the I flag
    logic         i4_short_q;    // data: the outer payload shorter than the GRE/VXLAN header
    logic [15:0]  i4_rem_q;      // data: the outer payload's bytes after it
    logic         i4_et4_q;      // data: the inner Ethernet header's type is IPv4
    logic         i4_et6_q;      // data: IPv6
    logic         i4_ge14_q;     // data: the outer payload holds an inner Ethernet header

    always_ff @(posedge clk) begin
        if (rst) p4_v_q <= 1'b0;
        else     p4_v_q <= p3_v_q;
    end

    always_ff @(posedge clk) begin
        logic v4ok, v6ok, frag;
        v4ok = p3_ok_q && p3_v4_q && p3_ver_q && p3_ge20_q && p3_ihl20_q && p3_geihl_q
            && p3_lenihl_q && p3_gelen_q;
        v6ok = p3_ok_q && p3_v6_q && p3_ver_q && p3_ge40_q && p3_ge6_q;
        frag = v4ok && p3_frag_q;
        if (!frag && ((p3_tcp_q && p3_shtcp_q) || (p3_udp_q && p3_shudp_q))) begin
            // A TCP (UDP) packet too short for its header: malformed, NONE
            v4ok = 1'b0;
            v6ok = 1'b0;
        end
        p4_v4_q    <= v4ok;
        p4_v6_q    <= v6ok;
        p4_tcp_q   <= p3_tcp_q && !frag;
        p4_udp_q   <= p3_udp_q && !frag;
        p4_src_q   <= p3_src_q;
        p4_dst_q   <= p3_dst_q;
        p4_sport_q <= p3_sport_q;
        p4_dport_q <= p3_dport_q;
        p4_nofrag_q <= (v4ok || v6ok) && !frag;
        p4_en_q    <= p3_en_q;
    end

    function automatic logic [7:0] wb(input logic [WB*8-1:0] w, input int i);
        wb = w[8*i +: 8];
    endfunction

    // Inner, P4: GRE's flags and protocol type; the shift past GRE's 4 + 4 * (C + K + S)
    // bytes, or past UDP and VXLAN's 16 (n = 3): each select bit is a function of 4 flops.
    // The inner Ethernet header's type (at 4 + 4 * n + 12) is compared at its four places
    // here and the result selected by n, so I5 takes the compare from a register.
    always_ff @(posedge clk) begin
        logic [7:0] f0;
        logic [1:0] n;
        logic [4:0] hl;
        logic [3:0] c4, c6, c14;
        f0 = wb(i3_w_q, 0);
        n  = i3_vx_q ? 2'd3 : 2'(f0[7]) + 2'(f0[5]) + 2'(f0[4]);
        hl = 5'd4 + {1'b0, n, 2'b00};
        for (int k = 0; k < 4; k++) begin
            c4[k]  = {wb(i3_w_q, 16 + 4*k), wb(i3_w_q, 17 + 4*k)} == 16'h0800;
            c6[k]  = {wb(i3_w_q, 16 + 4*k), wb(i3_w_q, 17 + 4*k)} == 16'h86DD;
            // the payload after the GRE/VXLAN header holds 14 bytes (when it holds the header)
            c14[k] = i3_pay_q >= 16'(18 + 4*k);
        end
        i4_et4_q  <= c4[n];
        i4_et6_q  <= c6[n];
        i4_ge14_q <= c14[n];
        unique case (n)
            2'd0:    i4_w_q <= i3_w_q[8*4  +: EB*8];
            2'd1:    i4_w_q <= i3_w_q[8*8  +: EB*8];
            2'd2:    i4_w_q <= i3_w_q[8*12 +: EB*8];
            default: i4_w_q <= i3_w_q[8*16 +: EB*8];
        endcase
        // RFC 2784 / 2890: bit 1 and bits 4..12 reserved (0), version (bits 13..15) 0
        i4_gre_q   <= i3_gre_q && (f0 & 8'h4F) == 8'h00 && wb(i3_w_q, 1) == 8'h00;
        i4_pt4_q   <= {wb(i3_w_q, 2), wb(i3_w_q, 3)} == 16'h0800;
        i4_pt6_q   <= {wb(i3_w_q, 2), wb(i3_w_q, 3)} == 16'h86DD;
        i4_teb_q   <= {wb(i3_w_q, 2), wb(i3_w_q, 3)} == 16'h6558;
        i4_vx_q    <= i3_vx_q && i3_w_q[8*8 + 3];   // VXLAN's I flag
        i4_short_q <= i3_pay_q < 16'(hl);
        i4_rem_q   <= i3_pay_q - 16'(hl);
    end

    // Outer tuple, waiting for the inner one (P4 -> I8)
    localparam int OT = 4 + 128 + 128 + 16 + 16;
    logic [OT-1:0] o5_q, o6_q, o7_q;   // data

    always_ff @(posedge clk) begin
        o5_q <= {p4_v4_q, p4_v6_q, p4_tcp_q, p4_udp_q, p4_src_q, p4_dst_q, p4_sport_q, p4_dport_q};
        o6_q <= o5_q;
        o7_q <= o6_q;
    end

    // ---- I5: past the inner Ethernet header; the inner L3 ---------------------------------
    logic               i5_v_q;
    logic [IPB*8-1:0]   i5_h_q;      // data: the inner IP header's bytes
    logic               i5_tun_q;    // data: a tunnel this option parses (all but the inner IP)
    logic               i5_v4_q, i5_v6_q;   // data: the inner IP's version by its type
    logic [15:0]        i5_rem_q;    // data: the outer IP payload's bytes from the inner IP on

    always_ff @(posedge clk) begin
        if (rst) i5_v_q <= 1'b0;
        else     i5_v_q <= p4_v_q;
    end

    always_ff @(posedge clk) begin
        logic        eth, et4, et6, l3;
        eth = (i4_gre_q && i4_teb_q) || i4_vx_q;     // an inner Ethernet header (14 bytes)
        l3  = i4_gre_q && (i4_pt4_q || i4_pt6_q);
        et4 = i4_et4_q;                              // no inner tags: 0x8100 is not parsed
        et6 = i4_et6_q;
        i5_h_q   <= eth ? i4_w_q[8*14 +: IPB*8] : i4_w_q[0 +: IPB*8];
        i5_tun_q <= p4_en_q && p4_nofrag_q && !i4_short_q
                 && (l3 || (eth && (et4 || et6) && i4_ge14_q));
        i5_v4_q  <= eth ? et4 : i4_pt4_q;
        i5_v6_q  <= eth ? et6 : i4_pt6_q;
        i5_rem_q <= eth ? i4_rem_q - 16'd14 : i4_rem_q;
    end

    // ---- I6: inner IP fields (as P2) --------------------------------------------------
    logic               i6_v_q;
    logic               i6_v4_q;       // data
    logic [5:0]         i6_ihl_q;      // data
    logic [15:0]        i6_iplen_q;    // data
    logic               i6_frag_q;     // data
    logic [7:0]         i6_proto_q;    // data
    logic [127:0]       i6_src_q, i6_dst_q;          // data
    logic [127:0]       i6_pr_q;       // data: 16 bytes holding the ports (see I7)
    logic [1:0]         i6_pw_q;       // data: the ports' word in them
    logic [15:0]        i6_rem_q;      // data
    logic [15:0]        i6_rem40_q;    // data: rem - 40 (IPv6: the payload length it allows)
    logic [6:0]         i6_hl20_q, i6_hl8_q;   // data: IPv4 header bytes (IPv6: 0) + 20, + 8
    logic               i6_ok4_q;      // data: the IPv4 checks of I5's fields alone (as I7's)
    logic               i6_ok6_q;      // data: the IPv6 checks of I5's fields alone

    always_ff @(posedge clk) begin
        if (rst) i6_v_q <= 1'b0;
        else     i6_v_q <= i5_v_q;
    end

    // The ports lie at word IHL (IPv4) or word 10 (IPv6) of the inner header: selected in two
    // 4:1 steps, by the word's bits [3:2] here and [1:0] in I7, so the IHL's fan-out drives
    // no wide select in one stage
    always_ff @(posedge clk) begin
        logic [7:0]  b0;
        logic [5:0]  b6;
        logic [3:0]  ihl, pw;
        b0     = ib(i5_h_q, 0);
        b6     = i5_h_q[8*6 +: 6];
        ihl    = b0[3:0];
        pw     = i5_v6_q ? 4'd10 : ihl;
        unique case (pw[3:2])       // 0 (IHL < 4): malformed, any bytes
            2'd0, 2'd1: i6_pr_q <= i5_h_q[8*16 +: 128];
            2'd2:       i6_pr_q <= i5_h_q[8*32 +: 128];
            default:    i6_pr_q <= i5_h_q[8*48 +: 128];
        endcase
        i6_pw_q   <= pw[1:0];
        i6_v4_q   <= i5_v4_q;
        i6_ihl_q  <= {ihl, 2'b00};
        i6_rem_q  <= i5_rem_q;
        i6_rem40_q <= i5_rem_q - 16'd40;
        i6_hl20_q  <= (i5_v4_q ? {1'b0, ihl, 2'b00} : 7'd0) + 7'd20;
        i6_hl8_q   <= (i5_v4_q ? {1'b0, ihl, 2'b00} : 7'd0) + 7'd8;
        i6_frag_q <= {b6, ib(i5_h_q, 7)} != 14'd0;
        i6_ok4_q  <= i5_tun_q && i5_v4_q && !i5_v6_q && b0[7:4] == 4'd4 && i5_rem_q >= 16'd20
                  && ihl >= 4'd5;
        i6_ok6_q  <= i5_tun_q && i5_v6_q && b0[7:4] == 4'd6 && i5_rem_q >= 16'd40;
        if (i5_v6_q) begin
            i6_iplen_q <= {ib(i5_h_q, 4), ib(i5_h_q, 5)};
            i6_proto_q <= ib(i5_h_q, 6);
            for (int i = 0; i < 16; i++) begin
                i6_src_q[8*(15-i) +: 8] <= ib(i5_h_q, 8 + i);
                i6_dst_q[8*(15-i) +: 8] <= ib(i5_h_q, 24 + i);
            end
        end else begin
            i6_iplen_q <= {ib(i5_h_q, 2), ib(i5_h_q, 3)};
            i6_proto_q <= ib(i5_h_q, 9);
            i6_src_q   <= {96'd0, ib(i5_h_q, 12), ib(i5_h_q, 13), ib(i5_h_q, 14), ib(i5_h_q, 15)};
            i6_dst_q   <= {96'd0, ib(i5_h_q, 16), ib(i5_h_q, 17), ib(i5_h_q, 18), ib(i5_h_q, 19)};
        end
    end

    // ---- I7: inner checks, compared and joined (their operands prepared in I6, so each is
    // one compare and a few ANDs); I8 then has one OR before its 2:1 select, whose select
    // fans out to the whole tuple, so the join itself stays out of I8
    logic         i7_v_q;
    logic         i7_v4ok_q;     // data: an inner IPv4 header whole, in a tunnel parsed
    logic         i7_v6ok_q;     // data: an inner IPv6 header whole, in a tunnel parsed
    logic         i7_bad_q;      // data: TCP/UDP too short for its header (not a fragment)
    logic         i7_frag_q;     // data: the inner IPv4 MF or offset
    logic         i7_tcp_q, i7_udp_q;                                // data
    logic [127:0] i7_src_q, i7_dst_q;                                // data
    logic [15:0]  i7_sport_q, i7_dport_q;                            // data

    always_ff @(posedge clk) begin
        if (rst) i7_v_q <= 1'b0;
        else     i7_v_q <= i6_v_q;
    end

    always_ff @(posedge clk) begin
        logic tcp, udp;
        tcp = i6_proto_q == 8'd6;
        udp = i6_proto_q == 8'd17;
        i7_v4ok_q  <= i6_ok4_q && i6_rem_q >= 16'(i6_ihl_q)
                   && i6_iplen_q >= 16'(i6_ihl_q) && i6_rem_q >= i6_iplen_q;
        i7_v6ok_q  <= i6_ok6_q && i6_rem40_q >= i6_iplen_q;
        // A fragment is hashed by its addresses: its L4 header is not checked
        i7_bad_q   <= !(i6_v4_q && i6_frag_q)
                   && ((tcp && i6_iplen_q < 16'(i6_hl20_q)) || (udp && i6_iplen_q < 16'(i6_hl8_q)));
        i7_frag_q  <= i6_frag_q;
        i7_tcp_q   <= tcp;
        i7_udp_q   <= udp;
        i7_src_q   <= i6_src_q;
        i7_dst_q   <= i6_dst_q;
        i7_sport_q <= {i6_pr_q[8*(4*i6_pw_q)     +: 8], i6_pr_q[8*(4*i6_pw_q + 1) +: 8]};
        i7_dport_q <= {i6_pr_q[8*(4*i6_pw_q + 2) +: 8], i6_pr_q[8*(4*i6_pw_q + 3) +: 8]};
    end

    // ---- I8: the inner tuple if whole, else the outer one ------------------------------
    logic         i8_v_q;
    logic         i8_v4_q, i8_v6_q, i8_tcp_q, i8_udp_q, i8_inner_q;   // data
    logic [127:0] i8_src_q, i8_dst_q;                                 // data
    logic [15:0]  i8_sport_q, i8_dport_q;                             // data

    always_ff @(posedge clk) begin
        if (rst) i8_v_q <= 1'b0;
        else     i8_v_q <= i7_v_q;
    end

    always_ff @(posedge clk) begin
        logic use_in, frag;
        use_in = (i7_v4ok_q || i7_v6ok_q) && !i7_bad_q;
        frag   = i7_v4ok_q && i7_frag_q;
        i8_inner_q <= use_in;
        if (use_in) begin
            i8_v4_q    <= i7_v4ok_q;
            i8_v6_q    <= i7_v6ok_q;
            i8_tcp_q   <= i7_tcp_q && !frag;
            i8_udp_q   <= i7_udp_q && !frag;
            i8_src_q   <= i7_src_q;
            i8_dst_q   <= i7_dst_q;
            i8_sport_q <= i7_sport_q;
            i8_dport_q <= i7_dport_q;
        end else begin
            {i8_v4_q, i8_v6_q, i8_tcp_q, i8_udp_q, i8_src_q, i8_dst_q, i8_sport_q, i8_dport_q}
                <= o7_q;
        end
    end

    assign t_valid = i8_v_q;
    assign t_ipv4  = i8_v4_q;
    assign t_ipv6  = i8_v6_q;
    assign t_tcp   = i8_tcp_q;
    assign t_udp   = i8_udp_q;
    assign t_src   = i8_src_q;
    assign t_dst   = i8_dst_q;
    assign t_sport = i8_sport_q;
    assign t_dport = i8_dport_q;
    assign t_inner = i8_inner_q;

endmodule

`default_nettype wire
