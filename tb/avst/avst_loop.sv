// SPDX-License-Identifier: Apache-2.0
//
// avst_loop: test harness (not RTL): avst_to_axis -> axis_to_avst back to back, with the AXI4-
// Stream between them exposed (mid_axis_*) so the test can check the byte order on both buses.

`default_nettype none

module avst_loop #(
    // Width of the data buses in bits
    parameter int DATA_W = 256
) (
    input  wire logic                        clk,
    input  wire logic                        rst,

    input  wire logic [DATA_W-1:0]           s_avst_data,
    input  wire logic                        s_avst_valid,
    output      logic                        s_avst_ready,
    input  wire logic                        s_avst_sop,
    input  wire logic                        s_avst_eop,
    input  wire logic [$clog2(DATA_W/8)-1:0] s_avst_empty,
    input  wire logic                        s_avst_error,

    output      logic [DATA_W-1:0]           mid_axis_tdata,
    output      logic [DATA_W/8-1:0]         mid_axis_tkeep,
    output      logic                        mid_axis_tvalid,
    output      logic                        mid_axis_tready,
    output      logic                        mid_axis_tlast,
    output      logic                        mid_axis_tuser,

    output      logic [DATA_W-1:0]           m_avst_data,
    output      logic                        m_avst_valid,
    input  wire logic                        m_avst_ready,
    output      logic                        m_avst_sop,
    output      logic                        m_avst_eop,
    output      logic [$clog2(DATA_W/8)-1:0] m_avst_empty,
    output      logic                        m_avst_error
);

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
        .m_axis_tdata  (mid_axis_tdata),
        .m_axis_tkeep  (mid_axis_tkeep),
        .m_axis_tvalid (mid_axis_tvalid),
        .m_axis_tready (mid_axis_tready),
        .m_axis_tlast  (mid_axis_tlast),
        .m_axis_tuser  (mid_axis_tuser)
    );

    axis_to_avst #(
        .DATA_W (DATA_W)
    ) u_tx (
        .clk           (clk),
        .rst           (rst),
        .s_axis_tdata  (mid_axis_tdata),
        .s_axis_tkeep  (mid_axis_tkeep),
        .s_axis_tvalid (mid_axis_tvalid),
        .s_axis_tready (mid_axis_tready),
        .s_axis_tlast  (mid_axis_tlast),
        .s_axis_tuser  (mid_axis_tuser),
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
