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
    parameter int LEN_W = 17
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

    // ------------------------------------------------------------------ header bytes
    logic [7:0]       view [HDR_BYTES];
    logic [POS_W-1:0] have;
    logic             decided, decide_now;
    logic [LEN_W-1:0] lim;
    logic [6:0]       c_udp_at, d_udp_at;
    logic [15:0]      region_sum;
    wire              ended = s_tlast;

    logic [$clog2(KEEP_W):0] beat_len_unused;   // the decision reads `have` only
    hdr_window #(
        .DATA_W(DATA_W),
        .HDR_BYTES(HDR_BYTES),
        .POS_W(POS_W),
        .HEAD_MAX(82)                   // U <= 22 + 60
    ) window (
        .clk, .rst,
        .s_tdata, .s_tkeep, .s_hs, .s_tlast,
        .view, .have, .beat_len(beat_len_unused),
        .region_known(decided || decide_now),
        .region_decide(decide_now),
        .region_start(decided ? d_udp_at : c_udp_at),
        .region_end(lim),
        .region_sum
    );

    function automatic logic [15:0] w16(input logic [6:0] at);
        w16 = {view[at], view[at + 7'd1]};
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
    logic             c_done, c_decap, c_csum_check;
    logic             c_hdr_ok;        // passed steps 1-5: the VNI table has the next word
    logic [3:0]       c_outcome;       // before the VNI table
    logic [LEN_W-1:0] c_ip_end, c_inner_len;
    logic [6:0]       c_k;
    logic [23:0]      c_vni;
    logic [15:0]      c_pseudo;        // UDP pseudo-header sum
    logic [2:0]       c_pen;
    logic [7:0]       c_tos_val, c_hc_hi, c_hc_lo;

    always_comb begin : decide
        logic             stop, v4, v6, ecn_needed, inner_v4, inner_ip;
        logic [6:0]       l2, u, k, inner_need;
        logic [15:0]      et, tlen, plen, ulen, ucsum, inner_et, hc, m_old, m_new, hc_new;
        logic [3:0]       ihl;
        logic [1:0]       ecn_o, ecn_i, ecn_n;
        logic [7:0]       flags, tos, tos_n;
        logic [LEN_W-1:0] ip_end;
        logic [31:0]      isum, psum;
        logic [63:0][15:0] isum_w, psum_w;

        c_done = 1'b0; c_outcome = O_PASS; c_decap = 1'b0; c_csum_check = 1'b0; c_hdr_ok = 1'b0;
        c_ip_end = '0; c_inner_len = '0; c_k = '0; c_vni = '0; c_pseudo = '0;
        c_pen = '0; c_tos_val = '0; c_hc_hi = '0; c_hc_lo = '0; c_udp_at = '0;
        stop = 1'b0; v4 = 1'b0; v6 = 1'b0; ecn_needed = 1'b0; inner_v4 = 1'b0; inner_ip = 1'b0;
        l2 = 7'd14; u = '0; k = '0; inner_need = '0;
        et = w16(7'd12); tlen = '0; plen = '0; ulen = '0; ucsum = '0; inner_et = '0;
        hc = '0; m_old = '0; m_new = '0; hc_new = '0; ihl = '0;
        ecn_o = '0; ecn_i = '0; ecn_n = '0; flags = '0; tos = '0; tos_n = '0; ip_end = '0;
        isum = '0; psum = '0;

        // 1. L2: Ethernet and up to two VLAN tags (l2_parse).
        l2 = p_l2; et = p_et;
        if (p_wait) begin
            c_done = ended; stop = 1'b1;
        end else if (p_tags3) begin
            c_done = 1'b1; stop = 1'b1;
        end

        // 2. Outer IP, as far as the UDP header.
        ihl = iph[0][3:0];
        if (!stop) begin
            if (et == 16'h0800) begin
                if (have < POS_W'(l2) + 20) begin
                    c_done = ended; stop = 1'b1;
                end else if (iph[0][7:4] != 4'd4 || ihl < 4'd5 || iph[9] != 8'd17 ||
                             {iph[6][4:0], iph[7]} != 13'd0) begin
                    c_done = 1'b1; stop = 1'b1;
                end else begin
                    v4 = 1'b1; u = l2 + 7'({ihl, 2'b00});
                end
            end else if (et == 16'h86DD) begin
                if (have < POS_W'(l2) + 40) begin
                    c_done = ended; stop = 1'b1;
                end else if (iph[0][7:4] != 4'd6 || iph[6] != 8'd17) begin
                    c_done = 1'b1; stop = 1'b1;
                end else begin
                    v6 = 1'b1; u = l2 + 7'd40;
                end
            end else begin
                c_done = 1'b1; stop = 1'b1;
            end
        end

        // 3. The UDP port makes it VXLAN.
        if (!stop) begin
            if (have < POS_W'(u) + 4) begin
                c_done = ended; stop = 1'b1;
            end else if (w16(u + 7'd2) != ctrl_port && !(ctrl_port2_enable && w16(u + 7'd2) == ctrl_port2)) begin
                c_done = 1'b1; stop = 1'b1;
            end else begin
                c_outcome = O_TRUNC;       // it is VXLAN: ending early from here on is a truncation
            end
        end

        // 4. Outer checks. The header checksum sums IHL*2 words: masked words into an adder
        // tree (parse_pkg::word_sum; a loop of additions would be 30 adders in series).
        isum_w = '0;
        for (int w = 0; w < 30; w++)
            if (5'(w) < {ihl, 1'b0}) isum_w[w] = {iph[2*w], iph[2*w+1]};
        isum = word_sum(isum_w);
        tlen = {iph[2], iph[3]};
        plen = {iph[4], iph[5]};
        if (!stop && v4) begin
            if (have < POS_W'(u)) begin
                c_done = ended; stop = 1'b1;
            end else if (oc_fold(isum) != 16'hFFFF) begin
                c_outcome = O_IP_CSUM; c_done = 1'b1; stop = 1'b1;
            end else if (iph[6][5]) begin
                c_outcome = O_FRAG; c_done = 1'b1; stop = 1'b1;
            end else if (tlen < 16'({ihl, 2'b00}) + 16'd16) begin
                c_outcome = O_IP_HEADER; c_done = 1'b1; stop = 1'b1;
            end else begin
                ip_end = LEN_W'(l2) + LEN_W'(tlen);
                ecn_o = iph[1][1:0];
            end
        end
        if (!stop && v6) begin
            if (plen < 16'd16) begin
                c_outcome = O_IP_HEADER; c_done = 1'b1; stop = 1'b1;
            end else begin
                ip_end = LEN_W'(l2) + LEN_W'(40) + LEN_W'(plen);
                ecn_o = iph[1][5:4];
            end
        end
        ulen  = w16(u + 7'd4);
        ucsum = w16(u + 7'd6);
        if (!stop) begin
            if (have < POS_W'(u) + 8) begin
                c_done = ended; stop = 1'b1;
            end else if (LEN_W'(ulen) != ip_end - LEN_W'(u)) begin
                c_outcome = O_IP_HEADER; c_done = 1'b1; stop = 1'b1;
            end
        end

        // 5. VXLAN header.
        flags = view[u + 7'd8];
        k = u + 7'd16;
        if (!stop) begin
            if (have < POS_W'(k)) begin
                c_done = ended; stop = 1'b1;
            end else if (!flags[3]) begin
                c_outcome = O_FLAGS; c_done = 1'b1; stop = 1'b1;
            end else if (ctrl_strict && ((flags & 8'hF7) != 8'h00 || view[u + 7'd9] != 8'h00 ||
                         view[u + 7'd10] != 8'h00 || view[u + 7'd11] != 8'h00 || view[u + 7'd15] != 8'h00)) begin
                c_outcome = O_RESERVED; c_done = 1'b1; stop = 1'b1;
            end
        end
        c_vni = {view[u + 7'd12], view[u + 7'd13], view[u + 7'd14]};
        c_hdr_ok = !stop;

        // 6. (VNI table: after the lookup.)  7. Inner frame and ECN.
        inner_et = w16(k + 7'd12);
        inner_v4 = (inner_et == 16'h0800);
        inner_ip = inner_v4 || (inner_et == 16'h86DD);
        ecn_needed = inner_ip && ecn_o[0];
        inner_need = 7'd14 + (inner_v4 ? 7'd12 : 7'd2);
        tos   = view[k + 7'd15];
        ecn_i = inner_v4 ? tos[1:0] : tos[5:4];
        ecn_n = ecn_combine(ecn_o, ecn_i);
        tos_n = inner_v4 ? {tos[7:2], ecn_n} : {tos[7:6], ecn_n, tos[3:0]};
        m_old = {view[k + 7'd14], tos};
        m_new = {view[k + 7'd14], tos_n};
        hc    = w16(k + 7'd24);
        hc_new = csum_update(hc, m_old, m_new);
        if (!stop) begin
            if (ip_end < LEN_W'(k) + 14) begin
                c_done = 1'b1; stop = 1'b1;
            end else if (have < POS_W'(k) + 14) begin
                c_done = ended; stop = 1'b1;
            end else if (ecn_needed && ip_end < LEN_W'(k) + LEN_W'(inner_need)) begin
                c_done = 1'b1; stop = 1'b1;
            end else if (ecn_needed && have < POS_W'(k) + POS_W'(inner_need)) begin
                c_done = ended; stop = 1'b1;
            end else if (ecn_needed && ecn_drop(ecn_o, ecn_i)) begin
                c_outcome = O_ECN; c_done = 1'b1; stop = 1'b1;
            end
        end

        // Pseudo-header for the UDP checksum (IPv4: src, dst, 17, UDP length; IPv6 likewise).
        psum_w = '0;
        for (int w = 0; w < 16; w++)
            if (v4 ? (w >= 6 && w < 10) : (w >= 4 && w < 20))
                psum_w[w] = {iph[2*w], iph[2*w+1]};
        for (int w = 16; w < 20; w++)
            if (!v4) psum_w[w] = {iph[2*w], iph[2*w+1]};
        psum_w[20] = 16'd17;
        psum_w[21] = ulen;
        psum = word_sum(psum_w);

        // 8./9. Decapsulate, unless the frame is already known to be short.
        if (!stop) begin
            c_done = 1'b1;
            if (ended && have < POS_W'(ip_end)) begin
                c_outcome = O_TRUNC;
            end else begin
                c_outcome    = O_DECAP;
                c_decap      = 1'b1;
                c_ip_end     = ip_end;
                c_k          = k;
                c_inner_len  = ip_end - LEN_W'(k);
                c_csum_check = (ucsum != 16'h0000);
                c_udp_at     = u;
                c_pseudo     = oc_fold(psum);
                if (ecn_needed && tos_n != tos) begin
                    c_pen[0] = 1'b1; c_tos_val = tos_n;
                    if (inner_v4) begin
                        c_pen[1] = 1'b1; c_pen[2] = 1'b1;
                        c_hc_hi = hc_new[15:8]; c_hc_lo = hc_new[7:0];
                    end
                end
            end
        end

        // Nothing the procedure needs lies beyond the header window.
        if (!c_done && have >= POS_W'(HDR_BYTES)) begin
            c_done = 1'b1; c_outcome = O_PASS;
        end
        if (c_outcome == O_PASS && ctrl_drop_pass) c_outcome = O_POLICY;
    end

    // ------------------------------------------------------------------ decision state
    logic             d_decap, d_csum_check;
    logic [LEN_W-1:0] d_ip_end;
    logic [15:0]      d_pseudo;

    assign decide_now = s_hs && !decided && c_done;
    assign lim        = decided ? d_ip_end : c_ip_end;

    wire              f_decap   = decided ? d_decap : c_decap;
    wire              f_csum    = decided ? d_csum_check : c_csum_check;
    wire [15:0]       f_pseudo  = decided ? d_pseudo : c_pseudo;
    wire [POS_W-1:0]  flen      = have;
    wire [15:0]       udp_sum   = oc_fold({16'h0, region_sum} + {16'h0, f_pseudo});
    wire              late_trunc = f_decap && flen < POS_W'(lim);
    wire              late_csum  = f_decap && f_csum && udp_sum != 16'hFFFF && udp_sum != 16'h0000;

    assign eof_bad = s_tuser || late_trunc || late_csum;

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
        dec_in.decap     = c_decap;
        dec_in.hdr_ok    = c_hdr_ok;
        dec_in.known_bad = s_tlast && s_tuser;
        dec_in.outcome   = c_outcome;
        dec_in.inner_len = c_inner_len;
        dec_in.k         = c_k;
        dec_in.vni       = c_vni;
        dec_in.pen       = c_pen;
        dec_in.tos_val   = c_tos_val;
        dec_in.hc_hi     = c_hc_hi;
        dec_in.hc_lo     = c_hc_lo;
        lk_valid = decide_now;
        lk_key   = c_vni;
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
        // Decision state of the frame being parsed.
        if (s_hs) begin
            if (decide_now) begin
                decided      <= 1'b1;
                d_decap      <= c_decap;
                d_csum_check <= c_csum_check;
                d_ip_end     <= c_ip_end;
                d_udp_at     <= c_udp_at;
                d_pseudo     <= c_pseudo;
            end
            if (s_tlast) decided <= 1'b0;
        end
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
        if (s_hs && s_tlast) begin
            eq_bad[eq_wr[$clog2(QDEPTH)-1:0]]  <= s_tuser;
            eq_late[eq_wr[$clog2(QDEPTH)-1:0]] <= {late_trunc, late_csum};
            eq_len[eq_wr[$clog2(QDEPTH)-1:0]]  <= (flen > POS_W'(16'hFFFF)) ? 16'hFFFF : flen[15:0];
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
            decided    <= 1'b0;
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
