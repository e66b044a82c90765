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
// Zero latency: tdata, tvalid, tready and tlast pass combinationally, and m_axis_tkeep and
// m_axis_tuser are combinational functions of this beat and one sticky register (a hole seen
// on an earlier beat of the frame), cleared by the frame's last beat and by reset.

`default_nettype none

module axis_keep_check #(
    // Width of tdata in bits (a positive multiple of 8).
    parameter int DATA_W = 256,
    // Width of tkeep in bits (one bit per byte of tdata).
    parameter int KEEP_W = DATA_W / 8
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

    // ------------------------------------------------------------------------------------
    // This beat: its keep filled down from the highest set bit, and whether it has a hole
    // ------------------------------------------------------------------------------------
    // m_axis_tkeep above bit 0 is "tlast is clear, or some tkeep bit at or above this one is
    // set": the suffix OR of tkeep, with !tlast folded into every bit at the first level so
    // that no multiplexer follows the fill. It is written as a radix-4 parallel suffix OR,
    // ceil(log4(KEEP_W)) levels, instead of a chain from the top bit (5 LUTs deep at 256 bits
    // and 12 at 512 after synthesis, this block's critical path). A last beat has a hole when
    // it has no byte, or a clear bit right below a set one: one LUT per bit pair, then an OR
    // reduction, independent of the fill (it compared the fill with tkeep, after the fill).
    localparam int LEVELS = (KEEP_W <= 1) ? 0 : ($clog2(KEEP_W) + 1) / 2;

    logic [KEEP_W-1:0] keep_fill;   // !tlast, or any tkeep bit >= b set
    logic              beat_hole;

    for (genvar l = 0; l <= LEVELS; l++) begin : g_fill
        // Level l > 0: bit b covers bits b .. b + 4^l - 1 of level 0.
        logic [KEEP_W-1:0] lvl;
        if (l == 0) begin : g_first
            assign lvl = s_axis_tkeep | {KEEP_W{!s_axis_tlast}};
        end else begin : g_next
            // Bit b ORs bits b, b + S, b + 2S and b + 3S of the level before (S = 4^(l-1)),
            // those inside the vector: written as shifts of the whole vector (the same ORs;
            // a simulator evaluates words, not bits).
            localparam int S = 1 << (2 * (l - 1));
            assign lvl = g_fill[l-1].lvl | (g_fill[l-1].lvl >> S) | (g_fill[l-1].lvl >> (2 * S))
                       | (g_fill[l-1].lvl >> (3 * S));
        end
    end
    assign keep_fill = g_fill[LEVELS].lvl;

    always_comb begin
        logic [KEEP_W-1:0] up;
        // bit b: tkeep[b] clear, tkeep[b+1] set (the top bit has none above it)
        up = ~s_axis_tkeep & (s_axis_tkeep >> 1);
        if (s_axis_tlast)
            beat_hole = !(|s_axis_tkeep) || (|up);
        else
            beat_hole = !(&s_axis_tkeep);
    end

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

    // ------------------------------------------------------------------------------------
    // Pass-through
    // ------------------------------------------------------------------------------------
    assign m_axis_tdata  = s_axis_tdata;
    assign m_axis_tvalid = s_axis_tvalid;
    assign s_axis_tready = m_axis_tready;
    assign m_axis_tlast  = s_axis_tlast;

    // Before the last beat the fill is all ones (!tlast); bit 0 always, since a last beat
    // keeps at least one byte.
    assign m_axis_tkeep = keep_fill | KEEP_W'(1);
    assign m_axis_tuser = s_axis_tuser || (s_axis_tlast && (hole_seen || beat_hole));

endmodule

`default_nettype wire
