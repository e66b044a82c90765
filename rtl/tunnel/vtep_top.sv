// SPDX-License-Identifier: Apache-2.0
//
// vtep_top — a VXLAN tunnel endpoint with a network port and a host port (docs/vxlan.md).
//
//   s_net_axis  ─► vxlan_decap ─► m_host_axis     (inner frames, VNI on m_host_axis_tvni)
//   m_net_axis  ◄─ vxlan_encap ◄─ s_host_axis     (outer headers from the tunnel table)
//
//   s_axil ─► axil_decode ─┬─ 0x0000 decap CSR   ─┬─ 0x2000 VNI table
//                          └─ 0x1000 encap CSR   ─┴─ 0x3000 tunnel table
//
// The two directions are independent streams with their own backpressure and run at once.

`default_nettype none

module vtep_top #(
    // Width of every data bus in bits: 64, 128, 256 or 512.
    parameter int DATA_W = 256,
    // Slots of the VNI table (decap).
    parameter int VNI_SLOTS = 8192,
    // Slots of the tunnel table (encap): 32768 for 16K tunnels, up to 524288 for 256K.
    // (Both directions are pipelined by construction: vxlan_decap on the decap shell,
    // vxlan_encap on the edit engine axis_edit; no build options.)
    parameter int TUNNEL_SLOTS = 32768
) (
    input  wire logic                clk,
    input  wire logic                rst,

    // Network port.
    input  wire logic [DATA_W-1:0]   s_net_axis_tdata,
    input  wire logic [DATA_W/8-1:0] s_net_axis_tkeep,
    input  wire logic                s_net_axis_tvalid,
    output      logic                s_net_axis_tready,
    input  wire logic                s_net_axis_tlast,
    input  wire logic [0:0]          s_net_axis_tuser,
    output      logic [DATA_W-1:0]   m_net_axis_tdata,
    output      logic [DATA_W/8-1:0] m_net_axis_tkeep,
    output      logic                m_net_axis_tvalid,
    input  wire logic                m_net_axis_tready,
    output      logic                m_net_axis_tlast,
    output      logic [0:0]          m_net_axis_tuser,

    // Host port.
    input  wire logic [DATA_W-1:0]   s_host_axis_tdata,
    input  wire logic [DATA_W/8-1:0] s_host_axis_tkeep,
    input  wire logic                s_host_axis_tvalid,
    output      logic                s_host_axis_tready,
    input  wire logic                s_host_axis_tlast,
    input  wire logic [0:0]          s_host_axis_tuser,
    output      logic [DATA_W-1:0]   m_host_axis_tdata,
    output      logic [DATA_W/8-1:0] m_host_axis_tkeep,
    output      logic                m_host_axis_tvalid,
    input  wire logic                m_host_axis_tready,
    output      logic                m_host_axis_tlast,
    output      logic [0:0]          m_host_axis_tuser,
    output      logic [23:0]         m_host_axis_tvni,
    output      logic                m_host_axis_tvni_valid,

    // Control, counters and tables (64 KiB).
    input  wire logic [15:0]   s_axil_awaddr,
    input  wire logic [2:0]    s_axil_awprot,
    input  wire logic          s_axil_awvalid,
    output      logic          s_axil_awready,
    input  wire logic [31:0]   s_axil_wdata,
    input  wire logic [3:0]    s_axil_wstrb,
    input  wire logic          s_axil_wvalid,
    output      logic          s_axil_wready,
    output      logic [1:0]    s_axil_bresp,
    output      logic          s_axil_bvalid,
    input  wire logic          s_axil_bready,
    input  wire logic [15:0]   s_axil_araddr,
    input  wire logic [2:0]    s_axil_arprot,
    input  wire logic          s_axil_arvalid,
    output      logic          s_axil_arready,
    output      logic [31:0]   s_axil_rdata,
    output      logic [1:0]    s_axil_rresp,
    output      logic          s_axil_rvalid,
    input  wire logic          s_axil_rready,

    // Per-frame events of each direction, in order.
    output      logic                m_decap_stat_valid,
    output      logic [3:0]          m_decap_stat_outcome,
    output      logic                m_decap_stat_emit,
    output      logic [15:0]         m_decap_stat_len,
    output      logic                m_encap_stat_valid,
    output      logic [3:0]          m_encap_stat_outcome,
    output      logic                m_encap_stat_emit,
    output      logic [15:0]         m_encap_stat_len
);

    // Register windows: 0 decap CSR, 1 encap CSR, 2 VNI table, 3 tunnel table.
    logic [47:0] w_awaddr;
    logic [11:0] w_awprot;
    logic [3:0] w_awvalid;
    logic [3:0] w_awready;
    logic [127:0] w_wdata;
    logic [15:0] w_wstrb;
    logic [3:0] w_wvalid;
    logic [3:0] w_wready;
    logic [7:0] w_bresp;
    logic [3:0] w_bvalid;
    logic [3:0] w_bready;
    logic [47:0] w_araddr;
    logic [11:0] w_arprot;
    logic [3:0] w_arvalid;
    logic [3:0] w_arready;
    logic [127:0] w_rdata;
    logic [7:0] w_rresp;
    logic [3:0] w_rvalid;
    logic [3:0] w_rready;

    axil_decode #(
        .WINDOWS(4),
        .WIN_ADDR_W(12),
        .ADDR_W(16)
    ) decode (
        .clk, .rst,
        .s_axil_awaddr, .s_axil_awprot, .s_axil_awvalid, .s_axil_awready,
        .s_axil_wdata, .s_axil_wstrb, .s_axil_wvalid, .s_axil_wready,
        .s_axil_bresp, .s_axil_bvalid, .s_axil_bready,
        .s_axil_araddr, .s_axil_arprot, .s_axil_arvalid, .s_axil_arready,
        .s_axil_rdata, .s_axil_rresp, .s_axil_rvalid, .s_axil_rready,
        .m_axil_awaddr(w_awaddr),
        .m_axil_awprot(w_awprot),
        .m_axil_awvalid(w_awvalid),
        .m_axil_awready(w_awready),
        .m_axil_wdata(w_wdata),
        .m_axil_wstrb(w_wstrb),
        .m_axil_wvalid(w_wvalid),
        .m_axil_wready(w_wready),
        .m_axil_bresp(w_bresp),
        .m_axil_bvalid(w_bvalid),
        .m_axil_bready(w_bready),
        .m_axil_araddr(w_araddr),
        .m_axil_arprot(w_arprot),
        .m_axil_arvalid(w_arvalid),
        .m_axil_arready(w_arready),
        .m_axil_rdata(w_rdata),
        .m_axil_rresp(w_rresp),
        .m_axil_rvalid(w_rvalid),
        .m_axil_rready(w_rready)
    );

    vxlan_decap #(
        .DATA_W(DATA_W),
        .VNI_SLOTS(VNI_SLOTS)
    ) decap (
        .clk, .rst,
        .s_axis_tdata(s_net_axis_tdata), .s_axis_tkeep(s_net_axis_tkeep),
        .s_axis_tvalid(s_net_axis_tvalid), .s_axis_tready(s_net_axis_tready),
        .s_axis_tlast(s_net_axis_tlast), .s_axis_tuser(s_net_axis_tuser[0]),
        .m_axis_tdata(m_host_axis_tdata), .m_axis_tkeep(m_host_axis_tkeep),
        .m_axis_tvalid(m_host_axis_tvalid), .m_axis_tready(m_host_axis_tready),
        .m_axis_tlast(m_host_axis_tlast), .m_axis_tuser(m_host_axis_tuser[0]),
        .m_axis_tvni(m_host_axis_tvni), .m_axis_tvni_valid(m_host_axis_tvni_valid),
        .s_axil_awaddr(w_awaddr[11:0]),
        .s_axil_awprot(w_awprot[2:0]),
        .s_axil_awvalid(w_awvalid[0:0]),
        .s_axil_awready(w_awready[0:0]),
        .s_axil_wdata(w_wdata[31:0]),
        .s_axil_wstrb(w_wstrb[3:0]),
        .s_axil_wvalid(w_wvalid[0:0]),
        .s_axil_wready(w_wready[0:0]),
        .s_axil_bresp(w_bresp[1:0]),
        .s_axil_bvalid(w_bvalid[0:0]),
        .s_axil_bready(w_bready[0:0]),
        .s_axil_araddr(w_araddr[11:0]),
        .s_axil_arprot(w_arprot[2:0]),
        .s_axil_arvalid(w_arvalid[0:0]),
        .s_axil_arready(w_arready[0:0]),
        .s_axil_rdata(w_rdata[31:0]),
        .s_axil_rresp(w_rresp[1:0]),
        .s_axil_rvalid(w_rvalid[0:0]),
        .s_axil_rready(w_rready[0:0]),
        .s_axil_vni_awaddr(w_awaddr[35:24]),
        .s_axil_vni_awprot(w_awprot[8:6]),
        .s_axil_vni_awvalid(w_awvalid[2:2]),
        .s_axil_vni_awready(w_awready[2:2]),
        .s_axil_vni_wdata(w_wdata[95:64]),
        .s_axil_vni_wstrb(w_wstrb[11:8]),
        .s_axil_vni_wvalid(w_wvalid[2:2]),
        .s_axil_vni_wready(w_wready[2:2]),
        .s_axil_vni_bresp(w_bresp[5:4]),
        .s_axil_vni_bvalid(w_bvalid[2:2]),
        .s_axil_vni_bready(w_bready[2:2]),
        .s_axil_vni_araddr(w_araddr[35:24]),
        .s_axil_vni_arprot(w_arprot[8:6]),
        .s_axil_vni_arvalid(w_arvalid[2:2]),
        .s_axil_vni_arready(w_arready[2:2]),
        .s_axil_vni_rdata(w_rdata[95:64]),
        .s_axil_vni_rresp(w_rresp[5:4]),
        .s_axil_vni_rvalid(w_rvalid[2:2]),
        .s_axil_vni_rready(w_rready[2:2]),
        .m_stat_valid(m_decap_stat_valid), .m_stat_outcome(m_decap_stat_outcome),
        .m_stat_emit(m_decap_stat_emit), .m_stat_len(m_decap_stat_len)
    );

    vxlan_encap #(
        .DATA_W(DATA_W),
        .TUNNEL_SLOTS(TUNNEL_SLOTS)
    ) encap (
        .clk, .rst,
        .s_axis_tdata(s_host_axis_tdata), .s_axis_tkeep(s_host_axis_tkeep),
        .s_axis_tvalid(s_host_axis_tvalid), .s_axis_tready(s_host_axis_tready),
        .s_axis_tlast(s_host_axis_tlast), .s_axis_tuser(s_host_axis_tuser[0]),
        .m_axis_tdata(m_net_axis_tdata), .m_axis_tkeep(m_net_axis_tkeep),
        .m_axis_tvalid(m_net_axis_tvalid), .m_axis_tready(m_net_axis_tready),
        .m_axis_tlast(m_net_axis_tlast), .m_axis_tuser(m_net_axis_tuser[0]),
        .s_axil_awaddr(w_awaddr[23:12]),
        .s_axil_awprot(w_awprot[5:3]),
        .s_axil_awvalid(w_awvalid[1:1]),
        .s_axil_awready(w_awready[1:1]),
        .s_axil_wdata(w_wdata[63:32]),
        .s_axil_wstrb(w_wstrb[7:4]),
        .s_axil_wvalid(w_wvalid[1:1]),
        .s_axil_wready(w_wready[1:1]),
        .s_axil_bresp(w_bresp[3:2]),
        .s_axil_bvalid(w_bvalid[1:1]),
        .s_axil_bready(w_bready[1:1]),
        .s_axil_araddr(w_araddr[23:12]),
        .s_axil_arprot(w_arprot[5:3]),
        .s_axil_arvalid(w_arvalid[1:1]),
        .s_axil_arready(w_arready[1:1]),
        .s_axil_rdata(w_rdata[63:32]),
        .s_axil_rresp(w_rresp[3:2]),
        .s_axil_rvalid(w_rvalid[1:1]),
        .s_axil_rready(w_rready[1:1]),
        .s_axil_tbl_awaddr(w_awaddr[47:36]),
        .s_axil_tbl_awprot(w_awprot[11:9]),
        .s_axil_tbl_awvalid(w_awvalid[3:3]),
        .s_axil_tbl_awready(w_awready[3:3]),
        .s_axil_tbl_wdata(w_wdata[127:96]),
        .s_axil_tbl_wstrb(w_wstrb[15:12]),
        .s_axil_tbl_wvalid(w_wvalid[3:3]),
        .s_axil_tbl_wready(w_wready[3:3]),
        .s_axil_tbl_bresp(w_bresp[7:6]),
        .s_axil_tbl_bvalid(w_bvalid[3:3]),
        .s_axil_tbl_bready(w_bready[3:3]),
        .s_axil_tbl_araddr(w_araddr[47:36]),
        .s_axil_tbl_arprot(w_arprot[11:9]),
        .s_axil_tbl_arvalid(w_arvalid[3:3]),
        .s_axil_tbl_arready(w_arready[3:3]),
        .s_axil_tbl_rdata(w_rdata[127:96]),
        .s_axil_tbl_rresp(w_rresp[7:6]),
        .s_axil_tbl_rvalid(w_rvalid[3:3]),
        .s_axil_tbl_rready(w_rready[3:3]),
        .m_stat_valid(m_encap_stat_valid), .m_stat_outcome(m_encap_stat_outcome),
        .m_stat_emit(m_encap_stat_emit), .m_stat_len(m_encap_stat_len)
    );

endmodule

`default_nettype wire
