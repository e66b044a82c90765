// SPDX-License-Identifier: Apache-2.0
//
// axis_keep_check: AXI4-Stream tkeep guard (docs/robustness.md, "tkeep holes").
//
// wirespeed's streams carry a frame as whole bytes: tkeep is all ones on every beat but the
// last, and on the last beat it is contiguous from bit 0 with at least one byte set
// (0...01...1). A beat that breaks this has a "hole". This pass-through marks a frame with a
// hole as bad, exactly as a MAC RX error (tuser = 1 on its last beat), so the block behind it
// counts it as DROP_RX_ERROR and never forwards it whole, and it hands the block a tkeep that
// has no hole, so no parser or splice engine downstream ever sees one:
//
//   beat          hole when                        m_axis_tkeep          m_axis_tuser
//   not last      tkeep != all ones                all ones              s_axis_tuser
//   last          tkeep == 0, or not 0..01..1      ones up to the        s_axis_tuser | hole in
//                                                  highest set bit       any beat of the frame
//                                                  (bit 0 if tkeep == 0)
//
// So the frame's length is what the wirespeed blocks already took it to be (it ends after the
// highest set tkeep bit of its last beat), except that a last beat with no byte at all keeps
// one byte: every frame has at least one byte. A frame without holes passes bit for bit.
//
// REG_OUT = 0, zero latency: tdata, tvalid, tready and tlast pass combinationally, and
// m_axis_tkeep and m_axis_tuser are combinational functions of this beat and one sticky
// register (a hole seen on an earlier beat of the frame), cleared by the frame's last beat and
// by reset.
//
// REG_OUT = 1, one cycle: the beat passes a register slice (axis_skid: s_axis_tready and
// every m_axis output but tkeep and tuser from a register), with the repair split around it
// so that neither side holds a suffix OR across the whole beat (synthesis maps such a family,
// every bit of it used, as a chain of a LUT per few bits). Before the slice, per group of 4
// bytes the suffix OR inside the group, and per block of 16 bytes whether a block above has a
// byte; after it, one OR per bit of those and of at most 3 groups of its block. The sticky
// hole flag then follows the beats leaving the slice.
//
// REG_OUT = 1 and CREDIT = 1, one cycle, no backpressure after the register: s_axis_tready is
// m_axis_tready passed back, and a beat taken in cycle t leaves in cycle t + 1 whatever
// m_axis_tready is then (the block behind takes every beat offered: its ready is a credit, one
// cycle ahead, as axis_edit's IN_SLACK). The register loads every cycle, so no load enable
// reaches the beat's bits; the repair is split around it as above.

`default_nettype none

module axis_keep_check #(
    // Width of tdata in bits (a positive multiple of 8).
    parameter int DATA_W = 256,
    // Width of tkeep in bits (one bit per byte of tdata).
    parameter int KEEP_W = DATA_W / 8,
    // 0: zero latency; 1: through a register slice, the repair split around it (see above).
    parameter bit REG_OUT = 1'b0,
    // With REG_OUT: 1 = a plain register, m_axis_tready a credit one cycle ahead (see above).
    parameter bit CREDIT = 1'b0
) (
    input  wire logic              clk,
    input  wire logic              rst,

    // AXI4-Stream input (from the MAC)
    input  wire logic [DATA_W-1:0] s_axis_tdata,
    input  wire logic [KEEP_W-1:0] s_axis_tkeep,
    input  wire logic              s_axis_tvalid,
    output      logic              s_axis_tready,
    input  wire logic              s_axis_tlast,
    input  wire logic              s_axis_tuser,

    // AXI4-Stream output (to the block): tkeep without holes, tuser = bad frame
    output      logic [DATA_W-1:0] m_axis_tdata,
    output      logic [KEEP_W-1:0] m_axis_tkeep,
    output      logic              m_axis_tvalid,
    input  wire logic              m_axis_tready,
    output      logic              m_axis_tlast,
    output      logic              m_axis_tuser
);

    // ------------------------------------------------------------------------------------
    // Elaboration-time parameter checks
    // ------------------------------------------------------------------------------------
    if (DATA_W < 8 || DATA_W % 8 != 0) begin : g_err_data_w
        $error("axis_keep_check: DATA_W (%0d) must be a positive multiple of 8", DATA_W);
    end
    if (KEEP_W * 8 != DATA_W) begin : g_err_keep_w
        $error("axis_keep_check: KEEP_W (%0d) must be DATA_W/8", KEEP_W);
    end
    if (CREDIT && !REG_OUT) begin : g_err_credit
        $error("axis_keep_check: CREDIT needs REG_OUT");
    end

    // ------------------------------------------------------------------------------------
    // This beat: whether it has a hole, but for a last beat with no byte
    // ------------------------------------------------------------------------------------
    // A beat before the last has a hole when some bit is clear; a last beat when it has no
    // byte (below), or a clear bit right below a set one: one LUT per bit pair, then an OR
    // reduction, independent of the fill (it compared the fill with tkeep, after the fill).
    logic gap;

    always_comb begin
        logic [KEEP_W-1:0] up;
        // bit b: tkeep[b] clear, tkeep[b+1] set (the top bit has none above it)
        up = ~s_axis_tkeep & (s_axis_tkeep >> 1);
        gap = s_axis_tlast ? (|up) : !(&s_axis_tkeep);
    end

    if (!REG_OUT) begin : g_comb
        logic beat_hole;
        assign beat_hole = gap || (s_axis_tlast && !(|s_axis_tkeep));

        // A hole on an earlier beat of the frame now on the bus.
        logic hole_seen;

        always_ff @(posedge clk) begin
            if (s_axis_tvalid && s_axis_tready) begin
                hole_seen <= !s_axis_tlast && (hole_seen || beat_hole);
            end
            if (rst) begin
                hole_seen <= 1'b0;
            end
        end

        // --------------------------------------------------------------------------------
        // The keep filled down from the highest set bit, in this cycle
        // --------------------------------------------------------------------------------
        // m_axis_tkeep above bit 0 is "tlast is clear, or some tkeep bit at or above this one
        // is set": the suffix OR of tkeep, with !tlast folded into every bit at the first
        // level so that no multiplexer follows the fill. It is written as a radix-4 parallel
        // suffix OR, ceil(log4(KEEP_W)) levels, instead of a chain from the top bit.
        localparam int LEVELS = (KEEP_W <= 1) ? 0 : ($clog2(KEEP_W) + 1) / 2;

        for (genvar l = 0; l <= LEVELS; l++) begin : g_fill
            // Level l > 0: bit b covers bits b .. b + 4^l - 1 of level 0.
            logic [KEEP_W-1:0] lvl;
            if (l == 0) begin : g_first
                assign lvl = s_axis_tkeep | {KEEP_W{!s_axis_tlast}};
            end else begin : g_next
                // Bit b ORs bits b, b + S, b + 2S and b + 3S of the level before (S =
                // 4^(l-1)), those inside the vector: written as shifts of the whole vector
                // (the same ORs; a simulator evaluates words, not bits).
                localparam int S = 1 << (2 * (l - 1));
                assign lvl = g_fill[l-1].lvl | (g_fill[l-1].lvl >> S)
                           | (g_fill[l-1].lvl >> (2 * S)) | (g_fill[l-1].lvl >> (3 * S));
            end
        end

        assign m_axis_tdata  = s_axis_tdata;
        assign m_axis_tvalid = s_axis_tvalid;
        assign s_axis_tready = m_axis_tready;
        assign m_axis_tlast  = s_axis_tlast;
        // Before the last beat the fill is all ones (!tlast); bit 0 always, since a last beat
        // keeps at least one byte.
        assign m_axis_tkeep  = g_fill[LEVELS].lvl | KEEP_W'(1);
        assign m_axis_tuser  = s_axis_tuser || (s_axis_tlast && (hole_seen || beat_hole));
    end else begin : g_reg
        // --------------------------------------------------------------------------------
        // The fill in two halves around a register slice
        // --------------------------------------------------------------------------------
        // Groups of 4 bytes, blocks of 16: in_grp[b] = some tkeep bit from b to the top of
        // b's group is set; blk_above[k] = some tkeep bit in a block above block k is set.
        // Both are registered with the beat's gap; after the slice, group i's "some bit in a
        // group above" is the OR of at most 3 groups of its block (in_grp at their first byte)
        // and blk_above, and a last beat has no byte when neither block 0's groups nor a block
        // above has one. The frame's verdict is kept after the slice too (hole_seen counts
        // the beats leaving it).
        localparam int NB = (KEEP_W + 15) / 16;

        logic [KEEP_W-1:0] in_grp;
        logic [NB-1:0]     blk_above;

        for (genvar b = 0; b < KEEP_W; b++) begin : g_in_grp
            localparam int TOP = (4 * (b / 4) + 3 < KEEP_W) ? 4 * (b / 4) + 3 : KEEP_W - 1;
            assign in_grp[b] = |s_axis_tkeep[TOP:b];
        end
        for (genvar k = 0; k < NB; k++) begin : g_blk
            if (k == NB - 1) begin : g_top
                assign blk_above[k] = 1'b0;
            end else begin : g_below
                assign blk_above[k] = |s_axis_tkeep[KEEP_W-1:16*(k+1)];
            end
        end

        // The register carries in_grp in tkeep's place and {blk_above, gap, tuser} as tuser.
        logic [KEEP_W-1:0] r_in_grp;
        logic [NB-1:0]     r_blk_above;
        logic              r_last, r_gap, r_user;
        logic              r_take;   // the beat on m_axis leaves in this cycle

        if (CREDIT) begin : g_credit
            logic r_valid_q;

            always_ff @(posedge clk) begin
                m_axis_tdata <= s_axis_tdata;
                r_in_grp     <= in_grp;
                r_last       <= s_axis_tlast;
                {r_blk_above, r_gap, r_user} <= {blk_above, gap, s_axis_tuser};
                r_valid_q    <= s_axis_tvalid && m_axis_tready;
                if (rst) r_valid_q <= 1'b0;
            end

            assign s_axis_tready = m_axis_tready;
            assign m_axis_tvalid = r_valid_q;
            assign r_take        = r_valid_q;
        end else begin : g_slice
            axis_skid #(
                .DATA_W(DATA_W),
                .KEEP_W(KEEP_W),
                .USER_W(NB + 2)
            ) slice (
                .clk(clk), .rst(rst),
                .s_axis_tdata(s_axis_tdata), .s_axis_tkeep(in_grp),
                .s_axis_tvalid(s_axis_tvalid), .s_axis_tready(s_axis_tready),
                .s_axis_tlast(s_axis_tlast), .s_axis_tuser({blk_above, gap, s_axis_tuser}),
                .m_axis_tdata(m_axis_tdata), .m_axis_tkeep(r_in_grp),
                .m_axis_tvalid(m_axis_tvalid), .m_axis_tready(m_axis_tready),
                .m_axis_tlast(r_last), .m_axis_tuser({r_blk_above, r_gap, r_user})
            );

            assign r_take = m_axis_tvalid && m_axis_tready;
        end

        // Group i: a byte in a group above it in its block (in_grp at the group's first
        // byte), or in a block above.
        localparam int NG = (KEEP_W + 3) / 4;
        logic [NG-1:0] r_above;

        always_comb begin
            for (int i = 0; i < NG; i++) begin
                r_above[i] = r_blk_above[i / 4];
                for (int j = i + 1; j < NG && j / 4 == i / 4; j++) begin
                    r_above[i] = r_above[i] || r_in_grp[4 * j];
                end
            end
        end

        for (genvar b = 0; b < KEEP_W; b++) begin : g_out
            if (b == 0) begin : g_bit0
                assign m_axis_tkeep[b] = 1'b1;   // a last beat keeps at least one byte
            end else begin : g_bit
                assign m_axis_tkeep[b] = !r_last || r_in_grp[b] || r_above[b / 4];
            end
        end

        logic r_none;   // no tkeep bit set
        assign r_none = !r_in_grp[0] && !r_above[0];

        logic beat_hole, hole_seen;
        assign beat_hole = r_gap || (r_last && r_none);

        always_ff @(posedge clk) begin
            if (r_take) begin
                hole_seen <= !r_last && (hole_seen || beat_hole);
            end
            if (rst) begin
                hole_seen <= 1'b0;
            end
        end

        assign m_axis_tlast = r_last;
        assign m_axis_tuser = r_user || (r_last && (hole_seen || beat_hole));
    end

endmodule

`default_nettype wire
