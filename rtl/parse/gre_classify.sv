// SPDX-License-Identifier: Apache-2.0
//
// gre_classify — the GRE decision (docs/gre_decap.md, steps 1-9) from the header front end's
// tap, in registered stages, ending in one edit descriptor per frame for axis_edit.
//
//  GRE header at G (4..16 bytes), then the payload at K = G + gre_len
//  G   +1   +2     +4          +8          +12
//  +---+----+------+-----------+-----------+-----------+------------------
//  | C.K.S..ver    | protocol  | checksum? | key?      | sequence? | inner header (K) ...
//  +---+----+------+-----------+-----------+-----------+------------------
//  inner IPv4: K+1 TOS (ECN = bits 1:0), K+10 header checksum; inner IPv6: K+1 ECN = bits 5:4
//
// Stages after the tap (tap_valid = cycle T):
//   G0 (T)    the tap as it comes, registered here: the front end's registers sit beside its
//             window logic, this copy beside the checks that read it; with it the few
//             decodes a LUT or two make from the tap (the GRE header's optional-field count,
//             one-hot; its protocol; the IP payload length's sign, "under 64" and low-bits
//             compares; CE)
//   G1 (T+1)  GRE fields, lengths (K, ip_end), the inner bytes, every "frame ends before" and
//             length check as a flag
//   G2 (T+2)  the early outcome: the steps' priority, with the allow-list step taken as a hit
//             and flagged where it decides; its answer registered; RFC 6040, the first sum
//             of the inner checksum update (RFC 1624: ~HC + ~m)
//   G3 (T+3)  the policy and the checks a whole frame allows (the final outcome and the
//             action; a miss where the allow-list decides makes it DROP_NOT_ALLOWED, the
//             outcome's last select); the bytes a DECAP_L3 lays over the output head, the
//             checksum's second sum (+ m', the first sum's carry as carry-in)
//   G4 (T+4)  the descriptor: the head kept for DECAP_L3 with the checksum's fold
//             patched in, lengths selected by the action
// desc_valid is high in cycle T+5 for one cycle; the caller queues descriptors (no ready).
//
// Late checks (the frame's end) are the engine's: MAC RX error, a frame shorter than ip_end
// (min_len), the GRE checksum over [G, ip_end) (sum_*). A frame whose end the window already
// saw (tap_whole) gets those that apply decided here and is dropped before any output.

`default_nettype none

module gre_classify
    import gre_pkg::*;
    import parse_pkg::*;
#(
    // Bytes of the output head a descriptor may overlay (Ethernet header + 12 inner bytes).
    parameter int HEAD_BYTES = 40,
    // Frame length bits.
    parameter int LEN_W = 17,
    // Bytes of the front end's L4 window (GRE header + 12 inner bytes).
    parameter int L4_BYTES = 32
) (
    input  wire logic                      clk,
    input  wire logic                      rst,

    // From ip_front (see there)
    input  wire logic                      tap_valid,
    input  wire logic                      tap_whole,
    input  wire logic                      tap_rx_err,
    input  wire logic [22*8-1:0]           tap_l2_bytes,
    input  wire logic [4:0]                tap_l2_len,
    input  wire logic                      tap_l2_short,
    input  wire logic                      tap_ipv4,
    input  wire logic                      tap_ipv6,
    input  wire logic                      tap_short_proto,
    input  wire logic [7:0]                tap_ip_proto,
    input  wire logic                      tap_short_fixed,
    input  wire logic                      tap_ip_ver_bad,
    input  wire logic                      tap_short_opts,
    input  wire logic                      tap_ip_frag,
    input  wire logic signed [16:0]        tap_ip_pl,
    input  wire logic [1:0]                tap_ip_ecn,
    input  wire logic [7:0]                tap_g,
    input  wire logic signed [8:0]         tap_have_l4,
    input  wire logic [L4_BYTES*8-1:0]     tap_l4,
    input  wire logic [L4_BYTES-1:0]       tap_l4_ok,       // the window holds L4 byte i
    input  wire logic                      tap_csum_ok,     // cycle T+1, registered in G1

    // CONTROL bits
    input  wire logic                      ctrl_allow_enable,
    input  wire logic                      ctrl_drop_pass,
    input  wire logic                      ctrl_drop_punt,
    input  wire logic                      ctrl_forward_malformed,
    // allow_list: the answer for this frame's outer IPv4 pair, in cycle T+2 (the caller looks
    // the pair up from the front end's early tap); registered in G2
    input  wire logic                      lookup_hit,

    output      logic                      desc_valid,
    output      logic                      desc_drop,
    output      logic signed [LEN_W:0]     desc_shift,
    output      logic [HEAD_BYTES*8-1:0]   desc_head,
    output      logic [HEAD_BYTES-1:0]     desc_head_en,
    output      logic [LEN_W-1:0]          desc_out_len,
    output      logic [LEN_W-1:0]          desc_min_len,
    output      logic                      desc_sum_en,
    output      logic [LEN_W-1:0]          desc_sum_start,
    output      logic [LEN_W-1:0]          desc_sum_end,
    output      outcome_e                  desc_outcome
);

    if (HEAD_BYTES < 34 || HEAD_BYTES % 8 != 0) begin : g_check_head
        $error("gre_classify: HEAD_BYTES must be a multiple of 8, at least 34 (22 + 12)");
    end
    if (LEN_W < 17) begin : g_check_len
        $error("gre_classify: LEN_W must be at least 17 (L2 + an IP total length)");
    end
    if (L4_BYTES < 28) begin : g_check_l4
        $error("gre_classify: L4_BYTES must be at least 28 (16 GRE + 12 inner bytes)");
    end

    localparam logic [15:0] ET_IPV4 = 16'h0800;
    localparam logic [15:0] ET_IPV6 = 16'h86DD;
    localparam logic [15:0] ET_TEB  = 16'h6558;
    localparam logic [7:0]  IPPROTO_GRE = 8'd47;

    // ---- G0: the tap, registered every cycle (no enable) --------------------------------------
    logic                   g0_valid_q, g0_whole_q, g0_rx_err_q, g0_l2_short_q, g0_ipv4_q;
    logic                   g0_ipv6_q, g0_short_proto_q, g0_short_fixed_q, g0_ip_ver_bad_q;
    logic                   g0_short_opts_q, g0_ip_frag_q;
    logic [22*8-1:0]        g0_l2_bytes_q;
    logic [4:0]             g0_l2_len_q;
    logic [7:0]             g0_ip_proto_q, g0_g_q;
    logic signed [16:0]     g0_ip_pl_q;
    logic [1:0]             g0_ip_ecn_q;
    logic signed [8:0]      g0_have_l4_q;
    logic [L4_BYTES*8-1:0]  g0_l4_q;
    logic [L4_BYTES-1:0]    g0_l4_ok_q;
    // The decodes every G1 length check shares, so that each check is a LUT or two on
    // registers: n_opt one-hot (the C, K and S flags counted), and tap_ip_pl split as
    // pl < c  <=>  pl < 0  ||  (0 <= pl < 64 && pl[5:0] < c)   (c < 64)
    logic [3:0]             g0_opt_q;
    logic                   g0_pl_neg_q, g0_pl_small_q;
    logic [31:0]            g0_pl_lo_lt_q;      // bit c: pl[5:0] < c
    logic                   g0_ce_q;            // outer ECN is CE
    logic                   g0_p_v4_q, g0_p_v6_q, g0_p_teb_q;   // the GRE protocol field

    always_ff @(posedge clk) begin
        logic [1:0] cnt;
        cnt = 2'(tap_l4[7]) + 2'(tap_l4[5]) + 2'(tap_l4[4]);   // the C, K and S flags
        for (int n = 0; n < 4; n++) g0_opt_q[n] <= cnt == 2'(n);
        g0_pl_neg_q      <= tap_ip_pl[16];
        g0_pl_small_q    <= !tap_ip_pl[16] && tap_ip_pl[15:6] == '0;
        for (int c = 0; c < 32; c++) g0_pl_lo_lt_q[c] <= tap_ip_pl[5:0] < 6'(c);
        g0_ce_q          <= tap_ip_ecn == 2'b11;
        g0_p_v4_q        <= {tap_l4[16 +: 8], tap_l4[24 +: 8]} == ET_IPV4;
        g0_p_v6_q        <= {tap_l4[16 +: 8], tap_l4[24 +: 8]} == ET_IPV6;
        g0_p_teb_q       <= {tap_l4[16 +: 8], tap_l4[24 +: 8]} == ET_TEB;
    end

    always_ff @(posedge clk) begin
        g0_valid_q       <= tap_valid;
        g0_whole_q       <= tap_whole;
        g0_rx_err_q      <= tap_rx_err;
        g0_l2_bytes_q    <= tap_l2_bytes;
        g0_l2_len_q      <= tap_l2_len;
        g0_l2_short_q    <= tap_l2_short;
        g0_ipv4_q        <= tap_ipv4;
        g0_ipv6_q        <= tap_ipv6;
        g0_short_proto_q <= tap_short_proto;
        g0_ip_proto_q    <= tap_ip_proto;
        g0_short_fixed_q <= tap_short_fixed;
        g0_ip_ver_bad_q  <= tap_ip_ver_bad;
        g0_short_opts_q  <= tap_short_opts;
        g0_ip_frag_q     <= tap_ip_frag;
        g0_ip_pl_q       <= tap_ip_pl;
        g0_ip_ecn_q      <= tap_ip_ecn;
        g0_g_q           <= tap_g;
        g0_have_l4_q     <= tap_have_l4;
        g0_l4_q          <= tap_l4;
        g0_l4_ok_q       <= tap_l4_ok;
        if (rst) g0_valid_q <= 1'b0;
    end

    // ---- G1 ---------------------------------------------------------------------------------
    logic               g1_valid_q, g1_whole_q, g1_rx_err_q;
    logic               g1_not_gre_q;       // steps 1-2: PASS
    logic               g1_trunc_fixed_q, g1_ver_bad_q, g1_trunc_opts_q, g1_frag_q;
    logic               g1_pl_bad_q;        // IP payload shorter than 4
    logic               g1_trunc_gre4_q, g1_gre_bad_q, g1_pl_lt_gre_q, g1_trunc_gre_q;
    logic               g1_v6_q;
    logic               g1_v6_allow_q;      // IPv6 outer header with the allow-list on
    logic               g1_p_none_q, g1_p_v6_q, g1_p_teb_q;
    logic               g1_ecn_on_q;        // outer ECN is ECT(1) or CE (L3 payloads)
    logic               g1_teb_short_q;
    // An L3 payload's inner ECN byte (IPv4 or IPv6, by the protocol) lies past the IP payload
    // or the window while the outer ECN is ECT(1) or CE; RFC 6040's drop (outer CE over a
    // Not-ECT inner header)
    logic               g1_l3_short_q, g1_l3_drop_q;
    logic               g1_len_short_q;     // whole frame ends before ip_end
    logic               g1_csum_q;
    logic [1:0]         g1_oecn_q;
    logic [15:0]        g1_proto_q;
    logic [4:0]         g1_l2_q;
    logic [22*8-1:0]    g1_l2_bytes_q;
    logic [7:0]         g1_g_q, g1_hl_q;        // G, G - L2 (the outer IP header)
    logic [4:0]         g1_gre_len_q;
    logic [LEN_W-1:0]   g1_ip_end_q;
    // What a decapsulation keeps and skips, for both payload kinds (G2 only selects)
    logic [LEN_W-1:0]   g1_pl_q, g1_pl_l2_q;    // ip_end - G, that + L2
    logic [3:0][7:0]    g1_inner_q;         // inner bytes 0, 1 (TOS / ECN), 10, 11 (checksum)
    logic               g1_csum_ok_q;       // tap_csum_ok (cycle T+1)

    // Every length check against "G + gre_len + c" is made for each of the four GRE header
    // lengths with constants, in parallel, and the one of this header selected: no adder in
    // front of a 17-bit comparison.
    // (c < 32: from G0's decodes of the IP payload length, no carry chain per compare)
    function automatic logic pl_lt(input logic [4:0] c);
        pl_lt = g0_pl_neg_q || (g0_pl_small_q && g0_pl_lo_lt_q[c]);
    endfunction
    // The window ends before L4 byte c (1 <= c <= L4_BYTES): one bit of the front end's.
    function automatic logic have_lt(input int c);
        have_lt = !g0_l4_ok_q[c - 1];
    endfunction
    // v[n] for the header with n optional fields: an AND-OR with G0's one-hot count.
    function automatic logic by_opts(input logic [3:0] v);
        by_opts = |(v & g0_opt_q);
    endfunction

    always_ff @(posedge clk) begin
        logic [15:0]       flags;
        logic [4:0]        gre_len;
        logic [3:0]        lt_gre, lt_teb, have_gre;
        // per inner IP version: the ECN checks, and RFC 6040's drop from the inner header's
        // ECN field (byte 1 [1:0] for IPv4, [5:4] for IPv6)
        logic [3:0]        lt_ecn4, lt_ecn6, have_ecn4, have_ecn6, drop4, drop6;
        g1_valid_q <= g0_valid_q;
        if (g0_valid_q) begin
            flags    = {g0_l4_q[0 +: 8], g0_l4_q[8 +: 8]};
            gre_len  = '0;
            for (int n = 0; n < 4; n++) begin
                gre_len     = gre_len | ({5{g0_opt_q[n]}} & 5'(4 + 4*n));
                lt_gre[n]   = pl_lt(5'(4 + 4*n));
                lt_ecn4[n]  = pl_lt(5'(16 + 4*n));
                lt_ecn6[n]  = pl_lt(5'(6 + 4*n));
                lt_teb[n]   = pl_lt(5'(18 + 4*n));
                have_gre[n] = have_lt(4 + 4*n);
                have_ecn4[n] = have_lt(16 + 4*n);
                have_ecn6[n] = have_lt(6 + 4*n);
                // RFC 6040's drop (parse_pkg::ecn_drop): outer CE over an inner Not-ECT
                drop4[n]    = g0_ce_q && g0_l4_q[8 * (5 + 4*n) +: 2] == 2'b00;
                drop6[n]    = g0_ce_q && g0_l4_q[8 * (5 + 4*n) + 4 +: 2] == 2'b00;
            end
            g1_whole_q       <= g0_whole_q;
            g1_csum_ok_q     <= tap_csum_ok;
            g1_rx_err_q      <= g0_rx_err_q;
            g1_not_gre_q     <= g0_l2_short_q || !(g0_ipv4_q || g0_ipv6_q) || g0_short_proto_q
                                || g0_ip_proto_q != IPPROTO_GRE;
            g1_trunc_fixed_q <= g0_short_fixed_q;
            g1_ver_bad_q     <= g0_ip_ver_bad_q;
            g1_trunc_opts_q  <= g0_short_opts_q;
            g1_frag_q        <= g0_ip_frag_q;
            g1_pl_bad_q      <= pl_lt(5'd4);
            g1_trunc_gre4_q  <= have_lt(4);
            g1_gre_bad_q     <= (flags & 16'h4FFF) != 16'h0;
            g1_pl_lt_gre_q   <= by_opts(lt_gre);
            g1_trunc_gre_q   <= by_opts(have_gre);
            g1_v6_q          <= g0_ipv6_q;
            g1_v6_allow_q    <= ctrl_allow_enable && g0_ipv6_q;
            g1_p_none_q      <= !(g0_p_v4_q || g0_p_v6_q || g0_p_teb_q);
            g1_p_v6_q        <= g0_p_v6_q;
            g1_p_teb_q       <= g0_p_teb_q;
            g1_ecn_on_q      <= g0_ip_ecn_q[0];   // 01 ECT(1) or 11 CE
            g1_l3_short_q    <= g0_ip_ecn_q[0] && (g0_p_v6_q ? by_opts(lt_ecn6 | have_ecn6)
                                                             : by_opts(lt_ecn4 | have_ecn4));
            // (a drop needs outer CE, so ECT(1) or CE is implied)
            g1_l3_drop_q     <= g0_p_v6_q ? by_opts(drop6) : by_opts(drop4);
            g1_teb_short_q   <= by_opts(lt_teb);
            g1_len_short_q   <= g0_whole_q && $signed({{8{g0_have_l4_q[8]}}, g0_have_l4_q}) < g0_ip_pl_q;
            g1_csum_q        <= flags[15];
            g1_oecn_q        <= g0_ip_ecn_q;
            g1_proto_q       <= {g0_l4_q[16 +: 8], g0_l4_q[24 +: 8]};
            g1_l2_q          <= g0_l2_len_q;
            g1_l2_bytes_q    <= g0_l2_bytes_q;
            g1_g_q           <= g0_g_q;
            g1_hl_q          <= g0_g_q - 8'(g0_l2_len_q);
            g1_gre_len_q     <= gre_len;
            g1_ip_end_q      <= LEN_W'(g0_g_q) + LEN_W'(g0_ip_pl_q);
            g1_pl_q          <= LEN_W'(g0_ip_pl_q);
            g1_pl_l2_q       <= LEN_W'(g0_ip_pl_q) + LEN_W'(g0_l2_len_q);
            for (int i = 0; i < 4; i++) begin
                logic [7:0] b;
                b = '0;
                for (int n = 0; n < 4; n++) begin
                    b = b | ({8{g0_opt_q[n]}} & g0_l4_q[8 * ((i < 2 ? i : i + 8) + 4 + 4*n) +: 8]);
                end
                g1_inner_q[i] <= b;
            end
        end
        if (rst) g1_valid_q <= 1'b0;
    end

    // ---- G2: the decision -------------------------------------------------------------------
    typedef enum logic [1:0] {
        ACT_DROP    = 2'd0,
        ACT_FORWARD = 2'd1,   // unchanged
        ACT_DECAP   = 2'd2
    } action_e;

    // The decision as three registered parts that G3 joins with one 4-input LUT per bit:
    // the header steps (1-7) where one of them decides, the payload steps (8 on) otherwise,
    // and the outer IPv4 checksum (step 5), which comes from the front end's far end, as an
    // override. No chain here is longer than one part's.
    outcome_e g2_hdr;         // the first header step that fails (g2_hdr_hit), the checksum aside
    logic     g2_hdr_hit;
    outcome_e g2_pay;         // steps 8 on, the allow-list taken as a hit
    logic     g2_before_ck;   // a step before the checksum decides
    assign g2_before_ck = g1_not_gre_q || g1_trunc_fixed_q || g1_ver_bad_q || g1_trunc_opts_q;
    always_comb begin
        g2_hdr_hit = 1'b1;
        if (g1_not_gre_q)                               g2_hdr = OUT_PASS;
        else if (g1_trunc_fixed_q)                      g2_hdr = OUT_DROP_TRUNCATED;
        else if (g1_ver_bad_q)                          g2_hdr = OUT_DROP_IP_HEADER;
        else if (g1_trunc_opts_q)                       g2_hdr = OUT_DROP_TRUNCATED;
        else if (g1_frag_q)                             g2_hdr = OUT_DROP_FRAGMENT;
        else if (g1_pl_bad_q)                           g2_hdr = OUT_DROP_IP_HEADER;
        else if (g1_trunc_gre4_q)                       g2_hdr = OUT_DROP_TRUNCATED;
        else if (g1_gre_bad_q)                          g2_hdr = OUT_DROP_GRE_HEADER;
        else if (g1_pl_lt_gre_q)                        g2_hdr = OUT_DROP_IP_HEADER;
        else if (g1_trunc_gre_q)                        g2_hdr = OUT_DROP_TRUNCATED;
        else begin
            g2_hdr     = OUT_PASS;
            g2_hdr_hit = 1'b0;
        end
    end
    // From step 8 the allow list decides: a miss is DROP_NOT_ALLOWED, G3's last select; an
    // IPv6 outer header is never on it.
    always_comb begin
        if (g1_v6_allow_q)                              g2_pay = OUT_DROP_NOT_ALLOWED;
        else if (g1_p_none_q)                           g2_pay = OUT_PUNT;
        else if (!g1_p_teb_q && g1_l3_short_q)          g2_pay = OUT_DROP_TRUNCATED;
        else if (!g1_p_teb_q && g1_l3_drop_q)           g2_pay = OUT_DROP_ECN;
        else if (g1_p_teb_q && g1_teb_short_q)          g2_pay = OUT_DROP_TRUNCATED;
        else if (g1_p_teb_q)                            g2_pay = OUT_DECAP_TEB;
        else                                            g2_pay = OUT_DECAP_L3;
    end

    // RFC 6040 and the first half of RFC 1624 for an inner IPv4 header.
    logic               g2_valid_q, g2_ecn_set_q, g2_p_v6_q;
    outcome_e           g2_hdr_q, g2_pay_q;        // the decision's parts (above)
    logic               g2_hdr_hit_q;
    logic               g2_ck_drop_q;              // step 5 fails: IP_CHECKSUM
    logic               g2_need_hit_q, g2_hit_q;   // the allow-list decides (steps 8 on); its answer
    logic               g2_rx_bad_q, g2_len_short_q;
    logic [7:0]         g2_tos_q;                  // inner byte K+1, rewritten
    logic [16:0]        g2_hc_a_q;                 // ~HC + ~m
    logic [15:0]        g2_hc_m_q;                 // m' (inner bytes 0, 1 rewritten)
    logic [15:0]        g2_proto_q;
    // Each head byte's source, one-hot, registered per byte from the L2 length: G3 is then an
    // AND-OR of registers beside each byte, and no register drives the whole 40-byte head.
    logic [HEAD_BYTES-1:0] g2_src_l2_q;            // the outer Ethernet header's byte j
    logic [HEAD_BYTES-1:0] g2_src_phi_q, g2_src_plo_q; // the GRE protocol's high / low byte
    logic [HEAD_BYTES-1:0] g2_src_tos_q;           // the inner ECN byte (when rewritten)
    logic [HEAD_BYTES-1:0] g2_src_hc_q;            // the inner IPv4 checksum (patched in G4)
    logic [22*8-1:0]    g2_l2_bytes_q;
    // A decapsulation's shift and length for this payload kind; G3 picks them or the
    // unchanged frame's by the action, so the decision's register is the end of its path.
    logic [LEN_W:0]     g2_dec_shift_q;
    logic [LEN_W-1:0]   g2_dec_out_len_q, g2_ip_end_q, g2_sum_start_q;
    logic               g2_csum_q;

    always_ff @(posedge clk) begin
        logic [1:0]  iecn, necn;
        logic [7:0]  tos;
        logic [15:0] hc_n, m_n;      // ~HC and ~m (RFC 1624), 16 bits before the sum widens

        logic        teb;
        g2_valid_q <= g1_valid_q;
        if (g1_valid_q) begin
            teb  = g1_p_teb_q;
            iecn = g1_p_v6_q ? g1_inner_q[1][5:4] : g1_inner_q[1][1:0];
            necn = ecn_combine(g1_oecn_q, iecn);
            tos  = g1_p_v6_q ? {g1_inner_q[1][7:6], necn, g1_inner_q[1][3:0]}
                             : {g1_inner_q[1][7:2], necn};
            g2_hdr_q       <= g2_hdr;
            g2_hdr_hit_q   <= g2_hdr_hit;
            g2_pay_q       <= g2_pay;
            g2_ck_drop_q   <= !g2_before_ck && !g1_csum_ok_q;
            g2_need_hit_q  <= ctrl_allow_enable && !g1_v6_q;
            g2_hit_q       <= lookup_hit;
            g2_rx_bad_q    <= g1_whole_q && g1_rx_err_q;
            g2_len_short_q <= g1_len_short_q;
            g2_ecn_set_q   <= !teb && g1_ecn_on_q && necn != iecn;
            g2_p_v6_q      <= g1_p_v6_q;
            g2_tos_q       <= tos;
            hc_n = ~{g1_inner_q[2], g1_inner_q[3]};
            m_n  = ~{g1_inner_q[0], g1_inner_q[1]};
            g2_hc_a_q      <= {1'b0, hc_n} + {1'b0, m_n};
            g2_hc_m_q      <= {g1_inner_q[0], g1_inner_q[1][7:2], necn};
            g2_proto_q     <= g1_proto_q;
            g2_l2_bytes_q  <= g1_l2_bytes_q;
            // What a decapsulation of this payload kind keeps and skips: TEB skips to K =
            // G + gre_len and keeps ip_end - K bytes; L3 skips K - L2 (the Ethernet header
            // stays) and keeps L2 + ip_end - K. The GRE header's length (from its flags) is a
            // register here: one adder each after a select.
            g2_dec_shift_q   <= (LEN_W+1)'(8'((teb ? g1_g_q : g1_hl_q) + 8'(g1_gre_len_q)));
            g2_dec_out_len_q <= (teb ? g1_pl_q : g1_pl_l2_q) - LEN_W'(g1_gre_len_q);
            g2_ip_end_q      <= g1_ip_end_q;
            g2_csum_q        <= g1_csum_q;
            g2_sum_start_q   <= LEN_W'(g1_g_q);
        end
        if (rst) g2_valid_q <= 1'b0;
    end

    // One always_ff per byte, kept: equal selects of different bytes stay separate registers
    // (Yosys merges equal flip-flops, and copies assigned in one always_ff, even when kept).
    for (genvar j = 0; j < HEAD_BYTES; j++) begin : g_head_src
        (* keep *) always_ff @(posedge clk) begin
            logic l2, phi, plo, tos, hc;
            l2 = 1'b0; phi = 1'b0; plo = 1'b0; tos = 1'b0; hc = 1'b0;
            for (int t = 0; t < 3; t++) begin
                if (g1_l2_q == 5'(14 + 4 * t)) begin
                    l2  = l2  || j < 12 + 4*t;
                    phi = phi || j == 12 + 4*t;
                    plo = plo || j == 13 + 4*t;
                    tos = tos || j == 15 + 4*t;
                    hc  = hc  || j == 24 + 4*t || j == 25 + 4*t;
                end
            end
            g2_src_l2_q[j]  <= l2;
            g2_src_phi_q[j] <= phi;
            g2_src_plo_q[j] <= plo;
            g2_src_tos_q[j] <= tos;
            g2_src_hc_q[j]  <= hc;
        end
    end

    // ---- G3: what the frame becomes, with the policy and the checks a whole frame allows --
    action_e  g3_action;
    outcome_e g3_final;
    outcome_e g3_early;       // the outcome of the steps, the allow-list taken as a hit
    logic     g3_need_hit;    // the allow-list decides
    assign g3_early    = g2_ck_drop_q ? OUT_DROP_IP_CHECKSUM : g2_hdr_hit_q ? g2_hdr_q : g2_pay_q;
    assign g3_need_hit = g2_need_hit_q && !g2_ck_drop_q && !g2_hdr_hit_q;
    always_comb begin
        logic decap, fwd, malformed;
        decap = g3_early == OUT_DECAP_L3 || g3_early == OUT_DECAP_TEB;
        malformed = g3_early == OUT_DROP_IP_HEADER || g3_early == OUT_DROP_IP_CHECKSUM
                 || g3_early == OUT_DROP_FRAGMENT || g3_early == OUT_DROP_GRE_HEADER;
        fwd = (g3_early == OUT_PASS && !ctrl_drop_pass)
           || (g3_early == OUT_PUNT && !ctrl_drop_punt)
           || (malformed && ctrl_forward_malformed);
        g3_final  = g3_early;
        g3_action = ACT_DROP;
        if (g3_early == OUT_PASS || g3_early == OUT_PUNT) begin
            if (!fwd) g3_final = OUT_DROP_POLICY;
        end
        if (g2_rx_bad_q) begin
            g3_final = OUT_DROP_RX_ERROR;
        end else if (decap && g2_len_short_q) begin
            g3_final = OUT_DROP_TRUNCATED;
        end else if (decap) begin
            g3_action = ACT_DECAP;
        end else if (fwd) begin
            g3_action = ACT_FORWARD;
        end
        if (!g2_rx_bad_q && g3_need_hit && !g2_hit_q) begin
            g3_final  = OUT_DROP_NOT_ALLOWED;
            g3_action = ACT_DROP;
        end
    end

    logic               g3_valid_q, g3_l3_q, g3_csum_q;
    action_e            g3_action_q;
    outcome_e           g3_outcome_q;
    logic [HEAD_BYTES*8-1:0] g3_head_q;            // a DECAP_L3's head, the checksum aside
    logic [HEAD_BYTES-1:0]   g3_head_en_q;
    logic [16:0]        g3_hc_f1_q;                // ~HC + ~m + m', one fold short
    logic [2:0]         g3_hc_at_q;                // one-hot: the checksum is patched at 24 + 4t
    logic [LEN_W:0]     g3_dec_shift_q;
    logic [LEN_W-1:0]   g3_dec_out_len_q, g3_ip_end_q, g3_sum_start_q;

    always_ff @(posedge clk) begin
        g3_valid_q <= g2_valid_q;
        if (g2_valid_q) begin
            // RFC 1624's sum in registered parts, one carry chain per stage: ~HC + ~m in G2;
            // here m' with that sum's carry as carry-in (its end-around fold: at most 0xFFFF
            // with it, so this sum stays within 17 bits), the last fold in G4
            g3_hc_f1_q   <= 17'(g2_hc_a_q[15:0]) + 17'(g2_hc_m_q) + 17'(g2_hc_a_q[16]);
            g3_action_q  <= g3_action;
            g3_outcome_q <= g3_final;
            g3_l3_q      <= g3_action == ACT_DECAP && g3_final == OUT_DECAP_L3;
            g3_dec_shift_q   <= g2_dec_shift_q;
            g3_dec_out_len_q <= g2_dec_out_len_q;
            g3_ip_end_q      <= g2_ip_end_q;
            g3_csum_q        <= g2_csum_q;
            g3_sum_start_q   <= g2_sum_start_q;
        end
        if (rst) g3_valid_q <= 1'b0;
    end

    // The head loads in every cycle (G4 reads it under g3_valid_q): no valid enables its
    // 360 registers. The outer Ethernet header up to its EtherType, which becomes the GRE
    // protocol; the inner ECN byte and checksum follow. Each byte is an AND-OR of its own
    // source selects (G2) and its sources; its enable likewise.
    for (genvar j = 0; j < HEAD_BYTES; j++) begin : g_head
        logic [7:0] l2_byte;
        if (j < 22) begin : g_l2
            assign l2_byte = g2_l2_bytes_q[8*j +: 8];
        end else begin : g_no_l2
            assign l2_byte = 8'h00;
        end
        always_ff @(posedge clk) begin
            g3_head_q[8*j +: 8] <= ({8{g2_src_l2_q[j]}} & l2_byte)
                                 | ({8{g2_src_phi_q[j]}} & g2_proto_q[15:8])
                                 | ({8{g2_src_plo_q[j]}} & g2_proto_q[7:0])
                                 | ({8{g2_src_tos_q[j] && g2_ecn_set_q}} & g2_tos_q);
            g3_head_en_q[j] <= g2_src_l2_q[j] || g2_src_phi_q[j] || g2_src_plo_q[j]
                            || (g2_src_tos_q[j] && g2_ecn_set_q)
                            || (g2_src_hc_q[j] && g2_ecn_set_q && !g2_p_v6_q);
        end
    end

    always_ff @(posedge clk) begin
        // (byte 24 + 4t holds the checksum's high byte exactly when L2 = 14 + 4t)
        for (int t = 0; t < 3; t++) begin
            g3_hc_at_q[t] <= g2_src_hc_q[24 + 4*t] && g2_ecn_set_q && !g2_p_v6_q;
        end
    end

    // ---- G4: the descriptor -----------------------------------------------------------------
    always_ff @(posedge clk) begin
        logic [15:0]             hc_new;
        logic [HEAD_BYTES*8-1:0] head;
        desc_valid <= g3_valid_q;
        if (g3_valid_q) begin
            hc_new = ~(g3_hc_f1_q[15:0] + 16'(g3_hc_f1_q[16]));
            head   = g3_head_q;
            for (int t = 0; t < 3; t++) begin
                if (g3_hc_at_q[t]) head[8*(24 + 4*t) +: 16] = {hc_new[7:0], hc_new[15:8]};
            end
            desc_head      <= g3_l3_q ? head : '0;
            desc_head_en   <= g3_l3_q ? g3_head_en_q : '0;
            desc_drop      <= g3_action_q == ACT_DROP;
            // Decap: L3 keeps the L2 header, TEB drops it; forward: everything, unchanged.
            desc_shift     <= (g3_action_q == ACT_DECAP) ? $signed(g3_dec_shift_q) : '0;
            desc_out_len   <= (g3_action_q == ACT_DECAP) ? g3_dec_out_len_q : '1;
            desc_min_len   <= (g3_action_q == ACT_DECAP) ? g3_ip_end_q : '0;
            desc_sum_en    <= g3_action_q == ACT_DECAP && g3_csum_q;
            desc_sum_start <= g3_sum_start_q;
            desc_sum_end   <= g3_ip_end_q;
            desc_outcome   <= g3_outcome_q;
        end
        if (rst) desc_valid <= 1'b0;
    end

endmodule

`default_nettype wire
