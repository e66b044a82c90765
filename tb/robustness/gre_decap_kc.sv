// SPDX-License-Identifier: Apache-2.0
//
// gre_decap_kc — TEST TOP (tb/robustness): rtl/stream/axis_keep_check.sv in front of gre_decap,
// with gre_decap's own ports, so the bus rows of docs/robustness.md (tkeep holes, RX errors)
// can be checked on gre_decap before gre_decap.sv instantiates the guard itself. Once it does,
// this top checks the same contract with two guards in a row (the second never sees a hole).

`default_nettype none

module gre_decap_kc #(
    parameter int DATA_W = 256,
    parameter int ALLOW_ENTRIES = 64
) (
    input  wire logic                clk,
    input  wire logic                rst,

    input  wire logic [DATA_W-1:0]   s_axis_tdata,
    input  wire logic [DATA_W/8-1:0] s_axis_tkeep,
    input  wire logic                s_axis_tvalid,
    output      logic                s_axis_tready,
    input  wire logic                s_axis_tlast,
    input  wire logic [0:0]          s_axis_tuser,

    output      logic [DATA_W-1:0]   m_axis_tdata,
    output      logic [DATA_W/8-1:0] m_axis_tkeep,
    output      logic                m_axis_tvalid,
    input  wire logic                m_axis_tready,
    output      logic                m_axis_tlast,
    output      logic [0:0]          m_axis_tuser,

    input  wire logic [15:0]         s_axil_awaddr,
    input  wire logic [2:0]          s_axil_awprot,
    input  wire logic                s_axil_awvalid,
    output      logic                s_axil_awready,
    input  wire logic [31:0]         s_axil_wdata,
    input  wire logic [3:0]          s_axil_wstrb,
    input  wire logic                s_axil_wvalid,
    output      logic                s_axil_wready,
    output      logic [1:0]          s_axil_bresp,
    output      logic                s_axil_bvalid,
    input  wire logic                s_axil_bready,
    input  wire logic [15:0]         s_axil_araddr,
    input  wire logic [2:0]          s_axil_arprot,
    input  wire logic                s_axil_arvalid,
    output      logic                s_axil_arready,
    output      logic [31:0]         s_axil_rdata,
    output      logic [1:0]          s_axil_rresp,
    output      logic                s_axil_rvalid,
    input  wire logic                s_axil_rready,

    // One event per input frame, in input order, after its last beat: its outcome, whether it
    // appears on m_axis (possibly aborted), and its length. For telemetry and test benches.
    output      logic                m_stat_valid,
    output      logic [3:0]          m_stat_outcome,
    output      logic                m_stat_emit,
    output      logic [15:0]         m_stat_len
);

    logic [DATA_W-1:0]   k_tdata;
    logic [DATA_W/8-1:0] k_tkeep;
    logic                k_tvalid, k_tready, k_tlast, k_tuser;

    axis_keep_check #(
        .DATA_W(DATA_W)
    ) keep_check (
        .clk, .rst,
        .s_axis_tdata, .s_axis_tkeep, .s_axis_tvalid, .s_axis_tready,
        .s_axis_tlast, .s_axis_tuser(s_axis_tuser[0]),
        .m_axis_tdata(k_tdata), .m_axis_tkeep(k_tkeep), .m_axis_tvalid(k_tvalid),
        .m_axis_tready(k_tready), .m_axis_tlast(k_tlast), .m_axis_tuser(k_tuser)
    );

    gre_decap #(
        .DATA_W(DATA_W),
        .ALLOW_ENTRIES(ALLOW_ENTRIES)
    ) dut (
        .s_axis_tdata(k_tdata), .s_axis_tkeep(k_tkeep), .s_axis_tvalid(k_tvalid),
        .s_axis_tready(k_tready), .s_axis_tlast(k_tlast), .s_axis_tuser(k_tuser),
        .*
    );

endmodule

`default_nettype wire
