// SPDX-License-Identifier: Apache-2.0
//
// gre_decap_avst: Intel PAC N3000-style shell around gre_decap.
//
//   s_avst_* (MAC RX, Avalon-ST) -> avst_to_axis -> gre_decap -> axis_to_avst -> m_avst_* (TX)
//
// Both Avalon-ST sides use readyLatency = 0, first symbol (byte 0) in the high-order bits
// (data[DATA_W-1 -: 8]), 8-bit symbols, `empty` = unused bytes at the end of the eop beat,
// and a 1-bit `error` that goes with eop (see avst_to_axis.sv / axis_to_avst.sv).
// An aborted output frame of gre_decap (tuser = 1 on its last beat) leaves as a frame with
// m_avst_error = 1 on its eop beat, which the MAC TX discards.
//
// The AXI4-Lite port and the status stream of gre_decap are passed through unchanged.
// Latency added by the shell: one cycle on each side (the adapters' two-slot beat buffers).

`default_nettype none

module gre_decap_avst #(
    // Width of the data buses in bits (64, 128, 256 or 512; 256 on the N3000)
    parameter int DATA_W = 256,
    // Number of allow-list entries of gre_decap (1..256)
    parameter int ALLOW_ENTRIES = 64
) (
    input  wire logic                        clk,
    input  wire logic                        rst,

    // Avalon-ST sink: frames from the MAC RX (ready latency 0)
    input  wire logic [DATA_W-1:0]           s_avst_data,
    input  wire logic                        s_avst_valid,
    output      logic                        s_avst_ready,
    input  wire logic                        s_avst_sop,
    input  wire logic                        s_avst_eop,
    input  wire logic [$clog2(DATA_W/8)-1:0] s_avst_empty,
    input  wire logic                        s_avst_error,

    // Avalon-ST source: frames to the MAC TX (ready latency 0)
    output      logic [DATA_W-1:0]           m_avst_data,
    output      logic                        m_avst_valid,
    input  wire logic                        m_avst_ready,
    output      logic                        m_avst_sop,
    output      logic                        m_avst_eop,
    output      logic [$clog2(DATA_W/8)-1:0] m_avst_empty,
    output      logic                        m_avst_error,

    // AXI4-Lite slave (control, allow-list, counters)
    input  wire logic [15:0]                 s_axil_awaddr,
    input  wire logic [2:0]                  s_axil_awprot,
    input  wire logic                        s_axil_awvalid,
    output      logic                        s_axil_awready,
    input  wire logic [31:0]                 s_axil_wdata,
    input  wire logic [3:0]                  s_axil_wstrb,
    input  wire logic                        s_axil_wvalid,
    output      logic                        s_axil_wready,
    output      logic [1:0]                  s_axil_bresp,
    output      logic                        s_axil_bvalid,
    input  wire logic                        s_axil_bready,
    input  wire logic [15:0]                 s_axil_araddr,
    input  wire logic [2:0]                  s_axil_arprot,
    input  wire logic                        s_axil_arvalid,
    output      logic                        s_axil_arready,
    output      logic [31:0]                 s_axil_rdata,
    output      logic [1:0]                  s_axil_rresp,
    output      logic                        s_axil_rvalid,
    input  wire logic                        s_axil_rready,

    // Status stream of gre_decap (one event per input frame), as-is
    output      logic                        m_stat_valid,
    output      logic [3:0]                  m_stat_outcome,
    output      logic                        m_stat_emit,
    output      logic [15:0]                 m_stat_len
);

    // ------------------------------------------------------------------------------------
    // Elaboration-time parameter checks
    // ------------------------------------------------------------------------------------
    if (DATA_W != 64 && DATA_W != 128 && DATA_W != 256 && DATA_W != 512) begin : g_err_data_w
        $error("gre_decap_avst: DATA_W (%0d) must be 64, 128, 256 or 512", DATA_W);
    end
    if (ALLOW_ENTRIES < 1 || ALLOW_ENTRIES > 256) begin : g_err_allow
        $error("gre_decap_avst: ALLOW_ENTRIES (%0d) must be 1..256", ALLOW_ENTRIES);
    end

    localparam int KEEP_W = DATA_W / 8;

    // ------------------------------------------------------------------------------------
    // RX: Avalon-ST -> AXI4-Stream
    // ------------------------------------------------------------------------------------
    logic [DATA_W-1:0] rx_tdata;
    logic [KEEP_W-1:0] rx_tkeep;
    logic              rx_tvalid;
    logic              rx_tready;
    logic              rx_tlast;
    logic              rx_tuser;

    avst_to_axis #(
        .DATA_W (DATA_W)
    ) u_rx (
        .clk           (clk),
        .rst           (rst),
        .avst_data     (s_avst_data),
        .avst_valid    (s_avst_valid),
        .avst_ready    (s_avst_ready),
        .avst_sop      (s_avst_sop),
        .avst_eop      (s_avst_eop),
        .avst_empty    (s_avst_empty),
        .avst_error    (s_avst_error),
        .m_axis_tdata  (rx_tdata),
        .m_axis_tkeep  (rx_tkeep),
        .m_axis_tvalid (rx_tvalid),
        .m_axis_tready (rx_tready),
        .m_axis_tlast  (rx_tlast),
        .m_axis_tuser  (rx_tuser)
    );

    // ------------------------------------------------------------------------------------
    // GRE decapsulation
    // ------------------------------------------------------------------------------------
    logic [DATA_W-1:0] tx_tdata;
    logic [KEEP_W-1:0] tx_tkeep;
    logic              tx_tvalid;
    logic              tx_tready;
    logic              tx_tlast;
    logic              tx_tuser;

    gre_decap #(
        .DATA_W        (DATA_W),
        .ALLOW_ENTRIES (ALLOW_ENTRIES)
    ) u_decap (
        .clk            (clk),
        .rst            (rst),
        .s_axis_tdata   (rx_tdata),
        .s_axis_tkeep   (rx_tkeep),
        .s_axis_tvalid  (rx_tvalid),
        .s_axis_tready  (rx_tready),
        .s_axis_tlast   (rx_tlast),
        .s_axis_tuser   (rx_tuser),
        .m_axis_tdata   (tx_tdata),
        .m_axis_tkeep   (tx_tkeep),
        .m_axis_tvalid  (tx_tvalid),
        .m_axis_tready  (tx_tready),
        .m_axis_tlast   (tx_tlast),
        .m_axis_tuser   (tx_tuser),
        .s_axil_awaddr  (s_axil_awaddr),
        .s_axil_awprot  (s_axil_awprot),
        .s_axil_awvalid (s_axil_awvalid),
        .s_axil_awready (s_axil_awready),
        .s_axil_wdata   (s_axil_wdata),
        .s_axil_wstrb   (s_axil_wstrb),
        .s_axil_wvalid  (s_axil_wvalid),
        .s_axil_wready  (s_axil_wready),
        .s_axil_bresp   (s_axil_bresp),
        .s_axil_bvalid  (s_axil_bvalid),
        .s_axil_bready  (s_axil_bready),
        .s_axil_araddr  (s_axil_araddr),
        .s_axil_arprot  (s_axil_arprot),
        .s_axil_arvalid (s_axil_arvalid),
        .s_axil_arready (s_axil_arready),
        .s_axil_rdata   (s_axil_rdata),
        .s_axil_rresp   (s_axil_rresp),
        .s_axil_rvalid  (s_axil_rvalid),
        .s_axil_rready  (s_axil_rready),
        .m_stat_valid   (m_stat_valid),
        .m_stat_outcome (m_stat_outcome),
        .m_stat_emit    (m_stat_emit),
        .m_stat_len     (m_stat_len)
    );

    // ------------------------------------------------------------------------------------
    // TX: AXI4-Stream -> Avalon-ST
    // ------------------------------------------------------------------------------------
    axis_to_avst #(
        .DATA_W (DATA_W)
    ) u_tx (
        .clk           (clk),
        .rst           (rst),
        .s_axis_tdata  (tx_tdata),
        .s_axis_tkeep  (tx_tkeep),
        .s_axis_tvalid (tx_tvalid),
        .s_axis_tready (tx_tready),
        .s_axis_tlast  (tx_tlast),
        .s_axis_tuser  (tx_tuser),
        .avst_data     (m_avst_data),
        .avst_valid    (m_avst_valid),
        .avst_ready    (m_avst_ready),
        .avst_sop      (m_avst_sop),
        .avst_eop      (m_avst_eop),
        .avst_empty    (m_avst_empty),
        .avst_error    (m_avst_error)
    );

endmodule

`default_nettype wire
