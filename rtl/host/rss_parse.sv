// SPDX-License-Identifier: Apache-2.0
//
// rss_parse: the flow tuple of each frame for rss_hash (docs/rss.md, "Parsing"), from a stream
// it only watches (no backpressure: s_hs is the beat's handshake). The contract is the golden
// model's wirespeed.model.rss.parse_frame, plus one rule of the capture top: a frame longer
// than max_len is not parsed (type NONE, the default queue).
//
// A frame gives one tuple, LATENCY (5) cycles after its last beat's handshake (t_valid high
// for one cycle), and one tuple per cycle at most, so frames of one beat back to back are
// parsed at full rate. The tuple is decided at the frame's end because the model's checks need
// the frame's length (an IPv4 total length or IPv6 payload length beyond the frame: NONE).
//
// Stages (registers at the end of each; t = the last beat's cycle)
//   t     C0: the first HDR_BYTES bytes (the window, the last beat merged in) and the length
//   t+1   P1: VLAN tags (0..2) -> the IP header's offset, EtherType; 64 bytes from there;
//             the length against max_len (f_* out)
//   t+2   P2: IPv4 / IPv6 fields, the L4 ports at the IHL's offset, length - offset
//   t+3   P3: each length check compared on its own
//   t+4   P4: the checks joined -> l3, l4 and the tuple (the outputs)
// Window bytes past the frame's end may hold an earlier frame's bytes: every field read is
// guarded by a length check, as in the model.

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

    output      logic              t_valid,
    output      logic              t_ipv4,
    output      logic              t_ipv6,
    output      logic              t_tcp,
    output      logic              t_udp,
    output      logic [127:0]      t_src,
    output      logic [127:0]      t_dst,
    output      logic [15:0]       t_sport,
    output      logic [15:0]       t_dport,

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
    // 22 bytes of L2 + a 60-byte IPv4 header + 4 bytes of ports = 86: a window of 128 bytes
    localparam int HDR     = 128;
    localparam int HB      = HDR / KW;             // window beats
    localparam int HB_W    = $clog2(HB + 1);
    localparam int IPB     = 64;                   // IP header bytes kept (60 + the ports)
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
        // so tkeep's count reaches the frame's length (C0), never the running count.
        len_next = (len_q > LEN_MAX - LEN_W'(KW)) ? LEN_MAX
                 : len_q + LEN_W'(count_keep(s_tkeep));
        len_beat = (len_q > LEN_MAX - LEN_W'(KW)) ? LEN_MAX : len_q + LEN_W'(KW);
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

    // ---- C0: the frame's window and length --------------------------------------------------
    logic               c0_v_q;
    logic [HDR*8-1:0]   c0_win_q;    // data
    logic [LEN_W-1:0]   c0_len_q;    // data

    always_ff @(posedge clk) begin
        if (rst) c0_v_q <= 1'b0;
        else     c0_v_q <= s_hs && s_tlast;
    end

    always_ff @(posedge clk) begin
        if (s_hs && s_tlast) begin
            c0_win_q   <= win_next;
            c0_len_q   <= len_next;
        end
    end

    function automatic logic [15:0] be16(input logic [HDR*8-1:0] w, input int i);
        be16 = {w[8*i +: 8], w[8*(i+1) +: 8]};
    endfunction

    function automatic logic is_tpid(input logic [15:0] et);
        is_tpid = et == 16'h8100 || et == 16'h88A8;
    endfunction

    // ---- P1: tags, EtherType, the IP header's bytes -------------------------------------------
    logic               p1_v_q;
    logic               p1_ok_q;     // data: the L2 header is whole, not giant
    logic               p1_v4_q;     // data: EtherType IPv4
    logic               p1_v6_q;     // data: EtherType IPv6
    logic [4:0]         p1_ip_q;     // data: IP header offset (14, 18, 22)
    logic [IPB*8-1:0]   p1_h_q;      // data: bytes ip .. ip + 63
    logic [LEN_W-1:0]   p1_len_q;    // data
    logic               p1_giant_q;  // data: longer than max_len

    always_ff @(posedge clk) begin
        if (rst) p1_v_q <= 1'b0;
        else     p1_v_q <= c0_v_q;
    end

    assign f_valid = p1_v_q;
    assign f_len   = p1_len_q;
    assign f_giant = p1_giant_q;

    always_ff @(posedge clk) begin
        logic [15:0] et0, et1, et2, et;
        logic [1:0]  tags;
        logic        ok, giant;
        et0  = be16(c0_win_q, 12);
        et1  = be16(c0_win_q, 16);
        et2  = be16(c0_win_q, 20);
        giant = c0_len_q > LEN_W'(max_len);
        ok   = c0_len_q >= LEN_W'(14) && !giant;
        tags = 2'd0;
        et   = et0;
        if (is_tpid(et0)) begin
            ok   = ok && c0_len_q >= LEN_W'(18);
            tags = 2'd1;
            et   = et1;
            if (is_tpid(et1)) begin
                ok   = ok && c0_len_q >= LEN_W'(22);
                tags = 2'd2;
                et   = et2;
            end
        end
        p1_ok_q  <= ok;
        p1_giant_q <= giant;
        p1_v4_q  <= et == 16'h0800;
        p1_v6_q  <= et == 16'h86DD;
        p1_ip_q  <= 5'd14 + {tags, 2'b00};
        p1_len_q <= c0_len_q;
        unique case (tags)
            2'd0:    p1_h_q <= c0_win_q[8*14 +: IPB*8];
            2'd1:    p1_h_q <= c0_win_q[8*18 +: IPB*8];
            default: p1_h_q <= c0_win_q[8*22 +: IPB*8];
        endcase
    end

    function automatic logic [7:0] hb(input logic [IPB*8-1:0] h, input int i);
        hb = h[8*i +: 8];
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
    logic [15:0]        p2_sport_q, p2_dport_q;      // data
    logic [LEN_W-1:0]   p2_rem_q;      // data: frame bytes from the IP header on

    always_ff @(posedge clk) begin
        if (rst) p2_v_q <= 1'b0;
        else     p2_v_q <= p1_v_q;
    end

    always_ff @(posedge clk) begin
        logic [7:0]  b0;
        logic [5:0]  b6;    // the fragment offset's high bits
        logic [3:0]  ihl;
        logic [31:0] ports4;
        b0     = hb(p1_h_q, 0);
        b6     = p1_h_q[8*6 +: 6];
        ihl    = b0[3:0];
        // The ports at IHL * 4 (5..15; a smaller IHL fails a check in P3)
        ports4 = '0;
        for (int i = 5; i < 16; i++) begin
            if (ihl == 4'(i)) ports4 = {hb(p1_h_q, 4*i), hb(p1_h_q, 4*i+1), hb(p1_h_q, 4*i+2),
                                        hb(p1_h_q, 4*i+3)};
        end
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
            p2_sport_q <= {hb(p1_h_q, 40), hb(p1_h_q, 41)};
            p2_dport_q <= {hb(p1_h_q, 42), hb(p1_h_q, 43)};
        end else begin
            p2_ver_q   <= b0[7:4] == 4'd4;
            p2_iplen_q <= {hb(p1_h_q, 2), hb(p1_h_q, 3)};
            p2_proto_q <= hb(p1_h_q, 9);
            p2_src_q   <= {96'd0, hb(p1_h_q, 12), hb(p1_h_q, 13), hb(p1_h_q, 14), hb(p1_h_q, 15)};
            p2_dst_q   <= {96'd0, hb(p1_h_q, 16), hb(p1_h_q, 17), hb(p1_h_q, 18), hb(p1_h_q, 19)};
            p2_sport_q <= ports4[31:16];
            p2_dport_q <= ports4[15:0];
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
        p3_sport_q  <= p2_sport_q;
        p3_dport_q  <= p2_dport_q;
    end

    logic         p4_v_q;
    logic         p4_v4_q, p4_v6_q, p4_tcp_q, p4_udp_q;   // data
    logic [127:0] p4_src_q, p4_dst_q;                      // data
    logic [15:0]  p4_sport_q, p4_dport_q;                  // data

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
    end

    assign t_valid = p4_v_q;
    assign t_ipv4  = p4_v4_q;
    assign t_ipv6  = p4_v6_q;
    assign t_tcp   = p4_tcp_q;
    assign t_udp   = p4_udp_q;
    assign t_src   = p4_src_q;
    assign t_dst   = p4_dst_q;
    assign t_sport = p4_sport_q;
    assign t_dport = p4_dport_q;

endmodule

`default_nettype wire
