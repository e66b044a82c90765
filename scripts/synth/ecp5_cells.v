// The ECP5 primitives that RTL instantiates under WIRESPEED_ECP5_EBR (rtl/mem/ram_sdp_reg.sv),
// declared as black boxes for read_slang; synth_ecp5 and nextpnr know them by name. Ports and
// parameters as in Yosys's techlibs/lattice/cells_sim_ecp5.v.
(* blackbox *)
module DP16KD (
    input  wire DIA17,
    input  wire DIA16,
    input  wire DIA15,
    input  wire DIA14,
    input  wire DIA13,
    input  wire DIA12,
    input  wire DIA11,
    input  wire DIA10,
    input  wire DIA9,
    input  wire DIA8,
    input  wire DIA7,
    input  wire DIA6,
    input  wire DIA5,
    input  wire DIA4,
    input  wire DIA3,
    input  wire DIA2,
    input  wire DIA1,
    input  wire DIA0,
    input  wire ADA13,
    input  wire ADA12,
    input  wire ADA11,
    input  wire ADA10,
    input  wire ADA9,
    input  wire ADA8,
    input  wire ADA7,
    input  wire ADA6,
    input  wire ADA5,
    input  wire ADA4,
    input  wire ADA3,
    input  wire ADA2,
    input  wire ADA1,
    input  wire ADA0,
    input  wire CEA,
    input  wire OCEA,
    input  wire CLKA,
    input  wire WEA,
    input  wire RSTA,
    input  wire CSA2,
    input  wire CSA1,
    input  wire CSA0,
    input  wire DIB17,
    input  wire DIB16,
    input  wire DIB15,
    input  wire DIB14,
    input  wire DIB13,
    input  wire DIB12,
    input  wire DIB11,
    input  wire DIB10,
    input  wire DIB9,
    input  wire DIB8,
    input  wire DIB7,
    input  wire DIB6,
    input  wire DIB5,
    input  wire DIB4,
    input  wire DIB3,
    input  wire DIB2,
    input  wire DIB1,
    input  wire DIB0,
    input  wire ADB13,
    input  wire ADB12,
    input  wire ADB11,
    input  wire ADB10,
    input  wire ADB9,
    input  wire ADB8,
    input  wire ADB7,
    input  wire ADB6,
    input  wire ADB5,
    input  wire ADB4,
    input  wire ADB3,
    input  wire ADB2,
    input  wire ADB1,
    input  wire ADB0,
    input  wire CEB,
    input  wire OCEB,
    input  wire CLKB,
    input  wire WEB,
    input  wire RSTB,
    input  wire CSB2,
    input  wire CSB1,
    input  wire CSB0,
    output wire DOA17,
    output wire DOA16,
    output wire DOA15,
    output wire DOA14,
    output wire DOA13,
    output wire DOA12,
    output wire DOA11,
    output wire DOA10,
    output wire DOA9,
    output wire DOA8,
    output wire DOA7,
    output wire DOA6,
    output wire DOA5,
    output wire DOA4,
    output wire DOA3,
    output wire DOA2,
    output wire DOA1,
    output wire DOA0,
    output wire DOB17,
    output wire DOB16,
    output wire DOB15,
    output wire DOB14,
    output wire DOB13,
    output wire DOB12,
    output wire DOB11,
    output wire DOB10,
    output wire DOB9,
    output wire DOB8,
    output wire DOB7,
    output wire DOB6,
    output wire DOB5,
    output wire DOB4,
    output wire DOB3,
    output wire DOB2,
    output wire DOB1,
    output wire DOB0
);
    parameter DATA_WIDTH_A = 18;
    parameter DATA_WIDTH_B = 18;
    parameter REGMODE_A = "NOREG";
    parameter REGMODE_B = "NOREG";
    parameter RESETMODE = "SYNC";
    parameter ASYNC_RESET_RELEASE = "SYNC";
    parameter CSDECODE_A = "0b000";
    parameter CSDECODE_B = "0b000";
    parameter WRITEMODE_A = "NORMAL";
    parameter WRITEMODE_B = "NORMAL";
    parameter GSR = "ENABLED";
    parameter INITVAL_00 = 320'h0;
    parameter INITVAL_01 = 320'h0;
    parameter INITVAL_02 = 320'h0;
    parameter INITVAL_03 = 320'h0;
    parameter INITVAL_04 = 320'h0;
    parameter INITVAL_05 = 320'h0;
    parameter INITVAL_06 = 320'h0;
    parameter INITVAL_07 = 320'h0;
    parameter INITVAL_08 = 320'h0;
    parameter INITVAL_09 = 320'h0;
    parameter INITVAL_0A = 320'h0;
    parameter INITVAL_0B = 320'h0;
    parameter INITVAL_0C = 320'h0;
    parameter INITVAL_0D = 320'h0;
    parameter INITVAL_0E = 320'h0;
    parameter INITVAL_0F = 320'h0;
    parameter INITVAL_10 = 320'h0;
    parameter INITVAL_11 = 320'h0;
    parameter INITVAL_12 = 320'h0;
    parameter INITVAL_13 = 320'h0;
    parameter INITVAL_14 = 320'h0;
    parameter INITVAL_15 = 320'h0;
    parameter INITVAL_16 = 320'h0;
    parameter INITVAL_17 = 320'h0;
    parameter INITVAL_18 = 320'h0;
    parameter INITVAL_19 = 320'h0;
    parameter INITVAL_1A = 320'h0;
    parameter INITVAL_1B = 320'h0;
    parameter INITVAL_1C = 320'h0;
    parameter INITVAL_1D = 320'h0;
    parameter INITVAL_1E = 320'h0;
    parameter INITVAL_1F = 320'h0;
    parameter INITVAL_20 = 320'h0;
    parameter INITVAL_21 = 320'h0;
    parameter INITVAL_22 = 320'h0;
    parameter INITVAL_23 = 320'h0;
    parameter INITVAL_24 = 320'h0;
    parameter INITVAL_25 = 320'h0;
    parameter INITVAL_26 = 320'h0;
    parameter INITVAL_27 = 320'h0;
    parameter INITVAL_28 = 320'h0;
    parameter INITVAL_29 = 320'h0;
    parameter INITVAL_2A = 320'h0;
    parameter INITVAL_2B = 320'h0;
    parameter INITVAL_2C = 320'h0;
    parameter INITVAL_2D = 320'h0;
    parameter INITVAL_2E = 320'h0;
    parameter INITVAL_2F = 320'h0;
    parameter INITVAL_30 = 320'h0;
    parameter INITVAL_31 = 320'h0;
    parameter INITVAL_32 = 320'h0;
    parameter INITVAL_33 = 320'h0;
    parameter INITVAL_34 = 320'h0;
    parameter INITVAL_35 = 320'h0;
    parameter INITVAL_36 = 320'h0;
    parameter INITVAL_37 = 320'h0;
    parameter INITVAL_38 = 320'h0;
    parameter INITVAL_39 = 320'h0;
    parameter INITVAL_3A = 320'h0;
    parameter INITVAL_3B = 320'h0;
    parameter INITVAL_3C = 320'h0;
    parameter INITVAL_3D = 320'h0;
    parameter INITVAL_3E = 320'h0;
    parameter INITVAL_3F = 320'h0;
endmodule
