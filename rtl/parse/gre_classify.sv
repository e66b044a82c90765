// SPDX-License-Identifier: Apache-2.0
//
// gre_classify — reads the headers of each frame as its beats go by and decides its fate
// (docs/gre_decap.md, "The decision procedure"), as early as the bytes it needs allow.
// It does not hold the datapath: it watches the handshakes of the stream feeding axis_splice
// and hands that engine one edit descriptor per frame, in the cycle of the beat that completes
// the headers (or the frame's last beat if it ends first).
//
// Headers parsed (offsets in bytes from the start of the frame):
//
//   0            6            12     14     16     18     20     22
//   +------------+------------+------+------+------+------+------+
//   | dst MAC    | src MAC    | TPID | TCI  | TPID | TCI  | type |   0x8100/0x88A8 tags, up to two
//   +------------+------------+------+------+------+------+------+
//
//   L2  outer IPv4                                 L2  outer IPv6
//   +0  +-------+-------+---------------+          +0  +----+--------+-----------------+
//       |ver|ihl|  TOS  | total length  |              |ver | TC     | flow label      |
//   +4  +-------+-------+---------------+          +4  +----+--------+-------+---------+
//       | identification|flags|frag off |              | payload length  |next=47|  hop |
//   +8  +-------+-------+---------------+          +8  +-----------------+-------+------+
//       |  TTL  | proto |   checksum    |              | source (16)  destination (16)   |
//   +12 +-------+-------+---------------+          +40 +--------------------------------+
//       | source address                |
//   +16 +-------------------------------+
//       | destination address           |
//   +20 +-------------------------------+ options up to IHL*4
//
//   G   GRE (RFC 2784/2890)
//   +0  +-+-+-+-+---------------+-----+-------------------------------+
//       |C|R|K|S| reserved0     | ver |        protocol type          |
//   +4  +-+-+-+-+---------------+-----+-------------------------------+
//       | checksum (C)                  | reserved1 (C)                 |
//       | key (K)                                                       |
//       | sequence number (S)                                           |
//   K   +---------------------------------------------------------------+
//       | payload: inner IPv4 / IPv6 (TOS/TC and checksum read for ECN) or Ethernet |
//
// The GRE checksum (C = 1) covers bytes [G, ip_end) and is verified at the frame's end: a
// running one's-complement sum of every beat, less the sum of the bytes before G.

`default_nettype none

module gre_classify
    import gre_pkg::*;
    import parse_pkg::*;
#(
    // Width of the data bus in bits: 64, 128, 256 or 512.
    parameter int DATA_W = 256,
    // Bytes per beat.
    parameter int KEEP_W = DATA_W / 8,
    // Bytes of each frame kept for parsing; the deepest decision reads 110 bytes.
    parameter int HDR_BYTES = 128,
    // Width of the output length field.
    parameter int LEN_W = 17
) (
    input  wire logic                clk,
    input  wire logic                rst,

    // The stream, observed.
    input  wire logic [DATA_W-1:0]   s_tdata,
    input  wire logic [KEEP_W-1:0]   s_tkeep,
    input  wire logic                s_hs,      // tvalid && tready
    input  wire logic                s_tlast,
    input  wire logic                s_tuser,

    input  wire logic                ctrl_allow_enable,
    input  wire logic                ctrl_drop_pass,
    input  wire logic                ctrl_drop_punt,
    input  wire logic                ctrl_forward_malformed,

    // Allow-list lookup (combinational in the table).
    output      logic [31:0]         lookup_src,
    output      logic [31:0]         lookup_dst,
    input  wire logic                lookup_hit,

    // Edit descriptor for axis_splice.
    output      logic                desc_valid,
    output      logic                desc_drop,
    output      logic [7:0]          desc_seg1_len,   // outer L2 bytes kept (from offset 0)
    output      logic [7:0]          desc_seg2_off,   // first byte of the rest (the payload)
    output      logic                desc_len_valid,
    output      logic [LEN_W-1:0]    desc_out_len,
    output      logic [5:0]          desc_patch_en,
    output      logic [47:0]         desc_patch_pos,
    output      logic [47:0]         desc_patch_val,
    output      logic                eof_bad,

    // One event per frame, the cycle after its last beat.
    output      logic                stat_valid,
    output      outcome_e            stat_outcome,
    output      logic                stat_emit,
    output      logic [15:0]         stat_len
);

    localparam int POS_W    = 24;               // byte positions, saturating

    if (DATA_W != 64 && DATA_W != 128 && DATA_W != 256 && DATA_W != 512) begin : g_param_check_1
        $error("gre_classify: DATA_W must be 64, 128, 256 or 512");
    end
    if (HDR_BYTES < 112 || HDR_BYTES % KEEP_W != 0) begin : g_param_check_2
        $error("gre_classify: HDR_BYTES must be >= 112 and a multiple of KEEP_W");
    end
    if (LEN_W < 17) begin : g_param_check_3
        $error("gre_classify: LEN_W must hold an IP end offset (17 bits)");
    end

    // ------------------------------------------------------------------ header bytes
    logic [7:0]             view [HDR_BYTES];
    logic [POS_W-1:0]       have;
    logic                   decided, decide_now;
    logic [LEN_W-1:0]       lim;
    logic [6:0]             c_gre_at, d_gre_at;
    logic [15:0]            region_sum;
    wire                    ended = s_tlast;

    hdr_window #(
        .DATA_W(DATA_W),
        .HDR_BYTES(HDR_BYTES),
        .POS_W(POS_W),
        .HEAD_MAX(82)                   // G <= 22 + 60
    ) window (
        .clk, .rst,
        .s_tdata, .s_tkeep, .s_hs, .s_tlast,
        .view, .have,
        .region_known(decided || decide_now),
        .region_decide(decide_now),
        .region_start(decided ? d_gre_at : c_gre_at),
        .region_end(lim),
        .region_sum
    );

    function automatic logic [7:0] vb(input logic [6:0] at);
        vb = view[at];
    endfunction

    function automatic logic [15:0] w16(input logic [6:0] at);
        w16 = {vb(at), vb(at + 7'd1)};
    endfunction

    // Ethernet, VLAN tags and the outer IP header bytes.
    logic [6:0]  p_l2;
    logic [15:0] p_et;
    logic        p_wait, p_tags3;
    logic [7:0]  iph [60];

    l2_parse #(
        .HDR_BYTES(HDR_BYTES),
        .POS_W(POS_W)
    ) l2p (
        .view, .have,
        .l2(p_l2), .et(p_et), .wait_more(p_wait), .too_many_tags(p_tags3), .iph
    );

    // ------------------------------------------------------------------ the decision
    logic             c_done, c_fwd, c_decap, c_csum_check;
    outcome_e         c_outcome;
    logic [7:0]       c_keep, c_rest;
    logic [LEN_W-1:0] c_len, c_ip_end;
    logic [5:0]       c_pen;
    logic [47:0]      c_ppos, c_pval;

    logic [31:0]      iph_sum;

    always_comb begin : decide
        logic             stop, v4, v6, l3, ecn_needed, malformed;
        logic [6:0]       l2, g, k, glen, inner_need;
        logic [15:0]      et, tlen, plen, flags, proto, hc, m_old, m_new, hc_new;
        logic [3:0]       ihl;
        logic [1:0]       ecn_o, ecn_i, ecn_n;
        logic [7:0]       tos, tos_n;
        logic [LEN_W-1:0] ip_end;

        c_done = 1'b0; c_outcome = OUT_PASS; c_decap = 1'b0; c_csum_check = 1'b0;
        c_keep = '0; c_rest = '0; c_len = '0; c_ip_end = '0;
        c_pen = '0; c_ppos = '0; c_pval = '0;
        stop = 1'b0; v4 = 1'b0; v6 = 1'b0; l3 = 1'b0; ecn_needed = 1'b0;
        l2 = 7'd14; g = '0; k = '0; glen = '0; inner_need = '0;
        et = w16(7'd12); tlen = '0; plen = '0; flags = '0; proto = '0; hc = '0;
        m_old = '0; m_new = '0; hc_new = '0; ihl = '0;
        ecn_o = '0; ecn_i = '0; ecn_n = '0; tos = '0; tos_n = '0; ip_end = '0;
        iph_sum = '0; c_gre_at = '0;
        lookup_src = '0; lookup_dst = '0;

        // 1. L2: Ethernet and up to two VLAN tags (l2_parse).
        l2 = p_l2; et = p_et;
        if (p_wait) begin
            c_done = ended; stop = 1'b1;
        end else if (p_tags3) begin
            c_done = 1'b1; stop = 1'b1;
        end

        // 2. Is it GRE at all?
        if (!stop) begin
            if (et == 16'h0800) begin
                if (have < POS_W'(l2) + 10) begin c_done = ended; stop = 1'b1; end
                else if (vb(l2 + 7'd9) != 8'd47) begin c_done = 1'b1; stop = 1'b1; end
                else v4 = 1'b1;
            end else if (et == 16'h86DD) begin
                if (have < POS_W'(l2) + 7) begin c_done = ended; stop = 1'b1; end
                else if (vb(l2 + 7'd6) != 8'd47) begin c_done = 1'b1; stop = 1'b1; end
                else v6 = 1'b1;
            end else begin
                c_done = 1'b1; stop = 1'b1;
            end
        end

        // From here the frame is GRE: ending too early is a truncation.
        if (!stop) c_outcome = OUT_DROP_TRUNCATED;

        // 3. Outer IP header.
        ihl = iph[0][3:0];
        for (int w = 0; w < 30; w++)
            if (5'(w) < {ihl, 1'b0}) iph_sum = iph_sum + {16'h0, iph[2*w], iph[2*w+1]};
        if (!stop && v4) begin
            tlen = {iph[2], iph[3]};
            if (have < POS_W'(l2) + 20) begin
                c_done = ended; stop = 1'b1;
            end else if (iph[0][7:4] != 4'd4 || ihl < 4'd5) begin
                c_outcome = OUT_DROP_IP_HEADER; c_done = 1'b1; stop = 1'b1;
            end else if (have < POS_W'(l2) + POS_W'({ihl, 2'b00})) begin
                c_done = ended; stop = 1'b1;
            end else if (oc_fold(iph_sum) != 16'hFFFF) begin
                c_outcome = OUT_DROP_IP_CHECKSUM; c_done = 1'b1; stop = 1'b1;
            end else if (iph[6][5] || {iph[6][4:0], iph[7]} != 13'd0) begin
                c_outcome = OUT_DROP_FRAGMENT; c_done = 1'b1; stop = 1'b1;
            end else if (tlen < 16'({ihl, 2'b00}) + 16'd4) begin
                c_outcome = OUT_DROP_IP_HEADER; c_done = 1'b1; stop = 1'b1;
            end else begin
                g = l2 + 7'({ihl, 2'b00});
                ip_end = LEN_W'(l2) + LEN_W'(tlen);
                ecn_o = iph[1][1:0];
            end
        end
        if (!stop && v6) begin
            plen = {iph[4], iph[5]};
            if (have < POS_W'(l2) + 40) begin
                c_done = ended; stop = 1'b1;
            end else if (iph[0][7:4] != 4'd6 || plen < 16'd4) begin
                c_outcome = OUT_DROP_IP_HEADER; c_done = 1'b1; stop = 1'b1;
            end else begin
                g = l2 + 7'd40;
                ip_end = LEN_W'(l2) + LEN_W'(40) + LEN_W'(plen);
                ecn_o = iph[1][5:4];
            end
        end

        // 4. GRE header.
        flags = w16(g);
        proto = w16(g + 7'd2);
        glen  = 7'd4 + {3'b000, flags[15], 2'b00} + {3'b000, flags[13], 2'b00} + {3'b000, flags[12], 2'b00};
        k     = g + glen;
        if (!stop) begin
            if (have < POS_W'(g) + 4) begin
                c_done = ended; stop = 1'b1;
            end else if ((flags & 16'h4FFF) != 16'h0) begin
                c_outcome = OUT_DROP_GRE_HEADER; c_done = 1'b1; stop = 1'b1;
            end else if (ip_end < LEN_W'(k)) begin
                c_outcome = OUT_DROP_IP_HEADER; c_done = 1'b1; stop = 1'b1;
            end else if (have < POS_W'(k)) begin
                c_done = ended; stop = 1'b1;
            end
        end

        // 5. Allow-list of outer IPv4 endpoint pairs.
        lookup_src = {iph[12], iph[13], iph[14], iph[15]};
        lookup_dst = {iph[16], iph[17], iph[18], iph[19]};
        if (!stop && ctrl_allow_enable && (v6 || !lookup_hit)) begin
            c_outcome = OUT_DROP_NOT_ALLOWED; c_done = 1'b1; stop = 1'b1;
        end

        // 6. Protocols decapsulated here; any other is punted to the host.
        if (!stop && proto != 16'h0800 && proto != 16'h86DD && proto != 16'h6558) begin
            c_outcome = OUT_PUNT; c_done = 1'b1; stop = 1'b1;
        end

        // 7. RFC 6040 ECN for L3 payloads.
        l3 = (proto != 16'h6558);
        ecn_needed = l3 && ecn_o[0];                        // ECT(1) = 01 or CE = 11
        inner_need = (proto == 16'h0800) ? 7'd12 : 7'd2;
        tos = vb(k + 7'd1);
        ecn_i = (proto == 16'h0800) ? tos[1:0] : tos[5:4];
        ecn_n = ecn_combine(ecn_o, ecn_i);
        tos_n = (proto == 16'h0800) ? {tos[7:2], ecn_n} : {tos[7:6], ecn_n, tos[3:0]};
        m_old = {vb(k), tos};
        m_new = {vb(k), tos_n};
        hc    = w16(k + 7'd10);
        hc_new = csum_update(hc, m_old, m_new);
        if (!stop && ecn_needed) begin
            if (ip_end < LEN_W'(k) + LEN_W'(inner_need)) begin
                c_done = 1'b1; stop = 1'b1;
            end else if (have < POS_W'(k) + POS_W'(inner_need)) begin
                c_done = ended; stop = 1'b1;
            end else if (ecn_drop(ecn_o, ecn_i)) begin
                c_outcome = OUT_DROP_ECN; c_done = 1'b1; stop = 1'b1;
            end
        end

        // An Ethernet payload must hold at least an Ethernet header.
        if (!stop && !l3 && ip_end < LEN_W'(k) + LEN_W'(14)) begin
            c_done = 1'b1; stop = 1'b1;
        end

        // 8./9. Decapsulate, unless the frame is already known to be short.
        if (!stop) begin
            c_done = 1'b1;
            if (ended && have < POS_W'(ip_end)) begin
                c_outcome = OUT_DROP_TRUNCATED;
            end else begin
                c_decap = 1'b1;
                c_ip_end = ip_end;
                c_csum_check = flags[15];
                c_gre_at = g;
                if (l3) begin
                    c_outcome = OUT_DECAP_L3;
                    c_keep  = 8'(l2);
                    c_rest  = 8'(k);
                    c_len   = LEN_W'(l2) + ip_end - LEN_W'(k);
                    // EtherType of the kept Ethernet header becomes the GRE protocol.
                    c_pen[0] = 1'b1; c_ppos[7:0]   = 8'(l2 - 7'd2); c_pval[7:0]   = proto[15:8];
                    c_pen[1] = 1'b1; c_ppos[15:8]  = 8'(l2 - 7'd1); c_pval[15:8]  = proto[7:0];
                    if (ecn_needed && tos_n != tos) begin
                        c_pen[2] = 1'b1; c_ppos[23:16] = 8'(l2 + 7'd1); c_pval[23:16] = tos_n;
                        if (proto == 16'h0800) begin
                            c_pen[3] = 1'b1; c_ppos[31:24] = 8'(l2 + 7'd10); c_pval[31:24] = hc_new[15:8];
                            c_pen[4] = 1'b1; c_ppos[39:32] = 8'(l2 + 7'd11); c_pval[39:32] = hc_new[7:0];
                        end
                    end
                end else begin
                    c_outcome = OUT_DECAP_TEB;
                    c_keep  = '0;
                    c_rest  = 8'(k);
                    c_len   = ip_end - LEN_W'(k);
                end
            end
        end

        // Nothing the procedure needs lies beyond the header window.
        if (!c_done && have >= POS_W'(HDR_BYTES)) begin
            c_done = 1'b1; c_outcome = OUT_PASS;
        end

        // Policy: forward or drop.
        malformed = (c_outcome == OUT_DROP_IP_HEADER || c_outcome == OUT_DROP_IP_CHECKSUM ||
                     c_outcome == OUT_DROP_FRAGMENT ||
                     c_outcome == OUT_DROP_GRE_HEADER);
        if (c_outcome == OUT_PASS && ctrl_drop_pass) c_outcome = OUT_DROP_POLICY;
        if (c_outcome == OUT_PUNT && ctrl_drop_punt) c_outcome = OUT_DROP_POLICY;
        c_fwd = c_outcome == OUT_PASS || c_outcome == OUT_PUNT || c_decap ||
                (malformed && ctrl_forward_malformed);
    end

    // ------------------------------------------------------------------ decision state
    logic              d_decap, d_csum_check, d_fwd;
    outcome_e          d_outcome;
    logic [LEN_W-1:0]  d_ip_end;

    assign decide_now = s_hs && !decided && c_done;
    assign lim        = decided ? d_ip_end : c_ip_end;

    // ------------------------------------------------------------------ outputs
    wire              f_decap   = decided ? d_decap : c_decap;
    wire              f_csum    = decided ? d_csum_check : c_csum_check;
    wire outcome_e    f_outcome = decided ? d_outcome : c_outcome;
    wire [POS_W-1:0]  flen      = have;
    wire              late_trunc = f_decap && flen < POS_W'(lim);
    // The GRE checksum covers [G, ip_end): its one's-complement sum is 0xFFFF (or +0).
    wire              late_csum  = f_decap && f_csum && region_sum != 16'hFFFF && region_sum != 16'h0000;

    always_comb begin
        desc_valid     = decide_now;
        // A frame whose bad last beat is the decision beat is known bad: nothing goes out.
        desc_drop      = !c_fwd || (s_tlast && s_tuser);
        desc_seg1_len  = c_decap ? c_keep : 8'd0;
        desc_seg2_off  = c_decap ? c_rest : 8'd0;
        desc_len_valid = c_decap;
        desc_out_len   = c_len;
        desc_patch_en  = c_decap ? c_pen : 6'd0;
        desc_patch_pos = c_ppos;
        desc_patch_val = c_pval;
        eof_bad        = s_tuser || late_trunc || late_csum;
    end

    always_ff @(posedge clk) begin
        stat_valid <= 1'b0;
        if (s_hs) begin
            if (decide_now) begin
                decided      <= 1'b1;
                d_decap      <= c_decap;
                d_fwd        <= c_fwd;
                d_csum_check <= c_csum_check;
                d_outcome    <= c_outcome;
                d_ip_end     <= c_ip_end;
                d_gre_at     <= c_gre_at;
            end
            if (s_tlast) begin
                decided      <= 1'b0;
                stat_valid   <= 1'b1;
                stat_emit    <= decided ? d_fwd : (c_fwd && !s_tuser);
                stat_len     <= (flen > POS_W'(16'hFFFF)) ? 16'hFFFF : flen[15:0];
                if (s_tuser)         stat_outcome <= OUT_DROP_RX_ERROR;
                else if (late_trunc) stat_outcome <= OUT_DROP_TRUNCATED;
                else if (late_csum)  stat_outcome <= OUT_DROP_GRE_CHECKSUM;
                else                 stat_outcome <= f_outcome;
            end
        end
        if (rst) begin
            decided    <= 1'b0;
            stat_valid <= 1'b0;
        end
    end

endmodule

`default_nettype wire
