// SPDX-License-Identifier: Apache-2.0
//
// axil_reg_if: the AXI4-Lite slave front end of a register block (allow_list, block_csr,
// hash_table). It turns the five AXI4-Lite channels into a simple register-access port and
// leaves the register map (decode, read mux, side effects) to the block.
//
// AXI4-Lite side
//   * ADDR_W-bit byte address, 32-bit data. Address bits [1:0] are ignored (word access only),
//     AWPROT/ARPROT too: the register port carries word addresses (byte address [ADDR_W-1:2]).
//   * The write and read channels are independent: one write and one read may be in flight at
//     the same time; each channel accepts its next request after its response was taken.
//   * Write: AW and W are accepted in either order or together (each is held in a register if
//     it comes first). AW and W are not accepted while a B is pending or a write waits for its
//     wr_ack.
//   * Read: AR is accepted when no R is pending and no read waits for its rd_ack.
//
// Register side
//   * wr_req (one-cycle pulse) with wr_addr/wr_data/wr_strb: a write, raised in the cycle both
//     AW and W are present (the cycle of the later of the two handshakes, or of a held AW/W
//     once wr_ready allows) and wr_ready is high (REQ_REG: the cycle after both are held). The
//     block performs the write in that cycle.
//     wr_addr/wr_data/wr_strb are meaningful only while wr_req is high.
//   * wr_ack with wr_err: the write's answer, in the cycle of wr_req or any later cycle
//     (wr_ack outside a pending write is ignored). B is raised in the cycle after wr_ack,
//     BRESP = SLVERR (2'b10) if wr_err, else OKAY. So a block answering in the wr_req cycle
//     gives B one cycle after the AW/W handshake; a block that needs n more cycles (e.g. a
//     memory command) gives B n cycles later.
//   * wr_ready: the block can take a write this cycle. While it is low, AW and W are still
//     accepted (and held) but wr_req waits. Tie to 1 if the block is always ready.
//   * rd_req (one-cycle pulse) with rd_addr: a read, raised in the cycle of the AR handshake
//     (REQ_REG: the cycle after it).
//     rd_addr is meaningful only while rd_req is high.
//   * rd_ack with rd_data and rd_err: the read's answer, in the cycle of rd_req or any later
//     cycle (ignored outside a pending read). R is raised in the cycle after rd_ack with
//     RDATA = rd_data and RRESP = SLVERR if rd_err, else OKAY (the block drives rd_data = 0 on
//     an error if it wants read data 0).
//
// Reset: synchronous, active high, on the channel state only (pending AW/W, B and R valid,
// waiting for an answer); the held address/data and the response payloads are not reset.

`default_nettype none

module axil_reg_if #(
    // AXI4-Lite byte address width (3..32); the register port's word address is ADDR_W-2 bits
    parameter int ADDR_W = 12,
    // 1: wr_req/rd_req and their address and data come from registers only: a request is
    // raised the cycle after its handshakes (one cycle more per access), so the block's
    // request logic starts at flip-flops, not at the AXI handshake's logic
    parameter bit REQ_REG = 1'b0
) (
    input  wire logic              clk,
    input  wire logic              rst,

    // AXI4-Lite slave
    input  wire logic [ADDR_W-1:0] s_axil_awaddr,
    input  wire logic [2:0]        s_axil_awprot,
    input  wire logic              s_axil_awvalid,
    output      logic              s_axil_awready,
    input  wire logic [31:0]       s_axil_wdata,
    input  wire logic [3:0]        s_axil_wstrb,
    input  wire logic              s_axil_wvalid,
    output      logic              s_axil_wready,
    output      logic [1:0]        s_axil_bresp,
    output      logic              s_axil_bvalid,
    input  wire logic              s_axil_bready,
    input  wire logic [ADDR_W-1:0] s_axil_araddr,
    input  wire logic [2:0]        s_axil_arprot,
    input  wire logic              s_axil_arvalid,
    output      logic              s_axil_arready,
    output      logic [31:0]       s_axil_rdata,
    output      logic [1:0]        s_axil_rresp,
    output      logic              s_axil_rvalid,
    input  wire logic              s_axil_rready,

    // Register write port
    input  wire logic              wr_ready,
    output      logic              wr_req,
    output      logic [ADDR_W-3:0] wr_addr,  // word address
    output      logic [31:0]       wr_data,
    output      logic [3:0]        wr_strb,
    input  wire logic              wr_ack,
    input  wire logic              wr_err,

    // Register read port
    output      logic              rd_req,
    output      logic [ADDR_W-3:0] rd_addr,  // word address
    input  wire logic              rd_ack,
    input  wire logic [31:0]       rd_data,
    input  wire logic              rd_err
);

    // ------------------------------------------------------------------------------------
    // Elaboration-time parameter checks
    // ------------------------------------------------------------------------------------
    if (ADDR_W < 3 || ADDR_W > 32) begin : g_check_addr_w
        $error("axil_reg_if: ADDR_W (%0d) must be 3..32", ADDR_W);
    end

    // ------------------------------------------------------------------------------------
    // Constants
    // ------------------------------------------------------------------------------------
    localparam logic [1:0] RESP_OKAY   = 2'b00;
    localparam logic [1:0] RESP_SLVERR = 2'b10;

    localparam int WA_W = ADDR_W - 2; // word address width

    // ------------------------------------------------------------------------------------
    // Unused inputs (lint waiver by name)
    // ------------------------------------------------------------------------------------
    logic unused_axil;
    assign unused_axil = ^{s_axil_awprot, s_axil_arprot, s_axil_awaddr[1:0], s_axil_araddr[1:0]};

    // ------------------------------------------------------------------------------------
    // Write channel
    // ------------------------------------------------------------------------------------
    logic            aw_full_q;   // AW accepted, waiting for W (or for wr_ready)
    logic            w_full_q;    // W accepted, waiting for AW (or for wr_ready)
    logic            bwait_q;     // wr_req given, waiting for wr_ack
    logic            bvalid_q;
    logic [1:0]      bresp_q;     // data: not reset
    logic [WA_W-1:0] aw_addr_q;   // data: not reset
    logic [31:0]     w_data_q;    // data: not reset
    logic [3:0]      w_strb_q;    // data: not reset

    logic aw_hs;
    logic w_hs;
    logic wr_done;  // the pending write is answered this cycle

    assign s_axil_awready = !aw_full_q && !bvalid_q && !bwait_q;
    assign s_axil_wready  = !w_full_q && !bvalid_q && !bwait_q;
    assign s_axil_bvalid  = bvalid_q;
    assign s_axil_bresp   = bresp_q;

    assign aw_hs   = s_axil_awvalid && s_axil_awready;
    assign w_hs    = s_axil_wvalid && s_axil_wready;

    if (REQ_REG) begin : g_wr_reg
        // (AW and W are not accepted while a write is pending or answered: both full means
        // neither bwait_q nor bvalid_q)
        assign wr_req  = aw_full_q && w_full_q && wr_ready;
        assign wr_addr = aw_addr_q;
        assign wr_data = w_data_q;
        assign wr_strb = w_strb_q;
    end else begin : g_wr_comb
        logic have_aw, have_w;
        assign have_aw = aw_full_q || aw_hs;
        assign have_w  = w_full_q || w_hs;
        assign wr_req  = have_aw && have_w && !bvalid_q && !bwait_q && wr_ready;
        assign wr_addr = aw_full_q ? aw_addr_q : s_axil_awaddr[ADDR_W-1:2];
        assign wr_data = w_full_q ? w_data_q : s_axil_wdata;
        assign wr_strb = w_full_q ? w_strb_q : s_axil_wstrb;
    end
    assign wr_done = wr_ack && (wr_req || bwait_q);

    always_ff @(posedge clk) begin
        if (rst) begin
            aw_full_q <= 1'b0;
            w_full_q  <= 1'b0;
            bwait_q   <= 1'b0;
            bvalid_q  <= 1'b0;
        end else begin
            if (wr_req) begin
                aw_full_q <= 1'b0;
                w_full_q  <= 1'b0;
            end else begin
                if (aw_hs) aw_full_q <= 1'b1;
                if (w_hs)  w_full_q  <= 1'b1;
            end
            if (wr_done) begin
                bwait_q  <= 1'b0;
                bvalid_q <= 1'b1;
            end else begin
                if (wr_req)        bwait_q  <= 1'b1;
                if (s_axil_bready) bvalid_q <= 1'b0;
            end
        end
    end

    always_ff @(posedge clk) begin
        if (aw_hs) aw_addr_q <= s_axil_awaddr[ADDR_W-1:2];
        if (w_hs) begin
            w_data_q <= s_axil_wdata;
            w_strb_q <= s_axil_wstrb;
        end
        if (wr_done) bresp_q <= wr_err ? RESP_SLVERR : RESP_OKAY;
    end

    // ------------------------------------------------------------------------------------
    // Read channel
    // ------------------------------------------------------------------------------------
    logic        rwait_q;   // rd_req given, waiting for rd_ack
    logic        ar_full_q; // REQ_REG: AR accepted, rd_req raised from it
    logic [WA_W-1:0] ar_addr_q; // data: not reset
    logic        rvalid_q;
    logic [31:0] rdata_q;   // data: not reset
    logic [1:0]  rresp_q;   // data: not reset
    logic        rd_done;   // the pending read is answered this cycle

    assign s_axil_arready = !rvalid_q && !rwait_q && !ar_full_q;
    assign s_axil_rvalid  = rvalid_q;
    assign s_axil_rdata   = rdata_q;
    assign s_axil_rresp   = rresp_q;

    if (REQ_REG) begin : g_rd_reg
        assign rd_req  = ar_full_q;
        assign rd_addr = ar_addr_q;
    end else begin : g_rd_comb
        logic unused_ar;   // (the held AR of REQ_REG)
        assign unused_ar = ^ar_addr_q;
        assign rd_req    = s_axil_arvalid && s_axil_arready;
        assign rd_addr   = s_axil_araddr[ADDR_W-1:2];
    end
    assign rd_done = rd_ack && (rd_req || rwait_q);

    always_ff @(posedge clk) begin
        ar_full_q <= REQ_REG && (s_axil_arvalid && s_axil_arready);
        if (rst) begin
            ar_full_q <= 1'b0;
            rwait_q   <= 1'b0;
            rvalid_q  <= 1'b0;
        end else if (rd_done) begin
            rwait_q  <= 1'b0;
            rvalid_q <= 1'b1;
        end else begin
            if (rd_req)        rwait_q  <= 1'b1;
            if (s_axil_rready) rvalid_q <= 1'b0;
        end
    end

    always_ff @(posedge clk) begin
        if (s_axil_arvalid && s_axil_arready) ar_addr_q <= s_axil_araddr[ADDR_W-1:2];
        if (rd_done) begin
            rdata_q <= rd_data;
            rresp_q <= rd_err ? RESP_SLVERR : RESP_OKAY;
        end
    end

endmodule

`default_nettype wire
