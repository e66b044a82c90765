// SPDX-License-Identifier: Apache-2.0
//
// vxlan_encap_classify — the VXLAN encap decision (docs/vxlan.md, "Encap", steps 1-4) in
// registered stages, from the frames leaving the store-and-forward FIFO to one axis_edit
// descriptor per frame: the outer headers laid over the output head, the inner frame moved
// back by them (D = -50, or -46 when the inner 802.1Q tag that selected the tunnel is removed).
//
// Host frame read (E = 14, or 18 after a 0x8100 tag; P = E + IHL*4, the ports):
//
//   0     6     12     14    16    E      E+1   E+6    E+9    E+12  E+16  E+20   P     P+2
//   +-----+-----+------+-----+-----+------+-----+------+------+-----+-----+..+---+-----+-----+
//   | dst | src | 8100?| TCI | et  | v/ihl| TOS |fl/off| proto| src | dst |opt| sport| dport|
//   +-----+-----+------+-----+-----+------+-----+------+------+-----+-----+..+---+-----+-----+
//
// Output head built on a tunnel hit (HEAD_BYTES, laid where head_en is set):
//
//   0  dst MAC     6  src MAC    12 08 00   14 45 TOS    16 IP length   18 00 00 00 00
//   22 TTL 11      24 checksum   26 src IP  30 dst IP    34 sport       36 dport
//   38 UDP length  40 00 00      42 08 00 00 00          46 VNI         49 00
//   50 inner dst MAC, 56 inner src MAC (only when the tag is removed: bytes 12..15 of the
//      input are skipped, output byte i = input byte i - 46 from 62 on; else i - 50 from 50)
//
// Stages (each ends in registers; H = the cycle hdr_capture presents the window, 2 cycles
// after the beat that completes it or ends the frame):
//   capture  the first HDR_BYTES bytes by beat position (HDR_BYTES: the deepest byte read,
//            the destination port's at 18 + 60 + 3, rounded up to a beat); the frame's
//            length and flags (constant over the frame at the FIFO's output) beside it,
//            and its "frame holds n bytes" compares
//   (H)      the key (the tag, the inner destination address), captured by beat position
//            beside the window already selected by the tag, looked up from registers;
//            answered in H+L (L = hash_table's LOOKUP_LATENCY, 7)
//   E1 (H+1) the tag; the IPv4 fixed header selected by it; TCP/UDP and not a fragment
//            (judged at both header places, selected by the tag)
//   E2 (H+2) IPv4 or not; where the ports are (one-hot of u, their 4-byte step); the lengths;
//            the flow hash's part of the source, destination and protocol (partial XORs)
//   E3 (H+3) the ports selected; the partial XORs added
//   E4 (H+4) the flow hash (CRC-32C as an XOR matrix): the ports' part added
//   E5 (H+5) the checksum's table-free words summed; the UDP source port
//   E6 .. (H+6 .. H+L) E5's results held while the table answers (L - 5 stages)
//   F1 (H+L+1) the table's answer: the outcome, the descriptor's shift and lengths; the
//            checksum's words in three pair sums
//   F2 (H+L+2) the pair sums added
//   F3 (H+L+3) the checksum folded, the head: the descriptor and the frame's status event
// desc_valid is high in cycle H+L+3 (H+10) for one cycle; the caller guarantees room (no ready).

`default_nettype none

module vxlan_encap_classify
    import parse_pkg::*;
    import vxlan_encap_pkg::*;
#(
    // Width of the data bus in bits: 64, 128, 256 or 512.
    parameter int DATA_W = 256,
    // Bytes of the output head a descriptor may overlay: the outer headers and the inner MAC
    // addresses (50 + 12 bytes), a multiple of 8.
    parameter int HEAD_BYTES = 64,
    // Frame length bits of the descriptor (an encapsulated frame: the FIFO's length + 50).
    parameter int LEN_W = 17,
    // The tunnel table's LOOKUP_LATENCY (6 or 7): E5's results wait LOOKUP_LATENCY - 5 cycles
    // (stages E6 ..) for its answer.
    parameter int LOOKUP_LATENCY = 7
) (
    input  wire logic                      clk,
    input  wire logic                      rst,

    // The stream leaving the frame FIFO (into the edit engine), observed, with the frame's
    // length and flags (axis_frame_fifo m_len, m_bad, m_oversize: the same on every beat).
    input  wire logic [DATA_W-1:0]         s_tdata,
    input  wire logic [DATA_W/8-1:0]       s_tkeep,
    input  wire logic                      s_hs,
    input  wire logic                      s_tlast,
    input  wire logic [15:0]               s_len,
    input  wire logic                      s_bad,
    input  wire logic                      s_oversize,

    // CONTROL bit 0
    input  wire logic                      ctrl_drop_miss,

    // Tunnel table (hash_table, LOOKUP_LATENCY as above): key {vlan_valid, vid, inner dst IPv4};
    // value per docs/vxlan.md
    output      logic                      lk_valid,
    output      logic [44:0]               lk_key,
    input  wire logic                      rs_valid,
    input  wire logic                      rs_hit,
    input  wire logic [213:0]              rs_value,

    // One edit descriptor per frame (axis_edit's s_desc_*)
    output      logic                      desc_valid,
    output      logic                      desc_drop,
    output      logic signed [LEN_W:0]     desc_shift,
    output      logic [HEAD_BYTES*8-1:0]   desc_head,
    output      logic [HEAD_BYTES-1:0]     desc_head_en,
    output      logic [LEN_W-1:0]          desc_out_len,

    // One event per frame, with its descriptor: the outcome, whether it leaves, its length
    output      logic                      stat_valid,
    output      outcome_e                  stat_outcome,
    output      logic                      stat_emit,
    output      logic [15:0]               stat_len
);

    localparam int KEEP_W    = DATA_W / 8;
    // The deepest byte read: the destination port's last, after a tag and a 60-byte header.
    localparam int NEED      = 18 + 60 + 4;
    localparam int HDR_BYTES = ((NEED + KEEP_W - 1) / KEEP_W) * KEEP_W;
    // The bytes the ports may start at (34 + 4u, u = tag + IHL - 5 in 0..11), and their window.
    localparam int PW_OFF    = 34;
    localparam int PW_BYTES  = NEED - PW_OFF;
    localparam int FLOW_BITS = 13 * 8;
    // The hash's source, destination and protocol bits (72) in E2's partial XORs: 16 each.
    localparam int SDP_GRP   = 16;
    localparam int SDP_PARTS = (9 * 8 + SDP_GRP - 1) / SDP_GRP;

    if (DATA_W != 64 && DATA_W != 128 && DATA_W != 256 && DATA_W != 512) begin : g_check_w
        $error("vxlan_encap_classify: DATA_W must be 64, 128, 256 or 512");
    end
    if (HEAD_BYTES < 62 || HEAD_BYTES % 8 != 0 || HEAD_BYTES > 128) begin : g_check_head
        $error("vxlan_encap_classify: HEAD_BYTES must be a multiple of 8 in 64 .. 128");
    end
    if (LEN_W < 17) begin : g_check_len
        $error("vxlan_encap_classify: LEN_W must be at least 17 (a 16-bit length + 50)");
    end
    if (LOOKUP_LATENCY < 6 || LOOKUP_LATENCY > 7) begin : g_check_latency
        $error("vxlan_encap_classify: LOOKUP_LATENCY must be 6 or 7");
    end

    localparam logic [15:0] ET_IPV4 = 16'h0800;
    localparam logic [15:0] ET_VLAN = 16'h8100;
    localparam logic [7:0]  IPPROTO_TCP = 8'd6;
    localparam logic [7:0]  IPPROTO_UDP = 8'd17;

    // ---- capture: the window by beat position; the frame's length and flags beside it -------
    logic [HDR_BYTES*8-1:0]          hdr_q;
    logic                            hdr_valid;
    // verilator lint_off UNUSEDSIGNAL
    // (the frame's length comes from the FIFO, not from the window's byte count)
    logic [DATA_W-1:0]               beat_tdata;
    logic [HDR_BYTES/KEEP_W-1:0]     beat_wen;
    logic [7:0]                      hdr_beat;
    logic [KEEP_W-1:0]               hdr_keep;
    logic                            hdr_whole, hdr_rx_err;
    // verilator lint_on UNUSEDSIGNAL

    hdr_capture #(
        .DATA_W(DATA_W),
        .HDR_BYTES(HDR_BYTES)
    ) capture (
        .clk(clk), .rst(rst),
        .s_tdata(s_tdata), .s_tkeep(s_tkeep), .s_hs(s_hs), .s_tlast(s_tlast), .s_tuser(1'b0),
        .beat_tdata(beat_tdata), .beat_wen(beat_wen),
        .hdr_valid(hdr_valid), .hdr_q(hdr_q), .hdr_beat(hdr_beat), .hdr_keep(hdr_keep),
        .hdr_whole(hdr_whole), .hdr_rx_err(hdr_rx_err)
    );

    // The FIFO's length and flags of the beat taken two cycles ago: hdr_valid comes two
    // cycles after the beat that completes the window, and that beat is the frame's. The
    // "frame holds n bytes" compares are made from c1 and registered beside c2_len_q, so E1
    // only selects them.
    logic [15:0] c1_len_q, c2_len_q;
    logic        c1_bad_q, c2_bad_q, c1_over_q, c2_over_q;
    logic        c2_ge14_q, c2_ge18_q, c2_ge34_q, c2_ge38_q;
    logic [11:0] c2_gep_q;

    always_ff @(posedge clk) begin
        c1_len_q  <= s_len;
        c1_bad_q  <= s_bad;
        c1_over_q <= s_oversize;
        c2_len_q  <= c1_len_q;
        c2_bad_q  <= c1_bad_q;
        c2_over_q <= c1_over_q;
        c2_ge14_q <= c1_len_q >= 16'd14;
        c2_ge18_q <= c1_len_q >= 16'd18;
        c2_ge34_q <= c1_len_q >= 16'd34;
        c2_ge38_q <= c1_len_q >= 16'd38;
        for (int k = 0; k < 12; k++) c2_gep_q[k] <= c1_len_q >= 16'(38 + 4 * k);
    end

    function automatic logic [7:0] hb(input int i);
        hb = hdr_q[8*i +: 8];
    endfunction

    // ---- the flow hash's matrix (E2, E4) -----------------------------------------------------
    // CRC-32C is affine in its input: hash(x) = hash(0) ^ the XOR of hash(e_i) ^ hash(0) over
    // the set bits i of x, so each hash bit is one balanced XOR tree over the bits its mask
    // selects (a few LUT levels), not a byte-serial chain; and the tree may be split by
    // bytes across stages (E2: src, dst, protocol; E4: the ports).
    function automatic logic [31:0] flow_crc(input logic [FLOW_BITS-1:0] flow);
        logic [31:0] crc;
        crc = 32'hFFFF_FFFF;
        for (int i = 0; i < 13; i++) crc = crc32c_byte(crc, flow[8*i +: 8]);
        flow_crc = ~crc;
    endfunction

    function automatic logic [31:0][FLOW_BITS-1:0] flow_crc_masks();
        logic [31:0] c0, ci;
        logic [31:0][FLOW_BITS-1:0] m;
        c0 = flow_crc('0);
        m  = '0;
        for (int i = 0; i < FLOW_BITS; i++) begin
            ci = flow_crc(FLOW_BITS'(1) << i) ^ c0;
            for (int b = 0; b < 32; b++) m[b][i] = ci[b];
        end
        flow_crc_masks = m;
    endfunction

    localparam logic [31:0]                FLOW_CRC_0    = flow_crc('0);
    localparam logic [31:0][FLOW_BITS-1:0] FLOW_CRC_MASK = flow_crc_masks();

    // ---- the key --------------------------------------------------------------------------
    // Every frame is looked up in H (the answer lands in H+LOOKUP_LATENCY, with E5's results
    // held as long). The key is captured already selected by the tag, by beat position beside
    // the window, from the registered beat that hdr_capture writes into it, so the table's
    // hash reads registers only (no select by the tag, a wide fanout, in front of it): the VLAN
    // ID (zero untagged) from bytes 14..15, in the tag's beat; the inner destination address
    // from 30..33, overwritten from 34..37 when the frame is tagged. The tag is the compare of
    // bytes 12..13 where they share the byte's beat (a data select: no compare of the beat
    // reaches a capture enable), else kv_vlan_q, the frame's tag captured from an earlier beat.
    // A frame too short for a byte keeps an older frame's: such a frame is not IPv4, and its
    // answer is not used.
    localparam int KB_TAG = 12 / KEEP_W;      // the beat of bytes 12..15

    function automatic logic [7:0] bb(input int i);   // byte i, where the beat holds it
        bb = beat_tdata[8 * (i % KEEP_W) +: 8];
    endfunction

    logic        kv_vlan_q;
    logic        kb_vlan;       // the tag, in its beat
    logic [11:0] kv_vid_q;      // data: the key's VLAN ID
    logic [31:0] kv_dip_q;      // data: the key's address, byte 0 high

    assign kb_vlan = {bb(12), bb(13)} == ET_VLAN;

    always_ff @(posedge clk) begin
        if (beat_wen[KB_TAG]) begin
            kv_vlan_q <= kb_vlan;
            kv_vid_q  <= kb_vlan ? {bb(14)[3:0], bb(15)} : 12'd0;
        end
    end

    for (genvar j = 0; j < 4; j++) begin : g_kdip
        localparam int B30 = (30 + j) / KEEP_W;   // the beat of the untagged frame's byte
        localparam int B34 = (34 + j) / KEEP_W;   // the beat of the tagged frame's byte
        if (B34 == KB_TAG) begin : g_tag_beat
            // (512 bits) all in the tag's beat: the tag selects the byte
            always_ff @(posedge clk) begin
                if (beat_wen[B34]) kv_dip_q[8*(3-j) +: 8] <= kb_vlan ? bb(34 + j) : bb(30 + j);
            end
        end else if (B30 == B34) begin : g_one_beat
            always_ff @(posedge clk) begin
                if (beat_wen[B34]) kv_dip_q[8*(3-j) +: 8] <= kv_vlan_q ? bb(34 + j) : bb(30 + j);
            end
        end else begin : g_two_beats
            // the untagged byte first; a tagged frame's later beat writes over it
            always_ff @(posedge clk) begin
                if (beat_wen[B30])                   kv_dip_q[8*(3-j) +: 8] <= bb(30 + j);
                else if (beat_wen[B34] && kv_vlan_q) kv_dip_q[8*(3-j) +: 8] <= bb(34 + j);
            end
        end
    end

    assign lk_valid = hdr_valid;
    assign lk_key   = {kv_vlan_q, kv_vid_q, kv_dip_q};

    // ---- E1: the tag, the IPv4 header after it, "ends before" flags -------------------------
    logic                    e1_valid_q, e1_vlan_q, e1_et_ok_q, e1_bad_q, e1_over_q;
    logic [20*8-1:0]         e1_ip_q;         // the IPv4 fixed header, byte 0 low
    logic [PW_BYTES*8-1:0]   e1_pw_q;         // bytes PW_OFF .. NEED-1
    logic [12*8-1:0]         e1_macs_q;       // inner dst, src
    logic [15:0]             e1_len_q;
    logic                    e1_ge14_q, e1_ge18_q, e1_ge34_q, e1_ge38_q;
    logic [11:0]             e1_gep_q;        // bit k: the frame holds 38 + 4k bytes
    logic                    e1_l4p_q;        // TCP or UDP, not a fragment: ports hashed

    // Ports hashed (step 4): TCP or UDP, not a fragment (MF = 0, offset 0), judged at both
    // places the IPv4 header may start (14, 18) and selected by the tag.
    function automatic logic l4p_at(input int e);
        l4p_at = (hb(e + 9) == IPPROTO_TCP || hb(e + 9) == IPPROTO_UDP)
                 && !hb(e + 6)[5] && {hb(e + 6)[4:0], hb(e + 7)} == 13'd0;
    endfunction

    always_ff @(posedge clk) begin
        logic vlan;
        e1_valid_q <= hdr_valid;
        if (hdr_valid) begin
            vlan = kv_vlan_q;   // bytes 12..13 of the window, compared at their capture
            e1_l4p_q   <= vlan ? l4p_at(18) : l4p_at(14);
            e1_vlan_q  <= vlan;
            e1_et_ok_q <= (vlan ? {hb(16), hb(17)} : {hb(12), hb(13)}) == ET_IPV4;
            e1_ip_q    <= vlan ? hdr_q[18*8 +: 20*8] : hdr_q[14*8 +: 20*8];
            e1_pw_q    <= hdr_q[PW_OFF*8 +: PW_BYTES*8];
            e1_macs_q  <= hdr_q[0 +: 12*8];
            e1_len_q   <= c2_len_q;
            e1_bad_q   <= c2_bad_q;
            e1_over_q  <= c2_over_q;
            e1_ge14_q  <= c2_ge14_q;
            e1_ge18_q  <= c2_ge18_q;
            e1_ge34_q  <= c2_ge34_q;
            e1_ge38_q  <= c2_ge38_q;
            e1_gep_q   <= c2_gep_q;
        end
        if (rst) e1_valid_q <= 1'b0;
    end

    function automatic logic [7:0] ipb(input int i);
        ipb = e1_ip_q[8*i +: 8];
    endfunction

    // ---- E2: IPv4 or not; the ports' place; the lengths written -----------------------------
    logic                    e2_valid_q, e2_ipv4_q, e2_vlan_q, e2_bad_q, e2_over_q;
    logic [11:0]             e2_u_q;          // one-hot: the ports at PW_OFF + 4u, hashed
    logic [1:0]              e2_ecn_q;
    // the hash's part from src, dst, protocol, in partial XORs of SDP_GRP bits each
    logic [SDP_PARTS-1:0][13:0] e2_sdp_p_q;
    logic [PW_BYTES*8-1:0]   e2_pw_q;
    logic [12*8-1:0]         e2_macs_q;
    logic [15:0]             e2_len_q, e2_ip_len_q, e2_udp_len_q;
    logic [LEN_W-1:0]        e2_enc_len_q;    // the encapsulated frame

    always_ff @(posedge clk) begin
        logic [3:0]           ihl;
        logic [7:0]           proto;
        logic [FLOW_BITS-1:0] sdp;
        e2_valid_q <= e1_valid_q;
        if (e1_valid_q) begin
            ihl   = ipb(0)[3:0];
            proto = ipb(9);
            // step 1: a complete IPv4 header after the tag, if any
            e2_ipv4_q <= e1_ge14_q && (!e1_vlan_q || e1_ge18_q) && e1_et_ok_q
                         && (e1_vlan_q ? e1_ge38_q : e1_ge34_q)
                         && ipb(0)[7:4] == 4'd4 && ihl >= 4'd5;
            // step 4: ports hashed (E1's l4p) inside the frame; u = tag + IHL - 5 (at least 5
            // words: else not IPv4, the hash unused)
            for (int k = 0; k < 12; k++)
                e2_u_q[k] <= e1_l4p_q && e1_gep_q[k] && 4'(e1_vlan_q) + ihl - 4'd5 == 4'(k);
            e2_ecn_q  <= ipb(1)[1:0];
            // the hash is affine in the flow bits: the part of src, dst and protocol (flow
            // bytes 0..8) here as partial XORs (two LUT levels each), added up in E3; the
            // ports' part and the constant in E4
            sdp = FLOW_BITS'({proto, e1_ip_q[12*8 +: 8*8]});
            for (int g = 0; g < SDP_PARTS; g++)
                for (int b = 0; b < 14; b++)
                    e2_sdp_p_q[g][b] <= ^(sdp[g*SDP_GRP +: SDP_GRP]
                                          & FLOW_CRC_MASK[b][g*SDP_GRP +: SDP_GRP]);
            e2_pw_q   <= e1_pw_q;
            e2_macs_q <= e1_macs_q;
            e2_vlan_q <= e1_vlan_q;
            e2_bad_q  <= e1_bad_q;
            e2_over_q <= e1_over_q;
            e2_len_q  <= e1_len_q;
            // the inner frame loses its 4-byte tag when it selected the tunnel
            e2_ip_len_q  <= e1_len_q + (e1_vlan_q ? 16'd32 : 16'd36);
            e2_udp_len_q <= e1_len_q + (e1_vlan_q ? 16'd12 : 16'd16);
            e2_enc_len_q <= LEN_W'(e1_len_q) + (e1_vlan_q ? LEN_W'(46) : LEN_W'(50));
        end
        if (rst) e2_valid_q <= 1'b0;
    end

    // ---- E3: the ports selected; the hash's partial XORs added -------------------------------
    logic                    e3_valid_q, e3_ipv4_q, e3_vlan_q, e3_bad_q, e3_over_q;
    logic [1:0]              e3_ecn_q;
    logic [31:0]             e3_ports_q;      // sport dport, byte 0 low (flow bytes 9..12)
    logic [13:0]             e3_sdp_h_q;
    logic [12*8-1:0]         e3_macs_q;
    logic [15:0]             e3_len_q, e3_ip_len_q, e3_udp_len_q;
    logic [LEN_W-1:0]        e3_enc_len_q;

    always_ff @(posedge clk) begin
        logic [31:0] ports;
        logic [13:0] sdp_h;
        e3_valid_q <= e2_valid_q;
        if (e2_valid_q) begin
            // an AND-OR select by the one-hot (none set: ports 0), not a priority chain
            ports = '0;
            for (int k = 0; k < 12; k++) ports = ports | ({32{e2_u_q[k]}} & e2_pw_q[32*k +: 32]);
            e3_ports_q   <= ports;
            sdp_h = '0;
            for (int g = 0; g < SDP_PARTS; g++) sdp_h = sdp_h ^ e2_sdp_p_q[g];
            e3_sdp_h_q   <= sdp_h;
            e3_ipv4_q    <= e2_ipv4_q;
            e3_ecn_q     <= e2_ecn_q;
            e3_macs_q    <= e2_macs_q;
            e3_vlan_q    <= e2_vlan_q;
            e3_bad_q     <= e2_bad_q;
            e3_over_q    <= e2_over_q;
            e3_len_q     <= e2_len_q;
            e3_ip_len_q  <= e2_ip_len_q;
            e3_udp_len_q <= e2_udp_len_q;
            e3_enc_len_q <= e2_enc_len_q;
        end
        if (rst) e3_valid_q <= 1'b0;
    end

    // ---- E4: the flow hash -------------------------------------------------------------------
    // The ports' part XORed onto the part E2 made of the other bytes, and the constant.
    logic                    e4_valid_q, e4_ipv4_q, e4_vlan_q, e4_bad_q, e4_over_q;
    logic [13:0]             e4_hash_q;       // the bits the source port takes
    logic [1:0]              e4_ecn_q;
    logic [12*8-1:0]         e4_macs_q;
    logic [15:0]             e4_len_q, e4_ip_len_q, e4_udp_len_q;
    logic [LEN_W-1:0]        e4_enc_len_q;

    always_ff @(posedge clk) begin
        e4_valid_q <= e3_valid_q;
        if (e3_valid_q) begin
            for (int b = 0; b < 14; b++)
                e4_hash_q[b] <= FLOW_CRC_0[b] ^ e3_sdp_h_q[b]
                                ^ (^(e3_ports_q & FLOW_CRC_MASK[b][9*8 +: 32]));
            e4_ipv4_q    <= e3_ipv4_q;
            e4_ecn_q     <= e3_ecn_q;
            e4_macs_q    <= e3_macs_q;
            e4_vlan_q    <= e3_vlan_q;
            e4_bad_q     <= e3_bad_q;
            e4_over_q    <= e3_over_q;
            e4_len_q     <= e3_len_q;
            e4_ip_len_q  <= e3_ip_len_q;
            e4_udp_len_q <= e3_udp_len_q;
            e4_enc_len_q <= e3_enc_len_q;
        end
        if (rst) e4_valid_q <= 1'b0;
    end

    // ---- E5: the checksum's table-free words; the source port -------------------------------
    logic                    e5_valid_q, e5_ipv4_q, e5_vlan_q, e5_bad_q, e5_over_q;
    logic [16:0]             e5_csum_part_q;  // {45, ECN} + length + {00, 17}
    logic [15:0]             e5_sport_q;
    logic [1:0]              e5_ecn_q;
    logic [12*8-1:0]         e5_macs_q;
    logic [15:0]             e5_len_q, e5_ip_len_q, e5_udp_len_q;
    logic [LEN_W-1:0]        e5_enc_len_q;

    always_ff @(posedge clk) begin
        e5_valid_q <= e4_valid_q;
        if (e4_valid_q) begin
            // (the DSCP and TTL bits of the same words come from the table: F1)
            e5_csum_part_q <= 17'(e4_ip_len_q) + 17'({8'h45, 6'd0, e4_ecn_q})
                            + 17'({8'h00, IPPROTO_UDP});
            e5_sport_q     <= {2'b11, e4_hash_q};
            e5_ipv4_q      <= e4_ipv4_q;
            e5_ecn_q       <= e4_ecn_q;
            e5_macs_q      <= e4_macs_q;
            e5_vlan_q      <= e4_vlan_q;
            e5_bad_q       <= e4_bad_q;
            e5_over_q      <= e4_over_q;
            e5_len_q       <= e4_len_q;
            e5_ip_len_q    <= e4_ip_len_q;
            e5_udp_len_q   <= e4_udp_len_q;
            e5_enc_len_q   <= e4_enc_len_q;
        end
        if (rst) e5_valid_q <= 1'b0;
    end

    // ---- E6 ..: E5's results held while the table answers ----------------------------------
    localparam int HOLD = LOOKUP_LATENCY - 5;

    typedef struct packed {
        logic             ipv4, vlan, bad, over;
        logic [16:0]      csum_part;
        logic [15:0]      sport;
        logic [1:0]       ecn;
        logic [12*8-1:0]  macs;
        logic [15:0]      len, ip_len, udp_len;
        logic [LEN_W-1:0] enc_len;
    } e_res_t;

    e_res_t          e5_res;
    e_res_t          hold_q [HOLD];   // data: loaded under its stage's valid
    logic [HOLD-1:0] hold_v_q;
    e_res_t          eh;              // the last hold stage: what F1 takes
    logic            eh_valid;

    assign e5_res = '{ipv4: e5_ipv4_q, vlan: e5_vlan_q, bad: e5_bad_q, over: e5_over_q,
                      csum_part: e5_csum_part_q, sport: e5_sport_q, ecn: e5_ecn_q,
                      macs: e5_macs_q, len: e5_len_q, ip_len: e5_ip_len_q,
                      udp_len: e5_udp_len_q, enc_len: e5_enc_len_q};

    always_ff @(posedge clk) begin
        hold_v_q[0] <= e5_valid_q;
        if (e5_valid_q) hold_q[0] <= e5_res;
        for (int k = 1; k < HOLD; k++) begin
            hold_v_q[k] <= hold_v_q[k-1];
            if (hold_v_q[k-1]) hold_q[k] <= hold_q[k-1];
        end
        if (rst) hold_v_q <= '0;
    end

    assign eh       = hold_q[HOLD-1];
    assign eh_valid = hold_v_q[HOLD-1];

    // ---- F1: the table's answer --------------------------------------------------------------
    logic [23:0] t_vni;
    logic [47:0] t_dmac, t_smac;
    logic [31:0] t_sip, t_dip;
    logic [15:0] t_dport;
    logic [7:0]  t_ttl;
    logic [5:0]  t_dscp;
    assign {t_dscp, t_ttl, t_dport, t_dip, t_sip, t_smac, t_dmac, t_vni} = rs_value;

    outcome_e f1_outcome;
    always_comb begin
        if (eh.over)                  f1_outcome = OUT_DROP_OVERSIZE;
        else if (eh.bad)              f1_outcome = OUT_DROP_RX_ERROR;
        else if (!eh.ipv4)            f1_outcome = OUT_PASS_NOT_IPV4;
        else if (rs_hit)                f1_outcome = OUT_ENCAP;
        else if (ctrl_drop_miss)        f1_outcome = OUT_DROP_MISS;
        else                            f1_outcome = OUT_PASS_MISS;
    end

    logic                    f1_valid_q, f1_drop_q, f1_encap_q, f1_vlan_q;
    outcome_e                f1_outcome_q;
    logic [17:0]             f1_s0_q, f1_s1_q, f1_s2_q;   // the checksum's pair sums
    logic [LEN_W-1:0]        f1_out_len_q;
    logic [15:0]             f1_len_q, f1_ip_len_q, f1_udp_len_q, f1_sport_q, f1_dport_q;
    logic [7:0]              f1_tos_q, f1_ttl_q;
    logic [47:0]             f1_dmac_q, f1_smac_q;
    logic [31:0]             f1_sip_q, f1_dip_q;
    logic [23:0]             f1_vni_q;
    logic [12*8-1:0]         f1_macs_q;

    always_ff @(posedge clk) begin
        logic encap;
        f1_valid_q <= eh_valid;
        if (eh_valid) begin
            encap = f1_outcome == OUT_ENCAP;
            f1_outcome_q <= f1_outcome;
            f1_encap_q   <= encap;
            f1_drop_q    <= !(encap || f1_outcome == OUT_PASS_MISS
                              || f1_outcome == OUT_PASS_NOT_IPV4);
            f1_vlan_q    <= eh.vlan;
            f1_out_len_q <= encap ? eh.enc_len : LEN_W'(eh.len);
            // {TTL, 17} and {45, DSCP ECN}: the DSCP and TTL bits do not overlap the rest
            f1_s0_q      <= 18'(eh.csum_part) + 18'({t_ttl, t_dscp, 2'b00});
            f1_s1_q      <= 18'(t_sip[31:16]) + 18'(t_sip[15:0]);
            f1_s2_q      <= 18'(t_dip[31:16]) + 18'(t_dip[15:0]);
            f1_len_q     <= eh.len;
            f1_ip_len_q  <= eh.ip_len;
            f1_udp_len_q <= eh.udp_len;
            f1_sport_q   <= eh.sport;
            f1_dport_q   <= t_dport;
            f1_tos_q     <= {t_dscp, eh.ecn};
            f1_ttl_q     <= t_ttl;
            f1_dmac_q    <= t_dmac;
            f1_smac_q    <= t_smac;
            f1_sip_q     <= t_sip;
            f1_dip_q     <= t_dip;
            f1_vni_q     <= t_vni;
            f1_macs_q    <= eh.macs;
        end
        if (rst) f1_valid_q <= 1'b0;
    end

    // ---- F2: the checksum's words added ------------------------------------------------------
    logic                    f2_valid_q, f2_drop_q, f2_encap_q, f2_vlan_q;
    outcome_e                f2_outcome_q;
    logic [19:0]             f2_sum_q;
    logic [LEN_W-1:0]        f2_out_len_q;
    logic [15:0]             f2_len_q, f2_ip_len_q, f2_udp_len_q, f2_sport_q, f2_dport_q;
    logic [7:0]              f2_tos_q, f2_ttl_q;
    logic [47:0]             f2_dmac_q, f2_smac_q;
    logic [31:0]             f2_sip_q, f2_dip_q;
    logic [23:0]             f2_vni_q;
    logic [12*8-1:0]         f2_macs_q;

    always_ff @(posedge clk) begin
        f2_valid_q <= f1_valid_q;
        if (f1_valid_q) begin
            f2_sum_q     <= 20'(f1_s0_q) + 20'(f1_s1_q) + 20'(f1_s2_q);
            f2_outcome_q <= f1_outcome_q;
            f2_encap_q   <= f1_encap_q;
            f2_drop_q    <= f1_drop_q;
            f2_vlan_q    <= f1_vlan_q;
            f2_out_len_q <= f1_out_len_q;
            f2_len_q     <= f1_len_q;
            f2_ip_len_q  <= f1_ip_len_q;
            f2_udp_len_q <= f1_udp_len_q;
            f2_sport_q   <= f1_sport_q;
            f2_dport_q   <= f1_dport_q;
            f2_tos_q     <= f1_tos_q;
            f2_ttl_q     <= f1_ttl_q;
            f2_dmac_q    <= f1_dmac_q;
            f2_smac_q    <= f1_smac_q;
            f2_sip_q     <= f1_sip_q;
            f2_dip_q     <= f1_dip_q;
            f2_vni_q     <= f1_vni_q;
            f2_macs_q    <= f1_macs_q;
        end
        if (rst) f2_valid_q <= 1'b0;
    end

    // ---- F3: the checksum folded; the head; the descriptor ---------------------------------
    logic [15:0]           f3_csum;
    logic [HEAD_BYTES-1:0][7:0] f3_head;
    always_comb begin
        f3_csum = ~oc_fold(32'(f2_sum_q));
        f3_head = '0;
        for (int i = 0; i < 6; i++) begin
            f3_head[i]     = f2_dmac_q[8*(5-i) +: 8];
            f3_head[6 + i] = f2_smac_q[8*(5-i) +: 8];
        end
        f3_head[12] = 8'h08;             f3_head[13] = 8'h00;
        f3_head[14] = 8'h45;             f3_head[15] = f2_tos_q;
        f3_head[16] = f2_ip_len_q[15:8]; f3_head[17] = f2_ip_len_q[7:0];
        f3_head[22] = f2_ttl_q;          f3_head[23] = IPPROTO_UDP;
        f3_head[24] = f3_csum[15:8];     f3_head[25] = f3_csum[7:0];
        for (int i = 0; i < 4; i++) begin
            f3_head[26 + i] = f2_sip_q[8*(3-i) +: 8];
            f3_head[30 + i] = f2_dip_q[8*(3-i) +: 8];
        end
        f3_head[34] = f2_sport_q[15:8];  f3_head[35] = f2_sport_q[7:0];
        f3_head[36] = f2_dport_q[15:8];  f3_head[37] = f2_dport_q[7:0];
        f3_head[38] = f2_udp_len_q[15:8]; f3_head[39] = f2_udp_len_q[7:0];
        f3_head[42] = 8'h08;
        f3_head[46] = f2_vni_q[23:16];   f3_head[47] = f2_vni_q[15:8];
        f3_head[48] = f2_vni_q[7:0];
        // the inner MAC addresses, moved up over the removed tag's place
        for (int i = 0; i < 12; i++) f3_head[50 + i] = f2_macs_q[8*i +: 8];
    end

    always_ff @(posedge clk) begin
        logic strip;
        desc_valid <= f2_valid_q;
        stat_valid <= f2_valid_q;
        if (f2_valid_q) begin
            strip = f2_encap_q && f2_vlan_q;
            desc_drop    <= f2_drop_q;
            desc_shift   <= !f2_encap_q ? '0 : strip ? -(LEN_W+1)'(46) : -(LEN_W+1)'(50);
            desc_head    <= f3_head;
            desc_head_en <= !f2_encap_q ? '0
                          : strip ? HEAD_BYTES'({62{1'b1}}) : HEAD_BYTES'({50{1'b1}});
            desc_out_len <= f2_out_len_q;
            stat_outcome <= f2_outcome_q;
            stat_emit    <= !f2_drop_q;
            stat_len     <= f2_len_q;
        end
        if (rst) begin
            desc_valid <= 1'b0;
            stat_valid <= 1'b0;
        end
    end

    logic unused_rs;   // the answer's strobe: checked against the last hold stage in simulation
    assign unused_rs = rs_valid;

`ifndef SYNTHESIS
    always_ff @(posedge clk) begin
        if (!rst && rs_valid != eh_valid) begin
            $error("vxlan_encap_classify: the tunnel table's answer is not aligned with E5's hold");
        end
    end
`endif

endmodule

`default_nettype wire
