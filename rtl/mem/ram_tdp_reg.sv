// SPDX-License-Identifier: Apache-2.0
//
// ram_tdp_reg — a true dual-port block RAM on one clock whose read data leave through the RAM's
// own output registers: port A reads, port B reads or writes (hash_table: the lookup on A, the
// control side on B).
//
//   addr_a (cycle T) ─► RAM read ─► [output register] ─► rdata_a (T+1, or T+2 with A_OUTREG)
//   addr_b (cycle T), we_b = 0 ─► RAM read ─► output register ─► rdata_b (T+2)
//   addr_b, we_b = 1, wdata_b (cycle T) ─► the word is written at the end of T; port B's read
//                                           data keep the word read before (no change)
//
// Both ports read every cycle they do not write. Why the output registers: a block RAM's
// clock-to-output without them is most of a cycle at the clock goal (4.3 ns of 6.1 on ECP5 -8),
// and the RAM's own output register is the only one next to the RAM. Yosys's ECP5 mapping does
// not absorb a register after the read (rtl/mem/ram_sdp_reg.sv), so with WIRESPEED_ECP5_EBR
// defined (the ECP5 flow of scripts/synth) the RAM is built from DP16KD tiles, REGMODE OUTREG
// (port A: NOREG without A_OUTREG) and WRITEMODE NORMAL on port B. Otherwise it is inferred:
// what simulation and the other vendors' tools read.
//
// Port A reading the word port B writes in the same cycle: the word read is undefined; the
// caller detects that case itself (hash_table's collision bypass). Contents at configuration:
// undefined (all 0 on ECP5); the caller clears what it uses.

`default_nettype none

module ram_tdp_reg #(
    // Address bits: 2**ADDR_W words (1 .. 24; 14 at most in DP16KD tiles).
    parameter int ADDR_W = 10,
    // Word width in bits.
    parameter int DATA_W = 64,
    // 1: port A's data through the output register (2 cycles); 0: straight from the RAM (1).
    parameter bit A_OUTREG = 1'b1
) (
    input  wire logic              clk,

    input  wire logic [ADDR_W-1:0] addr_a,
    output      logic [DATA_W-1:0] rdata_a,   // the word at addr_a 1 (A_OUTREG: 2) cycles before

    input  wire logic              we_b,
    input  wire logic [ADDR_W-1:0] addr_b,
    input  wire logic [DATA_W-1:0] wdata_b,
    output      logic [DATA_W-1:0] rdata_b    // the word at addr_b 2 cycles before (a write: kept)
);

    if (ADDR_W < 1 || ADDR_W > 24) begin : g_err_addr_w
        $error("ram_tdp_reg: ADDR_W (%0d) must be 1 .. 24", ADDR_W);
    end
    if (DATA_W < 1) begin : g_err_data_w
        $error("ram_tdp_reg: DATA_W (%0d) must be at least 1", DATA_W);
    end

`ifdef WIRESPEED_ECP5_EBR
    // DP16KD tiles side by side. Port width by depth: 18 bits up to 1024 words (ADDR_W <= 10),
    // then 9, 4, 2, 1; the word address at the top of the tile's 14 address bits
    // (ADx[13:14-TAW]); in the 18-bit mode ADx[1:0] are the write's byte enables.
    localparam int TAW  = (ADDR_W < 10) ? 10 : ADDR_W;               // tile address bits
    localparam int TW   = (TAW == 10) ? 18 : (TAW == 11) ? 9 : (TAW == 12) ? 4 :
                          (TAW == 13) ? 2 : 1;                       // tile port width
    localparam int NT   = (DATA_W + TW - 1) / TW;                    // tiles
    localparam int PADW = NT * TW;

    if (ADDR_W > 14) begin : g_err_tile_addr_w
        $error("ram_tdp_reg: ADDR_W (%0d) must be at most 14 with DP16KD tiles", ADDR_W);
    end

    logic [13:0]     ada, adb;
    logic [PADW-1:0] wd, rda, rdb;

    always_comb begin
        ada = '0;
        adb = '0;
        ada[13 -: TAW] = TAW'(addr_a);
        adb[13 -: TAW] = TAW'(addr_b);
        if (TW == 18) adb[1:0] = 2'b11;   // both byte lanes written
    end
    assign wd      = PADW'(wdata_b);
    assign rdata_a = rda[DATA_W-1:0];
    assign rdata_b = rdb[DATA_W-1:0];

    for (genvar t = 0; t < NT; t++) begin : g_tile
        logic [17:0] di, do_a, do_b;

        assign di = 18'(wd[t*TW +: TW]);
        assign rda[t*TW +: TW] = do_a[TW-1:0];
        assign rdb[t*TW +: TW] = do_b[TW-1:0];

        // verilator lint_off PINMISSING
        DP16KD #(
            .DATA_WIDTH_A (TW),
            .DATA_WIDTH_B (TW),
            .REGMODE_A    (A_OUTREG ? "OUTREG" : "NOREG"),
            .REGMODE_B    ("OUTREG"),
            .RESETMODE    ("SYNC"),
            .CSDECODE_A   ("0b000"),
            .CSDECODE_B   ("0b000"),
            .WRITEMODE_A  ("NORMAL"),
            .WRITEMODE_B  ("NORMAL"),
            .GSR          ("DISABLED")
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
            .CLKB (clk), .CEB (1'b1), .OCEB (1'b1), .WEB (we_b), .RSTB (1'b0),
            .CSB0 (1'b0), .CSB1 (1'b0), .CSB2 (1'b0),
            .ADB0 (adb[0]),  .ADB1 (adb[1]),  .ADB2 (adb[2]),  .ADB3 (adb[3]),
            .ADB4 (adb[4]),  .ADB5 (adb[5]),  .ADB6 (adb[6]),  .ADB7 (adb[7]),
            .ADB8 (adb[8]),  .ADB9 (adb[9]),  .ADB10 (adb[10]), .ADB11 (adb[11]),
            .ADB12 (adb[12]), .ADB13 (adb[13]),
            .DIB0 (di[0]),  .DIB1 (di[1]),  .DIB2 (di[2]),  .DIB3 (di[3]),  .DIB4 (di[4]),
            .DIB5 (di[5]),  .DIB6 (di[6]),  .DIB7 (di[7]),  .DIB8 (di[8]),  .DIB9 (di[9]),
            .DIB10 (di[10]), .DIB11 (di[11]), .DIB12 (di[12]), .DIB13 (di[13]),
            .DIB14 (di[14]), .DIB15 (di[15]), .DIB16 (di[16]), .DIB17 (di[17]),
            .DOB0 (do_b[0]),  .DOB1 (do_b[1]),  .DOB2 (do_b[2]),  .DOB3 (do_b[3]),
            .DOB4 (do_b[4]),  .DOB5 (do_b[5]),  .DOB6 (do_b[6]),  .DOB7 (do_b[7]),
            .DOB8 (do_b[8]),  .DOB9 (do_b[9]),  .DOB10 (do_b[10]), .DOB11 (do_b[11]),
            .DOB12 (do_b[12]), .DOB13 (do_b[13]), .DOB14 (do_b[14]), .DOB15 (do_b[15]),
            .DOB16 (do_b[16]), .DOB17 (do_b[17])
        );
        // verilator lint_on PINMISSING
    end
`else
    (* ram_style = "block", no_rw_check *)
    logic [DATA_W-1:0] mem [2 ** ADDR_W];
    logic [DATA_W-1:0] rd_a_q;     // port A's read register
    logic [DATA_W-1:0] rd_b_q;     // port B's read register (kept on a write)
    logic [DATA_W-1:0] out_b_q;    // port B's output register

    always_ff @(posedge clk) begin
        rd_a_q <= mem[addr_a];
    end

    always_ff @(posedge clk) begin
        if (we_b) mem[addr_b] <= wdata_b;
        else      rd_b_q <= mem[addr_b];
        out_b_q <= rd_b_q;
    end

    if (A_OUTREG) begin : g_out_a
        logic [DATA_W-1:0] out_a_q;    // port A's output register
        always_ff @(posedge clk) begin
            out_a_q <= rd_a_q;
        end
        assign rdata_a = out_a_q;
    end else begin : g_raw_a
        assign rdata_a = rd_a_q;
    end

    assign rdata_b = out_b_q;
`endif

endmodule

`default_nettype wire
