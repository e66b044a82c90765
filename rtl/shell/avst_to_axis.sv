// SPDX-License-Identifier: Apache-2.0
//
// avst_to_axis: Avalon-ST packet source (e.g. the Intel PAC N3000 MAC RX side) to
// AXI4-Stream.
//
// Avalon-ST conventions (input)
//   * readyLatency = 0 (readyAllowance = 0): a beat is transferred in a cycle where
//     avst_valid and avst_ready are both 1, exactly like an AXI4-Stream handshake.
//   * firstSymbolInHighOrderBits = true, 8-bit symbols: byte 0 of the frame is
//     avst_data[DATA_W-1 -: 8], byte 1 is avst_data[DATA_W-9 -: 8], ... (the N3000 example
//     tests avst_data[159:144] for the EtherType, bytes 12..13 of a 256-bit beat).
//   * avst_empty, valid only with avst_eop: the number of unused bytes at the END of the
//     last beat, i.e. in the least significant bits of avst_data. 0 = full beat.
//     The last beat carries KEEP_W - avst_empty bytes (1..KEEP_W).
//   * avst_error (1 bit; OR a wider MAC error vector before this port), sampled with
//     avst_eop: the frame is bad. It becomes tuser on the last AXI beat.
//   * avst_sop is not needed to delimit frames (a frame is everything up to eop) and is
//     ignored by the logic; simulation checks that it marks exactly the first beat.
//
// AXI4-Stream conventions (output)
//   * byte 0 of the frame in m_axis_tdata[7:0]; m_axis_tkeep all ones except on the tlast
//     beat, where it is {KEEP_W{1}} >> avst_empty (contiguous from bit 0).
//   * m_axis_tuser = avst_error on the tlast beat, 0 on the others.
//
// Timing: the conversion is wiring only, before a register slice (reg_slice, rtl/stream/),
// which registers avst_ready and m_axis_tvalid and gives m_axis_tdata/tkeep/tlast/tuser
// straight from its output register: the block behind decodes the beat before its first
// register (gre_decap's tkeep guard), so a select here would add a LUT and a long net in
// front of that decode. Full throughput; latency one cycle (a beat taken in cycle t is on
// m_axis in cycle t+1 when the slice was empty). The slice is built in SLICE_W-bit pieces,
// each with its own copies of the flags, so no one load enable reaches every bit of the beat
// across the die. reg_slice is axis_skid's core; axis_skid
// itself is not used here because its bound monitor (rtl/sim/monitors.sv) checks that
// s_axis_tvalid stays up until the transfer, and Avalon-ST's avst_valid may fall before it.

`default_nettype none

module avst_to_axis #(
    // Width of the data buses in bits (a power of two, at least 16)
    parameter int DATA_W = 256,
    // Width of tkeep (bytes per beat); not to be overridden
    parameter int KEEP_W = DATA_W / 8,
    // Bits of the register slice per copy of its load enables (reg_slice SLICE_W)
    parameter int SLICE_W = 64
) (
    input  wire logic                      clk,
    input  wire logic                      rst,

    // Avalon-ST sink (ready latency 0)
    input  wire logic [DATA_W-1:0]         avst_data,
    input  wire logic                      avst_valid,
    output      logic                      avst_ready,
    input  wire logic                      avst_sop,
    input  wire logic                      avst_eop,
    input  wire logic [$clog2(KEEP_W)-1:0] avst_empty,
    input  wire logic                      avst_error,

    // AXI4-Stream source
    output      logic [DATA_W-1:0]         m_axis_tdata,
    output      logic [KEEP_W-1:0]         m_axis_tkeep,
    output      logic                      m_axis_tvalid,
    input  wire logic                      m_axis_tready,
    output      logic                      m_axis_tlast,
    output      logic                      m_axis_tuser
);

    // ------------------------------------------------------------------------------------
    // Elaboration-time parameter checks
    // ------------------------------------------------------------------------------------
    if (DATA_W < 16 || (DATA_W & (DATA_W - 1)) != 0) begin : g_err_data_w
        $error("avst_to_axis: DATA_W (%0d) must be a power of two >= 16", DATA_W);
    end
    if (KEEP_W * 8 != DATA_W) begin : g_err_keep_w
        $error("avst_to_axis: KEEP_W (%0d) must be DATA_W/8", KEEP_W);
    end
    if (SLICE_W < 1) begin : g_err_slice_w
        $error("avst_to_axis: SLICE_W (%0d) must be at least 1", SLICE_W);
    end

    // ------------------------------------------------------------------------------------
    // Conversion (combinational)
    // ------------------------------------------------------------------------------------
    logic [DATA_W-1:0] conv_tdata;
    logic [KEEP_W-1:0] conv_tkeep;
    logic              conv_tuser;

    // Byte i of the frame: Avalon high-order-first -> AXI low-order-first
    for (genvar i = 0; i < KEEP_W; i++) begin : g_byte
        assign conv_tdata[8*i +: 8] = avst_data[DATA_W-1-8*i -: 8];
    end

    assign conv_tkeep = avst_eop ? ({KEEP_W{1'b1}} >> avst_empty) : {KEEP_W{1'b1}};
    assign conv_tuser = avst_eop && avst_error;

    // ------------------------------------------------------------------------------------
    // Register slice: registered avst_ready and AXI outputs (straight from a register)
    // ------------------------------------------------------------------------------------
    localparam int BEAT_W = 1 + 1 + KEEP_W + DATA_W; // {tuser, tlast, tkeep, tdata}

    logic [BEAT_W-1:0] out_beat;

    reg_slice #(
        .BEAT_W(BEAT_W),
        .SLICE_W(SLICE_W),
        .READY_N(1)
    ) u_slice (
        .clk    (clk),
        .rst    (rst),
        .s_beat ({conv_tuser, avst_eop, conv_tkeep, conv_tdata}),
        .s_valid(avst_valid),
        .s_ready(avst_ready),
        .m_beat (out_beat),
        .m_valid(m_axis_tvalid),
        .m_ready(m_axis_tready)
    );

    assign {m_axis_tuser, m_axis_tlast, m_axis_tkeep, m_axis_tdata} = out_beat;

    // ------------------------------------------------------------------------------------
    // Simulation-only protocol check: sop marks exactly the first beat of every frame
    // ------------------------------------------------------------------------------------
`ifndef SYNTHESIS
    logic in_frame_q;

    always_ff @(posedge clk) begin
        if (rst) begin
            in_frame_q <= 1'b0;
        end else if (avst_valid && avst_ready) begin
            in_frame_q <= !avst_eop;
            assert (avst_sop == !in_frame_q)
                else $error("avst_to_axis: avst_sop=%0d on a beat with in_frame=%0d",
                            avst_sop, in_frame_q);
        end
    end
`else
    logic unused_sop;
    assign unused_sop = avst_sop;
`endif

endmodule

`default_nettype wire
