// SPDX-License-Identifier: Apache-2.0
//
// ram_sdp_reg — a simple dual-port block RAM whose read data leaves through a register of its
// own: one write port, one read port, the word read RD_LATENCY = 2 cycles after its address.
//
//   raddr (cycle T) ─► RAM read ─► rd_q (T+1) ─► rdata (T+2, the output register)
//   we, waddr, wdata (cycle T) ─► the word is written at the end of T
//
// Why a module: a block RAM's clock-to-output without its output register is most of a cycle
// at the clock goal (4.3 ns of 6.1 on ECP5 -8), so the word must land in a register next to
// the RAM, and the RAM's own output register is the only one that is. Vivado and Quartus
// absorb the register written after the read into the RAM; Yosys's ECP5 mapping does not (it
// maps the read register alone, NOREG), so with WIRESPEED_ECP5_EBR defined (the ECP5 flow of
// scripts/synth) the RAM is built from DP16KD tiles with REGMODE OUTREG. Otherwise the RAM is
// inferred: that is what simulation and the other vendors' tools read.
//
// Read during write of the same word: the word read is undefined (no_rw_check); a caller that
// can meet that case detects it itself (allow_list does).
// Contents at configuration: word 0 is INIT_WORD0, every other word 0.

`default_nettype none

module ram_sdp_reg #(
    // Address bits: 2**ADDR_W words (1 .. 14).
    parameter int ADDR_W = 10,
    // Word width in bits.
    parameter int DATA_W = 64,
    // Word 0 at configuration (the rest are 0).
    parameter logic [DATA_W-1:0] INIT_WORD0 = '0
) (
    input  wire logic              clk,

    input  wire logic              we,
    input  wire logic [ADDR_W-1:0] waddr,
    input  wire logic [DATA_W-1:0] wdata,

    input  wire logic [ADDR_W-1:0] raddr,
    output      logic [DATA_W-1:0] rdata   // the word at raddr two cycles before
);

    if (ADDR_W < 1 || ADDR_W > 14) begin : g_err_addr_w
        $error("ram_sdp_reg: ADDR_W (%0d) must be 1 .. 14", ADDR_W);
    end
    if (DATA_W < 1) begin : g_err_data_w
        $error("ram_sdp_reg: DATA_W (%0d) must be at least 1", DATA_W);
    end

`ifdef WIRESPEED_ECP5_EBR
    // DP16KD tiles side by side, port A reading, port B writing. Port width by depth: 18 bits
    // up to 1024 words (ADDR_W <= 10), then 9, 4, 2, 1; the word address sits at the top of the
    // tile's 14 address bits (ADx[13:14-TAW]); in the 18-bit mode ADx[1:0] are byte enables.
    localparam int TAW  = (ADDR_W < 10) ? 10 : ADDR_W;               // tile address bits
    localparam int TW   = (TAW == 10) ? 18 : (TAW == 11) ? 9 : (TAW == 12) ? 4 :
                          (TAW == 13) ? 2 : 1;                       // tile port width
    localparam int NT   = (DATA_W + TW - 1) / TW;                    // tiles
    localparam int PADW = NT * TW;

    logic [13:0]     ada, adb;
    logic [PADW-1:0] wd, rd;

    always_comb begin
        ada = '0;
        adb = '0;
        ada[13 -: TAW] = TAW'(raddr);
        adb[13 -: TAW] = TAW'(waddr);
        if (TW == 18) adb[1:0] = 2'b11;   // both byte lanes written
    end
    assign wd    = PADW'(wdata);
    assign rdata = rd[DATA_W-1:0];

    for (genvar t = 0; t < NT; t++) begin : g_tile
        // Word 0's bits of this tile (in the 18-bit organisation the narrower modes share:
        // word 0 of any width is the low bits of the first 18-bit word).
        localparam logic [TW-1:0]  W0   = TW'(PADW'(INIT_WORD0) >> (t * TW));
        localparam logic [319:0]   IV00 = 320'(W0);
        logic [17:0] di, do_a;

        assign di = 18'(wd[t*TW +: TW]);
        assign rd[t*TW +: TW] = do_a[TW-1:0];

        // verilator lint_off PINMISSING
        DP16KD #(
            .DATA_WIDTH_A (TW),
            .DATA_WIDTH_B (TW),
            .REGMODE_A    ("OUTREG"),
            .REGMODE_B    ("NOREG"),
            .RESETMODE    ("SYNC"),
            .CSDECODE_A   ("0b000"),
            .CSDECODE_B   ("0b000"),
            .WRITEMODE_A  ("NORMAL"),
            .WRITEMODE_B  ("NORMAL"),
            .GSR          ("DISABLED"),
            .INITVAL_00   (IV00)
        ) u_tile (
            .CLKA (clk), .CEA (1'b1), .OCEA (1'b1), .WEA (1'b0), .RSTA (1'b0),
            .CSA0 (1'b0), .CSA1 (1'b0), .CSA2 (1'b0),
            .ADA0 (ada[0]),  .ADA1 (ada[1]),  .ADA2 (ada[2]),  .ADA3 (ada[3]),
            .ADA4 (ada[4]),  .ADA5 (ada[5]),  .ADA6 (ada[6]),  .ADA7 (ada[7]),
            .ADA8 (ada[8]),  .ADA9 (ada[9]),  .ADA10 (ada[10]), .ADA11 (ada[11]),
            .ADA12 (ada[12]), .ADA13 (ada[13]),
            .DIA0 (1'b0), .DIA1 (1'b0), .DIA2 (1'b0), .DIA3 (1'b0), .DIA4 (1'b0), .DIA5 (1'b0),
            .DIA6 (1'b0), .DIA7 (1'b0), .DIA8 (1'b0), .DIA9 (1'b0), .DIA10 (1'b0),
            .DIA11 (1'b0), .DIA12 (1'b0), .DIA13 (1'b0), .DIA14 (1'b0), .DIA15 (1'b0),
            .DIA16 (1'b0), .DIA17 (1'b0),
            .DOA0 (do_a[0]),  .DOA1 (do_a[1]),  .DOA2 (do_a[2]),  .DOA3 (do_a[3]),
            .DOA4 (do_a[4]),  .DOA5 (do_a[5]),  .DOA6 (do_a[6]),  .DOA7 (do_a[7]),
            .DOA8 (do_a[8]),  .DOA9 (do_a[9]),  .DOA10 (do_a[10]), .DOA11 (do_a[11]),
            .DOA12 (do_a[12]), .DOA13 (do_a[13]), .DOA14 (do_a[14]), .DOA15 (do_a[15]),
            .DOA16 (do_a[16]), .DOA17 (do_a[17]),
            .CLKB (clk), .CEB (1'b1), .OCEB (1'b1), .WEB (we), .RSTB (1'b0),
            .CSB0 (1'b0), .CSB1 (1'b0), .CSB2 (1'b0),
            .ADB0 (adb[0]),  .ADB1 (adb[1]),  .ADB2 (adb[2]),  .ADB3 (adb[3]),
            .ADB4 (adb[4]),  .ADB5 (adb[5]),  .ADB6 (adb[6]),  .ADB7 (adb[7]),
            .ADB8 (adb[8]),  .ADB9 (adb[9]),  .ADB10 (adb[10]), .ADB11 (adb[11]),
            .ADB12 (adb[12]), .ADB13 (adb[13]),
            .DIB0 (di[0]),  .DIB1 (di[1]),  .DIB2 (di[2]),  .DIB3 (di[3]),  .DIB4 (di[4]),
            .DIB5 (di[5]),  .DIB6 (di[6]),  .DIB7 (di[7]),  .DIB8 (di[8]),  .DIB9 (di[9]),
            .DIB10 (di[10]), .DIB11 (di[11]), .DIB12 (di[12]), .DIB13 (di[13]),
            .DIB14 (di[14]), .DIB15 (di[15]), .DIB16 (di[16]), .DIB17 (di[17])
        );
        // verilator lint_on PINMISSING
    end
`else
    (* ram_style = "block", no_rw_check *)
    logic [DATA_W-1:0] mem [2 ** ADDR_W];
    logic [DATA_W-1:0] rd_q;     // the RAM's read register
    logic [DATA_W-1:0] out_q;    // its output register

    initial begin
        for (int v = 0; v < 2 ** ADDR_W; v++) mem[v] = (v == 0) ? INIT_WORD0 : '0;
    end

    always_ff @(posedge clk) begin
        if (we) mem[waddr] <= wdata;
        rd_q  <= mem[raddr];
        out_q <= rd_q;
    end

    assign rdata = out_q;
`endif

endmodule

`default_nettype wire
