// SPDX-License-Identifier: Apache-2.0
//
// encap_classify — for each frame coming from the host, finds its tunnel and builds the outer
// headers (docs/vxlan.md, "Encap"). It watches the stream leaving a store-and-forward FIFO,
// which gives every frame's length from its first beat, so the lengths and the outer IPv4
// checksum are known before the frame's first byte goes out.
//
// Host frame parsed:
//
//   0        6        12      14      16     L3 (14 or 18)
//   | dst    | src    | 8100? | TCI   | type | IPv4: ver/ihl TOS len id frag TTL proto csum src dst | ports
//
// Outer headers built on a tunnel hit (50 bytes, then the inner MAC addresses when the 802.1Q
// tag that selected the tunnel is removed):
//
//   0  dst MAC | 6 src MAC | 12 0800 | 14 45 TOS len 0000 0000 TTL 11 csum src dst
//   34 sport dport len 0000 | 42 08 000000 VNI 00 | 50 inner frame (its tag removed)
//
// Timing. The decision cycle reads the header window through offset-dependent byte
// multiplexers (L3 after an optional tag, L4 after the IHL): it only selects bytes. The flow
// hash (CRC-32C of 13 selected bytes, the UDP source port) is computed from them one stage
// later, while the tunnel lookup is in flight, so it adds no cycle to the descriptor; it is
// an XOR matrix (one balanced XOR tree per hash bit), not a byte-serial CRC.

`default_nettype none

module encap_classify
    import parse_pkg::*;
#(
    // Width of the data bus in bits: 64, 128, 256 or 512.
    parameter int DATA_W = 256,
    // Bytes per beat.
    parameter int KEEP_W = DATA_W / 8,
    // Cycles from lk_valid to rs_valid of the tunnel table.
    parameter int LOOKUP_LATENCY = 3,
    // Bytes the splice engine can insert.
    parameter int INS_MAX = 64,
    // Width of the output length field.
    parameter int LEN_W = 17
) (
    input  wire logic                 clk,
    input  wire logic                 rst,

    // The stream leaving the frame FIFO, observed, with the frame's length and bad flag.
    input  wire logic [DATA_W-1:0]    s_tdata,
    input  wire logic [KEEP_W-1:0]    s_tkeep,
    input  wire logic                 s_hs,
    input  wire logic                 s_tlast,
    input  wire logic [15:0]          s_len,
    input  wire logic                 s_bad,
    input  wire logic                 s_oversize,

    input  wire logic                 ctrl_drop_miss,

    // Tunnel table: key {vlan_valid, vid, inner dst IPv4}; value per docs/vxlan.md.
    output      logic                 lk_valid,
    output      logic [44:0]          lk_key,
    input  wire logic                 rs_valid,
    input  wire logic                 rs_hit,
    input  wire logic [213:0]         rs_value,

    output      logic                 desc_valid,
    output      logic                 desc_drop,
    output      logic [7:0]           desc_ins_len,
    output      logic [INS_MAX*8-1:0] desc_ins_data,
    output      logic [7:0]           desc_seg2_off,
    output      logic                 desc_len_valid,
    output      logic [LEN_W-1:0]     desc_out_len,

    output      logic                 stat_valid,
    output      logic [3:0]           stat_outcome,
    output      logic                 stat_emit,
    output      logic [15:0]          stat_len
);

    localparam int HDR_BYTES = 128;
    localparam int POS_W     = 24;
    localparam logic [3:0] O_ENCAP = 4'd0, O_PASS_MISS = 4'd1, O_PASS_NOT_IPV4 = 4'd2,
                           O_DROP_MISS = 4'd3, O_RX_ERROR = 4'd4, O_OVERSIZE = 4'd5;

    if (DATA_W != 64 && DATA_W != 128 && DATA_W != 256 && DATA_W != 512) begin : g_param_check_1
        $error("encap_classify: DATA_W must be 64, 128, 256 or 512");
    end
    if (INS_MAX < 62) begin : g_param_check_2
        $error("encap_classify: INS_MAX must hold 50 header bytes and 12 MAC bytes");
    end
    if (LOOKUP_LATENCY < 2) begin : g_param_check_3
        $error("encap_classify: LOOKUP_LATENCY must be >= 2 (the flow hash takes a stage of it)");
    end

    // ------------------------------------------------------------------ header bytes
    logic [7:0]       view [HDR_BYTES];
    logic [POS_W-1:0] have;
    logic [15:0]      sum_unused;
    logic [$clog2(KEEP_W):0] beat_len_unused;   // the decision reads `have` only
    logic             decided;
    wire              ended = s_tlast;

    hdr_window #(
        .DATA_W(DATA_W),
        .HDR_BYTES(HDR_BYTES),
        .POS_W(POS_W),
        .HEAD_MAX(2)
    ) window (
        .clk, .rst,
        .s_tdata, .s_tkeep, .s_hs, .s_tlast,
        .view, .have, .beat_len(beat_len_unused),
        .region_known(1'b0), .region_decide(1'b0), .region_start(7'd0), .region_end(17'd0),
        .region_sum(sum_unused)
    );

    function automatic logic [15:0] w16(input logic [6:0] at);
        w16 = {view[at], view[at + 7'd1]};
    endfunction

    // ------------------------------------------------------------------ the decision
    logic        c_done, c_ipv4, c_vlan;
    logic [11:0] c_vid;
    logic [31:0] c_dst;
    logic [12:0][7:0] c_flow;       // the hashed bytes: src, dst, protocol, ports (or zeros)
    logic [1:0]  c_ecn;

    always_comb begin : decide
        logic [6:0]  l3, l4;
        logic [15:0] et;
        logic [3:0]  ihl;
        logic        ports, frag;
        logic [7:0]  proto;

        c_done = 1'b0; c_ipv4 = 1'b0;
        c_vlan = (w16(7'd12) == 16'h8100);
        c_vid  = c_vlan ? w16(7'd14)[11:0] : 12'd0;
        l3     = c_vlan ? 7'd18 : 7'd14;
        et     = c_vlan ? w16(7'd16) : w16(7'd12);
        ihl    = view[l3][3:0];
        l4     = l3 + 7'({ihl, 2'b00});
        proto  = view[l3 + 7'd9];
        frag   = view[l3 + 7'd6][5] || {view[l3 + 7'd6][4:0], view[l3 + 7'd7]} != 13'd0;
        ports  = (proto == 8'd6 || proto == 8'd17) && !frag && {9'd0, l4} + 16'd4 <= s_len;
        c_dst  = {view[l3 + 7'd16], view[l3 + 7'd17], view[l3 + 7'd18], view[l3 + 7'd19]};
        c_ecn  = view[l3 + 7'd1][1:0];

        if (have < 14 || (c_vlan && have < 18)) begin
            c_done = ended;
        end else if (et != 16'h0800) begin
            c_done = 1'b1;
        end else if (have < POS_W'(l3) + 20) begin
            c_done = ended;
        end else if (view[l3][7:4] != 4'd4 || ihl < 4'd5) begin
            c_done = 1'b1;
        end else if (ports && have < POS_W'(l4) + 4) begin
            c_done = ended;
        end else begin
            c_done = 1'b1; c_ipv4 = 1'b1;
        end

        // flow_hash = CRC-32C of src, dst, protocol, source port, destination port (the
        // CRC itself is the next stage's).
        for (int i = 0; i < 8; i++) c_flow[i] = view[l3 + 7'd12 + 7'(i)];
        c_flow[8] = proto;
        for (int i = 0; i < 4; i++) c_flow[9 + i] = ports ? view[l4 + 7'(i)] : 8'h00;
    end

    wire decide_now = s_hs && !decided && c_done;

    // ------------------------------------------------------------------ lookup pipeline
    // The lengths written into the outer headers (of an inner frame of `inner` bytes), for
    // the frame as it is and with its 802.1Q tag removed (which one applies is known once the
    // table answers): computed beside the lookup, so the last stage only selects.
    typedef struct packed {
        logic [15:0]      ip;       // outer IPv4 total length: inner + 36
        logic [15:0]      udp;      // UDP length: inner + 16
        logic [LEN_W-1:0] out;      // the encapsulated frame: inner + 50
    } lens_t;

    function automatic lens_t lens_of(input logic [15:0] inner);
        lens_of = '{ip: inner + 16'd36, udp: inner + 16'd16,
                    out: LEN_W'(inner) + LEN_W'(50)};
    endfunction

    typedef struct packed {
        logic        ipv4;
        logic        bad;
        logic        oversize;
        logic        vlan;
        logic [15:0] len;
        logic [12:0][7:0] flow;     // decision cycle: the hashed bytes
        logic [31:0] hash;          // from stage 1 on: their CRC-32C
        lens_t       lens_keep;     // from stage 1 on: the frame's lengths, tag kept
        lens_t       lens_strip;    // and with its tag removed
        logic [1:0]  ecn;
        logic [95:0] macs;          // inner destination and source MAC, byte 0 first (low)
    } decision_t;

    decision_t pipe [LOOKUP_LATENCY];
    logic      pipe_v [LOOKUP_LATENCY];
    decision_t dec_in, dec, hashed;

    always_comb begin
        dec_in.ipv4     = c_ipv4;
        dec_in.bad      = s_bad;
        dec_in.oversize = s_oversize;
        dec_in.vlan     = c_vlan;
        dec_in.len      = s_len;
        dec_in.flow     = c_flow;
        dec_in.hash     = '0;
        dec_in.lens_keep  = '0;
        dec_in.lens_strip = '0;
        dec_in.ecn      = c_ecn;
        for (int i = 0; i < 12; i++) dec_in.macs[8*i +: 8] = view[i];
        lk_valid = decide_now;
        lk_key   = {c_vlan, c_vid, c_dst};
        dec      = pipe[LOOKUP_LATENCY-1];
    end

    // The flow hash as an XOR matrix. CRC-32C is affine in its input: hash(x) = hash(0) ^ the
    // XOR of hash(e_i) ^ hash(0) over the set bits i of x. Written byte by byte (crc32c_byte)
    // it maps to a chain of ~30 logic levels; as one XOR reduction per hash bit over the
    // flow bits its mask selects, it maps to a balanced tree (4 levels of LUT4).
    localparam int FLOW_BITS = 13 * 8;

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
        m = '0;
        for (int i = 0; i < FLOW_BITS; i++) begin
            ci = flow_crc(FLOW_BITS'(1) << i) ^ c0;
            for (int b = 0; b < 32; b++) m[b][i] = ci[b];
        end
        flow_crc_masks = m;
    endfunction

    localparam logic [31:0]                 FLOW_CRC_0    = flow_crc('0);
    localparam logic [31:0][FLOW_BITS-1:0] FLOW_CRC_MASK = flow_crc_masks();

    always_comb begin : flow_hash
        hashed = pipe[0];
        hashed.lens_keep  = lens_of(pipe[0].len);
        hashed.lens_strip = lens_of(pipe[0].len - 16'd4);
        for (int b = 0; b < 32; b++)
            hashed.hash[b] = FLOW_CRC_0[b] ^ (^(pipe[0].flow & FLOW_CRC_MASK[b]));
    end

    // Later stages carry the hashed bytes only for uniformity; synthesis trims them.
    logic unused_flow;
    assign unused_flow = ^dec.flow;

    // ------------------------------------------------------------------ outer headers
    logic [3:0]   fin_outcome;
    logic         hit;
    lens_t        lens;
    logic [15:0]  sport, csum;
    logic [7:0]   tos;
    logic [7:0]   hb [62];

    always_comb begin
        logic [23:0] vni;
        logic [47:0] dmac, smac;
        logic [31:0] sip, dip;
        logic [15:0] dport;
        logic [7:0]  ttl;
        logic [5:0]  dscp;
        logic [63:0][15:0] hw;
        {dscp, ttl, dport, dip, sip, smac, dmac, vni} = rs_value;

        hit = dec.ipv4 && rs_hit;
        if (dec.oversize)    fin_outcome = O_OVERSIZE;
        else if (dec.bad)    fin_outcome = O_RX_ERROR;
        else if (!dec.ipv4)  fin_outcome = O_PASS_NOT_IPV4;
        else if (hit)        fin_outcome = O_ENCAP;
        else                 fin_outcome = ctrl_drop_miss ? O_DROP_MISS : O_PASS_MISS;

        lens      = (dec.vlan && hit) ? dec.lens_strip : dec.lens_keep;
        sport     = {2'b11, dec.hash[13:0]};
        tos       = {dscp, dec.ecn};
        // The outer header checksum: its seven non-zero words through an adder tree.
        hw = '0;
        hw[0] = {8'h45, tos}; hw[1] = lens.ip; hw[2] = {ttl, 8'd17};
        hw[3] = sip[31:16]; hw[4] = sip[15:0]; hw[5] = dip[31:16]; hw[6] = dip[15:0];
        csum = ~oc_fold(word_sum(hw));

        for (int i = 0; i < 6; i++) begin
            hb[i]     = dmac[8*(5-i) +: 8];
            hb[6 + i] = smac[8*(5-i) +: 8];
        end
        hb[12] = 8'h08; hb[13] = 8'h00;
        hb[14] = 8'h45; hb[15] = tos; hb[16] = lens.ip[15:8]; hb[17] = lens.ip[7:0];
        hb[18] = 8'h00; hb[19] = 8'h00; hb[20] = 8'h00; hb[21] = 8'h00;
        hb[22] = ttl;   hb[23] = 8'd17; hb[24] = csum[15:8]; hb[25] = csum[7:0];
        for (int i = 0; i < 4; i++) begin
            hb[26 + i] = sip[8*(3-i) +: 8];
            hb[30 + i] = dip[8*(3-i) +: 8];
        end
        hb[34] = sport[15:8]; hb[35] = sport[7:0]; hb[36] = dport[15:8]; hb[37] = dport[7:0];
        hb[38] = lens.udp[15:8]; hb[39] = lens.udp[7:0]; hb[40] = 8'h00; hb[41] = 8'h00;
        hb[42] = 8'h08; hb[43] = 8'h00; hb[44] = 8'h00; hb[45] = 8'h00;
        hb[46] = vni[23:16]; hb[47] = vni[15:8]; hb[48] = vni[7:0]; hb[49] = 8'h00;
        // The inner MAC addresses follow when the tag after them is removed.
        for (int i = 0; i < 12; i++) hb[50 + i] = dec.macs[8*i +: 8];

        desc_valid     = pipe_v[LOOKUP_LATENCY-1];
        desc_drop      = !(fin_outcome == O_ENCAP || fin_outcome == O_PASS_MISS ||
                           fin_outcome == O_PASS_NOT_IPV4);
        desc_ins_data  = '0;
        for (int i = 0; i < 62; i++) desc_ins_data[8*i +: 8] = hb[i];
        desc_ins_len   = (fin_outcome != O_ENCAP) ? 8'd0 : dec.vlan ? 8'd62 : 8'd50;
        desc_seg2_off  = (fin_outcome == O_ENCAP && dec.vlan) ? 8'd16 : 8'd0;
        desc_len_valid = (fin_outcome == O_ENCAP);
        desc_out_len   = lens.out;
    end

    always_ff @(posedge clk) begin
        if (s_hs) begin
            if (decide_now) decided <= 1'b1;
            if (s_tlast) decided <= 1'b0;
        end
        pipe[0]   <= dec_in;
        pipe_v[0] <= decide_now;
        pipe[1]   <= hashed;
        pipe_v[1] <= pipe_v[0];
        for (int i = 2; i < LOOKUP_LATENCY; i++) begin
            pipe[i]   <= pipe[i-1];
            pipe_v[i] <= pipe_v[i-1];
        end
        // The FIFO gave the whole frame's fate up front: its event leaves with the descriptor.
        stat_valid   <= desc_valid;
        stat_outcome <= fin_outcome;
        stat_emit    <= !desc_drop;
        stat_len     <= dec.len;
        if (rst) begin
            decided    <= 1'b0;
            stat_valid <= 1'b0;
            for (int i = 0; i < LOOKUP_LATENCY; i++) pipe_v[i] <= 1'b0;
        end
    end

`ifndef SYNTHESIS
    always_ff @(posedge clk)
        if (!rst && pipe_v[LOOKUP_LATENCY-1] != rs_valid)
            $error("encap_classify: tunnel table latency differs from LOOKUP_LATENCY");
`endif

endmodule

`default_nettype wire
