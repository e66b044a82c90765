// SPDX-License-Identifier: Apache-2.0
//
// hash_table: exact-match table, two banks of 4-way buckets, looked up in hardware and filled
// by software (docs/vxlan.md, "The table: `hash_table` and its software side").
//
// Lookup
//   * One lookup per cycle, in order, no backpressure, fixed latency LOOKUP_LATENCY (3 by
//     default): a key presented with lk_valid in cycle t is answered with rs_valid in cycle
//     t+3.
//       cycle t    h0 = CRC-32C(key bytes) mod BUCKETS, h1 = CRC-32(key bytes) mod BUCKETS
//                  (an XOR tree per index bit), registered with the key
//       cycle t+1  registered read of bucket h0 of bank 0 and bucket h1 of bank 1
//                  (the 8 slot memories at once)
//       cycle t+2  compare the 8 ways, select the value, register
//       cycle t+3  rs_valid, rs_hit, rs_value (rs_value = 0 on a miss)
//     With LOOKUP_LATENCY = 4 the words read (and the collision bypass) are registered once
//     more in fabric before the comparisons, which then happen in cycle t+3: a block RAM's
//     clock-to-output (4.1 ns for an ECP5 DP16KD, docs/performance.md) is no longer in
//     series with the 8 key comparisons and the value multiplexer. Answers in cycle t+4.
//     With LOOKUP_LATENCY = 5 the comparisons are registered per way in cycle t+3 (key
//     chunks, a qualifier, and the value, the bypassed word's where the way was bypassed; a
//     bypassed word's key compared a cycle early), and the first hit's value is selected in
//     cycle t+4 by a balanced tree of pairwise selects. Answers in cycle t+5. With
//     LOOKUP_LATENCY = 6 the words read land in fabric registers of their own first (a block
//     RAM's output reaches only that register, beside the RAM, so a table whose RAMs span
//     the die crosses it register to register, into comparisons of two LUT levels), and
//     everything after is a cycle later. Answers in cycle t+6. With LOOKUP_LATENCY = 7 the
//     select's first level (the pairs of ways: a hit and a value each) is registered too, so
//     the ways' values are gathered from across the die in two register-to-register steps.
//     Answers in cycle t+7. What a lookup sees of a concurrent command is the same at every
//     latency (the read is in cycle t+1).
//   * Key bytes: the key as a big-endian integer in ceil(KEY_W/8) bytes. CRC-32C: reflected,
//     polynomial 0x82F63B78, init and final xor 0xFFFFFFFF; CRC-32: the zlib one (0xEDB88320).
//   * If a key is valid in more than one way (only transiently, while software relocates an
//     entry, and then with the same value), the first in the order bank 0 way 0..3, bank 1
//     way 0..3 wins.
//
// Memory organisation
//   * 8 slot memories, one per (bank, way): `logic [SLOT_W-1:0] mem [BUCKETS]`, BUCKETS =
//     SLOTS/8, SLOT_W = 1 + KEY_W + VALUE_W, word = {valid, key, value}. A bucket is the same
//     address in the 4 memories of its bank. Memory m = bank*4 + way.
//   * Each memory has two ports on one clock: port A, read-only, for the lookup; port B, read
//     or write (no-change), for the control side only: a true-dual-port BRAM/URAM
//     (rtl/mem/ram_tdp_reg.sv), read through its output registers where the latency allows. A slot is one word of one memory, so a command
//     writes it in a single memory write: a lookup sees the whole old slot or the whole new
//     one. When port B writes the word port A reads in the same cycle, the lookup does not
//     use port A's output (a BRAM in NO_CHANGE/WRITE_FIRST mode returns garbage on such a
//     collision) but the written word, registered beside the read: it sees the new slot.
//   * With SDP_MEM = 1 each memory is a simple dual-port RAM instead: a write port for the
//     control side and one read port, the lookup's, through the RAM's output register
//     (2 cycles: LOOKUP_LATENCY 4 or 5). On ECP5 a block RAM tile is then 512 x 36 bits (true
//     dual port: at most 18 bits wide), half the tiles for a wide word. The read port reads
//     the bucket of TBL_SLOT in every cycle no lookup reads; the valid bits are kept a second
//     time in a small control-side RAM (one word of 8 bits per bucket), from which a command
//     learns whether its slot was valid (TBL_COUNT), so writes and deletes keep the timing
//     below whatever the lookups do. Only op 3 needs the slot's word: its read waits in a+2
//     while a lookup holds the read port (a lookup presented in a+1, a+2, ...), and B is late
//     by the cycles it waited. Lookups come at most every other cycle where the table is used
//     this way (one per frame of at least 2 beats), so op 3 waits at most a cycle there.
//   * Memories are not reset. After rst the control side clears every slot (one bucket of all
//     8 memories per cycle, BUCKETS cycles, TBL_STATUS.busy = 1); lookups miss until then.
//
// Control: AXI4-Lite slave (front end: axil_reg_if), ADDR_W-bit byte addresses, 32-bit data (register map of
// docs/vxlan.md). Address bits [1:0] are ignored, AWPROT/ARPROT too.
//   0x000 TBL_INFO     RO  [7:0] log2(SLOTS), [15:8] 4, [31:16] KEY_W
//   0x004 TBL_VALUE_W  RO  VALUE_W
//   0x008 TBL_COUNT    RO  number of valid slots
//   0x00C TBL_CMD      WO  [1:0] op: 0 none, 1 write, 2 delete, 3 read (reads as 0)
//   0x010 TBL_SLOT     RW  [0] bank, [2:1] way, [31:3] bucket
//   0x014 TBL_STATUS   RO  [0] busy, [31] valid bit of the slot last read by op 3
//   0x020 + 4i TBL_KEY[i]   RW, i < ceil(KEY_W/32)   (bits above KEY_W read 0)
//   0x040 + 4i TBL_VALUE[i] RW, i < ceil(VALUE_W/32) (bits above VALUE_W read 0)
//   * Other addresses, and writes to RO registers, answer SLVERR (reads return 0).
//   * Requests are registered before they act (control may take cycles; the lookup may not
//     take logic depth): a write taken by its AW/W handshake in cycle a is decoded and
//     performed from registers in a+1 (a register write: B valid in a+2).
//   * A TBL_CMD write with op != 0 (WSTRB[0] set) on a slot whose bucket is >= BUCKETS answers
//     SLVERR and does nothing. Otherwise a command is busy for 4 cycles, a+2 .. a+5: a+2 reads
//     the slot on port B, a+3 writes it (op 1: {1, KEY, VALUE}; op 2: all zero) while the word
//     read enters the RAM's output register, a+4 registers the slot's word beside its memory,
//     a+5 copies it into TBL_KEY/TBL_VALUE/TBL_STATUS[31] (op 3) or updates TBL_COUNT (op 1
//     on an invalid slot +1, op 2 on a valid slot -1). Lookups presented up to cycle a+1 see
//     the old slot, lookups from a+2 on the new one. B is valid in a+6, once the slot is
//     written: when software sees B, every later lookup sees the new contents.
//   * A command holds the write channel until its B, so TBL_KEY/TBL_VALUE/TBL_SLOT never
//     change under it. During the post-reset clear a write is taken (AW/W) but performed
//     and answered only when the clear is done. Reads are always answered.
//   * Write channel: AW and W in either order or together; one write in flight. Read
//     channel: the address is registered with the AR handshake in cycle r, R is valid in r+2;
//     one read in flight. WSTRB selects byte lanes of the RW registers.

`default_nettype none

module hash_table #(
    // Key width in bits (1..256)
    parameter int KEY_W = 45,
    // Value width in bits (1..256)
    parameter int VALUE_W = 214,
    // Number of slots: a power of two, 16..2^24 (2 banks x SLOTS/8 buckets x 4 ways)
    parameter int SLOTS = 32768,
    // AXI4-Lite byte address width (7..32): the register window is 2^ADDR_W bytes
    parameter int ADDR_W = 12,
    // Cycles from lk_valid to rs_valid: 3; 4 with the read words registered before the
    // comparisons; 5 with also the way hits registered before the select; 6 with also the
    // words landed in fabric registers before the comparisons; 7 with also the select's first
    // level registered (see "Lookup")
    parameter int LOOKUP_LATENCY = 3,
    // 1: simple dual-port slot memories, the control side reading through the lookup's read
    //    port (see "Memory organisation"); LOOKUP_LATENCY 4 .. 7 only. 0: true dual port.
    parameter bit SDP_MEM = 1'b0
) (
    input  wire logic               clk,
    input  wire logic               rst,

    // Lookup request
    input  wire logic               lk_valid,
    input  wire logic [KEY_W-1:0]   lk_key,

    // Lookup result, LOOKUP_LATENCY cycles after the request
    output      logic               rs_valid,
    output      logic               rs_hit,
    output      logic [VALUE_W-1:0] rs_value,

    // AXI4-Lite slave
    input  wire logic [ADDR_W-1:0]  s_axil_awaddr,
    input  wire logic [2:0]         s_axil_awprot,
    input  wire logic               s_axil_awvalid,
    output      logic               s_axil_awready,
    input  wire logic [31:0]        s_axil_wdata,
    input  wire logic [3:0]         s_axil_wstrb,
    input  wire logic               s_axil_wvalid,
    output      logic               s_axil_wready,
    output      logic [1:0]         s_axil_bresp,
    output      logic               s_axil_bvalid,
    input  wire logic               s_axil_bready,
    input  wire logic [ADDR_W-1:0]  s_axil_araddr,
    input  wire logic [2:0]         s_axil_arprot,
    input  wire logic               s_axil_arvalid,
    output      logic               s_axil_arready,
    output      logic [31:0]        s_axil_rdata,
    output      logic [1:0]         s_axil_rresp,
    output      logic               s_axil_rvalid,
    input  wire logic               s_axil_rready
);

    // ------------------------------------------------------------------------------------
    // Elaboration-time parameter checks
    // ------------------------------------------------------------------------------------
    if (KEY_W < 1 || KEY_W > 256) begin : g_err_key_w
        $error("hash_table: KEY_W (%0d) must be 1..256", KEY_W);
    end
    if (VALUE_W < 1 || VALUE_W > 256) begin : g_err_value_w
        $error("hash_table: VALUE_W (%0d) must be 1..256", VALUE_W);
    end
    if (SLOTS < 16 || SLOTS > (1 << 24) || (SLOTS & (SLOTS - 1)) != 0) begin : g_err_slots
        $error("hash_table: SLOTS (%0d) must be a power of two, 16..2^24", SLOTS);
    end
    if (ADDR_W < 7 || ADDR_W > 32) begin : g_err_addr_w
        $error("hash_table: ADDR_W (%0d) must be 7..32", ADDR_W);
    end
    if (LOOKUP_LATENCY < 3 || LOOKUP_LATENCY > 7) begin : g_err_latency
        $error("hash_table: LOOKUP_LATENCY (%0d) must be 3 .. 7", LOOKUP_LATENCY);
    end
    if (SDP_MEM && (LOOKUP_LATENCY < 4 || SLOTS > (1 << 17))) begin : g_err_sdp
        $error("hash_table: SDP_MEM needs LOOKUP_LATENCY 4 .. 7 and SLOTS <= 2^17");
    end

    // ------------------------------------------------------------------------------------
    // Constants
    // ------------------------------------------------------------------------------------
    localparam int WAYS        = 4;
    localparam int MEMS        = 2 * WAYS;                 // one memory per (bank, way)
    localparam int BUCKETS     = SLOTS / 8;                // per bank
    localparam int BIDX_W      = $clog2(BUCKETS);          // >= 1 (SLOTS >= 16)
    localparam int LOG2_SLOTS  = $clog2(SLOTS);
    localparam int CNT_W       = LOG2_SLOTS + 1;           // 0..SLOTS
    localparam int SLOT_W      = 1 + KEY_W + VALUE_W;      // {valid, key, value}
    localparam int KEY_BYTES   = (KEY_W + 7) / 8;
    localparam int KEY_WORDS   = (KEY_W + 31) / 32;
    localparam int VALUE_WORDS = (VALUE_W + 31) / 32;
    localparam int KEY_PAD     = 32 * KEY_WORDS;
    localparam int VALUE_PAD   = 32 * VALUE_WORDS;
    localparam int WA_W        = ADDR_W - 2;               // word address width

    localparam logic [31:0] CRC32C_POLY = 32'h82F6_3B78;   // reflected Castagnoli
    localparam logic [31:0] CRC32_POLY  = 32'hEDB8_8320;   // reflected IEEE 802.3 (zlib)

    localparam logic [31:0] INFO_VALUE = {16'(KEY_W), 8'(WAYS), 8'(LOG2_SLOTS)};

    // Word addresses (byte address / 4)
    localparam int WA_INFO    = 'h000 / 4;
    localparam int WA_VALUE_W = 'h004 / 4;
    localparam int WA_COUNT   = 'h008 / 4;
    localparam int WA_CMD     = 'h00C / 4;
    localparam int WA_SLOT    = 'h010 / 4;
    localparam int WA_STATUS  = 'h014 / 4;
    localparam int WA_KEY     = 'h020 / 4;
    localparam int WA_VALUE   = 'h040 / 4;

    localparam logic [1:0] OP_NONE   = 2'd0;
    localparam logic [1:0] OP_WRITE  = 2'd1;
    localparam logic [1:0] OP_DELETE = 2'd2;
    localparam logic [1:0] OP_READ   = 2'd3;

    // ------------------------------------------------------------------------------------
    // Hash functions
    // ------------------------------------------------------------------------------------
    localparam int KEY_BITS = 8 * KEY_BYTES;

    // Reflected CRC-32 (init and final xor 0xFFFFFFFF) of the key as a big-endian integer in
    // KEY_BYTES bytes: byte 0 = data[8*KEY_BYTES-1 -: 8], each byte least significant bit
    // first. Evaluated at elaboration only (crc_matrix).
    function automatic logic [31:0] crc32_key(input logic [KEY_BITS-1:0] data,
                                              input logic [31:0] poly);
        logic [31:0] c;
        logic        fb;
        c = 32'hFFFF_FFFF;
        for (int i = 0; i < KEY_BYTES; i++) begin
            for (int j = 0; j < 8; j++) begin
                fb = c[0] ^ data[8 * (KEY_BYTES - 1 - i) + j];
                c  = {1'b0, c[31:1]} ^ (fb ? poly : 32'd0);
            end
        end
        crc32_key = ~c;
    endfunction

    // The CRC of a fixed-length message is affine in its bits: crc(x) = crc(0) ^ XOR of the
    // columns of the bits set. Row j = the key bits that output bit j depends on, so each bucket
    // index bit is one balanced XOR tree (a few LUT levels), not the serial bit loop's chain.
    typedef logic [31:0][KEY_BITS-1:0] crc_mat_t;

    function automatic crc_mat_t crc_matrix(input logic [31:0] poly);
        logic [KEY_BITS-1:0] e;
        logic [31:0]         c0;
        logic [31:0]         c;
        crc_matrix = '0;
        c0 = crc32_key('0, poly);
        for (int b = 0; b < KEY_BITS; b++) begin
            e    = '0;
            e[b] = 1'b1;
            c    = crc32_key(e, poly) ^ c0;
            for (int j = 0; j < 32; j++) crc_matrix[j][b] = c[j];
        end
    endfunction

    localparam crc_mat_t    CRC0_MAT   = crc_matrix(CRC32C_POLY);
    localparam crc_mat_t    CRC1_MAT   = crc_matrix(CRC32_POLY);
    localparam logic [31:0] CRC0_CONST = crc32_key('0, CRC32C_POLY);
    localparam logic [31:0] CRC1_CONST = crc32_key('0, CRC32_POLY);

    // ------------------------------------------------------------------------------------
    // Lookup stage 1: hash, register
    // ------------------------------------------------------------------------------------
    logic [KEY_BITS-1:0]    lk_bytes;
    logic [1:0][BIDX_W-1:0] lk_idx;   // bucket per bank
    assign lk_bytes = KEY_BITS'(lk_key);

    for (genvar j = 0; j < BIDX_W; j++) begin : g_hash
        assign lk_idx[0][j] = CRC0_CONST[j] ^ (^(lk_bytes & CRC0_MAT[j]));
        assign lk_idx[1][j] = CRC1_CONST[j] ^ (^(lk_bytes & CRC1_MAT[j]));
    end

    // Valid pipeline: lk_v_q[i] = a lookup is in stage i (stage LOOKUP_LATENCY = result)
    logic [LOOKUP_LATENCY:1] lk_v_q;

    always_ff @(posedge clk) begin
        if (rst) lk_v_q <= '0;
        else     lk_v_q <= {lk_v_q[LOOKUP_LATENCY-1:1], lk_valid};
    end

    logic                     s1_valid;
    logic [KEY_W-1:0]         s1_key_q;   // data: not reset
    logic [1:0][BIDX_W-1:0]   s1_idx_q;   // bucket per bank (data: not reset)

    assign s1_valid = lk_v_q[1];

    // The data registers of the lookup pipeline load only with a lookup (each where its stage
    // is valid: a clock enable, no logic in the data path); every use of them is qualified by
    // that stage's valid, so the answers are the same, and an idle cycle costs a simulator no
    // hashing and no wide copies.
    always_ff @(posedge clk) begin
        if (lk_valid) s1_key_q <= lk_key;
    end

    logic [31:0] slot_q;   // TBL_SLOT (register file below)

    if (SDP_MEM) begin : g_s1_idx_sdp
        // The read port is the control side's too: it reads TBL_SLOT's bucket in every cycle
        // no lookup reads (op 3's read; uses of s1_idx_q by the lookup are qualified by its
        // valid).
        always_ff @(posedge clk) begin
            if (lk_valid) s1_idx_q <= lk_idx;
            else          s1_idx_q <= {2{slot_q[3 +: BIDX_W]}};
        end
    end else begin : g_s1_idx
        always_ff @(posedge clk) begin
            if (lk_valid) s1_idx_q <= lk_idx;
        end
    end

    // ------------------------------------------------------------------------------------
    // Control-side memory port: registers, driven by the command engine below
    // ------------------------------------------------------------------------------------
    logic [BIDX_W-1:0] ctl_addr_q;
    logic [MEMS-1:0]   ctl_we_q;
    logic [SLOT_W-1:0] ctl_wdata_q;

    // ------------------------------------------------------------------------------------
    // Slot memories (lookup stage 2: registered read of both buckets). Each is read through
    // its block RAM's output register where a cycle allows (port A with LOOKUP_LATENCY >= 4,
    // port B always), so no block RAM's clock-to-output is in series with a wire to fabric.
    // ------------------------------------------------------------------------------------
    // Per memory, unpacked: each word on its own (a packed [MEMS][SLOT_W] vector puts memory m
    // at bit m*SLOT_W, which a simulator shifts into place on every copy; same hardware)
    logic [SLOT_W-1:0] lk_rd  [MEMS];   // port A read data, per memory
    logic [SLOT_W-1:0] ctl_rd [MEMS];   // port B read data (2 cycles), per memory

    for (genvar m = 0; m < MEMS; m++) begin : g_mem
        if (!SDP_MEM) begin : g_tdp
            ram_tdp_reg #(
                .ADDR_W   (BIDX_W),
                .DATA_W   (SLOT_W),
                .A_OUTREG (LOOKUP_LATENCY >= 4)
            ) u_ram (
                .clk     (clk),
                .addr_a  (s1_idx_q[m / WAYS]),
                .rdata_a (lk_rd[m]),
                .we_b    (ctl_we_q[m]),
                .addr_b  (ctl_addr_q),
                .wdata_b (ctl_wdata_q),
                .rdata_b (ctl_rd[m])
            );
        end else begin : g_sdp
            // The control side reads through the lookup's port, two cycles like port B.
            assign ctl_rd[m] = lk_rd[m];
`ifdef WIRESPEED_ECP5_EBR
            if (BIDX_W <= 9) begin : g_pdp
                // 512 x 36 tiles: DP16KD in its pseudo-dual-port mode, wired as nextpnr wires
                // a PDPW16KD onto it: the write on port A (CEA its enable, the word address on
                // ADA[13:5], byte enables on ADA[3:0], data bits 0-17 on DIA and 18-35 on
                // DIB), the read on port B (address on ADB[13:5], bits 0-17 on DOB and 18-35
                // on DOA) through the output register.
                localparam int NT = (SLOT_W + 35) / 36;
                logic [13:0]      adw, adr;
                logic [NT*36-1:0] wd;
                // verilator lint_off UNUSEDSIGNAL
                logic [NT*36-1:0] rd;   // the bits above SLOT_W: padding
                // verilator lint_on UNUSEDSIGNAL

                always_comb begin
                    adw = '0;
                    adr = '0;
                    adw[13 -: 9] = 9'(ctl_addr_q);
                    adw[3:0]     = 4'b1111;
                    adr[13 -: 9] = 9'(s1_idx_q[m / WAYS]);
                end
                assign wd       = (NT*36)'(ctl_wdata_q);
                assign lk_rd[m] = rd[SLOT_W-1:0];

                for (genvar t = 0; t < NT; t++) begin : g_tile
                    logic [17:0] dil, dih, dol, doh;
                    assign dil = wd[t*36 +: 18];
                    assign dih = wd[t*36+18 +: 18];
                    assign rd[t*36 +: 36] = {doh, dol};

                    // verilator lint_off PINMISSING
                    DP16KD #(
                        .DATA_WIDTH_A (36),
                        .DATA_WIDTH_B (36),
                        .REGMODE_A    ("OUTREG"),
                        .REGMODE_B    ("OUTREG"),
                        .RESETMODE    ("SYNC"),
                        .CSDECODE_A   ("0b000"),
                        .CSDECODE_B   ("0b000"),
                        .WRITEMODE_A  ("NORMAL"),
                        .WRITEMODE_B  ("NORMAL"),
                        .GSR          ("DISABLED")
                    ) u_tile (
                        .CLKA (clk), .CEA (ctl_we_q[m]), .RSTA (1'b0),
                        .CSA0 (1'b0), .CSA1 (1'b0), .CSA2 (1'b0),
                        .ADA0 (adw[0]),  .ADA1 (adw[1]),  .ADA2 (adw[2]),  .ADA3 (adw[3]),
                        .ADA4 (adw[4]),  .ADA5 (adw[5]),  .ADA6 (adw[6]),  .ADA7 (adw[7]),
                        .ADA8 (adw[8]),  .ADA9 (adw[9]),  .ADA10 (adw[10]), .ADA11 (adw[11]),
                        .ADA12 (adw[12]), .ADA13 (adw[13]),
                        .DIA0 (dil[0]),  .DIA1 (dil[1]),  .DIA2 (dil[2]),  .DIA3 (dil[3]),
                        .DIA4 (dil[4]),  .DIA5 (dil[5]),  .DIA6 (dil[6]),  .DIA7 (dil[7]),
                        .DIA8 (dil[8]),  .DIA9 (dil[9]),  .DIA10 (dil[10]), .DIA11 (dil[11]),
                        .DIA12 (dil[12]), .DIA13 (dil[13]), .DIA14 (dil[14]), .DIA15 (dil[15]),
                        .DIA16 (dil[16]), .DIA17 (dil[17]),
                        .DOA0 (doh[0]),  .DOA1 (doh[1]),  .DOA2 (doh[2]),  .DOA3 (doh[3]),
                        .DOA4 (doh[4]),  .DOA5 (doh[5]),  .DOA6 (doh[6]),  .DOA7 (doh[7]),
                        .DOA8 (doh[8]),  .DOA9 (doh[9]),  .DOA10 (doh[10]), .DOA11 (doh[11]),
                        .DOA12 (doh[12]), .DOA13 (doh[13]), .DOA14 (doh[14]), .DOA15 (doh[15]),
                        .DOA16 (doh[16]), .DOA17 (doh[17]),
                        .CLKB (clk), .CEB (1'b1), .OCEB (1'b1), .RSTB (1'b0),
                        .CSB0 (1'b0), .CSB1 (1'b0), .CSB2 (1'b0),
                        .ADB0 (adr[0]),  .ADB1 (adr[1]),  .ADB2 (adr[2]),  .ADB3 (adr[3]),
                        .ADB4 (adr[4]),  .ADB5 (adr[5]),  .ADB6 (adr[6]),  .ADB7 (adr[7]),
                        .ADB8 (adr[8]),  .ADB9 (adr[9]),  .ADB10 (adr[10]), .ADB11 (adr[11]),
                        .ADB12 (adr[12]), .ADB13 (adr[13]),
                        .DIB0 (dih[0]),  .DIB1 (dih[1]),  .DIB2 (dih[2]),  .DIB3 (dih[3]),
                        .DIB4 (dih[4]),  .DIB5 (dih[5]),  .DIB6 (dih[6]),  .DIB7 (dih[7]),
                        .DIB8 (dih[8]),  .DIB9 (dih[9]),  .DIB10 (dih[10]), .DIB11 (dih[11]),
                        .DIB12 (dih[12]), .DIB13 (dih[13]), .DIB14 (dih[14]), .DIB15 (dih[15]),
                        .DIB16 (dih[16]), .DIB17 (dih[17]),
                        .DOB0 (dol[0]),  .DOB1 (dol[1]),  .DOB2 (dol[2]),  .DOB3 (dol[3]),
                        .DOB4 (dol[4]),  .DOB5 (dol[5]),  .DOB6 (dol[6]),  .DOB7 (dol[7]),
                        .DOB8 (dol[8]),  .DOB9 (dol[9]),  .DOB10 (dol[10]), .DOB11 (dol[11]),
                        .DOB12 (dol[12]), .DOB13 (dol[13]), .DOB14 (dol[14]), .DOB15 (dol[15]),
                        .DOB16 (dol[16]), .DOB17 (dol[17])
                    );
                    // verilator lint_on PINMISSING
                end
            end else begin : g_deep
`endif
            ram_sdp_reg #(
                .ADDR_W (BIDX_W),
                .DATA_W (SLOT_W)
            ) u_ram (
                .clk   (clk),
                .we    (ctl_we_q[m]),
                .waddr (ctl_addr_q),
                .wdata (ctl_wdata_q),
                .raddr (s1_idx_q[m / WAYS]),
                .rdata (lk_rd[m])
            );
`ifdef WIRESPEED_ECP5_EBR
            end
`endif
        end
    end

    logic             s2_ok_q;    // the memory read happened after the post-reset clear
    logic [KEY_W-1:0] s2_key_q;   // data: not reset
    logic             clear_q;    // the table is being cleared (command engine)

    always_ff @(posedge clk) begin
        if (rst) s2_ok_q <= 1'b0;
        else     s2_ok_q <= !clear_q;
    end

    always_ff @(posedge clk) begin
        if (s1_valid) s2_key_q <= s1_key_q;
    end

    // Collision bypass: when port B writes the word that port A reads in the same cycle, the
    // lookup takes the written word (the new slot) instead of port A's output, so the result
    // does not depend on what the memory primitive returns on a read/write collision. The
    // flag is set whatever s1_valid says (only a lookup's compare reads it, and that is
    // qualified by cmp_valid): the lookup's valid, from the requester across the die, then
    // reaches no compare.
    logic [MEMS-1:0]   byp_d;
    logic [MEMS-1:0]   byp_q;
    logic [SLOT_W-1:0] byp_word_q;  // data: not reset (used only where byp_q says)

    for (genvar m = 0; m < MEMS; m++) begin : g_byp
        assign byp_d[m] = ctl_we_q[m] && ctl_addr_q == s1_idx_q[m / WAYS];
    end

    always_ff @(posedge clk) begin
        if (rst) byp_q <= '0;
        else     byp_q <= byp_d;
    end

    always_ff @(posedge clk) begin
        byp_word_q <= ctl_wdata_q;
    end

    // ------------------------------------------------------------------------------------
    // LOOKUP_LATENCY >= 4: the words read, the bypass and the key registered once more
    // ------------------------------------------------------------------------------------
    logic                        cmp_valid;
    logic                        cmp_ok;
    logic [KEY_W-1:0]            cmp_key;       // data: not reset
    logic [SLOT_W-1:0]           cmp_rd [MEMS]; // data: not reset
    logic [MEMS-1:0]             cmp_byp;
    logic [SLOT_W-1:0]           cmp_byp_word;  // data: not reset

    // The key, the qualifier and the bypass in the cycle before the comparisons' registers:
    // stage 2's, or (LOOKUP_LATENCY 6, 7) those a cycle later, beside the landing words.
    logic             pr_ok;
    logic [KEY_W-1:0] pr_key;
    logic [MEMS-1:0]  pr_byp;
    logic [SLOT_W-1:0] pr_byp_word;

    assign cmp_valid = lk_v_q[LOOKUP_LATENCY == 3 ? 2 : LOOKUP_LATENCY >= 6 ? 4 : 3];

    if (LOOKUP_LATENCY >= 6) begin : g_land
        logic [SLOT_W-1:0] land_q [MEMS];   // data: not reset
        logic              ok_q;
        logic [KEY_W-1:0]  key_q;           // data: not reset
        logic [MEMS-1:0]   byp_q2;
        logic [SLOT_W-1:0] byp_word_q2;     // data: not reset
        always_ff @(posedge clk) begin
            if (lk_v_q[3]) land_q <= lk_rd;
            if (lk_v_q[2]) key_q  <= s2_key_q;
            byp_word_q2 <= byp_word_q;
        end
        always_ff @(posedge clk) begin
            if (rst) begin
                ok_q   <= 1'b0;
                byp_q2 <= '0;
            end else begin
                ok_q   <= s2_ok_q;
                byp_q2 <= byp_q;
            end
        end
        assign cmp_rd      = land_q;
        assign pr_ok       = ok_q;
        assign pr_key      = key_q;
        assign pr_byp      = byp_q2;
        assign pr_byp_word = byp_word_q2;
    end else begin : g_land_none
        // the block RAMs' output registers (LOOKUP_LATENCY 4, 5), or their read (3)
        assign cmp_rd      = lk_rd;
        assign pr_ok       = s2_ok_q;
        assign pr_key      = s2_key_q;
        assign pr_byp      = byp_q;
        assign pr_byp_word = byp_word_q;
    end

    if (LOOKUP_LATENCY >= 4) begin : g_rd_reg
        always_ff @(posedge clk) begin
            cmp_key      <= pr_key;
            cmp_byp_word <= pr_byp_word;
        end
        always_ff @(posedge clk) begin
            if (rst) begin
                cmp_ok  <= 1'b0;
                cmp_byp <= '0;
            end else begin
                cmp_ok  <= pr_ok;
                cmp_byp <= pr_byp;
            end
        end
    end else begin : g_rd_direct
        assign cmp_ok       = pr_ok;
        assign cmp_key      = pr_key;
        assign cmp_byp      = pr_byp;
        assign cmp_byp_word = pr_byp_word;
    end

    // ------------------------------------------------------------------------------------
    // Lookup stage 3 (4): compare the 8 ways, select, register. With LOOKUP_LATENCY 5 .. 7
    // the 8 way hits and the 8 values are registered between the two (and with 7 the
    // select's first level too).
    // ------------------------------------------------------------------------------------
    logic               rs_hit_q;
    logic [VALUE_W-1:0] rs_value_q;  // data: not reset

    if (LOOKUP_LATENCY >= 5) begin : g_cmp_split
        // The bypassed word against the key, a cycle early (both are fabric registers), so
        // the comparisons see only the landed words.
        logic byp_hit_q;
        logic unused_byp_tag;   // compared from byp_word_q instead
        assign unused_byp_tag = ^cmp_byp_word[SLOT_W-1:VALUE_W];
        always_ff @(posedge clk) begin
            byp_hit_q <= pr_byp_word[SLOT_W-1] && pr_byp_word[VALUE_W +: KEY_W] == pr_key;
        end

        // Compare stage. Everything the select needs of a way is settled here, so a way's hit
        // in the select stage is an AND of its registers: each landed word's key compare in
        // chunks of CMP_W bits, forced true where the way is bypassed (the 2-bit compares
        // kept as nets of their own: one LUT4 each, so the mapper cannot make a chunk a chain
        // behind a wire that may cross the die). CMP_W is 4 (two LUT levels) where the words
        // come from the block RAMs' registers; 12 where they landed in fabric registers
        // (LOOKUP_LATENCY 6, 7: three LUT levels beside them), so a way's hit is one LUT5 of
        // four chunks and its qualifier before the select's wide multiplexers; the way's
        // qualifier (a lookup, after the post-reset clear, and the word valid, or the bypassed
        // word's hit); the way's value, the bypassed word's where the way is bypassed.
        localparam int CMP_W = (LOOKUP_LATENCY >= 6) ? 12 : 4;   // even
        localparam int NCMP  = (KEY_W + CMP_W - 1) / CMP_W;
        logic [NCMP-1:0]    key_eq_q [MEMS];   // per chunk: equal, or the way bypassed
        logic [MEMS-1:0]    way_ok_q;
        logic [VALUE_W-1:0] val_q [MEMS];      // data: not reset
        logic [MEMS-1:0]    hit;

        for (genvar m = 0; m < MEMS; m++) begin : g_way
            logic [NCMP*CMP_W-1:0] key, want;
            (* keep *) logic [NCMP*CMP_W/2-1:0] pair_eq;
            assign key  = (NCMP*CMP_W)'(cmp_rd[m][VALUE_W +: KEY_W]);
            assign want = (NCMP*CMP_W)'(cmp_key);
            for (genvar p = 0; p < NCMP * CMP_W / 2; p++) begin : g_pair
                assign pair_eq[p] = key[2*p +: 2] == want[2*p +: 2];
            end
            always_ff @(posedge clk) begin
                for (int c = 0; c < NCMP; c++) begin
                    key_eq_q[m][c] <= cmp_byp[m] || &pair_eq[(CMP_W/2)*c +: CMP_W/2];
                end
            end
            always_ff @(posedge clk) begin
                if (rst) way_ok_q[m] <= 1'b0;
                else     way_ok_q[m] <= cmp_valid && cmp_ok
                                        && (cmp_byp[m] ? byp_hit_q : cmp_rd[m][SLOT_W-1]);
            end
            always_ff @(posedge clk) begin
                if (cmp_valid) begin
                    val_q[m] <= cmp_byp[m] ? cmp_byp_word[VALUE_W-1:0] : cmp_rd[m][VALUE_W-1:0];
                end
            end
            assign hit[m] = way_ok_q[m] && &key_eq_q[m];
        end

        // Select stage: a balanced tree of pairwise selects, the left (lower) half's value
        // where it has a hit, else the right half's, so memory 0 keeps the priority in three
        // levels instead of a chain of eight; the last leaf is zeroed on a miss, which is
        // where the tree ends when no way hits (rs_value = 0).
        logic [VALUE_W-1:0] leaf [MEMS];
        logic [3:0]         h1;
        logic [VALUE_W-1:0] v1 [4];
        logic [1:0]         h2;
        logic [VALUE_W-1:0] v2 [2];

        for (genvar m = 0; m < MEMS - 1; m++) begin : g_leaf
            assign leaf[m] = val_q[m];
        end
        assign leaf[MEMS-1] = hit[MEMS-1] ? val_q[MEMS-1] : '0;

        for (genvar p = 0; p < 4; p++) begin : g_l1
            logic               h;
            logic [VALUE_W-1:0] v;
            assign h = hit[2*p] || hit[2*p+1];
            assign v = hit[2*p] ? leaf[2*p] : leaf[2*p+1];
            if (LOOKUP_LATENCY == 7) begin : g_reg
                always_ff @(posedge clk) begin
                    if (rst) h1[p] <= 1'b0;
                    else     h1[p] <= h;
                    v1[p] <= v;
                end
            end else begin : g_comb
                assign h1[p] = h;
                assign v1[p] = v;
            end
        end
        for (genvar p = 0; p < 2; p++) begin : g_l2
            assign h2[p] = h1[2*p] || h1[2*p+1];
            assign v2[p] = h1[2*p] ? v1[2*p] : v1[2*p+1];
        end

        always_ff @(posedge clk) begin
            if (rst) rs_hit_q <= 1'b0;
            else     rs_hit_q <= |h2;
        end
        always_ff @(posedge clk) begin
            rs_value_q <= h2[0] ? v2[0] : v2[1];
        end
    end else begin : g_cmp_one
        logic [MEMS-1:0]    way_hit;
        logic               lk_hit;
        logic               lk_byp;     // the selected way is the bypassed one
        logic [VALUE_W-1:0] lk_rd_value;
        logic [VALUE_W-1:0] lk_value;

        for (genvar m = 0; m < MEMS; m++) begin : g_way
            logic [KEY_W:0] tag;  // {valid, key}
            assign tag        = cmp_byp[m] ? cmp_byp_word[SLOT_W-1:VALUE_W]
                                           : cmp_rd[m][SLOT_W-1:VALUE_W];
            assign way_hit[m] = cmp_ok && tag[KEY_W] && tag[KEY_W-1:0] == cmp_key;
        end

        always_comb begin
            lk_hit      = 1'b0;
            lk_byp      = 1'b0;
            lk_rd_value = '0;
            for (int m = MEMS - 1; m >= 0; m--) begin   // memory 0 has priority
                if (way_hit[m]) begin
                    lk_hit      = 1'b1;
                    lk_byp      = cmp_byp[m];
                    lk_rd_value = cmp_rd[m][VALUE_W-1:0];
                end
            end
            lk_value = lk_byp ? cmp_byp_word[VALUE_W-1:0] : lk_rd_value;
        end

        always_ff @(posedge clk) begin
            if (rst) rs_hit_q <= 1'b0;
            else     rs_hit_q <= cmp_valid && lk_hit;
        end
        always_ff @(posedge clk) begin
            rs_value_q <= lk_value;
        end
    end

    assign rs_valid = lk_v_q[LOOKUP_LATENCY];
    assign rs_hit   = rs_hit_q;
    assign rs_value = rs_value_q;

    // ------------------------------------------------------------------------------------
    // AXI4-Lite front end. A write is taken (wr_req) and registered with its decoded
    // address, then performed from registers in the next cycle, when a register write (or a
    // refused one) is answered (B in the cycle after); a command is answered from its last
    // phase. A read is registered with its decoded address and answered in the next cycle.
    // ------------------------------------------------------------------------------------
    logic            wr_req;
    logic [WA_W-1:0] wr_addr;  // word address
    logic [31:0]     wr_data;
    logic [3:0]      wr_strb;
    logic            wr_ack;
    logic            wr_err;
    logic            rd_req;
    logic [WA_W-1:0] rd_addr;  // word address
    logic [31:0]     rd_data;
    logic            rd_ack;
    logic            rd_err;

    // clk, rst, s_axil_* and the wr_*/rd_* request signals connect by name (.*). A write waits
    // for the post-reset clear; otherwise the engine is idle whenever a write can come (one
    // write in flight, a command answered from its last phase).
    axil_reg_if #(
        .ADDR_W (ADDR_W)
    ) u_axil (
        .*,
        .wr_ready (!clear_q),
        .wr_ack   (wr_ack),
        .wr_err   (wr_err),
        .rd_ack   (rd_ack),
        .rd_err   (rd_err)
    );

    // Register index helpers (word address -> KEY/VALUE word, or "not one")
    function automatic logic is_key_addr(input logic [WA_W-1:0] a);
        is_key_addr = 32'(a) >= WA_KEY && 32'(a) < WA_KEY + KEY_WORDS;
    endfunction

    function automatic logic is_value_addr(input logic [WA_W-1:0] a);
        is_value_addr = 32'(a) >= WA_VALUE && 32'(a) < WA_VALUE + VALUE_WORDS;
    endfunction

    // The write, registered (a+1 after the AW/W handshake a)
    logic        wq_q;          // a write to perform this cycle
    logic        wq_cmd_q;      // its address: TBL_CMD
    logic        wq_slot_q;     // TBL_SLOT
    logic        wq_key_q;      // a TBL_KEY word
    logic        wq_value_q;    // a TBL_VALUE word
    logic [2:0]  wq_idx_q;      // KEY/VALUE word index
    logic [31:0] wq_data_q;     // data: not reset
    logic [3:0]  wq_strb_q;     // data: not reset

    always_ff @(posedge clk) begin
        if (rst) wq_q <= 1'b0;
        else     wq_q <= wr_req;
    end

    always_ff @(posedge clk) begin
        if (wr_req) begin
            wq_cmd_q   <= 32'(wr_addr) == WA_CMD;
            wq_slot_q  <= 32'(wr_addr) == WA_SLOT;
            wq_key_q   <= is_key_addr(wr_addr);
            wq_value_q <= is_value_addr(wr_addr);
            wq_idx_q   <= wr_addr[2:0];
            wq_data_q  <= wr_data;
            wq_strb_q  <= wr_strb;
        end
    end

    logic        slot_in_range_q; // TBL_SLOT names a slot of this table (a cycle behind slot_q;
                                  // a command is decoded at least 3 cycles after a TBL_SLOT write)
    logic        cmd_op;          // the write is a command with an op
    logic        cmd_start;
    logic        wr_ok;

    assign cmd_op    = wq_cmd_q && wq_strb_q[0] && wq_data_q[1:0] != OP_NONE;
    assign cmd_start = wq_q && cmd_op && slot_in_range_q;
    assign wr_ok     = wq_slot_q || wq_key_q || wq_value_q || (wq_cmd_q && !(cmd_op && !slot_in_range_q));

    always_ff @(posedge clk) begin
        slot_in_range_q <= slot_q[31:3 + BIDX_W] == '0;
    end

    // ------------------------------------------------------------------------------------
    // Command engine: a shift register of phases after the decode (a+1):
    //   a+2 rd_q   read the slot on port B
    //   a+3 wr_q   write it (op 1, 2); the word read enters the RAMs' output registers
    //   a+4 sel_q  each memory's word from port B's output registers into a register of its
    //              own beside it, zero but the slot's (way_clr_q, from TBL_SLOT's memory)
    //   a+5 ex_q   TBL_COUNT, or the OR of those words into TBL_KEY/TBL_VALUE/TBL_STATUS[31];
    //              wr_ack
    // The slot's word is gathered from the 8 memories, which may span the die, as a one-hot
    // AND-OR split at a register: a select by TBL_SLOT in one cycle put its decode and a
    // wide multiplexer in series with the wires between them.
    // With SDP_MEM the read is the lookup port's (op 3 stays in rd_q while a lookup reads)
    // and TBL_COUNT takes the valid bit from the valid-bit RAM (g_valid_sdp).
    // Every memory control (address, read and write enables, write data) is a register.
    // ------------------------------------------------------------------------------------
    logic                    rd_q, wr_q, sel_q, ex_q;
    logic                    clear_last;
    logic [1:0]              op_q;
    logic [CNT_W-1:0]        count_q;
    logic                    rd_valid_q;  // TBL_STATUS[31]
    logic                    busy;

    logic [KEY_W-1:0]            key_q;      // TBL_KEY   (data: not reset)
    logic [VALUE_W-1:0]          value_q;    // TBL_VALUE (data: not reset)
    logic [MEMS-1:0]             way_clr_q;  // clear memory m's word register: all but the
                                             // slot's memory in sel_q (the clear itself,
                                             // so no inverter before the FFs' reset)
    // memory m's word read if it is the slot's, else 0 (data: not reset); packed, so that
    // synthesis keeps it flip-flops and does not infer a memory from the per-way writes
    logic [MEMS-1:0][SLOT_W-1:0] way_word_q;
    logic [SLOT_W-1:0]           slot_word;  // the slot's word (in ex_q)
    logic                        rdx_q;      // ex_q of an op 3

    logic [$clog2(MEMS)-1:0] sel;            // memory of TBL_SLOT: bank*4 + way
    logic                    old_valid;      // the slot was valid (in ex_q)
    logic                    rd_go;          // the command's read is made this cycle

    assign sel        = {slot_q[0], slot_q[2:1]};
    assign clear_last = ctl_addr_q == BIDX_W'(BUCKETS - 1);
    assign busy       = clear_q || rd_q || wr_q || sel_q || ex_q;

    always_ff @(posedge clk) begin
        if (rst) begin
            clear_q    <= 1'b1;
            rd_q       <= 1'b0;
            wr_q       <= 1'b0;
            sel_q      <= 1'b0;
            ex_q       <= 1'b0;
            way_clr_q  <= '1;
            rdx_q      <= 1'b0;
            ctl_addr_q <= '0;
            ctl_we_q   <= '1;     // the clear writes from the first cycle after reset
            count_q    <= '0;
            rd_valid_q <= 1'b0;
        end else begin
            rd_q  <= cmd_start || (rd_q && !rd_go);
            wr_q  <= rd_go;
            sel_q <= wr_q;
            ex_q  <= sel_q;
            rdx_q <= sel_q && op_q == OP_READ;
            for (int m = 0; m < MEMS; m++) begin
                way_clr_q[m] <= !(wr_q && sel == ($clog2(MEMS))'(m));
            end
            if (clear_q) begin
                ctl_addr_q <= ctl_addr_q + 1'b1;
                if (clear_last) clear_q <= 1'b0;
            end else begin
                ctl_addr_q <= slot_q[3 +: BIDX_W];
            end
            for (int m = 0; m < MEMS; m++) begin
                ctl_we_q[m] <= (clear_q && !clear_last)
                               || (rd_go && op_q != OP_READ && sel == ($clog2(MEMS))'(m));
            end
            if (ex_q) begin
                if (op_q == OP_WRITE && !old_valid)  count_q <= count_q + 1'b1;
                if (op_q == OP_DELETE && old_valid)  count_q <= count_q - 1'b1;
            end
            if (rdx_q) rd_valid_q <= slot_word[SLOT_W-1];
        end
    end

    if (SDP_MEM) begin : g_valid_sdp
        // The slots' valid bits again, a word of MEMS bits per bucket, for TBL_COUNT: read
        // with the command's read (a+2, landing in sel_q), written back in sel_q with the
        // slot's bit replaced (op 1, 2), cleared with the slots after reset. Op 3 waits in
        // rd_q while a lookup reads (s1_valid): its word comes through the lookup's port.
        logic            clr_we_q;   // the post-reset clear writes bucket ctl_addr_q
        logic            v_we;
        logic [MEMS-1:0] v_rd, v_wd;
        logic            v_old_q;

        always_ff @(posedge clk) begin
            if (rst) clr_we_q <= 1'b1;
            else     clr_we_q <= clear_q && !clear_last;
        end

        always_comb begin
            v_wd      = v_rd;
            v_wd[sel] = op_q == OP_WRITE;
            if (clr_we_q) v_wd = '0;
        end
        assign v_we = clr_we_q || (sel_q && op_q != OP_READ);

        ram_sdp_reg #(
            .ADDR_W (BIDX_W),
            .DATA_W (MEMS)
        ) u_valid (
            .clk   (clk),
            .we    (v_we),
            .waddr (ctl_addr_q),
            .wdata (v_wd),
            .raddr (ctl_addr_q),
            .rdata (v_rd)
        );

        always_ff @(posedge clk) begin
            v_old_q <= v_rd[sel];
        end

        assign old_valid = v_old_q;
        assign rd_go     = rd_q && !(op_q == OP_READ && s1_valid);
    end else begin : g_valid_tdp
        // The slot's valid bit on its own (a one-hot AND-OR of the 8), so TBL_COUNT's update
        // does not wait for the OR of the words.
        logic old_valid_q;

        always_ff @(posedge clk) begin
            old_valid_q <= 1'b0;
            for (int m = 0; m < MEMS; m++) begin
                if (!way_clr_q[m] && ctl_rd[m][SLOT_W-1]) old_valid_q <= 1'b1;
            end
        end

        assign old_valid = old_valid_q;
        assign rd_go     = rd_q;
    end

    always_ff @(posedge clk) begin
        if (rst)                            ctl_wdata_q <= '0;
        else if (op_q == OP_WRITE && !clear_q) ctl_wdata_q <= {1'b1, key_q, value_q};
        else                                ctl_wdata_q <= '0;
    end

    always_ff @(posedge clk) begin
        if (cmd_start) op_q <= wq_data_q[1:0];
    end

    // Beside each memory's output: its word, or 0 (a synchronous clear, no LUT in the way)
    for (genvar m = 0; m < MEMS; m++) begin : g_way_word
        always_ff @(posedge clk) begin
            if (way_clr_q[m]) way_word_q[m] <= '0;
            else              way_word_q[m] <= ctl_rd[m];
        end
    end

    // The OR of each bank's 4 words kept as nets of their own (one LUT4 per bit), so the
    // mapper cannot make the 8-word OR a chain: TBL_KEY/TBL_VALUE take it in one more LUT.
    (* keep *) logic [1:0][SLOT_W-1:0] bank_word;

    for (genvar k = 0; k < 2; k++) begin : g_bank_word
        assign bank_word[k] = way_word_q[WAYS*k] | way_word_q[WAYS*k+1]
                            | way_word_q[WAYS*k+2] | way_word_q[WAYS*k+3];
    end
    assign slot_word = bank_word[0] | bank_word[1];

    // Write answer: a register write (or a refused command) at once, a command in ex_q
    assign wr_ack = (wq_q && !cmd_start) || ex_q;
    assign wr_err = wq_q && !wr_ok;

    // ------------------------------------------------------------------------------------
    // TBL_SLOT, TBL_KEY, TBL_VALUE
    // ------------------------------------------------------------------------------------
    always_ff @(posedge clk) begin
        if (rst) begin
            slot_q <= '0;
        end else if (wq_q && wq_slot_q) begin
            for (int b = 0; b < 4; b++) begin
                if (wq_strb_q[b]) slot_q[8*b +: 8] <= wq_data_q[8*b +: 8];
            end
        end
    end

    always_ff @(posedge clk) begin
        if (rdx_q) begin
            key_q   <= slot_word[VALUE_W +: KEY_W];
            value_q <= slot_word[VALUE_W-1:0];
        end else if (wq_q) begin
            for (int b = 0; b < KEY_W; b++) begin
                if (wq_key_q && wq_idx_q == 3'(b / 32) && wq_strb_q[(b % 32) / 8]) begin
                    key_q[b] <= wq_data_q[b % 32];
                end
            end
            for (int b = 0; b < VALUE_W; b++) begin
                if (wq_value_q && wq_idx_q == 3'(b / 32) && wq_strb_q[(b % 32) / 8]) begin
                    value_q[b] <= wq_data_q[b % 32];
                end
            end
        end
    end

    // ------------------------------------------------------------------------------------
    // Read data: the address decoded as the read is taken, the data selected from
    // registers in the next cycle (unmapped: 0, SLVERR)
    // ------------------------------------------------------------------------------------
    localparam int R_INFO    = 0;
    localparam int R_VALUE_W = 1;
    localparam int R_COUNT   = 2;
    localparam int R_SLOT    = 3;
    localparam int R_STATUS  = 4;
    localparam int R_KEY     = 5;
    localparam int R_VALUE   = 6;
    localparam int R_ZERO    = 7;   // TBL_CMD: reads as 0
    localparam int R_KINDS   = 8;

    logic                   rq_q;      // a read to answer this cycle
    logic [R_KINDS-1:0]     rk_q;      // its register, one-hot (none: unmapped)
    logic [KEY_WORDS-1:0]   rkw_q;     // the TBL_KEY word read, one-hot
    logic [VALUE_WORDS-1:0] rvw_q;     // the TBL_VALUE word read, one-hot

    always_ff @(posedge clk) begin
        if (rst) rq_q <= 1'b0;
        else     rq_q <= rd_req;
    end

    always_ff @(posedge clk) begin
        if (rd_req) begin
            rk_q[R_INFO]    <= 32'(rd_addr) == WA_INFO;
            rk_q[R_VALUE_W] <= 32'(rd_addr) == WA_VALUE_W;
            rk_q[R_COUNT]   <= 32'(rd_addr) == WA_COUNT;
            rk_q[R_SLOT]    <= 32'(rd_addr) == WA_SLOT;
            rk_q[R_STATUS]  <= 32'(rd_addr) == WA_STATUS;
            rk_q[R_KEY]     <= is_key_addr(rd_addr);
            rk_q[R_VALUE]   <= is_value_addr(rd_addr);
            rk_q[R_ZERO]    <= 32'(rd_addr) == WA_CMD;
            for (int i = 0; i < KEY_WORDS; i++)   rkw_q[i] <= 32'(rd_addr) == WA_KEY + i;
            for (int i = 0; i < VALUE_WORDS; i++) rvw_q[i] <= 32'(rd_addr) == WA_VALUE + i;
        end
    end

    logic [KEY_PAD-1:0]   key_pad;
    logic [VALUE_PAD-1:0] value_pad;

    assign key_pad   = KEY_PAD'(key_q);
    assign value_pad = VALUE_PAD'(value_q);

    // An AND-OR of the registers by the one-hot selects (no priority chain over the words).
    always_comb begin
        rd_data = ({32{rk_q[R_INFO]}}    & INFO_VALUE)
                | ({32{rk_q[R_VALUE_W]}} & 32'(VALUE_W))
                | ({32{rk_q[R_COUNT]}}   & 32'(count_q))
                | ({32{rk_q[R_SLOT]}}    & slot_q)
                | ({32{rk_q[R_STATUS]}}  & {rd_valid_q, 30'd0, busy});
        for (int i = 0; i < KEY_WORDS; i++)   rd_data |= {32{rkw_q[i]}} & key_pad[32*i +: 32];
        for (int i = 0; i < VALUE_WORDS; i++) rd_data |= {32{rvw_q[i]}} & value_pad[32*i +: 32];
    end

    assign rd_ack = rq_q;
    assign rd_err = rk_q == '0;

endmodule

`default_nettype wire
