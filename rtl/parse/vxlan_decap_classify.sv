// SPDX-License-Identifier: Apache-2.0
//
// vxlan_decap_classify — the VXLAN decision (docs/vxlan.md, "Decap", steps 1-9) from the header
// front end's tap, in registered stages, ending in one edit descriptor per frame for axis_edit
// (through the decap shell's queue), the VNI table's answer taken in its last stage.
//
//  U = G (the first byte after the outer IP header: L2 + IHL*4, or L2 + 40); tap_l4 = [U, U+44)
//  U   +2    +4    +6    +8      +9..11  +12   +15   K = U+16        K+12  K+14 +15  K+24 K+26
//  +---+-----+-----+-----+-------+-------+-----+---+ +-------+-------+-----+----+---+...+----+
//  |sport|dport|ulen |csum |flags|rsvd (3)| VNI |rsv| | dst   | src   | et  |v/ih|TOS|...| HC |
//  +---+-----+-----+-----+-------+-------+-----+---+ +-------+-------+-----+----+---+...+----+
//   UDP (8)                VXLAN (8)                  inner Ethernet   inner IPv4 (IPv6: ECN in
//                                                     (14)             bits 5:4 of K+15)
//
// Stages after the tap (tap_valid = cycle T); the VNI is looked up from the tap in cycle T and
// answered (hash_table LOOKUP_LATENCY 5) in cycle T+5:
//   V1 (T)    UDP/VXLAN fields and every "frame ends before" and length check as a flag; the
//             pseudo-header's address words summed
//   V2 (T+1)  the early outcome (steps 1-7 with step 6 taken as a hit, the IPv4 checksum
//             verdict arriving now); RFC 6040; offsets (K, ip_end) and lengths
//   V3 (T+2)  the RFC 1624 sum's and the pseudo-header sum's first folds
//   V4 (T+3)  the policy and the action; the two output heads (without and with a pushed
//             802.1Q tag); the RFC 1624 fold's end
//   V5 (T+4)  the descriptor's fields per action, both push variants; the seed's second fold
//   V6 (T+5)  the VNI table's answer (registers in hash_table): an unknown VNI, or the push,
//             is the last select before the descriptor's registers
// desc_valid is high in cycle T+6 for one cycle; the caller queues descriptors (no ready).
//
// Late checks are the engine's: MAC RX error, a frame shorter than ip_end (min_len), the UDP
// checksum (sum over [U, ip_end) seeded with the IPv4 pseudo-header; for IPv6 over
// [L2+8, ip_end), the addresses being in the frame just before U, seeded with length and 17).

`default_nettype none

module vxlan_decap_classify
    import parse_pkg::*;
    import vxlan_decap_pkg::*;
#(
    // Bytes of the output head a descriptor may overlay: an inner Ethernet header with a
    // pushed tag and the inner IPv4 checksum (18 + 12 bytes).
    parameter int HEAD_BYTES = 32,
    // Frame length bits.
    parameter int LEN_W = 17,
    // Bytes of the front end's L4 window from U (UDP 8 + VXLAN 8 + inner 26, to a word).
    parameter int L4_BYTES = 44
) (
    input  wire logic                      clk,
    input  wire logic                      rst,

    // From ip_front (see there)
    input  wire logic                      tap_valid,
    input  wire logic                      tap_whole,
    input  wire logic                      tap_rx_err,
    input  wire logic                      tap_l2_short,
    input  wire logic                      tap_ipv4,
    input  wire logic                      tap_ipv6,
    input  wire logic [7:0]                tap_ip_proto,
    input  wire logic                      tap_short_fixed,
    input  wire logic                      tap_ip_ver_bad,
    input  wire logic                      tap_ip_frag,
    input  wire logic                      tap_ip_frag_off,
    input  wire logic signed [16:0]        tap_ip_pl,
    input  wire logic [1:0]                tap_ip_ecn,
    input  wire logic [31:0]               tap_ip_src,
    input  wire logic [31:0]               tap_ip_dst,
    input  wire logic [7:0]                tap_g,
    input  wire logic signed [8:0]         tap_have_l4,
    input  wire logic [L4_BYTES*8-1:0]     tap_l4,
    input  wire logic                      tap_csum_ok,     // cycle T+1

    // CONTROL, PORT, PORT2
    input  wire logic                      ctrl_vni_enable,
    input  wire logic                      ctrl_strict,
    input  wire logic                      ctrl_port2_enable,
    input  wire logic                      ctrl_drop_pass,
    input  wire logic [15:0]               ctrl_port,
    input  wire logic [15:0]               ctrl_port2,

    // VNI table (hash_table, LOOKUP_LATENCY 5): key = VNI; value = {push, VLAN ID}
    output      logic                      lk_valid,
    output      logic [23:0]               lk_key,
    input  wire logic                      rs_valid,
    input  wire logic                      rs_hit,
    input  wire logic [12:0]               rs_value,

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
    output      logic [15:0]               desc_sum_seed,
    output      outcome_e                  desc_outcome,
    output      logic [24:0]               desc_tvni        // {decapsulated, VNI}
);

    if (HEAD_BYTES < 30 || HEAD_BYTES % 8 != 0) begin : g_check_head
        $error("vxlan_decap_classify: HEAD_BYTES must be a multiple of 8, at least 30");
    end
    if (LEN_W < 17) begin : g_check_len
        $error("vxlan_decap_classify: LEN_W must be at least 17 (L2 + an IP length)");
    end
    if (L4_BYTES < 42) begin : g_check_l4
        $error("vxlan_decap_classify: L4_BYTES must be at least 42 (to the inner checksum)");
    end

    localparam logic [7:0]  IPPROTO_UDP = 8'd17;
    localparam logic [15:0] ET_IPV4 = 16'h0800;
    localparam logic [15:0] ET_IPV6 = 16'h86DD;

    function automatic logic [7:0] l4b(input int i);
        l4b = tap_l4[8*i +: 8];
    endfunction

    // The VNI is looked up from the tap: every frame, the answer used only where it decides.
    assign lk_valid = tap_valid;
    assign lk_key   = {l4b(12), l4b(13), l4b(14)};

    // ---- V1: fields and flags ----------------------------------------------------------------
    logic               v1_valid_q, v1_whole_q, v1_rx_err_q, v1_v6_q;
    logic               v1_pass_ip_q;       // steps 1-2: not UDP over a usable outer IP
    logic               v1_short4_q;
    logic               v1_port1_q, v1_port2_q; // the UDP port is PORT / PORT2 (V2 enables it)
    logic               v1_mf_q, v1_pl_lt16_q, v1_short8_q, v1_ulen_bad_q;
    logic               v1_short16_q, v1_no_i_q, v1_rsv_q;
    logic               v1_pl_lt30_q, v1_short30_q;
    logic               v1_in_v4_q, v1_in_ip_q, v1_ecn_pl_lt_q, v1_ecn_short_q;
    logic               v1_len_short_q;     // whole frame ends before ip_end
    logic               v1_csum_nz_q;       // UDP checksum present
    logic [1:0]         v1_oecn_q;
    logic [7:0]         v1_b0_q, v1_tos_q;  // inner IP bytes 0, 1
    logic [15:0]        v1_hc_q;            // inner IPv4 header checksum
    logic [12*8-1:0]    v1_macs_q;          // inner dst, src
    logic [23:0]        v1_vni_q;
    logic [7:0]         v1_u_q;
    logic [LEN_W-1:0]   v1_pl_q;
    logic [15:0]        v1_ulen_q;
    logic [17:0]        v1_addr_sum_q;      // IPv4 pseudo-header: source + destination words

    always_ff @(posedge clk) begin
        logic [15:0] dport, ulen;
        logic        in_v4;
        v1_valid_q <= tap_valid;
        if (tap_valid) begin
            dport = {l4b(2), l4b(3)};
            ulen  = {l4b(4), l4b(5)};
            in_v4 = {l4b(28), l4b(29)} == ET_IPV4;
            v1_whole_q     <= tap_whole;
            v1_rx_err_q    <= tap_rx_err;
            v1_v6_q        <= tap_ipv6;
            v1_pass_ip_q   <= tap_l2_short || !(tap_ipv4 || tap_ipv6) || tap_short_fixed
                              || tap_ip_ver_bad || tap_ip_proto != IPPROTO_UDP || tap_ip_frag_off;
            v1_short4_q    <= tap_have_l4 < 9'sd4;
            v1_port1_q     <= dport == ctrl_port;
            v1_port2_q     <= dport == ctrl_port2;
            v1_mf_q        <= tap_ip_frag;      // the offset is 0 here (else PASS): MF
            v1_pl_lt16_q   <= tap_ip_pl < 17'sd16;
            v1_short8_q    <= tap_have_l4 < 9'sd8;
            v1_ulen_bad_q  <= $signed({1'b0, ulen}) != tap_ip_pl;
            v1_short16_q   <= tap_have_l4 < 9'sd16;
            v1_no_i_q      <= !l4b(8)[3];
            v1_rsv_q       <= (l4b(8) & 8'hF7) != 8'h00 || l4b(9) != 8'h00 || l4b(10) != 8'h00
                              || l4b(11) != 8'h00 || l4b(15) != 8'h00;
            v1_pl_lt30_q   <= tap_ip_pl < 17'sd30;
            v1_short30_q   <= tap_have_l4 < 9'sd30;
            v1_in_v4_q     <= in_v4;
            v1_in_ip_q     <= in_v4 || {l4b(28), l4b(29)} == ET_IPV6;
            // The inner IP header's ECN byte (and IPv4 checksum) inside ip_end and the frame
            v1_ecn_pl_lt_q <= in_v4 ? tap_ip_pl < 17'sd42 : tap_ip_pl < 17'sd32;
            v1_ecn_short_q <= in_v4 ? tap_have_l4 < 9'sd42 : tap_have_l4 < 9'sd32;
            v1_len_short_q <= tap_whole && $signed({{8{tap_have_l4[8]}}, tap_have_l4}) < tap_ip_pl;
            v1_csum_nz_q   <= {l4b(6), l4b(7)} != 16'h0000;
            v1_oecn_q      <= tap_ip_ecn;
            v1_b0_q        <= l4b(30);
            v1_tos_q       <= l4b(31);
            v1_hc_q        <= {l4b(40), l4b(41)};
            v1_macs_q      <= tap_l4[16*8 +: 12*8];
            v1_vni_q       <= {l4b(12), l4b(13), l4b(14)};
            v1_u_q         <= tap_g;
            v1_pl_q        <= LEN_W'(tap_ip_pl);
            v1_ulen_q      <= ulen;
            v1_addr_sum_q  <= tap_ipv4 ? (18'(tap_ip_src[31:16]) + 18'(tap_ip_src[15:0]))
                                       + (18'(tap_ip_dst[31:16]) + 18'(tap_ip_dst[15:0])) : '0;
        end
        if (rst) v1_valid_q <= 1'b0;
    end

    // ---- V2: the early outcome ---------------------------------------------------------------
    outcome_e v2_outcome;      // steps 1-7, the VNI table taken as a hit
    logic     v2_hdr_ok;       // steps 1-5 passed: the VNI table decides next
    logic     v2_ecn_on;       // RFC 6040 applies (inner IP, outer ECT(1) or CE)
    always_comb begin
        logic [1:0] iecn;
        iecn      = v1_in_v4_q ? v1_tos_q[1:0] : v1_tos_q[5:4];
        v2_ecn_on = v1_in_ip_q && v1_oecn_q[0];
        v2_hdr_ok = 1'b0;
        if (v1_pass_ip_q || v1_short4_q || !(v1_port1_q || (ctrl_port2_enable && v1_port2_q)))
                                                       v2_outcome = OUT_PASS;
        else if (!tap_csum_ok)                         v2_outcome = OUT_DROP_IP_CHECKSUM;
        else if (v1_mf_q)                              v2_outcome = OUT_DROP_FRAGMENT;
        else if (v1_pl_lt16_q)                         v2_outcome = OUT_DROP_IP_HEADER;
        else if (v1_short8_q)                          v2_outcome = OUT_DROP_TRUNCATED;
        else if (v1_ulen_bad_q)                        v2_outcome = OUT_DROP_IP_HEADER;
        else if (v1_short16_q)                         v2_outcome = OUT_DROP_TRUNCATED;
        else if (v1_no_i_q)                            v2_outcome = OUT_DROP_VXLAN_FLAGS;
        else if (ctrl_strict && v1_rsv_q)              v2_outcome = OUT_DROP_VXLAN_RESERVED;
        else begin
            v2_hdr_ok = 1'b1;
            if (v1_pl_lt30_q || v1_short30_q)          v2_outcome = OUT_DROP_TRUNCATED;
            else if (v2_ecn_on && (v1_ecn_pl_lt_q || v1_ecn_short_q))
                                                       v2_outcome = OUT_DROP_TRUNCATED;
            else if (v2_ecn_on && ecn_drop(v1_oecn_q, iecn))
                                                       v2_outcome = OUT_DROP_ECN;
            else                                       v2_outcome = OUT_DECAP;
        end
    end

    logic               v2_valid_q, v2_hdr_ok_q, v2_rx_bad_q, v2_len_short_q;
    outcome_e           v2_early_q;
    logic               v2_ecn_set_q, v2_in_v4_q, v2_csum_nz_q;
    logic [7:0]         v2_tos_q;           // inner byte K+15, rewritten
    logic [17:0]        v2_hc_sum_q;        // ~HC + ~m + m' (RFC 1624)
    logic [12*8-1:0]    v2_macs_q;
    logic [23:0]        v2_vni_q;
    logic [7:0]         v2_k_q;             // K = U + 16: the inner frame
    logic [LEN_W-1:0]   v2_ip_end_q, v2_len_q, v2_sum_start_q;   // len: ip_end - K
    logic [18:0]        v2_seed_q;          // the pseudo-header's sum, unfolded

    always_ff @(posedge clk) begin
        logic [1:0]  iecn, necn;
        logic [7:0]  tos;
        v2_valid_q <= v1_valid_q;
        if (v1_valid_q) begin
            iecn = v1_in_v4_q ? v1_tos_q[1:0] : v1_tos_q[5:4];
            necn = ecn_combine(v1_oecn_q, iecn);
            tos  = v1_in_v4_q ? {v1_tos_q[7:2], necn} : {v1_tos_q[7:6], necn, v1_tos_q[3:0]};
            v2_early_q     <= v2_outcome;
            v2_hdr_ok_q    <= v2_hdr_ok;
            v2_rx_bad_q    <= v1_whole_q && v1_rx_err_q;
            v2_len_short_q <= v1_len_short_q;
            v2_ecn_set_q   <= v2_ecn_on && necn != iecn;
            v2_in_v4_q     <= v1_in_v4_q;
            v2_csum_nz_q   <= v1_csum_nz_q;
            v2_tos_q       <= tos;
            v2_hc_sum_q    <= {2'b00, ~v1_hc_q} + {2'b00, ~{v1_b0_q, v1_tos_q}}
                            + {2'b00, v1_b0_q, tos};
            v2_macs_q      <= v1_macs_q;
            v2_vni_q       <= v1_vni_q;
            v2_k_q         <= v1_u_q + 8'd16;
            v2_ip_end_q    <= LEN_W'(v1_u_q) + v1_pl_q;
            v2_len_q       <= v1_pl_q - LEN_W'(16);
            // IPv6: the addresses lie just before U, in the summed region
            v2_sum_start_q <= LEN_W'(v1_v6_q ? 8'(v1_u_q - 8'd32) : v1_u_q);
            v2_seed_q      <= 19'(v1_addr_sum_q) + 19'(v1_ulen_q) + 19'(IPPROTO_UDP);
        end
        if (rst) v2_valid_q <= 1'b0;
    end

    // ---- V3: the RFC 1624 sum's and the pseudo-header sum's first folds -----------------------
    // (the cycle the VNI table's answer needs: it comes in T+5, from registers)
    logic               v3_valid_q, v3_hdr_ok_q, v3_rx_bad_q, v3_len_short_q;
    outcome_e           v3_early_q;
    logic               v3_ecn_set_q, v3_in_v4_q, v3_csum_nz_q;
    logic [7:0]         v3_tos_q;
    logic [16:0]        v3_hc_f1_q;         // the RFC 1624 sum, folded once
    logic [12*8-1:0]    v3_macs_q;
    logic [23:0]        v3_vni_q;
    logic [7:0]         v3_k_q;
    logic [LEN_W-1:0]   v3_ip_end_q, v3_len_q, v3_sum_start_q;
    logic [16:0]        v3_seed_q;          // the pseudo-header's sum, folded once

    always_ff @(posedge clk) begin
        v3_valid_q <= v2_valid_q;
        if (v2_valid_q) begin
            v3_early_q     <= v2_early_q;
            v3_hdr_ok_q    <= v2_hdr_ok_q;
            v3_rx_bad_q    <= v2_rx_bad_q;
            v3_len_short_q <= v2_len_short_q;
            v3_ecn_set_q   <= v2_ecn_set_q;
            v3_in_v4_q     <= v2_in_v4_q;
            v3_csum_nz_q   <= v2_csum_nz_q;
            v3_tos_q       <= v2_tos_q;
            v3_hc_f1_q     <= 17'(v2_hc_sum_q[15:0]) + 17'(v2_hc_sum_q[17:16]);
            v3_macs_q      <= v2_macs_q;
            v3_vni_q       <= v2_vni_q;
            v3_k_q         <= v2_k_q;
            v3_ip_end_q    <= v2_ip_end_q;
            v3_len_q       <= v2_len_q;
            v3_sum_start_q <= v2_sum_start_q;
            v3_seed_q      <= 17'(v2_seed_q[15:0]) + 17'(v2_seed_q[18:16]);
        end
        if (rst) v3_valid_q <= 1'b0;
    end

    // ---- V4: policy, action, the two heads ---------------------------------------------------
    typedef enum logic [1:0] {
        ACT_DROP    = 2'd0,
        ACT_FORWARD = 2'd1,   // unchanged
        ACT_DECAP   = 2'd2
    } action_e;

    action_e  v4_action;
    outcome_e v4_final;
    always_comb begin
        v4_final  = v3_early_q;
        v4_action = ACT_DROP;
        if (v3_early_q == OUT_PASS && ctrl_drop_pass) v4_final = OUT_DROP_POLICY;
        if (v3_rx_bad_q) begin
            v4_final = OUT_DROP_RX_ERROR;
        end else if (v3_early_q == OUT_DECAP && v3_len_short_q) begin
            v4_final = OUT_DROP_TRUNCATED;
        end else if (v3_early_q == OUT_DECAP) begin
            v4_action = ACT_DECAP;
        end else if (v3_early_q == OUT_PASS && !ctrl_drop_pass) begin
            v4_action = ACT_FORWARD;
        end
    end

    logic                    v4_valid_q, v4_need_vni_q, v4_csum_nz_q;
    action_e                 v4_action_q;
    outcome_e                v4_outcome_q;
    logic [HEAD_BYTES*8-1:0] v4_head_q, v4_head_p_q;       // without / with the pushed tag
    logic [HEAD_BYTES-1:0]   v4_head_en_q, v4_head_en_p_q;
    logic [23:0]             v4_vni_q;
    logic [7:0]              v4_k_q;
    logic [LEN_W-1:0]        v4_ip_end_q, v4_len_q, v4_sum_start_q;
    logic [16:0]             v4_seed_q;

    always_ff @(posedge clk) begin
        logic [15:0] hc_new;
        v4_valid_q <= v3_valid_q;
        if (v3_valid_q) begin
            hc_new = ~(v3_hc_f1_q[15:0] + 16'(v3_hc_f1_q[16]));
            v4_action_q    <= v4_action;
            v4_outcome_q   <= v4_final;
            v4_need_vni_q  <= v3_hdr_ok_q && ctrl_vni_enable;
            // Without a tag: the inner ECN byte at 15, the IPv4 checksum at 24..25. With one:
            // the inner MACs, 81 00 and the TCI (its VLAN ID filled in V6), the IP header 4 on.
            v4_head_q      <= '0;
            v4_head_en_q   <= '0;
            v4_head_p_q    <= '0;
            v4_head_en_p_q <= '0;
            v4_head_p_q[0 +: 12*8]  <= v3_macs_q;
            v4_head_p_q[12*8 +: 16] <= 16'h0081;
            v4_head_en_p_q[15:0]    <= 16'hFFFF;
            if (v3_ecn_set_q) begin
                v4_head_q[15*8 +: 8]   <= v3_tos_q;
                v4_head_en_q[15]       <= 1'b1;
                v4_head_p_q[19*8 +: 8] <= v3_tos_q;
                v4_head_en_p_q[19]     <= 1'b1;
                if (v3_in_v4_q) begin
                    v4_head_q[24*8 +: 16]   <= {hc_new[7:0], hc_new[15:8]};
                    v4_head_en_q[25:24]     <= 2'b11;
                    v4_head_p_q[28*8 +: 16] <= {hc_new[7:0], hc_new[15:8]};
                    v4_head_en_p_q[29:28]   <= 2'b11;
                end
            end
            v4_csum_nz_q   <= v3_csum_nz_q;
            v4_vni_q       <= v3_vni_q;
            v4_k_q         <= v3_k_q;
            v4_ip_end_q    <= v3_ip_end_q;
            v4_len_q       <= v3_len_q;
            v4_sum_start_q <= v3_sum_start_q;
            v4_seed_q      <= v3_seed_q;
        end
        if (rst) v4_valid_q <= 1'b0;
    end

    // 'Decap', one copy per 8 head bytes and one for the lengths, each in an always_ff of its
    // own (kept): V5's gates then read a copy beside their bits, not one net from V4's action
    // across the die. Loaded every cycle (V3 holds between frames): V5 reads them in V4's
    // valid cycle.
    localparam int PG = HEAD_BYTES / 8 + 1;
    logic [PG-1:0] v4_dec_q;
    for (genvar g = 0; g < PG; g++) begin : g_dec
        (* keep *) always_ff @(posedge clk) begin
            v4_dec_q[g] <= v4_action == ACT_DECAP;
        end
    end

    // ---- V5: the descriptor per action, both push variants -----------------------------------
    // Loaded every cycle, the valid flag alone saying what it holds (V6 reads it only then): no
    // enable or set/reset from V4's valid reaches its bits.
    logic                    v5_valid_q, v5_decap_q, v5_drop_q, v5_need_vni_q;
    outcome_e                v5_outcome_q;
    logic [HEAD_BYTES*8-1:0] v5_head_q, v5_head_p_q;
    logic [HEAD_BYTES-1:0]   v5_head_en_q, v5_head_en_p_q;
    logic [LEN_W:0]          v5_shift_q, v5_shift_p_q;
    logic [LEN_W-1:0]        v5_out_len_q, v5_out_len_p_q, v5_min_len_q;
    logic                    v5_sum_en_q;
    logic [LEN_W-1:0]        v5_sum_start_q, v5_sum_end_q;
    logic [15:0]             v5_seed_q;
    logic [23:0]             v5_vni_q;

    always_ff @(posedge clk) begin
        logic decap;
        decap          = v4_dec_q[PG-1];
        v5_valid_q     <= v4_valid_q;
        v5_decap_q     <= v4_action_q == ACT_DECAP;
        v5_drop_q      <= v4_action_q == ACT_DROP;
        v5_need_vni_q  <= v4_need_vni_q;
        v5_outcome_q   <= v4_outcome_q;
        // Decap: output = frame[K, ip_end); with a tag, 4 bytes from K - 4 (the head).
        // Head bytes count only where head_en is set: the data need no gating.
        v5_head_q      <= v4_head_q;
        v5_head_p_q    <= v4_head_p_q;
        v5_head_en_p_q <= v4_head_en_p_q;
        v5_shift_q     <= decap ? (LEN_W+1)'(v4_k_q) : '0;
        v5_shift_p_q   <= (LEN_W+1)'(v4_k_q - 8'd4);
        v5_out_len_q   <= decap ? v4_len_q : '1;
        v5_out_len_p_q <= v4_len_q + LEN_W'(4);
        v5_min_len_q   <= decap ? v4_ip_end_q : '0;
        v5_sum_en_q    <= decap && v4_csum_nz_q;
        v5_sum_start_q <= v4_sum_start_q;
        v5_sum_end_q   <= v4_ip_end_q;
        v5_seed_q      <= v4_seed_q[15:0] + 16'(v4_seed_q[16]);
        v5_vni_q       <= v4_vni_q;
        if (rst) v5_valid_q <= 1'b0;
    end

    // Decap with a VNI lookup (the table's answer may push a tag), one copy per 8 head bytes
    // and one for the lengths, kept like V4's: V6's select of the two variants is then one LUT per bit from
    // rs_hit, rs_value[12] and a copy beside the bits, not a single select net from the
    // table's answer to every descriptor bit. The head without the tag counts only on decap.
    logic [PG-1:0] v5_pcand_q;
    for (genvar g = 0; g < PG; g++) begin : g_pcand
        (* keep *) always_ff @(posedge clk) begin
            v5_pcand_q[g] <= v4_dec_q[g] && v4_need_vni_q;
        end
    end
    for (genvar g = 0; g < PG - 1; g++) begin : g_head_en
        always_ff @(posedge clk) begin
            v5_head_en_q[8*g +: 8] <= v4_dec_q[g] ? v4_head_en_q[8*g +: 8] : '0;
        end
    end

    // ---- V6: the VNI table's answer, the descriptor -------------------------------------------
    // The pushed tag (TPID in the head already, TCI from the table) at bytes 14, 15.
    logic [HEAD_BYTES*8-1:0] tag_head;
    assign tag_head = (HEAD_BYTES*8)'({rs_value[7:0], 4'h0, rs_value[11:8]}) << (14*8);

    for (genvar g = 0; g < PG - 1; g++) begin : g_head
        always_ff @(posedge clk) begin
            if (v5_valid_q) begin
                if (v5_pcand_q[g] && rs_hit && rs_value[12]) begin
                    desc_head[64*g +: 64]  <= v5_head_p_q[64*g +: 64] | tag_head[64*g +: 64];
                    desc_head_en[8*g +: 8] <= v5_head_en_p_q[8*g +: 8];
                end else begin
                    desc_head[64*g +: 64]  <= v5_head_q[64*g +: 64];
                    desc_head_en[8*g +: 8] <= v5_head_en_q[8*g +: 8];
                end
            end
        end
    end

    always_ff @(posedge clk) begin
        logic push, unknown;
        desc_valid <= v5_valid_q;
        if (v5_valid_q) begin
            unknown = v5_need_vni_q && !rs_hit;
            push    = v5_pcand_q[PG-1] && rs_hit && rs_value[12];
            desc_drop      <= v5_drop_q || unknown;
            desc_outcome   <= unknown ? OUT_DROP_UNKNOWN_VNI : v5_outcome_q;
            desc_shift     <= push ? $signed(v5_shift_p_q) : $signed(v5_shift_q);
            desc_out_len   <= push ? v5_out_len_p_q : v5_out_len_q;
            // A frame dropped here has no late check (it would override the outcome)
            desc_min_len   <= unknown ? '0 : v5_min_len_q;
            desc_sum_en    <= v5_sum_en_q && !unknown;
            desc_sum_start <= v5_sum_start_q;
            desc_sum_end   <= v5_sum_end_q;
            desc_sum_seed  <= v5_seed_q;
            desc_tvni      <= {v5_decap_q, v5_vni_q};
        end
        if (rst) desc_valid <= 1'b0;
    end

    logic unused_rs;   // the answer's strobe: checked against V5 in simulation
    assign unused_rs = rs_valid;

`ifndef SYNTHESIS
    always_ff @(posedge clk) begin
        if (!rst && rs_valid != v5_valid_q) begin
            $error("vxlan_decap_classify: the VNI table's answer is not aligned with V5");
        end
    end
`endif

endmodule

`default_nettype wire
