// SPDX-License-Identifier: Apache-2.0
//
// allow_list: a list of {source, destination} IPv4 address pairs, programmed over AXI4-Lite
// and looked up combinationally by the datapath (docs/gre_decap.md, 0x1000 window).
//
// Register map (byte addresses relative to the window)
//   16*i + 0x0   SRC[i]     RW   entry i source address
//   16*i + 0x4   DST[i]     RW   entry i destination address
//   16*i + 0x8   VALID[i]   RW   bit 0: entry i valid (bits 31:1 read 0)
//   16*i + 0xC   -               unmapped
//
// AXI4-Lite behaviour (the slave front end is axil_reg_if)
//   * ADDR_W-bit byte address, 32-bit data. Address bits [1:0] are ignored (word access only);
//     all other address bits are decoded (an entry index >= ENTRIES is unmapped).
//   * One write and one read may be in flight at the same time (the two channels are
//     independent); each channel accepts its next request after its response was taken.
//   * Write: AW and W are accepted in either order or together; the entry is written in the
//     cycle both are present, and B is raised in the next cycle.
//   * Read: AR is accepted when no R is pending; R follows in the next cycle.
//   * WSTRB selects byte lanes (VALID: lane 0); a write with WSTRB = 0 changes nothing (and
//     still answers OKAY).
//   * Unmapped addresses (reads and writes) answer SLVERR (2'b10) with read data 0.
//     AWPROT/ARPROT are ignored.
//
// Entries and lookup
//   * ENTRIES entries of {src, dst, valid} in flip-flops. Only VALID is reset (to 0).
//   * lookup_hit answers one cycle after lookup_src/lookup_dst: some valid entry i had
//     src == lookup_src and dst == lookup_dst (parallel compare, registered per entry, then
//     OR-ed). A write takes effect in the lookups made from the cycle after the write is
//     performed (the cycle B is raised).

`default_nettype none

module allow_list #(
    // Number of entries (1 .. 2**ADDR_W / 16)
    parameter int ENTRIES = 64,
    // AXI4-Lite byte address width (the window is 2**ADDR_W bytes)
    parameter int ADDR_W  = 12
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

    // Lookup: lookup_hit is the answer for the pair presented in the previous cycle
    input  wire logic [31:0]       lookup_src,
    input  wire logic [31:0]       lookup_dst,
    output      logic              lookup_hit
);

    // ------------------------------------------------------------------------------------
    // Elaboration-time parameter checks
    // ------------------------------------------------------------------------------------
    if (ADDR_W < 5 || ADDR_W > 32) begin : g_check_addr_w
        $error("allow_list: ADDR_W (%0d) must be 5..32", ADDR_W);
    end
    if (ENTRIES < 1 || ENTRIES > 2 ** (ADDR_W - 4)) begin : g_check_entries
        $error("allow_list: ENTRIES (%0d) must be 1..2**(ADDR_W-4) (%0d)", ENTRIES,
               2 ** (ADDR_W - 4));
    end

    // ------------------------------------------------------------------------------------
    // Constants
    // ------------------------------------------------------------------------------------
    localparam int WA_W = ADDR_W - 2;                              // word address width
    localparam int IDX_W = (ENTRIES > 1) ? $clog2(ENTRIES) : 1;    // entry index width
    localparam int ENT_PAD = 2 ** IDX_W;                           // padded read array size

    // A mapped word address: entry index (word address [WA_W-1:2]) < ENTRIES, field != 3
    function automatic logic is_entry_addr(input logic [WA_W-1:0] a);
        is_entry_addr = 32'(a[WA_W-1:2]) < 32'(ENTRIES) && a[1:0] != 2'd3;
    endfunction

    // ------------------------------------------------------------------------------------
    // AXI4-Lite front end: a write is performed in the cycle its wr_req is raised and
    // answered at once (B in the next cycle); a read is answered in its rd_req cycle
    // ------------------------------------------------------------------------------------
    logic            wr_req;
    logic [WA_W-1:0] wr_addr; // word address
    logic [31:0]     wr_data;
    logic [3:0]      wr_strb;
    logic            wr_ok;
    logic            rd_req;
    logic [WA_W-1:0] rd_addr; // word address
    logic [31:0]     rd_data;
    logic            rd_ok;

    axil_reg_if #(
        .ADDR_W (ADDR_W)
    ) u_axil (
        .clk            (clk),
        .rst            (rst),
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
        .wr_req         (wr_req),
        .wr_addr        (wr_addr),
        .wr_data        (wr_data),
        .wr_strb        (wr_strb),
        .rd_req         (rd_req),
        .rd_addr        (rd_addr),
        .rd_data        (rd_data),
        .wr_ready (1'b1),
        .wr_ack   (wr_req),
        .wr_err   (!wr_ok),
        .rd_ack   (rd_req),
        .rd_err   (!rd_ok)
    );

    assign wr_ok = is_entry_addr(wr_addr);

    // ------------------------------------------------------------------------------------
    // Entries
    // ------------------------------------------------------------------------------------
    // Byte-lane merge of a write into a 32-bit register
    function automatic logic [31:0] apply_strb(input logic [31:0] old, input logic [31:0] data,
                                               input logic [3:0] strb);
        logic [31:0] r;
        for (int b = 0; b < 4; b++) begin
            r[8*b +: 8] = strb[b] ? data[8*b +: 8] : old[8*b +: 8];
        end
        apply_strb = r;
    endfunction

    logic [IDX_W-1:0]          wr_idx;
    logic [ENTRIES-1:0]        entry_hit;
    logic [ENT_PAD-1:0][31:0]  src_rd;
    logic [ENT_PAD-1:0][31:0]  dst_rd;
    logic [ENT_PAD-1:0]        valid_rd;

    assign wr_idx = wr_addr[2 +: IDX_W];

    for (genvar i = 0; i < ENT_PAD; i++) begin : g_entry
        if (i < ENTRIES) begin : g_impl
            logic [31:0] src_q;   // data: not reset
            logic [31:0] dst_q;   // data: not reset
            logic        valid_q; // control: reset to 0
            logic        sel;

            assign sel = wr_req && wr_ok && wr_idx == IDX_W'(i);

            always_ff @(posedge clk) begin
                if (sel && wr_addr[1:0] == 2'd0) src_q <= apply_strb(src_q, wr_data, wr_strb);
                if (sel && wr_addr[1:0] == 2'd1) dst_q <= apply_strb(dst_q, wr_data, wr_strb);
            end

            always_ff @(posedge clk) begin
                if (rst) begin
                    valid_q <= 1'b0;
                end else if (sel && wr_addr[1:0] == 2'd2 && wr_strb[0]) begin
                    valid_q <= wr_data[0];
                end
            end

            // Registered per entry: the compare and the OR of all entries are not in one cycle.
            always_ff @(posedge clk) begin
                entry_hit[i] <= valid_q && src_q == lookup_src && dst_q == lookup_dst;
            end
            assign src_rd[i]    = src_q;
            assign dst_rd[i]    = dst_q;
            assign valid_rd[i]  = valid_q;
        end else begin : g_none
            assign src_rd[i]   = '0;
            assign dst_rd[i]   = '0;
            assign valid_rd[i] = 1'b0;
        end
    end

    assign lookup_hit = |entry_hit;

    // ------------------------------------------------------------------------------------
    // Read data (unmapped: 0, SLVERR)
    // ------------------------------------------------------------------------------------
    logic [IDX_W-1:0] rd_idx;

    assign rd_idx = rd_addr[2 +: IDX_W];
    assign rd_ok  = is_entry_addr(rd_addr);

    always_comb begin
        rd_data = 32'd0;
        if (rd_ok) begin
            unique case (rd_addr[1:0])
                2'd0:    rd_data = src_rd[rd_idx];
                2'd1:    rd_data = dst_rd[rd_idx];
                default: rd_data = {31'd0, valid_rd[rd_idx]};
            endcase
        end
    end

endmodule

`default_nettype wire
