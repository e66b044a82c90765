// SPDX-License-Identifier: Apache-2.0
//
// A behavioural stand-in for the ECP5 DP16KD block RAM, only as far as wirespeed's RAMs use it,
// so that tb/ram_sdp_reg and tb/hash_table can check the tiles' wiring (the word address at
// ADx[13 -: bits], byte enables, data bit order, the output registers' extra cycle):
// - one width on both ports (ram_sdp_reg's and ram_tdp_reg's tiles): port A reading, port B
//   reading or writing with WRITEMODE NORMAL (its read data kept on a write), the 18-bit
//   mode's byte enables on ADB[1:0], REGMODE NOREG or OUTREG per port, word 0 from INITVAL_00;
// - the 36-bit pseudo-dual-port mode (DATA_WIDTH_A = 36) of hash_table's SDP_MEM tiles, wired
//   as nextpnr wires a PDPW16KD onto the DP16KD: the write on port A's clock, enabled by CEA
//   (WEA unused), its word address on ADA[13:5] and byte enables on ADA[3:0], data DI[17:0]
//   on DIA and DI[35:18] on DIB; the read on port B's clock, address ADB[13:5], data DO[17:0]
//   on DOB and DO[35:18] on DOA, through the output register with REGMODE_B OUTREG.
// The port and parameter names are the primitive's (Lattice FPGA Libraries Reference Guide;
// Yosys techlibs/lattice brams_map_16kd.v maps onto the same). Test-bench only.
module DP16KD #(
    parameter int DATA_WIDTH_A = 18,
    parameter int DATA_WIDTH_B = 18,
    parameter string REGMODE_A = "NOREG",
    parameter string REGMODE_B = "NOREG",
    parameter string RESETMODE = "SYNC",
    parameter string CSDECODE_A = "0b000",
    parameter string CSDECODE_B = "0b000",
    parameter string WRITEMODE_A = "NORMAL",
    parameter string WRITEMODE_B = "NORMAL",
    parameter string GSR = "ENABLED",
    parameter logic [319:0] INITVAL_00 = '0
) (
    input  wire logic DIA17, DIA16, DIA15, DIA14, DIA13, DIA12, DIA11, DIA10, DIA9, DIA8,
    input  wire logic DIA7, DIA6, DIA5, DIA4, DIA3, DIA2, DIA1, DIA0,
    input  wire logic ADA13, ADA12, ADA11, ADA10, ADA9, ADA8, ADA7, ADA6, ADA5, ADA4, ADA3,
    input  wire logic ADA2, ADA1, ADA0,
    input  wire logic CEA, OCEA, CLKA, WEA, RSTA, CSA2, CSA1, CSA0,
    output      logic DOA17, DOA16, DOA15, DOA14, DOA13, DOA12, DOA11, DOA10, DOA9, DOA8,
    output      logic DOA7, DOA6, DOA5, DOA4, DOA3, DOA2, DOA1, DOA0,
    input  wire logic DIB17, DIB16, DIB15, DIB14, DIB13, DIB12, DIB11, DIB10, DIB9, DIB8,
    input  wire logic DIB7, DIB6, DIB5, DIB4, DIB3, DIB2, DIB1, DIB0,
    input  wire logic ADB13, ADB12, ADB11, ADB10, ADB9, ADB8, ADB7, ADB6, ADB5, ADB4, ADB3,
    input  wire logic ADB2, ADB1, ADB0,
    input  wire logic CEB, OCEB, CLKB, WEB, RSTB, CSB2, CSB1, CSB0,
    output      logic DOB17, DOB16, DOB15, DOB14, DOB13, DOB12, DOB11, DOB10, DOB9, DOB8,
    output      logic DOB7, DOB6, DOB5, DOB4, DOB3, DOB2, DOB1, DOB0
);
    localparam bit PDP = DATA_WIDTH_A == 36;
    localparam int TW  = PDP ? 36 : DATA_WIDTH_A;
    localparam int AB  = PDP ? 9 : (TW == 18) ? 10 : (TW == 9) ? 11 : (TW == 4) ? 12 :
                         (TW == 2) ? 13 : 14;

    logic [13:0]   ada, adb;
    logic [17:0]   dia, dib;
    logic [TW-1:0] mem [2 ** AB];

    assign ada = {ADA13, ADA12, ADA11, ADA10, ADA9, ADA8, ADA7, ADA6, ADA5, ADA4, ADA3, ADA2,
                  ADA1, ADA0};
    assign adb = {ADB13, ADB12, ADB11, ADB10, ADB9, ADB8, ADB7, ADB6, ADB5, ADB4, ADB3, ADB2,
                  ADB1, ADB0};
    assign dia = {DIA17, DIA16, DIA15, DIA14, DIA13, DIA12, DIA11, DIA10, DIA9, DIA8, DIA7,
                  DIA6, DIA5, DIA4, DIA3, DIA2, DIA1, DIA0};
    assign dib = {DIB17, DIB16, DIB15, DIB14, DIB13, DIB12, DIB11, DIB10, DIB9, DIB8, DIB7,
                  DIB6, DIB5, DIB4, DIB3, DIB2, DIB1, DIB0};

    initial begin
        for (int v = 0; v < 2 ** AB; v++) mem[v] = (v == 0) ? INITVAL_00[TW-1:0] : '0;
    end

    logic [17:0] doa, dob;

    if (PDP) begin : g_pdp
        logic [35:0] di, rd_q, out_q, dout;
        assign di = {dib, dia};
        always_ff @(posedge CLKA) begin
            if (CEA) begin
                // byte enables on ADA[3:0], one per 9 bits
                for (int b = 0; b < 4; b++) begin
                    if (ada[b]) mem[ada[13 -: AB]][9*b +: 9] <= di[9*b +: 9];
                end
            end
        end
        always_ff @(posedge CLKB) begin
            if (CEB)  rd_q  <= mem[adb[13 -: AB]];
            if (OCEB) out_q <= rd_q;
        end
        assign dout = (REGMODE_B == "OUTREG") ? out_q : rd_q;
        assign dob  = dout[17:0];
        assign doa  = dout[35:18];
    end else begin : g_tdp
        logic [17:0] rd_q, out_q, rd_b_q, out_b_q;
        always_ff @(posedge CLKB) begin
            if (CEB && WEB) begin
                if (TW == 18) begin
                    // byte enables: ADB0 the low 9 bits, ADB1 the high 9
                    if (ADB0) mem[adb[13 -: AB]][8:0] <= dib[8:0];
                    if (ADB1) mem[adb[13 -: AB]][TW-1:9] <= dib[TW-1:9];
                end else begin
                    mem[adb[13 -: AB]] <= dib[TW-1:0];
                end
            end else if (CEB) begin
                rd_b_q <= 18'(mem[adb[13 -: AB]]);
            end
            if (OCEB) out_b_q <= rd_b_q;
        end
        always_ff @(posedge CLKA) begin
            if (CEA) rd_q <= 18'(mem[ada[13 -: AB]]);
            if (OCEA) out_q <= rd_q;
        end
        assign doa = (REGMODE_A == "OUTREG") ? out_q : rd_q;
        assign dob = (REGMODE_B == "OUTREG") ? out_b_q : rd_b_q;
    end

    assign {DOA17, DOA16, DOA15, DOA14, DOA13, DOA12, DOA11, DOA10, DOA9, DOA8, DOA7, DOA6,
            DOA5, DOA4, DOA3, DOA2, DOA1, DOA0} = doa;
    assign {DOB17, DOB16, DOB15, DOB14, DOB13, DOB12, DOB11, DOB10, DOB9, DOB8, DOB7, DOB6,
            DOB5, DOB4, DOB3, DOB2, DOB1, DOB0} = dob;
endmodule
// verilator lint_on UNUSEDPARAM
// verilator lint_on UNUSEDSIGNAL

`default_nettype wire
